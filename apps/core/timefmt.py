"""The wire format for instants: ISO 8601 in UTC with milliseconds and ``Z`` (ARCHITECTURE §3)."""

from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def parse_iso(value: str) -> datetime | None:
    """Parse an ISO 8601 instant; naive values are taken as UTC. Returns None when it is not a datetime."""
    if not isinstance(value, str):
        return None
    try:
        parsed = parse_datetime(value.strip())
    except ValueError:
        return None
    if parsed is None:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def now() -> datetime:
    return datetime.now(UTC)
