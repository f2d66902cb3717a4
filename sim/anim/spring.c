/* spring.c — springs and phase accumulators (spring.h). */
#include "spring.h"

#define TWO_PI (2.0 * SIM_PI)

static double clamp_big(double v)
{
    if (!sim_isfinite(v)) return 0.0;     /* only a caller's bad k, c or dt gets here */
    return v > SIM_SPRING_MAX ? SIM_SPRING_MAX : v < -SIM_SPRING_MAX ? -SIM_SPRING_MAX : v;
}

void sim_spring_step(sim_spring *s, double target, double k, double c, double dt)
{
    /* the seed's order: velocity first, then the position with the new velocity (semi-implicit
     * Euler is stable for the stiff, lightly damped springs juice wants, explicit Euler is not) */
    s->v = clamp_big(s->v + (k * (target - s->x) - c * s->v) * dt);
    s->x = clamp_big(s->x + s->v * dt);
}

int sim_spring_px(const sim_spring *s) { return sim_snap(s->x); }

void sim_spring_save(const sim_spring *s, sim_writer *wr)
{
    sim__w_f64(wr, s->x);
    sim__w_f64(wr, s->v);
}

int sim_spring_load(sim_spring *s, sim_reader *rd)
{
    double x = sim__r_f64(rd), v = sim__r_f64(rd);
    if (rd->err) return rd->err;
    if (x > SIM_SPRING_MAX || x < -SIM_SPRING_MAX || v > SIM_SPRING_MAX || v < -SIM_SPRING_MAX)
        return SIM_ECORRUPT;
    s->x = x;
    s->v = v;
    return 0;
}

double sim_phase_advance(double acc, double dphase)
{
    acc += dphase;
    if (acc >= TWO_PI) {
        /* kept in [0, 2π) so a long run keeps its bits; sin is 2π-periodic */
        acc -= TWO_PI * sim_floor(acc / TWO_PI);
        if (!(acc >= 0.0 && acc < TWO_PI)) acc = 0.0;
    }
    return acc;
}

double sim_fade_wave_step(double *timer, double *acc, double T, double f, double dt)
{
    if (!(*timer < T)) return 0.0;
    double a = 1.0 - (*timer / T < 1.0 ? *timer / T : 1.0);
    double wave = sim_sin(*acc) * a;
    /* the last step counts only the time left of the fade, so the accumulator stays within
     * f × T whatever dt is (a checkable bound for a loaded state) */
    double step = dt < T - *timer ? dt : T - *timer;
    *timer = *timer + step < T ? *timer + step : T;
    *acc += step * f * a;
    return wave;
}
