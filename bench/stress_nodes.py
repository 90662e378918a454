"""`make stress` scenario ``two_nodes`` (issue 24): two app nodes and two workers on one database, as an operator runs
them on two machines (here two gunicorn servers and two ``manage.py worker`` processes, each with its own process
memory: nothing is shared but the database).

- A schema change made through one node is used at once through the other: a collection created on A takes an
  entry on B; a field added on one node is accepted in an entry written on the other, ten times over.
- 20 clients spread over both nodes PATCH one entry with the same ``_rev``, round after round: exactly one 200 per
  round, no lost update.
- 50 entries scheduled for one moment are published exactly once each by the two workers.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import requests

from bench.run import ROOT, Server

API = "/_cms/api"
SCHEDULED = 50


def _session(token: str) -> requests.Session:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def _schema_changes(nodes: list[str], session: requests.Session, tag: str, problems: list[str]) -> str:
    collection = f"nodes_{tag}"
    made = session.post(
        f"{nodes[0]}{API}/schema/collections",
        json={"slug": collection, "label": "Nodes", "supports": ["drafts", "revisions", "scheduling"]},
    )
    made.raise_for_status()
    field = session.post(
        f"{nodes[0]}{API}/schema/collections/{collection}/fields",
        json={"slug": "count", "label": "Count", "type": "integer"},
    )
    field.raise_for_status()
    first = session.post(f"{nodes[1]}{API}/content/{collection}", json={"data": {"count": 0}})
    if first.status_code != 201:
        problems.append(f"a collection made on A was refused on B: {first.status_code} {first.text[:200]}")
    for number in range(10):
        writer, reader = nodes[number % 2], nodes[(number + 1) % 2]
        session.post(
            f"{writer}{API}/schema/collections/{collection}/fields",
            json={"slug": f"extra{number}", "label": f"Extra {number}", "type": "string"},
        ).raise_for_status()
        answer = session.post(
            f"{reader}{API}/content/{collection}", json={"data": {"count": 1, f"extra{number}": "seen"}}
        )
        if answer.status_code != 201:
            problems.append(
                f"field extra{number} added on one node was refused on the other: {answer.status_code}"
            )
    return collection


def rev_race(
    nodes: list[str], token: str, collection_url: str, field: str, seconds: float, data: dict
) -> tuple[dict, list[str]]:
    """20 clients PATCH one new entry of ``collection_url`` (a path under each node) at once, all with the same
    ``_rev``, spread over ``nodes``, round after round: each round exactly one wins (200) and the others get 409, and
    every winner's write is kept (no lost update: the integer ``field`` ends equal to the rounds). The facts and the
    problems found."""
    session = _session(token)
    entry_id = session.post(f"{nodes[0]}{collection_url}", json={"data": {**data, field: 0}}).json()["data"][
        "item"
    ]["id"]
    clients, rounds, problems = 20, 0, []
    barrier = threading.Barrier(clients)
    statuses: Counter[str] = Counter()

    def attempt(index: int, rev: str, value: int) -> int:
        with _session(token) as own:
            barrier.wait()
            return own.patch(
                f"{nodes[index % len(nodes)]}{collection_url}/{entry_id}",
                json={"data": {field: value}, "_rev": rev},
                timeout=30,
            ).status_code

    deadline = time.monotonic() + seconds
    with ThreadPoolExecutor(clients) as pool:
        while time.monotonic() < deadline:
            current = session.get(f"{nodes[rounds % len(nodes)]}{collection_url}/{entry_id}").json()["data"]
            rounds += 1
            # Every client writes the next counter value; whichever wins, the counter must advance by one.
            rev, value = current["_rev"], current["item"]["data"][field] + 1
            codes = list(
                pool.map(lambda index, rev=rev, value=value: attempt(index, rev, value), range(clients))
            )
            statuses.update(str(code) for code in codes)
            if codes.count(200) != 1 or codes.count(409) != clients - 1:
                problems.append(f"round {rounds}: {sorted(Counter(codes).items())}")
    final = session.get(f"{nodes[-1]}{collection_url}/{entry_id}").json()["data"]["item"]["data"][field]
    if final != rounds:
        problems.append(f"lost update: {rounds} rounds won but the counter is {final}")
    return {
        "clients": clients,
        "rounds": rounds,
        "statuses": dict(statuses),
        "final_counter": final,
    }, problems


def _scheduled_once(
    nodes: list[str], session: requests.Session, collection: str, problems: list[str]
) -> dict:
    when = (datetime.now().astimezone() + timedelta(seconds=4)).replace(microsecond=0)
    ids = []
    for number in range(SCHEDULED):
        node = nodes[number % 2]
        entry = session.post(f"{node}{API}/content/{collection}", json={"data": {"count": number}}).json()
        entry_id = entry["data"]["item"]["id"]
        session.post(
            f"{nodes[(number + 1) % 2]}{API}/content/{collection}/{entry_id}/schedule",
            json={"scheduledAt": when.isoformat()},
        ).raise_for_status()
        ids.append(entry_id)
    deadline = time.monotonic() + 60
    publications: dict[str, int] = {}
    while time.monotonic() < deadline:
        publications = {
            entry_id: sum(
                1
                for revision in session.get(
                    f"{nodes[0]}{API}/content/{collection}/{entry_id}/revisions"
                ).json()["data"]["items"]
                if revision.get("action") == "publish"
            )
            for entry_id in ids
        }
        if all(publications.values()):
            break
        time.sleep(1)
    counts = Counter(publications.values())
    if set(counts) != {1}:
        problems.append(f"publish revisions per entry: {dict(counts)} (each must be published exactly once)")
    return {"entries": SCHEDULED, "publish_revisions_per_entry": dict(counts)}


def scenario_two_nodes(kind, url, env, token, ids, seconds):
    from bench.stress import Verdict

    verdict = Verdict("two_nodes", kind, True)
    env = {**env, "CMS_REQUEST_LOG": "false", "CMS_LOG_LEVEL": "WARNING"}
    tag = f"n{int(time.time())}"
    servers = [Server("cms_project.wsgi", env), Server("cms_project.wsgi", env)]
    workers = [
        subprocess.Popen(
            [sys.executable, "manage.py", "worker", "--queues", "publishing"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in servers
    ]
    problems: list[str] = []
    try:
        for server in servers:
            server.wait(f"{API}/health")
        nodes = [server.url for server in servers]
        session = _session(token)
        collection = _schema_changes(nodes, session, tag, problems)
        race, lost = rev_race(nodes, token, f"{API}/content/{collection}", "count", seconds, {})
        problems += lost
        scheduled = _scheduled_once(nodes, session, collection, problems)
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
        for server in servers:
            server.stop()
    verdict.facts = {"schema_changes_across_nodes": 11, "rev_race": race, "scheduled": scheduled}
    verdict.problems = problems[:8]
    verdict.passed = not problems
    return verdict
