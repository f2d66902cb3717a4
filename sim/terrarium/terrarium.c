/* terrarium.c — the Rain World-style terrarium (seed 001, and section 1 of seed 000): a lizard and
 * a scrambler on a Verlet frame in one authored room, with legs, brains and dolls. 40 Hz.
 *
 * Nothing moves by keyframed animation. A brain writes a direction and a target speed; the body is
 * pushed (a ride-height spring per body chunk, a drive, a little grip from planted feet); the
 * solver (verlet.c) does the rest. Limbs are points with a four-state machine that never touch the
 * frame; the doll (terrarium_doll.c) is drawn over wherever the circles ended up.
 *
 * A tick: apply inputs (grab, drag, release, shove, spawn, pointer) → each brain thinks → each
 * body is pushed → one solver step → each creature senses (contacts, facing, where it is) and its
 * limbs and head update. All timers count ticks; every random choice comes from a creature's own
 * stream, sim_rng_stream(seed, "terrarium.creature.N").
 *
 * World units are the seed's. The room is 480×270 units; the frame shows it at w/480 pixels a
 * unit (two thirds of a pixel at the default 320×180). Inputs come in frame pixels. */
#include "terrarium.h"
#include <stdlib.h>

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define DT TERRA_DT
#define GRAVITY 540.0                /* ours: units/s²; with the 9-unit cap, falls top out at 360/s */
#define AIR_DRAG 0.002               /* ours: 8% of velocity a second in the air, so ropes settle */
#define SPRING_K 260.0               /* ours: ride-height spring, 1/s² (ω ≈ 16/s) */
#define SPRING_D 22.0                /* ours: its damping, 1/s (ζ ≈ 0.7) */
#define AIRBORNE_AUTHORITY 0.15      /* drive authority with nothing planted */
#define GRIP 0.2                     /* ours: planted feet brake excess speed, fraction per tick */
#define TAIL_STIFF 0.8
#define TAIL_SKIP_STIFF 0.06
#define CROUCH_RATE (DT / 0.5)       /* crouch rises to 1 over 0.5 s (and falls as fast) */
#define CROUCH_RIDE 0.3              /* stalking lowers the ride height by 30% … */
#define CROUCH_HEAD 0.4              /* … and the lizard's head chunk by a further 40% */
#define LUNGE_KICK 7.2               /* units per tick */
#define LUNGE_TICKS 17               /* 0.42 s of raised speed cap */
#define LUNGE_CAP (LUNGE_KICK / DT)  /* ours: the raised cap is the kick's own speed */
#define LUNGE_RANGE 115.0            /* ours: a lunge covers about this much floor */
#define HEAD_RATE (7.0 * DT)         /* min(1, 7·dt) per tick */
#define POINTER_RANGE 170.0
#define POINTER_TTL (5 * TERRA_HZ)   /* ours: a pointer stays interesting for 5 s after it moves */
#define SPOT_RANGE 260.0
#define STALK_MIN (3 * TERRA_HZ / 2) /* 1.5 s */
#define STALK_MAX (3 * TERRA_HZ)     /* 3 s */
#define GIVE_UP (3 * TERRA_HZ)       /* 3 s past the stalk timer */
#define IGNORE_TICKS (8 * TERRA_HZ)  /* 8 s of ignoring the prey after a lunge (and a give-up) */
#define FLEE_RANGE 190.0
#define FLEE_RANGE_CROUCH 300.0
#define NERVE_MIN (3 * TERRA_HZ)
#define NERVE_MAX (6 * TERRA_HZ)
#define RIGHTING_CONTACT 12          /* 0.3 s of continuous ground contact */
#define THROWN_TICKS 30              /* ours: 0.75 s with no footing and no ground means thrown */
#define WRIGGLE_AFTER 40             /* ours: 1 s hanging helpless, and it starts to wriggle … */
#define WRIGGLE_EVERY 8              /* … a jerk every fifth of a second … */
#define WRIGGLE 3.0                  /* … of 3 units a tick, sideways */
#define REACH_STEP 0.96              /* a planted foot asks to step past 96% of its reach */
#define REACH_RETARGET 1.25          /* a swing retargets past 1.25 reaches */
#define REACH_LET_GO 1.12            /* a planted foot lets go past 1.12 reaches */
#define FOOTHOLD_RADII 1.7           /* candidates within 1.7 comfort radii of the ideal spot */
#define FOOTHOLD_STEP 2.0            /* ours: sample spacing along a segment */
#define GAIT_SETTLE 2                /* 0.05 s: a limb planted this recently still blocks the other pair */
#define GRAB_STIFF 0.4
#define GRAB_REACH 16.0              /* ours: a grab takes a chunk whose edge is this close */
#define SHOVE_RADIUS 40.0            /* ours */
#define SHOVE_MAX 8.0                /* ours: the cap on a shove, units per tick (under the 9 cap) */
#define KNOCK_X 3.5                  /* ours: a lunge that reaches its prey bowls it over */
#define KNOCK_UP 2.5
#define CLIMB_SPEED 50.0             /* ours: units/s up a pole */
#define CLING_STIFF 0.3              /* ours: the pole cling pins */
#define MOUNT_TICKS 12               /* ours: from the top of a pole onto its plank */
#define CLING_TAG 0x80000000u        /* cling pins: CLING_TAG | creature << 4 | chunk */
#define TURN_K 240.0                 /* ours: turning round, the steering spring (1/s²) … */
#define TURN_D 24.0                  /* … its damping (1/s) … */
#define TURN_LEAN 0.5                /* … toward a point over the pivot, leaning the new way */
#define TURN_RISE 0.87
#define TURN_START 0.25              /* ours: a turn starts when the head is this far (× neck) behind */
#define TURN_DONE 0.3                /* … and a chunk has turned when this far (× its bone) ahead */
#define TURN_BRACE 0.5               /* ours: the rest brace: fraction of speed lost per tick */

/* ---- the room -----------------------------------------------------------------------------------
 * Eleven segments typed in by hand, as the seed says a room is. The floor has a V-shaped gully in
 * the middle; two one-way planks, each with a pole up through it; the right-hand one, higher, is
 * the refuge. Walls, ceiling and floor run 24 units past each other into the rock at the room's
 * corners, and the two sides of the gully past each other at its bottom: concave corners must
 * overlap (verlet.h), or a chunk driven diagonally into one could end up beyond both segments. */
#define WALL_L 10.0
#define WALL_R 470.0
#define CEIL_Y 14.0
#define FLOOR_Y 238.0
#define OVERLAP 24.0
const sim_seg terra_segs[TERRA_NSEG] = {
    [SEG_WALL_L] = { WALL_L, CEIL_Y - OVERLAP, WALL_L, FLOOR_Y + OVERLAP, SIM_SEG_SOLID },
    [SEG_WALL_R] = { WALL_R, FLOOR_Y + OVERLAP, WALL_R, CEIL_Y - OVERLAP, SIM_SEG_SOLID },
    [SEG_CEILING] = { WALL_R + OVERLAP, CEIL_Y, WALL_L - OVERLAP, CEIL_Y, SIM_SEG_SOLID },
    [SEG_FLOOR_L] = { WALL_L - OVERLAP, FLOOR_Y, 196.0, FLOOR_Y, SIM_SEG_SOLID },
    /* The gully's sides, 44 across and 18 down each, carried on 24 units past the bottom. */
    [SEG_GULLY_L] = { 196.0, FLOOR_Y, 240.0 + 44.0 * OVERLAP / 47.539, 256.0 + 18.0 * OVERLAP / 47.539,
                      SIM_SEG_SOLID },
    [SEG_GULLY_R] = { 240.0 - 44.0 * OVERLAP / 47.539, 256.0 + 18.0 * OVERLAP / 47.539, 284.0, FLOOR_Y,
                      SIM_SEG_SOLID },
    [SEG_FLOOR_R] = { 284.0, FLOOR_Y, WALL_R + OVERLAP, FLOOR_Y, SIM_SEG_SOLID },
    [SEG_PLANK_L] = { 56.0, 150.0, 150.0, 150.0, SIM_SEG_ONEWAY },
    [SEG_PLANK_R] = { 348.0, 124.0, 440.0, 124.0, SIM_SEG_ONEWAY },
    [SEG_POLE_L] = { 126.0, FLOOR_Y, 126.0, 144.0, SIM_SEG_POLE },
    [SEG_POLE_R] = { 372.0, FLOOR_Y, 372.0, 118.0, SIM_SEG_POLE },
};

const terra_node terra_nodes[TERRA_NNODE] = {
    { 40.0, FLOOR_Y, SEG_FLOOR_L },  { 126.0, FLOOR_Y, SEG_FLOOR_L }, { 240.0, 256.0, SEG_GULLY_L },
    { 320.0, FLOOR_Y, SEG_FLOOR_R }, { 372.0, FLOOR_Y, SEG_FLOOR_R }, { 452.0, FLOOR_Y, SEG_FLOOR_R },
    { 100.0, 150.0, SEG_PLANK_L },   { 410.0, 124.0, SEG_PLANK_R },
};

/* Nine edges: five walks along the floor, a pole up to each plank, a drop off the far end of
 * each. The lizard may not use pole edges, so the refuge is a node it reaches on no path. */
const terra_edge terra_edges[TERRA_NEDGE] = {
    { 0, 1, EDGE_WALK, -1 }, { 1, 2, EDGE_WALK, -1 }, { 2, 3, EDGE_WALK, -1 },
    { 3, 4, EDGE_WALK, -1 }, { 4, 5, EDGE_WALK, -1 },
    { 1, 6, EDGE_POLE, SEG_POLE_L }, { 4, 7, EDGE_POLE, SEG_POLE_R },
    { 6, 0, EDGE_DROP, -1 }, { 7, 5, EDGE_DROP, -1 },
};

#define NFLOOR_NODES 6

/* ---- species ------------------------------------------------------------------------------------
 * Comfort, lead and drive are the seed's; the rest is ours, sized so that the ideal spot
 * (lead ahead, ride below) sits inside 96% of the reach. */
