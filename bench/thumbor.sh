#!/usr/bin/env bash
# Distinct-thumbnail misses beside thumbor (issue 35's guard: thumbd >= 1.5x thumbor's
# throughput). thumbor 7.7.7 from PyPI (installed here into $BENCH_DIR/thumbor-venv), its file
# loader on the benchmark photos, no storage and no result storage, JPEG quality 80, one
# process per core; its URLs crop to fill as `fit=cover` does (/unsafe/WxH/photo.jpg). thumbd
# on a fresh cache with the same photos and sizes (bench/lib.sh's miss_urls). Each URL once,
# 4 concurrent clients (curl), ROUNDS alternating rounds with fresh servers; medians of the
# throughput and of the servers' own CPU per thumbnail (/proc, every process).
# PHOTOS=small runs over the photographs resized to 1,000-1,600 px (bench_small_photos).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PASSES="${PASSES:-2}"
ROUNDS="${ROUNDS:-3}"
THUMBD_PORT="${THUMBD_PORT:-18088}"
THUMBOR_PORT="${THUMBOR_PORT:-18089}"
if [ "${PHOTOS:-}" = small ]; then LIB=$(bench_small_photos); else LIB=$(bench_photos); fi
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)

venv="$BENCH_DIR/thumbor-venv"
if [ ! -x "$venv/bin/thumbor" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "thumbor==7.7.7"
fi
cat > "$BENCH_DIR/thumbor.conf" <<CONF
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = '$LIB'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = 80
ALLOW_UNSAFE_URL = True
MAX_WIDTH = 0
MAX_HEIGHT = 0
CONF

# URLS for thumbor: the sizes of miss_urls, cropped to fill.
thumbor_urls="$BENCH_DIR/thumbor-urls.txt"
: > "$thumbor_urls"
for pass in $(seq 0 $((PASSES - 1))); do
    for n in "${names[@]}"; do
        for size in "150 150" "300 300" "300 200" "640 480"; do
            read -r w h <<< "$size"
            printf 'url = "http://127.0.0.1:%s/unsafe/%dx%d/%s"\noutput = "/dev/null"\n' "$THUMBOR_PORT" $((w + pass)) $((h + pass)) "$n" >> "$thumbor_urls"
        done
    done
done
thumbd_urls="$BENCH_DIR/thumbor-thumbd-urls.txt"
miss_urls "$THUMBD_PORT" "$PASSES" "${names[@]}" > "$thumbd_urls"
count=$(grep -c '^url' "$thumbd_urls")

SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && pkill -P "$SERVER_PID" 2>/dev/null; [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null
    remove_fresh_caches cache-thumbor-bench
}
trap cleanup EXIT

# run URLS_FILE -> "seconds cpu_ticks"; every answer must be a 200
run() {
    local seconds t0 t1
    t0=$(tree_ticks "$SERVER_PID")
    seconds=$(fetch_all "$1")
    t1=$(tree_ticks "$SERVER_PID")
    echo "$seconds $((t1 - t0))"
}

thumbd_rates=() thumbd_cpu=() thumbor_rates=() thumbor_cpu=()
for _ in $(seq 1 "$ROUNDS"); do
    cache=$(fresh_cache cache-thumbor-bench)
    .build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$LIB" \
        --cache-dir "$cache" 2> "$BENCH_DIR/thumbd-thumbor.log" &
    SERVER_PID=$!
    wait_for_port "$THUMBD_PORT"
    read -r seconds used < <(run "$thumbd_urls")
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true
    thumbd_rates+=("$(echo "$count / $seconds" | bc -l)")
    thumbd_cpu+=("$(echo "$used * 1000 / $TICK / $count" | bc -l)")

    "$venv/bin/thumbor" -i 127.0.0.1 -p "$THUMBOR_PORT" -c "$BENCH_DIR/thumbor.conf" --processes 0 -l error \
        2> "$BENCH_DIR/thumbor.log" &
    SERVER_PID=$!
    wait_for_port "$THUMBOR_PORT"
    sleep 1  # its workers are forked after the port is bound
    read -r seconds used < <(run "$thumbor_urls")
    pkill -P "$SERVER_PID" 2>/dev/null || true
    kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    thumbor_rates+=("$(echo "$count / $seconds" | bc -l)")
    thumbor_cpu+=("$(echo "$used * 1000 / $TICK / $count" | bc -l)")
done

thumbd_rate=$(median "${thumbd_rates[@]}") thumbor_rate=$(median "${thumbor_rates[@]}")
echo "misses beside thumbor 7.7.7 (Pillow): ${#names[@]} ${PHOTOS:+$PHOTOS }photos x 4 sizes x $PASSES passes = $count distinct thumbnails, 4 concurrent clients, medians of $ROUNDS rounds"
printf '%-34s %10.1f thumbnails/s %8.1f ms CPU each\n' "thumbd" "$thumbd_rate" "$(median "${thumbd_cpu[@]}")"
printf '%-34s %10.1f thumbnails/s %8.1f ms CPU each\n' "thumbor (one process per core)" "$thumbor_rate" "$(median "${thumbor_cpu[@]}")"
printf '%-34s %10.2fx  (guard: >= 1.5x)\n' "thumbd / thumbor" "$(echo "$thumbd_rate / $thumbor_rate" | bc -l)"
