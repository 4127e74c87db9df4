#!/usr/bin/env bash
# Part 8: the S3 library against the folder library, on a real Ceph RGW on loopback
# (scripts/s3-server.sh, started here in $BENCH_DIR/s3 and stopped at the end).
#  1. Thumbnail misses: the photos of bench/thumbnails.sh x 4 sizes x PASSES, each URL once,
#     4 concurrent clients, from a fresh cache: thumbd on the folder, then on a bucket holding
#     the same files (each original fetched once into the originals tier, then shared by its sizes).
#  2. Original downloads: the same photos downloaded DOWNLOADS times each, 4 at a time, through
#     thumbd (`/img/{path}`, streamed from the store as it sends), straight from radosgw
#     (signed GETs) and through nginx as a plain streaming proxy in front of radosgw (the same
#     signed GETs; what any proxy on these cores costs), by the same client (curl), ROUNDS
#     times alternately; medians.
#  3. A LARGE_MB object (200 MB) downloaded 4 at a time through a fresh thumbd and straight from
#     radosgw: the throughput, and thumbd's resident memory before and at its peak (VmHWM), which
#     must not grow with the object (each download holds a bounded buffer).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PASSES="${PASSES:-2}"
DOWNLOADS="${DOWNLOADS:-4}"
ROUNDS="${ROUNDS:-3}"
LARGE_MB="${LARGE_MB:-200}"
THUMBD_PORT="${THUMBD_PORT:-18086}"
NGINX_PORT="${NGINX_PORT:-18087}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg *.JPG 2>/dev/null | sort)

