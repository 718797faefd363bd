#!/usr/bin/env python3
"""Parley's SIP dialect against Chromium, through Kamailio's WebSocket listener (RFC 7118).

Run by scripts/test-sip-browser inside a network namespace of its own, where Kamailio already
listens on 127.0.0.1:5060 (UDP and TCP) and 8088 (TCP, WebSocket). The browser's SIP user agent
is our own page (sip_page.html), served by Playwright's router on http://127.0.0.1 (a secure
context, so WebCrypto's SHA-256 answers the digest challenges). Its microphone is Chromium's fake
device playing a 1250 Hz WAV.
The page (alice) registers over ws://; Parley logs in as bob. Each call has audio both ways,
each side reaching the other at a host candidate from the SDP, and a BYE from one side ending both:
  1. the page calls `parley answer` (UDP), sends RFC 4733 digits, and hangs up;
  2. `parley call alice` (TCP): the page rings and answers; Parley hangs up;
  3. `parley call alice` over ws:// (`--dialect sip`); the page hangs up;
  4. the page calls `parley answer` over ws://; Parley hangs up;
  5. `parley call alice --ring-timeout 3`: Parley's CANCEL ends the ringing page's call;
  6. `parley call alice`, and the page declines it (603): Parley's call ends CALL_REJECTED;
  7. the page calls a second page (carol) and cancels while it rings: 487 for alice, carol's
     call ends cancelled;
  8. the page calls `parley answer`, holds (re-INVITE sendonly) and resumes (sendrecv): Parley's
     call goes remotely-held and back, and the page stops hearing Parley's tone while held; then
     the page reloads mid-call, as a softphone's tab does: its dialog is gone, so Parley ends the
     orphaned call saying why (no RTP or RTCP for its --rtp-timeout of 3 s), and a call from the
     reloaded page works.

Usage: sip_interop.py PARLEY ID WORKDIR
"""
import json
import os
import subprocess
import time

import softphone_interop as bed
from playwright.sync_api import sync_playwright

check, figure, wait_until, events = bed.check, bed.figure, bed.wait_until, bed.events
KAMAILIO = "127.0.0.1:5060"
WEBSOCKET = "ws://127.0.0.1:8088"  # Kamailio's second TCP listener: browsers refuse port 5060
PAGE = "http://127.0.0.1:8000/sip.html"  # fulfilled by Playwright, never served
PAGE_HTML = open(os.path.join(bed.HERE, "sip_page.html")).read()
BROWSER_TONE, PARLEY_TONE = bed.BROWSER_TONE, bed.PARLEY_TONE
CANDIDATES = [440, PARLEY_TONE, BROWSER_TONE]


class Phone(bed.ScriptedPage):
    """One page of the SIP phone, registered as one user of parley.test."""

    def __init__(self, context, user):
        super().__init__(context.new_page(), "sip")
        self.user = user
        self.page.goto(PAGE)
        self.register()

    def register(self):
        script = f"sip.register('{WEBSOCKET}', '{self.user}', 'parley.test', '{self.user}-secret')"
        self.status = self.page.evaluate(f"Promise.race([{script}, new Promise((resolve) => setTimeout(() => resolve('timeout'), 10000))])")

    def hears(self, frequency, seconds=8, hold=0.5):
        """True once the loudest frequency the page hears has stayed within 2% of `frequency`
        for `hold` seconds."""
        deadline, since = time.monotonic() + seconds, None
        while time.monotonic() < deadline:
            heard = self.value("sip.heardFrequency()")
            if abs(heard - frequency) <= frequency * 0.02:
                since = since or time.monotonic()
                if time.monotonic() - since >= hold:
                    return True
            else:
                since = None
            time.sleep(0.05)
        return False

    def inbound_over(self, seconds):
        """getStats' inbound audio: samples received over `seconds` and the audio level then."""
        before = self.value("sip.inbound()")
        time.sleep(seconds)
        after = self.value("sip.inbound()")
        samples = (after.get("totalSamplesReceived") or 0) - (before.get("totalSamplesReceived") or 0)
        return samples, after.get("audioLevel") or 0


