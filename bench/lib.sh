# Shared helpers for the benchmark scripts (sourced, not run).

BENCH_DIR="${BENCH_DIR:-$(pwd)/.build/bench}"
# Clock ticks per second, the unit of the CPU times in /proc/PID/stat.
TICK=$(getconf CLK_TCK)
WRK_SECONDS="${WRK_SECONDS:-10}"
WRK_CONNECTIONS="${WRK_CONNECTIONS:-64}"
ROUNDS="${ROUNDS:-5}"  # the machines are shared and noisy: medians of 5

# wrk_run URL [PATHS_FILE] -> prints "req_per_sec p99_ms"; with a paths file, wrk cycles
# through those request paths (bench/cycle.lua) instead of requesting URL's path.
wrk_run() {
    local script=()
    if [ -n "${2:-}" ]; then script=(-s bench/cycle.lua); fi
    PATHS_FILE="${2:-}" wrk -t2 -c"$WRK_CONNECTIONS" -d"${WRK_SECONDS}s" --latency "${script[@]}" "$1" | awk '
        /Requests\/sec:/ { rps = $2 }
        $1 == "99%" {
            v = $2
            if (v ~ /us$/) { sub(/us$/, "", v); p99 = v / 1000 }
            else if (v ~ /ms$/) { sub(/ms$/, "", v); p99 = v }
            else if (v ~ /s$/) { sub(/s$/, "", v); p99 = v * 1000 }
        }
        /Non-2xx/ { bad = $NF }
        END { if (bad > 0) { print "wrk saw " bad " non-2xx responses" > "/dev/stderr" }; printf "%.0f %.2f\n", rps, p99 }'
}

