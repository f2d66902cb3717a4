/* art.c — the fruit-merge world's art (issue 14 §3, seed 003), drawn in code at create time.
 *
 * A fruit is painted upright in parts on a (2r+1)² canvas: the body (its silhouette and
 * three-tone light from the upper left), then its texture (seeds, pits, net, stripes, crosshatch,
 * cleft), then its attachments (stem, leaves, calyx, crown), each a part with an id. The canvas
 * is clipped to the circle of radius r (half a pixel inside the physics circle) and outlined:
 * every pixel with a 4-neighbour outside the fruit is ink, and so is the edge of an attachment
 * where it lies over the body, so every silhouette is one clean pixel of MERGE_C_OUTLINE. Its 16
 * turned images (64 for the carried tiers) are RotSprite bakes of that sprite (issue 14 §3: "drawn
 * from the 16 pre-baked rotations of §2"), each given a small tidy pass (sim__merge_fruit_tidy);
 * the drawings are made for the bake, which keeps only marks that are two pixels or more (the
 * canvas section says how). The carrier's parts and the font are drawn from character maps, one
 * character a pixel. Everything is integer or + − × ÷ sqrt in doubles; the angles come from
 * sim_cos/sim_sin. See art.h for the contract. */
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"
#include "anim/rotsprite.h"
#include "art.h"

_Static_assert(MERGE_C_COUNT <= 64, "the merge palette is at most 64 named colours");
_Static_assert(MERGE_C_WATERMELON_HIGH == MERGE_C_HIGH(MERGE_TIERS - 1), "three colours a tier");

const uint8_t sim__merge_radius[MERGE_TIERS] = { 5, 6, 8, 10, 12, 14, 17, 20, 24, 28, 33 };
const char *const sim__merge_tier_name[MERGE_TIERS] = {
    "cherry", "strawberry", "grape", "dekopon", "persimmon", "apple",
    "pear", "peach", "pineapple", "melon", "watermelon"
};

/* ---- the palette ----------------------------------------------------------------------------- */
#define RGB(v) { (uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v) }
static const uint8_t palette_rgb[MERGE_C_COUNT][3] = {
    [MERGE_C_CLEAR] = RGB(0x2b2350),
    [MERGE_C_OUTLINE] = RGB(0x2a1b2d),
    [MERGE_C_WHITE] = RGB(0xfff8ec),
    [MERGE_C_GOLD] = RGB(0xffd75e),
    [MERGE_C_LINE_RED] = RGB(0xff4d5a),
    [MERGE_C_CHERRY] = RGB(0xc8183c), [MERGE_C_CHERRY_SHADE] = RGB(0x7e1036),
    [MERGE_C_CHERRY_HIGH] = RGB(0xff7a86),
    [MERGE_C_STRAWBERRY] = RGB(0xff4a3d), [MERGE_C_STRAWBERRY_SHADE] = RGB(0xc02a37),
    [MERGE_C_STRAWBERRY_HIGH] = RGB(0xffa48c),
    [MERGE_C_GRAPE] = RGB(0x8d4fd1), [MERGE_C_GRAPE_SHADE] = RGB(0x5a2f9e),
    [MERGE_C_GRAPE_HIGH] = RGB(0xcaa2f5),
    [MERGE_C_DEKOPON] = RGB(0xffa41f), [MERGE_C_DEKOPON_SHADE] = RGB(0xdd6a10),
    [MERGE_C_DEKOPON_HIGH] = RGB(0xffd98a),
    [MERGE_C_PERSIMMON] = RGB(0xea5a26), [MERGE_C_PERSIMMON_SHADE] = RGB(0xa93418),
    [MERGE_C_PERSIMMON_HIGH] = RGB(0xffa070),
    [MERGE_C_APPLE] = RGB(0xe0303a), [MERGE_C_APPLE_SHADE] = RGB(0x9c1c3e),
    [MERGE_C_APPLE_HIGH] = RGB(0xff8a80),
    [MERGE_C_PEAR] = RGB(0xd8dc5a), [MERGE_C_PEAR_SHADE] = RGB(0x9ca83a),
    [MERGE_C_PEAR_HIGH] = RGB(0xf6f5a8),
    [MERGE_C_PEACH] = RGB(0xffb3b5), [MERGE_C_PEACH_SHADE] = RGB(0xe87a8c),
    [MERGE_C_PEACH_HIGH] = RGB(0xfff0e4),
    [MERGE_C_PINEAPPLE] = RGB(0xf9c83c), [MERGE_C_PINEAPPLE_SHADE] = RGB(0xcc8a22),
    [MERGE_C_PINEAPPLE_HIGH] = RGB(0xfff296),
    [MERGE_C_MELON] = RGB(0x9fd468), [MERGE_C_MELON_SHADE] = RGB(0x5b9e44),
    [MERGE_C_MELON_HIGH] = RGB(0xdcf3a4),
    [MERGE_C_WATERMELON] = RGB(0x58b84e), [MERGE_C_WATERMELON_SHADE] = RGB(0x36853e),
    [MERGE_C_WATERMELON_HIGH] = RGB(0xa6e67e),
    [MERGE_C_LEAF] = RGB(0x5dbb46),
    [MERGE_C_LEAF_DARK] = RGB(0x1f5434),
    [MERGE_C_STEM] = RGB(0x7b4a2c),
    [MERGE_C_NET] = RGB(0xf2f0c4),
    [MERGE_C_SKIN] = RGB(0xffd9b3),
    [MERGE_C_SKIN_SHADE] = RGB(0xeda989),
    [MERGE_C_BLUSH] = RGB(0xff8f9a),
    [MERGE_C_HAT] = RGB(0xf2c75c),
    [MERGE_C_HAT_SHADE] = RGB(0xc69338),
    [MERGE_C_HAT_BAND] = RGB(0xd9434f),
    [MERGE_C_HAND] = RGB(0xfbf7f2),
    [MERGE_C_HAND_SHADE] = RGB(0xc9bfd6),
    [MERGE_C_SHIRT] = RGB(0x4f86d6),
    [MERGE_C_SHIRT_SHADE] = RGB(0x30559e),
    [MERGE_C_WOOD] = RGB(0xb8784a),
    [MERGE_C_WOOD_DARK] = RGB(0x7a4630),
    [MERGE_C_WOOD_LIGHT] = RGB(0xe3a86e),
    [MERGE_C_INSIDE] = RGB(0xf4e6cb),
    [MERGE_C_INSIDE_SHADE] = RGB(0xe6d2b0),
    [MERGE_C_PANEL] = RGB(0x3b2f55),
    [MERGE_C_SKY0] = RGB(0x2b2350),
    [MERGE_C_SKY1] = RGB(0x45306a),
    [MERGE_C_SKY2] = RGB(0x6e3f7c),
    [MERGE_C_SKY3] = RGB(0xa8557d),
    [MERGE_C_SKY4] = RGB(0xe07d72),
};

int sim__merge_is_outline(uint8_t c)
{
    return c == MERGE_C_OUTLINE;
}

/* ---- the fruit canvas ------------------------------------------------------------------------ */
/* A fruit is painted upright, in parts with ids, on a (2r+1)² canvas addressed by pixel offsets
 * from its centre pixel (y down). Its turned images are RotSprite bakes of that one picture (see
 * bake_fruit_set), and the 8× mode reduction keeps a mark only if it is big enough to own a block
 * at every angle, so the drawings keep to a few rules: a mark on the skin is two pixels or more
 * (a lone pixel shows at about half the angles and would blink as the fruit rolls), a line is
 * two pixels thick, a stem or leaf is two pixels or more across, and nothing stands proud of the
 * round silhouette by a single pixel (the ring outside the body is one pixel wide on the small
 * fruit, so their stems sit inside the outline). */
enum { P_NONE, P_BODY, P_STEM, P_LEAF, P_LEAF2, P_TOP, P_PARTS };

