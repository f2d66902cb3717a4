/* check_biped.c — sim/anim/biped.c (seed 000 §1 "Parametric biped walk cycle", §3 "Secondary
 * motion", "Idle and breathing"): planted feet never slide, the phase follows distance and not
 * time, the body bobs twice a cycle and leans with speed, breathing phases differ between creatures
 * and move only the upper slice, the hair is pinned, shaped and inked by state, and the state
 * saves, loads and continues bit for bit while a corrupt blob is refused. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "anim/biped.h"
#include "check_blob.h"

#define GROUND 100.0

static sim_biped_cfg cfg0(void) { return sim_biped_cfg_default(); }

static void mk(sim_biped *b, const sim_biped_cfg *c, uint64_t seed, uint64_t id)
{
    ck_assert_int_eq(sim_biped_init(b, c, 50.0, GROUND, 1, seed, id), 0);
}

START_TEST(defaults_are_the_seeds)
{
    sim_biped_cfg c = cfg0();
    ck_assert_int_eq(sim_biped_cfg_check(&c), 0);
    ck_assert(c.poses == 4 || c.poses == 6 || c.poses == 8);
    ck_assert(c.breath_period >= 60 && c.breath_period <= 120);
    ck_assert(c.hair.nodes >= 4 && c.hair.nodes <= 6);
    ck_assert(c.hair.iters >= 2 && c.hair.iters <= 4);
    ck_assert(SIM_BREATH_AMP == 1.0);
    sim_biped_cfg bad = c;
    bad.poses = 5;
    ck_assert_int_eq(sim_biped_cfg_check(&bad), SIM_EINVAL);
    bad = c;
    bad.lift = 0.5;                 /* round(0.5 × sin 45°) = 0: a swing that never lifts */
    ck_assert_int_eq(sim_biped_cfg_check(&bad), SIM_EINVAL);
    bad = c;
    bad.breath_period = 59;
    ck_assert_int_eq(sim_biped_cfg_check(&bad), SIM_EINVAL);
    bad = c;
    bad.hair.nodes = 7;
    ck_assert_int_eq(sim_biped_cfg_check(&bad), SIM_EINVAL);
    bad = c;
    bad.hair.iters = 1;
    ck_assert_int_eq(sim_biped_cfg_check(&bad), SIM_EINVAL);
    sim_biped b;
    ck_assert_int_eq(sim_biped_init(&b, &bad, 0, 0, 1, 0, 0), SIM_EINVAL);
    ck_assert_int_eq(sim_biped_init(&b, &c, NAN, 0, 1, 0, 0), SIM_EINVAL);
}
END_TEST

/* "Tie it to distance, not time, so feet don't skate": over a long walk with changes of speed,
 * stops and turns, in every pose count, a foot whose lift is 0 stays on the same world pixel
 * (and holds the same world x, exactly) for as long as its lift stays 0; a lifted foot is never
 * planted, and a foot does travel with the body. */
START_TEST(planted_feet_do_not_slide)
{
    const int poses[] = { 4, 6, 8 };
    for (int pi = 0; pi < 3; pi++) {
        sim_biped_cfg c = cfg0();
        c.poses = poses[pi];
        c.lift = 2.0;
        ck_assert_int_eq(sim_biped_cfg_check(&c), 0);
        sim_biped b;
        mk(&b, &c, 1, 2);
        sim_rng rng;
        sim_rng_stream(&rng, 99 + (uint64_t)pi, "biped-walk");
        sim_biped_pose prev, p;
        sim_biped_pose_at(&b, &c, 0, &prev);
        double prev_plant[2] = { b.plant_x[0], b.plant_x[1] };
        double dx = 0.25;
        int planted_ticks = 0, lifts = 0;
        for (uint64_t t = 1; t < 6000; t++) {
            if (t % 150 == 0) {       /* a new pace: stop, slow, brisk, either way */
                int r = (int)sim_rng_below(&rng, 6);
                const double pace[6] = { 0.0, 0.25, 0.5, -0.25, -0.5, 0.375 };
                dx = pace[r];
            }
            sim_biped_step(&b, &c, dx, t, 0.0);
            sim_biped_pose_at(&b, &c, t, &p);
            for (int j = 0; j < 2; j++) {
                ck_assert_int_eq(p.lift[j] == 0, b.planted[j]);
                if (p.lift[j] == 0 && prev.lift[j] == 0) {
                    ck_assert_int_eq(p.foot_x[j], prev.foot_x[j]);
                    ck_assert(b.plant_x[j] == prev_plant[j]);
                    planted_ticks++;
                }
                if (p.lift[j] > 0 && prev.lift[j] == 0) lifts++;
                ck_assert_int_eq(p.foot_y[j], (int)GROUND - 1 - p.lift[j]);
                prev_plant[j] = b.plant_x[j];
            }
            prev = p;
        }
        ck_assert_int_gt(planted_ticks, 3000);
        ck_assert_int_gt(lifts, 50);
    }
}
END_TEST

