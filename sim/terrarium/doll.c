/* doll.c — drawing the terrarium: the room, the doll over each frame, and the x-ray.
 *
 * The doll knows nothing about the frame beyond where the circles ended up. A creature is drawn
 * in painter's order: far limbs (one step lighter), then body and tail as one silhouette (capsules
 * along the spine with a width profile — drawn radii, not physical ones: the lizard's tail
 * simulates at radius 2 and is drawn from 5.4 down to 0.8), then the head, then the near limbs.
 * Knees come from two-bone IK by the law of cosines, at draw time only. Coordinates are snapped
 * to whole pixels here and nowhere else; nothing is anti-aliased; every pixel is a palette index.
 *
 * The x-ray strips the dolls off: chunks as circles, links as lines, pins, each limb's chosen
 * foothold (×), its comfort radius (dashed) around the ideal spot, the brains' states, and the
 * waypoint graph. The room itself (and the x-ray's grid and graph) is drawn once, at create. */
#include "terrarium.h"
#include <stdlib.h>

#define HOMAGE_DIV 3                 /* the homage's canvas: a third of the resolution (seed 001) */

/* ---- the palette ------------------------------------------------------------------------------- */
enum {
    C_BG0, C_BG1, C_BG2, C_BG3, C_FAR0, C_FAR1, C_FAR2,
    C_MORTAR, C_ROCK, C_ROCK_HI, C_EDGE, C_EDGE2,
    C_PLANK_D, C_PLANK, C_PLANK_HI, C_POLE, C_POLE_HI, C_CHAIN,
    C_SHADOW, C_INK,
    C_LIZ_D, C_LIZ, C_LIZ_L, C_LIZ_FAR, C_LIZ_CREASE, C_LIZ_HEAD, C_LIZ_HEAD_HI, C_MOUTH,
    C_SCR_D, C_SCR, C_SCR_L, C_SCR_FAR, C_SCR_CREASE, C_SCR_BELLY, C_EYE,
    C_ROPE_D, C_ROPE, C_ROPE_L,
    C_X_BG, C_X_GRID, C_X_SOLID, C_X_PLANK, C_X_POLE, C_X_BONE, C_X_SOFT, C_X_WEAK, C_X_PIN,
    C_X_FOOT, C_X_COMFORT, C_X_PLANTED, C_X_SWING, C_X_DANGLE, C_X_TUCK, C_X_NODE, C_X_WALK,
    C_X_CLIMB, C_X_DROP, C_X_TEXT, C_X_IDEAL, C_X_LIZ, C_X_SCR, C_X_ROPE,
    NCOLORS
};

static const uint8_t PALETTE[NCOLORS][3] = {
    /* The room: a cold, dim back wall, concrete blocks with a pale worn top edge, timber planks,
     * steel poles. Dark enough that the creatures carry the colour. */
    [C_BG0] = { 13, 12, 21 },     [C_BG1] = { 17, 17, 28 },     [C_BG2] = { 21, 23, 35 },
    [C_BG3] = { 26, 29, 42 },     [C_FAR0] = { 22, 24, 34 },    [C_FAR1] = { 30, 33, 46 },
    [C_FAR2] = { 38, 42, 56 },
    [C_MORTAR] = { 16, 15, 22 },  [C_ROCK] = { 40, 38, 50 },    [C_ROCK_HI] = { 50, 47, 61 },
    [C_EDGE] = { 104, 96, 118 },  [C_EDGE2] = { 66, 61, 78 },
    [C_PLANK_D] = { 52, 38, 36 }, [C_PLANK] = { 94, 69, 54 },   [C_PLANK_HI] = { 140, 106, 78 },
    [C_POLE] = { 104, 100, 122 }, [C_POLE_HI] = { 156, 150, 172 }, [C_CHAIN] = { 46, 44, 58 },
    [C_SHADOW] = { 10, 9, 15 },   [C_INK] = { 8, 7, 12 },
    /* The lizard: deep teal-green body, a vivid lime head. The far side's limbs are "drawn in a
     * lighter grey so it reads as behind" (seed 001): a grey lighter than the body, each
     * creature's own (a grey lighter than the lizard's green would be darker than the scrambler's
     * ochre). */
    [C_LIZ_D] = { 24, 72, 58 },   [C_LIZ] = { 40, 118, 86 },    [C_LIZ_L] = { 70, 160, 110 },
    [C_LIZ_FAR] = { 102, 112, 110 }, [C_LIZ_CREASE] = { 30, 90, 68 }, [C_LIZ_HEAD] = { 150, 214, 74 }, [C_LIZ_HEAD_HI] = { 206, 246, 120 },
    [C_MOUTH] = { 128, 28, 52 },
    /* The scrambler: warm ochre, a pale belly, a bushy tail, big eyes. */
    [C_SCR_D] = { 138, 74, 36 },  [C_SCR] = { 212, 128, 52 },   [C_SCR_L] = { 242, 178, 100 },
    [C_SCR_FAR] = { 170, 164, 160 }, [C_SCR_CREASE] = { 170, 98, 42 }, [C_SCR_BELLY] = { 246, 204, 146 }, [C_EYE] = { 244, 240, 228 },
    [C_ROPE_D] = { 88, 78, 62 },  [C_ROPE] = { 142, 128, 100 }, [C_ROPE_L] = { 184, 168, 132 },
    /* The x-ray. */
    [C_X_BG] = { 6, 8, 12 },      [C_X_GRID] = { 16, 22, 32 },  [C_X_SOLID] = { 90, 104, 124 },
    [C_X_PLANK] = { 168, 140, 92 }, [C_X_POLE] = { 74, 130, 172 }, [C_X_BONE] = { 224, 230, 238 },
    [C_X_SOFT] = { 118, 130, 146 }, [C_X_WEAK] = { 44, 56, 72 }, [C_X_PIN] = { 255, 76, 76 },
    [C_X_FOOT] = { 255, 210, 64 }, [C_X_COMFORT] = { 64, 168, 255 }, [C_X_PLANTED] = { 90, 224, 106 },
    [C_X_SWING] = { 255, 226, 74 }, [C_X_DANGLE] = { 255, 122, 58 }, [C_X_TUCK] = { 208, 112, 255 },
    [C_X_NODE] = { 255, 255, 255 }, [C_X_WALK] = { 64, 92, 112 }, [C_X_CLIMB] = { 52, 196, 255 },
    [C_X_DROP] = { 255, 160, 64 }, [C_X_TEXT] = { 200, 212, 222 }, [C_X_IDEAL] = { 128, 208, 255 },
    [C_X_LIZ] = { 90, 208, 160 },  [C_X_SCR] = { 255, 176, 96 }, [C_X_ROPE] = { 200, 184, 144 },
};

/* ---- drawing helpers: world units in, snapped pixels out --------------------------------------- */
typedef struct pen {
    sim_frame *f;
    double s;               /* pixels per unit */
    int small;              /* the homage's canvas: no ink outlines (a pixel of ink there is a
                             * third of a creature's width), details dropped */
} pen;

static int px(const pen *p, double v) { return sim_snap(v * p->s); }

