"""``/_cms/api/media/:id/render…`` (issue 22): image renditions, and the signed URLs of arbitrary ones.

``GET /media/:id/render/:preset`` answers a configured preset; ``GET /media/:id/render?w=&h=&fit=&format=&q=&s=``
any other variant whose signature ``s`` the API minted (``POST /media/:id/render-url``, MCP ``media_rendition_url``).
Both answer the encoded image, not the envelope, with a year of immutable caching: the address names the source's
bytes (through the item), the parameters and, for crops, the focal point; when any of those changes, the same
address names a new rendition, made on its first request. Renditions are as public as the media files they come
from (``media.render`` in the permission table), and the same sandbox and ``nosniff`` headers apply.

Renditions already stored are usually answered before Django sees the request (apps/media/fastpath.py, in front of
the WSGI application); this view answers the rest: first renders, errors, and servers run without the fast path.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsViewSet, endpoint, ok
from apps.media import renditions, selectors
from apps.media.inputs import RenditionIn, RenditionQueryIn, RenditionVersionIn
from apps.media.presenters import RenditionUrlOut


def _answer(request, media_id: str, preset: str | None) -> HttpResponse:
    query = [(name, value) for name, values in request.query_params.lists() for value in values]
    params = renditions.request_params(media_id, preset, query)
    # Who may read renditions is decided by the endpoint's operation (media.render, public like media files).
    item = selectors.media_get(media_id=media_id)
    data, key = renditions.rendition(item, params)
    headers = renditions.response_headers(key, params, len(data))
    if renditions.not_modified(request.headers.get("If-None-Match", ""), headers["ETag"]):
        del headers["Content-Length"]
        return HttpResponse(status=304, headers=headers)
    return HttpResponse(b"" if request.method == "HEAD" else data, headers=headers)


# 503: the media storage did not answer (Retry-After).
RENDER_ERRORS = (403, 415, 422, 503)
BODILESS = {304: "Not modified: the copy you have (If-None-Match) is current."}


class RenditionViewSet(CmsViewSet):
    """One viewset, so that OpenAPI names its operations media_render, media_render_preset, media_render_url_sign."""

    @endpoint(
        "media.render",
        query=RenditionQueryIn,
        response={"image/*": OpenApiTypes.BINARY},
        envelope=False,
        errors=RENDER_ERRORS,
        bodiless=BODILESS,
        summary="Render an image (signed parameters)",
    )
    def render(self, request, pk: str):
        """The image at width ``w`` and/or height ``h`` (never enlarged), cropped around the focal point
        (``fit=cover``, with both) or fitted inside them (``contain``), as ``format`` at quality ``q``, without the
        source's metadata. ``s`` must be the signature that ``POST /media/:id/render-url`` gave for exactly these
        parameters (403 otherwise). 415 for files that are not images we render, 422 for images over the pixel
        limit. Cached for a year (immutable)."""
        return _answer(request, pk, None)

    @endpoint(
        "media.render",
        query=RenditionVersionIn,
        response={"image/*": OpenApiTypes.BINARY},
        envelope=False,
        errors=RENDER_ERRORS,
        bodiless=BODILESS,
        summary="Render an image (preset)",
    )
    def preset(self, request, pk: str, preset: str):
        """The rendition named by a preset of ``CMS_RENDITION_PRESETS`` (thumbnail, small, medium, large by
        default); no signature needed. Unknown presets are 404."""
        return _answer(request, pk, preset)

    @endpoint(
        "media.rendition_url",
        body=RenditionIn,
        response=RenditionUrlOut,
        errors=(415,),
        summary="Sign a rendition URL",
    )
    def sign(self, request, pk: str):
        """The signed URL of the rendition with these parameters, for anyone to fetch (``<img src>``). The item must
        be an image we render (415 otherwise); nothing is rendered until the URL is first requested."""
        return ok({"url": renditions.signed_url(actor_from_request(request), pk, self.body)})
