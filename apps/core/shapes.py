"""Shapes: the one declaration of what an operation takes (an ``Input`` model) and answers (an ``Output`` TypedDict).

Every face reads the same declarations: the REST base view validates query strings and bodies with the input model,
the MCP registry publishes its JSON Schema as a tool's ``inputSchema`` and validates arguments with it, the OpenAPI
document is generated from both kinds, and presenters return dicts typed by the output shapes.

Inputs are pydantic models that refuse unknown keys and trim text, with DRF's lax coercions (query strings are
text: ``"5"`` is a valid integer) and DRF's error wording, so a client sees the same message whichever face it used.
Outputs are TypedDicts (``TypedDict`` from here: pydantic documents only typing_extensions' own before Python
3.12): presenters build plain dicts (the hot path of every read), the shape documents them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    WithJsonSchema,
    create_model,
)
from pydantic import ValidationError as PydanticValidationError
from pydantic.fields import FieldInfo
from typing_extensions import TypedDict

from apps.core.errors import ValidationError

__all__ = [
    "DateTime",
    "DeepObject",
    "Email",
    "Field",
    "Input",
    "JsonObject",
    "Str",
    "Text",
    "Timestamp",
    "TypedDict",
    "Upload",
    "Url",
    "choice",
    "cursor_param",
    "enveloped",
    "limit_param",
    "paged",
    "partial",
    "problems",
    "validate",
]


def _no_forbidden_characters(value: str) -> str:
    # PostgreSQL cannot store NUL in text, and lone surrogates cannot be encoded: refused on every face alike.
    if "\x00" in value:
        raise ValueError("Null characters are not allowed.")
    surrogate = re.search("[\ud800-\udfff]", value)
    if surrogate:
        raise ValueError(f"Surrogate characters are not allowed: U+{ord(surrogate.group()):X}.")
    return value


# Text that must not be blank (after trimming), and text that may be.
Str = Annotated[str, Field(min_length=1), AfterValidator(_no_forbidden_characters)]
Text = Annotated[str, AfterValidator(_no_forbidden_characters)]
JsonObject = dict[str, Any]


_DATETIME_FORMAT = (
    "Datetime has wrong format. Use one of these formats instead: "
    "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
)


def _iso_datetime(value: Any) -> Any:
    """ISO 8601 text only, as DRF's DateTimeField reads it; pydantic alone would also read a number (or digits) as
    seconds since 1970, which no client means by a date."""
    from django.utils.dateparse import parse_datetime

    if value is None or isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(_DATETIME_FORMAT)
    text = value.strip()
    # A bare date (2026-01-31) is the start of that day, as DRF's DateTimeField never allowed but clients send.
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        text += "T00:00:00"
    try:
        parsed = parse_datetime(text)
    except ValueError:
        parsed = None
    if parsed is None:
        raise ValueError(_DATETIME_FORMAT)
    return parsed


def _aware(value: datetime) -> datetime:
    # Without an offset the time is in the site's time zone (settings.TIME_ZONE), as DRF's DateTimeField reads it;
    # a naive value would fail every comparison with the aware moments the services work with.
    from django.utils import timezone

    return timezone.make_aware(value) if timezone.is_naive(value) else value


DateTime = Annotated[datetime, BeforeValidator(_iso_datetime), AfterValidator(_aware)]


def _django_validated(validator: Any, message: str) -> Any:
    def check(value: str) -> str:
        from django.core.exceptions import ValidationError as DjangoValidationError

        try:
            validator(value)
        except DjangoValidationError:
            raise ValueError(message) from None
        return value

    return AfterValidator(check)


def _email_validator(value: str) -> None:
    from django.core.validators import validate_email

    validate_email(value)


def _url_validator(value: str) -> None:
    from django.core.validators import URLValidator

    URLValidator()(value)


# An address or a URL as DRF's EmailField and URLField took them: Django's validators, Django's wording.
Email = Annotated[
    Str,
    _django_validated(_email_validator, "Enter a valid email address."),
    Field(json_schema_extra={"format": "email"}),
]
Url = Annotated[
    Str, _django_validated(_url_validator, "Enter a valid URL."), Field(json_schema_extra={"format": "uri"})
]


def _uploaded_file(value: Any) -> Any:
    from django.core.files.uploadedfile import UploadedFile

    if not isinstance(value, UploadedFile):
        raise ValueError("The submitted data was not a file. Check the encoding type on the form.")
    if not value.name:
        raise ValueError("No filename could be determined.")
    if not value.size:
        raise ValueError("The submitted file is empty.")
    return value


# A file part of a multipart body.
Upload = Annotated[
    Any, PlainValidator(_uploaded_file), WithJsonSchema({"type": "string", "format": "binary"})
]


# An instant in an answer: ISO 8601 text in UTC with milliseconds (apps/core/timefmt.iso), documented as date-time.
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]


def choice(*values: str) -> Any:
    """A field taking one of ``values`` (an enum in the schemas)."""
    return Literal[values]  # type: ignore[valid-type]


class _DeepObject:
    """Marks a query parameter written ``name[key]=value`` (OpenAPI ``style: deepObject``)."""


# ``terms[category]=news``: the base view folds every ``name[…]`` parameter of such a field into one dict; a repeated
# key's values are joined with commas.
DeepObject = Annotated[
    dict[str, Annotated[str, Field(max_length=500), AfterValidator(_no_forbidden_characters)]],
    BeforeValidator(
        lambda value: (
            {key: ",".join(item) if isinstance(item, list) else item for key, item in value.items()}
            if isinstance(value, dict)
            else value
        )
    ),
    _DeepObject(),
]


def limit_param(default: int, maximum: int = 100) -> Any:
    return Field(default, ge=1, le=maximum, description=f"Page size, 1-{maximum}.")


def cursor_param() -> Any:
    return Field(
        None, max_length=2000, description="The nextCursor of the previous page; omit for the first page."
    )


class Input(BaseModel):
    """Base of every input model. Attribute names are the wire names (camelCase where the API uses it)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, populate_by_name=False, frozen=False)

    def sent(self) -> dict[str, Any]:
        """Only the keys the client sent (what a PATCH changes), nested models as dicts."""
        fields = type(self).model_fields
        return {fields[name].alias or name: _plain(getattr(self, name)) for name in self.model_fields_set}

    def values(self) -> dict[str, Any]:
        """The keys sent, plus those with a default other than None (as DRF's ``validated_data``)."""
        out = {}
        for name, info in type(self).model_fields.items():
            if name in self.model_fields_set or (info.default is not None and not info.is_required()):
                out[info.alias or name] = _plain(getattr(self, name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Input):
        return value.values()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    # A map of nested models (the importer's post type → mapping) holds their values too, not the models.
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@cache
def partial(model: type[Input]) -> type[Input]:
    """``model`` with every field optional and without defaults: a PATCH changes only what it sends."""
    fields = {}
    for name, info in model.model_fields.items():
        copied = FieldInfo.merge_field_infos(info, default=None)
        fields[name] = (info.annotation, copied)
    return create_model(f"Patched{model.__name__}", __base__=model, __doc__=model.__doc__, **fields)


# --- validation ------------------------------------------------------------------------------------------------------


def validate(model: type[Input], data: Any, *, what: str = "field") -> Input:
    """Parse ``data`` with ``model`` or raise VALIDATION_ERROR naming each bad key by its dotted path."""
    if not isinstance(data, Mapping):
        raise ValidationError(
            "The request body must be a JSON object.", details={"body": "Expected a JSON object."}
        )
    data = fold_deep_objects(model, data)
    names = wire_names(model)
    unknown = [key for key in data if key not in names]
    if unknown:
        allowed = ", ".join(sorted(names)) or "none"
        raise ValidationError(details={key: f"Unknown {what}; allowed: {allowed}." for key in unknown})
    try:
        return model.model_validate(data)
    except PydanticValidationError as exc:
        raise ValidationError(details=problems(model, exc, what=what)) from None


_DEEP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([^\[\]]+)\]$")


