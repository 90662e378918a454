"""One entry over REST and a batch of rows (``entry_create_many``, the importer's path) are refused by the same rules
in the same words: both plan each entry with ``plan_entry``. A batch names the row (``rows.N.``) before each problem.

The batch has no HTTP face of its own (the importer calls it, and redoes a refused batch one item at a time), so it is
called as the importer calls it."""

from __future__ import annotations

import pytest
from django.test import override_settings

from apps.accounts.permissions import Actor
from apps.content.models import Entry
from apps.content.services import entry_create_many
from apps.core.errors import CmsError
from tests.content.conftest import POSTS, error_of
from tests.factories import make_byline, make_entry

GOOD = {"data": {"title": "Fine"}, "slug": "fine"}
UNKNOWN_BYLINE = "01HZZZZZZZZZZZZZZZZZZZZZZZ"


def batch_error(collection, row) -> dict:
    """The error of a batch whose second row is ``row`` (the first is fine), as the wire shows an error."""
    with pytest.raises(CmsError) as refused:
        entry_create_many(actor=Actor.system(), collection=collection, rows=[dict(GOOD), row])
    return refused.value.as_dict()


def in_row(details: dict, index: int) -> dict:
    return {f"rows.{index}.{key}": problem for key, problem in details.items()}


BAD_ROWS = {
    "unknown, missing and invalid values": {
        "data": {"colour": "red", "views": "many"},
        "slug": "bad-values",
    },
    "a slug without letters or digits": {"data": {"title": "x"}, "slug": "!!!"},
    "an unknown locale": {"data": {"title": "x"}, "slug": "elsewhere", "locale": "xx"},
    "an unknown byline": {
        "data": {"title": "x"},
        "slug": "credited",
        "bylines": [{"bylineId": "KNOWN"}, {"bylineId": UNKNOWN_BYLINE}],
    },
    "a byline credited twice": {
        "data": {"title": "x"},
        "slug": "twice",
        "bylines": [{"bylineId": "KNOWN"}, {"bylineId": "KNOWN"}],
    },
}


@override_settings(CMS_LOCALES=["en", "fr"])
@pytest.mark.parametrize("case", list(BAD_ROWS))
def test_a_refused_row_reads_as_the_same_entry_refused_over_rest(admin_api, posts_collection, case):
    known = make_byline().pk
    row = BAD_ROWS[case]
    if "bylines" in row:
        credits = [credit["bylineId"] for credit in row["bylines"]]
        row = {**row, "bylines": [{"bylineId": known if ref == "KNOWN" else ref} for ref in credits]}

    response = admin_api.post(POSTS, row, format="json")
    assert response.status_code == 400
    over_rest = error_of(response)
    in_batch = batch_error(posts_collection, row)

    assert over_rest["code"] == in_batch["code"] == "VALIDATION_ERROR"
    assert in_batch["details"] == in_row(over_rest["details"], 1)
    # A single create names the JSON pointer of a bad value in the request (/data/title); a batch's rows are no
    # request, so its message names the row's key.
    (key, problem), *_ = over_rest["details"].items()
    pointer = over_rest.get("pointers", {}).get(key, key)
    assert over_rest["message"].startswith(f"{pointer}: {problem}")
    assert in_batch["message"] == f"rows.1.{key}: {problem}" + over_rest["message"].removeprefix(
        f"{pointer}: {problem}"
    )
    assert "pointers" not in in_batch
    assert Entry.objects.count() == 0


def test_the_wording_of_each_refusal(admin_api, posts_collection):
    """The words both faces share, stated once."""
    response = admin_api.post(POSTS, BAD_ROWS["unknown, missing and invalid values"], format="json")
    assert error_of(response)["details"] == {
        "colour": "Unknown field 'colour' in collection 'posts'; known fields: title, body, views.",
        "views": 'Expected a number, got "many".',
        "title": "Required: give this field a value.",
    }


def test_a_taken_slug_is_the_same_duplicate_slug(admin_api, posts_collection):
    holder = make_entry(posts_collection, {"title": "Taken"}, slug="taken")
    row = {"data": {"title": "Another"}, "slug": "taken"}

    response = admin_api.post(POSTS, row, format="json")
    assert response.status_code == 409
    over_rest = error_of(response)
    in_batch = batch_error(posts_collection, row)

    message = (
        f"The slug 'taken' is already used by entry {holder.pk} in 'posts' (en); "
        "choose another or omit slug to get a free one."
    )
    assert over_rest == {
        "code": "DUPLICATE_SLUG",
        "message": message,
        "details": {"slug": f"Taken by {holder.pk}."},
    }
    assert in_batch == {
        "code": "DUPLICATE_SLUG",
        "message": message,
        "details": {"rows.1.slug": f"Taken by {holder.pk}."},
    }
    assert Entry.objects.count() == 1


def test_a_batch_states_its_own_rules_per_row(posts_collection):
    """Two rules only a batch has: each row names its slug, and no two rows share one."""
    rows = [dict(GOOD), {"data": {"title": "No slug"}}, {"data": {"title": "Again"}, "slug": "Fine"}]
    with pytest.raises(CmsError) as refused:
        entry_create_many(actor=Actor.system(), collection=posts_collection, rows=rows)
    assert refused.value.as_dict() == {
        "code": "VALIDATION_ERROR",
        "message": "rows.1.slug: Required in a batch: give each row its slug. (and 1 more problem; see details)",
        "details": {
            "rows.1.slug": "Required in a batch: give each row its slug.",
            "rows.2.slug": "'fine' is given to row 0 too.",
        },
    }
    assert Entry.objects.count() == 0
