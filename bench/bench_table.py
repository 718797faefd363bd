"""The table `bench/run` prints (Markdown, so docs/performance.md can hold it as printed)."""

KINDS = [("opus-live", "Parley, Opus, encoder per call", "opusCall"),
         ("pcmu", "Parley, PCMU", "pcmuCall"),
         ("opus-cached", "Parley, Opus, prompts pre-encoded", "opusCachedCall"),
         ("aiortc", "aiortc 1.16, Opus", "opusCall")]


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
        hold = entry.get("hold") or {}
        window = hold.get("window") or {}
        held = entry.get("held")
        seconds = hold.get("seconds", 60)
        goal = ""
        if kind == "opus-cached" or kind == "opus-live":
            goal = ">= 300, >= 10x aiortc"
        lines.append("| concurrent calls held %d s: %s | %s | %s |" % (seconds, name, fmt(held), goal))
        cpu = hold.get("cpuPercentSamples") or []
        cpu = [c for c in cpu if c is not None]
        if held and cpu:
            lines.append("| &nbsp;&nbsp;callee CPU %% of one core at %d calls (5 s samples) | %s | |" % (held, pair((sorted(cpu)[len(cpu) // 2], max(cpu)))))
            per_call = window.get("cpuPercent") and window["cpuPercent"] * 10000 / held
            floor_value = (floor.get(floor_key) or [None])[0]
            ratio = per_call / floor_value if per_call and floor_value else None
            lines.append("| &nbsp;&nbsp;callee CPU per call, µs per call-second (× kernel floor) | %s (%s×) | within 1.5× |" % (fmt(per_call), fmt(ratio, "%.1f")))
            lines.append("| &nbsp;&nbsp;frames sent late / audio concealed over the hold | %s%% / %s%% | <= 1%% each |" % (
                fmt(window.get("late") and window["late"] * 100, "%.2f"), fmt(window.get("concealed") and window["concealed"] * 100, "%.2f")))
            lines.append("| &nbsp;&nbsp;callee RSS at %d calls, MiB | %s | |" % (held, fmt(window.get("rssKiB") and window["rssKiB"] / 1024, "%.1f")))
            if window.get("machineBusyPercent") is not None:
                lines.append("| &nbsp;&nbsp;whole machine busy during the hold (callers included), %% of %s cores | %s | |" % (
                    results.get("nproc"), fmt(window["machineBusyPercent"])))
        ramp = entry.get("ramp") or []
        failed = [step for step in ramp if not step["held"]]
        if failed:
            step = failed[0]
            w = step.get("window") or {}
            lines.append("| &nbsp;&nbsp;first step that fell behind: %d calls (late %s%%, concealed %s%%, CPU %s%%) | | |" % (
                step["target"], fmt(w.get("late") and w["late"] * 100, "%.1f"), fmt(w.get("concealed") and w["concealed"] * 100, "%.1f"),
                fmt(w.get("cpuPercent"))))
        memory = entry.get("memory") or {}
        if memory.get("idleKiB"):
            lines.append("| &nbsp;&nbsp;RSS of the idle, logged-in callee, MiB | %s | |" % fmt(memory["idleKiB"] / 1024, "%.1f"))
        for n in ("1", "10", "100"):
            if n in memory:
                lines.append("| &nbsp;&nbsp;extra RSS per call at %s calls, KiB | %s | < 1024 |" % (n, fmt(memory[n]["perCallKiB"])))
    lines.append("")
    lines.append("Median / worst: setup over the runs (worst = slowest), floor over its runs, CPU over 5 s samples of the hold.")
    return "\n".join(lines)
