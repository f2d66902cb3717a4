/* state.c — the garden's state as bytes: save, load (validating every field, refusing what a
 * step could not have produced, through each engine piece's own loader) and the field-by-field
 * desync report. The layout is the state hash's input: any change to it changes the golden chain
 * (docs/garden.md lists it). */
#include "garden_int.h"

#define RNG_BYTES 16
#define HEAD_BYTES (8 + 4 + 2 * RNG_BYTES + 4 * 2 + 2 * 8 + 3 * 2 + 3 * 2 + 6 + 4 * GARDEN_CLOUDS + 4)
#define SERPENT_BYTES (sim_spine_save_max() + sim_juice_save_max() + 1 + 8)
#define VINE_BYTES (2 + sim_fabrik_save_max() + sim_juice_save_max())
#define BIPED_BYTES (1 + sim_biped_save_max() + sim_juice_save_max() + 1 + 1 + 2 + 2 + 9 + 1 + 2)
#define WALKER_BYTES (8 + 1 + 1 + 2 + 2 + 9 + sim_juice_save_max() + 8 + 1)
#define STONE_BYTES (4 * 8)
#define LIZARD_BYTES (sim_spine_save_max() + sim_legs_save_max() + sim_juice_save_max() + 1 + 1 + 2 + 2 + 1 + 1)
/* bounds a load checks: what the steps keep */
#define WAIT_MAX 480
#define STONE_V_MAX 32.0

size_t sim__garden_save_max(const void *impl)
{
    const garden_world *w = impl;
    return HEAD_BYTES + GARDEN_MAX_SERPENTS * SERPENT_BYTES + GARDEN_MAX_VINES * VINE_BYTES +
           GARDEN_MAX_BIPEDS * BIPED_BYTES + GARDEN_MAX_WALKERS * WALKER_BYTES +
           GARDEN_MAX_STONES * STONE_BYTES + GARDEN_MAX_LIZARDS * LIZARD_BYTES +
           sim_grass_save_max(&w->back) +
           sim_grass_save_max(&w->front) + sim_water_save_max(&w->pond) +
           sim_particles_save_max(&w->fire) + sim_cloth_save_max(&w->flag);
}

static void w_i16(sim_writer *wr, int16_t v) { sim__w_u16(wr, (uint16_t)v); }

