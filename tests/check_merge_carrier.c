/* check_merge_carrier.c — the merge carrier and the fruit's idle life (sim/merge/carrier.c)
 * against seed 003, "Moving Is a Lean Plus a Wiggle": one test per rule, each quoting the
 * sentence it pins. Steps of 1/64 s where exact binary time helps (4 s = 256 steps, 0.75 s = 48),
 * the world's 1/60 s elsewhere. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "merge/carrier.h"
#include "merge/art.h"

#define DT60 (1.0 / 60.0)
#define DT64 (1.0 / 64.0)

static double absd(double v) { return v < 0.0 ? -v : v; }
static int sgn(double v) { return v > 0.0 ? 1 : v < 0.0 ? -1 : 0; }

static merge_carrier_cfg cfg0(void) { return sim__merge_carrier_cfg_default(); }

static void run(merge_carrier *c, const merge_carrier_cfg *cfg, double dt, int dir, int n)
{
    for (int i = 0; i < n; i++) sim__merge_carrier_update(c, cfg, dt, dir);
}

/* ---- the lean -------------------------------------------------------------------------------- */
/* "HeadWobbleAmplitude is negative twelve and FruitDangleAmplitude is positive sixteen": the lean
 * is moveDir × amplitude, and sin(0) adds nothing at acc = 0 (dt = 0 leaves the accumulator at 0). */
START_TEST(lean_signs_and_values)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    sim__merge_carrier_update(&c, &cfg, 0.0, +5);              /* Mathf.Sign(input) */
    ck_assert_int_eq(c.move_dir, 1);
    ck_assert_double_eq(c.head_angle, -12.0);
    ck_assert_double_eq(c.fruit_angle, 16.0);
    sim__merge_carrier_update(&c, &cfg, 0.0, -3);
    ck_assert_int_eq(c.move_dir, -1);
    ck_assert_double_eq(c.head_angle, 12.0);
    ck_assert_double_eq(c.fruit_angle, -16.0);
    /* with the wiggle: at acc = π/2 it adds its full +2 to both, whatever the direction */
    c.speed_wiggle_acc = SIM_PI / 2.0;
    sim__merge_carrier_update(&c, &cfg, 0.0, 1);
    ck_assert_double_eq_tol(c.head_angle, -10.0, 1e-12);
    ck_assert_double_eq_tol(c.fruit_angle, 18.0, 1e-12);
    sim__merge_carrier_update(&c, &cfg, 0.0, -1);
    ck_assert_double_eq_tol(c.head_angle, 14.0, 1e-12);
    ck_assert_double_eq_tol(c.fruit_angle, -14.0, 1e-12);
    /* and along a walk: lean + sin(acc) × 2, the accumulator advanced before sampling */
    sim__merge_carrier_init(&c, &cfg, 160.0);
    for (int i = 1; i <= 60; i++) {
        sim__merge_carrier_update(&c, &cfg, DT60, 1);
        double w = sim_sin(c.speed_wiggle_acc) * 2.0;
        ck_assert_double_eq_tol(c.head_angle, -12.0 + w, 1e-12);
        ck_assert_double_eq_tol(c.fruit_angle, 16.0 + w, 1e-12);
    }
}
END_TEST

/* The lean sets the parts are drawn from (art.h: ±MERGE_LEAN_SPAN at 1° steps) hold every angle
 * the carrier reaches: walking either way, stopping, turning round, the head, the hat and the
 * fruit stay within the span (a part past it would be drawn at the span's end, not at its angle),
 * and the span reaches what the amplitudes allow. */
START_TEST(angles_stay_in_the_lean_sets)
{
    merge_carrier_cfg cfg = cfg0();
    ck_assert(absd(cfg.fruit_amp) + absd(cfg.wiggle_amp) <= MERGE_LEAN_SPAN);
    ck_assert(absd(cfg.head_amp) + absd(cfg.wiggle_amp) <= MERGE_LEAN_SPAN);
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    static const int plan[][2] = { { 1, 40 }, { 0, 300 }, { -1, 7 }, { 1, 9 }, { 0, 50 }, { -1, 61 } };
    double most = 0.0;
    for (size_t p = 0; p < sizeof plan / sizeof plan[0]; p++)
        for (int i = 0; i < plan[p][1]; i++) {
            sim__merge_carrier_update(&c, &cfg, DT60, plan[p][0]);
            const double a[3] = { c.head_angle, c.hat_angle, c.fruit_angle };
            for (int k = 0; k < 3; k++) {
                ck_assert(absd(a[k]) <= MERGE_LEAN_SPAN);
                if (absd(a[k]) > most) most = absd(a[k]);
            }
        }
    ck_assert(most > MERGE_LEAN_SPAN - 1.0);       /* the fruit's 16° + 2° is the span's end */
}
END_TEST

/* "Head.RotationDegrees = headAngle; float hatAngle = headAngle * HatWobbleMultiplier": always,
 * walking, reversing, stopping and wobbling; never in lockstep with the head. */
