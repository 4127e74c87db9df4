#!/usr/bin/env bash
# Thumbnail misses priced in server CPU: every photo at 4 sizes (fit=cover, JPEG q80), each
# URL asked once by 4 concurrent clients against a fresh cache, for this build and any earlier
# builds named in REFERENCES (built once in worktrees), in alternating rounds; beside them the
# compute limit, libvips called in-process on 2 threads over the same files and sizes
# (bench/vips_limit.c). The server's CPU per thumbnail comes from /proc over the run, so the
# load generator does not count against it.
#   REFERENCES="fd5154e" bench/miss_cpu.sh
# PHOTOS=small runs over the photographs resized to 1,000-1,600 px (bench_small_photos),
# where a fixed cost per miss outside libvips shows (issue 35). PHOTOS=corpus runs over the 40
# photographs of bench/corpus.sh (issue 55: mixed sizes, many progressive) and prints, per
# photograph, thumbd's CPU beside the loop's: thumbd's from its threads' run time
# (/proc/PID/task/*/schedstat) around each photograph's thumbnails, the loop's from a run of
# its own over that photograph on one thread.
# Target (issue 25): thumbd's CPU per thumbnail within 1/0.95 of the C loop's. The last column
# is the median of each round's ratio to the loop run right after it, with its range.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PASSES="${PASSES:-2}"
PORT="${PORT:-18320}"
case "${PHOTOS:-}" in
    small) LIB=$(bench_small_photos) ;;
    corpus) LIB=$(bench/corpus.sh "$BENCH_DIR/corpus") ;;
    *) LIB=$(bench_photos) ;;
esac
PER_PHOTO="${PER_PHOTO:-$([ "${PHOTOS:-}" = corpus ] && echo 1 || echo 0)}"
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)
build_vips_limit

# A revision that does not build stops the benchmark (set -e sees the substitution fail).
listed=$(bench_builds)
mapfile -t builds <<< "$listed"

urls="$BENCH_DIR/miss-urls"
miss_urls "$PORT" "$PASSES" "${names[@]}" > "$urls"
count=$(grep -c '^url' "$urls")

pid=0
trap 'kill $pid 2>/dev/null || true; remove_fresh_caches miss-cache' EXIT
# run_ns PID: nanoseconds the process's threads have run (finer than /proc/PID/stat's ticks)
run_ns() {
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%.0f\n", t }'
}
declare -A rate cpu peak ratio round_cpu photo_cpu
for _ in $(seq 1 "$ROUNDS"); do
    for entry in "${builds[@]}"; do
        IFS== read -r label binary config <<< "$entry"
        cache=$(fresh_cache miss-cache)
        "$binary" serve --config "$config" --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$cache" \
            2> "$BENCH_DIR/miss-$label.log" &
        pid=$!
        wait_for_port "$PORT"
        read -r u0 s0 < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12, $13 }')
        start=$(date +%s.%N)
        if [ "$PER_PHOTO" = 1 ]; then
            # One photograph's thumbnails at a time, 4 at once, timed on the server's threads.
            codes=""
            for name in "${names[@]}"; do
                grep -A1 -F "/img/$name?" "$urls" | grep -v '^--$' > "$BENCH_DIR/miss-photo-urls"
                t0=$(run_ns "$pid")
                codes+=$(curl -s --no-progress-meter -Z --parallel-max 4 -K "$BENCH_DIR/miss-photo-urls" -w '%{http_code}\n')$'\n'
                t1=$(run_ns "$pid")
                photo_cpu[$label/$name]+="$(( (t1 - t0) / 1000 )) "
            done
        else
            codes=$(curl -s --no-progress-meter -Z --parallel-max 4 -K "$urls" -w '%{http_code}\n')
        fi
        end=$(date +%s.%N)
        read -r u1 s1 < <(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12, $13 }')
        ok=$(grep -c '^200$' <<< "$codes" || true)
        [ "$ok" -eq "$count" ] || { echo "$label: only $ok of $count thumbnails were 200" >&2; exit 1; }
        rate[$label]+="$(echo "$count / ($end - $start)" | bc -l) "
        round_cpu[$label]=$(echo "($u1 + $s1 - $u0 - $s0) * 1000 / $TICK / $count" | bc -l)
        cpu[$label]+="${round_cpu[$label]} "
        peak[$label]+="$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$pid/status") "
        kill "$pid"; wait "$pid" 2>/dev/null || true
    done
    read -r n seconds cpu_seconds < <("$BENCH_DIR/vips_limit" 2 "$PASSES" "${names[@]/#/$LIB/}")
    if [ "$PER_PHOTO" = 1 ]; then
        # The loop per photograph: one thread, the process's CPU over that photograph's jobs.
        for name in "${names[@]}"; do
            read -r _ _ spent < <("$BENCH_DIR/vips_limit" 1 "$PASSES" "$LIB/$name")
            photo_cpu[limit/$name]+="$(echo "$spent * 1000000" | bc -l) "
        done
    fi
    rate[limit]+="$(echo "$n / $seconds" | bc -l) "
    limit_round=$(echo "$cpu_seconds * 1000 / $n" | bc -l)
    cpu[limit]+="$limit_round "
    # Each build's ratio to the loop of its own round: the shared machine drifts by more than
    # the difference measured, and a pair of neighbouring runs drifts least.
    for entry in "${builds[@]}"; do
        label=${entry%%=*}
        ratio[$label]+="$(echo "$limit_round / ${round_cpu[$label]}" | bc -l) "
    done
