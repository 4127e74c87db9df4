#!/usr/bin/env bash
# Replicas behind nginx (scripts/cluster.sh) on this machine. They share its 2 cores,
# so this shows the balancer's overhead, not scaling:
#  - distinct thumbnails (misses) through the balancer with 1, 2 and 3 replicas;
#  - cached thumbnails (memory hits) straight from one replica and through the balancer in
#    front of it, alternating rounds, with the CPU per request of thumbd and of nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
LIB=$(bench_photos)
export CLUSTER_DIR="$BENCH_DIR/cluster" CLUSTER_PORT=18190 REPLICA_PORT=18191 LIBRARY="$LIB" THUMBD_LOGGING_ACCESS=false
trap 'scripts/cluster.sh stop >/dev/null 2>&1 || true' EXIT
mapfile -t names < <(cd "$LIB" && ls *.jpg | sort)

cpu_jiffies() {  # total utime+stime of the given pids
    local total=0 pid
    for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
    echo "$total"
}

echo "cluster: distinct thumbnails (16 photos x 8 sizes, fit=cover, JPEG) through nginx, 4 concurrent clients"
printf '%-10s %14s\n' replicas "thumbnails/s"
for n in 1 2 3; do
    scripts/cluster.sh stop > /dev/null 2>&1 || true
    rm -rf "$CLUSTER_DIR"
    scripts/cluster.sh start "$n" > /dev/null
    : > "$BENCH_DIR/cluster-urls"
    for name in "${names[@]}"; do
        for size in 150 200 250 300 350 400 450 500; do
            printf 'url = "http://127.0.0.1:%s/img/%s?w=%s&h=%s&fit=cover&fm=jpeg"\noutput = "/dev/null"\n' "$CLUSTER_PORT" "$name" "$size" "$((size * 3 / 4))" >> "$BENCH_DIR/cluster-urls"
        done
    done
    count=$(grep -c '^url' "$BENCH_DIR/cluster-urls")
    start=$(date +%s.%N)
    curl -s --no-progress-meter -Z --parallel-max 4 -K "$BENCH_DIR/cluster-urls"
    end=$(date +%s.%N)
    printf '%-10s %14.1f\n' "$n" "$(echo "$count / ($end - $start)" | bc -l)"
done

# Hits: one replica, its thumbnails cached; wrk on it directly and through the balancer.
scripts/cluster.sh stop > /dev/null 2>&1 || true
scripts/cluster.sh start 1 > /dev/null
: > "$BENCH_DIR/cluster-paths"
for name in "${names[@]}"; do
    for size in 100 140 180 220 260 300 340 380 420 460; do echo "/img/$name?w=$size&h=$size&fit=cover&fm=jpeg" >> "$BENCH_DIR/cluster-paths"; done
done
while read -r p; do curl -s -o /dev/null "http://127.0.0.1:$CLUSTER_PORT$p"; done < "$BENCH_DIR/cluster-paths"
thumbd_pid=$(cat "$CLUSTER_DIR/thumbd-1.pid")
nginx_pids=$(pgrep -f "nginx: worker process" | tr '\n' ' ')
measure() {  # measure URL -> "req/s thumbd_us nginx_us"
    local t0 n0 t1 n1 out reqs
    t0=$(cpu_jiffies "$thumbd_pid"); n0=$(cpu_jiffies $nginx_pids)
    out=$(PATHS_FILE="$BENCH_DIR/cluster-paths" wrk -t2 -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" -s bench/cycle.lua "$1")
    t1=$(cpu_jiffies "$thumbd_pid"); n1=$(cpu_jiffies $nginx_pids)
    reqs=$(awk '/requests in/ { print $1 }' <<< "$out")
    echo "$(awk '/Requests\/sec:/ { print $2 }' <<< "$out") $(echo "($t1 - $t0) * 10000 / $reqs" | bc -l) $(echo "($n1 - $n0) * 10000 / $reqs" | bc -l)"
}
d_rps=(); d_t=(); b_rps=(); b_t=(); b_n=()
for _ in $(seq 1 "$ROUNDS"); do
    read -r r t _ < <(measure "http://127.0.0.1:$REPLICA_PORT/"); d_rps+=("$r"); d_t+=("$t")
    read -r r t n < <(measure "http://127.0.0.1:$CLUSTER_PORT/"); b_rps+=("$r"); b_t+=("$t"); b_n+=("$n")
done
echo "cluster: memory hits, ${#names[@]} photos x 10 sizes cycled by wrk -t2 -c$WRK_CONNECTIONS, $ROUNDS alternating rounds, medians"
printf '%-22s %10s %16s %16s\n' path "req/s" "thumbd us/req" "nginx us/req"
printf '%-22s %10.0f %16.1f %16s\n' "direct" "$(median "${d_rps[@]}")" "$(median "${d_t[@]}")" "-"
printf '%-22s %10.0f %16.1f %16.1f\n' "through the balancer" "$(median "${b_rps[@]}")" "$(median "${b_t[@]}")" "$(median "${b_n[@]}")"
