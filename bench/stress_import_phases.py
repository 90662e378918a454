"""`make stress` scenario ``kill_import_phases`` (issue 24: "kill a worker in every import phase").

A generated export with everything the importer has a phase for: many categories (the terms phase), posts and pages
(items), classic menus whose items link posts (built in the links phase), and attachments whose files a local HTTP
server of the scenario's own serves, each a few hundred KB after a short delay (media). It is imported through the
REST API by two ``manage.py worker`` processes (one runs the job, the other stands by to take it over if its lease
lapses); both are killed with SIGKILL whenever the job is in a work phase that has had fewer than
``KILLS_PER_PHASE`` kills, at a different point of the phase each time, and two new ones started.

The verdict: the import completes; every post, page, menu, menu item and attachment exists exactly once (counted
through the REST API); no file was downloaded again but those a kill interrupted (at most one per kill in the media
phase, downloads being one at a time); every work phase got a kill; and the job's lease was never left unrenewed
for longer than the lease while its worker was alive (else the standby worker would have run the job too).
"""

from __future__ import annotations

import io
import random
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

from bench.run import Server
from bench.stress_tasks import API, _count, _job, _kill_env, _session, _verdict, _worker
from tests.importer.wxr_factory import write_wxr

# The phases that do work, in their order (apps/importer/pipeline/driver.py PHASES, less start and done).
WORK_PHASES = ("terms", "items", "links", "media")
KILLS_PER_PHASE = 3
# How long into a phase (once a new worker holds the job) each of its kills waits, first to last, so that they land
# at different points: the links phase is short (a second or two) and starts again from its beginning after a kill;
# the terms phase commits a chunk of terms at a time and the media phase a file at a time, so later kills there
# interrupt a phase resumed in its middle.
DELAYS = {"terms": (0.3, 2.0, 4.0), "links": (0.2, 0.5, 0.9), "media": (0.5, 4.0, 10.0)}
# In the items phase, kills wait for this many more items committed since the worker took the job.
ITEMS_STEP = 300
POSTS, PAGES, CATEGORIES = 3000, 60, 1500
MENUS, MENU_ITEMS = 4, 400
ATTACHMENTS, FILE_SIDE, FILE_DELAY = 300, 280, 0.03
LEASE_SECONDS = 6
POLL = 0.1


class _Files(ThreadingHTTPServer):
    """The export's attachment files: a JPEG of noise each (different bytes for every file and every run, so that
    no two are deduplicated into one media item), counting the requests for each."""

    daemon_threads = True

    def __init__(self, tag: str) -> None:
        super().__init__(("127.0.0.1", 0), _FileHandler)
        self.tag = tag
        self.fetches: Counter[str] = Counter()
        self.lock = threading.Lock()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/uploads"


class _FileHandler(BaseHTTPRequestHandler):
    server: _Files

    def do_GET(self) -> None:
        from PIL import Image

        with self.server.lock:
            self.server.fetches[self.path] += 1
        time.sleep(FILE_DELAY)
        noise = random.Random(f"{self.server.tag}{self.path}").randbytes(FILE_SIDE * FILE_SIDE * 3)
        buffer = io.BytesIO()
        Image.frombytes("RGB", (FILE_SIDE, FILE_SIDE), noise).save(buffer, "JPEG", quality=90)
        body = buffer.getvalue()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:
        return


def _start_import(session: requests.Session, url: str, work: Path, tag: str, uploads: str) -> str:
    export = write_wxr(
        work / f"phases-{tag}.xml",
        POSTS,
        categories=CATEGORIES,
        attachments=ATTACHMENTS,
        uploads=uploads,
        pages=PAGES,
        menus=MENUS,
        menu_items=MENU_ITEMS,
        prefix=f"{tag}-",
    )
    # A site of its own per run: an import of the same site again updates its earlier items instead of creating.
    text = export.read_text(encoding="utf-8")
    site = "<wp:base_blog_url>https://example.test</wp:base_blog_url>"
    export.write_text(text.replace(site, site.replace("example.test", f"{tag}.example.test"), 1), "utf-8")
    with export.open("rb") as handle:
        analyzed = session.post(
            f"{url}{API}/import/blogplatform/analyze", files={"file": (export.name, handle)}
        )
    analyzed.raise_for_status()
    executed = session.post(
        f"{url}{API}/import/blogplatform/execute",
        json={
            "analysisId": analyzed.json()["data"]["analysisId"],
            "postTypeMappings": {
                "post": {"collection": f"stress_{tag}", "enabled": True},
                "page": {"collection": f"pages_{tag}", "enabled": True},
            },
            "options": {"includeMedia": True, "includeMenus": True},
        },
    )
    if executed.status_code != 202:
        raise RuntimeError(f"execute answered {executed.status_code}: {executed.text[:300]}")
    return executed.json()["data"]["id"]


