/* cycle_scenes.c — the procedural scenes of the cycle world: a waterfall into a pool, a lava
 * cavern, and a sky and sea at dusk, each painted once from the seed at create time.
 *
 * They are painted the way colour-cycling art was: every moving thing is a run of palette entries
 * (a range) laid over the image along a "flow coordinate" — distance down the falling water, out
 * from where it lands, along the lava river — so that rotating the range moves the colours along
 * that coordinate. The fractional part of the coordinate is dithered (ordered 8×8 Bayer) into the
 * neighbouring entry, and neighbouring shade bands of the same motion are dithered into one
 * another, so motion reads as flow rather than as stripes. Several ranges at different rates move
 * different things; still parts are plain palette entries.
 *
 * All painting is in design units (320×180, whatever w×h is) with doubles built from + − × ÷,
 * sqrt and dmath, so the picture is the same on every machine. */
#include "cycle.h"
#include <stdlib.h>

/* ---- painting helpers ------------------------------------------------------------------------- */
typedef struct painter {
    sim_cycle_scene *sc;
    int w, h;
    uint64_t seed;
} painter;

static const uint8_t BAYER8[8][8] = {
    { 0, 32, 8, 40, 2, 34, 10, 42 },   { 48, 16, 56, 24, 50, 18, 58, 26 },
    { 12, 44, 4, 36, 14, 46, 6, 38 },  { 60, 28, 52, 20, 62, 30, 54, 22 },
    { 3, 35, 11, 43, 1, 33, 9, 41 },   { 51, 19, 59, 27, 49, 17, 57, 25 },
    { 15, 47, 7, 39, 13, 45, 5, 37 },  { 63, 31, 55, 23, 61, 29, 53, 21 },
};

/* Ordered-dither threshold in (0, 1) at a pixel; k picks one of four decorrelated offsets. */
static double dith(int x, int y, int k)
{
    static const int OX[4] = { 0, 3, 5, 6 }, OY[4] = { 0, 5, 2, 7 };
    return (BAYER8[(y + OY[k & 3]) & 7][(x + OX[k & 3]) & 7] + 0.5) / 64.0;
}

static int ifloor(double v) { return (int)sim_floor(v); }
static int imod(int a, int n) { return ((a % n) + n) % n; }
static double clamp01(double v) { return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v; }
static double smooth(double t) { t = clamp01(t); return t * t * (3.0 - 2.0 * t); }

/* Value noise in [0, 1): a hashed lattice, smoothly interpolated. `base` is the scene's
 * sim_hash_tick(seed, 0), computed once: the lattice is the counter hash of (x, y, salt). */
static double lattice(uint64_t base, uint32_t salt, int ix, int iy)
{
    return (double)(sim_hash_at(base, ix, iy, salt) >> 8) / 16777216.0;
}
static double vnoise(uint64_t seed, uint32_t salt, double x, double y)
{
    int ix = ifloor(x), iy = ifloor(y);
    double fx = x - ix, fy = y - iy;
    double sx = fx * fx * (3.0 - 2.0 * fx), sy = fy * fy * (3.0 - 2.0 * fy);
    double a = lattice(seed, salt, ix, iy), b = lattice(seed, salt, ix + 1, iy);
    double c = lattice(seed, salt, ix, iy + 1), d = lattice(seed, salt, ix + 1, iy + 1);
    double top = a + (b - a) * sx, bot = c + (d - c) * sx;
    return top + (bot - top) * sy;
}
/* Fractal sum of `oct` octaves, in [0, 1). */
static double fbm(uint64_t seed, uint32_t salt, double x, double y, int oct)
{
    double sum = 0.0, amp = 0.5, norm = 0.0;
    for (int o = 0; o < oct; o++) {
        sum += amp * vnoise(seed, salt + (uint32_t)o * 7919u, x, y);
        norm += amp;
        amp *= 0.5;
        x *= 2.03;
        y *= 2.03;
    }
    return sum / norm;
}
/* Per-pixel white noise in [0, 1). */
static double white(uint64_t seed, uint32_t salt, int x, int y)
{
    return (double)(sim_hash_at(seed, x, y, salt | 0x80000000u) >> 8) / 16777216.0;
}

/* One palette entry; the index. Palettes here stay far below 256 entries. */
static int add_rgb(sim_cycle_scene *sc, uint32_t hex)
{
    int i = sc->ncolors++;
    sc->rgb[3 * i] = (uint8_t)(hex >> 16);
    sc->rgb[3 * i + 1] = (uint8_t)(hex >> 8);
    sc->rgb[3 * i + 2] = (uint8_t)hex;
    return i;
}
static uint32_t mix_hex(uint32_t a, uint32_t b, double t)
{
    uint32_t out = 0;
    for (int s = 16; s >= 0; s -= 8) {
        double ca = (double)((a >> s) & 255u), cb = (double)((b >> s) & 255u);
        out |= (uint32_t)(ca + (cb - ca) * clamp01(t) + 0.5) << s;
    }
    return out;
}
/* n entries along a piecewise-linear ramp through `nstops` evenly spaced stops; the first index. */
static int add_ramp(sim_cycle_scene *sc, int n, const uint32_t *stops, int nstops)
{
    int first = sc->ncolors;
    for (int i = 0; i < n; i++) {
        double t = n == 1 ? 0.0 : (double)i * (nstops - 1) / (n - 1);
        int k = ifloor(t);
        if (k >= nstops - 1) k = nstops - 2;
        add_rgb(sc, mix_hex(stops[k], stops[k + 1], t - k));
    }
    return first;
}
/* n entries of a wave: the colour at entry i is lerp(dark, light, profile[i]). */
static int add_wave(sim_cycle_scene *sc, uint32_t dark, uint32_t light, const double *profile, int n)
{
    int first = sc->ncolors;
    for (int i = 0; i < n; i++) add_rgb(sc, mix_hex(dark, light, profile[i]));
    return first;
}
/* A cycle range over entries [low, low + n). rate in CRNG units (16384 = 60 steps a second). */
static void add_range(sim_cycle_scene *sc, int low, int n, int rate, int dir, int mode)
{
    sim_cycle_range *r = &sc->ranges[sc->nranges++];
    r->low = (uint8_t)low;
    r->high = (uint8_t)(low + n - 1);
    r->rate = (uint16_t)rate;
    r->dir = (uint8_t)dir;
    r->mode = (uint8_t)mode;
    r->active = 1;
}
/* Steps a second → CRNG rate. */
static int rate_of(double steps_per_s) { return (int)(steps_per_s * 16384.0 / 60.0 + 0.5); }

