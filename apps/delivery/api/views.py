"""``/_cms/api/redirects``, ``/_cms/api/resolve``, ``/_cms/api/preview-secret`` and ``/sitemap.xml``: the delivery
layer over REST. The preview of one entry (``POST …/content/:collection/:id/preview``) is here too; reading with a
preview token is the content route's (apps/content/api/views.py)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.errors import NotFound
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.core.shapes import TypedDict, paged
from apps.core.timefmt import iso
from apps.delivery import selectors, services
from apps.delivery.inputs import (
    PreviewQuery,
    RedirectIn,
    RedirectListQuery,
    RedirectUpdateIn,
    ResolveQuery,
    SitemapQuery,
)
from apps.delivery.presenters import (
    PreviewOut,
    RedirectOut,
    ResolvedOut,
    present_preview,
    present_redirect,
    present_redirect_page,
    present_resolved,
    sitemap_index_xml,
    sitemap_xml,
)
from apps.schema import selectors as schema_selectors
from apps.site.selectors import site_settings


class RedirectViewSet(CmsViewSet):
    @endpoint(
        "redirects.read", query=RedirectListQuery, response=paged(RedirectOut), summary="List redirects"
    )
    def list(self, request):
        page = selectors.redirect_list(
            actor=actor_from_request(request),
            cursor=self.query.get("cursor"),
            limit=self.query["limit"],
            search=self.query.get("search"),
        )
        return ok(present_redirect_page(page))

    @endpoint(
        "redirects.write",
        body=RedirectIn,
        response=RedirectOut,
        status=201,
        errors=(409,),
        summary="Add a redirect",
    )
    def create(self, request):
        """Chains collapse: a redirect to a path that redirects elsewhere points there directly, and redirects that
        led to the new source follow it. One that would come back to its source is refused (409)."""
        redirect = services.redirect_create(actor=actor_from_request(request), **self.body)
        return ok(present_redirect(redirect), status=201)

    @endpoint("redirects.read", response=RedirectOut, summary="Get a redirect")
    def retrieve(self, request, pk: str):
        return ok(
            present_redirect(selectors.redirect_read(actor=actor_from_request(request), redirect_id=pk))
        )

    @endpoint(
        "redirects.write",
        body=RedirectUpdateIn,
        response=RedirectOut,
        errors=(409,),
        summary="Change a redirect",
    )
    def partial_update(self, request, pk: str):
        redirect = services.redirect_update(
            actor=actor_from_request(request),
            redirect=selectors.redirect_get(redirect_id=pk),
            changes=self.body,
        )
        return ok(present_redirect(redirect))

    @endpoint("redirects.write", response=SuccessFlagOut, summary="Delete a redirect")
    def destroy(self, request, pk: str):
        services.redirect_delete(
            actor=actor_from_request(request), redirect=selectors.redirect_get(redirect_id=pk)
        )
        return ok(SUCCESS)


class ResolveView(CmsAPIView):
    @endpoint(
        "delivery.resolve",
        query=ResolveQuery,
        response=ResolvedOut,
        errors=(404,),
        summary="What a path of the front end shows",
    )
    def get(self, request):
        """``{kind: "entry", item}`` for a published entry whose collection's URL pattern gives that path,
        ``{kind: "redirect", status, location}`` for a stored redirect, else 404."""
        resolved = selectors.path_resolve(actor=actor_from_request(request), path=self.query["path"])
        return ok(present_resolved(resolved))


class PreviewView(CmsAPIView):
    @endpoint(
        "content.preview", query=PreviewQuery, response=PreviewOut, status=201, summary="Mint a preview token"
    )
    def post(self, request, collection: str, ref: str):
        """A signed token that reads this entry's working copy (``GET …/content/:collection/:id?preview=<token>`` or
        the header ``X-CMS-Preview``) until ``expiresAt``, and the collection's ``previewUrl`` filled in."""
        preview = services.entry_preview_create(
            actor=actor_from_request(request),
            collection=schema_selectors.collection_for_read(slug=collection),
            ref=ref,
            locale=self.query.get("locale"),
        )
        return ok(present_preview(preview), status=201)


class PreviewSecretOut(TypedDict):
    rotatedAt: str


class PreviewSecretView(CmsAPIView):
    @endpoint("preview.revoke", response=PreviewSecretOut, summary="Revoke every preview token")
    def post(self, request):
        """Saves a new preview secret: every token minted before stops working at once."""
        secret = services.preview_secret_rotate(actor=actor_from_request(request))
        return ok({"rotatedAt": iso(secret.rotated_at)})


def _site() -> str:
    """The public site's address for absolute sitemap URLs: the settings' url, else this service's."""
    return (site_settings().url or settings.CMS_BASE_URL).rstrip("/")


class SitemapView(CmsAPIView):
    @endpoint(
        "delivery.sitemap",
        query=SitemapQuery,
        response=OpenApiTypes.STR,
        envelope=False,
        media_type="application/xml",
        summary="The sitemap of the public site",
    )
    def get(self, request):
        """Published entries of public collections with a URL pattern, with ``lastmod``. Past
        ``CMS_SITEMAP_MAX_URLS`` URLs, a sitemap index naming ``/sitemap.xml?page=N`` parts."""
        size = settings.CMS_SITEMAP_MAX_URLS
        count = selectors.sitemap_count()
        parts = max(1, -(-count // size))
        page = self.query.get("page")
        if page is not None and page > parts:
            raise NotFound(f"The sitemap has {parts} part(s).")
        site = _site()
        if page is None and parts > 1:
            # The parts are this service's own address (the front end may proxy /sitemap.xml under its domain).
            body = sitemap_index_xml(parts, base=f"{settings.CMS_BASE_URL}/sitemap.xml")
        else:
            body = sitemap_xml(selectors.sitemap_urls(page=page or 1, size=size), site=site)
        return HttpResponse(
            body, content_type="application/xml", headers={"Cache-Control": "public, max-age=3600"}
        )
