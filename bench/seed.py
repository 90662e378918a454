"""Seed a benchmark database: the `bench` collection with N entries, an admin token, and a pool of ids with _revs.

Entries are written with bulk inserts rather than one service call each (100,000 service calls would take minutes and
measure nothing we report); the collection and fields are created through the services, so the generated indexes are
the real ones, and the search index is then built by ``manage.py reindex`` as an operator would. One image is
uploaded through the media service for the download scenario. The data is deterministic (fixed random seed).

    python -m bench.seed --entries 100000 --out DIR
"""

from __future__ import annotations

import argparse
import os
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "river",
    "stone",
    "light",
    "garden",
    "window",
    "market",
    "travel",
    "coffee",
    "winter",
    "summer",
    "music",
    "paper",
    "city",
    "north",
    "south",
    "quiet",
    "bright",
    "shadow",
    "forest",
    "ocean",
    "engine",
    "signal",
    "story",
    "letter",
    "morning",
    "evening",
    "harbor",
    "bridge",
    "field",
]


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cms_project.settings")
    import django

    django.setup()


def seed(entries: int, out: Path, pool: int = 5000) -> None:
    from django.core.management import call_command
    from django.db import connection, transaction

    from apps.accounts import services as accounts
    from apps.accounts.permissions import Actor
    from apps.content.models import Entry
    from apps.schema import services as schema
    from apps.schema.models import Collection

    call_command("migrate", verbosity=0)
    admin, _ = accounts.admin_setup(email="bench@localhost", name="Bench")
    _, token = accounts.api_token_create(actor=Actor.system(), user=admin, name="bench", scopes=["admin"])
    (out / "token").write_text(token)

    actor = Actor.system()
    Collection.objects.filter(slug="bench").delete()
    collection = schema.collection_create(
        actor=actor, slug="bench", label="Bench", supports=["drafts", "revisions", "scheduling", "search"]
    )
    for definition in (
        {"slug": "title", "label": "Title", "type": "string", "required": True},
        {"slug": "price", "label": "Price", "type": "number"},
        {"slug": "summary", "label": "Summary", "type": "text"},
        {"slug": "body", "label": "Body", "type": "portableText"},
    ):
        schema.field_create(actor=actor, collection=collection, definition=definition)

    # PostgreSQL takes the rows through COPY (a million entries in minutes: issue 24's scale); SQLite through
    # bulk INSERTs, which it writes about as fast.
    write = copy_entries if connection.vendor == "postgresql" else Entry.objects.bulk_create
    rng = random.Random(20261121)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    batch: list[Entry] = []
    ids: list[str] = []
    with transaction.atomic():
        for number in range(entries):
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize()
            data = {
                "title": title,
                "price": round(rng.uniform(1, 500), 2),
                "summary": " ".join(rng.choice(WORDS) for _ in range(30)),
                "body": [
                    {
                        "_type": "block",
                        "_key": f"b{number}",
                        "style": "normal",
                        "markDefs": [],
                        "children": [
                            {
                                "_type": "span",
                                "_key": "s",
                                "text": " ".join(rng.choice(WORDS) for _ in range(60)),
                                "marks": [],
                            }
                        ],
                    }
                ],
            }
            created = start + timedelta(seconds=number * 17)
            published = rng.random() < 0.8
            entry = Entry(
                collection=collection,
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
            if len(ids) < pool and published:
                ids.append(entry.id)
            if len(batch) == 5000:
                write(batch)
                batch = []
        if batch:
            write(batch)
    call_command("reindex", collection=["bench"], full=True, verbosity=0)
    media_key = seed_media(admin=admin)
    (out / "media_key").write_text(media_key)
    (out / "pool.txt").write_text("".join(f"{entry_id}\n" for entry_id in ids))
    write_pool(out)


def copy_entries(batch) -> None:
    from django.db import connection

    from apps.content.models import Entry

    fields = Entry._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    table = connection.ops.quote_name(Entry._meta.db_table)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for entry in batch:
            copy.write_row(
                [field.get_db_prep_save(getattr(entry, field.attname), connection) for field in fields]
            )


def seed_media(*, admin) -> str:
    """Upload a 100 KB PNG (a typical web image's size) through the media service; returns its storage key."""
    import io
    import struct
    import zlib

    from apps.accounts.permissions import Actor
    from apps.media import services as media

    width, height = 256, 128
    noise = random.Random(7)
    # Random pixels do not compress, so the file is about width x height x 3 bytes, like a photo.
    rows = b"".join(b"\x00" + noise.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    item, _ = media.media_upload(actor=Actor.for_session(admin), file=io.BytesIO(png), filename="bench.png")
    return item.storage_key


def write_pool(out: Path) -> None:
    """ids.txt: the pool of entries the GET and PATCH scenarios use, each with its current _rev (PATCH needs it)."""
    from apps.content.models import Entry

    ids = (out / "pool.txt").read_text().split()
    revs = {entry.pk: entry.rev for entry in Entry.objects.filter(pk__in=ids).only("id", "version")}
    (out / "ids.txt").write_text(
        "".join(f"{entry_id} {revs[entry_id]}\n" for entry_id in ids if entry_id in revs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pool-only", action="store_true", help="Only refresh the _revs of the id pool.")
    args = parser.parse_args()
    setup_django()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.pool_only:
        write_pool(args.out)
    else:
        seed(args.entries, args.out)


if __name__ == "__main__":
    main()
