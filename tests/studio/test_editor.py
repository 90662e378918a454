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
            chosen = self.select["chosen"] or (
                [self.select["first"]] if self.select["first"] is not None else []
            )
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
            {
                "slug": "related",
                "type": "reference",
                "options": {"collection": "posts", "allowMultiple": True},
            },
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
    assert 'data-media-field="image"' in html
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


def test_a_string_without_a_value_stays_without_one_and_an_empty_one_stays_empty(kitchen, editor, admin_api):
    """An empty box is either "no value" or "": an untouched save keeps whichever was stored (an imported entry
    with an empty title), and clearing a box that had text clears the field, as before."""
    created = admin_api.post(
        "/_cms/api/content/kitchen", {"data": {"title": "Sink", "body": ""}}, format="json"
    )
    assert created.status_code == 201
    entry_id = created.json()["data"]["item"]["id"]
    data = created.json()["data"]["item"]["data"]
    assert "code" not in data and data["body"] == ""
    revisions = revision_count(admin_api, "kitchen", entry_id)
    values = form_values(editor.get(edit_url("kitchen", entry_id)).content.decode())
    assert submit(editor, edit_url("kitchen", entry_id), values, _action="save").status_code == 302
    assert rest_entry(admin_api, "kitchen", entry_id)["item"]["data"] == data
    assert revision_count(admin_api, "kitchen", entry_id) == revisions
    values = form_values(editor.get(edit_url("kitchen", entry_id)).content.decode())
    response = submit(editor, edit_url("kitchen", entry_id), values, **{"f-code": "ABC", "_action": "save"})
    assert response.status_code == 302
    values = form_values(editor.get(edit_url("kitchen", entry_id)).content.decode())
    assert (
        submit(editor, edit_url("kitchen", entry_id), values, **{"f-code": "", "_action": "save"}).status_code
        == 302
    )
    assert "code" not in rest_entry(admin_api, "kitchen", entry_id)["item"]["data"]


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
    assert (
        '<p class="error" id="f-extra-error">Not valid JSON: Expecting property name enclosed in double quotes'
        in html
    )
    assert "{nope</textarea>" in html


# --- publishing, conflicts, lifecycle ---------------------------------------------------------------------------------


def test_create_then_publish(posts_collection, editor, admin_api):
    values = form_values(editor.get(f"{STUDIO}/posts/new").content.decode())
    entry_id = created_id(
        submit(editor, f"{STUDIO}/posts/new", values, **{"f-title": "Hello", "_action": "save"})
    )
    assert rest_entry(admin_api, "posts", entry_id)["item"]["status"] == "draft"
    page = editor.get(edit_url("posts", entry_id))
    html = page.content.decode()
    assert '<span class="badge draft">Draft</span>' in html
    assert '<button type="submit" name="_action" value="publish">Publish</button>' in html
    response = submit(editor, edit_url("posts", entry_id), form_values(html), _action="publish")
    assert response.status_code == 302
    item = rest_entry(admin_api, "posts", entry_id)["item"]
    assert item["status"] == "published" and item["data"]["title"] == "Hello"
    assert "Published." in editor.get(edit_url("posts", entry_id)).content.decode()


