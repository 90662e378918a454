"""`make stress` scenarios of background work (issue 24), against a real gunicorn server and real worker processes.

- ``publish_during_import``: a 5,000-post import runs in a worker while entries come due one after another; each is
  published within ``PUBLISH_LAG_LIMIT`` seconds of its time, while the import is still running.
- ``kill_import_worker``: a 5,000-post import whose worker is killed with SIGKILL again and again, a new worker
  started each time; the import ends completed with every post imported exactly once, and the phases the kills hit
  are listed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import requests

from bench.run import ROOT, Server
from tests.importer.wxr_factory import write_wxr

POSTS = 5000
PUBLISH_LAG_LIMIT = 5.0
API = "/_cms/api"


def _verdict(name: str, kind: str):
    from bench.stress import Verdict

    return Verdict(name, kind, True)


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=env,
        stdout=log.open("a"),
        stderr=subprocess.STDOUT,
    )


def _start_import(session: requests.Session, url: str, work: Path, tag: str) -> str:
    export = write_wxr(work / f"stress-{tag}.xml", POSTS)
    # A site of its own per run: an import of the same site again updates its earlier posts instead of creating.
    text = export.read_text(encoding="utf-8")
    site = "<wp:base_blog_url>https://example.test</wp:base_blog_url>"
    export.write_text(
        text.replace(site, site.replace("example.test", f"{tag}.example.test"), 1), encoding="utf-8"
    )
    with export.open("rb") as handle:
        analyzed = session.post(
            f"{url}{API}/import/blogplatform/analyze", files={"file": (export.name, handle)}
        )
    analyzed.raise_for_status()
    data = analyzed.json()["data"]
    # Each run imports into a collection of its own, so runs on the same database do not meet.
    mappings = {"post": {"collection": f"stress_{tag}", "enabled": True}}
    executed = session.post(
        f"{url}{API}/import/blogplatform/execute",
        json={"analysisId": data["analysisId"], "postTypeMappings": mappings},
    )
    if executed.status_code != 202:
        raise RuntimeError(f"execute answered {executed.status_code}: {executed.text[:300]}")
    return executed.json()["data"]["id"]


def _job(session: requests.Session, url: str, job_id: str) -> dict:
    return session.get(f"{url}{API}/import/jobs/{job_id}").json()["data"]


def _until_progress(session: requests.Session, url: str, job_id: str, *, beyond: int) -> dict:
    """The job once its progress passed ``beyond`` by a few batches (or it ended), polled for up to two minutes."""
    deadline = time.monotonic() + 120
    while True:
        job = _job(session, url, job_id)
        if job["state"] in ("completed", "failed") or job["progress"]["current"] > beyond + 300:
            return job
        if time.monotonic() > deadline:
            raise RuntimeError(f"the import made no progress for two minutes: {job}")
        time.sleep(0.5)


def _count(session: requests.Session, url: str) -> int:
    """Entries of a collection, counted page by page (lists answer cursors, not totals)."""
    count, cursor = 0, None
    while True:
        page = session.get(url, params={"limit": 100, **({"cursor": cursor} if cursor else {})}).json()[
            "data"
        ]
        count += len(page["items"])
        cursor = page.get("nextCursor")
        if not cursor:
            return count


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def _env(env: dict[str, str], **more: str) -> dict[str, str]:
    return {**env, "CMS_REQUEST_LOG": "false", "CMS_LOG_LEVEL": "WARNING", **more}


def scenario_publish_during_import(kind, url, env, token, ids, seconds):
    verdict = _verdict("publish_during_import", kind)
    tag = f"p{int(time.time())}"
    env = _env(env, CMS_IMPORT_SYNC_MAX_BYTES="10")
    work = Path(tempfile.mkdtemp(prefix="stress-tasks-"))
    server = Server("cms_project.wsgi", env)
    worker = _worker(env, work / "worker.log")
    session = _session(token)
    lags, during = [], 0
    try:
        server.wait(f"{API}/health")
        collection = f"notices_{tag}"
        made = session.post(
            f"{server.url}{API}/schema/collections",
            json={"slug": collection, "label": "Notices", "supports": ["drafts", "revisions", "scheduling"]},
        )
        made.raise_for_status()
        session.post(
            f"{server.url}{API}/schema/collections/{collection}/fields",
            json={"slug": "title", "label": "Title", "type": "string"},
        ).raise_for_status()
        job_id = _start_import(session, server.url, work, tag)
        scheduled: list[tuple[str, datetime]] = []
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            job = _job(session, server.url, job_id)
            if job["state"] in ("completed", "failed", "paused"):
                break
            if job["state"] == "running" and len(scheduled) < 10:
                entry = session.post(
                    f"{server.url}{API}/content/{collection}",
                    json={"data": {"title": f"n{len(scheduled)}"}},
                ).json()["data"]["item"]
                when = (datetime.now().astimezone() + timedelta(seconds=2)).replace(microsecond=0)
                session.post(
                    f"{server.url}{API}/content/{collection}/{entry['id']}/schedule",
                    json={"scheduledAt": when.isoformat()},
                ).raise_for_status()
                scheduled.append((entry["id"], when))
            time.sleep(2)
        final = _job(session, server.url, job_id)
        if scheduled:
            # The last entries may come due after the import ended: give them their time and the limit.
            last = max(when for _, when in scheduled)
            time.sleep(max(0.0, (last - datetime.now().astimezone()).total_seconds() + PUBLISH_LAG_LIMIT + 1))
        finished = final.get("finishedAt") and datetime.fromisoformat(
            final["finishedAt"].replace("Z", "+00:00")
        )
        for entry_id, when in scheduled:
            revisions = session.get(f"{server.url}{API}/content/{collection}/{entry_id}/revisions").json()
            published = [
                each["createdAt"] for each in revisions["data"]["items"] if each.get("action") == "publish"
            ]
            if not published:
                verdict.problems.append(f"entry {entry_id} due {when.isoformat()} was never published")
                continue
            at = datetime.fromisoformat(published[0].replace("Z", "+00:00"))
            lags.append((at - when).total_seconds())
            during += bool(finished) and at < finished
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=120)
        except subprocess.TimeoutExpired:
            worker.kill()
        server.stop()
    verdict.facts = {
        "import": {"state": final["state"], "posts": POSTS},
        "scheduled": len(lags),
        "published_while_import_ran": during,
        "lag_seconds": {"max": round(max(lags), 2) if lags else None, "all": [round(lag, 2) for lag in lags]},
    }
    if final["state"] != "completed":
        verdict.problems.append(f"the import ended {final['state']}")
    if len(lags) < 3:
        verdict.problems.append(f"only {len(lags)} entries came due during the import: measured too little")
    if lags and max(lags) > PUBLISH_LAG_LIMIT:
        verdict.problems.append(
            f"an entry went live {max(lags):.1f} s after its time (limit {PUBLISH_LAG_LIMIT})"
        )
    verdict.passed = not verdict.problems
    return verdict


def _kill_env(env: dict[str, str], lease_seconds: int = 6, **more: str) -> dict[str, str]:
    """Short leases and heartbeats, so a killed worker's job is taken over within seconds, not minutes; every import
    queued (none run in the request) and sliced in small batches."""
    return _env(
        env,
        CMS_IMPORT_SYNC_MAX_BYTES="10",
        CMS_IMPORT_LEASE_SECONDS=str(lease_seconds),
        CMS_WORKER_DEAD_SECONDS=str(lease_seconds),
        CMS_WORKER_BEAT_SECONDS="1",
        CMS_IMPORT_BATCH_SIZE="50",
        **more,
    )


def scenario_kill_import_worker(kind, url, env, token, ids, seconds):
    verdict = _verdict("kill_import_worker", kind)
    tag = f"k{int(time.time())}"
    env = _kill_env(env)
    work = Path(tempfile.mkdtemp(prefix="stress-tasks-"))
    server = Server("cms_project.wsgi", env)
    session = _session(token)
    kills, phases = 0, []
    worker = None
    try:
        server.wait(f"{API}/health")
        job_id = _start_import(session, server.url, work, tag)
        deadline = time.monotonic() + 900
        progress = -1
        while time.monotonic() < deadline:
            worker = _worker(env, work / "worker.log")
            # Kill it once it has got on with the job (a takeover waits out the dead worker's lease first).
            job = _until_progress(session, server.url, job_id, beyond=progress)
            if job["state"] in ("completed", "failed"):
                break
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait()
            kills += 1
            phases.append(job["progress"]["phase"])
            progress = job["progress"]["current"]
        final = _job(session, server.url, job_id)
        total = _count(session, f"{server.url}{API}/content/stress_{tag}")
    finally:
        if worker is not None and worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=120)
        server.stop()
    imported = (final.get("summary") or {}).get("imported", {}).get(f"stress_{tag}", {})
    verdict.facts = {
        "kills": kills,
        "phases_at_kill": sorted(set(phases), key=phases.index),
        "state": final["state"],
        "created": imported.get("created"),
        "entries_listed": total,
    }
    if final["state"] != "completed":
        verdict.problems.append(f"the import ended {final['state']}: {final.get('error')}")
    if imported.get("created") != POSTS:
        verdict.problems.append(f"{imported.get('created')} posts created, expected {POSTS}")
    if total is not None and total != POSTS:
        verdict.problems.append(f"{total} entries listed, expected {POSTS}")
    if kills == 0:
        verdict.problems.append("the import finished before any kill: nothing was tested")
    verdict.passed = not verdict.problems
    return verdict
