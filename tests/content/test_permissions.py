"""Who may do what with schema and content (SPEC §5, docs/decisions.md): the token's scopes and the user's role both
apply. Scope matrix with tokens; role matrix with browser sessions (which carry every scope, so only the role
decides); own entries versus other people's."""

from __future__ import annotations

from datetime import timedelta

import pytest

from apps.accounts.models import Role
from apps.content.models import Entry
from apps.core.timefmt import iso, now
from tests.conftest import ApiClient
from tests.content.conftest import POSTS, entry_url, error_of
from tests.factories import make_entry, make_user

COLLECTIONS = "/_cms/api/schema/collections"


def scope_refused(response, scope: str) -> None:
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": f"Insufficient scope: requires {scope}.",
        "details": {"requiredScope": scope},
    }


def role_refused(response, needed: Role, actual: Role) -> None:
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": f"This requires the role {needed.label} ({int(needed)}) or higher; you are {actual.label} ({int(actual)}).",
        "details": {"requiredRole": int(needed)},
    }


def others_refused(response, needed: Role) -> None:
    assert response.status_code == 403
    assert error_of(response) == {
        "code": "FORBIDDEN",
        "message": f"Only {needed.label} ({int(needed)}) or higher may do this to items that belong to someone else.",
        "details": {"requiredRole": int(needed)},
    }


def session_for(role: Role) -> ApiClient:
    client = ApiClient()
    client.user = make_user(role)
    client.force_login(client.user)
    return client


WRITES = [
    ("post", "", {"data": {"title": "x"}}),
    ("patch", "/{id}", {"data": {"views": 2}}),
    ("put", "/{id}", {"data": {"views": 2}}),
    ("delete", "/{id}", None),
    ("post", "/{id}/publish", {}),
    ("post", "/{id}/unpublish", {}),
    ("post", "/{id}/schedule", {"scheduledAt": "2099-01-01T00:00:00Z"}),
    ("delete", "/{id}/schedule", None),
    ("post", "/{id}/discard-draft", {}),
    ("post", "/{id}/restore", {}),
    ("delete", "/{id}/permanent", None),
    ("post", "/{id}/duplicate", {}),
]


def call(client, method: str, path: str, body):
    send = getattr(client, method)
    return send(path, body, format="json") if body is not None else send(path)


# --- scopes ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "suffix", "body"), WRITES)
def test_a_content_read_token_cannot_write(client_for, published_entry, method, suffix, body):
    client = client_for(role=Role.ADMIN, scopes=["content:read"])
    response = call(client, method, POSTS + suffix.format(id=published_entry.pk), body)
    scope_refused(response, "content:write")
    stored = Entry.objects.get(pk=published_entry.pk)
    assert (stored.version, stored.status, stored.deleted_at) == (1, "published", None)
    assert Entry.objects.count() == 1


def test_a_content_read_token_cannot_restore_revisions(client_for, published_entry):
    client = client_for(role=Role.ADMIN, scopes=["content:read"])
    revision = published_entry.revisions.get()
    scope_refused(
        client.post(f"/_cms/api/revisions/{revision.pk}/restore", {}, format="json"), "content:write"
    )


@pytest.mark.parametrize(
    "path", ["", "/{id}", "/{id}/compare", "/{id}/revisions", "/{id}/translations", "/trash"]
)
def test_a_content_write_token_cannot_read(client_for, published_entry, path):
    client = client_for(role=Role.ADMIN, scopes=["content:write"])
    response = client.get(POSTS + path.format(id=published_entry.pk))
    scope_refused(response, "content:read")


def test_a_content_write_token_writes(client_for, posts_collection):
    client = client_for(role=Role.AUTHOR, scopes=["content:write"])
    assert (
        client.post(POSTS, {"data": {"title": "x"}, "status": "published"}, format="json").status_code == 201
    )


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", COLLECTIONS, {"slug": "pages", "label": "Pages"}),
        ("patch", f"{COLLECTIONS}/posts", {"label": "X"}),
        ("put", f"{COLLECTIONS}/posts", {"label": "X"}),
        ("delete", f"{COLLECTIONS}/posts", None),
        ("post", f"{COLLECTIONS}/posts/fields", {"slug": "extra", "label": "Extra", "type": "string"}),
        ("patch", f"{COLLECTIONS}/posts/fields/title", {"label": "X"}),
        ("delete", f"{COLLECTIONS}/posts/fields/title", None),
        ("post", f"{COLLECTIONS}/posts/fields/reorder", {"fieldSlugs": ["views"]}),
    ],
)
def test_a_schema_read_token_cannot_change_the_schema(client_for, posts_collection, method, path, body):
    client = client_for(role=Role.ADMIN, scopes=["schema:read"])
    scope_refused(call(client, method, path, body), "schema:write")
    assert list(posts_collection.fields.values_list("slug", "label")) == [
        ("title", "Title"),
        ("body", "Body"),
        ("views", "Views"),
    ]


