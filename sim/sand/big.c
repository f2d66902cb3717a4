/* big.c — the demo scene of a big world (issue 30; big.h says what it is): the row of biomes, the
 * ground line, the designed features of each biome, the caves under them, the cells of tick 0,
 * and the emitters and drains that keep it all running.
 *
 * Everything is in world pixels at the scale of the 320×180 plan (a tree is 34 to 51 pixels
 * wide, a waterfall falls about 150), and in integers: the layout is a function of (w, h, seed)
 * alone, the same on every machine. Widths are laid out from the biomes' natural widths; heights
 * shrink with the world below 1,024 rows (sim__sand_big_v), so a low wide world still fits its
 * mountains. Every source has a sink, as in the small demo: the waterfall's lake drains at its
 * level, the hot springs' cascade at the mound's feet, the oil cave and the acid grotto
 * overflow, the sand falls land on cones whose feet drain, the lava chamber has its plughole
 * and the sky its top row; what burns or melts grows back on a timer. */
#include "big.h"
#include "picture.h"
#include <stdlib.h>

int sim__sand_is_big(const sand_world *s) { return s->w > SAND_SMALL_W || s->h > SAND_SMALL_H; }

int sim__sand_big_v(const sand_big *L, int n) { return n * L->vk / 1024; }
#define V(n) sim__sand_big_v(L, (n))

/* ---- small integer tools ------------------------------------------------------------------------ */
static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int iabs(int a) { return a < 0 ? -a : a; }
static inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Smoothstep of f over 0..n, as 0..256. */
static int smooth256(int f, int n)
{
    if (f <= 0) return 0;
    if (f >= n) return 256;
    int t = f * 256 / n;
    return t * t * (768 - 2 * t) / 65536;
}

static inline uint32_t lhash(sand_big *L, int x, int y, uint32_t salt)
{
    return sim_hash_cell(L->seed ^ 0xb16b16u, 0, x, y, salt);
}

/* Value noise, 0..255: the layout's hashes on a lattice of `cell` pixels, blended by
 * smoothsteps. The lattice cell's four hashes are kept per salt (a column's scan stays in one
 * for `cell` rows): a cache, never a difference in the result. */
int sim__sand_big_noise(sand_big *L, int x, int y, int cell, uint32_t salt)
{
    int gx = x / cell, gy = y / cell;
    noise_cell *k = &L->nc[salt % BIG_NOISES];
    if (k->cell != cell || k->gx != gx || k->gy != gy) {
        k->cell = cell;
        k->gx = gx;
        k->gy = gy;
        k->c[0] = (int)(lhash(L, gx, gy, salt) >> 24);
        k->c[1] = (int)(lhash(L, gx + 1, gy, salt) >> 24);
        k->c[2] = (int)(lhash(L, gx, gy + 1, salt) >> 24);
        k->c[3] = (int)(lhash(L, gx + 1, gy + 1, salt) >> 24);
    }
    int sx = smooth256(x - gx * cell, cell), sy = smooth256(y - gy * cell, cell);
    int top = k->c[0] * 256 + (k->c[1] - k->c[0]) * sx, bot = k->c[2] * 256 + (k->c[3] - k->c[2]) * sx;
    return (top * 256 + (bot - top) * sy) >> 16;
}
#define NOISE(x, y, cell, salt) sim__sand_big_noise(L, (x), (y), (cell), (salt))

/* Inside the ellipse of centre (cx, cy) and radii rx, ry. */
static int in_ellipse(int x, int y, int cx, int cy, int rx, int ry)
{
    if (rx <= 0 || ry <= 0) return 0;
    int64_t dx = x - cx, dy = y - cy;
    return dx * dx * ry * ry + dy * dy * rx * rx < (int64_t)rx * rx * ry * ry;
}

/* Inside a keep ellipse; its edge wanders by a few pixels, so a cave it cuts is not cut straight. */
static int in_keep(sand_big *L, const big_box *b, int x, int y);

/* ---- the biomes' shapes ------------------------------------------------------------------------- */
/* Natural widths (the five add up to about 2,048). */
static const int NATURAL_W[BK_COUNT] = { [BK_FALLS] = 380, [BK_FOREST] = 400, [BK_DUNES] = 440,
                                          [BK_VOLCANO] = 480, [BK_SPRINGS] = 360 };

/* The waterfall: a hillside up to a plateau, a cliff with a spring in it, a lake at its foot that
 * drains by the fall (so the rest of it lies still), a sand cave in the plateau. Anchors: a the
 * cliff's column, b the lake's far end, c the lake's water row. */
#define FALLS_RAMP 80
#define FALLS_LAKE 170
#define FALLS_HIGH 140
/* The volcano: a cone with a caldera at its top; a glacier fills the caldera, over a lava
 * chamber. Anchors: a the caldera's centre column, b its floor's height over the plains, c its
 * rim's. The caldera's walls fall CALDERA_SLOPE rows a column from the rim (half-width
 * CALDERA) to the floor. */
#define CALDERA 78
#define CALDERA_SLOPE 3
#define GLACIER_TOP(L, B) ((L)->base - (B)->c + V(14))      /* the glacier's first row */
static int crater_floor_half(const big_biome *B) { return CALDERA - (B->c - B->b) / CALDERA_SLOPE; }
/* The hot springs: a mound of travertine terraces, a pool with a geyser at its top. Anchors: a
 * the centre column, b the top pool's lip height over the plains. */
#define POOL_R 30
#define TERRACE_W 24
#define TERRACES 4
#define TERRACE_STEP 10
static int mound_r(void) { return POOL_R + TERRACES * TERRACE_W; }
/* The dunes: an oil cave under them. Anchors: a, b the cave's centre, c its half-width. */

