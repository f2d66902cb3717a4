/* render.c — the palette and the frame of the falling-sand world: per-element colour ramps, the
 * position-only shade noise, the brick bond of walls, and the renderer. */
#include "big.h"
#include "picture.h"

typedef struct ramp {
    uint8_t n;
    uint8_t rgb[5][3];
} ramp;

/* Hand-picked ramps, dark to light; each element gets a few shades so piles read as grain. */
static const ramp RAMPS[SAND_NELEMENTS] = {
    [SAND_EMPTY] = { 2, { { 14, 13, 24 }, { 17, 16, 29 } } },
    [SAND_WALL] = { 4, { { 46, 44, 62 }, { 60, 58, 80 }, { 70, 68, 92 }, { 32, 30, 44 } } },
    [SAND_STONE] = { 4, { { 92, 90, 96 }, { 110, 106, 112 }, { 128, 124, 128 }, { 78, 76, 84 } } },
    [SAND_SAND] = { 4, { { 218, 184, 110 }, { 232, 200, 128 }, { 204, 168, 96 }, { 240, 214, 150 } } },
    [SAND_WATER] = { 3, { { 40, 92, 196 }, { 48, 104, 212 }, { 58, 118, 224 } } },
    [SAND_OIL] = { 3, { { 66, 40, 52 }, { 78, 48, 60 }, { 90, 58, 66 } } },
    [SAND_ACID] = { 3, { { 96, 220, 64 }, { 120, 236, 80 }, { 80, 200, 56 } } },
    [SAND_LAVA] = { 4, { { 250, 120, 30 }, { 232, 84, 24 }, { 255, 170, 50 }, { 208, 60, 20 } } },
    [SAND_WOOD] = { 3, { { 120, 78, 44 }, { 138, 92, 52 }, { 104, 66, 38 } } },
    [SAND_ICE] = { 3, { { 170, 224, 240 }, { 190, 236, 248 }, { 150, 208, 232 } } },
    [SAND_FIRE] = { 5, { { 255, 248, 200 }, { 255, 220, 90 }, { 255, 150, 40 }, { 220, 70, 30 },
                         { 140, 34, 24 } } },
    [SAND_SMOKE] = { 3, { { 58, 56, 62 }, { 70, 68, 74 }, { 84, 82, 88 } } },
    [SAND_STEAM] = { 3, { { 180, 188, 200 }, { 200, 206, 216 }, { 160, 168, 184 } } },
    [SAND_GAS] = { 2, { { 72, 92, 52 }, { 86, 108, 60 } } },
};
static const uint8_t EMBERS[4][3] = { { 255, 120, 40 }, { 200, 70, 30 }, { 150, 50, 26 },
                                      { 255, 180, 70 } };

static void build_palette(sand_world *s)
{
    uint8_t base[SAND_NELEMENTS];
    int n = 0;
    for (int e = 0; e < SAND_NELEMENTS; e++) {
        base[e] = (uint8_t)n;
        for (int k = 0; k < RAMPS[e].n; k++, n++)
            memcpy(&s->pal.rgb[n * 3], RAMPS[e].rgb[k], 3);
    }
    for (int k = 0; k < 4; k++, n++) memcpy(&s->pal.rgb[n * 3], EMBERS[k], 3);   /* last 4 */
    s->pal.count = (uint16_t)n;
    s->pal.version = 1;
    for (int e = 0; e < SAND_NELEMENTS; e++)
        for (int v = 0; v < 256; v++) s->lut[e][v] = (uint8_t)(base[e] + v % RAMPS[e].n);
}

/* At create time: the shade noise, the palette and its lookup table, and the per-position colours
 * of walls and of empty air (and, for the demo, the leaves). Needs s->w, s->h and the noise,
 * wallpx, airpx and leafpx buffers. */
static void picture_init(sand_world *s);

void sim__sand_render_init(sand_world *s)
{
    /* Shade noise depends on position only (not the seed): the same pile looks the same. */
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            s->noise[y * s->w + x] = (uint8_t)(sim_hash_cell(0x5eed, 0, x, y, 0) >> 24);
    build_palette(s);
    if (s->scene == SCENE_DEMO) {
        /* its own palette; the lookup table above goes unused */
        if (sim__sand_is_big(s)) sim__sand_big_picture(s);
        else picture_init(s);
        return;
    }
    /* Walls get a brick bond: 6-pixel courses, 12-pixel bricks, offset every other course. */
    int wall_base = s->lut[SAND_WALL][0];
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            int mortar = (y % 6 == 5) || ((x + ((y / 6) & 1) * 6) % 12 == 11);
            s->wallpx[y * s->w + x] = (uint8_t)(mortar ? wall_base + 3 : wall_base + s->noise[y * s->w + x] % 3);
            s->airpx[y * s->w + x] = s->lut[SAND_EMPTY][s->noise[y * s->w + x]];
        }
}

void sim__sand_frame_size(const void *impl, int *w, int *h)
{
    const sand_world *s = impl;
    *w = s->w;
    *h = s->h;
}

/* Static matter takes a stable shade from its position, so a settled pile never shimmers; walls
 * get a brick bond; fire runs through its ramp by age with a flicker; lava and embers glow. The
 * colour of cell c (not 0) at (x, y) in the bench and empty scenes at tick `tick` (tb: its
 * sim_hash_tick); *due becomes the tick from which it is drawn otherwise with no change to any
 * cell (0: never). */