# median of the numbers given as arguments
median() {
    printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# spread NUMBER... -> "lowest highest"
spread() {
    printf '%s\n' "$@" | sort -g | awk 'NR == 1 { l = $1 } { h = $1 } END { print l, h }'
}

# bench_photos: the mate-backgrounds wallpapers copied into $BENCH_DIR/photos, the library
# of the thumbnail benchmarks (`LIB=$(bench_photos)`); fails when there are none.
bench_photos() {
    local dir="$BENCH_DIR/photos" found=0 p
    mkdir -p "$dir"
    while IFS= read -r p; do cp -n "$p" "$dir/"; found=1; done < <(find /usr/share/backgrounds/mate -iname '*.jpg' | sort)
    if [ "$found" = 0 ]; then echo "no photos: install mate-backgrounds" >&2; return 1; fi
    echo "$dir"
}

# bench_small_photos: the same photographs resized to 1,000-1,600 px on their longer side
# (JPEG q90, as phones and cameras upload them), made once under $BENCH_DIR
bench_small_photos() {
    local dir="$BENCH_DIR/small-photos" n=0 p side
    mkdir -p "$dir"
    while IFS= read -r p; do
        n=$((n + 1))
        side=$((1000 + (n * 53) % 601))
        [ -s "$dir/small-$n.jpg" ] || vipsthumbnail "$p" -s "${side}x${side}" -o "$dir/small-$n.jpg[Q=90,strip]"
    done < <(find /usr/share/backgrounds/mate -iname '*.jpg' | sort)
    [ "$n" -gt 0 ] || { echo "no photos: install mate-backgrounds" >&2; return 1; }
    echo "$dir"
}

# miss_urls PORT PASSES NAME...: curl -K lines for distinct thumbnails of the photos NAME... on
# 127.0.0.1:PORT: 4 sizes (fit=cover, JPEG q=80), nudged by one pixel per pass so no URL repeats.
miss_urls() {
    local port=$1 passes=$2 pass n size w h
    shift 2
    for pass in $(seq 0 $((passes - 1))); do
        for n in "$@"; do
            for size in "150 150" "300 300" "300 200" "640 480"; do
                read -r w h <<< "$size"
                printf 'url = "http://127.0.0.1:%s/img/%s?w=%d&h=%d&fit=cover&fm=jpeg&q=80"\noutput = "/dev/null"\n' \
                    "$port" "$n" $((w + pass)) $((h + pass))
            done
        done
    done
}

# bench_builds: "label=binary=config" lines, this build first, then each revision in
# REFERENCES, built once in a detached worktree under $BENCH_DIR (each reads the config file
# of its own revision). Fails when a revision does not build.
bench_builds() {
    local rev tree
    echo "current=.build/release/thumbd=config/thumbd.yaml"
    for rev in ${REFERENCES:-}; do
        tree="$BENCH_DIR/ref-$rev"
        if [ ! -x "$tree/.build/release/thumbd" ]; then
            [ -d "$tree" ] || git worktree add --detach "$tree" "$rev" > /dev/null
            (cd "$tree" && swift build -c release --product thumbd > "$BENCH_DIR/ref-$rev.log" 2>&1) \
                || { echo "could not build $rev (see $BENCH_DIR/ref-$rev.log)" >&2; return 1; }
        fi
        echo "$rev=$tree/.build/release/thumbd=$tree/config/thumbd.yaml"
    done
}

# cpu_ticks PID: the process's user + system CPU so far, in clock ticks (/proc/PID/stat)
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# tree_ticks PID: cpu_ticks of the process and its children (nginx's or thumbor's workers)
tree_ticks() {
    local total=0 p
    for p in "$1" $(pgrep -P "$1" || true); do total=$((total + $(cpu_ticks "$p"))); done
    echo "$total"
}

# family_ticks PID: the CPU of the process, of its children alive now and of those it has
# reaped (cutime and cstime): a server's renderer processes included, whether they still run
family_ticks() {
    local total=0 p
    for p in "$1" $(pgrep -P "$1" || true); do
        total=$((total + $(sed 's/.*) //' "/proc/$p/stat" | awk '{ print $12 + $13 + $14 + $15 }')))
    done
    echo "$total"
}

# fetch_all URLS_FILE [CURL_ARGS...] -> the elapsed seconds of fetching every url of a curl
# config file, 4 at a time; fails unless every answer is a 200
fetch_all() {
    local start end codes count ok
    count=$(grep -c '^url' "$1")
    start=$(date +%s.%N)
    codes=$(curl -s --no-progress-meter -Z --parallel-max 4 "${@:2}" -K "$1" -w '%{http_code}\n')
    end=$(date +%s.%N)
    ok=$(grep -c '^200$' <<< "$codes" || true)
    [ "$ok" -eq "$count" ] || { echo "only $ok of $count answers were 200" >&2; return 1; }
    echo "$end - $start" | bc -l
}

# wait_for_port PORT: until something answers on 127.0.0.1:PORT
wait_for_port() {
    for _ in $(seq 1 100); do
        if curl -s -o /dev/null "http://127.0.0.1:$1/" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

# run_nginx NAME PORT HTTP: nginx with 2 workers under the prefix $BENCH_DIR/NAME (NGINX_PREFIX; its
# pid in $NGINX_PREFIX/nginx.pid), HTTP the body of its http block, listening on PORT; stop_nginx
# stops it
NGINX_PREFIXES=()
run_nginx() {
    NGINX_PREFIX="$BENCH_DIR/$1"
    mkdir -p "$NGINX_PREFIX/logs"
    cat > "$NGINX_PREFIX/nginx.conf" <<CONF
worker_processes 2;
error_log $NGINX_PREFIX/logs/error.log;
pid $NGINX_PREFIX/nginx.pid;
events { worker_connections 4096; }
http {
$3
}
CONF
    nginx -c "$NGINX_PREFIX/nginx.conf" -p "$NGINX_PREFIX"
    NGINX_PREFIXES+=("$NGINX_PREFIX")
    wait_for_port "$2"
}

# start_nginx ROOT PORT [NAME [ACCESS_LOG]]: run_nginx serving the files of ROOT with sendfile, its
# prefix $BENCH_DIR/NAME (default nginx). ACCESS_LOG=buffered writes one line a request as
# thumbd's access log does: buffered, flushed every 200 ms.
start_nginx() {
    local name="${3:-nginx}" access="access_log off;"
    [ "${4:-}" = buffered ] && access="access_log $BENCH_DIR/$name/logs/access.log combined buffer=64k flush=200ms;"
    run_nginx "$name" "$2" "    $access
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000000;
    types { image/jpeg jpg; }
    server { listen 127.0.0.1:$2; root $1; location / { } }"
}

# stop_nginx: every nginx start_nginx started
stop_nginx() {
    local prefix
    for prefix in "${NGINX_PREFIXES[@]}"; do
        [ -f "$prefix/nginx.pid" ] && kill "$(cat "$prefix/nginx.pid")" 2>/dev/null || true
    done
}

# fresh_cache NAME -> a new, empty cache folder $BENCH_DIR/NAME.XXXXXX, for one round of misses;
# remove_fresh_caches NAME removes them all (call it when the script exits). These machines' ext4
# has no journal, and there ext4 skips inodes freed in the last 30 s one by one when it allocates
# (recently_deleted): a round started right after `rm -rf` of the last round's few thousand
# entries paid about 0.7 ms more kernel time per thumbnail of a tiny image (3.8-4.6 against
# 3.1-3.8 ms), a cost of the benchmark's deletion, not of the server.
fresh_cache() {
    mkdir -p "$BENCH_DIR"
    mktemp -d "$BENCH_DIR/$1.XXXXXX"
}
remove_fresh_caches() {
    rm -rf "$BENCH_DIR/$1".??????
}

# build_vips_limit: bench/vips_limit.c (the compute limit) built into $BENCH_DIR, with the
# shim's orc guard in front of liborc as in thumbd (Sources/CProcessGuards/orcguard.c: without it,
# libvips on several threads can crash in liborc)
build_vips_limit() {
    cc -O2 -o "$BENCH_DIR/vips_limit" bench/vips_limit.c Sources/CProcessGuards/orcguard.c -ISources/CProcessGuards/include \
        $(pkg-config --cflags --libs vips) -lpthread \
        -Wl,--export-dynamic-symbol=orc_program_compile -Wl,--export-dynamic-symbol=orc_program_free
}
