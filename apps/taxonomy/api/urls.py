from django.urls import path

from apps.taxonomy.api.views import EntryTermsViewSet, TaxonomyViewSet, TermViewSet

DETAIL = {"get": "retrieve", "put": "update", "patch": "partial_update", "delete": "destroy"}

urlpatterns = [
    path("taxonomies", TaxonomyViewSet.as_view({"get": "list", "post": "create"})),
    path("taxonomies/<str:name>", TaxonomyViewSet.as_view(DETAIL)),
    path("taxonomies/<str:name>/terms", TermViewSet.as_view({"get": "list", "post": "create"})),
    path("taxonomies/<str:name>/terms/<str:slug>", TermViewSet.as_view(DETAIL)),
    path(
        "content/<str:collection>/<str:ref>/terms/<str:taxonomy>",
        EntryTermsViewSet.as_view({"get": "list", "post": "create"}),
    ),
]
