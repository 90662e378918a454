"""With REDIS_URL configured, rate-limit counters live in Redis, shared by every process and machine."""

import os

import pytest
from django.core.cache import caches
from django.test import override_settings

from tests.processes import redis_or_skip

REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture
def redis_cache():
    client = redis_or_skip(REDIS_URL, "TEST_REDIS_URL")
    # Own keys only: other test processes may share this Redis.
    prefix = f"cms-test-{os.getpid()}"
    config = {
        "default": {
            # The backend settings choose for REDIS_URL: its breaker stays out of the way of a healthy Redis.
            "BACKEND": "apps.core.cache.BreakerRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        }
    }
    with override_settings(CACHES=config, CMS_RATE_LIMITS={"api": "2/m"}):
        caches.close_all()
        yield client, prefix
    caches.close_all()
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def test_counters_are_kept_in_redis(redis_cache, admin_api):
    client, prefix = redis_cache
    assert admin_api.get("/_cms/api/admin/api-tokens").status_code == 200
    assert admin_api.get("/_cms/api/admin/api-tokens").status_code == 200
    assert any(b":rl:" in key for key in client.scan_iter(f"{prefix}:*"))
    limited = admin_api.get("/_cms/api/admin/api-tokens")
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) >= 1


def test_an_unreachable_redis_lets_requests_through(admin_api):
    config = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    with override_settings(CACHES=config):
        caches.close_all()
        assert admin_api.get("/_cms/api/admin/api-tokens").status_code == 200
    caches.close_all()
