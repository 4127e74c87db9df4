#!/usr/bin/env bash
# Part 3: cached thumbnails. A few hundred distinct thumbnails are made once; then wrk
# (64 connections) cycles over them: first from thumbd's memory tier, then from its disk tier
# alone (THUMBD_CACHE_MEMORY_BYTES=0, restarted on the same cache folder), each against nginx
# serving the very same bytes from files (2 workers, sendfile on). Alternating rounds, medians.
# Targets: memory hits >= 1.3x nginx, disk hits >= 1.0x nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

THUMBD_PORT="${THUMBD_PORT:-18084}"
NGINX_PORT="${NGINX_PORT:-18085}"
LIB=$(bench_photos)
CACHE="$BENCH_DIR/cache-cached"
THUMBS="$BENCH_DIR/nginx-thumbs"
rm -rf "$CACHE" "$THUMBS"
mkdir -p "$THUMBS/t"
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)

run_thumbd() {  # run_thumbd [ENV...]
    env "$@" .build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$LIB" --cache-dir "$CACHE" \
        2>> "$BENCH_DIR/thumbd-cached.log" &
    THUMBD_PID=$!
    wait_for_port "$THUMBD_PORT"
}
trap 'kill ${THUMBD_PID:-0} 2>/dev/null || true; stop_nginx' EXIT

# 16 photos x 20 sizes = 320 thumbnails, made once and copied for nginx.
: > "$BENCH_DIR/thumbd-paths"; : > "$BENCH_DIR/nginx-paths"; : > "$BENCH_DIR/warm-config"
n=0
for name in "${names[@]}"; do
    for size in $(seq 100 20 480); do
        path="/img/$name?w=$size&h=$((size * 3 / 4))&fit=cover&fm=jpeg"
        echo "$path" >> "$BENCH_DIR/thumbd-paths"
        echo "/t/$n.jpg" >> "$BENCH_DIR/nginx-paths"
        printf 'url = "http://127.0.0.1:%s%s"\noutput = "%s/t/%s.jpg"\n' "$THUMBD_PORT" "$path" "$THUMBS" "$n" >> "$BENCH_DIR/warm-config"
        n=$((n + 1))
    done
done
run_thumbd
curl -s --no-progress-meter -Z --parallel-max 4 -K "$BENCH_DIR/warm-config"
# It writes an access log, buffered as thumbd's is (thumbd logs by default).
start_nginx "$THUMBS" "$NGINX_PORT" nginx buffered
mean=$(du -sb "$THUMBS/t" | awk -v n="$n" '{ printf "%.1f", $1 / n / 1024 }')
# Same bytes from both before timing anything.
first=$(head -1 "$BENCH_DIR/thumbd-paths")
cmp -s <(curl -s "http://127.0.0.1:$THUMBD_PORT$first") "$THUMBS/t/0.jpg" || { echo "thumbd and nginx bytes differ" >&2; exit 1; }

compare() {  # compare LABEL
    local t_rps=() t_p99=() n_rps=() n_p99=() r p
    for _ in $(seq 1 "$ROUNDS"); do
        read -r r p < <(wrk_run "http://127.0.0.1:$THUMBD_PORT/" "$BENCH_DIR/thumbd-paths"); t_rps+=("$r"); t_p99+=("$p")
        read -r r p < <(wrk_run "http://127.0.0.1:$NGINX_PORT/" "$BENCH_DIR/nginx-paths"); n_rps+=("$r"); n_p99+=("$p")
    done
    local tr tp nr np
    tr=$(median "${t_rps[@]}"); tp=$(median "${t_p99[@]}"); nr=$(median "${n_rps[@]}"); np=$(median "${n_p99[@]}")
    printf '%-14s %14.0f %10.2f %14.0f %10.2f %7.2fx\n' "$1" "$tr" "$tp" "$nr" "$np" "$(echo "$tr / $nr" | bc -l)"
}

echo "cached thumbnails: $n distinct (mean $mean KiB), wrk -t2 -c$WRK_CONNECTIONS -d${WRK_SECONDS}s cycling over all, $ROUNDS alternating rounds, medians"
printf '%-14s %14s %10s %14s %10s %8s\n' tier "thumbd req/s" "p99 ms" "nginx req/s" "p99 ms" ratio
compare "memory hits"
kill "$THUMBD_PID"; wait "$THUMBD_PID" 2>/dev/null || true
run_thumbd THUMBD_CACHE_MEMORY_BYTES=0
x=$(curl -s -D - -o /dev/null "http://127.0.0.1:$THUMBD_PORT$first" | tr -d '\r' | awk 'tolower($1) == "x-cache:" { print $2 }')
[ "$x" = "disk" ] || { echo "expected a disk hit after restart, got X-Cache: $x" >&2; exit 1; }
compare "disk hits"
