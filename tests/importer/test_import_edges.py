"""Edge cases of importing: WordPress's own importer fixtures and the other public exports, invalid files, slug
collisions, failing items, re-imports, lost connections, statuses, reusable blocks and language data (SPEC §7)."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from apps.content.models import Entry
from apps.content.services import entries as content_entries
from apps.importer.sources import wxr as wxr_module
from tests.factories import make_collection, make_entry
from tests.importer.conftest import BLOCK_TEST_DATA, IMPORTER_DATA, THEME_UNIT_TEST, WXR
from tests.importer.helpers import (
    EXECUTE,
    PREPARE,
    all_entries,
    analyze,
    job_url,
    post,
    run_import,
    statuses,
    upload,
    wxr,
)

E2E = WXR / "wordpress-importer" / "e2e-fixtures"
TOOLKIT = WXR / "php-toolkit"

# File → (imported per collection, kinds): what each public export becomes.
IMPORTS = {
    IMPORTER_DATA / "a11y-unit-test-data.xml": (
        {"pages": {"created": 17}, "posts": {"created": 47}},
        {"attachments": 39, "bylines": 3, "collections": 2, "entries": 64, "menuItems": 48, "menus": 5,
         "taxonomies": 3, "terms": 107},
    ),
    IMPORTER_DATA / "authors-multiline.xml": ({"posts": {"created": 1}}, {"bylines": 1, "collections": 1, "entries": 1}),
    IMPORTER_DATA / "backslashes.xml": ({"posts": {"created": 1}}, {"collections": 1, "entries": 1}),
    IMPORTER_DATA / "cdata-edge.xml": ({"posts": {"created": 1}}, {"collections": 1, "entries": 1}),
    IMPORTER_DATA / "crazy-cdata-escaped.xml": (
        {"posts": {"created": 1}}, {"bylines": 1, "collections": 1, "entries": 1},
    ),
    IMPORTER_DATA / "multiple-cdata.xml": ({"posts": {"created": 1}}, {"collections": 1, "entries": 1}),
    IMPORTER_DATA / "namespace-edge-cases.xml": (
        {"posts": {"created": 5}}, {"collections": 1, "entries": 5, "taxonomies": 1, "terms": 2},
    ),
    IMPORTER_DATA / "small-export.xml": (
        {"pages": {"created": 5}, "posts": {"created": 6}},
        {"bylines": 3, "collections": 2, "entries": 11, "taxonomies": 3, "terms": 34},
    ),
    IMPORTER_DATA / "term-formats.xml": ({}, {"menus": 1, "taxonomies": 3, "terms": 6}),
    IMPORTER_DATA / "test-serialized-postmeta-no-cdata.xml": (
        {"posts": {"created": 1}}, {"bylines": 1, "collections": 1, "entries": 1, "taxonomies": 1, "terms": 1},
    ),
    IMPORTER_DATA / "valid-wxr-1.0.xml": (
        {"pages": {"created": 3}, "posts": {"created": 3}},
        {"bylines": 1, "collections": 2, "entries": 6, "taxonomies": 2, "terms": 9},
    ),
    IMPORTER_DATA / "wxr-utf-8-challenges.xml": (
        {"posts": {"created": 1}}, {"bylines": 1, "collections": 1, "entries": 1, "taxonomies": 1, "terms": 1},
    ),
    E2E / "wxr-comprehensive.xml": (
        {"pages": {"created": 1}, "posts": {"created": 1}},
        {"bylines": 2, "collections": 2, "entries": 2, "taxonomies": 2, "terms": 4},
    ),
    TOOLKIT / "woocommerce-demo-products.xml": (
        {"product": {"created": 18}, "product_variation": {"created": 7}},
        {"attachments": 22, "bylines": 1, "collections": 2, "entries": 25, "taxonomies": 5, "terms": 21},
    ),
    BLOCK_TEST_DATA: (
        {"pages": {"created": 1}, "posts": {"created": 61}},
        {"attachments": 9, "bylines": 2, "collections": 2, "entries": 62, "menuItems": 1, "menus": 1,
         "taxonomies": 2, "terms": 11},
    ),
    WXR / "tt5-demo-blueprint" / "playground-content.xml": (
        {"pages": {"created": 14}, "posts": {"created": 3}},
        {"attachments": 17, "bylines": 1, "collections": 2, "entries": 17, "menuItems": 10, "menus": 2,
         "taxonomies": 2, "terms": 5},
    ),
}  # fmt: skip


@pytest.mark.parametrize("path", list(IMPORTS), ids=lambda path: path.name)
def test_public_exports_import_completely(admin_api, path):
    job = run_import(admin_api, path)

    imported, kinds = IMPORTS[path]
    assert job["state"] == "completed"
    assert job["summary"]["imported"] == imported
    assert job["summary"]["kinds"] == kinds
    assert job["summary"]["failed"] == []


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("malformed-simple.xml", 14, "The file is not well-formed XML (no element found, column 0)."),
        ("malformed.xml", 90, "The file is not well-formed XML (mismatched tag, column 2)."),
        (
            "crazy-cdata.xml",
            18,
            "The file is not well-formed XML (not well-formed (invalid token), column 71).",
        ),
        (
            "missing-version-tag.xml",
            35,
            "This does not appear to be a WXR file: there is no <wp:wxr_version> before the first author, term or "
            "item.",
        ),
        (
            "invalid-version-tag.xml",
            36,
            "This does not appear to be a WXR file: the WXR version 'abc' is not valid.",
        ),
    ],
)
def test_invalid_files_stop_with_the_line(admin_api, import_dir, name, line, reason):
    response = upload(admin_api, IMPORTER_DATA / name)

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"The file cannot be imported: {reason} (line {line})",
            "details": {"line": line},
        },
    }
    # Nothing is kept of a refused file.
    assert list(import_dir.iterdir()) == []


def test_entity_declarations_are_refused(admin_api):
    bomb = b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaa">]><rss><channel>&a;</channel></rss>'
    response = upload(admin_api, content=bomb)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("The file cannot be imported: The file declares XML entities")
    assert error["details"] == {"line": 1}


def test_an_empty_file_is_refused(admin_api):
    response = upload(admin_api, content=b"")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"file": "The submitted file is empty."}


def test_large_author_lists_are_analysed(admin_api):
    analysis = analyze(admin_api, IMPORTER_DATA / "large-authors.xml")
    assert len(analysis["authors"]) == 300
    assert analysis["authors"][0]["posts"] == 0


def test_utf8_text_is_kept_byte_for_byte(admin_api):
    run_import(admin_api, IMPORTER_DATA / "wxr-utf-8-challenges.xml")
    entry = Entry.objects.get()
    source = next(
        record
        for record in wxr_module.read_wxr(IMPORTER_DATA / "wxr-utf-8-challenges.xml")
        if isinstance(record, wxr_module.ImportItem)
    )
    assert entry.data["title"] == source.title
    assert entry.data["content"] == source.content
    assert entry.meta["import"]["sourceId"] == source.source_id


def test_serialized_meta_is_kept_unserialized(admin_api):
    run_import(admin_api, IMPORTER_DATA / "test-serialized-postmeta-no-cdata.xml")
    custom = Entry.objects.get().meta["import"]["customFields"]
    assert isinstance(custom, dict) and custom
    source = next(
        record
        for record in wxr_module.read_wxr(IMPORTER_DATA / "test-serialized-postmeta-no-cdata.xml")
        if isinstance(record, wxr_module.ImportItem)
    )
    assert custom == {key: value for key, value in source.meta.items() if not key.startswith("_")}
    assert any(isinstance(value, (dict, list)) for value in custom.values())


def test_duplicate_slugs_are_renamed_with_a_warning(admin_api):
    posts = make_collection("posts", fields=[{"slug": "title", "type": "string"}])
    make_entry(posts, {"title": "Taken"}, slug="hello")
    content = wxr(post(1, title="Hello", slug="hello") + post(2, title="Hello again", slug="hello"))

    job = run_import(admin_api, content=content)

    assert job["summary"]["warningCount"] == 2
    assert job["summary"]["warnings"] == [
        {
            "code": "SLUG_RENAMED",
            "message": "The slug 'hello' of item 1 was taken in 'posts'; renamed to 'hello-2'.",
            "sourceId": 1,
            "slug": "hello-2",
        },
        {
            "code": "SLUG_RENAMED",
            "message": "The slug 'hello' of item 2 was taken in 'posts'; renamed to 'hello-3'.",
            "sourceId": 2,
            "slug": "hello-3",
        },
    ]
    assert sorted(item["slug"] for item in all_entries(admin_api, "posts")) == ["hello", "hello-2", "hello-3"]


def test_status_mapping(admin_api):
    items = "".join(
        [
            post(1, slug="published", status="publish", date="2020-05-06 07:08:09"),
            post(2, slug="draft", status="draft"),
            post(3, slug="pending", status="pending"),
            post(4, slug="private", status="private"),
            post(5, slug="future", status="future", date="2999-01-01 00:00:00"),
            post(6, slug="past-future", status="future", date="2021-01-01 00:00:00"),
            post(7, slug="trashed", status="trash"),
        ]
    )
    run_import(admin_api, content=wxr(items))

    entries = {item["slug"]: item for item in all_entries(admin_api, "posts")}
    assert {slug: item["status"] for slug, item in entries.items()} == {
        "published": "published",
        "draft": "draft",
        "pending": "draft",
        "private": "draft",
        "future": "scheduled",
        "past-future": "published",
    }
    assert entries["published"]["publishedAt"] == "2020-05-06T07:08:09.000Z"
    assert entries["future"]["scheduledAt"] == "2999-01-01T00:00:00.000Z"
    assert entries["past-future"]["publishedAt"] == "2021-01-01T00:00:00.000Z"
    trash = admin_api.get("/_cms/api/content/posts/trash").json()
    assert [item["slug"] for item in trash["data"]["items"]] == ["trashed"]
    original = dict(Entry.objects.values_list("slug", "meta__import__originalStatus"))
    assert original == {
        "published": "publish",
        "draft": "draft",
        "pending": "pending",
        "private": "private",
        "future": "future",
        "past-future": "future",
        "trashed": "trash",
    }


def test_an_item_that_fails_to_convert_becomes_a_draft_with_import_error(admin_api, monkeypatch):
    convert = wxr_module.convert_post

    def failing(content, **kwargs):
        if "EXPLODE" in content:
            raise ValueError("cannot read this")
        return convert(content, **kwargs)

    monkeypatch.setattr(wxr_module, "convert_post", failing)
    content = wxr(
        post(1, title="Fine", slug="fine") + post(2, title="Broken", slug="broken", content="<p>EXPLODE</p>")
    )

    job = run_import(admin_api, content=content)

    assert job["state"] == "completed"
    broken = Entry.objects.get(slug="broken")
    assert job["summary"]["failed"] == [
        {
            "sourceId": 2,
            "postType": "post",
            "title": "Broken",
            "reason": "ValueError: cannot read this",
            "entryId": broken.pk,
            "line": job["summary"]["failed"][0]["line"],
        }
    ]
    assert job["summary"]["kinds"]["failed"] == 1
    assert broken.status == "draft"
    assert broken.data == {"title": "Broken"}
    assert broken.meta["_importError"] == {
        "message": "ValueError: cannot read this",
        "content": "<p>EXPLODE</p>",
        "excerpt": "",
    }
    assert statuses(all_entries(admin_api, "posts")) == {"published": 1, "draft": 1}


def test_reimport_skips_unchanged_and_updates_changed_items(admin_api):
    first = run_import(
        admin_api, content=wxr(post(1, title="One", slug="one") + post(2, title="Two", slug="two"))
    )
    assert first["summary"]["imported"] == {"posts": {"created": 2}}

    second = run_import(
        admin_api, content=wxr(post(1, title="One", slug="one") + post(2, title="Two, revised", slug="two"))
    )

    assert second["summary"]["imported"] == {"posts": {"unchanged": 1, "updated": 1}}
    entries = {item["slug"]: item for item in all_entries(admin_api, "posts")}
    assert len(entries) == 2
    assert entries["two"]["data"]["title"] == "Two, revised"
    assert entries["two"]["status"] == "published"


def test_reimporting_the_theme_unit_test_changes_nothing(admin_api):
    run_import(admin_api, THEME_UNIT_TEST)
    before = {
        "posts": sorted(
            (item["id"], item["slug"], item["status"]) for item in all_entries(admin_api, "posts")
        ),
        "pages": len(all_entries(admin_api, "pages")),
        "menus": admin_api.get("/_cms/api/menus").json()["data"]["items"],
    }

    job = run_import(admin_api, THEME_UNIT_TEST)

    assert job["summary"]["imported"] == {"pages": {"unchanged": 21}, "posts": {"unchanged": 58}}
    assert job["summary"]["kinds"] == {"attachments": 37}
    after = {
        "posts": sorted(
            (item["id"], item["slug"], item["status"]) for item in all_entries(admin_api, "posts")
        ),
        "pages": len(all_entries(admin_api, "pages")),
        "menus": admin_api.get("/_cms/api/menus").json()["data"]["items"],
    }
    assert after == before


def test_prepare_refuses_incompatible_collections_and_creates_nothing(admin_api):
    make_collection("posts", fields=[{"slug": "content", "type": "text"}])
    analysis = analyze(admin_api, THEME_UNIT_TEST)
    assert {item["name"]: (item["status"], item["conflicts"]) for item in analysis["postTypes"]} == {
        "page": ("new_collection", []),
        "post": ("incompatible", [{"field": "content", "expected": "portableText", "found": "text"}]),
    }

    response = admin_api.post(PREPARE, {"postTypes": [{"name": "page"}, {"name": "post"}]}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "postTypes.1.collection": "field 'content' is text, the import needs portableText. Rename or remove those "
        "fields, or map the post type to another collection."
    }
    assert admin_api.get("/_cms/api/schema/collections/pages").status_code == 404


def test_prepare_adds_missing_fields_to_an_existing_collection(admin_api):
    make_collection(
        "posts", fields=[{"slug": "title", "type": "string"}, {"slug": "views", "type": "integer"}]
    )
    analysis = analyze(admin_api, THEME_UNIT_TEST)
    post_type = next(item for item in analysis["postTypes"] if item["name"] == "post")
    assert (post_type["status"], post_type["missingFields"]) == (
        "add_fields",
        ["content", "excerpt", "featured_image"],
    )

    response = admin_api.post(
        PREPARE, {"postTypes": [{"name": "post", "collection": "posts"}]}, format="json"
    )

    assert response.json()["data"] == {
        "collections": [
            {
                "postType": "post",
                "collection": "posts",
                "collectionCreated": False,
                "fieldsAdded": ["content", "excerpt", "featured_image"],
            }
        ]
    }


def test_a_lost_database_connection_pauses_the_job_and_resume_finishes_it(admin_api, monkeypatch, settings):
    settings.CMS_IMPORT_BATCH_SIZE = 2
    create = content_entries.validate_data
    calls = {"count": 0}

    def flaky(**kwargs):
        calls["count"] += 1
        if calls["count"] == 4:
            raise OperationalError("server closed the connection unexpectedly")
        return create(**kwargs)

    monkeypatch.setattr(content_entries, "validate_data", flaky)
    content = wxr(
        "".join(post(number, title=f"Post {number}", slug=f"post-{number}") for number in range(1, 6))
    )
    job = run_import(admin_api, content=content)

    assert job["state"] == "paused"
    assert job["error"] == {
        "code": "DATABASE_UNAVAILABLE",
        "message": "The database connection was lost: server closed the connection unexpectedly",
        "details": {},
    }
    # The first batch (two items) committed with the cursor; the failed batch left nothing behind.
    assert job["progress"]["current"] == 2
    assert len(all_entries(admin_api, "posts")) == 2

    response = admin_api.post(f"{job_url(job['id'])}/resume")

    assert response.status_code == 200
    resumed = response.json()["data"]
    assert resumed["state"] == "completed"
    assert resumed["summary"]["imported"] == {"posts": {"created": 5}}
    assert sorted(item["slug"] for item in all_entries(admin_api, "posts")) == [
        f"post-{number}" for number in range(1, 6)
    ]


def test_a_completed_job_cannot_be_resumed(admin_api):
    job = run_import(admin_api, content=wxr(post(1)))
    response = admin_api.post(f"{job_url(job['id'])}/resume")
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "CONFLICT",
        "message": "The job has completed; start a new import to import the file again.",
        "details": {},
    }


def test_large_files_run_in_the_worker(transactional_db, admin_api, settings):
    from django.core.management import call_command

    settings.CMS_IMPORT_SYNC_MAX_BYTES = 10
    analysis = analyze(admin_api, content=wxr(post(1, slug="one")))
    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")

    assert response.status_code == 202
    job = response.json()["data"]
    assert (job["state"], job["summary"]) == ("queued", None)

    call_command("worker", "--once")

    done = admin_api.get(job_url(job["id"])).json()["data"]
    assert done["state"] == "completed"
    assert done["summary"]["imported"] == {"posts": {"created": 1}}


def test_reusable_blocks_become_sections_and_references_point_at_them(admin_api):
    block = post(
        50,
        title="Call to action",
        slug="call-to-action",
        post_type="wp_block",
        content="<!-- wp:paragraph --><p>Subscribe now</p><!-- /wp:paragraph -->",
    )
    using = post(
        1,
        title="Uses the block",
        slug="uses",
        content='<!-- wp:paragraph --><p>Before</p><!-- /wp:paragraph --><!-- wp:block {"ref":50} /-->',
    )
    # The post comes first: its reference is resolved once the block has been imported.
    job = run_import(admin_api, content=wxr(using + block))

    assert job["summary"]["kinds"]["sections"] == 1
    section = admin_api.get("/_cms/api/sections/call-to-action").json()["data"]
    assert section["source"] == "import"
    assert section["title"] == "Call to action"
    assert [child["text"] for child in section["content"][0]["children"]] == ["Subscribe now"]
    entry = all_entries(admin_api, "posts")[0]
    reference = entry["data"]["content"][-1]
    assert reference == {
        "_type": "sectionReference",
        "_key": reference["_key"],
        "ref": 50,
        "sectionId": section["id"],
    }


def test_wpml_language_data_becomes_locales_and_translation_groups(admin_api, settings):
    settings.CMS_LOCALES = ["en", "fr"]

    def meta(code, group, source=""):
        values = [("_wpml_import_language_code", code), ("_wpml_import_translation_group", group)]
        if source:
            values.append(("_wpml_import_source_language_code", source))
        return "".join(
            f"<wp:postmeta><wp:meta_key>{key}</wp:meta_key><wp:meta_value><![CDATA[{value}]]></wp:meta_value>"
            "</wp:postmeta>"
            for key, value in values
        )

    items = post(1, title="Hello", slug="hello", extra=meta("en", "g1")) + post(
        2, title="Bonjour", slug="bonjour", extra=meta("fr", "g1", "en")
    )
    run_import(admin_api, content=wxr(items))

    english = Entry.objects.get(slug="hello")
    french = Entry.objects.get(slug="bonjour")
    assert (english.locale, french.locale) == ("en", "fr")
    assert french.translation_group == english.translation_group


def test_items_the_collection_refuses_are_listed_and_the_others_imported(admin_api):
    make_collection(
        "posts",
        fields=[
            {"slug": "title", "type": "string", "validation": {"maxLength": 10}},
            {"slug": "content", "type": "portableText"},
        ],
    )
    content = wxr(post(1, title="Short", slug="short") + post(2, title="Far too long a title", slug="long"))

    job = run_import(admin_api, content=content)

    assert job["state"] == "completed"
    assert job["summary"]["imported"] == {"posts": {"created": 1}}
    reason = "/data/title: Must be at most 10 characters long (got 20)."
    assert job["summary"]["failed"] == [
        {
            "sourceId": 2,
            "postType": "post",
            "title": "Far too long a title",
            "reason": f"{reason}; saving it as a draft failed too: {reason}",
            "entryId": None,
            "line": job["summary"]["failed"][0]["line"],
        }
    ]
    assert [item["slug"] for item in all_entries(admin_api, "posts")] == ["short"]


def test_excerpts_are_kept_as_written(admin_api):
    run_import(admin_api, THEME_UNIT_TEST)
    entry = next(
        item for item in all_entries(admin_api, "posts") if item["slug"] == "template-excerpt-defined"
    )
    assert entry["data"]["excerpt"] == (
        "This is a user-defined post excerpt. It <em>should</em> be displayed in place of the post content in "
        "archive-index pages. It can be longer than the automatically generated excerpts, and can have "
        "<strong>HTML</strong> tags."
    )


def test_polylang_language_terms_become_locales_and_translation_groups(admin_api, settings):
    settings.CMS_LOCALES = ["en", "fr"]

    def terms(code):
        return (
            f'<category domain="language" nicename="{code}"><![CDATA[{code}]]></category>'
            '<category domain="post_translations" nicename="pll_5f1"><![CDATA[pll_5f1]]></category>'
        )

    items = post(1, title="Hello", slug="hello", extra=terms("en")) + post(
        2, title="Bonjour", slug="bonjour", extra=terms("fr")
    )
    job = run_import(admin_api, content=wxr(items))

    english = Entry.objects.get(slug="hello")
    french = Entry.objects.get(slug="bonjour")
    assert (english.locale, french.locale) == ("en", "fr")
    assert french.translation_group == english.translation_group
    # Language bookkeeping does not become a taxonomy.
    assert job["summary"]["kinds"].get("taxonomies") is None


def test_an_unknown_language_imports_in_the_default_locale_with_a_warning(admin_api):
    extra = '<category domain="language" nicename="de"><![CDATA[de]]></category>'
    job = run_import(admin_api, content=wxr(post(1, title="Hallo", slug="hallo", extra=extra)))

    assert Entry.objects.get(slug="hallo").locale == "en"
    assert job["summary"]["warnings"] == [
        {
            "code": "UNKNOWN_LOCALE",
            "message": "Item 1 is in 'de', which is not a configured locale; imported in 'en'.",
            "sourceId": 1,
        }
    ]


def test_imported_posts_are_searchable(admin_api):
    content = "<!-- wp:paragraph --><p>A rare word: zanzibarquux.</p><!-- /wp:paragraph -->"
    run_import(admin_api, content=wxr(post(1, title="Findable", slug="findable", content=content) + post(2)))

    response = admin_api.get("/_cms/api/search?q=zanzibarquux")

    assert response.status_code == 200
    assert [(item["collection"], item["slug"]) for item in response.json()["results"]] == [
        ("posts", "findable")
    ]
