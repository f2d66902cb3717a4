# wasm/wasm.mk — sim/ as WebAssembly, included by the Makefile.
#
#   make wasm        $(BIN)/vivarium.wasm: sim/ and wasm/api.c as a WASI reactor module for the
#                    page (wasm/README.md lists its functions); Debian's clang 14, wasi-libc,
#                    wasm-ld and the wasm32 builtins of libclang-rt-14-dev-wasm32, nothing else
#   make test-wasm   tests/wasm/api.test.mjs under Node (node --test): every kind through the module, its hashes
#                    against bin/viv sim's, save/load, refusals, and no allocation in a step
#
# The objects are compiled with the project's warnings and the core's determinism flags, like
# every other build; make test-layers reads their undefined symbols (llvm-nm) and the module's
# imports. The determinism matrix (tests/cross.sh) builds its own wasm32 `viv sim`.

WASM_CC     ?= clang --target=wasm32-wasi
WASM_NM     ?= llvm-nm-14
WASM_BUILD  ?= build/wasm
WASM_CFLAGS := -O2 $(WARN) $(DET)
# wasm/ sees sim/ alone, as sim/ sees itself alone (tests/layers.sh checks both).
INC_wasm    := -Isim

WASM_SIM_OBJ := $(SIM_SRC:%.c=$(WASM_BUILD)/%.o)
WASM_API_OBJ := $(WASM_BUILD)/wasm/api.o
WASM_MODULE  := $(BIN)/vivarium.wasm
# The same module with malloc, calloc, realloc and free counted (tests/wasm/count.c), so that the
# test can see that a step allocates nothing.
WASM_COUNT   := $(WASM_BUILD)/vivarium-count.wasm

.PHONY: wasm test-wasm

wasm: $(WASM_MODULE) $(WASM_COUNT)

$(WASM_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(WASM_CC) $(BASE_CPPFLAGS) $(INC_$(firstword $(subst /, ,$<))) $(WASM_CFLAGS) -c $< -o $@

# A reactor: no main; the caller runs _initialize once, then calls the vw_ exports. The stack
# (1 MiB: the largest frame in sim/ is 46 KB, the cycle scene builder's) comes first in memory,
# so that an overflow traps instead of writing over static data and the heap.
WASM_LDFLAGS := -mexec-model=reactor -Wl,--stack-first,-z,stack-size=1048576
$(WASM_MODULE): $(WASM_API_OBJ) $(WASM_SIM_OBJ) wasm/wasm.mk
	@mkdir -p $(dir $@)
	$(WASM_CC) $(WASM_LDFLAGS) -o $@ $(filter %.o,$^)

$(WASM_COUNT): $(WASM_API_OBJ) $(WASM_SIM_OBJ) $(WASM_BUILD)/tests/wasm/count.o wasm/wasm.mk
	$(WASM_CC) $(WASM_LDFLAGS) -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
	    -o $@ $(filter %.o,$^)

test-wasm: wasm $(BIN)/viv
	VIV_BIN=$(BIN) WASM_COUNT=$(WASM_COUNT) node --test tests/wasm/api.test.mjs

-include $(WASM_SIM_OBJ:.o=.d) $(WASM_API_OBJ:.o=.d)

# make (and so make run) builds the module beside vivd, which serves it to the page at
# /vivarium.wasm; the browser tests load it from there.
all: $(WASM_MODULE)
test-web: $(WASM_MODULE)