typedef struct fcv {
    int r, n, tier;
    uint8_t *col;            /* n·n colours */
    uint8_t *pid;            /* n·n part ids (P_…) */
    uint8_t sep[P_PARTS];    /* 1: the part gets ink where it lies over a lower part */
} fcv;

static double sq(double v)
{
    return v * v;
}
static double dabs(double v)
{
    return v < 0 ? -v : v;
}

static int fin(const fcv *c, int dx, int dy)
{
    return dx >= -c->r && dx <= c->r && dy >= -c->r && dy <= c->r;
}
static int fat(const fcv *c, int dx, int dy)
{
    return (dy + c->r) * c->n + dx + c->r;
}
static void fput(fcv *c, int dx, int dy, int part, uint8_t colour)
{
    if (!fin(c, dx, dy))
        return;
    c->pid[fat(c, dx, dy)] = (uint8_t)part;
    c->col[fat(c, dx, dy)] = colour;
}
static uint8_t fcol(const fcv *c, int dx, int dy)
{
    return fin(c, dx, dy) ? c->col[fat(c, dx, dy)] : MERGE_C_CLEAR;
}
static int fpid(const fcv *c, int dx, int dy)
{
    return fin(c, dx, dy) ? c->pid[fat(c, dx, dy)] : P_NONE;
}
static int fshaded(const fcv *c, int dx, int dy)
{
    return fcol(c, dx, dy) == MERGE_C_SHADE(c->tier);
}
/* Recolour a body pixel (texture; never grows the silhouette): `lit` where the body is lit,
 * `dark` where it is in shade. */
static void ftint(fcv *c, int dx, int dy, uint8_t lit, uint8_t dark)
{
    if (fpid(c, dx, dy) == P_BODY)
        c->col[fat(c, dx, dy)] = fshaded(c, dx, dy) ? dark : lit;
}
/* A two-pixel mark on the body: (x, y) and (x + ex, y + ey), both `lit`, or both `dark` when the
 * first is in shade (one colour, so the pair never bakes to a mixel). Two pixels always leave one
 * to three at any angle; one pixel would vanish at about half of them. */
static void fmark(fcv *c, int x, int y, int ex, int ey, uint8_t lit, uint8_t dark)
{
    if (fpid(c, x, y) != P_BODY || fpid(c, x + ex, y + ey) != P_BODY)
        return;
    uint8_t v = fshaded(c, x, y) ? dark : lit;
    c->col[fat(c, x, y)] = v;
    c->col[fat(c, x + ex, y + ey)] = v;
}
/* Recolour the body pixels of the w × h box at (x0, y0) (a stem seen end-on). */
static void fpatch(fcv *c, int x0, int y0, int w, int h, uint8_t colour)
{
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++)
            if (fpid(c, x, y) == P_BODY)
                c->col[fat(c, x, y)] = colour;
}

/* A line two pixels thick between two points: stepped along its major axis, each step two
 * pixels across the minor axis, so the thickness is the same at any slope (a one-pixel line on a
 * flat colour breaks up in the bake). part ≥ 0 plots pixels of that part; part < 0 tints body
 * pixels (lit, dark). */
static void fline2(fcv *c, double ax, double ay, double bx, double by, int part, uint8_t lit,
                   uint8_t dark)
{
    int steep = dabs(by - ay) > dabs(bx - ax);
    double u0 = steep ? ay : ax, u1 = steep ? by : bx, v0 = steep ? ax : ay, v1 = steep ? bx : by;
    int i0 = sim_snap(u0 < u1 ? u0 : u1), i1 = sim_snap(u0 < u1 ? u1 : u0);
    for (int i = i0; i <= i1; i++) {
        double t = u1 != u0 ? (i - u0) / (u1 - u0) : 0.0;
        t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
        /* the two pixels whose centres straddle the line: floor and floor + 1 of v − 0.5 */
        int j = (int)sim_floor(v0 + (v1 - v0) * t - 0.5);
        for (int w = 0; w < 2; w++) {
            int x = steep ? j + w : i, y = steep ? i : j + w;
            if (part >= 0)
                fput(c, x, y, part, lit);
            else
                ftint(c, x, y, lit, dark);
        }
    }
}

/* The three-tone light of a round body of radius R centred at (bx, by), for the pixel (dx, dy):
 * 0 shade, 1 body, 2 highlight. Light from the upper left: the shade is what lies outside 1.07 R
 * about a point 0.28 R up-left of the centre (a crescent on the lower right, widest at the bottom
 * right), the highlight a short arc of half-width hw px at 0.64 R towards the upper left. */
static int sphere_light(double dx, double dy, double bx, double by, double R, double hw)
{
    double u = (dx - bx) / R, v = (dy - by) / R;
    if (sq(u + 0.28) + sq(v + 0.28) > sq(1.07))
        return 0;
    double rho = sim_sqrt(u * u + v * v);
    if (rho > 0.0) {
        double along = (-u - v) * 0.70710678 / rho;  /* cos of the angle from the upper left */
        double off = rho * R - 0.64 * R;             /* pixels from the arc's centre line */
        if (along > 0.87 && off > -hw && off <= hw)
            return 2;
    }
    return 1;
}

static uint8_t tone(int tier, int level)
{
    return (uint8_t)(level == 0 ? MERGE_C_SHADE(tier) : level == 1 ? MERGE_C_BODY(tier)
                                                                    : MERGE_C_HIGH(tier));
}

typedef int (*shape_fn)(double x, double y, const void *arg);

typedef struct ell { double bx, by, rx, ry; } ell;  /* an ellipse: centre, radii */
static int in_ell(double x, double y, const ell *e)
{
    return sq((x - e->bx) / e->rx) + sq((y - e->by) / e->ry) <= 1.0;
}
static int shape_ellipse(double x, double y, const void *p)
{
    return in_ell(x, y, p);
}

/* Fill the body: every pixel whose centre is inside the shape, lit as a sphere of radius R about
 * (bx, by). */
static void fbody(fcv *c, shape_fn inside, const void *arg, double bx, double by, double R,
                  double hw)
{
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++)
            if (inside(dx, dy, arg))
                fput(c, dx, dy, P_BODY, tone(c->tier, sphere_light(dx, dy, bx, by, R, hw)));
}

/* A leaf from its base (x0, y0) to its tip (x1, y1), half-width w at the middle, pointed at both
 * ends; the half that faces the lower right (away from the light) in LEAF_DARK. */
static void fleaf(fcv *c, int part, double x0, double y0, double x1, double y1, double w)
{
    double ax = x1 - x0, ay = y1 - y0, len2 = ax * ax + ay * ay;
    if (len2 <= 0.0)
        return;
    double len = sim_sqrt(len2);
    int right_dark = ay / len - ax / len > 0.0;  /* the right-hand normal points lower right */
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            double px = dx - x0, py = dy - y0;
            double t = (px * ax + py * ay) / len2;
            if (t < 0.0 || t > 1.0)
                continue;
            double perp = (px * ay - py * ax) / len;  /* > 0: right of base→tip */
            double hwid = w * 2.0 * sim_sqrt(t * (1.0 - t));
            if (dabs(perp) > hwid)
                continue;
            int dark = (perp > 0.0) == right_dark && dabs(perp) > 0.5;
            fput(c, dx, dy, part, dark ? MERGE_C_LEAF_DARK : MERGE_C_LEAF);
        }
}

/* A stem: the pixels within `half` of segment a–b in `colour` (brown, or ink for a thin one; the
 * edges of a brown one become ink in the outline pass). */
static void fstem(fcv *c, double x0, double y0, double x1, double y1, double half, uint8_t colour)
{
    double ax = x1 - x0, ay = y1 - y0, len2 = ax * ax + ay * ay;
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            double px = dx - x0, py = dy - y0;
            double t = len2 > 0.0 ? (px * ax + py * ay) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
            if (sq(px - t * ax) + sq(py - t * ay) <= half * half)
                fput(c, dx, dy, P_STEM, colour);
        }
}

