"""MCP tools for media (SPEC §4.11): the media selectors and services, the media shapes. A tool call carries JSON
only, so ``media_upload`` takes the bytes as base64 text or a URL to fetch (``apps/media/remote.py``) and hands them
to the same upload service as REST's multipart ``POST /media``; ``media_create`` is REST's JSON ``POST /media``."""

from __future__ import annotations

from apps.core.errors import ValidationError
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged
from apps.mcp.registry import tool
from apps.media import remote, renditions, selectors, services
from apps.media.inputs import (
    MediaCreateIn,
    MediaIdIn,
    MediaListToolIn,
    MediaUpdateToolIn,
    MediaUploadToolIn,
    RenditionUrlToolIn,
)
from apps.media.presenters import (
    MediaCreatedOut,
    MediaOut,
    RenditionUrlOut,
    present_media,
    present_media_created,
)

ONE_SOURCE = "Give exactly one of data (base64 bytes) or url."


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
    "media_upload",
    title="Upload a file",
    operation="media.create",
    input=MediaUploadToolIn,
    output=MediaCreatedOut,
)
def media_upload(actor, args: MediaUploadToolIn) -> MediaCreatedOut:
    """Upload a file into the media library: its bytes base64-encoded in data, or a public http(s) url the server
    downloads (one of the two). The type is detected from the bytes and must be an allowed one ([UNSUPPORTED_MEDIA_TYPE]
    otherwise); a file over the size limit is [PAYLOAD_TOO_LARGE]. Bytes identical to an existing item answer that
    item with deduplicated: true and store nothing. Returns the item as media_get shows it, plus deduplicated; use
    its id as an image or file field's value ({"id": …}).
    """
    if (args.data is None) == (args.url is None):
        raise ValidationError(ONE_SOURCE, details={"data": ONE_SOURCE, "url": ONE_SOURCE})
    if args.data is not None:
        file, filename = remote.file_from_base64(args.data), args.filename
    else:
        file, filename = remote.file_from_url(args.url), args.filename or remote.filename_from_url(args.url)
    with file:
        item, deduplicated = services.media_upload(
            actor=actor,
            file=file,
            filename=filename,
            alt=args.alt or "",
            caption=args.caption or "",
            mime_type=args.mimeType,
        )
    return present_media_created(item, deduplicated)


@tool(
    "media_create",
    title="Record a stored file",
    operation="media.create",
    input=MediaCreateIn,
    output=MediaCreatedOut,
)
def media_create(actor, args: MediaCreateIn) -> MediaCreatedOut:
    """Record a file that is already in the media storage under storageKey (put there by someone with access to the
    storage), as REST's POST /media with JSON does. Its bytes are checked: the type must be allowed, and mimeType and
    size, when sent, must be what the bytes are. A key already recorded answers that item with deduplicated: true.
    Returns the item as media_get shows it, plus deduplicated. To send bytes, use media_upload.
    """
    item, deduplicated = services.media_create(
        actor=actor,
        storage_key=args.storageKey,
        filename=args.filename,
        mime_type=args.mimeType,
        size=args.size,
        width=args.width,
        height=args.height,
        alt=args.alt or "",
        caption=args.caption or "",
    )
    return present_media_created(item, deduplicated)


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
