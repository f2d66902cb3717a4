/* art_fruit.c — the fruit-merge world's eleven fruit (issue 14 §3, seed 003), painted in code and
 * baked at create time.
 *
 * A fruit is painted upright in parts on a (2r+1)² canvas: the body (its silhouette and
 * three-tone light from the upper left), then its texture (seeds, pits, net, stripes, crosshatch,
 * cleft), then its attachments (stem, leaves, calyx, crown), each a part with an id. The canvas
 * is clipped to the circle of radius r (half a pixel inside the physics circle) and outlined:
 * every pixel with a 4-neighbour outside the fruit is ink, and so is the edge of an attachment
 * where it lies over the body, so every silhouette is one clean pixel of MERGE_C_OUTLINE. Its 16
 * turned images (and for the carried tiers a lean set, 1° steps across ±18°) are RotSprite bakes
 * of that sprite (issue 14 §3: "drawn from the 16 pre-baked rotations of §2"), each given a small
 * tidy pass (sim__merge_fruit_tidy);
 * the drawings are made for the bake, which keeps only marks that are two pixels or more (the
 * canvas section says how). Everything is integer or + − × ÷ sqrt in doubles; the angles come
 * from sim_cos/sim_sin. See art.h for the contract. */
#include <stdlib.h>
#include <string.h>
#include "art_int.h"

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

/* RotSprite the upright fruit `up` (side n = 2r + 1) about its centre pixel: a whole turn of
 * `nangles` angles (sim_rot_bake_n) when span is 0, else the lean set (sim_rot_bake_span: 1°
 * steps across ±MERGE_LEAN_SPAN, nangles ignored); keep the n × n square around the centre of
 * each image (the bake's square is √2 wider, to hold any turn of the sprite's corners; a fruit's
 * pixels stay inside the circle of r + 0.5, which that square holds) and tidy it
 * (sim__merge_fruit_tidy). */
static int bake_fruit_set(sim_rot_set *out, const sim_sprite *up, int nangles, int span)
{
    int n = up->w, r = n / 2;
    sim_rot_sprite s = { n, n, up->px, MERGE_C_CLEAR, n, n };  /* pivot: pixel (r, r)'s centre */
    sim_rot_set big;
    int rc = span ? sim_rot_bake_span(&big, &s, MERGE_LEAN_TURN, -span, 2 * span + 1)
                  : sim_rot_bake_n(&big, &s, nangles);
    if (rc != 0)
        return rc;
    nangles = big.nangles;
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

/* ---- build ----------------------------------------------------------------------------------- */

int sim__merge_art_build_fruit(merge_art *a, uint8_t **mem)
{
    int rc = 0;
    uint8_t *p = *mem;
    int nmax = 2 * sim__merge_radius[MERGE_TIERS - 1] + 1;
    uint8_t *scratch = malloc(2 * (size_t)nmax * nmax);
    if (!scratch)
        return SIM_ENOMEM;
    for (int t = 0; t < MERGE_TIERS; t++) {
        int n = 2 * sim__merge_radius[t] + 1;
        paint_fruit(p, scratch, scratch + (size_t)nmax * nmax, t);
        a->fruit[t] = sim__merge_sprite_at(p, n, n);
        p += (size_t)n * n;
        if ((rc = bake_fruit_set(&a->fruit_rot[t], &a->fruit[t], MERGE_FRUIT_ANGLES, 0)) != 0)
            goto done;
        /* the carried ones also lean in the hand: their lean set */
        if (t < MERGE_CARRY_TIERS &&
            (rc = bake_fruit_set(&a->fruit_rot_fine[t], &a->fruit[t], 0, MERGE_LEAN_SPAN)) != 0)
            goto done;
    }
done:
    free(scratch);
    *mem = p;
    return rc;
}
