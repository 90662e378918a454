"""The 14 field types of SPEC §2.6 through the content API: each valid value is stored normalised, each invalid one is
refused with VALIDATION_ERROR whose details are keyed by the field's slug and say what is expected."""

from __future__ import annotations

import pytest

from apps.content.models import Entry
from tests.factories import make_entry

THINGS = "/_cms/api/content/things"


def create(api, data: dict):
    return api.post(THINGS, {"data": data}, format="json")


BLOCK = {
    "_type": "block",
    "_key": "k1",
    "style": "h2",
    "children": [{"_type": "span", "_key": "s1", "text": "Hello", "marks": ["strong"]}],
    "markDefs": [],
}


@pytest.mark.parametrize(
    ("slug", "value", "stored"),
    [
        ("s", "ab", "ab"),
        ("s", "ab\ncd", "ab cd"),
        ("t", "line one\nl2", "line one\nl2"),
        ("n", 2.5, 2.5),
        ("n", "7", 7.0),
        ("n", 10, 10),
        ("i", 3, 3),
        ("i", 3.0, 3),
        ("i", "-5", -5),
        ("b", True, True),
        ("b", 0, False),
        ("b", "true", True),
        ("d", "2026-01-31T13:30:00+01:00", "2026-01-31T12:30:00.000Z"),
        ("d", "2026-01-31T12:30:00.123456Z", "2026-01-31T12:30:00.123Z"),
        ("d", "2026-02-01", "2026-02-01T00:00:00.000Z"),
        ("sel", "large", "large"),
        ("multi", ["blue", "red", "blue"], ["blue", "red"]),
        ("multi", [], []),
        ("pt", [BLOCK], [BLOCK]),
        (
            "pt",
            [{"_type": "block", "_key": "a", "children": [{"_type": "span", "_key": "b", "text": "Hi"}]}],
            [
                {
                    "_type": "block",
                    "_key": "a",
                    "style": "normal",
                    "children": [{"_type": "span", "_key": "b", "text": "Hi", "marks": []}],
                    "markDefs": [],
                }
            ],
        ),
        (
            "img",
            {"id": "m1", "url": "https://x.test/a.png", "alt": "A", "width": 640, "height": 480},
            {"id": "m1", "url": "https://x.test/a.png", "alt": "A", "width": 640, "height": 480},
        ),
        ("img", "m1", {"id": "m1"}),
        ("img", {"url": "https://x.test/a.png", "alt": None}, {"url": "https://x.test/a.png"}),
        (
            "f",
            {
                "id": "m2",
                "url": "https://x.test/a.pdf",
                "filename": "a.pdf",
                "mimeType": "application/pdf",
                "size": 9,
            },
            {
                "id": "m2",
                "url": "https://x.test/a.pdf",
                "filename": "a.pdf",
                "mimeType": "application/pdf",
                "size": 9,
            },
        ),
        ("j", {"any": ["thing", 1, None, True]}, {"any": ["thing", 1, None, True]}),
        ("j", 42, 42),
        ("sl", "Hello, World! Ça va?", "hello-world-ça-va"),
        ("sl", "already-a-slug", "already-a-slug"),
    ],
)
def test_valid_values_are_stored_normalised(admin_api, things, slug, value, stored):
    response = create(admin_api, {slug: value})
    assert response.status_code == 201, response.json()
    if slug not in ("img", "f") or "id" not in stored:
        # Values naming a media item are answered resolved from it (tests/content/test_references.py).
        assert response.json()["data"]["item"]["data"] == {slug: stored}
    assert Entry.objects.get(pk=response.json()["data"]["item"]["id"]).data == {slug: stored}


def test_references_store_ids_of_entries_of_the_target(admin_api, things, authors):
    ada, grace = authors
    response = create(admin_api, {"ref": ada.pk.lower(), "refs": [grace.pk, ada.pk, grace.pk]})
    assert response.status_code == 201
    assert response.json()["data"]["item"]["data"] == {"ref": ada.pk, "refs": [grace.pk, ada.pk]}
    # A single id is accepted where several are allowed.
    response = create(admin_api, {"refs": ada.pk})
    assert response.json()["data"]["item"]["data"] == {"refs": [ada.pk]}


def test_a_reference_to_an_entry_of_another_collection_or_in_the_trash_is_refused(admin_api, things, authors):
    ada, grace = authors
    other = make_entry(things, {"s": "xy"})
    Entry.objects.filter(pk=grace.pk).update(deleted_at=grace.created_at)
    response = create(admin_api, {"ref": other.pk, "refs": [ada.pk, grace.pk]})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "ref": f"No entry {other.pk} in collection 'authors'.",
        "refs": f"No entry {grace.pk} in collection 'authors'.",
    }


