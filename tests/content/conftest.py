"""Entries in the ``posts`` collection, in the states the lifecycle tests start from, and the wire form of an entry
built from its database row (so a test can compare whole answers and state only the values it is about)."""

from __future__ import annotations

import pytest

from apps.content.models import Entry, EntryByline
from apps.core.timefmt import iso
from tests.factories import make_entry

POSTS = "/_cms/api/content/posts"


def entry_url(entry_or_id, suffix: str = "") -> str:
    entry_id = entry_or_id if isinstance(entry_or_id, str) else entry_or_id.pk
    return f"{POSTS}/{entry_id}{suffix}"


def item_body(entry_or_id, *, drafts: bool = True, meta: bool = False, **overrides) -> dict:
    """The API's entry item for the stored row: the working copy for readers with drafts access, else the published
    version; ``liveData`` only when it differs; ``meta`` as a single-entry read shows it to readers with drafts access.
    ``overrides`` are the values the test asserts explicitly."""
    entry = Entry.objects.select_related("collection").get(
        pk=entry_or_id if isinstance(entry_or_id, str) else entry_or_id.pk
    )
    credits = EntryByline.objects.filter(entry=entry).select_related("byline").order_by("sort_order")
    item = {
        "id": entry.pk,
        "type": entry.collection.slug,
        "slug": entry.slug,
        "status": entry.status,
        "locale": entry.locale,
        "translationGroup": entry.translation_group,
        "data": entry.data if drafts else entry.live_data,
        "authorId": entry.author_id,
        "primaryBylineId": entry.primary_byline_id,
        "bylines": [
            {
                "bylineId": credit.byline_id,
                "displayName": credit.byline.display_name,
                "roleLabel": credit.role_label,
                "userId": credit.byline.user_id,
                "isGuest": credit.byline.is_guest,
            }
            for credit in credits
        ],
        "createdAt": iso(entry.created_at),
        "updatedAt": iso(entry.updated_at),
        "publishedAt": iso(entry.published_at),
        "scheduledAt": iso(entry.scheduled_at),
        "deletedAt": iso(entry.deleted_at),
        "version": entry.version,
    }
    if drafts and entry.live_data is not None and entry.live_data != entry.data:
        item["liveData"] = entry.live_data
    if meta:
        item["meta"] = entry.meta
    item.update(overrides)
    return item


def written(entry_or_id, **overrides) -> dict:
    """The whole answer of a write: ``{success, data: {item, _rev}}``."""
    entry_id = entry_or_id if isinstance(entry_or_id, str) else entry_or_id.pk
    return {
        "success": True,
        "data": {"item": item_body(entry_id, **overrides), "_rev": Entry.objects.get(pk=entry_id).rev},
    }


def error_of(response) -> dict:
    body = response.json()
    assert body["success"] is False, body
    return body["error"]


@pytest.fixture
def draft_entry(posts_collection, admin_user):
    return make_entry(posts_collection, {"title": "Hello world", "views": 1}, author=admin_user)


@pytest.fixture
def published_entry(posts_collection, admin_user):
    return make_entry(
        posts_collection, {"title": "Live post", "views": 10}, author=admin_user, status="published"
    )