def wire_names(model: Any) -> list[str]:
    return [info.alias or name for name, info in getattr(model, "model_fields", {}).items()]


def _is_deep(info: FieldInfo) -> bool:
    return any(isinstance(item, _DeepObject) for item in info.metadata)


def fold_deep_objects(model: type[Input], data: Mapping[str, Any]) -> Mapping[str, Any]:
    deep = {name for name, info in model.model_fields.items() if _is_deep(info)}
    if not deep:
        return data
    folded: dict[str, Any] = {}
    for key, value in data.items():
        match = _DEEP_KEY.match(key)
        if match and match.group(1) in deep:
            folded.setdefault(match.group(1), {})[match.group(2)] = value
        else:
            folded[key] = value
    return folded


def path_of(location: tuple) -> str:
    # items.0.parentId: the services name nested problems the same way.
    return ".".join(str(part) for part in location)


def _model_at(model: Any, location: tuple) -> Any:
    """The input model that holds the key at ``location`` (for naming what a nested object allows)."""
    current = model
    # Parts that are a list's index or a map's key (postTypeMappings.post.collection) name no field.
    keys_to_skip = 0
    for part in location[:-1]:
        if keys_to_skip:
            keys_to_skip -= 1
            continue
        if isinstance(part, int) or current is None:
            continue
        fields = getattr(current, "model_fields", {})
        info = fields.get(part) or next((i for i in fields.values() if i.alias == part), None)
        current = _inner_model(info.annotation) if info else None
        keys_to_skip = _containers_around(info.annotation) if info else 0
    return current


