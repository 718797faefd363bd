#!/usr/bin/env python3
"""`parley switch` serving a client that speaks as FreeSWITCH's verto.js does.

Run by scripts/test-browser inside namespace ID-a of a flat test bed, after the softphone
checks; the switch and every `parley` run in ID-b. The page (vertojs_page.html, our own code) is
served to Chromium by Playwright's router. It logs in with its sessid alone and sends its
credentials only after -32000, speaks only `verto.*`, and answers no request without a call id.
The switch pings every 2 s of silence, so the page is pinged many times and must stay logged in.
  1. The page calls `parley answer --bot` (a `telnyx_rtc.*` client): prompts heard, DTMF by
     `verto.info` drives the menu, hold and unhold, the bot records the page, the page hangs up.
  2. `parley call --method-prefix verto` calls the page: tone both ways, RFC 4733 digits heard
     in the page, the page holds and unholds, Parley hangs up; Parley hears only `verto.*`.

Usage: vertojs_interop.py PARLEY ID WORKDIR
"""
import array
import json
import os
import wave
import time

import softphone_interop as bed
from playwright.sync_api import sync_playwright

# Fulfilled by Playwright on the switch's origin. Such a page has no address of its own, so
# Chromium's local network access checks would block its socket to the switch's private address:
# they are turned off.
PAGE = f"https://{bed.SWITCH_ADDRESS}:{bed.PORT}/vertojs.html"
PAGE_HTML = open(os.path.join(bed.HERE, "vertojs_page.html")).read()
LOGIN = "vera"
DOMAIN = "parley.test"  # the page logs in as vera@parley.test, as FreeSWITCH's verto users do
PASSWORDS = {name: f"{name}-Pw-{os.getpid()}" for name in (LOGIN, "ivrj", "caller", "target")}
check, figure, wait_until, events = bed.check, bed.figure, bed.wait_until, bed.events


class VertoPage(bed.ScriptedPage):
    def __init__(self, context):
        context.route(PAGE, lambda route: route.fulfill(status=200, content_type="text/html", body=PAGE_HTML))
        super().__init__(context.new_page(), "vjs")
        self.page.goto(PAGE)

    def hears(self, frequency, seconds=8, hold=0.3):
        """True once `frequency` has dominated what the page hears for `hold` seconds."""
        deadline, since = time.monotonic() + seconds, None
        while time.monotonic() < deadline:
            share = self.value(f"vjs.shares([{frequency}])[0]")
            if share > 0.5:
                since = since or time.monotonic()
                if time.monotonic() - since >= hold:
                    return True
            else:
                since = None
            time.sleep(0.05)
        return False

    def received_methods(self):
        return [frame["method"] for frame in self.value("vjs.received") if "method" in frame]


def start_switch(work):
    cert, key = bed.certificate()
    users = [arg for name in PASSWORDS for arg in ("--user", f"{name}:{PASSWORDS[name]}")]
    with open(os.path.join(work, "vjs-switch.json"), "w") as out, open(os.path.join(work, "vjs-switch.err"), "w") as err:
        bed.in_b([bed.PARLEY, "switch", "--listen", bed.SERVER, "--cert", cert, "--key", key, *users, "--json",
                  "--ping-interval", "2", "--ping-timeout", "2", "--domain", DOMAIN], stdout=out, stderr=err)
    return os.path.join(work, "vjs-switch.json")


def login(page):
    started = f"vjs.start({json.dumps(bed.SERVER)}, {json.dumps(LOGIN + '@' + DOMAIN)}, {json.dumps(PASSWORDS[LOGIN])})"
    logged_in = page.page.evaluate(f"Promise.race([{started}, new Promise((resolve) => setTimeout(() => resolve(false), 10000))])")
    sent = [frame for frame in page.value("vjs.sent") if frame.get("method") == "login"]
    first = page.value("vjs.received")[0] if page.value("vjs.received") else {}
    check("verto.js login: the first login carries the sessid alone and is answered -32000 Authentication Required",
          len(sent) == 2 and set(sent[0]["params"]) == {"sessid"} and first.get("error", {}).get("code") == -32000
          and first["error"].get("message") == "Authentication Required", f"first answer {first}")
    check("verto.js login: the credentials that follow log the page in", logged_in and set(sent[1]["params"]) >= {"login", "passwd"},
          f"login error {page.value('vjs.loginError')}")
    logins = [e.get("login") for e in events(os.path.join(bed.WORK, "vjs-switch.json"), "switch") if e.get("kind") == "login"]
    check(f"verto.js login as {LOGIN}@{DOMAIN} (the switch's --domain) is the user {LOGIN}", logged_in and LOGIN in logins, f"logins {logins}")
    ready = wait_until(lambda: "verto.clientReady" in page.received_methods(), 5)
    check("the switch sends the page verto.clientReady", ready, f"methods {page.received_methods()}")


