"""Secrets and signatures of the Standard Webhooks scheme (https://www.standardwebhooks.com), signed by its
maintained library ``standardwebhooks`` rather than by hand.

A secret is ``whsec_`` and 32 random bytes in base64. Each request carries ``webhook-id`` (the event's id, the same
on every retry, for receivers to drop duplicates), ``webhook-timestamp`` (seconds since 1970, of this attempt) and
``webhook-signature``: ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``. During a rotation's grace period it
holds one signature per secret, separated by a space, so receivers that still know only the old secret keep
verifying.
"""

from __future__ import annotations

import base64
import secrets
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

PREFIX = "whsec_"


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def headers(*, message_id: str, when: datetime, body: bytes, secrets_in_use: list[str]) -> dict[str, str]:
    """The three Standard Webhooks headers for one attempt, signed with every secret in use (newest first)."""
    text = body.decode("utf-8")
    when = when.astimezone(UTC)
    signatures = " ".join(Webhook(secret).sign(message_id, when, text) for secret in secrets_in_use)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": signatures,
    }
