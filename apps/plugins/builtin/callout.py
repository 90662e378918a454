"""The ``callout`` Portable Text block: a highlighted note (info, tip, warning, danger) with an optional title and
rich-text content of its own.

    {"_type": "callout", "tone": "warning", "title": "Heads up", "content": [<text blocks>]}

While the plugin is disabled, documents using ``callout`` are refused like any unknown block type.
"""

from __future__ import annotations

from apps.core import portabletext
from apps.core.portabletext import BlockType
from apps.plugins.base import Plugin

TONES = ("info", "tip", "warning", "danger")


def validate_callout(block: dict, where: str, depth: int) -> tuple[dict, dict[str, str]]:
    problems: dict[str, str] = {}
    extra = set(block) - {"_type", "_key", "tone", "title", "content"}
    if extra:
        problems[where] = f"Unknown key(s) {', '.join(sorted(extra))} in a 'callout' block."
    tone = block.get("tone", "info")
    if tone not in TONES:
        problems[f"{where}.tone"] = f"One of {', '.join(TONES)}."
    title = block.get("title")
    if title is not None and not isinstance(title, str):
        problems[f"{where}.title"] = "Expected a string."
    content, nested = portabletext.normalize(block.get("content", []), f"{where}.content", depth + 1)
    problems.update(nested)
    clean = {"_type": "callout", "_key": block.get("_key"), "tone": tone, "content": content}
    if title is not None:
        clean["title"] = title
    return clean, problems


def callout_text(block: dict):
    yield block.get("title") or ""
    yield portabletext.plain_text(block.get("content"))


class CalloutPlugin(Plugin):
    id = "callout"
    name = "Callout blocks"
    version = "1.0.0"
    description = (
        "A Portable Text block for highlighted notes: info, tip, warning or danger, with rich content."
    )

    def block_types(self) -> list[BlockType]:
        return [
            BlockType(
                "callout",
                validate_callout,
                text=callout_text,
                description="A highlighted note: tone (info, tip, warning, danger), title, content (Portable Text).",
                schema={
                    "type": "object",
                    "title": "Callout",
                    "properties": {
                        "tone": {"type": "string", "title": "Tone", "enum": list(TONES), "default": "info"},
                        "title": {"type": "string", "title": "Title"},
                        "content": {"type": "array", "title": "Content", "default": []},
                    },
                    "required": ["tone"],
                },
            )
        ]


plugin = CalloutPlugin
