/* creatures.c — the garden's creatures and its pilot: the sky serpents circling the butterfly, the
 * vines reaching for it (on 2s), the villagers strolling, warming by the fire and throwing stones
 * into the pond, the gnomes walking, idling and hopping (over the fire too), the lizards prowling
 * the near bank on their stepping legs, the stones, the poke, the sky's drift (clouds, the
 * windmill's sails), and the pilot that keeps the scene alive when nobody plays (the butterfly's
 * waypoints, the wind's wandering goal). Every random choice comes from the world's stream
 * "garden.pilot". The step's notable events (pokes, hops, throws, spawns) go to the step's
 * context (sim_event_add): data for the host, never state. */
#include "garden_int.h"

#define TURN 4294967296.0

/* ---- hold lists (seed 000 §6) ------------------------------------------------------------------- */
/* The throw: "attack wind-up long, strike 2–4, recovery 6–12". */
static const sim_hold throw_holds[] = {
    { GB_POSE_WINDUP, SIM_HOLD_WINDUP }, { GB_POSE_STRIKE, SIM_HOLD_STRIKE },
    { GB_POSE_FOLLOW, SIM_HOLD_RECOVER },
};
const sim_holds sim__garden_throw_anim[1] = { { throw_holds, 3, 0 } };
/* The gnome: "walk 6–10 ticks a pose" (the four rule-built frames), and an idle bob, "idle
 * 10–30", held unevenly (a long rest, a short lift) so it reads as a breath, not a metronome. */
static const sim_hold walk_holds[] = {
    { SIM_WALK_CONTACT, SIM_HOLD_WALK }, { SIM_WALK_PASSING, SIM_HOLD_WALK },
    { SIM_WALK_CONTACT_MIRRORED, SIM_HOLD_WALK }, { SIM_WALK_PASSING_2, SIM_HOLD_WALK },
};
static const sim_hold idle_holds[] = { { GW_STAND, 28 }, { SIM_WALK_PASSING, 14 } };
const sim_holds sim__garden_gnome_anims[GW_NANIMS] = {
    [GW_ANIM_WALK] = { walk_holds, 4, 1 },
    [GW_ANIM_IDLE] = { idle_holds, 2, 1 },
};

/* ---- places --------------------------------------------------------------------------------------- */
int sim__garden_bank(double x) { return x > (GARDEN_LEFT_X1 + GARDEN_RIGHT_X0) / 2 ? 1 : 0; }

int sim__garden_land_x(int x)
{
    if (x < GARDEN_LEFT_X0) return GARDEN_LEFT_X0;
    if (x > GARDEN_RIGHT_X1) return GARDEN_RIGHT_X1;
    if (x > GARDEN_LEFT_X1 && x < GARDEN_RIGHT_X0)
        return sim__garden_bank(x) ? GARDEN_RIGHT_X0 : GARDEN_LEFT_X1;
    return x;
}

/* A villager keeps to the meadow right of the fire (or the bank). */
static int biped_x(int x)
{
    x = sim__garden_land_x(x);
    return x < GARDEN_FIRE_X + GARDEN_FIRE_KEEP + 2 ? GARDEN_FIRE_X + GARDEN_FIRE_KEEP + 2 : x;
}

static int near_fire(double x, int r) { return x > GARDEN_FIRE_X - r && x < GARDEN_FIRE_X + r; }

static int32_t rng_range(sim_rng *r, int lo, int hi) { return sim_rng_range(r, lo, hi); }

/* A goal on x's bank, at least 16 px away, never beside the fire. */
static int pick_goal(sim_rng *r, double x, int lo_meadow)
{
    int bank = sim__garden_bank(x);
    int lo = bank ? GARDEN_RIGHT_X0 : lo_meadow, hi = bank ? GARDEN_RIGHT_X1 : GARDEN_LEFT_X1;
    int g = (int)x;
    for (int tries = 0; tries < 4; tries++) {
        g = rng_range(r, lo, hi);
        if ((g - x > 16 || x - g > 16) && !near_fire(g, GARDEN_FIRE_KEEP)) break;
    }
    if (near_fire(g, GARDEN_FIRE_KEEP)) g = GARDEN_FIRE_X + GARDEN_FIRE_KEEP;
    return g;
}

/* ---- making creatures ------------------------------------------------------------------------------- */
int sim__garden_add_serpent(garden_world *w, double x, double y)
{
    if (w->nserpent >= GARDEN_MAX_SERPENTS) return SIM_EFULL;
    /* a head, a neck, a body that tapers to the tail */
    static const double radius[GARDEN_SERPENT_POINTS] = { 3.0, 2.0, 2.4, 2.7, 2.7, 2.6, 2.4,
                                                          2.2, 2.0, 1.7, 1.4, 1.1, 0.8, 0.6 };
    double len[GARDEN_SERPENT_POINTS - 1];
    for (int i = 0; i < GARDEN_SERPENT_POINTS - 1; i++) len[i] = GARDEN_SERPENT_SEG;
    garden_serpent *s = &w->serpent[w->nserpent];
    memset(s, 0, sizeof *s);
    int rc = sim_spine_init(&s->spine, GARDEN_SERPENT_POINTS, gd_clamp(x, 0, GARDEN_W - 1),
                            gd_clamp(y, GARDEN_SKY_Y0, GARDEN_SERPENT_Y1), 0.0, len, radius,
                            GARDEN_SERPENT_BEND, GARDEN_SERPENT_SPEED - 0.15 * (w->nserpent % 3));
    if (rc) return rc;
    sim_juice_init(&s->juice);
    /* one way round for all: on neighbouring rings they then glide side by side instead of
     * meeting head on each lap */
    s->orbit_dir = (int8_t)(sim_rng_below(&w->pilot, 2) ? 1 : -1);
    if (w->nserpent > 0) s->orbit_dir = w->serpent[0].orbit_dir;
    s->heading = 0.0;                               /* as the spine lies: facing +x */
    w->nserpent++;
    w->serial++;
    return 0;
}