/* A point snapped once, for the capsules that share it (an outline and its fill, a chain). */
typedef struct ipt {
    int x, y;
} ipt;

static ipt at(const pen *p, double x, double y)
{
    ipt q = { px(p, x), px(p, y) };
    return q;
}

static void capsule_at(const pen *p, ipt a, ipt b, double r0, double r1, uint8_t c)
{
    sim_raster_capsule(p->f, a.x, a.y, b.x, b.y, r0 * p->s, r1 * p->s, c);
}

static void w_capsule(const pen *p, double x0, double y0, double x1, double y1, double r0, double r1,
                      uint8_t c)
{
    capsule_at(p, at(p, x0, y0), at(p, x1, y1), r0, r1, c);
}

static void w_line(const pen *p, double x0, double y0, double x1, double y1, uint8_t c)
{
    sim_raster_line(p->f, px(p, x0), px(p, y0), px(p, x1), px(p, y1), c);
}

static void w_disc(const pen *p, double x, double y, double r, uint8_t c)
{
    ipt q = at(p, x, y);
    capsule_at(p, q, q, r, r, c);
}

static void put(sim_frame *f, int x, int y, uint8_t c)
{
    if (x >= 0 && y >= 0 && x < f->w && y < f->h) f->px[(size_t)y * f->w + (size_t)x] = c;
}

/* A small × of half-size h pixels. */
static void cross(sim_frame *f, int x, int y, int h, uint8_t c)
{
    sim_raster_line(f, x - h, y - h, x + h, y + h, c);
    sim_raster_line(f, x - h, y + h, x + h, y - h, c);
}

/* A dashed circle: three pixels on, three off, around the circumference. */
static void dashed_circle(const pen *p, double cx, double cy, double r, uint8_t c)
{
    double rp = r * p->s;
    int n = (int)(2.0 * SIM_PI * rp);
    if (n < 12) n = 12;
    int ox = px(p, cx), oy = px(p, cy);
    for (int k = 0; k < n; k++) {
        if ((k / 3) & 1) continue;
        double a = 2.0 * SIM_PI * (double)k / (double)n;
        put(p->f, ox + sim_snap(rp * sim_cos(a)), oy + sim_snap(rp * sim_sin(a)), c);
    }
}

/* ---- a 3×5 font for the x-ray's labels ---------------------------------------------------------- */
#define G(a, b, c, d, e) (uint16_t)((a) << 12 | (b) << 9 | (c) << 6 | (d) << 3 | (e))
static const uint16_t FONT_AZ[26] = {
    G(2, 5, 7, 5, 5), G(6, 5, 6, 5, 6), G(3, 4, 4, 4, 3), G(6, 5, 5, 5, 6), G(7, 4, 6, 4, 7),
    G(7, 4, 6, 4, 4), G(3, 4, 5, 5, 3), G(5, 5, 7, 5, 5), G(7, 2, 2, 2, 7), G(1, 1, 1, 5, 2),
    G(5, 5, 6, 5, 5), G(4, 4, 4, 4, 7), G(5, 7, 7, 5, 5), G(6, 5, 5, 5, 5), G(2, 5, 5, 5, 2),
    G(6, 5, 6, 4, 4), G(2, 5, 5, 6, 3), G(6, 5, 6, 5, 5), G(3, 4, 2, 1, 6), G(7, 2, 2, 2, 2),
    G(5, 5, 5, 5, 7), G(5, 5, 5, 5, 2), G(5, 5, 7, 7, 5), G(5, 5, 2, 5, 5), G(5, 5, 2, 2, 2),
    G(7, 1, 2, 4, 7),
};
static const uint16_t FONT_09[10] = {
    G(7, 5, 5, 5, 7), G(2, 6, 2, 2, 7), G(6, 1, 2, 4, 7), G(6, 1, 2, 1, 6), G(5, 5, 7, 1, 1),
    G(7, 4, 6, 1, 6), G(3, 4, 7, 5, 7), G(7, 1, 2, 2, 2), G(7, 5, 7, 5, 7), G(7, 5, 7, 1, 6),
};
#undef G

/* Text in capitals and digits (others are blanks), 4 pixels a character, top-left at (x, y). */
static void text(sim_frame *f, int x, int y, const char *s, uint8_t c)
{
    for (; *s; s++, x += 4) {
        uint16_t g = 0;
        char ch = *s;
        if (ch >= 'a' && ch <= 'z') ch = (char)(ch - 'a' + 'A');
        if (ch >= 'A' && ch <= 'Z') g = FONT_AZ[ch - 'A'];
        else if (ch >= '0' && ch <= '9') g = FONT_09[ch - '0'];
        for (int row = 0; row < 5; row++)
            for (int col = 0; col < 3; col++)
                if ((g >> (12 - 3 * row)) & (4u >> col)) put(f, x + col, y + row, c);
    }
}

/* ---- the room, drawn once ------------------------------------------------------------------------- */
/* A fixed integer hash of a position, for stone texture: cheap, and the same everywhere. */
static uint32_t noise(int x, int y)
{
    uint32_t n = (uint32_t)x * 374761393u + (uint32_t)y * 668265263u;
    n = (n ^ (n >> 13)) * 1274126177u;
    return n ^ (n >> 16);
}

/* 4×4 Bayer threshold, 0..15: ordered dithering between the back wall's bands. */
static int bayer(int x, int y)
{
    static const uint8_t m[4][4] = { { 0, 8, 2, 10 }, { 12, 4, 14, 6 }, { 3, 11, 1, 9 }, { 15, 7, 13, 5 } };
    return m[y & 3][x & 3];
}

/* The room at scale (pixels a unit) into f: the frame's, or (small) a third of it for the homage's
 * canvas, where the blocks, plank notches and planks shrink with it; 1-pixel details stay 1 pixel
 * (the poles, the chains, the worn edge). */
