/* shear.h — rotation by three shears (seed 000 §2: "Rotation by any angle can be done with three
 * shears … without resampling blur"; Paeth, "A Fast Algorithm for General Raster Rotation",
 * Graphics Interface 1986).
 *
 * A rotation by θ is the product of three shears, x += −tan(θ/2)·y, then y += sin θ·x, then
 * x += −tan(θ/2)·y again. Each shear moves every row (column) of pixels by a whole number of
 * pixels — round(t·y), rounded half away from zero — so each is a one-to-one map of the pixel grid
 * onto itself, and so is their product: the rotated image is a permutation of the sprite's pixels.
 * Nothing is sampled, blended or invented: every opaque pixel of the sprite lands on exactly one
 * pixel of the result, no two on the same one, so the palette, the pixel count and each colour's
 * count are kept exactly (the seed's caveat: a single-pixel line can break into steps, because
 * pixels move, never grow). Angles beyond ±45° first take the exact quarter turns (a transpose and
 * a flip), so the shears never see more than 45°, where tan(θ/2) ≤ 0.42 keeps the steps short.
 *
 * And because round(−v) = −round(v), the three shears of −θ are the inverses of those of θ in the
 * reverse order: for |θ| ≤ 45° rotating by θ and then by −θ gives the sprite back, bit for bit.
 *
 * Angles are radians, clockwise on screen (y down). The pivot is the pixel (w/2, h/2) of the
 * sprite (integer division), and lands on (dw/2, dh/2) of the result. A pure function of the
 * sprite and the angle: a world bakes the angles it needs at create time (the garden's windmill
 * bakes a quarter turn of its sails) and never saves them. Allocates nothing. */
#ifndef VIVARIUM_SIM_SHEAR_H
#define VIVARIUM_SIM_SHEAR_H
#include "sim.h"

#define SIM_SHEAR_MAX 128           /* widest or tallest sprite (and result) accepted */

/* dst (dw × dh bytes) = s rotated by `angle` about its pivot: first filled with s's key (the
 * transparent index, which s must have), then every opaque pixel of s put where the three shears
 * take it. Returns the number of opaque pixels that fell outside dst (0 when dst is large enough:
 * a side of ⌈√2·max(w, h)⌉ + 2 always is), or SIM_EINVAL (no sprite, no key, a size beyond
 * SIM_SHEAR_MAX, a non-finite angle). */
int sim_shear_rotate(uint8_t *dst, int dw, int dh, const sim_sprite *s, double angle);

/* The whole-pixel shift of one shear: round(t·v), halves away from zero. */
int sim_shear_shift(double t, int v);

#endif
