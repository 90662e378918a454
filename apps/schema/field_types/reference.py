"""``reference``: the id of an entry in ``options.collection``, or a list of ids when ``options.allowMultiple``.

The target collection must exist when the field is defined; ids must name live (not trashed) entries of it when a
value is saved. Which entries exist is asked through the ValueContext, because entries belong to a higher layer.
"""

from apps.core.ids import is_ulid
from apps.schema.field_types.base import FieldType, FieldValueError, describe


class ReferenceType(FieldType):
    name = "reference"
    option_keys = frozenset({"collection", "allowMultiple"})
    description = "A link to another entry (or several)."

    def check_definition(self, validation, options):
        problems = super().check_definition(validation, options)
        if not isinstance(options.get("collection"), str) or not options.get("collection"):
            problems["options.collection"] = "Required: the slug of the collection this field points into."
        if "allowMultiple" in options and not isinstance(options["allowMultiple"], bool):
            problems["options.allowMultiple"] = "Expected true or false."
        return problems

    def normalize(self, value, *, validation, options, context):
        multiple = bool(options.get("allowMultiple"))
        if multiple:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list):
                raise FieldValueError(f"Expected a list of entry ids, got {describe(value)}.")
            ids = list(dict.fromkeys(value))
        else:
            if not isinstance(value, str):
                raise FieldValueError(f"Expected an entry id, got {describe(value)}.")
            ids = [value]
        bad = [item for item in ids if not is_ulid(item)]
        if bad:
            raise FieldValueError(f"Not an entry id: {describe(bad[0])}.")
        ids = [item.upper() for item in ids]
        if context.check_references:
            missing = context.missing_references(options["collection"], ids)
            if missing:
                raise FieldValueError(
                    f"No entry {', '.join(missing)} in collection '{options['collection']}'."
                )
        return ids if multiple else ids[0]

    def typescript(self, *, validation, options):
        return "string[]" if options.get("allowMultiple") else "string"

    def json_schema(self, *, validation, options):
        one = {
            "type": "string",
            "pattern": "^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$",
            "description": f"The id of an entry of '{options.get('collection')}'.",
        }
        return {"type": "array", "items": one} if options.get("allowMultiple") else one
