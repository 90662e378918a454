"""Search shapes on the wire (SPEC §4.7), their presenters and OpenAPI documentation."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.fields import ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator

from apps.core.api.serializers import cursor_field, limit_field
from apps.search.selectors import MAX_LIMIT, MAX_SUGGEST_LIMIT, SearchHit, SearchPage, Suggestion


class AnyTextField(serializers.CharField):
    """Text taken as it comes: search answers any input (NUL characters included) with results or none, so the
    characters DRF refuses by default are left to the search to ignore."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators = [
            validator
            for validator in self.validators
            if not isinstance(
                validator, (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator)
            )
        ]


def collections_param() -> serializers.CharField:
    return serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=2000,
        help_text="Comma-separated collection slugs (all searchable collections when omitted).",
    )


def split_collections(value: str | None) -> list[str] | None:
    if value is None:
        return None
    slugs = [slug.strip() for slug in value.split(",") if slug.strip()]
    return slugs or None


STATUS_HELP = "published (default): what the public sees. draft: the working copies editors see (contributor role and up)."


class SearchQueryIn(serializers.Serializer):
    q = AnyTextField(
        allow_blank=True,
        trim_whitespace=False,
        help_text='At most 500 characters. Words must all match; "a phrase"; -word excludes; a or b for either.',
    )
    collections = collections_param()
    status = serializers.ChoiceField(
        choices=["published", "draft"], required=False, default="published", help_text=STATUS_HELP
    )
    locale = serializers.CharField(required=False, max_length=16)
    limit = limit_field(default=20, maximum=MAX_LIMIT)
    cursor = cursor_field()


class SuggestQueryIn(serializers.Serializer):
    q = AnyTextField(
        allow_blank=True, trim_whitespace=False, help_text="The beginning of a title, or of a word in it."
    )
    collections = collections_param()
    status = serializers.ChoiceField(
        choices=["published", "draft"], required=False, default="published", help_text=STATUS_HELP
    )
    locale = serializers.CharField(required=False, max_length=16)
    limit = limit_field(default=5, maximum=MAX_SUGGEST_LIMIT)


class RebuildIn(serializers.Serializer):
    collections = serializers.ListField(
        child=serializers.CharField(max_length=63),
        required=False,
        help_text="Slugs of the collections to rebuild; every collection when omitted.",
    )
    full = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Delete and rewrite every document, instead of rewriting only those that differ.",
    )


# --- output ----------------------------------------------------------------------------------------------------------


class SearchResultOut(serializers.Serializer):
    collection = serializers.CharField()
    id = serializers.CharField()
    slug = serializers.CharField()
    title = serializers.CharField(help_text="Plain text.")
    snippet = serializers.CharField(
        help_text="HTML: the text around the matches, escaped, with matches in <mark>…</mark>."
    )
    score = serializers.FloatField(help_text="Higher is better; comparable within one answer only.")


class SearchPageOut(serializers.Serializer):
    results = SearchResultOut(many=True)
    nextCursor = serializers.CharField(
        allow_null=True, help_text="Pass as `cursor` for the next page; null on the last page."
    )


class SuggestionOut(serializers.Serializer):
    collection = serializers.CharField()
    id = serializers.CharField()
    slug = serializers.CharField()
    title = serializers.CharField()


class SuggestionListOut(serializers.Serializer):
    items = SuggestionOut(many=True)


class RebuiltCollectionOut(serializers.Serializer):
    collection = serializers.CharField()
    searchable = serializers.BooleanField()
    entries = serializers.IntegerField(help_text="Entries checked (trash included).")
    documents = serializers.IntegerField(help_text="Documents the collection has now.")
    written = serializers.IntegerField(help_text="Documents written because they were missing or differed.")
    removed = serializers.IntegerField(help_text="Documents deleted.")
    seconds = serializers.FloatField()


class RebuildOut(serializers.Serializer):
    collections = RebuiltCollectionOut(many=True)
    entries = serializers.IntegerField()
    documents = serializers.IntegerField()
    written = serializers.IntegerField()
    removed = serializers.IntegerField()
    seconds = serializers.FloatField()


class LocaleCountOut(serializers.Serializer):
    locale = serializers.CharField()
    documents = serializers.IntegerField()


class CollectionStatsOut(serializers.Serializer):
    collection = serializers.CharField()
    searchable = serializers.BooleanField()
    documents = serializers.IntegerField()
    published = serializers.IntegerField(help_text="Documents the public can find.")
    working = serializers.IntegerField(help_text="Documents editors can find (working copies).")
    locales = LocaleCountOut(many=True)
    lastRebuildAt = serializers.CharField(allow_null=True)


class StatsOut(serializers.Serializer):
    engine = serializers.CharField(
        help_text="sqlite-fts5, postgresql-rum or postgresql-gin: the full-text index in use."
    )
    documents = serializers.IntegerField()
    lastRebuildAt = serializers.CharField(allow_null=True)
    collections = CollectionStatsOut(many=True)


def present_hit(hit: SearchHit) -> dict:
    return {
        "collection": hit.collection,
        "id": hit.id,
        "slug": hit.slug,
        "title": hit.title,
        "snippet": hit.snippet,
        "score": hit.score,
    }


def present_page(page: SearchPage) -> dict:
    return {"results": [present_hit(hit) for hit in page.results], "nextCursor": page.next_cursor}


def present_suggestion(item: Suggestion) -> dict:
    return {"collection": item.collection, "id": item.id, "slug": item.slug, "title": item.title}
