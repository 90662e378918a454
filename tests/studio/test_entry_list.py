"""A collection's entry list in the studio: columns and badges, sorting, filters, search, pagination, the trash with
restore and permanent delete, bulk actions with their confirmation, and a constant number of queries per page."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content
from apps.studio.views import entries as entries_view
from apps.taxonomy import services as taxonomy_services
from tests.factories import make_byline, make_collection, make_entry, make_user

pytestmark = pytest.mark.django_db
LIST = "/_cms/admin/content/posts/"
TRASH = "/_cms/admin/content/posts/trash/"
BULK = "/_cms/admin/content/posts/bulk"
API = "/_cms/api/content/posts"
SYSTEM = Actor.system()


def signed_in(user, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


@pytest.fixture
def editor():
    return make_user(Role.EDITOR, email="editor@example.com")


@pytest.fixture
def as_editor(editor):
    return signed_in(editor)


def page(client, url=LIST, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, response.content.decode()[:2000]
    return response.content.decode()


def titles(html: str) -> list[str]:
    """The titles of the table's rows, in order."""
    body = html[html.index("<tbody>") : html.index("</tbody>")] if "<tbody>" in html else ""
    return re.findall(
        r'<td data-label="Title"><a href="/_cms/admin/content/posts/[0-9A-Z]{26}/">([^<]*)</a></td>', body
    )


def rest_item(api, entry_id: str):
    return api.get(f"{API}/{entry_id}")


# --- columns and badges ---------------------------------------------------------------------------------------------


def test_each_row_shows_its_title_badge_byline_and_last_update(as_editor, posts_collection):
    ada = make_byline("Ada Lovelace")
    draft = make_entry(posts_collection, {"title": "A draft"}, bylines=[{"bylineId": ada.pk}])
    make_entry(posts_collection, {"title": "Live"}, status="published")
    changed = make_entry(posts_collection, {"title": "Edited"}, status="published")
    content.entry_update(actor=SYSTEM, entry=changed, data={"title": "Edited again"})
    later = make_entry(posts_collection, {"title": "Later"})
    when = datetime(2031, 5, 4, 9, 30, tzinfo=UTC)
    content.entry_schedule(actor=SYSTEM, entry=later, scheduled_at=when)
    html = page(as_editor)
    assert '<table class="responsive">' in html
    assert f'<td data-label="Title"><a href="/_cms/admin/content/posts/{draft.pk}/">A draft</a></td>' in html
    assert '<span class="badge draft">draft</span>' in html
    assert '<span class="badge published">published</span>' in html
    assert '<span class="badge changed">published, unpublished changes</span>' in html
    assert (
        '<span class="badge scheduled">scheduled <time datetime="2031-05-04T09:30:00+00:00">2031-05-04 09:30 UTC'
        "</time></span>" in html
    )
    row = html[html.index(f'id="entry-{draft.pk}"') :]
    row = row[: row.index("</tr>")]
    assert '<td data-label="Byline">Ada Lovelace</td>' in row
    stamp = draft.updated_at.astimezone(UTC)
    assert (
        f'<time datetime="{stamp.isoformat()}" title="{stamp:%Y-%m-%d %H:%M} UTC">0\xa0minutes ago</time>'
        in row
    )
    # The working copy's title, which is what editors work on.
    assert "Edited again" in titles(html)
    # No locale column on a site with one locale.
    assert '<th scope="col">Locale</th>' not in html


def test_the_list_leads_to_a_new_entry(as_editor, posts_collection):
    html = page(as_editor)
    assert '<a class="button primary" href="/_cms/admin/content/posts/new">New post</a>' in html
    assert as_editor.get("/_cms/admin/content/posts/new").status_code == 200


def test_an_entry_without_a_title_is_named_by_its_slug(as_editor):
    collection = make_collection("posts", fields=[("title", "string"), ("body", "text")])
    make_entry(collection, {"body": "no title at all"}, slug="nameless")
    assert titles(page(as_editor)) == ["nameless"]


