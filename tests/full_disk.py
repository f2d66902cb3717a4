#!/usr/bin/python3
"""full_disk.py — a full disk loses nothing acknowledged (issue 32), against a real vivd.

    /usr/bin/python3 tests/full_disk.py [--bin bin] [--keep]

A tmpfs of 8 MiB is mounted (root, or CAP_SYS_ADMIN: CI runs as root; where the mount is
refused, the test says SKIP with the reason and exits 0, since it cannot run there) and vivd
records two worlds of different rates (garden at 60 Hz, terrarium at 40 Hz) into a file on it,
with $VIVD_FAILING_LOG_SECONDS=1. Two players send inputs to both worlds one at a time, noting
each answer (the ack's tick, or the error); a viewer of each world notes the ticks of its frames.
Then a filler file takes the disk's last byte, for 3.5 s, and is removed. Checked:

  while full    vivd logs RECORDING FAILED, then one "still failing" line a second (not one a
                tick, not only once); /healthz says 503 with the reason; /metrics counts the
                transactions tried (a checkpoint a second a world, all rolled back), not the
                ticks dropped between them; every input sent is
                refused (log_unavailable, or not_logged for one whose tick was lost), with the
                sentence for people, and acknowledged never; the connections stay; both viewers
                keep getting frames, of ticks that advance
  after         vivd resumes by itself (its line says how long, the ticks lost and the inputs
                refused), /healthz is 200, inputs are acknowledged again; SIGTERM stops it, exit 0
  the file      viv replay verify --all: exit 0, each session bit-exact with one gap, named as
                NOT VERIFIED, and no desync or damage; each gap lies where recording stopped and
                resumed (between the frames seen before the disk filled and after vivd said so;
                ending at a checkpoint after the filler went); the ticks lost that vivd logged
                are the gaps' ticks, the inputs it said it refused are those the players were
                refused; and every acknowledged input is in the input table (0 lost)

Then a log too slow for its world: vivd --record-queue 64k records a garden into a file whose
write lock another process holds until vivd says RECORDING FAILED (the log is behind). Checked:
it says so and what to do, inputs are refused meanwhile and acknowledged again after, recording
resumes by itself, verify names the one gap with its reason, the ticks vivd says it lost are the
gap's, and every acknowledged input is in the file.

The tmpfs is unmounted however the test ends (SIGINT and SIGTERM included). Exit 0 all held,
1 a check failed, 2 bad usage (vivd or viv not built).
"""
import argparse
import math
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "clients", "python"))

import vivarium  # noqa: E402  (the client of clients/python, from this source tree)

from loopback import Checks, Mount, Vivd, fill, http_get, wait_for  # noqa: E402

ADMIN, PLAYER = "disk-admin-token", "disk-player-token"
WORLDS = ["garden:seed=3", "terrarium:seed=4"]
INPUT = {"garden": "poke", "terrarium": "pointer"}     # (x, y) inside the picture, always valid
DISK = "8m"                    # the WAL (up to ~4.2 MB before SQLite checkpoints it) fits twice
SAY_EVERY = 1.0                # $VIVD_FAILING_LOG_SECONDS
FULL_FOR = 3.5                 # seconds the disk stays full
REFUSALS = {"log_unavailable", "not_logged"}
check = Checks()


class Player(threading.Thread):
    """Sends inputs one at a time to the worlds in turn; notes every answer with the times."""

    def __init__(self, i, port, worlds):
        super().__init__(daemon=True)
        self.c = vivarium.connect(f"127.0.0.1:{port}", token=PLAYER, name=f"player{i}")
        self.worlds = worlds
        self.rng = random.Random(i)
        self.answers = []      # (sent at, answered at, world, seq, tick or None, code or None, msg)
        self.lost_connection = None
        self.stop = False

    def run(self):
        seq = 0
        try:
            while not self.stop:
                e = self.worlds[seq % len(self.worlds)]
                seq += 1
                args = [self.rng.randrange(e["w"]), self.rng.randrange(e["h"])]
                sent = time.monotonic()
                self.c.send({"t": "input", "world": e["id"], "seq": seq, "kind": INPUT[e["kind"]],
                             "args": args})
                while True:
                    m = self.c.recv()
                    if m.get("seq") == seq and m["t"] in ("ack", "error"):
                        break
                    if m["t"] == "error":        # an error for the connection, not the input
                        raise vivarium.ServerError(m.get("code"), m.get("msg"), None)
                ack = m["t"] == "ack"
                self.answers.append((sent, time.monotonic(), e["id"], seq, m.get("tick") if ack else None,
                                     None if ack else m.get("code"), m.get("msg")))
                time.sleep(0.01)
        except (vivarium.VivariumError, OSError) as err:
            if not self.stop:
                self.lost_connection = repr(err)


