"""The vendor-specific full-text structures beside the search tables (apps/search/backends).

PostgreSQL
- Text search configurations ``cms_<name>`` for every configuration PostgreSQL ships (``simple`` and the Snowball
  languages): copies whose words pass through ``unaccent`` before the stemmer, so matching ignores accents. Without the
  unaccent extension they are plain copies (accents then matter).
- ``config regconfig`` per document and ``tsv``, a stored generated tsvector: title weight A, body weight B (with a
  space after each "<", so that PostgreSQL's parser does not take plain text for HTML tags and skip it), kept in the
  row rather than in TOAST.
- A GIN index on ``tsv``. ``manage.py reindex --index rum`` replaces it with a RUM index (the ``rum`` extension),
  which ranks inside the index at a higher cost per write, and ``--index gin`` back.
- A GIN index on the title's own tsvector, so broad queries can rank every title match (not only a sample).
- ``COLLATE "C"`` on suggestion keys, so prefix ranges compare bytes as on SQLite.

SQLite
- ``search_fts``: an FTS5 table over the documents' title and body (external content, Porter stemming, case and
  accents folded), and triggers that keep it in step with the documents table. A later migration that makes Django
  rebuild ``search_searchdocument`` (SQLite alters tables by copying them) must create the triggers again.
"""

from django.db import DatabaseError, migrations, transaction

DOCUMENTS = "search_searchdocument"
SUGGESTIONS = "search_searchsuggestion"
# PostgreSQL's parser takes "<word…>" for an HTML tag and skips it, and the text of <script> and <style> elements with
# it; the indexed text is plain text, so a space after every "<" keeps every word ("a<b and c>d" included) a word.
TSV = (
    "tsv tsvector GENERATED ALWAYS AS ("
    "setweight(to_tsvector(config, replace(title, '<', '< ')), 'A') || "
    "setweight(to_tsvector(config, replace(body, '<', '< ')), 'B')) STORED"
)


TITLE_TSV = "to_tsvector(config, replace(title, '<', '< '))"


def _try(schema_editor, sql: str) -> bool:
    """Run ``sql`` in a savepoint; False (and nothing changed) when the database refuses it."""
    try:
        with (
            transaction.atomic(using=schema_editor.connection.alias),
            schema_editor.connection.cursor() as cursor,
        ):
            cursor.execute(sql)
        return True
    except DatabaseError:
        return False


def _postgres(schema_editor):
    unaccent = _try(schema_editor, "CREATE EXTENSION IF NOT EXISTS unaccent")
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.cfgname FROM pg_ts_config c WHERE c.cfgnamespace = 'pg_catalog'::regnamespace "
            "AND (c.cfgname = 'simple' OR EXISTS (SELECT 1 FROM pg_ts_dict d "
            "WHERE d.dictname = c.cfgname || '_stem' AND d.dictnamespace = 'pg_catalog'::regnamespace)) "
            "ORDER BY c.cfgname"
        )
        names = [row[0] for row in cursor.fetchall() if row[0].isalpha()]
        for name in names:
            dictionary = "simple" if name == "simple" else f"{name}_stem"
            cursor.execute(f"CREATE TEXT SEARCH CONFIGURATION cms_{name} (COPY = pg_catalog.{name})")
            if unaccent:
                cursor.execute(
                    f"ALTER TEXT SEARCH CONFIGURATION cms_{name} "
                    f"ALTER MAPPING FOR hword, hword_part, word WITH unaccent, pg_catalog.{dictionary}"
                )
        cursor.execute(f"ALTER TABLE {DOCUMENTS} ADD COLUMN config regconfig NOT NULL DEFAULT 'cms_simple'")
        cursor.execute(f"ALTER TABLE {DOCUMENTS} ADD COLUMN {TSV}")
        # Keep the tsvector in the row (the body goes to TOAST instead): ranking reads it for up to a thousand
        # candidates, and fetching each from TOAST made mid-frequency queries four times slower (docs/performance.md).
        cursor.execute(f"ALTER TABLE {DOCUMENTS} ALTER COLUMN tsv SET STORAGE MAIN")
        cursor.execute(f"ALTER TABLE {DOCUMENTS} SET (toast_tuple_target = 8160)")
        cursor.execute(f'ALTER TABLE {SUGGESTIONS} ALTER COLUMN "key" TYPE varchar(200) COLLATE "C"')
        # Title matches alone, for the bounded ranking of broad queries (apps/search/backends/postgres.py).
        cursor.execute(f"CREATE INDEX search_doc_title ON {DOCUMENTS} USING gin ({TITLE_TSV})")
        # GIN: cheap to update (its pending list batches new entries). RUM ranks inside the index but costs about
        # 10 ms a document to update, more than the indexing budget of a write; `manage.py reindex --index rum`
        # switches to it (docs/performance.md).
        cursor.execute(f"CREATE INDEX search_doc_tsv_gin ON {DOCUMENTS} USING gin (tsv)")


def _sqlite(schema_editor):
    for sql in (
        f"CREATE VIRTUAL TABLE search_fts USING fts5(title, body, content='{DOCUMENTS}', content_rowid='id', "
        "tokenize='porter unicode61 remove_diacritics 2')",
        f"CREATE TRIGGER search_fts_insert AFTER INSERT ON {DOCUMENTS} BEGIN "
        "INSERT INTO search_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
        f"CREATE TRIGGER search_fts_delete AFTER DELETE ON {DOCUMENTS} BEGIN "
        "INSERT INTO search_fts(search_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body); END",
        f"CREATE TRIGGER search_fts_update AFTER UPDATE ON {DOCUMENTS} BEGIN "
        "INSERT INTO search_fts(search_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body); "
        "INSERT INTO search_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
    ):
        schema_editor.execute(sql)


def create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        _postgres(schema_editor)
    elif vendor == "sqlite":
        _sqlite(schema_editor)


def drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    with schema_editor.connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute("DROP INDEX IF EXISTS search_doc_tsv_rum")
            cursor.execute("DROP INDEX IF EXISTS search_doc_tsv_gin")
            cursor.execute("DROP INDEX IF EXISTS search_doc_title")
            cursor.execute(f"ALTER TABLE {DOCUMENTS} DROP COLUMN IF EXISTS tsv")
            cursor.execute(f"ALTER TABLE {DOCUMENTS} DROP COLUMN IF EXISTS config")
            cursor.execute(
                f'ALTER TABLE {SUGGESTIONS} ALTER COLUMN "key" TYPE varchar(200) COLLATE "default"'
            )
            cursor.execute("SELECT cfgname FROM pg_ts_config WHERE cfgname LIKE %s", ["cms\\_%"])
            for (name,) in cursor.fetchall():
                cursor.execute(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {name}")
        elif vendor == "sqlite":
            for trigger in ("search_fts_insert", "search_fts_delete", "search_fts_update"):
                cursor.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            cursor.execute("DROP TABLE IF EXISTS search_fts")


class Migration(migrations.Migration):
    dependencies = [("search", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