int sim__garden_add_vine(garden_world *w, int root_x)
{
    if (w->nvine >= GARDEN_MAX_VINES) return SIM_EFULL;
    double len[GARDEN_VINE_JOINTS - 1];
    for (int i = 0; i < GARDEN_VINE_JOINTS - 1; i++) len[i] = GARDEN_VINE_SEG;
    garden_vine *v = &w->vine[w->nvine];
    memset(v, 0, sizeof *v);
    root_x = sim__garden_land_x(root_x);
    if (near_fire(root_x, GARDEN_FIRE_KEEP)) root_x = GARDEN_FIRE_X + GARDEN_FIRE_KEEP;
    v->root_x = (int16_t)root_x;
    /* straight up, with a lean so the first solves bend it rather than fold it */
    int rc = sim_fabrik_init(&v->reach, GARDEN_VINE_JOINTS, v->root_x, GARDEN_GROUND,
                             -SIM_PI / 2 + 0.2, len);
    if (rc) return rc;
    sim_juice_init(&v->juice);
    w->nvine++;
    w->serial++;
    return 0;
}

int sim__garden_add_biped(garden_world *w, int x, int style)
{
    if (w->nbiped >= GARDEN_MAX_BIPEDS) return SIM_EFULL;
    garden_biped *g = &w->biped[w->nbiped];
    memset(g, 0, sizeof *g);
    g->style = (uint8_t)(style % GB_STYLES);
    x = biped_x(x);
    int rc = sim_biped_init(&g->b, &w->bcfg[g->style], x, GARDEN_GROUND,
                            sim_rng_below(&w->pilot, 2) ? 1 : -1, w->seed, w->serial);
    if (rc) return rc;
    sim_juice_init(&g->juice);
    g->task = GB_IDLE;
    g->goal_x = (int16_t)x;
    g->wait = (uint16_t)rng_range(&w->pilot, 30, 150);
    g->clip.anim = 0;
    g->clip.start = w->now;
    g->aim_x = -1;
    w->nbiped++;
    w->serial++;
    return 0;
}

int sim__garden_add_walker(garden_world *w, int x)
{
    if (w->nwalker >= GARDEN_MAX_WALKERS) return SIM_EFULL;
    garden_walker *g = &w->walker[w->nwalker];
    memset(g, 0, sizeof *g);
    x = sim__garden_land_x(x);
    if (near_fire(x, GARDEN_FIRE_KEEP)) x = GARDEN_FIRE_X + GARDEN_FIRE_KEEP;
    g->x = x;
    g->facing = (int8_t)(sim_rng_below(&w->pilot, 2) ? 1 : -1);
    g->task = GW_IDLE;
    g->goal_x = (int16_t)x;
    g->wait = (uint16_t)rng_range(&w->pilot, 20, 120);
    g->clip.anim = GW_ANIM_IDLE;
    g->clip.start = w->now;
    sim_juice_init(&g->juice);
    w->nwalker++;
    w->serial++;
    return 0;
}

void sim__garden_drop_stone(garden_world *w, double x, double y, double vx, double vy)
{
    if (w->nstone >= GARDEN_MAX_STONES) return;            /* the air is full: no stone */
    w->stone[w->nstone++] = (garden_stone){ x, y, vx, vy };
}

/* ---- the lizard ------------------------------------------------------------------------------------ */
/* Its body, head first: a round head, a neck, a barrel of a body, a tapering tail. */
static const double lizard_radius[GARDEN_LIZARD_POINTS] = { 2.4, 1.7, 2.3, 2.6, 2.6, 2.3,
                                                            1.7, 1.2, 0.8, 0.5 };
#define LIZARD_SHOULDER 2           /* the spine points the legs hang from */
#define LIZARD_HIPS 5
/* Each leg's ideal spot: along the facing from its hip, px; far feet one row up the bank. */
static const double lizard_reach[4] = { 2.5, -0.5, 1.5, -1.5 };
static const uint8_t lizard_pair[4] = { 0, 1, 1, 0 };       /* front near + back far, and so on */
static int lizard_far(int leg) { return leg == 1 || leg == 3; }

static double lizard_body_y(void) { return GARDEN_LIZARD_FEET - GARDEN_LIZARD_HIP; }

void sim__garden_lizard_hip(const garden_lizard *z, int which, double *x, double *y)
{
    int k = which ? LIZARD_HIPS : LIZARD_SHOULDER;
    *x = z->body.x[k];
    *y = z->body.y[k];
}

static void lizard_ideal(const garden_lizard *z, double *ix, double *iy)
{
    for (int i = 0; i < 4; i++) {
        double hx, hy;
        sim__garden_lizard_hip(z, i >= 2, &hx, &hy);
        ix[i] = hx + z->facing * lizard_reach[i];
        iy[i] = GARDEN_LIZARD_FEET - (lizard_far(i) ? 1 : 0);
    }
}

