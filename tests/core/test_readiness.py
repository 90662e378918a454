"""Readiness (issue 24): ``GET /_cms/api/health/ready`` answers 200 naming every applicable check, or 503 in the error
envelope naming what failed, for the database, migrations, Redis and object storage; a deployment's own check
joins through the registry. Nothing in an answer names a host, a port or a path of the server."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from botocore.config import Config
from django.conf import settings
from django.test import override_settings

from apps.core import readiness
from tests.faults import HungServer, SwitchableRedis, closed_port

READY = "/_cms/api/health/ready"
CORE = {"database": {"ok": True}, "migrations": {"ok": True}, "tasks": {"ok": True}}


@pytest.fixture(autouse=True)
def live_worker(db):
    """A worker serving every queue beat just now (the ``tasks`` check: tests/background/test_observe.py)."""
    from apps.background.models import WorkerBeat
    from apps.core.timefmt import now

    WorkerBeat.objects.create(
        worker_id="w", host="h", pid=1, queues=settings.CMS_TASK_QUEUES, started_at=now(), seen_at=now()
    )


class FakeDatabase:
    """Stands in for ``connections`` in apps/core/readiness.py: a cursor that fails with ``error``, or (with
    ``hang``) one whose query waits until the event is set, as a hung server's does."""

    def __init__(self, *, error: Exception | None = None, hang: threading.Event | None = None):
        self.error, self.hang, self.cursors = error, hang, 0

    def __getitem__(self, alias: str) -> FakeDatabase:
        return self

    @contextmanager
    def cursor(self):
        self.cursors += 1
        if self.error:
            raise self.error
        yield self

    def execute(self, sql: str) -> None:
        if self.hang is not None:
            self.hang.wait()

    def close(self) -> None:
        pass


def not_ready(checks: dict, message: str) -> dict:
    return {
        "success": False,
        "error": {
            "code": "SERVICE_UNAVAILABLE",
            "message": message,
            "details": {"status": "not_ready", "checks": checks},
        },
    }


def redis_cache(port: int, *, timeout: float = 0.05) -> override_settings:
    """Production's 50 ms socket timeouts by default: the faults' tests show they bound the check."""
    return override_settings(
        CACHES={
            "default": {
                "BACKEND": "apps.core.cache.BreakerRedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
                "OPTIONS": {"socket_connect_timeout": timeout, "socket_timeout": timeout},
            }
        },
        CMS_RATE_LIMIT_ENABLED=False,
        RATELIMIT_ENABLE=False,
    )


def s3(alias: str, port: int) -> override_settings:
    return override_settings(
        STORAGES={
            **settings.STORAGES,
            alias: {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": "media",
                    "endpoint_url": f"http://127.0.0.1:{port}",
                    "region_name": "us-east-1",
                    "access_key": "test",
                    "secret_key": "test",
                    "client_config": Config(
                        connect_timeout=5, read_timeout=5, retries={"total_max_attempts": 3}
                    ),
                },
            },
        }
    )


class FakeS3:
    """An object store that answers every lookup with one status (404: reachable, no such key; 403: refused)."""

    def __init__(self, status: int):
        answer = status

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self):
                self.send_response(answer)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self) -> FakeS3:
        return self

    def __exit__(self, *_exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_ready_names_every_applicable_check(api):
    response = api.get(READY)

    assert response.status_code == 200
    # Local cache and local disk: no Redis or storage check applies.
    assert response.json() == {"success": True, "data": {"status": "ready", "checks": CORE}}
    assert response["Cache-Control"] == "private, no-store"


def test_ready_refuses_parameters(api):
    response = api.get(READY, {"verbose": "1"})

    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "verbose": "Unknown query parameter; this endpoint takes none."
    }


def test_unapplied_migrations_are_counted(api, monkeypatch):
    class Plan:
        def __init__(self, connection):
            self.loader = type(
                "Loader", (), {"graph": type("Graph", (), {"leaf_nodes": lambda self: []})()}
            )()

        def migration_plan(self, targets):
            return [("content", "0099"), ("media", "0099"), ("search", "0099")]

    monkeypatch.setattr("django.db.migrations.executor.MigrationExecutor", Plan)
    monkeypatch.setattr(readiness, "_migrations_applied", False)

    response = api.get(READY)

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    detail = "3 unapplied; run `python manage.py migrate`."
    assert response.json() == not_ready(
        {"database": {"ok": True}, "migrations": {"ok": False, "detail": detail}, "tasks": {"ok": True}},
        f"Not ready: migrations: {detail}",
    )