def _containers_around(annotation: Any) -> int:
    """How many lists and maps wrap the model in ``annotation`` (``dict[str, list[Model]]``: 2)."""
    origin = get_origin(annotation)
    if origin in (list, dict):
        return 1 + _containers_around(get_args(annotation)[-1])
    if origin is not None:
        return max((_containers_around(arg) for arg in get_args(annotation)), default=0)
    return 0


def _is_upload(model: Any, location: tuple) -> bool:
    holder = _model_at(model, location)
    info = getattr(holder, "model_fields", {}).get(location[-1]) if location else None
    return info is not None and any(
        isinstance(item, PlainValidator) and item.func is _uploaded_file for item in info.metadata
    )


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


_TYPE_NAMES = {
    dict: "dict",
    list: "list",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "NoneType",
}


_DICT = 'Expected a dictionary of items but got type "{type}".'
_LIST = 'Expected a list of items but got type "{type}".'
_NUMBER = "A valid number is required."
_URL = "Enter a valid URL."
# Our wording for the rest of pydantic's error types a JSON value can raise (its own, "Input should be …", is for
# Python programmers); ``{…}`` are the error's context and ``given``/``type`` the value and its JSON-ish type.
_WORDING = {
    "int_parsing_size": "The number is too large.",
    "finite_number": _NUMBER,
    "decimal_type": _NUMBER,
    "decimal_parsing": _NUMBER,
    "fraction_type": _NUMBER,
    "fraction_parsing": _NUMBER,
    "complex_type": _NUMBER,
    "complex_str_parsing": _NUMBER,
    "decimal_max_digits": "Ensure that there are no more than {max_digits} digits in total.",
    "decimal_max_places": "Ensure that there are no more than {decimal_places} decimal places.",
    "decimal_whole_digits": "Ensure that there are no more than {whole_digits} digits before the decimal point.",
    "greater_than": "Ensure this value is greater than {gt}.",
    "less_than": "Ensure this value is less than {lt}.",
    "multiple_of": "Ensure this value is a multiple of {multiple_of}.",
    "none_required": "This field must be null.",
    "json_invalid": "Not valid JSON.",
    "json_type": "Expected JSON text.",
    "recursion_loop": "The value refers to itself.",
    "recursion_depth_exceeded": "The value is nested too deeply.",
    "string_unicode": "Not a valid string.",
    "string_sub_type": "Not a valid string.",
    "bytes_type": "Not a valid string.",
    "bytes_too_short": "Ensure this field has at least {min_length} bytes.",
    "bytes_too_long": "Ensure this field has no more than {max_length} bytes.",
    "bytes_invalid_encoding": "Not valid {encoding}.",
    "string_not_ascii": "Use ASCII characters only.",
    "frozen_dict_type": _DICT,
    "ordered_dict_type": _DICT,
    "counter_type": _DICT,
    "mapping_type": _DICT,
    "dataclass_type": _DICT,
    "dataclass_exact_type": _DICT,
    "invalid_key": "Keys must be strings.",
    "tuple_type": _LIST,
    "set_type": _LIST,
    "frozen_set_type": _LIST,
    "deque_type": _LIST,
    "iterable_type": _LIST,
    "named_tuple_type": _LIST,
    "set_item_not_hashable": "Items must be plain values, not lists or objects.",
    "frozen_field": "This field cannot change.",
    "frozen_instance": "This value cannot change.",
    "union_tag_invalid": '"{tag}" is not a valid choice for {discriminator}; expected one of: {expected_tags}.',
    "union_tag_not_found": "Say which kind this is with {discriminator}.",
    "date_past": "Give a date in the past.",
    "date_future": "Give a date in the future.",
    "datetime_past": "Give a date-time in the past.",
    "datetime_future": "Give a date-time in the future.",
    "date_from_datetime_inexact": "Give a date without a time of day.",
    "timezone_naive": "Give the time without a time zone offset.",
    "timezone_aware": "Give the time zone offset too, e.g. 2025-01-31T09:00:00Z or +02:00.",
    "timezone_offset": "The time zone offset must be {tz_expected} seconds, not {tz_actual}.",
    "time_delta_type": "Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].",
    "time_delta_parsing": "Duration has wrong format. Use one of these formats instead: [DD] [HH:[MM:]]ss[.uuuuuu].",
    "url_type": _URL,
    "url_parsing": _URL,
    "url_syntax_violation": _URL,
    "url_scheme": "Enter a valid URL ({expected_schemes}).",
    "url_too_long": "Ensure this URL has no more than {max_length} characters.",
    "uuid_type": "Must be a valid UUID.",
    "uuid_parsing": "Must be a valid UUID.",
    "uuid_version": "Must be a UUID of version {expected_version}.",
}


