"""What renditions hold (issue 22): cover crops keep the focal point (read from the pixels), contain fits inside,
nothing is enlarged, EXIF orientation is applied and every bit of metadata (GPS included) is gone, and decompression
bombs or images over the pixel limit are refused with an envelope before their pixels are decoded."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import ExifTags, Image

from tests.media.test_image_metadata import SECRETS, jpeg_photo

MEDIA = "/_cms/api/media"
BANDS = ((255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0))


def stored_file(media_root, admin_api, name: str, data: bytes) -> str:
    """A file put straight into storage and recorded by key: kept as it is, metadata included (uploads are
    cleaned on the way in, so only this route shows that renditions clean up themselves)."""
    target = media_root / "2026" / "01" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    response = admin_api.post(MEDIA, {"storageKey": f"2026/01/{name}"}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["data"]["id"]


def bands_png() -> bytes:
    """400 x 100: four 100-pixel bands, red, green, blue, yellow, left to right."""
    image = Image.new("RGB", (400, 100))
    for index, colour in enumerate(BANDS):
        image.paste(colour, (index * 100, 0, index * 100 + 100, 100))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def render(api, admin_api, media_id: str, **params) -> Image.Image:
    signed = admin_api.post(f"{MEDIA}/{media_id}/render-url", params, format="json").json()["data"]["url"]
    response = api.get(signed.split("localhost:8000", 1)[1])
    assert response.status_code == 200, response.content[:300]
    return Image.open(io.BytesIO(response.content))


@pytest.mark.parametrize(
    ("focal", "colours"),
    [
        (None, (BANDS[1], BANDS[2])),  # centred: half green, half blue
        ({"x": 0.05, "y": 0.5}, (BANDS[0], BANDS[0])),  # at the left edge: all red
        ({"x": 0.625, "y": 0.5}, (BANDS[2], BANDS[2])),  # centred on the blue band
        ({"x": 0.95, "y": 0.2}, (BANDS[3], BANDS[3])),  # at the right edge: all yellow
    ],
)
def test_cover_crops_keep_the_focal_point(api, admin_api, media_root, focal, colours):
    media_id = stored_file(media_root, admin_api, "bands.png", bands_png())
    if focal:
        assert admin_api.patch(f"{MEDIA}/{media_id}", {"focalPoint": focal}, format="json").status_code == 200
    with render(api, admin_api, media_id, w=50, h=50, fit="cover", format="png") as picture:
        assert picture.size == (50, 50)
        rgb = picture.convert("RGB")
        assert (rgb.getpixel((5, 25)), rgb.getpixel((44, 25))) == colours


def test_moving_the_focal_point_makes_a_new_crop_under_the_same_url(api, admin_api, media_root):
    media_id = stored_file(media_root, admin_api, "bands.png", bands_png())
    preset = f"{MEDIA}/{media_id}/render/thumbnail"
    admin_api.patch(f"{MEDIA}/{media_id}", {"focalPoint": {"x": 0.0, "y": 0.5}}, format="json")
    with Image.open(io.BytesIO(api.get(preset).content)) as picture:
        assert picture.convert("RGB").getpixel((50, 50))[0] > 200  # red
    admin_api.patch(f"{MEDIA}/{media_id}", {"focalPoint": {"x": 1.0, "y": 0.5}}, format="json")
    with Image.open(io.BytesIO(api.get(preset).content)) as picture:
        red, green, blue = picture.convert("RGB").getpixel((50, 50))
        assert red > 200 and green > 200 and blue < 60  # yellow


def test_contain_fits_inside_and_nothing_is_enlarged(api, admin_api, media_root):
    media_id = stored_file(media_root, admin_api, "bands.png", bands_png())
    with render(api, admin_api, media_id, w=100, h=100, fit="contain", format="png") as picture:
        assert picture.size == (100, 25)
    with render(api, admin_api, media_id, w=1000, format="png") as picture:
        assert picture.size == (400, 100)
    with render(api, admin_api, media_id, w=800, h=100, fit="cover", format="png") as picture:
        # The 8:1 crop of a 4:1 picture is 400 x 50: never stretched to 800 x 100.
        assert picture.size == (400, 50)
    with render(api, admin_api, media_id, h=20, format="jpeg", q=50) as picture:
        assert (picture.format, picture.size) == ("JPEG", (80, 20))


@pytest.mark.parametrize("fmt", ["webp", "jpeg", "png", "avif"])
def test_renditions_carry_no_metadata(api, admin_api, media_root, fmt):
    original = jpeg_photo()
    with Image.open(io.BytesIO(original)) as source:
        assert source.getexif().get_ifd(ExifTags.IFD.GPSInfo)
    secrets = [secret for secret in SECRETS if secret in original]
    assert b"Canon" in secrets and b"Shot by Jane" in secrets and b"52.3676" in secrets
    media_id = stored_file(media_root, admin_api, "camera.jpg", original)
    signed = admin_api.post(f"{MEDIA}/{media_id}/render-url", {"w": 30, "format": fmt}, format="json")
    response = api.get(signed.json()["data"]["url"].split("localhost:8000", 1)[1])
    assert response.status_code == 200
    for secret in secrets:
        assert secret not in response.content
    with Image.open(io.BytesIO(response.content)) as picture:
        assert not picture.getexif()
        assert not picture.getexif().get_ifd(ExifTags.IFD.GPSInfo)
        assert "xmp" not in picture.info and "comment" not in picture.info


def test_exif_orientation_is_applied_first(api, admin_api, media_root):
    # 60 x 40, red above blue, stored turned: orientation 6 shows it rotated a quarter turn clockwise.
    media_id = stored_file(media_root, admin_api, "turned.jpg", jpeg_photo(orientation=6))
    with render(api, admin_api, media_id, w=20, format="png") as picture:
        assert picture.size == (20, 30)
        rgb = picture.convert("RGB")
        # Turned clockwise, what was the top (red) is on the right.
        assert rgb.getpixel((17, 15))[0] > 200 and rgb.getpixel((2, 15))[2] > 200


def huge_png(width: int, height: int) -> bytes:
    """A tiny file whose header claims ``width`` x ``height`` pixels: the shape of a decompression bomb."""
    out = io.BytesIO()
    Image.new("1", (1, 1)).save(out, "PNG")
    data = bytearray(out.getvalue())
    # IHDR's width and height follow the 8-byte signature and the chunk's length and type; then its CRC.
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


@pytest.mark.parametrize("size", [(30_000, 30_000), (9_000, 6_000)])
def test_decompression_bombs_and_huge_images_are_refused_with_422(api, admin_api, media_root, size):
    media_id = stored_file(media_root, admin_api, "bomb.png", huge_png(*size))
    response = api.get(f"{MEDIA}/{media_id}/render/thumbnail")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "IMAGE_TOO_LARGE"
    assert not (media_root / "renditions").exists()


def test_the_pixel_limit_is_a_setting(api, admin_api, media_root, settings):
    settings.CMS_RENDITION_MAX_SOURCE_PIXELS = 100 * 100
    media_id = stored_file(media_root, admin_api, "bands.png", bands_png())
    response = api.get(f"{MEDIA}/{media_id}/render/small")
    assert response.status_code == 422
    assert response.json()["error"]["details"] == {"width": 400, "height": 100, "maxPixels": 10_000}


def test_a_corrupt_image_is_415_not_500(api, admin_api, media_root):
    data = jpeg_photo()
    media_id = stored_file(media_root, admin_api, "broken.jpg", data[: len(data) * 2 // 3])
    response = api.get(f"{MEDIA}/{media_id}/render/small")
    assert response.status_code == 415
    assert response.json()["error"] == {
        "code": "UNSUPPORTED_MEDIA_TYPE",
        "message": "The image cannot be decoded.",
        "details": {},
    }
