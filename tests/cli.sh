#!/bin/sh
# End-to-end tests of the `viv` command line: help, errors, the inputs file, PNG output.
set -u
viv=${1:?usage: cli.sh bin/viv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "cli: ok: $1"; }
fail() { echo "cli: FAIL: $1" >&2; fails=$((fails + 1)); }

# expect <name> <want-status> <stderr-substring or -> -- command...
expect() {
    name=$1; want=$2; msg=$3; shift 4
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then fail "$name: exit $got, wanted $want ($(head -c 300 "$tmp/err"))"; return; fi
    if [ "$msg" != "-" ] && ! grep -qF -- "$msg" "$tmp/err"; then
        fail "$name: stderr lacks '$msg': $(head -c 300 "$tmp/err")"; return
    fi
    ok "$name"
}

expect "viv --help" 0 - -- "$viv" --help
grep -q "sim" "$tmp/out" || fail "viv --help lists no commands"
expect "viv with no command" 2 "usage: viv" -- "$viv"
expect "unknown command" 2 "unknown command 'frobnicate'" -- "$viv" frobnicate
expect "viv sim --help" 0 - -- "$viv" sim --help
grep -q "paint x y r element" "$tmp/out" || fail "sim --help does not list the sand inputs"
grep -q -- "--list-kinds" "$tmp/out" || fail "sim --help does not name --list-kinds"
expect "viv sim --list-kinds" 0 - -- "$viv" sim --list-kinds
# One kind a line, the name first (tests/golden.sh and tests/cross.sh read the names this way),
# sand among them, and every name a world that runs.
awk 'NF != 3 { bad = 1 } END { exit bad }' "$tmp/out" || fail "sim --list-kinds: want <name> <id> <hz> lines, got: $(cat "$tmp/out")"
grep -q "^sand 1 60$" "$tmp/out" || fail "sim --list-kinds does not list 'sand 1 60'"
for k in $(awk '{print $1}' "$tmp/out"); do
    "$viv" sim --world "$k" --ticks 1 > /dev/null 2>&1 || fail "sim --list-kinds names '$k', which does not run"
done
expect "missing --world" 2 "--world KIND is required" -- "$viv" sim --ticks 5
expect "unknown kind" 2 "unknown world kind 'marble' (kinds: sand" -- "$viv" sim --world marble
expect "bad params" 2 "sand params: unknown key 'depth'" -- "$viv" sim --world sand --params depth=2
expect "bad --ticks" 2 "--ticks needs a non-negative integer, got 'ten'" -- "$viv" sim --world sand --ticks ten
expect "negative --seed" 2 "--seed needs a non-negative integer" -- "$viv" sim --world sand --seed -3
expect "unknown option" 2 "unknown option '--fast'" -- "$viv" sim --world sand --fast
expect "flag without value" 2 "--ticks needs a value" -- "$viv" sim --world sand --ticks
expect "unknown view" 2 "sand has no view 'xray'" -- "$viv" sim --world sand --view xray
expect "missing inputs file" 2 "cannot open inputs file" -- "$viv" sim --world sand --inputs "$tmp/nope"

# A malformed inputs file is reported as file:line: reason, and nothing runs (no hash lines).
printf '# comment\n10 paint 5 5 3 sand\n\n20 paint 5 5 99 sand\n' > "$tmp/bad1"
expect "inputs: radius out of range" 2 "$tmp/bad1:4: paint: r=99 is out of range 0..64" -- \
    "$viv" sim --world sand --ticks 50 --inputs "$tmp/bad1"
[ -s "$tmp/out" ] && fail "a bad inputs file still ran ticks"
printf '10 paint 5 5 3 marble\n' > "$tmp/bad2"
expect "inputs: unknown element" 2 "$tmp/bad2:1: paint: unknown element 'marble'" -- \
    "$viv" sim --world sand --inputs "$tmp/bad2"
printf '10 paint 5 5\n' > "$tmp/bad3"
expect "inputs: argument count" 2 "$tmp/bad3:1: paint takes 4 arguments (x y r element), got 2" -- \
    "$viv" sim --world sand --inputs "$tmp/bad3"
printf 'soon erase 1 1 1\n' > "$tmp/bad4"
expect "inputs: bad tick" 2 "$tmp/bad4:1: expected '<tick> <input> <args…>'" -- \
    "$viv" sim --world sand --inputs "$tmp/bad4"

# Output lines: every K ticks and after the last; render-all changes no hash.
expect "hash chain" 0 - -- "$viv" sim --world sand --ticks 250 --every 100
[ "$(wc -l < "$tmp/out")" = 3 ] || fail "--every 100 over 250 ticks should print 3 lines, got $(wc -l < "$tmp/out")"
grep -Eq '^250 [0-9a-f]{16} [0-9a-f]{16}$' "$tmp/out" || fail "last line format: $(tail -1 "$tmp/out")"
cp "$tmp/out" "$tmp/chain1"
"$viv" sim --world sand --ticks 250 --every 100 --render-all > "$tmp/chain2"
cmp -s "$tmp/chain1" "$tmp/chain2" && ok "--render-all gives the same chain" || fail "--render-all changed the chain"
"$viv" sim --world sand --ticks 250 --every 100 --seed 2 > "$tmp/chain3"
cmp -s "$tmp/chain1" "$tmp/chain3" && fail "another seed gave the same chain" || ok "seeds differ"
# Inputs given with names and with numbers are the same input.
printf '5 paint 100 50 10 sand\n' > "$tmp/in-name"
printf '5 paint 100 50 10 3\n' > "$tmp/in-num"
a=$("$viv" sim --world sand --ticks 30 --inputs "$tmp/in-name")
b=$("$viv" sim --world sand --ticks 30 --inputs "$tmp/in-num")
c=$("$viv" sim --world sand --ticks 30)
[ "$a" = "$b" ] && ok "element names equal element ids" || fail "name and id inputs differ"
[ "$a" != "$c" ] && ok "an input changes the chain" || fail "the input had no effect"
printf '500 paint 100 50 10 sand\n' > "$tmp/late"
expect "late inputs are reported" 0 "1 input(s) at tick 500 or later were not applied" -- \
    "$viv" sim --world sand --ticks 30 --inputs "$tmp/late"

# PNG output that ordinary tools open (netpbm's pngtopnm), with the right size.
expect "png" 0 - -- "$viv" sim --world sand --ticks 120 --png "$tmp/f.png" --scale 2
if command -v pngtopnm >/dev/null 2>&1; then
    hdr=$(pngtopnm "$tmp/f.png" 2>/dev/null | head -c 20 | tr '\n' ' ')
    case "$hdr" in "P6 640 360 255"*) ok "png opens in pngtopnm at 640x360" ;;
        *) fail "pngtopnm read '$hdr'" ;; esac
else
    fail "pngtopnm (netpbm) missing: scripts/deps.sh should install it"
fi
expect "png into a missing directory" 1 "png: cannot create" -- \
    "$viv" sim --world sand --ticks 1 --png "$tmp/no/such/dir/f.png"
expect "bad scale" 2 "--scale needs an integer in 1..16" -- "$viv" sim --world sand --png "$tmp/x.png" --scale 40

# MMPX (--mmpx 2 or 4, before --scale): twice the size, only colours of the world's palette, and
# a picture other than plain doubling (its edges are reshaped); --mmpx 1 is plain.
colours() { convert "$1" -unique-colors txt:- | grep -o '#[0-9A-F]\{6\}' | sort -u; }
"$viv" sim --world garden --seed 42 --ticks 300 --png "$tmp/g2.png" --scale 2 > /dev/null
expect "png --mmpx 2" 0 - -- "$viv" sim --world garden --seed 42 --ticks 300 --png "$tmp/m2.png" --mmpx 2
expect "png --mmpx 1" 0 - -- "$viv" sim --world garden --seed 42 --ticks 300 --png "$tmp/m1.png" --mmpx 1 --scale 2
case "$(identify -format '%wx%h' "$tmp/m2.png" 2>/dev/null)" in
    640x360) ok "--mmpx 2 doubles the frame" ;; *) fail "--mmpx 2 made $(identify -format '%wx%h' "$tmp/m2.png")" ;; esac
cmp -s "$tmp/m1.png" "$tmp/g2.png" && ok "--mmpx 1 is plain scaling" || fail "--mmpx 1 changed the picture"
cmp -s "$tmp/m2.png" "$tmp/g2.png" && fail "--mmpx 2 is plain doubling" || ok "--mmpx 2 reshapes edges"
if [ -z "$(colours "$tmp/m2.png" | comm -23 - "$(colours "$tmp/g2.png" > "$tmp/g2.c"; echo "$tmp/g2.c")")" ]; then
    ok "--mmpx 2 uses only the frame's colours"
else
    fail "--mmpx 2 made colours the frame does not have"
fi
expect "--mmpx 3" 2 "--mmpx magnifies 2 or 4 times (or 1: not at all), not 3" -- \
    "$viv" sim --world sand --png "$tmp/x.png" --mmpx 3
"$viv" sim --world garden --seed 42 --ticks 40 --record "$tmp/mm.db" > /dev/null 2>&1
expect "replay export --mmpx 4" 0 - -- "$viv" replay export "$tmp/mm.db" --png-dir "$tmp/mm" --from 30 --to 30 --mmpx 4 --quiet
case "$(identify -format '%wx%h' "$tmp/mm/frame-000030.png" 2>/dev/null)" in
    1280x720) ok "replay export --mmpx 4 quadruples the frame" ;; *) fail "replay export --mmpx 4: wrong size" ;; esac
# --webp: an animated lossless WebP (tests/check_webp.c decodes it frame by frame); here the
# command line: its errors, and a file that Debian's webpmux reads with one frame a tick.
expect "replay export: no output" 2 "--gif OUT.gif, --webp OUT.webp, --png-dir DIR or --html OUT.html" -- \
    "$viv" replay export "$tmp/mm.db"