def test_publishing_saves_the_pending_edits_in_the_same_step(posts_collection, editor, admin_api, client_for):
    reader = client_for(role=Role.SUBSCRIBER, scopes=("content:read",))
    entry = make_entry(posts_collection, {"title": "Live"}, status="published")
    values = form_values(editor.get(edit_url("posts", entry.pk)).content.decode())
    # An edit saved as a draft first: the public still reads the live version, and the editor says so.
    submit(editor, edit_url("posts", entry.pk), values, **{"f-title": "Draft edit", "_action": "save"})
    public = reader.get(f"/_cms/api/content/posts/{entry.pk}").json()["data"]["item"]
    assert public["data"]["title"] == "Live"
    html = editor.get(edit_url("posts", entry.pk)).content.decode()
    assert '<span class="badge changed">Published, with unpublished changes</span>' in html
    assert f'<a href="/_cms/admin/content/posts/{entry.pk}/compare">Compare</a>' in html
    assert '<button type="submit" name="_action" value="publish">Publish changes</button>' in html
    # Typing more and pressing "Publish changes" publishes what is in the form, not only what was saved.
    response = submit(
        editor, edit_url("posts", entry.pk), form_values(html), **{"f-title": "Final", "_action": "publish"}
    )
    assert response.status_code == 302
    public = reader.get(f"/_cms/api/content/posts/{entry.pk}").json()["data"]["item"]
    assert public["data"]["title"] == "Final"
    item = rest_entry(admin_api, "posts", entry.pk)["item"]
    assert item["data"]["title"] == "Final" and "liveData" not in item


def test_a_conflicting_save_keeps_both_versions_until_the_person_chooses(posts_collection, editor, admin_api):
    entry = make_entry(posts_collection, {"title": "Start", "body": "Shared body"})
    values = form_values(editor.get(edit_url("posts", entry.pk)).content.decode())
    # Someone else saves in between.
    rev = rest_entry(admin_api, "posts", entry.pk)["_rev"]
    other = admin_api.patch(
        f"/_cms/api/content/posts/{entry.pk}", {"data": {"title": "Theirs"}, "_rev": rev}, format="json"
    )
    assert other.status_code == 200
    response = submit(editor, edit_url("posts", entry.pk), values, **{"f-title": "Mine", "_action": "save"})
    assert response.status_code == 409
    html = response.content.decode()
    assert "Someone else saved this entry while you were editing" in html
    assert f"by <strong>{admin_api.user.name or admin_api.user.email}</strong>" in html
    assert '<ul class="conflict-fields"><li>Title</li></ul>' in html
    assert 'name="f-title" value="Mine"' in html  # nothing typed is lost
    assert '<a class="button" href="/_cms/admin/content/posts/' in html
    assert "Reload the latest version</a>" in html
    assert "<summary>Your version (read-only, to copy from)</summary>" in html
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["data"]["title"] == "Theirs"
    current_rev = rest_entry(admin_api, "posts", entry.pk)["_rev"]
    assert f'name="_overwrite" value="{current_rev}"' in html

    # Saving again with the old _rev is still refused; overwriting deliberately works.
    again = submit(editor, edit_url("posts", entry.pk), values, **{"f-title": "Mine", "_action": "save"})
    assert again.status_code == 409
    kept = form_values(html)
    overwrite = submit(editor, edit_url("posts", entry.pk), kept, _overwrite=current_rev)
    assert overwrite.status_code == 302
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["data"]["title"] == "Mine"


def test_reloading_after_a_conflict_shows_the_latest_version_and_a_copy_of_mine(
    posts_collection, editor, admin_api
):
    entry = make_entry(posts_collection, {"title": "Start"})
    values = form_values(editor.get(edit_url("posts", entry.pk)).content.decode())
    admin_api.patch(f"/_cms/api/content/posts/{entry.pk}", {"data": {"title": "Theirs"}}, format="json")
    assert submit(editor, edit_url("posts", entry.pk), values, **{"f-title": "My words"}).status_code == 409
    html = editor.get(edit_url("posts", entry.pk)).content.decode()
    assert 'name="f-title" value="Theirs"' in html
    assert "Your version from before you reloaded" in html
    assert ">My words</textarea>" in html
    # Shown once.
    assert (
        "Your version from before you reloaded"
        not in editor.get(edit_url("posts", entry.pk)).content.decode()
    )