static inline int plain_px(const sand_world *s, uint64_t tick, uint64_t tb, int x, int y,
                           uint32_t c, uint64_t *due)
{
    int e = CELL_EL(c), nz = s->noise[y * s->w + x];
    switch (e) {
    case SAND_FIRE: {
        int life = CELL_LIFE(c);
        int k = life > 24 ? 0 : life > 16 ? 1 : life > 9 ? 2 : life > 4 ? 3 : 4;
        if ((sim_hash_at(tb, x, y, 9) & 3u) == 0 && k < 4) k++;
        *due = tick + 1;
        return s->lut[SAND_FIRE][0] + k;
    }
    case SAND_LAVA:
        *due = tick + 6 - tick % 6;     /* when tick / 6 moves on */
        return s->lut[SAND_LAVA][0] + ((nz + (int)((tick / 6) & 3u)) & 3);   /* (a loaded world may be at any tick) */
    case SAND_WOOD:
        if (CELL_FLAGS(c) & SAND_F_BURNING) {
            *due = tick + 1;
            return s->pal.count - 4 + (int)(sim_hash_at(tb, x, y, 10) & 3u);   /* embers */
        }
        return s->lut[e][(nz & 0xF0u) | (uint8_t)(x % 3)];
    case SAND_WALL:
        return s->wallpx[y * s->w + x];
    default:
        return s->lut[e][nz];           /* most pixels are a table lookup */
    }
}

/* Row y of the bench and empty scenes, columns x0..x1: all of them, or only those of the set
 * `part` (bit x - x0) when it is not 0. */
static void plain_row(const sand_world *s, const sim_ctx *ctx, sim_frame *f, int x0, int x1, int y,
                      unsigned part)
{
    uint64_t tb = sim_hash_tick(ctx->seed, ctx->tick);
    const uint32_t *row = &s->cells[y];     /* cell (x, y) is row[x * cs] */
    const size_t cs = (size_t)s->cs;
    const uint8_t *air = &s->airpx[y * s->w];
    uint8_t *out = &f->px[y * f->w];
    row_notes notes = notes_for(y);
    /* Empty air is most of a frame: copy its row of shades, then draw only matter. */
    if (!part) memcpy(out + x0, air + x0, (size_t)(x1 - x0 + 1));
    for (int x = x0; x <= x1; x++) {
        if (part && !(part >> (x - x0) & 1u)) continue;
        uint64_t due = 0;
        uint32_t c = row[(size_t)x * cs];
        if (c) out[x] = (uint8_t)plain_px(s, ctx->tick, tb, x, y, c, &due);
        else if (part) out[x] = air[x];
        if (due || part) note_px(s, &notes, x, due);
    }
    sim__sand_notes_put(s, &notes);
}

/* The bench and empty scenes' pixels (a sand_painter): each depends on its own cell alone (and
 * on the tick for fire, lava and embers), so what is asked for is what is drawn. */
static uint64_t plain_paint(const sand_world *s, const sim_ctx *ctx, sim_frame *f, int x0, int x1,
                            const uint16_t *cols, const uint16_t *chg, const uint64_t *need)
{
    if (!cols) {
        for (int y = 0; y < s->h; y++) plain_row(s, ctx, f, x0, x1, y, 0);
        return (uint64_t)(x1 - x0 + 1) * (uint64_t)s->h;
    }
    unsigned all = (1u << (x1 - x0 + 1)) - 1;
    uint64_t drawn = 0;
    for (int y = sim__sand_next_row(need, s->h, 0); y < s->h; y = sim__sand_next_row(need, s->h, y + 1)) {
        plain_row(s, ctx, f, x0, x1, y, cols[y] == all ? 0 : cols[y]);
        for (unsigned m = cols[y]; m; m &= m - 1) drawn++;
    }
    return drawn;
}

/* ---- the demo's picture (issue 13) --------------------------------------------------------------
 * The demo scene is a landscape at dusk, so it is drawn as one: a dithered sky with a setting sun,
 * far hills and clouds behind the empty air; rock as strata under grass and snow; and every
 * material with a texture from its position, its depth below the material's own surface, its
 * speed and its age. Only per-cell counter hashes and the tick make it move (the ripples of water,
 * the flow of lava, the flicker of fire): no clock, and the same state always gives the same
 * frame. The bench and empty scenes keep the renderer above, pixel for pixel. */


