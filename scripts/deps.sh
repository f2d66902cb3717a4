#!/bin/sh
# Install the Debian 12 packages Vivarium needs, and only those that are missing.
# Idempotent: a second run installs nothing and prints nothing but the summary line.
# Called first by `make run` and `make test`. Needs root (or sudo) only when something is missing.
set -eu

PKGS="build-essential pkg-config libuv1-dev libmsgpack-dev libsqlite3-dev check libxxhash-dev
libpng-dev libgif-dev clang llvm libclang-rt-14-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross
qemu-user netpbm zstd libzstd-dev sqlite3 binutils python3 tmux gifsicle imagemagick
webp libwebsockets-dev libwebsockets-evlib-uv valgrind"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
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
echo "deps: done"