@pytest.mark.parametrize(
    "path",
    [
        COLLECTIONS,
        f"{COLLECTIONS}/posts",
        f"{COLLECTIONS}/posts/fields",
        f"{COLLECTIONS}/posts/fields/title",
        "/_cms/api/schema",
    ],
)
def test_schema_reads_need_schema_read(client_for, posts_collection, path):
    scope_refused(client_for(role=Role.ADMIN, scopes=["content:read"]).get(path), "schema:read")
    assert client_for(role=Role.EDITOR, scopes=["schema:read"]).get(path).status_code == 200


def test_the_admin_scope_grants_everything(client_for, posts_collection):
    client = client_for(role=Role.ADMIN, scopes=["admin"])
    assert client.post(POSTS, {"data": {"title": "x"}}, format="json").status_code == 201
    assert (
        client.post(
            f"{COLLECTIONS}/posts/fields", {"slug": "x", "label": "X", "type": "json"}, format="json"
        ).status_code
        == 201
    )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", POSTS),
        ("post", POSTS),
        ("get", COLLECTIONS),
        ("get", "/_cms/api/schema"),
        ("get", "/_cms/api/bylines"),
    ],
)
def test_anonymous_requests_are_401(api, posts_collection, method, path):
    response = call(api, method, path, {"data": {}} if method == "post" else None)
    assert response.status_code == 401
    assert error_of(response) == {
        "code": "UNAUTHORIZED",
        "message": "Authentication required: send 'Authorization: Bearer <token>'.",
        "details": {},
    }


def test_a_demoted_users_token_loses_its_power(client_for, posts_collection):
    client = client_for(role=Role.AUTHOR, scopes=["content:read", "content:write"])
    client.user.role = Role.SUBSCRIBER
    client.user.save()
    role_refused(
        client.post(POSTS, {"data": {"title": "x"}}, format="json"), Role.CONTRIBUTOR, Role.SUBSCRIBER
    )


# --- roles ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def someone_elses(posts_collection):
    """A draft and a published entry owned by another user (an author)."""
    owner = make_user(Role.AUTHOR)
    draft = make_entry(posts_collection, {"title": "Their draft"}, author=owner)
    published = make_entry(posts_collection, {"title": "Their post"}, author=owner, status="published")
    return draft, published


def test_a_subscriber_cannot_create(posts_collection):
    client = session_for(Role.SUBSCRIBER)
    role_refused(
        client.post(POSTS, {"data": {"title": "x"}}, format="json"), Role.CONTRIBUTOR, Role.SUBSCRIBER
    )
    assert not Entry.objects.exists()


def test_a_contributor_creates_drafts_but_cannot_publish(posts_collection):
    client = session_for(Role.CONTRIBUTOR)
    response = client.post(POSTS, {"data": {"title": "Mine"}}, format="json")
    assert response.status_code == 201
    assert response.json()["data"]["item"]["authorId"] == client.user.pk
    mine = response.json()["data"]["item"]["id"]
    role_refused(
        client.post(POSTS, {"data": {"title": "x"}, "status": "published"}, format="json"),
        Role.AUTHOR,
        Role.CONTRIBUTOR,
    )
    role_refused(client.post(entry_url(mine, "/publish"), {}, format="json"), Role.AUTHOR, Role.CONTRIBUTOR)
    role_refused(
        client.patch(entry_url(mine), {"status": "published"}, format="json"), Role.AUTHOR, Role.CONTRIBUTOR
    )
    when = iso(now() + timedelta(days=1))
    role_refused(
        client.post(entry_url(mine, "/schedule"), {"scheduledAt": when}, format="json"),
        Role.AUTHOR,
        Role.CONTRIBUTOR,
    )
    # Their own draft they edit and trash.
    assert client.patch(entry_url(mine), {"data": {"views": 3}}, format="json").status_code == 200
    assert client.delete(entry_url(mine)).status_code == 200
    assert client.post(entry_url(mine, "/restore"), {}, format="json").status_code == 200
    assert Entry.objects.get(pk=mine).status == "draft"


