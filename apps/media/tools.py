"""MCP tools for media metadata (SPEC §4.11), over the media selectors and services and REST's presenter. Uploads
stay on REST (``POST /media``): a tool call carries no file."""

from __future__ import annotations

from pydantic import Field

from apps.mcp.registry import ToolInput, tool
from apps.media import selectors, services
from apps.media.api.serializers import present_media

MediaId = Field(min_length=1, max_length=26, description="The media item's id.")


class MediaListIn(ToolInput):
    mimeType: str = Field(None, max_length=127, description="A MIME type prefix: 'image/' for every image.")
    limit: int = Field(50, ge=1, le=100)
    cursor: str = Field(None, max_length=1000, description="nextCursor of the previous page.")


@tool("media_list", title="List media", scope="media:read", input=MediaListIn, read_only=True)
def media_list(actor, args: MediaListIn) -> dict:
    """List media items (uploaded files), newest first: id, filename, mimeType, size, dimensions, url, alt, caption.

    Returns {items, nextCursor}. Use an item's id as the value of image and file fields ({"id": …}).
    """
    page = selectors.media_list(mime_type=args.mimeType, cursor=args.cursor, limit=args.limit)
    return page.to_data(present_media)


class MediaGetIn(ToolInput):
    id: str = MediaId


@tool("media_get", title="Get a media item", scope="media:read", input=MediaGetIn, read_only=True)
def media_get(actor, args: MediaGetIn) -> dict:
    """Get one media item: filename, mimeType, size, width, height, url, alt, caption and timestamps.

    Reference it from an image or file field of an entry as {"id": <media id>}.
    """
    return present_media(selectors.media_get(media_id=args.id))


class MediaUpdateIn(ToolInput):
    id: str = MediaId
    alt: str | None = Field(None, max_length=1000, description="Alternative text; null or '' clears it.")
    caption: str | None = Field(None, max_length=5000)
    width: int | None = Field(
        None, ge=1, description="Pixels; only for formats whose size could not be read."
    )
    height: int | None = Field(None, ge=1)


@tool(
    "media_update", title="Update media metadata", scope="media:write", input=MediaUpdateIn, idempotent=True
)
def media_update(actor, args: MediaUpdateIn) -> dict:
    """Change a media item's alt text, caption or dimensions; what is not sent stays. Returns the item."""
    changes = args.model_dump(exclude_unset=True, exclude={"id"})
    item = services.media_update(actor=actor, item=selectors.media_get(media_id=args.id), changes=changes)
    return present_media(item)


@tool("media_delete", title="Delete a media item", scope="media:write", input=MediaGetIn, destructive=True)
def media_delete(actor, args: MediaGetIn) -> dict:
    """Delete a media item and its stored file (unless another item uses the same file). Entries that referred to
    it keep their stored reference. Irreversible. Returns {success: true}."""
    services.media_delete(actor=actor, item=selectors.media_get(media_id=args.id))
    return {"success": True}
