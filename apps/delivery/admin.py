"""Django admin for redirects, through the redirect services (the same checks as the API: chains collapse, loops are
refused, paths are normalised)."""

from __future__ import annotations

from django.contrib import admin

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin, ServiceForm
from apps.delivery import services
from apps.delivery.models import Redirect


class RedirectForm(ServiceForm):
    class Meta:
        model = Redirect
        fields = ("source", "location", "status")

    def perform(self, data):
        actor = Actor.for_session(self.request.user)
        values = {"source": data["source"], "location": data["location"], "status": data["status"]}
        if self.instance._state.adding:
            return services.redirect_create(actor=actor, **values)
        return services.redirect_update(actor=actor, redirect=self.instance, changes=values)


@admin.register(Redirect)
class RedirectAdmin(ServiceAdminMixin, admin.ModelAdmin):
    form = RedirectForm
    list_display = ("source", "location", "status", "origin", "updated_at")
    list_filter = ("status", "origin")
    search_fields = ("source", "location")

    def delete_with(self, request, obj):
        services.redirect_delete(actor=Actor.for_session(request.user), redirect=obj)
