"""`make stress` scenario ``backup``: back up a populated instance the documented way, restore it into a fresh one and
compare every API answer (docs/operations.md "Backups and restore", issue 24).

On each database: instance A (a fresh database, media and import directories) is populated through the API and the
importer: collections, entries in every state with several revisions, a trashed one, terms, menus, a widget area and
a section, bylines, a redirect, media files (with a rendition made), settings, the theme unit test WXR, and a preview
token minted. A is then backed up while its server runs: ``manage.py backup_sqlite`` (SQLite) or ``pg_dump
--format=custom`` (PostgreSQL), plus a copy of the media and import directories. Instance B gets a fresh database
restored from that backup (the file put in place; ``pg_restore`` into a new database), the copied directories and the
same SECRET_KEY, and its own server. Every list is walked page by page on A (its cursors, signed with the key, are
then asked of B too), every item those lists name is fetched with its sub-resources (revisions, each revision,
translations, usages, terms), a media file's bytes, a rendition, and an entry read with the preview token: every
answer's status and body must be identical on A and B, and the generated indexes (``cms_*``) the same set.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import requests

from bench.run import RESULTS, ROOT, Server

API = "/_cms/api"
SUPPORTS = ["drafts", "revisions", "preview", "scheduling", "search"]
WXR = "wxr/theme-test-data/themeunittestdata.wordpress.xml"
# Lists walked page by page (limit 20, so the bigger ones take several pages and their cursors are compared too).
LISTS = [
    "/schema/collections",
    "/taxonomies",
    "/menus",
    "/media",
    "/bylines",
    "/widget-areas",
    "/sections",
    "/redirects",
    "/admin/users",
    "/audit-log",
    "/plugins",
    "/webhooks",
]
SINGLE = ["/schema", "/settings", "/search?q=template", "/search?q=post&limit=5", "/search/suggest?q=tem"]


def png_bytes(color: tuple[int, int, int], size: tuple[int, int]) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


def _pg(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def _fresh(kind: str, base_url: str, root: Path, env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """An empty instance under ``root``: its database URL and environment (same SECRET_KEY as ``env``)."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if kind == "sqlite":
        url = f"sqlite:///{root / 'cms.sqlite3'}"
    else:
        import psycopg

        url = _pg(base_url, f"{urlsplit(base_url).path[1:]}_{root.name}")
        with psycopg.connect(_pg(base_url, "postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path[1:]}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{urlsplit(url).path[1:]}"')
    instance_env = {
        **env,
        "DATABASE_URL": url,
        "CMS_VAR_DIR": str(root),
        "MEDIA_ROOT": str(root / "media"),
        "CMS_IMPORT_DIR": str(root / "imports"),
        "CMS_MEDIA_STORAGE": "local",
        "CMS_IMPORT_STORAGE": "local",
    }
    return url, instance_env


class Client:
    def __init__(self, base: str, token: str):
        self.base, self.session = base, requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, body=None, files=None, expect=(200, 201)):
        response = self.session.request(method, self.base + API + path, json=body, files=files, timeout=60)
        if response.status_code not in expect:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text[:300]}")
        if response.status_code >= 400 or not response.content:
            return None
        return response.json()["data"]


