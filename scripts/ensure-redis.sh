#!/usr/bin/env bash
# Installs Debian's redis-server for the queue-mode end-to-end run (test/e2e/queue/run.ts, `npm run
# test:queue`), unless a redis-server is already on the PATH. The run starts its own
# redis-server on a free loopback port with no persistence and stops it after; nothing here
# starts or enables the system service. Needs root (CI runs as root) and apt-get.
set -uo pipefail

fail() {
	echo "ensure-redis: FAILED: $*" >&2
	echo "ensure-redis: the queue-mode run needs redis-server (Debian's redis-server package): install it with 'apt-get install redis-server', or point REDIS_SERVER at another redis-server binary" >&2
	exit 1
}

if [ -n "${REDIS_SERVER:-}" ] && [ -x "$REDIS_SERVER" ]; then
	echo "ensure-redis: using REDIS_SERVER=$REDIS_SERVER ($("$REDIS_SERVER" --version 2>/dev/null))" >&2
	exit 0
fi
if command -v redis-server >/dev/null 2>&1; then
	echo "ensure-redis: $(redis-server --version 2>/dev/null) already installed" >&2
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	fail "redis-server is missing and this is not root, so apt-get cannot install it"
fi
if ! command -v apt-get >/dev/null 2>&1; then
	fail "redis-server is missing and there is no apt-get on this machine"
fi

export DEBIAN_FRONTEND=noninteractive
echo "ensure-redis: redis-server is missing; apt-get update" >&2
apt-get update -qq >&2 || fail "apt-get update did not succeed (no network, or no Debian package sources?)"
echo "ensure-redis: apt-get install redis-server" >&2
# policy-rc.d-less containers may try to start the service: that failing is not our failure,
# so check the binary afterwards rather than trusting the exit status alone.
apt-get install -y -qq --no-install-recommends redis-server >&2 || true
command -v redis-server >/dev/null 2>&1 || fail "apt-get install redis-server did not install redis-server"
echo "ensure-redis: installed $(redis-server --version 2>/dev/null)" >&2
