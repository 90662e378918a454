"""The site settings form: every key of the settings service (apps.site.services.settings_update), parsed with the
REST input (apps.site.inputs.SettingsIn), so the form refuses what ``PUT /_cms/api/settings`` refuses, with the same
messages next to the fields. The form's field names are the API's wire names, which the errors use."""

from __future__ import annotations

import functools
import zoneinfo

from django.contrib import messages
from django.shortcuts import redirect

from apps.accounts.permissions import authorize
from apps.core import shapes
from apps.core.errors import CmsError
from apps.media.presenters import present_image_ref
from apps.site import selectors, services
from apps.site.inputs import SETTING_NAMES, SettingsIn
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

SECTION = "settings"
TEMPLATE = "studio/admin/settings.html"
TEXT_KEYS = ("siteTitle", "tagline", "postsPerPage", "url", "timezone", "dateFormat")
IMAGE_KEYS = ("logo", "favicon")


@functools.cache
def timezones() -> list[str]:
    """The IANA names this system knows, as the service checks them (zoneinfo)."""
    return sorted(zoneinfo.available_timezones() | {"UTC"})


def _values(current) -> dict:
    images = {key: getattr(current, SETTING_NAMES[key]) for key in IMAGE_KEYS}
    return {
        "siteTitle": current.site_title,
        "tagline": current.tagline,
        "postsPerPage": str(current.posts_per_page),
        "url": current.url,
        "timezone": current.timezone,
        "dateFormat": current.date_format,
        **{key: item.pk if item else "" for key, item in images.items()},
        "images": {key: present_image_ref(item) if item else None for key, item in images.items()},
    }


def _body(post) -> dict:
    body = {key: post.get(key, "") for key in TEXT_KEYS}
    for key in IMAGE_KEYS:
        chosen = post.get(key, "").strip()
        body[key] = None if post.get(f"{key}-remove") or not chosen else chosen
    return body


def _errors(exc: CmsError) -> dict[str, str]:
    details = exc.details if isinstance(exc.details, dict) else {}
    errors = {key: str(message) for key, message in details.items()}
    return errors or {"form": exc.message}


@studio_page
def settings_page(request):
    authorize(request.actor, "settings.write")
    current = selectors.settings_read(actor=request.actor)
    values, errors, status = _values(current), {}, 200
    if request.method == "POST":
        body = _body(request.POST)
        try:
            sent = shapes.validate(SettingsIn, body).model_dump(exclude_unset=True)
            changes = {SETTING_NAMES[key]: value for key, value in sent.items()}
            services.settings_update(actor=request.actor, changes=changes)
        except CmsError as exc:
            if exc.status not in (400, 409):
                raise
            errors, status = _errors(exc), exc.status
            values = {**values, **{key: body[key] or "" for key in TEXT_KEYS + IMAGE_KEYS}}
        else:
            messages.success(request, "Saved the site settings.")
            return redirect("studio:settings")
    zones = timezones()
    context = {
        "values": values,
        "errors": errors,
        "timezones": zones if values["timezone"] in zones else [values["timezone"], *zones],
    }
    return render_studio(request, TEMPLATE, context, section=SECTION, status=status)
