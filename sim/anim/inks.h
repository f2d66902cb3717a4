/* inks.h — the ink lock (seed 000 §2, §4 and §7): a whole frame locked to a few inks, each palette
 * entry replaced by the nearest ink in OKLab.
 *
 * The seed's discipline is eight inks to a picture ("the 8-ink limit"), and its rule for anything
 * that arrives with other colours is "map every pixel to the nearest palette index (in a
 * perceptual space such as OKLab)". Here the inks are chosen palette entries; the lock is a table
 * from every palette index to one of them, built once from the palette, and applying it rewrites
 * a frame's pixels through that table. The palette itself is left as it was (the entries no pixel
 * uses any more cost nothing), so a locked frame and an unlocked one share a palette version.
 *
 * A lock is a pure function of (palette, ink list): a world builds it at create from its params
 * (`inks=8`) and keeps it beside its state, never in it — there is nothing to save.
 *
 * OKLab is Björn Ottosson's (2020): sRGB decoded to linear light, a 3×3 matrix to cone-like LMS,
 * a cube root, and a second 3×3 matrix. The decode's x^2.4 and the cube root are built from
 * + − × ÷ alone (sim_cbrt, and a Newton fifth root here), so the distances and with them every
 * choice are the same bits on every machine. Ties go to the ink listed first. */
#ifndef VIVARIUM_SIM_INKS_H
#define VIVARIUM_SIM_INKS_H
#include "sim_internal.h"

#define SIM_INKS_MAX 16     /* a lock keeps at most this many inks */
#define SIM_INKS_SEED 8     /* seed 000: "eight inks" — the count the garden's inks=8 asks for */

typedef struct sim_oklab {
    double L, a, b;         /* L 0 (black) .. 1 (white); a green−red, b blue−yellow, ~±0.4 */
} sim_oklab;

typedef struct sim_inks {
    int ninks;                          /* 1 .. SIM_INKS_MAX */
    uint8_t ink[SIM_INKS_MAX];          /* the palette indexes kept, distinct */
    uint8_t map[SIM_PALETTE_MAX];       /* every byte a pixel can hold → one of ink[] */
} sim_inks;

/* sRGB byte (0..255) to linear light (0..1), the IEC 61966-2-1 curve: c/12.92 below 0.04045,
 * ((c + 0.055)/1.055)^2.4 above. Within 8 ulp of the exact curve (tests/check_inks.c). */
double sim_srgb_linear(uint8_t c);
/* An sRGB colour in OKLab. */
sim_oklab sim_oklab_from_srgb(uint8_t r, uint8_t g, uint8_t b);
/* Squared Euclidean distance in OKLab: the lock's measure. */
double sim_oklab_dist2(sim_oklab p, sim_oklab q);

/* Build the lock of `pal` to the inks ink[0..ninks−1] (palette indexes < pal->count, distinct,
 * 1 ≤ ninks ≤ SIM_INKS_MAX). Each ink maps to itself; every other entry below pal->count to the
 * ink nearest in OKLab (ties: the one listed first); bytes from pal->count up, which a frame of
 * this palette never holds, map to ink[0], so that the lock emits an ink whatever it is given.
 * 0, or SIM_EINVAL (lk is then zeroed: its map sends everything to index 0). */
int sim_inks_lock(sim_inks *lk, const sim_palette *pal, const uint8_t *ink, int ninks);
/* Choose n inks of `pal` (1 ≤ n ≤ min(SIM_INKS_MAX, pal->count)) when a scene names none: the
 * darkest entry first (lowest L, ties the lowest index), then each time the entry farthest in
 * OKLab from every ink chosen so far (farthest-point sampling; ties the lowest index), so the
 * inks span the palette. Writes n indexes to out. 0 or SIM_EINVAL. */
int sim_inks_choose(const sim_palette *pal, int n, uint8_t *out);
/* Rewrite every pixel of f through the lock: px = map[px]. Afterwards every pixel is one of the
 * inks. No allocation; f's palette is untouched. */
void sim_inks_apply(const sim_inks *lk, sim_frame *f);

#endif
