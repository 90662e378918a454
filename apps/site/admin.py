"""Django admin for widget areas, widgets, sections and the site settings, writing through the site services
(Portable Text is validated, slugs and orders checked, as on the API)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.html import format_html_join

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.site import services
from apps.site.models import Section, SiteSettings, Widget, WidgetArea


def _actor(form) -> Actor:
    return Actor.for_session(form.request.user)


class WidgetAreaForm(ServiceForm):
    class Meta:
        model = WidgetArea
        fields = ("name", "label", "description")

    def perform(self, data):
        if not self.instance._state.adding:
            changes = {"label": data["label"], "description": data.get("description", "")}
            return services.widget_area_update(actor=_actor(self), area=self.instance, changes=changes)
        return services.widget_area_create(
            actor=_actor(self),
            name=data["name"],
            label=data["label"],
            description=data.get("description", ""),
        )


@admin.register(WidgetArea)
class WidgetAreaAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = WidgetAreaForm
    list_display = ("name", "label", "updated_at")
    search_fields = ("name", "label")

    def get_fields(self, request, obj=None):
        return (
            ("name", "label", "description", "widgets_in_order") if obj else ("name", "label", "description")
        )

    def get_readonly_fields(self, request, obj=None):
        return ("name", "widgets_in_order") if obj else ()

    @admin.display(description="Widgets")
    def widgets_in_order(self, area: WidgetArea):
        widgets = area.widgets.order_by("sort_order", "created_at")
        return format_html_join(
            "", "<div>{}. {} <small>({})</small></div>", ((w.sort_order, w, w.type) for w in widgets)
        )

    def delete_with(self, request, obj):
        services.widget_area_delete(actor=Actor.for_session(request.user), area=obj)


class WidgetForm(ServiceForm):
    content = forms.JSONField(required=False, help_text="Portable Text blocks.")

    class Meta:
        model = Widget
        fields = ("area", "type", "title", "content")

    def perform(self, data):
        content = data.get("content") or []
        if not self.instance._state.adding:
            changes = {"type": data["type"], "title": data.get("title", ""), "content": content}
            return services.widget_update(actor=_actor(self), widget=self.instance, changes=changes)
        return services.widget_create(
            actor=_actor(self),
            area=data["area"],
            type=data["type"],
            title=data.get("title", ""),
            content=content,
        )


@admin.register(Widget)
class WidgetAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = WidgetForm
    list_display = ("__str__", "type", "area", "sort_order")
    list_filter = ("area", "type")
    ordering = ("area", "sort_order", "created_at")
    list_select_related = ("area",)

    def get_readonly_fields(self, request, obj=None):
        return ("area",) if obj else ()

    def delete_with(self, request, obj):
        services.widget_delete(actor=Actor.for_session(request.user), widget=obj)


class SectionForm(ServiceForm):
    slug = forms.CharField(required=False, help_text="Made from the title when left empty.")
    keywords = forms.JSONField(required=False, help_text='A list of strings, e.g. ["cta", "newsletter"].')
    content = forms.JSONField(required=False, help_text="Portable Text blocks.")

    class Meta:
        model = Section
        fields = ("title", "slug", "keywords", "content", "source")

    def perform(self, data):
        values = {
            "title": data["title"],
            "keywords": data.get("keywords") or [],
            "content": data.get("content") or [],
            "source": data["source"],
        }
        if not self.instance._state.adding:
            if data.get("slug"):
                values["slug"] = data["slug"]
            return services.section_update(actor=_actor(self), section=self.instance, changes=values)
        return services.section_create(actor=_actor(self), slug=data.get("slug") or None, **values)


@admin.register(Section)
class SectionAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = SectionForm
    list_display = ("slug", "title", "source", "updated_at")
    list_filter = ("source",)
    search_fields = ("slug", "title", "keywords_text")

    def delete_with(self, request, obj):
        services.section_delete(actor=Actor.for_session(request.user), section=obj)


class SiteSettingsForm(ServiceForm):
    class Meta:
        model = SiteSettings
        fields = (
            "site_title",
            "tagline",
            "posts_per_page",
            "url",
            "timezone",
            "date_format",
            "logo",
            "favicon",
        )

    def perform(self, data):
        changes = {name: data.get(name) for name in self.Meta.fields}
        for key in ("logo", "favicon"):
            changes[key] = changes[key].pk if changes[key] else None
        return services.settings_update(actor=_actor(self), changes=changes)


@admin.register(SiteSettings)
class SiteSettingsAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = SiteSettingsForm
    list_display = ("site_title", "tagline", "posts_per_page", "updated_at")

    def has_add_permission(self, request):
        # One settings row, made by the first change.
        return not SiteSettings.objects.exists() and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return False