static void draw_room(sim_frame *f, double scale, int small)
{
    pen p = { f, scale, 0 };
    int full = !small;
    int bw = full ? 12 : 6, bh = full ? 5 : 3;     /* a block and its mortar, pixels */
    int W = f->w, H = f->h;
    /* The back wall: four bands, dithered into each other, lighter toward the floor. */
    for (int y = 0; y < H; y++) {
        int v = y * 4 * 16 / H;                          /* 0 .. 63 */
        int band = v / 16, frac = v % 16;
        for (int x = 0; x < W; x++) {
            int b = band + (frac > bayer(x, y) && band < 3);
            f->px[(size_t)y * W + x] = (uint8_t)(C_BG0 + b);
        }
    }
    /* Far structures: pillars and a girder, a pipe or two — depth, nothing to stand on. */
    static const double pillars[][2] = { { 34, 24 }, { 172, 30 }, { 312, 20 }, { 430, 26 } };
    for (int i = 0; i < 4; i++) {
        double x0 = pillars[i][0], w = pillars[i][1];
        sim_raster_rect(f, px(&p, x0), 0, px(&p, x0 + w) - px(&p, x0), H, C_FAR0);
        sim_raster_rect(f, px(&p, x0), 0, 1, H, C_FAR1);
        for (double y = 30.0; y < TERRA_ROOM_H; y += 46.0)
            sim_raster_rect(f, px(&p, x0), px(&p, y), px(&p, x0 + w) - px(&p, x0), 1, C_FAR1);
    }
    sim_raster_rect(f, 0, px(&p, 58.0), W, px(&p, 9.0), C_FAR0);
    sim_raster_rect(f, 0, px(&p, 58.0), W, 1, C_FAR2);
    sim_raster_rect(f, 0, px(&p, 67.0), W, 1, C_FAR1);
    for (double x = 6.0; x < TERRA_ROOM_W; x += 18.0)           /* girder rivets */
        put(f, px(&p, x), px(&p, 62.5), C_FAR2);
    sim_raster_rect(f, px(&p, 262.0), 0, sim_snap(3.0 * scale), H, C_FAR1);      /* pipes */
    sim_raster_rect(f, px(&p, 268.0), 0, 1, H, C_FAR0);
    sim_raster_rect(f, px(&p, 96.0), px(&p, 100.0), sim_snap(4.0 * scale), H, C_FAR1);
    /* Chains from the ceiling to each plank's ends. */
    const int planks[2] = { SEG_PLANK_L, SEG_PLANK_R };
    for (int i = 0; i < 2; i++) {
        const sim_seg *s = &terra_segs[planks[i]];
        for (int e = 0; e < 2; e++) {
            double x = (e ? s->bx - 4.0 : s->ax + 4.0);
            int xx = px(&p, x);
            for (int y = px(&p, terra_segs[SEG_CEILING].ay); y < px(&p, s->ay); y++)
                put(f, xx + ((y / 2) & 1), y, C_CHAIN);
        }
    }
    /* Rock: walls, ceiling and the floor with its gully, in staggered blocks with mortar, a pale
     * worn edge where it meets the air. Which pixels are rock comes from one floor height per
     * column (a pixel is rock below the floor line, outside the walls or above the ceiling). */
    int *top = malloc((size_t)(W + 2) * sizeof *top);       /* first rock row per column, or 0 */
    if (!top) return;
    const double wl = terra_segs[SEG_WALL_L].ax, wr = terra_segs[SEG_WALL_R].ax;
    int ceil_rows = 0;
    while (ceil_rows < H && (double)ceil_rows / scale < terra_segs[SEG_CEILING].ay) ceil_rows++;
    for (int x = -1; x <= W; x++) {
        double wx = (double)x / scale;
        int first = 0;                                      /* a wall column: all rock */
        if (wx >= wl && wx <= wr) {
            double fy = terra__floor_y(wx);
            first = H;
            for (int y = 0; y < H; y++)
                if ((double)y / scale > fy) {
                    first = y;
                    break;
                }
        }
        top[x + 1] = first;
    }
#define ROCK(xx, yy) ((yy) < ceil_rows || (yy) >= top[(xx) + 1])
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (!ROCK(x, y)) continue;
            int by = y / bh, bx = (x + (by & 1) * (bw / 2)) / bw;
            int mortar = (y % bh == bh - 1) || ((x + (by & 1) * (bw / 2)) % bw == bw - 1);
            uint8_t c = C_ROCK;
            if (mortar) c = C_MORTAR;
            else if ((noise(bx, by) & 7u) == 0 || (noise(x, y + 4096) & 31u) == 0) c = C_ROCK_HI;
            /* The edge: rock with air just above or beside it, and the row under that. */
            int up = y > 0 ? ROCK(x, y - 1) : 1, up2 = y > 1 ? ROCK(x, y - 2) : 1;
            if (!up || !ROCK(x - 1, y) || !ROCK(x + 1, y)) c = C_EDGE;
            else if (!up2) c = C_EDGE2;
            f->px[(size_t)y * W + x] = c;
        }
#undef ROCK
    free(top);
    /* Planks: timber beams hanging under their line (you stand on the line). */
    for (int i = 0; i < 2; i++) {
        const sim_seg *s = &terra_segs[planks[i]];
        int x0 = px(&p, s->ax), x1 = px(&p, s->bx), y0 = px(&p, s->ay);
        int th = sim_snap(4.0 * scale);
        if (th < (full ? 3 : 2)) th = full ? 3 : 2;
        sim_raster_rect(f, x0, y0, x1 - x0 + 1, th, C_PLANK);
        sim_raster_rect(f, x0, y0, x1 - x0 + 1, 1, C_PLANK_HI);
        sim_raster_rect(f, x0, y0 + th - 1, x1 - x0 + 1, 1, C_PLANK_D);
        for (int x = x0 + bw / 2 + 1; x < x1; x += bw - 1) sim_raster_rect(f, x, y0 + 1, 1, th - 1, C_PLANK_D);
        sim_raster_rect(f, x0, y0, 1, th, C_PLANK_D);
        sim_raster_rect(f, x1, y0, 1, th, C_PLANK_D);
    }
    /* Poles: thin steel rods with a notch every few pixels. */
    const int poles[2] = { SEG_POLE_L, SEG_POLE_R };
    for (int i = 0; i < 2; i++) {
        const sim_seg *s = &terra_segs[poles[i]];
        int x = px(&p, s->ax), ya = px(&p, s->by), yb = px(&p, s->ay);
        sim_raster_rect(f, x, ya, 1, yb - ya, C_POLE);
        for (int y = ya; y < yb; y++)
            if (y % 6 == 0) put(f, x, y, C_POLE_HI);
        put(f, x, ya - 1, C_POLE_HI);
    }
}

static void draw_xray_room(const terra_world *t, sim_frame *f)
{
    pen p = { f, t->scale, 0 };
    sim_raster_clear(f, C_X_BG);
    for (double g = 0.0; g <= TERRA_ROOM_W; g += 40.0) sim_raster_rect(f, px(&p, g), 0, 1, f->h, C_X_GRID);
    for (double g = 0.0; g <= TERRA_ROOM_H; g += 40.0) sim_raster_rect(f, 0, px(&p, g), f->w, 1, C_X_GRID);
    /* The waypoint graph, a little above the surfaces so it does not hide them. */
    for (int e = 0; e < TERRA_NEDGE; e++) {
        const terra_edge *ed = &terra_edges[e];
        const terra_node *a = &terra_nodes[ed->a], *b = &terra_nodes[ed->b];
        uint8_t c = ed->kind == EDGE_WALK ? C_X_WALK : ed->kind == EDGE_POLE ? C_X_CLIMB : C_X_DROP;
        double lift = 6.0;
        double ax = a->x, ay = a->y - lift, bx = b->x, by = b->y - lift;
        if (ed->kind == EDGE_POLE) {
            ax = bx = terra_segs[ed->pole].ax + 5.0;
        }
        w_line(&p, ax, ay, bx, by, c);
        if (ed->kind != EDGE_WALK) {
            /* One-way: an arrowhead at the far end. */
            double dx = bx - ax, dy = by - ay, l = sim_sqrt(dx * dx + dy * dy);
            double ux = dx / l, uy = dy / l;
            w_line(&p, bx, by, bx - ux * 7.0 - uy * 4.0, by - uy * 7.0 + ux * 4.0, c);
            w_line(&p, bx, by, bx - ux * 7.0 + uy * 4.0, by - uy * 7.0 - ux * 4.0, c);
        }
    }
    for (int k = 0; k < TERRA_NSEG; k++) {
        const sim_seg *s = &terra_segs[k];
        uint8_t c = s->kind == SIM_SEG_SOLID ? C_X_SOLID : s->kind == SIM_SEG_ONEWAY ? C_X_PLANK : C_X_POLE;
        w_line(&p, s->ax, s->ay, s->bx, s->by, c);
        if (s->kind == SIM_SEG_ONEWAY) {
            /* Ticks on the open side. */
            double nx, ny;
            sim_seg_normal(s, &nx, &ny);
            for (double u = 0.0; u <= 1.0; u += 0.125) {
                double x = s->ax + (s->bx - s->ax) * u, y = s->ay + (s->by - s->ay) * u;
                w_line(&p, x, y, x + nx * 3.0, y + ny * 3.0, c);
            }
        }
    }
    for (int n = 0; n < TERRA_NNODE; n++) {
        const terra_node *nd = &terra_nodes[n];
        int x = px(&p, nd->x), y = px(&p, nd->y - 6.0);
        sim_raster_rect(f, x - 1, y - 1, 3, 3, C_X_NODE);
        if (n == NODE_REFUGE) sim_raster_ring(f, x, y, 4, C_X_CLIMB);
        char label[4] = { (char)('0' + n), 0, 0, 0 };
        text(f, x + 3, y - 7, label, C_X_TEXT);
    }
    text(f, 3, 3, "XRAY", C_X_TEXT);
}

