"""Uploaded images are stored without what they say about where, when and by whom they were taken (issue 17): the
file at the public media URL has no EXIF (GPS included), XMP, IPTC or comments, keeps its colour profile and every
animation frame, and shows upright (an EXIF orientation is applied to the pixels, then dropped)."""

from __future__ import annotations

import io
import struct

import pytest
from PIL import ExifTags, Image, ImageCms
from PIL.PngImagePlugin import PngInfo

from tests.factories import PDF_BYTES, png_bytes
from tests.media.test_media_api import download, files_under, upload

ICC = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
GPS = {1: "N", 2: (52.0, 22.0, 1.5), 3: "E", 4: (4.0, 53.0, 2.0)}
# Bytes of the metadata below that must not be found in a stored file.
SECRETS = (b"Canon", b"Shot by Jane", b"Jane Doe", b"52.3676", b"Exif")


def camera_exif(orientation: int | None = None) -> bytes:
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "Canon"
    exif[ExifTags.Base.Model] = "Canon EOS 5D"
    exif[ExifTags.Base.DateTime] = "2026:05:01 10:00:00"
    if orientation is not None:
        exif[ExifTags.Base.Orientation] = orientation
    exif[ExifTags.IFD.GPSInfo] = GPS
    return exif.tobytes()


XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description exif:GPSLatitude="52.3676"/></x:xmpmeta>'


