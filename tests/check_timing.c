/* check_timing.c — sim/anim/timing.c (seed 000 §6): a hold list's frame is a function of
 * (tick − start) alone and matches the list expanded tick by tick; one-shot lists stay on their
 * last hold; an "on 3s" layer changes only every third tick; clips save and load as two
 * integers. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/timing.h"
#include "anim/biped.h"

/* A strike: the seed's uneven holds, wind-up long, strike short, recovery in between. */
static const sim_hold strike[] = {
    { 0, SIM_HOLD_WINDUP }, { 1, SIM_HOLD_STRIKE }, { 2, SIM_HOLD_RECOVER }, { 3, 1 },
};
static const sim_hold walk[] = {
    { 0, SIM_HOLD_WALK }, { 1, SIM_HOLD_WALK }, { 2, SIM_HOLD_WALK }, { 3, SIM_HOLD_WALK },
};
static const sim_hold idle[] = { { 4, SIM_HOLD_IDLE }, { 5, 13 } };

START_TEST(holds_are_the_seeds_ranges)
{
    ck_assert(SIM_HOLD_WALK >= 6 && SIM_HOLD_WALK <= 10);
    ck_assert(SIM_HOLD_IDLE >= 10 && SIM_HOLD_IDLE <= 30);
    ck_assert(SIM_HOLD_STRIKE >= 2 && SIM_HOLD_STRIKE <= 4);
    ck_assert(SIM_HOLD_RECOVER >= 6 && SIM_HOLD_RECOVER <= 12);
    ck_assert(SIM_HOLD_WINDUP > SIM_HOLD_RECOVER);            /* "wind-up long" */
}
END_TEST

/* The list expanded into one entry per tick, the obvious way. */
static int expanded(const sim_holds *a, uint64_t e)
{
    int seq[SIM_HOLDS_MAX * 255], n = 0;
    for (int i = 0; i < a->n; i++)
        for (int t = 0; t < a->hold[i].ticks; t++) seq[n++] = a->hold[i].frame;
    if (a->loop) return seq[e % (uint64_t)n];
    return e >= (uint64_t)n ? seq[n - 1] : seq[e];
}

START_TEST(frame_is_a_function_of_elapsed_alone)
{
    const sim_holds lists[] = { { strike, 4, 0 }, { walk, 4, 1 }, { idle, 2, 1 } };
    for (int l = 0; l < 3; l++) {
        ck_assert_int_eq(sim_holds_check(&lists[l]), 0);
        for (uint64_t e = 0; e < 500; e++)
            ck_assert_int_eq(sim_holds_frame(&lists[l], e), expanded(&lists[l], e));
        /* the same elapsed time from any start gives the same frame, however far the clock is */
        for (uint64_t start = 0; start < 5000000000ULL; start += 999999937ULL) {
            sim_clip c = { (uint8_t)l, start };
            for (uint64_t e = 0; e < 200; e += 7)
                ck_assert_int_eq(sim_clip_frame(&c, lists, start + e),
                                 sim_holds_frame(&lists[l], e));
        }
    }
    ck_assert_uint_eq(sim_holds_length(&lists[0]), SIM_HOLD_WINDUP + SIM_HOLD_STRIKE +
                                                       SIM_HOLD_RECOVER + 1);
}
END_TEST

START_TEST(one_shot_stays_on_last_loop_wraps)
{
    sim_holds s = { strike, 4, 0 }, w = { walk, 4, 1 };
    uint32_t n = sim_holds_length(&s);
    ck_assert(!sim_holds_done(&s, n - 1));
    ck_assert(sim_holds_done(&s, n));
    ck_assert_int_eq(sim_holds_frame(&s, n + 12345), 3);
    ck_assert_int_eq(sim_holds_index(&s, SIM_HOLD_WINDUP), 1);       /* the strike's first tick */
    ck_assert_int_eq(sim_holds_index(&s, SIM_HOLD_WINDUP - 1), 0);
    ck_assert(!sim_holds_done(&w, 1000000));
    ck_assert_int_eq(sim_holds_frame(&w, 4 * SIM_HOLD_WALK), 0);
    /* a clip asked about a tick before its start shows its first frame */
    sim_clip c = { 0, 100 };
    ck_assert_int_eq(sim_clip_frame(&c, &s, 50), 0);
}
END_TEST

