/* grass.c — tufts, lean frames, sway and gusts (grass.h). */
#include "grass.h"
#include <stdlib.h>

#define SAVE_TAG 0x62A5u
#define TUFT_BYTES 12
#define TURN 4294967296.0                     /* a phase accumulator's turn */

/* The numbers (the seed gives the form and the 0/1/2-px frames, none of these; docs/garden.md):
 * BASE   1 px of steady lean in a gale, none in a calm;
 * SWAY   0.6 px of sway in a calm (round(0.6 sin) leans a tuft a pixel a third of the time: the
 *        grass stirs) to 1.2 px in a gale;
 * PERIOD 120 ticks a sway in a calm (2 s at 60 Hz), twice as fast in a gale;
 * WAVE   96 px from crest to crest of the sway along the field (k = 2π/96): three ripples across a
 *        320-px frame; with PERIOD they run at 0.8 px a tick in a calm, 1.6 in a gale;
 * GUST   1.5 px of extra lean under a gust's crest in a gale, one gust every SIM_GRASS_GUST_LEN
 *        (160) px, travelling 1.5 px a tick in a gale (90 px/s: a gust crosses a 320-px field in
 *        3.6 s);
 * JITTER seedPhase within ±1/8 turn: neighbours differ a little, so the wave has a ragged edge
 *        but is still a wave (a free phase per tuft would make it noise);
 * BEND   a push held 12 ticks, then let go 1 px every 6: a tuft a walker parted stands again
 *        24 ticks (0.4 s) after the walker has gone. */
#define BASE 1.0
#define SWAY_CALM 0.6
#define SWAY_GALE 1.2
#define PERIOD_CALM 120
#define WAVE 96.0
#define GUST 1.5
#define GUST_SPEED 384                        /* 1/256 px a tick in a gale: 1.5 px */
#define JITTER (TURN / 8)
#define BEND_HOLD 12
#define BEND_STEP 6