def two_colours(size=(60, 40), mode="RGB") -> Image.Image:
    """Red above, blue below: which way up a stored picture is can be read from its pixels."""
    image = Image.new(mode, size, "blue")
    image.paste("red", (0, 0, size[0], size[1] // 2))
    return image


def jpeg_photo(orientation: int | None = None) -> bytes:
    out = io.BytesIO()
    two_colours().save(
        out,
        "JPEG",
        quality=90,
        exif=camera_exif(orientation),
        icc_profile=ICC,
        comment=b"Shot by Jane",
        xmp=XMP,
    )
    return out.getvalue()


def opened(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data))


def colour_at(image: Image.Image, xy) -> str:
    red, _green, blue = image.convert("RGB").getpixel(xy)
    return "red" if red > blue else "blue"


def png_chunks(data: bytes) -> list[bytes]:
    kinds, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kinds.append(data[pos + 4 : pos + 8])
        pos += 12 + length
    return kinds


def stored(admin_api, api, content: bytes, name: str) -> tuple[dict, bytes]:
    response = upload(admin_api, content, name)
    assert response.status_code == 201, response.json()
    item = response.json()["data"]
    served, body = download(api, item["url"])
    assert served.status_code == 200
    assert len(body) == item["size"]
    return item, body


def assert_no_secrets(body: bytes) -> None:
    assert [secret for secret in SECRETS if secret in body] == []


def test_a_photo_is_served_without_its_location_upright_and_with_its_colour_profile(admin_api, api):
    photo = jpeg_photo(orientation=6)
    assert opened(photo).getexif().get_ifd(ExifTags.IFD.GPSInfo) == GPS

    item, body = stored(admin_api, api, photo, "holiday.jpg")

    image = opened(body)
    # Orientation 6 (turn 90° clockwise) is applied: 60x40 becomes 40x60, and the top of the stored picture (red)
    # is now on the right.
    assert (item["width"], item["height"]) == image.size == (40, 60)
    assert (colour_at(image, (35, 30)), colour_at(image, (4, 30))) == ("red", "blue")
    assert dict(image.getexif()) == {}
    assert [marker for marker, _ in image.applist] == ["APP0", "APP2"]  # JFIF and the ICC profile
    assert image.info["icc_profile"] == ICC
    assert_no_secrets(body)


def test_a_photo_without_an_orientation_keeps_its_compressed_data(admin_api, api):
    # A phone's "multi-picture" preview after the end of the image carries its own EXIF: it goes too.
    photo = jpeg_photo() + jpeg_photo()

    item, body = stored(admin_api, api, photo, "holiday.jpg")

    image = opened(body)
    assert (item["width"], item["height"]) == image.size == (60, 40)
    # Not encoded again: the very same pixels, and only metadata bytes fewer.
    assert image.tobytes() == opened(photo).tobytes()
    assert body.endswith(b"\xff\xd9") and body.count(b"\xff\xd8") == 1
    assert dict(image.getexif()) == {}
    assert image.info["icc_profile"] == ICC
    assert_no_secrets(body)


def test_the_same_photo_uploaded_twice_is_stored_once(admin_api, media_root):
    first = upload(admin_api, jpeg_photo(orientation=6), "holiday.jpg").json()["data"]

    again = upload(admin_api, jpeg_photo(orientation=6), "copy.jpg")

    assert again.status_code == 200
    assert again.json()["data"] == {**first, "deduplicated": True}
    assert len(files_under(media_root)) == 1


def test_an_orientation_too_large_to_apply_stays_as_the_only_tag(admin_api, api, monkeypatch):
    photo = jpeg_photo(orientation=6)
    # Pictures with more pixels than Pillow decodes without a bomb warning are not decoded, so not turned.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    response = upload(admin_api, photo, "huge.jpg")
    monkeypatch.undo()

    assert response.status_code == 201
    _, body = download(api, response.json()["data"]["url"])
    image = opened(body)
    assert dict(image.getexif()) == {ExifTags.Base.Orientation: 6}
    assert image.tobytes() == opened(photo).tobytes()
    assert image.info["icc_profile"] == ICC
    assert [secret for secret in SECRETS if secret in body] == [b"Exif"]


def test_a_png_keeps_its_pixels_and_colour_and_loses_text_and_exif(admin_api, api):
    info = PngInfo()
    info.add_text("Author", "Jane Doe")
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    out = io.BytesIO()
    two_colours(mode="RGBA").save(
        out, "PNG", pnginfo=info, exif=camera_exif(), icc_profile=ICC, dpi=(300, 300)
    )
    assert png_chunks(out.getvalue()) == [
        b"IHDR",
        b"iCCP",
        b"tEXt",
        b"iTXt",
        b"pHYs",
        b"eXIf",
        b"IDAT",
        b"IEND",
    ]

    _, body = stored(admin_api, api, out.getvalue(), "diagram.png")

    assert png_chunks(body) == [b"IHDR", b"iCCP", b"pHYs", b"IDAT", b"IEND"]
    assert opened(body).tobytes() == two_colours(mode="RGBA").tobytes()
    assert_no_secrets(body)


def test_a_png_with_an_orientation_is_turned_without_loss(admin_api, api):
    out = io.BytesIO()
    two_colours().save(out, "PNG", exif=camera_exif(orientation=6), icc_profile=ICC)

    item, body = stored(admin_api, api, out.getvalue(), "scan.png")

    image = opened(body)
    assert (item["width"], item["height"]) == (40, 60)
    assert image.tobytes() == two_colours().transpose(Image.Transpose.ROTATE_270).tobytes()
    assert image.info["icc_profile"] == ICC
    assert "exif" not in image.info
    assert_no_secrets(body)


def gif_application_block(identifier: bytes, payload: bytes) -> bytes:
    blocks = b"".join(
        bytes([len(part)]) + part for part in (payload[i : i + 255] for i in range(0, len(payload), 255))
    )
    return b"\x21\xff\x0b" + identifier + blocks + b"\x00"


def test_an_animated_gif_keeps_its_frames_and_loses_comments_and_xmp(admin_api, api):
    frames = [Image.new("RGB", (8, 6), colour) for colour in ("red", "green", "blue")]
    out = io.BytesIO()
    frames[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=[100, 200, 300],
        loop=0,
        comment=b"Shot by Jane",
    )
    # XMP rides in an application extension (as Photoshop writes it), here just before the trailer.
    animation = out.getvalue()[:-1] + gif_application_block(b"XMP DataXMP", XMP) + b"\x3b"

    _, body = stored(admin_api, api, animation, "dance.gif")

    image, original = opened(body), opened(animation)
    assert (image.n_frames, image.info["loop"], "comment" in image.info) == (3, 0, False)
    for index in range(3):
        image.seek(index)
        original.seek(index)
        assert (image.info["duration"], image.tobytes()) == (original.info["duration"], original.tobytes())
    assert_no_secrets(body)
    assert b"XMP" not in body


def test_an_animated_webp_keeps_its_frames_and_loses_its_exif(admin_api, api):
    frames = [two_colours(), two_colours().transpose(Image.Transpose.ROTATE_180)]
    out = io.BytesIO()
    frames[0].save(
        out,
        "WEBP",
        save_all=True,
        append_images=frames[1:],
        duration=150,
        lossless=True,
        exif=camera_exif(),
        xmp=XMP,
    )

    _, body = stored(admin_api, api, out.getvalue(), "loop.webp")

    image, original = opened(body), opened(out.getvalue())
    assert (image.n_frames, "exif" in image.info, "xmp" in image.info) == (2, False, False)
    for index in range(2):
        image.seek(index)
        original.seek(index)
        assert image.tobytes() == original.tobytes()
    assert_no_secrets(body)


def test_a_lossless_webp_with_an_orientation_is_turned_without_loss(admin_api, api):
    out = io.BytesIO()
    two_colours().save(out, "WEBP", lossless=True, exif=camera_exif(orientation=6), icc_profile=ICC)

    item, body = stored(admin_api, api, out.getvalue(), "scan.webp")

    image = opened(body)
    assert (item["width"], item["height"]) == (40, 60)
    assert image.convert("RGB").tobytes() == two_colours().transpose(Image.Transpose.ROTATE_270).tobytes()
    assert (image.info["icc_profile"], "exif" in image.info) == (ICC, False)
    assert_no_secrets(body)


@pytest.mark.parametrize(
    ("content", "name"),
    [(png_bytes(size=(9, 7)), "plain.png"), (PDF_BYTES, "report.pdf")],
    ids=["png", "pdf"],
)
def test_files_without_metadata_and_other_types_are_stored_as_uploaded(admin_api, api, content, name):
    _, body = stored(admin_api, api, content, name)
    assert body == content


def test_an_image_whose_structure_cannot_be_read_is_refused(admin_api, media_root):
    response = upload(admin_api, b"\xff\xd8\xff\xe1\xff\xf0Exif\x00\x00GPS 52.3676", "broken.jpg")

    problem = (
        "The image/jpeg image could not be read (segment 0xe1 at byte 2 runs past the end), so its metadata "
        "(location, camera, dates) could not be removed; save it again with an image editor and upload that file."
    )
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": {"code": "VALIDATION_ERROR", "message": f"file: {problem}", "details": {"file": problem}},
    }
    assert files_under(media_root) == []
