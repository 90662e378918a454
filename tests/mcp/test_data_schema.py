"""Typed schemas per collection (issue 23): schema_get_collection answers the JSON Schema of an entry's data, built
from the same field types that validate values, and a refused value is named by its JSON pointer, over MCP and REST
alike (one validator)."""

from __future__ import annotations

import jsonschema
import pytest

from tests.factories import make_collection, make_media

FIELDS = [
    ("title", "string", {"required": True, "validation": {"minLength": 2, "maxLength": 80}}),
    ("summary", "text", {"validation": {"maxLength": 300}}),
    ("rating", "number", {"validation": {"min": 0, "max": 5}}),
    ("servings", "integer", {"validation": {"min": 1}}),
    ("vegan", "boolean"),
    ("served", "datetime"),
    ("course", "select", {"validation": {"options": ["starter", "main"]}}),
    ("tags", "multiSelect", {"validation": {"options": ["quick", "cheap"]}}),
    ("body", "portableText"),
    ("photo", "image"),
    ("card", "file"),
    ("related", "reference", {"options": {"collection": "recipes", "allowMultiple": True}}),
    ("extra", "json"),
    ("handle", "slug"),
]


@pytest.fixture
def recipes():
    return make_collection("recipes", fields=FIELDS)


def _schema(admin_mcp) -> dict:
    return admin_mcp.ok("schema_get_collection", {"slug": "recipes"})["dataSchema"]


def test_the_data_schema_follows_the_field_types(admin_mcp, recipes):
    schema = _schema(admin_mcp)

    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["title"]
    assert schema["additionalProperties"] is False
    properties = schema["properties"]
    assert list(properties) == [slug for slug, *_ in FIELDS]
    assert properties["title"] == {"title": "Title", "type": "string", "minLength": 2, "maxLength": 80}
    assert properties["summary"] == {"title": "Summary", "type": "string", "maxLength": 300}
    assert properties["rating"] == {"title": "Rating", "type": "number", "minimum": 0, "maximum": 5}
    assert properties["servings"] == {"title": "Servings", "type": "integer", "minimum": 1}
    assert properties["vegan"] == {"title": "Vegan", "type": "boolean"}
    assert properties["served"] == {"title": "Served", "type": "string", "format": "date-time"}
    assert properties["course"] == {"title": "Course", "type": "string", "enum": ["starter", "main"]}
    assert properties["tags"] == {
        "title": "Tags",
        "type": "array",
        "items": {"type": "string", "enum": ["quick", "cheap"]},
    }
    markdown, blocks = properties["body"]["anyOf"]
    assert markdown == {"type": "string", "description": "Markdown, converted to Portable Text."}
    assert blocks["type"] == "array" and blocks["items"]["required"] == ["_type"]
    assert properties["related"]["type"] == "array"
    assert properties["extra"] == {"title": "Extra"}


def test_an_entry_the_tools_accept_fits_the_schema(admin_mcp, recipes):
    photo = make_media(filename="dish.png")
    data = {
        "title": "Soup",
        "summary": "Warm.",
        "rating": 4.5,
        "servings": 2,
        "vegan": True,
        "served": "2026-01-31T12:00:00Z",
        "course": "starter",
        "tags": ["quick"],
        "body": "Boil *water*.",
        "photo": {"id": photo.pk, "alt": "A bowl"},
        "card": {"url": "https://example.com/card.pdf"},
        "related": [],
        "extra": {"any": ["thing"]},
        "handle": "soup",
    }
    validator = jsonschema.Draft202012Validator(_schema(admin_mcp))

    assert list(validator.iter_errors(data)) == []
    admin_mcp.ok("content_create", {"collection": "recipes", "data": data})
    for bad in ({"title": "S"}, {"title": "Soup", "course": "dessert"}, {"title": "Soup", "rating": 6}):
        assert list(validator.iter_errors(bad)), bad
        admin_mcp.fails("content_create", {"collection": "recipes", "data": bad})


def test_refusals_name_the_json_pointer(admin_mcp, recipes):
    text, error = admin_mcp.fails(
        "content_create", {"collection": "recipes", "data": {"title": "Soup", "course": "dessert", "nope": 1}}
    )

    assert error["pointers"] == {"nope": "/data/nope", "course": "/data/course"}
    assert text.startswith("[VALIDATION_ERROR] /data/nope: Unknown field 'nope' in collection 'recipes'")
    assert "\n- /data/nope: Unknown field 'nope'" in text
    assert '\n- /data/course: "dessert" is not one of the allowed values: starter, main.' in text


def test_a_bad_part_of_portable_text_is_pointed_at(admin_mcp, recipes):
    body = [{"_type": "block", "children": [{"_type": "span", "text": "ok"}, {"_type": "span", "text": 5}]}]
    text, error = admin_mcp.fails(
        "content_create", {"collection": "recipes", "data": {"title": "Soup", "body": body}}
    )

    assert error["pointers"] == {"body": "/data/body/0/children/1/text"}
    assert text.startswith("[VALIDATION_ERROR] /data/body/0/children/1/text: ")


def test_updates_and_rest_name_the_same_pointers(admin_mcp, admin_api, recipes):
    entry = admin_mcp.ok("content_create", {"collection": "recipes", "data": {"title": "Soup"}})["item"]
    _, error = admin_mcp.fails(
        "content_update", {"collection": "recipes", "id": entry["id"], "data": {"title": None, "servings": 0}}
    )
    assert error["pointers"] == {"servings": "/data/servings", "title": "/data/title"}
    assert error["message"] == "/data/servings: Must be at least 1 (got 0). (and 1 more problem; see details)"

    response = admin_api.post("/_cms/api/content/recipes", {"data": {"title": 12}}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "VALIDATION_ERROR",
        "message": "/data/title: Expected text, got 12.",
        "details": {"title": "Expected text, got 12."},
        "pointers": {"title": "/data/title"},
    }
