/* check_merge.c — the fruit-merge world (sim/merge/, seed 003): the merge and its guard, the 1.25
 * gift, the top tier, score and game over, drops (at the hand, by pointer, while juggling), the
 * autopilot, the carrier's lean in the world, the juggle with separate drop and catch times,
 * fruit that blink and glance on their own timers, rolling fruit, the cel-set hands and idle, the
 * picture, refused inputs and corrupt states. The carrier's arithmetic and the fruit's timers
 * have their own suite (check_merge_carrier.c), and so does the art (check_merge_art.c); the
 * golden chain and the sync test come from the kinds list (check_kinds.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "merge/merge_int.h"

static sim_world *mk(const char *params) { return script_world("merge", 7, params); }
static merge_world *impl(sim_world *w) { return sim__world_impl(w); }

static void run(sim_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++) sim_world_step(w);
}

static int input(sim_world *w, const char *name, int32_t arg)
{
    static uint32_t seq;
    sim_input in = { 0 };
    in.tick = sim_world_tick(w);
    in.client = 1;
    in.seq = ++seq;
    in.kind = (uint16_t)sim_kind_input_find(sim_world_kind(w), name);
    in.nargs = 1;
    in.args[0] = arg;
    return sim_world_input(w, &in);
}

/* Two fruit of `tier` side by side on the floor, touching (a hair of overlap). */
static void pair_on_floor(merge_world *m, int tier, double x)
{
    double r = sim__merge_desc[tier].r;
    ck_assert_int_ge(sim__merge_spawn(m, tier, x - r + 0.05, MERGE_FLOOR - r, 0, 0, 0, NULL), 0);
    ck_assert_int_ge(sim__merge_spawn(m, tier, x + r - 0.05, MERGE_FLOOR - r, 0, 0, 0, NULL), 0);
}

static int count_tier(const merge_world *m, int tier)
{
    int n = 0;
    for (int i = 0; i < m->nfruit; i++) n += m->fruit[i].desc->tier == tier;
    return n;
}

/* The physics and the pictures use one radius per tier: the descriptors' are the art's. */
START_TEST(descriptors_match_the_art)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        ck_assert(sim__merge_desc[t].tier == t);
        ck_assert(sim__merge_desc[t].r == (double)sim__merge_radius[t]);
        ck_assert(sim__merge_desc[t].m == sim__merge_desc[t].r * sim__merge_desc[t].r / 25.0);
        ck_assert_int_eq(sim__merge_desc[t].points, (t + 1) * (t + 2) / 2);
    }
}
END_TEST

/* ---- the merge ------------------------------------------------------------------------------- */
/* Two touching cherries both "receive the callback", and the guard makes it one merge: one
 * strawberry, its points, no cherry left. */
START_TEST(one_contact_one_merge)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    pair_on_floor(m, 0, 160.0);
    run(w, 1);
    ck_assert_int_eq(m->nfruit, 1);
    ck_assert_int_eq(count_tier(m, 1), 1);
    ck_assert_uint_eq(m->merges, 1);
    ck_assert_uint_eq(m->score, sim__merge_desc[1].points);
    sim_world_destroy(w);
}
END_TEST

/* Three cherries all touching: the first pair merges, and the third finds both partners queued
 * for deletion, so it stays a cherry: never a doubled pile. */
START_TEST(three_touching_make_one_merge)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    double r = sim__merge_desc[0].r, y = MERGE_FLOOR - r;
    sim__merge_spawn(m, 0, 150.0, y, 0, 0, 0, NULL);
    sim__merge_spawn(m, 0, 150.0 + 2 * r - 0.1, y, 0, 0, 0, NULL);
    sim__merge_spawn(m, 0, 150.0 + r, y - 1.6 * r, 0, 0, 0, NULL);
    /* The pair list as the solver writes it for three discs that all touch. */
    static const uint16_t all[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
    ck_assert_int_ge(m->v.cap_pair, 3);
    memcpy(m->v.pair, all, sizeof all);
    m->v.npair = 3;
    sim__merge_resolve(m, NULL);
    ck_assert_int_eq(m->nfruit, 2);
    ck_assert_int_eq(count_tier(m, 0), 1);
    ck_assert_int_eq(count_tier(m, 1), 1);
    ck_assert_uint_eq(m->merges, 1);
    sim_world_destroy(w);
}
END_TEST

