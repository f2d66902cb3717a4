# Vivarium — plain Makefile (Redis/Box2D style). `make help` lists the targets.
#
#   make                 build everything (bin/viv)
#   make run             install missing Debian packages, build, start the demo
#   make test            install missing packages, build, run every test (incl. test-cross)
#   make test-cross      determinism matrix: gcc -O0, gcc -O2, clang -O3, aarch64 under qemu,
#                        wasm32 under Node
#   make wasm            bin/vivarium.wasm, sim/ for the page (wasm/wasm.mk); make test-wasm tests it
#   make test-tsan       sand's parallel passes under ThreadSanitizer (2, 3, 4, 8 workers)
#   make bench           benchmarks; results go to bench/RESULTS.md by hand from bench/out/
#   make SANITIZE=address,undefined test   the same tests under sanitizers (separate build dir)
#   make fuzz FUZZ_SECONDS=N   the libFuzzer decoder targets, N seconds each (tests/fuzz/README.md)
#   make test-san        every Check suite, cli.sh and view.sh under ASan+UBSan (make test runs it)
#   make test-web        the browser viewer: its modules in Node, then the page in Chromium
#   make test-python     the Python client package (clients/python) with pytest, against a real vivd
#   make test-chaos      the cluster's chaos soak with a fixed seed, about a minute (make test runs it)
#   make test-full-disk  vivd recording onto a small tmpfs that fills and empties (root: it mounts)
#   make soak            the chaos soak with a random seed, printed: SOAK_SECONDS=1800 (default 600),
#                        SOAK_SEED=N replays one (tests/chaos.py; docs/ARCHITECTURE.md, the chaos soak)
#   make web-screenshot  copy the screenshot test-web takes to docs/web-viewer.png (the README's)
#   make web-vendor      refresh the page's vendored JavaScript (clients/web/vendor/) from npm
#   make install         vivd, viv, the page, man pages and vivd.service under PREFIX (/usr/local)
#                        and DESTDIR; make uninstall removes them (dist/install.mk)

CC       ?= cc
OPT      ?= -O2 -g
SANITIZE ?=
DEPS_SCRIPT := scripts/deps.sh

WARN     := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wno-unused-parameter -Werror
# Determinism rules for every file that links sim/: no FMA contraction, no fast-math, and sqrt
# inlined as the (correctly rounded) hardware instruction.
DET      := -ffp-contract=off -fno-math-errno
# Each folder compiles with only the include paths it may use (the arrows of docs/ARCHITECTURE.md):
# sim/ sees itself alone; wire/ and pool/ see sim/; replay/ sees pool/ and sim/; opt/ (the
# option tables) sees itself alone; server/ and clients/ see the layers below and opt/. Inside
# sim/, -Isim reaches every room (core, anim/, each kind), so the arrows between them are read
# from what each file includes instead (tests/layers.sh, $(CC) -MM).
# Tests, benchmarks and fuzz targets may reach anything.
BASE_CPPFLAGS := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -MMD -MP
INC_sim     := -Isim
INC_wire    := -Iwire -Isim
INC_pool    := -Ipool -Isim
INC_replay  := -Ireplay -Ipool -Isim
INC_opt     := -Iopt
INC_server  := -Iserver -Iwire -Ireplay -Ipool -Isim -Iopt
INC_clients := -Iclients -Iwire -Ireplay -Ipool -Isim -Iopt
INC_tests   := -Itests -Iclients -Iserver -Iwire -Ireplay -Ipool -Isim -Iopt
INC_bench   := $(INC_tests)
CPPFLAGS := $(BASE_CPPFLAGS) $(INC_tests)

ifeq ($(SANITIZE),)
  BUILD  ?= build/default
  BIN    ?= bin
  SAN    :=
else
  BUILD  ?= build/san
  BIN    ?= $(BUILD)/bin
  SAN    := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

CFLAGS   := $(OPT) $(WARN) $(DET) $(SAN)
LDFLAGS  := $(SAN)

