#!/bin/sh
# Re-baseline the golden hash chains. Run only on purpose (`make golden`), and say why in the
# commit message: a changed chain means every recorded replay of that world changed too.
set -eu
viv=${1:?usage: golden.sh bin/viv}
cd "$(dirname "$0")/golden"
"../../$viv" sim --world sand --seed 42 --ticks 3000 --every 100 --inputs sand.inputs > sand.chain
echo "golden: wrote tests/golden/sand.chain ($(wc -l < sand.chain) lines)"
"../../$viv" sim --world terrarium --seed 42 --ticks 4000 --every 100 --inputs terrarium.inputs \
    > terrarium.chain
echo "golden: wrote tests/golden/terrarium.chain ($(wc -l < terrarium.chain) lines)"
"../../$viv" sim --world cycle --seed 42 --ticks 3000 --every 100 --inputs cycle.inputs > cycle.chain
echo "golden: wrote tests/golden/cycle.chain ($(wc -l < cycle.chain) lines)"