/* The forest's tree, in quarter pixels of the small demo's (scenes.c): trunk, roots, two boughs
 * (bark), then the canopy's slabs (leaves); relative to the trunk's left edge and the ground. */
static const int TREE_Q[BIG_TREE_RECTS][4] = {
    { 0, -26, 4, 26 }, { -4, -4, 11, 4 }, { -8, -20, 8, 2 }, { 4, -16, 8, 2 },
    { -9, -54, 22, 6 }, { -15, -48, 34, 12 }, { -12, -36, 28, 6 }, { -6, -30, 16, 4 },
};
#define TREE_BARK 4

/* Rect k of tree t, in world pixels: x, y, w, h. */
static void tree_rect(const big_tree *t, int k, int r[4])
{
    r[0] = t->x + TREE_Q[k][0] * t->num / 4;
    r[1] = t->y + TREE_Q[k][1] * t->num / 4;
    r[2] = imax(1, TREE_Q[k][2] * t->num / 4);
    r[3] = imax(1, TREE_Q[k][3] * t->num / 4);
    if (k == 0) r[3] = t->y - r[1];                 /* the trunk reaches the ground */
}

static int volcano_height(sand_big *L, const big_biome *B, int x)
{
    int d = iabs(x - B->a);
    /* each flank reaches the plains inside the biome */
    int R = x < B->a ? B->a - B->x0 - 4 : B->x0 + B->w - 4 - B->a;
    R = clampi(R, CALDERA + 24, 240);
    if (d >= R) return 0;
    if (d < CALDERA) return imax(B->b, B->c - (CALDERA - d) * CALDERA_SLOPE);
    /* flanks level at the rim and at the foot, steepest between (a smoothstep) */
    int hgt = B->c * (256 - smooth256(d - CALDERA, R - CALDERA)) / 256;
    /* a parasitic cone on one flank */
    int xs = B->a + (B->var & 4 ? 1 : -1) * (CALDERA + (R - CALDERA) * 9 / 20);
    hgt += V(30) * imax(0, 40 - iabs(x - xs)) / 40;
    /* crags, fading out towards the foot and kept off the rim */
    if (d > CALDERA + 8)
        hgt += (tri(x * 3 + (int)(B->var & 127), 53, V(6)) - V(3)) * imin(hgt, V(60)) / imax(1, V(60));
    return hgt;
}

static int springs_height(sand_big *L, const big_biome *B, int x)
{
    int d = iabs(x - B->a), top = B->b;
    if (d < POOL_R - 2) return top - V(12) * (POOL_R - 2 - d) / (POOL_R - 2) - 1;   /* the bowl */
    if (d < POOL_R) return top;                                                  /* its lip */
    int k = (d - POOL_R) / TERRACE_W + 1;
    if (k <= TERRACES) {
        int shelf = top - k * V(TERRACE_STEP);
        return d >= POOL_R + k * TERRACE_W - 2 ? shelf + V(4) : shelf;          /* lip, shelf */
    }
    int foot = d - mound_r(), hs = top - TERRACES * V(TERRACE_STEP);
    return foot < 12 ? hs * (12 - foot) / 12 : 0;
}

/* Height of the ground above the plains at column x of biome B (positive is up); 0 at a
 * biome's ends, so that neighbours meet. */
static int biome_height(sand_big *L, const big_biome *B, int x)
{
    int lx = x - B->x0, w = B->w;
    int edge = imin(imin(lx, w - 1 - lx), 40);
    switch (B->kind) {
    case BK_FALLS: {
        int c = B->a - B->x0, P = V(FALLS_HIGH);
        if (lx < FALLS_RAMP) return P * smooth256(lx, FALLS_RAMP) / 256;
        if (lx < c) return P + tri(lx + (int)(B->var & 31), 37, V(3));
        int t = lx - c, D = V(64);
        if (t < FALLS_LAKE) return -D + D * t * t / (FALLS_LAKE * FALLS_LAKE);
        int rest = w - c - FALLS_LAKE;
        return rest > 1 ? tri(t - FALLS_LAKE, rest, V(10)) : 0;
    }
    case BK_FOREST:
        return V(26) * 4 * lx / w * (w - lx) / w + tri(lx + (int)(B->var & 63), 70, V(4)) * edge / 40;
    case BK_DUNES:
        return -V(6) * edge / 40;
    case BK_VOLCANO:
        return volcano_height(L, B, x);
    case BK_SPRINGS:
        return springs_height(L, B, x);
    default:
        return 0;
    }
}

const big_biome *sim__sand_big_biome_at(const sand_big *L, int x)
{
    for (int i = L->nb - 1; i > 0; i--)
        if (x >= L->b[i].x0) return &L->b[i];
    return &L->b[0];
}