const terra_species terra_species_table[2] = {
    [SPECIES_LIZARD] = {
        .name = "lizard", .body_kind = BODY_LIZARD, .ntail = 7,
        .r = { 4.5, 7.0, 6.5 }, .m = { 0.9, 1.3, 1.1 }, .neck = 11.0, .back = 15.0,
        .tail_link = 8.5, .tail_r = 2.0, .ride = 14.0, .thigh = 14.0, .shin = 14.0,
        .comfort = 20.0, .lead = 18.0, .swing_ticks = 6, .lift = 5.0, .tail_lift = 0.6 * GRAVITY,
        .accel = 260.0, .walk = 36.0, .fast = 66.0, .slow = 24.0,
    },
    [SPECIES_SCRAMBLER] = {
        .name = "scrambler", .body_kind = BODY_SCRAMBLER, .ntail = 4,
        .r = { 4.5, 5.5, 5.5 }, .m = { 0.5, 0.7, 0.6 }, .neck = 9.0, .back = 11.0,
        .tail_link = 7.0, .tail_r = 1.5, .ride = 12.0, .thigh = 12.0, .shin = 12.0,
        .comfort = 15.0, .lead = 13.0, .swing_ticks = 4, .lift = 4.0, .tail_lift = 1.0 * GRAVITY,
        .accel = 330.0, .walk = 44.0, .fast = 85.0, .slow = 30.0,
    },
};

static const char *const brain_names[BR_NSTATES] = {
    "patrol", "pause", "stalk", "lunge", "potter", "look", "flee", "refuge", "righting",
};

const char *terra__brain_name(int brain)
{
    return brain >= 0 && brain < BR_NSTATES ? brain_names[brain] : "?";
}

/* ---- small maths ----------------------------------------------------------------------------------- */
static double dabs(double v) { return v < 0.0 ? -v : v; }
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double dist(double ax, double ay, double bx, double by)
{
    return sim_sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by));
}
static double sgn(double v) { return (double)((v > 0.0) - (v < 0.0)); }

/* a − b wrapped into (−π, π]: the short way round. */
static double angle_diff(double a, double b)
{
    double d = a - b;
    while (d > SIM_PI) d -= 2.0 * SIM_PI;
    while (d <= -SIM_PI) d += 2.0 * SIM_PI;
    return d;
}

/* ---- creature geometry ------------------------------------------------------------------------------ */
static const terra_species *spec(const terra_creature *c) { return &terra_species_table[c->species]; }

int terra__chunk(const terra_world *t, const terra_creature *c, int k)
{
    return t->v.body[c->body].c0 + k;
}

static sim_chunk *chunk_of(terra_world *t, const terra_creature *c, int k)
{
    return &t->v.chunk[terra__chunk(t, c, k)];
}

static const sim_chunk *cchunk(const terra_world *t, const terra_creature *c, int k)
{
    return &t->v.chunk[terra__chunk(t, c, k)];
}

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

double terra__ride(const terra_creature *c, int k)
{
    double ride = spec(c)->ride * (1.0 - CROUCH_RIDE * c->crouch);
    if (k == 0 && c->species == SPECIES_LIZARD) ride *= 1.0 - CROUCH_HEAD * c->crouch;
    return ride;
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

/* ---- path search ---------------------------------------------------------------------------------- */
int terra__path(int from, int to, int can_climb, int *path, int max)
{
    if (from < 0 || from >= TERRA_NNODE || to < 0 || to >= TERRA_NNODE || max < 1) return 0;
    double best[TERRA_NNODE];
    int prev[TERRA_NNODE], done[TERRA_NNODE];
    for (int i = 0; i < TERRA_NNODE; i++) {
        best[i] = -1.0;
        prev[i] = -1;
        done[i] = 0;
    }
    best[from] = 0.0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < TERRA_NNODE; i++)
            if (!done[i] && best[i] >= 0.0 && (u < 0 || best[i] < best[u])) u = i;
        if (u < 0 || u == to) break;
        done[u] = 1;
        for (int e = 0; e < TERRA_NEDGE; e++) {
            const terra_edge *ed = &terra_edges[e];
            if (ed->kind == EDGE_POLE && !can_climb) continue;
            int w;
            if (ed->a == u) w = ed->b;
            else if (ed->b == u && ed->kind == EDGE_WALK) w = ed->a;
            else continue;
            double d = best[u] + dist(terra_nodes[u].x, terra_nodes[u].y, terra_nodes[w].x,
                                      terra_nodes[w].y);
            if (!done[w] && (best[w] < 0.0 || d < best[w])) {
                best[w] = d;
                prev[w] = u;
            }
        }
    }
    if (best[to] < 0.0) return 0;
    int n = 0, rev[TERRA_NNODE];
    for (int v = to; v >= 0; v = prev[v]) rev[n++] = v;
    int out = n < max ? n : max;
    for (int i = 0; i < out; i++) path[i] = rev[n - 1 - i];
    return out;
}