def test_rest_publish_with_pending_edits_is_one_call(posts_collection, admin_api, client_for):
    """The editor's "Publish changes" is PATCH with data, _rev and status published: one transaction."""
    reader = client_for(role=Role.SUBSCRIBER, scopes=("content:read",))
    entry = make_entry(posts_collection, {"title": "Live"}, status="published")
    rev = rest_entry(admin_api, "posts", entry.pk)["_rev"]
    response = admin_api.patch(
        f"/_cms/api/content/posts/{entry.pk}",
        {"data": {"title": "New"}, "_rev": rev, "status": "published"},
        format="json",
    )
    assert response.status_code == 200
    assert reader.get(f"/_cms/api/content/posts/{entry.pk}").json()["data"]["item"]["data"]["title"] == "New"
    stale = admin_api.patch(
        f"/_cms/api/content/posts/{entry.pk}",
        {"data": {"title": "Lost"}, "_rev": rev, "status": "published"},
        format="json",
    )
    assert stale.status_code == 409
    assert reader.get(f"/_cms/api/content/posts/{entry.pk}").json()["data"]["item"]["data"]["title"] == "New"


def buttons(html: str) -> set[str]:
    return set(re.findall(r"<button type=\"submit\"[^>]*>([^<]+)</button>", html)) & {
        "Save draft",
        "Publish",
        "Publish changes",
        "Unpublish",
        "Schedule",
        "Unschedule",
        "Discard changes",
        "Duplicate",
        "Move to trash",
        "Restore",
    }


def test_buttons_follow_the_state_table_and_the_role(posts_collection):
    contributor = make_user(Role.CONTRIBUTOR, email="c@example.com")
    author = make_user(Role.AUTHOR, email="a@example.com")
    someone = make_user(Role.AUTHOR, email="s@example.com")
    editor_user = make_user(Role.EDITOR, email="e@example.com")
    own_draft = make_entry(posts_collection, {"title": "C"}, author=contributor)
    authors = make_entry(posts_collection, {"title": "A"}, author=author)
    others = make_entry(posts_collection, {"title": "S"}, author=someone)

    page = signed_in(contributor).get(edit_url("posts", own_draft.pk)).content.decode()
    assert buttons(page) == {"Save draft", "Duplicate", "Move to trash"}
    page = signed_in(contributor).get(edit_url("posts", others.pk)).content.decode()
    assert buttons(page) == {"Duplicate"}
    assert "You may read this entry but not change it." in page
    page = signed_in(contributor).get(f"{STUDIO}/posts/new").content.decode()
    assert buttons(page) == {"Save draft"}

    page = signed_in(author).get(edit_url("posts", authors.pk)).content.decode()
    assert buttons(page) == {"Save draft", "Publish", "Schedule", "Duplicate", "Move to trash"}
    page = signed_in(author).get(edit_url("posts", others.pk)).content.decode()
    assert buttons(page) == {"Duplicate"}

    page = signed_in(editor_user).get(edit_url("posts", others.pk)).content.decode()
    assert buttons(page) == {"Save draft", "Publish", "Schedule", "Duplicate", "Move to trash"}
    admin = Actor.system()
    from apps.content import services

    services.entry_publish(actor=admin, entry=others.pk)
    services.entry_update(actor=admin, entry=others.pk, data={"title": "S2"})
    page = signed_in(editor_user).get(edit_url("posts", others.pk)).content.decode()
    assert buttons(page) == {
        "Save draft",
        "Publish changes",
        "Unpublish",
        "Discard changes",
        "Schedule",
        "Duplicate",
        "Move to trash",
    }
    services.entry_trash(actor=admin, entry=others.pk)
    page = signed_in(editor_user).get(edit_url("posts", others.pk)).content.decode()
    assert buttons(page) == {"Duplicate", "Restore"}
    assert '<span class="badge trashed">In the trash</span>' in page


