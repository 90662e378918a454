"""The studio's media library (/_cms/admin/media/): grid and list, type filter, search, pages; uploads of several
files without scripts (per-file results in plain words, the same bytes pointing at the existing item); the item page
(alt text and caption through media_update, checked over REST; where it is used; delete after a confirmation naming
those uses, then REST 404); and who may change what, from the permission table."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.accounts.models import Role
from apps.media.models import MediaItem
from tests.factories import make_collection, make_entry, make_media, make_user, png_bytes, wav_bytes

pytestmark = pytest.mark.django_db
LIBRARY = "/_cms/admin/media/"
UPLOAD = "/_cms/admin/media/upload"
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def html(response) -> str:
    return response.content.decode()


@pytest.fixture
def ada():
    return make_user(Role.AUTHOR, email="ada@example.com", name="Ada Lovelace")


@pytest.fixture
def library(ada):
    return {
        "harbour": make_media(
            ada, content=png_bytes(color=(1, 2, 3), size=(8, 6)), filename="harbour.png", alt="Boats"
        ),
        "song": make_media(ada, content=wav_bytes(), filename="song.wav", caption="Harbour song"),
        "fees": make_media(content=PDF, filename="fees.pdf"),
    }


def test_grid_shows_each_item_with_its_facts_and_uploader(library):
    client = signed_in(make_user(Role.EDITOR, email="ed@example.com"))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(LIBRARY)
    assert response.status_code == 200
    page = html(response)
    harbour = library["harbour"]
    assert f'<a href="/_cms/admin/media/{harbour.pk}/"><img src="' in page
    assert 'alt="Boats" loading="lazy" width="8" height="6"><span class="name">harbour.png</span></a>' in page
    assert "image/png · " in page and " · 8\u00d76<br>Ada Lovelace · <time" in page
    assert (
        '<span class="file" aria-hidden="true">application/pdf</span><span class="name">fees.pdf</span>'
        in page
    )
    # The item whose uploader is unknown (uploaded by the system) says so.
    assert "Unknown · <time" in page
    # Uploaders come with the items: one query for the page of media, however many items it holds.
    media_queries = [query["sql"] for query in queries.captured_queries if "media_mediaitem" in query["sql"]]
    assert len(media_queries) == 1 and "accounts_user" in media_queries[0]


def test_list_view_is_a_table_and_the_toggle_keeps_the_filters(library):
    client = signed_in(make_user(Role.CONTRIBUTOR, email="c@example.com"))
    page = html(client.get(LIBRARY, {"view": "list", "type": "audio", "q": "harbour"}))
    assert '<table class="responsive media-table">' in page
    assert '<th scope="col">Uploaded by</th>' in page
    assert f'<th scope="row"><a href="/_cms/admin/media/{library["song"].pk}/">song.wav</a></th>' in page
    assert "harbour.png" not in page and "fees.pdf" not in page
    assert '<a href="/_cms/admin/media/?type=audio&amp;q=harbour" >Grid</a>'.replace(" >", ">") in page
    assert (
        '<a href="/_cms/admin/media/?type=audio&amp;q=harbour&amp;view=list" aria-current="true">List</a>'
        in page
    )
    assert '<input type="hidden" name="view" value="list">' in page
    # Contributors may not upload (the permission table): no upload form.
    assert "data-media-upload" not in page


def test_type_filter_and_search_by_filename_alt_and_caption(library):
    client = signed_in(make_user(Role.EDITOR, email="ed@example.com"))

    def names(**query):
        return re.findall(r'<span class="name">([^<]+)</span>', html(client.get(LIBRARY, query)))

    assert names() == ["fees.pdf", "song.wav", "harbour.png"]
    assert names(type="image") == ["harbour.png"]
    assert names(type="application") == ["fees.pdf"]
    assert names(q="boats") == ["harbour.png"]  # alt text
    assert names(q="HARBOUR") == ["song.wav", "harbour.png"]  # caption and filename
    assert names(type="video") == []
    assert "No media matches “zebra”." in html(client.get(LIBRARY, {"q": "zebra"}))


def test_pages_follow_the_cursor_with_the_filters(library, monkeypatch):
    from apps.studio.views import media

    monkeypatch.setattr(media, "PAGE_SIZE", 2)
    client = signed_in(make_user(Role.EDITOR, email="ed@example.com"))
    first = html(client.get(LIBRARY, {"view": "list"}))
    assert first.count('<th scope="row">') == 2
    next_url = re.search(r'<a href="([^"]+)">Next page</a>', first).group(1).replace("&amp;", "&")
    assert "view=list" in next_url and "cursor=" in next_url
    second = html(client.get(next_url))
    assert second.count('<th scope="row">') == 1 and "harbour.png" in second
    assert "Next page" not in second
    assert '<a href="/_cms/admin/media/?view=list">First page</a>' in second


def test_upload_form_without_scripts_takes_several_files_and_says_what_became_of_each(
    ada, library, settings, admin_api
):
    settings.CMS_MAX_UPLOAD_BYTES = 2000
    client = signed_in(ada)
    response = client.post(
        UPLOAD,
        {
            "file": [
                SimpleUploadedFile("new.png", png_bytes(color=(9, 9, 9))),
                SimpleUploadedFile("copy.png", png_bytes(color=(1, 2, 3), size=(8, 6))),
                SimpleUploadedFile("notes.txt", b"just some words\n"),
                SimpleUploadedFile("big.png", png_bytes(color=(5, 5, 5)) + b"\0" * 3000),
            ]
        },
        follow=True,
    )
    assert response.redirect_chain == [(LIBRARY, 302)]
    page = html(response)
    assert "<li>Uploaded new.png.</li>" in page
    assert "<li>copy.png is already in the library as harbour.png.</li>" in page
    assert (
        "<li>notes.txt was not uploaded: this type of file is not allowed. Allowed: images, video, audio and PDF.</li>"
        in page
    )
    assert "<li>big.png was not uploaded: it is too large. Files may be at most 2.0\xa0KB.</li>" in page
    names = sorted(item["filename"] for item in admin_api.get("/_cms/api/media").json()["data"]["items"])
    assert names == ["fees.pdf", "harbour.png", "new.png", "song.wav"]


def test_storage_full_is_said_plainly(ada, settings):
    settings.CMS_MEDIA_QUOTA_BYTES = 10
    page = html(signed_in(ada).post(UPLOAD, {"file": SimpleUploadedFile("a.png", png_bytes())}, follow=True))
    assert "a.png was not uploaded: the media storage is full. Ask an administrator to free space." in page
    assert MediaItem.objects.count() == 0


@pytest.fixture
def used(library):
    posts = make_collection(
        "posts",
        label="Posts",
        fields=[
            {"slug": "title", "type": "string"},
            {"slug": "hero", "type": "image"},
            {"slug": "body", "type": "portableText"},
        ],
    )
    photo = library["harbour"]
    hero = make_entry(posts, {"title": "Harbour day", "hero": {"id": photo.pk}}, slug="harbour-day")
    inline = make_entry(
        posts,
        {
            "title": "Boats inline",
            "body": [{"_type": "image", "_key": "i1", "mediaId": photo.pk, "alt": "x"}],
        },
        slug="boats-inline",
    )
    make_entry(posts, {"title": "Unrelated", "hero": {"id": library["song"].pk}}, slug="unrelated")
    return {"photo": photo, "hero": hero, "inline": inline}


def test_item_page_shows_preview_facts_url_and_where_it_is_used(used):
    client = signed_in(make_user(Role.EDITOR, email="ed@example.com"))
    photo = used["photo"]
    page = html(client.get(f"{LIBRARY}{photo.pk}/"))
    assert "<h1>harbour.png</h1>" in page
    assert "<dt>Pixels</dt><dd>8\u00d76</dd>" in page
    assert "<dt>Uploaded by</dt><dd>Ada Lovelace</dd>" in page
    assert re.search(
        r'<input type="text" id="media-url" value="http://[^"]+/_cms/api/media/file/[^"]+harbour.png" readonly>',
        page,
    )
    assert '<button type="button" data-copy="media-url" hidden>Copy URL</button>' in page
    usages = re.findall(r'<a href="/_cms/admin/content/posts/([0-9A-Z]+)/">([^<]+)</a>', page)
    assert sorted(usages) == sorted([(used["hero"].pk, "Harbour day"), (used["inline"].pk, "Boats inline")])
    assert "Posts · hero" in page and "Posts · body" in page
    song = html(client.get(f"{LIBRARY}{MediaItem.objects.get(filename='song.wav').pk}/"))
    assert '<audio controls preload="metadata" src="' in song
    fees = html(client.get(f"{LIBRARY}{MediaItem.objects.get(filename='fees.pdf').pk}/"))
    assert "Not used by any entry." in fees and "Download fees.pdf" in fees
    assert client.get(f"{LIBRARY}01ARZ3NDEKTSV4RRFFQ69G5FAV/").status_code == 404


def test_editing_alt_text_and_caption_goes_through_the_service(used, ada, admin_api):
    client = signed_in(ada)
    photo = used["photo"]
    response = client.post(f"{LIBRARY}{photo.pk}/", {"alt": "  Fishing boats at dawn ", "caption": "Morning"})
    assert response.status_code == 302 and response["Location"] == f"{LIBRARY}{photo.pk}/"
    assert "Saved harbour.png." in html(client.get(response["Location"]))
    item = admin_api.get(f"/_cms/api/media/{photo.pk}").json()["data"]
    assert (item["alt"], item["caption"]) == ("Fishing boats at dawn", "Morning")
    too_long = client.post(f"{LIBRARY}{photo.pk}/", {"alt": "a" * 1001, "caption": ""})
    assert too_long.status_code == 400
    page = html(too_long)
    assert 'aria-invalid="true"' in page and '<p class="error" id="media-alt-error">' in page
    assert admin_api.get(f"/_cms/api/media/{photo.pk}").json()["data"]["alt"] == "Fishing boats at dawn"


def test_an_author_cannot_change_someone_elses_media(used, admin_api):
    # media.update: authors their own, editors anyone's (apps/media/apps.py).
    other = signed_in(make_user(Role.AUTHOR, email="bob@example.com"))
    photo = used["photo"]
    page = html(other.get(f"{LIBRARY}{photo.pk}/"))
    assert "Only its uploader or an editor may change this item." in page
    assert "readonly>Boats</textarea>" in page and "Delete…" not in page
    refused = other.post(f"{LIBRARY}{photo.pk}/", {"alt": "Mine now", "caption": ""})
    assert refused.status_code == 403
    assert other.post(f"{LIBRARY}{photo.pk}/delete").status_code == 403
    assert admin_api.get(f"/_cms/api/media/{photo.pk}").json()["data"]["alt"] == "Boats"
    contributor = signed_in(make_user(Role.CONTRIBUTOR, email="c@example.com"))
    assert contributor.post(f"{LIBRARY}{photo.pk}/", {"alt": "x", "caption": ""}).status_code == 403
    editor = signed_in(make_user(Role.EDITOR, email="ed@example.com"))
    assert editor.post(f"{LIBRARY}{photo.pk}/", {"alt": "Edited", "caption": ""}).status_code == 302
    assert admin_api.get(f"/_cms/api/media/{photo.pk}").json()["data"]["alt"] == "Edited"


def test_delete_asks_first_naming_the_uses_then_deletes(used, ada, admin_api):
    client = signed_in(ada)
    photo = used["photo"]
    confirm = client.get(f"{LIBRARY}{photo.pk}/delete")
    assert confirm.status_code == 200
    page = html(confirm)
    assert "<h1>Delete harbour.png?</h1>" in page
    assert "<strong>2 entries use this file.</strong>" in page
    assert ">Harbour day</a>" in page and ">Boats inline</a>" in page
    assert admin_api.get(f"/_cms/api/media/{photo.pk}").status_code == 200
    response = client.post(f"{LIBRARY}{photo.pk}/delete", follow=True)
    assert response.redirect_chain == [(LIBRARY, 302)]
    assert "<li>Deleted harbour.png.</li>" in html(response)
    assert admin_api.get(f"/_cms/api/media/{photo.pk}").status_code == 404
    unused = MediaItem.objects.get(filename="song.wav")
    assert "No entry uses this file." not in html(client.get(f"{LIBRARY}{unused.pk}/delete"))
    fees = MediaItem.objects.get(filename="fees.pdf")
    editor = signed_in(make_user(Role.EDITOR, email="ed@example.com"))
    assert "No entry uses this file." in html(editor.get(f"{LIBRARY}{fees.pk}/delete"))
