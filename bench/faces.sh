#!/usr/bin/env bash
# Faces: what one detection costs in server CPU, the CNN (faces.detector: cnn, YuNet) against
# the Haar cascades (haar) on the same photographs, beside a miss of them; and each detector's
# precision and recall over the labelled set (Tests/Faces/labels.tsv, fetched by
# scripts/face-photos.sh; the four photographs their packages store turned are turned upright
# here, their labels' pixels). /v1/images/{path} of every photo with faces off (facts alone),
# with the CNN and with the cascades, and a 400 px JPEG thumbnail of each; fresh caches,
# server CPU from /proc, ROUNDS alternating rounds, medians.
#   bench/faces.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18330}"
BINARY=.build/release/thumbd
[ -x "$BINARY" ] || swift build -c release --product thumbd >/dev/null
scripts/face-photos.sh
scripts/face-model.sh
LIB="$BENCH_DIR/face-photos"
rm -rf "$LIB" && mkdir -p "$LIB" && cp -L .build/face-photos/* "$LIB/"
while IFS=$'\t' read -r name orientation _; do
    case "$orientation" in
    orientation=3) turn=d180 ;;
    orientation=6) turn=d90 ;;
    orientation=8) turn=d270 ;;
    *) continue ;;
    esac
    vips rot "$LIB/$name" "$LIB/upright-$name" "$turn" && mv "$LIB/upright-$name" "$LIB/$name"
done < <(grep -v '^#' Tests/Faces/labels.tsv)
mapfile -t names < <(grep -v '^#' Tests/Faces/labels.tsv | cut -f1)

# measure LABEL DETECTOR PATH-PREFIX SUFFIX: CPU ms per request over every photo, on a fresh cache
measure() {
    rm -rf "$BENCH_DIR/faces-cache"
    THUMBD_FACES_DETECTOR="$2" THUMBD_FACES_MODEL="$PWD/.build/face-model/face_detection_yunet_2023mar.onnx" \
        "$BINARY" serve --host 127.0.0.1 --port "$PORT" --library "$LIB" \
        --cache-dir "$BENCH_DIR/faces-cache" 2> "$BENCH_DIR/faces-$1.log" &
    pid=$!
    # This runs in a command substitution's subshell: the trap is its own.
    trap 'kill $pid 2>/dev/null || true' EXIT
    wait_for_port "$PORT"
    local before after
    before=$(cpu_ticks "$pid")
    for name in "${names[@]}"; do
        code=$(curl -s -o "$BENCH_DIR/faces-$1-$name.out" -w '%{http_code}' "http://127.0.0.1:$PORT$3$name$4")
        [ "$code" = 200 ] || { echo "$1: $name answered $code" >&2; exit 1; }
    done
    after=$(cpu_ticks "$pid")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "($after - $before) * 1000 / $TICK / ${#names[@]}" | bc -l
}

declare -A cpu
for _ in $(seq 1 "$ROUNDS"); do
    cpu[facts]+="$(measure facts none /v1/images/ "") "
    cpu[cnn]+="$(measure cnn cnn /v1/images/ "") "
    cpu[haar]+="$(measure haar haar /v1/images/ "") "
    cpu[miss]+="$(measure miss none /img/ "?w=400&fm=jpeg&q=80") "
done

facts=$(median ${cpu[facts]}); cnn=$(median ${cpu[cnn]}); haar=$(median ${cpu[haar]}); miss=$(median ${cpu[miss]})
echo "faces: ${#names[@]} labelled photographs (Tests/Faces/labels.tsv), $ROUNDS alternating rounds, medians"
printf '%-52s %12s\n' "" "CPU ms/photo"
printf '%-52s %12.1f\n' "info, faces off (facts alone)" "$facts"
printf '%-52s %12.1f\n' "info with the CNN (facts and one detection)" "$cnn"
printf '%-52s %12.1f\n' "info with the Haar cascades" "$haar"
printf '%-52s %12.1f\n' "one detection, CNN (the difference)" "$(echo "$cnn - $facts" | bc -l)"
printf '%-52s %12.1f\n' "one detection, Haar cascades (the difference)" "$(echo "$haar - $facts" | bc -l)"
printf '%-52s %12.1f\n' "a miss: w=400, JPEG q80, beside it" "$miss"
python3 - "$BENCH_DIR" <<'PY'
import json, sys
folder = sys.argv[1]
def overlap(a, b):
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])); h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)
photos = []
for line in open("Tests/Faces/labels.tsv"):
    if line.startswith("#") or not line.strip(): continue
    fields = [f for f in line.rstrip("\n").split("\t") if f and not f.startswith("orientation=")]
    photos.append((fields[0], [(f.startswith("profile:"), tuple(int(n) for n in f.split(":")[-1].split(","))) for f in fields[1:]]))
for detector in ("cnn", "haar"):
    expected = found_expected = found = right = 0
    for name, labels in photos:
        info = json.load(open(f"{folder}/faces-{detector}-{name}.out"))
        long_side = max(info["width"], info["height"])
        boxes = [(f["x"], f["y"], f["width"], f["height"]) for f in info.get("faces", [])]
        held = [box for profile, box in labels if not profile and max(box[2], box[3]) * 20 >= long_side]
        expected += len(held)
        found_expected += sum(1 for t in held if any(overlap(b, t) >= 0.5 for b in boxes))
        found += len(boxes)
        right += sum(1 for b in boxes if any(overlap(b, t) >= 0.5 for _, t in labels))
    print(f"{detector}: {found_expected} of {expected} expected faces found, {right} of {found} found faces labelled "
          f"(IoU >= 0.5): recall {found_expected / expected:.3f}, precision {right / max(1, found):.3f}")
PY
