"""Django admin helpers: admin forms write through the same services as the API.

A ServiceForm calls its service in ``clean()``: the admin's change view already runs in a transaction, so a refused
write (a CmsError) becomes a form error shown next to the fields, and an accepted one is saved exactly as the API would
save it (events, indexes, revisions). ``save_model`` then has nothing left to do.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages

from apps.core.errors import CmsError


def as_form_error(error: CmsError) -> forms.ValidationError:
    if isinstance(error.details, dict) and error.details:
        lines = [f"{key}: {value}" for key, value in error.details.items()]
        return forms.ValidationError([error.message, *lines] if error.message not in lines[0] else lines)
    return forms.ValidationError(error.message)


class ServiceForm(forms.ModelForm):
    """Subclasses implement ``perform(cleaned_data) -> model instance`` with a service call."""

    request = None  # set by ServiceAdminMixin.get_form

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            self.result = self.perform(cleaned)
        except CmsError as exc:
            raise as_form_error(exc) from exc
        return cleaned

    def validate_unique(self):
        """Not again after the service: it checked what must be unique (answering its own message) and wrote the row,
        which the model form's check, run after ``clean()``, would find and call taken."""


class ServiceAdminMixin:
    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.request = request
        return form

    def save_model(self, request, obj, form, change):
        # The form's clean() already wrote through the service; point the admin at the result.
        obj.pk = form.result.pk

    def save_related(self, request, form, formsets, change):
        """Related objects are written by the services, not by the admin."""

    def construct_change_message(self, request, form, formsets, add=False):
        # The inline formsets were never saved (the services write related rows), so they have no new, changed or
        # deleted objects to report; Django's default would read those attributes and fail.
        return super().construct_change_message(request, form, [], add)

    # ``delete_with(request, obj)``: the service call that deletes ``obj``, in admins whose deletes go through one.
    delete_with = None

    def delete_model(self, request, obj):
        if self.delete_with is None:
            return super().delete_model(request, obj)
        try:
            self.delete_with(request, obj)
        except CmsError as exc:
            # A refusal of the service (the object is in use, the role may not) is shown, not a server error.
            self.message_user(request, f"{obj}: {exc.message}", level="error")

    def delete_queryset(self, request, queryset):
        if self.delete_with is None:
            return super().delete_queryset(request, queryset)
        for obj in queryset:
            self.delete_model(request, obj)

    def run_service(self, request, action, label: str, items) -> None:
        done, failed = 0, []
        for item in items:
            try:
                action(item)
                done += 1
            except CmsError as exc:
                failed.append(f"{item}: {exc.message}")
        if done:
            messages.success(request, f"{label}: {done} done.")
        for failure in failed:
            messages.error(request, failure)