PNG_CFLAGS   := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS     := $(shell pkg-config --libs libpng 2>/dev/null) -lgif
# Animated WebP export (replay/webp.c): libwebp's WebPAnimEncoder lives in libwebpmux; libwebpdemux
# only for the Check suite that decodes it. Linked wherever the PNG and GIF writers are.
WEBP_CFLAGS  := $(shell pkg-config --cflags libwebpmux libwebpdemux 2>/dev/null)
WEBP_LIBS    := $(shell pkg-config --libs libwebpmux libwebpdemux libwebp 2>/dev/null || echo -lwebpmux -lwebpdemux -lwebp)
PNG_CFLAGS   += $(WEBP_CFLAGS)
PNG_LIBS     += $(WEBP_LIBS)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null)
ZSTD_LIBS    := $(shell pkg-config --libs libzstd 2>/dev/null)
ZLIB_LIBS    := $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)
UV_LIBS      := $(shell pkg-config --libs libuv 2>/dev/null)
MSGPACK_LIBS := $(shell pkg-config --libs msgpack 2>/dev/null)
SQLITE_LIBS  := $(shell pkg-config --libs sqlite3 2>/dev/null) -lpthread
LWS_CFLAGS   := $(shell pkg-config --cflags libwebsockets 2>/dev/null)
LWS_LIBS     := $(shell pkg-config --libs libwebsockets 2>/dev/null || echo -lwebsockets)
HIREDIS_LIBS := $(shell pkg-config --libs hiredis 2>/dev/null || echo -lhiredis)

