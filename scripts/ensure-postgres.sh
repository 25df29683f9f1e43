#!/usr/bin/env bash
# Installs Debian's PostgreSQL server for the queue-mode end-to-end run (test/e2e/queue/run.ts,
# `npm run test:queue`), unless its binaries are already there. The run makes its own throw-away
# cluster (initdb in a temp folder, a free loopback port) as the `postgres` user, puts every n8n
# process on it and removes it after; it never uses or starts the system's own cluster. Needs root
# (CI runs as root) and apt-get.
#
# Where the binaries are looked for, in order (test/e2e/rig/postgres.ts does the same):
# POSTGRES_BIN_DIR, the newest /usr/lib/postgresql/<version>/bin (Debian keeps them there, off the
# PATH), then initdb and postgres on the PATH.
set -uo pipefail

fail() {
	echo "ensure-postgres: FAILED: $*" >&2
	echo "ensure-postgres: the queue-mode run needs PostgreSQL's initdb and postgres (Debian's postgresql package): install it with 'apt-get install postgresql', or point POSTGRES_BIN_DIR at the folder that holds them" >&2
	exit 1
}

bin_dir() {
	if [ -n "${POSTGRES_BIN_DIR:-}" ]; then
		[ -x "$POSTGRES_BIN_DIR/initdb" ] && [ -x "$POSTGRES_BIN_DIR/postgres" ] && echo "$POSTGRES_BIN_DIR"
		return
	fi
	local dir
	for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
			echo "$dir"
			return
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v postgres >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
	fi
}

found="$(bin_dir)"
if [ -n "$found" ]; then
	echo "ensure-postgres: $("$found/postgres" --version 2>/dev/null) already installed ($found)" >&2
	exit 0
fi
if [ -n "${POSTGRES_BIN_DIR:-}" ]; then
	fail "POSTGRES_BIN_DIR=$POSTGRES_BIN_DIR holds no initdb and postgres"
fi
if [ "$(id -u)" != 0 ]; then
	fail "PostgreSQL is missing and this is not root, so apt-get cannot install it"
fi
if ! command -v apt-get >/dev/null 2>&1; then
	fail "PostgreSQL is missing and there is no apt-get on this machine"
fi

export DEBIAN_FRONTEND=noninteractive
echo "ensure-postgres: PostgreSQL is missing; apt-get update" >&2
apt-get update -qq >&2 || fail "apt-get update did not succeed (no network, or no Debian package sources?)"
echo "ensure-postgres: apt-get install postgresql" >&2
# The package's own cluster may fail to start in a container without an init system: that is not
# our failure (the run never uses it), so check the binaries afterwards rather than the exit status.
apt-get install -y -qq --no-install-recommends postgresql >&2 || true
found="$(bin_dir)"
[ -n "$found" ] || fail "apt-get install postgresql did not install initdb and postgres"
id postgres >/dev/null 2>&1 || fail "the postgresql package did not create the postgres user"
echo "ensure-postgres: installed $("$found/postgres" --version 2>/dev/null) ($found)" >&2
