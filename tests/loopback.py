"""loopback.py — what the Python test scripts (tests/chaos.py, tests/metrics.py,
tests/full_disk.py) share: free TCP ports on 127.0.0.1, a vivd started on them, its HTTP
endpoints, waiting for a condition, ok/FAIL lines, and a small disk to fill. Imported as a sibling module (the
scripts run as `/usr/bin/python3 tests/NAME.py`, so tests/ is first on sys.path)."""
import errno
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request


def free_port():
    """A port on 127.0.0.1 that nothing listens on now (the kernel's pick, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_for(pred, timeout, step=0.1):
    """pred()'s first true value within timeout seconds, else its last value."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def read_port(path, timeout=30):
    """The port a vivd wrote into path (--port-file, --http-port-file), or None."""
    def get():
        try:
            with open(path) as f:
                t = f.read().strip()
            return int(t) if t else None
        except (OSError, ValueError):
            return None
    return wait_for(get, timeout)


def http_get(port, path):
    """(status, content-type, body) of GET http://127.0.0.1:port/path."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.headers.get("content-type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type"), e.read().decode()


class Checks:
    """check(ok, what): an ok or FAIL line as the script goes; the failures kept for its exit."""

    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok


class Vivd:
    """A vivd on free loopback ports (TCP, and HTTP for /metrics and /healthz), with the given
    (admin, player) tokens and extra arguments; its output in TMP/NAME.log."""

    def __init__(self, tmp, name, args, bindir, tokens, env=None):
        self.pf, self.hpf = os.path.join(tmp, name + ".port"), os.path.join(tmp, name + ".http")
        self.logpath = os.path.join(tmp, name + ".log")
        self.log = open(self.logpath, "w")
        argv = [os.path.join(bindir, "vivd"), "--listen", "127.0.0.1:0", "--port-file", self.pf,
                "--http", "127.0.0.1:0", "--http-port-file", self.hpf, "--admin-token", tokens[0],
                "--player-token", tokens[1], "--io-threads", "1", "--threads", "1"] + args
        self.p = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                  env=dict(os.environ, **(env or {})))
        self.port, self.http = read_port(self.pf), read_port(self.hpf)
        if not self.port or not self.http:
            self.stop()
            raise RuntimeError(f"{name} did not start (see {self.logpath})")

    def lines(self):
        """Its log so far, line by line."""
        with open(self.logpath, errors="replace") as f:
            return f.read().splitlines()

    def stop(self):
        """SIGTERM, then its exit status (-9: it did not stop within 15 s and was killed)."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        if not self.log.closed:
            self.log.close()
        return self.p.returncode


class Mount:
    """A size-limited tmpfs at a new directory; unmounted by close(), whatever happened."""

    def __init__(self, size, prefix="viv-disk-"):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", self.dir],
                           capture_output=True, text=True)
        self.mounted = r.returncode == 0
        self.why = " ".join((r.stderr or r.stdout).split()) or f"mount exit status {r.returncode}"

    def close(self):
        if self.mounted and subprocess.run(["umount", self.dir]).returncode != 0:
            subprocess.run(["umount", "-l", self.dir])          # busy: detach it now, freed later
        self.mounted = False
        try:
            os.rmdir(self.dir)
        except OSError:
            pass


def fill(path):
    """Write zeros into path until the disk is full (ENOSPC: a short write takes the last bytes,
    the next one fails); its size."""
    n = 0
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                n += f.write(b"\0" * 65536)
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
    return n
