/* shear.c — rotation by three shears (shear.h). */
#include <string.h>
#include "shear.h"

int sim_shear_shift(double t, int v)
{
    double r = t * (double)v;
    return r >= 0.0 ? (int)sim_floor(r + 0.5) : -(int)sim_floor(-r + 0.5);
}

int sim_shear_rotate(uint8_t *dst, int dw, int dh, const sim_sprite *s, double angle)
{
    if (!dst || !s || !s->px || s->key < 0 || s->key > 255 || s->w < 1 || s->h < 1 ||
        s->w > SIM_SHEAR_MAX || s->h > SIM_SHEAR_MAX || dw < 1 || dh < 1 || dw > SIM_SHEAR_MAX ||
        dh > SIM_SHEAR_MAX || !sim_isfinite(angle) || angle > 1e6 || angle < -1e6)
        return SIM_EINVAL;
    /* the exact quarter turns first, so the shears see |θ| ≤ 45° */
    const double quarter = SIM_PI / 2.0;
    /* the nearest number of quarter turns, ties toward zero: ±45° both shear, so the shears of
     * −θ undo those of θ over the whole of [−45°, 45°] */
    double n = angle < 0.0 ? -angle / quarter : angle / quarter, qf = sim_floor(n + 0.5);
    if (qf - n == 0.5) qf -= 1.0;
    if (angle < 0.0) qf = -qf;
    double rest = angle - qf * quarter;
    int q = (int)(qf - 4.0 * sim_floor(qf / 4.0));                 /* 0..3 */
    double a = -sim_sin(rest * 0.5) / sim_cos(rest * 0.5);         /* −tan(θ/2) */
    double b = sim_sin(rest);
    memset(dst, (uint8_t)s->key, (size_t)dw * (size_t)dh);
    int cx = s->w / 2, cy = s->h / 2, ox = dw / 2, oy = dh / 2, lost = 0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            uint8_t v = s->px[y * s->w + x];
            if (v == (uint8_t)s->key) continue;
            int u = x - cx, w = y - cy, t;
            switch (q) {                      /* clockwise on screen: (1, 0) → (0, 1) */
            case 1: t = u; u = -w; w = t; break;
            case 2: u = -u; w = -w; break;
            case 3: t = u; u = w; w = -t; break;
            default: break;
            }
            u += sim_shear_shift(a, w);
            w += sim_shear_shift(b, u);
            u += sim_shear_shift(a, w);
            int px = ox + u, py = oy + w;
            if (px < 0 || py < 0 || px >= dw || py >= dh) {
                lost++;
                continue;
            }
            dst[py * dw + px] = v;
        }
    return lost;
}
