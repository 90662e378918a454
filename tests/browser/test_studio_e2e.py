"""The issue's end-to-end stories in real Chromium, each checked afterwards through the REST API: what a person did in
the studio is what the API serves, and what the studio offers each role is what the permission table allows."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import requests
from django.utils import timezone
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.accounts.permissions import Actor, can
from apps.content.services import publish_due
from apps.taxonomy import services as taxonomy_services
from tests.browser.portable_text import select_backwards
from tests.factories import make_collection, make_entry, make_token, make_user, png_bytes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

POSTS = "/_cms/admin/content/posts/"
WRITERS = [Role.CONTRIBUTOR, Role.AUTHOR, Role.EDITOR, Role.ADMIN]


class Rest:
    """The REST API as a script sees it (an admin token) and as a site's front end does (a reader's token, which is
    served only what is published)."""

    def __init__(self, base_url: str, token: str | None = None):
        self.root = f"{base_url}/_cms/api"
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}

    def get(self, path: str) -> requests.Response:
        return requests.get(f"{self.root}{path}", headers=self.headers, timeout=10)

    def entry(self, entry_id: str) -> dict:
        answer = self.get(f"/content/posts/{entry_id}")
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]["item"]

    def upload(self, filename: str, content: bytes, alt: str) -> dict:
        """A media item uploaded as a script would (multipart ``POST /media``)."""
        answer = requests.post(
            f"{self.root}/media",
            headers=self.headers,
            files={"file": (filename, content, "image/png")},
            data={"alt": alt},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        return answer.json()["data"]

    def items(self, path: str) -> list[dict]:
        answer = self.get(path)
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]["items"]


@pytest.fixture
def rest(base_url, transactional_db):
    _, raw = make_token(make_user(Role.ADMIN, email="api.admin@example.com"), ["admin"])
    _, reader = make_token(make_user(Role.SUBSCRIBER, email="front.end@example.com"), ["content:read"])
    return {"admin": Rest(base_url, raw), "public": Rest(base_url, reader)}


@pytest.fixture
def posts(transactional_db):
    return make_collection(
        "posts",
        label="Posts",
        label_singular="Post",
        supports=["drafts", "revisions", "scheduling"],
        fields=[{"slug": "title", "type": "string", "required": True}, {"slug": "body", "type": "text"}],
    )


def choose(page, title: str) -> None:
    page.get_by_role("checkbox", name=f"Choose {title}").check()


def bulk(page, action: str) -> None:
    page.get_by_role("group", name="With the chosen entries").get_by_role(
        "button", name=action, exact=True
    ).click()


def test_an_editor_publishes_trashes_and_restores_entries_from_the_list(studio_browser, posts, rest):
    spring = make_entry(posts, {"title": "Spring opening hours"}, slug="spring")
    make_entry(posts, {"title": "Welcome"}, slug="welcome")
    me = studio_browser(Role.EDITOR)
    page = me.page
    page.goto(POSTS)

    # Publish, confirmed on a page of its own that names what was chosen.
    choose(page, "Spring opening hours")
    bulk(page, "Publish")
    expect(page.get_by_role("heading", name="Publish 1 entry?")).to_be_visible()
    expect(page.get_by_role("listitem").filter(has_text="Spring opening hours")).to_be_visible()
    me.check("bulk-confirm", doc="bulk-confirm")
    page.get_by_role("button", name="Publish 1 entry").click()
    page.wait_for_url(f"**{POSTS}")
    expect(page.get_by_role("status").get_by_text("1 entry published.")).to_be_visible()
    row = page.locator(f"#entry-{spring.pk}")
    expect(row.get_by_text("published", exact=True)).to_be_visible()
    me.check("list-after-publish")
    live = rest["public"].get("/content/posts/spring")
    assert live.status_code == 200 and live.json()["data"]["item"]["data"]["title"] == "Spring opening hours"

    # Move to the trash: gone for the public, listed in the API's trash and in the studio's.
    choose(page, "Spring opening hours")
    bulk(page, "Move to trash")
    page.get_by_role("button", name="Move to trash 1 entry").click()
    page.wait_for_url(f"**{POSTS}")
    expect(page.get_by_role("status").get_by_text("1 entry moved to the trash.")).to_be_visible()
    expect(page.locator(f"#entry-{spring.pk}")).to_have_count(0)
    assert rest["public"].get("/content/posts/spring").status_code == 404
    trashed = rest["admin"].items("/content/posts/trash")
    assert [item["id"] for item in trashed] == [spring.pk]

    page.get_by_role("link", name="Trash").click()
    expect(page.get_by_role("heading", name="Trash: Posts")).to_be_visible()
    me.check("trash", doc="trash")
    page.get_by_role("button", name="Restore Spring opening hours").click()
    expect(page.get_by_role("status").get_by_text("1 entry restored.")).to_be_visible()
    expect(page.get_by_text("The trash is empty.")).to_be_visible()
    assert rest["admin"].items("/content/posts/trash") == []
    restored = rest["admin"].entry(spring.pk)
    assert restored["data"]["title"] == "Spring opening hours"
    page.get_by_role("link", name="Back to Posts").click()
    # Locator assertions wait for the page the click loads; a bare is_visible() would read the one still showing.
    expect(page.locator(f"#entry-{spring.pk}")).to_be_visible()


def test_a_contributor_cannot_publish_even_by_forging_the_form(studio_browser, posts, rest):
    me = studio_browser(Role.CONTRIBUTOR)
    mine = make_entry(posts, {"title": "My first draft"}, slug="mine", author=me.user)
    page = me.page
    page.goto(POSTS)
    actions = page.get_by_role("group", name="With the chosen entries")
    assert actions.get_by_role("button", name="Publish", exact=True).count() == 0
    expect(actions.get_by_role("button", name="Move to trash")).to_be_visible()
    me.check("list-contributor")

    # The button is missing, and the service behind it refuses too: the studio is no way around the table.
    token = page.locator("form.bulk input[name=csrfmiddlewaretoken]").input_value()
    answer = page.request.post(
        "/_cms/admin/content/posts/bulk",
        form={"csrfmiddlewaretoken": token, "action": "publish", "ids": mine.pk, "confirmed": "yes"},
    )
    assert answer.status == 200  # followed back to the list, which says why
    assert "“My first draft” was not published: This requires the role author (30) or higher" in answer.text()
    assert rest["admin"].entry(mine.pk)["status"] == "draft"
    assert rest["public"].get("/content/posts/mine").status_code == 404


@pytest.mark.parametrize("role", WRITERS, ids=lambda role: Role(role).label)
def test_each_role_is_offered_exactly_what_the_permission_table_allows(studio_browser, posts, rest, role):
    me = studio_browser(role)
    actor = Actor.for_session(me.user)
    mine = make_entry(posts, {"title": "Own post"}, slug="own", author=me.user)
    theirs = make_entry(posts, {"title": "Someone else's post"}, slug="theirs", author=make_user(Role.AUTHOR))
    page = me.page
    page.goto(POSTS)
    actions = page.get_by_role("group", name="With the chosen entries")
    offered = {
        name
        for name in ("Publish", "Unpublish", "Move to trash")
        if actions.get_by_role("button", name=name, exact=True).count()
    }
    expected = ({"Publish", "Unpublish"} if can(actor, "content.publish") else set()) | (
        {"Move to trash"} if can(actor, "content.delete") else set()
    )
    assert offered == expected
    me.check(f"list-{Role(role).label}")

    # Trashing both: one's own always goes (content.delete from contributor up), someone else's only from editor up.
    choose(page, "Own post")
    choose(page, "Someone else's post")
    bulk(page, "Move to trash")
    page.get_by_role("button", name="Move to trash 2 entries").click()
    page.wait_for_url(f"**{POSTS}")
    may_trash_theirs = can(actor, "content.delete", owner_id=theirs.author_id)
    status = page.get_by_role("status")
    if may_trash_theirs:
        expect(status.get_by_text("2 entries moved to the trash.")).to_be_visible()
    else:
        expect(status.get_by_text("1 entry moved to the trash.")).to_be_visible()
        expect(status.get_by_text("“Someone else's post” was not moved to the trash:")).to_be_visible()
    trashed = {item["id"] for item in rest["admin"].items("/content/posts/trash")}
    assert trashed == ({mine.pk, theirs.pk} if may_trash_theirs else {mine.pk})

    page.get_by_role("link", name="Trash").click()
    # count() does not wait: read the trash only once it has replaced the list (it ran on the list page under load).
    page.wait_for_url(f"**{POSTS}trash/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Trash")
    assert (page.get_by_role("button", name="Delete permanently: Own post").count() == 1) == can(
        actor, "content.delete_permanent"
    )
    me.check(f"trash-{Role(role).label}")


# --- the entry editor -------------------------------------------------------------------------------------------------


@pytest.fixture
def taxonomies(posts):
    return make_taxonomies()[0]


def make_taxonomies():
    system = Actor.system()
    categories = taxonomy_services.taxonomy_create(
        actor=system, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    tags = taxonomy_services.taxonomy_create(actor=system, name="tag", label="Tags", collections=["posts"])
    news = taxonomy_services.term_create(actor=system, taxonomy=categories, label="News")
    taxonomy_services.term_create(actor=system, taxonomy=categories, label="Harbour", parent_id=news.pk)
    taxonomy_services.term_create(actor=system, taxonomy=categories, label="Events")
    return categories, tags


def save(page, button: str, message: str) -> None:
    """Press a lifecycle button and wait for the editor page to come back saying ``message``."""
    page.get_by_role("complementary", name="Entry settings").get_by_role(
        "button", name=button, exact=True
    ).click()
    page.get_by_role("status").get_by_text(message, exact=True).wait_for()


def entry_id_of(page) -> str:
    return re.search(r"/content/posts/([0-9A-Z]{26})/", page.url).group(1)


def test_an_editor_writes_publishes_edits_and_publishes_the_changes(studio_browser, taxonomies, rest):
    # A fixed address, so that the pictures in docs/studio/ are the same from run to run.
    me = studio_browser(user=make_user(Role.EDITOR, email="editor@example.com", name="Edith Editor"))
    page = me.page
    page.goto(POSTS)
    page.get_by_role("link", name="New post").click()
    page.wait_for_url("**/content/posts/new")
    expect(page.get_by_role("heading", name="New post")).to_be_visible()
    page.get_by_role("textbox", name="Title").fill("Harbour festival")
    page.get_by_role("textbox", name="Body").fill("Boats, music and food on the quay.")
    settings = page.get_by_role("complementary", name="Entry settings")
    categories = settings.get_by_role("group", name="Categories")
    categories.get_by_role("checkbox", name="Harbour").check()
    categories.get_by_role("checkbox", name="Events").check()
    settings.get_by_role("textbox", name="Tags").fill("summer, quayside")
    me.check("editor-new", mobile=True, doc="editor-new")
    save(page, "Save draft", "Draft saved.")
    entry_id = entry_id_of(page)
    saved = rest["admin"].entry(entry_id)
    assert (saved["status"], saved["slug"], saved["data"]["title"]) == (
        "draft",
        "harbour-festival",
        "Harbour festival",
    )
    assert sorted(term["label"] for term in saved["terms"]["category"]) == ["Events", "Harbour"]
    assert [term["label"] for term in saved["terms"]["tag"]] == ["summer", "quayside"]  # "quayside" is new
    assert rest["public"].get(f"/content/posts/{entry_id}").status_code == 404
    me.check("editor-draft")

    save(page, "Publish", "Published.")
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert (live["status"], live["data"]["title"]) == ("published", "Harbour festival")

    # Editing a published entry: saved as a draft, the public still reads the live version, the editor says so.
    page.get_by_role("textbox", name="Title").fill("Harbour festival 2025")
    page.get_by_role("textbox", name="Body").fill("Boats, music, food and fireworks on the quay.")
    save(page, "Save draft", "Saved.")
    notice = page.get_by_text("This entry is published and has unpublished changes")
    expect(notice).to_be_visible()
    expect(page.get_by_text("Published, with unpublished changes", exact=True)).to_be_visible()
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert live["data"]["title"] == "Harbour festival"
    assert rest["admin"].entry(entry_id)["data"]["title"] == "Harbour festival 2025"
    me.check("editor-changed", doc="editor-changed")

    # Compare: the live version beside the working copy, the changed fields marked.
    page.get_by_role("link", name="Compare", exact=True).click()
    page.wait_for_url(f"**/{entry_id}/compare")
    expect(page.get_by_role("heading", name="Compare “Harbour festival 2025”")).to_be_visible()
    expect(page.get_by_text("2 fields changed since publishing.")).to_be_visible()
    expect(page.locator("del.diff-del").first).to_be_visible()
    expect(page.locator("ins.diff-ins").first).to_be_visible()
    me.check("compare", doc="compare")
    page.go_back()

    save(page, "Publish changes", "Published.")
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert live["data"] == {
        "title": "Harbour festival 2025",
        "body": "Boats, music, food and fireworks on the quay.",
    }
    expect(page.get_by_text("This entry is published and has unpublished changes")).to_have_count(0)

    # Restoring the first revision makes it the working copy again, and publishes nothing.
    page.get_by_role("link", name="Revisions", exact=True).click()
    expect(page.get_by_role("heading", name="Revisions of “Harbour festival 2025”")).to_be_visible()
    me.check("revisions", doc="revisions")
    page.get_by_role("link", name="View").last.click()
    expect(page.get_by_role("button", name="Restore this revision")).to_be_visible()
    me.check("revision")
    page.get_by_role("button", name="Restore this revision").click()
    expect(page.get_by_role("status").get_by_text("Nothing was published.")).to_be_visible()
    assert rest["admin"].entry(entry_id)["data"]["title"] == "Harbour festival"
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert live["data"]["title"] == "Harbour festival 2025"


def test_a_scheduled_post_is_published_by_the_worker(studio_browser, posts, rest):
    me = studio_browser(Role.AUTHOR)
    page = me.page
    page.goto(f"{POSTS}new")
    page.get_by_role("textbox", name="Title").fill("Opening night")
    save(page, "Save draft", "Draft saved.")
    entry_id = entry_id_of(page)
    when = timezone.now() + timedelta(days=2)
    page.get_by_label("Publish at").fill(when.strftime("%Y-%m-%dT%H:%M"))
    save(page, "Schedule", "Scheduled.")
    expect(page.get_by_role("button", name="Unschedule")).to_be_visible()
    me.check("editor-scheduled")
    scheduled = rest["admin"].entry(entry_id)
    assert scheduled["status"] == "scheduled"
    assert rest["public"].get(f"/content/posts/{entry_id}").status_code == 404

    # What the worker runs each pass (apps.core worker, manage.py publish_scheduled), on the clock of that day.
    assert publish_due(at=timezone.now()) == []
    published = publish_due(at=when + timedelta(minutes=1))
    assert [entry.pk for entry in published] == [entry_id]
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert (live["status"], live["data"]["title"]) == ("published", "Opening night")
    page.reload()
    assert (
        page.get_by_role("complementary", name="Entry settings")
        .get_by_text("Published", exact=True)
        .is_visible()
    )


def test_a_save_in_between_gives_the_conflict_dialog_and_overwrites_nothing(studio_browser, posts, rest):
    editor = make_user(Role.EDITOR, email="erin@example.com", name="Erin Editor")
    entry = make_entry(posts, {"title": "Shared story", "body": "First words."})
    first = studio_browser(user=editor)
    # A colleague, in another browser.
    second = studio_browser(user=make_user(Role.EDITOR, email="colin@example.com", name="Colin Colleague"))
    first.page.goto(f"{POSTS}{entry.pk}/")
    second.page.goto(f"{POSTS}{entry.pk}/")

    second.page.get_by_role("textbox", name="Body").fill("The colleague's words.")
    save(second.page, "Save draft", "Saved.")

    page = first.page
    page.get_by_role("textbox", name="Body").fill("My own careful words.")
    page.get_by_role("complementary", name="Entry settings").get_by_role("button", name="Save draft").click()
    conflict = page.get_by_role("region", name="Someone else saved this entry while you were editing")
    conflict.wait_for()
    expect(conflict.get_by_text(second.user.name)).to_be_visible()
    expect(conflict.get_by_role("listitem").filter(has_text="Body")).to_be_visible()
    assert page.get_by_role("textbox", name="Body").input_value() == "My own careful words."
    first.check("editor-conflict", doc="editor-conflict", allow=(r"status of 409 \(Conflict\)",))
    assert rest["admin"].entry(entry.pk)["data"]["body"] == "The colleague's words."

    # Reloading shows the colleague's version, with mine kept aside to copy from; still nothing overwritten.
    conflict.get_by_role("link", name="Reload the latest version").click()
    expect(page.locator("#f-body")).to_have_value("The colleague's words.")
    expect(page.get_by_text("Your version from before you reloaded")).to_be_visible()
    expect(page.locator("textarea[readonly]").filter(has_text="My own careful words.")).to_be_visible()
    first.check("editor-reloaded")
    assert rest["admin"].entry(entry.pk)["data"]["body"] == "The colleague's words."


def test_trash_and_restore_from_the_editor(studio_browser, posts, rest):
    me = studio_browser(Role.AUTHOR)
    entry = make_entry(posts, {"title": "Short-lived"}, author=me.user)
    page = me.page
    page.goto(f"{POSTS}{entry.pk}/")
    save(page, "Move to trash", "Moved to the trash.")
    expect(page.get_by_text("This entry is in the trash: restore it to edit it.")).to_be_visible()
    assert [item["id"] for item in rest["admin"].items("/content/posts/trash")] == [entry.pk]
    me.check("editor-trashed")
    save(page, "Restore", "Restored from the trash.")
    assert rest["admin"].items("/content/posts/trash") == []
    assert rest["admin"].entry(entry.pk)["data"]["title"] == "Short-lived"


def test_a_contributor_writes_but_cannot_publish_in_the_editor(studio_browser, posts, rest):
    me = studio_browser(Role.CONTRIBUTOR)
    page = me.page
    page.goto(f"{POSTS}new")
    settings = page.get_by_role("complementary", name="Entry settings")
    assert settings.get_by_role("button", name="Publish").count() == 0
    page.get_by_role("textbox", name="Title").fill("Reader letter")
    save(page, "Save draft", "Draft saved.")
    entry_id = entry_id_of(page)
    offered = [text.strip() for text in settings.get_by_role("button").all_inner_texts()]
    assert "Save draft" in offered and not {"Publish", "Schedule"} & set(offered), offered
    me.check("editor-contributor")
    # The forged publish (the editor's own action route) is refused by the service.
    token = page.locator("#entry-form input[name=csrfmiddlewaretoken]").input_value()
    answer = page.request.post(f"{POSTS}{entry_id}/publish", form={"csrfmiddlewaretoken": token})
    assert answer.status == 403
    assert rest["admin"].entry(entry_id)["status"] == "draft"
    assert rest["public"].get(f"/content/posts/{entry_id}").status_code == 404


# --- the rich-text editor: the story on posts whose body is Portable Text ----------------------------------


@pytest.fixture
def rich_posts(transactional_db):
    posts = make_collection(
        "posts",
        label="Posts",
        label_singular="Post",
        supports=["drafts", "revisions"],
        fields=[
            {"slug": "title", "type": "string", "required": True},
            {"slug": "body", "type": "portableText"},
        ],
    )
    _, tags = make_taxonomies()
    taxonomy_services.term_create(actor=Actor.system(), taxonomy=tags, label="summer")
    return posts


def without_keys(body: list[dict]) -> list[dict]:
    """The document with its generated ``_key``s taken out, and each mark that names a markDef by key named by the
    markDef's href instead: what a person made, whatever keys the editor drew."""
    out = []
    for block in body:
        hrefs = {mark["_key"]: f"link:{mark['href']}" for mark in block.get("markDefs", [])}
        shaped = {key: value for key, value in block.items() if key != "_key"}
        if "markDefs" in block:
            shaped["markDefs"] = [
                {key: value for key, value in mark.items() if key != "_key"} for mark in block["markDefs"]
            ]
        if "children" in block:
            shaped["children"] = [
                {
                    **{key: value for key, value in span.items() if key != "_key"},
                    "marks": [hrefs.get(mark, mark) for mark in span.get("marks", [])],
                }
                for span in block["children"]
            ]
        out.append(shaped)
    return out


