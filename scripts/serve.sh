#!/usr/bin/env bash
# Serve the CMS: the background worker (scheduled publishing, mail, webhooks, imports: every queue) beside gunicorn.
# Stopping either stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-${VENV:-.venv}/bin/python}"

"$PY" manage.py worker &
worker=$!
trap 'kill -TERM "$worker" 2>/dev/null || true' EXIT
"$PY" -m gunicorn cms_project.wsgi --config cms_project/gunicorn.conf.py
