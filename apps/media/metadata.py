"""Uploaded images lose what they say about where, when and by whom they were taken before they are stored (issue 17).

Phones and cameras write EXIF (GPS position, date and time, camera serial number, owner), XMP and IPTC into their
photos; stored as uploaded, every visitor of the public media URL could read where a photo was taken. Uploads of
JPEG, PNG (APNG too), WebP and GIF are stored without that metadata, keeping what the picture needs to look right:
the colour profile (ICC, and PNG's other colour chunks), transparency, pixel density, every frame of an animation,
and the orientation, applied: a photo whose EXIF says "rotate 90°" has its pixels rotated and the tag dropped, so it
shows upright everywhere, also where viewers ignore the tag.

How, by format (the trade-offs are in docs/decisions.md, Media):

- JPEG with no orientation to apply: the metadata segments are cut out of the file (APP1 EXIF and XMP, APP13 IPTC,
  APP2 other than ICC, every other APPn but JFIF and Adobe, comments, and anything after the end of the image: phone
  "multi-picture" previews carry their own EXIF there). The compressed image data is copied as it is: no loss.
- JPEG with an orientation: decoded, turned, and encoded again with the original's quantisation tables, chroma
  subsampling and progressive mode, the quality the camera chose, so one generation of JPEG loss and no more.
- PNG and WebP: the chunks that are not image, colour or animation data are dropped (``tEXt``/``iTXt``/``zTXt``,
  ``eXIf``, ``tIME``, WebP's ``EXIF`` and ``XMP``, private chunks); no loss. An orientation is applied by encoding
  again: PNG losslessly, WebP losslessly when the original was, else at quality 90.
- GIF (no EXIF in the format): comments and application extensions other than the loop count and ICC are dropped.
- An orientation that cannot be applied (an animation, or more pixels than Pillow's ``MAX_IMAGE_PIXELS`` allow to
  decode) stays, alone, as the only EXIF tag; everything else goes.

The result is deterministic, so the same photo uploaded twice gives the same stored bytes and deduplicates. An image
of these types whose structure cannot be read is refused, since its metadata could not be removed. Other types
(TIFF, HEIC, AVIF, PSD …, audio, video, documents) are stored as uploaded.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from collections.abc import Callable, Iterator
from typing import IO

from django.core.files.base import ContentFile
from PIL import Image, ImageOps, JpegImagePlugin, UnidentifiedImageError

from apps.core.errors import ValidationError

ORIENTATION = 0x0112
EXIF_HEADER = b"Exif\x00\x00"


def without_metadata(stream: IO[bytes], mime: str | None) -> ContentFile | None:
    """The upload's bytes without identifying metadata, or None when they are to be stored as they are (not an image
    type we clean, or nothing to remove). The stream is left rewound."""
    cleaner = CLEANERS.get(mime or "")
    if cleaner is None:
        return None
    stream.seek(0)
    data = stream.read()
    stream.seek(0)
    try:
        cleaned = cleaner(data)
    except (ValueError, IndexError, struct.error, OSError, UnidentifiedImageError) as error:
        raise ValidationError(
            details={
                "file": f"The {mime} image could not be read ({error}), so its metadata (location, camera, "
                "dates) could not be removed; save it again with an image editor and upload that file."
            }
        ) from error
    if cleaned == data:
        return None
    return ContentFile(cleaned)


def _orientation(exif: bytes | None) -> int:
    """The EXIF Orientation (1 to 8) of an EXIF block (TIFF data, with or without the ``Exif`` header); 1 when
    absent or unreadable."""
    if not exif:
        return 1
    try:
        with warnings.catch_warnings():
            # Pillow warns about every damaged tag it skips; these blocks are dropped anyway.
            warnings.simplefilter("ignore")
            value = Image.Exif()
            value.load(exif)
            orientation = value.get(ORIENTATION, 1)
    except Exception:
        # A damaged EXIF block is metadata we drop anyway, not a reason to refuse the image.
        return 1
    return orientation if isinstance(orientation, int) and 1 <= orientation <= 8 else 1


def _orientation_only(orientation: int, *, header: bool) -> bytes:
    """An EXIF block holding nothing but the orientation."""
    exif = Image.Exif()
    exif[ORIENTATION] = orientation
    data = exif.tobytes()
    return data if header else data.removeprefix(EXIF_HEADER)


def _open(data: bytes) -> Image.Image | None:
    """The image, opened (header read, pixels not decoded), or None when it has too many pixels to decode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(data))
        except Image.DecompressionBombError:
            return None
    width, height = image.size
    if Image.MAX_IMAGE_PIXELS and width * height > Image.MAX_IMAGE_PIXELS:
        image.close()
        return None
    return image


