#!/bin/sh
# The reports for CI (issue 31): `viv replay verify --junit FILE` and `--json`, `viv fuzz --junit
# FILE`. Every JUnit file is parsed by /usr/bin/python3's xml.etree (tests/junit_check.py) and
# its testcases counted and read; the JSON by python3's json. The files verified: one recording
# with two sessions, the same with a logged input changed (session 1 diverges at tick 301) and
# with one recorded hash flipped (session 2 is damaged: an <error>, not a <failure>).
set -u
viv=${1:?usage: reports.sh bin/viv}
here=$(dirname "$0")
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "reports: ok: $1"; }
fail() { echo "reports: FAIL: $1" >&2; fails=$((fails + 1)); }
junit() { $py "$here/junit_check.py" "$@"; }

# run <want-status> command…: stdout to $tmp/out, stderr to $tmp/err; says when the status differs.
run() {
    want=$1; shift
    rm -f "$tmp/check"
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    [ "$got" = "$want" ] || fail "$*: exit $got, wanted $want ($(head -c 300 "$tmp/err"))"
    [ "$got" = "$want" ]
}

command -v sqlite3 > /dev/null 2>&1 || { echo "reports: FAIL: sqlite3 (the command) missing: scripts/deps.sh installs it" >&2; exit 1; }

# ---- the recordings ----------------------------------------------------------------------------------
db=$tmp/rec.db
printf '5 paint 10 10 3 sand\n300 paint 30 20 4 water\n' > "$tmp/in"
# (schema 3's rows, which the damage below edits with sqlite3, and a checkpoint every 10 s, so a
# divergence at 301 has a recorded state at 600 to diff against)
"$viv" sim --world sand --params w=64,h=48 --ticks 700 --inputs "$tmp/in" --record "$db" --record-format 3 > /dev/null 2>&1 &&
    "$viv" sim --world sand --params w=64,h=48 --seed 2 --ticks 300 --record "$db" --record-format 3 > /dev/null 2>&1 ||
    fail "viv sim --record failed"
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" > /dev/null
cp "$db" "$tmp/diverged.db"
sqlite3 "$tmp/diverged.db" "UPDATE input SET args = X'1e000000140000000600000003000000' WHERE session = 1 AND tick = 300"
cp "$db" "$tmp/damaged.db"
sqlite3 "$tmp/damaged.db" "UPDATE tick SET state_hash = ~state_hash WHERE session = 2 AND tick = 121"

# ---- verify --junit --------------------------------------------------------------------------------------
run 0 "$viv" replay verify --all --quiet --junit "$tmp/clean.xml" "$db" &&
    junit "$tmp/clean.xml" --tests 2 --failures 0 --errors 0 --case 'session 1 (sand, seed 1)=pass' \
        --case 'session 2 (sand, seed 2)=pass' > "$tmp/check" 2>&1 \
    && ok "verify --junit: a clean file, a passing testcase per session" || fail "verify --junit clean: $(cat "$tmp/check")"
grep -q "2 sessions: 2 bit-exact" "$tmp/out" && ok "verify --junit: the usual text still on stdout" \
    || fail "verify --junit: stdout: $(tail -2 "$tmp/out")"

run 1 "$viv" replay verify --all --quiet --junit "$tmp/div.xml" "$tmp/diverged.db" &&
    junit "$tmp/div.xml" --tests 2 --failures 1 --errors 0 \
        --case 'session 1 (sand, seed 1)=failure:desync:first divergent tick: 301 ' \
        --case 'session 2 (sand, seed 2)=pass' > "$tmp/check" 2>&1 \
    && ok "verify --junit: the diverged session is a failure naming tick 301, exit 1 as before" \
    || fail "verify --junit diverged: $(cat "$tmp/check")"
# The message is the report's first lines, the hashes with them; the diff stays in the text.
junit "$tmp/div.xml" --message-has 'state hash  recorded ' --message-lacks 'field-level diff' \
    --text-has 'field-level diff' > "$tmp/check" 2>&1 \
    && ok "verify --junit: message = the desync report's first lines, text = all of it" \
    || fail "verify --junit message: $(cat "$tmp/check")"

run 2 "$viv" replay verify --all --quiet --junit "$tmp/dmg.xml" "$tmp/damaged.db" &&
    junit "$tmp/dmg.xml" --tests 2 --failures 0 --errors 1 --case 'session 1 (sand, seed 1)=pass' \
        --case 'session 2 (sand, seed 2)=error:damaged:tick 121' > "$tmp/check" 2>&1 \
    && ok "verify --junit: a damaged session is an error, exit 2 as before" || fail "verify --junit damaged: $(cat "$tmp/check")"