def bot_call(page, work):
    """The page calls the IVR bot, a telnyx_rtc client: one call, one client of each dialect."""
    label = "verto.js page -> bot (telnyx_rtc)"
    record_dir = os.path.join(work, "vjs-bot")
    os.makedirs(record_dir, exist_ok=True)
    output, log = os.path.join(work, "vjs-bot.json"), os.path.join(work, "vjs-bot.log")
    with open(output, "w") as out, open(os.path.join(work, "vjs-bot.err"), "w") as err:
        process = bed.in_b([bed.PARLEY, "answer", "--server", bed.SERVER, "--insecure", "--login", "ivrj", "--interface", f"{bed.BED}b0",
                            "--no-ipv6", "--bot", os.path.join(bed.ROOT, "examples/bots/ivr.yaml"), "--calls", "1", "--record-dir", record_dir,
                            "--json", "--log-level", "debug", "--log-file", log],
                           env={**os.environ, "PARLEY_PASSWORD": PASSWORDS["ivrj"]}, stdout=out, stderr=err)
    wait_until(lambda: any(e.get("kind") == "login" and e.get("login") == "ivrj" for e in events(os.path.join(work, "vjs-switch.json"), "switch")), 10)
    page.page.evaluate("vjs.dial('ivrj')")
    check(f"{label}: the call is active after verto.answer", page.wait_state("active", 15), f"state {page.state()}")
    check(f"{label}: the page hears the bot's 440 Hz welcome", page.hears(440))
    page.page.evaluate("vjs.dtmf('1')")
    check(f"{label}: DTMF 1 by verto.info takes the bot to sales (660 Hz)", page.hears(660))
    check(f"{label}: the menu comes back (440 Hz)", page.hears(440))
    page.page.evaluate("vjs.dtmf('2')")
    check(f"{label}: DTMF 2 by verto.info takes the bot to the message box (550 Hz)", page.hears(550))
    check(f"{label}: the beep before recording (1000 Hz)", page.hears(1000, seconds=4, hold=0))
    page.page.evaluate("vjs.modify('hold')")
    held = page.wait_state("held", 5) and wait_until(lambda: bed.parley_state(output) == "remotely-held", 5)
    check(f"{label}: the page's verto.modify hold is answered holdState held and the bot is remotely held", held,
          f"page {page.state()}, bot {bed.parley_state(output)}")
    page.page.evaluate("vjs.modify('unhold')")
    back = page.wait_state("active", 5) and wait_until(lambda: bed.parley_state(output) == "active", 5)
    check(f"{label}: unhold brings both back to active", back, f"page {page.state()}, bot {bed.parley_state(output)}")
    time.sleep(2.5)  # the bot records the page's tone
    page.page.evaluate("vjs.hangup()")
    status = bed.exit_status(process, 15)
    check(f"{label}: the page's verto.bye ends the call; the bot exits 0", status == 0, f"exit {status}")
    ended = events(output, "ended")
    cause = ended[0]["reason"].get("cause") if ended else None
    check(f"{label}: the bot ends the call with NORMAL_CLEARING", cause == "NORMAL_CLEARING", f"cause {cause}")
    digits = [e.get("digit") for e in events(output, "dtmf")]
    check(f"{label}: the bot received the page's digits", digits == ["1", "2"], f"digits {digits}")
    recordings = [os.path.join(record_dir, name) for name in os.listdir(record_dir) if name.startswith("message-")]
    seconds = bed.wav_tone_seconds(recordings[0], bed.BROWSER_TONE, [440, 550, 660, 1000, bed.BROWSER_TONE]) if recordings else 0
    check(f"{label}: the bot's recording holds the page's {bed.BROWSER_TONE} Hz", seconds >= 1.0, f"{seconds:.1f} s")
    figure(f"{label}: bot recording holds {seconds:.1f} s of the page's {bed.BROWSER_TONE} Hz")
    heard = received_methods(log)
    check(f"{label}: the bot, a telnyx_rtc client, hears only telnyx_rtc.* names", heard and all(m.startswith("telnyx_rtc.") for m in heard),
          f"{sorted(set(heard))}")


