"""``/_cms/api/auth/…`` and ``/_cms/api/setup/…``: sign-in with passkeys and magic links, sessions, invitations,
one's own passkeys, and first-admin setup (SPEC §4.9).

Endpoints that start a session for an anonymous caller check Django's CSRF token themselves (``enforce_csrf``);
DRF checks it for every unsafe request of a signed-in session. Options endpoints and magic-link requests are in the
``auth`` rate-limit group; magic-link requests are also limited per address.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseRedirect
from django.middleware.csrf import get_token
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.parsers import FormParser, MultiPartParser

from apps.accounts import pages, selectors, services
from apps.accounts.authentication import enforce_csrf
from apps.accounts.errors import LinkUnusable
from apps.accounts.inputs import (
    CredentialIn,
    EmptyIn,
    InviteAcceptMagicLinkIn,
    InviteAcceptOptionsIn,
    InviteAcceptVerifyIn,
    InviteIn,
    MagicLinkConsumeIn,
    MagicLinkPageIn,
    MagicLinkSendIn,
    NewPasskeyIn,
    PasskeyRenameIn,
    SetupOptionsIn,
    credential_of,
)
from apps.accounts.models import normalize_email
from apps.accounts.permissions import actor_from_request
from apps.accounts.presenters import (
    AuthenticationOptionsOut,
    AuthMessageOut,
    InvitationCreatedOut,
    MeOut,
    PasskeyItemOut,
    PasskeyListOut,
    RegistrationOptionsOut,
    SetupStatusOut,
    SignedInOut,
    present_invitation_created,
    present_me,
    present_passkey_item,
    present_passkeys,
    present_signed_in,
)
from apps.accounts.services.magic_links import MESSAGES as LINK_MESSAGES
from apps.accounts.sessions import safe_next, sign_in, sign_out
from apps.core import ratelimit
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.errors import ValidationError
from apps.core.presenters import SUCCESS, SuccessFlagOut

LINK_SENT = (
    "If an account exists for that address, a sign-in link is on its way. It works once, for 10 minutes."
)

HTML_PAGE = OpenApiResponse(OpenApiTypes.STR, description="An HTML page.")


def _signed_in(request, user) -> SignedInOut:
    sign_in(request, user)
    return present_signed_in(user)


# --- Setup ----------------------------------------------------------------------------------------------------------


class SetupStatusView(CmsAPIView):
    @endpoint("public", response=SetupStatusOut, summary="Whether setup is complete and whether users exist")
    def get(self, request):
        return ok(selectors.setup_status())


class SetupPasskeyOptionsView(CmsAPIView):
    @endpoint(
        "public",
        body=SetupOptionsIn,
        response=RegistrationOptionsOut,
        ratelimit="auth",
        errors=(403,),
        summary="Passkey registration options for the first admin (only while no user exists)",
    )
    def post(self, request):
        return ok(services.setup_begin(email=self.body["email"], name=self.body.get("name", "")))


class SetupPasskeyVerifyView(CmsAPIView):
    @endpoint(
        "public",
        body=NewPasskeyIn,
        response=SignedInOut,
        status=201,
        errors=(403, 409),
        summary="Create the first admin with this passkey and sign in",
    )
    def post(self, request):
        enforce_csrf(request)
        user = services.setup_finish(credential=credential_of(self.body), passkey_name=self.body.get("name"))
        return ok(_signed_in(request, user), status=201)


# --- Passkey sign-in, session ---------------------------------------------------------------------------------------


class PasskeyOptionsView(CmsAPIView):
    @endpoint(
        "public",
        body=EmptyIn,
        response=AuthenticationOptionsOut,
        ratelimit="auth",
        summary="WebAuthn options to sign in with a passkey",
    )
    def post(self, request):
        return ok(services.passkey_sign_in_begin())


class PasskeyVerifyView(CmsAPIView):
    @endpoint(
        "public",
        body=CredentialIn,
        response=SignedInOut,
        errors=(401, 403),
        summary="Verify a passkey assertion and start a session",
    )
    def post(self, request):
        enforce_csrf(request)
        user = services.passkey_sign_in_finish(credential=credential_of(self.body))
        return ok(_signed_in(request, user))


class LogoutView(CmsAPIView):
    @endpoint("public", body=EmptyIn, response=SuccessFlagOut, errors=(403,), summary="End the session")
    def post(self, request):
        sign_out(request)
        return ok(SUCCESS)


class MeView(CmsAPIView):
    @endpoint("signed_in", response=MeOut, summary="The current user and how they are authenticated")
    def get(self, request):
        return ok(present_me(actor_from_request(request)))


# --- Magic links ----------------------------------------------------------------------------------------------------


class MagicLinkSendView(CmsAPIView):
    @endpoint(
        "public",
        body=MagicLinkSendIn,
        response=AuthMessageOut,
        ratelimit="auth",
        summary="Mail a sign-in link (the same answer whether or not the address has an account)",
    )
    def post(self, request):
        email = normalize_email(self.body["email"])
        target = self.body.get("next", "")
        if target and safe_next(request, target, "") != target:
            raise ValidationError(
                details={"next": "Must be a path on this site, such as /_cms/admin/device."}
            )
        ratelimit.enforce(request, "magic_link_address", key=f"email:{email}")
        services.magic_link_request(email=email, next_url=target)
        return ok({"message": LINK_SENT})


class MagicLinkVerifyView(CmsAPIView):
    """The link in the mail. GET only shows a page; its button POSTs the token back here, which signs in."""

    parser_classes = [FormParser, MultiPartParser]

    @endpoint(
        "public",
        query=MagicLinkPageIn,
        response=HTML_PAGE,
        media_type="text/html",
        error_bodies={(400, "text/html"): HTML_PAGE},
        summary="The page a sign-in link opens (does not use the link)",
    )
    def get(self, request):
        token = self.query.get("token", "")
        state, link = services.magic_link_status(token=token)
        return _link_page(request, state, token, link.user if link else None)

    @endpoint(
        "public",
        body=MagicLinkConsumeIn,
        status=303,
        response=None,
        errors=(403,),
        error_bodies={(400, "text/html"): HTML_PAGE},
        summary="Use the sign-in link: start a session and go where the user was going (else the account page)",
    )
    def post(self, request):
        enforce_csrf(request)
        token = self.body.get("token", "")
        try:
            link = services.magic_link_consume(token=token)
        except LinkUnusable as exc:
            return _link_page(request, exc.reason, token, None)
        sign_in(request, link.user)
        # Checked when the link was asked for, and again here: the stored value is only ever a path on this site.
        target = safe_next(request, link.next_url, settings.LOGIN_REDIRECT_URL)
        return pages.secure(HttpResponseRedirect(target, status=303))


def _link_page(request, state: str, token: str, owner):
    """The page a sign-in link opens, with the same headers as the sign-in pages (CSP, no-store).

    ``owner`` is the link's user, named on the page as a question; the header still shows who is actually signed in
    (``user`` is the visitor's, from the context processor)."""
    django_request = request._request
    get_token(django_request)  # the page's form needs the CSRF cookie
    context = {"state": state, "token": token, "owner": owner, "message": LINK_MESSAGES.get(state, "")}
    # The token is in this page's URL; the global `Referrer-Policy: same-origin` keeps it from other sites. (Not
    # `no-referrer`: browsers then send `Origin: null` with the form, which the CSRF check rightly refuses.)
    status = 200 if state == "valid" else 400
    return pages.secure(pages.render_page(django_request, "cms/magic_link.html", context, status=status))


# --- Invitations ----------------------------------------------------------------------------------------------------


class InviteView(CmsAPIView):
    @endpoint(
        "users.invite",
        body=InviteIn,
        response=InvitationCreatedOut,
        status=201,
        summary="Invite someone by mail with a role (admins; not above their own role)",
    )
    def post(self, request):
        invitation, token = services.invitation_create(
            actor=actor_from_request(request), email=self.body["email"], role=self.body["role"]
        )
        return ok(present_invitation_created(invitation, services.invitation_url(token)), status=201)


class InviteAcceptOptionsView(CmsAPIView):
    @endpoint(
        "public",
        body=InviteAcceptOptionsIn,
        response=RegistrationOptionsOut,
        ratelimit="auth",
        summary="Passkey registration options for accepting an invitation",
    )
    def post(self, request):
        return ok(services.invitation_accept_begin(token=self.body["token"], name=self.body.get("name", "")))


class InviteAcceptVerifyView(CmsAPIView):
    @endpoint(
        "public",
        body=InviteAcceptVerifyIn,
        response=SignedInOut,
        status=201,
        errors=(403, 409),
        summary="Accept an invitation with a new passkey: creates the user and signs in",
    )
    def post(self, request):
        enforce_csrf(request)
        user = services.invitation_accept_finish(
            token=self.body["token"], credential=credential_of(self.body), passkey_name=self.body.get("name")
        )
        return ok(_signed_in(request, user), status=201)


class InviteAcceptMagicLinkView(CmsAPIView):
    @endpoint(
        "public",
        body=InviteAcceptMagicLinkIn,
        response=AuthMessageOut,
        status=201,
        ratelimit="auth",
        errors=(409,),
        summary="Accept an invitation without a passkey: creates the user and mails a sign-in link",
    )
    def post(self, request):
        user = services.invitation_accept_with_magic_link(
            token=self.body["token"], name=self.body.get("name", "")
        )
        return ok(
            {"message": f"Your account is ready. A sign-in link is on its way to {user.email}."}, status=201
        )


# --- One's own passkeys ---------------------------------------------------------------------------------------------


class PasskeyViewSet(CmsViewSet):
    @endpoint("account.manage", response=PasskeyListOut, summary="Your passkeys")
    def list(self, request):
        return ok(present_passkeys(selectors.passkey_list(actor=actor_from_request(request))))

    @endpoint("account.manage", body=PasskeyRenameIn, response=PasskeyItemOut, summary="Rename a passkey")
    def partial_update(self, request, pk: str):
        # PATCH validates partially; a rename without a name is a mistake, not a no-op.
        if "name" not in self.body:
            raise ValidationError(details={"name": "This field is required."})
        passkey = services.passkey_rename(
            actor=actor_from_request(request), passkey_id=pk, name=self.body["name"]
        )
        return ok(present_passkey_item(passkey))

    @endpoint(
        "account.manage",
        response=SuccessFlagOut,
        errors=(409,),
        summary="Remove a passkey (not your last one)",
    )
    def destroy(self, request, pk: str):
        services.passkey_delete(actor=actor_from_request(request), passkey_id=pk)
        return ok(SUCCESS)


class PasskeyRegisterOptionsView(CmsAPIView):
    @endpoint(
        "account.manage",
        body=EmptyIn,
        response=RegistrationOptionsOut,
        ratelimit="auth",
        errors=(409,),
        summary="WebAuthn options to add a passkey to your account",
    )
    def post(self, request):
        return ok(services.passkey_register_begin(actor=actor_from_request(request)))


class PasskeyRegisterVerifyView(CmsAPIView):
    @endpoint(
        "account.manage",
        body=NewPasskeyIn,
        response=PasskeyItemOut,
        status=201,
        errors=(409,),
        summary="Verify and store a new passkey",
    )
    def post(self, request):
        body = self.body
        passkey = services.passkey_register_finish(
            actor=actor_from_request(request), credential=credential_of(body), name=body.get("name")
        )
        return ok(present_passkey_item(passkey), status=201)
