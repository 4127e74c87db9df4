#!/usr/bin/env bash
# Crash safety of the disk cache: thumbd is killed with SIGKILL while it writes many
# entries, started again on the same cache folder, and every thumbnail it then serves from
# disk must be byte-identical to a fresh transform by a third instance with an empty cache.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${BIN:-.build/debug/thumbd}"
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "crash test: $*" >&2; exit 1; }
# shellcheck source=scripts/thumbd-process.sh
. scripts/thumbd-process.sh

# start NAME CACHE_DIR: a thumbd on a free port; sets PORT.
start() {
    start_thumbd "$work/$1.log" --library "$work/library" --cache-dir "$2"
    pids+=("$server")
}

start first "$work/cache"             # writes the demo library on its first start
first=$PORT
victim=${pids[-1]}
mapfile -t images < <(cd "$work/library" && find . -name '*.jpg' -o -name '*.png' -o -name '*.webp' | sed 's|^\./||' | sort)
formats=(jpeg webp png)
: > "$work/targets"
for image in "${images[@]}"; do
    for size in 80 120 160 200 240 280 320 360; do
        echo "/img/$image?w=$size&h=$size&fit=cover&fm=${formats[$((size / 40 % 3))]}" >> "$work/targets"
    done
done
sed "s|^|url = \"http://127.0.0.1:$first|; s|$|\"\noutput = \"/dev/null\"|" "$work/targets" > "$work/curl-config"
curl -s --no-progress-meter -Z --parallel-max 8 -K "$work/curl-config" >/dev/null 2>&1 &
load=$!
# Kill it mid-stream, once a good part of the entries are on disk.
for _ in $(seq 1 600); do
    written=$(find "$work/cache" -mindepth 3 -type f -not -path "$work/cache/tmp/*" | wc -l)
    [ "$written" -ge 40 ] && break
    sleep 0.05
done
kill -9 "$victim"
wait "$victim" 2>/dev/null || true
wait "$load" 2>/dev/null || true
written=$(find "$work/cache" -mindepth 3 -type f -not -path "$work/cache/tmp/*" | wc -l)
total=$(wc -l < "$work/targets")

start second "$work/cache"
second=$PORT
start reference "$work/fresh-cache"
reference=$PORT

from_disk=0
while read -r target; do
    headers=$(curl -s -D - -o "$work/got" "http://127.0.0.1:$second$target")
    curl -s -o "$work/want" "http://127.0.0.1:$reference$target"
    if grep -qi '^x-cache: disk' <<< "$headers"; then
        from_disk=$((from_disk + 1))
        cmp -s "$work/got" "$work/want" || { echo "crash test: $target served from disk differs from a fresh transform" >&2; exit 1; }
    fi
    cmp -s "$work/got" "$work/want" || { echo "crash test: $target differs from a fresh transform" >&2; exit 1; }
done < "$work/targets"
leftover=$(find "$work/cache/tmp" -type f | wc -l)
[ "$leftover" -eq 0 ] || { echo "crash test: $leftover temporary files left after restart" >&2; exit 1; }
[ "$from_disk" -gt 0 ] || { echo "crash test: nothing was served from disk; the test proved nothing" >&2; exit 1; }
echo "crash test: killed with SIGKILL after $written of $total entries were on disk; after restart $from_disk were served from disk, all byte-identical to fresh transforms"
