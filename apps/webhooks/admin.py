"""Django admin for webhooks: the operators' view of endpoints, the outbox and every delivery with its attempts.

Endpoints are created in the studio or over the API, which show the new secret once; here they are looked at, turned
on or off and deleted, and deliveries are redelivered, all through the webhook services (the same permission and
effects as the API). The secret is never shown. Events, deliveries and attempts are the record of what was sent: read
only.
"""

from __future__ import annotations

from django.contrib import admin

from apps.accounts.permissions import Actor
from apps.core.admin import ServiceAdminMixin
from apps.webhooks import services
from apps.webhooks.models import Attempt, Delivery, Endpoint, Event


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Endpoint)
class EndpointAdmin(ServiceAdminMixin, admin.ModelAdmin):
    list_display = ("url", "active", "payload_mode", "failure_count", "disabled_reason", "created_at")
    list_filter = ("active", "payload_mode")
    search_fields = ("url", "description")
    fields = (
        "url",
        "description",
        "event_types",
        "collections",
        "payload_mode",
        "active",
        "disabled_reason",
        "disabled_at",
        "failure_count",
        "failing_since",
        "previous_secret_expires_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ("turn_on", "turn_off")

    def has_add_permission(self, request):
        # The secret is shown once, to whoever creates the endpoint: the studio and the API do that.
        return False

    def get_deleted_objects(self, objs, request):
        # An endpoint's deliveries and attempts go with it (the service deletes them): they are listed on the
        # confirmation page, but their being read-only here does not forbid it.
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_with(self, request, obj):
        services.endpoint_delete(actor=Actor.for_session(request.user), endpoint=obj)

    def _set_active(self, request, queryset, active: bool, label: str) -> None:
        actor = Actor.for_session(request.user)
        self.run_service(
            request,
            lambda endpoint: services.endpoint_update(
                actor=actor, endpoint=endpoint, values={"active": active}
            ),
            label,
            queryset,
        )

    @admin.action(description="Turn on (clears why it was disabled)")
    def turn_on(self, request, queryset):
        self._set_active(request, queryset, True, "Turned on")

    @admin.action(description="Turn off")
    def turn_off(self, request, queryset):
        self._set_active(request, queryset, False, "Turned off")


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("id", "type", "collection", "created_at", "fanned_out")
    list_filter = ("type", "fanned_out")
    search_fields = ("id", "type", "collection")
    date_hierarchy = "created_at"


class AttemptInline(admin.TabularInline):
    model = Attempt
    fields = ("number", "started_at", "duration_ms", "status", "error", "response")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(ServiceAdminMixin, ReadOnlyAdmin):
    list_display = ("event", "endpoint", "state", "attempts", "last_status", "next_attempt_at", "finished_at")
    list_filter = ("state", "endpoint")
    search_fields = ("event__id", "event__type", "endpoint__url")
    list_select_related = ("event", "endpoint")
    inlines = (AttemptInline,)
    actions = ("redeliver",)

    @admin.action(description="Redeliver (a new delivery, due now)")
    def redeliver(self, request, queryset):
        actor = Actor.for_session(request.user)
        self.run_service(
            request,
            lambda delivery: services.delivery_redeliver(actor=actor, delivery=delivery),
            "Redelivered",
            queryset.select_related("endpoint"),
        )
