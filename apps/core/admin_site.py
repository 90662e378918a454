"""The operators' console (the Django admin at /django-admin/), named and grouped for the people who run the CMS.

Operators reach it beside the studio, so "View site" goes to the studio, and the OAuth models (the toolkit's own and
the two of ours that extend them) form one "OAuth" section with plain names instead of two sections named after a
library. The regrouping is by model label, so core still imports no domain app."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.apps import AdminConfig

# Model label → the name operators see, in the one OAuth section.
OAUTH_MODELS = {
    "oauth2_provider.application": "Clients",
    "accounts.oauthclient": "Client scopes and grant types",
    "oauth2_provider.accesstoken": "Access tokens",
    "oauth2_provider.refreshtoken": "Refresh tokens",
    "oauth2_provider.idtoken": "ID tokens",
    "accounts.oauthgrant": "Authorization codes",
    "accounts.oauthdevicegrant": "Device codes",
}


class CmsAdminSite(admin.AdminSite):
    site_url = "/_cms/admin/"
    index_title = "Operators' console"

    @property
    def site_header(self):
        return f"{settings.CMS_SITE_NAME} · operators' console"

    @property
    def site_title(self):
        return f"{settings.CMS_SITE_NAME} console"

    def get_app_list(self, request, app_label=None):
        apps = super().get_app_list(request, app_label)
        oauth = []
        for app in apps:
            kept = []
            for model in app["models"]:
                label = model["model"]._meta.label_lower
                if label in OAUTH_MODELS:
                    oauth.append({**model, "name": OAUTH_MODELS[label]})
                else:
                    kept.append(model)
            app["models"] = kept
        apps = [app for app in apps if app["models"] and app["app_label"] != "oauth2_provider"]
        if oauth:
            order = list(OAUTH_MODELS.values())
            oauth.sort(key=lambda model: order.index(model["name"]))
            apps.append(
                {
                    "name": "OAuth",
                    "app_label": "oauth2_provider",
                    "app_url": oauth[0]["admin_url"].rsplit("/", 3)[0] + "/",
                    "has_module_perms": True,
                    "models": oauth,
                }
            )
            apps.sort(key=lambda app: app["name"].lower())
        return apps


class CmsAdminConfig(AdminConfig):
    default_site = "apps.core.admin_site.CmsAdminSite"
