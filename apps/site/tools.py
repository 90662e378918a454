"""MCP tools for reusable sections and the site settings, over the site selectors and services and REST's
presenters. Section content takes Markdown like entries' portableText fields do."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from apps.accounts.models import Role
from apps.core.portabletext_markdown import markdown_to_portable_text
from apps.mcp.registry import ToolInput, tool
from apps.site import selectors, services
from apps.site.api.serializers import SETTING_NAMES, present_section, present_settings


class SectionListIn(ToolInput):
    search: str = Field(
        None, max_length=200, description="Words to find in the title or keywords (all must match)."
    )
    limit: int = Field(50, ge=1, le=100)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")


@tool("section_list", title="List sections", scope="content:read", input=SectionListIn, read_only=True)
def section_list(actor, args: SectionListIn) -> dict:
    """List reusable sections (blocks of content shared between pages) by slug: title, keywords, content.

    Returns {items, nextCursor}.
    """
    page = selectors.section_list(search=args.search, cursor=args.cursor, limit=args.limit)
    return page.to_data(present_section)


class SectionGetIn(ToolInput):
    slug: str = Field(min_length=1, max_length=200)


@tool("section_get", title="Get a section", scope="content:read", input=SectionGetIn, read_only=True)
def section_get(actor, args: SectionGetIn) -> dict:
    """Get one reusable section by slug: title, keywords, source and its content (Portable Text blocks)."""
    return present_section(selectors.section_get(slug=args.slug))


class SectionCreateIn(ToolInput):
    title: str = Field(min_length=1, max_length=200)
    slug: str = Field(None, max_length=200, description="Made from the title when omitted.")
    keywords: list[str] = Field([], description="Words to find the section by.")
    content: str | list[dict[str, Any]] = Field([], description="Markdown, or Portable Text blocks.")


@tool("section_create", title="Create a section", scope="content:write", input=SectionCreateIn)
def section_create(actor, args: SectionCreateIn) -> dict:
    """Create a reusable section. A taken slug is [DUPLICATE_SLUG]. Returns the section."""
    content = markdown_to_portable_text(args.content) if isinstance(args.content, str) else args.content
    section = services.section_create(
        actor=actor, title=args.title, slug=args.slug, keywords=args.keywords, content=content
    )
    return present_section(section)


class Empty(ToolInput):
    pass


@tool("settings_get", title="Get the site settings", scope="content:read", input=Empty, read_only=True)
def settings_get(actor, args: Empty) -> dict:
    """Get the site settings: siteTitle, tagline, postsPerPage, url, timezone, dateFormat, logo, favicon."""
    return present_settings(selectors.site_settings())


class SettingsUpdateIn(ToolInput):
    siteTitle: str = Field(None, min_length=1, max_length=200)
    tagline: str = Field(None, max_length=500)
    postsPerPage: int = Field(None, ge=1, le=100)
    url: str = Field(None, max_length=500, description="The public site, e.g. https://example.com.")
    timezone: str = Field(None, max_length=64, description="An IANA name, e.g. Europe/Paris.")
    dateFormat: str = Field(None, max_length=64, description="A CLDR date pattern, e.g. d MMMM y.")
    logo: str | None = Field(None, max_length=26, description="An image media id; null removes it.")
    favicon: str | None = Field(None, max_length=26, description="An image media id; null removes it.")


@tool(
    "settings_update",
    title="Change site settings",
    scope="admin",
    min_role=Role.ADMIN,
    input=SettingsUpdateIn,
    idempotent=True,
)
def settings_update(actor, args: SettingsUpdateIn) -> dict:
    """Change site settings; the ones not sent keep their values. Returns all settings."""
    changes = {SETTING_NAMES[key]: value for key, value in args.model_dump(exclude_unset=True).items()}
    services.settings_update(actor=actor, changes=changes)
    return present_settings(selectors.site_settings())
