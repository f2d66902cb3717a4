"""The client against a real vivd, over TCP and over WebSocket: the welcome's worlds, frames whole
and by rect in each encoding (every frame's hash checked by the decoder against its fh), inputs
and their acks, and the server's refusals as ServerError codes."""

import sys
import time

import pytest

import vivarium
from conftest import ADMIN, PLAYED, PLAYER, WATCHED, world_id


def test_worlds(address):
    with vivarium.connect(address) as viv:
        assert viv.role == "viewer"
        worlds = {(w["kind"], w["seed"]): w for w in viv.worlds()}
        assert set(worlds) == {("sand", 3), ("sand", 4)}
        w = worlds[("sand", 3)]
        assert (w["w"], w["h"], w["hz"]) == (200, 150, 60) and isinstance(w["id"], int)
        assert w["inputs"]["paint"] == ["x", "y", "r", "element"]


@pytest.mark.parametrize("enc", [None, "tile", "raw"])
def test_frames_whole(address, enc):
    with vivarium.connect(address) as viv:
        wid = world_id(viv, WATCHED)
        frames = list(viv.frames(wid, 12, enc=enc))
    assert frames[0].key and all(not f.key for f in frames[1:]) == (enc != "raw")
    ticks = [f.tick for f in frames]
    assert ticks == list(range(ticks[0], ticks[0] + 12)), ticks     # every tick, in order
    for f in frames:
        assert (f.world, f.width, f.height, f.rect) == (wid, 200, 150, None)
        assert len(f.pixels) == 200 * 150 and f.hash == vivarium.frame_hash(200, 150, f.palette, f.pixels)
        assert f.enc == (enc or "tile.zst") or (enc is None and f.enc == "tile")
    assert len({f.pixels for f in frames}) > 1, "the sand demo moves"


def test_frames_by_rect_are_the_whole_frame_cut(vivd):
    """Two connections watch the same ticks, one whole and one a rect (widened by vivd to its
    64-pixel grid): at every common tick the rect's pixels are the whole frame's inside it."""
    with vivarium.connect(vivd.tcp) as whole, vivarium.connect(vivd.ws) as part:
        wid = world_id(whole, WATCHED)
        whole.subscribe(wid)
        part.subscribe(wid, rect=(70, 100, 70, 40))   # clipped at the bottom
        got_whole = {f.tick: f for f in (whole.next_frame(wid) for _ in range(20))}
        got_part = [part.next_frame(wid) for _ in range(10)]
    common = [f for f in got_part if f.tick in got_whole]
    assert len(common) >= 5
    for f in common:
        x, y, w, h = f.rect
        assert (x, y, w, h) == (64, 64, 128, 86) and (f.width, f.height) == (w, h)
        src = got_whole[f.tick].pixels
        assert f.pixels == b"".join(src[(y + r) * 200 + x:(y + r) * 200 + x + w] for r in range(h))


def test_div_and_every(vivd):
    with vivarium.connect(vivd.tcp) as viv:
        frames = list(viv.frames(world_id(viv, WATCHED), 4, every=2, div=3))
    assert all((f.width, f.height) == (67, 50) and f.tick % 2 == 0 for f in frames)