/* Fruit b put back against fruit a, at rest (a contact the solver leaves exactly touching). */
static void touch(merge_world *m, int a, int b)
{
    sim_chunk *ca = &m->v.chunk[a], *cb = &m->v.chunk[b];
    ca->px = ca->x;
    ca->py = ca->y;
    cb->x = cb->px = ca->x + ca->r + cb->r - 0.05;
    cb->y = cb->py = ca->y;
}

/* A frozen fruit never merges, on either side of the contact; different kinds never merge. */
START_TEST(frozen_and_different_never_merge)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    pair_on_floor(m, 2, 130.0);
    m->fruit[1].frozen = 1;
    double r0 = sim__merge_desc[0].r, r1 = sim__merge_desc[1].r;
    sim__merge_spawn(m, 0, 190.0, MERGE_FLOOR - r0, 0, 0, 0, NULL);
    sim__merge_spawn(m, 1, 190.0 + r0 + r1 - 0.05, MERGE_FLOOR - r1, 0, 0, 0, NULL);
    for (int t = 0; t < 30; t++) {
        touch(m, 0, 1);
        touch(m, 2, 3);
        sim_world_step(w);
        ck_assert_int_eq(m->nfruit, 4);
    }
    ck_assert_uint_eq(m->merges, 0);
    m->fruit[1].frozen = 0;
    m->fruit[0].frozen = 1;
    for (int t = 0; t < 30; t++) {
        touch(m, 0, 1);
        sim_world_step(w);
    }
    ck_assert_uint_eq(m->merges, 0);
    m->fruit[0].frozen = 0;
    touch(m, 0, 1);
    run(w, 1);
    ck_assert_uint_eq(m->merges, 1);
    sim_world_destroy(w);
}
END_TEST

/* nextFruit.LinearVelocity = (v1 + v2) × 1.25 and AngularVelocity = (w1 + w2) × 1.25, exactly:
 * read straight after the merge, before any solver step moves it. */
START_TEST(merge_gift_is_1_25)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    double r = sim__merge_desc[3].r;
    sim__merge_spawn(m, 3, 140.0, 120.0, 1.5, -0.5, 0.02, NULL);
    sim__merge_spawn(m, 3, 140.0 + 2 * r - 0.5, 120.0, -0.25, 0.75, 0.05, NULL);
    sim_verlet_step(&m->v);
    double v[2][3];
    for (int i = 0; i < 2; i++) {
        const sim_chunk *c = &m->v.chunk[i];
        v[i][0] = c->x - c->px;
        v[i][1] = c->y - c->py;
        v[i][2] = c->w;
    }
    sim__merge_resolve(m, NULL);
    ck_assert_int_eq(m->nfruit, 1);
    const sim_chunk *c = &m->v.chunk[0];
    ck_assert_int_eq(m->fruit[0].desc->tier, 4);
    /* px = x − v, so x − px is v to within one rounding of x. */
    ck_assert_double_eq_tol(c->x - c->px, (v[0][0] + v[1][0]) * MERGE_GIFT, 1e-12);
    ck_assert_double_eq_tol(c->y - c->py, (v[0][1] + v[1][1]) * MERGE_GIFT, 1e-12);
    ck_assert(c->w == (v[0][2] + v[1][2]) * MERGE_GIFT);
    ck_assert(MERGE_GIFT == 1.25);
    sim_world_destroy(w);
}
END_TEST

/* Two of the top tier have nothing to become: both go, for their points. */
START_TEST(top_tier_pair_vanishes)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    pair_on_floor(m, MERGE_TIERS - 1, 160.0);
    run(w, 1);
    ck_assert_int_eq(m->nfruit, 0);
    ck_assert_uint_eq(m->score, 132);
    sim_world_destroy(w);
}
END_TEST

/* A chain: two cherries merge into a strawberry that touches another strawberry, which merge
 * again into a grape: the score is the sum of what was made. */
