"""Account errors that carry their own codes."""

from apps.core.errors import ValidationError


class ScopeNotAllowed(ValidationError):
    """A token asked for a scope its user's role can never use."""
