#!/bin/sh
# make run: until vivd exists, run the headless demo sand world for 20 s of simulated time, print
# its hash chain, and write a PNG of the last frame.
set -eu
bin=${1:-bin}
out=vivarium-demo.png
echo "run: the demo sand world, 1,200 ticks (20 s at 60 Hz), seed 1"
"$bin/viv" sim --world sand --seed 1 --ticks 1200 --every 300 --png "$out" --scale 3
echo "run: wrote $out (960x540, the last frame at 3x). Open it with any image viewer."
echo "run: try other seeds and inputs: $bin/viv sim --help"