expect "replay export --webp: no such directory" 2 "webp: cannot create $tmp/nodir/x.webp.tmp" -- \
    "$viv" replay export "$tmp/mm.db" --webp "$tmp/nodir/x.webp" --quiet
[ -e "$tmp/nodir" ] && fail "replay export --webp made a directory"
expect "replay export --webp --mmpx 3" 2 "--mmpx magnifies 2 or 4 times (or 1: not at all), not 3" -- \
    "$viv" replay export "$tmp/mm.db" --webp "$tmp/x.webp" --mmpx 3
expect "replay export --webp --scale 17" 2 "--scale needs an integer in 1..16" -- \
    "$viv" replay export "$tmp/mm.db" --webp "$tmp/x.webp" --scale 17
expect "replay export --webp" 0 - -- "$viv" replay export "$tmp/mm.db" --webp "$tmp/mm.webp" --from 10 --to 29 --mmpx 2 --quiet
grep -q "20 frames of session 1 (ticks 10..29, one every 1 tick) written to $tmp/mm.webp" "$tmp/out" \
    || fail "replay export --webp said: $(cat "$tmp/out")"
if command -v webpmux >/dev/null 2>&1; then
    info=$(webpmux -info "$tmp/mm.webp" 2>&1)
    case "$info" in
        *"Canvas size: 640 x 360"*"Number of frames: 20"*) ok "replay export --webp: webpmux reads 20 frames of 640x360" ;;
        *) fail "replay export --webp: webpmux -info says: $info" ;;
    esac
fi

# viv replay export --html: the session as one HTML file (tests/browser/html.test.mjs opens it in
# Chromium); here its errors, and that it loads nothing: no address, no src= or href= in it.
expect "replay export --html" 0 - -- "$viv" replay export "$tmp/mm.db" --html "$tmp/mm.html"
grep -q "written to $tmp/mm.html" "$tmp/out" || fail "replay export --html does not say where: $(cat "$tmp/out")"
if grep -Eq 'https?://|(src|href|action)=' "$tmp/mm.html"; then
    fail "replay export --html: the file names an address or loads something: $(grep -Eo '.{0,30}(https?://|(src|href|action)=).{0,30}' "$tmp/mm.html" | head -3)"
else
    ok "replay export --html: no http(s) address, src= or href= in the file"
fi
grep -q 'data-name="vivarium.wasm"' "$tmp/mm.html" && grep -q 'data-name="player.js"' "$tmp/mm.html" \
    && ok "replay export --html: the sim module and the player are in the file" \
    || fail "replay export --html: the sim module or the player is not in the file"
expect "replay export --html with --gif" 2 "--html writes the whole session with its own player: --gif, --png-dir" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/x.html" --gif "$tmp/x.gif"
expect "replay export --html with --from" 2 "do not go with it" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/x.html" --from 3
expect "replay export --wasm without --html" 2 "--web and --wasm go with --html only" -- \
    "$viv" replay export "$tmp/mm.db" --gif "$tmp/x.gif" --wasm "$tmp/nope.wasm"
expect "replay export --html, no sim module" 2 "cannot read $tmp/nope.wasm" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/x.html" --wasm "$tmp/nope.wasm"
expect "replay export --html, no page folder" 2 "give it with --web DIR" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/x.html" --web "$tmp/nowhere"
expect "replay export --html, unknown session" 2 "session 9 not found" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/x.html" --session 9
expect "replay export --html, unwritable" 2 "cannot write $tmp/no/dir/x.html.tmp" -- \
    "$viv" replay export "$tmp/mm.db" --html "$tmp/no/dir/x.html"
[ -e "$tmp/x.html" ] && fail "a refused replay export --html left $tmp/x.html" || ok "a refused replay export --html writes nothing"

# viv fuzz: a clean campaign is identical three ways and writes its chain; an injected fault
# (the sync-test run drops one tick's inputs) is caught, shrunk, and its case reproduces it.
expect "fuzz: clean" 0 - -- "$viv" fuzz --sessions 3 --ticks 120 --seed 11 --kinds sand \
    --out "$tmp/fz" --chain "$tmp/fz.chain" --quiet
grep -q "3 session(s)" "$tmp/out" && grep -q "all identical" "$tmp/out" || fail "fuzz summary: $(tail -1 "$tmp/out")"
[ "$(grep -c '^session ' "$tmp/fz.chain")" = 3 ] || fail "fuzz chain lacks its 3 sessions"
expect "fuzz: same seed, same chain" 0 - -- "$viv" fuzz --sessions 3 --ticks 120 --seed 11 --kinds sand \
    --out "$tmp/fz" --chain "$tmp/fz2.chain" --quiet
cmp -s "$tmp/fz.chain" "$tmp/fz2.chain" && ok "fuzz chains repeat" || fail "the same seed gave another chain"
expect "fuzz: injected fault" 1 - -- "$viv" fuzz --sessions 1 --ticks 300 --seed 7 --kinds sand \
    --inject-fault 40 --out "$tmp/fzbad" --quiet
grep -q "DIVERGED" "$tmp/out" || fail "fuzz did not report the divergence"
case_file=$(ls "$tmp"/fzbad/repro-*.case 2>/dev/null | head -1)
[ -n "$case_file" ] && [ -s "${case_file%.case}.inputs" ] && [ -s "${case_file%.case}.db" ] \
    && ok "fuzz wrote case, inputs and db" || fail "fuzz reproducer files missing"
[ "$(grep -c '^input ' "$case_file")" -le 2 ] && ok "fuzz shrank the case" || fail "fuzz case not shrunk: $(grep -c '^input ' "$case_file") inputs"
grep -q "reproduce with: viv fuzz --case $case_file" "$tmp/out" || fail "fuzz did not print the command"
expect "fuzz: the case reproduces" 1 - -- "$viv" fuzz --case "$case_file" --out "$tmp/fzbad"
expect "fuzz: bad kind" 2 "unknown world kind 'marble'" -- "$viv" fuzz --kinds marble

# viv fuzz --shard/--merge (issue 18): a campaign run whole and as 3 shards gives the same report
# once merged ("seconds" aside), clean and with a divergence in a later session (seed 7 with the
# fault hook at tick 150 first diverges at session 4: shard 3 has run past it, and the merge
# stops where the unsharded run stops); bad shards and bad reports are refused plainly.
fuzz_shards() {   # name status args…: the whole run, its 3 shards, the merge; compare
    fsn=$1; fsw=$2; shift 2
    "$viv" fuzz "$@" --report "$tmp/sh-all.json" > /dev/null 2>&1
    got=$?
    [ "$got" = "$fsw" ] || fail "fuzz $fsn: the whole campaign exited $got, wanted $fsw"
    for k in 1 2 3; do
        "$viv" fuzz "$@" --shard $k/3 --report "$tmp/sh-$k.json" > "$tmp/sh-$k.out" 2>&1
        [ $? -le 1 ] || fail "fuzz $fsn: shard $k/3 failed: $(tail -2 "$tmp/sh-$k.out")"
    done
    expect "fuzz $fsn: merge" "$fsw" - -- "$viv" fuzz --merge "$tmp/sh-3.json" "$tmp/sh-1.json" "$tmp/sh-2.json" -o "$tmp/sh-merged.json"
    grep -v '"seconds"' "$tmp/sh-all.json" > "$tmp/sh-a"
    grep -v '"seconds"' "$tmp/sh-merged.json" > "$tmp/sh-b"
    cmp -s "$tmp/sh-a" "$tmp/sh-b" && ok "fuzz $fsn: 3 shards merged equal the whole campaign's report" \
        || fail "fuzz $fsn: the merged report differs: $(diff "$tmp/sh-a" "$tmp/sh-b" | head -4)"
}
fuzz_shards "shards" 0 --sessions 6 --ticks 60 --seed 11 --kinds sand --quiet --out "$tmp/fzsh"
grep -q '"index": 5' "$tmp/sh-merged.json" && ok "fuzz shards: all 6 sessions merged" || fail "fuzz shards: $(cat "$tmp/sh-merged.json")"
[ "$(grep -c '"index"' "$tmp/sh-2.json")" = 2 ] && grep -q '"index": 4' "$tmp/sh-2.json" \
    && ok "fuzz --shard 2/3 runs sessions 1 and 4" || fail "fuzz --shard 2/3: $(cat "$tmp/sh-2.json")"
cp "$tmp/sh-1.json" "$tmp/good-1.json"; cp "$tmp/sh-2.json" "$tmp/good-2.json"; cp "$tmp/sh-3.json" "$tmp/good-3.json"
fuzz_shards "divergence" 1 --sessions 9 --ticks 200 --seed 7 --kinds sand --inject-fault 150 --no-shrink \
    --quiet --out "$tmp/fzsh"
grep -q '"index": 5' "$tmp/sh-3.json" && ! grep -q '"index": 5' "$tmp/sh-merged.json" \
    && ok "fuzz divergence: the merge stops at the first divergent session" || fail "fuzz divergence: $(grep -c index "$tmp/sh-merged.json") sessions merged"
"$viv" fuzz --sessions 2 --ticks 30 --seed 3 --kinds sand --report - 2> /dev/null | head -1 | grep -qx '{' \
    && ok "fuzz --report -: JSON on stdout" || fail "fuzz --report - does not start with {"
