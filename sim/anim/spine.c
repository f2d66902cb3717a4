/* spine.c — the follow-the-leader spine (spine.h). */
#include "spine.h"
#include "outline.h"

#define HALF_SQRT2 0.70710678118654752440
/* How far a loaded state may be from what a step leaves: rounding of a few operations per point,
 * with room to spare; anything farther was not produced by this code. */
#define LOAD_LEN_TOL 1e-6
#define LOAD_BEND_TOL 1e-6

static int finite_in(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }

/* The config checks shared by init and load. Sets cos_bend and sin_bend on success. */
static int check_shape(sim_spine *s)
{
    if (s->n < 2 || s->n > SIM_SPINE_MAX) return SIM_EINVAL;
    if (!finite_in(s->max_bend, 0.0, SIM_SPINE_MAX_BEND) || !(s->max_bend > 0.0)) return SIM_EINVAL;
    if (!finite_in(s->speed, 0.0, SIM_SPINE_MAX_SPEED) || !(s->speed > 0.0)) return SIM_EINVAL;
    double half_sin = sim_sin(s->max_bend * 0.5);
    for (int i = 0; i < s->n; i++) {
        if (!finite_in(s->radius[i], 0.0, SIM_SPINE_MAX_RADIUS)) return SIM_EINVAL;
        if (i == 0) continue;
        if (!finite_in(s->len[i], 0.0, SIM_SPINE_MAX_LEN) || !(s->len[i] > 0.0)) return SIM_EINVAL;
        if (!((s->radius[i - 1] + s->radius[i]) * half_sin < s->len[i])) return SIM_EINVAL;
    }
    s->cos_bend = sim_cos(s->max_bend);
    s->sin_bend = sim_sin(s->max_bend);
    return 0;
}

int sim_spine_init(sim_spine *s, int n, double x, double y, double heading, const double *len,
                   const double *radius, double max_bend, double speed)
{
    memset(s, 0, sizeof *s);
    if (n < 2 || n > SIM_SPINE_MAX || !len || !radius || !sim_isfinite(x) || !sim_isfinite(y) ||
        !sim_isfinite(heading))
        return SIM_EINVAL;
    s->n = (uint8_t)n;
    s->max_bend = max_bend;
    s->speed = speed;
    for (int i = 0; i < n; i++) {
        s->radius[i] = radius[i];
        s->len[i] = i ? len[i - 1] : 0.0;
    }
    if (check_shape(s)) {
        memset(s, 0, sizeof *s);
        return SIM_EINVAL;
    }
    double bx = -sim_cos(heading), by = -sim_sin(heading);    /* the body trails behind */
    s->x[0] = x;
    s->y[0] = y;
    for (int i = 1; i < n; i++) {
        s->x[i] = s->x[i - 1] + bx * s->len[i];
        s->y[i] = s->y[i - 1] + by * s->len[i];
    }
    return 0;
}

void sim_spine_step(sim_spine *s, double tx, double ty)
{
    if (!sim_isfinite(tx) || !sim_isfinite(ty)) return;
    double dx = tx - s->x[0], dy = ty - s->y[0];
    double d = sim_sqrt(dx * dx + dy * dy);
    if (d <= s->speed) {
        s->x[0] = tx;
        s->y[0] = ty;
    } else {
        s->x[0] += dx / d * s->speed;
        s->y[0] += dy / d * s->speed;
    }
    double ux = 1.0, uy = 0.0;              /* the previous segment's direction, unit, tailward */
    for (int i = 1; i < s->n; i++) {
        double vx = s->x[i] - s->x[i - 1], vy = s->y[i] - s->y[i - 1];
        double m = sim_sqrt(vx * vx + vy * vy);
        if (m > 0.0) {
            vx /= m;
            vy /= m;
        } else {
            vx = ux;
            vy = uy;
        }
        if (i >= 2 && ux * vx + uy * vy < s->cos_bend) {
            /* beyond the limit: the previous direction turned by exactly maxBend toward d (a
             * straight fold-back, cross = 0, turns the positive way) */
            double sg = ux * vy - uy * vx >= 0.0 ? 1.0 : -1.0;
            double sn = s->sin_bend * sg;
            vx = ux * s->cos_bend - uy * sn;
            vy = ux * sn + uy * s->cos_bend;
        }
        s->x[i] = s->x[i - 1] + vx * s->len[i];
        s->y[i] = s->y[i - 1] + vy * s->len[i];
        ux = vx;
        uy = vy;
    }
}

