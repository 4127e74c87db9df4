#!/usr/bin/env bash
# Memory under a storm of large misses, at each memory limit: the storm of the memory tests
# (scripts/miss-storm.sh: 40 photographs of 1000 to 4350 px, 360 distinct misses at widths
# 1600, 2400 and 3200 in AVIF, JPEG XL and WebP, 8 at a time) against a fresh thumbd with
# limits.memory_bytes at 384 MiB, 512 MiB and 1 GiB (everything else auto), and with no limit
# (the machine's memory, the transform budget off), one after the other. Prints the peak RSS
# (VmHWM) beside the limit, the answers, and thumbnails made per second beside the run
# without a limit. Issue 31's target: at 1 GiB, at least 0.9x the throughput without a limit.
#   LIMITS="512MiB" bench/memory_storm.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
source scripts/miss-storm.sh

PORT="${PORT:-18086}"
BIN="${BIN:-.build/release/thumbd}"
LIMITS="${LIMITS:-384MiB 512MiB 1GiB}"
LIB="$BENCH_DIR/storm-library"
storm_library "$LIB"
: > "$BENCH_DIR/empty.yaml"

# storm LIMIT: one run; prints "peak_mib seconds answers ok busy other lost"
storm() {
    local settings=(THUMBD_LIMITS_MEMORY_BYTES="$1")
    [ "$1" = none ] && settings=(THUMBD_LIMITS_MEMORY_BYTES=64GiB THUMBD_LIMITS_TRANSFORM_MEMORY_BYTES=0)
    rm -rf "$BENCH_DIR/cache-storm"
    env "${settings[@]}" THUMBD_LOGGING_ACCESS=false THUMBD_LIBRARY_DEMO=false "$BIN" serve --config "$BENCH_DIR/empty.yaml" \
        --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache-storm" 2>> "$BENCH_DIR/thumbd-storm.log" &
    local pid=$! start
    wait_for_port "$PORT"
    storm_urls "http://127.0.0.1:$PORT" > "$BENCH_DIR/storm-urls"
    start=$(date +%s.%N)
    storm_run "$BENCH_DIR/storm-urls" 8 "$BENCH_DIR/storm-answers"
    local seconds peak
    seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    peak=$(awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/$pid/status")
    kill "$pid"
    wait "$pid" 2> /dev/null || true
    echo "$peak $seconds $(storm_summary "$BENCH_DIR/storm-answers")"
}

echo "memory storm: 40 photos of 1000-4350 px, 360 misses (w 1600/2400/3200 x avif/jxl/webp), 8 at a time"
read -r free_peak free_seconds _ free_ok _ < <(storm none)
free_rate=$(awk -v n="$free_ok" -v s="$free_seconds" 'BEGIN { printf "%.2f", n / s }')
printf '%-10s %10s %8s %6s %6s %8s %5s %14s %8s\n' limit "peak RSS" seconds 200 503 refused lost thumbnails/s "vs none"
printf '%-10s %7s MiB %8s %6s %6s %8s %5s %14s %8s\n' none "$free_peak" "$free_seconds" "$free_ok" - - - "$free_rate" 1.00x
for limit in $LIMITS; do
    read -r peak seconds answers ok busy other lost < <(storm "$limit")
    awk -v l="$limit" -v p="$peak" -v s="$seconds" -v ok="$ok" -v b="$busy" -v o="$other" -v lost="$lost" -v free="$free_rate" 'BEGIN {
        rate = ok / s
        printf "%-10s %7s MiB %8s %6s %6s %8s %5s %14.2f %7.2fx\n", l, p, s, ok, b, o, lost, rate, rate / free }'
done
