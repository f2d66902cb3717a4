/* raster.c — integer raster primitives over palette-index frames.
 *
 * Pixel (x, y) is the pixel whose centre sits at the integer point (x, y); frames are row-major,
 * f->px[y * f->w + x]. Every primitive takes any int coordinates (INT_MIN and INT_MAX included),
 * clips to the frame, writes exactly the given index to each covered pixel and never blends.
 * Coordinate arithmetic is done in int64 (differences of two ints fit in 33 bits) and products
 * in uint64 split into quotient and remainder, so no input can overflow: integer primitives are
 * exact for every input, not just for sane ones. No allocation, no libm, no globals. */
#include "sim_internal.h"

#include <limits.h>
#include <stdint.h>

enum { POLY_MAX = 64 };   /* vertices sim_raster_polygon accepts: its crossings live on the stack */

static int frame_empty(const sim_frame *f)
{
    return !f || !f->px || f->w == 0 || f->h == 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Fill row y from xa to xb inclusive, clipped. Needs a non-empty frame. */
static void span(sim_frame *f, int64_t y, int64_t xa, int64_t xb, uint8_t c)
{
    if (y < 0 || y >= f->h) return;
    xa = max64(xa, 0);
    xb = min64(xb, (int64_t)f->w - 1);
    if (xa > xb) return;
    memset(f->px + (size_t)y * f->w + (size_t)xa, c, (size_t)(xb - xa + 1));
}

/* Round half up, floor(v + 0.5), computed exactly: v + 0.5 is never formed in floating point,
 * so 0.49999999999999994 gives 0 (a double addition would round it up to 1). Saturates to
 * INT_MIN / INT_MAX (±inf included); NaN gives 0. Casts only: no libm. */
int sim_snap(double v)
{
    if (v != v) return 0;
    if (v >= (double)INT_MAX) return INT_MAX;    /* floor(v + 0.5) ≥ INT_MAX from here up */
    if (v <= (double)INT_MIN) return INT_MIN;    /* floor(v + 0.5) ≤ INT_MIN from here down */
    int64_t i = (int64_t)v;                      /* truncates toward zero; |v| < 2^31 here */
    double frac = v - (double)i;                 /* exact: the fraction bits of v */
    if (frac >= 0.5) i += 1;
    else if (frac < -0.5) i -= 1;
    return (int)i;
}

/* Set every pixel of f to c. */
void sim_raster_clear(sim_frame *f, uint8_t c)
{
    if (frame_empty(f)) return;
    memset(f->px, c, (size_t)f->w * f->h);
}

/* Fill pixels x..x+w-1 × y..y+h-1, clipped. w ≤ 0 or h ≤ 0 draws nothing. */
void sim_raster_rect(sim_frame *f, int x, int y, int w, int h, uint8_t c)
{
    if (frame_empty(f) || w <= 0 || h <= 0) return;
    int64_t ya = max64(y, 0), yb = min64((int64_t)y + h - 1, (int64_t)f->h - 1);
    for (int64_t yy = ya; yy <= yb; yy++) span(f, yy, x, (int64_t)x + w - 1, c);
}

/* Walk a line along its major axis u (u0 < u1, |v1 - v0| ≤ u1 - u0). steep says u is y. */
static void line_walk(sim_frame *f, int64_t u0, int64_t v0, int64_t u1, int64_t v1, int steep,
                      uint8_t c)
{
    int64_t ulim = steep ? f->h : f->w, vlim = steep ? f->w : f->h;
    int64_t ua = max64(u0, 0), ub = min64(u1, ulim - 1);
    if (ua > ub) return;
    uint64_t b = (uint64_t)(u1 - u0);                          /* 1 .. 2^32 - 1 */
    uint64_t a = (uint64_t)(v1 >= v0 ? v1 - v0 : v0 - v1);     /* 0 .. b */
    /* a·k / b as quotient and remainder; a, k < 2^32 so the product fits in 64 bits, and from
     * here on it advances by a per step like Bresenham's error term. */
    uint64_t p = a * (uint64_t)(ua - u0);
    uint64_t q = p / b, rem = p % b;
    for (int64_t u = ua; u <= ub; u++) {
        /* floor(V + 1/2) of the exact V = v0 ± a·k/b: ties go toward +v either way */
        int64_t v = v1 >= v0 ? v0 + (int64_t)q + (2 * rem >= b)
                             : v0 - (int64_t)q - (2 * rem > b);
        if (v >= 0 && v < vlim) {
            if (steep) f->px[(size_t)u * f->w + (size_t)v] = c;
            else f->px[(size_t)v * f->w + (size_t)u] = c;
        }
        rem += a;
        if (rem >= b) { rem -= b; q++; }
    }
}

/* Bresenham line, both endpoints inclusive, 8-connected. For each column (row, when |dy| > |dx|)
 * it picks the pixel nearest the exact line, ties toward +y (+x). That rule depends only on the
 * line, not on which end is first, so swapping the endpoints gives the same pixels. Exact for
 * every int input; the walk only visits the frame's columns (rows). */
void sim_raster_line(sim_frame *f, int x0, int y0, int x1, int y1, uint8_t c)
{
    if (frame_empty(f)) return;
    int64_t dx = (int64_t)x1 - x0, dy = (int64_t)y1 - y0;
    int64_t adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
    if (adx == 0 && ady == 0) {
        span(f, y0, x0, x0, c);
    } else if (adx >= ady) {
        if (dx > 0) line_walk(f, x0, y0, x1, y1, 0, c);
        else line_walk(f, x1, y1, x0, y0, 0, c);
    } else {
        if (dy > 0) line_walk(f, y0, x0, y1, x1, 1, c);
        else line_walk(f, y1, x1, y0, x0, 1, c);
    }
}

/* floor(sqrt(n)), bit by bit: exact, no floating point. */
static uint64_t isqrt64(uint64_t n)
{
    uint64_t res = 0, bit = (uint64_t)1 << 62;
    while (bit > n) bit >>= 2;
    while (bit) {
        if (n >= res + bit) {
            n -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    return res;
}

/* Half-width of the disc's row at vertical offset dy: the largest w with w² + dy² ≤ r² + r, or
 * -1 when the row misses the disc. r ≤ INT_MAX, so r² + r < 2^62. */
static int64_t disc_half(int64_t r, int64_t dy)
{
    if (dy < -r || dy > r) return -1;
    return (int64_t)isqrt64((uint64_t)(r * r + r - dy * dy));
}

/* Filled disc: pixels with dx² + dy² ≤ r² + r (the "+ r" gives round small discs: r = 1 is a 3×3
 * block, r = 2 a 5×5 without corners). r < 0 draws nothing; r = 0 is one pixel. Exact for every
 * int input. */
void sim_raster_circle(sim_frame *f, int cx, int cy, int r, uint8_t c)
{
    if (frame_empty(f) || r < 0) return;
    int64_t ya = max64((int64_t)cy - r, 0), yb = min64((int64_t)cy + r, (int64_t)f->h - 1);
    for (int64_t y = ya; y <= yb; y++) {
        int64_t w = disc_half(r, y - cy);
        span(f, y, (int64_t)cx - w, (int64_t)cx + w, c);
    }
}

/* Outline of sim_raster_circle's disc: its pixels that have at least one 4-neighbour outside the
 * disc. r < 0 draws nothing; r = 0 is one pixel. */
void sim_raster_ring(sim_frame *f, int cx, int cy, int r, uint8_t c)
{
    if (frame_empty(f) || r < 0) return;
    int64_t ya = max64((int64_t)cy - r, 0), yb = min64((int64_t)cy + r, (int64_t)f->h - 1);
    for (int64_t y = ya; y <= yb; y++) {
        int64_t dy = y - cy;
        int64_t w = disc_half(r, dy);
        /* |dx| ≤ m is interior: inside this row's span with room to spare, and inside the rows
         * above and below. Everything else of the span is outline. */
        int64_t m = min64(w - 1, min64(disc_half(r, dy - 1), disc_half(r, dy + 1)));
        span(f, y, (int64_t)cx - w, (int64_t)cx - m - 1, c);
        span(f, y, (int64_t)cx + m + 1, (int64_t)cx + w, c);
    }
}

/* ---- capsules -------------------------------------------------------------------------------------
 * The rule. A capsule is the union of the discs swept along the segment from a = (x0, y0) to b =
 * (x1, y1): the disc at a + t·d (d = b − a, t in [0, 1]) covers the pixels whose squared distance
 * to its centre is at most T(t) = T0 + ΔT·t, where each end's threshold is T = floor(r·r + r)
 * (the double product and sum) and ΔT = T1 − T0. A negative radius r has T = −1 − floor(r·r − r),
 * the mirror image below zero: no pixel at that end, and the discs vanish where T(t) turns
 * negative, about where the radius would cross zero.
 * With p a pixel's offset from a, n = p·d, c = p×d (the cross product) and len2 = d·d, the least
 * of |p − t·d|² − T(t) over all t is at t = (2n + ΔT) / (2·len2), so pixel p is covered when
 *   |p|² ≤ T0                                                (the disc at a), or
 *   |p − d|² ≤ T1                                            (the disc at b), or
 *   0 < 2n + ΔT < 2·len2 and 4c² ≤ 4·len2·T0 + 4n·ΔT + ΔT²   (a disc in between).
 * Integers throughout, so the rule is exact and the same on every build; capsule_covers() is its
 * definition. The "+ r" makes small discs round (r = 1 is a 3×3 block), and an end at an integer
 * radius is exactly sim_raster_circle's disc. a == b is the disc of the larger radius.
 *
 * The fill. The shape is convex (it is the shadow of the convex set of (p, t) with
 * |p − t·d|² ≤ T(t)), so a row meets it in one run: the hull of the runs where the row meets its
 * three parts. An end disc's run is an integer square root. In the middle, the third test is a
 * quadratic in the pixel's x with leading term 4·ddy², and completing the square turns it into
 * |M·px − K| ≤ √W with M = 2·ddy², K = ddx·h, h = 2·py·ddy + ΔT and W = len2·(4·ΔT·ddy·py + ΔT² +
 * 4·T0·ddy²): integers, K and W linear in the row. Its run is cut to the band 0 < 2·ddx·px + h <
 * 2·len2, whose ends step along the rows like a line's. Every bound is exact: the double square
 * root of an integer below 2^50 (isqrt_exact says why; a disc's small ones come from a table) and
 * quotients of integers below 2^53 divided in doubles (if a / b is not an integer it is at least
 * 1/|b| from one, more than the correctly rounded quotient's error |a / b|·2^-53, so its floor is
 * the exact one). Capsules too big for those bounds (segments or radii of thousands of pixels,
 * never a doll's) are tested pixel by pixel with capsule_covers(). */

/* Radii beyond this cover any frame many times over; clamping keeps T below 2^41, which the
 * pixel-by-pixel test's 128-bit arithmetic relies on. */
#define CAPSULE_RMAX 1048576.0      /* 2^20 */

static int64_t floor_i64(double v)            /* |v| < 2^62 */
{
    int64_t i = (int64_t)v;
    return i - ((double)i > v);
}

/* floor(a / b) for |a|, |b| < 2^53, b ≠ 0: one double division (the section's comment says why
 * it is exact). */
static int64_t floor_div(int64_t a, int64_t b)
{
    return floor_i64((double)a / (double)b);
}

/* floor(sqrt(v)) for 0 ≤ v < 2^50, exactly: if sqrt(v) is not an integer it is at least
 * 1 / (2·(s + 1)) below the next one, s + 1, more than half a unit in the last place of s + 1 while
 * (s + 1)² ≤ 2^52, so the correctly rounded root never reaches s + 1. */
static int64_t isqrt_exact(int64_t v)
{
    return (int64_t)__builtin_sqrt((double)v);
}

/* An end's threshold (the section's comment): floor(r·r + r), mirrored below zero for a negative
 * radius. |r| is clamped to 2^20 first, so |T| < 2^41. */
static int64_t capsule_t(double r)
{
    double a = r < 0.0 ? -r : r;
    if (a > CAPSULE_RMAX) a = CAPSULE_RMAX;
    int64_t t = floor_i64(a * a + a);
    return r < 0.0 ? -1 - t : t;
}

typedef struct capsule {
    int64_t ddx, ddy;        /* d = b − a: |ddx|, |ddy| < 2^32 */
    int64_t T0, T1, dT;      /* the ends' thresholds, |T| ≤ 2^41, and ΔT */
} capsule;

/* ---- the rule in 128-bit integers (two's complement in two halves: no compiler extension) ----- */
typedef struct wide {
    uint64_t hi, lo;
} wide;

static wide wide_of(int64_t v)
{
    wide r = { v < 0 ? UINT64_MAX : 0, (uint64_t)v };
    return r;
}

static wide wide_add(wide a, wide b)
{
    wide r = { a.hi + b.hi, a.lo + b.lo };
    r.hi += r.lo < a.lo;
    return r;
}

static wide wide_neg(wide a)
{
    wide r = { ~a.hi, ~a.lo };
    return wide_add(r, wide_of(1));
}

/* a·b modulo 2^128: the exact product whenever that fits in 128 signed bits. */
static wide wide_mul(wide a, int64_t b)
{
    uint64_t bl = (uint64_t)b, bh = b < 0 ? UINT64_MAX : 0;
    uint64_t a0 = a.lo & 0xffffffffu, a1 = a.lo >> 32, b0 = bl & 0xffffffffu, b1 = bl >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    wide r;
    r.lo = (mid << 32) | (p00 & 0xffffffffu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32) + a.hi * bl + a.lo * bh;
    return r;
}

static int wide_le(wide a, wide b)
{
    const uint64_t sign = (uint64_t)1 << 63;
    if (a.hi != b.hi) return (a.hi ^ sign) < (b.hi ^ sign);
    return a.lo <= b.lo;
}

/* |x|² + |y|² ≤ T for T ≤ 2^41: an offset past 2^21 is out at once, so the squares fit. */
static int disc_covers(int64_t x, int64_t y, int64_t T)
{
    const int64_t lim = (int64_t)1 << 21;
    return x >= -lim && x <= lim && y >= -lim && y <= lim && x * x + y * y <= T;
}

/* The rule (the section's comment) at p = (px, py), |px|, |py| < 2^33. */
static int capsule_covers(const capsule *k, int64_t px, int64_t py)
{
    if (disc_covers(px, py, k->T0) || disc_covers(px - k->ddx, py - k->ddy, k->T1)) return 1;
    if (k->ddx == 0 && k->ddy == 0) return 0;
    wide len2 = wide_add(wide_mul(wide_of(k->ddx), k->ddx), wide_mul(wide_of(k->ddy), k->ddy));
    wide n = wide_add(wide_mul(wide_of(px), k->ddx), wide_mul(wide_of(py), k->ddy));   /* < 2^66 */
    wide u = wide_add(wide_add(n, n), wide_of(k->dT));
    if (wide_le(u, wide_of(0)) || wide_le(wide_add(len2, len2), u)) return 0;
    /* In the band |n| < len2 + |ΔT| < 2^66, so the right side is below 2^111; a |c| of 2^55 or
     * more (4c² ≥ 2^112) is out, and below that 4c² fits. */
    wide cw = wide_add(wide_mul(wide_of(px), k->ddy), wide_neg(wide_mul(wide_of(py), k->ddx)));
    const int64_t climit = (int64_t)1 << 55;
    if (wide_le(wide_of(climit), cw) || wide_le(cw, wide_of(-climit))) return 0;
    int64_t c = cw.hi >> 63 ? -(int64_t)~cw.lo - 1 : (int64_t)cw.lo;       /* |c| < 2^55 */
    wide lhs = wide_mul(wide_mul(wide_of(c), c), 4);
    wide rhs = wide_add(wide_add(wide_mul(wide_mul(len2, k->T0), 4), wide_mul(wide_mul(n, k->dT), 4)),
                        wide_mul(wide_of(k->dT), k->dT));
    return wide_le(lhs, rhs);
}

/* Every pixel of the box [xa, xb] × [ya, yb] (inside the frame) tested by the rule. */
static void capsule_pixels(sim_frame *f, const capsule *k, int x0, int y0, int64_t xa, int64_t xb,
                           int64_t ya, int64_t yb, uint8_t c)
{
    for (int64_t y = ya; y <= yb; y++) {
        uint8_t *row = f->px + (size_t)y * f->w;
        for (int64_t x = xa; x <= xb; x++)
            if (capsule_covers(k, x - x0, y - y0)) row[x] = c;
    }
}

/* ---- the fill, row by row ------------------------------------------------------------------------ */
/* floor(sqrt(v)) for 0 ≤ v < 1024 (a table: what a doll's discs need), computed by the compiler:
 * the number of k in 1..31 with k² ≤ v. */
#define ISQ1(v) (((v) >= 1) + ((v) >= 4) + ((v) >= 9) + ((v) >= 16) + ((v) >= 25) + ((v) >= 36) + \
                 ((v) >= 49) + ((v) >= 64) + ((v) >= 81) + ((v) >= 100) + ((v) >= 121) +             \
                 ((v) >= 144) + ((v) >= 169) + ((v) >= 196) + ((v) >= 225) + ((v) >= 256) +           \
                 ((v) >= 289) + ((v) >= 324) + ((v) >= 361) + ((v) >= 400) + ((v) >= 441) +           \
                 ((v) >= 484) + ((v) >= 529) + ((v) >= 576) + ((v) >= 625) + ((v) >= 676) +           \
                 ((v) >= 729) + ((v) >= 784) + ((v) >= 841) + ((v) >= 900) + ((v) >= 961))
#define ISQ4(v) ISQ1(v), ISQ1((v) + 1), ISQ1((v) + 2), ISQ1((v) + 3)
#define ISQ16(v) ISQ4(v), ISQ4((v) + 4), ISQ4((v) + 8), ISQ4((v) + 12)
#define ISQ64(v) ISQ16(v), ISQ16((v) + 16), ISQ16((v) + 32), ISQ16((v) + 48)
#define ISQ256(v) ISQ64(v), ISQ64((v) + 64), ISQ64((v) + 128), ISQ64((v) + 192)
static const uint8_t ISQRT_SMALL[1024] = { ISQ256(0), ISQ256(256), ISQ256(512), ISQ256(768) };
#undef ISQ256
#undef ISQ64
#undef ISQ16
#undef ISQ4
#undef ISQ1

/* A disc's half-width: floor(sqrt(v)) for 0 ≤ v < 2^50. */
static int64_t disc_width(int64_t v)
{
    return v < 1024 ? ISQRT_SMALL[v] : isqrt_exact(v);
}

/* Set n ≥ 1 bytes from p: short runs (most of a doll's) with two overlapping stores. */
static void fill_run(uint8_t *p, int64_t n, uint8_t c)
{
    if (n > 16) {
        memset(p, c, (size_t)n);
    } else if (n >= 8) {
        uint64_t v = UINT64_C(0x0101010101010101) * c;
        memcpy(p, &v, 8);
        memcpy(p + n - 8, &v, 8);
    } else if (n >= 4) {
        uint32_t v = UINT32_C(0x01010101) * c;
        memcpy(p, &v, 4);
        memcpy(p + n - 4, &v, 4);
    } else {
        p[0] = c;
        p[n / 2] = c;
        p[n - 1] = c;
    }
}

/* One row's run, py relative to a, from the middle's run [pL, pR] (both discs lie inside it, so an
 * empty one is an empty row) and the band [bL, bR]: left of the band (t* ≤ 0) the shape is disc a,
 * right of it (t* ≥ 1) disc b, in it the middle. Returns lo > hi for none. */
static void capsule_run(const capsule *k, int64_t py, int64_t pL, int64_t pR, int64_t bL, int64_t bR,
                        int64_t *lo_out, int64_t *hi_out)
{
    int64_t lo = 1, hi = 0, v;
    if (pL > pR) {
        /* nothing */
    } else if (pR < bL) {
        v = k->T0 - py * py;
        if (v >= 0) {
            hi = disc_width(v);
            lo = -hi;
        }
    } else if (pL > bR) {
        v = k->T1 - (py - k->ddy) * (py - k->ddy);
        if (v >= 0) {
            int64_t w = disc_width(v);
            lo = k->ddx - w;
            hi = k->ddx + w;
        }
    } else {
        lo = pL;
        hi = pR;
        if (pL < bL) {
            lo = bL;
            v = k->T0 - py * py;
            if (v >= 0) lo = min64(lo, -disc_width(v));
        }
        if (pR > bR) {
            hi = bR;
            v = k->T1 - (py - k->ddy) * (py - k->ddy);
            if (v >= 0) hi = max64(hi, k->ddx + disc_width(v));
        }
    }
    *lo_out = lo;
    *hi_out = hi;
}

/* The rows py in [py, pyb] (relative to a), each filled from row[x0 + flo] to row[x0 + fhi] at
 * most; row points at the first one's pixel x = 0. A slanted capsule (ddx > 0, ddy ≠ 0, the common
 * case) steps everything along the rows with additions but for the middle's square root and two
 * quotients; a level one (ddy = 0) has the same band on every row; a vertical one's rows are each
 * all on one side of the band or all in it; a point's are disc a's. */
static void capsule_rows(const capsule *k, uint8_t *row, size_t stride, int64_t x0, int64_t flo,
                         int64_t fhi, int64_t py, int64_t pyb, uint8_t c)
{
    const int64_t far = (int64_t)1 << 62;
    const int64_t ddx = k->ddx, ddy = k->ddy, T0 = k->T0, dT = k->dT, e = 2 * ddx;
    const int64_t len2 = ddx * ddx + ddy * ddy, M = 2 * ddy * ddy;
    const int slanted = ddx > 0 && ddy != 0, level = ddx > 0 && ddy == 0;
    int64_t h = 2 * py * ddy + dT;                                  /* steps by 2·ddy */
    int64_t K = ddx * h, dK = 2 * ddx * ddy;
    int64_t W = len2 * (4 * dT * ddy * py + dT * dT + 4 * T0 * ddy * ddy), dW = 4 * len2 * dT * ddy;
    /* The band (ddx > 0): bL = floor(−h / e) + 1 and bR = ceil((2·len2 − h) / e) − 1. With
     * −h = q·e + r (0 ≤ r < e; q steps like a line's) and 2·len2 = lq·e + lr,
     * bR = q + lq − 1 + [r + lr > 0] + [r + lr > e]. */
    int64_t q = 0, r = 0, dq = 0, dr = 0, lq = 0, lr = 0;
    if (ddx > 0) {
        q = floor_div(-h, e);
        r = -h - q * e;
        dq = floor_div(-2 * ddy, e);
        dr = -2 * ddy - dq * e;
        lq = 2 * len2 / e;
        lr = 2 * len2 - lq * e;
    }
    for (; py <= pyb; py++, row += stride) {
        int64_t pL = 0, pR = 0, bL = far, bR = far;     /* a point: with bL = far, disc a alone */
        if (slanted) {
            bL = q + 1;
            bR = q + lq - 1 + (r + lr > 0) + (r + lr > e);
            r += dr;
            int64_t carry = r >= e;
            q += dq + carry;
            r -= carry * e;
            if (W < 0) {
                pL = 1;                                 /* outside the middle's test: no run */
            } else {
                int64_t s = isqrt_exact(W);
                pL = -floor_div(s - K, M);
                pR = floor_div(K + s, M);
            }
            K += dK;
            W += dW;
        } else if (level) {
            /* The middle's test is 4·ddx²·(py² − T0) − ΔT² ≤ 4·ΔT·ddx·px. */
            bL = q + 1;
            bR = q + lq - 1 + (r + lr > 0) + (r + lr > e);
            int64_t G = 4 * ddx * ddx * (py * py - T0) - dT * dT, C = 4 * dT * ddx;
            pL = C > 0 ? -floor_div(-G, C) : G <= 0 || C < 0 ? -far : far;
            pR = C < 0 ? floor_div(-G, -C) : G <= 0 || C > 0 ? far : -far;
        } else if (ddy != 0) {
            /* Vertical: the middle's run is |2·ddy²·px| ≤ √W. */
            bL = h <= 0 ? far : -far;
            bR = h >= 2 * len2 ? -far : far;
            h += 2 * ddy;
            if (W < 0) {
                pL = 1;
            } else {
                pR = isqrt_exact(W) / M;
                pL = -pR;
            }
            W += dW;
        }
        int64_t lo, hi;
        capsule_run(k, py, pL, pR, bL, bR, &lo, &hi);
        lo = max64(lo, flo);
        hi = min64(hi, fhi);
        if (lo <= hi) fill_run(row + (x0 + lo), hi - lo + 1, c);   /* x0 + px is in the frame */
    }
}

/* Whether the row loops' integers stay inside their bounds (the section's comment) for rows py in
 * [pya, pyb] relative to a: W < 2^50 (so its double square root is exact), everything else below
 * 2^52. A quick test passes any capsule a frame of today's sizes draws; the careful one bounds the
 * magnitudes in doubles, whose rounding moves them by far less than the margin. */
static int capsule_small(const capsule *k, int64_t pya, int64_t pyb)
{
    int64_t ay = k->ddy < 0 ? -k->ddy : k->ddy, apy = max64(pya < 0 ? -pya : pya, pyb < 0 ? -pyb : pyb);
    if (k->ddx <= 255 && ay <= 255 && k->T0 >= -4096 && k->T0 <= 4095 && k->T1 >= -4096 &&
        k->T1 <= 4095 && apy <= 319)
        return 1;        /* then W < 2^17 · 2^32 and every other value is far smaller */
    double ax = (double)k->ddx, y = (double)ay, py = (double)apy + 1.0;
    double dT = (double)(k->dT < 0 ? -k->dT : k->dT), T0 = (double)(k->T0 < 0 ? -k->T0 : k->T0);
    double len2 = ax * ax + y * y;
    double E = 4.0 * dT * y * py + dT * dT + 4.0 * T0 * y * y;        /* W / len2 */
    double h = 2.0 * py * y + dT;
    double G = 4.0 * ax * ax * (py * py + T0) + dT * dT;              /* a level segment's */
    return ax <= 0x1p20 && y <= 0x1p20 && len2 * E <= 0x1p49 && ax * h <= 0x1p51 &&
           h + 2.0 * len2 <= 0x1p51 && G <= 0x1p51;
}

/* Tapered capsule around segment a–b (the rule above). A NaN radius draws nothing; radii are
 * clamped to 2^20. Exact for every int input: rows are filled run by run within the bounding box
 * clipped to the frame. */
void sim_raster_capsule(sim_frame *f, int x0, int y0, int x1, int y1, double r0, double r1,
                        uint8_t c)
{
    if (frame_empty(f) || r0 != r0 || r1 != r1) return;
    if (x1 < x0) {                  /* the rule is the same from either end: make a the left one */
        int tx = x0, ty = y0;
        double tr = r0;
        x0 = x1; y0 = y1; r0 = r1;
        x1 = tx; y1 = ty; r1 = tr;
    }
    capsule k = { (int64_t)x1 - x0, (int64_t)y1 - y0, capsule_t(r0), capsule_t(r1), 0 };
    if (k.ddx == 0 && k.ddy == 0) k.T0 = k.T1 = max64(k.T0, k.T1);    /* a point: the larger disc */
    k.dT = k.T1 - k.T0;
    int64_t tmax = max64(k.T0, k.T1);
    if (tmax < 0) return;
    /* A covered pixel is within sqrt(tmax) of some point of the segment in x and in y. */
    int64_t m = disc_width(tmax);
    int64_t xa = max64(min64(x0, x1) - m, 0), xb = min64(max64(x0, x1) + m, (int64_t)f->w - 1);
    int64_t ya = max64(min64(y0, y1) - m, 0), yb = min64(max64(y0, y1) + m, (int64_t)f->h - 1);
    if (xa > xb || ya > yb) return;
    if (!capsule_small(&k, ya - y0, yb - y0)) {
        capsule_pixels(f, &k, x0, y0, xa, xb, ya, yb, c);
        return;
    }
    capsule_rows(&k, f->px + (size_t)ya * f->w, f->w, x0, xa - x0, xb - x0, ya - y0, yb - y0, c);
}

/* One non-horizontal polygon edge, from its lower-y end (xl, yl) to yh: it crosses rows
 * yl ≤ y < yh at X = xl ± a·k/dy, k = y − yl (+ when it leans right). Only ceil(X) matters
 * (x ≥ X ⇔ x ≥ ceil(X) for integer x), so the edge keeps q = floor(a·k/dy) and rem = a·k mod dy
 * and steps them exactly from row to row: k + 1 adds a = qa·dy + ra. [y0, y1) are the rows it
 * crosses inside the frame; q and rem are those of the next row it has to cross. */
typedef struct poly_edge {
    int64_t xl, y0, y1;
    uint64_t dy, qa, ra, q, rem;
    int right;
} poly_edge;

/* Polygon fill, even–odd rule, sampled at pixel centres. On scanline y an edge crosses when
 * min(y0, y1) ≤ y < max(y0, y1) (horizontal edges never do), at an X computed exactly as a
 * rational; pixel x is covered when X_left ≤ x < X_right for a sorted pair of crossings. That
 * half-open rule makes polygons that share an edge tile without overlap or gap. xy holds n
 * (x, y) pairs; n < 3, n > 64 (POLY_MAX: crossings live on the stack) or xy == NULL draws
 * nothing. Exact for every int input. */
void sim_raster_polygon(sim_frame *f, const int *xy, int n, uint8_t c)
{
    if (frame_empty(f) || !xy || n < 3 || n > POLY_MAX) return;
    poly_edge e[POLY_MAX];
    int ne = 0;
    int64_t ya = INT64_MAX, yb = INT64_MIN;       /* the rows some edge crosses, clipped */
    for (int i = 0; i < n; i++) {
        int j = i + 1 == n ? 0 : i + 1;
        int64_t xl = xy[2 * i], yl = xy[2 * i + 1], xh = xy[2 * j], yh = xy[2 * j + 1];
        if (yl == yh) continue;                       /* horizontal edges never cross */
        if (yl > yh) {
            int64_t tx = xl, ty = yl;
            xl = xh; yl = yh; xh = tx; yh = ty;
        }
        int64_t lo = max64(yl, 0), hi = min64(yh - 1, (int64_t)f->h - 1);
        if (lo > hi) continue;                        /* no row of the frame */
        poly_edge *d = &e[ne++];
        d->xl = xl;
        d->y0 = lo;
        d->y1 = hi + 1;
        d->right = xh >= xl;
        d->dy = (uint64_t)(yh - yl);
        uint64_t a = (uint64_t)(xh >= xl ? xh - xl : xl - xh);
        d->qa = a / d->dy;
        d->ra = a % d->dy;
        /* a, k, dy < 2^32, so a·k fits in uint64 */
        uint64_t p = a * (uint64_t)(lo - yl);
        d->q = p / d->dy;
        d->rem = p % d->dy;
        ya = min64(ya, lo);
        yb = max64(yb, hi);
    }
    int64_t xs[POLY_MAX];
    for (int64_t y = ya; y <= yb; y++) {
        int nx = 0;
        for (int i = 0; i < ne; i++) {
            poly_edge *d = &e[i];
            if (y < d->y0 || y >= d->y1) continue;
            xs[nx++] = d->right ? d->xl + (int64_t)d->q + (d->rem != 0) : d->xl - (int64_t)d->q;
            d->q += d->qa;
            d->rem += d->ra;
            if (d->rem >= d->dy) {
                d->rem -= d->dy;
                d->q++;
            }
        }
        for (int i = 1; i < nx; i++) {                  /* insertion sort: nx ≤ 64 */
            int64_t v = xs[i];
            int j = i;
            for (; j > 0 && xs[j - 1] > v; j--) xs[j] = xs[j - 1];
            xs[j] = v;
        }
        for (int i = 0; i + 1 < nx; i += 2) span(f, y, xs[i], xs[i + 1] - 1, c);
    }
}

/* Copy sprite s with its top-left pixel at (x, y), clipped. Pixels equal to s->key are skipped
 * when key ≥ 0. SIM_BLIT_FLIPX / SIM_BLIT_FLIPY mirror the sprite within its own rectangle, so
 * the covered rectangle is the same with or without flips. */
void sim_raster_blit(sim_frame *f, const sim_sprite *s, int x, int y, unsigned flags)
{
    if (frame_empty(f) || !s || !s->px) return;
    int64_t xa = max64(x, 0), xb = min64((int64_t)x + s->w, f->w);      /* [xa, xb) */
    int64_t ya = max64(y, 0), yb = min64((int64_t)y + s->h, f->h);
    for (int64_t fy = ya; fy < yb; fy++) {
        int64_t sy = fy - y;
        if (flags & SIM_BLIT_FLIPY) sy = s->h - 1 - sy;
        const uint8_t *src = s->px + (size_t)sy * s->w;
        uint8_t *dst = f->px + (size_t)fy * f->w;
        for (int64_t fx = xa; fx < xb; fx++) {
            int64_t sx = fx - x;
            if (flags & SIM_BLIT_FLIPX) sx = s->w - 1 - sx;
            uint8_t v = src[sx];
            if (s->key >= 0 && v == s->key) continue;
            dst[fx] = v;
        }
    }
}
