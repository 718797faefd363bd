# shellcheck shell=bash
# Helpers the end-to-end test scripts source: one preamble and one ending, counted checks, and
# waits that are all bounded in time, so a process that hangs fails its check instead of hanging
# `make test`; a wait that times out fails loudly on its own (docs/hardening.md, "Adding an
# end-to-end test"). A script starts
#
#     set -uo pipefail
#     parley=$(realpath "${1:?usage: scripts/test-NAME PATH-TO-PARLEY}")
#     . "$(dirname "$0")/lib.sh"          # bench/ sources "$(dirname "$0")/../scripts/lib.sh"
#     begin_test test-NAME PREFIX "$@"    # PREFIX names its network namespaces; "" for none
#
# and ends with `end_test`. It keeps `passed`, `failed` and `pids` (the processes `reap` ends).

# The repository's root, wherever the sourcing script was started from.
parley_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# begin_test NAME PREFIX ARGS...: with a PREFIX, the script builds network namespaces and runs
# again as namespace root when it is not root (scripts/as-namespace-root), with ARGS as before.
# Then from the repository's root: `id` (PREFIX and this process's id, for the namespaces'
# names), `work` (a temporary directory, kept with KEEP=1), `pids`, `passed`, `failed`, and a trap
# that on any exit runs the script's own `on_cleanup` when it has one, ends `pids`, removes the
# test bed `id` and the work directory.
begin_test() {
    test_name=$1
    test_prefix=$2
    shift 2
    if [ -n "$test_prefix" ] && [ "$(id -u)" -ne 0 ]; then
        exec "$parley_root/scripts/as-namespace-root" "$0" "$@"
    fi
    cd "$parley_root" || exit 1
    id="$test_prefix$(printf '%x' "$BASHPID" | tail -c 6)"
    work=$(mktemp -d)
    [ -z "${KEEP:-}" ] || echo "$test_name: work directory $work is kept" >&2
    pids=()
    passed=0
    failed=0
    trap finish_test EXIT INT TERM
}

finish_test() {
    if declare -F on_cleanup >/dev/null; then on_cleanup; fi
    reap
    if [ -n "$test_prefix" ]; then scripts/netns/topology down "$id" >/dev/null 2>&1; fi
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}

# in_user_namespace: true when this runs as root only inside a user namespace of a normal user
# (scripts/as-namespace-root), where cgroups, real-time priorities and raised limits are out of reach.
in_user_namespace() {
    ! grep -qE '^ *0 +0 +4294967295 *$' /proc/self/uid_map
}

# up_test_bed KIND: the namespaces of scripts/netns/topology KIND under `id`, or the script ends.
up_test_bed() {
    scripts/netns/topology up "$1" "$id" >/dev/null || { echo "$test_name: could not build the test bed" >&2; exit 1; }
}

# in_a / in_b COMMAND...: runs COMMAND in the test bed's namespace ID-a or ID-b.
in_a() { ip netns exec "$id-a" "$@"; }
in_b() { ip netns exec "$id-b" "$@"; }