class Viewer(threading.Thread):
    """Watches one world at a tenth of its frames; notes (time, tick) of each."""

    def __init__(self, port, world):
        super().__init__(daemon=True)
        self.c = vivarium.connect(f"127.0.0.1:{port}", name=f"viewer{world}")
        self.world = world
        self.frames = []
        self.error = None
        self.stop = False

    def run(self):
        try:
            for f in self.c.frames(self.world, every=6, div=2):
                self.frames.append((time.monotonic(), f.tick))
                if self.stop:
                    break
        except (vivarium.VivariumError, OSError) as err:
            if not self.stop:
                self.error = repr(err)

    def tick_before(self, t):
        """The last tick seen before time t (0 if none)."""
        return max((k for at, k in self.frames if at < t), default=0)

    def tick_after(self, t):
        """The first tick seen after time t (None if none)."""
        return next((k for at, k in self.frames if at > t), None)


def log_since(v, start, pattern):
    """Lines of v's log from index start that match pattern."""
    return [ln for ln in v.lines()[start:] if re.search(pattern, ln)]


def commits(v):
    """(vivd_recorder_commit_seconds_count, vivd_recorder_commits_failed_total) from /metrics."""
    status, _, body = http_get(v.http, "/metrics")
    found = dict(re.findall(r"^(vivd_recorder_commit_seconds_count|vivd_recorder_commits_failed_total) "
                            r"(\d+)$", body, re.M))
    if status != 200 or len(found) != 2:
        raise AssertionError(f"/metrics: {status}, recorder counters {found}")
    return int(found["vivd_recorder_commit_seconds_count"]), int(found["vivd_recorder_commits_failed_total"])


