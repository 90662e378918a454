"""The studio's pickers in real Chromium (apps/studio/static/studio/pickers.js): the media dialog (search, keyboard,
upload with deduplication, choose) for a [data-media-field] input and for the rich-text editor's
``window.cmsStudio.pickMedia()``, and the reference combobox for a [data-reference-field] input.

The entry editor renders those inputs; until its page is on main, the inputs are placed on the media library page
(a studio page carrying pickers.js under the real CSP) exactly as the editor marks them, and enhanced by the script's
own ``enhancePickers``. The page passes ``check_page`` (axe, console errors, CSP) with the dialog open and with the
combobox's list open."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.content.models import Entry
from apps.media.models import MediaItem
from tests.factories import make_collection, make_entry, make_media, make_user, png_bytes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIELDS = """() => {
  const form = document.createElement("form");
  form.id = "probe";
  form.innerHTML = `
    <label for="hero">Hero image</label><input id="hero" name="hero" data-media-field="image">
    <label for="related">Related</label>
    <input id="related" name="related" data-reference-field data-target="posts" data-multiple="true">`;
  document.querySelector("main").append(form);
  window.cmsStudio.enhancePickers(form);
}"""


def sign_in(studio_browser, role: int = Role.AUTHOR):
    return studio_browser(user=make_user(role, email="picker@example.com"))


def test_media_dialog_searches_chooses_by_keyboard_and_uploads(studio_browser, transactional_db, tmp_path):
    harbour = make_media(content=png_bytes(color=(10, 20, 30)), filename="harbour.png", alt="Boats")
    make_media(content=png_bytes(color=(40, 50, 60)), filename="peak.png", alt="Mountain")
    me = sign_in(studio_browser)
    page = me.page
    page.goto("/_cms/admin/media/")
    page.evaluate(FIELDS)

    page.get_by_role("button", name="Choose from library for Hero image").click()
    dialog = page.get_by_role("dialog", name="Choose media")
    dialog.get_by_label("Search media").fill("harbour")
    tile = dialog.get_by_role("button", name="harbour.png: Boats")
    # The dialog opened on every image; the search's answer leaves one.
    expect(dialog.locator(".picker-tile")).to_have_count(1)
    expect(tile).to_have_count(1)
    expect(dialog.get_by_role("status")).to_have_text("1 item shown.")
    me.check("picker-media-dialog", mobile=True)
    page.keyboard.press("Tab")  # from the search box into the grid's one tab stop
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "harbour.png: Boats"
    page.keyboard.press("Enter")
    expect(tile).to_have_attribute("aria-pressed", "true")
    dialog.get_by_role("button", name="Choose", exact=True).click()
    expect(dialog).to_be_hidden()
    assert page.input_value("#hero") == harbour.pk
    expect(page.locator(".media-preview img")).to_have_attribute("alt", "Boats")

    # The rich-text editor's entry point opens the same dialog; an upload of known bytes selects the existing item.
    page.evaluate("() => { window.picked = window.cmsStudio.pickMedia({type: 'image'}); }")
    copy = tmp_path / "copy.png"
    copy.write_bytes(png_bytes(color=(10, 20, 30)))
    dialog.get_by_label("Upload new").set_input_files(str(copy))
    dialog.get_by_text("harbour.png was already in the library; it is selected.").wait_for()
    dialog.get_by_role("button", name="Choose", exact=True).click()
    assert page.evaluate("window.picked.then(item => [item.id, item.alt])") == [harbour.pk, "Boats"]
    fresh = tmp_path / "fresh.png"
    fresh.write_bytes(png_bytes(color=(99, 1, 1)))
    page.evaluate("() => { window.picked = window.cmsStudio.pickMedia({type: 'image'}); }")
    dialog.get_by_label("Upload new").set_input_files(str(fresh))
    dialog.get_by_text("Uploaded fresh.png; it is selected.").wait_for()
    page.keyboard.press("Escape")
    assert page.evaluate("window.picked") is None
    assert MediaItem.objects.filter(filename="fresh.png").count() == 1
    me.check("picker-media-chosen")


def test_reference_combobox_searches_and_chooses_with_the_keyboard(studio_browser, transactional_db):
    posts = make_collection("posts", label="Posts", supports=["drafts"], fields=[("title", "string")])
    pie = make_entry(posts, {"title": "Apple pie"})
    tart = make_entry(posts, {"title": "Apple tart"}, status="published")
    make_entry(posts, {"title": "Banana bread"})
    me = sign_in(studio_browser)
    page = me.page
    page.goto("/_cms/admin/media/")
    page.evaluate(FIELDS)

    combo = page.get_by_role("combobox", name="Related")
    combo.fill("apple")
    # The page's own <select> has options too: look inside the combobox's listbox.
    listbox = page.locator(".combo-list")
    listbox.get_by_role("option", name="Apple pie draft").wait_for()
    expect(listbox.get_by_role("option")).to_have_count(2)
    me.check("picker-reference-open")
    expect(combo).to_have_attribute("aria-expanded", "true")
    combo.press("ArrowDown")  # newest edit first: the tart
    first = combo.get_attribute("aria-activedescendant")
    assert page.locator(f"#{first}").inner_text().startswith("Apple tart")
    combo.press("Enter")
    assert page.input_value("#related") == tart.pk
    expect(listbox).to_be_hidden()
    combo.fill("pie")
    listbox.get_by_role("option", name="Apple pie draft").wait_for()
    combo.press("ArrowDown")
    combo.press("Enter")
    assert page.input_value("#related") == f"{tart.pk},{pie.pk}"
    chips = page.locator(".chip")
    assert chips.all_inner_texts() == ["Apple tart published \u00d7", "Apple pie draft \u00d7"]
    combo.fill("banana")
    listbox.get_by_role("option", name="Banana bread draft").wait_for()
    combo.press("Escape")
    expect(combo).to_have_attribute("aria-expanded", "false")
    page.get_by_role("button", name="Remove Apple tart").click()
    assert page.input_value("#related") == pie.pk
    assert Entry.objects.count() == 3
    me.check("picker-reference-chosen")
