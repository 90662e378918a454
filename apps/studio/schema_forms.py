"""The schema builder's forms: what a field type takes is read from its definition (apps/schema/field_types), never
from a copy here; this module only says how each key is typed into a form and reads the posted text back into the
values the schema services take. The services check every value and name what is wrong.

Form controls are named as the services' error details name them (``slug``, ``validation.maxLength``,
``options.collection``, ``defaultValue`` …), so a refusal lands next to the control it concerns.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import RESERVED_FIELD_SLUGS, SLUG_PATTERN, SUPPORTS
from apps.schema.services import SEARCHABLE_TYPES, SLUG_HINT

# How each validation/option key is typed in: its label, its control and a hint. A key a field type adds later that
# is not described here still gets a control (JSON text), so no type's setting is unreachable from the studio.
KEY_CONTROLS: dict[str, tuple[str, str, str]] = {
    "validation.options": ("Allowed values", "lines", "One value per line, in the order editors see them."),
    "validation.min": ("Minimum", "scalar", "A number, or an ISO 8601 date-time for datetime fields."),
    "validation.max": ("Maximum", "scalar", "A number, or an ISO 8601 date-time for datetime fields."),
    "validation.minLength": ("Minimum length", "scalar", "In characters."),
    "validation.maxLength": ("Maximum length", "scalar", "In characters."),
    "validation.pattern": ("Pattern", "text", "A regular expression the whole value must match."),
    "options.collection": (
        "Target collection",
        "collection",
        "The collection whose entries this field points at.",
    ),
    "options.allowMultiple": ("Allow several entries", "bool", "Store a list of entries instead of one."),
    "options.rows": ("Editor rows", "scalar", "How many lines the text box shows."),
    "options.showPreview": ("Show a preview", "bool", "Show the image in the editor."),
}
FLAGS = ("required", "unique", "searchable", "translatable")
FLAG_LABELS = {
    "required": ("Required", "Entries cannot be saved without a value."),
    "unique": ("Unique", "No two entries (per locale) may have the same value."),
    "searchable": ("Searchable", "Its text goes into the full-text index."),
    "translatable": ("Translatable", "Unticked: translations share this field's value."),
}
# Types whose default value is typed as JSON whatever it looks like (their values are structures or anything).
JSON_DEFAULTS = frozenset({"json"})


def _key_types() -> dict[str, list[str]]:
    """Each validation/option key → the field types that take it, from the field types themselves."""
    found: dict[str, list[str]] = {}
    for name, field_type in FIELD_TYPES.items():
        for key in sorted(field_type.validation_keys):
            found.setdefault(f"validation.{key}", []).append(name)
        for key in sorted(field_type.option_keys):
            found.setdefault(f"options.{key}", []).append(name)
    return found


def flag_types() -> dict[str, list[str]]:
    """Which types each flag applies to (the services refuse the others)."""
    every = list(FIELD_TYPES)
    return {
        "required": every,
        "unique": [name for name, field_type in FIELD_TYPES.items() if field_type.can_be_unique],
        "searchable": [name for name in FIELD_TYPES if name in SEARCHABLE_TYPES],
        "translatable": every,
    }


def keys_of(type_name: str) -> set[str]:
    field_type = FIELD_TYPES.get(type_name)
    if field_type is None:
        return set()
    return {f"validation.{key}" for key in field_type.validation_keys} | {
        f"options.{key}" for key in field_type.option_keys
    }


@dataclass
class Control:
    name: str
    label: str
    kind: str
    hint: str
    types: list[str]
    value: Any = ""
    error: str = ""

    @property
    def id(self) -> str:
        return "f-" + self.name.replace(".", "-")

    @property
    def types_text(self) -> str:
        return " ".join(self.types)

    @property
    def for_all(self) -> bool:
        return len(self.types) == len(FIELD_TYPES)


@dataclass
class FieldForm:
    """What the field form shows: the posted or stored values as text, and the errors by control name."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    message: str = ""
    others: list[tuple[str, str]] = field(default_factory=list)

    def controls(self) -> list[Control]:
        controls = []
        for name, types in sorted(_key_types().items(), key=lambda item: _order(item[0])):
            label, kind, hint = KEY_CONTROLS.get(name, (name.split(".", 1)[1], "json", "JSON."))
            controls.append(
                Control(name, label, kind, hint, types, self.values.get(name, ""), self.errors.get(name, ""))
            )
        return controls

    def flags(self) -> list[Control]:
        return [
            Control(
                name=name,
                label=FLAG_LABELS[name][0],
                kind="bool",
                hint=FLAG_LABELS[name][1],
                types=types,
                value=self.values.get(name, False),
                error=self.errors.get(name, ""),
            )
            for name, types in flag_types().items()
        ]


def _order(name: str) -> int:
    names = list(KEY_CONTROLS)
    return names.index(name) if name in names else len(names)


def type_choices() -> list[tuple[str, str]]:
    return [(name, field_type.description) for name, field_type in FIELD_TYPES.items()]


def slug_rules() -> dict[str, Any]:
    return {"pattern": SLUG_PATTERN, "hint": SLUG_HINT, "reserved": sorted(RESERVED_FIELD_SLUGS)}


