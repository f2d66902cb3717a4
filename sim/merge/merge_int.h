/* merge_int.h — private to the modules of sim/merge/: what they call in each other. */
#ifndef VIVARIUM_MERGE_INT_H
#define VIVARIUM_MERGE_INT_H
#include "merge/merge.h"

static inline double mg_clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- fruit.c: the container, fruit, merges, game over ------------------------------------------ */
void sim__merge_container(merge_world *w);          /* the solver's segments and options */
/* Put a fruit of `tier` in the container at (x, y) with velocity (vx, vy) px/tick and angular
 * velocity wa rad/tick; life NULL gives it a fresh one. Its index, or −1 when full. */
int sim__merge_spawn(merge_world *w, int tier, double x, double y, double vx, double vy, double wa,
                     const merge_fruit_life *life);
void sim__merge_remove(merge_world *w, int i);
/* After the solver's step: every touching pair of one kind makes exactly one merge, each reported
 * as a `merge` event on ctx (NULL: nobody hears). */
void sim__merge_resolve(merge_world *w, const sim_ctx *ctx);
/* The game-over line (a `game_over` event when it ends a game), and emptying the container
 * after it. */
void sim__merge_over_step(merge_world *w, const sim_ctx *ctx);
void sim__merge_life_new(merge_world *w, merge_fruit_life *l);   /* seeded from the serial */
void sim__merge_build_scene(merge_world *w);
uint8_t sim__merge_next_tier(merge_world *w);

/* ---- anim.c: the carrier on the cel-set engine --------------------------------------------------- */
int sim__merge_anim_init(merge_world *w);           /* allocate the engine (create time) */
void sim__merge_anim_start(merge_world *w);         /* allocate the torso and hand slots */
void sim__merge_anim_tick(merge_world *w);
int sim__merge_anim_cel_closed(int cel);            /* 1 when a hand's cel shows the closed hand */

/* ---- pilot.c: the autopilot ------------------------------------------------------------------ */
/* The move direction the autopilot wants this tick; sets *drop when it wants to drop. */
int sim__merge_pilot(merge_world *w, int *drop);

/* ---- render.c --------------------------------------------------------------------------------- */
/* Where the held fruit (right hand, dangling by the fruit angle) and the next one (left hand, or
 * in the air while juggled) are now: centres in pixels. */
void sim__merge_held_pos(const merge_world *w, double *x, double *y);
void sim__merge_next_pos(const merge_world *w, double *x, double *y);
void sim__merge_render(const merge_world *w, const sim_ctx *ctx, int view, sim_frame *out);

/* ---- state.c ---------------------------------------------------------------------------------- */
size_t sim__merge_save_max(const void *impl);
void sim__merge_save(const void *impl, sim_writer *wr);
int sim__merge_load(void *impl, sim_reader *rd);
long sim__merge_diff(const void *a, const void *b, sim_diff_out *o);

#endif
