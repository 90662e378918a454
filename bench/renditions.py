"""Image renditions (issue 22): the first render of a 2,000 x 1,500 JPEG to an 800-pixel WebP (in process, median of
several, target < 150 ms), and stored renditions served under wrk as a ratio to the bare WSGI hello world of the same
run (target ≥ 0.5x), on SQLite and PostgreSQL.

Each database runs in a process of its own (Django is set up once per process): the parent starts one per database
and prints every figure. The servers are bench/run.py's (gunicorn with the project's configuration, sync workers);
each rendition measure is paired with a baseline measured just before it, as bench/run.py does.

    python -m bench.renditions [--db sqlite,postgres] [--rounds 3] [--duration 5] [--renders 7]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "var" / "bench-renditions"
PG_DEFAULT = "postgres://postgres@127.0.0.1:5432/cms_bench_renditions"


def photo(size=(2000, 1500)) -> bytes:
    """Something like a photograph (shapes over gradients, grain, slightly soft; about 430 KB as a JPEG at quality
    85): flat colour would make decoding and encoding unrealistically cheap, pure noise unrealistically dear."""
    from PIL import Image, ImageDraw, ImageFilter

    width, height = size
    gradient = Image.linear_gradient("L")
    base = Image.merge(
        "RGB", [gradient.resize(size), gradient.rotate(90).resize(size), Image.new("L", size, 120)]
    )
    draw = ImageDraw.Draw(base)
    for index in range(40):
        x, y = (index * 397) % width, (index * 211) % height
        colour = ((index * 53) % 256, (index * 97) % 256, (index * 31) % 256)
        draw.ellipse((x, y, x + 80 + index * 7, y + 60 + index * 5), fill=colour)
    grain = Image.effect_noise(size, 18).convert("RGB")
    picture = Image.blend(base, grain, 0.4).filter(ImageFilter.GaussianBlur(0.6))
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue()


def database_url(kind: str) -> str:
    if kind == "sqlite":
        return f"sqlite:///{WORK / 'sqlite' / 'bench.sqlite3'}"
    return os.environ.get("BENCH_DATABASE_URL", PG_DEFAULT)


def environment(kind: str) -> dict[str, str]:
    folder = WORK / kind
    return {
        **os.environ,
        "DATABASE_URL": database_url(kind),
        "CMS_VAR_DIR": str(folder),
        "MEDIA_ROOT": str(folder / "media"),
        "SECRET_KEY": "bench-only-not-secret",
        "CMS_RATE_LIMIT_API": "100000000/m",
        "CMS_REQUEST_LOG": "false",
        "PYTHONPATH": str(ROOT),
    }


def fresh_database(kind: str) -> None:
    if kind == "sqlite":
        for suffix in ("", "-wal", "-shm"):
            Path(str(WORK / "sqlite" / "bench.sqlite3") + suffix).unlink(missing_ok=True)
        return
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    parts = urlsplit(database_url(kind))
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def measure_renders(runs: int) -> dict:
    """In this process (Django set up by the caller): the pure render, and the first request of a rendition through
    the whole stack (render, store, answer), each the median of ``runs``."""
    import shutil

    from django.conf import settings
    from django.core.files.base import ContentFile
    from django.test import Client

    from apps.accounts.permissions import Actor
    from apps.media import renditions, services

    data = photo()
    item, _ = services.media_upload(actor=Actor.system(), file=ContentFile(data), filename="bench-photo.jpg")
    params = renditions.Params(w=800, format="webp")
    renditions.render(io.BytesIO(data), "image/jpeg", params, None)  # codecs loaded, not measured
    pure, cpu = [], []
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        out = renditions.render(io.BytesIO(data), "image/jpeg", params, None)
        pure.append((time.perf_counter() - started) * 1000)
        # CPU time too: on a shared machine the wall clock also counts the time spent waiting for a core.
        cpu.append((time.process_time() - used) * 1000)
    url = renditions.rendition_url(item, params).split(settings.CMS_BASE_URL, 1)[1]
    client = Client(HTTP_HOST="localhost")
    first = []
    for _ in range(runs):
        shutil.rmtree(Path(settings.MEDIA_ROOT) / renditions.RENDITIONS_DIR, ignore_errors=True)
        started = time.perf_counter()
        response = client.get(url)
        first.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.content[:200]
    cached = []
    for _ in range(runs):
        started = time.perf_counter()
        client.get(url)
        cached.append((time.perf_counter() - started) * 1000)
    return {
        "source_bytes": len(data),
        "webp_bytes": len(out),
        "render_ms": statistics.median(pure),
        "render_ms_all": [round(value, 1) for value in pure],
        "render_cpu_ms": statistics.median(cpu),
        "first_request_ms": statistics.median(first),
        "django_cached_request_ms": statistics.median(cached),
        "media_id": item.pk,
        "url": url,
        "presets": {
            name: renditions.preset_url(item, name).split(settings.CMS_BASE_URL, 1)[1]
            for name in settings.CMS_RENDITION_PRESETS
        },
    }


def child(kind: str, runs: int) -> None:
    """Runs inside the per-database process: migrate, make the photo, measure renders; JSON on stdout's last line."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    print(json.dumps(measure_renders(runs)), flush=True)