START_TEST(hat_is_nine_tenths_of_head)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    static const int script[][2] = { { 1, 40 }, { 0, 20 }, { -1, 70 }, { 1, 5 }, { 0, 300 } };
    int nonzero = 0;
    for (size_t k = 0; k < sizeof script / sizeof script[0]; k++)
        for (int i = 0; i < script[k][1]; i++) {
            sim__merge_carrier_update(&c, &cfg, DT60, script[k][0]);
            ck_assert_double_eq_tol(c.hat_angle, 0.9 * c.head_angle, 1e-12);
            if (c.head_angle != 0.0) {
                nonzero++;
                ck_assert(c.hat_angle != c.head_angle);
            }
        }
    ck_assert_int_gt(nonzero, 100);
}
END_TEST

/* Count sign changes of the wiggle (head − lean) over 1 s of walking at 1/240 s steps. */
static int wiggle_crossings(const merge_carrier_cfg *cfg, double *peak)
{
    merge_carrier c;
    sim__merge_carrier_init(&c, cfg, 160.0);
    int n = 0, prev = 0;
    *peak = 0.0;
    for (int i = 0; i < 240; i++) {
        sim__merge_carrier_update(&c, cfg, 1.0 / 240.0, 1);
        double w = c.head_angle + 12.0;
        ck_assert_double_eq_tol(c.fruit_angle - 16.0, w, 1e-12);
        if (absd(w) > *peak) *peak = absd(w);
        int s = sgn(w);
        if (s && prev && s != prev) n++;
        if (s) prev = s;
    }
    return n;
}

/* "Amplitude 2 degrees at frequency 32, so it's a rapid shudder": 32 rad/s of phase is 32/π ≈ 10.2
 * zero crossings a second, peaks of 2°. At half the frequency, half the crossings. */
START_TEST(wiggle_amplitude_and_period)
{
    merge_carrier_cfg cfg = cfg0();
    double peak;
    ck_assert_int_eq(wiggle_crossings(&cfg, &peak), 10);
    ck_assert(peak > 1.99 && peak <= 2.0 + 1e-12);
    cfg.wiggle_freq = 16.0;
    ck_assert_int_eq(wiggle_crossings(&cfg, &peak), 5);
}
END_TEST

/* "The code keeps its own phase and advances it by delta * frequency. That means frequency can
 * change between frames without the wave jumping." Half a second at 32, then 29: no step of the
 * wiggle is larger than amplitude × frequency × dt, while sampling sin(t × f) would jump. */
START_TEST(phase_continuous_across_frequency_change)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 20.0);
    double prev = 0.0, bound = 2.0 * 32.0 * DT60 + 1e-9, maxstep = 0.0;
    for (int i = 0; i < 60; i++) {
        if (i == 30) cfg.wiggle_freq = 29.0;
        sim__merge_carrier_update(&c, &cfg, DT60, 1);
        double w = c.head_angle + 12.0;
        if (i > 0 && absd(w - prev) > maxstep) maxstep = absd(w - prev);
        if (i == 30) ck_assert(absd(w - prev) <= 2.0 * 29.0 * DT60 + 1e-9);
        prev = w;
    }
    ck_assert(maxstep <= bound);
    /* the other way, computed here: at t = 0.5 s, sin(t·32) → sin(t·29) is a jump */
    double t = 30.0 * DT60;
    double naive = absd(2.0 * sim_sin(t * 29.0) - 2.0 * sim_sin(t * 32.0));
    ck_assert_msg(naive > 2.0 * bound, "the naive jump %g should dwarf the bound %g", naive, bound);
}
END_TEST

/* Walk 1 s in dir, then stop; the sign of the first non-zero fruit and head angles. */
static void first_stop_signs(int dir, int *fruit, int *head)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    run(&c, &cfg, DT60, dir, 60);
    ck_assert_int_eq(sgn(c.fruit_angle), dir);       /* trailing: 16 ± 2 keeps its sign */
    ck_assert_int_eq(c.last_move_dir, dir);
    *fruit = *head = 0;
    for (int i = 0; i < 60 && (!*fruit || !*head); i++) {
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
        ck_assert_int_eq(c.last_move_dir, dir);
        if (!*fruit) *fruit = sgn(c.fruit_angle);
        if (!*head) *head = sgn(c.head_angle);
    }
}

/* "The swing begins in the direction opposite to travel, from LastMoveDir * -1. Something being
 * carried keeps going when the carrier stops, so it swings forward first and then back." */
START_TEST(dangle_starts_opposite_to_travel)
{
    int f, h;
    first_stop_signs(1, &f, &h);
    ck_assert_int_eq(f, -1);      /* the fruit trailed at +16, swings to − */
    ck_assert_int_eq(h, 1);       /* the head leaned at −12, nods to + */
    first_stop_signs(-1, &f, &h);
    ck_assert_int_eq(f, 1);
    ck_assert_int_eq(h, -1);
}
END_TEST

/* Stop after a walk; at each 1/64 s step k (the timer k/64 before it): the angle within the
 * linear envelope, big at first, still alive in the last quarter, exactly 0 from T on. */
