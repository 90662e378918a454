"""Rendering a studio page inside the shell."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render


def render_studio(
    request,
    template: str,
    context: dict | None = None,
    *,
    status: int = 200,
    section: str = "",
    shell: bool = True,
) -> HttpResponse:
    """``template`` with the shell's navigation (``section`` names the current item, marked for screen readers)."""
    from apps.studio.navigation import navigation

    base = {"site_name": settings.CMS_SITE_NAME, "section": section}
    if shell:
        base["nav"] = navigation(getattr(request, "actor", None))
    return render(request, template, {**base, **(context or {})}, status=status)
