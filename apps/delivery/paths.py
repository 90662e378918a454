"""Paths of the public site as the delivery layer compares them: one spelling per path, so that ``/blog/hello`` and
``/blog/hello/`` are the same page and a redirect or a resolve finds it either way."""

from __future__ import annotations

from urllib.parse import urlsplit

MAX_PATH = 1000


def normal_path(path: str) -> str:
    """``path`` without a trailing slash (the root stays ``/``)."""
    return path.rstrip("/") or "/"


def source_problem(path: str) -> str | None:
    """Why ``path`` cannot be a redirect's source (or a path to resolve), or None."""
    if not path.startswith("/") or path.startswith("//"):
        return "A path on the site starting with one /, e.g. /old-page."
    if any(char in path for char in "?#\\") or any(ord(char) < 33 for char in path):
        return "A path only: no query (?), fragment (#), backslash, spaces or control characters."
    if len(path) > MAX_PATH:
        return f"At most {MAX_PATH} characters."
    return None


def location_problem(location: str) -> str | None:
    """Why ``location`` cannot be where a redirect points, or None: a path of the site or an absolute http(s) URL."""
    if location.startswith("/") and not location.startswith("//"):
        if any(ord(char) < 33 for char in location) or "\\" in location:
            return "A path without spaces, backslashes or control characters."
        return None
    parts = urlsplit(location)
    if parts.scheme in ("http", "https") and parts.netloc and not any(ord(char) < 33 for char in location):
        return None
    return "A path of the site (/new-page) or an absolute http(s) URL (https://example.com/page)."


def local(location: str) -> str | None:
    """The normal path of a location that is a path of the site (where another redirect may start), else None."""
    return normal_path(location.split("?", 1)[0].split("#", 1)[0]) if location.startswith("/") else None
