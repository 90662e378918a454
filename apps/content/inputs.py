"""What each entry, revision and byline operation takes (SPEC §4.2, §4.4, §4.11): one model per operation.

REST reads the body and query models; each MCP tool's model is the same model plus what REST carries in the path
(``collection``, ``id``). A few arguments exist on the tool server only, because agents write and read Markdown and
term slugs far more reliably than Portable Text JSON and term ids: ``format``, ``taxonomies``, Markdown in ``data``,
and ``terms`` as lists of slugs (REST's query string spells the same filter ``terms[category]=news,sport``).
"""

from __future__ import annotations

from typing import Annotated

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from pydantic import AfterValidator, WithJsonSchema

from apps.core.shapes import (
    DateTime,
    DeepObject,
    Field,
    Input,
    JsonObject,
    Str,
    Text,
    choice,
    cursor_param,
    limit_param,
    partial,
)
from apps.core.slugs import MAX_SLUG_LENGTH
from apps.schema.models import SLUG_MAX_LENGTH

ListStatus = choice("draft", "published", "scheduled")
WritableStatus = choice("draft", "published")
Order = choice("asc", "desc")
# How portableText values are answered: Portable Text JSON ("json" is its older name) or Markdown; lists of the
# tool server default to "compact" (the title and the start of the text, see apps/content/compact.py).
Format = choice("portableText", "markdown", "json")
ListFormat = choice("compact", "portableText", "markdown", "json")
FORMAT_HELP = (
    "'portableText' answers portableText fields as Portable Text JSON ('json' is the same), 'markdown' as Markdown "
    "strings."
)
Slug = Annotated[Str, Field(max_length=200)]
# An entry's own slug: the service keeps at most MAX_SLUG_LENGTH characters, so longer is refused, not cut.
EntrySlug = Annotated[Str, Field(max_length=MAX_SLUG_LENGTH)]


def _email(value: str) -> str:
    if value:
        try:
            validate_email(value)
        except DjangoValidationError:
            raise ValueError("Enter a valid email address.") from None
    return value


# An address, or blank for none (shapes.Email refuses blank; a byline's address may be cleared).
EmailOrBlank = Annotated[
    Text,
    AfterValidator(_email),
    WithJsonSchema({"anyOf": [{"type": "string", "format": "email"}, {"type": "string", "maxLength": 0}]}),
]


# --- what REST takes in the path, and tools as arguments --------------------------------------------------------------


class InCollection(Input):
    collection: Str = Field(max_length=SLUG_MAX_LENGTH, description="The collection's slug.")


class EntryIn(InCollection):
    id: Str = Field(max_length=200, description="The entry's id (a ULID) or its slug.")


# --- reads -----------------------------------------------------------------------------------------------------------


class EntryListQuery(Input):
    status: ListStatus = Field(
        None, description="Only entries in this state (readers below contributor see published entries only)."
    )
    limit: int = limit_param(50)
    cursor: Str = cursor_param()
    orderBy: Str = Field(
        "createdAt",
        max_length=64,
        description="createdAt, updatedAt, publishedAt, slug, or a sortable field of the collection; created_at, "
        "updated_at and published_at are accepted too.",
    )
    order: Order = "desc"
    locale: Str = Field(None, max_length=16, description="Only entries in this locale.")
    terms: DeepObject = Field(
        None,
        description="Entries with given terms: terms[category]=news,sport keeps entries in news or sport (or a "
        "descendant of either); several taxonomies must all match.",
    )
    fields: Str = Field(
        None,
        max_length=2000,
        description="Comma-separated field slugs: each entry's data holds only these fields (those it has). The "
        "system fields (id, slug, status, dates, bylines, terms) are always there. Default: every field.",
    )


class ContentListIn(EntryListQuery, InCollection):
    terms: dict[str, list[Slug]] = Field(
        None,
        description="Only entries with one of these terms (or a descendant) in each taxonomy named, by term slug: "
        '{"category": ["news", "sport"]}.',
    )
    fields: list[Slug] = Field(
        None,
        max_length=100,
        description="Field slugs: each entry's data holds only these fields (those it has); the system fields are "
        "always there. Default: the title field and the portableText fields in the compact format, every field in "
        "the others.",
    )
    format: ListFormat = Field(
        "compact",
        description="'compact' (the default) answers the title field and the portableText fields (or the fields "
        "asked for), portableText as Markdown cut to a few hundred characters, and says so in `compact`. "
        + FORMAT_HELP,
    )


class EntryGetQuery(Input):
    locale: Str = Field(
        None, max_length=16, description="The locale of a slug lookup; ids are unique across locales."
    )
    resolveLinks: bool = Field(
        False,
        description="Give internal links of portableText fields (markDefs {_type: 'internalLink', reference: "
        "<entry id>}) their target's url as href (null when the target is not published or has no URL pattern).",
    )


class EntryPreviewQuery(EntryGetQuery):
    preview: Str = Field(
        None,
        max_length=2000,
        description="A preview token (POST …/preview); the X-CMS-Preview header also carries one.",
    )


class ContentGetIn(EntryGetQuery, EntryIn):
    fields: list[Slug] = Field(
        None,
        max_length=100,
        description="Field slugs: data (and liveData) hold only these fields (those it has); the system fields are "
        "always there. Default: every field.",
    )
    format: Format = Field("portableText", description=FORMAT_HELP)


