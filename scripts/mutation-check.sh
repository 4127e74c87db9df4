#!/usr/bin/env bash
# `make test-mutation`: small, realistic bugs put into a scratch copy of the tree one at a
# time, each followed by the tests nearest to the promise it breaks; fails when a mutation
# survives (no test caught it). The list, and how to add to it: scripts/mutation-check.py.
#   scripts/mutation-check.sh [NAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh --tests rsync python3
exec python3 scripts/mutation-check.py "$@"