/* The edge from a to b (either way for walks), or −1. */
static int edge_between(int a, int b)
{
    for (int e = 0; e < TERRA_NEDGE; e++) {
        const terra_edge *ed = &terra_edges[e];
        if (ed->a == a && ed->b == b) return e;
        if (ed->kind == EDGE_WALK && ed->b == a && ed->a == b) return e;
    }
    return -1;
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

/* The ideal spot for limb i: lead units ahead of the shoulder in the direction of travel, dropped
 * onto the surface below it (on a pole: projected onto the pole). Standing still, the direction
 * of travel has no length, and the spot is under the shoulder. */
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
    const sim_chunk *ch = cchunk(t, c, i < 2 ? 1 : 2);
    double vx = (ch->x - ch->px) / DT;
    double frac = clampd(vx / (0.5 * sp->walk), -1.0, 1.0);
    double x = sx + sp->lead * frac;
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

static void update_limbs(terra_world *t, terra_creature *c, uint64_t tick)
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

/* ---- building bodies ------------------------------------------------------------------------------ */
/* Height of the floor line (not the planks) at x: where the floor's pieces overlap (the bottom
 * of the gully) the surface is the higher of them. */
double terra__floor_y(double x)
{
    double best = FLOOR_Y + 1000.0;
    for (int k = SEG_FLOOR_L; k <= SEG_FLOOR_R; k++) {
        const sim_seg *s = &terra_segs[k];
        if (x < s->ax || x > s->bx) continue;
        double y = s->ay + (s->by - s->ay) * ((x - s->ax) / (s->bx - s->ax));
        if (y < best) best = y;
    }
    return best;
}

/* The top of whatever lies under (x, y): a plank or the floor. */
static double ground_under(const terra_world *t, double x, double y)
{
    double gy;
    if (sim_verlet_ground(&t->v, x, y, 1000.0, &gy) >= 0) return gy;
    return terra__floor_y(x);
}

static void stream_name(char *dst, size_t cap, int idx)
{
    sim__fmt(dst, cap, "terrarium.creature.%d", idx);
}

/* The stream for creature idx: a pure function of (seed, idx). */
static void creature_rng(sim_rng *r, uint64_t seed, int idx)
{
    char name[48];
    stream_name(name, sizeof name, idx);
    sim_rng_stream(r, seed, name);
}

/* A lizard or a scrambler with its chest at about (x, y), head toward the middle of the room and
 * tail toward the nearer wall, moved along so that all of it fits in the room and lifted to stand
 * clear of the ground. Returns the creature index or −1 (full). Nothing changes on failure. */
static int build_creature(terra_world *t, int species, double x, double y, uint64_t seed)
{
    if (t->ncr >= TERRA_MAX_CREATURES) return -1;
    const terra_species *sp = &terra_species_table[species];
    int f = x < 0.5 * TERRA_ROOM_W ? 1 : -1;
    double behind = sp->back + sp->ntail * sp->tail_link + sp->tail_r + 4.0;
    double ahead = sp->neck + sp->r[0] + 4.0;
    if (f > 0) x = clampd(x, WALL_L + behind, WALL_R - ahead);
    else x = clampd(x, WALL_L + ahead, WALL_R - behind);
    int b = sim_verlet_body_begin(&t->v, (uint8_t)sp->body_kind);
    if (b < 0) return -1;
    double along[3 + TERRA_MAX_TAIL];
    along[0] = sp->neck;
    along[1] = 0.0;
    along[2] = -sp->back;
    for (int k = 0; k < sp->ntail; k++) along[3 + k] = -sp->back - (k + 1) * sp->tail_link;
    int c0 = t->v.nchunk, ok = 1;
    for (int k = 0; k < 3 + sp->ntail; k++) {
        double cx = x + f * along[k];
        double r = k < 3 ? sp->r[k] : sp->tail_r;
        double lift = k < 3 ? sp->ride : r + 1.0;
        double cy = dmin(y, ground_under(t, cx, y - 1.0) - lift);
        double m = k < 3 ? sp->m[k] : 0.25 * sp->m[2];          /* tails at a quarter mass */
        ok &= sim_verlet_add_chunk(&t->v, cx, cy, r, m) >= 0;
    }
    if (ok) {
        ok &= sim_verlet_add_link(&t->v, c0 + 0, c0 + 1, sp->neck, 1.0) >= 0;
        ok &= sim_verlet_add_link(&t->v, c0 + 1, c0 + 2, sp->back, 1.0) >= 0;
        /* The tail hangs off the hips: links at 0.8, skip links at 0.06 between every other one. */
        int chain[1 + TERRA_MAX_TAIL];
        chain[0] = c0 + 2;
        for (int k = 0; k < sp->ntail; k++) chain[1 + k] = c0 + 3 + k;
        for (int k = 0; k < sp->ntail; k++)
            ok &= sim_verlet_add_link(&t->v, chain[k], chain[k + 1], sp->tail_link, TAIL_STIFF) >= 0;
        for (int k = 0; k + 2 <= sp->ntail; k++)
            ok &= sim_verlet_add_link(&t->v, chain[k], chain[k + 2], 2.0 * sp->tail_link,
                                      TAIL_SKIP_STIFF) >= 0;
    }
    if (!ok) {
        sim_verlet_body_drop_last(&t->v);
        return -1;
    }
    int idx = t->ncr++;
    terra_creature *c = &t->cr[idx];
    memset(c, 0, sizeof *c);
    c->species = (uint8_t)species;
    c->brain = species == SPECIES_LIZARD ? BR_PATROL : BR_POTTER;
    c->nav = NAV_WALK;
    c->facing = (int8_t)f;
    c->body = (uint16_t)b;
    c->at = c->goal = c->other = c->climb_seg = -1;
    c->head = f > 0 ? 0.0 : SIM_PI;
    creature_rng(&c->rng, seed, idx);
    double reach = sp->thigh + sp->shin;
    for (int i = 0; i < TERRA_NLIMB; i++) {
        terra_limb *l = &c->limb[i];
        double sx, sy, gy;
        terra__shoulder(t, c, i, &sx, &sy);
        /* Front and hind feet a little apart, near and far a little apart: a stance. */
        double fx = sx + f * ((i & 1) ? 3.0 : -3.0);
        int seg = sim_verlet_ground(&t->v, fx, sy, reach, &gy);
        if (seg >= 0 && dist(fx, gy, sx, sy) < REACH_STEP * reach) {
            l->state = LIMB_PLANTED;
            l->fx = l->tx = fx;
            l->fy = l->ty = gy;
            l->nx = 0.0;
            l->ny = -1.0;
            l->seg = (int8_t)seg;
            l->t = 1000;
        } else {
            l->state = LIMB_DANGLING;
            l->fx = sx;
            l->fy = sy + 0.7 * reach;
            l->seg = -1;
        }
        l->sx = l->fx;
        l->sy = l->fy;
        l->ix = l->fx;
        l->iy = l->fy;
    }
    return idx;
}

static int build_rope(terra_world *t, double x, double y)
{
    double len = (SIM_ROPE_CHUNKS - 1) * SIM_ROPE_LINK;
    double x0 = clampd(x - 0.5 * len, WALL_L + SIM_ROPE_RADIUS + 2.0, WALL_R - SIM_ROPE_RADIUS - 2.0 - len);
    int b = sim_verlet_make_rope(&t->v, BODY_ROPE, x0, y, 1.0, 0.0);
    if (b < 0) return -1;
    /* Lift each chunk clear of whatever is under it. */
    const sim_body *bd = &t->v.body[b];
    for (int k = bd->c0; k < bd->c0 + bd->nc; k++) {
        sim_chunk *c = &t->v.chunk[k];
        double top = ground_under(t, c->x, y - 1.0) - SIM_ROPE_RADIUS - 1.0;
        if (c->y > top) c->y = c->py = top;
    }
    return b;
}

static int count_bodies(const terra_world *t, int kind)
{
    int n = 0;
    for (int i = 0; i < t->v.nbody; i++) n += t->v.body[i].kind == kind;
    return n;
}

/* ---- pins the brains own ---------------------------------------------------------------------------- */
static uint32_t cling_tag(int ci, int k) { return CLING_TAG | ((uint32_t)ci << 4) | (uint32_t)k; }

static int grabbed(const terra_world *t, const terra_creature *c)
{
    for (int i = 0; i < t->v.npin; i++)
        if (t->v.pin[i].body == c->body && !(t->v.pin[i].tag & CLING_TAG)) return 1;
    return 0;
}

static void release_cling(terra_world *t, int ci)
{
    for (int k = 0; k < 3; k++) {
        int p = sim_verlet_pin_find(&t->v, cling_tag(ci, k));
        if (p >= 0) sim_verlet_pin_remove(&t->v, p);
    }
}

static void set_cling(terra_world *t, int ci, int k, double x, double y)
{
    int p = sim_verlet_pin_find(&t->v, cling_tag(ci, k));
    if (p >= 0) {
        t->v.pin[p].x = x;
        t->v.pin[p].y = y;
    }
}

/* ---- where a creature is, and getting about ------------------------------------------------------ */
static int nearest_floor_node(double x)
{
    int best = 0;
    for (int n = 1; n < NFLOOR_NODES; n++)
        if (dabs(terra_nodes[n].x - x) < dabs(terra_nodes[best].x - x)) best = n;
    return best;
}

static int node_of_seg(int seg, double x)
{
    if (seg == SEG_PLANK_L) return NODE_PLANK_L;
    if (seg == SEG_PLANK_R) return NODE_REFUGE;
    if (seg >= SEG_FLOOR_L && seg <= SEG_FLOOR_R) return nearest_floor_node(x);
    return -1;
}

/* Pick somewhere to go: any floor node for a lizard; for a scrambler, now and then the top of a
 * pole (it climbs for fun). Never where it already is. */
static void choose_goal(terra_creature *c)
{
    int g;
    for (int tries = 0; tries < 8; tries++) {
        if (c->species == SPECIES_SCRAMBLER && sim_rng_below(&c->rng, 10) < 3)
            g = NFLOOR_NODES + (int)sim_rng_below(&c->rng, 2);
        else
            g = (int)sim_rng_below(&c->rng, NFLOOR_NODES);
        if (g != c->at) {
            c->goal = (int16_t)g;
            return;
        }
    }
    c->goal = (int16_t)(c->at == 0 ? NFLOOR_NODES - 1 : 0);
}

static void start_climb(terra_world *t, terra_creature *c, int ci, int pole)
{
    c->nav = NAV_CLIMB;
    c->climb_seg = (int16_t)pole;
    c->climb_y = cchunk(t, c, 1)->y;
    c->mount = 0.0;
    for (int k = 0; k < 3; k++) {
        const sim_chunk *ch = cchunk(t, c, k);
        sim_verlet_pin_add(&t->v, terra__chunk(t, c, k), cling_tag(ci, k), ch->x, ch->y, CLING_STIFF);
    }
}

/* Climbing: the cling pins hold head, chest and hips on the pole and move up it; at the top they
 * carry the body over onto the plank (which it passes up through: one-way), then let go. */
static void climb_step(terra_world *t, terra_creature *c, int ci)
{
    const terra_species *sp = spec(c);
    const sim_seg *pole = &terra_segs[c->climb_seg];
    int top = -1;
    for (int e = 0; e < TERRA_NEDGE; e++)
        if (terra_edges[e].pole == c->climb_seg) top = terra_edges[e].b;
    double px = pole->ax, plank_y = terra_nodes[top].y, stand_y = plank_y - sp->ride;
    c->dir_x = c->dir_y = c->speed = 0.0;
    if (c->nav == NAV_CLIMB) {
        c->climb_y -= CLIMB_SPEED * DT;
        if (c->climb_y <= stand_y - 2.0) {
            c->climb_y = stand_y - 2.0;
            c->nav = NAV_MOUNT;
            c->mount = 0.0;
        }
    } else {
        c->mount += 1.0 / MOUNT_TICKS;
    }
    double f = sgn(terra_nodes[top].x - px);
    if (f == 0.0) f = c->facing;
    double m = c->nav == NAV_MOUNT ? dmin(1.0, c->mount) : 0.0;
    double cy = c->climb_y;
    double up[3][2] = { { px, cy - sp->neck }, { px, cy }, { px, cy + sp->back } };
    double sx = px + f * 6.0;
    double on[3][2] = { { sx + f * sp->neck, stand_y }, { sx, stand_y }, { sx - f * sp->back, stand_y } };
    for (int k = 0; k < 3; k++)
        set_cling(t, ci, k, up[k][0] + (on[k][0] - up[k][0]) * m, up[k][1] + (on[k][1] - up[k][1]) * m);
    if (c->nav == NAV_MOUNT && c->mount >= 1.0) {
        release_cling(t, ci);
        c->nav = NAV_WALK;
        c->climb_seg = -1;
        c->at = (int16_t)top;
        c->facing = (int8_t)f;
    }
}

/* Head for the goal over the waypoint graph. Writes the direction and speed; returns 1 on
 * arrival (or when the goal cannot be reached, which clears it). */
static int nav_step(terra_world *t, terra_creature *c, int ci, double speed)
{
    c->dir_x = c->dir_y = c->speed = 0.0;
    if (c->nav != NAV_WALK) {
        climb_step(t, c, ci);
        return 0;
    }
    if (c->goal < 0) return 1;
    if (c->at < 0) return 0;                       /* in the air: wait to land somewhere */
    const sim_chunk *ch = cchunk(t, c, 1);
    if (c->at == c->goal) {
        /* Close enough: 6 units ahead, or a body length behind (not worth turning round for). */
        double dx = terra_nodes[c->goal].x - ch->x;
        if (dabs(dx) < (dx * c->facing < 0.0 ? 2.0 * spec(c)->back : 6.0)) return 1;
        c->dir_x = sgn(dx);
        c->speed = speed;
        return 0;
    }
    int path[TERRA_NNODE];
    int n = terra__path(c->at, c->goal, c->species == SPECIES_SCRAMBLER, path, TERRA_NNODE);
    if (n < 2) {
        c->goal = -1;
        return 1;
    }
    const terra_edge *e = &terra_edges[edge_between(path[0], path[1])];
    if (e->kind == EDGE_POLE) {
        double dx = terra_segs[e->pole].ax - ch->x;
        if (dabs(dx) > 4.0) {
            c->dir_x = sgn(dx);
            c->speed = dmin(speed, spec(c)->walk);
        } else if (terra__planted(c) >= 2) {
            start_climb(t, c, ci, e->pole);
        }
        return 0;
    }
    if (e->kind == EDGE_DROP) {
        /* Walk off the end of the plank and keep going until it lands: the edge's direction, not
         * the way to the node below, which sits just past the plank's end. Aiming at the node
         * turns the creature round over the drop, where it hangs by its feet, dithering. */
        c->dir_x = sgn(terra_nodes[path[1]].x - terra_nodes[path[0]].x);
        c->speed = speed;
        return 0;
    }
    c->dir_x = sgn(terra_nodes[path[1]].x - ch->x);
    c->speed = speed;
    return 0;
}

/* ---- brains ------------------------------------------------------------------------------------------ */
static void enter_righting(terra_world *t, terra_creature *c, int ci)
{
    release_cling(t, ci);
    c->nav = NAV_WALK;
    c->climb_seg = -1;
    c->brain = BR_RIGHTING;
    c->lunge = 0;
    c->goal = -1;
    c->timer = c->timer2 = 0;
    c->dir_x = c->dir_y = c->speed = 0.0;
}

/* Limp until 0.3 s of continuous ground contact (and nobody holding on), then back to life.
 * Hung in the air for 1 s with nobody holding it — snagged by the tail through a plank, say,
 * which one-way planks allow and nothing in the physics undoes — it wriggles: a sideways jerk of
 * the whole body every fifth of a second, one way, until it drops free. */
static void think_righting(terra_world *t, terra_creature *c)
{
    c->dir_x = c->dir_y = c->speed = 0.0;
    if (!grabbed(t, c) && c->air > WRIGGLE_AFTER && c->air % WRIGGLE_EVERY == 0) {
        /* One way, chosen at random, for the whole episode: that reaches the end of a plank. */
        if (c->timer2 == 0) c->timer2 = 1 + sim_rng_below(&c->rng, 2);
        double jerk = c->timer2 == 1 ? -WRIGGLE : WRIGGLE;
        for (int k = 0; k < 3 + spec(c)->ntail; k++) chunk_of(t, c, k)->px -= jerk;
    }
    if (!grabbed(t, c) && c->contact >= RIGHTING_CONTACT) {
        c->brain = c->species == SPECIES_LIZARD ? BR_PATROL : BR_POTTER;
        c->air = 0;
        choose_goal(c);
    }
}

static double chest_dist(const terra_world *t, const terra_creature *a, const terra_creature *b)
{
    const sim_chunk *x = cchunk(t, a, 1), *y = cchunk(t, b, 1);
    return dist(x->x, x->y, y->x, y->y);
}

/* Prey: the nearest scrambler within 260 units of the lizard's head with a clear line of sight. */
static int spot_prey(const terra_world *t, int li)
{
    const terra_creature *c = &t->cr[li];
    const sim_chunk *h = cchunk(t, c, 0);
    int best = -1;
    double bd = 0.0;
    for (int j = 0; j < t->ncr; j++) {
        if (j == li || t->cr[j].species != SPECIES_SCRAMBLER) continue;
        const sim_chunk *p = cchunk(t, &t->cr[j], 1);
        double d = dist(h->x, h->y, p->x, p->y);
        if (d >= SPOT_RANGE || sim_verlet_blocked(&t->v, h->x, h->y, p->x, p->y, -1)) continue;
        if (best < 0 || d < bd) {
            best = j;
            bd = d;
        }
    }
    return best;
}

/* Threat: the nearest lizard within 190 units, or 300 if it is crouching. */
static int find_threat(const terra_world *t, int si)
{
    const terra_creature *c = &t->cr[si];
    int best = -1;
    double bd = 0.0;
    for (int j = 0; j < t->ncr; j++) {
        const terra_creature *o = &t->cr[j];
        if (j == si || o->species != SPECIES_LIZARD) continue;
        double d = chest_dist(t, c, o);
        if (d >= (o->crouch > 0.5 ? FLEE_RANGE_CROUCH : FLEE_RANGE)) continue;
        if (best < 0 || d < bd) {
            best = j;
            bd = d;
        }
    }
    return best;
}

static void begin_lunge(terra_world *t, terra_creature *c)
{
    const sim_chunk *me = cchunk(t, c, 1), *p = cchunk(t, &t->cr[c->other], 1);
    double dx = p->x - me->x, dy = p->y - me->y;
    double d = sim_sqrt(dx * dx + dy * dy);
    double ux = d > 1e-9 ? dx / d : (double)c->facing, uy = d > 1e-9 ? dy / d : 0.0;
    /* A low pounce: between about 9° and 36° up, so always a little off the ground — the ground
     * under it, measured from its surface: on the gully's side a pounce up the slope that is
     * shallower than the slope would plough the head into it, and friction would eat the kick. */
    double nx = 0.0, ny = -1.0;
    int seg = sim_verlet_ground(&t->v, me->x, me->y, 1.1 * terra__reach(c), NULL);
    if (seg >= 0) {
        sim_seg_normal(&terra_segs[seg], &nx, &ny);
        if (ny > 0.0) {
            nx = -nx;
            ny = -ny;
        }
    }
    double along = ux * -ny + uy * nx, up = ux * nx + uy * ny;      /* tangent (−ny, nx), and n */
    up = clampd(up, 0.0, 0.45) + 0.15;   /* 0.15 up: a kick's 1.1 units a tick outrun gravity's 0.34 */
    ux = along * -ny + up * nx;
    uy = along * nx + up * ny;
    double n = sim_sqrt(ux * ux + uy * uy);
    c->dir_x = ux / n;
    c->dir_y = uy / n;
    c->speed = LUNGE_CAP;
    c->brain = BR_LUNGE;
    c->lunge = LUNGE_TICKS;
    c->knocked = 0;
    c->lunges++;
    /* The whole animal is kicked, tail and all: a tail left behind would soak up half of it. */
    for (int k = 0; k < 3 + spec(c)->ntail; k++) {
        sim_chunk *ch = chunk_of(t, c, k);
        ch->px -= c->dir_x * LUNGE_KICK;
        ch->py -= c->dir_y * LUNGE_KICK;
    }
}

/* Wander off somewhere away from where the prey is. */
static void wander_off(terra_world *t, terra_creature *c)
{
    double px = c->other >= 0 ? cchunk(t, &t->cr[c->other], 1)->x : cchunk(t, c, 1)->x;
    for (int tries = 0; tries < 6; tries++) {
        choose_goal(c);
        if (dabs(terra_nodes[c->goal].x - px) > 120.0) break;
    }
}

static void think_lizard(terra_world *t, int ci)
{
    terra_creature *c = &t->cr[ci];
    const terra_species *sp = spec(c);
    if (c->ignore) c->ignore--;
    switch (c->brain) {
    case BR_PATROL:
    case BR_PAUSE: {
        int prey = c->ignore ? -1 : spot_prey(t, ci);
        if (prey >= 0) {
            c->brain = BR_STALK;
            c->other = (int16_t)prey;
            c->timer = (uint32_t)sim_rng_range(&c->rng, STALK_MIN, STALK_MAX);
            c->timer2 = 0;
            c->goal = -1;
            break;
        }
        c->other = -1;
        if (c->brain == BR_PATROL) {
            if (c->goal < 0) choose_goal(c);
            if (nav_step(t, c, ci, sp->walk)) {
                c->brain = BR_PAUSE;
                c->timer = (uint32_t)sim_rng_range(&c->rng, 40, 120);
                c->goal = -1;
            }
        } else {
            c->dir_x = c->dir_y = c->speed = 0.0;
            if (c->timer) c->timer--;
            if (c->timer == 0) {
                c->brain = BR_PATROL;
                choose_goal(c);
            }
        }
        break;
    }
    case BR_STALK: {
        const terra_creature *p = &t->cr[c->other];
        const sim_chunk *me = cchunk(t, c, 1), *pc = cchunk(t, p, 1), *h = cchunk(t, c, 0);
        double dx = pc->x - me->x, dy = pc->y - me->y;
        double d = sim_sqrt(dx * dx + dy * dy);
        int in_range = d < LUNGE_RANGE && dabs(dy) < 80.0 &&
                       !sim_verlet_blocked(&t->v, h->x, h->y, pc->x, pc->y, -1);
        c->dir_x = sgn(dx);
        c->dir_y = 0.0;
        if (c->timer) {
            /* Sink into the stalk and creep closer; face the prey even when close enough. */
            c->timer--;
            c->speed = dabs(dx) > 0.6 * LUNGE_RANGE ? sp->slow
                       : (c->facing * dx < 0.0 ? 0.5 * sp->slow : 0.0);
        } else if (in_range && c->crouch > 0.9) {
            begin_lunge(t, c);
        } else {
            /* The stalk timer is out and the prey keeps its distance: follow for 3 s, then
             * pretend it never cared. */
            c->speed = sp->fast;
            if (++c->timer2 > GIVE_UP) {
                c->brain = BR_PATROL;
                c->ignore = IGNORE_TICKS;
                wander_off(t, c);
                c->other = -1;
            }
        }
        break;
    }
    case BR_LUNGE:
        if (c->lunge) c->lunge--;
        if (c->lunge == 0) {
            /* One lunge, then eight seconds of indifference. */
            c->brain = BR_PATROL;
            c->ignore = IGNORE_TICKS;
            wander_off(t, c);
            c->other = -1;
            c->dir_x = c->dir_y = c->speed = 0.0;
        }
        break;
    case BR_RIGHTING:
        think_righting(t, c);
        break;
    default:
        c->brain = BR_PATROL;
        break;
    }
}

static void pick_look(terra_world *t, terra_creature *c)
{
    /* Look at something: another creature, the top of a pole, a plank, or somewhere at random. */
    uint32_t r = sim_rng_below(&c->rng, 4);
    if (r == 0 && t->ncr > 1) {
        int j = (int)sim_rng_below(&c->rng, (uint32_t)t->ncr);
        if (&t->cr[j] == c) j = (j + 1) % t->ncr;
        const sim_chunk *o = cchunk(t, &t->cr[j], 0);
        c->look_x = o->x;
        c->look_y = o->y;
    } else if (r == 1) {
        const sim_seg *p = &terra_segs[sim_rng_below(&c->rng, 2) ? SEG_POLE_R : SEG_POLE_L];
        c->look_x = p->bx;
        c->look_y = p->by;
    } else {
        c->look_x = WALL_L + 20.0 + sim_rng_unit(&c->rng) * (WALL_R - WALL_L - 40.0);
        c->look_y = CEIL_Y + 20.0 + sim_rng_unit(&c->rng) * (FLOOR_Y - CEIL_Y - 40.0);
    }
}

static void think_scrambler(terra_world *t, int ci)
{
    terra_creature *c = &t->cr[ci];
    const terra_species *sp = spec(c);
    int threat = c->brain == BR_RIGHTING ? -1 : find_threat(t, ci);
    c->other = (int16_t)threat;
    switch (c->brain) {
    case BR_POTTER:
        if (threat >= 0) {
            c->brain = BR_FLEE;
            break;
        }
        if (c->goal < 0) choose_goal(c);
        if (nav_step(t, c, ci, sp->walk)) {
            c->brain = BR_LOOK;
            c->timer = (uint32_t)sim_rng_range(&c->rng, 60, 160);
            c->timer2 = 0;
            c->goal = -1;
        }
        break;
    case BR_LOOK:
        if (threat >= 0) {
            c->brain = BR_FLEE;
            break;
        }
        c->dir_x = c->dir_y = c->speed = 0.0;
        if (c->timer2 == 0) {
            pick_look(t, c);
            c->timer2 = (uint32_t)sim_rng_range(&c->rng, 20, 60);
        }
        c->timer2--;
        if (c->timer) c->timer--;
        if (c->timer == 0) {
            c->brain = BR_POTTER;
            choose_goal(c);
        }
        break;
    case BR_FLEE:
        c->goal = NODE_REFUGE;
        if (nav_step(t, c, ci, sp->fast) && c->at == NODE_REFUGE) {
            c->brain = BR_REFUGE;
            c->refuges++;
            c->timer = c->timer2 = 0;
        }
        break;
    case BR_REFUGE:
        if (c->at != NODE_REFUGE || c->nav != NAV_WALK) {
            c->brain = threat >= 0 ? BR_FLEE : BR_POTTER;
            break;
        }
        c->goal = NODE_REFUGE;
        nav_step(t, c, ci, sp->walk);              /* keep to the spot */
        /* Watch until the threat is gone and the nerve timer (3–6 s) has run out. */
        if (threat >= 0) {
            c->timer2 = 0;
        } else if (!c->timer2) {
            c->timer2 = 1;
            c->timer = (uint32_t)sim_rng_range(&c->rng, NERVE_MIN, NERVE_MAX);
        } else if (c->timer) {
            c->timer--;
            if (c->timer == 0) {
                c->brain = BR_POTTER;
                c->timer2 = 0;
                choose_goal(c);
            }
        }
        break;
    case BR_RIGHTING:
        think_righting(t, c);
        break;
    default:
        c->brain = BR_POTTER;
        break;
    }
}

/* Turning round: the spine is a chain of bones in the plane and cannot reverse through itself,
 * so the head rears up over the chest toward the new direction, then the chest over the hips;
 * the tail follows. Hysteresis keeps a drooping head (over a ledge) from starting a turn. */
static void update_turn(terra_world *t, terra_creature *c)
{
    const terra_species *sp = spec(c);
    const sim_chunk *h = cchunk(t, c, 0), *ch = cchunk(t, c, 1), *hp = cchunk(t, c, 2);
    double hd = (h->x - ch->x) * c->dir_x, cd = (ch->x - hp->x) * c->dir_x;
    if (c->dir_x == 0.0 || c->lunge > 0 || c->brain == BR_RIGHTING || c->nav != NAV_WALK ||
        terra__planted(c) == 0) {
        c->turn = TURN_NONE;
        return;
    }
    if (c->turn == TURN_NONE) {
        /* A turn rears up on feet over ground, from standing: never over a drop, where feet
         * planted on a wall would hold the rearing body up and walk it up the wall, nor from a
         * body standing on its head after a fall, which the rearing would fling into the air. */
        double gy;
        for (int k = 1; k <= 2; k++) {
            const sim_chunk *b = cchunk(t, c, k);
            if (sim_verlet_ground(&t->v, b->x, b->y, 1.5 * sp->ride, &gy) < 0) return;
        }
        if (hd < -TURN_START * sp->neck) c->turn = TURN_HEAD;
        else if (hd > 0.0 && cd < -TURN_START * sp->back) c->turn = TURN_CHEST;
    } else if (c->turn == TURN_HEAD) {
        if (hd > TURN_DONE * sp->neck) c->turn = cd < TURN_DONE * sp->back ? TURN_CHEST : TURN_NONE;
    } else if (c->turn == TURN_CHEST) {
        if (cd > TURN_DONE * sp->back) c->turn = TURN_NONE;   /* the head was kept ahead */
    }
}

static void think(terra_world *t, int ci)
{
    terra_creature *c = &t->cr[ci];
    if (c->brain != BR_RIGHTING) {
        /* Held, or thrown (no footing and no ground for a while): go limp. Being dragged is not
         * a special case in the physics; it is one in the brain. */
        int thrown = c->air > THROWN_TICKS && c->brain != BR_LUNGE && c->nav == NAV_WALK;
        if (grabbed(t, c) || thrown) enter_righting(t, c, ci);
    }
    if (c->species == SPECIES_LIZARD) think_lizard(t, ci);
    else think_scrambler(t, ci);
    update_turn(t, c);
    double want = c->brain == BR_STALK ? 1.0 : 0.0;
    if (c->crouch < want) c->crouch = dmin(want, c->crouch + CROUCH_RATE);
    else if (c->crouch > want) c->crouch = dmax(want, c->crouch - CROUCH_RATE);
}

/* ---- the body is pushed ------------------------------------------------------------------------------ */
static void push(terra_world *t, terra_creature *c)
{
    const terra_species *sp = spec(c);
    sim_verlet *v = &t->v;
    if (c->brain == BR_RIGHTING || c->nav != NAV_WALK) return;   /* limp, or on the cling pins */
    /* A lunging body is in flight: its legs are tucked (from the kick on), nothing holds it up. */
    int planted = c->lunge > 0 ? 0 : terra__planted(c);
    double support = dmin(1.0, planted / 2.0);
    double reach = terra__reach(c);
    const sim_chunk *head = cchunk(t, c, 0);
    double cap = c->lunge > 0 ? LUNGE_CAP : c->speed;
    /* Turning round (c->turn, decided in think): the turning chunk steers over its pivot while
     * the others brace on their feet. */
    int turning = c->turn == TURN_HEAD ? 0 : c->turn == TURN_CHEST ? 1 : -1;
    for (int k = 0; k < 3; k++) {
        int ci = terra__chunk(t, c, k);
        const sim_chunk *ch = &v->chunk[ci];
        double vx = (ch->x - ch->px) / DT, vy = (ch->y - ch->py) / DT;
        if (k == turning || (turning == 1 && k == 0)) {
            /* Steer toward a point above the pivot, leaning the new way; while the chest goes
             * over, the head keeps ahead of it. */
            const sim_chunk *pivot = cchunk(t, c, k + 1);
            double len = k == 0 ? sp->neck : sp->back;
            double tx = pivot->x + c->dir_x * TURN_LEAN * len, ty = pivot->y - TURN_RISE * len;
            if (k != turning) {
                /* The head goes where it will be when the chest is over: ahead of the chest's
                 * target, not of the chest, or the swinging chest overtakes it. */
                const sim_chunk *hips = cchunk(t, c, 2);
                tx = hips->x + c->dir_x * TURN_LEAN * sp->back + c->dir_x * TURN_RISE * sp->neck;
                ty = hips->y - TURN_RISE * sp->back - TURN_LEAN * sp->neck;
            }
            v->ax[ci] += (TURN_K * (tx - ch->x) - TURN_D * vx) * support;
            v->ay[ci] += (TURN_K * (ty - ch->y) - TURN_D * vy - GRAVITY) * support;
            continue;
        }
        if (turning >= 0 && k > turning) {
            /* The pivot and what is behind it hold still on their feet while the front turns. */
            double gy;
            if (sim_verlet_ground(v, ch->x, ch->y, 1.1 * reach, &gy) >= 0) {
                double err = terra__ride(c, k) - (gy - ch->y);
                v->ay[ci] -= (GRAVITY + SPRING_K * err + SPRING_D * vy) * support;
            }
            v->ax[ci] -= vx * TURN_BRACE * support / DT;
            continue;
        }
        /* Ride-height spring: (−gravity + stiffness × error − damp × velocity) × support. */
        double gy;
        if (support > 0.0 && sim_verlet_ground(v, ch->x, ch->y, 1.1 * reach, &gy) >= 0) {
            double err = terra__ride(c, k) - (gy - ch->y);
            double up = (GRAVITY + SPRING_K * err + SPRING_D * vy) * support;
            v->ay[ci] -= up;
        }
        /* Drive toward the goal while slower than the target speed; the head leads a turn. */
        if (cap > 0.0 && (c->dir_x != 0.0 || c->dir_y != 0.0)) {
            int leads = k == 0 || (head->x - ch->x) * c->dir_x + (head->y - ch->y) * c->dir_y > 2.0;
            if (leads && vx * c->dir_x + vy * c->dir_y < cap) {
                double a = sp->accel * (planted > 0 ? 1.0 : AIRBORNE_AUTHORITY);
                v->ax[ci] += c->dir_x * a;
                v->ay[ci] += c->dir_y * a;
            }
        }
        /* Grip: planted feet brake horizontal speed beyond the goal; they never push. */
        if (support > 0.0 && c->lunge == 0) {
            double goal = c->dir_x * c->speed, excess = 0.0;
            if (goal == 0.0 || vx * goal < 0.0) excess = vx;
            else if (dabs(vx) > dabs(goal)) excess = vx - goal;
            v->ax[ci] -= excess * GRIP * support / DT;
        }
    }
    /* The tail base rides aloft instead of dragging. */
    for (int k = 3; k < 5 && k < 3 + sp->ntail; k++) v->ay[terra__chunk(t, c, k)] -= sp->tail_lift * support;
}

/* ---- senses --------------------------------------------------------------------------------------------- */
static void sense(terra_world *t, terra_creature *c)
{
    int ground = 0;
    for (int k = 0; k < 3; k++) ground |= (t->v.contact[terra__chunk(t, c, k)] & SIM_VL_GROUND) != 0;
    if (ground) {
        if (c->contact < 100000) c->contact++;
    } else {
        c->contact = 0;
    }
    if (!ground && terra__planted(c) == 0) {
        if (c->air < 100000) c->air++;
    } else {
        c->air = 0;
    }
    const sim_chunk *h = cchunk(t, c, 0), *hips = cchunk(t, c, 2), *ch = cchunk(t, c, 1);
    if (dabs(h->x - hips->x) > 2.0) c->facing = (int8_t)(h->x > hips->x ? 1 : -1);
    if (c->nav == NAV_WALK) {
        /* Where it is: the surface under the chest, once near enough to stand on — a creature
         * stepping off a plank is still at the plank until it lands below. */
        double gy;
        int seg = sim_verlet_ground(&t->v, ch->x, ch->y, spec(c)->ride + 1.5 * terra__reach(c), &gy);
        int n = node_of_seg(seg, ch->x);
        if (n >= 0) c->at = (int16_t)n;
    }
}

/* The head: one angle lagging toward what is interesting — the pointer if near, a threat (or the
 * prey), whatever it is looking at, else the direction of travel — the short way round. */
static void update_head(terra_world *t, terra_creature *c)
{
    const sim_chunk *h = cchunk(t, c, 0), *ch = cchunk(t, c, 1);
    double want;
    int other = c->other >= 0 && c->other < t->ncr &&
                (c->brain == BR_STALK || c->brain == BR_LUNGE || c->brain == BR_FLEE ||
                 c->brain == BR_REFUGE);
    if (t->ptr_ttl > 0 && dist(t->ptr_x, t->ptr_y, h->x, h->y) < POINTER_RANGE) {
        want = sim_atan2(t->ptr_y - h->y, t->ptr_x - h->x);
    } else if (other) {
        const sim_chunk *o = cchunk(t, &t->cr[c->other], 0);
        want = sim_atan2(o->y - h->y, o->x - h->x);
    } else if (c->brain == BR_LOOK) {
        want = sim_atan2(c->look_y - h->y, c->look_x - h->x);
    } else if (c->nav == NAV_CLIMB) {
        want = -0.5 * SIM_PI;
    } else {
        double vx = ch->x - ch->px, vy = ch->y - ch->py;
        if (vx * vx + vy * vy > 0.02) want = sim_atan2(0.35 * vy, vx);
        else want = c->facing > 0 ? 0.1 : SIM_PI - 0.1;
    }
    c->head += angle_diff(want, c->head) * HEAD_RATE;
    c->head = angle_diff(c->head, 0.0);
}

/* A lunge that reaches its prey bowls it over, once. */
static void lunge_contact(terra_world *t, terra_creature *c)
{
    if (c->brain != BR_LUNGE || c->knocked || c->other < 0) return;
    const sim_chunk *h = cchunk(t, c, 0);
    terra_creature *p = &t->cr[c->other];
    for (int k = 0; k < 3; k++) {
        const sim_chunk *pc = cchunk(t, p, k);
        if (dist(h->x, h->y, pc->x, pc->y) > h->r + pc->r + 3.0) continue;
        for (int j = 0; j < 3; j++) {
            sim_chunk *q = chunk_of(t, p, j);
            q->px -= c->dir_x * KNOCK_X;
            q->py += KNOCK_UP;
        }
        c->knocked = 1;
        return;
    }
}

static void terra_step(void *impl, const sim_ctx *ctx)
{
    terra_world *t = impl;
    t->tick = ctx->tick;
    if (t->ptr_ttl) t->ptr_ttl--;
    for (int i = 0; i < t->ncr; i++) think(t, i);
    for (int i = 0; i < t->ncr; i++) push(t, &t->cr[i]);
    sim_verlet_step(&t->v);
    for (int i = 0; i < t->ncr; i++) {
        terra_creature *c = &t->cr[i];
        sense(t, c);
        update_limbs(t, c, ctx->tick);
        update_head(t, c);
        lunge_contact(t, c);
    }
}

/* ---- inputs ----------------------------------------------------------------------------------------------- */
enum { IN_POINTER, IN_GRAB, IN_DRAG, IN_RELEASE, IN_SHOVE, IN_SPAWN };
#define COORD_MAX 100000
#define SHOVE_ARG_MAX 1000
static const char *const body_names[BODY_NKINDS] = { "rope", "lizard", "scrambler" };
static const sim_input_desc terra_inputs[] = {
    [IN_POINTER] = { "pointer", 2,
                     { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                     "point at something: heads within 170 units turn to look (for 5 s)" },
    [IN_GRAB] = { "grab", 2,
                  { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                  "pin the nearest chunk within reach to the point (one grab per client)" },
    [IN_DRAG] = { "drag", 2,
                  { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                  "move your grab's pin to the point" },
    [IN_RELEASE] = { "release", 0, { { NULL, 0, 0, NULL } }, "let go of your grab" },
    [IN_SHOVE] = { "shove", 4,
                   { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL },
                     { "dx", -SHOVE_ARG_MAX, SHOVE_ARG_MAX, NULL },
                     { "dy", -SHOVE_ARG_MAX, SHOVE_ARG_MAX, NULL } },
                   "push everything near the point by (dx, dy) pixels per tick (capped at 8 units)" },
    [IN_SPAWN] = { "spawn", 3,
                   { { "kind", 0, BODY_NKINDS - 1, "body" }, { "x", -COORD_MAX, COORD_MAX, NULL },
                     { "y", -COORD_MAX, COORD_MAX, NULL } },
                   "add a rope, lizard or scrambler at the point (up to 16 creatures and 8 ropes)" },
};
static const sim_enum_desc terra_enums[] = {
    { "body", BODY_NKINDS, body_names },
};

static double to_world(const terra_world *t, int32_t px) { return (double)px / t->scale; }

/* Inside the room, clear of walls, ceiling and floor. */
static int in_room(double x, double y)
{
    return x > WALL_L + 4.0 && x < WALL_R - 4.0 && y > CEIL_Y + 4.0 && y < terra__floor_y(x) - 2.0;
}

static int terra_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    const terra_world *t = impl;
    if (in->kind != IN_SPAWN) return 0;
    double x = to_world(t, in->args[1]), y = to_world(t, in->args[2]);
    if (!in_room(x, y)) {
        sim__fmt(err, errlen, "spawn: (%d, %d) is not inside the room (walls at x %d and %d, "
                 "ceiling at y %d, floor at y %d)", (int)in->args[1], (int)in->args[2],
                 (int)(WALL_L * t->scale + 0.5), (int)(WALL_R * t->scale + 0.5),
                 (int)(CEIL_Y * t->scale + 0.5), (int)(terra__floor_y(x) * t->scale + 0.5));
        return SIM_EINPUT;
    }
    int kind = in->args[0];
    int ropes = count_bodies(t, BODY_ROPE);
    if (t->v.nbody >= TERRA_MAX_BODIES || (kind == BODY_ROPE && ropes >= TERRA_MAX_ROPES) ||
        (kind != BODY_ROPE && t->ncr >= TERRA_MAX_CREATURES)) {
        sim__fmt(err, errlen, "spawn: the terrarium is full (%d creatures of %d, %d ropes of %d)",
                 t->ncr, TERRA_MAX_CREATURES, ropes, TERRA_MAX_ROPES);
        return SIM_EINPUT;
    }
    return 0;
}

static int find_grab(const terra_world *t, uint32_t client)
{
    for (int i = 0; i < t->ngrab; i++)
        if (t->grab[i].client == client) return i;
    return -1;
}

static void release_grab(terra_world *t, uint32_t client)
{
    int g = find_grab(t, client);
    if (g < 0) return;
    int p = sim_verlet_pin_find(&t->v, t->grab[g].tag);
    if (p >= 0) sim_verlet_pin_remove(&t->v, p);
    memmove(&t->grab[g], &t->grab[g + 1], (size_t)(t->ngrab - g - 1) * sizeof *t->grab);
    t->ngrab--;
}

static double clamp_x(double x) { return clampd(x, WALL_L + 1.0, WALL_R - 1.0); }
static double clamp_y(double y) { return clampd(y, CEIL_Y + 1.0, FLOOR_Y + 18.0); }

/* A fresh grab tag: 1 .. 2^31 − 1, never one in use. */
static uint32_t new_tag(terra_world *t)
{
    for (;;) {
        uint32_t tag = t->next_tag;
        t->next_tag = t->next_tag + 1 >= CLING_TAG ? 1 : t->next_tag + 1;
        if (sim_verlet_pin_find(&t->v, tag) < 0) return tag;
    }
}

static void do_grab(terra_world *t, uint32_t client, double x, double y)
{
    release_grab(t, client);
    if (t->ngrab >= TERRA_MAX_GRABS) return;
    int best = -1;
    double bd = 0.0;
    for (int i = 0; i < t->v.nchunk; i++) {
        const sim_chunk *c = &t->v.chunk[i];
        double d = dist(c->x, c->y, x, y) - c->r;
        if (d > GRAB_REACH) continue;
        if (best < 0 || d < bd) {
            best = i;
            bd = d;
        }
    }
    if (best < 0) return;
    uint32_t tag = new_tag(t);
    if (sim_verlet_pin_add(&t->v, best, tag, clamp_x(x), clamp_y(y), GRAB_STIFF) < 0) return;
    t->grab[t->ngrab].client = client;
    t->grab[t->ngrab].tag = tag;
    t->ngrab++;
}

static void terra_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    terra_world *t = impl;
    double x = in->nargs >= 2 ? to_world(t, in->args[in->kind == IN_SPAWN ? 1 : 0]) : 0.0;
    double y = in->nargs >= 2 ? to_world(t, in->args[in->kind == IN_SPAWN ? 2 : 1]) : 0.0;
    switch (in->kind) {
    case IN_POINTER:
        /* Anywhere off the room is as uninteresting as anywhere else off it: keep it near. */
        t->ptr_x = clampd(x, -TERRA_ROOM_W * 0.5, TERRA_ROOM_W * 1.5);
        t->ptr_y = clampd(y, -TERRA_ROOM_H * 0.5, TERRA_ROOM_H * 1.5);
        t->ptr_ttl = POINTER_TTL;
        break;
    case IN_GRAB:
        do_grab(t, in->client, x, y);
        break;
    case IN_DRAG: {
        int g = find_grab(t, in->client);
        int p = g >= 0 ? sim_verlet_pin_find(&t->v, t->grab[g].tag) : -1;
        if (p >= 0) {
            t->v.pin[p].x = clamp_x(x);
            t->v.pin[p].y = clamp_y(y);
        }
        break;
    }
    case IN_RELEASE:
        release_grab(t, in->client);
        break;
    case IN_SHOVE: {
        double ix = to_world(t, in->args[2]), iy = to_world(t, in->args[3]);
        double m = sim_sqrt(ix * ix + iy * iy);
        if (m > SHOVE_MAX) {
            ix *= SHOVE_MAX / m;
            iy *= SHOVE_MAX / m;
        }
        for (int i = 0; i < t->v.nchunk; i++) {
            sim_chunk *c = &t->v.chunk[i];
            double d = dist(c->x, c->y, x, y);
            if (d >= SHOVE_RADIUS) continue;
            double f = 1.0 - d / SHOVE_RADIUS;
            c->px -= ix * f;
            c->py -= iy * f;
        }
        break;
    }
    case IN_SPAWN:
        /* check_input vetted the place and the caps; inputs queued together can still overrun
         * a cap, and those are dropped here. */
        if (!in_room(x, y)) break;
        if (in->args[0] == BODY_ROPE) {
            if (count_bodies(t, BODY_ROPE) < TERRA_MAX_ROPES) build_rope(t, x, y);
        } else {
            build_creature(t, in->args[0] == BODY_LIZARD ? SPECIES_LIZARD : SPECIES_SCRAMBLER, x, y,
                           ctx->seed);
        }
        break;
    default:
        break;
    }
}

/* ---- params, scenes, lifecycle -------------------------------------------------------------------------- */
enum { P_W, P_SCENE };
enum { SCENE_DEMO, SCENE_EMPTY };
static const char *const scene_names[] = { "demo", "empty", NULL };
static const sim_param_desc terra_params[] = {
    [P_W] = { "w", SIM_PARAM_INT, 320, 160, 1280, NULL, NULL,
              "frame width in pixels, a multiple of 16; the height is w·9/16" },
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (a lizard and a scrambler) or empty (the room alone)" },
};

static void terra_destroy(void *impl)
{
    terra_world *t = impl;
    if (!t) return;
    sim_verlet_free(&t->v);
    terra__render_free(t);
    free(t);
}

static int terra_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                        size_t errlen)
{
    if (p->ival[P_W] % 16 != 0) {
        sim__fmt(err, errlen, "terrarium params: w=%lld must be a multiple of 16",
                 (long long)p->ival[P_W]);
        return SIM_EPARAM;
    }
    terra_world *t = calloc(1, sizeof *t);
    if (!t) return SIM_ENOMEM;
    t->w = (int)p->ival[P_W];
    t->h = t->w * 9 / 16;
    t->scale = (double)t->w / TERRA_ROOM_W;
    t->scene = (int)p->ival[P_SCENE];
    if (sim_verlet_init(&t->v, TERRA_MAX_CHUNKS, TERRA_MAX_LINKS, TERRA_MAX_PINS, TERRA_MAX_BODIES) ||
        terra__render_init(t)) {
        terra_destroy(t);
        sim__fmt(err, errlen, "terrarium: out of memory");
        return SIM_ENOMEM;
    }
    t->v.dt = DT;
    t->v.gravity = GRAVITY;
    t->v.drag = AIR_DRAG;
    t->v.seg = terra_segs;
    t->v.nseg = TERRA_NSEG;
    t->next_tag = 1;
    if (!bare && t->scene == SCENE_DEMO) {
        build_creature(t, SPECIES_LIZARD, 110.0, FLOOR_Y - 12.0, seed);
        build_creature(t, SPECIES_SCRAMBLER, 330.0, FLOOR_Y - 10.0, seed);
    }
    *impl = t;
    return 0;
}

