"""A plugin used by the tests: it contributes one Portable Text block type, a pull quote, whose fields are declared
as a JSON Schema of every kind the studio's block form draws (text, choice, whole number, yes/no)."""

from __future__ import annotations

from apps.core.portabletext import BlockType, object_validator
from apps.plugins.base import Plugin


class BlocksPlugin(Plugin):
    id = "blocks"
    name = "Test blocks"
    version = "1.0.0"
    description = "A pull quote block."

    def block_types(self):
        return [
            BlockType(
                "pullQuote",
                object_validator(
                    required={"text": str},
                    optional={"attribution": str, "size": str, "highlighted": bool, "width": int},
                ),
                text=lambda block: [block.get("text", ""), block.get("attribution", "")],
                description="A quotation set apart from the text.",
                schema={
                    "type": "object",
                    "title": "Pull quote",
                    "properties": {
                        "text": {"type": "string", "title": "Quotation"},
                        "attribution": {"type": "string", "title": "Attribution"},
                        "size": {
                            "type": "string",
                            "title": "Size",
                            "enum": ["small", "large"],
                            "default": "small",
                        },
                        "highlighted": {"type": "boolean", "title": "Highlighted"},
                        "width": {"type": "integer", "title": "Columns wide", "minimum": 1, "maximum": 12},
                    },
                    "required": ["text"],
                },
            )
        ]


plugin = BlocksPlugin
