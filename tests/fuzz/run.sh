#!/bin/sh
# Run each libFuzzer target for a fixed time on a copy of its seed corpus and of the inputs kept
# by hand in tests/fuzz/seeds/ (`make fuzz`).
#   sh tests/fuzz/run.sh BUILD_DIR SECONDS TARGET...
# Prints one line per target (executions, executions per second, crashes) and a total, and exits
# non-zero if any target found a crash, a leak, a timeout or an out-of-memory: the input that did
# it is kept in BUILD_DIR/crashes/ and its log in BUILD_DIR/logs/. The committed corpus is never
# written to: new inputs go to BUILD_DIR/work/<target>/ and are thrown away on the next run.
# FUZZ_NICE (default 10) lowers the fuzzers' priority so that wall-clock tests running beside them
# (the robust suite in `make test`) keep their timing. FUZZ_JOBS (default 2) targets run at a time.
set -u
build=$1
seconds=$2
shift 2
[ $# -gt 0 ] || { echo "run.sh: no targets" >&2; exit 2; }
nice_level=${FUZZ_NICE:-10}
mkdir -p "$build/crashes" "$build/logs" "$build/work"

# Largest input per target: big enough for its seeds, small enough to mutate quickly.
max_len() {
    case $1 in
        wire) echo 16384 ;;
        codec) echo 20000 ;;
        frame) echo 40000 ;;
        state) echo 16384 ;;
        inputs) echo 4096 ;;
        websocket) echo 8192 ;;
        replay) echo 4096 ;;
        *) echo 65536 ;;
    esac
}

# One target: its line of the table in $build/results/<target>.line, its failure's account in
# <target>.err, its executions in <target>.execs.
run_one() {
    t=$1
    bin="$build/fuzz_$t"
    seeds="tests/fuzz/corpus/$t"      # written by make_corpus (make fuzz-corpus)
    kept="tests/fuzz/seeds/$t"        # kept by hand: inputs that once failed, never regenerated
    work="$build/work/$t"
    log="$build/logs/$t.log"
    res="$build/results/$t"
    if [ ! -x "$bin" ]; then
        echo "run.sh: $bin is missing (make fuzz-build)" > "$res.err"
        return
    fi
    rm -rf "$work"
    mkdir -p "$work"
    if [ -d "$seeds" ]; then cp "$seeds"/* "$work"/ 2>/dev/null || true; fi
    if [ -d "$kept" ]; then cp "$kept"/* "$work"/ 2>/dev/null || true; fi
    nseeds=$(ls "$work" | wc -l)
    rm -f "$build/crashes/$t"-*
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    nice -n "$nice_level" "$bin" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
        -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$t-" "$work" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    crashes=$(ls "$build/crashes/$t"-* 2>/dev/null | wc -l)
    nend=$(ls "$work" | wc -l)
    printf '%-8s %12s %10s %8s  %s -> %s\n' "$t" "${execs:-?}" "${rate:-?}" "$crashes" "$nseeds" "$nend" > "$res.line"
    echo "${execs:-0}" > "$res.execs"
    if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] || [ -z "$execs" ]; then
        {
            echo "fuzz: $t FAILED (exit $rc); log: $log"
            grep -E 'ERROR|property violated|runtime error|SUMMARY' "$log" | head -5
            for f in "$build/crashes/$t"-*; do
                [ -e "$f" ] && echo "fuzz: reproduce with: $bin $f"
            done
        } > "$res.err"
    fi
}

# The targets run FUZZ_JOBS at a time (default 2, the cores of the machine make test is sized
# for): each target still gets its SECONDS of wall clock, and the run takes SECONDS times the
# targets over FUZZ_JOBS. The table is printed in the targets' order once all have finished.
jobs=${FUZZ_JOBS:-2}
rm -rf "$build/results"
mkdir -p "$build/results"
lane=0
while [ "$lane" -lt "$jobs" ]; do
    (
        i=0
        for t in "$@"; do
            [ $((i % jobs)) -eq "$lane" ] && run_one "$t"
            i=$((i + 1))
        done
    ) &
    lane=$((lane + 1))
done
wait

status=0
total=0
printf '%-8s %12s %10s %8s  %s\n' target executions exec/s crashes "corpus (seeds -> end)"
for t in "$@"; do
    res="$build/results/$t"
    [ -f "$res.line" ] && cat "$res.line"
    if [ -f "$res.err" ]; then
        status=1
        cat "$res.err" >&2
    fi
    if [ ! -f "$res.line" ] && [ ! -f "$res.err" ]; then
        status=1
        echo "fuzz: $t left no result" >&2
    fi
    total=$((total + $(cat "$res.execs" 2>/dev/null || echo 0)))
done
echo "fuzz: $total executions in all, ${seconds} s per target, ${jobs} at a time"
[ "$status" -eq 0 ] && echo "fuzz: all targets passed (0 crashes)"
exit "$status"