def populate(client: Client, env: dict[str, str]) -> dict:
    """Everything an operator's site holds, written through the API and the importer; answers what to read back."""
    client.call(
        "POST",
        "/schema/collections",
        {"slug": "notes", "label": "Notes", "urlPattern": "/notes/{slug}", "supports": SUPPORTS},
    )
    client.call(
        "POST", "/schema/collections/notes/fields", {"slug": "title", "label": "Title", "type": "string"}
    )
    client.call(
        "POST", "/schema/collections/notes/fields", {"slug": "rank", "label": "Rank", "type": "integer"}
    )
    client.call(
        "POST", "/schema/collections/notes/fields", {"slug": "body", "label": "Body", "type": "portableText"}
    )
    client.call("POST", "/taxonomies", {"name": "mood", "label": "Moods", "collections": ["notes"]})
    terms = [
        client.call("POST", "/taxonomies/mood/terms", {"slug": s, "label": s.title()})
        for s in ("calm", "wild")
    ]
    image = client.call("POST", "/media", files={"file": ("river.png", png_bytes((20, 90, 160), (64, 48)))})
    client.call("POST", "/media", files={"file": ("stone.png", png_bytes((120, 90, 60), (8, 8)))})
    byline = client.call("POST", "/bylines", {"displayName": "Ada Lovelace"})
    ids = []
    for n in range(30):
        body = [
            {
                "_type": "block",
                "_key": "b",
                "children": [{"_type": "span", "_key": "s", "text": f"river {n}"}],
            }
        ]
        entry = client.call(
            "POST", "/content/notes", {"data": {"title": f"Note {n}", "rank": n, "body": body}}
        )
        entry_id = entry["item"]["id"] if "item" in entry else entry["id"]
        for edit in range(n % 4):  # 0-3 extra revisions
            client.call("PATCH", f"/content/notes/{entry_id}", {"data": {"title": f"Note {n} v{edit + 2}"}})
        client.call("POST", f"/content/notes/{entry_id}/terms/mood", {"termIds": [terms[n % 2]["id"]]})
        if n % 3 == 0:
            client.call("POST", f"/content/notes/{entry_id}/publish", {})
            client.call("PATCH", f"/content/notes/{entry_id}", {"data": {"title": f"Note {n} pending edit"}})
        elif n % 3 == 1 and n < 10:
            later = (datetime.now(UTC) + timedelta(days=3650)).strftime("%Y-%m-%dT%H:%M:%SZ")
            client.call("POST", f"/content/notes/{entry_id}/schedule", {"scheduledAt": later})
        ids.append(entry_id)
    client.call("DELETE", f"/content/notes/{ids[-1]}")
    client.call("POST", "/menus", {"name": "primary", "label": "Main"})
    client.call("POST", "/menus/primary/items", {"type": "custom", "label": "Home", "url": "/"})
    client.call("POST", "/redirects", {"source": "/old-note", "location": "/notes/note-3"})
    client.call("POST", "/widget-areas", {"name": "sidebar", "label": "Sidebar"})
    client.call(
        "POST", "/widget-areas/sidebar/widgets", {"type": "content", "title": "About", "content": body}
    )
    client.call("POST", "/sections", {"title": "Call to action", "keywords": ["cta"], "content": body})
    client.call("PUT", "/settings", {"siteTitle": "Backup drill", "tagline": "restored?", "postsPerPage": 7})
    preview = client.call("POST", f"/content/notes/{ids[1]}/preview", {})
    data = Path(env["CMS_TESTDATA_DIR"]) / WXR
    summary = _manage(env, "import_wxr", str(data), "--no-progress")
    job = summary.split()[2].rstrip(":")
    rendition = next(iter(image.get("srcset") or []), {}).get("url")
    return {
        "entries": ids,
        "preview": preview["token"],
        "job": job,
        "image": image,
        "byline": byline,
        "rendition": rendition,
    }


def _pages(client: Client, path: str) -> list[str]:
    """The path of a list and, when it pages, of every page of 20 (walking its cursors)."""
    paths = [path]
    if "nextCursor" not in client.call("GET", path):
        return paths  # answered whole
    query: dict = {"limit": 20}
    joiner = "&" if "?" in path else "?"
    while True:
        page = f"{path}{joiner}{urlencode(query)}"
        data = client.call("GET", page, expect=(200, 400))
        if data is None:
            return paths  # a list in one piece: it takes no limit
        paths.append(page)
        if not data.get("nextCursor"):
            return paths
        query = {"limit": 20, "cursor": data["nextCursor"]}


