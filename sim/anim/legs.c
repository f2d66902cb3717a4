/* legs.c — stepping legs on planted feet and the two-bone knee (legs.h). */
#include "legs.h"

static int finite_in(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }

int sim_legs_cfg_check(const sim_legs_cfg *c)
{
    if (!finite_in(c->thigh, 0.0, 64.0) || !(c->thigh > 0.0) || !finite_in(c->shin, 0.0, 64.0) ||
        !(c->shin > 0.0))
        return SIM_EINVAL;
    if (!finite_in(c->step_at, 0.0, 256.0) || !(c->step_at > 0.0) || !finite_in(c->lead, 0.0, 256.0))
        return SIM_EINVAL;
    if (c->step_ticks < 2 || c->step_ticks > 60 || !finite_in(c->lift, 0.0, 64.0)) return SIM_EINVAL;
    return 0;
}

int sim_legs_init(sim_legs *L, int n, const uint8_t *pair, const double *x, const double *y)
{
    memset(L, 0, sizeof *L);
    if (n < 1 || n > SIM_LEGS_MAX) return SIM_EINVAL;
    for (int i = 0; i < n; i++)
        if (pair[i] > 1 || !finite_in(x[i], -SIM_LEGS_MAX_COORD, SIM_LEGS_MAX_COORD) ||
            !finite_in(y[i], -SIM_LEGS_MAX_COORD, SIM_LEGS_MAX_COORD))
            return SIM_EINVAL;
    L->n = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        sim_leg *g = &L->leg[i];
        g->x = g->fx = g->tx = x[i];
        g->y = g->fy = g->ty = y[i];
        g->pair = pair[i];
    }
    return 0;
}

int sim_legs_planted(const sim_legs *L, int i) { return L->leg[i].t == 0; }

int sim_legs_pair_up(const sim_legs *L, int pair)
{
    for (int i = 0; i < L->n; i++)
        if (L->leg[i].pair == pair && L->leg[i].t) return 1;
    return 0;
}

/* smoothstep: the foot leaves and lands slowly, moves fastest in the middle */
static double ease(double u) { return u * u * (3.0 - 2.0 * u); }

int sim_legs_step(sim_legs *L, const sim_legs_cfg *cfg, const double *ix, const double *iy,
                  double travel)
{
    /* the steps under way */
    for (int i = 0; i < L->n; i++) {
        sim_leg *g = &L->leg[i];
        if (!g->t) continue;                         /* planted: never written */
        if (g->t + 1 >= cfg->step_ticks) {
            g->x = g->tx;
            g->y = g->ty;
            g->t = 0;
            continue;
        }
        g->t++;
        double u = (double)g->t / (double)cfg->step_ticks, e = ease(u);
        g->x = g->fx + (g->tx - g->fx) * e;
        g->y = g->fy + (g->ty - g->fy) * e - cfg->lift * sim_sin(SIM_PI * u);
    }
    /* which pair wants to step, and how badly */
    double worst[2] = { 0.0, 0.0 };
    for (int i = 0; i < L->n; i++) {
        const sim_leg *g = &L->leg[i];
        if (g->t || !sim_isfinite(ix[i]) || !sim_isfinite(iy[i])) continue;
        double dx = ix[i] - g->x, dy = iy[i] - g->y, d2 = dx * dx + dy * dy;
        if (d2 > worst[g->pair]) worst[g->pair] = d2;
    }
    int up0 = sim_legs_pair_up(L, 0), up1 = sim_legs_pair_up(L, 1), go = -1;
    double at2 = cfg->step_at * cfg->step_at;
    int want0 = !up0 && worst[0] > at2, want1 = !up1 && worst[1] > at2;
    if (want0 && !up1 && (!want1 || worst[0] >= worst[1])) go = 0;
    else if (want1 && !up0) go = 1;
    if (go < 0) return 0;
    double lead = travel > 0.0 ? cfg->lead : travel < 0.0 ? -cfg->lead : 0.0;
    for (int i = 0; i < L->n; i++) {
        sim_leg *g = &L->leg[i];
        if (g->pair != go || g->t || !sim_isfinite(ix[i]) || !sim_isfinite(iy[i])) continue;
        g->fx = g->x;
        g->fy = g->y;
        g->tx = ix[i] + lead;
        g->ty = iy[i];
        g->t = 1;
        double e = ease(1.0 / (double)cfg->step_ticks);
        g->x = g->fx + (g->tx - g->fx) * e;
        g->y = g->fy + (g->ty - g->fy) * e - cfg->lift * sim_sin(SIM_PI / (double)cfg->step_ticks);
    }
    return 1 << go;
}

