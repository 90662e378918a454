"""`make stress` scenarios for scaling the database tier (issue 24), registered in bench/stress.py; PostgreSQL only.

- ``replica``: a real streaming replica. A second PostgreSQL cluster is made from the primary with
  ``pg_basebackup -R`` on a free port (the primary gets a replication line in its pg_hba.conf for the run if it has
  none), the server runs with ``DATABASE_REPLICA_URL`` pointing at it, and: every write succeeds, the writer's read
  right after its write sees it (it is pinned to the primary), another client sees it once replicated, anonymous
  public reads are answered, the replica served reads (its ``pg_stat_database.xact_commit`` grew), and once the
  replica crashes reads are answered from the primary and writes go on. Afterwards
  the cluster is stopped and removed and pg_hba.conf restored.
- ``pgbouncer``: PgBouncer in transaction pooling mode in front of the primary, the server connected through it with
  ``CMS_PGBOUNCER=1``, under the mixed load (reads, ``_rev`` updates, creates, search): no 5xx and no connection
  error, and PgBouncer counted the transactions.

Both need to run PostgreSQL's programs as its owner: as root they run through ``runuser -u postgres``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import requests

SERVER_USER = "postgres"
HBA_LINE = "host replication all 127.0.0.1/32 trust  # added by make stress (replica); removed after the run"
# What a hot standby needs at least as large as its primary's, or it refuses to start.
STANDBY_MINIMUMS = (
    "max_connections",
    "max_worker_processes",
    "max_locks_per_transaction",
    "max_prepared_transactions",
)


def _as_owner(command: list[str], **options) -> subprocess.CompletedProcess:
    prefix = ["runuser", "-u", SERVER_USER, "--"] if os.geteuid() == 0 else []
    return subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=300, **options)


def _bindir(primary: psycopg.Connection) -> Path:
    """Where pg_ctl of the primary's major version lives (Debian's layout), else whatever is on PATH."""
    major = primary.execute("SHOW server_version_num").fetchone()[0][:2]
    debian = Path("/usr/lib/postgresql") / major / "bin"
    if (debian / "pg_ctl").exists():
        return debian
    found = shutil.which("pg_ctl")
    if found is None:
        raise RuntimeError("pg_ctl not found: the replica scenario needs PostgreSQL's server programs")
    return Path(found).parent


def _owned_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        import pwd

        owner = pwd.getpwnam(SERVER_USER)
        os.chown(path, owner.pw_uid, owner.pw_gid)
    path.chmod(0o700)
    return path


def _with_port(url: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}@{parts.hostname}:{port}" if parts.username else f"{parts.hostname}:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def _admin(url: str) -> psycopg.Connection:
    return psycopg.connect(urlunsplit(urlsplit(url)._replace(path="/postgres")), autocommit=True)


@contextmanager
def _replication_allowed(primary: psycopg.Connection):
    """A replication line for 127.0.0.1 in the primary's pg_hba.conf for the block, unless one is there."""
    allowed = primary.execute(
        "SELECT count(*) FROM pg_hba_file_rules WHERE type = 'host' AND 'replication' = ANY(database)"
        " AND error IS NULL"
    ).fetchone()[0]
    if allowed:
        yield
        return
    hba = Path(primary.execute("SHOW hba_file").fetchone()[0])
    original = hba.read_text()
    hba.write_text(original.rstrip("\n") + "\n" + HBA_LINE + "\n")
    primary.execute("SELECT pg_reload_conf()")
    try:
        yield
    finally:
        hba.write_text(original)
        primary.execute("SELECT pg_reload_conf()")


