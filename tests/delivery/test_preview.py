"""Draft preview: a token minted over REST or MCP reads the working copy of its one entry (and locale) through the
content route without any other credential, ``private, no-store``, until it expires or the secret is saved anew; it
is useless for other entries, for lists and for writes."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from apps.accounts.models import Role
from apps.core.timefmt import iso, now
from apps.delivery import preview as preview_module
from tests.delivery.conftest import published
from tests.factories import make_collection, make_entry

pytestmark = pytest.mark.django_db


def mint(client, entry, collection="blog"):
    response = client.post(f"/_cms/api/content/{collection}/{entry.pk}/preview")
    assert response.status_code == 201, response.content
    return response.json()["data"]


@pytest.fixture
def clock(monkeypatch):
    """The preview module's clock, moved forward by tests instead of sleeping."""
    offset = [timedelta(0)]
    monkeypatch.setattr(preview_module, "now", lambda: now() + offset[0])
    return offset


@pytest.fixture
def edited(admin_api, blog):
    """A published entry with an unpublished change in its working copy."""
    entry = published(blog, "Live title", "hello")
    admin_api.patch(f"/_cms/api/content/blog/{entry.pk}", {"data": {"title": "Draft title"}}, format="json")
    return entry


def test_a_minted_token_reads_the_working_copy_with_no_other_credential(admin_api, api, edited, clock):
    before = now()
    answer = mint(admin_api, edited)
    assert set(answer) == {"token", "url", "expiresAt"}
    url = urlsplit(answer["url"])
    assert (url.scheme, url.netloc, url.path) == ("https", "site.example", "/api/preview")
    assert parse_qs(url.query) == {"token": [answer["token"]], "path": ["/blog/hello"]}
    # URL-encoded in the address (the token may hold characters such as ':').
    assert "token=" + answer["token"].replace(":", "%3A") in answer["url"]
    expires = answer["expiresAt"]
    assert (
        iso(before + timedelta(hours=1) - timedelta(seconds=1)) <= expires <= iso(now() + timedelta(hours=1))
    )

    response = api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": answer["token"]})
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    item = response.json()["data"]["item"]
    assert (item["data"], item["liveData"], item["url"]) == (
        {"title": "Draft title"},
        {"title": "Live title"},
        "/blog/hello",
    )
    # By slug, and with the header instead of the query parameter.
    by_slug = api.get("/_cms/api/content/blog/hello", HTTP_X_CMS_PREVIEW=answer["token"])
    assert by_slug.status_code == 200
    assert by_slug.json()["data"]["item"]["data"] == {"title": "Draft title"}
    # Without the token the same request is anonymous.
    assert api.get(f"/_cms/api/content/blog/{edited.pk}").status_code == 401


def test_a_draft_that_was_never_published_is_previewed_too(admin_api, api, blog):
    draft = make_entry(blog, {"title": "Not yet"}, slug="soon")
    token = mint(admin_api, draft)["token"]
    item = api.get(f"/_cms/api/content/blog/{draft.pk}", {"preview": token}).json()["data"]["item"]
    assert (item["status"], item["data"]) == ("draft", {"title": "Not yet"})


def test_an_expired_token_is_refused_with_401(admin_api, api, edited, clock):
    token = mint(admin_api, edited)["token"]
    clock[0] = timedelta(minutes=59)
    assert api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": token}).status_code == 200
    clock[0] = timedelta(hours=1, seconds=1)
    response = api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": token})
    assert response.status_code == 401
    assert (
        response.json()["error"]["message"]
        == "The preview token has expired; mint a new one with POST …/preview."
    )


def test_the_expiry_is_a_setting(admin_api, edited, settings):
    settings.CMS_PREVIEW_TOKEN_SECONDS = 60
    before = now()
    expires = mint(admin_api, edited)["expiresAt"]
    assert expires <= iso(now() + timedelta(seconds=60)) and expires >= iso(before + timedelta(seconds=59))


