/* water.c — the spring height field (water.h). Integers throughout: volume is exact. */
#include "water.h"
#include <stdlib.h>

#define SAVE_TAG 0x3A7Eu

int sim_water_init(sim_water *w, int n)
{
    memset(w, 0, sizeof *w);
    if (n < 2 || n > SIM_WATER_MAX_COLS) return SIM_EINVAL;
    w->h = calloc((size_t)n, sizeof *w->h);
    w->f = calloc((size_t)n - 1, sizeof *w->f);
    if (!w->h || !w->f) {
        sim_water_free(w);
        return SIM_ENOMEM;
    }
    w->n = n;
    w->couple = SIM_WATER_COUPLE;
    w->damp = SIM_WATER_DAMP;
    return 0;
}

void sim_water_free(sim_water *w)
{
    free(w->h);
    free(w->f);
    memset(w, 0, sizeof *w);
}

static int64_t clamp64(int64_t v, int64_t lim)
{
    return v > lim ? lim : v < -lim ? -lim : v;
}

/* a·b / 65536 rounded half away from zero: symmetric, so a wave and its mirror image round alike
 * and nothing drifts one way. */
static int64_t mul_q16(int64_t a, int64_t b)
{
    int64_t p = a * b;
    return p >= 0 ? (p + 32768) / 65536 : -((-p + 32768) / 65536);
}

void sim_water_splash(sim_water *w, int x, int32_t strength)
{
    if (x < 0 || x >= w->n) return;
    int64_t s = clamp64(strength, SIM_WATER_FMAX);
    /* Edge e joins columns e and e+1: out of x to the right is +f[x], to the left −f[x−1]. */
    const int edge[4] = { x, x - 1, x + 1, x - 2 };
    const int64_t push[4] = { s, -s, s / 2, -(s / 2) };
    for (int k = 0; k < 4; k++) {
        int e = edge[k];
        if (e < 0 || e >= w->n - 1) continue;    /* a wall: nothing flows through it */
        w->f[e] = (int32_t)clamp64((int64_t)w->f[e] + push[k], SIM_WATER_FMAX);
    }
}

void sim_water_step(sim_water *w)
{
    int n = w->n;
    for (int i = 0; i < n - 1; i++) {
        int64_t f = (int64_t)w->f[i] + mul_q16(w->couple, (int64_t)w->h[i] - w->h[i + 1]);
        int64_t d = mul_q16(f, w->damp);
        if (d == 0 && f != 0 && w->damp > 0) d = f > 0 ? 1 : -1;   /* small flows still die */
        w->f[i] = (int32_t)clamp64(f - d, SIM_WATER_FMAX);
    }
    for (int i = 0; i < n; i++) {
        int64_t out = (i < n - 1 ? w->f[i] : 0) - (i > 0 ? w->f[i - 1] : 0);
        w->h[i] = (int32_t)clamp64((int64_t)w->h[i] - out, SIM_WATER_HMAX);
    }
}

int sim_water_height(const sim_water *w, int i)
{
    if (i < 0 || i >= w->n) return 0;
    return (int)mul_q16(w->h[i], 1);
}

int64_t sim_water_volume(const sim_water *w)
{
    int64_t v = 0;
    for (int i = 0; i < w->n; i++) v += w->h[i];
    return v;
}

double sim_water_energy(const sim_water *w)
{
    const double one = SIM_WATER_ONE;
    double kin = 0, pot = 0;
    for (int i = 0; i < w->n - 1; i++) {
        double f = w->f[i] / one, dh = ((double)w->h[i] - w->h[i + 1]) / one;
        kin += f * f;
        pot += dh * dh;
    }
    return kin + (w->couple / one) * pot;
}

void sim_water_draw(const sim_water *w, sim_frame *f, const sim_water_look *look, int x0,
                    int y_rest, int y_bottom, uint64_t tick)
{
    if (!f || !f->px || !look) return;
    int nband = look->nband < 1 ? 1 : look->nband > 8 ? 8 : look->nband;
    int rows = look->band_rows < 0 ? 0 : look->band_rows > 8 ? 8 : look->band_rows;
    uint64_t step = look->cycle_ticks < 1 ? tick : tick / (uint64_t)look->cycle_ticks;
    int phase = (int)(step % (uint64_t)nband);
    for (int i = 0; i < w->n; i++) {
        int x = x0 + i;
        if (x < 0 || x >= f->w) continue;
        int top = y_rest - sim_water_height(w, i);
        for (int y = top < 0 ? 0 : top; y <= y_bottom && y < f->h; y++) {
            int r = y - top;
            uint8_t c;
            if (r == 0) c = look->surface;
            else if (r <= rows) c = look->band[(i / 2 + r + phase) % nband];
            else if (y >= y_rest + look->deep_below) c = look->deep;
            else c = look->body;
            f->px[(size_t)y * f->w + (size_t)x] = c;
        }
    }
}

size_t sim_water_save_max(const sim_water *w)
{
    return 2 + 2 + (size_t)w->n * 4 + (size_t)(w->n - 1) * 4;
}

void sim_water_save(const sim_water *w, sim_writer *wr)
{
    sim__w_u16(wr, SAVE_TAG);
    sim__w_u16(wr, (uint16_t)w->n);
    for (int i = 0; i < w->n; i++) sim__w_i32(wr, w->h[i]);
    for (int i = 0; i < w->n - 1; i++) sim__w_i32(wr, w->f[i]);
}

/* Two passes over the bytes: the first only checks, the second keeps, so a refused blob leaves w
 * as it was. */
int sim_water_load(sim_water *w, sim_reader *rd)
{
    size_t start = rd->pos;
    for (int keep = 0; keep < 2; keep++) {
        rd->pos = start;
        uint16_t tag = sim__r_u16(rd);
        int n = sim__r_u16(rd);
        if (rd->err) return rd->err;
        if (tag != SAVE_TAG || n != w->n) return SIM_ECORRUPT;
        for (int i = 0; i < n; i++) {
            int32_t h = sim__r_i32(rd);
            if (h > SIM_WATER_HMAX || h < -SIM_WATER_HMAX)
                return rd->err ? rd->err : SIM_ECORRUPT;
            if (keep) w->h[i] = h;
        }
        for (int i = 0; i < n - 1; i++) {
            int32_t fl = sim__r_i32(rd);
            if (fl > SIM_WATER_FMAX || fl < -SIM_WATER_FMAX)
                return rd->err ? rd->err : SIM_ECORRUPT;
            if (keep) w->f[i] = fl;
        }
        if (rd->err) return rd->err;
    }
    return 0;
}