static void check_fade(int fruit, double T, double amp)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    run(&c, &cfg, DT64, 1, 64);
    int n = (int)(T * 64.0);
    double early = 0.0, late = 0.0;
    for (int k = 0; k < n + 64; k++) {
        sim__merge_carrier_update(&c, &cfg, DT64, 0);
        double a = fruit ? c.fruit_angle : c.head_angle;
        double s = k * DT64;
        if (k >= n) {
            ck_assert_msg(a == 0.0, "step %d (%g s): %g after the %g s fade", k, s, a, T);
            continue;
        }
        ck_assert_msg(absd(a) <= absd(amp) * (1.0 - s / T) + 1e-12, "step %d: %g over the envelope",
                      k, a);
        if (s < T / 4.0 && absd(a) > early) early = absd(a);
        if (s >= T * 0.75 && absd(a) > late) late = absd(a);
    }
    ck_assert_msg(early > absd(amp) * 0.5, "the first quarter peaks at %g", early);
    ck_assert_msg(late > 0.0, "the last quarter is already still");
}

/* "The amplitude decays linearly to zero over FruitDangleTime … HatWobbleTime at 0.75 seconds
 * and FruitDangleTime at 4 seconds." */
START_TEST(fruit_dangle_decays_over_4s) { check_fade(1, 4.0, 16.0); }
END_TEST
START_TEST(head_wobble_decays_over_075s) { check_fade(0, 0.75, -12.0); }
END_TEST

/* Zero-crossing times of the stop wobble (interpolated), at 1/4096 s steps. */
static int crossings(int fruit, double *at, int max)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    run(&c, &cfg, DT64, 1, 10);
    double dt = 1.0 / 4096.0, prev = 0.0;
    int n = 0;
    for (int k = 0; k < 4096 * 4 && n < max; k++) {
        sim__merge_carrier_update(&c, &cfg, dt, 0);
        double a = fruit ? c.fruit_angle : c.head_angle;
        if (k > 1 && a != 0.0 && prev != 0.0 && sgn(a) != sgn(prev))
            at[n++] = (k - 1 + prev / (prev - a)) * dt;
        if (a != 0.0) prev = a;
    }
    return n;
}

/* "The accumulator advances by delta * frequency * amplitude, so the frequency is scaled by the
 * decaying amplitude too. As the wobble dies, it also slows down." Successive half-swings take
 * longer; a constant-frequency wobble would keep them equal. */
START_TEST(dangle_slows_as_it_fades)
{
    double at[16];
    int n = crossings(1, at, 16);
    ck_assert_int_ge(n, 4);       /* 16 rad of phase over 4 s: crossings at π, 2π, 3π, 4π, 5π */
    for (int i = 2; i < n; i++)
        ck_assert_msg(at[i] - at[i - 1] > (at[i - 1] - at[i - 2]) * 1.05,
                      "fruit half-swing %d: %g s after %g s", i, at[i] - at[i - 1],
                      at[i - 1] - at[i - 2]);
    n = crossings(0, at, 16);
    ck_assert_int_ge(n, 3);       /* 12 rad over 0.75 s: π, 2π, 3π */
    for (int i = 2; i < n; i++)
        ck_assert(at[i] - at[i - 1] > (at[i - 1] - at[i - 2]) * 1.05);
}
END_TEST

/* "Both accumulators and both timers reset to zero whenever movement resumes … a hard cut." The
 * second stop replays the first one's wobble exactly, and a resume the other way flips the swing. */
START_TEST(hard_cut_on_resume)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    run(&c, &cfg, DT60, 1, 60);
    double fruit[120], head[120];
    for (int i = 0; i < 120; i++) {
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
        fruit[i] = c.fruit_angle;
        head[i] = c.head_angle;
    }
    /* stop again for 0.4 s: mid-wobble for both */
    sim__merge_carrier_update(&c, &cfg, DT60, 1);
    run(&c, &cfg, DT60, 0, 24);
    ck_assert(c.dangle_timer > 0.0 && c.fruit_dangle_acc > 0.0);
    ck_assert(c.hat_timer > 0.0 && c.hat_acc > 0.0);
    sim__merge_carrier_update(&c, &cfg, DT60, 1);
    ck_assert_int_eq(c.last_move_dir, 1);
    ck_assert_double_eq(c.dangle_timer, 0.0);
    ck_assert_double_eq(c.fruit_dangle_acc, 0.0);
    ck_assert_double_eq(c.hat_timer, 0.0);
    ck_assert_double_eq(c.hat_acc, 0.0);
    /* the next stop replays the first exactly: no stale phase */
    for (int i = 0; i < 120; i++) {
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
        ck_assert_double_eq(c.fruit_angle, fruit[i]);
        ck_assert_double_eq(c.head_angle, head[i]);
    }
    /* mid-wobble, resume to the left: LastMoveDir = moveDir, and the stop mirrors the first */
    sim__merge_carrier_update(&c, &cfg, DT60, -1);
    ck_assert_int_eq(c.last_move_dir, -1);
    ck_assert_double_eq(c.dangle_timer, 0.0);
    ck_assert_double_eq(c.hat_acc, 0.0);
    for (int i = 0; i < 120; i++) {
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
        ck_assert_double_eq(c.fruit_angle, -fruit[i]);
        ck_assert_double_eq(c.head_angle, -head[i]);
    }
}
END_TEST

