"""Public answers are cacheable (issue 22): exact caching headers, validators from versions, 304 without building the
answer, compression, and token answers unchanged."""

from __future__ import annotations

import gzip
import re

import brotli
import orjson
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.http import http_date

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.content.models import Entry
from apps.taxonomy import services as taxonomy_services
from tests.delivery.conftest import API
from tests.factories import make_entry, make_media

POSTS = f"{API}/content/posts"
CACHE_CONTROL = "public, max-age=60, s-maxage=300, stale-while-revalidate=86400"
# Cookie (a session is a credential) and Origin (CORS) are added by the session and CORS middleware: answers differ by them.
VARY = "Accept, Accept-Encoding, Authorization, Cookie, origin"
STRONG = re.compile(r'^"[0-9a-f]{32}"$')


def _one(site):
    return f"{POSTS}/{site.published.pk}"


def test_one_entry_carries_every_caching_header(site, anon):
    response = anon.get(_one(site))
    entry = Entry.objects.get(pk=site.published.pk)
    assert response.status_code == 200
    assert STRONG.match(response["ETag"])
    assert response["Last-Modified"] == http_date(entry.updated_at.timestamp())
    assert response["Cache-Control"] == CACHE_CONTROL
    assert response["Vary"] == VARY
    assert response["Surrogate-Key"] == f"collection:posts entry:{entry.pk}"
    assert response["Cache-Tag"] == f"collection:posts,entry:{entry.pk}"
    # The same entry by slug is the same representation.
    assert anon.get(f"{POSTS}/hello")["ETag"] == response["ETag"]
    assert anon.get(_one(site))["ETag"] == response["ETag"]


def test_the_cache_lifetimes_are_configurable(site, anon, settings):
    settings.CMS_CACHE_MAX_AGE, settings.CMS_CACHE_S_MAXAGE, settings.CMS_CACHE_SWR = 5, 600, 30
    assert (
        anon.get(_one(site))["Cache-Control"] == "public, max-age=5, s-maxage=600, stale-while-revalidate=30"
    )


def test_the_etag_changes_when_the_published_entry_does(site, anon):
    before = anon.get(_one(site))["ETag"]
    content_services.entry_publish(actor=Actor.system(), entry=site.published.pk, collection=site.posts)
    after = anon.get(_one(site))
    assert after["ETag"] != before
    assert after.json()["data"]["item"]["data"]["title"] == "Hello draft title"


def test_the_etag_changes_when_a_term_the_entry_shows_is_renamed(site, anon):
    system = Actor.system()
    topics = taxonomy_services.taxonomy_create(
        actor=system, name="topic", label="Topics", collections=["posts"]
    )
    term = taxonomy_services.term_create(actor=system, taxonomy=topics, label="Boats")
    entry = Entry.objects.get(pk=site.published.pk)
    taxonomy_services.entry_terms_set(actor=system, entry=entry, taxonomy=topics, term_ids=[term.pk])
    before = anon.get(_one(site))
    taxonomy_services.term_update(actor=system, term=term, changes={"label": "Ships"})
    after = anon.get(_one(site), HTTP_IF_NONE_MATCH=before["ETag"])
    # The entry's row did not change, the answer did: a client holding the old copy gets the new one.
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert [t["label"] for t in after.json()["data"]["item"]["terms"]["topic"]] == ["Ships"]
    for page in (POSTS, f"{POSTS}?limit=10"):
        assert anon.get(page, HTTP_IF_NONE_MATCH=anon.get(page)["ETag"]).status_code == 304


def test_if_none_match_answers_304_without_presenting(site, anon, monkeypatch):
    first = anon.get(_one(site))
    from apps.content.api import views

    def not_called(*args, **kwargs):
        raise AssertionError("the answer was built")

    monkeypatch.setattr(views, "present_entry_with_rev", not_called)
    for sent in (first["ETag"], f"W/{first['ETag']}", f'"other", {first["ETag"][:-1]}-br"', "*"):
        response = anon.get(_one(site), HTTP_IF_NONE_MATCH=sent)
        assert response.status_code == 304, sent
        assert response.content == b""
        assert response["Cache-Control"] == CACHE_CONTROL
        assert response["Vary"] == VARY
        assert response["Last-Modified"] == first["Last-Modified"]
        assert response["Surrogate-Key"] == first["Surrogate-Key"]
    assert anon.get(_one(site), HTTP_IF_NONE_MATCH=first["ETag"])["ETag"] == first["ETag"]


