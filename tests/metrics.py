#!/usr/bin/python3
"""metrics.py — vivd's /metrics and /healthz as Prometheus and a probe see them (issue 31).

A real vivd on free loopback ports, recording to a file here; /metrics read with Debian's
python3-prometheus-client parser (prometheus_client.parser.text_string_to_metric_families), and
the counters checked to move as `viv bot` watches and plays over TCP and WebSocket, as a client
sends a bad message, and as the recorder's file is locked by another process (its writes fail:
/healthz answers 503 with the reason, then 200 again once the lock goes). Then a cluster: a
redis-server, a node and a relay; the relay's endpoints while a bot watches through it, while
Redis is away (503) and once it is back.

    /usr/bin/python3 tests/metrics.py [--bin bin]

Exit 0 when every check passed; otherwise each failure is printed and the exit is 1.
"""
import argparse
import os
import shutil
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

from prometheus_client.parser import text_string_to_metric_families

from loopback import Checks, Vivd, free_port, http_get as get, wait_for

ADMIN, PLAYER = "metrics-admin-token", "metrics-player-token"
KIND = "garden"                 # a light world (the machine is shared) whose bot inputs are valid
check = Checks()


def scrape(port):
    """The samples of /metrics as {(name, frozenset(labels)): value}, and the families by name."""
    status, ctype, text = get(port, "/metrics")
    check(status == 200, f"/metrics answers 200 (got {status})")
    check(ctype == "text/plain; version=0.0.4; charset=utf-8", f"/metrics content type ({ctype})")
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    samples = {}
    for f in fams.values():
        for s in f.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, fams


def val(samples, metric, **labels):
    return samples.get((metric, frozenset(labels.items())))


def bot(bindir, host, *args, seconds=3):
    r = subprocess.run([os.path.join(bindir, "viv"), "bot", "--host", host, "--seconds", str(seconds),
                        "--token", PLAYER] + list(args), capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"viv bot --host {host} {' '.join(args)} ran" +
          ("" if r.returncode == 0 else f" (exit {r.returncode}: {r.stderr.strip()[-300:]})"))


def histogram_sound(fams, name):
    """Buckets cumulative and ending at +Inf = _count, per label set."""
    f = fams.get(name)
    if not check(f is not None and f.type == "histogram", f"{name} is a histogram"):
        return
    series = {}
    for s in f.samples:
        key = frozenset((k, v) for k, v in s.labels.items() if k != "le")
        series.setdefault(key, {"b": [], "count": None})
        if s.name.endswith("_bucket"):
            series[key]["b"].append((float(s.labels["le"]), s.value))
        elif s.name.endswith("_count"):
            series[key]["count"] = s.value
    for key, v in series.items():
        b = v["b"]
        ok = b == sorted(b) and all(b[i][1] <= b[i + 1][1] for i in range(len(b) - 1))
        check(ok and b[-1][0] == float("inf") and b[-1][1] == v["count"],
              f"{name}{dict(key)}: buckets cumulative, +Inf equals _count ({b[-1][1]} / {v['count']})")


