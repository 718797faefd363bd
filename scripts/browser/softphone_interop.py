#!/usr/bin/env python3
"""Parley against Chromium's libwebrtc, through the softphone `parley switch --web` serves.

Run by scripts/test-browser inside namespace ID-a of a flat test bed; the switch and every
`parley` run in ID-b. Chromium is Debian's, driven by Playwright with `executable_path` (no
browser download); its fake microphone plays a tone WAV. Prints one line per check, the
figures it measured, and "browser: N passed, N failed".

Usage: softphone_interop.py PARLEY ID WORKDIR
"""
import datetime
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import time
import wave

from playwright.sync_api import sync_playwright

PARLEY, BED, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SWITCH_ADDRESS = "10.0.1.2"
PORT = 8443
SERVER = f"wss://{SWITCH_ADDRESS}:{PORT}"
PAGE = f"https://{SWITCH_ADDRESS}:{PORT}/"
BROWSER_TONE = 1250  # what the browser's fake microphone plays
PARLEY_TONE = 880    # what `parley call` plays to the browser
PASSWORD = {name: f"{name}-Pw-{os.getpid()}{int(time.time()) % 100000}" for name in ("alice", "bob", "carol", "ivrt", "ivrv", "parley")}

passed = failed = 0
figures = []
processes = []


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {name}" + (f" ({detail})" if detail else ""), flush=True)
    else:
        failed += 1
        print(f"FAIL: {name}" + (f" ({detail})" if detail else ""), file=sys.stderr, flush=True)
    return ok


def figure(text):
    figures.append(text)
    print(f"measured: {text}", flush=True)


def in_b(args, **kwargs):
    process = subprocess.Popen(["ip", "netns", "exec", f"{BED}-b", *args], **kwargs)
    processes.append(process)
    return process


def wait_until(predicate, seconds, step=0.1):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


class ScriptedPage:
    """A page whose phone is one JavaScript global (`vjs` for verto.js, `sip` for the SIP page):
    what it evaluates, and the state of its current call (vertojs_interop.py, sip_interop.py)."""

    def __init__(self, page, phone):
        self.page, self.phone = page, phone

    def value(self, expression):
        return self.page.evaluate(expression)

    def state(self):
        return self.value(f"{self.phone}.current && {self.phone}.current.state")

    def wait_state(self, wanted, seconds=10):
        return wait_until(lambda: self.state() == wanted, seconds)


def json_lines(path):
    try:
        with open(path) as handle:
            return [json.loads(line) for line in handle if line.startswith("{")]
    except FileNotFoundError:
        return []


def events(path, name):
    return [event for event in json_lines(path) if event.get("event") == name]


def exit_status(process, seconds):
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        return None


def parley_received(path):
    """Packets Parley had received at its latest --json stats event."""
    return next((e["audio"]["packetsReceived"] for e in reversed(events(path, "stats")) if "audio" in e), 0)


def parley_received_over(path, seconds):
    """Packets Parley received over `seconds`, by its --json stats events (every 0.5 s)."""
    before = parley_received(path)
    time.sleep(seconds)
    return parley_received(path) - before


def parley_state(path):
    states = events(path, "state")
    return states[-1].get("state") if states else None


def saved_sdp(directory, kind):
    """The latest SDP of `kind` (received-reoffer, sent-reanswer, ...) `--save-sdp` wrote; "" if none."""
    try:
        names = sorted((name for name in os.listdir(directory) if name.endswith(f"-{kind}.sdp")), key=lambda name: int(re.search(r"-(\d+)-(?:sent|received)-", name).group(1)))
    except FileNotFoundError:
        return ""
    return open(os.path.join(directory, names[-1])).read() if names else ""


def sdp_direction(sdp):
    found = re.search(r"^a=(sendrecv|sendonly|recvonly|inactive)\r?$", sdp or "", re.M)
    return found.group(1) if found else None


def pairs(path):
    return [e["pair"] for e in events(path, "ice") if "pair" in e]


def tone_wav(path, frequency, seconds=10, rate=48000):
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        frames = bytearray()
        for index in range(seconds * rate):
            frames += struct.pack("<h", int(8000 * math.sin(2 * math.pi * frequency * index / rate)))
        out.writeframes(bytes(frames))


def wav_tone_seconds(path, frequency, candidates):
    """Seconds of `frequency` in a recording, by scripts/wav-tones."""
    output = subprocess.run([os.path.join(ROOT, "scripts", "wav-tones"), path, *map(str, candidates)], capture_output=True, text=True).stdout
    return sum(float(seconds) for name, seconds in (line.split() for line in output.splitlines()) if name == str(frequency))


