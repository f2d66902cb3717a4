/* particles.h — fire and smoke as particles (seed 000 §5: "integer positions, colors chosen by
 * age from a 3–5-entry palette ramp (white, yellow, orange, red, dark), sizes 1–3 px squares
 * (fillRect), lifetimes in ticks. Flicker uses [a render-time random] (not saved). Anything that
 * affects gameplay uses [the world's rng]. Avoid alpha fades").
 *
 * A pool of fixed capacity holds the particles. Each has an integer position and velocity in
 * 1/256 px (SIM_PT_ONE; drawn at the nearest whole pixel), an age and a lifetime in ticks, a size
 * and a kind. A kind is configuration the world gives at init (the ramp's palette indexes, the
 * ranges its particles are drawn from, how they move); sim_pt_fire and sim_pt_smoke make the two
 * the garden uses, with the numbers of docs/garden.md.
 *
 * Colour: stage = age · nramp / life, so a particle walks its ramp in order, hot to dark, each
 * entry for an equal share of its life, and dies when its age reaches its life. Everything random
 * that moves a particle (its life, size, start and the turbulence of each tick) comes from the
 * sim_rng the world passes in: one of its named streams. The flicker is not state: when a frame
 * is drawn, a hash of (seed, tick, particle slot) shows about one particle in four a stage cooler
 * than it is. Nothing is saved of it and nothing in the simulation reads it.
 *
 * Slots are taken lowest first and visited in slot order, so a run depends on nothing but the
 * seed and the calls. Integers throughout; no allocation after init. */
#ifndef VIVARIUM_SIM_PARTICLES_H
#define VIVARIUM_SIM_PARTICLES_H
#include "sim_internal.h"

#define SIM_PT_ONE 256              /* a pixel, in position units; a pixel a tick, in speed units */
#define SIM_PT_RAMP_MAX 5           /* the seed's "3–5-entry ramp" */
#define SIM_PT_SIZE_MAX 3           /* "sizes 1–3 px squares" */
#define SIM_PT_KINDS_MAX 8
#define SIM_PT_CAP_MAX 4096
#define SIM_PT_VMAX (4 * SIM_PT_ONE)          /* |vx|, |vy| ≤ 4 px a tick, kept by the step */
#define SIM_PT_COORD_MAX (32768 * SIM_PT_ONE) /* |x|, |y| ≤ 32768 px: a load's bound */
#define SIM_PT_LIFE_MAX 6000                  /* 100 s at 60 Hz */
/* The wind's full strength (wind = ±SIM_WIND_MAX) moves a kind with wind = 100 at this speed. */
#define SIM_PT_WIND_SPEED SIM_PT_ONE

typedef struct sim_pt_kind {
    uint8_t ramp[SIM_PT_RAMP_MAX];  /* palette indexes, hot first: white … dark */
    int nramp;                      /* 1..SIM_PT_RAMP_MAX */
    int life_min, life_max;         /* ticks, 1 ≤ min ≤ max ≤ SIM_PT_LIFE_MAX */
    int size_min, size_max;         /* px at birth, 1..3 */
    int size_end;                   /* px at the end of life, 1..3: size goes linearly to it */
    int spawn_dx;                   /* birth x within ±spawn_dx px of the emitter (0..64) */
    int rise_min, rise_max;         /* birth vy, 1/256 px a tick (negative: up), |·| ≤ VMAX */
    int spread;                     /* birth |vx| ≤ spread, 1/256 px a tick (0..VMAX) */
    int lift;                       /* added to vy every tick (negative: buoyant), |·| ≤ 64 */
    int jitter;                     /* every tick vx += uniform [−jitter, jitter] (0..64) */
    int wind;                       /* 0..100: % of the wind's speed that vx relaxes toward */
} sim_pt_kind;

typedef struct sim_particle {
    int32_t x, y;                   /* 1/256 px */
    int16_t vx, vy;                 /* 1/256 px a tick */
    uint16_t age, life;             /* life 0: the slot is free; else 0 ≤ age < life */
    uint8_t size0;                  /* px at birth */
    uint8_t kind;
} sim_particle;

typedef struct sim_particles {
    sim_particle *p;                /* cap slots */
    int cap;
    int nalive;
    /* Configuration (not saved): the kinds, copied at init. */
    sim_pt_kind kinds[SIM_PT_KINDS_MAX];
    int nkinds;
} sim_particles;

/* The garden's flame (ramp: white, yellow, orange, red, dark) and smoke (ramp: three greys, dark
 * to pale), with the numbers of docs/garden.md. */
sim_pt_kind sim_pt_fire(const uint8_t ramp[5]);
sim_pt_kind sim_pt_smoke(const uint8_t ramp[3]);

/* Allocate cap slots (1..SIM_PT_CAP_MAX), all free, and copy the kinds (1..SIM_PT_KINDS_MAX, each
 * within the ranges above). 0, SIM_EINVAL (a kind out of range names nothing) or SIM_ENOMEM. */
int sim_particles_init(sim_particles *ps, int cap, const sim_pt_kind *kinds, int nkinds);
void sim_particles_free(sim_particles *ps);
void sim_particles_clear(sim_particles *ps);                   /* every slot free */
/* Emit one particle of `kind` at pixel (x, y), its life, size, offset and velocity drawn from rng
 * (in that order). Returns the slot, SIM_EFULL when every slot is taken (nothing drawn from rng,
 * nothing changed), or SIM_EINVAL for an unknown kind or a position past SIM_PT_COORD_MAX. */
int sim_particles_emit(sim_particles *ps, int kind, int x, int y, sim_rng *rng);
/* One tick, slots in order: age += 1 and a particle whose age reaches its life is freed; the
 * others take vx += (wind target − vx) / 8 + jitter (from rng), vy += lift, both clamped to
 * ±SIM_PT_VMAX, and move. wind is −SIM_WIND_MAX..SIM_WIND_MAX (clamped). Allocates nothing. */
void sim_particles_step(sim_particles *ps, sim_rng *rng, int wind);
/* Slot i's ramp stage (0 hot .. nramp−1 dark), its size in px now, and its pixel position; −1
 * from the stage for a free slot. */
int sim_particle_stage(const sim_particles *ps, int i);
int sim_particle_size(const sim_particles *ps, int i);
void sim_particle_pixel(const sim_particles *ps, int i, int *x, int *y);
/* Draw every particle as a square of its size, centred on its pixel (a 2-px square extends right
 * and down), coloured by its stage after the flicker of (seed, tick, slot). Dark stages first,
 * so the hot core is painted over its smoke. Reads nothing but the pool and its arguments. */
void sim_particles_draw(const sim_particles *ps, sim_frame *f, uint64_t seed, uint64_t tick);

/* State: u16 tag 0x9A27, u16 cap, u16 alive count A, then A × { u16 slot, i32 x, i32 y, i16 vx,
 * i16 vy, u16 age, u16 life, u8 size0, u8 kind } in ascending slot order (20 bytes each). */
size_t sim_particles_save_max(const sim_particles *ps);
void sim_particles_save(const sim_particles *ps, sim_writer *wr);
/* Read a state saved by sim_particles_save into ps (same cap and kinds). Checks every field against
 * the bounds above. 0, or SIM_ETRUNC / SIM_ECORRUPT with ps untouched. */
int sim_particles_load(sim_particles *ps, sim_reader *rd);

#endif
