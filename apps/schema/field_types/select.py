"""``select``: one of ``validation.options`` (required), stored as text."""

from apps.schema.field_types.base import FieldType, FieldValueError, describe, ts_string


def check_options(validation: dict) -> dict[str, str]:
    options = validation.get("options")
    if not isinstance(options, list) or not options:
        return {"validation.options": "Required: a non-empty list of the allowed values (strings)."}
    if not all(isinstance(option, str) and option for option in options):
        return {"validation.options": "Every allowed value must be a non-empty string."}
    if len(set(options)) != len(options):
        return {"validation.options": "The allowed values must not repeat."}
    return {}


def check_member(value, options: list[str]) -> str:
    if not isinstance(value, str) or value not in options:
        shown = ", ".join(options[:20]) + (" …" if len(options) > 20 else "")
        raise FieldValueError(f"{describe(value)} is not one of the allowed values: {shown}.")
    return value


class SelectType(FieldType):
    name = "select"
    validation_keys = frozenset({"options"})
    sortable = True
    can_be_unique = True
    description = "One value from a fixed list."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        problems.update(check_options(validation))
        return problems

    def normalize(self, value, *, validation, options, context):
        return check_member(value, validation.get("options") or [])

    def typescript(self, *, validation, options):
        return " | ".join(ts_string(option) for option in validation.get("options") or []) or "string"

    def json_schema(self, *, validation, options):
        return {"type": "string", "enum": list(validation.get("options") or [])}

    def search_text(self, value):
        return value if isinstance(value, str) else ""
