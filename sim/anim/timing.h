/* timing.h — frame timing by ticks (seed 000 §6, "Frame timing by ticks"): animations as lists
 * of {frame, ticks} holds, the frame a pure function of (tick − start), and procedural layers that
 * update "on 2s" or "on 3s".
 *
 * A hold list plays its holds in order, each for its own number of ticks (Aseprite's per-frame
 * durations); uneven holds are the lever that makes a pose read as snappy. Nothing here keeps
 * state but a clip's start tick: "frameIndex = f(tick − animStartTick) makes animation
 * reproducible and saveable as two integers". A layer's value is computed from its layer tick,
 * the tick rounded down to a multiple of its period, so it holds between updates ("updating a
 * procedural value only every 2nd–4th tick and holding it gives a hand-animated cadence"). */
#ifndef VIVARIUM_SIM_TIMING_H
#define VIVARIUM_SIM_TIMING_H
#include "sim_internal.h"

/* Holds per pose at 60 Hz, the seed's ranges and our pick in each (the middle, or where the range
 * is open, a value of the same order as the next one). */
#define SIM_HOLD_WALK 8        /* walk 6–10 ticks a pose */
#define SIM_HOLD_IDLE 20       /* idle 10–30 */
#define SIM_HOLD_WINDUP 24     /* "attack wind-up long": ours, three walk poses' worth */
#define SIM_HOLD_STRIKE 3      /* strike 2–4 */
#define SIM_HOLD_RECOVER 9     /* recovery 6–12 */
#define SIM_HOLDS_MAX 64       /* holds in one list */

typedef struct sim_hold {
    uint8_t frame;             /* the frame (pose) to show: the world's index */
    uint8_t ticks;             /* how long, ≥ 1 */
} sim_hold;

typedef struct sim_holds {
    const sim_hold *hold;      /* n holds, read-only (the world's tables) */
    uint8_t n;                 /* 1..SIM_HOLDS_MAX */
    uint8_t loop;              /* 1: start again after the last hold; 0: stay on the last */
} sim_holds;

/* 0 if the list is usable (1..SIM_HOLDS_MAX holds, each ≥ 1 tick), else SIM_EINVAL. */
int sim_holds_check(const sim_holds *a);
/* Ticks of one pass through the list (the sum of its holds). */
uint32_t sim_holds_length(const sim_holds *a);
/* Which hold shows `elapsed` ticks after the clip started (elapsed = tick − start): a looping list
 * wraps, a one-shot list stays on its last hold. A pure function of (list, elapsed). */
int sim_holds_index(const sim_holds *a, uint64_t elapsed);
/* That hold's frame. */
int sim_holds_frame(const sim_holds *a, uint64_t elapsed);
/* 1 once a one-shot list has played through (elapsed ≥ its length); always 0 for a loop. */
int sim_holds_done(const sim_holds *a, uint64_t elapsed);

/* A clip: which list is playing and since when. Two integers, as the seed says. */
typedef struct sim_clip {
    uint8_t anim;              /* index into the world's table of lists */
    uint64_t start;            /* the tick it started */
} sim_clip;
/* The clip's frame at `tick` (a tick before the start counts as the start). */
int sim_clip_frame(const sim_clip *c, const sim_holds *table, uint64_t tick);
void sim_clip_save(const sim_clip *c, sim_writer *wr);            /* 9 bytes: anim, start */
/* 0, or SIM_ETRUNC / SIM_ECORRUPT (anim ≥ nanims, or a start after `now`, the tick the state is
 * at); c is untouched then. */
int sim_clip_load(sim_clip *c, sim_reader *rd, int nanims, uint64_t now);

/* The layer tick of a procedural layer updated every `every` ticks (1: every tick, 2: "on 2s",
 * 3: "on 3s"): tick rounded down to a multiple of every. every < 1 counts as 1. */
uint64_t sim_layer_tick(uint64_t tick, unsigned every);

#endif