static void terra_frame_size(const void *impl, int *w, int *h)
{
    const terra_world *t = impl;
    *w = t->w;
    *h = t->h;
}

/* ---- state ------------------------------------------------------------------------------------------------ */
#define LIMB_BYTES (1 + 1 + 2 + 10 * 8)
#define CREATURE_BYTES (4 + 2 + 4 * 2 + 8 * 4 + 2 + 9 * 8 + 16 + TERRA_NLIMB * LIMB_BYTES)

static size_t terra_save_max(const void *impl)
{
    const terra_world *t = impl;
    return 2 + 4 + 8 + 8 + 4 + 1 + TERRA_MAX_GRABS * 8 + sim_verlet_save_max(&t->v) + 1 +
           (size_t)TERRA_MAX_CREATURES * CREATURE_BYTES;
}

static void terra_save(const void *impl, sim_writer *wr)
{
    const terra_world *t = impl;
    sim__w_u16(wr, (uint16_t)t->w);
    sim__w_u32(wr, t->next_tag);
    sim__w_f64(wr, t->ptr_x);
    sim__w_f64(wr, t->ptr_y);
    sim__w_u32(wr, t->ptr_ttl);
    sim__w_u8(wr, (uint8_t)t->ngrab);
    for (int i = 0; i < t->ngrab; i++) {
        sim__w_u32(wr, t->grab[i].client);
        sim__w_u32(wr, t->grab[i].tag);
    }
    sim_verlet_save(&t->v, wr);
    sim__w_u8(wr, (uint8_t)t->ncr);
    for (int i = 0; i < t->ncr; i++) {
        const terra_creature *c = &t->cr[i];
        sim__w_u8(wr, c->species);
        sim__w_u8(wr, c->brain);
        sim__w_u8(wr, c->nav);
        sim__w_u8(wr, (uint8_t)c->facing);
        sim__w_u16(wr, c->body);
        sim__w_u16(wr, (uint16_t)c->at);
        sim__w_u16(wr, (uint16_t)c->goal);
        sim__w_u16(wr, (uint16_t)c->other);
        sim__w_u16(wr, (uint16_t)c->climb_seg);
        sim__w_u32(wr, c->timer);
        sim__w_u32(wr, c->timer2);
        sim__w_u32(wr, c->ignore);
        sim__w_u32(wr, c->lunge);
        sim__w_u32(wr, c->contact);
        sim__w_u32(wr, c->air);
        sim__w_u32(wr, c->lunges);
        sim__w_u32(wr, c->refuges);
        sim__w_u8(wr, c->knocked);
        sim__w_u8(wr, c->turn);
        sim__w_f64(wr, c->dir_x);
        sim__w_f64(wr, c->dir_y);
        sim__w_f64(wr, c->speed);
        sim__w_f64(wr, c->crouch);
        sim__w_f64(wr, c->head);
        sim__w_f64(wr, c->look_x);
        sim__w_f64(wr, c->look_y);
        sim__w_f64(wr, c->climb_y);
        sim__w_f64(wr, c->mount);
        sim__w_u64(wr, c->rng.state);
        sim__w_u64(wr, c->rng.inc);
        for (int k = 0; k < TERRA_NLIMB; k++) {
            const terra_limb *l = &c->limb[k];
            sim__w_u8(wr, l->state);
            sim__w_u8(wr, (uint8_t)l->seg);
            sim__w_u16(wr, l->t);
            sim__w_f64(wr, l->fx);
            sim__w_f64(wr, l->fy);
            sim__w_f64(wr, l->sx);
            sim__w_f64(wr, l->sy);
            sim__w_f64(wr, l->tx);
            sim__w_f64(wr, l->ty);
            sim__w_f64(wr, l->nx);
            sim__w_f64(wr, l->ny);
            sim__w_f64(wr, l->ix);
            sim__w_f64(wr, l->iy);
        }
    }
}