def _listed(data) -> list[dict]:
    return data["items"] if isinstance(data, dict) else data


def _items(client: Client, path: str) -> list[dict]:
    pages = _pages(client, path)
    return [item for page in pages[1:] or pages for item in _listed(client.call("GET", page))]


def read_paths(client: Client, facts: dict) -> list[str]:
    """Every read to compare, discovered on instance A."""
    paths = list(SINGLE)
    for listed in LISTS:
        paths += _pages(client, listed)
    for collection in _items(client, "/schema/collections"):
        slug = collection["slug"]
        paths += [f"/schema/collections/{slug}?includeFields=true", f"/schema/collections/{slug}/fields"]
        for status in ("", "?status=draft", "?status=published", "?status=scheduled"):
            paths += _pages(client, f"/content/{slug}{status}")
        paths += _pages(client, f"/content/{slug}/trash")
        for entry in _items(client, f"/content/{slug}"):
            base = f"/content/{slug}/{entry['id']}"
            paths += [base, f"{base}/translations", f"{base}/compare", f"/content/{slug}/{entry['slug']}"]
            revisions = _pages(client, f"{base}/revisions")
            paths += revisions
            paths += [f"/revisions/{rev['id']}" for rev in _items(client, f"{base}/revisions")]
    for taxonomy in _items(client, "/taxonomies"):
        paths.append(f"/taxonomies/{taxonomy['name']}")
        terms = f"/taxonomies/{taxonomy['name']}/terms"
        paths += _pages(client, terms)
        paths += [f"{terms}/{term['slug']}" for term in _items(client, terms)]
    paths += [f"/menus/{menu['name']}" for menu in _items(client, "/menus")]
    paths += [f"/widget-areas/{area['name']}" for area in _items(client, "/widget-areas")]
    paths += [f"/sections/{section['slug']}" for section in _items(client, "/sections")]
    paths += [f"/bylines/{byline['id']}" for byline in _items(client, "/bylines")]
    for item in _items(client, "/media"):
        paths += [f"/media/{item['id']}", f"/media/{item['id']}/usages"]
    paths += [f"/import/jobs/{facts['job']}"]
    return paths


def _raw(base: str, token: str | None, path: str, headers: dict | None = None) -> tuple[int, bytes]:
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    response = requests.get(base + path, headers={**auth, **(headers or {})}, timeout=60)
    return response.status_code, response.content


def generated_indexes(kind: str, url: str) -> list[str]:
    sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'cms_%' ORDER BY name"
    if kind == "sqlite":
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return [row[0] for row in conn.execute(sql)]
    import psycopg

    with psycopg.connect(url) as conn:
        query = "SELECT indexname FROM pg_indexes WHERE indexname LIKE 'cms\\_%%' ORDER BY indexname"
        return [row[0] for row in conn.execute(query)]


