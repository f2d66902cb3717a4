/* rotsprite.c — RotSprite pre-bake (seed 000 §2): Scale2x ×3, nearest rotation, 8× mode
 * reduction; quarter turns exact. See rotsprite.h for the contract, docs/rotsprite.md for the
 * choices. Allocates only inside sim_rot_bake, which a world calls at create time. */
#include <stdlib.h>
#include <string.h>
#include "rotsprite.h"
#include "sim.h"

#define FX_ONE 65536  /* 16.16 fixed point for cos and sin */

void sim_rot_scale2x(uint8_t *dst, const uint8_t *src, int w, int h, uint8_t transparent)
{
    int dw = 2 * w;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t e = src[y * w + x];
            uint8_t b = y > 0 ? src[(y - 1) * w + x] : transparent;
            uint8_t hh = y < h - 1 ? src[(y + 1) * w + x] : transparent;
            uint8_t d = x > 0 ? src[y * w + x - 1] : transparent;
            uint8_t f = x < w - 1 ? src[y * w + x + 1] : transparent;
            uint8_t e0 = e, e1 = e, e2 = e, e3 = e;
            /* scale2x.it: if B != H && D != F apply the rules, else all four outputs are E */
            if (b != hh && d != f) {
                e0 = d == b ? d : e;
                e1 = b == f ? f : e;
                e2 = d == hh ? d : e;
                e3 = hh == f ? f : e;
            }
            uint8_t *o = dst + (2 * y) * dw + 2 * x;
            o[0] = e0;
            o[1] = e1;
            o[dw] = e2;
            o[dw + 1] = e3;
        }
    }
}

/* Smallest n with n·n >= v (v small: a loop is plenty at bake time). */
static int ceil_sqrt(int64_t v)
{
    int n = 0;
    while ((int64_t)n * n < v)
        n++;
    return n;
}

/* round(x · FX_ONE) for |x| <= 1, half away from zero; x comes from sim_cos/sim_sin, so it is
 * the same double everywhere, and the product by a power of two is exact. */
static int32_t fx_round(double x)
{
    double v = x * FX_ONE;
    return (int32_t)(v >= 0 ? v + 0.5 : v - 0.5);
}

/* cos and sin of angle k × 360°/n in 16.16 (n a multiple of 4). Only the first quadrant is
 * computed, and only its first half from sim_cos/sim_sin: an angle past 45° takes the values of
 * its complement swapped, and 45° itself (when n is a multiple of 8) uses cos 45° for both, so
 * the quadrant is symmetric exactly. The other quadrants are exact quarter turns of it, and
 * multiples of 90° are exactly 0 and ±1. For n = 16 this is the 22.5° table of the original
 * bake, value for value (2π·j/16 is π/8 or π/4 exactly in binary). */
static void angle_fx(int k, int n, int32_t *c, int32_t *s)
{
    int quarter = n / 4, j = k % quarter, jj = 2 * j > quarter ? quarter - j : j;
    int32_t cj = FX_ONE, sj = 0;
    if (2 * jj == quarter) {
        cj = sj = fx_round(sim_cos(SIM_PI / 4));
    } else if (jj > 0) {
        double a = SIM_PI * (2.0 * jj) / n;
        cj = fx_round(sim_cos(a));
        sj = fx_round(sim_sin(a));
    }
    int32_t cc = 2 * j > quarter ? sj : cj, ss = 2 * j > quarter ? cj : sj;
    for (int q = 0; q < k / quarter; q++) {  /* +90°: (cos, sin) → (−sin, cos) */
        int32_t t = cc;
        cc = -ss;
        ss = t;
    }
    *c = cc;
    *s = ss;
}

/* A quarter turn (q = 0..3 times 90° clockwise) of the input itself, pixel for pixel. Centres
 * are in half-pixel units relative to the pivot; the canvas centre is `side` half-units from its
 * corner and has the pivot's parity, so every rotated centre lands on a pixel centre. */
