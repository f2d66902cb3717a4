#!/bin/sh
# bench/gif.sh BIN — GIF export sizes against gifsicle, on the same frames in one run.
# For each case, `viv sim … --gif` writes our GIF (replay/gif.c: the changed rectangle, unchanged
# pixels transparent); from it gifsicle makes the naive GIF (-U: every frame whole), the crop-only
# GIF that gif.c wrote before issue 13 (-O1 of the naive one: the changed rectangle, opaque), and
# its best (-O3 of ours). The goal is ours ≤ 1.1 × gifsicle -O3. When gif2webp is installed (it is
# libwebp's WebPAnimEncoder, lossless by default), the animated WebP of ours is listed too.
# Prints a Markdown table; bench/run.sh keeps it in bench/out/gif.md.
set -eu
BIN=${1:-bin}
command -v gifsicle >/dev/null 2>&1 || { echo "gif: gifsicle is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
webp=0
command -v gif2webp >/dev/null 2>&1 && webp=1
out=$(mktemp -d /tmp/vivbenchgif.XXXXXX)
trap 'rm -rf "$out"' EXIT

size() { stat -c %s "$1"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.2f MB", b / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

printf '| run | frames | naive (every frame whole) | crop only (before) | ours | gifsicle -O3 | ours / gifsicle |'
[ $webp = 1 ] && printf ' WebP lossless | WebP / ours |'
echo
printf '|---|---:|---:|---:|---:|---:|---:|'
[ $webp = 1 ] && printf -- '---:|---:|'
echo
# name | viv sim arguments
while IFS='|' read -r name args; do
    [ -n "$name" ] || continue
    g="$out/ours.gif"
    # shellcheck disable=SC2086
    "$BIN/viv" sim $args --gif "$g" >/dev/null
    # gifsicle cannot unoptimize a GIF with local colour tables (palette cycling): no columns then.
    naive="—" crop="—"
    if gifsicle -U "$g" -o "$out/naive.gif" 2>"$out/err" && ! grep -q 'too complex' "$out/err"; then
        gifsicle -O1 "$out/naive.gif" -o "$out/crop.gif" 2>/dev/null
        naive=$(mb "$(size "$out/naive.gif")") crop=$(mb "$(size "$out/crop.gif")")
    fi
    gifsicle -O3 "$g" -o "$out/o3.gif" 2>/dev/null
    frames=$(gifsicle --info "$g" | sed -n 's/.* \([0-9][0-9]*\) images$/\1/p')
    ours=$(size "$g"); o3=$(size "$out/o3.gif")
    printf '| %s | %s | %s | %s | %s | %s | %s |' "$name" "$frames" "$naive" "$crop" \
        "$(mb "$ours")" "$(mb "$o3")" "$(ratio "$ours" "$o3")"
    if [ $webp = 1 ]; then
        gif2webp -quiet -m 6 -kmax 1000 "$g" -o "$out/ours.webp"
        w=$(size "$out/ours.webp")
        printf ' %s | %s |' "$(mb "$w")" "$(ratio "$w" "$ours")"
    fi
    echo
    rm -f "$out"/*
done <<'EOF'
sand demo, 20 s at scale 2|--world sand --seed 1 --ticks 1200 --scale 2
sand demo, 2,000 ticks at scale 2|--world sand --seed 1 --ticks 2000 --scale 2
terrarium, 30 s at scale 2|--world terrarium --seed 1 --ticks 1200 --scale 2
cycle waterfall, 20 s at scale 2|--world cycle --seed 1 --ticks 1200 --scale 2
cycle fire, 20 s at scale 2|--world cycle --seed 1 --ticks 1200 --scale 2 --params scene=fire
EOF
echo
echo "Sizes in 10^6 bytes; — where gifsicle cannot unoptimize (local colour tables). Frames: one every 2 ticks at 60 Hz, every tick at 40 Hz (viv sim's default)."
[ $webp = 1 ] && echo "WebP: \`gif2webp -m 6 -kmax 1000\` of ours (lossless)."
exit 0
