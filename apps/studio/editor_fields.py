"""The entry editor's fields: one widget per field type, built from the collection's definitions at run time, and the
way back from what a browser posts to the values the content service takes.

A form's state is what the browser sends: control name → text (or a list of texts for checkbox groups). It is built
either from stored values (``initial_state``) or from a POST (``posted_state``), so a refused or conflicting save shows
exactly what was typed. ``to_data`` turns it into field values of the right JSON types and nothing more: whether a value
is allowed is the content service's to say (``entry_create`` / ``entry_update``), and its messages are shown next to
the field they name. Only what cannot be handed to the service at all is refused here (JSON that does not parse).
"""

from __future__ import annotations

import json
import re
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from apps.core.timefmt import iso, parse_iso
from apps.schema.models import Field

PREFIX = "f-"
NUMBER = re.compile(r"[+-]?\d+")
MISSING = object()
# What an image or file value keeps that the form does not show (external URL, dimensions, MIME type …).
MEDIA_EDITABLE = {"image": ("alt", "caption"), "file": ("title",)}


def control(slug: str, part: str = "") -> str:
    return f"{PREFIX}{slug}" + (f"-{part}" if part else "")


def site_zone(name: str | None) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def local_input(value: Any, zone: zoneinfo.ZoneInfo) -> str:
    """An ISO instant as a ``datetime-local`` value in ``zone``, to the millisecond it has (so an unchanged value
    comes back as it was stored)."""
    instant = parse_iso(value) if isinstance(value, str) else None
    if instant is None:
        return "" if value is None else str(value)
    local = instant.astimezone(zone)
    text = local.strftime("%Y-%m-%dT%H:%M:%S")
    if local.microsecond:
        text += f".{local.microsecond // 1000:03d}"
    return text


def from_local_input(text: str, zone: zoneinfo.ZoneInfo) -> str:
    """A ``datetime-local`` value read in ``zone``, as an ISO instant in UTC; text that is no such value is returned
    as it is, for the field type to refuse with its own message."""
    try:
        local = datetime.fromisoformat(text)
    except ValueError:
        return text
    if local.tzinfo is None:
        local = local.replace(tzinfo=zone)
    return iso(local)


