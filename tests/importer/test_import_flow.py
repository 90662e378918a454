"""The import flow over HTTP with the WordPress Theme Unit Test export: analyze, prepare, execute, and what it made."""

from __future__ import annotations

from collections import Counter

import pytest

from apps.accounts.models import Role
from tests.importer.conftest import THEME_UNIT_TEST
from tests.importer.helpers import (
    ANALYZE,
    EXECUTE,
    PREPARE,
    all_entries,
    all_pages,
    analyze,
    job_url,
    run_import,
    statuses,
    upload,
)

THEME_SUMMARY = {
    "site": "Theme Unit Test Data",
    "imported": {"pages": {"created": 21}, "posts": {"created": 58}},
    "kinds": {
        "attachments": 37,
        "bylines": 3,
        "collections": 2,
        "entries": 79,
        "menuItems": 70,
        "menus": 6,
        "taxonomies": 3,
        "terms": 191,
    },
    "warnings": [
        {
            "code": "PASSWORD_PROTECTED",
            "message": "Item 1168 'Template: Password Protected (the password is \"enter\")' is password-protected "
            "in WordPress; imported as a draft so that it does not become public.",
            "sourceId": 1168,
        }
    ],
    "warningCount": 1,
    "failed": [],
    "skipped": [],
    "media": {},
}


def test_analysis_of_the_theme_unit_test(admin_api):
    analysis = analyze(admin_api, THEME_UNIT_TEST, name="theme.xml")

    assert analysis["filename"] == "theme.xml"
    assert analysis["size"] == THEME_UNIT_TEST.stat().st_size
    assert analysis["site"] == {
        "title": "Theme Unit Test Data",
        "link": "https://wpthemetestdata.wordpress.com",
        "description": "Just another WordPress website with a purposefully really long description",
        "language": "en",
        "wxrVersion": "1.2",
        "baseSiteUrl": "https://wordpress.com/",
        "baseBlogUrl": "https://wpthemetestdata.wordpress.com",
    }
    assert analysis["itemCount"] == 186
    missing = ["title", "content", "excerpt", "featured_image"]
    assert analysis["postTypes"] == [
        {
            "name": "page",
            "count": 21,
            "statuses": {"publish": 21},
            "taxonomies": [],
            "featuredImages": False,
            "collection": "pages",
            "enabled": True,
            "status": "new_collection",
            "missingFields": missing,
            "conflicts": [],
        },
        {
            "name": "post",
            "count": 58,
            "statuses": {"draft": 1, "future": 1, "publish": 56},
            "taxonomies": ["category", "post_format", "post_tag"],
            "featuredImages": True,
            "collection": "posts",
            "enabled": True,
            "status": "new_collection",
            "missingFields": missing,
            "conflicts": [],
        },
    ]
    assert [(item["name"], item["terms"], item["hierarchical"]) for item in analysis["taxonomies"]] == [
        ("category", 68, True),
        ("post_format", 9, False),
        ("post_tag", 114, False),
    ]
    assert analysis["authors"] == [
        {"login": ">themereviewteam", "email": "", "displayName": ">themereviewteam", "posts": 1},
        {
            "login": "themedemos",
            "email": "themeshaperwp+demos@gmail.com",
            "displayName": "Theme Buster",
            "posts": 57,
        },
        {
            "login": "themereviewteam",
            "email": "themereviewteam@gmail.com",
            "displayName": "Theme Reviewer",
            "posts": 21,
        },
    ]
    assert analysis["attachments"] == 37
    assert analysis["reusableBlocks"] == []
    assert analysis["menus"] == [
        {"slug": "all-pages", "name": "All Pages", "items": 18},
        {"slug": "all-pages-flat", "name": "All Pages Flat", "items": 18},
        {"slug": "empty-menu", "name": "Empty Menu", "items": 0},
        {"slug": "short", "name": "Short", "items": 6},
        {"slug": "social-menu", "name": "Social menu", "items": 5},
        {"slug": "testing-menu", "name": "Testing Menu", "items": 23},
    ]
    assert analysis["customFields"] == [{"key": "enclosure", "count": 3}]
    assert analysis["skipped"] == []


