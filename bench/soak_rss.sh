#!/usr/bin/env bash
# Leak check: thousands of transforms (every format, several sizes) through one thumbd,
# printing its RSS as it goes. Flat after warm-up means no libvips object leaks.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
PORT="${PORT:-18083}"
TOTAL="${TOTAL:-3000}"
LIB="$BENCH_DIR/soak"
mkdir -p "$LIB"
[ -f "$LIB/a.jpg" ] || vips black "$LIB/a.jpg" 1200 800 --bands 3
[ -f "$LIB/b.png" ] || vips gaussnoise "$LIB/b.png" 900 900
# Every URL below is distinct and the cache folder fresh, so every request is a transform;
# the memory tier is kept small so that what RSS shows is the transform path, not the cache.
rm -rf "$BENCH_DIR/cache-soak"
THUMBD_CACHE_MEMORY_BYTES=8388608 .build/release/thumbd serve --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache-soak" 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
wait_for_port "$PORT"
urls="$BENCH_DIR/soak-urls.txt"
formats=(jpeg png webp avif)
for round in $(seq 0 $((TOTAL / 500 - 1))); do
    : > "$urls"
    for i in $(seq 0 499); do
        n=$((round * 500 + i))
        file=$([ $((n % 2)) -eq 0 ] && echo a.jpg || echo b.png)
        echo "url = \"http://127.0.0.1:$PORT/img/$file?w=$((64 + n % 500))&h=$((48 + n / 500 * 7))&fit=cover&fm=${formats[$((n % 4))]}\"" >> "$urls"
        echo 'output = "/dev/null"' >> "$urls"
    done
    curl -s --no-progress-meter -Z --parallel-max 4 -K "$urls" -w '%{http_code}\n' | grep -vc '^200$' > /dev/null && { echo "non-200 responses" >&2; exit 1; } || true
    echo "after $(((round + 1) * 500)) transforms: RSS $(awk '/VmRSS/ { print int($2 / 1024) }' /proc/$PID/status) MB"
done