/* The walk advances with distance only: two bipeds that covered the same distance at different
 * speeds strike the same pose, and one standing still for a long time keeps its pose. */
START_TEST(phase_follows_distance_not_time)
{
    sim_biped_cfg c = cfg0();
    sim_biped a, b;
    mk(&a, &c, 1, 1);
    mk(&b, &c, 1, 1);
    for (uint64_t t = 0; t < 400; t++) sim_biped_step(&a, &c, 0.25, t, 0.0);
    for (uint64_t t = 0; t < 200; t++) sim_biped_step(&b, &c, 0.5, t, 0.0);
    ck_assert(a.x == b.x && a.dist == b.dist);
    sim_biped_pose pa, pb;
    sim_biped_pose_at(&a, &c, 400, &pa);
    sim_biped_pose_at(&b, &c, 400, &pb);
    ck_assert_int_eq(pa.k, pb.k);
    for (int j = 0; j < 2; j++) {
        ck_assert_int_eq(pa.foot_x[j], pb.foot_x[j]);
        ck_assert_int_eq(pa.lift[j], pb.lift[j]);
    }
    /* the pose changes every stride/poses px: 1.5 px, i.e. 6 ticks at 0.25 px a tick */
    int changes = 0, k = pa.k;
    for (uint64_t t = 400; t < 400 + 96; t++) {
        sim_biped_step(&a, &c, 0.25, t, 0.0);
        sim_biped_pose_at(&a, &c, t, &pa);
        if (pa.k != k) changes++;
        k = pa.k;
    }
    ck_assert_int_eq(changes, 16);
    /* standing: settles both feet down, then the pose never changes */
    for (uint64_t t = 500; t < 600; t++) sim_biped_step(&a, &c, 0.0, t, 0.0);
    ck_assert(a.planted[0] && a.planted[1]);
    sim_biped_pose_at(&a, &c, 600, &pa);
    for (uint64_t t = 600; t < 3000; t++) {
        sim_biped_step(&a, &c, 0.0, t, 0.0);
        sim_biped_pose_at(&a, &c, t, &pb);
        ck_assert_int_eq(pb.k, pa.k);
    }
}
END_TEST

/* "Body bob = |sin(2πφ)|-shaped, two bobs per cycle, 1 px"; "lean = speed × k". */
START_TEST(bob_twice_a_cycle_lean_with_speed)
{
    const int poses[] = { 4, 6, 8 };
    for (int pi = 0; pi < 3; pi++) {
        sim_biped_cfg c = cfg0();
        c.poses = poses[pi];
        sim_biped b;
        mk(&b, &c, 3, 3);
        int ups = 0, prev = 0, seen[8] = { 0 };
        for (uint64_t t = 0; t < 48; t++) {          /* one cycle: 12 px at 0.25 */
            sim_biped_step(&b, &c, 0.25, t, 0.0);
            sim_biped_pose p;
            sim_biped_pose_at(&b, &c, t, &p);
            ck_assert(p.bob == 0 || p.bob == 1);
            ck_assert_int_eq(p.bob, !(p.k == 0 || 2 * p.k == c.poses));   /* down at contact */
            ck_assert_int_eq(p.hip_y, (int)GROUND - 1 - c.hip_h - p.bob);
            if (p.bob && !prev) ups++;
            prev = p.bob;
            ck_assert_int_lt(p.k, c.poses);
            seen[p.k] = 1;
        }
        ck_assert_int_eq(ups, 2);
        for (int k = 0; k < c.poses; k++) ck_assert(seen[k]);
    }
    sim_biped_cfg c = cfg0();
    sim_biped b;
    mk(&b, &c, 3, 3);
    const double v[] = { 0.5, -0.5, 0.1, 2.0, -2.0, 0.0 };
    const int want[] = { 1, -1, 0, 1, -1, 0 };
    for (int i = 0; i < 6; i++) {
        sim_biped_step(&b, &c, v[i], 10, 0.0);
        sim_biped_pose p;
        sim_biped_pose_at(&b, &c, 10, &p);
        ck_assert_int_eq(p.lean, want[i]);
    }
}
END_TEST

