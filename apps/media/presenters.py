"""Media as every face shows it (SPEC §2.2, §4.3), and the references that entries and settings show for ``image``
and ``file`` values (SPEC §2.6): each shape once, with the function that builds it."""

from __future__ import annotations

from typing import Annotated, NotRequired

from django.conf import settings
from pydantic import Field

from apps.core.shapes import Timestamp, TypedDict
from apps.core.timefmt import iso
from apps.media import renditions
from apps.media.models import MediaItem
from apps.media.storage import media_url


class FocalPointOut(TypedDict):
    x: Annotated[float, Field(description="Fraction of the width from the left edge, 0-1.")]
    y: Annotated[float, Field(description="Fraction of the height from the top edge, 0-1.")]


class SrcsetOut(TypedDict):
    width: Annotated[int, Field(description="The rendition's width in pixels.")]
    url: Annotated[str, Field(description="A signed rendition URL (webp) of that width.")]


class MediaOut(TypedDict):
    id: str
    filename: str
    mimeType: Annotated[str, Field(description="Detected from the file's content.")]
    size: Annotated[int, Field(description="Bytes.")]
    width: Annotated[int | None, Field(description="Pixels; null when not an image we can read.")]
    height: int | None
    url: Annotated[str, Field(description="Where the file can be downloaded.")]
    storageKey: str
    alt: str
    caption: str
    authorId: Annotated[str | None, Field(description="Who uploaded it; they may edit it.")]
    focalPoint: Annotated[
        FocalPointOut | None, Field(description="Where cover crops keep the subject; null centres them.")
    ]
    renditions: Annotated[
        dict[str, str] | None,
        Field(
            description="Preset name → URL of that rendition (CMS_RENDITION_PRESETS); null for other files."
        ),
    ]
    srcset: Annotated[
        list[SrcsetOut] | None,
        Field(
            description="Signed URLs of the configured widths (CMS_RENDITION_WIDTHS) up to the image's own, "
            "narrowest first, for an <img srcset>; null for other files."
        ),
    ]
    createdAt: Timestamp
    updatedAt: Timestamp


class MediaCreatedOut(MediaOut):
    deduplicated: Annotated[
        bool,
        Field(
            description="True when identical bytes (or the same storage key) were already recorded: this is that "
            "item (status 200), and nothing new was stored."
        ),
    ]


class RenditionUrlOut(TypedDict):
    url: Annotated[str, Field(description="The signed URL of the rendition, for anyone to fetch.")]


class ImageRefOut(TypedDict):
    """An ``image`` field value as entries show it."""

    id: str
    url: str
    alt: str
    width: int | None
    height: int | None
    caption: NotRequired[Annotated[str, Field(description="Given where the image is used (entries).")]]


class FileRefOut(TypedDict):
    """A ``file`` field value as entries show it."""

    id: str
    url: str
    filename: str
    mimeType: str
    size: int
    title: NotRequired[Annotated[str, Field(description="Given where the file is used.")]]


def present_media(item: MediaItem) -> MediaOut:
    return {
        "id": item.pk,
        "filename": item.filename,
        "mimeType": item.mime_type,
        "size": item.size,
        "width": item.width,
        "height": item.height,
        "url": media_url(item.storage_key),
        "storageKey": item.storage_key,
        "alt": item.alt,
        "caption": item.caption,
        "authorId": item.author_id,
        "focalPoint": {"x": item.focal_x, "y": item.focal_y} if item.focal_point else None,
        **present_renditions(item),
        "createdAt": iso(item.created_at),
        "updatedAt": iso(item.updated_at),
    }


def present_renditions(item: MediaItem) -> dict:
    """``renditions`` and ``srcset`` of an image we can render; null for other files and when none are configured."""
    if not renditions.renderable(item.mime_type):
        return {"renditions": None, "srcset": None}
    presets = {name: renditions.preset_url(item, name) for name in settings.CMS_RENDITION_PRESETS}
    srcset = [
        {"width": width, "url": renditions.rendition_url(item, renditions.Params(w=width))}
        for width in renditions.srcset_widths(item)
    ]
    return {"renditions": presets or None, "srcset": srcset or None}


def present_media_created(item: MediaItem, deduplicated: bool) -> MediaCreatedOut:
    return {**present_media(item), "deduplicated": deduplicated}


def present_image_ref(item: MediaItem, stored: dict | None = None) -> ImageRefOut:
    """``{id, url, alt, width, height}``; alt text given where the image is used wins over the item's own, and a
    caption given there is kept."""
    stored = stored or {}
    value: ImageRefOut = {
        "id": item.pk,
        "url": media_url(item.storage_key),
        "alt": stored.get("alt") or item.alt,
        "width": item.width,
        "height": item.height,
    }
    if stored.get("caption"):
        value["caption"] = stored["caption"]
    return value


def present_file_ref(item: MediaItem, stored: dict | None = None) -> FileRefOut:
    """``{id, url, filename, mimeType, size}``, with the title given where the file is used."""
    stored = stored or {}
    value: FileRefOut = {
        "id": item.pk,
        "url": media_url(item.storage_key),
        "filename": item.filename,
        "mimeType": item.mime_type,
        "size": item.size,
    }
    if stored.get("title"):
        value["title"] = stored["title"]
    return value
