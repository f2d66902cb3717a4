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
static void picture_render(const sand_world *s, const sim_ctx *ctx, sim_frame *f);

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
 * get a brick bond; fire runs through its ramp by age with a flicker; lava and embers glow. */
void sim__sand_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *f)
{
    const sand_world *s = impl;
    (void)view;
    if (s->scene == SCENE_DEMO) {
        picture_render(s, ctx, f);
        return;
    }
    f->pal = s->pal;
    uint64_t tb = sim_hash_tick(ctx->seed, ctx->tick);
    int fire_base = s->lut[SAND_FIRE][0], lava_base = s->lut[SAND_LAVA][0];
    int ember_base = s->pal.count - 4;
    /* Most pixels are a table lookup; only fire, lava, wood and wall look further. */
    static const uint8_t special[SAND_NELEMENTS] = { [SAND_FIRE] = 1, [SAND_LAVA] = 1,
                                                     [SAND_WOOD] = 1, [SAND_WALL] = 1 };
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row = &s->cells[y * s->w];
        const uint8_t *nz = &s->noise[y * s->w];
        const uint8_t *wp = &s->wallpx[y * s->w];
        uint8_t *out = &f->px[y * f->w];
        /* Empty air is most of a frame: copy its row of shades, then draw only matter. */
        memcpy(out, &s->airpx[y * s->w], (size_t)s->w);
        for (int x = 0; x < s->w; x++) {
            uint32_t c = row[x];
            if (!c) continue;
            int e = CELL_EL(c);
            if (!special[e]) {
                out[x] = s->lut[e][nz[x]];
                continue;
            }
            switch (e) {
            case SAND_FIRE: {
                int life = CELL_LIFE(c);
                int k = life > 24 ? 0 : life > 16 ? 1 : life > 9 ? 2 : life > 4 ? 3 : 4;
                if ((sim_hash_at(tb, x, y, 9) & 3u) == 0 && k < 4) k++;
                out[x] = (uint8_t)(fire_base + k);
                break;
            }
            case SAND_LAVA:
                out[x] = (uint8_t)(lava_base + ((nz[x] + (int)(ctx->tick / 6)) & 3));
                break;
            case SAND_WOOD:
                if (CELL_FLAGS(c) & SAND_F_BURNING)
                    out[x] = (uint8_t)(ember_base + (sim_hash_at(tb, x, y, 10) & 3u));
                else
                    out[x] = s->lut[e][(nz[x] & 0xF0u) | (uint8_t)(x % 3)];
                break;
            case SAND_WALL:
                out[x] = wp[x];
                break;
            default:
                out[x] = s->lut[e][nz[x]];
            }
        }
    }
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

/* Motion blur behind a drop of falling water at (x, y) (vy > 0): it passed through the empty
 * cells above it this tick, up to vy of them and at most 4, through cells that hold nothing at all
 * (a cell of empty element that holds anything else is drawn blurred, but stops the trail). The
 * rows above are drawn already; this repaints them. Said from the empty cell's side: it is foam
 * when the first non-zero cell within 4 below it is water falling at least as fast as its
 * distance. */
static void foam_above(const sand_world *s, sim_frame *f, int x, int y, int vy)
{
    for (int k = 1; k <= vy && k <= 4 && y - k >= 0; k++) {
        uint32_t u = s->cells[(y - k) * s->w + x];
        if (CELL_EL(u) == SAND_EMPTY) f->px[(y - k) * f->w + x] = Q_FOAM1;
        if (u) break;
    }
}

