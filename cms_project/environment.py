"""Reading the environment for settings.py: typed lookups where an empty variable counts as unset, and the mail
settings from one ``EMAIL_URL``."""

from __future__ import annotations

import os
from urllib.parse import urlsplit


def env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value is None or value == "" else int(value)


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return default if value is None or value == "" else float(value)


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def email_settings(url: str | None) -> dict:
    """EMAIL_* settings from one URL (docs/operations.md): console (default), smtp, smtps, submission, memory.

    ``smtp://user:pass@host:25`` plain SMTP (add ``?tls=1`` for STARTTLS), ``submission://…`` STARTTLS on 587,
    ``smtps://…`` implicit TLS on 465; user and password are percent-decoded; ``?timeout=`` in seconds (default 10).
    """
    from urllib.parse import parse_qs, unquote

    if not url or url.startswith("console:"):
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    if url.startswith("memory:"):
        return {"EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
    parts = urlsplit(url)
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    defaults = {"smtp": (25, False, False), "submission": (587, True, False), "smtps": (465, False, True)}
    if parts.scheme not in defaults:
        raise ValueError(
            f"EMAIL_URL: unsupported scheme {parts.scheme!r}; use smtp, submission, smtps or console"
        )
    port, tls, ssl = defaults[parts.scheme]
    truthy = {"1", "true", "yes", "on"}
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname or "localhost",
        "EMAIL_PORT": parts.port or port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls or query.get("tls", "").lower() in truthy,
        "EMAIL_USE_SSL": ssl or query.get("ssl", "").lower() in truthy,
        "EMAIL_TIMEOUT": int(query.get("timeout", "10")),
    }
