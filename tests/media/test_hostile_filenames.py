"""Hostile upload filenames and download keys (SPEC §4.3 ``POST /media`` multipart, ``GET /media/file/:key``).

A client chooses the filename of a multipart part, and it comes back in the ``Content-Disposition`` header of every
download. Each hostile name is either stored cleaned (no control characters, no path, at most 255 characters) under
a key we generate inside the media root, or refused with 400; downloading it gives a header that is one line, quoted
or percent-encoded, and nothing the name tried to inject. Keys that try to leave the media root are 404.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from apps.media.models import MediaItem
from tests.factories import make_media, png_bytes

MEDIA = "/_cms/api/media"
FILES = "/_cms/api/media/file/"
BOUNDARY = b"hostile-boundary-7d1f"
# Keys we generate: YYYY/MM/<media id>-<slugified name>.<extension of the detected type>.
KEY = re.compile(r"^\d{4}/\d{2}/[0-9a-z]{26}-[\w-]{1,60}\.png$")
NOT_FOUND = {"success": False, "error": {"code": "NOT_FOUND", "message": "No such file.", "details": {}}}


def multipart(disposition: bytes, content: bytes) -> bytes:
    """A body with one file part whose Content-Disposition parameters are exactly ``disposition``: the test client
    would build its own header from a name, and a hostile client does not."""
    return (
        b"--" + BOUNDARY + b"\r\n"
        b'Content-Disposition: form-data; name="file"; ' + disposition + b"\r\n"
        b"Content-Type: image/png\r\n\r\n" + content + b"\r\n"
        b"--" + BOUNDARY + b"--\r\n"
    )


def upload(client, disposition: bytes, content: bytes | None = None):
    body = multipart(disposition, content if content is not None else png_bytes())
    return client.generic(
        "POST", MEDIA, body, content_type=f"multipart/form-data; boundary={BOUNDARY.decode()}"
    )


def files_under(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file())


def assert_safe_headers(response):
    for name, value in response.items():
        assert not re.search(r"[\r\n\x00]", f"{name}{value}"), (name, value)
    assert "Set-Cookie" not in response
    assert not response.cookies


LONG = "a" * 900 + ".png"
# (id, the part's Content-Disposition parameters, the stored filename, the download's Content-Disposition)
ACCEPTED = [
    # A raw line break ends the header line: the rest becomes a part header of its own, which is ignored.
    ("crlf", b'filename="evil\r\nSet-Cookie: x=1.jpg"', '"evil', r'inline; filename="\"evil"'),
    # How browsers send a line break in a name (HTML's multipart encoding): kept as the text it is.
    (
        "encoded-crlf",
        b'filename="evil%0D%0ASet-Cookie: x=1.jpg"',
        "evil%0D%0ASet-Cookie: x=1.jpg",
        'inline; filename="evil%0D%0ASet-Cookie: x=1.jpg"',
    ),
    ("nul", b'filename="nul\x00byte.png"', "nulbyte.png", 'inline; filename="nulbyte.png"'),
    ("dot-dot", b'filename="../../etc/passwd"', "passwd", 'inline; filename="passwd"'),
    ("absolute", b'filename="/etc/passwd"', "passwd", 'inline; filename="passwd"'),
    ("windows-dot-dot", b'filename="..\\..\\x.jpg"', "x.jpg", 'inline; filename="x.jpg"'),
    ("windows-absolute", b'filename="C:\\Windows\\x.jpg"', "x.jpg", 'inline; filename="x.jpg"'),
    ("html-entities", b'filename="&#47;etc&#47;passwd"', "passwd", 'inline; filename="passwd"'),
    ("quote-semicolon", b'filename="q\\"uo;te.png"', 'q"uo;te.png', r'inline; filename="q\"uo;te.png"'),
    ("semicolon", b'filename="a.png; filename=b.exe"', "a.png; filename=b.exe", None),
    # U+202E RIGHT-TO-LEFT OVERRIDE would show "rtl\u202egnp.exe" as "rtlexe.png".
    ("rtl-override", 'filename="rtl\u202egnp.exe"'.encode(), "rtlgnp.exe", 'inline; filename="rtlgnp.exe"'),
    (
        "rfc5987-controls",
        b"filename*=UTF-8''%E2%80%AEevil%0D%0A.png",
        "evil.png",
        'inline; filename="evil.png"',
    ),
    ("rfc5987-dot-dot", b"filename*=UTF-8''..%2F..%2Fetc%2Fpasswd", "passwd", 'inline; filename="passwd"'),
    (
        "rfc5987-wins",
        b"filename=\"plain.png\"; filename*=UTF-8''r%C3%A9sum%C3%A9.png",
        "résumé.png",
        "inline; filename*=utf-8''r%C3%A9sum%C3%A9.png",
    ),
    ("long", f'filename="{LONG}"'.encode(), "a" * 251 + ".png", f'inline; filename="{"a" * 251}.png"'),
]


@pytest.mark.parametrize(
    ("disposition", "stored", "header"), [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED]
)
def test_a_hostile_name_is_stored_cleaned_and_downloads_with_a_safe_header(
    admin_api, api, media_root, disposition, stored, header
):
    content = png_bytes(color=(len(disposition) % 256, 40, 80))

    response = upload(admin_api, disposition, content)

    assert response.status_code == 201, response.content
    item = response.json()["data"]
    assert item["filename"] == stored
    assert len(stored) <= 255 and not re.search(r"[\x00-\x1f\x7f/\u202e]", stored)
    key = item["storageKey"]
    assert KEY.match(key), key
    path = media_root / key
    assert files_under(media_root) == [path]
    assert path.resolve().is_relative_to(media_root.resolve())
    assert path.read_bytes() == content

    download = api.get(FILES + key)

    assert download.status_code == 200
    assert b"".join(download.streaming_content) == content
    assert download["Content-Disposition"] == (header or f'inline; filename="{stored}"')
    assert_safe_headers(download)


# (id, the part's Content-Disposition parameters, the answer's error)
REFUSED = [
    (
        # Django reads at most 1024 bytes of a part's headers.
        "very-long",
        f'filename="{"a" * 1000}.png"'.encode(),
        {
            "code": "VALIDATION_ERROR",
            "message": "The request body could not be parsed: Multipart form parse error - Request max total header "
            "size exceeded.",
            "details": {"body": "Expected valid multipart/form-data."},
        },
    ),
    (
        "only-dots",
        b'filename=".."',
        {
            "code": "VALIDATION_ERROR",
            "message": "file: No file was submitted.",
            "details": {"file": "No file was submitted."},
        },
    ),
    (
        "only-control-characters",
        'filename="\u202e\x07\x1b"'.encode(),
        {
            "code": "VALIDATION_ERROR",
            "message": "file: No file was submitted.",
            "details": {"file": "No file was submitted."},
        },
    ),
    (
        "empty",
        b'filename=""',
        {
            "code": "VALIDATION_ERROR",
            "message": "file: The submitted data was not a file. Check the encoding type on the form.",
            "details": {"file": "The submitted data was not a file. Check the encoding type on the form."},
        },
    ),
]


@pytest.mark.parametrize(("disposition", "error"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_name_that_leaves_nothing_usable_is_refused(admin_api, media_root, disposition, error):
    response = upload(admin_api, disposition)

    assert response.status_code == 400
    assert response.json() == {"success": False, "error": error}
    assert_safe_headers(response)
    assert files_under(media_root) == []
    assert MediaItem.objects.count() == 0
    assert upload(admin_api, b'filename="fine.png"').status_code == 201


def test_a_stored_name_with_a_line_break_still_downloads_with_one_header_line(api):
    """Names are cleaned on the way in; one written some other way (a database edit, an older version) is
    percent-encoded on the way out rather than breaking the header or the response."""
    item = make_media(filename="ok.png")
    MediaItem.objects.filter(pk=item.pk).update(filename='evil\r\nSet-Cookie: x=1".png')

    response = api.get(FILES + item.storage_key)

    assert response.status_code == 200
    assert (
        response["Content-Disposition"] == "inline; filename*=utf-8''evil%0D%0ASet-Cookie%3A%20x%3D1%22.png"
    )
    assert_safe_headers(response)


@pytest.mark.parametrize(
    ("key", "status"),
    [
        ("..%2f..%2fetc/passwd", 404),
        ("..%2F..%2F..%2F..%2Fetc%2Fpasswd", 404),
        ("2026/01/..%2f..%2f..%2fetc%2fpasswd", 404),
        ("..%5c..%5cetc%5cpasswd", 404),
        ("%5c%5cserver%5cshare%5cfile.png", 404),
        ("C:%5cWindows%5cwin.ini", 404),
        ("%2fetc%2fpasswd", 404),
        ("%2e%2e/%2e%2e/etc/passwd", 404),
        ("%252e%252e%252fetc%252fpasswd", 404),
        ("....//....//etc/passwd", 404),
        ("~root/.ssh/id_rsa", 404),
        # No route takes a line break in a path: the API's own 404, the path escaped inside JSON.
        ("2026/01/photo.png%0d%0aSet-Cookie:%20x=1", 404),
        ("2026/01/photo.png%00.txt", 400),
    ],
)
def test_download_keys_that_leave_the_media_root_are_refused(api, media_root, key, status):
    make_media(filename="photo.png")

    response = api.get(FILES + key)

    assert response.status_code == status
    body = response.json()
    if status == 400:
        assert body["error"]["details"] == {"key": "Null characters are not allowed."}
    elif "%0d%0a" in key:
        path = FILES + key.replace("%0d%0a", "\r\n").replace("%20", " ")
        message = f"No API endpoint at {path}."
        assert body == {"success": False, "error": {"code": "NOT_FOUND", "message": message, "details": {}}}
    else:
        assert body == NOT_FOUND
    assert b"root:" not in response.content
    assert_safe_headers(response)


def test_a_recorded_key_that_links_out_of_the_media_root_is_404(api, media_root, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    item = make_media(filename="photo.png")
    link = media_root / "2026" / "01" / "link.png"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret)
    MediaItem.objects.filter(pk=item.pk).update(storage_key="2026/01/link.png")

    response = api.get(FILES + "2026/01/link.png")

    assert response.status_code == 404
    assert response.json() == NOT_FOUND
    assert b"root:" not in response.content
