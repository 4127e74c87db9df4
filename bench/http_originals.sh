#!/usr/bin/env bash
# Part 1: thumbd serving library originals vs nginx serving the same files (sendfile on,
# 2 workers), with wrk, 64 connections, on loopback. Rounds alternate between the two
# servers; medians are reported. Target: thumbd >= 1.3x nginx req/s on the 20 KB file.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

THUMBD_PORT="${THUMBD_PORT:-18080}"
NGINX_PORT="${NGINX_PORT:-18081}"
LIB="$BENCH_DIR/originals"
mkdir -p "$LIB"
# Files with a JPEG signature and random bytes: originals are served byte for byte.
for spec in "small.jpg 20480" "large.jpg 2097152"; do
    set -- $spec
    if [ ! -f "$LIB/$1" ]; then
        { printf '\xff\xd8\xff\xe0'; head -c $(($2 - 4)) /dev/urandom; } > "$LIB/$1"
    fi
done

.build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache" \
    2> "$BENCH_DIR/thumbd.log" &
THUMBD_PID=$!
trap 'kill $THUMBD_PID 2>/dev/null || true; stop_nginx' EXIT
# It writes an access log, buffered as thumbd's is (thumbd logs by default).
start_nginx "$LIB" "$NGINX_PORT" nginx buffered
wait_for_port "$THUMBD_PORT"

# Both must serve identical bytes before their speed means anything.
for f in small.jpg large.jpg; do
    cmp -s <(curl -s "http://127.0.0.1:$THUMBD_PORT/img/$f") "$LIB/$f" || { echo "thumbd served wrong bytes for $f" >&2; exit 1; }
    cmp -s <(curl -s "http://127.0.0.1:$NGINX_PORT/$f") "$LIB/$f" || { echo "nginx served wrong bytes for $f" >&2; exit 1; }
done

echo "originals: wrk -t2 -c$WRK_CONNECTIONS -d${WRK_SECONDS}s, $ROUNDS alternating rounds, medians"
printf '%-10s %14s %10s %14s %10s %8s\n' file "thumbd req/s" "p99 ms" "nginx req/s" "p99 ms" ratio
for f in small.jpg large.jpg; do
    t_rps=(); t_p99=(); n_rps=(); n_p99=()
    for _ in $(seq 1 "$ROUNDS"); do
        read -r r p < <(wrk_run "http://127.0.0.1:$THUMBD_PORT/img/$f"); t_rps+=("$r"); t_p99+=("$p")
        read -r r p < <(wrk_run "http://127.0.0.1:$NGINX_PORT/$f"); n_rps+=("$r"); n_p99+=("$p")
    done
    tr=$(median "${t_rps[@]}"); tp=$(median "${t_p99[@]}"); nr=$(median "${n_rps[@]}"); np=$(median "${n_p99[@]}")
    printf '%-10s %14.0f %10.2f %14.0f %10.2f %7.2fx\n' "$f" "$tr" "$tp" "$nr" "$np" "$(echo "$tr / $nr" | bc -l)"
done
