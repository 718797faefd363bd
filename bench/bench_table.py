"""The table `bench/run` prints (Markdown, so docs/performance.md can hold it as printed)."""

KINDS = [("opus-cached", "Parley, Opus, cached prompts", "opusCachedCall"),
         ("pcmu", "Parley, PCMU", "pcmuCall"),
         ("opus-live", "Parley, Opus, encoder per call", "opusCall"),
         ("aiortc", "aiortc 1.16, Opus", "opusCall")]

# What the held-calls goal is for each callee (docs/performance.md).
HELD_GOALS = {"opus-cached": ">= 300", "pcmu": ">= 600"}

# `parley load` sends cached frames and does not decode: its floor is SRTP alone.
LOAD_FLOOR = {"pcmu": "srtpPCMUUs"}


def percent(value):
    return fmt(value and value * 100, "%.2f")


def per_call_us(window, calls):
    """µs of CPU per call-second from a window's CPU % of one core."""
    return window.get("cpuPercent") * 10000 / calls if window and window.get("cpuPercent") and calls else None


def concurrency_rows(kind, name, entry, floor, floor_key, nproc):
    rows = []
    hold = entry.get("hold") or {}
    window = hold.get("window") or {}
    callee = window.get("callee") or {}
    load = window.get("load") or {}
    held = entry.get("held")
    calls = hold.get("calls")
    rows.append("| concurrent calls held %d s: %s, both ends one process each | %s | %s |" % (
        hold.get("seconds", 60), name, fmt(held), HELD_GOALS.get(kind, "")))
    if calls:
        rows.append("| &nbsp;&nbsp;over the hold of %d calls: frames > 20 ms late, callee / load | %s%% / %s%% | < 1%% |" % (
            calls, percent(callee.get("late20")), percent(load.get("late20"))))
        rows.append("| &nbsp;&nbsp;frames > 10 ms late (information), callee / load | %s%% / %s%% | |" % (
            percent(callee.get("late10")), percent(load.get("late10"))))
        rows.append("| &nbsp;&nbsp;audio concealed at the callee | %s%% | < 1%% |" % percent(callee.get("concealed")))
        callee_floor = (floor.get(floor_key) or [None])[0]
        load_floor = (floor.get(LOAD_FLOOR.get(kind, "srtpOpusUs")) or [None])[0]
        for side, data, floor_value, goal in (("callee", callee, callee_floor, "<= 1.5x" if kind == "opus-cached" else ""),
                                             ("load", load, load_floor, "")):
            per_call = per_call_us(data, calls)
            ratio = per_call / floor_value if per_call and floor_value else None
            rows.append("| &nbsp;&nbsp;%s CPU per call-second, µs (× its floor of %s µs) | %s (%s×) | %s |" % (
                side, fmt(floor_value), fmt(per_call), fmt(ratio, "%.1f"), goal))
        if window.get("machineBusyPercent") is not None:
            rows.append("| &nbsp;&nbsp;whole machine busy during the hold, %% of %s cores | %s | |" % (nproc, fmt(window["machineBusyPercent"])))
    capacity = floor_capacity(held, (floor.get(floor_key) or [None])[0], nproc)
    if capacity is not None:
        rows.append("| &nbsp;&nbsp;calls held per floor core-second (held × floor per call-second ÷ %s cores: the share of the machine the held calls' floor fills; hosts compare) | %s | |" % (
            nproc, fmt(capacity, "%.3f")))
    memory = entry.get("memory") or {}
    for side, data in (("callee", memory), ("load", memory.get("load") or {})):
        for key, label in (("100", "100 calls"), ("top", "the step held")):
            if key in data:
                rows.append("| &nbsp;&nbsp;%s extra RSS per call at %s (%d), KiB | %s | <= 512 |" % (
                    side, label, data[key]["calls"], fmt(data[key]["perCallKiB"])))
    if memory.get("idleKiB"):
        rows.append("| &nbsp;&nbsp;RSS of the idle, logged-in callee, MiB | %s | |" % fmt(memory["idleKiB"] / 1024, "%.1f"))
    ramp = entry.get("ramp") or []
    failed = [step for step in ramp if not step["held"]]
    if failed:
        step = failed[0]
        w = step.get("window") or {}
        c = w.get("callee") or {}
        l = w.get("load") or {}
        rows.append("| &nbsp;&nbsp;first step that fell behind: %d calls (late > 20 ms callee %s%%, load %s%%; concealed %s%%; CPU callee %s%%, load %s%%) | | |" % (
            step["target"], percent(c.get("late20")), percent(l.get("late20")), percent(c.get("concealed")), fmt(c.get("cpuPercent")),
            fmt(l.get("cpuPercent"))))
    setup = entry.get("setupUnderLoad")
    if setup:
        ms = setup.get("setupMs") or {}
        audio = setup.get("firstAudioMs") or {}
        rows.append("| &nbsp;&nbsp;setup (dial to answer) p50 / p95 at %d new calls/s with %d up, ms | %s / %s | p95 < 150 |" % (
            setup["rate"], setup["up"], fmt(ms.get("p50")), fmt(ms.get("p95"))))
        rows.append("| &nbsp;&nbsp;dial to first audio p50 / p95 at %d new calls/s with %d up, ms | %s / %s | |" % (
            setup["rate"], setup["up"], fmt(audio.get("p50")), fmt(audio.get("p95"))))
        if setup.get("failed"):
            rows.append("| &nbsp;&nbsp;calls that failed in that run | %s | |" % ", ".join("%s %d" % kv for kv in sorted(setup["failed"].items())))
    return rows


