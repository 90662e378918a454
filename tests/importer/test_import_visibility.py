"""What WordPress shows only to some never becomes public (docs/decisions.md, "Import pipeline"): a password-protected
or private post is imported as a draft with a warning naming it, so a subscriber's token (a public front end) can
neither read it nor find it by search; an editor reads it, and what the import kept of it, through the API."""

from __future__ import annotations

from datetime import timedelta

from apps.accounts.models import Role
from apps.core.timefmt import now
from tests.importer.conftest import THEME_UNIT_TEST
from tests.importer.helpers import post, run_import, wxr

PASSWORD = "<wp:post_password><![CDATA[hunter2]]></wp:post_password>"


def future(days: int) -> str:
    return (now() + timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S")


def test_password_protected_and_private_posts_are_drafts_no_reader_can_see(admin_api, client_for, settings):
    settings.CMS_IMPORT_BATCH_SIZE = (
        2  # a batch of plain new entries (created together) and ones created alone
    )
    items = (
        post(1, title="Open kingfisher", slug="open")
        + post(2, title="Protected kingfisher", slug="protected", extra=PASSWORD)
        + post(3, title="Private kingfisher", slug="private", status="private")
        + post(
            4,
            title="Protected future kingfisher",
            slug="later",
            status="future",
            date=future(30),
            extra=PASSWORD,
        )
        + post(5, title="Protected past future kingfisher", slug="past", status="future", extra=PASSWORD)
    )

    job = run_import(admin_api, content=wxr(items))

    assert job["state"] == "completed"
    assert job["summary"]["warnings"] == [
        {
            "code": "PASSWORD_PROTECTED",
            "message": "Item 2 'Protected kingfisher' is password-protected in WordPress; imported as a draft so that "
            "it does not become public.",
            "sourceId": 2,
        },
        {
            "code": "PRIVATE",
            "message": "Item 3 'Private kingfisher' is private in WordPress; imported as a draft so that it does not "
            "become public.",
            "sourceId": 3,
        },
        {
            "code": "PASSWORD_PROTECTED",
            "message": "Item 4 'Protected future kingfisher' is password-protected in WordPress; imported as a draft "
            "so that it does not become public.",
            "sourceId": 4,
        },
        {
            "code": "PASSWORD_PROTECTED",
            "message": "Item 5 'Protected past future kingfisher' is password-protected in WordPress; imported as a "
            "draft so that it does not become public.",
            "sourceId": 5,
        },
    ]
    editor_view = {}
    for slug in ("open", "protected", "private", "later", "past"):
        item = admin_api.get(f"/_cms/api/content/posts/{slug}").json()["data"]["item"]
        editor_view[slug] = (item["status"], item["publishedAt"] is None, item["scheduledAt"])
        assert "hunter2" not in str(item)  # the password itself is not kept
    assert editor_view == {
        "open": ("published", False, None),
        "protected": ("draft", True, None),
        "private": ("draft", True, None),
        "later": ("draft", True, None),
        "past": ("draft", True, None),
    }
    protected = admin_api.get("/_cms/api/content/posts/protected").json()["data"]["item"]
    assert protected["meta"]["import"]["passwordProtected"] is True
    assert protected["meta"]["import"]["originalStatus"] == "publish"

    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    listed = reader.get("/_cms/api/content/posts").json()["data"]["items"]
    assert [item["slug"] for item in listed] == ["open"]
    for slug in ("protected", "private", "later", "past"):
        assert reader.get(f"/_cms/api/content/posts/{slug}").status_code == 404
    found = reader.get("/_cms/api/search", {"q": "kingfisher"}).json()["results"]
    assert [hit["title"] for hit in found] == ["Open kingfisher"]


def test_reimporting_a_changed_protected_post_does_not_publish_it(admin_api):
    run_import(admin_api, content=wxr(post(1, title="Protected", slug="protected", extra=PASSWORD)))

    job = run_import(
        admin_api, content=wxr(post(1, title="Protected, revised", slug="protected", extra=PASSWORD))
    )

    assert job["summary"]["imported"] == {"posts": {"updated": 1}}
    item = admin_api.get("/_cms/api/content/posts/protected").json()["data"]["item"]
    assert (item["status"], item["data"]["title"], item["publishedAt"]) == (
        "draft",
        "Protected, revised",
        None,
    )


def test_the_theme_unit_tests_password_protected_post_is_a_draft(admin_api, client_for):
    job = run_import(admin_api, THEME_UNIT_TEST)

    protected = [warning for warning in job["summary"]["warnings"] if warning["code"] == "PASSWORD_PROTECTED"]
    assert protected == [
        {
            "code": "PASSWORD_PROTECTED",
            "message": "Item 1168 'Template: Password Protected (the password is \"enter\")' is password-protected in "
            "WordPress; imported as a draft so that it does not become public.",
            "sourceId": 1168,
        }
    ]
    slug = "template-password-protected"
    assert admin_api.get(f"/_cms/api/content/posts/{slug}").json()["data"]["item"]["status"] == "draft"
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    assert reader.get(f"/_cms/api/content/posts/{slug}").status_code == 404