expect "fuzz --shard K>N" 2 "viv fuzz: --shard 4/3: K must be in 1..N" -- "$viv" fuzz --seed 1 --shard 4/3
expect "fuzz --shard N=0" 2 "viv fuzz: --shard 0/0: N must be at least 1" -- "$viv" fuzz --seed 1 --shard 0/0
expect "fuzz --shard x" 2 "--shard needs K/N" -- "$viv" fuzz --seed 1 --shard 2
expect "fuzz --shard needs --seed" 2 "needs --seed S" -- "$viv" fuzz --shard 1/2
expect "fuzz --shard with --seconds" 2 "not --seconds" -- "$viv" fuzz --seed 1 --shard 1/2 --seconds 5
printf '{"report": "viv fuzz", "version": 1,\n  "campaign": {"seed": 11,' > "$tmp/broken.json"
expect "fuzz --merge: malformed" 2 "broken.json is not a viv fuzz report: line 2" -- "$viv" fuzz --merge "$tmp/broken.json"
expect "fuzz --merge: missing file" 2 "cannot open the report" -- "$viv" fuzz --merge "$tmp/absent.json"
expect "fuzz --merge: a shard missing" 2 "missing 3/3" -- "$viv" fuzz --merge "$tmp/good-1.json" "$tmp/good-2.json"
expect "fuzz --merge: a shard twice" 2 "are both slice 2/3" -- "$viv" fuzz --merge "$tmp/good-1.json" "$tmp/good-2.json" "$tmp/good-2.json"
expect "fuzz --merge: different campaigns" 2 "are reports of different campaigns (seed 11 against 7)" -- \
    "$viv" fuzz --merge "$tmp/good-1.json" "$tmp/good-2.json" "$tmp/sh-3.json"
sed 's/"seed": 11,/"seed": 12,/' "$tmp/good-3.json" > "$tmp/other-3.json"
expect "fuzz --merge: another seed" 2 "(seed 11 against 12)" -- "$viv" fuzz --merge "$tmp/good-1.json" "$tmp/good-2.json" "$tmp/other-3.json"
sed '/"totals"/s/"ticks": [0-9]*/"ticks": 1/' "$tmp/good-3.json" > "$tmp/cut-3.json"
expect "fuzz --merge: damaged totals" 2 "its totals are not the sums of its sessions" -- \
    "$viv" fuzz --merge "$tmp/good-1.json" "$tmp/good-2.json" "$tmp/cut-3.json"
# A shard that stopped early (here: its report made by a 3-session run, relabelled 6) is refused.
"$viv" fuzz --sessions 3 --ticks 60 --seed 11 --kinds sand --quiet --shard 1/3 --report "$tmp/short-1.json" > /dev/null 2>&1
sed '/"campaign"/s/"sessions": 3,/"sessions": 6,/' "$tmp/short-1.json" > "$tmp/early-1.json"
expect "fuzz --merge: an incomplete shard" 2 "holds 1 session but its slice has 2 before the campaign ends" -- \
    "$viv" fuzz --merge "$tmp/early-1.json" "$tmp/good-2.json" "$tmp/good-3.json"
"$viv" fuzz --help | grep -q -- "--merge" && "$viv" fuzz --help | grep -q -- "--shard K/N" \
    && ok "fuzz --help names --shard and --merge" || fail "fuzz --help lacks --shard or --merge"

# ---- issue 13's small things ----------------------------------------------------------------------
# The short usage at the top of `viv sim --help` (up to its first blank line) names every flag.
"$viv" sim --help | sed '/^$/q' > "$tmp/usage"
for flag in --gif --webp --gif-every --record --png --scale --inputs; do
    grep -qF -- "[$flag " "$tmp/usage" || fail "viv sim usage line lacks $flag: $(cat "$tmp/usage")"
done
ok "viv sim usage names --gif, --webp, --gif-every and --record"

# A bad number is reported by the subcommand, as its other errors are: `viv sim: …`, not `viv: …`.
# starts <name> <prefix> -- command...: exit 2, and the first stderr line begins with prefix.
starts() {
    name=$1; prefix=$2; shift 3
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    first=$(head -1 "$tmp/err")
    if [ "$got" != 2 ]; then fail "$name: exit $got, wanted 2 ($first)"; return; fi
    case "$first" in "$prefix"*) ok "$name" ;; *) fail "$name: stderr starts '$first', wanted '$prefix'" ;; esac
}
starts "sim --ticks -5" "viv sim: --ticks needs a non-negative integer, got '-5'" -- "$viv" sim --world sand --ticks -5
starts "sim --scale 40" "viv sim: --scale needs an integer in 1..16" -- "$viv" sim --world sand --scale 40
starts "sim --gif-every 0" "viv sim: --gif-every needs an integer in 1..100000" -- "$viv" sim --world sand --gif-every 0
starts "fuzz --ticks -5" "viv fuzz: --ticks needs an integer in 1..10000000" -- "$viv" fuzz --ticks -5
starts "fuzz --seed x" "viv fuzz: --seed needs a non-negative integer" -- "$viv" fuzz --seed x
starts "replay verify --from -1" "viv replay verify: --from needs a non-negative integer" -- \
    "$viv" replay verify "$tmp/none.db" --from -1
starts "replay export --scale 0" "viv replay export: --scale needs an integer in 1..16" -- \
    "$viv" replay export "$tmp/none.db" --scale 0
starts "cycle --tick -1" "viv cycle: --tick needs a non-negative integer" -- "$viv" cycle convert --tick -1
expect "viv bot --help" 0 - -- "$viv" bot --help
grep -q -- "--host ws://H:P/PATH" "$tmp/out" && grep -q -- "--ws " "$tmp/out" \
    && ok "bot --help names the WebSocket address and --ws" || fail "bot --help does not name --ws"
starts "bot --clients -1" "viv bot: --clients needs an integer in 0..100000" -- "$viv" bot --clients -1
starts "bot --rect 0x9" "viv bot: --rect wants WxH (each 1..4096), got '0x9'" -- "$viv" bot --rect 0x9
starts "bot --host list, a bad address" "viv bot: --host address 2 of '127.0.0.1:1,nowhere' is not HOST:PORT" -- \
    "$viv" bot --host 127.0.0.1:1,nowhere
starts "bot --host list over WebSocket" "viv bot: a list of addresses goes over TCP only" -- \
    "$viv" bot --ws --host 127.0.0.1:1,127.0.0.1:2
starts "view --every 0" "viv view: --every needs an integer in 1..3600" -- "$viv" view --every 0

# viv fuzz: a session with default params reads `params=(default)`, no stray comma; a clean
# campaign (recorded, the default) leaves no ./fuzz-out and no temporary directory behind.
# Seed 1 draws default params for session 2 (its terrarium refuses the random ones); the draws
# depend on the kinds list, so a new kind may need another seed here.
mkdir "$tmp/fzcwd" "$tmp/fztmp"
aviv=$(cd "$(dirname "$viv")" && pwd)/$(basename "$viv")     # for runs in another directory
(cd "$tmp/fzcwd" && TMPDIR="$tmp/fztmp" "$aviv" fuzz --sessions 3 --ticks 4 --seed 1) > "$tmp/out" 2> "$tmp/err" \
    && ok "fuzz: a clean campaign" || fail "fuzz: a clean campaign failed: $(tail -3 "$tmp/err")"
grep -q "params=(default) ticks=" "$tmp/out" && ok "fuzz: default params read params=(default)" \
    || fail "fuzz: seed 1 no longer draws default params (pick another seed): $(grep '^session' "$tmp/out" | head -3)"
if grep -E '^session' "$tmp/out" | grep -Eq ' ,|=,|,,|=:'; then
    fail "fuzz: a stray separator: $(grep -E '^session' "$tmp/out" | grep -E ' ,|=,|,,|=:' | head -1)"
else ok "fuzz: no stray comma"; fi
[ -e "$tmp/fzcwd/fuzz-out" ] && fail "fuzz: a clean campaign left ./fuzz-out" || ok "fuzz: no ./fuzz-out without a case"
[ -z "$(ls -A "$tmp/fztmp")" ] && ok "fuzz: its temporary recordings are gone" \
    || fail "fuzz: left in TMPDIR: $(ls -A "$tmp/fztmp")"
# A session of a world bigger than 640x480 runs as many ticks as 640x480's pixels' worth, so a
# campaign keeps to its --seconds: seed 149931104704743's session 66 is a 4096x2048 sand world, and
# `viv fuzz --seed 149931104704743 --seconds 30` ran 445 s with it at full length (34 s now); it
# runs 13 ticks (8,388,608 pixels: 640x480's times 27).
"$viv" fuzz --seed 149931104704743 --sessions 67 --shard 67/67 --kinds sand --no-record \
    --report "$tmp/big.json" --quiet > "$tmp/out" 2>&1
grep -q '"index": 66, "kind": "sand", .*"params": "w=4096,h=2048,scene=bench", "ticks": 13,' "$tmp/big.json" \
    && ok "fuzz: a 4096x2048 session runs 13 ticks" \
    || fail "fuzz: the big session: $(grep '"index"' "$tmp/big.json" 2>/dev/null || tail -2 "$tmp/out")"
printf 'kind sand\nseed 1\nparams \nticks 30\nfault 0\n' > "$tmp/plain.case"
(cd "$tmp/fzcwd" && TMPDIR="$tmp/fztmp" "$aviv" fuzz --case "$tmp/plain.case") > "$tmp/out" 2>&1
grep -qF "params=(default) ticks=30" "$tmp/out" && ok "fuzz --case: default params" || fail "fuzz --case: $(cat "$tmp/out")"
[ -e "$tmp/fzcwd/fuzz-out" ] && fail "fuzz --case left ./fuzz-out" || ok "fuzz --case: no ./fuzz-out"
grep -qx "/fuzz-out/" "$(dirname "$0")/../.gitignore" && ok ".gitignore has /fuzz-out/" || fail ".gitignore lacks /fuzz-out/"

