/* state.c — the merge world's state as bytes: save, load (validating every field, refusing what
 * a step could not have produced) and the field-by-field desync report. The layout is the state
 * hash's input: any change to it changes the golden chain. */
#include "merge_int.h"

#define RNG_BYTES 16
#define LIFE_BYTES (5 * 8 + 2 + RNG_BYTES)
#define CARRIER_BYTES (8 + 2 + 8 * 8 + 1 + 8)
#define FRUIT_BYTES (1 + 1 + 2 + 2 + LIFE_BYTES)
#define HEAD_BYTES (4 + 3 * RNG_BYTES + CARRIER_BYTES + 2 * (1 + LIFE_BYTES) + 1 + 1 + 2 + 1 + 4 + \
                    2 + 2 + 8 + 8 + 4 + 4 + 2 + 3 + 1)

size_t sim__merge_save_max(const void *impl)
{
    const merge_world *w = impl;
    return HEAD_BYTES + (size_t)MERGE_MAX_FRUIT * FRUIT_BYTES + sim_verlet_save_max(&w->v) +
           sim_anim_save_max(&w->anim);
}

static void w_life(sim_writer *wr, const merge_fruit_life *l)
{
    sim__w_f64(wr, l->look_timer);
    sim__w_f64(wr, l->blink_timer);
    sim__w_f64(wr, l->blink_left);
    sim__w_f64(wr, l->blink_every);
    sim__w_f64(wr, l->blink_prob);
    sim__w_u8(wr, l->look_flip);
    sim__w_u8(wr, l->blinking);
    sim__w_rng(wr, &l->rng);
}

static void w_carrier(sim_writer *wr, const merge_carrier *c)
{
    sim__w_f64(wr, c->x);
    sim__w_u8(wr, (uint8_t)c->move_dir);
    sim__w_u8(wr, (uint8_t)c->last_move_dir);
    sim__w_f64(wr, c->speed_wiggle_acc);
    sim__w_f64(wr, c->dangle_timer);
    sim__w_f64(wr, c->fruit_dangle_acc);
    sim__w_f64(wr, c->hat_timer);
    sim__w_f64(wr, c->hat_acc);
    sim__w_f64(wr, c->head_angle);
    sim__w_f64(wr, c->fruit_angle);
    sim__w_f64(wr, c->hat_angle);
    sim__w_u8(wr, c->juggle);
    sim__w_f64(wr, c->anim_timer);
}

void sim__merge_save(const void *impl, sim_writer *wr)
{
    const merge_world *w = impl;
    sim__w_u32(wr, w->serial);
    sim__w_rng(wr, &w->rng);
    sim__w_rng(wr, &w->pilot_rng);
    sim__w_rng(wr, &w->life_rng);
    w_carrier(wr, &w->car);
    sim__w_u8(wr, w->held.tier);
    w_life(wr, &w->held.life);
    sim__w_u8(wr, w->next.tier);
    w_life(wr, &w->next.life);
    sim__w_u8(wr, w->upcoming);
    sim__w_u8(wr, (uint8_t)w->input_dir);
    sim__w_u16(wr, (uint16_t)w->target_x);
    sim__w_u8(wr, w->drop_pending);
    sim__w_u32(wr, w->idle);
    sim__w_u16(wr, (uint16_t)w->pilot_x);
    sim__w_u16(wr, w->pilot_wait);
    sim__w_u64(wr, w->score);
    sim__w_u64(wr, w->best);
    sim__w_u32(wr, w->merges);
    sim__w_u32(wr, w->games);
    sim__w_u16(wr, w->over);
    for (int i = 0; i < 3; i++) sim__w_u8(wr, w->anim_slot[i]);
    sim__w_u8(wr, (uint8_t)w->nfruit);
    for (int i = 0; i < w->nfruit; i++) {
        const merge_fruit *f = &w->fruit[i];
        sim__w_u8(wr, f->desc->tier);
        sim__w_u8(wr, f->frozen);
        sim__w_u16(wr, f->age);
        sim__w_u16(wr, f->above);
        w_life(wr, &f->life);
    }
    sim_verlet_save(&w->v, wr);
    sim_anim_save(&w->anim, wr);
}

