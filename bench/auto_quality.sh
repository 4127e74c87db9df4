#!/usr/bin/env bash
# q=auto against q=80 over the 40 photographs of bench/corpus.sh, at the grid sizes a phone
# asks (150, 300 and 600 px, fit=cover) in JPEG, WebP and AVIF: bytes, the distance of each
# from its resized pixels (1 - MS-SSIM on luma), the limit an exhaustive sweep of every
# quality finds for the same target, and CPU per thumbnail (the whole transform from the
# original's bytes, libvips on one thread) for both. Prints one line per thumbnail into
# $BENCH_DIR/auto-quality.tsv and the totals. Extra arguments go to thumbd-quality
# (--target, --floor, --ceiling, --encodes, --sizes, --formats, --sweep 0).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
mkdir -p "$BENCH_DIR"
corpus=$(bench/corpus.sh)
swift build -c release --product thumbd-quality > "$BENCH_DIR/thumbd-quality-build.log" 2>&1
echo "== q=auto against q=80: 40 photographs x 150/300/600 px cover x JPEG/WebP/AVIF =="
VIPS_CONCURRENCY=1 .build/release/thumbd-quality "$corpus" "$@" > "$BENCH_DIR/auto-quality.tsv"
awk 'f; /^$/ { f = 1 }' "$BENCH_DIR/auto-quality.tsv"
echo "per thumbnail: $BENCH_DIR/auto-quality.tsv"
