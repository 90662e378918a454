"""Django admin for collections and fields, writing through the schema services (indexes and data follow)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.schema import services
from apps.schema.field_types import FIELD_TYPES
from apps.schema.models import SUPPORTS, Collection, Field


class CollectionForm(ServiceForm):
    supports = forms.MultipleChoiceField(
        choices=[(item, item) for item in SUPPORTS], required=False, widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = Collection
        fields = ("slug", "label", "label_singular", "description", "icon", "supports")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        values = {name: data.get(name) or ("" if name != "supports" else []) for name in self.Meta.fields}
        # Not `instance.pk`: a new row already has its ULID (a field default) before it is saved.
        if not self.instance._state.adding:
            values.pop("slug")
            return services.collection_update(actor=actor, collection=self.instance, changes=values)
        return services.collection_create(actor=actor, **values)


class FieldInline(admin.TabularInline):
    model = Field
    fields = ("slug", "label", "type", "required", "unique", "searchable", "sort_order")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Collection)
class CollectionAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = CollectionForm
    list_display = ("slug", "label", "supports", "created_at")
    search_fields = ("slug", "label")
    inlines = [FieldInline]

    def get_readonly_fields(self, request, obj=None):
        return ("slug",) if obj else ()

    def delete_model(self, request, obj):
        # The confirmation page has listed the entries that go with it: delete them too.
        services.collection_delete(actor=Actor.for_session(request.user), collection=obj, force=True)

    def delete_queryset(self, request, queryset):
        for collection in queryset:
            self.delete_model(request, collection)


class FieldForm(ServiceForm):
    type = forms.ChoiceField(choices=[(name, name) for name in FIELD_TYPES])
    validation = forms.JSONField(required=False, initial=dict)
    options = forms.JSONField(required=False, initial=dict)
    default_value = forms.JSONField(required=False)

    class Meta:
        model = Field
        fields = (
            "collection",
            "slug",
            "label",
            "type",
            "required",
            "unique",
            "default_value",
            "validation",
            "widget",
            "options",
            "sort_order",
            "searchable",
            "translatable",
        )

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        definition = {name: data.get(name) for name in self.Meta.fields if name != "collection"}
        definition["validation"] = definition["validation"] or {}
        definition["options"] = definition["options"] or {}
        # Not `instance.pk`: a new row already has its ULID (a field default) before it is saved.
        if not self.instance._state.adding:
            definition.pop("slug")
            return services.field_update(actor=actor, field=self.instance, changes=definition)
        return services.field_create(actor=actor, collection=data["collection"], definition=definition)


@admin.register(Field)
class FieldAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = FieldForm
    list_display = ("slug", "collection", "type", "required", "unique", "searchable", "sort_order")
    list_filter = ("collection", "type")
    search_fields = ("slug", "label")

    def get_readonly_fields(self, request, obj=None):
        return ("collection", "slug") if obj else ()

    def delete_model(self, request, obj):
        services.field_delete(actor=Actor.for_session(request.user), field=obj)

    def delete_queryset(self, request, queryset):
        for field in queryset:
            self.delete_model(request, field)
