"""``string``: single-line text, with optional minLength, maxLength and a regular-expression pattern."""

import re

from apps.schema.field_types.base import (
    FieldType,
    FieldValueError,
    check_int_keys,
    check_range,
    describe,
    length_schema,
)


class StringType(FieldType):
    name = "string"
    validation_keys = frozenset({"minLength", "maxLength", "pattern"})
    sortable = True
    can_be_unique = True
    description = "Single-line text."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        problems.update(check_int_keys(validation, ("minLength", "maxLength"), minimum=0))
        problems.update(check_range(validation, "minLength", "maxLength"))
        if "pattern" in validation:
            pattern = validation["pattern"]
            try:
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                problems["validation.pattern"] = f"Not a valid regular expression: {exc}."
        return problems

    def normalize(self, value, *, validation, options, context):
        if not isinstance(value, str):
            raise FieldValueError(f"Expected text, got {describe(value)}.")
        # Single-line: line breaks (from pasted or imported text) become spaces rather than a refusal.
        value = " ".join(value.splitlines()) if "\n" in value or "\r" in value else value
        check_length(value, validation)
        pattern = validation.get("pattern")
        if pattern and not re.fullmatch(pattern, value):
            raise FieldValueError(f"Must match the pattern {pattern}.")
        return value

    def typescript(self, *, validation, options):
        return "string"

    def json_schema(self, *, validation, options):
        schema = {"type": "string", **length_schema(validation)}
        if validation.get("pattern"):
            schema["pattern"] = validation["pattern"]
        return schema

    def search_text(self, value):
        return value if isinstance(value, str) else ""


def check_length(value: str, validation: dict) -> None:
    low, high = validation.get("minLength"), validation.get("maxLength")
    if low is not None and len(value) < low:
        raise FieldValueError(f"Must be at least {low} characters long (got {len(value)}).")
    if high is not None and len(value) > high:
        raise FieldValueError(f"Must be at most {high} characters long (got {len(value)}).")
