"""Decoded frames, and the picture one subscription keeps between them (keyframes and deltas)."""

from . import codec
from .errors import FrameHashError, NumpyUnavailable, ProtocolError

ENCODINGS = ("tile.zst", "tile", "raw")


class Frame:
    """One frame of a subscription, whole: `pixels` are width*height palette indexes row-major
    (pixel (x, y) is pixels[y * width + x]); `palette` is 3n bytes, R, G, B per entry. `hash`
    is the XXH3-64 this package computed, equal to the server's `fh` (else FrameHashError was
    raised instead). `rect` is (x, y, w, h) in world pixels for a rect subscription, else None.
    `sh` is the world's state hash; `key` says the message was a keyframe; `enc` its encoding."""

    __slots__ = ("world", "tick", "key", "width", "height", "rect", "pv", "palette", "pixels",
                 "enc", "hash", "sh")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields[name])

    def __repr__(self):
        rect = f" rect={self.rect}" if self.rect else ""
        return (f"<Frame world={self.world} tick={self.tick} {self.width}x{self.height}{rect} "
                f"{'key ' if self.key else ''}{self.enc} hash={self.hash:016x}>")

    def colors(self):
        """The palette as a list of (r, g, b) tuples."""
        p = self.palette
        return [tuple(p[i:i + 3]) for i in range(0, len(p), 3)]

    def pixel(self, x, y):
        return self.pixels[y * self.width + x]

    def to_numpy(self, rgb=False):
        """The indexes as a (height, width) uint8 array, or with rgb=True the colours as a
        (height, width, 3) uint8 array. Needs numpy (NumpyUnavailable, an ImportError, without)."""
        try:
            import numpy
        except ImportError as e:
            raise NumpyUnavailable("Frame.to_numpy() needs numpy, which cannot be imported here "
                                   "(apt-get install python3-numpy, or pip install numpy)") from e
        index = numpy.frombuffer(self.pixels, dtype=numpy.uint8).reshape(self.height, self.width)
        if not rgb:
            return index
        table = numpy.zeros((256, 3), dtype=numpy.uint8)
        colors = numpy.frombuffer(self.palette, dtype=numpy.uint8).reshape(-1, 3)
        table[:len(colors)] = colors
        return table[index]


def _field(msg, name, kinds):
    value = msg.get(name)
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise ProtocolError(f"frame: field {name!r} missing or of the wrong type ({value!r:.40})")
    return value


class FrameDecoder:
    """The state of one subscription's stream: its picture and palette, which each message
    updates. feed(msg) takes a decoded `frame` map and returns the Frame, its hash checked.
    After an error the picture is gone: only a keyframe is accepted next."""

    def __init__(self):
        self.pixels = None        # bytearray of the last frame, None before a keyframe
        self.size = None          # (w, h, rect) of the last frame
        self.palette = None
        self.pv = None

    def feed(self, msg):
        try:
            return self._feed(msg)
        except ProtocolError:
            self.pixels = None
            raise

    def _feed(self, msg):
        w, h = _field(msg, "w", (int,)), _field(msg, "h", (int,))
        key = _field(msg, "key", (bool,))
        enc = _field(msg, "enc", (str,))
        data = _field(msg, "data", (bytes,))
        pv, fh = _field(msg, "pv", (int,)), _field(msg, "fh", (int,))
        rect = msg.get("rect")
        rect = tuple(rect) if isinstance(rect, list) and len(rect) == 4 else None
        codec.check_size(w, h)
        if enc not in ENCODINGS:
            raise ProtocolError(f"frame: unknown encoding {enc!r}")
        if not key and (self.pixels is None or self.size != (w, h, rect)):
            raise ProtocolError("frame: a delta with no keyframe of its size before it")
        self._take_palette(msg, key or enc == "raw", pv)
        if enc == "raw":
            if not key or len(data) != w * h:
                raise ProtocolError(f"frame: raw data of {len(data)} bytes for {w}x{h}, or not a keyframe")
            pixels = bytearray(data)
        else:
            pixels = bytearray(w * h) if key else self.pixels
            codec.decode_tiles(codec.unzstd(data, w, h) if enc == "tile.zst" else data, w, h, key, pixels)
        self.pixels, self.size = pixels, (w, h, rect)
        picture = bytes(pixels)
        digest = codec.frame_hash(w, h, self.palette, picture)
        tick, world = _field(msg, "tick", (int,)), msg.get("world")
        if digest != fh:
            raise FrameHashError(world, tick, fh, digest)
        return Frame(world=world, tick=tick, key=key, width=w, height=h, rect=rect, pv=pv,
                     palette=self.palette, pixels=picture, enc=enc, hash=digest, sh=msg.get("sh"))

    def _take_palette(self, msg, required, pv):
        """`pal` comes on every keyframe and whenever the palette version changes."""
        pal = msg.get("pal")
        if pal is None:
            if required or pv != self.pv:
                raise ProtocolError("frame: no `pal` on a keyframe or a new palette version")
            return
        if not isinstance(pal, bytes) or len(pal) % 3 or len(pal) > 3 * 256:
            raise ProtocolError(f"frame: `pal` of {len(pal) if isinstance(pal, bytes) else pal!r} bytes")
        self.palette, self.pv = bytes(pal), pv