def test_a_token_is_useless_for_another_entry_for_lists_and_for_writes(admin_api, api, blog, edited):
    other = published(blog, "Other", "other")
    token = mint(admin_api, edited)["token"]
    wrong = api.get(f"/_cms/api/content/blog/{other.pk}", {"preview": token})
    assert wrong.status_code == 403
    assert wrong.json()["error"] == {
        "code": "FORBIDDEN",
        "message": "This preview token is for another entry: a token shows only the entry (and locale) it was "
        "minted for.",
        "details": {"preview": "Issued for another entry."},
    }
    assert api.get("/_cms/api/content/blog/other", HTTP_X_CMS_PREVIEW=token).status_code == 403
    assert api.get("/_cms/api/content/blog", HTTP_X_CMS_PREVIEW=token).status_code == 401
    assert api.get("/_cms/api/content/blog/trash", HTTP_X_CMS_PREVIEW=token).status_code == 401
    write = api.patch(
        f"/_cms/api/content/blog/{edited.pk}?preview={token}", {"data": {"title": "Hacked"}}, format="json"
    )
    assert write.status_code == 401
    assert (
        api.post(f"/_cms/api/content/blog/{edited.pk}/publish", HTTP_X_CMS_PREVIEW=token).status_code == 401
    )
    assert (
        api.get(f"/_cms/api/content/blog/{edited.pk}/revisions", HTTP_X_CMS_PREVIEW=token).status_code == 401
    )
    # The same entry in another collection's address is not found there.
    make_collection("pages", fields=[("title", "string")])
    assert api.get(f"/_cms/api/content/pages/{edited.pk}", {"preview": token}).status_code == 404


def test_a_token_is_scoped_to_its_locale(admin_api, api, blog, settings):
    settings.CMS_LOCALES = ["en", "de"]
    english = published(blog, "Hello", "hello")
    german = make_entry(blog, {"title": "Hallo"}, slug="hello", locale="de", translation_of=english.pk)
    token = mint(admin_api, english)["token"]
    assert api.get("/_cms/api/content/blog/hello", {"preview": token}).status_code == 200
    assert api.get("/_cms/api/content/blog/hello", {"preview": token, "locale": "de"}).status_code == 403
    german_token = mint(admin_api, german)["token"]
    item = api.get("/_cms/api/content/blog/hello", {"preview": german_token}).json()["data"]["item"]
    assert (item["id"], item["url"]) == (german.pk, "/blog/hello")


def test_saving_the_secret_anew_revokes_every_token(admin_api, api, edited, client_for):
    token = mint(admin_api, edited)["token"]
    editor = client_for(Role.EDITOR, ["content:read", "content:write"])
    assert editor.post("/_cms/api/preview-secret").status_code == 403
    rotated = admin_api.post("/_cms/api/preview-secret")
    assert rotated.status_code == 200
    assert set(rotated.json()["data"]) == {"rotatedAt"}
    response = api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": token})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"
    fresh = mint(admin_api, edited)["token"]
    assert api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": fresh}).status_code == 200


def test_a_forged_or_altered_token_is_refused(admin_api, api, edited):
    token = mint(admin_api, edited)["token"]
    for bad in ("nonsense", token[:-2] + ("AA" if not token.endswith("AA") else "BB")):
        response = api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": bad})
        assert response.status_code == 401


def test_minting_needs_the_right_to_read_drafts(client_for, api, edited):
    assert api.post(f"/_cms/api/content/blog/{edited.pk}/preview").status_code == 401
    subscriber = client_for(Role.SUBSCRIBER, ["content:read"])
    assert subscriber.post(f"/_cms/api/content/blog/{edited.pk}/preview").status_code == 403
    contributor = client_for(Role.CONTRIBUTOR, ["content:read"])
    assert contributor.post(f"/_cms/api/content/blog/{edited.pk}/preview").status_code == 201
    assert contributor.post("/_cms/api/content/blog/nothing/preview").status_code == 404


def test_a_collection_without_preview_url_still_mints_a_token(admin_api, api):
    pages = make_collection("pages", fields=[("title", "string")])
    page = make_entry(pages, {"title": "About"}, slug="about")
    answer = mint(admin_api, page, collection="pages")
    assert answer["url"] is None
    assert api.get("/_cms/api/content/pages/about", {"preview": answer["token"]}).status_code == 200


def test_content_preview_tool_mints_a_working_token(admin_mcp, api, edited, mcp_for):
    answer = admin_mcp.ok("content_preview", {"collection": "blog", "id": "hello"})
    assert answer["url"].startswith("https://site.example/api/preview?token=")
    item = api.get(f"/_cms/api/content/blog/{edited.pk}", {"preview": answer["token"]}).json()["data"]["item"]
    assert item["data"] == {"title": "Draft title"}
    subscriber = mcp_for(Role.SUBSCRIBER, ["content:read"])
    error = subscriber.refused("content_preview", {"collection": "blog", "id": "hello"})
    assert error["data"] == {"requiredRole": Role.CONTRIBUTOR}
