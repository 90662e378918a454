"""The 14 field types of SPEC §2.6, by name. Each module validates and normalises values, says whether and how its
values sort (generated indexes) and gives the TypeScript type of the schema export."""

from apps.schema.field_types.base import FieldType, FieldValueError, ValueContext
from apps.schema.field_types.boolean import BooleanType
from apps.schema.field_types.datetime import DateTimeType
from apps.schema.field_types.integer import IntegerType
from apps.schema.field_types.json_type import JsonType
from apps.schema.field_types.media import FileType, ImageType
from apps.schema.field_types.multi_select import MultiSelectType
from apps.schema.field_types.number import NumberType
from apps.schema.field_types.portable_text import PortableTextType
from apps.schema.field_types.reference import ReferenceType
from apps.schema.field_types.select import SelectType
from apps.schema.field_types.slug import SlugType
from apps.schema.field_types.string import StringType
from apps.schema.field_types.text import TextType

FIELD_TYPES: dict[str, FieldType] = {
    field_type.name: field_type
    for field_type in (
        StringType(),
        TextType(),
        NumberType(),
        IntegerType(),
        BooleanType(),
        DateTimeType(),
        SelectType(),
        MultiSelectType(),
        PortableTextType(),
        ImageType(),
        FileType(),
        ReferenceType(),
        JsonType(),
        SlugType(),
    )
}

__all__ = ["FIELD_TYPES", "FieldType", "FieldValueError", "ValueContext"]
