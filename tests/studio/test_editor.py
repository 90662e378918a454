"""The studio's entry editor: a form per collection over the content services, checked through the REST API.

Forms are read from the page as a browser would submit them (``form_values``), so "save without changes" posts
exactly what the page showed."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.site.models import SiteSettings
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_byline, make_collection, make_entry, make_media, make_user

pytestmark = pytest.mark.django_db
STUDIO = "/_cms/admin/content"


class FormReader(HTMLParser):
    """The controls of ``<form id="entry-form">`` and what submitting it sends (successful controls only)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.pairs: list[tuple[str, str]] = []
        self.in_form = False
        self.textarea: dict | None = None
        self.select: dict | None = None
        self.option: dict | None = None
        self.disabled_depth = 0
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == "entry-form":
            self.in_form = True
            return
        if not self.in_form:
            return
        if tag == "fieldset":
            self.depth += 1
            if "disabled" in attrs and not self.disabled_depth:
                self.disabled_depth = self.depth
        disabled = bool(self.disabled_depth) or "disabled" in attrs
        name = attrs.get("name")
        if tag == "input" and name and not disabled:
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.pairs.append((name, attrs.get("value", "on")))
            elif kind not in ("submit", "button", "file"):
                self.pairs.append((name, attrs.get("value", "")))
        elif tag == "textarea" and name and not disabled:
            self.textarea = {"name": name, "text": ""}
        elif tag == "select" and name and not disabled:
            self.select = {"name": name, "chosen": [], "first": None}
        elif tag == "option" and self.select is not None:
            self.option = {"value": attrs.get("value"), "text": "", "selected": "selected" in attrs}

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea["text"] += data
        if self.option is not None:
            self.option["text"] += data

    def handle_endtag(self, tag):
        if not self.in_form:
            return
        if tag == "form":
            self.in_form = False
        elif tag == "fieldset":
            if self.disabled_depth == self.depth:
                self.disabled_depth = 0
            self.depth -= 1
        elif tag == "textarea" and self.textarea is not None:
            text = self.textarea["text"]
            # The HTML parser drops one newline right after <textarea>; browsers send line breaks as CRLF.
            text = text[1:] if text.startswith("\n") else text
            self.pairs.append((self.textarea["name"], text.replace("\n", "\r\n")))
            self.textarea = None
        elif tag == "option" and self.option is not None:
            value = self.option["value"] if self.option["value"] is not None else self.option["text"]
            if self.select["first"] is None:
                self.select["first"] = value
            if self.option["selected"]:
                self.select["chosen"].append(value)
            self.option = None
        elif tag == "select" and self.select is not None:
            chosen = self.select["chosen"] or ([self.select["first"]] if self.select["first"] is not None else [])
            self.pairs.extend((self.select["name"], value) for value in chosen[:1])
            self.select = None


def form_values(html: str) -> dict[str, list[str]]:
    reader = FormReader()
    reader.feed(html)
    values: dict[str, list[str]] = {}
    for name, value in reader.pairs:
        values.setdefault(name, []).append(value)
    return values


def submit(client: Client, url: str, values: dict, **changes):
    """Post ``values`` (as read from the page) with ``changes`` applied: name → value, or None to leave a control
    out."""
    data = {name: list(items) for name, items in values.items()}
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value if isinstance(value, list) else [value]
    return client.post(url, data)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def edit_url(collection: str, entry_id: str) -> str:
    return f"{STUDIO}/{collection}/{entry_id}/"


def created_id(response) -> str:
    assert response.status_code == 302, response.content.decode()[:3000]
    match = re.fullmatch(r"/_cms/admin/content/[a-z_]+/([0-9A-Z]{26})/", response["Location"])
    assert match, response["Location"]
    return match.group(1)


def rest_entry(admin_api, collection: str, entry_id: str) -> dict:
    response = admin_api.get(f"/_cms/api/content/{collection}/{entry_id}")
    assert response.status_code == 200
    return response.json()["data"]


def revision_count(admin_api, collection: str, entry_id: str) -> int:
    response = admin_api.get(f"/_cms/api/content/{collection}/{entry_id}/revisions")
    assert response.status_code == 200
    return response.json()["data"]["total"]


@pytest.fixture
def editor_user():
    return make_user(Role.EDITOR, email="editor@example.com", name="Edith Editor")