int sim__garden_add_lizard(garden_world *w, int x)
{
    if (w->nlizard >= GARDEN_MAX_LIZARDS) return SIM_EFULL;
    garden_lizard *z = &w->lizard[w->nlizard];
    memset(z, 0, sizeof *z);
    x = gd_clampi(x, GARDEN_NEAR_X0 + 16, GARDEN_NEAR_X1 - 16);
    z->facing = (int8_t)(sim_rng_below(&w->pilot, 2) ? 1 : -1);
    double len[GARDEN_LIZARD_POINTS - 1];
    for (int i = 0; i < GARDEN_LIZARD_POINTS - 1; i++) len[i] = GARDEN_LIZARD_SEG;
    /* the head leads: the body lies behind it, centred on x */
    double hx = x + z->facing * GARDEN_LIZARD_SEG * (GARDEN_LIZARD_POINTS - 1) * 0.5;
    int rc = sim_spine_init(&z->body, GARDEN_LIZARD_POINTS, hx, lizard_body_y(),
                            z->facing > 0 ? 0.0 : SIM_PI, len, lizard_radius, 0.5,
                            GARDEN_LIZARD_SCURRY);
    if (rc) return rc;
    double ix[4], iy[4];
    lizard_ideal(z, ix, iy);
    if ((rc = sim_legs_init(&z->legs, 4, lizard_pair, ix, iy))) return rc;
    sim_juice_init(&z->juice);
    z->task = GL_IDLE;
    z->goal_x = (int16_t)x;
    z->wait = (uint16_t)rng_range(&w->pilot, 30, 150);
    w->nlizard++;
    w->serial++;
    return 0;
}

/* A turn is a flip, as a sprite turns (seed §4: left and right from flips): the body and the feet
 * mirrored about the body's middle, in one frame; from the side a lizard turning on the spot shows
 * no more than that. */
static void lizard_flip(garden_lizard *z)
{
    double c = (z->body.x[0] + z->body.x[z->body.n - 1]) * 0.5;
    for (int i = 0; i < z->body.n; i++) z->body.x[i] = 2.0 * c - z->body.x[i];
    for (int i = 0; i < z->legs.n; i++) {
        sim_leg *g = &z->legs.leg[i];
        g->x = 2.0 * c - g->x;
        g->fx = 2.0 * c - g->fx;
        g->tx = 2.0 * c - g->tx;
    }
    z->facing = (int8_t)-z->facing;
}

static void step_lizards(garden_world *w, uint64_t tick)
{
    (void)tick;
    for (int i = 0; i < w->nlizard; i++) {
        garden_lizard *z = &w->lizard[i];
        double v = 0.0;
        if (z->task == GL_IDLE) {
            if (z->wait) {
                z->wait--;
                if (w->wander && !z->tongue && sim_rng_below(&w->pilot, 240) == 0) z->tongue = 10;
            } else if (w->wander) {
                int g = (int)z->body.x[0];
                for (int tries = 0; tries < 4; tries++) {
                    g = rng_range(&w->pilot, GARDEN_NEAR_X0 + 16, GARDEN_NEAR_X1 - 16);
                    if (g - z->body.x[0] > 30 || z->body.x[0] - g > 30) break;
                }
                z->goal_x = (int16_t)g;
                z->task = GL_WALK;
            }
        }
        if (z->task == GL_WALK) {
            double speed = z->scurry ? GARDEN_LIZARD_SCURRY : GARDEN_LIZARD_SPEED;
            double d = z->goal_x - z->body.x[0];
            if ((d > 0 ? 1 : -1) != z->facing && (d > 2.0 || d < -2.0)) lizard_flip(z);
            if (d <= speed && d >= -speed) {
                v = d;
                z->task = GL_IDLE;
                z->scurry = 0;
                z->wait = (uint16_t)rng_range(&w->pilot, 60, 300);
            } else {
                v = z->facing * speed;
            }
        }
        if (z->scurry) z->scurry--;
        if (z->tongue) z->tongue--;
        if (v != 0.0) sim_spine_step(&z->body, z->body.x[0] + v, lizard_body_y());
        double ix[4], iy[4];
        lizard_ideal(z, ix, iy);
        sim_legs_step(&z->legs, &w->lcfg, ix, iy, v);
        sim_juice_step(&z->juice, &w->jcfg);
        if (v != 0.0) sim_grass_push(&w->front, sim_snap(z->body.x[3]), 7, z->facing);
    }
}

/* ---- events ----------------------------------------------------------------------------------------- */
static void event_at(const sim_ctx *ctx, const char *name, const char *who, int i, int x, int y)
{
    sim_event *e = sim_event_add(ctx, name);
    sim_event_str(e, "who", who);
    sim_event_num(e, "i", i);
    sim_event_num(e, "x", x);
    sim_event_num(e, "y", y);
}

static void event_hop(const sim_ctx *ctx, const char *who, int i, int x, const char *why)
{
    sim_event *e = sim_event_add(ctx, "hop");
    sim_event_str(e, "who", who);
    sim_event_num(e, "i", i);
    sim_event_num(e, "x", x);
    sim_event_str(e, "why", why);
}