def supports_choices() -> tuple[str, ...]:
    return SUPPORTS


# --- reading the posted form ------------------------------------------------------------------------------------------


def _scalar(text: str) -> Any:
    """A number when the text is one (the services want numbers for bounds and lengths), else the text itself."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _json(text: str, name: str, problems: dict[str, str]) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        problems[name] = f"Not valid JSON: {exc}."
        return None


def read_field_form(post, *, creating: bool) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """(the definition for the service in its names, the values to show again, problems reading the text)."""
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for name in ("slug", "label", "type", "defaultValue"):
        values[name] = post.get(name, "").strip() if name != "defaultValue" else post.get(name, "")
    for name in FLAGS:
        values[name] = post.get(name) == "on"
    for name in _key_types():
        values[name] = (
            post.get(name) == "on" if KEY_CONTROLS.get(name, ("", ""))[1] == "bool" else post.get(name, "")
        )
    type_name = values["type"]
    definition: dict[str, Any] = {"label": values["label"], "type": type_name}
    if creating:
        definition["slug"] = values["slug"]
    for name in FLAGS:
        definition[name] = values[name]
    validation: dict[str, Any] = {}
    options: dict[str, Any] = {}
    # Only the chosen type's keys are read: a value left in a control of another type (shown without JavaScript)
    # does not travel with a type that does not take it.
    for name in sorted(keys_of(type_name)):
        group, key = name.split(".", 1)
        target = validation if group == "validation" else options
        kind = KEY_CONTROLS.get(name, ("", "json", ""))[1]
        raw = values.get(name)
        if kind == "bool":
            if raw:
                target[key] = True
            continue
        text = (raw or "").strip()
        if not text:
            continue
        if kind == "lines":
            target[key] = _lines(text)
        elif kind == "scalar":
            target[key] = _scalar(text)
        elif kind == "json":
            target[key] = _json(text, name, problems)
        else:
            target[key] = text
    definition["validation"] = validation
    definition["options"] = options
    definition["default_value"] = _default(values["defaultValue"], type_name, options, problems)
    return definition, values, problems


def _default(text: str, type_name: str, options: dict, problems: dict[str, str]) -> Any:
    stripped = text.strip()
    if not stripped:
        return None
    if type_name in JSON_DEFAULTS or stripped[0] in "[{":
        return _json(stripped, "defaultValue", problems)
    if type_name == "multiSelect" or (type_name == "reference" and options.get("allowMultiple")):
        return _lines(stripped)
    return stripped


def field_values(field) -> dict[str, Any]:
    """A stored field as the form shows it."""
    values: dict[str, Any] = {
        "slug": field.slug,
        "label": field.label,
        "type": field.type,
        "defaultValue": _shown(field.default_value),
    }
    for name in FLAGS:
        values[name] = getattr(field, name)
    for group, stored in (("validation", field.validation or {}), ("options", field.options or {})):
        for key, value in stored.items():
            name = f"{group}.{key}"
            kind = KEY_CONTROLS.get(name, ("", "json", ""))[1]
            if kind == "bool":
                values[name] = bool(value)
            elif kind == "lines":
                values[name] = "\n".join(str(item) for item in value)
            elif kind == "json":
                values[name] = json.dumps(value, ensure_ascii=False)
            else:
                values[name] = str(value)
    return values


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "\n".join(value)
    return json.dumps(value, ensure_ascii=False)


def read_collection_form(post, *, creating: bool) -> dict[str, Any]:
    """The collection form in the services' names (the services check every value)."""
    values: dict[str, Any] = {
        "label": post.get("label", "").strip(),
        "label_singular": post.get("label_singular", "").strip(),
        "description": post.get("description", ""),
        "icon": post.get("icon", "").strip(),
        "supports": [item for item in post.getlist("supports")],
        "url_pattern": post.get("urlPattern", "").strip(),
        "preview_url": post.get("previewUrl", "").strip(),
        "public": post.get("public") == "on",
    }
    if creating:
        values["slug"] = post.get("slug", "").strip()
    return values


def collection_values(collection) -> dict[str, Any]:
    return {
        "slug": collection.slug,
        "label": collection.label,
        "label_singular": collection.label_singular,
        "description": collection.description,
        "icon": collection.icon,
        "supports": list(collection.supports),
        "url_pattern": collection.url_pattern,
        "preview_url": collection.preview_url,
        "public": collection.public,
    }


# The services name the delivery templates' problems by their wire names, as the form's controls are named.
COLLECTION_CONTROLS = ("urlPattern", "previewUrl")


def split_errors(exc, names) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """A service's details: those naming a control of the form, and the rest (entry ids and their reasons …)."""
    details = exc.details if isinstance(exc.details, dict) else {}
    mine = {key: str(value) for key, value in details.items() if key in names}
    rest = [(str(key), str(value)) for key, value in details.items() if key not in names]
    return mine, rest


def field_control_names() -> set[str]:
    return {"slug", "label", "type", "defaultValue", *FLAGS, *_key_types()}
