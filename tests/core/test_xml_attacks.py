"""XML attacks sent to the WordPress import over HTTP (SPEC §4.10 analyze and execute, §7 "invalid file format: import
stops with an error message").

Each document of the corpus is a small, otherwise valid export with one attack in it. Sent to analyze or to
multipart execute, each is refused with 400 ``VALIDATION_ERROR`` naming the line, nothing of it is kept or imported,
nothing is fetched from the addresses it names, no file's content comes back, and the next import works.
"""

from __future__ import annotations

import io
import json

import pytest
from defusedxml import DefusedXmlException
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.content.models import Entry
from apps.importer.models import ImportAnalysis, ImportJob
from apps.importer.sources.wxr import MalformedWxr, read_wxr
from apps.media.models import MediaItem
from apps.schema.models import Collection
from tests.factories import png_bytes
from tests.importer import conftest as importer_fixtures
from tests.importer.helpers import ANALYZE, EXECUTE

MB = 1024 * 1024

ENTITIES = (
    "The file declares XML entities or refers to external ones; WordPress exports never do, and they are refused "
    "because they can expand without limit or read other files."
)
EXTERNAL_DTD = (
    "The file refers to an external document type definition (<!DOCTYPE … SYSTEM or PUBLIC …>); WordPress exports "
    "never do, and it is refused because it would load definitions from another file or host."
)
MARKUP = (
    "A single tag, attribute value or comment is longer than 1 MB; WordPress exports have none this long (post "
    "content is text or CDATA, which is not limited)."
)
NESTING = "Elements are nested more than 64 levels deep; WordPress exports nest at most 6."
ENCODING = (
    "The XML declaration names an encoding that cannot be read; WordPress exports are UTF-8 or use a single-byte "
    "character set such as ISO-8859-1."
)


def export(*, doctype: str = "", title: str = "A post", rss_attributes: str = "", body: str = "") -> bytes:
    """A one-post export: the DOCTYPE (or nothing) on line 2, ``<rss`` on line 3, the post's title on line 13 and
    ``body`` from line 17."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
{doctype}
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
  xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/" {rss_attributes}>
<channel>
<title>Attacked blog</title>
<link>https://blog.example</link>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>https://blog.example</wp:base_site_url>
<wp:base_blog_url>https://blog.example</wp:base_blog_url>
<item>
<wp:post_id>1</wp:post_id>
<title>{title}</title>
<wp:post_type>post</wp:post_type>
<wp:status>publish</wp:status>
<content:encoded><![CDATA[<p>Hello</p>]]></content:encoded>
{body}
</item>
</channel>
</rss>
""".encode()


LAUGHS = "".join(
    f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10 if n else "lol"}">' for n in range(10)
)  # ten to the ninth "lol"s from a 1 KB declaration

# (id, document, reason, line). ``{BASE}`` is the address of a local server that records every request it gets.
CORPUS = [
    ("billion-laughs", export(doctype=f"<!DOCTYPE rss [{LAUGHS}]>", title="&lol9;"), ENTITIES, 2),
    (
        "quadratic-blowup",
        export(doctype=f'<!DOCTYPE rss [<!ENTITY a "{"A" * 100_000}">]>', title="&a;" * 20_000),
        ENTITIES,
        2,
    ),
    (
        "external-entity-file",
        export(doctype='<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', title="&xxe;"),
        ENTITIES,
        2,
    ),
    (
        "external-entity-http",
        export(doctype='<!DOCTYPE rss [<!ENTITY xxe SYSTEM "{BASE}/secret">]>', title="&xxe;"),
        ENTITIES,
        2,
    ),
    (
        "unparsed-entity",
        export(
            doctype='<!DOCTYPE rss [<!NOTATION png SYSTEM "image/png">'
            '<!ENTITY logo SYSTEM "file:///etc/passwd" NDATA png>]>'
        ),
        ENTITIES,
        2,
    ),
    ("external-dtd-http", export(doctype='<!DOCTYPE rss SYSTEM "{BASE}/evil.dtd">'), EXTERNAL_DTD, 2),
    (
        "external-dtd-file",
        export(doctype='<!DOCTYPE rss PUBLIC "-//Evil//DTD Evil//EN" "file:///etc/passwd">'),
        EXTERNAL_DTD,
        2,
    ),
    (
        "parameter-entity-external",
        export(doctype='<!DOCTYPE rss [<!ENTITY % remote SYSTEM "{BASE}/evil.dtd"> %remote;]>'),
        ENTITIES,
        2,
    ),
    (
        "parameter-entity-defining-entities",
        export(doctype="<!DOCTYPE rss [<!ENTITY % define \"<!ENTITY x 'y'>\"> %define;]>", title="&x;"),
        ENTITIES,
        2,
    ),
    # Under the import's upload limit (2 GB): the parser's cost for one huge token is what is at stake.
    ("huge-attribute", export(rss_attributes=f'data-x="{"A" * 20 * MB}"'), MARKUP, 3),
    ("huge-comment", export(body=f"<!--{'A' * 3 * MB}-->"), MARKUP, 17),
    ("deep-nesting", export(body="<div>" * 100_000 + "</div>" * 100_000), NESTING, 17),
    (
        "binary",
        png_bytes(),
        "The file is not well-formed XML (not well-formed (invalid token), column 0).",
        1,
    ),
    (
        "truncated",
        export()[: export().index(b"<content:encoded>")],
        "The file is not well-formed XML (no element found, column 0).",
        16,
    ),
    *[
        (f"encoding-{encoding}", export().replace(b"UTF-8", encoding.encode(), 1), ENCODING, 1)
        # Unknown to Python, multi-byte (expat asks Python only for single-byte ones), and not text at all: each
        # failed inside the parser with an error that was no ParseError (500, and the upload was left behind).
        for encoding in ("x-evil", "utf-7", "shift_jis", "rot13", "punycode")
    ],
]