@pytest.mark.parametrize(
    ("slug", "value", "message"),
    [
        ("s", 12, "Expected text, got 12."),
        ("s", "a", "Must be at least 2 characters long (got 1)."),
        ("s", "abcdefghijk", "Must be at most 10 characters long (got 11)."),
        ("s", "Abc", "Must match the pattern ^[a-z ]+$."),
        ("t", ["x"], 'Expected text, got ["x"].'),
        ("t", "thirteen char", "Must be at most 12 characters long (got 13)."),
        ("n", "ten", 'Expected a number, got "ten".'),
        ("n", True, "Expected a number, got true."),
        ("n", -0.5, "Must be at least 0 (got -0.5)."),
        ("n", 10.5, "Must be at most 10 (got 10.5)."),
        ("i", 1.5, "Expected a whole number, got 1.5."),
        ("i", 6, "Must be at most 5 (got 6)."),
        ("i", -6, "Must be at least -5 (got -6)."),
        ("i", 2**53, "Must be between -9007199254740991 and 9007199254740991."),
        ("b", "yes", 'Expected true or false, got "yes".'),
        ("b", 2, "Expected true or false, got 2."),
        (
            "d",
            "next tuesday",
            'Expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got "next tuesday".',
        ),
        ("d", 1700000000, "Expected an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got 1700000000."),
        ("d", "2019-12-31T23:59:59Z", "Must not be before 2020-01-01T00:00:00.000Z."),
        ("sel", "medium", '"medium" is not one of the allowed values: small, large.'),
        ("sel", ["small"], '["small"] is not one of the allowed values: small, large.'),
        ("multi", "red", 'Expected a list of allowed values, got "red".'),
        ("multi", ["red", "pink"], '"pink" is not one of the allowed values: red, green, blue.'),
        ("pt", "plain text", 'Expected a list of Portable Text blocks, got "plain text".'),
        ("pt", [{"children": []}], "[0]._type: Every block needs a _type, e.g. 'block' for text."),
        (
            "pt",
            [{"_type": "block", "style": "huge", "children": []}],
            "[0].style: Unknown style 'huge'; one of normal, h1, h2, h3, h4, h5, h6, blockquote.",
        ),
        ("img", 5, "Expected a media id or an object with id or url, got 5."),
        ("img", "m9", "No media item m9; give the id of an uploaded media item or an external url."),
        ("f", {"id": "m9"}, "No media item m9; give the id of an uploaded media item or an external url."),
        ("img", {"alt": "no source"}, "Give the media id (id) or an external address (url)."),
        (
            "img",
            {"id": "m1", "size": 3},
            "Unknown key(s) size; allowed: alt, caption, height, id, url, width.",
        ),
        ("img", {"id": "m1", "width": -1}, "width must be a whole number of at least 0."),
        ("img", {"id": "m1", "alt": 3}, "alt must be a string."),
        (
            "f",
            {"id": "m1", "alt": "x"},
            "Unknown key(s) alt; allowed: filename, id, mimeType, size, title, url.",
        ),
        ("f", {"url": "https://x.test/f", "size": "big"}, "size must be a whole number of at least 0."),
        ("ref", ["01HZZZZZZZZZZZZZZZZZZZZZZZ"], 'Expected an entry id, got ["01HZZZZZZZZZZZZZZZZZZZZZZZ"].'),
        ("ref", "not-an-id", 'Not an entry id: "not-an-id".'),
        ("ref", "01HZZZZZZZZZZZZZZZZZZZZZZZ", "No entry 01HZZZZZZZZZZZZZZZZZZZZZZZ in collection 'authors'."),
        ("refs", {"id": "x"}, 'Expected a list of entry ids, got {"id": "x"}.'),
        ("sl", "!!!", '"!!!" has no letters or digits to make a slug from.'),
        ("sl", 5, "Expected text, got 5."),
    ],
)
def test_invalid_values_are_refused_naming_the_field(admin_api, things, slug, value, message):
    response = create(admin_api, {slug: value})
    assert response.status_code == 400
    # The JSON pointer of the bad value: the field, or the part of a Portable Text value at fault.
    inside = {"[0]._type": "/0/_type", "[0].style": "/0/style"}.get(message.split(": ", 1)[0], "")
    pointer = f"/data/{slug}{inside}"
    assert response.json() == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"{pointer}: {message}",
            "details": {slug: message},
            "pointers": {slug: pointer},
        },
    }
    assert not Entry.objects.filter(collection=things).exists()


def test_every_bad_value_is_reported_at_once(admin_api, things):
    response = create(admin_api, {"i": "x", "b": "maybe", "s": "ok", "colour": "red"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"] == {
        "colour": "Unknown field 'colour' in collection 'things'; known fields: s, t, n, i, b, d, sel, multi, pt, "
        "img, f, ref, refs, j, sl.",
        "i": 'Expected a number, got "x".',
        "b": 'Expected true or false, got "maybe".',
    }
    assert error["message"].endswith("(and 2 more problems; see details)")


def test_updates_go_through_the_same_checks(admin_api, things):
    entry = make_entry(things, {"i": 1})
    response = admin_api.patch(f"{THINGS}/{entry.pk}", {"data": {"i": "4", "sl": "New Name"}}, format="json")
    assert response.status_code == 200
    assert response.json()["data"]["item"]["data"] == {"i": 4, "sl": "new-name"}
    response = admin_api.patch(f"{THINGS}/{entry.pk}", {"data": {"i": 9}}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"i": "Must be at most 5 (got 9)."}
    entry.refresh_from_db()
    assert entry.data == {"i": 4, "sl": "new-name"}