static void bake_exact(uint8_t *img, int side, const sim_rot_sprite *in, int q)
{
    for (int y = 0; y < in->h; y++) {
        for (int x = 0; x < in->w; x++) {
            uint8_t v = in->px[y * in->w + x];
            if (v == in->transparent)
                continue;
            int dx = 2 * x + 1 - in->pivot_x2, dy = 2 * y + 1 - in->pivot_y2;
            for (int i = 0; i < q; i++) {  /* clockwise on screen (y down): (dx, dy) → (−dy, dx) */
                int t = dx;
                dx = -dy;
                dy = t;
            }
            int ox = (side + dx - 1) / 2, oy = (side + dy - 1) / 2;
            img[oy * side + ox] = v;
        }
    }
}

/* The general path: every output pixel is an 8×8 block of the rotated 8× canvas; each of its 64
 * samples is the nearest pixel of the 8× sprite under the inverse rotation. */
static void bake_general(uint8_t *img, int side, const uint8_t *big, int bw, int bh,
                         const sim_rot_sprite *in, int k, int n)
{
    int32_t c, s;
    angle_fx(k, n, &c, &s);
    const int64_t S8 = (int64_t)SIM_ROT_SCALE * side;        /* canvas centre, half-subpixels */
    const int64_t px = (int64_t)SIM_ROT_SCALE * in->pivot_x2; /* pivot in the 8× sprite, same */
    const int64_t py = (int64_t)SIM_ROT_SCALE * in->pivot_y2;
    const int64_t cell = 2 * (int64_t)FX_ONE;                /* one subpixel, in fixed half-units */
    _Static_assert(2 * FX_ONE == 1 << 17, "a subpixel is 2^17 fixed half-units");
    uint8_t tr = in->transparent;
    uint16_t count[256];
    memset(count, 0, sizeof count);
    /* A block whose centre maps more than 6 subpixels outside the 8× sprite has no sample inside
     * it (every sample is within 4√2 < 6 subpixels of the centre, and turning keeps distances),
     * so it stays transparent without sampling: most of the square outside a sprite's corners. */
    const int64_t margin = 6 * cell;
    for (int oy = 0; oy < side; oy++) {
        int64_t cy = 2 * ((int64_t)oy * SIM_ROT_SCALE + SIM_ROT_SCALE / 2) - S8;
        for (int ox = 0; ox < side; ox++) {
            int64_t cx = 2 * ((int64_t)ox * SIM_ROT_SCALE + SIM_ROT_SCALE / 2) - S8;
            int64_t csx = c * cx + s * cy + px * FX_ONE, csy = -s * cx + c * cy + py * FX_ONE;
            if (csx < -margin || csy < -margin || csx > bw * cell + margin ||
                csy > bh * cell + margin)
                continue;
            /* The mode is kept as samples arrive: only the index just counted can overtake
             * the leader, and it does so when it has more samples, or as many and a lower index
             * — the same answer as scanning all 256 counts at the end. */
            uint8_t touched[SIM_ROT_SCALE * SIM_ROT_SCALE];
            int opaque = 0, best = -1, ntouched = 0;
            int64_t qx0 = 2 * (int64_t)ox * SIM_ROT_SCALE + 1 - S8;
            for (int j = 0; j < SIM_ROT_SCALE; j++) {
                int64_t qy = 2 * ((int64_t)oy * SIM_ROT_SCALE + j) + 1 - S8;
                /* inverse of the clockwise turn: (qx, qy) → (c·qx + s·qy, −s·qx + c·qy), with qx
                 * stepping by 2 along the row: exact integer sums, the same as the products */
                int64_t sx = c * qx0 + s * qy + px * FX_ONE;
                int64_t sy = -s * qx0 + c * qy + py * FX_ONE;
                for (int i = 0; i < SIM_ROT_SCALE; i++, sx += 2 * (int64_t)c,
                                                        sy -= 2 * (int64_t)s) {
                    /* floor(sx / cell) is negative exactly when sx is, and for sx ≥ 0 it is
                     * the shift (cell is 2^17) */
                    if (sx < 0 || sy < 0)
                        continue;
                    int64_t ix = sx >> 17, iy = sy >> 17;
                    if (ix >= bw || iy >= bh)
                        continue;
                    uint8_t v = big[iy * bw + ix];
                    if (v == tr)
                        continue;
                    if (count[v]++ == 0)
                        touched[ntouched++] = v;
                    opaque++;
                    if (best < 0 || count[v] > count[best] || (count[v] == count[best] && v < best))
                        best = v;
                }
            }
            for (int t = 0; t < ntouched; t++)  /* leave count all zero for the next block */
                count[touched[t]] = 0;
            if (opaque < SIM_ROT_COVER_MIN)
                continue;
            img[oy * side + ox] = (uint8_t)best;
        }
    }
}

