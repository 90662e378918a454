"""The ``blogplatform-rest`` source: a self-hosted WordPress site seen through its public REST API (probe only).

The probe reads the API index (``/wp-json/``, or ``?rest_route=/`` on sites without pretty permalinks), and counts
posts, pages and media from ``X-WP-Total``. Without credentials the API shows published content only, so the
suggested action is a full export file (SPEC §4.10 rules 1 and 2).
"""

from __future__ import annotations

from typing import Any

from apps.core import safehttp
from apps.core.errors import ValidationError
from apps.importer.sources.wp_rest import RestError, get_json, total
from apps.plugins.base import ImportSourceContribution

NOTE = (
    "Only published content is visible without signing in: drafts, private posts and media details need "
    "authentication or a full export (Tools → Export → All content in WordPress), which you can upload here."
)


def _index(url: str) -> tuple[dict[str, Any], str] | None:
    root = url.rstrip("/")
    for index, api in ((f"{root}/wp-json/", f"{root}/wp-json/wp/v2"), (f"{root}/?rest_route=/", None)):
        try:
            data, _ = get_json(index, timeout=8.0)
        except (RestError, safehttp.SafeHttpError):
            continue
        if isinstance(data, dict) and "wp/v2" in (data.get("namespaces") or []):
            return data, api or f"{root}/?rest_route=/wp/v2"
    return None


def probe(url: str) -> dict[str, Any] | None:
    found = _index(url)
    if found is None:
        return None
    index, api = found
    counts = {name: total(f"{api}/{name}") for name in ("posts", "pages", "media")}
    return {
        "confidence": 0.9,
        "action": "export",
        "details": {
            "platform": "WordPress (self-hosted)",
            "siteName": index.get("name") or "",
            "siteUrl": index.get("url") or url,
            "counts": counts,
            "message": NOTE,
        },
    }


def _probe_only(_input: Any) -> Any:
    raise ValidationError(
        "The self-hosted REST source only probes; import from an export file instead.",
        details={"source": NOTE},
    )


source = ImportSourceContribution(
    id="blogplatform-rest",
    name="WordPress site (REST API)",
    analyze=_probe_only,
    fetch=_probe_only,
    probe=probe,
)