static int in_box(double x, double y)
{
    return x > -TERRA_ROOM_W && x < 2.0 * TERRA_ROOM_W && y > -TERRA_ROOM_H && y < 2.0 * TERRA_ROOM_H;
}

static int brain_fits(int species, int brain)
{
    if (brain == BR_RIGHTING) return 1;
    return species == SPECIES_LIZARD ? brain <= BR_LUNGE : brain >= BR_POTTER && brain <= BR_REFUGE;
}

static int load_creature(terra_world *t, sim_reader *rd, int idx)
{
    terra_creature *c = &t->cr[idx];
    memset(c, 0, sizeof *c);
    c->species = sim__r_u8(rd);
    c->brain = sim__r_u8(rd);
    c->nav = sim__r_u8(rd);
    c->facing = (int8_t)sim__r_u8(rd);
    c->body = sim__r_u16(rd);
    c->at = (int16_t)sim__r_u16(rd);
    c->goal = (int16_t)sim__r_u16(rd);
    c->other = (int16_t)sim__r_u16(rd);
    c->climb_seg = (int16_t)sim__r_u16(rd);
    c->timer = sim__r_u32(rd);
    c->timer2 = sim__r_u32(rd);
    c->ignore = sim__r_u32(rd);
    c->lunge = sim__r_u32(rd);
    c->contact = sim__r_u32(rd);
    c->air = sim__r_u32(rd);
    c->lunges = sim__r_u32(rd);
    c->refuges = sim__r_u32(rd);
    c->knocked = sim__r_u8(rd);
    c->turn = sim__r_u8(rd);
    c->dir_x = sim__r_f64(rd);
    c->dir_y = sim__r_f64(rd);
    c->speed = sim__r_f64(rd);
    c->crouch = sim__r_f64(rd);
    c->head = sim__r_f64(rd);
    c->look_x = sim__r_f64(rd);
    c->look_y = sim__r_f64(rd);
    c->climb_y = sim__r_f64(rd);
    c->mount = sim__r_f64(rd);
    c->rng.state = sim__r_u64(rd);
    c->rng.inc = sim__r_u64(rd);
    if (rd->err) return rd->err;
    if (c->species > SPECIES_SCRAMBLER || c->brain >= BR_NSTATES || !brain_fits(c->species, c->brain) ||
        c->nav > NAV_MOUNT || (c->facing != 1 && c->facing != -1) || c->body >= t->v.nbody ||
        c->at < -1 || c->at >= TERRA_NNODE || c->goal < -1 || c->goal >= TERRA_NNODE ||
        c->knocked > 1 || c->turn > TURN_CHEST || !(c->rng.inc & 1u))
        return SIM_ECORRUPT;
    const terra_species *sp = spec(c);
    const sim_body *b = &t->v.body[c->body];
    if (b->kind != sp->body_kind || b->nc != 3 + sp->ntail) return SIM_ECORRUPT;
    for (int j = 0; j < idx; j++)
        if (t->cr[j].body == c->body) return SIM_ECORRUPT;          /* one creature per body */
    /* Climbing needs a pole; walking needs none. */
    if (c->nav == NAV_WALK ? c->climb_seg != -1
                           : (c->climb_seg != SEG_POLE_L && c->climb_seg != SEG_POLE_R) ||
                                 c->species != SPECIES_SCRAMBLER)
        return SIM_ECORRUPT;
    if (!(c->crouch >= 0.0 && c->crouch <= 1.0) || !(c->mount >= 0.0 && c->mount <= 1.0 + 1e-9) ||
        !(c->speed >= 0.0 && c->speed <= 2.0 * LUNGE_CAP) || dabs(c->dir_x) > 1.0 + 1e-9 ||
        dabs(c->dir_y) > 1.0 + 1e-9 || !(c->head > -SIM_PI - 1e-9 && c->head <= SIM_PI + 1e-9) ||
        !in_box(c->look_x, c->look_y) || !in_box(0.0, c->climb_y) || c->lunge > LUNGE_TICKS ||
        c->ignore > IGNORE_TICKS)
        return SIM_ECORRUPT;
    for (int k = 0; k < TERRA_NLIMB; k++) {
        terra_limb *l = &c->limb[k];
        l->state = sim__r_u8(rd);
        l->seg = (int8_t)sim__r_u8(rd);
        l->t = sim__r_u16(rd);
        l->fx = sim__r_f64(rd);
        l->fy = sim__r_f64(rd);
        l->sx = sim__r_f64(rd);
        l->sy = sim__r_f64(rd);
        l->tx = sim__r_f64(rd);
        l->ty = sim__r_f64(rd);
        l->nx = sim__r_f64(rd);
        l->ny = sim__r_f64(rd);
        l->ix = sim__r_f64(rd);
        l->iy = sim__r_f64(rd);
        if (rd->err) return rd->err;
        if (l->state >= LIMB_NSTATES || l->seg < -1 || l->seg >= TERRA_NSEG ||
            !in_box(l->fx, l->fy) || !in_box(l->sx, l->sy) || !in_box(l->tx, l->ty) ||
            !in_box(l->ix, l->iy) || dabs(l->nx) > 1.0 + 1e-9 || dabs(l->ny) > 1.0 + 1e-9)
            return SIM_ECORRUPT;
    }
    return 0;
}

