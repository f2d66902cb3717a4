"""A replay file (docs/REPLAY.md), read-only: its sessions, their inputs, hashes, checkpoints,
gaps and fork lineage. The file is opened with SQLite's read-only URI mode, so reading never
writes it (nor migrates an older schema) and works while a vivd records into it."""

import collections
import pathlib
import sqlite3
import struct

import xxhash
import zstandard

from .errors import VivariumError

APPLICATION_ID = 0x56495652     # "VIVR"
SCHEMA_MAX = 4
U64 = (1 << 64) - 1
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

Input = collections.namedtuple("Input", "tick client seq kind args")
def state_hash(blob):
    """The state hash of a saved state blob (docs/STATE.md), as the world that holds it gives it:
    XXH3-64 of its bytes, except for a sand world of state version 3 on, whose cells are hashed
    as one XXH3-64 digest per 16x16 chunk in their place. A blob whose header or sand payload
    does not parse hashes as its bytes."""
    try:
        kind, sver = struct.unpack_from("<HI", blob, 6)
        if kind != 1 or sver < 3:
            return xxhash.xxh3_64_intdigest(blob)
        (plen,) = struct.unpack_from("<H", blob, 32)
        (nq,) = struct.unpack_from("<I", blob, 34 + plen)
        at = 38 + plen + 52 * nq
        w, h, side = struct.unpack_from("<HHB", blob, at)
    except struct.error:
        return xxhash.xxh3_64_intdigest(blob)
    ncx, ncy = (w + 15) // 16, (h + 15) // 16
    cells = at + 5
    if side != 16 or not (1 <= w <= 4096 and 1 <= h <= 2048) or len(blob) != cells + 4 * w * h + 8 * ncx * ncy:
        return xxhash.xxh3_64_intdigest(blob)
    x = xxhash.xxh3_64()
    x.update(blob[:cells])
    view, stride = memoryview(blob), 4 * w
    digests = bytearray()
    for cy in range(ncy):
        rows = range(16 * cy, min(h, 16 * cy + 16))
        for cx in range(ncx):
            a, b = 4 * 16 * cx, 4 * min(w, 16 * cx + 16)
            digests += struct.pack("<Q", xxhash.xxh3_64_intdigest(
                b"".join(view[cells + y * stride + a:cells + y * stride + b] for y in rows)))
    x.update(bytes(digests))
    x.update(blob[cells + 4 * w * h:])
    return x.intdigest()


class Hashes(collections.namedtuple("Hashes", "tick state_hash frame_hash bits", defaults=(64,))):
    """A tick's recorded hashes: bits says how many low bits of each the file keeps (64 whole;
    8 for most ticks of schema 4's blocks; 0 none: docs/REPLAY.md, "Recorded hashes")."""

    def agrees(self, state_hash, frame_hash):
        """Whether whole hashes computed now agree with the recorded ones, in the bits kept."""
        mask = (1 << self.bits) - 1 if self.bits < 64 else (1 << 64) - 1
        return self.bits == 0 or ((state_hash ^ self.state_hash) & mask == 0 and
                                  (frame_hash ^ self.frame_hash) & mask == 0)
Gap = collections.namedtuple("Gap", "from_tick to_tick reason")
BLOCK_MAX = 240                      # the most ticks a block of hashes covers (docs/REPLAY.md)

_SESSION_COLUMNS = ("id", "kind", "kind_id", "seed", "params", "sim_version", "hz", "start_tick",
                    "end_tick", "status", "source", "world", "checkpoint_every", "created_at",
                    "closed_at", "node", "origin_id")


class RecordingError(VivariumError):
    """Not a replay file, a newer schema, no such session, or a damaged row."""


def u64(value):
    """A u64 stored as the i64 with the same bits."""
    return value & U64