@pytest.fixture
def editor(editor_user) -> Client:
    return signed_in(editor_user)


PT = [
    {
        "_type": "block",
        "_key": "b1",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": "s1", "text": "Hello ", "marks": []}],
    }
]


@pytest.fixture
def kitchen(posts_collection):
    """A collection with a field of every type."""
    SiteSettings.objects.update_or_create(pk=1, defaults={"timezone": "Europe/Paris"})
    return make_collection(
        "kitchen",
        label="Kitchen",
        label_singular="Sink",
        supports=["drafts", "revisions", "scheduling"],
        fields=[
            {"slug": "title", "type": "string", "required": True, "validation": {"maxLength": 160}},
            {"slug": "code", "type": "string", "validation": {"pattern": "[A-Z]{3}"}},
            {"slug": "body", "type": "text", "options": {"rows": 4}},
            {"slug": "price", "type": "number", "validation": {"min": 0}},
            {"slug": "count", "type": "integer", "validation": {"max": 100}},
            {"slug": "flag", "type": "boolean"},
            {"slug": "when", "type": "datetime"},
            {"slug": "size", "type": "select", "validation": {"options": ["small", "large"]}},
            {"slug": "colours", "type": "multiSelect", "validation": {"options": ["red", "green", "blue"]}},
            {"slug": "handle", "type": "slug"},
            {"slug": "extra", "type": "json"},
            {"slug": "picture", "type": "image"},
            {"slug": "attachment", "type": "file"},
            {"slug": "related", "type": "reference", "options": {"collection": "posts", "allowMultiple": True}},
            {"slug": "content", "type": "portableText"},
        ],
    )


def test_every_widget_round_trips_its_value_and_an_unchanged_save_makes_no_revision(
    kitchen, posts_collection, editor, admin_api
):
    post = make_entry(posts_collection, {"title": "Target"})
    image = make_media(filename="cat.png")
    document = make_media(content=b"%PDF-1.4\n%%EOF\n", filename="doc.pdf")
    page = editor.get(f"{STUDIO}/kitchen/new")
    assert page.status_code == 200
    html = page.content.decode()
    # Labels, required, hints from validation, the zone of date-times, the pickers' hooks.
    assert '<label for="f-title">Title <span class="required">(required)</span></label>' in html
    assert "At most 160 characters." in html
    assert 'data-maxlength="160"' in html
    assert "Must match the pattern [A-Z]{3}." in html
    assert 'rows="4"' in html
    assert 'type="number" id="f-price" name="f-price" value="" step="any" min="0"' in html
    assert 'step="1" max="100"' in html
    assert '<span class="meta">Europe/Paris</span>' in html
    assert '<option value="small">small</option>' in html
    assert 'data-media-field="picture" data-media-kind="image"' in html
    assert 'data-reference-field="related" data-target="posts" data-multiple="true"' in html
    assert '<textarea name="f-content" class="code" data-portable-text="content" rows="12"' in html
    assert 'data-slug-source="f-title"' in html
    assert '<script src="/static/studio/editor.js" defer></script>' in html

    values = form_values(html)
    response = submit(
        editor,
        f"{STUDIO}/kitchen/new",
        values,
        **{
            "f-title": "Everything sink",
            "f-code": "ABC",
            "f-body": "Line one\r\nLine two",
            "f-price": "9.5",
            "f-count": "42",
            "f-flag": "on",
            "f-when": "2026-07-01T14:30",
            "f-size": "large",
            "f-colours": ["red", "blue"],
            "f-handle": "My Handle",
            "f-extra": '{"a": [1, 2, {"b": null}]}',
            "f-picture": image.pk,
            "f-picture-alt": "A cat",
            "f-attachment": document.pk,
            "f-related": post.pk,
            "f-content": json.dumps(PT),
            "_action": "save",
        },
    )
    entry_id = created_id(response)
    stored = rest_entry(admin_api, "kitchen", entry_id)["item"]
    data = stored["data"]
    assert stored["status"] == "draft"
    assert stored["slug"] == "everything-sink"
    assert data["title"] == "Everything sink"
    assert data["body"] == "Line one\nLine two"
    assert data["price"] == 9.5 and data["count"] == 42 and data["flag"] is True
    # 14:30 in Paris in summer is 12:30 UTC.
    assert data["when"] == "2026-07-01T12:30:00.000Z"
    assert data["size"] == "large"
    assert data["colours"] == ["red", "blue"]
    assert data["handle"] == "my-handle"
    assert data["extra"] == {"a": [1, 2, {"b": None}]}
    assert data["picture"]["id"] == image.pk and data["picture"]["alt"] == "A cat"
    assert data["attachment"]["id"] == document.pk
    assert data["related"] == [post.pk]
    assert data["content"][0]["children"][0]["text"] == "Hello "
    revisions = revision_count(admin_api, "kitchen", entry_id)

    # Reload: every widget shows the stored value, and sending the page back unchanged changes nothing.
    page = editor.get(edit_url("kitchen", entry_id))
    html = page.content.decode()
    assert 'value="2026-07-01T14:30:00"' in html
    assert "cat.png" in html and "doc.pdf" in html
    values = form_values(html)
    assert values["f-colours"] == ["red", "blue"]
    response = submit(editor, edit_url("kitchen", entry_id), values, _action="save")
    assert response.status_code == 302
    assert rest_entry(admin_api, "kitchen", entry_id)["item"]["data"] == data
    assert revision_count(admin_api, "kitchen", entry_id) == revisions