static int terra_load(void *impl, sim_reader *rd)
{
    terra_world *t = impl;
    int w = sim__r_u16(rd);
    t->next_tag = sim__r_u32(rd);
    t->ptr_x = sim__r_f64(rd);
    t->ptr_y = sim__r_f64(rd);
    t->ptr_ttl = sim__r_u32(rd);
    t->ngrab = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (w != t->w || t->next_tag == 0 || t->next_tag >= CLING_TAG || t->ptr_ttl > POINTER_TTL ||
        t->ngrab > TERRA_MAX_GRABS || !in_box(t->ptr_x, t->ptr_y))
        return SIM_ECORRUPT;
    for (int i = 0; i < t->ngrab; i++) {
        t->grab[i].client = sim__r_u32(rd);
        t->grab[i].tag = sim__r_u32(rd);
        if (rd->err) return rd->err;
        if (t->grab[i].tag == 0 || (t->grab[i].tag & CLING_TAG)) return SIM_ECORRUPT;
        for (int j = 0; j < i; j++)
            if (t->grab[j].client == t->grab[i].client || t->grab[j].tag == t->grab[i].tag)
                return SIM_ECORRUPT;
    }
    int rc = sim_verlet_load(&t->v, rd);
    if (rc) return rc;
    for (int i = 0; i < t->v.nchunk; i++)
        if (!in_box(t->v.chunk[i].x, t->v.chunk[i].y)) return SIM_ECORRUPT;
    t->ncr = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (t->ncr > TERRA_MAX_CREATURES) return SIM_ECORRUPT;
    for (int i = 0; i < t->ncr; i++) {
        rc = load_creature(t, rd, i);
        if (rc) return rc;
    }
    for (int i = 0; i < t->ncr; i++) {
        const terra_creature *c = &t->cr[i];
        if (c->other < -1 || c->other >= t->ncr || c->other == i) return SIM_ECORRUPT;
        if ((c->brain == BR_STALK || c->brain == BR_LUNGE) &&
            (c->other < 0 || t->cr[c->other].species != SPECIES_SCRAMBLER))
            return SIM_ECORRUPT;
    }
    /* Every pin belongs to a grab or to a climbing creature's cling; every body to a creature
     * or is a rope. */
    for (int p = 0; p < t->v.npin; p++) {
        uint32_t tag = t->v.pin[p].tag;
        int owned = 0;
        if (tag & CLING_TAG) {
            int ci = (int)((tag >> 4) & 0xFFFu), k = (int)(tag & 0xFu);
            owned = (tag & ~(CLING_TAG | 0xFFF0u | 0xFu)) == 0 && ci < t->ncr && k < 3 &&
                    t->cr[ci].nav != NAV_WALK && t->v.pin[p].chunk == terra__chunk(t, &t->cr[ci], k);
        } else {
            for (int g = 0; g < t->ngrab; g++) owned |= t->grab[g].tag == tag;
        }
        if (!owned) return SIM_ECORRUPT;
        for (int q = 0; q < p; q++)
            if (t->v.pin[q].tag == tag) return SIM_ECORRUPT;
    }
    for (int g = 0; g < t->ngrab; g++)
        if (sim_verlet_pin_find(&t->v, t->grab[g].tag) < 0) return SIM_ECORRUPT;
    int creatures = 0;
    for (int b = 0; b < t->v.nbody; b++) {
        int kind = t->v.body[b].kind;
        if (kind >= BODY_NKINDS) return SIM_ECORRUPT;
        if (kind == BODY_ROPE && t->v.body[b].nc != SIM_ROPE_CHUNKS) return SIM_ECORRUPT;
        creatures += kind != BODY_ROPE;
    }
    if (creatures != t->ncr || t->v.nbody - creatures > TERRA_MAX_ROPES) return SIM_ECORRUPT;
    return 0;
}

