#!/usr/bin/env bash
# Runs the examples of the documentation: every shell block of README.md and docs/*.md whose
# fence reads ```sh runnable, against a thumbd started here, so every command the pages show
# keeps working. Builds nothing: it uses the debug build (`swift build --build-tests`, which
# `make test` runs first, makes every product).
#
# The server: config/thumbd.yaml (as `make run` reads it), on a free port of 127.0.0.1, with a
# fresh demo library and cache and an admin token (so the purge example has an endpoint).
# Each block then runs, in page order, in a folder of its own under a temporary one, as
#   set -euo pipefail
#   curl() { command curl --fail ...; }   (an HTTP error fails the block)
# with localhost:8080 rewritten to the server's address, THUMBD_ADMIN_TOKEN set to its token
# and the build folder first on PATH (`thumbd` is the debug build). Only 127.0.0.1 is
# contacted: a block that names any other host fails before it runs. The first failure stops
# the run, naming the page and the line of the block's first command.
#
#   BIN=...   the thumbd binary (default .build/debug/thumbd)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

BIN="${BIN:-.build/debug/thumbd}"
case "$BIN" in /*) ;; *) BIN="$root/$BIN" ;; esac
TOKEN=docs-examples-admin-token

say() { echo "docs-examples: $*"; }
fail() {
    echo "docs-examples: FAIL: $*" >&2
    exit 1
}

# Loopback only: no proxy from the environment may carry a request elsewhere.
# shellcheck source=scripts/thumbd-process.sh
. scripts/thumbd-process.sh

[ -x "$BIN" ] || fail "$BIN is missing: build it first (swift build --build-tests)"
command -v curl >/dev/null 2>&1 || fail "curl is needed: sudo apt-get install -y curl"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed: sudo apt-get install -y python3"

work=$(mktemp -d)
server=""
cleanup() {
    stop_thumbd "$server"
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The blocks: NNN.sh holds one block's lines, NNN.where its page and line.
count=$(python3 - "$work/blocks" README.md docs/*.md <<'EOF'
import os, re, sys

out = sys.argv[1]
os.makedirs(out)
count = 0
for page in sys.argv[2:]:
    lines = open(page, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if re.match(r"^```sh runnable\s*$", lines[i]):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
            if end is None:
                sys.exit(f"{page}:{i + 1}: a runnable block is not closed")
            count += 1
            with open(os.path.join(out, f"{count:03d}.sh"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines[i + 1:end]) + "\n")
            with open(os.path.join(out, f"{count:03d}.where"), "w", encoding="utf-8") as f:
                f.write(f"{page}:{i + 2}\n")
            i = end
        i += 1
print(count)
EOF
) || fail "could not read the pages' blocks"
[ "$count" -gt 0 ] || fail "no block is marked runnable (a fence reading \`\`\`sh runnable); the README's tour at least must be"

# 2. The server. Only the settings below count, whatever THUMBD_* variables the caller has.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^THUMBD_' || true)
THUMBD_LIBRARY_DEMO=true THUMBD_ADMIN_TOKEN="$TOKEN" THUMBD_LOGGING_ACCESS=false THUMBD_SERVER_DRAIN_SECONDS=2s \
    start_thumbd "$work/thumbd.log" --config config/thumbd.yaml --library "$work/library" --cache-dir "$work/cache"
say "thumbd is up on http://127.0.0.1:$PORT; running $count blocks"

# 3. The blocks, one after another (some use what an earlier one made: a cached thumbnail, a
# request counted in /metrics).
bindir=$(dirname "$BIN")
for block in "$work"/blocks/*.sh; do
    where=$(cat "${block%.sh}.where")
    script=$(sed "s|localhost:8080|127.0.0.1:$PORT|g" "$block")
    others=$(grep -oE "[a-zA-Z][a-zA-Z0-9+.-]*://[^/[:space:]'\"]+" <<<"$script" | grep -vx "http://127.0.0.1:$PORT" || true)
    [ -z "$others" ] || fail "$where: the block names another host ($(echo $others)); examples talk to localhost:8080 only"
    name=$(basename "${block%.sh}")
    mkdir "$work/run-$name"
    {
        echo 'set -euo pipefail'
        echo 'curl() { command curl --fail --silent --show-error --max-time 60 "$@"; }'
        printf '%s\n' "$script"
    } >"$work/run-$name.sh"
    if ! (cd "$work/run-$name" && "${local_env[@]}" PATH="$bindir:$PATH" THUMBD_ADMIN_TOKEN="$TOKEN" \
            bash "$work/run-$name.sh" >"$work/run-$name.out" 2>&1); then
        echo "--- the block ($where), as run:" >&2
        printf '%s\n' "$script" >&2
        echo "--- its output:" >&2
        tail -n 40 "$work/run-$name.out" >&2
        tail -n 20 "$work/thumbd.log" >&2
        fail "$where: the runnable block failed"
    fi
    say "ok - $where"
done

kill -0 "$server" 2>/dev/null || { tail -n 50 "$work/thumbd.log" >&2; fail "thumbd died during the examples"; }
say "PASS: $count runnable blocks of README.md and docs/*.md"
