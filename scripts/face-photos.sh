#!/usr/bin/env bash
# Fetches the labelled photographs of Tests/Faces/labels.tsv into .build/face-photos (or the
# folder given): real photographs from Debian's packages and one PyPI package, unpacked
# without installing them and only the named files kept. docs/faces.md lists where each
# comes from and its licence:
#   kphotoalbum (its demo album, GPL-2+), gramps (its example tree's portraits, GPL-2+),
#   libdlib19.1 (dlib's face examples, from PASCAL VOC; Boost), python3-skimage (BSD-3),
#   opencv-doc (OpenCV's sample data, Apache-2.0), with `apt-get download`;
#   face_recognition 1.3.0's test images (US government photographs, public domain), from
#   its source archive on PyPI, checked by SHA-256;
#   the nature photographs of mate-backgrounds, which scripts/ensure-deps.sh --tests installs.
# Idempotent: what is there is not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/face-photos}
mkdir -p "$out"

# package|folder in it|files
debian=(
    "kphotoalbum|usr/share/kphotoalbum/demo|anne_helene.jpg bar55.jpg bar55_2.jpg cold_water.jpg grand_canyon_1.jpg grand_canyon_2.jpg grand_canyon_3.jpg jesper.jpg jesper_2.jpg new_wave_1.jpg new_wave_2.jpg pool.jpg pool_2.jpg qt-logo.jpg wayne.jpg blackie.jpg donna.jpg donna_2.jpg skagen.jpg skagen_2.jpg snow.jpg spiff.jpg spiff_2.jpg sunset.jpg"
    "gramps|usr/share/doc/gramps/example/gramps|1897_expeditionsmannschaft_rio_a.jpg 654px-Aksel_Andersson.jpg E_W_Dahlgren.jpg AntoineClaudet.png Alimehemet.jpg O2.jpg"
    "libdlib19.1|usr/share/doc/libdlib19.1/examples/faces|2007_007763.jpg 2008_001009.jpg 2008_001322.jpg 2008_002079.jpg 2008_002470.jpg 2008_002506.jpg 2008_004176.jpg 2008_007676.jpg 2009_004587.jpg dogs.jpg"
    "python3-skimage|usr/lib/python3/dist-packages/skimage/data|astronaut.png camera.png chelsea.png coffee.png rocket.jpg"
    "opencv-doc|usr/share/doc/opencv-doc/examples/data|basketball1.png basketball2.png messi5.jpg ela_original.jpg home.jpg pca_test1.jpg starry_night.jpg fruits.jpg baboon.jpg"
)
pypi_archive=face_recognition-1.3.0.tar.gz
pypi_sha256=5e5efdd1686aa566af0d3cc1313b131e4b197657a8ffd03669e6d3fad92705ec
pypi_files=(obama.jpg obama2.jpg obama3.jpg biden.jpg)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

wanted=()
for entry in "${debian[@]}"; do
    IFS='|' read -r package folder files <<<"$entry"
    for name in $files; do
        if [ ! -s "$out/$name" ]; then
            wanted+=("$package")
            break
        fi
    done
done
if [ ${#wanted[@]} -gt 0 ]; then
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
    download "${wanted[@]}"
    for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
    for entry in "${debian[@]}"; do
        IFS='|' read -r package folder files <<<"$entry"
        for name in $files; do
            [ -s "$out/$name" ] || [ ! -e "$work/root/$folder/$name" ] || cp "$work/root/$folder/$name" "$out/"
        done
    done
fi

missing=false
for name in "${pypi_files[@]}"; do [ -s "$out/$name" ] || missing=true; done
if $missing; then
    # The source archive (its tests/ hold the images; the wheel has none).
    if ! python3 -m pip download --quiet --no-deps --no-binary face-recognition --dest "$work/pypi" \
        face-recognition==1.3.0 >/dev/null 2>&1; then
        echo "cannot download $pypi_archive from PyPI with pip (python3 -m pip; Debian's python3-pip)" >&2
        exit 1
    fi
    echo "$pypi_sha256  $work/pypi/$pypi_archive" | sha256sum -c --quiet - || { echo "$pypi_archive: wrong SHA-256" >&2; exit 1; }
    tar -xzf "$work/pypi/$pypi_archive" -C "$work/pypi"
    for name in "${pypi_files[@]}"; do cp "$work/pypi/face_recognition-1.3.0/tests/test_images/$name" "$out/"; done
fi

for photo in /usr/share/backgrounds/mate/nature/*.jpg; do
    [ -e "$photo" ] || { echo "mate-backgrounds is not installed (scripts/ensure-deps.sh --tests installs it)" >&2; exit 1; }
    [ -e "$out/$(basename "$photo")" ] || ln -sf "$photo" "$out/"
done
for entry in "${debian[@]}"; do
    IFS='|' read -r package folder files <<<"$entry"
    for name in $files; do
        [ -s "$out/$name" ] || { echo "$name is not in $package's $folder" >&2; exit 1; }
    done
done
