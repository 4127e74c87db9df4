# A storm of large thumbnail misses, shared by the memory checks (sourced, not run):
# scripts/docker-test.sh (the image under --memory), scripts/memory-test.sh (a process with
# limits.memory_bytes) and bench/memory_storm.sh.

# storm_library DIR: 40 photographs of 1000 to 4350 px wide (Debian's mate-backgrounds,
# resized with their aspect ratios: 16:9, 16:10, 4:3 and 3:2), written once.
storm_library() {
    local dir=$1 i w photo
    [ -f "$dir/p39.jpg" ] && return 0
    mkdir -p "$dir"
    local photos
    mapfile -t photos < <(find /usr/share/backgrounds/mate -iname '*.jpg' | sort)
    [ ${#photos[@]} -gt 0 ] || { echo "no photographs: install mate-backgrounds" >&2; return 1; }
    for i in $(seq 0 39); do
        w=$((1000 + i * 3350 / 39))
        photo=${photos[$((i % ${#photos[@]}))]}
        vips thumbnail "$photo" "$dir/p$(printf %02d "$i").jpg[Q=90,strip]" "$w" --height 100000
    done
}

# storm_urls BASE [PASS] [FORMATS] [WIDTHS]: one URL per photo, width and format (default 360:
# widths 1600, 2400, 3200 x AVIF, JPEG XL, WebP), in an order that mixes photos and sizes;
# pass N asks each width plus N pixels, so every pass is misses again.
storm_urls() {
    local base=$1 pass=${2:-0} formats=${3:-"avif jxl webp"} widths=${4:-"1600 2400 3200"} i w f
    for w in $widths; do
        w=$((w + pass))
        for f in $formats; do
            for i in $(seq 0 39); do
                printf '%s %s/img/p%02d.jpg?w=%s&fm=%s\n' "$(( (i * 7 + w / 800 * 13 + ${#f}) % 97 ))" "$base" "$i" "$w" "$f"
            done
        done
    done | sort -n -s -k1,1 | cut -d' ' -f2
}

# storm_run URLS_FILE CONCURRENCY OUT_FILE [MIN_SECONDS]: CONCURRENCY clients ask the URLs,
# each once, in order; with MIN_SECONDS, after the list they go on with further passes
# (storm_urls BASE 1, 2, ...) until that long has passed. One line per answer in OUT_FILE:
# "status|retry-after|seconds" (status 000: no answer, the connection reset or timed out).
storm_run() {
    local urls=$1 clients=$2 out=$3 min=${4:-0} base client
    base=$(head -1 "$urls" | sed 's|/img/.*||')
    local start=$SECONDS pids=()
    for client in $(seq 0 $((clients - 1))); do
        (
            local pass=0 url
            while :; do
                while read -r url; do
                    [ "$pass" -gt 0 ] && [ $((SECONDS - start)) -ge "$min" ] && break 2
                    curl -s -o /dev/null --max-time 300 -w '%{http_code}|%header{retry-after}|%{time_total}\n' "$url" || true
                done < <(if [ "$pass" = 0 ]; then cat "$urls"; else storm_urls "$base" "$pass"; fi | awk -v c="$clients" -v k="$client" 'NR % c == k')
                pass=$((pass + 1))
                [ $((SECONDS - start)) -ge "$min" ] && break
            done > "$out.$client"
        ) &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$out".* > "$out"
    rm -f "$out".*
}

# storm_summary OUT_FILE: "answers ok unavailable_with_retry_after other lost"
storm_summary() {
    awk -F'|' '{ n++ }
         $1 == "200" { ok++; next }
         $1 == "503" && $2 != "" { busy++; next }
         $1 == "000" { lost++; next }
         { other++ }
         END { printf "%d %d %d %d %d\n", n, ok, busy, other, lost }' "$1"
}
