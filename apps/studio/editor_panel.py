"""The entry editor's side panel: the entry's terms, its bylines, its translations and its lifecycle, read through the
selectors and written through the services of their apps (taxonomy, content)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from django.conf import settings

from apps.accounts.permissions import Actor, can
from apps.content import selectors as content_selectors
from apps.content import states
from apps.content.models import Entry, Status
from apps.core.errors import CmsError, ValidationError
from apps.schema.models import Collection
from apps.schema.selectors import title_field
from apps.taxonomy import selectors as taxonomy_selectors
from apps.taxonomy import services as taxonomy_services

BYLINES_SHOWN = 1000


def tax_control(name: str) -> str:
    return f"tax-{name}"


def i18n_on() -> bool:
    return len(settings.CMS_LOCALES) > 1


# --- taxonomies ------------------------------------------------------------------------------------------------------


@dataclass
class TaxonomyControl:
    name: str
    label: str
    hierarchical: bool
    # Hierarchical: every term with its depth and whether it is chosen; flat: the chosen labels as one text.
    terms: list[dict] = field(default_factory=list)
    text: str = ""
    may_create: bool = False
    error: str = ""

    @property
    def control(self) -> str:
        return tax_control(self.name)


def attached_taxonomies(actor: Actor, collection: Collection) -> list:
    attached = {item.id for item in taxonomy_selectors.taxonomies_for_collection(collection)}
    if not attached:
        return []
    return [taxonomy for taxonomy in taxonomy_selectors.taxonomy_list(actor=actor) if taxonomy.pk in attached]


def initial_terms(collection: Collection, entry_id: str | None) -> dict[str, Any]:
    """The entry's terms as the panel's controls hold them: ids for hierarchical taxonomies, labels for flat ones."""
    if entry_id is None:
        return {}
    state: dict[str, Any] = {}
    hierarchical = {
        item.name: item.hierarchical for item in taxonomy_selectors.taxonomies_for_collection(collection)
    }
    for name, refs in taxonomy_selectors.entry_term_refs(entry_id=entry_id, collection=collection).items():
        if hierarchical.get(name):
            state[tax_control(name)] = [ref["id"] for ref in refs]
        else:
            state[tax_control(name)] = ", ".join(ref["label"] for ref in refs)
    return state


def posted_terms(taxonomies: list, post) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for taxonomy in taxonomies:
        name = tax_control(taxonomy.name)
        state[name] = post.getlist(name) if taxonomy.hierarchical else post.get(name, "")
    return state


def _tree(terms: list) -> list[tuple[Any, int]]:
    children: dict[str | None, list] = {}
    known = {term.pk for term in terms}
    for term in terms:
        parent = term.parent_id if term.parent_id in known else None
        children.setdefault(parent, []).append(term)
    ordered: list[tuple[Any, int]] = []

    def walk(parent: str | None, depth: int) -> None:
        for term in children.get(parent, []):
            ordered.append((term, depth))
            walk(term.pk, depth + 1)

    walk(None, 0)
    return ordered


def taxonomy_controls(
    actor: Actor, taxonomies: list, state: dict[str, Any], errors: dict[str, str]
) -> list[TaxonomyControl]:
    controls = []
    for taxonomy in taxonomies:
        chosen = state.get(tax_control(taxonomy.name)) or ([] if taxonomy.hierarchical else "")
        item = TaxonomyControl(
            name=taxonomy.name,
            label=taxonomy.label or taxonomy.name,
            hierarchical=taxonomy.hierarchical,
            may_create=can(actor, "terms.create"),
            error=errors.get(f"taxonomies.{taxonomy.name}", ""),
        )
        if taxonomy.hierarchical:
            terms = taxonomy_selectors.taxonomy_terms(actor=actor, taxonomy=taxonomy.name)
            item.terms = [
                {"id": term.pk, "label": term.label, "depth": min(depth, 5), "checked": term.pk in chosen}
                for term, depth in _tree(terms)
            ]
        else:
            item.text = chosen if isinstance(chosen, str) else ""
        controls.append(item)
    return controls


def save_terms(
    actor: Actor, entry: Entry, collection: Collection, taxonomies: list, state: dict[str, Any]
) -> None:
    """Give the entry the terms the panel holds, creating the tags typed that do not exist yet when the person may
    create terms. Call inside the transaction that saves the entry."""
    current = initial_terms(collection, entry.pk)
    for taxonomy in taxonomies:
        key = f"taxonomies.{taxonomy.name}"
        wanted = state.get(tax_control(taxonomy.name))
        if taxonomy.hierarchical:
            ids = list(dict.fromkeys(item for item in (wanted or []) if item))
            if ids == current.get(tax_control(taxonomy.name), []):
                continue
        else:
            names = list(dict.fromkeys(part.strip() for part in (wanted or "").split(",") if part.strip()))
            if ", ".join(names) == current.get(tax_control(taxonomy.name), ""):
                continue
            ids = _tag_ids(actor, taxonomy, names, key)
        try:
            taxonomy_services.entry_terms_set(actor=actor, entry=entry, taxonomy=taxonomy, term_ids=ids)
        except ValidationError as exc:
            raise ValidationError(exc.message, details={key: exc.message}) from exc


def _tag_ids(actor: Actor, taxonomy, names: list[str], key: str) -> list[str]:
    found = taxonomy_selectors.terms_named(actor=actor, taxonomy=taxonomy.name, names=names)
    missing = [name for name in names if name not in found]
    if missing and not can(actor, "terms.create"):
        listed = ", ".join(f"'{name}'" for name in missing)
        raise ValidationError(
            details={
                key: f"No {taxonomy.label_singular or taxonomy.name} {listed} yet, and you may not add new ones."
            }
        )
    for name in missing:
        try:
            found[name] = taxonomy_services.term_create(actor=actor, taxonomy=taxonomy, label=name)
        except CmsError as exc:
            raise ValidationError(exc.message, details={key: f"'{name}': {exc.message}"}) from exc
    return list(dict.fromkeys(found[name].pk for name in names))


# --- bylines ---------------------------------------------------------------------------------------------------------


def byline_choices(actor: Actor) -> list:
    """Every byline by name (up to ``BYLINES_SHOWN``), for the select that adds one."""
    bylines, cursor = [], None
    while len(bylines) < BYLINES_SHOWN:
        page = content_selectors.byline_list(actor=actor, cursor=cursor, limit=100)
        bylines.extend(page.items)
        cursor = page.next_cursor
        if not cursor:
            break
    return bylines


def initial_bylines(entry: Entry | None) -> dict[str, Any]:
    credits = list(getattr(entry, "credit_list", []) or [])
    return {
        "byline": [credit.byline_id for credit in credits],
        "byline_role": [credit.role_label for credit in credits],
    }


def posted_bylines(post) -> dict[str, Any]:
    return {"byline": post.getlist("byline"), "byline_role": post.getlist("byline_role")}


def apply_byline_step(state: dict[str, Any], step: str, added: str) -> None:
    """Move, remove or add a credit in the form's state without saving (the panel's buttons without JavaScript)."""
    ids, roles = list(state.get("byline", [])), list(state.get("byline_role", []))
    roles += [""] * (len(ids) - len(roles))
    verb, _, position = step.partition(":")
    index = int(position) if position.isdigit() else -1
    if verb == "add" and added and added not in ids:
        ids.append(added)
        roles.append("")
    elif 0 <= index < len(ids):
        if verb == "remove":
            del ids[index], roles[index]
        elif verb in ("up", "down"):
            other = index - 1 if verb == "up" else index + 1
            if 0 <= other < len(ids):
                ids[index], ids[other] = ids[other], ids[index]
                roles[index], roles[other] = roles[other], roles[index]
    state["byline"], state["byline_role"] = ids, roles


def credits(state: dict[str, Any]) -> list[dict]:
    roles = list(state.get("byline_role", []))
    return [
        {"bylineId": byline_id, "roleLabel": roles[index] if index < len(roles) else ""}
        for index, byline_id in enumerate(state.get("byline", []))
        if byline_id
    ]


def byline_rows(state: dict[str, Any], choices: list, errors: dict[str, str]) -> list[dict]:
    names = {byline.pk: byline for byline in choices}
    rows = []
    for index, item in enumerate(credits(state)):
        byline = names.get(item["bylineId"])
        rows.append(
            {
                "index": index,
                "id": item["bylineId"],
                "role": item["roleLabel"],
                "name": byline.display_name if byline else item["bylineId"],
                "guest": bool(byline and byline.is_guest),
                "error": errors.get(f"bylines.{index}.bylineId", ""),
            }
        )
    return rows


# --- translations and lifecycle --------------------------------------------------------------------------------------


def translations(actor: Actor, collection: Collection, entry: Entry) -> dict[str, Any] | None:
    if not i18n_on():
        return None
    _, seen = content_selectors.translations_read(actor=actor, collection=collection, ref=entry.pk)
    key = title_field(collection)
    items = []
    for sibling in seen.items:
        data = orjson.loads(sibling.data_raw) if getattr(sibling, "data_raw", None) else {}
        title = data.get(key) if key else None
        items.append(
            {
                "id": sibling.pk,
                "locale": sibling.locale,
                "title": title if isinstance(title, str) and title.strip() else sibling.slug,
                "status": sibling.status,
                "current": sibling.pk == entry.pk,
            }
        )
    present = {item["locale"] for item in items}
    missing = [locale for locale in settings.CMS_LOCALES if locale not in present]
    return {"items": items, "missing": missing}


def lifecycle(actor: Actor, entry: Entry, has_changes: bool) -> dict[str, Any]:
    """Which buttons the entry's state and the actor's role allow (``states.allowed_actions``), and how its status
    reads."""
    allowed = states.allowed_actions(entry, actor)
    published = entry.status == Status.PUBLISHED
    if entry.is_trashed:
        badge, label = "trashed", "In the trash"
    elif published and has_changes:
        badge, label = "changed", "Published, with unpublished changes"
    else:
        badge, label = entry.status, entry.status.capitalize()
    return {
        "allowed": allowed,
        "can_save": "update" in allowed,
        "publish_label": "Publish changes" if published else "Publish",
        # Discarding is a no-op without changes: offer it only when there is something to discard.
        "can_discard": "discard_draft" in allowed and has_changes,
        "badge": badge,
        "label": label,
    }
