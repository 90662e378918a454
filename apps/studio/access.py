"""Who may open a studio page, decided by the permission table (operation ``studio.use``) and nothing else.

Every studio view is wrapped in ``studio_page``: signed-out people go to the sign-in page and come back, signed-in
people whose role may not write content (subscribers) get one clear 403 page, and everyone else reaches the view with
``request.actor``, the same ``Actor`` the REST API builds for a browser session. A service's or selector's error that
escapes a view (an unknown collection, a refused read) becomes a page saying so, with its status. Every answer carries
the pages' strict headers (CSP, no-store)."""

from __future__ import annotations

import functools

from django.contrib.auth.views import redirect_to_login
from django.utils.functional import SimpleLazyObject

from apps.accounts.pages import secure
from apps.accounts.permissions import Actor, can
from apps.core.errors import CmsError
from apps.studio.rendering import render_studio

TITLES = {400: "That did not work", 403: "Not allowed", 404: "Not found", 409: "Changed meanwhile"}


def may_use_studio(user) -> bool:
    return bool(user and user.is_authenticated) and can(Actor.for_session(user), "studio.use")


def studio_page(view):
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return secure(redirect_to_login(request.get_full_path()))
        request.actor = Actor.for_session(request.user)
        if not can(request.actor, "studio.use"):
            context = {"role_name": request.user.role_name}
            return secure(render_studio(request, "studio/no_access.html", context, status=403, shell=False))
        try:
            response = view(request, *args, **kwargs)
        except CmsError as exc:
            title = TITLES.get(exc.status, "Something went wrong")
            response = render_studio(
                request, "studio/error.html", {"title": title, "message": exc.message}, status=exc.status
            )
            for name, value in exc.headers.items():
                response[name] = value
        return secure(response)

    return wrapped


def studio_context(request) -> dict:
    """Whether the signed-in person may open the studio, for the header every page shares (computed when used)."""
    return {"studio_access": SimpleLazyObject(lambda: may_use_studio(getattr(request, "user", None)))}
