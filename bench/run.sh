#!/usr/bin/env bash
# `make bench`: every benchmark part in turn. Talks only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh nginx wrk bc
mkdir -p .build/bench
bench/http_originals.sh
