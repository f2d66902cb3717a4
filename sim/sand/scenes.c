/* scenes.c — the scenes a sand world starts from: the demo landscape that runs for hours and the
 * benchmark scene. Each lays out cells (unless the world is bare, its cells about to come from a
 * load) and its emitters and drains, which are rebuilt from params and are not part of the state. */
#include "big.h"

static void fill_rect(sand_world *s, int x, int y, int w, int h, int el)
{
    for (int yy = y; yy < y + h; yy++)
        for (int xx = x; xx < x + w; xx++)
            if (inside(s, xx, yy)) s->cells[cidx(s, xx, yy)] = sim__sand_fresh(el, 0);
}

void sim__sand_add_emitter(sand_world *s, int x, int y, int w, int h, int el, int prob, int cycle,
                           int on, int phase)
{
    if (s->nemit == MAX_EMITTERS) return;
    sand_emitter *e = &s->emit[s->nemit++];
    e->x = x; e->y = y; e->w = w < 1 ? 1 : w;
    e->h = h < 1 ? 1 : h;
    e->el = (uint8_t)el; e->el2 = (uint8_t)el; e->prob = (uint16_t)prob;
    e->cycle = (uint16_t)cycle; e->on = (uint16_t)on; e->phase = (uint16_t)phase; e->alt = 0;
}

void sim__sand_add_drain(sand_world *s, int x, int y, int w, int h)
{
    if (s->ndrain == MAX_DRAINS) return;
    sand_drain *d = &s->drain[s->ndrain++];
    d->x = x; d->y = y; d->w = w < 1 ? 1 : w;
    d->h = h < 1 ? 1 : h;
}

/* ---- the demo: a landscape at dusk (issue 13) ----------------------------------------------------
 * Drawn on a 320×180 plan and scaled to the world's size. Left to right: a plateau whose spring
 * pours a waterfall into a lake; a knoll with a tree, a campfire at its foot; sand dunes over a
 * cave where oil seeps from the roof onto a pool of water; a mountain with a glacier in a notch,
 * and under the glacier a lava chamber fed by a fissure. The rock is wall: it never moves, and the
 * renderer paints it as strata, grass and snow. Every source has a sink (the lake's outflow, the
 * cave pool's overflow, the lava chamber's plughole, the sky), and what burns or melts grows back
 * on a timer, so the picture runs for hours.
 *
 * The plan is a function of position only (never of the seed or the cells), so the renderer can
 * ask it too: where the sky is, how deep a rock pixel lies, which wood is leaves. */

typedef struct plan_pt {
    int16_t x, y;
} plan_pt;

/* The top of the rock, left to right: plateau, cliff, lake bed, knoll, desert floor, the
 * mountain's cliff, the glacier's notch (behind a lip), the peak. */
static const plan_pt GROUND[] = {
    { 0, 34 },    { 18, 31 },   { 36, 35 },   { 52, 36 },   { 62, 40 },   { 63, 150 },
    { 72, 156 },  { 96, 162 },  { 124, 160 }, { 136, 150 }, { 146, 124 }, { 152, 113 },
    { 160, 110 }, { 178, 109 }, { 188, 114 }, { 196, 124 }, { 246, 126 }, { 251, 66 },
    { 256, 56 },  { 260, 78 },  { 296, 78 },  { 300, 58 },  { 308, 28 },  { 314, 22 },
    { 319, 26 },
};

int sim__sand_demo_ground(int px)
{
    int n = (int)(sizeof GROUND / sizeof GROUND[0]);
    if (px <= GROUND[0].x) return GROUND[0].y;
    for (int k = 1; k < n; k++)
        if (px <= GROUND[k].x) {
            const plan_pt *a = &GROUND[k - 1], *b = &GROUND[k];
            return a->y + (b->y - a->y) * (px - a->x) / (b->x - a->x);
        }
    return GROUND[n - 1].y;
}

/* The lava chamber's V floor (cells above it are the chamber), under the glacier. */
static int chamber_floor(int px)
{
    int d = px > 278 ? px - 278 : 278 - px;
    return 96 + (16 - d) * 3 / 4;
}

/* The oil cave: an ellipse under the dunes, centre (214, 154), radii 30 and 12. */
static int in_oil_cave(int px, int py)
{
    int dx = px - 214, dy = py - 154;
    return dx * dx * 144 + dy * dy * 900 < 900 * 144;
}

/* The dunes' crest line: a gentle windward slope and a 45° lee (sand rests at 45°). */
static int dune_top(int px)
{
    int a = px <= 220 ? 106 + (220 - px) / 2 : 106 + (px - 220);
    int b = px <= 240 ? 116 + (240 - px) / 2 : 116 + (px - 240);
    return a < b ? a : b;
}

/* The tree: trunk, roots, two boughs and a canopy of stacked slabs. The first TREE_WOOD rects are
 * bark; the rest are leaves. Each rect is also an emitter that regrows it. */
static const struct { int16_t x, y, w, h; } TREE[] = {
    { 167, 84, 4, 26 }, { 163, 106, 11, 4 }, { 159, 90, 8, 2 }, { 171, 94, 8, 2 },
    { 158, 56, 22, 6 }, { 152, 62, 34, 12 }, { 155, 74, 28, 6 }, { 161, 80, 16, 4 },
};
#define TREE_WOOD 4
#define TREE_N ((int)(sizeof TREE / sizeof TREE[0]))

static int in_tree(int px, int py, int from, int to)
{
    for (int k = from; k < to; k++)
        if (px >= TREE[k].x && px < TREE[k].x + TREE[k].w && py >= TREE[k].y &&
            py < TREE[k].y + TREE[k].h)
            return 1;
    return 0;
}

