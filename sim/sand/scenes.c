/* scenes.c — the scenes a sand world starts from: the demo machine that runs for hours and the
 * benchmark scene. Each lays out cells (unless the world is bare, its cells about to come from a
 * load) and its emitters and drains, which are rebuilt from params and are not part of the state. */
#include "sand_int.h"

static void fill_rect(sand_world *s, int x, int y, int w, int h, int el)
{
    for (int yy = y; yy < y + h; yy++)
        for (int xx = x; xx < x + w; xx++)
            if (inside(s, xx, yy)) s->cells[yy * s->w + xx] = sim__sand_fresh(el, 0);
}

/* A thick wall line, for funnels and slopes. */
static void wall_line(sand_world *s, int x0, int y0, int x1, int y1, int thick)
{
    int dx = x1 > x0 ? x1 - x0 : x0 - x1, dy = y1 > y0 ? y1 - y0 : y0 - y1;
    int n = dx > dy ? dx : dy;
    for (int k = 0; k <= n; k++) {
        int x = n ? x0 + (x1 - x0) * k / n : x0, y = n ? y0 + (y1 - y0) * k / n : y0;
        fill_rect(s, x, y, thick, thick, SAND_WALL);
    }
}

static void add_emitter(sand_world *s, int x, int y, int w, int h, int el, int prob, int cycle,
                        int on, int phase)
{
    if (s->nemit == MAX_EMITTERS) return;
    sand_emitter *e = &s->emit[s->nemit++];
    e->x = (int16_t)x; e->y = (int16_t)y; e->w = (int16_t)(w < 1 ? 1 : w);
    e->h = (int16_t)(h < 1 ? 1 : h);
    e->el = (uint8_t)el; e->el2 = (uint8_t)el; e->prob = (uint16_t)prob;
    e->cycle = (uint16_t)cycle; e->on = (uint16_t)on; e->phase = (uint16_t)phase; e->alt = 0;
}

static void add_drain(sand_world *s, int x, int y, int w, int h)
{
    if (s->ndrain == MAX_DRAINS) return;
    sand_drain *d = &s->drain[s->ndrain++];
    d->x = (int16_t)x; d->y = (int16_t)y; d->w = (int16_t)(w < 1 ? 1 : w);
    d->h = (int16_t)(h < 1 ? 1 : h);
}

/* The demo: a machine that runs for hours. Every source has a sink — a drain along the bottom,
 * a slow plughole in the basin, a lava outlet, a vent in the roof — and what burns or melts grows
 * back on a timer, so the world neither fills up nor runs dry. Laid out on a 320×180 plan and
 * scaled to the world's size. `build` is 0 for a bare world (emitters only, cells from a load). */
