"""loopback.py — what the Python test scripts (tests/chaos.py, tests/metrics.py) share: a free
TCP port on 127.0.0.1 for a server they start. Imported as a sibling module (the scripts run as
`/usr/bin/python3 tests/NAME.py`, so tests/ is first on sys.path)."""
import socket


def free_port():
    """A port on 127.0.0.1 that nothing listens on now (the kernel's pick, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p