/* Repaint each body pixel that no 8-neighbour shares its colour with in the colour most of its
 * body 4-neighbours have (ties: the lowest index): the light's bands and the textures leave such
 * specks where they cross, and a lone pixel bakes to a blink. Marks of two pixels are untouched.
 * tmp is scratch of n·n bytes. */
static void fdespeckle(fcv *c, uint8_t *tmp)
{
    memcpy(tmp, c->col, (size_t)c->n * c->n);
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            uint8_t v = tmp[fat(c, dx, dy)];
            if (fpid(c, dx, dy) != P_BODY || v == MERGE_C_OUTLINE)
                continue;
            int same = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    if ((i || j) && fin(c, dx + i, dy + j) && fpid(c, dx + i, dy + j) != P_NONE &&
                        tmp[fat(c, dx + i, dy + j)] == v)
                        same++;
            if (same)
                continue;
            static const int nb[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
            uint8_t cand[4];
            int nc = 0;
            for (int i = 0; i < 4; i++)
                if (fpid(c, dx + nb[i][0], dy + nb[i][1]) == P_BODY &&
                    tmp[fat(c, dx + nb[i][0], dy + nb[i][1])] != MERGE_C_OUTLINE)
                    cand[nc++] = tmp[fat(c, dx + nb[i][0], dy + nb[i][1])];
            int best = -1, bestn = 0;
            for (int i = 0; i < nc; i++) {
                int k = 0;
                for (int j = 0; j < nc; j++)
                    k += cand[j] == cand[i];
                if (k > bestn || (k == bestn && cand[i] < best)) {
                    best = cand[i];
                    bestn = k;
                }
            }
            if (best >= 0)
                c->col[fat(c, dx, dy)] = (uint8_t)best;
        }
}

/* Clip to the circle of radius r (half a pixel inside the physics circle, so the bake, which
 * can move an edge pixel outwards by a fraction of a pixel, never leaves it) and ink the
 * silhouette and the edges of attachments over the body. ink is scratch of n·n bytes. */
static void ffinish(fcv *c, uint8_t *ink)
{
    double lim = (double)c->r * c->r;
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++)
            if (dx * dx + dy * dy > lim)
                c->pid[fat(c, dx, dy)] = P_NONE;
    static const int nb[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
    memset(ink, 0, (size_t)c->n * c->n);
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            int p = fpid(c, dx, dy);
            if (p == P_NONE)
                continue;
            for (int i = 0; i < 4; i++) {
                int q = fpid(c, dx + nb[i][0], dy + nb[i][1]);
                if (q == P_NONE || (q < p && c->sep[p]))
                    ink[fat(c, dx, dy)] = 1;
            }
        }
    for (int i = 0; i < c->n * c->n; i++) {
        if (c->pid[i] == P_NONE)
            c->col[i] = MERGE_C_CLEAR;
        else if (ink[i])
            c->col[i] = MERGE_C_OUTLINE;
    }
}

/* A small hand-drawn feature: rows of characters ('.' none, 'l' leaf, 'L' leaf dark, 'o' ink,
 * 't' stem) with its top-left pixel at (x0, y0). */
static void fbitmap(fcv *c, int part, const char *const *rows, int h, int x0, int y0)
{
    int w = (int)strlen(rows[0]);
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            char ch = rows[j][i];
            uint8_t v = ch == 'l' ? MERGE_C_LEAF : ch == 'L' ? MERGE_C_LEAF_DARK
                      : ch == 'o' ? MERGE_C_OUTLINE : ch == 't' ? MERGE_C_STEM : MERGE_C_CLEAR;
            if (v != MERGE_C_CLEAR)
                fput(c, x0 + i, y0 + j, part, v);
        }
}

/* ---- the eleven fruit ------------------------------------------------------------------------ */

static void fruit_cherry(fcv *c)
{
    /* round fruit are centred on the sprite's middle pixel (the bake's pivot), so the bake turns
     * their silhouette into itself within a pixel and a rolling fruit does not wobble */
    ell e = { 0, 0, 4.5, 4.5 };
    fbody(c, shape_ellipse, &e, 0, 0, 4.5, 0.5);
    /* the stem seen end-on: a 2×2 brown socket just inside the top of the outline (standing
     * proud it would be one pixel of the ring, which the bake keeps at some angles only) */
    fpatch(c, 0, -3, 2, 2, MERGE_C_STEM);
}

/* A strawberry: round shoulders at the top, tapering in straight sides to a soft point. */
static int shape_strawberry(double x, double y, const void *p)
{
    (void)p;
    double w;
    if (y < -5.5)
        return 0;  /* no lone pixel on the crown */
    if (y <= -1.0) {
        double t = (y + 1.0) / 5.0, q = 1.0 - t * t;
        w = 5.9 * sim_sqrt(q);
    } else {
        w = 5.9 - (y + 1.0) * 0.6;
    }
    return dabs(x) <= w && y <= 6.5;
}

static void fruit_strawberry(fcv *c)
{
    fbody(c, shape_strawberry, NULL, 0, -0.3, 5.4, 0.5);
    /* seeds: pairs of pixels on a diagonal, leaning in from either side, apart enough that no
     * two merge at any angle */
    static const int8_t seeds[][3] = { { -3, -1, 1 }, { 2, -1, -1 }, { -2, 2, 1 }, { 2, 2, -1 } };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        fmark(c, seeds[i][0], seeds[i][1], seeds[i][2], 1, MERGE_C_GOLD, MERGE_C_DEKOPON);
    static const char *const calyx[] = {
        ".lllllll.",
        "llLLlLLll",
        "lL.lLl.Ll",
    };
    c->sep[P_LEAF] = 0;  /* green on red reads without a line; at 13 px a line would eat it */
    fbitmap(c, P_LEAF, calyx, 3, -4, -4);
}

static void fruit_grape(fcv *c)
{
    ell e = { 0, 0, 7.5, 7.5 };
    fbody(c, shape_ellipse, &e, 0, 0, 7.5, 1.0);
    fpatch(c, 0, -6, 2, 2, MERGE_C_STEM);  /* the stem end-on, as the cherry's */
}

typedef struct two_ell { ell a, b; } two_ell;
static int shape_union(double x, double y, const void *p)
{
    const two_ell *t = p;
    return in_ell(x, y, &t->a) || in_ell(x, y, &t->b);
}
static int shape_minus(double x, double y, const void *p)
{
    const two_ell *t = p;
    return in_ell(x, y, &t->a) && !in_ell(x, y, &t->b);
}

static void fruit_dekopon(fcv *c)
{
    two_ell s = { { 0, 1.2, 9.3, 9.0 }, { 0, -7.0, 3.4, 3.2 } };  /* the body and its nub */
    fbody(c, shape_union, &s, 0, 1.2, 9.3, 1.0);
    /* the peel's pits: a sparse staggered grid of two-pixel dimples, leaning either way */
    for (int row = 0; row < 4; row++)
        for (int col = -2; col <= 2; col++) {
            int x = col * 4 + (row % 2) * 2 - 1, y = -4 + row * 4, lean = (row + col) & 1;
            if (sq(x + 0.5) + sq(y + 0.5 - 1.2) < sq(7.0))
                fmark(c, x + lean, y, lean ? -1 : 1, 1, MERGE_C_SHADE(c->tier),
                      MERGE_C_SHADE(c->tier));
        }
    fpatch(c, -1, -8, 2, 2, MERGE_C_STEM);
    c->sep[P_LEAF] = 0;  /* green on orange reads without a line; at 21 px a line would eat it */
    fleaf(c, P_LEAF, 2.0, -7.0, 8.5, -4.5, 2.0);  /* lying on the shoulder, beside the nub */
}