class Recording:
    """Recording(path): the replay file at path, opened read-only."""

    def __init__(self, path):
        self.path = str(path)
        uri = pathlib.Path(path).resolve().as_uri() + "?mode=ro"
        try:
            self.db = sqlite3.connect(uri, uri=True)
            app = self.db.execute("PRAGMA application_id").fetchone()[0]
            self.version = self.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.Error as e:
            raise RecordingError(f"{path}: cannot be read as SQLite ({e})") from None
        if app != APPLICATION_ID:
            self.db.close()
            raise RecordingError(f"{path}: not a Vivarium replay file")
        if self.version > SCHEMA_MAX:
            self.db.close()
            raise RecordingError(f"{path}: schema version {self.version}, this reader knows up to "
                                 f"{SCHEMA_MAX}: use a newer Vivarium")
        self._tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        self._has_base = any(r[1] == "base" for r in self.db.execute("PRAGMA table_info(checkpoint)"))

    def close(self):
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _session_select(self):
        # Versions 1 and 2 have no node columns: they read as NULL (docs/REPLAY.md).
        cols = _SESSION_COLUMNS if self.version >= 3 else _SESSION_COLUMNS[:-2] + ("NULL", "NULL")
        return "SELECT " + ", ".join(cols) + " FROM session"

    @staticmethod
    def _session_dict(row):
        s = dict(zip(_SESSION_COLUMNS, row))
        s["seed"] = u64(s["seed"])
        return s

    def sessions(self):
        """Every session as a dict of its row (seed as the u64 it is), in id order."""
        return [self._session_dict(r) for r in self.db.execute(self._session_select() + " ORDER BY id")]

    def session(self, session):
        row = self.db.execute(self._session_select() + " WHERE id = ?", (session,)).fetchone()
        if row is None:
            raise RecordingError(f"session {session} not found in {self.path}")
        return self._session_dict(row)

    def inputs(self, session, start=None, end=None):
        """The applied inputs, as Input(tick, client, seq, kind, args) in (tick, client, seq)
        order: kind is the index in the kind's input table, args a tuple of ints; ticks in
        [start, end) when given."""
        for tick, client, seq, kind, blob in self.db.execute(
                "SELECT tick, client, seq, kind, args FROM input WHERE session = ? AND tick >= ? "
                "AND tick < ? ORDER BY tick, client, seq", self._range(session, start, end)):
            if len(blob) % 4 or len(blob) > 32:
                raise RecordingError(f"session {session}, input at tick {tick} (client {client}, "
                                     f"seq {seq}): args of {len(blob)} bytes")
            yield Input(tick, client, seq, kind, struct.unpack(f"<{len(blob) // 4}i", blob))

    def hashes(self, session, start=None, end=None):
        """The recorded Hashes(tick, state_hash, frame_hash, bits) in tick order: the state after
        stepping tick - 1, and its frame's fh; from schema 3's tick rows (whole) and schema 4's
        blocks (the low 8 bits of most ticks, both whole at a block's end)."""
        rows = [Hashes(tick, u64(sh), u64(fh)) for tick, sh, fh in self.db.execute(
                "SELECT tick, state_hash, frame_hash FROM tick WHERE session = ? AND tick >= ? "
                "AND tick < ? ORDER BY tick", self._range(session, start, end))]
        if "hashes" in self._tables:
            s, lo, hi = self._range(session, start, end)
            for first, n, last_sh, last_fh, data in self.db.execute(
                    "SELECT tick, n, last_sh, last_fh, data FROM hashes WHERE session = ? AND tick >= ? "
                    "AND tick < ? ORDER BY tick", (s, max(lo - BLOCK_MAX + 1, 0), hi)):
                rows.extend(h for h in self._block(session, first, n, last_sh, last_fh, bytes(data))
                            if lo <= h.tick < hi)
            rows.sort(key=lambda h: h.tick)
        yield from rows

    def _block(self, session, first, n, last_sh, last_fh, data):
        k = n - 1
        if data and k:
            if data[0] == 2:
                try:
                    data = b"\x01" + zstandard.ZstdDecompressor().decompress(data[1:], max_output_size=2 * k)
                except zstandard.ZstdError as e:
                    raise RecordingError(f"session {session}: the block of hashes at tick {first}: {e}") from None
            if data[0] != 1 or len(data) != 1 + 2 * k:
                raise RecordingError(f"session {session}: the block of hashes at tick {first} is damaged")
        for i in range(k):
            if data:
                yield Hashes(first + i, data[1 + i], data[1 + k + i], 8)
            else:
                yield Hashes(first + i, 0, 0, 0)
        yield Hashes(first + k, u64(last_sh), u64(last_fh))

    def checkpoints(self, session):
        """[(tick, state_hash)] of the session's checkpoints."""
        return [(t, u64(h)) for t, h in self.db.execute(
            "SELECT tick, state_hash FROM checkpoint WHERE session = ? ORDER BY tick", (session,))]

    def checkpoint(self, session, tick):
        """The saved state at tick (decompressed when stored as a zstd frame), checked against
        its recorded hash."""
        base_col = "base" if self._has_base else "NULL"
        row = self.db.execute(f"SELECT state, state_hash, {base_col} FROM checkpoint WHERE session = ? AND tick = ?",
                              (session, tick)).fetchone()
        if row is None:
            raise RecordingError(f"session {session} has no checkpoint at tick {tick}")
        blob, recorded, base = bytes(row[0]), u64(row[1]), row[2]
        if base is not None:
            # A delta (schema 4): a zstd frame with the full checkpoint at tick `base` as its
            # prefix, which zstandard takes as a raw-content dictionary.
            if base >= tick:
                raise RecordingError(f"checkpoint at tick {tick} of session {session} names a later base")
            full = zstandard.ZstdCompressionDict(self.checkpoint(session, base),
                                                 dict_type=zstandard.DICT_TYPE_RAWCONTENT)
            try:
                blob = zstandard.ZstdDecompressor(dict_data=full).decompress(blob)
            except zstandard.ZstdError as e:
                raise RecordingError(f"checkpoint at tick {tick} of session {session}: {e}") from None
        elif blob[:4] == ZSTD_MAGIC:
            try:
                blob = zstandard.ZstdDecompressor().decompress(blob)
            except zstandard.ZstdError as e:
                raise RecordingError(f"checkpoint at tick {tick} of session {session}: {e}") from None
        if state_hash(blob) != recorded:
            raise RecordingError(f"checkpoint at tick {tick} of session {session} is corrupted "
                                 f"(it does not hash to its recorded {recorded:016x})")
        return blob

    def gaps(self, session):
        return [Gap(*r) for r in self.db.execute(
            "SELECT from_tick, to_tick, reason FROM gap WHERE session = ? ORDER BY from_tick", (session,))]

    def fork(self, session):
        """The session's lineage when it is a fork ({parent, tick, parent_state_hash,
        parent_file}), else None."""
        if "fork" not in self._tables:
            return None
        row = self.db.execute("SELECT parent, tick, parent_state_hash, parent_file FROM fork "
                              "WHERE session = ?", (session,)).fetchone()
        if row is None:
            return None
        return {"parent": row[0], "tick": row[1], "parent_state_hash": u64(row[2]), "parent_file": row[3]}

    @staticmethod
    def _range(session, start, end):
        return (session, 0 if start is None else start, (1 << 63) - 1 if end is None else end)