static void r_life(sim_reader *rd, merge_fruit_life *l)
{
    l->look_timer = sim__r_f64(rd);
    l->blink_timer = sim__r_f64(rd);
    l->blink_left = sim__r_f64(rd);
    l->blink_every = sim__r_f64(rd);
    l->blink_prob = sim__r_f64(rd);
    l->look_flip = sim__r_u8(rd);
    l->blinking = sim__r_u8(rd);
    sim__r_rng(rd, &l->rng);
    if (!rd->err && sim__merge_life_check(l)) sim__r_fail(rd, SIM_ECORRUPT);
}

static void r_carrier(sim_reader *rd, merge_carrier *c, const merge_carrier_cfg *cfg)
{
    c->x = sim__r_f64(rd);
    c->move_dir = (int8_t)sim__r_u8(rd);
    c->last_move_dir = (int8_t)sim__r_u8(rd);
    c->speed_wiggle_acc = sim__r_f64(rd);
    c->dangle_timer = sim__r_f64(rd);
    c->fruit_dangle_acc = sim__r_f64(rd);
    c->hat_timer = sim__r_f64(rd);
    c->hat_acc = sim__r_f64(rd);
    c->head_angle = sim__r_f64(rd);
    c->fruit_angle = sim__r_f64(rd);
    c->hat_angle = sim__r_f64(rd);
    c->juggle = sim__r_u8(rd);
    c->anim_timer = sim__r_f64(rd);
    if (!rd->err && sim__merge_carrier_check(c, cfg)) sim__r_fail(rd, SIM_ECORRUPT);
}

static int x_ok(int16_t x) { return x == -1 || (x >= MERGE_X0 && x <= MERGE_X1); }

int sim__merge_load(void *impl, sim_reader *rd)
{
    merge_world *w = impl;
    w->serial = sim__r_u32(rd);
    sim__r_rng(rd, &w->rng);
    sim__r_rng(rd, &w->pilot_rng);
    sim__r_rng(rd, &w->life_rng);
    r_carrier(rd, &w->car, &w->ccfg);
    w->held.tier = sim__r_u8(rd);
    r_life(rd, &w->held.life);
    w->next.tier = sim__r_u8(rd);
    r_life(rd, &w->next.life);
    w->upcoming = sim__r_u8(rd);
    w->input_dir = (int8_t)sim__r_u8(rd);
    w->target_x = (int16_t)sim__r_u16(rd);
    w->drop_pending = sim__r_u8(rd);
    w->idle = sim__r_u32(rd);
    w->pilot_x = (int16_t)sim__r_u16(rd);
    w->pilot_wait = sim__r_u16(rd);
    w->score = sim__r_u64(rd);
    w->best = sim__r_u64(rd);
    w->merges = sim__r_u32(rd);
    w->games = sim__r_u32(rd);
    w->over = sim__r_u16(rd);
    for (int i = 0; i < 3; i++) w->anim_slot[i] = sim__r_u8(rd);
    w->nfruit = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (w->held.tier >= MERGE_CARRY_TIERS || w->next.tier >= MERGE_CARRY_TIERS ||
        w->upcoming >= MERGE_CARRY_TIERS || w->input_dir < -1 || w->input_dir > 1 ||
        !x_ok(w->target_x) || w->drop_pending > 1 || !x_ok(w->pilot_x) ||
        w->nfruit > MERGE_MAX_FRUIT)
        return SIM_ECORRUPT;
    for (int i = 0; i < 3; i++)
        if (w->anim_slot[i] >= MERGE_ANIM_SLOTS) return SIM_ECORRUPT;
    for (int i = 0; i < w->nfruit; i++) {
        merge_fruit *f = &w->fruit[i];
        int tier = sim__r_u8(rd);
        f->frozen = sim__r_u8(rd);
        f->age = sim__r_u16(rd);
        f->above = sim__r_u16(rd);
        r_life(rd, &f->life);
        if (rd->err) return rd->err;
        if (tier >= MERGE_TIERS || f->frozen > 1 || f->above > f->age) return SIM_ECORRUPT;
        f->desc = &sim__merge_desc[tier];
        f->queued = 0;
    }
    int e = sim_verlet_load(&w->v, rd);
    if (e) return e;
    /* The solver holds exactly the fruit: body i is fruit i, one chunk of its tier's size. */
    if (w->v.nbody != w->nfruit || w->v.nchunk != w->nfruit || w->v.nlink || w->v.npin)
        return SIM_ECORRUPT;
    for (int i = 0; i < w->nfruit; i++) {
        const sim_body *b = &w->v.body[i];
        const sim_chunk *c = &w->v.chunk[i];
        const merge_desc *d = w->fruit[i].desc;
        if (b->kind != d->tier || b->nc != 1 || c->r != d->r || c->m != d->m) return SIM_ECORRUPT;
    }
    return sim_anim_load(&w->anim, rd);
}