static void fruit_persimmon(fcv *c)
{
    ell e = { 0, 1.2, 11.7, 10.6 };
    fbody(c, shape_ellipse, &e, 0, 1.2, 11.5, 1.0);
    /* the calyx lies on the top of the body, inside its outline, so it turns with it whole: the
     * four sepals (left, right, and the front one foreshortened), green on orange without a line
     * between, and a stub standing up */
    fleaf(c, P_LEAF, 0, -7.5, -7.0, -6.0, 1.9);
    fleaf(c, P_LEAF, 1, -7.5, 8.0, -6.0, 1.9);
    fleaf(c, P_LEAF2, 0.5, -8.0, 0.5, -3.5, 1.7);
    fstem(c, 0.5, -7.0, 0.5, -11.0, 1.0, MERGE_C_STEM);
}

static void fruit_apple(fcv *c)
{
    ell e = { 0, 0.8, 13.6, 13.2 };  /* no dimple: at 29 px it would be a one-pixel notch */
    fbody(c, shape_ellipse, &e, 0, 0.8, 13.5, 1.0);
    c->sep[P_LEAF] = 1;
    fstem(c, 0, -10.5, 1.6, -14.2, 1.3, MERGE_C_STEM);
    fleaf(c, P_LEAF, 2.0, -12.0, 10.0, -9.8, 3.0);
}

/* Two circles blended by a smooth minimum of their signed distances (k pixels of fillet). */
static int shape_pear(double x, double y, const void *p)
{
    const two_ell *t = p;
    double d1 = sim_sqrt(sq(x - t->a.bx) + sq(y - t->a.by)) - t->a.rx;
    double d2 = sim_sqrt(sq(x - t->b.bx) + sq(y - t->b.by)) - t->b.rx;
    double k = 7.0, h = 0.5 + 0.5 * (d2 - d1) / k;
    h = h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h;
    return d2 + (d1 - d2) * h - k * h * (1.0 - h) <= 0.0;
}

static void fruit_pear(fcv *c)
{
    two_ell s = { { 0, 3.0, 14.5, 14.5 }, { 0, -8.0, 7.6, 7.6 } };
    fbody(c, shape_pear, &s, 0, 2.0, 15.5, 1.0);
    static const int8_t dots[][2] = { { -6, 5 }, { 3, 9 }, { 8, 2 }, { -2, 12 }, { -10, 9 },
                                      { 9, 9 }, { 3, -3 }, { -4, -7 }, { -9, 1 }, { 5, -9 } };
    for (size_t i = 0; i < sizeof dots / sizeof dots[0]; i++)
        fmark(c, dots[i][0], dots[i][1], 1, 1, MERGE_C_SHADE(c->tier), MERGE_C_STEM);
    c->sep[P_LEAF] = 1;
    fstem(c, 0.5, -14, 2.0, -17, 1.0, MERGE_C_OUTLINE);  /* two pixels: ink */
    fleaf(c, P_LEAF, 1.0, -14.0, 9.5, -10.5, 2.8);
}

static void fruit_peach(fcv *c)
{
    two_ell s = { { 0, 0.7, 19.8, 19.4 }, { 1.5, -20.6, 3.0, 2.4 } };  /* body minus a notch */
    fbody(c, shape_minus, &s, 0, 0.7, 19.5, 1.2);
    /* the cleft: a curve two pixels thick from the notch bowing down the left, in shade */
    double R = 19.5, px = 1.5, py = -18.0;
    for (int y = -17; y <= 6; y++) {
        double yy = y - 0.7, x = 1.5 - 0.45 * (sim_sqrt(R * R - yy * yy) - 4.4);
        uint8_t sh = MERGE_C_SHADE(c->tier);
        fline2(c, px, py, x, y, -1, sh, sh);
        px = x;
        py = y;
    }
    c->sep[P_LEAF] = 1;
    c->sep[P_LEAF2] = 1;
    fstem(c, 1.5, -17, 1.5, -19.0, 1.6, MERGE_C_STEM);  /* flush with the leaves' bases */
    fleaf(c, P_LEAF, 0.5, -18, -8.0, -16.0, 3.0);
    fleaf(c, P_LEAF2, 2.5, -18, 11.5, -15.5, 3.2);
}

static void fruit_pineapple(fcv *c)
{
    ell e = { 0, 3.6, 23.4, 20.2 };
    fbody(c, shape_ellipse, &e, 0, 3.6, 22.0, 1.2);
    /* the crosshatch: diagonal lines two pixels thick every 9 px both ways, and an eye of two
     * light pixels in each diamond */
    for (int m = -8; m <= 8; m++) {
        double o = 9.0 * m;
        fline2(c, o - 30, 30, o + 30, -30, -1, MERGE_C_SHADE(c->tier), MERGE_C_STEM);
        fline2(c, o - 30, -30, o + 30, 30, -1, MERGE_C_SHADE(c->tier), MERGE_C_STEM);
    }
    /* the eyes: the diamonds' centres, where x + y and x − y are both 4.5 past a line */
    for (int m = -6; m <= 6; m++)
        for (int k = -6; k <= 6; k++) {
            int x = (9 * (m + k) + 9) / 2, y = (9 * (m - k)) / 2;
            fmark(c, x - 1, y, 1, 0, MERGE_C_HIGH(c->tier), MERGE_C_BODY(c->tier));
        }
    /* the crown: five leaves fanning up from the top of the body */
    c->sep[P_LEAF] = 1;
    c->sep[P_LEAF2] = 1;
    c->sep[P_TOP] = 1;
    fleaf(c, P_LEAF, -3, -14, -15.0, -19.0, 3.2);
    fleaf(c, P_LEAF, 3, -14, 15.0, -19.0, 3.2);
    fleaf(c, P_LEAF2, -2, -14, -8.0, -23.0, 3.0);
    fleaf(c, P_LEAF2, 2, -14, 8.0, -23.0, 3.0);
    fleaf(c, P_TOP, 0, -13, 0.0, -24.4, 3.4);
}

/* The melon's net: the borders of cells around points spread over the sphere (a golden-angle
 * spiral), drawn where a pixel is within about a pixel of the border between its two nearest
 * points (a net two pixels thick); the sphere is tipped 25° towards the viewer so the top shows a
 * little of its pole. */
static void melon_net(fcv *c, double R, double by)
{
    enum { NSEED = 64 };
    double sx[NSEED], sy[NSEED], sz[NSEED];
    for (int i = 0; i < NSEED; i++) {
        double z = 1.0 - (2.0 * i + 1.0) / NSEED, rr = sim_sqrt(1.0 - z * z);
        double ang = 2.39996323 * i;
        sx[i] = rr * sim_cos(ang);
        sy[i] = z;
        sz[i] = rr * sim_sin(ang);
    }
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            if (fpid(c, dx, dy) != P_BODY)
                continue;
            double x = dx / R, y = (dy - by) / R, z2 = 1.0 - x * x - y * y;
            if (z2 <= 0.0)
                continue;
            double z = sim_sqrt(z2);
            double yy = y * 0.9063 - z * 0.4226, zz = y * 0.4226 + z * 0.9063;
            double b1 = -2, b2 = -2;
            int i1 = 0, i2 = 0;
            for (int i = 0; i < NSEED; i++) {
                double dot = x * sx[i] - yy * sy[i] + zz * sz[i];
                if (dot > b1) {
                    b2 = b1;
                    i2 = i1;
                    b1 = dot;
                    i1 = i;
                } else if (dot > b2) {
                    b2 = dot;
                    i2 = i;
                }
            }
            /* distance to the bisector, in pixels on the sphere, then foreshortened */
            double gap = sim_sqrt(sq(sx[i1] - sx[i2]) + sq(sy[i1] - sy[i2]) + sq(sz[i1] - sz[i2]));
            double dist = (b1 - b2) / gap * R * (0.35 + 0.65 * z);
            if (dist < 1.0)
                ftint(c, dx, dy, MERGE_C_NET, MERGE_C_BODY(c->tier));
        }
}

static void fruit_melon(fcv *c)
{
    ell e = { 0, 0, 27.2, 27.2 };
    fbody(c, shape_ellipse, &e, 0, 0, 27.2, 1.4);
    melon_net(c, 27.2, 0.0);
    /* the cut vine end-on at the pole, which the tipped sphere shows just inside the top */
    fpatch(c, -1, -25, 3, 3, MERGE_C_STEM);
}