def certificate():
    key, cert = os.path.join(WORK, "switch.key"), os.path.join(WORK, "switch.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-subj", "/CN=parley-test", "-addext", f"subjectAltName=IP:{SWITCH_ADDRESS}", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    return cert, key


class Softphone:
    """One page of the softphone, logged in as one user."""

    def __init__(self, context, login):
        self.login = login
        self.page = context.new_page()
        self.page.goto(PAGE)
        self.page.fill("#login", login)
        self.page.fill("#password", PASSWORD[login])
        self.page.click("#login-button")
        self.page.wait_for_selector("#phone-panel:not([hidden])", timeout=10000)

    def value(self, expression):
        return self.page.evaluate(expression)

    def state(self):
        return self.page.text_content("#call-state")

    def wait_state(self, wanted, seconds=10):
        return wait_until(lambda: self.state() == wanted, seconds)

    def stats(self):
        """getStats now, not the page's last once-a-second reading."""
        return self.value("window.softphone.refreshStats()") or {}

    def set_trickle(self, on):
        self.page.set_checked("#trickle", on)

    def hears(self, frequency, seconds=8, hold=0.3):
        """The frequency measured by WebAudio once it has stayed within 2% of `frequency` for
        `hold` seconds (returns the median of those readings), or None."""
        deadline = time.monotonic() + seconds
        readings = []
        while time.monotonic() < deadline:
            reading = self.value("window.softphone.heardFrequency")
            if reading and abs(reading - frequency) <= frequency * 0.02:
                readings.append(reading)
                if len(readings) * 0.1 >= hold:
                    return statistics.median(readings)
            else:
                readings = []
            time.sleep(0.1)
        return None

    def packets_received_over(self, seconds):
        before = self.stats().get("packetsReceived", 0)
        time.sleep(seconds)
        return self.stats().get("packetsReceived", 0) - before

    def screenshot(self, name):
        path = os.path.join(WORK, name)
        self.page.screenshot(path=path, full_page=True)
        return path


def ocr(path):
    result = subprocess.run(["tesseract", path, "-", "--psm", "3"], capture_output=True, text=True)
    return result.stdout


def bot_scenario(context, caller, bot, parley_ice, browser_trickle, full):
    """The browser calls `parley answer --bot` (examples/bots/ivr.yaml)."""
    label = f"browser {'trickle' if browser_trickle else 'vanilla'} -> bot {parley_ice}"
    record_dir = os.path.join(WORK, bot)
    os.makedirs(record_dir, exist_ok=True)
    output = os.path.join(WORK, f"{bot}.json")
    with open(output, "w") as out, open(os.path.join(WORK, f"{bot}.err"), "w") as err:
        process = in_b([PARLEY, "answer", "--server", SERVER, "--insecure", "--login", bot, "--interface", f"{BED}b0", "--no-ipv6",
                        "--ice", parley_ice, "--bot", os.path.join(ROOT, "examples/bots/ivr.yaml"), "--calls", "1",
                        "--record-dir", record_dir, "--json", "--log-level", "debug", "--log-file", os.path.join(WORK, f"{bot}.log")],
                       env={**os.environ, "PARLEY_PASSWORD": PASSWORD[bot]}, stdout=out, stderr=err)
    wait_until(lambda: any(e.get("kind") == "login" and e.get("login") == bot for e in events(os.path.join(WORK, "switch.json"), "switch")), 10)
    caller.set_trickle(browser_trickle)
    if full:
        listed = lambda: caller.value("window.softphone.refreshOnline ? window.softphone.refreshOnline() : []") and caller.value("(document.getElementById('online') || {}).innerText || ''")
        online = wait_until(lambda: bot in (listed() or ""), 5)
        check(f"{label}: the page's Online list (/online.json) names the logged-in bot", online, repr(listed()))
        check(f"{label}: the keypad is disabled before a call", caller.value("[...document.querySelectorAll('#keypad button')].every((b) => b.disabled)"))
    started = time.monotonic()
    caller.page.fill("#destination", bot)
    caller.page.click("#dial")
    check(f"{label}: the call is active", caller.wait_state("active", 15))
    first_duration = caller.value("window.softphone.durationSeconds")
    if full:
        # Before RTCP has measured a round trip the page shows the ICE pair's or "—", never a bare 0.
        shown = wait_until(lambda: caller.value("([...document.querySelectorAll('#stats tr')].find((r) => r.title === 'rttMs' || r.cells[0].textContent === 'rttMs') || { cells: [] }).cells[1]?.textContent"), 3)
        check(f"{label}: early in the call the round-trip time is a measure in ms or unknown", shown is not None and re.fullmatch(r"(< )?[\d.,]+ ms|—", shown) is not None, f"shown {shown!r}")
    welcome = caller.hears(440)
    check(f"{label}: the browser hears the bot's 440 Hz welcome", welcome is not None, f"{welcome and round(welcome, 1)} Hz")
    if welcome:
        figure(f"{label}: welcome prompt heard at {welcome:.1f} Hz, {time.monotonic() - started:.1f} s after dialling")
    digits = "12" if full else "2"
    if full:
        caller.page.click("#keypad >> text=1")
        sales = caller.hears(660)
        check(f"{label}: browser DTMF 1 (RTCDTMFSender) takes the bot to sales, 660 Hz", sales is not None, f"{sales and round(sales, 1)} Hz")
        if sales:
            figure(f"{label}: sales prompt heard at {sales:.1f} Hz after the browser pressed 1")
        check(f"{label}: the menu comes back (440 Hz)", caller.hears(440) is not None)
    caller.page.click("#keypad >> text=2")
    message = caller.hears(550)
    check(f"{label}: browser DTMF 2 takes the bot to the message box, 550 Hz", message is not None, f"{message and round(message, 1)} Hz")
    if message:
        figure(f"{label}: message prompt heard at {message:.1f} Hz after the browser pressed 2")
    sent = caller.value("window.softphone.sentDigits")
    check(f"{label}: RTCDTMFSender reports the tones it sent (tonechange)", sent == digits, f"sent {sent!r}")
    beep = caller.hears(1000, seconds=4, hold=0.1)
    check(f"{label}: the beep before recording (1000 Hz)", beep is not None)
    time.sleep(2.5)  # the bot records the browser's tone
    if full:
        call_page_checks(caller, label, first_duration)
    caller.page.click("#hangup")
    check(f"{label}: the browser's call ends", caller.wait_state("ended", 5))
    if full:
        keypad = caller.value("[...document.querySelectorAll('#keypad button')].map((b) => b.disabled)")
        check(f"{label}: the keypad is disabled once the call ended", len(keypad) == 16 and all(keypad), f"{keypad.count(True)} of {len(keypad)} keys disabled")
        meter = wait_until(lambda: caller.value("document.getElementById('input-level').value") == 0, 2)
        check(f"{label}: the Input meter falls to 0 once the call ended", meter)
    status = exit_status(process, 15)
    check(f"{label}: the bot exits 0 after the browser hangs up", status == 0, f"exit {status}")
    ended = events(output, "ended")
    cause = ended[0]["reason"].get("cause") if ended else None
    check(f"{label}: Parley ends the call with NORMAL_CLEARING", cause == "NORMAL_CLEARING", f"cause {cause}")
    dtmf = [e.get("digit") for e in events(output, "dtmf")]
    bot_events = events(output, "bot")
    steps = bot_events[0].get("steps") if bot_events else None
    check(f"{label}: the bot received the browser's digits as RFC 4733 events", len(dtmf) == len(digits), f"{len(dtmf)} digit events, steps {steps}")
    figure(f"{label}: bot steps {steps}")
    recordings = [os.path.join(record_dir, name) for name in os.listdir(record_dir) if name.startswith("message-")]
    seconds = wav_tone_seconds(recordings[0], BROWSER_TONE, [440, 550, 660, 1000, BROWSER_TONE]) if recordings else 0
    check(f"{label}: the bot's recording holds the browser's {BROWSER_TONE} Hz tone", seconds >= 1.0, f"{seconds:.1f} s of {BROWSER_TONE} Hz")
    figure(f"{label}: bot recording {os.path.basename(recordings[0]) if recordings else None}: {seconds:.1f} s of the browser's {BROWSER_TONE} Hz")


def call_page_checks(caller, label, first_duration):
    """What a person reads on the page during a call: a running duration, the round-trip time,
    an Input meter that follows the microphone, the statistics named in words."""
    duration = caller.value("window.softphone.durationSeconds")
    shown = caller.value("(document.getElementById('call-duration') || {}).textContent") or ""
    check(f"{label}: the call duration advances", first_duration is not None and duration is not None and duration >= first_duration + 3
          and re.fullmatch(r"\d+:\d\d", shown) is not None, f"{first_duration} s then {duration} s, shown {shown!r}")
    rtt = wait_until(lambda: caller.stats().get("rttMs"), 6)
    check(f"{label}: the round-trip time is measured (not 0)", isinstance(rtt, (int, float)) and rtt > 0, f"rttMs {rtt}")
    # The Input meter reads the microphone on getStats' audioLevel scale, in decibels (-60 dBFS
    # empty), and follows it down on mute and back up.
    meter = lambda: caller.value("document.getElementById('input-level').value")
    expected = lambda level: max(0.0, 1 + 20 * math.log10(level) / 60) if level > 0 else 0.0
    readings = []
    for _ in range(5):
        readings.append((round(meter(), 3), caller.stats().get("localAudioLevel", 0)))
        time.sleep(0.1)
    check(f"{label}: the Input meter shows the microphone's level (getStats localAudioLevel, in dB)",
          all(level > 0 and abs(shown - expected(level)) < 0.05 for shown, level in readings), f"meter, localAudioLevel: {readings}")
    caller.page.click("#mute")
    muted = wait_until(lambda: meter() < 0.05, 3)
    caller.page.click("#mute")
    back = wait_until(lambda: meter() > 0.5, 3)
    check(f"{label}: the Input meter falls on mute and rises on unmute", muted and back, f"meter {meter():.2f}")
    figure(f"{label}: rttMs {rtt}, Input meter {readings[0][0]:.2f} at localAudioLevel {readings[0][1]}, duration {duration} s")
    wait_until(lambda: caller.value("!!document.querySelector('#stats th[title=rttMs]')"), 3)
    rows = caller.value("Object.fromEntries([...document.querySelectorAll('#stats tr')].map((r) => r.querySelector('th') ? [r.querySelector('th').title, [r.querySelector('th').textContent, r.querySelector('td').textContent]] : ['', ['', '']]))")
    labelled = rows.get("rttMs", [""])[0] == "Round-trip time" and rows["rttMs"][1].endswith(" ms") and rows.get("packetsLost", [""])[0] == "Packets lost" \
        and rows.get("jitterMs", ["", ""])[1].endswith(" ms") and not any(name == text for name, (text, _) in rows.items())
    check(f"{label}: statistics carry a person's labels and units, the getStats name as the title", labelled, f"{rows.get('rttMs')}, {rows.get('jitterMs')}")
    shot = caller.screenshot("softphone-bot-call.png")
    caller.page.set_viewport_size({"width": 390, "height": 844})
    caller.screenshot("softphone-phone-width.png")
    caller.page.set_viewport_size({"width": 1280, "height": 900})
    figure(f"{label}: screenshots {shot} and softphone-phone-width.png")


def wrong_password(context):
    """A refused login says why: the switch's -32001 message, not only Disconnected."""
    page = context.new_page()
    page.goto(PAGE)
    page.fill("#login", "alice")
    page.fill("#password", "not-" + PASSWORD["alice"])
    page.click("#login-button")
    said = wait_until(lambda: "Login Incorrect" in page.inner_text("#status") and page.evaluate("window.softphone.socket") is None, 5)
    check("a wrong password: the page shows the switch's reason", said, page.inner_text("#status"))
    page.close()


def call_scenario(context, callee, parley_ice, browser_trickle, full):
    """`parley call` calls a browser user who answers."""
    label = f"parley call {parley_ice} -> browser {'trickle' if browser_trickle else 'vanilla'}"
    tag = f"call-{parley_ice}"
    output = os.path.join(WORK, f"{tag}.json")
    recording = os.path.join(WORK, f"{tag}.wav")
    sdp_dir = os.path.join(WORK, f"{tag}-sdp")
    callee.set_trickle(browser_trickle)
    with open(output, "w") as out, open(os.path.join(WORK, f"{tag}.err"), "w") as err:
        process = in_b([PARLEY, "call", callee.login, "--server", SERVER, "--insecure", "--login", "parley", "--interface", f"{BED}b0",
                        "--no-ipv6", "--ice", parley_ice, "--play", f"tone:{PARLEY_TONE}", "--record", recording, "--json",
                        "--stats-interval", "0.5", "--save-sdp", sdp_dir, "--log-level", "debug", "--log-file", os.path.join(WORK, f"{tag}.log")],
                       env={**os.environ, "PARLEY_PASSWORD": PASSWORD["parley"]}, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True)

    def command(line):
        process.stdin.write(line + "\n")
        process.stdin.flush()

    check(f"{label}: the browser shows the incoming call", callee.wait_state("incoming", 15))
    started = time.monotonic()
    callee.page.click("#answer")
    check(f"{label}: the browser answers and the call is active", callee.wait_state("active", 10))
    check(f"{label}: Parley sees the call active and secured",
          wait_until(lambda: events(output, "secured") and any(e.get("state") == "active" for e in events(output, "state")), 10))
    heard = callee.hears(PARLEY_TONE)
    check(f"{label}: the browser hears Parley's {PARLEY_TONE} Hz", heard is not None, f"{heard and round(heard, 1)} Hz")
    if heard:
        figure(f"{label}: Parley's tone heard in the browser at {heard:.1f} Hz, {time.monotonic() - started:.1f} s after answering")
    if full:
        shot = callee.screenshot("softphone-active.png")
        text = ocr(shot)
        check(f"{label}: the screenshot of the page shows the call state ACTIVE", re.search(r"Call state:?\s*ACTIVE", text) is not None,
              f"kept as {shot}")
    digits = "159#"
    command(f"dtmf {digits}")
    got = wait_until(lambda: callee.value("window.softphone.heardDigits") == digits and digits, 8)
    heard_digits = callee.value("window.softphone.heardDigits")
    check(f"{label}: Parley's RFC 4733 digits arrive in the browser", got, f"heard {heard_digits!r}")
    figure(f"{label}: digits sent by Parley {digits!r}, detected in the browser's audio {heard_digits!r}")
    if full:
        hold_scenarios(callee, output, sdp_dir, label, command)
        pair_before = callee.stats().get("candidatePair")
        restart_started = time.monotonic()
        command("ice-restart")
        pairs_before = len(pairs(output))
        # Parley's side: a new selected pair in its --json (an explicit restart is no recovery,
        # so no `recovered` event); the browser's side: it answered the re-offer.
        restarted = wait_until(lambda: callee.value("window.softphone.restarts") >= 1 and len(pairs(output)) > pairs_before, 10)
        elapsed = time.monotonic() - restart_started
        new_pair = pairs(output)[-1] if pairs(output) else None
        check(f"{label}: an ICE restart from Parley is followed by the browser", restarted, f"new pair {new_pair}")
        figure(f"{label}: ICE restart from Parley: browser answered and Parley selected a new pair {new_pair} within {elapsed:.2f} s")
        continued = callee.hears(PARLEY_TONE)
        after_restart = callee.packets_received_over(1)
        check(f"{label}: audio continues after the ICE restart", continued is not None and after_restart >= 30,
              f"{after_restart} packets/s, pair {pair_before} -> {callee.stats().get('candidatePair')}")
        received_before = parley_received(output)
        grew = wait_until(lambda: parley_received(output) > received_before + 25, 3)
        check(f"{label}: Parley keeps receiving the browser's audio after the restart", grew)
    if not full:
        time.sleep(1.5)  # enough of the browser's tone in Parley's recording
    command("hangup")
    status = exit_status(process, 10)
    check(f"{label}: Parley hangs up and exits 0", status == 0, f"exit {status}")
    ended = callee.wait_state("ended", 5)
    detail = callee.page.text_content("#call-detail")
    check(f"{label}: the browser sees the hangup as NORMAL_CLEARING", ended and "NORMAL_CLEARING" in detail, detail)
    seconds = wav_tone_seconds(recording, BROWSER_TONE, [PARLEY_TONE, BROWSER_TONE, 440])
    check(f"{label}: Parley's recording holds the browser's {BROWSER_TONE} Hz", seconds >= 1.0, f"{seconds:.1f} s")
    figure(f"{label}: Parley's recording holds {seconds:.1f} s of the browser's {BROWSER_TONE} Hz")


def resumes_both_ways(callee, output):
    """Parley's tone heard in the browser again, the browser's packets in a second and Parley's
    in a second and a half."""
    resumed = callee.hears(PARLEY_TONE)
    return resumed, callee.packets_received_over(1), parley_received_over(output, 1.5)


def hold_scenarios(callee, output, sdp_dir, label, command):
    """Parley holds the browser by Verto's modify alone, as the Telnyx SDKs hold: the page stops
    sending on the relayed notice and no SDP changes hands. Then the browser holds Parley with a
    re-offer (a=sendonly offered, recvonly answered). Each time the audio stops both ways, then
    comes back."""
    direction = lambda: callee.value("window.softphone.mediaDirection()") or {}
    received = callee.packets_received_over(1)
    reoffers = callee.value("window.softphone.reoffers")
    command("hold")
    check(f"{label}: the browser sees the hold (held by far end)", callee.wait_state("held by far end", 5))
    time.sleep(0.5)
    during = callee.packets_received_over(1.5)
    parley_during = parley_received_over(output, 1.5)
    silent = wait_until(lambda: callee.value("window.softphone.outputLevel") < 0.002, 3)
    check(f"{label}: audio stops both ways while Parley holds", during <= 2 and parley_during <= 2 and silent,
          f"browser: {received} packets/s before, {during} in 1.5 s held; Parley: {parley_during} in 1.5 s held")
    check(f"{label}: Parley's hold is the modify alone: no re-offer reached the browser, none in Parley's --save-sdp",
          callee.value("window.softphone.reoffers") == reoffers and direction().get("currentDirection") == "sendrecv" and saved_sdp(sdp_dir, "sent-hold-offer") == "",
          f"browser re-offered {callee.value('window.softphone.reoffers') - reoffers} times, {direction()}")
    command("unhold")
    check(f"{label}: unhold brings the call back to active", callee.wait_state("active", 5))
    resumed, after, parley_after = resumes_both_ways(callee, output)
    check(f"{label}: audio resumes both ways after unhold", resumed is not None and after >= 30 and parley_after >= 40,
          f"browser {after} packets/s at {resumed and round(resumed, 1)} Hz, Parley {parley_after} in 1.5 s")
    figure(f"{label}: Parley holds: browser received {received}/s before, {during} in 1.5 s held, {after}/s after unhold; "
           f"Parley received {parley_during} in 1.5 s held, {parley_after} in 1.5 s after")

    # The softphone's hold button: the browser holds Parley.
    callee.page.click("#hold")
    check(f"{label}: the browser's hold button holds the call", callee.wait_state("held", 5))
    held = wait_until(lambda: parley_state(output) == "remotely-held", 5)
    check(f"{label}: Parley reports remotely-held in --json", held, f"state {parley_state(output)}")
    settled = wait_until(lambda: direction().get("currentDirection") == "sendonly", 5)
    offer, answer = saved_sdp(sdp_dir, "received-reoffer"), saved_sdp(sdp_dir, "sent-reanswer")
    check(f"{label}: the browser re-offers a=sendonly and Parley answers a=recvonly", settled and sdp_direction(offer) == "sendonly" and sdp_direction(answer) == "recvonly",
          f"browser {direction()}, a={sdp_direction(offer)} / a={sdp_direction(answer)}")
    time.sleep(0.5)
    during = callee.packets_received_over(1.5)
    parley_during = parley_received_over(output, 1.5)
    check(f"{label}: audio stops both ways while the browser holds", during <= 2 and parley_during <= 2,
          f"browser received {during}, Parley {parley_during} in 1.5 s held")
    callee.page.click("#hold")
    check(f"{label}: the browser unholds", callee.wait_state("active", 5))
    back = wait_until(lambda: parley_state(output) == "active" and direction().get("currentDirection") == "sendrecv", 5)
    answer = saved_sdp(sdp_dir, "sent-reanswer")
    check(f"{label}: Parley is active again and answered a=sendrecv", back and sdp_direction(answer) == "sendrecv",
          f"state {parley_state(output)}, browser {direction()}, a={sdp_direction(answer)}")
    resumed, after, parley_after = resumes_both_ways(callee, output)
    check(f"{label}: audio resumes both ways after the browser unholds", resumed is not None and after >= 30 and parley_after >= 40,
          f"browser {after} packets/s, Parley {parley_after} in 1.5 s")
    figure(f"{label}: browser holds: browser received {during}, Parley {parley_during} in 1.5 s held; after unhold browser {after}/s, Parley {parley_after} in 1.5 s")


REATTACH_VARIANTS = [  # (the page dials, the page trickles, how its socket drops)
    (False, True, "socket"), (False, False, "socket"), (True, True, "socket"), (True, False, "socket"),
    (False, True, "reload"), (True, False, "reload"),
]


def reattach_scenario(context, page, dials, trickle, drop, run):
    """A call between the page and Parley whose socket then drops: the page logs in again with
    the same sessid and answers the switch's attach from a brand-new RTCPeerConnection (a new
    certificate and ICE credentials, as a browser SDK does; after a reload, as verto.js's call
    recovery does), behind the stateful firewall. Media must come back both ways. Returns the
    seconds from the page's attach answer to Parley hearing it and to it hearing Parley
    (None for a direction that did not come back)."""
    label = f"re-attach, page {'calls' if dials else 'is called'}, trickle {'on' if trickle else 'off'}, {drop}, run {run}"
    tag = f"reattach-{'out' if dials else 'in'}-{'t' if trickle else 'v'}-{drop}-{run}"
    output = os.path.join(WORK, f"{tag}.json")
    record = os.path.join(WORK, tag)
    os.makedirs(record, exist_ok=True)
    common = ["--server", SERVER, "--insecure", "--login", "parley", "--interface", f"{BED}b0", "--no-ipv6", "--play", f"tone:{PARLEY_TONE}",
              "--json", "--stats-interval", "0.25", "--log-level", "debug", "--log-file", os.path.join(WORK, f"{tag}.log")]
    logins = len([e for e in events(os.path.join(WORK, "switch.json"), "switch") if e.get("kind") == "login" and e.get("login") == "parley"])
    command = ["answer", "--calls", "1", "--record-dir", record] if dials else ["call", page.login, "--record", os.path.join(record, "call.wav")]
    with open(output, "w") as out, open(os.path.join(WORK, f"{tag}.err"), "w") as err:
        process = in_b([PARLEY, *command, *common], env={**os.environ, "PARLEY_PASSWORD": PASSWORD["parley"]},
                       stdin=subprocess.PIPE, stdout=out, stderr=err, text=True)
    page.set_trickle(trickle)
    if dials:
        wait_until(lambda: len([e for e in events(os.path.join(WORK, "switch.json"), "switch") if e.get("kind") == "login" and e.get("login") == "parley"]) > logins, 10)
        page.page.fill("#destination", "parley")
        page.page.click("#dial")
    else:
        check(f"{label}: the browser shows the incoming call", page.wait_state("incoming", 15))
        page.page.click("#answer")
    up = page.wait_state("active", 15) and page.hears(PARLEY_TONE) is not None
    check(f"{label}: the call is active and Parley's tone heard", up)
    fingerprint = lambda: page.value("window.softphone.call && window.softphone.call.pc && window.softphone.call.pc.localDescription ? (window.softphone.call.pc.localDescription.sdp.match(/a=fingerprint:(.*)/) || [])[1] : null")
    before = fingerprint()
    dropped_at = time.time()
    if drop == "reload":
        page.page.reload()
        # The box is on the phone panel, hidden until the login: the attach comes with the login.
        page.value(f"document.getElementById('trickle').checked = {json.dumps(trickle)}")
        page.page.fill("#login", page.login)
        page.page.fill("#password", PASSWORD[page.login])
        page.page.click("#login-button")
    else:
        page.value(f"window.softphone.reattach({json.dumps(PASSWORD[page.login])})")
    answered = wait_until(lambda: page.value("window.softphone.reattaches") >= 1, 15)
    check(f"{label}: the page answers the switch's attach from a new peer connection", answered and fingerprint() not in (None, before),
          f"fingerprint {before} -> {fingerprint()}")
    answered_at, closed_at = page.value("[window.softphone.attachAnsweredAt, window.softphone.oldConnectionClosedAt || 0]")
    parley_back = wait_until(lambda: parley_resumed(output, answered_at / 1000, max(closed_at / 1000, dropped_at)), 5, step=0.1)
    heard = page.hears(PARLEY_TONE, seconds=5, hold=0.3)
    # hears() returns once the tone has held 0.3 s: it was first heard that much earlier.
    browser_back = page.value("Date.now() - window.softphone.attachAnsweredAt") / 1000 - 0.3 if heard else None
    check(f"{label}: media back both ways within 2 s of the attach answer", parley_back is not None and parley_back <= 2 and browser_back is not None and browser_back <= 2,
          f"Parley received the browser's packets again {parley_back} s (by its stats every 0.5 s), the browser heard Parley {browser_back} s after the answer")
    if dials:
        page.page.click("#hangup")
    else:
        try:
            process.stdin.write("hangup\n")
            process.stdin.flush()
        except BrokenPipeError:  # a call that failed has ended Parley already
            pass
    status = exit_status(process, 10)
    check(f"{label}: the call ends and Parley exits 0", status == 0, f"exit {status}")
    page.wait_state("ended", 5)
    page.value("window.softphone.reattaches = 0")
    return parley_back, browser_back


def parley_resumed(path, answered_at, closed_at):
    """Seconds from `answered_at` (epoch) to the first --json stats event showing the browser's
    packets arriving again: at least 5 more than the event before it, which itself came after
    the old peer connection closed at `closed_at` (so none of the growth is its last packets).
    None while there is none. An upper bound by the stats interval."""
    stats = [(datetime.datetime.fromisoformat(e["ts"].replace("Z", "+00:00")).timestamp(), e["audio"]["packetsReceived"])
             for e in events(path, "stats") if "audio" in e and "ts" in e]
    for (before_ts, before), (ts, count) in zip(stats, stats[1:]):
        if before_ts >= closed_at + 0.05 and ts > answered_at and count - before >= 5:
            return ts - answered_at
    return None


def reattach_variants(context, page, runs):
    """Every re-attach variant `runs` times; a table of successes and times."""
    rows = []
    chosen = os.environ.get("REATTACH_VARIANT")  # e.g. "out-v-socket": one variant, while investigating
    for dials, trickle, drop in REATTACH_VARIANTS:
        if chosen and chosen != f"{'out' if dials else 'in'}-{'t' if trickle else 'v'}-{drop}":
            continue
        times = [reattach_scenario(context, page, dials, trickle, drop, run + 1) for run in range(runs)]
        good = [(p, b) for p, b in times if p is not None and b is not None and p <= 2 and b <= 2]
        parley = sorted(p for p, _ in times if p is not None)
        browser = sorted(b for _, b in times if b is not None)
        summary = lambda values: f"median {statistics.median(values):.2f} s, worst {values[-1]:.2f} s" if values else "never"
        name = f"page {'calls' if dials else 'is called'}, trickle {'on' if trickle else 'off'}, {drop}"
        rows.append(f"{name}: {len(good)} of {runs}; Parley hears the page {summary(parley)}; the page hears Parley {summary(browser)}")
    for row in rows:
        figure(f"re-attach behind the firewall: {row}")


def main():
    cert, key = certificate()
    tone = os.path.join(WORK, "browser-tone.wav")
    tone_wav(tone, BROWSER_TONE)
    users = [arg for name in PASSWORD for arg in ("--user", f"{name}:{PASSWORD[name]}")]
    with open(os.path.join(WORK, "switch.json"), "w") as out, open(os.path.join(WORK, "switch.err"), "w") as err:
        in_b([PARLEY, "switch", "--listen", SERVER, "--cert", cert, "--key", key, "--web", *users, "--json"], stdout=out, stderr=err)
    check("the switch listens with the softphone", wait_until(lambda: events(os.path.join(WORK, "switch.json"), "listening"), 10))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium"), args=[
            "--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={tone}", "--autoplay-policy=no-user-gesture-required",
            "--ignore-certificate-errors", "--disable-features=WebRtcHideLocalIpsWithMdns",
        ])
        figure(f"browser: Chromium {browser.version}")
        context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
        try:
            only_reattach = os.environ.get("PARLEY_BROWSER_ONLY") == "reattach"
            if not only_reattach:
                wrong_password(context)
                alice = Softphone(context, "alice")
                check("the page loads over HTTPS and logs in over WSS", alice.page.inner_text("#me") == "alice")
            bob = Softphone(context, "bob")
            if not only_reattach:
                bot_scenario(context, alice, "ivrt", "trickle", True, True)
                call_scenario(context, bob, "trickle", False, True)
                bot_scenario(context, alice, "ivrv", "trickle", False, False)
                call_scenario(context, bob, "vanilla", True, False)
            reattach_variants(context, bob, int(os.environ.get("REPEAT", "3")))
            outputs = [os.path.join(WORK, name) for name in os.listdir(WORK) if name.endswith((".json", ".err", ".log"))]
            leaks = [os.path.basename(path) for path in outputs if any(secret in open(path, errors="replace").read() for secret in PASSWORD.values())]
            check("no password in any output or log of the switch or the Parley clients", not leaks and len(outputs) >= 4, f"leaks in {leaks}")
        finally:
            for page in context.pages:
                log = page.evaluate("window.softphone ? window.softphone.log : []")
                with open(os.path.join(WORK, f"page-{context.pages.index(page)}.log"), "w") as handle:
                    handle.write("\n".join(log))
            browser.close()


def run(test, name):
    """Runs `test`, stops every process it started, prints the tally and exits with it."""
    try:
        test()
    except Exception as error:  # a crash of the driver is a failure, not a pass
        check(f"the {name} test ran to its end", False, repr(error))
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
        print(f"{name}: {passed} passed, {failed} failed")
        sys.exit(0 if failed == 0 and passed > 0 else 1)


if __name__ == "__main__":
    run(main, "browser")
