/* check_outline.c — sim/anim/outline.c: the outline is exactly the pixels outside the shape that
 * share an edge with it (one pixel thick, never doubled on a diagonal), the shape keeps its fill,
 * and nothing else is touched. */
#include <check.h>
#include <limits.h>
#include <string.h>
#include "check_suites.h"
#include "anim/outline.h"

enum { W = 40, H = 32, BG = 7, FILL = 3, OUT = 1 };

typedef struct tri { int xy[6]; } tri;

static void tri_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const tri *t = ud;
    int xy[6];
    for (int i = 0; i < 3; i++) {
        xy[2 * i] = t->xy[2 * i] + dx;
        xy[2 * i + 1] = t->xy[2 * i + 1] + dy;
    }
    sim_raster_polygon(f, xy, 3, ink);
}

static int in(const uint8_t *m, int x, int y)
{
    return x >= 0 && y >= 0 && x < W && y < H && m[y * W + x];
}

START_TEST(outline_is_the_edge_neighbours_of_the_shape)
{
    const tri shapes[] = { { { 5, 4, 33, 9, 12, 27 } }, { { 20, 2, 37, 28, 3, 20 } },
                           { { 10, 10, 11, 10, 10, 20 } } };         /* a sliver */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        sim_frame f, m;
        ck_assert_int_eq(sim_frame_init(&f, W, H), 0);
        ck_assert_int_eq(sim_frame_init(&m, W, H), 0);
        sim_raster_clear(&f, BG);
        sim_raster_clear(&m, 0);
        tri_paint(&shapes[s], &m, 0, 0, 1);                     /* the shape alone, as a mask */
        sim_draw_outlined(&f, tri_paint, &shapes[s], FILL, OUT);
        int nout = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int inside = in(m.px, x, y);
                int edge = in(m.px, x - 1, y) || in(m.px, x + 1, y) || in(m.px, x, y - 1) ||
                           in(m.px, x, y + 1);
                uint8_t want = inside ? FILL : edge ? OUT : BG;
                ck_assert_msg(f.px[y * W + x] == want, "shape %zu pixel (%d,%d): %d, want %d", s,
                              x, y, f.px[y * W + x], want);
                nout += want == OUT;
            }
        ck_assert_int_gt(nout, 0);
        /* without an outline ink: the fill alone */
        sim_raster_clear(&f, BG);
        sim_draw_outlined(&f, tri_paint, &shapes[s], FILL, -1);
        for (int i = 0; i < W * H; i++) ck_assert_int_eq(f.px[i], m.px[i] ? FILL : BG);
        sim_frame_free(&f);
        sim_frame_free(&m);
    }
}
END_TEST

typedef struct quads { int n; int xy[6][8]; } quads;

static void quads_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const quads *q = ud;
    for (int i = 0; i < q->n; i++) {
        int xy[8];
        for (int k = 0; k < 4; k++) {
            xy[2 * k] = q->xy[i][2 * k] + dx;
            xy[2 * k + 1] = q->xy[i][2 * k + 1] + dy;
        }
        sim_raster_polygon(f, xy, 4, ink);
    }
}

/* The one-pass mask gives the five passes' pixels, over a busy background, for shapes inside,
 * across and just outside every edge of the frame, and for boxes too big for the mask. */
START_TEST(box_mask_paints_what_the_five_passes_paint)
{
    sim_frame a, b;
    ck_assert_int_eq(sim_frame_init(&a, W, H), 0);
    ck_assert_int_eq(sim_frame_init(&b, W, H), 0);
    uint64_t st = 0x9e3779b97f4a7c15ULL;
    int changed = 0, big = 0;
    for (int t = 0; t < 4000; t++) {
        quads q;
        q.n = 1 + (int)(sim_splitmix64(&st) % 6);
        int span = t % 10 == 0 ? 400 : 30, cx = (int)(sim_splitmix64(&st) % (W + 20)) - 10,
            cy = (int)(sim_splitmix64(&st) % (H + 20)) - 10;
        int x0 = INT_MAX, y0 = INT_MAX, x1 = INT_MIN, y1 = INT_MIN;
        for (int i = 0; i < q.n; i++)
            for (int k = 0; k < 4; k++) {
                int x = cx + (int)(sim_splitmix64(&st) % (uint64_t)span) - span / 2;
                int y = cy + (int)(sim_splitmix64(&st) % (uint64_t)span) - span / 2;
                q.xy[i][2 * k] = x;
                q.xy[i][2 * k + 1] = y;
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
        big += (int64_t)(x1 - x0 + 3) * (y1 - y0 + 3) > 16384;
        for (int i = 0; i < W * H; i++) a.px[i] = b.px[i] = (uint8_t)(10 + sim_splitmix64(&st) % 5);
        sim_draw_outlined(&a, quads_paint, &q, FILL, OUT);
        sim_draw_outlined_box(&b, quads_paint, &q, FILL, OUT, x0, y0, x1, y1);
        ck_assert_msg(memcmp(a.px, b.px, (size_t)W * H) == 0, "shape %d differs", t);
        for (int i = 0; i < W * H; i++) changed += a.px[i] == FILL || a.px[i] == OUT;
    }
    ck_assert_int_gt(changed, 10000);      /* the shapes do land on the frame */
    ck_assert_int_gt(big, 0);              /* and some boxes take the five passes */
    sim_frame_free(&a);
    sim_frame_free(&b);
}
END_TEST

Suite *suite_outline(void)
{
    Suite *s = suite_create("outline");
    TCase *tc = tcase_create("outline");
    tcase_add_test(tc, outline_is_the_edge_neighbours_of_the_shape);
    tcase_add_test(tc, box_mask_paints_what_the_five_passes_paint);
    suite_add_tcase(s, tc);
    return s;
}