def _message(model: Any, error: Mapping[str, Any], what: str) -> str:
    kind = error["type"]
    context = error.get("ctx") or {}
    given = error.get("input")
    if kind == "missing":
        # DRF's FileField wording: a multipart body whose file part is absent, or was dropped for a name that
        # sanitizes to nothing.
        return "No file was submitted." if _is_upload(model, error["loc"]) else "This field is required."
    if kind == "extra_forbidden":
        holder = _model_at(model, error["loc"])
        allowed = ", ".join(sorted(wire_names(holder))) or "none"
        return f"Unknown {what}; allowed: {allowed}."
    if given is None and (kind.endswith("_type") or kind in {"literal_error", "enum"}):
        return "This field may not be null."
    # A length bound on an annotated text (``Annotated[Str, Field(max_length=…)]`` in a list) is pydantic's generic
    # length check, named as for lists; it is still a text's length.
    if kind in {"too_short", "too_long"} and isinstance(given, str):
        kind = f"string_{kind}"
    if kind == "string_too_short":
        if context.get("min_length") == 1:
            return "This field may not be blank."
        return f"Ensure this field has at least {context['min_length']} characters."
    if kind == "string_too_long":
        return f"Ensure this field has no more than {context['max_length']} characters."
    if kind == "string_type":
        return "Not a valid string."
    if kind == "string_pattern_mismatch":
        return "This value does not match the required pattern."
    if kind in {"int_parsing", "int_type", "int_from_float"}:
        return "A valid integer is required."
    if kind in {"float_parsing", "float_type"}:
        return "A valid number is required."
    if kind in {"bool_parsing", "bool_type"}:
        return "Must be a valid boolean."
    if kind == "greater_than_equal":
        return f"Ensure this value is greater than or equal to {context['ge']}."
    if kind == "less_than_equal":
        return f"Ensure this value is less than or equal to {context['le']}."
    if kind in {"literal_error", "enum"}:
        return f'"{given}" is not a valid choice.'
    if kind == "list_type":
        return (
            f'Expected a list of items but got type "{_TYPE_NAMES.get(type(given), type(given).__name__)}".'
        )
    if kind == "dict_type":
        # A dict[...] field was DRF's DictField; a nested model was a nested serializer, worded below.
        return f'Expected a dictionary of items but got type "{_TYPE_NAMES.get(type(given), type(given).__name__)}".'
    if kind in {"model_type", "model_attributes_type"}:
        return f"Invalid data. Expected a dictionary, but got {_TYPE_NAMES.get(type(given), type(given).__name__)}."
    # A length on a nullable text (``Text | None``) is checked after its validators, as a generic length.
    unit = "characters" if isinstance(given, str) else "elements"
    if kind == "too_short":
        if context.get("min_length") == 1 and isinstance(given, (list, dict)):
            return f"This {'list' if isinstance(given, list) else 'dictionary'} may not be empty."
        return f"Ensure this field has at least {context.get('min_length')} {unit}."
    if kind == "too_long":
        return f"Ensure this field has no more than {context.get('max_length')} {unit}."
    if kind in _WORDING:
        try:
            return _WORDING[kind].format(
                given=given, type=_TYPE_NAMES.get(type(given), type(given).__name__), **context
            )
        except (KeyError, IndexError):
            pass  # a context this pydantic does not give: its own words below
    if kind.startswith(("datetime", "date_", "time_")) or kind in {"date_parsing", "date_type"}:
        return (
            "Datetime has wrong format. Use one of these formats instead: "
            "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
        )
    if kind == "value_error":
        return str(context.get("error") or error["msg"]).removeprefix("Value error, ")
    if kind == "assertion_error":
        return str(error["msg"]).removeprefix("Assertion failed, ")
    return str(error["msg"]).rstrip(".") + "."


