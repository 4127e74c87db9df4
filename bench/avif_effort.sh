#!/usr/bin/env bash
# What `output.avif_effort` costs per step: 400 px AVIF thumbnails of the benchmark photos,
# every URL a miss, on one thumbd per effort (0..MAX_EFFORT), priced in server CPU per
# thumbnail (/proc) and mean bytes beside WebP misses of the same photos on the same server;
# then one 2000 px thumbnail of a 36-megapixel JPEG as AVIF (default effort) and as WebP,
# timed end to end (each a miss, one at a time).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18341}"
MAX_EFFORT="${MAX_EFFORT:-6}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort | head -12)
big="$BENCH_DIR/big36"
if [ ! -f "$big/36mp.jpg" ]; then
    mkdir -p "$big"
    photo=$(find /usr/share/backgrounds/mate -iname '*.jpg' | sort | head -1)
    vips thumbnail "$photo" "$big/36mp.jpg[Q=90]" 7360 --height 4912 --size force
fi

pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT
serve() {  # EFFORT LIBRARY
    rm -rf "$BENCH_DIR/avif-cache"
    THUMBD_OUTPUT_AVIF_EFFORT=$1 .build/release/thumbd serve --host 127.0.0.1 --port "$PORT" --library "$2" \
        --cache-dir "$BENCH_DIR/avif-cache" 2> "$BENCH_DIR/avif.log" &
    pid=$!
    wait_for_port "$PORT"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=; }

# misses FORMAT WIDTH: "CPU-ms-per-thumbnail mean-bytes" over the 12 photos at WIDTH px
misses() {
    : > "$BENCH_DIR/avif-urls"
    for n in "${names[@]}"; do
        printf 'url = "http://127.0.0.1:%s/img/%s?w=%d&fm=%s"\noutput = "/dev/null"\n' "$PORT" "$n" "$2" "$1" >> "$BENCH_DIR/avif-urls"
    done
    local t0 t1 out
    t0=$(cpu_ticks "$pid")
    out=$(curl -s --no-progress-meter -Z --parallel-max 2 -K "$BENCH_DIR/avif-urls" -w '%{http_code} %{size_download}\n')
    t1=$(cpu_ticks "$pid")
    [ "$(grep -c '^200 ' <<< "$out")" -eq "${#names[@]}" ] || { echo "fm=$1: not every answer was 200" >&2; exit 1; }
    echo "$(echo "($t1 - $t0) * 1000 / $TICK / ${#names[@]}" | bc -l) $(awk '{ b += $2 } END { print b / NR }' <<< "$out")"
}

echo "AVIF effort (output.avif_effort): ${#names[@]} photos, 400 px wide, every URL a miss, server CPU per thumbnail"
printf '%-8s %14s %12s %12s %10s\n' effort "AVIF ms/thumb" "AVIF bytes" "WebP ms" "x WebP"
for effort in $(seq 0 "$MAX_EFFORT"); do
    serve "$effort" "$LIB"
    read -r webp_ms _ < <(misses webp 400)
    read -r avif_ms avif_bytes < <(misses avif 401)
    stop
    printf '%-8s %14.1f %12.0f %12.1f %9.2fx\n' "$effort" "$avif_ms" "$avif_bytes" "$webp_ms" "$(echo "$avif_ms / $webp_ms" | bc -l)"
done

serve 1 "$big"
for fm in webp avif; do
    seconds=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$PORT/img/36mp.jpg?w=2000&fm=$fm")
    printf '2000 px %-5s of a 36 MP JPEG (effort 1): %6.2f s\n' "$fm" "$seconds"
done
