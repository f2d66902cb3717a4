/* inks.c — OKLab, and the lock of a frame to a few inks (inks.h). */
#include "inks.h"

/* a^(1/5) for a in [2^-8, 1] (the decode below takes it of x² with x ≥ 0.0905): Newton's
 * y ← y − (y⁵ − a)/(5y⁴) from √√a, which is at most 25% below the root there. The first step
 * lands above the root, and from above Newton's steps fall monotonically and square the error;
 * eight reach the last bit with steps to spare. A fixed count: the same work on every input. */
static double fifth_root(double a)
{
    double y = sim_sqrt(sim_sqrt(a));
    for (int i = 0; i < 8; i++) {
        double y2 = y * y;
        y = y - (y2 * y2 * y - a) / (5.0 * y2 * y2);
    }
    return y;
}

double sim_srgb_linear(uint8_t c)
{
    double x = (double)c / 255.0;
    if (x <= 0.04045) return x / 12.92;
    x = (x + 0.055) / 1.055;
    double x2 = x * x;
    return x2 * fifth_root(x2);         /* x^2.4 = x² · (x²)^(1/5) */
}

/* Ottosson's matrices, as published (M1 folds sRGB's primaries into LMS). */
sim_oklab sim_oklab_from_srgb(uint8_t r8, uint8_t g8, uint8_t b8)
{
    double r = sim_srgb_linear(r8), g = sim_srgb_linear(g8), b = sim_srgb_linear(b8);
    double l = 0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b;
    double m = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b;
    double s = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b;
    l = sim_cbrt(l);
    m = sim_cbrt(m);
    s = sim_cbrt(s);
    sim_oklab o;
    o.L = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
    o.a = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s;
    o.b = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s;
    return o;
}

double sim_oklab_dist2(sim_oklab p, sim_oklab q)
{
    double dL = p.L - q.L, da = p.a - q.a, db = p.b - q.b;
    return dL * dL + da * da + db * db;
}

static sim_oklab entry_lab(const sim_palette *pal, int i)
{
    const uint8_t *c = pal->rgb + 3 * i;
    return sim_oklab_from_srgb(c[0], c[1], c[2]);
}

int sim_inks_lock(sim_inks *lk, const sim_palette *pal, const uint8_t *ink, int ninks)
{
    memset(lk, 0, sizeof *lk);
    if (!pal || !ink || ninks < 1 || ninks > SIM_INKS_MAX || pal->count < 1 ||
        pal->count > SIM_PALETTE_MAX)
        return SIM_EINVAL;
    uint8_t is_ink[SIM_PALETTE_MAX] = {0};
    for (int k = 0; k < ninks; k++) {
        if (ink[k] >= pal->count || is_ink[ink[k]]) return SIM_EINVAL;
        is_ink[ink[k]] = 1;
    }
    sim_oklab lab[SIM_INKS_MAX];
    for (int k = 0; k < ninks; k++) lab[k] = entry_lab(pal, ink[k]);
    lk->ninks = ninks;
    memcpy(lk->ink, ink, (size_t)ninks);
    for (int i = 0; i < SIM_PALETTE_MAX; i++) lk->map[i] = ink[0];
    for (int i = 0; i < pal->count; i++) {
        if (is_ink[i]) {                /* an ink is itself, even beside a twin of its colour */
            lk->map[i] = (uint8_t)i;
            continue;
        }
        sim_oklab p = entry_lab(pal, i);
        int best = 0;
        double bd = sim_oklab_dist2(p, lab[0]);
        for (int k = 1; k < ninks; k++) {
            double d = sim_oklab_dist2(p, lab[k]);
            if (d < bd) {               /* strict: a tie keeps the ink listed first */
                bd = d;
                best = k;
            }
        }
        lk->map[i] = ink[best];
    }
    return 0;
}

int sim_inks_choose(const sim_palette *pal, int n, uint8_t *out)
{
    if (!pal || !out || pal->count < 1 || pal->count > SIM_PALETTE_MAX || n < 1 ||
        n > SIM_INKS_MAX || n > pal->count)
        return SIM_EINVAL;
    sim_oklab lab[SIM_PALETTE_MAX];
    double near[SIM_PALETTE_MAX];       /* each entry's distance² to the nearest ink so far */
    int first = 0;
    for (int i = 0; i < pal->count; i++) {
        lab[i] = entry_lab(pal, i);
        if (lab[i].L < lab[first].L) first = i;
    }
    out[0] = (uint8_t)first;
    for (int i = 0; i < pal->count; i++) near[i] = sim_oklab_dist2(lab[i], lab[first]);
    for (int k = 1; k < n; k++) {
        int far = -1;
        for (int i = 0; i < pal->count; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++) taken |= out[j] == i;
            if (!taken && (far < 0 || near[i] > near[far])) far = i;
        }
        out[k] = (uint8_t)far;
        for (int i = 0; i < pal->count; i++) {
            double d = sim_oklab_dist2(lab[i], lab[far]);
            if (d < near[i]) near[i] = d;
        }
    }
    return 0;
}

void sim_inks_apply(const sim_inks *lk, sim_frame *f)
{
    if (!f || !f->px) return;
    size_t n = (size_t)f->w * f->h;
    for (size_t i = 0; i < n; i++) f->px[i] = lk->map[f->px[i]];
}
