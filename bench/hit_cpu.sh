#!/usr/bin/env bash
# Memory-tier hits, priced in server CPU: thumbd (this build, and any earlier builds named in
# REFERENCES, built on demand), nginx serving the very same bytes from files, and the
# do-nothing floor (bench/floor_server.c: two epoll threads answering 12,000 bytes from
# memory) take turns under the same wrk run (-t2 -c64, cycling over 160 thumbnails), in
# alternating rounds. CPU per request is the server's own (utime + stime from /proc over the
# run, every thread and worker), so the load generator's share of the 2 cores does not count.
#   REFERENCES="8a4bc30 fd5154e" bench/hit_cpu.sh
# Targets (issue 25): CPU per hit <= 2.0x the floor's and <= 0.9x that of 8a4bc30.
# Issue 35: thumbd no dearer than nginx doing the same logging: "thumbd current" writes its
# access log, as "nginx, access log" does (buffered, flushed every 200 ms); "thumbd current,
# no access log" is priced against nginx without one. The last column pairs each round.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT_BASE="${PORT_BASE:-18300}"
LIB=$(bench_photos)
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)

# Earlier builds: a detached worktree per revision under .build/bench, built once.
# label=binary=config (each build reads the config file of its own revision)
# A revision that does not build stops the benchmark (set -e sees the substitution fail).
listed=$(bench_builds)
mapfile -t builds <<< "$listed"
cc -O2 -o "$BENCH_DIR/floor_server" bench/floor_server.c -lpthread

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    stop_nginx
}
trap cleanup EXIT

# 16 photos x 10 sizes = 160 thumbnails of about 12 KB.
: > "$BENCH_DIR/hit-paths"
for name in "${names[@]:0:16}"; do
    for size in $(seq 160 16 304); do echo "/img/$name?w=$size&h=$((size * 3 / 4))&fit=cover&fm=jpeg" >> "$BENCH_DIR/hit-paths"; done
done

servers=()   # label:port:pid-list-command
port=$PORT_BASE
# start_thumbd LABEL BINARY CONFIG [VAR=VALUE...]: a server on the next port, its thumbnails
# made once and asked again, so that every URL is now a memory hit
start_thumbd() {
    local label=$1 binary=$2 config=$3 dir="$BENCH_DIR/hit-cache-${1//[^a-z0-9]/-}" pid tier
    rm -rf "$dir"
    env "${@:4}" "$binary" serve --config "$config" --host 127.0.0.1 --port "$port" --library "$LIB" --cache-dir "$dir" \
        2> "$dir.log" &
    pid=$!
    pids+=("$pid")
    wait_for_port "$port"
    sed "s|^|url = \"http://127.0.0.1:$port|; s|$|\"\noutput = \"/dev/null\"|" "$BENCH_DIR/hit-paths" > "$BENCH_DIR/hit-warm"
    curl -s --no-progress-meter -Z --parallel-max 4 -K "$BENCH_DIR/hit-warm"
    tier=$(curl -s -D - -o /dev/null "http://127.0.0.1:$port$(head -1 "$BENCH_DIR/hit-paths")" | tr -d '\r' | awk 'tolower($1) == "x-cache:" { print $2 }')
    [ "$tier" = memory ] || { echo "$label: expected a memory hit, got X-Cache: $tier" >&2; exit 1; }
    servers+=("$label:$port:$pid")
    port=$((port + 1))
}
for entry in "${builds[@]}"; do
    IFS== read -r label binary config <<< "$entry"
    start_thumbd "thumbd $label" "$binary" "$config"
done
# The current build again without its access log (logging.access: false), beside nginx
# without one; the builds above write theirs, as the nginx with a buffered access log does.
IFS== read -r _ binary config <<< "${builds[0]}"
start_thumbd "thumbd current, no access log" "$binary" "$config" THUMBD_LOGGING_ACCESS=false

# nginx: the current build's bytes as files.
mkdir -p "$BENCH_DIR/hit-files/t"
: > "$BENCH_DIR/hit-nginx-paths"
n=0
while read -r path; do
    curl -s -o "$BENCH_DIR/hit-files/t/$n.jpg" "http://127.0.0.1:$PORT_BASE$path"
    echo "/t/$n.jpg" >> "$BENCH_DIR/hit-nginx-paths"
    n=$((n + 1))