static const uint8_t PICTURE[Q_COUNT][3] = {
    /* sky, top to horizon: indigo to rose to gold */
    [Q_SKY0] = { 22, 20, 54 },   [Q_SKY1] = { 40, 32, 84 },   [Q_SKY2] = { 72, 48, 112 },
    [Q_SKY3] = { 124, 68, 124 }, [Q_SKY4] = { 184, 92, 112 }, [Q_SKY5] = { 228, 132, 100 },
    [Q_SKY6] = { 248, 184, 120 },
    [Q_SUN0] = { 255, 220, 140 }, [Q_SUN1] = { 255, 244, 200 }, [Q_STAR] = { 214, 212, 244 },
    [Q_HILLF] = { 150, 80, 122 }, [Q_HILLN] = { 98, 56, 106 },
    [Q_CLOUD0] = { 250, 168, 126 }, [Q_CLOUD1] = { 152, 82, 122 },
    [Q_CAVE0] = { 24, 17, 25 },  [Q_CAVE1] = { 33, 24, 32 },  [Q_CAVE2] = { 43, 31, 40 },
    /* earth: warm strata, soil and grass */
    [Q_E0] = { 52, 36, 40 },     [Q_E1] = { 68, 48, 48 },     [Q_E2] = { 86, 60, 54 },
    [Q_E3] = { 104, 74, 60 },    [Q_E4] = { 128, 92, 70 },    [Q_E5] = { 36, 25, 30 },
    [Q_SOIL] = { 92, 62, 44 },   [Q_G0] = { 44, 88, 50 },     [Q_G1] = { 72, 124, 56 },
    [Q_G2] = { 126, 168, 74 },
    /* mountain granite and snow */
    [Q_M0] = { 58, 56, 78 },     [Q_M1] = { 78, 76, 98 },     [Q_M2] = { 100, 98, 120 },
    [Q_M3] = { 128, 124, 144 },  [Q_M4] = { 42, 40, 60 },     [Q_SN0] = { 240, 240, 252 },
    [Q_SN1] = { 204, 210, 236 },
    [Q_SA0] = { 248, 216, 146 }, [Q_SA1] = { 234, 188, 114 }, [Q_SA2] = { 214, 162, 92 },
    [Q_SA3] = { 188, 134, 76 },  [Q_SA4] = { 158, 108, 64 },
    [Q_W0] = { 16, 36, 86 },     [Q_W1] = { 24, 54, 118 },    [Q_W2] = { 34, 78, 152 },
    [Q_W3] = { 52, 110, 182 },   [Q_W4] = { 100, 158, 214 },  [Q_W5] = { 190, 220, 244 },
    [Q_FOAM0] = { 222, 238, 250 }, [Q_FOAM1] = { 150, 196, 234 },
    [Q_O0] = { 26, 16, 30 },     [Q_O1] = { 42, 28, 46 },     [Q_O2] = { 92, 58, 116 },
    [Q_O3] = { 56, 96, 108 },
    [Q_L0] = { 255, 242, 168 },  [Q_L1] = { 255, 190, 64 },   [Q_L2] = { 244, 114, 32 },
    [Q_L3] = { 190, 56, 26 },    [Q_L4] = { 108, 30, 26 },
    [Q_I0] = { 226, 248, 255 },  [Q_I1] = { 180, 228, 246 },  [Q_I2] = { 136, 194, 234 },
    [Q_I3] = { 102, 158, 212 },  [Q_I4] = { 72, 116, 180 },
    [Q_B0] = { 98, 62, 42 },     [Q_B1] = { 70, 44, 34 },     [Q_B2] = { 124, 84, 54 },
    [Q_F0] = { 22, 54, 40 },     [Q_F1] = { 34, 82, 48 },     [Q_F2] = { 56, 112, 54 },
    [Q_F3] = { 94, 146, 62 },    [Q_F4] = { 156, 178, 80 },
    [Q_FIRE0] = { 255, 248, 200 }, [Q_FIRE1] = { 255, 220, 90 }, [Q_FIRE2] = { 255, 150, 40 },
    [Q_FIRE3] = { 220, 70, 30 }, [Q_FIRE4] = { 140, 34, 24 },
    [Q_EMB0] = { 255, 120, 40 }, [Q_EMB1] = { 200, 70, 30 }, [Q_EMB2] = { 150, 50, 26 },
    [Q_EMB3] = { 255, 180, 70 },
    [Q_SM0] = { 62, 56, 68 },    [Q_SM1] = { 92, 84, 96 },
    [Q_STM0] = { 228, 232, 242 }, [Q_STM1] = { 186, 194, 214 },
    [Q_GAS0] = { 104, 136, 70 }, [Q_GAS1] = { 134, 166, 86 },
    [Q_ST0] = { 74, 70, 80 },    [Q_ST1] = { 56, 52, 62 },    [Q_ST2] = { 96, 90, 100 },
    [Q_AC0] = { 120, 232, 80 },  [Q_AC1] = { 84, 196, 64 },   [Q_AC2] = { 200, 255, 150 },
};

void sim__sand_picture_palette(sim_palette *pal)
{
    for (int k = 0; k < Q_COUNT; k++) memcpy(&pal->rgb[k * 3], PICTURE[k], 3);
    pal->count = Q_COUNT;
    pal->version = 1;
}

/* The backdrop behind empty air at plan (px, py): sky, sun, clouds, hills; or a cave's back wall.
 * gr[k] is sim__sand_demo_ground(px - 1 + k), k = 0..2: the column and its neighbours. */
