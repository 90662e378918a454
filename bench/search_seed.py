"""Seed the search benchmark: N entries of generated text (bench/corpus.py) in a searchable ``articles`` collection,
a ``plain`` twin without search (for write throughput with and without indexing), tokens, and the query sets.

Entries are written with bulk inserts, without indexing; the benchmark then builds the index with ``manage.py
reindex``, which is one of the things it measures. 90% of the entries are published. The query sets pick words by
their expected share of documents under the corpus's Zipf distribution (computed, not sampled), so every machine and
every run asks the same questions.

    python -m bench.search_seed --entries 100000 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

from bench.corpus import Corpus
from bench.seed import copy_entries

COLLECTION = "articles"
PLAIN = "plain"
PUBLISHED_SHARE = 0.9
# Expected share of documents containing the word, per category (bounds inclusive).
BANDS = {
    "rare": (0.0005, 0.0015),
    "mid": (0.01, 0.05),
    "frequent": (0.2, 0.35),
    "universal": (0.97, 1.0),
}
PER_CATEGORY = 8
# Words the PostgreSQL English configuration drops as stop words, or that stem into others; the pseudo-word generator
# can produce a few real words.
AVOID = {
    "that",
    "this",
    "then",
    "than",
    "them",
    "were",
    "with",
    "will",
    "from",
    "have",
    "here",
    "there",
    "some",
}


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()


def blocks(body: str) -> list[dict]:
    return [
        {
            "_type": "block",
            "_key": f"p{n}",
            "style": "normal",
            "markDefs": [],
            "children": [{"_type": "span", "_key": "s", "text": paragraph, "marks": []}],
        }
        for n, paragraph in enumerate(body.split("\n\n"))
    ]


def expected_share(corpus: Corpus) -> list[float]:
    """For each word rank, the expected share of documents containing it (title and body)."""
    total = corpus.cumulative[-1]
    previous = 0.0
    shares = []
    lengths = range(200 + 3, 800 + 8 + 1, 25)
    for cumulative in corpus.cumulative:
        p = (cumulative - previous) / total
        previous = cumulative
        shares.append(1 - sum((1 - p) ** length for length in lengths) / len(lengths))
    return shares


def query_sets(corpus: Corpus) -> dict:
    shares = expected_share(corpus)
    words: dict[str, list[tuple[str, float]]] = {name: [] for name in BANDS}
    for word, share in zip(corpus.words, shares, strict=True):
        if len(word) < 5 or word in AVOID:
            continue
        for name, (low, high) in BANDS.items():
            if low <= share <= high:
                words[name].append((word, share))
    # Evenly spread over each band, so a category is not just its most frequent words.
    chosen = {
        name: [found[int(i * len(found) / PER_CATEGORY)] for i in range(min(PER_CATEGORY, len(found)))]
        for name, found in words.items()
    }
    singles = {name: [word for word, _ in found] for name, found in chosen.items()}
    share = {name: sum(s for _, s in found) / len(found) for name, found in chosen.items()}
    mid, frequent, universal = singles["mid"], singles["frequent"], singles["universal"]
    n = PER_CATEGORY
    queries = {
        "rare": singles["rare"],
        "mid": mid,
        "frequent": frequent,
        "universal": universal,
        "and_mid": [f"{mid[i]} {mid[(i + 1) % n]}" for i in range(n)],
        "and_broad": [f"{frequent[i]} {universal[i % len(universal)]}" for i in range(n)],
        "phrase_common": [f'"{universal[i]} {universal[(i + 1) % len(universal)]}"' for i in range(n)],
        "phrase_rare": [f'"{frequent[i]} {frequent[(i + 1) % n]}"' for i in range(n)],
    }
    suggest = {
        "suggest_short": sorted({word[:2] for word in frequent + universal})[:n],
        "suggest_word": [word[:5] for word in mid],
    }
    return {"queries": queries, "suggest": suggest, "share": share}


def seed(entries: int, out: Path) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction

    from apps.accounts import services as accounts
    from apps.accounts.models import Role, User
    from apps.accounts.permissions import Actor
    from apps.content.models import Entry
    from apps.schema import services as schema
    from apps.schema.models import Collection

    call_command("migrate", verbosity=0)
    admin, _ = accounts.admin_setup(email="bench@localhost", name="Bench")
    _, token = accounts.api_token_create(actor=Actor.system(), user=admin, name="bench", scopes=["admin"])
    (out / "token").write_text(token)
    reader = User.objects.create_user(email="reader@localhost", name="Reader", role=Role.SUBSCRIBER)
    _, reader_token = accounts.api_token_create(
        actor=Actor.system(), user=reader, name="reader", scopes=["content:read"]
    )
    (out / "reader-token").write_text(reader_token)

    actor = Actor.system()
    Collection.objects.filter(slug__in=[COLLECTION, PLAIN]).delete()
    collections = {}
    for slug, supports in ((COLLECTION, ["drafts", "revisions", "search"]), (PLAIN, ["drafts", "revisions"])):
        collection = schema.collection_create(actor=actor, slug=slug, label=slug.title(), supports=supports)
        schema.field_create(
            actor=actor,
            collection=collection,
            definition={"slug": "title", "label": "Title", "type": "string"},
        )
        schema.field_create(
            actor=actor,
            collection=collection,
            definition={"slug": "body", "label": "Body", "type": "portableText", "searchable": True},
        )
        collections[slug] = collection

    # PostgreSQL takes the rows through COPY, as bench/seed.py does (a million documents for issue 24's scale).
    write = copy_entries if connection.vendor == "postgresql" else Entry.objects.bulk_create
    corpus = Corpus()
    rng = random.Random(20261122)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    batch: list[Entry] = []
    with transaction.atomic():
        for number in range(entries):
            title, body = corpus.document(number)
            data = {"title": title, "body": blocks(body)}
            published = rng.random() < PUBLISHED_SHARE
            created = start + timedelta(seconds=number * 17)
            entry = Entry(
                collection=collections[COLLECTION],
                slug=f"entry-{number}",
                locale="en",
                status="published" if published else "draft",
                data=data,
                live_data=data if published else None,
                author=admin,
                created_at=created,
                updated_at=created,
                published_at=created if published else None,
            )
            entry.translation_group = entry.id
            batch.append(entry)
            if len(batch) == 2000:
                write(batch)
                batch = []
        if batch:
            write(batch)

    sets = query_sets(corpus)
    (out / "queries.json").write_text(json.dumps(sets, indent=2))
    write_paths(out, sets)
    # Bodies for the write benchmark: documents beyond the seeded ones, a counter in the title for distinct slugs.
    with (out / "create-bodies.txt").open("w") as handle:
        for number in range(entries, entries + 500):
            title, body = corpus.document(number)
            payload = {"data": {"title": f"{title} __N__", "body": blocks(body)}, "status": "published"}
            handle.write(json.dumps(payload) + "\n")


def write_paths(out: Path, sets: dict) -> None:
    """One file of request paths per scenario, for bench/lua/paths.lua."""
    paths = out / "paths"
    paths.mkdir(exist_ok=True)
    for name, queries in sets["queries"].items():
        (paths / f"{name}.txt").write_text(
            "".join(f"/_cms/api/search?{urlencode({'q': q})}\n" for q in queries)
        )
    for name, prefixes in sets["suggest"].items():
        (paths / f"{name}.txt").write_text(
            "".join(f"/_cms/api/search/suggest?{urlencode({'q': p})}\n" for p in prefixes)
        )
    mixed = [
        q
        for name in ("rare", "mid", "frequent", "universal", "and_mid", "phrase_rare")
        for q in sets["queries"][name]
    ]
    (paths / "mixed.txt").write_text("".join(f"/_cms/api/search?{urlencode({'q': q})}\n" for q in mixed))


def cleanup() -> None:
    """Delete what an earlier write benchmark created (entries other than the seeded ``entry-N``), with their
    documents, so every run measures the same corpus."""
    from django.db import transaction

    from apps.content.models import Entry
    from apps.search.backends import get_search_backend

    created = Entry.objects.filter(collection__slug__in=[COLLECTION, PLAIN]).exclude(
        collection__slug=COLLECTION, slug__startswith="entry-"
    )
    ids = list(created.values_list("pk", flat=True))
    with transaction.atomic():
        get_search_backend().delete_documents(entry_ids=ids)
        for start in range(0, len(ids), 1000):
            Entry.objects.filter(pk__in=ids[start : start + 1000]).delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--cleanup", action="store_true", help="Only delete entries a write benchmark created."
    )
    args = parser.parse_args()
    setup_django()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cleanup:
        cleanup()
    else:
        seed(args.entries, args.out)


if __name__ == "__main__":
    main()
