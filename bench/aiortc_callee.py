#!/usr/bin/env python3
"""aiortc (PyPI) as a `make bench` callee: the same job as `parley answer --bot bench/bots/loop.yaml`.

Logs in to a Verto switch (`parley switch`) over a WebSocket (a minimal RFC 6455 client below:
the machine has no Python WebSocket package), answers every call with aiortc, plays the bench
prompt (600 Hz for 1 s, 200 ms of silence, in a loop), decodes what it hears and writes it to a
WAV per call (--record-dir), and hangs up when the caller does.

One JSON line per event on stdout, in the shape `parley answer --json` uses where they overlap:
  {"event":"clock","calls":N,"sessionTicks":..,"lateSessionTicks":..,"frameLateSessionTicks":..,"framesExpected":..,
   "framesReceived":..,"rssKiB":..,"cpuSeconds":..}   every --clock-interval seconds
  {"event":"first-audio","call":ID}                    the first audible frame aiortc decodes
  {"event":"ended","call":ID}
`sessionTicks`/`lateSessionTicks`/`frameLateSessionTicks`: frames sent and those handed to
aiortc more than 10 ms and more than a whole frame (20 ms) after they were due. `framesExpected`/`framesReceived`: 20 ms of received audio per 20 ms since each
call's first frame, against the frames aiortc actually decoded (what it does not get, a player
would have to conceal).

Bounded: exits after --timeout seconds, or on SIGTERM/SIGINT. No ICE servers: nothing leaves
the network namespace.
"""

import argparse
import asyncio
import base64
import fractions
import json
import os
import resource
import signal
import struct
import sys
import time
import uuid
import wave

import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.sdp import candidate_from_sdp
import av

RATE = 48000
FRAME = 960
LATE = 0.010
FRAME_LATE = 0.020


