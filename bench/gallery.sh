#!/usr/bin/env bash
# The gallery page (`GET /` over the 40 photographs of bench/corpus.sh) beside a memory-tier
# thumbnail hit of the same server, at 64, 4,096 and 8,192 connections (wrk -t2), and the page's
# revalidation (If-None-Match, a 304). Per line: requests/s, answers of 400 or more (503s
# shed), wrk's socket errors (connections refused, reset or timed out) and the server's CPU
# per request from /proc. Issue 55: the page costs what a hit costs
# until the library changes, and at 4,096 connections sheds nothing a hit would not shed.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18340}"
LIB=$(bench/corpus.sh "$BENCH_DIR/corpus")
cache=$(fresh_cache gallery-cache)
pid=0
trap 'kill $pid 2>/dev/null || true; remove_fresh_caches gallery-cache' EXIT
.build/release/thumbd serve --config config/thumbd.yaml --host 127.0.0.1 --port "$PORT" --library "$LIB" \
    --cache-dir "$cache" 2> "$BENCH_DIR/gallery.log" &
pid=$!
wait_for_port "$PORT"
base="http://127.0.0.1:$PORT"
# The page once (the library's facts are read), a thumbnail made once, so both are answered from memory.
curl -s -o /dev/null "$base/"
thumb="/img/$(cd "$LIB" && ls *.jpg | sort | head -1)?w=240&h=240&fit=cover"
curl -s -o /dev/null "$base$thumb"
etag=$(curl -s -D - -o /dev/null "$base/" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }')
[ -n "$etag" ] || { echo "the gallery page has no ETag" >&2; exit 1; }
cat > "$BENCH_DIR/gallery-revalidate.lua" <<LUA
wrk.headers["If-None-Match"] = '$etag'
LUA

# measure LABEL CONNECTIONS PATH [WRK_ARGS...] -> one line of the table
measure() {
    local label=$1 connections=$2 path=$3 out u0 u1 requests other errors
    u0=$(cpu_ticks "$pid")
    out=$(wrk -t2 -c"$connections" -d"${WRK_SECONDS}s" "${@:4}" "$base$path")
    u1=$(cpu_ticks "$pid")
    requests=$(awk '/requests in/ { print $1 }' <<< "$out")
    other=$(awk '/Non-2xx/ { print $NF }' <<< "$out")
    # "Socket errors: connect 0, read 0, write 0, timeout 0": connections refused or dropped.
    errors=$(awk '/Socket errors/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' <<< "$out")
    printf '%-34s %6d %12.0f %12s %14s %10.1f\n' "$label" "$connections" "$(awk '/Requests\/sec/ { print $2 }' <<< "$out")" \
        "${other:-0}" "${errors:-0}" "$(echo "($u1 - $u0) * 1000000 / $TICK / $requests" | bc -l)"
}

bytes=$(curl -s "$base/" | wc -c)
echo "gallery page: 40 photographs ($bytes bytes of HTML) beside a thumbnail hit, wrk -t2 -d${WRK_SECONDS}s, server CPU from /proc"
printf '%-34s %6s %12s %12s %14s %10s\n' "" conns "req/s" "4xx-5xx" "socket errors" "CPU us"
for connections in 64 4096 8192; do
    measure "thumbnail hit (memory)" "$connections" "$thumb"
    measure "gallery page GET /" "$connections" "/"
    measure "gallery page revalidated (304)" "$connections" "/" -s "$BENCH_DIR/gallery-revalidate.lua"
done
