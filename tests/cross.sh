#!/bin/sh
# The determinism matrix (make test-cross): build `viv sim` five ways — gcc -O0, gcc -O2,
# clang -O3, aarch64-linux-gnu-gcc -O2 (static, run under qemu-aarch64) and clang -O2 for
# wasm32-wasi (Debian's clang 14 with wasi-libc, run under Node's node:wasi by
# tests/wasm/run.mjs) — run the same workloads on each, and require identical hash chains. The
# cross builds hold only the sim core, the worker pool, the option tables (opt/) and the runner
# (no libpng; xxhash is header-only).
#
# Each build runs its workloads with another number of workers for the worlds' parallel passes
# (sand's strips): gcc-O0 1, gcc-O2 2, clang-O3 3, aarch64-O2 4, wasm32-O2 1 (WASI has no
# threads); gcc-O2 also runs every golden script with 8. So equal chains across builds are equal
# chains across worker counts too.
set -eu
cd "$(dirname "$0")/.."
out=build/cross
mkdir -p "$out"
SRC="sim/*.c sim/*/*.c pool/pool.c opt/opt.c clients/viv.c clients/viv_sim.c clients/viv_fuzz.c \
 clients/fuzz_campaign.c clients/fuzz_case.c clients/fuzz_run.c clients/fuzz_report.c clients/ci_report.c clients/cli_common.c replay/files.c"
COMMON="-std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -ffp-contract=off -fno-math-errno \
 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DVIV_NO_IMAGE -DVIV_NO_REPLAY -DVIV_MINIMAL -Isim -Ipool -Ireplay -Iopt"

build() {   # name compiler flags...
    name=$1; cc=$2; shift 2
    mkdir -p "$out/$name"
    # shellcheck disable=SC2086
    case $name in wasm32-*) thr="" ;; *) thr="-pthread" ;; esac
    # shellcheck disable=SC2086
    $cc $COMMON "$@" $SRC -o "$out/$name/viv" $thr
}

BUILDS="gcc-O0 gcc-O2 clang-O3 aarch64-O2 wasm32-O2"
echo "cross: building $BUILDS"
build gcc-O0 gcc -O0 &
build gcc-O2 gcc -O2 &
wait
build clang-O3 clang -O3 &
build aarch64-O2 aarch64-linux-gnu-gcc -O2 -static &
# WASI has no process ids: viv fuzz's fallback seed (never used here, --seed is given) takes
# wasi-libc's emulated getpid. The stack is 8 MiB as on Linux, placed first in memory so that an
# overflow traps instead of writing over the heap. The memory starts at 1 GiB, so that no
# workload grows it: Node 20's node:wasi can crash (SIGSEGV, exit 139) after the module's memory
# grows large — the 2048×1024 sand golden run did about one time in three, after printing its
# whole chain (nodejs/node#51303). Pages never touched cost nothing.
build wasm32-O2 "clang --target=wasm32-wasi" -O2 -D_WASI_EMULATED_GETPID -lwasi-emulated-getpid \
    -Wl,--stack-first,-z,stack-size=8388608 -Wl,--initial-memory=1073741824 &
wait
for b in $BUILDS; do
    [ -x "$out/$b/viv" ] || { echo "cross: build $b failed" >&2; exit 1; }
done

# The kinds, from the one list (sim/kinds.h via `viv sim --list-kinds`): every kind's golden run
# (tests/golden/<kind>.args and .inputs, run in tests/golden/ as tests/golden.sh does) is a
# workload, and its chain must match tests/golden/<kind>.chain at the end.
kinds=$("$out/gcc-O2/viv" sim --list-kinds | awk '{print $1}')
[ -n "$kinds" ] || { echo "cross: viv sim --list-kinds printed no kinds" >&2; exit 1; }
for k in $kinds; do
    [ -f "tests/golden/$k.args" ] && [ -f "tests/golden/$k.inputs" ] || {
        echo "cross: kind '$k' has no tests/golden/$k.args and $k.inputs (docs/ADDING-A-WORLD.md)" >&2
        exit 1
    }
