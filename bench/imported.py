"""The imported-posts corpus in the benchmark database: real WordPress exports (bench/wxr_corpus.py) imported through
the real pipeline (``manage.py import_wxr``), as a site owner's migration would, beside the small seeded entries.

    python -m bench.imported --posts 10000 --out DIR      (DATABASE_URL names the benchmark database)

Writes DIR/posts_ids.txt: a pool of published imported posts that carry terms and a byline (the entries a front end
reads, and the ones that cost the most), each with its ``_rev``, in the format of the seeded pool (ids.txt). Makes
``posts`` public (issue 22), so the same posts are also read as a front end reads them: without a token.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A word in about 6% of the imported posts (the block test data's gallery posts and every post that mentions one):
# the mid-frequency search of the imported corpus.
SEARCH_WORD = "gallery"


def import_corpus(posts: int, out: Path, corpus_dir: Path, env: dict[str, str]) -> None:
    from bench.wxr_corpus import write_corpus

    files = sorted(corpus_dir.glob("*.xml"))
    if not files:
        files = write_corpus(corpus_dir, posts)
    for path in files:
        print(f"  importing {path.name} …", flush=True)
        subprocess.run(
            [sys.executable, "manage.py", "import_wxr", str(path), "--no-progress", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    subprocess.run(
        [sys.executable, "-m", "bench.imported", "--pool-only", "--out", str(out)],
        cwd=ROOT,
        env=env,
        check=True,
    )


def write_pool(out: Path, size: int = 5000) -> None:
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()
    from apps.accounts.permissions import Actor
    from apps.content.models import Entry
    from apps.schema import services as schema_services
    from apps.schema.selectors import collection_for_read
    from apps.taxonomy.models import EntryTerm

    posts = collection_for_read(slug="posts")
    if not posts.public:
        schema_services.collection_update(actor=Actor.system(), collection=posts, changes={"public": True})

    termed = EntryTerm.objects.values("entry_id")
    pool = (
        Entry.objects.filter(
            collection__slug="posts",
            status="published",
            deleted_at__isnull=True,
            primary_byline_id__isnull=False,
            pk__in=termed,
        )
        .order_by("pk")
        .only("id", "version")[:size]
    )
    (out / "posts_ids.txt").write_text("".join(f"{entry.pk} {entry.rev}\n" for entry in pool))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--corpus", type=Path, help="Where the generated exports are kept (default: OUT/corpus)."
    )
    parser.add_argument("--pool-only", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.pool_only:
        write_pool(args.out)
        return
    import os

    import_corpus(args.posts, args.out, args.corpus or args.out / "corpus", dict(os.environ))


if __name__ == "__main__":
    main()
