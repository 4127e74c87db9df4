#!/usr/bin/env bash
# thumbd as a plain process with limits.memory_bytes set (part of `make test`): a storm of
# large AVIF, JPEG XL and WebP misses (scripts/miss-storm.sh: 40 photographs of 1000 to
# 4350 px, widths 1600-3200, 8 at a time for at least STORM_SECONDS) must keep the process's
# peak RSS (VmHWM) under the limit, lose no request and answer each one 200, or 503 with
# Retry-After. The container side (the image under docker run --memory) is in
# scripts/docker-test.sh. Talks only to 127.0.0.1.
#   LIMIT=512MiB STORM_SECONDS=60 scripts/memory-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/miss-storm.sh

LIMIT="${LIMIT:-384MiB}"
STORM_SECONDS="${STORM_SECONDS:-60}"
BIN="${BIN:-.build/debug/thumbd}"
scripts/ensure-deps.sh vips=libvips-tools /usr/share/backgrounds/mate=mate-backgrounds
[ -x "$BIN" ] || swift build --product thumbd > /dev/null
state=.build/memory-test
mkdir -p "$state"
storm_library "$state/library"
work=$(mktemp -d "${TMPDIR:-/tmp}/thumbd-memory-test.XXXXXX")
pid=""
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
    rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
: > "$work/empty.yaml"
THUMBD_LIMITS_MEMORY_BYTES="$LIMIT" THUMBD_LIBRARY_DEMO=false THUMBD_LOGGING_ACCESS=false \
    "$BIN" serve --config "$work/empty.yaml" --host 127.0.0.1 --port "$port" --library "$state/library" \
    --cache-dir "$work/cache" 2> "$work/thumbd.log" &
pid=$!
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/health" && break
    sleep 0.1
done
limit_bytes=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "thumbd_memory_limit_bytes" { printf "%d", $2 }')
storm_urls "http://127.0.0.1:$port" > "$work/urls"
start=$SECONDS
storm_run "$work/urls" 8 "$work/answers" "$STORM_SECONDS"
seconds=$((SECONDS - start))
read -r answers ok busy other lost < <(storm_summary "$work/answers")
peak_kib=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
health=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
refused=$(curl -s "http://127.0.0.1:$port/metrics" | awk '$1 == "thumbd_transform_memory_refusals_total" { printf "%d", $2 }')
grep -m1 'memory: limit' "$work/thumbd.log" | sed 's/^.*memory: /memory-test: sizing: /'
echo "memory-test: limit $LIMIT, $answers answers in ${seconds}s: $ok 200, $busy 503 with Retry-After, $other other ($refused refused for memory), $lost lost; peak RSS $((peak_kib / 1024)) MiB; /health $health"
problems=()
[ "$lost" = 0 ] || problems+=("$lost requests got no answer")
[ "$other" = "$refused" ] || problems+=("$((other - refused)) answers were neither 200, 503 with Retry-After nor a memory refusal: $(awk -F'|' '$1 != 200 && $1 != 503 { print $1 }' "$work/answers" | sort | uniq -c | tr -s ' ' | tr '\n' ',')")
[ $((peak_kib * 1024)) -lt "$limit_bytes" ] || problems+=("peak RSS $((peak_kib / 1024)) MiB is over the limit")
[ "$health" = 200 ] || problems+=("/health answered $health after the storm")
[ "$seconds" -ge "$STORM_SECONDS" ] || problems+=("the storm lasted ${seconds}s")
if [ ${#problems[@]} -gt 0 ]; then
    printf 'memory-test: %s\n' "${problems[@]}" >&2
    exit 1
fi
echo "memory-test: ok"
