/* outline.h — a filled shape with a clean 1-px outline, for the procedural creatures (seed 000 §1:
 * "nearest-pixel rasterization … never antialiased paths, because they create off-palette
 * colors").
 *
 * A shape is whatever a draw function paints with the raster primitives (polygons, capsules,
 * blocks). Painting it at the four edge-neighbour offsets in the outline ink and then in place in
 * the fill ink leaves, in the outline ink, exactly the pixels outside the shape that share an edge
 * with it: an outer outline one pixel thick, 8-connected along diagonals (a staircase, never a
 * doubled step), with no allocation. Two inks only: nothing off the palette. */
#ifndef VIVARIUM_SIM_OUTLINE_H
#define VIVARIUM_SIM_OUTLINE_H
#include "sim.h"

/* Paint the shape shifted by (dx, dy) in `ink`. It must paint the same pixels, shifted, for every
 * offset (integer coordinates snapped before the shift is added). */
typedef void (*sim_shape_fn)(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink);

/* The shape in `fill` with a 1-px outer outline in `outline` (outline < 0 or > 255: the fill
 * alone). Paints over whatever is below, in painter's order. */
void sim_draw_outlined(sim_frame *f, sim_shape_fn fn, const void *ud, uint8_t fill, int outline);

/* The same pixels as sim_draw_outlined, for a shape known to paint (at offset 0) only inside
 * the box [x0, x1] × [y0, y1]: the shape is painted once into a mask on the stack and the
 * outline found from it, instead of five times over; a box over 16 KiB with its margins (clipped
 * to the frame) takes the five passes. fn must also paint the same pixels into any frame,
 * clipped (the raster primitives do). */
void sim_draw_outlined_box(sim_frame *f, sim_shape_fn fn, const void *ud, uint8_t fill,
                           int outline, int x0, int y0, int x1, int y1);

#endif
