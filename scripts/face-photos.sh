#!/usr/bin/env bash
# Fetches the labelled photographs of Tests/Faces/labels.tsv into .build/face-photos (or
# the folder given): real photographs from Debian's packages, unpacked without installing
# them. scikit-image's (python3-skimage) and OpenCV's samples (opencv-doc) are downloaded
# with `apt-get download` and only the named files kept; the nature photographs come from
# mate-backgrounds, which scripts/ensure-deps.sh --tests installs. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/face-photos}
mkdir -p "$out"
skimage=(astronaut.png camera.png chelsea.png coffee.png rocket.jpg)
opencv=(basketball1.png messi5.jpg ela_original.jpg home.jpg pca_test1.jpg starry_night.jpg fruits.jpg baboon.jpg)
missing=false
for name in "${skimage[@]}" "${opencv[@]}"; do [ -s "$out/$name" ] || missing=true; done
if $missing; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    download() {
        (cd "$work" && apt-get download -qq "$@" >/dev/null 2>&1) && return 0
        # A fresh machine may have no package lists yet.
        if [ "$(id -u)" -eq 0 ]; then
            apt-get -o DPkg::Lock::Timeout=600 update -qq
            (cd "$work" && apt-get download -qq "$@" >/dev/null)
        else
            echo "cannot download $* with apt-get (run as root once, or apt-get update)" >&2
            return 1
        fi
    }
    download python3-skimage opencv-doc
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    for name in "${skimage[@]}"; do cp "$work/root/usr/lib/python3/dist-packages/skimage/data/$name" "$out/"; done
    for name in "${opencv[@]}"; do cp "$work/root/usr/share/doc/opencv-doc/examples/data/$name" "$out/"; done
fi
for photo in /usr/share/backgrounds/mate/nature/*.jpg; do
    [ -e "$out/$(basename "$photo")" ] || ln -s "$photo" "$out/"
done
