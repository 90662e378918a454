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


RQ_BACKEND = "django_tasks_rq.RQBackend"
DATABASE_BACKEND = "django_tasks_db.DatabaseBackend"


def task_settings(backend: str | None, queues: list[str], redis_url: str | None, *, timeout: int) -> dict:
    """TASKS, and for RQ its apps and RQ_QUEUES, from ``CMS_TASK_BACKEND``: ``database`` (the default), ``rq``, or a
    backend's dotted class path. RQ keeps every queue in the one Redis at ``redis_url``; ``timeout`` is how long a
    task may run before RQ kills it (an RQ job has a deadline, a database task has none)."""
    backend = {"": DATABASE_BACKEND, "database": DATABASE_BACKEND, "rq": RQ_BACKEND}.get(
        backend or "", backend
    )
    found = {
        "TASKS": {"default": {"BACKEND": backend, "QUEUES": list(queues)}},
        "apps": [],
        "RQ_QUEUES": {},
        "RQ": {},
    }
    if backend != RQ_BACKEND:
        return found
    if not redis_url:
        raise ValueError("CMS_TASK_BACKEND=rq needs a Redis: set CMS_TASK_REDIS_URL (or REDIS_URL)")
    found["apps"] = ["django_rq", "django_tasks_rq"]
    # So that a plain `manage.py rqworker <queues>` runs our tasks the way `manage.py worker` does.
    found["RQ"] = {"JOB_CLASS": "django_tasks_rq.Job", "WORKER_CLASS": "apps.background.rqworker.CmsWorker"}
    # "default" is no queue of ours: django-rq reads task results through the connection of that name.
    found["RQ_QUEUES"] = {
        name: {"URL": redis_url, "DEFAULT_TIMEOUT": timeout} for name in ["default", *queues]
    }
    return found
