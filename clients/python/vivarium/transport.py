"""The two transports of docs/PROTOCOL.md, each carrying whole msgpack bodies: TCP with a 4-byte
big-endian length before each, and WebSocket (RFC 6455) with one binary message per body."""

import base64
import hashlib
import os
import socket
import struct
from urllib.parse import urlsplit

from .errors import ConnectionClosed, ProtocolError

CLIENT_MAX = 65536               # the largest body a client may send
SERVER_MAX = 1024 * 1024 + 65536  # the largest body the server sends
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
HEAD_MAX = 16384                 # the most of an HTTP answer's head read before giving up


class _Socket:
    """A connected socket read exactly n bytes at a time, through a buffer."""

    def __init__(self, host, port, timeout):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()

    def _fill(self):
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionClosed("the server closed the connection")
        self.buf += chunk

    def exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def until(self, mark, limit):
        while mark not in self.buf:
            if len(self.buf) > limit:
                raise ProtocolError(f"no {mark!r} within {limit} bytes")
            self._fill()
        end = self.buf.index(mark) + len(mark)
        out = bytes(self.buf[:end])
        del self.buf[:end]
        return out

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def _check_out(body):
    if not 0 < len(body) <= CLIENT_MAX:
        raise ValueError(f"a message of {len(body)} bytes (a client sends 1..{CLIENT_MAX})")


class TcpTransport:
    def __init__(self, host, port, timeout):
        self.io = _Socket(host, port, timeout)

    def send(self, body):
        _check_out(body)
        self.io.sock.sendall(struct.pack(">I", len(body)) + body)

    def recv(self):
        (n,) = struct.unpack(">I", self.io.exact(4))
        if not 0 < n <= SERVER_MAX:
            raise ProtocolError(f"a message length of {n} (1..{SERVER_MAX})")
        return self.io.exact(n)

    def close(self):
        try:
            self.io.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.io.close()


def _mask(payload, key):
    """RFC 6455 masking: payload XOR the 4-byte key repeated."""
    n = len(payload)
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")


class WsTransport:
    """A WebSocket client: the opening handshake (offering the `vivarium` subprotocol), masked
    binary frames out, and whole messages in (continuations joined, pings answered)."""

    def __init__(self, host, port, path, timeout):
        self.io = _Socket(host, port, timeout)
        self.closed = False
        key = base64.b64encode(os.urandom(16))
        hostport = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.io.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key.decode()}\r\n"
            f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: vivarium\r\n\r\n".encode())
        head = self.io.until(b"\r\n\r\n", HEAD_MAX).decode("latin-1").split("\r\n")
        if not head[0].startswith("HTTP/1.1 101"):
            raise ProtocolError(f"WebSocket handshake refused: {head[0]}")
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1(key + WS_GUID).digest()).decode()
        if fields.get("sec-websocket-accept") != accept:
            raise ProtocolError("WebSocket handshake: wrong Sec-WebSocket-Accept")

    def _frame(self, opcode, payload):
        n = len(payload)
        head = bytes((0x80 | opcode,))
        if n < 126:
            head += bytes((0x80 | n,))
        elif n < 65536:
            head += bytes((0x80 | 126,)) + struct.pack(">H", n)
        else:
            head += bytes((0x80 | 127,)) + struct.pack(">Q", n)
        key = os.urandom(4)
        self.io.sock.sendall(head + key + _mask(payload, key))

    def send(self, body):
        _check_out(body)
        self._frame(0x2, body)

    def _read_frame(self):
        b0, b1 = self.io.exact(2)
        if b0 & 0x70:
            raise ProtocolError("WebSocket frame with a reserved bit set")
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack(">H", self.io.exact(2))
        elif n == 127:
            (n,) = struct.unpack(">Q", self.io.exact(8))
        if n > SERVER_MAX:
            raise ProtocolError(f"WebSocket frame of {n} bytes (at most {SERVER_MAX})")
        key = self.io.exact(4) if b1 & 0x80 else None
        payload = self.io.exact(n)
        return b0 & 0x80, b0 & 0x0F, _mask(payload, key) if key else payload

    def recv(self):
        message = None
        while True:
            fin, opcode, payload = self._read_frame()
            if opcode == 0x8:
                self._on_close(payload)
            elif opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode == 0xA:
                pass
            elif opcode == 0x2 and message is None or opcode == 0x0 and message is not None:
                message = (message or b"") + payload
                if len(message) > SERVER_MAX:
                    raise ProtocolError(f"WebSocket message over {SERVER_MAX} bytes")
                if fin:
                    return message
            else:
                raise ProtocolError(f"WebSocket opcode {opcode} where a binary message was due")

    def _on_close(self, payload):
        status = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
        reason = payload[2:].decode("utf-8", "replace")
        if not self.closed:
            self.closed = True
            try:
                self._frame(0x8, payload[:2])
            except OSError:
                pass
        raise ConnectionClosed(f"WebSocket closed by the server (status {status}: {reason})")

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self._frame(0x8, struct.pack(">H", 1000))
            except OSError:
                pass
        self.io.close()


def open_transport(address, timeout):
    """`host:port` (or `tcp://host:port`) for TCP; `ws://host:port/path` for WebSocket (the
    path defaults to /ws)."""
    if address.startswith("ws://"):
        url = urlsplit(address)
        if not url.hostname or not url.port:
            raise ValueError(f"{address!r}: want ws://HOST:PORT/ws")
        return WsTransport(url.hostname, url.port, url.path or "/ws", timeout)
    if address.startswith("wss://"):
        raise ValueError("wss:// is not served by vivd (ws:// only)")
    if address.startswith("tcp://"):
        address = address[len("tcp://"):]
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"{address!r}: want HOST:PORT or ws://HOST:PORT/ws")
    return TcpTransport(host.strip("[]"), int(port), timeout)
