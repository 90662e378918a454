"""MCP tools for reusable sections and the site settings: the site selectors and services, the site shapes. Section
content takes Markdown like entries' portableText fields do (converted by the tool's input model)."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.site import selectors, services
from apps.site.inputs import (
    SETTING_NAMES,
    NoArguments,
    SectionChangeIn,
    SectionListIn,
    SectionSlugIn,
    SectionToolIn,
    SettingsIn,
    WidgetAreaSetWidgetsIn,
)
from apps.site.presenters import (
    SectionOut,
    SettingsOut,
    WidgetAreaListOut,
    WidgetAreaOut,
    present_section,
    present_settings,
    present_widget_area,
    present_widget_areas,
)


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
    "section_update",
    title="Update a section",
    operation="sections.write",
    input=SectionChangeIn,
    output=SectionOut,
)
def section_update(actor, args: SectionChangeIn) -> SectionOut:
    """Change a section's title, slug, keywords, content or source (only the keys sent); sectionSlug names it. content
    takes Markdown or Portable Text and replaces the whole content. A taken slug is [DUPLICATE_SLUG].

    Returns the section.
    """
    changes = args.values()
    section = selectors.section_get(slug=changes.pop("sectionSlug"))
    return present_section(services.section_update(actor=actor, section=section, changes=changes))


@tool(
    "section_delete",
    title="Delete a section",
    operation="sections.write",
    input=SectionSlugIn,
    destructive=True,
    output=SuccessFlagOut,
)
def section_delete(actor, args: SectionSlugIn) -> SuccessFlagOut:
    """Delete a reusable section by slug; pages that included it no longer find it. Irreversible. Returns
    {success: true}."""
    services.section_delete(actor=actor, section=selectors.section_get(slug=args.slug))
    return SUCCESS


@tool(
    "widget_area_list",
    title="List widget areas",
    operation="widgets.read",
    input=NoArguments,
    read_only=True,
    output=WidgetAreaListOut,
)
def widget_area_list(actor, args: NoArguments) -> WidgetAreaListOut:
    """List the widget areas (places a theme shows widgets, like sidebar or footer-1) by name, each with its widgets
    in order: id, type, title, content (Portable Text), sortOrder.

    Returns {items}. widget_area_set_widgets changes an area's widgets.
    """
    return present_widget_areas(selectors.widget_area_list(actor=actor))


@tool(
    "widget_area_set_widgets",
    title="Set a widget area's widgets",
    operation="widgets.write",
    input=WidgetAreaSetWidgetsIn,
    destructive=True,
    idempotent=True,
    output=WidgetAreaOut,
)
def widget_area_set_widgets(actor, args: WidgetAreaSetWidgetsIn) -> WidgetAreaOut:
    """Make a widget area hold exactly the given widgets, in order. Each has a type (e.g. content, recent-posts), a
    title and content (Markdown or Portable Text); give the id of one of the area's widgets to replace it in place,
    leave it out to add one. Widgets of the area not listed are deleted. If any item is invalid nothing changes and
    each problem is named by its path (widgets.1.type).

    Returns the area with its widgets as widget_area_list shows it.
    """
    values = args.values()
    services.widgets_replace(
        actor=actor, area=selectors.widget_area_get(name=values["name"]), widgets=values["widgets"]
    )
    return present_widget_area(selectors.widget_area_get(name=values["name"]))


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
