/* state.c — the terrarium's state as bytes: save, load (validating every field, and refusing
 * anything that the step could not have produced) and the field-by-field desync report. The
 * byte layout is the state hash's input: any change to it is a change to every golden chain. */
#include "terrarium_int.h"

/* ---- state ------------------------------------------------------------------------------------------------ */
#define LIMB_BYTES (1 + 1 + 2 + 10 * 8)
#define CREATURE_BYTES (4 + 2 + 4 * 2 + 8 * 4 + 2 + 9 * 8 + 16 + TERRA_NLIMB * LIMB_BYTES)

size_t terra__save_max(const void *impl)
{
    const terra_world *t = impl;
    return 2 + 4 + 8 + 8 + 4 + 1 + TERRA_MAX_GRABS * 8 + sim_verlet_save_max(&t->v) + 1 +
           (size_t)TERRA_MAX_CREATURES * CREATURE_BYTES;
}

void terra__save(const void *impl, sim_writer *wr)
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

int terra__load(void *impl, sim_reader *rd)
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

long terra__diff(const void *ia, const void *ib, sim_diff_out *o)
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