def floor_capacity(held, floor_us, nproc):
    """Calls held as a share of what the floor says the cores could carry: a figure that compares
    across hosts, since a slower host has a higher floor and holds fewer calls alike."""
    if not held or not floor_us or not nproc:
        return None
    return held * floor_us / 1e6 / nproc


def saturation_rows(runs):
    """Whether each run's `parley load` (and its callee) flagged itself the bottleneck, and from when."""
    if runs is None:
        return []
    flagged = [run for run in runs if run.get("load") or run.get("callee")]
    rows = ["| runs whose load generator / callee saturated (docs/performance.md) | %d / %d of %d | 0 |" % (
        sum(1 for run in runs if run.get("load")), sum(1 for run in runs if run.get("callee")), len(runs))]
    for run in flagged:
        parts = ["%s from %s (%s %s)" % (side, run[side]["since"][11:19], run[side]["signal"], fmt(run[side]["value"], "%g"))
                 for side in ("load", "callee") if run.get(side)]
        rows.append("| &nbsp;&nbsp;%s | %s | |" % (run["run"], "; ".join(parts)))
    return rows


def socket_mux_rows(mux):
    """bench/socket-mux: CPU per packet, one socket per call (poll, as today; epoll) against one batched socket."""
    if not mux:
        return []
    medians = mux["medians"]
    return ["| %d calls' packets, CPU µs per packet: socket per call (poll, as today) / (epoll) / one socket batched | %s / %s / %s | |" % (
                mux["calls"], fmt(medians["poll"]["cpuUsPerPacket"], "%.2f"), fmt(medians["epoll"]["cpuUsPerPacket"], "%.2f"),
                fmt(medians["mux"]["cpuUsPerPacket"], "%.2f")),
            "| &nbsp;&nbsp;ratio, today's path : one batched socket (and epoll : batched) | %s (%s) | |" % (
                fmt(mux["ratioPollToMux"], "%.2f"), fmt(mux["ratioEpollToMux"], "%.2f"))]


def fmt(value, pattern="%.0f"):
    return "-" if value is None else pattern % value


def pair(values, pattern="%.0f"):
    if not values or values[0] is None:
        return "-"
    return "%s / %s" % (fmt(values[0], pattern), fmt(values[1], pattern))


def render(results):
    lines = []
    build = results.get("build", "?")
    lines.append("Parley `make bench`: %s build, nproc %s, commit %s%s, %s%s, load average at end %s" % (
        build, results.get("nproc"), (results.get("commit") or "?")[:10], " (uncommitted changes)" if results.get("dirty") else "",
        "QUICK run" if results.get("quick") else "full run", ", %s s" % results.get("seconds") if results.get("seconds") else "",
        " ".join("%.2f" % v for v in results.get("loadAverage", []))))
    lines.append("")
    lines.append("| figure | median / worst | goal |")
    lines.append("|---|---|---|")
    host = results.get("host")
    if host:
        lines.append("| host steadiness, nothing running: 0.5 ms units >= 2x slow, %% (slowest ×, longest window ms) | %s (%s×, %s) | 0 on a host whose cores are its own |" % (
            host.get("slowUnitsPercent"), host.get("slowestRatio"), host.get("longestSlowWindowMs")))
    floor = results.get("floor", {})
    lines.append("| kernel floor, Opus call (encode+decode+SRTP both ways), µs CPU per call-second | %s | |" % pair(floor.get("opusCall")))
    lines.append("| kernel floor, Opus call with pre-encoded prompts (decode+SRTP), µs/call-s | %s | |" % pair(floor.get("opusCachedCall")))
    lines.append("| kernel floor, PCMU call (SRTP; G.711 is a table lookup), µs/call-s | %s | |" % pair(floor.get("pcmuCall")))
    for key, label in (("opusEncodeUs", "libopus encode"), ("opusDecodeUs", "libopus decode"), ("srtpOpusUs", "libsrtp protect+unprotect")):
        lines.append("| &nbsp;&nbsp;of which %s, µs/call-s | %s | |" % (label, pair(floor.get(key))))
    setup = results.get("setup", {})
    for kind, name in (("opus-cached", "Parley"), ("aiortc", "aiortc")):
        for ice in ("trickle", "vanilla"):
            entry = setup.get("%s/%s" % (kind, ice), {})
            goal = "< 100 ms" if kind == "opus-cached" and ice == "trickle" else ""
            lines.append("| dial to first audio, %s callee, %s, flat, ms | %s | %s |" % (name, ice, pair(entry.get("medianWorstMs")), goal))
    concurrency = results.get("concurrency", {})
    for kind, name, floor_key in KINDS:
        entry = concurrency.get(kind)
        if not entry:
            continue
        lines += concurrency_rows(kind, name, entry, floor, floor_key, results.get("nproc"))
    held = {kind: (concurrency.get(kind) or {}).get("held") for kind, _, _ in KINDS}
    if held.get("pcmu") and held.get("opus-cached"):
        lines.append("| PCMU : Opus (cached) calls held in the same run | %.2f : 1 | >= 1.3 : 1 |" % (held["pcmu"] / held["opus-cached"]))
    if held.get("aiortc") and held.get("opus-cached"):
        lines.append("| Parley : aiortc, Opus calls held in the same run | %.1f : 1 | >= 10 : 1 |" % (held["opus-cached"] / held["aiortc"]))
    lines += saturation_rows(results.get("saturation"))
    lines += socket_mux_rows(results.get("socketMux"))
    lines.append("")
    lines.append("Median / worst: setup over the runs (worst = slowest), floor over its runs. CPU and lateness over the whole hold.")
    return "\n".join(lines)