def test_a_contributor_cannot_publish_through_the_form(posts_collection, admin_api):
    contributor = make_user(Role.CONTRIBUTOR, email="c@example.com")
    client = signed_in(contributor)
    values = form_values(client.get(f"{STUDIO}/posts/new").content.decode())
    response = submit(client, f"{STUDIO}/posts/new", values, **{"f-title": "Mine", "_action": "publish"})
    assert response.status_code == 403
    assert "This requires the role author (30) or higher" in response.content.decode()
    assert admin_api.get("/_cms/api/content/posts").json()["data"]["items"] == []


def test_schedule_and_unschedule(posts_collection, editor, admin_api):
    entry = make_entry(posts_collection, {"title": "Later"})
    values = form_values(editor.get(edit_url("posts", entry.pk)).content.decode())
    past = submit(
        editor, edit_url("posts", entry.pk), values, schedule_at="2001-01-01T10:00", _action="schedule"
    )
    assert past.status_code == 400
    assert 'id="schedule_at-error">2001-01-01T10:00:00.000Z is not in the future' in past.content.decode()
    when = (timezone.now() + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M")
    response = submit(
        editor,
        edit_url("posts", entry.pk),
        values,
        **{"f-title": "Later, edited", "schedule_at": when, "_action": "schedule"},
    )
    assert response.status_code == 302
    item = rest_entry(admin_api, "posts", entry.pk)["item"]
    assert item["status"] == "scheduled" and item["data"]["title"] == "Later, edited"
    html = editor.get(edit_url("posts", entry.pk)).content.decode()
    assert "Unschedule" in buttons(html)
    assert editor.post(f"{STUDIO}/posts/{entry.pk}/unschedule").status_code == 302
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["status"] == "draft"


def test_trash_restore_duplicate_and_discard_through_the_action_route(posts_collection, editor, admin_api):
    entry = make_entry(posts_collection, {"title": "Original"}, status="published")
    admin_api.patch(f"/_cms/api/content/posts/{entry.pk}", {"data": {"title": "Edited"}}, format="json")

    assert editor.post(f"{STUDIO}/posts/{entry.pk}/discard").status_code == 302
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["data"]["title"] == "Original"

    duplicated = editor.post(f"{STUDIO}/posts/{entry.pk}/duplicate")
    copy_id = created_id(duplicated)
    copy = rest_entry(admin_api, "posts", copy_id)["item"]
    assert copy["data"]["title"] == "Original (Copy)" and copy["status"] == "draft"

    trashed = editor.post(f"{STUDIO}/posts/{entry.pk}/trash")
    assert trashed.status_code == 302 and trashed["Location"] == edit_url("posts", entry.pk)
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["deletedAt"] is not None
    assert "Moved to the trash." in editor.get(trashed["Location"]).content.decode()

    assert editor.post(f"{STUDIO}/posts/{entry.pk}/restore").status_code == 302
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["deletedAt"] is None

    assert editor.get(f"{STUDIO}/posts/{entry.pk}/trash").status_code == 405
    assert editor.post(f"{STUDIO}/posts/{entry.pk}/explode").status_code == 404


def test_an_action_the_role_does_not_allow_is_refused(posts_collection, admin_api):
    author = make_user(Role.AUTHOR, email="a@example.com")
    owner = make_user(Role.AUTHOR, email="owner@example.com")
    entry = make_entry(posts_collection, {"title": "Not yours"}, status="published", author=owner)
    response = signed_in(author).post(f"{STUDIO}/posts/{entry.pk}/unpublish")
    assert response.status_code == 403
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["status"] == "published"


def test_forms_need_the_csrf_token(posts_collection, editor_user, admin_api):
    entry = make_entry(posts_collection, {"title": "Safe"})
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor_user)
    html = client.get(edit_url("posts", entry.pk)).content.decode()
    values = form_values(html)
    assert values["csrfmiddlewaretoken"]
    without = submit(
        client, edit_url("posts", entry.pk), values, csrfmiddlewaretoken=None, **{"f-title": "Forged"}
    )
    assert without.status_code == 403
    assert client.post(f"{STUDIO}/posts/{entry.pk}/trash").status_code == 403
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["data"]["title"] == "Safe"
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["deletedAt"] is None
    with_token = submit(client, edit_url("posts", entry.pk), values, **{"f-title": "Real"})
    assert with_token.status_code == 302
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["data"]["title"] == "Real"


