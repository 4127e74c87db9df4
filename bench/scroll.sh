#!/usr/bin/env bash
# Scrolling a phone grid: thumbd-scroll against the release thumbd, comparing a naive client
# (originals on one serial queue, never cancelled, no cache), ThumbdKit fetching originals, and
# ThumbdKit fetching cell-sized thumbnails, on a modelled phone link (20 Mbit/s shared, 60 ms
# per request, applied in the client: no system settings are touched). The library is a few
# hundred distinct multi-megapixel photos made once from Debian's mate-backgrounds wallpapers
# (crops, flips, rotations, JPEG qualities). Extra arguments go to thumbd-scroll, e.g.
#   bench/scroll.sh --bandwidth-mbit 5 --latency-ms 150
# Results: the table on standard output, the RESULT JSON also in .build/bench/scroll-result.json.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

SCROLL_PORT="${SCROLL_PORT:-18090}"
SCROLL_IMAGES="${SCROLL_IMAGES:-300}"
LIB="$BENCH_DIR/scroll-library"
STAMP="$BENCH_DIR/scroll-library.made"
WORK="$BENCH_DIR/scroll-work"
LIBRARY_VERSION=1  # bump when make_photo changes, so the library is made again
mkdir -p "$BENCH_DIR"

scripts/ensure-deps.sh vips=libvips-tools /usr/share/backgrounds/mate=mate-backgrounds

# make_photo SOURCE J OUT: the J-th copy of SOURCE, distinct from every other: a crop of
# about 80-100% of each side at a place of its own, shrunk to at most 4032 px (a phone
# camera's), flipped every other copy, turned by 0/90/180/270 degrees by turns, and saved at
# its own JPEG quality (qualities repeat only after 26 copies of one source; md5sums are
# checked below anyway).
make_photo() {
    local src=$1 j=$2 out=$3
    local w h
    w=$(vipsheader -f width "$src")
    h=$(vipsheader -f height "$src")
    local cw=$(( w * (100 - (j * 3) % 21) / 100 ))
    local ch=$(( h * (100 - (j * 7) % 23) / 100 ))
    local left=$(( (w - cw) * ((j * 37) % 101) / 100 ))
    local top=$(( (h - ch) * ((j * 53) % 101) / 100 ))
    local quality=$(( 70 + (j * 11) % 26 ))
    local angles=(d0 d90 d180 d270)
    local current="$WORK/crop.v"
    vips extract_area "$src" "$current" "$left" "$top" "$cw" "$ch"
    if [ "$cw" -gt 4032 ] || [ "$ch" -gt 4032 ]; then
        vips thumbnail "$current" "$WORK/small.v" 4032 --height 4032 --size down
        current="$WORK/small.v"
    fi
    if [ $(( j % 2 )) -eq 1 ]; then
        vips flip "$current" "$WORK/flip.v" horizontal
        current="$WORK/flip.v"
    fi
    vips rot "$current" "$out[Q=$quality,strip]" "${angles[$(( (j / 2) % 4 ))]}"
}

if [ ! -d "$LIB" ] || [ "$(cat "$STAMP" 2>/dev/null || true)" != "$LIBRARY_VERSION $SCROLL_IMAGES" ]; then
    mapfile -t sources < <(find /usr/share/backgrounds/mate -iname '*.jpg' | sort)
    if [ ${#sources[@]} -eq 0 ]; then echo "no photos under /usr/share/backgrounds/mate" >&2; exit 1; fi
    echo "making $SCROLL_IMAGES distinct photos from ${#sources[@]} wallpapers in $LIB (once) ..."
    rm -rf "$LIB" "$WORK" "$STAMP"
    mkdir -p "$LIB" "$WORK"
    for i in $(seq 0 $((SCROLL_IMAGES - 1))); do
        make_photo "${sources[i % ${#sources[@]}]}" $((i / ${#sources[@]})) "$(printf '%s/photo-%04d.jpg' "$LIB" "$i")"
        if [ $(( (i + 1) % 50 )) -eq 0 ]; then echo "  $((i + 1)) of $SCROLL_IMAGES"; fi
    done
    rm -rf "$WORK"
    unique=$(find "$LIB" -name '*.jpg' -exec md5sum {} + | awk '{ print $1 }' | sort -u | wc -l)
    if [ "$unique" -ne "$SCROLL_IMAGES" ]; then
        echo "only $unique of $SCROLL_IMAGES photos are distinct" >&2
        exit 1
    fi
    echo "$LIBRARY_VERSION $SCROLL_IMAGES" > "$STAMP"
fi
library_bytes=$(du -sb "$LIB" | cut -f1)
echo "library: $SCROLL_IMAGES photos, $((library_bytes / 1000000)) MB, in $LIB"

# Both products, release (quick when already built: `make bench` has built thumbd).
for product in thumbd thumbd-scroll; do
    if ! swift build -c release --product "$product" > "$BENCH_DIR/scroll-build.log" 2>&1; then
        tail -n 40 "$BENCH_DIR/scroll-build.log" >&2
        exit 1
    fi
done

# A fresh server cache: kit's thumbnails are made during the run, as on a first visit.
rm -rf "$BENCH_DIR/cache-scroll"
${THUMBD_ENV:-} .build/release/thumbd serve --host 127.0.0.1 --port "$SCROLL_PORT" --library "$LIB" --cache-dir "$BENCH_DIR/cache-scroll" \
    > "$BENCH_DIR/thumbd-scroll.log" 2>&1 &
THUMBD_PID=$!
trap 'kill $THUMBD_PID 2>/dev/null || true' EXIT
wait_for_port "$SCROLL_PORT"

.build/release/thumbd-scroll --server "http://127.0.0.1:$SCROLL_PORT" "$@" | tee "$BENCH_DIR/scroll-output.txt"
grep '^RESULT ' "$BENCH_DIR/scroll-output.txt" | sed 's/^RESULT //' > "$BENCH_DIR/scroll-result.json"
