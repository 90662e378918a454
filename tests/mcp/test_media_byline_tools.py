"""Media uploads and bylines over the tool server (issue 23): each tool's success with the answer REST gives, each
failure class as a ``[CODE]`` tool failure with its exact body, and scope and role refusals. ``media_upload`` takes
base64 bytes or a URL fetched through the safe HTTP client (a local server, allowed by the test-only allow list)."""

from __future__ import annotations

import base64

import jsonschema
import pytest
from django.core.files.base import ContentFile

from apps.accounts.models import Role
from apps.content.models import Byline
from apps.mcp import registry
from apps.media import storage
from apps.media.models import MediaItem
from tests.factories import (
    PDF_BYTES,
    make_byline,
    make_collection,
    make_entry,
    make_token,
    make_user,
    png_bytes,
)
from tests.importer.conftest import web  # noqa: F401  (the local HTTP server fixture)
from tests.mcp.wire import MODERN, McpClient

PNG = png_bytes(size=(20, 10))
ALLOWED = "image/*, video/*, audio/*, application/pdf"


def demoted(role: int, scopes: list[str]) -> McpClient:
    """A client whose token was issued with ``scopes`` to an admin who has since been given ``role``."""
    user = make_user(Role.ADMIN)
    _, raw = make_token(user, scopes)
    user.role = role
    user.save(update_fields=["role"])
    return McpClient(raw, MODERN)


def conforms(tool_name: str, value: dict) -> dict:
    """``value``, checked against the tool's declared outputSchema."""
    jsonschema.validate(value, registry.get(tool_name).output_schema)
    return value


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


def rest_media(api, media_id: str) -> dict:
    return api.get(f"/_cms/api/media/{media_id}").json()["data"]


def failure(code: str, message: str, details: dict) -> dict:
    return {"code": code, "message": message, "details": details}


# --- media_upload ----------------------------------------------------------------------------------------------------


def test_upload_base64_answers_the_item_as_rest_and_deduplicates(admin_mcp, admin_api, media_root):
    uploaded = conforms(
        "media_upload",
        admin_mcp.ok(
            "media_upload",
            {"data": b64(PNG), "filename": "Sea.png", "alt": "The sea", "mimeType": "image/png"},
        ),
    )
    assert uploaded == {**rest_media(admin_api, uploaded["id"]), "deduplicated": False}
    assert (uploaded["filename"], uploaded["mimeType"], uploaded["size"]) == (
        "Sea.png",
        "image/png",
        len(PNG),
    )
    assert (uploaded["width"], uploaded["height"], uploaded["alt"]) == (20, 10, "The sea")
    assert uploaded["authorId"] == admin_mcp.user.pk
    stored = [path for path in media_root.rglob("*") if path.is_file()]
    assert [path.read_bytes() for path in stored] == [PNG]
    # The same bytes again (as a data: URL, wrapped over lines): the existing item, nothing stored.
    wrapped = "data:image/png;base64," + "\n".join(b64(PNG)[i : i + 40] for i in range(0, len(b64(PNG)), 40))
    again = admin_mcp.ok("media_upload", {"data": wrapped, "filename": "copy.png"})
    assert again == {**uploaded, "deduplicated": True}
    assert MediaItem.objects.count() == 1
    assert len([path for path in media_root.rglob("*") if path.is_file()]) == 1


def test_upload_from_a_url_uses_the_path_as_filename_and_deduplicates(admin_mcp, admin_api, web):  # noqa: F811
    web.routes["/files/harbour.png"] = (200, PNG, {"Content-Type": "image/png"})
    web.routes["/files/copy"] = (200, PNG, {"Content-Type": "application/octet-stream"})
    fetched = admin_mcp.ok("media_upload", {"url": f"{web.base}/files/harbour.png", "caption": "Harbour"})
    assert fetched == {**rest_media(admin_api, fetched["id"]), "deduplicated": False}
    assert (fetched["filename"], fetched["mimeType"], fetched["caption"]) == (
        "harbour.png",
        "image/png",
        "Harbour",
    )
    # The type comes from the bytes, whatever the server said; the same bytes are the same item.
    copy = admin_mcp.ok("media_upload", {"url": f"{web.base}/files/copy", "filename": "other.png"})
    assert copy == {**fetched, "deduplicated": True}
    assert web.requests == ["/files/harbour.png", "/files/copy"]


@pytest.mark.parametrize("arguments", [{}, {"data": "AAAA", "url": "https://example.com/a.png"}])
def test_upload_needs_exactly_one_source(admin_mcp, arguments):
    text, error = admin_mcp.fails("media_upload", arguments)
    problem = "Give exactly one of data (base64 bytes) or url."
    assert error == failure("VALIDATION_ERROR", problem, {"data": problem, "url": problem})
    assert text == f"[VALIDATION_ERROR] {problem}\n- data: {problem}\n- url: {problem}"