int terra__render_alloc(terra_world *t)
{
    size_t n = (size_t)t->w * (size_t)t->h;
    t->hw = (t->w + HOMAGE_DIV - 1) / HOMAGE_DIV;
    t->hh = (t->h + HOMAGE_DIV - 1) / HOMAGE_DIV;
    t->room_px = malloc(n);
    t->xray_px = malloc(n);
    t->homage_px = malloc((size_t)t->hw * (size_t)t->hh);
    if (!t->room_px || !t->xray_px || !t->homage_px) return SIM_ENOMEM;
    return 0;
}

void terra__render_draw(terra_world *t)
{
    sim_frame f;
    f.w = (uint16_t)t->w;
    f.h = (uint16_t)t->h;
    f.px = t->room_px;
    draw_room(&f, t->scale, 0);
    f.px = t->xray_px;
    draw_xray_room(t, &f);
    f.w = (uint16_t)t->hw;
    f.h = (uint16_t)t->hh;
    f.px = t->homage_px;
    draw_room(&f, t->scale / HOMAGE_DIV, 1);
    memset(&t->pal, 0, sizeof t->pal);
    t->pal.count = NCOLORS;
    t->pal.version = 1;
    for (int i = 0; i < NCOLORS; i++) memcpy(&t->pal.rgb[i * 3], PALETTE[i], 3);
}

void terra__render_free(terra_world *t)
{
    free(t->room_px);
    free(t->xray_px);
    free(t->homage_px);
    t->room_px = t->xray_px = t->homage_px = NULL;
}

/* ---- the doll ------------------------------------------------------------------------------------- */
typedef struct look {
    uint8_t dark, base, light, far, crease, head, head_hi;
    double body_r[3];               /* drawn radii: head end of the neck, chest, hips */
    double tail_r0, tail_r1;        /* drawn tail radii, first to last */
    const double *tail_profile;     /* or a profile per tail chunk */
    double leg_r0, leg_r1;          /* thigh at the hip, shin at the foot */
} look;

static const double SCR_TAIL[4] = { 3.8, 5.0, 4.8, 3.2 };   /* a bushy tail, thickest mid-way */

static const look LOOKS[2] = {
    [SPECIES_LIZARD] = { C_LIZ_D, C_LIZ, C_LIZ_L, C_LIZ_FAR, C_LIZ_CREASE, C_LIZ_HEAD, C_LIZ_HEAD_HI,
                         { 4.4, 6.2, 6.0 }, 5.4, 0.8, NULL, 2.0, 1.4 },
    [SPECIES_SCRAMBLER] = { C_SCR_D, C_SCR, C_SCR_L, C_SCR_FAR, C_SCR_CREASE, C_SCR, C_SCR_L,
                            { 4.0, 5.2, 5.6 }, 0.0, 0.0, SCR_TAIL, 1.7, 1.3 },
};

/* For the tests: a species' inks (palette indexes). */
int terra__doll_ink(int species, int which)
{
    const look *lk = &LOOKS[species == SPECIES_SCRAMBLER ? SPECIES_SCRAMBLER : SPECIES_LIZARD];
    switch (which) {
    case TERRA_INK_BASE: return lk->base;
    case TERRA_INK_FAR: return lk->far;
    case TERRA_INK_CREASE: return lk->crease;
    default: return C_INK;
    }
}

typedef struct spine {
    int n;                          /* points: chest, hips, tail… (the neck is drawn on its own) */
    double x[2 + TERRA_MAX_TAIL], y[2 + TERRA_MAX_TAIL], r[2 + TERRA_MAX_TAIL];
} spine;

static void build_spine(const terra_world *t, const terra_creature *c, spine *s)
{
    const terra_species *sp = &terra_species_table[c->species];
    const look *lk = &LOOKS[c->species];
    s->n = 2 + sp->ntail;
    for (int i = 0; i < s->n; i++) {
        const sim_chunk *ch = &t->v.chunk[terra__chunk(t, c, i + 1)];
        s->x[i] = ch->x;
        s->y[i] = ch->y;
        if (i < 2) s->r[i] = lk->body_r[i + 1];
        else if (lk->tail_profile) s->r[i] = lk->tail_profile[i - 2];
        else s->r[i] = lk->tail_r0 + (lk->tail_r1 - lk->tail_r0) * (double)(i - 2) / (double)(sp->ntail - 1);
    }
}

/* The silhouette, in three passes so that the near legs can go between them: the ink outline
 * (the capsule chain along the spine and the neck, a pixel wider), the fill, and the shading (a
 * lighter back, the lizard's dorsal flecks, the scrambler's pale belly). The homage's canvas has
 * no outline. parts says which of it: the torso (the neck and chest to hips), the tail (hips
 * on), or both as one silhouette. */
enum { BODY_INK, BODY_FILL, BODY_SHADE };
enum { PART_TORSO = 1, PART_TAIL = 2, PART_ALL = 3 };