static int round_away(double v)
{
    return v >= 0 ? sim_snap(v) : -sim_snap(-v);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Row y of an h-row sprite at lean L moves by round(L · (h−1−y) / (h−1)), halves away from 0. */
static int row_shift(int lean, int y, int h)
{
    int num = lean * (h - 1 - y), den = h - 1;
    return (2 * num + (num >= 0 ? den : -den)) / (2 * den);
}

int sim_grass_init(sim_grass *g, int cap, const sim_sprite *sprites, int nsprites)
{
    memset(g, 0, sizeof *g);
    if (cap < 1 || cap > SIM_GRASS_CAP_MAX || !sprites || nsprites < 1 ||
        nsprites > SIM_GRASS_SPRITES_MAX)
        return SIM_EINVAL;
    size_t total = 0;
    for (int k = 0; k < nsprites; k++) {
        const sim_sprite *s = &sprites[k];
        if (!s->px || s->w < 1 || s->w > SIM_GRASS_SPRITE_W || s->h < 2 ||
            s->h > SIM_GRASS_SPRITE_H || s->key < 0)
            return SIM_EINVAL;
        g->fw[k] = s->w + 2 * SIM_GRASS_LEAN;
        g->fh[k] = s->h;
        g->off[k] = total;
        g->key[k] = s->key;
        total += (size_t)SIM_GRASS_FRAMES * g->fw[k] * g->fh[k];
    }
    g->tuft = calloc((size_t)cap, sizeof *g->tuft);
    g->bake = malloc(total);
    if (!g->tuft || !g->bake) {
        sim_grass_free(g);
        return SIM_ENOMEM;
    }
    g->cap = cap;
    g->nsprite = nsprites;
    for (int k = 0; k < nsprites; k++) {
        const sim_sprite *s = &sprites[k];
        for (int lean = -SIM_GRASS_LEAN; lean <= SIM_GRASS_LEAN; lean++) {
            uint8_t *img = (uint8_t *)sim_grass_frame(g, k, lean);
            memset(img, (uint8_t)s->key, (size_t)g->fw[k] * g->fh[k]);
            for (int y = 0; y < s->h; y++) {
                int dx = SIM_GRASS_LEAN + row_shift(lean, y, s->h);
                memcpy(img + (size_t)y * g->fw[k] + dx, s->px + (size_t)y * s->w, s->w);
            }
        }
    }
    return 0;
}

void sim_grass_free(sim_grass *g)
{
    free(g->tuft);
    free(g->bake);
    memset(g, 0, sizeof *g);
}

int sim_grass_add(sim_grass *g, int x, int y, int sprite, sim_rng *rng)
{
    if (sprite < 0 || sprite >= g->nsprite || x < INT16_MIN || x > INT16_MAX || y < INT16_MIN ||
        y > INT16_MAX)
        return SIM_EINVAL;
    if (g->ntuft >= g->cap) return SIM_EFULL;
    sim_grass_tuft *t = &g->tuft[g->ntuft];
    memset(t, 0, sizeof *t);
    t->x = (int16_t)x;
    t->y = (int16_t)y;
    t->sprite = (uint8_t)sprite;
    /* uniform in [−1/8, 1/8) of a turn, as a wrapped u32 */
    t->phase = sim_rng_next(rng) / 4u - (uint32_t)(TURN / 8);
    return g->ntuft++;
}

void sim_grass_push(sim_grass *g, int x, int radius, int dir)
{
    if (radius < 0) return;
    for (int i = 0; i < g->ntuft; i++) {
        sim_grass_tuft *t = &g->tuft[i];
        int d = t->x - x, ad = d < 0 ? -d : d;
        if (ad > radius) continue;
        int side = d < 0 ? -1 : d > 0 ? 1 : dir < 0 ? -1 : 1;
        int bend = side * (2 * ad <= radius ? 2 : 1);
        int cur = t->bend < 0 ? -t->bend : t->bend;
        if (bend * side > cur || (t->bend != 0 && (t->bend > 0) != (bend > 0)))
            t->bend = (int8_t)bend;
        if (t->bend == bend) t->bend_t = BEND_HOLD;
    }
}

/* The wind part of tuft t's lean (grass.h's formula without the bend). */
static int wind_lean(const sim_grass *g, const sim_grass_tuft *t, double s)
{
    double as = s < 0 ? -s : s, side = s < 0 ? -1.0 : 1.0;
    double amp = SWAY_CALM + (SWAY_GALE - SWAY_CALM) * as;
    double th = (double)(uint32_t)(g->sway + t->phase) * (2.0 * SIM_PI / TURN);
    double sway = amp * sim_sin(th - side * (2.0 * SIM_PI / WAVE) * t->x);
    /* the gust bump at u = x − gust, one every Λ px: ((1 + cos 2πu/Λ)/2)³ */
    double u = (double)t->x - (double)g->gust / 256.0;
    double c = (1.0 + sim_cos(2.0 * SIM_PI * u / SIM_GRASS_GUST_LEN)) * 0.5;
    double gust = GUST * s * c * c * c;
    return clampi(round_away(BASE * s + sway + gust), -SIM_GRASS_LEAN, SIM_GRASS_LEAN);
}

void sim_grass_step(sim_grass *g, int wind)
{
    wind = clampi(wind, -SIM_WIND_MAX, SIM_WIND_MAX);
    double s = (double)wind / SIM_WIND_MAX, as = s < 0 ? -s : s;
    g->sway += (uint32_t)(TURN / PERIOD_CALM * (1.0 + as));
    int32_t len = SIM_GRASS_GUST_LEN * 256;
    g->gust = (g->gust + GUST_SPEED * wind / SIM_WIND_MAX) % len;
    if (g->gust < 0) g->gust += len;
    for (int i = 0; i < g->ntuft; i++) {
        sim_grass_tuft *t = &g->tuft[i];
        if (!t->bend) continue;
        if (t->bend_t) {
            t->bend_t--;
        } else {
            t->bend = (int8_t)(t->bend > 0 ? t->bend - 1 : t->bend + 1);
            t->bend_t = t->bend ? BEND_STEP : 0;
        }
    }
    if (g->until) {
        g->until--;
        return;
    }
    g->until = SIM_GRASS_HOLD - 1;
    for (int i = 0; i < g->ntuft; i++) g->tuft[i].wind = (int8_t)wind_lean(g, &g->tuft[i], s);
}

int sim_grass_lean(const sim_grass *g, int i)
{
    if (i < 0 || i >= g->ntuft) return 0;
    return clampi(g->tuft[i].wind + g->tuft[i].bend, -SIM_GRASS_LEAN, SIM_GRASS_LEAN);
}

const uint8_t *sim_grass_frame(const sim_grass *g, int k, int lean)
{
    if (k < 0 || k >= g->nsprite || lean < -SIM_GRASS_LEAN || lean > SIM_GRASS_LEAN) return NULL;
    return g->bake + g->off[k] + (size_t)(lean + SIM_GRASS_LEAN) * g->fw[k] * g->fh[k];
}

void sim_grass_draw(const sim_grass *g, sim_frame *f)
{
    for (int i = 0; i < g->ntuft; i++) {
        const sim_grass_tuft *t = &g->tuft[i];
        int k = t->sprite;
        sim_sprite s = { (uint16_t)g->fw[k], (uint16_t)g->fh[k],
                         sim_grass_frame(g, k, sim_grass_lean(g, i)), g->key[k] };
        int w = g->fw[k] - 2 * SIM_GRASS_LEAN;
        sim_raster_blit(f, &s, t->x - w / 2 - SIM_GRASS_LEAN, t->y - g->fh[k] + 1, 0);
    }
}

int sim_grass_tuft_sprite(uint8_t *px, int w, int h, uint8_t key, const uint8_t *shades,
                          int nshades, uint32_t variant)
{
    if (!px || !shades || w < 3 || w > SIM_GRASS_SPRITE_W || h < 4 || h > SIM_GRASS_SPRITE_H ||
        nshades < 1 || nshades > 4)
        return SIM_EINVAL;
    memset(px, key, (size_t)w * h);
    uint32_t r = variant * 2654435761u + 0x9e3779b9u;
#define NEXT() (r = r * 1103515245u + 12345u, r >> 16)
    int n = 3 + (int)(NEXT() % 3);
    for (int b = 0; b < n; b++) {
        int bx = (w - 1) * (2 * b + 1) / (2 * n);
        int outer = b == 0 || b == n - 1;
        /* blades fan out: the tip leans away from the middle, outer blades are shorter */
        int top = (int)(NEXT() % (unsigned)(h / 4 + 1)) + (outer ? h / 4 : 0);
        int tx = clampi(bx + (2 * b - (n - 1)) / 2 + (int)(NEXT() % 3) - 1, 0, w - 1);
        int len = h - 1 - top;                       /* rows above the root */
        for (int y = h - 1; y >= top; y--) {
            int up = h - 1 - y;
            int x = len ? bx + ((tx - bx) * up * 2 + (tx >= bx ? len : -len)) / (2 * len) : bx;
            int shade = up * nshades / (len + 1);
            px[(size_t)y * w + (size_t)clampi(x, 0, w - 1)] = shades[clampi(shade, 0, nshades - 1)];
        }
    }
#undef NEXT
    return 0;
}

size_t sim_grass_save_max(const sim_grass *g)
{
    return 2 + 2 + 4 + 4 + 1 + (size_t)g->cap * TUFT_BYTES;
}

void sim_grass_save(const sim_grass *g, sim_writer *wr)
{
    sim__w_u16(wr, SAVE_TAG);
    sim__w_u16(wr, (uint16_t)g->ntuft);
    sim__w_u32(wr, g->sway);
    sim__w_i32(wr, g->gust);
    sim__w_u8(wr, g->until);
    for (int i = 0; i < g->ntuft; i++) {
        const sim_grass_tuft *t = &g->tuft[i];
        sim__w_u16(wr, (uint16_t)t->x);
        sim__w_u16(wr, (uint16_t)t->y);
        sim__w_u8(wr, t->sprite);
        sim__w_u8(wr, (uint8_t)t->wind);
        sim__w_u8(wr, (uint8_t)t->bend);
        sim__w_u8(wr, t->bend_t);
        sim__w_u32(wr, t->phase);
    }
}

/* Pass 0 checks, pass 1 keeps: a refused blob leaves g as it was. */
int sim_grass_load(sim_grass *g, sim_reader *rd)
{
    size_t start = rd->pos;
    for (int keep = 0; keep < 2; keep++) {
        rd->pos = start;
        uint16_t tag = sim__r_u16(rd);
        int n = sim__r_u16(rd);
        uint32_t sway = sim__r_u32(rd);
        int32_t gust = sim__r_i32(rd);
        uint8_t until = sim__r_u8(rd);
        if (rd->err) return rd->err;
        if (tag != SAVE_TAG || n > g->cap || gust < 0 || gust >= SIM_GRASS_GUST_LEN * 256 ||
            until >= SIM_GRASS_HOLD)
            return SIM_ECORRUPT;
        for (int i = 0; i < n; i++) {
            sim_grass_tuft t;
            t.x = (int16_t)sim__r_u16(rd);
            t.y = (int16_t)sim__r_u16(rd);
            t.sprite = sim__r_u8(rd);
            t.wind = (int8_t)sim__r_u8(rd);
            t.bend = (int8_t)sim__r_u8(rd);
            t.bend_t = sim__r_u8(rd);
            t.phase = sim__r_u32(rd);
            if (rd->err) return rd->err;
            if (t.sprite >= g->nsprite || t.wind < -SIM_GRASS_LEAN || t.wind > SIM_GRASS_LEAN ||
                t.bend < -SIM_GRASS_LEAN || t.bend > SIM_GRASS_LEAN || t.bend_t > BEND_HOLD ||
                (!t.bend && t.bend_t))
                return SIM_ECORRUPT;
            if (keep) g->tuft[i] = t;
        }
        if (keep) {
            g->ntuft = n;
            g->sway = sway;
            g->gust = gust;
            g->until = until;
        }
    }
    return 0;
}