/* x += moveDir × speed × dt, clamped to the config's [xmin, xmax]. */
START_TEST(walk_clamps_at_the_edges)
{
    merge_carrier_cfg cfg = cfg0();
    cfg.xmin = 20.0;
    cfg.xmax = 100.0;
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 50.0);
    sim__merge_carrier_update(&c, &cfg, DT64, 1);
    ck_assert_double_eq_tol(c.x, 50.0 + 90.0 / 64.0, 1e-12);
    run(&c, &cfg, DT64, 1, 128);
    ck_assert_double_eq(c.x, 100.0);
    ck_assert_double_eq(c.head_angle - sim_sin(c.speed_wiggle_acc) * 2.0, -12.0); /* still leans */
    run(&c, &cfg, DT64, -1, 256);
    ck_assert_double_eq(c.x, 20.0);
    sim__merge_carrier_init(&c, &cfg, 500.0);
    ck_assert_double_eq(c.x, 100.0);
    sim__merge_carrier_init(&c, &cfg, -500.0);
    ck_assert_double_eq(c.x, 20.0);
    ck_assert_int_eq(sim__merge_carrier_check(&c, &cfg), 0);
}
END_TEST

/* The walk-to-x helper: one direction until within half a step, then 0 for good. */
START_TEST(dir_to_arrives_without_oscillating)
{
    merge_carrier_cfg cfg = cfg0();
    const double starts[] = { 16.0, 100.0, 160.3, 303.9 };
    const double targets[] = { 16.0, 17.1, 99.26, 160.0, 230.74, 304.0, 500.0, -40.0 };
    double step = cfg.speed * DT60;
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        for (size_t j = 0; j < sizeof targets / sizeof targets[0]; j++) {
            merge_carrier c;
            sim__merge_carrier_init(&c, &cfg, starts[i]);
            double goal = targets[j] < cfg.xmin ? cfg.xmin : targets[j] > cfg.xmax ? cfg.xmax
                                                                                   : targets[j];
            int first = 0, moves = 0, arrived = -1;
            for (int k = 0; k < 400; k++) {
                int d = sim__merge_carrier_dir_to(&c, &cfg, targets[j], DT60);
                if (d && !first) first = d;
                ck_assert_msg(d == 0 || d == first, "from %g to %g: turned back at step %d",
                              starts[i], targets[j], k);
                if (d == 0 && arrived < 0) arrived = k;
                ck_assert_msg(arrived < 0 || d == 0, "from %g to %g: left again at step %d",
                              starts[i], targets[j], k);
                moves += d != 0;
                sim__merge_carrier_update(&c, &cfg, DT60, d);
            }
            ck_assert(arrived >= 0);
            ck_assert_msg(absd(c.x - goal) <= step / 2.0 + 1e-9, "from %g to %g: ended at %g",
                          starts[i], targets[j], c.x);
            ck_assert(moves <= (int)(absd(goal - starts[i]) / step) + 1);
        }
}
END_TEST

/* ---- the juggle ------------------------------------------------------------------------------ */
/* idle → dropping (drop_time) → catching (catch_time) → idle; a drop while juggling is refused. */
START_TEST(juggle_phases_and_busy)
{
    merge_carrier_cfg cfg = cfg0();
    cfg.catch_time = 0.5;
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    ck_assert_int_eq(sim__merge_carrier_can_drop(&c), 1);
    ck_assert_int_eq(sim__merge_carrier_start_juggle(&c), 0);
    ck_assert_int_eq(c.juggle, MERGE_JUGGLE_DROPPING);
    ck_assert_int_eq(sim__merge_carrier_can_drop(&c), 0);
    for (int k = 1; k <= 48; k++) {
        sim__merge_carrier_update(&c, &cfg, DT64, 0);
        int want = k < 16 ? MERGE_JUGGLE_DROPPING : k < 48 ? MERGE_JUGGLE_CATCHING
                                                           : MERGE_JUGGLE_IDLE;
        ck_assert_msg(c.juggle == want, "step %d: phase %d, want %d", k, c.juggle, want);
        if (want != MERGE_JUGGLE_IDLE) {
            merge_carrier before = c;
            ck_assert_int_eq(sim__merge_carrier_start_juggle(&c), SIM_EINVAL);    /* busy */
            ck_assert_int_eq(c.juggle, before.juggle);
            ck_assert_double_eq(c.anim_timer, before.anim_timer);
        }
    }
    ck_assert_int_eq(sim__merge_carrier_can_drop(&c), 1);
    ck_assert_double_eq(c.anim_timer, 0.0);
}
END_TEST

/* The seed's catch position, bug included: progress against the DROP time. */
static void seed_catch_pos(const merge_carrier *c, const merge_carrier_cfg *cfg, double lx,
                           double ly, double rx, double ry, double *x, double *y)
{
    double mx = (lx + rx) / 2.0, my = (ly + ry) / 2.0;
    double t = c->anim_timer / cfg->drop_time;
    double theta = SIM_PI * 0.5 * t;
    *x = mx + (rx - mx) * t;
    *y = my + (ry - my) * t - sim_cos(theta) * cfg->juggle_height;
}

/* "If somebody sets those to different values, the catch either finishes before its arc
 * completes or overshoots past the socket." Fixed: a drop of 0.25 s and a catch of 0.5 s (and
 * the other way round) never pass the right socket, end close to it, and land exactly on it. */
