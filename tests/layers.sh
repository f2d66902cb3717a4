#!/bin/sh
# layers.sh — the arrows between folders, checked at compile time and at link time
# (ARCHITECTURE.md, "The layout"):
#
#   clients/ → wire/ → sim/        server/ → wire/ replay/ sim/        replay/ → sim/
#   pool/ → sim/ (the worker pool for parallel passes; replay/, server/ and clients/ may use it)
#   opt/ (the option tables) sees libc alone; server/ and clients/ may use it (its own block, last)
#   inside server/, the host (worlds, scheduler, acks, recording, playback) never calls the
#   network layer (connections, handlers, fan-out).
#
# Compile time: a header from a folder that a layer may not use is not on its include path
# (the Makefile's INC_<folder>), so a probe that includes one must fail to compile.
# Link time: the undefined symbols of each library, read with nm:
#   libsim.a     only libc memory and string functions beyond its own symbols: no uv_, sqlite3_,
#                msgpack_, ZSTD_, stdio, clock, thread or socket symbol, and no libm
#                transcendental (their results differ between libm versions and machines);
#   libwire.a    no uv_ or sqlite3_ symbol, nothing of server/, replay/ or clients/;
#   libpool.a    no uv_, sqlite3_, msgpack_ or ZSTD_ symbol, nothing of wire/, server/, replay/
#                or clients/ (threads are its job);
#   libreplay.a  no uv_ symbol and nothing of server/ or clients/;
#   clients      nothing of server/;
#   server host  no symbol defined by the server's network objects;
#   wasm32       sim/ and wasm/api.c compiled for wasm32-wasi (make wasm), read with llvm-nm: the
#                same rule as libsim.a (wasm/ reaches only sim/ and libc), and the module
#                bin/vivarium.wasm imports only the WASI calls libc needs to report an assert
#                (tests/wasm/imports.mjs): no clock, file, randomness or `env` symbol.
# Before the real checks, each check runs on objects that break its rule on purpose and must
# fail: a check that cannot fail is a bug.
#
# usage: layers.sh [BUILD_DIR]   (default build/default, after `make all` and `make wasm`; the
# Makefile passes CC, the INC_* flags and the WASM_* settings)
set -eu
build=${1:-build/default}   # the default build, as `make test-layers` passes it
CC=${CC:-cc}
INC_sim=${INC_sim:--Isim}
INC_wire=${INC_wire:--Iwire -Isim}
INC_pool=${INC_pool:--Ipool -Isim}
INC_replay=${INC_replay:--Ireplay -Ipool -Isim}
INC_server=${INC_server:--Iserver -Iwire -Ireplay -Ipool -Isim -Iopt}
INC_clients=${INC_clients:--Iclients -Iwire -Ireplay -Ipool -Isim -Iopt}
INC_wasm=${INC_wasm:--Isim}
WASM_CC=${WASM_CC:-clang --target=wasm32-wasi}
WASM_NM=${WASM_NM:-llvm-nm-14}
WASM_BUILD=${WASM_BUILD:-build/wasm}
WASM_MODULE=${WASM_MODULE:-bin/vivarium.wasm}
# The server's network layer: these objects may call the host; the host may not call them.
NET_OBJS=${NET_OBJS:-client.o tcp.o ws.o proto.o fanout.o network.o replay_stream.o io.o cluster.o relay.o redis.o}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "layers: $*" >&2; status=1; }

# NM: GNU nm for the host's objects; llvm-nm for wasm32 objects (same output format).
NM=nm
undefined() { $NM -u "$@" 2>/dev/null | awk 'NF && $NF !~ /:$/ {print $NF}' | sed 's/@.*//' | sort -u; }
defined()   { $NM --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRVWC]/ {print $3}' | sort -u; }