/* ---- the layout ---------------------------------------------------------------------------------- */
/* Keep caves out of the ellipse round the box [x0, x1] × [y0, y1] (its corners inside). */
static void add_keep(sand_big *L, int x0, int y0, int x1, int y1)
{
    if (L->nkeep == BIG_MAX_BOXES) return;
    big_box *b = &L->keep[L->nkeep++];
    *b = (big_box){ (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * 3 / 4 + 1, (y1 - y0) * 3 / 4 + 1 };
}

static int in_keep(sand_big *L, const big_box *b, int x, int y)
{
    int j = (int)(lhash(L, x / 3, y / 3, 18) % 7u);
    return in_ellipse(x, y, b->cx, b->cy, b->rx + j, b->ry + j);
}

/* The oil cave under the dunes and the waterfall's sand cave in the plateau: centre and
 * radii. */
static void oil_cave(sand_big *L, const big_biome *B, int *cx, int *cy, int *rx, int *ry)
{
    *cx = B->a; *cy = B->b; *rx = B->c; *ry = V(22);
}
static void sand_cave(sand_big *L, const big_biome *B, int *cx, int *cy, int *rx, int *ry)
{
    int span = B->a - (B->x0 + FALLS_RAMP);
    *cx = B->x0 + FALLS_RAMP + span / 2;
    *rx = imin(30, span / 2 - 6);
    *ry = V(16);
    *cy = L->base - V(FALLS_HIGH) + V(78);
}
/* The biomes across the width: the seed shuffles the five kinds, and shuffles them again for
 * each round after as far as the width takes, each at its natural width, then all stretched or
 * squeezed to fill it. */
static void shuffle(sim_rng *rng, int *order)
{
    for (int k = BK_COUNT - 1; k > 0; k--) {
        int j = (int)sim_rng_below(rng, (uint32_t)k + 1), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
}

static void lay_biomes(sand_big *L, sim_rng *rng)
{
    int order[BK_COUNT];
    for (int k = 0; k < BK_COUNT; k++) order[k] = k;
    shuffle(rng, order);
    int sum = 0;
    L->nb = 0;
    while (L->nb < BIG_MAX_BIOMES) {
        if (L->nb > 0 && L->nb % BK_COUNT == 0) {
            /* another round, in another order, never the same kind twice in a row */
            int last = order[BK_COUNT - 1];
            do shuffle(rng, order);
            while (order[0] == last);
        }
        int k = order[L->nb % BK_COUNT];
        if (L->nb > 0 && sum + NATURAL_W[k] * 2 / 3 > L->w) break;
        big_biome *B = &L->b[L->nb++];
        B->kind = k;
        B->var = sim_rng_next(rng);
        B->phase = (int)sim_rng_below(rng, 1800);
        sum += NATURAL_W[k];
    }
    int x = 0, acc = 0;
    for (int i = 0; i < L->nb; i++) {
        acc += NATURAL_W[L->b[i].kind];
        int end = i == L->nb - 1 ? L->w : (int)((int64_t)acc * L->w / sum);
        L->b[i].x0 = x;
        L->b[i].w = end - x;
        x = end;
    }
}

/* Each biome's anchors, which its heights and features are drawn from. */
static void anchor_biomes(sand_big *L)
{
    for (int i = 0; i < L->nb; i++) {
        big_biome *B = &L->b[i];
        int mid = B->x0 + B->w / 2, jit = (int)(B->var >> 8 & 31) - 16;
        switch (B->kind) {
        case BK_FALLS:
            B->a = B->x0 + FALLS_RAMP + imax(40, (B->w - 330) / 2 + 60);
            B->b = B->a + FALLS_LAKE;
            B->c = L->base + V(6);
            break;
        case BK_VOLCANO:
            B->a = mid + jit;
            B->b = V(178);
            B->c = V(218) + (int)(B->var >> 16 & 1) * V(24);
            break;
        case BK_SPRINGS:
            B->a = mid + jit;
            B->b = V(48);
            break;
        case BK_DUNES:
            B->a = mid + jit;
            B->b = L->base + V(84);
            B->c = imin(72, B->w / 2 - 20);
            break;
        default:
            break;
        }
    }
}

/* The forests' trees: two to five, spread across, sizes 1, 1.25 and 1.5 times the small demo's,
 * each canopy inside its biome. */
static void plant_trees(sand_big *L)
{
    for (int i = 0; i < L->nb; i++) {
        big_biome *B = &L->b[i];
        if (B->kind != BK_FOREST) continue;
        int n = imax(2, imin(BIG_MAX_TREES, (B->w - 40) / 80));
        B->ntree = n;
        for (int k = 0; k < n; k++) {
            big_tree *t = &B->tree[k];
            uint32_t h = lhash(L, i, k, 7);
            t->num = 4 + (int)(h % 3u);
            t->x = B->x0 + 20 + (B->w - 40) * (2 * k + 1) / (2 * n) + (int)(h >> 8 & 15) - 8;
            t->x = clampi(t->x, B->x0 + 4 * t->num, B->x0 + B->w - 5 * t->num);
            t->x = clampi(t->x, 1, L->w - 2);
            t->y = L->ground[imin(L->w - 1, t->x + t->num / 2)];
            while (t->num > 1 && t->y + TREE_Q[4][1] * t->num / 4 < 4) t->num--;   /* under the sky */
        }
    }
}

/* The deep chambers: one every 380 rows from 260 under the plains, down to the lava's crust,
 * alternating sides of the biome; the first under the hot springs is the acid grotto, the
 * others a cavern lake or a crystal grotto (or nothing) as the hash says. */
static void place_chambers(sand_big *L)
{
    for (int i = 0; i < L->nb; i++) {
        big_biome *B = &L->b[i];
        B->nch = 0;
        for (int j = 0; B->nch < BIG_MAX_CHAMBERS; j++) {
            big_chamber c;
            int acid = B->kind == BK_SPRINGS && j == 0;
            uint32_t h = lhash(L, i, j, 16);
            c.kind = acid ? CH_ACID : h % 3u == 0 ? CH_CRYSTAL : CH_LAKE;
            c.rx = c.kind == CH_LAKE ? imin(84, B->w / 2 - 30) : imin(58, B->w / 2 - 30);
            c.ry = V(c.kind == CH_LAKE ? 38 : 28);
            c.cy = L->base + V(260) + j * 380 + (int)(h >> 8 & 63);
            c.cx = B->x0 + B->w / 2 + ((i + j) & 1 ? 1 : -1) * (B->w / 5) + (int)(h >> 16 & 31) - 16;
            if (c.cy + c.ry + 40 >= L->lava_top - V(60) || c.ry < 10 || c.rx < 20) break;
            if (!acid && (h >> 24) % 4u == 0) continue;                 /* none this time */
            B->ch[B->nch++] = c;
        }
    }
}

/* Where no cave may go: round each designed feature, with a margin. */
static void keep_features(sand_big *L)
{
    L->nkeep = 0;
    for (int i = 0; i < L->nb; i++) {
        const big_biome *B = &L->b[i];
        int cx, cy, rx, ry;
        switch (B->kind) {
        case BK_FALLS:
            add_keep(L, B->a - 40, 0, B->b + 16, L->base + V(64) + 30);
            sand_cave(L, B, &cx, &cy, &rx, &ry);
            add_keep(L, cx - rx - 16, cy - ry - 16, cx + rx + 16, cy + ry + 16);
            break;
        case BK_DUNES:
            oil_cave(L, B, &cx, &cy, &rx, &ry);
            add_keep(L, cx - rx - 16, cy - ry - 16, cx + rx + 16, cy + ry + 16);
            break;
        case BK_VOLCANO: {
            int nf = L->base - B->b, cw = crater_floor_half(B) - 8;
            add_keep(L, B->a - CALDERA - 20, 0, B->a + CALDERA + 20, nf + V(20) + cw + 24);
            break;
        }
        case BK_SPRINGS:
            add_keep(L, B->a - mound_r() - 20, 0, B->a + mound_r() + 20, L->base + V(40));
            break;
        default:
            break;
        }
        for (int k = 0; k < B->nch; k++) {
            const big_chamber *c = &B->ch[k];
            add_keep(L, c->cx - c->rx - 16, c->cy - c->ry - 16, c->cx + c->rx + 16, c->cy + c->ry + 16);
        }
    }
}

/* Tunnels: worms that wander mostly sideways from a point under each biome, 14 pixels a step,
 * 2 to 7 wide, turned back at the top and the bottom of the underground. */
static const int DIR16[16][2] = {
    { 256, 0 }, { 237, 98 }, { 181, 181 }, { 98, 237 }, { 0, 256 }, { -98, 237 }, { -181, 181 },
    { -237, 98 }, { -256, 0 }, { -237, -98 }, { -181, -181 }, { -98, -237 }, { 0, -256 },
    { 98, -237 }, { 181, -181 }, { 237, -98 },
};

static void dig_worms(sand_big *L, sim_rng *rng)
{
    int top = L->base + V(70), bottom = L->lava_top + V(30);
    int per = clampi(1 + (L->lava_top - L->base) / 360, 1, 4);
    L->nseg = 0;
    if (bottom - top < 40) return;
    for (int i = 0; i < L->nb; i++)
        for (int k = 0; k < per; k++) {
            const big_biome *B = &L->b[i];
            int x = B->x0 + (int)sim_rng_below(rng, (uint32_t)B->w);
            int y = top + (int)sim_rng_below(rng, (uint32_t)(bottom - top));
            int dir = sim_rng_below(rng, 2) ? 0 : 8, r = 3 + (int)sim_rng_below(rng, 3);
            int steps = B->w / 10;
            for (int n = 0; n < steps && L->nseg < BIG_MAX_SEGS; n++) {
                dir = (dir + 15 + (int)sim_rng_below(rng, 3)) & 15;
                /* never straight down or up */
                if (dir == 4 || dir == 12) dir += sim_rng_below(rng, 2) ? 1 : -1;
                dir &= 15;
                int nx = x + DIR16[dir][0] * 14 / 256, ny = y + DIR16[dir][1] * 14 / 256;
                if (ny < top || ny > bottom) {
                    dir = (16 - dir) & 15;                                          /* turn back */
                    ny = y + DIR16[dir][1] * 14 / 256;
                }
                r = clampi(r + (int)sim_rng_below(rng, 3) - 1, 2, 7);
                L->seg[L->nseg++] = (big_seg){ x, y, nx, ny, r };
                x = nx;
                y = ny;
                if (x < 0 || x >= L->w) break;
            }
        }
}

int sim__sand_big_alloc(sand_world *s)
{
    sand_big *L = s->big = calloc(1, sizeof *s->big);
    if (!L) return SIM_ENOMEM;
    L->ground = malloc((size_t)s->w * sizeof *L->ground);
    L->cols = malloc(3 * (size_t)s->h);
    return L->ground && L->cols ? 0 : SIM_ENOMEM;
}

void sim__sand_big_destroy(sand_world *s)
{
    if (!s->big) return;
    free(s->big->ground);
    free(s->big->cols);
    free(s->big);
    s->big = NULL;
}

sand_big *sim__sand_big_init(sand_world *s)
{
    sand_big *L = s->big;
    int w = s->w, h = s->h;
    L->w = w;
    L->h = h;
    L->seed = s->seed;
    L->vk = imin(h, 1024);
    L->base = imin(h * 5 / 16, 420);
    L->cave_top = V(56);
    L->lava_top = h - V(80);
    sim_rng rng;
    sim_rng_stream(&rng, L->seed, "sand.big");
    lay_biomes(L, &rng);
    anchor_biomes(L);
    for (int x = 0; x < w; x++) {
        int g = L->base - biome_height(L, sim__sand_big_biome_at(L, x), x);
        L->ground[x] = clampi(g, 2, h - 2);
    }
    plant_trees(L);
    place_chambers(L);
    keep_features(L);
    dig_worms(L, &rng);
    return L;
}

/* ---- the caves ---------------------------------------------------------------------------------- */
/* Does worm segment g pass within its radius of (x, y)? */
static int on_seg(const big_seg *g, int x, int y)
{
    int64_t dx = g->x1 - g->x0, dy = g->y1 - g->y0, px = x - g->x0, py = y - g->y0;
    int64_t len2 = dx * dx + dy * dy, t = px * dx + py * dy;
    if (t < 0) t = 0;
    if (t > len2) t = len2;
    /* distance from the nearest point, scaled by len2 to stay in integers */
    int64_t ex = px * len2 - t * dx, ey = py * len2 - t * dy;
    if (len2 == 0) return px * px + py * py <= (int64_t)g->r * g->r;
    return ex * ex + ey * ey <= (int64_t)g->r * g->r * len2 * len2;
}

static void column_set_of(sand_big *L, int x, column_set *c)
{
    c->nbox = 0;
    for (int k = 0; k < L->nkeep; k++)
        if (iabs(x - L->keep[k].cx) <= L->keep[k].rx + 7) c->box[c->nbox++] = &L->keep[k];
    /* the steps that reach x, counted into their bands, then placed (a counting sort) */
    int count[BIG_MAX_BANDS + 1] = { 0 }, nb = L->h / SEG_BAND + 1;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            c->first[0] = 0;
            for (int b = 0; b < nb; b++) c->first[b + 1] = c->first[b] + count[b];
            for (int b = 0; b < nb; b++) count[b] = c->first[b];
        }
        for (int k = 0; k < L->nseg; k++) {
            const big_seg *g = &L->seg[k];
            if (x < imin(g->x0, g->x1) - g->r || x > imax(g->x0, g->x1) + g->r) continue;
            int b0 = clampi((imin(g->y0, g->y1) - g->r) / SEG_BAND, 0, nb - 1);
            int b1 = clampi((imax(g->y0, g->y1) + g->r) / SEG_BAND, 0, nb - 1);
            for (int b = b0; b <= b1; b++) {
                if (pass) c->seg[count[b]] = g;
                count[b]++;
            }
        }
    }
}

