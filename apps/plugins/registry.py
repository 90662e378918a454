"""The plugins of this installation and what each contributes, loaded once per process from ``CMS_PLUGINS``, and
whether each is enabled, read from the database at most once per request.

Every process loads the same code; only the enabled flags change at run time, and they live in the database. The flags
are cached per process and dropped when a request starts (``request_started``), when a pass of the worker starts, and
when this process changes them, so disabling a plugin takes effect at the next request everywhere, for the cost of
one small query in the requests that ask (validating Portable Text that uses a plugin type, running hooks).
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils.module_loading import import_string

from apps.core import portabletext
from apps.core.portabletext import BlockType
from apps.plugins.base import HOOKS, ID_RE, ImportSourceContribution, Plugin, ToolContribution

logger = logging.getLogger("cms.plugins")


@dataclass
class Installed:
    plugin: Plugin
    path: str
    block_types: list[BlockType] = field(default_factory=list)
    mcp_tools: list[ToolContribution] = field(default_factory=list)
    import_sources: list[ImportSourceContribution] = field(default_factory=list)
    hooks: dict[str, Callable[..., None]] = field(default_factory=dict)
    batch_hooks: dict[str, Callable[[list[dict[str, Any]]], None]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.plugin.id


_installed: dict[str, Installed] = {}
_lock = threading.Lock()
_enabled: dict[str, bool] | None = None


def _resolve(path: str) -> Plugin:
    """A plugin instance from a dotted path: a module (or package) with a ``plugin`` attribute, or the class itself."""
    try:
        target: Any = importlib.import_module(path)
        target = target.plugin
    except ModuleNotFoundError:
        target = import_string(path)
    except AttributeError as exc:
        raise ImproperlyConfigured(f"CMS_PLUGINS: module {path} has no 'plugin' attribute") from exc
    if isinstance(target, type) and issubclass(target, Plugin):
        target = target()
    if not isinstance(target, Plugin):
        raise ImproperlyConfigured(f"CMS_PLUGINS: {path} is not a Plugin subclass")
    return target


def _install(plugin: Plugin, path: str) -> Installed:
    if not isinstance(getattr(plugin, "id", None), str) or not ID_RE.match(plugin.id):
        raise ImproperlyConfigured(f"CMS_PLUGINS: {path} needs an id matching {ID_RE.pattern}")
    if not getattr(plugin, "name", None):
        raise ImproperlyConfigured(f"CMS_PLUGINS: plugin {plugin.id} needs a name")
    hooks = dict(plugin.hooks())
    unknown = sorted(set(hooks) - set(HOOKS))
    if unknown:
        raise ImproperlyConfigured(
            f"CMS_PLUGINS: plugin {plugin.id} hooks {', '.join(unknown)}; known hooks: {', '.join(HOOKS)}"
        )
    batch_hooks = dict(plugin.batch_hooks())
    if single_missing := sorted(set(batch_hooks) - set(hooks)):
        raise ImproperlyConfigured(
            f"CMS_PLUGINS: plugin {plugin.id} has batch hooks without their single form: {', '.join(single_missing)}"
        )
    # Contributed block types carry the plugin's id, which is how Portable Text asks whether they are available.
    block_types = [dataclasses.replace(block_type, source=plugin.id) for block_type in plugin.block_types()]
    return Installed(
        plugin=plugin,
        path=path,
        block_types=block_types,
        mcp_tools=list(plugin.mcp_tools()),
        import_sources=list(plugin.import_sources()),
        hooks=hooks,
        batch_hooks=batch_hooks,
    )


def load(paths: Iterable[str]) -> None:
    """(Re)load the plugins at ``paths``, replacing those loaded before (AppConfig.ready; tests)."""
    installed: dict[str, Installed] = {}
    for path in paths:
        entry = _install(_resolve(path), path)
        if entry.id in installed:
            raise ImproperlyConfigured(f"CMS_PLUGINS: two plugins have the id {entry.id!r}")
        installed[entry.id] = entry
    taken = {
        name for name, block_type in portabletext.registered_types().items() if block_type.source == "core"
    }
    with _lock:
        for entry in _installed.values():
            for block_type in entry.block_types:
                portabletext.unregister(block_type.name)
        for entry in installed.values():
            for block_type in entry.block_types:
                if block_type.name in taken:
                    raise ImproperlyConfigured(
                        f"CMS_PLUGINS: plugin {entry.id} redefines the built-in block type {block_type.name!r}"
                    )
                portabletext.register(block_type)
        _installed.clear()
        _installed.update(installed)
    portabletext.set_availability(_block_type_available)
    invalidate()


# --- enabled state ----------------------------------------------------------------------------------------------------


def invalidate(**_: Any) -> None:
    """Forget the cached flags; the next question reads them again. A receiver of request_started."""
    global _enabled
    _enabled = None


def _flags() -> dict[str, bool]:
    global _enabled
    flags = _enabled
    if flags is None:
        from apps.plugins.models import PluginState

        flags = dict(PluginState.objects.values_list("plugin_id", "enabled"))
        _enabled = flags
    return flags


def is_enabled(plugin_id: str) -> bool:
    """Installed and not disabled."""
    return plugin_id in _installed and _flags().get(plugin_id, True)


def _block_type_available(block_type: BlockType) -> bool:
    return block_type.source == "core" or is_enabled(block_type.source)


def changed_on_commit() -> None:
    """A plugin's state changed in this transaction: drop this process's cache now and after the commit."""
    invalidate()
    transaction.on_commit(invalidate)


# --- what is installed and active -------------------------------------------------------------------------------------


def installed() -> list[Installed]:
    return sorted(_installed.values(), key=lambda entry: entry.id)


def get(plugin_id: str) -> Installed | None:
    return _installed.get(plugin_id)


def active() -> list[Installed]:
    return [entry for entry in installed() if is_enabled(entry.id)]


def active_mcp_tools() -> list[tuple[str, ToolContribution]]:
    """(plugin id, tool) for every tool of an enabled plugin: what the MCP server adds to its own tools."""
    return [(entry.id, tool) for entry in active() for tool in entry.mcp_tools]


def active_import_sources() -> list[tuple[str, ImportSourceContribution]]:
    """(plugin id, source) for every import source of an enabled plugin: what the importer adds to its own."""
    return [(entry.id, source) for entry in active() for source in entry.import_sources]


def dispatch(hook: str, **payload: Any) -> None:
    """Call every enabled plugin's ``hook``. Each runs in a savepoint of the caller's transaction; one that fails is
    logged and undone, and does not undo the change that triggered it or stop the other plugins."""
    if not any(hook in entry.hooks for entry in _installed.values()):
        return
    for entry in active():
        receiver = entry.hooks.get(hook)
        if receiver is not None:
            _guarded(entry, hook, receiver, payload)


def dispatch_many(hook: str, payloads: list[dict[str, Any]]) -> None:
    """``dispatch`` for many changes made by one write: a plugin with a batch form of ``hook`` gets every payload in
    one call (and one savepoint); the others are called once per payload, as ``dispatch`` calls them."""
    if not payloads or not any(hook in entry.hooks for entry in _installed.values()):
        return
    for entry in active():
        batch = entry.batch_hooks.get(hook)
        if batch is not None:
            _guarded(entry, hook, batch, payloads)
            continue
        receiver = entry.hooks.get(hook)
        if receiver is not None:
            for payload in payloads:
                _guarded(entry, hook, receiver, payload)


def _guarded(entry: Installed, hook: str, receiver: Callable[..., None], payload: Any) -> None:
    """A single hook gets the payload as keyword arguments, a batch hook the list of payloads."""
    try:
        with transaction.atomic():
            if isinstance(payload, dict):
                receiver(**payload)
            else:
                receiver(payload)
    except Exception:
        logger.exception("plugin hook failed", extra={"plugin": entry.id, "hook": hook})
