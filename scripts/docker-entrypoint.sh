#!/bin/sh
# Container start: apply migrations, create the first admin when there is none (printing its token once), serve.
set -e
python manage.py migrate --noinput
python manage.py cms_setup --print-token
PY=python exec bash scripts/serve.sh