START_TEST(chain_of_merges_scores_each)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    double r = sim__merge_desc[0].r, y = MERGE_FLOOR - r;
    pair_on_floor(m, 0, 140.0);
    sim__merge_spawn(m, 1, 140.0, y - 11.8, 0, 0, 0, NULL);
    run(w, 1);
    ck_assert_int_eq(count_tier(m, 1), 2);
    run(w, 2);
    ck_assert_int_eq(m->nfruit, 1);
    ck_assert_int_eq(m->fruit[0].desc->tier, 2);
    ck_assert_uint_eq(m->merges, 2);
    ck_assert_uint_eq(m->score, sim__merge_desc[1].points + sim__merge_desc[2].points);
    sim_world_destroy(w);
}
END_TEST

/* ---- game over ------------------------------------------------------------------------------ */
/* Fruit kept above the line for 2 s end the game; then the container empties one fruit at a
 * time, the score goes to 0 (best keeps it) and play goes on. */
START_TEST(game_over_empties_and_goes_on)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    /* More fruit than the box holds, in a checkerboard of two tiers (no two alike side by side). */
    for (int row = 0; row < 6; row++)
        for (int col = 0; col < 3; col++)
            sim__merge_spawn(m, 6 + ((row + col) & 1), 115.0 + 45.0 * col,
                             MERGE_FLOOR - 20.0 - 42.0 * row, 0, 0, 0, NULL);
    m->score = 500;
    int over_at = -1;
    for (int t = 0; t < 600 && over_at < 0; t++) {
        sim_world_step(w);
        if (m->over) over_at = t;
    }
    ck_assert_int_ge(over_at, MERGE_SETTLE_TICKS);
    ck_assert_uint_eq(m->games, 1);
    ck_assert_uint_eq(m->best, 500);
    for (int i = 0; i < m->nfruit; i++) ck_assert(m->fruit[i].frozen);
    int n0 = m->nfruit;
    ck_assert_int_gt(n0, 0);
    ck_assert_int_eq(input(w, "drop", -1), 0);      /* no drop while it empties */
    run(w, MERGE_POP_TICKS * 2);
    ck_assert_int_lt(m->nfruit, n0);
    run(w, MERGE_POP_TICKS * (n0 + 2));
    ck_assert_int_eq(m->nfruit, 0);
    ck_assert_int_eq(m->over, 0);
    ck_assert_uint_eq(m->score, 0);
    ck_assert_uint_eq(m->best, 500);
    ck_assert_int_eq(input(w, "drop", -1), 0);
    run(w, 2);
    ck_assert_int_eq(m->nfruit, 1);
    sim_world_destroy(w);
}
END_TEST

/* ---- drops and the autopilot ---------------------------------------------------------------- */
/* A drop at the hand puts the held fruit in at the hand; the next one is juggled to the right
 * hand, and a new next appears; a drop asked for while juggling waits for the catch. */
START_TEST(drop_juggles_the_next_fruit)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    int held = m->held.tier, next = m->next.tier, up = m->upcoming;
    double hx, hy;
    sim__merge_held_pos(m, &hx, &hy);
    ck_assert_int_eq(input(w, "drop", -1), 0);
    run(w, 1);
    ck_assert_int_eq(m->nfruit, 1);
    ck_assert_int_eq(m->fruit[0].desc->tier, held);
    ck_assert_int_eq(m->held.tier, next);
    ck_assert_int_eq(m->next.tier, up);
    ck_assert_int_ne(m->car.juggle, 0);
    ck_assert_int_eq(input(w, "drop", -1), 0);
    run(w, 5);
    ck_assert_int_eq(m->nfruit, 1);                  /* waiting for the catch */
    ck_assert_int_eq(m->drop_pending, 1);
    run(w, 30);
    ck_assert_int_eq(m->nfruit, 2);
    sim_world_destroy(w);
}
END_TEST

/* A pointer drop walks there (leaning) and drops with the fruit over x. */
START_TEST(pointer_drop_walks_then_drops)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    ck_assert_int_eq(input(w, "drop", 210), 0);
    int leaned = 0;
    for (int t = 0; t < 180 && m->nfruit == 0; t++) {
        sim_world_step(w);
        if (m->car.head_angle < -8.0) leaned = 1;
    }
    ck_assert_int_eq(m->nfruit, 1);
    ck_assert(leaned);
    double x = m->v.chunk[0].x;
    ck_assert_msg(x > 206.0 && x < 214.0, "dropped at %f, asked for 210", x);
    sim_world_destroy(w);
}
END_TEST

