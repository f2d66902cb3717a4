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

/* Radii beyond this cover any frame many times over; clamping keeps r*r finite and the bounding
 * box in int64. 2^40 is still far above 2^33, the largest coordinate difference. */
#define CAPSULE_RMAX 1099511627776.0

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

static double clamp_radius(double r)
{
    return r > CAPSULE_RMAX ? CAPSULE_RMAX : r < -CAPSULE_RMAX ? -CAPSULE_RMAX : r;
}

/* ---- capsules -------------------------------------------------------------------------------------
 * The rule. With t the projection of the pixel centre onto the segment clamped to [0, 1], d² its
 * squared distance to the point at t, and r = r0 + (r1 − r0)·t, a pixel is covered when r ≥ 0 and
 * d² ≤ r² + r, each quantity computed in doubles exactly as capsule_covers() does. That function
 * is the definition; the span fill below finds the same pixels without testing each one.
 *
 * Relative to a = (x0, y0), write px, py for a pixel's offsets and n = px·ddx + py·ddy (an exact
 * integer: t = n / len2). Each row crosses three parts, in order of n: the cap around a (n ≤ 0,
 * t = 0), the middle (0 < n < len2) and the cap around b (n ≥ len2, t = 1). On the caps the rule
 * is integer arithmetic (px² + py² ≤ r0² + r0, exact in doubles here), so their spans come from an
 * integer square root. The middle part of the shape is convex (its half-width sqrt(r² + r) is
 * concave along the segment), so each row meets it in one interval: the pixels where the quadratic
 * G(px) = cross²/len2 − r² − r is ≤ 0. Its roots give the interval, and the rule is then trusted
 * only where G is clearly away from 0 at the interval's edge pixels (|G| > eps, a bound on the
 * rounding of both G and the rule's own arithmetic); anywhere else the row's middle part is tested
 * pixel by pixel with capsule_covers(). The three parts are filled separately: at a tapered
 * capsule's narrow end the union is not convex, and a row can leave the cap and re-enter the
 * middle. */

/* Inputs past these bounds (never met when drawing on a frame) take the pixel-by-pixel path:
 * below them every integer above (n, len2, px² + py²) stays under 2^53, exact in a double. */
#define CAPSULE_FAST_COORD 8388608        /* 2^23: |x0|, |y0|, |x1|, |y1| */
#define CAPSULE_FAST_R 1048576.0          /* 2^20 */

typedef struct capsule {
    double ddx, ddy, len2, r0, r1, rmax;
} capsule;

/* The rule at (px, py); pyddy is py·ddy. The arithmetic is the definition: do not reorder it. */
static inline int capsule_covers(const capsule *k, double px, double py, double pyddy)
{
    double t = 0.0, r = k->rmax;
    if (k->len2 > 0.0) {
        t = (px * k->ddx + pyddy) / k->len2;
        if (t <= 0.0) { t = 0.0; r = k->r0; }
        else if (t >= 1.0) { t = 1.0; r = k->r1; }   /* r0 + (r1 − r0) need not be r1 */
        else r = k->r0 + (k->r1 - k->r0) * t;
    }
    if (r < 0.0) return 0;
    double ex = px - t * k->ddx, ey = py - t * k->ddy;
    return ex * ex + ey * ey <= r * r + r;
}

/* Every pixel of the box [xa, xb] × [ya, yb] (clipped to the frame) tested by the rule. */
static void capsule_pixels(sim_frame *f, const capsule *k, int x0, int y0, int64_t xa, int64_t xb,
                           int64_t ya, int64_t yb, uint8_t c)
{
    for (int64_t y = ya; y <= yb; y++) {
        uint8_t *row = f->px + (size_t)y * f->w;
        double py = (double)(y - y0), pyddy = py * k->ddy;
        for (int64_t x = xa; x <= xb; x++)
            if (capsule_covers(k, (double)(x - x0), py, pyddy)) row[x] = c;
    }
}

