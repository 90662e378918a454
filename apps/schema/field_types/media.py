"""``image`` and ``file``: a reference to a media item ({id, …}) or to an external URL ({url, …}).

A bare string is taken as a media id, which must name a media item when a value is saved, as a reference's ids must
name entries (asked through the ValueContext: media belongs to another app). Only the reference and the editor's own text (alt, caption, title) are stored;
the rest (url, dimensions, MIME type, size) is resolved from the media item when the entry is read.
"""

from apps.schema.field_types.base import FieldType, FieldValueError, describe

_STRING_KEYS = {"id", "url", "alt", "caption", "title", "filename", "mimeType"}
_INT_KEYS = {"width", "height", "size"}


class _MediaType(FieldType):
    keys: frozenset[str]
    ts_name: str

    def normalize(self, value, *, validation, options, context):
        if isinstance(value, str):
            value = {"id": value}
        if not isinstance(value, dict):
            raise FieldValueError(f"Expected a media id or an object with id or url, got {describe(value)}.")
        unknown = sorted(set(value) - self.keys)
        if unknown:
            raise FieldValueError(
                f"Unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(self.keys))}."
            )
        clean = {}
        for key, item in value.items():
            if item is None:
                continue
            if key in _STRING_KEYS and not isinstance(item, str):
                raise FieldValueError(f"{key} must be a string.")
            if key in _INT_KEYS and (not isinstance(item, int) or isinstance(item, bool) or item < 0):
                raise FieldValueError(f"{key} must be a whole number of at least 0.")
            clean[key] = item
        if not clean.get("id") and not clean.get("url"):
            raise FieldValueError("Give the media id (id) or an external address (url).")
        if clean.get("id") and context.check_references and context.missing_media([clean["id"]]):
            raise FieldValueError(
                f"No media item {clean['id']}; give the id of an uploaded media item or an external url."
            )
        return clean

    def typescript(self, *, validation, options):
        return self.ts_name

    def json_schema(self, *, validation, options):
        properties = {
            key: {"type": "integer", "minimum": 0} if key in _INT_KEYS else {"type": "string"}
            for key in sorted(self.keys)
        }
        properties["id"]["description"] = "A media id (media_list, media_get)."
        return {
            "anyOf": [
                {"type": "string", "description": "A media id."},
                {
                    "type": "object",
                    "properties": properties,
                    "additionalProperties": False,
                    "anyOf": [{"required": ["id"]}, {"required": ["url"]}],
                },
            ]
        }

    def search_text(self, value):
        if not isinstance(value, dict):
            return ""
        return " ".join(str(value[key]) for key in ("alt", "caption", "title") if value.get(key))


class ImageType(_MediaType):
    name = "image"
    option_keys = frozenset({"showPreview"})
    keys = frozenset({"id", "url", "alt", "caption", "width", "height"})
    ts_name = "CmsImage"
    description = "An image: a media item or an external URL, with alt text."


class FileType(_MediaType):
    name = "file"
    keys = frozenset({"id", "url", "title", "filename", "mimeType", "size"})
    ts_name = "CmsFile"
    description = "A file: a media item or an external URL."
