/* limbs.c — the legs: limb geometry (shoulders, reach, two-bone IK for the doll), footholds, and
 * each limb's four-state machine under the gait coordinator. Limbs are points that never touch
 * the solver; the doll (doll.c) draws legs wherever they ended up. */
#include "terrarium_int.h"

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define REACH_RETARGET 1.25          /* a swing retargets past 1.25 reaches */
#define REACH_LET_GO 1.12            /* a planted foot lets go past 1.12 reaches */
#define FOOTHOLD_RADII 1.7           /* candidates within 1.7 comfort radii of the ideal spot */
#define FOOTHOLD_STEP 2.0            /* ours: sample spacing along a segment */
#define GAIT_SETTLE 2                /* 0.05 s: a limb planted this recently still blocks the other pair */
#define TRAVEL_MIN 6.0               /* ours: units/s; slower is a body settling (at rest it drifts
                                      * 1–3), not travel: a sixth of the lizard's patrol speed */

/* ---- limb geometry ------------------------------------------------------------------------------ */
double terra__reach(const terra_creature *c) { return spec(c)->thigh + spec(c)->shin; }

void terra__shoulder(const terra_world *t, const terra_creature *c, int i, double *x, double *y)
{
    const sim_chunk *ch = cchunk(t, c, i < 2 ? 1 : 2);
    *x = ch->x;
    *y = ch->y;
}

int terra__planted(const terra_creature *c)
{
    int n = 0;
    for (int i = 0; i < TERRA_NLIMB; i++) n += c->limb[i].state == LIMB_PLANTED;
    return n;
}

void terra__knee(double sx, double sy, double fx, double fy, double a, double b, double bx,
                 double by, double *kx, double *ky)
{
    double dx = fx - sx, dy = fy - sy;
    double c = sim_sqrt(dx * dx + dy * dy);
    double ux, uy;
    if (c < 1e-9) {
        ux = 0.0;
        uy = 1.0;
    } else {
        ux = dx / c;
        uy = dy / c;
    }
    /* Clamp the span into what the two bones can make. */
    double cmin = dabs(a - b) + 1e-6, cmax = a + b;
    if (c < cmin) c = cmin;
    if (c > cmax) c = cmax;
    /* Law of cosines: cos α = (a² + c² − b²) / 2ac, with α the angle at the shoulder. */
    double ca = (a * a + c * c - b * b) / (2.0 * a * c);
    ca = clampd(ca, -1.0, 1.0);
    double sa = sim_sqrt(1.0 - ca * ca);
    double px = -uy, py = ux;                    /* one of the two perpendiculars */
    if (px * bx + py * by < 0.0) {               /* the bend sign picks the mirror solution */
        px = -px;
        py = -py;
    }
    *kx = sx + a * (ux * ca + px * sa);
    *ky = sy + a * (uy * ca + py * sa);
}

/* ---- footholds --------------------------------------------------------------------------------------
 * Terrain samples within 1.7 comfort radii of the ideal spot, in reach, not on an underside (a
 * surface whose face toward the shoulder points down, or a one-way plank seen from below), with
 * nothing solid between shoulder and foot; the nearest to the ideal spot wins. */
typedef struct foothold {
    double x, y, nx, ny;
    int seg;
} foothold;

