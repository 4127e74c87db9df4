#!/usr/bin/env bash
# Replays every input kept under Tests/Fuzz/corpus (seeds and past crashers) through its
# fuzz target, with the ordinary debug build: a regression check that needs no sanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in Tests/Fuzz/corpus/*/; do
    target=$(basename "$dir")
    THUMBD_FUZZ_TARGET="$target" .build/debug/thumbd-fuzz "$dir"
done
