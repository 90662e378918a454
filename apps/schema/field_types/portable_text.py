"""``portableText``: rich text as a list of Portable Text blocks, checked by apps/core/portabletext."""

import re

from apps.core import portabletext
from apps.schema.field_types.base import FieldType, FieldValueError, describe

# What writers send: blocks of text (spans with marks, list items, styles) and the registered block types.
PORTABLE_TEXT_SCHEMA = {
    "type": "array",
    "description": "Portable Text blocks.",
    "items": {
        "type": "object",
        "required": ["_type"],
        "properties": {
            "_type": {
                "type": "string",
                "description": "'block' for text, else a block type (image, code …).",
            },
            "_key": {"type": "string", "description": "Unique in the list; generated when absent."},
            "style": {"enum": list(portabletext.STYLES)},
            "listItem": {"enum": list(portabletext.LIST_ITEMS)},
            "level": {"type": "integer", "minimum": 1},
            "markDefs": {"type": "array", "items": {"type": "object", "required": ["_key", "_type"]}},
            "children": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["_type"],
                    "properties": {
                        "_type": {"type": "string", "description": "'span' for text."},
                        "_key": {"type": "string"},
                        "text": {"type": "string"},
                        "marks": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "Decorators ("
                            + ", ".join(portabletext.DECORATORS)
                            + ") or markDefs keys.",
                        },
                    },
                },
            },
        },
    },
}


def path_parts(path: str) -> tuple[str | int, ...]:
    """``[0].children[1].text`` (apps/core/portabletext's problem keys) as ``(0, "children", 1, "text")``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"[.\[\]]+", path) if part)


class PortableTextType(FieldType):
    name = "portableText"
    description = "Rich text (Portable Text blocks)."

    def normalize(self, value, *, validation, options, context):
        if not isinstance(value, list):
            raise FieldValueError(f"Expected a list of Portable Text blocks, got {describe(value)}.")
        blocks, problems = portabletext.normalize(value)
        if problems:
            (path, message), *rest = problems.items()
            more = f" (and {len(rest)} more)" if rest else ""
            raise FieldValueError(f"{path}: {message}{more}", path=path_parts(path))
        return blocks

    def typescript(self, *, validation, options):
        return "PortableTextBlock[]"

    def json_schema(self, *, validation, options):
        return PORTABLE_TEXT_SCHEMA

    def search_text(self, value):
        return portabletext.plain_text(value)
