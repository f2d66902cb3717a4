/* cloth.c — the flag's Verlet grid (cloth.h). */
#include "cloth.h"
#include <stdlib.h>

#define SAVE_TAG 0xF1A6u
#define NODE_BYTES 33                   /* four f64 and the pin byte */
#define SPACING_MAX 1000.0
#define SIN12 0.2079                    /* sin 12°: the bend past which a cell is lit or shaded */

int sim_cloth_init(sim_cloth *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    if (w < 2 || h < 2 || w > SIM_CLOTH_MAX || h > SIM_CLOTH_MAX) return SIM_EINVAL;
    size_t n = (size_t)w * h;
    c->x = calloc(n, sizeof *c->x);
    c->y = calloc(n, sizeof *c->y);
    c->px = calloc(n, sizeof *c->px);
    c->py = calloc(n, sizeof *c->py);
    c->pin = calloc(n, 1);
    if (!c->x || !c->y || !c->px || !c->py || !c->pin) {
        sim_cloth_free(c);
        return SIM_ENOMEM;
    }
    c->w = w;
    c->h = h;
    c->sx = c->sy = 1.0;
    c->gravity = SIM_CLOTH_GRAVITY;
    c->keep = SIM_CLOTH_KEEP;
    c->wind_push = SIM_CLOTH_WIND;
    c->flutter = SIM_CLOTH_FLUTTER;
    c->iters = SIM_CLOTH_ITERS;
    c->shear = SIM_CLOTH_SHEAR;
    return 0;
}

void sim_cloth_free(sim_cloth *c)
{
    free(c->x);
    free(c->y);
    free(c->px);
    free(c->py);
    free(c->pin);
    memset(c, 0, sizeof *c);
}

void sim_cloth_hang(sim_cloth *c, double x0, double y0, double sx, double sy, int dir)
{
    double d = dir < 0 ? -1.0 : 1.0;
    c->sx = sx > 0 && sx <= SPACING_MAX ? sx : 1.0;
    c->sy = sy > 0 && sy <= SPACING_MAX ? sy : 1.0;
    for (int j = 0; j < c->h; j++)
        for (int i = 0; i < c->w; i++) {
            int k = j * c->w + i;
            c->x[k] = c->px[k] = x0 + d * i * c->sx;
            c->y[k] = c->py[k] = y0 + j * c->sy;
            c->pin[k] = i == 0;
        }
    c->phase = 0;
}

/* Pull nodes a and b to distance rest, the correction shared by their inverse masses (1 free,
 * 0 pinned): a pinned node is never written. */
static void relax(sim_cloth *c, int a, int b, double rest, double stiff)
{
    int fa = !c->pin[a], fb = !c->pin[b];
    if (!fa && !fb) return;
    double dx = c->x[b] - c->x[a], dy = c->y[b] - c->y[a];
    double d2 = dx * dx + dy * dy;
    if (d2 < 1e-18) return;             /* coincident: no direction to push along */
    double d = sim_sqrt(d2);
    double k = (d - rest) / (d * (double)(fa + fb)) * stiff;
    if (fa) {
        c->x[a] += dx * k;
        c->y[a] += dy * k;
    }
    if (fb) {
        c->x[b] -= dx * k;
        c->y[b] -= dy * k;
    }
}

void sim_cloth_step(sim_cloth *c, int wind)
{
    if (wind > SIM_WIND_MAX) wind = SIM_WIND_MAX;
    if (wind < -SIM_WIND_MAX) wind = -SIM_WIND_MAX;
    double s = (double)wind / SIM_WIND_MAX;
    double ax = c->wind_push * s;
    double fl = c->wind_push * c->flutter * (s < 0 ? -s : s);
    /* the phase in radians; the column's lag k·i is a fraction of a turn too */
    double th = (double)c->phase * (2.0 * SIM_PI / 4294967296.0);
    double kcol = 2.0 * SIM_PI / SIM_CLOTH_FLUTTER_COLS;
    double ay[SIM_CLOTH_MAX];
    for (int i = 0; i < c->w; i++) ay[i] = c->gravity + fl * sim_sin(th - kcol * i);
    for (int n = 0; n < c->w * c->h; n++) {
        if (c->pin[n]) continue;
        double vx = (c->x[n] - c->px[n]) * c->keep, vy = (c->y[n] - c->py[n]) * c->keep;
        c->px[n] = c->x[n];
        c->py[n] = c->y[n];
        c->x[n] += vx + ax;
        c->y[n] += vy + ay[n % c->w];
    }
    double diag = sim_sqrt(c->sx * c->sx + c->sy * c->sy);
    int w = c->w, h = c->h;
    for (int it = 0; it < c->iters; it++) {
        for (int j = 0; j < h; j++)
            for (int i = 0; i + 1 < w; i++) relax(c, j * w + i, j * w + i + 1, c->sx, 1.0);
        for (int j = 0; j + 1 < h; j++)
            for (int i = 0; i < w; i++) relax(c, j * w + i, (j + 1) * w + i, c->sy, 1.0);
        for (int j = 0; j + 1 < h; j++)
            for (int i = 0; i + 1 < w; i++) {
                relax(c, j * w + i, (j + 1) * w + i + 1, diag, c->shear);
                relax(c, j * w + i + 1, (j + 1) * w + i, diag, c->shear);
            }
    }
    /* the guard: no node further than SIM_CLOTH_MAX_STEP from where it began the tick */
    for (int n = 0; n < w * h; n++) {
        if (c->pin[n]) continue;
        double dx = c->x[n] - c->px[n], dy = c->y[n] - c->py[n];
        double d2 = dx * dx + dy * dy;
        if (d2 > SIM_CLOTH_MAX_STEP * SIM_CLOTH_MAX_STEP) {
            double k = SIM_CLOTH_MAX_STEP / sim_sqrt(d2);
            c->x[n] = c->px[n] + dx * k;
            c->y[n] = c->py[n] + dy * k;
        }
    }
    c->phase += (uint32_t)(4294967296.0 / SIM_CLOTH_FLUTTER_TICKS);
}