def logged_methods(log):
    """The methods of the requests a Parley client sent and received, in order, from its debug
    log: ("sent" or "received", method)."""
    methods = []
    for line in open(log, errors="replace"):
        message = json.loads(line).get("message", "") if line.startswith("{") else ""
        direction, _, text = message.partition(" ")
        if direction in ("sent", "received") and text.startswith("{"):
            frame = json.loads(text)
            if "method" in frame:
                methods.append((direction, frame["method"]))
    return methods


def received_methods(log):
    return [method for direction, method in logged_methods(log) if direction == "received"]


def inner_silence_seconds(path, frame_ms=20, threshold=200):
    """The longest run of silent 20 ms frames with sound on both sides (a hold in mid-call)."""
    with wave.open(path, "rb") as recording:
        rate, channels = recording.getframerate(), recording.getnchannels()
        samples = array.array("h", recording.readframes(recording.getnframes()))
    step = rate * frame_ms // 1000 * channels
    loud = [max((abs(value) for value in samples[start:start + step]), default=0) > threshold
            for start in range(0, len(samples) - step + 1, step)]
    if True not in loud:
        return 0.0
    first, last = loud.index(True), len(loud) - 1 - loud[::-1].index(True)
    longest = run = 0
    for is_loud in loud[first:last + 1]:
        run = 0 if is_loud else run + 1
        longest = max(longest, run)
    return longest * frame_ms / 1000


