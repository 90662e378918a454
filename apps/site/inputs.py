"""What each widget, section and settings operation takes (SPEC §2.7, §4.8, §4.11): one model per operation, read by
REST and MCP alike.

Section tools also take Markdown for ``content`` (as entries' portableText fields do over MCP): the tool's model widens
that one field and converts it while parsing, so the tool and the service only ever see Portable Text.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator

from apps.core.portabletext_markdown import markdown_to_portable_text
from apps.core.shapes import Field, Input, Str, Text, choice, cursor_param, limit_param
from apps.site.models import SectionSource

PORTABLE_TEXT_HELP = "Portable Text: a list of blocks, each with _type (and _key, filled in when missing)."

PortableText = Annotated[list[dict[str, Any]], Field(description=PORTABLE_TEXT_HELP)]
MarkdownOrPortableText = Annotated[
    PortableText,
    BeforeValidator(
        lambda value: markdown_to_portable_text(value) if isinstance(value, str) else value,
        json_schema_input_type=str | list[dict[str, Any]],
    ),
]
SourceName = choice(*SectionSource.values)
SOURCE_HELP = "user: made in the CMS; import: brought in by an import (reusable blocks)."


class NoArguments(Input):
    pass


# --- widget areas and widgets ----------------------------------------------------------------------------------------


class WidgetAreaIn(Input):
    name: Str = Field(max_length=63, description="Identity, e.g. sidebar or footer-1.")
    label: Str = Field(max_length=200)
    description: Text = Field(None, max_length=2000)


class WidgetAreaUpdateIn(Input):
    label: Str = Field(None, max_length=200)
    description: Text = Field(None, max_length=2000)


class WidgetIn(Input):
    type: Str = Field(max_length=64, description="What the widget is, e.g. content, menu, recent-posts.")
    title: Text = Field(None, max_length=200)
    content: PortableText = None


class WidgetUpdateIn(WidgetIn):
    """Only the keys sent change."""

    type: Str = Field(
        None, max_length=64, description="What the widget is, e.g. content, menu, recent-posts."
    )


WIDGETS_HELP = "Every widget of the area, in order; the area's widgets not listed are deleted, [] empties it."


class WidgetSetItemIn(WidgetIn):
    id: Str = Field(
        None,
        max_length=26,
        description="An existing widget of this area, replaced in place (it keeps its id); leave out to add one.",
    )


class WidgetsSetIn(Input):
    widgets: list[WidgetSetItemIn] = Field(description=WIDGETS_HELP)


class WidgetToolItemIn(WidgetSetItemIn):
    content: MarkdownOrPortableText = Field(None, description="Markdown, or Portable Text blocks.")


class WidgetAreaSetWidgetsIn(Input):
    """The tool's set: the area's name, and the REST PUT body with Markdown accepted for content."""

    name: Str = Field(max_length=63, description="The widget area's name, e.g. sidebar.")
    widgets: list[WidgetToolItemIn] = Field(description=WIDGETS_HELP)


class WidgetReorderIn(Input):
    widgetIds: list[Annotated[Str, Field(max_length=26)]] = Field(
        description="These widgets first, in this order; the others keep their order after them."
    )


# --- sections --------------------------------------------------------------------------------------------------------


class SectionListIn(Input):
    search: Str = Field(
        None, max_length=200, description="Words to find in the title or the keywords (all must match)."
    )
    source: SourceName = Field(None, description=SOURCE_HELP)
    limit: int = limit_param(50)
    cursor: Str = cursor_param()


class SectionSlugIn(Input):
    slug: Str = Field(max_length=200)


class SectionIn(Input):
    title: Str = Field(max_length=200)
    slug: Str = Field(None, max_length=200, description="Made from the title when omitted.")
    keywords: list[Annotated[Str, Field(max_length=100)]] = Field(
        None, description="Words to find the section by."
    )
    content: PortableText = None
    source: SourceName = Field(SectionSource.USER.value, description=SOURCE_HELP)


class SectionToolIn(SectionIn):
    content: MarkdownOrPortableText = Field(None, description="Markdown, or Portable Text blocks.")


class SectionUpdateIn(SectionIn):
    """Only the keys sent change."""

    title: Str = Field(None, max_length=200)
    source: SourceName = Field(None, description=SOURCE_HELP)


class SectionRefIn(Input):
    sectionSlug: Str = Field(max_length=200, description="The section's current slug.")


# pydantic orders inherited fields from the last base to the first: the identity comes first.
class SectionChangeIn(SectionUpdateIn, SectionRefIn):
    """The tool's update: sectionSlug names the section; the other keys are the REST PATCH body (slug renames it),
    with Markdown accepted for content."""

    content: MarkdownOrPortableText = Field(None, description="Markdown, or Portable Text blocks.")


# --- settings --------------------------------------------------------------------------------------------------------


class SettingsIn(Input):
    """Only the keys sent change; unknown keys are refused."""

    siteTitle: Str = Field(None, max_length=200)
    tagline: Text = Field(None, max_length=500)
    postsPerPage: int = Field(None, ge=1, le=100)
    url: Text = Field(None, max_length=500, description="The public site, e.g. https://example.com.")
    timezone: Str = Field(None, max_length=64, description="An IANA name, e.g. Europe/Paris.")
    dateFormat: Str = Field(
        None, max_length=64, description="A Unicode (CLDR) date pattern for front ends, e.g. d MMMM y."
    )
    logo: Str | None = Field(None, max_length=26, description="An image media id; null removes it.")
    favicon: Str | None = Field(None, max_length=26, description="An image media id; null removes it.")


# The services name settings as the model does.
SETTING_NAMES = {
    "siteTitle": "site_title",
    "tagline": "tagline",
    "postsPerPage": "posts_per_page",
    "url": "url",
    "timezone": "timezone",
    "dateFormat": "date_format",
    "logo": "logo",
    "favicon": "favicon",
}