def test_values_stored_through_rest_survive_an_unchanged_save(kitchen, posts_collection, editor, admin_api):
    """Values the form did not write (seconds and milliseconds, a stored order of choices, media keys the form does
    not show, a float that is whole) come back as they were."""
    post = make_entry(posts_collection, {"title": "One"})
    other = make_entry(posts_collection, {"title": "Two"})
    created = admin_api.post(
        "/_cms/api/content/kitchen",
        {
            "data": {
                "title": "From REST",
                "body": "a\nb\n",
                "price": 3.0,
                "flag": False,
                "when": "2026-01-31T23:59:58.123Z",
                "colours": ["blue", "red"],
                "picture": {"url": "https://example.com/x.png", "alt": "x", "width": 10, "height": 5},
                "related": [other.pk, post.pk],
                "content": PT,
            }
        },
        format="json",
    )
    assert created.status_code == 201
    entry_id = created.json()["data"]["item"]["id"]
    data = created.json()["data"]["item"]["data"]
    revisions = revision_count(admin_api, "kitchen", entry_id)
    values = form_values(editor.get(edit_url("kitchen", entry_id)).content.decode())
    assert values["f-when"] == ["2026-02-01T00:59:58.123"]
    response = submit(editor, edit_url("kitchen", entry_id), values, _action="save")
    assert response.status_code == 302
    assert rest_entry(admin_api, "kitchen", entry_id)["item"]["data"] == data
    assert revision_count(admin_api, "kitchen", entry_id) == revisions


def test_service_errors_are_shown_next_to_their_fields_with_400(kitchen, editor, admin_api):
    values = form_values(editor.get(f"{STUDIO}/kitchen/new").content.decode())
    response = submit(
        editor, f"{STUDIO}/kitchen/new", values, **{"f-title": "", "f-code": "abc", "f-count": "101"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'aria-required="true" aria-describedby="f-title-hint f-title-error" aria-invalid="true"' in html
    assert '<p class="error" id="f-title-error">Required: give this field a value.</p>' in html
    assert 'aria-describedby="f-code-hint f-code-error" aria-invalid="true"' in html
    assert '<p class="error" id="f-code-error">Must match the pattern [A-Z]{3}.</p>' in html
    assert '<p class="error" id="f-count-error">Must be at most 100 (got 101).</p>' in html
    # What was typed is kept.
    assert 'name="f-code" value="abc"' in html
    assert admin_api.get("/_cms/api/content/kitchen").json()["data"]["items"] == []


def test_invalid_json_is_refused_with_a_clear_message(kitchen, editor):
    values = form_values(editor.get(f"{STUDIO}/kitchen/new").content.decode())
    response = submit(editor, f"{STUDIO}/kitchen/new", values, **{"f-title": "T", "f-extra": "{nope"})
    assert response.status_code == 400
    html = response.content.decode()
    assert '<p class="error" id="f-extra-error">Not valid JSON: Expecting property name enclosed in double quotes' in html
    assert "{nope</textarea>" in html
