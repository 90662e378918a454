"""Migration operations that several apps share."""

from __future__ import annotations

from django.db import migrations


class DropKeyPatternIndexes(migrations.operations.base.Operation):
    """Drop the ``…_like`` pattern indexes Django created on PostgreSQL for this app's primary and foreign keys
    before our schema editor stopped making them (apps/core/dbbackends/postgresql). Nothing to do elsewhere, or on a
    database created since. Not reversible in substance: going back leaves the indexes out, which changes no result.
    """

    reduces_to_sql = True
    reversible = True

    def state_forwards(self, app_label, state):
        pass

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor != "postgresql":
            return
        from apps.core.dbbackends.postgresql.base import is_key

        for model in to_state.apps.get_app_config(app_label).get_models(include_auto_created=True):
            table = model._meta.db_table
            for field in model._meta.local_concrete_fields:
                if is_key(field) and (field.db_index or field.unique):
                    name = schema_editor._create_index_name(table, [field.column], suffix="_like")
                    schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(name)}")

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        pass

    def describe(self):
        return "Drop the pattern (…_like) indexes of primary and foreign keys"


class CompressWithLz4(migrations.operations.base.Operation):
    """Have PostgreSQL compress the long values of these columns with lz4 instead of its own pglz (PostgreSQL 14 and
    later, built with lz4, as Debian's and the official images are; elsewhere nothing changes). Values already
    stored keep their compression until they are written again; both kinds read back alike.

    An entry's JSON is written three times on create (working copy, published copy, revision) and read on every
    GET: pglz was a tenth of PostgreSQL's work during an import, and lz4 compresses and decompresses several times
    faster, at a slightly lower ratio."""

    reduces_to_sql = True
    reversible = True

    def __init__(self, table: str, columns: list[str]):
        self.table = table
        self.columns = columns

    def deconstruct(self):
        return self.__class__.__name__, [self.table, self.columns], {}

    def state_forwards(self, app_label, state):
        pass

    def _set(self, schema_editor, method: str) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql" or connection.pg_version < 140000:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
            row = cursor.fetchone()
        if row is None or method not in row[0]:
            return
        quote = schema_editor.quote_name
        changes = ", ".join(
            f"ALTER COLUMN {quote(column)} SET COMPRESSION {method}" for column in self.columns
        )
        schema_editor.execute(f"ALTER TABLE {quote(self.table)} {changes}")

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._set(schema_editor, "lz4")

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        self._set(schema_editor, "pglz")

    def describe(self):
        return f"Compress {self.table} ({', '.join(self.columns)}) with lz4"
