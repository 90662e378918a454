"""TRANSITIONAL serializer building blocks (pagination parameters, deep-object queries, envelopes) for the domains not
yet declared with apps/core/shapes.py (issue 18); the error envelope and success flag are in apps/core/presenters.py.
This module goes once no domain imports it.
"""

from __future__ import annotations

from functools import cache

from rest_framework import serializers


def limit_field(default: int, maximum: int = 100) -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=1, max_value=maximum, default=default, required=False, help_text=f"Page size, 1-{maximum}."
    )


def cursor_field() -> serializers.CharField:
    return serializers.CharField(
        required=False,
        max_length=2000,
        help_text="The nextCursor of the previous page; omit for the first page.",
    )


class DeepObjectField(serializers.DictField):
    """A query parameter written ``name[key]=value`` (OpenAPI ``style: deepObject``), e.g. ``terms[category]=news``.

    The base view folds every ``name[…]`` parameter of a declared DeepObjectField into one dict, so the keys need not
    be known in advance while everything else stays refused. A repeated parameter keeps its values in a list."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=500, allow_blank=True))
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_a_dict", input_type=type(data).__name__)
        # One value per key; a repeated key (several values) is joined as a comma-separated list.
        joined = {key: ",".join(value) if isinstance(value, list) else value for key, value in data.items()}
        return super().to_internal_value(joined)


@cache
def enveloped(serializer_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """``{success: true, data: <serializer_class>}`` as a named component."""
    name = serializer_class.__name__.removesuffix("Serializer").removesuffix("Out") + "Response"
    return type(
        name, (serializers.Serializer,), {"success": serializers.BooleanField(), "data": serializer_class()}
    )


@cache
def paged(item_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """``{items: [<item_class>], nextCursor}``: one page of a keyset-paginated list."""
    name = item_class.__name__.removesuffix("Serializer").removesuffix("Out") + "Page"
    return type(
        name,
        (serializers.Serializer,),
        {
            "items": item_class(many=True),
            "nextCursor": serializers.CharField(
                allow_null=True, help_text="Pass as `cursor` for the next page; null on the last page."
            ),
        },
    )
