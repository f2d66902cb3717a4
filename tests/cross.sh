#!/bin/sh
# The determinism matrix (make test-cross): build `viv sim` four ways — gcc -O0, gcc -O2,
# clang -O3, and aarch64-linux-gnu-gcc -O2 (static, run under qemu-aarch64) — run the same
# workloads on each, and require identical hash chains. The cross build holds only the sim core
# and the runner (no libpng; xxhash is header-only).
set -eu
cd "$(dirname "$0")/.."
out=build/cross
mkdir -p "$out"
SRC="sim/*.c sim/*/*.c clients/viv.c clients/viv_sim.c clients/viv_fuzz.c clients/cli_common.c replay/files.c"
COMMON="-std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -ffp-contract=off -fno-math-errno \
 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DVIV_NO_IMAGE -DVIV_NO_REPLAY -DVIV_MINIMAL -Isim -Ireplay"

build() {   # name compiler flags...
    name=$1; cc=$2; shift 2
    mkdir -p "$out/$name"
    # shellcheck disable=SC2086
    $cc $COMMON "$@" $SRC -o "$out/$name/viv"
}

echo "cross: building gcc-O0 gcc-O2 clang-O3 aarch64-O2"
build gcc-O0 gcc -O0 &
build gcc-O2 gcc -O2 &
wait
build clang-O3 clang -O3 &
build aarch64-O2 aarch64-linux-gnu-gcc -O2 -static &
wait
for b in gcc-O0 gcc-O2 clang-O3 aarch64-O2; do
    [ -x "$out/$b/viv" ] || { echo "cross: build $b failed" >&2; exit 1; }
done

# Workloads: each prints a hash chain. Keep them in step with tests/golden/.
run_all() {   # runner-prefix dir
    pre=$1; dir=$2
    rm -f "$dir/fuzz.failed"
    $pre "$dir/viv" sim --world sand --seed 42 --ticks 3000 --every 10 \
        --inputs tests/golden/sand.inputs > "$dir/sand-golden.chain"
    $pre "$dir/viv" sim --world sand --seed 1 --ticks 20000 --every 100 > "$dir/sand-demo.chain"
    $pre "$dir/viv" sim --world sand --seed 9 --ticks 2000 --every 50 --render-all \
        --params scene=bench > "$dir/sand-bench.chain"
    # The terrarium: the golden script (drags, shoves, spawns), the demo for five minutes rendered
    # every tick, and the x-ray view.
    $pre "$dir/viv" sim --world terrarium --seed 42 --ticks 4000 --every 10 \
        --inputs tests/golden/terrarium.inputs > "$dir/terrarium-golden.chain"
    $pre "$dir/viv" sim --world terrarium --seed 1 --ticks 12000 --every 100 --render-all \
        > "$dir/terrarium-demo.chain"
    $pre "$dir/viv" sim --world terrarium --seed 3 --ticks 1200 --every 20 --render-all --view xray \
        > "$dir/terrarium-xray.chain"
    # Palette cycling: every scene (one at another size, one through the ranges view) and a scene
    # decoded from a committed ILBM file, rendered every tick.
    $pre "$dir/viv" sim --world cycle --seed 42 --ticks 3000 --every 10 \
        --inputs tests/golden/cycle.inputs > "$dir/cycle-golden.chain"
    $pre "$dir/viv" sim --world cycle --seed 3 --ticks 600 --every 20 --render-all \
        --params scene=fire > "$dir/cycle-fire.chain"
    $pre "$dir/viv" sim --world cycle --seed 5 --ticks 600 --every 20 --render-all --view ranges \
        --params scene=dusk,w=480,h=270 > "$dir/cycle-dusk.chain"
    $pre "$dir/viv" sim --world cycle --seed 1 --ticks 3000 --every 50 --render-all \
        --params scene=file:tests/golden/cycle-scene.lbm --inputs tests/golden/cycle.inputs \
        > "$dir/cycle-file.chain"
    # A fuzz corpus: random sessions of every kind (fixed seed), live and sync-test, every
    # tick's hashes written out.
    $pre "$dir/viv" fuzz --sessions 8 --ticks 240 --seed 20261130 --no-record --no-shrink --quiet \
        --out "$dir/fuzz-out" --chain "$dir/fuzz.chain" > "$dir/fuzz.log" 2>&1 || touch "$dir/fuzz.failed"
}

QEMU="qemu-aarch64"
start=$(date +%s)
run_all "" "$out/gcc-O0" &
run_all "" "$out/gcc-O2" &
wait
run_all "" "$out/clang-O3" &
run_all "$QEMU" "$out/aarch64-O2" &
wait
echo "cross: ran the workloads in $(( $(date +%s) - start )) s"

status=0
for b in gcc-O0 gcc-O2 clang-O3 aarch64-O2; do
    if [ -e "$out/$b/fuzz.failed" ]; then
        echo "cross: viv fuzz failed on $b:" >&2
        tail -5 "$out/$b/fuzz.log" >&2
        status=1
    fi
done
for chain in sand-golden sand-demo sand-bench terrarium-golden terrarium-demo terrarium-xray cycle-golden cycle-fire cycle-dusk cycle-file fuzz; do
    ref="$out/gcc-O2/$chain.chain"
    lines=$(wc -l < "$ref")
    [ "$lines" -gt 0 ] || { echo "cross: $chain produced no output" >&2; status=1; continue; }
    for b in gcc-O0 clang-O3 aarch64-O2; do
        if ! cmp -s "$ref" "$out/$b/$chain.chain"; then
            echo "cross: $chain differs between gcc-O2 and $b; first difference:" >&2
            diff "$ref" "$out/$b/$chain.chain" | head -4 >&2
            status=1
        fi
    done
    [ $status -eq 0 ] && echo "cross: $chain: $lines hash lines identical on gcc-O0, gcc-O2, clang-O3, aarch64-O2"
done
# The matrix must also agree with the committed golden chain.
awk '$1 % 100 == 0' "$out/gcc-O2/sand-golden.chain" > "$out/sand-golden.every100"
if ! cmp -s "$out/sand-golden.every100" tests/golden/sand.chain; then
    echo "cross: the golden chain differs from tests/golden/sand.chain" >&2
    diff tests/golden/sand.chain "$out/sand-golden.every100" | head -4 >&2
    status=1
else
    echo "cross: golden chain matches tests/golden/sand.chain"
fi
awk '$1 % 100 == 0' "$out/gcc-O2/terrarium-golden.chain" > "$out/terrarium-golden.every100"
if ! cmp -s "$out/terrarium-golden.every100" tests/golden/terrarium.chain; then
    echo "cross: the golden chain differs from tests/golden/terrarium.chain" >&2
    diff tests/golden/terrarium.chain "$out/terrarium-golden.every100" | head -4 >&2
    status=1
else
    echo "cross: golden chain matches tests/golden/terrarium.chain"
fi
awk '$1 % 100 == 0' "$out/gcc-O2/cycle-golden.chain" > "$out/cycle-golden.every100"
if ! cmp -s "$out/cycle-golden.every100" tests/golden/cycle.chain; then
    echo "cross: the golden chain differs from tests/golden/cycle.chain" >&2
    diff tests/golden/cycle.chain "$out/cycle-golden.every100" | head -4 >&2
    status=1
else
    echo "cross: golden chain matches tests/golden/cycle.chain"
fi
exit $status
