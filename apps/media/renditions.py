"""Image renditions (issue 22): resized, cropped and re-encoded variants of image media, made once and kept.

A rendition is named by its parameters: width ``w``, height ``h`` (either, both or neither), ``fit`` (``cover``
crops to exactly w x h around the item's focal point; ``contain`` fits inside w x h), ``format`` (webp, avif where
Pillow has it, jpeg, png) and quality ``q`` (1-100). Nobody may make the server render arbitrary variants: a URL
either names a preset (``CMS_RENDITION_PRESETS``) or carries a signature ``s``, an HMAC of the item id and the
canonical parameters under a key derived from ``SECRET_KEY``, that only the API mints (``rendition_url``). URLs
of crops carry ``v``, which changes with the focal point: the server ignores it, caches do not (see ``version``).

What is rendered is stored under a key derived from the item's content hash and the canonical parameters (and the
focal point, for crops), so identical bytes share renditions and a new focal point makes new crops instead of
serving stale ones. Pictures are never enlarged. Sources over ``CMS_RENDITION_MAX_SOURCE_PIXELS`` are refused before
their pixels are decoded; EXIF orientation is applied, and nothing of the source's metadata (EXIF, GPS, XMP,
comments) is written into the rendition (the colour profile is kept).
"""

from __future__ import annotations

import hmac
import io
import logging
import math
import os
import re
import warnings
from dataclasses import dataclass
from urllib.parse import urlencode

import xxhash
from django.conf import settings
from django.utils.crypto import salted_hmac
from PIL import Image, ImageOps, UnidentifiedImageError, features

from apps.core.errors import (
    CmsError,
    Forbidden,
    NotFound,
    UnsupportedMediaType,
    ValidationError,
    storage_unreachable,
)
from apps.media import selectors, storage
from apps.media.errors import StorageUnavailable

logger = logging.getLogger("cms.media")

FITS = ("cover", "contain")
FORMATS = {"webp": "image/webp", "avif": "image/avif", "jpeg": "image/jpeg", "png": "image/png"}
PILLOW_FORMAT = {"webp": "WEBP", "avif": "AVIF", "jpeg": "JPEG", "png": "PNG"}
DEFAULT_FORMAT = "webp"
DEFAULT_QUALITY = 80
DEFAULT_FIT = "cover"
# The sources we decode: what Pillow reads well among the raster types media may hold. Anything else is 415.
SOURCE_TYPES = {
    "image/jpeg": "JPEG",
    "image/png": "PNG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
    "image/avif": "AVIF",
    "image/tiff": "TIFF",
    "image/bmp": "BMP",
}
PARAMS = ("w", "h", "fit", "format", "q")
SIGNATURE = "s"
VERSION = "v"
_VERSION = re.compile(r"^[0-9a-f]{1,16}$")
_SALT = "apps.media.renditions"
RENDITIONS_DIR = "renditions"


class ImageTooLarge(CmsError):
    """The source has more pixels than ``CMS_RENDITION_MAX_SOURCE_PIXELS`` (or is a decompression bomb)."""

    code = "IMAGE_TOO_LARGE"
    status = 422
    default_message = "The image is too large to render."


@dataclass(frozen=True)
class Params:
    w: int | None = None
    h: int | None = None
    fit: str = DEFAULT_FIT
    format: str = DEFAULT_FORMAT
    q: int = DEFAULT_QUALITY

    def canonical(self) -> str:
        """One spelling per rendition: what is signed and what names the stored file."""
        return f"w{self.w or 0}-h{self.h or 0}-{self.fit}-q{self.q}.{self.format}"

    def query(self) -> dict[str, str]:
        values = {"w": self.w, "h": self.h, "fit": self.fit, "format": self.format, "q": self.q}
        return {key: str(value) for key, value in values.items() if value is not None}

    @property
    def crops(self) -> bool:
        return self.fit == "cover" and self.w is not None and self.h is not None

    @property
    def content_type(self) -> str:
        return FORMATS[self.format]


def _int(name: str, raw: object, low: int, high: int, problems: dict[str, str]) -> int | None:
    if raw is None:
        return None
    text = str(raw)
    if not text.isascii() or not text.isdigit() or not low <= int(text) <= high:
        problems[name] = f"A whole number from {low} to {high}."
        return None
    return int(text)


def avif_supported() -> bool:
    return bool(features.check("avif"))