# verify: a damaged file (a hash row gone, a truncated copy) is counted and said as damaged, not
# as diverged and not as someone else's file; exit status 2. (Schema 3's rows, a tick row a tick,
# which the damage below edits with sqlite3; tests/check_replay.c damages schema 4's blocks.)
rdb=$tmp/rec.db
"$viv" sim --world sand --params w=64,h=48 --ticks 700 --record "$rdb" --record-format 3 > /dev/null 2>&1 &&
    "$viv" sim --world sand --params w=64,h=48 --seed 2 --ticks 300 --record "$rdb" --record-format 3 > /dev/null 2>&1 ||
    fail "viv sim --record failed"
if command -v sqlite3 > /dev/null 2>&1; then
    sqlite3 "$rdb" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    cp "$rdb" "$tmp/hole.db"
    sqlite3 "$tmp/hole.db" "DELETE FROM tick WHERE session = 1 AND tick = 500"
    expect "verify: a missing hash row is damage" 2 "session 1 of $tmp/hole.db is damaged: the recorded hashes of tick 500 are missing" -- \
        "$viv" replay verify --all --quiet "$tmp/hole.db"
    grep -qx "2 sessions: 1 bit-exact, 0 diverged, 1 damaged, 0 not verifiable" "$tmp/out" \
        && ok "verify --all counts it as damaged" || fail "verify --all summary: $(tail -1 "$tmp/out")"
    grep -q "desync" "$tmp/out" && fail "verify: a missing row printed a desync report"
    expect "verify --session: damaged is exit 2" 2 "is damaged" -- "$viv" replay verify --session 1 --quiet "$tmp/hole.db"
    expect "verify: the good session still passes" 0 - -- "$viv" replay verify --session 2 --quiet "$tmp/hole.db"
    sz=$(wc -c < "$rdb")
    for cut in $((sz / 2)) 4096 60; do
        head -c "$cut" "$rdb" > "$tmp/cut.db"
        expect "verify: a copy cut at $cut bytes is damaged" 2 "$tmp/cut.db is damaged (truncated" -- \
            "$viv" replay verify --all --quiet "$tmp/cut.db"
        grep -q "not a Vivarium replay file" "$tmp/err" && fail "verify: a cut copy is called not ours: $(cat "$tmp/err")"
        grep -q "restore the file from a backup" "$tmp/err" || fail "verify: a cut copy gets no next step: $(cat "$tmp/err")"
        rm -f "$tmp/cut.db" "$tmp/cut.db-wal" "$tmp/cut.db-shm"
    done
    "$viv" replay verify --help | grep -q "damaged" && ok "verify --help explains damaged" || fail "verify --help does not say damaged"
    # Issue 28 item 8: one recorded hash flipped (8 bytes, ~) is damage, not a desync: the replay
    # matches every later row again. Said with the session, tick, column and the next step.
    for col in state_hash frame_hash; do
        cp "$rdb" "$tmp/flip.db"
        sqlite3 "$tmp/flip.db" "UPDATE tick SET $col = ~$col WHERE session = 1 AND tick = 121"
        expect "verify: a flipped $col is damage" 2 "session 1 of $tmp/flip.db is damaged, not desynced" -- \
            "$viv" replay verify --session 1 --quiet "$tmp/flip.db"
        grep -qF "tick 121, its recorded ${col%_hash} hash: recorded" "$tmp/err" \
            && grep -qF "next: sqlite3 $tmp/flip.db 'PRAGMA integrity_check'" "$tmp/err" \
            && ok "verify: a flipped $col names where and what to do" || fail "verify: flipped $col: $(cat "$tmp/err")"
        grep -q "desync in\|no field differs\|only the picture differs" "$tmp/out" \
            && fail "verify: a flipped $col still reads as a desync: $(head -3 "$tmp/out")"
        "$viv" replay verify --session 1 --quiet --report "$tmp/norep" "$tmp/flip.db" > /dev/null 2>&1
        [ -e "$tmp/norep" ] && fail "verify --report wrote a bundle for a damaged file"
        rm -f "$tmp/flip.db"
    done
    # viv replay hashes: what schema 4 keeps (docs/REPLAY.md, "Recorded hashes"): the low 8 bits
    # of most ticks, both hashes whole at the end of each block of 240; --replayed prints the
    # replay's whole hashes once they agree with those bits, and refuses where they do not.
    "$viv" sim --world sand --params w=64,h=48 --ticks 300 --record "$tmp/h4.db" > /dev/null 2>&1 || fail "sim --record (schema 4)"
    # A big world's checkpoints come more often, so that a seek or a resume replays about as much
    # as in a 640x480 one (docs/REPLAY.md): 2048x1024 holds seven 640x480s, and 60 s / 7 is under
    # the 20 s floor; 960x480 holds 1.5 (rounded up: 2), 30 s; a 640x480 world keeps 60 s.
    # (Empty scenes: cheap to step whatever the size.)
    "$viv" sim --world sand --params w=2048,h=1024,scene=empty --ticks 2500 --record "$tmp/cpbig.db" > /dev/null 2>&1 &&
        "$viv" sim --world sand --params w=960,h=480,scene=empty --ticks 3700 --record "$tmp/cpbig.db" > /dev/null 2>&1 &&
        "$viv" sim --world sand --params w=640,h=480,scene=empty --ticks 3700 --record "$tmp/cpbig.db" > /dev/null 2>&1 ||
        fail "sim --record of a 2048x1024, a 960x480 and a 640x480 world"
    got=$(sqlite3 "$tmp/cpbig.db" "SELECT session || ':' || group_concat(tick, ',') FROM (SELECT session, tick FROM checkpoint ORDER BY session, tick) GROUP BY session" | tr '\n' ' ')
    [ "$got" = "1:0,1200,2400 2:0,1800,3600 3:0,3600 " ] &&
        ok "checkpoints: every 20 s at 2048x1024, 30 s at 960x480, 60 s at 640x480" ||
        fail "checkpoints of a 2048x1024, a 960x480 and a 640x480 world at ticks '$got', not '1:0,1200,2400 2:0,1800,3600 3:0,3600 '"
    "$viv" replay info "$tmp/cpbig.db" --session 1 > "$tmp/out" 2>&1 &&
        grep -q "^  checkpoints   3 (every 1200 ticks: 20 s of world time)$" "$tmp/out" &&
        ok "info: checkpoints every 1200 ticks: 20 s of world time" ||
        fail "info of a 2048x1024 world: $(grep checkpoints "$tmp/out")"
    expect "verify: a 2048x1024 world's recording" 0 - -- "$viv" replay verify "$tmp/cpbig.db" --session 1
    expect "hashes: three ticks" 0 - -- "$viv" replay hashes "$tmp/h4.db" --from 239 --to 241
    # (mawk, Debian's awk, has no {n} in its patterns: lengths are checked apart)
    awk 'NR == 1 && $1 == 239 && $2 ~ /^\.+[0-9a-f][0-9a-f]$/ && length($2) == 16 && $4 == 8 { a = 1 }
         NR == 2 && $1 == 240 && $2 ~ /^[0-9a-f]+$/ && $3 ~ /^[0-9a-f]+$/ && length($2 $3) == 32 && $4 == 64 { b = 1 }
         NR == 3 && $1 == 241 && $4 == 8 { c = 1 } END { exit !(a && b && c && NR == 3) }' "$tmp/out" \
        && ok "hashes: 8 bits, then whole at a block's end" || fail "hashes: $(cat "$tmp/out")"
    cp "$tmp/out" "$tmp/h4.rec"
    expect "hashes --replayed" 0 - -- "$viv" replay hashes "$tmp/h4.db" --from 239 --to 241 --replayed
    # each replayed hash (16 digits, 64 bits) ends in the digits the file keeps for that tick
    paste -d' ' "$tmp/h4.rec" "$tmp/out" | awk '{
            for (i = 2; i <= 3; i++) { kept = $i; gsub(/\./, "", kept)
                if ($(i + 4) !~ /^[0-9a-f]+$/ || length($(i + 4)) != 16 || substr($(i + 4), 17 - length(kept)) != kept) bad = 1 }
            if ($1 != $5 || $8 != 64) bad = 1 } END { exit bad || NR != 3 }' \
        && ok "hashes --replayed: whole hashes that end in the recorded bits" || fail "hashes --replayed: $(paste -d' ' "$tmp/h4.rec" "$tmp/out")"
    sqlite3 "$tmp/h4.db" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    sqlite3 "$tmp/h4.db" "UPDATE hashes SET last_sh = last_sh + 1 WHERE session = 1 AND tick = 1"
    expect "hashes --replayed: a changed hash is refused" 1 "tick 240: the replay's hashes" -- \
        "$viv" replay hashes "$tmp/h4.db" --from 239 --to 241 --replayed
    # viv replay upgrade: schema 3's rows rewritten, the file as it was kept beside it, refused
    # while a FILE.schema3 is there; tests/check_compat.c checks what it writes.
    cp "$rdb" "$tmp/up.db"
    expect "upgrade" 0 - -- "$viv" replay upgrade "$tmp/up.db" --quiet
    grep -q "^session 1: rewritten: 700 tick rows into 3 blocks of hashes" "$tmp/out" \
        && grep -q "2 of 2 sessions rewritten" "$tmp/out" && [ -s "$tmp/up.db.schema3" ] \
        && ok "upgrade: says what it rewrote, keeps the old file" || fail "upgrade: $(cat "$tmp/out")"
    expect "upgrade: the result verifies" 0 - -- "$viv" replay verify --all --quiet "$tmp/up.db"
    expect "upgrade: again, nothing to do" 0 - -- "$viv" replay upgrade "$tmp/up.db" --quiet
    grep -q "nothing to rewrite" "$tmp/out" && ok "upgrade: a second run changes nothing" || fail "upgrade again: $(cat "$tmp/out")"
    cp "$rdb" "$tmp/up.db"
    expect "upgrade: refused beside an old copy" 2 "up.db.schema3 exists" -- "$viv" replay upgrade "$tmp/up.db" --quiet
    rm -f "$tmp/up.db" "$tmp/up.db.schema3" "$tmp/up.db-wal" "$tmp/up.db-shm"
    # A page of the tick table overwritten: SQLite's "malformed" becomes the same kind of sentence.
    cp "$rdb" "$tmp/page.db"
    root=$(sqlite3 "$rdb" "SELECT rootpage FROM sqlite_schema WHERE name = 'tick'")
    psize=$(sqlite3 "$rdb" "PRAGMA page_size")
    head -c "$psize" /dev/zero | tr '\000' '\377' | dd of="$tmp/page.db" bs="$psize" seek=$((root - 1)) conv=notrunc 2> /dev/null
    expect "verify: an overwritten page is damage" 2 "$tmp/page.db is damaged: SQLite cannot read" -- \
        "$viv" replay verify --session 1 --quiet "$tmp/page.db"
    grep -qF "PRAGMA integrity_check" "$tmp/err" && grep -qF "restore the file from a backup" "$tmp/err" \
        && ok "verify: an overwritten page says what to do" || fail "verify: overwritten page: $(cat "$tmp/err")"
    rm -f "$tmp/page.db"
    # Desync forensics: a recording with phase hashes (--phases; the run is the same), one logged
    # input changed afterwards: verify names the phase (the inputs), --report writes the bundle,
    # and its README's command reproduces it. On a clean file --report writes nothing.
    printf '5 paint 10 10 3 sand\n300 paint 30 20 4 water\n' > "$tmp/ph.in"
    expect "sim --phases needs --record" 2 "--phases records phase hashes: it needs --record FILE" -- \
        "$viv" sim --world sand --ticks 5 --phases
    a=$("$viv" sim --world sand --params w=64,h=48 --ticks 700 --inputs "$tmp/ph.in" --record "$tmp/ph.db" --record-format 3 --phases 2> /dev/null | tail -1)
    b=$("$viv" sim --world sand --params w=64,h=48 --ticks 700 --inputs "$tmp/ph.in" | tail -1)
    [ -n "$a" ] && [ "$a" = "$b" ] && ok "sim --phases: the same run" || fail "sim --phases changed the run: '$a' vs '$b'"
    sqlite3 "$tmp/ph.db" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
    [ "$(sqlite3 "$tmp/ph.db" "SELECT count(*) FROM phase WHERE tick = 301")" -ge 3 ] \
        && ok "sim --phases: the phase table has the step's phases" || fail "sim --phases: no phase rows"
    expect "verify --report: a clean file" 0 - -- "$viv" replay verify --quiet --report "$tmp/clean-rep" "$tmp/ph.db"
    grep -qF "no desync: nothing written to $tmp/clean-rep" "$tmp/out" && [ ! -e "$tmp/clean-rep" ] \
        && ok "verify --report: nothing written when bit-exact" || fail "verify --report on a clean file: $(cat "$tmp/out")"
    cp "$tmp/ph.db" "$tmp/ph-bad.db"
    sqlite3 "$tmp/ph-bad.db" "UPDATE input SET args = X'1e000000140000000600000003000000' WHERE tick = 300"
    expect "verify --report: a desync" 1 - -- "$viv" replay verify --quiet --report "$tmp/rep" "$tmp/ph-bad.db"
    grep -qF "first divergent tick: 301 " "$tmp/out" && grep -qF "first divergent phase: 'inputs', phase 1 of" "$tmp/out" \
        && ok "verify: names the divergent phase" || fail "verify: phase not named: $(cat "$tmp/out")"
    for f in README.txt before.state recorded.state replayed.state diff.txt inputs.txt phases.txt; do
        [ -s "$tmp/rep/$f" ] || fail "verify --report: the bundle lacks $f"
    done
    grep -qF "300 0 2: paint x=30 y=20 r=6 element=sand" "$tmp/rep/inputs.txt" && grep -q "FIRST DIFFERENT" "$tmp/rep/phases.txt" \
        && grep -q "^cell (" "$tmp/rep/diff.txt" && ok "verify --report: the bundle's inputs, phases and diff" \
        || fail "verify --report: bundle contents: $(cat "$tmp/rep/inputs.txt" "$tmp/rep/phases.txt" | head -20)"
    cmd=$(grep -A1 "^To reproduce" "$tmp/rep/README.txt" | tail -1 | sed 's/^ *viv //')
    rm -rf "$tmp/rep"
    # shellcheck disable=SC2086
    eval "\"\$viv\" $cmd --quiet" > "$tmp/out2" 2>&1
    [ $? = 1 ] && grep -qF "first divergent tick: 301 " "$tmp/out2" && [ -s "$tmp/rep/README.txt" ] \
        && ok "verify --report: the README's command reproduces it" || fail "verify --report: '$cmd' gave: $(head -5 "$tmp/out2")"
    # replay collect: two files into one, verified with the verdicts each had (2 + 1 bit-exact,
    # 1 damaged); the error cases say why and write nothing.
    expect "collect: two files" 0 - -- "$viv" replay collect "$rdb" --node east "$tmp/hole.db" -o "$tmp/all.db" --quiet
    grep -q "4 sessions from 2 files" "$tmp/out" && grep -Eq '^ +4 +east +2 ' "$tmp/out" \
        && ok "collect names each session's node and id" || fail "collect output: $(cat "$tmp/out")"
    expect "collect: verify --all" 2 "is damaged" -- "$viv" replay verify --all --quiet "$tmp/all.db"
    grep -qx "4 sessions: 3 bit-exact, 0 diverged, 1 damaged, 0 not verifiable" "$tmp/out" \
        && ok "collect: the same verdicts" || fail "collect: verify --all summary: $(tail -1 "$tmp/out")"
    "$viv" replay list "$tmp/all.db" | grep -Eq ' rec +1$' && ok "collect: list shows node and id" \
        || fail "collect: list: $("$viv" replay list "$tmp/all.db")"
    expect "collect: output exists" 2 "exists: name a new file, or add --force" -- "$viv" replay collect "$rdb" -o "$tmp/all.db"
    expect "collect: --force" 0 - -- "$viv" replay collect "$rdb" -o "$tmp/all.db" --force --quiet
    expect "collect: a missing file" 2 "$tmp/nope.db: no such file" -- "$viv" replay collect "$rdb" "$tmp/nope.db" -o "$tmp/c1.db"
    expect "collect: not a replay file" 2 "is not a Vivarium replay file" -- "$viv" replay collect "$tmp/chain1" -o "$tmp/c1.db"
    cp "$rdb" "$tmp/newer.db" && sqlite3 "$tmp/newer.db" "PRAGMA user_version = 9"
    expect "collect: a newer format" 2 "use a newer Vivarium" -- "$viv" replay collect "$rdb" "$tmp/newer.db" -o "$tmp/c1.db"
    expect "collect: no output named" 2 "name the new file with -o OUT" -- "$viv" replay collect "$rdb"
    expect "collect: --node names no file" 2 "--node x names no file" -- "$viv" replay collect "$rdb" -o "$tmp/c1.db" --node x
    [ -e "$tmp/c1.db" ] && fail "collect: a refused collect left $tmp/c1.db" || ok "collect: nothing written when refused"
    ls "$tmp" | grep -q 'collect-.*tmp' && fail "collect left a temporary file" || ok "collect: no temporary file left"
    # replay drop and compact (issue 32): what they say and refuse (tests/check_retain.c tests what
    # they do to the rows).
    cp "$rdb" "$tmp/ret.db"
    expect "drop: no session named" 2 "which sessions? name them after the file" -- "$viv" replay drop "$tmp/ret.db"
    expect "drop: not an id" 2 "'two' is not a session id" -- "$viv" replay drop "$tmp/ret.db" two
    expect "drop: an unknown session" 2 "session 7 not found in $tmp/ret.db (sessions: 1, 2)" -- \
        "$viv" replay drop "$tmp/ret.db" 7
    expect "drop: a missing file" 2 "$tmp/nope.db: no such file" -- "$viv" replay drop "$tmp/nope.db" 1
    [ -e "$tmp/nope.db" ] && fail "drop created the missing file"
    expect "compact: no --older-than" 2 "nothing is compacted without it" -- "$viv" replay compact "$tmp/ret.db"
    expect "compact: a combined duration" 2 "--older-than '1d12h' is not a duration: one number and one unit" -- \
        "$viv" replay compact "$tmp/ret.db" --older-than 1d12h
    expect "compact: a zero duration" 2 "the duration must be more than 0" -- "$viv" replay compact "$tmp/ret.db" --older-than 0h
    expect "compact: nothing old enough" 0 - -- "$viv" replay compact "$tmp/ret.db" --older-than 30d
    grep -q "^nothing to compact in $tmp/ret.db: .* (2 closed since, 0 compacted before)$" "$tmp/out" \
        && ok "compact says there was nothing to compact" || fail "compact, nothing to do: $(cat "$tmp/out")"
    sqlite3 "$tmp/ret.db" "UPDATE session SET closed_at = '2020-01-01T00:00:00Z' WHERE id = 1"
    # (What is printed of the rows depends on the format this build records: tick rows or hash
    # blocks. The sessions and the grain do not.)
    before=$(sqlite3 "$tmp/ret.db" .dump | cksum)
    expect "compact --dry-run" 0 - -- "$viv" replay compact "$tmp/ret.db" --older-than 30d --dry-run
    grep -qF "session 1 (sand, closed 2020-01-01T00:00:00Z, ticks 0..700) would be thinned: " "$tmp/out" \
        && grep -q "nothing was written$" "$tmp/out" && [ "$(sqlite3 "$tmp/ret.db" .dump | cksum)" = "$before" ] \
        && ok "compact --dry-run says what it would thin and writes nothing" || fail "compact --dry-run: $(cat "$tmp/out")"
    expect "compact" 0 - -- "$viv" replay compact "$tmp/ret.db" --older-than 30d
    grep -q "^1 session compacted in $tmp/ret.db: " "$tmp/out" && grep -qF "grain: a hash every 600 ticks, a checkpoint every 600 ticks at most" "$tmp/out" \
        && ok "compact says what it thinned" || fail "compact: $(cat "$tmp/out")"
    "$viv" replay list "$tmp/ret.db" | grep -Eq '^ +1 .*closed .* 600/600$' && ok "list shows the grain" \
        || fail "list: $("$viv" replay list "$tmp/ret.db")"
    "$viv" replay info "$tmp/ret.db" --session 1 | grep -q "^  grain         compacted .*: a recorded hash every 600 ticks" \
        && ok "info shows the grain" || fail "info: $("$viv" replay info "$tmp/ret.db" --session 1)"
    expect "collect: a compacted session" 0 - -- "$viv" replay collect "$tmp/ret.db" -o "$tmp/retall.db" --quiet
    "$viv" replay list "$tmp/retall.db" | grep -Eq '^ +1 .* 600/600$' && ok "collect copies the grain" \
        || fail "collect of a compacted file: $("$viv" replay list "$tmp/retall.db")"
    expect "drop: a session" 0 - -- "$viv" replay drop "$tmp/ret.db" 2
    grep -q "^dropped session 2 (sand, ticks 0..300, closed): .*1 checkpoint$" "$tmp/out" \
        && grep -qF "the file keeps its size (VACUUM was not run: --vacuum)" "$tmp/out" \
        && ok "drop says what it dropped and that it did not VACUUM" || fail "drop: $(cat "$tmp/out")"
    expect "drop --vacuum" 0 - -- "$viv" replay drop "$tmp/ret.db" 1 --vacuum
    grep -q "VACUUM: the file went from [0-9]* to [0-9]* bytes$" "$tmp/out" && ok "drop --vacuum says the sizes" \
        || fail "drop --vacuum: $(cat "$tmp/out")"
