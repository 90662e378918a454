"""MCP tools for reusable sections and the site settings: the site selectors and services, the site shapes. Section
content takes Markdown like entries' portableText fields do (converted by the tool's input model)."""

from __future__ import annotations

from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.site import selectors, services
from apps.site.inputs import (
    SETTING_NAMES,
    NoArguments,
    SectionListIn,
    SectionSlugIn,
    SectionToolIn,
    SettingsIn,
)
from apps.site.presenters import SectionOut, SettingsOut, present_section, present_settings


@tool(
    "section_list",
    title="List sections",
    operation="sections.read",
    input=SectionListIn,
    read_only=True,
    output=paged(SectionOut),
)
def section_list(actor, args: SectionListIn) -> dict:
    """List reusable sections (blocks of content shared between pages) by slug: title, keywords, content.

    Returns {items, nextCursor}.
    """
    page = selectors.section_list(
        actor=actor, source=args.source, search=args.search, cursor=args.cursor, limit=args.limit
    )
    return page.to_data(present_section)


@tool(
    "section_get",
    title="Get a section",
    operation="sections.read",
    input=SectionSlugIn,
    read_only=True,
    output=SectionOut,
)
def section_get(actor, args: SectionSlugIn) -> SectionOut:
    """Get one reusable section by slug: title, keywords, source and its content (Portable Text blocks)."""
    return present_section(selectors.section_read(actor=actor, slug=args.slug))


@tool(
    "section_create",
    title="Create a section",
    operation="sections.write",
    input=SectionToolIn,
    output=SectionOut,
)
def section_create(actor, args: SectionToolIn) -> SectionOut:
    """Create a reusable section (a block of content pages can include, found again with section_list).

    content takes Markdown or Portable Text. A taken slug is [DUPLICATE_SLUG]. Returns the section.
    """
    return present_section(services.section_create(actor=actor, **args.values()))


@tool(
    "settings_get",
    title="Get the site settings",
    operation="settings.read",
    input=NoArguments,
    read_only=True,
    output=SettingsOut,
)
def settings_get(actor, args: NoArguments) -> SettingsOut:
    """Get the site settings: siteTitle, tagline, postsPerPage, url, timezone, dateFormat, logo, favicon."""
    return present_settings(selectors.settings_read(actor=actor))


@tool(
    "settings_update",
    title="Change site settings",
    operation="settings.write",
    input=SettingsIn,
    idempotent=True,
    output=SettingsOut,
)
def settings_update(actor, args: SettingsIn) -> SettingsOut:
    """Change site settings (title, tagline, posts per page, public URL, timezone, date format, logo, favicon);
    the ones not sent keep their values. Needs the admin scope. Returns all settings as settings_get does.
    """
    changes = {SETTING_NAMES[key]: value for key, value in args.sent().items()}
    services.settings_update(actor=actor, changes=changes)
    return present_settings(selectors.site_settings())
