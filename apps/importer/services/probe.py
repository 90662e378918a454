"""Probing an address (SPEC §4.10 rule 1): which known platform answers there, and what to do next."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from apps.accounts.permissions import Actor, authorize
from apps.core import safehttp
from apps.core.errors import ValidationError
from apps.importer import registry

logger = logging.getLogger("cms.importer")

SUGGESTIONS = {
    "oauth": "Connect the site with OAuth, then import everything through its API.",
    "export": "Export the site in WordPress (Tools → Export → All content) and upload the file.",
    "upload": "No known platform answered at this address; upload an export file instead.",
}


PRIVATE_ADDRESS_HELP = (
    " The server never fetches private, loopback or link-local addresses (they could reach its own network), so a"
    " site there cannot be probed: export it (WordPress: Tools → Export → All content) and upload the file instead."
)


def _check_probe_address(url: str) -> None:
    """Refuse an address the safe client would refuse, saying why: the probes would all be stopped before reaching
    it, and "no known platform answered" would hide the reason from someone probing a site on their own network.
    A host that does not resolve is left to the probes (no match, upload suggested)."""
    try:
        safehttp.check_url(url)
    except safehttp.BlockedDestination as error:
        help_text = PRIVATE_ADDRESS_HELP if isinstance(error, safehttp.BlockedAddress) else ""
        raise ValidationError(details={"url": f"{error}{help_text}"}) from error
    except safehttp.SafeHttpError:
        return


def import_probe(*, actor: Actor, url: str) -> dict[str, Any]:
    """Ask every source with a probe about ``url`` at once; the most confident match decides the suggested action
    (SPEC §4.10 rule 1). A probe that fails or runs out of time counts as no match; an address the safe client
    refuses (private, loopback, link-local …) is a VALIDATION_ERROR on ``url`` before any probe runs."""
    from concurrent.futures import ThreadPoolExecutor, wait

    authorize(actor, "import.run")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationError(details={"url": "Give an http or https address, e.g. https://example.com."})
    _check_probe_address(url.strip())
    sources = [source for source in registry.all_sources() if source.probe is not None]
    matches: list[dict[str, Any]] = []
    if sources:
        pool = ThreadPoolExecutor(max_workers=len(sources), thread_name_prefix="import-probe")
        futures = {pool.submit(source.probe, url.strip()): source for source in sources}
        done, _late = wait(futures, timeout=settings.CMS_IMPORT_PROBE_TIMEOUT)
        # Late probes are left to finish on their own (their HTTP client has its own time limit).
        pool.shutdown(wait=False, cancel_futures=True)
        for future in done:
            source = futures[future]
            try:
                found = future.result()
            except Exception as error:
                logger.info("probe failed", extra={"source": source.id, "error": str(error)})
                continue
            if found and found.get("confidence", 0) > 0:
                matches.append(
                    {
                        "source": source.id,
                        "name": source.name,
                        "confidence": float(found["confidence"]),
                        "details": found.get("details", {}),
                        "action": found.get("action", "upload"),
                    }
                )
    matches.sort(key=lambda match: (-match["confidence"], match["source"]))
    best = matches[0] if matches else None
    action = best["action"] if best else "upload"
    return {
        "url": url.strip(),
        "best": {key: value for key, value in best.items() if key != "action"} if best else None,
        "matches": [{key: value for key, value in match.items() if key != "action"} for match in matches],
        "suggestedAction": {
            "action": action,
            "source": best["source"] if best else None,
            "message": (best["details"].get("message") if best else None) or SUGGESTIONS[action],
        },
    }
