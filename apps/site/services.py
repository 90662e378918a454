"""Writes to widget areas, widgets, sections and the site settings.

Portable Text content (widgets, sections) goes through ``apps.core.portabletext.normalize``: structure is checked with
paths (``content[2].children[0].text``) and what may be omitted (keys, marks) is filled in; block types of disabled
plugins are refused like unknown ones. Settings are updated key by key; the logo and favicon are image media items.
"""

from __future__ import annotations

import re
import zoneinfo
from typing import Any
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.db.models import Max

from apps.accounts.permissions import Actor, authorize
from apps.core import events, portabletext
from apps.core.errors import DuplicateSlug, ValidationError
from apps.core.slugs import free_slug, slugify
from apps.core.timefmt import now
from apps.media.models import MediaItem
from apps.site.models import Section, SectionSource, SiteSettings, Widget, WidgetArea

NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
NAME_HINT = "Use lowercase letters, digits, '-' and '_', starting with a letter (e.g. sidebar, footer-1)."
TYPE_RE = re.compile(r"^[a-z][a-zA-Z0-9_-]*$")
MAX_KEYWORDS = 50


def _portable_text(value: Any, field: str = "content") -> list[dict]:
    blocks, problems = portabletext.normalize(value, path=field)
    if problems:
        raise ValidationError(details=problems)
    return blocks


# --- widget areas and widgets ---------------------------------------------------------------------------------------


def _area_changed(area: WidgetArea, action: str, actor: Actor) -> None:
    events.widget_area_changed.send(sender=WidgetArea, area=area, action=action, actor=actor)


def _widget_changed(widget: Widget, action: str, actor: Actor) -> None:
    events.widget_changed.send(sender=Widget, widget=widget, action=action, actor=actor)


@transaction.atomic
def widget_area_create(*, actor: Actor, name: str, label: str, description: str = "") -> WidgetArea:
    authorize(actor, "widgets.write")
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > 63:
        raise ValidationError(details={"name": NAME_HINT})
    if not label or not label.strip():
        raise ValidationError(details={"label": "Required."})
    if WidgetArea.objects.filter(name=name).exists():
        raise DuplicateSlug(f"A widget area named '{name}' exists already.", details={"name": "Taken."})
    area = WidgetArea.objects.create(name=name, label=label.strip(), description=description or "")
    _area_changed(area, "create", actor)
    return area


@transaction.atomic
def widget_area_update(*, actor: Actor, area: WidgetArea, changes: dict[str, Any]) -> WidgetArea:
    """Change label and description; the name is the area's identity (themes ask for it)."""
    authorize(actor, "widgets.write")
    if "label" in changes:
        if not changes["label"] or not changes["label"].strip():
            raise ValidationError(details={"label": "Must not be empty."})
        area.label = changes["label"].strip()
    if "description" in changes:
        area.description = changes["description"] or ""
    area.save()
    _area_changed(area, "update", actor)
    return area


@transaction.atomic
def widget_area_delete(*, actor: Actor, area: WidgetArea) -> None:
    """Delete the area with its widgets."""
    authorize(actor, "widgets.write")
    _area_changed(area, "delete", actor)
    area.delete()


TYPE_HINT = "A widget type name: letters, digits, '-' and '_' (e.g. content)."


def _widget_type(value: Any) -> str:
    if not isinstance(value, str) or not TYPE_RE.match(value) or len(value) > 64:
        raise ValidationError(details={"type": TYPE_HINT})
    return value


@transaction.atomic
def widget_create(
    *, actor: Actor, area: WidgetArea, type: str, title: str = "", content: Any = None
) -> Widget:
    """Add a widget at the end of the area."""
    authorize(actor, "widgets.write")
    area = WidgetArea.objects.select_for_update().get(pk=area.pk)
    kind = _widget_type(type)
    blocks = _portable_text([] if content is None else content)
    last = area.widgets.aggregate(last=Max("sort_order"))["last"]
    widget = Widget.objects.create(
        area=area,
        type=kind,
        title=(title or "").strip(),
        content=blocks,
        sort_order=0 if last is None else last + 1,
    )
    _widget_changed(widget, "create", actor)
    return widget


@transaction.atomic
def widget_update(*, actor: Actor, widget: Widget, changes: dict[str, Any]) -> Widget:
    authorize(actor, "widgets.write")
    widget = Widget.objects.select_for_update().get(pk=widget.pk)
    if "type" in changes:
        widget.type = _widget_type(changes["type"])
    if "title" in changes:
        widget.title = (changes["title"] or "").strip()
    if "content" in changes:
        widget.content = _portable_text([] if changes["content"] is None else changes["content"])
    widget.save()
    _widget_changed(widget, "update", actor)
    return widget


@transaction.atomic
def widget_delete(*, actor: Actor, widget: Widget) -> None:
    authorize(actor, "widgets.write")
    _widget_changed(widget, "delete", actor)
    widget.delete()