def parley_calls(page, work):
    """`parley call --method-prefix verto` calls the page."""
    label = "parley call (verto) -> verto.js page"
    output, log, recording = (os.path.join(work, f"vjs-call.{ext}") for ext in ("json", "log", "wav"))
    with open(output, "w") as out, open(os.path.join(work, "vjs-call.err"), "w") as err:
        process = bed.in_b([bed.PARLEY, "call", LOGIN, "--server", bed.SERVER, "--insecure", "--login", "caller", "--method-prefix", "verto",
                            "--interface", f"{bed.BED}b0", "--no-ipv6", "--play", f"tone:{bed.PARLEY_TONE}", "--record", recording, "--json",
                            "--stats-interval", "0.5", "--log-level", "debug", "--log-file", log],
                           env={**os.environ, "PARLEY_PASSWORD": PASSWORDS["caller"]}, stdin=bed.subprocess.PIPE, stdout=out, stderr=err, text=True)

    def command(line):
        process.stdin.write(line + "\n")
        process.stdin.flush()

    check(f"{label}: the page rings on verto.invite", page.wait_state("ringing", 15), f"state {page.state()}")
    invite = page.value("vjs.current.params")
    check(f"{label}: the invite shows the caller as FreeSWITCH's does (display_direction outbound)",
          invite.get("display_direction") == "outbound" and invite.get("caller_id_number") == "caller",
          f"display_direction {invite.get('display_direction')!r}, caller {invite.get('caller_id_number')!r}")
    page.page.evaluate("vjs.answer()")
    check(f"{label}: the page's verto.answer makes the call active", page.wait_state("active", 10), f"state {page.state()}")
    check(f"{label}: Parley sees the call active and secured",
          wait_until(lambda: events(output, "secured") and bed.parley_state(output) == "active", 10))
    check(f"{label}: the page hears Parley's {bed.PARLEY_TONE} Hz", page.hears(bed.PARLEY_TONE))
    digits = "159#"
    command(f"dtmf {digits}")
    wait_until(lambda: page.value("vjs.heardDigits") == digits, 8)
    check(f"{label}: Parley's digits reach the page", page.value("vjs.heardDigits") == digits, f"heard {page.value('vjs.heardDigits')!r}")
    page.page.evaluate("vjs.modify('hold')")
    held = page.wait_state("held", 5) and wait_until(lambda: bed.parley_state(output) == "remotely-held", 5)
    check(f"{label}: the page holds; Parley reports remotely-held", held, f"page {page.state()}, Parley {bed.parley_state(output)}")
    # A hold by signalling only: verto.js leaves its media running, so the page's audio still
    # arrives, and Parley, held, must play none of it (docs/calls.md, "Hold").
    arriving = bed.parley_received_over(output, 1.5)
    check(f"{label}: held by signalling only, Parley still receives the page's audio", arriving >= 25, f"{arriving} packets in 1.5 s")
    page.page.evaluate("vjs.modify('unhold')")
    back = page.wait_state("active", 5) and wait_until(lambda: bed.parley_state(output) == "active", 5)
    check(f"{label}: the page unholds; both active, audio both ways again",
          back and page.hears(bed.PARLEY_TONE) and bed.parley_received_over(output, 1) >= 25,
          f"page {page.state()}, Parley {bed.parley_state(output)}")
    command("hangup")
    status = bed.exit_status(process, 10)
    check(f"{label}: Parley hangs up and exits 0", status == 0, f"exit {status}")
    dialog = page.value("vjs.current")
    check(f"{label}: the page gets verto.bye NORMAL_CLEARING", page.wait_state("ended", 5) and page.value("vjs.current.cause") == "NORMAL_CLEARING",
          f"state {dialog.get('state')}, cause {dialog.get('cause')}")
    seconds = bed.wav_tone_seconds(recording, bed.BROWSER_TONE, [bed.PARLEY_TONE, bed.BROWSER_TONE, 440])
    check(f"{label}: Parley's recording holds the page's {bed.BROWSER_TONE} Hz", seconds >= 1.0, f"{seconds:.1f} s")
    silent = inner_silence_seconds(recording)
    check(f"{label}: held, Parley played silence, not the page's {bed.BROWSER_TONE} Hz", silent >= 1.0, f"longest silence between sounds {silent:.2f} s")
    figure(f"{label}: Parley's recording holds {seconds:.1f} s of the page's {bed.BROWSER_TONE} Hz")
    # Before its first prefixed request the switch cannot tell it from a Telnyx SDK: clientReady
    # (and a ping, were it idle that long) come as telnyx_rtc (docs/verto-protocol.md §14).
    methods = logged_methods(log)
    invite = methods.index(("sent", "verto.invite")) if ("sent", "verto.invite") in methods else len(methods)
    before = [method for direction, method in methods[:invite] if direction == "received"]
    after = [method for direction, method in methods[invite:] if direction == "received"]
    check(f"{label}: Parley, with methodPrefix verto, hears verto.* from its verto.invite on",
          invite < len(methods) and "telnyx_rtc.clientReady" in before and set(before) <= {"telnyx_rtc.clientReady", "telnyx_rtc.ping"} and after and all(m.startswith("verto.") for m in after),
          f"before {before}, after {sorted(set(after))}")


