"""The exceptions of the vivarium package: one base class, and one class per kind of failure, so
that a caller can tell the server's refusals (ServerError, with its code) from a broken stream
(ProtocolError) or a closed connection."""


class VivariumError(Exception):
    """Base class of every error this package raises (but NumpyUnavailable, an ImportError)."""


class ProtocolError(VivariumError):
    """What the server sent breaks docs/PROTOCOL.md: bad framing, bad msgpack, bad frame data.
    A frame stream that raised it has lost its picture; subscribe again for a keyframe."""


class FrameHashError(ProtocolError):
    """A decoded frame does not hash to the `fh` the server sent with it."""

    def __init__(self, world, tick, expected, actual):
        super().__init__(f"frame of world {world} at tick {tick}: decoded to hash {actual:016x}, "
                         f"the server's fh is {expected:016x}")
        self.world, self.tick, self.expected, self.actual = world, tick, expected, actual


class ServerError(VivariumError):
    """The server refused a message: `code` is the protocol's error code (`bad_input`,
    `forbidden`, ...), `message` its sentence, `seq` the input's seq when it was about one."""

    def __init__(self, code, message, seq=None):
        super().__init__(f"{code}: {message}" if seq is None else f"{code} (seq {seq}): {message}")
        self.code, self.message, self.seq = code, message, seq


class ConnectionClosed(VivariumError):
    """The connection ended (the server closed it, or a WebSocket close frame came)."""


class WorldClosed(VivariumError):
    """The world whose frames were being read was closed on the server."""

    def __init__(self, world):
        super().__init__(f"world {world} was closed")
        self.world = world


class NumpyUnavailable(ImportError):
    """Frame.to_numpy() was called where numpy cannot be imported."""