@contextmanager
def streaming_replica(url: str):
    """A hot standby of the primary at ``url``, streaming from it; yields the replica's URL for the same database and
    a function that stops it (a crash: ``-m immediate``)."""
    from bench.run import free_port

    port = free_port()
    with _admin(url) as primary, _replication_allowed(primary):
        bindir = _bindir(primary)
        minimums = {name: primary.execute(f"SHOW {name}").fetchone()[0] for name in STANDBY_MINIMUMS}
        parts = urlsplit(url)
        home = _owned_dir("cms-stress-replica-")
        data = home / "data"
        try:
            made = _as_owner(
                [str(bindir / "pg_basebackup"), "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
                 "-U", parts.username or SERVER_USER, "-D", str(data), "-R", "-X", "stream", "-c", "fast"]
            )  # fmt: skip
            if made.returncode != 0:
                raise RuntimeError(f"pg_basebackup failed: {made.stderr.strip()}")
            # Debian keeps the configuration outside the data directory: the copy gets its own.
            settings = {
                "port": str(port),
                "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": f"'{home}'",
                "hba_file": f"'{data / 'pg_hba.conf'}'",
                "ident_file": f"'{data / 'pg_ident.conf'}'",
                "hot_standby": "on",
                "shared_buffers": "'64MB'",
                **minimums,
            }
            _as_owner(["tee", str(data / "postgresql.conf")],
                      input="".join(f"{key} = {value}\n" for key, value in settings.items()))  # fmt: skip
            _as_owner(["tee", str(data / "pg_hba.conf")],
                      input="local all all trust\nhost all all 127.0.0.1/32 trust\n")  # fmt: skip
            _as_owner(["touch", str(data / "pg_ident.conf")])
            started = _as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(home / "log"), "-w", "-t", "60",
                                 "start"])  # fmt: skip
            if started.returncode != 0:
                log = _as_owner(["cat", str(home / "log")]).stdout
                raise RuntimeError(f"the replica did not start: {started.stderr.strip()} {log[-800:]}")
            replica_url = _with_port(url, port)
            with psycopg.connect(replica_url, autocommit=True) as replica:
                if not replica.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                    raise RuntimeError("the copy is not a standby")

            def stop() -> None:
                _as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])

            yield replica_url, stop
        finally:
            _as_owner([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
            _as_owner(["rm", "-rf", str(home)])


def _commits(url: str) -> int:
    name = urlsplit(url).path.lstrip("/")
    with _admin(url) as conn:
        row = conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [name]).fetchone()
    return int(row[0]) if row else 0


def _lag_seconds(replica_url: str) -> float | None:
    with psycopg.connect(replica_url, autocommit=True) as conn:
        lag = conn.execute("SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp())").fetchone()[0]
    return None if lag is None else round(float(lag), 3)


def _shared_cache(env: dict[str, str]) -> dict[str, str]:
    """Redis for the pins when one answers here: with several gunicorn workers a per-process cache pins a client
    only in the worker that took its write (docs/operations.md)."""
    url = env.get("REDIS_URL") or "redis://127.0.0.1:6379/9"
    with suppress(Exception):
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=0.2).ping()
        return {"REDIS_URL": url, "CMS_CACHE_PREFIX": "cms-stress-replica"}
    return {}