def bad_message(port):
    """A TCP client whose first message claims length 0: vivd's final error is bad_length."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(struct.pack(">I", 0))
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    s.close()


# ---- one node ---------------------------------------------------------------------------------------
def single_node(tmp, bindir):
    db = os.path.join(tmp, "node.db")
    v = Vivd(tmp, "node", ["--world", KIND, "--db", db], bindir, (ADMIN, PLAYER))
    try:
        status, ctype, body = get(v.http, "/healthz")
        check(status == 200 and body == "ok\n", f"/healthz: 200 ok at start ({status} {body!r})")
        s0, fams = scrape(v.http)
        check(all(n.startswith("vivd_") for n in fams), "every family is named vivd_…")
        for name, typ in [("vivd_world_tick_lateness_seconds", "histogram"),
                          ("vivd_world_tick_work_seconds", "histogram"),
                          ("vivd_world_ticks", "counter"), ("vivd_world_overruns", "counter"),
                          ("vivd_world_ticks_skipped", "counter"), ("vivd_world_subscribers", "gauge"),
                          ("vivd_world_frames_sent", "counter"), ("vivd_world_bytes_sent", "counter"),
                          ("vivd_world_inputs_acked", "counter"), ("vivd_world_inputs_refused", "counter"),
                          ("vivd_connections_open", "gauge"), ("vivd_connections", "counter"),
                          ("vivd_client_drops", "counter"), ("vivd_frames_skipped", "counter"),
                          ("vivd_recorder_commit_seconds", "histogram"),
                          ("vivd_recorder_queue_batches", "gauge"), ("vivd_healthy", "gauge")]:
            check(name in fams and fams[name].type == typ, f"{name} is a {typ}")
        check(val(s0, "vivd_healthy") == 1, "vivd_healthy 1")
        w = {"world": "1", "kind": KIND}
        before = {k: val(s0, k, **w) for k in ["vivd_world_ticks_total", "vivd_world_frames_sent_total",
                                               "vivd_world_bytes_sent_total", "vivd_world_inputs_acked_total"]}
        tcp0 = val(s0, "vivd_connections_total", transport="tcp")
        ws0 = val(s0, "vivd_connections_total", transport="websocket")
        commits0 = val(s0, "vivd_recorder_commit_seconds_count")

        bot(bindir, f"127.0.0.1:{v.port}", "--clients", "3", "--inputs-per-sec", "20")
        bot(bindir, f"ws://127.0.0.1:{v.http}/ws", "--clients", "2", seconds=2)
        sb, _ = scrape(v.http)
        bad0 = val(sb, "vivd_client_drops_total", transport="tcp", reason="bad_message")
        bad_message(v.port)
        s1, fams = scrape(v.http)
        for k, b in before.items():
            a = val(s1, k, **w)
            check(a is not None and b is not None and a > b, f"{k} moved as the bots watched and played ({b} -> {a})")
        check(val(s1, "vivd_world_inputs_acked_total", **w) >= 20,
              f"inputs acked: {val(s1, 'vivd_world_inputs_acked_total', **w)} (the player sent 20/s for 3 s)")
        check(val(s1, "vivd_connections_total", transport="tcp") >= tcp0 + 5,
              f"TCP connections counted ({tcp0} -> {val(s1, 'vivd_connections_total', transport='tcp')})")
        check(val(s1, "vivd_connections_total", transport="websocket") >= ws0 + 2,
              f"WebSocket connections counted ({ws0} -> {val(s1, 'vivd_connections_total', transport='websocket')})")
        check(val(s1, "vivd_client_drops_total", transport="tcp", reason="bad_message") == bad0 + 1,
              "the client with a bad length prefix is a bad_message drop")
        check(val(s1, "vivd_recorder_commit_seconds_count") > commits0, "the recorder's commits are counted")
        histogram_sound(fams, "vivd_world_tick_lateness_seconds")
        histogram_sound(fams, "vivd_recorder_commit_seconds")
        check(val(s1, "vivd_world_tick_lateness_seconds_count", **w) > 0, "lateness observed")
        histogram_sound(fams, "vivd_world_tick_work_seconds")
        check(val(s1, "vivd_world_tick_work_seconds_count", **w) ==
              val(s1, "vivd_world_tick_lateness_seconds_count", **w), "every tick's work counted, as its lateness")
        check(val(s1, "vivd_world_tick_work_seconds_sum", **w) > 0, "the ticks' work took time")

        # The recorder cannot commit: another process holds the file's write lock.
        lock = sqlite3.connect(db, timeout=30, isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        t0 = time.monotonic()
        got = wait_for(lambda: (lambda r: r if r[0] == 503 else None)(get(v.http, "/healthz")), 30, 0.25)
        check(got is not None and "recorder" in got[2] and got[2].count("\n") == 1,
              f"/healthz: 503 with one line while the log is locked, after {time.monotonic() - t0:.1f} s: {got and got[2]!r}")
        s2, _ = scrape(v.http)
        check(val(s2, "vivd_healthy") == 0, "vivd_healthy 0 then")
        # Held past SQLite's busy timeout (5 s), the write fails: the recorder says so.
        got = wait_for(lambda: (lambda r: r if "failing" in r[2] else None)(get(v.http, "/healthz")), 30, 0.25)
        check(got is not None and got[0] == 503 and "database is locked" in got[2],
              f"/healthz: 503 once the write failed: {got and got[2]!r}")
        lock.execute("ROLLBACK")
        lock.close()
        back = wait_for(lambda: get(v.http, "/healthz")[0] == 200, 30, 0.25)
        check(back, "/healthz: 200 again once the lock is gone (recording resumed)")
        s3, _ = scrape(v.http)
        check(val(s3, "vivd_recorder_commits_failed_total") >= 1,
              f"the failed commits are counted ({val(s3, 'vivd_recorder_commits_failed_total')})")
        status, _, _ = get(v.http, "/metricsx")
        check(status == 404, f"/metricsx is not /metrics (404, got {status})")
    finally:
        v.stop()


# ---- a cluster: the relay's endpoints ----------------------------------------------------------------
def start_redis(tmp, port):
    d = os.path.join(tmp, f"redis-{port}-{time.monotonic_ns()}")
    os.mkdir(d)
    p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--dir", d, "--daemonize", "no"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def pong():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False
    if not wait_for(pong, 15):
        raise RuntimeError("redis-server did not answer PING")
    return p


def cluster(tmp, bindir):
    rport = free_port()
    redis = start_redis(tmp, rport)
    url = f"redis://127.0.0.1:{rport}"
    node = relay = None
    try:
        node = Vivd(tmp, "cnode", ["--cluster", url, "--node", "n1", "--cluster-expiry", "1",
                                   "--world", KIND, "--no-record"], bindir, (ADMIN, PLAYER))
        relay = Vivd(tmp, "relay", ["--cluster", url, "--node", "r1", "--cluster-expiry", "1",
                                    "--relay", "--no-record"], bindir, (ADMIN, PLAYER))
        status, _, body = get(relay.http, "/healthz")
        check(status == 200, f"relay /healthz: 200 ({status} {body!r})")
        s0, _ = scrape(relay.http)
        check(val(s0, "vivd_cluster_member", name="r1", role="relay") == 1, "the relay says it is one")
        check(val(s0, "vivd_redis_up") == 1, "the relay's Redis is up")
        check(val(s0, "vivd_worlds") == 0, "a relay hosts no world")
        bot(bindir, f"127.0.0.1:{relay.port}", "--clients", "2", seconds=3)
        s1, _ = scrape(relay.http)
        check(val(s1, "vivd_relay_frames_total") > 0,
              f"frames relayed from the node are counted ({val(s1, 'vivd_relay_frames_total')})")
        n1, _ = scrape(node.http)
        check(val(n1, "vivd_cluster_published_total") > 0, "the node counts what it published")
        check(val(n1, "vivd_cluster_member", name="n1", role="node") == 1, "the node says it is one")

        redis.terminate()
        redis.wait(10)
        got = wait_for(lambda: (lambda r: r if r[0] == 503 else None)(get(relay.http, "/healthz")), 20, 0.25)
        check(got is not None and "Redis" in got[2], f"relay /healthz: 503 without Redis: {got and got[2]!r}")
        status, _, _ = get(node.http, "/healthz")
        check(status == 200, f"the node's worlds tick on without Redis: /healthz 200 ({status})")
        s2, _ = scrape(relay.http)
        check(val(s2, "vivd_redis_up") == 0 and val(s2, "vivd_redis_disconnects_total") >= 1,
              "the relay counts Redis's loss")
        redis = start_redis(tmp, rport)
        check(wait_for(lambda: get(relay.http, "/healthz")[0] == 200, 30, 0.25),
              "relay /healthz: 200 once Redis is back")
        s3, _ = scrape(relay.http)
        check(val(s3, "vivd_redis_reconnects_total") >= 1, "the relay counts the reconnect")
    finally:
        for v in (relay, node):
            if v:
                v.stop()
        redis.terminate()
        redis.wait(10)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="bin")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vivd-metrics-") as tmp:
        single_node(tmp, bindir)
        if shutil.which("redis-server"):
            cluster(tmp, bindir)
        else:
            check(False, "redis-server is not installed (scripts/deps.sh installs it)")
    print(f"metrics: {len(check.failures)} failure(s) in {time.monotonic() - t0:.1f} s")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