/* ---- the poke ------------------------------------------------------------------------------------- */
static int in_box(int x, int y, int x0, int y0, int x1, int y1)
{
    return x >= x0 && x <= x1 && y >= y0 && y <= y1;
}

int sim__garden_hit_walker(const garden_world *w, int i, int x, int y)
{
    const garden_walker *g = &w->walker[i];
    int cx = sim_snap(g->x), dy = sim_snap(g->juice.y);
    return in_box(x, y, cx - 7, GARDEN_GROUND - 18 + dy, cx + 7, GARDEN_GROUND - 1 + dy);
}

int sim__garden_hit_biped(const garden_world *w, int i, int x, int y)
{
    const garden_biped *g = &w->biped[i];
    int cx = sim_snap(g->b.x), dy = sim_snap(g->juice.y);
    return in_box(x, y, cx - 6, GARDEN_GROUND - 20 + dy, cx + 6, GARDEN_GROUND - 1 + dy);
}

int sim__garden_hit_serpent(const garden_world *w, int i, int x, int y)
{
    const sim_spine *s = &w->serpent[i].spine;
    for (int k = 0; k < s->n; k++) {
        double dx = s->x[k] - x, dy = s->y[k] - y, r = s->radius[k] + 2.0;
        if (dx * dx + dy * dy <= r * r) return 1;
    }
    return 0;
}

int sim__garden_hit_vine(const garden_world *w, int i, int x, int y)
{
    const sim_fabrik *r = &w->vine[i].reach;
    for (int k = 0; k < r->n; k++) {
        double dx = r->x[k] - x, dy = r->y[k] - y;
        if (dx * dx + dy * dy <= 16.0) return 1;
    }
    return 0;
}

int sim__garden_hit_lizard(const garden_world *w, int i, int x, int y)
{
    const garden_lizard *z = &w->lizard[i];
    for (int k = 0; k < z->body.n; k++) {
        double dx = z->body.x[k] - x, dy = z->body.y[k] - y, r = z->body.radius[k] + 2.0;
        if (dx * dx + dy * dy <= r * r) return 1;
    }
    for (int k = 0; k < z->legs.n; k++) {
        double dx = z->legs.leg[k].x - x, dy = z->legs.leg[k].y - y;
        if (dx * dx + dy * dy <= 6.25) return 1;
    }
    return 0;
}

void sim__garden_poke(garden_world *w, const sim_ctx *ctx, int x, int y)
{
    /* front first: the order render draws them in, reversed */
    for (int i = w->nserpent - 1; i >= 0; i--)
        if (sim__garden_hit_serpent(w, i, x, y)) {
            sim_juice_poke(&w->serpent[i].juice);
            event_at(ctx, "poke", "serpent", i, x, y);
            return;
        }
    for (int i = w->nlizard - 1; i >= 0; i--)
        if (sim__garden_hit_lizard(w, i, x, y)) {
            garden_lizard *z = &w->lizard[i];
            sim_juice_poke(&z->juice);
            /* it scurries away from the finger */
            z->scurry = GARDEN_LIZARD_SCURRY_TICKS;
            int away = x <= z->body.x[3] ? 1 : -1;
            z->goal_x = (int16_t)gd_clampi(sim_snap(z->body.x[0]) + away * 60, GARDEN_NEAR_X0 + 16,
                                           GARDEN_NEAR_X1 - 16);
            z->task = GL_WALK;
            event_at(ctx, "poke", "lizard", i, x, y);
            return;
        }
    for (int i = w->nwalker - 1; i >= 0; i--)
        if (sim__garden_hit_walker(w, i, x, y)) {
            garden_walker *g = &w->walker[i];
            sim_juice_poke(&g->juice);
            /* startled: it freezes while it flashes, then hops on the spot, so the hop's
             * anticipation and its smear show after the flash instead of under it */
            if (g->juice.hop == SIM_HOP_REST && !(g->juice.pending & SIM_JUICE_HOP) && !g->startle)
                g->startle = (uint8_t)(w->jcfg.flash_ticks + 1);
            event_at(ctx, "poke", "gnome", i, x, y);
            return;
        }
    for (int i = w->nbiped - 1; i >= 0; i--)
        if (sim__garden_hit_biped(w, i, x, y)) {
            garden_biped *g = &w->biped[i];
            sim_juice_poke(&g->juice);
            event_at(ctx, "poke", "villager", i, x, y);
            if (g->juice.hop == SIM_HOP_REST) {
                sim_juice_hop(&g->juice);
                event_hop(ctx, "villager", i, sim_snap(g->b.x), "poke");
            }
            g->startled = GARDEN_STARTLE_TICKS;
            return;
        }
    for (int i = w->nvine - 1; i >= 0; i--)
        if (sim__garden_hit_vine(w, i, x, y)) {
            sim_juice_poke(&w->vine[i].juice);
            event_at(ctx, "poke", "vine", i, x, y);
            return;
        }
    if (x >= GARDEN_POND_X0 && x <= GARDEN_POND_X1 && y < GARDEN_NEAR_GROUND) {
        int col = x - GARDEN_POND_X0;
        if (y >= GARDEN_POND_REST - 4 - sim_water_height(&w->pond, col)) {
            sim_water_splash(&w->pond, col, GARDEN_STONE_SPLASH);   /* in the water: at once */
            event_at(ctx, "poke", "pond", -1, x, y);
        } else {
            sim__garden_drop_stone(w, x, y, 0.0, 0.0);              /* above it: a stone falls */
            event_at(ctx, "poke", "stone", -1, x, y);
        }
        return;
    }
    /* the meadow or the bank: the grass there parts */
    sim_grass_push(y >= GARDEN_NEAR_GROUND - 12 ? &w->front : &w->back, x, 8, 1);
    event_at(ctx, "poke", "grass", -1, x, y);
}

