/* picture.h — private to sim/sand/: what the demo's two pictures share, the small world's
 * (render.c, on its 320×180 plan) and the big world's (big_art.c): the palette's names, the
 * dither, the position hash, and the few drawings both make the same way. */
#ifndef VIVARIUM_SAND_PICTURE_H
#define VIVARIUM_SAND_PICTURE_H
#include "sand_int.h"

/* The demo's palette (render.c's PICTURE), and after it the colours only big worlds use
 * (big_art.c): a small world's palette stays Q_COUNT entries, as every chain before issue 30. */
enum {
    Q_SKY0, Q_SKY1, Q_SKY2, Q_SKY3, Q_SKY4, Q_SKY5, Q_SKY6,
    Q_SUN0, Q_SUN1, Q_STAR, Q_HILLF, Q_HILLN, Q_CLOUD0, Q_CLOUD1,
    Q_CAVE0, Q_CAVE1, Q_CAVE2,
    Q_E0, Q_E1, Q_E2, Q_E3, Q_E4, Q_E5, Q_SOIL, Q_G0, Q_G1, Q_G2,
    Q_M0, Q_M1, Q_M2, Q_M3, Q_M4, Q_SN0, Q_SN1,
    Q_SA0, Q_SA1, Q_SA2, Q_SA3, Q_SA4,
    Q_W0, Q_W1, Q_W2, Q_W3, Q_W4, Q_W5, Q_FOAM0, Q_FOAM1,
    Q_O0, Q_O1, Q_O2, Q_O3,
    Q_L0, Q_L1, Q_L2, Q_L3, Q_L4,
    Q_I0, Q_I1, Q_I2, Q_I3, Q_I4,
    Q_B0, Q_B1, Q_B2, Q_F0, Q_F1, Q_F2, Q_F3, Q_F4,
    Q_FIRE0, Q_FIRE1, Q_FIRE2, Q_FIRE3, Q_FIRE4, Q_EMB0, Q_EMB1, Q_EMB2, Q_EMB3,
    Q_SM0, Q_SM1, Q_STM0, Q_STM1, Q_GAS0, Q_GAS1,
    Q_ST0, Q_ST1, Q_ST2, Q_AC0, Q_AC1, Q_AC2,
    Q_COUNT,
    /* big worlds: sandstone, basalt, travertine and its orange mat, the moon, a far range */
    Q_SS0 = Q_COUNT, Q_SS1, Q_SS2, Q_BA0, Q_BA1, Q_BA2, Q_TR0, Q_TR1, Q_TR2, Q_MOON0, Q_MOON1,
    Q_HILLX,
    Q_BIG_COUNT
};

/* The Q_COUNT colours of the demo's palette, version 1 (render.c). */
void sim__sand_picture_palette(sim_palette *pal);

/* Ordered dithering: a 4×4 Bayer matrix, 0..15. */
static const uint8_t BAYER[4][4] = { { 0, 8, 2, 10 }, { 12, 4, 14, 6 }, { 3, 11, 1, 9 }, { 15, 7, 13, 5 } };

/* The picture's own hash of a position: never the seed, so the same place always looks alike.
 * sim_hash_cell(0x9157, 0, x, y, salt), with its per-tick part a constant the compiler folds. */
static inline uint32_t phash(int x, int y, uint32_t salt)
{
    return sim_hash_at(sim_hash_tick(0x9157, 0), x, y, salt);
}

/* A triangle wave of the given period and amplitude, for hill lines and strata. */
static inline int tri(int x, int period, int amp)
{
    int t = ((x % period) + period) % period;
    int half = period / 2;
    return (t < half ? t : period - t) * amp / half;
}

/* A cave's back wall at pixel (x, y): blotches of three darks, on a grid of (gx, gy) cells of
 * 5 × 3 (the small world passes plan coordinates, the big one pixels), with a dark speckle. */
static inline int cave_wall(int gx, int gy, int x, int y)
{
    uint32_t h = phash(gx / 5, gy / 3, 1);
    int k = (int)(h % 3u) + (phash(x, y, 2) % 5u == 0 ? -1 : 0);
    return Q_CAVE0 + (k < 0 ? 0 : k);
}

/* Rock, by (px, py) (plan or pixel coordinates) and h, the pixel's phash(x, y, 5). Snow d rows
 * under its surface; grass and soil d rows under the sky (d ≤ 2); granite in bands with cracks;
 * earth strata, and their speckle. */
static inline int snow(int d, uint32_t h) { return d == 0 || (h & 1u) ? Q_SN0 : Q_SN1; }

static inline int grass(int d, uint32_t h)
{
    if (d == 0) return (h & 3u) ? Q_G2 : Q_G1;
    if (d == 1) return (h & 1u) ? Q_G1 : Q_G0;
    return (h & 1u) ? Q_G0 : Q_SOIL;
}

static inline int granite(int px, int py, uint32_t h)
{
    if ((px + py * 2) % 23 == 0 || (px * 2 - py) % 31 == 0) return Q_M4;   /* cracks */
    static const uint8_t GRAN[4] = { Q_M1, Q_M2, Q_M1, Q_M0 };
    int q = GRAN[((py + tri(px, 60, 3)) / 9) & 3];
    if (h % 11u == 0) q = Q_M0;
    else if (h % 19u == 0) q = Q_M3;
    return q;
}

static inline int strata(int px, int py)
{
    static const uint8_t STRATA[6] = { Q_E2, Q_E3, Q_E2, Q_E1, Q_E2, Q_E3 };
    return STRATA[(py + tri(px, 64, 5) + tri(px + 17, 22, 2)) / 6 % 6];
}

static inline int speckle(int q, uint32_t h)
{
    if (h % 13u == 0) return q == Q_E1 ? Q_E0 : q - 1;
    if (h % 29u == 0) return Q_E4;
    return q;
}

/* leafpx of a leaf at (x, y): 1 + its shade's bits (bit 0, then the rest divided by 2: the
 * renderer's picture_render reads them so). */
static inline uint8_t leaf_shade(int x, int y)
{
    uint32_t h = phash(x / 2, y / 2, 6);
    return (uint8_t)(1 + (h & 1u) + 2 * (h % 3u));
}

#endif
