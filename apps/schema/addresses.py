"""Where a collection's entries live on the front end (``urlPattern``) and where the front end shows a draft
(``previewUrl``): the placeholders each template takes, the check of a template, and filling one in.

A URL pattern is a path such as ``/blog/{slug}`` or ``/{locale}/docs/{slug}``: an entry's ``url`` is the pattern with
the entry's own columns put in (no data is read, so presenting it costs nothing per entry), and ``pattern_regex``
turns it back into a matcher for ``GET /_cms/api/resolve``. A preview URL is an absolute address on the front end
with ``{token}`` and, optionally, the entry's ``{url}``, ``{id}``, ``{slug}`` and ``{locale}``.
"""

from __future__ import annotations

import re
import string
from urllib.parse import quote, urlsplit

URL_PATTERN_PLACEHOLDERS = ("slug", "locale", "id")
PREVIEW_URL_PLACEHOLDERS = ("token", "url", "id", "slug", "locale")
_FORMATTER = string.Formatter()
# What each placeholder matches in a path: a slug or locale is one path segment, an id a ULID.
_SEGMENT = {"slug": r"[^/]+", "locale": r"[^/]+", "id": r"[0-9A-Za-z]{26}"}


def _placeholders(template: str) -> list[str]:
    """The names between braces, in order; ValueError for unbalanced braces or a format spec."""
    names = []
    for _, name, spec, conversion in _FORMATTER.parse(template):
        if name is None:
            continue
        if spec or conversion or not name.isidentifier():
            raise ValueError(f"'{{{name}}}' is not a placeholder")
        names.append(name)
    return names


def _unknown(template: str, allowed: tuple[str, ...]) -> str | None:
    try:
        names = _placeholders(template)
    except ValueError:
        return (
            f"Braces must enclose a placeholder name; allowed: {', '.join('{' + n + '}' for n in allowed)}."
        )
    unknown = [name for name in dict.fromkeys(names) if name not in allowed]
    if unknown:
        return (
            f"Unknown placeholder(s) {', '.join('{' + n + '}' for n in unknown)}; "
            f"allowed: {', '.join('{' + n + '}' for n in allowed)}."
        )
    return None


def url_pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be a collection's URL pattern, or None ("" clears it)."""
    if pattern == "":
        return None
    if not pattern.startswith("/") or pattern.startswith("//"):
        return "A URL pattern is a path on the site starting with one /, e.g. /blog/{slug}."
    if any(char in pattern for char in "?#\\ ") or any(ord(char) < 32 for char in pattern):
        return "A URL pattern is a path only: no query (?), fragment (#), backslash or spaces."
    problem = _unknown(pattern, URL_PATTERN_PLACEHOLDERS)
    if problem:
        return problem
    names = _placeholders(pattern)
    if "slug" not in names and "id" not in names:
        return "A URL pattern must name the entry: put {slug} or {id} in it, e.g. /blog/{slug}."
    if len(names) != len(set(names)):
        return "Each placeholder may appear once."
    return None


def preview_url_problem(template: str) -> str | None:
    """Why ``template`` cannot be a collection's preview URL, or None ("" clears it)."""
    if template == "":
        return None
    problem = _unknown(template, PREVIEW_URL_PLACEHOLDERS)
    if problem:
        return problem
    parts = urlsplit(template.replace("{", "").replace("}", ""))
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return "A preview URL is an absolute http(s) address on the front end, e.g. https://site.example/api/preview?token={token}."
    if "token" not in _placeholders(template):
        return "A preview URL must carry the token: put {token} in it."
    return None


def entry_path(pattern: str, *, slug: str, locale: str, id: str) -> str:
    """The entry's path under ``pattern`` (a valid, non-empty pattern)."""
    return pattern.format(slug=quote(slug, safe=""), locale=quote(locale, safe=""), id=id)


def preview_address(template: str, *, token: str, url: str | None, id: str, slug: str, locale: str) -> str:
    """The preview URL with every placeholder filled, each URL-encoded (the token and the path as well)."""
    return template.format(
        token=quote(token, safe=""),
        url=quote(url or "", safe=""),
        id=id,
        slug=quote(slug, safe=""),
        locale=quote(locale, safe=""),
    )


def pattern_regex(pattern: str) -> re.Pattern:
    """A matcher of whole paths under ``pattern`` whose groups are the placeholders' values."""
    parts = []
    for literal, name, _, _ in _FORMATTER.parse(pattern):
        parts.append(re.escape(literal))
        if name:
            parts.append(f"(?P<{name}>{_SEGMENT[name]})")
    return re.compile("".join(parts))


def specificity(pattern: str) -> int:
    """How much of a path the pattern fixes: patterns that fix more are tried first when several match."""
    return sum(len(literal) for literal, _, _, _ in _FORMATTER.parse(pattern))
