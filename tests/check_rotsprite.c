/* check_rotsprite.c — sim/anim/rotsprite.c (seed 000 §2): Scale2x's E0..E3 rules on a pattern
 * worked by hand, exact quarter turns, no new colours, a one-pixel outline that stays 8-connected,
 * transparency outside the rotated shape, a bake that repeats byte for byte, and the refusals;
 * then any number of angles: the 16 of sim_rot_bake are those of sim_rot_bake_n, finer sets share
 * their angles and mirror, and the angle lookup; a span of a turn (sim_rot_bake_span) is the same
 * bytes as the whole turn's images at its angles. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "anim/rotsprite.h"
#include "sim.h"

#define T 0  /* the transparent index in every test sprite */

/* The seed's rules by hand on a 2×2 diagonal (outside reads as transparent):
 *   1 0      (0,0)=1: B=H=0, so all four are E             → 1 1 / 1 1
 *   0 1      (1,0)=0: B=0 D=1 F=0 H=1; B≠H, D≠F: E0=E (D≠B), E1=F=0 (B==F), E2=D=1 (D==H),
 *                     E3=E (H≠F)                            → 0 0 / 1 0
 *            (0,1)=0: B=1 D=0 F=1 H=0: E1=F=1 (B==F), E2=D=0 (D==H), E0=E3=E → 0 1 / 0 0
 *            (1,1)=1: B=D=0, F=H=0 (outside): B==H, all E   → 1 1 / 1 1 */
START_TEST(scale2x_rules_by_hand)
{
    const uint8_t src[4] = { 1, 0, 0, 1 };
    const uint8_t want[16] = { 1, 1, 0, 0,
                               1, 1, 1, 0,
                               0, 1, 1, 1,
                               0, 0, 1, 1 };
    uint8_t got[16];
    memset(got, 0xAA, sizeof got);
    sim_rot_scale2x(got, src, 2, 2, T);
    ck_assert_mem_eq(got, want, sizeof want);
}
END_TEST

/* The centre 5 of a 3×3 with B=1 (up), D=1 (left), F=2 (right), H=2 (down): B≠H and D≠F, so the
 * rules apply: E0=D=1 (D==B), E1=E (B≠F), E2=E (D≠H), E3=F=2 (H==F). */
START_TEST(scale2x_corner_rules)
{
    const uint8_t src[9] = { 7, 1, 7,
                             1, 5, 2,
                             7, 2, 7 };
    uint8_t got[36];
    sim_rot_scale2x(got, src, 3, 3, T);
    /* the centre's 2×2 block sits at (2..3, 2..3) of the 6×6 result */
    ck_assert_int_eq(got[2 * 6 + 2], 1);  /* E0 */
    ck_assert_int_eq(got[2 * 6 + 3], 5);  /* E1 */
    ck_assert_int_eq(got[3 * 6 + 2], 5);  /* E2 */
    ck_assert_int_eq(got[3 * 6 + 3], 2);  /* E3 */
}
END_TEST

static void bake_ok(sim_rot_set *s, const sim_rot_sprite *sp)
{
    ck_assert_int_eq(sim_rot_bake(s, sp), 0);
    ck_assert_ptr_nonnull(s->px);
}

/* An asymmetric 4×4 sprite, pivot at its centre (a pixel corner): the quarter turns must be the
 * textbook rotations of the array, written here independently of the code's pivot arithmetic. */
START_TEST(quarter_turns_exact_corner_pivot)
{
    enum { N = 4 };
    const uint8_t in[N * N] = { 1, 2, 3, 0,
                                4, 0, 5, 6,
                                0, 7, 8, 9,
                                10, 11, 0, 12 };
    sim_rot_sprite sp = { N, N, in, T, N, N };
    sim_rot_set s;
    bake_ok(&s, &sp);
    ck_assert_int_eq(s.side, 6);  /* corners 4 half-units away on each axis: ceil(√32) = 6, even */
    int o = (s.side - N) / 2;
    for (int q = 0; q < 4; q++) {
        const uint8_t *img = sim_rot_image(&s, 4 * q);
        for (int y = 0; y < s.side; y++)
            for (int x = 0; x < s.side; x++) {
                int xx = x - o, yy = y - o, want = T;
                if (xx >= 0 && yy >= 0 && xx < N && yy < N) {
                    int sx = xx, sy = yy;  /* source pixel of a clockwise turn by q·90° */
                    if (q == 1) { sx = yy; sy = N - 1 - xx; }
                    if (q == 2) { sx = N - 1 - xx; sy = N - 1 - yy; }
                    if (q == 3) { sx = N - 1 - yy; sy = xx; }
                    want = in[sy * N + sx];
                }
                ck_assert_msg(img[y * s.side + x] == want, "turn %d, (%d,%d): %d, want %d", q,
                              x, y, img[y * s.side + x], want);
            }
    }
    sim_rot_free(&s);
}
END_TEST