def scenario_replica(kind, url, env, token, ids, seconds):
    from bench.stress import COLLECTION, Load, Server, Verdict

    verdict = Verdict("replica", kind, True)
    problems: list[str] = []
    facts: dict = {}
    with streaming_replica(url) as (replica_url, crash_replica):
        cache = _shared_cache(env)
        facts["pin_store"] = "redis" if cache else "per-process cache"
        # A bounded connect: an unreachable replica costs each worker that long once per CMS_REPLICA_RETRY_SECONDS.
        server_env = {**env, **cache, "DATABASE_REPLICA_URL": replica_url + "?connect_timeout=2"}
        server = Server("cms_project.wsgi", server_env)
        try:
            server.wait("/_cms/api/health")
            admin = {"Authorization": f"Bearer {token}"}
            api = f"{server.url}/_cms/api"
            collection = COLLECTION.rsplit("/", 1)[1]
            made = requests.patch(f"{api}/schema/collections/{collection}", json={"public": True}, headers=admin,
                                  timeout=30)  # fmt: skip
            if made.status_code != 200:
                problems.append(
                    f"making the collection public answered {made.status_code}: {made.text[:200]}"
                )
            tokens = []
            for name in ("replica writer", "replica reader"):
                created = requests.post(f"{api}/admin/api-tokens", headers=admin, timeout=30,
                                        json={"name": name, "scopes": ["content:read", "content:write"]})  # fmt: skip
                tokens.append(created.json()["data"]["token"])
            writer = requests.Session()
            writer.headers["Authorization"] = f"Bearer {tokens[0]}"
            reader = requests.Session()
            reader.headers["Authorization"] = f"Bearer {tokens[1]}"
            anonymous = requests.Session()
            before = _commits(replica_url)
            writes = own_stale = seen_later = 0
            rounds = max(20, int(seconds * 2))
            for number in range(rounds):
                title = f"replica round {number}"
                created = writer.post(f"{server.url}{COLLECTION}", json={"data": {"title": title, "price": 1},
                                      "status": "published"}, timeout=30)  # fmt: skip
                if created.status_code != 201:
                    problems.append(f"create answered {created.status_code}: {created.text[:200]}")
                    continue
                writes += 1
                entry_id = created.json()["data"]["item"]["id"]
                changed = writer.patch(f"{server.url}{COLLECTION}/{entry_id}",
                                       json={"data": {"title": title + " changed"}}, timeout=30)  # fmt: skip
                if changed.status_code != 200:
                    problems.append(f"update answered {changed.status_code}: {changed.text[:200]}")
                    continue
                writes += 1
                own = writer.get(f"{server.url}{COLLECTION}/{entry_id}", timeout=30)
                if (
                    own.status_code != 200
                    or own.json()["data"]["item"]["data"]["title"] != title + " changed"
                ):
                    own_stale += 1
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    other = reader.get(f"{server.url}{COLLECTION}/{entry_id}", timeout=30)
                    public = anonymous.get(f"{server.url}{COLLECTION}/{entry_id}", timeout=30)
                    if other.status_code == 200 and public.status_code == 200:
                        seen_later += 1
                        break
                    time.sleep(0.01)
            facts["replica_lag_s_after_writes"] = _lag_seconds(replica_url)
            # Readers under load, with a token that writes nothing, so they are never pinned to the primary.
            load = Load(server.url, tokens[1], ids, clients=8, mix={"get": 6, "list": 2, "search": 1})
            load.run(seconds)
            reads_on_replica = _commits(replica_url) - before
            # The replica crashes: reads fall back to the primary (each worker finds its connection dead and the
            # replica refusing, then skips it), writes go on.
            crash_replica()
            outage: dict[str, int] = {}
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                for name, session in (("token", reader), ("anonymous", anonymous)):
                    status = session.get(f"{server.url}{COLLECTION}/{ids[0]}", timeout=30).status_code
                    outage[f"{name}-get-{status}"] = outage.get(f"{name}-get-{status}", 0) + 1
            created = writer.post(f"{server.url}{COLLECTION}", json={"data": {"title": "during outage", "price": 1}},
                                  timeout=30)  # fmt: skip
            outage[f"create-{created.status_code}"] = 1
        finally:
            server.stop()
    facts.update(
        rounds=rounds,
        writes_ok=writes,
        own_reads_stale=own_stale,
        others_saw_within_5s=seen_later,
        replica_transactions=reads_on_replica,
        load_outcomes=dict(load.outcomes),
        replica_down=outage,
    )
    verdict.facts = facts
    if own_stale:
        problems.append(f"{own_stale} of the writer's reads right after its write did not show it")
    if seen_later != rounds:
        problems.append(f"only {seen_later} of {rounds} writes were seen by another client within 5 s")
    if reads_on_replica < rounds:
        problems.append(f"the replica ran {reads_on_replica} transactions: reads did not reach it")
    if load.server_errors:
        problems.append(f"{len(load.server_errors)} answers were 5xx, first: {load.server_errors[0]}")
    failed = {outcome: count for outcome, count in outage.items() if not outcome.endswith(("-200", "-201"))}
    if failed:
        problems.append(f"with the replica down: {failed}")
    verdict.problems = problems[:8]
    verdict.passed = not verdict.problems
    return verdict


PGBOUNCER_INI = """[databases]
{name} = host={host} port={port} dbname={name}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen}
unix_socket_dir =
auth_type = trust
auth_file = {home}/users.txt
admin_users = {user}
pool_mode = transaction
max_client_conn = 200
default_pool_size = 8
logfile = {home}/pgbouncer.log
pidfile = {home}/pgbouncer.pid
"""