/* With no input the autopilot starts after 5 s, and not before; a player input holds it off for
 * another 5 s; autopilot=0 never plays. */
START_TEST(autopilot_after_five_idle_seconds)
{
    sim_world *w = mk("scene=empty");
    merge_world *m = impl(w);
    run(w, MERGE_IDLE_TICKS - 1);
    ck_assert_int_eq(m->nfruit, 0);
    ck_assert_double_eq(m->car.x, (m->ccfg.xmin + m->ccfg.xmax) * 0.5);
    run(w, 20 * MERGE_HZ);
    ck_assert_int_ge(m->nfruit + (int)m->merges, 5);
    ck_assert_int_eq(input(w, "move", 0), 0);
    int n = m->nfruit + (int)m->merges;
    run(w, MERGE_IDLE_TICKS - 60);                  /* a juggle in flight may still land one */
    ck_assert_int_le(m->nfruit + (int)m->merges, n + 1);
    sim_world_destroy(w);
    w = mk("scene=empty,autopilot=0");
    m = impl(w);
    run(w, 30 * MERGE_HZ);
    ck_assert_int_eq(m->nfruit, 0);
    sim_world_destroy(w);
}
END_TEST

/* The demo plays itself for a minute: fruit pile up, merges happen, nothing leaves the box. */
START_TEST(demo_is_alive_for_a_minute)
{
    sim_world *w = mk(NULL);
    merge_world *m = impl(w);
    run(w, 60 * MERGE_HZ);
    ck_assert_uint_gt(m->merges, 3);
    ck_assert_uint_gt(m->score, 0);
    for (int i = 0; i < m->nfruit; i++) {
        const sim_chunk *c = &m->v.chunk[i];
        ck_assert(c->x - c->r > MERGE_X0 - 1.0 && c->x + c->r < MERGE_X1 + 1.0);
        ck_assert(c->y + c->r < MERGE_FLOOR + 1.0);
    }
    sim_world_destroy(w);
}
END_TEST

/* Bad arguments get the world's error and change nothing. */
START_TEST(bad_inputs_refused_and_change_nothing)
{
    sim_world *w = mk(NULL);
    run(w, 10);
    uint64_t h = sim_world_hash(w);
    ck_assert_int_eq(input(w, "drop", 40), SIM_EINPUT);
    ck_assert_ptr_nonnull(strstr(sim_world_error(w), "outside the container"));
    ck_assert_int_eq(input(w, "drop", 400), SIM_EINPUT);
    ck_assert_int_eq(input(w, "move", 2), SIM_EINPUT);
    ck_assert_int_eq(input(w, "move", -2), SIM_EINPUT);
    ck_assert_uint_eq(sim_world_hash(w), h);
    sim_world_destroy(w);
}
END_TEST

/* ---- the carrier in the world ---------------------------------------------------------------- */
/* Walking right, the head leans −12° (± the 2° wiggle) and the fruit +16°; the hat 0.9 × the head. */
START_TEST(carrier_leans_in_the_world)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    ck_assert_int_eq(input(w, "move", 1), 0);
    double x0 = m->car.x;
    run(w, 20);
    ck_assert(m->car.x > x0);
    ck_assert(m->car.head_angle >= -14.0 - 1e-9 && m->car.head_angle <= -10.0 + 1e-9);
    ck_assert(m->car.fruit_angle >= 14.0 - 1e-9 && m->car.fruit_angle <= 18.0 + 1e-9);
    ck_assert(m->car.hat_angle == m->car.head_angle * 0.9);
    sim_world_destroy(w);
}
END_TEST

/* drop_ms=250, catch_ms=500: the fruit is in the air for 0.75 s and lands exactly in the right
 * hand, never past it. */