def test_an_editor_writes_a_rich_post_with_an_image_from_the_library_and_publishes_it(
    studio_browser, rich_posts, rest
):
    boats = rest["admin"].upload("boats.png", png_bytes(color=(20, 60, 120)), "Boats in the harbour")
    me = studio_browser(user=make_user(Role.EDITOR, email="editor@example.com", name="Edith Editor"))
    page = me.page
    page.goto(f"{POSTS}new")
    page.locator("textarea[data-portable-text-state=ready]").wait_for(state="attached")
    page.get_by_role("textbox", name="Title").fill("Harbour festival")
    body = page.get_by_role("textbox", name="Body")
    toolbar = page.get_by_role("toolbar")
    body.click()

    # A heading from the style menu, then a paragraph with a bold word and a link.
    toolbar.get_by_label("Text style").select_option("h2")
    expect(body).to_be_focused()
    page.keyboard.type("Programme")
    page.keyboard.press("Enter")
    toolbar.get_by_label("Text style").select_option("normal")
    page.keyboard.type("Boats, ")
    page.keyboard.press("Control+b")
    page.keyboard.type("music")
    page.keyboard.press("Control+b")
    page.keyboard.type(" and food on the quay")
    # The editor has taken in every key before the selection grows over the last two words.
    expect(body).to_contain_text("Boats, music and food on the quay")
    select_backwards(page, "the quay")
    toolbar.get_by_role("button", name="Link", exact=True).click()
    page.get_by_label("Link address").fill("https://example.com/quay")
    page.get_by_role("button", name="Apply link").click()
    expect(body).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    page.keyboard.press("Enter")

    # A nested list: a bulleted item and one indented under it.
    toolbar.get_by_role("button", name="Bulleted list").click()
    page.keyboard.type("Music")
    page.keyboard.press("Enter")
    page.keyboard.type("Jazz on the pier")
    toolbar.get_by_role("button", name="Indent list item").click()

    # An image from the library: the editor opens the media dialog, the form takes what was chosen.
    toolbar.get_by_role("button", name="Insert image").click()
    dialog = page.get_by_role("dialog", name="Choose media")
    dialog.get_by_role("button", name="boats.png: Boats in the harbour").click()
    dialog.get_by_role("button", name="Choose", exact=True).click()
    form = page.get_by_role("group", name="Insert image")
    expect(form.get_by_label("Media id")).to_have_value(boats["id"])
    expect(form.get_by_label("Alternative text")).to_have_value("Boats in the harbour")
    form.get_by_role("button", name="Insert image").click()
    expect(page.locator('.pt-card[data-block-type="image"]')).to_contain_text(f"Media {boats['id']}")

    settings = page.get_by_role("complementary", name="Entry settings")
    categories = settings.get_by_role("group", name="Categories")
    categories.get_by_role("checkbox", name="Harbour").check()
    categories.get_by_role("checkbox", name="Events").check()
    settings.get_by_role("textbox", name="Tags").fill("summer, lanterns")
    me.check("editor-rich-text", mobile=True, doc="editor-rich-text")
    save(page, "Save draft", "Draft saved.")
    entry_id = entry_id_of(page)
    assert rest["public"].get(f"/content/posts/{entry_id}").status_code == 404
    save(page, "Publish", "Published.")

    expected = [
        {"_type": "block", "style": "h2", "markDefs": [], "children": [span("Programme")]},
        {
            "_type": "block",
            "style": "normal",
            "markDefs": [{"_type": "link", "href": "https://example.com/quay"}],
            "children": [
                span("Boats, "),
                span("music", "strong"),
                span(" and food on "),
                span("the quay", "link:https://example.com/quay"),
            ],
        },
        {
            "_type": "block",
            "style": "normal",
            "listItem": "bullet",
            "level": 1,
            "markDefs": [],
            "children": [span("Music")],
        },
        {
            "_type": "block",
            "style": "normal",
            "listItem": "bullet",
            "level": 2,
            "markDefs": [],
            "children": [span("Jazz on the pier")],
        },
        {"_type": "image", "mediaId": boats["id"], "alt": "Boats in the harbour"},
    ]
    stored = rest["admin"].entry(entry_id)
    assert stored["status"] == "published"
    assert without_keys(stored["data"]["body"]) == expected
    live = rest["public"].get(f"/content/posts/{entry_id}").json()["data"]["item"]
    assert live["data"]["body"] == stored["data"]["body"]
    assert sorted(term["label"] for term in stored["terms"]["category"]) == ["Events", "Harbour"]
    assert [term["label"] for term in stored["terms"]["tag"]] == ["summer", "lanterns"]
    tags = rest["admin"].items("/taxonomies/tag/terms")
    assert sorted(term["label"] for term in tags) == ["lanterns", "summer"]


