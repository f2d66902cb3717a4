# tests/fuzz/fuzz.mk — the libFuzzer targets, included by the Makefile (tests/fuzz/README.md).
#
#   make fuzz FUZZ_SECONDS=N    build every tests/fuzz/fuzz_*.c with clang and run each N seconds
#                               on a copy of its corpus (tests/fuzz/corpus/<target>/) and of the
#                               inputs kept by hand (tests/fuzz/seeds/<target>/)
#   make test-fuzz              the same, as `make test` runs it (FUZZ_SECONDS, default 30 s)
#   make fuzz-corpus            regenerate the committed seed corpora (tests/fuzz/make_corpus.c);
#                               tests/fuzz/seeds/ is not touched
#
# The targets and the code they exercise are built together under ASan + UBSan with libFuzzer's
# coverage instrumentation, in their own directory ($(FUZZ_BUILD)), with the project's warnings
# and the core's determinism flags.

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build/fuzz
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g $(WARN) $(DET) $(FUZZ_SAN) -fsanitize=fuzzer-no-link

# What the targets exercise: the core, the wire decoder and frame codec, the client's frame code
# and its side of WebSocket, what cluster members read from each other through Redis, and the
# replay file's reader and verifier (and the pool they run on).
FUZZ_LIB_SRC := $(SIM_SRC) $(WIRE_SRC) clients/net.c clients/websocket.c server/cluster_msg.c $(REPLAY_SRC) $(POOL_SRC)
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)

# libFuzzer's comparison hooks (-fsanitize-coverage=trace-cmp) cost a call at every integer
# comparison. In the simulation's loops (stepping, drawing, art, maths) they made about half the
# time of the state, inputs and replay targets (perf), and their operands, loop counters and
# coordinates, crowded the decoders' values out of the table libFuzzer draws its comparison
# mutations from. So they are left out where nothing from outside is decoded; edge coverage and
# the sanitizers stay everywhere. Two ways:
#  - FUZZ_NOCMP_SRC: sim/ files that decode nothing for any target, built without the hooks for
#    all of them. Every file that reads a saved state, params, inputs or a scene file keeps them;
#    fuzz-build checks that none of these does (FUZZ_DECODES); a new file is on no list: it keeps
#    them.
#  - FUZZ_SIM_DECODES_<target>: the sim/ files a target decodes with; it links those with the
#    hooks and the rest of sim/ without (obj-nocmp/, libfuzzviv-<target>.a). The inputs target
#    decodes params and inputs lines (world.c) and each kind's own input checks (the file that
#    registers them): the loaders and the physics it steps through need none.
FUZZ_NOCMP_SRC := sim/dmath.c sim/errors.c sim/frame.c sim/raster.c sim/rng.c \
                  $(addprefix sim/anim/,inks.c mmpx.c outline.c rotsprite.c shear.c walker.c) \
                  $(addprefix sim/cycle/,cctiming.c cycle_scenes.c) \
                  $(addprefix sim/garden/,art.c creatures.c render.c) \
                  $(addprefix sim/merge/,anim.c art.c art_backdrop.c art_carrier.c art_eyes.c \
                                         art_fruit.c art_text.c carrier.c fruit.c pilot.c render.c) \
                  $(addprefix sim/sand/,big.c big_art.c chunks.c elements.c render.c scenes.c step.c) \
                  $(addprefix sim/terrarium/,body.c brain.c doll.c limbs.c nav.c room.c)
FUZZ_DECODES := sim_reader|sim__r_|check_input|_parse|sim_cycle_from
FUZZ_SIM_DECODES_inputs := sim/world.c $(shell grep -l '\.check_input *=' $(SIM_SRC))
FUZZ_NOCMP   := -fno-sanitize-coverage=trace-cmp
$(FUZZ_NOCMP_SRC:%.c=$(FUZZ_BUILD)/obj/%.o): FUZZ_CMP := $(FUZZ_NOCMP)
# The flags are in this file: a change to them rebuilds the objects.
$(FUZZ_LIB_OBJ) $(SIM_SRC:%.c=$(FUZZ_BUILD)/obj-nocmp/%.o): tests/fuzz/fuzz.mk
FUZZ_LIB     := $(FUZZ_BUILD)/libfuzzviv.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz test-fuzz fuzz-build fuzz-corpus
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) $(FUZZ_CMP) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/obj-nocmp/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) $(FUZZ_NOCMP) -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(ZSTD_LIBS) $(PNG_LIBS) $(SQLITE_LIBS)

# A target with FUZZ_SIM_DECODES_<target>: its own sim/ library ahead of the shared one (which
# then gives only what is not in sim/).
define FUZZ_SPLIT_RULES
$(FUZZ_BUILD)/libfuzzviv-$(1).a: $(FUZZ_SIM_DECODES_$(1):%.c=$(FUZZ_BUILD)/obj/%.o) \
        $(patsubst %.c,$(FUZZ_BUILD)/obj-nocmp/%.o,$(filter-out $(FUZZ_SIM_DECODES_$(1)),$(SIM_SRC)))
	rm -f $$@ && ar rcs $$@ $$^
$(FUZZ_BUILD)/fuzz_$(1): $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_$(1).o $(FUZZ_BUILD)/libfuzzviv-$(1).a $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $(ZSTD_LIBS) $(PNG_LIBS) $(SQLITE_LIBS)
endef
$(foreach t,$(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)),$(if \
    $(FUZZ_SIM_DECODES_$(t)),$(eval $(call FUZZ_SPLIT_RULES,$(t)))))

fuzz-build: $(FUZZ_BINS)
	@if grep -lE '$(FUZZ_DECODES)' $(FUZZ_NOCMP_SRC); then \
	    echo "fuzz.mk: the files above decode outside bytes: take them off FUZZ_NOCMP_SRC" >&2; exit 1; fi

fuzz: fuzz-build
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

test-fuzz: fuzz

# The seed corpora are committed; this rebuilds them from scratch (a normal build, not fuzzed).
$(BUILD)/make_corpus: $(BUILD)/tests/fuzz/make_corpus.o $(BUILD)/server/cluster_msg.o $(LIBWIRE) $(LIBSIM)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZSTD_LIBS)

fuzz-corpus: $(BUILD)/make_corpus
	rm -rf tests/fuzz/corpus
	$(BUILD)/make_corpus tests/fuzz/corpus

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.d)
# make_corpus's own headers (sim.h's kind table among them): without this, a changed header left
# a stale make_corpus.o that read the kind table at the old offsets.
-include $(BUILD)/tests/fuzz/make_corpus.d
-include $(wildcard $(FUZZ_BUILD)/obj-nocmp/*/*.d $(FUZZ_BUILD)/obj-nocmp/*/*/*.d)