/* "Seed a phase per NPC so crowds don't breathe in sync". */
START_TEST(breathing_phases_differ_between_creatures)
{
    sim_biped_cfg c = cfg0();
    enum { K = 16 };
    double ph[K];
    int first_in[K];
    for (int i = 0; i < K; i++) {
        sim_biped b;
        mk(&b, &c, 1000 + (uint64_t)i, 0);               /* different seeds, same id */
        ph[i] = b.breath_phase;
        ck_assert(ph[i] >= 0.0 && ph[i] < 2.0 * SIM_PI);
        first_in[i] = -1;
        for (int t = 0; t < c.breath_period && first_in[i] < 0; t++) {
            sim_biped_pose p;
            sim_biped_pose_at(&b, &c, (uint64_t)t, &p);
            ck_assert(p.breath >= -1 && p.breath <= 1);
            if (p.breath < 0 && t > 0) {
                sim_biped_pose q;
                sim_biped_pose_at(&b, &c, (uint64_t)t - 1, &q);
                if (q.breath >= 0) first_in[i] = t;
            }
        }
        for (int j = 0; j < i; j++) ck_assert(ph[i] != ph[j]);
    }
    int distinct = 0;
    for (int i = 0; i < K; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= first_in[j] == first_in[i];
        distinct += !dup;
    }
    ck_assert_int_ge(distinct, 10);                      /* 16 creatures, not one chorus */
    /* different ids of one seed differ too; the same (seed, id) is the same phase */
    ck_assert(sim_breath_phase(5, 1) != sim_breath_phase(5, 2));
    ck_assert(sim_breath_phase(5, 1) == sim_breath_phase(5, 1));
    /* "dy = round(A × sin(2π × tick / P + phase))" with A = 1 */
    for (uint64_t t = 0; t < 300; t++)
        ck_assert_int_eq(sim_breath_dy(t, 90, 0.7),
                         (int)floor(sin(2.0 * SIM_PI * (double)(t % 90) / 90.0 + 0.7) + 0.5));
}
END_TEST

/* Breathing is for idle creatures, and moves only the upper slice of the sprite. */
static const uint8_t BODY[11 * 9] = {
    0, 0, 1, 1, 1, 1, 1, 0, 0,
    0, 1, 5, 5, 5, 5, 5, 1, 0,
    0, 1, 5, 5, 5, 5, 1, 1, 0,
    0, 1, 5, 5, 5, 5, 5, 1, 0,
    0, 0, 1, 5, 5, 5, 1, 1, 0,
    0, 0, 1, 6, 6, 6, 1, 0, 0,
    0, 1, 6, 6, 6, 6, 6, 1, 0,
    0, 1, 6, 6, 7, 6, 6, 1, 0,
    0, 1, 6, 6, 7, 6, 6, 1, 0,
    0, 1, 6, 6, 6, 6, 6, 1, 0,
    0, 0, 1, 1, 1, 1, 1, 0, 0,
};
static const sim_sprite BODY_SPR = { 9, 11, BODY, 0 };
static sim_biped_look look0(void)
{
    return (sim_biped_look){ &BODY_SPR, 4, 10, 7, 5, 1, 8, 1, { 2, 3, 4, 2 }, 1 };
}