def parse(values: dict[str, object]) -> Params:
    """Params from query values or a preset's settings (already single values). VALIDATION_ERROR names each bad one."""
    problems: dict[str, str] = {}
    for name in values:
        if name not in PARAMS:
            problems[name] = f"Unknown parameter; allowed: {', '.join(PARAMS)} and the signature {SIGNATURE}."
    limit = settings.CMS_RENDITION_MAX_DIMENSION
    width = _int("w", values.get("w"), 1, limit, problems)
    height = _int("h", values.get("h"), 1, limit, problems)
    quality = _int("q", values.get("q"), 1, 100, problems)
    fit = str(values.get("fit") or DEFAULT_FIT)
    if fit not in FITS:
        problems["fit"] = f"One of: {', '.join(FITS)}."
    fmt = str(values.get("format") or DEFAULT_FORMAT)
    if fmt not in FORMATS:
        problems["format"] = f"One of: {', '.join(FORMATS)}."
    elif fmt == "avif" and not avif_supported():
        problems["format"] = "AVIF is not available on this server (its Pillow has no AVIF codec); use webp."
    if problems:
        raise ValidationError(details=problems)
    # A fit only matters with both sides given: without them, one spelling.
    if width is None or height is None:
        fit = DEFAULT_FIT
    return Params(w=width, h=height, fit=fit, format=fmt, q=quality or DEFAULT_QUALITY)


def sign(media_id: str, params: Params) -> str:
    return salted_hmac(_SALT, f"{media_id}|{params.canonical()}", algorithm="sha256").hexdigest()[:32]


def preset_params(name: str) -> Params:
    preset = settings.CMS_RENDITION_PRESETS.get(name)
    if not isinstance(preset, dict):
        raise NotFound(f"No rendition preset '{name}'; presets: {', '.join(settings.CMS_RENDITION_PRESETS)}.")
    return parse(preset)


def request_params(media_id: str, preset: str | None, query: list[tuple[str, str]]) -> Params:
    """The rendition a request asks for, or the error that refuses it. Shared by the view and the fast path, so both
    accept exactly the same URLs. A preset takes no parameters; anything else needs a valid signature."""
    names = [name for name, _ in query]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValidationError(details={name: "Given more than once." for name in repeated})
    values = dict(query)
    if not _VERSION.match(values.pop(VERSION, "0")):
        raise ValidationError(details={VERSION: "The version of the URL the API gave (hexadecimal)."})
    if preset is not None:
        if values:
            raise ValidationError(details={name: "A preset takes no parameters but v." for name in values})
        return preset_params(preset)
    signature = values.pop(SIGNATURE, "")
    params = parse(values)
    if not signature:
        raise Forbidden(
            "Rendition URLs with parameters must be signed: ask POST /_cms/api/media/:id/render-url (or the MCP tool "
            "media_rendition_url) for one, or use a preset: GET /_cms/api/media/:id/render/:preset."
        )
    if not hmac.compare_digest(str(signature), sign(media_id, params)):
        raise Forbidden("The rendition signature does not match its parameters.")
    return params


def render_path(media_id: str, preset: str | None = None) -> str:
    base = f"{settings.CMS_API_PREFIX}/media/{media_id}/render"
    return f"{base}/{preset}" if preset else base


def version(params: Params, focal: tuple[float, float] | None) -> dict[str, str]:
    """``{"v": …}`` for a crop: it changes with the focal point, so a URL cached for a year (by a browser or a CDN)
    never shows an old crop; the server ignores it. Nothing for other renditions, which depend on the bytes alone."""
    if not params.crops:
        return {}
    return {VERSION: xxhash.xxh32(repr(focal).encode()).hexdigest()}


def rendition_url(item, params: Params) -> str:
    """The signed absolute URL of a rendition of ``item``."""
    query = urlencode(
        {**params.query(), SIGNATURE: sign(item.pk, params), **version(params, item.focal_point)}
    )
    return f"{settings.CMS_BASE_URL}{render_path(item.pk)}?{query}"


def preset_url(item, name: str) -> str:
    suffix = version(preset_params(name), item.focal_point)
    return f"{settings.CMS_BASE_URL}{render_path(item.pk, name)}" + (
        f"?{urlencode(suffix)}" if suffix else ""
    )


def srcset_widths(item) -> list[int]:
    """The widths a media answer's ``srcset`` offers for ``item``."""
    widths = sorted(set(settings.CMS_RENDITION_WIDTHS))
    if item.width and widths:
        # Renditions are never enlarged: past the image's own width a srcset entry would repeat the last one.
        widest = min(item.width, settings.CMS_RENDITION_MAX_DIMENSION)
        widths = [width for width in widths if width < widest] + [widest]
    return widths


