"""The server-rendered pages of signing in, under ``/_cms/admin/`` and ``/_cms/oauth/authorize``.

Plain HTML with labelled forms that work without JavaScript, except the passkey buttons (WebAuthn is a browser API):
one small script of ours runs those. No external assets; every page is sent with a Content-Security-Policy that
allows only our own scripts and styles, ``Cache-Control: no-store``, and (globally) ``X-Frame-Options: DENY`` so a
consent page cannot be framed and clicked through. Forms are protected by Django's CSRF middleware. The pages call the
same services as the REST API.
"""

from __future__ import annotations

import functools
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST
from django.views.generic import FormView
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauth2_provider.views.base import BaseAuthorizationView
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error, InvalidScopeError

from apps.accounts import oauth, selectors, services
from apps.accounts.errors import LinkUnusable
from apps.accounts.models import ApiToken, Role, normalize_email
from apps.accounts.permissions import SCOPES, Actor, allowed_scopes
from apps.accounts.sessions import safe_next, sign_out
from apps.core import ratelimit
from apps.core.errors import CmsError, RateLimited

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; object-src 'none'; frame-ancestors 'none'"
)


def secure(response: HttpResponse) -> HttpResponse:
    """Our page headers on ``response`` (for pages rendered outside this module, such as the sign-in link's)."""
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response["Cache-Control"] = "no-store"
    return response


