"""What the bytes of a file are: their xxHash64, size and MIME type (sniffed from the content, never the name), and
the pixel dimensions of images (Pillow reads only the header).

The MIME type comes from the file's magic numbers (``filetype``). A type the allow-list does not name, or bytes that
match no known type at all, are refused by the services: a file named ``cat.jpg`` that is really HTML is refused, and
SVG (text, able to carry scripts) is not recognised and therefore not accepted.
"""

from __future__ import annotations

import fnmatch
import warnings
from dataclasses import dataclass
from typing import IO

import filetype
import xxhash
from django.conf import settings
from PIL import Image, UnidentifiedImageError

CHUNK = 1024 * 1024
# Enough for every signature filetype knows (MP4 and friends look a few hundred bytes in).
HEAD = 8192


@dataclass(frozen=True)
class Analysis:
    content_hash: str
    size: int
    mime_type: str | None
    extension: str | None
    width: int | None = None
    height: int | None = None


def analyse(stream: IO[bytes]) -> Analysis:
    """Read ``stream`` from its start to its end once (in chunks), then rewind it."""
    stream.seek(0)
    digest = xxhash.xxh64()
    size = 0
    head = b""
    while chunk := stream.read(CHUNK):
        if len(head) < HEAD:
            head += chunk[: HEAD - len(head)]
        digest.update(chunk)
        size += len(chunk)
    kind = filetype.guess(head) if head else None
    mime = kind.mime if kind else None
    width = height = None
    if mime and mime.startswith("image/"):
        width, height = _dimensions(stream)
    stream.seek(0)
    return Analysis(
        content_hash=digest.hexdigest(),
        size=size,
        mime_type=mime,
        extension=kind.extension if kind else None,
        width=width,
        height=height,
    )


def _dimensions(stream: IO[bytes]) -> tuple[int | None, int | None]:
    stream.seek(0)
    try:
        with warnings.catch_warnings():
            # Huge images are fine to store; we only read their header, never decode the pixels.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(stream) as image:
                return image.size
    except (UnidentifiedImageError, Image.DecompressionBombError, OSError, ValueError):
        # A format Pillow cannot read (e.g. HEIC without a plugin) is stored without dimensions.
        return None, None


def mime_allowed(mime: str | None) -> bool:
    return bool(mime) and any(
        fnmatch.fnmatchcase(mime, pattern) for pattern in settings.CMS_MEDIA_ALLOWED_TYPES
    )


def same_bytes(a: IO[bytes], b: IO[bytes]) -> bool:
    """Byte-for-byte comparison: xxHash64 is not collision-resistant, so a hash match is confirmed before two uploads
    are treated as one file."""
    a.seek(0)
    b.seek(0)
    try:
        while True:
            left, right = a.read(CHUNK), b.read(CHUNK)
            if left != right:
                return False
            if not left:
                return True
    finally:
        a.seek(0)
        b.seek(0)
