/* art_backdrop.c — the fruit-merge world's static scene (issue 14 §3): the dusk sky with stars, a
 * moon and hills, the cottages, the ground, the wooden container with the game-over line, and the
 * empty score and NEXT panels, written under everything else each frame. See art.h for the
 * contract. */
#include "art_int.h"

/* ---- the backdrop ---------------------------------------------------------------------------- */

/* 4×4 Bayer thresholds 0..15: a band boundary dithers by pattern, not noise. */
static const uint8_t bayer4[4][4] = {
    { 0, 8, 2, 10 }, { 12, 4, 14, 6 }, { 3, 11, 1, 9 }, { 15, 7, 13, 5 }
};

static void hline(sim_frame *f, int x0, int x1, int y, uint8_t c)
{
    for (int x = x0; x <= x1; x++)
        sim__merge_px_put(f, x, y, c);
}
static void vline(sim_frame *f, int x, int y0, int y1, uint8_t c)
{
    for (int y = y0; y <= y1; y++)
        sim__merge_px_put(f, x, y, c);
}
static void box(sim_frame *f, int x0, int y0, int x1, int y1, uint8_t c)
{
    for (int y = y0; y <= y1; y++)
        hline(f, x0, x1, y, c);
}

/* A wooden frame (outer x0..x1 × y0..y1 inclusive, 4 px of wood inside a 1 px ink edge) around a
 * board of MERGE_C_PANEL. */
static void panel(sim_frame *f, int x0, int y0, int x1, int y1)
{
    box(f, x0 + 1, y0 + 1, x1 - 1, y1 - 1, MERGE_C_WOOD);
    hline(f, x0 + 1, x1 - 1, y0, MERGE_C_OUTLINE);
    hline(f, x0 + 1, x1 - 1, y1, MERGE_C_OUTLINE);
    vline(f, x0, y0 + 1, y1 - 1, MERGE_C_OUTLINE);
    vline(f, x1, y0 + 1, y1 - 1, MERGE_C_OUTLINE);
    hline(f, x0 + 2, x1 - 2, y0 + 1, MERGE_C_WOOD_LIGHT);
    vline(f, x0 + 1, y0 + 2, y1 - 2, MERGE_C_WOOD_LIGHT);
    hline(f, x0 + 2, x1 - 2, y1 - 1, MERGE_C_WOOD_DARK);
    vline(f, x1 - 1, y0 + 2, y1 - 2, MERGE_C_WOOD_DARK);
    box(f, x0 + 4, y0 + 4, x1 - 4, y1 - 4, MERGE_C_OUTLINE);
    box(f, x0 + 5, y0 + 5, x1 - 5, y1 - 5, MERGE_C_PANEL);
    /* nail heads in the corners */
    sim__merge_px_put(f, x0 + 2, y0 + 2, MERGE_C_WOOD_DARK);
    sim__merge_px_put(f, x1 - 2, y0 + 2, MERGE_C_WOOD_DARK);
    sim__merge_px_put(f, x0 + 2, y1 - 2, MERGE_C_WOOD_DARK);
    sim__merge_px_put(f, x1 - 2, y1 - 2, MERGE_C_WOOD_DARK);
}

