"""``portableText``: rich text as a list of Portable Text blocks, checked by apps/core/portabletext."""

from apps.core import portabletext
from apps.schema.field_types.base import FieldType, FieldValueError, describe


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
            raise FieldValueError(f"{path}: {message}{more}")
        return blocks

    def typescript(self, *, validation, options):
        return "PortableTextBlock[]"

    def search_text(self, value):
        return portabletext.plain_text(value)