static void draw_body(const pen *p, const terra_world *t, const terra_creature *c, const spine *s,
                      int pass, int parts)
{
    const look *lk = &LOOKS[c->species];
    const sim_chunk *head = &t->v.chunk[terra__chunk(t, c, 0)];
    if (pass == BODY_INK && p->small) return;
    if (pass == BODY_SHADE) {
        for (int i = 0; i + 1 < s->n; i++) {
            /* The back catches the light: a thinner band shifted up. */
            if (i >= 3 && c->species == SPECIES_LIZARD) break;
            if (!(parts & (i == 0 ? PART_TORSO : PART_TAIL))) continue;
            w_capsule(p, s->x[i], s->y[i] - s->r[i] * 0.45, s->x[i + 1], s->y[i + 1] - s->r[i + 1] * 0.45,
                      s->r[i] * 0.42, s->r[i + 1] * 0.42, lk->light);
        }
        if (p->small) return;
        if (c->species == SPECIES_LIZARD) {
            for (int i = 0; i + 1 < s->n && i < 5; i++) {
                if (!(parts & (i == 0 ? PART_TORSO : PART_TAIL))) continue;
                double mx = 0.5 * (s->x[i] + s->x[i + 1]), my = 0.5 * (s->y[i] + s->y[i + 1]);
                double r = 0.5 * (s->r[i] + s->r[i + 1]);
                put(p->f, px(p, mx), px(p, my - r * 0.55), lk->dark);
                put(p->f, px(p, mx) + 1, px(p, my - r * 0.55), lk->dark);
            }
        } else if (parts & PART_TORSO) {
            double mx = 0.5 * (s->x[0] + s->x[1]), my = 0.5 * (s->y[0] + s->y[1]);
            w_capsule(p, s->x[0], s->y[0] + s->r[0] * 0.45, mx, my + s->r[1] * 0.5, s->r[0] * 0.4,
                      s->r[1] * 0.35, C_SCR_BELLY);
        }
        return;
    }
    uint8_t col = pass == BODY_INK ? C_INK : lk->base;
    double grow = pass == BODY_INK ? 1.0 / p->s : 0.0;          /* one pixel, in units */
    ipt q[2 + TERRA_MAX_TAIL], qh = at(p, head->x, head->y);   /* the outline's and the fill's */
    for (int i = 0; i < s->n; i++) q[i] = at(p, s->x[i], s->y[i]);
    for (int i = 0; i + 1 < s->n; i++)
        if (parts & (i == 0 ? PART_TORSO : PART_TAIL))
            capsule_at(p, q[i], q[i + 1], s->r[i] + grow, s->r[i + 1] + grow, col);
    /* The neck, from the chest toward the head. */
    if (parts & PART_TORSO) capsule_at(p, q[0], qh, s->r[0] + grow, lk->body_r[0] + grow, col);
}

/* A crease: a ring a pixel wide just outside the capsule a–b (radii r0, r1 in units), painted
 * only over the creature's own body colours, so that the outline against the room stays ink. The
 * torso's fill, drawn next, covers the inside. */
static void crease(const pen *p, ipt a, ipt b, double r0, double r1, const look *lk)
{
    double R0 = r0 * p->s + 1.5, R1 = r1 * p->s + 1.5, R = R0 > R1 ? R0 : R1;
    int x0 = (a.x < b.x ? a.x : b.x) - (int)R - 1, x1 = (a.x > b.x ? a.x : b.x) + (int)R + 1;
    int y0 = (a.y < b.y ? a.y : b.y) - (int)R - 1, y1 = (a.y > b.y ? a.y : b.y) + (int)R + 1;
    double ex = b.x - a.x, ey = b.y - a.y, l2 = ex * ex + ey * ey;
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < p->f->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < p->f->w; x++) {
            uint8_t *c = &p->f->px[(size_t)y * p->f->w + (size_t)x];
            if (*c != lk->base && *c != lk->light && *c != lk->dark) continue;
            double u = l2 > 0.0 ? ((x - a.x) * ex + (y - a.y) * ey) / l2 : 0.0;
            u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
            double dx = x - (a.x + u * ex), dy = y - (a.y + u * ey), r = R0 + (R1 - R0) * u;
            if (dx * dx + dy * dy <= r * r) *c = lk->crease;
        }
}

/* Folded: the tail leaves the hips back the way the chest points (a turn round half done, a
 * body doubled over in a fall), so that torso and tail lie over each other. Drawn as one
 * silhouette that would be one lump; the doll draws the tail first, then a crease round the torso
 * where it lies over the tail, then the torso. */
static int folded(const spine *s)
{
    if (s->n < 3) return 0;
    double fx = s->x[0] - s->x[1], fy = s->y[0] - s->y[1];
    double tx = s->x[1] - s->x[2], ty = s->y[1] - s->y[2];
    return fx * tx + fy * ty < 0.0;
}

/* The head: one angle, drawn. The lizard's is a wedge with a jaw that opens to stalk and wide to
 * lunge; the scrambler's is round, eared, with a big eye. */
static void draw_head(const pen *p, const terra_world *t, const terra_creature *c)
{
    const look *lk = &LOOKS[c->species];
    const sim_chunk *h = &t->v.chunk[terra__chunk(t, c, 0)];
    double ux = sim_cos(c->head), uy = sim_sin(c->head);
    /* "Up" for the head: the perpendicular on the sky side. */
    double vx = uy, vy = -ux;
    if (vy > 0.0) {
        vx = -vx;
        vy = -vy;
    }
    if (p->small) {
        /* The homage's head is a few pixels: the skull in its colour, and the scrambler's big eye. */
        if (c->species == SPECIES_LIZARD) {
            w_capsule(p, h->x - ux * 2.5, h->y - uy * 2.5, h->x + ux * 7.5, h->y + uy * 7.5, 6.0, 3.2, lk->head);
        } else {
            w_disc(p, h->x + ux * 0.5, h->y + uy * 0.5, 4.8, lk->base);
            put(p->f, px(p, h->x + ux * 2.3 + vx * 1.2), px(p, h->y + uy * 2.3 + vy * 1.2), C_EYE);
        }
        return;
    }
    double o = 1.0 / p->s;
    if (c->species == SPECIES_LIZARD) {
        double open = c->brain == BR_LUNGE ? 1.0 : c->brain == BR_STALK ? 0.3 * c->crouch : 0.0;
        /* Jaw below (drawn first), mouth, then the skull over it. */
        double jx = h->x + ux * 6.0 - vx * (1.5 + 3.5 * open), jy = h->y + uy * 6.0 - vy * (1.5 + 3.5 * open);
        ipt j0 = at(p, h->x - ux * 1.0, h->y - uy * 1.0), j1 = at(p, jx, jy);
        capsule_at(p, j0, j1, 3.6 + o, 1.8 + o, C_INK);
        if (open > 0.0)
            w_capsule(p, h->x + ux * 1.0, h->y + uy * 1.0, h->x + ux * 5.0 - vx * 1.5 * open,
                      h->y + uy * 5.0 - vy * 1.5 * open, 2.6, 1.2, C_MOUTH);
        capsule_at(p, j0, j1, 3.6, 1.8, lk->base);
        ipt k0 = at(p, h->x - ux * 2.5, h->y - uy * 2.5), k1 = at(p, h->x + ux * 7.5 + vx * 0.6, h->y + uy * 7.5 + vy * 0.6);
        capsule_at(p, k0, k1, 6.0 + o, 3.2 + o, C_INK);
        capsule_at(p, k0, k1, 6.0, 3.2, lk->head);
        w_capsule(p, h->x - ux * 1.5 + vx * 2.6, h->y - uy * 1.5 + vy * 2.6, h->x + ux * 4.5 + vx * 1.6,
                  h->y + uy * 4.5 + vy * 1.6, 1.5, 0.8, lk->head_hi);
        /* The eye: dark, toward the top at the back of the skull. */
        int ex = px(p, h->x + ux * 1.5 + vx * 2.2), ey = px(p, h->y + uy * 1.5 + vy * 2.2);
        sim_raster_rect(p->f, ux < 0.0 ? ex - 1 : ex, ey, 2, 1, C_INK);
    } else {
        double cx = h->x + ux * 0.5, cy = h->y + uy * 0.5;
        /* Ears swept back, then the head, the snout, the eye. */
        for (int e = 0; e < 2; e++) {
            double bx = cx - ux * (1.0 + e * 1.6) + vx * 2.6, by = cy - uy * (1.0 + e * 1.6) + vy * 2.6;
            double tx = cx - ux * (5.0 + e * 1.5) + vx * 6.8, ty = cy - uy * (5.0 + e * 1.5) + vy * 6.8;
            ipt e0 = at(p, bx, by), e1 = at(p, tx, ty);
            capsule_at(p, e0, e1, 1.6 + o, 0.6 + o, C_INK);
            capsule_at(p, e0, e1, 1.6, 0.6, e ? lk->dark : lk->base);
        }
        ipt c0 = at(p, cx, cy), c1 = at(p, cx + ux * 4.6 - vx * 0.8, cy + uy * 4.6 - vy * 0.8);
        capsule_at(p, c0, c0, 4.8 + o, 4.8 + o, C_INK);
        capsule_at(p, c0, c1, 2.6 + o, 1.6 + o, C_INK);
        capsule_at(p, c0, c0, 4.8, 4.8, lk->base);
        capsule_at(p, c0, c1, 2.6, 1.6, lk->base);
        w_disc(p, cx - ux * 0.8 + vx * 2.0, cy - uy * 0.8 + vy * 2.0, 2.0, lk->light);
        w_disc(p, cx + ux * 6.0 - vx * 0.6, cy + uy * 6.0 - vy * 0.6, 0.8, C_INK);      /* nose */
        double ex = cx + ux * 1.8 + vx * 1.2, ey = cy + uy * 1.8 + vy * 1.2;
        w_disc(p, ex, ey, 1.9, C_EYE);
        w_disc(p, ex + ux * 0.9, ey + uy * 0.9, 0.8, C_INK);
    }
}

