#!/usr/bin/env bash
# Working memory per transform, measured against thumbd's estimate (WorkingMemory): every
# decoder, encoder and operation thumbd has, each case alone on a fresh process with the
# cache tiers off. A case runs once to load what it uses (libraries, the decoder's tables),
# then the kernel's peak RSS is reset to the current RSS (/proc/PID/clear_refs) and the case
# runs again: the peak's growth is what that transform holds at most. The estimate is what
# thumbd reserved for it (thumbd_transform_memory_reserved_bytes_total). Prints one line per
# case and fails when a measured peak is over its estimate.
#   CASES='jpeg-3999 avif-3999' bench/working_memory.sh   # some cases only
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18091}"
BIN="${BIN:-.build/release/thumbd}"
SRC="$BENCH_DIR/working-memory"
mkdir -p "$SRC"
[ -x "$BIN" ] || swift build -c release --product thumbd > /dev/null
command -v vips > /dev/null || { echo "needs the vips command (libvips-tools)" >&2; exit 1; }

# Sources: a 4000 x 3000 photograph in every input format thumbd decodes (JPEG XL is written
# too, though its loader stays blocked: thumbd answers such sources 422), two animations of 24 frames of
# 1000 x 750, a watermark with alpha and an SVG drawn at 4000 x 3000 (PDF is not decoded).
if [ ! -f "$SRC/animation.webp" ]; then
    cc -O2 -o "$BENCH_DIR/working_memory_sources" bench/working_memory_sources.c $(pkg-config --cflags --libs vips)
    photo=$(find /usr/share/backgrounds/mate -name 'Elephants_5640x3172.jpg' | head -1)
    [ -n "$photo" ] || photo=$(find /usr/share/backgrounds/mate -iname '*.jpg' | sort | head -1)
    "$BENCH_DIR/working_memory_sources" "$photo" "$SRC" 4000 3000 24 > /dev/null
    vips thumbnail "$SRC/photo.png" "$SRC/mark-rgb.png" 800
    vips bandjoin_const "$SRC/mark-rgb.png" "$SRC/mark.png" 200
    {
        echo '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="3000" viewBox="0 0 4000 3000">'
        for i in $(seq 0 39); do
            echo "<circle cx=\"$((i * 97 % 4000))\" cy=\"$((i * 61 % 3000))\" r=\"$((200 + i * 7))\" fill=\"#$(printf '%02x%02x%02x' $((i * 6)) $((255 - i * 6)) 128)\" opacity=\"0.6\"/>"
        done
        echo '</svg>'
    } > "$SRC/drawing.svg"
fi

# NAME|FILE|QUERY
ALL_CASES=(
    "decode-jpeg|photo.jpg|w=3000"
    "decode-jpeg-progressive|progressive.jpg|w=3000"
    "decode-png|photo.png|w=3000"
    "decode-png-interlaced|interlaced.png|w=3000"
    "decode-webp|photo.webp|w=3000"
    "decode-avif|photo.avif|w=3000"
    "decode-heic|photo.heic|w=3000"
    "decode-tiff|photo.tif|w=3000"
    "decode-gif|photo.gif|w=3000"
    "decode-svg|drawing.svg|w=4000"
    "shrink-jpeg|photo.jpg|w=400"
    "shrink-jpeg-progressive|progressive.jpg|w=400"
    "shrink-png|photo.png|w=400"
    "shrink-png-interlaced|interlaced.png|w=400"
    "shrink-webp|photo.webp|w=400"
    "shrink-avif|photo.avif|w=400"
    "shrink-heic|photo.heic|w=400"
    "shrink-tiff|photo.tif|w=400"
    "shrink-gif|photo.gif|w=400"
    "encode-jpeg|photo.jpg|w=3999&fm=jpeg"
    "encode-png|photo.jpg|w=3999&fm=png"
    "encode-webp|photo.jpg|w=3999&fm=webp"
    "encode-avif|photo.jpg|w=3999&fm=avif"
    "encode-jxl|photo.jpg|w=3999&fm=jxl"
    "encode-jpeg-progressive|photo.jpg|w=3999&fm=jpeg&pr=1"
    "encode-png-interlaced|photo.jpg|w=3999&fm=png&pr=1"
    "encode-jpeg-mb|photo.jpg|w=3999&fm=jpeg&mb=1000000"
    "pad|photo.jpg|w=2000&h=2000&fit=pad&pad=1000&fm=webp"
    "rotate|photo.jpg|w=3000&rot=90&fm=webp"
    "rotate-180|photo.jpg|w=3000&rot=180&fm=webp"
    "blur|photo.jpg|w=3000&blur=50"
    "sharpen|photo.jpg|w=3000&sharpen=5"
    "gray|photo.jpg|w=3000&gray=1"
    "rect|photo.jpg|rect=0,0,4000,3000&w=3000"
    "trim|photo.jpg|trim=10&w=3000"
    "watermark|photo.jpg|w=3000&wm=mark.png&wmscale=1"
    "cover-attention|photo.jpg|w=3000&h=3000&fit=cover&crop=attention"
    "alpha-flatten|mark.png|w=800&fm=jpeg&enlarge=1"
    "frames-gif|animation.gif|anim=1&fm=webp"
    "frames-webp|animation.webp|anim=1&fm=webp"
    "frames-gif-resized|animation.gif|anim=1&fm=webp&w=500"
    "frame-gif-still|animation.gif|w=1000&fm=png"
)
if [ -n "${CASES:-}" ]; then
    selected=()
    for c in "${ALL_CASES[@]}"; do
        for wanted in $CASES; do [ "${c%%|*}" = "$wanted" ] && selected+=("$c"); done
    done
    ALL_CASES=("${selected[@]}")
