"""Collections the schema tests share: ``things`` has one field of each of the 14 types, pointing into ``authors``."""

from __future__ import annotations

import pytest

from apps.media.models import MediaItem
from tests.factories import make_collection, make_entry


@pytest.fixture
def authors():
    collection = make_collection("authors", fields=[{"slug": "name"}])
    return [make_entry(collection, {"name": name}) for name in ("Ada", "Grace")]


@pytest.fixture
def media_records():
    """The media items that image and file values of these tests name by id (records only: no file is read)."""
    return [
        MediaItem.objects.create(
            id=media_id,
            filename=f"{media_id}.png",
            mime_type="image/png",
            size=1,
            width=640,
            height=480,
            storage_key=f"{media_id}.png",
        )
        for media_id in ("m1", "m2")
    ]


@pytest.fixture
def things(authors, media_records):
    """One field of each type, most with validation."""
    return make_collection(
        "things",
        fields=[
            {
                "slug": "s",
                "type": "string",
                "validation": {"minLength": 2, "maxLength": 10, "pattern": "^[a-z ]+$"},
            },
            {"slug": "t", "type": "text", "validation": {"maxLength": 12}, "options": {"rows": 5}},
            {"slug": "n", "type": "number", "validation": {"min": 0, "max": 10}},
            {"slug": "i", "type": "integer", "validation": {"min": -5, "max": 5}},
            {"slug": "b", "type": "boolean"},
            {"slug": "d", "type": "datetime", "validation": {"min": "2020-01-01T00:00:00Z"}},
            {"slug": "sel", "type": "select", "validation": {"options": ["small", "large"]}},
            {"slug": "multi", "type": "multiSelect", "validation": {"options": ["red", "green", "blue"]}},
            {"slug": "pt", "type": "portableText"},
            {"slug": "img", "type": "image"},
            {"slug": "f", "type": "file"},
            {"slug": "ref", "type": "reference", "options": {"collection": "authors"}},
            {
                "slug": "refs",
                "type": "reference",
                "options": {"collection": "authors", "allowMultiple": True},
            },
            {"slug": "j", "type": "json"},
            {"slug": "sl", "type": "slug"},
        ],
    )