static int backdrop(int px, int py, int x, int y, const int *gr)
{
    if (py >= gr[1] || (px >= 63 && px <= 69 && py == 43)) return cave_wall(px, py, x, y);
    int b = BAYER[y & 3][x & 3];
    /* Far and near hills against the horizon. */
    int hn = 122 - tri(px + 20, 70, 12) - tri(px + 5, 26, 3);
    int hf = 108 - tri(px, 110, 22) - tri(px + 31, 38, 5);
    if (py >= hn) return Q_HILLN;
    if (py >= hf) return Q_HILLF;
    /* The sun, low behind the dunes, cut by the bands of a retro sunset. */
    int dx = px - 206, dy = py - 98;
    if (dx * dx + dy * dy < 15 * 15) {
        if (py > 96 && (py - 96) % 4 == 3) return Q_SKY6;
        return dx * dx + dy * dy < 10 * 10 ? Q_SUN1 : Q_SUN0;
    }
    /* Long thin clouds, lit from below. */
    static const int16_t CLOUDS[][4] = { { 100, 42, 44, 3 }, { 236, 30, 34, 2 }, { 30, 22, 26, 2 },
                                         { 160, 70, 30, 2 }, { 290, 54, 22, 2 } };
    for (int k = 0; k < 5; k++) {
        int cx = px - CLOUDS[k][0], cy = py - CLOUDS[k][1], rx = CLOUDS[k][2], ry = CLOUDS[k][3];
        rx -= (int)(phash(py, k, 3) % 6u);
        if (cx * cx * ry * ry + cy * cy * rx * rx < rx * rx * ry * ry)
            return cy >= 0 ? Q_CLOUD0 : Q_CLOUD1;
    }
    int band = (py * 96 / 124 + b) / 16;
    if (band > 6) band = 6;
    if (band <= 1 && phash(x, y, 4) % 89u == 0) return Q_STAR;
    return Q_SKY0 + band;
}

/* A rock pixel at plan (px, py): granite and snow on the mountain, strata under grass elsewhere;
 * a dark rim where it meets a cave, a lit edge where it faces the sky sideways. */
static int rock(int px, int py, int x, int y, const int *gr)
{
    int g = gr[1], d = py - g;
    uint32_t h = phash(x, y, 5);
    if (d < 0) d = 8 + (py - 40);           /* the shelf over the spring: plain rock */
    int cave_rim = sim__sand_demo_cave(px, py - 1) || sim__sand_demo_cave(px, py + 1) ||
                   sim__sand_demo_cave(px - 1, py) || sim__sand_demo_cave(px + 1, py);
    int sky_side = py < gr[0] || py < gr[2];
    if (px >= 247) {
        if (d <= 1 && py < 110) return snow(d, h);
        if (cave_rim) return Q_M4;
        if (sky_side) return Q_M3;
        return granite(px, py, h);
    }
    if (cave_rim) return Q_E5;
    int grassy = g < 118;
    if (grassy && d <= 2) return grass(d, h);
    if (sky_side) return Q_E4;
    if (d <= 4 + (int)(h % 3u)) return Q_SOIL;
    int q = strata(px, py);
    if (py > 150 && BAYER[y & 3][x & 3] < (py - 150) / 2) q = q == Q_E4 ? Q_E3 : q == Q_E3 ? Q_E2 : Q_E1;
    return speckle(q, h);
}

static void picture_init(sand_world *s)
{
    sim__sand_picture_palette(&s->pal);
    /* The ground line by plan column, -1..320 (px runs 0..319): asked for at every pixel. */
    int ground[322];
    for (int k = 0; k < 322; k++) ground[k] = sim__sand_demo_ground(k - 1);
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            int px = x * 320 / s->w, py = y * 180 / s->h, i = y * s->w + x;
            s->airpx[i] = (uint8_t)backdrop(px, py, x, y, &ground[px]);
            s->wallpx[i] = (uint8_t)rock(px, py, x, y, &ground[px]);
            s->leafpx[i] = sim__sand_demo_leaf(px, py) ? leaf_shade(x, y) : 0;
        }
}

/* Smoke, steam and gas are drawn over the backdrop in an ordered dither whose density is the
 * gas's age: thin when it is about to vanish. */
static inline uint8_t veil(int density, int x, int y, uint8_t colour, uint8_t behind)
{
    return BAYER[y & 3][x & 3] < density ? colour : behind;
}

/* The picture tells depths below a material's surface apart up to 30 (sand's shade at the foot
 * of a pile; water's deepest band starts at 28): it draws any depth from DEPTH_SEEN on alike. */
#define DEPTH_SEEN 32
/* Falling water blurs at most this many cells above it (foam_above); wood looks one cell down. */
#define FOAM_REACH 4

/* Motion blur behind a drop of falling water at (x, y) (vy > 0): it passed through the empty
 * cells above it this tick, up to vy of them and at most FOAM_REACH, through cells that hold
 * nothing at all (a cell of empty element that holds anything else is drawn blurred, but stops
 * the trail). The rows above are drawn already; this repaints them. Said from the empty cell's
 * side: it is foam when the first non-zero cell within 4 below it is water falling at least as
 * fast as its distance — so a repaint is always that pixel's final colour. A render by change
 * needs nothing more: falling water flickers with the tick, so every render at a later tick
 * draws it again, after the rows above it, and repaints the blur over whatever of them it drew. */
static void foam_above(const sand_world *s, sim_frame *f, int x, int y, int vy)
{
    for (int k = 1; k <= vy && k <= FOAM_REACH && y - k >= 0; k++) {
        uint32_t u = s->cells[cidx(s, x, y - k)];
        if (CELL_EL(u) == SAND_EMPTY) f->px[(y - k) * f->w + x] = Q_FOAM1;
        if (u) break;
    }
}

