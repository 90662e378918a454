"""``/_cms/api/admin/users…`` (SPEC §4.8): list, read, rename and change the role of users, enable and disable them.
Admins only."""

from __future__ import annotations

from apps.accounts import selectors, services
from apps.accounts.inputs import UserListIn, UserUpdateIn
from apps.accounts.permissions import actor_from_request
from apps.accounts.presenters import UserOut, present_user
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.core.shapes import paged


class UserViewSet(CmsViewSet):
    @endpoint("users.manage", query=UserListIn, response=paged(UserOut), summary="List users")
    def list(self, request):
        """By email; ``role`` keeps one role, ``search`` matches the email or name."""
        page = selectors.user_list(
            actor=actor_from_request(request),
            role=self.query.get("role"),
            search=self.query.get("search"),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
        )
        return ok(page.to_data(present_user))

    @endpoint("users.manage", response=UserOut, summary="Get a user")
    def retrieve(self, request, pk: str):
        return ok(present_user(selectors.user_read(actor=actor_from_request(request), user_id=pk)))

    @endpoint("users.manage", body=UserUpdateIn, response=UserOut, summary="Change a user's name or role")
    def partial_update(self, request, pk: str):
        """You cannot demote yourself, and the last active admin cannot be demoted."""
        user = services.user_update(
            actor=actor_from_request(request),
            user=selectors.user_get(user_id=pk),
            name=self.body.get("name"),
            role=self.body.get("role"),
        )
        return ok(present_user(user))

    @endpoint("users.manage", response=UserOut, summary="Enable a user")
    def enable(self, request, pk: str):
        user = services.user_set_active(
            actor=actor_from_request(request), user=selectors.user_get(user_id=pk), active=True
        )
        return ok(present_user(user))

    @endpoint("users.manage", response=UserOut, summary="Disable a user")
    def disable(self, request, pk: str):
        """The user's tokens and sessions stop working at once. You cannot disable yourself or the last active
        admin."""
        user = services.user_set_active(
            actor=actor_from_request(request), user=selectors.user_get(user_id=pk), active=False
        )
        return ok(present_user(user))
