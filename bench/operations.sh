#!/usr/bin/env bash
# What each image operation costs: thumbnails 400 px wide of the benchmark photos with one
# operation each, every URL a miss (the width is nudged per photo and pass so none repeats),
# priced in server CPU per thumbnail (/proc) beside plain resizing in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18340}"
PASSES="${PASSES:-2}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)
# A watermark for wm: a 200x60 translucent PNG made by libvips' own tools.
vips black "$BENCH_DIR/mark.v" 200 60 --bands 4 && vips linear "$BENCH_DIR/mark.v" "$LIB/mark.png" "1 1 1 0.5" "255 255 255 128"

rm -rf "$BENCH_DIR/ops-cache"
.build/release/thumbd serve --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$BENCH_DIR/ops-cache" \
    2> "$BENCH_DIR/ops.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
wait_for_port "$PORT"

operations=(
    "plain resize|"
    "blur=3|&blur=3"
    "sharpen=1|&sharpen=1"
    "rot=90|&rot=90"
    "flip=h|&flip=h"
    "fit=pad (400x400)|&h=400&fit=pad&bg=202020"
    "pad=20|&pad=20&bg=202020"
    "fp (cover 400x300)|&h=300&fit=cover&fp=0.3,0.3"
    "rect (middle third)|&rect=400,300,800,600"
    "trim=10|&trim=10"
    "gray=1|&gray=1"
    "wm (0.25, 60%)|&wm=mark.png&wmop=0.6"
    "mb=15000|&mb=15000"
    "fm=webp|&fm=webp"
    "fm=avif|&fm=avif"
    "fm=jxl|&fm=jxl"
)
declare -A cost
round=0
for _ in $(seq 1 "$ROUNDS"); do
    for entry in "${operations[@]}"; do
        label=${entry%%|*} extra=${entry#*|}
        : > "$BENCH_DIR/ops-urls"
        for pass in $(seq 0 $((PASSES - 1))); do
            for n in "${names[@]}"; do
                printf 'url = "http://127.0.0.1:%s/img/%s?w=%d%s"\noutput = "/dev/null"\n' "$PORT" "$n" $((400 + round)) "$extra" >> "$BENCH_DIR/ops-urls"
                round=$((round + 1))
            done
        done
        count=$(grep -c '^url' "$BENCH_DIR/ops-urls")
        t0=$(cpu_ticks "$pid")
        codes=$(curl -s --no-progress-meter -Z --parallel-max 2 -K "$BENCH_DIR/ops-urls" -w '%{http_code}\n')
        t1=$(cpu_ticks "$pid")
        ok=$(grep -c '^200$' <<< "$codes" || true)
        [ "$ok" -eq "$count" ] || { echo "$label: only $ok of $count were 200" >&2; exit 1; }
        cost[$label]+="$(echo "($t1 - $t0) * 1000 / $TICK / $count" | bc -l) "
    done
done

echo "image operations: ${#names[@]} photos x $PASSES passes, 400 px wide (JPEG q80 unless fm), every URL a miss, $ROUNDS rounds, medians of server CPU"
printf '%-24s %14s %10s\n' operation "CPU ms/thumb" "x plain"
plain=$(median ${cost["plain resize"]})
for entry in "${operations[@]}"; do
    label=${entry%%|*}
    c=$(median ${cost[$label]})
    printf '%-24s %14.1f %9.2fx\n' "$label" "$c" "$(echo "$c / $plain" | bc -l)"
done
