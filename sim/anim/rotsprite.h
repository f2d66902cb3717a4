/* rotsprite.h — rotation without mixels (seed 000 §2): RotSprite pre-baked at create time.
 *
 * A palette-index sprite is upscaled 8× by Scale2x applied three times (the seed's E0..E3 rules),
 * rotated about its pivot with nearest sampling, and reduced 8× again: each 8×8 block becomes
 * its most frequent non-transparent index (ties: the lowest index), or the transparent index when
 * fewer than SIM_ROT_COVER_MIN of its 64 samples are opaque. The angles that are multiples of 90°
 * take an exact path instead, so they are bit-exact rotations of the input.
 *
 * sim_rot_bake bakes SIM_ROT_ANGLES images, angle k being k × 22.5° clockwise on screen (y down);
 * sim_rot_bake_n bakes any multiple of 4 from 4 to SIM_ROT_ANGLES_MAX, angle k = k × 360°/n (the
 * 16-angle set of both is the same bytes). Every image is a square of side `side` with the
 * sprite's pivot at its centre, large enough for any rotation. The images are a pure function of
 * the sprite: a world caches them beside its state, never in it. Everything is integer except the
 * cos/sin values of the first half-quadrant, which come from sim_cos and sim_sin (sim/dmath.c)
 * rounded once to 16.16 fixed point. docs/rotsprite.md has the reasons. */
#ifndef VIVARIUM_SIM_ROTSPRITE_H
#define VIVARIUM_SIM_ROTSPRITE_H
#include <stddef.h>
#include <stdint.h>

#define SIM_ROT_ANGLES 16      /* seed 000 §2: "16 is usually enough at ≤32 px" — 22.5° steps */
#define SIM_ROT_ANGLES_MAX 256 /* sim_rot_bake_n: finer than 1.4° steps shows no new pixels */
#define SIM_ROT_SCALE 8        /* Scale2x three times */
#define SIM_ROT_MAX_DIM 256    /* widest or tallest sprite accepted: the 8× image is ≤ 4 MiB */
/* An output pixel is opaque when at least this many of its 64 samples are: half the block, so a
 * rotated shape keeps its area (the centre sample's rule, counted over the whole block) instead
 * of growing a pixel-wide rim of blocks that an edge only grazes. */
#define SIM_ROT_COVER_MIN 32

/* The input: w × h palette indices, row-major, one byte each; `transparent` is the index that
 * means "no pixel". The pivot is given in half-pixel units from the sprite's top-left corner:
 * (w, h) is the centre of the sprite, (2x+1, 2y+1) the centre of pixel (x, y). Both coordinates
 * must have the same parity (both on pixel corners or both on pixel centres), so that a quarter
 * turn maps pixels onto pixels. */
typedef struct sim_rot_sprite {
    int w, h;
    const uint8_t *px;
    uint8_t transparent;
    int pivot_x2, pivot_y2;
} sim_rot_sprite;

/* The baked images: nangles squares of side × side bytes, angle k at px + k·side². The
 * pivot sits at the square's centre, (side/2, side/2) in pixels from its top-left corner (a pixel
 * corner when side is even, a pixel centre when it is odd — the pivot's own parity). To draw with
 * the pivot at pixel-corner position (x, y) of the frame, put the top-left at
 * (x − side/2, y − side/2) for an even side; for an odd side the pivot is the centre of the
 * square's middle pixel, so put that pixel on the frame pixel that holds the pivot. */
typedef struct sim_rot_set {
    int side;
    uint8_t transparent;
    uint8_t *px;               /* owned; nangles · side · side bytes */
    int nangles;               /* images baked: angle k is k × 360°/nangles clockwise */
} sim_rot_set;

/* Bake `nangles` angles of `in` into `out`, angle k = k × 360°/nangles clockwise (allocates; call
 * at create time only, never in a step). nangles must be a multiple of 4 in 4..SIM_ROT_ANGLES_MAX,
 * so every quarter turn is one of the angles and takes the exact path. 0, SIM_EINVAL for a bad
 * count or a bad sprite (size out of 1..SIM_ROT_MAX_DIM, no pixels, pivot outside the sprite or of
 * mixed parity), or SIM_ENOMEM; on failure `out` is left empty (px NULL, nangles 0). */
int sim_rot_bake_n(sim_rot_set *out, const sim_rot_sprite *in, int nangles);
/* Bake only the `count` consecutive angles k0, k0 + 1, …, k0 + count − 1 of a turn cut in n
 * (angle k = k × 360°/n clockwise; k0 may be negative): image i is angle k0 + i, the same bytes
 * sim_rot_bake_n(…, n) would give that angle, and the same side. For a part that only ever leans
 * a little: ±20° in 1° steps is sim_rot_bake_span(out, in, 360, −20, 41), 41 images where a whole
 * turn would be 360. out->nangles is count, so sim_rot_image and sim_rot_blit take the image's
 * index i (0..count−1), and sim_rot_nearest does not apply to such a set. n a multiple of 4 in
 * 4..SIM_ROT_SPAN_N_MAX, 1 ≤ count ≤ n, |k0| ≤ n. Returns and failures as sim_rot_bake_n's
 * (allocates: create time only). */
#define SIM_ROT_SPAN_N_MAX 1440        /* quarter-degree steps */
int sim_rot_bake_span(sim_rot_set *out, const sim_rot_sprite *in, int n, int k0, int count);
/* sim_rot_bake_n(out, in, SIM_ROT_ANGLES): the 16 angles of 22.5°. */
int sim_rot_bake(sim_rot_set *out, const sim_rot_sprite *in);
/* Free what a bake allocated; safe on an empty or failed set. */
void sim_rot_free(sim_rot_set *s);
/* The image of angle k (taken modulo the set's nangles, negative k allowed). */
const uint8_t *sim_rot_image(const sim_rot_set *s, int k);
/* The angle index nearest to `degrees` clockwise (round half up, any sign or size of angle):
 * 0..nangles-1. For a 64-angle set, −12° → 62 (−11.25°) and +12° → 2 (11.25°). */
int sim_rot_nearest(const sim_rot_set *s, double degrees);
/* Blit image k with the pivot at (x, y): the square's top-left goes to (x − side/2, y − side/2).
 * For an odd side (pivot on a pixel centre) (x, y) is the frame pixel that shows the pivot pixel;
 * for an even side it is the pixel corner the pivot sits on. flags as sim_raster_blit (a flip
 * mirrors the rotated image within its square, about the pivot). Clipped; no-op on an empty set. */
struct sim_frame;
void sim_rot_blit(struct sim_frame *f, const sim_rot_set *s, int k, int x, int y, unsigned flags);

/* One Scale2x pass (exposed for its test): src is w × h, dst must hold 2w × 2h. Neighbours outside
 * the sprite read as `transparent`, so a shape's result does not depend on its padding. */
void sim_rot_scale2x(uint8_t *dst, const uint8_t *src, int w, int h, uint8_t transparent);
#endif