/* ---- the pilot: the wind and the butterfly ------------------------------------------------------------- */
void sim__garden_step_pilot(garden_world *w, uint64_t tick)
{
    if (w->wind_hold) {
        w->wind_hold--;
    } else if (w->wander) {
        if (w->wind_timer) {
            w->wind_timer--;
        } else {
            /* gusts and lulls: a new goal every 3–8 s, calm now and then */
            w->wind_goal = (int16_t)(sim_rng_below(&w->pilot, 5) == 0 ? 0 : rng_range(&w->pilot, -70, 70));
            w->wind_timer = (uint16_t)rng_range(&w->pilot, 180, 480);
        }
    }
    if (tick % GARDEN_WIND_EVERY == 0 && w->wind != w->wind_goal)
        w->wind = (int16_t)(w->wind + (w->wind_goal > w->wind ? 1 : -1));

    double gx = w->fly_x, gy = w->fly_y, speed = 0.9;
    if (w->aim_hold) {
        w->aim_hold--;
        gx = w->aim_x;
        gy = w->aim_y;
        speed = 1.6;
    } else if (w->wander) {
        double dx = w->way_x - w->fly_x, dy = w->way_y - w->fly_y;
        if (w->way_timer == 0 || dx * dx + dy * dy < 4.0) {
            w->way_x = (int16_t)rng_range(&w->pilot, 20, GARDEN_W - 20);
            w->way_y = (int16_t)rng_range(&w->pilot, GARDEN_SKY_Y0 + 16, GARDEN_SKY_Y1);
            w->way_timer = (uint16_t)rng_range(&w->pilot, 150, 420);
        } else {
            w->way_timer--;
        }
        gx = w->way_x;
        gy = w->way_y;
    }
    double dx = gx - w->fly_x, dy = gy - w->fly_y, d = sim_sqrt(dx * dx + dy * dy);
    if (d <= speed) {
        w->fly_x = gx;
        w->fly_y = gy;
    } else {
        w->fly_x += dx / d * speed;
        w->fly_y += dy / d * speed;
    }
}

/* ---- serpents and vines ------------------------------------------------------------------------------- */
/* Serpent i's ring round the butterfly: 24, 35, 46 px, three quarters as tall as wide (its
 * tightest bend, 0.56 r = 13.5 px on the first, is about the head's turning radius), its centre
 * kept far enough from the sky's edges that the whole ring is sky. */
static double ring_r(int i) { return GARDEN_ORBIT_R + GARDEN_ORBIT_STEP * (i % GARDEN_MAX_SERPENTS); }
#define RING_FLAT 0.75

static void ring_of(const garden_world *w, int i, double *cx, double *cy, double *a, double *b)
{
    *a = ring_r(i);
    *b = *a * RING_FLAT;
    *cx = gd_clamp(w->fly_x, 4.0 + *a, GARDEN_W - 5.0 - *a);
    *cy = gd_clamp(w->fly_y, GARDEN_SKY_Y0 + *b, GARDEN_SERPENT_Y1 - *b);
}

/* The point of serpent i's ring nearest its head (in the ring's own scale): where it is heading
 * for (the x-ray marks it). */
void sim__garden_serpent_target(const garden_world *w, int i, double *tx, double *ty)
{
    double cx, cy, a, b;
    ring_of(w, i, &cx, &cy, &a, &b);
    double ex = (w->serpent[i].spine.x[0] - cx) / a, ey = (w->serpent[i].spine.y[0] - cy) / b;
    double rho = sim_sqrt(ex * ex + ey * ey);
    if (rho < 1e-9) {
        ex = 1.0;
        ey = 0.0;
        rho = 1.0;
    }
    *tx = cx + a * ex / rho;
    *ty = cy + b * ey / rho;
}

static double wrap_pi(double v)
{
    while (v > SIM_PI) v -= 2.0 * SIM_PI;
    while (v < -SIM_PI) v += 2.0 * SIM_PI;
    return v;
}

/* The head steers by a field that flows round the ring (its own way round) and into it from
 * inside and out: the tangent, plus the radial error pulling it onto the ring; so a head that
 * arrives anywhere, facing anyhow, turns onto the ring instead of chasing a point on it (issue
 * 27: a head that went straight at a point running round a 14-px orbit turned faster than its
 * bends could follow and tied the body in knots). It turns at most speed / GARDEN_SERPENT_TURN_R
 * radians a tick; other serpents' bodies near it push it away, and one across its way slows it
 * (it gives way rather than plough through). Far from its ring it hurries, on it it cruises at
 * 0.63 px a tick. */
