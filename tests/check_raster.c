/* check_raster.c — sim/raster.c against exact pixels.
 *
 * Expectations are ASCII grids, one string per row: '.' is index 0, '#' is index 1, a digit is
 * that index. Every pixel of the frame is compared. Frames carry guard bytes before and after
 * px, so a primitive that writes outside the frame fails the test that made it. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_suites.h"
#include "sim.h"

/* ---- guarded frames -------------------------------------------------------------------------- */
enum { GUARD = 64, GUARD_BYTE = 0xA5 };   /* no test draws with 0xA5 */

typedef struct gframe {
    sim_frame f;
    uint8_t *mem;
    size_t n;
} gframe;

static void gf_init(gframe *g, int w, int h)
{
    g->n = (size_t)w * (size_t)h;
    g->mem = malloc(g->n + 2 * GUARD);
    ck_assert_ptr_nonnull(g->mem);
    memset(g->mem, GUARD_BYTE, g->n + 2 * GUARD);
    memset(&g->f, 0, sizeof g->f);
    g->f.w = (uint16_t)w;
    g->f.h = (uint16_t)h;
    g->f.px = g->mem + GUARD;
    memset(g->f.px, 0, g->n);
}

static void gf_guards(const gframe *g, const char *what)
{
    for (size_t i = 0; i < GUARD; i++) {
        ck_assert_msg(g->mem[i] == GUARD_BYTE, "%s: wrote %zu bytes before the frame", what,
                      GUARD - i);
        ck_assert_msg(g->mem[GUARD + g->n + i] == GUARD_BYTE,
                      "%s: wrote %zu bytes after the frame", what, i);
    }
}

static void gf_zero(gframe *g)
{
    memset(g->f.px, 0, g->n);
}

static void gf_free(gframe *g)
{
    gf_guards(g, "free");
    free(g->mem);
    g->mem = NULL;
}

/* ---- grid comparison ------------------------------------------------------------------------- */
static int cell_value(char ch)
{
    if (ch == '.') return 0;
    if (ch == '#') return 1;
    if (ch >= '0' && ch <= '9') return ch - '0';
    return -1;
}

static char cell_char(uint8_t v)
{
    if (v == 0) return '.';
    if (v == 1) return '#';
    if (v <= 9) return (char)('0' + v);
    return '?';
}

static void append(char *dst, size_t cap, const char *s)
{
    size_t len = strlen(dst);
    while (*s && len + 1 < cap) dst[len++] = *s++;
    dst[len] = '\0';
}

/* Compare every pixel of f with rows; on a mismatch fail with both pictures side by side. */
static void expect_grid(const sim_frame *f, const char *const *rows, int nrows, const char *what,
                        int line)
{
    ck_assert_msg(nrows == f->h, "line %d %s: grid has %d rows, frame %d", line, what, nrows,
                  (int)f->h);
    int bad_x = -1, bad_y = -1;
    for (int y = 0; y < f->h; y++) {
        ck_assert_msg(strlen(rows[y]) == f->w, "line %d %s: grid row %d is %zu wide, frame %d",
                      line, what, y, strlen(rows[y]), (int)f->w);
        for (int x = 0; x < f->w; x++) {
            int want = cell_value(rows[y][x]);
            ck_assert_msg(want >= 0, "line %d %s: bad grid char '%c'", line, what, rows[y][x]);
            if (bad_x < 0 && f->px[y * f->w + x] != want) { bad_x = x; bad_y = y; }
        }
    }
    if (bad_x < 0) return;
    char msg[4096] = "";
    char row[128];
    append(msg, sizeof msg, "\n  got         want\n");
    for (int y = 0; y < f->h; y++) {
        size_t k = 0;
        row[k++] = ' '; row[k++] = ' ';
        for (int x = 0; x < f->w && k < 60; x++) row[k++] = cell_char(f->px[y * f->w + x]);
        while (k < 14) row[k++] = ' ';
        row[k++] = ' ';
        for (int x = 0; x < f->w && k < 120; x++) row[k++] = rows[y][x];
        row[k++] = '\n';
        row[k] = '\0';
        append(msg, sizeof msg, row);
    }
    ck_abort_msg("line %d %s: pixel (%d, %d) is %d, want %d%s", line, what, bad_x, bad_y,
                 f->px[bad_y * f->w + bad_x], cell_value(rows[bad_y][bad_x]), msg);
}

#define GRID(...) (const char *const[]){__VA_ARGS__}
#define NROWS(...) ((int)(sizeof(GRID(__VA_ARGS__)) / sizeof(const char *)))
#define EXPECT(f, what, ...) expect_grid((f), GRID(__VA_ARGS__), NROWS(__VA_ARGS__), (what), __LINE__)

static const char *const EMPTY9[9] = {
    ".........", ".........", ".........", ".........", ".........",
    ".........", ".........", ".........", ".........",
};
static const char *const FULL9[9] = {
    "#########", "#########", "#########", "#########", "#########",
    "#########", "#########", "#########", "#########",
};

static int count_value(const sim_frame *f, uint8_t v)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)f->w * f->h; i++) n += f->px[i] == v;
    return n;
}

/* Deterministic generator for property tests (PCG-free on purpose: no dependency on rng.c). */
static uint32_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(*s >> 33);
}

static int lcg_range(uint64_t *s, int lo, int hi)
{
    return lo + (int)(lcg(s) % (uint32_t)(hi - lo + 1));
}

