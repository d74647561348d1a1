#!/usr/bin/env bash
# Finds redis-server for the Redis tests (crates/circom/tests/redis.rs) and the
# scale-out benchmark, installing Debian's package when it is missing:
#
#   scripts/redis-server.sh        the last line of its output is redis-server's path
#
# The tests start their own server on a free loopback port (no persistence) and
# stop it. Without apt (or root or sudo to run it) the script says SKIP loudly
# and exits 1; the tests then say SKIP too.
set -euo pipefail
found() { command -v redis-server 2>/dev/null || true; }
bin=$(found)
if [ -z "$bin" ]; then
    sudo=
    [ "$(id -u)" = 0 ] || sudo=$(command -v sudo || true)
    if command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
        echo "redis-server: installing Debian's package (apt-get install redis-server)" >&2
        { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
            --no-install-recommends redis-server; } >&2 || true
        # The package starts a system service on port 6379: the tests do not use it.
        $sudo service redis-server stop >/dev/null 2>&1 || true
    fi
    bin=$(found)
fi
if [ -z "$bin" ]; then
    echo "!! SKIP: redis-server is not installed and could not be installed (apt-get, as root or with sudo); the Redis tests will say SKIP" >&2
    exit 1
fi
"$bin" --version >&2
echo "$bin"
