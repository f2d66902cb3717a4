# tests/fuzz/fuzz.mk — the libFuzzer targets, included by the Makefile (tests/fuzz/README.md).
#
#   make fuzz FUZZ_SECONDS=N    build every tests/fuzz/fuzz_*.c with clang and run each N seconds
#                               on a copy of its corpus (tests/fuzz/corpus/<target>/)
#   make test-fuzz              the same, as `make test` runs it (FUZZ_SECONDS, default 30 s)
#   make fuzz-corpus            regenerate the committed seed corpora (tests/fuzz/make_corpus.c)
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
FUZZ_LIB     := $(FUZZ_BUILD)/libfuzzviv.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz test-fuzz fuzz-build fuzz-corpus
.SECONDARY: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(ZSTD_LIBS) $(PNG_LIBS) $(SQLITE_LIBS)

fuzz-build: $(FUZZ_BINS)

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