def test_an_unreachable_database_fails_both_database_checks(api, monkeypatch):
    monkeypatch.setattr(
        readiness,
        "connections",
        FakeDatabase(error=OSError("connection to server at 10.0.0.7 port 5432 failed")),
    )
    monkeypatch.setattr(readiness, "_migrations_applied", False)

    response = api.get(READY)

    assert response.status_code == 503
    checks = {
        "database": {"ok": False, "detail": "Not reachable."},
        "migrations": {"ok": False, "detail": "Not checked: the database is not reachable."},
        "tasks": {"ok": True},  # read through the ORM's own connection, which the test leaves alone
    }
    assert response.json() == not_ready(
        checks, "Not ready: database: Not reachable.; migrations: Not checked: the database is not reachable."
    )
    assert "10.0.0.7" not in response.content.decode()


def test_a_hung_database_is_not_ready_after_the_timeout_and_is_probed_once_at_a_time(
    api, monkeypatch, settings
):
    settings.CMS_READINESS_DB_TIMEOUT = 0.2
    answer = threading.Event()
    hung = FakeDatabase(hang=answer)
    monkeypatch.setattr(readiness, "connections", hung)
    monkeypatch.setattr(readiness, "_migrations_applied", True)  # known since the process started
    try:
        first, second = api.get(READY), api.get("/_cms/api/health")

        assert first.status_code == 503
        assert first.json() == not_ready(
            {**CORE, "database": {"ok": False, "detail": "No answer within 0.2 s."}},
            "Not ready: database: No answer within 0.2 s.",
        )
        assert second.status_code == 503
        assert second.json()["error"]["message"] == "The database is not reachable."
        # The second check waited on the first one's probe instead of starting another.
        assert hung.cursors == 1
    finally:
        answer.set()
    # Once the server answers, the stuck probe ends (a check waiting on it passes) and the next check starts anew.
    settings.CMS_READINESS_DB_TIMEOUT = 30
    assert api.get(READY).status_code == 200
    probes = hung.cursors
    assert api.get(READY).status_code == 200
    assert hung.cursors == probes + 1


def test_a_database_server_that_never_answers_a_connection_is_given_up(db):
    """libpq's connect_timeout, which settings give every PostgreSQL alias (CMS_DB_CONNECT_TIMEOUT): without it a
    connection to a silent server waits as long as TCP does."""
    import psycopg
    from django.db.utils import ConnectionHandler, OperationalError

    from cms_project.databases import database

    with HungServer() as server:
        configured = database(
            f"postgres://cms@127.0.0.1:{server.port}/cms", conn_max_age=0, pgbouncer=False, connect_timeout=2
        )
        assert configured["OPTIONS"]["connect_timeout"] == 2
        handler = ConnectionHandler({"default": configured})
        with pytest.raises(OperationalError) as raised:
            handler["default"].ensure_connection()
        assert isinstance(raised.value.__cause__, psycopg.errors.ConnectionTimeout)
        assert server.accepted() >= 1


def test_redis_is_checked_when_a_redis_cache_is_configured(api):
    # A Redis that answers, given time to: the stand-in answers from a thread, which a loaded machine (CI runs
    # beside other work) can leave unscheduled longer than 50 ms.
    with SwitchableRedis(hung=False) as redis, redis_cache(redis.port, timeout=5):
        response = api.get(READY)

        assert response.status_code == 200
        assert response.json()["data"]["checks"] == {**CORE, "redis": {"ok": True}}
        assert "PING" in redis.commands


@pytest.mark.parametrize("state", ["stopped", "hung"])
def test_a_stopped_or_hung_redis_is_not_ready(api, state):
    with HungServer() as hung:
        port = closed_port() if state == "stopped" else hung.port
        with redis_cache(port):
            response = api.get(READY)

    assert response.status_code == 503
    assert response.json() == not_ready(
        {**CORE, "redis": {"ok": False, "detail": "Not reachable."}}, "Not ready: redis: Not reachable."
    )
    assert str(port) not in response.content.decode()


