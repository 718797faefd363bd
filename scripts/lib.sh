# Helpers the end-to-end test scripts source: counted checks, and waits that are all bounded in
# time, so a process that hangs fails its check instead of hanging `make test`; a wait that times
# out fails loudly on its own (docs/hardening.md, "Adding an end-to-end test").
# The sourcing script keeps `passed`, `failed` and `pids` (the processes `reap` ends).

# The calls tests place go to a call record file of their own, not the user's (docs/calls.md,
# "Feedback").
export XDG_STATE_HOME=${PARLEY_TEST_STATE:-${TMPDIR:-/tmp}/parley-test-state}

check() { # NAME CONDITION-EXIT-STATUS
    if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1" >&2; fi
}

wait_for() { # FILE PATTERN SECONDS: on timeout it says so, shows the file's last lines, counts a failure
    local deadline=$((SECONDS + $3))
    until grep -q -- "$2" "$1" 2>/dev/null; do
        if [ $SECONDS -ge $deadline ]; then
            echo "FAIL: timed out after $3 s waiting for /$2/ in $1; its last lines:" >&2
            tail -n 20 "$1" 2>/dev/null | sed 's/^/    /' >&2
            failed=$((${failed:-0} + 1))
            return 1
        fi
        sleep 0.1
    done
}

# bounded PID SECONDS: waits for PID, killing it after SECONDS; its exit status (137 when killed).
bounded() {
    local deadline=$((SECONDS + $2))
    while kill -0 "$1" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || { echo "process $1 still running after $2 s: killed" >&2; kill -9 "$1"; break; }
        sleep 0.2
    done
    wait "$1"
}

# reap: ends every process in `pids` (TERM, then KILL after 5 s), for the cleanup trap.
reap() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${pids[@]}"; do bounded "$pid" 5 >/dev/null 2>&1; done
}

# Of a call's recording and its --json events (the agent scripts): seconds of 100 ms chunks at a
# frequency (scripts/wav-tones), and a field of the ended event's reason.
tone_seconds() { # WAV FREQ
    scripts/wav-tones "$1" "$2" 880 660 | awk -v f="$2" '$1 == f { s += $2 } END { print s + 0 }'
}
ended_field() { # FILE FIELD
    grep '"event":"ended"' "$1" | head -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["reason"].get(sys.argv[1], ""))' "$2"
}

# pipecat_python: the Python of the virtual environment that holds Pipecat for scripts/test-pipecat
# (docs/agents.md, "Platform dialects"), made and installed from PyPI by pip the first time and
# kept ($PARLEY_PIPECAT_VENV, by default ~/.cache/parley/pipecat-VERSION): its pins would move
# the system Python's other peers. scripts/bootstrap calls it too.
pipecat_version=1.14.0
pipecat_python() {
    local venv=${PARLEY_PIPECAT_VENV:-$HOME/.cache/parley/pipecat-$pipecat_version}
    if ! "$venv/bin/python" -c 'import pipecat.serializers.vonage, fastapi, uvicorn' >/dev/null 2>&1; then
        echo "installing pipecat-ai $pipecat_version from PyPI into $venv" >&2
        python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
            "pipecat-ai[websocket]==$pipecat_version" "uvicorn==0.38.0" >&2 || return 1
    fi
    echo "$venv/bin/python"
}