/* Elements whose pixels depend on their depth below their own surface. */
static const uint8_t BY_DEPTH[SAND_NELEMENTS] = {
    [SAND_SAND] = 1, [SAND_WATER] = 1, [SAND_OIL] = 1, [SAND_LAVA] = 1, [SAND_ICE] = 1,
    [SAND_WOOD] = 1, [SAND_STONE] = 1, [SAND_ACID] = 1,
};

/* A pixel's depth key (sand_redraw.keys) is its depth, at most DEPTH_SEEN: with its cell, all it
 * takes from the cells above it. Kept for the pixels of elements drawn by depth alone (the key of
 * any other is never read), as they were last drawn. */
_Static_assert(DEPTH_SEEN < 256, "a depth key is a byte");

/* The picture's time is t = tick mod PICTURE_T; its slow motions (glints, caustics, the sheen,
 * the lava's flow and crusts) follow t / k for k = 5, 6, 8, 9, 14 and 90. From tick on, the tick
 * at which t / k has moved on `steps` times, or t comes round to 0 (whichever is first): a pixel
 * of one of them drawn at tick is drawn the same until then. */
#define PICTURE_T 1000000u
static uint64_t when_t_by(uint64_t tick, uint32_t t, uint32_t k, uint32_t steps)
{
    uint64_t dt = ((uint64_t)(t / k) + steps) * k - t;   /* t = tick mod PICTURE_T */
    return tick + (dt < PICTURE_T - t ? dt : PICTURE_T - t);
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The ticks the picture's moving pixels are next drawn otherwise at, from tick on (reckoned once
 * a render): those that flicker by the tick's hash, the glints (t / 6), oil's sheen (t / 8), the
 * lava's crusts (t / 90); the lava's flow by (x + t / 9) mod 3 and by (y + t / 14) mod 2; the
 * caustics by (x + 3y + t / 5) mod 37. */
typedef struct picture_due {
    uint64_t next, t6, t8, t90;
    uint64_t flow9[3], flow14[2];   /* the flow moves on with (x + t/9) / 3, (y + t/14) / 2 */
    uint64_t caustic[37];           /* one lights for a step of t / 5 in 37: when it goes out
                                       ([0]) or next lights ([a]) */
} picture_due;

static void picture_due_at(picture_due *d, uint64_t tick, uint32_t t)
{
    d->next = tick + 1;
    d->t6 = when_t_by(tick, t, 6, 1);
    d->t8 = when_t_by(tick, t, 8, 1);
    d->t90 = when_t_by(tick, t, 90, 1);
    for (uint32_t r = 0; r < 3; r++) d->flow9[r] = when_t_by(tick, t, 9, 3 - r);
    for (uint32_t r = 0; r < 2; r++) d->flow14[r] = when_t_by(tick, t, 14, 2 - r);
    for (uint32_t a = 0; a < 37; a++) d->caustic[a] = when_t_by(tick, t, 5, a ? 37 - a : 1);
}

/* The depth key of a pixel at that depth. */
static inline int depth_key(int depth) { return depth < DEPTH_SEEN ? depth : DEPTH_SEEN; }

/* The least depth (at most DEPTH_SEEN) that a pixel of element e draws alike with depth d: what
 * picture_px tells apart, and no more (a water surface that rises a cell changes the depth of
 * every cell under it, and the colour of a few). */
static int depth_class(int e, int d)
{
    switch (e) {
    case SAND_SAND: return d == 0 ? 0 : d <= 8 ? 1 : d <= 14 ? 9 : d < 30 ? d : 30;
    case SAND_WATER: return d < 2 ? d : d < 7 ? 2 : d < 16 ? 7 : d < 28 ? 16 : 28;
    case SAND_LAVA: return d == 0 ? 0 : d <= 2 ? 1 : 3;
    case SAND_ICE: return d < 2 ? d : d < 5 ? 2 : d < 10 ? 5 : 10;
    case SAND_WOOD: return d == 0 ? 0 : d <= 10 ? 1 : 11;
    default: return d > 0;              /* oil, stone, acid: at the surface or under it */
    }
}

/* What the picture's pixels take from the tick. */
typedef struct picture_now {
    uint64_t tb;                    /* sim_hash_tick */
    int t;                          /* tick mod PICTURE_T */
    const picture_due *due;
} picture_now;

/* Row y of the picture's per-position colours (taken once a row: a byte written anywhere could
 * be any of them, for all the compiler knows). */
typedef struct picture_rowp {
    const uint8_t *nz, *air, *lf;
} picture_rowp;

/* The colour of cell c, of element e (neither empty nor wall), at (x, y), depth rows under its
 * material's surface (any depth from DEPTH_SEEN on draws alike); *due becomes the tick from
 * which it is drawn otherwise with no change to any cell (0: never). crust: the row's cache of
 * lava crusts. */
