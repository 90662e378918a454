"""What the widget and section pages share: reading a Portable Text box and placing a service's messages next to the
form fields they concern. No rule lives here: the content is checked by the site services."""

from __future__ import annotations

import json
import re
from typing import Any

from apps.core.errors import CmsError, ValidationError


def portable_text_from(raw: str, field: str = "content") -> Any:
    """The JSON the rich-text editor (or a person without JavaScript) left in the textarea; empty means no blocks."""
    text = (raw or "").strip()
    if not text:
        return []
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValidationError(details={field: f"Not valid JSON: {exc}."}) from None


def portable_text_shown(blocks: Any) -> str:
    return json.dumps(blocks if blocks is not None else [], ensure_ascii=False, indent=2)


def form_errors(exc: CmsError, fields: tuple[str, ...]) -> dict[str, str]:
    """The error's details by form field: ``content[2].children[0].text`` belongs next to ``content``, with its path
    kept so the person can find the block; what concerns no field of the form goes to ``form``. A refusal (403, 404)
    is no form problem and is raised again, to become the studio's error page."""
    if exc.status not in (400, 409):
        raise exc
    details = exc.details if isinstance(exc.details, dict) else {}
    errors: dict[str, str] = {}
    for key, message in details.items():
        base = re.split(r"[.\[]", str(key), maxsplit=1)[0]
        target = base if base in fields else "form"
        text = str(message) if key == base else f"{key}: {message}"
        errors[target] = f"{errors[target]} {text}" if target in errors else text
    if not errors:
        errors["form"] = exc.message
    return errors
