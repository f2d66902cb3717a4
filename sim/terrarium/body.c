/* body.c — a creature's body on the Verlet solver: the species table, the chunks a creature is
 * made of, building lizards, scramblers and ropes into the solver, and the push each tick (the
 * ride-height spring, the drive, the grip of planted feet, the steering of a turn). The brain
 * decides where to go (brain.c, nav.c); this file turns that into accelerations; verlet.c moves. */
#include "terrarium_int.h"

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define SPRING_K 260.0               /* ours: ride-height spring, 1/s² (ω ≈ 16/s) */
#define SPRING_D 22.0                /* ours: its damping, 1/s (ζ ≈ 0.7) */
#define AIRBORNE_AUTHORITY 0.15      /* drive authority with nothing planted */
#define GRIP 0.2                     /* ours: planted feet brake excess speed, fraction per tick */
#define TAIL_STIFF 0.8
#define TAIL_SKIP_STIFF 0.06
#define CROUCH_RIDE 0.3              /* stalking lowers the ride height by 30% … */
#define CROUCH_HEAD 0.4              /* … and the lizard's head chunk by a further 40% */
#define TURN_K 240.0                 /* ours: turning round, the steering spring (1/s²) … */
#define TURN_D 24.0                  /* … its damping (1/s) … */
#define TURN_LEAN 0.5                /* … toward a point over the pivot, leaning the new way */
#define TURN_RISE 0.87
#define TURN_BRACE 0.5               /* ours: the rest brace: fraction of speed lost per tick */

/* ---- species ------------------------------------------------------------------------------------
 * Comfort, lead and drive are the seed's; the rest is ours, sized so that the ideal spot
 * (lead ahead, ride below) sits inside 96% of the reach. */
const terra_species terra_species_table[2] = {
    [SPECIES_LIZARD] = {
        .name = "lizard", .body_kind = BODY_LIZARD, .ntail = 7,
        .r = { 4.5, 7.0, 6.5 }, .m = { 0.9, 1.3, 1.1 }, .neck = 11.0, .back = 15.0,
        .tail_link = 8.5, .tail_r = 2.0, .ride = 14.0, .thigh = 14.0, .shin = 14.0,
        .comfort = 20.0, .lead = 18.0, .swing_ticks = 6, .lift = 5.0, .tail_lift = 0.6 * GRAVITY,
        .accel = 260.0, .walk = 36.0, .fast = 90.0, .slow = 24.0,
    },
    [SPECIES_SCRAMBLER] = {
        .name = "scrambler", .body_kind = BODY_SCRAMBLER, .ntail = 4,
        .r = { 4.5, 5.5, 5.5 }, .m = { 0.5, 0.7, 0.6 }, .neck = 9.0, .back = 11.0,
        .tail_link = 7.0, .tail_r = 1.5, .ride = 12.0, .thigh = 12.0, .shin = 12.0,
        .comfort = 15.0, .lead = 13.0, .swing_ticks = 4, .lift = 4.0, .tail_lift = 1.0 * GRAVITY,
        .accel = 330.0, .walk = 44.0, .fast = 85.0, .slow = 30.0,
    },
};

/* ---- the chunks of a creature ---------------------------------------------------------------- */
int terra__chunk(const terra_world *t, const terra_creature *c, int k)
{
    return t->v.body[c->body].c0 + k;
}

double terra__ride(const terra_creature *c, int k)
{
    double ride = spec(c)->ride * (1.0 - CROUCH_RIDE * c->crouch);
    if (k == 0 && c->species == SPECIES_LIZARD) ride *= 1.0 - CROUCH_HEAD * c->crouch;
    return ride;
}

/* ---- building bodies ------------------------------------------------------------------------------ */
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

/* A lizard or a scrambler with its chest at about (x, y), facing face (+1 right, −1 left; 0: the
 * head toward the middle of the room and the tail toward the nearer wall), moved along so that all
 * of it fits in the room and lifted to stand clear of the ground. Returns the creature index or −1
 * (full). Nothing changes on failure. */
int terra__build_creature(terra_world *t, int species, double x, double y, int face, uint64_t seed)
{
    if (t->ncr >= TERRA_MAX_CREATURES) return -1;
    const terra_species *sp = &terra_species_table[species];
    int f = face ? (face > 0 ? 1 : -1) : x < 0.5 * TERRA_ROOM_W ? 1 : -1;
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
        double cy = dmin(y, terra__ground_under(t, cx, y - 1.0) - lift);
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

int terra__build_rope(terra_world *t, double x, double y)
{
    double len = (SIM_ROPE_CHUNKS - 1) * SIM_ROPE_LINK;
    double x0 = clampd(x - 0.5 * len, WALL_L + SIM_ROPE_RADIUS + 2.0, WALL_R - SIM_ROPE_RADIUS - 2.0 - len);
    int b = sim_verlet_make_rope(&t->v, BODY_ROPE, x0, y, 1.0, 0.0);
    if (b < 0) return -1;
    /* Lift each chunk clear of whatever is under it. */
    const sim_body *bd = &t->v.body[b];
    for (int k = bd->c0; k < bd->c0 + bd->nc; k++) {
        sim_chunk *c = &t->v.chunk[k];
        double top = terra__ground_under(t, c->x, y - 1.0) - SIM_ROPE_RADIUS - 1.0;
        if (c->y > top) c->y = c->py = top;
    }
    return b;
}

int terra__count_bodies(const terra_world *t, int kind)
{
    int n = 0;
    for (int i = 0; i < t->v.nbody; i++) n += t->v.body[i].kind == kind;
    return n;
}

/* ---- the body is pushed ------------------------------------------------------------------------------ */
void terra__push(terra_world *t, terra_creature *c)
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
