from django.urls import path

from apps.schema.api.views import CollectionViewSet, FieldViewSet, SchemaExportView

COLLECTION = "schema/collections/<str:collection>"
FIELD_ACTIONS = {"get": "retrieve", "patch": "partial_update", "put": "update", "delete": "destroy"}

urlpatterns = [
    path("schema", SchemaExportView.as_view(), name="schema-export"),
    path("schema/collections", CollectionViewSet.as_view({"get": "list", "post": "create"})),
    path(
        "schema/collections/<str:slug>",
        CollectionViewSet.as_view(
            {"get": "retrieve", "patch": "partial_update", "put": "update", "delete": "destroy"}
        ),
    ),
    path(f"{COLLECTION}/fields", FieldViewSet.as_view({"get": "list", "post": "create"})),
    # POST …/fields/reorder reorders; the other methods there still reach a field that is named "reorder".
    path(
        f"{COLLECTION}/fields/reorder",
        FieldViewSet.as_view({"post": "reorder", **FIELD_ACTIONS}),
        kwargs={"field": "reorder"},
        name="schema-fields-reorder",
    ),
    path(f"{COLLECTION}/fields/<str:field>", FieldViewSet.as_view(FIELD_ACTIONS)),
]