/* Chambers where two octaves of noise run high (more of them lower down), and the worms'
 * tunnels; never near the surface, in a designed feature, or at the world's edges. */
static int cave_with(sand_big *L, int x, int y, const column_set *c)
{
    if (x < 6 || x >= L->w - 6 || y >= L->h - 6 || y < 6) return 0;
    int d = y - L->ground[x] - L->cave_top;
    if (d < 0) return 0;
    for (int k = 0; k < c->nbox; k++)
        if (in_keep(L, c->box[k], x, y)) return 0;
    int fade = imax(0, 48 - d) / 2;                 /* fewer near the top */
    int deep = imin(12, (y - L->base) / 64);
    int n = (3 * NOISE(x, y, 84, 1) + NOISE(x, y, 28, 2)) / 4;
    if (n > 168 + fade - deep) return 1;
    int b = y / SEG_BAND;
    for (int k = c->first[b]; k < c->first[b + 1]; k++)
        if (on_seg(c->seg[k], x, y)) return 1;
    return 0;
}

/* The same test at one position, for the scene's search (a few hundred positions). */
static int cave_at(sand_big *L, int x, int y)
{
    if (x < 0 || x >= L->w) return 0;
    column_set_of(L, x, &L->cs);
    return cave_with(L, x, y, &L->cs);
}

