"""URL probing (SPEC §4.10 rules 1 and 2) and the WordPress.com import, against recorded WordPress REST answers served
by a local HTTP server (``CMS_SAFEHTTP_ALLOW_HOSTS`` lets the safe client reach it; nothing else is allowed)."""

from __future__ import annotations

import ipaddress
import json

import pytest

from apps.core import safehttp
from apps.importer import registry
from apps.plugins.base import ImportSourceContribution, Plugin
from tests.importer.helpers import EXECUTE, PROBE, all_entries, all_pages, job_url
from tests.testdata import TESTDATA

REST = TESTDATA / "wp-rest-api" / "wordpress-develop-qunit-fixtures"
WPCOM = TESTDATA / "wp-rest-api" / "wpcom" / "wordpresskit-ios"


def recorded(path, *, total: int | None = None) -> tuple[int, bytes, dict]:
    body = path.read_bytes()
    headers = {"Content-Type": "application/json"}
    if total is not None:
        headers.update({"X-WP-Total": str(total), "X-WP-TotalPages": "1"})
    return 200, body, headers


@pytest.fixture
def self_hosted(web, settings):
    settings.CMS_IMPORT_HOSTED_API = web.base
    web.routes.update(
        {
            "/wp-json/": recorded(REST / "wp-json-index.json"),
            "/wp-json/wp/v2/posts": recorded(REST / "PostsCollection.json", total=12),
            "/wp-json/wp/v2/pages": recorded(REST / "PagesCollection.json", total=3),
            "/wp-json/wp/v2/media": recorded(REST / "MediaCollection.json", total=7),
        }
    )
    return web


@pytest.fixture
def hosted(web, settings):
    settings.CMS_IMPORT_HOSTED_API = web.base
    site = f"/rest/v1.1/sites/127.0.0.1%3A{web.server_address[1]}"
    api = f"/wp/v2/sites/127.0.0.1%3A{web.server_address[1]}"
    web.routes.update(
        {
            site: recorded(WPCOM / "rest-site-settings.json"),
            f"{api}/users": recorded(REST / "UsersCollection.json", total=2),
            f"{api}/categories": recorded(REST / "CategoriesCollection.json", total=1),
            f"{api}/tags": recorded(REST / "TagsCollection.json", total=1),
            f"{api}/media": recorded(REST / "MediaCollection.json", total=1),
            f"{api}/posts": recorded(REST / "PostsCollection.json", total=1),
            f"{api}/pages": recorded(REST / "PagesCollection.json", total=1),
        }
    )
    return web


def test_probe_finds_a_self_hosted_site_and_suggests_an_export(admin_api, self_hosted):
    response = admin_api.post(PROBE, {"url": self_hosted.base}, format="json")

    assert response.status_code == 200
    match = {
        "source": "blogplatform-rest",
        "name": "WordPress site (REST API)",
        "confidence": 0.9,
        "details": {
            "platform": "WordPress (self-hosted)",
            "siteName": "Test Blog",
            "siteUrl": "http://example.org",
            "counts": {"posts": 12, "pages": 3, "media": 7},
            "message": "Only published content is visible without signing in: drafts, private posts and media "
            "details need authentication or a full export (Tools → Export → All content in WordPress), which you "
            "can upload here.",
        },
    }
    assert response.json()["data"] == {
        "url": self_hosted.base,
        "best": match,
        "matches": [match],
        "suggestedAction": {
            "action": "export",
            "source": "blogplatform-rest",
            "message": match["details"]["message"],
        },
    }


def test_probe_finds_a_hosted_site_and_suggests_oauth(admin_api, hosted):
    response = admin_api.post(PROBE, {"url": hosted.base}, format="json")

    data = response.json()["data"]
    assert data["best"] == {
        "source": "blogplatform-hosted",
        "name": "WordPress.com",
        "confidence": 0.95,
        "details": {
            "platform": "WordPress.com",
            "siteId": 123,
            "siteName": "My Epic Blog",
            "siteUrl": "http://my-epic-blog.wordpress.com",
            "message": "Connect with WordPress.com (OAuth) to import everything, drafts and media included.",
        },
    }
    assert [match["source"] for match in data["matches"]] == ["blogplatform-hosted"]
    assert data["suggestedAction"]["action"] == "oauth"


