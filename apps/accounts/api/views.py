"""``/_cms/api/admin/api-tokens``: list, create (the token is shown once) and revoke personal access tokens."""

from __future__ import annotations

from apps.accounts import selectors, services
from apps.accounts.inputs import TokenCreateIn, TokenListIn
from apps.accounts.permissions import actor_from_request
from apps.accounts.presenters import TokenCreatedOut, TokenOut, present_token, present_token_created
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.errors import NotFound, ValidationError
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import paged


class ApiTokenViewSet(CmsViewSet):
    @endpoint("tokens.manage", query=TokenListIn, response=paged(TokenOut), summary="List active API tokens")
    def list(self, request):
        page = selectors.api_token_list(
            actor=actor_from_request(request),
            user_id=self.query.get("userId"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_token))

    @endpoint(
        "tokens.manage",
        body=TokenCreateIn,
        response=TokenCreatedOut,
        status=201,
        summary="Create an API token",
    )
    def create(self, request):
        owner = request.user
        if self.body.get("userId"):
            try:
                owner = selectors.user_get(user_id=self.body["userId"])
            except NotFound as exc:
                raise ValidationError(details={"userId": exc.message}) from exc
        token, raw = services.api_token_create(
            actor=actor_from_request(request),
            user=owner,
            name=self.body["name"],
            scopes=self.body["scopes"],
            expires_at=self.body.get("expiresAt"),
        )
        return ok(present_token_created(token, raw), status=201)

    @endpoint("tokens.manage", response=SuccessFlagOut, summary="Revoke an API token")
    def destroy(self, request, pk: str):
        services.api_token_revoke(actor=actor_from_request(request), token_id=pk)
        return ok(SUCCESS)