void sim__garden_save(const void *impl, sim_writer *wr)
{
    const garden_world *w = impl;
    sim__w_u64(wr, w->now);
    sim__w_u32(wr, w->serial);
    sim__w_rng(wr, &w->pilot);
    sim__w_rng(wr, &w->fire_rng);
    w_i16(wr, w->wind);
    w_i16(wr, w->wind_goal);
    sim__w_u16(wr, w->wind_timer);
    sim__w_u16(wr, w->wind_hold);
    sim__w_f64(wr, w->fly_x);
    sim__w_f64(wr, w->fly_y);
    w_i16(wr, w->way_x);
    w_i16(wr, w->way_y);
    sim__w_u16(wr, w->way_timer);
    w_i16(wr, w->aim_x);
    w_i16(wr, w->aim_y);
    sim__w_u16(wr, w->aim_hold);
    sim__w_u8(wr, w->nserpent);
    sim__w_u8(wr, w->nvine);
    sim__w_u8(wr, w->nbiped);
    sim__w_u8(wr, w->nwalker);
    sim__w_u8(wr, w->nstone);
    sim__w_u8(wr, w->nlizard);
    for (int k = 0; k < GARDEN_CLOUDS; k++) sim__w_u32(wr, (uint32_t)w->cloud_x[k]);
    sim__w_u32(wr, w->mill);
    for (int i = 0; i < w->nserpent; i++) {
        const garden_serpent *s = &w->serpent[i];
        sim_spine_save(&s->spine, wr);
        sim_juice_save(&s->juice, wr);
        sim__w_u8(wr, (uint8_t)s->orbit_dir);
        sim__w_f64(wr, s->heading);
    }
    for (int i = 0; i < w->nvine; i++) {
        const garden_vine *v = &w->vine[i];
        w_i16(wr, v->root_x);
        sim_fabrik_save(&v->reach, wr);
        sim_juice_save(&v->juice, wr);
    }
    for (int i = 0; i < w->nbiped; i++) {
        const garden_biped *g = &w->biped[i];
        sim__w_u8(wr, g->style);
        sim_biped_save(&g->b, wr);
        sim_juice_save(&g->juice, wr);
        sim__w_u8(wr, g->task);
        sim__w_u8(wr, g->then_throw);
        w_i16(wr, g->goal_x);
        sim__w_u16(wr, g->wait);
        sim_clip_save(&g->clip, wr);
        sim__w_u8(wr, g->startled);
        w_i16(wr, g->aim_x);
    }
    for (int i = 0; i < w->nwalker; i++) {
        const garden_walker *g = &w->walker[i];
        sim__w_f64(wr, g->x);
        sim__w_u8(wr, (uint8_t)g->facing);
        sim__w_u8(wr, g->task);
        w_i16(wr, g->goal_x);
        sim__w_u16(wr, g->wait);
        sim_clip_save(&g->clip, wr);
        sim_juice_save(&g->juice, wr);
        sim__w_f64(wr, g->hop_dx);
        sim__w_u8(wr, g->startle);
    }
    for (int i = 0; i < w->nstone; i++) {
        const garden_stone *s = &w->stone[i];
        sim__w_f64(wr, s->x);
        sim__w_f64(wr, s->y);
        sim__w_f64(wr, s->vx);
        sim__w_f64(wr, s->vy);
    }
    for (int i = 0; i < w->nlizard; i++) {
        const garden_lizard *z = &w->lizard[i];
        sim_spine_save(&z->body, wr);
        sim_legs_save(&z->legs, wr);
        sim_juice_save(&z->juice, wr);
        sim__w_u8(wr, (uint8_t)z->facing);
        sim__w_u8(wr, z->task);
        w_i16(wr, z->goal_x);
        sim__w_u16(wr, z->wait);
        sim__w_u8(wr, z->scurry);
        sim__w_u8(wr, z->tongue);
    }
    sim_grass_save(&w->back, wr);
    sim_grass_save(&w->front, wr);
    sim_water_save(&w->pond, wr);
    sim_particles_save(&w->fire, wr);
    sim_cloth_save(&w->flag, wr);
}

/* ---- load ------------------------------------------------------------------------------------ */
static int16_t r_i16(sim_reader *rd) { return (int16_t)sim__r_u16(rd); }
static int within(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }
/* where walking creatures, their goals and the vines' roots can be: the meadow or the bank */
static int land(double x)
{
    return within(x, GARDEN_LEFT_X0, GARDEN_LEFT_X1) || within(x, GARDEN_RIGHT_X0, GARDEN_RIGHT_X1);
}

