"""``/_cms/api/search…`` (SPEC §4.7): search, suggest, rebuild and stats.

``GET /search`` answers its payload bare, ``{results, nextCursor}``, as SPEC §4.1 says of the search endpoint; the
others, and every error, use the envelope.
"""

from __future__ import annotations

from apps.accounts.permissions import actor_from_request
from apps.core.api.views import CmsAPIView, endpoint, ok
from apps.core.httpcache import NOT_MODIFIED, small_answer
from apps.search import selectors, services
from apps.search.inputs import RebuildIn, SearchQueryIn, SuggestQueryIn, split_collections
from apps.search.presenters import (
    RebuildJobOut,
    RebuildOut,
    SearchPageOut,
    StatsOut,
    SuggestionListOut,
    present_page,
    present_rebuild_job,
    present_suggestions,
)


class SearchView(CmsAPIView):
    @endpoint(
        "search.read",
        bodiless=NOT_MODIFIED,
        query=SearchQueryIn,
        response=SearchPageOut,
        envelope=False,
        summary="Search entries",
    )
    def get(self, request):
        """Entries whose searchable text matches ``q``, best first (then by id), with a snippet marking the matches.
        Any text is a valid query; what cannot match gives an empty list."""
        actor = actor_from_request(request)
        page = selectors.search(
            actor=actor,
            query=self.query["q"],
            collections=split_collections(self.query.get("collections")),
            status=self.query["status"],
            locale=self.query.get("locale"),
            limit=self.query["limit"],
            cursor=self.query.get("cursor"),
        )
        return small_answer(
            request, present_page(page), public=actor.anonymous, keys=("search",), envelope=False
        )


class SuggestView(CmsAPIView):
    @endpoint(
        "search.read",
        bodiless=NOT_MODIFIED,
        query=SuggestQueryIn,
        response=SuggestionListOut,
        summary="Suggest titles",
    )
    def get(self, request):
        """Titles starting with ``q``, or with a word starting with it, ignoring case and accents (autocomplete)."""
        actor = actor_from_request(request)
        items = selectors.search_suggest(
            actor=actor,
            query=self.query["q"],
            collections=split_collections(self.query.get("collections")),
            status=self.query["status"],
            locale=self.query.get("locale"),
            limit=self.query["limit"],
        )
        return small_answer(request, present_suggestions(items), public=actor.anonymous, keys=("search",))


class RebuildView(CmsAPIView):
    @endpoint("search.rebuild", body=RebuildIn, response=RebuildOut, summary="Rebuild the search index")
    def post(self, request):
        """Check and repair the index of the named collections (all when omitted), in batches; ``full`` rewrites
        every document. For large sites prefer ``manage.py reindex``, which shows progress."""
        result = services.search_rebuild(
            actor=actor_from_request(request),
            collections=self.body.get("collections"),
            full=self.body.get("full", False),
        )
        return ok(result)


class RebuildJobsView(CmsAPIView):
    @endpoint(
        "search.rebuild",
        body=RebuildIn,
        response=RebuildJobOut,
        status=202,
        summary="Start a search index rebuild in the background",
    )
    def post(self, request):
        """Queues the rebuild for ``manage.py worker`` and answers the job; follow it with ``GET
        /search/rebuild/jobs/{id}``. While a rebuild waits or runs, this answers that one instead of queueing
        another."""
        job = services.search_rebuild_job_create(
            actor=actor_from_request(request),
            collections=self.body.get("collections"),
            full=self.body.get("full", False),
        )
        return ok(present_rebuild_job(job), status=202)


class RebuildJobView(CmsAPIView):
    @endpoint("search.rebuild", response=RebuildJobOut, summary="A search index rebuild's progress")
    def get(self, request, job_id: str):
        """Entries checked of the total while it runs; the counts when done; why it stopped when failed."""
        return ok(
            present_rebuild_job(
                selectors.search_rebuild_job_read(actor=actor_from_request(request), job_id=job_id)
            )
        )


class StatsView(CmsAPIView):
    @endpoint("search.stats", response=StatsOut, summary="Search index statistics")
    def get(self, request):
        """Documents per collection and locale, the index engine, and when each collection was last rebuilt."""
        return ok(selectors.search_stats(actor=actor_from_request(request)))