# end_test [PATTERN]: prints `NAME: N passed, M failed`, and when one failed the last lines of
# each process's standard error in the work directory and the `--json` events matching PATTERN
# (cut to 600 characters); its status is the script's verdict.
end_test() {
    echo "$test_name: $passed passed, $failed failed"
    if [ "$failed" -ne 0 ]; then
        local file
        for file in "$work"/*.err; do
            if [ -s "$file" ]; then echo "--- $(basename "$file")"; tail -n 5 "$file"; fi
        done >&2
        if [ -n "${1:-}" ]; then grep -h -- "$1" "$work"/*.json | cut -c1-600 >&2; fi
    fi
    [ "$failed" -eq 0 ]
}

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

wait_count() { # FILE PATTERN COUNT SECONDS: waits for COUNT lines matching PATTERN, failing as wait_for does
    local deadline=$((SECONDS + $4))
    until [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; do
        if [ $SECONDS -ge $deadline ]; then
            echo "FAIL: timed out after $4 s waiting for $3 of /$2/ in $1" >&2
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

# up_kamailio [ARGS...]: Parley's test registrar and proxy (deploy/kamailio/, docs/sip.md) on
# loopback (or on $kamailio_address, run through the command prefix in the array $kamailio_in,
# e.g. (in_b) for a test bed's namespace), UDP and TCP on one port free for both (at most 50
# tries), logging to $work/kamailio.log and ended with `pids`; ARGS go to Kamailio as they are
# (more listeners, -A definitions); sets `sip_port`, or the script ends when Kamailio does not
# listen within 10 s.
up_kamailio() {
    local address=${kamailio_address:-127.0.0.1}
    local run=("${kamailio_in[@]}")
    sip_port=$("${run[@]}" python3 -c '
import socket, sys
for _ in range(50):
    t = socket.socket(); t.bind((sys.argv[1], 0)); port = t.getsockname()[1]
    u = socket.socket(type=socket.SOCK_DGRAM)
    try:
        u.bind((sys.argv[1], port))
    except OSError:
        continue
    print(port)
    break
' "$address")
    [ -n "$sip_port" ] || { echo "$test_name: no port free for both TCP and UDP on $address" >&2; exit 1; }
    "${run[@]}" /usr/sbin/kamailio -f deploy/kamailio/kamailio.cfg -DD -E -Y "$work" -l "udp:$address:$sip_port" -l "tcp:$address:$sip_port" \
        -A "USERS_URL=\"text://$PWD/deploy/kamailio/users\"" "$@" > "$work/kamailio.log" 2>&1 &
    pids+=("$!")
    local deadline=$((SECONDS + 10))
    until "${run[@]}" python3 -c 'import socket,sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 0.5)' "$address" "$sip_port" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || { echo "FAIL: Kamailio did not listen on $address:$sip_port" >&2; exit 1; }
        sleep 0.1
    done
}

# kamailio_tls_args: a throwaway CA ($work/tls/ca.pem) and a certificate it signed for 127.0.0.1,
# another CA the server's certificate does not chain to ($work/tls/other-ca.pem), a client
# certificate from each ($work/tls/client.pem and .key, other-client.pem and .key), and the
# arguments that give up_kamailio a TLS listener on a free loopback port (`tls_port`), which also
# takes secure WebSocket (wss://, the same xhttp upgrade as ws://), and a second one
# (`mutual_tls_port`) that requires a client certificate the first CA signed. Sets `kamailio_tls`.
kamailio_tls_args() {
    local dir="$work/tls" ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes) name ca
    mkdir -p "$dir"
    for name in ca other-ca; do
        openssl req -x509 "${ec[@]}" -keyout "$dir/$name.key" -out "$dir/$name.pem" -days 2 -subj "/CN=Parley test $name" 2>/dev/null
    done
    openssl req "${ec[@]}" -keyout "$dir/server.key" -out "$dir/server.csr" -subj /CN=127.0.0.1 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\n' > "$dir/san.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -out "$dir/server.pem" -days 2 \
        -extfile "$dir/san.ext" 2>/dev/null
    for name in client other-client; do
        ca=${name%client}ca
        openssl req "${ec[@]}" -keyout "$dir/$name.key" -out "$dir/$name.csr" -subj /CN=alice 2>/dev/null
        openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.pem" -CAkey "$dir/$ca.key" -CAcreateserial -out "$dir/$name.pem" -days 2 2>/dev/null
    done
    read -r tls_port mutual_tls_port < <(python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in sockets))')
    printf '[server:default]\nmethod = TLSv1.2+\nverify_certificate = no\nrequire_certificate = no\ncertificate = %s\nprivate_key = %s\n\n' \
        "$dir/server.pem" "$dir/server.key" > "$dir/tls.cfg"
    printf '[server:127.0.0.1:%s]\nmethod = TLSv1.2+\nverify_certificate = yes\nrequire_certificate = yes\nca_list = %s\ncertificate = %s\nprivate_key = %s\n' \
        "$mutual_tls_port" "$dir/ca.pem" "$dir/server.pem" "$dir/server.key" >> "$dir/tls.cfg"
    # shellcheck disable=SC2034  # read by the sourcing script
    kamailio_tls=(-l "tls:127.0.0.1:$tls_port" -l "tls:127.0.0.1:$mutual_tls_port" -A WITH_TLS -A "TLS_CONFIG=\"$dir/tls.cfg\"")
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