START_TEST(breathing_moves_the_upper_slice_only_when_idle)
{
    enum { W = 100, H = 110, BG = 9 };
    sim_biped_cfg c = cfg0();
    sim_biped_look lk = look0();
    sim_biped b;
    mk(&b, &c, 11, 0);
    sim_biped_pose p;
    sim_biped_pose_at(&b, &c, 0, &p);
    ck_assert(sim_biped_idle(&b));
    /* the ticks of the three breaths */
    int64_t at[3] = { -1, -1, -1 };
    for (int t = 0; t < c.breath_period; t++) {
        sim_biped_pose_at(&b, &c, (uint64_t)t, &p);
        if (at[p.breath + 1] < 0) at[p.breath + 1] = t;
    }
    ck_assert(at[0] >= 0 && at[1] >= 0 && at[2] >= 0);
    sim_frame f[3];
    sim_biped nohair = b;
    nohair.hair.n = 0;                                   /* the body alone */
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(sim_frame_init(&f[i], W, H), 0);
        sim_raster_clear(&f[i], BG);
        sim_biped_draw(&nohair, &c, &lk, (uint64_t)at[i], &f[i]);
    }
    sim_biped_pose_at(&b, &c, 0, &p);
    int split = p.hip_y - lk.hip_row + lk.breath_row;    /* the first row of the lower slice */
    /* rows below the slice never change; the slice's own rows do; breathing out (dy = +1) the
     * slice's last row comes down over the first row below it (the chest sinks), and breathing
     * in (dy = −1) that row stays and fills the row the slice opened (the chest grows) */
    int upper_differs = 0;
    for (int y = 0; y < H; y++) {
        int same = !memcmp(f[0].px + y * W, f[1].px + y * W, W) &&
                   !memcmp(f[1].px + y * W, f[2].px + y * W, W);
        if (y > split) ck_assert_msg(same, "row %d below the slice moved", y);
        if (y < split) upper_differs |= !same;
    }
    ck_assert(upper_differs);
    ck_assert(!memcmp(f[0].px + split * W, f[1].px + split * W, W));
    for (int x = 0; x < W; x++) {
        uint8_t last = f[1].px[(split - 1) * W + x], below = f[1].px[split * W + x];
        ck_assert_int_eq(f[2].px[split * W + x], last != BG ? last : below);
        if (last != BG) ck_assert_int_eq(f[0].px[(split - 1) * W + x], last);
    }
    /* walking: no breathing */
    sim_biped_step(&b, &c, 0.25, 1, 0.0);
    for (uint64_t t = 0; t < 200; t++) {
        sim_biped_pose_at(&b, &c, t, &p);
        ck_assert_int_eq(p.breath, 0);
    }
    for (int i = 0; i < 3; i++) sim_frame_free(&f[i]);
}
END_TEST

/* "Root pinned to an anchor on the sprite per frame"; "largest near the root"; the hair trails
 * behind a walker and hangs at rest; its ink is the state's, and only the hair changes with it. */
START_TEST(hair_pinned_tapered_and_inked_by_state)
{
    sim_biped_cfg c = cfg0();
    for (int n = SIM_HAIR_MIN; n <= SIM_HAIR_MAX; n++) {
        ck_assert_int_eq(sim_hair_block(n, 0), 3);
        ck_assert_int_eq(sim_hair_block(n, n - 1), 1);
        for (int i = 1; i < n; i++) ck_assert_int_le(sim_hair_block(n, i), sim_hair_block(n, i - 1));
    }
    sim_biped b;
    mk(&b, &c, 4, 4);
    sim_biped_pose p;
    for (uint64_t t = 1; t < 200; t++) {
        sim_biped_step(&b, &c, 0.5, t, 0.0);
        sim_biped_pose_at(&b, &c, t, &p);
        ck_assert(b.hair.x[0] == p.hair_x && b.hair.y[0] == p.hair_y);
    }
    ck_assert_double_lt(b.hair.x[b.hair.n - 1], b.hair.x[0] - 1.0);   /* trails behind, right-facing */
    sim_biped walking = b;
    for (uint64_t t = 200; t < 500; t++) sim_biped_step(&b, &c, 0.0, t, 0.0);
    ck_assert_double_gt(b.hair.y[b.hair.n - 1], b.hair.y[0] + 2.0);   /* hangs down at rest, */
    ck_assert_double_lt(b.hair.x[b.hair.n - 1], b.hair.x[0] - 1.0);   /* draped behind */
    for (int i = 1; i < b.hair.n; i++)                                /* links about their length */
        ck_assert_double_eq_tol(hypot(b.hair.x[i] - b.hair.x[i - 1], b.hair.y[i] - b.hair.y[i - 1]),
                                c.hair.link, 0.25);
    /* the state swaps the hair's ink and nothing else */
    enum { W = 220, H = 110, BG = 9 };       /* it walked to x = 150 */
    sim_biped_look lk = look0();
    sim_frame f0, f1;
    ck_assert_int_eq(sim_frame_init(&f0, W, H), 0);
    ck_assert_int_eq(sim_frame_init(&f1, W, H), 0);
    for (int pass = 0; pass < 2; pass++) {          /* walking, then at rest */
        sim_biped *d = pass ? &b : &walking;
        sim_raster_clear(&f0, BG);
        sim_raster_clear(&f1, BG);
        d->state = 0;
        sim_biped_draw(d, &c, &lk, 500, &f0);
        d->state = 1;
        sim_biped_draw(d, &c, &lk, 500, &f1);
        int changed = 0;
        for (int i = 0; i < W * H; i++) {
            if (f0.px[i] == f1.px[i]) {
                ck_assert(f0.px[i] != lk.hair_ink[0]);
                continue;
            }
            ck_assert_int_eq(f0.px[i], lk.hair_ink[0]);
            ck_assert_int_eq(f1.px[i], lk.hair_ink[1]);
            changed++;
        }
        ck_assert_int_gt(changed, 3);                /* the hair shows, behind the body */
    }
    sim_frame_free(&f0);
    sim_frame_free(&f1);
}
END_TEST