int sim__garden_load(void *impl, sim_reader *rd)
{
    garden_world *w = impl;
    w->now = sim__r_u64(rd);
    w->serial = sim__r_u32(rd);
    sim__r_rng(rd, &w->pilot);
    sim__r_rng(rd, &w->fire_rng);
    w->wind = r_i16(rd);
    w->wind_goal = r_i16(rd);
    w->wind_timer = sim__r_u16(rd);
    w->wind_hold = sim__r_u16(rd);
    w->fly_x = sim__r_f64(rd);
    w->fly_y = sim__r_f64(rd);
    w->way_x = r_i16(rd);
    w->way_y = r_i16(rd);
    w->way_timer = sim__r_u16(rd);
    w->aim_x = r_i16(rd);
    w->aim_y = r_i16(rd);
    w->aim_hold = sim__r_u16(rd);
    w->nserpent = sim__r_u8(rd);
    w->nvine = sim__r_u8(rd);
    w->nbiped = sim__r_u8(rd);
    w->nwalker = sim__r_u8(rd);
    w->nstone = sim__r_u8(rd);
    w->nlizard = sim__r_u8(rd);
    for (int k = 0; k < GARDEN_CLOUDS; k++) w->cloud_x[k] = (int32_t)sim__r_u32(rd);
    w->mill = sim__r_u32(rd);
    if (rd->err) return rd->err;
    for (int k = 0; k < GARDEN_CLOUDS; k++)
        if (w->cloud_x[k] < -sim__garden_clouds[k].w * 256 || w->cloud_x[k] >= GARDEN_W * 256)
            return SIM_ECORRUPT;
    int aim_off = w->aim_x == -1 && w->aim_y == -1;
    int aim_in = within(w->aim_x, 0, GARDEN_W - 1) && within(w->aim_y, 0, GARDEN_H - 1);
    if (w->wind < -SIM_WIND_MAX || w->wind > SIM_WIND_MAX || w->wind_goal < -SIM_WIND_MAX ||
        w->wind_goal > SIM_WIND_MAX || w->wind_timer > WAIT_MAX || w->wind_hold > GARDEN_WIND_HOLD ||
        !within(w->fly_x, -64, GARDEN_W + 64) || !within(w->fly_y, -64, GARDEN_H + 64) ||
        !within(w->way_x, 0, GARDEN_W - 1) || !within(w->way_y, 0, GARDEN_H - 1) ||
        w->way_timer > WAIT_MAX || !(aim_off || aim_in) || (w->aim_hold && !aim_in) ||
        w->aim_hold > GARDEN_TARGET_HOLD || w->nserpent > GARDEN_MAX_SERPENTS ||
        w->nvine > GARDEN_MAX_VINES || w->nbiped > GARDEN_MAX_BIPEDS ||
        w->nwalker > GARDEN_MAX_WALKERS || w->nstone > GARDEN_MAX_STONES ||
        w->nlizard > GARDEN_MAX_LIZARDS)
        return SIM_ECORRUPT;
    int e;
    for (int i = 0; i < w->nserpent; i++) {
        garden_serpent *s = &w->serpent[i];
        if ((e = sim_spine_load(&s->spine, rd)) || (e = sim_juice_load(&s->juice, &w->jcfg, rd)))
            return e;
        s->orbit_dir = (int8_t)sim__r_u8(rd);
        s->heading = sim__r_f64(rd);
        if (rd->err) return rd->err;
        if (s->spine.n != GARDEN_SERPENT_POINTS || (s->orbit_dir != 1 && s->orbit_dir != -1) ||
            !within(s->heading, -SIM_PI, SIM_PI) ||
            s->juice.hop != SIM_HOP_REST || s->juice.pending & SIM_JUICE_HOP || s->juice.status)
            return SIM_ECORRUPT;
    }
    for (int i = 0; i < w->nvine; i++) {
        garden_vine *v = &w->vine[i];
        v->root_x = r_i16(rd);
        if ((e = sim_fabrik_load(&v->reach, rd)) || (e = sim_juice_load(&v->juice, &w->jcfg, rd)))
            return e;
        if (!land(v->root_x) || v->reach.n != GARDEN_VINE_JOINTS ||
            v->reach.x[0] != (double)v->root_x || v->reach.y[0] != (double)GARDEN_GROUND ||
            v->juice.hop != SIM_HOP_REST || v->juice.pending & SIM_JUICE_HOP || v->juice.status)
            return SIM_ECORRUPT;
    }
    for (int i = 0; i < w->nbiped; i++) {
        garden_biped *g = &w->biped[i];
        g->style = sim__r_u8(rd);
        if (rd->err) return rd->err;
        if (g->style >= GB_STYLES) return SIM_ECORRUPT;
        if ((e = sim_biped_load(&g->b, &w->bcfg[g->style], rd)) ||
            (e = sim_juice_load(&g->juice, &w->bjcfg, rd)))
            return e;
        g->task = sim__r_u8(rd);
        g->then_throw = sim__r_u8(rd);
        g->goal_x = r_i16(rd);
        g->wait = sim__r_u16(rd);
        if ((e = sim_clip_load(&g->clip, rd, 1, w->now))) return e;
        g->startled = sim__r_u8(rd);
        g->aim_x = r_i16(rd);
        if (rd->err) return rd->err;
        if (!land(g->b.x) || g->b.ground != (double)GARDEN_GROUND || g->task > GB_THROW ||
            g->then_throw > 1 || !land(g->goal_x) || g->wait > WAIT_MAX ||
            g->startled > GARDEN_STARTLE_TICKS || g->aim_x < -1 || g->aim_x >= GARDEN_POND_N ||
            (g->task == GB_THROW) != (g->aim_x >= 0) || g->juice.status)
            return SIM_ECORRUPT;
    }
    for (int i = 0; i < w->nwalker; i++) {
        garden_walker *g = &w->walker[i];
        g->x = sim__r_f64(rd);
        g->facing = (int8_t)sim__r_u8(rd);
        g->task = sim__r_u8(rd);
        g->goal_x = r_i16(rd);
        g->wait = sim__r_u16(rd);
        if (rd->err) return rd->err;
        if ((e = sim_clip_load(&g->clip, rd, GW_NANIMS, w->now)) ||
            (e = sim_juice_load(&g->juice, &w->jcfg, rd)))
            return e;
        g->hop_dx = sim__r_f64(rd);
        g->startle = sim__r_u8(rd);
        if (rd->err) return rd->err;
        if (g->startle > w->jcfg.flash_ticks + 1 || (g->startle && g->juice.hop != SIM_HOP_REST))
            return SIM_ECORRUPT;
        if (!land(g->x) || (g->facing != 1 && g->facing != -1) || g->task > GW_WALK ||
            !land(g->goal_x) || g->wait > WAIT_MAX || !within(g->hop_dx, -GARDEN_HOP_DX, GARDEN_HOP_DX))
            return SIM_ECORRUPT;
    }
    for (int i = 0; i < w->nstone; i++) {
        garden_stone *s = &w->stone[i];
        s->x = sim__r_f64(rd);
        s->y = sim__r_f64(rd);
        s->vx = sim__r_f64(rd);
        s->vy = sim__r_f64(rd);
        if (rd->err) return rd->err;
        if (!within(s->x, -16, GARDEN_W + 16) || !within(s->y, -GARDEN_H, GARDEN_H) ||
            !within(s->vx, -STONE_V_MAX, STONE_V_MAX) || !within(s->vy, -STONE_V_MAX, STONE_V_MAX))
            return SIM_ECORRUPT;
    }
    for (int i = 0; i < w->nlizard; i++) {
        garden_lizard *z = &w->lizard[i];
        if ((e = sim_spine_load(&z->body, rd)) || (e = sim_legs_load(&z->legs, &w->lcfg, rd)) ||
            (e = sim_juice_load(&z->juice, &w->jcfg, rd)))
            return e;
        z->facing = (int8_t)sim__r_u8(rd);
        z->task = sim__r_u8(rd);
        z->goal_x = r_i16(rd);
        z->wait = sim__r_u16(rd);
        z->scurry = sim__r_u8(rd);
        z->tongue = sim__r_u8(rd);
        if (rd->err) return rd->err;
        if (z->body.n != GARDEN_LIZARD_POINTS || z->legs.n != 4 ||
            z->body.y[0] != (double)(GARDEN_LIZARD_FEET - GARDEN_LIZARD_HIP) ||
            !within(z->body.x[0], 0, GARDEN_W - 1) || (z->facing != 1 && z->facing != -1) ||
            z->task > GL_WALK || !within(z->goal_x, GARDEN_NEAR_X0, GARDEN_NEAR_X1) ||
            z->wait > WAIT_MAX || z->scurry > GARDEN_LIZARD_SCURRY_TICKS || z->tongue > 10 ||
            z->juice.hop != SIM_HOP_REST || z->juice.pending & SIM_JUICE_HOP || z->juice.status)
            return SIM_ECORRUPT;
        for (int k = 0; k < 4; k++)
            if (z->legs.leg[k].pair != ((k == 0 || k == 3) ? 0 : 1)) return SIM_ECORRUPT;
    }
    if ((e = sim_grass_load(&w->back, rd)) || (e = sim_grass_load(&w->front, rd)) ||
        (e = sim_water_load(&w->pond, rd)) || (e = sim_particles_load(&w->fire, rd)) ||
        (e = sim_cloth_load(&w->flag, rd)))
        return e;
    return rd->err;
}