/* The row of the water table under column x: cave pockets below it hold water (some of them). */
static int water_table(sand_big *L, int x)
{
    return L->ground[x] + V(230) + (NOISE(x, 0, 310, 4) - 128) / 2;
}

/* ---- the plan ----------------------------------------------------------------------------------- */
/* The designed features' cells: what (x, y) holds if a feature says so, or -1. */
static int chamber_at(sand_big *L, const big_chamber *c, int x, int y)
{
    if (!in_ellipse(x, y, c->cx, c->cy, c->rx, c->ry)) return -1;
    switch (c->kind) {
    case CH_ACID: return (y >= c->cy + c->ry / 3 ? SAND_ACID : SAND_EMPTY) | BP_CAVE;
    case CH_LAKE: return (y >= c->cy + c->ry / 5 ? SAND_WATER : SAND_EMPTY) | BP_CAVE;
    default: {
        /* crystals: spikes of ice up from the floor and down from the roof, one every 5 columns,
         * each as tall as the hash says and tapering to a point */
        int col = (x - c->cx + 1000) / 5, off = (x - c->cx + 1000) % 5;
        uint32_t h = lhash(L, c->cx + col, c->cy, 17);
        int up = (int)(h % (uint32_t)(c->ry + 1)), down = (int)((h >> 8) % (uint32_t)(c->ry * 2 / 3 + 1));
        int taper = iabs(off - 2) * 5, floor = c->cy, roof = c->cy;
        while (in_ellipse(x, floor + 1, c->cx, c->cy, c->rx, c->ry)) floor++;
        while (in_ellipse(x, roof - 1, c->cx, c->cy, c->rx, c->ry)) roof--;
        if (y > floor - up + taper || y < roof + down - taper) return SAND_ICE | BP_CAVE;
        return SAND_EMPTY | BP_CAVE;
    }
    }
}

