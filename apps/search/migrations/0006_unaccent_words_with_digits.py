"""PostgreSQL: words with digits in them ("café2024", "diaé15x", "x-café2") are unaccented too, as on SQLite.

Migration 0002 put ``unaccent`` before the dictionary for the parser's letter-only token types (``word``,
``hword``, ``hword_part``), but PostgreSQL's parser gives words of letters and digits their own types, ``numword``,
``numhword`` and ``hword_numpart``, which kept PostgreSQL's plain mapping (``simple``): "cafe2024" did not find
"café2024". Each ``cms_*`` configuration that unaccents its words now unaccents these too.

The stored ``tsv`` and ``title_tsv`` columns were computed with the old mapping, so the documents whose text has a
non-ASCII character and a digit in one word (the only ones whose vectors change) are rewritten here: an UPDATE of
their ``config`` to itself makes PostgreSQL compute their generated columns again. This reads every document once
(one sequential scan, bodies included: about 4 s for 100,000 documents of 3 KB on a two-core machine) and writes only
the affected rows, in the migration's transaction; searches go on meanwhile, and only writes to the rewritten
documents wait for the commit. A full ``manage.py reindex --full`` would rewrite every document instead, far more
work for the same result, so the migration does the repair itself. Nothing changes on SQLite, whose tokenizer
already folds every word.
"""

from django.db import migrations

DOCUMENTS = "search_searchdocument"
NUMERIC_TOKENS = ("numword", "numhword", "hword_numpart")
# A run of non-space characters holding both a non-ASCII character and a digit: the words whose lexemes unaccent
# may change. Over-approximate on purpose ("€5" matches): a needless rewrite costs little, a missed one a search.
AFFECTED = r"[^\x01-\x7f][^[:space:]]*[0-9]|[0-9][^[:space:]]*[^\x01-\x7f]"


def _unaccenting_configs(cursor) -> list[str]:
    """Our configurations whose letter-only words pass through ``unaccent`` (none without the extension)."""
    cursor.execute(
        "SELECT DISTINCT c.cfgname FROM pg_ts_config c "
        "JOIN pg_ts_config_map m ON m.mapcfg = c.oid "
        "JOIN pg_ts_dict d ON d.oid = m.mapdict "
        "WHERE c.cfgname LIKE %s AND d.dictname = 'unaccent' ORDER BY c.cfgname",
        ["cms\\_%"],
    )
    return [row[0] for row in cursor.fetchall()]


def _numeric_dictionaries(cursor, config: str) -> list[str]:
    """The dictionaries (in order) a configuration maps words with digits to, unaccent left out."""
    cursor.execute(
        "SELECT DISTINCT m.mapseqno, d.oid::regdictionary::text FROM pg_ts_config c "
        "JOIN pg_ts_config_map m ON m.mapcfg = c.oid "
        "JOIN pg_ts_dict d ON d.oid = m.mapdict "
        "JOIN ts_token_type('default') t ON t.tokid = m.maptokentype "
        "WHERE c.cfgname = %s AND t.alias = 'numword' ORDER BY m.mapseqno",
        [config],
    )
    names = [row[1] for row in cursor.fetchall() if row[1] not in ("unaccent", "public.unaccent")]
    return names or ["simple"]


def _remap(schema_editor, *, unaccent: bool) -> None:
    with schema_editor.connection.cursor() as cursor:
        configs = _unaccenting_configs(cursor)
        for config in configs:
            dictionaries = _numeric_dictionaries(cursor, config)
            if unaccent:
                dictionaries = ["unaccent", *dictionaries]
            cursor.execute(
                f"ALTER TEXT SEARCH CONFIGURATION {config} "
                f"ALTER MAPPING FOR {', '.join(NUMERIC_TOKENS)} WITH {', '.join(dictionaries)}"
            )
        if configs:
            cursor.execute(
                f"UPDATE {DOCUMENTS} SET config = config WHERE title ~ %s OR body ~ %s", [AFFECTED, AFFECTED]
            )


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        _remap(schema_editor, unaccent=True)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        _remap(schema_editor, unaccent=False)


class Migration(migrations.Migration):
    dependencies = [("search", "0005_lz4_compression")]

    operations = [migrations.RunPython(forward, backward)]