def offered(item) -> list[Params]:
    """Every rendition a media answer links to (its presets and srcset), which a worker makes ahead of requests."""
    return [preset_params(name) for name in settings.CMS_RENDITION_PRESETS] + [
        Params(w=width) for width in srcset_widths(item)
    ]


def renderable(mime_type: str | None) -> bool:
    return (mime_type or "") in SOURCE_TYPES


def storage_key(content_hash: str, params: Params, focal: tuple[float, float] | None) -> str:
    """Where a rendition is kept: by the source's bytes and the canonical parameters, and the focal point when the
    rendition is a crop (so moving the focal point makes new crops)."""
    name = params.canonical()
    if params.crops and focal is not None:
        name = f"f{focal[0]:.4f}x{focal[1]:.4f}-{name}"
    return f"{RENDITIONS_DIR}/{content_hash}/{name}"


def signed_url(actor, media_id: str, values: dict) -> str:
    """The signed URL of a rendition of an image the actor may read (REST ``render-url``, MCP
    ``media_rendition_url``). Nothing is rendered until it is requested."""
    item = selectors.media_read(actor=actor, media_id=media_id)
    params = parse({key: value for key, value in values.items() if value is not None})
    check_renderable(item)
    return rendition_url(item, params)


# A rendition shows itself and nothing more, like every media file (apps/media/api/views.py): no scripts or loads,
# an origin of its own, never sniffed into another type, shown inline.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Content-Disposition": "inline",
    "Cache-Control": "public, max-age=31536000, immutable",
}


def response_headers(key: str, params: Params, length: int) -> dict[str, str]:
    """The headers of a rendition, the same from the view and from the fast path."""
    return {
        "Content-Type": params.content_type,
        "Content-Length": str(length),
        "ETag": f'"{xxhash.xxh64(key.encode()).hexdigest()}"',
        **HEADERS,
    }