/* A 5×3 sprite turned about the centre of pixel (1, 1): side is odd, the pivot pixel is the
 * square's middle pixel, and a quarter turn moves (dx, dy) from it to (−dy, dx). */
START_TEST(quarter_turns_exact_centre_pivot)
{
    const uint8_t in[15] = { 1, 2, 3, 4, 5,
                             6, 7, 8, 0, 9,
                             10, 0, 11, 12, 13 };
    sim_rot_sprite sp = { 5, 3, in, T, 3, 3 };
    sim_rot_set s;
    bake_ok(&s, &sp);
    ck_assert_int_eq(s.side & 1, 1);
    int m = s.side / 2;
    for (int q = 0; q < 4; q++) {
        const uint8_t *img = sim_rot_image(&s, 4 * q);
        int opaque = 0;
        for (int i = 0; i < s.side * s.side; i++)
            opaque += img[i] != T;
        ck_assert_int_eq(opaque, 13);
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 5; x++) {
                int dx = x - 1, dy = y - 1;
                for (int i = 0; i < q; i++) { int t = dx; dx = -dy; dy = t; }
                ck_assert_int_eq(img[(m + dy) * s.side + m + dx], in[y * 5 + x]);
            }
    }
    sim_rot_free(&s);
}
END_TEST

/* A 16×16 sprite of three colours in a deterministic pattern: no angle shows any other index. */
START_TEST(no_new_colours)
{
    uint8_t in[256];
    const uint8_t inks[3] = { 3, 7, 9 };
    uint32_t r = 12345;
    for (int i = 0; i < 256; i++) {
        r = r * 1664525u + 1013904223u;
        in[i] = (r >> 28) < 4 ? T : inks[(r >> 24) % 3];
    }
    sim_rot_sprite sp = { 16, 16, in, T, 16, 16 };
    sim_rot_set s;
    bake_ok(&s, &sp);
    int seen[256] = { 0 };
    for (int k = 0; k < SIM_ROT_ANGLES; k++) {
        const uint8_t *img = sim_rot_image(&s, k);
        for (int i = 0; i < s.side * s.side; i++) {
            ck_assert_msg(img[i] == T || img[i] == 3 || img[i] == 7 || img[i] == 9,
                          "angle %d shows index %d", k, img[i]);
            seen[img[i]] = 1;
        }
    }
    ck_assert(seen[3] && seen[7] && seen[9]);
    sim_rot_free(&s);
}
END_TEST

/* Opaque pixels of img form one 8-connected component; returns the component count. */
static int components8(const uint8_t *img, int side)
{
    int n = side * side, comps = 0;
    int *stack = malloc(sizeof(int) * (size_t)n);
    char *seen = calloc((size_t)n, 1);
    ck_assert(stack && seen);
    for (int i = 0; i < n; i++) {
        if (img[i] == T || seen[i])
            continue;
        comps++;
        int top = 0;
        stack[top++] = i;
        seen[i] = 1;
        while (top) {
            int p = stack[--top], px = p % side, py = p / side;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = px + dx, y = py + dy;
                    if (x < 0 || y < 0 || x >= side || y >= side)
                        continue;
                    int q = y * side + x;
                    if (img[q] != T && !seen[q]) {
                        seen[q] = 1;
                        stack[top++] = q;
                    }
                }
        }
    }
    free(stack);
    free(seen);
    return comps;
}

