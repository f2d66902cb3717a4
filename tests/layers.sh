#!/bin/sh
# layers.sh — the arrows between folders, checked at compile time and at link time
# (docs/ARCHITECTURE.md, "The layers and their arrows"):
#
#   clients/ → wire/ → sim/        server/ → wire/ replay/ sim/        replay/ → sim/
#   pool/ → sim/ (the worker pool for parallel passes; replay/, server/ and clients/ may use it)
#   inside sim/: core (sim/*) → toolkit (sim/anim/) → kinds (sim/<kind>/), and no kind → another
#   kind, read from what each file includes ($CC -MM; the section "sim/'s rooms" below).
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
#   server net   the network core (NET_CORE_OBJS: connections, handlers, fan-out, transports) no
#                cluster, relay, Redis, recorder or replay symbol, and nothing the cluster's
#                objects define: the cluster is a layer above it and plugs in through the hooks
#                it installs (server/network.h, srv_net_hooks); nor does a network core file
#                include cluster.h;
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
NET_OBJS=${NET_OBJS:-client.o tcp.o ws.o proto.o fanout.o tiles.o network.o replay_stream.o timeline.o io.o guess.o http_head.o metrics.o cluster.o cluster_msg.o cluster_ops.o relay.o redis.o}
# Of them, the network core, and the cluster above it (which the core reaches only through hooks).
NET_CORE_OBJS=${NET_CORE_OBJS:-client.o tcp.o ws.o proto.o fanout.o tiles.o network.o timeline.o io.o guess.o http_head.o metrics.o}
CLUSTER_OBJS=${CLUSTER_OBJS:-cluster.o cluster_ops.o relay.o redis.o}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "layers: $*" >&2; status=1; }

# NM: GNU nm for the host's objects; llvm-nm for wasm32 objects (same output format).
NM=nm
undefined() { $NM -u "$@" 2>/dev/null | awk 'NF && $NF !~ /:$/ {print $NF}' | sed 's/@.*//' | sort -u; }
defined()   { $NM --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRVWC]/ {print $3}' | sort -u; }

# ---- sim/'s rooms: core → toolkit → kinds ---------------------------------------------------
# Inside sim/ the includes point one way (docs/ADDING-A-WORLD.md): the core (sim/*.c, sim/*.h:
# the contract) includes nothing of the toolkit (sim/anim/) or of a kind (sim/<kind>/); the
# toolkit includes nothing of a kind; a kind includes nothing of another kind; and nothing in
# sim/ includes a file outside it. Include paths cannot say this: -Isim, which every room needs
# for sim.h, reaches every folder below it ("anim/verlet.h", "sand/sand.h"), and a quoted include
# is looked up beside the including file first ("../sand/sand.h"). So the rule reads what each
# .c and .h really reaches, however the include is spelt: `$CC -MM` with sim/'s include flags
# (the Makefile's INC_sim), every header it lists (directly or through another) put in its room.
# Its own probe first: a sim/ tree built to break each arrow must be caught, file by file.

# rooms_violations: run where sim/ is a subfolder; prints one line for each header a file of
# sim/ reaches that its room may not include (nothing when every arrow holds). One $CC -MM reads
# every file; awk puts each path in its room: core (sim/*), anim (sim/anim/…), kind:<name>
# (sim/<name>/…) or outside.
rooms_violations() {
    files=$(find sim -name '*.[ch]' | LC_ALL=C sort)
    # kinds.h and errors.h are X-macros that refuse to be read without their macros
    xmacros="-DSIM_KIND(name)= -DSIM_ERROR(n,v,t)= -DSIM_ERROR_RANGE(a,b,p)="
    # shellcheck disable=SC2086
    if ! deps=$("$CC" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $INC_sim $xmacros \
            -MM -x c $files 2>/dev/null); then
        for f in $files; do
            # shellcheck disable=SC2086
            "$CC" -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $INC_sim $xmacros -MM \
                -x c "$f" > /dev/null 2>&1 \
                || echo "  $f: its includes cannot be read ($CC -MM $INC_sim fails: compile it to see why)"
        done
        return
    fi
    # A rule is "target: file dep dep …" (continued lines end in \); a path is made plain
    # (sim/merge/../anim/x.h is sim/anim/x.h) before its room is read.
    echo "$deps" | tr -d '\134' | tr -s '[:blank:]' '\n' | awk -v pwd="$(pwd)/" '
        function plain(p,   n, i, k, part, out) {
            if (index(p, pwd) == 1) p = substr(p, length(pwd) + 1)
            n = split(p, part, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (part[i] == "" && i == 1) { out[++k] = ""; continue }
                if (part[i] == "" || part[i] == ".") continue
                if (part[i] == ".." && k > 0 && out[k] != ".." && out[k] != "") { k--; continue }
                out[++k] = part[i]
            }
            p = ""
            for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
            return p
        }
        function room(p,   n, part) {
            if (substr(p, 1, 4) != "sim/") return "outside"
            n = split(substr(p, 5), part, "/")
            if (n == 1) return "core"
            if (part[1] == "anim") return "anim"
            return "kind:" part[1]
        }
        $0 == "" { next }
        /:$/ { file = ""; next }
        file == "" { file = plain($0); from = room(file); next }
        {
            d = plain($0); to = room(d)
            if (to == "core" || to == from || (to == "anim" && from ~ /^kind:/)) next
            if (to == "outside") why = "outside sim/ (the core sees sim/ alone)"
            else if (from == "core") why = "the core includes nothing of the toolkit or a kind"
            else if (from == "anim") why = "the toolkit includes nothing of a kind"
            else why = "a kind includes nothing of another kind"
            print "  " file " reaches " d ": " why
        }'
}