static int feature_at(sand_big *L, const big_biome *B, int x, int y)
{
    int g = L->ground[x], cx, cy, rx, ry;
    for (int k = 0; k < B->nch; k++) {
        int f = chamber_at(L, &B->ch[k], x, y);
        if (f >= 0) return f;
    }
    switch (B->kind) {
    case BK_FALLS: {
        int gp = L->base - V(FALLS_HIGH), mouth = gp + V(10);
        /* The spring's mouth: a tunnel into the cliff; the rock shelf over its outer end. */
        if (x >= B->a - 14 && x < B->a && y >= mouth && y < mouth + 6) return SAND_EMPTY | BP_CAVE;
        if (x >= B->a && x < B->a + 8 && y >= mouth - 3 && y < mouth) return bp_rock(RS_EARTH);
        if (x >= B->a && x < B->b && y >= B->c && y < g) return SAND_WATER;
        sand_cave(L, B, &cx, &cy, &rx, &ry);
        if (in_ellipse(x, y, cx, cy, rx, ry))
            return (y >= cy + ry / 2 + iabs(x - cx) ? SAND_SAND : SAND_EMPTY) | BP_CAVE;
        return -1;
    }
    case BK_FOREST:
        for (int k = 0; k < B->ntree; k++) {
            const big_tree *t = &B->tree[k];
            if (x < t->x - 16 * t->num / 4 || x > t->x + 20 * t->num / 4 || y >= g) continue;
            for (int r = 0; r < BIG_TREE_RECTS; r++) {
                int q[4];
                tree_rect(t, r, q);
                if (x >= q[0] && x < q[0] + q[2] && y >= q[1] && y < q[1] + q[3])
                    return SAND_WOOD | (r >= TREE_BARK ? BP_LEAF : 0);
            }
        }
        return -1;
    case BK_DUNES: {
        oil_cave(L, B, &cx, &cy, &rx, &ry);
        if (in_ellipse(x, y, cx, cy, rx, ry)) {
            int el = y >= cy + ry / 4 ? SAND_WATER : y >= cy - ry / 8 ? SAND_OIL : SAND_EMPTY;
            return el | BP_CAVE;
        }
        if (y >= g || x < B->x0 + 16 || x >= B->x0 + B->w - 16) return -1;
        /* Dunes: rounded windward backs, lee slopes at 45° (sand's angle of repose). */
        int n = imax(2, (B->w - 40) / 110), top = g;
        for (int k = 0; k < n; k++) {
            int xk = B->x0 + 30 + (B->w - 60) * (2 * k + 1) / (2 * n);
            xk += (int)(lhash(L, B->x0, k, 8) % 21u) - 10;
            int hk = V(28 + (int)(lhash(L, B->x0, k, 9) % 40u)), lw = 3 * imax(1, hk), t = xk - x;
            /* a rounded back (a parabola 3 heights long), a straight lee */
            int back = t < lw ? g - hk + hk * t * t / (lw * lw) : g;
            top = imin(top, x <= xk ? back : g - hk + (x - xk));
        }
        return y >= top ? SAND_SAND : -1;
    }
    case BK_VOLCANO: {
        int nf = L->base - B->b, d = iabs(x - B->a), cw = crater_floor_half(B) - 8;
        if (d < CALDERA && y >= GLACIER_TOP(L, B) && y < g) return d <= 3 ? SAND_LAVA : SAND_ICE;
        if (d <= cw && y >= nf && y < nf + V(20) + (cw - d) * 3 / 4) return SAND_LAVA | BP_CAVE;
        /* Basalt round the chamber, with a ragged edge. */
        int by = (V(20) + cw * 3 / 4) / 2 + 14;
        if (y >= g && in_ellipse(x, y, B->a, nf + by - 14, cw + 16 - (int)(lhash(L, x, y, 10) % 5u), by))
            return bp_rock(RS_BASALT);
        return -1;
    }
    case BK_SPRINGS: {
        int d = iabs(x - B->a), row = L->base - B->b;
        if (d < mound_r() && y < g) {
            if (d < POOL_R - 2) return y > row ? SAND_WATER : -1;                  /* the top pool */
            int k = (d - POOL_R) / TERRACE_W + 1;                                    /* terraces */
            int lip = L->base - (B->b - k * V(TERRACE_STEP) + V(4));
            return d >= POOL_R && y > lip ? SAND_WATER : -1;
        }
        /* the mound is travertine, the rock under it too for a few rows */
        if (d < mound_r() + 12 && y >= g && (y < L->base || y < g + V(10) + (int)(lhash(L, x, y, 11) % 3u)))
            return bp_rock(RS_TRAVERTINE);
        return -1;
    }
    default:
        return -1;
    }
}

/* The rock style of (x, y): the biome's in a layer under its surface (granite in the mountain,
 * sandstone under the dunes), earth under that, basalt over the lava sea; the boundaries wander
 * with the noise. */
static int rock_style(sand_big *L, int x, int y)
{
    int n = NOISE(x, y, 40, 12) - 128;
    if (y >= L->lava_top - V(60) + n / 3) return RS_BASALT;
    int jx = clampi(x + n / 3, 0, L->w - 1);
    const big_biome *B = sim__sand_big_biome_at(L, jx);
    if (B->kind == BK_VOLCANO && y < L->base + V(30) + n / 4) return RS_GRANITE;
    /* sandstone thins out towards the desert's ends */
    int in = imin(80, imin(jx - B->x0, B->x0 + B->w - jx));
    if (B->kind == BK_DUNES && y < L->ground[x] + (V(80) + n / 4) * in / 80) return RS_SANDSTONE;
    return RS_EARTH;
}

/* The plan of column x (big.h), h codes from the top: features, then sky or rock, then the caves
 * with their lava, water and sand, scanned upwards so that a floor knows it is one. */
