"""The media item page's focal point editor in Chromium (issue 22, apps/studio/static/studio/focal-point.js): a click
on the picture sets the two numbers and the marker, the numbers alone (typed from the keyboard) do the same, Save
stores it through media_update, the crop preview follows, and "Centre crops" clears it. The page passes the studio's
checks (axe, console, CSP) with its screenshot in var/screenshots/."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from apps.accounts.models import Role
from apps.media.models import MediaItem
from tests.factories import make_media, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def landscape() -> bytes:
    image = Image.new("RGB", (320, 160), (40, 110, 60))
    image.paste((200, 60, 40), (240, 0, 320, 160))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def test_focal_point_by_click_and_by_keyboard(studio_browser, transactional_db):
    me = studio_browser(user=make_user(Role.AUTHOR, email="ada@example.com", name="Ada Lovelace"))
    page = me.page
    item = make_media(me.user, content=landscape(), filename="field.jpg", alt="A field with a red barn")
    page.goto(f"/_cms/admin/media/{item.pk}/")
    across, down = (
        page.get_by_label("Across (0 = left, 1 = right)"),
        page.get_by_label("Down (0 = top, 1 = bottom)"),
    )
    expect(across).to_have_value("")
    marker = page.locator("[data-focal-marker]")
    expect(marker).to_be_hidden()

    picture = page.locator("[data-focal-image]")
    box = picture.bounding_box()
    picture.click(position={"x": box["width"] * 0.875, "y": box["height"] * 0.25})
    expect(across).to_have_value("0.88")
    expect(down).to_have_value("0.25")
    expect(marker).to_be_visible()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="Saved field.jpg.")).to_have_count(1)
    item.refresh_from_db()
    assert item.focal_point == (0.88, 0.25)
    expect(across).to_have_value("0.88")
    expect(page.get_by_role("img", name="The thumbnail crop with the saved focal point")).to_be_visible()
    crop = page.request.get(page.locator(".focal-crop img").get_attribute("src"))
    assert crop.status == 200 and crop.headers["content-type"] == "image/webp"
    with Image.open(io.BytesIO(crop.body())) as square:
        # The square is the right half of the picture, where the focal point is: green, then the red barn.
        assert square.convert("RGB").getpixel((150, 80))[0] > 150
    # The documentation's picture shows the panel with the picture above it.
    page.locator("[data-focal-frame]").scroll_into_view_if_needed()
    page.evaluate(
        "window.scrollBy(0, document.querySelector('[data-focal-frame]').getBoundingClientRect().top - 16)"
    )
    me.check("media-focal-point", doc="media-focal-point")

    # Keyboard only: the numbers are the editor.
    across.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("0.1")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("0.9")
    expect(marker).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.get_by_role("status").filter(has_text="Saved field.jpg.")).to_have_count(1)
    item.refresh_from_db()
    assert item.focal_point == (0.1, 0.9)

    # One number alone is refused, naming the group.
    across.fill("")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Give both numbers, or leave both empty to centre crops.")).to_be_visible()
    assert MediaItem.objects.get(pk=item.pk).focal_point == (0.1, 0.9)

    page.goto(f"/_cms/admin/media/{item.pk}/")
    page.get_by_role("button", name="Centre crops (clear)").click()
    expect(across).to_have_value("")
    expect(marker).to_be_hidden()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status").filter(has_text="Saved field.jpg.")).to_have_count(1)
    item.refresh_from_db()
    assert item.focal_point is None
    me.check("media-focal-point-cleared", allow=[r"status of 400 \(Bad Request\)"])
