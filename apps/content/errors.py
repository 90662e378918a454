"""Content errors with their own codes."""

from apps.core.errors import CmsError


class InvalidTransition(CmsError):
    """The action does not apply to the entry in its current state (SPEC §3)."""

    code = "INVALID_TRANSITION"
    status = 400
    default_message = "That action does not apply to the entry in its current state."
