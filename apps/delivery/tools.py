"""MCP tools of the delivery layer: redirects, what a path shows, and draft preview tokens (docs/delivery.md)."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.delivery import selectors, services
from apps.delivery.inputs import (
    ContentPreviewIn,
    RedirectChangeIn,
    RedirectIdIn,
    RedirectIn,
    RedirectListIn,
    ResolveQuery,
)
from apps.delivery.presenters import (
    PreviewOut,
    RedirectOut,
    RedirectPageOut,
    ResolvedOut,
    present_preview,
    present_redirect,
    present_redirect_page,
    present_resolved,
)
from apps.mcp.registry import tool
from apps.schema import selectors as schema_selectors


@tool(
    "redirect_list",
    title="List redirects",
    operation="redirects.read",
    input=RedirectListIn,
    read_only=True,
    output=RedirectPageOut,
)
def redirect_list(actor, args: RedirectListIn) -> RedirectPageOut:
    """List the site's redirects by source path, one page at a time: {items: [{id, source, location, status, origin,
    entryId, …}], nextCursor}. origin auto: left by the CMS when a published entry's slug or URL pattern changed."""
    page = selectors.redirect_list(actor=actor, cursor=args.cursor, limit=args.limit, search=args.search)
    return present_redirect_page(page)


@tool(
    "redirect_create",
    title="Add a redirect",
    operation="redirects.write",
    input=RedirectIn,
    output=RedirectOut,
)
def redirect_create(actor, args: RedirectIn) -> RedirectOut:
    """Redirect an old path of the site (source, e.g. /old-page) to a path or an absolute URL (location) with a status
    (301 by default; 302, 307, 308). Chains collapse (a location that itself redirects is followed); a redirect that
    would come back to its source is [CONFLICT], as is a source that already has one."""
    return present_redirect(services.redirect_create(actor=actor, **args.values()))


@tool(
    "redirect_update",
    title="Change a redirect",
    operation="redirects.write",
    input=RedirectChangeIn,
    output=RedirectOut,
)
def redirect_update(actor, args: RedirectChangeIn) -> RedirectOut:
    """Change a redirect's source, location or status (only the keys sent). Same rules as redirect_create."""
    changes = args.values()
    redirect = selectors.redirect_get(redirect_id=changes.pop("id"))
    return present_redirect(services.redirect_update(actor=actor, redirect=redirect, changes=changes))


@tool(
    "redirect_delete",
    title="Delete a redirect",
    operation="redirects.write",
    input=RedirectIdIn,
    destructive=True,
    output=SuccessFlagOut,
)
def redirect_delete(actor, args: RedirectIdIn) -> SuccessFlagOut:
    """Delete a redirect by id: its source path then answers 404 to resolve (unless an entry lives there).
    Returns {success: true}."""
    services.redirect_delete(actor=actor, redirect=selectors.redirect_get(redirect_id=args.id))
    return SUCCESS


@tool(
    "path_resolve",
    title="Resolve a path of the site",
    operation="delivery.resolve",
    input=ResolveQuery,
    read_only=True,
    output=ResolvedOut,
)
def path_resolve(actor, args: ResolveQuery) -> ResolvedOut:
    """What a path of the front end shows: {kind: "entry", item} (the published entry whose collection's urlPattern
    gives that path), {kind: "redirect", status, location}, or [NOT_FOUND]."""
    return present_resolved(selectors.path_resolve(actor=actor, path=args.path))


@tool(
    "content_preview",
    title="Mint a draft preview token",
    operation="content.preview",
    input=ContentPreviewIn,
    output=PreviewOut,
)
def content_preview(actor, args: ContentPreviewIn) -> PreviewOut:
    """A signed token that lets a front end read this entry's working copy (draft) without other credentials, until
    expiresAt: GET /_cms/api/content/<collection>/<id>?preview=<token>. url is the collection's previewUrl filled in
    (null when it has none). Only this entry and locale; never lists or writes."""
    preview = services.entry_preview_create(
        actor=actor,
        collection=schema_selectors.collection_for_read(slug=args.collection),
        ref=args.id,
        locale=args.locale,
    )
    return present_preview(preview)