def test_prepare_creates_collections_and_fields_then_reports_them_ready(admin_api):
    analysis = analyze(admin_api, THEME_UNIT_TEST)
    response = admin_api.post(
        PREPARE,
        {
            "analysisId": analysis["analysisId"],
            "postTypes": [
                {"name": "post", "collection": "posts", "enabled": True},
                {"name": "page", "collection": "pages", "enabled": True},
            ],
        },
        format="json",
    )

    assert response.status_code == 200
    fields = ["title", "content", "excerpt", "featured_image"]
    assert response.json() == {
        "success": True,
        "data": {
            "collections": [
                {"postType": "post", "collection": "posts", "collectionCreated": True, "fieldsAdded": fields},
                {"postType": "page", "collection": "pages", "collectionCreated": True, "fieldsAdded": fields},
            ]
        },
    }
    posts = admin_api.get("/_cms/api/schema/collections/posts?includeFields=true").json()["data"]
    assert posts["supports"] == ["drafts", "revisions", "scheduling", "search"]
    assert [(field["slug"], field["type"]) for field in posts["fields"]] == [
        ("title", "string"),
        ("content", "portableText"),
        ("excerpt", "text"),
        ("featured_image", "image"),
    ]
    again = analyze(admin_api, THEME_UNIT_TEST)
    assert {item["name"]: item["status"] for item in again["postTypes"]} == {"page": "ready", "post": "ready"}


def test_theme_unit_test_imports_completely_over_http(admin_api):
    job = run_import(admin_api, THEME_UNIT_TEST)

    assert job["state"] == "completed"
    assert job["progress"] == {"current": 186, "total": 186, "phase": "done"}
    assert job["summary"] == THEME_SUMMARY
    assert job["error"] is None
    assert admin_api.get(job_url(job["id"])).json()["data"] == job

    posts = all_entries(admin_api, "posts")
    pages = all_entries(admin_api, "pages")
    assert len(posts) == 58
    assert statuses(posts) == {"published": 55, "draft": 2, "scheduled": 1}
    assert len(pages) == 21
    assert statuses(pages) == {"published": 21}
    scheduled = next(item for item in posts if item["status"] == "scheduled")
    assert scheduled["slug"] == "scheduled"
    assert scheduled["data"]["title"] == "Scheduled"
    # Dates come from post_date_gmt.
    markup = next(item for item in posts if item["slug"] == "markup-html-tags-and-formatting")
    assert markup["createdAt"] == "2013-01-12T03:22:19.000Z"
    assert markup["publishedAt"] == "2013-01-12T03:22:19.000Z"

    categories = {term["slug"]: term for term in all_pages(admin_api, "/_cms/api/taxonomies/category/terms")}
    tags = all_pages(admin_api, "/_cms/api/taxonomies/post_tag/terms")
    assert len(categories) == 68
    assert len(tags) == 114
    parent_of = {
        slug: next((s for s, t in categories.items() if t["id"] == term["parentId"]), None)
        for slug, term in categories.items()
        if term["parentId"]
    }
    assert parent_of == {
        "sub": "aciform",
        "child-1": "parent",
        "child-2": "child-1",
        "child-category-01": "parent-category",
        "child-category-02": "parent-category",
        "child-category-03": "parent-category",
        "child-category-04": "parent-category",
        "child-category-05": "parent-category",
        "foo-a-foo-parent": "foo-parent",
        "grandchild-category": "child-category-03",
    }

    menus = admin_api.get("/_cms/api/menus").json()["data"]["items"]
    assert [(menu["name"], menu["label"]) for menu in menus] == [
        ("all-pages", "All Pages"),
        ("all-pages-flat", "All Pages Flat"),
        ("empty-menu", "Empty Menu"),
        ("short", "Short"),
        ("social-menu", "Social menu"),
        ("testing-menu", "Testing Menu"),
    ]

    def count(items):
        return sum(1 + count(item["children"]) for item in items)

    trees = {menu["name"]: admin_api.get(f"/_cms/api/menus/{menu['name']}").json()["data"] for menu in menus}
    assert {name: count(tree["items"]) for name, tree in trees.items()} == {
        "all-pages": 18,
        "all-pages-flat": 18,
        "empty-menu": 0,
        "short": 6,
        "social-menu": 5,
        "testing-menu": 23,
    }
    short = trees["short"]["items"]
    assert [(item["label"], item["type"], item["target"]["slug"]) for item in short] == [
        ("a Blog page", "content", "blog"),
        ("About The Tests", "content", "about"),
        ("Lorem Ipsum", "content", "lorem-ipsum"),
    ]
    assert [child["target"]["slug"] for child in short[1]["children"]] == [
        "clearing-floats",
        "page-with-comments",
        "page-with-comments-disabled",
    ]
    assert all(not item["missing"] for item in short)

    def kinds(items):
        found = Counter()
        for item in items:
            found[item["type"]] += 1
            found.update(kinds(item["children"]))
        return found

    assert kinds(trees["testing-menu"]["items"]) == {"custom": 18, "taxonomy": 3, "content": 2}