static void ring_stays_connected(const uint8_t *in, int n)
{
    sim_rot_sprite sp = { n, n, in, T, n, n };
    sim_rot_set s;
    bake_ok(&s, &sp);
    ck_assert_int_eq(components8(in, n), 1);  /* the test's own premise */
    for (int k = 0; k < SIM_ROT_ANGLES; k++) {
        const uint8_t *img = sim_rot_image(&s, k);
        ck_assert_msg(components8(img, s.side) == 1, "angle %d: outline broken into %d pieces",
                      k, components8(img, s.side));
        /* still a ring: the middle stays transparent */
        int m = s.side / 2;
        ck_assert_int_eq(img[m * s.side + m], T);
    }
    sim_rot_free(&s);
}

/* A one-pixel square outline, 14×14, and a one-pixel circle of radius 7: 8-connected at 45°
 * (angle 2) and at every other angle too. */
START_TEST(outline_stays_8_connected)
{
    enum { N = 14, C = 16 };
    uint8_t sq[N * N], ci[C * C];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            sq[y * N + x] = (x == 0 || y == 0 || x == N - 1 || y == N - 1) ? 5 : T;
    /* circle ring: pixels whose centre lies within half a pixel of radius 6.5 (8-connected) */
    for (int y = 0; y < C; y++)
        for (int x = 0; x < C; x++) {
            double dx = x + 0.5 - C / 2.0, dy = y + 0.5 - C / 2.0, d = sqrt(dx * dx + dy * dy);
            ci[y * C + x] = fabs(d - 6.5) <= 0.5 ? 6 : T;
        }
    ring_stays_connected(sq, N);
    ring_stays_connected(ci, C);
}
END_TEST

START_TEST(bake_twice_identical)
{
    uint8_t in[12 * 10];
    for (int i = 0; i < 120; i++)
        in[i] = (uint8_t)((i * 7 + i / 12) % 5);
    sim_rot_sprite sp = { 12, 10, in, T, 8, 6 };
    sim_rot_set a, b;
    bake_ok(&a, &sp);
    bake_ok(&b, &sp);
    ck_assert_int_eq(a.side, b.side);
    ck_assert_ptr_ne(a.px, b.px);
    ck_assert_mem_eq(a.px, b.px, (size_t)SIM_ROT_ANGLES * a.side * a.side);
    sim_rot_free(&a);
    sim_rot_free(&b);
    ck_assert_ptr_null(a.px);
}
END_TEST

/* A filled 8×8 square in a 16×16 sprite: at every angle, output pixels whose centre maps back
 * (by the exact inverse rotation) more than one pixel outside the square are transparent, and
 * those more than one pixel inside it are opaque, and the area stays that of the square — the
 * shape neither grows nor erodes. */
START_TEST(transparent_outside_shape)
{
    enum { N = 16 };
    uint8_t in[N * N];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++)
            in[y * N + x] = (x >= 4 && x < 12 && y >= 4 && y < 12) ? 2 : T;
    sim_rot_sprite sp = { N, N, in, T, N, N };
    sim_rot_set s;
    bake_ok(&s, &sp);
    for (int k = 0; k < SIM_ROT_ANGLES; k++) {
        const uint8_t *img = sim_rot_image(&s, k);
        double a = k * SIM_PI / 8, c = cos(a), sn = sin(a);
        int inside = 0, opaque = 0;
        for (int i = 0; i < s.side * s.side; i++)
            opaque += img[i] != T;
        /* the area stays that of the square (64 pixels), give or take a few edge pixels */
        ck_assert_msg(abs(opaque - 64) <= 6, "angle %d: %d opaque pixels, want 64 ± 6", k, opaque);
        for (int y = 0; y < s.side; y++)
            for (int x = 0; x < s.side; x++) {
                double qx = x + 0.5 - s.side / 2.0, qy = y + 0.5 - s.side / 2.0;
                double sx = c * qx + sn * qy, sy = -sn * qx + c * qy;  /* about the pivot */
                double out = fmax(fabs(sx), fabs(sy)) - 4.0;  /* >0: outside the square */
                uint8_t v = img[y * s.side + x];
                if (out > 1.0)
                    ck_assert_msg(v == T, "angle %d (%d,%d) outside but %d", k, x, y, v);
                if (out < -1.0) {
                    ck_assert_msg(v == 2, "angle %d (%d,%d) inside but %d", k, x, y, v);
                    inside++;
                }
            }
        ck_assert_int_gt(inside, 0);
    }
    sim_rot_free(&s);
}
END_TEST