/* Image `src` turned a quarter clockwise into `dst` (side × side, pivot at the centre). For the
 * general path this is exact: angle k + n/4 has (cos, sin) = (−sin, cos) of angle k
 * (angle_fx), so the samples of its block (ox, oy) are those of angle k's block
 * (oy, side − 1 − ox) — its sample (i, j) is that one's (j, 7 − i) — in another order; the
 * margin test sees the same centre, and the mode of a block does not depend on the order of its
 * samples (the leader rule below gives the lowest index of the highest count). */
static void turn_quarter(uint8_t *dst, const uint8_t *src, int side)
{
    for (int oy = 0; oy < side; oy++)
        for (int ox = 0; ox < side; ox++)
            dst[oy * side + ox] = src[(side - 1 - ox) * side + oy];
}

/* What every bake shares: check the sprite, size the square (the farthest sprite corner from the
 * pivot bounds every rotation) and make the 8× image (three Scale2x passes) in *big, which the
 * caller frees. 0, SIM_EINVAL for a bad sprite, or SIM_ENOMEM (nothing left allocated). */
static int bake_prepare(const sim_rot_sprite *in, int *side_out, uint8_t **big_out)
{
    *big_out = NULL;
    if (!in || !in->px || in->w < 1 || in->h < 1 || in->w > SIM_ROT_MAX_DIM ||
        in->h > SIM_ROT_MAX_DIM || in->pivot_x2 < 0 || in->pivot_y2 < 0 ||
        in->pivot_x2 > 2 * in->w || in->pivot_y2 > 2 * in->h ||
        ((in->pivot_x2 ^ in->pivot_y2) & 1))
        return SIM_EINVAL;
    int64_t dx = in->pivot_x2 > 2 * in->w - in->pivot_x2 ? in->pivot_x2 : 2 * in->w - in->pivot_x2;
    int64_t dy = in->pivot_y2 > 2 * in->h - in->pivot_y2 ? in->pivot_y2 : 2 * in->h - in->pivot_y2;
    int side = ceil_sqrt(dx * dx + dy * dy);
    if ((side ^ in->pivot_x2) & 1)
        side++;
    if (side < 1)
        side = 1 + (in->pivot_x2 & 1 ? 0 : 1);
    size_t big = (size_t)in->w * in->h * SIM_ROT_SCALE * SIM_ROT_SCALE;
    uint8_t *a = malloc(big), *b = malloc(big);
    if (!a || !b) {
        free(a);
        free(b);
        return SIM_ENOMEM;
    }
    /* 8×: three Scale2x passes, ping-ponging between a and b; the result ends in a. */
    memcpy(b, in->px, (size_t)in->w * in->h);
    sim_rot_scale2x(a, b, in->w, in->h, in->transparent);
    sim_rot_scale2x(b, a, 2 * in->w, 2 * in->h, in->transparent);
    sim_rot_scale2x(a, b, 4 * in->w, 4 * in->h, in->transparent);
    free(b);
    *side_out = side;
    *big_out = a;
    return 0;
}

