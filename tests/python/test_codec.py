"""The tile codec and the frame decoder against docs/PROTOCOL.md's own examples and each error it
names, with no server: these bytes are the document's, not vivd's."""

import struct

import pytest
import zstandard

import vivarium
from vivarium import codec


def decode(hexdata, w, h, key=True, before=None):
    pixels = bytearray(before if before is not None else bytes(w * h))
    codec.decode_tiles(bytes.fromhex(hexdata), w, h, key, pixels)
    return bytes(pixels)


def test_document_examples():
    assert decode("02 00 07", 16, 16) == bytes([7]) * 256
    assert decode("02 01 02 05 06 20 80", 3, 2) == bytes([5, 5, 6, 6, 5, 5])
    assert decode("02 02 01 80 01 02 80 01", 16, 16) == bytes([1]) * 128 + bytes([2]) * 128
    before = bytes(range(256)) * 2                     # 32x16: the delta keeps the left tile
    after = decode("01 02 00 09", 32, 16, key=False, before=before)
    for y in range(16):
        assert after[y * 32:y * 32 + 16] == before[y * 32:y * 32 + 16]
        assert after[y * 32 + 16:y * 32 + 32] == bytes([9]) * 16


def test_modes_and_edge_tiles():
    # 17x17: four tiles, the right column 1 wide, the bottom row 1 tall; RAW, RLE crossing rows,
    # PACKED with 4 bits a pixel and a padded LEB128 (0x81 0x00 = 1).
    raw = bytes(range(256))
    data = (b"\x02" + b"\x03" + raw                                  # tile 0: RAW 16x16
            + b"\x02" + bytes([4, 15, 5, 0x81, 0x00])                # tile 1: 1x16, runs of 15 and 1
            + b"\x01\x05" + bytes([1, 2, 3, 4, 5])                    # tile 2: 16x1, PACKED n=5, b=4:
            + bytes([0x01, 0x23, 0x40, 0x12, 0x30, 0, 0, 0])         # locals 0 1 2 3 4 0 1 2 3 0 ...
            + b"\x00\x63")                                           # tile 3: 1x1 SOLID 99
    pixels = bytearray(17 * 17)
    codec.decode_tiles(data, 17, 17, True, pixels)
    assert pixels[0:16] == raw[0:16] and pixels[15 * 17:15 * 17 + 16] == raw[240:256]
    assert [pixels[y * 17 + 16] for y in range(16)] == [4] * 15 + [5]
    assert list(pixels[16 * 17:16 * 17 + 16]) == [1, 2, 3, 4, 5, 1, 2, 3, 4, 1] + [1] * 6
    assert pixels[16 * 17 + 16] == 99


BAD = [
    ("00", 16, 16, True, "NONE in a keyframe"),
    ("01 01 00 07", 16, 16, True, "BITMAP in a keyframe"),
    ("03", 16, 16, True, "header 3"),
    ("02", 16, 16, True, "no tile"),
    ("02 00 07 00", 16, 16, True, "a byte after the last tile"),
    ("02 04 07", 16, 16, True, "tile mode 4"),
    ("01 03 00 07", 16, 16, False, "an unused bitmap bit set (1 tile)"),
    ("02 01 01 05", 16, 16, True, "PACKED with n = 1"),
    ("02 01 11" + " 00" * 17, 16, 16, True, "PACKED with n = 17"),
    ("02 01 03 01 02 03" + " c0" * 4 + " 00" * 60, 16, 16, True, "PACKED local index 3 of 3"),
    ("02 02 07 00", 16, 16, True, "an RLE run of 0"),
    ("02 02 07 81 02", 16, 16, True, "an RLE run past the tile (257)"),
    ("02 02 07 80 01", 16, 16, True, "RLE ends before the tile is covered"),
    ("02 02 07 80 80 80 80 80 00", 16, 16, True, "a 5th LEB128 byte with bit 7"),
    ("02 03" + " 00" * 255, 16, 16, True, "RAW one byte short"),
]


