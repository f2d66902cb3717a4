/* check_inks.c — the ink lock (sim/anim/inks.c, seed 000 §2, §4, §7): OKLab against a libm
 * reference and Ottosson's published values, and the lock's promises as a viewer sees them: a
 * locked frame holds only the inks, each ink stays itself, every other colour becomes the ink
 * nearest to it, and the refusals. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "check_suites.h"
#include "anim/inks.h"

/* The reference: the same formulas with libm's pow and cbrt in long double. */
static long double ref_linear(int c)
{
    long double x = (long double)c / 255.0L;
    return x <= 0.04045L ? x / 12.92L : powl((x + 0.055L) / 1.055L, 2.4L);
}

static void ref_oklab(int r8, int g8, int b8, long double out[3])
{
    long double r = ref_linear(r8), g = ref_linear(g8), b = ref_linear(b8);
    long double l = cbrtl(0.4122214708L * r + 0.5363325363L * g + 0.0514459929L * b);
    long double m = cbrtl(0.2119034982L * r + 0.6806995451L * g + 0.1073969566L * b);
    long double s = cbrtl(0.0883024619L * r + 0.2817188376L * g + 0.6299787005L * b);
    out[0] = 0.2104542553L * l + 0.7936177850L * m - 0.0040720468L * s;
    out[1] = 1.9779984951L * l - 2.4285922050L * m + 0.4505937099L * s;
    out[2] = 0.0259040371L * l + 0.7827717662L * m - 0.8086757660L * s;
}

