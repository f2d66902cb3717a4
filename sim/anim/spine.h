/* spine.h — the follow-the-leader spine (seed 000 §1, "Spine chain"): a snake or salamander.
 *
 * Points p[0..n−1], p[0] the head, with rest lengths L[i] between p[i−1] and p[i]. Each step the
 * head moves toward its target (at most `speed` px); then for i = 1..n−1, with d = p[i] − p[i−1],
 * the direction of d is clamped to within ±maxBend of the previous segment's direction
 * (p[i−1] − p[i−2]; the first segment is free), and p[i] = p[i−1] + normalize(d) × L[i]. So every
 * segment is at its rest length and every bend within ±maxBend after every step, whatever the
 * head does.
 *
 * The body is drawn from a radius per joint: left and right points at ±radius along each joint's
 * normal (the normal of the bisector of its two segments, the segment's own at the ends), one quad
 * per segment through the polygon rasterizer (sim_raster_polygon, nearest pixel: vertices snapped,
 * pixel centres sampled), a half-octagon cap at the head and at the tail, in one fill ink with a
 * 1-px outline (sim/anim/outline.h). A body drawn as quads sharing their snapped edges tiles
 * without gaps, and a coiled body that crosses itself stays solid (one outline polygon under the
 * even–odd rule would punch holes where it overlaps).
 *
 * State is plain data (no pointers, fixed capacity): a world keeps sim_spine values in its state
 * and saves them with sim_spine_save. Nothing here allocates. */
#ifndef VIVARIUM_SIM_SPINE_H
#define VIVARIUM_SIM_SPINE_H
#include "sim_internal.h"

#define SIM_SPINE_MAX 24            /* points: a 24-joint snake is ~100 px at 320×180 */
#define SIM_SPINE_MAX_LEN 64.0      /* px, the longest segment */
#define SIM_SPINE_MAX_RADIUS 32.0   /* px */
#define SIM_SPINE_MAX_SPEED 64.0    /* px per step */
#define SIM_SPINE_MAX_COORD 1.0e6   /* a loaded point beyond this is corrupt */
/* maxBend must be in (0, SIM_SPINE_MAX_BEND]: beyond ~160° a joint folds back onto itself */
#define SIM_SPINE_MAX_BEND 2.8

typedef struct sim_spine {
    uint8_t n;                      /* points in use, 2..SIM_SPINE_MAX */
    double max_bend;                /* radians, the largest angle between consecutive segments */
    double speed;                   /* px the head moves per step toward its target, > 0 */
    double x[SIM_SPINE_MAX], y[SIM_SPINE_MAX];
    double len[SIM_SPINE_MAX];      /* len[i]: rest length from p[i−1] to p[i]; len[0] = 0 */
    double radius[SIM_SPINE_MAX];   /* per joint, px */
    /* derived from max_bend at init and load (not saved) */
    double cos_bend, sin_bend;
} sim_spine;

/* A straight spine with its head at (x, y) and its body trailing toward −heading (heading in
 * radians, 0 = facing +x, clockwise on a y-down frame). len holds the n − 1 segment lengths
 * (head first: len[0] is L[1]), radius the n joint radii. 0, or SIM_EINVAL with s zeroed: n out of
 * 2..SIM_SPINE_MAX, a length out of (0, SIM_SPINE_MAX_LEN], a radius out of
 * [0, SIM_SPINE_MAX_RADIUS], max_bend out of (0, SIM_SPINE_MAX_BEND], speed out of
 * (0, SIM_SPINE_MAX_SPEED], or a body too thick to bend: for every segment i,
 * (radius[i−1] + radius[i]) × sin(max_bend / 2) < L[i], so that at full bend a segment's two
 * rungs (left–right through its ends) never cross and its quad stays a simple polygon. */
int sim_spine_init(sim_spine *s, int n, double x, double y, double heading, const double *len,
                   const double *radius, double max_bend, double speed);

/* One step toward the target (tx, ty): the head moves min(speed, distance) straight at it, then
 * every later point follows, clamped and placed at its rest length. A point that lands exactly
 * on its predecessor keeps the previous segment's direction (the first segment: +x). Allocates
 * nothing. */
void sim_spine_step(sim_spine *s, double tx, double ty);

/* The head's facing, a unit vector (p[0] − p[1] normalised). */
void sim_spine_heading(const sim_spine *s, double *hx, double *hy);

/* The body in `fill` with a 1-px outline in `outline` (< 0: none). */
void sim_spine_draw(const sim_spine *s, sim_frame *f, uint8_t fill, int outline);

/* 1 + 3·8 + n·4·8 bytes: n, max_bend, speed (f64), then per point x, y, len, radius (f64 LE). */
size_t sim_spine_save_max(void);
void sim_spine_save(const sim_spine *s, sim_writer *wr);
/* Read what sim_spine_save wrote, checking everything init checks plus every point finite and
 * within ±SIM_SPINE_MAX_COORD and every segment at its rest length (to 1e-6 relative: a step
 * leaves them there), len[0] = 0 and every bend within max_bend (to 1e-6 rad). 0, or SIM_ETRUNC /
 * SIM_ECORRUPT with s untouched. */
int sim_spine_load(sim_spine *s, sim_reader *rd);

#endif
