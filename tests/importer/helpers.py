"""Steps of the import flow over HTTP, shared by the import tests."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

IMPORT = "/_cms/api/import"
PROBE = f"{IMPORT}/probe"
ANALYZE = f"{IMPORT}/blogplatform/analyze"
PREPARE = f"{IMPORT}/blogplatform/prepare"
EXECUTE = f"{IMPORT}/blogplatform/execute"
MEDIA = f"{IMPORT}/blogplatform/media"
REWRITE = f"{IMPORT}/blogplatform/rewrite-urls"


def job_url(job_id: str) -> str:
    return f"{IMPORT}/jobs/{job_id}"


def upload(client, path: Path | None = None, *, content: bytes | None = None, name: str = "export.xml"):
    data = content if content is not None else path.read_bytes()
    return client.post(ANALYZE, {"file": SimpleUploadedFile(name, data)}, format="multipart")


def analyze(client, path: Path | None = None, **kwargs) -> dict:
    response = upload(client, path, **kwargs)
    assert response.status_code == 201, response.json()
    return response.json()["data"]


def run_import(client, path: Path | None = None, *, content: bytes | None = None, **body) -> dict:
    """Analyse and execute; the finished job."""
    analysis = analyze(client, path, content=content)
    response = client.post(EXECUTE, {"analysisId": analysis["analysisId"], **body}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def all_pages(client, path: str) -> list[dict]:
    """Every item of a paginated list."""
    items, cursor = [], None
    while True:
        query = "?limit=100" if cursor is None else f"?limit=100&cursor={cursor}"
        response = client.get(f"{path}{query}")
        assert response.status_code == 200, response.json()
        data = response.json()["data"]
        items.extend(data["items"])
        cursor = data["nextCursor"]
        if not cursor:
            return items


def all_entries(client, collection: str) -> list[dict]:
    return all_pages(client, f"/_cms/api/content/{collection}")


def statuses(items: list[dict]) -> dict[str, int]:
    return dict(Counter(item["status"] for item in items))


def wxr(items: str, *, header: str = "", version: str = "1.2", site: str = "https://blog.example") -> bytes:
    """A small WXR document around ``items`` (raw XML)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/{version}/excerpt/"
  xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="http://wordpress.org/export/{version}/">
<channel>
  <title>Example blog</title>
  <link>{site}</link>
  <wp:wxr_version>{version}</wp:wxr_version>
  <wp:base_site_url>{site}</wp:base_site_url>
  <wp:base_blog_url>{site}</wp:base_blog_url>
  {header}
  {items}
</channel>
</rss>
""".encode()


def post(
    post_id: int,
    *,
    title: str = "A post",
    slug: str = "",
    content: str = "<p>Hello</p>",
    status: str = "publish",
    post_type: str = "post",
    date: str = "2024-01-02 03:04:05",
    creator: str = "admin",
    extra: str = "",
) -> str:
    return f"""<item>
  <title><![CDATA[{title}]]></title>
  <dc:creator><![CDATA[{creator}]]></dc:creator>
  <content:encoded><![CDATA[{content}]]></content:encoded>
  <excerpt:encoded><![CDATA[]]></excerpt:encoded>
  <wp:post_id>{post_id}</wp:post_id>
  <wp:post_date_gmt>{date}</wp:post_date_gmt>
  <wp:post_name><![CDATA[{slug}]]></wp:post_name>
  <wp:status><![CDATA[{status}]]></wp:status>
  <wp:post_type><![CDATA[{post_type}]]></wp:post_type>
  {extra}
</item>"""