/* ---- desync reports ----------------------------------------------------------------------------- */

static long diff_pt(sim_diff_out *o, const char *what, int i, int k, double ax, double ay,
                    double bx, double by)
{
    if (memcmp(&ax, &bx, sizeof ax) == 0 && memcmp(&ay, &by, sizeof ay) == 0) return 0;
    char s[4][64];
    sim__fmt_double(s[0], sizeof s[0], ax);
    sim__fmt_double(s[1], sizeof s[1], ay);
    sim__fmt_double(s[2], sizeof s[2], bx);
    sim__fmt_double(s[3], sizeof s[3], by);
    sim_diff_line(o, "%s %d point %d: (%s, %s) → (%s, %s)", what, i, k, s[0], s[1], s[2], s[3]);
    return 1;
}

static long diff_juice(sim_diff_out *o, const char *what, int i, const sim_juice *a,
                       const sim_juice *b)
{
    if (a->flash_left == b->flash_left && a->hop == b->hop && a->windup_left == b->windup_left &&
        a->status == b->status && a->smear == b->smear && a->pending == b->pending &&
        memcmp(&a->y, &b->y, sizeof a->y) == 0 && memcmp(&a->pop, &b->pop, sizeof a->pop) == 0)
        return 0;
    char ya[64], yb[64];
    sim__fmt_double(ya, sizeof ya, a->y);
    sim__fmt_double(yb, sizeof yb, b->y);
    sim_diff_line(o, "%s %d juice: flash %d hop %d y %s status %d → flash %d hop %d y %s status %d",
                  what, i, a->flash_left, a->hop, ya, a->status, b->flash_left, b->hop, yb, b->status);
    return 1;
}

