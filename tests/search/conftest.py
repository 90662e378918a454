"""A searchable ``articles`` collection, entries in it, and helpers to read search answers and the index itself."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.search.models import SearchDocument
from tests.factories import make_collection, make_entry

SEARCH = "/_cms/api/search"
SUGGEST = "/_cms/api/search/suggest"
REBUILD = "/_cms/api/search/rebuild"
STATS = "/_cms/api/search/stats"
SEARCH_SUPPORTS = ["drafts", "revisions", "scheduling", "search"]


def pt(*paragraphs: str) -> list[dict]:
    """Portable Text with one paragraph per string."""
    return [
        {"_type": "block", "style": "normal", "children": [{"_type": "span", "text": text}]}
        for text in paragraphs
    ]


def make_articles(slug: str = "articles", supports=SEARCH_SUPPORTS, **options):
    """Title (string, always indexed), summary (text), body (Portable Text) and category (select) searchable; a note
    (string) and views (integer) that are not."""
    return make_collection(
        slug,
        supports=supports,
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "summary", "type": "text", "searchable": True},
            {"slug": "body", "type": "portableText", "searchable": True},
            {
                "slug": "category",
                "type": "select",
                "searchable": True,
                "validation": {"options": ["news", "sport"]},
            },
            {"slug": "note", "type": "string"},
            {"slug": "views", "type": "integer"},
        ],
        **options,
    )


@pytest.fixture
def articles():
    return make_articles()


def article(collection, title: str, *paragraphs: str, status: str = "published", **data):
    return make_entry(collection, {"title": title, "body": pt(*paragraphs), **data}, status=status)


@pytest.fixture
def reader(client_for):
    """A public front end: subscriber role, content:read."""
    return client_for(role=Role.SUBSCRIBER, scopes=["content:read"])


@pytest.fixture
def editor(client_for):
    return client_for(role=Role.EDITOR, scopes=["content:read", "content:write"])


def search(client, q: str, **params):
    response = client.get(SEARCH, {"q": q, **params})
    assert response.status_code == 200, response.content
    return response.json()


def titles(client, q: str, **params) -> list[str]:
    return [hit["title"] for hit in search(client, q, **params)["results"]]


def ids(client, q: str, **params) -> list[str]:
    return [hit["id"] for hit in search(client, q, **params)["results"]]


def error_of(response) -> dict:
    body = response.json()
    assert body["success"] is False, body
    return body["error"]


def index_state() -> list[tuple]:
    """Every document in the index, as comparable tuples (ids are left out: a rebuild may renumber documents)."""
    return sorted(
        SearchDocument.objects.values_list(
            "entry_id",
            "collection_id",
            "locale",
            "published",
            "working",
            "slug",
            "title",
            "body",
            "signature",
        )
    )
