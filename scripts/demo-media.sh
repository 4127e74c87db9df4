#!/usr/bin/env bash
# Fetches the demo library's photograph of people and its video clip into .build/demo-media
# (or the folder given), which thumbd's first start copies into an empty library
# (library.demo_media): both from the demo album of Debian's kphotoalbum package (GPL-2+,
# © Jesper K. Pedersen and KPhotoAlbum's authors), unpacked with `apt-get download`, nothing
# installed. people/group.jpg is its qt-logo.jpg (three people); video/clip.mp4 is its
# movie.avi (4.5 s, 160x120, someone speaking to the camera) rewritten as H.264 and AAC in
# MP4 by the ffmpeg command (a keyframe every 8 frames, so its preview has frames to show),
# since thumbd reads MP4, QuickTime and WebM video. Optional for
# `make run`: without apt-get download or ffmpeg it says so and the demo set leaves them out.
# Idempotent.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/demo-media}
[ -s "$out/people/group.jpg" ] && [ -s "$out/video/clip.mp4" ] && exit 0
# Without ffmpeg there will be no clip: the photograph alone is what there is to fetch.
if [ -s "$out/people/group.jpg" ] && ! command -v ffmpeg >/dev/null 2>&1; then
    echo "Optional: the demo's video clip needs the ffmpeg command (Debian's ffmpeg)" >&2
    exit 0
fi
mkdir -p "$out/people" "$out/video"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get download -qq kphotoalbum >/dev/null 2>&1); then
    if [ "$(id -u)" -eq 0 ]; then apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1; fi
    if ! (cd "$work" && apt-get download -qq kphotoalbum >/dev/null 2>&1); then
        echo "Optional: the demo's people photograph and video clip need 'apt-get download kphotoalbum' (run apt-get update as root)" >&2
        exit 0
    fi
fi
demo="$work/root/usr/share/kphotoalbum/demo"
if ! dpkg-deb -x "$work"/kphotoalbum_*.deb "$work/root" || [ ! -s "$demo/qt-logo.jpg" ]; then
    echo "Optional: kphotoalbum's package did not unpack; the demo leaves out its people photograph and video clip" >&2
    exit 0
fi
cp "$demo/qt-logo.jpg" "$out/people/group.jpg"
if command -v ffmpeg >/dev/null 2>&1; then
    if ! ffmpeg -v error -y -i "$demo/movie.avi" -c:v libx264 -preset medium -crf 20 -pix_fmt yuv420p -g 8 \
        -c:a aac -b:a 64k -movflags +faststart "$work/clip.mp4"; then
        echo "Optional: ffmpeg could not rewrite kphotoalbum's movie.avi; the demo leaves out its video clip" >&2
        exit 0
    fi
    mv "$work/clip.mp4" "$out/video/clip.mp4"
else
    echo "Optional: the demo's video clip needs the ffmpeg command (Debian's ffmpeg)" >&2
fi
exit 0