def test_upload_refuses_text_that_is_not_base64(admin_mcp):
    _, error = admin_mcp.fails("media_upload", {"data": "not base64!"})
    problem = "Not valid base64: use the standard alphabet (A-Z, a-z, 0-9, +, /) with = padding."
    assert error == failure("VALIDATION_ERROR", f"data: {problem}", {"data": problem})


def test_upload_over_the_limit_is_refused_before_decoding(admin_mcp, settings, media_root):
    settings.CMS_MAX_UPLOAD_BYTES = 100
    # Not even valid base64: the size alone refuses it, so it was never decoded.
    _, error = admin_mcp.fails("media_upload", {"data": "!" * 400})
    assert error == failure(
        "PAYLOAD_TOO_LARGE", "The file is 300 bytes; the limit is 100 bytes.", {"data": "At most 100 bytes."}
    )
    _, error = admin_mcp.fails("media_upload", {"data": b64(b"x" * 101)})
    assert error == failure(
        "PAYLOAD_TOO_LARGE", "The file is 101 bytes; the limit is 100 bytes.", {"data": "At most 100 bytes."}
    )
    assert MediaItem.objects.count() == 0
    assert [path for path in media_root.rglob("*") if path.is_file()] == []


def test_upload_checks_the_type_from_the_bytes(admin_mcp):
    _, error = admin_mcp.fails("media_upload", {"data": b64(b"<html><script>alert(1)</script></html>")})
    assert error == failure(
        "UNSUPPORTED_MEDIA_TYPE",
        f"The file's content is not a recognised file type; allowed types: {ALLOWED}.",
        {"file": f"Content detected as not a recognised file type; allowed: {ALLOWED}."},
    )
    _, error = admin_mcp.fails("media_upload", {"data": b64(PNG), "mimeType": "application/pdf"})
    problem = "The file's content is image/png, not application/pdf."
    assert error == failure("VALIDATION_ERROR", f"mimeType: {problem}", {"mimeType": problem})
    assert MediaItem.objects.count() == 0


def test_upload_from_a_private_address_is_refused(admin_mcp, settings):
    settings.CMS_SAFEHTTP_ALLOW_HOSTS = []
    _, error = admin_mcp.fails("media_upload", {"url": "http://127.0.0.1:9/secret.png"})
    problem = "127.0.0.1 is not fetched: it resolves to a loopback address (127.0.0.1)."
    assert error == failure("VALIDATION_ERROR", f"The file could not be fetched: {problem}", {"url": problem})


def test_upload_from_a_url_that_fails_or_is_too_large(admin_mcp, settings, web):  # noqa: F811
    web.routes["/big.png"] = (200, PNG, {"Content-Type": "image/png"})
    gone = f"{web.base}/gone.png"
    _, error = admin_mcp.fails("media_upload", {"url": gone})
    problem = f"{gone} answered HTTP 404."
    assert error == failure("VALIDATION_ERROR", f"The file could not be fetched: {problem}", {"url": problem})
    settings.CMS_MAX_UPLOAD_BYTES = 50
    _, error = admin_mcp.fails("media_upload", {"url": f"{web.base}/big.png"})
    assert error == failure(
        "PAYLOAD_TOO_LARGE",
        f"The file at {web.base}/big.png is larger than the limit of 50 bytes.",
        {"url": "At most 50 bytes."},
    )
    assert MediaItem.objects.count() == 0


def test_upload_needs_media_write_and_the_author_role(mcp_for, web):  # noqa: F811
    web.routes["/a.png"] = (200, PNG, {})
    arguments = {"url": f"{web.base}/a.png"}
    assert mcp_for(Role.ADMIN, ["media:read"]).refused("media_upload", arguments) == {
        "code": -32600,
        "message": "Insufficient scope: requires media:write",
        "data": {"requiredScope": "media:write"},
    }
    assert demoted(Role.CONTRIBUTOR, ["media:write"]).refused("media_upload", arguments) == {
        "code": -32600,
        "message": "Insufficient scope: requires the role author (30) or higher",
        "data": {"requiredRole": Role.AUTHOR},
    }
    # Refused before anything was fetched.
    assert web.requests == []
    author = mcp_for(Role.AUTHOR, ["media:write"])
    assert author.ok("media_upload", arguments)["authorId"] == author.user.pk


# --- media_create ----------------------------------------------------------------------------------------------------


