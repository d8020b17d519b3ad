#!/bin/sh
# The image's entrypoint (Dockerfile): the secrets a fresh host has not been given, then the
# command. `release` is compose.yaml's one-shot start (the Procfile's release is alike):
# migrate, then the demo club if CLUB=demo; anything else runs as given (gunicorn, the task
# worker, manage.py …).
set -eu

if [ "${1:-}" = "release" ]; then
    case "${CLUB:-demo}" in
        demo | empty) ;;
        *) echo "CLUB must be demo or empty, not '${CLUB}': nothing was done" >&2; exit 2 ;;
    esac
fi

# Secrets made once on the first start and kept in the volume at /var/lib/clubsite
# (CLUBSITE_STATE elsewhere: the tests), so
# `docker compose up` needs no .env: the session key, and the key Pushpin signs its requests
# with (GRIP_URL). Given in the environment, they win and nothing is written.
state="${CLUBSITE_STATE:-/var/lib/clubsite}"
secret() {
    file="$state/$1"
    if [ ! -s "$file" ]; then
        (umask 027 && python3 -c 'import secrets; print(secrets.token_urlsafe(50))' > "$file.new")
        mv "$file.new" "$file"
    fi
    cat "$file"
}
if [ -z "${DJANGO_SECRET_KEY:-}" ] && [ -w "$state" ]; then
    DJANGO_SECRET_KEY="$(secret django_secret_key)"
    export DJANGO_SECRET_KEY
fi
# PUSHPIN_HOST names the push server (compose's `pushpin`): the app servers publish to its
# port 5561 and trust what it signs with the shared key.
if [ -z "${GRIP_URL:-}" ] && [ -n "${PUSHPIN_HOST:-}" ] && [ -w "$state" ]; then
    GRIP_URL="http://${PUSHPIN_HOST}:5561?key=$(secret grip_key)&verify-iss=pushpin"
    export GRIP_URL
fi

if [ "${1:-}" = "release" ]; then
    # Once per start, before any app server: compose's web and worker wait for it to end.
    python manage.py migrate --noinput
    python manage.py digest_tables
    [ "${CLUB:-demo}" = empty ] || python manage.py load_demo  # nothing once there are members
    exit 0
fi
exec "$@"