else
    fail "sqlite3 (the command) missing: scripts/deps.sh should install it"
fi

# --threads: the workers of the worlds' parallel passes (sand's strips) change nothing a world
# shows or records. The same chain for 1, 2, 3 and 8 workers; a file recorded with 4 verifies
# with 1 and with 3; vivd records with 4, verifies with 1, resumes with 1 and verifies with 2.
expect "sim --threads 0" 2 "--threads needs an integer in 1..64, got '0'" -- "$viv" sim --world sand --threads 0
expect "fuzz --threads two" 2 "--threads needs an integer in 1..64, got 'two'" -- "$viv" fuzz --threads two
expect "verify --threads 65" 2 "--threads needs an integer in 1..64, got '65'" -- "$viv" replay verify --threads 65 "$tmp/none.db"
"$viv" sim --help | grep -q -- "--threads N" && ok "sim --help names --threads" || fail "sim --help lacks --threads"
"$viv" sim --world sand --seed 5 --ticks 600 --every 100 --threads 1 > "$tmp/th1" 2>&1
for n in 2 3 8; do
    "$viv" sim --world sand --seed 5 --ticks 600 --every 100 --threads $n > "$tmp/th$n" 2>&1
    cmp -s "$tmp/th1" "$tmp/th$n" && ok "sim: the same chain with 1 and $n workers" \
        || fail "sim: 1 and $n workers differ: $(diff "$tmp/th1" "$tmp/th$n" | head -3)"