static int choose_foothold(const terra_world *t, double sx, double sy, double ix, double iy,
                           double comfort, double reach, foothold *out)
{
    double R = FOOTHOLD_RADII * comfort, reach_ok = REACH_STEP * reach;
    double best_d2 = -1.0;
    for (int k = 0; k < TERRA_NSEG; k++) {
        const sim_seg *s = &terra_segs[k];
        double qx, qy, tq;
        double d2 = sim_seg_closest(s, ix, iy, &qx, &qy, &tq);
        if (d2 > R * R) continue;
        if (best_d2 >= 0.0 && d2 >= best_d2) continue;        /* cannot beat the best so far */
        double nx, ny;
        sim_seg_normal(s, &nx, &ny);
        double side = (sx - s->ax) * nx + (sy - s->ay) * ny;
        if (s->kind == SIM_SEG_ONEWAY && side < 0.0) continue;   /* a plank from below */
        if (s->kind != SIM_SEG_ONEWAY && side < 0.0) {
            nx = -nx;
            ny = -ny;
        }
        if (s->kind != SIM_SEG_POLE && ny > 0.3) continue;        /* an underside */
        double ex = s->bx - s->ax, ey = s->by - s->ay;
        double len = sim_sqrt(ex * ex + ey * ey);
        double half = sim_sqrt(R * R - d2) / len, step = FOOTHOLD_STEP / len;
        int nsteps = (int)(half / step);
        /* Walk outward from the nearest point: the distance to the ideal spot only grows, so the
         * first sample in reach on either side is that side's best. */
        double seg_best = -1.0, bx = 0.0, by = 0.0;
        for (int dirn = -1; dirn <= 1; dirn += 2) {
            for (int n = dirn < 0 ? 0 : 1; n <= nsteps; n++) {
                double u = tq + (double)(dirn * n) * step;
                if (u < 0.0 || u > 1.0) break;
                double px = s->ax + ex * u, py = s->ay + ey * u;
                double rx = px - sx, ry = py - sy;
                if (rx * rx + ry * ry > reach_ok * reach_ok) continue;
                double e2 = (px - ix) * (px - ix) + (py - iy) * (py - iy);
                if (seg_best < 0.0 || e2 < seg_best) {
                    seg_best = e2;
                    bx = px;
                    by = py;
                }
                break;
            }
        }
        if (seg_best < 0.0 || (best_d2 >= 0.0 && seg_best >= best_d2)) continue;
        if (sim_verlet_blocked(&t->v, sx, sy, bx, by, k)) continue;
        best_d2 = seg_best;
        out->x = bx;
        out->y = by;
        out->nx = nx;
        out->ny = ny;
        out->seg = k;
    }
    return best_d2 >= 0.0;
}

/* The direction of travel for limb i, −1 or +1 along x: the way its shoulder's chunk is moving,
 * once that is travel rather than a body settling (faster than TRAVEL_MIN); slower, the way the
 * brain is driving the body (the seed's brain writes a direction and a speed, and the body is
 * pushed); and with no drive — standing, pausing, watching — the way the creature faces: the
 * seed's head, with nothing else to look at, looks "the direction of travel", and at rest that is
 * where it faces. */
static double travel_dir(const terra_world *t, const terra_creature *c, int i)
{
    const sim_chunk *ch = cchunk(t, c, i < 2 ? 1 : 2);
    double vx = (ch->x - ch->px) / DT;
    if (vx > TRAVEL_MIN) return 1.0;
    if (vx < -TRAVEL_MIN) return -1.0;
    if (c->speed > 0.0 && c->dir_x != 0.0) return c->dir_x > 0.0 ? 1.0 : -1.0;
    return c->facing < 0 ? -1.0 : 1.0;
}

/* The ideal spot for limb i: the fixed lead (18 lizard, 13 scrambler) ahead of the shoulder in the
 * direction of travel, dropped onto the surface below it (on a pole: lead up the pole from the
 * shoulder, projected onto the pole). */
static void ideal_spot(const terra_world *t, const terra_creature *c, int i, double *ix, double *iy)
{
    const terra_species *sp = spec(c);
    double sx, sy;
    terra__shoulder(t, c, i, &sx, &sy);
    if (c->nav == NAV_CLIMB && c->climb_seg >= 0) {
        const sim_seg *p = &terra_segs[c->climb_seg];
        double top = dmin(p->ay, p->by), bot = dmax(p->ay, p->by);
        *ix = p->ax;
        *iy = clampd(sy - sp->lead, top, bot);
        return;
    }
    double x = sx + sp->lead * travel_dir(t, c, i);
    double gy;
    if (sim_verlet_ground(&t->v, x, sy, 2.0 * terra__reach(c), &gy) >= 0) {
        *ix = x;
        *iy = gy;
    } else {
        *ix = x;
        *iy = sy + sp->ride;
    }
}

/* ---- limbs ----------------------------------------------------------------------------------------------
 * The gait coordinator: a limb may begin a swing only when no limb of the other diagonal pair is
 * mid-swing or has been planted for less than 0.05 s. Nothing here names a trot. */
static int gait_allows(const terra_creature *c, int i)
{
    for (int j = 0; j < TERRA_NLIMB; j++) {
        if (LIMB_GROUP(j) == LIMB_GROUP(i)) continue;
        const terra_limb *l = &c->limb[j];
        if (l->state == LIMB_SWINGING) return 0;
        if (l->state == LIMB_PLANTED && l->t < GAIT_SETTLE) return 0;
    }
    return 1;
}

/* Fairness, ours: the seed's rule alone lets one pair starve the other (its two limbs taking
 * turns, so one of them is always mid-swing or just down). A planted limb is only stretched; a
 * dangling one holds nothing up. So a planted limb may not start a swing while a limb of the
 * other pair dangles, waiting for footing. */