static void steer_serpent(garden_world *w, int i)
{
    garden_serpent *s = &w->serpent[i];
    sim_spine *sp = &s->spine;
    double cx, cy, a, b;
    ring_of(w, i, &cx, &cy, &a, &b);
    /* its heading is its own (the body's p0 − p1 lags a turn by several ticks, and a turn limited
     * against it would let the head wander off in loops four times as wide) */
    double hx = sp->x[0], hy = sp->y[0], fx = sim_cos(s->heading), fy = sim_sin(s->heading);
    double ex = (hx - cx) / a, ey = (hy - cy) / b, rho = sim_sqrt(ex * ex + ey * ey);
    if (rho < 1e-6) {
        ex = 1e-6;
        rho = 1e-6;
    }
    /* in the ring's scale: round it, and radially (1 − ρ) back onto it; then to screen scale */
    double k = 2.0 * (1.0 - rho) / rho;
    double vx = (-ey * s->orbit_dir + k * ex) * a, vy = (ex * s->orbit_dir + k * ey) * b;
    double m = sim_sqrt(vx * vx + vy * vy);
    double ux = m > 1e-9 ? vx / m : fx, uy = m > 1e-9 ? vy / m : fy;
    double give = 1.0;
    for (int j = 0; j < w->nserpent; j++) {
        if (j == i) continue;
        const sim_spine *o = &w->serpent[j].spine;
        for (int q = 0; q < o->n; q++) {
            double dx = hx - o->x[q], dy = hy - o->y[q], e = sim_sqrt(dx * dx + dy * dy);
            if (e >= GARDEN_SERPENT_APART || e < 1e-9) continue;
            double push = 3.0 * (GARDEN_SERPENT_APART - e) / GARDEN_SERPENT_APART;
            ux += dx / e * push;
            uy += dy / e * push;
            if (dx * fx + dy * fy < 0.0) give = 0.5;
        }
    }
    double off = (rho > 1.0 ? rho - 1.0 : 1.0 - rho) * a;          /* px off its ring, about */
    double cruise = 2.0 * SIM_PI * GARDEN_ORBIT_R / GARDEN_ORBIT_TICKS;
    double v = gd_clamp((cruise + 0.05 * off) * give, 0.3, sp->speed);
    double turn = wrap_pi(sim_atan2(uy, ux) - s->heading), most = v / GARDEN_SERPENT_TURN_R;
    s->heading = wrap_pi(s->heading + gd_clamp(turn, -most, most));
    sim_spine_step(sp, hx + v * sim_cos(s->heading), hy + v * sim_sin(s->heading));
}

static void step_serpents(garden_world *w)
{
    for (int i = 0; i < w->nserpent; i++) {
        steer_serpent(w, i);
        sim_juice_step(&w->serpent[i].juice, &w->jcfg);
    }
}

/* What a vine reaches for: the butterfly when it is near; otherwise it stands and sways, leaning
 * with the wind. */
static void vine_goal(const garden_world *w, const garden_vine *v, uint64_t tick, double *tx,
                      double *ty)
{
    double reach = sim_fabrik_reach(&v->reach);
    double rx = v->root_x, ry = GARDEN_GROUND;
    double dx = w->fly_x - rx, dy = w->fly_y - ry, d = sim_sqrt(dx * dx + dy * dy);
    if (d < reach + 24.0) {
        double k = d > reach * 0.96 ? reach * 0.96 / d : 1.0;
        *tx = rx + dx * k;
        *ty = ry + dy * k;
        return;
    }
    double sway = sim_sin((double)(tick % 240) * (2.0 * SIM_PI / 240.0) + v->root_x * 0.1);
    *tx = rx + 9.0 * sway + (double)w->wind * 0.2;
    *ty = ry - reach * 0.8;
}

static void step_vines(garden_world *w, uint64_t tick)
{
    int solve = sim_layer_tick(tick, GARDEN_VINE_EVERY) == tick;    /* on 2s */
    for (int i = 0; i < w->nvine; i++) {
        garden_vine *v = &w->vine[i];
        if (solve) {
            double tx, ty;
            vine_goal(w, v, tick, &tx, &ty);
            sim_fabrik_solve(&v->reach, tx, ty);
        }
        sim_juice_step(&v->juice, &w->jcfg);
    }
}

/* ---- villagers -------------------------------------------------------------------------------------- */
static void biped_throw(garden_world *w, garden_biped *g)
{
    const sim_biped_cfg *cfg = &w->bcfg[g->style];
    double hx = g->b.x + g->b.facing * 5.0, hy = GARDEN_GROUND - 1 - cfg->hip_h - 9.0;
    double tx = GARDEN_POND_X0 + g->aim_x, T = GARDEN_STONE_FLIGHT;
    double vx = (tx - hx) / T;
    double vy = ((double)GARDEN_POND_REST - hy - 0.5 * GARDEN_STONE_G * T * T) / T;
    sim__garden_drop_stone(w, hx, hy, vx, vy);
}