def run(bindir, disk, tmp):
    db = os.path.join(disk.dir, "full.db")
    v = Vivd(tmp, "vivd", ["--db", db] + sum((["--world", w] for w in WORLDS), []),
             bindir, (ADMIN, PLAYER), env={"VIVD_FAILING_LOG_SECONDS": str(SAY_EVERY)})
    players, viewers = [], []
    try:
        c = vivarium.connect(f"127.0.0.1:{v.port}")
        worlds = c.worlds()
        c.close()
        check(sorted(e["kind"] for e in worlds) == ["garden", "terrarium"],
              f"vivd hosts {', '.join(e['kind'] for e in worlds)}, recorded into {db} on a {DISK} tmpfs")
        viewers = [Viewer(v.port, e["id"]) for e in worlds]
        players = [Player(i, v.port, worlds) for i in range(2)]
        for t in viewers + players:
            t.start()
        warm = wait_for(lambda: all(sum(a[4] is not None for a in p.answers) >= 10 for p in players)
                        and all(len(w.frames) >= 5 for w in viewers), 15)
        if not check(warm, "players acknowledged and viewers served before the disk fills"):
            return

        # ---- the disk fills
        lines0 = len(v.lines())
        t_fill = time.monotonic()
        filler = os.path.join(disk.dir, "filler")
        size = fill(filler)
        st = os.statvfs(disk.dir)
        check(st.f_bavail == 0, f"the filler took the disk: {size} bytes, {st.f_bavail} blocks left")
        failed = wait_for(lambda: log_since(v, lines0, r"RECORDING FAILED"), 10, 0.02)
        t_failed = time.monotonic()
        check(failed and "database or disk is full" in failed[0] and "free space on the disk that holds "
              + db in failed[0], f"vivd says RECORDING FAILED, why and what to do, {t_failed - t_fill:.2f} s "
              f"after the disk filled: {failed[0][25:] if failed else 'nothing'}")
        health = http_get(v.http, "/healthz")
        check(health[0] == 503 and "database or disk is full" in health[2],
              f"/healthz while full: {health[0]} {health[2].strip()!r}")
        m0, t0 = commits(v), time.monotonic()
        time.sleep(FULL_FOR)
        m1, t1 = commits(v), time.monotonic()
        os.unlink(filler)
        # While full, a session's ticks are dropped until its next checkpoint (one a second of its
        # world) is tried: a transaction a second a world, each rolled back; the ticks dropped
        # are no transaction and not counted (they were, one group a tick: ~100 a second here)
        tried, failed_n = m1[0] - m0[0], m1[1] - m0[1]
        # (a checkpoint due before the first read may be counted after it; and a world that fell
        # behind catches up, more than a second of its ticks in one: 9 of 2 worlds in 3.5 s seen)
        most = len(WORLDS) * (math.ceil(t1 - t0) + 2)
        check(1 <= tried <= most and failed_n == tried,
              f"/metrics while full: {tried} commit(s) tried in {t1 - t0:.1f} s (1 to {most}: a "
              f"checkpoint a second a world), {failed_n} of them rolled back")
        t_free = time.monotonic()
        resumed = wait_for(lambda: log_since(v, lines0, r"recording resumed"), 10, 0.02)
        t_resumed = time.monotonic()
        check(bool(resumed), f"vivd resumes recording by itself {t_resumed - t_free:.2f} s after the filler "
              f"went: {resumed[0][25:] if resumed else 'it did not, within 10 s'}")
        still = log_since(v, lines0, r"recording still failing after")
        most = int((t_resumed - t_failed) / SAY_EVERY) + 1
        check(int(FULL_FOR / SAY_EVERY) - 1 <= len(still) <= most,
              f"one 'still failing' line every {SAY_EVERY:g} s while full: {len(still)} in "
              f"{t_resumed - t_failed:.1f} s (at most {most})")
        check(all("free space on the disk that holds " + db in ln and re.search(r"\d+ inputs refused", ln)
                  for ln in still), "each says how long, what it cost and what to do: "
              + (still[-1][25:] if still else "-"))
        time.sleep(1.5)
        health = http_get(v.http, "/healthz")
        check(health[0] == 200, f"/healthz after: {health[0]} {health[2].strip()!r}")
    finally:
        for t in players + viewers:
            t.stop = True
        for t in players + viewers:
            t.join(5)
            t.c.close()
        rc = v.stop()
    check(rc == 0, f"vivd stops on SIGTERM with exit status 0 (got {rc})")
    print("---- vivd's log while the disk was full and after")
    for ln in v.lines()[lines0:]:
        if not re.search(r" info  client \d+ ", ln):
            print("  " + ln)

    # ---- what the players and the viewers saw
    answers = [a for p in players for a in p.answers]
    acks = [a for a in answers if a[4] is not None]
    refused = [a for a in answers if a[5] is not None]
    during = [a for a in answers if t_failed <= a[0] < t_free]
    check(all(p.lost_connection is None for p in players),
          "the players' connections stayed open: " + "; ".join(str(p.lost_connection) for p in players))
    check(all(a[5] in REFUSALS for a in refused),
          f"every error is a refusal of the log ({', '.join(sorted({a[5] for a in refused}))})")
    check(during and all(a[4] is None for a in during),
          f"inputs sent while the disk was full: {len(during)}, acknowledged {sum(a[4] is not None for a in during)}")
    msgs = {a[5]: a[6] for a in refused}
    check("log_unavailable" in msgs and "cannot be written" in msgs["log_unavailable"],
          f"log_unavailable says why: {msgs.get('log_unavailable')!r}")
    after = [a for a in answers if a[0] > t_resumed]
    check(after and all(a[4] is not None for a in after),
          f"inputs sent after the resume: {len(after)}, acknowledged {sum(a[4] is not None for a in after)}")
    for w in viewers:
        seen = [k for at, k in w.frames if t_failed <= at < t_free]
        check(w.error is None and len(seen) >= 10 and seen == sorted(seen) and seen[-1] > seen[0],
              f"viewer of world {w.world}: {len(seen)} frames while full, ticks {seen[:1]}..{seen[-1:]}"
              + (f"; {w.error}" if w.error else ""))

    # ---- the file
    r = subprocess.run([os.path.join(bindir, "viv"), "replay", "verify", db, "--all"],
                       capture_output=True, text=True, timeout=120)
    print("---- viv replay verify --all\n" + r.stdout + r.stderr)
    check(r.returncode == 0, f"viv replay verify --all exits 0 (got {r.returncode})")
    check(not re.search(r"diverg|damaged|desync", r.stdout.replace("0 diverged, 0 damaged", "")),
          "no desync and no damage reported")
    f = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    sessions = {wid: (sid, hz) for sid, wid, hz in f.execute("SELECT id, world, hz FROM session")}
    gaps = {sid: [] for sid, _ in sessions.values()}
    for sid, lo, hi, why in f.execute("SELECT session, from_tick, to_tick, reason FROM gap"):
        gaps[sid].append((lo, hi, why))
    lost_ticks = 0
    for w in viewers:
        sid, hz = sessions[w.world]
        g = gaps[sid]
        if not check(len(g) == 1, f"session {sid} (world {w.world}) has one gap: {g}"):
            continue
        lo, hi, why = g[0]
        lost_ticks += hi - lo
        named = f"NOT VERIFIED: ticks [{lo}, {hi}) ({hi - lo} ticks) were not recorded ({why})" in r.stdout
        check(named, f"verify names session {sid}'s gap [{lo}, {hi}) ({why})")
        first, last_before_free = w.tick_before(t_fill), w.tick_before(t_free)
        upper = w.tick_after(t_failed)
        check(first <= lo and (upper is None or lo <= upper),
              f"session {sid}'s gap begins where recording stopped: tick {lo}, between the frames seen "
              f"before the disk filled ({first}) and after vivd said so ({upper})")
        cp = f.execute("SELECT count(*) FROM checkpoint WHERE session = ? AND tick = ?", (sid, hi)).fetchone()[0]
        check(hi > last_before_free and hi % hz == 0 and cp == 1,
              f"and ends at the checkpoint that resumed it: tick {hi}, after the filler went (tick "
              f"{last_before_free} was seen before), on a second of the world ({hz} Hz)")
    logged = set(f.execute("SELECT s.world, i.tick, i.client, i.seq FROM input i JOIN session s "
                           "ON s.id = i.session"))
    f.close()
    missing = [(p.c.client_id, a) for p in players for a in p.answers
               if a[4] is not None and (a[2], a[4], p.c.client_id, a[3]) not in logged]
    check(not missing, f"every acknowledged input is in the file: {len(acks)} acknowledged, "
          f"{len(missing)} lost" + (f" (first: {missing[:3]})" if missing else ""))
    m = re.search(r"after ([\d.]+ s): (\d+) ticks of (\d+) session\(s\) .* and (\d+) inputs refused",
                  resumed[0] if resumed else "")
    check(m and int(m.group(2)) == lost_ticks and int(m.group(3)) == len(sessions),
          f"the ticks vivd said it lost ({m and m.group(2)} of {m and m.group(3)} sessions) are the gaps' "
          f"({lost_ticks} of {len(sessions)})")
    check(m and int(m.group(4)) == len(refused),
          f"the inputs vivd said it refused ({m and m.group(4)}) are those the players were refused ({len(refused)})")
    print(f"full-disk: {len(acks)} inputs acknowledged, {len(missing)} of them lost; {len(refused)} refused "
          f"({', '.join(f'{k} {sum(a[5] == k for a in refused)}' for k in sorted(REFUSALS))}), "
          f"{len(during)} sent while the disk was full; the gaps: {lost_ticks} ticks in {len(sessions)} "
          f"sessions; {len(still)} 'still failing' lines in {t_resumed - t_failed:.1f} s")