@transaction.atomic
def widgets_reorder(*, actor: Actor, area: WidgetArea, widget_ids: list[str]) -> WidgetArea:
    """Put the named widgets first, in that order; widgets not named keep their order after them."""
    authorize(actor, "widgets.write")
    area = WidgetArea.objects.select_for_update().get(pk=area.pk)
    widgets = list(area.widgets.order_by("sort_order", "created_at", "id"))
    by_id = {widget.pk: widget for widget in widgets}
    problems: dict[str, str] = {}
    seen: set[str] = set()
    for index, widget_id in enumerate(widget_ids):
        if widget_id not in by_id:
            problems[f"widgetIds.{index}"] = f"No widget {widget_id} in the area '{area.name}'."
        elif widget_id in seen:
            problems[f"widgetIds.{index}"] = "Listed twice."
        seen.add(widget_id)
    if problems:
        raise ValidationError(details=problems)
    ordered = [by_id[widget_id] for widget_id in widget_ids] + [w for w in widgets if w.pk not in seen]
    for position, widget in enumerate(ordered):
        widget.sort_order = position
    Widget.objects.bulk_update(ordered, ["sort_order"])
    area.save(update_fields=["updated_at"])
    _area_changed(area, "update", actor)
    return area


@transaction.atomic
def widgets_replace(*, actor: Actor, area: WidgetArea, widgets: list[dict[str, Any]]) -> WidgetArea:
    """Make the area hold exactly ``widgets`` (``{id?, type, title, content}``), in that order. An item with the id of
    one of the area's widgets replaces that widget in place (it keeps its id); one without adds a widget; widgets not
    listed are deleted. Problems are named by path (``widgets.1.content[0]._type``) and nothing changes unless every
    item is valid."""
    authorize(actor, "widgets.write")
    area = WidgetArea.objects.select_for_update().get(pk=area.pk)
    current = {widget.pk: widget for widget in area.widgets.all()}
    problems: dict[str, str] = {}
    planned: list[tuple[Widget | None, str, str, list[dict]]] = []
    kept: set[str] = set()
    for index, item in enumerate(widgets):
        where = f"widgets.{index}"
        widget_id = item.get("id")
        if widget_id is not None:
            if widget_id not in current:
                problems[f"{where}.id"] = (
                    f"No widget {widget_id} in the area '{area.name}'; leave id out to add one."
                )
            elif widget_id in kept:
                problems[f"{where}.id"] = "Listed twice."
            kept.add(widget_id)
        kind = item.get("type")
        if not isinstance(kind, str) or not TYPE_RE.match(kind) or len(kind) > 64:
            problems[f"{where}.type"] = TYPE_HINT
        content = item.get("content")
        blocks, content_problems = portabletext.normalize(
            [] if content is None else content, path=f"{where}.content"
        )
        problems.update(content_problems)
        planned.append(
            (current.get(widget_id) if widget_id else None, kind, (item.get("title") or "").strip(), blocks)
        )
    if problems:
        raise ValidationError(details=problems)
    for widget in current.values():
        if widget.pk not in kept:
            _widget_changed(widget, "delete", actor)
            widget.delete()
    for position, (widget, kind, title, blocks) in enumerate(planned):
        if widget is None:
            widget = Widget.objects.create(
                area=area, type=kind, title=title, content=blocks, sort_order=position
            )
            _widget_changed(widget, "create", actor)
            continue
        widget.type, widget.title, widget.content, widget.sort_order = kind, title, blocks, position
        widget.save()
        _widget_changed(widget, "update", actor)
    area.save(update_fields=["updated_at"])
    _area_changed(area, "update", actor)
    return area


# --- sections -------------------------------------------------------------------------------------------------------


