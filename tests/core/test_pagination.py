"""Keyset pagination through a real list endpoint: complete, stable, and strict about its parameters."""

import json

import pytest

from apps.accounts.models import Role
from tests.factories import make_token, make_user

TOKENS = "/_cms/api/admin/api-tokens"


@pytest.fixture
def seven_tokens(admin_user):
    return [make_token(admin_user, ["content:read"], name=f"token {n}")[0] for n in range(7)]


def test_pages_cover_every_item_once_newest_first(admin_api, seven_tokens):
    seen, cursor, sizes = [], None, []
    while True:
        response = admin_api.get(TOKENS, {"limit": 3, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200
        data = response.json()["data"]
        sizes.append(len(data["items"]))
        seen += [item["id"] for item in data["items"]]
        cursor = data["nextCursor"]
        if cursor is None:
            break
    # The admin client's own token is the eighth.
    assert sizes == [3, 3, 2]
    assert len(seen) == len(set(seen)) == 8
    expected = [token.pk for token in sorted(seven_tokens, key=lambda t: (t.created_at, t.pk), reverse=True)]
    assert [item for item in seen if item in expected] == expected


def test_items_inserted_between_pages_do_not_shift_the_next_page(admin_api, admin_user, seven_tokens):
    first = admin_api.get(TOKENS, {"limit": 3}).json()["data"]
    make_token(admin_user, ["content:read"], name="arrived late")
    second = admin_api.get(TOKENS, {"limit": 3, "cursor": first["nextCursor"]}).json()["data"]
    ids_first = [item["id"] for item in first["items"]]
    ids_second = [item["id"] for item in second["items"]]
    assert not set(ids_first) & set(ids_second)
    assert "arrived late" not in [item["name"] for item in second["items"]]


@pytest.mark.parametrize(
    "cursor",
    [
        "garbage",
        "eyJ4IjoxfQ.AAAA",
        "",
        "a.b.c",
    ],
)
def test_malformed_cursor_is_a_validation_error(admin_api, seven_tokens, cursor):
    response = admin_api.get(TOKENS, {"limit": 3, "cursor": cursor})
    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "VALIDATION_ERROR"
    assert list(body["details"]) == ["cursor"]


def test_a_tampered_cursor_is_refused(admin_api, seven_tokens):
    cursor = admin_api.get(TOKENS, {"limit": 3}).json()["data"]["nextCursor"]
    payload, signature = cursor.split(".")
    import base64

    raw = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[1][1] = "00000000000000000000000000"  # jump to another position
    forged = base64.urlsafe_b64encode(json.dumps(raw).encode()).rstrip(b"=").decode()
    response = admin_api.get(TOKENS, {"limit": 3, "cursor": f"{forged}.{signature}"})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "cursor": "Malformed or altered cursor: pass the nextCursor of the previous page unchanged, "
        "with the same ordering."
    }


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ("0", "Ensure this value is greater than or equal to 1."),
        ("101", "Ensure this value is less than or equal to 100."),
        ("ten", "A valid integer is required."),
    ],
)
def test_limit_outside_1_to_100_is_refused(admin_api, limit, message):
    response = admin_api.get(TOKENS, {"limit": limit})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"limit": message}


def test_default_page_size_is_50(admin_api, admin_user):
    for n in range(55):
        make_token(admin_user, ["content:read"], name=f"t{n}")
    data = admin_api.get(TOKENS).json()["data"]
    assert len(data["items"]) == 50
    assert data["nextCursor"] is not None


def test_one_page_costs_a_constant_number_of_queries(admin_api, admin_user, django_assert_max_num_queries):
    editor = make_user(Role.EDITOR)
    for n in range(30):
        make_token(admin_user if n % 2 else editor, ["content:read"], name=f"t{n}")
    with django_assert_max_num_queries(3):
        # token lookup, last-used update (at most once a minute), the page itself with users joined
        response = admin_api.get(TOKENS, {"limit": 30})
    assert len(response.json()["data"]["items"]) == 30
