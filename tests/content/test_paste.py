"""POST /_cms/api/portable-text/from-html: what the studio's editor inserts when HTML is pasted (issue 19)."""

from __future__ import annotations

import pytest

from apps.accounts.models import Role
from apps.content.inputs import PASTE_MAX_CHARS
from apps.core import portabletext

pytestmark = pytest.mark.django_db

URL = "/_cms/api/portable-text/from-html"

# What Google Docs puts on the clipboard: one <b> around everything that is not bold, marks as inline styles,
# headings and list items full of spans, an empty paragraph; and Word's MsoNormal paragraphs with <o:p>.
GOOGLE_DOCS = (
    '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-7f3a">'
    '<h2 dir="ltr" style="line-height:1.38;margin-top:18pt"><span style="font-size:16pt;font-weight:400">'
    "Travel notes</span></h2>"
    '<p dir="ltr" style="line-height:1.38"><span style="font-weight:400">We took the </span>'
    '<span style="font-weight:700">night train</span><span style="font-weight:400"> to </span>'
    '<span style="font-style:italic;font-weight:400">Vienna</span><span style="font-weight:400">, see </span>'
    '<a href="https://example.com/timetable" style="text-decoration:none"><span style="color:#1155cc;'
    'text-decoration:underline">the timetable</span></a></p><br>'
    '<p dir="ltr"><span style="font-weight:400"></span></p>'
    '<ul style="margin-top:0"><li dir="ltr" style="list-style-type:disc" aria-level="1">'
    '<p dir="ltr" role="presentation"><span class="c1">Tickets</span></p></li>'
    '<li dir="ltr" aria-level="1"><p dir="ltr" role="presentation"><span>Passports</span></p></li></ul>'
    '<p class="MsoNormal"><o:p>&nbsp;</o:p></p></b>'
)


def shape(blocks):
    """Blocks without their keys: (style, listItem, level, [(text, marks by name)])."""
    out = []
    for block in blocks:
        defs = {d["_key"]: d for d in block["markDefs"]}
        spans = [
            (s["text"], [defs[m]["href"] if m in defs else m for m in s["marks"]]) for s in block["children"]
        ]
        out.append((block["style"], block.get("listItem"), block.get("level"), spans))
    return out


def test_google_docs_html_becomes_clean_portable_text(client_for):
    response = client_for(Role.CONTRIBUTOR, ["content:write"]).post(URL, {"html": GOOGLE_DOCS}, format="json")
    assert response.status_code == 200, response.json()
    blocks = response.json()["data"]
    assert shape(blocks) == [
        ("h2", None, None, [("Travel notes", [])]),
        (
            "normal",
            None,
            None,
            [
                ("We took the ", []),
                ("night train", ["strong"]),
                (" to ", []),
                ("Vienna", ["em"]),
                (", see ", []),
                ("the timetable", ["https://example.com/timetable"]),
            ],
        ),
        ("normal", "bullet", 1, [("Tickets", [])]),
        ("normal", "bullet", 1, [("Passports", [])]),
    ]
    # Valid as a portableText value as it is, with keys of their own (not k1, k2 … that the document may hold).
    normalized, problems = portabletext.normalize(blocks)
    assert problems == {} and normalized == blocks
    assert len({b["_key"] for b in blocks}) == 4 and not any(b["_key"].startswith("k") for b in blocks)
    assert "style" not in str([b["children"] for b in blocks]) and "class" not in str(blocks)


def test_empty_html_gives_no_blocks(admin_api):
    response = admin_api.post(URL, {"html": "<p> </p><p><br></p>"}, format="json")
    assert response.status_code == 200
    assert response.json()["data"] == []


@pytest.mark.parametrize(
    "body",
    [{}, {"html": 5}, {"html": "<p>x</p>", "extra": 1}, {"html": "x" * (PASTE_MAX_CHARS + 1)}],
    ids=["missing", "not-a-string", "unknown-key", "too-long"],
)
def test_bad_input_is_400(admin_api, body):
    response = admin_api.post(URL, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


def test_without_credentials_is_401(api):
    response = api.post(URL, {"html": "<p>x</p>"}, format="json")
    assert response.status_code == 401


def test_subscribers_and_read_only_tokens_are_refused(client_for):
    body = {"html": "<p>x</p>"}
    assert client_for(Role.SUBSCRIBER, ["content:read"]).post(URL, body, format="json").status_code == 403
    assert client_for(Role.ADMIN, ["content:read"]).post(URL, body, format="json").status_code == 403
