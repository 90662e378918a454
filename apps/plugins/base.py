"""What a plugin is: a Python package named in ``CMS_PLUGINS`` whose ``plugin`` attribute is a subclass of ``Plugin``
(or the dotted path of the subclass itself).

A plugin has an id, a name, a version and a description, and contributes any of:

- Portable Text block types (``block_types``): validated wherever Portable Text is, while the plugin is enabled;
- MCP tools (``mcp_tools``): offered by the tool server while the plugin is enabled;
- import sources (``import_sources``): offered by the import pipeline while the plugin is enabled;
- hooks (``hooks``, and ``batch_hooks`` for many changes at once): functions called after content and media changes,
  inside the change's transaction.

Enabling and disabling is stored in the database and takes effect at once in every process.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from apps.accounts.models import Role
from apps.core.portabletext import BlockType

ID_RE = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")

# Hook name → what it receives (keyword arguments). ``action`` is the detailed change (see apps/core/events.py).
HOOKS: dict[str, str] = {
    "content.create": "entry, action, actor",
    "content.update": "entry, action (update, schedule, restore, discard_draft, …), actor",
    "content.publish": "entry, action, actor",
    "content.unpublish": "entry, action, actor",
    "content.delete": "entry, action (trash or delete), permanent (bool), actor",
    "media.upload": "media, action (upload or create), deduplicated (bool), actor",
    "media.update": "media, action, actor",
    "media.delete": "media, action, actor",
}


@dataclass(frozen=True)
class ToolContribution:
    """An MCP tool a plugin offers. ``handler(actor, arguments)`` returns the tool's JSON-serialisable result; the
    tool server checks ``scope`` and ``min_role`` before calling it."""

    name: str
    description: str
    input_schema: dict
    handler: Callable[[Any, dict], Any]
    scope: str
    min_role: int = Role.SUBSCRIBER
    read_only: bool = False
    destructive: bool = False


@dataclass(frozen=True)
class ImportSourceContribution:
    """An import source (SPEC §4.10): an id, a name, an optional ``probe(url)``, ``analyze(input)`` and a streaming
    ``fetch(input)`` yielding normalised import items."""

    id: str
    name: str
    analyze: Callable[[Any], Any]
    fetch: Callable[[Any], Iterator[dict]]
    probe: Callable[[str], Any] | None = None


class Plugin:
    """Subclass, set the class attributes, and override the contributions you make."""

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str] = "0.1.0"
    description: ClassVar[str] = ""

    def block_types(self) -> list[BlockType]:
        return []

    def mcp_tools(self) -> list[ToolContribution]:
        return []

    def import_sources(self) -> list[ImportSourceContribution]:
        return []

    def hooks(self) -> dict[str, Callable[..., None]]:
        """Hook name (a key of ``HOOKS``) → the function called with that hook's keyword arguments."""
        return {}

    def batch_hooks(self) -> dict[str, Callable[[list[dict[str, Any]]], None]]:
        """Optional, for hooks that write: hook name → a function called once with a list of payloads (each the
        keyword arguments ``hooks`` would receive) when one write changes many objects, as an import's batch does.
        Every hook named here must be in ``hooks`` too, which still receives single changes; a hook without a batch
        form is called once per payload."""
        return {}