def test_authors_become_bylines_and_users_by_email(admin_api):
    from tests.factories import make_user

    reviewer = make_user(Role.AUTHOR, email="ThemeReviewTeam@gmail.com", name="Reviewer Account")
    run_import(admin_api, THEME_UNIT_TEST)

    entries = all_entries(admin_api, "pages") + all_entries(admin_api, "posts")
    by_reviewer = [entry for entry in entries if entry["authorId"] == reviewer.pk]
    # The analysis counted 21 items by themereviewteam, whose address matches the account (case aside).
    assert len(by_reviewer) == 21
    others = [entry for entry in entries if entry["authorId"] != reviewer.pk]
    assert {entry["authorId"] for entry in others} == {admin_api.user.pk}
    # One byline per source author, reused by all of that author's entries: the reviewer's linked to the account.
    assert len({entry["primaryBylineId"] for entry in by_reviewer}) == 1
    assert len({entry["primaryBylineId"] for entry in others}) == 2


def test_analyze_needs_the_admin_scope_and_role(api, client_for):
    assert upload(api, THEME_UNIT_TEST).status_code == 401
    editor = client_for(Role.EDITOR, ["content:write", "schema:read"])
    response = upload(editor, THEME_UNIT_TEST)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "FORBIDDEN"
    schema_admin = client_for(Role.ADMIN, ["schema:write", "content:write"])
    assert upload(schema_admin, THEME_UNIT_TEST).status_code == 403


@pytest.mark.parametrize("path", [PREPARE, EXECUTE])
def test_prepare_and_execute_need_the_admin_scope(client_for, path):
    editor = client_for(Role.EDITOR, ["content:write", "schema:read"])
    response = editor.post(path, {}, format="json")
    assert response.status_code == 403


def test_execute_with_an_unknown_analysis_is_404(admin_api):
    response = admin_api.post(EXECUTE, {"analysisId": "01HZZZZZZZZZZZZZZZZZZZZZZZ"}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_execute_refuses_unknown_keys_and_post_types(admin_api):
    analysis = analyze(admin_api, THEME_UNIT_TEST)
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"], "colour": 1}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "colour": "Unknown field; allowed: analysisId, authorMappings, options, postTypeMappings."
    }
    response = admin_api.post(
        EXECUTE,
        {"analysisId": analysis["analysisId"], "postTypeMappings": {"product": {"collection": "products"}}},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "postTypeMappings.product": "The export has no post type 'product'; it has: page, post."
    }


def test_execute_refuses_unknown_keys_inside_options_and_mappings(admin_api):
    """A mistyped option used to be dropped, and the import ran with the default instead of what was meant."""
    analysis = analyze(admin_api, THEME_UNIT_TEST)
    response = admin_api.post(
        EXECUTE,
        {
            "analysisId": analysis["analysisId"],
            "options": {"includeMedai": True},
            "postTypeMappings": {"post": {"colection": "articles"}},
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "options.includeMedai": "Unknown field; allowed: includeMedia, includeMenus, includeTaxonomies.",
        "postTypeMappings.post.colection": "Unknown field; allowed: collection, enabled.",
    }
    assert admin_api.get("/_cms/api/schema/collections/posts").status_code == 404


def test_multipart_execute_refuses_unknown_keys_inside_its_config(admin_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = admin_api.post(
        EXECUTE,
        {
            "file": SimpleUploadedFile("theme.xml", THEME_UNIT_TEST.read_bytes()),
            "config": '{"options": {"includeMedia": false, "menus": false}}',
        },
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "options.menus": "Unknown config key; allowed: includeMedia, includeMenus, includeTaxonomies."
    }


def test_prepare_refuses_an_unknown_key_of_a_post_type(admin_api):
    response = admin_api.post(
        PREPARE, {"postTypes": [{"name": "post", "colection": "articles"}]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "postTypes.0.colection": "Unknown field; allowed: collection, enabled, name."
    }


def test_unknown_job_is_404(admin_api):
    response = admin_api.get(job_url("01HZZZZZZZZZZZZZZZZZZZZZZZ"))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_multipart_execute_with_config(admin_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = admin_api.post(
        EXECUTE,
        {
            "file": SimpleUploadedFile("theme.xml", THEME_UNIT_TEST.read_bytes()),
            "config": '{"postTypeMappings": {"post": {"collection": "articles"}, "page": {"enabled": false}}}',
        },
        format="multipart",
    )

    assert response.status_code == 200
    summary = response.json()["data"]["summary"]
    assert summary["imported"] == {"articles": {"created": 58}}
    assert summary["skipped"] == [
        {"postType": "page", "count": 21, "reason": "Not enabled in postTypeMappings"}
    ]
    assert len(all_entries(admin_api, "articles")) == 58
    assert admin_api.get("/_cms/api/schema/collections/pages").status_code == 404


def test_multipart_execute_with_a_bad_config_is_400(admin_api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = admin_api.post(
        EXECUTE,
        {"file": SimpleUploadedFile("theme.xml", THEME_UNIT_TEST.read_bytes()), "config": "{not json"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"]["config"].startswith("Not valid JSON")


def test_analyze_without_a_file_is_400(admin_api):
    response = admin_api.post(ANALYZE, {}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"file": "No file was submitted."}
