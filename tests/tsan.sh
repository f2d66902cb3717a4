#!/bin/sh
# make test-tsan: the parallel passes under ThreadSanitizer (and, last, vivd's rect streams built
# on the pool: tests/tsan_fanout.c). `viv sim` (the sim core, the worker
# pool and the runner, as tests/cross.sh builds it) with clang -fsanitize=thread, run on sand
# workloads with 2, 3, 4 and 8 workers: the golden script (its chain must still match
# tests/golden/sand.chain), the bench scene at 640x480, and a fuzz campaign whose live way runs on
# the pool. Any report of a data race fails. The hashes already show that the worker count
# changes no result; this shows that no two workers touch the same memory unsynchronised, which
# an unlucky race might do without changing a hash.
#
# Checked by hand when this was written: with SAND_PHASES set to 1 (neighbouring strips in one
# pass) the bench workload below reports hundreds of races; with 3, none.
set -eu
cd "$(dirname "$0")/.."
out=build/tsan
mkdir -p "$out"
clang -O1 -g -fsanitize=thread -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter \
    -ffp-contract=off -fno-math-errno -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
    -DVIV_NO_IMAGE -DVIV_NO_REPLAY -DVIV_MINIMAL -Isim -Ipool -Ireplay -Iopt \
    sim/*.c sim/*/*.c pool/pool.c opt/opt.c clients/viv.c clients/viv_sim.c clients/viv_fuzz.c \
    clients/fuzz_campaign.c clients/fuzz_case.c clients/fuzz_run.c clients/fuzz_report.c clients/ci_report.c \
    clients/cli_common.c replay/files.c -o "$out/viv" -pthread
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_signal_unsafe=0"
status=0
args=$(grep -v '^#' tests/golden/sand.args)
for n in 2 3 4 8; do
    # shellcheck disable=SC2086
    if ! (cd tests/golden && "../../$out/viv" sim --world sand $args --every 100 --threads $n \
            --inputs sand.inputs) > "$out/golden-$n.chain" 2> "$out/golden-$n.err"; then
        echo "tsan: the sand golden run with $n workers failed:" >&2
        grep -A12 "ThreadSanitizer" "$out/golden-$n.err" | head -30 >&2
        status=1
    elif ! cmp -s "$out/golden-$n.chain" tests/golden/sand.chain; then
        echo "tsan: the sand golden chain with $n workers differs from tests/golden/sand.chain" >&2
        status=1
    else
        echo "tsan: sand golden, $n workers: no race, chain matches"
    fi
done
if ! "$out/viv" sim --world sand --seed 9 --ticks 600 --params scene=bench,w=640,h=480 --threads 3 \
        > /dev/null 2> "$out/bench.err"; then
    echo "tsan: the 640x480 bench scene with 3 workers failed:" >&2
    grep -A12 "ThreadSanitizer" "$out/bench.err" | head -30 >&2
    status=1
else
    echo "tsan: sand bench 640x480, 3 workers: no race"
fi
# The render by change, its strips drawn on the workers (sim/sand/redraw.c) from 512x512 up: a
# 1024x512 demo rendered every tick, painted on as it goes.
if ! "$out/viv" sim --world sand --seed 4 --ticks 90 --params w=1024,h=512 --threads 3 --render-all \
        --inputs tests/golden/sand.inputs > /dev/null 2> "$out/render.err"; then
    echo "tsan: the 1024x512 demo rendered on 3 workers failed:" >&2
    grep -A12 "ThreadSanitizer" "$out/render.err" | head -30 >&2
    status=1
else
    echo "tsan: sand demo 1024x512 rendered every tick, 3 workers: no race"
fi
if ! "$out/viv" fuzz --sessions 6 --ticks 200 --seed 17 --kinds sand --no-record --quiet --threads 4 \
        --out "$out/fuzz-out" > "$out/fuzz.log" 2>&1; then
    echo "tsan: viv fuzz with 4 workers failed:" >&2
    grep -A12 "ThreadSanitizer" "$out/fuzz.log" | head -30 >&2
    tail -3 "$out/fuzz.log" >&2
    status=1
else
    echo "tsan: viv fuzz, 4 workers: no race, $(tail -1 "$out/fuzz.log" | sed 's/.*: //')"
fi
# vivd's rect streams, built on the pool's workers (server/fanout.c): the same bytes as on the
# loop alone, and no race. Checked by hand when this was written: with every worker handed worker
# 0's builder, TSan reports a data race at once.
srv_src=""
for f in server/*.c; do
    [ "$f" = server/vivd.c ] || srv_src="$srv_src $f"
done
# shellcheck disable=SC2046,SC2086  # the library flags and the sources are words on purpose
clang -O1 -g -fsanitize=thread -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter \
    -ffp-contract=off -fno-math-errno -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
    -Iserver -Iwire -Ireplay -Ipool -Isim -Iopt $(pkg-config --cflags libwebsockets libpng) \
    tests/tsan_fanout.c $srv_src wire/*.c replay/*.c pool/pool.c \
    opt/opt.c sim/*.c sim/*/*.c -o "$out/fanout" -pthread \
    $(pkg-config --libs libwebsockets hiredis libuv libzstd sqlite3 libpng libwebpmux libwebpdemux libwebp) \
    -lgif -lm
if ! "$out/fanout" > "$out/fanout.log" 2>&1; then
    echo "tsan: rect streams on the pool failed:" >&2
    grep -A12 "ThreadSanitizer" "$out/fanout.log" | head -30 >&2
    tail -2 "$out/fanout.log" >&2
    status=1
else
    echo "tsan: $(tail -1 "$out/fanout.log" | sed 's/^tsan_fanout: //'): no race"
fi
exit $status
