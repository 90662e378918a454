"""``json``: any JSON value, stored as given."""

from apps.schema.field_types.base import FieldType


class JsonType(FieldType):
    name = "json"
    description = "Any JSON value."

    def normalize(self, value, *, validation, options, context):
        return value

    def typescript(self, *, validation, options):
        return "unknown"

    def json_schema(self, *, validation, options):
        return {}