/* The legs' frame: forward along the spine (chest from hips), up away from the belly. A walking
 * body whose spine stands steeper than about 37° is rearing through a turn round: its legs keep
 * the frame of a body standing level, facing its way, so that they stay under it, knees forward,
 * instead of swinging round with the spine and folding across the flank. */
#define LEG_FRAME_STEEP 0.6          /* ours: |sin| of the spine's slope past which a turn is drawn level */
static void leg_frame(const terra_world *t, const terra_creature *c, double *fx, double *fy,
                      double *upx, double *upy)
{
    const sim_chunk *chest = &t->v.chunk[terra__chunk(t, c, 1)], *hips = &t->v.chunk[terra__chunk(t, c, 2)];
    double x = chest->x - hips->x, y = chest->y - hips->y;
    double l = sim_sqrt(x * x + y * y);
    if (l < 1e-6 || (c->nav == NAV_WALK && y * y > LEG_FRAME_STEEP * LEG_FRAME_STEEP * l * l)) {
        x = c->facing;
        y = 0.0;
    } else {
        x /= l;
        y /= l;
    }
    /* Rotate forward a quarter turn toward the sky (which side that is depends on facing). */
    double ux = y * c->facing, uy = -x * c->facing;
    if (c->nav == NAV_WALK && uy > 0.0) {
        ux = -ux;
        uy = -uy;
    }
    *fx = x;
    *fy = y;
    *upx = ux;
    *upy = uy;
}

/* One leg: thigh and shin by two-bone IK from the belly to the foot, the knee bent along the
 * body (elbows back, knees forward), and a foot; pass LEG_INK is its outline (near legs only),
 * drawn before the body's fill so that what the body covers of it is hidden and the outline shows
 * only where the leg leaves the body; LEG_FILL is the leg, in the body's colour when near and in
 * the far side's lighter grey when far. */
enum { LEG_INK, LEG_FILL };

static void draw_leg(const pen *p, const terra_world *t, const terra_creature *c, int i, int far, int pass)
{
    const terra_species *sp = &terra_species_table[c->species];
    const look *lk = &LOOKS[c->species];
    const terra_limb *l = &c->limb[i];
    if (pass == LEG_INK && (far || p->small)) return;
    double sx, sy, fx, fy, upx, upy;
    terra__shoulder(t, c, i, &sx, &sy);
    leg_frame(t, c, &fx, &fy, &upx, &upy);
    int front = i < 2;
    double r = lk->body_r[front ? 1 : 2];
    /* Legs leave the body low on its flank, front ones a little forward, hind a little back. */
    double along = (front ? 0.25 : -0.2) * r - (far ? 0.8 : 0.0);
    double shx = sx + fx * along - upx * 0.45 * r, shy = sy + fy * along - upy * 0.45 * r;
    if (far) {
        shx += upx * 0.8;
        shy += upy * 0.8;
    }
    double s = front ? -1.0 : 1.0;
    double bx = fx * s + upx * 0.3, by = fy * s + upy * 0.3;
    double ftx = l->fx, fty = l->fy;
    double dx = ftx - shx, dy = fty - shy, d = sim_sqrt(dx * dx + dy * dy), reach = sp->thigh + sp->shin;
    if (d > reach && d > 1e-9) {               /* stretched past the bones: draw it straight */
        ftx = shx + dx * reach / d;
        fty = shy + dy * reach / d;
    }
    double kx, ky;
    terra__knee(shx, shy, ftx, fty, sp->thigh, sp->shin, bx, by, &kx, &ky);
    uint8_t col = pass == LEG_INK ? C_INK : far ? lk->far : lk->dark;
    double o = pass == LEG_INK ? 1.0 / p->s : 0.0;
    ipt hip = at(p, shx, shy), knee = at(p, kx, ky), foot = at(p, ftx, fty);
    capsule_at(p, hip, knee, lk->leg_r0 + o, lk->leg_r0 * 0.85 + o, col);
    capsule_at(p, knee, foot, lk->leg_r0 * 0.85 + o, lk->leg_r1 + o, col);
    if (p->small) return;
    /* Feet: toes along whatever the foot is on (inked on the near side, with the outline, which
     * they are outside the body's), or a curled foot in the air. */
    if (l->state == LIMB_PLANTED || l->state == LIMB_SWINGING) {
        if (pass == LEG_FILL && !far) return;
        double tx = -l->ny, ty = l->nx;
        if (tx * c->facing < 0.0) {
            tx = -tx;
            ty = -ty;
        }
        double toe = c->species == SPECIES_LIZARD ? 3.4 : 2.4;
        w_line(p, ftx, fty, ftx + tx * toe, fty + ty * toe, col);
        if (c->species == SPECIES_LIZARD) w_line(p, ftx, fty, ftx - tx * toe * 0.7, fty - ty * toe * 0.7, col);
    } else {
        capsule_at(p, foot, foot, lk->leg_r1 * 0.9 + o, lk->leg_r1 * 0.9 + o, col);
    }
}

