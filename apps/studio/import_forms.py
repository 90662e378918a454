"""The import wizard's forms and tables (apps/studio/views/imports.py): reading the analysis form into the mappings the
import services take, putting their refusals back next to the rows they concern, and shaping a job for its page.

Nothing here decides anything about an import: statuses come from ``services.post_type_plan``, checks from
``import_prepare`` and ``job_create``; this module only translates between form fields and those services' names."""

from __future__ import annotations

import re
from typing import Any

from django.urls import reverse

from apps.importer.errors import FAILURE_REASONS
from apps.importer.services import default_collection

NEW = "__new__"
STATUS_LABELS = {
    "ready": ("Ready", "published"),
    "new_collection": ("New collection", "scheduled"),
    "add_fields": ("Add fields", "changed"),
    "incompatible": ("Incompatible", "trashed"),
}
JOB_BADGES = {
    "queued": "scheduled",
    "running": "scheduled",
    "paused": "changed",
    "failed": "trashed",
    "completed": "published",
}
OPTIONS = (
    ("includeTaxonomies", "Import categories, tags and other terms", True),
    ("includeMenus", "Import navigation menus", True),
    ("includeMedia", "Download attachments into the media library and rewrite their URLs", False),
)
# A form posted without its options (the first check) keeps these; a submitted form says each one.
DEFAULT_OPTIONS = {key: default for key, _label, default in OPTIONS}


def default_form(result: dict[str, Any]) -> dict[str, Any]:
    """The analysis form as first shown: every post type enabled into its usual collection, every author a guest."""
    mappings = {}
    for post_type in result.get("postTypes", []):
        slug = default_collection(post_type["name"])
        mappings[post_type["name"]] = {"collection": slug, "enabled": True}
    return {"mappings": mappings, "authors": {}, "options": dict(DEFAULT_OPTIONS)}


def read_form(post, result: dict[str, Any]) -> dict[str, Any]:
    """``type-<i>-enabled``, ``type-<i>-target`` (an existing slug, or ``__new__`` with ``type-<i>-new``),
    ``author-<i>`` (a user id, empty for a guest byline) and the option checkboxes, by the analysis's order."""
    mappings = {}
    for index, post_type in enumerate(result.get("postTypes", [])):
        target = post.get(f"type-{index}-target", "").strip()
        if target == NEW:
            target = post.get(f"type-{index}-new", "").strip()
        mappings[post_type["name"]] = {
            "collection": target,
            "enabled": post.get(f"type-{index}-enabled") == "on",
        }
    authors = {}
    for index, author in enumerate(result.get("authors", [])):
        chosen = post.get(f"author-{index}", "").strip()
        if chosen:
            authors[author["login"]] = chosen
    options = {key: post.get(key) == "on" for key, _label, _default in OPTIONS}
    return {"mappings": mappings, "authors": authors, "options": options}


def form_errors(details: Any, result: dict[str, Any], form: dict[str, Any]) -> dict[str, str]:
    """A refusal's ``details`` (named as prepare and execute name things) by the form's row ids: ``type-<i>`` and
    ``author-<i>``. ``postTypes.<k>`` counts only the enabled post types, as prepare was given them."""
    if not isinstance(details, dict):
        return {}
    names = [post_type["name"] for post_type in result.get("postTypes", [])]
    enabled = [name for name in names if form["mappings"].get(name, {}).get("enabled")]
    logins = [author["login"] for author in result.get("authors", [])]
    errors: dict[str, str] = {}
    for key, message in details.items():
        errors.setdefault(_row_of(key, names, enabled, logins) or "form", str(message))
    return errors


def _row_of(key: str, names: list[str], enabled: list[str], logins: list[str]) -> str | None:
    if match := re.fullmatch(r"postTypes\.(\d+)\..*", key):
        position = int(match.group(1))
        return f"type-{names.index(enabled[position])}" if position < len(enabled) else None
    if match := re.fullmatch(r"postTypeMappings\.([^.]+)(\..*)?", key):
        return f"type-{names.index(match.group(1))}" if match.group(1) in names else None
    if match := re.fullmatch(r"authorMappings\.(.+)", key):
        return f"author-{logins.index(match.group(1))}" if match.group(1) in logins else None
    return None


