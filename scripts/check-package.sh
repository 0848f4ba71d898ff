#!/usr/bin/env bash
# The ecosystem's own checks of a package's exports and types, on a package folder (the repository
# with dist/ built, or an unpacked tarball): publint (every export's files exist, the fields agree)
# and @arethetypeswrong/cli (every entry point's types resolve and match its JavaScript, under
# node16 from ESM and bundler resolution; the package is ESM only, so CommonJS `require` and node10
# are not asked). Exits non-zero on any problem either finds.
# Example: npm run build && scripts/check-package.sh .
set -euo pipefail
BIN="$(cd "$(dirname "$0")/.." && pwd)/node_modules/.bin"
PACKAGE="$(cd "${1:?usage: check-package.sh <package folder>}" && pwd)"
PACKED="$(mktemp -d "${TMPDIR:-/tmp}/sqs-inbox-check-XXXXXX")"
trap 'rm -rf "$PACKED"' EXIT

"$BIN/publint" "$PACKAGE" --strict
# --ignore-scripts: the folder is checked as it is, not rebuilt by prepack.
TARBALL="$(cd "$PACKAGE" && npm pack --ignore-scripts --silent --pack-destination "$PACKED")"
"$BIN/attw" "$PACKED/$TARBALL" --profile esm-only --format ascii
