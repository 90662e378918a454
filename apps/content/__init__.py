"""Entries of the runtime collections: storage, lifecycle (SPEC §3), revisions, bylines, i18n and scheduling."""
