"""Plugins that ship with the CMS. They use nothing a third-party plugin could not: the Plugin base and its hooks."""