static inline int picture_px(const sand_world *s, const picture_now *now, const picture_rowp *rp,
                             sim_frame *f, int x, int y, uint32_t c, int e, int depth, int *crust,
                             uint64_t *due)
{
    int nz = rp->nz[x], b = BAYER[y & 3][x & 3], t = now->t, q;
    switch (e) {
    case SAND_SAND:
        if (depth == 0) q = Q_SA0;
        else if (CELL_VY(c) > 0) q = Q_SA1;
        else if ((x + 2 * y + (nz & 3)) % 11 == 0) q = Q_SA3;                /* ripples */
        else q = (nz >> 6) == 0 ? Q_SA2 : (nz >> 6) == 3 && depth > 8 ? Q_SA3 : Q_SA1;
        if (depth > 14 && b < depth - 14 && q < Q_SA4) q++;                 /* shade at the foot */
        return q;
    case SAND_WATER:
        if (CELL_VY(c) > 0) {
            foam_above(s, f, x, y, CELL_VY(c));
            *due = now->due->next;
            return (sim_hash_at(now->tb, x, y, 11) & 3u) ? Q_FOAM1 : Q_FOAM0;
        }
        if (depth == 0) {
            *due = now->due->t6;
            return ((x * 7 + t / 6) % 23 < 3) ? Q_W5 : Q_W4;                  /* glints drift */
        } else {
            int lv = depth < 2 ? 0 : depth < 7 ? 1 : depth < 16 ? 2 : depth < 28 ? 3 : 4;
            int next = lv < 4 ? lv + 1 : 4;
            static const uint8_t WD[5] = { Q_W4, Q_W3, Q_W2, Q_W1, Q_W0 };
            q = WD[(nz & 15) < b ? lv : next];
            if (lv >= 1 && lv <= 2) {
                int a = (x + 3 * y + t / 5) % 37;
                if (a == 0) q = Q_W4;
                *due = now->due->caustic[a];
            }
            return q;
        }
    case SAND_OIL:
        if (depth == 0) {
            *due = now->due->t8;
            return ((x / 3 + t / 8) & 1) ? Q_O2 : Q_O3;                         /* the sheen */
        }
        return (nz & 3) ? Q_O0 : Q_O1;
    case SAND_LAVA: {
        if (depth == 0) {
            *due = now->due->next;
            return (sim_hash_at(now->tb, x, y, 12) & 3u) ? Q_L0 : Q_L1;
        }
        int k = ((x + t / 9) / 3 + (y + t / 14) / 2 + (nz >> 6)) & 7;
        static const uint8_t LV[8] = { Q_L0, Q_L1, Q_L1, Q_L2, Q_L2, Q_L2, Q_L3, Q_L1 };
        q = LV[k];
        *due = min64(now->due->flow9[(x + t / 9) % 3], now->due->flow14[(y + t / 14) % 2]);
        if (depth > 2) {
            /* Crusts on blocks of 4 × 3 and 3 × 2 cells: a block's hash serves the cells of it
             * that follow along the row. */
            if (x / 4 != crust[0]) {
                crust[0] = x / 4;
                crust[1] = phash(x / 4, y / 3, (uint32_t)(t / 90)) % 9u == 0;
            }
            if (x / 3 != crust[2]) {
                crust[2] = x / 3;
                crust[3] = phash(x / 3, y / 2, (uint32_t)(t / 90) + 7) % 23u == 0;
            }
            if (crust[1]) q = Q_L3;
            if (crust[3]) q = Q_L4;
            *due = min64(*due, now->due->t90);
        }
        return q;
    }
    case SAND_ICE:
        if (depth == 0) return Q_SN0;
        if (depth == 1) return (nz & 1) ? Q_SN0 : Q_SN1;
        if ((x - y + 400) % 11 == 0) return Q_I0;                               /* facets */
        if ((x + 2 * y) % 17 == 0) return Q_I4;                                 /* cracks */
        {
            int lv = depth < 5 ? 0 : depth < 10 ? 1 : 2;
            return Q_I1 + ((nz & 15) < b && lv < 2 ? lv + 1 : lv);
        }
    case SAND_WOOD:
        if (CELL_FLAGS(c) & SAND_F_BURNING) {
            *due = now->due->next;
            return Q_EMB0 + (int)(sim_hash_at(now->tb, x, y, 10) & 3u);
        }
        if (!(CELL_FLAGS(c) & SAND_F_LOOSE) && rp->lf[x]) {
            int h = rp->lf[x] - 1;                 /* h & 1, then h % 3 (picture_init) */
            if (depth == 0) return (h & 1) ? Q_F4 : Q_F3;
            if (CELL_EL(get(s, x, y + 1)) != SAND_WOOD) return Q_F0;
            return Q_F1 + (h >> 1) - (depth > 10 && b < 8);
        }
        return x % 4 == 1 ? Q_B2 : (x % 3 == 0 || (nz & 7) == 0) ? Q_B1 : Q_B0;
    case SAND_FIRE: {
        int life = CELL_LIFE(c);
        int k = life > 24 ? 0 : life > 16 ? 1 : life > 9 ? 2 : life > 4 ? 3 : 4;
        if ((sim_hash_at(now->tb, x, y, 9) & 3u) == 0 && k < 4) k++;
        *due = now->due->next;
        return Q_FIRE0 + k;
    }
    case SAND_SMOKE: {
        int dn = CELL_LIFE(c) / 7;
        return veil(dn < 3 ? 3 : dn, x, y, (nz & 1) ? Q_SM1 : Q_SM0, rp->air[x]);
    }
    case SAND_STEAM: {
        int dn = CELL_LIFE(c) / 13;
        return veil(dn < 4 ? 4 : dn, x, y, (nz & 1) ? Q_STM1 : Q_STM0, rp->air[x]);
    }
    case SAND_GAS: return veil(7, x, y, (nz & 1) ? Q_GAS1 : Q_GAS0, rp->air[x]);
    case SAND_STONE: return depth == 0 ? Q_ST2 : (nz & 3) ? Q_ST0 : Q_ST1;
    case SAND_ACID:
        if (depth != 0) *due = now->due->next;
        return depth == 0 || sim_hash_at(now->tb, x, y, 13) % 13u == 0 ? Q_AC2 : (nz & 1) ? Q_AC0 : Q_AC1;
    default: return rp->air[x];
    }
}

