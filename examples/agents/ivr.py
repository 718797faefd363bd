#!/usr/bin/env python3
"""A small IVR as an agent (docs/agents.md): answers, reads a menu with `say`, and answers each
key by `say`; 9 says goodbye and hangs up. A key pressed while it speaks cuts it short (`clear`).
Needs `websockets` from PyPI.

Usage: examples/agents/ivr.py [PORT]     then: parley answer ... --agent ws://127.0.0.1:PORT
"""
import asyncio
import json
import sys

from websockets.asyncio.server import serve

MENU = "Welcome. Press 1 for opening hours, 2 for our address, or 9 to end the call."
ANSWERS = {
    "1": "We are open from nine to five, Monday to Friday.",
    "2": "We are at 1 Example Street.",
}


async def say(ws, text, mark=None):
    await ws.send(json.dumps({"event": "say", "text": text}))
    if mark:
        await ws.send(json.dumps({"event": "mark", "name": mark}))


async def call(ws):
    await ws.send(json.dumps({"event": "hello", "version": 1, "sampleRate": 16000}))
    async for message in ws:
        if isinstance(message, bytes):
            continue  # the caller's audio: this IVR listens for keys only
        event = json.loads(message)
        if event["event"] == "incoming":
            await ws.send(json.dumps({"event": "answer"}))
        elif event["event"] == "start":
            await say(ws, MENU)
        elif event["event"] == "dtmf":
            await ws.send(json.dumps({"event": "clear"}))  # barge-in: stop what is playing
            if event["digit"] == "9":
                await say(ws, "Goodbye.", mark="goodbye")
            else:
                await say(ws, ANSWERS.get(event["digit"], "Sorry, that is not an option.") + " " + MENU)
        elif event["event"] == "mark" and event["name"] == "goodbye":
            await ws.send(json.dumps({"event": "hangup"}))
        elif event["event"] == "error":
            print("parley refused a message:", event["message"], file=sys.stderr)


async def main(port):
    async with serve(call, "127.0.0.1", port) as server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9000))
