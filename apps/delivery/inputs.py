"""What each delivery operation takes: one model per operation, read by REST and MCP alike."""

from __future__ import annotations

from apps.core.shapes import Field, Input, Str, cursor_param, limit_param
from apps.delivery.models import REDIRECT_STATUSES
from apps.schema.models import SLUG_MAX_LENGTH

STATUS_HELP = f"The HTTP status a front end answers with: one of {', '.join(map(str, REDIRECT_STATUSES))}."


class RedirectListQuery(Input):
    limit: int = limit_param(50)
    cursor: Str = cursor_param()
    search: Str = Field(
        None, max_length=200, description="Only redirects whose source or location contains it."
    )


class RedirectIn(Input):
    source: Str = Field(
        max_length=1000, description="The old path on the site, e.g. /old-page (a trailing slash is ignored)."
    )
    location: Str = Field(
        max_length=2000,
        description="Where it goes: a path of the site (/new-page) or an absolute http(s) URL.",
    )
    status: int = Field(301, description=STATUS_HELP, json_schema_extra={"enum": list(REDIRECT_STATUSES)})


class RedirectUpdateIn(Input):
    """Only the keys sent change."""

    source: Str = Field(None, max_length=1000)
    location: Str = Field(None, max_length=2000)
    status: int = Field(None, description=STATUS_HELP, json_schema_extra={"enum": list(REDIRECT_STATUSES)})


class RedirectIdIn(Input):
    id: Str = Field(max_length=26, description="The redirect's id.")


class RedirectChangeIn(RedirectUpdateIn, RedirectIdIn):
    pass


class RedirectListIn(RedirectListQuery):
    pass


class ResolveQuery(Input):
    path: Str = Field(max_length=1000, description="A path of the front end, e.g. /blog/hello.")


class ContentPreviewIn(Input):
    collection: Str = Field(max_length=SLUG_MAX_LENGTH, description="The collection's slug.")
    id: Str = Field(max_length=200, description="The entry's id (a ULID) or its slug.")
    locale: Str = Field(None, max_length=16, description="The locale of a slug lookup.")


class PreviewQuery(Input):
    locale: Str = Field(None, max_length=16, description="The locale of a slug lookup.")


class SitemapQuery(Input):
    page: int = Field(
        None, ge=1, description="A part of the sitemap index (from 1); omit for the sitemap or index."
    )