static void step_bipeds(garden_world *w, const sim_ctx *ctx, uint64_t tick)
{
    double hair_wind = (double)w->wind * 0.0015;   /* ±0.15 px/tick² in a gale */
    for (int i = 0; i < w->nbiped; i++) {
        garden_biped *g = &w->biped[i];
        const sim_biped_cfg *cfg = &w->bcfg[g->style];
        double dx = 0.0;
        switch (g->task) {
        case GB_IDLE:
            if (g->wait) {
                g->wait--;
            } else if (w->wander) {
                int r = (int)sim_rng_below(&w->pilot, 10);
                int bank = sim__garden_bank(g->b.x);
                g->then_throw = 0;
                if (r < 3) {                                   /* to the water, to throw */
                    g->goal_x = (int16_t)(bank ? GARDEN_RIGHT_X0 + 2 : GARDEN_LEFT_X1 - 2);
                    g->then_throw = 1;
                } else if (r < 5 && !bank) {                   /* to the fire, to warm up */
                    g->goal_x = (int16_t)(GARDEN_FIRE_X + GARDEN_FIRE_KEEP + 4);
                } else {
                    g->goal_x = (int16_t)pick_goal(&w->pilot, g->b.x, GARDEN_FIRE_X + GARDEN_FIRE_KEEP + 2);
                }
                g->task = GB_WALK;
            }
            break;
        case GB_WALK: {
            double d = g->goal_x - g->b.x;
            if (d <= GARDEN_BIPED_SPEED && d >= -GARDEN_BIPED_SPEED) {
                dx = d;
                if (g->then_throw) {
                    g->task = GB_THROW;
                    g->clip.anim = 0;
                    g->clip.start = tick + 1;          /* the wind-up shows from this step's picture */
                    g->aim_x = (int16_t)(sim__garden_bank(g->b.x) ? rng_range(&w->pilot, GARDEN_POND_N - 40, GARDEN_POND_N - 6)
                                                                 : rng_range(&w->pilot, 6, 40));
                } else {
                    g->task = GB_IDLE;
                    g->wait = (uint16_t)rng_range(&w->pilot, 90, 330);
                }
            } else {
                dx = d > 0 ? GARDEN_BIPED_SPEED : -GARDEN_BIPED_SPEED;
            }
            break;
        }
        default: { /* GB_THROW */
            /* face the water */
            g->b.facing = (int8_t)(sim__garden_bank(g->b.x) ? -1 : 1);
            uint64_t el = tick + 1 - g->clip.start;             /* the frame this step shows */
            if (el == SIM_HOLD_WINDUP) {                        /* the strike's first frame */
                biped_throw(w, g);
                sim_event *e = sim_event_add(ctx, "throw");
                sim_event_str(e, "who", "villager");
                sim_event_num(e, "i", i);
                sim_event_num(e, "x", sim_snap(g->b.x));
                sim_event_num(e, "aim", GARDEN_POND_X0 + g->aim_x);
            }
            if (sim_holds_done(sim__garden_throw_anim, el)) {
                g->task = GB_IDLE;
                g->then_throw = 0;
                g->aim_x = -1;
                g->wait = (uint16_t)rng_range(&w->pilot, 60, 240);
            }
            break;
        }
        }
        sim_biped_step(&g->b, cfg, dx, tick, hair_wind);
        if (g->startled) g->startled--;
        sim_juice_step(&g->juice, &w->bjcfg);
        g->b.state = g->startled ? GB_STARTLED : g->task == GB_THROW ? GB_AIMING
                   : near_fire(g->b.x, GARDEN_WARM_R) ? GB_WARM : GB_CALM;
        if (dx != 0.0 && g->juice.hop == SIM_HOP_REST)
            sim_grass_push(&w->back, sim_snap(g->b.x), 6, g->b.facing);
    }
}

/* ---- gnomes --------------------------------------------------------------------------------------------- */
/* A clip started in the step of `tick` shows its first frame in the picture of that step's result
 * (the world at tick + 1): frame = f(now − start) from 0. */
static void walker_clip(garden_walker *g, int anim, uint64_t tick)
{
    if (g->clip.anim != anim) {
        g->clip.anim = (uint8_t)anim;
        g->clip.start = tick + 1;
    }
}

static void step_walkers(garden_world *w, const sim_ctx *ctx, uint64_t tick)
{
    for (int i = 0; i < w->nwalker; i++) {
        garden_walker *g = &w->walker[i];
        if (g->startle && --g->startle == 0 && g->juice.hop == SIM_HOP_REST) {
            sim_juice_hop(&g->juice);
            g->hop_dx = 0.0;
            event_hop(ctx, "gnome", i, sim_snap(g->x), "poke");
        }
        int grounded = g->juice.hop == SIM_HOP_REST && !(g->juice.pending & SIM_JUICE_HOP) &&
                       !g->startle;
        if (g->task == GW_WALK && grounded) {
            double d = g->goal_x - g->x;
            if (d <= GARDEN_WALKER_SPEED && d >= -GARDEN_WALKER_SPEED) {
                g->x = g->goal_x;
                g->task = GW_IDLE;
                g->wait = (uint16_t)rng_range(&w->pilot, 60, 240);
                walker_clip(g, GW_ANIM_IDLE, tick);
            } else {
                g->facing = (int8_t)(d > 0 ? 1 : -1);
                g->x += g->facing * GARDEN_WALKER_SPEED;
                /* the campfire ahead: hop over it */
                double ahead = (GARDEN_FIRE_X - g->x) * g->facing;
                if (ahead >= 10.0 && ahead <= 11.0) {
                    sim_juice_hop(&g->juice);
                    g->hop_dx = g->facing * GARDEN_HOP_DX;
                    event_hop(ctx, "gnome", i, sim_snap(g->x), "fire");
                }
            }
        } else if (g->task == GW_IDLE && grounded) {
            if (g->wait) {
                g->wait--;
            } else if (w->wander) {
                if (sim_rng_below(&w->pilot, 4) == 0) {        /* a hop for joy, on the spot */
                    sim_juice_hop(&g->juice);
                    g->hop_dx = 0.0;
                    event_hop(ctx, "gnome", i, sim_snap(g->x), "joy");
                    g->wait = (uint16_t)rng_range(&w->pilot, 40, 120);
                } else {
                    g->goal_x = (int16_t)pick_goal(&w->pilot, g->x, GARDEN_LEFT_X0);
                    g->task = GW_WALK;
                    walker_clip(g, GW_ANIM_WALK, tick);
                }
            }
        }
        if (g->juice.hop == SIM_HOP_AIR) {
            int bank = sim__garden_bank(g->x);
            g->x = gd_clamp(g->x + g->hop_dx, bank ? GARDEN_RIGHT_X0 : GARDEN_LEFT_X0,
                            bank ? GARDEN_RIGHT_X1 : GARDEN_LEFT_X1);
        }
        sim_juice_step(&g->juice, &w->jcfg);
        if (g->juice.hop == SIM_HOP_REST) g->hop_dx = 0.0;
        /* the status palette: warm by the fire */
        g->juice.status = near_fire(g->x, GARDEN_WARM_R) ? 1 : 0;
        if (g->task == GW_WALK && g->juice.hop == SIM_HOP_REST)
            sim_grass_push(&w->back, sim_snap(g->x), 5, g->facing);
    }
}