static void fruit_watermelon(fcv *c)
{
    ell e = { 0, 0, 32.3, 32.3 };
    fbody(c, shape_ellipse, &e, 0, 0, 32.3, 1.5);
    /* zig-zag stripes along meridians: sin(longitude) = x / the half-width of the row; the zig
     * is a triangle wave of 6 rows, so each stripe's centre and half-width take 6 values */
    double R = 32.3, centre[6][5], half[6][5];
    for (int z = 0; z < 6; z++)
        for (int k = 0; k < 5; k++) {
            double zig = (z < 3 ? z : 6 - z) / 3.0 - 0.5;
            double lon = (k - 2) * (SIM_PI / 5.5) + zig * 0.10;
            centre[z][k] = sim_sin(lon);
            half[z][k] = 0.075 * sim_cos(lon) + 0.015;  /* narrower towards the limb */
        }
    for (int dy = -c->r; dy <= c->r; dy++)
        for (int dx = -c->r; dx <= c->r; dx++) {
            if (fpid(c, dx, dy) != P_BODY || fcol(c, dx, dy) == MERGE_C_HIGH(c->tier))
                continue;
            double span = R * R - dy * dy;
            if (span <= 1.0)
                continue;
            double s = dx / sim_sqrt(span);
            int z = ((dy % 6) + 6) % 6;
            for (int k = 0; k < 5; k++)
                if (dabs(s - centre[z][k]) <= half[z][k])
                    ftint(c, dx, dy, MERGE_C_LEAF_DARK, MERGE_C_LEAF_DARK);
        }
    fpatch(c, -1, -31, 3, 3, MERGE_C_STEM);  /* the stem end-on */
}

typedef void (*fruit_fn)(fcv *c);
static const fruit_fn fruit_draw[MERGE_TIERS] = {
    fruit_cherry, fruit_strawberry, fruit_grape, fruit_dekopon, fruit_persimmon, fruit_apple,
    fruit_pear, fruit_peach, fruit_pineapple, fruit_melon, fruit_watermelon
};

/* cos and sin of angle k of n (clockwise), exact at the quarter turns. */
static void turn_of(int k, int n, double *co, double *si)
{
    static const double qc[4] = { 1, 0, -1, 0 }, qs[4] = { 0, 1, 0, -1 };
    k = ((k % n) + n) % n;
    if (k % (n / 4) == 0) {
        *co = qc[k / (n / 4)];
        *si = qs[k / (n / 4)];
        return;
    }
    double a = 2.0 * SIM_PI * k / n;
    *co = sim_cos(a);
    *si = sim_sin(a);
}

#define FRUIT_SIDE_MAX 67  /* the watermelon's 2r + 1: the tidy's snapshot holds any fruit */

/* The tidy pass of a baked fruit image, two rules, each read from a snapshot so the scan order
 * does not matter: (1) an opaque pixel with three or four transparent 4-neighbours (the square's
 * edge counts as transparent) is cleared: a lone pixel the 8× reduction left sticking out, which
 * would blink as the fruit rolls; (2) then every opaque pixel with a transparent 4-neighbour is
 * inked, which closes the outline where the reduction broke it or let the body colour reach the
 * edge. Nothing else is touched, so every other pixel is the bake's. Returns how many pixels
 * changed. */
int sim__merge_fruit_tidy(uint8_t *img, int n)
{
    uint8_t snap[FRUIT_SIDE_MAX * FRUIT_SIDE_MAX];
    int changed = 0;
    if (!img || n < 1 || n > FRUIT_SIDE_MAX)
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        memcpy(snap, img, (size_t)n * n);
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                if (snap[y * n + x] == MERGE_C_CLEAR)
                    continue;
                int clear = (x == 0 || snap[y * n + x - 1] == MERGE_C_CLEAR) +
                            (x == n - 1 || snap[y * n + x + 1] == MERGE_C_CLEAR) +
                            (y == 0 || snap[(y - 1) * n + x] == MERGE_C_CLEAR) +
                            (y == n - 1 || snap[(y + 1) * n + x] == MERGE_C_CLEAR);
                uint8_t v = pass == 0 ? (clear >= 3 ? MERGE_C_CLEAR : snap[y * n + x])
                                      : (clear > 0 ? MERGE_C_OUTLINE : snap[y * n + x]);
                changed += v != snap[y * n + x];
                img[y * n + x] = v;
            }
    }
    return changed;
}

/* Paint the upright tier t into px ((2r+1)² bytes); pid and ink are scratch of the same size. */
static void paint_fruit(uint8_t *px, uint8_t *pid, uint8_t *ink, int tier)
{
    fcv c;
    memset(&c, 0, sizeof c);
    c.r = sim__merge_radius[tier];
    c.n = 2 * c.r + 1;
    c.tier = tier;
    c.col = px;
    c.pid = pid;
    memset(px, MERGE_C_CLEAR, (size_t)c.n * c.n);
    memset(pid, P_NONE, (size_t)c.n * c.n);
    c.sep[P_STEM] = 1;
    fruit_draw[tier](&c);
    ffinish(&c, ink);
    fdespeckle(&c, ink);
    /* the sprite is its own tidy pass's fixed point (the clip leaves lone pixels at the ends of
     * some shapes), so the bake's exact quarter turns need no tidying and image 0 is the sprite */
    for (int i = 0; i < 8 && sim__merge_fruit_tidy(px, c.n) != 0; i++)
        ;
}

/* RotSprite the upright fruit `up` (side n = 2r + 1) about its centre pixel at `nangles` angles
 * (sim_rot_bake_n), keep the n × n square around the centre of each image (the bake's square is
 * √2 wider, to hold any turn of the sprite's corners; a fruit's pixels stay inside the circle of
 * r + 0.5, which that square holds) and tidy it (sim__merge_fruit_tidy). */
static int bake_fruit_set(sim_rot_set *out, const sim_sprite *up, int nangles)
{
    int n = up->w, r = n / 2;
    sim_rot_sprite s = { n, n, up->px, MERGE_C_CLEAR, n, n };  /* pivot: pixel (r, r)'s centre */
    sim_rot_set big;
    int rc = sim_rot_bake_n(&big, &s, nangles);
    if (rc != 0)
        return rc;
    size_t area = (size_t)n * n;
    out->px = malloc(area * (size_t)nangles);
    if (!out->px) {
        sim_rot_free(&big);
        return SIM_ENOMEM;
    }
    int off = big.side / 2 - r;
    for (int k = 0; k < nangles; k++) {
        const uint8_t *src = sim_rot_image(&big, k);
        uint8_t *img = out->px + area * (size_t)k;
        for (int y = 0; y < n; y++)
            memcpy(img + (size_t)y * n, src + (size_t)(y + off) * big.side + off, (size_t)n);
        sim__merge_fruit_tidy(img, n);
    }
    out->side = n;
    out->nangles = nangles;
    out->transparent = MERGE_C_CLEAR;
    sim_rot_free(&big);
    return 0;
}

/* The set of `nangles` images that are every (fine->nangles / nangles)-th of `fine`. */
static int every_nth(sim_rot_set *out, const sim_rot_set *fine, int nangles)
{
    size_t area = (size_t)fine->side * fine->side;
    out->px = malloc(area * (size_t)nangles);
    if (!out->px)
        return SIM_ENOMEM;
    for (int k = 0; k < nangles; k++)
        memcpy(out->px + area * (size_t)k, sim_rot_image(fine, k * (fine->nangles / nangles)),
               area);
    out->side = fine->side;
    out->nangles = nangles;
    out->transparent = fine->transparent;
    return 0;
}

/* ---- the carrier, from character maps -------------------------------------------------------- */
/* One character a pixel: '.' clear, 'o' outline, 'w' white, 's' skin, 'd' skin shade, 'b' blush,
 * 'h' hat, 'H' hat shade, 'r' hat band (also the shirt and the mittens' cuffs), 'R' its shade,
 * 'm' mitten, 'M' mitten shade, 'c' overalls, 'C' their shade, 't' brown (hair), 'g' gold. */
