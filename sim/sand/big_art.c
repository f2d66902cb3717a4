/* big_art.c — the picture of a big world's demo (issue 30): what lies behind the air (a dusk sky
 * as tall as the world's, three ranges of hills, a sun setting behind them, a moon, clouds; a
 * cave's wall underground), the rock by biome (earth strata under grass, sandstone under the
 * dunes, granite under snow, basalt round the lava, travertine at the hot springs) and the
 * leaves. The small world's picture (render.c) draws the same materials the same way where it
 * can (picture.h); everything that moves is drawn by render.c's picture_render for both. All of
 * it is a function of the position and the layout, built once at create. */
#include "big.h"
#include "picture.h"

static const uint8_t BIG_COLOURS[Q_BIG_COUNT - Q_COUNT][3] = {
    [Q_SS0 - Q_COUNT] = { 198, 146, 90 },  [Q_SS1 - Q_COUNT] = { 176, 124, 78 },
    [Q_SS2 - Q_COUNT] = { 146, 100, 66 },  [Q_BA0 - Q_COUNT] = { 46, 40, 52 },
    [Q_BA1 - Q_COUNT] = { 62, 54, 66 },    [Q_BA2 - Q_COUNT] = { 30, 26, 36 },
    [Q_TR0 - Q_COUNT] = { 240, 228, 200 }, [Q_TR1 - Q_COUNT] = { 214, 192, 158 },
    [Q_TR2 - Q_COUNT] = { 210, 128, 66 },  [Q_MOON0 - Q_COUNT] = { 240, 236, 218 },
    [Q_MOON1 - Q_COUNT] = { 200, 194, 182 }, [Q_HILLX - Q_COUNT] = { 166, 90, 124 },
};

#define V(n) sim__sand_big_v(L, (n))

/* What lies above a run of rock, as far as its surface's look goes. */
enum { UP_SKY, UP_CAVE, UP_WATER, UP_OTHER };

typedef struct art {
    sand_big *L;
    int sun_x, sun_y, moon_x, moon_y;
    /* per column */
    int hill_n, hill_f, hill_x;         /* the near, far and farthest ranges' top rows */
    int ncloud;
    int cloud[6][4];                    /* centre x, y, radii: the clouds over this column */
    int snowline;
} art;

/* The three ranges behind the land: near hills, far hills, and a faint far range. */
static int hill_near(sand_big *L, int x)
{
    return L->base - V(16) - tri(x + 40, 190, V(26)) - tri(x + 13, 70, V(7));
}
static int hill_far(sand_big *L, int x)
{
    return L->base - V(50) - tri(x, 310, V(56)) - tri(x + 90, 105, V(12));
}
static int hill_range(sand_big *L, int x)
{
    return L->base - V(74) - tri(x + 200, 530, V(64)) - tri(x * 3 + 50, 170, V(14));
}
static int hill_top(sand_big *L, int x)
{
    int t = hill_near(L, x), f = hill_far(L, x), r = hill_range(L, x);
    return t < f ? (t < r ? t : r) : (f < r ? f : r);
}

/* The clouds whose slot is this column's or a neighbour's: two chances in three for each of two
 * a slot of 220 columns; long and thin, 48 to 174 pixels across. */
#define CLOUD_SLOT 220
static void column_clouds(art *A, int x)
{
    sand_big *L = A->L;
    A->ncloud = 0;
    for (int i = x / CLOUD_SLOT - 1; i <= x / CLOUD_SLOT + 1; i++)
        for (int k = 0; k < 2; k++) {
            uint32_t h = phash(i, k, 20);
            if (h % 3u == 0 || i < 0) continue;
            int *c = A->cloud[A->ncloud];
            c[0] = i * CLOUD_SLOT + (int)(h % CLOUD_SLOT);
            c[1] = L->base / 8 + (int)((h >> 8) % (uint32_t)(L->base * 5 / 8 + 1));
            c[2] = 24 + (int)((h >> 16) % 64u);
            c[3] = 2 + (int)((h >> 24) % 3u);
            if (x >= c[0] - c[2] && x <= c[0] + c[2]) A->ncloud++;
        }
}

static int cloud_at(const art *A, int x, int y)
{
    for (int k = 0; k < A->ncloud; k++) {
        const int *c = A->cloud[k];
        int dx = x - c[0], dy = y - c[1], ry = c[3];
        if (dy <= -ry || dy >= ry) continue;
        int rx = c[2] - (int)(phash(y, c[0], 3) % 6u);
        if (dx * dx * ry * ry + dy * dy * rx * rx < rx * rx * ry * ry) return dy >= 0 ? Q_CLOUD0 : Q_CLOUD1;
    }
    return -1;
}

