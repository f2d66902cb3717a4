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

/* Tapered capsule around segment a–b. With t the projection of the pixel centre onto the segment
 * clamped to [0, 1], d² its squared distance to the point at t, and r = r0 + (r1 − r0)·t, a pixel
 * is covered when r ≥ 0 and d² ≤ r² + r: at integer radii each end is exactly
 * sim_raster_circle's disc. a == b is the disc of radius max(r0, r1). A NaN radius draws
 * nothing; radii are clamped to ±2^40. Doubles with + − × ÷ only (reproducible under
 * -ffp-contract=off); visits only the bounding box clipped to the frame. */
void sim_raster_capsule(sim_frame *f, int x0, int y0, int x1, int y1, double r0, double r1,
                        uint8_t c)
{
    if (frame_empty(f) || r0 != r0 || r1 != r1) return;
    r0 = clamp_radius(r0);
    r1 = clamp_radius(r1);
    double rmax = r0 > r1 ? r0 : r1;
    if (rmax < 0) return;
    /* d ≤ sqrt(r² + r) < r + 1/2, so a margin of floor(rmax) + 1 holds every covered pixel */
    int64_t m = (int64_t)rmax + 1;
    int64_t xa = max64(min64(x0, x1) - m, 0), xb = min64(max64(x0, x1) + m, (int64_t)f->w - 1);
    int64_t ya = max64(min64(y0, y1) - m, 0), yb = min64(max64(y0, y1) + m, (int64_t)f->h - 1);
    /* Everything relative to a: coordinate differences are exact in a double. */
    double ddx = (double)((int64_t)x1 - x0), ddy = (double)((int64_t)y1 - y0);
    double len2 = ddx * ddx + ddy * ddy;
    for (int64_t y = ya; y <= yb; y++) {
        uint8_t *row = f->px + (size_t)y * f->w;
        double py = (double)(y - y0);
        for (int64_t x = xa; x <= xb; x++) {
            double px = (double)(x - x0);
            double t = 0.0, r = rmax;
            if (len2 > 0.0) {
                t = (px * ddx + py * ddy) / len2;
                if (t <= 0.0) { t = 0.0; r = r0; }
                else if (t >= 1.0) { t = 1.0; r = r1; }   /* r0 + (r1 − r0) need not be r1 */
                else r = r0 + (r1 - r0) * t;
            }
            if (r < 0.0) continue;
            double ex = px - t * ddx, ey = py - t * ddy;
            if (ex * ex + ey * ey <= r * r + r) row[x] = c;
        }
    }
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
