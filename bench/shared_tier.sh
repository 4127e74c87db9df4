#!/usr/bin/env bash
# The shared tier (cache.shared.root) on a real Ceph RGW on loopback (scripts/s3-server.sh,
# started here in $BENCH_DIR/tier-s3 and stopped at the end), priced in server CPU (utime +
# stime from /proc, so curl's share of the 2 cores does not count) and in wall time:
#  1. replica A makes THUMBNAILS distinct thumbnails (the bench photos x sizes, JPEG q80,
#     4 clients) and writes each to the shared tier behind its answer;
#  2. replica B, fresh (empty memory and disk, as after a deploy), answers the same URLs from
#     the shared tier: the time for a new replica to warm up, and CPU per shared hit;
#  3. replica C, fresh and without a memory tier, answers them from the shared tier, then again
#     from its disk tier: CPU per disk hit beside a shared hit, on the same process.
# Run after `swift build -c release --product thumbd`.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

THUMBNAILS="${THUMBNAILS:-1000}"
PORT="${PORT:-18400}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)

export S3_DIR="$BENCH_DIR/tier-s3"
eval "$(scripts/s3-server.sh start)"
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    scripts/s3-server.sh stop
}
trap cleanup EXIT
signed=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
curl -sS -f "${signed[@]}" -X PUT "$S3_ENDPOINT/tier" -o /dev/null

# THUMBNAILS URLs: every photo at widths 100, 104, ... until there are enough.
urls="$BENCH_DIR/tier-urls.txt"
: > "$urls"
count=0 width=100
while [ "$count" -lt "$THUMBNAILS" ]; do
    for n in "${names[@]}"; do
        [ "$count" -lt "$THUMBNAILS" ] || break
        printf 'url = "http://127.0.0.1:%s/img/%s?w=%d&fm=jpeg&q=80"\noutput = "/dev/null"\n' "$PORT" "$n" "$width" >> "$urls"
        count=$((count + 1))
    done
    width=$((width + 4))
done

# serve NAME [THUMBD_*=...]: a release thumbd on a fresh cache with the shared tier on
serve() {
    local name=$1
    shift
    rm -rf "$BENCH_DIR/tier-cache-$name"
    env THUMBD_CACHE_SHARED_ROOT="s3://tier/thumbs/" THUMBD_LIBRARY_S3_ENDPOINT="$S3_ENDPOINT" \
        THUMBD_S3_ACCESS_KEY="$S3_ACCESS_KEY" THUMBD_S3_SECRET_KEY="$S3_SECRET_KEY" THUMBD_LOGGING_ACCESS=false "$@" \
        .build/release/thumbd serve --host 127.0.0.1 --port "$PORT" --library "$LIB" --cache-dir "$BENCH_DIR/tier-cache-$name" \
        2>> "$BENCH_DIR/tier-$name.log" &
    pid=$!
    wait_for_port "$PORT"
}

stop() {
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
}

metric() {  # metric NAME LABELS: the value of one series on the running replica
    curl -s "http://127.0.0.1:$PORT/metrics" | awk -v series="$1{$2}" '$1 == series { print $2 }'
}

# pass TIER: every URL once, 4 at a time; prints "seconds cpu-ms-per-request"; fails unless
# every answer is a 200 from TIER
pass() {
    local start end before after answers
    before=$(cpu_ticks "$pid")
    start=$(date +%s.%N)
    answers=$(curl -s --no-progress-meter -Z --parallel-max 4 -K "$urls" -w '%{http_code} %header{x-cache}\n')
    end=$(date +%s.%N)
    after=$(cpu_ticks "$pid")
    local good
    good=$(grep -c "^200 $1\$" <<< "$answers" || true)
    [ "$good" -eq "$THUMBNAILS" ] || { echo "only $good of $THUMBNAILS answers were 200 from $1: $(sort <<< "$answers" | uniq -c | head -3)" >&2; return 1; }
    echo "$(echo "$end - $start" | bc -l) $(echo "($after - $before) * 1000 / $TICK / $THUMBNAILS" | bc -l)"
}

serve a
read -r make_seconds make_cpu <<< "$(pass miss)"
for _ in $(seq 1 600); do
    [ "$(metric thumbd_cache_writes_total 'tier="shared"')" = "$THUMBNAILS" ] && break
    sleep 0.1
done
written=$(metric thumbd_cache_writes_total 'tier="shared"')
stop

serve b
read -r warm_seconds shared_cpu <<< "$(pass shared)"
stop

serve c THUMBD_CACHE_MEMORY_BYTES=0
read -r _ shared_cpu_c <<< "$(pass shared)"
read -r disk_seconds disk_cpu <<< "$(pass disk)"
stop

printf 'shared tier, %d thumbnails of %d photos (JPEG q80), 4 clients, Ceph RGW on loopback\n' "$THUMBNAILS" "${#names[@]}"
printf '  replica A makes them:            %6.1f s, %7.3f ms CPU per thumbnail (%s written to the tier)\n' "$make_seconds" "$make_cpu" "$written"
printf '  fresh replica B, from the tier:  %6.1f s, %7.3f ms CPU per shared hit (%.1fx faster than making them)\n' \
    "$warm_seconds" "$shared_cpu" "$(echo "$make_seconds / $warm_seconds" | bc -l)"
printf '  replica C (no memory tier):      shared hit %.3f ms CPU, disk hit %.3f ms CPU (%.1f s for all)\n' \
    "$shared_cpu_c" "$disk_cpu" "$disk_seconds"
