"""Conditional reads of a public entry answered in front of Django (apps/delivery/fastpath.py): the same 304 as the
view's, with the same headers, and everything else left to Django, which answers it as before."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

import cms_project.wsgi
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.delivery.fastpath import KeptAnswers
from apps.taxonomy import services as taxonomy_services
from tests.delivery.test_public_caching import POSTS, _one
from tests.factories import make_token, make_user
from tests.wsgi import wsgi_call


@pytest.fixture
def django_counted(monkeypatch):
    """Counts the requests that reach Django behind the fast paths."""
    calls = []
    fast = cms_project.wsgi.public_entries
    inner = fast.application

    def counted(environ, start_response):
        calls.append(environ["PATH_INFO"])
        return inner(environ, start_response)

    monkeypatch.setattr(fast, "application", counted)
    # Each test starts with no answers kept (the application, like a worker, lives across requests).
    monkeypatch.setattr(fast, "answers", KeptAnswers())
    return calls


def _headers_without_request_id(headers) -> dict:
    return {name: value for name, value in dict(headers).items() if name != "X-Request-ID"}


def test_a_current_copy_is_answered_before_django_with_the_views_headers(site, anon, django_counted):
    first = anon.get(_one(site))
    by_django = anon.get(_one(site), HTTP_IF_NONE_MATCH=first["ETag"])
    assert by_django.status_code == 304
    status, headers, body = wsgi_call(_one(site), HTTP_IF_NONE_MATCH=first["ETag"])
    assert (status, body) == ("304 Not Modified", b"")
    assert django_counted == []
    assert _headers_without_request_id(headers) == _headers_without_request_id(by_django.headers)
    assert len(headers["X-Request-ID"]) == 26
    # By slug, with the coding mark a compressed copy's ETag carries, and by HEAD: the same.
    assert wsgi_call(f"{POSTS}/hello", HTTP_IF_NONE_MATCH=first["ETag"])[0] == "304 Not Modified"
    marked = first["ETag"][:-1] + '-br"'
    assert wsgi_call(_one(site), HTTP_IF_NONE_MATCH=marked)[1]["ETag"] == marked
    assert (
        wsgi_call(_one(site), REQUEST_METHOD="HEAD", HTTP_IF_NONE_MATCH=first["ETag"])[0]
        == "304 Not Modified"
    )
    assert django_counted == []


def test_a_stale_copy_is_answered_by_django_with_the_new_entry(site, anon, django_counted):
    etag = anon.get(_one(site))["ETag"]
    content_services.entry_publish(actor=Actor.system(), entry=site.published.pk, collection=site.posts)
    status, headers, body = wsgi_call(_one(site), HTTP_IF_NONE_MATCH=etag)
    assert status == "200 OK"
    assert headers["ETag"] != etag
    assert b"Hello draft title" in body
    assert django_counted == [_one(site)]


def test_a_renamed_term_makes_the_copy_stale_here_too(site, anon, django_counted):
    system = Actor.system()
    topics = taxonomy_services.taxonomy_create(
        actor=system, name="topic", label="Topics", collections=["posts"]
    )
    term = taxonomy_services.term_create(actor=system, taxonomy=topics, label="Boats")
    taxonomy_services.entry_terms_set(actor=system, entry=site.published, taxonomy=topics, term_ids=[term.pk])
    etag = anon.get(_one(site))["ETag"]
    assert wsgi_call(_one(site), HTTP_IF_NONE_MATCH=etag)[0] == "304 Not Modified"
    taxonomy_services.term_update(actor=system, term=term, changes={"label": "Ships"})
    assert wsgi_call(_one(site), HTTP_IF_NONE_MATCH=etag)[0] == "200 OK"
    assert len(django_counted) == 1


def test_what_is_not_an_anonymous_conditional_read_of_a_public_entry_goes_to_django(
    site, anon, django_counted
):
    first = anon.get(_one(site))
    etag, last_modified = first["ETag"], first["Last-Modified"]
    wsgi_call(_one(site))  # an answer kept for the date-only request below to pass by
    _, raw = make_token(make_user(), ["content:read"])
    signed_in = Client()
    signed_in.force_login(make_user())
    session = f"{settings.SESSION_COOKIE_NAME}={signed_in.cookies[settings.SESSION_COOKIE_NAME].value}"
    for path, query, headers, expected in [
        # With credentials: the reader's own answer (private, never a shared 304 from here).
        (_one(site), "", {"HTTP_AUTHORIZATION": f"Bearer {raw}"}, "200 OK"),
        (_one(site), "", {"HTTP_COOKIE": f"theme=dark; {session}"}, "200 OK"),
        (_one(site), "", {"HTTP_X_CMS_PREVIEW": "not-a-token"}, "401 Unauthorized"),
        # A query string is part of what the view validates and of the validators.
        (_one(site), "resolveLinks=true", {}, "200 OK"),
        (_one(site), "resolveLinks=nonsense", {}, "400 Bad Request"),
        # Cross-origin: the CORS middleware's headers; a host Django does not serve: its 400.
        (_one(site), "", {"HTTP_ORIGIN": "https://elsewhere.example"}, "304 Not Modified"),
        (_one(site), "", {"HTTP_HOST": "evil.example"}, "400 Bad Request"),
        # Not readable without a token: the draft, another collection's entry, a private collection.
        (f"{POSTS}/{site.draft.pk}", "", {}, "404 Not Found"),
        (f"/_cms/api/content/notes/{site.private.pk}", "", {}, "401 Unauthorized"),
        (f"{POSTS}/nothing-here", "", {}, "404 Not Found"),
        # Asked by date only: the view's 304 by Last-Modified, never a kept 200.
        (
            _one(site),
            "",
            {"HTTP_IF_NONE_MATCH": None, "HTTP_IF_MODIFIED_SINCE": last_modified},
            "304 Not Modified",
        ),
    ]:
        django_counted.clear()
        sent = {"HTTP_IF_NONE_MATCH": etag, **headers}
        status, _, _ = wsgi_call(
            path, query, **{name: value for name, value in sent.items() if value is not None}
        )
        assert (status, django_counted) == (expected, [path]), (path, query, headers)


def test_django_builds_an_anonymous_answer_once_per_version_and_coding(site, django_counted):
    status, headers, body = wsgi_call(_one(site))
    assert status == "200 OK"
    again = wsgi_call(_one(site))
    assert django_counted == [_one(site)]
    assert again[0] == status and again[2] == body
    assert {**again[1], "X-Request-ID": ""} == {**headers, "X-Request-ID": ""}
    assert again[1]["X-Request-ID"] != headers["X-Request-ID"]
    # Another coding is another representation: Django makes it once, then it is kept too.
    gzipped = wsgi_call(_one(site), HTTP_ACCEPT_ENCODING="gzip")
    assert wsgi_call(_one(site), HTTP_ACCEPT_ENCODING="gzip")[2] == gzipped[2]
    assert django_counted == [_one(site)] * 2
    # A stale If-None-Match gets the kept answer; HEAD gets its headers.
    assert wsgi_call(_one(site), HTTP_IF_NONE_MATCH='"stale"')[2] == body
    head = wsgi_call(_one(site), REQUEST_METHOD="HEAD")
    assert (head[0], head[2], head[1]["ETag"]) == ("200 OK", b"", headers["ETag"])
    assert django_counted == [_one(site)] * 2
    # A new version is a new ETag: Django answers it, never the old body.
    content_services.entry_publish(actor=Actor.system(), entry=site.published.pk, collection=site.posts)
    newer = wsgi_call(_one(site))
    assert b"Hello draft title" in newer[2] and newer[1]["ETag"] != headers["ETag"]
    assert django_counted == [_one(site)] * 3


def test_answers_to_credentials_are_never_kept_or_served_from_memory(site, django_counted):
    wsgi_call(_one(site))
    _, raw = make_token(make_user(), ["content:read"])
    for _ in range(2):
        status, headers, _ = wsgi_call(_one(site), HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert (status, headers["Cache-Control"]) == ("200 OK", "private, no-store")
    assert django_counted == [_one(site)] * 3


def test_no_answers_are_kept_without_room_for_them(site, django_counted, settings):
    settings.CMS_PUBLIC_ANSWERS_BYTES = 0
    etag = wsgi_call(_one(site))[1]["ETag"]
    wsgi_call(_one(site))
    assert django_counted == [_one(site)] * 2
    # The 304 of a current copy still needs no answer kept.
    assert wsgi_call(_one(site), HTTP_IF_NONE_MATCH=etag)[0] == "304 Not Modified"
    assert django_counted == [_one(site)] * 2


def test_kept_answers_stay_within_their_room_dropping_the_oldest(settings):
    settings.CMS_PUBLIC_ANSWERS_BYTES = 1600
    kept = KeptAnswers()
    for n in range(20):
        kept.keep(("path", n), ("200 OK", [], b"x" * 100))
    assert [n for n in range(20) if kept.get(("path", n))] == list(range(4, 20))
    kept.keep(("path", "big"), ("200 OK", [], b"x" * 101))  # more than a sixteenth of the room: not kept
    assert kept.get(("path", "big")) is None
