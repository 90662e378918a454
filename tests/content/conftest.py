"""Entries in the ``posts`` collection, in the states the lifecycle tests start from."""

from __future__ import annotations

import pytest

from tests.factories import make_entry

POSTS = "/_cms/api/content/posts"


def entry_url(entry_or_id, suffix: str = "") -> str:
    entry_id = entry_or_id if isinstance(entry_or_id, str) else entry_or_id.pk
    return f"{POSTS}/{entry_id}{suffix}"


@pytest.fixture
def draft_entry(posts_collection, admin_user):
    return make_entry(posts_collection, {"title": "Hello world", "views": 1}, author=admin_user)


@pytest.fixture
def published_entry(posts_collection, admin_user):
    return make_entry(
        posts_collection, {"title": "Live post", "views": 10}, author=admin_user, status="published"
    )
