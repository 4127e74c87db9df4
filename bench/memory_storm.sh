#!/usr/bin/env bash
# Memory under a miss storm: 6 clients for STORM_SECONDS (default 120) asking for distinct
# thumbnails of 3 photos of 4000 px (widths 200-3999, every output format), with the
# memory tier at MEMORY (default 256MiB). Prints thumbd's peak RSS during the storm, its
# RSS at rest afterwards beside cache.memory_bytes and what the memory tier holds, and the
# thumbnails made per second, for the transforms' memory bound off and at its default
# (limits.transform_memory_bytes, 384 MiB), side by side, and checks them against the sizing
# rule in the README:
#   at rest <= memory_bytes + 100 MB;  peak <= memory_bytes + transform peak + 50 MB,
# where the transform peak is the peak RSS of the same storm with the memory tier off.
# Issue 25's target: peak <= memory_bytes + 250 MB, thumbnails/s within 5% of the bound off.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18086}"
BIN="${BIN:-.build/release/thumbd}"  # another build to compare: BIN=/path/to/thumbd
: > "$BENCH_DIR/empty.yaml"
STORM_SECONDS="${STORM_SECONDS:-120}"
MEMORY="${MEMORY:-268435456}"
LIB="$BENCH_DIR/storm"
mkdir -p "$LIB"
if [ ! -f "$LIB/c.jpg" ]; then
    mapfile -t photos < <(find /usr/share/backgrounds/mate -iname '*.jpg' | sort | head -3)
    i=0
    for p in "${photos[@]}"; do
        name=$(printf '\x'"$(printf %x $((97 + i)))")  # a, b, c
        vips thumbnail "$p" "$LIB/$name.jpg[Q=90]" 4000 --size force --height 2667
        i=$((i + 1))
    done
fi

rss_mb() { awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$1/status"; }
peak_mb() { awk '/VmHWM/ { print int($2 / 1024) }' "/proc/$1/status"; }
memory_tier_mb() {
    curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^thumbd_cache_bytes\{tier="memory"\}/ { print int($2 / 1048576) }'
}

# storm MEMORY_BYTES SECONDS [TRANSFORM_MEMORY_BYTES]: runs the storm against a fresh thumbd;
# prints "peak rest tier thumbnails_per_second" (the bound as the build's default when not given)
storm() {
    rm -rf "$BENCH_DIR/cache-storm"
    local bound=()
    [ -n "${3:-}" ] && bound=(env "THUMBD_LIMITS_TRANSFORM_MEMORY_BYTES=$3")
    # Built-in defaults (no config file), so any build of thumbd can be compared.
    "${bound[@]}" env THUMBD_CACHE_MEMORY_BYTES="$1" THUMBD_LOGGING_ACCESS=false "$BIN" serve --config "$BENCH_DIR/empty.yaml" \
        --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache-storm" 2>> "$BENCH_DIR/thumbd-storm.log" &
    local pid=$!
    wait_for_port "$PORT"
    local formats=(jpeg png webp avif) end=$((SECONDS + $2)) client started=$SECONDS
    for client in 0 1 2 3 4 5; do
        (
            n=$client made=0
            while [ $SECONDS -lt $end ]; do
                file=$(printf '%s' abc | cut -c $((n % 3 + 1)))
                w=$((200 + (n * 7919) % 3800))
                code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/img/$file.jpg?w=$w&fm=${formats[$((n / 3 % 4))]}" || true)
                [ "$code" = 200 ] && made=$((made + 1))
                n=$((n + 6))
            done
            echo "$made" > "$BENCH_DIR/storm-client-$client"
        ) &
    done
    wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
    local made rate
    made=$(cat "$BENCH_DIR"/storm-client-* | awk '{ s += $1 } END { print s + 0 }')
    rate=$(awk -v m="$made" -v s=$((SECONDS - started)) 'BEGIN { printf "%.2f", m / s }')
    rm -f "$BENCH_DIR"/storm-client-*
    local peak rest tier
    peak=$(peak_mb "$pid")
    sleep 3  # the pool goes idle and returns freed memory
    rest=$(rss_mb "$pid")
    tier=$(memory_tier_mb)
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    echo "$peak $rest ${tier:-0} $rate"
}

read -r base_peak base_rest _ _ < <(storm 0 "$((STORM_SECONDS / 2))")
read -r free_peak free_rest free_tier free_rate < <(storm "$MEMORY" "$STORM_SECONDS" 0)
read -r peak rest tier rate < <(storm "$MEMORY" "$STORM_SECONDS")
memory_mb=$((MEMORY / 1048576))
echo "memory storm: 6 clients, 3 photos of 4000 px, widths 200-3999, jpeg/png/webp/avif, ${STORM_SECONDS} s"
printf '%-44s %6s MB\n' "memory tier off: peak RSS" "$base_peak" "memory tier off: RSS at rest" "$base_rest"
printf '%-44s %6s MB\n' "cache.memory_bytes" "$memory_mb"
printf '%-44s %14s %14s\n' "limits.transform_memory_bytes" "0 (no bound)" "default"
printf '%-44s %11s MB %11s MB\n' "memory tier holds" "$free_tier" "$tier" "peak RSS" "$free_peak" "$peak" "RSS at rest" "$free_rest" "$rest"
printf '%-44s %14s %14s\n' "thumbnails/s" "$free_rate" "$rate"
rest_bound=$((memory_mb + 100))
peak_bound=$((memory_mb + base_peak + 50))
target=$((memory_mb + 250))
printf '%-44s %6s MB (%s)\n' "at rest bound: memory_bytes + 100" "$rest_bound" "$([ "$rest" -le "$rest_bound" ] && echo within || echo OVER)"
printf '%-44s %6s MB (%s)\n' "peak bound: memory_bytes + transform peak + 50" "$peak_bound" "$([ "$peak" -le "$peak_bound" ] && echo within || echo OVER)"
printf '%-44s %6s MB (%s)\n' "issue 25 target: memory_bytes + 250" "$target" "$([ "$peak" -le "$target" ] && echo within || echo OVER)"
awk -v a="$rate" -v b="$free_rate" 'BEGIN { printf "%-44s %6.2fx (%s)\n", "thumbnails/s, bound / no bound", a / b, (a / b >= 0.95 ? "within 5%" : "OVER 5%") }'
