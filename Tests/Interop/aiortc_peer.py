#!/usr/bin/env python3
"""aiortc (PyPI) as the far end of a Parley call, for the interop tests.

Reads one JSON line on stdin, {"sdp": OFFER} (a vanilla offer: candidates inside), answers with
DTLS-SRTP and prints JSON lines on stdout:

  {"event": "answer", "sdp": ...}
  {"event": "state", "state": "connected"}          aiortc's connectionState changes
  {"event": "dtmf", "digit": "5"}                   one per RFC 4733 event we receive
  {"event": "result", ...}                          last line: what it heard, then it exits

It plays a sine of --tone Hz and measures the dominant frequency of what it receives. aiortc does
not decode RFC 4733, so the RTP receiver is wrapped: packets of the offer's telephone-event
payload types are read here (event, end bit, timestamp) before aiortc would drop them.

--jitter-ms J delays each packet it sends by a random 0..2J ms (mean J): this kernel has no
sch_netem, so the jitter of the impaired-link test comes from here (loss from iptables).

--bad-fingerprint presents a certificate other than the one its SDP names (the a=fingerprint
line is replaced by the fingerprint of a certificate it never uses), for the mismatch test.

Bounded: it exits --duration seconds after the connection comes up, or --timeout seconds after
start, whichever is first. It uses no ICE servers: nothing leaves its network namespace.
"""

import argparse
import asyncio
import fractions
import json
import random
import math
import re
import sys
import time
import wave

import numpy
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.codecs import CODECS
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
from aiortc.rtcdtlstransport import RTCCertificate, RTCDtlsTransport
from aiortc.rtcrtpparameters import RTCRtpCodecParameters
from aiortc.rtcrtpreceiver import RTCRtpReceiver
import av

SAMPLE_RATE = 48000
FRAME_SAMPLES = 960  # 20 ms
DTMF_EVENTS = "0123456789*#ABCD"


def emit(event, **fields):
    fields["event"] = event
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


class ToneTrack(MediaStreamTrack):
    """A sine at a fixed frequency, paced in real time, 20 ms per frame."""

    kind = "audio"

    def __init__(self, frequency):
        super().__init__()
        self.frequency = frequency
        self.sent = 0
        self.start = None

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self.start is None:
            self.start = time.monotonic()
        due = self.start + self.sent / SAMPLE_RATE
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        t = (numpy.arange(FRAME_SAMPLES) + self.sent) / SAMPLE_RATE
        samples = (numpy.sin(2 * math.pi * self.frequency * t) * 8000).astype(numpy.int16)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = SAMPLE_RATE
        frame.pts = self.sent
        frame.time_base = fractions.Fraction(1, SAMPLE_RATE)
        self.sent += FRAME_SAMPLES
        return frame


