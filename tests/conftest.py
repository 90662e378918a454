"""Shared fixtures: the validating API client, users by role, tokens by scope, delivered mail."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.core.cache import cache
from hypothesis import settings
from rest_framework.test import APIClient

from apps.accounts import mail
from apps.accounts.models import Role
from apps.plugins import registry
from tests.factories import make_collection, make_token, make_user
from tests.openapi_check import check_response
from tests.testdata import TESTDATA

# No timing assertions, Hypothesis's per-example deadline included: on a loaded machine it fails correct code.
settings.register_profile("cms", deadline=None)
settings.load_profile("cms")


def pytest_configure(config):
    if not (TESTDATA / "SOURCES.md").is_file():
        raise pytest.UsageError(
            f"The shared test data is not at {TESTDATA}: set CMS_TESTDATA_DIR to its testdata directory."
        )


def pytest_collection_modifyitems(items):
    # Every test may use the database; tests that need real commits ask for `transactional_db` themselves.
    for item in items:
        if item.get_closest_marker("django_db") is None and "transactional_db" not in item.fixturenames:
            item.add_marker(pytest.mark.django_db)


def pytest_runtest_setup(item):
    if item.get_closest_marker("requires_postgres"):
        from django.db import connection

        if connection.vendor != "postgresql":
            pytest.skip("needs PostgreSQL; runs in the PostgreSQL pass of `make test`")
    if item.get_closest_marker("requires_sqlite"):
        from django.db import connection

        if connection.vendor != "sqlite":
            pytest.skip("needs SQLite; runs in the SQLite pass of `make test`")


class ApiClient(APIClient):
    """DRF's test client, checking every API answer against the OpenAPI document."""

    def request(self, **kwargs):
        response = super().request(**kwargs)
        check_response(kwargs["REQUEST_METHOD"], kwargs["PATH_INFO"], response)
        return response

    def as_token(self, raw: str | None) -> ApiClient:
        self.credentials(**({"HTTP_AUTHORIZATION": f"Bearer {raw}"} if raw else {}))
        return self


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    # Rate-limit counters live in the cache; each test starts with none.
    cache.clear()


@pytest.fixture(autouse=True)
def _fresh_plugin_state():
    # Enabled flags are cached per process between requests; a test starts from what its database says.
    registry.invalidate()
    yield
    registry.invalidate()


@pytest.fixture(autouse=True)
def media_root(tmp_path, settings):
    """Each test stores uploads in its own empty directory, never in var/media."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = str(root)
    return root


@pytest.fixture
def api() -> ApiClient:
    return ApiClient()


@pytest.fixture
def client_for():
    """``client_for(role=…, scopes=…)``: an API client authenticated as a new user with that role and token."""

    def build(role: int = Role.ADMIN, scopes=("admin",)) -> ApiClient:
        user = make_user(role)
        _, raw = make_token(user, scopes)
        client = ApiClient().as_token(raw)
        client.user = user
        return client

    return build


@pytest.fixture
def admin_user():
    return make_user(Role.ADMIN)


@pytest.fixture
def admin_api(admin_user) -> ApiClient:
    _, raw = make_token(admin_user, ["admin"])
    client = ApiClient().as_token(raw)
    client.user = admin_user
    return client


@pytest.fixture
def delivered(django_capture_on_commit_callbacks, mailoutbox):
    """``with delivered() as outbox:`` runs the block, commits its mail and waits until it has been delivered."""

    @contextmanager
    def capture():
        with django_capture_on_commit_callbacks(execute=True):
            yield mailoutbox
        mail.wait()

    return capture


@pytest.fixture
def posts_collection():
    """``posts``: drafts, revisions and scheduling, with a required title, a body and a view count."""
    return make_collection(
        "posts",
        label="Posts",
        label_singular="Post",
        supports=["drafts", "revisions", "scheduling"],
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "body", "type": "text"},
            {"slug": "views", "type": "integer"},
        ],
    )


@pytest.fixture
def metrics_on(settings):
    """Metrics enabled (tests/metrics.py's token) for every client whose first request comes after this fixture."""
    from tests.metrics import TOKEN

    settings.CMS_METRICS_TOKEN = TOKEN
    return TOKEN
