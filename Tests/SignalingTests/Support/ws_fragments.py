#!/usr/bin/env python3
"""Sends one JSON-RPC login to a WebSocket server split into fragments (RFC 6455 §5.4),
then prints the text of the first message the server sends back.
Usage: ws_fragments.py PORT LOGIN PASSWORD FRAGMENTS"""
import base64, json, os, socket, struct, sys

port, login, password, fragments = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
sock = socket.create_connection(("127.0.0.1", port), timeout=5)
key = base64.b64encode(os.urandom(16)).decode()
sock.sendall((f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
response = b""
while b"\r\n\r\n" not in response:
    chunk = sock.recv(4096)
    if not chunk:
        sys.exit("server closed during the handshake")
    response += chunk
if b" 101 " not in response.split(b"\r\n")[0]:
    sys.exit("handshake refused: " + response.split(b"\r\n")[0].decode())

def frame(opcode, payload, fin):
    mask = os.urandom(4)
    header = bytes([(0x80 if fin else 0) | opcode])
    length = len(payload)
    if length < 126:
        header += bytes([0x80 | length])
    elif length < 65536:
        header += bytes([0x80 | 126]) + struct.pack("!H", length)
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", length)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

message = json.dumps({"jsonrpc": "2.0", "id": "fragmented-1", "method": "login",
                      "params": {"login": login, "passwd": password, "sessid": "fragment-test"}}).encode()
size = -(-len(message) // fragments)
parts = [message[i:i + size] for i in range(0, len(message), size)]
for index, part in enumerate(parts):
    sock.sendall(frame(1 if index == 0 else 0, part, index == len(parts) - 1))

def read_exact(count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            sys.exit("server closed before answering")
        data += chunk
    return data

first, second = read_exact(2)
length = second & 0x7F
if length == 126:
    length = struct.unpack("!H", read_exact(2))[0]
elif length == 127:
    length = struct.unpack("!Q", read_exact(8))[0]
print(read_exact(length).decode())
