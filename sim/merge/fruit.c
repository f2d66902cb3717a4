/* fruit.c — the container, the fruit in it, the merge and the game-over line (seed 003, "The
 * merge has the guard that every game of this type needs" and "The new fruit inherits amplified
 * momentum").
 *
 * Fruit i is body i of the solver, with one chunk, chunk i: the arrays stay parallel because
 * both only ever append and remove in step (sim_verlet_body_remove shifts the solver's, and
 * sim__merge_remove shifts ours the same way). */
#include "merge_int.h"

#define M(r) ((double)(r) * (double)(r) / 25.0)   /* mass ∝ area; the cherry weighs 1 */
const merge_desc sim__merge_desc[MERGE_TIERS] = {
    { 0, 1, 5.0, M(5) },    { 1, 3, 6.0, M(6) },    { 2, 6, 8.0, M(8) },    { 3, 10, 10.0, M(10) },
    { 4, 15, 12.0, M(12) }, { 5, 21, 14.0, M(14) }, { 6, 28, 17.0, M(17) }, { 7, 36, 20.0, M(20) },
    { 8, 45, 24.0, M(24) }, { 9, 55, 28.0, M(28) }, { 10, 66, 33.0, M(33) },
};
#undef M
/* Two of the top tier have nothing to become: both go, for this many points each (ours). */
#define TOP_PAIR_POINTS 66

void sim__merge_container(merge_world *w)
{
    /* Floor and walls. Where they meet (concave corners) each runs past the other by 50 px, more
     * than the solver's step cap plus the largest radius (verlet.h's authoring rule). The walls
     * go far above the top, so a fruit a merge throws upward comes back down inside. */
    const double x0 = MERGE_X0, x1 = MERGE_X1, fl = MERGE_FLOOR;
    w->seg[0] = (sim_seg){ x0 - 50.0, fl, x1 + 50.0, fl, SIM_SEG_SOLID };     /* opens up */
    w->seg[1] = (sim_seg){ x0, -400.0, x0, fl + 50.0, SIM_SEG_SOLID };        /* opens right */
    w->seg[2] = (sim_seg){ x1, fl + 50.0, x1, -400.0, SIM_SEG_SOLID };        /* opens left */
    w->v.seg = w->seg;
    w->v.nseg = 3;
    w->v.dt = MERGE_DT;
    w->v.gravity = MERGE_GRAVITY;
    w->v.drag = 0.0;
    w->v.spin = 1;
    w->v.collide_chunks = 1;
    w->v.passes = MERGE_PASSES;
    w->v.spin_drag = MERGE_SPIN_DRAG;
}

void sim__merge_life_new(merge_world *w, merge_fruit_life *l)
{
    uint64_t s = (uint64_t)sim_rng_next(&w->life_rng) << 32 | sim_rng_next(&w->life_rng);
    sim__merge_life_init(l, s, w->serial);
}

uint8_t sim__merge_next_tier(merge_world *w)
{
    return (uint8_t)sim_rng_below(&w->rng, MERGE_CARRY_TIERS);
}

int sim__merge_spawn(merge_world *w, int tier, double x, double y, double vx, double vy, double wa,
                     const merge_fruit_life *life)
{
    if (w->nfruit >= MERGE_MAX_FRUIT || tier < 0 || tier >= MERGE_TIERS) return -1;
    const merge_desc *d = &sim__merge_desc[tier];
    int b = sim_verlet_body_begin(&w->v, (uint8_t)tier);
    if (b < 0) return -1;
    int c = sim_verlet_add_chunk(&w->v, x, y, d->r, d->m);
    if (c < 0) {
        sim_verlet_body_drop_last(&w->v);
        return -1;
    }
    sim_chunk *ch = &w->v.chunk[c];
    ch->px = x - vx;
    ch->py = y - vy;
    ch->w = wa;
    merge_fruit *f = &w->fruit[w->nfruit];
    memset(f, 0, sizeof *f);
    f->desc = d;
    w->serial++;
    if (life) f->life = *life;
    else sim__merge_life_new(w, &f->life);
    return w->nfruit++;
}

void sim__merge_remove(merge_world *w, int i)
{
    sim_verlet_body_remove(&w->v, i);
    memmove(&w->fruit[i], &w->fruit[i + 1], (size_t)(w->nfruit - i - 1) * sizeof w->fruit[0]);
    w->nfruit--;
}

/* The seed's callback, run for both fruit of a touching pair, as both receive one: a merges with b
 * only when a is not already queued for deletion nor frozen, b is of the same kind (the same
 * descriptor) and neither queued nor frozen. The first call queues both, so the second does
 * nothing: one contact makes exactly one merge. */
static int try_merge(merge_world *w, int a, int b, double *out)
{
    merge_fruit *fa = &w->fruit[a], *fb = &w->fruit[b];
    if (fa->queued || fa->frozen) return 0;
    if (fb->desc != fa->desc || fb->frozen || fb->queued) return 0;
    fa->queued = fb->queued = 1;
    const sim_chunk *ca = &w->v.chunk[a], *cb = &w->v.chunk[b];
    out[0] = (ca->x + cb->x) * 0.5;
    out[1] = (ca->y + cb->y) * 0.5;
    /* nextFruit.LinearVelocity = (LinearVelocity + other.LinearVelocity) × 1.25, and the same for
     * the angular velocity: more than went in (docs/merge.md: the sum alone would not conserve
     * momentum either, the masses differ), so the pile jumps and a chain builds. */
    out[2] = ((ca->x - ca->px) + (cb->x - cb->px)) * MERGE_GIFT;
    out[3] = ((ca->y - ca->py) + (cb->y - cb->py)) * MERGE_GIFT;
    out[4] = (ca->w + cb->w) * MERGE_GIFT;
    return 1;
}

