"""MCP tools for media metadata (SPEC §4.11): the media selectors and services, the media shapes. Uploads stay on REST
(``POST /media``): a tool call carries no file."""

from __future__ import annotations

from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.media import renditions, selectors, services
from apps.media.inputs import MediaIdIn, MediaListToolIn, MediaUpdateToolIn, RenditionUrlToolIn
from apps.media.presenters import MediaOut, RenditionUrlOut, present_media


@tool(
    "media_list",
    title="List media",
    operation="media.read",
    input=MediaListToolIn,
    read_only=True,
    output=paged(MediaOut),
)
def media_list(actor, args: MediaListToolIn) -> dict:
    """List media items (uploaded files), newest first: id, filename, mimeType, size, dimensions, url, alt, caption.

    Returns {items, nextCursor}. Use an item's id as the value of image and file fields ({"id": …}).
    """
    page = selectors.media_list(
        actor=actor, mime_type=args.mimeType, search=args.search, cursor=args.cursor, limit=args.limit
    )
    return page.to_data(present_media)


@tool(
    "media_get",
    title="Get a media item",
    operation="media.read",
    input=MediaIdIn,
    read_only=True,
    output=MediaOut,
)
def media_get(actor, args: MediaIdIn) -> MediaOut:
    """Get one media item: filename, mimeType, size, width, height, url, alt, caption and timestamps.

    Reference it from an image or file field of an entry as {"id": <media id>}.
    """
    return present_media(selectors.media_read(actor=actor, media_id=args.id))


@tool(
    "media_update",
    title="Update media metadata",
    operation="media.update",
    input=MediaUpdateToolIn,
    idempotent=True,
    output=MediaOut,
)
def media_update(actor, args: MediaUpdateToolIn) -> MediaOut:
    """Change a media item's alt text, caption, focal point ({x, y}, fractions 0-1 from the top left; null centres
    crops) or dimensions; what is not sent stays. Entries showing the image
    pick up the new alt text unless they set their own. Returns the item as media_get shows it.
    """
    changes = {key: value for key, value in args.sent().items() if key != "id"}
    item = services.media_update(actor=actor, item=selectors.media_get(media_id=args.id), changes=changes)
    return present_media(item)


@tool(
    "media_delete",
    title="Delete a media item",
    operation="media.delete",
    input=MediaIdIn,
    destructive=True,
    output=SuccessFlagOut,
)
def media_delete(actor, args: MediaIdIn) -> SuccessFlagOut:
    """Delete a media item and its stored file (unless another item uses the same file). Entries that referred to
    it keep their stored reference. Irreversible. Returns {success: true}."""
    services.media_delete(actor=actor, item=selectors.media_get(media_id=args.id))
    return SUCCESS


@tool(
    "media_rendition_url",
    title="Get a signed image rendition URL",
    operation="media.rendition_url",
    input=RenditionUrlToolIn,
    read_only=True,
    output=RenditionUrlOut,
)
def media_rendition_url(actor, args: RenditionUrlToolIn) -> RenditionUrlOut:
    """The URL of an image media item resized and re-encoded: w and/or h in pixels (never enlarged), fit "cover"
    (crop to exactly wxh around the focal point, the default) or "contain", format webp (default), avif, jpeg or png,
    quality q 1-100. The URL is signed and public: use it as an <img src>. Preset URLs need no signing: media_get lists
    them under renditions. Returns {url}.
    """
    values = {key: value for key, value in args.sent().items() if key != "id"}
    return {"url": renditions.signed_url(actor, args.id, values)}