/* Entry of a static gradient of n entries from `first` at t in [0, 1], ordered-dithered. */
static int grad(int first, int n, double t, int x, int y, int k)
{
    double v = clamp01(t) * (n - 1);
    int i = ifloor(v);
    if (v - i > dith(x, y, k)) i++;
    if (i > n - 1) i = n - 1;
    return first + i;
}
/* Entry of a cycled range of n entries at flow coordinate s (in entries), dithered. */
static int flow(int first, int n, double s, int x, int y, int k)
{
    return first + imod(ifloor(s + dith(x, y, k)), n);
}
/* Pick band 0..nb−1 at a continuous band coordinate t, dithering between neighbours. */
static int band(double t, int nb, int x, int y, int k)
{
    int b = ifloor(t + dith(x, y, k) - 0.5);
    return b < 0 ? 0 : b >= nb ? nb - 1 : b;
}

/* Design coordinates of pixel (x, y): 320×180 whatever the image size. */
#define DX(p, x) (((double)(x) + 0.5) * 320.0 / (double)(p)->w)
#define DY(p, y) (((double)(y) + 0.5) * 180.0 / (double)(p)->h)
#define PX(p, x, y) ((p)->sc->px[(size_t)(y) * (size_t)(p)->w + (size_t)(x)])

/* ---- the waterfall ------------------------------------------------------------------------------ */
/* A river drops over the lip of a mossy gorge into a pool. The falling water is three shade bands
 * (shadow, body, lit edge) of one 12-entry streak pattern moving at one rate, its flow coordinate
 * growing like the square root of the drop so the streaks speed up as they fall. The pool's rings
 * run outward from the impact in two bands; foam and mist churn at the foot; the river above
 * slides toward the lip. Five motions, six ranges. */