class _Killer:
    """Runs the job on pairs of workers, killing each pair in a work phase that still wants kills."""

    def __init__(self, session: requests.Session, url: str, job_id: str, env: dict, log: Path) -> None:
        self.session, self.url, self.job_id, self.env, self.log = session, url, job_id, env, log
        self.kills: Counter[str] = Counter()
        self.at_kill: list[dict] = []
        # Per phase, the longest time the job's updatedAt (its lease) stood still while a live worker held it.
        self.unrenewed: dict[str, float] = {}
        self.workers: list[subprocess.Popen] = []

    def job(self) -> dict:
        return _job(self.session, self.url, self.job_id)

    def run(self, limit: float) -> dict:
        deadline = time.monotonic() + limit
        stamp = None
        while time.monotonic() < deadline:
            self.workers = [_worker(self.env, self.log) for _ in range(2)]
            job = self._taken(stamp, deadline)
            if job["state"] in ("completed", "failed", "paused"):
                return job
            job = self._until_due(job, deadline)
            if job["state"] in ("completed", "failed", "paused"):
                return job
            self.stop(signal.SIGKILL)
            job = self.job()
            # The phase the job was in when its worker died (a dead worker writes nothing more).
            phase = job["progress"]["phase"]
            self.kills[phase] += 1
            self.at_kill.append({"phase": phase, "done": _done(job, phase)})
            stamp = job["updatedAt"]
        raise RuntimeError(f"the import did not finish within {limit:.0f} s: {self.job()}")

    def _taken(self, stamp: str | None, deadline: float) -> dict:
        """The job once a new worker took it (its lease renewed since the kill), or ended."""
        while True:
            job = self.job()
            if job["state"] in ("completed", "failed", "paused") or (
                job["state"] == "running" and job["updatedAt"] != stamp
            ):
                return job
            if time.monotonic() > deadline:
                raise RuntimeError(f"no worker took the job over: {job}")
            time.sleep(POLL)

    def _until_due(self, job: dict, deadline: float) -> dict:
        """Poll the job held by the live workers until it is in a work phase due for a kill (answered then) or it
        ended, noting how long its lease stands still in each phase."""
        phase, since, cursor = None, time.monotonic(), job["progress"]["current"]
        stamp, stamp_at, stamp_phase = job["updatedAt"], time.monotonic(), job["progress"]["phase"]
        while time.monotonic() < deadline:
            job = self.job()
            moment = time.monotonic()
            if job["updatedAt"] != stamp:
                still = moment - stamp_at
                self.unrenewed[stamp_phase] = round(max(self.unrenewed.get(stamp_phase, 0.0), still), 1)
                stamp, stamp_at, stamp_phase = job["updatedAt"], moment, job["progress"]["phase"]
            if job["state"] in ("completed", "failed", "paused"):
                return job
            if job["progress"]["phase"] != phase:
                phase, since, cursor = job["progress"]["phase"], moment, job["progress"]["current"]
            done = self.kills[phase]
            if phase in WORK_PHASES and done < KILLS_PER_PHASE:
                if phase == "items":
                    if job["progress"]["current"] >= cursor + ITEMS_STEP:
                        return job
                elif moment - since >= DELAYS[phase][done]:
                    return job
            time.sleep(POLL)
        raise RuntimeError(f"the import did not finish in time: {job}")

    def stop(self, how: signal.Signals) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                worker.send_signal(how)
        for worker in self.workers:
            try:
                worker.wait(timeout=120)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        self.workers = []


def _done(job: dict, phase: str) -> int | None:
    """How far the phase had got when its worker was killed, as committed: terms made, items read, files done."""
    summary = job.get("summary") or {}
    if phase == "terms":
        return (summary.get("kinds") or {}).get("terms", 0)
    if phase == "media":
        return (summary.get("media") or {}).get("current", 0)
    return job["progress"]["current"] if phase == "items" else None


def _all(session: requests.Session, url: str, stop=None) -> list[dict]:
    """Every item of a paged list, newest first; ``stop(item)`` ends the walk early."""
    items, cursor = [], None
    while True:
        params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        page = session.get(url, params=params).json()["data"]
        for item in page["items"]:
            if stop is not None and stop(item):
                return items
            items.append(item)
        cursor = page.get("nextCursor")
        if not cursor:
            return items


def _menu_items(nodes: list[dict]) -> int:
    return sum(1 + _menu_items(node.get("children") or []) for node in nodes)