/* Unit direction of segment i (p[i−1] → p[i], tailward), 1 ≤ i < n; +x if it has no length. */
static void seg_dir(const sim_spine *s, int i, double *ux, double *uy)
{
    double vx = s->x[i] - s->x[i - 1], vy = s->y[i] - s->y[i - 1];
    double m = sim_sqrt(vx * vx + vy * vy);
    if (m > 0.0) {
        *ux = vx / m;
        *uy = vy / m;
    } else {
        *ux = 1.0;
        *uy = 0.0;
    }
}

void sim_spine_heading(const sim_spine *s, double *hx, double *hy)
{
    double ux, uy;
    seg_dir(s, 1, &ux, &uy);
    *hx = -ux;
    *hy = -uy;
}

/* ---- drawing --------------------------------------------------------------------------------- */
typedef struct spine_shape {
    int n;
    int l[SIM_SPINE_MAX][2], r[SIM_SPINE_MAX][2];     /* snapped left and right points per joint */
    int head[5][2], tail[5][2];                         /* the caps, left to right */
} spine_shape;

static void cap(int out[5][2], double px, double py, double nx, double ny, double fx, double fy,
                double r)
{
    const double h = HALF_SQRT2;
    double pts[5][2] = {
        { px + nx * r, py + ny * r },
        { px + (nx + fx) * h * r, py + (ny + fy) * h * r },
        { px + fx * r, py + fy * r },
        { px + (fx - nx) * h * r, py + (fy - ny) * h * r },
        { px - nx * r, py - ny * r },
    };
    for (int k = 0; k < 5; k++) {
        out[k][0] = sim_snap(pts[k][0]);
        out[k][1] = sim_snap(pts[k][1]);
    }
}

static void poly(sim_frame *f, const int (*pt)[2], int n, int dx, int dy, uint8_t ink)
{
    int xy[10];
    for (int k = 0; k < n; k++) {
        xy[2 * k] = pt[k][0] + dx;
        xy[2 * k + 1] = pt[k][1] + dy;
    }
    sim_raster_polygon(f, xy, n, ink);
}

static void spine_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const spine_shape *sh = ud;
    for (int i = 1; i < sh->n; i++) {
        const int q[4][2] = {
            { sh->l[i - 1][0], sh->l[i - 1][1] }, { sh->l[i][0], sh->l[i][1] },
            { sh->r[i][0], sh->r[i][1] }, { sh->r[i - 1][0], sh->r[i - 1][1] },
        };
        poly(f, q, 4, dx, dy, ink);
    }
    poly(f, (const int (*)[2])sh->head, 5, dx, dy, ink);
    poly(f, (const int (*)[2])sh->tail, 5, dx, dy, ink);
}

