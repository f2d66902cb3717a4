/* check_mmpx.c — sim/anim/mmpx.c, the MMPX 2× magnifier (seed 000 §2): every output pixel is the
 * source pixel or one of its four edge neighbours (the palette is kept, nothing is blended), a
 * flat area stays flat and a lone pixel becomes a 2×2 block, the rules are symmetric (mirroring or
 * transposing the input mirrors or transposes the output), a one-pixel diagonal comes out as a
 * line joined edge to edge instead of blocks touching at their corners, and the refusals. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/mmpx.h"

static void palette(sim_frame *f)
{
    memset(&f->pal, 0, sizeof f->pal);
    f->pal.version = 1;
    f->pal.count = 8;
    for (int i = 0; i < 8; i++) {                      /* distinct lumas: 0 darkest */
        f->pal.rgb[3 * i] = (uint8_t)(30 * i);
        f->pal.rgb[3 * i + 1] = (uint8_t)(20 * i + 10);
        f->pal.rgb[3 * i + 2] = (uint8_t)(25 * i + 5);
    }
}

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A random picture of few inks in blobs (runs), so the rules' patterns all occur. */
static void random_art(sim_frame *f, uint32_t seed, int inks)
{
    uint32_t r = seed;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            uint32_t k = lcg(&r) % 10;
            uint8_t v = (uint8_t)(lcg(&r) % (uint32_t)inks);
            if (k < 4 && x > 0) v = f->px[y * f->w + x - 1];
            else if (k < 7 && y > 0) v = f->px[(y - 1) * f->w + x];
            f->px[y * f->w + x] = v;
        }
}

static uint8_t src_at(const sim_frame *f, int x, int y)
{
    x = x < 0 ? 0 : x >= f->w ? f->w - 1 : x;
    y = y < 0 ? 0 : y >= f->h ? f->h - 1 : y;
    return f->px[y * f->w + x];
}

START_TEST(output_is_the_pixel_or_an_edge_neighbour)
{
    sim_frame s, d;
    ck_assert_int_eq(sim_frame_init(&s, 40, 30), 0);
    ck_assert_int_eq(sim_frame_init(&d, 80, 60), 0);
    palette(&s);
    for (uint32_t seed = 1; seed < 40; seed++) {
        random_art(&s, seed, 2 + (int)(seed % 5));
        ck_assert_int_eq(sim_mmpx_2x(&s, &d), 0);
        ck_assert_int_eq(d.pal.count, s.pal.count);
        ck_assert_mem_eq(d.pal.rgb, s.pal.rgb, 3 * s.pal.count);
        for (int y = 0; y < d.h; y++)
            for (int x = 0; x < d.w; x++) {
                int sx = x / 2, sy = y / 2;
                uint8_t v = d.px[y * d.w + x];
                ck_assert(v == src_at(&s, sx, sy) || v == src_at(&s, sx - 1, sy) ||
                          v == src_at(&s, sx + 1, sy) || v == src_at(&s, sx, sy - 1) ||
                          v == src_at(&s, sx, sy + 1));
            }
    }
    sim_frame_free(&s);
    sim_frame_free(&d);
}
END_TEST

START_TEST(flat_stays_flat_and_a_lone_pixel_is_a_block)
{
    sim_frame s, d;
    ck_assert_int_eq(sim_frame_init(&s, 9, 7), 0);
    ck_assert_int_eq(sim_frame_init(&d, 18, 14), 0);
    palette(&s);
    memset(s.px, 5, 9 * 7);
    ck_assert_int_eq(sim_mmpx_2x(&s, &d), 0);
    for (int i = 0; i < 18 * 14; i++) ck_assert_int_eq(d.px[i], 5);
    s.px[3 * 9 + 4] = 1;                                     /* one dark pixel */
    ck_assert_int_eq(sim_mmpx_2x(&s, &d), 0);
    for (int y = 0; y < 14; y++)
        for (int x = 0; x < 18; x++)
            ck_assert_int_eq(d.px[y * 18 + x], (x / 2 == 4 && y / 2 == 3) ? 1 : 5);
    sim_frame_free(&s);
    sim_frame_free(&d);
}
END_TEST

/* Mirrors and the transpose commute with the magnifier (the image's edges are clamped, which is
 * symmetric too). */
