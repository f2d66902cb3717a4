/* spring.h — springs and phase accumulators, the shared arithmetic of "juice" (seed 000 §3) and of
 * the fruit-merge carrier's lean and wobble (seed 003).
 *
 *   A spring     one value pulled toward a target: v += (k(target − x) − c·v)·dt, then x += v·dt
 *                (seed 000 §3, "Spring juice": semi-implicit Euler, stepped in the fixed loop and
 *                rounded at draw time). Under-damped (c² < 4k) it overshoots: a landing pop.
 *   A phase      an accumulator advanced by dt × frequency and kept in [0, 2π), never
 *                sin(time × frequency): a frequency may change between steps and the wave goes
 *                on from where it was, and a long run keeps its bits (seed 003's
 *                SpeedWiggleAccumulator).
 *   A fading wave  sin(acc) × (1 − t/T) on its own timer and accumulator, the accumulator
 *                advancing by dt × f × (1 − t/T): it fades and slows down as it fades (seed 003's
 *                stop wobble).
 *
 * State is plain data (doubles), saved field by field by the *_save helpers; nothing here
 * allocates, reads a clock or keeps a global. */
#ifndef VIVARIUM_SIM_SPRING_H
#define VIVARIUM_SIM_SPRING_H
#include "sim_internal.h"

/* The largest |x| and |v| a loaded spring may hold: far beyond any pixel offset, small enough that
 * k × x stays finite for any sane k. */
#define SIM_SPRING_MAX 1.0e6

typedef struct sim_spring {
    double x;                  /* the value */
    double v;                  /* its velocity, units per second */
} sim_spring;

/* One step of dt seconds toward target with stiffness k (1/s²) and damping c (1/s):
 * v += (k(target − x) − c·v)·dt; x += v·dt. The result is clamped to ±SIM_SPRING_MAX (a spring a
 * caller drives past that is a bug, but it must not carry an infinity into a saved state). */
void sim_spring_step(sim_spring *s, double target, double k, double c, double dt);
/* Whole pixels to draw: sim_snap(x). */
int sim_spring_px(const sim_spring *s);
/* 16 bytes: x, v (f64 LE). */
void sim_spring_save(const sim_spring *s, sim_writer *wr);
/* 0, or SIM_ETRUNC / SIM_ECORRUPT (non-finite, or beyond SIM_SPRING_MAX); s is untouched then. */
int sim_spring_load(sim_spring *s, sim_reader *rd);

/* acc + dphase, brought back into [0, 2π) when it reaches 2π (acc itself in [0, 2π), dphase ≥ 0).
 * The merge carrier's speed wiggle is this arithmetic, bit for bit. */
double sim_phase_advance(double acc, double dphase);

/* One step of a fading wave: while *timer < T, returns sin(*acc) × (1 − *timer/T) (the envelope
 * clamped at 0), then advances *timer by dt (by no more than what is left of T) and *acc by that
 * step × f × the envelope; once *timer has reached T it returns 0 and changes nothing. T > 0,
 * f ≥ 0, dt ≥ 0. *acc stays within [0, f × T] when it starts at 0, so a loader can bound it. */
double sim_fade_wave_step(double *timer, double *acc, double T, double f, double dt);

#endif
