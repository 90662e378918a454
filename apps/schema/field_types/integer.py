"""``integer``: a whole number, with optional min and max. 3.0 and "3" are accepted as 3; 3.5 is refused."""

from apps.schema.field_types.base import FieldValueError, describe
from apps.schema.field_types.number import NumberType, check_bounds, to_number

# JSON consumers (JavaScript) lose precision past 2**53; refuse what they could not read back exactly.
SAFE_LIMIT = 2**53 - 1


class IntegerType(NumberType):
    """A number type (same validation keys, index and TypeScript type) whose values must be whole."""

    name = "integer"
    description = "A whole number."

    def normalize(self, value, *, validation, options, context):
        if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
            number = int(value.strip())
        else:
            number = to_number(value)
        if isinstance(number, float):
            if not number.is_integer():
                raise FieldValueError(f"Expected a whole number, got {describe(value)}.")
            number = int(number)
        if abs(number) > SAFE_LIMIT:
            raise FieldValueError(f"Must be between -{SAFE_LIMIT} and {SAFE_LIMIT}.")
        check_bounds(number, validation)
        return number
