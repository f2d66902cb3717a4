/* particles.c — the fire and smoke pool (particles.h). */
#include "particles.h"
#include <stdlib.h>

#define SAVE_TAG 0x9A27u
#define SAVE_BYTES 20                /* one particle's record */
#define FLICKER_SALT 0xF11C4u        /* the flicker's hash salt: its own, used nowhere else */

/* The flame: a ramp walked in 14–30 ticks (a quarter to half a second: at 60 Hz that is a new
 * tongue of flame several times a second, as a fire reads), born 1–3 px and shrinking to 1 as it
 * cools, rising 0.45–0.85 px a tick and faster as it goes (buoyancy 0.012 px/tick²). At three
 * flames a tick the white stays within 4 px of the fire, the yellow reaches 10, the orange 16,
 * the red 23 and the last soot 30 (highest seen over 2400 ticks): a campfire at 320×180. It leans
 * with 40% of the wind. */
sim_pt_kind sim_pt_fire(const uint8_t ramp[5])
{
    sim_pt_kind k;
    memset(&k, 0, sizeof k);
    memcpy(k.ramp, ramp, 5);
    k.nramp = 5;
    k.life_min = 14;
    k.life_max = 30;
    k.size_min = 1;
    k.size_max = 3;
    k.size_end = 1;
    k.spawn_dx = 3;
    k.rise_min = -218;               /* −0.85 px a tick */
    k.rise_max = -115;               /* −0.45 px a tick */
    k.spread = 40;                   /* ±0.16 px a tick */
    k.lift = -3;                     /* −0.012 px/tick² */
    k.jitter = 12;                   /* ±0.05 px a tick each tick: the tongues waver */
    k.wind = 40;
    return k;
}

/* The smoke: slow (0.18–0.3 px a tick) and long-lived (60–110 ticks, one to two seconds), born
 * 2 px and growing to 3, wandering (jitter ±0.08 px a tick) and carried by the whole wind, so a
 * gale lays it flat: a puff ends 36 px above where it was born, and 81 px downwind in a gale (the
 * mean over 2400 ticks). Three greys, dark to pale. */
sim_pt_kind sim_pt_smoke(const uint8_t ramp[3])
{
    sim_pt_kind k;
    memset(&k, 0, sizeof k);
    memcpy(k.ramp, ramp, 3);
    k.nramp = 3;
    k.life_min = 60;
    k.life_max = 110;
    k.size_min = 2;
    k.size_max = 2;
    k.size_end = 3;
    k.spawn_dx = 2;
    k.rise_min = -77;                /* −0.30 px a tick */
    k.rise_max = -46;                /* −0.18 px a tick */
    k.spread = 20;
    k.lift = -1;
    k.jitter = 20;
    k.wind = 100;
    return k;
}

static int kind_ok(const sim_pt_kind *k)
{
    return k->nramp >= 1 && k->nramp <= SIM_PT_RAMP_MAX && k->life_min >= 1 &&
           k->life_min <= k->life_max && k->life_max <= SIM_PT_LIFE_MAX && k->size_min >= 1 &&
           k->size_min <= k->size_max && k->size_max <= SIM_PT_SIZE_MAX && k->size_end >= 1 &&
           k->size_end <= SIM_PT_SIZE_MAX && k->spawn_dx >= 0 && k->spawn_dx <= 64 &&
           k->rise_min <= k->rise_max && k->rise_min >= -SIM_PT_VMAX &&
           k->rise_max <= SIM_PT_VMAX && k->spread >= 0 && k->spread <= SIM_PT_VMAX &&
           k->lift >= -64 && k->lift <= 64 && k->jitter >= 0 && k->jitter <= 64 &&
           k->wind >= 0 && k->wind <= 100;
}

int sim_particles_init(sim_particles *ps, int cap, const sim_pt_kind *kinds, int nkinds)
{
    memset(ps, 0, sizeof *ps);
    if (cap < 1 || cap > SIM_PT_CAP_MAX || !kinds || nkinds < 1 || nkinds > SIM_PT_KINDS_MAX)
        return SIM_EINVAL;
    for (int k = 0; k < nkinds; k++)
        if (!kind_ok(&kinds[k])) return SIM_EINVAL;
    ps->p = calloc((size_t)cap, sizeof *ps->p);
    if (!ps->p) return SIM_ENOMEM;
    ps->cap = cap;
    memcpy(ps->kinds, kinds, (size_t)nkinds * sizeof *kinds);
    ps->nkinds = nkinds;
    return 0;
}

