"""What each media operation takes (SPEC §4.3, §4.11): one model per operation, read by REST and MCP alike.

A tool names the item in its arguments where REST has it in the path, so a tool's model is the path's model plus the
body's. SPEC §8 gives the two faces different default page sizes for the media list (REST 20, tools 50): the tool's
model changes only that default.
"""

from __future__ import annotations

from apps.core.shapes import Field, Input, Str, Text, Upload, cursor_param, limit_param


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


class MediaUpdateIn(Input):
    alt: Text | None = Field(None, max_length=1000, description="Alternative text; null or '' clears it.")
    caption: Text | None = Field(None, max_length=5000)
    width: int | None = Field(
        None, ge=1, description="Pixels; only for formats whose size could not be read."
    )
    height: int | None = Field(None, ge=1)


# pydantic takes the fields of the last base first: the id leads, as the tool's arguments always had it.
class MediaUpdateToolIn(MediaUpdateIn, MediaIdIn):
    pass
