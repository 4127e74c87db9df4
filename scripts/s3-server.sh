#!/usr/bin/env bash
# A real S3-compatible object store for tests: a single-node Ceph 16 (one mon, one OSD that
# keeps its objects in RAM, radosgw) on 127.0.0.1, in a private folder. Data is lost on stop.
#   scripts/s3-server.sh start          start it, or find it running; prints three lines to eval:
#                                       export S3_ENDPOINT=http://127.0.0.1:PORT, S3_ACCESS_KEY=...,
#                                       S3_SECRET_KEY=... (progress goes to stderr)
#   scripts/s3-server.sh stop           stop its daemons and remove what start made in the folder
#   scripts/s3-server.sh status         what runs (exits 1 unless all three daemons do)
#   scripts/s3-server.sh radosgw-stop   stop only radosgw, keeping the objects: "the store is down"
#   scripts/s3-server.sh radosgw-start  start radosgw again on the same port: "the store is back"
# Settings (environment): S3_DIR (.build/s3: config, pids, ports, keys, logs; another S3_DIR is
# another instance, on free ports picked at start), S3_MEMORY (bytes of RAM the OSD may fill,
# default 1 GiB). Installs ceph-mon, ceph-osd and radosgw with apt when missing (as root).
#   eval "$(scripts/s3-server.sh start)"
set -euo pipefail
here=$(pwd)
cd "$(dirname "$0")/.."
root=$(pwd)
dir="${S3_DIR:-$root/.build/s3}"
case "$dir" in /*) ;; *) dir="$here/$dir" ;; esac
memory="${S3_MEMORY:-1073741824}"
conf="$dir/ceph.conf"
# Bucket the readiness probe makes and removes again.
probe_bucket=s3-server-probe
# Serialises starts across instances: the ports one picks must be bound before another looks.
lock=/tmp/thumbd-s3-server.lock

# An interrupted start still runs its EXIT trap, which stops what it started.
trap 'exit 130' INT
trap 'exit 143' TERM

say() { echo "s3-server: $*" >&2; }
pid_of() { cat "$dir/$1.pid" 2>/dev/null || true; }
# A zombie is not alive: our daemons outlive this script, and whoever inherits them (PID 1)
# may reap them late.
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ]; }
# A pid file left from before a reboot may name someone else's process by now.
ours() { local cmd; cmd=$(tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null) && [[ "$cmd" == *"-c $conf "* ]]; }
running() { local pid; pid=$(pid_of "$1"); alive "$pid" && ours "$pid"; }
log_of() { case "$1" in mon) echo mon.a ;; osd) echo osd.0 ;; rgw) echo client.rgw ;; esac; }

spawn() {  # spawn NAME COMMAND...: a daemon kept in the foreground, its pid in NAME.pid
    local name=$1
    shift
    (
        # Nothing of ours stays open in it: a daemon holding the caller's pipe (eval "$(...)"),
        # a test's socket or our lock would keep them open for as long as it runs.
        for fd in /proc/"$BASHPID"/fd/*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] && eval "exec $fd>&-"
        done
        exec "$@" < /dev/null >> "$dir/log/$name.out" 2>&1
    ) &
    echo $! > "$dir/$name.pid"
    # Not our job any more: bash would report its end ("Killed") on stderr.
    disown $!
}

halt() {  # halt NAME [SECONDS]: SIGTERM, wait for it to exit, SIGKILL after SECONDS (10)
    local pid seconds=${2:-10}
    pid=$(pid_of "$1")
    if alive "$pid" && ours "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 $((seconds * 10))); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then
            say "$1 (pid $pid) still runs $seconds s after SIGTERM: killing it"
            kill -KILL "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
        fi
    fi
    rm -f "$dir/$1.pid"
}

stop_rgw() {
    # Requests waiting on a full OSD keep it from exiting (for 120 s); its data is in the OSD.
    halt rgw 3
}

stop_all() {
    # radosgw first: it still talks to the mon and the OSD while it shuts down.
    stop_rgw
    halt osd
    halt mon
}

clean() {  # remove what start made, and only that: S3_DIR may be a folder of the caller's
    rm -rf "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/run" "$dir/crash" "$dir/log" "$dir/monmap" \
        "$conf" "$dir/instance" "$dir"/{mon,osd,rgw}.pid
    rmdir "$dir" 2>/dev/null || true
}

load() {  # the ports and keys recorded at start
    # shellcheck disable=SC1091
    . "$dir/instance"
}

exports() {
    echo "export S3_ENDPOINT=http://127.0.0.1:$rgw_port"
    echo "export S3_ACCESS_KEY=$access_key"
    echo "export S3_SECRET_KEY=$secret_key"
}

signed() {  # signed CURL-ARGS...: a request signed (SigV4) with the instance's keys
    # curl 7.88 sends no x-amz-content-sha256 of its own, and RGW refuses the signature without it.
    curl -sS --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access_key:$secret_key" \
        -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

serves() {  # one signed round trip: make a bucket, put, get it back, remove both
    local url="http://127.0.0.1:$rgw_port/$probe_bucket" body
    signed -f -o /dev/null -X PUT "$url" 2>/dev/null || return 1
    signed -f -o /dev/null -X PUT --data-binary probe "$url/probe" 2>/dev/null || return 1
    body=$(signed -f "$url/probe" 2>/dev/null) || return 1
    [ "$body" = probe ] || return 1
    signed -f -o /dev/null -X DELETE "$url/probe" 2>/dev/null || return 1
    signed -f -o /dev/null -X DELETE "$url" 2>/dev/null || return 1
}

daemons_alive() {  # every daemon started so far still runs
    # (not "running": until its exec, a daemon just spawned is still a bash)
    for d in mon osd rgw; do
        if [ -e "$dir/$d.pid" ] && ! alive "$(pid_of "$d")"; then say "$d exited"; return 1; fi
    done
}

wait_serving() {  # until radosgw serves signed requests (fails after 60 s, or when a daemon exits)
    local deadline=$((SECONDS + 60))
    while [ $SECONDS -lt $deadline ]; do
        serves && return 0
        daemons_alive || return 1
        sleep 0.1
    done
    say "radosgw does not serve signed requests after 60 s"
    return 1
}

wait_mon() {  # until the mon accepts connections (fails after 30 s, or when it exits)
    local deadline=$((SECONDS + 30))
    while [ $SECONDS -lt $deadline ]; do
        (: < "/dev/tcp/127.0.0.1/$mon_port") 2>/dev/null && return 0
        daemons_alive || return 1
        sleep 0.1
    done
    say "the mon does not listen on 127.0.0.1:$mon_port after 30 s"
    return 1
}

supervised() {  # supervised SECONDS COMMAND...: a setup step, output to setup.log, that fails
    # when it outlasts SECONDS or a daemon exits: a Ceph client waits for ever for an OSD that died.
    local limit=$1 pid status=0 deadline
    shift
    deadline=$((SECONDS + limit))
    "$@" < /dev/null >> "$dir/log/setup.log" 2>&1 &
    pid=$!
    while alive "$pid"; do
        if ! daemons_alive || [ $SECONDS -ge $deadline ]; then
            [ $SECONDS -ge $deadline ] && say "$1 did not finish in $limit s" && step_failed=true
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
            return 1
        fi
        sleep 0.05
    done
    wait "$pid" || status=$?
    [ $status -eq 0 ] || { say "$1 failed ($status)"; step_failed=true; }
    return $status
}

free_ports() {  # free_ports N: the first of N consecutive ports that 127.0.0.1 can bind
    # Below the usual ephemeral range (32768-60999), where outgoing connections take theirs.
    python3 - "$1" <<'EOF'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(500):
    base = random.randrange(20000, 32768 - n)
    socks = []
    try:
        for port in range(base, base + n):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    sys.exit(0)
sys.exit(1)
EOF
}

write_conf() {
    # The part every single-node store shares, then this one's OSD (in RAM) and radosgw.
    sed -e "s|@FSID@|$fsid|g" -e "s|@MON_PORT@|$mon_port|g" -e "s|@OSD_PORT_MIN@|$osd_port_min|g" \
        -e "s|@OSD_PORT_MAX@|$osd_port_max|g" -e "s|@DIR@|$dir|g" deploy/cluster/store/ceph-global.conf > "$conf"
    cat >> "$conf" <<EOF

[osd]
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = $memory
public addr = 127.0.0.1
cluster addr = 127.0.0.1

[client.rgw]
# tcp_nodelay: without it beast's small writes of one answer wait for the client's delayed
# ACK (40 ms on every other request on a kept-alive connection).
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw data = $dir/rgw
rgw init timeout = 60
# 512 threads by default; tests need few.
rgw thread pool size = 64
EOF
}

start_rgw() {
    spawn rgw radosgw -c "$conf" -n client.rgw -f
}

phase=""  # the daemon being started, whose log a failure shows
only_rgw=false  # a failure stops radosgw alone (mon and OSD keep the objects)
step_failed=false  # a setup step (supervised) failed: its output in setup.log tells why
failed() {  # EXIT trap while starting: show the logs that tell why, stop what was started
    local status=$? f
    trap - EXIT
    [ $status -ne 0 ] || return 0
    say "start failed (logs in $dir/log)"
    for d in mon osd rgw; do
        if { [ -e "$dir/$d.pid" ] && ! alive "$(pid_of "$d")"; } || [ "$d" = "$phase" ]; then
            # Its log's own lines, not the dumps and statistics between them; then its stderr.
            f="$dir/log/$(log_of "$d").log"
            [ -s "$f" ] && { echo "--- tail of $f" >&2; grep -E '^[0-9]{4}-' "$f" | tail -n 15 >&2; }
            f="$dir/log/$d.out"
            [ -s "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
        fi
    done
    $step_failed && { echo "--- tail of $dir/log/setup.log" >&2; tail -n 15 "$dir/log/setup.log" >&2; }
    if $only_rgw; then stop_rgw; else stop_all; fi
    exit $status
}

start() {
    scripts/ensure-deps.sh ceph-mon ceph-osd radosgw radosgw-admin=ceph-common >&2
    mkdir -p "$dir"
    # Our daemons close this descriptor (spawn), so the lock ends with this script.
    exec 9> "$lock"
    flock 9
    if [ -e "$dir/instance" ]; then
        load
        if running mon && running osd; then
            if ! running rgw; then
                say "radosgw was stopped: starting it"
                phase=rgw only_rgw=true
                trap failed EXIT
                start_rgw
                wait_serving
                trap - EXIT
            fi
            exports
            return 0
        fi
        say "the instance in $dir is gone or half there: starting anew"
        stop_all
    fi
    clean
    mkdir -p "$dir/log" "$dir/run" "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/crash"
    trap failed EXIT
    local base osd_uuid id
    base=$(free_ports 10)
    mon_port=$base
    rgw_port=$((base + 1))
    osd_port_min=$((base + 2))
    osd_port_max=$((base + 9))
    fsid=$(cat /proc/sys/kernel/random/uuid)
    access_key=$(od -An -tx1 -N10 /dev/urandom | tr -d ' \n' | tr a-f A-F)
    secret_key=$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')
    write_conf
    cat > "$dir/instance" <<EOF
mon_port=$mon_port
rgw_port=$rgw_port
osd_port_min=$osd_port_min
osd_port_max=$osd_port_max
access_key=$access_key
secret_key=$secret_key
EOF
    say "starting the mon on 127.0.0.1:$mon_port"
    phase=mon
    supervised 30 monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap"
    supervised 30 ceph-mon -c "$conf" -i a --mkfs --monmap "$dir/monmap"
    spawn mon ceph-mon -c "$conf" -i a -f
    wait_mon
    say "starting the OSD on 127.0.0.1:$osd_port_min-$osd_port_max"
    phase=osd
    osd_uuid=$(cat /proc/sys/kernel/random/uuid)
    supervised 30 ceph -c "$conf" osd new "$osd_uuid" -o "$dir/run/osd-id"
    id=$(cat "$dir/run/osd-id")
    [ "$id" = 0 ] || { say "ceph osd new answered '$id'"; exit 1; }
    supervised 30 ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid"
    spawn osd ceph-osd -c "$conf" -i 0 -f
    # The user before radosgw: made while radosgw starts, it sometimes waited 5 s for radosgw
    # to acknowledge the change (a watch/notify on its cache).
    supervised 60 radosgw-admin -c "$conf" user create --uid thumbd --display-name thumbd \
        --access-key "$access_key" --secret-key "$secret_key"
    say "starting radosgw on 127.0.0.1:$rgw_port"
    phase=rgw
    start_rgw
    wait_serving
    trap - EXIT
    say "ready"
    exports
}

case "${1:-}" in
start)
    start
    ;;
stop)
    stop_all
    clean
    ;;
status)
    [ -e "$dir/instance" ] || { echo "s3-server: nothing started in $dir"; exit 1; }
    load
    for d in mon osd rgw; do
        if running "$d"; then echo "$d: pid $(pid_of "$d")"; else echo "$d: not running"; fi
    done
    running mon && running osd && running rgw || exit 1
    echo "serving on http://127.0.0.1:$rgw_port"
    ;;
radosgw-stop)
    stop_rgw
    ;;
radosgw-start)
    { [ -e "$dir/instance" ] && running mon && running osd; } || { say "nothing runs in $dir: use start"; exit 1; }
    load
    exec 9> "$lock"
    flock 9
    if ! running rgw; then
        phase=rgw only_rgw=true
        trap failed EXIT
        start_rgw
        wait_serving
        trap - EXIT
    fi
    ;;
*)
    echo "usage: scripts/s3-server.sh start | stop | status | radosgw-stop | radosgw-start" >&2
    exit 2
    ;;
esac