def _number(text: str) -> Any:
    text = text.strip()
    if NUMBER.fullmatch(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text  # the field type says what is wrong with it


def _pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _json_problem(exc: json.JSONDecodeError) -> str:
    return f"Not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}). Fix it or clear the box."


# --- state: stored values → controls, POST → controls -------------------------------------------------------------


def initial_state(fields: list[Field], data: dict, zone: zoneinfo.ZoneInfo) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for definition in fields:
        slug, kind, value = definition.slug, definition.type, data.get(definition.slug)
        name = control(slug)
        if kind == "boolean":
            state[name] = "on" if value else ""
            # A checkbox cannot say "no value": remember whether the field had one, so an untouched box stays unset.
            state[control(slug, "set")] = "" if value is None else "1"
        elif kind == "datetime":
            state[name] = local_input(value, zone)
        elif kind == "multiSelect":
            state[name] = [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
        elif kind in ("json", "portableText"):
            state[name] = "" if value is None else _pretty_json(value)
        elif kind in MEDIA_EDITABLE:
            value = value if isinstance(value, dict) else {}
            state[name] = value.get("id") or ""
            for part in MEDIA_EDITABLE[kind]:
                state[control(slug, part)] = value.get(part) or ""
            kept = {
                key: item for key, item in value.items() if key != "id" and key not in MEDIA_EDITABLE[kind]
            }
            state[control(slug, "keep")] = json.dumps(kept, ensure_ascii=False) if kept else ""
            state[control(slug, "was")] = value.get("id") or ""
            state[control(slug, "remove")] = ""
        elif kind == "reference" and isinstance(value, list):
            state[name] = ", ".join(str(item) for item in value)
        elif kind in ("number", "integer") and value is not None and not isinstance(value, bool):
            state[name] = repr(value)
        else:
            state[name] = "" if value is None else str(value)
        if kind in ("string", "text"):
            # An empty box clears the field, but a stored "" (an imported entry without a title) is a value:
            # remember it, so saving an untouched form keeps it instead of clearing the field.
            state[control(slug, "set")] = "1" if value == "" else ""
        if kind == "multiSelect":
            state[control(slug, "was")] = json.dumps(state[name])
    return state


def posted_state(fields: list[Field], post) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for definition in fields:
        slug = definition.slug
        for name in (control(slug), *(control(slug, part) for part in PARTS)):
            if definition.type == "multiSelect" and name == control(slug):
                state[name] = post.getlist(name)
            elif name in post:
                state[name] = post.get(name, "")
    return state


PARTS = ("set", "was", "keep", "remove", "alt", "caption", "title")


# --- state → field values ---------------------------------------------------------------------------------------------


def to_data(
    fields: list[Field], state: dict[str, Any], zone: zoneinfo.ZoneInfo, *, creating: bool
) -> tuple[dict[str, Any], dict[str, str]]:
    """The field values the form holds (None clears a field; on create, empty fields are left out so defaults apply),
    and the problems that keep a value from being sent at all (by field slug)."""
    data: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for definition in fields:
        try:
            value = _value(definition, state, zone)
        except json.JSONDecodeError as exc:
            problems[definition.slug] = _json_problem(exc)
            continue
        if value is None and creating:
            continue
        data[definition.slug] = value
    return data, problems


def _value(definition: Field, state: dict[str, Any], zone: zoneinfo.ZoneInfo) -> Any:
    slug, kind = definition.slug, definition.type
    raw = state.get(control(slug), "")
    if kind == "boolean":
        if raw:
            return True
        return False if state.get(control(slug, "set")) else None
    if kind == "multiSelect":
        chosen = [item for item in raw if item] if isinstance(raw, list) else []
        try:
            before = json.loads(state.get(control(slug, "was")) or "[]")
        except json.JSONDecodeError:
            before = []
        # The boxes are in the options' order; the same choice keeps the order it was stored in.
        if isinstance(before, list) and sorted(map(str, before)) == sorted(chosen):
            chosen = before
        return chosen or None
    if kind in MEDIA_EDITABLE:
        return _media_value(slug, kind, state)
    if not isinstance(raw, str):
        raw = ""
    if kind == "text":
        # Browsers send line breaks as CRLF; stored text uses LF.
        raw = raw.replace("\r\n", "\n")
    if raw == "" and kind in ("string", "text") and state.get(control(slug, "set")) == "1":
        return ""
    if raw == "" or (kind not in ("string", "text") and not raw.strip()):
        return None
    if kind in ("number", "integer"):
        return _number(raw)
    if kind == "datetime":
        return from_local_input(raw.strip(), zone)
    if kind in ("json", "portableText"):
        return json.loads(raw)
    if kind == "reference":
        ids = [item for item in re.split(r"[\s,]+", raw) if item]
        return ids if (definition.options or {}).get("allowMultiple") else (ids[0] if len(ids) == 1 else ids)
    return raw


def _media_value(slug: str, kind: str, state: dict[str, Any]) -> Any:
    if state.get(control(slug, "remove")):
        return None
    media_id = (state.get(control(slug)) or "").strip()
    value: dict[str, Any] = {}
    if media_id == (state.get(control(slug, "was")) or "").strip():
        try:
            kept = json.loads(state.get(control(slug, "keep")) or "{}")
        except json.JSONDecodeError:
            kept = {}
        if isinstance(kept, dict):
            value.update(kept)
    if media_id:
        value["id"] = media_id
    for part in MEDIA_EDITABLE[kind]:
        text = state.get(control(slug, part)) or ""
        if text:
            value[part] = text
    return value or None


# --- widgets ---------------------------------------------------------------------------------------------------------


@dataclass
class Widget:
    """What the template needs to draw one field."""

    field: Field
    kind: str
    name: str
    value: Any
    hints: list[str] = field(default_factory=list)
    error: str = ""
    state: dict[str, Any] = field(default_factory=dict)
    options: list[dict] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    media: Any = None

    @property
    def id(self) -> str:
        return self.name

    @property
    def described_by(self) -> str:
        ids = []
        if self.hints:
            ids.append(f"{self.name}-hint")
        if self.error:
            ids.append(f"{self.name}-error")
        return " ".join(ids)


def _hints(definition: Field, zone_name: str) -> list[str]:
    rules = definition.validation or {}
    hints = []
    low, high = rules.get("minLength"), rules.get("maxLength")
    if low is not None and high is not None:
        hints.append(f"{low} to {high} characters")
    elif high is not None:
        hints.append(f"at most {high} characters")
    elif low is not None:
        hints.append(f"at least {low} characters")
    if rules.get("pattern"):
        hints.append(f"must match the pattern {rules['pattern']}")
    if definition.type in ("number", "integer"):
        if definition.type == "integer":
            hints.append("a whole number")
        if rules.get("min") is not None:
            hints.append(f"at least {rules['min']}")
        if rules.get("max") is not None:
            hints.append(f"at most {rules['max']}")
    if definition.type == "datetime":
        hints.append(f"in {zone_name}")
        if rules.get("min"):
            hints.append(f"not before {rules['min']}")
        if rules.get("max"):
            hints.append(f"not after {rules['max']}")
    if definition.type == "json":
        hints.append("JSON")
    if definition.type == "reference":
        target = (definition.options or {}).get("collection", "")
        several = (definition.options or {}).get("allowMultiple")
        hints.append(
            f"{'ids' if several else 'the id'} of entries in {target}"
            + (", comma-separated" if several else "")
        )
    if definition.type == "slug":
        hints.append("lowercase letters, digits and hyphens")
    return [hint for hint in hints if hint]


def build_widgets(
    fields: list[Field],
    state: dict[str, Any],
    errors: dict[str, str],
    *,
    zone_name: str,
    media: dict[str, dict] | None = None,
    title_control: str = "",
) -> list[Widget]:
    widgets = []
    for definition in fields:
        slug, kind = definition.slug, definition.type
        name = control(slug)
        rules = definition.validation or {}
        widget = Widget(
            field=definition,
            kind=kind,
            name=name,
            value=state.get(name, [] if kind == "multiSelect" else ""),
            hints=_hints(definition, zone_name),
            error=errors.get(slug, ""),
            state={part: state.get(control(slug, part), "") for part in PARTS},
        )
        if kind in ("string", "text") and rules.get("maxLength") is not None:
            widget.attrs["maxlength"] = rules["maxLength"]
        if kind == "text":
            widget.attrs["rows"] = (definition.options or {}).get("rows") or 5
        if kind in ("number", "integer"):
            widget.attrs.update(min=rules.get("min"), max=rules.get("max"))
            widget.attrs["step"] = "1" if kind == "integer" else "any"
        if kind in ("select", "multiSelect"):
            chosen = widget.value if isinstance(widget.value, list) else [widget.value]
            options = list(rules.get("options") or [])
            # A stored value the options no longer list stays visible (and selected) rather than silently dropped.
            options += [item for item in chosen if item and item not in options]
            widget.options = [{"value": option, "selected": option in chosen} for option in options]
        if kind == "reference":
            widget.attrs["target"] = (definition.options or {}).get("collection", "")
            widget.attrs["multiple"] = "true" if (definition.options or {}).get("allowMultiple") else "false"
        if kind == "slug" and title_control and title_control != name:
            widget.attrs["source"] = title_control
        if kind in MEDIA_EDITABLE:
            widget.media = (media or {}).get(str(widget.value))
        widgets.append(widget)
    return widgets


def media_ids(fields: list[Field], state: dict[str, Any]) -> list[str]:
    return [
        str(state.get(control(definition.slug)))
        for definition in fields
        if definition.type in MEDIA_EDITABLE and state.get(control(definition.slug))
    ]


def shown_values(fields: list[Field], state: dict[str, Any]) -> list[tuple[str, str]]:
    """What the person typed, as text per field label, to copy from (the conflict panel's read-only copy)."""
    shown = []
    for definition in fields:
        value = state.get(control(definition.slug), "")
        if isinstance(value, list):
            value = ", ".join(value)
        if definition.type in MEDIA_EDITABLE:
            extra = [
                state.get(control(definition.slug, part), "") for part in MEDIA_EDITABLE[definition.type]
            ]
            value = " · ".join(item for item in [value, *extra] if item)
        if value:
            shown.append((definition.label or definition.slug, str(value)))
    return shown