/* Two cells as one word (either order: only compared with zero or a word of two equal cells). */
static inline uint64_t ld64(const uint32_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void picture_render(const sand_world *s, const sim_ctx *ctx, sim_frame *f)
{
    f->pal = s->pal;
    uint64_t tb = sim_hash_tick(ctx->seed, ctx->tick);
    int t = (int)(ctx->tick % 1000000u);
    /* Per column: the element of the cell above and the row where its run of that element began,
     * so a cell's depth below its own surface is y - top (as if the grid had empty cells above
     * its first row). The world's own scratch, one entry a column (render is not part of the
     * state and runs on one thread at a time); rows fit an int16_t (SAND_H_MAX). */
    uint8_t *above = s->col_above;
    int16_t *top = s->col_top;
    memset(above, 0, (size_t)s->w);
    for (int x = 0; x < s->w; x++) top[x] = -1;
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row = &s->cells[y * s->w];
        const uint8_t *nz = &s->noise[y * s->w];
        const uint8_t *air = &s->airpx[y * s->w];
        const uint8_t *wp = &s->wallpx[y * s->w];
        const uint8_t *lf = &s->leafpx[y * s->w];
        uint8_t *out = &f->px[y * f->w];
        int crust[4] = { -1, 0, -1, 0 };    /* lava: the last blocks' x and whether crusted */
        /* Most of a frame is empty air and rock, which look only at their position: copy the
         * row of air, and let the loop below skip empty cells and copy rock. */
        memcpy(out, air, (size_t)s->w);
        for (int xb = 0; xb < s->w; xb += 8) {
            int xe = xb + 8;
            if (xe <= s->w) {
                /* Eight cells of bare air, or of plain rock, under more of the same: no run
                 * changes, and there is nothing to draw (air) or a copy (rock). Two cells a
                 * word. */
                const uint64_t wall2 = (uint64_t)WALL_CELL * 0x100000001ull;
                uint64_t c0 = ld64(row + xb), c1 = ld64(row + xb + 2), c2 = ld64(row + xb + 4),
                         c3 = ld64(row + xb + 6), ab;
                memcpy(&ab, &above[xb], sizeof ab);
                if ((c0 | c1 | c2 | c3 | ab) == 0) continue;
                if (ab == 0x0101010101010101ull * SAND_WALL &&
                    ((c0 ^ wall2) | (c1 ^ wall2) | (c2 ^ wall2) | (c3 ^ wall2)) == 0) {
                    memcpy(out + xb, wp + xb, 8);
                    continue;
                }
            } else {
                xe = s->w;
            }
            for (int x = xb; x < xe; x++) {
                uint32_t c = row[x];
                int e = CELL_EL(c);
                if (e != above[x]) {
                    above[x] = (uint8_t)e;
                    top[x] = (int16_t)y;
                }
                if (e == SAND_EMPTY) continue;
                if (e == SAND_WALL) {
                    out[x] = wp[x];
                    continue;
                }
                int depth = y - top[x];
                int b = BAYER[y & 3][x & 3];
                int q;
                switch (e) {
                case SAND_SAND:
                    if (depth == 0) q = Q_SA0;
                    else if (CELL_VY(c) > 0) q = Q_SA1;
                    else if ((x + 2 * y + (nz[x] & 3)) % 11 == 0) q = Q_SA3;      /* ripples */
                    else q = (nz[x] >> 6) == 0 ? Q_SA2 : (nz[x] >> 6) == 3 && depth > 8 ? Q_SA3 : Q_SA1;
                    if (depth > 14 && b < depth - 14 && q < Q_SA4) q++;           /* shade at the foot */
                    break;
                case SAND_WATER:
                    if (CELL_VY(c) > 0) {
                        q = (sim_hash_at(tb, x, y, 11) & 3u) ? Q_FOAM1 : Q_FOAM0;
                        foam_above(s, f, x, y, CELL_VY(c));
                    } else if (depth == 0) {
                        q = ((x * 7 + t / 6) % 23 < 3) ? Q_W5 : Q_W4;             /* glints drift */
                    } else {
                        int lv = depth < 2 ? 0 : depth < 7 ? 1 : depth < 16 ? 2 : depth < 28 ? 3 : 4;
                        int next = lv < 4 ? lv + 1 : 4;
                        static const uint8_t WD[5] = { Q_W4, Q_W3, Q_W2, Q_W1, Q_W0 };
                        q = WD[(nz[x] & 15) < b ? lv : next];
                        if (lv >= 1 && lv <= 2 && (x + 3 * y + t / 5) % 37 == 0) q = Q_W4;  /* caustics */
                    }
                    break;
                case SAND_OIL:
                    if (depth == 0) q = ((x / 3 + t / 8) & 1) ? Q_O2 : Q_O3;            /* the sheen */
                    else q = (nz[x] & 3) ? Q_O0 : Q_O1;
                    break;
                case SAND_LAVA: {
                    if (depth == 0) { q = (sim_hash_at(tb, x, y, 12) & 3u) ? Q_L0 : Q_L1; break; }
                    int k = ((x + t / 9) / 3 + (y + t / 14) / 2 + (nz[x] >> 6)) & 7;
                    static const uint8_t LV[8] = { Q_L0, Q_L1, Q_L1, Q_L2, Q_L2, Q_L2, Q_L3, Q_L1 };
                    q = LV[k];
                    if (depth > 2) {
                        /* Crusts on blocks of 4 × 3 and 3 × 2 cells: a block's hash serves the
                         * cells of it that follow along the row. */
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
                    }
                    break;
                }
                case SAND_ICE:
                    if (depth == 0) q = Q_SN0;
                    else if (depth == 1) q = (nz[x] & 1) ? Q_SN0 : Q_SN1;
                    else if ((x - y + 400) % 11 == 0) q = Q_I0;                        /* facets */
                    else if ((x + 2 * y) % 17 == 0) q = Q_I4;                          /* cracks */
                    else {
                        int lv = depth < 5 ? 0 : depth < 10 ? 1 : 2;
                        q = Q_I1 + ((nz[x] & 15) < b && lv < 2 ? lv + 1 : lv);
                    }
                    break;
                case SAND_WOOD:
                    if (CELL_FLAGS(c) & SAND_F_BURNING) {
                        q = Q_EMB0 + (int)(sim_hash_at(tb, x, y, 10) & 3u);
                    } else if (!(CELL_FLAGS(c) & SAND_F_LOOSE) && lf[x]) {
                        int h = lf[x] - 1;                 /* h & 1, then h % 3 (picture_init) */
                        if (depth == 0) q = (h & 1) ? Q_F4 : Q_F3;
                        else if (CELL_EL(get(s, x, y + 1)) != SAND_WOOD) q = Q_F0;
                        else q = Q_F1 + (h >> 1) - (depth > 10 && b < 8);
                    } else {
                        q = x % 4 == 1 ? Q_B2 : (x % 3 == 0 || (nz[x] & 7) == 0) ? Q_B1 : Q_B0;
                    }
                    break;
                case SAND_FIRE: {
                    int life = CELL_LIFE(c);
                    int k = life > 24 ? 0 : life > 16 ? 1 : life > 9 ? 2 : life > 4 ? 3 : 4;
                    if ((sim_hash_at(tb, x, y, 9) & 3u) == 0 && k < 4) k++;
                    q = Q_FIRE0 + k;
                    break;
                }
                case SAND_SMOKE: {
                    int dn = CELL_LIFE(c) / 7;
                    q = veil(dn < 3 ? 3 : dn, x, y, (nz[x] & 1) ? Q_SM1 : Q_SM0, air[x]);
                    break;
                }
                case SAND_STEAM: {
                    int dn = CELL_LIFE(c) / 13;
                    q = veil(dn < 4 ? 4 : dn, x, y, (nz[x] & 1) ? Q_STM1 : Q_STM0, air[x]);
                    break;
                }
                case SAND_GAS: q = veil(7, x, y, (nz[x] & 1) ? Q_GAS1 : Q_GAS0, air[x]); break;
                case SAND_STONE: q = depth == 0 ? Q_ST2 : (nz[x] & 3) ? Q_ST0 : Q_ST1; break;
                case SAND_ACID:
                    q = depth == 0 || sim_hash_at(tb, x, y, 13) % 13u == 0 ? Q_AC2 : (nz[x] & 1) ? Q_AC0 : Q_AC1;
                    break;
                default: q = air[x];
                }
                out[x] = (uint8_t)q;
            }
        }
    }
}
