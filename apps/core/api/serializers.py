"""Serializer building blocks: pagination parameters, and the envelope shapes that the OpenAPI document shows.

Input serializers parse shape only; the rules about content live in the services (CONVENTIONS 3). Output is built by
small presenter functions for speed; the ``*Out`` serializers beside them exist to document that output, and the test
suite checks every response against the generated document, so the two cannot drift apart.
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


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable error code (SPEC §7), e.g. VALIDATION_ERROR.")
    message = serializers.CharField(help_text="What went wrong and how to fix it.")
    details = serializers.JSONField(
        help_text="For VALIDATION_ERROR: each bad field mapped to what is expected."
    )


class ErrorEnvelopeSerializer(serializers.Serializer):
    success = serializers.BooleanField(help_text="Always false.")
    error = ErrorSerializer()


class SuccessFlagSerializer(serializers.Serializer):
    success = serializers.BooleanField(help_text="Always true.")


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