# --- side panel: terms and bylines -----------------------------------------------------------------------------------


def test_terms_and_bylines_from_the_side_panel(posts_collection, editor, admin_api):
    system = Actor.system()
    categories = taxonomy_services.taxonomy_create(
        actor=system, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    taxonomy_services.taxonomy_create(actor=system, name="tag", label="Tags", collections=["posts"])
    news = taxonomy_services.term_create(actor=system, taxonomy=categories, label="News")
    local = taxonomy_services.term_create(actor=system, taxonomy=categories, label="Local", parent_id=news.pk)
    ada = make_byline("Ada Lovelace")
    guest = make_byline("Grace Guest", is_guest=True)
    entry = make_entry(posts_collection, {"title": "Tagged"})

    html = editor.get(edit_url("posts", entry.pk)).content.decode()
    assert '<li class="depth-1"><label class="check"><input type="checkbox" name="tax-category"' in html
    assert "New ones are created when you save." in html
    values = form_values(html)
    # Add two bylines without saving (the no-JavaScript path), then move the guest up.
    step = submit(editor, edit_url("posts", entry.pk), values, byline_add=ada.pk, _bylines="add")
    assert step.status_code == 200 and "Not saved yet" in step.content.decode()
    step = submit(
        editor,
        edit_url("posts", entry.pk),
        form_values(step.content.decode()),
        byline_add=guest.pk,
        _bylines="add",
    )
    step = submit(editor, edit_url("posts", entry.pk), form_values(step.content.decode()), _bylines="up:1")
    html = step.content.decode()
    assert html.index('Grace Guest</span> <span class="meta">(guest)</span>') < html.index(
        "Ada Lovelace</span>"
    )
    assert rest_entry(admin_api, "posts", entry.pk)["item"]["bylines"] == []

    response = submit(
        editor,
        edit_url("posts", entry.pk),
        form_values(html),
        **{"tax-category": [local.pk], "tax-tag": "Python, brand new", "_action": "save"},
    )
    assert response.status_code == 302
    item = rest_entry(admin_api, "posts", entry.pk)["item"]
    assert [credit["displayName"] for credit in item["bylines"]] == ["Grace Guest", "Ada Lovelace"]
    assert [term["slug"] for term in item["terms"]["category"]] == ["local"]
    assert [term["label"] for term in item["terms"]["tag"]] == ["Python", "brand new"]

    # A contributor may not create tags: an unknown one is an error next to the tag box, nothing saved.
    contributor = make_user(Role.CONTRIBUTOR, email="c@example.com")
    own = make_entry(posts_collection, {"title": "Mine"}, author=contributor)
    client = signed_in(contributor)
    html = client.get(edit_url("posts", own.pk)).content.decode()
    assert "Only existing ones." in html
    refused = submit(
        client,
        edit_url("posts", own.pk),
        form_values(html),
        **{"tax-tag": "python, unheard of", "f-title": "Changed"},
    )
    assert refused.status_code == 400
    assert "No tag &#x27;unheard of&#x27; yet, and you may not add new ones." in refused.content.decode()
    assert rest_entry(admin_api, "posts", own.pk)["item"]["data"]["title"] == "Mine"


def test_no_schedule_button_where_the_collection_does_not_schedule(editor):
    pages = make_collection("pages", supports=["drafts"], fields=[{"slug": "title", "type": "string"}])
    entry = make_entry(pages, {"title": "About"})
    assert buttons(editor.get(edit_url("pages", entry.pk)).content.decode()) == {
        "Save draft",
        "Publish",
        "Duplicate",
        "Move to trash",
    }
