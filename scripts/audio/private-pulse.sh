# shellcheck shell=bash
# Sourced by scripts/test-audio and bench/audio-latency: a PulseAudio server of their own, a user
# daemon with two null sinks and no hardware modules, isolated by its own runtime directory.
# "spk" is Parley's speaker; "micfeed" is what its microphone (micfeed.monitor) hears.
# private_pulse_start DIR: starts it under DIR and exports XDG_RUNTIME_DIR, HOME, PULSE_SERVER.
# private_pulse_stop: stops it.
private_pulse_start() {
    export XDG_RUNTIME_DIR="$1/runtime" HOME="$1/home"
    mkdir -p "$XDG_RUNTIME_DIR" "$HOME"
    chmod 700 "$XDG_RUNTIME_DIR"
    export PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse/native"
    cat > "$1/default.pa" <<'PA'
load-module module-native-protocol-unix
load-module module-null-sink sink_name=spk sink_properties=device.description=ParleySpeaker
load-module module-null-sink sink_name=micfeed sink_properties=device.description=MicFeed
set-default-sink spk
set-default-source micfeed.monitor
PA
    pulseaudio -n -F "$1/default.pa" --daemonize=yes --exit-idle-time=-1 --use-pid-file=yes --log-target="file:$1/pulse.log" || return 1
    local deadline=$((SECONDS + 10))
    until pactl info >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.1
    done
}

private_pulse_stop() {
    [ -n "${XDG_RUNTIME_DIR:-}" ] || return 0
    pactl exit 2>/dev/null
    [ -f "$XDG_RUNTIME_DIR/pulse/pid" ] && kill "$(cat "$XDG_RUNTIME_DIR/pulse/pid" 2>/dev/null)" 2>/dev/null
    return 0
}