/* The sky at (x, y), in front to back: the ranges, the sun, the moon, the clouds, the gradient
 * (seven bands, dithered, indigo at the top to gold at the horizon) and its stars. */
static int sky_at(const art *A, int x, int y)
{
    sand_big *L = A->L;
    if (y >= A->hill_n) return Q_HILLN;
    if (y >= A->hill_f) return Q_HILLF;
    if (y >= A->hill_x) return Q_HILLX;
    int dx = x - A->sun_x, dy = y - A->sun_y, r2 = dx * dx + dy * dy;
    if (r2 < 26 * 26) {
        if (dy > 0 && dy % 5 == 4) return Q_SKY6;          /* the bands of a retro sunset */
        return r2 < 17 * 17 ? Q_SUN1 : Q_SUN0;
    }
    dx = x - A->moon_x;
    dy = y - A->moon_y;
    if (dx * dx + dy * dy < 13 * 13 && (dx - 6) * (dx - 6) + (dy + 3) * (dy + 3) >= 12 * 12)
        return phash(x, y, 21) % 5u == 0 ? Q_MOON1 : Q_MOON0;
    int c = cloud_at(A, x, y);
    if (c >= 0) return c;
    int band = (y * 96 / (L->base > 0 ? L->base : 1) + BAYER[y & 3][x & 3]) / 16;
    if (band > 6) band = 6;
    if (band <= 1 && phash(x, y, 4) % 89u == 0) return Q_STAR;
    return Q_SKY0 + band;
}

/* One step darker along the earth's ramp. */
static int darker(int q) { return q > Q_E0 && q <= Q_E4 ? q - 1 : q; }

static int earth(sand_big *L, int x, int y, int d, int up, int side, uint32_t h)
{
    if (up == UP_SKY && d <= 2) return grass(d, h);
    if (up == UP_WATER && d <= 1) return (h & 1u) ? Q_SOIL : Q_E1;        /* a lake's mud */
    if (side) return Q_E4;
    if (up == UP_SKY && d <= 4 + (int)(h % 3u)) return Q_SOIL;
    /* strata that bend and thicken with the noise, darker by three steps from the plains down to
     * the lava, dithered */
    int q = strata(x, y + sim__sand_big_noise(L, x, y / 2, 150, 15) / 2);   /* never negative */
    int span = L->lava_top - L->base > 3 ? L->lava_top - L->base : 3;
    int deep = (y - L->base - V(40)) * 3 + BAYER[y & 3][x & 3] * span / 16;
    for (int k = deep / span; k > 0; k--) q = darker(q);
    return speckle(q, h);
}

static int sandstone(int x, int y, int d, int up, int side, uint32_t h)
{
    if ((up == UP_SKY || up == UP_OTHER) && d == 0) return Q_SA2;
    if (up != UP_CAVE && d == 1) return Q_SS0;
    if (side) return Q_SA3;
    static const uint8_t BEDS[6] = { Q_SS0, Q_SS1, Q_SS0, Q_SS2, Q_SS1, Q_SA3 };
    int v = (y + tri(x, 90, 6) + tri(x + 31, 26, 2)) / 5;
    int q = BEDS[v % 6];
    if ((x + 3 * y) % 37 < 2 && (v & 1)) q = Q_SS2;                      /* cross-bedding */
    if (h % 17u == 0) q = Q_SS2;
    else if (h % 23u == 0) q = Q_SA3;
    return q;
}

static int basalt(int x, int y, uint32_t h)
{
    /* columns: joints 6 apart, broken every 13 rows and shifted at each break */
    if ((x + (int)(phash(x / 6, y / 13, 23) & 3)) % 6 == 0 && h % 4u) return Q_BA2;
    if (h % 41u == 0) return Q_L4;                                    /* a glint of heat */
    return h % 5u == 0 ? Q_BA1 : h % 7u == 0 ? Q_BA2 : Q_BA0;
}

static int travertine(int x, int y, int d, uint32_t h)
{
    if (d == 0) return phash(x / 3, y, 22) % 4u == 0 ? Q_TR2 : Q_TR0;  /* the orange mats */
    if (d == 1) return Q_TR0;
    if (d < 4 && h % 7u == 0) return Q_TR2;
    return (y + tri(x, 40, 2)) / 2 % 3 == 0 ? Q_TR0 : Q_TR1;
}

/* A rock pixel: d rows under its run's top, what lies above the run, whether the sky is beside it
 * (side) or a cave touches it (rim). */
