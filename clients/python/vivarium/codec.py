"""Frame data as docs/PROTOCOL.md ("Frame data") defines it: the tile codec, its zstd wrapping,
raw frames, and the frame hash. Written from the document alone (not from wire/codec.c), so that
it is a second reading of the contract: where the two disagree, one of them is wrong.

Every check the document names is made here; any breach raises CodecError, after which the
picture being patched may hold a part of the frame (a client drops it and waits for a keyframe).
"""

import struct

import xxhash
import zstandard

from .errors import ProtocolError

TILE = 16                 # CODEC_TILE: tiles are 16x16 pixels, the last row and column clipped
SIZE_MAX = 4096           # 1 <= w, h <= 4096

# Data header bytes and tile modes.
NONE, BITMAP, ALL = 0, 1, 2
SOLID, PACKED, RLE, RAW = 0, 1, 2, 3


class CodecError(ProtocolError):
    """Frame data the document calls malformed (CODEC_EDATA) or of a bad size (CODEC_ESIZE)."""


def _unpack_table(bits):
    """For b bits per pixel: each byte value's 8/b local indexes, most significant bits first."""
    per = 8 // bits
    mask = (1 << bits) - 1
    return [bytes((v >> (8 - bits * (j + 1))) & mask for j in range(per)) for v in range(256)]


_UNPACK = {b: _unpack_table(b) for b in (1, 2, 4)}


class _Reader:
    """The data bytes with a cursor; every read is bounds-checked (missing bytes are an error)."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        if self.pos >= len(self.data):
            raise CodecError("tile data ends early")
        self.pos += 1
        return self.data[self.pos - 1]

    def take(self, n):
        if self.pos + n > len(self.data):
            raise CodecError("tile data ends early")
        self.pos += n
        return self.data[self.pos - n:self.pos]

    def varint(self):
        """An unsigned LEB128 of at most 5 bytes (padded forms accepted)."""
        value = 0
        for i in range(5):
            c = self.byte()
            value |= (c & 0x7F) << (7 * i)
            if not c & 0x80:
                return value
        raise CodecError("RLE length: a 5th LEB128 byte with its high bit set")


def check_size(w, h):
    if not (1 <= w <= SIZE_MAX and 1 <= h <= SIZE_MAX):
        raise CodecError(f"frame size {w}x{h} outside 1..{SIZE_MAX}")


def tile_count(w, h):
    return -(-w // TILE) * -(-h // TILE)


def zstd_limit(w, h):
    """The largest decompressed "tile" data a w x h frame can have: header, bitmap, a mode byte
    per tile and every pixel raw."""
    n = tile_count(w, h)
    return 1 + -(-n // 8) + n + w * h


def _tile_pixels(r, tw, th):
    """The tw*th pixels of one tile payload, in tile order."""
    mode = r.byte()
    count = tw * th
    if mode == SOLID:
        return bytes((r.byte(),)) * count
    if mode == PACKED:
        n = r.byte()
        if not 2 <= n <= 16:
            raise CodecError(f"PACKED tile with {n} colours (2..16)")
        palette = r.take(n)
        bits = 1 if n == 2 else 2 if n <= 4 else 4
        unpack = _UNPACK[bits]
        rowbytes = (tw * bits + 7) // 8
        local = b"".join(b"".join(unpack[c] for c in r.take(rowbytes))[:tw] for _ in range(th))
        if max(local) >= n:
            raise CodecError(f"PACKED tile: local index {max(local)} >= {n}")
        return local.translate(bytes(palette) + bytes(256 - n))
    if mode == RLE:
        out = bytearray()
        while len(out) < count:
            c = r.byte()
            run = r.varint()
            if run == 0 or len(out) + run > count:
                raise CodecError("RLE run of length 0 or past the end of the tile")
            out += bytes((c,)) * run
        return bytes(out)
    if mode == RAW:
        return bytes(r.take(count))
    raise CodecError(f"tile mode {mode} (0..3)")


def decode_tiles(data, w, h, key, pixels):
    """Apply "tile" data to pixels (a bytearray of w*h palette indexes, row-major): every pixel on
    a keyframe, the present tiles on a delta."""
    check_size(w, h)
    tilesx = -(-w // TILE)
    ntiles = tile_count(w, h)
    r = _Reader(data)
    header = r.byte()
    if header == NONE:
        if key:
            raise CodecError("header NONE in a keyframe")
        present = ()
    elif header == BITMAP:
        if key:
            raise CodecError("header BITMAP in a keyframe")
        bitmap = r.take(-(-ntiles // 8))
        if ntiles % 8 and bitmap[-1] >> (ntiles % 8):
            raise CodecError("bitmap: an unused high bit is set")
        present = [i for i in range(ntiles) if bitmap[i >> 3] >> (i & 7) & 1]
    elif header == ALL:
        present = range(ntiles)
    else:
        raise CodecError(f"data header {header} (0..2)")
    for i in present:
        x0, y0 = TILE * (i % tilesx), TILE * (i // tilesx)
        tw, th = min(TILE, w - x0), min(TILE, h - y0)
        tile = _tile_pixels(r, tw, th)
        for row in range(th):
            at = (y0 + row) * w + x0
            pixels[at:at + tw] = tile[row * tw:(row + 1) * tw]
    if r.pos != len(data):
        raise CodecError(f"{len(data) - r.pos} bytes after the last tile")


def unzstd(data, w, h):
    """The "tile" data inside a tile.zst message's zstd frame (its content size in the header,
    at most zstd_limit)."""
    limit = zstd_limit(w, h)
    try:
        size = zstandard.frame_content_size(data)
    except zstandard.ZstdError as e:
        raise CodecError(f"tile.zst: not a zstd frame ({e})") from None
    if size < 0:
        raise CodecError("tile.zst: the zstd frame does not say its content size")
    if size > limit:
        raise CodecError(f"tile.zst: content of {size} bytes, over the {limit} a {w}x{h} frame can need")
    try:
        out = zstandard.ZstdDecompressor().decompress(data, max_output_size=limit)
    except zstandard.ZstdError as e:
        raise CodecError(f"tile.zst: {e}") from None
    if len(out) != size:
        raise CodecError("tile.zst: content size differs from the header's")
    return out


def frame_hash(w, h, palette, pixels):
    """fh: XXH3-64 (seed 0) of w, h and the palette entry count as u16 little-endian, the 3n
    palette bytes, then the w*h pixel bytes row-major."""
    state = xxhash.xxh3_64(seed=0)
    state.update(struct.pack("<HHH", w, h, len(palette) // 3))
    state.update(palette)
    state.update(pixels)
    return state.intdigest()
