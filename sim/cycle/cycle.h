/* cycle.h — private to the cycle world (sim/cycle/cycle.c, cycle_scenes.c) and its tests: the
 * procedural scene builders and the world's inspection hooks. The scene type and its timing come
 * from scene.h and scene_int.h; the importers do not include this file. */
#ifndef VIVARIUM_CYCLE_H
#define VIVARIUM_CYCLE_H
#include "scene_int.h"

/* ---- the procedural scenes (cycle_scenes.c) --------------------------------------------------- */
enum { CYC_SCENE_WATERFALL, CYC_SCENE_FIRE, CYC_SCENE_DUSK, CYC_SCENE_FILE, CYC_NSCENES };
/* Build procedural scene `which` (not CYC_SCENE_FILE) at w×h from the seed into *out (which owns
 * a new pixel buffer on success). 0, or SIM_ENOMEM. */
int sim__cycle_scene_build(int which, uint64_t seed, int w, int h, sim_cycle_scene *out);

/* ---- inspection for tests --------------------------------------------------------------------- */
const sim_cycle_scene *sim__cycle_scene(const void *impl);
uint64_t sim__cycle_phase(const void *impl, int range);
const uint8_t *sim__cycle_palette(const void *impl);        /* the palette now, 3·ncolors */
uint32_t sim__cycle_palette_version(const void *impl);

#endif
