"""Django's PostgreSQL backend with a health check that costs no round trip while the connection is quiet, and JSON
written by orjson.

Persistent connections need a check at the start of each request, or the first request after a database restart
fails. Django's check is a ``SELECT 1``: one more round trip on every request, which on a busy two-core machine costs
about as much as the request's own queries (each round trip is a pair of context switches). A connection the server
has closed (restart, terminated backend, failover) has the server's goodbye or end-of-stream waiting on its socket,
while a healthy idle connection has nothing to read; so only a connection with pending input pays for the full check.
A peer that vanished without closing (network cut) is not detected here: its first query fails, the request answers
503 and Django closes the connection at the end of that request (errors_occurred), as before.

Keys get no second, pattern-matching index. Django gives every indexed ``varchar`` column a ``varchar_pattern_ops``
twin (``…_like``) for ``LIKE 'abc%'`` queries. Our primary and foreign keys are ULIDs (and Django's own keys are ids
or session keys) that are only ever compared for equality, so those twins were never read, yet every insert paid
for them: an imported post wrote 13 of them across its entry, revision, credits, terms, audit row and import record.
Migrations named ``…_no_key_pattern_indexes`` drop those that databases created earlier still have.

JSON columns are ``jsonb``, which PostgreSQL parses and stores in its own form, so the text sent only has to be valid
JSON: orjson writes entries' Portable Text about ten times faster than ``json.dumps``, which Django uses otherwise (an
entry's data is written three times on create: working copy, published copy, revision).
"""

from __future__ import annotations

import json
import select

import orjson
import psycopg
from django.db.backends.postgresql import base, operations, schema
from psycopg.types.json import Jsonb


def _input_pending(connection) -> bool:
    try:
        fd = connection.fileno()
    except (psycopg.Error, OSError):
        return True  # a connection that cannot give its socket is not usable
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def _dumps(value) -> bytes | str:
    try:
        return orjson.dumps(value)
    except TypeError:
        # What orjson refuses and json.dumps writes: integers beyond 64 bits, keys that are not strings.
        return json.dumps(value)


class DatabaseOperations(operations.DatabaseOperations):
    def adapt_json_value(self, value, encoder):
        if encoder is not None:
            return super().adapt_json_value(value, encoder)
        return Jsonb(value, dumps=_dumps)


def is_key(field) -> bool:
    """A primary or foreign key: compared for equality only, so it needs no pattern index."""
    return field.primary_key or field.is_relation


class DatabaseSchemaEditor(schema.DatabaseSchemaEditor):
    def _create_like_index_sql(self, model, field):
        if is_key(field):
            return None
        return super()._create_like_index_sql(model, field)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    SchemaEditorClass = DatabaseSchemaEditor

    def close_if_health_check_failed(self):
        if self.connection is None or not self.health_check_enabled or self.health_check_done:
            return
        if self.connection.closed or _input_pending(self.connection):
            super().close_if_health_check_failed()
        self.health_check_done = True