done
"$viv" sim --world sand --seed 6 --ticks 700 --threads 4 --record "$tmp/th4.db" > /dev/null 2>&1 \
    || fail "sim --threads 4 --record failed"
for n in 1 3; do
    expect "verify --threads $n: a file recorded with 4 workers" 0 - -- "$viv" replay verify --threads $n --quiet "$tmp/th4.db"
    grep -q "bit-exact: 700 ticks" "$tmp/out" || fail "verify --threads $n: $(head -2 "$tmp/out")"
done
vivd=$(dirname "$viv")/vivd
if [ -x "$vivd" ]; then
    # vivd_run THREADS EXTRA [DB]: host what DB (th.db) holds, plus EXTRA's worlds, for a second,
    # then stop it cleanly; its log (info lines too) is in thvivd.log.
    vivd_run() {
        rm -f "$tmp/thport"
        "$vivd" --listen 127.0.0.1:0 --no-http --port-file "$tmp/thport" --db "${3:-$tmp/th.db}" --threads "$1" \
            --admin-token cli-admin --player-token cli-player $2 > "$tmp/thvivd.log" 2>&1 &
        th_pid=$!
        n=0
        while [ $n -lt 100 ] && ! grep -Eq '^[0-9]+' "$tmp/thport" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
        sleep 1
        kill -TERM "$th_pid" 2>/dev/null
        wait "$th_pid" || fail "vivd --threads $1 exited $?: $(cat "$tmp/thvivd.log")"
    }
    vivd_run 4 "--world sand:seed=4"
    expect "vivd --threads 4 recorded; verify --threads 1" 0 - -- "$viv" replay verify --threads 1 --quiet "$tmp/th.db"
    t1=$(sed -n 's/.*bit-exact: \([0-9]*\) ticks.*/\1/p' "$tmp/out")
    vivd_run 1 ""
    expect "vivd --threads 1 resumed it; verify --threads 2" 0 - -- "$viv" replay verify --threads 2 --quiet "$tmp/th.db"
    t2=$(sed -n 's/.*bit-exact: \([0-9]*\) ticks.*/\1/p' "$tmp/out")
    [ -n "$t1" ] && [ -n "$t2" ] && [ "$t2" -gt "$t1" ] && ok "the resumed session grew from $t1 to $t2 ticks" \
        || fail "resume: the session went from '${t1:-?}' to '${t2:-?}' ticks"
    # A file collected from th.db holds its suspended session as it was: a vivd on that file leaves
    # it be (it is th.db's vivd's to resume), says so, and the session verifies as before.
    expect "collect th.db" 0 - -- "$viv" replay collect "$tmp/th.db" -o "$tmp/thall.db" --quiet
    vivd_run 1 "" "$tmp/thall.db"
    grep -q "1 unfinished session(s) in $tmp/thall.db came from other files through viv replay collect" \
        "$tmp/thvivd.log" && ! grep -q "resumed session" "$tmp/thvivd.log" \
        && ok "vivd leaves a collected session be, and says so" \
        || fail "vivd on a collected file: $(cat "$tmp/thvivd.log")"
    "$viv" replay list "$tmp/thall.db" | grep -q "suspended" && ok "the collected session is still suspended" \
        || fail "collected session's status: $("$viv" replay list "$tmp/thall.db")"
    "$viv" replay info "$tmp/thall.db" --session 1 | grep -q "a vivd on this file leaves it be" \
        && ok "replay info says a collected session is not resumed" \
        || fail "replay info: $("$viv" replay info "$tmp/thall.db" --session 1 | grep status)"
    expect "verify the collected session" 0 - -- "$viv" replay verify --quiet --session 1 "$tmp/thall.db"
    grep -q "bit-exact: $t2 ticks" "$tmp/out" && ok "the collected session verifies to the same $t2 ticks" \
        || fail "verify collected: $(head -2 "$tmp/out")"
    expect "vivd --threads 0" 2 "--threads must be a whole number of workers in 1..64" -- "$vivd" --threads 0

    # replay fork (issue 29): a session's state at a tick as a new session, suspended there. Its
    # frame at T is the parent's, byte for byte; info shows the lineage; verify checks the start
    # against the parent's recorded hash and catches a start that was changed; a vivd resumes it.
    printf '10 paint 20 10 4 sand\n50 paint 30 10 3 water\n' > "$tmp/fk.in"
    "$viv" sim --world sand --params w=64,h=48 --ticks 1300 --inputs "$tmp/fk.in" --record "$tmp/fk.db" --record-format 3 > /dev/null 2>&1
    expect "replay fork" 0 - -- "$viv" replay fork "$tmp/fk.db" --session 1 --tick 700 --quiet
    grep -qF "session 2 of $tmp/fk.db: forked from session 1 of $tmp/fk.db at tick 700 (replayed from the checkpoint at tick 600" \
        "$tmp/out" && ok "fork: says what it wrote" || fail "fork output: $(cat "$tmp/out")"
    "$viv" replay info "$tmp/fk.db" --session 2 > "$tmp/out" 2>&1
    grep -q "lineage       forked from session 1 at tick 700 (its recorded state hash there: [0-9a-f]\{16\})" "$tmp/out" \
        && grep -q "status        suspended" "$tmp/out" && grep -q "ticks         700..700" "$tmp/out" \
        && ok "fork: info shows the lineage, suspended at 700" || fail "fork info: $(cat "$tmp/out")"
    expect "fork: verify" 0 - -- "$viv" replay verify "$tmp/fk.db" --session 2 --quiet
    grep -qF "lineage: the start is session 1's recorded state at tick 700" "$tmp/out" \
        && ok "fork: verify checks the start against the parent" || fail "fork verify: $(cat "$tmp/out")"
    expect "fork into another file" 0 - -- "$viv" replay fork "$tmp/fk.db" --session 1 --tick 640 -o "$tmp/fk2.db" --quiet
    expect "fork: verify in another file" 0 - -- "$viv" replay verify "$tmp/fk2.db" --quiet
    grep -qF "lineage NOT CHECKED: forked from session 1 of" "$tmp/out" \
        && ok "fork: verify says the parent is elsewhere" || fail "fork verify elsewhere: $(cat "$tmp/out")"
    # The start changed: the fork's checkpoint replaced by the parent's state at 600 (a valid
    # blob with its own hash, but another tick) is damage; the parent's row at 700 changed while
    # the fork keeps its start is a fork that did not start there: diverged at 700.
    cp "$tmp/fk.db" "$tmp/fk-bad.db"
    sqlite3 "$tmp/fk-bad.db" "UPDATE tick SET state_hash = state_hash + 1 WHERE session = 1 AND tick = 700"
    expect "fork: verify a tampered start" 1 - -- "$viv" replay verify "$tmp/fk-bad.db" --session 2 --quiet
    grep -qF "a fork whose start is not its parent's state" "$tmp/out" \
        && ok "fork: verify catches a start that is not the parent's" || fail "fork tampered: $(cat "$tmp/out")"
    cp "$tmp/fk.db" "$tmp/fk-bad2.db"
    sqlite3 "$tmp/fk-bad2.db" "UPDATE fork SET parent_state_hash = parent_state_hash + 1 WHERE session = 2"
    expect "fork: verify a damaged lineage row" 2 "its fork row says session 1 had state hash" -- "$viv" replay verify "$tmp/fk-bad2.db" --session 2 --quiet
    expect "fork: tick out of range" 2 "tick 5000 is outside session 1 (ticks 0..1300)" -- "$viv" replay fork "$tmp/fk.db" --session 1 --tick 5000
    expect "fork: unknown session" 2 "session 9 not found in $tmp/fk.db (sessions: 1, 2)" -- "$viv" replay fork "$tmp/fk.db" --session 9 --tick 5
    expect "fork: no tick" 2 "which tick? --tick T" -- "$viv" replay fork "$tmp/fk.db" --session 1
    sqlite3 "$tmp/fk-bad.db" "INSERT INTO gap VALUES (1, 900, 1200, 'disk full')"
    expect "fork: a tick in a gap" 2 "tick 1000 of session 1 is in a gap: ticks [900, 1200) were not recorded (disk full)" \
        -- "$viv" replay fork "$tmp/fk-bad.db" --session 1 --tick 1000
    expect "fork: not bit-exact up to the tick" 1 "does not replay bit-exactly" -- "$viv" replay fork "$tmp/fk-bad.db" --session 1 --tick 700 --quiet
    expect "fork: a damaged file" 2 "is not a Vivarium replay file" -- "$viv" replay fork "$tmp/fk.in" --session 1 --tick 5
    "$viv" replay list "$tmp/fk-bad.db" | grep -c "viv replay fork" | grep -qx 1 \
        && ok "fork: nothing written when refused" || fail "fork: a refused fork wrote a session"
    # A vivd on the file resumes the fork as a live world, at tick 700.
    vivd_run 1 "" "$tmp/fk.db"
    grep -q "resumed session 2 .*tick 700" "$tmp/thvivd.log" && ok "vivd resumes the fork at tick 700" \
        || fail "vivd on the forked file: $(cat "$tmp/thvivd.log")"
    expect "fork: verify after vivd ran it" 0 - -- "$viv" replay verify "$tmp/fk.db" --session 2 --quiet
    # Its frame at 700 (its start, as vivd resumed it) is the parent's, byte for byte, and so is
    # every frame after it until an input (the parent had none after tick 50).
    "$viv" replay export "$tmp/fk.db" --session 1 --from 700 --to 720 --png-dir "$tmp/fkp" --quiet > /dev/null 2>&1
    "$viv" replay export "$tmp/fk.db" --session 2 --from 700 --to 720 --png-dir "$tmp/fkc" --quiet > /dev/null 2>&1
    [ -s "$tmp/fkp/frame-000700.png" ] && cmp -s "$tmp/fkp/frame-000700.png" "$tmp/fkc/frame-000700.png" \
        && cmp -s "$tmp/fkp/frame-000720.png" "$tmp/fkc/frame-000720.png" \
        && ok "fork: its frames at 700 and 720 are the parent's, byte for byte" \
        || fail "fork: the frames at 700 or 720 differ (or are missing): $(ls "$tmp/fkp" "$tmp/fkc" 2>&1 | head -5)"

    # Tokens in the log: printed when they are made (the first start on a file), never when a later
    # start reads them from FILE.tokens (logs are shipped and shared); that start names the file.
    # tok_run LOG: vivd on tok.db with no token given, until it listens, then stopped.
    tok_run() {
        rm -f "$tmp/tokport"
        env -u VIVD_ADMIN_TOKEN -u VIVD_PLAYER_TOKEN "$vivd" --listen 127.0.0.1:0 --no-http \
            --port-file "$tmp/tokport" --db "$tmp/tok.db" --world sand:seed=1:w=32,h=24 > "$1" 2>&1 &
        tok_pid=$!
        n=0
        while [ $n -lt 100 ] && ! grep -Eq '^[0-9]+' "$tmp/tokport" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
        kill -TERM "$tok_pid" 2>/dev/null
        wait "$tok_pid" || fail "vivd on tok.db exited $?: $(cat "$1")"
    }
    tok_run "$tmp/tok1.log"
    tok_admin=$(awk '$1 == "admin" {print $2}' "$tmp/tok.db.tokens" 2>/dev/null)
    tok_player=$(awk '$1 == "player" {print $2}' "$tmp/tok.db.tokens" 2>/dev/null)
    if [ -z "$tok_admin" ] || [ -z "$tok_player" ]; then
        fail "the first start wrote no tokens to tok.db.tokens: $(cat "$tmp/tok1.log")"
    else
        grep -qF "admin token (new, kept in $tmp/tok.db.tokens): $tok_admin" "$tmp/tok1.log" \
            && grep -qF "player token (new, kept in $tmp/tok.db.tokens): $tok_player" "$tmp/tok1.log" \
            && ok "the first start prints the tokens it made" \
            || fail "the first start does not print its new tokens: $(cat "$tmp/tok1.log")"
        tok_run "$tmp/tok2.log"
        if grep -qF -e "$tok_admin" -e "$tok_player" "$tmp/tok2.log"; then
            fail "a restart logs a token read from tok.db.tokens: $(grep -F -e "$tok_admin" -e "$tok_player" "$tmp/tok2.log")"
        elif ! grep -qF "the admin and player tokens read from $tmp/tok.db.tokens" "$tmp/tok2.log"; then
            fail "a restart does not say where its tokens came from: $(cat "$tmp/tok2.log")"
        else
            ok "a restart logs where its tokens are, not the tokens"
        fi
        tok_run "$tmp/tok3.log"    # a third start is a restart too (nothing was rewritten)
        grep -qF -e "$tok_admin" -e "$tok_player" "$tmp/tok3.log" \
            && fail "a third start logs a token" || ok "a third start logs no token either"
        # vivd --play FILE reuses FILE.tokens: the player token of the vivd that recorded FILE
        # (issue 29: it made new ones, and the kept player token was refused).
        rm -f "$tmp/tokport"
        env -u VIVD_ADMIN_TOKEN -u VIVD_PLAYER_TOKEN "$vivd" --listen 127.0.0.1:0 --no-http \
            --port-file "$tmp/tokport" --play "$tmp/tok.db:1" > "$tmp/tokplay.log" 2>&1 &
        tok_pid=$!
        n=0
        while [ $n -lt 100 ] && ! grep -Eq '^[0-9]+' "$tmp/tokport" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
        kill -TERM "$tok_pid" 2>/dev/null
        wait "$tok_pid" || fail "vivd --play tok.db exited $?: $(cat "$tmp/tokplay.log")"
        if grep -qF "the admin and player tokens read from $tmp/tok.db.tokens" "$tmp/tokplay.log" \
            && ! grep -q "token (new" "$tmp/tokplay.log" \
            && [ "$(awk '$1 == "player" {print $2}' "$tmp/tok.db.tokens")" = "$tok_player" ]; then
            ok "vivd --play FILE reuses the tokens kept in FILE.tokens"
        else
            fail "vivd --play FILE does not reuse FILE.tokens: $(cat "$tmp/tokplay.log")"
        fi
    fi
