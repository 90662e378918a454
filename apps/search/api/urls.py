from django.urls import path

from apps.search.api.views import (
    RebuildJobsView,
    RebuildJobView,
    RebuildView,
    SearchView,
    StatsView,
    SuggestView,
)

urlpatterns = [
    path("search", SearchView.as_view()),
    path("search/suggest", SuggestView.as_view()),
    path("search/rebuild", RebuildView.as_view()),
    path("search/rebuild/jobs", RebuildJobsView.as_view()),
    path("search/rebuild/jobs/<str:job_id>", RebuildJobView.as_view()),
    path("search/stats", StatsView.as_view()),
]
