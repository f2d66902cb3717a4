#!/bin/sh
# bench/webp.sh BIN — animated WebP export sizes against our GIF and gif2webp, on the same frames
# in one run. For each case, `viv sim … --record` records a session, then one `viv replay export
# --gif --webp` writes both files from the same frames (replay/gif.c and replay/webp.c, libwebp's
# WebPAnimEncoder, lossless), and gif2webp (Debian's webp package: the same encoder, fed from the
# GIF) converts that GIF twice: with its defaults and with `-m 6 -kmax 1000` (bench/gif.sh's
# setting). Times are wall-clock seconds of each command (`export --gif` alone, then the export
# writing both). Prints a Markdown table; bench/run.sh keeps it in bench/out/webp.md.
set -eu
BIN=${1:-bin}
command -v gif2webp >/dev/null 2>&1 || { echo "webp: gif2webp is not installed (scripts/deps.sh installs Debian's webp)" >&2; exit 1; }
out=$(mktemp -d /tmp/vivbenchwebp.XXXXXX)
trap 'rm -rf "$out"' EXIT

size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.3f MB", b / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo '| run | frames | GIF (ours) | WebP (ours) | WebP / GIF | gif2webp | ours / gif2webp | gif2webp -m 6 -kmax 1000 | ours / that | s: export --gif, --gif --webp, gif2webp, -m 6 |'
echo '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|'
# name | viv sim arguments (the recording) | export arguments
while IFS='|' read -r name args eargs; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086
    "$BIN/viv" sim $args --record "$out/r.db" >/dev/null 2>&1
    t0=$(now)
    # shellcheck disable=SC2086
    "$BIN/viv" replay export "$out/r.db" --gif "$out/alone.gif" $eargs --quiet >/dev/null
    t1=$(now)
    # shellcheck disable=SC2086
    "$BIN/viv" replay export "$out/r.db" --gif "$out/ours.gif" --webp "$out/ours.webp" $eargs --quiet > "$out/said"
    t2=$(now)
    cmp -s "$out/alone.gif" "$out/ours.gif" || { echo "webp: the GIF differs when the WebP is written too" >&2; exit 1; }
    gif2webp -quiet "$out/ours.gif" -o "$out/g2w.webp"
    t3=$(now)
    gif2webp -quiet -m 6 -kmax 1000 "$out/ours.gif" -o "$out/g2w6.webp"
    t4=$(now)
    frames=$(sed -n 's/^\([0-9][0-9]*\) frames.*/\1/p' "$out/said")
    g=$(size "$out/ours.gif") w=$(size "$out/ours.webp") a=$(size "$out/g2w.webp") b=$(size "$out/g2w6.webp")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s, %s, %s |\n' "$name" "$frames" \
        "$(mb "$g")" "$(mb "$w")" "$(ratio "$w" "$g")" "$(mb "$a")" "$(ratio "$w" "$a")" \
        "$(mb "$b")" "$(ratio "$w" "$b")" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")" \
        "$(secs "$t2" "$t3")" "$(secs "$t3" "$t4")"
    rm -f "$out"/*
done <<'LIST'
sand demo, 20 s at scale 2|--world sand --seed 1 --ticks 1200|--scale 2
terrarium, 30 s at scale 2|--world terrarium --seed 1 --ticks 1200|--scale 2
cycle fire, 20 s at scale 2|--world cycle --seed 1 --ticks 1200 --params scene=fire|--scale 2
LIST
echo
echo "Sizes in 10^6 bytes. Frames: the export's default --every with a GIF (2 ticks at 60 Hz, 1 at 40 Hz), the same frames in every file."
exit 0