START_TEST(refusals)
{
    uint8_t in[4] = { 1, 1, 1, 1 };
    sim_rot_set s;
    sim_rot_sprite mixed = { 2, 2, in, T, 2, 1 };        /* corner in x, centre in y */
    sim_rot_sprite empty = { 0, 2, in, T, 0, 2 };
    sim_rot_sprite far = { 2, 2, in, T, 6, 6 };          /* pivot outside the sprite */
    sim_rot_sprite big = { SIM_ROT_MAX_DIM + 1, 1, in, T, 1, 1 };
    ck_assert_int_eq(sim_rot_bake(&s, &mixed), SIM_EINVAL);
    ck_assert_ptr_null(s.px);
    ck_assert_int_eq(sim_rot_bake(&s, &empty), SIM_EINVAL);
    ck_assert_int_eq(sim_rot_bake(&s, &far), SIM_EINVAL);
    ck_assert_int_eq(sim_rot_bake(&s, &big), SIM_EINVAL);
    sim_rot_free(&s);  /* safe on a failed set */
}
END_TEST

/* A 13×11 sprite of five colours, pivot on a pixel centre off the middle: sim_rot_bake is
 * sim_rot_bake_n with 16, byte for byte, and every angle a 32- or 64-angle set shares with the
 * 16-angle one (k·22.5°) is the same image — the finer sets only add angles between. The quarter
 * turns of the 64-angle set are the exact rotations (they equal the 16-set's, which the tests
 * above pin to the textbook rotations). */
START_TEST(bake_n_matches_bake)
{
    enum { W = 13, H = 11 };
    uint8_t in[W * H];
    uint32_t r = 4242;
    for (int i = 0; i < W * H; i++) {
        r = r * 1664525u + 1013904223u;
        in[i] = (r >> 28) < 5 ? T : (uint8_t)(1 + (r >> 24) % 5);
    }
    sim_rot_sprite sp = { W, H, in, T, 9, 7 };
    sim_rot_set s16, n16, n32, n64;
    bake_ok(&s16, &sp);
    ck_assert_int_eq(s16.nangles, SIM_ROT_ANGLES);
    ck_assert_int_eq(sim_rot_bake_n(&n16, &sp, 16), 0);
    ck_assert_int_eq(sim_rot_bake_n(&n32, &sp, 32), 0);
    ck_assert_int_eq(sim_rot_bake_n(&n64, &sp, 64), 0);
    ck_assert_int_eq(n64.nangles, 64);
    ck_assert_int_eq(n16.side, s16.side);
    ck_assert_int_eq(n64.side, s16.side);
    size_t area = (size_t)s16.side * s16.side;
    ck_assert_mem_eq(n16.px, s16.px, area * SIM_ROT_ANGLES);
    for (int k = 0; k < 16; k++) {
        ck_assert_msg(memcmp(sim_rot_image(&n32, 2 * k), sim_rot_image(&s16, k), area) == 0,
                      "32-angle image %d differs from 16-angle image %d", 2 * k, k);
        ck_assert_msg(memcmp(sim_rot_image(&n64, 4 * k), sim_rot_image(&s16, k), area) == 0,
                      "64-angle image %d differs from 16-angle image %d", 4 * k, k);
    }
    /* the in-between angles are really new images, and the index wraps modulo 64 */
    ck_assert(memcmp(sim_rot_image(&n64, 1), sim_rot_image(&n64, 0), area) != 0);
    ck_assert(memcmp(sim_rot_image(&n64, 1), sim_rot_image(&n64, 4), area) != 0);
    ck_assert_ptr_eq(sim_rot_image(&n64, -1), sim_rot_image(&n64, 63));
    ck_assert_ptr_eq(sim_rot_image(&n64, 65), sim_rot_image(&n64, 1));
    sim_rot_free(&s16);
    sim_rot_free(&n16);
    sim_rot_free(&n32);
    sim_rot_free(&n64);
    ck_assert_int_eq(n64.nangles, 0);
}
END_TEST