static void draw_shadow(const pen *p, const terra_world *t, const terra_creature *c)
{
    for (int k = 0; k < 3; k++) {
        const sim_chunk *ch = &t->v.chunk[terra__chunk(t, c, k)];
        double gy;
        if (sim_verlet_ground(&t->v, ch->x, ch->y, 60.0, &gy) < 0) continue;
        double hgt = gy - ch->y, w = ch->r * (1.3 - hgt / 80.0);
        if (w <= 0.5) continue;
        int y = px(p, gy);
        sim_raster_rect(p->f, px(p, ch->x - w), y, px(p, ch->x + w) - px(p, ch->x - w) + 1, 1, C_SHADOW);
    }
}

/* A creature in painter's order (seed 001: far limbs, body and tail as one silhouette, the head,
 * near limbs), with the near limbs' outline slipped under the body's fill: the far limbs in
 * their lighter grey, the body's outline, the near limbs' outline, the body, the near limbs, the
 * body's shading, the head. Where a near limb lies over the flank it is the body's colour on the
 * body's colour, with no ink across it; where it leaves the body, body and limb share one
 * outline. */
static void draw_creature(const pen *p, const terra_world *t, const terra_creature *c)
{
    const look *lk = &LOOKS[c->species];
    spine s;
    build_spine(t, c, &s);
    int near_odd = c->facing > 0;                  /* facing right, the right-hand limbs are near */
    int fold = folded(&s);
    for (int i = 0; i < TERRA_NLIMB; i++)
        if ((i & 1) != near_odd) draw_leg(p, t, c, i, 1, LEG_FILL);
    draw_body(p, t, c, &s, BODY_INK, PART_ALL);
    for (int i = 0; i < TERRA_NLIMB; i++)
        if ((i & 1) == near_odd) draw_leg(p, t, c, i, 0, LEG_INK);
    if (fold) {
        /* The tail under the torso, and the torso's edge creased over it. */
        draw_body(p, t, c, &s, BODY_FILL, PART_TAIL);
        draw_body(p, t, c, &s, BODY_SHADE, PART_TAIL);
        if (!p->small) {
            const sim_chunk *hd = &t->v.chunk[terra__chunk(t, c, 0)];
            ipt q0 = at(p, s.x[0], s.y[0]), q1 = at(p, s.x[1], s.y[1]), qh = at(p, hd->x, hd->y);
            crease(p, q0, q1, s.r[0], s.r[1], lk);
            crease(p, q0, qh, s.r[0], lk->body_r[0], lk);
        }
    }
    int parts = fold ? PART_TORSO : PART_ALL;
    draw_body(p, t, c, &s, BODY_FILL, parts);
    for (int i = 0; i < TERRA_NLIMB; i++)
        if ((i & 1) == near_odd) draw_leg(p, t, c, i, 0, LEG_FILL);
    draw_body(p, t, c, &s, BODY_SHADE, parts);
    draw_head(p, t, c);
}

static void draw_rope(const pen *p, const terra_world *t, const sim_body *b)
{
    const sim_chunk *ch = &t->v.chunk[b->c0];
    double o = 1.0 / p->s;
    ipt q[SIM_ROPE_CHUNKS];
    for (int i = 0; i < b->nc && i < SIM_ROPE_CHUNKS; i++) q[i] = at(p, ch[i].x, ch[i].y);
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i + 1 < b->nc && i + 1 < SIM_ROPE_CHUNKS; i++) {
            const sim_chunk *a = &ch[i], *z = &ch[i + 1];
            if (pass == 0) capsule_at(p, q[i], q[i + 1], a->r + o, z->r + o, C_INK);
            else if (pass == 1) capsule_at(p, q[i], q[i + 1], a->r, z->r, C_ROPE);
            else w_capsule(p, a->x, a->y - a->r * 0.4, z->x, z->y - z->r * 0.4, a->r * 0.3, z->r * 0.3, C_ROPE_L);
        }
    }
    /* Twist marks across the strands. */
    for (int i = 0; i < b->nc; i++)
        w_disc(p, ch[i].x + ch[i].r * 0.3, ch[i].y + ch[i].r * 0.2, ch[i].r * 0.25, C_ROPE_D);
}

/* ---- the x-ray -------------------------------------------------------------------------------------- */
static uint8_t limb_colour(int state)
{
    switch (state) {
    case LIMB_PLANTED: return C_X_PLANTED;
    case LIMB_SWINGING: return C_X_SWING;
    case LIMB_DANGLING: return C_X_DANGLE;
    default: return C_X_TUCK;
    }
}

static void draw_xray(const pen *p, const terra_world *t)
{
    const sim_verlet *v = &t->v;
    for (int l = 0; l < v->nlink; l++) {
        const sim_link *k = &v->link[l];
        uint8_t c = k->stiff >= 1.0 ? C_X_BONE : k->stiff >= 0.5 ? C_X_SOFT : C_X_WEAK;
        w_line(p, v->chunk[k->a].x, v->chunk[k->a].y, v->chunk[k->b].x, v->chunk[k->b].y, c);
    }
    for (int b = 0; b < v->nbody; b++) {
        const sim_body *bd = &v->body[b];
        uint8_t c = bd->kind == BODY_LIZARD ? C_X_LIZ : bd->kind == BODY_SCRAMBLER ? C_X_SCR : C_X_ROPE;
        for (int i = bd->c0; i < bd->c0 + bd->nc; i++) {
            int r = sim_snap(v->chunk[i].r * p->s);
            sim_raster_ring(p->f, px(p, v->chunk[i].x), px(p, v->chunk[i].y), r < 1 ? 1 : r, c);
        }
    }
    for (int i = 0; i < t->ncr; i++) {
        const terra_creature *c = &t->cr[i];
        const terra_species *sp = &terra_species_table[c->species];
        for (int k = 0; k < TERRA_NLIMB; k++) {
            const terra_limb *l = &c->limb[k];
            double sx, sy;
            terra__shoulder(t, c, k, &sx, &sy);
            dashed_circle(p, l->ix, l->iy, sp->comfort, C_X_COMFORT);
            put(p->f, px(p, l->ix), px(p, l->iy), C_X_IDEAL);
            w_line(p, sx, sy, l->fx, l->fy, limb_colour(l->state));
            sim_raster_rect(p->f, px(p, l->fx) - 1, px(p, l->fy) - 1, 3, 3, limb_colour(l->state));
            if (l->state == LIMB_PLANTED || l->state == LIMB_SWINGING)
                cross(p->f, px(p, l->tx), px(p, l->ty), 2, C_X_FOOT);
        }
        /* The head's angle. */
        const sim_chunk *h = &v->chunk[terra__chunk(t, c, 0)];
        w_line(p, h->x, h->y, h->x + sim_cos(c->head) * 12.0, h->y + sim_sin(c->head) * 12.0, C_X_TEXT);
    }
    for (int i = 0; i < v->npin; i++) {
        const sim_pin *pn = &v->pin[i];
        const sim_chunk *ch = &v->chunk[pn->chunk];
        w_line(p, ch->x, ch->y, pn->x, pn->y, C_X_PIN);
        cross(p->f, px(p, pn->x), px(p, pn->y), 1, C_X_PIN);
    }
    if (t->ptr_ttl > 0) {
        int x = px(p, t->ptr_x), y = px(p, t->ptr_y);
        sim_raster_line(p->f, x - 3, y, x + 3, y, C_X_NODE);
        sim_raster_line(p->f, x, y - 3, x, y + 3, C_X_NODE);
    }
    /* What each brain is doing, last, each label on its own patch of background. */
    terra_rect r[TERRA_MAX_CREATURES];
    terra__xray_labels(t, r);
    for (int i = 0; i < t->ncr; i++) {
        sim_raster_rect(p->f, r[i].x - 1, r[i].y - 1, r[i].w + 2, r[i].h + 2, C_X_BG);
        text(p->f, r[i].x, r[i].y, terra__brain_name(t->cr[i].brain), C_X_TEXT);
    }
}

