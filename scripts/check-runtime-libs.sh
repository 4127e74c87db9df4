#!/usr/bin/env bash
# Checks what the image's runtime stage must provide: lists the release binary's shared
# libraries with ldd and checks with dpkg -S that each belongs to a package the runtime
# stage installs (the Dockerfile's RUNTIME_PACKAGES) or to one of their dependencies.
# The binary is BINARY when set (scripts/docker-test.sh passes the one from the image it
# built); otherwise, without any Docker engine, it is built here the way the Dockerfile does.
set -euo pipefail
cd "$(dirname "$0")/.."
dockerfile=${DOCKERFILE:-Dockerfile}
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    scratch=.build-static
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    swift build -c release --product thumbd --static-swift-stdlib --scratch-path "$scratch" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
    binary="$scratch/release/thumbd"
fi

packages=$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"/\1/p' "$dockerfile")
[ -n "$packages" ] || { echo "no RUNTIME_PACKAGES in the Dockerfile" >&2; exit 1; }
# shellcheck disable=SC2086
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $packages 2>/dev/null | grep -v '^ ' | tr -d '<>' | sort -u)

owner() {  # the package that owns a library file, trying the usr-merged spellings
    local path=$1 real
    real=$(readlink -f "$path")
    for candidate in "$path" "$real" "${path#/usr}" "/usr$path" "${real#/usr}" "/usr$real"; do
        if out=$(dpkg -S "$candidate" 2>/dev/null); then
            echo "${out%%:*}"
            return 0
        fi
    done
    return 1
}

missing=0
count=0
while read -r lib; do
    count=$((count + 1))
    if ! pkg=$(owner "$lib"); then
        echo "runtime libs: no package owns $lib" >&2
        missing=$((missing + 1))
        continue
    fi
    pkg=${pkg%%,*}
    if ! grep -qx "$pkg" <<< "$closure" && ! grep -qx "${pkg%:*}" <<< "$closure"; then
        echo "runtime libs: $lib comes from $pkg, which the runtime stage does not install" >&2
        missing=$((missing + 1))
    fi
done < <(ldd "$binary" | awk '/=>/ && $3 ~ /^\// { print $3 } /^\t\/.*ld-linux/ { print $1 }')
[ "$missing" -eq 0 ] || exit 1
echo "runtime libs: all $count shared libraries of the release binary come from the runtime stage's packages ($packages)"