@contextmanager
def pgbouncer(url: str):
    """PgBouncer in transaction mode in front of ``url``'s server; yields the URL of the same database through it."""
    from bench.run import free_port

    binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    if not Path(binary).exists():
        raise RuntimeError("pgbouncer is not installed (apt-get install pgbouncer)")
    parts = urlsplit(url)
    listen = free_port()
    home = _owned_dir("cms-stress-pgbouncer-")
    user = parts.username or SERVER_USER
    ini = PGBOUNCER_INI.format(name=parts.path.lstrip("/"), host=parts.hostname, port=parts.port or 5432,
                               listen=listen, home=home, user=user)  # fmt: skip
    _as_owner(["tee", str(home / "pgbouncer.ini")], input=ini)
    _as_owner(["tee", str(home / "users.txt")], input=f'"{user}" ""\n')
    started = _as_owner([binary, "-d", str(home / "pgbouncer.ini")])
    if started.returncode != 0:
        raise RuntimeError(f"pgbouncer did not start: {started.stderr.strip()}")
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with psycopg.connect(
                    _with_port(url, listen), autocommit=True, prepare_threshold=None
                ) as conn:
                    conn.execute("SELECT 1")
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield _with_port(url, listen)
    finally:
        pid = _as_owner(["cat", str(home / "pgbouncer.pid")]).stdout.strip()
        if pid:
            with suppress(ProcessLookupError):
                os.kill(int(pid), 15)
            time.sleep(0.5)
        _as_owner(["rm", "-rf", str(home)])


def _bouncer_transactions(bouncer_url: str, name: str) -> int | None:
    """PgBouncer's count of transactions it pooled for the database (its console speaks only the simple protocol)."""
    parts = urlsplit(bouncer_url)
    shown = subprocess.run(
        ["psql", "-h", parts.hostname or "127.0.0.1", "-p", str(parts.port), "-U", parts.username or SERVER_USER,
         "-A", "-F", "|", "-c", "SHOW STATS", "pgbouncer"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    rows = [line.split("|") for line in shown.stdout.splitlines() if "|" in line]
    if not rows or "total_xact_count" not in rows[0]:
        return None
    column = rows[0].index("total_xact_count")
    for fields in rows[1:]:
        if fields[0] == name:
            return int(fields[column])
    return None


def scenario_pgbouncer(kind, url, env, token, ids, seconds):
    from bench.stress import Load, Server, Verdict

    verdict = Verdict("pgbouncer", kind, True)
    name = urlsplit(url).path.lstrip("/")
    with pgbouncer(url) as bouncer_url:
        server = Server("cms_project.wsgi", {**env, "DATABASE_URL": bouncer_url, "CMS_PGBOUNCER": "1"})
        try:
            server.wait("/_cms/api/health")
            load = Load(server.url, token, ids, clients=12, mix={"get": 5, "list": 2, "update": 1, "create": 1,
                                                                  "search": 1})  # fmt: skip
            load.run(seconds)
        finally:
            server.stop()
        pooled = _bouncer_transactions(bouncer_url, name)
    answered = sum(count for outcome, count in load.outcomes.items() if outcome.endswith(("-200", "-201")))
    expected = {"409"}  # a _rev conflict between two updaters is the API working
    unexpected = {
        outcome: count
        for outcome, count in load.outcomes.items()
        if not outcome.endswith(("-200", "-201")) and outcome.rsplit("-", 1)[-1] not in expected
    }
    verdict.facts = {
        "outcomes": dict(load.outcomes),
        "answered_2xx": answered,
        "pgbouncer_transactions": pooled,
    }
    if unexpected:
        verdict.problems.append(f"unexpected outcomes: {unexpected}")
    if load.server_errors:
        verdict.problems.append(f"first 5xx: {load.server_errors[0]}")
    if not answered:
        verdict.problems.append("no request succeeded: the scenario measured nothing")
    if not pooled:
        verdict.problems.append("PgBouncer counted no transaction: the server did not go through it")
    verdict.passed = not verdict.problems
    return verdict


SCENARIOS = {"replica": scenario_replica, "pgbouncer": scenario_pgbouncer}
