"""Media shapes on the wire (SPEC §2.2, §4.3), their presenters, and the reference shapes that entries and settings
show for ``image`` and ``file`` values (SPEC §2.6)."""

from __future__ import annotations

from rest_framework import serializers

from apps.core.api.serializers import cursor_field, limit_field
from apps.core.timefmt import iso
from apps.media.models import MediaItem
from apps.media.storage import media_url

# --- input -----------------------------------------------------------------------------------------------------------


class MediaListQuery(serializers.Serializer):
    cursor = cursor_field()
    limit = limit_field(default=20)
    mimeType = serializers.CharField(
        required=False, max_length=127, help_text="A MIME type prefix: 'image/' for every image, 'video/mp4'."
    )


class MediaCreateIn(serializers.Serializer):
    """A file already in the media storage. Its bytes are checked: mimeType and size, when sent, must match them."""

    storageKey = serializers.CharField(max_length=512, help_text="Path of the file inside the media storage.")
    filename = serializers.CharField(required=False, max_length=255)
    mimeType = serializers.CharField(required=False, max_length=127)
    size = serializers.IntegerField(required=False, min_value=0)
    width = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    height = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    alt = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    caption = serializers.CharField(required=False, allow_blank=True, max_length=5000)


class MediaUploadIn(serializers.Serializer):
    """An upload (multipart/form-data). The type is detected from the bytes; identical bytes give the existing item."""

    file = serializers.FileField(help_text="The file's bytes.")
    alt = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    caption = serializers.CharField(required=False, allow_blank=True, max_length=5000)


class MediaUpdateIn(serializers.Serializer):
    alt = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=1000)
    caption = serializers.CharField(required=False, allow_blank=True, allow_null=True, max_length=5000)
    width = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    height = serializers.IntegerField(required=False, allow_null=True, min_value=1)


# --- output ----------------------------------------------------------------------------------------------------------


class MediaOut(serializers.Serializer):
    id = serializers.CharField()
    filename = serializers.CharField()
    mimeType = serializers.CharField(help_text="Detected from the file's content.")
    size = serializers.IntegerField(help_text="Bytes.")
    width = serializers.IntegerField(allow_null=True, help_text="Pixels; null when not an image we can read.")
    height = serializers.IntegerField(allow_null=True)
    url = serializers.CharField(help_text="Where the file can be downloaded.")
    storageKey = serializers.CharField()
    alt = serializers.CharField(allow_blank=True)
    caption = serializers.CharField(allow_blank=True)
    authorId = serializers.CharField(allow_null=True, help_text="Who uploaded it; they may edit it.")
    createdAt = serializers.DateTimeField()
    updatedAt = serializers.DateTimeField()


class MediaCreatedOut(MediaOut):
    deduplicated = serializers.BooleanField(
        help_text="True when identical bytes (or the same storage key) were already recorded: this is that item "
        "(status 200), and nothing new was stored."
    )


class ImageRefOut(serializers.Serializer):
    """An ``image`` field value as entries show it."""

    id = serializers.CharField()
    url = serializers.CharField()
    alt = serializers.CharField(allow_blank=True)
    width = serializers.IntegerField(allow_null=True)
    height = serializers.IntegerField(allow_null=True)


def present_media(item: MediaItem) -> dict:
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
        "createdAt": iso(item.created_at),
        "updatedAt": iso(item.updated_at),
    }


def present_image_ref(item: MediaItem, stored: dict | None = None) -> dict:
    """``{id, url, alt, width, height}``; alt text given where the image is used wins over the item's own, and a
    caption given there is kept."""
    stored = stored or {}
    value = {
        "id": item.pk,
        "url": media_url(item.storage_key),
        "alt": stored.get("alt") or item.alt,
        "width": item.width,
        "height": item.height,
    }
    if stored.get("caption"):
        value["caption"] = stored["caption"]
    return value


def present_file_ref(item: MediaItem, stored: dict | None = None) -> dict:
    """``{id, url, filename, mimeType, size}``, with the title given where the file is used."""
    stored = stored or {}
    value = {
        "id": item.pk,
        "url": media_url(item.storage_key),
        "filename": item.filename,
        "mimeType": item.mime_type,
        "size": item.size,
    }
    if stored.get("title"):
        value["title"] = stored["title"]
    return value
