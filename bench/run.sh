#!/usr/bin/env bash
# `make bench`: every benchmark part in turn. Talks only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh nginx wrk bc vips=libvips-tools /usr/share/backgrounds/mate=mate-backgrounds
mkdir -p .build/bench
bench/http_originals.sh
echo
bench/thumbnails.sh
echo
bench/thumbor.sh
echo
PHOTOS=small bench/thumbor.sh
echo
bench/cached_thumbnails.sh
echo
# Issue 25's references: hits beside 8a4bc30 (the build before the presenter wave), misses
# beside the libvips C loop; each earlier build is built once under .build/bench.
# HIT_REFERENCES="" leaves the earlier build out.
REFERENCES="${HIT_REFERENCES-8a4bc30}" bench/hit_cpu.sh
echo
bench/miss_cpu.sh
echo
PHOTOS=small bench/miss_cpu.sh
echo
# Issue 55: the 40 photographs outside benchmarks use, per photograph and in total.
PHOTOS=corpus bench/miss_cpu.sh
echo
PHOTOS=corpus PER_PHOTO=0 bench/miss_cpu.sh
echo
bench/gallery.sh
echo
bench/operations.sh
echo
bench/avif_effort.sh
echo
bench/auto_quality.sh
echo
bench/shared_decode.sh
echo
bench/soak_rss.sh
echo
bench/memory_storm.sh
echo
bench/working_memory.sh
echo
bench/cluster.sh
echo
bench/scroll.sh
echo
bench/s3.sh
echo
bench/shared_tier.sh
echo
bench/faces.sh
echo
bench/video.sh
echo
bench/vectors.sh
echo
# Disk tier start-up with 100,000 entries (index rebuilt in the background while serving).
THUMBD_INDEX_ENTRIES=100000 swift test --filter DiskIndexScaleTests 2>&1 | grep -a "disk index"
