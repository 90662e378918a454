"""Which changes make which events, with what payload, and that an event exists exactly when its change committed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content import services as content_services
from apps.webhooks import delivery
from apps.webhooks.models import Delivery, Event
from tests.factories import make_entry, png_bytes
from tests.webhooks.conftest import create_endpoint

HOOK = "https://hooks.example.com/cms"


def events_sent(api, endpoint_id: str) -> list[dict]:
    """The payloads of the endpoint's deliveries, oldest first (the API lists newest first), once the worker has
    made the events into deliveries (its first step; sending is left out: these receivers do not exist)."""
    delivery.fan_out(1000)
    response = api.get(f"/_cms/api/webhooks/{endpoint_id}/deliveries", {"limit": 100})
    assert response.status_code == 200
    return [item["payload"] for item in reversed(response.json()["data"]["items"])]


def _types(payloads: list[dict]) -> list[tuple[str, dict]]:
    return [(payload["type"], payload["data"]) for payload in payloads]


def test_without_an_endpoint_a_change_writes_no_event(admin_api, posts_collection):
    make_entry(posts_collection, {"title": "Quiet"})
    assert Event.objects.count() == 0


def test_every_entry_change_is_an_event_with_the_entry_ids(admin_api, posts_collection):
    hook = create_endpoint(admin_api, HOOK, payloadMode="ids")
    base = "/_cms/api/content/posts"
    created = admin_api.post(base, {"data": {"title": "Hello"}}, format="json").json()["data"]["item"]
    entry = f"{base}/{created['id']}"
    assert admin_api.patch(entry, {"data": {"title": "Hello again"}}, format="json").status_code == 200
    assert admin_api.post(f"{entry}/publish", {}, format="json").status_code == 200
    assert admin_api.post(f"{entry}/unpublish", {}, format="json").status_code == 200
    later = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    assert admin_api.post(f"{entry}/schedule", {"scheduledAt": later}, format="json").status_code == 200
    assert admin_api.delete(f"{entry}/schedule").status_code == 200
    assert admin_api.delete(entry).status_code == 200
    assert admin_api.post(f"{entry}/restore", {}, format="json").status_code == 200
    assert admin_api.delete(entry).status_code == 200
    assert admin_api.delete(f"{entry}/permanent").status_code == 200

    ids = {"id": created["id"], "collection": "posts", "locale": "en", "slug": "hello"}
    assert _types(events_sent(admin_api, hook["id"])) == [
        ("entry.created", ids),
        ("entry.updated", ids),
        ("entry.published", ids),
        ("entry.unpublished", ids),
        ("entry.scheduled", ids),
        ("entry.unscheduled", ids),
        ("entry.trashed", ids),
        ("entry.restored", ids),
        ("entry.trashed", ids),
        ("entry.deleted", ids),
    ]


def test_a_full_payload_is_the_entry_as_the_public_api_shows_it(admin_api, client_for, posts_collection):
    hook = create_endpoint(admin_api, HOOK, eventTypes=["entry.published"])
    created = admin_api.post(
        "/_cms/api/content/posts", {"data": {"title": "Shown", "views": 3}}, format="json"
    ).json()["data"]["item"]
    admin_api.post(f"/_cms/api/content/posts/{created['id']}/publish", {}, format="json")
    reader = client_for(Role.SUBSCRIBER, scopes=("content:read",))
    public = reader.get(f"/_cms/api/content/posts/{created['id']}").json()["data"]["item"]

    [payload] = events_sent(admin_api, hook["id"])
    event = Event.objects.get()
    assert payload == {
        "id": event.pk,
        "type": "entry.published",
        "timestamp": event.created_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "actor": {"userId": admin_api.user.pk, "via": "token"},
        "data": public,
    }


def test_a_drafts_working_copy_is_not_sent(admin_api, posts_collection):
    # Receivers are outside the CMS's access control: they get what anyone reading the public API would.
    hook = create_endpoint(admin_api, HOOK, eventTypes=["entry.created"])
    admin_api.post("/_cms/api/content/posts", {"data": {"title": "Secret plan"}}, format="json")
    [payload] = events_sent(admin_api, hook["id"])
    assert payload["data"]["status"] == "draft"
    assert payload["data"]["data"] == {}


def test_media_schema_and_site_changes_are_events(admin_api, posts_collection):
    hook = create_endpoint(admin_api, HOOK, payloadMode="ids")
    api = "/_cms/api"
    upload = admin_api.post(f"{api}/media", {"file": _png("a.png")}, format="multipart").json()["data"]
    admin_api.patch(f"{api}/media/{upload['id']}", {"alt": "A dot"}, format="json")
    admin_api.delete(f"{api}/media/{upload['id']}")
    admin_api.post(f"{api}/schema/collections", {"slug": "pages", "label": "Pages"}, format="json")
    admin_api.patch(f"{api}/schema/collections/pages", {"label": "Site pages"}, format="json")
    field = admin_api.post(
        f"{api}/schema/collections/pages/fields",
        {"slug": "title", "type": "string", "label": "Title"},
        format="json",
    ).json()["data"]
    admin_api.patch(f"{api}/schema/collections/pages/fields/title", {"label": "Heading"}, format="json")
    admin_api.delete(f"{api}/schema/collections/pages/fields/title")
    pages = admin_api.get(f"{api}/schema/collections/pages").json()["data"]
    admin_api.delete(f"{api}/schema/collections/pages")
    taxonomy = admin_api.post(
        f"{api}/taxonomies", {"name": "topic", "label": "Topics", "collections": ["posts"]}, format="json"
    ).json()["data"]
    admin_api.patch(f"{api}/taxonomies/topic", {"label": "Subjects"}, format="json")
    term = admin_api.post(f"{api}/taxonomies/topic/terms", {"label": "News"}, format="json").json()["data"]
    admin_api.patch(f"{api}/taxonomies/topic/terms/news", {"label": "Latest"}, format="json")
    admin_api.delete(f"{api}/taxonomies/topic/terms/news")
    admin_api.delete(f"{api}/taxonomies/topic")
    menu = admin_api.post(f"{api}/menus", {"name": "main", "label": "Main"}, format="json").json()["data"]
    admin_api.post(f"{api}/menus/main/items", {"type": "custom", "label": "Home", "url": "/"}, format="json")
    admin_api.delete(f"{api}/menus/main")
    section = admin_api.post(f"{api}/sections", {"title": "Footer"}, format="json").json()["data"]
    admin_api.patch(f"{api}/sections/footer", {"title": "Page footer"}, format="json")
    admin_api.delete(f"{api}/sections/footer")
    area = admin_api.post(f"{api}/widget-areas", {"name": "side", "label": "Side"}, format="json").json()[
        "data"
    ]
    widget = admin_api.post(f"{api}/widget-areas/side/widgets", {"type": "content"}, format="json").json()[
        "data"
    ]
    admin_api.patch(f"{api}/widget-areas/side/widgets/{widget['id']}", {"title": "About"}, format="json")
    admin_api.delete(f"{api}/widget-areas/side/widgets/{widget['id']}")
    admin_api.patch(f"{api}/widget-areas/side", {"label": "Sidebar"}, format="json")
    admin_api.delete(f"{api}/widget-areas/side")
    admin_api.put(f"{api}/settings", {"siteTitle": "Renamed"}, format="json")

    media_ids = {"id": upload["id"]}
    pages_ids = {"id": pages["id"], "slug": "pages"}
    field_ids = {"id": field["id"], "slug": "title", "collection": "pages"}
    taxonomy_ids = {"id": taxonomy["id"], "name": "topic"}
    term_ids_before, term_ids_after = (
        {"id": term["id"], "slug": "news", "taxonomy": "topic"},
        {"id": term["id"], "slug": "news", "taxonomy": "topic"},
    )
    menu_ids = {"id": menu["id"], "name": "main"}
    section_ids = {"id": section["id"], "slug": "footer"}
    area_ids = {"id": area["id"], "name": "side"}
    widget_ids = {"id": widget["id"], "area": "side"}
    assert _types(events_sent(admin_api, hook["id"])) == [
        ("media.created", media_ids),
        ("media.updated", media_ids),
        ("media.deleted", media_ids),
        ("schema.collection.created", pages_ids),
        ("schema.collection.updated", pages_ids),
        ("schema.field.created", field_ids),
        ("schema.field.updated", field_ids),
        ("schema.field.deleted", field_ids),
        ("schema.collection.deleted", pages_ids),
        ("taxonomy.created", taxonomy_ids),
        ("taxonomy.updated", taxonomy_ids),
        ("term.created", term_ids_before),
        ("term.updated", term_ids_after),
        ("term.deleted", term_ids_after),
        ("taxonomy.deleted", taxonomy_ids),
        ("menu.created", menu_ids),
        ("menu.updated", menu_ids),
        ("menu.deleted", menu_ids),
        ("section.created", section_ids),
        ("section.updated", section_ids),
        ("section.deleted", section_ids),
        ("widget.area.created", area_ids),
        ("widget.created", widget_ids),
        ("widget.updated", widget_ids),
        ("widget.deleted", widget_ids),
        ("widget.area.updated", area_ids),
        ("widget.area.deleted", area_ids),
        ("settings.updated", {}),
    ]


def _png(name: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, png_bytes(), content_type="image/png")


def test_full_payloads_of_site_resources_are_their_public_answers(admin_api):
    hook = create_endpoint(admin_api, HOOK, eventTypes=["section.*", "settings.updated", "menu.*"])
    admin_api.post("/_cms/api/sections", {"title": "Footer"}, format="json")
    admin_api.put("/_cms/api/settings", {"tagline": "Fresh"}, format="json")
    admin_api.post("/_cms/api/menus", {"name": "main", "label": "Main"}, format="json")
    section, settings_answer, menu = (
        admin_api.get(path).json()["data"]
        for path in ("/_cms/api/sections/footer", "/_cms/api/settings", "/_cms/api/menus/main")
    )
    assert [(p["type"], p["data"]) for p in events_sent(admin_api, hook["id"])] == [
        ("section.created", section),
        ("settings.updated", settings_answer),
        ("menu.created", menu),
    ]


def test_a_rolled_back_change_leaves_no_event(admin_api, posts_collection):
    create_endpoint(admin_api, HOOK)
    with pytest.raises(RuntimeError), transaction.atomic():
        make_entry(posts_collection, {"title": "Never"})
        assert Event.objects.count() == 1  # written with the change, inside its transaction
        raise RuntimeError("the request failed after the write")
    assert Event.objects.count() == 0
    assert Delivery.objects.count() == 0


def test_a_refused_write_leaves_no_event(admin_api, posts_collection):
    create_endpoint(admin_api, HOOK)
    response = admin_api.post("/_cms/api/content/posts", {"data": {"views": 1}}, format="json")
    assert response.status_code == 400  # the title is required
    assert Event.objects.count() == 0


def test_subscriptions_and_collection_filters_choose_the_endpoints(admin_api, posts_collection):
    admin_api.post("/_cms/api/schema/collections", {"slug": "pages", "label": "Pages"}, format="json")
    everything = create_endpoint(admin_api, HOOK)
    only_posts = create_endpoint(admin_api, HOOK, eventTypes=["entry.*", "media.*"], collections=["posts"])
    published = create_endpoint(admin_api, HOOK, eventTypes=["entry.published"])
    off = create_endpoint(admin_api, HOOK, active=False)
    post = make_entry(posts_collection, {"title": "A post"})
    content_services.entry_publish(actor=Actor.system(), entry=post)
    from apps.schema.selectors import collection_for_read

    make_entry(collection_for_read(slug="pages"), {})
    admin_api.post("/_cms/api/media", {"file": _png("b.png")}, format="multipart")

    def sent(hook):
        return [(p["type"], p["data"].get("type")) for p in events_sent(admin_api, hook["id"])]

    assert sent(everything) == [
        ("entry.created", "posts"),
        ("entry.published", "posts"),
        ("entry.created", "pages"),
        ("media.created", None),
    ]
    # The collection filter applies to collection-bound events only: media still comes.
    assert sent(only_posts) == [
        ("entry.created", "posts"),
        ("entry.published", "posts"),
        ("media.created", None),
    ]
    assert sent(published) == [("entry.published", "posts")]
    assert sent(off) == []


def test_entries_created_together_are_one_event_each(admin_api, posts_collection):
    # The importer's path (no HTTP face of its own): one entries_created signal, one event per entry.
    hook = create_endpoint(admin_api, HOOK, payloadMode="ids")
    rows = [{"data": {"title": "One"}, "slug": "one"}, {"data": {"title": "Two"}, "slug": "two"}]
    content_services.entry_create_many(actor=Actor.system(), collection=posts_collection, rows=rows)
    assert sorted((p["type"], p["data"]["slug"]) for p in events_sent(admin_api, hook["id"])) == [
        ("entry.created", "one"),
        ("entry.created", "two"),
    ]
