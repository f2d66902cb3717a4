/* check_spring.c — sim/anim/spring.c: the seed's spring step (seed 000 §3, "Spring juice"), its
 * overshoot and settling, the phase accumulator and the fading wave as the merge carrier had them
 * (the arithmetic is pinned against a copy of the code it replaced), and save/load. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/spring.h"
#include "check_blob.h"

/* "v += (k*(target-x) - c*v)*dt; x += v*dt": one step by hand. */
START_TEST(step_is_the_seeds_formula)
{
    sim_spring s = { 2.0, -3.0 };
    double k = 600.0, c = 14.0, dt = 1.0 / 60.0, target = 0.5;
    double v = -3.0 + (k * (target - 2.0) - c * -3.0) * dt;
    double x = 2.0 + v * dt;
    sim_spring_step(&s, target, k, c, dt);
    ck_assert(s.v == v);
    ck_assert(s.x == x);
}
END_TEST

/* Under-damped (c² < 4k): a kick overshoots past the target to the other side, then settles. */
START_TEST(underdamped_overshoots_then_settles)
{
    sim_spring s = { 0.0, 90.0 };
    double peak = 0.0, trough = 0.0;
    for (int t = 0; t < 120; t++) {
        sim_spring_step(&s, 0.0, 600.0, 14.0, 1.0 / 60.0);
        if (s.x > peak) peak = s.x;
        if (s.x < trough) trough = s.x;
    }
    ck_assert_double_gt(peak, 2.0);               /* the pop */
    ck_assert_double_lt(trough, -0.5);            /* the overshoot, to the other side */
    ck_assert_double_lt(trough, 0.0);
    ck_assert_double_lt(s.x < 0 ? -s.x : s.x, 0.01);   /* still after two seconds */
    /* critically damped (c = 2√k): no overshoot at all */
    s = (sim_spring){ 0.0, 60.0 };
    double k = 400.0, c = 40.0, low = 0.0;
    for (int t = 0; t < 120; t++) {
        sim_spring_step(&s, 0.0, k, c, 1.0 / 60.0);
        if (s.x < low) low = s.x;
    }
    ck_assert_double_gt(low, -0.05);
}
END_TEST

/* A caller's absurd constants never carry an infinity or a NaN into the state. */
START_TEST(absurd_input_stays_finite)
{
    sim_spring s = { 0.0, 0.0 };
    for (int t = 0; t < 50; t++) sim_spring_step(&s, 1e300, 1e300, 0.0, 1.0);
    ck_assert(sim_isfinite(s.x) && sim_isfinite(s.v));
    ck_assert(s.x <= SIM_SPRING_MAX && s.x >= -SIM_SPRING_MAX);
    ck_assert_int_eq(sim_spring_px(&(sim_spring){ 1.5, 0.0 }), 2);
    ck_assert_int_eq(sim_spring_px(&(sim_spring){ -1.5, 0.0 }), -1);
}
END_TEST

/* The merge carrier's speed-wiggle accumulator as it was written before it moved here. */
static double old_carrier_acc(double acc, double dt, double freq)
{
    const double two_pi = 2.0 * SIM_PI;
    acc += dt * freq;
    if (acc >= two_pi) {
        acc -= two_pi * sim_floor(acc / two_pi);
        if (!(acc >= 0.0 && acc < two_pi)) acc = 0.0;
    }
    return acc;
}

START_TEST(phase_advance_is_merges_arithmetic)
{
    double a = 0.0, b = 0.0;
    for (int t = 0; t < 100000; t++) {
        double dt = 1.0 / 60.0, f = 32.0 + (t % 7);
        a = sim_phase_advance(a, dt * f);
        b = old_carrier_acc(b, dt, f);
        ck_assert(memcmp(&a, &b, sizeof a) == 0);
        ck_assert(a >= 0.0 && a < 2.0 * SIM_PI);
    }
    /* a step of many turns lands back in [0, 2π) */
    a = sim_phase_advance(1.0, 1000.0);
    ck_assert(a >= 0.0 && a < 2.0 * SIM_PI);
}
END_TEST

