"""Who may do what: one table of operations, each with the scope a token needs and the role a user needs.

Two checks always apply (docs/architecture.md §4): the credential's scopes (SPEC §5; a session has every scope) and the user's
role (10 subscriber … 50 admin). Some operations also distinguish the user's own objects from other people's: a
contributor edits their own entries, an editor anyone's. REST views name their operation in ``@endpoint``; MCP tools
and the admin pages name the same operations, so all faces enforce the same rules. An operation missing from the
table needs ``admin`` (fail closed). Decisions where SPEC is silent are listed in docs/decisions.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rest_framework.permissions import BasePermission

from apps.accounts.models import Role, User
from apps.core.errors import Forbidden, Unauthorized

SCOPES = (
    "content:read",
    "content:write",
    "media:read",
    "media:write",
    "schema:read",
    "schema:write",
    "admin",
)
ALL_SCOPES = frozenset(SCOPES)

# What an agent gets unless it asks for more (least privilege; SPEC §5 lists the scopes but not a default): everything
# but the two scopes that change the service itself. The 401 challenges name it, so spec-following MCP clients ask for
# it; a client registered without `scope`, and an authorization request without one, get it.
DEFAULT_SCOPES = ("content:read", "content:write", "media:read", "media:write", "schema:read")
# Never ticked for the user on a consent page: granting them takes a deliberate tick, next to a warning.
DELIBERATE_SCOPES = frozenset(SCOPES) - frozenset(DEFAULT_SCOPES)

# The lowest role that can make use of each scope (SPEC §5 minimum roles); tokens and OAuth grants never carry a scope
# beyond their user's role.
SCOPE_MIN_ROLE = {
    "content:read": Role.SUBSCRIBER,
    "content:write": Role.CONTRIBUTOR,
    "media:read": Role.SUBSCRIBER,
    "media:write": Role.AUTHOR,
    "schema:read": Role.EDITOR,
    "schema:write": Role.ADMIN,
    "admin": Role.ADMIN,
}


@dataclass(frozen=True)
class Rule:
    # The scope a token must carry; None for operations that need no scope (public, or any signed-in user).
    scope: str | None
    min_role: int = Role.SUBSCRIBER
    # The role needed to act on objects owned by someone else; None when ownership does not matter.
    any_role: int | None = None
    # Reachable without credentials.
    public: bool = False
    # Also readable without credentials (issue 22, docs/decisions.md "Public reads and caching"), by the anonymous actor,
    # but only what the selector vouches is public (``authorize(..., public=...)``): published entries of a collection
    # marked public, and the site-wide reads a front end renders with (menus, terms, sections, widgets, settings,
    # search) while at least one collection is public. Everything else stays 401 without a token.
    anonymous: bool = False


RULES: dict[str, Rule] = {
    "public": Rule(scope=None, public=True),
    "signed_in": Rule(scope=None),
    "tokens.manage": Rule("admin", Role.ADMIN),
    # One's own passkeys: any role, but a token needs the `admin` scope, so a leaked content token cannot
    # remove or add sign-in credentials (browser sessions have every scope).
    "account.manage": Rule("admin", Role.SUBSCRIBER),
    "users.invite": Rule("admin", Role.ADMIN),
}

FAIL_CLOSED = Rule("admin", Role.ADMIN)

# Whether anything is public at all (a collection is; registered by the schema app, which knows): while nothing is,
# requests without credentials are refused at the door, before their input is even looked at.
_public_site: list[Callable[[], bool]] = [lambda: False]


def rule_for(operation: str) -> Rule:
    return RULES.get(operation, FAIL_CLOSED)


def register_public_site(check: Callable[[], bool]) -> None:
    _public_site[0] = check


def public_site() -> bool:
    """Whether anything at all is readable without credentials."""
    return _public_site[0]()


def register(rules: dict[str, Rule]) -> None:
    """Domain apps add their operations from ``AppConfig.ready()``; a name may be defined once."""
    for name, rule in rules.items():
        if name in RULES and RULES[name] != rule:
            raise ValueError(f"permission operation {name!r} is already defined differently")
        RULES[name] = rule


@dataclass(frozen=True)
class Actor:
    """Who is acting and with which scopes: a token's user and its scopes, a session user, or the system itself."""

    user: User | None
    scopes: frozenset[str] = field(default_factory=frozenset)
    via: str = "token"
    token_id: str | None = None

    @property
    def anonymous(self) -> bool:
        return self.via == "anonymous"

    @classmethod
    def system(cls) -> Actor:
        """Management commands, the worker and the importer: every scope, admin role, no user."""
        return cls(user=None, scopes=ALL_SCOPES, via="system")

    @classmethod
    def for_session(cls, user: User) -> Actor:
        return cls(user=user, scopes=ALL_SCOPES, via="session")

    @classmethod
    def for_oauth(cls, token) -> Actor:
        """An OAuth access token of django-oauth-toolkit: its user and the scopes granted to it."""
        return cls(
            user=token.user, scopes=frozenset(token.scope.split()), via="oauth", token_id=str(token.pk)
        )

    @property
    def user_id(self) -> str | None:
        return self.user.pk if self.user else None

    @property
    def role(self) -> int:
        return Role.ADMIN if self.via == "system" else (self.user.role if self.user else 0)

    def has_scope(self, scope: str | None) -> bool:
        return scope is None or "admin" in self.scopes or scope in self.scopes

    def has_role(self, role: int) -> bool:
        return self.role >= role