static int64_t floor_i64(double v)            /* |v| < 2^62 */
{
    int64_t i = (int64_t)v;
    return i - ((double)i > v);
}

static int64_t ceil_i64(double v)
{
    int64_t i = (int64_t)v;
    return i + ((double)i < v);
}

/* floor(sqrt(v)) for 0 ≤ v < 2^52: the correctly rounded square root of an integer that small is
 * never rounded across an integer, so its truncation is exact; the checks are a guard. */
static int64_t isqrt_small(int64_t v)
{
    int64_t s = (int64_t)__builtin_sqrt((double)v);
    if (s * s > v) s--;
    if ((s + 1) * (s + 1) <= v) s++;
    return s;
}

/* The row's middle-part quadratic G(px) = (a2·px + a1)·px + a0, and how far from 0 it must be to
 * be trusted. */
typedef struct quad {
    double a2, a1, a0, eps;
    int convex;                   /* a2 is surely > 0, its vertex placed to a fraction of a pixel */
} quad;

static double quad_at(const quad *q, int64_t px)
{
    double x = (double)px;
    return (q->a2 * x + q->a1) * x + q->a0;
}

/* The middle part's covered pixels on one row, px in [*lo, *hi] (empty when *lo > *hi), given the
 * row's middle region clipped to the frame, [mlo, mhi] (non-empty). Returns 1 when every pixel of
 * [mlo, mhi] is sure to follow the rule as found; 0 when the caller must test them one by one. */
static int mid_interval(const quad *q, int64_t mlo, int64_t mhi, int64_t *lo, int64_t *hi)
{
    const double big = 0x1p62;
    double lo_r = -big, hi_r = big;               /* the real interval where G ≤ 0 */
    double eps = q->eps, flo = (double)mlo, fhi = (double)mhi;
    if (q->a2 == 0.0) {
        if (q->a1 == 0.0) {
            if (q->a0 > 0.0) lo_r = big;             /* nowhere */
        } else if (q->a1 > 0.0) {
            hi_r = -q->a0 / q->a1;
        } else {
            lo_r = -q->a0 / q->a1;
        }
    } else {
        double D = q->a1 * q->a1 - 4.0 * q->a2 * q->a0;
        if (D < 0.0) {
            if (q->a2 > 0.0) lo_r = big;             /* G > 0 everywhere */
        } else {
            double sd = __builtin_sqrt(D);
            double h = q->a1 >= 0.0 ? -0.5 * (q->a1 + sd) : -0.5 * (q->a1 - sd);
            double x1 = h / q->a2, x2 = h != 0.0 ? q->a0 / h : x1;
            if (x1 > x2) { double s = x1; x1 = x2; x2 = s; }
            if (q->a2 > 0.0) {
                lo_r = x1;
                hi_r = x2;
            } else {                                 /* G ≤ 0 outside the roots: pick the side */
                int left = x1 >= flo, right = x2 <= fhi;
                if (left && right) return 0;         /* both in the row: not the convex shape */
                if (left) hi_r = x1;
                else if (right) lo_r = x2;
                else lo_r = big;
            }
        }
    }
    int64_t a = mlo, b = mhi;
    if (lo_r > fhi || hi_r < flo) {
        a = mhi + 1;                                /* empty */
    } else {
        if (lo_r > flo) a = ceil_i64(lo_r);
        if (hi_r < fhi) b = floor_i64(hi_r);
    }
    *lo = a;
    *hi = b;
    if (a > b) {
        /* Nothing covered: G's least value over the row's pixels must be clearly positive. It is at
         * an end, or (convex) at the pixels either side of the vertex. */
        if (quad_at(q, mlo) <= eps || quad_at(q, mhi) <= eps) return 0;
        if (q->a2 > 0.0) {
            if (!q->convex) return 0;                /* a vertex not placed precisely enough */
            double v = -q->a1 / (2.0 * q->a2);
            if (v > flo && v < fhi) {
                int64_t fv = floor_i64(v);
                if (quad_at(q, fv) <= eps || quad_at(q, fv + 1) <= eps) return 0;
            }
        }
        return 1;
    }
    /* Covered [a, b]: G clearly negative at both ends (so between them: the true set is an
     * interval), clearly positive just outside; and, unless G is surely convex (then it only grows
     * from there), at the far ends of the row too. */
    if (quad_at(q, a) >= -eps || quad_at(q, b) >= -eps) return 0;
    if (a > mlo && quad_at(q, a - 1) <= eps) return 0;
    if (b < mhi && quad_at(q, b + 1) <= eps) return 0;
    if (!q->convex) {
        if (a - 1 > mlo && quad_at(q, mlo) <= eps) return 0;
        if (b + 1 < mhi && quad_at(q, mhi) <= eps) return 0;
    }
    return 1;
}