static uint8_t map_colour(char ch)
{
    switch (ch) {
    case 'o': return MERGE_C_OUTLINE;
    case 'w': return MERGE_C_WHITE;
    case 's': return MERGE_C_SKIN;
    case 'd': return MERGE_C_SKIN_SHADE;
    case 'b': return MERGE_C_BLUSH;
    case 'h': return MERGE_C_HAT;
    case 'H': return MERGE_C_HAT_SHADE;
    case 'r': return MERGE_C_HAT_BAND;
    case 'R': return MERGE_C_APPLE_SHADE;
    case 'm': return MERGE_C_HAND;
    case 'M': return MERGE_C_HAND_SHADE;
    case 'c': return MERGE_C_SHIRT;
    case 'C': return MERGE_C_SHIRT_SHADE;
    case 't': return MERGE_C_STEM;
    case 'g': return MERGE_C_GOLD;
    default: return MERGE_C_CLEAR;
    }
}

static const char *const head_map[MERGE_HEAD_H] = {
    ".......ooooo.......",
    "....oootttttooo....",
    "...ottttttttttto...",
    "..ottttttttttttto..",
    ".ottttttttttttttto.",
    ".ottttsttsttstttto.",
    "ottssssssssssssstto",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    ".ossssssssssssssdo.",
    ".ossssssssssssssdo.",
    "..ossssssssssssdo..",
    "...odssssssssddo...",
    "....oodddddddoo....",
    "......ooooooo......",
};

static const char *const hat_map[MERGE_HAT_H] = {
    "..........ooooooo..........",
    "........oohhhhhhhoo........",
    ".......ohhhhhhhhhhHo.......",
    "......ohhhhhhhhhhhhHo......",
    "......ohhhhhhhhhhhhHo......",
    "......orrrrrrrrrrrrro......",
    "......orrrrrrrrrrrrro......",
    "...oooohhhhhhhhhhhhHoooo...",
    ".oohhhhhhhhhhhhhhhhhhhhhoo.",
    "ohhhhhhhhhhhhhhhhhhhhhhhhHo",
    "oHhhhhhhhhhhhhhhhhhhhhhhHHo",
    ".ooHHHHHHHHHHHHHHHHHHHHHoo.",
    "...ooooooooooooooooooooo...",
};

static const char *const body_map[MERGE_BODY_H] = {
    ".....ooooooo.....",
    "...oorrrrrrroo...",
    "..orcrrrrrrrcRo..",
    ".orrcrrrrrrrcrRo.",
    "orrrcgcccccgcrrRo",
    "orrrccccccccCrrRo",
    "orrrcccCCCccCrrRo",
    "orrrccccccccCrrRo",
    "oRRRCCCCCCCCCRRRo",
    "ooooooooooooooooo",
};

static const char *const hand_open_map[MERGE_HAND_H] = {
    "...oooo.",
    "..ommmmo",
    "..ommmMo",
    ".oommmMo",
    "omommmMo",
    "ommmmmMo",
    ".orrrRo.",
    "..oooo..",
};

static const char *const hand_closed_map[MERGE_HAND_H] = {
    "........",
    "..oooo..",
    ".ommmmo.",
    "ommmmmMo",
    "ommmmmMo",
    "oommmMMo",
    ".orrrRo.",
    "..oooo..",
};

/* Tidy a RotSprite image of a part: a pixel that sticks out alone (three or four transparent
 * 4-neighbours) goes, and every pixel left on the silhouette's edge is ink, so a turned hat or
 * head keeps a whole one-pixel outline where the 8× reduction broke it. */
static void tidy_turned(uint8_t *img, int side)
{
    for (int pass = 0; pass < 2; pass++)
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++) {
                uint8_t *p = &img[y * side + x];
                if (*p == MERGE_C_CLEAR)
                    continue;
                int clear = (x == 0 || img[y * side + x - 1] == MERGE_C_CLEAR) +
                            (x == side - 1 || img[y * side + x + 1] == MERGE_C_CLEAR) +
                            (y == 0 || img[(y - 1) * side + x] == MERGE_C_CLEAR) +
                            (y == side - 1 || img[(y + 1) * side + x] == MERGE_C_CLEAR);
                if (pass == 0 && clear >= 3)
                    *p = MERGE_C_CLEAR;
                else if (pass == 1 && clear > 0)
                    *p = MERGE_C_OUTLINE;
            }
}

/* The face, stamped upright at its turned place on every head image: its features are one to
 * three pixels, and RotSprite would smudge them at a 6° lean, while the head's outline and hair
 * turn well. (x, y) is a feature's top-left pixel on the upright head; '.' leaves a pixel. */
typedef struct feature { int8_t x, y; const char *rows[3]; } feature;
static const feature face[] = {
    { 5, 8, { "wo", "oo", "oo" } },   /* eyes: 2 × 3, a glint at the top left */
    { 12, 8, { "wo", "oo", "oo" } },
    { 3, 11, { "bb", NULL, NULL } },  /* cheeks */
    { 14, 11, { "bb", NULL, NULL } },
    { 7, 12, { "o...o", ".ooo.", NULL } },  /* the smile */
};
static int feature_h(const feature *f)
{
    return f->rows[2] ? 3 : f->rows[1] ? 2 : 1;
}

/* Stamp the face on a head image of side `side` (pivot = the middle pixel) turned by angle k of
 * MERGE_PART_ANGLES: each feature's centre turns about the neck, the feature stays upright. */
static void stamp_face(uint8_t *img, int side, int k)
{
    double co, si;
    turn_of(k, MERGE_PART_ANGLES, &co, &si);
    for (size_t f = 0; f < sizeof face / sizeof face[0]; f++) {
        int w = (int)strlen(face[f].rows[0]), h = feature_h(&face[f]);
        /* centres in pixel units from the neck pixel's centre */
        double cx = face[f].x + (w - 1) / 2.0 - MERGE_HEAD_NECK_X;
        double cy = face[f].y + (h - 1) / 2.0 - MERGE_HEAD_NECK_Y;
        double tx = cx * co - cy * si, ty = cx * si + cy * co;
        int x0 = side / 2 + sim_snap(tx - (w - 1) / 2.0);
        int y0 = side / 2 + sim_snap(ty - (h - 1) / 2.0);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint8_t v = map_colour(face[f].rows[j][i]);
                int x = x0 + i, y = y0 + j;
                if (v != MERGE_C_CLEAR && x >= 0 && y >= 0 && x < side && y < side)
                    img[y * side + x] = v;
            }
    }
}

/* Copy a character map into px (w × h); a short row is padded with clear. */
static void paint_map(uint8_t *px, const char *const *rows, int w, int h)
{
    for (int y = 0; y < h; y++) {
        size_t len = strlen(rows[y]);
        for (int x = 0; x < w; x++)
            px[y * w + x] = (size_t)x < len ? map_colour(rows[y][x]) : MERGE_C_CLEAR;
    }
}

/* ---- build and free ------------------------------------------------------------------------- */

static sim_sprite sprite_at(uint8_t *px, int w, int h)
{
    sim_sprite s = { (uint16_t)w, (uint16_t)h, px, MERGE_C_CLEAR };
    return s;
}

void sim__merge_art_free(merge_art *a)
{
    if (!a)
        return;
    for (int t = 0; t < MERGE_TIERS; t++) {
        sim_rot_free(&a->fruit_rot[t]);
        sim_rot_free(&a->fruit_rot_fine[t]);
    }
    sim_rot_free(&a->head_rot);
    sim_rot_free(&a->hat_rot);
    free(a->mem);
    memset(a, 0, sizeof *a);
}