def emit(event, **fields):
    line = {"event": event, "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".%03dZ" % (int(time.time() * 1000) % 1000)}
    line.update(fields)
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


class WebSocket:
    """Just enough of an RFC 6455 client for JSON-RPC text frames over ws://."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, url):
        assert url.startswith("ws://"), "ws:// only"
        hostport, _, path = url[5:].partition("/")
        host, _, port = hostport.partition(":")
        reader, writer = await asyncio.open_connection(host, int(port or 80))
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)).encode())
        status = await reader.readline()
        if b" 101 " not in status:
            raise RuntimeError("WebSocket upgrade refused: %r" % status)
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        return cls(reader, writer)

    async def send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.writer.write(header + mask + masked)
        await self.writer.drain()

    async def receive(self):
        """The next text message (fragments joined); None when the socket closes."""
        message = b""
        while True:
            head = await self.reader.readexactly(2)
            opcode, length = head[0] & 0x0F, head[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", await self.reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
            if head[1] & 0x80:
                mask = await self.reader.readexactly(4)
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(await self.reader.readexactly(length)))
            else:
                data = await self.reader.readexactly(length)
            if opcode == 0x8:
                return None
            if opcode == 0x9:  # ping: pong with the same data
                self.writer.write(struct.pack("!BB", 0x8A, 0x80 | len(data)) + b"\0\0\0\0" + data)
                continue
            if opcode in (0x1, 0x0):
                message += data
                if head[0] & 0x80:
                    return message.decode()


class Totals:
    def __init__(self):
        self.sent = 0
        self.late = 0
        self.frame_late = 0
        self.expected = 0.0
        self.received = 0


class PromptTrack(MediaStreamTrack):
    """600 Hz for 1 s, then 200 ms of silence, repeated; paced in real time, 20 ms per frame."""

    kind = "audio"

    def __init__(self, totals, frames):
        super().__init__()
        self.totals, self.frames = totals, frames
        self.sent = 0
        self.start = None

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.monotonic()
        due = self.start + self.sent / RATE
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        behind = time.monotonic() - due
        if behind > LATE:
            self.totals.late += 1
        if behind > FRAME_LATE:
            self.totals.frame_late += 1
        self.totals.sent += 1
        samples = self.frames[(self.sent // FRAME) % len(self.frames)]
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = RATE
        frame.pts = self.sent
        frame.time_base = fractions.Fraction(1, RATE)
        self.sent += FRAME
        return frame


def prompt_frames():
    t = numpy.arange(RATE * 6 // 5) / RATE
    samples = numpy.where(t < 1.0, numpy.sin(2 * numpy.pi * 600 * t) * 8000, 0).astype(numpy.int16)
    return [samples[i:i + FRAME] for i in range(0, len(samples), FRAME)]


class Callee:
    def __init__(self, args):
        self.args = args
        self.socket = None
        self.calls = {}
        self.totals = Totals()
        self.frames = prompt_frames()
        self.next_id = 1
        self.stopping = asyncio.Event()

    async def request(self, method, params):
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": "telnyx_rtc." + method, "params": params}
        self.next_id += 1
        await self.socket.send(json.dumps(message))

    async def reply(self, message, result):
        await self.socket.send(json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": result}))

    async def run(self):
        self.socket = await WebSocket.connect(self.args.server)
        await self.request("login", {"login": self.args.login, "passwd": os.environ.get("PARLEY_PASSWORD", ""),
                                     "sessid": str(uuid.uuid4())})
        reporter = asyncio.ensure_future(self.report())
        reader = asyncio.ensure_future(self.read())
        await self.stopping.wait()
        reporter.cancel()
        reader.cancel()
        for call_id in list(self.calls):
            await self.hangup(call_id, tell=True)
        self.clock()

    async def read(self):
        while True:
            text = await self.socket.receive()
            if text is None:
                self.stopping.set()
                return
            message = json.loads(text)
            method = message.get("method", "")
            params = message.get("params", {})
            name = method.split(".")[-1]
            if "result" in message and message["result"].get("sessid") and "message" in message["result"]:
                emit("logged-in")
            if not method:
                continue
            if name == "invite":
                await self.reply(message, {"method": method})
                asyncio.ensure_future(self.answer(params))
            elif name == "candidate":
                await self.reply(message, {"method": method})
                await self.add_candidate(params)
            elif name == "bye":
                await self.reply(message, {"method": method})
                await self.hangup(params.get("callID"), tell=False)
            elif name == "ping":
                await self.reply(message, {"method": method})
            else:
                await self.reply(message, {"method": method})

    async def answer(self, params):
        call_id = params["callID"]
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        call = {"pc": pc, "consumer": None, "first": None, "received": 0, "pcm": [], "candidates": []}
        self.calls[call_id] = call

        @pc.on("track")
        def on_track(track):
            call["consumer"] = asyncio.ensure_future(self.consume(call_id, call, track))

        await pc.setRemoteDescription(RTCSessionDescription(sdp=params["sdp"], type="offer"))
        for line in call["candidates"]:
            await self.add_candidate({"callID": call_id, "candidate": line})
        pc.addTrack(PromptTrack(self.totals, self.frames))
        await pc.setLocalDescription(await pc.createAnswer())
        if call_id in self.calls:
            await self.request("answer", {"dialogParams": {"callID": call_id}, "sdp": pc.localDescription.sdp})

    async def add_candidate(self, params):
        call = self.calls.get(params.get("callID"))
        line = params.get("candidate", "")
        if call is None or not line:
            return
        pc = call["pc"]
        if pc.remoteDescription is None:
            call["candidates"].append(line)
            return
        candidate = candidate_from_sdp(line.split(":", 1)[1] if line.startswith("candidate:") else line)
        candidate.sdpMid = params.get("sdpMid") or "0"
        candidate.sdpMLineIndex = params.get("sdpMLineIndex") or 0
        await pc.addIceCandidate(candidate)

    async def consume(self, call_id, call, track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            data = frame.to_ndarray().reshape(-1)
            if call["first"] is None:
                if numpy.abs(data).max(initial=0) == 0:
                    continue
                call["first"] = time.monotonic()
                emit("first-audio", call=call_id)
            call["received"] += frame.samples // FRAME if frame.samples >= FRAME else 1
            if self.args.record_dir:
                call["pcm"].append(data.astype(numpy.int16).tobytes())

    async def hangup(self, call_id, tell):
        call = self.calls.pop(call_id, None)
        if call is None:
            return
        self.count(call)
        if tell:
            await self.request("bye", {"dialogParams": {"callID": call_id}, "cause": "NORMAL_CLEARING"})
        await call["pc"].close()
        if call["consumer"]:
            call["consumer"].cancel()
        if self.args.record_dir and call["pcm"]:
            with wave.open(os.path.join(self.args.record_dir, call_id + ".wav"), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(RATE)
                out.writeframes(b"".join(call["pcm"]))
        emit("ended", call=call_id)

    def count(self, call):
        """Moves a call's received frames so far into the totals."""
        if call["first"] is not None:
            now = time.monotonic()
            self.totals.expected += (now - call["first"]) * 50
            self.totals.received += call["received"]
            call["first"], call["received"] = now, 0

    def clock(self):
        for call in self.calls.values():
            self.count(call)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        rss = None
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
        emit("clock", calls=len(self.calls), sessionTicks=self.totals.sent, lateSessionTicks=self.totals.late,
             frameLateSessionTicks=self.totals.frame_late,
             framesExpected=int(self.totals.expected), framesReceived=self.totals.received, rssKiB=rss,
             cpuSeconds=usage.ru_utime + usage.ru_stime)

    async def report(self):
        while True:
            await asyncio.sleep(self.args.clock_interval)
            self.clock()


async def main_async(args):
    callee = Callee(args)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, callee.stopping.set)
    try:
        await asyncio.wait_for(callee.run(), args.timeout)
    except asyncio.TimeoutError:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True, help="ws://HOST:PORT of the Verto switch")
    parser.add_argument("--login", required=True, help="login (password in PARLEY_PASSWORD)")
    parser.add_argument("--record-dir", help="write what each call heard to DIR/<call id>.wav")
    parser.add_argument("--clock-interval", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=3600, help="bound on the whole run")
    args = parser.parse_args()
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