class PageQuery(Input):
    limit: int = limit_param(50)
    cursor: Str = cursor_param()


class TrashListIn(PageQuery, InCollection):
    pass


class RevisionPageQuery(Input):
    # SPEC §4.4 gives REST a default of 50, SPEC §4.11 the tool a default of 20; both go up to 50 (a revision carries
    # a whole copy of the entry's data).
    limit: int = limit_param(50, 50)
    cursor: Str = cursor_param()


class RevisionListIn(RevisionPageQuery, EntryIn):
    limit: int = limit_param(20, 50)


# --- writes ----------------------------------------------------------------------------------------------------------


class CreditIn(Input):
    bylineId: Str = Field(max_length=26, description="A byline's id.")
    roleLabel: Text = Field(None, max_length=100, description="How this byline contributed, e.g. 'Photos'.")


BYLINES_HELP = "Ordered credits; the first is the primary byline."
MARKDOWN_HELP = (
    "Field values keyed by field slug (schema_get_collection lists them). portableText fields take a Markdown "
    "string (headings, lists, emphasis, links, code, quotes) or Portable Text blocks."
)
TAXONOMIES_HELP = (
    'Terms by taxonomy name, as term slugs: {"category": ["news"]}. Replaces the entry\'s terms of each taxonomy '
    "named."
)


class EntryCreateIn(Input):
    data: JsonObject = Field(description="Field values keyed by field slug.")
    slug: EntrySlug = Field(None, description="URL slug; generated from the title when omitted.")
    status: WritableStatus = "draft"
    locale: Str = Field(None, max_length=16)
    translationOf: Str = Field(None, max_length=26, description="Id of the entry this one translates.")
    bylines: list[CreditIn] = Field(None, description=BYLINES_HELP)


class ContentCreateIn(EntryCreateIn, InCollection):
    data: JsonObject = Field(description=MARKDOWN_HELP)
    taxonomies: dict[str, list[Slug]] = Field(None, description=TAXONOMIES_HELP)


class EntryUpdateIn(Input):
    """PATCH and PUT both change only what is sent; fields not in ``data`` keep their values (null clears one)."""

    data: JsonObject = Field(
        None, description="Field values keyed by field slug; fields not sent keep their values."
    )
    slug: EntrySlug = None
    status: WritableStatus = Field(None, description="'published' publishes the result.")
    rev: Str = Field(
        None,
        alias="_rev",
        max_length=64,
        description="The _rev you read; if the entry changed since, the update is refused (CONFLICT).",
    )
    bylines: list[CreditIn] = Field(None, description=BYLINES_HELP)
    publishedAt: DateTime = Field(
        None,
        description="Change the publication date (not in the future) of a published entry, or of one this update "
        "publishes (status 'published'); needs the right to publish.",
    )


class ContentUpdateIn(EntryUpdateIn, EntryIn):
    data: JsonObject = Field(
        None, description=MARKDOWN_HELP + " Fields not sent keep their values; null clears one."
    )
    taxonomies: dict[str, list[Slug]] = Field(None, description=TAXONOMIES_HELP)


class PublishIn(Input):
    publishedAt: DateTime = Field(None, description="Backdate the publication (not in the future).")


class ContentPublishIn(PublishIn, EntryIn):
    pass


class ScheduleIn(Input):
    scheduledAt: DateTime = Field(description="When to publish: an ISO 8601 datetime in the future.")


class ContentScheduleIn(ScheduleIn, EntryIn):
    pass


class RevisionIdIn(Input):
    revisionId: Str = Field(max_length=26, description="A revision id from revision_list.")


class RevisionRestoreIn(RevisionIdIn):
    pass


# --- pasted rich text (REST only) -------------------------------------------------------------------------------------

# Word's clipboard HTML is verbose (a page of text is easily 200 KB); a whole pasted book is not a paste.
PASTE_MAX_CHARS = 2_000_000


class PortableTextFromHtmlIn(Input):
    html: Text = Field(
        max_length=PASTE_MAX_CHARS, description="An HTML fragment, e.g. the clipboard's text/html."
    )


# --- bylines ---------------------------------------------------------------------------------------------------------


class BylineListQuery(PageQuery):
    search: Str = Field(
        None,
        max_length=200,
        description="Only bylines whose name or slug contains these characters (any case).",
    )
    kind: choice("guest", "linked") = Field(
        None, description="'guest': only guest bylines; 'linked': only bylines linked to a user."
    )


class BylineIdIn(Input):
    id: Str = Field(max_length=26, description="The byline's id.")


class BylineIn(Input):
    # Blank is the service's to refuse (it names the field).
    displayName: Text = Field(max_length=200)
    userId: Str | None = Field(None, max_length=26, description="A user to link; null unlinks.")
    isGuest: bool = Field(
        None, description="Not a user of this CMS; defaults to true when no user is linked."
    )
    bio: Text = None
    email: EmailOrBlank = None


class MediaUsagesQuery(Input):
    limit: int = Field(100, ge=1, le=500, description="At most this many entries, 1-500.")


class MediaUsagesIn(MediaUsagesQuery):
    id: Str = Field(max_length=26, description="The media item's id.")


# A PATCH's model (every key optional, what is not sent stays) with the id that REST has in the path.
class BylineUpdateToolIn(partial(BylineIn), BylineIdIn):
    pass
