"""``datetime``: an instant, stored as ``YYYY-MM-DDThh:mm:ss.sssZ`` in UTC; optional min and max as ISO strings.

The fixed-width UTC form sorts correctly as text, which is how the generated index orders it.
"""

from apps.core.timefmt import iso, parse_iso
from apps.schema.field_types.base import FieldType, FieldValueError, describe


class DateTimeType(FieldType):
    name = "datetime"
    validation_keys = frozenset({"min", "max"})
    sortable = True
    can_be_unique = True
    description = "A date and time (ISO 8601, stored in UTC)."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        for key in ("min", "max"):
            if key in validation and parse_iso(validation[key]) is None:
                problems[f"validation.{key}"] = "Expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z."
        return problems

    def normalize(self, value, *, validation, options, context):
        instant = parse_iso(value) if isinstance(value, str) else None
        if instant is None and isinstance(value, str) and len(value.strip()) == 10:
            instant = parse_iso(value.strip() + "T00:00:00Z")  # a bare date means its midnight, UTC
        if instant is None:
            raise FieldValueError(
                f"Expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got {describe(value)}."
            )
        low, high = parse_iso(validation.get("min") or ""), parse_iso(validation.get("max") or "")
        if low and instant < low:
            raise FieldValueError(f"Must not be before {iso(low)}.")
        if high and instant > high:
            raise FieldValueError(f"Must not be after {iso(high)}.")
        return iso(instant)

    def typescript(self, *, validation, options):
        return "string"

    def json_schema(self, *, validation, options):
        schema = {"type": "string", "format": "date-time"}
        bounds = [
            f"{word} {validation[key]}"
            for key, word in (("min", "not before"), ("max", "not after"))
            if validation.get(key)
        ]
        if bounds:
            schema["description"] = "ISO 8601, " + " and ".join(bounds) + "."
        return schema
