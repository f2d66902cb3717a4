/* fabrik.h — a many-jointed reacher solved with FABRIK (seed 000 §1: "FABRIK … 2–3 iterations
 * for more joints"): a tentacle or a vine.
 *
 * Joints p[0..n−1], p[0] the root, with lengths L[i] from p[i−1] to p[i]. A solve toward a target
 * t: when t is beyond the reach (the sum of the lengths) every segment points straight at it at
 * full length; otherwise SIM_FABRIK_ITERS iterations of the forward pass (the tip put on t, each
 * joint back along the line to its successor at its length) and the backward pass (the root put
 * back, each joint along the line from its predecessor at its length), starting from the last
 * pose, so a reacher that follows a moving target every step converges over a few steps and moves
 * smoothly. The backward pass ends every iteration, so the root never moves and every segment is
 * at its length after every solve.
 *
 * Drawn as tapered capsules (sim_raster_capsule), thick at the root, in one fill ink with a 1-px
 * outline (sim/anim/outline.h). State is plain data with a fixed capacity; nothing here
 * allocates. */
#ifndef VIVARIUM_SIM_FABRIK_H
#define VIVARIUM_SIM_FABRIK_H
#include "sim_internal.h"

#define SIM_FABRIK_MAX 16           /* joints */
#define SIM_FABRIK_ITERS 3          /* seed 000 §1: "2–3 FABRIK iterations"; we take 3 */
/* Ours: a solve stops iterating once the tip is this close to the target (px). A twentieth of a
 * pixel never shows after snapping, and a reacher at rest does no work. */
#define SIM_FABRIK_TOL 0.05
#define SIM_FABRIK_MAX_LEN 64.0     /* px, the longest segment */
#define SIM_FABRIK_MAX_COORD 1.0e6

typedef struct sim_fabrik {
    uint8_t n;                      /* joints, 2..SIM_FABRIK_MAX */
    double x[SIM_FABRIK_MAX], y[SIM_FABRIK_MAX];
    double len[SIM_FABRIK_MAX];     /* len[i]: from p[i−1] to p[i]; len[0] = 0 */
} sim_fabrik;

/* A straight reacher rooted at (rx, ry), pointing along `heading` (radians, 0 = +x, clockwise on
 * a y-down frame). len holds the n − 1 segment lengths, root first. 0, or SIM_EINVAL (n out of
 * 2..SIM_FABRIK_MAX, a length out of (0, SIM_FABRIK_MAX_LEN], a non-finite root) with r zeroed. */
int sim_fabrik_init(sim_fabrik *r, int n, double rx, double ry, double heading, const double *len);
/* The reach: the sum of the lengths. */
double sim_fabrik_reach(const sim_fabrik *r);
/* One solve toward (tx, ty), as above; a non-finite target is ignored. Returns the iterations
 * run (0 when out of reach or already within SIM_FABRIK_TOL). Allocates nothing. */
int sim_fabrik_solve(sim_fabrik *r, double tx, double ty);
/* Move the root (a vine's stem swaying, a tentacle on a walking body): the whole reacher is
 * translated with it (every segment keeps its length), and the next solve keeps it there. */
void sim_fabrik_set_root(sim_fabrik *r, double rx, double ry);

/* Tapered capsules from r_root at the root to r_tip at the tip, in `fill` with a 1-px outline in
 * `outline` (< 0: none). */
void sim_fabrik_draw(const sim_fabrik *r, sim_frame *f, double r_root, double r_tip, uint8_t fill,
                     int outline);

/* 1 + n·3·8 bytes: n, then per joint x, y, len (f64 LE). */
size_t sim_fabrik_save_max(void);
void sim_fabrik_save(const sim_fabrik *r, sim_writer *wr);
/* 0, or SIM_ETRUNC / SIM_ECORRUPT (a count or length out of range, len[0] ≠ 0, a point beyond
 * ±SIM_FABRIK_MAX_COORD, a segment off its length by more than 1e-6 of it) with r untouched. */
int sim_fabrik_load(sim_fabrik *r, sim_reader *rd);

#endif