/* floor(N / e) for N stepping by d, e > 0: quotient and remainder, Bresenham-style. */
typedef struct fwalk {
    int64_t q, r, e, dq, dr;
} fwalk;

static void fwalk_init(fwalk *w, int64_t n, int64_t e, int64_t d)
{
    w->e = e;
    w->q = n / e;
    w->r = n % e;
    if (w->r < 0) { w->r += e; w->q--; }
    w->dq = d / e;
    w->dr = d % e;
    if (w->dr < 0) { w->dr += e; w->dq--; }
}

static void fwalk_step(fwalk *w)
{
    w->q += w->dq;
    w->r += w->dr;
    if (w->r >= w->e) { w->r -= w->e; w->q++; }
}

static void fill(uint8_t *row, int64_t a, int64_t b, uint8_t c)
{
    memset(row + a, c, (size_t)(b - a + 1));
}

/* The span fill (the section's comment says how). Relative to a: px in [flo, fhi] is the part of
 * the box inside the frame. Needs the fast path's bounds: rmin ≥ 0, rmax ≤ 2^20, |coordinates| ≤
 * 2^23. */
static void capsule_spans(sim_frame *f, const capsule *k, int x0, int y0, int64_t idx, int64_t idy,
                          int64_t flo, int64_t fhi, int64_t ya, int64_t yb, uint8_t c)
{
    const int64_t far = (int64_t)1 << 60;
    double r0 = k->r0, r1 = k->r1, rmax = k->rmax;
    int64_t len2 = idx * idx + idy * idy;
    /* The caps, as integers: px² + py² ≤ r² + r ⇔ px² + py² ≤ floor(r² + r). Along a row the cap
     * of lower px comes first: a's when ddx ≥ 0. A degenerate segment is the disc of rmax (the
     * rule's t = 0 with r = rmax), all of it "cap a". */
    int64_t Ta = floor_i64(len2 > 0 ? r0 * r0 + r0 : rmax * rmax + rmax);
    int64_t Tb = floor_i64(r1 * r1 + r1);
    int a_low = idx >= 0;
    int64_t lcx = a_low ? 0 : idx, lcy = a_low ? 0 : idy, lT = a_low ? Ta : Tb;
    int64_t hcx = a_low ? idx : 0, hcy = a_low ? idy : 0, hT = a_low ? Tb : Ta;
    /* Where the parts meet along a row: the low cap's part ends at s1 = floor(N1 / |ddx|), the
     * high cap's starts at s2 = −floor(N2 / |ddx|), both numerators linear in py. */
    fwalk w1 = { 0, 0, 1, 0, 0 }, w2 = { 0, 0, 1, 0, 0 };
    if (idx != 0) {
        int64_t e = idx > 0 ? idx : -idx, py = ya - y0, pyddy = py * idy;
        fwalk_init(&w1, idx > 0 ? -pyddy : pyddy - len2, e, idx > 0 ? -idy : idy);
        fwalk_init(&w2, idx > 0 ? pyddy - len2 : -pyddy, e, idx > 0 ? idy : -idy);
    }
    /* The middle: G(px) = cross²/len2 − r² − r, with cross = px·ddy − py·ddx and
     * r = r0 + dr·(px·ddx + py·ddy)/len2 = c1·px + Dr. Only its coefficients are computed here;
     * the rule is trusted only where the checks below say so. */
    quad q = { 0.0, 0.0, 0.0, 0.0, 0 };
    double dr = r1 - r0, c1 = 0.0, p1 = 0.0, p2 = 0.0, p3 = 0.0, i2a = 0.0, a4 = 0.0;
    if (len2 > 0) {
        double kk = 1.0 / k->len2;
        c1 = dr * k->ddx * kk;
        q.a2 = k->ddy * k->ddy * kk - c1 * c1;
        p1 = -2.0 * k->ddy * k->ddx * kk;             /* a1 = p1·py − (2·Dr + 1)·c1 */
        p2 = dr * k->ddy * kk;                        /* Dr = r0 + p2·py */
        p3 = k->ddx * k->ddx * kk;                    /* a0 = p3·py² − Dr² − Dr */
        double S = (double)((idx < 0 ? -idx : idx) + (idy < 0 ? -idy : idy)) + rmax + 2.0;
        double R = rmax + 1.0;
        q.eps = 0x1p-40 * S * S * R * R;
        /* Surely convex: a2 well above its own rounding, so that the vertex −a1 / 2·a2 is placed
         * within a fraction of a pixel (|vertex| < 2^25 on the fast path). */
        q.convex = q.a2 > 0x1p-20 * (k->ddy * k->ddy * kk + c1 * c1);
        if (q.convex) {
            i2a = 0.5 / q.a2;
            a4 = 4.0 * q.a2;
        }
    }
    uint8_t *row = f->px + (size_t)ya * f->w;      /* x0 + px indexes it: a is off the frame at times */
    for (int64_t y = ya; y <= yb; y++, row += f->w) {
        int64_t py = y - y0;
        int64_t s1, s2;
        if (len2 == 0) {
            s1 = s2 = far;                          /* all "cap a" */
        } else if (idx != 0) {
            s1 = w1.q;
            s2 = -w2.q;
            fwalk_step(&w1);
            fwalk_step(&w2);
        } else {                                    /* vertical: the whole row is one part */
            int64_t n = py * idy;
            s1 = n <= 0 ? far : -far;
            s2 = n >= len2 ? -far : far;
        }
        /* The low cap, the middle and the high cap, in order of px (lo > hi: empty). */
        int64_t lo0 = 1, hi0 = 0, lo1 = 1, hi1 = 0, lo2 = 1, hi2 = 0;
        int64_t v = lT - (py - lcy) * (py - lcy);
        if (v >= 0) {
            int64_t w = isqrt_small(v);
            lo0 = lcx - w;
            hi0 = min64(lcx + w, s1);
        }
        v = hT - (py - hcy) * (py - hcy);
        if (v >= 0) {
            int64_t w = isqrt_small(v);
            lo2 = max64(hcx - w, s2);
            hi2 = hcx + w;
        }
        int64_t mlo = max64(s1 + 1, flo), mhi = min64(s2 - 1, fhi);
        if (mlo <= mhi) {
            double pyf = (double)py, Dr = r0 + p2 * pyf;
            q.a1 = p1 * pyf - (2.0 * Dr + 1.0) * c1;
            q.a0 = p3 * pyf * pyf - Dr * Dr - Dr;
            int sure = 0;
            double D = q.a1 * q.a1 - a4 * q.a0;
            if (q.convex && D > 0.0) {
                /* The usual case, inline: G ≤ 0 between its roots; sure when G is clearly
                 * negative at the interval's ends and clearly positive just outside it. */
                double sd = __builtin_sqrt(D);
                double xl = (-q.a1 - sd) * i2a, xh = (-q.a1 + sd) * i2a;
                if (xl > (double)mhi || xh < (double)mlo) {
                    /* Both roots past one end: G's least value on the row is at its ends, or
                     * (convex) either side of the vertex, if that is in the row. */
                    double vx = -q.a1 * i2a;
                    sure = quad_at(&q, mlo) > q.eps && quad_at(&q, mhi) > q.eps &&
                           (vx <= (double)mlo || vx >= (double)mhi ||
                            (quad_at(&q, floor_i64(vx)) > q.eps && quad_at(&q, floor_i64(vx) + 1) > q.eps));
                } else {
                    lo1 = xl > (double)mlo ? ceil_i64(xl) : mlo;
                    hi1 = xh < (double)mhi ? floor_i64(xh) : mhi;
                    sure = lo1 <= hi1 && quad_at(&q, lo1) < -q.eps && quad_at(&q, hi1) < -q.eps &&
                           (lo1 == mlo || quad_at(&q, lo1 - 1) > q.eps) &&
                           (hi1 == mhi || quad_at(&q, hi1 + 1) > q.eps);
                }
            } else {
                sure = mid_interval(&q, mlo, mhi, &lo1, &hi1);
            }
            if (!sure) {
                /* Not sure: the rule, pixel by pixel, on this row's middle part. */
                lo1 = 1;
                hi1 = 0;
                double pyd = pyf * k->ddy;
                for (int64_t px = mlo; px <= mhi; px++)
                    if (capsule_covers(k, (double)px, pyf, pyd)) row[x0 + px] = c;
            }
        }
        /* Fill the parts, clipped to the frame, joining the ones that touch. */
        lo0 = max64(lo0, flo);
        hi0 = min64(hi0, fhi);
        lo2 = max64(lo2, flo);
        hi2 = min64(hi2, fhi);
        if (lo1 > hi1) {                            /* no middle: the caps alone */
            if (lo0 <= hi0 && lo2 <= hi2 && hi0 + 1 >= lo2) {
                fill(row, x0 + lo0, x0 + hi2, c);
            } else {
                if (lo0 <= hi0) fill(row, x0 + lo0, x0 + hi0, c);
                if (lo2 <= hi2) fill(row, x0 + lo2, x0 + hi2, c);
            }
            continue;
        }
        int64_t a = lo1, b = hi1;                   /* the middle, grown by the caps it touches */
        if (lo0 <= hi0) {
            if (hi0 + 1 >= a) a = lo0;
            else fill(row, x0 + lo0, x0 + hi0, c);
        }
        if (lo2 <= hi2) {
            if (lo2 <= b + 1) b = hi2;
            else fill(row, x0 + lo2, x0 + hi2, c);
        }
        fill(row, x0 + a, x0 + b, c);
    }
}

