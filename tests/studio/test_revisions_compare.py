"""An entry's revisions in the studio (list, one revision with its diff, restore) and Compare (live ↔ working copy),
checked afterwards through the REST API."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.accounts.models import Role
from tests.factories import make_collection, make_user

pytestmark = pytest.mark.django_db
CONTENT = "/_cms/api/content/posts"
ADDED = '<ins class="diff-ins"><span class="visually-hidden">added: </span>{}</ins>'
REMOVED = '<del class="diff-del"><span class="visually-hidden">removed: </span>{}</del>'


def signed_in(role: int = Role.EDITOR, **options) -> Client:
    client = Client(**options)
    client.force_login(make_user(role, email=f"studio{role}@example.com", name="Grace Editor"))
    return client


def studio(entry_id: str, rest: str = "") -> str:
    return f"/_cms/admin/content/posts/{entry_id}/{rest}"


@pytest.fixture
def post(posts_collection, admin_api):
    """A post created, edited twice and published through REST by an admin: four revisions."""
    created = admin_api.post(
        CONTENT, {"data": {"title": "Hello world", "body": "First body.", "views": 3}}, format="json"
    ).json()["data"]
    entry_id, rev = created["item"]["id"], created["_rev"]
    rev = admin_api.patch(
        f"{CONTENT}/{entry_id}", {"data": {"title": "Hello brave world"}, "_rev": rev}, format="json"
    ).json()["data"]["_rev"]
    admin_api.post(f"{CONTENT}/{entry_id}/publish", format="json")
    return entry_id


def revisions(admin_api, entry_id: str) -> list[dict]:
    return admin_api.get(f"{CONTENT}/{entry_id}/revisions").json()["data"]["items"]


def test_the_list_shows_action_who_and_when_newest_first(post, admin_api):
    admin_api.user.name = "Ada Admin"
    admin_api.user.save()
    response = signed_in().get(studio(post, "revisions/"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Revisions of “Hello brave world”</h1>" in html
    assert "3 revisions kept" in html
    actions = re.findall(r'<tr id="revision-\w+">\s*<td>([^<]+)</td>\s*<td>([^<]+)</td>', html)
    assert actions == [("Published", "Ada Admin"), ("Saved", "Ada Admin"), ("Created", "Ada Admin")]
    oldest = revisions(admin_api, post)[-1]
    assert f'href="/_cms/admin/content/posts/{post}/revisions/{oldest["id"]}/"' in html
    assert f'<time datetime="{oldest["createdAt"]}"' in html


def test_the_list_pages_with_a_cursor(post, admin_api, monkeypatch):
    from apps.studio.views import revisions as views

    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    client = signed_in()
    first = client.get(studio(post, "revisions/")).content.decode()
    assert first.count('<tr id="revision-') == 2
    cursor = re.search(r'<a href="\?cursor=([^"]+)">Older revisions</a>', first).group(1)
    second = client.get(studio(post, "revisions/"), {"cursor": cursor.replace("%3D", "=")}).content.decode()
    assert second.count('<tr id="revision-') == 1
    assert "Created" in second and "Older revisions" not in second


def test_a_revision_shows_its_fields_and_its_diff_against_the_working_copy(post, admin_api):
    oldest = revisions(admin_api, post)[-1]
    response = signed_in().get(studio(post, f"revisions/{oldest['id']}/"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<dt>Title</dt><dd>Hello world</dd>" in html
    assert '<dt>Body</dt><dd><div class="text-value">First body.</div></dd>' in html
    assert "<dt>Views</dt><dd>3</dd>" in html
    # The title changed since: its row is marked and its words diffed; the body did not.
    assert '<tr id="field-title" class="changed">' in html
    assert "Hello " + ADDED.format("brave ") + "world" in html
    assert '<tr id="field-body">' in html
    assert (
        '<button type="submit" class="primary" aria-describedby="restore-hint">Restore this revision</button>'
        in html
    )


def test_portable_text_reads_as_text_and_diffs_its_words(admin_api):
    make_collection(
        "articles",
        supports=["drafts", "revisions"],
        fields=[{"slug": "title", "type": "string"}, {"slug": "content", "type": "portableText"}],
    )

    def block(style: str, *spans) -> dict:
        children = [{"_type": "span", "text": text, "marks": marks} for text, marks in spans]
        return {"_type": "block", "style": style, "markDefs": [], "children": children}

    first = [block("h2", ("Intro", [])), block("normal", ("A ", []), ("bold", ["strong"]), (" claim.", []))]
    created = admin_api.post(
        "/_cms/api/content/articles", {"data": {"title": "PT", "content": first}}, format="json"
    ).json()["data"]
    entry_id = created["item"]["id"]
    second = [
        block("h2", ("Intro", [])),
        block("normal", ("A ", []), ("bold", ["strong"]), (" new claim.", [])),
    ]
    admin_api.patch(
        f"/_cms/api/content/articles/{entry_id}",
        {"data": {"content": second}, "_rev": created["_rev"]},
        format="json",
    )
    oldest = admin_api.get(f"/_cms/api/content/articles/{entry_id}/revisions").json()["data"]["items"][-1]
    html = (
        signed_in().get(f"/_cms/admin/content/articles/{entry_id}/revisions/{oldest['id']}/").content.decode()
    )
    assert '<dt>Content</dt><dd><div class="text-value">## Intro\n\nA **bold** claim.</div></dd>' in html
    assert "_type" not in html and "markDefs" not in html
    assert "A bold " + ADDED.format("new ") + "claim." in html


def test_restore_writes_the_working_copy_keeps_the_status_and_records_a_revision(post, admin_api):
    oldest = revisions(admin_api, post)[-1]
    client = signed_in()
    response = client.post(studio(post, f"revisions/{oldest['id']}/restore"))
    assert response.status_code == 302
    assert response["Location"] == studio(post, "revisions/")
    page = client.get(response["Location"]).content.decode()
    assert "is now the working copy of “Hello world”. Nothing was published." in page
    assert "<td>Restored a revision</td>\n      <td>Grace Editor</td>" in page

    item = admin_api.get(f"{CONTENT}/{post}").json()["data"]["item"]
    assert item["data"] == {"title": "Hello world", "body": "First body.", "views": 3}
    assert item["status"] == "published"
    assert item["liveData"]["title"] == "Hello brave world"
    newest = revisions(admin_api, post)
    assert len(newest) == 4
    assert (newest[0]["action"], newest[0]["data"]["title"]) == ("restore", "Hello world")


def test_restore_is_what_the_permission_table_allows(post, admin_api):
    oldest = revisions(admin_api, post)[-1]
    contributor = signed_in(Role.CONTRIBUTOR)
    # Contributors may read the admin's post and its revisions, not change it: no button, and a refused POST.
    page = contributor.get(studio(post, f"revisions/{oldest['id']}/")).content.decode()
    assert "Restore this revision" not in page
    response = contributor.post(studio(post, f"revisions/{oldest['id']}/restore"))
    assert response.status_code == 403
    assert revisions(admin_api, post)[0]["action"] == "publish"


def test_restore_needs_the_csrf_token(post, admin_api):
    oldest = revisions(admin_api, post)[-1]
    client = signed_in(enforce_csrf_checks=True)
    assert client.post(studio(post, f"revisions/{oldest['id']}/restore")).status_code == 403
    assert revisions(admin_api, post)[0]["action"] == "publish"


def test_a_revision_of_another_entry_or_collection_without_revisions_is_not_found(post, admin_api):
    other = admin_api.post(CONTENT, {"data": {"title": "Other"}}, format="json").json()["data"]["item"]["id"]
    foreign = revisions(admin_api, other)[0]
    client = signed_in()
    assert client.get(studio(post, f"revisions/{foreign['id']}/")).status_code == 404
    assert client.post(studio(post, f"revisions/{foreign['id']}/restore")).status_code == 404
    make_collection("notes", supports=["drafts"], fields=[{"slug": "title", "type": "string"}])
    note = admin_api.post("/_cms/api/content/notes", {"data": {"title": "N"}}, format="json").json()["data"]
    response = client.get(f"/_cms/admin/content/notes/{note['item']['id']}/revisions/")
    assert response.status_code == 404
    assert "Notes do not keep revisions." in response.content.decode()


def test_compare_marks_changed_fields_only_and_diffs_their_words(post, admin_api):
    rev = admin_api.get(f"{CONTENT}/{post}").json()["data"]["_rev"]
    admin_api.patch(
        f"{CONTENT}/{post}",
        {"data": {"title": "Hello wide world!", "body": "First body."}, "_rev": rev},
        format="json",
    )
    response = signed_in().get(studio(post, "compare"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Compare “Hello wide world!”</h1>" in html
    assert '<span class="badge changed">unpublished changes</span> 1 field changed since publishing.' in html
    assert '<tr id="field-title" class="changed">' in html
    assert '<th scope="row">Title <span class="badge changed">changed</span></th>' in html
    assert "Hello " + REMOVED.format("brave") + ADDED.format("wide") + " world" + ADDED.format("!") in html
    # Live on the left as it is.
    assert '<td data-label="Live">Hello brave world</td>' in html
    for unchanged in ("body", "views"):
        assert f'<tr id="field-{unchanged}">' in html
    assert html.count('class="changed"') == 1


def test_compare_says_when_there_is_nothing_to_publish_or_nothing_published(post, admin_api):
    client = signed_in()
    assert "nothing to publish" in client.get(studio(post, "compare")).content.decode()
    draft = admin_api.post(CONTENT, {"data": {"title": "Fresh"}}, format="json").json()["data"]["item"]["id"]
    html = client.get(studio(draft, "compare")).content.decode()
    assert '<span class="badge draft">never published</span>' in html
    assert '<tr id="field-title" class="changed">' in html
    assert '<tr id="field-views">' in html


def test_subscribers_reach_none_of_it(post, admin_api):
    oldest = revisions(admin_api, post)[-1]
    client = signed_in(Role.SUBSCRIBER)
    for url in (
        studio(post, "revisions/"),
        studio(post, f"revisions/{oldest['id']}/"),
        studio(post, "compare"),
    ):
        response = client.get(url)
        assert response.status_code == 403
        assert "<h1>No access to the studio</h1>" in response.content.decode()
    assert client.post(studio(post, f"revisions/{oldest['id']}/restore")).status_code == 403