# No user, no scope, no role: it passes only the anonymous rules, and only for what the selector says is public.
ANONYMOUS = Actor(user=None, via="anonymous")


def require_credentials(actor: Actor | None) -> None:
    """401 for a reader without credentials, where a signed-in reader would be told more (403, or a list of names)."""
    if actor is None or actor.anonymous:
        raise Unauthorized()


def _role_label(role: int) -> str:
    return f"{Role(role).label} ({role})" if role in Role.values else str(role)


def authorize(
    actor: Actor | None,
    operation: str,
    *,
    owner_id: str | None = None,
    public: bool | Callable[[], bool] = False,
) -> None:
    """Raise Unauthorized or Forbidden unless ``actor`` may perform ``operation`` (on an object of ``owner_id``).

    ``public`` says whether what is read is public (a published entry's collection is public; the site has a public
    collection): the anonymous reader passes an operation whose rule is ``anonymous`` only then. A callable is asked
    only for the anonymous reader, so readers with credentials pay nothing for it."""
    rule = rule_for(operation)
    if rule.public:
        return
    if actor is None or actor.anonymous:
        if actor is not None and rule.anonymous and (public() if callable(public) else public):
            return
        raise Unauthorized()
    if not actor.has_scope(rule.scope):
        raise Forbidden(f"Insufficient scope: requires {rule.scope}.", details={"requiredScope": rule.scope})
    if not actor.has_role(rule.min_role):
        raise Forbidden(
            f"This requires the role {_role_label(rule.min_role)} or higher; you are {_role_label(actor.role)}.",
            details={"requiredRole": rule.min_role},
        )
    others = owner_id is not None and rule.any_role is not None and owner_id != actor.user_id
    if others and not actor.has_role(rule.any_role):
        raise Forbidden(
            f"Only {_role_label(rule.any_role)} or higher may do this to items that belong to someone else.",
            details={"requiredRole": rule.any_role},
        )


def can(actor: Actor | None, operation: str, *, owner_id: str | None = None) -> bool:
    try:
        authorize(actor, operation, owner_id=owner_id)
    except (Unauthorized, Forbidden):
        return False
    return True


def allowed_scopes(role: int) -> frozenset[str]:
    return frozenset(scope for scope, needed in SCOPE_MIN_ROLE.items() if role >= needed)


def actor_from_request(request) -> Actor | None:
    """The Actor of a DRF request, built once from what authentication found."""
    actor = getattr(request, "_cms_actor", None)
    if actor is None:
        actor = getattr(request, "cms_actor", None)  # set by BearerTokenAuthentication
        user = getattr(request, "user", None)
        if actor is None and user is not None and user.is_authenticated:
            actor = Actor.for_session(user)
        request._cms_actor = actor
        if actor is not None:
            request._request._cms_user_id = actor.user_id  # for the request log line
    return actor


class OperationPermission(BasePermission):
    """DRF's hook: the coarse check (scope and minimum role) before the handler runs. Object checks are in services."""

    def has_permission(self, request, view) -> bool:
        spec = view.get_endpoint() if hasattr(view, "get_endpoint") else None
        operation = spec.operation if spec else "__undeclared__"
        actor = actor_from_request(request)
        if actor is None and rule_for(operation).anonymous and public_site():
            # Without credentials on an operation open to anonymous readers: the selector decides with what it reads
            # (``authorize(..., public=...)``), which this coarse check cannot know yet.
            request._cms_actor = ANONYMOUS
            return True
        authorize(actor, operation)
        return True

    def is_public_operation(self, operation: str) -> bool:
        return rule_for(operation).public

    def is_anonymous_operation(self, operation: str) -> bool:
        return rule_for(operation).anonymous