START_TEST(juggle_with_a_slower_catch_lands_in_the_hand)
{
    sim_world *w = mk("scene=empty,autopilot=0,drop_ms=250,catch_ms=500");
    merge_world *m = impl(w);
    ck_assert_int_eq(input(w, "drop", -1), 0);
    run(w, 1);
    int air = 0;
    double right = m->car.x + MERGE_HAND_DX, maxx = -1e9;
    while (m->car.juggle && air < 200) {
        double x, y;
        sim__merge_held_pos(m, &x, &y);
        if (x > maxx) maxx = x;
        sim_world_step(w);
        air++;
    }
    ck_assert_int_ge(air, 44);
    ck_assert_int_le(air, 46);
    ck_assert_msg(maxx <= right + 1e-9, "the fruit went to x %f, past the hand at %f", maxx, right);
    double x, y;
    sim__merge_held_pos(m, &x, &y);
    ck_assert_double_eq_tol(x, right, 1e-9);
    sim_world_destroy(w);
}
END_TEST

/* The hands' poses come from the cel-set engine: a drop reinits their slots with other cel sets
 * (the behaviour kept), and with nothing happening the torso's idle cel set still breathes. */
START_TEST(hands_and_idle_on_the_cel_set_engine)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    const sim_anim_slot *left = &m->anim.slot[m->anim_slot[1]];
    const sim_anim_slot *right = &m->anim.slot[m->anim_slot[2]];
    const sim_anim_slot *body = &m->anim.slot[m->anim_slot[0]];
    run(w, 2);
    int l0 = left->celset_id, r0 = right->celset_id, beh = left->behaviour_id;
    ck_assert_int_ne(left->index, 0);
    ck_assert_int_ne(left->index, right->index);
    ck_assert_int_eq(input(w, "drop", -1), 0);
    int changed = 0;
    for (int t = 0; t < 20; t++) {
        sim_world_step(w);
        if (left->celset_id != l0 || right->celset_id != r0) changed = 1;
        ck_assert_int_eq(left->behaviour_id, beh);
    }
    ck_assert(changed);
    run(w, 60);
    ck_assert_int_eq(left->celset_id, l0);          /* idle again: closed */
    /* The breath: the torso shows both of its cels within 48 frames, and the frame changes. */
    sim_frame f1, f2;
    sim_world_frame_init(w, &f1);
    sim_world_frame_init(w, &f2);
    int seen[2] = { 0, 0 };
    sim_world_render(w, 0, &f1);
    int differs = 0;
    for (int t = 0; t < 48; t++) {
        sim_world_step(w);
        seen[body->cel & 1] = 1;
        sim_world_render(w, 0, &f2);
        if (memcmp(f1.px, f2.px, (size_t)f1.w * f1.h) != 0) differs = 1;
    }
    ck_assert(seen[0] && seen[1]);
    ck_assert(differs);
    sim_frame_free(&f1);
    sim_frame_free(&f2);
    sim_world_destroy(w);
}
END_TEST

/* ---- live fruit ------------------------------------------------------------------------------ */
/* Twenty fruit in the box, each with its own timers and stream: over 20 s their blinks and their
 * glances start at different ticks. */
START_TEST(twenty_fruit_blink_and_glance_on_their_own)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    for (int k = 0; k < 20; k++)
        sim__merge_spawn(m, k % 2 ? 3 : 4, 100.0 + (k % 5) * 26.0, 160.0 - (k / 5) * 26.0, 0, 0, 0,
                         NULL);
    ck_assert_int_eq(m->nfruit, 20);
    for (int i = 0; i < 20; i++) m->fruit[i].frozen = 1;     /* no merges: the same twenty */
    enum { T = 20 * MERGE_HZ };
    static uint8_t blink[20][T], look[20][T];
    uint8_t pb[20], pl[20];
    for (int i = 0; i < 20; i++) {
        pb[i] = m->fruit[i].life.blinking;
        pl[i] = m->fruit[i].life.look_flip;
    }
    for (int t = 0; t < T; t++) {
        sim_world_step(w);
        ck_assert_int_eq(m->nfruit, 20);
        for (int i = 0; i < 20; i++) {
            blink[i][t] = m->fruit[i].life.blinking && !pb[i];
            look[i][t] = m->fruit[i].life.look_flip != pl[i];
            pb[i] = m->fruit[i].life.blinking;
            pl[i] = m->fruit[i].life.look_flip;
        }
    }
    int blinks = 0, looks = 0, same_b = 0, same_l = 0;
    for (int i = 0; i < 20; i++)
        for (int t = 0; t < T; t++) {
            blinks += blink[i][t];
            looks += look[i][t];
        }
    ck_assert_int_gt(blinks, 40);
    ck_assert_int_gt(looks, 40);
    for (int i = 0; i < 20; i++)
        for (int j = i + 1; j < 20; j++)
            for (int t = 0; t < T; t++) {
                same_b += blink[i][t] && blink[j][t];
                same_l += look[i][t] && look[j][t];
            }
    /* A chorus would have every blink shared by all twenty; allow chance coincidences only. */
    ck_assert_int_lt(same_b, blinks / 4);
    ck_assert_int_lt(same_l, looks / 4);
    sim_world_destroy(w);
}
END_TEST

