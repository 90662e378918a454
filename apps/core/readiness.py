"""Readiness checks (issue 24): what ``GET /_cms/api/health/ready`` asks before a load balancer sends this node
traffic. Liveness (``/_cms/api/health``) only says the process answers.

A registry of named checks, filled from ``AppConfig.ready()``: core registers the database, the migrations and Redis;
media and the importer their storages; the task engine adds its own. A check is a function of no arguments that
answers ``passed()`` or ``failed(detail)``, or None when it does not apply to this configuration (no Redis
configured): it is then left out of the answer. Checks run one after another in the request, so each must bound
itself to about a second with short timeouts of its own, and its detail is shown to anyone: words written here, never
an exception's text (which can hold host names, paths or credentials). What went wrong goes to the log.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

logger = logging.getLogger("cms.readiness")


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    detail: str | None = None


def passed(detail: str | None = None) -> CheckResult:
    return CheckResult(True, detail)


def failed(detail: str) -> CheckResult:
    return CheckResult(False, detail)


Check = Callable[[], CheckResult | None]
_checks: dict[str, Check] = {}
UNEXPECTED = "The check failed unexpectedly; the server log has the error."


def register(name: str, check: Check) -> None:
    """Add a check under ``name`` (its key in the answer), or replace the one of that name."""
    _checks[name] = check


def unregister(name: str) -> None:
    _checks.pop(name, None)


def registered() -> list[str]:
    return list(_checks)


def run() -> tuple[bool, dict[str, dict[str, Any]]]:
    """Every applicable check in registration order: (all passed, {name: {ok, detail?}})."""
    answers: dict[str, dict[str, Any]] = {}
    for name, check in list(_checks.items()):
        try:
            result = check()
        except Exception:
            logger.warning("readiness check %s raised", name, exc_info=True)
            result = failed(UNEXPECTED)
        if result is None:
            continue
        answers[name] = {"ok": result.ok, **({"detail": result.detail} if result.detail else {})}
    return all(answer["ok"] for answer in answers.values()), answers


# --- Core's checks ---------------------------------------------------------------------------------------------------

# Once every migration is applied it stays so for this process's code: the plan (which reads every migration file)
# is computed until it first comes out empty.
_migrations_applied = False
MIGRATIONS_UNREADABLE = "Not checked: the database is not reachable."


# The database answers ``SELECT 1`` on a connection of its own, in a thread the check waits for at most
# CMS_READINESS_DB_TIMEOUT seconds: a hung server (or one whose every connection slot is taken) fails the check instead
# of holding the probe, and the gunicorn worker answering it, until TCP gives up minutes later. One probe at a time:
# while one is stuck, later checks wait on it instead of starting another, so a long outage holds one thread.
_probe_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cms-readiness-db")
_probe_lock = threading.Lock()
_probe: Future | None = None


def _select_one() -> None:
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    finally:
        # Closed after each probe: a kept connection in this thread would hold a server slot between probes (and
        # keep a test database from being dropped).
        connection.close()


def database() -> CheckResult:
    global _probe
    timeout = settings.CMS_READINESS_DB_TIMEOUT
    with _probe_lock:
        if _probe is None or _probe.done():
            _probe = _probe_executor.submit(_select_one)
        probe = _probe
    try:
        probe.result(timeout=timeout)
    except FutureTimeout:
        logger.warning("readiness: the database did not answer within %g s", timeout)
        return failed(f"No answer within {timeout:g} s.")
    except Exception as error:
        logger.warning("readiness: database not reachable: %s: %s", type(error).__name__, error)
        return failed("Not reachable.")
    return passed()


def migrations() -> CheckResult:
    global _migrations_applied
    if _migrations_applied:
        return passed()
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        pending = len(executor.migration_plan(executor.loader.graph.leaf_nodes()))
    except Exception as error:
        logger.warning("readiness: migrations not readable: %s: %s", type(error).__name__, error)
        return failed(MIGRATIONS_UNREADABLE)
    if pending:
        return failed(f"{pending} unapplied; run `python manage.py migrate`.")
    _migrations_applied = True
    return passed()


def _redis_aliases() -> list[str]:
    from django.core.cache.backends.redis import RedisCache
    from django.utils.module_loading import import_string

    aliases = []
    for alias, config in settings.CACHES.items():
        try:
            backend = import_string(config["BACKEND"])
        except ImportError:
            continue
        if isinstance(backend, type) and issubclass(backend, RedisCache):
            aliases.append(alias)
    return aliases


def redis() -> CheckResult | None:
    """Every Redis-backed cache answers PING; not applicable without one. Straight to Redis, past the circuit
    breaker (apps/core/cache.py): readiness reports what Redis does now, bounded by the cache's own socket timeouts
    (tens of milliseconds)."""
    from django.core.cache import caches

    aliases = _redis_aliases()
    if not aliases:
        return None
    silent = []
    for alias in aliases:
        try:
            answered = caches[alias]._cache.get_client(write=True).ping()
        except Exception as error:
            logger.warning("readiness: Redis (cache %s) not reachable: %s", alias, type(error).__name__)
            answered = False
        if not answered:
            silent.append(alias)
    if silent:
        return failed("Not reachable" + ("." if aliases == ["default"] else f": cache {', '.join(silent)}."))
    return passed()


def register_core_checks() -> None:
    register("database", database)
    register("migrations", migrations)
    register("redis", redis)
