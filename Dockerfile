# syntax=docker/dockerfile:1
# Multi-stage: dependencies are built in one stage and copied into a slim, non-root runtime image.
FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
COPY requirements/ /tmp/requirements/
RUN /opt/venv/bin/pip install -r /tmp/requirements/prod.txt -c /tmp/requirements/constraints.txt

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CMS_VAR_DIR=/data \
    STATIC_ROOT=/app/static \
    HOST=0.0.0.0 \
    PORT=8000
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin cms \
    && mkdir -p /data /app \
    && chown cms:cms /data /app
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --chown=cms:cms . .
USER cms
# A throwaway key for collectstatic only: the real one comes from SECRET_KEY or is generated into /data at first start.
RUN SECRET_KEY=collectstatic-only CMS_VAR_DIR=/tmp/build python manage.py collectstatic --noinput --verbosity 0
VOLUME ["/data"]
EXPOSE 8000
# DATABASE_URL (postgres://…) selects PostgreSQL; without it the SQLite file lives in the /data volume.
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]