head -c 4096 "$db" > "$tmp/cut.db"
run 2 "$viv" replay verify --all --quiet --junit "$tmp/cut.xml" "$tmp/cut.db" &&
    junit "$tmp/cut.xml" --tests 1 --errors 1 --case "$tmp/cut.db=error:unusable:is damaged (truncated" > "$tmp/check" 2>&1 \
    && ok "verify --junit: a file that cannot be read is one error named after it" || fail "verify --junit cut: $(cat "$tmp/check")"

# A name and a message carrying what XML cannot hold: a node name from the file itself, with
# control characters, a stray byte and markup; still a well-formed file with them replaced.
cp "$tmp/diverged.db" "$tmp/odd.db"
sqlite3 "$tmp/odd.db" "UPDATE session SET node = 'a<b>&\"c' || char(1) || char(27) || CAST(X'FF' AS TEXT) || 'd', origin_id = 7 WHERE id = 1"
run 1 "$viv" replay verify --session 1 --quiet --junit "$tmp/odd.xml" "$tmp/odd.db" &&
    junit "$tmp/odd.xml" --tests 1 --failures 1 \
        --case "session 1 (sand, seed 1; node a<b>&\"c$(printf '\357\277\275\357\277\275\357\277\275')d's session 7)=failure:desync:tick: 301" \
        > "$tmp/check" 2>&1 \
    && ok "verify --junit: markup, control characters and a stray byte escaped or replaced" \
    || fail "verify --junit escaping: $(cat "$tmp/check")"

# Writing the report loses no verdict: an unwritable FILE is said before any replay (exit 2), and
# the file is never left half written.
run 2 "$viv" replay verify --all --quiet --junit "$tmp/no/such/dir/r.xml" "$tmp/diverged.db" &&
    grep -qF "viv replay verify: --junit: cannot write the JUnit report $tmp/no/such/dir/r.xml.tmp" "$tmp/err" \
    && [ ! -s "$tmp/out" ] && ok "verify --junit: an unwritable FILE is refused before the replay" \
    || fail "verify --junit unwritable: $(cat "$tmp/err") / $(head -2 "$tmp/out")"
# A report that fails at the end (FILE is a directory: the rename over it fails) keeps the
# verdict: said on stdout, exit 1 stays 1, and a clean run that lost its report is not exit 0.
mkdir -p "$tmp/isdir/x"
run 1 "$viv" replay verify --all --quiet --junit "$tmp/isdir" "$tmp/diverged.db" &&
    grep -qF "viv replay verify: --junit: cannot rename $tmp/isdir.tmp to $tmp/isdir" "$tmp/err" &&
    grep -q "1 diverged" "$tmp/out" && ok "verify --junit: a report failing at the end keeps exit 1 and the verdict" \
    || fail "verify --junit failing late (diverged): $(cat "$tmp/err")"
run 2 "$viv" replay verify --all --quiet --junit "$tmp/isdir" "$db" &&
    grep -q "2 bit-exact" "$tmp/out" && ok "verify --junit: a clean run whose report failed exits 2, not 0" \
    || fail "verify --junit failing late (clean): $(cat "$tmp/err")"