done

echo "thumbnail misses: ${#names[@]} ${PHOTOS:+$PHOTOS }photos x 4 sizes x $PASSES passes = $count distinct, fit=cover, JPEG q80, 4 clients; $ROUNDS alternating rounds, medians"
printf '%-28s %14s %16s %12s %10s %22s\n' "" "thumbnails/s" "CPU ms/thumb" "limit/CPU" "peak MB" "per round (min-max)"
limit_cpu=$(median ${cpu[limit]})
for entry in "${builds[@]}"; do
    label=${entry%%=*}
    c=$(median ${cpu[$label]})
    read -r low high < <(spread ${ratio[$label]})
    printf '%-28s %14.1f %16.2f %11.2fx %10.0f %10.2fx (%.2f-%.2f)\n' "thumbd $label" "$(median ${rate[$label]})" "$c" \
        "$(echo "$limit_cpu / $c" | bc -l)" "$(median ${peak[$label]})" "$(median ${ratio[$label]})" "$low" "$high"
done
printf '%-28s %14.1f %16.2f %11.2fx\n' "libvips C loop (2 threads)" "$(median ${rate[limit]})" "$limit_cpu" 1

if [ "$PER_PHOTO" = 1 ]; then
    # Per photograph, each thumbnail's CPU (ms, medians of the rounds) and the loop's over it.
    echo
    echo "per photograph: CPU ms per thumbnail (4 sizes x $PASSES passes), medians of $ROUNDS rounds; lowest ratio first"
    printf '%-24s %11s %3s %10s' photograph size prg loop
    for entry in "${builds[@]}"; do printf ' %14s %8s' "${entry%%=*}" "loop/x"; done
    echo
    per=$((4 * PASSES))
    for name in "${names[@]}"; do
        size=$(vipsheader -f width "$LIB/$name")x$(vipsheader -f height "$LIB/$name")
        prg=$(vipsheader -f interlaced "$LIB/$name" 2>/dev/null | grep -q 1 && echo yes || echo no)
        loop=$(echo "$(median ${photo_cpu[limit/$name]}) / 1000 / $per" | bc -l)
        line=$(printf '%-24s %11s %3s %10.2f' "$name" "$size" "$prg" "$loop")
        first=""
        for entry in "${builds[@]}"; do
            label=${entry%%=*}
            c=$(echo "$(median ${photo_cpu[$label/$name]}) / 1000 / $per" | bc -l)
            r=$(echo "$loop / $c" | bc -l)
            [ -n "$first" ] || first=$r
            line+=$(printf ' %14.2f %7.2fx' "$c" "$r")
        done
        echo "$first $line"
    done | sort -g | cut -d' ' -f2-
fi