void sim__merge_resolve(merge_world *w, const sim_ctx *ctx)
{
    const uint16_t (*pair)[2] = (const uint16_t (*)[2])w->v.pair;
    int np = w->v.npair;
    double born[MERGE_MAX_FRUIT / 2][5];
    int tier[MERGE_MAX_FRUIT / 2];
    int nborn = 0, any = 0;
    for (int k = 0; k < np; k++) {
        int i = pair[k][0], j = pair[k][1];
        if (i >= w->nfruit || j >= w->nfruit) continue;
        for (int o = 0; o < 2; o++) {
            int a = o ? j : i, b = o ? i : j;
            double nb[5];
            if (!try_merge(w, a, b, nb)) continue;
            int t = w->fruit[a].desc->tier;
            int top = t + 1 >= MERGE_TIERS;
            int points = top ? 2 * TOP_PAIR_POINTS : sim__merge_desc[t + 1].points;
            w->merges++;
            w->score += (uint64_t)points;
            any = 1;
            sim_event *e = sim_event_add(ctx, "merge");
            sim_event_num(e, "tier", t);
            sim_event_num(e, "into", top ? -1 : t + 1);
            sim_event_num(e, "points", points);
            sim_event_num(e, "score", (int64_t)w->score);
            sim_event_num(e, "x", sim_snap(nb[0]));
            sim_event_num(e, "y", sim_snap(nb[1]));
            if (top)
                continue;
            memcpy(born[nborn], nb, sizeof nb);
            tier[nborn++] = t + 1;
        }
    }
    if (!any) return;
    for (int i = w->nfruit - 1; i >= 0; i--)
        if (w->fruit[i].queued) sim__merge_remove(w, i);
    for (int k = 0; k < nborn; k++)
        sim__merge_spawn(w, tier[k], born[k][0], born[k][1], born[k][2], born[k][3], born[k][4],
                         NULL);
}

/* Game over: a fruit that has been in the container for MERGE_SETTLE_TICKS and keeps its top above
 * the line for MERGE_OVER_TICKS. Then every fruit freezes (no more merges), they pop one by one
 * from the top, and when the container is empty the score goes to 0 and play goes on. */
void sim__merge_over_step(merge_world *w, const sim_ctx *ctx)
{
    if (w->over == 0) {
        int lost = 0;
        for (int i = 0; i < w->nfruit; i++) {
            merge_fruit *f = &w->fruit[i];
            const sim_chunk *c = &w->v.chunk[i];
            if (f->age < UINT16_MAX) f->age++;
            if (f->age >= MERGE_SETTLE_TICKS && c->y - c->r < MERGE_LINE) {
                if (f->above < UINT16_MAX) f->above++;
            } else {
                f->above = 0;
            }
            if (f->above >= MERGE_OVER_TICKS) lost = 1;
        }
        if (!lost) return;
        w->over = 1;
        w->games++;
        if (w->score > w->best) w->best = w->score;
        sim_event *e = sim_event_add(ctx, "game_over");
        sim_event_num(e, "score", (int64_t)w->score);
        sim_event_num(e, "best", (int64_t)w->best);
        sim_event_num(e, "merges", w->merges);
        sim_event_num(e, "games", w->games);
        for (int i = 0; i < w->nfruit; i++) w->fruit[i].frozen = 1;
        return;
    }
    if (w->over < UINT16_MAX) w->over++;
    if (w->over % MERGE_POP_TICKS == 0 && w->nfruit > 0) {
        int top = 0;
        for (int i = 1; i < w->nfruit; i++) {
            const sim_chunk *c = &w->v.chunk[i], *t = &w->v.chunk[top];
            if (c->y - c->r < t->y - t->r) top = i;
        }
        sim__merge_remove(w, top);
    }
    if (w->nfruit == 0) {
        w->over = 0;
        w->score = 0;
        w->merges = 0;
    }
}

/* ---- scenes ------------------------------------------------------------------------------------ */
/* Lay fruit in rows from the floor up, left to right, with tier(col, row); a row of fruit of
 * radius ≤ rmax at spacing 2·rmax + 1. */
static void lay_rows(merge_world *w, int n, int rmax, int ntiers, int shuffle)
{
    int pitch = 2 * rmax + 1;
    int cols = (MERGE_X1 - MERGE_X0 - 2) / pitch;
    for (int k = 0; k < n; k++) {
        int row = k / cols, col = k % cols;
        int t = shuffle ? (int)sim_rng_below(&w->rng, (uint32_t)ntiers) : (col + 2 * row) % ntiers;
        double x = MERGE_X0 + 1 + rmax + col * pitch + (row & 1 ? rmax / 2 : 0);
        double y = MERGE_FLOOR - rmax - 1 - row * (pitch - 1);
        sim__merge_spawn(w, t, x, y, 0.0, 0.0, 0.0, NULL);
    }
}

void sim__merge_build_scene(merge_world *w)
{
    switch (w->scene) {
    case MERGE_SCENE_DEMO:
        lay_rows(w, 14, 10, 4, 1);      /* a few fruit already in: the demo looks lived in */
        break;
    case MERGE_SCENE_PILE:
        /* The benchmark's 60 fruit. They are frozen, so they never merge and the count stays 60:
         * every step still finds their contacts and runs the guard for every touching pair. */
        lay_rows(w, 60, 8, 3, 0);
        for (int i = 0; i < w->nfruit; i++) w->fruit[i].frozen = 1;
        break;
    default:
        break;
    }
}
