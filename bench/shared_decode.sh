#!/usr/bin/env bash
# One source, many sizes: 8 widths of one 4000 px JPEG (a grid's 1x, 2x and detail sizes)
# asked at the same time, against the same 8 asked one after another (each a miss made alone),
# in alternating rounds on one thumbd (limits.workers 2, output.shared_decode on), every URL a miss (widths nudged per
# round). Priced in server CPU per set of 8 (/proc). Misses of one source queued together are
# made from one load and one decode (SharedDecode; smaller sizes from halved copies of it); one
# worker makes a source at a time, so a set asked at once is decoded once or twice, not eight
# times. curl's --parallel-immediate sends the 8 at once (without it curl holds the other 7
# until the first connection has answered, to see whether it could multiplex them).
# Target (issue 25): together <= 0.6x apart.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18342}"
BIN="${BIN:-.build/release/thumbd}"  # another build to compare: BIN=/path/to/thumbd
WIDTHS=(160 240 320 480 640 960 1280 1920)
lib="$BENCH_DIR/shared"
if [ ! -f "$lib/big.jpg" ]; then
    mkdir -p "$lib"
    photo=$(find /usr/share/backgrounds/mate -iname '*.jpg' | sort | head -1)
    vips thumbnail "$photo" "$lib/big.jpg[Q=90]" 4000 --height 2667 --size force
fi
rm -rf "$BENCH_DIR/shared-cache"
: > "$BENCH_DIR/empty.yaml"
# Built-in defaults (no config file), so any build of thumbd can be compared.
THUMBD_OUTPUT_SHARED_DECODE=true "$BIN" serve --config "$BENCH_DIR/empty.yaml" --host 127.0.0.1 --port "$PORT" --library "$lib" --cache-dir "$BENCH_DIR/shared-cache" \
    2> "$BENCH_DIR/shared.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_for_port "$PORT"

# set NUDGE PARALLEL: the 8 widths (plus NUDGE), PARALLEL at a time; prints CPU ms for the set
set_cpu() {
    : > "$BENCH_DIR/shared-urls"
    for w in "${WIDTHS[@]}"; do
        printf 'url = "http://127.0.0.1:%s/img/big.jpg?w=%d&fm=jpeg&q=80"\noutput = "/dev/null"\n' "$PORT" $((w + $1)) >> "$BENCH_DIR/shared-urls"
    done
    local t0 t1 codes
    t0=$(cpu_ticks "$pid")
    codes=$(curl -s --no-progress-meter -Z --parallel-immediate --parallel-max "$2" -K "$BENCH_DIR/shared-urls" -w '%{http_code}\n')
    t1=$(cpu_ticks "$pid")
    [ "$(grep -c '^200$' <<< "$codes")" -eq 8 ] || { echo "not every answer was 200" >&2; exit 1; }
    echo "($t1 - $t0) * 1000 / $TICK" | bc -l
}

together=() apart=()
for round in $(seq 1 "$ROUNDS"); do
    together+=("$(set_cpu $((round * 2)) 8)")
    apart+=("$(set_cpu $((round * 2 + 1)) 1)")
done
t=$(median "${together[@]}") a=$(median "${apart[@]}")
echo "one source, many sizes: widths ${WIDTHS[*]} of a 4000x2667 JPEG, $ROUNDS alternating rounds, medians of server CPU"
printf '%-34s %10.0f ms per set of 8\n' "asked at the same time" "$t"
printf '%-34s %10.0f ms per set of 8\n' "asked one after another" "$a"
printf '%-34s %10.2fx (target <= 0.6x)\n' "together / apart" "$(echo "$t / $a" | bc -l)"
