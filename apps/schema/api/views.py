"""``/_cms/api/schema/…``: collections and fields (SPEC §4.5), and the schema export as JSON or TypeScript."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from rest_framework.renderers import BaseRenderer

from apps.accounts.permissions import actor_from_request
from apps.core.api.renderers import JSONRenderer
from apps.core.api.views import CmsAPIView, CmsViewSet, endpoint, ok
from apps.core.presenters import SUCCESS, SuccessFlagOut
from apps.schema import selectors, services, typescript
from apps.schema.inputs import (
    CollectionCreateIn,
    CollectionDeleteQuery,
    CollectionGetQuery,
    CollectionUpdateIn,
    FieldDefinitionIn,
    FieldReorderIn,
    FieldUpdateIn,
    SchemaExportQuery,
    to_model_names,
)
from apps.schema.presenters import (
    CollectionListOut,
    CollectionOut,
    FieldListOut,
    FieldOut,
    SchemaOut,
    present_collection,
    present_collections,
    present_field,
    present_fields,
    present_schema,
)


class CollectionViewSet(CmsViewSet):
    lookup_field = "slug"

    @endpoint("schema.read", response=CollectionListOut, summary="List collections")
    def list(self, request):
        return ok(present_collections(selectors.collection_list(actor=actor_from_request(request))))

    @endpoint("schema.write", body=CollectionCreateIn, response=CollectionOut, status=201, errors=(409,))
    def create(self, request):
        """Create a collection (and its storage). ``supports`` defaults to drafts and revisions."""
        body = to_model_names(self.body)
        collection = services.collection_create(actor=actor_from_request(request), **body)
        return ok(present_collection(collection, with_fields=True), status=201)

    @endpoint("schema.read", query=CollectionGetQuery, response=CollectionOut, summary="Get a collection")
    def retrieve(self, request, slug: str):
        include = self.query["includeFields"]
        collection = selectors.collection_read(
            actor=actor_from_request(request), slug=slug, with_fields=include
        )
        return ok(present_collection(collection, with_fields=include))

    @endpoint("schema.write", body=CollectionUpdateIn, response=CollectionOut, summary="Update a collection")
    def partial_update(self, request, slug: str):
        collection = services.collection_update(
            actor=actor_from_request(request),
            collection=selectors.collection_get(slug=slug, with_fields=False),
            changes=to_model_names(self.body),
        )
        return ok(present_collection(selectors.collection_get(slug=collection.slug), with_fields=True))

    @endpoint(
        "schema.write",
        body=CollectionUpdateIn,
        response=CollectionOut,
        summary="Update a collection (as PATCH)",
    )
    def update(self, request, slug: str):
        return self.partial_update(request, slug)

    @endpoint(
        "schema.write",
        query=CollectionDeleteQuery,
        response=SuccessFlagOut,
        summary="Delete a collection",
    )
    def destroy(self, request, slug: str):
        services.collection_delete(
            actor=actor_from_request(request),
            collection=selectors.collection_get(slug=slug, with_fields=False),
            force=self.query["force"],
        )
        return ok(SUCCESS)


class FieldViewSet(CmsViewSet):
    @endpoint("schema.read", response=FieldListOut, summary="List a collection's fields")
    def list(self, request, collection: str):
        return ok(
            present_fields(selectors.field_list(actor=actor_from_request(request), collection=collection))
        )

    @endpoint(
        "schema.write",
        body=FieldDefinitionIn,
        response=FieldOut,
        status=201,
        errors=(409,),
        summary="Add a field",
    )
    def create(self, request, collection: str):
        field = services.field_create(
            actor=actor_from_request(request),
            collection=selectors.collection_get(slug=collection),
            definition=to_model_names(self.body),
        )
        return ok(present_field(field), status=201)

    @endpoint("schema.read", response=FieldOut, summary="Get a field")
    def retrieve(self, request, collection: str, field: str):
        return ok(
            present_field(
                selectors.field_read(actor=actor_from_request(request), collection=collection, slug=field)
            )
        )

    @endpoint("schema.write", body=FieldUpdateIn, response=FieldOut, summary="Update a field")
    def partial_update(self, request, collection: str, field: str):
        current = selectors.field_get(collection=selectors.collection_get(slug=collection), slug=field)
        updated = services.field_update(
            actor=actor_from_request(request), field=current, changes=to_model_names(self.body)
        )
        return ok(present_field(updated))

    @endpoint("schema.write", body=FieldUpdateIn, response=FieldOut, summary="Update a field (as PATCH)")
    def update(self, request, collection: str, field: str):
        return self.partial_update(request, collection, field)

    @endpoint("schema.write", response=SuccessFlagOut, summary="Remove a field and its data")
    def destroy(self, request, collection: str, field: str):
        current = selectors.field_get(collection=selectors.collection_get(slug=collection), slug=field)
        services.field_delete(actor=actor_from_request(request), field=current)
        return ok(SUCCESS)

    @endpoint("schema.write", body=FieldReorderIn, response=FieldListOut, summary="Reorder fields")
    def reorder(self, request, collection: str, field: str = "reorder"):
        """Put the named fields first, in that order; fields not named keep their order after them."""
        fields = services.fields_reorder(
            actor=actor_from_request(request),
            collection=selectors.collection_get(slug=collection),
            field_slugs=self.body["fieldSlugs"],
        )
        return ok(present_fields(fields))


class TypeScriptRenderer(BaseRenderer):
    media_type = "text/typescript"
    format = "typescript"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data.encode() if isinstance(data, str) else b""


class SchemaExportView(CmsAPIView):
    renderer_classes = [JSONRenderer, TypeScriptRenderer]

    @endpoint(
        "schema.read",
        query=SchemaExportQuery,
        response={"application/json": SchemaOut, "text/typescript": OpenApiTypes.STR},
        summary="Export the schema as JSON or TypeScript",
    )
    def get(self, request):
        """Every collection with its fields. ``?format=typescript`` or ``Accept: text/typescript`` gives TypeScript
        interfaces (one per collection) instead of JSON."""
        collections = selectors.collection_list(actor=actor_from_request(request), with_fields=True)
        wants_typescript = (
            self.query["format"] == "typescript" or request.accepted_renderer.format == "typescript"
        )
        if wants_typescript:
            return HttpResponse(typescript.render(collections), content_type="text/typescript; charset=utf-8")
        return ok(present_schema(collections))
