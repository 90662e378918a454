"""The ``blogplatform-hosted`` source: a site hosted on WordPress.com, found through the public site API and imported
through its REST API with an OAuth access token (SPEC §4.10: probe, OAuth, full import).

``settings.CMS_IMPORT_HOSTED_API`` is the API's address (``https://public-api.wordpress.com``); tests point it at a
local server replaying recorded answers. Input of analyze and fetch: ``{"url": site address, "accessToken": …}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlsplit

from django.conf import settings

from apps.core import safehttp
from apps.core.errors import ValidationError
from apps.importer.analysis import analyze_records
from apps.importer.items import SiteInfo
from apps.importer.sources.wp_rest import RestError, get_json, read_site
from apps.plugins.base import ImportSourceContribution

MESSAGE = "Connect with WordPress.com (OAuth) to import everything, drafts and media included."


def _site_id(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"https://{url}")
    if not parts.netloc:
        raise ValidationError(details={"url": "Give the site's address, e.g. https://example.wordpress.com."})
    return parts.netloc.lower()


def _api() -> str:
    return settings.CMS_IMPORT_HOSTED_API.rstrip("/")


def site_info(url: str, token: str | None = None) -> dict[str, Any] | None:
    try:
        data, _ = get_json(
            f"{_api()}/rest/v1.1/sites/{quote(_site_id(url), safe='')}", token=token, timeout=8.0
        )
    except (RestError, safehttp.SafeHttpError):
        return None
    if not isinstance(data, dict) or "ID" not in data:
        return None
    return data


def probe(url: str) -> dict[str, Any] | None:
    data = site_info(url)
    if data is None:
        return None
    return {
        "confidence": 0.95,
        "action": "oauth",
        "details": {
            "platform": "WordPress.com",
            "siteId": data["ID"],
            "siteName": data.get("name") or "",
            "siteUrl": data.get("URL") or url,
            "message": MESSAGE,
        },
    }


def _records(source_input: dict[str, Any]) -> Iterator[Any]:
    url, token = source_input.get("url") or "", source_input.get("accessToken") or ""
    data = site_info(url, token)
    if data is None:
        raise ValidationError(details={"url": f"{url} is not a WordPress.com site the API knows."})
    site = SiteInfo(
        title=data.get("name") or "",
        link=data.get("URL") or url,
        description=data.get("description") or "",
        language=data.get("lang") or "",
        base_site_url=data.get("URL") or url,
        base_blog_url=data.get("URL") or url,
    )
    base = f"{_api()}/wp/v2/sites/{quote(_site_id(url), safe='')}"
    try:
        yield from read_site(base, token=token, site=site)
    except (RestError, safehttp.SafeHttpError) as error:
        raise ValidationError(
            f"Reading {url} through its API failed: {error}", details={"url": str(error)}
        ) from error


def analyze(source_input: dict[str, Any]) -> dict[str, Any]:
    return analyze_records(_records(source_input))


def fetch(source_input: dict[str, Any]) -> Iterator[Any]:
    return _records(source_input)


source = ImportSourceContribution(
    id="blogplatform-hosted", name="WordPress.com", analyze=analyze, fetch=fetch, probe=probe
)
