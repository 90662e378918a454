"""``text``: multi-line plain text, with optional minLength and maxLength; the widget shows ``rows`` lines."""

from apps.schema.field_types.base import (
    FieldType,
    FieldValueError,
    check_int_keys,
    check_range,
    describe,
    length_schema,
)
from apps.schema.field_types.string import check_length


class TextType(FieldType):
    name = "text"
    validation_keys = frozenset({"minLength", "maxLength"})
    option_keys = frozenset({"rows"})
    can_be_unique = True
    description = "Multi-line plain text."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        problems.update(check_int_keys(validation, ("minLength", "maxLength"), minimum=0))
        problems.update(check_range(validation, "minLength", "maxLength"))
        rows = options.get("rows")
        if rows is not None and (not isinstance(rows, int) or isinstance(rows, bool) or rows < 1):
            problems["options.rows"] = "Expected a whole number of at least 1."
        return problems

    def normalize(self, value, *, validation, options, context):
        if not isinstance(value, str):
            raise FieldValueError(f"Expected text, got {describe(value)}.")
        check_length(value, validation)
        return value

    def typescript(self, *, validation, options):
        return "string"

    def json_schema(self, *, validation, options):
        return {"type": "string", **length_schema(validation)}

    def search_text(self, value):
        return value if isinstance(value, str) else ""
