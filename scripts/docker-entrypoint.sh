#!/bin/sh
# Container start: apply migrations, create the first admin when there is none (printing its token once), serve.
set -e
python manage.py migrate --noinput
python manage.py cms_setup --print-token
exec python -m gunicorn cms_project.wsgi --config cms_project/gunicorn.conf.py