START_TEST(rules_are_symmetric)
{
    enum { SW = 24, SH = 24 };
    sim_frame s, t, d, e;
    ck_assert_int_eq(sim_frame_init(&s, SW, SH), 0);
    ck_assert_int_eq(sim_frame_init(&t, SW, SH), 0);
    ck_assert_int_eq(sim_frame_init(&d, 2 * SW, 2 * SH), 0);
    ck_assert_int_eq(sim_frame_init(&e, 2 * SW, 2 * SH), 0);
    palette(&s);
    palette(&t);
    for (uint32_t seed = 1; seed < 60; seed++) {
        random_art(&s, seed * 7919u, 2 + (int)(seed % 4));
        ck_assert_int_eq(sim_mmpx_2x(&s, &d), 0);
        for (int op = 0; op < 3; op++) {
            for (int y = 0; y < SH; y++)
                for (int x = 0; x < SW; x++) {
                    int sx = op == 0 ? SW - 1 - x : op == 1 ? x : y;
                    int sy = op == 0 ? y : op == 1 ? SH - 1 - y : x;
                    t.px[y * SW + x] = s.px[sy * SW + sx];
                }
            ck_assert_int_eq(sim_mmpx_2x(&t, &e), 0);
            for (int y = 0; y < 2 * SH; y++)
                for (int x = 0; x < 2 * SW; x++) {
                    int sx = op == 0 ? 2 * SW - 1 - x : op == 1 ? x : y;
                    int sy = op == 0 ? y : op == 1 ? 2 * SH - 1 - y : x;
                    ck_assert_int_eq(e.px[y * 2 * SW + x], d.px[sy * 2 * SW + sx]);
                }
        }
    }
    sim_frame_free(&s);
    sim_frame_free(&t);
    sim_frame_free(&d);
    sim_frame_free(&e);
}
END_TEST

/* 4-connected ink pixels of a frame, flood-filled from the first: all of them when connected. */
static int connected(const sim_frame *f, uint8_t ink)
{
    static int stack[4096];
    static uint8_t seen[4096];
    int n = f->w * f->h, total = 0, first = -1, top = 0, got = 0;
    memset(seen, 0, (size_t)n);
    for (int i = 0; i < n; i++)
        if (f->px[i] == ink) {
            total++;
            if (first < 0) first = i;
        }
    if (first < 0) return 1;
    stack[top++] = first;
    seen[first] = 1;
    while (top) {
        int i = stack[--top], x = i % f->w, y = i / f->w;
        got++;
        const int nb[4][2] = { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } };
        for (int k = 0; k < 4; k++) {
            int u = x + nb[k][0], v = y + nb[k][1];
            if (u < 0 || v < 0 || u >= f->w || v >= f->h) continue;
            int j = v * f->w + u;
            if (!seen[j] && f->px[j] == ink) {
                seen[j] = 1;
                stack[top++] = j;
            }
        }
    }
    return got == total;
}

/* A one-pixel diagonal, dark on light: nearest-neighbour 2× gives blocks that touch only at
 * their corners; MMPX joins them edge to edge (a line, the paper's 1:1 slope). */
START_TEST(diagonal_becomes_a_line)
{
    enum { N = 12 };
    sim_frame s, d;
    ck_assert_int_eq(sim_frame_init(&s, N, N), 0);
    ck_assert_int_eq(sim_frame_init(&d, 2 * N, 2 * N), 0);
    palette(&s);
    memset(s.px, 6, N * N);
    for (int i = 2; i < N - 2; i++) s.px[i * N + i] = 0;     /* clear of the clamped edges */
    ck_assert_int_eq(sim_mmpx_2x(&s, &d), 0);
    ck_assert(connected(&d, 0));
    int ink = 0;
    for (int i = 0; i < 4 * N * N; i++) ink += d.px[i] == 0;
    ck_assert_int_gt(ink, 4 * (N - 4));            /* the corners were filled in */
    ck_assert_int_lt(ink, 8 * (N - 4));            /* a line, not a band */
    sim_frame_free(&s);
    sim_frame_free(&d);
}
END_TEST

START_TEST(refusals)
{
    sim_frame s, d;
    ck_assert_int_eq(sim_frame_init(&s, 8, 8), 0);
    ck_assert_int_eq(sim_frame_init(&d, 15, 16), 0);
    palette(&s);
    ck_assert_int_eq(sim_mmpx_2x(&s, &d), SIM_EINVAL);
    ck_assert_int_eq(sim_mmpx_2x(&s, &s), SIM_EINVAL);
    ck_assert_int_eq(sim_mmpx_2x(NULL, &d), SIM_EINVAL);
    sim_frame_free(&s);
    sim_frame_free(&d);
}
END_TEST

Suite *suite_mmpx(void)
{
    Suite *s = suite_create("mmpx");
    TCase *tc = tcase_create("mmpx");
    tcase_add_test(tc, output_is_the_pixel_or_an_edge_neighbour);
    tcase_add_test(tc, flat_stays_flat_and_a_lone_pixel_is_a_block);
    tcase_add_test(tc, rules_are_symmetric);
    tcase_add_test(tc, diagonal_becomes_a_line);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return s;
}
