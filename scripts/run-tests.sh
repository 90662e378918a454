#!/usr/bin/env bash
# The test suite on SQLite, then on PostgreSQL. PostgreSQL comes from TEST_DATABASE_URL, else a local server on
# 127.0.0.1:5432 if one answers. Under CI (CI=true) PostgreSQL is required: a run that silently covered only SQLite
# would hide half the product.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${VENV:-.venv}/bin/python"
WORKERS="${PYTEST_WORKERS:-auto}"

echo "== Tests on SQLite =="
DATABASE_URL="sqlite:///var/test-default.sqlite3" "$PY" -m pytest -n "$WORKERS" "$@"

pg_url="$("$PY" scripts/find-postgres.py)" || pg_url=""
if [ -n "$pg_url" ]; then
    echo "== Tests on PostgreSQL =="
    DATABASE_URL="$pg_url" "$PY" -m pytest -n "$WORKERS" "$@"
elif [ "${CI:-}" = "true" ]; then
    echo "PostgreSQL is not reachable, and CI must test both databases." >&2
    exit 1
else
    echo "PostgreSQL is not reachable: tested on SQLite only. Set TEST_DATABASE_URL=postgres://… to include it."
fi