int sim__garden_walker_image(const garden_world *w, int i)
{
    const garden_walker *g = &w->walker[i];
    if (g->juice.hop == SIM_HOP_AIR) return SIM_WALK_CONTACT;          /* legs spread in a leap */
    if (g->juice.hop == SIM_HOP_WINDUP) return GW_STAND;
    return sim_clip_frame(&g->clip, sim__garden_gnome_anims, w->now);
}

/* ---- stones ------------------------------------------------------------------------------------------ */
void sim__garden_step_stones(garden_world *w)
{
    int n = 0;
    for (int i = 0; i < w->nstone; i++) {
        garden_stone s = w->stone[i];
        s.vy += GARDEN_STONE_G;
        s.x += s.vx;
        s.y += s.vy;
        int col = sim_snap(s.x) - GARDEN_POND_X0, gone = 0;
        if (col >= 0 && col < GARDEN_POND_N) {
            if (s.y >= GARDEN_POND_REST - sim_water_height(&w->pond, col)) {
                sim_water_splash(&w->pond, col, GARDEN_STONE_SPLASH);
                gone = 1;
            }
        } else if (s.y >= GARDEN_GROUND) {
            gone = 1;                                  /* it lands in the grass */
        }
        if (s.x < -16 || s.x > GARDEN_W + 16 || s.y > GARDEN_H) gone = 1;
        if (!gone) w->stone[n++] = s;
    }
    w->nstone = (uint8_t)n;
}

void sim__garden_step_creatures(garden_world *w, const sim_ctx *ctx, uint64_t tick)
{
    step_serpents(w);
    step_vines(w, tick);
    step_bipeds(w, ctx, tick);
    step_walkers(w, ctx, tick);
    step_lizards(w, tick);
}

/* ---- the sky ----------------------------------------------------------------------------------------- */
/* The clouds drift before the wind (a breeze to the right in a calm), the nearer faster, each
 * wrapped round the sky; the sails turn once in 16 s in a calm, four times faster at wind 60. */
void sim__garden_step_sky(garden_world *w)
{
    for (int k = 0; k < GARDEN_CLOUDS; k++) {
        const garden_cloud_spec *c = &sim__garden_clouds[k];
        int32_t x = w->cloud_x[k] + c->drift * (8 + w->wind) / 4;
        int32_t lo = -c->w * 256, span = (GARDEN_W + c->w) * 256;
        if (x >= GARDEN_W * 256) x -= span;
        if (x < lo) x += span;
        w->cloud_x[k] = x;
    }
    int wind = w->wind < 0 ? -w->wind : w->wind;
    w->mill += (uint32_t)(TURN / 960.0 * (1.0 + wind / 20.0));
}

/* A flock of five in a V crosses the sky every 30 s, in 540 ticks at 0.7 px a tick, each pass its
 * own height and way from a hash of (seed, pass); wings up 7 ticks, down 5, each bird out of step
 * with the next. Rendering only: nothing of it is state. */
int sim__garden_bird(uint64_t seed, uint64_t tick, int k, int *x, int *y, int *frame)
{
    const uint64_t every = 1800, across = 540;
    uint64_t pass = tick / every, t = tick % every;
    if (t >= across || k < 0 || k >= GARDEN_BIRDS) return 0;
    uint64_t h = sim_mix64(seed ^ sim_mix64(pass + 0x62697264ULL));        /* "bird" */
    int dir = (h & 1) ? 1 : -1, y0 = 30 + (int)((h >> 8) % 34);
    int back = (k + 1) / 2 * 7, side = (k & 1) ? -1 : 1;
    double along = -24.0 + 0.7 * (double)t - back;
    *x = dir > 0 ? sim_snap(along) : GARDEN_W - 1 - sim_snap(along);
    int ph = (int)((t + (uint64_t)k * 5) % 12);
    *frame = ph < 7 ? 0 : 1;
    *y = y0 + side * ((k + 1) / 2) * 4 + (*frame ? 1 : 0);
    return 1;
}