/* Tapered capsule around segment a–b (the rule above). At integer radii each end is exactly
 * sim_raster_circle's disc. a == b is the disc of radius max(r0, r1). A NaN radius draws nothing;
 * radii are clamped to ±2^40. Doubles with + − × ÷ and sqrt only (reproducible under
 * -ffp-contract=off); each row's spans are computed once, within the bounding box clipped to the
 * frame. */
void sim_raster_capsule(sim_frame *f, int x0, int y0, int x1, int y1, double r0, double r1,
                        uint8_t c)
{
    if (frame_empty(f) || r0 != r0 || r1 != r1) return;
    r0 = clamp_radius(r0);
    r1 = clamp_radius(r1);
    double rmax = r0 > r1 ? r0 : r1, rmin = r0 < r1 ? r0 : r1;
    if (rmax < 0) return;
    /* d ≤ sqrt(r² + r) < r + 1/2, so a margin of floor(rmax) + 1 holds every covered pixel */
    int64_t m = (int64_t)rmax + 1;
    int64_t xa = max64(min64(x0, x1) - m, 0), xb = min64(max64(x0, x1) + m, (int64_t)f->w - 1);
    int64_t ya = max64(min64(y0, y1) - m, 0), yb = min64(max64(y0, y1) + m, (int64_t)f->h - 1);
    if (xa > xb || ya > yb) return;
    /* Everything relative to a: coordinate differences are exact in a double. */
    int64_t idx = (int64_t)x1 - x0, idy = (int64_t)y1 - y0;
    capsule k = { (double)idx, (double)idy, 0.0, r0, r1, rmax };
    k.len2 = k.ddx * k.ddx + k.ddy * k.ddy;
    const int64_t L = CAPSULE_FAST_COORD;
    if (rmin < 0.0 || rmax > CAPSULE_FAST_R || x0 < -L || x0 > L || y0 < -L || y0 > L ||
        x1 < -L || x1 > L || y1 < -L || y1 > L) {
        capsule_pixels(f, &k, x0, y0, xa, xb, ya, yb, c);
        return;
    }
    /* A tighter box: a covered pixel is at most sqrt(rmax² + rmax) from the segment in x and in y,
     * and the rule's rounding cannot reach an integer offset k with k² ≥ floor(rmax² + rmax) + 2. */
    m = isqrt_small(floor_i64(rmax * rmax + rmax) + 1);
    xa = max64(min64(x0, x1) - m, 0);
    xb = min64(max64(x0, x1) + m, (int64_t)f->w - 1);
    ya = max64(min64(y0, y1) - m, 0);
    yb = min64(max64(y0, y1) + m, (int64_t)f->h - 1);
    if (xa > xb || ya > yb) return;
    capsule_spans(f, &k, x0, y0, idx, idy, xa - x0, xb - x0, ya, yb, c);
}