export S3_DIR="$BENCH_DIR/s3"
eval "$(scripts/s3-server.sh start)"
THUMBD_PID=
cleanup() {
    [ -n "$THUMBD_PID" ] && kill "$THUMBD_PID" 2>/dev/null && wait "$THUMBD_PID" 2>/dev/null
    stop_nginx
    scripts/s3-server.sh stop
}
trap cleanup EXIT
signed=(--aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
bucket=bench
curl -sS -f "${signed[@]}" -X PUT "$S3_ENDPOINT/$bucket" -o /dev/null
uploads=()
for n in "${names[@]}"; do uploads+=(-T "$LIB/$n" "$S3_ENDPOINT/$bucket/$n"); done
curl -sS -f --no-progress-meter -Z --parallel-max 8 "${signed[@]}" -o /dev/null "${uploads[@]}" > /dev/null

# serve LIBRARY [NAME=VALUE...]: a release thumbd on a fresh cache, with those variables too, its pid in THUMBD_PID
serve() {
    rm -rf "$BENCH_DIR/cache-s3"
    env THUMBD_LIBRARY_S3_ENDPOINT="$S3_ENDPOINT" THUMBD_S3_ACCESS_KEY="$S3_ACCESS_KEY" THUMBD_S3_SECRET_KEY="$S3_SECRET_KEY" \
        THUMBD_LOGGING_ACCESS=false "${@:2}" .build/release/thumbd serve --host 127.0.0.1 --port "$THUMBD_PORT" --library "$1" \
        --cache-dir "$BENCH_DIR/cache-s3" 2>> "$BENCH_DIR/thumbd-s3.log" &
    THUMBD_PID=$!
    wait_for_port "$THUMBD_PORT"
}

stop() {
    kill "$THUMBD_PID"
    wait "$THUMBD_PID" 2>/dev/null || true
    THUMBD_PID=
}


thumbnail_urls="$BENCH_DIR/s3-thumb-urls.txt"
miss_urls "$THUMBD_PORT" "$PASSES" "${names[@]}" > "$thumbnail_urls"
thumbnails=$(grep -c '^url' "$thumbnail_urls")

serve "$LIB"
folder_seconds=$(fetch_all "$thumbnail_urls")
stop
serve "s3://$bucket/"
s3_seconds=$(fetch_all "$thumbnail_urls")
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
# nginx as a streaming proxy (keep-alive to the store, 64 KiB buffers in memory and never a
# temporary file, no access log, as thumbd runs here): the same signed GETs, whose Host it
# passes on, so radosgw checks the same signature.
proxied="$BENCH_DIR/s3-proxied.txt"
sed "s|$S3_ENDPOINT|http://127.0.0.1:$NGINX_PORT|" "$straight" > "$proxied"
run_nginx nginx-s3 "$NGINX_PORT" "    access_log off;
    upstream rgw { server ${S3_ENDPOINT#http://}; keepalive 16; }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location / {
            proxy_pass http://rgw;
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host \$http_host;
            proxy_buffer_size 64k;
            proxy_buffers 16 64k;
            proxy_busy_buffers_size 128k;
            proxy_max_temp_file_size 0;
        }
    }"
nginx_ticks() { tree_ticks "$(cat "$NGINX_PREFIX/nginx.pid")"; }
# The store's CPU (radosgw and the memstore OSD) and thumbd's, per phase, from /proc.
store_ticks() { echo $(( $(cpu_ticks "$(cat "$S3_DIR/rgw.pid")") + $(cpu_ticks "$(cat "$S3_DIR/osd.pid")") )); }
through_runs=() straight_runs=() proxied_runs=()
through_store=0 through_thumbd=0 straight_store=0 proxied_store=0 proxied_nginx=0
for _ in $(seq 1 "$ROUNDS"); do
    s0=$(store_ticks) t0=$(cpu_ticks "$THUMBD_PID")
    through_runs+=("$(fetch_all "$through")")
    s1=$(store_ticks) t1=$(cpu_ticks "$THUMBD_PID")
    straight_runs+=("$(fetch_all "$straight" "${signed[@]}")")
    s2=$(store_ticks) n2=$(nginx_ticks)
    proxied_runs+=("$(fetch_all "$proxied" "${signed[@]}")")
    s3=$(store_ticks) n3=$(nginx_ticks)
    through_store=$((through_store + s1 - s0)) through_thumbd=$((through_thumbd + t1 - t0)) straight_store=$((straight_store + s2 - s1))
    proxied_store=$((proxied_store + s3 - s2)) proxied_nginx=$((proxied_nginx + n3 - n2))
done
stop_nginx
# ms of CPU per MB sent, over every round
per_mb() { echo "$1 * 1000 / $TICK / ($bytes * $ROUNDS / 1048576)" | bc -l; }
stop
through_seconds=$(median "${through_runs[@]}")
straight_seconds=$(median "${straight_runs[@]}")
proxied_seconds=$(median "${proxied_runs[@]}")

# The large object: JPEG's magic then random bytes (passed through, never decoded).
large="$BENCH_DIR/large.jpg"
{ printf '\xff\xd8\xff\xe0'; head -c $((LARGE_MB * 1048576 - 4)) /dev/urandom; } > "$large"
curl -sS -f "${signed[@]}" -T "$large" "$S3_ENDPOINT/$bucket/large.jpg" -o /dev/null
large_bytes=$(stat -c %s "$large")
rm -f "$large"
serve "s3://$bucket/" THUMBD_LIMITS_MAX_SOURCE_BYTES=$(( (LARGE_MB + 16) * 1048576 ))
large_through="$BENCH_DIR/s3-large-through.txt" large_straight="$BENCH_DIR/s3-large-straight.txt"
: > "$large_through"
: > "$large_straight"
for _ in 1 2 3 4; do
    printf 'url = "http://127.0.0.1:%s/img/large.jpg"\noutput = "/dev/null"\n' "$THUMBD_PORT" >> "$large_through"
    printf 'url = "%s/%s/large.jpg"\noutput = "/dev/null"\n' "$S3_ENDPOINT" "$bucket" >> "$large_straight"
done
# Resident memory sampled every 20 ms while the downloads run (VmHWM would also count what
# the start did).
rss_before=$(awk '/^VmRSS/ { print $2 }' "/proc/$THUMBD_PID/status")
rm -f "$BENCH_DIR/s3-large-done" "$BENCH_DIR/s3-large-peak"
( peak=0; while kill -0 "$THUMBD_PID" 2>/dev/null && [ ! -e "$BENCH_DIR/s3-large-done" ]; do
    now=$(awk '/^VmRSS/ { print $2 }' "/proc/$THUMBD_PID/status" 2>/dev/null || echo 0)
    [ "${now:-0}" -gt "$peak" ] && peak=$now && echo "$peak" > "$BENCH_DIR/s3-large-peak"
    sleep 0.02
  done ) &
sampler=$!
large_through_seconds=$(fetch_all "$large_through")
touch "$BENCH_DIR/s3-large-done"
wait "$sampler"
rss_peak=$(cat "$BENCH_DIR/s3-large-peak")
stop
large_straight_seconds=$(fetch_all "$large_straight" "${signed[@]}")

echo "S3 library (Ceph RGW on loopback) against the folder library: ${#names[@]} photos"
echo "thumbnail misses: $thumbnails distinct thumbnails (4 sizes x $PASSES passes), 4 concurrent clients, fresh caches"
printf '%-44s %10.1f thumbnails/s\n' "thumbd on the folder" "$(echo "$thumbnails / $folder_seconds" | bc -l)"
printf '%-44s %10.1f thumbnails/s  (%s originals fetched)\n' "thumbd on the bucket" "$(echo "$thumbnails / $s3_seconds" | bc -l)" "$gets"
printf '%-44s %10.2fx\n' "bucket / folder" "$(echo "$folder_seconds / $s3_seconds" | bc -l)"
echo "original downloads: $downloads downloads ($((bytes / downloads / 1024)) KB on average), 4 at a time, median of $ROUNDS alternating rounds"
printf '%-44s %10.1f downloads/s %8.1f MB/s\n' "through thumbd (streamed from the store)" \
    "$(echo "$downloads / $through_seconds" | bc -l)" "$(echo "$bytes / $through_seconds / 1048576" | bc -l)"
printf '%-44s %10.1f downloads/s %8.1f MB/s\n' "straight from radosgw" \
    "$(echo "$downloads / $straight_seconds" | bc -l)" "$(echo "$bytes / $straight_seconds / 1048576" | bc -l)"
printf '%-44s %10.1f downloads/s %8.1f MB/s\n' "through nginx (a streaming proxy)" \
    "$(echo "$downloads / $proxied_seconds" | bc -l)" "$(echo "$bytes / $proxied_seconds / 1048576" | bc -l)"
printf '%-44s %10.2fx  (target >= 0.9x; nginx %.2fx)\n' "through / straight" "$(echo "$straight_seconds / $through_seconds" | bc -l)" \
    "$(echo "$straight_seconds / $proxied_seconds" | bc -l)"
printf '%-44s %10.2f ms store + %.2f ms thumbd through it, %.2f ms store straight, %.2f ms store + %.2f ms nginx proxied\n' \
    "CPU per MB sent" "$(per_mb "$through_store")" "$(per_mb "$through_thumbd")" "$(per_mb "$straight_store")" \
    "$(per_mb "$proxied_store")" "$(per_mb "$proxied_nginx")"
echo "a $LARGE_MB MB original, 4 downloads at a time"
printf '%-44s %10.1f MB/s\n' "through thumbd" "$(echo "4 * $large_bytes / $large_through_seconds / 1048576" | bc -l)"
printf '%-44s %10.1f MB/s\n' "straight from radosgw" "$(echo "4 * $large_bytes / $large_straight_seconds / 1048576" | bc -l)"
printf '%-44s %10.2fx\n' "through / straight" "$(echo "$large_straight_seconds / $large_through_seconds" | bc -l)"
printf '%-44s %10.1f MB before, %.1f MB at most while sending (+%.1f MB for %d MB sent)\n' "thumbd resident memory" \
    "$(echo "$rss_before / 1024" | bc -l)" "$(echo "$rss_peak / 1024" | bc -l)" "$(echo "($rss_peak - $rss_before) / 1024" | bc -l)" \
    "$((4 * large_bytes / 1048576))"