/* The per-column scratch (above, top: the world's col_above and col_top, the element above and
 * the row where its run began, so that a cell's depth is y - top) carried down to cell c at
 * (x, y); its element. */
static inline int run_on(uint8_t *above, int16_t *top, int x, int y, uint32_t c)
{
    int e = CELL_EL(c);
    if (e != above[x]) {
        above[x] = (uint8_t)e;
        top[x] = (int16_t)y;
    }
    return e;
}

/* Row y, columns x0..x1, of a frame drawn whole (the per-column scratch carried down from the
 * row above): the moving pixels noted, the depth keys kept. Adds what it drew to *drawn. */
static void picture_row_whole(const sand_world *s, const picture_now *pnow, sim_frame *f, int x0,
                              int x1, int y, uint64_t *drawn)
{
    const picture_now now = *pnow;          /* locals, not reread after each byte written */
    const uint32_t *row = &s->cells[y];     /* cell (x, y) is row[x * cs] */
    const size_t cs = (size_t)s->cs;
    const picture_rowp rp = { &s->noise[y * s->w], &s->airpx[y * s->w], &s->leafpx[y * s->w] };
    const uint8_t *wp = &s->wallpx[y * s->w];
    uint8_t *key = &s->rd->keys[y * s->w];
    uint8_t *out = &f->px[y * f->w];
    uint8_t *above = s->col_above;
    int16_t *top = s->col_top;
    int crust[4] = { -1, 0, -1, 0 };        /* lava: the last blocks' x and whether crusted */
    row_notes notes = notes_for(y);
    /* Most of a frame is empty air and rock, which look only at their position: copy the row of
     * air, and let the loop below skip empty cells and copy rock. */
    memcpy(out + x0, rp.air + x0, (size_t)(x1 - x0 + 1));
    *drawn += (uint64_t)(x1 - x0 + 1);
    for (int xb = x0; xb <= x1; xb += 8) {
        int xe = xb + 8;
        if (xe <= x1 + 1) {
            /* Eight cells of bare air, or of plain rock, under more of the same: no run changes,
             * and there is nothing to draw (air) or a copy (rock). */
            const uint32_t *c8 = row + (size_t)xb * cs;
            uint32_t any = 0, notwall = 0;
            for (int i = 0; i < 8; i++) {
                uint32_t v = c8[(size_t)i * cs];
                any |= v;
                notwall |= v ^ WALL_CELL;
            }
            uint64_t ab;
            memcpy(&ab, &above[xb], sizeof ab);
            if ((any | ab) == 0) continue;
            if (ab == 0x0101010101010101ull * SAND_WALL && notwall == 0) {
                memcpy(out + xb, wp + xb, 8);
                continue;
            }
        } else {
            xe = x1 + 1;
        }
        for (int x = xb; x < xe; x++) {
            uint32_t c = row[(size_t)x * cs];
            int e = run_on(above, top, x, y, c);
            if (e == SAND_EMPTY) continue;
            if (e == SAND_WALL) {
                out[x] = wp[x];
                continue;
            }
            int depth = y - top[x];
            uint64_t due = 0;
            if (BY_DEPTH[e]) key[x] = (uint8_t)depth_key(depth);
            out[x] = (uint8_t)picture_px(s, &now, &rp, f, x, y, c, e, depth, crust, &due);
            if (due) note_px(s, &notes, x, due);
        }
    }
    sim__sand_notes_put(s, &notes);
}

/* The depth key of cell c (of element e, drawn by depth) at row y > 0 of a column, from the cell
 * above it and that one's key (current: every row above y is drawn already, this render, or was
 * as it is): a run of one element goes on, one level deeper; another starts one. */
static inline int key_under(int e, uint32_t up, uint8_t keyup)
{
    return CELL_EL(up) != e ? 0 : keyup < DEPTH_SEEN ? keyup + 1 : DEPTH_SEEN;
}

/* Row y of strip x0..x1 by change: the pixels of the set `want` (bit x - x0), and of those of
 * `look` (the cell above changed, or its key moved) the ones whose depth under their surface
 * moved so that they draw otherwise (depth_class; one that draws alike has only its key moved),
 * each as picture_row_whole draws it. `chg`: the cells of the row that changed. Returns the
 * columns the row below must look at (a cell or a key moved in them), and adds what it drew to
 * *drawn. */