static uint32_t xs32(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Every byte decodes within 8 ulp of the exact curve (measured 6.45: the rounding of
 * (c/255 + 0.055)/1.055 in a double, raised to the power 2.4; the fifth root itself converges to
 * the last bit). */
START_TEST(srgb_decode_matches_pow)
{
    double worst = 0;
    for (int c = 0; c < 256; c++) {
        double got = sim_srgb_linear((uint8_t)c);
        long double ref = ref_linear(c);
        double ulp = nextafter((double)ref, INFINITY) - (double)ref;
        double err = (double)(fabsl((long double)got - ref) / (ulp > 0 ? ulp : 1e-300));
        if (c == 0) ck_assert(got == 0.0);
        if (err > worst) worst = err;
    }
    ck_assert_msg(worst <= 8.0, "sRGB decode: %.3f ulp from pow", worst);
    ck_assert(sim_srgb_linear(255) == 1.0 || fabs(sim_srgb_linear(255) - 1.0) < 1e-15);
}
END_TEST

/* OKLab to 1e-12 of the reference on a scatter of colours and every grey, and Ottosson's table:
 * white (1, 0, 0), red (0.627955, 0.224863, 0.125846), green (0.866440, −0.233888, 0.179498),
 * blue (0.452014, −0.032457, −0.311528). */
START_TEST(oklab_matches_reference)
{
    uint32_t s = 12345;
    double worst = 0;
    for (int i = 0; i < 20000; i++) {
        int r, g, b;
        if (i < 256) {
            r = g = b = i;
        } else {
            uint32_t v = xs32(&s);
            r = v & 255;
            g = (v >> 8) & 255;
            b = (v >> 16) & 255;
        }
        sim_oklab o = sim_oklab_from_srgb((uint8_t)r, (uint8_t)g, (uint8_t)b);
        long double ref[3];
        ref_oklab(r, g, b, ref);
        double e = fmax(fmax(fabs(o.L - (double)ref[0]), fabs(o.a - (double)ref[1])),
                        fabs(o.b - (double)ref[2]));
        if (e > worst) worst = e;
    }
    ck_assert_msg(worst < 1e-12, "OKLab: %.3g from the reference", worst);
    const struct { uint8_t rgb[3]; double lab[3]; } table[] = {
        { {255, 255, 255}, {1.000000, 0.000000, 0.000000} },
        { {255, 0, 0}, {0.627955, 0.224863, 0.125846} },
        { {0, 255, 0}, {0.866440, -0.233888, 0.179498} },
        { {0, 0, 255}, {0.452014, -0.032457, -0.311528} },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        sim_oklab o = sim_oklab_from_srgb(table[i].rgb[0], table[i].rgb[1], table[i].rgb[2]);
        ck_assert_msg(fabs(o.L - table[i].lab[0]) < 1e-5 && fabs(o.a - table[i].lab[1]) < 1e-5 &&
                      fabs(o.b - table[i].lab[2]) < 1e-5, "entry %zu: (%f, %f, %f)", i, o.L,
                      o.a, o.b);
    }
    sim_oklab k = sim_oklab_from_srgb(0, 0, 0);
    ck_assert(k.L == 0.0 && k.a == 0.0 && k.b == 0.0);
}
END_TEST

/* A garden-like palette of 24 entries: greys, sky, greens, water, fire, flag. */
static const uint8_t garden_rgb[24][3] = {
    {0x10, 0x10, 0x18}, {0x2a, 0x2a, 0x3a}, {0x5a, 0x5a, 0x6e}, {0xa0, 0xa0, 0xb0},
    {0xf4, 0xf4, 0xf0}, {0x8c, 0xc8, 0xf0}, {0xbc, 0xe4, 0xfa}, {0x1e, 0x4a, 0x24},
    {0x34, 0x7c, 0x2c}, {0x6c, 0xb4, 0x3c}, {0xa8, 0xdc, 0x5c}, {0x5a, 0x3c, 0x24},
    {0x8a, 0x60, 0x3a}, {0x1c, 0x3c, 0x78}, {0x2c, 0x64, 0xb4}, {0x5c, 0x9c, 0xe0},
    {0xd8, 0xf0, 0xff}, {0xff, 0xf8, 0xd0}, {0xff, 0xd8, 0x40}, {0xf0, 0x8c, 0x20},
    {0xc0, 0x30, 0x20}, {0x3c, 0x20, 0x20}, {0xd0, 0x28, 0x50}, {0xf0, 0xf0, 0xf0},
};

static void garden_palette(sim_palette *p)
{
    memset(p, 0, sizeof *p);
    p->count = 24;
    memcpy(p->rgb, garden_rgb, sizeof garden_rgb);
}

/* The defining property: a whole frame through the 8-ink lock holds only the 8 inks, whatever
 * bytes it held (every value 0..255, indexes past the palette included); each ink maps to itself;
 * every other entry goes to an ink no farther in OKLab than any other ink (checked against the
 * libm reference, so a wrong matrix or root in the code would show). */
START_TEST(lock_emits_only_the_inks)
{
    sim_palette pal;
    garden_palette(&pal);
    uint8_t ink[SIM_INKS_SEED];
    ck_assert_int_eq(sim_inks_choose(&pal, SIM_INKS_SEED, ink), 0);
    sim_inks lk;
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, ink, SIM_INKS_SEED), 0);
    int is_ink[256] = {0};
    for (int k = 0; k < SIM_INKS_SEED; k++) is_ink[ink[k]] = 1;

    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 320, 180), 0);
    f.pal = pal;
    uint32_t s = 777;
    for (int i = 0; i < 320 * 180; i++) f.px[i] = i < 256 ? (uint8_t)i : (uint8_t)xs32(&s);
    sim_inks_apply(&lk, &f);
    for (int i = 0; i < 320 * 180; i++)
        ck_assert_msg(is_ink[f.px[i]], "pixel %d is %d, not an ink", i, f.px[i]);
    ck_assert_int_eq(f.pal.count, 24);                  /* the palette is untouched */
    ck_assert_mem_eq(f.pal.rgb, garden_rgb, sizeof garden_rgb);

    for (int k = 0; k < SIM_INKS_SEED; k++) ck_assert_int_eq(lk.map[ink[k]], ink[k]);
    for (int i = 0; i < pal.count; i++) {
        long double p[3], q[3];
        ref_oklab(garden_rgb[i][0], garden_rgb[i][1], garden_rgb[i][2], p);
        int m = lk.map[i];
        ref_oklab(garden_rgb[m][0], garden_rgb[m][1], garden_rgb[m][2], q);
        long double dm = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                         (p[2] - q[2]) * (p[2] - q[2]);
        for (int k = 0; k < SIM_INKS_SEED; k++) {
            ref_oklab(garden_rgb[ink[k]][0], garden_rgb[ink[k]][1], garden_rgb[ink[k]][2], q);
            long double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                            (p[2] - q[2]) * (p[2] - q[2]);
            ck_assert_msg(dm <= d + 1e-12L, "entry %d → %d, but ink %d is nearer", i, m, ink[k]);
        }
    }
    /* Locking a locked frame changes nothing. */
    uint8_t once[320 * 180];
    memcpy(once, f.px, sizeof once);
    sim_inks_apply(&lk, &f);
    ck_assert_mem_eq(f.px, once, sizeof once);
    sim_frame_free(&f);
}
END_TEST

/* The nearest ink by hand: a palette of black, white, red and three near colours. */
START_TEST(lock_nearest_by_hand)
{
    sim_palette pal;
    memset(&pal, 0, sizeof pal);
    const uint8_t rgb[7][3] = { {0, 0, 0}, {255, 255, 255}, {255, 0, 0}, {30, 30, 30},
                                {230, 230, 240}, {200, 40, 30}, {128, 128, 128} };
    pal.count = 7;
    memcpy(pal.rgb, rgb, sizeof rgb);
    const uint8_t ink[3] = { 0, 1, 2 };
    sim_inks lk;
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, ink, 3), 0);
    ck_assert_int_eq(lk.map[3], 0);      /* dark grey → black */
    ck_assert_int_eq(lk.map[4], 1);      /* pale blue-white → white */
    ck_assert_int_eq(lk.map[5], 2);      /* brick → red */
    /* Mid grey #808080 is (0.600, 0, 0): 0.360 from black, 0.160 from white, but only 0.067 from
     * red (0.628, 0.225, 0.126) — OKLab weighs lightness and chroma alike, so it goes to red. */
    ck_assert_int_eq(lk.map[6], 2);
    for (int i = 7; i < 256; i++) ck_assert_int_eq(lk.map[i], 0);
}
END_TEST

