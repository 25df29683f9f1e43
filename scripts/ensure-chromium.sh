#!/usr/bin/env bash
# Installs Debian's Chromium for the real-browser part of the end-to-end run, if it is not
# there yet. playwright-core drives it; no library downloads a browser of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ] || [ -n "${CHROMIUM_PATH:-}" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "ensure-chromium: /usr/bin/chromium is missing; install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH" >&2
	exit 1
fi
echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-liberation >&2
/usr/bin/chromium --version >&2