fi

kib() { awk -v k="$1" '/^'"$1"':/ { print $2 }' "/proc/$2/status"; }
metric() { curl -s "http://127.0.0.1:$PORT/metrics" | awk -v m="$1" '$1 == m { printf "%d\n", $2 }'; }

: > "$BENCH_DIR/empty.yaml"
over=0
printf '%-26s %12s %12s %8s\n' "case" "measured MB" "estimate MB" "margin"
for c in "${ALL_CASES[@]}"; do
    IFS='|' read -r name file query <<< "$c"
    THUMBD_CACHE_MEMORY_BYTES=0 THUMBD_CACHE_DISK_BYTES=0 THUMBD_CACHE_ORIGINALS_MEMORY_BYTES=0 \
    THUMBD_LIMITS_MEMORY_BYTES=8GiB THUMBD_LIMITS_TRANSFORM_MEMORY_BYTES=0 THUMBD_LOGGING_ACCESS=false \
    THUMBD_LIBRARY_DEMO=false THUMBD_PICSUM_ENABLED=false \
        "$BIN" serve --config "$BENCH_DIR/empty.yaml" --host 127.0.0.1 --port "$PORT" --library "$SRC" \
        --cache-dir "$BENCH_DIR/cache-working-memory" 2>> "$BENCH_DIR/thumbd-working-memory.log" &
    pid=$!
    wait_for_port "$PORT"
    url="http://127.0.0.1:$PORT/img/$file?$query"
    first=$(curl -s -o /dev/null -w '%{http_code}' "$url")
    sleep 0.5  # the pool goes idle and hands freed memory back
    echo 5 > "/proc/$pid/clear_refs"
    before=$(kib VmRSS "$pid")
    second=$(curl -s -o /dev/null -w '%{http_code}' "$url")
    peak=$(kib VmHWM "$pid")
    reserved=$(metric thumbd_transform_memory_reserved_bytes_total)
    kill "$pid"
    wait "$pid" 2> /dev/null || true
    if [ "$first" != 200 ] || [ "$second" != 200 ]; then
        printf '%-26s failed: %s %s\n' "$name" "$first" "$second"
        over=1
        continue
    fi
    measured=$(((peak - before) * 1024))
    estimate=$((${reserved:-0} / 2))
    verdict=$(awk -v m="$measured" -v e="$estimate" 'BEGIN { printf "%+.0f%%%s", (e - m) * 100 / (m > 0 ? m : 1), (m > e ? " OVER" : "") }')
    [ "$measured" -gt "$estimate" ] && over=1
    awk -v n="$name" -v m="$measured" -v e="$estimate" -v v="$verdict" 'BEGIN { printf "%-26s %12.1f %12.1f %8s\n", n, m / 1048576, e / 1048576, v }'
done
[ "$over" = 0 ] && echo "every estimate holds" || { echo "some estimate is below what was measured" >&2; exit 1; }
