#!/usr/bin/env bash
# Part 8: the S3 library against the folder library, on a real Ceph RGW on loopback
# (scripts/s3-server.sh, started here in $BENCH_DIR/s3 and stopped at the end).
#  1. Thumbnail misses: the photos of bench/thumbnails.sh x 4 sizes x PASSES, each URL once,
#     4 concurrent clients, from a fresh cache: thumbd on the folder, then on a bucket holding
#     the same files (each original fetched once into the originals tier, then shared by its sizes).
#  2. Original downloads: the same photos downloaded DOWNLOADS times each, 4 at a time, through
#     thumbd (`/img/{path}`, passed through to the store into memory, then sent) and straight from
#     radosgw (signed GETs), by the same client (curl).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PASSES="${PASSES:-2}"
DOWNLOADS="${DOWNLOADS:-4}"
THUMBD_PORT="${THUMBD_PORT:-18086}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg *.JPG 2>/dev/null | sort)

export S3_DIR="$BENCH_DIR/s3"
eval "$(scripts/s3-server.sh start)"
THUMBD_PID=
cleanup() {
    [ -n "$THUMBD_PID" ] && kill "$THUMBD_PID" 2>/dev/null && wait "$THUMBD_PID" 2>/dev/null
    scripts/s3-server.sh stop
}
trap cleanup EXIT
signed=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
bucket=bench
curl -sS -f "${signed[@]}" -X PUT "$S3_ENDPOINT/$bucket" -o /dev/null
uploads=()
for n in "${names[@]}"; do uploads+=(-T "$LIB/$n" "$S3_ENDPOINT/$bucket/$n"); done
curl -sS -f --no-progress-meter -Z --parallel-max 8 "${signed[@]}" -o /dev/null "${uploads[@]}" > /dev/null

# serve LIBRARY: a release thumbd on a fresh cache, its pid in THUMBD_PID
serve() {
    rm -rf "$BENCH_DIR/cache-s3"
    THUMBD_LIBRARY_S3_ENDPOINT="$S3_ENDPOINT" THUMBD_S3_ACCESS_KEY="$S3_ACCESS_KEY" THUMBD_S3_SECRET_KEY="$S3_SECRET_KEY" \
        THUMBD_LOGGING_ACCESS=false .build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$1" \
        --cache-dir "$BENCH_DIR/cache-s3" 2>> "$BENCH_DIR/thumbd-s3.log" &
    THUMBD_PID=$!
    wait_for_port "$THUMBD_PORT"
}

stop() {
    kill "$THUMBD_PID"
    wait "$THUMBD_PID" 2>/dev/null || true
    THUMBD_PID=
}

# fetch URLS_FILE -> the elapsed seconds; fails unless every answer is a 200
fetch() {
    local start end codes count ok
    count=$(grep -c '^url' "$1")
    start=$(date +%s.%N)
    codes=$(curl -s --no-progress-meter -Z --parallel-max 4 "${@:2}" -K "$1" -w '%{http_code}\n')
    end=$(date +%s.%N)
    ok=$(grep -c '^200$' <<< "$codes" || true)
    [ "$ok" -eq "$count" ] || { echo "only $ok of $count answers were 200" >&2; return 1; }
    echo "$end - $start" | bc -l
}

thumbnail_urls="$BENCH_DIR/s3-thumb-urls.txt"
miss_urls "$THUMBD_PORT" "$PASSES" "${names[@]}" > "$thumbnail_urls"
thumbnails=$(grep -c '^url' "$thumbnail_urls")

serve "$LIB"
folder_seconds=$(fetch "$thumbnail_urls")
stop
serve "s3://$bucket/"
s3_seconds=$(fetch "$thumbnail_urls")
gets=$(curl -s "http://127.0.0.1:$THUMBD_PORT/metrics" | awk '/^thumbd_s3_requests_total\{operation="get",result="ok"\}/ { print $2 }')

# Originals: through thumbd (still serving the bucket), then straight from radosgw.
through="$BENCH_DIR/s3-through.txt" straight="$BENCH_DIR/s3-straight.txt"
: > "$through"
: > "$straight"
bytes=0
for _ in $(seq 1 "$DOWNLOADS"); do
    for n in "${names[@]}"; do
        printf 'url = "http://127.0.0.1:%s/img/%s"\noutput = "/dev/null"\n' "$THUMBD_PORT" "$n" >> "$through"
        printf 'url = "%s/%s/%s"\noutput = "/dev/null"\n' "$S3_ENDPOINT" "$bucket" "$n" >> "$straight"
        bytes=$((bytes + $(stat -c %s "$LIB/$n")))
    done
done
downloads=$(grep -c '^url' "$through")
through_seconds=$(fetch "$through")
stop
straight_seconds=$(fetch "$straight" "${signed[@]}")

echo "S3 library (Ceph RGW on loopback) against the folder library: ${#names[@]} photos"
echo "thumbnail misses: $thumbnails distinct thumbnails (4 sizes x $PASSES passes), 4 concurrent clients, fresh caches"
printf '%-44s %10.1f thumbnails/s\n' "thumbd on the folder" "$(echo "$thumbnails / $folder_seconds" | bc -l)"
printf '%-44s %10.1f thumbnails/s  (%s originals fetched)\n' "thumbd on the bucket" "$(echo "$thumbnails / $s3_seconds" | bc -l)" "$gets"
printf '%-44s %10.2fx\n' "bucket / folder" "$(echo "$folder_seconds / $s3_seconds" | bc -l)"
echo "original downloads: $downloads downloads ($((bytes / downloads / 1024)) KB on average), 4 at a time"
printf '%-44s %10.1f downloads/s %8.1f MB/s\n' "through thumbd (passed through the store)" \
    "$(echo "$downloads / $through_seconds" | bc -l)" "$(echo "$bytes / $through_seconds / 1048576" | bc -l)"
printf '%-44s %10.1f downloads/s %8.1f MB/s\n' "straight from radosgw" \
    "$(echo "$downloads / $straight_seconds" | bc -l)" "$(echo "$bytes / $straight_seconds / 1048576" | bc -l)"
printf '%-44s %10.2fx\n' "through / straight" "$(echo "$straight_seconds / $through_seconds" | bc -l)"