static int rock_px(const art *A, int style, int x, int y, int d, int up, int side, int rim)
{
    uint32_t h = phash(x, y, 5);
    switch (style) {
    case RS_SANDSTONE: return rim ? Q_SS2 : sandstone(x, y, d, up, side, h);
    case RS_GRANITE:
        if (up == UP_SKY && y < A->snowline && d <= 1 + (A->snowline - y) / 24) return snow(d, h);
        if (rim) return Q_M4;
        if (side) return Q_M3;
        return granite(x, y, h);
    case RS_BASALT: return rim ? Q_BA2 : basalt(x, y, h);
    case RS_TRAVERTINE: return rim ? Q_E5 : travertine(x, y, d, h);
    default: return rim ? Q_E5 : earth(A->L, x, y, d, up, side, h);
    }
}

static int is_rock(uint8_t p) { return BP_EL(p) == SAND_WALL; }
static int is_cave_air(uint8_t p) { return !is_rock(p) && (p & BP_CAVE); }
static int is_open_sky(uint8_t p) { return BP_EL(p) == SAND_EMPTY && !(p & BP_CAVE); }

/* Column x of the picture from the plan columns to its left, itself and to its right. */
static void draw_column(sand_world *s, const art *A, int x, const uint8_t *lc, const uint8_t *col,
                        const uint8_t *rc)
{
    int top = 0, up = UP_SKY;
    for (int y = 0; y < s->h; y++) {
        size_t i = (size_t)y * (size_t)s->w + (size_t)x;
        uint8_t p = col[y];
        s->leafpx[i] = (p & BP_LEAF) && !is_rock(p) ? leaf_shade(x, y) : 0;
        int under = y >= A->L->ground[x];
        if (!is_rock(p)) {
            s->airpx[i] = (uint8_t)(p & BP_CAVE ? cave_wall(x, y, x, y) : sky_at(A, x, y));
            /* wall a player paints here: plain strata */
            s->wallpx[i] = (uint8_t)earth(A->L, x, y, 8, UP_OTHER, 0, phash(x, y, 5));
            continue;
        }
        if (y == 0 || !is_rock(col[y - 1])) {
            top = y;
            uint8_t a = y ? col[y - 1] : SAND_EMPTY;
            up = is_cave_air(a) ? UP_CAVE : BP_EL(a) == SAND_EMPTY ? UP_SKY
                 : BP_EL(a) == SAND_WATER ? UP_WATER : UP_OTHER;
        }
        int rim = is_cave_air(lc[y]) || is_cave_air(rc[y]) || (y > 0 && is_cave_air(col[y - 1])) ||
                  (y + 1 < s->h && is_cave_air(col[y + 1]));
        int side = is_open_sky(lc[y]) || is_open_sky(rc[y]);
        s->wallpx[i] = (uint8_t)rock_px(A, BP_STYLE(p), x, y, y - top, up, side, rim);
        s->airpx[i] = (uint8_t)(under ? cave_wall(x, y, x, y) : sky_at(A, x, y));
    }
}

void sim__sand_big_picture(sand_world *s)
{
    sim__sand_picture_palette(&s->pal);
    for (int k = Q_COUNT; k < Q_BIG_COUNT; k++) memcpy(&s->pal.rgb[k * 3], BIG_COLOURS[k - Q_COUNT], 3);
    s->pal.count = Q_BIG_COUNT;
    sand_big *L = sim__sand_big_init(s);
    art A = { .L = L };
    /* The sun sets behind the ranges over the first dunes (or the middle biome); the moon rides
     * high over the other end of the world. */
    const big_biome *sb = &L->b[L->nb / 2];
    for (int i = 0; i < L->nb; i++)
        if (L->b[i].kind == BK_DUNES) {
            sb = &L->b[i];
            break;
        }
    A.sun_x = sb->x0 + sb->w / 2 + 40;
    A.sun_y = hill_top(L, A.sun_x) - 12;
    A.moon_x = A.sun_x > s->w / 2 ? s->w / 6 + 13 : s->w - s->w / 6 - 13;
    A.moon_y = L->base / 4 + 14;
    /* Three plan columns turn round: x - 1, x and x + 1 (the edges see their own as neighbours). */
    uint8_t *cols[3] = { L->cols, L->cols + s->h, L->cols + 2 * (size_t)s->h };
    sim__sand_big_column(L, 0, cols[0]);
    if (s->w > 1) sim__sand_big_column(L, 1, cols[1]);
    for (int x = 0; x < s->w; x++) {
        const uint8_t *col = cols[x % 3];
        const uint8_t *lc = x > 0 ? cols[(x + 2) % 3] : col;
        if (x > 0 && x + 1 < s->w) sim__sand_big_column(L, x + 1, cols[(x + 1) % 3]);
        const uint8_t *rc = x + 1 < s->w ? cols[(x + 1) % 3] : col;
        A.hill_n = hill_near(L, x);
        A.hill_f = hill_far(L, x);
        A.hill_x = hill_range(L, x);
        A.snowline = L->base - V(96) + tri(x, 97, V(12));
        column_clouds(&A, x);
        draw_column(s, &A, x, lc, col, rc);
    }
}
