"""The issue's end-to-end stories in real Chromium, each checked afterwards through the REST API: what a person did in
the studio is what the API serves, and what the studio offers each role is what the permission table allows."""

from __future__ import annotations

import pytest
import requests

from apps.accounts.models import Role
from apps.accounts.permissions import Actor, can
from tests.factories import make_collection, make_entry, make_token, make_user

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
    assert page.get_by_role("heading", name="Publish 1 entry?").is_visible()
    assert page.get_by_role("listitem").filter(has_text="Spring opening hours").is_visible()
    me.check("bulk-confirm", doc="bulk-confirm")
    page.get_by_role("button", name="Publish 1 entry").click()
    page.wait_for_url(f"**{POSTS}")
    assert page.get_by_role("status").get_by_text("1 entry published.").is_visible()
    row = page.locator(f"#entry-{spring.pk}")
    assert row.get_by_text("published", exact=True).is_visible()
    me.check("list-after-publish")
    live = rest["public"].get("/content/posts/spring")
    assert live.status_code == 200 and live.json()["data"]["item"]["data"]["title"] == "Spring opening hours"

    # Move to the trash: gone for the public, listed in the API's trash and in the studio's.
    choose(page, "Spring opening hours")
    bulk(page, "Move to trash")
    page.get_by_role("button", name="Move to trash 1 entry").click()
    page.wait_for_url(f"**{POSTS}")
    assert page.get_by_role("status").get_by_text("1 entry moved to the trash.").is_visible()
    assert page.locator(f"#entry-{spring.pk}").count() == 0
    assert rest["public"].get("/content/posts/spring").status_code == 404
    trashed = rest["admin"].items("/content/posts/trash")
    assert [item["id"] for item in trashed] == [spring.pk]

    page.get_by_role("link", name="Trash").click()
    assert page.get_by_role("heading", name="Trash: Posts").is_visible()
    me.check("trash", doc="trash")
    page.get_by_role("button", name="Restore Spring opening hours").click()
    assert page.get_by_role("status").get_by_text("1 entry restored.").is_visible()
    assert page.get_by_text("The trash is empty.").is_visible()
    assert rest["admin"].items("/content/posts/trash") == []
    restored = rest["admin"].entry(spring.pk)
    assert restored["data"]["title"] == "Spring opening hours"
    page.get_by_role("link", name="Back to Posts").click()
    assert page.locator(f"#entry-{spring.pk}").is_visible()


def test_a_contributor_cannot_publish_even_by_forging_the_form(studio_browser, posts, rest):
    me = studio_browser(Role.CONTRIBUTOR)
    mine = make_entry(posts, {"title": "My first draft"}, slug="mine", author=me.user)
    page = me.page
    page.goto(POSTS)
    actions = page.get_by_role("group", name="With the chosen entries")
    assert actions.get_by_role("button", name="Publish", exact=True).count() == 0
    assert actions.get_by_role("button", name="Move to trash").is_visible()
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
        assert status.get_by_text("2 entries moved to the trash.").is_visible()
    else:
        assert status.get_by_text("1 entry moved to the trash.").is_visible()
        assert status.get_by_text("“Someone else's post” was not moved to the trash:").is_visible()
    trashed = {item["id"] for item in rest["admin"].items("/content/posts/trash")}
    assert trashed == ({mine.pk, theirs.pk} if may_trash_theirs else {mine.pk})

    page.get_by_role("link", name="Trash").click()
    assert (page.get_by_role("button", name="Delete permanently: Own post").count() == 1) == can(
        actor, "content.delete_permanent"
    )
    me.check(f"trash-{Role(role).label}")
