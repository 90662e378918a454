"""``multiSelect``: a list of distinct values from ``validation.options`` (required), in the order given."""

from apps.schema.field_types.base import FieldType, FieldValueError, describe, ts_string
from apps.schema.field_types.select import check_member, check_options


class MultiSelectType(FieldType):
    name = "multiSelect"
    validation_keys = frozenset({"options"})
    description = "Several values from a fixed list."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        problems.update(check_options(validation))
        return problems

    def normalize(self, value, *, validation, options, context):
        if not isinstance(value, list):
            raise FieldValueError(f"Expected a list of allowed values, got {describe(value)}.")
        allowed = validation.get("options") or []
        chosen = [check_member(item, allowed) for item in value]
        return list(dict.fromkeys(chosen))

    def typescript(self, *, validation, options):
        union = " | ".join(ts_string(option) for option in validation.get("options") or []) or "string"
        return f"Array<{union}>"

    def json_schema(self, *, validation, options):
        return {"type": "array", "items": {"type": "string", "enum": list(validation.get("options") or [])}}

    def search_text(self, value):
        return " ".join(item for item in value if isinstance(item, str)) if isinstance(value, list) else ""