START_TEST(bad_lists_refused)
{
    const sim_hold zero[] = { { 0, 1 }, { 1, 0 } };
    sim_holds a = { zero, 2, 1 };
    ck_assert_int_eq(sim_holds_check(&a), SIM_EINVAL);
    a = (sim_holds){ walk, 0, 1 };
    ck_assert_int_eq(sim_holds_check(&a), SIM_EINVAL);
    a = (sim_holds){ NULL, 1, 1 };
    ck_assert_int_eq(sim_holds_check(&a), SIM_EINVAL);
    a = (sim_holds){ walk, 4, 2 };
    ck_assert_int_eq(sim_holds_check(&a), SIM_EINVAL);
}
END_TEST

/* "Procedural layers updating on 2s or on 3s": a layer computed from its layer tick — here the
 * biped's breathing, whose value changes often — changes only on multiples of its period. */
START_TEST(on_threes_changes_every_third_tick_only)
{
    double phase = sim_breath_phase(7, 3);
    for (unsigned every = 1; every <= 4; every++) {
        int changes = 0, prev = sim_breath_dy(sim_layer_tick(0, every), 60, phase);
        for (uint64_t t = 1; t < 2000; t++) {
            int v = sim_breath_dy(sim_layer_tick(t, every), 60, phase);
            if (v != prev) {
                ck_assert_msg(t % every == 0, "layer on %us changed at tick %llu", every,
                              (unsigned long long)t);
                changes++;
            }
            prev = v;
        }
        ck_assert_int_gt(changes, 40);                 /* it does move: 33 periods, ~4 a period */
    }
    ck_assert_uint_eq(sim_layer_tick(11, 3), 9);
    ck_assert_uint_eq(sim_layer_tick(12, 3), 12);
    ck_assert_uint_eq(sim_layer_tick(11, 0), 11);
}
END_TEST

START_TEST(clip_save_load)
{
    sim_clip a = { 2, 123456789012ULL }, b = { 0, 0 };
    uint8_t buf[16];
    sim_writer w;
    sim__w_init(&w, buf, sizeof buf);
    sim_clip_save(&a, &w);
    ck_assert_uint_eq(w.len, 9);
    sim_reader r;
    sim__r_init(&r, buf, w.len);
    ck_assert_int_eq(sim_clip_load(&b, &r, 3, 123456789012ULL), 0);
    ck_assert(b.anim == 2 && b.start == 123456789012ULL);
    sim_clip c = { 1, 5 };
    sim__r_init(&r, buf, w.len);
    ck_assert_int_eq(sim_clip_load(&c, &r, 2, 200000000000ULL), SIM_ECORRUPT);   /* anim ≥ 2 */
    sim__r_init(&r, buf, w.len);
    ck_assert_int_eq(sim_clip_load(&c, &r, 3, 1000), SIM_ECORRUPT);      /* starts in the future */
    sim__r_init(&r, buf, w.len - 1);
    ck_assert_int_eq(sim_clip_load(&c, &r, 3, 200000000000ULL), SIM_ETRUNC);
    ck_assert(c.anim == 1 && c.start == 5);
}
END_TEST

Suite *suite_timing(void)
{
    Suite *s = suite_create("timing");
    TCase *tc = tcase_create("timing");
    tcase_add_test(tc, holds_are_the_seeds_ranges);
    tcase_add_test(tc, frame_is_a_function_of_elapsed_alone);
    tcase_add_test(tc, one_shot_stays_on_last_loop_wraps);
    tcase_add_test(tc, bad_lists_refused);
    tcase_add_test(tc, on_threes_changes_every_third_tick_only);
    tcase_add_test(tc, clip_save_load);
    suite_add_tcase(s, tc);
    return s;
}
