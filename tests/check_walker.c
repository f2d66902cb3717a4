/* check_walker.c — sim/anim/walker.c (seed 000 §4, "Walk frames from one sprite, rule-based"): the
 * four frames against the rule, pixel by pixel, written here from the seed's sentences; flips; and
 * the refusals. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/walker.h"

enum { T = 0 };            /* the transparent index */
#define SW 12
#define SH 16
/* A side-view figure facing right: head, torso with an arm (ink 7) over it, legs from row 11;
 * every pixel of the legs distinct (ink 20 + n), so a shifted column shows where it went. */
static uint8_t spr[SH * SW];
static void fixture(void)
{
    static const char *rows[SH] = {
        "....1111....",
        "...155551...",
        "...155551...",
        "...155551...",
        "....1111....",
        "...133331...",
        "..13333331..",
        "..13377331..",
        "..13377331..",
        "..13377331..",
        "..13333331..",
        "...LLLLLL...",
        "...LL..LL...",
        "...LL..LL...",
        "...LL..LL...",
        "..LLL.LLL...",
    };
    int n = 0;
    for (int y = 0; y < SH; y++)
        for (int x = 0; x < SW; x++) {
            char ch = rows[y][x];
            spr[y * SW + x] = ch == '.' ? T : ch == 'L' ? (uint8_t)(20 + n++) : (uint8_t)(ch - '0');
        }
}
static const sim_sprite SPR = { SW, SH, spr, T };
#define HIP 11
#define MID 6
#define AX0 4
#define AX1 8
#define AY0 7
#define AY1 10

/* The rule, the plain way: the frame as a (SW + 2) × (SH + 1) canvas, sprite pixel (x, y) at
 * (x + 1, y + 1). legs: left columns (x < MID) move by ls, right by rs; the arm rectangle's
 * content by as (clamped reads inside the rectangle); rows above the hip up by `up`, the opened
 * row then holding the hip row. Painted body, opened row, then legs left to right. */
static void rule(uint8_t *out, int ls, int rs, int as, int up)
{
    int fw = SW + 2;
    memset(out, T, (size_t)fw * (SH + 1));
    for (int y = 0; y < HIP; y++)
        for (int x = 0; x < SW; x++) {
            int sx = x;
            if (as && y >= AY0 && y < AY1 && x >= AX0 && x < AX1) {
                sx = x - as;
                if (sx < AX0) sx = AX0;
                if (sx > AX1 - 1) sx = AX1 - 1;
            }
            uint8_t v = spr[y * SW + sx];
            if (v != T) out[(y + 1 - up) * fw + x + 1] = v;
        }
    if (up)
        for (int x = 0; x < SW; x++)
            if (spr[HIP * SW + x] != T) out[HIP * fw + x + 1] = spr[HIP * SW + x];
    for (int y = HIP; y < SH; y++)
        for (int x = 0; x < SW; x++) {
            uint8_t v = spr[y * SW + x];
            if (v != T) out[(y + 1) * fw + x + 1 + (x < MID ? ls : rs)] = v;
        }
}

static void bake(sim_walker *wk)
{
    fixture();
    sim_walker_spec sp = { &SPR, HIP, MID, AX0, AX1, AY0, AY1 };
    ck_assert_int_eq(sim_walker_bake(wk, &sp), 0);
}

/* "contact (legs spread: shift the left-leg columns −1 px and the right-leg columns +1 px),
 * passing (legs together, body +1 px up), contact mirrored, passing … Arms swing opposite the
 * legs by shifting arm pixels ±1 px." */