static void scene_waterfall(painter *p)
{
    sim_cycle_scene *sc = p->sc;
    sim_rng rng;
    sim_rng_stream(&rng, p->seed, "cycle.waterfall");
    double fx = 150.0 + sim_rng_unit(&rng) * 24.0;        /* the fall's centre */
    double lip = 46.0 + sim_rng_unit(&rng) * 6.0;         /* where the water leaves the rock */
    double pool = 134.0 + sim_rng_unit(&rng) * 4.0;       /* the pool's surface line */
    double half0 = 15.0 + sim_rng_unit(&rng) * 4.0;       /* half-width at the lip */
    double spread = 5.0 + sim_rng_unit(&rng) * 4.0;       /* extra half-width at the foot */
    uint64_t s = sim_hash_tick(p->seed, 0);      /* the noise base */
    /* Trees: x, top, slope (half-width per unit of height), tier height, depth (0 near). */
    double tree[8][5];
    int ntree = 0;
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 3; k++) {
            double *t = tree[ntree++];
            double edge = 4.0 + k * 17.0 + sim_rng_unit(&rng) * 8.0;
            t[0] = side ? 320.0 - edge : edge;
            t[1] = 4.0 + k * 18.0 + sim_rng_unit(&rng) * 20.0;
            t[2] = 0.3 + sim_rng_unit(&rng) * 0.08;
            t[3] = 9.0 + sim_rng_unit(&rng) * 5.0;
            t[4] = (double)k / 2.0;
        }
    /* Far trees first, so near ones paint over them. */
    for (int i = 0; i < ntree; i++)
        for (int j = i + 1; j < ntree; j++)
            if (tree[j][4] > tree[i][4]) {
                double tmp[5];
                memcpy(tmp, tree[i], sizeof tmp);
                memcpy(tree[i], tree[j], sizeof tmp);
                memcpy(tree[j], tmp, sizeof tmp);
            }

    static const uint32_t SKY[] = { 0x1b2f57, 0x2c4f7c, 0x4b7aa0, 0x82aebd, 0xc9dcc8, 0xf1e3b4 };
    int sky = add_ramp(sc, 10, SKY, 6);
    static const uint32_t FAR[] = { 0x8aa7b8, 0x6f8fa6 };
    int far = add_ramp(sc, 2, FAR, 2);
    static const uint32_t MID[] = { 0x5f7d94, 0x46647c };
    int mid = add_ramp(sc, 2, MID, 2);
    static const uint32_t CLOUD[] = { 0xa9c3cc, 0xf4f1e4 };
    int cloud = add_ramp(sc, 3, CLOUD, 2);
    static const uint32_t ROCK[] = { 0x141219, 0x2a2531, 0x4a4250, 0x756a74, 0xa59a98 };
    int rock = add_ramp(sc, 9, ROCK, 5);
    static const uint32_t MOSS[] = { 0x1f3a22, 0x3b6532, 0x6f9a45, 0xa8c463 };
    int moss = add_ramp(sc, 5, MOSS, 4);
    static const uint32_t LEAF[] = { 0x060d0b, 0x0e2118, 0x1b3a25, 0x31593a };
    int leaf = add_ramp(sc, 5, LEAF, 4);

    /* The streak profile of the falling water: a bright crest, a soft tail, dark gaps. */
    static const double STREAK[12] = { 0.05, 0.12, 0.28, 0.55, 0.92, 1.0, 0.74, 0.5, 0.34, 0.22,
                                       0.12, 0.06 };
    int fall[3];
    fall[0] = add_wave(sc, 0x173a55, 0x7db3cc, STREAK, 12);
    fall[1] = add_wave(sc, 0x2c6a92, 0xd8f0f7, STREAK, 12);
    fall[2] = add_wave(sc, 0x4f94bd, 0xffffff, STREAK, 12);
    static const double RIVER[8] = { 0.1, 0.3, 0.7, 1.0, 0.6, 0.35, 0.2, 0.1 };
    int river = add_wave(sc, 0x2b5f86, 0xc6e6f0, RIVER, 8);
    static const double RING[12] = { 0.0, 0.08, 0.3, 0.75, 1.0, 0.55, 0.25, 0.1, 0.35, 0.5, 0.2,
                                     0.05 };
    int ring[2];
    ring[0] = add_wave(sc, 0x0f2c45, 0x4f8fb2, RING, 12);
    ring[1] = add_wave(sc, 0x1d4d70, 0x9fd2e6, RING, 12);
    static const double FOAM[8] = { 1.0, 0.85, 0.6, 0.35, 0.2, 0.4, 0.7, 0.95 };
    int foam = add_wave(sc, 0x6aa5c4, 0xffffff, FOAM, 8);

    add_range(sc, fall[0], 12, rate_of(30), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, fall[1], 12, rate_of(30), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, fall[2], 12, rate_of(30), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, river, 8, rate_of(9), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, ring[0], 12, rate_of(7), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, ring[1], 12, rate_of(7), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, foam, 8, rate_of(22), SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);

    /* What depends on the column only, once per column. */
    enum { W = SIM_CYCLE_MAX_W };
    double r1[W], r2[W], rimn[W], shore[W], streak[W], lip_moss[W];
    for (int x = 0; x < p->w; x++) {
        double X = DX(p, x);
        r1[x] = 58.0 - 22.0 * fbm(s, 21, X / 60.0, 0.5, 4);
        r2[x] = 70.0 - 20.0 * fbm(s, 22, X / 45.0, 3.5, 5);
        double ax = X - fx < 0 ? fx - X : X - fx;
        rimn[x] = lip - 4.0 - 30.0 * smooth((ax - half0 + 6.0) / 120.0) -
                  10.0 * fbm(s, 31, X / 30.0, 1.5, 4) + 5.0;
        shore[x] = X < fx ? 152.0 + 16.0 * fbm(s, 81, X / 22.0, 2.0, 3) + 0.0035 * (X - 60.0) * (X - 60.0)
                          : 150.0 + 18.0 * fbm(s, 82, X / 22.0, 5.0, 3) + 0.004 * (X - 280.0) * (X - 280.0);
        streak[x] = 9.0 * lattice(s, 53, ifloor(X), 0) + 3.0 * lattice(s, 56, ifloor(X / 2.0), 0) +
                    4.0 * vnoise(s, 54, X / 7.0, 0.0);
        lip_moss[x] = 2.0 + 3.0 * fbm(s, 84, X / 6.0, 0.0, 2);
    }

    /* Each pixel front to back: the first layer that covers it decides (mist aside, which
     * sprinkles over whatever is behind it). */
    for (int y = 0; y < p->h; y++) {
        double Y = DY(p, y);
        double halfy = half0 + spread * clamp01((Y - lip) / (pool - lip));
        double wob = 1.6 * (fbm(s, 51, Y / 9.0, 0.0, 2) - 0.5);
        for (int x = 0; x < p->w; x++) {
            double X = DX(p, x);
            double ax = X - fx < 0 ? fx - X : X - fx;
            int c = -1;

            /* Conifers at the edges: tiers that widen downward, lit from the left; nearer trees
             * (later in the list) over farther ones. */
            for (int k = 0; k < ntree; k++) {
                const double *tr = tree[k];
                if (Y < tr[1] || Y > 182.0) continue;
                double dy = Y - tr[1];
                double tier = dy - tr[3] * sim_floor(dy / tr[3]);       /* position in its tier */
                double tt = tier / tr[3];
                double hw = (dy + 2.0) * tr[2] * (0.4 + 0.6 * tt * tt) + 0.6;
                hw += 2.2 * (white(s, 95 + (uint32_t)k, 0, y) - 0.5) * tt;
                double u = (X - tr[0]) / hw;
                if (u > -1.0 && u < 1.0) {
                    double t = 0.62 - 0.38 * u - 0.5 * tt - 0.22 * tr[4] +
                               0.25 * (vnoise(s, 96, X / 1.5, Y / 1.5) - 0.5);
                    c = grad(leaf, 5, t, x, y, 1);
                } else if (u > -1.0 && u < 1.4 && dy > 0 && (X - tr[0]) * (X - tr[0]) < 0.8 &&
                           Y > tr[1] + 6.0) {
                    c = rock + 1;                                          /* the trunk */
                }
            }

            /* A boulder shore on each side. */
            double by = shore[x];
            if (c < 0 && Y > by) {
                double hgt = fbm(s, 83, X / 9.0, Y / 9.0, 4);
                double lit = hgt - fbm(s, 83, (X + 1.2) / 9.0, (Y + 1.2) / 9.0, 4);
                double t = 0.22 + lit * 5.0 - (Y - by) / 90.0 + (Y - by < 2.5 ? 0.3 : 0.0);
                c = Y - by < lip_moss[x] ? grad(moss, 5, 0.3 + lit * 6.0, x, y, 3)
                                         : grad(rock, 9, t * 0.7, x, y, 0);
            }

            /* Foam where the water lands. */
            if (c < 0 && Y > pool - 10.0) {
                double fdx = (X - fx) / (halfy + 10.0), fdy = (Y - pool) / 9.0;
                double fr = fdx * fdx + fdy * fdy * (fdy < 0 ? 2.5 : 1.0);
                if (fr < 1.3 && fr < 1.0 + 0.6 * (fbm(s, 71, X / 5.0, Y / 4.0, 3) - 0.5))
                    c = flow(foam, 8, 8.0 * white(s, 72, x, y) - Y * 0.35, x, y, 0);
            }
            if (c >= 0) {
                PX(p, x, y) = (uint8_t)c;
                continue;
            }

            double rim = rimn[x], top = lip - 9.0;
            if (Y >= pool) {
                /* The pool: rings run out from the foot of the fall. */
                double dx = X - fx, dy = (Y - pool) * 3.4;
                double d = sim_sqrt(dx * dx + dy * dy) + 7.0 * fbm(s, 61, X / 16.0, Y / 5.0, 3);
                double near = 1.8 - d / 55.0 + 0.3 * (fbm(s, 62, X / 20.0, Y / 6.0, 2) - 0.5);
                int b = band(near, 2, x, y, 2);
                c = flow(ring[b], 12, d / 4.5, x, y, 1);
                /* Reflection of the dark gorge in the pool's far edge. */
                if (Y < pool + 3.0 && ax > halfy + 2.0 && dith(x, y, 0) < 0.6) c = ring[0];
            } else if (Y > top && Y <= lip + 1.0 && ax < half0 - (lip - Y) * 0.6 + wob) {
                /* The river above the lip, seen edge-on. */
                double sflow = (Y - top) * 0.9 + 2.0 * fbm(s, 52, X / 8.0, Y / 3.0, 2);
                c = flow(river, 8, sflow, x, y, 1);
            } else if (Y > lip && ax < halfy + wob) {
                /* Streaks: each column falls at its own phase; the drop stretches them. Soft
                 * edges: the outermost pixels thin out into the rock behind. */
                double edge = (halfy + wob - ax) / 2.5;
                if (edge > 1.0 || edge > dith(x, y, 3)) {
                    double sflow = 3.2 * sim_sqrt((Y - lip) * 6.0 + 4.0) + streak[x];
                    double u = (X - fx) / (halfy + 0.001);               /* −1 left … 1 right */
                    double shade = 1.15 - 1.05 * u + 0.5 * (fbm(s, 55, X / 4.0, Y / 30.0, 2) - 0.5);
                    c = flow(fall[band(shade, 3, x, y, 2)], 12, sflow, x, y, 1);
                }
            }
            if (c < 0 && Y > rim) {
                /* The gorge: its rim climbs from the lip toward both sides. */
                double hgt = fbm(s, 41, X / 18.0, Y / 18.0, 5);
                double lit = hgt - fbm(s, 41, (X + 1.5) / 18.0, (Y + 1.5) / 18.0, 5);
                double strata = sim_sin(Y * 0.55 + 3.0 * fbm(s, 42, X / 40.0, Y / 40.0, 3));
                double t = 0.48 + lit * 4.0 + 0.12 * strata - 0.25 * (hgt - 0.5);
                t -= 0.25 * smooth(1.0 - (ax - half0) / 40.0);              /* wet near the fall */
                t += 0.12 * smooth((Y - rim) / 6.0) * (1.0 - smooth((Y - rim) / 14.0)); /* rim light */
                c = grad(rock, 9, t, x, y, 0);
                /* Moss in patches on the ledges (where the strata turn upward) and on the rim;
                 * elsewhere fissures, where a stretched noise crosses its middle. */
                double mz = fbm(s, 43, X / 10.0, Y / 7.0, 4);
                if ((strata > 0.7 && mz > 0.56) || (Y - rim < 3.0 + 5.0 * mz && mz > 0.42)) {
                    c = grad(moss, 5, 0.25 + lit * 5.0 + (mz - 0.5) * 1.5, x, y, 3);
                } else {
                    double fis = vnoise(s, 44, X / 7.0, Y / 34.0) - 0.5;
                    if (fis < 0.018 && fis > -0.018 && fbm(s, 45, X / 20.0, Y / 20.0, 2) > 0.45)
                        c = rock + (lit > 0.0 ? 1 : 0);
                }
            }
            if (c < 0) {
                /* Sky, clouds, two hazy ridges. */
                if (Y > r2[x]) c = grad(mid, 2, (Y - r2[x]) / 20.0, x, y, 2);
                else if (Y > r1[x]) c = grad(far, 2, (Y - r1[x]) / 18.0, x, y, 2);
                else {
                    c = grad(sky, 10, Y / 92.0, x, y, 0);
                    double cl = Y < 46.0 ? fbm(s, 11, X / 70.0, Y / 14.0, 4) -
                                               (Y < 40.0 ? 0.0 : (Y - 40.0) / 30.0)
                                         : 0.0;
                    if (cl > 0.56) c = grad(cloud, 3, (cl - 0.56) * 4.0 + (40.0 - Y) / 80.0, x, y, 1);
                }
            }

            /* Mist rising from the foam, over whatever is behind it. */
            double mdx = (X - fx) / (halfy + 30.0), mdy = (Y - pool + 6.0) / 24.0;
            double md = 1.0 - (mdx * mdx + mdy * mdy);
            if (md > 0.0) {
                double dens = 0.22 * md * (0.4 + fbm(s, 73, X / 10.0, Y / 8.0, 3));
                if (white(s, 75, x, y) < dens)
                    c = flow(foam, 8, 8.0 * white(s, 74, x, y) - Y * 0.35, x, y, 0);
            }
            PX(p, x, y) = (uint8_t)c;
        }
    }
}

