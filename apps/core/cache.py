"""Django's RedisCache behind a circuit breaker, so that a hung or stopped Redis costs the API almost nothing.

Every cache user (rate-limit counters, the webhook subscriptions, anything later) goes through Django's cache, so the
breaker lives here, once. A call that fails with a connection error or a timeout (bounded by the short socket
timeouts in settings) opens the breaker for ``CMS_REDIS_BREAKER_SECONDS``: meanwhile no call reaches Redis, reads
miss (``get`` answers the default), writes are skipped, and ``incr`` finds no counter, which django-ratelimit takes as
"allow" (``RATELIMIT_FAIL_OPEN``). When the interval is over, one call tries Redis again while the others keep
skipping it: success closes the breaker, failure opens it for another interval. One warning is logged per interval,
with no traceback, instead of one per request.

The breaker is shared by the threads of a process (Django makes a cache object per thread) and kept per Redis
location; each process has its own, so each tries once per interval.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from django.core.signals import setting_changed
from django.dispatch import receiver
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("cms.cache")

# What an unreachable, hung or restarting Redis raises (BusyLoadingError is a ConnectionError). A command error
# (ResponseError) is a bug, not an outage, and is raised as before.
OUTAGE = (RedisConnectionError, RedisTimeoutError, OSError)
# Seconds that only go forward; tests replace it to step past an interval without waiting.
_clock = time.monotonic


class Breaker:
    def __init__(self, where: str):
        self.where = where
        self._lock = threading.Lock()
        self._open_until = 0.0
        self._quiet_until = 0.0

    def allow(self) -> bool:
        """Whether this call may use Redis. Past an open interval, the first caller gets the trial and pushes the
        interval on for the others, so one call per interval and process waits on a timeout, not every call."""
        if not self._open_until:
            return True
        with self._lock:
            now = _clock()
            if now < self._open_until:
                return False
            if self._open_until:
                self._open_until = now + settings.CMS_REDIS_BREAKER_SECONDS
            return True

    def failed(self, error: BaseException) -> None:
        with self._lock:
            now = _clock()
            self._open_until = now + settings.CMS_REDIS_BREAKER_SECONDS
            if now < self._quiet_until:
                return
            self._quiet_until = self._open_until
        logger.warning(
            "Redis at %s unavailable (%s: %s); cache bypassed for %s s, rate limits not enforced meanwhile",
            self.where,
            type(error).__name__,
            error,
            settings.CMS_REDIS_BREAKER_SECONDS,
        )

    def succeeded(self) -> None:
        if not self._open_until:
            return
        with self._lock:
            if not self._open_until:
                return
            self._open_until = 0.0
            self._quiet_until = 0.0
        logger.warning("Redis at %s reachable again; cache in use", self.where)


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def _where(servers: list[str]) -> str:
    """The servers without credentials, for the log."""
    shown = []
    for server in servers:
        parts = urlsplit(server)
        shown.append(f"{parts.hostname}:{parts.port or 6379}" if parts.hostname else parts.path or "?")
    return ",".join(shown)


def breaker_for(servers: list[str]) -> Breaker:
    key = ",".join(servers)
    with _breakers_lock:
        found = _breakers.get(key)
        if found is None:
            found = _breakers[key] = Breaker(_where(servers))
        return found


@receiver(setting_changed)
def _reset(*, setting: str, **_kwargs: Any) -> None:
    # Tests point the cache elsewhere or change the interval: start from a closed breaker.
    if setting in ("CACHES", "CMS_REDIS_BREAKER_SECONDS"):
        with _breakers_lock:
            _breakers.clear()


class BreakerRedisCache(RedisCache):
    def available(self) -> bool:
        """False while the breaker skips Redis: for callers to whom a miss and an outage must not look alike."""
        return not breaker_for(self._servers)._open_until

    def _guard(self, call, args: tuple, fallback: Any) -> Any:
        breaker = breaker_for(self._servers)
        if not breaker.allow():
            return fallback
        try:
            result = call(*args)
        except OUTAGE as error:
            breaker.failed(error)
            return fallback
        breaker.succeeded()
        return result

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guard(super().add, (key, value, timeout, version), False)

    def get(self, key, default=None, version=None):
        return self._guard(super().get, (key, default, version), default)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        self._guard(super().set, (key, value, timeout, version), None)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guard(super().touch, (key, timeout, version), False)

    def delete(self, key, version=None):
        return self._guard(super().delete, (key, version), False)

    def get_many(self, keys, version=None):
        return self._guard(super().get_many, (keys, version), {})

    def has_key(self, key, version=None):
        return self._guard(super().has_key, (key, version), False)

    def incr(self, key, delta=1, version=None):
        missing = object()
        found = self._guard(super().incr, (key, delta, version), missing)
        if found is missing:
            # What Django's cache raises for a missing key; django-ratelimit then lets the request through.
            raise ValueError(f"Key {key!r} not found (the cache is unavailable).")
        return found

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        # The keys that were not stored, as Django's contract has it.
        return self._guard(super().set_many, (data, timeout, version), list(data))

    def delete_many(self, keys, version=None):
        self._guard(super().delete_many, (keys, version), None)

    def clear(self):
        return self._guard(super().clear, (), False)
