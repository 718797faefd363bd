# shellcheck shell=bash disable=SC2154  # parley comes from the sourcing script, id and work from begin_test
# Shared by scripts/test-reconnect and bench/reconnect: a flat test bed with `parley switch` on
# 10.0.1.200 (an address of ID-b's loopback that ID-a reaches over the link, so bob's address can
# change without moving the switch), bob (`parley answer --bot`, a steady 880 Hz) in ID-b and
# alice (`parley call bob`, 440 Hz) in ID-a, one interface each; helpers to wait and measure.
# Source it after scripts/lib.sh with $parley set; it begins the test (begin_test: id, work, pids,
# the cleanup trap). Its waits poll faster than lib.sh's, for the timelines, and count no failure:
# the check after each does.
# bed_up; start_switch; start_bob; start_alice [EXTRA-FLAGS...]
begin_test "$(basename "$0")" r "$@"
wait_for() { # FILE PATTERN SECONDS
    local deadline=$((SECONDS + $3))
    until grep -q -- "$2" "$1" 2>/dev/null; do
        [ $SECONDS -lt $deadline ] || { echo "timed out after $3 s waiting for /$2/ in $(basename "$1")" >&2; return 1; }
        sleep 0.05
    done
}
wait_count() { # FILE PATTERN COUNT SECONDS
    local deadline=$((SECONDS + $4))
    until [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; do
        [ $SECONDS -lt $deadline ] || { echo "timed out after $4 s waiting for $3 of /$2/ in $(basename "$1")" >&2; return 1; }
        sleep 0.05
    done
}
now() { date +%s.%N; }
received() { # JSON-FILE: the packets received in the last stats event
    python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    if "\"stats\"" in l:
        e=json.loads(l); n=((e.get("audio") or {}).get("packetsReceived") or 0)
print(n)' "$1"
}
# audio_flows: both sides receive at least 25 more packets (half a second) within 10 s.
audio_flows() {
    local a b deadline=$((SECONDS + 10))
    a=$(received "$work/alice.json"); b=$(received "$work/bob.json")
    until [ "$(received "$work/alice.json")" -ge $((a + 25)) ] && [ "$(received "$work/bob.json")" -ge $((b + 25)) ]; do
        [ $SECONDS -lt $deadline ] || { echo "audio did not flow both ways within 10 s" >&2; return 1; }
        sleep 0.1
    done
}
# timing CASE T0: seconds from T0 to alice's recovered event and to her first restored audio.
timing() {
    python3 - "$work/alice.json" "$work/bob.json" "$1" "$2" <<'PY' | tee -a "$work/timings"
import json, sys
from datetime import datetime
def after(path, t0, match):
    for line in open(path):
        event = json.loads(line)
        ts = datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()
        if ts >= t0 and match(event):
            return ts - t0
    return None
alice, bob, case, t0 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
recovered = min((v for v in (after(p, t0, lambda e: e["event"] == "recovered") for p in (alice, bob)) if v is not None), default=None)
restored = [after(p, t0, lambda e: e.get("media") == "restored") for p in (alice, bob)]
fmt = lambda v: "%.0f ms" % (v * 1000) if v is not None else "no gap seen"
print("reconnect timing | %s | recovered after %s | audio back: alice %s, bob %s" % (case, fmt(recovered), fmt(restored[0]), fmt(restored[1])))
PY
}
# timeline SINCE: what alice, bob and the switch did from SINCE (seconds since the epoch): network
# changes judged, recovery passes, socket reconnects, re-attaches, ICE restarts, recoveries and
# the signalling requests sent and received, one line each in time order, so that a failed check
# shows where the recovery stopped. Pings and trickled candidates are left out.
timeline() {
    python3 - "$1" "$work/alice.log" "$work/bob.log" "$work/switch.json" <<'PY'
import json, re, sys
from datetime import datetime
since = float(sys.argv[1])
wanted = re.compile(r"network settled|no route|recovering after|reconnect|re-attach|ICE restart|restart failed|recovered by|state |"
                    r"lost its media|RTP arriving|no RTP|ICE (connected|failed|disconnected)")
rows = []
for path in sys.argv[2:]:
    who = path.rsplit("/", 1)[-1].split(".")[0]
    try:
        lines = open(path).readlines()
    except OSError:
        continue
    for line in lines:
        try:
            event = json.loads(line)
            ts = datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()
        except (ValueError, KeyError):
            continue
        if ts < since:
            continue
        if who == "switch":
            text = " ".join(str(event.get(k)) for k in ("kind", "login", "call", "detail") if event.get(k))
        else:
            text = event.get("message", "")
            frame = re.match(r"(sent|received) (.*)", text)
            if frame:
                method = re.search(r'"method":"([^"]+)"', frame[2])
                action = re.search(r'"action":"([^"]+)"', frame[2])
                if not method and '"result"' not in frame[2] and '"error"' not in frame[2]:
                    continue
                name = method[1] if method else ("error" if '"error"' in frame[2] else "result")
                if re.search(r"ping|candidate|endOfCandidates|gatewayState", name):
                    continue
                if name in ("result", "error") and not action:
                    continue
                text = "%s %s%s" % (frame[1], name, " " + action[1] if action else "")
            elif not wanted.search(text):
                continue
        rows.append((ts, who, text[:160]))
for ts, who, text in sorted(rows)[:120]:
    print("timeline | +%7.3f s | %-6s | %s" % (ts - since, who, text))
PY
}

bed_up() {
    scripts/netns/topology up flat "$id" >/dev/null || { echo "reconnect-bed: could not build the test bed" >&2; exit 1; }
    # The switch's own address, outside bob's interface; ID-a reaches it over the link (ARP answers
    # for any local address).
    in_b ip addr add 10.0.1.200/32 dev lo
    for ns in a b; do
        ip netns exec "$id-$ns" sysctl -qw "net.ipv4.conf.${id}${ns}0.promote_secondaries=1"
    done
    server=ws://10.0.1.200:8080
    alice_pw="alice-Pw-$RANDOM$RANDOM"
    bob_pw="bob-Pw-$RANDOM$RANDOM"
}
start_switch() {
    in_b "$parley" switch --listen "$server" --user "alice:$alice_pw" --user "bob:$bob_pw" \
        --ping-interval 2 --ping-timeout 3 --detach-timeout 6 --json > "$work/switch.json" 2> "$work/switch.err" &
    pids+=("$!")
    wait_for "$work/switch.json" '"listening"' 10
}
start_bob() { # [FLAGS...] for parley answer
    printf '%s\n' 'description: A steady 880 Hz tone until the caller hangs up' 'start: loop' 'max_steps: 100000' 'steps:' \
        '  loop:' '    type: play' '    prompt: tone:880/1s' '    next: loop' > "$work/tone.yaml"
    mkdir -p "$work/bob"
    in_b env PARLEY_PASSWORD="$bob_pw" "$parley" answer --server "$server" --login bob --interface "${id}b0" --no-ipv6 \
        --bot "$work/tone.yaml" --record-dir "$work/bob" --calls 1 --json --log-level debug --log-file "$work/bob.log" \
        --disruption-timeout 0.1 --stats-interval 0.25 --reconnect-timeout 20 "$@" > "$work/bob.json" 2> "$work/bob.err" &
    bob=$!
    pids+=("$bob")
    wait_for "$work/switch.json" '"kind":"login","login":"bob"' 10
}
# start_alice [FLAGS...]: the call, driven through the fifo on fd 7; returns once audio flows both ways.
# Alice gathers on every interface but loopback (ID-a's link is the only one), so a link that
# appears in her namespace is one media could use.
start_alice() {
    mkfifo "$work/alice.commands"
    in_a env PARLEY_PASSWORD="$alice_pw" "$parley" call bob --server "$server" --login alice --no-ipv6 \
        --play tone:440 --record "$work/alice.wav" --json --log-level debug --log-file "$work/alice.log" \
        --disruption-timeout 0.1 --stats-interval 0.25 "$@" \
        < "$work/alice.commands" > "$work/alice.json" 2> "$work/alice.err" &
    alice=$!
    pids+=("$alice")
    exec 7> "$work/alice.commands"
    wait_for "$work/alice.json" '"state":"active"' 10 && wait_for "$work/bob.json" '"srtpProfile"' 10 && audio_flows
}