START_TEST(frames_follow_the_rule_pixel_by_pixel)
{
    static sim_walker wk;
    bake(&wk);
    ck_assert_int_eq(wk.w, SW + 2);
    ck_assert_int_eq(wk.h, SH + 1);
    const int r[4][4] = { { -1, +1, -1, 0 }, { 0, 0, 0, 1 }, { +1, -1, +1, 0 }, { 0, 0, 0, 1 } };
    uint8_t want[(SW + 2) * (SH + 1)];
    for (int k = 0; k < 4; k++) {
        rule(want, r[k][0], r[k][1], r[k][2], r[k][3]);
        sim_sprite s = sim_walker_frame(&wk, k);
        ck_assert_int_eq(s.w, SW + 2);
        ck_assert_int_eq(s.key, T);
        for (int i = 0; i < (SW + 2) * (SH + 1); i++)
            ck_assert_msg(s.px[i] == want[i], "frame %d pixel (%d,%d): %d, want %d", k,
                          i % (SW + 2), i / (SW + 2), s.px[i], want[i]);
    }
    /* spot checks of the rule itself: the left foot's first pixel went left, the body rose */
    sim_sprite c = sim_walker_frame(&wk, 0), p = sim_walker_frame(&wk, 1);
    ck_assert_int_eq(c.px[(SH - 1 + 1) * (SW + 2) + 2 + 1 - 1], spr[(SH - 1) * SW + 2]);
    ck_assert_int_eq(p.px[0 * (SW + 2) + 4 + 1], spr[0 * SW + 4]);     /* head top in row 0 */
    ck_assert_int_eq(c.px[0 * (SW + 2) + 4 + 1], T);                  /* row 0 empty at contact */
    /* frames 1 and 3 are the same passing pose; 0 and 2 differ */
    ck_assert(memcmp(wk.px[1], wk.px[3], sizeof wk.px[1]) == 0);
    ck_assert(memcmp(wk.px[0], wk.px[2], sizeof wk.px[0]) != 0);
    /* no colour that the sprite lacks */
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < (SW + 2) * (SH + 1); i++) {
            int found = wk.px[k][i] == T;
            for (int j = 0; j < SW * SH && !found; j++) found = spr[j] == wk.px[k][i];
            ck_assert(found);
        }
}
END_TEST

/* "Left and right are free (flip)": drawn facing left, a frame is the mirror of facing right. */
START_TEST(left_is_the_flip)
{
    static sim_walker wk;
    bake(&wk);
    sim_frame a, b;
    ck_assert_int_eq(sim_frame_init(&a, 40, 30), 0);
    ck_assert_int_eq(sim_frame_init(&b, 40, 30), 0);
    for (int k = 0; k < 4; k++) {
        sim_raster_clear(&a, 99);
        sim_raster_clear(&b, 99);
        sim_walker_draw(&wk, k, &a, 10, 5, 1);
        sim_walker_draw(&wk, k, &b, 10, 5, -1);
        /* the frame spans x 9 .. 9 + SW + 1: mirror about its centre */
        for (int y = 0; y < 30; y++)
            for (int x = 9; x < 9 + SW + 2; x++)
                ck_assert_int_eq(a.px[y * 40 + x], b.px[y * 40 + (9 + 9 + SW + 1 - x)]);
    }
    /* the body's pixel (4, 0) is drawn at (10 + 4, 5 + 0) in a contact frame */
    sim_raster_clear(&a, 99);
    sim_walker_draw(&wk, 0, &a, 10, 5, 1);
    ck_assert_int_eq(a.px[(5 + 0) * 40 + 10 + 4], spr[4]);
    sim_frame_free(&a);
    sim_frame_free(&b);
}
END_TEST

START_TEST(refusals)
{
    static sim_walker wk;
    fixture();
    sim_walker_spec sp = { &SPR, HIP, MID, AX0, AX1, AY0, AY1 };
    sim_walker_spec bad = sp;
    bad.hip = 0;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    bad = sp;
    bad.mid = SW;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    bad = sp;
    bad.arm_y1 = HIP + 1;                               /* an arm in the legs */
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    sim_sprite big = { 25, 16, spr, T }, small = { 7, 16, spr, T }, nokey = { SW, SH, spr, -1 };
    bad = sp;
    bad.sprite = &big;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    bad.sprite = &small;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    bad.sprite = &nokey;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), SIM_EINVAL);
    ck_assert_int_eq(wk.w, 0);
    /* no arm at all is fine: the arm's rule is then nothing */
    bad = sp;
    bad.arm_x0 = bad.arm_x1 = 0;
    ck_assert_int_eq(sim_walker_bake(&wk, &bad), 0);
}
END_TEST

Suite *suite_walker(void)
{
    Suite *s = suite_create("walker");
    TCase *tc = tcase_create("walker");
    tcase_add_test(tc, frames_follow_the_rule_pixel_by_pixel);
    tcase_add_test(tc, left_is_the_flip);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}
