"""A connection to vivd: hello/welcome, frame streams, inputs and their acks.

One thread reads the connection, the caller's: each call reads messages until its answer comes,
and files the others where their own call will find them (frames in their subscription's queue,
acks and input errors by seq, other errors until a call that can report them)."""

import collections
import itertools

import msgpack

from .errors import ConnectionClosed, ProtocolError, ServerError, WorldClosed
from .frame import FrameDecoder
from .transport import open_transport


class _Sub:
    """One subscription: its decoder and the frames (or errors) read but not yet taken. Until the
    pong of the ping sent just before its `sub` arrives, frames of the world belong to an older
    subscription and are dropped (the server answers in order)."""

    def __init__(self, world, barrier):
        self.world, self.barrier = world, barrier
        self.decoder = FrameDecoder()
        self.queue = collections.deque()


class Client:
    """Use vivarium.connect() to make one. Attributes from the welcome: role, client_id,
    server."""

    def __init__(self, transport, timeout):
        self._t = transport
        self.timeout = timeout
        self._subs = {}
        self._answers = {}                 # seq -> ack or error map
        self._errors = collections.deque()  # errors with no seq, for the next call that can tell
        self._replies = collections.deque()  # other messages, for request()
        self._seq = itertools.count(1)
        self._pings = itertools.count(1)
        self._pongs = set()
        self._welcome = None
        self.role = self.client_id = self.server = None

    # ---- the wire ---------------------------------------------------------------------------
    def send(self, msg):
        """Send one message (a dict) as it is. Low-level: prefer the methods below."""
        self._t.send(msgpack.packb(msg, use_bin_type=True))

    def recv(self):
        """Read one message and return it as a dict, unfiled. Low-level: bypasses the
        subscriptions (use it only on a connection that none of the methods below uses)."""
        body = self._t.recv()
        try:
            msg = msgpack.unpackb(body, raw=False, strict_map_key=True)
        except (ValueError, msgpack.UnpackException) as e:
            raise ProtocolError(f"a message that is not one msgpack value: {e}") from None
        if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
            raise ProtocolError(f"a message that is not a map with a string `t`: {msg!r:.80}")
        return msg

    def _pump(self):
        """Read one message and file it."""
        try:
            msg = self.recv()
        except ConnectionClosed:
            if self._errors:        # a disconnect for cause says why first
                raise self._errors.popleft() from None
            raise
        kind = msg["t"]
        if kind == "frame":
            self._on_frame(msg)
        elif kind == "pong" and isinstance(msg.get("n"), int):
            self._pongs.add(msg["n"])
            for sub in self._subs.values():
                if sub.barrier == msg["n"]:
                    sub.barrier = None
        elif kind == "ack" or kind == "error" and msg.get("seq") is not None:
            self._answers[msg.get("seq")] = msg
        elif kind == "error":
            self._errors.append(ServerError(msg.get("code"), msg.get("msg"), None))
        elif kind == "closed" and msg.get("world") in self._subs:
            sub = self._subs.pop(msg["world"])
            sub.queue.append(WorldClosed(msg["world"]))
            self._replies.append(msg)
        else:
            self._replies.append(msg)

    def _on_frame(self, msg):
        sub = self._subs.get(msg.get("world"))
        if sub is None or sub.barrier is not None:
            return                  # a frame of an older subscription, or of none
        try:
            sub.queue.append(sub.decoder.feed(msg))
        except ProtocolError as e:
            sub.queue.append(e)

    def _raise_errors(self):
        if self._errors:
            raise self._errors.popleft()

    # ---- session ----------------------------------------------------------------------------
    def hello(self, token, name):
        msg = {"t": "hello", "v": 1, "name": name}
        if token:
            msg["token"] = token
        self.send(msg)
        welcome = self.request(None, "welcome")
        self._welcome = welcome
        self.role, self.client_id, self.server = welcome.get("role"), welcome.get("client"), welcome.get("server")

    def request(self, msg, reply):
        """Send msg (unless None) and return the next message of type `reply`; an error with no
        seq that comes first is raised as ServerError."""
        if msg is not None:
            self.send(msg)
        while True:
            for i, m in enumerate(self._replies):
                if m["t"] == reply:
                    del self._replies[i]
                    return m
            self._raise_errors()
            self._pump()

    def worlds(self):
        """The worlds the server hosted when this connection was greeted (the welcome's world
        entries: id, kind, seed, params, tick, hz, w, h, views, inputs, ranges, names, ...)."""
        return [dict(w) for w in self._welcome.get("worlds", [])]

    def world(self, world_id):
        for w in self._welcome.get("worlds", []):
            if w.get("id") == world_id:
                return w
        raise KeyError(f"no world {world_id} in the welcome")

    def ping(self):
        """A round trip: every message the server sent before the answer has been read."""
        n = next(self._pings)
        self.send({"t": "ping", "n": n})
        while n not in self._pongs:
            self._raise_errors()
            self._pump()
        self._pongs.discard(n)

    # ---- frames -----------------------------------------------------------------------------
    def subscribe(self, world, rect=None, every=None, div=None, enc=None, view=None):
        """Subscribe (replacing any subscription of the world): its frames are decoded as they
        arrive, from the new keyframe on. Read them with next_frame() or frames()."""
        msg = {"t": "sub", "world": world}
        for name, value in (("rect", list(rect) if rect is not None else None), ("every", every),
                            ("div", div), ("enc", enc), ("view", view)):
            if value is not None:
                msg[name] = value
        barrier = next(self._pings)
        self.send({"t": "ping", "n": barrier})
        self.send(msg)
        self._subs[world] = _Sub(world, barrier)

    def unsubscribe(self, world):
        if self._subs.pop(world, None) is not None:
            self.send({"t": "unsub", "world": world})

    def next_frame(self, world):
        """The next frame of the world's subscription, waiting for it."""
        sub = self._subs.get(world)
        if sub is None:
            raise ValueError(f"world {world} is not subscribed")
        while not sub.queue:
            self._raise_errors()
            if self._subs.get(world) is not sub:
                raise ConnectionClosed(f"the subscription to world {world} ended")
            self._pump()
        item = sub.queue.popleft()
        if isinstance(item, Exception):
            raise item
        return item

    def frames(self, world, n=None, rect=None, every=None, div=None, enc=None, view=None):
        """Yield n frames of the world (n=None: until stopped), each decoded and its hash checked
        against the frame's fh (FrameHashError otherwise). rect=(x, y, w, h) in world pixels
        watches a part (widened by the server to its 64-pixel grid; each frame's .rect says
        which). every, div, enc ("tile.zst", "tile", "raw") and view are the sub's options.
        Subscribes first and unsubscribes at the end."""
        self.subscribe(world, rect=rect, every=every, div=div, enc=enc, view=view)
        sub = self._subs[world]
        try:
            count = 0
            while n is None or count < n:
                try:
                    frame = self.next_frame(world)
                except ServerError:
                    # The sub was refused, or the server dropped it (frame_too_large): there is
                    # nothing to unsub, and an unsub would only earn a not_subscribed.
                    if self._subs.get(world) is sub:
                        del self._subs[world]
                    raise
                yield frame
                count += 1
        finally:
            if self._subs.get(world) is sub:
                try:
                    self.unsubscribe(world)
                except OSError:
                    pass

    # ---- inputs -----------------------------------------------------------------------------
    def _resolve_args(self, world, kind, args):
        """Arguments given as names ("sand") become their integers through the world's `names`
        map of the argument's name (names.element.sand for paint's `element`)."""
        if all(isinstance(a, int) for a in args):
            return list(args)
        entry = self.world(world)
        argnames = entry.get("inputs", {}).get(kind, [])
        out = []
        for i, a in enumerate(args):
            if isinstance(a, str):
                table = entry.get("names", {}).get(argnames[i] if i < len(argnames) else None)
                if not table or a not in table:
                    raise ValueError(f"{kind}: argument {i + 1} {a!r} is not a name the world knows")
                a = table[a]
            out.append(a)
        return out

    def input(self, world, kind, *args):
        """Send an input; return the tick it was applied at (its `ack`: the frame of tick + 1
        shows it), or raise ServerError with the server's code (bad_input, forbidden, ...)."""
        seq = next(self._seq) & 0xFFFFFFFF
        self.send({"t": "input", "world": world, "seq": seq, "kind": kind,
                   "args": self._resolve_args(world, kind, args)})
        while seq not in self._answers:
            self._pump()
        answer = self._answers.pop(seq)
        if answer["t"] == "ack":
            return answer.get("tick")
        raise ServerError(answer.get("code"), answer.get("msg"), seq)

    # ---- the end ----------------------------------------------------------------------------
    def close(self):
        self._t.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(address, token=None, name="python", timeout=10.0):
    """Connect to vivd at address (`host:port` for TCP, `ws://host:port/ws` for WebSocket), say
    hello with the token (None: a viewer) and return the greeted Client. A token the server
    refuses raises ServerError (`bad_token`); every read waits at most `timeout` seconds."""
    transport = open_transport(address, timeout)
    client = Client(transport, timeout)
    try:
        client.hello(token, name)
    except BaseException:
        transport.close()
        raise
    return client
