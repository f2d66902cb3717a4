/* check_outline.c — sim/outline.c: the outline is exactly the pixels outside the shape that share
 * an edge with it (one pixel thick, never doubled on a diagonal), the shape keeps its fill, and
 * nothing else is touched. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "outline.h"

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

Suite *suite_outline(void)
{
    Suite *s = suite_create("outline");
    TCase *tc = tcase_create("outline");
    tcase_add_test(tc, outline_is_the_edge_neighbours_of_the_shape);
    suite_add_tcase(s, tc);
    return s;
}
