"""Reads of widget areas, sections and the site settings.

The reads a face answers (``widget_area_list``, ``widget_area_read``, ``section_list``, ``section_read``,
``settings_read``) check their operation themselves, so REST and MCP cannot disagree about who may read. The others
find what a write acts on, or show its result: the write's service authorizes."""

from __future__ import annotations

from django.db.models import Prefetch, Q

from apps.accounts.permissions import Actor, authorize
from apps.core.errors import NotFound
from apps.core.pagination import Page, SortKey, keyset_page
from apps.schema.selectors import site_is_public
from apps.site.models import Section, SiteSettings, Widget, WidgetArea

SECTION_ORDER = (SortKey("slug"), SortKey("id"))


def _with_widgets(queryset):
    return queryset.prefetch_related(
        Prefetch("widgets", queryset=Widget.objects.order_by("sort_order", "created_at", "id"))
    )


def widget_area_list(*, actor: Actor | None) -> list[WidgetArea]:
    authorize(actor, "widgets.read", public=site_is_public)
    return list(_with_widgets(WidgetArea.objects.order_by("name")))


def widget_area_read(*, actor: Actor | None, name: str) -> WidgetArea:
    authorize(actor, "widgets.read", public=site_is_public)
    return widget_area_get(name=name)


def widget_area_get(*, name: str) -> WidgetArea:
    area = _with_widgets(WidgetArea.objects.filter(name=name)).first()
    if area is None:
        known = (
            ", ".join(WidgetArea.objects.order_by("name").values_list("name", flat=True)[:50]) or "none yet"
        )
        raise NotFound(f"No widget area '{name}'; areas: {known}.")
    return area


def widget_get(*, area: WidgetArea, widget_id: str) -> Widget:
    widget = Widget.objects.filter(area=area, pk=widget_id).first()
    if widget is None:
        raise NotFound(f"No widget {widget_id} in the area '{area.name}'.")
    return widget


def section_list(
    *,
    actor: Actor | None,
    source: str | None = None,
    search: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[Section]:
    """Sections by slug. ``search`` matches words of the title or of a keyword, case-insensitively."""
    authorize(actor, "sections.read", public=site_is_public)
    sections = Section.objects.all()
    if source:
        sections = sections.filter(source=source)
    if search:
        for word in search.split():
            sections = sections.filter(Q(title__icontains=word) | Q(keywords_text__icontains=word.lower()))
    scope = f"sections:{source or ''}:{search or ''}"
    return keyset_page(sections, keys=SECTION_ORDER, cursor=cursor, limit=limit, scope=scope)


def section_read(*, actor: Actor | None, slug: str) -> Section:
    authorize(actor, "sections.read", public=site_is_public)
    return section_get(slug=slug)


def section_get(*, slug: str) -> Section:
    section = Section.objects.filter(slug=slug).first()
    if section is None:
        raise NotFound(f"No section '{slug}'.")
    return section


def settings_read(*, actor: Actor | None) -> SiteSettings:
    authorize(actor, "settings.read", public=site_is_public)
    return site_settings()


def site_settings() -> SiteSettings:
    """The settings with their logo and favicon; the defaults (unsaved) before the first change."""
    current = SiteSettings.objects.select_related("logo", "favicon").filter(pk=1).first()
    return current if current is not None else SiteSettings(pk=1)
