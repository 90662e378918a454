"""ULID identifiers: every public resource id is a 26-character ULID, time-ordered, generated in Python."""

import re

from ulid import ULID

_ULID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def new_id() -> str:
    return str(ULID())


def is_ulid(value: object) -> bool:
    return isinstance(value, str) and bool(_ULID_RE.match(value.upper()))
