#!/usr/bin/env bash
# Replays every input kept under Tests/Fuzz/corpus (seeds and past crashers) through its
# fuzz target, with the ordinary debug build: a regression check that needs no sanitizer.
# Each target runs with 4 GB of address space and 120 s at most, so an input that ran away
# once (the pdf-source corpus keeps a document on which poppler grew without end) fails the
# replay instead of taking the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in Tests/Fuzz/corpus/*/; do
    target=$(basename "$dir")
    (ulimit -v 4000000; THUMBD_FUZZ_TARGET="$target" timeout 120 .build/debug/thumbd-fuzz "$dir")
done