def _turned(data: bytes, save: Callable[[Image.Image, Image.Image, io.BytesIO], None]) -> bytes | None:
    """The image with its orientation applied, encoded by ``save(original, turned, out)``; None when it cannot be
    decoded (too many pixels, or pixel data Pillow cannot read such as a truncated file): the caller then keeps the
    orientation as a tag."""
    image = _open(data)
    if image is None:
        return None
    out = io.BytesIO()
    with image:
        try:
            turned = ImageOps.exif_transpose(image)
        except OSError:
            return None
        # Encoders fall back on the image's own info (a JPEG comment, PNG text); what is kept is passed explicitly.
        turned.info = {}
        save(image, turned, out)
    return out.getvalue()


# --- JPEG -------------------------------------------------------------------------------------------------------------

SOI, EOI, SOS, COM, APP0, APP1, APP2, APP14 = 0xD8, 0xD9, 0xDA, 0xFE, 0xE0, 0xE1, 0xE2, 0xEE
# Markers without a length: TEM and the restart markers.
STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})


def _jpeg_segments(data: bytes) -> Iterator[tuple[int, int, int]]:
    """(marker, start, end) of every segment in order; a scan (SOS) includes its entropy-coded data. Stops after EOI
    (what follows it is not part of the image) or at the end of a truncated file."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("no start-of-image marker")
    yield SOI, 0, 2
    size = len(data)
    pos = 2
    while pos < size:
        if data[pos] != 0xFF:
            raise ValueError(f"no marker at byte {pos}")
        while pos + 1 < size and data[pos + 1] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos + 1 >= size:
            raise ValueError("truncated marker")
        marker = data[pos + 1]
        if marker == EOI:
            yield EOI, pos, pos + 2
            return
        if marker in STANDALONE:
            yield marker, pos, pos + 2
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        end = pos + 2 + length
        if length < 2 or end > size:
            raise ValueError(f"segment {marker:#04x} at byte {pos} runs past the end")
        if marker == SOS:
            end = _entropy_end(data, end)
        yield marker, pos, end
        pos = end


def _entropy_end(data: bytes, pos: int) -> int:
    """Where the entropy-coded data starting at ``pos`` ends: the next marker that is not a stuffed 0xFF00 or a
    restart marker (the end of the data for a truncated file)."""
    while True:
        found = data.find(b"\xff", pos)
        if found < 0 or found + 1 >= len(data):
            return len(data)
        following = data[found + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7:
            pos = found + 2
        elif following == 0xFF:
            pos = found + 1
        else:
            return found


def _jpeg_keeps(marker: int, payload: bytes) -> bool:
    if marker == COM:
        return False
    if 0xE0 <= marker <= 0xEF:
        return (
            (marker == APP0 and payload.startswith(b"JFIF\x00"))
            or (marker == APP2 and payload.startswith(b"ICC_PROFILE\x00"))
            or (marker == APP14 and payload.startswith(b"Adobe"))
        )
    return True


def _clean_jpeg(data: bytes) -> bytes:
    kept: list[tuple[int, bytes]] = []
    exif = None
    for marker, start, end in _jpeg_segments(data):
        payload = data[start + 4 : end] if marker not in (SOI, EOI, *STANDALONE) else b""
        if marker == APP1 and exif is None and payload.startswith(EXIF_HEADER):
            exif = payload
        if _jpeg_keeps(marker, payload):
            kept.append((marker, data[start:end]))
    orientation = _orientation(exif)
    if orientation != 1:
        turned = _turned(data, _save_jpeg)
        if turned is not None:
            return turned
        block = _orientation_only(orientation, header=True)
        app1 = b"\xff\xe1" + struct.pack(">H", len(block) + 2) + block
        # After SOI, and after JFIF's APP0 when there is one (as libjpeg writes them).
        at = 2 if len(kept) > 1 and kept[1][0] == APP0 else 1
        kept.insert(at, (APP1, app1))
    return b"".join(segment for _, segment in kept)


def _save_jpeg(original: Image.Image, turned: Image.Image, out: io.BytesIO) -> None:
    options = {
        "qtables": original.quantization,
        "progressive": "progressive" in original.info or "progression" in original.info,
    }
    sampling = JpegImagePlugin.get_sampling(original)
    if sampling != -1:
        options["subsampling"] = sampling
    for key in ("icc_profile", "dpi"):
        if original.info.get(key):
            options[key] = original.info[key]
    turned.save(out, "JPEG", **options)


# --- PNG --------------------------------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Ancillary chunks that are picture, not metadata: transparency, colour, density, palette, animation (APNG).
PNG_KEPT = frozenset(
    {
        b"tRNS", b"cHRM", b"gAMA", b"iCCP", b"sBIT", b"sRGB", b"cICP", b"mDCV", b"cLLI", b"bKGD", b"hIST",
        b"pHYs", b"sPLT", b"acTL", b"fcTL", b"fdAT",
    }
)  # fmt: skip


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _clean_png(data: bytes) -> bytes:
    if not data.startswith(PNG_SIGNATURE):
        raise ValueError("no PNG signature")
    out = [PNG_SIGNATURE]
    exif_at = None
    exif = None
    animated = False
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        end = pos + 12 + length
        if end > len(data):
            raise ValueError(f"chunk {kind!r} at byte {pos} runs past the end")
        # Critical chunks (an upper-case first letter: IHDR, PLTE, IDAT, IEND …) are the image itself.
        if kind[:1].isupper() or kind in PNG_KEPT:
            out.append(data[pos:end])
        elif kind == b"eXIf" and exif is None:
            exif, exif_at = data[pos + 8 : end - 4], len(out)
        animated = animated or kind == b"acTL"
        pos = end
        if kind == b"IEND":
            break
    orientation = _orientation(exif)
    if orientation != 1:
        turned = None if animated else _turned(data, _save_png)
        if turned is not None:
            return turned
        out.insert(exif_at, _png_chunk(b"eXIf", _orientation_only(orientation, header=False)))
    return b"".join(out)


def _save_png(original: Image.Image, turned: Image.Image, out: io.BytesIO) -> None:
    options = {
        key: original.info[key] for key in ("icc_profile", "dpi", "transparency") if key in original.info
    }
    turned.save(out, "PNG", **options)


# --- WebP -------------------------------------------------------------------------------------------------------------

WEBP_KEPT = frozenset({b"VP8X", b"ICCP", b"ANIM", b"ANMF", b"ALPH", b"VP8 ", b"VP8L"})
VP8X_EXIF, VP8X_XMP, VP8X_ANIMATION = 0x08, 0x04, 0x02


def _webp_chunk(kind: bytes, payload: bytes) -> bytes:
    return kind + struct.pack("<I", len(payload)) + payload + (b"\x00" if len(payload) % 2 else b"")


def _clean_webp(data: bytes) -> bytes:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise ValueError("no RIFF WEBP header")
    (riff_size,) = struct.unpack("<I", data[4:8])
    end_of_riff = min(8 + riff_size, len(data))
    chunks: list[tuple[bytes, bytes]] = []
    pos = 12
    while pos + 8 <= end_of_riff:
        kind = data[pos : pos + 4]
        (length,) = struct.unpack("<I", data[pos + 4 : pos + 8])
        end = pos + 8 + length
        if end > end_of_riff:
            raise ValueError(f"chunk {kind!r} at byte {pos} runs past the end")
        chunks.append((kind, data[pos + 8 : end]))
        pos = end + (length % 2)
    if not chunks or chunks[0][0] != b"VP8X":
        # The simple formats (one VP8 or VP8L chunk) have no room for metadata: nothing to remove.
        return data
    exif = next((payload for kind, payload in chunks if kind == b"EXIF"), None)
    kept = [(kind, payload) for kind, payload in chunks if kind in WEBP_KEPT]
    flags = kept[0][1][0] & ~(VP8X_EXIF | VP8X_XMP)
    orientation = _orientation(exif)
    if orientation != 1:
        lossless = any(kind == b"VP8L" for kind, _ in chunks)
        turned = (
            None
            if flags & VP8X_ANIMATION
            else _turned(
                data, lambda original, image, out: _save_webp(original, image, out, lossless=lossless)
            )
        )
        if turned is not None:
            return turned
        kept.append((b"EXIF", _orientation_only(orientation, header=False)))
        flags |= VP8X_EXIF
    kept[0] = (b"VP8X", bytes([flags]) + kept[0][1][1:])
    body = b"WEBP" + b"".join(_webp_chunk(kind, payload) for kind, payload in kept)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _save_webp(original: Image.Image, turned: Image.Image, out: io.BytesIO, *, lossless: bool) -> None:
    options: dict = {"lossless": True, "exact": True} if lossless else {"quality": 90}
    if original.info.get("icc_profile"):
        options["icc_profile"] = original.info["icc_profile"]
    turned.save(out, "WEBP", **options)


# --- GIF --------------------------------------------------------------------------------------------------------------

# Application extensions that are picture: the animation's loop count, and the colour profile.
GIF_KEPT_APPLICATIONS = (b"NETSCAPE2.0", b"ANIMEXTS1.0", b"ICCRGBG1012")


def _gif_sub_blocks_end(data: bytes, pos: int) -> int:
    """The end of the data sub-blocks starting at ``pos`` (after their zero-length terminator)."""
    while True:
        if pos >= len(data):
            raise ValueError("truncated data block")
        size = data[pos]
        pos += 1 + size
        if size == 0:
            return pos


def _clean_gif(data: bytes) -> bytes:
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        raise ValueError("no GIF header")
    packed = data[10]
    pos = 13 + (3 * 2 ** ((packed & 7) + 1) if packed & 0x80 else 0)
    out = [data[:pos]]
    while pos < len(data):
        introducer = data[pos]
        if introducer == 0x3B:  # trailer; anything after it is not part of the image
            out.append(b"\x3b")
            break
        if introducer == 0x2C:  # image descriptor, local colour table, LZW code size, image data
            local = data[pos + 9]
            start_of_data = pos + 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0) + 1
            end = _gif_sub_blocks_end(data, start_of_data)
            out.append(data[pos:end])
        elif introducer == 0x21:
            label = data[pos + 1]
            end = _gif_sub_blocks_end(data, pos + 2)
            application = data[pos + 3 : pos + 14] if label == 0xFF and data[pos + 2] == 11 else None
            if label in (0xF9, 0x01) or application in GIF_KEPT_APPLICATIONS:
                out.append(data[pos:end])
        else:
            raise ValueError(f"unknown block {introducer:#04x} at byte {pos}")
        pos = end
    return b"".join(out)


CLEANERS: dict[str, Callable[[bytes], bytes]] = {
    "image/jpeg": _clean_jpeg,
    "image/png": _clean_png,
    "image/apng": _clean_png,
    "image/webp": _clean_webp,
    "image/gif": _clean_gif,
}
