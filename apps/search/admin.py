"""Django admin for the search index: read-only views of the documents and of the last rebuilds, for operators checking
what is indexed. The index is written by the content services and by ``manage.py reindex``, never here."""

from __future__ import annotations

from django.contrib import admin

from apps.search.models import SearchDocument, SearchRebuild


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(SearchDocument)
class SearchDocumentAdmin(ReadOnlyAdmin):
    list_display = ("title", "collection", "locale", "published", "working", "slug", "entry_id")
    list_filter = ("collection", "locale", "published", "working")
    search_fields = ("title", "slug", "entry__id")
    fields = (
        "entry_id",
        "collection",
        "locale",
        "published",
        "working",
        "slug",
        "title",
        "body",
        "signature",
    )
    show_full_result_count = False


@admin.register(SearchRebuild)
class SearchRebuildAdmin(ReadOnlyAdmin):
    list_display = ("collection", "rebuilt_at", "entries", "documents", "seconds")
