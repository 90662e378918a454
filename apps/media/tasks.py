"""Renditions made ahead of requests, on the ``renditions`` queue: every preset and srcset width a media answer
links to, rendered and stored by a worker once an image is uploaded (or its focal point moves), so a front end's first
visitor gets a stored file instead of waiting for the render. A rendition a request asks for first is still rendered
then (``renditions.rendition``), and one made twice is stored once."""

from __future__ import annotations

from django.conf import settings
from django_tasks import task

from apps.background.queues import RENDITIONS, enqueue, retry_or_raise


def make_later(item) -> None:
    """Enqueue the renditions of ``item`` with the caller's transaction, when it is an image we render."""
    from apps.media import renditions

    if settings.CMS_RENDITIONS_AHEAD and renditions.renderable(item.mime_type):
        enqueue(make_renditions, str(item.pk))


@task(queue_name=RENDITIONS)
def make_renditions(media_id: str, attempt: int = 1) -> int:
    """Make (or find already made) every rendition the item's answers offer; answers how many there are. An item
    deleted meanwhile, or too large to render, is left alone; an unreachable storage is tried again later."""
    from apps.core.errors import NotFound
    from apps.media import renditions
    from apps.media.errors import StorageUnavailable
    from apps.media.models import MediaItem

    item = MediaItem.objects.filter(pk=media_id).first()
    if item is None or not renditions.renderable(item.mime_type):
        return 0
    made = 0
    for params in renditions.offered(item):
        try:
            renditions.rendition(item, params)
        except (renditions.ImageTooLarge, NotFound):
            return made
        except StorageUnavailable as error:
            retry_or_raise(make_renditions, error, media_id, attempt=attempt, attempts=5, base=30, cap=600)
        made += 1
    return made
