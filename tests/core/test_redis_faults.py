"""A hung or stopped Redis (issue 24): requests still answer, each process tries Redis once per breaker interval, and
the log has one warning per interval instead of a traceback per request.

The hung Redis is a TCP server that accepts and never answers; each connection it accepted is one attempt the
cache made. The stopped one is a port nothing listens on."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches
from django.test import override_settings

from apps.core import cache as breaker_cache
from tests.faults import HungServer, SwitchableRedis, closed_port

TOKENS = "/_cms/api/admin/api-tokens"
INTERVAL = 30


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(breaker_cache, "_clock", clock)
    return clock


@pytest.fixture
def redis_at():
    """Point the default cache at ``redis://127.0.0.1:<port>`` as settings do for REDIS_URL (short timeouts, the
    breaker), with a low rate limit so that a counter that worked would refuse requests."""
    stack = []

    def point(port: int):
        config = {
            "default": {
                "BACKEND": "apps.core.cache.BreakerRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"socket_connect_timeout": 0.05, "socket_timeout": 0.05},
            }
        }
        override = override_settings(
            CACHES=config, CMS_REDIS_BREAKER_SECONDS=INTERVAL, CMS_RATE_LIMITS={"api": "2/m"}
        )
        override.enable()
        stack.append(override)
        caches.close_all()

    yield point
    for override in reversed(stack):
        override.disable()
    caches.close_all()


def cache_warnings(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "cms.cache"]


def no_tracebacks(caplog) -> bool:
    return not [record for record in caplog.records if record.exc_info]


def test_a_hung_redis_is_tried_once_per_interval_and_warned_about_once(admin_api, redis_at, clock, caplog):
    with HungServer() as redis, caplog.at_level(logging.WARNING):
        redis_at(redis.port)

        statuses = [admin_api.get(TOKENS).status_code for _ in range(10)]

        # Over the rate limit of 2 a minute, yet allowed: the counter is unavailable, so the limit fails open.
        assert statuses == [200] * 10
        assert redis.accepted() == 1
        [warning] = cache_warnings(caplog)
        assert warning.levelno == logging.WARNING
        assert warning.getMessage().startswith(f"Redis at 127.0.0.1:{redis.port} unavailable (TimeoutError")
        assert "30 s" in warning.getMessage()
        assert no_tracebacks(caplog)

        clock.now += INTERVAL - 1
        assert admin_api.get(TOKENS).status_code == 200
        assert redis.accepted() == 1

        # Once the interval is over one request tries again, fails the same way, and opens another interval.
        clock.now += 1
        assert [admin_api.get(TOKENS).status_code for _ in range(10)] == [200] * 10
        assert redis.accepted() == 2
        assert len(cache_warnings(caplog)) == 2
        assert no_tracebacks(caplog)


def test_a_stopped_redis_is_warned_about_once(admin_api, redis_at, clock, caplog):
    port = closed_port()
    with caplog.at_level(logging.WARNING):
        redis_at(port)

        assert [admin_api.get(TOKENS).status_code for _ in range(10)] == [200] * 10

        [warning] = cache_warnings(caplog)
        assert warning.getMessage().startswith(f"Redis at 127.0.0.1:{port} unavailable (ConnectionError")
        assert no_tracebacks(caplog)


def test_writes_go_through_while_redis_hangs(admin_api, redis_at, clock, caplog):
    # Content writes read the webhook subscriptions from the cache and drop them when an endpoint changes.
    with HungServer() as redis, caplog.at_level(logging.WARNING):
        redis_at(redis.port)
        created = admin_api.post(
            "/_cms/api/webhooks",
            {"url": "https://hooks.example.com/cms", "eventTypes": ["entry.*"]},
            format="json",
        )

        assert created.status_code == 201
        assert redis.accepted() == 1
        assert len(cache_warnings(caplog)) == 1
        assert no_tracebacks(caplog)


def test_redis_back_closes_the_breaker(admin_api, redis_at, clock, caplog):
    with SwitchableRedis(hung=True) as redis, caplog.at_level(logging.WARNING):
        redis_at(redis.port)
        assert admin_api.get(TOKENS).status_code == 200
        assert len(cache_warnings(caplog)) == 1

        redis.hung = False
        assert admin_api.get(TOKENS).status_code == 200
        assert redis.commands == []  # still within the interval: Redis is not asked

        clock.now += INTERVAL
        assert [admin_api.get(TOKENS).status_code for _ in range(3)] == [200] * 3

        # The counter's first hit of each request (SET … NX) reached Redis again, and the log says so once.
        assert redis.commands.count("SET") == 3
        assert [record.getMessage() for record in cache_warnings(caplog)][1:] == [
            f"Redis at 127.0.0.1:{redis.port} reachable again; cache in use"
        ]