import_dir = importer_fixtures.import_dir  # autouse there: uploads are kept in the test's own directory
web = importer_fixtures.web


def kept(directory) -> list:
    return sorted(directory.iterdir()) if directory.exists() else []


def _encode(document: str | bytes) -> bytes:
    return document if isinstance(document, bytes) else document.encode()


@pytest.fixture
def server(web):
    web.fallback = (200, b"root:x:0:0:root:/root:/bin/bash\n", {"Content-Type": "text/plain"})
    return web


def send(client, endpoint: str, content: bytes, name: str = "export.xml"):
    body = {"file": SimpleUploadedFile(name, content)}
    if endpoint == EXECUTE:
        body["config"] = json.dumps({"postTypeMappings": {"post": {"collection": "posts"}}})
    return client.post(endpoint, body, format="multipart")


def stored_rows() -> dict[str, int]:
    return {
        "analyses": ImportAnalysis.objects.count(),
        "jobs": ImportJob.objects.count(),
        "entries": Entry.objects.count(),
        "collections": Collection.objects.count(),
        "media": MediaItem.objects.count(),
    }


NOTHING = {"analyses": 0, "jobs": 0, "entries": 0, "collections": 0, "media": 0}


def assert_the_server_still_imports(client):
    # Analysis reads the whole file with the same reader as execute, without the cost of creating collections.
    response = send(client, ANALYZE, export(title="Fine"))
    assert response.status_code == 201, response.content
    assert response.json()["data"]["postTypes"][0]["count"] == 1


@pytest.mark.parametrize("endpoint", [ANALYZE, EXECUTE], ids=["analyze", "execute"])
@pytest.mark.parametrize(
    ("document", "reason", "line"), [case[1:] for case in CORPUS], ids=[c[0] for c in CORPUS]
)
def test_each_attack_is_refused_and_nothing_is_kept(
    admin_api, server, import_dir, endpoint, document, reason, line
):
    content = _encode(document).replace(b"{BASE}", server.base.encode())

    response = send(admin_api, endpoint, content)

    assert response.status_code == 400, response.content[:500]
    body = response.json()
    assert body == {
        "success": False,
        "error": {
            "code": "VALIDATION_ERROR",
            "message": f"The file cannot be imported: {reason} (line {line})",
            "details": {"line": line},
        },
    }
    assert b"root:" not in response.content
    assert server.requests == []
    assert stored_rows() == NOTHING
    assert kept(import_dir) == []

    assert_the_server_still_imports(admin_api)
    assert server.requests == []