START_TEST(juggle_lands_on_socket_with_unequal_times)
{
    const double times[][2] = { { 0.25, 0.5 }, { 0.5, 0.25 }, { 0.25, 0.25 } };
    const double dts[] = { DT60, 1.0 / 1000.0 };
    const double lx = 100.0, rx = 140.0, sy = 50.0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 2; j++) {
            merge_carrier_cfg cfg = cfg0();
            cfg.drop_time = times[i][0];
            cfg.catch_time = times[i][1];
            merge_carrier c;
            sim__merge_carrier_init(&c, &cfg, 160.0);
            sim__merge_carrier_start_juggle(&c);
            double px = lx, x, y, lastx = lx, lasty = sy;
            int steps = 0;
            while (c.juggle != MERGE_JUGGLE_IDLE) {
                int was = c.juggle;
                sim__merge_carrier_update(&c, &cfg, dts[j], 0);
                sim__merge_juggle_pos(&c, &cfg, lx, sy, rx, sy, &x, &y);
                ck_assert_msg(x <= rx && y <= sy, "drop %g catch %g: (%g, %g) past the socket",
                              cfg.drop_time, cfg.catch_time, x, y);
                ck_assert(x >= px);
                px = x;
                if (c.juggle != MERGE_JUGGLE_IDLE || was != MERGE_JUGGLE_CATCHING) {
                    lastx = x;
                    lasty = y;
                }
                ck_assert(++steps < 100000);
            }
            ck_assert_double_eq(x, rx);          /* completion: exactly on the right socket */
            ck_assert_double_eq(y, sy);
            /* the arc itself ends there: the step before landing is within a step's travel */
            double reach = dts[j] / cfg.catch_time;
            ck_assert_msg(rx - lastx <= (rx - lx) / 2.0 * reach * 1.01 + 1e-9
                          && sy - lasty <= cfg.juggle_height * SIM_PI / 2.0 * reach + 1e-9,
                          "drop %g catch %g: jumped from (%g, %g) to the socket", cfg.drop_time,
                          cfg.catch_time, lastx, lasty);
        }
}
END_TEST

/* The same run with the seed's formula, computed here, does overshoot: the test tells the two
 * apart. */
START_TEST(seed_catch_formula_would_overshoot)
{
    merge_carrier_cfg cfg = cfg0();
    cfg.drop_time = 0.25;
    cfg.catch_time = 0.5;
    const double lx = 100.0, rx = 140.0, sy = 50.0;
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    sim__merge_carrier_start_juggle(&c);
    double bugx = 0.0, bugy = 0.0, okx = 0.0, oky = 0.0, x, y;
    while (c.juggle != MERGE_JUGGLE_IDLE) {
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
        if (c.juggle != MERGE_JUGGLE_CATCHING) continue;
        seed_catch_pos(&c, &cfg, lx, sy, rx, sy, &x, &y);
        if (x > bugx) bugx = x;
        if (y > bugy) bugy = y;
        sim__merge_juggle_pos(&c, &cfg, lx, sy, rx, sy, &x, &y);
        if (x > okx) okx = x;
        if (y > oky) oky = y;
    }
    ck_assert_msg(bugx > rx + 10.0, "the seed's catch reaches x %g", bugx);     /* t → 2 */
    ck_assert_msg(bugy > sy + 10.0, "the seed's catch reaches y %g", bugy);     /* cos → −1 */
    ck_assert(okx <= rx && oky <= sy);
}
END_TEST

/* Height above the sockets' line (sockets on one line) at a given phase and timer. */
static double height_at(const merge_carrier_cfg *cfg, int phase, double timer)
{
    merge_carrier c;
    sim__merge_carrier_init(&c, cfg, 160.0);
    c.juggle = (uint8_t)phase;
    c.anim_timer = timer;
    double x, y;
    sim__merge_juggle_pos(&c, cfg, 100.0, 50.0, 140.0, 50.0, &x, &y);
    return 50.0 - y;
}

/* "At the join both are at their flat part, where the slope is zero. So the two halves meet at
 * the apex with matching height and matching gradient." With a 0.25 s drop and a 0.5 s catch:
 * equal height and a near-zero finite-difference slope either side of the join, where mid-phase
 * the slope is tens of pixels a second. */
START_TEST(apex_join_is_smooth)
{
    merge_carrier_cfg cfg = cfg0();
    cfg.drop_time = 0.25;
    cfg.catch_time = 0.5;
    const double e = 1e-5, H = cfg.juggle_height;
    double before = height_at(&cfg, MERGE_JUGGLE_DROPPING, cfg.drop_time - e);
    double before2 = height_at(&cfg, MERGE_JUGGLE_DROPPING, cfg.drop_time - 2.0 * e);
    double at = height_at(&cfg, MERGE_JUGGLE_CATCHING, 0.0);
    double after = height_at(&cfg, MERGE_JUGGLE_CATCHING, e);
    ck_assert_double_eq_tol(at, H, 1e-12);
    ck_assert_double_eq_tol(before, at, 1e-6);
    ck_assert_double_eq_tol(after, at, 1e-6);
    double slope_in = (before - before2) / e, slope_out = (after - at) / e;
    ck_assert_msg(absd(slope_in) < 0.01 && absd(slope_out) < 0.01, "slopes %g and %g px/s",
                  slope_in, slope_out);
    double mid = (height_at(&cfg, MERGE_JUGGLE_DROPPING, 0.125 + e)
                  - height_at(&cfg, MERGE_JUGGLE_DROPPING, 0.125)) / e;
    ck_assert_msg(mid > 30.0, "mid-drop slope %g px/s", mid);
    /* and going through update at small steps: no step's height change near the join is bigger
     * than the flat top allows */
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    sim__merge_carrier_start_juggle(&c);
    double dt = 1e-4, prev = -1.0, x, y;
    for (int k = 0; k < 5000; k++) {
        sim__merge_carrier_update(&c, &cfg, dt, 0);
        sim__merge_juggle_pos(&c, &cfg, 100.0, 50.0, 140.0, 50.0, &x, &y);
        double h = 50.0 - y;
        double tj = k * dt + dt - cfg.drop_time;               /* time from the join */
        if (prev >= 0.0 && absd(tj) < 5e-4)
            ck_assert_msg(absd(h - prev) / dt < 0.5, "step %d: slope %g", k, (h - prev) / dt);
        prev = h;
    }
}
END_TEST

