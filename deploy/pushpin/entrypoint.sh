#!/bin/sh
# Pushpin's configuration for compose: the signing key the app servers trust (made by the
# release's first start in the shared volume, or PUSHPIN_KEY) and the app servers to route
# to (PUSHPIN_ROUTE, e.g. `* web1:8000 web2:8000`), written where the user may write.
set -eu
key="${PUSHPIN_KEY:-}"
if [ -z "$key" ]; then
    for _ in $(seq 1 60); do
        [ -s /var/lib/clubsite/grip_key ] && break
        sleep 1
    done
    key="$(cat /var/lib/clubsite/grip_key)"
fi
sed "s|^sig_key=.*|sig_key=${key}|" /etc/clubsite-pushpin/pushpin.conf > /run/pushpin/pushpin.conf
printf '%s\n' "${PUSHPIN_ROUTE:?PUSHPIN_ROUTE names the app servers: * web1:8000 web2:8000}" \
    > /run/pushpin/routes
exec pushpin --config /run/pushpin/pushpin.conf --merge-output
