#!/usr/bin/env bash
# Faces: the detector's precision and recall over the labelled photographs
# (Tests/Faces/labels.tsv, fetched by scripts/face-photos.sh), and what one detection costs
# in server CPU beside a miss of the same photographs: /v1/images/{path} of every photo with
# face detection on (facts and faces) and off (facts alone, faces.cascades empty), and a
# 400 px JPEG thumbnail of each; fresh caches, server CPU from /proc, ROUNDS alternating
# rounds, medians.
#   bench/faces.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh

PORT="${PORT:-18330}"
BINARY=.build/release/thumbd
[ -x "$BINARY" ] || swift build -c release --product thumbd >/dev/null
scripts/face-photos.sh
LIB="$BENCH_DIR/face-photos"
rm -rf "$LIB" && mkdir -p "$LIB" && cp -L .build/face-photos/* "$LIB/"
mapfile -t names < <(grep -v '^#' Tests/Faces/labels.tsv | cut -f1)

# measure LABEL CASCADES PATH-PREFIX SUFFIX: CPU ms per request over every photo, on a fresh cache
measure() {
    rm -rf "$BENCH_DIR/faces-cache"
    THUMBD_FACES_CASCADES="$2" "$BINARY" serve --host 127.0.0.1 --port "$PORT" --library "$LIB" \
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
    cpu[facts]+="$(measure facts "" /v1/images/ "") "
    cpu[faces]+="$(measure faces /usr/share/opencv4/haarcascades /v1/images/ "") "
    cpu[miss]+="$(measure miss "" /img/ "?w=400&fm=jpeg&q=80") "
done

facts=$(median ${cpu[facts]}); faces=$(median ${cpu[faces]}); miss=$(median ${cpu[miss]})
echo "faces: ${#names[@]} labelled photographs (Tests/Faces/labels.tsv), $ROUNDS alternating rounds, medians"
printf '%-44s %12s\n' "" "CPU ms/photo"
printf '%-44s %12.1f\n' "info, faces off (facts alone)" "$facts"
printf '%-44s %12.1f\n' "info, faces on (facts and one detection)" "$faces"
printf '%-44s %12.1f\n' "one detection (the difference)" "$(echo "$faces - $facts" | bc -l)"
printf '%-44s %12.1f\n' "a miss: w=400, JPEG q80, beside it" "$miss"
python3 - "$BENCH_DIR" <<'PY'
import json, sys
folder = sys.argv[1]
def overlap(a, b):
    w = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])); h = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)
found = correct = labelled = 0
for line in open("Tests/Faces/labels.tsv"):
    if line.startswith("#") or not line.strip(): continue
    fields = line.rstrip("\n").split("\t")
    truth = [tuple(int(n) for n in f.split(":")[-1].split(",")) for f in fields[1:]]
    boxes = [(f["x"], f["y"], f["width"], f["height"]) for f in json.load(open(f"{folder}/faces-faces-{fields[0]}.out"))["faces"]]
    labelled += len(truth); found += len(boxes)
    correct += sum(1 for t in truth if any(overlap(b, t) >= 0.5 for b in boxes))
print(f"detector: {found} faces found, {correct} of {labelled} labelled faces (IoU >= 0.5): "
      f"precision {correct / max(1, found):.2f}, recall {correct / labelled:.2f}")
PY