/* "Open and closed variants, vertically flipped per phase to get four poses out of two
 * drawings": idle both closed; dropping LeftOpen.FlipV = true, RightOpen.FlipV = false;
 * catching the left closed palm-up, the right open; landed, both closed. */
START_TEST(hand_poses_per_phase)
{
    merge_carrier_cfg cfg = cfg0();
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    int l, r;
    sim__merge_hand_poses(&c, &l, &r);
    ck_assert(l == MERGE_HAND_CLOSED && r == MERGE_HAND_CLOSED);
    sim__merge_carrier_start_juggle(&c);
    int seen[3] = { 0 };
    while (1) {
        sim__merge_hand_poses(&c, &l, &r);
        switch (c.juggle) {
        case MERGE_JUGGLE_DROPPING: ck_assert(l == 3 && r == 2); break;
        case MERGE_JUGGLE_CATCHING: ck_assert(l == 1 && r == 2); break;
        default: ck_assert(l == 0 && r == 0); break;
        }
        seen[c.juggle] = 1;
        if (c.juggle == MERGE_JUGGLE_IDLE) break;
        sim__merge_carrier_update(&c, &cfg, DT60, 0);
    }
    ck_assert(seen[0] && seen[1] && seen[2]);
}
END_TEST

/* A state loader's check: the states a session passes through are accepted, broken ones are not. */
START_TEST(check_accepts_live_rejects_broken)
{
    merge_carrier_cfg cfg = cfg0();
    ck_assert_int_eq(sim__merge_carrier_cfg_check(&cfg), 0);
    merge_carrier_cfg bad = cfg;
    bad.catch_time = 0.0;
    ck_assert_int_eq(sim__merge_carrier_cfg_check(&bad), SIM_EINVAL);
    bad = cfg;
    bad.xmin = 400.0;
    ck_assert_int_eq(sim__merge_carrier_cfg_check(&bad), SIM_EINVAL);
    merge_carrier c;
    sim__merge_carrier_init(&c, &cfg, 160.0);
    ck_assert_int_eq(sim__merge_carrier_check(&c, &cfg), 0);
    static const int script[][2] = { { 1, 400 }, { 0, 30 }, { -1, 20 }, { 0, 300 }, { -1, 500 } };
    for (size_t k = 0; k < 5; k++)
        for (int i = 0; i < script[k][1]; i++) {
            if (i % 37 == 0) sim__merge_carrier_start_juggle(&c);
            sim__merge_carrier_update(&c, &cfg, DT60, script[k][0]);
            ck_assert_int_eq(sim__merge_carrier_check(&c, &cfg), 0);
        }
    sim__merge_carrier_update(&c, &cfg, 1000.0, 0);       /* a huge step keeps the bounds */
    ck_assert_int_eq(sim__merge_carrier_check(&c, &cfg), 0);
    merge_carrier b;
    b = c; b.x = NAN;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.x = cfg.xmax + 1.0;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.move_dir = 2;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.juggle = 3;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.juggle = MERGE_JUGGLE_CATCHING; b.anim_timer = cfg.catch_time;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.move_dir = 1; b.last_move_dir = 1; b.dangle_timer = 0.5;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.hat_angle = b.head_angle + 1.0;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.speed_wiggle_acc = 7.0;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
    b = c; b.fruit_dangle_acc = 1e9;
    ck_assert_int_eq(sim__merge_carrier_check(&b, &cfg), SIM_ECORRUPT);
}
END_TEST

/* ---- the fruit's idle life ------------------------------------------------------------------- */
/* "LookTimer -= LookTime": the remainder is kept. With dt = 0.3 from 0, the checks fall at 1.2 s
 * (remainder 0.2) and 2.1 s (remainder 0.1); a reset to zero would put the second at 2.4 s. */
START_TEST(look_timer_keeps_remainder)
{
    merge_fruit_life l;
    sim__merge_life_init(&l, 7, 3);
    l.look_timer = 0.0;
    for (int k = 1; k <= 9; k++) {
        double before = l.look_timer;
        sim__merge_life_update(&l, 0.3);
        int fired = l.look_timer < before;
        ck_assert_msg(fired == (k == 4 || k == 7), "update %d: fired %d", k, fired);
        if (k == 4) ck_assert_double_eq_tol(l.look_timer, 0.2, 1e-9);
        if (k == 7) ck_assert_double_eq_tol(l.look_timer, 0.1, 1e-9);
    }
}
END_TEST