/* ---- desync reports ----------------------------------------------------------------------------- */
static long diff_u(sim_diff_out *o, const char *what, unsigned long long a, unsigned long long b)
{
    if (a == b) return 0;
    sim_diff_line(o, "%s: %llu → %llu", what, a, b);
    return 1;
}


long sim__merge_diff(const void *pa, const void *pb, sim_diff_out *o)
{
    const merge_world *a = pa, *b = pb;
    long n = 0;
    n += diff_u(o, "score", a->score, b->score);
    n += diff_u(o, "best", a->best, b->best);
    n += diff_u(o, "merges", a->merges, b->merges);
    n += diff_u(o, "games", a->games, b->games);
    n += diff_u(o, "game over", a->over, b->over);
    n += diff_u(o, "fruit made", a->serial, b->serial);
    n += diff_u(o, "held tier", a->held.tier, b->held.tier);
    n += diff_u(o, "next tier", a->next.tier, b->next.tier);
    n += diff_u(o, "upcoming tier", a->upcoming, b->upcoming);
    n += diff_u(o, "idle ticks", a->idle, b->idle);
    n += diff_u(o, "juggle phase", a->car.juggle, b->car.juggle);
    n += sim__diff_f64(o, "carrier x", a->car.x, b->car.x);
    n += sim__diff_f64(o, "head angle", a->car.head_angle, b->car.head_angle);
    n += sim__diff_f64(o, "fruit angle", a->car.fruit_angle, b->car.fruit_angle);
    n += sim__diff_f64(o, "hat angle", a->car.hat_angle, b->car.hat_angle);
    n += sim__diff_f64(o, "juggle timer", a->car.anim_timer, b->car.anim_timer);
    if (a->nfruit != b->nfruit) {
        sim_diff_line(o, "fruit: %d → %d", a->nfruit, b->nfruit);
        return n + 1;
    }
    for (int i = 0; i < a->nfruit; i++) {
        const merge_fruit *x = &a->fruit[i], *y = &b->fruit[i];
        if (x->desc != y->desc || x->frozen != y->frozen || x->age != y->age ||
            x->above != y->above) {
            sim_diff_line(o, "fruit %d: %s age %d above %d → %s age %d above %d", i,
                          sim__merge_tier_name[x->desc->tier], x->age, x->above,
                          sim__merge_tier_name[y->desc->tier], y->age, y->above);
            n++;
        }
        if (x->life.look_flip != y->life.look_flip || x->life.blinking != y->life.blinking) {
            sim_diff_line(o, "fruit %d eyes: look %d blink %d → look %d blink %d", i,
                          x->life.look_flip, x->life.blinking, y->life.look_flip,
                          y->life.blinking);
            n++;
        }
    }
    return n + sim_verlet_diff(&a->v, &b->v, o);
}
