"""Account errors that carry their own codes or extra meaning for the pages that show them."""

from __future__ import annotations

from apps.core.errors import Unauthorized, ValidationError


class ScopeNotAllowed(ValidationError):
    """A token asked for a scope its user's role can never use."""


class PasskeyRejected(Unauthorized):
    """A sign-in assertion that does not verify: unknown challenge or credential, wrong origin, bad signature …"""

    default_message = "The passkey could not be verified."


class LinkUnusable(ValidationError):
    """A magic link or invitation that cannot be used; ``reason`` (unknown, used, expired, revoked, disabled) lets
    the pages say which, in words a person understands."""

    def __init__(self, reason: str, message: str, *, field: str = "token"):
        self.reason = reason
        super().__init__(message, details={field: message})
