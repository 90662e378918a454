"""The lifecycle of SPEC §3 as data: which actions apply to an entry in which state, and what they lead to.

Services ask ``check(action, entry)`` before writing; a refusal is INVALID_TRANSITION (400) with a message that says
why and what to do instead. The table is the single source: REST, MCP, the admin actions and the worker all go through
the services that consult it. Code that selects many entries for an action (the scheduled-publishing worker) selects
with ``permits(action)``, the same table as a query filter, and still checks each row it then holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q

from apps.accounts.permissions import Actor, can
from apps.content.errors import InvalidTransition
from apps.content.models import Entry, Status

ANY = frozenset({Status.DRAFT, Status.PUBLISHED, Status.SCHEDULED})


@dataclass(frozen=True)
class Transition:
    # Statuses the entry may have; trashed entries are refused unless `in_trash` says otherwise.
    from_statuses: frozenset[str]
    # The status afterwards; None keeps the current one.
    to: str | None
    # "forbidden" (default): refused in the trash; "required": only in the trash; "either".
    in_trash: str = "forbidden"
    # Needs a published version (live_data) to exist.
    needs_live: bool = False
    refusal: str = ""
    # A feature the entry's collection must support (``Collection.supports``); the service refuses it otherwise.
    feature: str | None = None
    # The operation of the permission table that guards the action (checked with the entry's author as owner).
    operation: str = "content.update"
    # Acting on someone else's entry is the same as on one's own (a duplicate belongs to whoever makes it).
    owned: bool = True


TRANSITIONS: dict[str, Transition] = {
    "update": Transition(ANY, None),
    "publish": Transition(ANY, Status.PUBLISHED, operation="content.publish"),
    "unpublish": Transition(
        frozenset({Status.PUBLISHED}),
        Status.DRAFT,
        refusal="Only a published entry can be unpublished.",
        operation="content.publish",
    ),
    "schedule": Transition(ANY, Status.SCHEDULED, feature="scheduling", operation="content.publish"),
    "unschedule": Transition(
        frozenset({Status.SCHEDULED}),
        Status.DRAFT,
        refusal="The entry is not scheduled; there is nothing to cancel.",
        operation="content.publish",
    ),
    "discard_draft": Transition(
        ANY,
        None,
        needs_live=True,
        refusal="The entry was never published, so there is no published version to go back to.",
    ),
    "trash": Transition(ANY, None, operation="content.delete"),
    "restore": Transition(
        ANY,
        None,
        in_trash="required",
        refusal="The entry is not in the trash.",
        operation="content.delete",
    ),
    "delete_permanent": Transition(
        ANY,
        None,
        in_trash="required",
        refusal="Only entries in the trash can be deleted permanently; trash it first.",
        operation="content.delete_permanent",
    ),
    "duplicate": Transition(ANY, Status.DRAFT, in_trash="either", operation="content.create", owned=False),
    "restore_revision": Transition(ANY, None),
}


def check(action: str, entry: Entry) -> Transition:
    transition = TRANSITIONS[action]
    label = action.replace("_", " ")
    if transition.in_trash == "forbidden" and entry.is_trashed:
        raise InvalidTransition(
            f"Cannot {label} an entry in the trash; restore it first.",
            details={"state": "trashed", "action": action},
        )
    if transition.in_trash == "required" and not entry.is_trashed:
        raise InvalidTransition(transition.refusal, details={"state": entry.status, "action": action})
    if entry.status not in transition.from_statuses:
        raise InvalidTransition(
            transition.refusal or f"Cannot {label} an entry that is {entry.status}.",
            details={"state": entry.status, "action": action},
        )
    if transition.needs_live and not entry.was_published:
        raise InvalidTransition(transition.refusal, details={"state": entry.status, "action": action})
    return transition


def permits(action: str) -> Q:
    """The entries ``check`` lets ``action`` apply to, as a query filter."""
    transition = TRANSITIONS[action]
    allowed = Q(status__in=sorted(transition.from_statuses))
    if transition.in_trash == "forbidden":
        allowed &= Q(deleted_at__isnull=True)
    elif transition.in_trash == "required":
        allowed &= Q(deleted_at__isnull=False)
    if transition.needs_live:
        allowed &= Q(live_data__isnull=False)
    return allowed


def allowed_actions(entry: Entry, actor: Actor | None) -> frozenset[str]:
    """The actions ``actor`` may take on ``entry`` now: what the state table allows in the entry's state, on a
    collection with the feature the action needs, and what the permission table lets this actor do to this entry
    (its own or someone else's). For faces that offer only what will work (the studio's buttons); the services still
    check each action when it is taken."""
    allowed = set()
    for action, transition in TRANSITIONS.items():
        try:
            check(action, entry)
        except InvalidTransition:
            continue
        if transition.feature and not entry.collection.supports_feature(transition.feature):
            continue
        owner = entry.author_id if transition.owned else None
        if can(actor, transition.operation, owner_id=owner):
            allowed.add(action)
    return frozenset(allowed)
