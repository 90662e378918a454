"""Schema and taxonomy operations read one input model on both faces: the same bad input gets the same error from
REST and from the tool, and what REST accepted the tool accepts too (issue 18)."""

from __future__ import annotations

import pytest

from apps.accounts.permissions import Actor
from apps.schema.field_types import FIELD_TYPES
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_collection

COLLECTIONS = "/_cms/api/schema/collections"
SLUG_HINT = "Use lowercase letters, digits and underscores, starting with a letter (^[a-z][a-z0-9_]*$)."
NAME_HINT = "Use lowercase letters, digits and underscores, starting with a letter (e.g. category, post_tag)."


@pytest.mark.parametrize(
    ("tool", "identity", "path", "body", "details"),
    [
        (
            "schema_create_collection",
            {},
            COLLECTIONS,
            {"slug": "recipes", "label": "  "},
            {"label": "Required: the plural display name, e.g. 'Blog posts'."},
        ),
        (
            "schema_create_collection",
            {},
            COLLECTIONS,
            {"slug": "Bad-Slug", "label": "X"},
            {"slug": SLUG_HINT},
        ),
        (
            "schema_create_collection",
            {},
            COLLECTIONS,
            {"slug": "recipes", "label": "Recipes", "supports": ["drafts", "comments"]},
            {
                "supports": "Unknown value(s) comments; allowed: drafts, revisions, preview, scheduling, search."
            },
        ),
        (
            "schema_create_field",
            {"collection": "posts"},
            f"{COLLECTIONS}/posts/fields",
            {"slug": "colour", "label": "Colour", "type": "color"},
            {"type": f"Unknown field type 'color'; allowed: {', '.join(FIELD_TYPES)}."},
        ),
        (
            "schema_create_field",
            {"collection": "posts"},
            f"{COLLECTIONS}/posts/fields",
            {"slug": "code", "label": "Code", "type": "string", "validation": {"min": 1, "colour": "red"}},
            {
                "validation.min": "Does not apply to string fields; allowed: maxLength, minLength, pattern.",
                "validation.colour": "Does not apply to string fields; allowed: maxLength, minLength, pattern.",
            },
        ),
        (
            "schema_create_field",
            {"collection": "posts"},
            f"{COLLECTIONS}/posts/fields",
            {
                "slug": "related",
                "label": "R",
                "type": "reference",
                "options": {"collection": "posts", "allowMultiple": "yes"},
            },
            {"options.allowMultiple": "Expected true or false."},
        ),
        (
            "taxonomy_create",
            {},
            "/_cms/api/taxonomies",
            {"name": "Post Tags", "label": "Tags"},
            {"name": NAME_HINT},
        ),
        (
            "taxonomy_create",
            {},
            "/_cms/api/taxonomies",
            {"name": "tag", "label": " ", "collections": ["p" * 64]},
            {
                "label": "This field may not be blank.",
                "collections.0": "Ensure this field has no more than 63 characters.",
            },
        ),
        (
            "taxonomy_create_term",
            {"taxonomy": "tag"},
            "/_cms/api/taxonomies/tag/terms",
            {"label": "Python", "description": "x" * 5001},
            {"description": "Ensure this field has no more than 5000 characters."},
        ),
    ],
)
def test_rest_and_the_tool_refuse_the_same_input_alike(
    admin_api, admin_mcp, tool, identity, path, body, details
):
    make_collection("posts", fields=[("title", "string")])
    taxonomy_services.taxonomy_create(actor=Actor.system(), name="tag", label="Tags", collections=["posts"])
    response = admin_api.post(path, body, format="json")
    assert response.status_code == 400
    rest = response.json()["error"]
    assert (rest["code"], rest["details"]) == ("VALIDATION_ERROR", details)
    text, error = admin_mcp.fails(tool, {**identity, **body})
    assert error == rest
    assert text.startswith(f"[VALIDATION_ERROR] {rest['message']}")


def test_a_field_the_tool_adds_takes_what_rest_takes(admin_api, admin_mcp):
    make_collection("posts", fields=[("title", "string"), ("body", "text")])
    field = admin_mcp.ok(
        "schema_create_field",
        {
            "collection": "posts",
            "slug": "kicker",
            "label": "Kicker",
            "type": "string",
            "widget": "short",
            "sortOrder": 0,
        },
    )
    assert (field["widget"], field["sortOrder"]) == ("short", 0)
    assert field == admin_api.get(f"{COLLECTIONS}/posts/fields/kicker").json()["data"]


def test_terms_without_a_slug_and_one_level_of_terms_as_rest(admin_api, admin_mcp):
    make_collection("posts", fields=[("title", "string")])
    taxonomy_services.taxonomy_create(
        actor=Actor.system(), name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    arts = admin_mcp.ok("taxonomy_create_term", {"taxonomy": "category", "label": "Arts & Music"})
    assert arts["slug"] == "arts-music"
    admin_mcp.ok("taxonomy_create_term", {"taxonomy": "category", "label": "Jazz", "parentId": arts["id"]})
    admin_mcp.ok("taxonomy_create_term", {"taxonomy": "category", "label": "World", "parentId": None})
    for parent, slugs in (("", ["arts-music", "world"]), (arts["id"], ["jazz"])):
        page = admin_mcp.ok("taxonomy_list_terms", {"taxonomy": "category", "parentId": parent})
        assert [item["slug"] for item in page["items"]] == slugs
        rest = admin_api.get("/_cms/api/taxonomies/category/terms", {"parentId": parent}).json()["data"]
        assert page == rest