int sim__merge_art_build(merge_art *a)
{
    int rc = 0;
    uint8_t *scratch = NULL;
    memset(a, 0, sizeof *a);
    a->pal.version = 1;
    a->pal.count = MERGE_C_COUNT;
    memcpy(a->pal.rgb, palette_rgb, sizeof palette_rgb);
    size_t total = 0;
    for (int t = 0; t < MERGE_TIERS; t++)
        total += (size_t)(2 * sim__merge_radius[t] + 1) * (2 * sim__merge_radius[t] + 1);
    total += MERGE_HEAD_W * MERGE_HEAD_H + MERGE_HAT_W * MERGE_HAT_H + MERGE_BODY_W * MERGE_BODY_H
             + 2 * MERGE_HAND_W * MERGE_HAND_H;
    a->mem = malloc(total);
    if (!a->mem) {
        rc = SIM_ENOMEM;
        goto done;
    }
    uint8_t *p = a->mem;
    int nmax = 2 * sim__merge_radius[MERGE_TIERS - 1] + 1;
    scratch = malloc(2 * (size_t)nmax * nmax);
    if (!scratch) {
        rc = SIM_ENOMEM;
        goto done;
    }
    for (int t = 0; t < MERGE_TIERS; t++) {
        int n = 2 * sim__merge_radius[t] + 1;
        paint_fruit(p, scratch, scratch + (size_t)nmax * nmax, t);
        a->fruit[t] = sprite_at(p, n, n);
        p += (size_t)n * n;
        if (t >= MERGE_CARRY_TIERS) {
            if ((rc = bake_fruit_set(&a->fruit_rot[t], &a->fruit[t], MERGE_FRUIT_ANGLES)) != 0)
                goto done;
            continue;
        }
        /* a 64-angle bake holds the 16-angle one (angle 4k of 64 is angle k of 16, the same
         * bytes: docs/rotsprite.md), so the carried tiers bake once and take every fourth */
        if ((rc = bake_fruit_set(&a->fruit_rot_fine[t], &a->fruit[t], MERGE_PART_ANGLES)) != 0 ||
            (rc = every_nth(&a->fruit_rot[t], &a->fruit_rot_fine[t], MERGE_FRUIT_ANGLES)) != 0)
            goto done;
    }
    uint8_t *head_px = p;
    paint_map(p, head_map, MERGE_HEAD_W, MERGE_HEAD_H);  /* faceless until the bake below */
    a->head = sprite_at(p, MERGE_HEAD_W, MERGE_HEAD_H);
    p += MERGE_HEAD_W * MERGE_HEAD_H;
    paint_map(p, hat_map, MERGE_HAT_W, MERGE_HAT_H);
    a->hat = sprite_at(p, MERGE_HAT_W, MERGE_HAT_H);
    p += MERGE_HAT_W * MERGE_HAT_H;
    paint_map(p, body_map, MERGE_BODY_W, MERGE_BODY_H);
    a->body = sprite_at(p, MERGE_BODY_W, MERGE_BODY_H);
    p += MERGE_BODY_W * MERGE_BODY_H;
    paint_map(p, hand_open_map, MERGE_HAND_W, MERGE_HAND_H);
    a->hand_open = sprite_at(p, MERGE_HAND_W, MERGE_HAND_H);
    p += MERGE_HAND_W * MERGE_HAND_H;
    paint_map(p, hand_closed_map, MERGE_HAND_W, MERGE_HAND_H);
    a->hand_closed = sprite_at(p, MERGE_HAND_W, MERGE_HAND_H);
    p += MERGE_HAND_W * MERGE_HAND_H;

    sim_rot_sprite hs = { MERGE_HEAD_W, MERGE_HEAD_H, a->head.px, MERGE_C_CLEAR,
                          2 * MERGE_HEAD_NECK_X + 1, 2 * MERGE_HEAD_NECK_Y + 1 };
    if ((rc = sim_rot_bake_n(&a->head_rot, &hs, MERGE_PART_ANGLES)) != 0)
        goto done;
    for (int k = 0; k < MERGE_PART_ANGLES; k++) {
        uint8_t *img = (uint8_t *)sim_rot_image(&a->head_rot, k);
        if (k != 0)  /* angle 0 is the sprite itself, exactly */
            tidy_turned(img, a->head_rot.side);
        stamp_face(img, a->head_rot.side, k);
    }
    /* the upright head gets the same face at angle 0: the bake above read it faceless */
    for (size_t f = 0; f < sizeof face / sizeof face[0]; f++) {
        int w = (int)strlen(face[f].rows[0]), h = feature_h(&face[f]);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint8_t v = map_colour(face[f].rows[j][i]);
                if (v != MERGE_C_CLEAR)
                    head_px[(face[f].y + j) * MERGE_HEAD_W + face[f].x + i] = v;
            }
    }
    sim_rot_sprite ts = { MERGE_HAT_W, MERGE_HAT_H, a->hat.px, MERGE_C_CLEAR,
                          2 * MERGE_HAT_PIVOT_X + 1, 2 * MERGE_HAT_PIVOT_Y + 1 };
    if ((rc = sim_rot_bake_n(&a->hat_rot, &ts, MERGE_PART_ANGLES)) != 0)
        goto done;
    for (int k = 1; k < MERGE_PART_ANGLES; k++)
        tidy_turned((uint8_t *)sim_rot_image(&a->hat_rot, k), a->hat_rot.side);
done:
    free(scratch);
    if (rc != 0) {
        sim__merge_art_free(a);
        return rc == SIM_EINVAL ? SIM_ENOMEM : rc;  /* every sprite here is valid by construction */
    }
    return 0;
}

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

static void px_put(sim_frame *f, int x, int y, uint8_t c)
{
    if (x >= 0 && y >= 0 && x < f->w && y < f->h)
        f->px[(size_t)y * f->w + x] = c;
}

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
#define EYE_PUT(xx, yy, c) px_put(f, mirror ? 2 * cx - (xx) : (xx), (yy), (c))
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

/* ---- text ------------------------------------------------------------------------------------ */
/* 3×5 glyphs, one row a 3-bit number (bit 2 = left column). */
typedef struct glyph { char ch; uint8_t rows[5]; } glyph;
static const glyph font[] = {
    { '0', { 7, 5, 5, 5, 7 } }, { '1', { 2, 6, 2, 2, 7 } }, { '2', { 7, 1, 7, 4, 7 } },
    { '3', { 7, 1, 3, 1, 7 } }, { '4', { 5, 5, 7, 1, 1 } }, { '5', { 7, 4, 7, 1, 7 } },
    { '6', { 7, 4, 7, 5, 7 } }, { '7', { 7, 1, 2, 2, 2 } }, { '8', { 7, 5, 7, 5, 7 } },
    { '9', { 7, 5, 7, 1, 7 } },
    { 'A', { 2, 5, 7, 5, 5 } }, { 'B', { 6, 5, 6, 5, 6 } }, { 'C', { 3, 4, 4, 4, 3 } },
    { 'D', { 6, 5, 5, 5, 6 } }, { 'E', { 7, 4, 6, 4, 7 } }, { 'F', { 7, 4, 6, 4, 4 } },
    { 'G', { 3, 4, 5, 5, 3 } }, { 'H', { 5, 5, 7, 5, 5 } }, { 'I', { 7, 2, 2, 2, 7 } },
    { 'J', { 1, 1, 1, 5, 2 } }, { 'K', { 5, 5, 6, 5, 5 } }, { 'L', { 4, 4, 4, 4, 7 } },
    { 'M', { 5, 7, 7, 5, 5 } }, { 'N', { 6, 5, 5, 5, 5 } }, { 'O', { 2, 5, 5, 5, 2 } },
    { 'P', { 6, 5, 6, 4, 4 } }, { 'Q', { 2, 5, 5, 6, 3 } }, { 'R', { 6, 5, 6, 5, 5 } },
    { 'S', { 3, 4, 2, 1, 6 } }, { 'T', { 7, 2, 2, 2, 2 } }, { 'U', { 5, 5, 5, 5, 7 } },
    { 'V', { 5, 5, 5, 5, 2 } }, { 'W', { 5, 5, 7, 7, 5 } }, { 'X', { 5, 5, 2, 5, 5 } },
    { 'Y', { 5, 5, 2, 2, 2 } }, { 'Z', { 7, 1, 2, 4, 7 } },
    { '.', { 0, 0, 0, 0, 2 } }, { ',', { 0, 0, 0, 2, 4 } }, { ':', { 0, 2, 0, 2, 0 } },
    { '!', { 2, 2, 2, 0, 2 } }, { '-', { 0, 0, 7, 0, 0 } }, { '+', { 0, 2, 7, 2, 0 } },
    { '/', { 1, 1, 2, 4, 4 } }, { 'x', { 0, 5, 2, 5, 0 } },
};