static double pace(uint64_t t)
{
    const double p[] = { 0.25, 0.5, 0.0, -0.375, 0.0, 0.125 };
    return p[(t / 37) % 6];
}
static sim_biped_cfg CFG;           /* the configuration the blob helpers step and load with */
static void bp_save(const void *o, sim_writer *w) { sim_biped_save(o, w); }
static int bp_load(void *o, sim_reader *r) { return sim_biped_load(o, &CFG, r); }
static void bp_step(void *o, uint64_t t) { sim_biped_step(o, &CFG, pace(t), t, 0.02); }
static const blob_piece BIPED = { sizeof(sim_biped), bp_save, bp_load, bp_step };

START_TEST(save_load_continue)
{
    CFG = cfg0();
    sim_biped a, b;
    mk(&a, &CFG, 8, 8);
    static uint8_t buf[BLOB_MAX];
    ck_assert_uint_le(blob_save(&BIPED, &a, buf, sizeof buf), sim_biped_save_max());
    blob_sync(&BIPED, &a, &b, 400, 3);
}
END_TEST

START_TEST(corrupt_refused_untouched)
{
    CFG = cfg0();
    sim_biped a, b;
    mk(&a, &CFG, 8, 8);
    for (uint64_t t = 1; t < 20; t++) sim_biped_step(&a, &CFG, 0.25, t, 0.0);
    mk(&b, &CFG, 9, 9);
    static uint8_t good[BLOB_MAX];
    size_t n = blob_save(&BIPED, &a, good, sizeof good);
    /* offsets: x 0, ground 8, dist 16, speed 24, facing 32, planted 33 34, plant_x 35 43,
     * state 51, breath 52, hair n 60, nodes from 61 */
    const blob_poke pokes[] = {
        { 16, 12.0, 0 },           /* dist = stride: out of [0, stride) */
        { 16, -0.5, 0 },
        { 24, 13.0, 0 },           /* speed beyond a stride a tick */
        { 32, 0, 1 },              /* facing 0 */
        { 33, 2, 1 },              /* planted 2 */
        { 34, 0, 1 },              /* a stance foot marked lifted */
        { 51, SIM_BIPED_STATES, 1 },
        { 52, 7.0, 0 },            /* breath phase ≥ 2π */
        { 60, 4, 1 },              /* hair node count not cfg's */
        { 61 + 16, 1.0, 0 },       /* hair root's px ≠ x: a pinned root has no velocity */
        { 0, 2e6, 0 },             /* x beyond the bound */
    };
    blob_refusals(&BIPED, &b, good, n, pokes, sizeof pokes / sizeof pokes[0]);
}
END_TEST

Suite *suite_biped(void)
{
    Suite *s = suite_create("biped");
    TCase *tc = tcase_create("biped");
    tcase_add_test(tc, defaults_are_the_seeds);
    tcase_add_test(tc, planted_feet_do_not_slide);
    tcase_add_test(tc, phase_follows_distance_not_time);
    tcase_add_test(tc, bob_twice_a_cycle_lean_with_speed);
    tcase_add_test(tc, breathing_phases_differ_between_creatures);
    tcase_add_test(tc, breathing_moves_the_upper_slice_only_when_idle);
    tcase_add_test(tc, hair_pinned_tapered_and_inked_by_state);
    tcase_add_test(tc, save_load_continue);
    tcase_add_test(tc, corrupt_refused_untouched);
    suite_add_tcase(s, tc);
    return s;
}