/* "Once a second, a one in four chance of flipping which way the eyes face." 4000 checks per
 * fruit, four fruit: flips within five standard deviations of a quarter (1000 ± 137 each,
 * 4000 ± 274 in all); a third or a fifth would fall outside. */
START_TEST(look_flip_one_in_four)
{
    int total = 0;
    for (uint64_t s = 0; s < 4; s++) {
        merge_fruit_life l;
        sim__merge_life_init(&l, 99, s);
        int flips = 0;
        for (int k = 0; k < 4000; k++) {
            uint8_t was = l.look_flip;
            sim__merge_life_update(&l, 1.0);                  /* one look check each */
            flips += l.look_flip != was;
        }
        ck_assert_msg(flips > 863 && flips < 1137, "fruit %d: %d flips in 4000", (int)s, flips);
        total += flips;
    }
    ck_assert_msg(total > 3726 && total < 4274, "%d flips in 16000", total);
}
END_TEST

/* "Squashing the eyes to a tenth of their height for 0.3 seconds": 18 ticks at 60 Hz, 3 steps of
 * 0.1 s, and every natural blink of a minute-long run lasts 18 ticks. */
START_TEST(blink_squashes_for_03s)
{
    const double dts[] = { DT60, 0.1 };
    const int want[] = { 18, 3 };
    for (int j = 0; j < 2; j++) {
        merge_fruit_life l;
        sim__merge_life_init(&l, 5, 1);
        l.blink_prob = 1.0;                                   /* the next check blinks */
        l.blink_timer = l.blink_every - 1e-6;
        ck_assert_double_eq(sim__merge_life_eye_scale(&l), 1.0);
        int n = 0;
        for (int k = 0; k < (int)(1.0 / dts[j] + 0.5); k++) {    /* 1 s: one check at most */
            sim__merge_life_update(&l, dts[j]);
            if (l.blinking) {
                ck_assert_int_eq(n, k);                       /* one run, from the first step */
                ck_assert_double_eq(sim__merge_life_eye_scale(&l), MERGE_BLINK_SCALE);
                n++;
            } else {
                ck_assert_double_eq(sim__merge_life_eye_scale(&l), 1.0);
            }
        }
        ck_assert_int_eq(n, want[j]);
    }
    merge_fruit_life l;
    sim__merge_life_init(&l, 5, 2);
    int run_len = 0, blinks = 0;
    for (int k = 0; k < 3600; k++) {
        sim__merge_life_update(&l, DT60);
        if (l.blinking) run_len++;
        else if (run_len) {
            ck_assert_int_eq(run_len, 18);
            blinks++;
            run_len = 0;
        }
    }
    ck_assert_int_ge(blinks, 5);
}
END_TEST

/* Twenty fruit for 20 s at 60 Hz: the ticks at which each starts a blink and flips its eyes. */
#define NF 20
#define NT 1200
static uint8_t blink_at[NF][NT], flip_at[NF][NT];
static void twenty(uint64_t seed, int same)
{
    memset(blink_at, 0, sizeof blink_at);
    memset(flip_at, 0, sizeof flip_at);
    for (int f = 0; f < NF; f++) {
        merge_fruit_life l;
        sim__merge_life_init(&l, seed, same ? 0 : (uint64_t)f);
        for (int t = 0; t < NT; t++) {
            uint8_t b = l.blinking, fl = l.look_flip;
            sim__merge_life_update(&l, DT60);
            ck_assert_int_eq(sim__merge_life_check(&l), 0);
            blink_at[f][t] = l.blinking && !b;
            flip_at[f][t] = l.look_flip != fl;
        }
    }
}
/* The measures of a chorus: events in all, ticks with any event, the most fruit on one tick,
 * the pairs of fruit that share any event tick, the most event ticks one pair shares, and the
 * mean over pairs of the shared fraction (shared / the smaller count). */
typedef struct chorus { int total, ticks, crowd, pairs, most; double frac; } chorus;
static chorus measure(uint8_t (*ev)[NT])
{
    chorus m = { 0 };
    int cnt[NF] = { 0 };
    for (int t = 0; t < NT; t++) {
        int n = 0;
        for (int f = 0; f < NF; f++) {
            n += ev[f][t];
            cnt[f] += ev[f][t];
        }
        m.total += n;
        m.ticks += n > 0;
        if (n > m.crowd) m.crowd = n;
    }
    for (int a = 0; a < NF; a++)
        for (int b = a + 1; b < NF; b++) {
            int s = 0;
            for (int t = 0; t < NT; t++) s += ev[a][t] && ev[b][t];
            m.pairs += s > 0;
            if (s > m.most) m.most = s;
            int lo = cnt[a] < cnt[b] ? cnt[a] : cnt[b];
            m.frac += lo ? (double)s / lo : 0.0;
        }
    m.frac /= NF * (NF - 1) / 2;
    return m;
}

/* Apart: nine in ten events on a tick of their own, at most three fruit on one tick, at most a
 * tenth of the 190 pairs ever sharing a tick, and on average a pair shares under 5% of its
 * events. (Glances check on a 1 s clock, so at 60 Hz each fruit's checks fall in one of sixty
 * tick slots; two fruit in one slot glance together a sixteenth of the time, which is why a pair
 * may share a few glances and why the rule is about the crowd, not every pair.) */
