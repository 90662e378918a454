"""``boolean``: true or false. 0/1 and the strings "true"/"false" (as some exports write them) are converted."""

from apps.schema.field_types.base import FieldType, FieldValueError, describe

_TEXT = {"true": True, "false": False, "1": True, "0": False}


class BooleanType(FieldType):
    name = "boolean"
    sortable = True
    description = "True or false."

    def normalize(self, value, *, validation, options, context):
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in _TEXT:
            return _TEXT[value.strip().lower()]
        raise FieldValueError(f"Expected true or false, got {describe(value)}.")

    def typescript(self, *, validation, options):
        return "boolean"

    def json_schema(self, *, validation, options):
        return {"type": "boolean"}
