/* fabrik.c — the FABRIK reacher (fabrik.h). */
#include "fabrik.h"
#include "outline.h"

#define LOAD_LEN_TOL 1e-6

static int finite_in(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }

int sim_fabrik_init(sim_fabrik *r, int n, double rx, double ry, double heading, const double *len)
{
    memset(r, 0, sizeof *r);
    if (n < 2 || n > SIM_FABRIK_MAX || !len || !sim_isfinite(rx) || !sim_isfinite(ry) ||
        !sim_isfinite(heading))
        return SIM_EINVAL;
    for (int i = 1; i < n; i++)
        if (!finite_in(len[i - 1], 0.0, SIM_FABRIK_MAX_LEN) || !(len[i - 1] > 0.0)) return SIM_EINVAL;
    double hx = sim_cos(heading), hy = sim_sin(heading);
    r->n = (uint8_t)n;
    r->x[0] = rx;
    r->y[0] = ry;
    for (int i = 1; i < n; i++) {
        r->len[i] = len[i - 1];
        r->x[i] = r->x[i - 1] + hx * r->len[i];
        r->y[i] = r->y[i - 1] + hy * r->len[i];
    }
    return 0;
}

double sim_fabrik_reach(const sim_fabrik *r)
{
    double s = 0.0;
    for (int i = 1; i < r->n; i++) s += r->len[i];
    return s;
}

void sim_fabrik_set_root(sim_fabrik *r, double rx, double ry)
{
    if (!sim_isfinite(rx) || !sim_isfinite(ry)) return;
    /* the whole reacher moves with its root, so every segment keeps its length */
    double dx = rx - r->x[0], dy = ry - r->y[0];
    for (int i = 0; i < r->n; i++) {
        r->x[i] += dx;
        r->y[i] += dy;
    }
    r->x[0] = rx;
    r->y[0] = ry;
}

/* Put joint j at distance L from joint k along the line from k to j's current place (+x when
 * they coincide). */
static void place(sim_fabrik *r, int j, int k, double L)
{
    double dx = r->x[j] - r->x[k], dy = r->y[j] - r->y[k];
    double m = sim_sqrt(dx * dx + dy * dy);
    if (m > 0.0) {
        dx /= m;
        dy /= m;
    } else {
        dx = 1.0;
        dy = 0.0;
    }
    r->x[j] = r->x[k] + dx * L;
    r->y[j] = r->y[k] + dy * L;
}

int sim_fabrik_solve(sim_fabrik *r, double tx, double ty)
{
    if (!sim_isfinite(tx) || !sim_isfinite(ty)) return 0;
    int e = r->n - 1;
    double rx = r->x[0], ry = r->y[0];
    double dx = tx - rx, dy = ty - ry;
    double d = sim_sqrt(dx * dx + dy * dy);
    if (d >= sim_fabrik_reach(r)) {
        /* out of reach: straight at it, every segment at full length */
        double ux = dx / d, uy = dy / d;
        for (int i = 1; i <= e; i++) {
            r->x[i] = r->x[i - 1] + ux * r->len[i];
            r->y[i] = r->y[i - 1] + uy * r->len[i];
        }
        return 0;
    }
    int it = 0;
    for (; it < SIM_FABRIK_ITERS; it++) {
        double gx = r->x[e] - tx, gy = r->y[e] - ty;
        if (gx * gx + gy * gy <= SIM_FABRIK_TOL * SIM_FABRIK_TOL) break;
        /* forward: the tip on the target, each joint back toward its successor */
        r->x[e] = tx;
        r->y[e] = ty;
        for (int i = e - 1; i >= 0; i--) place(r, i, i + 1, r->len[i + 1]);
        /* backward: the root back in place, each joint out from its predecessor */
        r->x[0] = rx;
        r->y[0] = ry;
        for (int i = 1; i <= e; i++) place(r, i, i - 1, r->len[i]);
    }
    return it;
}

/* ---- drawing --------------------------------------------------------------------------------- */
typedef struct fabrik_shape {
    int n;
    int p[SIM_FABRIK_MAX][2];
    double rad[SIM_FABRIK_MAX];
} fabrik_shape;

static void fabrik_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const fabrik_shape *sh = ud;
    for (int i = 1; i < sh->n; i++)
        sim_raster_capsule(f, sh->p[i - 1][0] + dx, sh->p[i - 1][1] + dy, sh->p[i][0] + dx,
                           sh->p[i][1] + dy, sh->rad[i - 1], sh->rad[i], ink);
}

void sim_fabrik_draw(const sim_fabrik *r, sim_frame *f, double r_root, double r_tip, uint8_t fill,
                     int outline)
{
    fabrik_shape sh;
    sh.n = r->n;
    double reach = sim_fabrik_reach(r), along = 0.0;
    for (int i = 0; i < r->n; i++) {
        along += r->len[i];
        double t = reach > 0.0 ? along / reach : 0.0;
        sh.p[i][0] = sim_snap(r->x[i]);
        sh.p[i][1] = sim_snap(r->y[i]);
        sh.rad[i] = r_root + (r_tip - r_root) * t;
    }
    sim_draw_outlined(f, fabrik_paint, &sh, fill, outline);
}

/* ---- state ----------------------------------------------------------------------------------- */
size_t sim_fabrik_save_max(void) { return 1 + (size_t)SIM_FABRIK_MAX * 3 * 8; }

void sim_fabrik_save(const sim_fabrik *r, sim_writer *wr)
{
    sim__w_u8(wr, r->n);
    for (int i = 0; i < r->n; i++) {
        sim__w_f64(wr, r->x[i]);
        sim__w_f64(wr, r->y[i]);
        sim__w_f64(wr, r->len[i]);
    }
}

int sim_fabrik_load(sim_fabrik *r, sim_reader *rd)
{
    sim_fabrik t;
    memset(&t, 0, sizeof t);
    t.n = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (t.n < 2 || t.n > SIM_FABRIK_MAX) return SIM_ECORRUPT;
    for (int i = 0; i < t.n; i++) {
        t.x[i] = sim__r_f64(rd);
        t.y[i] = sim__r_f64(rd);
        t.len[i] = sim__r_f64(rd);
    }
    if (rd->err) return rd->err;
    if (t.len[0] != 0.0) return SIM_ECORRUPT;
    for (int i = 0; i < t.n; i++) {
        if (!finite_in(t.x[i], -SIM_FABRIK_MAX_COORD, SIM_FABRIK_MAX_COORD) ||
            !finite_in(t.y[i], -SIM_FABRIK_MAX_COORD, SIM_FABRIK_MAX_COORD))
            return SIM_ECORRUPT;
        if (i == 0) continue;
        if (!finite_in(t.len[i], 0.0, SIM_FABRIK_MAX_LEN) || !(t.len[i] > 0.0)) return SIM_ECORRUPT;
        double dx = t.x[i] - t.x[i - 1], dy = t.y[i] - t.y[i - 1];
        double err = sim_sqrt(dx * dx + dy * dy) - t.len[i];
        if (err > LOAD_LEN_TOL * t.len[i] || err < -LOAD_LEN_TOL * t.len[i]) return SIM_ECORRUPT;
    }
    *r = t;
    return 0;
}
