"""The studio's pages under /_cms/admin/ (docs/studio.md), beside the sign-in pages of apps.accounts."""

from django.urls import path

from apps.studio.views import (
    admin_tools,
    bulk,
    dashboard,
    delivery,
    editor,
    editor_actions,
    entries,
    imports,
    media,
    menus,
    people,
    pickers,
    revisions,
    schema,
    schema_fields,
    sections,
    site_settings,
    taxonomies,
    widgets,
)

app_name = "studio"

ENTRY = "content/<slug:collection>/<str:entry_id>/"
SCHEMA = "schema/<slug:collection>/"

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    path("content/<slug:collection>/", entries.entry_list_page, name="entries"),
    path("content/<slug:collection>/trash/", entries.entry_trash_page, name="entries-trash"),
    path("content/<slug:collection>/bulk", bulk.entries_bulk, name="entries-bulk"),
    # After the trash: "trash/" is the list's, not an entry's address.
    path("content/<slug:collection>/new", editor.entry_new, name="entry-new"),
    path(ENTRY, editor.entry_edit, name="entry-edit"),
    path(f"{ENTRY}revisions/", revisions.revisions_page, name="entry-revisions"),
    path(f"{ENTRY}revisions/<str:revision_id>/", revisions.revision_page, name="entry-revision"),
    path(
        f"{ENTRY}revisions/<str:revision_id>/restore",
        revisions.revision_restore_page,
        name="entry-revision-restore",
    ),
    path(f"{ENTRY}compare", revisions.compare_page, name="entry-compare"),
    # Before the lifecycle actions: "preview" is not one of them.
    path(f"{ENTRY}preview", delivery.entry_preview, name="entry-preview"),
    path(
        f"{ENTRY}<slug:action>",
        editor_actions.entry_action,
        name="entry-action",
    ),
    path("redirects/", delivery.redirects_page, name="redirects"),
    path("redirects/<str:redirect_id>/delete", delivery.redirect_delete, name="redirect-delete"),
    path("media/", media.media_library, name="media"),
    path("media/upload", media.media_upload_form, name="media-upload"),
    path("media/<str:media_id>/", media.media_item, name="media-item"),
    path("media/<str:media_id>/delete", media.media_item_delete, name="media-delete"),
    path("pick/media", pickers.pick_media, name="pick-media"),
    path("pick/media/upload", pickers.pick_media_upload, name="pick-media-upload"),
    path("pick/entries", pickers.pick_entries, name="pick-entries"),
    path("taxonomies/", taxonomies.taxonomy_list_page, name="taxonomies"),
    # No trailing slash, unlike a taxonomy's page: a taxonomy may be named "new" (taxonomies/new/).
    path("taxonomies/new", taxonomies.taxonomy_new, name="taxonomy-new"),
    path("taxonomies/<str:name>/", taxonomies.taxonomy_page, name="taxonomy"),
    path("taxonomies/<str:name>/edit", taxonomies.taxonomy_edit, name="taxonomy-edit"),
    path("taxonomies/<str:name>/terms/<str:slug>/", taxonomies.term_edit, name="term-edit"),
    path("taxonomies/<str:name>/terms/<str:slug>/delete", taxonomies.term_delete, name="term-delete"),
    path("menus/", menus.menu_list_page, name="menus"),
    path("menus/<str:name>/", menus.menu_page, name="menu"),
    path("menus/<str:name>/rename", menus.menu_rename, name="menu-rename"),
    path("menus/<str:name>/delete", menus.menu_delete, name="menu-delete"),
    path("menus/<str:name>/items", menus.menu_item_add, name="menu-item-add"),
    path("menus/<str:name>/items/<str:item_id>/delete", menus.menu_item_delete, name="menu-item-delete"),
    path("menus/<str:name>/move", menus.menu_item_move, name="menu-move"),
    path("menus/<str:name>/order", menus.menu_order, name="menu-order"),
    # Widget areas: an area's name is lowercase letters, digits, - and _, a widget's id a ULID with a trailing slash,
    # so an area named "new" and a widget never take each other's address.
    path("widgets/", widgets.widget_areas_page, name="widgets"),
    path("widgets/<str:name>/edit", widgets.widget_area_edit, name="widget-area-edit"),
    path("widgets/<str:name>/delete", widgets.widget_area_delete, name="widget-area-delete"),
    path("widgets/<str:name>/new", widgets.widget_new, name="widget-new"),
    path("widgets/<str:name>/move", widgets.widget_move, name="widget-move"),
    path("widgets/<str:name>/order", widgets.widget_order, name="widget-order"),
    path("widgets/<str:name>/<str:widget_id>/", widgets.widget_edit, name="widget-edit"),
    path("widgets/<str:name>/<str:widget_id>/delete", widgets.widget_delete, name="widget-delete"),
    # Sections: "new" has no trailing slash, so a section whose slug is "new" stays reachable.
    path("sections/", sections.section_list_page, name="sections"),
    path("sections/new", sections.section_new, name="section-new"),
    path("sections/<str:slug>/", sections.section_edit, name="section"),
    path("sections/<str:slug>/delete", sections.section_delete, name="section-delete"),
    # The schema builder. "new" and the downloads have no trailing slash, so a collection named "new" stays reachable.
    path("schema/", schema.schema_home, name="schema"),
    path("schema/new", schema.collection_new, name="schema-collection-new"),
    path("schema/export.<str:format>", schema.schema_download, name="schema-download"),
    path(SCHEMA, schema_fields.collection_page, name="schema-collection"),
    path(f"{SCHEMA}edit", schema.collection_edit, name="schema-collection-edit"),
    path(f"{SCHEMA}delete", schema.collection_delete, name="schema-collection-delete"),
    path(f"{SCHEMA}reorder", schema_fields.fields_reorder, name="schema-fields-reorder"),
    path(f"{SCHEMA}fields/new", schema_fields.field_new, name="schema-field-new"),
    path(f"{SCHEMA}fields/<slug:field>/", schema_fields.field_edit, name="schema-field"),
    path(f"{SCHEMA}fields/<slug:field>/remove", schema_fields.field_remove, name="schema-field-remove"),
    # The WordPress import wizard: upload or probe, the analysis, then the job (its page, status and media).
    path("import/", imports.import_home, name="import"),
    path("import/upload", imports.import_upload, name="import-upload"),
    path("import/probe", imports.import_probe, name="import-probe"),
    path("import/analysis/<str:analysis_id>/", imports.import_analysis, name="import-analysis"),
    path("import/jobs/<str:job_id>/", imports.import_job, name="import-job"),
    path("import/jobs/<str:job_id>/status", imports.import_job_status, name="import-job-status"),
    path("import/jobs/<str:job_id>/media", imports.import_job_media, name="import-job-media"),
    # Administration: settings, people, plugins, the search index.
    path("settings/", site_settings.settings_page, name="settings"),
    path("people/", people.people_page, name="people"),
    path("people/invite", people.people_invite, name="people-invite"),
    path("people/<str:user_id>/role", people.person_role, name="person-role"),
    path("people/<str:user_id>/<slug:action>", people.person_active, name="person-active"),
    path("plugins/", admin_tools.plugins_page, name="plugins"),
    path("plugins/<str:plugin_id>/<slug:action>", admin_tools.plugin_toggle, name="plugin-toggle"),
    path("search/", admin_tools.search_page, name="search"),
]
