#!/usr/bin/env bash
# SVG and PDF thumbnails priced in CPU, drawn out of process (this build: renderer processes,
# with the warm pool at 1 and at 2) against in process: 07dbbd4 for SVG (the last build that
# drew SVG in the server), 44b2d79 for PDF (the last that drew PDF there). Ordinary
# documents from Debian's packages: 24 icons of tango-icon-theme (SVG, paths, gradients) and
# the first 4 pages of two manuals (shared-mime-info's specification, libtasn1's manual), each
# at 150, 300 and 600 px wide as WebP q80, asked once each by 2 concurrent clients against a
# fresh cache after one warm-up request. CPU per thumbnail is the server's and its
# renderers' (family_ticks: /proc of the server, its live children and those it reaped), so
# a renderer's work is never left out; ROUNDS alternating rounds, medians.
# Target (issue 50): out of process at most 1.3x in process for ordinary documents.
#   bench/vectors.sh      SVG_REFERENCE=07dbbd4 PDF_REFERENCE=44b2d79 by default; KINDS="pdf" runs one kind
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

scripts/ensure-deps.sh /usr/share/icons/Tango=tango-icon-theme /usr/share/doc/libtasn1-doc/libtasn1.pdf=libtasn1-doc \
    /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf=shared-mime-info
PORT="${PORT:-18340}"
SVG_REFERENCE="${SVG_REFERENCE:-07dbbd4}"
PDF_REFERENCE="${PDF_REFERENCE:-44b2d79}"
KINDS="${KINDS:-svg pdf}"
[ -x .build/release/thumbd ] || swift build -c release --product thumbd > /dev/null
listed=$(REFERENCES="$SVG_REFERENCE $PDF_REFERENCE" bench_builds)
mapfile -t builds <<< "$listed"

LIB="$BENCH_DIR/vectors"
rm -rf "$LIB" && mkdir -p "$LIB/svg" "$LIB/pdf"
mapfile -t icons < <(find /usr/share/icons/Tango/scalable -name '*.svg' | sort | awk 'NR % 9 == 1' | head -24)
for icon in "${icons[@]}"; do cp -L "$icon" "$LIB/svg/$(basename "$(dirname "$icon")")-$(basename "$icon")"; done
cp -L /usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf "$LIB/pdf/spec.pdf"
cp -L /usr/share/doc/libtasn1-doc/libtasn1.pdf "$LIB/pdf/manual.pdf"
cp -L /usr/share/icons/Tango/scalable/apps/help-browser.svg "$LIB/warm.svg" 2>/dev/null || cp -L "${icons[0]}" "$LIB/warm.svg"

# urls KIND: curl -K lines for every document of KIND at every size
urls() {
    local size f page
    for size in 150 300 600; do
        if [ "$1" = svg ]; then
            for f in "$LIB"/svg/*.svg; do
                printf 'url = "http://127.0.0.1:%s/img/svg/%s?w=%d&fm=webp&q=80"\noutput = "/dev/null"\n' "$PORT" "$(basename "$f")" "$size"
            done
        else
            for f in spec manual; do
                for page in 1 2 3 4; do
                    printf 'url = "http://127.0.0.1:%s/img/pdf/%s.pdf?w=%d&page=%d&fm=webp&q=80"\noutput = "/dev/null"\n' "$PORT" "$f" "$size" "$page"
                done
            done
        fi
    done
}
urls svg > "$BENCH_DIR/vector-urls-svg"
urls pdf > "$BENCH_DIR/vector-urls-pdf"

pid=0
trap 'kill $pid 2>/dev/null || true; remove_fresh_caches vector-cache' EXIT
# run LABEL BINARY CONFIG KIND RENDERERS -> CPU ms per thumbnail
run() {
    local cache count before after codes ok
    cache=$(fresh_cache vector-cache)
    THUMBD_LIMITS_VECTOR_RENDERERS="$5" THUMBD_LOGGING_ACCESS=false THUMBD_LIBRARY_DEMO=false \
        "$2" serve --config "$3" --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$cache" \
        2> "$BENCH_DIR/vectors-$1.log" &
    pid=$!
    wait_for_port "$PORT"
    curl -s -o /dev/null "http://127.0.0.1:$PORT/img/warm.svg?w=64&fm=webp"
    curl -s -o /dev/null "http://127.0.0.1:$PORT/img/pdf/spec.pdf?w=64&page=9&fm=webp"
    count=$(grep -c '^url' "$BENCH_DIR/vector-urls-$4")
    before=$(family_ticks "$pid")
    codes=$(curl -s --no-progress-meter -Z --parallel-max 2 -K "$BENCH_DIR/vector-urls-$4" -w '%{http_code}\n')
    after=$(family_ticks "$pid")
    ok=$(grep -c '^200$' <<< "$codes" || true)
    kill "$pid"; wait "$pid" 2>/dev/null || true
    [ "$ok" -eq "$count" ] || { echo "$1 $4: only $ok of $count thumbnails were 200 (see $BENCH_DIR/vectors-$1.log)" >&2; exit 1; }
    echo "($after - $before) * 1000 / $TICK / $count" | bc -l
}

declare -A cpu
for _ in $(seq 1 "$ROUNDS"); do
    for entry in "${builds[@]}"; do
        IFS== read -r label binary config <<< "$entry"
        for kind in $KINDS; do
            case "$label" in
            current)
                for renderers in 1 2; do
                    cpu[$kind-current-$renderers]+="$(run "current-$renderers" "$binary" "$config" "$kind" "$renderers") "
                done ;;
            "$SVG_REFERENCE") [ "$kind" = svg ] && cpu[svg-in]+="$(run "$label" "$binary" "$config" svg 1) " ;;
            "$PDF_REFERENCE") [ "$kind" = pdf ] && cpu[pdf-in]+="$(run "$label" "$binary" "$config" pdf 1) " ;;
            esac
        done
    done
done

echo "vectors: CPU ms per thumbnail (server and renderers), 2 clients, $ROUNDS alternating rounds, medians (spread)"
echo "  ${#icons[@]} SVG icons (tango-icon-theme) and 8 PDF pages (2 manuals, pages 1-4), each at 150/300/600 px, WebP q80"
printf '%-46s %10s %14s %8s\n' "" "CPU ms" "spread" "ratio"
for kind in $KINDS; do
    reference=$([ "$kind" = svg ] && echo "$SVG_REFERENCE" || echo "$PDF_REFERENCE")
    inside=$(median ${cpu[$kind-in]})
    printf '%-46s %10.1f %14s %8s\n' "$kind in process ($reference)" "$inside" "$(spread ${cpu[$kind-in]} | awk '{ printf "%.1f-%.1f", $1, $2 }')" "1.00x"
    for renderers in 1 2; do
        out=$(median ${cpu[$kind-current-$renderers]})
        printf '%-46s %10.1f %14s %7.2fx\n' "$kind out of process, vector_renderers $renderers" "$out" \
            "$(spread ${cpu[$kind-current-$renderers]} | awk '{ printf "%.1f-%.1f", $1, $2 }')" "$(echo "$out / $inside" | bc -l)"
    done
done