@pytest.mark.parametrize(
    ("document", "title"),
    [
        (export(title="caf\xe9 INVALID").replace(b"INVALID", b"\xff\xfe"), "caf\xe9 \ufffd\ufffd"),
        # An overlong encoding of "/" is never decoded as "/" (path tricks): each byte becomes U+FFFD.
        (export(title="OVERLONG").replace(b"OVERLONG", b"..\xc0\xafetc"), "..\ufffd\ufffdetc"),
    ],
    ids=["invalid-utf8", "overlong-utf8-slash"],
)
def test_bytes_that_are_not_utf8_are_replaced_never_decoded(admin_api, server, document, title):
    # docs/decisions.md, "Import": one stray byte no longer refuses the whole file; it is reported by line.
    response = send(admin_api, EXECUTE, document)

    assert response.status_code == 200, response.content[:500]
    job = response.json()["data"]
    assert job["summary"]["warnings"] == [
        {
            "code": "INVALID_UTF8",
            "message": "Line 13 holds bytes that are not UTF-8; each was replaced by U+FFFD (\ufffd).",
            "line": 13,
        }
    ]
    assert list(Entry.objects.values_list("data__title", flat=True)) == [title]
    assert server.requests == []


ENTITY_ATTACKS = [case for case in CORPUS if case[2] in (ENTITIES, EXTERNAL_DTD)]


@pytest.mark.parametrize("document", [case[1] for case in ENTITY_ATTACKS], ids=[c[0] for c in ENTITY_ATTACKS])
def test_defusedxml_is_what_refuses_entities_and_external_definitions(document):
    with pytest.raises(MalformedWxr) as raised:
        list(read_wxr(io.BytesIO(_encode(document)), convert=False))
    assert isinstance(raised.value.__cause__, DefusedXmlException)


@pytest.mark.parametrize(
    ("size", "message"),
    [
        # Declared far over the limit: refused before the body is read.
        (2 * MB, "The upload is {declared} bytes; files may have at most 1048576 bytes."),
        # Just over, within the room left for the multipart envelope: refused while it is read.
        (MB + 1, "The upload exceeds the limit of 1048576 bytes."),
    ],
    ids=["declared-length", "while-reading"],
)
@pytest.mark.parametrize("endpoint", [ANALYZE, EXECUTE], ids=["analyze", "execute"])
def test_an_export_over_the_upload_limit_is_413(admin_api, settings, import_dir, endpoint, size, message):
    settings.CMS_IMPORT_MAX_BYTES = MB
    document = export()
    content = document.replace(b"<rss ", b'<rss data-x="' + b"A" * (size - len(document) - 10) + b'" ', 1)
    assert len(content) == size

    response = send(admin_api, endpoint, content)

    assert response.status_code == 413
    declared = response.wsgi_request.META["CONTENT_LENGTH"]
    assert response.json() == {
        "success": False,
        "error": {
            "code": "PAYLOAD_TOO_LARGE",
            "message": message.format(declared=declared),
            "details": {"file": "At most 1048576 bytes."},
        },
    }
    assert stored_rows() == NOTHING
    assert kept(import_dir) == []
    assert_the_server_still_imports(admin_api)


NO_ELEMENT = "The file is not well-formed XML (no element found, column 0). (line 3)"


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (
            b"",
            {
                "code": "VALIDATION_ERROR",
                "message": "file: The submitted file is empty.",
                "details": {"file": "The submitted file is empty."},
            },
        ),
        (
            b"\n\t  \n",
            {
                "code": "VALIDATION_ERROR",
                "message": f"The file cannot be imported: {NO_ELEMENT}",
                "details": {"line": 3},
            },
        ),
    ],
    ids=["empty", "whitespace"],
)
@pytest.mark.parametrize("endpoint", [ANALYZE, EXECUTE], ids=["analyze", "execute"])
def test_an_empty_export_is_refused(admin_api, import_dir, endpoint, content, error):
    response = send(admin_api, endpoint, content)

    assert response.status_code == 400
    assert response.json() == {"success": False, "error": error}
    assert stored_rows() == NOTHING
    assert kept(import_dir) == []
    assert_the_server_still_imports(admin_api)


def test_xinclude_is_not_followed(admin_api, server):
    """ElementTree does not process XInclude unless asked: the element is just an unknown element of the item."""
    include = (
        f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>'
        f'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{server.base}/secret" parse="text"/>'
    )
    response = send(admin_api, EXECUTE, export(body=include))

    assert response.status_code == 200
    assert response.json()["data"]["state"] == "completed"
    assert server.requests == []
    stored = json.dumps(list(Entry.objects.values("data", "meta")))
    assert "root:" not in stored
    assert "root:" not in response.content.decode()