static int other_pair_dangling(const terra_creature *c, int i)
{
    for (int j = 0; j < TERRA_NLIMB; j++)
        if (LIMB_GROUP(j) != LIMB_GROUP(i) && c->limb[j].state == LIMB_DANGLING) return 1;
    return 0;
}

static void start_swing(terra_creature *c, terra_limb *l, const foothold *f)
{
    l->state = LIMB_SWINGING;
    l->sx = l->fx;
    l->sy = l->fy;
    l->tx = f->x;
    l->ty = f->y;
    l->nx = f->nx;
    l->ny = f->ny;
    l->seg = (int8_t)f->seg;
    l->t = 0;
    (void)c;
}

void terra__update_limbs(terra_world *t, terra_creature *c, uint64_t tick)
{
    const terra_species *sp = spec(c);
    double reach = terra__reach(c);
    int standing = c->brain != BR_RIGHTING && c->lunge == 0;
    for (int i = 0; i < TERRA_NLIMB; i++)
        if (c->limb[i].t < 60000) c->limb[i].t++;
    for (int i = 0; i < TERRA_NLIMB; i++) {
        terra_limb *l = &c->limb[i];
        double sx, sy, ix, iy;
        terra__shoulder(t, c, i, &sx, &sy);
        ideal_spot(t, c, i, &ix, &iy);
        l->ix = ix;
        l->iy = iy;
        foothold f;
        if (c->lunge > 0 && l->state != LIMB_TUCKED) l->state = LIMB_TUCKED;
        if (c->brain == BR_RIGHTING && l->state != LIMB_DANGLING) l->state = LIMB_DANGLING;
        switch (l->state) {
        case LIMB_PLANTED: {
            double d = dist(l->fx, l->fy, sx, sy);
            if (d > REACH_LET_GO * reach) {
                l->state = LIMB_DANGLING;            /* let go rather than rubber-band */
                l->seg = -1;
                break;
            }
            if (!standing) break;
            int wants = d > REACH_STEP * reach || dist(l->fx, l->fy, ix, iy) > sp->comfort;
            if (wants && gait_allows(c, i) && !other_pair_dangling(c, i) &&
                choose_foothold(t, sx, sy, ix, iy, sp->comfort, reach, &f) &&
                dist(f.x, f.y, l->fx, l->fy) > 1.0)
                start_swing(c, l, &f);
            break;
        }
        case LIMB_SWINGING:
            if (dist(l->tx, l->ty, sx, sy) > REACH_RETARGET * reach) {
                /* The body ran away: retarget in flight, or give up and dangle. */
                if (choose_foothold(t, sx, sy, ix, iy, sp->comfort, reach, &f)) {
                    start_swing(c, l, &f);
                } else {
                    l->state = LIMB_DANGLING;
                    l->seg = -1;
                    break;
                }
            }
            if (l->t >= sp->swing_ticks) {
                l->fx = l->tx;
                l->fy = l->ty;
                l->state = LIMB_PLANTED;
                l->t = 0;
            } else {
                /* Eased (smoothstep) with a lift along the destination surface's normal: a step
                 * onto the floor arcs upward, a step onto a pole arcs outward. */
                double u = (double)l->t / (double)sp->swing_ticks;
                double e = u * u * (3.0 - 2.0 * u), lift = sp->lift * 4.0 * u * (1.0 - u);
                l->fx = l->sx + (l->tx - l->sx) * e + l->nx * lift;
                l->fy = l->sy + (l->ty - l->sy) * e + l->ny * lift;
            }
            break;
        case LIMB_DANGLING: {
            /* Hang under the shoulder with a small sine sway, probing for footing. */
            double ph = (double)tick * 0.16 + (double)i * 1.7;
            double hx = sx + 0.12 * reach * sim_sin(ph), hy = sy + 0.72 * reach;
            l->fx += (hx - l->fx) * 0.35;
            l->fy += (hy - l->fy) * 0.35;
            l->seg = -1;
            if (standing && gait_allows(c, i) &&
                choose_foothold(t, sx, sy, ix, iy, sp->comfort, reach, &f))
                start_swing(c, l, &f);
            break;
        }
        case LIMB_TUCKED: {
            double hx = sx - c->facing * 0.35 * reach, hy = sy + 0.3 * reach;
            l->fx += (hx - l->fx) * 0.5;
            l->fy += (hy - l->fy) * 0.5;
            l->seg = -1;
            if (c->lunge == 0) l->state = LIMB_DANGLING;
            break;
        }
        default: break;
        }
    }
}
