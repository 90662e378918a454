"""Django admin for entries and bylines. Entries show their JSON data, status and lifecycle; edits and the lifecycle
actions (publish, unpublish, trash, restore) go through the content services, like every other face."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.contrib import admin, messages

from apps.accounts.permissions import Actor
from apps.content import services
from apps.content.models import Byline, Entry, EntryByline, Revision
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.core.db.jsonkeys import JsonKey
from apps.core.errors import CmsError
from apps.schema.selectors import collections_for_read, title_field


class EntryForm(ServiceForm):
    data = forms.JSONField(help_text="Field values keyed by field slug.")
    slug = forms.CharField(required=False, help_text="Generated from the title when left empty.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "locale" in self.fields and self.instance._state.adding:
            self.fields["locale"].initial = settings.CMS_DEFAULT_LOCALE

    class Meta:
        model = Entry
        fields = ("collection", "slug", "locale", "data")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        # Not `instance.pk`: a new row already has its ULID (a field default) before it is saved.
        if not self.instance._state.adding:
            return services.entry_update(
                actor=actor, entry=self.instance, data=data["data"], slug=data.get("slug") or None
            )
        return services.entry_create(
            actor=actor,
            collection=data["collection"],
            data=data["data"],
            slug=data.get("slug") or None,
            locale=data.get("locale") or None,
        )


class CreditInline(admin.TabularInline):
    model = EntryByline
    extra = 0
    fields = ("byline", "sort_order", "role_label")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


def _title_column(key: str) -> str:
    return "title_" + re.sub(r"\W", "_", key)


@admin.register(Entry)
class EntryAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = EntryForm
    list_display = (
        "title",
        "collection_label",
        "status",
        "locale",
        "updated_at",
        "published_at",
        "deleted_at",
    )
    list_filter = ("collection", "status", "locale", ("deleted_at", admin.EmptyFieldListFilter))
    search_fields = ("slug", "id")
    ordering = ("-updated_at",)
    inlines = [CreditInline]
    actions = ["publish", "unpublish", "trash", "restore"]
    list_select_related = ("collection",)

    def get_queryset(self, request):
        # Titles are read as one JSON key per collection's title field, never the whole data of every row.
        keys = {title_field(collection) for collection in collections_for_read()} - {None}
        return (
            super()
            .get_queryset(request)
            .annotate(**{_title_column(key): JsonKey("data", key) for key in keys})
        )

    @admin.display(description="Title", ordering="slug")
    def title(self, entry: Entry) -> str:
        key = title_field(entry.collection)
        return (getattr(entry, _title_column(key), None) if key else None) or entry.slug

    @admin.display(description="Collection", ordering="collection__label")
    def collection_label(self, entry: Entry) -> str:
        return entry.collection.label or entry.collection.slug

    def get_readonly_fields(self, request, obj=None):
        lifecycle = (
            "status",
            "version",
            "live_data",
            "published_at",
            "scheduled_at",
            "deleted_at",
            "author",
            "meta",
        )
        return ("collection", "locale", *lifecycle) if obj else ()

    def _actor(self, request) -> Actor:
        return Actor.for_session(request.user)

    @admin.action(description="Publish selected entries")
    def publish(self, request, queryset):
        self.run_service(
            request,
            lambda entry: services.entry_publish(actor=self._actor(request), entry=entry),
            "Publish",
            queryset,
        )

    @admin.action(description="Unpublish selected entries")
    def unpublish(self, request, queryset):
        self.run_service(
            request,
            lambda entry: services.entry_unpublish(actor=self._actor(request), entry=entry),
            "Unpublish",
            queryset,
        )

    @admin.action(description="Move selected entries to the trash")
    def trash(self, request, queryset):
        self.run_service(
            request,
            lambda entry: services.entry_trash(actor=self._actor(request), entry=entry),
            "Trash",
            queryset,
        )

    @admin.action(description="Restore selected entries from the trash")
    def restore(self, request, queryset):
        self.run_service(
            request,
            lambda entry: services.entry_restore(actor=self._actor(request), entry=entry),
            "Restore",
            queryset,
        )

    def delete_model(self, request, obj):
        # Permanent deletion, for entries already in the trash (SPEC §3).
        try:
            services.entry_delete_permanently(actor=self._actor(request), entry=obj)
        except CmsError as exc:
            self.message_user(request, f"{obj}: {exc.message}", level="error")

    def delete_queryset(self, request, queryset):
        for entry in queryset:
            self.delete_model(request, entry)


@admin.register(Byline)
class BylineAdmin(admin.ModelAdmin):
    list_display = ("display_name", "slug", "user", "is_guest")
    search_fields = ("display_name", "slug")
    readonly_fields = ("slug",)

    def save_model(self, request, obj, form, change):
        actor = Actor.for_session(request.user)
        if change:
            services.byline_update(
                actor=actor,
                byline=obj,
                changes={
                    name: form.cleaned_data.get(name)
                    for name in ("display_name", "bio", "email", "is_guest", "user")
                },
            )
        else:
            created = services.byline_create(
                actor=actor,
                display_name=form.cleaned_data["display_name"],
                user=form.cleaned_data.get("user"),
                is_guest=form.cleaned_data.get("is_guest"),
                bio=form.cleaned_data.get("bio", ""),
                email=form.cleaned_data.get("email", ""),
            )
            obj.pk = created.pk


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    """Revisions are history: restored into their entry's working copy through the service (which records a new
    revision and publishes nothing), never edited or deleted."""

    list_display = ("created_at", "entry", "action", "status", "author")
    list_filter = ("action",)
    list_select_related = ("entry__collection", "author")
    readonly_fields = ("collection", "entry", "data", "action", "status", "author", "created_at")
    actions = ["restore_revision"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Restore into the entry's working copy (publishes nothing)")
    def restore_revision(self, request, queryset):
        actor = Actor.for_session(request.user)
        for revision in queryset.select_related("entry"):
            try:
                services.revision_restore(actor=actor, revision=revision)
            except CmsError as exc:
                self.message_user(request, f"{revision.entry}: {exc.message}", level=messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"{revision.entry}: restored the revision of {revision.created_at:%Y-%m-%d %H:%M}.",
                )
