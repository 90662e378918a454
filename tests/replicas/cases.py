"""Which database each request reads from when a replica is configured (apps/core/replicas.py).

Run by ``test_routing.py`` in a subprocess whose environment sets ``DATABASE_REPLICA_URL``: the ``replica`` alias
then exists, as a test mirror of the default database (one database, two connections), so each connection's query
log shows where a request read. Not collected by the normal run (the file name does not start with ``test_``).
"""

from __future__ import annotations

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.core.replicas import PIN_COOKIE
from tests.conftest import ApiClient
from tests.factories import make_collection, make_entry, make_token, make_user
from tests.wsgi import wsgi_call

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "replica"])

POSTS = "/_cms/api/content/posts"


class Where:
    """The queries each alias ran during the block."""

    def __enter__(self):
        self.primary = CaptureQueriesContext(connections["default"])
        self.replica = CaptureQueriesContext(connections["replica"])
        self.primary.__enter__()
        self.replica.__enter__()
        return self

    def __exit__(self, *exc):
        self.replica.__exit__(*exc)
        self.primary.__exit__(*exc)

    @property
    def counts(self) -> tuple[int, int]:
        return len(self.primary.captured_queries), len(self.replica.captured_queries)


@pytest.fixture
def posts():
    collection = make_collection(
        "posts", fields=[("title", "string", {"required": True})], supports=["search"], public=True
    )
    entry = make_entry(collection, {"title": "Hello"}, slug="hello", status="published")
    return collection, entry


def _client() -> ApiClient:
    _, raw = make_token(make_user(Role.EDITOR), ["content:read", "content:write"])
    client = ApiClient().as_token(raw)
    # The first use records last_used_at (a write, so that request reads from the primary after it): done here.
    assert client.get(POSTS).status_code == 200
    return client


def test_the_replica_alias_is_a_mirror_and_migrations_stay_on_the_primary():
    from django.db import router

    assert connections["replica"].settings_dict["NAME"] == connections["default"].settings_dict["NAME"]
    assert router.allow_migrate("default", "content") is True
    assert router.allow_migrate("replica", "content") is False


def test_an_anonymous_public_read_uses_the_replica(posts):
    _, entry = posts
    with Where() as where:
        response = ApiClient().get(f"{POSTS}/{entry.pk}")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["data"]["title"] == "Hello"
    primary, replica = where.counts
    assert primary == 0
    assert replica > 0


def test_an_authenticated_get_uses_the_replica(posts):
    _, entry = posts
    client = _client()
    with Where() as where:
        one = client.get(f"{POSTS}/{entry.pk}")
        listed = client.get(POSTS)
    assert one.status_code == 200
    assert [item["id"] for item in listed.json()["data"]["items"]] == [entry.pk]
    primary, replica = where.counts
    assert primary == 0
    assert replica >= 4  # the token and the entry, twice


def test_writes_and_the_same_clients_next_reads_use_the_primary(posts):
    _, entry = posts
    writer, other = _client(), _client()
    with Where() as where:
        created = writer.post(POSTS, {"data": {"title": "New"}, "status": "published"}, format="json")
    assert created.status_code == 201
    new_id = created.json()["data"]["item"]["id"]
    assert where.counts[0] > 0
    assert where.counts[1] == 0

    with Where() as where:
        patched = writer.patch(f"{POSTS}/{new_id}", {"data": {"title": "Newer"}}, format="json")
    assert patched.status_code == 200
    assert where.counts[1] == 0

    # The writer's next read is pinned to the primary, so it sees its write whatever the replica's lag.
    with Where() as where:
        again = writer.get(f"{POSTS}/{new_id}")
    assert again.status_code == 200
    assert again.json()["data"]["item"]["data"]["title"] == "Newer"
    primary, replica = where.counts
    assert primary > 0
    assert replica == 0

    # Another client was not pinned by it, and neither is an anonymous reader.
    with Where() as where:
        assert other.get(f"{POSTS}/{entry.pk}").status_code == 200
        assert ApiClient().get(f"{POSTS}/{entry.pk}").status_code == 200
    primary, replica = where.counts
    assert primary == 0
    assert replica > 0


def test_a_pin_lasts_cms_replica_pin_seconds(posts, settings):
    _, entry = posts
    settings.CMS_REPLICA_PIN_SECONDS = 0  # the middleware reads it when the client's handler is built
    client = _client()
    assert client.post(POSTS, {"data": {"title": "New"}}, format="json").status_code == 201
    with Where() as where:
        assert client.get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts == (0, where.counts[1])
    assert where.counts[1] > 0