def test_probe_of_an_unknown_site_suggests_an_upload(admin_api, web, settings):
    settings.CMS_IMPORT_HOSTED_API = web.base
    response = admin_api.post(PROBE, {"url": web.base}, format="json")

    assert response.json()["data"] == {
        "url": web.base,
        "best": None,
        "matches": [],
        "suggestedAction": {
            "action": "upload",
            "source": None,
            "message": "No known platform answered at this address; upload an export file instead.",
        },
    }


PRIVATE_HELP = (
    " The server never fetches private, loopback or link-local addresses (they could reach its own network), so a"
    " site there cannot be probed: export it (WordPress: Tools → Export → All content) and upload the file instead."
)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:9/", "127.0.0.1 is not fetched: it resolves to a loopback address (127.0.0.1)."),
        (
            "http://blog.lan:8080/",
            "blog.lan is not fetched: it resolves to a private-network address (192.168.1.5).",
        ),
        (
            "http://169.254.169.254/",
            "169.254.169.254 is not fetched: it resolves to a link-local address (cloud metadata services live "
            "here) (169.254.169.254).",
        ),
        ("http://[::1]/", "::1 is not fetched: it resolves to a loopback address (::1)."),
        ("http://10.0.0.8", "10.0.0.8 is not fetched: it resolves to a private-network address (10.0.0.8)."),
    ],
)
def test_probe_of_a_private_address_is_refused_saying_why(admin_api, settings, monkeypatch, url, reason):
    settings.CMS_IMPORT_HOSTED_API = "http://127.0.0.1:9"
    # A name on the user's own network, as a local WordPress often has.
    monkeypatch.setattr(
        safehttp,
        "resolve_host",
        lambda host, port: [ipaddress.ip_address("192.168.1.5")] if host == "blog.lan" else [],
    )
    response = admin_api.post(PROBE, {"url": url}, format="json")

    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"url: {reason}{PRIVATE_HELP}",
            "details": {"url": f"{reason}{PRIVATE_HELP}"},
        },
    }


def test_probe_of_a_private_address_runs_no_probe(admin_api, web, settings):
    # The hosted source would ask its (public) API about any host; for a refused address it is not asked either.
    settings.CMS_IMPORT_HOSTED_API = web.base
    response = admin_api.post(PROBE, {"url": "http://192.168.1.20/"}, format="json")

    assert response.status_code == 400
    assert web.requests == []


def test_probe_of_a_url_with_credentials_is_refused(admin_api):
    response = admin_api.post(PROBE, {"url": "https://admin:secret@example.com/"}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "url": "URLs with a user name or password in them are not fetched; send credentials in a header."
    }