/* ---- rolling ---------------------------------------------------------------------------------- */
/* A fruit thrown along the floor rolls: its angle turns the way it travels. */
START_TEST(fruit_roll_along_the_floor)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    double r = sim__merge_desc[4].r;
    sim__merge_spawn(m, 4, 110.0, MERGE_FLOOR - r, 2.0, 0.0, 0.0, NULL);
    run(w, 30);
    const sim_chunk *c = &m->v.chunk[0];
    ck_assert(c->x > 120.0);
    ck_assert_msg(c->w > 0.0, "rolling right should turn clockwise (w %f)", c->w);
    double vx = c->x - c->px;
    ck_assert_double_eq_tol(vx, c->w * c->r, 0.05 * (vx > 0 ? vx : -vx) + 1e-3);
    sim_world_destroy(w);
}
END_TEST

/* ---- events ---------------------------------------------------------------------------------- */
/* The nth event named `name` of the last step, or NULL. */
static const sim_event *event_named(const sim_world *w, const char *name, int nth)
{
    const sim_event *ev;
    int n = sim_world_events(w, &ev, NULL);
    for (int i = 0; i < n; i++)
        if (strcmp(ev[i].name, name) == 0 && nth-- == 0)
            return &ev[i];
    return NULL;
}

/* The number in field `key` of e; the field must be there. */
static int64_t field(const sim_event *e, const char *key)
{
    for (int i = 0; i < e->nfields; i++)
        if (strcmp(e->f[i].key, key) == 0) {
            ck_assert_ptr_null(e->f[i].str);
            return e->f[i].num;
        }
    ck_assert_msg(0, "event %s has no field %s", e->name, key);
    return 0;
}

/* A merge says what merged, what it made, the points, the score after it and where: two grapes
 * side by side on the floor make one dekopon between them; two watermelons make nothing
 * (into −1) for 66 each. */