# ---- link-time rules ----------------------------------------------------------------------
# libc functions the core may call: memory and strings, nothing with a clock, a file or a lock.
SIM_ALLOW='^(__asan_.*|__ubsan_.*|__sanitizer_.*|__sancov_.*|malloc|calloc|realloc|free|memcpy|memmove|memset|memcmp|memchr|strlen|strcmp|strncmp|strchr|strrchr|strstr|sqrt|sqrtf|__assert_fail|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_)$'
libm='sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|exp|exp2|exp10|expm1|log|log2|log10|log1p|logb|pow|pow10|cbrt|hypot|erf|erfc|tgamma|lgamma|sincos|j0|j1|jn|y0|y1|yn|ldexp|frexp|scalbn|fmod|remainder|nearbyint|rint|lrint|round|lround|floor|ceil|trunc'
# Why a symbol is refused, for the message.
classify() {
    case "$1" in
        uv_*) echo "libuv" ;;
        sqlite3_*) echo "SQLite" ;;
        msgpack_*) echo "msgpack-c" ;;
        ZSTD_*) echo "zstd" ;;
        srv_*) echo "server/" ;;
        pool_*) echo "pool/" ;;
        wire_*) echo "wire/" ;;
        rpl_*) echo "replay/" ;;
        cli_*|net_*) echo "clients/" ;;
        pthread_*|thrd_*|mtx_*|cnd_*) echo "threads" ;;
        clock|clock_gettime|time|gettimeofday|nanosleep|usleep|sleep|timespec_get) echo "a clock" ;;
        socket|connect|bind|listen|accept|accept4|send|recv|sendto|recvfrom|getaddrinfo|setsockopt|poll|select|epoll_*) echo "sockets" ;;
        printf|fprintf|sprintf|snprintf|vprintf|vfprintf|vsnprintf|vsprintf|puts|fputs|putchar|fputc|fwrite|fread|fopen|fclose|fflush|fgets|getc|fgetc|perror|stdout|stderr|stdin|open|read|write|close) echo "stdio / files" ;;
        *) if echo "$1" | grep -Eq "^(__)?($libm)(f|l)?(_finite)?$"; then echo "libm transcendental"; else echo "not on the core's allow-list"; fi ;;
    esac
}

# The linker's own globals in a wasm32 object: the stack pointer is not a libc call.
WASM_ALLOW='^(__stack_pointer)$'
# check_core NAME LIB...: every undefined symbol is defined by LIB itself or allowed.
check_core() {
    name=$1; shift
    undefined "$@" > "$tmp/u"; defined "$@" > "$tmp/d"
    bad=$(comm -23 "$tmp/u" "$tmp/d" | grep -Ev "$SIM_ALLOW" | { [ "$NM" = nm ] && cat || grep -Ev "$WASM_ALLOW"; } || true)
    [ -z "$bad" ] && return 0
    for s in $bad; do echo "  $s ($(classify "$s"))"; done
    return 1
}

# check_deny REGEX LIB...: no undefined symbol matches REGEX.
check_deny() {
    re=$1; shift
    bad=$(undefined "$@" | grep -E "$re" || true)
    [ -z "$bad" ] && return 0
    for s in $bad; do echo "  $s ($(classify "$s"))"; done
    return 1
}

# check_cross HOST_OBJS... -- NET_OBJS...: the host references nothing the network objects define.
check_cross() {
    host=""; while [ "$1" != "--" ]; do host="$host $1"; shift; done; shift
    # shellcheck disable=SC2086
    undefined $host > "$tmp/hu"; defined "$@" > "$tmp/nd"
    bad=$(comm -12 "$tmp/hu" "$tmp/nd")
    [ -z "$bad" ] && return 0
    for s in $bad; do echo "  $s (defined by the network layer)"; done
    return 1
}

WIRE_DENY='^(uv_|sqlite3_|srv_|rpl_|cli_|pool_)'
POOL_DENY='^(uv_|sqlite3_|msgpack_|ZSTD_|srv_|rpl_|cli_|wire_)'
REPLAY_DENY='^(uv_|srv_|cli_)'
CLIENT_DENY='^srv_'

