"""Widget areas, sections and the site settings as every face shows them (SPEC §2.7, §4.8): each shape once, with the
function that builds it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.media.presenters import ImageRefOut, present_image_ref
from apps.site.inputs import PORTABLE_TEXT_HELP
from apps.site.models import Section, SectionSource, SiteSettings, Widget, WidgetArea

SourceName = Literal[tuple(SectionSource.values)]  # type: ignore[valid-type]
PortableTextOut = Annotated[list[dict[str, Any]], Field(description=PORTABLE_TEXT_HELP)]


class WidgetOut(TypedDict):
    id: str
    type: str
    title: str
    content: PortableTextOut
    sortOrder: int
    createdAt: Timestamp
    updatedAt: Timestamp


class WidgetAreaOut(TypedDict):
    id: str
    name: str
    label: str
    description: str
    widgets: Annotated[list[WidgetOut], Field(description="In order.")]
    createdAt: Timestamp
    updatedAt: Timestamp


class WidgetAreaListOut(TypedDict):
    items: list[WidgetAreaOut]


class SectionOut(TypedDict):
    id: str
    slug: str
    title: str
    keywords: list[str]
    content: PortableTextOut
    source: SourceName
    createdAt: Timestamp
    updatedAt: Timestamp


class SettingsOut(TypedDict):
    siteTitle: str
    tagline: str
    postsPerPage: int
    url: str
    timezone: str
    dateFormat: str
    logo: ImageRefOut | None
    favicon: ImageRefOut | None
    updatedAt: Annotated[Timestamp | None, Field(description="null until the settings are first changed.")]


def present_widget(widget: Widget) -> WidgetOut:
    return {
        "id": widget.pk,
        "type": widget.type,
        "title": widget.title,
        "content": widget.content,
        "sortOrder": widget.sort_order,
        "createdAt": iso(widget.created_at),
        "updatedAt": iso(widget.updated_at),
    }


def present_widget_area(area: WidgetArea) -> WidgetAreaOut:
    return {
        "id": area.pk,
        "name": area.name,
        "label": area.label,
        "description": area.description,
        "widgets": [present_widget(widget) for widget in area.widgets.all()],
        "createdAt": iso(area.created_at),
        "updatedAt": iso(area.updated_at),
    }


def present_widget_areas(areas: list[WidgetArea]) -> WidgetAreaListOut:
    return {"items": [present_widget_area(area) for area in areas]}


def present_section(section: Section) -> SectionOut:
    return {
        "id": section.pk,
        "slug": section.slug,
        "title": section.title,
        "keywords": list(section.keywords),
        "content": section.content,
        "source": section.source,
        "createdAt": iso(section.created_at),
        "updatedAt": iso(section.updated_at),
    }


def present_settings(current: SiteSettings) -> SettingsOut:
    return {
        "siteTitle": current.site_title,
        "tagline": current.tagline,
        "postsPerPage": current.posts_per_page,
        "url": current.url,
        "timezone": current.timezone,
        "dateFormat": current.date_format,
        "logo": present_image_ref(current.logo) if current.logo else None,
        "favicon": present_image_ref(current.favicon) if current.favicon else None,
        "updatedAt": iso(current.updated_at),
    }