START_TEST(merge_events_say_what_merged)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    pair_on_floor(m, 2, 160.0);
    run(w, 1);
    const sim_event *e = event_named(w, "merge", 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_null(event_named(w, "merge", 1));             /* one contact, one event */
    ck_assert_uint_eq(e->tick, sim_world_tick(w) - 1);
    ck_assert_int_eq(field(e, "tier"), 2);
    ck_assert_int_eq(field(e, "into"), 3);
    ck_assert_int_eq(field(e, "points"), sim__merge_desc[3].points);
    ck_assert_int_eq(field(e, "score"), (int64_t)m->score);
    /* where the dekopon was born (merges come after the solver's step, so it is still there) */
    ck_assert_int_eq(field(e, "x"), sim_snap(m->v.chunk[0].x));
    ck_assert_int_eq(field(e, "y"), sim_snap(m->v.chunk[0].y));
    ck_assert(field(e, "x") >= 159 && field(e, "x") <= 161);
    run(w, 1);
    ck_assert_ptr_null(event_named(w, "merge", 0));             /* the next step has none */
    sim_world_destroy(w);
    w = mk("scene=empty,autopilot=0");
    m = impl(w);
    m->score = 10;
    pair_on_floor(m, MERGE_TIERS - 1, 160.0);
    run(w, 1);
    e = event_named(w, "merge", 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(field(e, "tier"), MERGE_TIERS - 1);
    ck_assert_int_eq(field(e, "into"), -1);
    ck_assert_int_eq(field(e, "points"), 132);
    ck_assert_int_eq(field(e, "score"), 142);
    sim_world_destroy(w);
}
END_TEST

/* The step that ends a game says so, with the game's score, the best, its merges and the games
 * ended; no other step does. */
START_TEST(game_over_event_has_the_score)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    for (int row = 0; row < 6; row++)
        for (int col = 0; col < 3; col++)
            sim__merge_spawn(m, 6 + ((row + col) & 1), 115.0 + 45.0 * col,
                             MERGE_FLOOR - 20.0 - 42.0 * row, 0, 0, 0, NULL);
    m->score = 500;
    m->best = 700;
    m->merges = 9;
    int events = 0;
    for (int t = 0; t < 600 && !m->over; t++) {
        sim_world_step(w);
        if (!m->over)
            ck_assert_ptr_null(event_named(w, "game_over", 0));
    }
    ck_assert_int_ne(m->over, 0);
    const sim_event *e = event_named(w, "game_over", 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(field(e, "score"), 500);
    ck_assert_int_eq(field(e, "best"), 700);
    ck_assert_int_eq(field(e, "merges"), 9);
    ck_assert_int_eq(field(e, "games"), 1);
    for (int t = 0; t < 600 && m->over; t++) {                   /* it empties: no second one */
        sim_world_step(w);
        events += event_named(w, "game_over", 0) != NULL;
    }
    ck_assert_int_eq(events, 0);
    sim_world_destroy(w);
}
END_TEST

/* A drop says which fruit went in and where; the toss's landing in the right hand is a catch of
 * the fruit now held, drop_ms + catch_ms later. */
START_TEST(drop_and_catch_events)
{
    sim_world *w = mk("scene=empty,autopilot=0");
    merge_world *m = impl(w);
    int held = m->held.tier, next = m->next.tier;
    ck_assert_int_eq(input(w, "drop", -1), 0);
    run(w, 1);
    const sim_event *e = event_named(w, "drop", 0);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(field(e, "tier"), held);
    ck_assert_int_eq(field(e, "x"), sim_snap(m->v.chunk[0].px));  /* where it left the hand */
    int caught = -1;
    for (int t = 1; t < 60 && caught < 0; t++) {
        sim_world_step(w);
        ck_assert_ptr_null(event_named(w, "drop", 0));
        if ((e = event_named(w, "catch", 0)) != NULL) {
            caught = t;
            ck_assert_int_eq(field(e, "tier"), next);
            ck_assert_int_eq(m->car.juggle, MERGE_JUGGLE_IDLE);
        }
    }
    /* 0.25 s + 0.25 s at 60 Hz: 30 steps, or 31 when fifteen sums of 1/60 fall short of 0.25 */
    ck_assert_msg(caught == 30 || caught == 31, "caught after %d steps", caught);
    sim_world_destroy(w);
}
END_TEST

/* ---- the picture ------------------------------------------------------------------------------ */
/* The frame is pixel art on the world's palette: many colours, every index in the palette, the
 * fruit drawn where the solver has them, and the walk changes the picture. */
START_TEST(picture_is_drawn)
{
    sim_world *w = mk(NULL);
    merge_world *m = impl(w);
    run(w, 120);
    sim_frame f;
    sim_world_frame_init(w, &f);
    sim_world_render(w, 0, &f);
    ck_assert_int_eq(f.w, MERGE_W);
    ck_assert_int_eq(f.h, MERGE_H);
    int used[256] = { 0 }, n = 0;
    for (int i = 0; i < f.w * f.h; i++) {
        ck_assert_int_lt(f.px[i], f.pal.count);
        if (!used[f.px[i]]++) n++;
    }
    ck_assert_int_ge(n, 16);
    /* Each fruit's centre pixel is not the backdrop's colour there: something is drawn on it. */
    sim_frame bare;
    sim_world_frame_init(w, &bare);
    sim__merge_draw_backdrop(&bare, &m->art, MERGE_X0, MERGE_X1, MERGE_TOP, MERGE_FLOOR, MERGE_LINE);
    int drawn = 0;
    for (int i = 0; i < m->nfruit; i++) {
        int x = (int)m->v.chunk[i].x, y = (int)m->v.chunk[i].y;
        drawn += f.px[y * f.w + x] != bare.px[y * f.w + x];
    }
    ck_assert_int_eq(drawn, m->nfruit);
    uint64_t h0 = sim_frame_hash(&f);
    ck_assert_int_eq(input(w, "move", 1), 0);
    run(w, 10);
    sim_world_render(w, 0, &f);
    ck_assert_uint_ne(sim_frame_hash(&f), h0);
    sim_world_render(w, 1, &f);                      /* the xray view draws too */
    ck_assert_uint_ne(sim_frame_hash(&f), h0);
    sim_frame_free(&f);
    sim_frame_free(&bare);
    sim_world_destroy(w);
}
END_TEST

/* ---- state ------------------------------------------------------------------------------------ */
/* A save loads back to the same hash; a fruit of a tier that does not exist, a solver that
 * disagrees with the fruit list, or a cut-short state are refused. */
START_TEST(corrupt_states_refused)
{
    sim_world *w = mk(NULL);
    run(w, 200);
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(w, buf, cap);
    ck_assert_uint_gt(n, 0);
    sim_world *v = mk("scene=empty");
    ck_assert_int_eq(sim_world_load(v, buf, n), 0);
    ck_assert_uint_eq(sim_world_hash(v), sim_world_hash(w));
    ck_assert_int_eq(sim_world_load(v, buf, n - 1), SIM_ETRUNC);
    /* Every byte flipped in turn: a load either refuses or gives a world that steps and renders. */
    ck_assert_int_gt(script_flip_bytes(v, buf, n, 7), 0);
    free(buf);
    sim_world_destroy(v);
    sim_world_destroy(w);
}
END_TEST

/* A desync report names what differs (its worlds are built without the art: bare 2), and a load
 * into a world keeps drawing (the art moves over from the world it replaces: adopt). */
START_TEST(diff_report_and_load_keep_drawing)
{
    sim_world *a = mk(NULL), *b = mk(NULL);
    run(a, 300);
    run(b, 300);
    merge_world *mb = impl(b);
    mb->score += 7;
    size_t cap = sim_world_save_max(a);
    uint8_t *sa = malloc(cap), *sb = malloc(cap);
    size_t na = sim_world_save(a, sa, cap), nb = sim_world_save(b, sb, cap);
    char out[2048];
    ck_assert_int_eq(sim_state_diff(sa, na, sb, nb, out, sizeof out, 20), 1);
    ck_assert_ptr_nonnull(strstr(out, "score"));
    ck_assert_int_eq(sim_state_diff(sa, na, sa, na, out, sizeof out, 20), 0);
    script_load_draws_alike(a, b, sa, na);                  /* twice: adopted art adopted again */
    free(sa);
    free(sb);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

Suite *suite_merge(void)
{
    Suite *s = suite_create("merge");
    TCase *t = tcase_create("merge");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, descriptors_match_the_art);
    tcase_add_test(t, one_contact_one_merge);
    tcase_add_test(t, three_touching_make_one_merge);
    tcase_add_test(t, frozen_and_different_never_merge);
    tcase_add_test(t, merge_gift_is_1_25);
    tcase_add_test(t, top_tier_pair_vanishes);
    tcase_add_test(t, chain_of_merges_scores_each);
    tcase_add_test(t, game_over_empties_and_goes_on);
    tcase_add_test(t, drop_juggles_the_next_fruit);
    tcase_add_test(t, pointer_drop_walks_then_drops);
    tcase_add_test(t, autopilot_after_five_idle_seconds);
    tcase_add_test(t, demo_is_alive_for_a_minute);
    tcase_add_test(t, bad_inputs_refused_and_change_nothing);
    tcase_add_test(t, carrier_leans_in_the_world);
    tcase_add_test(t, juggle_with_a_slower_catch_lands_in_the_hand);
    tcase_add_test(t, hands_and_idle_on_the_cel_set_engine);
    tcase_add_test(t, twenty_fruit_blink_and_glance_on_their_own);
    tcase_add_test(t, fruit_roll_along_the_floor);
    tcase_add_test(t, picture_is_drawn);
    tcase_add_test(t, merge_events_say_what_merged);
    tcase_add_test(t, game_over_event_has_the_score);
    tcase_add_test(t, drop_and_catch_events);
    tcase_add_test(t, corrupt_states_refused);
    tcase_add_test(t, diff_report_and_load_keep_drawing);
    suite_add_tcase(s, t);
    return s;
}