# ---- negative controls: each rule must catch a deliberate violation ------------------------
cat > "$tmp/bad_core.c" <<'C'
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
int uv_run(void *loop, int mode);
int sqlite3_step(void *stmt);
double bad_core(double x);
double bad_core(double x)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("%f\n", sin(x));
    pthread_create(NULL, NULL, NULL, NULL);
    return (double)socket(AF_INET, SOCK_STREAM, 0) + uv_run(NULL, 0) + sqlite3_step(NULL) + exp(x);
}
C
cat > "$tmp/bad_replay.c" <<'C'
int srv_record_tick(void *s);
int uv_now(void *loop);
int bad_replay(void);
int bad_replay(void) { return srv_record_tick(0) + uv_now(0); }
C
cat > "$tmp/net.c" <<'C'
int srv_client_send(int x);
int srv_client_send(int x) { return x + 1; }
C
cat > "$tmp/host.c" <<'C'
int srv_client_send(int x);
int host(int x);
int host(int x) { return srv_client_send(x); }
C
for f in bad_core bad_replay net host; do
    "$CC" -O1 -c "$tmp/$f.c" -o "$tmp/$f.o"
done
ar rcs "$tmp/libbad.a" "$tmp/bad_core.o"
if out=$(check_core libsim "$tmp/libbad.a"); then
    fail "negative control: a core that calls libuv, SQLite, stdio, a clock, threads, sockets and libm passed; the check is broken"
else
    for want in uv_run sqlite3_step printf clock_gettime pthread_create socket sin exp; do
        echo "$out" | grep -q "^  $want " || fail "negative control: $want was not caught (got: $(echo "$out" | tr '\n' ' '))"
    done
fi
check_deny "$REPLAY_DENY" "$tmp/bad_replay.o" > /dev/null \
    && fail "negative control: a replay object that calls server/ and libuv passed"
check_deny "$WIRE_DENY" "$tmp/bad_core.o" > /dev/null \
    && fail "negative control: a wire object that calls libuv and SQLite passed"
check_deny "$POOL_DENY" "$tmp/bad_replay.o" > /dev/null \
    && fail "negative control: a pool object that calls server/ and libuv passed"
check_cross "$tmp/host.o" -- "$tmp/net.o" > /dev/null \
    && fail "negative control: a host object that calls the network layer passed"
# wasm32: the same rule on objects read with llvm-nm, and the module's imports. The bad object
# calls libm transcendentals, a clock, a file and libuv; linked as a reactor (without libuv), the
# module imports a clock, the filesystem and randomness.
cat > "$tmp/bad_wasm.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
int uv_run(void *loop, int mode);
double bad_wasm(double x);
__attribute__((export_name("bad_wasm"))) double bad_wasm(double x)
{
    struct timespec ts;
    unsigned char r[8];
    clock_gettime(CLOCK_MONOTONIC, &ts);
    FILE *f = fopen("state.bin", "rb");
    getentropy(r, sizeof r);
    return sin(x) + cos(x) + exp(x) + pow(x, (double)ts.tv_nsec) + (f != NULL) + r[0];
}
double bad_uv(double x);
double bad_uv(double x) { return bad_wasm(x) + uv_run(NULL, 0); }
C
# shellcheck disable=SC2086
$WASM_CC -O1 -D_DEFAULT_SOURCE -c "$tmp/bad_wasm.c" -o "$tmp/bad_wasm.o"
if out=$(NM=$WASM_NM check_core wasm32 "$tmp/bad_wasm.o"); then
    fail "negative control: a wasm32 object that calls libm, a clock, stdio and libuv passed; the check is broken"
else
    for want in sin cos exp pow clock_gettime fopen uv_run; do
        echo "$out" | grep -q "^  $want " || fail "negative control: wasm32 $want was not caught (got: $(echo "$out" | tr '\n' ' '))"
    done
