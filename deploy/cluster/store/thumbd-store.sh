#!/usr/bin/env bash
# The store container's entry point.
#   thumbd-store run               start (or restart) the single-node Ceph in /var/lib/thumbd-store,
#                                  make the buckets in S3_BUCKETS, serve S3 on :7480 until SIGTERM
#   thumbd-store health            exits 0 when radosgw answers S3
#   thumbd-store seed BUCKET DIR   upload DIR's image files (recursively) to BUCKET at S3_ENDPOINT
# S3_ACCESS_KEY and S3_SECRET_KEY are the keys of the one user (made at the first start).
set -euo pipefail
dir=/var/lib/thumbd-store
conf=$dir/ceph.conf
say() { echo "thumbd-store: $*" >&2; }

signed() {  # a request signed with the user's keys (RGW refuses SigV4 without the payload hash)
    curl -sS --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

write_conf() {
    # The part every single-node store of thumbd shares (scripts/s3-server.sh too), then this
    # one's OSD (filestore in the volume, so objects outlive the container) and radosgw.
    sed -e "s|@FSID@|$(cat "$dir/fsid")|g" -e "s|@MON_PORT@|3300|g" -e "s|@OSD_PORT_MIN@|6800|g" \
        -e "s|@OSD_PORT_MAX@|6810|g" -e "s|@DIR@|$dir|g" /usr/local/share/thumbd-store/ceph-global.conf > "$conf"
    cat >> "$conf" <<CONF

[osd]
osd data = $dir/osd
osd objectstore = filestore
osd journal = $dir/osd/journal
osd journal size = 64
# The journal must hold the largest write; ext4's small xattrs limit object names.
osd max write size = 32
osd max object name len = 256
osd max object namespace len = 64
public addr = 127.0.0.1
cluster addr = 127.0.0.1

[client.rgw]
# tcp_nodelay: else every other answer on a kept-alive connection waits 40 ms for an ACK.
rgw frontends = beast endpoint=0.0.0.0:7480 tcp_nodelay=1
rgw data = $dir/rgw
rgw init timeout = 120
rgw thread pool size = 64
CONF
}

pids=()
stop() {
    say "stopping"
    # radosgw first: it still talks to the mon and the OSD while it shuts down.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        kill -TERM "${pids[i]}" 2> /dev/null || true
        wait "${pids[i]}" 2> /dev/null || true
    done
    exit 0
}

wait_for() {  # wait_for SECONDS COMMAND...: until COMMAND succeeds
    local deadline=$((SECONDS + $1))
    shift
    until "$@" > /dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || { say "gave up waiting for: $*"; return 1; }
        sleep 0.2
    done
}

run() {
    : "${S3_ACCESS_KEY:?set S3_ACCESS_KEY}" "${S3_SECRET_KEY:?set S3_SECRET_KEY}"
    trap stop TERM INT
    mkdir -p "$dir/run" "$dir/log" "$dir/crash" "$dir/rgw"
    local first=false
    if [ ! -e "$dir/ready" ]; then
        # A first start (or one that did not finish): everything made anew.
        rm -rf "$dir/mon" "$dir/osd" "$dir/fsid"
        mkdir -p "$dir/mon" "$dir/osd"
        cat /proc/sys/kernel/random/uuid > "$dir/fsid"
        first=true
    fi
    write_conf
    if $first; then
        say "first start: making the cluster in $dir"
        monmaptool --create --fsid "$(cat "$dir/fsid")" --addv a "[v2:127.0.0.1:3300]" "$dir/monmap" > /dev/null
        ceph-mon -c "$conf" -i a --mkfs --monmap "$dir/monmap" || { say "making the mon failed"; exit 1; }
    fi
    ceph-mon -c "$conf" -i a -f & pids+=($!)
    wait_for 30 bash -c ': < /dev/tcp/127.0.0.1/3300'
    if $first; then
        local uuid
        uuid=$(cat /proc/sys/kernel/random/uuid)
        ceph -c "$conf" osd new "$uuid" > /dev/null
        ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$uuid" > "$dir/log/osd-mkfs.log" 2>&1 \
            || { say "making the OSD failed:"; grep -E 'ERROR|error' "$dir/log/osd-mkfs.log" | tail -3 >&2; exit 1; }
    fi
    ceph-osd -c "$conf" -i 0 -f & pids+=($!)
    if $first; then
        radosgw-admin -c "$conf" user create --uid thumbd --display-name thumbd \
            --access-key "$S3_ACCESS_KEY" --secret-key "$S3_SECRET_KEY" > /dev/null
        touch "$dir/ready"
    fi
    radosgw -c "$conf" -n client.rgw -f & pids+=($!)
    wait_for 120 health
    for bucket in ${S3_BUCKETS:-}; do
        signed -o /dev/null -X PUT "http://127.0.0.1:7480/$bucket" || say "could not make bucket $bucket"
    done
    say "serving S3 on :7480"
    # Any daemon that exits ends the container (and its restart policy starts it again).
    wait -n "${pids[@]}" || true
    say "a daemon exited"
    stop
}

health() {
    [ "$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' http://127.0.0.1:7480/)" = 200 ]
}

seed() {
    local bucket=${1:?bucket} from=${2:?folder} endpoint=${S3_ENDPOINT:?set S3_ENDPOINT} n=0 file key
    wait_for 120 signed -f -o /dev/null "$endpoint/$bucket"
    while IFS= read -r -d '' file; do
        key=${file#"$from"/}
        signed -f -o /dev/null -T "$file" "$endpoint/$bucket/$key"
        n=$((n + 1))
    done < <(find "$from" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.webp' \
        -o -iname '*.avif' -o -iname '*.gif' \) -print0)
    say "uploaded $n images from $from to $bucket"
}

case "${1:-run}" in
run) run ;;
health) health ;;
seed) shift; seed "$@" ;;
*) echo "usage: thumbd-store run | health | seed BUCKET DIR" >&2; exit 2 ;;
esac