def back_up(kind: str, url: str, env: dict[str, str], root: Path, out: Path) -> None:
    """The documented backup, taken while A's server runs: the database, then the media and import directories."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    if kind == "sqlite":
        _manage(env, "backup_sqlite", str(out / "cms.sqlite3"))
    else:
        subprocess.run(["pg_dump", "--format=custom", "--file", str(out / "cms.dump"), url], check=True)
    for name in ("media", "imports"):
        if (root / name).is_dir():
            shutil.copytree(root / name, out / name)


def restore(kind: str, url: str, env: dict[str, str], root: Path, backup: Path) -> None:
    """Into a fresh instance (its database just created, nothing running on it)."""
    if kind == "sqlite":
        shutil.copyfile(backup / "cms.sqlite3", url.removeprefix("sqlite:///"))
    else:
        subprocess.run(
            ["pg_restore", "--exit-on-error", "--no-owner", "--dbname", url, str(backup / "cms.dump")],
            check=True,
        )
        subprocess.run(["psql", "--quiet", "--command", "ANALYZE", url], check=True)
    for name in ("media", "imports"):
        if (backup / name).is_dir():
            shutil.copytree(backup / name, root / name, dirs_exist_ok=True)


def scenario_backup(kind, url, env, token, ids, seconds):
    from bench.stress import Verdict

    verdict = Verdict("backup", kind, True)
    work = RESULTS / "stress-backup-work" / kind
    env = {**env, "CMS_TESTDATA_DIR": env.get("CMS_TESTDATA_DIR", str(ROOT.parent / "shared" / "testdata"))}
    url_a, env_a = _fresh(kind, url, work / "a", env)
    _manage(env_a, "migrate", "--noinput", "-v0")
    token_a = next(
        line.strip()
        for line in _manage(env_a, "cms_setup", "--print-token").splitlines()
        if line.strip().startswith("ec_pat_")
    )
    server_a = Server("cms_project.wsgi", env_a)
    server_b = None
    try:
        server_a.wait(f"{API}/health")
        client_a = Client(server_a.url, token_a)
        facts = populate(client_a, env_a)
        if facts["rendition"]:
            _raw(
                server_a.url,
                None,
                urlsplit(facts["rendition"]).path + "?" + urlsplit(facts["rendition"]).query,
            )
        back_up(kind, url_a, env_a, work / "a", work / "backup")
        url_b, env_b = _fresh(kind, url, work / "b", env)
        restore(kind, url_b, env_b, work / "b", work / "backup")
        server_b = Server("cms_project.wsgi", env_b)
        server_b.wait(f"{API}/health")
        reads = [API + path for path in read_paths(client_a, facts)]
        image = urlsplit(facts["image"]["url"])
        reads.append(image.path)
        if facts["rendition"]:
            rendition = urlsplit(facts["rendition"])
            reads.append(f"{rendition.path}?{rendition.query}")
        differences, statuses = [], {}
        for path in reads:
            a, b = _raw(server_a.url, token_a, path), _raw(server_b.url, token_a, path)
            statuses[a[0]] = statuses.get(a[0], 0) + 1
            if a != b:
                differences.append(f"{path}: A {a[0]} {a[1][:120]!r} ≠ B {b[0]} {b[1][:120]!r}")
        preview_path = f"{API}/content/notes/{facts['entries'][1]}"
        preview = {"X-CMS-Preview": facts["preview"]}
        pa, pb = (
            _raw(server_a.url, None, preview_path, preview),
            _raw(server_b.url, None, preview_path, preview),
        )
        if pa != pb or pa[0] != 200:
            differences.append(f"preview token read: A {pa[0]} ≠ B {pb[0]} {pb[1][:120]!r}")
        image_bytes = _raw(server_b.url, None, image.path)[1]
        if image_bytes != png_bytes((20, 90, 160), (64, 48)):
            differences.append("the restored media file's bytes differ from the uploaded ones")
        indexes_a, indexes_b = generated_indexes(kind, url_a), generated_indexes(kind, url_b)
        if indexes_a != indexes_b or not indexes_a:
            differences.append(f"generated indexes differ: A {indexes_a} B {indexes_b}")
        verdict.facts = {
            "reads_compared": len(reads) + 1,
            "statuses": {str(key): value for key, value in sorted(statuses.items())},
            "differences": len(differences),
            "generated_indexes": len(indexes_a),
            "backup_bytes": sum(f.stat().st_size for f in (work / "backup").rglob("*") if f.is_file()),
        }
        verdict.problems += differences[:20]
        non_200 = {key: value for key, value in statuses.items() if key != 200}
        if non_200:
            verdict.problems.append(f"reads on A that did not answer 200: {non_200}")
    except (RuntimeError, OSError, subprocess.CalledProcessError, requests.RequestException) as exc:
        verdict.problems.append(f"the drill stopped: {exc}")
    finally:
        server_a.stop()
        if server_b:
            server_b.stop()
    verdict.passed = not verdict.problems
    return verdict