fi
# --allow-undefined makes uv_run an import from `env`, as a missing symbol would be.
# shellcheck disable=SC2086
$WASM_CC -mexec-model=reactor -Wl,--allow-undefined -Wl,--export=bad_uv -o "$tmp/bad.wasm" "$tmp/bad_wasm.o"
if out=$(node tests/wasm/imports.mjs "$tmp/bad.wasm" 2>&1 >/dev/null); then
    fail "negative control: a module that imports a clock, files and randomness passed the imports check"
else
    for want in clock_time_get path_open random_get "env.uv_run"; do
        echo "$out" | grep -q "$want" || fail "negative control: the module's import $want was not caught (got: $(echo "$out" | tr '\n' ' '))"
    done
fi
# Compile time: with sim/'s include path alone, a header of another layer is not found.
printf '#include "replay.h"\n' > "$tmp/probe_bad.c"
# shellcheck disable=SC2086
"$CC" $INC_sim -fsyntax-only "$tmp/probe_bad.c" 2>/dev/null \
    && fail "negative control: a sim/ file could include replay.h"
[ $status -eq 0 ] && echo "layers: negative controls caught (link: core, wire, pool, replay, host, wasm32 objects and module imports; compile: include paths)"

# ---- the real checks -----------------------------------------------------------------------
need() { [ -e "$1" ] || { fail "$1 is missing (run make all first)"; return 1; }; }