void sim_spine_draw(const sim_spine *s, sim_frame *f, uint8_t fill, int outline)
{
    spine_shape sh;
    sh.n = s->n;
    double t0x = 1.0, t0y = 0.0, tnx = 1.0, tny = 0.0;
    for (int i = 0; i < s->n; i++) {
        /* the joint's tangent: the bisector of its segments (one segment at an end) */
        double ax, ay, bx, by, tx, ty;
        seg_dir(s, i ? i : 1, &ax, &ay);
        seg_dir(s, i + 1 < s->n ? i + 1 : i, &bx, &by);
        if (i == 0) { bx = ax; by = ay; }
        tx = ax + bx;
        ty = ay + by;
        double m = sim_sqrt(tx * tx + ty * ty);
        if (m > 1e-9) {
            tx /= m;
            ty /= m;
        } else {
            tx = ax;
            ty = ay;
        }
        double nx = -ty, ny = tx, r = s->radius[i];
        sh.l[i][0] = sim_snap(s->x[i] + nx * r);
        sh.l[i][1] = sim_snap(s->y[i] + ny * r);
        sh.r[i][0] = sim_snap(s->x[i] - nx * r);
        sh.r[i][1] = sim_snap(s->y[i] - ny * r);
        if (i == 0) { t0x = tx; t0y = ty; }
        if (i == s->n - 1) { tnx = tx; tny = ty; }
    }
    /* the head's cap faces forward (−tangent), the tail's backward */
    cap(sh.head, s->x[0], s->y[0], -t0y, t0x, -t0x, -t0y, s->radius[0]);
    int e = s->n - 1;
    cap(sh.tail, s->x[e], s->y[e], -tny, tnx, tnx, tny, s->radius[e]);
    /* Every pixel a polygon covers lies in its points' box (pixel centres inside it), so the
     * points' box holds the whole shape. */
    int x0 = sh.head[0][0], y0 = sh.head[0][1], x1 = x0, y1 = y0;
    int (*pts[4])[2] = { sh.l, sh.r, sh.head, sh.tail };
    const int npts[4] = { sh.n, sh.n, 5, 5 };
    for (int g = 0; g < 4; g++)
        for (int k = 0; k < npts[g]; k++) {
            x0 = pts[g][k][0] < x0 ? pts[g][k][0] : x0;
            x1 = pts[g][k][0] > x1 ? pts[g][k][0] : x1;
            y0 = pts[g][k][1] < y0 ? pts[g][k][1] : y0;
            y1 = pts[g][k][1] > y1 ? pts[g][k][1] : y1;
        }
    sim_draw_outlined_box(f, spine_paint, &sh, fill, outline, x0, y0, x1, y1);
}

/* ---- state ----------------------------------------------------------------------------------- */
size_t sim_spine_save_max(void) { return 1 + 2 * 8 + (size_t)SIM_SPINE_MAX * 4 * 8; }

void sim_spine_save(const sim_spine *s, sim_writer *wr)
{
    sim__w_u8(wr, s->n);
    sim__w_f64(wr, s->max_bend);
    sim__w_f64(wr, s->speed);
    for (int i = 0; i < s->n; i++) {
        sim__w_f64(wr, s->x[i]);
        sim__w_f64(wr, s->y[i]);
        sim__w_f64(wr, s->len[i]);
        sim__w_f64(wr, s->radius[i]);
    }
}

int sim_spine_load(sim_spine *s, sim_reader *rd)
{
    sim_spine t;
    memset(&t, 0, sizeof t);
    t.n = sim__r_u8(rd);
    t.max_bend = sim__r_f64(rd);
    t.speed = sim__r_f64(rd);
    if (rd->err) return rd->err;
    if (t.n < 2 || t.n > SIM_SPINE_MAX) return SIM_ECORRUPT;
    for (int i = 0; i < t.n; i++) {
        t.x[i] = sim__r_f64(rd);
        t.y[i] = sim__r_f64(rd);
        t.len[i] = sim__r_f64(rd);
        t.radius[i] = sim__r_f64(rd);
    }
    if (rd->err) return rd->err;
    if (t.len[0] != 0.0 || check_shape(&t)) return SIM_ECORRUPT;
    double cos_lim = sim_cos(t.max_bend + LOAD_BEND_TOL);
    double ux = 1.0, uy = 0.0;
    for (int i = 0; i < t.n; i++) {
        if (!finite_in(t.x[i], -SIM_SPINE_MAX_COORD, SIM_SPINE_MAX_COORD) ||
            !finite_in(t.y[i], -SIM_SPINE_MAX_COORD, SIM_SPINE_MAX_COORD))
            return SIM_ECORRUPT;
        if (i == 0) continue;
        double vx = t.x[i] - t.x[i - 1], vy = t.y[i] - t.y[i - 1];
        double m = sim_sqrt(vx * vx + vy * vy), err = m - t.len[i];
        if (err > LOAD_LEN_TOL * t.len[i] || err < -LOAD_LEN_TOL * t.len[i]) return SIM_ECORRUPT;
        vx /= m;
        vy /= m;
        if (i >= 2 && ux * vx + uy * vy < cos_lim) return SIM_ECORRUPT;
        ux = vx;
        uy = vy;
    }
    *s = t;
    return 0;
}
