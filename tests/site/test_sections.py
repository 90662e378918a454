"""Sections over HTTP (SPEC §4.8): reusable Portable Text with keywords, source and search."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role

SECTIONS = "/_cms/api/sections"
TEXT = [{"_type": "block", "children": [{"_type": "span", "text": "Subscribe!"}]}]


def create(client, **body):
    response = client.post(SECTIONS, body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def test_create_get_update_delete(admin_api):
    section = create(admin_api, title="Newsletter call", keywords=["CTA", "newsletter", "cta"], content=TEXT)
    block = section["content"][0]
    assert section == {
        "id": section["id"],
        "slug": "newsletter-call",
        "title": "Newsletter call",
        "keywords": ["CTA", "newsletter"],
        "content": [
            {
                "_type": "block",
                "_key": block["_key"],
                "style": "normal",
                "markDefs": [],
                "children": [
                    {"_type": "span", "_key": block["children"][0]["_key"], "text": "Subscribe!", "marks": []}
                ],
            }
        ],
        "source": "user",
        "createdAt": section["createdAt"],
        "updatedAt": section["updatedAt"],
    }
    assert admin_api.get(f"{SECTIONS}/newsletter-call").json()["data"] == section
    changed = admin_api.put(f"{SECTIONS}/newsletter-call", {"slug": "signup", "keywords": []}, format="json")
    assert changed.status_code == 200
    assert (changed.json()["data"]["slug"], changed.json()["data"]["keywords"]) == ("signup", [])
    assert changed.json()["data"]["title"] == "Newsletter call"
    assert admin_api.get(f"{SECTIONS}/newsletter-call").status_code == 404
    assert admin_api.delete(f"{SECTIONS}/signup").json() == {"success": True, "data": {"success": True}}
    assert admin_api.get(f"{SECTIONS}/signup").status_code == 404


def test_slugs_are_unique(admin_api):
    create(admin_api, title="Hero", slug="hero")
    assert create(admin_api, title="Hero")["slug"] == "hero-2"
    taken = admin_api.post(SECTIONS, {"title": "Other", "slug": "Hero"}, format="json")
    assert taken.status_code == 409
    assert taken.json()["error"]["code"] == "DUPLICATE_SLUG"
    moved = admin_api.put(f"{SECTIONS}/hero-2", {"slug": "hero"}, format="json")
    assert moved.status_code == 409


@pytest.mark.parametrize(
    ("body", "details"),
    [
        (
            {"title": "X", "content": [{"_type": "chart"}]},
            {
                "content[0]._type": "Unknown block type 'chart'; known types: block, audio, break, button, callout, "
                "code, columns, cover, embed, file, gallery, group, htmlBlock, image, mediaText, sectionReference, "
                "shortcode, table, video."
            },
        ),
        (
            {"title": "X", "keywords": ["x" * 101]},
            {"keywords.0": "Ensure this field has no more than 100 characters."},
        ),
        ({"title": "X", "source": "robot"}, {"source": '"robot" is not a valid choice.'}),
        ({"title": ""}, {"title": "This field may not be blank."}),
    ],
)
def test_validation(admin_api, body, details):
    response = admin_api.post(SECTIONS, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details


@pytest.fixture
def library(admin_api):
    create(admin_api, title="Newsletter signup", keywords=["cta", "email"])
    create(admin_api, title="Pricing table", keywords=["Plans"])
    create(admin_api, title="Imported hero", keywords=["banner"], source="import")
    create(admin_api, title="Contact CTA", keywords=["phone"])


def slugs(response) -> list[str]:
    assert response.status_code == 200, response.json()
    return [item["slug"] for item in response.json()["data"]["items"]]


def test_search_over_title_and_keywords(admin_api, library):
    assert slugs(admin_api.get(SECTIONS, {"search": "cta"})) == ["contact-cta", "newsletter-signup"]
    assert slugs(admin_api.get(SECTIONS, {"search": "PLANS"})) == ["pricing-table"]
    assert slugs(admin_api.get(SECTIONS, {"search": "newsletter email"})) == ["newsletter-signup"]
    assert slugs(admin_api.get(SECTIONS, {"search": "nothing"})) == []


def test_filter_by_source_and_page(admin_api, library):
    assert slugs(admin_api.get(SECTIONS, {"source": "import"})) == ["imported-hero"]
    assert len(slugs(admin_api.get(SECTIONS, {"source": "user"}))) == 3
    first = admin_api.get(SECTIONS, {"limit": 3}).json()["data"]
    rest = admin_api.get(SECTIONS, {"limit": 3, "cursor": first["nextCursor"]}).json()["data"]
    assert [i["slug"] for i in first["items"] + rest["items"]] == [
        "contact-cta",
        "imported-hero",
        "newsletter-signup",
        "pricing-table",
    ]


def test_sections_need_an_editor_to_change(client_for):
    assert client_for(Role.SUBSCRIBER, ["content:read"]).get(SECTIONS).status_code == 200
    assert (
        client_for(Role.AUTHOR, ["content:write"]).post(SECTIONS, {"title": "x"}, format="json").status_code
        == 403
    )
    assert (
        client_for(Role.EDITOR, ["content:write"]).post(SECTIONS, {"title": "x"}, format="json").status_code
        == 201
    )