int sim__sand_demo_leaf(int px, int py) { return in_tree(px, py, TREE_WOOD, TREE_N); }

/* The sand cave in the plateau: an ellipse, centre (30, 128), radii 20 and 12. */
static int in_sand_cave(int px, int py)
{
    int dx = px - 30, dy = py - 128;
    return dx * dx * 144 + dy * dy * 400 < 400 * 144;
}

/* The rock shelf over the spring, jutting out of the cliff. */
int sim__sand_demo_overhang(int px, int py) { return px >= 63 && px <= 69 && py >= 40 && py <= 42; }

/* Carved out of the rock: the spring's mouth in the cliff, the lava chamber, the oil cave, the
 * sand cave. */
int sim__sand_demo_cave(int px, int py)
{
    if (px >= 52 && px <= 62 && py >= 43 && py <= 47) return 1;
    if (in_sand_cave(px, py)) return 1;
    if (px >= 262 && px <= 294 && py >= 78 && py < chamber_floor(px)) return 1;
    return in_oil_cave(px, py);
}

/* What a plan position holds at tick 0. */
static int plan_element(int px, int py)
{
    int g = sim__sand_demo_ground(px);
    if ((py >= g && !sim__sand_demo_cave(px, py)) || sim__sand_demo_overhang(px, py)) return SAND_WALL;
    if (py >= g) {                                          /* in a cave */
        if (px >= 262 && px <= 294 && py >= 78) return SAND_LAVA;
        if (in_oil_cave(px, py)) return py >= 157 ? SAND_WATER : py >= 153 ? SAND_OIL : SAND_EMPTY;
        if (in_sand_cave(px, py) && py >= 136 + (px > 30 ? px - 30 : 30 - px)) return SAND_SAND;
        return SAND_EMPTY;
    }
    /* The lake, poured in lopsided (high under the fall, low at the spillway): it levels. */
    if (px > 62 && px < 150 && py >= 100 + (px - 63) / 4) return SAND_WATER;
    if (px >= 276 && px < 280 && py >= 62) return SAND_LAVA;   /* the vent's shaft */
    if (px >= 260 && px < 300 && py >= 62) return SAND_ICE;    /* the glacier */
    if (in_tree(px, py, 0, TREE_N)) return SAND_WOOD;
    if (px >= 184 && px < 252 && py >= dune_top(px)) return SAND_SAND;
    return SAND_EMPTY;
}

void sim__sand_scene_demo(sand_world *s, int build)
{
    if (sim__sand_is_big(s)) {
        sim__sand_scene_big(s, build);
        return;
    }
#define X(v) ((v) * s->w / 320)
#define Y(v) ((v) * s->h / 180)
    if (build)
        for (int y = 0; y < s->h; y++)
            for (int x = 0; x < s->w; x++)
                s->cells[cidx(s, x, y)] = sim__sand_fresh(plan_element(x * 320 / s->w, y * 180 / s->h), 0);
    /* Sources. The spring runs all the time, out of its mouth and from under the shelf as a
     * curtain; the lava vent under the glacier fills whatever melts above it. */
    sim__sand_add_emitter(s, X(56), Y(43), X(13), 1, SAND_WATER, 40, 1, 1, 0);
    /* The chamber is kept full from its roof; the vent erupts through the glacier for 30 s of
     * every 45, and the lava it spills over the ice melts its way down (below the notch's lip,
     * so none escapes). */
    sim__sand_add_emitter(s, X(262), Y(78), X(33), 2, SAND_LAVA, 8, 1, 1, 0);
    sim__sand_add_emitter(s, X(276), Y(59), X(4), 2, SAND_LAVA, 40, 2700, 1800, 0);
    sim__sand_add_emitter(s, X(196), Y(145), X(2), 2, SAND_OIL, 40, 240, 180, 0);     /* the seep drips */
    sim__sand_add_emitter(s, X(29), Y(117), X(2), 1, SAND_SAND, 70, 1, 1, 0);         /* the sand fall */
    /* The campfire at the tree's foot flares 15 s in, and every 40 s after. */
    sim__sand_add_emitter(s, X(160), Y(104), X(3), Y(5), SAND_FIRE, 256, 2400, 40, 1500);
    /* What burns or melts grows back: the tree at 32 s (and every 40 s), the glacier at 40 s,
     * when the vent has drained (and every 45 s). */
    for (int k = 0; k < TREE_N; k++)
        sim__sand_add_emitter(s, X(TREE[k].x), Y(TREE[k].y), X(TREE[k].w), Y(TREE[k].h), SAND_WOOD, 12, 2400,
                    90, 500);
    sim__sand_add_emitter(s, X(260), Y(62), X(40), Y(16), SAND_ICE, 12, 2700, 90, 300);
    /* Sinks: the lake's outflow by the fall (so the rest of the lake lies still), the cave
     * pool's overflow, the sand cave's crack, the lava chamber's plughole, the sky. */
    sim__sand_add_drain(s, X(70), Y(118), X(4), 3);
    sim__sand_add_drain(s, X(238), Y(152), X(7), 1);
    sim__sand_add_drain(s, X(41), Y(134), 1, 4);
    sim__sand_add_drain(s, X(278), Y(107), 1, 1);
    sim__sand_add_drain(s, 0, 0, s->w, 1);
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
                s->cells[cidx(s, x, y)] = sim__sand_fresh(el, 0);
            }
        fill_rect(s, 0, s->h - 1, s->w, 1, SAND_STONE);
    }
    sim__sand_add_emitter(s, s->w / 3, 0, s->w - 2 * (s->w / 3), 1, SAND_SAND, 256, 20, 1, 0);
    s->emit[s->nemit - 1].el2 = SAND_WATER;
    s->emit[s->nemit - 1].alt = 32;
}