/* ---- fire: a volcano at night ------------------------------------------------------------------ */
/* Lava runs down the cone in rivulets (one ramp, flowing downhill), the crater fountain boils
 * upward, embers fly out on ballistic arcs against the sky, the ash plume's underside flickers
 * with the crater's light, and a crusted lava lake creeps along the foreground. The embers are
 * Ferrari's trick for sparks: each arc is a run of entries most of which are exactly the colour of
 * the sky behind it, so only the lit entries show, and they travel along the arc. */
static void scene_fire(painter *p)
{
    sim_cycle_scene *sc = p->sc;
    sim_rng rng;
    sim_rng_stream(&rng, p->seed, "cycle.fire");
    uint64_t s = sim_hash_tick(p->seed, 0);      /* the noise base */
    double vx = 178.0 + sim_rng_unit(&rng) * 30.0;       /* crater centre */
    double vy = 58.0 + sim_rng_unit(&rng) * 8.0;
    double crater = 13.0 + sim_rng_unit(&rng) * 4.0;     /* crater half-width */
    double base = 148.0;                                 /* foot of the cone */

    enum { NSKY = 7, NSPARK = 12 };
    static const uint32_t SKY[] = { 0x05040b, 0x0d0818, 0x1c0c22, 0x3a1224, 0x6a1c1e };
    int sky = add_ramp(sc, NSKY, SKY, 5);
    int star = add_rgb(sc, 0x8c86a8);
    static const uint32_t FARM[] = { 0x140a14, 0x24101a };
    int farm = add_ramp(sc, 2, FARM, 2);
    static const uint32_t ROCK[] = { 0x07050a, 0x150c12, 0x2a1418, 0x4c1f17, 0x8a3316 };
    int rock = add_ramp(sc, 7, ROCK, 5);
    static const uint32_t ASH[] = { 0x0e0b12, 0x1f1820, 0x332832 };
    int ash = add_ramp(sc, 3, ASH, 3);
    /* The plume's lit underside: a wave, so each entry flickers smoothly as it rotates. */
    static const double FLICK[8] = { 0.15, 0.35, 0.7, 1.0, 0.8, 0.5, 0.3, 0.2 };
    int plume = add_wave(sc, 0x3a1a1e, 0xc0502a, FLICK, 8);
    /* Lava: dark crust red through orange to a white-hot crest and back. */
    static const double LAVA[12] = { 0.0, 0.12, 0.3, 0.5, 0.7, 0.88, 1.0, 0.86, 0.66, 0.46, 0.28,
                                     0.1 };
    static const uint32_t HOT[] = { 0x3c0805, 0x9a1d08, 0xe8550f, 0xffa42a, 0xfff0b0 };
    int lava[2];
    lava[0] = sc->ncolors;
    for (int i = 0; i < 12; i++) {
        double t = LAVA[i] * 3.2, f;
        int k = ifloor(t);
        if (k > 3) k = 3;
        f = t - k;
        add_rgb(sc, mix_hex(HOT[k], HOT[k + 1], f));
    }
    lava[1] = sc->ncolors;
    for (int i = 0; i < 12; i++) {
        double t = LAVA[i] * 4.0, f;
        int k = ifloor(t);
        if (k > 3) k = 3;
        f = t - k;
        add_rgb(sc, mix_hex(HOT[k], HOT[k + 1], f));
    }
    static const double BOIL[10] = { 1.0, 0.78, 0.5, 0.26, 0.1, 0.22, 0.45, 0.68, 0.86, 0.97 };
    int fountain = add_wave(sc, 0x9a220a, 0xffe48a, BOIL, 10);
    static const double CRACK[10] = { 0.05, 0.2, 0.45, 0.8, 1.0, 0.75, 0.45, 0.25, 0.1, 0.0 };
    int lake = add_wave(sc, 0x4a0c06, 0xffb030, CRACK, 10);
    static const uint32_t CRUST[] = { 0x0b0608, 0x1c0d0d, 0x3a1410 };
    int crust = add_ramp(sc, 3, CRUST, 3);
    /* Ember ranges, one per sky entry they fly across: a spark and its tail, then sky. */
    int spark[NSKY];
    for (int b = 0; b < NSKY; b++) {
        spark[b] = sc->ncolors;
        const uint8_t *bg = &sc->rgb[3 * (sky + b)];
        uint32_t bgx = (uint32_t)bg[0] << 16 | (uint32_t)bg[1] << 8 | bg[2];
        /* Entry 0 is the spark; the last three its fading tail (they trail it as it moves). */
        static const uint32_t TAIL[4] = { 0xfff2b0, 0xffb23a, 0xd4501a, 0x7a2414 };
        for (int i = 0; i < NSPARK; i++) {
            int back = i == 0 ? 0 : NSPARK - i;                /* 1, 2, 3 behind the spark */
            add_rgb(sc, back < 4 ? mix_hex(TAIL[back], bgx, back * 0.2) : bgx);
        }
    }

    add_range(sc, lava[0], 12, rate_of(10), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, lava[1], 12, rate_of(10), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, fountain, 10, rate_of(14), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, plume, 8, rate_of(5), SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
    add_range(sc, lake, 10, rate_of(3), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    for (int b = 0; b < NSKY; b++)
        add_range(sc, spark[b], NSPARK, rate_of(24), SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);

    /* Rivulets down the cone: start offset at the rim, drift, meander amplitude and phase. */
    double riv[5][4];
    int nriv = 3 + (int)sim_rng_below(&rng, 3);
    for (int i = 0; i < nriv; i++) {
        riv[i][0] = 0.0;
        riv[i][1] = (i % 2 ? 1.0 : -1.0) * (0.08 + sim_rng_unit(&rng) * 0.62);
        riv[i][2] = 4.0 + sim_rng_unit(&rng) * 8.0;
        riv[i][3] = sim_rng_unit(&rng) * 6.28;
    }
    /* What depends on the column only: far ridge, the cone's ragged edge, the lake shore, the
     * foreground rocks. */
    enum { W = SIM_CYCLE_MAX_W };
    double colv[4][W];
    for (int x = 0; x < p->w; x++) {
        double X = DX(p, x);
        colv[0][x] = 118.0 - 26.0 * fbm(s, 102, X / 55.0, 0.5, 4);
        colv[1][x] = 7.0 * (fbm(s, 105, X / 16.0, 0.3, 4) - 0.5);
        colv[2][x] = base + 4.0 + 6.0 * fbm(s, 111, X / 30.0, 1.0, 3);
        colv[3][x] = X < 160.0
                         ? 138.0 + 20.0 * fbm(s, 114, X / 18.0, 3.0, 3) + 0.006 * (X - 30.0) * (X - 30.0)
                         : 136.0 + 20.0 * fbm(s, 115, X / 18.0, 7.0, 3) + 0.006 * (X - 300.0) * (X - 300.0);
    }

    for (int y = 0; y < p->h; y++) {
        double Y = DY(p, y);
        for (int x = 0; x < p->w; x++) {
            double X = DX(p, x);
            double dxv = X - vx, adx = dxv < 0 ? -dxv : dxv;
            /* Sky: darkest at the top, reddened by the crater's glow near it. */
            double gl = 1.0 - sim_sqrt(dxv * dxv * 0.6 + (Y - vy) * (Y - vy) * 1.6) / 140.0;
            double t = Y / 150.0 * 0.55 + 0.65 * (gl > 0 ? gl * gl : 0.0);
            int c = grad(sky, NSKY, t, x, y, 0);
            if (Y < 70.0 && white(s, 101, x, y) < 0.004 * (1.0 - t * 1.5)) c = star;
            /* Far ridges. */
            double fr = colv[0][x];
            if (Y > fr) c = grad(farm, 2, (Y - fr) / 30.0, x, y, 1);
            /* The ash plume leans away from the crater, lit from below. */
            if (Y < vy + 2.0) {
                double up = vy + 2.0 - Y;
                double cx = vx - up * 0.75 - 10.0 * sim_sin(up / 30.0);
                double wdt = 14.0 + up * 0.85;
                double q = (X - cx) / wdt;
                double dens = fbm(s, 103, X / 22.0, Y / 16.0, 5) + 0.6 * (1.0 - q * q);
                if (dens > 0.7) {
                    double lit = fbm(s, 103, X / 22.0, (Y + 2.5) / 16.0, 5) -
                                 fbm(s, 103, X / 22.0, Y / 16.0, 5);
                    double heat = 1.0 - up / 70.0 + lit * 6.0;
                    if (heat > 0.55 + 0.3 * dith(x, y, 2))
                        c = flow(plume, 8, 8.0 * fbm(s, 104, X / 14.0, Y / 10.0, 2), x, y, 1);
                    else
                        c = grad(ash, 3, (dens - 0.7) * 3.0 + lit * 4.0 + 0.2, x, y, 3);
                }
            }
            /* The cone. */
            /* Concave flanks: steep under the crater, spreading out toward the foot. */
            double span = dxv < 0 ? 175.0 : 150.0;
            double dd = adx > crater ? (adx - crater) / span : 0.0;
            double ridge = vy + 2.0 + (base - vy) * sim_sqrt(dd < 1.0 ? dd : 1.0) +
                           (adx < crater ? 3.0 * (1.0 - adx / crater) : 0.0) +
                           colv[1][x];
            if (Y > ridge) {
                double hgt = fbm(s, 106, X / 10.0, Y / 10.0, 4);
                double lit = hgt - fbm(s, 106, (X - 1.2) / 10.0, (Y + 1.2) / 10.0, 4);
                double rt = 0.28 + lit * 5.0 + 0.25 * (1.0 - (Y - ridge) / 25.0) * (Y - ridge < 25.0);
                c = grad(rock, 7, rt * 0.75, x, y, 0);
                /* Rivulets: glowing, flowing downhill, with a darker crust band at the edges. */
                for (int i = 0; i < nriv; i++) {
                    double d = Y - vy;
                    if (d < 0) continue;
                    /* Down the flank: a fixed share of the cone's half-width at this height. */
                    double q = d / (base - vy), reach = crater + 160.0 * q * q;
                    double px = vx + riv[i][1] * reach +
                                riv[i][2] * sim_sin(d / 11.0 + riv[i][3]) * q;
                    double hw = 0.7 + d * 0.03 + 1.4 * vnoise(s, 107 + (uint32_t)i, d / 5.0, 0.0);
                    double u = (X - px) / hw;
                    if (u > -1.0 && u < 1.0 && Y < base + 6.0) {
                        double sf = d * 0.7 + 3.0 * fbm(s, 108, X / 5.0, Y / 5.0, 2);
                        int b = band(1.5 - u * u * 1.4, 2, x, y, 2);
                        c = flow(lava[b], 12, sf, x, y, 1);
                    }
                }
            }
            /* The crater fountain boils upward. */
            double jet = vnoise(s, 109, X / 1.6, 0.0) - 0.5;
            double fh = 2.5 * (1.0 - (dxv * dxv) / (crater * crater * 0.6)) +
                        (jet > 0.0 ? 34.0 * jet * (1.0 - adx / crater) : 0.0);
            double bowl = crater * 0.9 - (Y > vy + 1.0 ? (Y - vy - 1.0) * 3.5 : 0.0);
            if (fh > 0.0 && Y > vy + 2.0 - fh && adx < bowl) {
                double sf = -Y * 0.9 + 7.0 * fbm(s, 110, X / 2.5, Y / 2.5, 2);
                c = flow(fountain, 10, sf, x, y, 3);
            }
            /* The lava lake, crusted, creeping to the right; foreground rocks. */
            double shore = colv[2][x];
            if (Y > shore) {
                /* Plates of crust with glowing seams between them and open pools. */
                double cz = fbm(s, 112, X / 13.0, Y / 4.0, 4);
                double seam = cz - 0.52;
                seam = seam < 0 ? -seam : seam;
                double wseam = 0.03 + 0.03 * vnoise(s, 117, X / 6.0, Y / 2.0);
                if (cz < 0.38 || seam < wseam) {
                    double sf = X * 0.16 + 5.0 * fbm(s, 113, X / 9.0, Y / 3.0, 3) - Y * 0.2;
                    c = flow(lake, 10, sf, x, y, 1);
                } else {
                    c = grad(crust, 3, 1.0 - (seam - wseam) * 9.0, x, y, 2);
                }
            }
            double fg = colv[3][x];
            if (Y > fg) {
                double rim = Y - fg;
                c = rim < 1.5 ? rock + 4
                  : rim < 3.0 ? grad(rock, 7, 0.45, x, y, 1) : rock + (white(s, 116, x, y) < 0.1);
            }
            PX(p, x, y) = (uint8_t)c;
        }
    }

    /* Embers: ballistic arcs from the crater, drawn only over plain sky of one entry, each arc a
     * run of entries so its spark travels along it. */
    int nsp = 46;
    for (int k = 0; k < nsp; k++) {
        double x0 = vx + (sim_rng_unit(&rng) * 2.0 - 1.0) * crater * 0.6;
        double y0 = vy - 2.0;
        double ux = (sim_rng_unit(&rng) * 2.0 - 1.0) * 1.1;
        double uy = 1.6 + sim_rng_unit(&rng) * 1.4;
        double g = 0.045;
        int phase = (int)sim_rng_below(&rng, NSPARK);
        int lastx = -1, lasty = -1, step = 0;
        for (double tt = 0.0; tt < 90.0; tt += 0.25) {
            double X = x0 + ux * tt, Y = y0 - uy * tt + 0.5 * g * tt * tt * 1.0;
            if (Y > vy + 4.0 && tt > 5.0) break;
            int px = (int)(X * p->w / 320.0), py = (int)(Y * p->h / 180.0);
            if (px < 0 || py < 0 || px >= p->w || py >= p->h) break;
            if (px == lastx && py == lasty) continue;
            lastx = px;
            lasty = py;
            int under = PX(p, px, py);
            step++;
            if (under < sky || under >= sky + NSKY) continue;
            PX(p, px, py) = (uint8_t)(spark[under - sky] + imod(phase + step, NSPARK));
        }
    }
}

/* ---- dusk: sky and sea --------------------------------------------------------------------------- */
/* The sun sets into the sea. The sky is a still gradient crossed by rays from the sun whose light
 * pulses slowly outward: in each band of the gradient a ray pixel belongs to a range whose entry 0
 * is exactly the band's own colour, so between pulses the rays vanish into the sky. The sea is
 * three shade bands of one swell pattern rolling toward the shore, spaced by perspective; the
 * sun's path glitters; stars twinkle; a lighthouse blinks on its island. */
static void scene_dusk(painter *p)
{
    sim_cycle_scene *sc = p->sc;
    sim_rng rng;
    sim_rng_stream(&rng, p->seed, "cycle.dusk");
    uint64_t s = sim_hash_tick(p->seed, 0);      /* the noise base */
    double hz = 100.0 + sim_rng_unit(&rng) * 8.0;         /* the horizon */
    double sunx = 110.0 + sim_rng_unit(&rng) * 70.0;      /* the sun, just above it */
    double suny = hz - 5.0 - sim_rng_unit(&rng) * 6.0;
    double sunr = 11.0;
    double isl = 222.0 + sim_rng_unit(&rng) * 30.0;       /* the island's left end */

    enum { NSKY = 9, NRAY = 8, RAY0 = 3 };
    static const uint32_t SKY[] = { 0x0c0d2a, 0x1f1946, 0x432462, 0x762d6c, 0xb3436a, 0xe26c58,
                                    0xf8a252, 0xffd27e };
    int sky = add_ramp(sc, NSKY, SKY, 8);
    static const double RAYW[NRAY] = { 0.0, 0.12, 0.38, 0.75, 1.0, 0.72, 0.4, 0.14 };
    int ray[NSKY];
    for (int b = RAY0; b < NSKY; b++) {
        const uint8_t *c0 = &sc->rgb[3 * (sky + b)];
        uint32_t base = (uint32_t)c0[0] << 16 | (uint32_t)c0[1] << 8 | c0[2];
        uint32_t light = mix_hex(base, 0xfff2c8, 0.12 + 0.3 * (b - RAY0) / (double)(NSKY - RAY0));
        ray[b] = add_wave(sc, base, light, RAYW, NRAY);
    }
    static const uint32_t SUN[] = { 0xfffbe6, 0xffe9a0, 0xffc05a };
    int sun = add_ramp(sc, 3, SUN, 3);
    static const uint32_t CLOUD[] = { 0x3a2156, 0x7a3466, 0xd0606a, 0xffa070 };
    int cloud = add_ramp(sc, 4, CLOUD, 4);
    static const double STAR[6] = { 0.1, 0.35, 1.0, 0.55, 0.3, 0.15 };
    int star = add_wave(sc, 0x1a1840, 0xfff8e8, STAR, 6);
    static const double SWELL[12] = { 0.0, 0.04, 0.12, 0.26, 0.5, 0.82, 1.0, 0.7, 0.42, 0.22,
                                      0.09, 0.02 };
    int sea[3];
    sea[0] = add_wave(sc, 0x120e2c, 0x4c2c5c, SWELL, 12);
    sea[1] = add_wave(sc, 0x2a1a48, 0x94485e, SWELL, 12);
    sea[2] = add_wave(sc, 0x5a2a58, 0xf08c62, SWELL, 12);
    static const double GLINT[8] = { 0.25, 0.5, 0.85, 1.0, 0.8, 0.55, 0.35, 0.2 };
    int glint = add_wave(sc, 0x9a4450, 0xfff2b4, GLINT, 8);
    static const double BLINK[10] = { 1.0, 0.55, 0.18, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.35 };
    int lamp = add_wave(sc, 0x2a1830, 0xfff6c8, BLINK, 10);
    static const uint32_t LAND[] = { 0x07050e, 0x150d24, 0x3e2248 };
    int land = add_ramp(sc, 3, LAND, 3);
    int rim = add_rgb(sc, 0xc8625e);

    for (int b = RAY0; b < NSKY; b++)
        add_range(sc, ray[b], NRAY, rate_of(2.5), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, sea[0], 12, rate_of(3), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, sea[1], 12, rate_of(3), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, sea[2], 12, rate_of(3), SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    add_range(sc, glint, 8, rate_of(10), SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);
    add_range(sc, star, 6, rate_of(3), SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
    add_range(sc, lamp, 10, rate_of(4), SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);

    /* Cloud streaks: centre x, y, half-length, thickness. */
    double cl[5][4];
    int ncl = 3 + (int)sim_rng_below(&rng, 3);
    for (int k = 0; k < ncl; k++) {
        cl[k][0] = 30.0 + sim_rng_unit(&rng) * 260.0;
        cl[k][1] = hz - 14.0 - sim_rng_unit(&rng) * 46.0;
        cl[k][2] = 30.0 + sim_rng_unit(&rng) * 60.0;
        cl[k][3] = 1.5 + sim_rng_unit(&rng) * 2.5;
    }
    double boatx = 40.0 + sim_rng_unit(&rng) * 50.0;
    /* What depends on the column only: the island's ragged top, the foreground rocks. */
    enum { W = SIM_CYCLE_MAX_W };
    double colv[2][W];
    for (int x = 0; x < p->w; x++) {
        double X = DX(p, x);
        colv[0][x] = 3.0 * fbm(s, 141, X / 6.0, 0.0, 3);
        colv[1][x] = 186.0 - 50.0 * smooth((120.0 - X) / 120.0) - 22.0 * smooth((X - 282.0) / 38.0) -
                     8.0 * fbm(s, 142, X / 10.0, 0.0, 4);
    }

    for (int y = 0; y < p->h; y++) {
        double Y = DY(p, y);
        for (int x = 0; x < p->w; x++) {
            double X = DX(p, x);
            double dx = X - sunx, dy = Y - suny;
            double r = sim_sqrt(dx * dx + dy * dy);
            int c;
            if (Y < hz) {
                /* The gradient, warmed and lifted around the sun. */
                double t = Y / hz;
                t = t * t * 0.85 + 0.15 * t + 0.35 * (r < 90.0 ? (1.0 - r / 90.0) * (1.0 - r / 90.0) : 0.0);
                c = grad(sky, NSKY, t, x, y, 0);
                int b = c - sky;
                /* Rays: angular wedges from the sun; pulses run outward along them. */
                double ang = sim_atan2(dy, dx);
                double m = vnoise(s, 121, ang * 9.0, 0.5) * 0.7 + vnoise(s, 122, ang * 23.0, 0.5) * 0.3;
                if (b >= RAY0 && r > sunr + 2.0 && m > 0.52 + 0.12 * dith(x, y, 2))
                    c = flow(ray[b], NRAY, r / 4.0 - 3.0 * m, x, y, 1);
                if (Y < hz * 0.5 && white(s, 123, x, y) < 0.008 * (1.0 - Y / (hz * 0.5)))
                    c = star + (int)(white(s, 124, x, y) * 6.0);
                /* Clouds: lit from below in the sunset's colours, dark above. */
                for (int k = 0; k < ncl; k++) {
                    double u = (X - cl[k][0]) / cl[k][2];
                    if (u <= -1.0 || u >= 1.0) continue;
                    double mid = cl[k][1] + 2.0 * sim_sin(X / 17.0 + k) +
                                 1.5 * (fbm(s, 125, X / 9.0, k, 2) - 0.5);
                    double th = cl[k][3] * (1.0 - u * u) *
                                (0.6 + 0.8 * fbm(s, 126 + (uint32_t)k, X / 6.0, 0.0, 3));
                    double v = (Y - mid) / (th + 0.01);
                    if (v > -1.0 && v < 1.0)
                        c = grad(cloud, 4, 0.15 + 0.425 * (v + 1.0) + 0.25 * (1.0 - r / 160.0), x, y, 3);
                }
                /* The sun, and its halo dithered into the sky. */
                if (r < sunr) c = grad(sun, 3, r / sunr, x, y, 0);
            } else {
                /* The sea: swells in perspective, bright far out, dark near. */
                double d = Y - hz + 0.6;
                double sf = 5.2 * sim_sqrt(sim_sqrt(d * d * d)) * 0.55 +
                            2.2 * fbm(s, 131, X / 26.0, Y / 3.0, 3);
                double near = 2.6 - d / 22.0 - (dx * dx) / 9000.0;
                int b = band(near, 3, x, y, 2);
                c = flow(sea[b], 12, sf, x, y, 1);
                /* The sun's path: glittering dashes, widening toward the viewer. */
                double hw = 5.0 + d * 0.55;
                double u = dx / hw;
                double dash = vnoise(s, 132, X / 3.5, Y * 1.1);
                if (u * u < 1.0 && dash > 0.45 + 0.4 * u * u + d / 220.0)
                    c = glint + (int)(white(s, 133, x, y) * 8.0);
                if (d < 2.5 && dx * dx < sunr * sunr * 0.7) c = sun + 1 + (dith(x, y, 0) < 0.5);
            }
            /* The island and its lighthouse. */
            double iu = (X - isl) / 70.0;
            if (iu > 0.0 && iu < 1.0) {
                double top = hz - 2.0 - 11.0 * sim_sqrt(iu * (1.0 - iu)) * 2.0 - colv[0][x];
                if (Y > top && Y < hz + 1.5) c = (Y - top < 1.2 && X < isl + 36.0) ? rim : land + 1;
                if (Y >= hz + 1.5 && Y < hz + 1.5 + (hz - top) * 0.35 && (int)(Y * 2) % 2 == 0)
                    c = land + 1;                                          /* its reflection */
            }
            double lx = isl + 46.0, ltop = hz - 36.0;
            double lhw = 2.0 + (Y - ltop) * 0.06;
            if (Y > ltop && Y < hz - 8.0 && X > lx - lhw && X < lx + lhw)
                c = X < lx - lhw + 1.0 ? rim : ((int)((Y - ltop) / 4.0) % 2 ? land + 1 : land + 2);
            if (Y > ltop - 4.0 && Y <= ltop && X > lx - 2.0 && X < lx + 2.0) c = lamp;
            if (Y > ltop - 5.5 && Y <= ltop - 4.0 && X > lx - 3.0 && X < lx + 3.0) c = land;
            /* A sail on the horizon. */
            double bx = X - boatx;
            if (bx > -5.0 && bx < 5.0 && Y > hz - 2.0 && Y < hz) c = land + 1;
            if (bx > -2.5 && bx < 2.0 && Y < hz - 2.0 && Y > hz - 11.0 + (bx < 0 ? -bx * 1.0 : bx * 3.0))
                c = land + 1;
            /* Foreground rocks, wet along their tops. */
            double fr = colv[1][x];
            if (Y > fr) c = Y - fr < 1.2 ? rim : land + (white(s, 143, x, y) < 0.08);
            PX(p, x, y) = (uint8_t)c;
        }
    }
}

int sim__cycle_scene_build(int which, uint64_t seed, int w, int h, sim_cycle_scene *out)
{
    memset(out, 0, sizeof *out);
    out->w = (uint16_t)w;
    out->h = (uint16_t)h;
    out->px = calloc((size_t)w * (size_t)h, 1);
    if (!out->px) return SIM_ENOMEM;
    painter p = { out, w, h, seed };
    if (which == CYC_SCENE_WATERFALL) scene_waterfall(&p);
    else if (which == CYC_SCENE_FIRE) scene_fire(&p);
    else scene_dusk(&p);
    return 0;
}