/* ---- desync reports ---------------------------------------------------------------------------------------- */
static long diff_num(sim_diff_out *o, const char *who, int idx, const char *field, long long a,
                     long long b)
{
    if (a == b) return 0;
    sim_diff_line(o, "%s %d %s: %lld → %lld", who, idx, field, a, b);
    return 1;
}

static long diff_dbl(sim_diff_out *o, const char *who, int idx, const char *field, double a, double b)
{
    if (memcmp(&a, &b, sizeof a) == 0) return 0;
    char sa[64], sb[64];
    sim__fmt_double(sa, sizeof sa, a);
    sim__fmt_double(sb, sizeof sb, b);
    sim_diff_line(o, "%s %d %s: %s → %s", who, idx, field, sa, sb);
    return 1;
}

static long terra_diff(const void *ia, const void *ib, sim_diff_out *o)
{
    const terra_world *a = ia, *b = ib;
    long n = 0;
    n += diff_dbl(o, "pointer", 0, "x", a->ptr_x, b->ptr_x);
    n += diff_dbl(o, "pointer", 0, "y", a->ptr_y, b->ptr_y);
    n += diff_num(o, "pointer", 0, "ttl", a->ptr_ttl, b->ptr_ttl);
    n += diff_num(o, "grabs", 0, "count", a->ngrab, b->ngrab);
    n += diff_num(o, "grabs", 0, "next tag", a->next_tag, b->next_tag);
    for (int i = 0; i < a->ngrab && i < b->ngrab; i++) {
        n += diff_num(o, "grab", i, "client", a->grab[i].client, b->grab[i].client);
        n += diff_num(o, "grab", i, "tag", a->grab[i].tag, b->grab[i].tag);
    }
    n += sim_verlet_diff(&a->v, &b->v, o);
    if (a->ncr != b->ncr) {
        sim_diff_line(o, "creatures: %d → %d", a->ncr, b->ncr);
        return n + 1;
    }
    for (int i = 0; i < a->ncr; i++) {
        const terra_creature *x = &a->cr[i], *y = &b->cr[i];
        const char *who = terra_species_table[x->species <= 1 ? x->species : 0].name;
        if (x->brain != y->brain) {
            sim_diff_line(o, "%s %d brain: %s → %s", who, i, terra__brain_name(x->brain),
                          terra__brain_name(y->brain));
            n++;
        }
        n += diff_num(o, who, i, "species", x->species, y->species);
        n += diff_num(o, who, i, "nav", x->nav, y->nav);
        n += diff_num(o, who, i, "facing", x->facing, y->facing);
        n += diff_num(o, who, i, "at", x->at, y->at);
        n += diff_num(o, who, i, "goal", x->goal, y->goal);
        n += diff_num(o, who, i, "other", x->other, y->other);
        n += diff_num(o, who, i, "climb pole", x->climb_seg, y->climb_seg);
        n += diff_num(o, who, i, "timer", x->timer, y->timer);
        n += diff_num(o, who, i, "timer2", x->timer2, y->timer2);
        n += diff_num(o, who, i, "ignore", x->ignore, y->ignore);
        n += diff_num(o, who, i, "lunge", x->lunge, y->lunge);
        n += diff_num(o, who, i, "contact", x->contact, y->contact);
        n += diff_num(o, who, i, "air", x->air, y->air);
        n += diff_num(o, who, i, "lunges", x->lunges, y->lunges);
        n += diff_num(o, who, i, "refuges", x->refuges, y->refuges);
        n += diff_num(o, who, i, "knocked", x->knocked, y->knocked);
        n += diff_num(o, who, i, "turn", x->turn, y->turn);
        n += diff_dbl(o, who, i, "dir x", x->dir_x, y->dir_x);
        n += diff_dbl(o, who, i, "dir y", x->dir_y, y->dir_y);
        n += diff_dbl(o, who, i, "speed", x->speed, y->speed);
        n += diff_dbl(o, who, i, "crouch", x->crouch, y->crouch);
        n += diff_dbl(o, who, i, "head", x->head, y->head);
        n += diff_dbl(o, who, i, "look x", x->look_x, y->look_x);
        n += diff_dbl(o, who, i, "look y", x->look_y, y->look_y);
        n += diff_dbl(o, who, i, "climb y", x->climb_y, y->climb_y);
        n += diff_dbl(o, who, i, "mount", x->mount, y->mount);
        if (x->rng.state != y->rng.state || x->rng.inc != y->rng.inc) {
            sim_diff_line(o, "%s %d rng: %llu → %llu", who, i, (unsigned long long)x->rng.state,
                          (unsigned long long)y->rng.state);
            n++;
        }
        for (int k = 0; k < TERRA_NLIMB; k++) {
            const terra_limb *p = &x->limb[k], *q = &y->limb[k];
            char lw[48];
            sim__fmt(lw, sizeof lw, "%s %d limb", who, i);
            n += diff_num(o, lw, k, "state", p->state, q->state);
            n += diff_num(o, lw, k, "segment", p->seg, q->seg);
            n += diff_num(o, lw, k, "ticks", p->t, q->t);
            n += diff_dbl(o, lw, k, "foot x", p->fx, q->fx);
            n += diff_dbl(o, lw, k, "foot y", p->fy, q->fy);
            n += diff_dbl(o, lw, k, "swing from x", p->sx, q->sx);
            n += diff_dbl(o, lw, k, "swing from y", p->sy, q->sy);
            n += diff_dbl(o, lw, k, "foothold x", p->tx, q->tx);
            n += diff_dbl(o, lw, k, "foothold y", p->ty, q->ty);
            n += diff_dbl(o, lw, k, "normal x", p->nx, q->nx);
            n += diff_dbl(o, lw, k, "normal y", p->ny, q->ny);
            n += diff_dbl(o, lw, k, "ideal x", p->ix, q->ix);
            n += diff_dbl(o, lw, k, "ideal y", p->iy, q->iy);
        }
    }
    return n;
}

static void terra_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *out)
{
    terra__render(impl, ctx, view, out);
}

static const char *const terra_views[] = { "normal", "xray" };

const sim_kind sim__kind_terrarium = {
    .name = "terrarium",
    .id = 2,
    .hz = TERRA_HZ,
    .state_version = 1,
    .params = terra_params,
    .nparams = (int)(sizeof terra_params / sizeof terra_params[0]),
    .inputs = terra_inputs,
    .ninputs = (int)(sizeof terra_inputs / sizeof terra_inputs[0]),
    .enums = terra_enums,
    .nenums = 1,
    .views = terra_views,
    .nviews = 2,
    .create = terra_create,
    .destroy = terra_destroy,
    .check_input = terra_check_input,
    .apply_input = terra_apply_input,
    .step = terra_step,
    .frame_size = terra_frame_size,
    .render = terra_render,
    .save_max = terra_save_max,
    .save = terra_save,
    .load = terra_load,
    .diff = terra_diff,
};