done
# The golden runs: each kind's, and any other a kind has, tests/golden/<kind>-<name>.args (sand-big:
# a 2048×1024 world), as tests/golden.sh runs them; the world's kind is the name before the '-'.
runs=$(for k in $kinds; do
    echo "$k"
    for f in tests/golden/"$k"-*.args; do
        if [ -f "$f" ]; then basename "$f" .args; fi
    done
done)

# Workloads: each prints a hash chain. The golden ones come from tests/golden/; the others are
# kind-specific extras.
run_all() {   # runner-prefix dir workers
    pre=$1; dir=$2; th="--threads $3"; t0=$(date +%s)
    rm -f "$dir/fuzz.failed"
    # Every golden run, hashes every 10 ticks (the committed chain has every 100th).
    for r in $runs; do
        args=$(grep -v '^#' "tests/golden/$r.args")
        # shellcheck disable=SC2086
        (cd tests/golden && $pre "../../$dir/viv" sim --world "${r%%-*}" $args --every 10 $th \
            --inputs "$r.inputs") > "$dir/$r-golden.chain"
    done
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim --world sand --seed 1 --ticks 20000 --every 100 $th > "$dir/sand-demo.chain"
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim --world sand --seed 9 --ticks 2000 --every 50 --render-all $th \
        --params scene=bench > "$dir/sand-bench.chain"
    # The terrarium: the demo for five minutes rendered every tick, and the x-ray view.
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world terrarium --seed 1 --ticks 12000 --every 100 --render-all \
        > "$dir/terrarium-demo.chain"
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world terrarium --seed 3 --ticks 1200 --every 20 --render-all --view xray \
        > "$dir/terrarium-xray.chain"
    # Palette cycling: every scene (one at another size, one through the ranges view) and a scene
    # decoded from a committed ILBM file, rendered every tick.
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world cycle --seed 3 --ticks 600 --every 20 --render-all \
        --params scene=fire > "$dir/cycle-fire.chain"
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world cycle --seed 5 --ticks 600 --every 20 --render-all --view ranges \
        --params scene=dusk,w=480,h=270 > "$dir/cycle-dusk.chain"
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world cycle --seed 1 --ticks 3000 --every 50 --render-all \
        --params scene=file:tests/golden/cycle-scene.lbm --inputs tests/golden/cycle.inputs \
        > "$dir/cycle-file.chain"
    # A Canvas Cycle scene as lbm2json writes it, every reverse value, BlendShift: Canvas Cycle's
    # double arithmetic and dmath's sine (sim/cycle/cctiming.c), with the golden inputs' speeds,
    # pauses, toggles and modes.
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world cycle --seed 1 --ticks 3000 --every 50 --render-all \
        --params scene=file:tests/golden/cycle-canvas.js --inputs tests/golden/cycle.inputs \
        > "$dir/cycle-canvas.chain"
    # The garden: a crowd locked to its 8 inks (OKLab, built at create from sim_cbrt and a Newton
    # root) rendered every tick, and the x-ray view with 5 inks chosen by farthest-point sampling.
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world garden --seed 5 --ticks 1200 --every 20 --render-all \
        --params scene=crowd,inks=8 > "$dir/garden-inks.chain"
    # shellcheck disable=SC2086
    $pre "$dir/viv" sim $th --world garden --seed 6 --ticks 600 --every 20 --render-all --view xray \
        --params inks=5 > "$dir/garden-xray.chain"
    # A fuzz corpus: random sessions of every kind (fixed seed), live (on the build's workers)
    # and sync-test (inline), every tick's hashes written out.
    # shellcheck disable=SC2086
    $pre "$dir/viv" fuzz --sessions 8 --ticks 240 --seed 20261130 --no-record --no-shrink --quiet $th \
        --out "$dir/fuzz-out" --chain "$dir/fuzz.chain" > "$dir/fuzz.log" 2>&1 || touch "$dir/fuzz.failed"
    echo "cross: $(basename "$dir"): workloads in $(( $(date +%s) - t0 )) s"
}