/* Fine angles mirror: a sprite symmetric about its vertical axis, turned by +k steps, is the X
 * mirror of the same sprite turned by −k steps — the first-quadrant table is symmetric, so a
 * leaning head looks the same to the left and to the right. */
START_TEST(bake_n_mirror_symmetric)
{
    enum { W = 9, H = 12 };
    uint8_t in[W * H];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int dx = x < W / 2 ? W / 2 - x : x - W / 2;
            in[y * W + x] = (uint8_t)((dx + y) % 4 == 0 ? T : 1 + (dx * 3 + y) % 4);
        }
    sim_rot_sprite sp = { W, H, in, T, W, 2 * H - 1 };  /* bottom-middle pixel's centre */
    sim_rot_set s;
    ck_assert_int_eq(sim_rot_bake_n(&s, &sp, 64), 0);
    int n = s.side;
    for (int k = 1; k < 8; k++) {
        const uint8_t *a = sim_rot_image(&s, k), *b = sim_rot_image(&s, -k);
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                ck_assert_msg(a[y * n + x] == b[y * n + n - 1 - x], "angle ±%d, (%d,%d)", k, x, y);
    }
    sim_rot_free(&s);
}
END_TEST

/* The one-pixel circle ring stays one 8-connected piece at all 64 angles too. */
START_TEST(bake_n_outline_connected)
{
    enum { C = 16 };
    uint8_t ci[C * C];
    for (int y = 0; y < C; y++)
        for (int x = 0; x < C; x++) {
            double dx = x + 0.5 - C / 2.0, dy = y + 0.5 - C / 2.0, d = sqrt(dx * dx + dy * dy);
            ci[y * C + x] = fabs(d - 6.5) <= 0.5 ? 6 : T;
        }
    sim_rot_sprite sp = { C, C, ci, T, C, C };
    sim_rot_set s;
    ck_assert_int_eq(sim_rot_bake_n(&s, &sp, 64), 0);
    for (int k = 0; k < 64; k++)
        ck_assert_msg(components8(sim_rot_image(&s, k), s.side) == 1, "angle %d broken", k);
    sim_rot_free(&s);
}
END_TEST

START_TEST(bake_n_refusals_and_nearest)
{
    uint8_t in[4] = { 1, 1, 1, 1 };
    sim_rot_sprite sp = { 2, 2, in, T, 2, 2 };
    sim_rot_set s;
    const int bad[] = { 0, 2, 3, 6, 18, SIM_ROT_ANGLES_MAX + 4, -16 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(sim_rot_bake_n(&s, &sp, bad[i]), SIM_EINVAL);
        ck_assert_ptr_null(s.px);
        ck_assert_int_eq(s.nangles, 0);
    }
    ck_assert_int_eq(sim_rot_bake_n(&s, &sp, 4), 0);
    sim_rot_free(&s);
    ck_assert_int_eq(sim_rot_bake_n(&s, &sp, SIM_ROT_ANGLES_MAX), 0);
    sim_rot_free(&s);
    ck_assert_int_eq(sim_rot_bake_n(&s, &sp, 64), 0);
    ck_assert_int_eq(sim_rot_nearest(&s, 0), 0);
    ck_assert_int_eq(sim_rot_nearest(&s, 12), 2);     /* 12 × 64/360 = 2.13 */
    ck_assert_int_eq(sim_rot_nearest(&s, -12), 62);
    ck_assert_int_eq(sim_rot_nearest(&s, 22), 4);     /* 3.91 */
    ck_assert_int_eq(sim_rot_nearest(&s, 90), 16);
    ck_assert_int_eq(sim_rot_nearest(&s, 360 + 5.625), 1);  /* a half step rounds up */
    ck_assert_int_eq(sim_rot_nearest(&s, -720), 0);
    sim_rot_free(&s);
}
END_TEST

/* A span of a turn is the same bytes as the whole turn's images at those angles: the 13×11 sprite
 * above, angles −5..+5 of 64 (across 0, so negative k0 and the exact path at 0°) against
 * sim_rot_bake_n(64), a span in another quadrant (80..100 of 64·4 = 256, across 90°), and a
 * span of a 360-step turn, whose 0° is the sprite and whose neighbours differ; then the
 * refusals. */