void sim_particles_free(sim_particles *ps)
{
    free(ps->p);
    memset(ps, 0, sizeof *ps);
}

void sim_particles_clear(sim_particles *ps)
{
    memset(ps->p, 0, (size_t)ps->cap * sizeof *ps->p);
    ps->nalive = 0;
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int sim_particles_emit(sim_particles *ps, int kind, int x, int y, sim_rng *rng)
{
    if (kind < 0 || kind >= ps->nkinds) return SIM_EINVAL;
    const sim_pt_kind *k = &ps->kinds[kind];
    /* the spawn offset may add spawn_dx: keep the sum inside the load's bound */
    int lim = SIM_PT_COORD_MAX / SIM_PT_ONE - 64;
    if (x < -lim || x > lim || y < -lim || y > lim) return SIM_EINVAL;
    int i = 0;
    while (i < ps->cap && ps->p[i].life) i++;
    if (i == ps->cap) return SIM_EFULL;
    sim_particle *p = &ps->p[i];
    p->life = (uint16_t)sim_rng_range(rng, k->life_min, k->life_max);
    p->size0 = (uint8_t)sim_rng_range(rng, k->size_min, k->size_max);
    p->x = (x + sim_rng_range(rng, -k->spawn_dx, k->spawn_dx)) * SIM_PT_ONE;
    p->y = y * SIM_PT_ONE;
    p->vx = (int16_t)sim_rng_range(rng, -k->spread, k->spread);
    p->vy = (int16_t)sim_rng_range(rng, k->rise_min, k->rise_max);
    p->age = 0;
    p->kind = (uint8_t)kind;
    ps->nalive++;
    return i;
}

void sim_particles_step(sim_particles *ps, sim_rng *rng, int wind)
{
    wind = clampi(wind, -SIM_WIND_MAX, SIM_WIND_MAX);
    for (int i = 0; i < ps->cap; i++) {
        sim_particle *p = &ps->p[i];
        if (!p->life) continue;
        if (++p->age >= p->life) {
            memset(p, 0, sizeof *p);
            ps->nalive--;
            continue;
        }
        const sim_pt_kind *k = &ps->kinds[p->kind];
        /* the speed the wind would carry it at; C's division truncates toward zero, so a wind
         * and its mirror give mirrored speeds */
        int target = wind * k->wind * SIM_PT_WIND_SPEED / (SIM_WIND_MAX * 100);
        int vx = p->vx + (target - p->vx) / 8;
        if (k->jitter) vx += sim_rng_range(rng, -k->jitter, k->jitter);
        p->vx = (int16_t)clampi(vx, -SIM_PT_VMAX, SIM_PT_VMAX);
        p->vy = (int16_t)clampi(p->vy + k->lift, -SIM_PT_VMAX, SIM_PT_VMAX);
        /* the bound a load checks: only a particle flying for minutes could reach it */
        p->x = clampi(p->x + p->vx, -SIM_PT_COORD_MAX, SIM_PT_COORD_MAX);
        p->y = clampi(p->y + p->vy, -SIM_PT_COORD_MAX, SIM_PT_COORD_MAX);
    }
}

int sim_particle_stage(const sim_particles *ps, int i)
{
    if (i < 0 || i >= ps->cap || !ps->p[i].life) return -1;
    const sim_particle *p = &ps->p[i];
    return p->age * ps->kinds[p->kind].nramp / p->life;
}

int sim_particle_size(const sim_particles *ps, int i)
{
    if (i < 0 || i >= ps->cap || !ps->p[i].life) return 0;
    const sim_particle *p = &ps->p[i];
    int s0 = p->size0, s1 = ps->kinds[p->kind].size_end;
    /* linear from s0 at birth to s1 at the last tick, rounded to the nearest px (halves up) */
    int span = p->life > 1 ? p->life - 1 : 1;
    int s = s0 + ((s1 - s0) * p->age * 2 + (s1 >= s0 ? span : -span)) / (2 * span);
    return clampi(s, 1, SIM_PT_SIZE_MAX);
}

/* floor(v / 256 + 1/2) for any int32 v, without relying on >> of a negative number. */
static int to_pixel(int32_t v)
{
    int64_t t = (int64_t)v + SIM_PT_ONE / 2;
    return (int)(t >= 0 ? t / SIM_PT_ONE : -((-t + SIM_PT_ONE - 1) / SIM_PT_ONE));
}

void sim_particle_pixel(const sim_particles *ps, int i, int *x, int *y)
{
    *x = to_pixel(ps->p[i].x);
    *y = to_pixel(ps->p[i].y);
}

void sim_particles_draw(const sim_particles *ps, sim_frame *f, uint64_t seed, uint64_t tick)
{
    if (!f || !f->px) return;
    uint64_t base = sim_hash_tick(seed, tick);
    for (int stage = SIM_PT_RAMP_MAX - 1; stage >= 0; stage--) {
        for (int i = 0; i < ps->cap; i++) {
            const sim_particle *p = &ps->p[i];
            if (!p->life) continue;
            const sim_pt_kind *k = &ps->kinds[p->kind];
            int s = sim_particle_stage(ps, i);
            if ((sim_hash_at(base, i, 0, FLICKER_SALT) & 3) == 0 && s < k->nramp - 1) s++;
            if (s != stage) continue;
            int size = sim_particle_size(ps, i), x, y;
            sim_particle_pixel(ps, i, &x, &y);
            int off = (size - 1) / 2;
            sim_raster_rect(f, x - off, y - off, size, size, k->ramp[s]);
        }
    }
}

size_t sim_particles_save_max(const sim_particles *ps)
{
    return 6 + (size_t)ps->cap * SAVE_BYTES;
}

void sim_particles_save(const sim_particles *ps, sim_writer *wr)
{
    sim__w_u16(wr, SAVE_TAG);
    sim__w_u16(wr, (uint16_t)ps->cap);
    sim__w_u16(wr, (uint16_t)ps->nalive);
    for (int i = 0; i < ps->cap; i++) {
        const sim_particle *p = &ps->p[i];
        if (!p->life) continue;
        sim__w_u16(wr, (uint16_t)i);
        sim__w_i32(wr, p->x);
        sim__w_i32(wr, p->y);
        sim__w_u16(wr, (uint16_t)p->vx);
        sim__w_u16(wr, (uint16_t)p->vy);
        sim__w_u16(wr, p->age);
        sim__w_u16(wr, p->life);
        sim__w_u8(wr, p->size0);
        sim__w_u8(wr, p->kind);
    }
}

/* Pass 0 checks every record, pass 1 clears the pool and keeps them: a refused blob leaves ps as
 * it was. */
int sim_particles_load(sim_particles *ps, sim_reader *rd)
{
    size_t start = rd->pos;
    for (int keep = 0; keep < 2; keep++) {
        rd->pos = start;
        uint16_t tag = sim__r_u16(rd);
        int cap = sim__r_u16(rd), n = sim__r_u16(rd);
        if (rd->err) return rd->err;
        if (tag != SAVE_TAG || cap != ps->cap || n > cap) return SIM_ECORRUPT;
        if (keep) sim_particles_clear(ps);
        int last = -1;
        for (int j = 0; j < n; j++) {
            sim_particle p;
            int slot = sim__r_u16(rd);
            p.x = sim__r_i32(rd);
            p.y = sim__r_i32(rd);
            p.vx = (int16_t)sim__r_u16(rd);
            p.vy = (int16_t)sim__r_u16(rd);
            p.age = sim__r_u16(rd);
            p.life = sim__r_u16(rd);
            p.size0 = sim__r_u8(rd);
            p.kind = sim__r_u8(rd);
            if (rd->err) return rd->err;
            if (slot <= last || slot >= cap || p.kind >= ps->nkinds || p.life < 1 ||
                p.life > SIM_PT_LIFE_MAX || p.age >= p.life || p.size0 < 1 ||
                p.size0 > SIM_PT_SIZE_MAX || p.vx < -SIM_PT_VMAX || p.vx > SIM_PT_VMAX ||
                p.vy < -SIM_PT_VMAX || p.vy > SIM_PT_VMAX || p.x < -SIM_PT_COORD_MAX ||
                p.x > SIM_PT_COORD_MAX || p.y < -SIM_PT_COORD_MAX || p.y > SIM_PT_COORD_MAX)
                return SIM_ECORRUPT;
            last = slot;
            if (keep) ps->p[slot] = p;
        }
        if (keep) ps->nalive = n;
    }
    return 0;
}
