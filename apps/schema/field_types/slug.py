"""``slug``: URL-safe text: lowercased, spaces to hyphens, other punctuation removed, letters of any script kept."""

from apps.core.slugs import slugify
from apps.schema.field_types.base import FieldType, FieldValueError, describe


class SlugType(FieldType):
    name = "slug"
    sortable = True
    can_be_unique = True
    description = "URL-safe text."

    def normalize(self, value, *, validation, options, context):
        if not isinstance(value, str):
            raise FieldValueError(f"Expected text, got {describe(value)}.")
        slug = slugify(value)
        if not slug:
            raise FieldValueError(f"{describe(value)} has no letters or digits to make a slug from.")
        return slug

    def typescript(self, *, validation, options):
        return "string"

    def json_schema(self, *, validation, options):
        return {"type": "string", "minLength": 1, "description": "Made URL-safe (lowercase, hyphens)."}

    def search_text(self, value):
        return value.replace("-", " ") if isinstance(value, str) else ""
