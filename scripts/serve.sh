#!/usr/bin/env bash
# Serve the CMS: the background worker (scheduled publishing, mail, webhooks, imports: every queue) beside gunicorn.
# Stopping either stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-${VENV:-.venv}/bin/python}"

# Metrics on (CMS_METRICS_TOKEN): gunicorn's workers and the background worker write their figures to one directory,
# emptied before anything starts so that a scrape adds up this run's processes only (docs/operations.md).
made_metrics_dir=""
if [ -n "${CMS_METRICS_TOKEN:-}" ]; then
    if [ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
        PROMETHEUS_MULTIPROC_DIR="$(mktemp -d -t cms-metrics.XXXXXX)"
        made_metrics_dir="$PROMETHEUS_MULTIPROC_DIR"
    fi
    mkdir -p -- "$PROMETHEUS_MULTIPROC_DIR"
    find "$PROMETHEUS_MULTIPROC_DIR" -maxdepth 1 -type f -name '*.db' -delete
    export PROMETHEUS_MULTIPROC_DIR
fi

"$PY" manage.py worker &
worker=$!
trap 'kill -TERM "$worker" 2>/dev/null || true; [ -z "$made_metrics_dir" ] || rm -rf -- "$made_metrics_dir"' EXIT
"$PY" -m gunicorn cms_project.wsgi --config cms_project/gunicorn.conf.py