class Recorder:
    """Keeps the first channel of every frame aiortc decodes."""

    def __init__(self):
        self.chunks = []
        self.rate = None

    async def consume(self, track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            channels = len(frame.layout.channels)
            data = frame.to_ndarray().reshape(-1, channels)[:, 0]
            self.rate = frame.sample_rate
            self.chunks.append(data.astype(numpy.int16))

    def samples(self):
        if not self.chunks:
            return numpy.zeros(0, dtype=numpy.int16)
        return numpy.concatenate(self.chunks)

    def dominant_frequency(self):
        samples = self.samples()
        if self.rate is None:
            return None
        loud = numpy.nonzero(numpy.abs(samples.astype(numpy.int32)) > 1000)[0]
        if len(loud) == 0:
            return None
        # Skip 100 ms of start-up, then one second (1 Hz bins, refined by interpolation).
        begin = loud[0] + self.rate // 10
        window = samples[begin:begin + self.rate].astype(numpy.float64)
        if len(window) < self.rate // 5:
            return None
        spectrum = numpy.abs(numpy.fft.rfft(window * numpy.hanning(len(window))))
        peak = int(numpy.argmax(spectrum[1:-1])) + 1
        left, centre, right = spectrum[peak - 1], spectrum[peak], spectrum[peak + 1]
        shift = 0.5 * (left - right) / (left - 2 * centre + right) if (left - 2 * centre + right) != 0 else 0
        return (peak + shift) * self.rate / len(window)

    def write(self, path):
        with wave.open(path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(self.rate or SAMPLE_RATE)
            out.writeframes(self.samples().tobytes())


class DTMFReader:
    """RFC 4733 events out of the RTP aiortc receives: one report per event (per timestamp)."""

    def __init__(self, payload_types):
        self.payload_types = payload_types
        self.seen = set()
        self.digits = ""

    def read(self, packet):
        if packet.payload_type not in self.payload_types:
            return False
        payload = packet.payload
        if len(payload) >= 4 and packet.timestamp not in self.seen:
            event = payload[0]
            ended = payload[1] & 0x80
            if event < len(DTMF_EVENTS) and (ended or packet.marker):
                self.seen.add(packet.timestamp)
                self.digits += DTMF_EVENTS[event]
                emit("dtmf", digit=DTMF_EVENTS[event])
        return True


def add_send_jitter(jitter_ms):
    """Each packet leaves after its own random delay, so they also arrive out of order."""
    original = RTCDtlsTransport._send_rtp
    pending = set()

    async def send_later(transport, data, delay):
        await asyncio.sleep(delay)
        try:
            await original(transport, data)
        except ConnectionError:
            pass

    async def send_rtp(transport, data):
        task = asyncio.ensure_future(send_later(transport, data, random.uniform(0, 2 * jitter_ms) / 1000))
        pending.add(task)
        task.add_done_callback(pending.discard)

    RTCDtlsTransport._send_rtp = send_rtp


def telephone_event_payload_types(offer):
    return {int(pt) for pt in re.findall(r"a=rtpmap:(\d+) telephone-event/", offer)}


def restrict_codecs(codec):
    """aiortc answers with the codecs in CODECS it shares with the offer; keep ours only."""
    audio = [c for c in CODECS["audio"] if codec == "any" or c.mimeType.lower() == "audio/" + codec]
    audio.append(RTCRtpCodecParameters(mimeType="audio/telephone-event", clockRate=48000, payloadType=110))
    audio.append(RTCRtpCodecParameters(mimeType="audio/telephone-event", clockRate=8000, payloadType=126))
    CODECS["audio"][:] = audio


def replace_fingerprint(sdp):
    stranger = RTCCertificate.generateCertificate()
    fingerprint = stranger.getFingerprints()[0]
    line = "a=fingerprint:%s %s" % (fingerprint.algorithm, fingerprint.value)
    replaced, count = re.subn(r"a=fingerprint:[^\r\n]+", line, sdp)
    assert count > 0, "the answer has no a=fingerprint"
    return replaced


async def read_offer(timeout):
    loop = asyncio.get_running_loop()
    line = await asyncio.wait_for(loop.run_in_executor(None, sys.stdin.readline), timeout)
    return json.loads(line)["sdp"]


async def run(args):
    offer = await read_offer(args.timeout)
    restrict_codecs(args.codec)
    dtmf = DTMFReader(telephone_event_payload_types(offer))
    original = RTCRtpReceiver._handle_rtp_packet

    async def handle_rtp_packet(receiver, packet, arrival_time_ms):
        if not dtmf.read(packet):
            await original(receiver, packet, arrival_time_ms)
            return
        # The events share the audio's SSRC and sequence: count them, or its receiver reports
        # would call them lost.
        streams = receiver._RTCRtpReceiver__remote_streams
        if packet.ssrc in streams:
            streams[packet.ssrc].add(packet)

    RTCRtpReceiver._handle_rtp_packet = handle_rtp_packet
    if args.jitter_ms > 0:
        add_send_jitter(args.jitter_ms)

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    recorder = Recorder()
    consumers = []
    connected = asyncio.Event()
    finished = asyncio.Event()
    states = []

    @pc.on("track")
    def on_track(track):
        consumers.append(asyncio.ensure_future(recorder.consume(track)))

    @pc.on("connectionstatechange")
    async def on_state():
        states.append(pc.connectionState)
        emit("state", state=pc.connectionState)
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState in ("failed", "closed"):
            finished.set()

    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    pc.addTrack(ToneTrack(args.tone))
    await pc.setLocalDescription(await pc.createAnswer())
    answer = pc.localDescription.sdp
    if args.bad_fingerprint:
        answer = replace_fingerprint(answer)
    emit("answer", sdp=answer)

    deadline = time.monotonic() + args.timeout
    try:
        await asyncio.wait_for(asyncio.wait([asyncio.ensure_future(connected.wait()), asyncio.ensure_future(finished.wait())],
                                            return_when=asyncio.FIRST_COMPLETED), max(0.1, deadline - time.monotonic()))
        if connected.is_set():
            await asyncio.wait_for(finished.wait(), min(args.duration, max(0.1, deadline - time.monotonic())))
    except asyncio.TimeoutError:
        pass

    frequency = recorder.dominant_frequency()
    samples = recorder.samples()
    if args.record:
        recorder.write(args.record)
    await pc.close()
    for consumer in consumers:
        consumer.cancel()
    emit("result", frequency=frequency, samples=int(len(samples)), sampleRate=recorder.rate,
         rms=float(numpy.sqrt(numpy.mean(samples.astype(numpy.float64) ** 2))) if len(samples) else 0.0,
         states=states, dtmf=dtmf.digits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tone", type=float, default=880)
    parser.add_argument("--codec", choices=["opus", "pcmu", "any"], default="any")
    parser.add_argument("--duration", type=float, default=5, help="seconds of media once connected")
    parser.add_argument("--timeout", type=float, default=30, help="bound on the whole run")
    parser.add_argument("--record", help="WAV file of what it heard (first channel)")
    parser.add_argument("--jitter-ms", type=float, default=0, help="mean random delay added to each packet sent")
    parser.add_argument("--bad-fingerprint", action="store_true")
    args = parser.parse_args()
    asyncio.run(asyncio.wait_for(run(args), args.timeout + 10))


if __name__ == "__main__":
    main()