def test_the_locale_column_and_filter_appear_when_the_site_has_several_locales(as_editor, posts_collection):
    with override_settings(CMS_DEFAULT_LOCALE="en", CMS_LOCALES=["en", "fr"]):
        english = make_entry(posts_collection, {"title": "Chair"})
        make_entry(posts_collection, {"title": "Chaise"}, locale="fr", translation_of=english.pk)
        html = page(as_editor)
        assert '<th scope="col">Locale</th>' in html
        assert '<td data-label="Locale">fr</td>' in html and '<td data-label="Locale">en</td>' in html
        assert titles(page(as_editor, locale="fr")) == ["Chaise"]


def test_the_dashboard_links_entries_to_their_editor(as_editor, editor, posts_collection):
    entry = make_entry(posts_collection, {"title": "Mine"}, author=editor)
    html = page(as_editor, "/_cms/admin/")
    assert f'<a href="/_cms/admin/content/posts/{entry.pk}/">Mine</a>' in html


# --- sorting, filters, search, pagination ---------------------------------------------------------------------------


def test_sorting_by_a_column_in_either_direction(as_editor, posts_collection):
    for title, slug in (("Banana", "c-banana"), ("Apple", "b-apple"), ("Cherry", "a-cherry")):
        make_entry(posts_collection, {"title": title}, slug=slug)
    # Newest change first by default.
    assert titles(page(as_editor)) == ["Cherry", "Apple", "Banana"]
    assert titles(page(as_editor, orderBy="title", order="asc")) == ["Apple", "Banana", "Cherry"]
    assert titles(page(as_editor, orderBy="title", order="desc")) == ["Cherry", "Banana", "Apple"]
    assert titles(page(as_editor, orderBy="slug", order="asc")) == ["Cherry", "Apple", "Banana"]
    assert titles(page(as_editor, orderBy="createdAt", order="asc")) == ["Banana", "Apple", "Cherry"]
    html = page(as_editor, orderBy="title", order="asc")
    # The sorted column says so, and its header link flips the order.
    assert (
        '<th scope="col" aria-sort="ascending"><a href="/_cms/admin/content/posts/?orderBy=title&amp;order=desc">'
        in html
    )


def test_an_unknown_sort_is_refused_with_the_selectors_message(as_editor, posts_collection):
    response = as_editor.get(LIST, {"orderBy": "body"})
    assert response.status_code == 400
    assert "orderBy: Cannot order by &#x27;body&#x27;; choose one of: createdAt" in response.content.decode()


def test_filter_by_status(as_editor, posts_collection):
    make_entry(posts_collection, {"title": "Draft one"})
    make_entry(posts_collection, {"title": "Live one"}, status="published")
    assert titles(page(as_editor, status="published")) == ["Live one"]
    assert titles(page(as_editor, status="draft")) == ["Draft one"]
    assert '<option value="draft" selected>Draft</option>' in page(as_editor, status="draft")


