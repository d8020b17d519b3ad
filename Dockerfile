# The club site's image: gunicorn with clubsite/gunicorn.conf.py, the runtime packages of
# uv.lock and the static files collected. compose.yaml runs it as the app servers, the
# task worker and the one-shot release (migrate, the demo club); docs/deploy.md.
# bench/deploy_check.py (make deploy-check, in CI) builds it with podman and runs it; where
# no registry answers, on a stand-in for PYTHON_IMAGE made from Debian's packages.

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

# --- build: the venv from uv.lock, and the static files ------------------------------------
FROM ${PYTHON_IMAGE} AS build
WORKDIR /srv/clubsite
ENV UV_PROJECT_ENVIRONMENT=/srv/clubsite/.venv \
    UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# uv, the release the Makefile pins, every file's hash checked (tools/uv-requirements.txt).
COPY tools/uv-requirements.txt /tmp/uv-requirements.txt
RUN python -m venv /opt/uv \
    && /opt/uv/bin/pip install --quiet --require-hashes --no-deps -r /tmp/uv-requirements.txt
# The runtime packages only (no dev group), exactly as locked: a layer that changes only
# when the lock does.
COPY pyproject.toml uv.lock ./
RUN /opt/uv/bin/uv sync --locked --no-dev --python /usr/local/bin/python
COPY . .
# The static files, hashed and compressed for WhiteNoise. DEBUG off reads the manifest, so
# collect as production does; the key only lets the settings load and is thrown away.
RUN DJANGO_DEBUG=0 DJANGO_SECRET_KEY=collectstatic-only DJANGO_STATIC_ROOT=/srv/clubsite/staticfiles \
    .venv/bin/python manage.py collectstatic --noinput --verbosity 0
# The site's bytecode, written once here: the image's user may not write beside the sources,
# and each worker would otherwise compile the site again at every start.
RUN .venv/bin/python -m compileall -q clubsite members scoring

# --- the image: Python, the fonts of the sheet's picture, the venv, the site ----------------
FROM ${PYTHON_IMAGE}
# fonts-dejavu-core: resvg draws the sheet's picture in DejaVu (docs/deploy-by-hand.md).
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 clubsite \
    && useradd --system --uid 10001 --gid clubsite --home-dir /srv/clubsite --no-create-home clubsite \
    && install -d -o clubsite -g clubsite /var/lib/clubsite
WORKDIR /srv/clubsite
COPY --from=build --chown=root:root /srv/clubsite /srv/clubsite
ENV PATH=/srv/clubsite/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_DEBUG=0 \
    DJANGO_STATIC_ROOT=/srv/clubsite/staticfiles \
    DJANGO_TASKS=database \
    BIND=0.0.0.0:8000 \
    GUNICORN_CONTROL_SOCKET=off
USER clubsite
EXPOSE 8000
ENTRYPOINT ["/srv/clubsite/deploy/entrypoint.sh"]
CMD ["gunicorn", "--config", "clubsite/gunicorn.conf.py", "clubsite.wsgi"]
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]
