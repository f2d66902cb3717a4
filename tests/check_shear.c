/* check_shear.c — sim/anim/shear.c, rotation by three shears (seed 000 §2): the rotated image is a
 * permutation of the sprite's pixels (every colour's count kept, nothing new), quarter turns are
 * exact, θ then −θ gives the sprite back bit for bit, a bar turns the way the angle says, and
 * the refusals. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/shear.h"

enum { T = 0 };
#define W 13
#define H 9
static uint8_t spr[W * H];
/* A lopsided shape with several inks, so a wrong turn or a lost pixel shows. */
static sim_sprite fixture(void)
{
    static const char *rows[H] = {
        ".............",
        "..1111111....",
        "..1222221....",
        "..1233321..4.",
        "..1233321.44.",
        "..1222221....",
        "..1111111....",
        "....55.......",
        "....5........",
    };
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) spr[y * W + x] = rows[y][x] == '.' ? T : (uint8_t)(rows[y][x] - '0');
    return (sim_sprite){ W, H, spr, T };
}

static void counts(const uint8_t *px, int n, int c[256])
{
    memset(c, 0, 256 * sizeof c[0]);
    for (int i = 0; i < n; i++) c[px[i]]++;
}

/* Every angle: the opaque pixels of the result are those of the sprite, colour by colour. */
START_TEST(rotation_is_a_permutation_of_the_pixels)
{
    sim_sprite s = fixture();
    int c0[256], c1[256];
    counts(spr, W * H, c0);
    enum { D = 24 };
    uint8_t out[D * D];
    for (int k = -40; k <= 40; k++) {
        double a = k * (SIM_PI / 20.0);                          /* −360°..360° in 9° steps */
        ck_assert_int_eq(sim_shear_rotate(out, D, D, &s, a), 0);
        counts(out, D * D, c1);
        for (int v = 1; v < 256; v++) ck_assert_int_eq(c1[v], c0[v]);
    }
}
END_TEST

/* A quarter turn is the exact turn of the grid: pixel (x, y) from the pivot goes to (−y, x). */
START_TEST(quarter_turns_are_exact)
{
    sim_sprite s = fixture();
    enum { D = 21 };
    uint8_t out[D * D];
    for (int q = 0; q < 4; q++) {
        ck_assert_int_eq(sim_shear_rotate(out, D, D, &s, q * SIM_PI / 2.0), 0);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int u = x - W / 2, v = y - H / 2, t;
                for (int r = 0; r < q; r++) {
                    t = u;
                    u = -v;
                    v = t;
                }
                ck_assert_int_eq(out[(D / 2 + v) * D + D / 2 + u], spr[y * W + x]);
            }
    }
}
END_TEST

/* The shears of −θ undo those of θ: rotating there and back is the identity, bit for bit. */
START_TEST(there_and_back_is_the_identity)
{
    sim_sprite s = fixture();
    enum { D = 24 };
    uint8_t out[D * D], back[W * H];
    for (int k = -45; k <= 45; k += 3) {
        double a = k * SIM_PI / 180.0;
        ck_assert_int_eq(sim_shear_rotate(out, D, D, &s, a), 0);
        sim_sprite r = { D, D, out, T };
        ck_assert_int_eq(sim_shear_rotate(back, W, H, &r, -a), 0);
        ck_assert_mem_eq(back, spr, sizeof spr);
    }
}
END_TEST

/* A horizontal bar turned 30° clockwise on screen: its right end goes down, its left end up, and
 * every pixel lies within a pixel of the turned line. */
START_TEST(bar_turns_clockwise)
{
    enum { BW = 21, D = 25 };
    uint8_t bar[BW], out[D * D];
    memset(bar, 7, sizeof bar);
    sim_sprite s = { BW, 1, bar, T };
    double a = SIM_PI / 6.0;
    ck_assert_int_eq(sim_shear_rotate(out, D, D, &s, a), 0);
    int n = 0;
    for (int y = 0; y < D; y++)
        for (int x = 0; x < D; x++) {
            if (out[y * D + x] != 7) continue;
            n++;
            double u = x - D / 2, v = y - D / 2;
            /* distance from the line through the pivot at 30° below +x */
            double d = -u * sim_sin(a) + v * sim_cos(a);
            ck_assert(d > -1.5 && d < 1.5);
            if (u > 5) ck_assert_int_gt(v, 0);
            if (u < -5) ck_assert_int_lt(v, 0);
        }
    ck_assert_int_eq(n, BW);
}
END_TEST

START_TEST(refusals)
{
    sim_sprite s = fixture();
    uint8_t out[32 * 32];
    ck_assert_int_eq(sim_shear_rotate(out, 32, 32, NULL, 0.1), SIM_EINVAL);
    sim_sprite nokey = s;
    nokey.key = -1;
    ck_assert_int_eq(sim_shear_rotate(out, 32, 32, &nokey, 0.1), SIM_EINVAL);
    ck_assert_int_eq(sim_shear_rotate(out, 32, 32, &s, 0.0 / 0.0), SIM_EINVAL);
    ck_assert_int_eq(sim_shear_rotate(out, 0, 32, &s, 0.1), SIM_EINVAL);
    /* too small a destination: the pixels that fall outside are counted, the rest drawn */
    ck_assert_int_gt(sim_shear_rotate(out, 5, 5, &s, 0.3), 0);
    ck_assert_int_eq(sim_shear_shift(0.5, 1), 1);
    ck_assert_int_eq(sim_shear_shift(-0.5, 1), -1);
    ck_assert_int_eq(sim_shear_shift(0.5, -3), -2);
}
END_TEST

Suite *suite_shear(void)
{
    Suite *s = suite_create("shear");
    TCase *tc = tcase_create("shear");
    tcase_add_test(tc, rotation_is_a_permutation_of_the_pixels);
    tcase_add_test(tc, quarter_turns_are_exact);
    tcase_add_test(tc, there_and_back_is_the_identity);
    tcase_add_test(tc, bar_turns_clockwise);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}