def span(text: str, *marks: str) -> dict:
    return {"_type": "span", "text": text, "marks": list(marks)}


def test_leaving_the_editor_with_unsaved_changes_asks_first(studio_browser, rich_posts):
    entry = make_entry(rich_posts, {"title": "Quiet story", "body": []})
    me = studio_browser(Role.EDITOR)
    page = me.page
    asked = []

    def answer(dialog) -> None:
        asked.append(dialog.type)
        dialog.dismiss()

    page.on("dialog", answer)
    page.goto(f"{POSTS}{entry.pk}/")
    page.locator("textarea[data-portable-text-state=ready]").wait_for(state="attached")
    dashboard = page.get_by_role("navigation").get_by_role("link", name="Dashboard")
    # Nothing typed yet: the editor's own first write of the document is not a change.
    dashboard.click()
    page.wait_for_url("**/_cms/admin/")
    assert asked == []
    page.go_back()
    page.locator("textarea[data-portable-text-state=ready]").wait_for(state="attached")

    page.get_by_role("textbox", name="Body").click()
    page.keyboard.type("Words not yet saved")
    dashboard.click()
    expect(page.get_by_role("textbox", name="Body")).to_contain_text("Words not yet saved")
    assert asked == ["beforeunload"]
    # Staying was the answer: still here, the words still there.
    assert page.url.endswith(f"{POSTS}{entry.pk}/")

    save(page, "Save draft", "Saved.")
    dashboard.click()
    page.wait_for_url("**/_cms/admin/")
    assert asked == ["beforeunload"]