def test_a_contributor_cannot_edit_other_peoples_entries(someone_elses):
    draft, published = someone_elses
    client = session_for(Role.CONTRIBUTOR)
    others_refused(client.patch(entry_url(draft), {"data": {"views": 3}}, format="json"), Role.EDITOR)
    others_refused(client.put(entry_url(draft), {"data": {"views": 3}}, format="json"), Role.EDITOR)
    others_refused(client.delete(entry_url(draft)), Role.EDITOR)
    others_refused(client.post(entry_url(published, "/discard-draft"), {}, format="json"), Role.EDITOR)
    revision = draft.revisions.get()
    others_refused(client.post(f"/_cms/api/revisions/{revision.pk}/restore", {}, format="json"), Role.EDITOR)
    # Reading them and copying them is fine.
    assert client.get(entry_url(draft)).status_code == 200
    copy = client.post(entry_url(draft, "/duplicate"), {}, format="json")
    assert copy.status_code == 201 and copy.json()["data"]["item"]["authorId"] == client.user.pk
    assert Entry.objects.get(pk=draft.pk).version == 1


def test_an_author_publishes_their_own_entries_but_not_others(someone_elses):
    draft, published = someone_elses
    client = session_for(Role.AUTHOR)
    mine = client.post(POSTS, {"data": {"title": "Mine"}}, format="json").json()["data"]["item"]["id"]
    assert client.post(entry_url(mine, "/publish"), {}, format="json").status_code == 200
    assert client.post(entry_url(mine, "/unpublish"), {}, format="json").status_code == 200
    assert client.patch(entry_url(mine), {"status": "published"}, format="json").status_code == 200
    when = iso(now() + timedelta(days=1))
    assert client.post(entry_url(mine, "/schedule"), {"scheduledAt": when}, format="json").status_code == 200
    assert client.delete(entry_url(mine, "/schedule")).status_code == 200

    others_refused(client.post(entry_url(draft, "/publish"), {}, format="json"), Role.EDITOR)
    others_refused(client.post(entry_url(published, "/unpublish"), {}, format="json"), Role.EDITOR)
    others_refused(
        client.post(entry_url(draft, "/schedule"), {"scheduledAt": when}, format="json"), Role.EDITOR
    )
    others_refused(client.patch(entry_url(draft), {"data": {"views": 1}}, format="json"), Role.EDITOR)
    assert (Entry.objects.get(pk=draft.pk).status, Entry.objects.get(pk=published.pk).status) == (
        "draft",
        "published",
    )


def test_an_editor_works_on_everyones_entries(someone_elses):
    draft, published = someone_elses
    client = session_for(Role.EDITOR)
    assert client.patch(entry_url(draft), {"data": {"views": 3}}, format="json").status_code == 200
    assert client.post(entry_url(draft, "/publish"), {}, format="json").status_code == 200
    assert client.post(entry_url(published, "/unpublish"), {}, format="json").status_code == 200
    assert client.delete(entry_url(published)).status_code == 200
    assert client.post(entry_url(published, "/restore"), {}, format="json").status_code == 200
    # Permanent deletion is for admins only.
    assert client.delete(entry_url(draft)).status_code == 200
    role_refused(client.delete(entry_url(draft, "/permanent")), Role.ADMIN, Role.EDITOR)
    assert session_for(Role.ADMIN).delete(entry_url(draft, "/permanent")).status_code == 200
    assert not Entry.objects.filter(pk=draft.pk).exists()


@pytest.mark.parametrize(
    ("role", "read", "write"),
    [
        (Role.SUBSCRIBER, 403, 403),
        (Role.CONTRIBUTOR, 403, 403),
        (Role.AUTHOR, 403, 403),
        (Role.EDITOR, 200, 403),
        (Role.ADMIN, 200, 201),
    ],
)
def test_schema_read_needs_an_editor_and_schema_write_an_admin(posts_collection, role, read, write):
    client = session_for(role)
    response = client.get(f"{COLLECTIONS}/posts")
    assert response.status_code == read
    if read == 403:
        role_refused(response, Role.EDITOR, role)
    response = client.post(
        f"{COLLECTIONS}/posts/fields", {"slug": "extra", "label": "Extra", "type": "string"}, format="json"
    )
    assert response.status_code == write
    if write == 403:
        role_refused(response, Role.ADMIN, role)
