"""Django admin for media: a thumbnail list, uploads and edits through the media services (type detection,
deduplication and file deletion apply exactly as on the API)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.html import format_html

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.media import services
from apps.media.models import MediaItem
from apps.media.storage import media_url


class MediaForm(ServiceForm):
    upload = forms.FileField(required=False, help_text="The file; its type is detected from its content.")

    class Meta:
        model = MediaItem
        fields = ("alt", "caption")

    def clean(self):
        if self.instance._state.adding and not self.files.get("upload"):
            raise forms.ValidationError("Choose a file to upload.")
        return super().clean()

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        if not self.instance._state.adding:
            return services.media_update(
                actor=actor, item=self.instance, changes={"alt": data["alt"], "caption": data["caption"]}
            )
        upload = data["upload"]
        item, _ = services.media_upload(
            actor=actor, file=upload, filename=upload.name, alt=data["alt"], caption=data["caption"]
        )
        return item


@admin.register(MediaItem)
class MediaItemAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = MediaForm
    list_display = ("thumbnail", "filename", "mime_type", "size", "dimensions", "author", "created_at")
    list_filter = ("mime_type",)
    search_fields = ("filename", "alt", "caption", "storage_key", "id")
    list_select_related = ("author",)
    readonly_fields = (
        "preview",
        "filename",
        "mime_type",
        "size",
        "width",
        "height",
        "storage_key",
        "content_hash",
        "author",
        "created_at",
        "updated_at",
    )

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("upload", "alt", "caption")
        return ("preview", "alt", "caption", *self.readonly_fields[1:])

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj else ()

    @admin.display(description="")
    def thumbnail(self, item: MediaItem):
        if not item.is_image:
            return item.mime_type.split("/")[0]
        return format_html(
            '<img src="{}" alt="{}" style="max-width:80px;max-height:60px">',
            media_url(item.storage_key),
            item.alt,
        )

    @admin.display(description="Preview")
    def preview(self, item: MediaItem):
        if not item.is_image:
            return format_html('<a href="{}">{}</a>', media_url(item.storage_key), item.filename)
        return format_html(
            '<img src="{}" alt="{}" style="max-width:480px;max-height:360px">',
            media_url(item.storage_key),
            item.alt,
        )

    @admin.display(description="Size (px)")
    def dimensions(self, item: MediaItem):
        return f"{item.width} x {item.height}" if item.width and item.height else "—"

    def delete_with(self, request, obj):
        services.media_delete(actor=Actor.for_session(request.user), item=obj)
