/* cloth.h — a flag as a 2-D Verlet grid (seed 000 §5: "Flags and cloth: a 2-D verlet grid (e.g.,
 * 6×4 nodes) rasterized as flat quads").
 *
 * Node (i, j) is column i counted from the pole and row j counted from the top, at index j·w + i.
 * Each has a position and a previous position (its velocity is the gap, as in sim/anim/verlet.c)
 * and a pin flag; sim_cloth_hang lays the grid out flat and pins column 0 to the pole. A step moves
 * every free node by its velocity × keep plus gravity and the wind, then relaxes the distance
 * constraints `iters` times: along the rows, down the columns (both rigid), then both diagonals
 * of every cell (weak, SIM_CLOTH_SHEAR), each pass in that fixed order.
 *
 * A pinned node is never written: not by the step, not by a constraint (its share of every
 * correction is zero, so its neighbour takes it all). So the pinned nodes are exactly still, bit
 * for bit, which sim/anim/verlet.c's pins cannot give: they pull a chunk toward a point by a
 * fraction, and x + (p − x) is not always p in floating point. That, and the terrain, spin and pile
 * options a flag needs none of, is why the flag has this small solver of its own.
 *
 * The wind pushes every free node along x with its strength, and a flutter — a vertical push
 * travelling from the pole to the free edge, sin(phase − k·i), as strong as the wind — makes the
 * waves. Doubles under the determinism rules; the flutter's sine is sim_sin; nothing random. */
#ifndef VIVARIUM_SIM_CLOTH_H
#define VIVARIUM_SIM_CLOTH_H
#include "sim_internal.h"

#define SIM_CLOTH_MAX 16                /* nodes along either side */
#define SIM_FLAG_W 6                    /* the seed's 6 × 4 nodes */
#define SIM_FLAG_H 4
#define SIM_CLOTH_ITERS 4               /* relaxation passes a step (the seed's chains: 2–4) */
#define SIM_CLOTH_GRAVITY 0.05          /* px/tick²: the flag hangs straight down in a calm */
#define SIM_CLOTH_KEEP 0.97             /* velocity kept a tick (air drag) */
/* The wind's full strength pushes 0.15 px/tick² along x, three times gravity. Measured on a 6×4
 * flag of 4-px cells (the top row's free corner, mean angle below level over ticks 600–900 from a
 * flat hang): 63° in a calm, 27° at a wind of 30, 13° in a gale. */
#define SIM_CLOTH_WIND 0.15
/* The flutter: as strong as the wind's push, a wave 5 columns long (a 6-node flag shows one fold
 * and a bit), 30 ticks a period (two flaps a second at 60 Hz). The free bottom corner swings 4 px
 * at a wind of 30 and 7 px in a gale (same measurement). */
#define SIM_CLOTH_FLUTTER 1.0
#define SIM_CLOTH_FLUTTER_COLS 5
#define SIM_CLOTH_FLUTTER_TICKS 30
/* The diagonals' stiffness: weak. Cloth shears freely, and full-strength diagonals pinned along
 * the pole would make the flag a rigid board that never droops; 0.02 gives it just enough body
 * to hang as a sheet in a calm instead of collapsing onto the pole. */
#define SIM_CLOTH_SHEAR 0.02
#define SIM_CLOTH_MAX_STEP 8.0          /* a node moves at most this far a tick: a guard */
#define SIM_CLOTH_MAX_COORD 1.0e6       /* a load's bound on every coordinate */

typedef struct sim_cloth {
    int w, h;                           /* nodes across and down, 2..SIM_CLOTH_MAX, fixed at init */
    double *x, *y;                      /* w·h positions, px */
    double *px, *py;                    /* previous positions */
    uint8_t *pin;                       /* 1: never moves */
    double sx, sy;                      /* rest spacing along a row, down a column, px */
    uint32_t phase;                     /* the flutter's phase, 2^32 a turn */
    /* Configuration (not saved): init sets the defaults above. */
    double gravity, keep, wind_push, flutter, shear;
    int iters;
} sim_cloth;

/* Allocate a w × h grid (2..SIM_CLOTH_MAX each), every node at (0, 0), free, spacing 1. 0,
 * SIM_EINVAL or SIM_ENOMEM (c is then empty and safe to free). */
int sim_cloth_init(sim_cloth *c, int w, int h);
void sim_cloth_free(sim_cloth *c);
/* Lay the grid flat and still: node (i, j) at (x0 + dir·i·sx, y0 + j·sy) with dir = +1 (the flag
 * to the right of the pole) or −1, spacing sx, sy > 0; pin column 0 and free the rest; phase 0. */
void sim_cloth_hang(sim_cloth *c, double x0, double y0, double sx, double sy, int dir);
/* One tick in the wind (−SIM_WIND_MAX..SIM_WIND_MAX, clamped). Allocates nothing. */
void sim_cloth_step(sim_cloth *c, int wind);
/* Draw the (w−1)·(h−1) cells as flat quads through sim_raster_polygon, corners snapped to whole
 * pixels (shared edges tile with neither gap nor overlap). Cell row j takes its colours from band
 * j mod nbands, three indexes each: lit, plain, shaded; a cell is lit where the cloth turns up
 * toward the sky against the flag's overall line from pole to free edge, shaded where it turns
 * down (more than sin 12°), plain between. Cells are drawn row by row from the pole out. */
void sim_cloth_draw(const sim_cloth *c, sim_frame *f, const uint8_t (*bands)[3], int nbands);

/* State: u16 tag 0xF1A6, u8 w, u8 h, f64 sx, f64 sy, u32 phase, then w·h × { f64 x, y, px, py,
 * u8 pin } in index order. */
size_t sim_cloth_save_max(const sim_cloth *c);
void sim_cloth_save(const sim_cloth *c, sim_writer *wr);
/* Read a state saved by sim_cloth_save into c (same w, h). Checks the tag, the size, spacings in
 * (0, 1000], finite coordinates within ±SIM_CLOTH_MAX_COORD, pins 0 or 1, a pinned node at rest.
 * 0, or SIM_ETRUNC / SIM_ECORRUPT with c untouched. */
int sim_cloth_load(sim_cloth *c, sim_reader *rd);

#endif