def _keywords(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValidationError(details={"keywords": "Expected a list of strings."})
    clean, seen = [], set()
    for keyword in (item.strip() for item in value):
        if keyword and keyword.lower() not in seen:
            if len(keyword) > 100:
                raise ValidationError(details={"keywords": "Each keyword has at most 100 characters."})
            seen.add(keyword.lower())
            clean.append(keyword)
    if len(clean) > MAX_KEYWORDS:
        raise ValidationError(details={"keywords": f"At most {MAX_KEYWORDS} keywords."})
    return clean


def _section_slug(explicit: str | None, title: str, exclude: str | None = None) -> str:
    others = Section.objects.exclude(pk=exclude)
    if explicit is not None:
        slug = slugify(explicit) if isinstance(explicit, str) else ""
        if not slug:
            raise ValidationError(details={"slug": "Needs at least one letter or digit."})
        if others.filter(slug=slug).exists():
            raise DuplicateSlug(
                f"A section with the slug '{slug}' exists already.", details={"slug": "Taken."}
            )
        return slug
    base = slugify(title)
    if not base:
        raise ValidationError(
            details={"slug": "Give a slug: the title has no letters or digits to make one."}
        )
    return free_slug(others, base)


def _save_section(section: Section) -> Section:
    section.keywords_text = " ".join(keyword.lower() for keyword in section.keywords)
    try:
        with transaction.atomic():
            section.save()
    except IntegrityError:
        raise DuplicateSlug(f"The slug '{section.slug}' was just taken; choose another.") from None
    return section


@transaction.atomic
def section_create(
    *,
    actor: Actor,
    title: str,
    slug: str | None = None,
    keywords: list[str] | None = None,
    content: Any = None,
    source: str = SectionSource.USER,
) -> Section:
    """Create a section; without a slug one is made from the title (``-2`` … when taken)."""
    authorize(actor, "sections.write")
    if not title or not title.strip():
        raise ValidationError(details={"title": "Required."})
    if source not in SectionSource.values:
        raise ValidationError(details={"source": f"One of {', '.join(SectionSource.values)}."})
    section = Section(
        slug=_section_slug(slug, title),
        title=title.strip(),
        keywords=_keywords(keywords or []),
        content=_portable_text([] if content is None else content),
        source=source,
    )
    section = _save_section(section)
    events.section_changed.send(sender=Section, section=section, action="create", actor=actor)
    return section


@transaction.atomic
def section_update(*, actor: Actor, section: Section, changes: dict[str, Any]) -> Section:
    """Change slug, title, keywords, content or source; only the keys given."""
    authorize(actor, "sections.write")
    section = Section.objects.select_for_update().get(pk=section.pk)
    if "title" in changes:
        if not changes["title"] or not changes["title"].strip():
            raise ValidationError(details={"title": "Must not be empty."})
        section.title = changes["title"].strip()
    if "slug" in changes and changes["slug"] != section.slug:
        section.slug = _section_slug(changes["slug"], section.title, exclude=section.pk)
    if "keywords" in changes:
        section.keywords = _keywords(changes["keywords"] or [])
    if "content" in changes:
        section.content = _portable_text([] if changes["content"] is None else changes["content"])
    if "source" in changes:
        if changes["source"] not in SectionSource.values:
            raise ValidationError(details={"source": f"One of {', '.join(SectionSource.values)}."})
        section.source = changes["source"]
    section = _save_section(section)
    events.section_changed.send(sender=Section, section=section, action="update", actor=actor)
    return section


@transaction.atomic
def section_delete(*, actor: Actor, section: Section) -> None:
    authorize(actor, "sections.write")
    events.section_changed.send(sender=Section, section=section, action="delete", actor=actor)
    section.delete()


# --- settings -------------------------------------------------------------------------------------------------------

SETTING_KEYS = (
    "site_title",
    "tagline",
    "posts_per_page",
    "url",
    "timezone",
    "date_format",
    "logo",
    "favicon",
)


def _image(value: Any, key: str) -> MediaItem | None:
    if value is None:
        return None
    item = MediaItem.objects.filter(pk=value).first()
    if item is None:
        raise ValidationError(details={key: f"No media item {value}."})
    if not item.is_image:
        raise ValidationError(details={key: f"Media item {value} is {item.mime_type}, not an image."})
    return item


@transaction.atomic
def settings_update(*, actor: Actor, changes: dict[str, Any]) -> SiteSettings:
    """Change the settings named in ``changes`` (model names: site_title, posts_per_page, logo, …); the others keep
    their values. ``logo`` and ``favicon`` take a media id or None."""
    authorize(actor, "settings.write")
    unknown = sorted(set(changes) - set(SETTING_KEYS))
    if unknown:
        raise ValidationError(details={key: "Not a setting." for key in unknown})
    current, _ = SiteSettings.objects.select_for_update().get_or_create(pk=1)
    problems: dict[str, str] = {}
    if "site_title" in changes:
        title = (changes["site_title"] or "").strip()
        if not title:
            problems["siteTitle"] = "Must not be empty."
        current.site_title = title
    if "tagline" in changes:
        current.tagline = (changes["tagline"] or "").strip()
    if "posts_per_page" in changes:
        value = changes["posts_per_page"]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 100:
            problems["postsPerPage"] = "A whole number from 1 to 100."
        else:
            current.posts_per_page = value
    if "url" in changes:
        url = (changes["url"] or "").strip()
        parts = urlsplit(url)
        if url and (parts.scheme not in ("http", "https") or not parts.netloc):
            problems["url"] = "The site's public address, e.g. https://example.com (or empty)."
        current.url = url.rstrip("/")
    if "timezone" in changes:
        name = changes["timezone"]
        try:
            zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
            problems["timezone"] = (
                f"Unknown time zone {name!r}; use an IANA name such as Europe/Paris or UTC."
            )
        else:
            current.timezone = name
    if "date_format" in changes:
        fmt = (changes["date_format"] or "").strip()
        if not fmt:
            problems["dateFormat"] = "Must not be empty."
        current.date_format = fmt
    for key, wire in (("logo", "logo"), ("favicon", "favicon")):
        if key in changes:
            try:
                setattr(current, key, _image(changes[key], wire))
            except ValidationError as exc:
                problems.update(exc.details)
    if problems:
        raise ValidationError(details=problems)
    current.updated_at = now()
    current.save()
    events.settings_changed.send(sender=SiteSettings, settings=current, actor=actor)
    return current
