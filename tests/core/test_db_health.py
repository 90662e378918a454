"""Persistent PostgreSQL connections survive the server closing them (restart, terminated backend, failover).

Django runs ``close_old_connections`` when each request starts; our backend's health check there reads the socket
instead of sending ``SELECT 1``, so these tests make sure that cheaper check still notices a connection the server has
closed, and keeps one it has not.
"""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import close_old_connections, connection

pytestmark = [pytest.mark.requires_postgres, pytest.mark.django_db(transaction=True)]


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def _terminate(pid: int) -> None:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
            assert time.monotonic() < deadline, "the terminated backend did not go away"
            time.sleep(0.02)


def test_a_connection_the_server_closed_is_replaced_before_the_request_uses_it(admin_api):
    old_pid = _backend_pid()
    _terminate(old_pid)

    close_old_connections()  # what Django does as each request starts
    response = admin_api.get("/_cms/api/schema/collections")

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert _backend_pid() != old_pid


def test_a_quiet_healthy_connection_is_kept(admin_api):
    old_pid = _backend_pid()

    close_old_connections()
    response = admin_api.get("/_cms/api/schema/collections")

    assert response.status_code == 200
    assert _backend_pid() == old_pid