/* ---- the x-ray's labels ------------------------------------------------------------------------------
 * Each creature's label (its brain's state) goes above its chest if it can; where another label
 * (or the view's title) already sits, it moves to the nearest free place on a grid of half a
 * label's width by a line, rings out from there, upward first, kept inside the frame. Two labels
 * never overlap, nor come within 3 columns or 2 rows of each other: the rings reach every place in
 * the frame, and 16 labels cannot fill it. Integer arithmetic on snapped pixels only. */
#define LABEL_LINE 7                 /* a line: 5-pixel text and 2 clear rows */

/* Too close: less than 3 clear columns or 2 clear rows between the two texts, so that two labels'
 * patches (a pixel round each) never overlap and neighbours read as two words. */
static int rects_touch(const terra_rect *a, const terra_rect *b)
{
    return !(b->x >= a->x + a->w + 3 || a->x >= b->x + b->w + 3 || b->y >= a->y + a->h + 2 ||
             a->y >= b->y + b->h + 2);
}

static void clamp_rect(terra_rect *r, int w, int h)
{
    if (r->x > w - 1 - r->w) r->x = w - 1 - r->w;
    if (r->y > h - 1 - r->h) r->y = h - 1 - r->h;
    if (r->x < 1) r->x = 1;
    if (r->y < 1) r->y = 1;
}

static int rect_free(const terra_rect *r, const terra_rect *placed, int n)
{
    for (int j = 0; j < n; j++)
        if (rects_touch(r, &placed[j])) return 0;
    return 1;
}

void terra__xray_labels(const terra_world *t, terra_rect *out)
{
    terra_rect placed[TERRA_MAX_CREATURES + 1];
    int n = 0;
    placed[n++] = (terra_rect){ 3, 3, 4 * 4 - 1, 5 };          /* the title, XRAY */
    for (int i = 0; i < t->ncr; i++) {
        const terra_creature *c = &t->cr[i];
        const sim_chunk *ch = &t->v.chunk[terra__chunk(t, c, 1)];
        int len = (int)strlen(terra__brain_name(c->brain));
        terra_rect want = { sim_snap(ch->x * t->scale) - 2 * len, sim_snap((ch->y - 22.0) * t->scale),
                            4 * len - 1, 5 };
        int step_x = 2 * len + 1, rings = t->w / step_x + t->h / LABEL_LINE + 2;
        terra_rect got = want;
        clamp_rect(&got, t->w, t->h);
        for (int ring = 1; !rect_free(&got, placed, n) && ring <= rings; ring++) {
            int found = 0;
            for (int b = -ring; b <= ring && !found; b++)
                for (int k = 0; k <= 2 * ring && !found; k++) {
                    int a = k & 1 ? -(k + 1) / 2 : k / 2;          /* 0, −1, 1, −2, 2, … */
                    if ((a < 0 ? -a : a) != ring && (b < 0 ? -b : b) != ring) continue;
                    terra_rect r = { want.x + a * step_x, want.y + b * LABEL_LINE, want.w, want.h };
                    clamp_rect(&r, t->w, t->h);
                    if (rect_free(&r, placed, n)) {
                        got = r;
                        found = 1;
                    }
                }
        }
        out[i] = got;
        placed[n++] = got;
    }
}

/* ---- render ----------------------------------------------------------------------------------------- */
/* Shadows, ropes and creatures over a room already in p's frame. */
static void draw_world(const pen *p, const terra_world *t)
{
    for (int i = 0; i < t->ncr; i++) draw_shadow(p, t, &t->cr[i]);
    for (int b = 0; b < t->v.nbody; b++)
        if (t->v.body[b].kind == BODY_ROPE) draw_rope(p, t, &t->v.body[b]);
    for (int i = 0; i < t->ncr; i++) draw_creature(p, t, &t->cr[i]);
}

/* The homage (seed 001's 13 fps renderer, less its timing, which is the stream's every=3): the
 * world drawn into a canvas at a third of the resolution, then blitted back at 3× with no
 * smoothing, each canvas pixel a 3×3 block (the last column and row of blocks clipped). Drawn at
 * that size, a 1-pixel pole is a pole, where sampling the full frame at every third column would
 * lose it. The canvas is the frame's own first hw·hh bytes, spread out in place from the last
 * pixel back: every block lands at or past the canvas pixel it comes from, and past every canvas
 * pixel still to be read, so nothing is overwritten before it is used. */
static void draw_homage(const terra_world *t, sim_frame *f)
{
    const int k = HOMAGE_DIV, hw = t->hw, hh = t->hh;
    sim_frame c = *f;
    c.w = (uint16_t)hw;
    c.h = (uint16_t)hh;
    memcpy(c.px, t->homage_px, (size_t)hw * (size_t)hh);
    pen p = { &c, t->scale / k, 1 };
    draw_world(&p, t);
    for (int y = hh - 1; y >= 0; y--)
        for (int x = hw - 1; x >= 0; x--) {
            uint8_t v = f->px[(size_t)y * hw + (size_t)x];
            for (int dy = k - 1; dy >= 0; dy--) {
                int yy = y * k + dy;
                if (yy >= f->h) continue;
                uint8_t *row = f->px + (size_t)yy * f->w;
                for (int dx = k - 1; dx >= 0; dx--)
                    if (x * k + dx < f->w) row[x * k + dx] = v;
            }
        }
}

void terra__render(const terra_world *t, const sim_ctx *ctx, int view, sim_frame *f)
{
    (void)ctx;
    f->pal = t->pal;
    if (f->w != t->w || f->h != t->h) return;            /* the world's frame size only */
    pen p = { f, t->scale, 0 };
    if (view == TERRA_VIEW_XRAY) {
        memcpy(f->px, t->xray_px, (size_t)t->w * (size_t)t->h);
        draw_xray(&p, t);
        return;
    }
    if (view == TERRA_VIEW_HOMAGE) {
        draw_homage(t, f);
        return;
    }
    memcpy(f->px, t->room_px, (size_t)t->w * (size_t)t->h);
    draw_world(&p, t);
}