# gcc-O2's extra run: every golden script with 8 workers (more threads than this machine has CPUs).
run_eight() {   # dir
    dir=$1
    for r in $runs; do
        args=$(grep -v '^#' "tests/golden/$r.args")
        # shellcheck disable=SC2086
        (cd tests/golden && "../../$dir/viv" sim --world "${r%%-*}" $args --every 10 --threads 8 \
            --inputs "$r.inputs") > "$dir/$r-golden-8.chain"
    done
}

QEMU="qemu-aarch64"
# The wasm32 module runs from tests/golden too, so the runner's path is absolute.
WASI="node --no-warnings $PWD/tests/wasm/run.mjs"
status=0
# Every build must hold the same kinds, in the same order, as the one list.
for b in gcc-O0 clang-O3 aarch64-O2 wasm32-O2; do
    case $b in aarch64-*) pre=$QEMU ;; wasm32-*) pre=$WASI ;; *) pre="" ;; esac
    got=$($pre "$out/$b/viv" sim --list-kinds | awk '{print $1}')
    [ "$got" = "$kinds" ] || { echo "cross: $b lists other kinds: $(echo $got) (gcc-O2: $(echo $kinds))" >&2; status=1; }
done
start=$(date +%s)
# aarch64 under qemu takes longest by far (user emulation, ~10× a native run), so it has a core
# to itself while the other four run one after another on the other.
run_all "$QEMU" "$out/aarch64-O2" 4 &
{
    run_all "" "$out/gcc-O0" 1
    run_all "" "$out/gcc-O2" 2 && run_eight "$out/gcc-O2"
    run_all "" "$out/clang-O3" 3
    run_all "$WASI" "$out/wasm32-O2" 1
} &
wait
echo "cross: ran the workloads in $(( $(date +%s) - start )) s"

for b in $BUILDS; do
    if [ -e "$out/$b/fuzz.failed" ]; then
        echo "cross: viv fuzz failed on $b:" >&2
        tail -5 "$out/$b/fuzz.log" >&2
        status=1
    fi
done
golden_chains=$(for r in $runs; do printf '%s-golden ' "$r"; done)
for chain in $golden_chains sand-demo sand-bench terrarium-demo terrarium-xray cycle-fire cycle-dusk cycle-file cycle-canvas \
    garden-inks garden-xray fuzz; do
    ref="$out/gcc-O2/$chain.chain"
    lines=$(wc -l < "$ref")
    [ "$lines" -gt 0 ] || { echo "cross: $chain produced no output" >&2; status=1; continue; }
    for b in $BUILDS; do
        [ "$b" = gcc-O2 ] && continue
        if ! cmp -s "$ref" "$out/$b/$chain.chain"; then
            echo "cross: $chain differs between gcc-O2 and $b; first difference:" >&2
            diff "$ref" "$out/$b/$chain.chain" | head -4 >&2
            status=1
        fi
    done
    [ $status -eq 0 ] && echo "cross: $chain: $lines hash lines identical on $(echo $BUILDS | sed 's/ /, /g') (1, 2, 3, 4, 1 workers)"
done
for r in $runs; do
    if ! cmp -s "$out/gcc-O2/$r-golden.chain" "$out/gcc-O2/$r-golden-8.chain"; then
        echo "cross: $r's golden chain differs between 2 and 8 workers (gcc-O2); first difference:" >&2
        diff "$out/gcc-O2/$r-golden.chain" "$out/gcc-O2/$r-golden-8.chain" | head -4 >&2
        status=1
    else
        echo "cross: $r-golden: the same with 8 workers"
    fi
done
# The matrix must also agree with every committed golden chain.
for r in $runs; do
    awk '$1 % 100 == 0' "$out/gcc-O2/$r-golden.chain" > "$out/$r-golden.every100"
    if ! cmp -s "$out/$r-golden.every100" "tests/golden/$r.chain"; then
        echo "cross: the golden chain differs from tests/golden/$r.chain" >&2
        diff "tests/golden/$r.chain" "$out/$r-golden.every100" | head -4 >&2
        status=1
    else
        echo "cross: golden chain matches tests/golden/$r.chain"
    fi
done
exit $status