done < "$BENCH_DIR/hit-paths"
mean=$(du -sb "$BENCH_DIR/hit-files/t" | awk -v n="$n" '{ printf "%.1f", $1 / n / 1024 }')
start_nginx "$BENCH_DIR/hit-files" "$port"
servers+=("nginx:$port:nginx@$NGINX_PREFIX")
port=$((port + 1))
start_nginx "$BENCH_DIR/hit-files" "$port" nginx-logged buffered
servers+=("nginx, access log:$port:nginx@$NGINX_PREFIX")
port=$((port + 1))
"$BENCH_DIR/floor_server" "$port" &
pids+=($!)
wait_for_port "$port"
servers+=("floor (C, 2 epoll threads):$port:$!")

# ticks PID... -> "user system" clock ticks summed over the processes (all their threads).
ticks() {
    for p in "$@"; do sed 's/.*) //' "/proc/$p/stat"; done | awk '{ u += $12; s += $13 } END { print u + 0, s + 0 }'
}
server_pids() {  # the pids of a server entry (nginx: master and workers)
    if [[ $1 == nginx@* ]]; then
        local master
        master=$(cat "${1#nginx@}/nginx.pid")
        echo "$master" $(pgrep -P "$master")
    else
        echo "$1"
    fi
}

# the nginx doing the same logging as a server: with an access log unless it writes none
same_nginx() {
    case "$1" in *"no access log"|nginx|floor*) echo nginx ;; *) echo "nginx, access log" ;; esac
}

declare -A rps user sys round_cpu paired
for _ in $(seq 1 "$ROUNDS"); do
    for s in "${servers[@]}"; do
        IFS=: read -r label sport spid <<< "$s"
        paths="$BENCH_DIR/hit-paths"
        case "$label" in nginx*) paths="$BENCH_DIR/hit-nginx-paths" ;; floor*) paths="" ;; esac
        read -r -a ps <<< "$(server_pids "$spid")"
        read -r u0 s0 < <(ticks "${ps[@]}")
        out=$(PATHS_FILE="$paths" wrk -t2 -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" ${paths:+-s bench/cycle.lua} "http://127.0.0.1:$sport/")
        read -r u1 s1 < <(ticks "${ps[@]}")
        requests=$(awk '/requests in/ { print $1 }' <<< "$out")
        rps[$label]+="$(awk '/Requests\/sec/ { print $2 }' <<< "$out") "
        round_user=$(echo "($u1 - $u0) * 1000000 / $TICK / $requests" | bc -l)
        round_sys=$(echo "($s1 - $s0) * 1000000 / $TICK / $requests" | bc -l)
        user[$label]+="$round_user "
        sys[$label]+="$round_sys "
        round_cpu[$label]=$(echo "$round_user + $round_sys" | bc -l)
    done
    # Each thumbd's efficiency against its nginx in the same round: the shared machine drifts
    # between rounds by more than the difference measured.
    for s in "${servers[@]}"; do
        label=${s%%:*}
        [[ $label == thumbd* ]] && paired[$label]+="$(echo "${round_cpu[$(same_nginx "$label")]} / ${round_cpu[$label]}" | bc -l) "
    done
done

echo "memory-tier hits: 160 thumbnails (mean $mean KiB), wrk -t2 -c$WRK_CONNECTIONS -d${WRK_SECONDS}s, $ROUNDS alternating rounds, medians; server CPU from /proc"
printf '%-30s %10s %10s %9s %9s %9s %8s %22s\n' server "req/s" "CPU us" "user" "sys" "x floor" "nginx/x" "per round (min-max)"
floor_label="floor (C, 2 epoll threads)"
declare -A cpu
for s in "${servers[@]}"; do
    label=${s%%:*}
    u=$(median ${user[$label]}); y=$(median ${sys[$label]})
    cpu[$label]=$(echo "$u + $y" | bc -l)
done
for s in "${servers[@]}"; do
    label=${s%%:*}
    line=$(printf '%-30s %10.0f %10.1f %9.1f %9.1f %8.2fx %8.2f' "$label" "$(median ${rps[$label]})" "${cpu[$label]}" \
        "$(median ${user[$label]})" "$(median ${sys[$label]})" "$(echo "${cpu[$label]} / ${cpu[$floor_label]}" | bc -l)" \
        "$(echo "${cpu[$(same_nginx "$label")]} / ${cpu[$label]}" | bc -l)")
    if [ -n "${paired[$label]:-}" ]; then
        read -r low high < <(spread ${paired[$label]})
        line+=$(printf ' %10.2f (%.2f-%.2f)' "$(median ${paired[$label]})" "$low" "$high")
    fi
    echo "$line"
done
echo "nginx/x: the CPU per request of the nginx that logs as the server does (an access log, or none)"
for entry in "${builds[@]:1}"; do
    rev=${entry%%=*}
    printf 'current / %s CPU per hit: %.2fx\n' "$rev" "$(echo "${cpu["thumbd current"]} / ${cpu["thumbd $rev"]}" | bc -l)"
done
