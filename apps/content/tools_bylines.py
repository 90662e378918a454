"""MCP tools for bylines (the names credited on entries), over the selectors, services, inputs and shapes of REST's
``/bylines`` (``apps/content/api/views.py``). Registered by ``apps/content/tools.py``, which imports this module."""

from __future__ import annotations

from apps.content import selectors, services
from apps.content.inputs import BylineIdIn, BylineIn, BylineListQuery, BylineUpdateToolIn
from apps.content.presenters import BylineOut, present_byline
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.mcp.registry import tool


@tool(
    "byline_list",
    title="List bylines",
    operation="content.read",
    input=BylineListQuery,
    read_only=True,
    output=paged(BylineOut),
)
def byline_list(actor, args: BylineListQuery) -> dict:
    """List bylines (the names credited as authors of entries) by name: search matches names and slugs, kind
    'guest' keeps guests and 'linked' those linked to a user account.

    Returns {items, nextCursor}; pass nextCursor back as cursor for the next page. Credit a byline on an entry with
    content_create or content_update: bylines [{bylineId, roleLabel}].
    """
    page = selectors.byline_list(
        actor=actor, search=args.search, kind=args.kind, cursor=args.cursor, limit=args.limit
    )
    return page.to_data(present_byline)


@tool(
    "byline_get",
    title="Get a byline",
    operation="content.read",
    input=BylineIdIn,
    read_only=True,
    output=BylineOut,
)
def byline_get(actor, args: BylineIdIn) -> BylineOut:
    """Get one byline: id, displayName, slug, userId (the linked user, or null), isGuest, bio, email and timestamps."""
    return present_byline(selectors.byline_read(actor=actor, byline_id=args.id))


@tool("byline_create", title="Create a byline", operation="bylines.manage", input=BylineIn, output=BylineOut)
def byline_create(actor, args: BylineIn) -> BylineOut:
    """Create a byline: displayName (required), optionally userId to link a user of this CMS, isGuest (true by
    default when no user is linked), bio and email. The slug is made from the name. Returns the byline; credit it
    on entries with content_update bylines [{bylineId}].
    """
    return present_byline(services.byline_create(actor=actor, **services.byline_values(args.sent())))


@tool(
    "byline_update",
    title="Update a byline",
    operation="bylines.manage",
    input=BylineUpdateToolIn,
    idempotent=True,
    output=BylineOut,
)
def byline_update(actor, args: BylineUpdateToolIn) -> BylineOut:
    """Change a byline's displayName, userId (null unlinks), isGuest, bio or email; what is not sent stays. Entries
    crediting it show the new name. Returns the byline.
    """
    changes = services.byline_values({key: value for key, value in args.sent().items() if key != "id"})
    byline = services.byline_update(
        actor=actor, byline=selectors.byline_get(byline_id=args.id), changes=changes
    )
    return present_byline(byline)


@tool(
    "byline_delete",
    title="Delete a byline",
    operation="bylines.manage",
    input=BylineIdIn,
    destructive=True,
    output=SuccessFlagOut,
)
def byline_delete(actor, args: BylineIdIn) -> SuccessFlagOut:
    """Delete a byline. Entries that credited it lose that credit (their primary byline becomes the next credit).
    Irreversible. Returns {success: true}.
    """
    services.byline_delete(actor=actor, byline=selectors.byline_get(byline_id=args.id))
    return SUCCESS