static const uint8_t *glyph_rows(char ch)
{
    if (ch >= 'a' && ch <= 'z' && ch != 'x')
        ch = (char)(ch - 'a' + 'A');
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].ch == ch)
            return font[i].rows;
    return NULL;
}

int sim__merge_text_width(const char *text, int scale)
{
    if (scale < 1)
        scale = 1;
    size_t n = text ? strlen(text) : 0;
    return n ? (int)n * MERGE_GLYPH_ADV * scale - scale : 0;
}

int sim__merge_draw_text_scaled(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                                uint8_t colour, int scale)
{
    (void)a;
    if (scale < 1)
        scale = 1;
    if (!f || !f->px || !text)
        return 0;
    /* two passes: the ring under every glyph first, so a neighbour's ring never cuts a glyph */
    for (int pass = 0; pass < 2; pass++) {
        int gx = x;
        for (const char *p = text; *p; p++, gx += MERGE_GLYPH_ADV * scale) {
            const uint8_t *rows = glyph_rows(*p);
            if (!rows)
                continue;
            for (int j = 0; j < MERGE_GLYPH_H; j++)
                for (int i = 0; i < MERGE_GLYPH_W; i++) {
                    if (!(rows[j] >> (MERGE_GLYPH_W - 1 - i) & 1))
                        continue;
                    int x0 = gx + i * scale, y0 = y + j * scale;
                    if (pass == 0) {
                        for (int yy = y0 - 1; yy <= y0 + scale; yy++)
                            for (int xx = x0 - 1; xx <= x0 + scale; xx++)
                                px_put(f, xx, yy, MERGE_C_OUTLINE);
                    } else {
                        for (int yy = y0; yy < y0 + scale; yy++)
                            for (int xx = x0; xx < x0 + scale; xx++)
                                px_put(f, xx, yy, colour);
                    }
                }
        }
    }
    return sim__merge_text_width(text, scale);
}

int sim__merge_draw_text(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                         uint8_t colour)
{
    return sim__merge_draw_text_scaled(f, a, x, y, text, colour, 1);
}

/* ---- the carrier ----------------------------------------------------------------------------- */

void sim__merge_draw_carrier(sim_frame *f, const merge_art *a, int neck_x, int neck_y, int head_k,
                             int hat_k)
{
    if (!f || !a || !a->mem)
        return;
    sim_raster_blit(f, &a->body, neck_x - MERGE_BODY_NECK_X, neck_y - MERGE_BODY_NECK_Y, 0);
    sim_rot_blit(f, &a->head_rot, head_k, neck_x, neck_y, 0);
    /* the hat's pivot rides on the head: (0, DY) from the neck, turned by the head's angle */
    double ang = 2.0 * SIM_PI * (double)head_k / MERGE_PART_ANGLES;
    double c = sim_cos(ang), s = sim_sin(ang);
    double hx = -s * MERGE_HAT_ON_HEAD_DY, hy = c * MERGE_HAT_ON_HEAD_DY;  /* clockwise, y down */
    sim_rot_blit(f, &a->hat_rot, hat_k, neck_x + sim_snap(hx), neck_y + sim_snap(hy), 0);
}

void sim__merge_draw_hand(sim_frame *f, const merge_art *a, int x, int y, int right, int closed,
                          int flipv)
{
    if (!f || !a || !a->mem)
        return;
    const sim_sprite *s = closed ? &a->hand_closed : &a->hand_open;
    unsigned flags = (right ? 0u : (unsigned)SIM_BLIT_FLIPX) |
                     (flipv ? (unsigned)SIM_BLIT_FLIPY : 0u);
    sim_raster_blit(f, s, x - MERGE_HAND_W / 2, y - MERGE_HAND_H / 2, flags);
}

/* ---- the backdrop ---------------------------------------------------------------------------- */

/* 4×4 Bayer thresholds 0..15: a band boundary dithers by pattern, not noise. */
static const uint8_t bayer4[4][4] = {
    { 0, 8, 2, 10 }, { 12, 4, 14, 6 }, { 3, 11, 1, 9 }, { 15, 7, 13, 5 }
};

static void hline(sim_frame *f, int x0, int x1, int y, uint8_t c)
{
    for (int x = x0; x <= x1; x++)
        px_put(f, x, y, c);
}
static void vline(sim_frame *f, int x, int y0, int y1, uint8_t c)
{
    for (int y = y0; y <= y1; y++)
        px_put(f, x, y, c);
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
    px_put(f, x0 + 2, y0 + 2, MERGE_C_WOOD_DARK);
    px_put(f, x1 - 2, y0 + 2, MERGE_C_WOOD_DARK);
    px_put(f, x0 + 2, y1 - 2, MERGE_C_WOOD_DARK);
    px_put(f, x1 - 2, y1 - 2, MERGE_C_WOOD_DARK);
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
        px_put(f, sx, sy, stars[i][2] ? MERGE_C_WHITE : MERGE_C_GOLD);
        if (stars[i][2]) {
            px_put(f, sx - 1, sy, MERGE_C_GOLD);
            px_put(f, sx + 1, sy, MERGE_C_GOLD);
            px_put(f, sx, sy - 1, MERGE_C_GOLD);
            px_put(f, sx, sy + 1, MERGE_C_GOLD);
        }
    }
    /* a crescent moon: a disc less a disc nudged towards the upper right */
    for (int y = -8; y <= 8; y++)
        for (int x = -8; x <= 8; x++)
            if (x * x + y * y <= 56 && (x - 3) * (x - 3) + (y + 2) * (y + 2) > 40)
                px_put(f, 296 + x, 22 + y, MERGE_C_PINEAPPLE_HIGH);
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
            px_put(f, x, y, MERGE_C_PANEL);
        for (int y = nh; y < f->h; y++)
            px_put(f, x, y, MERGE_C_OUTLINE);
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
        px_put(f, hx - w / 2 + 2, base - hh + 2, MERGE_C_GOLD);
        px_put(f, hx - w / 2 + 2, base - hh + 3, MERGE_C_GOLD);
        if (big) {
            px_put(f, hx + 2, base - hh + 2, MERGE_C_GOLD);
            px_put(f, hx + 2, base - hh + 3, MERGE_C_GOLD);
            vline(f, hx + 2, base - hh - 4, base - hh - 2, MERGE_C_OUTLINE);  /* chimney */
            px_put(f, hx + 3, base - hh - 4, MERGE_C_OUTLINE);
        }
    }
    /* the container: the inside, a faint pattern of dots, walls and floor outside it */
    box(f, x0, y_top, x1 - 1, y_floor - 1, MERGE_C_INSIDE);
    for (int y = y_top + 3; y < y_floor; y += 8)
        for (int x = x0 + 3 + ((y - y_top) / 8 % 2) * 4; x < x1; x += 8)
            px_put(f, x, y, MERGE_C_INSIDE_SHADE);
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
            px_put(f, x, y_line, MERGE_C_LINE_RED);
    panel(f, MERGE_SCORE_X0, MERGE_SCORE_Y0, MERGE_SCORE_X1, MERGE_SCORE_Y1);
    panel(f, MERGE_NEXT_X0, MERGE_NEXT_Y0, MERGE_NEXT_X1, MERGE_NEXT_Y1);
}
