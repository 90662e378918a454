"""What each media operation takes (SPEC §4.3, §4.11): one model per operation, read by REST and MCP alike.

A tool names the item in its arguments where REST has it in the path, so a tool's model is the path's model plus the
body's. SPEC §8 gives the two faces different default page sizes for the media list (REST 20, tools 50): the tool's
model changes only that default.
"""

from __future__ import annotations

from django.conf import settings

from apps.core.shapes import Field, Input, Str, Text, Upload, choice, cursor_param, limit_param


class MediaListIn(Input):
    mimeType: Str = Field(
        None, max_length=127, description="A MIME type prefix: 'image/' for every image, 'video/mp4'."
    )
    search: Str = Field(
        None,
        max_length=200,
        description="Only items whose filename, alt text or caption contains these characters (any case).",
    )
    limit: int = limit_param(20)
    cursor: Str = cursor_param()


class MediaListToolIn(MediaListIn):
    limit: int = limit_param(50)


class MediaIdIn(Input):
    id: Str = Field(max_length=26, description="The media item's id.")


class MediaCreateIn(Input):
    """A file already in the media storage. Its bytes are checked: mimeType and size, when sent, must match them."""

    storageKey: Str = Field(max_length=512, description="Path of the file inside the media storage.")
    filename: Str = Field(None, max_length=255)
    mimeType: Str = Field(None, max_length=127)
    size: int = Field(None, ge=0)
    width: int | None = Field(None, ge=1)
    height: int | None = Field(None, ge=1)
    alt: Text = Field(None, max_length=1000)
    caption: Text = Field(None, max_length=5000)


class MediaUploadIn(Input):
    """An upload (multipart/form-data). The type is detected from the bytes; identical bytes give the existing item."""

    file: Upload = Field(description="The file's bytes.")
    alt: Text = Field(None, max_length=1000)
    caption: Text = Field(None, max_length=5000)


class MediaUploadToolIn(Input):
    """An upload over the tool server, whose calls carry JSON only: the bytes as base64 text, or a URL the server
    fetches. Either is checked as a REST upload is (type sniffed from the bytes, size limit, deduplication)."""

    data: Text = Field(
        None,
        description="The file's bytes, base64-encoded (a data: URL is accepted too). The whole call may have at most "
        f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes: give a url for larger files.",
    )
    url: Str = Field(
        None,
        max_length=2000,
        description="An http(s) URL on a public host to fetch the file from, instead of data.",
    )
    filename: Str = Field(
        None,
        max_length=255,
        description="The file's name; default: the URL's last path segment, else 'file'.",
    )
    mimeType: Str = Field(
        None,
        max_length=127,
        description="The MIME type you expect; refused when the bytes are something else. The stored type is "
        "always the one detected from the bytes.",
    )
    alt: Text = Field(None, max_length=1000)
    caption: Text = Field(None, max_length=5000)


class FocalPointIn(Input):
    """Where crops keep the subject: fractions of the width (x) and height (y) from the top left corner."""

    x: float = Field(ge=0, le=1, description="0 is the left edge, 1 the right.")
    y: float = Field(ge=0, le=1, description="0 is the top edge, 1 the bottom.")


class MediaUpdateIn(Input):
    alt: Text | None = Field(None, max_length=1000, description="Alternative text; null or '' clears it.")
    caption: Text | None = Field(None, max_length=5000)
    width: int | None = Field(
        None, ge=1, description="Pixels; only for formats whose size could not be read."
    )
    height: int | None = Field(None, ge=1)
    focalPoint: FocalPointIn | None = Field(
        None, description="Where cover crops of renditions keep the subject; null centres them."
    )


class RenditionIn(Input):
    """A rendition's parameters (docs/delivery.md): width and/or height in pixels, how to fit both, format, quality.
    Pictures are never enlarged."""

    w: int = Field(
        None,
        ge=1,
        le=settings.CMS_RENDITION_MAX_DIMENSION,
        description="Width in pixels (at most 4000 by default).",
    )
    h: int = Field(None, ge=1, le=settings.CMS_RENDITION_MAX_DIMENSION, description="Height in pixels.")
    fit: choice("cover", "contain") = Field(
        None,
        description="With w and h: cover crops to exactly wxh around the focal point (default), contain fits inside.",
    )
    format: choice("webp", "avif", "jpeg", "png") = Field(
        None, description="Default webp; avif where the server supports it."
    )
    q: int = Field(None, ge=1, le=100, description="Quality 1-100 for webp, avif and jpeg (default 80).")


class RenditionVersionIn(Input):
    v: Str = Field(
        None,
        max_length=16,
        description="Part of the URLs the API gives for crops: it changes with the focal point, so caches fetch the "
        "new crop. Ignored by the server.",
    )


class RenditionQueryIn(RenditionIn, RenditionVersionIn):
    s: Str = Field(None, max_length=64, description="The signature that POST /media/:id/render-url gave.")


class RenditionUrlToolIn(RenditionIn, MediaIdIn):
    pass


# pydantic takes the fields of the last base first: the id leads, as the tool's arguments always had it.
class MediaUpdateToolIn(MediaUpdateIn, MediaIdIn):
    pass