def message(error: Mapping[str, Any], *, what: str = "field") -> str:
    """One pydantic error in our wording, for a value no input model of ours describes (JSON-RPC params)."""
    return _message(None, error, what)


def problems(model: Any, exc: PydanticValidationError, *, what: str = "field") -> dict[str, str]:
    """pydantic's errors as ``{"dotted.path": "message"}`` in DRF's wording; several on one path are joined."""
    found: dict[str, str] = {}
    for error in exc.errors():
        # A union tries each member; its member's name appears in the location, which a client never wrote.
        location = tuple(part for part in error["loc"] if not _is_member_tag(part))
        path = path_of(location) or "body"
        message = _message(model, {**error, "loc": location}, what)
        if path in found and message not in found[path]:
            found[path] = f"{found[path]} {message}"
        else:
            found.setdefault(path, message)
    return found


def _is_member_tag(part: Any) -> bool:
    return isinstance(part, str) and (
        part.startswith(("function-", "literal[", "list[", "dict["))
        or part in {"str", "int", "float", "bool", "none", "constrained-str"}
    )


# --- outputs and schemas ---------------------------------------------------------------------------------------------


def clean_schema(node: Any) -> Any:
    """pydantic's JSON Schema without generated titles and ``default: null``."""
    if isinstance(node, dict):
        cleaned = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "default" and value is None:
                continue
            if key == "properties" and isinstance(value, dict):
                cleaned[key] = {name: clean_schema(sub) for name, sub in value.items()}
                continue
            cleaned[key] = clean_schema(value)
        return cleaned
    if isinstance(node, list):
        return [clean_schema(item) for item in node]
    return node


def schema_of(shape: Any, *, ref_template: str = "#/$defs/{model}", mode: str = "validation") -> dict:
    """JSON Schema of an input model or an output TypedDict (``$defs`` for the shapes it names)."""
    if isinstance(shape, type) and issubclass(shape, BaseModel):
        raw = shape.model_json_schema(ref_template=ref_template, mode=mode)
    else:
        raw = TypeAdapter(shape).json_schema(ref_template=ref_template, mode="serialization")
    schema = clean_schema(raw)
    # Protocol requests (OAuth) document inputs whose unknown keys are ignored, as their RFCs say, not refused.
    if (
        isinstance(shape, type)
        and issubclass(shape, BaseModel)
        and shape.model_config.get("extra") == "forbid"
    ):
        schema["additionalProperties"] = False
        for definition in schema.get("$defs", {}).values():
            if "properties" in definition:
                definition.setdefault("additionalProperties", False)
    return schema


def shape_name(shape: Any) -> str:
    return getattr(shape, "__name__", None) or repr(shape)


class Enveloped:
    """``{success: true, data: <shape>}``."""

    def __init__(self, shape: Any):
        self.shape = shape
        self.__name__ = shape_name(shape).removesuffix("Out") + "Response"


class Paged:
    """``{items: [<shape>], nextCursor}``: one page of a keyset-paginated list."""

    def __init__(self, shape: Any):
        self.shape = shape
        self.__name__ = shape_name(shape).removesuffix("Out") + "Page"

    def as_typeddict(self) -> Any:
        """The page as a TypedDict of its own (a tool's ``outputSchema`` is built from TypedDicts)."""
        return TypedDict(
            self.__name__,
            {
                "items": list[self.shape],
                "nextCursor": Annotated[
                    str | None,
                    Field(description="Pass as `cursor` for the next page; null on the last page."),
                ],
            },
        )


@cache
def enveloped(shape: Any) -> Enveloped:
    return Enveloped(shape)


@cache
def paged(shape: Any) -> Paged:
    return Paged(shape)


def is_shape(value: Any) -> bool:
    """An input model, an output TypedDict or a wrapper of one (as opposed to a DRF serializer)."""
    if isinstance(value, (Enveloped, Paged)):
        return True
    if isinstance(value, type) and issubclass(value, BaseModel):
        return True
    return _is_typeddict(value)


def _is_typeddict(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, dict) and hasattr(value, "__required_keys__")


def is_list_annotation(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin is Annotated:
        return is_list_annotation(get_args(annotation)[0])
    if origin is list:
        return True
    return any(is_list_annotation(arg) for arg in get_args(annotation) if arg is not type(None))
