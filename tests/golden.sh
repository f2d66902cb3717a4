#!/bin/sh
# Re-baseline the golden hash chains. Run only on purpose (`make golden`), and say why in the
# commit message: a changed chain means every recorded replay of that world changed too.
#
#   sh tests/golden.sh bin/viv           write tests/golden/<kind>.chain for every kind
#   sh tests/golden.sh bin/viv --check   compare with the committed chains instead (writes nothing)
#
# Every kind that `viv sim --list-kinds` prints has a golden run: tests/golden/<kind>.inputs (the
# scripted inputs) and tests/golden/<kind>.args (the other viv sim options, '#' comments allowed),
# with state and frame hashes every 100 ticks. A new kind needs only those two files. A kind may
# have more golden runs, each tests/golden/<kind>-<name>.{args,inputs,chain} (sand-big: a
# 2048×1024 world), run the same way with --world <kind>.
set -eu
viv=${1:?usage: golden.sh bin/viv [--check]}
mode=${2:-write}
cd "$(dirname "$0")/golden"
status=0
for k in $("../../$viv" sim --list-kinds | awk '{print $1}'); do
    if [ ! -f "$k.args" ] || [ ! -f "$k.inputs" ]; then
        echo "golden: kind '$k' has no tests/golden/$k.args and $k.inputs: add them (docs/ADDING-A-WORLD.md)" >&2
        status=1
        continue
    fi
    for args_file in "$k.args" $(ls "$k"-*.args 2>/dev/null || true); do
        r=${args_file%.args}
        if [ ! -f "$r.inputs" ]; then
            echo "golden: $r has no tests/golden/$r.inputs" >&2
            status=1
            continue
        fi
        args=$(grep -v '^#' "$r.args")
        # shellcheck disable=SC2086
        if [ "$mode" = --check ]; then
            "../../$viv" sim --world "$k" $args --every 100 --inputs "$r.inputs" > "$r.chain.new"
            if cmp -s "$r.chain.new" "$r.chain"; then
                echo "golden: $r matches tests/golden/$r.chain ($(wc -l < "$r.chain") lines)"
            else
                echo "golden: $r differs from tests/golden/$r.chain; first difference:" >&2
                diff "$r.chain" "$r.chain.new" | head -4 >&2 || true
                status=1
            fi
            rm -f "$r.chain.new"
        else
            "../../$viv" sim --world "$k" $args --every 100 --inputs "$r.inputs" > "$r.chain"
            echo "golden: wrote tests/golden/$r.chain ($(wc -l < "$r.chain") lines)"
        fi
    done
done
exit $status
