#!/usr/bin/env bash
# thumbd replicas behind nginx on loopback, the topology of deploy/cluster/ without containers:
#   scripts/cluster.sh start N   start replicas 1..N (those not running) and the balancer, or
#                                reconfigure it for N (stopping replicas above N); prints its URL
#   scripts/cluster.sh stop      stop the balancer and every replica (SIGTERM: they drain)
#   scripts/cluster.sh status    what runs, and each replica's /health
#   scripts/cluster.sh purge path=P | url=U   POST /v1/purge to every replica (THUMBD_ADMIN_TOKEN);
#                                needed only without a shared tier (cache.shared.root)
#   scripts/cluster.sh varnish start | stop   a Varnish (Debian's varnish and varnish-modules,
#                                installed as root) on 127.0.0.1:VARNISH_PORT (8089) in front of
#                                the balancer, with deploy/varnish/thumbd.vcl; prints its URL.
#                                Replicas started after it tag answers for it and purge it with
#                                THUMBD_CDN_KIND=varnish THUMBD_CDN_PURGE_URL=http://127.0.0.1:VARNISH_PORT.
# Settings (environment): CLUSTER_DIR (.build/cluster: pid files, caches, logs, nginx prefix),
# CLUSTER_PORT (8090, the balancer), REPLICA_PORT (8091: replica i listens on REPLICA_PORT+i-1),
# LIBRARY (./images, shared by all; or s3://BUCKET/PREFIX, a bucket they share, with the store
# in THUMBD_LIBRARY_S3_ENDPOINT, THUMBD_S3_ACCESS_KEY and THUMBD_S3_SECRET_KEY), THUMBD_BIN
# (.build/release/thumbd, built when missing), and any THUMBD_* setting, passed to every replica.
# Talks to 127.0.0.1 only (and to the S3 endpoint given).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
dir="${CLUSTER_DIR:-$root/.build/cluster}"
port="${CLUSTER_PORT:-8090}"
base="${REPLICA_PORT:-8091}"
library="${LIBRARY:-$root/images}"
bin="${THUMBD_BIN:-$root/.build/release/thumbd}"
prefix="$dir/nginx"

replica_pid() { cat "$dir/thumbd-$1.pid" 2>/dev/null || true; }
# A zombie is not alive: our replicas outlive this script, and whoever inherits them (PID 1)
# may reap them late.
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" != Z ]; }
nginx_pid() { cat "$prefix/nginx.pid" 2>/dev/null || true; }
running_replicas() { for f in "$dir"/thumbd-*.pid; do [ -e "$f" ] && basename "$f" .pid | cut -d- -f2; done | sort -n; }

wait_port() {  # wait_port PORT [LOG]: until something answers /health there (or fail after 20 s, with LOG's end)
    for _ in $(seq 1 200); do
        curl -s -o /dev/null "http://127.0.0.1:$1/health" && return 0
        sleep 0.1
    done
    echo "cluster: nothing answers on port $1" >&2
    if [ -n "${2:-}" ] && [ -f "$2" ]; then tail -n 5 "$2" | sed 's/^/cluster: replica log: /' >&2; fi
    return 1
}

start_replica() {  # start_replica I
    local i=$1 p=$((base + $1 - 1))
    mkdir -p "$dir/cache-$i"
    THUMBD_SERVER_TRUSTED_PROXIES="${THUMBD_SERVER_TRUSTED_PROXIES:-127.0.0.1}" \
        "$bin" serve --host 127.0.0.1 --port "$p" --library "$library" --cache-dir "$dir/cache-$i" \
        >> "$dir/thumbd-$i.log" 2>&1 &
    echo $! > "$dir/thumbd-$i.pid"
    wait_port "$p" "$dir/thumbd-$i.log"
}

stop_replica() {  # stop_replica I: SIGTERM, then wait for it to drain and exit
    local pid
    pid=$(replica_pid "$1")
    if alive "$pid"; then
        kill -TERM "$pid"
        for _ in $(seq 1 300); do alive "$pid" || break; sleep 0.1; done
    fi
    rm -f "$dir/thumbd-$1.pid"
}

