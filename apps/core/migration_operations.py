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
