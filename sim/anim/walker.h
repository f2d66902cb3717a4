/* walker.h — a walk cycle built by rule from one static sprite (seed 000 §4, "Walk frames from one
 * sprite, rule-based (for 8–24 px characters)").
 *
 * The sprite (facing right, 8..24 px each way) is split at the hip row: rows ≥ hip are the legs,
 * columns < mid of them the left leg and the rest the right leg. Four frames, the seed's cycle:
 *
 *   0 contact            legs spread: left-leg columns −1 px, right-leg columns +1 px; the arm
 *                        swings opposite the legs (−1 px: against the right leg's +1)
 *   1 passing            legs together (as drawn), the body (every row above the hip) 1 px up; the
 *                        row this opens above the legs repeats the hip row (the legs lengthen)
 *   2 contact mirrored   left-leg columns +1, right-leg columns −1, the arm +1
 *   3 passing            as 1
 *
 * The arm is an optional rectangle of the body (rows arm_y0..arm_y1−1, columns arm_x0..arm_x1−1,
 * above the hip): shifting it by s moves its pixels s columns within the rectangle, the column it
 * uncovers repeating the rectangle's edge column there and the column pushed off the far edge
 * dropped, so an arm drawn over the torso with a column of torso on each side moves without
 * leaving a hole. Left and right come from flips (sim_walker_draw with facing −1).
 *
 * Every frame is (w + 2) × (h + 1): one column of room each side for the legs, one row on top for
 * the passing frames' rise; the sprite's own pixel (0, 0) sits at (1, 1) of it. The frames are a
 * pure function of the sprite (pre-baked at create time, never saved); which one shows is the
 * world's business (a {frame, ticks} hold list, sim/anim/timing.h). The seed: "It holds up at
 * ≤ 16 px and fails beyond about 24 px", hence the limit. */
#ifndef VIVARIUM_SIM_WALKER_H
#define VIVARIUM_SIM_WALKER_H
#include "sim.h"

#define SIM_WALKER_MIN 8
#define SIM_WALKER_MAX 24
#define SIM_WALKER_FRAMES 4
#define SIM_WALKER_FW (SIM_WALKER_MAX + 2)
#define SIM_WALKER_FH (SIM_WALKER_MAX + 1)

enum { SIM_WALK_CONTACT = 0, SIM_WALK_PASSING = 1, SIM_WALK_CONTACT_MIRRORED = 2,
       SIM_WALK_PASSING_2 = 3 };

typedef struct sim_walker_spec {
    const sim_sprite *sprite;       /* facing right; key ≥ 0 is its transparent index */
    int hip;                        /* first leg row, 1..h−1 */
    int mid;                        /* first right-leg column, 1..w−1 */
    int arm_x0, arm_x1, arm_y0, arm_y1;  /* the arm's rectangle (empty: no arm); y1 ≤ hip */
} sim_walker_spec;

typedef struct sim_walker {
    int w, h;                       /* frame size: sprite w + 2, h + 1 */
    uint8_t key;
    uint8_t px[SIM_WALKER_FRAMES][SIM_WALKER_FW * SIM_WALKER_FH];
} sim_walker;

/* Bake the four frames. 0, or SIM_EINVAL (no sprite, a size out of 8..24, no transparent index, a
 * hip or mid out of range, an arm rectangle outside the body) with w = h = 0. */
int sim_walker_bake(sim_walker *wk, const sim_walker_spec *spec);
/* Frame k (taken modulo 4) as a sprite (pointing into wk). */
sim_sprite sim_walker_frame(const sim_walker *wk, int k);
/* Frame k with the sprite's (0, 0) at (x, y) (the frame's top-left at (x − 1, y − 1)); facing < 0
 * flips it, about the same centre line. */
void sim_walker_draw(const sim_walker *wk, int k, sim_frame *f, int x, int y, int facing);

#endif