def test_if_modified_since_answers_304_and_if_none_match_wins(site, anon):
    first = anon.get(_one(site))
    assert anon.get(_one(site), HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304
    assert anon.get(_one(site), HTTP_IF_MODIFIED_SINCE="Thu, 01 Jan 2015 00:00:00 GMT").status_code == 200
    assert anon.get(_one(site), HTTP_IF_MODIFIED_SINCE="not a date").status_code == 200
    stale = anon.get(_one(site), HTTP_IF_NONE_MATCH='"stale"', HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert stale.status_code == 200
    assert stale.json() == first.json()


def test_a_stale_validator_gets_the_new_answer(site, anon):
    first = anon.get(_one(site))
    content_services.entry_publish(actor=Actor.system(), entry=site.published.pk, collection=site.posts)
    assert anon.get(_one(site), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_a_list_page_carries_the_caching_headers_and_answers_304(site, anon, monkeypatch):
    more = make_entry(site.posts, {"title": "Second"}, slug="second", status="published")
    response = anon.get(POSTS)
    assert response.status_code == 200
    ids = [item["id"] for item in response.json()["data"]["items"]]
    assert ids == [more.pk, site.published.pk]
    assert STRONG.match(response["ETag"])
    assert response["Cache-Control"] == CACHE_CONTROL
    assert response["Vary"] == VARY
    assert response["Surrogate-Key"] == " ".join(["collection:posts", *(f"entry:{pk}" for pk in ids)])
    assert response["Cache-Tag"] == ",".join(["collection:posts", *(f"entry:{pk}" for pk in ids)])
    newest = max(Entry.objects.filter(pk__in=ids).values_list("updated_at", flat=True))
    assert response["Last-Modified"] == http_date(newest.timestamp())
    # Each query string is its own page.
    assert anon.get(POSTS, {"limit": 1})["ETag"] != response["ETag"]
    from apps.content.api import views

    monkeypatch.setattr(views, "present_entry_page", lambda seen: pytest.fail("the page was built"))
    assert anon.get(POSTS, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_a_page_changes_its_etag_when_an_entry_leaves_it_and_ignores_if_modified_since(site, anon):
    more = make_entry(site.posts, {"title": "Second"}, slug="second", status="published")
    first = anon.get(POSTS)
    # An entry leaving the page moves no time of the others forward: only the ETag can tell.
    assert anon.get(POSTS, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 200
    content_services.entry_unpublish(actor=Actor.system(), entry=more.pk, collection=site.posts)
    after = anon.get(POSTS, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200
    assert [item["id"] for item in after.json()["data"]["items"]] == [site.published.pk]


def test_site_reads_are_validated_by_their_body(site, anon):
    first = anon.get(f"{API}/menus/main")
    assert STRONG.match(first["ETag"])
    assert first["Vary"] == VARY
    assert anon.get(f"{API}/menus/main", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    search = anon.get(f"{API}/search", {"q": "hello"})
    assert anon.get(f"{API}/search", {"q": "hello"}, HTTP_IF_NONE_MATCH=search["ETag"]).status_code == 304


def test_answers_to_tokens_stay_private_and_unconditional(site, client_for):
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    public = Client().get(_one(site))
    for path in (_one(site), POSTS, f"{API}/menus/main", f"{API}/settings"):
        response = reader.get(path, HTTP_IF_NONE_MATCH=public["ETag"])
        assert response.status_code == 200, path
        assert response["Cache-Control"] == "private, no-store"
        for header in ("ETag", "Last-Modified", "Surrogate-Key", "Cache-Tag"):
            assert not response.has_header(header), (path, header)


def _queries(client, path) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code in (200, 304)
    return len(queries)


def test_anonymous_reads_take_a_constant_number_of_queries(site, anon, client_for):
    tag = anon.get(_one(site))["ETag"]
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    reader.get(_one(site))  # the token's first use records when it was last used: a write, once
    # The schema's version token (which a token lookup carries on the token path), then the entry with its credits
    # and terms (apps/content/companions.py): as many round trips as with a token.
    assert _queries(anon, _one(site)) == _queries(reader, _one(site)) == 2
    with CaptureQueriesContext(connection) as queries:
        assert anon.get(_one(site), HTTP_IF_NONE_MATCH=tag).status_code == 304
    assert len(queries) == 2
    few = _queries(anon, POSTS)
    for index in range(12):
        make_entry(site.posts, {"title": f"More {index}"}, slug=f"more-{index}", status="published")
    assert _queries(anon, POSTS) == few == _queries(reader, POSTS) == 2


def _big_list(site):
    for index in range(30):
        make_entry(
            site.posts,
            {"title": f"Entry {index}", "body": "words " * 40},
            slug=f"e-{index}",
            status="published",
        )


@pytest.mark.parametrize("coding, decode", [("br", brotli.decompress), ("gzip", gzip.decompress)])
def test_json_answers_are_compressed_for_clients_that_accept_it(site, coding, decode):
    _big_list(site)
    client = Client()
    plain = client.get(POSTS)
    assert not plain.has_header("Content-Encoding")
    packed = client.get(POSTS, HTTP_ACCEPT_ENCODING=f"{coding}, deflate")
    assert packed["Content-Encoding"] == coding
    assert len(packed.content) < len(plain.content) / 3
    assert orjson.loads(decode(packed.content)) == orjson.loads(plain.content)
    assert packed["Content-Length"] == str(len(packed.content))
    assert packed["Vary"] == VARY
    # Strong and distinct per coding, and still a validator of the same entity.
    assert packed["ETag"] == f'{plain["ETag"][:-1]}-{coding}"'
    assert (
        client.get(POSTS, HTTP_IF_NONE_MATCH=packed["ETag"], HTTP_ACCEPT_ENCODING=coding).status_code == 304
    )


def test_brotli_is_preferred_and_refusals_are_respected(site):
    _big_list(site)
    client = Client()
    assert client.get(POSTS, HTTP_ACCEPT_ENCODING="gzip, br")["Content-Encoding"] == "br"
    assert client.get(POSTS, HTTP_ACCEPT_ENCODING="br;q=0, gzip")["Content-Encoding"] == "gzip"
    assert not client.get(POSTS, HTTP_ACCEPT_ENCODING="identity").has_header("Content-Encoding")
    assert client.get(POSTS, HTTP_ACCEPT_ENCODING="*")["Content-Encoding"] == "br"


def test_small_answers_and_files_are_not_compressed(site, admin_user, settings):
    client = Client()
    small = client.get(f"{API}/settings", HTTP_ACCEPT_ENCODING="br, gzip")
    assert not small.has_header("Content-Encoding")
    assert "Accept-Encoding" in small["Vary"]
    item = make_media(filename="notes.pdf", content=b"%PDF-1.4\n" + b"0" * 5000 + b"\n%%EOF\n")
    download = client.get(f"{API}/media/file/{item.storage_key}", HTTP_ACCEPT_ENCODING="br, gzip")
    assert download.status_code == 200
    assert not download.has_header("Content-Encoding")
    settings.CMS_COMPRESS_MIN_BYTES = 0
    _big_list(site)
    assert not client.get(POSTS, HTTP_ACCEPT_ENCODING="br").has_header("Content-Encoding")


def test_token_answers_are_compressed_too_and_stay_private(site, client_for):
    _big_list(site)
    reader = client_for(Role.SUBSCRIBER, ["content:read"])
    response = Client(HTTP_AUTHORIZATION=reader._credentials["HTTP_AUTHORIZATION"]).get(
        POSTS, HTTP_ACCEPT_ENCODING="gzip"
    )
    assert response["Content-Encoding"] == "gzip"
    assert response["Cache-Control"] == "private, no-store"
    assert response["Vary"] == "origin, Accept-Encoding"
