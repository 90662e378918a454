"""The studio's home: what the signed-in person is working on and what happens next."""

from __future__ import annotations

from apps.content.models import Status
from apps.content.overviews import entry_digests
from apps.studio.access import studio_page
from apps.studio.rendering import render_studio

SHOWN = 8


@studio_page
def dashboard(request):
    actor = request.actor
    return render_studio(
        request,
        "studio/dashboard.html",
        {
            "my_drafts": entry_digests(
                actor=actor, author_id=actor.user_id, status=Status.DRAFT, limit=SHOWN
            ),
            "recent": entry_digests(actor=actor, limit=SHOWN),
            "scheduled": entry_digests(
                actor=actor, status=Status.SCHEDULED, order_by="scheduled_at", limit=SHOWN
            ),
        },
        section="dashboard",
    )
