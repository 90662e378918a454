"""Plugins and the search index (admins).

Plugins: the installed ones with what they contribute, enabled and disabled through apps.plugins.services. Search:
the index statistics (apps.search.selectors.search_stats) and a rebuild run by the worker as a job
(apps.search.services.search_rebuild_job_create); the page shows the newest job, so its progress survives a
reload, and search-rebuild.js follows it through ``GET /_cms/api/search/rebuild/jobs/{id}``."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect

from apps.accounts.permissions import authorize
from apps.plugins import selectors as plugin_selectors
from apps.plugins import services as plugin_services
from apps.plugins.presenters import present_plugins
from apps.search import selectors as search_selectors
from apps.search import services as search_services
from apps.search.presenters import present_rebuild_job
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio


@studio_page
def plugins_page(request):
    plugins = present_plugins(plugin_selectors.plugin_list(actor=request.actor))["items"]
    return render_studio(request, "studio/admin/plugins.html", {"plugins": plugins}, section="plugins")


@studio_page
def plugin_toggle(request, plugin_id: str, action: str):
    authorize(request.actor, "plugins.manage")
    if request.method != "POST" or action not in ("enable", "disable"):
        return redirect("studio:plugins")
    enabled = action == "enable"
    plugin_services.plugin_set_enabled(actor=request.actor, plugin_id=plugin_id, enabled=enabled)
    name = plugin_selectors.plugin_get(plugin_id=plugin_id).entry.plugin.name
    if enabled:
        messages.success(request, f"Enabled {name}: what it contributes works again.")
    else:
        messages.success(
            request, f"Disabled {name}: its block types, tools, import sources and hooks stopped at once."
        )
    return redirect("studio:plugins")


@studio_page
def search_page(request):
    authorize(request.actor, "search.rebuild")
    if request.method == "POST":
        before = search_selectors.search_rebuild_job_latest(actor=request.actor)
        job = search_services.search_rebuild_job_create(
            actor=request.actor, full=request.POST.get("full") == "on"
        )
        if before is not None and job.pk == before.pk:
            messages.success(request, "A rebuild is already under way: its progress is below.")
        else:
            messages.success(request, "Rebuild started: it runs in the background (manage.py worker).")
        return redirect("studio:search")
    stats = search_selectors.search_stats(actor=request.actor)
    latest = search_selectors.search_rebuild_job_latest(actor=request.actor)
    job = present_rebuild_job(latest) if latest else None
    context = {
        "stats": stats,
        "job": job,
        "active": bool(job and job["state"] in ("queued", "running")),
    }
    return render_studio(request, "studio/admin/search.html", context, section="search")