void sim_cloth_draw(const sim_cloth *c, sim_frame *f, const uint8_t (*bands)[3], int nbands)
{
    if (!f || !f->px || !bands || nbands < 1) return;
    int w = c->w;
    /* The flag's line, pole to free edge (mean of the rows), and its normal toward the sky (−y;
     * a line straight down has its normal toward −x, the light's side). */
    double Dx = 0, Dy = 0;
    for (int j = 0; j < c->h; j++) {
        Dx += c->x[j * w + w - 1] - c->x[j * w];
        Dy += c->y[j * w + w - 1] - c->y[j * w];
    }
    double nx = Dy, ny = -Dx;
    if (ny > 0 || (ny == 0 && nx > 0)) {
        nx = -nx;
        ny = -ny;
    }
    double nl = sim_sqrt(nx * nx + ny * ny);
    for (int j = 0; j + 1 < c->h; j++) {
        const uint8_t *band = bands[j % nbands];
        for (int i = 0; i + 1 < w; i++) {
            int a = j * w + i, b = a + 1, cc = a + w + 1, d = a + w;
            double ex = (c->x[b] - c->x[a] + c->x[cc] - c->x[d]) * 0.5;
            double ey = (c->y[b] - c->y[a] + c->y[cc] - c->y[d]) * 0.5;
            double el = sim_sqrt(ex * ex + ey * ey);
            double up = nl > 0 && el > 0 ? (ex * nx + ey * ny) / (el * nl) : 0.0;
            uint8_t col = up > SIN12 ? band[0] : up < -SIN12 ? band[2] : band[1];
            int xy[8] = { sim_snap(c->x[a]), sim_snap(c->y[a]), sim_snap(c->x[b]),
                          sim_snap(c->y[b]), sim_snap(c->x[cc]), sim_snap(c->y[cc]),
                          sim_snap(c->x[d]), sim_snap(c->y[d]) };
            sim_raster_polygon(f, xy, 4, col);
        }
    }
}

size_t sim_cloth_save_max(const sim_cloth *c)
{
    return 2 + 1 + 1 + 8 + 8 + 4 + (size_t)c->w * c->h * NODE_BYTES;
}

void sim_cloth_save(const sim_cloth *c, sim_writer *wr)
{
    sim__w_u16(wr, SAVE_TAG);
    sim__w_u8(wr, (uint8_t)c->w);
    sim__w_u8(wr, (uint8_t)c->h);
    sim__w_f64(wr, c->sx);
    sim__w_f64(wr, c->sy);
    sim__w_u32(wr, c->phase);
    for (int n = 0; n < c->w * c->h; n++) {
        sim__w_f64(wr, c->x[n]);
        sim__w_f64(wr, c->y[n]);
        sim__w_f64(wr, c->px[n]);
        sim__w_f64(wr, c->py[n]);
        sim__w_u8(wr, c->pin[n]);
    }
}

static int coord_ok(double v)
{
    return v >= -SIM_CLOTH_MAX_COORD && v <= SIM_CLOTH_MAX_COORD;
}

/* Pass 0 checks, pass 1 keeps: a refused blob leaves c as it was. sim__r_f64 refuses NaN and
 * infinities itself. */
int sim_cloth_load(sim_cloth *c, sim_reader *rd)
{
    size_t start = rd->pos;
    for (int keep = 0; keep < 2; keep++) {
        rd->pos = start;
        uint16_t tag = sim__r_u16(rd);
        int w = sim__r_u8(rd), h = sim__r_u8(rd);
        double sx = sim__r_f64(rd), sy = sim__r_f64(rd);
        uint32_t phase = sim__r_u32(rd);
        if (rd->err) return rd->err;
        if (tag != SAVE_TAG || w != c->w || h != c->h || !(sx > 0 && sx <= SPACING_MAX) ||
            !(sy > 0 && sy <= SPACING_MAX))
            return SIM_ECORRUPT;
        if (keep) {
            c->sx = sx;
            c->sy = sy;
            c->phase = phase;
        }
        for (int n = 0; n < w * h; n++) {
            double x = sim__r_f64(rd), y = sim__r_f64(rd);
            double px = sim__r_f64(rd), py = sim__r_f64(rd);
            uint8_t pin = sim__r_u8(rd);
            if (rd->err) return rd->err;
            if (!coord_ok(x) || !coord_ok(y) || !coord_ok(px) || !coord_ok(py) || pin > 1 ||
                (pin && (x != px || y != py)))
                return SIM_ECORRUPT;
            if (keep) {
                c->x[n] = x;
                c->y[n] = y;
                c->px[n] = px;
                c->py[n] = py;
                c->pin[n] = pin;
            }
        }
    }
    return 0;
}
