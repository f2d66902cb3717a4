"""Fixtures for the vivarium package's tests: a real bin/vivd (or $VIV_BIN/vivd) on free loopback
ports, TCP and WebSocket, with fixed tokens, recording into a file of the test's own folder."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))   # the package from the source tree
BIN = pathlib.Path(os.environ.get("VIV_BIN", ROOT / "bin")).resolve()
PLAYER, ADMIN = "py-test-player", "py-test-admin"
WATCHED = "sand:seed=3:w=200,h=150"     # watched by the frame tests, never played
PLAYED = "sand:seed=4:w=64,h=48"        # the input tests' world


class Vivd:
    """A running vivd: tcp ("127.0.0.1:PORT"), ws ("ws://127.0.0.1:PORT/ws"), db, stop()."""

    def __init__(self, folder, worlds):
        self.db = folder / "run.db"
        port, http = folder / "port", folder / "http-port"
        argv = [str(BIN / "vivd"), "--listen", "127.0.0.1:0", "--port-file", str(port),
                "--http", "127.0.0.1:0", "--http-port-file", str(http), "--quiet",
                "--db", str(self.db), "--threads", "1"]
        for w in worlds:
            argv += ["--world", w]
        env = dict(os.environ, VIVD_PLAYER_TOKEN=PLAYER, VIVD_ADMIN_TOKEN=ADMIN)
        self.proc = subprocess.Popen(argv, cwd=folder, env=env, stdin=subprocess.DEVNULL)
        self.tcp = f"127.0.0.1:{self._port(port)}"
        self.ws = f"ws://127.0.0.1:{self._port(http)}/ws"

    def _port(self, file):
        """The port vivd wrote to file once it listens (within 10 s on a loaded machine)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.proc.poll() is None:
            text = file.read_text().strip() if file.exists() else ""
            if text.isdigit() and int(text):
                return int(text)
            time.sleep(0.02)
        self.proc.kill()
        raise RuntimeError(f"vivd did not start (exit status {self.proc.poll()})")

    def stop(self):
        """SIGINT, as a person stops it: vivd suspends its sessions and exits 0."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                return self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return "killed"
        return self.proc.returncode


def start_vivd(folder, *worlds):
    if not (BIN / "vivd").exists():
        pytest.fail(f"{BIN}/vivd is missing: run make all first")
    return Vivd(folder, worlds)


@pytest.fixture(scope="session")
def vivd(tmp_path_factory):
    server = start_vivd(tmp_path_factory.mktemp("vivd"), WATCHED, PLAYED)
    yield server
    assert server.stop() == 0


@pytest.fixture(params=["tcp", "ws"])
def address(request, vivd):
    """Each test that takes it runs over TCP and over WebSocket."""
    return getattr(vivd, request.param)


def world_id(client, spec):
    """The id of the world --world spec made, from the welcome."""
    kind, seed = spec.split(":")[0], int(spec.split(":")[1].split("=")[1])
    return next(w["id"] for w in client.worlds() if w["kind"] == kind and w["seed"] == seed)