def parley(name, args, work):
    """A `parley` process for user bob, its --json in NAME.json, its SDPs in NAME-sdp/."""
    output = os.path.join(work, f"{name}.json")
    with open(output, "w") as out, open(os.path.join(work, f"{name}.err"), "w") as err:
        process = subprocess.Popen([bed.PARLEY, *args, "--login", "bob@parley.test", "--play", f"tone:{PARLEY_TONE}",
                                    "--json", "--save-sdp", os.path.join(work, f"{name}-sdp"),
                                    "--log-level", "debug", "--log-file", os.path.join(work, f"{name}.log")],
                                   env={**os.environ, "PARLEY_PASSWORD": "bob-secret"}, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    bed.processes.append(process)
    return process, output


def audio_both_ways(label, phone, output):
    """What the page hears, and that each side reached the other at a candidate from its SDP
    (a host candidate on the selected pair; one learnt from the checks alone is peer-reflexive)."""
    check(f"{label}: the page hears Parley's {PARLEY_TONE} Hz", phone.hears(PARLEY_TONE))
    remote_types = [pair.get("remoteType") for pair in bed.pairs(output)]
    check(f"{label}: Parley's selected pair is the page's host candidate from its SDP", remote_types[-1:] == ["host"], f"{remote_types}")
    page_remote = phone.value("sip.inbound()").get("remoteCandidateType")
    check(f"{label}: the page's selected pair is Parley's host candidate from its SDP", page_remote == "host", f"{page_remote}")
    samples, level = phone.inbound_over(1.0)
    check(f"{label}: getStats counts audio received (samples over 1 s, audio level)", samples >= 40000 and level > 0.01,
          f"{samples} samples, level {level:.3f}")
    figure(f"{label}: the page received {samples} samples in 1 s at audio level {level:.3f}")


def recorded(label, recording):
    seconds = bed.wav_tone_seconds(recording, BROWSER_TONE, CANDIDATES) if os.path.exists(recording) else 0
    check(f"{label}: Parley's recording holds the page's {BROWSER_TONE} Hz", seconds >= 1.5, f"{seconds:.1f} s")
    figure(f"{label}: Parley recorded {seconds:.1f} s of the page's {BROWSER_TONE} Hz")


def cause_of(output):
    ended = events(output, "ended")
    return ended[0]["reason"].get("cause") if ended else None


def call(alice, work, label, name, args, page_calls, page_hangs_up):
    """One call between the page and `parley ARGS`, placed by the page (`parley answer`) or by
    Parley (`parley call`); audio both ways; the page hangs up, or Parley's --duration does."""
    recording = os.path.join(work, f"{name}.wav")
    duration = [] if page_hangs_up else ["--duration", "4"]
    process, output = parley(name, [*args, "--record", recording, *duration], work)
    if page_calls:
        check(f"{label}: Parley registers", wait_until(lambda: events(output, "ready"), 10))
        alice.page.evaluate("() => { sip.call('bob@parley.test'); }")  # not awaited: it resolves when the call is up
    else:
        check(f"{label}: the page rings", alice.wait_state("ringing", 15), f"state {alice.state()}")
        alice.page.evaluate("sip.answer()")
    check(f"{label}: the call is active in the page (ACK sent or received)", alice.wait_state("active", 15), f"state {alice.state()}")
    check(f"{label}: Parley's call is active", wait_until(lambda: bed.parley_state(output) == "active", 10), f"state {bed.parley_state(output)}")
    audio_both_ways(label, alice, output)
    if page_calls:
        alice.page.evaluate("sip.dtmf('159#')")
        digits = wait_until(lambda: "".join(e.get("digit", "") for e in events(output, "dtmf")) == "159#", 5)
        check(f"{label}: the page's RTCDTMFSender digits reach Parley as RFC 4733 events", digits,
              "".join(e.get("digit", "") for e in events(output, "dtmf")))
    if page_hangs_up:
        time.sleep(2)  # Parley records the page's tone
        alice.page.evaluate("sip.hangup()")
    status = bed.exit_status(process, 15)
    check(f"{label}: parley exits 0", status == 0, f"exit {status}")
    check(f"{label}: Parley ends NORMAL_CLEARING", cause_of(output) == "NORMAL_CLEARING", f"cause {cause_of(output)}")
    wanted = "hung up (200)" if page_hangs_up else "remote BYE"
    check(f"{label}: the page's call ends: {wanted}", wait_until(lambda: alice.value("sip.current.cause") == wanted, 5),
          alice.value("sip.current.cause"))
    recorded(label, recording)
    saved_sdps(label, os.path.join(work, f"{name}-sdp"), page_calls)


def saved_sdps(label, directory, page_calls):
    """--save-sdp wrote the call's offer and answer, each named by the SIP message that carried it."""
    try:
        sidecars = [json.load(open(os.path.join(directory, name))) for name in sorted(os.listdir(directory)) if name.endswith(".json")]
    except FileNotFoundError:
        sidecars = []
    found = [(sidecar["direction"], sidecar["kind"], sidecar["signalling"]) for sidecar in sidecars]
    wanted = ([("received", "offer", "INVITE, or the 200 to our INVITE without SDP"),
               ("sent", "answer", "200 to the INVITE, or the ACK to a 200 that offered")] if page_calls else
              [("sent", "offer", "INVITE, or the 200 to an INVITE without SDP"),
               ("received", "answer", "200 to the INVITE, or 183 (early media), or the ACK to our offer in a 200")])
    check(f"{label}: --save-sdp keeps the offer and the answer, carried by the INVITE and its 200", found == wanted, f"{found}")


def parley_cancels(alice, work):
    label = "parley call -> page, not answered"
    process, output = parley("cancel", ["call", "alice@parley.test", "--server", f"sip:{KAMAILIO}", "--ring-timeout", "3"], work)
    check(f"{label}: the page rings", alice.wait_state("ringing", 15), f"state {alice.state()}")
    status = bed.exit_status(process, 15)
    check(f"{label}: Parley gives up after --ring-timeout (exit 8, NO_ANSWER)", status == 8 and cause_of(output) == "NO_ANSWER",
          f"exit {status}, cause {cause_of(output)}")
    check(f"{label}: Parley's CANCEL ends the page's call", wait_until(lambda: alice.value("sip.current.cause") == "cancelled", 5),
          alice.value("sip.current.cause"))


def page_declines(alice, work):
    label = "parley call -> page, declined"
    process, output = parley("declined", ["call", "alice@parley.test", "--server", f"sip:{KAMAILIO}"], work)
    check(f"{label}: the page rings", alice.wait_state("ringing", 15), f"state {alice.state()}")
    alice.page.evaluate("sip.hangup()")  # 603 Decline
    status = bed.exit_status(process, 15)
    ended = events(output, "ended")
    reason = ended[0]["reason"] if ended else {}
    check(f"{label}: the page's 603 ends Parley's call CALL_REJECTED (exit 1)",
          status == 1 and reason.get("cause") == "CALL_REJECTED" and reason.get("sipCode") == 603, f"exit {status}, reason {reason}")


def page_cancels(alice, carol):
    label = "page alice -> page carol, cancelled"
    alice.page.evaluate("() => { sip.call('carol@parley.test'); }")
    check(f"{label}: carol's page rings", carol.wait_state("ringing", 15), f"state {carol.state()}")
    alice.page.evaluate("sip.hangup()")
    check(f"{label}: alice's INVITE ends 487 (cancelled)", wait_until(lambda: alice.value("sip.current.cause") == "cancelled", 5),
          alice.value("sip.current.cause"))
    check(f"{label}: carol's call ends cancelled", wait_until(lambda: carol.value("sip.current.cause") == "cancelled", 5),
          carol.value("sip.current.cause"))


def page_holds_then_reloads(alice, work):
    label = "page -> parley answer, hold, resume, reload"
    # A short RTP timeout: the reloaded tab sends no BYE, and without it only ICE consent (30 s)
    # would notice it went away.
    process, output = parley("reload", ["answer", "--calls", "2", "--rtp-timeout", "3", "--server", f"sip:{KAMAILIO}"], work)
    check(f"{label}: Parley registers", wait_until(lambda: events(output, "ready"), 10))
    alice.page.evaluate("() => { sip.call('bob@parley.test'); }")
    check(f"{label}: the call is active", alice.wait_state("active", 15) and wait_until(lambda: bed.parley_state(output) == "active", 10),
          f"page {alice.state()}, Parley {bed.parley_state(output)}")
    check(f"{label}: the page hears Parley's {PARLEY_TONE} Hz", alice.hears(PARLEY_TONE))
    status = alice.page.evaluate("sip.hold(true)")
    check(f"{label}: the page's hold re-INVITE (sendonly) is answered 200", status == 200, f"status {status}")
    check(f"{label}: Parley's call is remotely-held", wait_until(lambda: bed.parley_state(output) == "remotely-held", 5),
          f"state {bed.parley_state(output)}")
    check(f"{label}: the page hears nothing from Parley while it holds", wait_until(lambda: alice.value("sip.heardFrequency()") == 0, 5),
          f"{alice.value('sip.heardFrequency()')} Hz")
    status = alice.page.evaluate("sip.hold(false)")
    check(f"{label}: the page's resume re-INVITE (sendrecv) is answered 200", status == 200, f"status {status}")
    check(f"{label}: Parley's call is active again", wait_until(lambda: bed.parley_state(output) == "active", 5), f"state {bed.parley_state(output)}")
    check(f"{label}: the page hears Parley's {PARLEY_TONE} Hz again", alice.hears(PARLEY_TONE))

    reloaded = time.monotonic()
    alice.page.reload()
    alice.register()
    check(f"{label}: the reloaded page registers again", alice.status == 200, f"status {alice.status}")
    ended = wait_until(lambda: events(output, "ended"), 15)
    elapsed = time.monotonic() - reloaded
    reason = ended[0]["reason"] if ended else {}
    errors = [event.get("message", "") for event in events(output, "error")]
    check(f"{label}: Parley ends the orphaned call within 10 s of the reload (--rtp-timeout 3), saying no RTP came",
          bool(ended) and elapsed < 10 and any("no RTP or RTCP" in error for error in errors), f"after {elapsed:.1f} s: {reason}, {errors}")
    figure(f"{label}: Parley ended the call {elapsed:.1f} s after the page reloaded: {reason}; {errors[:1]}")
    alice.page.evaluate("() => { sip.call('bob@parley.test'); }")
    check(f"{label}: a call from the reloaded page is active", alice.wait_state("active", 15), f"state {alice.state()}")
    check(f"{label}: the reloaded page hears Parley's {PARLEY_TONE} Hz", alice.hears(PARLEY_TONE))
    alice.page.evaluate("sip.hangup()")
    status = bed.exit_status(process, 15)
    check(f"{label}: parley answer exits after its two calls", status is not None, f"exit {status}")


def main():
    work = bed.WORK
    with sync_playwright() as playwright:
        tone = os.path.join(work, "browser-tone.wav")
        bed.tone_wav(tone, BROWSER_TONE, seconds=30)
        browser = playwright.chromium.launch(executable_path=os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium"), args=[
            "--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={tone}", "--disable-features=LocalNetworkAccessChecks",
        ])
        figure(f"browser: Chromium {browser.version}")
        # A page Playwright fulfils has no address of its own, so Chromium's local network access
        # checks would block its WebSocket to Kamailio: they are off.
        context = browser.new_context()
        context.route(PAGE, lambda route: route.fulfill(status=200, content_type="text/html", body=PAGE_HTML))
        phones = []
        try:
            alice = Phone(context, "alice")
            phones.append(alice)
            check("the page registers over ws:// with SHA-256 digest", alice.status == 200, f"status {alice.status}")
            answer, dial = ["answer", "--calls", "1", "--server"], ["call", "alice@parley.test", "--server"]
            udp, tcp, ws = [f"sip:{KAMAILIO}"], [f"sip:{KAMAILIO};transport=tcp"], [WEBSOCKET, "--dialect", "sip"]
            call(alice, work, "page -> parley answer (UDP), page hangs up", "answer-udp", answer + udp, True, True)
            call(alice, work, "parley call (TCP) -> page, Parley hangs up", "call-tcp", dial + tcp, False, False)
            call(alice, work, "parley call (ws://) -> page, page hangs up", "call-ws", dial + ws, False, True)
            call(alice, work, "page -> parley answer (ws://), Parley hangs up", "answer-ws", answer + ws, True, False)
            parley_cancels(alice, work)
            page_declines(alice, work)
            carol = Phone(context, "carol")
            phones.append(carol)
            check("a second page registers", carol.status == 200, f"status {carol.status}")
            page_cancels(alice, carol)
            page_holds_then_reloads(alice, work)
            outputs = [os.path.join(work, name) for name in os.listdir(work) if name.endswith((".json", ".err", ".log")) and not name.startswith(("page-", "kamailio"))]
            leaks = [os.path.basename(path) for path in outputs if "bob-secret" in open(path, errors="replace").read()]
            check("no password in any output or log of Parley", not leaks and len(outputs) >= 18, f"{len(outputs)} files, leaks in {leaks}")
        finally:
            for phone in phones:
                with open(os.path.join(work, f"page-{phone.user}.log"), "w") as handle:
                    handle.write("\n".join(phone.value("sip.log")))
                with open(os.path.join(work, f"page-{phone.user}.sdp"), "w") as handle:  # what the page sent, call by call
                    handle.write("\n".join(phone.value("sip.calls.map((c) => c.pc ? c.pc.localDescription.sdp : '')")))
            browser.close()


if __name__ == "__main__":
    bed.run(main, "sip-browser")