def test_a_corrupted_frame_raises(vivd):
    """Real frames from vivd, fed to the decoder: as sent they decode; with one pixel byte or the
    fh changed the hash check raises; tile data cut short is refused by the codec."""
    with vivarium.connect(vivd.tcp) as viv:
        wid = world_id(viv, WATCHED)
        for enc in ("raw", "tile"):
            viv.send({"t": "sub", "world": wid, "enc": enc})
            # the first keyframe of this encoding: a late frame of the stream just unsubscribed
            # (raw) may still come after this sub (docs/PROTOCOL.md, sub)
            msg = next(m for m in iter(viv.recv, None)
                       if m["t"] == "frame" and m["enc"] == enc and m["key"])
            viv.send({"t": "unsub", "world": wid})
            assert msg["key"]
            frame = vivarium.FrameDecoder().feed(msg)
            assert frame.hash == msg["fh"]
            with pytest.raises(vivarium.FrameHashError):
                vivarium.FrameDecoder().feed(dict(msg, fh=msg["fh"] ^ 1 << 40))
            if enc == "raw":
                data = bytearray(msg["data"])
                data[len(data) // 2] ^= 1
                with pytest.raises(vivarium.FrameHashError):
                    vivarium.FrameDecoder().feed(dict(msg, data=bytes(data)))
                pal = bytearray(msg["pal"])
                pal[0] ^= 0x80
                with pytest.raises(vivarium.FrameHashError):
                    vivarium.FrameDecoder().feed(dict(msg, pal=bytes(pal)))
            else:
                with pytest.raises(vivarium.CodecError):
                    vivarium.FrameDecoder().feed(dict(msg, data=msg["data"][:-1]))


def test_inputs_ack_and_refusals(address):
    with vivarium.connect(address, token=PLAYER) as viv:
        assert viv.role == "player"
        wid = world_id(viv, PLAYED)
        first = next(viv.frames(wid, 1)).tick
        tick = viv.input(wid, "paint", 30, 20, 4, "sand")
        assert isinstance(tick, int) and tick >= first
        assert viv.input(wid, "erase", 30, 20, 2) >= tick
        for args, code in [(("paint", 30, 20, 999, 3), "bad_input"), (("paint", 1, 2), "bad_input"),
                           (("zap", 1), "unknown_input")]:
            with pytest.raises(vivarium.ServerError) as e:
                viv.input(wid, *args)
            assert e.value.code == code and e.value.seq is not None, e.value
        with pytest.raises(vivarium.ServerError) as e:
            viv.input(99999, "paint", 1, 1, 1, 1)
        assert e.value.code == "unknown_world"
        with pytest.raises(ValueError):
            viv.input(wid, "paint", 1, 1, 1, "cheese")


def test_an_input_shows_in_the_frame_after_its_tick(vivd):
    """The ack's tick T: the frame of T + 1 shows the paint (a disc of wall at the top left)."""
    with vivarium.connect(vivd.tcp, token=ADMIN) as viv:
        wid = world_id(viv, PLAYED)
        viv.subscribe(wid)
        tick = viv.input(wid, "paint", 8, 8, 3, "wall")
        frame = viv.next_frame(wid)
        while frame.tick < tick + 1:
            frame = viv.next_frame(wid)
        before = frame.pixel(8, 8)
        viv.input(wid, "erase", 8, 8, 3)
        while frame.tick < tick + 30:
            frame = viv.next_frame(wid)
        assert before != frame.pixel(8, 8), "the wall painted at (8, 8) was not seen, then erased"


def test_roles_and_tokens(vivd):
    with vivarium.connect(vivd.tcp) as viv:
        with pytest.raises(vivarium.ServerError) as e:
            viv.input(world_id(viv, PLAYED), "paint", 1, 1, 1, 1)
        assert e.value.code == "forbidden"
    with pytest.raises(vivarium.ServerError) as e:
        vivarium.connect(vivd.ws, token="not-the-token")
    assert e.value.code == "bad_token"


def test_websocket_handshake_refused(vivd):
    with pytest.raises(vivarium.ProtocolError, match="404"):
        vivarium.connect(vivd.ws.replace("/ws", "/nowhere"))


def test_resubscribing_starts_from_the_new_keyframe(vivd):
    """Back-to-back frames() of one world with other rects: each starts with a keyframe of its
    own rect, never a frame of the stream before it (the ping before each sub is the fence)."""
    with vivarium.connect(vivd.tcp) as viv:
        wid = world_id(viv, WATCHED)
        for rect in [None, (0, 0, 1, 1), (150, 100, 1, 1), None, (0, 0, 1, 1)] * 2:
            frames = []
            for f in viv.frames(wid, 3, rect=rect):
                frames.append(f)
                if len(frames) == 3:
                    time.sleep(0.1)     # frames of this stream pile up before its unsub
            assert frames[0].key and not frames[1].key
            assert all(f.rect == (None if rect is None else frames[0].rect) for f in frames)


def test_to_numpy(vivd, monkeypatch):
    np = pytest.importorskip("numpy")
    with vivarium.connect(vivd.tcp) as viv:
        frame = next(viv.frames(world_id(viv, WATCHED), 1))
    index = frame.to_numpy()
    assert index.shape == (150, 200) and index.dtype == np.uint8
    assert index[17, 33] == frame.pixel(33, 17)
    rgb = frame.to_numpy(rgb=True)
    c = frame.pixel(120, 90)
    assert tuple(rgb[90, 120]) == tuple(frame.palette[3 * c:3 * c + 3])
    monkeypatch.setitem(sys.modules, "numpy", None)        # as where numpy is not installed
    with pytest.raises(ImportError, match="needs numpy"):
        frame.to_numpy()


def test_a_refused_sub_raises_and_leaves_nothing_behind(vivd):
    with vivarium.connect(vivd.tcp) as viv:
        wid = world_id(viv, WATCHED)
        with pytest.raises(vivarium.ServerError) as e:
            next(viv.frames(wid, 1, every=99999))
        assert e.value.code == "bad_field"
        viv.ping()                              # no stale not_subscribed from an unsub
        assert next(viv.frames(wid, 1)).key
