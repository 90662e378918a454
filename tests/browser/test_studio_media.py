"""The media library in real Chromium under the studio's CSP (apps/studio/static/studio/media-library.js): files
chosen in the picker and files dropped on the drop zone upload one request each with a progress bar, the same bytes
again are named as already in the library, and the item page saves alt text and copies the public URL. Each page
passes tests/browser/studio.py's checks (axe, console and CSP errors) and leaves its screenshots in var/screenshots/."""

from __future__ import annotations

import base64

import pytest
from django.test import Client
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.media.models import MediaItem
from tests.factories import make_media, make_user, png_bytes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DROP = """([zoneSelector, files]) => {
  const transfer = new DataTransfer();
  for (const [name, data] of files) {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    transfer.items.add(new File([bytes], name, { type: "image/png" }));
  }
  const zone = document.querySelector(zoneSelector);
  zone.dispatchEvent(new DragEvent("dragenter", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  zone.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
}"""


def test_upload_by_picker_and_by_drop_with_progress_and_deduplication(
    studio_browser, transactional_db, tmp_path
):
    harbour = make_media(
        content=png_bytes(color=(10, 20, 30), size=(40, 30)), filename="harbour.png", alt="Boats"
    )
    me = studio_browser(user=make_user(Role.AUTHOR, email="ada@example.com", name="Ada Lovelace"))
    user, page = me.user, me.page
    page.goto("/_cms/admin/media/")
    zone = page.locator("form[data-media-upload]")
    # With the script, files upload as soon as they are chosen: the form's own button is for pages without it.
    expect(zone.get_by_role("button", name="Upload", exact=True)).to_be_hidden()

    first, second = tmp_path / "first.png", tmp_path / "second.png"
    first.write_bytes(png_bytes(color=(200, 10, 10), size=(60, 40)))
    second.write_bytes(png_bytes(color=(10, 200, 10), size=(60, 40)))
    page.get_by_label("Upload files").set_input_files([str(first), str(second)])
    rows = page.locator(".upload-row")
    expect(rows.filter(has_text="Uploaded first.png.")).to_have_count(1)
    expect(rows.filter(has_text="Uploaded second.png.")).to_have_count(1)
    expect(page.get_by_role("status").filter(has_text="2 of 2 files done.")).to_have_count(1)
    for name in ("first.png", "second.png"):
        bar = page.get_by_role("progressbar", name=f"{name}: done")
        expect(bar).to_have_count(1)
        expect(bar).to_have_attribute("value", "100")

    # Dropped on the zone: one new file and the bytes of harbour.png under another name.
    dropped = [
        ["third.png", base64.b64encode(png_bytes(color=(1, 2, 200), size=(60, 40))).decode()],
        ["copy-of-harbour.png", base64.b64encode(png_bytes(color=(10, 20, 30), size=(40, 30))).decode()],
    ]
    page.evaluate(DROP, ["form[data-media-upload]", dropped])
    expect(rows.filter(has_text="Uploaded third.png.")).to_have_count(1)
    duplicate = rows.filter(has_text="copy-of-harbour.png is already in the library as harbour.png.")
    expect(duplicate).to_have_count(1)
    expect(page.get_by_text("already in the library")).to_have_count(1)
    assert (
        duplicate.get_by_role("link", name="Open").get_attribute("href") == f"/_cms/admin/media/{harbour.pk}/"
    )
    expect(page.get_by_role("status").filter(has_text="4 of 4 files done.")).to_have_count(1)

    names = sorted(MediaItem.objects.values_list("filename", flat=True))
    assert names == ["first.png", "harbour.png", "second.png", "third.png"]
    assert set(MediaItem.objects.exclude(pk=harbour.pk).values_list("author_id", flat=True)) == {user.pk}

    page.reload()
    expect(page.locator(".media-grid > li")).to_have_count(4)
    me.check("media-grid", mobile=True, doc="media-library")
    page.goto("/_cms/admin/media/?view=list")
    me.check("media-list")


def test_item_page_edits_alt_text_and_copies_the_url(studio_browser, base_url, transactional_db):
    me = studio_browser(user=make_user(Role.AUTHOR, email="ada@example.com", name="Ada Lovelace"))
    user, page = me.user, me.page
    item = make_media(user, content=png_bytes(color=(30, 90, 160), size=(64, 48)), filename="lake.png")
    me.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page.goto("/_cms/admin/media/")
    page.get_by_role("link", name="lake.png").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("lake.png")
    page.get_by_label("Alt text").fill("A blue lake under a clear sky")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="Saved lake.png.")).to_have_count(1)
    expect(page.get_by_label("Alt text")).to_have_value("A blue lake under a clear sky")
    # Checked through the REST API as well.
    api = Client()
    api.force_login(user)
    assert api.get(f"/_cms/api/media/{item.pk}").json()["data"]["alt"] == "A blue lake under a clear sky"

    page.get_by_role("button", name="Copy URL").click()
    expect(page.get_by_text("Copied to the clipboard.")).to_be_visible()
    url = page.get_by_label("Public URL").input_value()
    assert url.endswith("lake.png") and "/_cms/api/media/file/" in url
    assert page.evaluate("navigator.clipboard.readText()") == url
    me.check("media-detail", mobile=True, doc="media-item")
    page.goto(f"/_cms/admin/media/{item.pk}/delete")
    me.check("media-delete")