def slow_log(bindir, tmp):
    """The writer held (another process's write lock, for less than its 5 s busy timeout) behind a
    64 KiB queue (--record-queue 64k): the ticks that do not fit are a gap of the session, named by
    verify with its reason; inputs are refused meanwhile, acknowledged again after; nothing
    acknowledged is lost; recording resumes by itself."""
    print("---- a log too slow for the world: vivd --record-queue 64k")
    db = os.path.join(tmp, "slow.db")
    v = Vivd(tmp, "vivd-slow", ["--db", db, "--record-queue", "64k", "--world", "garden:seed=5"],
             bindir, (ADMIN, PLAYER), env={"VIVD_FAILING_LOG_SECONDS": str(SAY_EVERY)})
    players = []
    behind = resumed = None
    try:
        c = vivarium.connect(f"127.0.0.1:{v.port}")
        worlds = c.worlds()
        c.close()
        players = [Player(9, v.port, worlds)]
        players[0].start()
        if not check(wait_for(lambda: sum(a[4] is not None for a in players[0].answers) >= 5, 15),
                     "inputs acknowledged before the writer is held"):
            return
        lines0 = len(v.lines())
        lock = sqlite3.connect(db, timeout=10, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        t_held = time.monotonic()
        behind = wait_for(lambda: log_since(v, lines0, r"RECORDING FAILED"), 4.5, 0.02)
        t_behind = time.monotonic()
        lock.execute("ROLLBACK")
        lock.close()
        check(behind and "the log is behind: over 65536 bytes waiting to be written" in behind[0]
              and "--record-queue" in behind[0],
              f"vivd says the log is behind {t_behind - t_held:.2f} s after the writer was held, and what "
              f"to do: {behind[0][25:] if behind else 'nothing within 4.5 s'}")
        resumed = wait_for(lambda: log_since(v, lines0, r"recording resumed"), 10, 0.05)
        check(bool(resumed), "recording resumes by itself once the writer can write: "
              + (resumed[0][25:] if resumed else "it did not, within 10 s"))
        time.sleep(0.5)
    finally:
        for t in players:
            t.stop = True
            t.join(5)
            t.c.close()
        rc = v.stop()
    check(rc == 0, f"vivd stops on SIGTERM with exit status 0 (got {rc})")
    if not behind:
        return
    answers = players[0].answers
    refused = [a for a in answers if a[5] is not None]
    check(refused and all(a[5] in REFUSALS for a in refused), f"inputs refused while behind: {len(refused)} "
          f"({', '.join(sorted({str(a[5]) for a in refused}))})")
    last_refused = max((a[0] for a in refused), default=0)
    after = [a for a in answers if a[0] > last_refused]
    check(after and all(a[4] is not None for a in after), f"and acknowledged again after: {len(after)}")
    r = subprocess.run([os.path.join(bindir, "viv"), "replay", "verify", db, "--all"],
                       capture_output=True, text=True, timeout=120)
    print(r.stdout + r.stderr)
    f = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    gaps = f.execute("SELECT from_tick, to_tick, reason FROM gap").fetchall()
    logged = set(f.execute("SELECT tick, seq FROM input"))
    f.close()
    check(r.returncode == 0 and len(gaps) == 1 and gaps[0][2].startswith("the log is behind") and
          f"NOT VERIFIED: ticks [{gaps[0][0]}, {gaps[0][1]}) ({gaps[0][1] - gaps[0][0]} ticks) were not "
          f"recorded ({gaps[0][2]})" in r.stdout,
          f"viv replay verify exits 0 ({r.returncode}) and names the one gap {gaps}")
    m = re.search(r"after [\d.]+ s: (\d+) ticks of 1 session", resumed[0] if resumed else "")
    # (the ticks still queued when one was refused are written after it: they are not lost, and
    # their inputs are acknowledged; vivd once counted them lost and refused their inputs)
    check(m and gaps and int(m.group(1)) == gaps[0][1] - gaps[0][0],
          f"the ticks vivd said it lost ({m and m.group(1)}) are the gap's ({gaps and gaps[0][1] - gaps[0][0]})")
    acked = [a for a in answers if a[4] is not None]
    missing = [a for a in acked if (a[4], a[3]) not in logged]
    check(not missing, f"every acknowledged input is in the file: {len(acked)} acknowledged, {len(missing)} lost")


def main():
    ap = argparse.ArgumentParser(description="A full disk loses nothing acknowledged (issue 32).")
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "bin"))
    ap.add_argument("--keep", action="store_true", help="keep vivd's log directory")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    for prog in ("vivd", "viv"):
        if not os.access(os.path.join(bindir, prog), os.X_OK):
            print(f"full-disk: {bindir}/{prog} is not built (make -j2 all)", file=sys.stderr)
            return 2
    t0 = time.monotonic()
    # SIGTERM as an exception, so that the finally below unmounts.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    disk = Mount(DISK, "viv-full-disk-")
    if not disk.mounted:
        disk.close()
        msg = (f"full-disk: SKIP: cannot mount a tmpfs of {DISK} ({disk.why}); this test needs root or "
               "CAP_SYS_ADMIN, as in CI. NOTHING about a full disk was tested.")
        print("*" * 100 + "\n" + msg + "\n" + "*" * 100, flush=True)
        print(msg, file=sys.stderr)
        return 0
    tmp = tempfile.mkdtemp(prefix="viv-full-disk-log-")
    try:
        run(bindir, disk, tmp)
        slow_log(bindir, tmp)
    except Exception:
        import traceback
        check(False, "the test itself failed: " + traceback.format_exc())
    finally:
        disk.close()
    check(not os.path.ismount(disk.dir), f"the tmpfs at {disk.dir} is unmounted")
    print(f"full-disk: {len(check.failures)} failure(s) in {time.monotonic() - t0:.1f} s"
          + (f"; vivd's log in {tmp}" if check.failures or a.keep else ""))
    if not check.failures and not a.keep:
        subprocess.run(["rm", "-rf", tmp])
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