void sim__merge_draw_backdrop(sim_frame *f, const merge_art *a, int x0, int x1, int y_top,
                              int y_floor, int y_line)
{
    (void)a;
    if (!f || !f->px)
        return;
    /* the sky: five bands, each boundary an 8-row ordered-dither ramp */
    static const uint8_t band[5] = { MERGE_C_SKY0, MERGE_C_SKY1, MERGE_C_SKY2, MERGE_C_SKY3,
                                     MERGE_C_SKY4 };
    static const int edge[4] = { 40, 80, 112, 136 };  /* row where band i+1 reaches 50% */
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            int b = 0;
            for (int i = 0; i < 4; i++) {
                int t = (y - edge[i] + 8) * 2;  /* 0..16 over rows edge−8..edge */
                if (t >= 16 || (t > 0 && bayer4[y & 3][x & 3] < t))
                    b = i + 1;
            }
            f->px[(size_t)y * f->w + x] = band[b];
        }
    /* stars: fixed spots in the top bands, a few of them with a cross of light */
    static const int16_t stars[][3] = {
        { 14, 9, 1 }, { 41, 22, 0 }, { 63, 6, 0 }, { 80, 30, 0 }, { 108, 12, 1 }, { 137, 4, 0 },
        { 161, 19, 0 }, { 199, 8, 0 }, { 214, 25, 1 }, { 247, 14, 0 }, { 268, 5, 0 },
        { 289, 27, 0 }, { 306, 11, 1 }, { 29, 38, 0 }, { 233, 36, 0 }, { 180, 33, 0 },
        { 122, 34, 0 }, { 6, 28, 0 },
    };
    for (size_t i = 0; i < sizeof stars / sizeof stars[0]; i++) {
        int sx = stars[i][0], sy = stars[i][1];
        sim__merge_px_put(f, sx, sy, stars[i][2] ? MERGE_C_WHITE : MERGE_C_GOLD);
        if (stars[i][2]) {
            sim__merge_px_put(f, sx - 1, sy, MERGE_C_GOLD);
            sim__merge_px_put(f, sx + 1, sy, MERGE_C_GOLD);
            sim__merge_px_put(f, sx, sy - 1, MERGE_C_GOLD);
            sim__merge_px_put(f, sx, sy + 1, MERGE_C_GOLD);
        }
    }
    /* a crescent moon: a disc less a disc nudged towards the upper right */
    for (int y = -8; y <= 8; y++)
        for (int x = -8; x <= 8; x++)
            if (x * x + y * y <= 56 && (x - 3) * (x - 3) + (y + 2) * (y + 2) > 40)
                sim__merge_px_put(f, 296 + x, 22 + y, MERGE_C_PINEAPPLE_HIGH);
    /* hills: two rolling silhouettes from a few sines (no randomness), far and near */
    int nearh[320];
    for (int x = 0; x < f->w; x++) {
        double fx = x;
        int far = sim_snap(134.0 + 5.0 * sim_sin(fx * 0.031 + 0.8) +
                           3.0 * sim_sin(fx * 0.083 + 2.1));
        int nh = sim_snap(153.0 + 5.0 * sim_sin(fx * 0.047 + 2.4) +
                          2.0 * sim_sin(fx * 0.121 + 0.3));
        if (x < 320)
            nearh[x] = nh;
        for (int y = far; y < f->h; y++)
            sim__merge_px_put(f, x, y, MERGE_C_PANEL);
        for (int y = nh; y < f->h; y++)
            sim__merge_px_put(f, x, y, MERGE_C_OUTLINE);
    }
    /* two cottages on the near hills, their windows lit */
    static const int16_t cottages[][2] = { { 34, 0 }, { 62, 1 }, { 262, 1 }, { 291, 0 } };
    for (size_t i = 0; i < sizeof cottages / sizeof cottages[0]; i++) {
        int hx = cottages[i][0], big = cottages[i][1] == 0;
        if (hx >= f->w)
            continue;
        int base = nearh[hx] + 1, w = big ? 9 : 7, hh = big ? 5 : 4;
        box(f, hx - w / 2, base - hh, hx + w / 2, base + 2, MERGE_C_OUTLINE);
        for (int r = 0; r <= w / 2 + 1; r++)  /* the roof */
            hline(f, hx - r, hx + r, base - hh - (w / 2 + 1) + r, MERGE_C_OUTLINE);
        sim__merge_px_put(f, hx - w / 2 + 2, base - hh + 2, MERGE_C_GOLD);
        sim__merge_px_put(f, hx - w / 2 + 2, base - hh + 3, MERGE_C_GOLD);
        if (big) {
            sim__merge_px_put(f, hx + 2, base - hh + 2, MERGE_C_GOLD);
            sim__merge_px_put(f, hx + 2, base - hh + 3, MERGE_C_GOLD);
            vline(f, hx + 2, base - hh - 4, base - hh - 2, MERGE_C_OUTLINE);  /* chimney */
            sim__merge_px_put(f, hx + 3, base - hh - 4, MERGE_C_OUTLINE);
        }
    }
    /* the container: the inside, a faint pattern of dots, walls and floor outside it */
    box(f, x0, y_top, x1 - 1, y_floor - 1, MERGE_C_INSIDE);
    for (int y = y_top + 3; y < y_floor; y += 8)
        for (int x = x0 + 3 + ((y - y_top) / 8 % 2) * 4; x < x1; x += 8)
            sim__merge_px_put(f, x, y, MERGE_C_INSIDE_SHADE);
    /* a glass-like gleam down the inside of the left wall */
    vline(f, x0, y_top, y_floor - 1, MERGE_C_INSIDE_SHADE);
    int W = MERGE_WALL, wt = y_top - 2;
    /* walls: ink outside, light wood facing the light, dark wood on the far side */
    for (int side = 0; side < 2; side++) {
        int wx0 = side ? x1 : x0 - W, wx1 = side ? x1 + W - 1 : x0 - 1;
        box(f, wx0, wt, wx1, y_floor + W - 1, MERGE_C_WOOD);
        vline(f, wx0, wt, y_floor + W - 1, MERGE_C_OUTLINE);
        vline(f, wx1, wt, y_floor + W - 1, MERGE_C_OUTLINE);
        hline(f, wx0, wx1, wt, MERGE_C_OUTLINE);
        vline(f, wx0 + 1, wt + 1, y_floor + W - 2, MERGE_C_WOOD_LIGHT);
        vline(f, wx1 - 1, wt + 1, y_floor + W - 2, MERGE_C_WOOD_DARK);
        /* grain: short dark dashes, staggered */
        for (int y = wt + 6 + side * 5; y < y_floor - 2; y += 11)
            vline(f, wx0 + 2, y, y + 2, MERGE_C_WOOD_DARK);
    }
    /* the floor plank, under the walls' feet */
    box(f, x0 - W, y_floor, x1 + W - 1, y_floor + W - 1, MERGE_C_WOOD);
    hline(f, x0 - W, x1 + W - 1, y_floor, MERGE_C_WOOD_LIGHT);
    hline(f, x0 - W, x1 + W - 1, y_floor + W - 1, MERGE_C_OUTLINE);
    for (int x = x0 + 7; x < x1 - 4; x += 13)
        hline(f, x, x + 3, y_floor + 2, MERGE_C_WOOD_DARK);
    vline(f, x0 - W, y_floor, y_floor + W - 1, MERGE_C_OUTLINE);
    vline(f, x1 + W - 1, y_floor, y_floor + W - 1, MERGE_C_OUTLINE);
    /* the ground: a strip of dark below the box */
    box(f, 0, y_floor + W, f->w - 1, f->h - 1, MERGE_C_OUTLINE);
    /* the game-over line: dashes of 4 on, 3 off */
    for (int x = x0; x < x1; x++)
        if ((x - x0) % 7 < 4)
            sim__merge_px_put(f, x, y_line, MERGE_C_LINE_RED);
    panel(f, MERGE_SCORE_X0, MERGE_SCORE_Y0, MERGE_SCORE_X1, MERGE_SCORE_Y1);
    panel(f, MERGE_NEXT_X0, MERGE_NEXT_Y0, MERGE_NEXT_X1, MERGE_NEXT_Y1);
}