START_TEST(bake_span_matches_bake_n)
{
    enum { W = 13, H = 11 };
    uint8_t in[W * H];
    uint32_t r = 4242;
    for (int i = 0; i < W * H; i++) {
        r = r * 1664525u + 1013904223u;
        in[i] = (r >> 28) < 5 ? T : (uint8_t)(1 + (r >> 24) % 5);
    }
    sim_rot_sprite sp = { W, H, in, T, 9, 7 };
    sim_rot_set n64, n256, sp64, sp256, sp360;
    ck_assert_int_eq(sim_rot_bake_n(&n64, &sp, 64), 0);
    ck_assert_int_eq(sim_rot_bake_n(&n256, &sp, 256), 0);
    ck_assert_int_eq(sim_rot_bake_span(&sp64, &sp, 64, -5, 11), 0);
    ck_assert_int_eq(sim_rot_bake_span(&sp256, &sp, 256, 56, 16), 0);
    ck_assert_int_eq(sim_rot_bake_span(&sp360, &sp, 360, -20, 41), 0);
    ck_assert_int_eq(sp64.nangles, 11);
    ck_assert_int_eq(sp64.side, n64.side);
    ck_assert_int_eq(sp360.side, n64.side);
    size_t area = (size_t)n64.side * n64.side;
    for (int i = 0; i < 11; i++)
        ck_assert_msg(memcmp(sim_rot_image(&sp64, i), sim_rot_image(&n64, i - 5), area) == 0,
                      "span image %d is not angle %d of 64", i, i - 5);
    for (int i = 0; i < 16; i++)
        ck_assert_msg(memcmp(sim_rot_image(&sp256, i), sim_rot_image(&n256, 56 + i), area) == 0,
                      "span image %d is not angle %d of 256", i, 56 + i);
    ck_assert_mem_eq(sim_rot_image(&sp360, 20), sim_rot_image(&n64, 0), area);   /* 0° exact */
    for (int i = 1; i < 41; i++)
        ck_assert_msg(memcmp(sim_rot_image(&sp360, i), sim_rot_image(&sp360, i - 1), area) != 0,
                      "1° steps %d and %d bake the same image", i - 1, i);
    sim_rot_free(&n64);
    sim_rot_free(&n256);
    sim_rot_free(&sp64);
    sim_rot_free(&sp256);
    sim_rot_free(&sp360);
    sim_rot_set s;
    const int bad[][3] = { { 0, 0, 1 }, { 6, 0, 1 }, { SIM_ROT_SPAN_N_MAX + 4, 0, 1 },
                           { 360, 0, 0 }, { 360, 0, 361 }, { 360, -361, 4 }, { 360, 361, 4 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(sim_rot_bake_span(&s, &sp, bad[i][0], bad[i][1], bad[i][2]), SIM_EINVAL);
        ck_assert_ptr_null(s.px);
        ck_assert_int_eq(s.nangles, 0);
    }
    sim_rot_sprite bad_pivot = { W, H, in, T, 9, 8 };   /* mixed parity */
    ck_assert_int_eq(sim_rot_bake_span(&s, &bad_pivot, 360, -1, 3), SIM_EINVAL);
    ck_assert_ptr_null(s.px);
}
END_TEST

Suite *suite_rotsprite(void)
{
    Suite *s = suite_create("rotsprite");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, scale2x_rules_by_hand);
    tcase_add_test(tc, scale2x_corner_rules);
    tcase_add_test(tc, quarter_turns_exact_corner_pivot);
    tcase_add_test(tc, quarter_turns_exact_centre_pivot);
    tcase_add_test(tc, no_new_colours);
    tcase_add_test(tc, outline_stays_8_connected);
    tcase_add_test(tc, bake_twice_identical);
    tcase_add_test(tc, transparent_outside_shape);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, bake_n_matches_bake);
    tcase_add_test(tc, bake_n_mirror_symmetric);
    tcase_add_test(tc, bake_n_outline_connected);
    tcase_add_test(tc, bake_n_refusals_and_nearest);
    tcase_add_test(tc, bake_span_matches_bake_n);
    suite_add_tcase(s, tc);
    return s;
}