def not_modified(if_none_match: str, etag: str) -> bool:
    return bool(if_none_match) and (
        if_none_match.strip() == "*"
        or etag in [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    )


# --- rendering -------------------------------------------------------------------------------------------------------


def _target(size: tuple[int, int], params: Params, focal: tuple[float, float] | None):
    """(output size, source box) for a picture of ``size``: never enlarged."""
    width, height = size
    box = (0.0, 0.0, float(width), float(height))
    if params.crops:
        aspect = params.w / params.h
        crop_w, crop_h = (
            (height * aspect, float(height)) if width / height > aspect else (width, width / aspect)
        )
        fx, fy = focal or (0.5, 0.5)
        left = min(max(fx * width - crop_w / 2, 0.0), width - crop_w)
        top = min(max(fy * height - crop_h / 2, 0.0), height - crop_h)
        scale = min(1.0, params.w / crop_w)
        size = (max(1, round(crop_w * scale)), max(1, round(crop_h * scale)))
        return size, (left, top, left + crop_w, top + crop_h)
    scales = [1.0]
    if params.w is not None:
        scales.append(params.w / width)
    if params.h is not None:
        scales.append(params.h / height)
    scale = min(scales)
    return (max(1, round(width * scale)), max(1, round(height * scale))), box


def _open(source, mime_type: str) -> Image.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(source, formats=[SOURCE_TYPES[mime_type]])
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageTooLarge() from None
        except (UnidentifiedImageError, OSError, ValueError) as error:
            if storage_unreachable(error):
                raise  # read lazily from object storage: an outage, not a bad image
            raise UnsupportedMediaType("The image cannot be decoded.") from error
    width, height = image.size
    if width * height > settings.CMS_RENDITION_MAX_SOURCE_PIXELS:
        image.close()
        raise ImageTooLarge(
            f"The image has {width}x{height} pixels; renditions are made of images up to "
            f"{settings.CMS_RENDITION_MAX_SOURCE_PIXELS} pixels.",
            details={"width": width, "height": height, "maxPixels": settings.CMS_RENDITION_MAX_SOURCE_PIXELS},
        )
    return image


def render(source, mime_type: str, params: Params, focal: tuple[float, float] | None) -> bytes:
    """The encoded rendition of the image in the binary file ``source``."""
    image = _open(source, mime_type)
    try:
        return _render(image, params, focal)
    except CmsError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
        if storage_unreachable(error):
            raise
        # Truncated or corrupt pixel data shows only once decoding starts.
        raise UnsupportedMediaType("The image cannot be decoded.") from error
    finally:
        image.close()


def _render(image: Image.Image, params: Params, focal: tuple[float, float] | None) -> bytes:
    orientation = image.getexif().get(ImageOps.ExifTags.Base.Orientation, 1)
    upright = image.size[::-1] if orientation in (5, 6, 7, 8) else image.size
    if image.format == "JPEG":
        # Decode at the smallest power-of-two reduction still at least as large as the output needs (DCT scaling): a
        # 2,000-pixel photo made 800 wide decodes at half size, several times faster. The scale is the same on
        # both axes, so the turn that comes after does not change it.
        size, box = _target(upright, params, focal)
        scale = size[0] / (box[2] - box[0])
        image.draft(None, (math.ceil(image.size[0] * scale), math.ceil(image.size[1] * scale)))
    icc = image.info.get("icc_profile")
    image = ImageOps.exif_transpose(image)
    size, box = _target(image.size, params, focal)
    mode = "RGBA" if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info else "RGB"
    if params.format == "jpeg":
        mode = "RGB"
    if image.mode != mode:
        image = image.convert(mode)
    out = image.resize(size, Image.Resampling.LANCZOS, box=box, reducing_gap=3.0)
    # A new image holds no metadata, whatever `info` resizing carried over: nothing of the source's EXIF, GPS, XMP
    # or comments can be written.
    out.info = {}
    options: dict[str, object] = {"icc_profile": icc} if icc else {}
    if params.format in ("webp", "avif", "jpeg"):
        options["quality"] = params.q
    if params.format == "webp":
        # Effort 2 of 0-6 (Pillow's default is 4): measured on an 800-pixel photo, 2.5x faster to encode for files
        # about 6% larger, which keeps a first render within its 150 ms (docs/performance.md).
        options["method"] = 2
    if params.format == "jpeg":
        options["optimize"] = True
        options["progressive"] = True
    buffer = io.BytesIO()
    out.save(buffer, PILLOW_FORMAT[params.format], **options)
    return buffer.getvalue()


# --- storage ---------------------------------------------------------------------------------------------------------


def stored(key: str) -> bytes | None:
    try:
        with storage.reachable(), storage.media_storage().open(key, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, OSError):
        return None


def keep(key: str, data: bytes) -> None:
    """Store a rendition. Two first requests may render the same one at once: on local disk each writes a file of
    its own and renames it into place (atomic, and both hold the same bytes); elsewhere (S3, where an object appears
    whole) a second save that the storage renamed to avoid overwriting is deleted again."""
    backend = storage.media_storage()
    path = storage.local_path(key) if storage.is_local(backend) else None
    if path is not None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.part"
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        return
    from django.core.files.base import ContentFile

    if backend.exists(key):
        return
    saved = backend.save(key, ContentFile(data))
    if saved != key:
        backend.delete(saved)


def forget(content_hash: str) -> None:
    """Delete every rendition of these bytes (their last media item is gone)."""
    backend = storage.media_storage()
    folder = f"{RENDITIONS_DIR}/{content_hash}"
    try:
        with storage.reachable():
            _, files = backend.listdir(folder)
    except (FileNotFoundError, OSError):
        return
    except StorageUnavailable:
        # Runs after the delete committed: that answer stands; the renditions stay until their bytes come back.
        logger.warning("could not delete renditions: the storage is unavailable", extra={"key": folder})
        return
    for name in files:
        try:
            with storage.reachable():
                backend.delete(f"{folder}/{name}")
        except (OSError, StorageUnavailable):
            logger.warning("could not delete rendition", extra={"key": f"{folder}/{name}"})


def check_renderable(item) -> None:
    if not renderable(item.mime_type):
        raise UnsupportedMediaType(
            f"Renditions are made of images ({', '.join(sorted(SOURCE_TYPES))}); this item is {item.mime_type}."
        )


def rendition(item, params: Params) -> tuple[bytes, str]:
    """The rendition's bytes and storage key: from storage when it was made before, else rendered and kept."""
    check_renderable(item)
    key = storage_key(item.content_hash, params, item.focal_point)
    data = stored(key)
    if data is not None:
        return data, key
    try:
        with storage.reachable(), storage.media_storage().open(item.storage_key, "rb") as source:
            data = render(source, item.mime_type, params, item.focal_point)
    except FileNotFoundError:
        raise NotFound("The media item's file is missing from storage.") from None
    with storage.reachable():
        keep(key, data)
    return data, key