ls "$tmp"/*.tmp > /dev/null 2>&1 && fail "a JUnit report left its .tmp: $(ls "$tmp"/*.tmp)" || ok "no .tmp left beside the reports"

# ---- verify --json ---------------------------------------------------------------------------------------
json_check() {   # file expect…: python asserts on the parsed object j
    f=$1; shift
    $py - "$f" "$@" << 'EOF'
import json, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
for e in sys.argv[2:]:
    if not eval(e, {"j": j}):
        sys.exit("json: not so: %s\n%s" % (e, json.dumps(j, indent=1)[:1500]))
EOF
}
run 1 "$viv" replay verify --all --quiet --json "$tmp/diverged.db" &&
    json_check "$tmp/out" 'j["report"] == "viv replay verify"' 'len(j["sessions"]) == 2' \
        '[s["verdict"] for s in j["sessions"]] == ["diverged", "bit-exact"]' \
        'j["sessions"][0]["diverged_at"] == 301' '"first divergent tick: 301 " in j["sessions"][0]["message"]' \
        'j["sessions"][1]["diverged_at"] is None and j["sessions"][1]["ticks"] == 300' \
        'j["counts"] == {"bit-exact": 1, "diverged": 1, "unverifiable": 0, "damaged": 0}' 'j["exit"] == 1' \
        'j["error"] is None' > "$tmp/check" 2>&1 \
    && ok "verify --json: the verdicts, the divergent tick, the counts, exit 1" || fail "verify --json: $(cat "$tmp/check")"
grep -q "desync in session 1" "$tmp/err" && ok "verify --json: the usual text moved to stderr" \
    || fail "verify --json: stderr lacks the report: $(head -2 "$tmp/err")"
run 2 "$viv" replay verify --all --quiet --json "$tmp/damaged.db" &&
    json_check "$tmp/out" '[s["verdict"] for s in j["sessions"]] == ["bit-exact", "damaged"]' \
        '"tick 121" in j["sessions"][1]["message"]' 'j["exit"] == 2' > "$tmp/check" 2>&1 \
    && ok "verify --json: a damaged session" || fail "verify --json damaged: $(cat "$tmp/check")"
run 2 "$viv" replay verify --json "$tmp/cut.db" &&
    json_check "$tmp/out" 'j["sessions"] == []' '"is damaged (truncated" in j["error"]' 'j["exit"] == 2' > "$tmp/check" 2>&1 \
    && ok "verify --json: a file that cannot be read" || fail "verify --json cut: $(cat "$tmp/check")"
run 1 "$viv" replay verify --session 1 --quiet --json "$tmp/odd.db" &&
    json_check "$tmp/out" 'j["sessions"][0]["node"] == "a<b>&\"c\u0001\u001b\ufffdd"' > "$tmp/check" 2>&1 \
    && ok "verify --json: control characters escaped, a stray byte replaced" || fail "verify --json escaping: $(cat "$tmp/check")"
"$viv" replay verify --help | grep -q -- "--json" && "$viv" replay verify --help | grep -q -- "--junit FILE" \
    && ok "verify --help documents --junit and --json" || fail "verify --help lacks --junit or --json"

# ---- fuzz --junit --------------------------------------------------------------------------------------
run 0 "$viv" fuzz --sessions 3 --ticks 60 --seed 11 --kinds sand --quiet --out "$tmp/fz" --junit "$tmp/fz.xml" &&
    junit "$tmp/fz.xml" --tests 3 --failures 0 --errors 0 --case-prefix 'session 0: sand seed=' \
        --case-prefix 'session 1: sand seed=' --case-prefix 'session 2: sand seed=' > "$tmp/check" 2>&1 \
    && ok "fuzz --junit: a testcase per session" || fail "fuzz --junit: $(cat "$tmp/check")"
# The fault hook (the sync-test run drops one tick's inputs) makes seed 7's first session diverge.
run 1 "$viv" fuzz --sessions 3 --ticks 200 --seed 7 --kinds sand --inject-fault 40 --no-shrink --quiet \
        --out "$tmp/fzbad" --junit "$tmp/fzbad.xml" &&
    junit "$tmp/fzbad.xml" --tests 1 --failures 1 --message-has 'DIVERGED (way 3, the sync test) at tick ' \
        --text-has "reproduce with: viv fuzz --case $tmp/fzbad/repro-7-0.case" > "$tmp/check" 2>&1 \
    && ok "fuzz --junit: the divergence is a failure naming the way, the tick and the reproducer" \
    || fail "fuzz --junit divergence: $(cat "$tmp/check")"
run 1 "$viv" fuzz --case "$tmp/fzbad/repro-7-0.case" --junit "$tmp/case.xml" &&
    junit "$tmp/case.xml" --tests 1 --failures 1 --message-has 'at tick ' > "$tmp/check" 2>&1 \
    && ok "fuzz --case --junit: the case's testcase" || fail "fuzz --case --junit: $(cat "$tmp/check")"
for k in 1 2; do
    "$viv" fuzz --sessions 4 --ticks 40 --seed 11 --kinds sand --quiet --shard $k/2 --report "$tmp/sh-$k.json" > /dev/null 2>&1
done
run 0 "$viv" fuzz --merge "$tmp/sh-1.json" "$tmp/sh-2.json" -o "$tmp/sh.json" --junit "$tmp/sh.xml" &&
    junit "$tmp/sh.xml" --tests 4 --failures 0 --case-prefix 'session 3: sand' > "$tmp/check" 2>&1 \
    && ok "fuzz --merge --junit: the merged campaign's sessions" || fail "fuzz --merge --junit: $(cat "$tmp/check")"
run 2 "$viv" fuzz --sessions 1 --ticks 20 --seed 1 --junit "$tmp/no/dir/f.xml" &&
    grep -qF "viv fuzz: --junit: cannot write the JUnit report" "$tmp/err" && ! grep -q "^session" "$tmp/out" \
    && ok "fuzz --junit: an unwritable FILE is refused before any session" || fail "fuzz --junit unwritable: $(cat "$tmp/err")"

run 2 "$viv" fuzz --sessions 1 --ticks 20 --seed 1 --kinds sand --quiet --junit "$tmp/isdir" &&
    grep -qF "viv fuzz: --junit: cannot rename" "$tmp/err" && ok "fuzz --junit: a report failing at the end turns exit 0 into 2" \
    || fail "fuzz --junit failing late: $(cat "$tmp/err")"

[ "$fails" = 0 ] && echo "reports: all passed" || echo "reports: $fails failed" >&2
[ "$fails" = 0 ]
