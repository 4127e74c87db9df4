# Sourced (not run) by the scripts that start a thumbd of their own on loopback: openapi-check,
# docs-examples and crash-test. They set BIN (the binary) and define fail MESSAGE.

# Requests go to 127.0.0.1 only, never through a proxy the caller's environment names.
local_env=(env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY -u all_proxy -u ALL_PROXY
           NO_PROXY='*' no_proxy='*')

# start_thumbd LOG SERVE-ARGS...: `$BIN serve --host 127.0.0.1 --port 0 SERVE-ARGS` in the
# background, its standard error in LOG (THUMBD_* variables given before the call reach it).
# Port 0: the kernel picks a free port and the start-up line names it, so no port is picked
# first that another process could take meanwhile. Returns once it answers /health (fails after
# 30 s, or when it exits), with its pid in `server` and its port in `PORT`.
start_thumbd() {
    local log=$1
    shift
    "${local_env[@]}" "$BIN" serve --host 127.0.0.1 --port 0 "$@" 2>"$log" &
    server=$!
    PORT=""
    for _ in $(seq 1 300); do
        if ! kill -0 "$server" 2>/dev/null; then
            cat "$log" >&2
            fail "thumbd exited while starting"
        fi
        PORT=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$log" | grep -o '[0-9]*$' || true)
        if [ -n "$PORT" ] && "${local_env[@]}" curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/health" 2>/dev/null; then
            return 0
        fi
        PORT=""
        sleep 0.1
    done
    cat "$log" >&2
    fail "thumbd did not answer /health within 30 s"
}

# stop_thumbd PID: SIGTERM, 5 s to drain, then SIGKILL; reaped either way.
stop_thumbd() {
    [ -n "$1" ] || return 0
    if kill -0 "$1" 2>/dev/null; then
        kill -TERM "$1" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$1" 2>/dev/null || true
    fi
    wait "$1" 2>/dev/null || true
}
