#!/bin/sh
# Bytes a world-hour of recording (issue 32), both formats in one run: each demo world recorded for
# one hour of world time by `viv sim --record` (schema 4: hashes in blocks, delta checkpoints) and
# by `viv sim --record --record-format 3` (schema 3's rows: a tick row a tick, a whole checkpoint
# every 10 s), the file's size measured after its WAL is checkpointed into it; then the 2048×1024
# demo sand world (HOURS_BIG of an hour, 0.25 by default, its bytes scaled to the hour), schema 4
# only, a verify of it against the clock, and the longest replay a seek or a resume of it makes
# (from a checkpoint to the tick before the next, 20 s of world time at that size). Prints a
# Markdown table.
#   sh bench/record_size.sh [BIN]          (BIN: the directory holding viv; default bin)
#   BIG_ONLY=1                             only the 2048×1024 world
set -eu
bin=${1:-bin}
tmp=$(mktemp -d /tmp/vivrecsize.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
size() {   # the file's bytes once everything in its WAL is in it
    sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    wc -c < "$1"
}
if [ -z "${BIG_ONLY:-}" ]; then
    echo "| world | Hz | ticks (one world-hour) | schema 3 bytes | schema 4 bytes | schema 4 / 3 | of schema 4: hashes | checkpoints (full + deltas) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    "$bin/viv" sim --list-kinds | while read -r kind id hz; do
        ticks=$((hz * 3600))
        "$bin/viv" sim --world "$kind" --seed 1 --ticks "$ticks" --record "$tmp/$kind-3.db" --record-format 3 > /dev/null 2>&1
        "$bin/viv" sim --world "$kind" --seed 1 --ticks "$ticks" --record "$tmp/$kind-4.db" > /dev/null 2>&1
        a=$(size "$tmp/$kind-3.db")
        b=$(size "$tmp/$kind-4.db")
        h=$(sqlite3 "$tmp/$kind-4.db" "SELECT sum(length(data)) + 32 * count(*) FROM hashes")
        c=$(sqlite3 "$tmp/$kind-4.db" "SELECT sum(length(state)) || ' (' || sum(base IS NULL) || ' + ' || sum(base IS NOT NULL) || ')' FROM checkpoint")
        echo "| $kind | $hz | $ticks | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }') | $h | $c |"
    done
fi
hours=${HOURS_BIG:-0.25}
ticks=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 216000 }')
t0=$(date +%s.%N)
"$bin/viv" sim --world sand --seed 1 --params w=2048,h=1024,scene=demo --ticks "$ticks" --threads 2 \
    --record "$tmp/big.db" > /dev/null 2>&1
t1=$(date +%s.%N)
b=$(size "$tmp/big.db")
"$bin/viv" replay verify --quiet --threads 2 "$tmp/big.db" > "$tmp/verify.txt" 2>&1 || { cat "$tmp/verify.txt"; exit 1; }
t2=$(date +%s.%N)
c=$(sqlite3 "$tmp/big.db" "SELECT sum(length(state)) || ' (' || sum(base IS NULL) || ' + ' || sum(base IS NOT NULL) || ')' FROM checkpoint")
# The longest replay a seek, a fork or a resume makes: the tick before the second checkpoint, from
# the first (the demo's busiest ticks), as `viv replay fork` does it.
cpe=$(sqlite3 "$tmp/big.db" "SELECT checkpoint_every FROM session WHERE id = 1")
t3=$(date +%s.%N)
"$bin/viv" replay fork "$tmp/big.db" --tick $((cpe - 1)) -o "$tmp/fork.db" --quiet > /dev/null 2>&1 || { echo "fork failed"; exit 1; }
t4=$(date +%s.%N)
echo
echo "2048×1024 demo sand, $ticks ticks ($hours of a world-hour) with \`viv sim --threads 2 --record\`: $b bytes," \
     "$(awk -v b="$b" -v h="$hours" 'BEGIN { printf "%.2f", b / h / 1e6 }') MB a world-hour at that rate;" \
     "checkpoints $c bytes; recorded at $(awk -v t="$ticks" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", t / (b - a) }') ticks/s," \
     "verified (\`viv replay verify --threads 2\`, bit-exact) at $(awk -v t="$ticks" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.0f", t / (b - a) }') ticks/s" \
     "($(awk -v t="$ticks" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", t / (b - a) / 60 }')× real time);" \
     "a checkpoint every $cpe ticks: \`viv replay fork --tick $((cpe - 1))\` (the longest a seek replays) took" \
     "$(awk -v a="$t3" -v b="$t4" 'BEGIN { printf "%.2f", b - a }') s."