render_nginx() {  # render_nginx N: deploy/cluster/nginx.conf with N loopback replicas
    mkdir -p "$prefix/logs" "$prefix/temp"
    local servers=""
    for i in $(seq 1 "$1"); do
        servers+="        server 127.0.0.1:$((base + i - 1)) max_fails=1 fail_timeout=2s;\n"
    done
    awk -v servers="$servers" -v listen="        listen 127.0.0.1:$port;" -v prefix="$prefix" '
        /# replicas begin/ { print; printf "%s", servers; skip = 1; next }
        /# replicas end/ { skip = 0 }
        skip { next }
        /^ *listen 8080;/ { print listen; next }
        /^error_log/ { print "error_log " prefix "/logs/error.log warn;"; print "pid " prefix "/nginx.pid;"; next }
        /^http \{/ { print; print "    client_body_temp_path " prefix "/temp/body;"; print "    proxy_temp_path " prefix "/temp/proxy;"; next }
        { print }' deploy/cluster/nginx.conf | sed 's/\\n/\n/g' > "$prefix/nginx.conf.new"
    # Unchanged: keep it, so a start that changes nothing does not make nginx reload (a
    # reload closes every idle keep-alive connection its clients hold).
    if cmp -s "$prefix/nginx.conf.new" "$prefix/nginx.conf"; then rm "$prefix/nginx.conf.new"; return 1; fi
    mv "$prefix/nginx.conf.new" "$prefix/nginx.conf"
}

case "${1:-}" in
start)
    n="${2:?usage: scripts/cluster.sh start N}"
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "cluster: N must be a positive number" >&2; exit 2; }
    scripts/ensure-deps.sh nginx
    [ -x "$bin" ] || swift build -c release --product thumbd
    mkdir -p "$dir"
    # A folder is made when missing; a bucket (s3://) is the store's.
    case "$library" in s3://*) ;; *) mkdir -p "$library" ;; esac
    for i in $(running_replicas); do [ "$i" -le "$n" ] || stop_replica "$i"; done
    for i in $(seq 1 "$n"); do alive "$(replica_pid "$i")" || start_replica "$i"; done
    changed=true
    render_nginx "$n" || changed=false
    if alive "$(nginx_pid)"; then
        if $changed; then
            # Until its old workers have exited, some connections still go by the old replica
            # list: wait for them, so that when this returns the balancer uses the new one.
            old_workers=$(pgrep -P "$(nginx_pid)" || true)
            nginx -p "$prefix" -c "$prefix/nginx.conf" -s reload >> "$prefix/logs/error.log" 2>&1
            for _ in $(seq 1 100); do
                still=false
                for w in $old_workers; do alive "$w" && still=true; done
                $still || break
                sleep 0.1
            done
        fi
    else
        # Its own output goes to the log: a daemon holding our stdout would keep callers waiting.
        nginx -p "$prefix" -c "$prefix/nginx.conf" >> "$prefix/logs/error.log" 2>&1
    fi
    for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/balancer-health" && break; sleep 0.1; done
    echo "http://127.0.0.1:$port"
    ;;
stop)
    vpid=$(cat "$dir/varnish/varnishd.pid" 2>/dev/null || true)
    if alive "$vpid"; then kill -TERM "$vpid"; rm -f "$dir/varnish/varnishd.pid"; fi
    if alive "$(nginx_pid)"; then nginx -p "$prefix" -c "$prefix/nginx.conf" -s quit > /dev/null 2>&1 || kill "$(nginx_pid)"; fi
    for i in $(running_replicas); do stop_replica "$i"; done
    ;;
purge)
    # A purge sent through the balancer lands on the one replica its own URI hashes to, while
    # the source's variants sit wherever their URIs hash: send it to every replica instead.
    query="${2:?usage: scripts/cluster.sh purge path=P or url=U, percent-encoded}"
    token="${THUMBD_ADMIN_TOKEN:?cluster: purge needs THUMBD_ADMIN_TOKEN, the admin.token of the replicas}"
    total=0
    for i in $(running_replicas); do
        answer=$(curl -s -X POST -H "Authorization: Bearer $token" "http://127.0.0.1:$((base + i - 1))/v1/purge?$query")
        n=$(printf '%s' "$answer" | grep -o '"removed":[0-9]*' | cut -d: -f2 || true)
        [ -n "$n" ] || { echo "cluster: replica $i answered: $answer" >&2; exit 1; }
        echo "replica $i: removed $n"
        total=$((total + n))
    done
    echo "removed $total"
    ;;
varnish)
    vport="${VARNISH_PORT:-8089}"
    vdir="$dir/varnish"
    case "${2:-}" in
    start)
        scripts/ensure-deps.sh varnishd=varnish "/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/varnish/vmods/libvmod_xkey.so=varnish-modules"
        mkdir -p "$vdir"
        # The repository's VCL, its backend the balancer on loopback.
        sed -e "s/^    .host = \"balancer\";/    .host = \"127.0.0.1\";/" -e "s/^    .port = \"8080\";/    .port = \"$port\";/" \
            deploy/varnish/thumbd.vcl > "$vdir/thumbd.vcl"
        if ! alive "$(cat "$vdir/varnishd.pid" 2>/dev/null || true)"; then
            # As root varnishd runs its workers as Debian's varnish users: they must read its folder.
            [ "$(id -u)" -ne 0 ] || chmod 755 "$dir" "$vdir"
            varnishd -a "127.0.0.1:$vport" -T none -f "$vdir/thumbd.vcl" -n "$vdir/work" -P "$vdir/varnishd.pid" \
                -s malloc,64m -p default_ttl=3600 >> "$vdir/varnishd.log" 2>&1
        fi
        for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$vport/health" && break; sleep 0.1; done
        echo "http://127.0.0.1:$vport"
        ;;
    stop)
        pid=$(cat "$vdir/varnishd.pid" 2>/dev/null || true)
        if alive "$pid"; then
            kill -TERM "$pid"
            for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
        fi
        rm -f "$vdir/varnishd.pid"
        ;;
    *)
        echo "usage: scripts/cluster.sh varnish start | stop" >&2
        exit 2
        ;;
    esac
    ;;
status)
    if alive "$(nginx_pid)"; then echo "balancer http://127.0.0.1:$port pid $(nginx_pid)"; else echo "balancer: not running"; fi
    for i in $(running_replicas); do
        pid=$(replica_pid "$i") p=$((base + i - 1))
        if alive "$pid"; then
            echo "replica $i http://127.0.0.1:$p pid $pid health $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/health")"
        else
            echo "replica $i: not running (stale pid file)"
        fi
    done
    ;;
*)
    echo "usage: scripts/cluster.sh start N | stop | status | purge path=P | url=U | varnish start | stop" >&2
    exit 2
    ;;
esac
