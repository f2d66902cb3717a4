/* brain.c — the brains and the senses: the lizard (patrol, pause, stalk, lunge) and the scrambler
 * (potter, look, flee, refuge), righting after a grab or a fall, turning round, and after each
 * solver step what a creature senses (ground contact, facing, where it is), its head's lagging
 * look, and a lunge's knock on its prey. Every random choice comes from the creature's stream. */
#include "terrarium_int.h"

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define CROUCH_RATE (DT / 0.5)       /* crouch rises to 1 over 0.5 s (and falls as fast) */
#define LUNGE_RANGE 130.0            /* ours: a lunge covers about 115 units of floor … */
#define LUNGE_RISE 80.0              /* ours: … and the prey may be this far above or below */
#define BOLT_SPEED 20.0              /* ours: prey running away faster than this (units/s) has bolted */
#define HEAD_RATE (7.0 * DT)         /* min(1, 7·dt) per tick */
#define POINTER_RANGE 170.0
#define SPOT_RANGE 260.0
#define STALK_MIN (3 * TERRA_HZ / 2) /* 1.5 s */
#define STALK_MAX (3 * TERRA_HZ)     /* 3 s */
#define GIVE_UP (3 * TERRA_HZ)       /* 3 s past the stalk timer */
#define FLEE_RANGE 190.0
#define FLEE_RANGE_CROUCH 300.0
#define NERVE_MIN (3 * TERRA_HZ)
#define NERVE_MAX (6 * TERRA_HZ)
#define RIGHTING_CONTACT 12          /* 0.3 s of continuous ground contact */
#define THROWN_TICKS 30              /* ours: 0.75 s with no footing and no ground means thrown */
#define WRIGGLE_AFTER 40             /* ours: 1 s hanging helpless, and it starts to wriggle … */
#define WRIGGLE_EVERY 8              /* … a jerk every fifth of a second … */
#define WRIGGLE 3.0                  /* … of 3 units a tick, sideways */
#define KNOCK_X 3.5                  /* ours: a lunge that reaches its prey bowls it over */
#define KNOCK_UP 2.5
#define TURN_START 0.25              /* ours: a turn starts when the head is this far (× neck) behind */
#define TURN_DONE 0.3                /* … and a chunk has turned when this far (× its bone) ahead */

static const char *const brain_names[BR_NSTATES] = {
    "patrol", "pause", "stalk", "lunge", "potter", "look", "flee", "refuge", "righting",
};

const char *terra__brain_name(int brain)
{
    return brain >= 0 && brain < BR_NSTATES ? brain_names[brain] : "?";
}

/* a − b wrapped into (−π, π]: the short way round. */
static double angle_diff(double a, double b)
{
    double d = a - b;
    while (d > SIM_PI) d -= 2.0 * SIM_PI;
    while (d <= -SIM_PI) d += 2.0 * SIM_PI;
    return d;
}

/* ---- brains ------------------------------------------------------------------------------------------ */
/* Held by someone: a pin on its body that is not one of its own cling pins. */
static int grabbed(const terra_world *t, const terra_creature *c)
{
    for (int i = 0; i < t->v.npin; i++)
        if (t->v.pin[i].body == c->body && !(t->v.pin[i].tag & CLING_TAG)) return 1;
    return 0;
}

static void enter_righting(terra_world *t, terra_creature *c, int ci)
{
    terra__release_cling(t, ci);
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
        terra__choose_goal(c);
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
        terra__choose_goal(c);
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
            if (c->goal < 0) terra__choose_goal(c);
            if (terra__nav_step(t, c, ci, sp->walk)) {
                c->brain = BR_PAUSE;
                c->timer = (uint32_t)sim_rng_range(&c->rng, 40, 120);
                c->goal = -1;
            }
        } else {
            c->dir_x = c->dir_y = c->speed = 0.0;
            if (c->timer) c->timer--;
            if (c->timer == 0) {
                c->brain = BR_PATROL;
                terra__choose_goal(c);
            }
        }
        break;
    }
    case BR_STALK: {
        const terra_creature *p = &t->cr[c->other];
        const sim_chunk *me = cchunk(t, c, 1), *pc = cchunk(t, p, 1), *h = cchunk(t, c, 0);
        double dx = pc->x - me->x, dy = pc->y - me->y;
        double d = sim_sqrt(dx * dx + dy * dy);
        int in_range = d < LUNGE_RANGE && dabs(dy) < LUNGE_RISE &&
                       !sim_verlet_blocked(&t->v, h->x, h->y, pc->x, pc->y, -1);
        c->dir_x = sgn(dx);
        c->dir_y = 0.0;
        if (c->timer) {
            /* Sink into the stalk and creep closer; face the prey even when close enough. Prey
             * that bolts — running away, or up a pole — is chased, low, at full tilt: the stalk
             * timer still has to run out before the lunge. */
            c->timer--;
            double away = (pc->x - pc->px) / DT * sgn(dx);
            if (away > BOLT_SPEED || p->nav != NAV_WALK) c->speed = sp->fast;
            else c->speed = dabs(dx) > 0.6 * LUNGE_RANGE ? sp->slow
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
        if (c->goal < 0) terra__choose_goal(c);
        if (terra__nav_step(t, c, ci, sp->walk)) {
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
            terra__choose_goal(c);
        }
        break;
    case BR_FLEE:
        c->goal = NODE_REFUGE;
        if (terra__nav_step(t, c, ci, sp->fast) && c->at == NODE_REFUGE) {
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
        terra__nav_step(t, c, ci, sp->walk);              /* keep to the spot */
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
                terra__choose_goal(c);
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

void terra__think(terra_world *t, int ci)
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

/* ---- senses --------------------------------------------------------------------------------------------- */
void terra__sense(terra_world *t, terra_creature *c)
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
        int n = terra__node_of_seg(seg, ch->x);
        if (n >= 0) c->at = (int16_t)n;
    }
}

/* The head: one angle lagging toward what is interesting — the pointer if near, a threat (or the
 * prey), whatever it is looking at, else the direction of travel — the short way round. */
void terra__update_head(terra_world *t, terra_creature *c)
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
void terra__lunge_contact(terra_world *t, terra_creature *c)
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
