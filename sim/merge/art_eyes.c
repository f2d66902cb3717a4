/* art_eyes.c — the fruit-merge fruit's eyes (issue 14 §3, seed 003): drawn at render time,
 * upright on top of a fruit of any tier, never part of its sprite; looking left or right (exact
 * mirror images) and blinking (squashed to a line). See art.h for the contract. */
#include "art_int.h"

/* ---- eyes ------------------------------------------------------------------------------------ */
/* Per tier: the white's width and height, the pupil's, the gap between the two whites, and the
 * row of the whites' top relative to the centre. Whites of 4 px and up are rounded and ringed in
 * ink; pupils of 2×3 and up carry a one-pixel glint (2×2 from 5×7 up). */
typedef struct eye_geom { int8_t ew, eh, pw, ph, gap, top; } eye_geom;
static const eye_geom eye_table[MERGE_TIERS] = {
    { 2, 3, 1, 2, 1, -2 },   /* cherry r5 */
    { 2, 3, 1, 2, 2, -2 },   /* strawberry r6 */
    { 3, 4, 2, 2, 2, -3 },   /* grape r8 */
    { 3, 4, 2, 3, 3, -3 },   /* dekopon r10 */
    { 4, 5, 2, 3, 3, -3 },   /* persimmon r12 */
    { 4, 6, 2, 4, 4, -4 },   /* apple r14 */
    { 5, 7, 3, 4, 4, -4 },   /* pear r17 */
    { 6, 8, 3, 5, 5, -5 },   /* peach r20 */
    { 7, 9, 4, 5, 6, -6 },   /* pineapple r24 */
    { 8, 10, 4, 6, 7, -7 },  /* melon r28 */
    { 9, 12, 5, 7, 8, -9 },  /* watermelon r33 */
};

/* The white's shape: a rectangle for small eyes, corners cut from 4 px, an ellipse from 6 px. */
static int eye_white_at(const eye_geom *g, int i, int j)
{
    if (i < 0 || j < 0 || i >= g->ew || j >= g->eh)
        return 0;
    if (g->ew < 4)
        return 1;
    if (g->ew < 6)
        return !((i == 0 || i == g->ew - 1) && (j == 0 || j == g->eh - 1));
    double u = (i + 0.5 - g->ew / 2.0) / (g->ew / 2.0), v = (j + 0.5 - g->eh / 2.0) / (g->eh / 2.0);
    return u * u + v * v <= 1.12;
}
static int eye_pupil_at(const eye_geom *g, int i, int j, int px0, int py0)
{
    int pi = i - px0, pj = j - py0;
    if (pi < 0 || pj < 0 || pi >= g->pw || pj >= g->ph || !eye_white_at(g, i, j))
        return 0;
    /* round the pupil's corners from 4 px wide */
    return !(g->pw >= 4 && (pi == 0 || pi == g->pw - 1) && (pj == 0 || pj == g->ph - 1));
}

/* One eye with its white's top-left at (x, y), drawn for look +1; `mirror` maps every column
 * through cx (x → 2cx − x) for look −1, so the two looks are exact mirror images. */
static void draw_one_eye(sim_frame *f, const eye_geom *g, int cx, int x, int y, int mirror,
                         int blink)
{
    int ring = g->ew >= 4;
#define EYE_PUT(xx, yy, c) sim__merge_px_put(f, mirror ? 2 * cx - (xx) : (xx), (yy), (c))
    if (blink) {
        /* the seed squashes the eyes to a tenth of their height: a line, at least 1 px */
        int h = (g->eh + 5) / 10 > 0 ? (g->eh + 5) / 10 : 1;
        int yy = y + (g->eh - h + 1) / 2;
        for (int j = 0; j < h; j++)
            for (int i = -ring; i < g->ew + ring; i++)
                EYE_PUT(x + i, yy + j, MERGE_C_OUTLINE);
        return;
    }
    /* the pupil on the look side, low in the white (touching its inner edge on small eyes) */
    int px0 = g->ew - g->pw - (g->ew >= 6 ? 1 : 0);
    int py0 = g->eh - g->ph - (ring ? 1 : 0);
    if (py0 < 0)
        py0 = 0;
    for (int j = -1; j <= g->eh; j++)
        for (int i = -1; i <= g->ew; i++) {
            if (eye_white_at(g, i, j)) {
                int pupil = eye_pupil_at(g, i, j, px0, py0);
                int pi = i - px0, pj = j - py0, glint;
                if (g->pw >= 5)       /* a 2×2 glint one pixel in from the rounded corner */
                    glint = pi >= 1 && pi <= 2 && pj >= 1 && pj <= 2;
                else if (g->pw >= 4)  /* one pixel, one in */
                    glint = pi == 1 && pj == 1;
                else                  /* the pupil's own top-left pixel */
                    glint = g->pw >= 2 && g->ph >= 3 && pi == 0 && pj == 0;
                EYE_PUT(x + i, y + j, pupil && !glint ? MERGE_C_PUPIL : MERGE_C_WHITE);
            } else if (ring && (eye_white_at(g, i - 1, j) || eye_white_at(g, i + 1, j) ||
                                eye_white_at(g, i, j - 1) || eye_white_at(g, i, j + 1))) {
                EYE_PUT(x + i, y + j, MERGE_C_OUTLINE);
            }
        }
#undef EYE_PUT
}

void sim__merge_draw_eyes(sim_frame *f, const merge_art *a, int tier, int cx, int cy, int look,
                          int blink)
{
    (void)a;
    if (!f || !f->px || tier < 0 || tier >= MERGE_TIERS)
        return;
    const eye_geom *g = &eye_table[tier];
    int mirror = look < 0;
    /* for look +1 the pair sits one pixel towards the look (ringed eyes) */
    int shift = g->ew >= 4 ? 1 : 0;
    int lx = cx - (g->gap + 1) / 2 - g->ew + shift;
    int rx = lx + g->ew + g->gap;
    int y = cy + g->top;
    draw_one_eye(f, g, cx, lx, y, mirror, blink);
    draw_one_eye(f, g, cx, rx, y, mirror, blink);
}