def test_create_records_a_stored_file_as_rest(admin_mcp, admin_api, media_root):
    key = storage.media_storage().save("imports/report.pdf", ContentFile(PDF_BYTES))
    created = conforms(
        "media_create",
        admin_mcp.ok("media_create", {"storageKey": key, "mimeType": "application/pdf", "alt": "Report"}),
    )
    assert created == {**rest_media(admin_api, created["id"]), "deduplicated": False}
    assert (created["filename"], created["storageKey"], created["size"]) == (
        "report.pdf",
        key,
        len(PDF_BYTES),
    )
    assert admin_mcp.ok("media_create", {"storageKey": key}) == {**created, "deduplicated": True}
    _, error = admin_mcp.fails("media_create", {"storageKey": key.replace("report", "missing")})
    problem = "No file 'imports/missing.pdf' in the media storage."
    assert error == failure("VALIDATION_ERROR", f"storageKey: {problem}", {"storageKey": problem})
    other = storage.media_storage().save("imports/logo.png", ContentFile(PNG))
    _, error = admin_mcp.fails("media_create", {"storageKey": other, "mimeType": "image/jpeg", "size": 3})
    assert error["details"] == {
        "mimeType": "The file's content is image/png, not image/jpeg.",
        "size": f"The file has {len(PNG)} bytes, not 3.",
    }


def test_create_needs_the_author_role():
    refused = demoted(Role.CONTRIBUTOR, ["media:write"]).refused("media_create", {"storageKey": "a.png"})
    assert refused["data"] == {"requiredRole": Role.AUTHOR}


# --- media fields: one rule for REST and tools -----------------------------------------------------------------------


def test_image_fields_naming_no_media_item_are_refused_by_the_tools(admin_mcp):
    posts = make_collection("posts", fields=[("title", "string"), ("cover", "image"), ("attachment", "file")])
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    _, error = admin_mcp.fails(
        "content_create", {"collection": "posts", "data": {"title": "T", "cover": {"id": missing}}}
    )
    problem = f"No media item {missing}; give the id of an uploaded media item or an external url."
    assert error == {
        **failure("VALIDATION_ERROR", f"/data/cover: {problem}", {"cover": problem}),
        "pointers": {"cover": "/data/cover"},
    }
    item = admin_mcp.ok("media_upload", {"data": b64(PNG)})
    entry = make_entry(posts, {"title": "T"})
    _, error = admin_mcp.fails(
        "content_update", {"collection": "posts", "id": entry.pk, "data": {"attachment": missing}}
    )
    assert error == {
        **failure("VALIDATION_ERROR", f"/data/attachment: {problem}", {"attachment": problem}),
        "pointers": {"attachment": "/data/attachment"},
    }
    written = admin_mcp.ok(
        "content_update",
        {"collection": "posts", "id": entry.pk, "data": {"cover": {"id": item["id"], "alt": "A"}}},
    )
    assert written["item"]["data"]["cover"]["id"] == item["id"]


# --- bylines ---------------------------------------------------------------------------------------------------------


def test_byline_create_get_update_delete_answer_as_rest(admin_mcp, admin_api):
    created = conforms(
        "byline_create", admin_mcp.ok("byline_create", {"displayName": "  Grace Hopper ", "bio": "Admiral."})
    )
    assert created == admin_api.get(f"/_cms/api/bylines/{created['id']}").json()["data"]
    assert created == {
        "id": created["id"],
        "displayName": "Grace Hopper",
        "slug": "grace-hopper",
        "userId": None,
        "isGuest": True,
        "bio": "Admiral.",
        "email": "",
        "createdAt": created["createdAt"],
        "updatedAt": created["updatedAt"],
    }
    assert conforms("byline_get", admin_mcp.ok("byline_get", {"id": created["id"]})) == created
    user = make_user(Role.AUTHOR)
    updated = admin_mcp.ok(
        "byline_update", {"id": created["id"], "userId": user.pk, "isGuest": False, "email": "g@example.com"}
    )
    assert updated == {
        **created,
        "userId": user.pk,
        "isGuest": False,
        "email": "g@example.com",
        "updatedAt": updated["updatedAt"],
    }
    unlinked = admin_mcp.ok("byline_update", {"id": created["id"], "userId": None})
    assert (unlinked["userId"], unlinked["bio"], unlinked["displayName"]) == (
        None,
        "Admiral.",
        "Grace Hopper",
    )
    assert conforms("byline_delete", admin_mcp.ok("byline_delete", {"id": created["id"]})) == {
        "success": True
    }
    assert not Byline.objects.filter(pk=created["id"]).exists()