# sim/'s three rooms: the core (sim/*.c), the animation toolkit (sim/anim/*.c) and one folder per
# kind (sim/<kind>/*.c); sim/*/*.c holds the last two.
SIM_SRC     := $(sort $(wildcard sim/*.c sim/*/*.c))
WIRE_SRC    := $(sort $(wildcard wire/*.c))
POOL_SRC    := $(sort $(wildcard pool/*.c))
OPT_SRC     := $(sort $(wildcard opt/*.c))
VIVD_SRC    := $(sort $(wildcard server/*.c))
REPLAY_SRC  := $(sort $(wildcard replay/*.c))
CLILIB_SRC  := clients/net.c clients/websocket.c clients/cli_common.c
CLIENT_SRC  := $(filter-out $(CLILIB_SRC),$(sort $(wildcard clients/*.c)))
TEST_SRC    := $(sort $(wildcard tests/check_*.c)) tests/e2e.c tests/script.c tests/wsc.c tests/srv_rig.c \
               tests/ck_mark.c

SIM_OBJ     := $(SIM_SRC:%.c=$(BUILD)/%.o)
WIRE_OBJ    := $(WIRE_SRC:%.c=$(BUILD)/%.o)
POOL_OBJ    := $(POOL_SRC:%.c=$(BUILD)/%.o)
OPT_OBJ     := $(OPT_SRC:%.c=$(BUILD)/%.o)
VIVD_OBJ    := $(VIVD_SRC:%.c=$(BUILD)/%.o)
REPLAY_OBJ  := $(REPLAY_SRC:%.c=$(BUILD)/%.o)
CLIENT_OBJ  := $(CLIENT_SRC:%.c=$(BUILD)/%.o)
CLILIB_OBJ  := $(CLILIB_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ    := $(TEST_SRC:%.c=$(BUILD)/%.o)

LIBSIM      := $(BUILD)/libsim.a
LIBREPLAY   := $(BUILD)/libreplay.a
LIBWIRE     := $(BUILD)/libwire.a
# The worker pool that runs a world's parallel passes (pool/pool.h): linked by every host.
LIBPOOL     := $(BUILD)/libpool.a
# The option tables' parser and --help (opt/opt.h): linked by vivd and viv.
LIBOPT      := $(BUILD)/libopt.a
LIBCLI      := $(BUILD)/libcli.a
# vivd without its main(), so that the Check suites can reach the ack queue, the handler table and
# fan-out directly (tests/check_acks.c, check_handlers.c, check_fanout.c).
SRVLIB_OBJ  := $(filter-out $(BUILD)/server/vivd.o,$(VIVD_OBJ))
LIBSRV      := $(BUILD)/libsrv.a

.PHONY: all deps run test check test-unit test-cli test-view test-layers test-docs test-cross test-tsan test-campaign bench golden clean help
.PHONY: test-chaos soak test-metrics test-full-disk test-python
.PHONY: check-fast check-slow test-san san-build test-san-fast test-san-fast-a test-san-fast-b test-san-fast-c test-san-slow test-san-scripts test-web web-screenshot
all: $(BIN)/viv $(BIN)/vivd

deps:
	@sh $(DEPS_SCRIPT)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CPPFLAGS) $(INC_$(firstword $(subst /, ,$<))) $(CFLAGS) $(EXTRA_CFLAGS_$(firstword $(subst /, ,$<))) -c $< -o $@

# server/hash_wide.c alone may use AVX2, and hash_wide512.c AVX-512 (on x86-64; vivd checks the
# CPU before calling either).
ifneq ($(findstring x86_64,$(shell $(CC) -dumpmachine 2>/dev/null)),)
$(BUILD)/server/hash_wide.o: CFLAGS += -mavx2
$(BUILD)/server/hash_wide512.o: CFLAGS += -mavx512f
endif

EXTRA_CFLAGS_replay  = $(PNG_CFLAGS)
EXTRA_CFLAGS_server  = $(LWS_CFLAGS)
EXTRA_CFLAGS_tests   = $(CHECK_CFLAGS)

$(LIBSIM): $(SIM_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBREPLAY): $(REPLAY_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBWIRE): $(WIRE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBPOOL): $(POOL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBOPT): $(OPT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBSRV): $(SRVLIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBCLI): $(CLILIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN)/viv: $(CLIENT_OBJ) $(LIBCLI) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLIENT_OBJ) $(LIBCLI) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM) $(PNG_LIBS) $(UV_LIBS) $(ZSTD_LIBS) $(ZLIB_LIBS) $(SQLITE_LIBS)

$(BIN)/vivd: $(VIVD_OBJ) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(VIVD_OBJ) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM) $(LWS_LIBS) $(HIREDIS_LIBS) $(UV_LIBS) $(ZSTD_LIBS) $(PNG_LIBS) $(SQLITE_LIBS)

# Check's mark points, each place once rather than once per pass of a loop (tests/ck_mark.c).
$(TEST_OBJ): EXTRA_CFLAGS_tests += -D_mark_point=viv_mark_point
# (A build from before it rebuilds the objects, which then call viv_mark_point.)
$(TEST_OBJ): tests/ck_mark.c
$(BUILD)/check_all: $(TEST_OBJ) $(LIBSRV) $(LIBCLI) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(LIBSRV) $(LIBCLI) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM) $(CHECK_LIBS) $(PNG_LIBS) $(ZSTD_LIBS) $(MSGPACK_LIBS) $(SQLITE_LIBS) $(LWS_LIBS) $(HIREDIS_LIBS) $(UV_LIBS) -lm

# ---- tests ------------------------------------------------------------------------------------
# CK_RUN_SUITE=name runs one suite: `make check CK_RUN_SUITE=sand`.
# Each stage says how long it took, so that the 25-minute budget can be watched.
STAGE_TIME = s=$$(date +%s); $(1) && echo "make test: $(2) took $$(( $$(date +%s) - s )) s"
test: deps
	@$(call STAGE_TIME,$(MAKE) --no-print-directory all $(BUILD)/check_all,the build)
	@$(call STAGE_TIME,$(MAKE) --no-print-directory -j2 -O test-layers test-docs check-fast check-slow test-cli test-reports test-view test-wasm test-web test-chaos test-install test-metrics test-full-disk test-python,the suites and scripts)
	@$(call STAGE_TIME,$(MAKE) --no-print-directory -j3 -O test-cross test-tsan test-campaign,the determinism matrix with TSan and the campaign)
ifeq ($(SANITIZE),)
	@$(call STAGE_TIME,$(MAKE) --no-print-directory -j3 -O test-san test-fuzz,ASan+UBSan with the fuzzers)
endif
	@echo "make test: all passed"

check: $(BUILD)/check_all
	cd tests && CK_DEFAULT_TIMEOUT=600 VIV_BIN=../$(BIN) ../$(BUILD)/check_all

test-unit: check

# The suites split by speed, so that `make test` runs the wall-clock ones (tag "slow": the robust
# fault and load tests, mostly waiting) beside the CPU-bound ones.
check-fast: $(BUILD)/check_all
	cd tests && CK_EXCLUDE_TAGS=slow CK_DEFAULT_TIMEOUT=600 VIV_BIN=../$(BIN) ../$(BUILD)/check_all

check-slow: $(BUILD)/check_all $(BIN)/vivd
	cd tests && CK_INCLUDE_TAGS=slow CK_DEFAULT_TIMEOUT=600 VIV_BIN=../$(BIN) ../$(BUILD)/check_all

# Every suite, and the command-line and viewer scripts, under ASan+UBSan, in its own build directory: LeakSanitizer turns a leak in vivd
# into a non-zero exit, which the end-to-end tests check. `make test` runs the two halves and the
# fuzzers (test-fuzz, niced) side by side: `make -j3 test-san test-fuzz`.
SAN_BUILD ?= build/san
SAN_VARS  := SANITIZE=address,undefined BUILD=$(SAN_BUILD) BIN=$(SAN_BUILD)/bin
san-build:
	$(MAKE) --no-print-directory $(SAN_VARS) all $(SAN_BUILD)/check_all
# The CPU-bound half runs as three processes, so that it keeps both cores busy to its end: the
# four suites that take longest (about 40% of check-fast's time), the next seven (about 40%), and
# all the others. With two, the second part (60%) ran alone on one core for its last several
# minutes after everything else was done: the stage took 1,234 s in a clean-clone CI of
# 2026-12-07, and 889 s with three in the next one an hour later (the whole of make test 33 → 26
# minutes, clone and set-up included). Since Check's mark points go once per place (tests/ck_mark.c)
# the three take 164 s of wall and 270 CPU-s together (about 1,310 CPU-s before), and the fuzzers,
# two at a time (tests/fuzz/run.sh), are what the stage waits for.
SAN_SPLIT   := server,sand,terrarium,raster
SAN_SPLIT_B := cycle,record,ws,sand_render,timeline,garden,kinds
test-san-fast: test-san-fast-a test-san-fast-b test-san-fast-c
test-san-fast-a: san-build
	VIV_SUITES=$(SAN_SPLIT) $(MAKE) --no-print-directory $(SAN_VARS) check-fast
test-san-fast-b: san-build
	VIV_SUITES=$(SAN_SPLIT_B) $(MAKE) --no-print-directory $(SAN_VARS) check-fast
test-san-fast-c: san-build
	VIV_SUITES_SKIP=$(SAN_SPLIT),$(SAN_SPLIT_B) $(MAKE) --no-print-directory $(SAN_VARS) check-fast
test-san-slow: san-build
	$(MAKE) --no-print-directory $(SAN_VARS) check-slow
test-san-scripts: san-build
	$(MAKE) --no-print-directory $(SAN_VARS) test-cli test-view test-reports
test-san: test-san-fast test-san-slow test-san-scripts

# The arrows between folders (tests/layers.sh): include paths at compile time, nm at link time.
test-layers: $(BIN)/viv $(BIN)/vivd wasm
	CC="$(CC)" INC_sim="$(INC_sim)" INC_wire="$(INC_wire)" INC_pool="$(INC_pool)" INC_replay="$(INC_replay)" \
	    INC_server="$(INC_server)" INC_clients="$(INC_clients)" INC_wasm="$(INC_wasm)" INC_opt="$(INC_opt)" \
	    WASM_CC="$(WASM_CC)" WASM_NM="$(WASM_NM)" WASM_BUILD="$(WASM_BUILD)" WASM_MODULE="$(WASM_MODULE)" \
	    sh tests/layers.sh $(BUILD)

# Every relative link of the Markdown resolves, and the map (docs/ARCHITECTURE.md) is there.
test-docs:
	sh tests/docs.sh

test-cli: $(BIN)/viv $(BIN)/vivd
	sh tests/cli.sh $(BIN)/viv

test-view: $(BIN)/viv $(BIN)/vivd
	sh tests/view.sh $(BIN)

# The reports for CI (tests/reports.sh): verify --junit/--json and fuzz --junit, parsed by python3.
test-reports: $(BIN)/viv
	sh tests/reports.sh $(BIN)/viv
.PHONY: test-reports

# The browser viewer (clients/web/): its modules in Node against recorded streams and a live vivd
# (tests/web/), then the page itself in Debian's Chromium, headless, driven by playwright-core
# against a real vivd on a free loopback port (tests/browser/; scripts/deps.sh installs chromium,
# node and the pinned npm packages). 63 to 102 s on a 2-core machine shared with other builds;
# 86 to 103 s with the page's verifier and local world (issue 19: tests/web/replay, local;
# tests/browser/verify).
test-web: $(BIN)/viv $(BIN)/vivd
	VIV_BIN=$(BIN) node --test tests/web/
	VIV_BIN=$(BIN) node --test tests/browser/

# The README's picture of the page, from test-web's last run (it is not overwritten by a test run,
# since every run shows another tick).
web-screenshot:
	@test -f build/browser/web-viewer.png || { echo "run make test-web first"; exit 1; }
	cp build/browser/web-viewer.png docs/web-viewer.png

# The chaos soak (tests/chaos.py, issue 28): a redis-server, three world nodes and two relays on
# loopback, bots that play and watch, and the faults of a schedule drawn from the seed (kill -9 and
# restart, SIGSTOP pauses, slow readers, a node's disk full: each node records onto a tmpfs, so
# root mounts them, else those faults are skipped, said so); then the invariants (no acknowledged
# input lost, every file verifies, every full disk stops and resumes recording, every watcher
# recovers, no crash, no fd leak). `make test` runs 40 s of faults with a fixed seed whose
# schedule has each kind of fault (42 s in all, measured); `make soak` runs SOAK_SECONDS with a
# random seed, which it prints first (SOAK_SEED=N runs that one again).
CHAOS_SEED    ?= 12
CHAOS_SECONDS ?= 40
SOAK_SECONDS  ?= 600
SOAK_SEED     ?=
test-chaos: $(BIN)/viv $(BIN)/vivd
	/usr/bin/python3 tests/chaos.py --bin $(BIN) --seed $(CHAOS_SEED) --seconds $(CHAOS_SECONDS)

soak: $(BIN)/viv $(BIN)/vivd
	/usr/bin/python3 tests/chaos.py --bin $(BIN) $(if $(SOAK_SEED),--seed $(SOAK_SEED)) --seconds $(SOAK_SECONDS)

# The operator's endpoints (tests/metrics.py, issue 31): a real vivd's /metrics read with Debian's
# python3-prometheus-client parser while bots watch and play, /healthz 503 while another process
# locks the replay file, and a relay's endpoints with a redis-server. About 15 s.
test-metrics: $(BIN)/viv $(BIN)/vivd
	/usr/bin/python3 tests/metrics.py --bin $(BIN)
# A full disk (tests/full_disk.py, issue 32): a real vivd recording two worlds onto an 8 MiB tmpfs
# that a filler file fills for 3.5 s while players play and viewers watch; then the log's lines,
# the refusals, the frames, verify's gaps and 0 acknowledged inputs lost. About 7 s. Mounting needs
# root (CI runs as root); where it is refused the script prints SKIP and why, and exits 0.
test-full-disk: $(BIN)/viv $(BIN)/vivd
	/usr/bin/python3 tests/full_disk.py --bin $(BIN)
# The Python client package (clients/python, `vivarium`) with Debian's pytest, against a real vivd
# on free loopback ports (TCP and WebSocket), replay files of vivd and `viv sim --record`, and a
# pip install into a venv (tests/python/). About 10 s.
test-python: $(BIN)/viv $(BIN)/vivd
	VIV_BIN=$(BIN) /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python

# The determinism campaign: random sessions of every kind for CAMPAIGN_SECONDS, three ways each,
# with a fresh seed printed first (`viv fuzz --seed S` repeats a failure).
CAMPAIGN_SECONDS ?= 120
test-campaign: $(BIN)/viv
	$(BIN)/viv fuzz --seconds $(CAMPAIGN_SECONDS) --ticks 600 --out build/fuzz-campaign --quiet

test-cross:
	sh tests/cross.sh

test-tsan:
	sh tests/tsan.sh

golden: $(BIN)/viv
	sh tests/golden.sh $(BIN)/viv

# ---- benchmarks ---------------------------------------------------------------------------------
bench: deps
	$(MAKE) --no-print-directory all $(BUILD)/bench_sand $(BUILD)/bench_big $(BUILD)/bench_terrarium $(BUILD)/bench_codec $(BUILD)/bench_bytes $(BUILD)/floor $(BUILD)/bench_verify $(BUILD)/bench_cycle $(BUILD)/bench_merge $(BUILD)/bench_ticks $(BUILD)/bench_garden $(BUILD)/bench_loop $(BUILD)/bench_fanout wasm
	$(MAKE) --no-print-directory $(BUILD)/bench_sand_base || echo "bench: no baseline sand step (commit $(SAND_BASE) not in this clone): bench_sand runs without it"
	BUILD=$(BUILD) sh bench/run.sh

$(BUILD)/bench_verify: $(BUILD)/bench/bench_verify.o $(LIBREPLAY) $(LIBPOOL) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(PNG_LIBS) $(SQLITE_LIBS) $(ZSTD_LIBS)

$(BUILD)/floor: bench/floor.c
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -o $@ $<

$(BUILD)/bench_codec: $(BUILD)/bench/bench_codec.o $(LIBWIRE) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

$(BUILD)/bench_bytes: $(BUILD)/bench/bench_bytes.o $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS) $(PNG_LIBS) $(SQLITE_LIBS)

$(BUILD)/bench_loop: $(BUILD)/bench/bench_loop.o $(LIBCLI) $(LIBWIRE) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

$(BUILD)/bench_cycle: $(BUILD)/bench/bench_cycle.o $(LIBWIRE) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

# vivd's fan-out without the network: links the server's library as the tests do.
$(BUILD)/bench_fanout: $(BUILD)/bench/bench_fanout.o $(LIBSRV) $(LIBWIRE) $(LIBREPLAY) $(LIBPOOL) $(LIBOPT) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(PNG_LIBS) $(ZSTD_LIBS) $(MSGPACK_LIBS) $(SQLITE_LIBS) $(LWS_LIBS) $(HIREDIS_LIBS) $(UV_LIBS) -lm

$(BUILD)/bench_big: $(BUILD)/bench/bench_big.o $(LIBPOOL) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

$(BUILD)/bench_sand: $(BUILD)/bench/bench_sand.o $(LIBPOOL) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

# The sand step before the strip passes (issue 17), for bench_sand --baseline: sim/ of commit
# SAND_BASE (from git; a clone without that commit skips the comparison) with this bench_sand.c.
SAND_BASE ?= a11a8f3
$(BUILD)/bench_sand_base: bench/bench_sand.c bench/bench.h
	rm -rf $(BUILD)/sand-base && mkdir -p $(BUILD)/sand-base
	git archive $(SAND_BASE) sim | tar -x -C $(BUILD)/sand-base
	$(CC) -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DBENCH_BASELINE -I$(BUILD)/sand-base/sim -Ibench \
	    $(CFLAGS) -o $@ bench/bench_sand.c $(BUILD)/sand-base/sim/*.c $(BUILD)/sand-base/sim/*/*.c

$(BUILD)/bench_terrarium: $(BUILD)/bench/bench_terrarium.o $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bench_merge: $(BUILD)/bench/bench_merge.o $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bench_ticks: $(BUILD)/bench/bench_ticks.o $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/bench_garden: $(BUILD)/bench/bench_garden.o $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^

# ---- run ----------------------------------------------------------------------------------------
run: deps
	$(MAKE) --no-print-directory all
	sh scripts/run.sh $(BIN)

clean:
	rm -rf build bin

# The page's vendored modules, from the npm registry at the versions refresh.sh pins.
.PHONY: web-vendor
web-vendor:
	sh clients/web/vendor/refresh.sh

help:
	@sed -n '1,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

include tests/fuzz/fuzz.mk
include wasm/wasm.mk
include dist/install.mk

-include $(CLILIB_OBJ:.o=.d) $(SIM_OBJ:.o=.d) $(WIRE_OBJ:.o=.d) $(POOL_OBJ:.o=.d) $(OPT_OBJ:.o=.d) $(VIVD_OBJ:.o=.d) $(REPLAY_OBJ:.o=.d) $(CLIENT_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(wildcard $(BUILD)/bench/*.d)
