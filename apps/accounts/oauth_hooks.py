"""Callables that django-oauth-toolkit's settings need as objects, not import paths (OAUTH_PRE_TOKEN_VALIDATION).

Imported by settings.py, so this module imports nothing of Django's models at import time; the work is in
``apps.accounts.oauth``.
"""


def device_grant_pre_token(request) -> None:
    """oauthlib pre-token hook of the device grant: see ``apps.accounts.oauth.device_grant_pre_token``."""
    from apps.accounts.oauth import device_grant_pre_token as hook

    hook(request)
