"""What each import operation takes (SPEC §4.10): one model per request body.

An export arrives as a multipart file (``Upload``); its import settings then come as a ``config`` part holding JSON
text, checked against the same settings model as the JSON body that names a stored analysis.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import AfterValidator

from apps.core.shapes import Field, Input, Str, Upload, Url


class ImportProbeIn(Input):
    url: Str = Field(max_length=2000, description="The site's address, e.g. https://example.com.")


class ImportAnalyzeIn(Input):
    file: Upload = Field(description="The WordPress export (.xml, WXR 1.0 to 1.2).")


class ImportAnalyzeRemoteIn(Input):
    source: Str = Field(max_length=63, description="A source with an API, e.g. blogplatform-hosted.")
    url: Str = Field(max_length=2000, description="The site's address.")
    accessToken: Str = Field(
        None, max_length=4000, description="OAuth access token of the platform (drafts, private content)."
    )


class ImportPostTypeIn(Input):
    name: Str = Field(max_length=100, description="The WordPress post type, e.g. post, page, product.")
    collection: Str = Field(
        None, max_length=63, description="Target collection slug; default posts, pages or the type's name."
    )
    enabled: bool = True


class ImportPrepareIn(Input):
    postTypes: list[ImportPostTypeIn] = Field(min_length=1)
    analysisId: Str = Field(
        None, max_length=26, description="When given, every name must be a post type of that analysis."
    )


class ImportMappingIn(Input):
    collection: Str = Field(None, max_length=63)
    enabled: bool = True


class ImportOptionsIn(Input):
    includeMedia: bool = Field(False, description="Download attachments (and rewrite URLs).")
    includeTaxonomies: bool = True
    includeMenus: bool = True


AuthorTarget = Annotated[Str, Field(max_length=254)]


class ImportConfigIn(Input):
    """What the multipart ``config`` part holds (a JSON text)."""

    options: ImportOptionsIn = Field(None)
    postTypeMappings: dict[str, ImportMappingIn] = Field(
        None, description="Post type → {collection, enabled}."
    )
    authorMappings: dict[str, AuthorTarget] = Field(
        None, description="Author login → user id or email of a user of this service."
    )


class ImportExecuteIn(ImportConfigIn):
    """The settings of an import of a stored analysis."""

    analysisId: Str = Field(max_length=26)


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise ValueError(f"Not valid JSON: {error}.") from None
    if not isinstance(value, dict):
        raise ValueError("Expected a JSON object.")
    return value


class ImportExecuteUploadIn(Input):
    file: Upload = Field(description="The WordPress export (.xml).")
    config: Annotated[Str, AfterValidator(_json_object)] = Field(
        None,
        description='JSON text: {"postTypeMappings": {"post": {"collection": "posts"}}, "authorMappings": {…}, '
        '"options": {…}}.',
    )


class ImportAttachmentIn(Input):
    # WordPress post ids are unsigned 64-bit at most; a larger number is no post id (and JSON cannot echo it back).
    id: int = Field(ge=0, le=2**63 - 1, description="The attachment's post id in the export.")
    url: Url = Field(max_length=2000)


class ImportMediaIn(Input):
    attachments: list[ImportAttachmentIn] = Field(min_length=1, max_length=10000)
    stream: bool = Field(False, description="Answer NDJSON progress lines, then the result.")


class ImportRewriteIn(Input):
    urlMap: dict[str, Annotated[Str, Field(max_length=2000)]] = Field(
        min_length=1, description="Old URL → new URL."
    )