void sim__sand_big_column(sand_big *L, int x, uint8_t *col)
{
    column_set *cs = &L->cs;
    column_set_of(L, x, cs);
    const big_biome *B = sim__sand_big_biome_at(L, x);
    int g = L->ground[x], wt = water_table(L, x);
    int heap = 0;           /* rows of sand still to lay on the floor below */
    int floor = -1;         /* the row of rock just below, if it is rock */
    for (int y = L->h - 1; y >= 0; y--) {
        int f = feature_at(L, B, x, y);
        if (f >= 0) {
            col[y] = (uint8_t)f;
            heap = 0;
            floor = -1;
            continue;
        }
        if (y < g) {
            col[y] = SAND_EMPTY;
            continue;
        }
        if (!cave_with(L, x, y, cs)) {
            col[y] = bp_rock(rock_style(L, x, y));
            floor = y;
            continue;
        }
        /* Over a floor: a fifth of them, in stretches 9 columns wide, get a heap of sand. */
        if (floor == y + 1)
            heap = lhash(L, x / 9, floor / 5, 13) % 5u == 0 ? 1 + (int)(lhash(L, x, floor, 14) % 4u) : 0;
        int el = SAND_EMPTY;
        if (y >= L->lava_top) el = SAND_LAVA;
        else if (y >= wt && y < L->lava_top - V(70) && NOISE(x, y, 130, 5) > 118) el = SAND_WATER;
        else if (heap > 0) el = SAND_SAND;
        if (heap > 0) heap--;
        col[y] = (uint8_t)(el | BP_CAVE);
    }
}

/* ---- the scene ---------------------------------------------------------------------------------- */
/* A sand fall into one of biome B's caves: a crack in a ceiling over a floor at least 30 rows
 * down, flat enough for a cone, above the water table; the cone's feet drain on both sides, so
 * it keeps its size. Tried at up to 24 columns; finding none is fine. */
static int flat_floor(sand_big *L, int x, int yf, int d)
{
    for (int k = -d; k <= d; k += 4)
        if (!cave_at(L, x + k, yf - 1) || cave_at(L, x + k, yf + 3) || !cave_at(L, x + k, yf - d - 4))
            return 0;
    return 1;
}

static void cave_sandfall(sand_world *s, sand_big *L, const big_biome *B)
{
    const int d = 12;
    for (int tr = 0; tr < 24; tr++) {
        int x = B->x0 + B->w / 4 + (int)((B->var >> 4) % (uint32_t)imax(1, B->w / 2)) + tr * 7;
        if (x - d < 8 || x + d >= L->w - 8 || x >= B->x0 + B->w) continue;
        int top = L->ground[x] + L->cave_top, bottom = imin(water_table(L, x) - 10, L->lava_top - V(80));
        column_set_of(L, x, &L->cs);
        for (int y = top + 1; y < bottom; y++) {
            if (!cave_with(L, x, y, &L->cs) || cave_with(L, x, y - 1, &L->cs)) continue;
            int yf = y;
            while (yf < bottom && cave_with(L, x, yf, &L->cs)) yf++;
            if (yf < bottom && yf - y >= 30 && flat_floor(L, x, yf, d)) {
                sim__sand_add_emitter(s, x, y, 2, 1, SAND_SAND, 48, 1, 1, 0);
                sim__sand_add_drain(s, x - d, yf - d - 6, 1, d + 10);
                sim__sand_add_drain(s, x + d + 1, yf - d - 6, 1, d + 10);
                return;
            }
            column_set_of(L, x, &L->cs);                 /* flat_floor used the scratch */
            y = yf;
        }
    }
}

/* A forest's campfire and its trees' regrowth: the fire flares for 40 ticks every 40 s, first
 * 4 to 14 s in (each forest at its own moment); the trees grow back 1,000 ticks after each flare
 * (17 s, as in the small demo). */
static void forest_sources(sand_world *s, const big_biome *B)
{
    int flare = 240 + B->phase % 600;               /* the first flare's tick */
    int fphase = (2400 - flare % 2400) % 2400, gphase = (fphase + 2400 - 1000) % 2400;
    const big_tree *lit = &B->tree[B->var % (uint32_t)B->ntree];
    sim__sand_add_emitter(s, lit->x - 7 * lit->num / 4, lit->y - 6, 3, 5, SAND_FIRE, 256, 2400, 40, fphase);
    for (int k = 0; k < B->ntree; k++)
        for (int r = 0; r < BIG_TREE_RECTS; r++) {
            int q[4];
            tree_rect(&B->tree[k], r, q);
            sim__sand_add_emitter(s, q[0], q[1], q[2], q[3], SAND_WOOD, 12, 2400, 90, gphase);
        }
}

/* The volcano's chamber is kept full from its roof; the vent erupts through the glacier for 30 s
 * of every 45, first in the first 5 s (each volcano at its own moment); the glacier grows back
 * when the vent has drained, in four slabs as wide as the caldera at their foot; the chamber has
 * a plughole. */
static void volcano_sources(sand_world *s, sand_big *L, const big_biome *B)
{
    int nf = L->base - B->b, ch = crater_floor_half(B), cw = ch - 8, gt = GLACIER_TOP(L, B);
    int vp = (2700 - B->phase % 300) % 2700, thick = nf - gt;
    sim__sand_add_emitter(s, B->a - cw, nf, 2 * cw + 1, 2, SAND_LAVA, 8, 1, 1, 0);
    sim__sand_add_emitter(s, B->a - 3, gt - 3, 7, 2, SAND_LAVA, 40, 2700, 1800, vp);
    for (int j = 0; j < 4; j++) {
        int y0 = nf - (j + 1) * thick / 4, y1 = nf - j * thick / 4, half = ch + j * thick / 16;
        sim__sand_add_emitter(s, B->a - half, y0, 2 * half + 1, y1 - y0, SAND_ICE, 12, 2700, 90,
                              (vp + 300) % 2700);
    }
    sim__sand_add_drain(s, B->a, nf + V(20) + cw * 3 / 4 - 1, 1, 1);
}