def type_rows(plan: list[dict[str, Any]], form: dict[str, Any], existing: list, errors: dict) -> list[dict]:
    """The analysis table's rows: each post type with its count, status, chosen target and any error."""
    slugs = {collection.slug for collection in existing}
    rows = []
    for index, item in enumerate(plan):
        mapping = form["mappings"].get(item["name"], {})
        target = mapping.get("collection") or default_collection(item["name"])
        label, badge = STATUS_LABELS.get(item["status"], (item["status"], "draft"))
        rows.append(
            {
                "index": index,
                "name": item["name"],
                "count": item["count"],
                "statuses": item.get("statuses", {}),
                "status": item["status"],
                "status_label": label,
                "badge": badge,
                "conflicts": item.get("conflicts", []),
                "missing": item.get("missingFields", []),
                "enabled": mapping.get("enabled", True),
                "target": target if target in slugs else NEW,
                "new_slug": "" if target in slugs else target,
                "error": errors.get(f"type-{index}", ""),
            }
        )
    return rows


def author_rows(result: dict[str, Any], form: dict[str, Any], errors: dict) -> list[dict]:
    return [
        {
            "index": index,
            **author,
            "chosen": form["authors"].get(author["login"], ""),
            "error": errors.get(f"author-{index}", ""),
        }
        for index, author in enumerate(result.get("authors", []))
    ]


def option_rows(form: dict[str, Any]) -> list[dict]:
    return [
        {"name": key, "label": label, "checked": form["options"].get(key, default)}
        for key, label, default in OPTIONS
    ]


# --- a job's page ----------------------------------------------------------------------------------------------------


def pace(job: dict[str, Any], elapsed: float | None) -> dict[str, Any]:
    """Items done of total, with the rate since the job started and the time left at that rate."""
    done, total = job["progress"]["current"], job["progress"]["total"]
    rate = done / elapsed if elapsed and elapsed > 0 and done else None
    left = round((total - done) / rate) if rate and total > done else None
    return {
        "done": done,
        "total": total,
        "percent": round(100 * done / total) if total else (100 if job["state"] == "completed" else 0),
        "rate": round(rate, 1) if rate else None,
        "eta": left,
        "finished": job["state"] in ("completed", "failed", "paused"),
    }


def pace_text(state: str, phase: str, pace_: dict[str, Any]) -> str:
    """The sentence beside the progress bar (the same words the page's script writes while it polls)."""
    text = f"{pace_['done']} of {pace_['total']} items"
    if pace_["rate"]:
        text += f" · {pace_['rate']} items/s"
    if pace_["eta"] is not None and not pace_["finished"]:
        text += f" · about {duration(pace_['eta'])} left"
    if state in ("queued", "running"):
        text += f" · {state}, phase {phase}"
    return text


def duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def _entry_link(found: dict[str, str] | None) -> str | None:
    if not found or not found.get("collection"):
        return None
    return reverse("studio:entry-edit", args=[found["collection"], found["id"]])


def summary_tables(summary: dict[str, Any], entries: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The summary's counts per collection, warnings and failed items, each warning and failure linked to the entry
    it concerns in the editor (``entries``: source id → entry, from ``selectors.imported_entries``)."""
    collections = [
        {
            "slug": slug,
            "url": reverse("studio:entries", args=[slug]),
            "created": counts.get("created", 0),
            "updated": counts.get("updated", 0),
            "unchanged": counts.get("unchanged", 0),
        }
        for slug, counts in (summary.get("imported") or {}).items()
    ]
    warnings = [
        {**warning, "url": _entry_link(entries.get(str(warning.get("sourceId"))))}
        for warning in summary.get("warnings", [])
    ]
    failed = [
        {**item, "url": _entry_link(entries.get(str(item.get("sourceId"))))}
        for item in summary.get("failed", [])
    ]
    return {
        "collections": collections,
        "kinds": sorted((summary.get("kinds") or {}).items()),
        "warnings": warnings,
        "warning_count": summary.get("warningCount", len(warnings)),
        "failed": failed,
        "skipped": summary.get("skipped", []),
    }


def media_rows(failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**failure, "reason_label": FAILURE_REASONS.get(failure["reason"], "other")} for failure in failures
    ]