/* The merge carrier's stop wobble as it was written before (without the amplitude and sign). */
static double old_wobble(double *timer, double *acc, double T, double f, double dt)
{
    if (!(*timer < T)) return 0.0;
    double a = 1.0 - (*timer / T < 1.0 ? *timer / T : 1.0);
    double angle = sim_sin(*acc) * a;
    double step = dt < T - *timer ? dt : T - *timer;
    *timer = *timer + step < T ? *timer + step : T;
    *acc += step * f * a;
    return angle;
}

START_TEST(fade_wave_fades_slows_and_stops)
{
    double t1 = 0.0, a1 = 0.0, t2 = 0.0, a2 = 0.0, T = 0.75, f = 32.0;
    double first_half = 0.0, last_half = 0.0;
    for (int i = 0; i < 60; i++) {
        double w1 = sim_fade_wave_step(&t1, &a1, T, f, 1.0 / 60.0);
        double w2 = old_wobble(&t2, &a2, T, f, 1.0 / 60.0);
        ck_assert(memcmp(&w1, &w2, sizeof w1) == 0);
        ck_assert(t1 == t2 && a1 == a2);
        double m = w1 < 0 ? -w1 : w1;
        if (i < 20 && m > first_half) first_half = m;
        if (i >= 30 && i < 45 && m > last_half) last_half = m;
        ck_assert(a1 >= 0.0 && a1 <= f * T);          /* the loader's bound */
    }
    ck_assert_double_gt(first_half, 2.0 * last_half);  /* it fades */
    ck_assert(t1 == T);                                /* and is over: */
    double a_end = a1;
    ck_assert(sim_fade_wave_step(&t1, &a1, T, f, 1.0 / 60.0) == 0.0);
    ck_assert(a1 == a_end && t1 == T);
}
END_TEST

static void sp_save(const void *o, sim_writer *w) { sim_spring_save(o, w); }
static int sp_load(void *o, sim_reader *r) { return sim_spring_load(o, r); }
static void sp_step(void *o, uint64_t t)
{
    sim_spring *s = o;
    if (t % 40 == 1) s->v += 90.0;               /* a landing every 40 ticks */
    sim_spring_step(s, 0.0, 600.0, 14.0, 1.0 / 60.0);
}
static const blob_piece SPRING = { sizeof(sim_spring), sp_save, sp_load, sp_step };

/* Save → load → continue equals continue, at every step of a run of pops. */
START_TEST(save_load_continue)
{
    sim_spring a = { 0.0, 0.0 }, b;
    uint8_t buf[32];
    ck_assert_uint_eq(blob_save(&SPRING, &a, buf, sizeof buf), 16);
    blob_sync(&SPRING, &a, &b, 200, 3);
}
END_TEST

START_TEST(corrupt_refused_untouched)
{
    sim_spring a = { 1.0, 2.0 }, b = { 3.0, 4.0 };
    uint8_t good[16], inf[16];
    size_t n = blob_save(&SPRING, &a, good, sizeof good);
    const blob_poke pokes[] = { { 0, 2.0 * SIM_SPRING_MAX, 0 }, { 8, -2.0 * SIM_SPRING_MAX, 0 } };
    blob_refusals(&SPRING, &b, good, n, pokes, sizeof pokes / sizeof pokes[0]);
    memcpy(inf, good, sizeof inf);            /* x's exponent bits all set: not finite */
    inf[6] = 0xf0;
    inf[7] = 0x7f;
    blob_refuse(&SPRING, &b, inf, sizeof inf);
    ck_assert(b.x == 3.0 && b.v == 4.0);
}
END_TEST

Suite *suite_spring(void)
{
    Suite *s = suite_create("spring");
    TCase *tc = tcase_create("spring");
    tcase_add_test(tc, step_is_the_seeds_formula);
    tcase_add_test(tc, underdamped_overshoots_then_settles);
    tcase_add_test(tc, absurd_input_stays_finite);
    tcase_add_test(tc, phase_advance_is_merges_arithmetic);
    tcase_add_test(tc, fade_wave_fades_slows_and_stops);
    tcase_add_test(tc, save_load_continue);
    tcase_add_test(tc, corrupt_refused_untouched);
    suite_add_tcase(s, tc);
    return s;
}
