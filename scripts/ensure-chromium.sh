#!/usr/bin/env bash
# Installs Debian's Chromium for the real-browser part of the end-to-end run
# (test/e2e/rig/browser.ts), unless /usr/bin/chromium is already there. playwright-core drives
# it; no library downloads a browser of its own. Needs root (CI runs as root) and apt-get.
set -uo pipefail

CHROMIUM=/usr/bin/chromium

fail() {
	echo "ensure-chromium: FAILED: $*" >&2
	echo "ensure-chromium: the end-to-end run needs Chromium at $CHROMIUM (Debian's chromium package): install it with 'apt-get install chromium', or point CHROMIUM_PATH at another Chromium" >&2
	exit 1
}

if [ -x "$CHROMIUM" ]; then
	echo "ensure-chromium: $($CHROMIUM --version 2>/dev/null || echo "$CHROMIUM") already installed" >&2
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	fail "$CHROMIUM is missing and this is not root, so apt-get cannot install it"
fi
if ! command -v apt-get >/dev/null 2>&1; then
	fail "$CHROMIUM is missing and there is no apt-get on this machine"
fi

export DEBIAN_FRONTEND=noninteractive
echo "ensure-chromium: $CHROMIUM is missing; apt-get update" >&2
apt-get update -qq >&2 || fail "apt-get update did not succeed (no network, or no Debian package sources?)"
echo "ensure-chromium: apt-get install chromium" >&2
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2 || fail "apt-get install chromium did not succeed"
[ -x "$CHROMIUM" ] || fail "the chromium package installed, but $CHROMIUM is not there"
echo "ensure-chromium: installed $($CHROMIUM --version 2>/dev/null)" >&2