/* ---- sim_snap -------------------------------------------------------------------------------- */
START_TEST(test_snap)
{
    static const struct { double v; int want; } cases[] = {
        {0.0, 0}, {-0.0, 0}, {0.5, 1}, {-0.5, 0}, {1.5, 2}, {-1.5, -1}, {2.5, 3}, {-2.5, -2},
        {2.4999, 2}, {-2.4999, -2}, {2.5001, 3}, {-2.5001, -3}, {0.49999999999999994, 0},
        {-0.49999999999999994, 0}, {-0.5000000000000001, -1}, {7.0, 7}, {-7.0, -7},
        {1e9 + 0.5, 1000000001}, {-1e9 - 0.5, -1000000000},
        {2147483646.49, 2147483646}, {2147483646.5, INT_MAX}, {2147483647.0, INT_MAX},
        {2147483648.0, INT_MAX}, {1e300, INT_MAX}, {-2147483647.5, -2147483647},
        {-2147483647.75, INT_MIN}, {-2147483648.0, INT_MIN}, {-2147483648.5, INT_MIN},
        {-2147483649.0, INT_MIN}, {-1e300, INT_MIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(sim_snap(cases[i].v) == cases[i].want, "sim_snap(%.17g) = %d, want %d",
                      cases[i].v, sim_snap(cases[i].v), cases[i].want);
    ck_assert_int_eq(sim_snap(INFINITY), INT_MAX);
    ck_assert_int_eq(sim_snap(-INFINITY), INT_MIN);
    ck_assert_int_eq(sim_snap(NAN), 0);
    ck_assert_int_eq(sim_snap(-NAN), 0);
}
END_TEST

/* ---- clear and rect -------------------------------------------------------------------------- */
START_TEST(test_clear)
{
    gframe g;
    gf_init(&g, 9, 9);
    sim_raster_clear(&g.f, 1);
    expect_grid(&g.f, FULL9, 9, "clear 1", __LINE__);
    sim_raster_clear(&g.f, 0);
    expect_grid(&g.f, EMPTY9, 9, "clear 0", __LINE__);
    gf_free(&g);
}
END_TEST

START_TEST(test_rect)
{
    gframe g;
    gf_init(&g, 9, 9);
    sim_raster_rect(&g.f, 2, 3, 4, 2, 1);
    EXPECT(&g.f, "rect inside",
           ".........", ".........", ".........", "..####...", "..####...",
           ".........", ".........", ".........", ".........");

    gf_zero(&g);   /* hanging off the left and top edges */
    sim_raster_rect(&g.f, -3, -2, 5, 4, 1);
    EXPECT(&g.f, "rect clipped left/top",
           "##.......", "##.......", ".........", ".........", ".........",
           ".........", ".........", ".........", ".........");

    gf_zero(&g);   /* hanging off the right and bottom edges */
    sim_raster_rect(&g.f, 6, 7, 10, 10, 2);
    EXPECT(&g.f, "rect clipped right/bottom",
           ".........", ".........", ".........", ".........", ".........",
           ".........", ".........", "......222", "......222");

    gf_zero(&g);   /* bigger than the frame on every side */
    sim_raster_rect(&g.f, -5, -5, 20, 20, 1);
    expect_grid(&g.f, FULL9, 9, "rect over all", __LINE__);

    gf_zero(&g);   /* one pixel; and everything that must draw nothing */
    sim_raster_rect(&g.f, 4, 4, 1, 1, 3);
    sim_raster_rect(&g.f, 1, 1, 0, 5, 1);
    sim_raster_rect(&g.f, 1, 1, 5, 0, 1);
    sim_raster_rect(&g.f, 1, 1, -3, 5, 1);
    sim_raster_rect(&g.f, 1, 1, 5, -3, 1);
    sim_raster_rect(&g.f, 9, 0, 3, 3, 1);
    sim_raster_rect(&g.f, 0, 9, 3, 3, 1);
    sim_raster_rect(&g.f, -3, 0, 3, 3, 1);
    sim_raster_rect(&g.f, 0, -3, 3, 3, 1);
    EXPECT(&g.f, "rect 1x1 and empty rects",
           ".........", ".........", ".........", ".........", "....3....",
           ".........", ".........", ".........", ".........");
    gf_free(&g);
}
END_TEST

/* ---- lines ----------------------------------------------------------------------------------- */
typedef struct line_case {
    int x0, y0, x1, y1;
    const char *rows[9];
} line_case;

/* One line per octant from the centre, each with slope ±1/2 so every other column is an exact
 * tie (ties go toward +y, or +x for steep lines), then two lines without ties and a clipped one. */
static const line_case LINES[] = {
    {4, 4, 8, 6, {".........", ".........", ".........", ".........", "....#....",
                  ".....##..", ".......##", ".........", "........."}},
    {4, 4, 6, 8, {".........", ".........", ".........", ".........", "....#....",
                  ".....#...", ".....#...", "......#..", "......#.."}},
    {4, 4, 2, 8, {".........", ".........", ".........", ".........", "....#....",
                  "....#....", "...#.....", "...#.....", "..#......"}},
    {4, 4, 0, 6, {".........", ".........", ".........", ".........", "....#....",
                  "..##.....", "##.......", ".........", "........."}},
    {4, 4, 0, 2, {".........", ".........", "#........", ".##......", "...##....",
                  ".........", ".........", ".........", "........."}},
    {4, 4, 2, 0, {"..#......", "...#.....", "...#.....", "....#....", "....#....",
                  ".........", ".........", ".........", "........."}},
    {4, 4, 6, 0, {"......#..", "......#..", ".....#...", ".....#...", "....#....",
                  ".........", ".........", ".........", "........."}},
    {4, 4, 8, 2, {".........", ".........", "........#", "......##.", "....##...",
                  ".........", ".........", ".........", "........."}},
    {0, 0, 8, 3, {"##.......", "..##.....", "....###..", ".......##", ".........",
                  ".........", ".........", ".........", "........."}},
    {1, 8, 4, 0, {"....#....", "....#....", "...#.....", "...#.....", "...#.....",
                  "..#......", "..#......", ".#.......", ".#......."}},
    {-4, -2, 12, 6, {"#........", ".##......", "...##....", ".....##..", ".......##",
                     ".........", ".........", ".........", "........."}},
    {1, 2, 7, 2, {".........", ".........", ".#######.", ".........", ".........",
                  ".........", ".........", ".........", "........."}},
    {3, 1, 3, 7, {".........", "...#.....", "...#.....", "...#.....", "...#.....",
                  "...#.....", "...#.....", "...#.....", "........."}},
    {0, 8, 8, 0, {"........#", ".......#.", "......#..", ".....#...", "....#....",
                  "...#.....", "..#......", ".#.......", "#........"}},
    {1, 1, 7, 7, {".........", ".#.......", "..#......", "...#.....", "....#....",
                  ".....#...", "......#..", ".......#.", "........."}},
    {5, 6, 5, 6, {".........", ".........", ".........", ".........", ".........",
                  ".........", ".....#...", ".........", "........."}},
};

START_TEST(test_line_shapes)
{
    gframe g;
    gf_init(&g, 9, 9);
    for (size_t i = 0; i < sizeof LINES / sizeof LINES[0]; i++) {
        const line_case *lc = &LINES[i];
        char what[96];
        gf_zero(&g);
        sim_raster_line(&g.f, lc->x0, lc->y0, lc->x1, lc->y1, 1);
        snprintf(what, sizeof what, "line (%d,%d)-(%d,%d)", lc->x0, lc->y0, lc->x1, lc->y1);
        expect_grid(&g.f, lc->rows, 9, what, __LINE__);
        gf_zero(&g);   /* the same pixels with the endpoints swapped */
        sim_raster_line(&g.f, lc->x1, lc->y1, lc->x0, lc->y0, 1);
        snprintf(what, sizeof what, "line (%d,%d)-(%d,%d)", lc->x1, lc->y1, lc->x0, lc->y0);
        expect_grid(&g.f, lc->rows, 9, what, __LINE__);
    }
    gf_free(&g);
}
END_TEST

/* Random lines inside a frame: one pixel per major-axis step, 8-connected, both endpoints set,
 * and order-independent. */
START_TEST(test_line_properties)
{
    enum { W = 40 };
    gframe a, b;
    gf_init(&a, W, W);
    gf_init(&b, W, W);
    uint64_t s = 12345;
    for (int it = 0; it < 2000; it++) {
        int x0 = lcg_range(&s, 0, W - 1), y0 = lcg_range(&s, 0, W - 1);
        int x1 = lcg_range(&s, 0, W - 1), y1 = lcg_range(&s, 0, W - 1);
        gf_zero(&a);
        gf_zero(&b);
        sim_raster_line(&a.f, x0, y0, x1, y1, 1);
        sim_raster_line(&b.f, x1, y1, x0, y0, 1);
        ck_assert_msg(memcmp(a.f.px, b.f.px, a.n) == 0, "line (%d,%d)-(%d,%d) depends on order",
                      x0, y0, x1, y1);
        ck_assert_msg(a.f.px[y0 * W + x0] == 1 && a.f.px[y1 * W + x1] == 1,
                      "line (%d,%d)-(%d,%d) misses an endpoint", x0, y0, x1, y1);
        int adx = abs(x1 - x0), ady = abs(y1 - y0);
        int steep = ady > adx, n = (steep ? ady : adx) + 1;
        ck_assert_msg(count_value(&a.f, 1) == n, "line (%d,%d)-(%d,%d): %d pixels, want %d",
                      x0, y0, x1, y1, count_value(&a.f, 1), n);
        /* exactly one pixel per major step, each within one minor step of the last */
        int ulo = steep ? (y0 < y1 ? y0 : y1) : (x0 < x1 ? x0 : x1), prev = -1;
        for (int u = ulo; u < ulo + n; u++) {
            int found = -1, count = 0;
            for (int v = 0; v < W; v++) {
                if ((steep ? a.f.px[u * W + v] : a.f.px[v * W + u]) == 1) { found = v; count++; }
            }
            ck_assert_msg(count == 1, "line (%d,%d)-(%d,%d): %d pixels at major %d", x0, y0, x1,
                          y1, count, u);
            ck_assert_msg(prev < 0 || abs(found - prev) <= 1,
                          "line (%d,%d)-(%d,%d) is not 8-connected at major %d", x0, y0, x1, y1,
                          u);
            prev = found;
        }
    }
    gf_free(&a);
    gf_free(&b);
}
END_TEST

/* ---- discs and rings ------------------------------------------------------------------------- */
START_TEST(test_circle)
{
    gframe g;
    gf_init(&g, 9, 9);
    sim_raster_circle(&g.f, 4, 4, -1, 1);
    expect_grid(&g.f, EMPTY9, 9, "disc r=-1", __LINE__);
    sim_raster_circle(&g.f, 4, 4, 0, 1);
    EXPECT(&g.f, "disc r=0",
           ".........", ".........", ".........", ".........", "....#....",
           ".........", ".........", ".........", ".........");
    gf_zero(&g);
    sim_raster_circle(&g.f, 4, 4, 1, 1);
    EXPECT(&g.f, "disc r=1",
           ".........", ".........", ".........", "...###...", "...###...",
           "...###...", ".........", ".........", ".........");
    gf_zero(&g);
    sim_raster_circle(&g.f, 4, 4, 2, 1);
    EXPECT(&g.f, "disc r=2",
           ".........", ".........", "...###...", "..#####..", "..#####..",
           "..#####..", "...###...", ".........", ".........");
    gf_zero(&g);
    sim_raster_circle(&g.f, 4, 4, 3, 1);
    EXPECT(&g.f, "disc r=3",
           ".........", "...###...", "..#####..", ".#######.", ".#######.",
           ".#######.", "..#####..", "...###...", ".........");
    gf_zero(&g);   /* clipped by the top-left corner and the bottom-right corner */
    sim_raster_circle(&g.f, 0, 0, 2, 1);
    sim_raster_circle(&g.f, 9, 9, 2, 2);
    EXPECT(&g.f, "disc clipped",
           "###......", "###......", "##.......", ".........", ".........",
           ".........", ".........", "........2", ".......22");
    gf_free(&g);
}
END_TEST

START_TEST(test_ring)
{
    gframe g;
    gf_init(&g, 9, 9);
    sim_raster_ring(&g.f, 4, 4, -1, 1);
    expect_grid(&g.f, EMPTY9, 9, "ring r=-1", __LINE__);
    sim_raster_ring(&g.f, 4, 4, 0, 1);
    EXPECT(&g.f, "ring r=0",
           ".........", ".........", ".........", ".........", "....#....",
           ".........", ".........", ".........", ".........");
    gf_zero(&g);
    sim_raster_ring(&g.f, 4, 4, 1, 1);
    EXPECT(&g.f, "ring r=1",
           ".........", ".........", ".........", "...###...", "...#.#...",
           "...###...", ".........", ".........", ".........");
    gf_zero(&g);
    sim_raster_ring(&g.f, 4, 4, 2, 1);
    EXPECT(&g.f, "ring r=2",
           ".........", ".........", "...###...", "..#...#..", "..#...#..",
           "..#...#..", "...###...", ".........", ".........");
    gf_zero(&g);
    sim_raster_ring(&g.f, 4, 4, 3, 1);
    EXPECT(&g.f, "ring r=3",
           ".........", "...###...", "..#...#..", ".#.....#.", ".#.....#.",
           ".#.....#.", "..#...#..", "...###...", ".........");
    gf_zero(&g);   /* a ring drawn over its disc leaves exactly the interior showing */
    sim_raster_circle(&g.f, 4, 4, 3, 2);
    sim_raster_ring(&g.f, 4, 4, 3, 1);
    EXPECT(&g.f, "ring r=3 over disc r=3",
           ".........", "...###...", "..#222#..", ".#22222#.", ".#22222#.",
           ".#22222#.", "..#222#..", "...###...", ".........");
    gf_free(&g);
}
END_TEST

/* ---- capsules -------------------------------------------------------------------------------- */
START_TEST(test_capsule)
{
    gframe g;
    gf_init(&g, 13, 9);
    sim_raster_capsule(&g.f, 3, 4, 9, 4, 2.0, 2.0, 1);
    EXPECT(&g.f, "capsule horizontal r=2",
           ".............", ".............", "..#########..", ".###########.", ".###########.",
           ".###########.", "..#########..", ".............", ".............");
    gf_zero(&g);
    sim_raster_capsule(&g.f, 2, 4, 10, 4, 3.0, 0.0, 1);
    EXPECT(&g.f, "capsule tapered 3->0",
           ".............", ".####........", "########.....", "##########...", "###########..",
           "##########...", "########.....", ".####........", ".............");
    gf_zero(&g);   /* a radius that turns negative covers nothing from about where it crosses 0 */
    sim_raster_capsule(&g.f, 1, 4, 11, 4, 2.0, -3.0, 1);
    sim_raster_capsule(&g.f, 1, 4, 11, 4, -3.0, 2.0, 2);
    EXPECT(&g.f, "capsule tapering through zero",
           ".............", ".............", "###.......222", "#####...22222", "#####...22222",
           "#####...22222", "###.......222", ".............", ".............");
    gf_zero(&g);   /* negative radii draw nothing; a NaN radius draws nothing */
    sim_raster_capsule(&g.f, 2, 4, 10, 4, -1.0, -3.0, 1);
    sim_raster_capsule(&g.f, 2, 4, 10, 4, NAN, 2.0, 1);
    sim_raster_capsule(&g.f, 2, 4, 10, 4, 2.0, NAN, 1);
    ck_assert_int_eq(count_value(&g.f, 1), 0);
    gf_free(&g);

    gf_init(&g, 11, 9);
    sim_raster_capsule(&g.f, 2, 6, 8, 2, 1.0, 1.0, 1);
    EXPECT(&g.f, "capsule diagonal r=1",
           "...........", ".......###.", "......####.", "....######.", "...#####...",
           ".######....", ".####......", ".###.......", "...........");
    gf_free(&g);

    gf_init(&g, 12, 10);
    sim_raster_capsule(&g.f, 2, 2, 9, 7, 0.0, 2.5, 1);
    EXPECT(&g.f, "capsule diagonal tapered 0->2.5",
           "............", "............", "..###.......", "..######....", "...#######..",
           "....########", ".....#######", "......######", ".......#####", ".......#####");
    gf_free(&g);

    gf_init(&g, 9, 9);
    sim_raster_capsule(&g.f, 4, 4, 4, 4, 1.0, 3.0, 1);   /* degenerate: disc of max radius */
    EXPECT(&g.f, "capsule degenerate r=max(1,3)",
           ".........", "...###...", "..#####..", ".#######.", ".#######.",
           ".#######.", "..#####..", "...###...", ".........");
    gf_zero(&g);   /* r² + r = 9.99 reaches (±3, 0) although the radius is under 3 */
    sim_raster_capsule(&g.f, 4, 4, 4, 4, 2.7, 0.0, 1);
    EXPECT(&g.f, "capsule point r=2.7",
           ".........", "....#....", "..#####..", "..#####..", ".#######.",
           "..#####..", "..#####..", "....#....", ".........");
    gf_zero(&g);
    sim_raster_capsule(&g.f, 6, 2, 6, 2, 0.0, 0.0, 1);
    EXPECT(&g.f, "capsule point r=0",
           ".........", ".........", "......#..", ".........", ".........",
           ".........", ".........", ".........", ".........");
    gf_free(&g);

    /* At integer radii a capsule's ends are sim_raster_circle's discs, exactly. */
    gframe a, b;
    gf_init(&a, 31, 31);
    gf_init(&b, 31, 31);
    for (int r = 0; r <= 8; r++) {
        gf_zero(&a);
        gf_zero(&b);
        sim_raster_capsule(&a.f, 15, 15, 15, 15, r, r, 1);
        sim_raster_circle(&b.f, 15, 15, r, 1);
        ck_assert_msg(memcmp(a.f.px, b.f.px, a.n) == 0, "capsule point r=%d differs from disc", r);
        gf_zero(&a);   /* a long segment: beyond each end only the end disc can cover */
        sim_raster_capsule(&a.f, 15, 15, 40, 15, r, 0.5, 1);
        for (int y = 0; y < 31; y++)
            for (int x = 0; x < 15; x++)
                ck_assert_msg(a.f.px[y * 31 + x] == b.f.px[y * 31 + x],
                              "capsule r=%d end cap differs from disc at (%d,%d)", r, x, y);
    }
    gf_free(&a);
    gf_free(&b);
}
END_TEST

/* The capsule rule (sim/raster.c), written again from its definition for the tests: the union of
 * the discs swept along a–b, the one at a + t·d covering squared distances up to T(t) = T0 + ΔT·t.
 * Pixel p (its offset from a) is covered when the least over t in [0, 1] of
 * g(t) = |p − t·d|² − T(t) = len2·t² − (2n + ΔT)·t + |p|² − T0 is at most 0. g's vertex is at
 * t* = (2n + ΔT) / (2·len2): clamped to 0 that is |p|² ≤ T0, clamped to 1 |p − d|² ≤ T1, and in
 * between g(t*) ≤ 0 is 4·len2·(|p|² − T0) ≤ (2n + ΔT)². In __int128, which holds all of it while
 * |ddx|, |ddy| ≤ 2^24 and |px|, |py| < 2^33; longer segments (only the far-off ones of the random
 * test) take the equivalent test sim/raster.c documents, with its bound on the cross product. */
__extension__ typedef __int128 i128;

static int64_t ref_threshold(double r)    /* floor(r·r + r), −1 − floor(r·r − r) below 0; |r| ≤ 2^20 */
{
    double a = fmin(fabs(r), 1048576.0);
    int64_t t = (int64_t)floor(a * a + a);
    return r < 0.0 ? -1 - t : t;
}

static int ref_covers(int64_t px, int64_t py, int64_t ddx, int64_t ddy, int64_t T0, int64_t T1)
{
    i128 len2 = (i128)ddx * ddx + (i128)ddy * ddy, dT = (i128)T1 - T0;
    i128 p2 = (i128)px * px + (i128)py * py, n = (i128)px * ddx + (i128)py * ddy;
    if (len2 == 0) return p2 <= (T0 > T1 ? T0 : T1);
    i128 a = 2 * n + dT;
    if (a <= 0) return p2 <= T0;
    if (a >= 2 * len2) return p2 - 2 * n + len2 <= T1;
    const int64_t lim = (int64_t)1 << 24;
    if (ddx >= -lim && ddx <= lim && ddy >= -lim && ddy <= lim)
        return 4 * len2 * (p2 - T0) <= a * a;
    i128 c = (i128)px * ddy - (i128)py * ddx;
    const i128 climit = (i128)1 << 55;
    if (c >= climit || c <= -climit) return 0;
    return 4 * c * c <= 4 * len2 * T0 + 4 * n * dT + dT * dT;
}

/* The rule over pixels [xa, xb] × [ya, yb] of f (clipped to it), pixel by pixel. */
static void ref_capsule(sim_frame *f, int x0, int y0, int x1, int y1, double r0, double r1, uint8_t c,
                        int64_t xa, int64_t xb, int64_t ya, int64_t yb)
{
    if (r0 != r0 || r1 != r1) return;
    int64_t T0 = ref_threshold(r0), T1 = ref_threshold(r1);
    if (xa < 0) xa = 0;
    if (ya < 0) ya = 0;
    if (xb > f->w - 1) xb = f->w - 1;
    if (yb > f->h - 1) yb = f->h - 1;
    for (int64_t y = ya; y <= yb; y++)
        for (int64_t x = xa; x <= xb; x++)
            if (ref_covers(x - x0, y - y0, (int64_t)x1 - x0, (int64_t)y1 - y0, T0, T1))
                f->px[y * f->w + x] = c;
}

/* Every short segment (both coordinates in −7..7) with every pair of a few radii (negative, zero,
 * fractional, the doll's kind and integers), centred in a 41×41 frame: the fill against the rule
 * on every pixel of the frame. */
START_TEST(test_capsule_small_all)
{
    static const double radii[] = {-2.0, -0.5, 0.0, 0.5, 1.0, 4.0 / 3.0, 2.0, 2.5, 3.2, 4.4};
    const int nr = (int)(sizeof radii / sizeof radii[0]);
    gframe a, b;
    gf_init(&a, 41, 41);
    gf_init(&b, 41, 41);
    long drawn = 0;
    for (int dy = -7; dy <= 7; dy++)
        for (int dx = -7; dx <= 7; dx++)
            for (int i = 0; i < nr; i++)
                for (int j = 0; j < nr; j++) {
                    gf_zero(&a);
                    gf_zero(&b);
                    ref_capsule(&a.f, 20, 20, 20 + dx, 20 + dy, radii[i], radii[j], 1, 0, 40, 0, 40);
                    sim_raster_capsule(&b.f, 20, 20, 20 + dx, 20 + dy, radii[i], radii[j], 1);
                    if (memcmp(a.f.px, b.f.px, a.n) != 0) {
                        long k = 0;
                        while (a.f.px[k] == b.f.px[k]) k++;
                        ck_abort_msg("capsule (20,20)-(%d,%d) r %g -> %g: pixel (%ld,%ld) is %d by the rule, %d by the fill",
                                     20 + dx, 20 + dy, radii[i], radii[j], k % 41, k / 41, a.f.px[k], b.f.px[k]);
                    }
                    drawn++;
                }
    ck_assert_int_eq(drawn, 15 * 15 * nr * nr);
    gf_free(&a);
    gf_free(&b);
}
END_TEST

/* A radius for the random test: mostly what drawing code passes (small, often a world radius times
 * a scale such as 2/3), sometimes exact integers and halves, zero, tiny, huge, negative or NaN. */
static double span_radius(uint64_t *s)
{
    static const double special[] = {0.0, 1e-300, 0.5, 1.0, 2.0, 2.5, 3.0, 1.0 / 3.0,
                                     0.9999999999999999, 1.0000000000000002, 40.0, 1e3, 2e6,
                                     1e300, INFINITY, -0.5, -1.0, -3.0, -1e6, -INFINITY, NAN};
    switch (lcg(s) % 6) {
    case 0: return special[lcg(s) % (sizeof special / sizeof special[0])];
    case 1: return (double)lcg_range(s, 0, 24) * 0.5;
    case 2: return (double)lcg_range(s, 1, 90) * 0.1 * (2.0 / 3.0);     /* the doll's */
    default: return (double)(lcg(s) % 1000000) * 1e-5;                  /* 0 .. 10 */
    }
}

/* An endpoint coordinate along an axis of size n: mostly on or just off the frame, on each edge,
 * sometimes far away (past the fill's bounds: it tests those pixel by pixel). */
static int span_coord(uint64_t *s, int n)
{
    switch (lcg(s) % 10) {
    case 0: return lcg_range(s, -3, 3);                             /* the low edge */
    case 1: return n - 1 + lcg_range(s, -3, 3);                     /* the high edge */
    case 2: {
        static const int far[] = {-40, -1000, 100000, -8388608, 8388608, 8388609, -8388609,
                                  1000000000, INT_MIN, INT_MAX};
        return far[lcg(s) % (sizeof far / sizeof far[0])];
    }
    default: return lcg_range(s, -12, n + 12);
    }
}

static int add_sat(int a, int d)                /* a + d, kept inside the int range */
{
    int64_t v = (int64_t)a + d;
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* The row-by-row fill against the rule, pixel by pixel, on 158,000 random capsules: tapered and
 * not, degenerate (zero length, zero, tiny, huge or negative radius, NaN), off the frame (far
 * enough for the fill's pixel-by-pixel path), clipped at every edge and corner, strongly tapered.
 * The rule is applied to the whole frame (the big one: the capsule's box and 3 pixels around it,
 * the rest must stay blank), and the capsule drawn from b to a must be the same. */
START_TEST(test_capsule_rows_equal_rule)
{
    static const int sizes[][2] = {{37, 23}, {1, 1}, {1, 9}, {9, 1}, {320, 180}};
    uint64_t s = 20261201;
    long drawn = 0;
    for (int sz = 0; sz < 5; sz++) {
        int w = sizes[sz][0], h = sizes[sz][1];
        gframe a, b, rev;
        gf_init(&a, w, h);
        gf_init(&b, w, h);
        gf_init(&rev, w, h);
        int n = sz == 0 ? 60000 : sz == 4 ? 8000 : 30000;      /* the big frame costs the most */
        for (int it = 0; it < n; it++) {
            int x0 = span_coord(&s, w), y0 = span_coord(&s, h), x1, y1;
            switch (lcg(&s) % 8) {
            case 0: x1 = x0; y1 = y0; break;                                  /* a disc */
            case 1: x1 = add_sat(x0, lcg_range(&s, -30, 30)); y1 = y0; break;   /* horizontal */
            case 2: x1 = x0; y1 = add_sat(y0, lcg_range(&s, -30, 30)); break;   /* vertical */
            case 3: { int d = lcg_range(&s, -20, 20); x1 = add_sat(x0, d); y1 = add_sat(y0, lcg(&s) & 1 ? d : -d); break; }
            case 4: x1 = span_coord(&s, w); y1 = span_coord(&s, h); break;      /* anywhere */
            default: x1 = add_sat(x0, lcg_range(&s, -25, 25)); y1 = add_sat(y0, lcg_range(&s, -25, 25)); break;
            }
            double r0 = span_radius(&s), r1 = span_radius(&s);
            if (lcg(&s) % 4 == 0) r1 = r0;                                      /* untapered */
            if (lcg(&s) % 8 == 0) { r0 = (double)lcg_range(&s, 0, 3) * 0.25; r1 = r0 + lcg_range(&s, 4, 14); }
            if (lcg(&s) % 16 == 0) {                              /* centred on an edge or a corner */
                x0 = (lcg(&s) & 1) ? 0 : w - 1;
                y0 = (lcg(&s) & 1) ? lcg_range(&s, 0, h - 1) : (lcg(&s) & 1) ? 0 : h - 1;
            }
            uint8_t c = (uint8_t)(1 + it % 250);
            if (it % 32 == 0) {                                     /* start again from a blank */
                gf_zero(&a);
                gf_zero(&b);
            }
            if (sz == 4) {
                int64_t m = (int64_t)fmin(fmax(fmax(r0, r1), 0.0), 1048576.0) + 4;    /* √(r² + r) < r + 1 */
                ref_capsule(&a.f, x0, y0, x1, y1, r0, r1, c, (x0 < x1 ? x0 : x1) - m,
                            (int64_t)(x0 > x1 ? x0 : x1) + m, (y0 < y1 ? y0 : y1) - m,
                            (int64_t)(y0 > y1 ? y0 : y1) + m);
            } else {
                ref_capsule(&a.f, x0, y0, x1, y1, r0, r1, c, 0, w - 1, 0, h - 1);
            }
            sim_raster_capsule(&b.f, x0, y0, x1, y1, r0, r1, c);
            if (it % 2) {
                memcpy(rev.f.px, b.f.px, b.n);
                sim_raster_capsule(&rev.f, x1, y1, x0, y0, r1, r0, c);
                ck_assert_msg(memcmp(rev.f.px, b.f.px, b.n) == 0, "capsule %d differs drawn from b", it);
            }
            if (memcmp(a.f.px, b.f.px, a.n) != 0) {
                long first = 0;
                while (a.f.px[first] == b.f.px[first]) first++;
                ck_abort_msg("%dx%d frame, capsule %d: (%d,%d)-(%d,%d) r %.17g -> %.17g: pixel (%ld,%ld) is "
                             "%d by the rule, %d by the fill", w, h, it, x0, y0, x1, y1, r0, r1,
                             first % w, first / w, a.f.px[first], b.f.px[first]);
            }
            drawn++;
        }
        gf_free(&a);
        gf_free(&b);
        gf_free(&rev);
    }
    ck_assert_int_eq(drawn, 158000);
}
END_TEST

/* ---- polygons -------------------------------------------------------------------------------- */
START_TEST(test_polygon_shapes)
{
    gframe g;
    gf_init(&g, 9, 9);
    static const int tri[] = {1, 1, 8, 1, 1, 8};
    sim_raster_polygon(&g.f, tri, 3, 1);
    EXPECT(&g.f, "triangle: bottom row and right edge are excluded (half-open)",
           ".........", ".#######.", ".######..", ".#####...", ".####....",
           ".###.....", ".##......", ".#.......", ".........");
    gf_zero(&g);
    static const int tri2[] = {0, 0, 8, 3, 3, 8};
    sim_raster_polygon(&g.f, tri2, 3, 1);
    EXPECT(&g.f, "triangle with fractional crossings",
           ".........", ".##......", ".#####...", "..######.", "..#####..",
           "..####...", "...##....", "...#.....", ".........");
    gf_zero(&g);
    static const int cshape[] = {1, 1, 8, 1, 8, 3, 4, 3, 4, 6, 8, 6, 8, 8, 1, 8};
    sim_raster_polygon(&g.f, cshape, 8, 1);
    EXPECT(&g.f, "concave C",
           ".........", ".#######.", ".#######.", ".###.....", ".###.....",
           ".###.....", ".#######.", ".#######.", ".........");
    gf_zero(&g);
    static const int chevron[] = {1, 1, 8, 4, 1, 8, 4, 4};
    sim_raster_polygon(&g.f, chevron, 4, 1);
    EXPECT(&g.f, "concave chevron",
           ".........", ".........", "..##.....", "...###...", "....####.",
           "....###..", "...##....", "..#......", ".........");
    gf_zero(&g);   /* clipped on every side */
    static const int big[] = {-1, 4, 4, -1, 9, 4, 4, 9};
    sim_raster_polygon(&g.f, big, 4, 1);
    EXPECT(&g.f, "diamond clipped (half-open: right and bottom tips excluded)",
           "...##....", "..####...", ".######..", "########.", "#########",
           "########.", ".######..", "..####...", "...##....");
    gf_free(&g);
}
END_TEST

START_TEST(test_polygon_evenodd)
{
    gframe g;
    gf_init(&g, 9, 9);
    static const int bowtie[] = {1, 1, 7, 7, 7, 1, 1, 7};
    sim_raster_polygon(&g.f, bowtie, 4, 1);
    EXPECT(&g.f, "bow-tie",
           ".........", ".........", ".#....#..", ".##..##..", ".######..",
           ".##..##..", ".#....#..", ".........", ".........");
    gf_zero(&g);   /* a square wound twice: every point has winding 2, so even-odd is empty */
    static const int twice[] = {1, 1, 7, 1, 7, 7, 1, 7, 1, 1, 7, 1, 7, 7, 1, 7};
    sim_raster_polygon(&g.f, twice, 8, 1);
    expect_grid(&g.f, EMPTY9, 9, "square wound twice", __LINE__);
    gf_free(&g);

    gf_init(&g, 11, 10);   /* pentagram: the centre pentagon has winding 2 and stays empty */
    static const int star[] = {5, 0, 8, 9, 0, 3, 10, 3, 2, 9};
    sim_raster_polygon(&g.f, star, 5, 1);
    EXPECT(&g.f, "pentagram",
           "...........", ".....#.....", ".....#.....", "####..####.", "..##...##..",
           "...#...#...", "...#..#....", "...##.##...", "...#...#...", "...........");
    gf_free(&g);
}
END_TEST

START_TEST(test_polygon_shared_edge)
{
    gframe g;
    gf_init(&g, 9, 9);
    /* square split along each diagonal: the halves tile it exactly */
    static const int t1[] = {1, 1, 8, 1, 8, 8}, t2[] = {1, 1, 8, 8, 1, 8};
    sim_raster_polygon(&g.f, t1, 3, 1);
    sim_raster_polygon(&g.f, t2, 3, 2);
    EXPECT(&g.f, "square split on the main diagonal",
           ".........", ".1111111.", ".2111111.", ".2211111.", ".2221111.",
           ".2222111.", ".2222211.", ".2222221.", ".........");
    gf_zero(&g);
    static const int t3[] = {8, 1, 8, 8, 1, 8}, t4[] = {1, 1, 8, 1, 1, 8};
    sim_raster_polygon(&g.f, t3, 3, 1);
    sim_raster_polygon(&g.f, t4, 3, 2);
    EXPECT(&g.f, "square split on the anti-diagonal",
           ".........", ".2222222.", ".2222221.", ".2222211.", ".2222111.",
           ".2221111.", ".2211111.", ".2111111.", ".........");
    gf_zero(&g);   /* a quad split on a slanted edge with fractional crossings */
    static const int q1[] = {1, 0, 8, 2, 7, 8}, q2[] = {1, 0, 7, 8, 0, 6};
    sim_raster_polygon(&g.f, q1, 3, 1);
    sim_raster_polygon(&g.f, q2, 3, 2);
    EXPECT(&g.f, "quad split on a slanted edge",
           ".........", ".2111....", ".2211111.", ".2221111.", ".2221111.",
           ".2222111.", "22222211.", "....2221.", ".........");
    /* The same, counted: each half into its own frame; their sum must be the whole quad's
     * coverage, never 2 (overlap) and never short of it (gap). */
    gframe a, b, q;
    gf_init(&a, 9, 9);
    gf_init(&b, 9, 9);
    gf_init(&q, 9, 9);
    static const int quad[] = {1, 0, 8, 2, 7, 8, 0, 6};
    sim_raster_polygon(&a.f, q1, 3, 1);
    sim_raster_polygon(&b.f, q2, 3, 1);
    sim_raster_polygon(&q.f, quad, 4, 1);
    for (size_t i = 0; i < a.n; i++)
        ck_assert_msg(a.f.px[i] + b.f.px[i] == q.f.px[i], "pixel (%zu,%zu): halves %d+%d, quad %d",
                      i % 9, i / 9, a.f.px[i], b.f.px[i], q.f.px[i]);
    ck_assert_int_eq(count_value(&q.f, 1), 44);
    gf_free(&a);
    gf_free(&b);
    gf_free(&q);
    gf_free(&g);
}
END_TEST

/* Random pairs of triangles ABC, ABD with C and D on opposite sides of AB: together they cover
 * the quad ACBD exactly once, with vertices off-frame too. */
START_TEST(test_polygon_shared_random)
{
    enum { W = 32 };
    gframe a, b, q;
    gf_init(&a, W, W);
    gf_init(&b, W, W);
    gf_init(&q, W, W);
    uint64_t s = 777;
    int tested = 0;
    while (tested < 1000) {
        int p[8];
        for (int i = 0; i < 8; i++) p[i] = lcg_range(&s, -10, W + 10);
        int ax = p[0], ay = p[1], bx = p[2], by = p[3], cx = p[4], cy = p[5], dx = p[6], dy = p[7];
        long sc = (long)(bx - ax) * (cy - ay) - (long)(by - ay) * (cx - ax);
        long sd = (long)(bx - ax) * (dy - ay) - (long)(by - ay) * (dx - ax);
        if (!((sc > 0 && sd < 0) || (sc < 0 && sd > 0))) continue;
        tested++;
        const int t1[] = {ax, ay, bx, by, cx, cy}, t2[] = {bx, by, ax, ay, dx, dy};
        const int quad[] = {ax, ay, cx, cy, bx, by, dx, dy};
        gf_zero(&a);
        gf_zero(&b);
        gf_zero(&q);
        sim_raster_polygon(&a.f, t1, 3, 1);
        sim_raster_polygon(&b.f, t2, 3, 1);
        sim_raster_polygon(&q.f, quad, 4, 1);
        for (size_t i = 0; i < a.n; i++)
            ck_assert_msg(a.f.px[i] + b.f.px[i] == q.f.px[i],
                          "A(%d,%d) B(%d,%d) C(%d,%d) D(%d,%d): pixel (%zu,%zu) halves %d+%d, "
                          "quad %d", ax, ay, bx, by, cx, cy, dx, dy, i % W, i / W, a.f.px[i],
                          b.f.px[i], q.f.px[i]);
    }
    gf_free(&a);
    gf_free(&b);
    gf_free(&q);
}
END_TEST

/* The rule itself, pixel by pixel: (x, y) is covered when an odd number of edges cross row y
 * at some X ≤ x, X exact (products of coordinates under 2^18 fit in 64 bits; no stepping). Random polygons of 3 to 12 vertices,
 * small and clipped, with long edges and rows far from the vertices. */
START_TEST(test_polygon_matches_the_rule)
{
    enum { W = 24, H = 20 };
    gframe g;
    gf_init(&g, W, H);
    uint64_t s = 4242;
    long covered = 0;
    for (int t = 0; t < 3000; t++) {
        int n = lcg_range(&s, 3, 12), xy[24];
        int lo = t % 4 == 0 ? -100000 : -8, hi = t % 4 == 0 ? 100000 : W + 8;
        for (int i = 0; i < 2 * n; i++) xy[i] = lcg_range(&s, lo, hi);
        gf_zero(&g);
        sim_raster_polygon(&g.f, xy, n, 1);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int odd = 0;
                for (int i = 0; i < n; i++) {
                    int j = (i + 1) % n;
                    long long x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * j], y1 = xy[2 * j + 1];
                    if (y0 == y1 || y < (y0 < y1 ? y0 : y1) || y >= (y0 < y1 ? y1 : y0)) continue;
                    /* X = x0 + (x1 − x0)(y − y0)/(y1 − y0); X ≤ x ⇔ (x − x0)(y1 − y0) ≥
                     * (x1 − x0)(y − y0) when y1 > y0 (flip for y1 < y0) */
                    long long lhs = (x - x0) * (y1 - y0), rhs = (x1 - x0) * (y - y0);
                    odd ^= y1 > y0 ? lhs >= rhs : lhs <= rhs;
                }
                ck_assert_msg(g.f.px[y * W + x] == odd, "polygon %d pixel (%d,%d): %d, rule %d", t,
                              x, y, g.f.px[y * W + x], odd);
                covered += odd;
            }
    }
    ck_assert_int_gt(covered, 100000);
    gf_free(&g);
}
END_TEST

START_TEST(test_polygon_limits)
{
    gframe g;
    gf_init(&g, 9, 9);
    static const int tri[] = {1, 1, 8, 1, 1, 8};
    sim_raster_polygon(&g.f, tri, 2, 1);
    sim_raster_polygon(&g.f, tri, 0, 1);
    sim_raster_polygon(&g.f, tri, -1, 1);
    sim_raster_polygon(&g.f, NULL, 3, 1);
    static const int flat[] = {1, 4, 8, 4, 4, 4};   /* zero area */
    sim_raster_polygon(&g.f, flat, 3, 1);
    expect_grid(&g.f, EMPTY9, 9, "degenerate polygons", __LINE__);

    /* 64 vertices are accepted (61 copies of one corner, then the square's other three);
     * 65 draw nothing. */
    int xy[2 * 65];
    for (int i = 0; i < 61; i++) { xy[2 * i] = 1; xy[2 * i + 1] = 1; }
    static const int rest[] = {8, 1, 8, 8, 1, 8};
    memcpy(xy + 122, rest, sizeof rest);
    sim_raster_polygon(&g.f, xy, 64, 1);
    EXPECT(&g.f, "64-vertex square",
           ".........", ".#######.", ".#######.", ".#######.", ".#######.",
           ".#######.", ".#######.", ".#######.", ".........");
    gf_zero(&g);
    xy[128] = 1; xy[129] = 8;   /* vertex 65 repeats the last one */
    sim_raster_polygon(&g.f, xy, 65, 1);
    expect_grid(&g.f, EMPTY9, 9, "65 vertices draw nothing", __LINE__);
    gf_free(&g);
}
END_TEST

/* ---- blit ------------------------------------------------------------------------------------ */
static const uint8_t SPRITE_PX[] = {1, 2, 3, 4, 5, 6};   /* 3×2 */

START_TEST(test_blit)
{
    gframe g;
    gf_init(&g, 7, 6);
    sim_sprite s = {3, 2, SPRITE_PX, -1};
    sim_raster_blit(&g.f, &s, 2, 3, 0);
    EXPECT(&g.f, "blit",
           ".......", ".......", ".......", "..123..", "..456..", ".......");
    gf_zero(&g);
    sim_raster_blit(&g.f, &s, 2, 3, SIM_BLIT_FLIPX);
    EXPECT(&g.f, "blit FLIPX",
           ".......", ".......", ".......", "..321..", "..654..", ".......");
    gf_zero(&g);
    sim_raster_blit(&g.f, &s, 2, 3, SIM_BLIT_FLIPY);
    EXPECT(&g.f, "blit FLIPY",
           ".......", ".......", ".......", "..456..", "..123..", ".......");
    gf_zero(&g);
    sim_raster_blit(&g.f, &s, 2, 3, SIM_BLIT_FLIPX | SIM_BLIT_FLIPY);
    EXPECT(&g.f, "blit FLIPX|FLIPY",
           ".......", ".......", ".......", "..654..", "..321..", ".......");

    /* transparent key: 5 is skipped over a background of 9; key -1 copies even index 0 */
    sim_raster_clear(&g.f, 9);
    s.key = 5;
    sim_raster_blit(&g.f, &s, 0, 0, 0);
    static const uint8_t holes[] = {0, 2, 0, 4, 0, 6};
    sim_sprite h = {3, 2, holes, 0};
    sim_raster_blit(&g.f, &h, 4, 0, 0);
    h.key = -1;
    sim_raster_blit(&g.f, &h, 4, 3, 0);
    EXPECT(&g.f, "blit with keys",
           "1239929", "4969496", "9999999", "9999020", "9999406", "9999999");

    /* clipped at every edge, flips applied within the sprite's own rectangle */
    gf_zero(&g);
    s.key = -1;
    sim_raster_blit(&g.f, &s, -1, -1, SIM_BLIT_FLIPX);                 /* shows s(1,1), s(0,1) */
    sim_raster_blit(&g.f, &s, 5, 5, SIM_BLIT_FLIPX | SIM_BLIT_FLIPY);  /* shows 6, 5 */
    sim_raster_blit(&g.f, &s, 5, 2, 0);                                /* columns 0-1 */
    sim_raster_blit(&g.f, &s, -2, 3, SIM_BLIT_FLIPY);                  /* column 2, flipped */
    sim_raster_blit(&g.f, &s, 7, 0, 0);                                /* all outside */
    sim_raster_blit(&g.f, &s, -3, 0, 0);
    sim_raster_blit(&g.f, &s, 0, 6, 0);
    sim_raster_blit(&g.f, &s, 0, -2, 0);
    EXPECT(&g.f, "blit clipped",
           "54.....", ".......", ".....12", "6....45", "3......", ".....65");

    /* an empty sprite, a sprite without pixels and no sprite draw nothing */
    gf_zero(&g);
    sim_sprite empty = {0, 0, SPRITE_PX, -1}, nopx = {3, 2, NULL, -1};
    sim_raster_blit(&g.f, &empty, 1, 1, 0);
    sim_raster_blit(&g.f, &nopx, 1, 1, 0);
    sim_raster_blit(&g.f, NULL, 1, 1, 0);
    ck_assert_int_eq(count_value(&g.f, 0), 42);
    gf_free(&g);
}
END_TEST

/* ---- extreme inputs -------------------------------------------------------------------------- */
START_TEST(test_extreme_exact)
{
    gframe g;
    gf_init(&g, 9, 9);
    /* lines: exact over the whole int range (products exceed 2^63 here) */
    sim_raster_line(&g.f, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 1);
    EXPECT(&g.f, "line INT_MIN..INT_MAX diagonal",
           "#........", ".#.......", "..#......", "...#.....", "....#....",
           ".....#...", "......#..", ".......#.", "........#");
    gf_zero(&g);   /* y = x − (x + 2^31)/(2^32 − 1): just below a tie, so it rounds down */
    sim_raster_line(&g.f, INT_MAX, INT_MAX - 1, INT_MIN, INT_MIN, 1);
    EXPECT(&g.f, "line just off the diagonal",
           ".#.......", "..#......", "...#.....", "....#....", ".....#...",
           "......#..", ".......#.", "........#", ".........");
    gf_zero(&g);
    const int K = 1000000000;   /* slope 1/2 through (4, 4), endpoints two billion apart */
    sim_raster_line(&g.f, 4 - 2 * K, 4 - K, 4 + 2 * K, 4 + K, 1);
    sim_raster_line(&g.f, 4 + 2 * K, 4 + K, 4 - 2 * K, 4 - K, 1);
    EXPECT(&g.f, "line slope 1/2 from far away",
           ".........", ".........", "#........", ".##......", "...##....",
           ".....##..", ".......##", ".........", ".........");
    gf_zero(&g);
    sim_raster_line(&g.f, INT_MIN, 0, INT_MAX, 0, 1);
    sim_raster_line(&g.f, 8, INT_MAX, 8, INT_MIN, 2);
    sim_raster_line(&g.f, INT_MAX, INT_MAX, INT_MAX, INT_MIN, 3);   /* all outside */
    sim_raster_line(&g.f, INT_MIN, INT_MIN, INT_MIN, INT_MIN, 3);
    sim_raster_line(&g.f, INT_MIN, INT_MAX, INT_MAX, INT_MIN, 3);   /* y = −x − 1 */
    EXPECT(&g.f, "lines across the int range",
           "########2", "........2", "........2", "........2", "........2",
           "........2", "........2", "........2", "........2");

    /* rects */
    gf_zero(&g);
    sim_raster_rect(&g.f, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 3);   /* ends at −2 */
    sim_raster_rect(&g.f, INT_MAX, INT_MAX, INT_MAX, INT_MAX, 3);
    sim_raster_rect(&g.f, INT_MAX, 0, INT_MAX, 9, 3);
    sim_raster_rect(&g.f, INT_MIN, 0, INT_MAX, 9, 3);
    sim_raster_rect(&g.f, -1, 2, INT_MAX, 1, 1);
    sim_raster_rect(&g.f, 3, -1, 1, INT_MAX, 2);
    EXPECT(&g.f, "rects across the int range",
           "...2.....", "...2.....", "###2#####", "...2.....", "...2.....",
           "...2.....", "...2.....", "...2.....", "...2.....");
    gf_zero(&g);
    sim_raster_rect(&g.f, -5, -5, INT_MAX, INT_MAX, 1);
    expect_grid(&g.f, FULL9, 9, "rect to INT_MAX", __LINE__);

    /* discs and rings with radius up to INT_MAX */
    gf_zero(&g);
    sim_raster_circle(&g.f, INT_MIN, 4, INT_MAX, 1);   /* reaches x = −1 at most */
    sim_raster_circle(&g.f, INT_MIN, INT_MIN, INT_MAX, 1);
    sim_raster_circle(&g.f, INT_MAX, INT_MAX, INT_MAX, 1);
    sim_raster_ring(&g.f, 4, 4, INT_MAX, 1);           /* the frame is all interior */
    sim_raster_ring(&g.f, INT_MIN, INT_MIN, INT_MAX, 1);
    expect_grid(&g.f, EMPTY9, 9, "far discs and a huge ring draw nothing", __LINE__);
    sim_raster_circle(&g.f, 4, 4, INT_MAX, 1);
    expect_grid(&g.f, FULL9, 9, "disc r=INT_MAX", __LINE__);
    gf_zero(&g);   /* left edge of a disc two billion wide sits on column 4 for every row */
    sim_raster_circle(&g.f, INT_MAX, 4, INT_MAX - 4, 2);
    sim_raster_ring(&g.f, INT_MAX, 4, INT_MAX - 4, 1);
    EXPECT(&g.f, "huge disc and ring edge",
           "....#2222", "....#2222", "....#2222", "....#2222", "....#2222",
           "....#2222", "....#2222", "....#2222", "....#2222");

    /* capsules */
    gf_zero(&g);
    sim_raster_capsule(&g.f, INT_MIN, 4, INT_MAX, 4, 1.0, 1.0, 1);
    EXPECT(&g.f, "capsule INT_MIN..INT_MAX r=1",
           ".........", ".........", ".........", "#########", "#########",
           "#########", ".........", ".........", ".........");
    gf_zero(&g);
    sim_raster_capsule(&g.f, 4, 4, 4, 4, -INFINITY, -1e300, 1);
    sim_raster_capsule(&g.f, 4, 4, 4, 4, NAN, 1e300, 1);
    sim_raster_capsule(&g.f, INT_MIN, INT_MIN, INT_MIN, INT_MIN, 1e9, 1e9, 1);
    sim_raster_capsule(&g.f, INT_MAX, INT_MAX, INT_MAX, INT_MIN, 3.0, 3.0, 1);
    expect_grid(&g.f, EMPTY9, 9, "capsules that draw nothing", __LINE__);
    sim_raster_capsule(&g.f, 4, 4, 4, 4, 1e300, 0.0, 1);
    expect_grid(&g.f, FULL9, 9, "capsule r=1e300", __LINE__);
    gf_zero(&g);
    sim_raster_capsule(&g.f, INT_MIN, INT_MAX, INT_MAX, INT_MIN, INFINITY, INFINITY, 1);
    expect_grid(&g.f, FULL9, 9, "capsule r=inf", __LINE__);

    /* polygons */
    gf_zero(&g);
    static const int all[] = {INT_MIN, INT_MIN, INT_MAX, INT_MIN, INT_MAX, INT_MAX,
                              INT_MIN, INT_MAX};
    sim_raster_polygon(&g.f, all, 4, 1);
    expect_grid(&g.f, FULL9, 9, "polygon over the int range", __LINE__);
    gf_zero(&g);   /* X = y + (y + 2^31)/(2^32 − 2): just past y + 1/2, so ceil is y + 1 */
    static const int upper[] = {INT_MIN, INT_MIN, INT_MAX, INT_MAX - 1, INT_MAX, INT_MIN};
    sim_raster_polygon(&g.f, upper, 3, 1);
    EXPECT(&g.f, "polygon with a two-billion-long edge",
           ".########", "..#######", "...######", "....#####", ".....####",
           "......###", ".......##", "........#", ".........");
    gf_zero(&g);
    static const int away[] = {INT_MIN, INT_MIN, INT_MAX, INT_MIN, INT_MIN, INT_MAX};
    sim_raster_polygon(&g.f, away, 3, 1);   /* hypotenuse x + y = −1 */
    expect_grid(&g.f, EMPTY9, 9, "polygon beside the frame", __LINE__);

    /* blits */
    sim_sprite s = {3, 2, SPRITE_PX, -1};
    sim_raster_blit(&g.f, &s, INT_MAX, INT_MAX, SIM_BLIT_FLIPX);
    sim_raster_blit(&g.f, &s, INT_MIN, INT_MIN, SIM_BLIT_FLIPY);
    sim_raster_blit(&g.f, &s, INT_MIN, 0, 0);
    sim_raster_blit(&g.f, &s, 0, INT_MAX, 0);
    expect_grid(&g.f, EMPTY9, 9, "blits far away", __LINE__);
    gf_free(&g);
}
END_TEST

static int pick_coord(uint64_t *s)
{
    static const int special[] = {INT_MIN, INT_MIN + 1, -1000000000, -65536, -1, 0, 4, 8, 9,
                                  65535, 65536, 1000000000, INT_MAX - 1, INT_MAX};
    uint32_t k = lcg(s) % 4;
    if (k == 0) return special[lcg(s) % (sizeof special / sizeof special[0])];
    if (k == 1) {                                       /* anywhere */
        int v = (int)lcg(s);                            /* 0 .. 2^31 − 1 */
        return (lcg(s) & 1u) ? v - INT_MAX : v;
    }
    return lcg_range(s, -12, 20);
}

static double pick_radius(uint64_t *s)
{
    static const double special[] = {0.0, 0.5, 1.0, 2.5, -1.0, -2.0, 1e9, 1e300, -1e300,
                                     2147483647.0};
    uint32_t k = lcg(s) % 4;
    if (k == 0) return special[lcg(s) % (sizeof special / sizeof special[0])];
    if (k == 1) {
        uint32_t w = lcg(s) % 3;
        return w == 0 ? NAN : w == 1 ? INFINITY : -INFINITY;
    }
    return (double)lcg_range(s, -2, 12) * 0.5;
}

/* Random calls with any int coordinates: nothing may land outside the frame. Run it under
 * SANITIZE=address,undefined to also catch overflow. */
START_TEST(test_extreme_fuzz)
{
    gframe g;
    gf_init(&g, 13, 7);
    uint64_t s = 4242;
    static const uint8_t px[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (int it = 0; it < 20000; it++) {
        int a = pick_coord(&s), b = pick_coord(&s), c = pick_coord(&s), d = pick_coord(&s);
        uint8_t col = (uint8_t)(1 + it % 200);
        switch (it % 7) {
        case 0: sim_raster_rect(&g.f, a, b, c, d, col); break;
        case 1: sim_raster_line(&g.f, a, b, c, d, col); break;
        case 2: sim_raster_circle(&g.f, a, b, c, col); break;
        case 3: sim_raster_ring(&g.f, a, b, c, col); break;
        case 4: sim_raster_capsule(&g.f, a, b, c, d, pick_radius(&s), pick_radius(&s), col);
                break;
        case 5: {
            int xy[16];
            int n = 3 + (int)(lcg(&s) % 6);
            for (int i = 0; i < 2 * n; i++) xy[i] = pick_coord(&s);
            sim_raster_polygon(&g.f, xy, n, col);
            break;
        }
        default: {
            sim_sprite sp = {(uint16_t)(1 + lcg(&s) % 4), (uint16_t)(1 + lcg(&s) % 3), px, 3};
            sim_raster_blit(&g.f, &sp, a, b, lcg(&s) % 4);
            break;
        }
        }
        if (it % 64 == 0) gf_guards(&g, "fuzz");
    }
    gf_free(&g);
}
END_TEST

/* An empty frame (no pixels) is drawable: every primitive does nothing. */
START_TEST(test_empty_frame)
{
    sim_frame f;
    memset(&f, 0, sizeof f);
    static const int tri[] = {0, 0, 5, 0, 0, 5};
    sim_sprite s = {3, 2, SPRITE_PX, -1};
    sim_raster_clear(&f, 1);
    sim_raster_rect(&f, 0, 0, 5, 5, 1);
    sim_raster_line(&f, 0, 0, 5, 5, 1);
    sim_raster_circle(&f, 0, 0, 5, 1);
    sim_raster_ring(&f, 0, 0, 5, 1);
    sim_raster_capsule(&f, 0, 0, 5, 5, 2.0, 2.0, 1);
    sim_raster_polygon(&f, tri, 3, 1);
    sim_raster_blit(&f, &s, 0, 0, 0);
    ck_assert_ptr_null(f.px);
    ck_assert_int_eq(f.w, 0);
}
END_TEST

Suite *suite_raster(void)
{
    Suite *s = suite_create("raster");
    TCase *tc = tcase_create("shapes");
    tcase_add_test(tc, test_snap);
    tcase_add_test(tc, test_clear);
    tcase_add_test(tc, test_rect);
    tcase_add_test(tc, test_line_shapes);
    tcase_add_test(tc, test_line_properties);
    tcase_add_test(tc, test_circle);
    tcase_add_test(tc, test_ring);
    tcase_add_test(tc, test_capsule);
    tcase_add_test(tc, test_capsule_small_all);
    tcase_add_test(tc, test_capsule_rows_equal_rule);
    tcase_add_test(tc, test_polygon_shapes);
    tcase_add_test(tc, test_polygon_evenodd);
    tcase_add_test(tc, test_polygon_shared_edge);
    tcase_add_test(tc, test_polygon_shared_random);
    tcase_add_test(tc, test_polygon_matches_the_rule);
    tcase_add_test(tc, test_polygon_limits);
    tcase_add_test(tc, test_blit);
    suite_add_tcase(s, tc);
    TCase *ex = tcase_create("extreme");
    tcase_add_test(ex, test_extreme_exact);
    tcase_add_test(ex, test_extreme_fuzz);
    tcase_add_test(ex, test_empty_frame);
    suite_add_tcase(s, ex);
    return s;
}
