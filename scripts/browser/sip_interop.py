#!/usr/bin/env python3
"""Parley's SIP dialect against Chromium, through Kamailio's WebSocket listener (RFC 7118).

Run by scripts/test-sip-browser inside a network namespace that has only `lo`, where Kamailio
already listens on 127.0.0.1:5060 (UDP and TCP) and 8088 (TCP, WebSocket). The browser's SIP user agent is our
own page (sip_page.html), served by Playwright's router on http://127.0.0.1 (a secure context,
so WebCrypto's SHA-256 answers the digest challenges). Its audio is a WebAudio tone.
  1. The page (alice) registers over ws:// and calls `parley answer` (bob, UDP): audio both ways,
     the page hangs up with BYE and Parley ends NORMAL_CLEARING.
  2. `parley call alice` (bob, TCP): the page rings and answers, audio both ways, Parley hangs up
     with BYE and the page's call ends.
  3. `parley call alice` over ws:// (`--dialect sip`): answered, audio both ways, the page hangs up.
  4. `parley call alice --ring-timeout 3`: Parley's CANCEL ends the ringing page's call.
  5. The page calls a second page (carol) and cancels while it rings: 487 for alice, carol's call
     ends cancelled.

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


class Phone:
    """One page of the SIP phone, registered as one user of parley.test."""

    def __init__(self, context, user):
        self.user = user
        self.page = context.new_page()
        self.page.goto(PAGE)
        self.page.evaluate(f"sip.toneFrequency = {BROWSER_TONE}")
        script = f"sip.register('{WEBSOCKET}', '{user}', 'parley.test', '{user}-secret')"
        self.status = self.page.evaluate(f"Promise.race([{script}, new Promise((resolve) => setTimeout(() => resolve('timeout'), 10000))])")

    def value(self, expression):
        return self.page.evaluate(expression)

    def state(self):
        return self.value("sip.current && sip.current.state")

    def wait_state(self, wanted, seconds=10):
        return wait_until(lambda: self.state() == wanted, seconds)

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
        return after.get("totalSamplesReceived", 0) - before.get("totalSamplesReceived", 0), after.get("audioLevel", 0)


def parley(name, args, work):
    """A `parley` process for user bob, its --json in NAME.json, its recording NAME.wav."""
    output = os.path.join(work, f"{name}.json")
    with open(output, "w") as out, open(os.path.join(work, f"{name}.err"), "w") as err:
        process = subprocess.Popen([bed.PARLEY, *args, "--login", "bob@parley.test", "--play", f"tone:{PARLEY_TONE}",
                                    "--json", "--log-level", "debug", "--log-file", os.path.join(work, f"{name}.log")],
                                   env={**os.environ, "PARLEY_PASSWORD": "bob-secret"}, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    bed.processes.append(process)
    return process, output


def audio_both_ways(label, phone, recording_seconds):
    check(f"{label}: the page hears Parley's {PARLEY_TONE} Hz", phone.hears(PARLEY_TONE))
    samples, level = phone.inbound_over(1.0)
    check(f"{label}: getStats counts audio received (samples over 1 s, audio level)", samples >= 40000 and level > 0.01,
          f"{samples} samples, level {level:.3f}")
    figure(f"{label}: the page received {samples} samples in 1 s at audio level {level:.3f}")
    return samples


def recorded(label, recording):
    seconds = bed.wav_tone_seconds(recording, BROWSER_TONE, CANDIDATES) if os.path.exists(recording) else 0
    check(f"{label}: Parley's recording holds the page's {BROWSER_TONE} Hz", seconds >= 1.5, f"{seconds:.1f} s")
    figure(f"{label}: Parley recorded {seconds:.1f} s of the page's {BROWSER_TONE} Hz")


def cause_of(output):
    ended = events(output, "ended")
    return ended[0]["reason"].get("cause") if ended else None


def page_calls_parley(alice, work):
    label = "page -> parley answer (UDP)"
    recording = os.path.join(work, "answer.wav")
    process, output = parley("answer", ["answer", "--server", f"sip:{KAMAILIO}", "--calls", "1", "--record", recording], work)
    check(f"{label}: Parley registers", wait_until(lambda: events(output, "ready"), 10))
    alice.page.evaluate("() => { sip.call('bob@parley.test'); }")  # not awaited: it resolves when the call is up
    check(f"{label}: the call is active in the page", alice.wait_state("active", 15), f"state {alice.state()}")
    audio_both_ways(label, alice, recording)
    time.sleep(2)  # Parley records the page's tone
    alice.page.evaluate("sip.hangup()")
    status = bed.exit_status(process, 15)
    check(f"{label}: the page's BYE ends Parley's call; parley answer exits 0", status == 0, f"exit {status}")
    check(f"{label}: Parley ends NORMAL_CLEARING", cause_of(output) == "NORMAL_CLEARING", f"cause {cause_of(output)}")
    check(f"{label}: the page's BYE was answered 200", alice.value("sip.current.cause") == "hung up (200)", alice.value("sip.current.cause"))
    recorded(label, recording)


def parley_calls_page(alice, work, label, name, server, extra, page_hangs_up):
    recording = os.path.join(work, f"{name}.wav")
    duration = [] if page_hangs_up else ["--duration", "4"]
    process, output = parley(name, ["call", "alice@parley.test", "--server", server, *extra, "--record", recording, *duration], work)
    check(f"{label}: the page rings", alice.wait_state("ringing", 15), f"state {alice.state()}")
    alice.page.evaluate("sip.answer()")
    check(f"{label}: the page's 200 is acknowledged (active)", alice.wait_state("active", 10), f"state {alice.state()}")
    check(f"{label}: Parley's call is active", wait_until(lambda: bed.parley_state(output) == "active", 10), f"state {bed.parley_state(output)}")
    audio_both_ways(label, alice, recording)
    if page_hangs_up:
        time.sleep(2)
        alice.page.evaluate("sip.hangup()")
    status = bed.exit_status(process, 15)
    check(f"{label}: parley call exits 0", status == 0, f"exit {status}")
    check(f"{label}: Parley ends NORMAL_CLEARING", cause_of(output) == "NORMAL_CLEARING", f"cause {cause_of(output)}")
    wanted = "hung up (200)" if page_hangs_up else "remote BYE"
    check(f"{label}: the page's call ends ({wanted})", wait_until(lambda: alice.value("sip.current.cause") == wanted, 5),
          alice.value("sip.current.cause"))
    recorded(label, recording)


def parley_cancels(alice, work):
    label = "parley call -> page, not answered"
    process, output = parley("cancel", ["call", "alice@parley.test", "--server", f"sip:{KAMAILIO}", "--ring-timeout", "3"], work)
    check(f"{label}: the page rings", alice.wait_state("ringing", 15), f"state {alice.state()}")
    status = bed.exit_status(process, 15)
    check(f"{label}: Parley gives up after --ring-timeout (exit 8, NO_ANSWER)", status == 8 and cause_of(output) == "NO_ANSWER",
          f"exit {status}, cause {cause_of(output)}")
    check(f"{label}: Parley's CANCEL ends the page's call", wait_until(lambda: alice.value("sip.current.cause") == "cancelled", 5),
          alice.value("sip.current.cause"))


def page_cancels(alice, carol):
    label = "page alice -> page carol, cancelled"
    alice.page.evaluate("() => { sip.call('carol@parley.test'); }")
    check(f"{label}: carol's page rings", carol.wait_state("ringing", 15), f"state {carol.state()}")
    alice.page.evaluate("sip.hangup()")
    check(f"{label}: alice's INVITE ends 487 (cancelled)", wait_until(lambda: alice.value("sip.current.cause") == "cancelled", 5),
          alice.value("sip.current.cause"))
    check(f"{label}: carol's call ends cancelled", wait_until(lambda: carol.value("sip.current.cause") == "cancelled", 5),
          carol.value("sip.current.cause"))


def main():
    work = bed.WORK
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=os.environ.get("PARLEY_CHROMIUM", "/usr/bin/chromium"), args=[
            "--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--allow-loopback-in-peer-connection",
            "--disable-features=WebRtcHideLocalIpsWithMdns,LocalNetworkAccessChecks",
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
            page_calls_parley(alice, work)
            parley_calls_page(alice, work, "parley call (TCP) -> page", "call-tcp", f"sip:{KAMAILIO};transport=tcp", [], False)
            parley_calls_page(alice, work, "parley call (ws://) -> page", "call-ws", WEBSOCKET, ["--dialect", "sip"], True)
            parley_cancels(alice, work)
            carol = Phone(context, "carol")
            phones.append(carol)
            check("a second page registers", carol.status == 200, f"status {carol.status}")
            page_cancels(alice, carol)
        finally:
            for phone in phones:
                with open(os.path.join(work, f"page-{phone.user}.log"), "w") as handle:
                    handle.write("\n".join(phone.value("sip.log")))
            browser.close()


if __name__ == "__main__":
    bed.run(main, "sip-browser")