def test_byline_failures(admin_mcp):
    missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
    for name, arguments in (
        ("byline_get", {"id": missing}),
        ("byline_update", {"id": missing, "bio": "x"}),
        ("byline_delete", {"id": missing}),
    ):
        text, error = admin_mcp.fails(name, arguments)
        assert (text, error) == (
            f"[NOT_FOUND] No byline {missing}.",
            failure("NOT_FOUND", f"No byline {missing}.", {}),
        )
    _, error = admin_mcp.fails("byline_create", {"displayName": "  "})
    assert error == failure("VALIDATION_ERROR", "displayName: Required.", {"displayName": "Required."})
    _, error = admin_mcp.fails("byline_create", {"displayName": "X", "userId": missing, "email": "nope"})
    assert error["details"] == {"email": "Enter a valid email address."}
    _, error = admin_mcp.fails("byline_create", {"displayName": "X", "userId": missing})
    assert error == failure(
        "VALIDATION_ERROR", f"userId: No user with id {missing}.", {"userId": f"No user with id {missing}."}
    )
    byline = make_byline("Ada")
    _, error = admin_mcp.fails("byline_update", {"id": byline.pk, "displayName": ""})
    assert error["details"] == {"displayName": "Must not be empty."}
    assert Byline.objects.get(pk=byline.pk).display_name == "Ada"


def test_byline_list_searches_filters_and_pages(admin_mcp, admin_api):
    user = make_user(Role.AUTHOR)
    ada = make_byline("Ada Lovelace")
    grace = make_byline("Grace Hopper", user=user, is_guest=False)
    alan = make_byline("Alan Turing")
    names = lambda page: [item["displayName"] for item in page["items"]]  # noqa: E731
    everyone = conforms("byline_list", admin_mcp.ok("byline_list"))
    assert names(everyone) == ["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    assert everyone == admin_api.get("/_cms/api/bylines").json()["data"]
    assert names(admin_mcp.ok("byline_list", {"search": "LOVE"})) == ["Ada Lovelace"]
    assert names(admin_mcp.ok("byline_list", {"search": "grace-h"})) == ["Grace Hopper"]
    assert names(admin_mcp.ok("byline_list", {"kind": "guest"})) == ["Ada Lovelace", "Alan Turing"]
    assert names(admin_mcp.ok("byline_list", {"kind": "linked"})) == ["Grace Hopper"]
    assert (
        admin_api.get("/_cms/api/bylines?kind=linked&search=hop").json()["data"]["items"][0]["id"] == grace.pk
    )
    first = admin_mcp.ok("byline_list", {"kind": "guest", "limit": 1})
    assert (names(first), first["nextCursor"] is not None) == (["Ada Lovelace"], True)
    second = admin_mcp.ok("byline_list", {"kind": "guest", "limit": 1, "cursor": first["nextCursor"]})
    assert (names(second), second["nextCursor"]) == (["Alan Turing"], None)
    # A cursor belongs to its filters.
    text, _ = admin_mcp.fails("byline_list", {"kind": "linked", "cursor": first["nextCursor"]})
    assert text.startswith("[VALIDATION_ERROR] ")
    _, error = admin_mcp.fails("byline_list", {"kind": "robot"})
    assert error["details"] == {"kind": '"robot" is not a valid choice.'}
    assert {ada.pk, alan.pk} == {
        item["id"] for item in admin_mcp.ok("byline_list", {"kind": "guest"})["items"]
    }


def test_deleting_a_byline_moves_the_primary_credit(admin_mcp):
    posts = make_collection("posts", fields=[("title", "string")])
    first, second = make_byline("First"), make_byline("Second")
    entry = make_entry(posts, {"title": "T"}, bylines=[{"bylineId": first.pk}, {"bylineId": second.pk}])
    admin_mcp.ok("byline_delete", {"id": first.pk})
    got = admin_mcp.ok("content_get", {"collection": "posts", "id": entry.pk})["item"]
    assert (got["primaryBylineId"], [credit["bylineId"] for credit in got["bylines"]]) == (
        second.pk,
        [second.pk],
    )


def test_bylines_are_read_with_content_read_and_managed_by_editors(mcp_for):
    byline = make_byline("Ada")
    reader = mcp_for(Role.SUBSCRIBER, ["content:read"])
    assert reader.ok("byline_get", {"id": byline.pk})["id"] == byline.pk
    assert reader.refused("byline_create", {"displayName": "X"}) == {
        "code": -32600,
        "message": "Insufficient scope: requires content:write",
        "data": {"requiredScope": "content:write"},
    }
    author = mcp_for(Role.AUTHOR, ["content:read", "content:write"], version=MODERN)
    assert author.refused("byline_update", {"id": byline.pk, "bio": "x"}) == {
        "code": -32600,
        "message": "Insufficient scope: requires the role editor (40) or higher",
        "data": {"requiredRole": Role.EDITOR},
    }
    editor = mcp_for(Role.EDITOR, ["content:write"])
    assert editor.ok("byline_update", {"id": byline.pk, "bio": "x"})["bio"] == "x"