static long diff_grass(sim_diff_out *o, const char *what, const sim_grass *a, const sim_grass *b)
{
    long n = 0;
    if (a->ntuft != b->ntuft) {
        sim_diff_line(o, "%s: %d tufts → %d", what, a->ntuft, b->ntuft);
        return 1;
    }
    n += sim__diff_int(o, "grass sway phase", a->sway, b->sway);
    n += sim__diff_int(o, "grass gust position", a->gust, b->gust);
    for (int i = 0; i < a->ntuft; i++) {
        const sim_grass_tuft *p = &a->tuft[i], *q = &b->tuft[i];
        if (p->x != q->x || p->wind != q->wind || p->bend != q->bend || p->bend_t != q->bend_t ||
            p->phase != q->phase) {
            sim_diff_line(o, "%s tuft %d at x %d: lean %d bend %d → lean %d bend %d", what, i, p->x,
                          p->wind, p->bend, q->wind, q->bend);
            n++;
        }
    }
    return n;
}

long sim__garden_diff(const void *pa, const void *pb, sim_diff_out *o)
{
    const garden_world *a = pa, *b = pb;
    long n = 0;
    n += sim__diff_int(o, "ticks", (long long)a->now, (long long)b->now);
    n += sim__diff_int(o, "creatures made", a->serial, b->serial);
    if (memcmp(&a->pilot, &b->pilot, sizeof a->pilot)) {
        sim_diff_line(o, "pilot stream: %llu → %llu", (unsigned long long)a->pilot.state,
                      (unsigned long long)b->pilot.state);
        n++;
    }
    if (memcmp(&a->fire_rng, &b->fire_rng, sizeof a->fire_rng)) {
        sim_diff_line(o, "fire stream: %llu → %llu", (unsigned long long)a->fire_rng.state,
                      (unsigned long long)b->fire_rng.state);
        n++;
    }
    n += sim__diff_int(o, "wind", a->wind, b->wind);
    n += sim__diff_int(o, "wind goal", a->wind_goal, b->wind_goal);
    n += sim__diff_int(o, "wind timer", a->wind_timer, b->wind_timer);
    n += sim__diff_int(o, "player's wind held", a->wind_hold, b->wind_hold);
    n += sim__diff_f64(o, "butterfly x", a->fly_x, b->fly_x);
    n += sim__diff_f64(o, "butterfly y", a->fly_y, b->fly_y);
    n += sim__diff_int(o, "waypoint x", a->way_x, b->way_x);
    n += sim__diff_int(o, "waypoint y", a->way_y, b->way_y);
    n += sim__diff_int(o, "waypoint timer", a->way_timer, b->way_timer);
    n += sim__diff_int(o, "player's target x", a->aim_x, b->aim_x);
    n += sim__diff_int(o, "player's target y", a->aim_y, b->aim_y);
    n += sim__diff_int(o, "player's target held", a->aim_hold, b->aim_hold);
    for (int k = 0; k < GARDEN_CLOUDS; k++)
        if (a->cloud_x[k] != b->cloud_x[k]) {
            sim_diff_line(o, "cloud %d x: %d → %d (1/256 px)", k, (int)a->cloud_x[k], (int)b->cloud_x[k]);
            n++;
        }
    n += sim__diff_int(o, "windmill sails", a->mill, b->mill);
    if (a->nserpent != b->nserpent || a->nvine != b->nvine || a->nbiped != b->nbiped ||
        a->nwalker != b->nwalker || a->nlizard != b->nlizard) {
        sim_diff_line(o, "creatures: %d serpents %d vines %d bipeds %d walkers %d lizards → %d %d "
                      "%d %d %d", a->nserpent, a->nvine, a->nbiped, a->nwalker, a->nlizard,
                      b->nserpent, b->nvine, b->nbiped, b->nwalker, b->nlizard);
        return n + 1;
    }
    for (int i = 0; i < a->nserpent; i++) {
        const garden_serpent *x = &a->serpent[i], *y = &b->serpent[i];
        for (int k = 0; k < x->spine.n; k++)
            n += diff_pt(o, "serpent", i, k, x->spine.x[k], x->spine.y[k], y->spine.x[k], y->spine.y[k]);
        n += diff_juice(o, "serpent", i, &x->juice, &y->juice);
        n += sim__diff_f64(o, "serpent heading", x->heading, y->heading);
    }
    for (int i = 0; i < a->nvine; i++) {
        const garden_vine *x = &a->vine[i], *y = &b->vine[i];
        n += sim__diff_int(o, "vine root", x->root_x, y->root_x);
        for (int k = 0; k < x->reach.n && k < y->reach.n; k++)
            n += diff_pt(o, "vine", i, k, x->reach.x[k], x->reach.y[k], y->reach.x[k], y->reach.y[k]);
        n += diff_juice(o, "vine", i, &x->juice, &y->juice);
    }
    for (int i = 0; i < a->nbiped; i++) {
        const garden_biped *x = &a->biped[i], *y = &b->biped[i];
        if (memcmp(&x->b.x, &y->b.x, sizeof x->b.x) || memcmp(&x->b.dist, &y->b.dist, sizeof x->b.dist) ||
            x->b.state != y->b.state || x->task != y->task || x->goal_x != y->goal_x ||
            x->wait != y->wait || x->clip.start != y->clip.start || x->startled != y->startled) {
            char sa[64], sb[64];
            sim__fmt_double(sa, sizeof sa, x->b.x);
            sim__fmt_double(sb, sizeof sb, y->b.x);
            sim_diff_line(o, "biped %d: x %s task %d goal %d wait %d hair state %d → x %s task %d "
                          "goal %d wait %d hair state %d", i, sa, x->task, x->goal_x, x->wait,
                          x->b.state, sb, y->task, y->goal_x, y->wait, y->b.state);
            n++;
        }
        for (int k = 0; k < x->b.hair.n; k++)
            n += diff_pt(o, "biped hair", i, k, x->b.hair.x[k], x->b.hair.y[k], y->b.hair.x[k],
                         y->b.hair.y[k]);
        n += diff_juice(o, "biped", i, &x->juice, &y->juice);
    }
    for (int i = 0; i < a->nwalker; i++) {
        const garden_walker *x = &a->walker[i], *y = &b->walker[i];
        if (memcmp(&x->x, &y->x, sizeof x->x) || x->facing != y->facing || x->task != y->task ||
            x->goal_x != y->goal_x || x->wait != y->wait || x->clip.anim != y->clip.anim ||
            x->clip.start != y->clip.start || x->startle != y->startle) {
            char sa[64], sb[64];
            sim__fmt_double(sa, sizeof sa, x->x);
            sim__fmt_double(sb, sizeof sb, y->x);
            sim_diff_line(o, "walker %d: x %s task %d goal %d anim %d → x %s task %d goal %d anim %d",
                          i, sa, x->task, x->goal_x, x->clip.anim, sb, y->task, y->goal_x, y->clip.anim);
            n++;
        }
        n += diff_juice(o, "walker", i, &x->juice, &y->juice);
    }
    for (int i = 0; i < a->nlizard; i++) {
        const garden_lizard *x = &a->lizard[i], *y = &b->lizard[i];
        for (int k = 0; k < x->body.n; k++)
            n += diff_pt(o, "lizard", i, k, x->body.x[k], x->body.y[k], y->body.x[k], y->body.y[k]);
        for (int k = 0; k < x->legs.n; k++)
            n += diff_pt(o, "lizard foot", i, k, x->legs.leg[k].x, x->legs.leg[k].y, y->legs.leg[k].x,
                         y->legs.leg[k].y);
        if (x->facing != y->facing || x->task != y->task || x->goal_x != y->goal_x ||
            x->wait != y->wait || x->scurry != y->scurry || x->tongue != y->tongue) {
            sim_diff_line(o, "lizard %d: facing %d task %d goal %d wait %d → facing %d task %d goal %d "
                          "wait %d", i, x->facing, x->task, x->goal_x, x->wait, y->facing, y->task,
                          y->goal_x, y->wait);
            n++;
        }
        n += diff_juice(o, "lizard", i, &x->juice, &y->juice);
    }
    if (a->nstone != b->nstone) {
        sim_diff_line(o, "stones in the air: %d → %d", a->nstone, b->nstone);
        n++;
    } else {
        for (int i = 0; i < a->nstone; i++)
            n += diff_pt(o, "stone", i, 0, a->stone[i].x, a->stone[i].y, b->stone[i].x, b->stone[i].y);
    }
    n += diff_grass(o, "back grass", &a->back, &b->back);
    n += diff_grass(o, "front grass", &a->front, &b->front);
    for (int i = 0; i < a->pond.n && i < b->pond.n; i++)
        if (a->pond.h[i] != b->pond.h[i] || (i < a->pond.n - 1 && a->pond.f[i] != b->pond.f[i])) {
            sim_diff_line(o, "pond column %d: height %d flow %d → height %d flow %d (1/65536 px)", i,
                          a->pond.h[i], i < a->pond.n - 1 ? a->pond.f[i] : 0, b->pond.h[i],
                          i < b->pond.n - 1 ? b->pond.f[i] : 0);
            n++;
        }
    n += sim__diff_int(o, "particles alive", a->fire.nalive, b->fire.nalive);
    for (int i = 0; i < a->fire.cap && i < b->fire.cap; i++)
        if (memcmp(&a->fire.p[i], &b->fire.p[i], sizeof a->fire.p[i]) &&
            (a->fire.p[i].life || b->fire.p[i].life)) {
            const sim_particle *p = &a->fire.p[i], *q = &b->fire.p[i];
            sim_diff_line(o, "particle %d: kind %d at (%d, %d) age %d/%d → kind %d at (%d, %d) age %d/%d",
                          i, p->kind, p->x, p->y, p->age, p->life, q->kind, q->x, q->y, q->age, q->life);
            n++;
        }
    for (int k = 0; k < a->flag.w * a->flag.h && k < b->flag.w * b->flag.h; k++)
        n += diff_pt(o, "flag", 0, k, a->flag.x[k], a->flag.y[k], b->flag.x[k], b->flag.y[k]);
    return n;
}
