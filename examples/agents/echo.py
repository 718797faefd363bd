#!/usr/bin/env python3
"""An echo agent for `parley answer --agent ws://127.0.0.1:9000` (docs/agents.md): it answers
every call and plays back what the caller says, 20 ms later. Needs `websockets` from PyPI.

Usage: examples/agents/echo.py [PORT]
"""
import asyncio, json, sys
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

async def call(ws):
    await ws.send(json.dumps({"event": "hello", "version": 1, "sampleRate": 16000}))
    try:
        async for message in ws:
            if isinstance(message, bytes):
                await ws.send(message)  # 20 ms of 16 kHz PCM: play it back
            elif json.loads(message)["event"] == "incoming":
                await ws.send(json.dumps({"event": "answer"}))
    except ConnectionClosed:
        pass  # the call ended while a frame was on its way back: nothing to echo to

async def main(port):
    async with serve(call, "127.0.0.1", port) as server:
        await server.serve_forever()

if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9000))
