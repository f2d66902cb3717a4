"""vivarium.Recording against files the real recorders wrote: one vivd recorded while this test
watched and played (the recorded hashes must be the frames' own, the inputs those acknowledged),
and one of `viv sim --record` (the hashes it printed, the inputs of its file)."""

import hashlib
import shutil
import sqlite3
import subprocess

import pytest

import vivarium
from conftest import BIN, PLAYED, PLAYER, ROOT, start_vivd, world_id


def file_digest(*paths):
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths]


def test_a_vivd_recording_holds_what_was_seen_and_acknowledged(tmp_path):
    server = start_vivd(tmp_path, PLAYED)
    try:
        with vivarium.connect(server.tcp, token=PLAYER) as viv:
            wid = world_id(viv, PLAYED)
            viv.subscribe(wid)
            seen = [viv.next_frame(wid)]
            acked = [viv.input(wid, "paint", 30, 20, 4, "sand"), viv.input(wid, "explode", 10, 10, 5)]
            while seen[-1].tick < acked[-1] + 5:
                seen.append(viv.next_frame(wid))
            client = viv.client_id
    finally:
        assert server.stop() == 0
    with vivarium.Recording(server.db) as rec:
        (s,) = rec.sessions()
        assert (s["kind"], s["seed"], s["params"], s["hz"]) == ("sand", 4, "w=64,h=48,scene=demo", 60)
        assert (s["status"], s["source"], s["world"]) == ("suspended", "vivd", wid)
        hashes = {h.tick: h for h in rec.hashes(s["id"])}
        for f in seen:
            assert hashes[f.tick].bits >= 8 and hashes[f.tick].agrees(f.sh, f.hash), f.tick
        inputs = list(rec.inputs(s["id"]))
        assert [(i.tick, i.client, i.seq, i.kind, i.args) for i in inputs] == [
            (acked[0], client, 1, 0, (30, 20, 4, 3)), (acked[1], client, 2, 2, (10, 10, 5))]
        assert list(rec.inputs(s["id"], start=acked[0] + 1)) == inputs[1:]
        assert rec.checkpoint(s["id"], s["start_tick"])[:4] == b"VIVW"
        assert rec.gaps(s["id"]) == [] and rec.fork(s["id"]) is None


def test_a_viv_sim_recording(tmp_path):
    (tmp_path / "inputs").write_text("5 paint 10 10 3 sand\n20 explode 30 20 5\n")
    db = tmp_path / "sim.db"
    out = subprocess.run([str(BIN / "viv"), "sim", "--world", "sand", "--seed", "5", "--params", "w=64,h=48",
                          "--ticks", "90", "--every", "30", "--inputs", str(tmp_path / "inputs"),
                          "--record", str(db)], check=True, capture_output=True, text=True).stdout
    printed = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    assert [p[0] for p in printed] == ["30", "60", "90"]
    before = file_digest(db)
    with vivarium.Recording(db) as rec:
        (s,) = rec.sessions()
        assert (s["source"], s["status"], s["start_tick"], s["end_tick"]) == ("viv sim", "closed", 0, 90)
        hashes = {h.tick: h for h in rec.hashes(s["id"])}
        assert sorted(hashes) == list(range(1, 91))
        # (schema 4 keeps the low 8 bits of most ticks, both hashes whole at a block's end)
        assert [h.bits for t, h in sorted(hashes.items())] == [8] * 89 + [64]
        for tick, sh, fh in printed:
            assert hashes[int(tick)].agrees(int(sh, 16), int(fh, 16)), tick
        assert (f"{hashes[90].state_hash:016x}", f"{hashes[90].frame_hash:016x}") == tuple(printed[-1][1:3])
        assert not hashes[60].agrees(int(printed[1][1], 16) ^ 1, int(printed[1][2], 16))
        assert [(i.tick, i.kind, i.args) for i in rec.inputs(s["id"])] == [(5, 0, (10, 10, 3, 3)), (20, 2, (30, 20, 5))]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            rec.db.execute("DELETE FROM input")
    # Unchanged; SQLite may leave an empty -wal beside a WAL file that it opened read-only.
    assert file_digest(db) == before
    assert file_digest(db.with_name("sim.db-wal")) in ([None], [hashlib.sha256(b"").hexdigest()])