/* Two inks of the same colour: each stays itself (the table, not the distance, says so), and a
 * third entry of that colour goes to the one listed first. */
START_TEST(lock_twins_keep_their_index)
{
    sim_palette pal;
    memset(&pal, 0, sizeof pal);
    const uint8_t rgb[4][3] = { {10, 200, 10}, {0, 0, 0}, {10, 200, 10}, {10, 200, 10} };
    pal.count = 4;
    memcpy(pal.rgb, rgb, sizeof rgb);
    const uint8_t ink[3] = { 2, 1, 0 };
    sim_inks lk;
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, ink, 3), 0);
    ck_assert_int_eq(lk.map[0], 0);
    ck_assert_int_eq(lk.map[1], 1);
    ck_assert_int_eq(lk.map[2], 2);
    ck_assert_int_eq(lk.map[3], 2);
}
END_TEST

/* Choosing inks: the darkest first, all distinct, and farthest-point order: on a grey ramp with
 * one red, two inks are black and white, the third is the red. */
START_TEST(choose_spans_the_palette)
{
    sim_palette pal;
    memset(&pal, 0, sizeof pal);
    pal.count = 10;
    for (int i = 0; i < 9; i++) pal.rgb[3 * i] = pal.rgb[3 * i + 1] = pal.rgb[3 * i + 2] =
        (uint8_t)(255 - i * 31);
    pal.rgb[27] = 220; pal.rgb[28] = 20; pal.rgb[29] = 20;
    uint8_t ink[4];
    ck_assert_int_eq(sim_inks_choose(&pal, 3, ink), 0);
    ck_assert_int_eq(ink[0], 8);         /* 255 − 8·31 = 7: the darkest grey */
    ck_assert_int_eq(ink[1], 0);         /* white */
    ck_assert_int_eq(ink[2], 9);         /* the red, far from the grey axis */
    sim_palette g;
    garden_palette(&g);
    uint8_t a[SIM_INKS_MAX], b[SIM_INKS_MAX];
    ck_assert_int_eq(sim_inks_choose(&g, SIM_INKS_MAX, a), 0);
    ck_assert_int_eq(sim_inks_choose(&g, SIM_INKS_MAX, b), 0);
    ck_assert_mem_eq(a, b, SIM_INKS_MAX);
    for (int i = 0; i < SIM_INKS_MAX; i++)
        for (int j = 0; j < i; j++) ck_assert_int_ne(a[i], a[j]);
}
END_TEST

START_TEST(refusals)
{
    sim_palette pal;
    garden_palette(&pal);
    sim_inks lk;
    const uint8_t dup[2] = { 3, 3 }, past[2] = { 3, 24 }, many[SIM_INKS_MAX + 1] = {0};
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, dup, 2), SIM_EINVAL);
    ck_assert_int_eq(lk.ninks, 0);
    ck_assert_int_eq(lk.map[5], 0);
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, past, 2), SIM_EINVAL);
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, dup, 0), SIM_EINVAL);
    ck_assert_int_eq(sim_inks_lock(&lk, &pal, many, SIM_INKS_MAX + 1), SIM_EINVAL);
    ck_assert_int_eq(sim_inks_lock(&lk, NULL, dup, 1), SIM_EINVAL);
    uint8_t out[SIM_INKS_MAX];
    ck_assert_int_eq(sim_inks_choose(&pal, 0, out), SIM_EINVAL);
    ck_assert_int_eq(sim_inks_choose(&pal, SIM_INKS_MAX + 1, out), SIM_EINVAL);
    pal.count = 3;
    ck_assert_int_eq(sim_inks_choose(&pal, 4, out), SIM_EINVAL);
    ck_assert_int_eq(sim_inks_choose(&pal, 3, out), 0);
}
END_TEST

Suite *suite_inks(void)
{
    Suite *s = suite_create("inks");
    TCase *t = tcase_create("lock");
    tcase_add_test(t, srgb_decode_matches_pow);
    tcase_add_test(t, oklab_matches_reference);
    tcase_add_test(t, lock_emits_only_the_inks);
    tcase_add_test(t, lock_nearest_by_hand);
    tcase_add_test(t, lock_twins_keep_their_index);
    tcase_add_test(t, choose_spans_the_palette);
    tcase_add_test(t, refusals);
    suite_add_tcase(s, t);
    return s;
}