/* The hot springs: the geyser's plume of steam for 2.5 s every 15 s and a wisp between; the
 * spring that keeps the top pool brimming, its overflow running down the terraces to drains at
 * the mound's feet. */
static void springs_sources(sand_world *s, sand_big *L, const big_biome *B)
{
    int row = L->base - B->b, gp = (900 - B->phase % 900) % 900, r = mound_r();
    int side = B->var & 2 ? 1 : -1;
    sim__sand_add_emitter(s, B->a - 2, row - 4, 5, 3, SAND_STEAM, 160, 900, 150, gp);
    sim__sand_add_emitter(s, B->a - 1, row - 2, 3, 1, SAND_STEAM, 6, 1, 1, 0);
    sim__sand_add_emitter(s, B->a + side * 12, row - 3, 2, 1, SAND_WATER, 20, 1, 1, 0);
    sim__sand_add_drain(s, B->a - r - 16, L->base - V(8), 16, V(8));
    sim__sand_add_drain(s, B->a + r + 1, L->base - V(8), 16, V(8));
}

/* The acid grotto: sand trickles into the acid pool and fumes, acid drips back in, the pool
 * overflows at its level. The cavern lake: a waterfall from a crack in the roof, the lake
 * overflowing at its level at the far end. Crystals need nothing. */
static void chamber_sources(sand_world *s, const big_chamber *c)
{
    switch (c->kind) {
    case CH_ACID:
        sim__sand_add_emitter(s, c->cx - 1, c->cy - c->ry + 1, 2, 1, SAND_SAND, 24, 1, 1, 0);
        sim__sand_add_emitter(s, c->cx + c->rx / 2, c->cy - c->ry * 3 / 4, 2, 1, SAND_ACID, 14, 1, 1, 0);
        sim__sand_add_drain(s, c->cx - c->rx + 2, c->cy + c->ry / 3 - 1, 14, 1);
        break;
    case CH_LAKE: {
        int x = c->cx - c->rx / 2, y = c->cy;
        while (y > c->cy - c->ry && in_ellipse(x, y - 1, c->cx, c->cy, c->rx, c->ry)) y--;
        sim__sand_add_emitter(s, x, y, 3, 1, SAND_WATER, 40, 1, 1, 0);
        sim__sand_add_drain(s, c->cx + c->rx / 2, c->cy + c->ry / 5 - 1, c->rx / 2, 2);
        break;
    }
    default:
        break;
    }
}

static void biome_sources(sand_world *s, sand_big *L, const big_biome *B)
{
    int cx, cy, rx, ry;
    switch (B->kind) {
    case BK_FALLS: {
        int mouth = L->base - V(FALLS_HIGH) + V(10);
        /* The spring: out of its mouth and, as a curtain, from under the shelf; the lake's
         * outflow by the fall; the sand cave's trickle onto a cone that drains at its feet. */
        sim__sand_add_emitter(s, B->a - 12, mouth, 20, 1, SAND_WATER, 40, 1, 1, 0);
        sim__sand_add_drain(s, B->a + 10, B->c + 1, 5, 3);
        sand_cave(L, B, &cx, &cy, &rx, &ry);
        int d = imin(rx * 2 / 3, 2 * ry - 8);
        sim__sand_add_emitter(s, cx - 1, cy - ry + 1, 2, 1, SAND_SAND, 70, 1, 1, 0);
        sim__sand_add_drain(s, cx - d, cy, 1, ry);
        sim__sand_add_drain(s, cx + d + 1, cy, 1, ry);
        break;
    }
    case BK_FOREST:
        forest_sources(s, B);
        break;
    case BK_DUNES: {
        /* The oil seep drips from the cave's roof onto its pool, which overflows at the oil's
         * level. */
        oil_cave(L, B, &cx, &cy, &rx, &ry);
        int sx = cx - rx / 2, sy = cy;
        while (sy > cy - ry && in_ellipse(sx, sy - 1, cx, cy, rx, ry)) sy--;
        sim__sand_add_emitter(s, sx, sy, 2, 2, SAND_OIL, 40, 240, 180, B->phase % 240);
        sim__sand_add_drain(s, cx + rx - 16, cy - ry / 8 - 1, 16, 1);
        break;
    }
    case BK_VOLCANO:
        volcano_sources(s, L, B);
        break;
    case BK_SPRINGS:
        springs_sources(s, L, B);
        break;
    default:
        break;
    }
}

void sim__sand_scene_big(sand_world *s, int build)
{
    sand_big *L = sim__sand_big_init(s);
    for (int x = 0; build && x < s->w; x++) {
        sim__sand_big_column(L, x, L->cols);
        for (int y = 0; y < s->h; y++)
            s->cells[cidx(s, x, y)] = sim__sand_fresh(BP_EL(L->cols[y]), 0);
    }
    for (int i = 0; i < L->nb; i++) {
        biome_sources(s, L, &L->b[i]);
        for (int k = 0; k < L->b[i].nch; k++) chamber_sources(s, &L->b[i].ch[k]);
    }
    for (int i = 0; i < L->nb; i++) cave_sandfall(s, L, &L->b[i]);
    sim__sand_add_drain(s, 0, 0, s->w, 1);             /* the sky */
}