# The probe: a tree with a good file in each room and every arrow broken once, spelt each way
# (through -Isim, beside the file with ../, through a header of the kind's own).
for d in sim/anim sim/sand sim/merge sim/garden wire; do mkdir -p "$tmp/rooms/$d"; done
printf 'int probe_sim;\n' > "$tmp/rooms/sim/sim.h"
printf 'int probe_wire;\n' > "$tmp/rooms/wire/wire.h"
printf '#include "sim.h"\nint probe_tool;\n' > "$tmp/rooms/sim/anim/tool.h"
printf '#include "sim.h"\nint probe_sand;\n' > "$tmp/rooms/sim/sand/sand.h"
printf '#include "sim.h"\nint probe_garden;\n' > "$tmp/rooms/sim/garden/garden.h"
printf '#include "sim.h"\nint core_ok;\n' > "$tmp/rooms/sim/core_ok.c"
printf '#include "tool.h"\n#include "sim.h"\nint tool_ok;\n' > "$tmp/rooms/sim/anim/tool_ok.c"
printf '#include "sand.h"\n#include "anim/tool.h"\nint sand_ok;\n' > "$tmp/rooms/sim/sand/sand_ok.c"
printf '#include "anim/tool.h"\nint bad_core;\n' > "$tmp/rooms/sim/bad_core.c"
printf '#include "sand/sand.h"\n' > "$tmp/rooms/sim/bad_core.h"
printf '#include "../sand/sand.h"\nint bad_tool;\n' > "$tmp/rooms/sim/anim/bad_tool.c"
printf '#include "../../wire/wire.h"\nint bad_out;\n' > "$tmp/rooms/sim/anim/bad_out.c"
printf '#include "sand/sand.h"\nint bad_kind;\n' > "$tmp/rooms/sim/merge/bad_kind.c"
printf '#include "anim/tool.h"\n#include "../garden/garden.h"\n' > "$tmp/rooms/sim/merge/merge.h"
printf '#include "merge.h"\nint bad_via;\n' > "$tmp/rooms/sim/merge/bad_via.c"
out=$(cd "$tmp/rooms" && rooms_violations)
if [ -z "$out" ]; then
    fail "negative control: a sim/ tree whose rooms include what they may not passed; the rooms check is broken"
else
    for want in "sim/bad_core.c reaches sim/anim/tool.h" "sim/bad_core.h reaches sim/sand/sand.h" \
            "sim/anim/bad_tool.c reaches sim/sand/sand.h" "sim/anim/bad_out.c reaches wire/wire.h" \
            "sim/merge/bad_kind.c reaches sim/sand/sand.h" \
            "sim/merge/merge.h reaches sim/garden/garden.h" \
            "sim/merge/bad_via.c reaches sim/garden/garden.h"; do
        echo "$out" | grep -qF "  $want:" \
            || fail "negative control: rooms: '$want' was not caught (got: $(echo "$out" | tr '\n' ' '))"
    done
    echo "$out" | grep -q '_ok\.c' \
        && fail "negative control: rooms: an allowed include was refused: $(echo "$out" | grep '_ok\.c' | tr '\n' ' ')"
fi
[ $status -eq 0 ] && echo "layers: negative control caught (sim/'s rooms: a core file and header, a toolkit file and a kind file and header including what they may not, and a toolkit file reaching outside sim/)"
out=$(rooms_violations)
if [ -z "$out" ]; then
    kinds=$(find sim -mindepth 1 -maxdepth 1 -type d ! -name anim | sed 's#^sim/##' | LC_ALL=C sort | tr '\n' ' ')
    echo "layers: sim/'s rooms: $(find sim -name '*.[ch]' | wc -l) files read with $CC -MM; the core includes only the core, sim/anim/ no kind, no kind another (${kinds% })"
