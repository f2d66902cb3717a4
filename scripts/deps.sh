#!/bin/sh
# Install the Debian 12 packages Vivarium needs, and only those that are missing; then the
# browser tests' npm packages (tests/browser/package-lock.json), unless node_modules already
# holds exactly what that lock file pins.
# Idempotent: a second run installs nothing and prints nothing but the summary line.
# Called first by `make run` and `make test`. Needs root (or sudo) only when something is missing.
set -eu

PKGS="build-essential pkg-config libuv1-dev libmsgpack-dev libsqlite3-dev check libxxhash-dev
libpng-dev libgif-dev clang llvm libclang-rt-14-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
qemu-user netpbm zstd libzstd-dev sqlite3 binutils python3 tmux gifsicle imagemagick
webp libwebp-dev libwebsockets-dev libwebsockets-evlib-uv chromium valgrind
wasi-libc lld-14 libclang-rt-14-dev-wasm32
help2man man-db systemd curl
redis-server libhiredis-dev python3-prometheus-client
python3-msgpack python3-zstandard python3-xxhash python3-pytest python3-numpy python3-venv python3-pip"
# Node and npm, for the page's tests: Debian's (Node 18) only when there is none; a newer Node
# installed some other way stays. The tests run on both: playwright-core is pinned at 1.61.1,
# the newest that supports Node 18.
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

# The browser tests' packages: `npm ci` from the lock file, only when node_modules does not hold
# what it pins (a copy of the lock file is kept in node_modules after a good install). No install
# scripts run and no browser is downloaded: the tests drive Debian's /usr/bin/chromium.
npm_packages() {
    web=$(cd "$(dirname "$0")/../tests/browser" && pwd)
    if cmp -s "$web/package-lock.json" "$web/node_modules/.vivarium-lock" 2>/dev/null; then
        return 0
    fi
    echo "deps: npm ci in tests/browser (playwright-core, as package-lock.json pins it)"
    (cd "$web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    cp "$web/package-lock.json" "$web/node_modules/.vivarium-lock"
}

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    npm_packages
    echo "deps: all packages present"
    exit 0
fi

echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "deps: need root to install:$missing (run as root, or install them by hand)" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when an install fails for want of them.
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y -q --no-install-recommends $missing; then
    $SUDO apt-get update -q
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi
npm_packages
echo "deps: done"
