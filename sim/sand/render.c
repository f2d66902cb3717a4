/* render.c — the palette and the frame of the falling-sand world: per-element colour ramps, the
 * position-only shade noise, the brick bond of walls, and the renderer. */
#include "sand_int.h"

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
 * of walls and of empty air. Needs s->w, s->h and the noise, wallpx and airpx buffers. */
void sim__sand_render_init(sand_world *s)
{
    /* Shade noise depends on position only (not the seed): the same pile looks the same. */
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            s->noise[y * s->w + x] = (uint8_t)(sim_hash_cell(0x5eed, 0, x, y, 0) >> 24);
    build_palette(s);
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
