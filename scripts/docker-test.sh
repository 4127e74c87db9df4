#!/usr/bin/env bash
# The Docker image and the compose files, tested on a real Docker Engine (part of `make test`):
#   1. installs docker.io, docker-compose and mmdebstrap with apt when missing, and starts
#      dockerd when no daemon answers (pid and log in .build/docker-test/; only a daemon this
#      script started is stopped when it exits);
#   2. seeds the base images when they are absent, never pulling (no registry is reachable on
#      the build machines): debian:bookworm-slim made with mmdebstrap as the official image is,
#      and local stand-ins for swift:6.2-bookworm (this machine's Swift toolchain and package
#      mirror) and nginx:stable-bookworm (Debian's nginx); see scripts/docker/. They are kept,
#      so later runs start at step 3;
#   3. builds the Dockerfile as a user would (`docker build -t thumbd:test .`) and checks the
#      container: health, HEALTHCHECK, originals, thumbnails, Range, 304, uid 10001, a
#      read-only root and library, the disk tier across `docker restart`, a download finished
#      through `docker stop`, configuration by environment and by a mounted file;
#   4. runs deploy/docker-compose.yml and deploy/cluster/compose.yaml (with the override files
#      of scripts/docker/ and the image under test): a thumbnail through the single service;
#      each thumbnail made once across the replicas, and no failed request of a running load
#      when one replica is killed; then the cluster on a bucket as a user runs it
#      (compose.s3.yaml and the bundled store, compose.store.yaml: a Ceph RGW image built from
#      deploy/cluster/store/, seeded with the test library, the shared tier on): each thumbnail
#      made once, originals byte for byte with Range, a killed replica failing no request, the
#      store stopped (held thumbnails 200, a new image 503 with Retry-After) and started again
#      (served without restarting the replicas), a replica recreated with an empty cache
#      answering its share from the shared tier without a transform; then compose.cdn.yaml's
#      Varnish (built from deploy/varnish/) in front of the folder cluster: a thumbnail cached
#      in it with the shared caches' directives and no tag reaching the client, and one purge
#      that makes it miss there while another source stays cached;
#   5. runs the image under --memory 512m and 384m with its defaults through a storm of large
#      AVIF, JPEG XL and WebP misses (scripts/miss-storm.sh): no OOM kill, no restart, no
#      request lost, every answer 200 or 503 with Retry-After (or, at 384m, a memory
#      refusal), the cgroup's peak printed.
# Each check prints `ok - NAME` or `not ok - NAME: reason`; the script fails if any failed, and
# ends with one summary line. It talks to containers only through ports published on
# 127.0.0.1, and removes the containers, networks and volumes it made (the seeded images and
# thumbd:test stay, so the next build reuses their layers).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state="$root/.build/docker-test"
mkdir -p "$state"
work=$(mktemp -d "${TMPDIR:-/tmp}/thumbd-docker-test.XXXXXX")
run="thumbdtest$$"
t0=$(date +%s)
SECONDS=0

# Debian's client (docker.io) rather than whatever `docker` comes first on PATH: another
# client may default to BuildKit, which resolves base images from a registry.
docker_bin=/usr/bin/docker
docker() { command "$docker_bin" "$@"; }
compose() { command docker-compose "$@"; }
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0

log() { echo "docker-test: $*"; }
elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

# --- clean-up ---------------------------------------------------------------------------------

# remove_labelled FILTER...: the containers, then the networks and volumes, with those labels.
remove_labelled() {
    local filter
    for filter in "$@"; do
        docker ps -aq --filter "label=$filter" | xargs -r docker rm -f -v > /dev/null 2>&1
    done
    for filter in "$@"; do
        docker network ls -q --filter "label=$filter" | xargs -r docker network rm > /dev/null 2>&1
        docker volume ls -q --filter "label=$filter" | xargs -r docker volume rm > /dev/null 2>&1
    done
    return 0
}
# What this run made: its own containers and volumes carry thumbd-test=RUN, compose's carry
# their project's name.
run_labels=("thumbd-test=$run" "com.docker.compose.project=${run}single" "com.docker.compose.project=${run}cluster"
    "com.docker.compose.project=${run}clusters3" "com.docker.compose.project=${run}clustercdn")