void sim_two_bone(double hx, double hy, double fx, double fy, double a, double b, int bend,
                  double *kx, double *ky)
{
    double dx = fx - hx, dy = fy - hy;
    double c = sim_sqrt(dx * dx + dy * dy), ux = 0.0, uy = 1.0;
    if (c > 1e-9) {
        ux = dx / c;
        uy = dy / c;
    }
    double lo = a > b ? a - b : b - a;
    c = c < lo + 1e-6 ? lo + 1e-6 : c > a + b ? a + b : c;
    /* the law of cosines: the hip's angle between the foot and the knee */
    double ca = (a * a + c * c - b * b) / (2.0 * a * c);
    ca = ca < -1.0 ? -1.0 : ca > 1.0 ? 1.0 : ca;
    double sa = sim_sqrt(1.0 - ca * ca);
    double px = uy, py = -ux;                    /* a quarter turn: (0, 1) → (1, 0) */
    if (bend < 0) {
        px = -px;
        py = -py;
    }
    *kx = hx + a * (ux * ca + px * sa);
    *ky = hy + a * (uy * ca + py * sa);
}

/* ---- state ----------------------------------------------------------------------------------- */
size_t sim_legs_save_max(void) { return 1 + (size_t)SIM_LEGS_MAX * (6 * 8 + 2); }

void sim_legs_save(const sim_legs *L, sim_writer *wr)
{
    sim__w_u8(wr, L->n);
    for (int i = 0; i < L->n; i++) {
        const sim_leg *g = &L->leg[i];
        sim__w_f64(wr, g->x);
        sim__w_f64(wr, g->y);
        sim__w_f64(wr, g->fx);
        sim__w_f64(wr, g->fy);
        sim__w_f64(wr, g->tx);
        sim__w_f64(wr, g->ty);
        sim__w_u8(wr, g->t);
        sim__w_u8(wr, g->pair);
    }
}

int sim_legs_load(sim_legs *L, const sim_legs_cfg *cfg, sim_reader *rd)
{
    sim_legs t;
    memset(&t, 0, sizeof t);
    t.n = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (t.n < 1 || t.n > SIM_LEGS_MAX) return SIM_ECORRUPT;
    const double M = SIM_LEGS_MAX_COORD;
    for (int i = 0; i < t.n; i++) {
        sim_leg *g = &t.leg[i];
        g->x = sim__r_f64(rd);
        g->y = sim__r_f64(rd);
        g->fx = sim__r_f64(rd);
        g->fy = sim__r_f64(rd);
        g->tx = sim__r_f64(rd);
        g->ty = sim__r_f64(rd);
        g->t = sim__r_u8(rd);
        g->pair = sim__r_u8(rd);
        if (rd->err) return rd->err;
        if (!finite_in(g->x, -M, M) || !finite_in(g->y, -M, M) || !finite_in(g->fx, -M, M) ||
            !finite_in(g->fy, -M, M) || !finite_in(g->tx, -M, M) || !finite_in(g->ty, -M, M) ||
            g->pair > 1 || g->t >= cfg->step_ticks)
            return SIM_ECORRUPT;
    }
    if (sim_legs_pair_up(&t, 0) && sim_legs_pair_up(&t, 1)) return SIM_ECORRUPT;
    *L = t;
    return 0;
}
