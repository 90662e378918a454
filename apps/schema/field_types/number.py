"""``number``: a 64-bit floating point number, with optional min and max. Numeric strings are accepted and converted."""

import math

from apps.schema.field_types.base import FieldType, FieldValueError, check_number_keys, check_range, describe


def to_number(value) -> float | int:
    if isinstance(value, bool):
        raise FieldValueError(f"Expected a number, got {describe(value)}.")
    if isinstance(value, (int, float)):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise FieldValueError(f"Expected a number, got {describe(value)}.") from None
    else:
        raise FieldValueError(f"Expected a number, got {describe(value)}.")
    if isinstance(number, float) and not math.isfinite(number):
        raise FieldValueError("Expected a finite number.")
    return number


def check_bounds(number, validation: dict) -> None:
    low, high = validation.get("min"), validation.get("max")
    if low is not None and number < low:
        raise FieldValueError(f"Must be at least {low} (got {number}).")
    if high is not None and number > high:
        raise FieldValueError(f"Must be at most {high} (got {number}).")


class NumberType(FieldType):
    name = "number"
    validation_keys = frozenset({"min", "max"})
    sortable = True
    numeric = True
    can_be_unique = True
    description = "A floating-point number."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        problems.update(check_number_keys(validation, ("min", "max")))
        problems.update(check_range(validation, "min", "max"))
        return problems

    def normalize(self, value, *, validation, options, context):
        number = to_number(value)
        check_bounds(number, validation)
        return number

    def typescript(self, *, validation, options):
        return "number"

    def json_schema(self, *, validation, options):
        schema = {"type": "integer" if self.name == "integer" else "number"}
        if validation.get("min") is not None:
            schema["minimum"] = validation["min"]
        if validation.get("max") is not None:
            schema["maximum"] = validation["max"]
        return schema