def test_damage_and_strangers_are_refused(tmp_path):
    db = tmp_path / "sim.db"
    subprocess.run([str(BIN / "viv"), "sim", "--world", "sand", "--params", "w=32,h=32", "--ticks", "10",
                    "--record", str(db)], check=True, capture_output=True)
    bad = tmp_path / "bad.db"
    shutil.copy(db, bad)
    with sqlite3.connect(bad) as w:
        w.execute("UPDATE checkpoint SET state_hash = state_hash + 1")
    with vivarium.Recording(bad) as rec:
        with pytest.raises(vivarium.RecordingError, match="corrupted"):
            rec.checkpoint(1, 0)
        with pytest.raises(vivarium.RecordingError, match="not found"):
            rec.session(7)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(vivarium.RecordingError, match="not a Vivarium replay file"):
        vivarium.Recording(other)
    newer = tmp_path / "newer.db"
    shutil.copy(db, newer)
    with sqlite3.connect(newer) as w:
        w.execute("PRAGMA user_version = 5")
    with pytest.raises(vivarium.RecordingError, match="newer"):
        vivarium.Recording(newer)


def test_delta_checkpoints_read_whole(tmp_path):
    """Schema 4 stores a checkpoint after a session's first as a zstd delta against the latest
    full one (docs/REPLAY.md): read back, it is the saved state, checked against its hash."""
    db = tmp_path / "long.db"
    subprocess.run([str(BIN / "viv"), "sim", "--world", "sand", "--seed", "3", "--params", "w=64,h=48",
                    "--ticks", "3700", "--record", str(db)], check=True, capture_output=True)
    with vivarium.Recording(db) as rec:
        assert rec.db.execute("SELECT tick, base FROM checkpoint ORDER BY tick").fetchall() == [(0, None), (3600, 0)]
        state = rec.checkpoint(1, 3600)
        assert state[:4] == b"VIVW" and len(state) > len(rec.db.execute(
            "SELECT state FROM checkpoint WHERE tick = 3600").fetchone()[0])
        assert [t for t, _ in rec.checkpoints(1)] == [0, 3600]


def test_a_checkpoints_state_hash_follows_its_state_version(tmp_path):
    """A sand state of version 3 hashes by one XXH3-64 digest per 16x16 chunk (docs/STATE.md), a
    version 2 state (recorded before issue 30) by its bytes; the reader checks each as recorded.
    77x45 leaves chunks of 13 columns and 13 rows at the edges."""
    import xxhash
    from vivarium.recording import state_hash
    db = tmp_path / "odd.db"
    subprocess.run([str(BIN / "viv"), "sim", "--world", "sand", "--seed", "8", "--params", "w=77,h=45",
                    "--ticks", "60", "--record", str(db)], check=True, capture_output=True)
    with vivarium.Recording(db) as rec:
        blob = rec.checkpoint(1, 0)                 # raises unless it hashes to its recorded hash
        assert blob[8] == 3
        recorded = dict(rec.checkpoints(1))[0]
        assert state_hash(blob) == recorded != xxhash.xxh3_64_intdigest(blob)
    # the last row of a cell changed: its chunk's digest, and so the hash, changes
    changed = bytearray(blob)
    changed[-8 * 5 * 3 - 4] ^= 1
    assert state_hash(bytes(changed)) != recorded
    old = bytearray(blob)
    old[8] = 2
    assert state_hash(bytes(old)) == xxhash.xxh3_64_intdigest(bytes(old))
    sand17 = ROOT / "tests" / "compat" / "sand-17.db"
    with vivarium.Recording(sand17) as rec:
        first = rec.checkpoint(1, 0)
        assert first[8] == 2 and state_hash(first) == xxhash.xxh3_64_intdigest(first)