fi

# viv bot against a real vivd on a free loopback port: each viewer starts with a keyframe, and
# the report counts it. Then the same over WebSocket (vivd's HTTP port, also a free one).
vivd=$(dirname "$viv")/vivd
if [ -x "$vivd" ]; then
    "$vivd" --listen 127.0.0.1:0 --http 127.0.0.1:0 --http-port-file "$tmp/hport" --port-file "$tmp/port" \
        --no-record --admin-token cli-admin \
        --player-token cli-player --quiet --world sand:seed=3:w=64,h=32 > "$tmp/vivd.log" 2>&1 &
    vivd_pid=$!
    n=0
    while [ $n -lt 100 ] && ! grep -Eq '^[0-9]+' "$tmp/port" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done
    if grep -Eq '^[0-9]+' "$tmp/port" 2>/dev/null; then
        "$viv" bot --host "127.0.0.1:$(cat "$tmp/port")" --clients 4 --seconds 1 > "$tmp/bot" 2>&1
        keys=$(sed -n 's/^ *\([0-9][0-9]*\) keyframes.*/\1/p' "$tmp/bot")
        [ -n "$keys" ] && [ "$keys" -ge 4 ] && ok "viv bot counts $keys keyframes for 4 viewers" \
            || fail "viv bot: '${keys:-no}' keyframes for 4 viewers: $(grep keyframes "$tmp/bot")"
        grep -q "4 on subscribing" "$tmp/bot" && ok "viv bot: one keyframe on subscribing per viewer" \
            || fail "viv bot: $(grep keyframes "$tmp/bot")"
        "$viv" bot --host "127.0.0.1:$(cat "$tmp/port")" --clients 2 --seconds 1 --json > "$tmp/bot.json" 2>/dev/null
        grep -q '"keyframes_on_subscribe":2' "$tmp/bot.json" && ok "viv bot --json: keyframes_on_subscribe" \
            || fail "viv bot --json: $(grep -o '"keyframes[^,]*' "$tmp/bot.json")"
        # --rect: each viewer watches a rect of the world (here 32x16 of 64x32, widened to the
        # 64-pixel grid: 64x32), every frame rebuilt and its hash checked.
        "$viv" bot --host "127.0.0.1:$(cat "$tmp/port")" --clients 3 --verify 3 --rect 32x16 --seconds 1 \
            --json > "$tmp/rect.json" 2>/dev/null
        grep -q '"viewers":{"wanted":3,"ok":3' "$tmp/rect.json" && grep -q '"mismatches":0' "$tmp/rect.json" \
            && ok "viv bot --rect: 3 viewers on rects, every frame's hash checked" \
            || fail "viv bot --rect: $(head -c 600 "$tmp/rect.json")"
        # A list whose first address does not answer: the connections meant for it (the control
        # connection among them) go to the next one; every viewer connects.
        "$viv" bot --host "127.0.0.1:1,127.0.0.1:$(cat "$tmp/port")" --clients 4 --seconds 1 --json \
            > "$tmp/list.json" 2>/dev/null
        grep -q '"viewers":{"wanted":4,"ok":4,"failed":0,"closed_by_server":0,"moved":0}' "$tmp/list.json" \
            && grep -q '"completed":true' "$tmp/list.json" \
            && ok "viv bot --host DEAD,LIVE: all 4 viewers and the control connection on the live one" \
            || fail "viv bot --host DEAD,LIVE: $(head -c 600 "$tmp/list.json")"
        # Over WebSocket: 4 viewers (2 rebuilding every frame and checking its hash), a player
        # whose inputs are acked, a slow client; the report is the TCP one.
        ws="ws://127.0.0.1:$(cat "$tmp/hport")/ws"
        "$viv" bot --host "$ws" --clients 4 --verify 2 --inputs-per-sec 30 --token cli-player --slow 1 \
            --seconds 1 --json > "$tmp/ws.json" 2> "$tmp/ws.err"
        st=$?
        verify=$(grep -o '"verify":{[^}]*}' "$tmp/ws.json")
        frames=$(echo "$verify" | sed -n 's/.*"frames":\([0-9]*\).*/\1/p')
        if [ $st = 0 ] && echo "$verify" | grep -q '"mismatches":0,"errors":0' && [ "${frames:-0}" -ge 60 ]; then
            ok "viv bot over WebSocket: 2 viewers rebuilt $frames frames, every hash checked out"
        else
            fail "viv bot over WebSocket: exit $st, verify $verify: $(cat "$tmp/ws.err")"
        fi
        grep -q '"host":"'"$ws"'"' "$tmp/ws.json" && grep -q '"keyframes_on_subscribe":4' "$tmp/ws.json" \
            && grep -q '"viewers":{"wanted":4,"ok":4,"failed":0,"closed_by_server":0,"moved":0}' "$tmp/ws.json" \
            && ok "viv bot over WebSocket: 4 viewers, one keyframe each on subscribing" \
            || fail "viv bot over WebSocket: $(grep -o '"connections":{[^}]*}' "$tmp/ws.json") $(grep -o '"keyframes[^,]*' "$tmp/ws.json")"
        sent=$(sed -n 's/.*"inputs":{[^}]*"sent":\([0-9]*\).*/\1/p' "$tmp/ws.json")
        acks=$(sed -n 's/.*"inputs":{[^}]*"acks":\([0-9]*\).*/\1/p' "$tmp/ws.json")
        [ "${sent:-0}" -gt 0 ] && [ "$sent" = "$acks" ] && ok "viv bot over WebSocket: $acks of $sent inputs acked" \
            || fail "viv bot over WebSocket: inputs sent ${sent:-?}, acked ${acks:-?}"
        grep -q '"slow":{"connections":1,' "$tmp/ws.json" && ok "viv bot over WebSocket: the slow client connected" \
            || fail "viv bot over WebSocket: $(grep -o '"slow":{[^}]*}' "$tmp/ws.json")"
        # --ws takes HOST:PORT and the default path.
        "$viv" bot --ws --host "127.0.0.1:$(cat "$tmp/hport")" --clients 1 --seconds 1 > "$tmp/bot" 2>&1 \
            && grep -q "on $ws," "$tmp/bot" && ok "viv bot --ws --host H:P is $ws" \
            || fail "viv bot --ws: $(head -c 300 "$tmp/bot")"
        # Bad WebSocket addresses: a clear sentence, exit 2 for a malformed one, 1 for a wrong place.
        expect "bot --ws at vivd's TCP port" 1 "is 127.0.0.1:$(cat "$tmp/port") vivd's TCP port? WebSocket is on its --http port" -- \
            "$viv" bot --ws --host "127.0.0.1:$(cat "$tmp/port")" --clients 1 --seconds 1
        expect "bot at a path that is not /ws" 1 "vivd upgrades GET /ws only" -- \
            "$viv" bot --host "ws://127.0.0.1:$(cat "$tmp/hport")/page" --clients 1 --seconds 1
        # The TCP protocol at the HTTP port: named as viv view names it (clients/net.c).
        expect "bot at vivd's HTTP port" 1 "127.0.0.1:$(cat "$tmp/hport"): this is vivd's HTTP port (the page and WebSocket; it answered \"HTTP/1.1 " -- \
            "$viv" bot --host "127.0.0.1:$(cat "$tmp/hport")" --clients 1 --seconds 1
        grep -qF "or this port's WebSocket: --host ws://127.0.0.1:$(cat "$tmp/hport")/ws" "$tmp/err" \
            || fail "bot at vivd's HTTP port: no ws:// address to use: $(head -c 300 "$tmp/err")"
        expect "bot ws:// without a port" 2 "the address needs a host and a port, as in ws://127.0.0.1:7401/ws" -- \
            "$viv" bot --host ws://127.0.0.1/ws
        expect "bot wss://" 2 "wss:// (WebSocket over TLS) is not supported" -- \
            "$viv" bot --host "wss://127.0.0.1:$(cat "$tmp/hport")/ws"
        expect "bot http://" 2 "is not a ws:// address; want ws://HOST:PORT/ws" -- \
            "$viv" bot --host "http://127.0.0.1:$(cat "$tmp/hport")/"
    else
        fail "vivd did not start: $(cat "$tmp/vivd.log")"
    fi
    kill "$vivd_pid" 2>/dev/null
    wait "$vivd_pid" 2>/dev/null