/* Polygon fill, even–odd rule, sampled at pixel centres. On scanline y an edge crosses when
 * min(y0, y1) ≤ y < max(y0, y1) (horizontal edges never do), at an X computed exactly as a
 * rational; pixel x is covered when X_left ≤ x < X_right for a sorted pair of crossings. That
 * half-open rule makes polygons that share an edge tile without overlap or gap. xy holds n
 * (x, y) pairs; n < 3, n > 64 (POLY_MAX: crossings live on the stack) or xy == NULL draws
 * nothing. Exact for every int input. */
void sim_raster_polygon(sim_frame *f, const int *xy, int n, uint8_t c)
{
    if (frame_empty(f) || !xy || n < 3 || n > POLY_MAX) return;
    int64_t ymin = xy[1], ymax = xy[1];
    for (int i = 1; i < n; i++) {
        ymin = min64(ymin, xy[2 * i + 1]);
        ymax = max64(ymax, xy[2 * i + 1]);
    }
    int64_t ya = max64(ymin, 0), yb = min64(ymax - 1, (int64_t)f->h - 1);
    int64_t xs[POLY_MAX];
    for (int64_t y = ya; y <= yb; y++) {
        int nx = 0;
        for (int i = 0; i < n; i++) {
            int j = i + 1 == n ? 0 : i + 1;
            int64_t xl = xy[2 * i], yl = xy[2 * i + 1], xh = xy[2 * j], yh = xy[2 * j + 1];
            if (yl == yh) continue;
            if (yl > yh) {
                int64_t tx = xl, ty = yl;
                xl = xh; yl = yh; xh = tx; yh = ty;
            }
            if (y < yl || y >= yh) continue;
            /* Only ceil(X) matters: x ≥ X ⇔ x ≥ ceil(X) for integer x. X = xl ± a·k/dy with
             * a, k, dy < 2^32, so a·k fits in uint64 and splits into quotient and remainder. */
            uint64_t dy = (uint64_t)(yh - yl), k = (uint64_t)(y - yl);
            uint64_t a = (uint64_t)(xh >= xl ? xh - xl : xl - xh);
            uint64_t p = a * k, q = p / dy, rem = p % dy;
            xs[nx++] = xh >= xl ? xl + (int64_t)q + (rem != 0) : xl - (int64_t)q;
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
