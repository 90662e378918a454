"""What every field type knows: how to check its definition, normalise a value, sort it, and type it in TypeScript.

Content validation, the importer, the MCP tools and the schema export all ask the field type; nothing else decides
what a value of a field may be (CONVENTIONS 3, 8).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

Problems = dict[str, str]


class FieldValueError(ValueError):
    """A value a field cannot take; the message says what is expected. ``path`` leads to the bad part of a
    structured value (a Portable Text span: ``(0, "children", 1, "text")``), empty when the whole value is bad."""

    def __init__(self, message: str, path: tuple[str | int, ...] = ()):
        super().__init__(message)
        self.message = message
        self.path = path


@dataclass
class ValueContext:
    """What a field type may need beyond the value itself, provided by the caller (content services)."""

    # (collection slug, ids) → the ids that are not live entries of that collection.
    missing_references: Callable[[str, list[str]], list[str]] = lambda collection, ids: []
    # ids → those that name no media item (image and file fields).
    missing_media: Callable[[list[str]], list[str]] = lambda ids: []
    # Skip checks that query other rows (default values are checked when they are defined, before any entry exists).
    check_references: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


class FieldType(ABC):
    name: ClassVar[str]
    validation_keys: ClassVar[frozenset[str]] = frozenset()
    option_keys: ClassVar[frozenset[str]] = frozenset()
    # Sortable types get a generated sort index and may be used in orderBy; numeric ones sort as numbers.
    sortable: ClassVar[bool] = False
    numeric: ClassVar[bool] = False
    # Types whose values can be declared unique (a unique expression index on the value as text).
    can_be_unique: ClassVar[bool] = False
    description: ClassVar[str] = ""

    def check_definition(self, validation: dict, options: dict) -> Problems:
        """Problems with a field definition's ``validation`` and ``options`` for this type."""
        problems: Problems = {}
        for key in validation:
            if key not in self.validation_keys:
                allowed = ", ".join(sorted(self.validation_keys)) or "none"
                problems[f"validation.{key}"] = f"Does not apply to {self.name} fields; allowed: {allowed}."
        for key in options:
            if key not in self.option_keys:
                allowed = ", ".join(sorted(self.option_keys)) or "none"
                problems[f"options.{key}"] = f"Does not apply to {self.name} fields; allowed: {allowed}."
        return problems

    @abstractmethod
    def normalize(self, value: Any, *, validation: dict, options: dict, context: ValueContext) -> Any:
        """The stored form of ``value`` (never None: callers handle absent values), or FieldValueError."""

    @abstractmethod
    def typescript(self, *, validation: dict, options: dict) -> str:
        """The TypeScript type of a value of this field."""

    @abstractmethod
    def json_schema(self, *, validation: dict, options: dict) -> dict:
        """The JSON Schema of a value of this field as writers send it (a collection's data schema)."""

    def search_text(self, value: Any) -> str:
        """Text of a value for the full-text index (searchable fields); empty for types without text."""
        return ""


def check_int_keys(validation: dict, keys: tuple[str, ...], *, minimum: int | None = None) -> Problems:
    problems: Problems = {}
    for key in keys:
        if key in validation:
            value = validation[key]
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or (minimum is not None and value < minimum)
            ):
                bound = f" of at least {minimum}" if minimum is not None else ""
                problems[f"validation.{key}"] = f"Expected a whole number{bound}."
    return problems


def check_number_keys(validation: dict, keys: tuple[str, ...]) -> Problems:
    return {
        f"validation.{key}": "Expected a number."
        for key in keys
        if key in validation
        and (not isinstance(validation[key], (int, float)) or isinstance(validation[key], bool))
    }


def check_range(validation: dict, low: str, high: str) -> Problems:
    a, b = validation.get(low), validation.get(high)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a > b:
        return {f"validation.{low}": f"Must not exceed {high} ({b})."}
    return {}


def length_schema(validation: dict) -> dict:
    """A text's length bounds as JSON Schema keywords."""
    bounds = {"minLength": validation.get("minLength"), "maxLength": validation.get("maxLength")}
    return {key: value for key, value in bounds.items() if value is not None}


def ts_string(value: str) -> str:
    """A TypeScript string literal."""
    return json.dumps(value, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def describe(value: Any) -> str:
    """A short rendering of a bad value for error messages."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"