static void assert_apart(chorus m, const char *what, uint64_t seed)
{
    ck_assert_msg(m.total >= 50, "seed %llx: %d %s", (unsigned long long)seed, m.total, what);
    ck_assert_msg(m.ticks * 10 >= m.total * 9 && m.crowd <= 3 && m.pairs <= 19 && m.frac < 0.05,
                  "seed %llx %s: %d on %d ticks, %d on one tick, %d pairs share, mean %.3f",
                  (unsigned long long)seed, what, m.total, m.ticks, m.crowd, m.pairs, m.frac);
}

/* "Two independent random timers mean no two fruit in a pile are ever synchronized, so a screen
 * of twenty fruit has twenty things blinking and glancing at different moments." Twenty fruit
 * spawned on one tick from one world seed (four world seeds): blinks and glances on their own
 * ticks; and the same measures on twenty copies of one fruit (a chorus) fail, so the test can
 * tell. */
START_TEST(twenty_fruit_are_not_synchronised)
{
    for (uint64_t seed = 0x5eed; seed < 0x5eed + 4; seed++) {
        twenty(seed, 0);
        chorus m = measure(blink_at);
        assert_apart(m, "blinks", seed);
        if (seed == 0x5eed)
            ck_assert_msg(m.most <= 1, "two fruit share %d blink starts", m.most);
        /* a blink is a chance per check, so a fruit may go 20 s without one (with seed 0x5eed
         * one of twenty does: six checks at 0.51 all missed), but nearly all of them blink */
        int alive = 0;
        for (int f = 0; f < NF; f++) {
            int n = 0;
            for (int t = 0; t < NT; t++) n += blink_at[f][t];
            alive += n > 0;
        }
        ck_assert_msg(alive >= NF - 3, "only %d of %d fruit blink in 20 s", alive, NF);
        assert_apart(measure(flip_at), "glances", seed);
    }
    twenty(0x5eed, 1);
    chorus m = measure(blink_at);
    ck_assert(m.ticks * 10 < m.total * 9 && m.crowd > 3 && m.pairs > 19 && m.frac >= 0.05);
    m = measure(flip_at);
    ck_assert(m.ticks * 10 < m.total * 9 && m.crowd > 3 && m.pairs > 19 && m.frac >= 0.05);
}
END_TEST

/* The life's check: live states pass, broken ones do not. */
START_TEST(life_check_rejects_broken)
{
    merge_fruit_life l;
    sim__merge_life_init(&l, 1, 1);
    ck_assert_int_eq(sim__merge_life_check(&l), 0);
    sim__merge_life_update(&l, 1000.5);
    ck_assert_int_eq(sim__merge_life_check(&l), 0);
    merge_fruit_life b;
    b = l; b.look_timer = 1.0;
    ck_assert_int_eq(sim__merge_life_check(&b), SIM_ECORRUPT);
    b = l; b.blink_prob = 0.95;
    ck_assert_int_eq(sim__merge_life_check(&b), SIM_ECORRUPT);
    b = l; b.blinking = 1; b.blink_left = 0.0;
    ck_assert_int_eq(sim__merge_life_check(&b), SIM_ECORRUPT);
    b = l; b.rng.inc &= ~(uint64_t)1;
    ck_assert_int_eq(sim__merge_life_check(&b), SIM_ECORRUPT);
    b = l; b.look_flip = 2;
    ck_assert_int_eq(sim__merge_life_check(&b), SIM_ECORRUPT);
}
END_TEST

Suite *suite_merge_carrier(void)
{
    Suite *s = suite_create("merge_carrier");
    TCase *tc = tcase_create("carrier");
    tcase_add_test(tc, lean_signs_and_values);
    tcase_add_test(tc, hat_is_nine_tenths_of_head);
    tcase_add_test(tc, wiggle_amplitude_and_period);
    tcase_add_test(tc, phase_continuous_across_frequency_change);
    tcase_add_test(tc, dangle_starts_opposite_to_travel);
    tcase_add_test(tc, fruit_dangle_decays_over_4s);
    tcase_add_test(tc, head_wobble_decays_over_075s);
    tcase_add_test(tc, dangle_slows_as_it_fades);
    tcase_add_test(tc, hard_cut_on_resume);
    tcase_add_test(tc, walk_clamps_at_the_edges);
    tcase_add_test(tc, dir_to_arrives_without_oscillating);
    tcase_add_test(tc, check_accepts_live_rejects_broken);
    suite_add_tcase(s, tc);
    tc = tcase_create("juggle");
    tcase_add_test(tc, juggle_phases_and_busy);
    tcase_add_test(tc, juggle_lands_on_socket_with_unequal_times);
    tcase_add_test(tc, seed_catch_formula_would_overshoot);
    tcase_add_test(tc, apex_join_is_smooth);
    tcase_add_test(tc, hand_poses_per_phase);
    suite_add_tcase(s, tc);
    tc = tcase_create("life");
    tcase_add_test(tc, look_timer_keeps_remainder);
    tcase_add_test(tc, look_flip_one_in_four);
    tcase_add_test(tc, blink_squashes_for_03s);
    tcase_add_test(tc, twenty_fruit_are_not_synchronised);
    tcase_add_test(tc, life_check_rejects_broken);
    tcase_add_test(tc, angles_stay_in_the_lean_sets);
    suite_add_tcase(s, tc);
    return s;
}