@pytest.mark.parametrize(("alias", "name"), [("default", "mediaStorage"), ("imports", "importStorage")])
def test_object_storage_that_answers_is_ready(api, alias, name):
    with FakeS3(404) as store, s3(alias, store.port):
        response = api.get(READY)

    assert response.status_code == 200
    assert response.json()["data"]["checks"] == {**CORE, name: {"ok": True}}


@pytest.mark.parametrize(("alias", "name"), [("default", "mediaStorage"), ("imports", "importStorage")])
def test_stopped_object_storage_is_not_ready(api, alias, name):
    port = closed_port()
    with s3(alias, port):
        response = api.get(READY)

    assert response.status_code == 503
    assert response.json() == not_ready(
        {**CORE, name: {"ok": False, "detail": "Not reachable."}}, f"Not ready: {name}: Not reachable."
    )
    assert str(port) not in response.content.decode()


def test_hung_object_storage_is_given_up_after_one_short_attempt(api):
    # The storage's own configuration allows 3 attempts of 5 s; readiness makes one of half a second.
    with HungServer() as store, s3("default", store.port):
        response = api.get(READY)

        assert response.status_code == 503
        assert response.json()["error"]["details"]["checks"]["mediaStorage"] == {
            "ok": False,
            "detail": "Not reachable.",
        }
        assert store.accepted() == 1


def test_object_storage_refusing_the_credentials_is_not_ready(api):
    with FakeS3(403) as store, s3("default", store.port):
        response = api.get(READY)

    assert response.status_code == 503
    detail = "Refused the request (HTTP 403); check the credentials and the bucket."
    assert response.json()["error"]["details"]["checks"]["mediaStorage"] == {"ok": False, "detail": detail}


def test_a_registered_check_joins_and_its_failure_is_named(api):
    state = {"ok": True}

    def exports():
        return readiness.passed() if state["ok"] else readiness.failed("The nightly export is 90 s late.")

    readiness.register("exports", exports)
    try:
        assert api.get(READY).json()["data"]["checks"] == {**CORE, "exports": {"ok": True}}
        state["ok"] = False
        response = api.get(READY)
    finally:
        readiness.unregister("exports")

    assert response.status_code == 503
    assert response.json() == not_ready(
        {**CORE, "exports": {"ok": False, "detail": "The nightly export is 90 s late."}},
        "Not ready: exports: The nightly export is 90 s late.",
    )


def test_a_check_that_raises_fails_without_its_error_text(api):
    def broken():
        raise RuntimeError("secret at /srv/cms/var/secret_key")

    readiness.register("broken", broken)
    try:
        response = api.get(READY)
    finally:
        readiness.unregister("broken")

    assert response.status_code == 503
    assert response.json()["error"]["details"]["checks"]["broken"] == {
        "ok": False,
        "detail": readiness.UNEXPECTED,
    }
    assert "/srv" not in response.content.decode()


def test_liveness_is_unchanged_by_a_failing_readiness_check(api):
    readiness.register("broken", lambda: readiness.failed("Down."))
    try:
        assert api.get("/_cms/api/health").status_code == 200
        assert api.get(READY).status_code == 503
    finally:
        readiness.unregister("broken")


def test_liveness_answers_pending_migrations_in_its_own_words(api, monkeypatch):
    monkeypatch.setattr(readiness, "migrations", lambda: readiness.failed("2 unapplied; run migrate."))

    response = api.get("/_cms/api/health")

    assert response.status_code == 503
    assert response.json() == {
        "success": False,
        "error": {
            "code": "SERVICE_UNAVAILABLE",
            "message": "Database migrations are pending: run `python manage.py migrate`.",
            "details": {},
        },
    }


def test_liveness_answers_an_unreachable_database_in_its_own_words(api, monkeypatch):
    monkeypatch.setattr(readiness, "connections", FakeDatabase(error=OSError("connection refused")))
    monkeypatch.setattr(readiness, "_migrations_applied", False)

    response = api.get("/_cms/api/health")

    assert response.status_code == 503
    assert response.json()["error"]["message"] == "The database is not reachable."