def test_filter_by_term_and_by_byline(as_editor, posts_collection):
    category = taxonomy_services.taxonomy_create(
        actor=SYSTEM, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    news = taxonomy_services.term_create(actor=SYSTEM, taxonomy=category, label="News")
    local = taxonomy_services.term_create(actor=SYSTEM, taxonomy=category, label="Local", parent_id=news.pk)
    ada, bob = make_byline("Ada Lovelace"), make_byline("Bob Bell")
    in_news = make_entry(posts_collection, {"title": "In news"}, bylines=[{"bylineId": ada.pk}])
    in_local = make_entry(posts_collection, {"title": "In local"}, bylines=[{"bylineId": bob.pk}])
    make_entry(posts_collection, {"title": "Nowhere"})
    taxonomy_services.entry_terms_set(actor=SYSTEM, entry=in_news, taxonomy=category, term_ids=[news.pk])
    taxonomy_services.entry_terms_set(actor=SYSTEM, entry=in_local, taxonomy=category, term_ids=[local.pk])
    html = page(as_editor)
    assert '<select id="entries-terms-category" name="terms[category]">' in html
    assert '<option value="news">News</option>' in html
    # A term matches its descendants, as in the REST filter.
    assert titles(page(as_editor, **{"terms[category]": "news"})) == ["In local", "In news"]
    assert titles(page(as_editor, **{"terms[category]": "local"})) == ["In local"]
    assert titles(page(as_editor, byline=ada.pk)) == ["In news"]
    assert f'<option value="{bob.pk}" selected>Bob Bell</option>' in page(as_editor, byline=bob.pk)


def test_search_finds_drafts_for_those_who_may_read_them(posts_collection):
    articles = make_collection(
        "articles",
        supports=["drafts", "revisions", "search"],
        fields=[{"slug": "title", "type": "string"}, {"slug": "body", "type": "text", "searchable": True}],
    )
    make_entry(articles, {"title": "Garden notes", "body": "Tomatoes need sun."})
    make_entry(articles, {"title": "Kitchen", "body": "Bread and tomatoes."}, status="published")
    make_entry(articles, {"title": "Unrelated", "body": "Nothing here."}, status="published")
    contributor = signed_in(make_user(Role.CONTRIBUTOR))
    url = "/_cms/admin/content/articles/"
    html = page(contributor, url, q="tomatoes")
    found = re.findall(
        r'<td data-label="Title"><a href="/_cms/admin/content/articles/[0-9A-Z]{26}/">([^<]*)</a></td>', html
    )
    assert sorted(found) == ["Garden notes", "Kitchen"]
    assert '<input id="entries-q" type="search" name="q" value="tomatoes">' in html
    # Filters narrow the hits.
    found = re.findall(r">([^<]*)</a></td>", page(contributor, url, q="tomatoes", status="published"))
    assert found == ["Kitchen"]
    # Collections without search support have no search box.
    assert 'name="q"' not in page(contributor)


def test_the_next_page_link_continues_where_the_page_ended(as_editor, posts_collection, monkeypatch):
    monkeypatch.setattr(entries_view, "PAGE_SIZE", 2)
    for number in range(5):
        make_entry(posts_collection, {"title": f"Post {number}"}, slug=f"post-{number}")
    seen = []
    url, params = LIST, {"orderBy": "slug", "order": "asc", "status": "draft"}
    for _ in range(3):
        html = page(as_editor, url, **params)
        seen.append(titles(html))
        match = re.search(r'<a href="([^"]+)" rel="next">Next page</a>', html)
        if not match:
            break
        url, params = match.group(1).replace("&amp;", "&"), {}
        assert "status=draft" in url and "orderBy=slug" in url
    assert seen == [["Post 0", "Post 1"], ["Post 2", "Post 3"], ["Post 4"]]
    assert (
        '<a href="/_cms/admin/content/posts/?orderBy=slug&amp;order=asc&amp;status=draft">First page</a>'
        in html
    )


# --- the trash --------------------------------------------------------------------------------------------------------


def test_the_trash_lists_trashed_entries_and_restores_them(as_editor, posts_collection, admin_api):
    entry = make_entry(posts_collection, {"title": "Gone"}, status="published")
    content.entry_trash(actor=SYSTEM, entry=entry)
    make_entry(posts_collection, {"title": "Still here"})
    assert titles(page(as_editor)) == ["Still here"]
    html = page(as_editor, TRASH)
    assert titles(html) == ["Gone"]
    assert '<span class="badge trashed">trashed</span>' in html
    assert (
        f'<button type="submit" form="restore-{entry.pk}" aria-label="Restore Gone">Restore</button>' in html
    )
    # Deleting for good needs the admin role (the permission table): an editor is not offered it.
    assert "Delete permanently" not in html
    response = as_editor.post(
        BULK, {"action": "restore", "ids": [entry.pk], "confirmed": "yes", "next": TRASH}, follow=True
    )
    assert response.redirect_chain == [(TRASH, 302)]
    assert "<li>1 entry restored.</li>" in response.content.decode()
    item = rest_item(admin_api, entry.pk).json()["data"]["item"]
    assert item["deletedAt"] is None and item["status"] == "published"


def test_an_admin_deletes_for_good_after_confirming(posts_collection, admin_api, admin_user):
    entry = make_entry(posts_collection, {"title": "Old"})
    content.entry_trash(actor=SYSTEM, entry=entry)
    admin = signed_in(admin_user)
    html = page(admin, TRASH)
    assert f'<button type="submit" form="delete-{entry.pk}" aria-label="Delete permanently: Old">' in html
    confirm = admin.post(BULK, {"action": "delete", "ids": [entry.pk], "next": TRASH})
    assert confirm.status_code == 200
    body = confirm.content.decode()
    assert "<h1>Delete permanently 1 entry?</h1>" in body
    assert (
        f'<input type="hidden" name="ids" value="{entry.pk}">Old <span class="badge trashed">trashed</span>'
        in body
    )
    assert rest_item(admin_api, entry.pk).status_code == 200  # nothing happened before confirming
    response = admin.post(BULK, {"action": "delete", "ids": [entry.pk], "next": TRASH, "confirmed": "yes"})
    assert response.status_code == 302 and response["Location"] == TRASH
    assert rest_item(admin_api, entry.pk).status_code == 404
    assert "The trash is empty." in page(admin, TRASH)


def test_a_contributor_may_restore_their_own_entries_only(posts_collection):
    contributor = make_user(Role.CONTRIBUTOR)
    mine = make_entry(posts_collection, {"title": "Mine"}, author=contributor)
    theirs = make_entry(posts_collection, {"title": "Theirs"}, author=make_user(Role.AUTHOR))
    for entry in (mine, theirs):
        content.entry_trash(actor=SYSTEM, entry=entry)
    html = page(signed_in(contributor), TRASH)
    assert f'form="restore-{mine.pk}"' in html
    assert f'form="restore-{theirs.pk}"' not in html


# --- bulk actions -----------------------------------------------------------------------------------------------------


def test_bulk_publish_asks_first_then_publishes_each_entry(
    as_editor, posts_collection, admin_api, client_for
):
    one = make_entry(posts_collection, {"title": "One"})
    two = make_entry(posts_collection, {"title": "Two"})
    html = page(as_editor)
    assert '<button type="submit" name="action" value="publish">Publish</button>' in html
    assert f'<input type="checkbox" name="ids" value="{one.pk}" aria-label="Choose One">' in html
    confirm = as_editor.post(BULK, {"action": "publish", "ids": [one.pk, two.pk], "next": LIST})
    body = confirm.content.decode()
    assert confirm.status_code == 200 and "<h1>Publish 2 entries?</h1>" in body
    assert '<button type="submit" class="primary">Publish 2 entries</button>' in body
    assert rest_item(admin_api, one.pk).json()["data"]["item"]["status"] == "draft"
    response = as_editor.post(
        BULK, {"action": "publish", "ids": [one.pk, two.pk], "next": LIST, "confirmed": "yes"}, follow=True
    )
    assert response.redirect_chain == [(LIST, 302)]
    assert "<li>2 entries published.</li>" in response.content.decode()
    reader = client_for(role=Role.SUBSCRIBER, scopes=["content:read"])
    public = reader.get(API).json()["data"]["items"]
    assert sorted(item["data"]["title"] for item in public) == ["One", "Two"]


def test_a_contributor_cannot_bulk_publish_and_nothing_changes(posts_collection, admin_api):
    contributor = make_user(Role.CONTRIBUTOR)
    entry = make_entry(posts_collection, {"title": "Mine"}, author=contributor)
    client = signed_in(contributor)
    assert 'value="publish"' not in page(client)
    response = client.post(
        BULK, {"action": "publish", "ids": [entry.pk], "next": LIST, "confirmed": "yes"}, follow=True
    )
    html = response.content.decode()
    assert "published.</li>" not in html
    assert (
        "<li>“Mine” was not published: This requires the role author (30) or higher; you are contributor (20).</li>"
        in html
    )
    item = rest_item(admin_api, entry.pk).json()["data"]["item"]
    assert item["status"] == "draft" and item["publishedAt"] is None


def test_one_refusal_leaves_the_others_done(as_editor, posts_collection, admin_api):
    live = make_entry(posts_collection, {"title": "Live"}, status="published")
    draft = make_entry(posts_collection, {"title": "Draft"})
    response = as_editor.post(
        BULK,
        {"action": "unpublish", "ids": [draft.pk, live.pk], "next": LIST, "confirmed": "yes"},
        follow=True,
    )
    html = response.content.decode()
    assert "<li>1 entry unpublished.</li>" in html
    assert "<li>“Draft” was not unpublished: " in html
    assert rest_item(admin_api, live.pk).json()["data"]["item"]["status"] == "draft"


def test_bulk_move_to_trash_then_restore_from_the_trash(as_editor, posts_collection, admin_api):
    entries = [make_entry(posts_collection, {"title": f"E{n}"}) for n in range(3)]
    ids = [entry.pk for entry in entries[:2]]
    as_editor.post(BULK, {"action": "trash", "ids": ids, "next": LIST, "confirmed": "yes"})
    assert sorted(titles(page(as_editor, TRASH))) == ["E0", "E1"]
    assert admin_api.get(f"{API}/trash").json()["data"]["items"][0]["id"] in ids
    as_editor.post(BULK, {"action": "restore", "ids": ids, "next": TRASH, "confirmed": "yes"})
    assert admin_api.get(f"{API}/trash").json()["data"]["items"] == []
    assert sorted(titles(page(as_editor))) == ["E0", "E1", "E2"]


def test_bulk_needs_a_known_action_and_a_choice(as_editor, posts_collection):
    response = as_editor.post(BULK, {"action": "explode", "ids": ["x"]})
    assert response.status_code == 400
    assert "Unknown bulk action &#x27;explode&#x27;" in response.content.decode()
    response = as_editor.post(BULK, {"action": "publish", "next": LIST}, follow=True)
    assert "<li>Choose at least one entry first.</li>" in response.content.decode()
    # Elsewhere than this collection's pages is not a place to go back to.
    response = as_editor.post(BULK, {"action": "publish", "next": "https://evil.example/"})
    assert response["Location"] == LIST


def test_bulk_posts_need_the_csrf_token(editor, posts_collection):
    entry = make_entry(posts_collection, {"title": "Protected"})
    client = signed_in(editor, enforce_csrf_checks=True)
    response = client.post(BULK, {"action": "publish", "ids": [entry.pk], "confirmed": "yes"})
    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.status == "draft"


# --- queries per page -------------------------------------------------------------------------------------------------


@pytest.fixture
def fill(posts_collection):
    """``fill(n, trashed=…)``: n entries, each with two bylines and a term of each of two taxonomies."""
    category = taxonomy_services.taxonomy_create(
        actor=SYSTEM, name="category", label="Categories", hierarchical=True, collections=["posts"]
    )
    tag = taxonomy_services.taxonomy_create(actor=SYSTEM, name="tag", label="Tags", collections=["posts"])
    news = taxonomy_services.term_create(actor=SYSTEM, taxonomy=category, label="News")
    hot = taxonomy_services.term_create(actor=SYSTEM, taxonomy=tag, label="Hot")
    ada, bob = make_byline("Ada Lovelace"), make_byline("Bob Bell")

    def make(count: int, *, trashed: bool = False):
        for number in range(count):
            entry = make_entry(
                posts_collection,
                {"title": f"Post {number}", "body": "words " * 200},
                status="published" if number % 2 else "draft",
                bylines=[{"bylineId": ada.pk}, {"bylineId": bob.pk}],
            )
            taxonomy_services.entry_terms_set(
                actor=SYSTEM, entry=entry, taxonomy=category, term_ids=[news.pk]
            )
            taxonomy_services.entry_terms_set(actor=SYSTEM, entry=entry, taxonomy=tag, term_ids=[hot.pk])
            if trashed:
                content.entry_trash(actor=SYSTEM, entry=entry)

    return make


def count_queries(client, url: str, expected_rows: int) -> int:
    client.get(url)  # warm the per-process schema cache as any earlier request would have
    with CaptureQueriesContext(connection) as captured:
        html = page(client, url)
    assert len(titles(html)) == expected_rows
    return len(captured.captured_queries)


@pytest.mark.parametrize("url", [LIST, TRASH])
def test_a_page_costs_the_same_queries_whatever_its_size(as_editor, fill, url):
    trashed = url == TRASH
    fill(3, trashed=trashed)
    small = count_queries(as_editor, url, 3)
    fill(27, trashed=trashed)
    assert count_queries(as_editor, url, 30) == small
