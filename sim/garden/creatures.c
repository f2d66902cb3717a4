/* creatures.c — the garden's creatures and its pilot: the sky serpents circling the butterfly, the
 * vines reaching for it (on 2s), the villagers strolling, warming by the fire and throwing stones
 * into the pond, the gnomes walking, idling and hopping (over the fire too), the stones, the
 * poke, and the pilot that keeps the scene alive when nobody plays (the butterfly's waypoints,
 * the wind's wandering goal). Every random choice comes from the world's stream "garden.pilot". */
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
    static const double radius[GARDEN_SERPENT_POINTS] = { 3.4, 2.3, 2.7, 3.0, 3.0, 2.9, 2.8, 2.6,
                                                          2.4, 2.2, 2.0, 1.7, 1.4, 1.1, 0.8, 0.6 };
    double len[GARDEN_SERPENT_POINTS - 1];
    for (int i = 0; i < GARDEN_SERPENT_POINTS - 1; i++) len[i] = GARDEN_SERPENT_SEG;
    garden_serpent *s = &w->serpent[w->nserpent];
    memset(s, 0, sizeof *s);
    int rc = sim_spine_init(&s->spine, GARDEN_SERPENT_POINTS, gd_clamp(x, 0, GARDEN_W - 1),
                            gd_clamp(y, GARDEN_SKY_Y0, GARDEN_SERPENT_Y1), 0.0, len, radius,
                            GARDEN_SERPENT_BEND, GARDEN_SERPENT_SPEED - 0.2 * (w->nserpent % 3));
    if (rc) return rc;
    sim_juice_init(&s->juice);
    s->orbit = sim_rng_next(&w->pilot);
    s->orbit_dir = (int8_t)(sim_rng_below(&w->pilot, 2) ? 1 : -1);
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

void sim__garden_poke(garden_world *w, int x, int y)
{
    /* front first: the order render draws them in, reversed */
    for (int i = w->nserpent - 1; i >= 0; i--)
        if (sim__garden_hit_serpent(w, i, x, y)) {
            sim_juice_poke(&w->serpent[i].juice);
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
            return;
        }
    for (int i = w->nbiped - 1; i >= 0; i--)
        if (sim__garden_hit_biped(w, i, x, y)) {
            garden_biped *g = &w->biped[i];
            sim_juice_poke(&g->juice);
            if (g->juice.hop == SIM_HOP_REST) sim_juice_hop(&g->juice);
            g->startled = GARDEN_STARTLE_TICKS;
            return;
        }
    for (int i = w->nvine - 1; i >= 0; i--)
        if (sim__garden_hit_vine(w, i, x, y)) {
            sim_juice_poke(&w->vine[i].juice);
            return;
        }
    if (x >= GARDEN_POND_X0 && x <= GARDEN_POND_X1) {
        int col = x - GARDEN_POND_X0;
        if (y >= GARDEN_POND_REST - 4 - sim_water_height(&w->pond, col))
            sim_water_splash(&w->pond, col, GARDEN_STONE_SPLASH);   /* in the water: at once */
        else
            sim__garden_drop_stone(w, x, y, 0.0, 0.0);              /* above it: a stone falls */
        return;
    }
    /* the meadow: the grass there parts */
    sim_grass_push(&w->back, x, 8, 1);
    sim_grass_push(&w->front, x, 8, 1);
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
void sim__garden_serpent_target(const garden_world *w, int i, double *tx, double *ty)
{
    const garden_serpent *s = &w->serpent[i];
    /* each serpent on its own ring (14, 22, 30 px), so two never fly as one */
    double a = (double)s->orbit * (2.0 * SIM_PI / TURN), r = GARDEN_ORBIT_R + 8.0 * (i % 3);
    *tx = gd_clamp(w->fly_x + r * sim_cos(a), 4.0, GARDEN_W - 5.0);
    *ty = gd_clamp(w->fly_y + r * 0.7 * sim_sin(a), GARDEN_SKY_Y0, GARDEN_SERPENT_Y1);
}

static void step_serpents(garden_world *w)
{
    for (int i = 0; i < w->nserpent; i++) {
        garden_serpent *s = &w->serpent[i];
        double tx, ty;
        sim__garden_serpent_target(w, i, &tx, &ty);
        sim_spine_step(&s->spine, tx, ty);
        s->orbit += (uint32_t)((int32_t)s->orbit_dir * (int32_t)(4294967296.0 / GARDEN_ORBIT_TICKS));
        sim_juice_step(&s->juice, &w->jcfg);
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

static void step_bipeds(garden_world *w, uint64_t tick)
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
            if (el == SIM_HOLD_WINDUP) biped_throw(w, g);       /* the strike's first frame */
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
        if (dx != 0.0 && g->juice.hop == SIM_HOP_REST) {
            sim_grass_push(&w->back, sim_snap(g->b.x), 6, g->b.facing);
            sim_grass_push(&w->front, sim_snap(g->b.x), 6, g->b.facing);
        }
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

static void step_walkers(garden_world *w, uint64_t tick)
{
    for (int i = 0; i < w->nwalker; i++) {
        garden_walker *g = &w->walker[i];
        if (g->startle && --g->startle == 0 && g->juice.hop == SIM_HOP_REST) {
            sim_juice_hop(&g->juice);
            g->hop_dx = 0.0;
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
                }
            }
        } else if (g->task == GW_IDLE && grounded) {
            if (g->wait) {
                g->wait--;
            } else if (w->wander) {
                if (sim_rng_below(&w->pilot, 4) == 0) {        /* a hop for joy, on the spot */
                    sim_juice_hop(&g->juice);
                    g->hop_dx = 0.0;
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
        if (g->task == GW_WALK && g->juice.hop == SIM_HOP_REST) {
            sim_grass_push(&w->back, sim_snap(g->x), 5, g->facing);
            sim_grass_push(&w->front, sim_snap(g->x), 5, g->facing);
        }
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

void sim__garden_step_creatures(garden_world *w, uint64_t tick)
{
    step_serpents(w);
    step_vines(w, tick);
    step_bipeds(w, tick);
    step_walkers(w, tick);
}