else
    fail "$vivd is missing (build it: make $vivd)"
fi

# ---- the option tables (opt/opt.h): one sentence for an unknown option and for a missing value ---
# For every program (vivd and each viv subcommand), from its own table (--list-options gives it,
# one `NAME value|flag shown|hidden` a line; replay list and cycle info have none): an unknown
# option and each option without its value are refused with the shared sentence and exit 2, and
# --help has a line for every option the table shows.
# tables NAME WHO SEE -- command...: WHO starts the sentences, which name SEE --help.
tables() {
    name=$1; who=$2; see=$3; shift 4
    "$@" --list-options > "$tmp/opts" 2> "$tmp/err" \
        || { fail "$name --list-options: exit $?, $(head -c 300 "$tmp/err")"; return; }
    "$@" --help > "$tmp/help" 2> "$tmp/err" || { fail "$name --help: exit $?"; return; }
    "$@" --no-such-option > "$tmp/out" 2> "$tmp/err"
    got=$?
    want="$who: unknown option '--no-such-option' (see $see --help)"
    if [ "$got" != 2 ] || [ "$(cat "$tmp/err")" != "$want" ]; then
        fail "$name --no-such-option: exit $got, said '$(cat "$tmp/err")', wanted '$want'"
    fi
    n=0; bad=0
    while read -r opt kind shown; do
        n=$((n + 1))
        if [ "$shown" = shown ] && ! grep -q -- "^  $opt " "$tmp/help"; then
            fail "$name --help has no line for $opt"; bad=1
        fi
        [ "$kind" = value ] || continue
        "$@" "$opt" > "$tmp/out" 2> "$tmp/err"
        got=$?
        want="$who: $opt needs a value (see $see --help)"
        if [ "$got" != 2 ] || [ "$(cat "$tmp/err")" != "$want" ]; then
            fail "$name $opt (no value): exit $got, said '$(cat "$tmp/err")', wanted '$want'"; bad=1
        fi
    done < "$tmp/opts"
    [ $bad -eq 0 ] && ok "$name: $n options; unknown and valueless ones refused alike, --help lists them"
}
tables vivd vivd vivd -- "$vivd"
tables "viv sim" "viv sim" "viv sim" -- "$viv" sim
for c in list info verify export collect fork hashes upgrade drop compact; do
    tables "viv replay $c" "viv replay $c" "viv replay $c" -- "$viv" replay "$c"
done
tables "viv fuzz" "viv fuzz" "viv fuzz" -- "$viv" fuzz
tables "viv fuzz --merge" "viv fuzz --merge" "viv fuzz" -- "$viv" fuzz --merge
tables "viv cycle convert" "viv cycle" "viv cycle" -- "$viv" cycle convert
tables "viv cycle info" "viv cycle" "viv cycle" -- "$viv" cycle info
tables "viv view" "viv view" "viv view" -- "$viv" view
tables "viv bot" "viv bot" "viv bot" -- "$viv" bot

if [ $fails -ne 0 ]; then echo "cli: $fails failure(s)" >&2; exit 1; fi
echo "cli: all passed"