static unsigned picture_row_part(const sand_world *s, const picture_now *pnow, sim_frame *f,
                                 int x0, int y, unsigned want, unsigned look, unsigned chg,
                                 uint64_t *drawn)
{
    const picture_now now = *pnow;          /* locals, not reread after each byte written */
    size_t r0 = (size_t)y * (size_t)s->w, cs = (size_t)s->cs;
    const uint32_t *row = &s->cells[y], *up = y > 0 ? row - 1 : row;    /* cell (x, y): row[x * cs] */
    uint8_t *key = &s->rd->keys[r0];
    const uint8_t *keyup = y > 0 ? key - s->w : key;
    uint8_t dk[SAND_CHUNK];                 /* the depth key of each pixel looked at */
    unsigned draw = want, moved = 0;
    for (unsigned m = want | look; m; m &= m - 1) {
        int i = __builtin_ctz(m), x = x0 + i, e = CELL_EL(row[(size_t)x * cs]);
        if (!BY_DEPTH[e]) continue;
        int d = y > 0 ? key_under(e, up[(size_t)x * cs], keyup[x]) : 0;
        dk[i] = (uint8_t)d;
        if (d == key[x]) continue;
        moved |= 1u << i;
        if (!(want >> i & 1u) && depth_class(e, d) == depth_class(e, key[x])) key[x] = (uint8_t)d;
        else draw |= 1u << i;
    }
    if (!draw) return chg | moved;
    const picture_rowp rp = { &s->noise[r0], &s->airpx[r0], &s->leafpx[r0] };
    const uint8_t *wp = &s->wallpx[r0];
    uint8_t *out = &f->px[(size_t)y * (size_t)f->w];
    int crust[4] = { -1, 0, -1, 0 };        /* lava: the last blocks' x and whether crusted */
    /* As drawn, none moves; those that do say so as they are drawn again. */
    row_notes notes = notes_for(y);
    notes.k = x0 / SAND_CHUNK;
    notes.still = (uint16_t)draw;
    uint64_t n = 0;       /* counted here: __builtin_popcount is a libgcc call without -mpopcnt */
    for (unsigned m = draw; m; m &= m - 1, n++) {
        int i = __builtin_ctz(m), x = x0 + i;
        uint32_t c = row[(size_t)x * cs];
        int e = CELL_EL(c);
        if (e == SAND_EMPTY || e == SAND_WALL) {
            out[x] = e == SAND_EMPTY ? rp.air[x] : wp[x];
            continue;
        }
        int depth = BY_DEPTH[e] ? dk[i] : 0;   /* any other draws alike at any depth */
        if (BY_DEPTH[e]) key[x] = (uint8_t)depth;
        uint64_t due = 0;
        out[x] = (uint8_t)picture_px(s, &now, &rp, f, x, y, c, e, depth, crust, &due);
        if (due) note_px(s, &notes, x, due);
    }
    sim__sand_notes_put(s, &notes);
    *drawn += n;
    return chg | moved;
}

/* The demo's pixels (a sand_painter): the whole frame, or in strip x0..x1 the columns of cols and,
 * down from them, the pixels whose depth moved, as far as it moved. */
static uint64_t picture_paint(const sand_world *s, const sim_ctx *ctx, sim_frame *f, int x0, int x1,
                              const uint16_t *cols, const uint16_t *chg, const uint64_t *need)
{
    uint32_t t = (uint32_t)(ctx->tick % PICTURE_T);
    picture_due due;
    picture_due_at(&due, ctx->tick, t);
    picture_now now = { sim_hash_tick(ctx->seed, ctx->tick), (int)t, &due };
    uint64_t drawn = 0;
    if (!cols) {
        for (int x = x0; x <= x1; x++) {    /* as if the grid had empty cells above its first row */
            s->col_above[x] = SAND_EMPTY;
            s->col_top[x] = -1;
        }
        for (int y = 0; y < s->h; y++) picture_row_whole(s, &now, f, x0, x1, y, &drawn);
        return drawn;
    }
    unsigned look = 0;
    for (int y = sim__sand_next_row(need, s->h, 0); y < s->h;) {
        look = picture_row_part(s, &now, f, x0, y, cols[y], look, chg[y], &drawn);
        y = look ? y + 1 : sim__sand_next_row(need, s->h, y + 1);
    }
    return drawn;
}

/* How many pixels above cell (x, y), changed since the last render, may have changed with it:
 * wood above it (a leaf looks one cell down), and FOAM_REACH if the blur of falling water
 * (foam_above) may have lain over them at the last render and may not now: if a drop was drawn
 * here or within the rows below whose blur reaches over them (the frame shows foam there: only
 * a drop and its blur draw it). A blur that lies over them now and did not then needs nothing:
 * the drop is drawn again this render (it flickers with the tick, or its cell changed), after
 * the rows above it, and paints it. */
static int picture_up(const sand_world *s, int x, int y)
{
    const sand_redraw *r = s->rd;
    for (int k = 0; k < FOAM_REACH && y + k < s->h; k++) {
        uint8_t q = r->px[(size_t)(y + k) * (size_t)r->fw + (size_t)x];
        if (q == Q_FOAM0 || q == Q_FOAM1) return FOAM_REACH;
    }
    return y > 0 && CELL_EL(s->cells[cidx(s, x, y - 1)]) == SAND_WOOD;
}

/* Down from a changed cell, the painter follows the depth keys. */
static const sand_painter BY_PICTURE = { picture_up, picture_paint };
static const sand_painter BY_PLAIN = { NULL, plain_paint };

void sim__sand_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *f)
{
    const sand_world *s = impl;
    sim__sand_redraw(s, ctx, view, f, s->scene == SCENE_DEMO ? &BY_PICTURE : &BY_PLAIN);
}
