"""Which import sources exist: the ones named in ``settings.CMS_IMPORT_SOURCES`` plus those of enabled plugins.

A source (``apps.plugins.base.ImportSourceContribution``) has an ``id``, a ``name``, an optional ``probe(url)``, an
``analyze(input)`` and a streaming ``fetch(input)`` (SPEC §4.10). Built-in sources are modules with a ``source``
attribute, so a deployment can drop one or add its own in settings without a plugin.
"""

from __future__ import annotations

import importlib
from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from apps.core.errors import NotFound
from apps.plugins import registry as plugin_registry
from apps.plugins.base import ImportSourceContribution


@cache
def _configured(paths: tuple[str, ...]) -> tuple[ImportSourceContribution, ...]:
    found = []
    for path in paths:
        module = importlib.import_module(path)
        source = getattr(module, "source", None)
        if not isinstance(source, ImportSourceContribution):
            raise ImproperlyConfigured(
                f"CMS_IMPORT_SOURCES: {path} has no 'source' (an ImportSourceContribution)"
            )
        found.append(source)
    return tuple(found)


def all_sources() -> list[ImportSourceContribution]:
    """Configured sources first, then enabled plugins' (a plugin cannot replace a configured id)."""
    sources = list(_configured(tuple(settings.CMS_IMPORT_SOURCES)))
    taken = {source.id for source in sources}
    for _plugin_id, source in plugin_registry.active_import_sources():
        if source.id not in taken:
            sources.append(source)
            taken.add(source.id)
    return sources


def get_source(source_id: str) -> ImportSourceContribution:
    for source in all_sources():
        if source.id == source_id:
            return source
    raise NotFound(
        f"No import source '{source_id}'; sources: {', '.join(source.id for source in all_sources())}."
    )
