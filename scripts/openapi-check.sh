#!/usr/bin/env bash
# Checks docs/openapi.yaml against the server it describes:
#   1. validates it as an OpenAPI 3.1 document (openapi-spec-validator);
#   2. starts the debug thumbd on a free loopback port with the generated demo library, an
#      admin token (so POST /v1/purge exists) and loopback allowed as an origin (so /proxy and
#      /v1/info can fetch from thumbd itself), and checks that GET /openapi.yaml serves this file;
#   3. runs schemathesis against every operation: no 5xx, and status codes, media types,
#      header fields and bodies as the document says.
# The tools come from PyPI, pinned, into .build/openapi-venv (made once, then reused); after
# that nothing but 127.0.0.1 is contacted (the schema is a local file). Needs the debug build
# (`swift build`). Exits non-zero on any failure; the last line is a one-line summary.
#
#   BIN=...                     the thumbd binary (default .build/debug/thumbd)
#   OPENAPI_CHECK_EXAMPLES=25   schemathesis examples per operation and mode
#   OPENAPI_CHECK_SEED=...      schemathesis seed
#   OPENAPI_CHECK_BUDGET=150    seconds schemathesis may run before the check fails
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

BIN="${BIN:-.build/debug/thumbd}"
case "$BIN" in /*) ;; *) BIN="$root/$BIN" ;; esac
SPEC="$root/docs/openapi.yaml"
VENV="$root/.build/openapi-venv"
PINS=("openapi-spec-validator==0.9.0" "schemathesis==4.32.5")
TOKEN=openapi-check-token-1234
EXAMPLES="${OPENAPI_CHECK_EXAMPLES:-25}"
SEED="${OPENAPI_CHECK_SEED:-20261123}"
BUDGET="${OPENAPI_CHECK_BUDGET:-150}"
# Sizes up to 2048 px keep each transform well under a second on a busy 2-core machine; larger
# w and h get the documented 400 (the document's 4096 is the default limit).
MAX_DIMENSION=2048
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance

say() { echo "openapi-check: $*"; }
fail() {
    echo "openapi-check: FAIL: $*" >&2
    exit 1
}

# Loopback only: no proxy from the environment may carry a request elsewhere.
# shellcheck source=scripts/thumbd-process.sh
. scripts/thumbd-process.sh

[ -x "$BIN" ] || fail "$BIN is missing: build it first (swift build)"
command -v curl >/dev/null 2>&1 || fail "curl is needed: sudo apt-get install -y curl"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed: sudo apt-get install -y python3 python3-venv"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || fail "schemathesis 4 needs Python 3.11 or newer (python3 is $(python3 -V 2>&1))"

# 1. The tools, and the document on its own.
stamp="$VENV/.openapi-check-pins"
if [ ! -x "$VENV/bin/schemathesis" ] || [ ! -x "$VENV/bin/openapi-spec-validator" ] \
    || [ "$(cat "$stamp" 2>/dev/null)" != "${PINS[*]}" ]; then
    python3 -c 'import ensurepip, venv' 2>/dev/null || fail "python3-venv is needed: sudo apt-get install -y python3-venv"
    say "installing ${PINS[*]} into ${VENV#"$root"/}"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
    echo "${PINS[*]}" >"$stamp"
fi
"$VENV/bin/openapi-spec-validator" "$SPEC" || fail "docs/openapi.yaml is not a valid OpenAPI 3.1 document"

# 2. The server.
work=$(mktemp -d)
server=""
cleanup() {
    stop_thumbd "$server"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Only the settings below count, whatever THUMBD_* variables the caller has.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^THUMBD_' || true)
THUMBD_LIBRARY_DEMO=true THUMBD_ADMIN_TOKEN="$TOKEN" THUMBD_LOGGING_ACCESS=false \
    THUMBD_ORIGINS_ALLOW=127.0.0.1 THUMBD_ORIGINS_ALLOW_PRIVATE=true \
    THUMBD_LIMITS_MAX_DIMENSION="$MAX_DIMENSION" THUMBD_SERVER_DRAIN_SECONDS=2s \
    start_thumbd "$work/thumbd.log" --library "$work/library" --cache-dir "$work/cache"
base="http://127.0.0.1:$PORT"
say "thumbd is up on $base"

[ -f "$work/library/photos/photo-01.jpg" ] || fail "the demo library has no photos/photo-01.jpg"
# schemathesis sends a path parameter with a slash only in its examples phase (as %2F); a
# top-level copy lets its other phases reach a real image through /img/{path} and
# /v1/images/{path} too.
cp "$work/library/photos/photo-01.jpg" "$work/library/photo-01.jpg"

# Reported at the end, after schemathesis has had its say too.
served=true
"${local_env[@]}" curl -fsS --max-time 10 -o "$work/served.yaml" "$base/openapi.yaml" || served=false
$served && python3 - "$work/served.yaml" "$SPEC" <<'EOF' || served=false
import sys
served, spec = (open(p, encoding="utf-8").read().rstrip("\n") for p in sys.argv[1:3])
sys.exit(served != spec)
EOF
$served || echo "openapi-check: GET /openapi.yaml is not docs/openapi.yaml: build again (the EmbedAssets plugin embeds it)" >&2

# The copy schemathesis reads (JSON, local): examples that point at thumbd on port 8080 point at
# this one, and library path examples name the top-level copy.
"$VENV/bin/python" - "$SPEC" "$work/openapi-check.json" "$PORT" <<'EOF' || fail "could not prepare the schema copy"
import json, sys, yaml

src, dst, port = sys.argv[1], sys.argv[2], sys.argv[3]
doc = yaml.safe_load(open(src, encoding="utf-8"))
counts = {"url": 0, "path": 0}

def walk(node):
    if isinstance(node, dict):
        if "in" in node and isinstance(node.get("example"), str):
            example = node["example"]
            if example.startswith("http://127.0.0.1:8080/"):
                node["example"] = example.replace(":8080/", f":{port}/", 1)
                counts["url"] += 1
            elif node.get("name") == "path" and example == "photos/photo-01.jpg":
                node["example"] = "photo-01.jpg"
                counts["path"] += 1
        for value in node.values():
            walk(value)
    elif isinstance(node, list):
        for value in node:
            walk(value)

walk(doc)
doc["servers"] = [{"url": f"http://127.0.0.1:{port}"}]
if not counts["url"] or not counts["path"]:
    sys.exit(f"the document's examples changed ({counts}); update scripts/openapi-check.sh")
json.dump(doc, open(dst, "w", encoding="utf-8"), indent=1)
EOF
operations=$("$VENV/bin/python" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
print(sum(1 for item in doc["paths"].values() for method in item if method in ("get", "head", "post", "put", "patch", "delete", "options", "trace")))
' "$work/openapi-check.json")

# 3. schemathesis, from the scratch folder so nothing it writes lands in the repository.
printf '[cache]\nenabled = false\n' >"$work/schemathesis.toml"
command=("$VENV/bin/schemathesis" --config-file "$work/schemathesis.toml" --no-color run "$work/openapi-check.json"
         --url "$base"
         --phases examples,coverage,fuzzing
         --checks "$CHECKS"
         --mode all --max-examples "$EXAMPLES" --seed "$SEED" --workers 1 --no-shrink
         --generation-database none --suppress-health-check all --request-timeout 30
         -H "Authorization: Bearer $TOKEN"
         --report junit --report-junit-path "$work/junit.xml")
say "running schemathesis on $operations operations (up to $EXAMPLES examples each per mode, seed $SEED)"
set +e
(cd "$work" && "${local_env[@]}" timeout --signal=INT --kill-after=15 "$BUDGET" "${command[@]}")
status=$?
set -e

alive=true
kill -0 "$server" 2>/dev/null || alive=false
read -r tested failed errored < <("$VENV/bin/python" - "$work/junit.xml" <<'EOF' 2>/dev/null || echo "0 0 0"
import sys
import xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot()
cases = suite.findall(".//testcase")
failed = sum(1 for case in cases if case.find("failure") is not None)
errored = sum(1 for case in cases if case.find("failure") is None and case.find("error") is not None)
print(len(cases), failed, errored)
EOF
)
summary="schemathesis ${PINS[1]#*==} (seed $SEED): $tested of $operations operations run, $failed failed, $errored errored"
if ! $alive; then
    tail -n 50 "$work/thumbd.log" >&2
    fail "thumbd died during the run; $summary"
fi
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail "schemathesis ran over ${BUDGET}s; $summary"
fi
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$errored" -ne 0 ] || [ "$tested" -ne "$operations" ]; then
    tail -n 30 "$work/thumbd.log" >&2
    fail "schemathesis exit status $status; $summary"
fi
$served || fail "GET /openapi.yaml serves another document than docs/openapi.yaml; $summary"
say "PASS: docs/openapi.yaml is valid OpenAPI 3.1 and served as is; $summary"