def transfers(page, work):
    """Blind transfers with verto.js, which ignores a `verto.modify` transfer it is sent: one it
    would have to follow is refused and the call goes on; when it transfers Parley away, Parley
    calls the target and the page gets a bye BLIND_TRANSFER."""
    label = "transfer with the verto.js page"
    output, log = os.path.join(work, "vjs-transfer.json"), os.path.join(work, "vjs-transfer.log")
    target_output = os.path.join(work, "vjs-target.json")
    with open(target_output, "w") as out, open(os.path.join(work, "vjs-target.err"), "w") as err:
        target = bed.in_b([bed.PARLEY, "answer", "--server", bed.SERVER, "--insecure", "--login", "target", "--interface", f"{bed.BED}b0",
                           "--no-ipv6", "--play", "tone:660", "--calls", "1", "--json"],
                          env={**os.environ, "PARLEY_PASSWORD": PASSWORDS["target"]}, stdout=out, stderr=err)
    wait_until(lambda: any(e.get("kind") == "login" and e.get("login") == "target" for e in events(os.path.join(work, "vjs-switch.json"), "switch")), 10)
    with open(output, "w") as out, open(os.path.join(work, "vjs-transfer.err"), "w") as err:
        process = bed.in_b([bed.PARLEY, "call", LOGIN, "--server", bed.SERVER, "--insecure", "--login", "caller", "--interface", f"{bed.BED}b0",
                            "--no-ipv6", "--play", f"tone:{bed.PARLEY_TONE}", "--json", "--log-level", "debug", "--log-file", log],
                           env={**os.environ, "PARLEY_PASSWORD": PASSWORDS["caller"]}, stdin=bed.subprocess.PIPE, stdout=out, stderr=err, text=True)

    def command(line):
        process.stdin.write(line + "\n")
        process.stdin.flush()

    page.wait_state("ringing", 15)
    page.page.evaluate("vjs.answer()")
    check(f"{label}: the call is up", page.wait_state("active", 10) and page.hears(bed.PARLEY_TONE), f"state {page.state()}")
    command("transfer target")
    failed = wait_until(lambda: [e for e in events(output, "transfer") if e.get("transfer") == "failed"], 5)
    reason = failed[0].get("reason") if failed else None
    check(f"{label}: Parley's transfer of the page is refused, saying why", failed and "verto.js" in (reason or ""), f"reason {reason!r}")
    check(f"{label}: after the refusal the call goes on: the page still hears Parley, both active",
          page.state() == "active" and bed.parley_state(output) == "active" and page.hears(bed.PARLEY_TONE),
          f"page {page.state()}, Parley {bed.parley_state(output)}")
    page.page.evaluate("vjs.transfer('target')")
    ended = page.wait_state("ended", 5)
    check(f"{label}: the page transfers Parley away and gets a bye BLIND_TRANSFER, not a dead call",
          ended and page.value("vjs.current.cause") == "BLIND_TRANSFER", f"state {page.state()}, cause {page.value('vjs.current.cause')}")
    moved = wait_until(lambda: [e for e in events(output, "transfer") if e.get("transfer") == "transferred"], 5)
    answered = wait_until(lambda: any(e.get("state") == "active" for e in events(target_output, "state")), 10)
    check(f"{label}: Parley follows the transfer and the target answers", moved and answered,
          f"Parley {[e.get('transfer') for e in events(output, 'transfer')]}, target {[e.get('state') for e in events(target_output, 'state')]}")
    # Hung up only once audio has reached the target: a call ended before any media ends as a
    # media failure, which the target's exit status (rightly) counts.
    wait_until(lambda: any("mos" in e for e in events(target_output, "stats")), 10)
    command("hangup")
    status, target_status = bed.exit_status(process, 10), bed.exit_status(target, 10)
    check(f"{label}: Parley hangs up the transferred call; both exit", status is not None and target_status == 0, f"exit {status} and {target_status}")