started_dockerd=""
cleanup() {
    local status=$?
    set +e
    if [ -x "$docker_bin" ] && docker info > /dev/null 2>&1; then
        remove_labelled "${run_labels[@]}"
    fi
    rm -rf "$work"
    if [ -n "$started_dockerd" ]; then
        kill -TERM "$started_dockerd" 2> /dev/null
        for _ in $(seq 1 150); do kill -0 "$started_dockerd" 2> /dev/null || break; sleep 0.2; done
        rm -f "$state/dockerd.pid"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- 1. packages and daemon -------------------------------------------------------------------

scripts/ensure-deps.sh dockerd=docker.io docker-compose mmdebstrap python3 vips=libvips-tools \
    /usr/share/backgrounds/mate=mate-backgrounds
source scripts/miss-storm.sh
[ -x "$docker_bin" ] || docker_bin=$(command -v docker)

if ! docker info > /dev/null 2>&1; then
    log "starting dockerd (log: .build/docker-test/dockerd.log)"
    setsid dockerd > "$state/dockerd.log" 2>&1 < /dev/null &
    started_dockerd=$!
    echo "$started_dockerd" > "$state/dockerd.pid"
    for _ in $(seq 1 150); do
        docker info > /dev/null 2>&1 && break
        kill -0 "$started_dockerd" 2> /dev/null || { tail -20 "$state/dockerd.log" >&2; exit 1; }
        sleep 0.2
    done
    docker info > /dev/null 2>&1 || { echo "docker-test: dockerd did not answer within 30 s" >&2; exit 1; }
fi

# One run at a time on a machine (the cluster's compose file fixes its subnet); what an earlier
# run killed before its clean-up left behind goes first.
exec 9> "${TMPDIR:-/tmp}/thumbd-docker-test.lock"
flock 9
leftovers=(thumbd-test)
for project in $(docker ps -a --filter label=com.docker.compose.project --format '{{.Label "com.docker.compose.project"}}' | sort -u); do
    [[ "$project" =~ ^thumbdtest[0-9]+(single|cluster|clusters3|clustercdn)$ ]] && leftovers+=("com.docker.compose.project=$project")
done
remove_labelled "${leftovers[@]}"

# --- 2. base images, seeded and kept ----------------------------------------------------------

have_image() { docker image inspect "$1" > /dev/null 2>&1; }
seeded=()

# debian:bookworm-slim as the official image is made (debuerreotype): minbase, merged /usr
# without the usrmerge package, docs, man pages and locales left out, apt's caches cleaned
# after every install. About 75 MB, as the official one.
seed_debian() {
    mmdebstrap --variant=minbase --format=tar \
        --hook-dir=/usr/share/mmdebstrap/hooks/maybe-merged-usr \
        --dpkgopt="$root/scripts/docker/dpkg-slim.cfg" \
        --aptopt="$root/scripts/docker/apt-docker.conf" \
        --customize-hook="$root/scripts/docker/slimify.sh \"\$1\"" \
        bookworm - \
        "deb http://deb.debian.org/debian bookworm main" \
        "deb http://deb.debian.org/debian bookworm-updates main" \
        "deb http://deb.debian.org/debian-security bookworm-security main" 2> "$work/seed-debian.log" \
        | docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change 'CMD ["bash"]' - debian:bookworm-slim > /dev/null \
        || { cat "$work/seed-debian.log" >&2; return 1; }
}

# The Swift packages' sources for SwiftPM inside the build: the folders that /etc/gitconfig's
# url.insteadOf entries name, with those entries; or, on a machine without such a mirror,
# the clones `swift package resolve` keeps in .build/repositories, each named for the URL it
# came from. Prints the folders to put in the image; writes the git config to $1.
swift_package_sources() {
    local gitconfig=$1 key value base repo
    : > "$gitconfig"
    while read -r key value; do
        base=${key#url.}
        base=${base%.insteadof}
        if [[ "$base" == /* ]] && [ -d "$base" ]; then
            git config -f "$gitconfig" --add "url.$base.insteadOf" "$value"
            echo "${base%/}"
        fi
    done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2> /dev/null || true)
    [ -s "$gitconfig" ] && return 0
    log "no package mirror in /etc/gitconfig: using the clones of swift package resolve" >&2
    swift package resolve > /dev/null
    for repo in "$root"/.build/repositories/*/; do
        value=$(git -C "$repo" config --get remote.origin.url) || continue
        git config -f "$gitconfig" --add "url.${repo%/}.insteadOf" "$value"
        echo "${repo%/}"
    done
}

# swift:6.2-bookworm: scripts/docker/swift.Dockerfile over a context streamed straight from
# the toolchain's folders (nothing copied first), holding only what the release build uses.
seed_swift() {
    local bin prefix rel part members=() sources
    bin=$(dirname "$(readlink -f "$(command -v swift)")")
    prefix=$(dirname "$bin")
    for part in bin/swift bin/swift-driver bin/swiftc bin/swift-frontend bin/swift-package \
        bin/swift-build bin/swift-build-tool bin/swift-autolink-extract bin/clang bin/clang++ \
        "$(cd "$bin" && readlink -f clang | xargs basename | sed 's|^|bin/|')" \
        lib/swift lib/swift_static lib/clang include share/swift share/pm; do
        [ -e "$prefix/$part" ] && members+=("${prefix#/}/$part")
    done
    cp scripts/docker/swift.Dockerfile "$work/Dockerfile"
    # (Several insteadOf entries name one folder: each folder once, or tar would store the
    # second copy as hard links to the first.)
    sources=$(swift_package_sources "$work/gitconfig" | sort -u)
    while read -r part; do members+=("${part#/}"); done <<< "$sources"
    rel=${work#/}
    # Every member goes under rootfs/ at its path on this machine, except the Dockerfile and
    # the git config. Left out: Embedded Swift and the ABI baselines (about 600 MB), the
    # sanitizer and profiling runtimes of clang; lldb, sourcekit-lsp, lld, docs and the
    # rest of bin/ are not listed at all.
    tar -c -C / --exclude='*/lib/swift/embedded' --exclude='*/lib/swift_static/embedded' \
        --exclude='*/lib/swift/FrameworkABIBaseline' --exclude="${prefix#/}/lib/clang/*/lib" \
        --transform="s|^|rootfs/|S;s|^rootfs/$rel/Dockerfile\$|Dockerfile|;s|^rootfs/$rel/gitconfig\$|rootfs/etc/gitconfig|" \
        "${members[@]}" "$rel/Dockerfile" "$rel/gitconfig" \
        | docker build -q --build-arg "SWIFT_BIN=$bin" -t swift:6.2-bookworm - > "$work/seed-swift.log" 2>&1 \
        || { cat "$work/seed-swift.log" >&2; return 1; }
}

seed_nginx() {
    docker build -q -t nginx:stable-bookworm -f scripts/docker/nginx.Dockerfile scripts/docker \
        > "$work/seed-nginx.log" 2>&1 || { cat "$work/seed-nginx.log" >&2; return 1; }
}

seed_start=$(date +%s)
for image in debian:bookworm-slim swift:6.2-bookworm nginx:stable-bookworm; do
    have_image "$image" && continue
    step=$(date +%s)
    log "seeding $image (once per machine) ..."
    case "$image" in
    debian:*) seed_debian ;;
    swift:*) seed_swift ;;
    nginx:*) seed_nginx ;;
    esac
    log "seeded $image in $(elapsed "$step")"
    seeded+=("$image")
done
seed_time=$(( $(date +%s) - seed_start ))

# --- 3. the image -----------------------------------------------------------------------------

build_start=$(date +%s)
old_image=$(docker image inspect -f '{{.Id}}' thumbd:test 2> /dev/null || true)
# The face model as `make` fetches it: the build takes that copy from the context (this
# machine's proxy re-signs TLS with its own authority, which pip in the build would refuse).
scripts/face-model.sh
log "building the Dockerfile (docker build -t thumbd:test .) ..."
if ! docker build -t thumbd:test . > "$state/build.log" 2>&1; then
    tail -40 "$state/build.log" >&2
    echo "not ok - image_builds: docker build failed (log: .build/docker-test/build.log)"
    exit 1
fi
build_time=$(( $(date +%s) - build_start ))
new_image=$(docker image inspect -f '{{.Id}}' thumbd:test)
# The previous build's image, now untagged, goes; so does its build stage (2.6 GB, the
# sources and .build included), which the classic builder leaves untagged: it is tagged
# thumbd:test-build to be found next time. Layers the new build shares with them stay,
# so the next build still finds the apt layers in its cache.
build_stage=$(awk '/^ ---> [0-9a-f]+$/ { id = $2 } /^Step [0-9]+\/[0-9]+ : FROM / && n++ { print id; exit }' "$state/build.log")
old_stage=$(docker image inspect -f '{{.Id}}' thumbd:test-build 2> /dev/null || true)
[ -n "$build_stage" ] && docker tag "$build_stage" thumbd:test-build
for old in "$old_image" "$old_stage"; do
    [ -n "$old" ] && [ "$old" != "$new_image" ] && [[ "$(docker image inspect -f '{{.RepoTags}}' "$old" 2> /dev/null)" != *thumbd:* ]] \
        && { docker rmi "$old" > /dev/null 2>&1 || true; }
done
image_mb=$(( $(docker image inspect -f '{{.Size}}' thumbd:test) / 1000000 ))
echo "ok - image_builds: thumbd:test, $image_mb MB, built in ${build_time}s"

# --- checks -----------------------------------------------------------------------------------

passed=1
failed=0
failures=()
check() {  # check NAME: runs check_NAME, which prints its reason and returns non-zero on failure
    local name=$1 reason
    if "check_$name" > "$work/reason" 2>&1; then
        echo "ok - $name"
        passed=$((passed + 1))
    else
        reason=$(tr '\n' ' ' < "$work/reason" | sed 's/ *$//')
        echo "not ok - $name: ${reason:-failed}"
        failed=$((failed + 1))
        failures+=("$name")
    fi
}

# request URL [CURL-ARGS...]: the status code; headers in $work/h, body in $work/b.
request() {
    local url=$1
    shift
    curl -s -o "$work/b" -D "$work/h" -w '%{http_code}' --max-time 30 "$@" "$url" || true
}
# header NAME: that field of the last response.
header() { grep -i "^$1:" "$work/h" | tail -1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }

wait_health() {  # wait_health URL SECONDS: until URL/health answers 200
    local deadline=$((SECONDS + $2))
    while [ "$SECONDS" -lt "$deadline" ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1/health" || true)" = 200 ] && return 0
        sleep 0.1
    done
    return 1
}
published() {  # published CONTAINER: http://127.0.0.1:PORT of its port 8080
    local address
    address=$(docker port "$1" 8080/tcp | awk '/^127\.0\.0\.1:/ && !found { print; found = 1 }')
    [ -n "$address" ] && echo "http://$address"
}

# The library: small gradients, and a noise PNG of 12 MB that a slow client takes seconds to
# fetch. Python's standard library
# writes them; nothing else is needed.
library="$work/library"
mkdir -p "$library"
python3 - "$library" << 'EOF'
import os, struct, sys, zlib
def png(path, width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + row for row in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
for n, (w, h) in enumerate([(640, 480), (480, 640), (600, 600)], 1):
    png(f"{sys.argv[1]}/photo-{n}.png", w, h,
        (bytes(v for x in range(w) for v in (x * 255 // w, y * 255 // h, (x + y + 60 * n) % 256)) for y in range(h)))
png(f"{sys.argv[1]}/noise.png", 2000, 2000, (os.urandom(2000 * 3) for _ in range(2000)))
# A one-page PDF filled red, its cross-reference table counted for these bytes.
objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
           b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>",
           b"<< /Length 27 >>\nstream\n0.9 0.1 0.1 rg 0 0 100 100 re f\nendstream"]
out, offsets = b"%PDF-1.4\n", []
for n, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
open(f"{sys.argv[1]}/page.pdf", "wb").write(out)
EOF
# A real photograph with a face, for the detector the image carries (scripts/face-photos.sh).
scripts/face-photos.sh
cp .build/face-photos/astronaut.png "$library/astronaut.png"
# A video: a red second, then a green one, H.264 in MP4 (ffmpeg, which make test's packages bring).
ffmpeg -hide_banner -loglevel error -f lavfi -i color=c=red:s=160x120:r=25:d=1 -f lavfi -i color=c=lime:s=160x120:r=25:d=1 \
    -filter_complex '[0][1]concat=n=2:v=1:a=0,format=yuv420p' -c:v libx264 -preset ultrafast -g 25 "$library/clip.mp4"
chmod -R a+rX "$library"
noise_bytes=$(stat -c %s "$library/noise.png")

# The mounted configuration: the repository's file with output.cache_control and
# output.client_hints changed; the container also gets THUMBD_OUTPUT_CACHE_CONTROL, which
# must win over the file (the documented precedence).
sed -e 's/^  cache_control: .*/  cache_control: public, max-age=4242/' \
    -e 's/^  client_hints: false/  client_hints: true/' config/thumbd.yaml > "$work/thumbd.yaml"
grep -q 'max-age=4242' "$work/thumbd.yaml" && grep -q 'client_hints: true' "$work/thumbd.yaml"
chmod 644 "$work/thumbd.yaml"
env_cache_control="public, max-age=1234"

c="$run-single"
docker volume create --label "thumbd-test=$run" "$run-cache" > /dev/null
run_start=$(date +%s.%N)
docker run -d --name "$c" --label "thumbd-test=$run" -p 127.0.0.1::8080 \
    --read-only --tmpfs /tmp \
    -v "$library:/var/lib/thumbd/images:ro" -v "$run-cache:/var/cache/thumbd" \
    -v "$work/thumbd.yaml:/etc/thumbd/thumbd.yaml:ro" \
    -e "THUMBD_OUTPUT_CACHE_CONTROL=$env_cache_control" \
    thumbd:test > /dev/null
base=$(published "$c" || true)

since() { awk -v now="$(date +%s.%N)" -v start="$1" 'BEGIN { printf "%.1f", now - start }'; }

health_seconds=""
check_health_within_20s() {
    [ -n "$base" ] || { echo "port 8080 is not published on 127.0.0.1"; return 1; }
    wait_health "$base" 20 || { echo "no 200 from /health within 20 s of docker run"; docker logs --tail 5 "$c" 2>&1; return 1; }
    health_seconds=$(since "$run_start")
}

# logs_contain TEXT: whether the container's log has TEXT. Read whole first: `docker logs |
# grep -q` under pipefail fails when grep exits at the match and docker logs gets SIGPIPE.
logs_contain() {
    local text
    text=$(docker logs "$c" 2>&1)
    grep -qF -- "$1" <<< "$text"
}

check_libvips_vector_guarded() {  # the image's binary puts liborc behind the shim's lock (orcguard.c)
    logs_contain 'libvips.vector=guarded' \
        || { echo "start-up line: $(docker logs "$c" 2>&1 | grep -m1 'listening on' | cut -c1-200)"; return 1; }
}

# binds_to_binary LIBRARY SYMBOL...: the image's thumbd, binding every symbol at load, binds
# each SYMBOL that LIBRARY calls to its own definition (a stand-in it does not export is bound
# to the library's)
binds_to_binary() {
    local library=$1 out bindings name
    shift
    out=$(docker run --rm -e LD_DEBUG=bindings -e LD_BIND_NOW=1 --entrypoint /usr/local/bin/thumbd thumbd:test --version 2>&1) \
        || { echo "$out" | tail -3; return 1; }
    for name in "$@"; do
        bindings=$(grep "$library.*\`$name'" <<< "$out" || true)
        [ -n "$bindings" ] || { echo "$library binds no $name"; return 1; }
        if grep -v '/thumbd \[0\]: normal symbol' <<< "$bindings"; then return 1; fi
    done
}

check_printf_hooks_refused() {  # libquadmath's printf handlers bind to the image binary's stand-ins (printfhooks.c)
    binds_to_binary libquadmath register_printf_specifier register_printf_modifier register_printf_type
}

check_jpeg_scratch_bound() {  # libjpeg's large buffers bind to the image binary's pool (jpegscratch.c)
    binds_to_binary libjpeg jpeg_get_large jpeg_free_large
}

check_runs_as_uid_10001() {
    local pid uid
    pid=$(docker inspect -f '{{.State.Pid}}' "$c")
    uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
    [ "$uid" = 10001 ] || { echo "thumbd runs as uid $uid"; return 1; }
}

check_read_only_root_and_library() {
    local path out
    # As root inside, so that only the mounts' read-only flag can refuse the writes.
    for path in /usr/local/bin/x /etc/thumbd/x /var/lib/thumbd/images/x; do
        if out=$(docker exec -u 0 "$c" touch "$path" 2>&1); then
            echo "$path could be written"
            return 1
        fi
        grep -q 'Read-only file system' <<< "$out" || { echo "$path: $out"; return 1; }
    done
    # ... and thumbd still wrote the thumbnail to its disk tier, on the cache volume.
    for _ in $(seq 1 20); do
        [ -n "$(docker exec "$c" find /var/cache/thumbd -path '*/tmp' -prune -o -type f -size +0 -print -quit)" ] && return 0
        sleep 0.1
    done
    echo "no disk-tier entry in /var/cache/thumbd"
    return 1
}

check_original() {
    local code
    code=$(request "$base/img/photo-1.png")
    [ "$code" = 200 ] || { echo "GET /img/photo-1.png: $code"; return 1; }
    cmp -s "$work/b" "$library/photo-1.png" || { echo "the original's bytes differ from the file"; return 1; }
}

thumb_etag=""
check_thumbnail() {
    local code
    code=$(request "$base/img/photo-1.png?w=160&fm=jpeg")
    [ "$code" = 200 ] || { echo "GET thumbnail: $code"; return 1; }
    [ "$(header content-type)" = image/jpeg ] || { echo "content-type $(header content-type)"; return 1; }
    [ "$(head -c 3 "$work/b" | od -An -tx1 | tr -d ' ')" = ffd8ff ] || { echo "not a JPEG"; return 1; }
    [ "$(header x-cache)" = miss ] || { echo "X-Cache $(header x-cache) on the first request"; return 1; }
    thumb_etag=$(header etag)
}

check_range_206() {
    local code
    code=$(request "$base/img/photo-2.png" -H 'Range: bytes=100-199')
    [ "$code" = 206 ] || { echo "status $code"; return 1; }
    [ "$(stat -c %s "$work/b")" = 100 ] || { echo "$(stat -c %s "$work/b") bytes"; return 1; }
    cmp -s "$work/b" <(tail -c +101 "$library/photo-2.png" | head -c 100) || { echo "wrong bytes"; return 1; }
    [[ "$(header content-range)" == "bytes 100-199/"* ]] || { echo "Content-Range $(header content-range)"; return 1; }
}

check_revalidation_304() {
    local code
    [ -n "$thumb_etag" ] || { echo "no ETag from the thumbnail check"; return 1; }
    code=$(request "$base/img/photo-1.png?w=160&fm=jpeg" -H "If-None-Match: $thumb_etag")
    [ "$code" = 304 ] || { echo "status $code for If-None-Match $thumb_etag"; return 1; }
}

check_config_environment() {
    request "$base/img/photo-3.png?w=100" > /dev/null
    [ "$(header cache-control)" = "$env_cache_control" ] \
        || { echo "Cache-Control '$(header cache-control)', THUMBD_OUTPUT_CACHE_CONTROL says '$env_cache_control'"; return 1; }
}

check_config_mounted_file() {
    request "$base/img/photo-3.png?w=100" > /dev/null
    [ -n "$(header accept-ch)" ] || { echo "no Accept-CH: the mounted file's output.client_hints did not take effect"; return 1; }
}

# scripts/check-runtime-libs.sh on the image's own binary: each of its libraries comes from a
# package the runtime stage names (or their dependencies), and no build of its own is needed.
check_runtime_packages_provide_libraries() {
    local id out
    id=$(docker create thumbd:test) || { echo "docker create failed"; return 1; }
    docker cp "$id:/usr/local/bin/thumbd" "$work/thumbd" > /dev/null 2>&1
    docker rm -v "$id" > /dev/null
    [ -x "$work/thumbd" ] || { echo "no /usr/local/bin/thumbd in the image"; return 1; }
    out=$(BINARY="$work/thumbd" scripts/check-runtime-libs.sh 2>&1) || { echo "$out" | tail -3; return 1; }
}

check_runtime_libraries_resolve() {
    local out
    out=$(docker run --rm --entrypoint ldd thumbd:test /usr/local/bin/thumbd 2>&1) || { echo "$out" | tail -3; return 1; }
    if grep -q 'not found' <<< "$out"; then grep 'not found' <<< "$out"; return 1; fi
}

check_image_under_400mb() {
    [ "$image_mb" -lt 400 ] || { echo "thumbd:test is $image_mb MB"; return 1; }
}

# The image's detector (OpenCV without Mesa, its cascades copied) finds the face, and a face
# crop with the face hidden is made.
check_faces_found() {
    local code
    code=$(request "$base/v1/images/astronaut.png")
    [ "$code" = 200 ] || { echo "info: $code"; return 1; }
    python3 -c 'import json, sys; faces = json.load(open(sys.argv[1]))["faces"]; sys.exit(0 if len(faces) == 1 and abs(faces[0]["x"] - 178) < 20 else 1)' "$work/b" \
        || { echo "faces: $(head -c 300 "$work/b")"; return 1; }
    code=$(request "$base/img/astronaut.png?w=120&h=60&fit=cover&crop=face&redact=face&fm=png")
    [ "$code" = 200 ] || { echo "face crop: $code"; return 1; }
}

# first_pixel PNG: "r g b" of its first pixel (every PNG filter leaves a lone pixel of the
# first row as it is).
first_pixel() {
    python3 -c '
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
idat, i = b"", 8
while i < len(data):
    length, kind = struct.unpack(">I", data[i:i + 4])[0], data[i + 4:i + 8]
    if kind == b"IDAT": idat += data[i + 8:i + 8 + length]
    i += 12 + length
print(*zlib.decompress(idat)[1:4])' "$1"
}

check_video_poster_and_original() {  # FFmpeg's libraries in the image: the frame at 1.5 s is green
    local code
    # One pixel: every PNG filter leaves a lone pixel of the first row as it is.
    code=$(request "$base/img/clip.mp4?w=1&h=1&fit=fill&t=1.5&fm=png")
    [ "$code" = 200 ] || { echo "poster: $code $(head -c 300 "$work/b")"; return 1; }
    read -r r g b < <(first_pixel "$work/b")
    [ "$g" -gt 200 ] && [ "$r" -lt 60 ] && [ "$b" -lt 60 ] || { echo "poster: not green at 1.5 s ($r $g $b)"; return 1; }
    code=$(request "$base/img/clip.mp4" -H "Range: bytes=0-99")
    [ "$code" = 206 ] && [ "$(header Content-Type)" = video/mp4 ] || { echo "original: $code $(header Content-Type)"; return 1; }
}

# A PDF page drawn by a renderer process the image's binary starts (render-vectors), under
# its seccomp filter: no warning that the kernel refused it.
check_pdf_page_in_sandboxed_renderer() {
    local code
    code=$(request "$base/img/page.pdf?w=1&h=1&fit=fill&fm=png")
    [ "$code" = 200 ] || { echo "page: $code $(head -c 300 "$work/b")"; return 1; }
    read -r r g b < <(first_pixel "$work/b")
    [ "$r" -gt 200 ] && [ "$g" -lt 60 ] && [ "$b" -lt 60 ] || { echo "page: not red ($r $g $b)"; return 1; }
    if logs_contain 'without their seccomp filter'; then echo "the renderer runs without its seccomp filter"; return 1; fi
}

healthy_seconds=""
check_healthcheck_turns_healthy() {
    local status first deadline=$((SECONDS + 45))
    while [ "$SECONDS" -lt "$deadline" ]; do
        status=$(docker inspect -f '{{.State.Health.Status}}' "$c" 2> /dev/null || true)
        if [ "$status" = healthy ]; then
            # From docker run to the end of the first passing probe (not to this poll).
            first=$(docker inspect -f '{{range .State.Health.Log}}{{if eq .ExitCode 0}}{{json .End}}{{"\n"}}{{end}}{{end}}' "$c" | awk 'NR == 1' | tr -d '"')
            healthy_seconds=$(awk -v at="$(date -d "$first" +%s.%N)" -v start="$run_start" 'BEGIN { printf "%.1f", at - start }')
            return 0
        fi
        [ "$status" = unhealthy ] && break
        sleep 0.5
    done
    echo "health status '$status' (docker inspect), $(docker inspect -f '{{json .State.Health.Log}}' "$c" | tail -c 300)"
    return 1
}

check_disk_tier_after_restart() {
    local code
    docker restart "$c" > /dev/null
    base=$(published "$c") || { echo "no published port after the restart"; return 1; }
    wait_health "$base" 20 || { echo "no /health after the restart"; return 1; }
    code=$(request "$base/img/photo-1.png?w=160&fm=jpeg")
    [ "$code" = 200 ] || { echo "status $code"; return 1; }
    [ "$(header x-cache)" = disk ] || { echo "X-Cache '$(header x-cache)' after docker restart, wanted disk"; return 1; }
    [ "$(header etag)" = "$thumb_etag" ] || { echo "ETag changed: $(header etag)"; return 1; }
}

check_stop_drains_slow_download() {
    local port pid stop_start stop_end exit_code
    port=${base##*:}
    # A client that reads 3 MB/s with a small receive buffer, keeping the connection alive as
    # browsers do: 4 s for noise.png (12 MB). When the stop comes, 1 s in, thumbd has written
    # the whole response and the connection is idle, but most of it is still on its way (in
    # the sockets and in docker-proxy), as for any slow client of a response that fits in
    # those buffers. It prints the status, the time it finished and whether the body is the
    # file, byte for byte.
    python3 - "$port" "$library/noise.png" > "$work/slow" << 'PY' &
import socket, sys, time
port, path = int(sys.argv[1]), sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
s.connect(("127.0.0.1", port))
s.sendall(b"GET /img/noise.png HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
data, start = bytearray(), time.monotonic()
head, length = None, None
while head is None or len(data) < length:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
    if head is None and b"\r\n\r\n" in data:
        head, _, rest = bytes(data).partition(b"\r\n\r\n")
        data = bytearray(rest)
        length = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
    ahead = len(data) / 3e6 - (time.monotonic() - start)
    if ahead > 0:
        time.sleep(ahead)
status = head.split(b" ")[1].decode() if head else "none"
same = open(path, "rb").read() == bytes(data)
print(status, f"{time.time():.3f}", len(data), "intact" if same else "truncated")
PY
    pid=$!
    sleep 1
    stop_start=$(date +%s.%N)
    docker stop -t 30 "$c" > /dev/null
    stop_end=$(date +%s.%N)
    wait "$pid" || true
    exit_code=$(docker inspect -f '{{.State.ExitCode}}' "$c")
    python3 - "$stop_start" "$stop_end" "$exit_code" "$noise_bytes" $(cat "$work/slow") << 'PY'
import sys
start, end, code, size = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
status, done, got, intact = (sys.argv[5:] + ["none", "0", "0", "missing"])[:4]
problems = []
if status != "200" or intact != "intact":
    problems.append(f"status {status}, {got} of {size} bytes, {intact}")
elif float(done) < start + 1:
    problems.append(f"the download ended {float(done) - start:.1f} s after the stop: too fast to test draining")
elif float(done) > end + 0.3:
    problems.append(f"thumbd exited {float(done) - end:.1f} s before the client had the whole body (the rest was still on its way)")
if end - start > 10.5:
    problems.append(f"docker stop took {end - start:.1f} s, more than server.drain_seconds (10 s)")
if code != "0":
    problems.append(f"exit status {code}")
print("; ".join(problems))
sys.exit(1 if problems else 0)
PY
    [ $? = 0 ] || { docker logs --tail 4 "$c" 2>&1 | cut -c1-160; return 1; }
}

# --- compose ----------------------------------------------------------------------------------

# compose_in PROJECT ARGS...: docker-compose on that project's files. The tests run the image
# under test (the override files name thumbd:test; `up --no-build` neither builds nor pulls)
# and publish on a free loopback port (PUBLISH=127.0.0.1:).
compose_in() {
    local project=$1 files
    shift
    case "$project" in
    *single) files=(-f deploy/docker-compose.yml -f scripts/docker/single.override.yaml) ;;
    *cluster) files=(-f deploy/cluster/compose.yaml -f scripts/docker/cluster.override.yaml) ;;
    # The S3 mode as a user runs it, with the bundled store (the library mount of the
    # cluster override replaced by compose.s3.yaml's tmpfs).
    *clusters3) files=(-f deploy/cluster/compose.yaml -f scripts/docker/cluster.override.yaml -f deploy/cluster/compose.s3.yaml
                      -f deploy/cluster/compose.store.yaml) ;;
    # The Varnish of compose.cdn.yaml in front of the folder cluster.
    *clustercdn) files=(-f deploy/cluster/compose.yaml -f scripts/docker/cluster.override.yaml -f deploy/cluster/compose.cdn.yaml) ;;
    esac
    THUMBD_TEST_LIBRARY="$library" PUBLISH=127.0.0.1: STORE_IMAGE=thumbd-store:test S3_SEED_FOLDER="$library" \
        VARNISH_IMAGE=thumbd-varnish:test CDN_PUBLISH=127.0.0.1: THUMBD_ADMIN_TOKEN=docker-test-admin-token-0123 \
        THUMBD_S3_ACCESS_KEY=THUMBDTESTACCESSKEY THUMBD_S3_SECRET_KEY=thumbd-test-secret-key-0123456789 \
        S3_LIBRARY=s3://photos/ S3_SHARED_CACHE=s3://photos/thumbd-cache/ S3_ENDPOINT=http://store:7480 \
        compose -p "$project" "${files[@]}" "$@"
}
compose_down() { compose_in "$1" down -v --remove-orphans --timeout 20 > /dev/null 2>&1; }
compose_up() {  # compose_up PROJECT SERVICE: up -d, then prints the URL of SERVICE's port 8080
    local service=$2
    compose_in "$1" up -d --no-build > "$work/compose-$1.log" 2>&1 || { tail -5 "$work/compose-$1.log"; return 1; }
    echo "http://$(compose_in "$1" port "$service" 8080 | grep '^127\.0\.0\.1:')"
}

check_compose_single() {
    local url code
    url=$(compose_up "$project_single" thumbd) || { echo "up failed: $url"; return 1; }
    [ "$url" != "http://" ] || { echo "no port published on 127.0.0.1"; return 1; }
    wait_health "$url" 20 || { echo "no 200 from /health within 20 s"; return 1; }
    code=$(request "$url/img/photo-2.png?w=120")
    [ "$code" = 200 ] && [ "$(header x-cache)" = miss ] || { echo "thumbnail: $code, X-Cache $(header x-cache)"; return 1; }
    compose_down "$project_single" || { echo "down failed"; return 1; }
}

cluster=""
urls=()
for image in photo-1 photo-2 photo-3; do
    for w in 40 56 72 88 104 120 136 152 168 184; do urls+=("/img/$image.png?w=$w&fm=webp"); done
done
# pass: GET every URL of the set through the balancer, one connection; prints "STATUS X-CACHE" each.
pass() {
    local args=() url
    for url in "${urls[@]}"; do args+=(-o /dev/null "$cluster$url"); done
    curl -s --max-time 60 -w '%{http_code} %header{x-cache}\n' "${args[@]}" || true
}

replica() {  # replica I [SERVICE-PREFIX]: the container id of thumbd-I in the cluster under test
    docker ps -q --filter "label=com.docker.compose.project=${project_now:-$project_cluster}" \
        --filter "label=com.docker.compose.service=${2-thumbd-}$1"
}

replica_answers() {  # replica_answers I: until thumbd-I answers /health inside its container (30 s)
    for _ in $(seq 1 150); do
        docker exec "$(replica "$1")" curl -fsS -o /dev/null http://127.0.0.1:8080/health 2> /dev/null && return 0
        sleep 0.2
    done
    echo "thumbd-$1 does not answer /health"
    return 1
}

check_cluster_up() {
    local i
    cluster=$(compose_up "$project_cluster" balancer) || { echo "up failed: $cluster"; return 1; }
    [ "$cluster" != "http://" ] || { echo "the balancer publishes no port on 127.0.0.1"; return 1; }
    # Every replica answers before the first pass, so each URI goes to its own replica.
    for i in 1 2 3; do replica_answers "$i" || return 1; done
    wait_health "$cluster" 10 || { echo "no 200 from /health through the balancer"; return 1; }
}

check_cluster_each_thumbnail_made_once() {
    local first second
    [ "$cluster" != "" ] || { echo "the cluster is not up"; return 1; }
    first=$(pass | sort | uniq -c | tr -s ' ' | tr '\n' ',')
    second=$(pass | sort | uniq -c | tr -s ' ' | tr '\n' ',')
    [ "$first" = " ${#urls[@]} 200 miss," ] || { echo "first pass:$first (wanted ${#urls[@]} misses)"; return 1; }
    [ "$second" = " ${#urls[@]} 200 memory," ] || { echo "second pass:$second (wanted ${#urls[@]} memory hits)"; return 1; }
}

check_cluster_kill_fails_no_request() {
    local pids=() i bad total
    [ "$cluster" != "" ] || { echo "the cluster is not up"; return 1; }
    rm -f "$work/load.stop"
    : > "$work/load"
    for i in 1 2 3; do
        (while [ ! -e "$work/load.stop" ]; do pass >> "$work/load"; done) &
        pids+=($!)
    done
    sleep 1.5
    docker kill "$(replica 2)" > /dev/null
    sleep 4
    touch "$work/load.stop"
    wait "${pids[@]}" || true
    total=$(wc -l < "$work/load")
    bad=$(grep -vc '^200 ' "$work/load" || true)
    [ "$total" -gt 0 ] || { echo "the load made no request"; return 1; }
    [ "$bad" = 0 ] || { echo "$bad of $total requests failed: $(grep -v '^200 ' "$work/load" | sort | uniq -c | tr -s ' ' | head -3 | tr '\n' ',')"; return 1; }
}

# The S3 mode of the cluster as a user runs it: compose.yaml, compose.s3.yaml and the bundled
# store (compose.store.yaml: a single-node Ceph RGW built from store/Dockerfile), the bucket
# seeded with the test library, the shared tier on.
metric() {  # metric REPLICA NAME LABEL: the sum of that counter's series (with LABEL) on thumbd-REPLICA
    docker exec "$(replica "$1")" curl -fsS http://127.0.0.1:8080/metrics 2> /dev/null \
        | awk -v name="$2{" -v label="$3" 'index($0, name) == 1 && index($0, label) { sum += $NF } END { print sum + 0 }'
}

# CDN -> balancer -> replicas: compose.cdn.yaml's Varnish (Debian's, built from
# deploy/varnish/Dockerfile) in front of the folder cluster.
varnish=""
check_cdn_cluster_cached_in_varnish() {
    local code first second
    project_now=$project_cdn
    docker build -q -t thumbd-varnish:test deploy/varnish > "$work/varnish-build.log" 2>&1 \
        || { tail -3 "$work/varnish-build.log"; return 1; }
    cluster=$(compose_up "$project_cdn" balancer) || { echo "up failed: $cluster"; return 1; }
    varnish="http://$(compose_in "$project_cdn" port varnish 80 | grep '^127\.0\.0\.1:')"
    [ "$varnish" != "http://" ] || { echo "the Varnish publishes no port on 127.0.0.1"; return 1; }
    for i in 1 2 3; do replica_answers "$i" || return 1; done
    wait_health "$varnish" 20 || { echo "no 200 from /health through the Varnish"; return 1; }
    code=$(request "$varnish/img/photo-1.png?w=64&fm=webp")
    first="$code $(header x-varnish-cache) $(header cache-control)"
    code=$(request "$varnish/img/photo-1.png?w=64&fm=webp")
    second="$code $(header x-varnish-cache)"
    [ "$first" = "200 miss public, max-age=86400, s-maxage=604800, stale-while-revalidate=60, stale-if-error=86400" ] \
        && [ "$second" = "200 hit" ] || { echo "first: $first; second: $second"; return 1; }
    [ -z "$(header xkey)" ] || { echo "the tags reached the client: $(header xkey)"; return 1; }
}

check_cdn_purge_reaches_varnish() {
    local code
    [ "$varnish" != "" ] || { echo "the CDN cluster is not up"; return 1; }
    # Another source, cached in Varnish before the purge: it stays cached.
    code=$(request "$varnish/img/photo-2.png?w=64&fm=webp")
    code=$(request "$varnish/img/photo-2.png?w=64&fm=webp")
    [ "$code $(header x-varnish-cache)" = "200 hit" ] || { echo "another source before: $code $(header x-varnish-cache)"; return 1; }
    # A problem (no-store) is never kept.
    request "$varnish/img/missing.png?w=64" > /dev/null
    code=$(request "$varnish/img/missing.png?w=64")
    [ "$code $(header x-varnish-cache)" = "404 miss" ] || { echo "a 404 was kept: $code $(header x-varnish-cache)"; return 1; }
    code=$(request "$cluster/v1/purge?path=photo-1.png" -X POST -H "Authorization: Bearer docker-test-admin-token-0123")
    [ "$code" = 200 ] && grep -q '"cdn":{"requests":1,"status":"purged"' "$work/b" || { echo "purge: $code $(cat "$work/b")"; return 1; }
    code=$(request "$varnish/img/photo-1.png?w=64&fm=webp")
    [ "$code $(header x-varnish-cache)" = "200 miss" ] || { echo "after the purge: $code $(header x-varnish-cache)"; return 1; }
    code=$(request "$varnish/img/photo-2.png?w=64&fm=webp")
    [ "$code $(header x-varnish-cache)" = "200 hit" ] || { echo "another source after: $code $(header x-varnish-cache)"; return 1; }
}

check_s3_cluster_up() {
    local seed status i
    project_now=$project_s3
    docker build -q -t thumbd-store:test deploy/cluster/store > "$work/store-build.log" 2>&1 \
        || { tail -3 "$work/store-build.log"; return 1; }
    cluster=$(compose_up "$project_s3" balancer) || { echo "up failed: $cluster"; return 1; }
    seed=$(replica seed store-)
    [ -n "$seed" ] || seed=$(docker ps -aq --filter "label=com.docker.compose.project=$project_s3" --filter "label=com.docker.compose.service=store-seed")
    status=$(timeout 120 docker wait "$seed" 2> /dev/null || echo timeout)
    [ "$status" = 0 ] || { echo "store-seed: $status: $(docker logs --tail 3 "$seed" 2>&1 | tr '\n' ' ')"; return 1; }
    for i in 1 2 3; do replica_answers "$i" || return 1; done
    wait_health "$cluster" 10 || { echo "no 200 from /health through the balancer"; return 1; }
}

check_s3_cluster_each_thumbnail_made_once() {
    [ "$project_now" = "$project_s3" ] || { echo "the S3 cluster is not up"; return 1; }
    check_cluster_each_thumbnail_made_once
}

check_s3_cluster_originals_with_range() {
    local code
    [ "$project_now" = "$project_s3" ] || { echo "the S3 cluster is not up"; return 1; }
    code=$(request "$cluster/img/photo-1.png")
    [ "$code" = 200 ] && cmp -s "$work/b" "$library/photo-1.png" || { echo "original: $code, bytes differ"; return 1; }
    code=$(request "$cluster/img/photo-2.png" -H 'Range: bytes=100-199')
    [ "$code" = 206 ] && cmp -s "$work/b" <(tail -c +101 "$library/photo-2.png" | head -c 100) \
        || { echo "range: $code, $(header content-range)"; return 1; }
}

check_s3_cluster_kill_fails_no_request() {
    [ "$project_now" = "$project_s3" ] || { echo "the S3 cluster is not up"; return 1; }
    check_cluster_kill_fails_no_request || return 1
    compose_in "$project_s3" up -d --no-build thumbd-2 > /dev/null 2>&1 || { echo "thumbd-2 did not start again"; return 1; }
    replica_answers 2
}

check_s3_cluster_store_stopped_and_back() {
    local code retry held
    [ "$project_now" = "$project_s3" ] || { echo "the S3 cluster is not up"; return 1; }
    compose_in "$project_s3" stop store > /dev/null 2>&1 || { echo "could not stop the store"; return 1; }
    # Held thumbnails are answered; an image never asked (its version unknown) is 503.
    held=$(pass)
    [ "$(grep -vc '^200 ' <<< "$held")" = 0 ] \
        || { echo "held thumbnails with the store stopped: $(sort <<< "$held" | uniq -c | tr -s ' ' | tr '\n' ',')"; return 1; }
    code=$(request "$cluster/img/noise.png?w=90")
    retry=$(header retry-after)
    [ "$code" = 503 ] && [ -n "$retry" ] || { echo "a new image with the store stopped: $code, Retry-After '$retry'"; return 1; }
    compose_in "$project_s3" start store > /dev/null 2>&1 || { echo "could not start the store"; return 1; }
    for _ in $(seq 1 300); do
        [ "$(docker inspect -f '{{.State.Health.Status}}' "$(replica store "")")" = healthy ] && break
        sleep 0.2
    done
    # The replicas were not restarted: the next request after the store's pause is made.
    for _ in $(seq 1 50); do
        code=$(request "$cluster/img/noise.png?w=90")
        [ "$code" = 200 ] && return 0
        sleep 0.2
    done
    echo "the store is back but a new image still answers $code"
    return 1
}

check_s3_cluster_recreated_replica_makes_nothing() {
    local first misses made
    [ "$project_now" = "$project_s3" ] || { echo "the S3 cluster is not up"; return 1; }
    # Everything in the shared tier (writes go behind the answers).
    pass > /dev/null
    sleep 2
    compose_in "$project_s3" rm -sfv thumbd-3 > /dev/null 2>&1
    docker volume rm "${project_s3}_cache-3" > /dev/null 2>&1 || { echo "thumbd-3's cache volume is still there"; return 1; }
    compose_in "$project_s3" up -d --no-build thumbd-3 > /dev/null 2>&1 || { echo "thumbd-3 did not come back"; return 1; }
    replica_answers 3 || return 1
    # nginx resolves the replicas' names when it loads its configuration: a reload learns the
    # new container's address.
    docker exec "$(replica balancer "")" nginx -s reload > /dev/null 2>&1 || { echo "nginx did not reload"; return 1; }
    sleep 1
    wait_health "$cluster" 20 || { echo "the balancer does not answer after its reload"; return 1; }
    first=$(pass)
    misses=$(grep -c ' miss$' <<< "$first" || true)
    made=$(metric 3 thumbd_transforms_total 'result="ok"')
    [ "$(grep -vc '^200 ' <<< "$first")" = 0 ] || { echo "failures: $(grep -v '^200 ' <<< "$first" | head -2 | tr '\n' ',')"; return 1; }
    [ "$misses" = 0 ] && [ "$made" = 0 ] || { echo "$misses misses, thumbd-3 made $made"; return 1; }
    [ "$(metric 3 thumbd_cache_requests_total 'tier="shared",result="hit"')" -gt 0 ] || { echo "thumbd-3 had no shared hit"; return 1; }
}

# --- memory ------------------------------------------------------------------------------------

# The image with its defaults under a container memory limit (limits.memory_bytes: auto reads
# it from the cgroup): a storm of large AVIF, JPEG XL and WebP misses of multi-megapixel
# photographs, 8 at a time for at least 60 s (scripts/miss-storm.sh). Prints
# "answers ok busy other lost refused peak_mb oom restarts running health seconds".
storm_library "$state/storm-library"
chmod -R a+rX "$state/storm-library"
storm_in_container() {
    local mb=$1 name="$run-storm-$1" url start seconds peak oom restarts running health refused summary
    docker run -d --name "$name" --label "thumbd-test=$run" -p 127.0.0.1::8080 --memory "${mb}m" --memory-swap "${mb}m" \
        -v "$state/storm-library:/var/lib/thumbd/images:ro" thumbd:test > /dev/null || true
    url=$(published "$name" || true)
    if [ -z "$url" ] || ! wait_health "$url" 20; then
        echo "0 0 0 0 0 0 0 ? ? false 000 0"
        return
    fi
    storm_urls "$url" > "$work/storm-urls-$mb"
    start=$SECONDS
    storm_run "$work/storm-urls-$mb" 8 "$work/storm-$mb" 60 || true
    seconds=$((SECONDS - start))
    summary=$(storm_summary "$work/storm-$mb" || echo "0 0 0 0 0")
    health=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$url/health" || true)
    refused=$(curl -s --max-time 5 "$url/metrics" | awk '$1 == "thumbd_transform_memory_refusals_total" { printf "%d", $2 }' || true)
    # The cgroup's own peak (v1 memory.max_usage_in_bytes, v2 memory.peak), read inside.
    peak=$(docker exec "$name" sh -c 'cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.peak' \
        2> /dev/null || echo 0)
    oom=$(docker inspect -f '{{.State.OOMKilled}}' "$name" 2> /dev/null || echo unknown)
    restarts=$(docker inspect -f '{{.RestartCount}}' "$name" 2> /dev/null || echo unknown)
    running=$(docker inspect -f '{{.State.Running}}' "$name" 2> /dev/null || echo unknown)
    { docker logs "$name" 2>&1 | grep -m1 'memory: limit' | sed 's/^.*memory: /docker-test: sizing: /' >> "$work/memory-report"; } || true
    echo "$summary ${refused:-0} $((${peak:-0} / 1048576)) $oom $restarts $running ${health:-000} $seconds"
    docker rm -f -v "$name" > /dev/null 2>&1 || true
}

check_memory_storm() {  # check_memory_storm MB MIN_OK_PERCENT: the storm; fails on any OOM, loss or stray answer
    local mb=$1 least=$2 answers ok busy other lost refused peak oom restarts running health seconds problems=()
    read -r answers ok busy other lost refused peak oom restarts running health seconds < <(storm_in_container "$mb")
    echo "docker-test: --memory ${mb}m: $answers answers in ${seconds}s: $ok 200 ($((ok * 100 / (answers > 0 ? answers : 1)))%), $busy 503 with Retry-After, $other other ($refused refused for memory), $lost lost; cgroup peak $peak MiB" >> "$work/memory-report"
    [ "$oom" = false ] || problems+=("OOMKilled $oom")
    [ "$restarts" = 0 ] && [ "$running" = true ] || problems+=("restarts $restarts, running $running")
    [ "$lost" = 0 ] || problems+=("$lost requests got no answer")
    [ "$other" = "$refused" ] || problems+=("$((other - refused)) answers neither 200, 503 with Retry-After nor a memory refusal")
    [ $((ok * 100)) -ge $((least * answers)) ] && [ "$answers" -gt 0 ] || problems+=("$ok of $answers answered 200 (wanted $least%)")
    [ "$health" = 200 ] || problems+=("/health $health after the storm")
    [ "$seconds" -ge 60 ] || problems+=("the storm lasted ${seconds}s")
    [ ${#problems[@]} = 0 ] || { printf '%s; ' "${problems[@]}"; return 1; }
}
# 512 MiB: every transform of the storm fits (the JPEG XL of a 3200 x 2400 photo the largest):
# none refused, at least 90% made. 384 MiB: the largest JPEG XL are refused (422) before
# anything is decoded; the rest made.
check_memory_storm_512m() { check_memory_storm 512 90; }
check_memory_storm_384m() { check_memory_storm 384 80; }

# --- run --------------------------------------------------------------------------------------

project_single="${run}single"
project_cluster="${run}cluster"
project_s3="${run}clusters3"
project_cdn="${run}clustercdn"

check health_within_20s
check libvips_vector_guarded
check printf_hooks_refused
check jpeg_scratch_bound
check runs_as_uid_10001
check original
check thumbnail
check read_only_root_and_library
check range_206
check revalidation_304
check config_environment
check config_mounted_file
check runtime_libraries_resolve
check runtime_packages_provide_libraries
check image_under_400mb
check faces_found
check video_poster_and_original
check pdf_page_in_sandboxed_renderer
# The compose service runs while the HEALTHCHECK's first interval (15 s) passes.
check compose_single
check healthcheck_turns_healthy
check disk_tier_after_restart
check stop_drains_slow_download
check cluster_up
check cluster_each_thumbnail_made_once
check cluster_kill_fails_no_request
compose_down "$project_cluster" || true
check s3_cluster_up
check s3_cluster_each_thumbnail_made_once
check s3_cluster_originals_with_range
check s3_cluster_kill_fails_no_request
check s3_cluster_store_stopped_and_back
check s3_cluster_recreated_replica_makes_nothing
compose_down "$project_s3" || true
check cdn_cluster_cached_in_varnish
check cdn_purge_reaches_varnish
compose_down "$project_cdn" || true
check memory_storm_512m
check memory_storm_384m
cat "$work/memory-report" 2> /dev/null || true

total=$((passed + failed))
summary="image thumbd:test $image_mb MB; docker run to /health 200 in ${health_seconds:-?} s, to healthy in ${healthy_seconds:-?} s; $passed/$total checks passed"
[ ${#seeded[@]} -gt 0 ] && summary+="; seeded ${seeded[*]} in ${seed_time}s"
summary+="; build ${build_time}s, all $(elapsed "$t0")"
echo "docker-test: $summary"
if [ "$failed" -gt 0 ]; then
    echo "docker-test: failed: ${failures[*]}" >&2
    exit 1
fi