else
    fail "sim/'s rooms: an include points the wrong way (core → toolkit → kinds; docs/ADDING-A-WORLD.md):"
    echo "$out" >&2
fi

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
    for s in $bad; do echo "  $s (defined by ${CROSS_WHAT:-the network layer})"; done
    return 1
}

# includes_cluster DIR: the network core's sources in DIR that include cluster.h (printed); 0 if any.
includes_cluster() {
    found=1
    for o in $NET_CORE_OBJS; do
        src="$1/$(basename "$o" .o).c"
        [ -e "$src" ] || continue
        if grep -q '^#include "cluster.h"' "$src"; then echo "  $src"; found=0; fi
    done
    return $found
}

WIRE_DENY='^(uv_|sqlite3_|srv_|rpl_|cli_|pool_)'
POOL_DENY='^(uv_|sqlite3_|msgpack_|ZSTD_|srv_|rpl_|cli_|wire_)'
REPLAY_DENY='^(uv_|srv_|cli_)'
CLIENT_DENY='^srv_'
NET_CORE_DENY='^(srv_cluster_|srv_relay_|srv_redis_|srv_record_|rpl_|redis[A-Z])'

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
# ---- the network core and the cluster above it: a core object that calls the relay, the
# recorder and the replay library by name, and one that calls a function a cluster object defines.
cat > "$tmp/bad_netcore.c" <<'C'
struct srv_client;
void srv_relay_forward(struct srv_client *c, const char *node, const long long *seq);
int srv_record_failing(void *s);
int rpl_open(const char *path, void **out);
int cluster_helper(int x);
int bad_netcore(struct srv_client *c);
int bad_netcore(struct srv_client *c)
{
    srv_relay_forward(c, "node", 0);
    return srv_record_failing(0) + rpl_open("x", 0) + cluster_helper(1);
}
C
cat > "$tmp/cluster_probe.c" <<'C'
int cluster_helper(int x);
int cluster_helper(int x) { return x + 2; }
C
"$CC" -O1 -c "$tmp/bad_netcore.c" -o "$tmp/bad_netcore.o"
"$CC" -O1 -c "$tmp/cluster_probe.c" -o "$tmp/cluster_probe.o"
if out=$(check_deny "$NET_CORE_DENY" "$tmp/bad_netcore.o"); then
    fail "negative control: a network core object that calls the relay, the recorder and replay/ passed"
else
    for want in srv_relay_forward srv_record_failing rpl_open; do
        echo "$out" | grep -q "^  $want " || fail "negative control: network core $want was not caught (got: $(echo "$out" | tr '\n' ' '))"
    done
fi
check_cross "$tmp/bad_netcore.o" -- "$tmp/cluster_probe.o" > /dev/null \
    && fail "negative control: a network core object that calls a cluster object's function passed"
mkdir -p "$tmp/server"
printf '#include "cluster.h"\n' > "$tmp/server/proto.c"
includes_cluster "$tmp/server" > /dev/null \
    || fail "negative control: a network core file that includes cluster.h passed"
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
[ $status -eq 0 ] && echo "layers: negative controls caught (link: core, wire, pool, replay, host, network core, wasm32 objects and module imports; compile: include paths, cluster.h in the network core)"

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
# The network core reaches the cluster only through the hooks the cluster installs.
core=""; above=""
for o in $NET_CORE_OBJS; do [ -e "$build/server/$o" ] && core="$core $build/server/$o"; done
for o in $CLUSTER_OBJS; do [ -e "$build/server/$o" ] && above="$above $build/server/$o"; done
if [ -n "$core" ] && [ -n "$above" ]; then
    # shellcheck disable=SC2086
    if out=$(check_deny "$NET_CORE_DENY" $core) && out=$(CROSS_WHAT="the cluster's objects" check_cross $core -- $above); then
        echo "layers: server: the network core ($(for o in $core; do basename "$o" .o; done | tr '\n' ' ' | sed 's/ $//')) calls nothing of the cluster, relay, Redis, recorder or replay/"
    else
        fail "server/: the network core calls the layer above it or the recorder (call a hook of srv_net_hooks, which the cluster installs, or a host function):"
        echo "$out" >&2
    fi
    if out=$(includes_cluster server); then
        fail "server/: network core files include cluster.h (the core knows the cluster only through network.h's hooks):"
        echo "$out" >&2
    fi
else
    fail "the network core's or the cluster's objects are missing in $build/server (run make all first)"
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