void sim__sand_scene_demo(sand_world *s, int build)
{
#define X(v) ((v) * s->w / 320)
#define Y(v) ((v) * s->h / 180)
    if (build) {
        /* Frame: side walls; the floor is the drain row. */
        fill_rect(s, 0, 0, X(2) + 1, s->h, SAND_WALL);
        fill_rect(s, s->w - X(2) - 1, 0, X(2) + 1, s->h, SAND_WALL);
        /* Left: the sand hourglass — a funnel onto a shelf, spilling into the pit. */
        wall_line(s, X(8), Y(62), X(44), Y(96), 2);
        wall_line(s, X(88), Y(62), X(52), Y(96), 2);
        fill_rect(s, X(22), Y(150), X(56), 2, SAND_WALL);
        /* Centre: the basin, with a plughole in its floor. */
        fill_rect(s, X(108), Y(104), 3, Y(150) - Y(104), SAND_WALL);
        fill_rect(s, X(210), Y(104), 3, Y(150) - Y(104), SAND_WALL);
        fill_rect(s, X(108), Y(150), X(105), 3, SAND_WALL);
        /* Stone block under the acid drip, on a wall shelf. */
        fill_rect(s, X(118), Y(80), X(26), Y(10), SAND_STONE);
        fill_rect(s, X(116), Y(90), X(30), 2, SAND_WALL);
        /* Right: a V-shaped lava pool draining at its point. */
        wall_line(s, X(228), Y(138), X(266), Y(168), 2);
        wall_line(s, X(312), Y(138), X(268) + 1, Y(168), 2);
        /* The wooden deck and its shelf; the ice block on its ledge. */
        fill_rect(s, X(262), Y(104), X(40), 2, SAND_WALL);
        fill_rect(s, X(262), Y(100), X(40), Y(4), SAND_WOOD);
        fill_rect(s, X(232), Y(132), X(16), 2, SAND_WALL);
        fill_rect(s, X(234), Y(118), X(12), Y(14), SAND_ICE);
    }
    /* Sources. */
    add_emitter(s, X(44), 2, X(6), 2, SAND_SAND, 150, 600, 420, 0);          /* hourglass */
    add_emitter(s, X(150), 2, X(4), 2, SAND_WATER, 200, 900, 600, 100);      /* water tap */
    add_emitter(s, X(178), 2, X(3), 2, SAND_OIL, 120, 1100, 300, 500);       /* oil tap */
    add_emitter(s, X(130), 2, X(2), 2, SAND_ACID, 100, 700, 70, 300);        /* acid drip */
    add_emitter(s, X(240), Y(128), X(40), 2, SAND_LAVA, 90, 600, 420, 0);   /* lava fall */
    add_emitter(s, X(252), 2, X(2), 2, SAND_WATER, 60, 700, 60, 250);        /* rain on lava */
    add_emitter(s, X(300), Y(160), X(6), 2, SAND_GAS, 90, 1000, 160, 0);     /* gas vent */
    add_emitter(s, X(296), Y(70), 1, 1, SAND_FIRE, 256, 1000, 4, 600);       /* spark */
    add_emitter(s, X(262) - 1, Y(99), 1, Y(4), SAND_FIRE, 256, 2400, 30, 1500); /* torch: deck */
    add_emitter(s, X(234) - 1, Y(122), 1, Y(8), SAND_FIRE, 256, 1800, 40, 900); /* torch: ice */
    /* What burns, melts or dissolves grows back. */
    add_emitter(s, X(262), Y(100), X(40), Y(4), SAND_WOOD, 256, 2400, 1, 2300);
    add_emitter(s, X(234), Y(118), X(12), Y(14), SAND_ICE, 256, 1800, 1, 1700);
    add_emitter(s, X(118), Y(80), X(26), Y(10), SAND_STONE, 256, 1500, 1, 1400);
    /* Sinks. */
    add_drain(s, 0, s->h - 1, s->w, 1);                              /* the floor */
    add_drain(s, X(158), Y(150), X(3), 3);                           /* basin plughole */
    add_drain(s, X(268), Y(168), 1, 2);                              /* lava outlet */
    add_drain(s, X(250), 0, s->w - X(250), 1);                       /* roof vent */
#undef X
#undef Y
}

/* The benchmark scene (issue 2): stone floor, 25% sand / 20% water / 3% stone at random, and
 * every 20 ticks the empty top-row cells of the middle third get sand or water, alternating
 * every 32 ticks. */
void sim__sand_scene_bench(sand_world *s, uint64_t seed, int build)
{
    if (build) {
        sim_rng rng;
        sim_rng_stream(&rng, seed, "sand.bench");
        for (int y = 0; y < s->h - 1; y++)
            for (int x = 0; x < s->w; x++) {
                uint32_t v = sim_rng_below(&rng, 100);
                int el = v < 25 ? SAND_SAND : v < 45 ? SAND_WATER : v < 48 ? SAND_STONE : SAND_EMPTY;
                s->cells[y * s->w + x] = sim__sand_fresh(el, 0);
            }
        fill_rect(s, 0, s->h - 1, s->w, 1, SAND_STONE);
    }
    add_emitter(s, s->w / 3, 0, s->w - 2 * (s->w / 3), 1, SAND_SAND, 256, 20, 1, 0);
    s->emit[s->nemit - 1].el2 = SAND_WATER;
    s->emit[s->nemit - 1].alt = 32;
}