@pytest.mark.parametrize("hexdata,w,h,key,why", BAD, ids=[b[-1] for b in BAD])
def test_malformed_data_is_refused(hexdata, w, h, key, why):
    with pytest.raises(vivarium.CodecError):
        decode(hexdata, w, h, key)


@pytest.mark.parametrize("w,h", [(0, 1), (1, 0), (4097, 1), (1, 4097)])
def test_frame_size_outside_1_to_4096(w, h):
    with pytest.raises(vivarium.CodecError):
        codec.decode_tiles(b"\x02\x00\x00", w, h, True, bytearray(max(w * h, 1)))


def test_zstd_content_size_checked():
    ok = zstandard.ZstdCompressor(level=1).compress(bytes.fromhex("02 00 07"))
    assert codec.unzstd(ok, 16, 16) == bytes.fromhex("02 00 07")
    over = zstandard.ZstdCompressor(level=1).compress(bytes(codec.zstd_limit(16, 16) + 1))
    with pytest.raises(vivarium.CodecError, match="over"):
        codec.unzstd(over, 16, 16)
    unsized = zstandard.ZstdCompressor(level=1, write_content_size=False).compress(b"\x02\x00\x07")
    with pytest.raises(vivarium.CodecError, match="content size"):
        codec.unzstd(unsized, 16, 16)


def message(pixels, w, h, pal, key=True, enc="raw", pv=1, fh=None):
    return {"t": "frame", "world": 1, "tick": 5, "key": key, "w": w, "h": h, "pv": pv, "pal": pal,
            "enc": enc, "data": pixels, "sh": 0,
            "fh": codec.frame_hash(w, h, pal or b"", pixels) if fh is None else fh}


def test_frame_hash_layout():
    # w, h and the palette count as u16 LE, the palette, the pixels: built by hand here.
    import xxhash
    pal, px = b"\x00\x00\x00\xff\x10\x20", bytes([0, 1, 1, 0, 1, 0])
    assert codec.frame_hash(3, 2, pal, px) == xxhash.xxh3_64_intdigest(struct.pack("<HHH", 3, 2, 2) + pal + px)


def test_decoder_checks_the_hash_and_the_order():
    pal = b"\x00\x00\x00\xff\xff\xff"
    dec = vivarium.FrameDecoder()
    frame = dec.feed(message(bytes([0, 1, 1, 0]), 2, 2, pal))
    assert (frame.width, frame.height, frame.pixels, frame.palette) == (2, 2, b"\x00\x01\x01\x00", pal)
    with pytest.raises(vivarium.FrameHashError):
        dec.feed(message(bytes([0, 1, 1, 0]), 2, 2, pal, fh=frame.hash ^ 1))
    with pytest.raises(vivarium.ProtocolError, match="no keyframe"):     # the picture was dropped
        dec.feed(message(bytes.fromhex("00"), 2, 2, None, key=False, enc="tile"))
    with pytest.raises(vivarium.ProtocolError, match="pal"):
        vivarium.FrameDecoder().feed(message(bytes(4), 2, 2, None))


def test_delta_keeps_the_palette_and_the_picture():
    pal = b"\x01\x02\x03" * 10
    dec = vivarium.FrameDecoder()
    dec.feed(message(b"\x02\x00\x07", 16, 16, pal, enc="tile", fh=codec.frame_hash(16, 16, pal, bytes([7]) * 256)))
    delta = message(b"\x00", 16, 16, None, key=False, enc="tile", fh=codec.frame_hash(16, 16, pal, bytes([7]) * 256))
    assert dec.feed(delta).pixels == bytes([7]) * 256
    delta["pv"] = 2                        # a new palette version must carry its palette
    with pytest.raises(vivarium.ProtocolError, match="pal"):
        dec.feed(delta)
