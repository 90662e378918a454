"""People (admins): users with their role and state, the pending invitations, inviting by email with a role,
changing a role, disabling and enabling.

Reads go through apps.accounts.selectors, writes through apps.accounts.services, which hold every rule (nobody
demotes or disables themselves, the last active admin stays one, nobody invites above their own role); their
messages are shown as they are. When mail goes nowhere but the console, the invitation's accept link is shown once
on the page, so a site owner without mail can pass it on."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse

from apps.accounts import selectors, services
from apps.accounts.inputs import InviteIn, UserListIn, UserUpdateIn
from apps.accounts.models import Role
from apps.accounts.permissions import authorize
from apps.core import shapes
from apps.core.errors import CmsError
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

SECTION = "people"
TEMPLATE = "studio/admin/people.html"
PAGE_SIZE = 25
CONSOLE_MAIL = "django.core.mail.backends.console.EmailBackend"


def _mail_goes_nowhere() -> bool:
    return settings.EMAIL_BACKEND == CONSOLE_MAIL


def _url(request, **changes) -> str:
    params = request.GET.copy()
    for name, value in changes.items():
        params.pop(name, None)
        if value is not None:
            params[name] = value
    encoded = params.urlencode()
    return f"{request.path}?{encoded}" if encoded else request.path


def _filters(request) -> tuple[dict, str | None]:
    """The list's filters from the query string, parsed as ``GET /admin/users`` parses them."""
    given = {key: request.GET.get(key, "").strip() for key in ("role", "search", "cursor")}
    try:
        return shapes.validate(UserListIn, {k: v for k, v in given.items() if v}).model_dump(), None
    except CmsError as exc:
        details = exc.details if isinstance(exc.details, dict) else {}
        return {"role": None, "search": None, "cursor": None, "limit": PAGE_SIZE}, "; ".join(
            f"{key}: {message}" for key, message in details.items()
        ) or exc.message


def _page(request, *, invite=None, invited=None, errors=None, status=200):
    actor = request.actor
    query, filter_error = _filters(request)
    page = selectors.user_list(
        actor=actor, role=query["role"], search=query["search"], cursor=query["cursor"], limit=PAGE_SIZE
    )
    # Invitations are few: listed whole on the first page, after the users.
    pending = (
        []
        if query["cursor"]
        else selectors.invitation_list_pending(actor=actor, role=query["role"], search=query["search"])
    )
    context = {
        "users": page.items,
        "pending": pending,
        "roles": [(value, label) for value, label in Role.choices],
        "invite_roles": [(value, label) for value, label in Role.choices if value <= actor.role],
        "role_filter": query["role"],
        "search": query["search"] or "",
        "filter_error": filter_error,
        "next_url": _url(request, cursor=page.next_cursor) if page.next_cursor else None,
        "first_url": _url(request, cursor=None) if query["cursor"] else None,
        "me": actor.user_id,
        "invite": invite or {"email": "", "role": Role.AUTHOR},
        "invited": invited,
        "errors": errors or {},
        "query": request.GET.urlencode(),
    }
    return render_studio(request, TEMPLATE, context, section=SECTION, status=status)


@studio_page
def people_page(request):
    authorize(request.actor, "users.manage")
    return _page(request)


@studio_page
def people_invite(request):
    authorize(request.actor, "users.invite")
    if request.method != "POST":
        return redirect("studio:people")
    given = {"email": request.POST.get("email", "").strip(), "role": request.POST.get("role", "")}
    try:
        body = shapes.validate(InviteIn, given).model_dump()
        invitation, token = services.invitation_create(
            actor=request.actor, email=body["email"], role=body["role"]
        )
    except CmsError as exc:
        if exc.status != 400:
            raise
        details = exc.details if isinstance(exc.details, dict) else {}
        errors = {key: str(message) for key, message in details.items()} or {"invite": exc.message}
        return _page(request, invite=given, errors=errors, status=400)
    role_name = Role(invitation.role).label
    if not _mail_goes_nowhere():
        messages.success(
            request, f"Invited {invitation.email} as {role_name}: the invitation is on its way by mail."
        )
        return redirect("studio:people")
    # Shown once, not redirected: the link is a secret that the next page load must not show again.
    invited = {"email": invitation.email, "role": role_name, "url": services.invitation_url(token)}
    return _page(request, invited=invited)


def _back(request) -> str:
    """Back to the list as it was: the forms post to an address carrying the list's query string."""
    query = request.GET.urlencode()
    return f"{reverse('studio:people')}?{query}" if query else reverse("studio:people")


def _refused(request, user, exc: CmsError):
    """The list again with the service's message next to the person it concerns (the last admin, oneself)."""
    if exc.status != 400:
        raise exc
    return _page(request, errors={"person": user.pk, "message": exc.message}, status=400)


@studio_page
def person_role(request, user_id: str):
    authorize(request.actor, "users.manage")
    if request.method != "POST":
        return redirect(_back(request))
    user = selectors.user_read(actor=request.actor, user_id=user_id)
    try:
        role = shapes.validate(UserUpdateIn, {"role": request.POST.get("role", "")}).model_dump()["role"]
        user = services.user_update(actor=request.actor, user=user, role=role)
    except CmsError as exc:
        return _refused(request, user, exc)
    messages.success(request, f"{user.email} is now {user.role_name}.")
    return redirect(_back(request))


@studio_page
def person_active(request, user_id: str, action: str):
    authorize(request.actor, "users.manage")
    if request.method != "POST" or action not in ("enable", "disable"):
        return redirect(_back(request))
    user = selectors.user_read(actor=request.actor, user_id=user_id)
    try:
        user = services.user_set_active(actor=request.actor, user=user, active=action == "enable")
    except CmsError as exc:
        return _refused(request, user, exc)
    messages.success(request, f"{'Enabled' if user.is_active else 'Disabled'} {user.email}.")
    return redirect(_back(request))
