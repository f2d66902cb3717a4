/* fuzz_ilbm.c — libFuzzer target: IFF ILBM and PBM scene files (sim/cycle/ilbm.c
 * sim_cycle_from_ilbm), what `vivd --world cycle:scene=file:PATH` and `viv` read from disk.
 * The checks are in fuzz_cycle.h: the failure contract, a valid scene, exact round trips through
 * all three writers, the palette over time, and a cycle world built from the bytes. */
#include "fuzz_cycle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_scene_input(sim_cycle_from_ilbm, "sim_cycle_from_ilbm", data, size);
    return 0;
}