def _counts(session: requests.Session, url: str, tag: str, started: datetime) -> dict:
    """What the import left, read through the REST API."""

    def older(item: dict) -> bool:
        return datetime.fromisoformat(item["createdAt"].replace("Z", "+00:00")) < started

    media = _all(session, f"{url}{API}/media", stop=older)
    names = Counter(item["filename"] for item in media)
    menus = [
        menu["name"]
        for menu in session.get(f"{url}{API}/menus").json()["data"]["items"]
        if menu["name"].startswith(f"{tag}-menu-")
    ]
    items = 0
    for name in menus:
        detail = session.get(f"{url}{API}/menus/{name}").json()["data"]
        items += _menu_items(detail["items"])
    return {
        "posts": _count(session, f"{url}{API}/content/stress_{tag}"),
        "pages": _count(session, f"{url}{API}/content/pages_{tag}"),
        "media": len(media),
        "media_filenames_twice": sorted(name for name, count in names.items() if count > 1),
        "media_filenames": len(names),
        "menus": len(menus),
        "menu_items": items,
    }


def scenario_kill_import_phases(kind, url, env, token, ids, seconds):
    verdict = _verdict("kill_import_phases", kind)
    tag = f"m{int(time.time())}"
    # The stress settings let the workers download from the local file server.
    env = _kill_env(env, LEASE_SECONDS, DJANGO_SETTINGS_MODULE="bench.stress_settings")
    work = Path(tempfile.mkdtemp(prefix="stress-phases-"))
    files = _Files(tag)
    threading.Thread(target=files.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    server = Server("cms_project.wsgi", env)
    session = _session(token)
    started = datetime.now(UTC).replace(microsecond=0)
    clock = time.monotonic()
    killer = None
    try:
        server.wait(f"{API}/health")
        job_id = _start_import(session, server.url, work, tag, files.base)
        killer = _Killer(session, server.url, job_id, env, work / "worker.log")
        final = killer.run(limit=1800)
        took = round(time.monotonic() - clock)
        counts = _counts(session, server.url, tag, started)
    finally:
        if killer is not None:
            killer.stop(signal.SIGTERM)
        server.stop()
        files.shutdown()
        files.server_close()
    fetched = files.fetches
    summary = final.get("summary") or {}
    verdict.facts = {
        "state": final["state"],
        "seconds": took,
        "export": {
            "posts": POSTS,
            "pages": PAGES,
            "categories": CATEGORIES,
            "menus": MENUS,
            "menu_items": MENU_ITEMS,
            "attachments": ATTACHMENTS,
        },
        "kills": sum(killer.kills.values()),
        "kills_per_phase": {phase: killer.kills[phase] for phase in WORK_PHASES},
        "kills_elsewhere": {p: n for p, n in killer.kills.items() if p not in WORK_PHASES},
        "at_kill": killer.at_kill,
        "lease_unrenewed_max_seconds": killer.unrenewed,
        "found": counts,
        "downloads": {
            "requests": sum(fetched.values()),
            "files": len(fetched),
            "fetched_more_than_once": sum(1 for count in fetched.values() if count > 1),
        },
        "summary_kinds": summary.get("kinds"),
        "summary_media": {key: summary.get("media", {}).get(key) for key in ("imported", "urlsRewritten")},
    }
    problems = verdict.problems
    if final["state"] != "completed":
        problems.append(f"the import ended {final['state']}: {final.get('error')}")
    expected = {
        "posts": POSTS,
        "pages": PAGES,
        "media": ATTACHMENTS,
        "menus": MENUS,
        "menu_items": MENU_ITEMS,
    }
    for name, count in expected.items():
        if counts[name] != count:
            problems.append(f"{counts[name]} {name} found, expected {count}")
    if counts["media_filenames_twice"]:
        problems.append(f"files imported as two media items: {counts['media_filenames_twice'][:10]}")
    if len(fetched) != ATTACHMENTS:
        problems.append(f"{len(fetched)} of {ATTACHMENTS} files were downloaded")
    again = sum(1 for count in fetched.values() if count > 1)
    if again > killer.kills["media"]:
        problems.append(
            f"{again} files downloaded more than once, for {killer.kills['media']} kills in the media phase"
        )
    for phase in WORK_PHASES:
        if not killer.kills[phase]:
            problems.append(f"no kill landed in the {phase} phase")
    for phase, still in killer.unrenewed.items():
        if still > LEASE_SECONDS:
            problems.append(
                f"the job's lease went unrenewed for {still} s in the {phase} phase (lease {LEASE_SECONDS} s)"
            )
    verdict.passed = not problems
    return verdict
