#!/usr/bin/env bash
# Video posters (issue 37): server CPU and source bytes read per poster of a 1080p H.264 clip of
# 60 s (x264's default keyframe interval, 250 frames: 10 s) at t = 1, 30 and 59 s, every URL a
# miss, beside the ffmpeg command doing the same as a process:
#   ffmpeg -ss T -i clip.mp4 -frames:v 1 poster.jpg
# thumbd's CPU is read from /proc (its whole process: decode, libvips resize, JPEG encode),
# its bytes from thumbd_video_source_bytes_total; ffmpeg's CPU from the children's rusage and
# its bytes, where strace is installed, from its read and pread calls. Talks only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18351}"
RUNS="${RUNS:-8}"
dir="$BENCH_DIR/video"
mkdir -p "$dir/library"
clip="$dir/library/clip.mp4"
if [ ! -f "$clip" ]; then
    echo "making a 60 s 1080p H.264 clip (testsrc2, x264 veryfast) ..."
    ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc2=s=1920x1080:r=25:d=60 -pix_fmt yuv420p \
        -c:v libx264 -preset veryfast "$clip"
fi
size=$(stat -c %s "$clip")

pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null || true' EXIT
rm -rf "$dir/cache"
.build/release/thumbd serve --host 127.0.0.1 --port "$PORT" --library "$dir/library" --cache-dir "$dir/cache" \
    2> "$dir/thumbd.log" &
pid=$!
wait_for_port "$PORT"
video_bytes() { curl -s "http://127.0.0.1:$PORT/metrics" | awk '/^thumbd_video_source_bytes_total/ { print $2 }' | tail -1; }

# ffmpeg_cpu T: CPU ms per run of the ffmpeg command, RUNS runs one after another
ffmpeg_cpu() {
    python3 - "$1" "$clip" "$dir/poster.jpg" "$RUNS" << 'PY'
import os, resource, subprocess, sys
t, clip, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
before = resource.getrusage(resource.RUSAGE_CHILDREN)
for _ in range(runs):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", t, "-i", clip, "-frames:v", "1", out], check=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
print((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000 / runs)
PY
}

# ffmpeg_bytes T: bytes the ffmpeg command reads (read and pread on every descriptor, the clip
# all but a few kilobytes of it); "-" without strace
ffmpeg_bytes() {
    command -v strace > /dev/null || { echo "-"; return; }
    strace -f -qq -e trace=read,pread64 -o "$dir/strace.log" ffmpeg -v error -y -ss "$1" -i "$clip" -frames:v 1 "$dir/poster.jpg"
    awk -F'= ' '/^[0-9]+ +p?read/ && $NF+0 > 0 { s += $NF } END { print s + 0 }' "$dir/strace.log"
}

echo "Video posters: a 60 s 1080p H.264 clip ($((size / 1000000)) MB, a keyframe every 10 s), $RUNS misses each"
printf '%-6s %16s %14s %16s %14s %10s\n' "t" "thumbd ms CPU" "thumbd MB read" "ffmpeg ms CPU" "ffmpeg MB read" "x ffmpeg"
for t in 1 30 59; do
    : > "$dir/urls"
    for i in $(seq 1 "$RUNS"); do
        # Each width its own thumbnail: every URL decodes the frame again.
        printf 'url = "http://127.0.0.1:%s/img/clip.mp4?w=%d&t=%s"\noutput = "/dev/null"\n' "$PORT" $((318 + i)) "$t" >> "$dir/urls"
    done
    b0=$(video_bytes); b0=${b0:-0}
    c0=$(cpu_ticks "$pid")
    codes=$(curl -s --no-progress-meter -K "$dir/urls" -w '%{http_code}\n')
    c1=$(cpu_ticks "$pid")
    b1=$(video_bytes)
    [ "$(grep -c '^200$' <<< "$codes")" -eq "$RUNS" ] || { echo "t=$t: not every answer was 200" >&2; exit 1; }
    thumbd_ms=$(echo "($c1 - $c0) * 1000 / $TICK / $RUNS" | bc -l)
    thumbd_mb=$(echo "($b1 - $b0) / $RUNS / 1000000" | bc -l)
    ff_ms=$(ffmpeg_cpu "$t")
    ff_bytes=$(ffmpeg_bytes "$t")
    ff_mb=$([ "$ff_bytes" = "-" ] && echo "-" || printf '%.2f' "$(echo "$ff_bytes / 1000000" | bc -l)")
    printf '%-6s %16.1f %14.2f %16.1f %14s %9.2fx\n' "$t s" "$thumbd_ms" "$thumbd_mb" "$ff_ms" "$ff_mb" "$(echo "$thumbd_ms / $ff_ms" | bc -l)"
done
echo "(x ffmpeg: thumbd's CPU per poster over the command's; the target is at most 1)"
