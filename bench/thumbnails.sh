#!/usr/bin/env bash
# Part 2: distinct-thumbnail throughput. thumbd, 4 concurrent clients, each URL requested
# once (fit=cover, JPEG q=80, sizes 150x150, 300x300, 300x200, 640x480, nudged by one pixel
# per pass so no URL repeats), against the compute limit: an in-process C loop calling
# vips_thumbnail_buffer + vips_jpegsave_buffer on 2 threads over the same files and sizes.
# Target: thumbd >= 0.9x the limit; peak RSS of thumbd under 300 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PASSES="${PASSES:-3}"
THUMBD_PORT="${THUMBD_PORT:-18082}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg *.JPG 2>/dev/null | sort)

build_vips_limit

# A fresh cache folder: every thumbnail must be made, not found from an earlier run.
rm -rf "$BENCH_DIR/cache-thumbs"
${THUMBD_ENV:-} .build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache-thumbs" \
    2> "$BENCH_DIR/thumbd-thumbs.log" &
THUMBD_PID=$!
trap 'kill $THUMBD_PID 2>/dev/null || true' EXIT
wait_for_port "$THUMBD_PORT"

urls="$BENCH_DIR/thumb-urls.txt"
miss_urls "$THUMBD_PORT" "$PASSES" "${names[@]}" > "$urls"
count=$(grep -c '^url' "$urls")

start=$(date +%s.%N)
codes=$(curl -s --no-progress-meter -Z --parallel-max 4 -K "$urls" -w '%{http_code}\n')
end=$(date +%s.%N)
ok=$(grep -c '^200$' <<< "$codes" || true)
[ "$ok" -eq "$count" ] || { echo "only $ok of $count thumbnails were 200" >&2; exit 1; }
thumbd_rate=$(echo "$count / ($end - $start)" | bc -l)
peak_kb=$(awk '/VmHWM/ { print $2 }' "/proc/$THUMBD_PID/status")

read -r limit_count limit_seconds _ < <("$BENCH_DIR/vips_limit" 2 "$PASSES" "${names[@]/#/$LIB/}")
limit_rate=$(echo "$limit_count / $limit_seconds" | bc -l)

echo "thumbnails: ${#names[@]} photos x 4 sizes x $PASSES passes = $count distinct thumbnails, fit=cover, JPEG q=80"
printf '%-34s %10.1f thumbnails/s\n' "thumbd (4 concurrent clients)" "$thumbd_rate"
printf '%-34s %10.1f thumbnails/s\n' "libvips C loop (2 threads)" "$limit_rate"
printf '%-34s %10.2fx\n' "ratio" "$(echo "$thumbd_rate / $limit_rate" | bc -l)"
printf '%-34s %10.0f MB\n' "thumbd peak RSS" "$(echo "$peak_kb / 1024" | bc -l)"
