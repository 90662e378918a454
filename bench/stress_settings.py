"""Settings of the `make stress` processes that fetch from a local HTTP server the scenario runs (media downloads of
an import): the safe HTTP client refuses loopback addresses, and its allow list is deliberately not read from the
environment, so a deployment cannot open it by mistake. Never used outside bench/."""

from cms_project.settings import *  # noqa: F403

CMS_SAFEHTTP_ALLOW_HOSTS = ["127.0.0.1"]