def reload(page, work):
    """verto.js's call recovery: the page reloads mid-call, logs in again with the sessid it keeps
    in localStorage and answers the switch's verto.attach from a new peer connection; media
    comes back both ways behind the firewall."""
    label = "verto.js page reloads mid-call"
    output = os.path.join(work, "vjs-reload.json")
    with open(output, "w") as out, open(os.path.join(work, "vjs-reload.err"), "w") as err:
        process = bed.in_b([bed.PARLEY, "call", LOGIN, "--server", bed.SERVER, "--insecure", "--login", "caller", "--interface", f"{bed.BED}b0",
                            "--no-ipv6", "--play", f"tone:{bed.PARLEY_TONE}", "--json", "--stats-interval", "0.25"],
                           env={**os.environ, "PARLEY_PASSWORD": PASSWORDS["caller"]}, stdin=bed.subprocess.PIPE, stdout=out, stderr=err, text=True)
    page.wait_state("ringing", 15)
    page.page.evaluate("vjs.answer()")
    check(f"{label}: the call is up", page.wait_state("active", 10) and page.hears(bed.PARLEY_TONE), f"state {page.state()}")
    sessid = page.value("vjs.sessid")
    dropped_at = time.time()
    page.page.reload()
    started = f"vjs.start({json.dumps(bed.SERVER)}, {json.dumps(LOGIN + '@' + DOMAIN)}, {json.dumps(PASSWORDS[LOGIN])})"
    page.page.evaluate(f"Promise.race([{started}, new Promise((resolve) => setTimeout(() => resolve(false), 10000))])")
    answered = wait_until(lambda: page.value("vjs.attachAnsweredAt"), 15)
    check(f"{label}: the page logs in again with its sessid and answers verto.attach",
          answered and page.value("vjs.sessid") == sessid and page.state() == "active", f"state {page.state()}")
    parley_back = wait_until(lambda: bed.parley_resumed(output, answered / 1000, dropped_at), 5, step=0.1) if answered else None
    heard = page.hears(bed.PARLEY_TONE, seconds=5)
    page_back = page.value("Date.now() - vjs.attachAnsweredAt") / 1000 - 0.3 if heard and answered else None
    check(f"{label}: media back both ways within 2 s of the attach answer", parley_back is not None and parley_back <= 2 and page_back is not None and page_back <= 2,
          f"Parley received the page again {parley_back} s, the page heard Parley {page_back} s after it")
    if parley_back is not None and page_back is not None:
        figure(f"{label}: media back {parley_back:.2f} s (Parley, by its stats every 0.5 s) and {page_back:.2f} s (page) after its verto.attach")
    process.stdin.write("hangup\n")
    process.stdin.flush()
    status = bed.exit_status(process, 10)
    check(f"{label}: Parley hangs up and exits 0; the page gets verto.bye", status == 0 and page.wait_state("ended", 5), f"exit {status}, page {page.state()}")


def main():
    work = bed.WORK
    switch_log = start_switch(work)
    check("the switch listens", wait_until(lambda: events(switch_log, "listening"), 10))
    tone = os.path.join(work, "vjs-tone.wav")
    bed.tone_wav(tone, bed.BROWSER_TONE, seconds=30)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium"), args=[
            "--no-sandbox", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-audio-capture={tone}", "--autoplay-policy=no-user-gesture-required",
            "--ignore-certificate-errors", "--disable-features=WebRtcHideLocalIpsWithMdns,LocalNetworkAccessChecks",
        ])
        context = browser.new_context(ignore_https_errors=True)
        page = VertoPage(context)
        try:
            login(page)
            bot_call(page, work)
            parley_calls(page, work)
            transfers(page, work)
            methods = page.received_methods()
            pings = methods.count("verto.ping")
            check("the page hears only verto.* names", methods and all(m.startswith("verto.") for m in methods), f"{sorted(set(methods))}")
            answered = {frame.get("id") for frame in page.value("vjs.sent") if "result" in frame}
            unanswered = [frame for frame in page.value("vjs.received") if frame.get("method") and "callID" not in frame.get("params", {})]
            check("the page answered no request without a call id", unanswered and not any(frame.get("id") in answered for frame in unanswered),
                  f"{len(unanswered)} such requests")
            dropped = [e for e in events(switch_log, "switch") if e.get("kind") == "disconnected" and e.get("login") == LOGIN]
            check("the page, pinged every 2 s of silence and never answering, stays logged in", pings >= 3 and page.value("vjs.closed") is None
                  and not dropped, f"{pings} verto.ping, socket closed {page.value('vjs.closed')}")
            figure(f"verto.js page: {pings} verto.ping unanswered, {len(methods)} server requests, still logged in")
            reload(page, work)  # last: the reload drops the socket the checks above watched
            outputs = [os.path.join(work, name) for name in os.listdir(work) if name.startswith("vjs-") and name.endswith((".json", ".err", ".log"))]
            leaks = [os.path.basename(path) for path in outputs if any(secret in open(path, errors="replace").read() for secret in PASSWORDS.values())]
            check("no password in any output or log of the switch or the Parley clients", not leaks and len(outputs) >= 8, f"leaks in {leaks}")
        finally:
            with open(os.path.join(work, "page-vertojs.log"), "w") as handle:
                handle.write("\n".join(page.value("vjs.notes") + [json.dumps(frame) for frame in page.value("vjs.received")]))
            browser.close()


if __name__ == "__main__":
    bed.run(main, "verto.js")