# Compile time: every folder's forbidden headers are out of reach, its own are in reach.
probe() {   # folder header expect(ok|fail)
    printf '#include "%s"\nint probe_unit;\n' "$2" > "$tmp/probe.c"
    eval "flags=\$INC_$1"
    # shellcheck disable=SC2154,SC2086
    if "$CC" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $flags -fsyntax-only "$tmp/probe.c" 2>/dev/null; then got=ok; else got=fail; fi
    [ "$got" = "$3" ] || fail "compile: $1/ including \"$2\" should $( [ "$3" = ok ] && echo compile || echo fail), but it did not (include flags: $flags)"
}
probe sim sim.h ok
for h in wire.h codec.h msg.h replay.h host.h network.h net.h cli.h pool.h; do probe sim "$h" fail; done
probe wire wire.h ok
for h in replay.h host.h network.h net.h cli.h pool.h; do probe wire "$h" fail; done
probe pool pool.h ok
probe pool sim.h ok
for h in wire.h codec.h msg.h replay.h host.h network.h net.h cli.h; do probe pool "$h" fail; done
probe replay replay.h ok
probe replay pool.h ok
for h in wire.h codec.h msg.h host.h network.h net.h cli.h; do probe replay "$h" fail; done
probe wasm sim.h ok
for h in wire.h codec.h msg.h replay.h files.h host.h network.h net.h cli.h pool.h; do probe wasm "$h" fail; done
probe server pool.h ok
probe clients pool.h ok
probe clients net.h ok
probe server host.h ok
probe server net.h fail
probe clients host.h fail
probe clients network.h fail
# Inside server/ the layers share an include path, so the rule is read from the sources: no host
# file includes the network layer's header.
for src in server/*.c; do
    case " $NET_OBJS vivd.o " in *" $(basename "$src" .c).o "*) continue ;; esac
    grep -q '^#include "network.h"' "$src" && fail "compile: $src is host code but includes network.h"
done
[ $status -eq 0 ] && echo "layers: compile: sim/ and wasm/ see only sim/; wire/ and pool/ see sim/; replay/ sees pool/ and sim/; clients/ cannot see server/; no host file includes network.h"

if need "$build/libsim.a"; then
    if out=$(check_core libsim "$build/libsim.a"); then
        echo "layers: libsim.a: $(undefined "$build/libsim.a" | wc -l) undefined symbols, all its own or libc memory and string functions"
    else
        fail "libsim.a calls what the core may not (sim/ is C11 + libc + xxhash; use sim/dmath.c for maths):"
        echo "$out" >&2
    fi
fi
if need "$build/libwire.a"; then
    if out=$(check_deny "$WIRE_DENY" "$build/libwire.a"); then echo "layers: libwire.a: no libuv, SQLite, server, replay or client symbol"
    else fail "libwire.a references symbols wire/ may not use:"; echo "$out" >&2; fi
fi
if need "$build/libpool.a"; then
    if out=$(check_deny "$POOL_DENY" "$build/libpool.a"); then echo "layers: libpool.a: no libuv, SQLite, msgpack, zstd, wire, server, replay or client symbol"
    else fail "libpool.a references symbols pool/ may not use (it sees sim/ alone):"; echo "$out" >&2; fi
fi
if need "$build/libreplay.a"; then
    if out=$(check_deny "$REPLAY_DENY" "$build/libreplay.a"); then echo "layers: libreplay.a: no libuv, server or client symbol"
    else fail "libreplay.a references symbols replay/ may not use (the verifier runs without a network):"; echo "$out" >&2; fi
fi
clients=$(for src in clients/*.c; do o="$build/clients/$(basename "$src" .c).o"; [ -e "$o" ] && echo "$o"; done || true)
if [ -n "$clients" ]; then
    # shellcheck disable=SC2086
    if out=$(check_deny "$CLIENT_DENY" $clients); then echo "layers: clients: no server symbol"
    else fail "clients/ references server/ symbols (clients speak the protocol through wire/):"; echo "$out" >&2; fi
fi
# wasm32: sim/ and wasm/ objects as make wasm compiled them, and the module they make.
wasm_objs=$(for src in sim/*.c sim/*/*.c wasm/*.c; do o="$WASM_BUILD/${src%.c}.o"; echo "$o"; done)
wasm_ok=1
for o in $wasm_objs "$WASM_MODULE"; do need "$o" || wasm_ok=0; done
if [ $wasm_ok -eq 1 ]; then
    # shellcheck disable=SC2086
    if out=$(NM=$WASM_NM check_core wasm32 $wasm_objs); then
        # shellcheck disable=SC2086
        echo "layers: wasm32 sim/ and wasm/ objects: $(NM=$WASM_NM undefined $wasm_objs | wc -l) undefined symbols, all their own, libc memory and string functions or the stack pointer"
    else
        fail "the wasm32 objects of sim/ and wasm/ call what the core may not (wasm/ reaches sim/ and libc only; use sim/dmath.c for maths):"
        echo "$out" >&2
    fi
    if out=$(node tests/wasm/imports.mjs "$WASM_MODULE" 2>&1 >/dev/null); then
        n=$(node tests/wasm/imports.mjs "$WASM_MODULE" | wc -l)
        echo "layers: $WASM_MODULE imports $n function(s), all WASI calls libc needs (no clock, file, randomness or env)"
    else
        fail "$WASM_MODULE imports what the core may not:"
        echo "$out" >&2
    fi
fi
host=""; net=""
# Objects of the sources that exist now (a build directory may hold objects of removed files).
for src in server/*.c; do
    o="$build/server/$(basename "$src" .c).o"
    [ -e "$o" ] || continue
    case " $NET_OBJS " in *" $(basename "$o") "*) net="$net $o" ;; *) host="$host $o" ;; esac
done
# vivd.c wires the two layers together (main): it is neither.
host=$(echo "$host" | tr ' ' '\n' | grep -v '/vivd\.o$' | tr '\n' ' ')
if [ -n "$net" ] && [ -n "$host" ]; then
    # shellcheck disable=SC2086
    if out=$(check_cross $host -- $net); then
        echo "layers: server: the host ($(for o in $host; do basename "$o" .o; done | tr '\n' ' ' | sed 's/ $//')) calls nothing of the network layer"
    else
        fail "server/: the host calls the network layer (report it through the host's event callbacks instead):"
        echo "$out" >&2
    fi
fi
# ---- opt/: the option tables (opt/opt.h), libc alone; server/ and clients/ may use it --------
# Compile time: opt/ sees itself alone, and only server/ and clients/ (and tests) see opt/.
# Link time: libopt.a references nothing of the other layers and no library of theirs.
# Each check first runs on a deliberate violation, which it must catch.
INC_opt=${INC_opt:--Iopt}
OPT_DENY='^(uv_|sqlite3_|msgpack_|ZSTD_|lws_|redis|sim_|srv_|rpl_|cli_|net_|wire_|pool_)'
opt_status=0
opt_fail() { fail "$@"; opt_status=1; }
# check_opt_lib LIB...: the undefined symbols that opt/ may not reference, one a line.
check_opt_lib() { undefined "$@" | grep -E "$OPT_DENY" | sed 's/^/  /;s/$/ (opt\/ is libc alone)/' || true; }
cat > "$tmp/bad_opt.c" <<'C'
int uv_run(void *loop, int mode);
int sqlite3_step(void *stmt);
int msgpack_pack_int(void *pk, int d);
int srv_log(void *s, int level, const char *fmt, ...);
int rpl_open(const char *path);
int cli_connect(void *c);
int wire_encode(void *w);
int pool_create(int n);
int sim_world_step(void *w);
int bad_opt(void);
int bad_opt(void)
{
    return uv_run(0, 0) + sqlite3_step(0) + msgpack_pack_int(0, 1) + srv_log(0, 0, "") + rpl_open("") +
           cli_connect(0) + wire_encode(0) + pool_create(1) + sim_world_step(0);
}
C
"$CC" -O1 -c "$tmp/bad_opt.c" -o "$tmp/bad_opt.o"
ar rcs "$tmp/libbadopt.a" "$tmp/bad_opt.o"
out=$(check_opt_lib "$tmp/libbadopt.a")
for want in uv_run sqlite3_step msgpack_pack_int srv_log rpl_open cli_connect wire_encode pool_create sim_world_step; do
    echo "$out" | grep -q "^  $want " || opt_fail "negative control: an opt/ object calling $want passed the opt/ link check"
done
printf '#include "sim.h"\nint probe_unit;\n' > "$tmp/probe_opt.c"
# shellcheck disable=SC2086
"$CC" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $INC_opt -Isim -fsyntax-only "$tmp/probe_opt.c" 2>/dev/null \
    || opt_fail "negative control: the compile probe cannot see sim.h even on a path that has it; the probe is broken"
printf '#include "opt.h"\nint probe_unit;\n' > "$tmp/probe_opt.c"
# shellcheck disable=SC2086
"$CC" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $INC_sim -fsyntax-only "$tmp/probe_opt.c" 2>/dev/null \
    && opt_fail "negative control: a sim/ file could include opt.h"
[ $opt_status -eq 0 ] && echo "layers: opt/ negative controls caught (link: libuv, SQLite, msgpack, sim/, server/, replay/, clients/, wire/ and pool/ calls; compile: include paths)"
probe opt opt.h ok
for h in sim.h wire.h codec.h msg.h replay.h pool.h host.h network.h net.h cli.h; do probe opt "$h" fail; done
for layer in sim wire pool replay wasm; do probe "$layer" opt.h fail; done
probe server opt.h ok
probe clients opt.h ok
if need "$build/libopt.a"; then
    out=$(check_opt_lib "$build/libopt.a")
    if [ -z "$out" ]; then
        echo "layers: opt/ sees itself alone and only server/ and clients/ see it; libopt.a: no libuv, SQLite, msgpack, zstd, sim, server, replay, client, wire or pool symbol"
    else
        fail "libopt.a references symbols opt/ may not use (the option tables are libc alone):"
        echo "$out" >&2
    fi
fi

[ $status -eq 0 ] && echo "layers: ok"
exit $status