def test_a_session_is_pinned_by_a_signed_cookie(posts):
    _, entry = posts
    user = make_user(Role.EDITOR)
    client = ApiClient()
    client.force_login(user)
    with Where() as where:
        assert client.get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts[0] == 0

    created = client.post(POSTS, {"data": {"title": "By session"}}, format="json")
    assert created.status_code == 201
    assert created.cookies[PIN_COOKIE]["max-age"] == 5
    with Where() as where:
        assert client.get(f"{POSTS}/{created.json()['data']['item']['id']}").status_code == 200
    assert where.counts[1] == 0

    # A forged cookie is ignored: the read goes to the replica.
    client.cookies[PIN_COOKIE] = "1"
    with Where() as where:
        assert client.get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts[0] == 0


def test_sign_in_and_health_read_from_the_primary():
    with Where() as where:
        assert ApiClient().get("/_cms/api/health").status_code == 200
        assert ApiClient().get("/_cms/api/setup/status").status_code == 200
    assert where.counts[1] == 0


def test_the_public_fast_path_reads_the_replica(posts):
    _, entry = posts
    first = ApiClient().get(f"{POSTS}/{entry.pk}")
    with Where() as where:
        status, _headers, body = wsgi_call(f"{POSTS}/{entry.pk}", HTTP_IF_NONE_MATCH=first["ETag"])
    assert (status, body) == ("304 Not Modified", b"")
    primary, replica = where.counts
    assert primary == 0
    assert replica > 0


def test_a_token_the_replica_refuses_is_looked_up_on_the_primary(posts):
    _, entry = posts
    with Where() as where:
        refused = ApiClient().as_token("ec_pat_" + "x" * 40).get(f"{POSTS}/{entry.pk}")
    assert refused.status_code == 401
    assert refused.json()["error"]["message"] == "Invalid token."
    # The same lookup on each: a token made a moment ago, not yet replicated, still works.
    token_reads = [
        [query for query in log.captured_queries if "accounts_apitoken" in query["sql"]]
        for log in (where.primary, where.replica)
    ]
    assert [len(reads) for reads in token_reads] == [1, 1]


def test_search_reads_the_replica(posts):
    _, entry = posts
    # The first search of a process reads the catalog (text search configurations, the index kind) once, on the
    # primary; the searches after it read only the replica.
    assert ApiClient().get("/_cms/api/search", {"q": "warm"}).status_code == 200
    with Where() as where:
        found = ApiClient().get("/_cms/api/search", {"q": "hello"})
    assert found.status_code == 200
    assert [hit["id"] for hit in found.json()["results"]] == [entry.pk]
    primary, replica = where.counts
    assert primary == 0
    assert replica > 0


def test_reads_go_to_the_primary_while_the_replica_cannot_connect(posts, monkeypatch, caplog):
    from django.db import OperationalError

    from apps.core import replicas

    _, entry = posts
    now = [1000.0]
    monkeypatch.setattr(replicas, "_clock", lambda: now[0])
    monkeypatch.setattr(replicas, "_down_until", 0.0)
    attempts = []

    def refuse():
        attempts.append(1)
        raise OperationalError('connection failed: connection to server at "127.0.0.1", port 5433 failed')

    with Where() as where:
        monkeypatch.setattr(connections["replica"], "ensure_connection", refuse)
        first = ApiClient().get(f"{POSTS}/{entry.pk}")
        second = ApiClient().get(f"{POSTS}/{entry.pk}")
        monkeypatch.delattr(connections["replica"], "ensure_connection")
    assert (first.status_code, second.status_code) == (200, 200)
    assert where.counts[1] == 0
    assert where.counts[0] > 0
    # One attempt and one warning per interval, not one per request.
    assert len(attempts) == 1
    assert [record.getMessage() for record in caplog.records if record.name == "cms.replicas"] == [
        "read replica unreachable, reads go to the primary for 10.0 s: connection failed: connection to server at "
        '"127.0.0.1", port 5433 failed'
    ]

    monkeypatch.undo()
    now[0] += 11
    with Where() as where:
        assert ApiClient().get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts[0] == 0


def test_a_token_reads_the_primary_while_the_pin_store_is_out(posts, monkeypatch):
    from django.core.cache import caches

    _, entry = posts
    client = _client()
    # The shared cache's breaker is open (Redis unreachable): whether this client just wrote cannot be known.
    monkeypatch.setattr(caches["default"], "available", lambda: False, raising=False)
    with Where() as where:
        assert client.get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts[1] == 0
    assert where.counts[0] > 0
    # An anonymous reader is never pinned: the replica still serves it.
    with Where() as where:
        assert ApiClient().get(f"{POSTS}/{entry.pk}").status_code == 200
    assert where.counts[0] == 0


def _replica_readiness() -> dict:
    # Other checks (the task workers' heartbeats) may fail here: the checks are then the 503's error details.
    body = ApiClient().get("/_cms/api/health/ready").json()
    return (body["data"] if body["success"] else body["error"]["details"])["checks"]["replica"]


def test_readiness_names_the_replica_without_failing_on_it(monkeypatch):
    from django.db import OperationalError

    assert _replica_readiness() == {"ok": True}

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connections["replica"], "cursor", refuse)
    assert _replica_readiness() == {"ok": True, "detail": "Not reachable: reads go to the primary."}
