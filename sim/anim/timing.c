/* timing.c — hold lists, clips and layer ticks (timing.h). */
#include "timing.h"

int sim_holds_check(const sim_holds *a)
{
    if (!a || !a->hold || a->n < 1 || a->n > SIM_HOLDS_MAX || a->loop > 1) return SIM_EINVAL;
    for (int i = 0; i < a->n; i++)
        if (a->hold[i].ticks < 1) return SIM_EINVAL;
    return 0;
}

uint32_t sim_holds_length(const sim_holds *a)
{
    uint32_t t = 0;
    for (int i = 0; i < a->n; i++) t += a->hold[i].ticks;
    return t;
}

int sim_holds_index(const sim_holds *a, uint64_t elapsed)
{
    uint32_t len = sim_holds_length(a);
    if (a->loop) elapsed %= len;
    else if (elapsed >= len) return a->n - 1;
    /* elapsed < len now: walk the holds (at most SIM_HOLDS_MAX) */
    for (int i = 0; i < a->n; i++) {
        if (elapsed < a->hold[i].ticks) return i;
        elapsed -= a->hold[i].ticks;
    }
    return a->n - 1;                                  /* not reached */
}

int sim_holds_frame(const sim_holds *a, uint64_t elapsed)
{
    return a->hold[sim_holds_index(a, elapsed)].frame;
}

int sim_holds_done(const sim_holds *a, uint64_t elapsed)
{
    return !a->loop && elapsed >= sim_holds_length(a);
}

int sim_clip_frame(const sim_clip *c, const sim_holds *table, uint64_t tick)
{
    return sim_holds_frame(&table[c->anim], tick > c->start ? tick - c->start : 0);
}

void sim_clip_save(const sim_clip *c, sim_writer *wr)
{
    sim__w_u8(wr, c->anim);
    sim__w_u64(wr, c->start);
}

int sim_clip_load(sim_clip *c, sim_reader *rd, int nanims, uint64_t now)
{
    uint8_t anim = sim__r_u8(rd);
    uint64_t start = sim__r_u64(rd);
    if (rd->err) return rd->err;
    if (anim >= nanims || start > now) return SIM_ECORRUPT;
    c->anim = anim;
    c->start = start;
    return 0;
}

uint64_t sim_layer_tick(uint64_t tick, unsigned every)
{
    if (every < 1) every = 1;
    return tick - tick % every;
}