def serve(kind: str, info: dict, rounds: int, duration: float) -> dict:
    from bench.run import RESULTS, Server, wrk

    RESULTS.mkdir(parents=True, exist_ok=True)
    env = environment(kind)
    baseline = Server("bench.hello_wsgi:app", env)
    cms = Server("cms_project.wsgi", {**env, "GUNICORN_WORKER_CLASS": "sync"})
    paths = {
        "thumbnail (200x200 WebP)": info["presets"]["thumbnail"],
        "small (480 px WebP)": info["presets"]["small"],
    }
    ratios: dict[str, list[float]] = {name: [] for name in paths}
    rps: dict[str, list[float]] = {name: [] for name in paths}
    sizes: dict[str, int] = {}
    baselines = []
    try:
        baseline.wait("/")
        cms.wait("/_cms/api/health")
        import requests

        for name, path in paths.items():
            # The first request renders and stores; everything measured after is served from storage.
            sizes[name] = len(requests.get(cms.url + path, timeout=30).content)
            wrk(cms.url + path, connections=8, duration=1, token=None, script=None, args=[])
        for _ in range(rounds):
            for name, path in paths.items():
                reference = wrk(
                    baseline.url + "/", connections=8, duration=duration, token=None, script=None, args=[]
                )
                measured = wrk(
                    cms.url + path, connections=8, duration=duration, token=None, script=None, args=[]
                )
                if measured.errors:
                    raise RuntimeError(f"{name}: {measured.errors} errors")
                baselines.append(reference.rps)
                ratios[name].append(measured.rps / reference.rps)
                rps[name].append(measured.rps)
                print(
                    f"[{kind}] {name}: {measured.rps:.0f} req/s, baseline {reference.rps:.0f} "
                    f"→ {measured.rps / reference.rps:.3f}x",
                    flush=True,
                )
    finally:
        cms.stop()
        baseline.stop()
    return {
        "baseline_rps": statistics.median(baselines),
        "served": {
            name: {
                "ratio": statistics.median(ratios[name]),
                "ratio_min": min(ratios[name]),
                "ratio_max": max(ratios[name]),
                "rps": statistics.median(rps[name]),
                "bytes": sizes[name],
            }
            for name in paths
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", default="sqlite,postgres")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--renders", type=int, default=7)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.renders)
        return
    report = {}
    for kind in args.db.split(","):
        (WORK / kind / "media").mkdir(parents=True, exist_ok=True)
        import shutil

        shutil.rmtree(WORK / kind / "media", ignore_errors=True)
        fresh_database(kind)
        completed = subprocess.run(
            [sys.executable, "-m", "bench.renditions", "--child", kind, "--renders", str(args.renders)],
            cwd=ROOT,
            env=environment(kind),
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0:
            raise SystemExit(f"[{kind}] the render measure failed:\n{completed.stderr[-3000:]}")
        info = json.loads(completed.stdout.strip().splitlines()[-1])
        print(
            f"[{kind}] render 2000x1500 JPEG → 800 px WebP: {info['render_ms']:.1f} ms median "
            f"({info['render_ms_all']}), CPU {info['render_cpu_ms']:.1f} ms; first request {info['first_request_ms']:.1f} ms; "
            f"stored, through Django in process {info['django_cached_request_ms']:.2f} ms",
            flush=True,
        )
        report[kind] = {**info, **serve(kind, info, args.rounds, args.duration)}
    out = ROOT / "bench" / "results" / f"renditions-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    for kind, figures in report.items():
        print(
            f"\n{kind}: baseline {figures['baseline_rps']:.0f} req/s; render {figures['render_ms']:.1f} ms "
            f"(CPU {figures['render_cpu_ms']:.1f} ms)"
        )
        for name, served in figures["served"].items():
            print(
                f"  {name}: {served['ratio']:.3f}x ({served['ratio_min']:.3f}-{served['ratio_max']:.3f}), "
                f"{served['rps']:.0f} req/s, {served['bytes']} bytes"
            )
    print(f"\nwritten: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
