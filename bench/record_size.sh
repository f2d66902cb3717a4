#!/bin/sh
# Bytes a world-hour of recording (issue 32), both formats in one run: each demo world recorded for
# one hour of world time by `viv sim --record` (schema 4: hashes in blocks, delta checkpoints) and
# by `viv sim --record --record-format 3` (schema 3's rows: a tick row a tick, a whole checkpoint
# every 10 s), the file's size measured after its WAL is checkpointed into it; then the 2048×1024
# demo sand world (HOURS_BIG of an hour, 0.25 by default, scaled to the hour: its first full
# checkpoint is counted once, as in a longer run it is one of six), schema 4 only, and a verify
# of it against the clock. Prints a Markdown table.
#   sh bench/record_size.sh [BIN]          (BIN: the directory holding viv; default bin)
set -eu
bin=${1:-bin}
tmp=$(mktemp -d /tmp/vivrecsize.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
size() {   # the file's bytes once everything in its WAL is in it
    sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    wc -c < "$1"
}
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
echo
echo "2048×1024 demo sand, $ticks ticks ($hours of a world-hour) with \`viv sim --threads 2 --record\`: $b bytes," \
     "$(awk -v b="$b" -v h="$hours" 'BEGIN { printf "%.2f", b / h / 1e6 }') MB a world-hour at that rate;" \
     "checkpoints $c bytes; recorded at $(awk -v t="$ticks" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", t / (b - a) }') ticks/s," \
     "verified (\`viv replay verify --threads 2\`, bit-exact) at $(awk -v t="$ticks" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.0f", t / (b - a) }') ticks/s" \
     "($(awk -v t="$ticks" -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", t / (b - a) / 60 }')× real time)."
