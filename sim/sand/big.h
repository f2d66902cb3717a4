/* big.h — private to sim/sand/: the demo scene of a big world (beyond 640×480, issue 30). A small
 * world's demo is one 320×180 plan scaled to the world (scenes.c); a big one is composed at its
 * own size, at the pixel scale of that plan: a row of biomes across the width (a waterfall into a
 * lake, a forest with a campfire, dunes over an oil seep, a volcano under a glacier, hot springs
 * with a geyser), caves under all of them, and a sea of lava at the bottom. The layout is a
 * function of the size and the seed; the cells, the emitters and drains, and the picture's
 * per-position colours all come from it. big.c lays it out, big_art.c draws its rock and sky. */
#ifndef VIVARIUM_SAND_BIG_H
#define VIVARIUM_SAND_BIG_H
#include "sand_int.h"

/* A world is big, and composed here, when either side is beyond the 640×480 the small plan was
 * ever used at (every chain recorded before issue 30 is at most that). */
#define SAND_SMALL_W 640
#define SAND_SMALL_H 480

enum { BK_FALLS, BK_FOREST, BK_DUNES, BK_VOLCANO, BK_SPRINGS, BK_COUNT };

/* Rock styles (big_art.c draws each): by biome, and a few by feature. */
enum { RS_EARTH, RS_SANDSTONE, RS_GRANITE, RS_BASALT, RS_TRAVERTINE, RS_COUNT };

/* The plan of one position: the element it holds at tick 0 (bits 0–3) and, for wall, its rock
 * style (bits 4–6); for anything else, whether a cave's wall lies behind it (BP_CAVE) and whether
 * wood there is leaves (BP_LEAF). */
#define BP_EL(p) ((p) & 15)
#define BP_STYLE(p) (((p) >> 4) & 7)
#define BP_CAVE 0x10
#define BP_LEAF 0x20
static inline uint8_t bp_rock(int style) { return (uint8_t)(SAND_WALL | style << 4); }

#define BIG_MAX_BIOMES 16          /* 4096 wide: 12 at most (BIG_MIN_W each) */
#define BIG_MAX_BOXES 96
#define BIG_MAX_TREES 5            /* per forest */
#define BIG_TREE_RECTS 8

typedef struct big_box {
    int cx, cy, rx, ry;             /* an ellipse round a feature's bounding box */
} big_box;

/* A chamber deep under a biome: an acid grotto (sand trickles into acid and fumes), a cavern lake
 * fed by a waterfall from its roof, or a grotto of ice crystals. */
enum { CH_ACID, CH_LAKE, CH_CRYSTAL };
#define BIG_MAX_CHAMBERS 4

typedef struct big_chamber {
    int kind, cx, cy, rx, ry;
} big_chamber;

typedef struct big_tree {
    int x, y, num;                  /* trunk's left edge, ground row under it, size in quarters */
} big_tree;

/* One biome: its columns and the anchors of its features (world coordinates; which are used
 * depends on the kind). */
typedef struct big_biome {
    int kind, x0, w;
    uint32_t var;                   /* variation bits, from the seed */
    int phase;                      /* its timers' offset in ticks, so biomes take turns */
    int a, b, c;                    /* falls: the cliff, the lake's far end, the water level;
                                       volcano: the crater's centre, its floor, its half-width;
                                       springs: the centre, the pool's surface, its half-width */
    int ntree;
    big_tree tree[BIG_MAX_TREES];
    int nch;
    big_chamber ch[BIG_MAX_CHAMBERS];
} big_biome;

typedef struct big_seg {
    int x0, y0, x1, y1, r;          /* a worm's step: a capsule of radius r */
} big_seg;

#define BIG_MAX_SEGS 2048
#define SEG_BAND 64                 /* a step spans at most 2 × 7 + 14 < 64 rows: two bands */
#define BIG_MAX_BANDS (SAND_H_MAX / SEG_BAND + 1)

/* What one column's cave test needs: the keep boxes that reach it, and the worm steps that do,
 * by bands of SEG_BAND rows (band b's are seg[first[b]] .. seg[first[b + 1] - 1]). */
typedef struct column_set {
    int nbox;
    const big_box *box[BIG_MAX_BOXES];
    int first[BIG_MAX_BANDS + 1];
    const big_seg *seg[2 * BIG_MAX_SEGS];
} column_set;

/* One noise's lattice cell, kept while a column is scanned down it (sim__sand_big_noise). */
typedef struct noise_cell {
    int gx, gy, cell, c[4];
} noise_cell;
#define BIG_NOISES 16               /* salts 0..15 */

/* The layout, and its scratch: allocated with a big demo world (sim__sand_big_alloc), never
 * saved; computed again from (w, h, seed) whenever the scene or the picture is built. */
struct sand_big {
    int w, h;
    uint64_t seed;
    int base;                       /* the row of the plains */
    int vk;                         /* vertical scale, /1024: features shrink in low worlds */
    int *ground;                    /* per column: the first row of rock under the sky */
    uint8_t *cols;                  /* three columns of plan (big_art.c turns them round) */
    int nb;
    big_biome b[BIG_MAX_BIOMES];
    int nkeep;
    big_box keep[BIG_MAX_BOXES];    /* designed features: no cave is carved here */
    int nseg;
    big_seg seg[BIG_MAX_SEGS];      /* the worms' tunnels */
    int cave_top;                   /* caves only this far below the ground */
    int lava_top;                   /* caves below this row hold the lava sea */
    column_set cs;
    noise_cell nc[BIG_NOISES];
};

/* big.c: the layout of world s (from its size and seed) in s->big, allocated by alloc; a
 * column's plan; the noise the layout and the picture use; the scene: cells from the plan (when
 * `build`), emitters and drains (always). */
int sim__sand_is_big(const sand_world *s);
int sim__sand_big_alloc(sand_world *s);                                  /* 0 or SIM_ENOMEM */
void sim__sand_big_destroy(sand_world *s);
sand_big *sim__sand_big_init(sand_world *s);
int sim__sand_big_v(const sand_big *L, int n);                          /* n rows, scaled */
int sim__sand_big_noise(sand_big *L, int x, int y, int cell, uint32_t salt);   /* 0..255 */
const big_biome *sim__sand_big_biome_at(const sand_big *L, int x);
void sim__sand_big_column(sand_big *L, int x, uint8_t *col);            /* h plan codes */
void sim__sand_scene_big(sand_world *s, int build);
/* big_art.c: the palette and the per-position colours of air, rock and leaves. */
void sim__sand_big_picture(sand_world *s);

#endif