def page(view):
    """Our page headers on every answer of ``view``."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        return secure(view(request, *args, **kwargs))

    return wrapped


def render_page(request, template: str, context: dict | None = None, status: int = 200) -> HttpResponse:
    """``template`` with what every page shows (the site name); ``secure`` or ``page`` adds the headers."""
    return render(request, template, {"site_name": settings.CMS_SITE_NAME, **(context or {})}, status=status)


def _limited(request, group: str, key: str | None = None) -> RateLimited | None:
    try:
        ratelimit.enforce(request, group, key=key)
    except RateLimited as exc:
        return exc
    return None


def _too_many(response: HttpResponse, limited: RateLimited) -> HttpResponse:
    """A page's 429 says when to come back, as the API's do (RFC 6585 §4)."""
    response["Retry-After"] = limited.headers["Retry-After"]
    return response


# --- Signing in and out ---------------------------------------------------------------------------------------------


class EmailForm(forms.Form):
    email = forms.EmailField(max_length=254, label="Email address")


@page
def login_page(request):
    target = safe_next(request, request.GET.get("next"), settings.LOGIN_REDIRECT_URL)
    if request.user.is_authenticated:
        return HttpResponseRedirect(target)
    return render_page(
        request,
        "cms/login.html",
        {"next": target, "form": EmailForm(), "setup_open": services.setup_is_open()},
    )


@page
@require_POST
def login_link(request):
    """The magic-link form of the login page, for browsers without JavaScript as much as with."""
    form = EmailForm(request.POST)
    # Where the person was going (the login page's hidden field): kept through the link, so signing in from a consent
    # or device page by email comes back to it.
    target = safe_next(request, request.POST.get("next"), settings.LOGIN_REDIRECT_URL)
    context = {"next": target, "form": form, "setup_open": False}
    if not form.is_valid():
        return render_page(request, "cms/login.html", context, status=400)
    email = normalize_email(form.cleaned_data["email"])
    limited = _limited(request, "auth") or _limited(request, "magic_link_address", key=f"email:{email}")
    if limited is not None:
        context["error"] = limited.message
        return _too_many(render_page(request, "cms/login.html", context, status=429), limited)
    services.magic_link_request(email=email, next_url=target)
    return render_page(
        request, "cms/message.html", {"title": "Check your email", "message": _link_sent(email)}
    )


def _link_sent(email: str) -> str:
    return (
        f"If an account exists for {email}, a sign-in link is on its way. It works once, for 10 minutes. "
        "You can close this page."
    )


@page
@require_POST
def logout_page(request):
    sign_out(request)
    return redirect(settings.LOGIN_URL)


@page
def setup_page(request):
    if not services.setup_is_open():
        return redirect(settings.LOGIN_URL)
    return render_page(request, "cms/setup.html")


@page
def invite_page(request, token: str):
    try:
        invitation = services.invitation_check(token=token)
    except LinkUnusable as exc:
        return render_page(
            request, "cms/message.html", {"title": "Invitation", "message": exc.message}, status=400
        )
    if request.method == "POST":
        limited = _limited(request, "auth")
        if limited is not None:
            answer = render_page(
                request, "cms/message.html", {"title": "Invitation", "message": limited.message}, 429
            )
            return _too_many(answer, limited)
        try:
            user = services.invitation_accept_with_magic_link(
                token=token, name=request.POST.get("name", "")[:200]
            )
        except LinkUnusable as exc:
            return render_page(
                request, "cms/message.html", {"title": "Invitation", "message": exc.message}, status=400
            )
        return render_page(
            request,
            "cms/message.html",
            {
                "title": "Check your email",
                "message": f"Your account is ready. A sign-in link is on its way to {user.email}.",
            },
        )
    # The token is in this page's URL: `Referrer-Policy: same-origin` (global) keeps it from other sites.
    return render_page(
        request,
        "cms/invite.html",
        {"invitation": invitation, "token": token, "role_name": Role(invitation.role).label},
    )


# --- Account: passkeys and API tokens -------------------------------------------------------------------------------


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name")
    scopes = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES], widget=forms.CheckboxSelectMultiple, label="Scopes"
    )


@page
@login_required
def account_page(request):
    user = request.user
    actor = Actor.for_session(user)
    context: dict = {"token_form": TokenForm(), "new_token": None, "error": None}
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "rename":
                services.passkey_rename(
                    actor=actor, passkey_id=request.POST.get("passkey", ""), name=request.POST.get("name", "")
                )
                messages.success(request, "Passkey renamed.")
            elif action == "remove":
                services.passkey_delete(actor=actor, passkey_id=request.POST.get("passkey", ""))
                messages.success(request, "Passkey removed.")
            elif action == "create-token":
                form = TokenForm(request.POST)
                context["token_form"] = form
                if form.is_valid():
                    token, raw = services.api_token_create(
                        actor=actor,
                        user=user,
                        name=form.cleaned_data["name"],
                        scopes=form.cleaned_data["scopes"],
                    )
                    context["new_token"] = {"item": token, "raw": raw}
                    context["token_form"] = TokenForm()
                else:
                    status = 400
            elif action == "revoke-token":
                services.api_token_revoke(actor=actor, token_id=request.POST.get("token", ""))
                messages.success(request, "Token revoked.")
            else:
                status = 400
                context["error"] = "Unknown action."
        except CmsError as exc:
            status = exc.status
            context["error"] = exc.message
        if status == 200 and context["new_token"] is None:
            return redirect("accounts:account")  # post/redirect/get, so reloading does not repeat the action
    is_admin = user.role >= Role.ADMIN
    context.update(
        {
            "passkeys": selectors.passkey_list(actor=actor),
            "max_passkeys": settings.CMS_MAX_PASSKEYS_PER_USER,
            "is_admin": is_admin,
            "tokens": list(ApiToken.objects.filter(user=user, revoked_at__isnull=True)) if is_admin else [],
            "role_name": user.role_name,
            "scopes_allowed": [scope for scope in SCOPES if scope in allowed_scopes(user.role)],
        }
    )
    return render_page(request, "cms/account.html", context, status=status)


# Where a signed-in person finds what they can use: the studio (apps.studio, at /_cms/admin/), which tells the roles
# that may not write content so itself.
HOME = ("studio:dashboard", "the studio")


@page
def operators_console_login(request):
    """The Django admin's login URL, where it sends everyone it will not serve.

    Signed-out people sign in on our page and come back. A signed-in person who is not an admin would go round in
    circles (console → login → our page, which sends signed-in people on → console): they get a 403 page instead."""
    target = request.GET.get("next") or reverse("admin:index")
    if not request.user.is_authenticated:
        return redirect(f"{settings.LOGIN_URL}?{urlencode({'next': target})}")
    if request.user.is_staff:
        return HttpResponseRedirect(safe_next(request, target, reverse("admin:index")))
    return render_page(
        request,
        "cms/no_access.html",
        {"role_name": request.user.role_name, "home_url": reverse(HOME[0]), "home_label": HOME[1]},
        status=403,
    )


# --- Device approval (RFC 8628 §3.3) --------------------------------------------------------------------------------


@page
@login_required
def device_page(request):
    code = request.POST.get("user_code") if request.method == "POST" else request.GET.get("user_code")
    if not code:
        return render_page(request, "cms/device.html", {"stage": "enter"})
    limited = _limited(request, "auth")  # a user code is short; make guessing slow
    if limited is not None:
        answer = render_page(
            request, "cms/device.html", {"stage": "enter", "error": limited.message}, status=429
        )
        return _too_many(answer, limited)
    decision = request.POST.get("decision") if request.method == "POST" else None
    if decision in {"approve", "deny"}:
        try:
            grant = services.device_grant_decide(
                actor=Actor.for_session(request.user),
                user_code=code,
                approve=decision == "approve",
                scopes=request.POST.getlist("scope"),
            )
        except LinkUnusable as exc:
            return render_page(
                request, "cms/device.html", {"stage": "enter", "error": exc.message}, status=400
            )
        except CmsError as exc:
            return _device_confirm(request, code, error=exc.message, status=exc.status)
        return render_page(
            request, "cms/device.html", {"stage": "done", "approved": decision == "approve", "grant": grant}
        )
    return _device_confirm(request, code)


def _device_confirm(request, code: str, *, error: str | None = None, status: int = 200):
    try:
        grant = services.device_grant_pending(user_code=code)
    except LinkUnusable as exc:
        return render_page(request, "cms/device.html", {"stage": "enter", "error": exc.message}, status=400)
    application = oauth.application_for(grant.client_id)
    if application is None:
        message = services.oauth_clients.DEVICE_MESSAGES["unknown"]
        return render_page(request, "cms/device.html", {"stage": "enter", "error": message}, status=400)
    offered = oauth.grantable_scopes(grant.scope.split(), application=application, user=request.user)
    refused = [scope for scope in grant.scope.split() if scope not in offered]
    return render_page(
        request,
        "cms/device.html",
        {
            "stage": "confirm",
            "user_code": oauth.format_user_code(grant.user_code),
            "application": application,
            "scopes": oauth.consent_choices(offered, ticked=oauth.preticked(offered)),
            "refused": refused,
            "error": error,
        },
        status=status,
    )


# --- OAuth consent (RFC 6749 §4.1.1, §4.1.2) ------------------------------------------------------------------------


class ConsentForm(forms.Form):
    # The validated authorization request, signed: the browser sends it back but cannot change it, so only the
    # scope boxes (a subset of what was offered) and the decision come from the form.
    request = forms.CharField(widget=forms.HiddenInput())
    scope = forms.MultipleChoiceField(
        choices=[(scope, scope) for scope in SCOPES], required=False, widget=forms.CheckboxSelectMultiple
    )


CONSENT_SALT = "cms.oauth.consent"
# As long as a code would live: a consent page left open longer asks the user to start again.
CONSENT_MAX_AGE = settings.OAUTH2_PROVIDER["AUTHORIZATION_CODE_EXPIRE_SECONDS"]
CONSENT_KEYS = (
    "client_id",
    "redirect_uri",
    "response_type",
    "state",
    "code_challenge",
    "code_challenge_method",
)


def add_iss(uri: str) -> str:
    """RFC 9207: name the issuer in every authorization response, so a client talking to several servers can tell
    which one answered (mix-up attacks, RFC 9700 §4.4)."""
    parts = urlsplit(uri)
    query = [(key, value) for key, value in parse_qsl(parts.query, keep_blank_values=True) if key != "iss"]
    query.append(("iss", oauth.issuer()))
    return urlunsplit(parts._replace(query=urlencode(query)))


@method_decorator(page, name="dispatch")
class AuthorizeView(BaseAuthorizationView, FormView):
    """The authorization endpoint: checks the request (client, exact redirect URI, PKCE S256, scopes, resource),
    shows the client and the scopes the user may grant as checkboxes, and redirects back with a code or an error."""

    template_name = "cms/authorize.html"
    form_class = ConsentForm

    def redirect(self, redirect_to, application):
        # Only ever called for a redirect URI oauthlib has matched against the client's registration.
        return super().redirect(add_iss(redirect_to), application)

    def _redirect_error(self, error, credentials: dict, application):
        return self.error_response(
            OAuthToolkitError(error=error, redirect_uri=credentials["redirect_uri"]), application
        )

    def get(self, request, *args, **kwargs):
        try:
            scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        application = get_application_model().objects.get(client_id=credentials["client_id"])
        offered = oauth.grantable_scopes(scopes, application=application, user=request.user)
        if not offered:
            return self._redirect_error(
                InvalidScopeError(
                    description="None of the requested scopes can be granted to this user.",
                    state=credentials.get("state"),
                ),
                credentials,
                application,
            )
        resources = [oauth.canonical_resource(item) for item in request.GET.getlist("resource")]
        if None in resources:
            return self._redirect_error(_invalid_target(credentials), credentials, application)
        signed = signing.dumps(
            {
                **{key: credentials.get(key) or "" for key in CONSENT_KEYS},
                "resource": resources or [oauth.rest_resource()],
                "scopes": offered,
                "user": request.user.pk,
            },
            salt=CONSENT_SALT,
        )
        form = ConsentForm(initial={"request": signed, "scope": oauth.preticked(offered)})
        return self._consent_page(form, application, offered, scopes, credentials["redirect_uri"])

    def _consent_page(self, form, application, offered, requested, redirect_uri, *, error=None, status=200):
        refused = [scope for scope in requested if scope not in offered]
        ticked = form.initial["scope"]
        return render_page(
            self.request,
            self.template_name,
            {
                "form": form,
                "application": application,
                "client_name": application.name or application.client_id,
                "scopes": oauth.consent_choices(offered, ticked=ticked),
                "refused": refused,
                "redirect_host": urlsplit(redirect_uri).netloc,
                "form_error": error,
            },
            status=status,
        )

    def post(self, request, *args, **kwargs):
        form = ConsentForm(request.POST)
        try:
            if not form.is_valid():
                raise signing.BadSignature("incomplete form")
            data = signing.loads(form.cleaned_data["request"], salt=CONSENT_SALT, max_age=CONSENT_MAX_AGE)
            if data["user"] != request.user.pk:
                raise signing.BadSignature("another user's form")
        except signing.BadSignature:
            message = "This authorization form is not valid any more. Start again from the application."
            return render_page(
                request, "cms/message.html", {"title": "Authorization", "message": message}, 400
            )
        application = get_application_model().objects.filter(client_id=data["client_id"]).first()
        if application is None or not application.redirect_uri_allowed(data["redirect_uri"]):
            message = "The application is no longer registered here."
            return render_page(
                request, "cms/message.html", {"title": "Authorization", "message": message}, 400
            )
        credentials = {key: data[key] for key in CONSENT_KEYS if data.get(key)}
        credentials["resource"] = data["resource"]
        allow = request.POST.get("decision") == "approve"
        scopes = [
            scope for scope in SCOPES if scope in form.cleaned_data["scope"] and scope in data["scopes"]
        ]
        if allow and not scopes:
            return self._consent_page(
                ConsentForm(initial={"request": form.cleaned_data["request"], "scope": []}),
                application,
                data["scopes"],
                data["scopes"],
                data["redirect_uri"],
                error="Choose at least one permission, or deny the request.",
                status=400,
            )
        try:
            uri, _headers, _body, _status = self.create_authorization_response(
                request=request, scopes=" ".join(scopes), credentials=credentials, allow=allow
            )
        except OAuthToolkitError as error:
            return self.error_response(error, application)
        return self.redirect(uri, application)


def _invalid_target(credentials: dict):
    return CustomOAuth2Error(
        error="invalid_target",
        description=f"Unknown resource; this server issues tokens for {oauth.rest_resource()} and {oauth.mcp_resource()}.",
        state=credentials.get("state"),
    )
