/* outline.c — a shape with a 1-px outer outline (outline.h). */
#include <string.h>
#include "outline.h"

/* Bytes of sim_draw_outlined_box's stack mask: a 126 × 126 box with its margins, more than the
 * demo worlds' creatures span (in a 60 s garden recording no serpent or vine took the five
 * passes).
 * Larger boxes take the five passes. */
#define OUTLINE_MASK 16384
#define WORD 8                     /* mask bytes handled at once */

void sim_draw_outlined(sim_frame *f, sim_shape_fn fn, const void *ud, uint8_t fill, int outline)
{
    if (outline >= 0 && outline <= 255) {
        /* the shape dilated by the plus-shaped neighbourhood, then the shape over it */
        static const int off[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
        for (int i = 0; i < 4; i++) fn(ud, f, off[i][0], off[i][1], (uint8_t)outline);
    }
    fn(ud, f, 0, 0, fill);
}

static uint64_t ld(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The five passes leave, at a frame pixel p, the fill where p is in the shape S, the outline
 * where a 4-neighbour of p is in S and p is not, and p as it was elsewhere: the shape painted
 * once into a 0/1 mask gives the same pixels. The mask covers the frame pixels that can change
 * (the box grown by one, clipped to the frame) plus a one-pixel margin, so every neighbour
 * looked at is a true sample of S: fn paints the same pixels shifted for any offset and clipped
 * to any frame (outline.h), and pixels of S outside the mask are never looked at. Mask bytes
 * are 0 or 1, so a word of them times 0xFF is a byte mask, lane by lane with no carry. */
void sim_draw_outlined_box(sim_frame *f, sim_shape_fn fn, const void *ud, uint8_t fill,
                           int outline, int x0, int y0, int x1, int y1)
{
    if (outline < 0 || outline > 255 || !f || !f->px || f->w == 0 || f->h == 0) {
        sim_draw_outlined(f, fn, ud, fill, outline);
        return;
    }
    if (x0 > x1 || y0 > y1) return;               /* an empty shape paints nothing */
    int64_t ox0 = max64((int64_t)x0 - 1, 0), ox1 = min64((int64_t)x1 + 1, (int64_t)f->w - 1);
    int64_t oy0 = max64((int64_t)y0 - 1, 0), oy1 = min64((int64_t)y1 + 1, (int64_t)f->h - 1);
    if (ox0 > ox1 || oy0 > oy1) return;           /* nothing of it on the frame */
    int64_t mw = ox1 - ox0 + 3, mh = oy1 - oy0 + 3;
    if (mw * mh > OUTLINE_MASK) {
        sim_draw_outlined(f, fn, ud, fill, outline);
        return;
    }
    uint8_t m[OUTLINE_MASK];
    memset(m, 0, (size_t)(mw * mh));
    sim_frame mf;
    mf.w = (uint16_t)mw;
    mf.h = (uint16_t)mh;
    mf.px = m;
    /* frame pixel (x, y) is mask pixel (x − ox0 + 1, y − oy0 + 1) */
    fn(ud, &mf, (int)(1 - ox0), (int)(1 - oy0), 1);
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t fill8 = ones * fill, out8 = ones * (uint8_t)outline;
    int64_t cols = ox1 - ox0 + 1;
    for (int64_t y = oy0; y <= oy1; y++) {
        const uint8_t *mid = m + (y - oy0 + 1) * mw + 1, *up = mid - mw, *dn = mid + mw;
        uint8_t *dst = f->px + (size_t)y * f->w + (size_t)ox0;
        int64_t c = 0;
        for (; c + WORD <= cols; c += WORD) {    /* reads stay in the row and its margins */
            uint64_t s = ld(mid + c);
            uint64_t d = s | ld(mid + c - 1) | ld(mid + c + 1) | ld(up + c) | ld(dn + c);
            if (!d) continue;
            uint64_t sm = s * 0xFF, dm = d * 0xFF, v = ld(dst + c);
            v = (v & ~dm) | (out8 & dm & ~sm) | (fill8 & sm);
            memcpy(dst + c, &v, sizeof v);
        }
        for (; c < cols; c++) {
            if (mid[c])
                dst[c] = fill;
            else if (mid[c - 1] | mid[c + 1] | up[c] | dn[c])
                dst[c] = (uint8_t)outline;
        }
    }
}
