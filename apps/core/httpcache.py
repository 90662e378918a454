"""HTTP caching of public answers (issue 22): validators, conditional requests and the headers browsers and CDNs read.

Answers to anonymous readers are the same for everyone, so they may be stored by browsers and shared caches:
``Cache-Control: public, max-age, s-maxage, stale-while-revalidate`` (``CMS_CACHE_*``), a strong ``ETag`` and a
``Last-Modified`` computed by the caller from what it read (versions and times of rows, before any answer is built),
``Vary`` on what changes the answer, and ``Surrogate-Key``/``Cache-Tag`` naming what it shows so a CDN can purge it.
A conditional request whose validator matches is answered 304 without calling ``build``: the answer is never built.

The ETag of an identity answer is strong; the compression middleware (apps/core/compression.py) marks the ETag of a
compressed one with the coding (``"…-br"``, ``"…-gzip"``), which keeps it strong and distinct per representation.
``If-None-Match`` is compared weakly (RFC 9110 §13.1.2), with or without those marks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import xxhash
from django.conf import settings
from django.utils.http import http_date, parse_http_date_safe
from rest_framework.response import Response

from apps.core.api.renderers import JSONRenderer

# The marks the compression middleware adds to an ETag, per content coding.
CODING_MARKS = {"br": "-br", "gzip": "-gzip"}
# Authorization: the same URL answers differently (drafts, private, no-store) with a token.
PUBLIC_VARY = "Accept, Accept-Encoding, Authorization"


@dataclass(frozen=True, slots=True)
class Freshness:
    """What a public answer's validators and purge keys are, known before the answer is built."""

    etag: str
    last_modified: datetime | None
    keys: tuple[str, ...]
    # False where Last-Modified cannot say the answer changed (a page: an entry leaving it moves no time forward).
    by_date: bool = True


def strong_etag(*parts: Any) -> str:
    """A strong entity tag over ``parts`` (their ``repr``): 128 bits of xxh3, quoted."""
    return f'"{xxhash.xxh3_128_hexdigest(repr(parts).encode())}"'


def _bare(tag: str) -> str:
    tag = tag.strip().removeprefix("W/")
    for mark in CODING_MARKS.values():
        if tag.endswith(f'{mark}"'):
            return tag[: -len(mark) - 1] + '"'
    return tag


def matching_tag(header: str, etag: str) -> str | None:
    """The tag of ``If-None-Match`` that names ``etag`` (weak comparison, coding marks ignored), as the client sent it."""
    for tag in header.split(","):
        tag = tag.strip()
        if tag == "*" or _bare(tag) == etag:
            return tag if tag != "*" else etag
    return None


def cache_control() -> str:
    return (
        f"public, max-age={settings.CMS_CACHE_MAX_AGE}, s-maxage={settings.CMS_CACHE_S_MAXAGE}, "
        f"stale-while-revalidate={settings.CMS_CACHE_SWR}"
    )


def public_headers(fresh: Freshness, etag: str | None = None) -> dict[str, str]:
    headers = {
        "ETag": etag or fresh.etag,
        "Cache-Control": cache_control(),
        "Vary": PUBLIC_VARY,
        "Surrogate-Key": " ".join(fresh.keys),
        "Cache-Tag": ",".join(fresh.keys),
    }
    if fresh.last_modified is not None:
        headers["Last-Modified"] = http_date(fresh.last_modified.timestamp())
    return headers


def not_modified(request, fresh: Freshness) -> str | None:
    """The ETag a 304 answers with when the client's copy is current, else None. ``If-None-Match`` wins over
    ``If-Modified-Since`` (RFC 9110 §13.2.2); the date is compared to the second, as HTTP dates go."""
    wanted = request.headers.get("If-None-Match")
    if wanted:
        return matching_tag(wanted, fresh.etag)
    since = request.headers.get("If-Modified-Since")
    if since and fresh.by_date and fresh.last_modified is not None:
        when = parse_http_date_safe(since)
        if when is not None and int(fresh.last_modified.timestamp()) <= when:
            return fresh.etag
    return None


def public_answer(
    request, fresh: Freshness, build: Callable[[], Any], *, envelope: bool = True, status: int = 200
) -> Response:
    """304 with the validators when the client's copy is current (``build`` is not called), else the answer built,
    with the public caching headers."""
    matched = not_modified(request, fresh)
    if matched is not None:
        return Response(status=304, headers=public_headers(fresh, matched))
    data = build()
    return Response(
        {"success": True, "data": data} if envelope else data, status=status, headers=public_headers(fresh)
    )


def keys(*groups: Iterable[str]) -> tuple[str, ...]:
    """Purge keys in order, each once."""
    return tuple(dict.fromkeys(key for group in groups for key in group))


def small_answer(request, data: Any, *, public: bool, keys: Iterable[str], envelope: bool = True) -> Response:
    """A read whose answer is small and cheap (menus, terms, sections, widgets, settings, search): for anonymous
    readers (``public``) it is built first and its ETag is the hash of its JSON; others get it as before."""
    if not public:
        return Response({"success": True, "data": data} if envelope else data)
    fresh = Freshness(etag=strong_etag(JSONRenderer().render(data)), last_modified=None, keys=tuple(keys))
    return public_answer(request, fresh, lambda: data, envelope=envelope)


# What ``@endpoint(bodiless=...)`` documents for the reads answered conditionally.
NOT_MODIFIED = {
    304: "Not modified (anonymous readers): the copy named by If-None-Match or If-Modified-Since is current."
}