def test_probe_needs_an_http_url(admin_api):
    response = admin_api.post(PROBE, {"url": "file:///etc/passwd"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "url": "Give an http or https address, e.g. https://example.com."
    }


def test_hosted_site_imports_posts_pages_terms_authors_and_media(admin_api, hosted):
    response = admin_api.post(
        "/_cms/api/import/blogplatform/analyze",
        {"source": "blogplatform-hosted", "url": hosted.base, "accessToken": "secret-token"},
        format="json",
    )
    assert response.status_code == 201
    analysis = response.json()["data"]
    assert analysis["site"]["title"] == "My Epic Blog"
    assert [(item["name"], item["count"]) for item in analysis["postTypes"]] == [("page", 1), ("post", 1)]
    assert analysis["attachments"] == 1
    assert [author["login"] for author in analysis["authors"]] == ["admin", "restapiclientfixtureuser"]

    response = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json")

    assert response.status_code == 200
    job = response.json()["data"]
    assert job["state"] == "completed"
    assert job["summary"]["imported"] == {"pages": {"created": 1}, "posts": {"created": 1}}
    assert job["summary"]["kinds"] == {
        "attachments": 1,
        "collections": 2,
        "entries": 2,
        "taxonomies": 2,
        "terms": 2,
    }
    (item,) = all_entries(admin_api, "posts")
    assert (item["slug"], item["status"], item["data"]["title"]) == (
        "restapi-client-fixture-post",
        "published",
        "REST API Client Fixture: Post",
    )
    assert item["data"]["content"][0]["children"][0]["text"] == "Updated post content."
    assert [term["slug"] for term in all_pages(admin_api, "/_cms/api/taxonomies/category/terms")] == [
        "uncategorized"
    ]
    # Every API request carried the token; the finished import keeps no credentials.
    api = {path: value for path, value in hosted.authorizations.items() if path.startswith("/wp/v2/")}
    assert len(api) == 6
    assert set(api.values()) == {"Bearer secret-token"}
    assert "secret-token" not in json.dumps(admin_api.get(job_url(job["id"])).json())
    from apps.importer.models import ImportAnalysis

    assert ImportAnalysis.objects.get(pk=analysis["analysisId"]).source_input == {"url": hosted.base}


def test_hosted_sites_protected_and_private_posts_are_drafts(admin_api, hosted):
    api = f"/wp/v2/sites/127.0.0.1%3A{hosted.server_address[1]}"
    [post] = json.loads((REST / "PostsCollection.json").read_text())[:1]
    protected = {**post, "id": 901, "slug": "protected", "content": {**post["content"], "protected": True}}
    private = {**post, "id": 902, "slug": "private", "status": "private"}
    hosted.routes[f"{api}/posts"] = (
        200,
        json.dumps([post, protected, private]),
        {"Content-Type": "application/json", "X-WP-Total": "3", "X-WP-TotalPages": "1"},
    )
    analysis = admin_api.post(
        "/_cms/api/import/blogplatform/analyze",
        {"source": "blogplatform-hosted", "url": hosted.base, "accessToken": "secret-token"},
        format="json",
    ).json()["data"]

    job = admin_api.post(EXECUTE, {"analysisId": analysis["analysisId"]}, format="json").json()["data"]

    assert [(warning["code"], warning["sourceId"]) for warning in job["summary"]["warnings"]] == [
        ("PASSWORD_PROTECTED", 901),
        ("PRIVATE", 902),
    ]
    assert sorted((item["slug"], item["status"]) for item in all_entries(admin_api, "posts")) == [
        ("private", "draft"),
        ("protected", "draft"),
        ("restapi-client-fixture-post", "published"),
    ]


def test_the_rest_source_does_not_import(admin_api, self_hosted):
    response = admin_api.post(
        "/_cms/api/import/blogplatform/analyze",
        {"source": "blogplatform-rest", "url": self_hosted.base},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["message"] == (
        "The self-hosted REST source only probes; import from an export file instead."
    )


def test_an_unknown_source_is_404(admin_api):
    response = admin_api.post(
        "/_cms/api/import/blogplatform/analyze",
        {"source": "nope", "url": "https://example.com"},
        format="json",
    )
    assert response.status_code == 404
    assert response.json()["error"]["message"] == (
        "No import source 'nope'; sources: wxr, blogplatform-hosted, blogplatform-rest."
    )


class _Probing(Plugin):
    id = "probing"
    name = "Probing"

    def import_sources(self):
        return [
            ImportSourceContribution(
                id="ghost",
                name="Ghost",
                analyze=lambda source_input: {},
                fetch=lambda source_input: iter(()),
                probe=lambda url: {"confidence": 0.5, "action": "upload", "details": {"platform": "Ghost"}},
            )
        ]


def test_enabled_plugins_add_sources(admin_api, monkeypatch, settings, web):
    from apps.plugins import registry as plugin_registry

    settings.CMS_IMPORT_HOSTED_API = web.base
    monkeypatch.setattr(
        plugin_registry, "active_import_sources", lambda: [("probing", _Probing().import_sources()[0])]
    )

    assert [source.id for source in registry.all_sources()] == [
        "wxr",
        "blogplatform-hosted",
        "blogplatform-rest",
        "ghost",
    ]
    response = admin_api.post(PROBE, {"url": web.base}, format="json")
    assert response.json()["data"]["best"] == {
        "source": "ghost",
        "name": "Ghost",
        "confidence": 0.5,
        "details": {"platform": "Ghost"},
    }