int sim_rot_bake_n(sim_rot_set *out, const sim_rot_sprite *in, int nangles)
{
    uint8_t *a = NULL;
    int side = 0, rc;
    out->px = NULL;
    out->side = 0;
    out->nangles = 0;
    if (nangles < 4 || nangles > SIM_ROT_ANGLES_MAX || nangles % 4 != 0)
        return SIM_EINVAL;
    if ((rc = bake_prepare(in, &side, &a)) != 0)
        return rc;
    size_t area = (size_t)side * (size_t)side;
    uint8_t *px = malloc(area * (size_t)nangles);
    if (!px) {
        free(a);
        return SIM_ENOMEM;
    }
    memset(px, in->transparent, area * (size_t)nangles);
    int quarter = nangles / 4;
    /* The first quadrant is sampled; the other three are its exact quarter turns. */
    for (int k = 0; k < nangles; k++) {
        uint8_t *img = px + area * (size_t)k;
        if (k % quarter == 0)
            bake_exact(img, side, in, k / quarter);
        else if (k < quarter)
            bake_general(img, side, a, SIM_ROT_SCALE * in->w, SIM_ROT_SCALE * in->h, in, k,
                         nangles);
        else
            turn_quarter(img, img - area * (size_t)quarter, side);
    }
    out->px = px;
    out->side = side;
    out->nangles = nangles;
    out->transparent = in->transparent;
    free(a);
    return 0;
}

int sim_rot_bake_span(sim_rot_set *out, const sim_rot_sprite *in, int n, int k0, int count)
{
    uint8_t *a = NULL;
    int side = 0, rc;
    out->px = NULL;
    out->side = 0;
    out->nangles = 0;
    if (n < 4 || n > SIM_ROT_SPAN_N_MAX || n % 4 != 0 || count < 1 || count > n || k0 < -n ||
        k0 > n)
        return SIM_EINVAL;
    if ((rc = bake_prepare(in, &side, &a)) != 0)
        return rc;
    size_t area = (size_t)side * (size_t)side;
    uint8_t *px = malloc(area * (size_t)count);
    if (!px) {
        free(a);
        return SIM_ENOMEM;
    }
    memset(px, in->transparent, area * (size_t)count);
    int quarter = n / 4;
    for (int i = 0; i < count; i++) {
        int k = ((k0 + i) % n + n) % n;
        uint8_t *img = px + area * (size_t)i;
        if (k % quarter == 0)
            bake_exact(img, side, in, k / quarter);
        else  /* any quadrant: angle_fx gives its values as exact quarter turns of the first's */
            bake_general(img, side, a, SIM_ROT_SCALE * in->w, SIM_ROT_SCALE * in->h, in, k, n);
    }
    out->px = px;
    out->side = side;
    out->nangles = count;
    out->transparent = in->transparent;
    free(a);
    return 0;
}

int sim_rot_bake(sim_rot_set *out, const sim_rot_sprite *in)
{
    return sim_rot_bake_n(out, in, SIM_ROT_ANGLES);
}

void sim_rot_free(sim_rot_set *s)
{
    if (!s)
        return;
    free(s->px);
    s->px = NULL;
    s->side = 0;
    s->nangles = 0;
}

const uint8_t *sim_rot_image(const sim_rot_set *s, int k)
{
    int n = s->nangles > 0 ? s->nangles : SIM_ROT_ANGLES;
    int m = ((k % n) + n) % n;
    return s->px + (size_t)s->side * (size_t)s->side * (size_t)m;
}

int sim_rot_nearest(const sim_rot_set *s, double degrees)
{
    int n = s->nangles > 0 ? s->nangles : SIM_ROT_ANGLES;
    /* degrees·n/360 rounded half up, reduced to 0..n-1; the product is exact for the small
     * integer-valued angles callers use, and sim_floor is the core's own floor */
    double t = sim_floor(degrees * n / 360.0 + 0.5);
    if (!(t > -1e9 && t < 1e9))  /* NaN or absurd: angle 0 rather than an overflow */
        return 0;
    int k = (int)t % n;
    return k < 0 ? k + n : k;
}

void sim_rot_blit(sim_frame *f, const sim_rot_set *s, int k, int x, int y, unsigned flags)
{
    if (!s || !s->px)
        return;
    sim_sprite sp = { (uint16_t)s->side, (uint16_t)s->side, sim_rot_image(s, k), s->transparent };
    sim_raster_blit(f, &sp, x - s->side / 2, y - s->side / 2, flags);
}
