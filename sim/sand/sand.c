/* sand.c — the falling-sand world: a cellular automaton in the manner of Noita and The Powder Toy,
 * deterministic to the bit (seed 000, section 5).
 *
 * The grid is one uint32 per cell: element (bits 0–7), life (8–15), flags (16–23), and a 4-bit
 * signed velocity pair vx (24–27) and vy (28–31) for falling speed and explosion debris.
 *
 * Each tick has two passes over the awake chunks: bottom-up for falling matter (powders, liquids,
 * and the static cells that react), then top-down for rising matter (gases and fire), so that a
 * column of sand or of smoke moves as a whole instead of one cell a tick. The horizontal scan
 * direction alternates every tick. A cell moves at most once a tick (a `moved` byte per cell,
 * cleared at the start of the tick and not part of the state). Every random choice is the counter
 * hash of (seed, tick, x, y, salt), so a result never depends on which chunks happen to be awake.
 *
 * Chunks (32×32) each keep a dirty rectangle: what changed this tick, grown by one cell all round,
 * is what gets processed next tick. A chunk with an empty rectangle sleeps. The invariant that
 * makes sleeping exact: a cell that could change next tick is inside a rectangle — it moved, a
 * neighbour changed, or it declined a random action and so asked to stay awake. The rectangles
 * are part of the saved state. */
#include "sand.h"
#include <stdlib.h>

/* ---- the elements ----------------------------------------------------------------------------- */
enum { C_EMPTY, C_STATIC, C_POWDER, C_LIQUID, C_GAS, C_FIRE };

typedef struct sand_el {
    const char *name;
    uint8_t cls;
    uint8_t density;        /* heavier sinks through lighter; gases: lighter rises above heavier */
    uint8_t spread;         /* liquids: cells moved sideways per tick */
    uint8_t flammable;
    uint8_t dissolves;      /* acid eats it */
} sand_el;

static const sand_el EL[SAND_NELEMENTS] = {
    [SAND_EMPTY] = { "empty", C_EMPTY, 0, 0, 0, 0 },
    [SAND_WALL] = { "wall", C_STATIC, 255, 0, 0, 0 },
    [SAND_STONE] = { "stone", C_STATIC, 90, 0, 0, 1 },
    [SAND_SAND] = { "sand", C_POWDER, 70, 0, 0, 1 },
    [SAND_WATER] = { "water", C_LIQUID, 20, 5, 0, 1 },
    [SAND_OIL] = { "oil", C_LIQUID, 15, 4, 1, 1 },
    [SAND_ACID] = { "acid", C_LIQUID, 25, 3, 0, 0 },
    [SAND_LAVA] = { "lava", C_LIQUID, 40, 1, 0, 1 },
    /* Loose wood floats on water and oil; loose ice floats on water but sinks in oil. */
    [SAND_WOOD] = { "wood", C_STATIC, 12, 0, 1, 1 },
    [SAND_ICE] = { "ice", C_STATIC, 18, 0, 0, 1 },
    [SAND_FIRE] = { "fire", C_FIRE, 1, 0, 0, 0 },
    [SAND_SMOKE] = { "smoke", C_GAS, 3, 0, 0, 0 },
    [SAND_STEAM] = { "steam", C_GAS, 4, 0, 0, 0 },
    [SAND_GAS] = { "gas", C_GAS, 2, 0, 1, 0 },
};

static const char *const element_names[SAND_NELEMENTS] = {
    "empty", "wall", "stone", "sand", "water", "oil", "acid", "lava",
    "wood", "ice", "fire", "smoke", "steam", "gas",
};

/* ---- cells ------------------------------------------------------------------------------------ */
#define CELL_EL(c) ((int)((c) & 0xFFu))
#define CELL_LIFE(c) ((int)(((c) >> 8) & 0xFFu))
#define CELL_FLAGS(c) ((int)(((c) >> 16) & 0xFFu))
#define CELL_VX(c) ((int)((((c) >> 24) & 0xFu) ^ 8u) - 8)
#define CELL_VY(c) ((int)((((c) >> 28) & 0xFu) ^ 8u) - 8)

static inline uint32_t mkcell(int el, int life, int flags, int vx, int vy)
{
    return (uint32_t)el | ((uint32_t)life << 8) | ((uint32_t)flags << 16) |
           ((uint32_t)(vx & 0xF) << 24) | ((uint32_t)(vy & 0xF) << 28);
}
static inline uint32_t with_life(uint32_t c, int life)
{
    return (c & ~0xFF00u) | ((uint32_t)life << 8);
}
static inline uint32_t with_vel(uint32_t c, int vx, int vy)
{
    return (c & 0x00FFFFFFu) | ((uint32_t)(vx & 0xF) << 24) | ((uint32_t)(vy & 0xF) << 28);
}
#define WALL_CELL ((uint32_t)SAND_WALL)

/* Lifetimes in ticks (60 Hz): long enough to read as flame, smoke and cloud at 320×180. */
#define FIRE_LIFE_MIN 10
#define FIRE_LIFE_SPAN 20
#define SMOKE_LIFE_MIN 40
#define SMOKE_LIFE_SPAN 80
#define STEAM_LIFE_MIN 100
#define STEAM_LIFE_SPAN 120
#define WOOD_BURN_MIN 90            /* "wood burns for a set time": 1.5–2.5 s per cell */
#define WOOD_BURN_SPAN 60
#define GAS_LIFE 255                /* counts down on a quarter of ticks: about 17 s */
#define FALL_VMAX 3                 /* falling speeds up to 1 + 3 cells a tick */

/* ---- the scene: emitters and drains, rebuilt from params (not part of the state) ---------------- */
typedef struct sand_emitter {
    int16_t x, y, w, h;
    uint8_t el, el2;        /* el2: alternate element, switching every `alt` ticks (0 = none) */
    uint16_t prob;          /* per empty cell and active tick, out of 256 */
    uint16_t cycle, on, phase, alt;
} sand_emitter;

typedef struct sand_drain {
    int16_t x, y, w, h;
} sand_drain;

#define MAX_EMITTERS 24
#define MAX_DRAINS 8

typedef struct rect16 {
    uint16_t x0, y0, x1, y1;        /* inclusive; empty when x0 > x1 */
} rect16;

struct sand_world {
    int w, h;
    int ncx, ncy;                   /* chunks across and down */
    int scene;
    uint32_t *cells;
    uint8_t *moved;                 /* scratch: cleared each tick, never saved */
    uint8_t *noise;                 /* per-position shade noise for rendering (from x, y only) */
    uint8_t *wallpx;                /* per-position wall colour: a brick bond */
    uint8_t *airpx;                 /* per-position colour of empty air */
    rect16 *cur, *nxt;              /* dirty rectangles: processing now / next tick */
    uint64_t tickbase;              /* sim_hash_tick for the tick being stepped */
    uint64_t tick;
    int dir;                        /* horizontal scan direction this tick: +1 or -1 */
    sand_emitter emit[MAX_EMITTERS];
    int nemit;
    sand_drain drain[MAX_DRAINS];
    int ndrain;
    uint8_t lut[SAND_NELEMENTS][256];   /* element × noise → palette index */
    sim_palette pal;
    uint64_t stat_active;           /* cells inside the rectangles processed last step (bench) */
};

enum { SCENE_DEMO, SCENE_EMPTY, SCENE_BENCH };
static const char *const scene_names[] = { "demo", "empty", "bench", NULL };

/* ---- dirty rectangles ------------------------------------------------------------------------- */
static inline void rect_clear(rect16 *r)
{
    r->x0 = 1; r->x1 = 0; r->y0 = 1; r->y1 = 0;
}
static inline int rect_empty(const rect16 *r) { return r->x0 > r->x1; }

static inline void rect_add(rect16 *r, int x0, int y0, int x1, int y1)
{
    if (rect_empty(r)) {
        r->x0 = (uint16_t)x0; r->y0 = (uint16_t)y0; r->x1 = (uint16_t)x1; r->y1 = (uint16_t)y1;
        return;
    }
    if (x0 < r->x0) r->x0 = (uint16_t)x0;
    if (y0 < r->y0) r->y0 = (uint16_t)y0;
    if (x1 > r->x1) r->x1 = (uint16_t)x1;
    if (y1 > r->y1) r->y1 = (uint16_t)y1;
}

/* Add the box [x0,x1]×[y0,y1] (clipped to the grid) to every chunk it touches, for next tick. */
static void wake_box(sand_world *s, int x0, int y0, int x1, int y1)
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= s->w) x1 = s->w - 1;
    if (y1 >= s->h) y1 = s->h - 1;
    if (x0 > x1 || y0 > y1) return;
    for (int cy = y0 / SAND_CHUNK; cy <= y1 / SAND_CHUNK; cy++) {
        int ya = cy * SAND_CHUNK, yb = ya + SAND_CHUNK - 1;
        for (int cx = x0 / SAND_CHUNK; cx <= x1 / SAND_CHUNK; cx++) {
            int xa = cx * SAND_CHUNK, xb = xa + SAND_CHUNK - 1;
            rect_add(&s->nxt[cy * s->ncx + cx], x0 > xa ? x0 : xa, y0 > ya ? y0 : ya,
                     x1 < xb ? x1 : xb, y1 < yb ? y1 : yb);
        }
    }
}

/* A cell changed: it and its 8 neighbours are processed next tick. The common case (not on a
 * chunk edge) touches one rectangle; edges wake the neighbour chunk too. */
static inline void mark(sand_world *s, int x, int y)
{
    int lx = x & (SAND_CHUNK - 1), ly = y & (SAND_CHUNK - 1);
    if (lx != 0 && lx != SAND_CHUNK - 1 && ly != 0 && ly != SAND_CHUNK - 1 && x + 1 < s->w &&
        y + 1 < s->h) {
        rect_add(&s->nxt[(y / SAND_CHUNK) * s->ncx + x / SAND_CHUNK], x - 1, y - 1, x + 1, y + 1);
        return;
    }
    wake_box(s, x - 1, y - 1, x + 1, y + 1);
}

/* A cell declined a random action: only it needs another look. */
static inline void keep_awake(sand_world *s, int x, int y)
{
    rect_add(&s->nxt[(y / SAND_CHUNK) * s->ncx + x / SAND_CHUNK], x, y, x, y);
}

/* ---- helpers ---------------------------------------------------------------------------------- */
static inline int inside(const sand_world *s, int x, int y)
{
    return (unsigned)x < (unsigned)s->w && (unsigned)y < (unsigned)s->h;
}
static inline uint32_t get(const sand_world *s, int x, int y)
{
    return inside(s, x, y) ? s->cells[y * s->w + x] : WALL_CELL;
}
static inline uint32_t rnd(const sand_world *s, int x, int y, uint32_t salt)
{
    return sim_hash_at(s->tickbase, x, y, salt);
}

/* Set a cell in place (a reaction), marking it changed and done for this tick. */
static inline void put(sand_world *s, int x, int y, uint32_t c)
{
    int i = y * s->w + x;
    s->cells[i] = c;
    s->moved[i] = 1;
    mark(s, x, y);
}

static inline void swap_cells(sand_world *s, int x0, int y0, int x1, int y1)
{
    int i = y0 * s->w + x0, j = y1 * s->w + x1;
    uint32_t t = s->cells[i];
    s->cells[i] = s->cells[j];
    s->cells[j] = t;
    s->moved[i] = s->moved[j] = 1;
    mark(s, x0, y0);
    mark(s, x1, y1);
}

static uint32_t fresh(int el, uint32_t r)
{
    switch (el) {
    case SAND_FIRE: return mkcell(el, FIRE_LIFE_MIN + (int)(r % FIRE_LIFE_SPAN), 0, 0, 0);
    case SAND_SMOKE: return mkcell(el, SMOKE_LIFE_MIN + (int)(r % SMOKE_LIFE_SPAN), 0, 0, 0);
    case SAND_STEAM: return mkcell(el, STEAM_LIFE_MIN + (int)(r % STEAM_LIFE_SPAN), 0, 0, 0);
    case SAND_GAS: return mkcell(el, GAS_LIFE, 0, 0, 0);
    default: return mkcell(el, 0, 0, 0, 0);
    }
}

/* Density of a moving cell: loose static matter falls as a powder of its own weight. */
static inline int mover_class(uint32_t c)
{
    int cls = EL[CELL_EL(c)].cls;
    if (cls == C_STATIC && (CELL_FLAGS(c) & SAND_F_LOOSE)) return C_POWDER;
    return cls;
}

/* Can a falling cell of class `cls` and density `d` enter target t (by swapping)? */
static inline int can_sink(int cls, int d, uint32_t t)
{
    int te = CELL_EL(t);
    int tc = mover_class(t);
    if (tc == C_EMPTY || tc == C_GAS || tc == C_FIRE) return 1;
    if (tc == C_LIQUID) return EL[te].density < d && (cls == C_POWDER || cls == C_LIQUID);
    return 0;
}

static inline int is_hot(uint32_t c)
{
    int e = CELL_EL(c);
    return e == SAND_FIRE || e == SAND_LAVA || (e == SAND_WOOD && (CELL_FLAGS(c) & SAND_F_BURNING));
}

static const int8_t NB8[8][2] = { { 0, -1 }, { 1, -1 }, { 1, 0 }, { 1, 1 },
                                  { 0, 1 },  { -1, 1 }, { -1, 0 }, { -1, -1 } };
static const int8_t NB4[4][2] = { { 0, -1 }, { 1, 0 }, { 0, 1 }, { -1, 0 } };

/* Set a flammable cell alight. Oil and gas flash into short fire; wood starts its slow burn. */
static void ignite(sand_world *s, int x, int y, uint32_t r)
{
    uint32_t c = get(s, x, y);
    switch (CELL_EL(c)) {
    case SAND_OIL: put(s, x, y, mkcell(SAND_FIRE, 6 + (int)(r % 12), 0, 0, 0)); break;
    case SAND_GAS: put(s, x, y, mkcell(SAND_FIRE, 3 + (int)(r % 6), 0, 0, 0)); break;
    case SAND_WOOD:
        if (!(CELL_FLAGS(c) & SAND_F_BURNING))
            put(s, x, y, mkcell(SAND_WOOD, WOOD_BURN_MIN + (int)(r % WOOD_BURN_SPAN),
                                CELL_FLAGS(c) | SAND_F_BURNING, CELL_VX(c), CELL_VY(c)));
        break;
    default: break;
    }
}

/* ---- movement --------------------------------------------------------------------------------- */

/* Explosion debris: step along (vx, vy) one cell at a time until blocked, then gravity and drag.
 * Returns 1 if the cell is still ballistic (handled), 0 if it should fall normally. */
static int move_ballistic(sand_world *s, int x, int y, uint32_t c)
{
    int vx = CELL_VX(c), vy = CELL_VY(c);
    if (vx == 0 && vy >= 0) return 0;
    int ax = vx < 0 ? -vx : vx, ay = vy < 0 ? -vy : vy;
    int n = ax > ay ? ax : ay;
    int cx = x, cy = y, blocked = 0;
    for (int k = 1; k <= n; k++) {
        int tx = x + (vx * k) / n, ty = y + (vy * k) / n;     /* C division truncates: symmetric */
        if (tx == cx && ty == cy) continue;
        uint32_t t = get(s, tx, ty);
        int tc = mover_class(t);
        if (!inside(s, tx, ty) || !(tc == C_EMPTY || tc == C_GAS || tc == C_FIRE)) {
            blocked = 1;
            break;
        }
        swap_cells(s, cx, cy, tx, ty);
        cx = tx;
        cy = ty;
    }
    if (blocked) {
        vx = 0;
        vy = 0;
    } else {
        vy = vy + 1 > FALL_VMAX ? FALL_VMAX : vy + 1;
        if (s->tick & 1) vx -= (vx > 0) - (vx < 0);
    }
    int i = cy * s->w + cx;
    s->cells[i] = with_vel(s->cells[i], vx, vy);
    s->moved[i] = 1;
    mark(s, cx, cy);
    return 1;
}

/* Fall straight down, accelerating; then slide diagonally. Returns 1 if the cell moved. */
static int fall(sand_world *s, int x, int y, uint32_t c, int cls, uint32_t r)
{
    int d = EL[CELL_EL(c)].density;
    int vy = CELL_VY(c);
    int steps = 1 + (vy > 0 ? vy : 0);
    int cy = y, moved = 0;
    for (int k = 0; k < steps; k++) {
        uint32_t t = get(s, x, cy + 1);
        if (!inside(s, x, cy + 1) || !can_sink(cls, d, t)) break;
        if (mover_class(t) == C_LIQUID) {
            /* Sinking through a liquid is slower than falling through air. */
            if (k > 0) break;
            if (cls == C_POWDER && (r & 0x300u) == 0) {
                keep_awake(s, x, y);
                return 1;               /* declined: stays put, asked to be looked at again */
            }
            swap_cells(s, x, cy, x, cy + 1);
            cy++;
            moved = 1;
            break;
        }
        swap_cells(s, x, cy, x, cy + 1);
        cy++;
        moved = 1;
    }
    if (moved) {
        int i = cy * s->w + x;
        int nvy = (cy - y == steps && vy < FALL_VMAX) ? vy + 1 : (cy - y == steps ? vy : 0);
        if (nvy < 0) nvy = 0;
        s->cells[i] = with_vel(s->cells[i], 0, nvy);
        return 1;
    }
    if (vy != 0) {                      /* landed: lose the speed */
        put(s, x, y, with_vel(c, 0, 0));
        c = s->cells[y * s->w + x];
        s->moved[y * s->w + x] = 0;     /* landing is not a move: it may still slide */
    }
    int first = (r & 1u) ? 1 : -1;
    for (int k = 0; k < 2; k++) {
        int dx = k ? -first : first;
        uint32_t t = get(s, x + dx, y + 1);
        if (inside(s, x + dx, y + 1) && can_sink(cls, d, t) && mover_class(t) != C_LIQUID) {
            swap_cells(s, x, y, x + dx, y + 1);
            return 1;
        }
        if (inside(s, x + dx, y + 1) && can_sink(cls, d, t)) {
            if (cls == C_POWDER && (r & 0xC00u) == 0) {
                keep_awake(s, x, y);
                continue;
            }
            swap_cells(s, x, y, x + dx, y + 1);
            return 1;
        }
    }
    return 0;
}

/* Liquids: fall, then spread sideways up to `spread` cells through empty space or gas. */
static void move_liquid(sand_world *s, int x, int y, uint32_t c, uint32_t r)
{
    if (fall(s, x, y, c, C_LIQUID, r)) return;
    int e = CELL_EL(c);
    int spread = EL[e].spread;
    int first = (r & 2u) ? 1 : -1;
    for (int k = 0; k < 2; k++) {
        int dx = k ? -first : first;
        int tx = x;
        for (int n = 1; n <= spread; n++) {
            uint32_t t = get(s, x + dx * n, y);
            int tc = mover_class(t);
            if (!inside(s, x + dx * n, y) || !(tc == C_EMPTY || tc == C_GAS || tc == C_FIRE)) break;
            tx = x + dx * n;
            /* Stop above a drop: the liquid falls from there next tick. */
            if (inside(s, tx, y + 1) && can_sink(C_LIQUID, EL[e].density, get(s, tx, y + 1))) break;
        }
        if (tx != x) {
            /* Lava is viscous: it creeps sideways on a quarter of ticks. */
            if (e == SAND_LAVA && (r & 0x3000u) != 0) {
                keep_awake(s, x, y);
                return;
            }
            swap_cells(s, x, y, tx, y);
            return;
        }
    }
}

/* Gases and fire rise: up, then diagonally up, then drift sideways. Lighter gas rises through
 * heavier gas. */
static int move_gas(sand_world *s, int x, int y, uint32_t c, uint32_t r)
{
    int d = EL[CELL_EL(c)].density;
    int first = (r & 4u) ? 1 : -1;
    const int8_t tries[5][2] = { { 0, -1 }, { first, -1 }, { -first, -1 }, { first, 0 },
                                 { -first, 0 } };
    /* An eighth of the time, drift sideways first: smoke billows rather than stacks. */
    int start = ((r >> 8) & 7u) == 0 ? 3 : 0;
    for (int k = 0; k < 5; k++) {
        int kk = (start + k) % 5;
        int tx = x + tries[kk][0], ty = y + tries[kk][1];
        if (!inside(s, tx, ty)) continue;
        uint32_t t = get(s, tx, ty);
        int te = CELL_EL(t), tc = mover_class(t);
        if (tc == C_EMPTY || ((tc == C_GAS) && EL[te].density > d && kk == 0)) {
            swap_cells(s, x, y, tx, ty);
            return 1;
        }
    }
    return 0;
}

/* ---- reactions -------------------------------------------------------------------------------- */

/* Fire: burns down its life, ignites one random neighbour a tick, makes steam of water, melts ice,
 * and flickers upward. Dies into smoke or nothing. */
static void update_fire(sand_world *s, int x, int y, uint32_t c, uint32_t r)
{
    int life = CELL_LIFE(c) - 1;
    if (life <= 0) {
        put(s, x, y, (r & 3u) == 0 ? fresh(SAND_SMOKE, r >> 8) : 0);
        return;
    }
    const int8_t *nb = NB8[(r >> 4) & 7u];
    int nx = x + nb[0], ny = y + nb[1];
    uint32_t t = get(s, nx, ny);
    int te = CELL_EL(t);
    if (inside(s, nx, ny)) {
        if (EL[te].flammable) {
            ignite(s, nx, ny, r >> 12);
        } else if (te == SAND_WATER) {
            put(s, nx, ny, fresh(SAND_STEAM, r >> 12));
            put(s, x, y, 0);
            return;
        } else if (te == SAND_ICE && (r & 0x70000u) == 0) {
            put(s, nx, ny, fresh(SAND_WATER, 0));
        }
    }
    c = with_life(c, life);
    s->cells[y * s->w + x] = c;
    mark(s, x, y);
    /* Flames lick upward half the time. */
    if ((r & 0x80000u) && inside(s, x, y - 1) && CELL_EL(get(s, x, y - 1)) == SAND_EMPTY)
        swap_cells(s, x, y, x, y - 1);
    else
        s->moved[y * s->w + x] = 1;
}

/* Burning wood: counts down, sheds fire and smoke into empty neighbours, spreads to flammable
 * ones, is put out by water (which boils), and when done becomes smoke. */
static void update_burning_wood(sand_world *s, int x, int y, uint32_t c, uint32_t r)
{
    int life = CELL_LIFE(c) - 1;
    if (life <= 0) {
        put(s, x, y, fresh(SAND_SMOKE, r >> 8));
        return;
    }
    put(s, x, y, with_life(c, life));
    if ((r & 3u) != 0) return;
    const int8_t *nb = NB8[(r >> 2) & 7u];
    int nx = x + nb[0], ny = y + nb[1];
    if (!inside(s, nx, ny)) return;
    uint32_t t = get(s, nx, ny);
    int te = CELL_EL(t);
    if (te == SAND_EMPTY) {
        put(s, nx, ny, (r & 0x60u) == 0 ? fresh(SAND_SMOKE, r >> 8) : fresh(SAND_FIRE, r >> 8));
    } else if (EL[te].flammable) {
        ignite(s, nx, ny, r >> 8);
    } else if (te == SAND_WATER) {
        put(s, nx, ny, fresh(SAND_STEAM, r >> 8));
        put(s, x, y, mkcell(SAND_WOOD, 0, CELL_FLAGS(c) & ~SAND_F_BURNING, CELL_VX(c), CELL_VY(c)));
    }
}

/* Ice melts when something hot is next to it (a chance a tick, so a block thaws from the edge). */
static void update_ice(sand_world *s, int x, int y, uint32_t r)
{
    for (int k = 0; k < 8; k++) {
        if (is_hot(get(s, x + NB8[k][0], y + NB8[k][1]))) {
            if ((r & 0x1F0u) == 0)
                put(s, x, y, fresh(SAND_WATER, 0));
            else
                keep_awake(s, x, y);
            return;
        }
    }
}

/* Lava: water touching it becomes steam and the lava stone; it melts ice and lights what burns.
 * Returns 1 if the lava cell itself was consumed. */
static int react_lava(sand_world *s, int x, int y, uint32_t r)
{
    int any = 0;
    for (int k = 0; k < 4; k++) {
        int te = CELL_EL(get(s, x + NB4[k][0], y + NB4[k][1]));
        if (te == SAND_WATER || te == SAND_ICE || EL[te].flammable) any = 1;
    }
    if (!any) return 0;
    const int8_t *nb = NB4[(r >> 16) & 3u];
    int nx = x + nb[0], ny = y + nb[1];
    int te = CELL_EL(get(s, nx, ny));
    if (te == SAND_WATER && (r & 0x1C0000u) == 0) {
        put(s, nx, ny, fresh(SAND_STEAM, r >> 7));
        put(s, x, y, mkcell(SAND_STONE, 0, SAND_F_LOOSE, 0, 0));    /* cooled: sinks as rubble */
        return 1;
    }
    if (te == SAND_ICE && (r & 0x1C0000u) == 0) {
        put(s, nx, ny, fresh(SAND_WATER, 0));
    } else if (EL[te].flammable && (r & 0xC0000u) == 0) {
        ignite(s, nx, ny, r >> 7);
    }
    keep_awake(s, x, y);
    return 0;
}

/* Acid dissolves any neighbour but wall (and other acid and gases), and is used up doing it. */
static int react_acid(sand_world *s, int x, int y, uint32_t r)
{
    int any = 0;
    for (int k = 0; k < 4; k++) {
        int nx = x + NB4[k][0], ny = y + NB4[k][1];
        if (inside(s, nx, ny) && EL[CELL_EL(get(s, nx, ny))].dissolves) any = 1;
    }
    if (!any) return 0;
    keep_awake(s, x, y);
    const int8_t *nb = NB4[(r >> 16) & 3u];
    int nx = x + nb[0], ny = y + nb[1];
    if (!inside(s, nx, ny) || !EL[CELL_EL(get(s, nx, ny))].dissolves) return 0;
    if ((r & 0x1C0000u) != 0) return 0;                 /* an eighth of a chance a tick */
    put(s, nx, ny, (r & 0x600000u) == 0 ? fresh(SAND_SMOKE, r >> 3) : 0);
    if ((r & 0x1800000u) == 0) {                        /* a quarter of the time, spent */
        put(s, x, y, 0);
        return 1;
    }
    return 0;
}

/* ---- the passes ------------------------------------------------------------------------------- */

/* Bottom-up pass: everything that falls, and the static cells that react. */
static void update_falling(sand_world *s, int x, int y)
{
    int i = y * s->w + x;
    uint32_t c = s->cells[i];
    int e = CELL_EL(c);
    if (e == SAND_EMPTY || s->moved[i]) return;
    int cls = mover_class(c);
    if (cls == C_GAS || cls == C_FIRE) return;
    uint32_t r = rnd(s, x, y, 1);
    if (e == SAND_WOOD && (CELL_FLAGS(c) & SAND_F_BURNING)) {
        update_burning_wood(s, x, y, c, r);
        if (CELL_EL(s->cells[i]) != SAND_WOOD || !(CELL_FLAGS(s->cells[i]) & SAND_F_LOOSE)) return;
        s->moved[i] = 0;                /* burning rubble still falls */
        c = s->cells[i];
    } else if (e == SAND_ICE) {
        update_ice(s, x, y, r);
        if (s->moved[i]) return;
    } else if (e == SAND_LAVA) {
        if (react_lava(s, x, y, r)) return;
    } else if (e == SAND_ACID) {
        if (react_acid(s, x, y, r)) return;
    }
    if (cls == C_STATIC) return;
    if (move_ballistic(s, x, y, c)) return;
    if (cls == C_POWDER)
        fall(s, x, y, c, C_POWDER, r);
    else
        move_liquid(s, x, y, c, r);
}

/* Top-down pass: gases and fire. */
static void update_rising(sand_world *s, int x, int y)
{
    int i = y * s->w + x;
    uint32_t c = s->cells[i];
    int e = CELL_EL(c);
    if (s->moved[i]) return;
    if (e != SAND_FIRE && e != SAND_SMOKE && e != SAND_STEAM && e != SAND_GAS) return;
    uint32_t r = rnd(s, x, y, 2);
    if (e == SAND_FIRE) {
        update_fire(s, x, y, c, r);
        return;
    }
    /* Lifetimes: smoke thins to nothing, steam condenses to water, gas slowly disperses. */
    int life = CELL_LIFE(c);
    if (e != SAND_GAS || ((r >> 20) & 3u) == 0) life--;
    if (life <= 0) {
        put(s, x, y, e == SAND_STEAM ? fresh(SAND_WATER, 0) : 0);
        return;
    }
    c = with_life(c, life);
    s->cells[i] = c;
    mark(s, x, y);
    if (!move_gas(s, x, y, c, r)) s->moved[i] = 1;
}

static void run_emitters(sand_world *s)
{
    for (int k = 0; k < s->nemit; k++) {
        const sand_emitter *em = &s->emit[k];
        if ((s->tick + em->phase) % em->cycle >= em->on) continue;
        int el = em->el;
        if (em->alt && ((s->tick / em->alt) & 1u)) el = em->el2;
        for (int y = em->y; y < em->y + em->h; y++)
            for (int x = em->x; x < em->x + em->w; x++) {
                if (!inside(s, x, y) || CELL_EL(s->cells[y * s->w + x]) != SAND_EMPTY) continue;
                uint32_t r = rnd(s, x, y, 3);
                if ((r & 0xFFu) < em->prob) put(s, x, y, fresh(el, r >> 8));
            }
    }
    for (int k = 0; k < s->ndrain; k++) {
        const sand_drain *dr = &s->drain[k];
        for (int y = dr->y; y < dr->y + dr->h; y++)
            for (int x = dr->x; x < dr->x + dr->w; x++) {
                if (!inside(s, x, y)) continue;
                uint32_t c = s->cells[y * s->w + x];
                if (CELL_EL(c) != SAND_EMPTY && CELL_EL(c) != SAND_WALL) put(s, x, y, 0);
            }
    }
}

static void sand_step(void *impl, const sim_ctx *ctx)
{
    sand_world *s = impl;
    s->tick = ctx->tick;
    s->tickbase = sim_hash_tick(ctx->seed, ctx->tick);
    s->dir = (ctx->tick & 1u) ? -1 : 1;
    int nch = s->ncx * s->ncy;
    /* What was marked last tick (and by this tick's inputs) is what we process now. */
    rect16 *t = s->cur;
    s->cur = s->nxt;
    s->nxt = t;
    int awake = 0;
    uint64_t active = 0;
    for (int k = 0; k < nch; k++) {
        rect_clear(&s->nxt[k]);
        if (!rect_empty(&s->cur[k])) {
            awake = 1;
            active += (uint64_t)(s->cur[k].x1 - s->cur[k].x0 + 1) * (s->cur[k].y1 - s->cur[k].y0 + 1);
        }
    }
    s->stat_active = active;
    if (awake) memset(s->moved, 0, (size_t)s->w * (size_t)s->h);
    run_emitters(s);
    if (!awake) return;
    int cx0 = s->dir > 0 ? 0 : s->ncx - 1, cx1 = s->dir > 0 ? s->ncx : -1;
    for (int y = s->h - 1; y >= 0; y--) {
        const rect16 *row = &s->cur[(y / SAND_CHUNK) * s->ncx];
        for (int cx = cx0; cx != cx1; cx += s->dir) {
            const rect16 *r = &row[cx];
            if (rect_empty(r) || y < r->y0 || y > r->y1) continue;
            /* An empty cell (all bits 0) never acts: skip it without a call. */
            const uint32_t *cr = &s->cells[y * s->w];
            if (s->dir > 0) {
                for (int x = r->x0; x <= r->x1; x++)
                    if (cr[x]) update_falling(s, x, y);
            } else {
                for (int x = r->x1; x >= r->x0; x--)
                    if (cr[x]) update_falling(s, x, y);
            }
        }
    }
    for (int y = 0; y < s->h; y++) {
        const rect16 *row = &s->cur[(y / SAND_CHUNK) * s->ncx];
        for (int cx = cx0; cx != cx1; cx += s->dir) {
            const rect16 *r = &row[cx];
            if (rect_empty(r) || y < r->y0 || y > r->y1) continue;
            /* Only fire and the gases rise: elements 10..13. */
            const uint32_t *cr = &s->cells[y * s->w];
            if (s->dir > 0) {
                for (int x = r->x0; x <= r->x1; x++)
                    if (CELL_EL(cr[x]) >= SAND_FIRE) update_rising(s, x, y);
            } else {
                for (int x = r->x1; x >= r->x0; x--)
                    if (CELL_EL(cr[x]) >= SAND_FIRE) update_rising(s, x, y);
            }
        }
    }
}

/* ---- inputs ----------------------------------------------------------------------------------- */
enum { IN_PAINT, IN_ERASE, IN_EXPLODE };
#define COORD_MAX 100000
static const sim_input_desc sand_inputs[] = {
    [IN_PAINT] = { "paint", 4,
                   { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL },
                     { "r", 0, 64, NULL }, { "element", 0, SAND_NELEMENTS - 1, "element" } },
                   "fill a disc of radius r with an element (walls are kept unless painting wall)" },
    [IN_ERASE] = { "erase", 3,
                   { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL },
                     { "r", 0, 64, NULL } },
                   "empty a disc, walls included" },
    [IN_EXPLODE] = { "explode", 3,
                     { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL },
                       { "r", 1, 64, NULL } },
                     "loosen static cells in a disc and fling everything out of it" },
};
static const sim_enum_desc sand_enums[] = {
    { "element", SAND_NELEMENTS, element_names },
};

static inline int in_disc(int dx, int dy, int r) { return dx * dx + dy * dy <= r * r + r; }

static void sand_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    sand_world *s = impl;
    int cx = in->args[0], cy = in->args[1], r = in->args[2];
    uint64_t base = sim_hash_tick(ctx->seed, ctx->tick);
    int x0 = cx - r < 0 ? 0 : cx - r, x1 = cx + r >= s->w ? s->w - 1 : cx + r;
    int y0 = cy - r < 0 ? 0 : cy - r, y1 = cy + r >= s->h ? s->h - 1 : cy + r;
    if (x0 > x1 || y0 > y1) return;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (!in_disc(x - cx, y - cy, r)) continue;
            uint32_t *cell = &s->cells[y * s->w + x];
            uint32_t rr = sim_hash_at(base, x, y, 4 + in->kind);
            int e = CELL_EL(*cell);
            if (in->kind == IN_PAINT) {
                if (e == SAND_WALL && in->args[3] != SAND_WALL) continue;
                *cell = fresh(in->args[3], rr);
            } else if (in->kind == IN_ERASE) {
                *cell = 0;
            } else {
                /* Explode: flame in the empty heart, debris flung out and up from the centre. */
                int dx = x - cx, dy = y - cy;
                int cls = EL[e].cls;
                if (e == SAND_EMPTY) {
                    if (4 * (dx * dx + dy * dy) <= r * r && (rr & 3u) == 0) *cell = fresh(SAND_FIRE, rr >> 2);
                    continue;
                }
                if (e == SAND_WALL || cls == C_GAS || cls == C_FIRE) continue;
                int vx = dx * 7 / r, vy = dy * 7 / r - 3;
                vx += (int)((rr >> 4) % 3u) - 1;
                vx = vx < -7 ? -7 : (vx > 7 ? 7 : vx);
                vy = vy < -8 ? -8 : (vy > 3 ? 3 : vy);
                if (vx == 0 && vy >= 0) vy = -1;    /* everything in the blast leaves the ground */
                int flags = CELL_FLAGS(*cell) | (cls == C_STATIC ? SAND_F_LOOSE : 0);
                *cell = mkcell(e, CELL_LIFE(*cell), flags, vx, vy);
            }
        }
    wake_box(s, x0 - 1, y0 - 1, x1 + 1, y1 + 1);
}

/* ---- scenes ----------------------------------------------------------------------------------- */
static void fill_rect(sand_world *s, int x, int y, int w, int h, int el)
{
    for (int yy = y; yy < y + h; yy++)
        for (int xx = x; xx < x + w; xx++)
            if (inside(s, xx, yy)) s->cells[yy * s->w + xx] = fresh(el, 0);
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
static void scene_demo(sand_world *s, int build)
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
static void scene_bench(sand_world *s, uint64_t seed, int build)
{
    if (build) {
        sim_rng rng;
        sim_rng_stream(&rng, seed, "sand.bench");
        for (int y = 0; y < s->h - 1; y++)
            for (int x = 0; x < s->w; x++) {
                uint32_t v = sim_rng_below(&rng, 100);
                int el = v < 25 ? SAND_SAND : v < 45 ? SAND_WATER : v < 48 ? SAND_STONE : SAND_EMPTY;
                s->cells[y * s->w + x] = fresh(el, 0);
            }
        fill_rect(s, 0, s->h - 1, s->w, 1, SAND_STONE);
    }
    add_emitter(s, s->w / 3, 0, s->w - 2 * (s->w / 3), 1, SAND_SAND, 256, 20, 1, 0);
    s->emit[s->nemit - 1].el2 = SAND_WATER;
    s->emit[s->nemit - 1].alt = 32;
}

/* ---- palette and rendering -------------------------------------------------------------------- */
typedef struct ramp {
    uint8_t n;
    uint8_t rgb[5][3];
} ramp;

/* Hand-picked ramps, dark to light; each element gets a few shades so piles read as grain. */
static const ramp RAMPS[SAND_NELEMENTS] = {
    [SAND_EMPTY] = { 2, { { 14, 13, 24 }, { 17, 16, 29 } } },
    [SAND_WALL] = { 4, { { 46, 44, 62 }, { 60, 58, 80 }, { 70, 68, 92 }, { 32, 30, 44 } } },
    [SAND_STONE] = { 4, { { 92, 90, 96 }, { 110, 106, 112 }, { 128, 124, 128 }, { 78, 76, 84 } } },
    [SAND_SAND] = { 4, { { 218, 184, 110 }, { 232, 200, 128 }, { 204, 168, 96 }, { 240, 214, 150 } } },
    [SAND_WATER] = { 3, { { 40, 92, 196 }, { 48, 104, 212 }, { 58, 118, 224 } } },
    [SAND_OIL] = { 3, { { 66, 40, 52 }, { 78, 48, 60 }, { 90, 58, 66 } } },
    [SAND_ACID] = { 3, { { 96, 220, 64 }, { 120, 236, 80 }, { 80, 200, 56 } } },
    [SAND_LAVA] = { 4, { { 250, 120, 30 }, { 232, 84, 24 }, { 255, 170, 50 }, { 208, 60, 20 } } },
    [SAND_WOOD] = { 3, { { 120, 78, 44 }, { 138, 92, 52 }, { 104, 66, 38 } } },
    [SAND_ICE] = { 3, { { 170, 224, 240 }, { 190, 236, 248 }, { 150, 208, 232 } } },
    [SAND_FIRE] = { 5, { { 255, 248, 200 }, { 255, 220, 90 }, { 255, 150, 40 }, { 220, 70, 30 },
                         { 140, 34, 24 } } },
    [SAND_SMOKE] = { 3, { { 58, 56, 62 }, { 70, 68, 74 }, { 84, 82, 88 } } },
    [SAND_STEAM] = { 3, { { 180, 188, 200 }, { 200, 206, 216 }, { 160, 168, 184 } } },
    [SAND_GAS] = { 2, { { 72, 92, 52 }, { 86, 108, 60 } } },
};
static const uint8_t EMBERS[4][3] = { { 255, 120, 40 }, { 200, 70, 30 }, { 150, 50, 26 },
                                      { 255, 180, 70 } };

static void build_palette(sand_world *s)
{
    uint8_t base[SAND_NELEMENTS];
    int n = 0;
    for (int e = 0; e < SAND_NELEMENTS; e++) {
        base[e] = (uint8_t)n;
        for (int k = 0; k < RAMPS[e].n; k++, n++)
            memcpy(&s->pal.rgb[n * 3], RAMPS[e].rgb[k], 3);
    }
    for (int k = 0; k < 4; k++, n++) memcpy(&s->pal.rgb[n * 3], EMBERS[k], 3);   /* last 4 */
    s->pal.count = (uint16_t)n;
    s->pal.version = 1;
    for (int e = 0; e < SAND_NELEMENTS; e++)
        for (int v = 0; v < 256; v++) s->lut[e][v] = (uint8_t)(base[e] + v % RAMPS[e].n);
}

static void sand_frame_size(const void *impl, int *w, int *h)
{
    const sand_world *s = impl;
    *w = s->w;
    *h = s->h;
}

/* Static matter takes a stable shade from its position, so a settled pile never shimmers; walls
 * get a brick bond; fire runs through its ramp by age with a flicker; lava and embers glow. */
static void sand_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *f)
{
    const sand_world *s = impl;
    f->pal = s->pal;
    uint64_t tb = sim_hash_tick(ctx->seed, ctx->tick);
    int fire_base = s->lut[SAND_FIRE][0], lava_base = s->lut[SAND_LAVA][0];
    int ember_base = s->pal.count - 4;
    /* Most pixels are a table lookup; only fire, lava, wood and wall look further. */
    static const uint8_t special[SAND_NELEMENTS] = { [SAND_FIRE] = 1, [SAND_LAVA] = 1,
                                                     [SAND_WOOD] = 1, [SAND_WALL] = 1 };
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row = &s->cells[y * s->w];
        const uint8_t *nz = &s->noise[y * s->w];
        const uint8_t *wp = &s->wallpx[y * s->w];
        uint8_t *out = &f->px[y * f->w];
        /* Empty air is most of a frame: copy its row of shades, then draw only matter. */
        memcpy(out, &s->airpx[y * s->w], (size_t)s->w);
        for (int x = 0; x < s->w; x++) {
            uint32_t c = row[x];
            if (!c) continue;
            int e = CELL_EL(c);
            if (!special[e]) {
                out[x] = s->lut[e][nz[x]];
                continue;
            }
            switch (e) {
            case SAND_FIRE: {
                int life = CELL_LIFE(c);
                int k = life > 24 ? 0 : life > 16 ? 1 : life > 9 ? 2 : life > 4 ? 3 : 4;
                if ((sim_hash_at(tb, x, y, 9) & 3u) == 0 && k < 4) k++;
                out[x] = (uint8_t)(fire_base + k);
                break;
            }
            case SAND_LAVA:
                out[x] = (uint8_t)(lava_base + ((nz[x] + (int)(ctx->tick / 6)) & 3));
                break;
            case SAND_WOOD:
                if (CELL_FLAGS(c) & SAND_F_BURNING)
                    out[x] = (uint8_t)(ember_base + (sim_hash_at(tb, x, y, 10) & 3u));
                else
                    out[x] = s->lut[e][(nz[x] & 0xF0u) | (uint8_t)(x % 3)];
                break;
            case SAND_WALL:
                out[x] = wp[x];
                break;
            default:
                out[x] = s->lut[e][nz[x]];
            }
        }
    }
}

/* ---- lifecycle, save, load -------------------------------------------------------------------- */
enum { P_W, P_H, P_SCENE };
static const sim_param_desc sand_params[] = {
    [P_W] = { "w", SIM_PARAM_INT, 320, 16, 640, NULL, NULL, "width in cells (= frame pixels)" },
    [P_H] = { "h", SIM_PARAM_INT, 180, 16, 480, NULL, NULL, "height in cells" },
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (runs for hours), empty, or bench" },
};

static void sand_destroy(void *impl)
{
    sand_world *s = impl;
    if (!s) return;
    free(s->cells);
    free(s->moved);
    free(s->noise);
    free(s->wallpx);
    free(s->airpx);
    free(s->cur);
    free(s->nxt);
    free(s);
}

static int sand_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                       size_t errlen)
{
    sand_world *s = calloc(1, sizeof *s);
    if (!s) return SIM_ENOMEM;
    s->w = (int)p->ival[P_W];
    s->h = (int)p->ival[P_H];
    s->scene = (int)p->ival[P_SCENE];
    s->ncx = (s->w + SAND_CHUNK - 1) / SAND_CHUNK;
    s->ncy = (s->h + SAND_CHUNK - 1) / SAND_CHUNK;
    size_t n = (size_t)s->w * (size_t)s->h, nch = (size_t)s->ncx * (size_t)s->ncy;
    s->cells = calloc(n, sizeof *s->cells);
    s->moved = calloc(n, 1);
    s->noise = malloc(n);
    s->wallpx = malloc(n);
    s->airpx = malloc(n);
    s->cur = malloc(nch * sizeof *s->cur);
    s->nxt = malloc(nch * sizeof *s->nxt);
    if (!s->cells || !s->moved || !s->noise || !s->wallpx || !s->airpx || !s->cur || !s->nxt) {
        sand_destroy(s);
        sim__fmt(err, errlen, "sand: out of memory for a %dx%d world", (int)p->ival[P_W],
                 (int)p->ival[P_H]);
        return SIM_ENOMEM;
    }
    /* Shade noise depends on position only (not the seed): the same pile looks the same. */
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            s->noise[y * s->w + x] = (uint8_t)(sim_hash_cell(0x5eed, 0, x, y, 0) >> 24);
    for (size_t k = 0; k < nch; k++) {
        rect_clear(&s->cur[k]);
        rect_clear(&s->nxt[k]);
    }
    build_palette(s);
    /* Walls get a brick bond: 6-pixel courses, 12-pixel bricks, offset every other course. */
    int wall_base = s->lut[SAND_WALL][0];
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            int mortar = (y % 6 == 5) || ((x + ((y / 6) & 1) * 6) % 12 == 11);
            s->wallpx[y * s->w + x] = (uint8_t)(mortar ? wall_base + 3 : wall_base + s->noise[y * s->w + x] % 3);
            s->airpx[y * s->w + x] = s->lut[SAND_EMPTY][s->noise[y * s->w + x]];
        }
    if (s->scene == SCENE_DEMO) scene_demo(s, !bare);
    else if (s->scene == SCENE_BENCH) scene_bench(s, seed, !bare);
    if (!bare) wake_box(s, 0, 0, s->w - 1, s->h - 1);     /* everything gets a first look */
    *impl = s;
    return 0;
}

static size_t sand_save_max(const void *impl)
{
    const sand_world *s = impl;
    return 5 + (size_t)s->w * (size_t)s->h * 4 + (size_t)s->ncx * (size_t)s->ncy * 8;
}

static void sand_save(const void *impl, sim_writer *wr)
{
    const sand_world *s = impl;
    size_t n = (size_t)s->w * (size_t)s->h;
    sim__w_u16(wr, (uint16_t)s->w);
    sim__w_u16(wr, (uint16_t)s->h);
    sim__w_u8(wr, SAND_CHUNK);
    if (wr->overflow || n * 4 > wr->cap - wr->len) {
        wr->overflow = 1;
        return;
    }
    uint8_t *o = wr->buf + wr->len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(o, s->cells, n * 4);            /* the in-memory layout already is the saved one */
#else
    for (size_t i = 0; i < n; i++) {
        uint32_t c = s->cells[i];
        o[0] = (uint8_t)c; o[1] = (uint8_t)(c >> 8); o[2] = (uint8_t)(c >> 16);
        o[3] = (uint8_t)(c >> 24);
        o += 4;
    }
#endif
    wr->len += n * 4;
    for (int k = 0; k < s->ncx * s->ncy; k++) {
        sim__w_u16(wr, s->nxt[k].x0);
        sim__w_u16(wr, s->nxt[k].y0);
        sim__w_u16(wr, s->nxt[k].x1);
        sim__w_u16(wr, s->nxt[k].y1);
    }
}

static int sand_load(void *impl, sim_reader *rd)
{
    sand_world *s = impl;
    size_t n = (size_t)s->w * (size_t)s->h;
    int w = sim__r_u16(rd), h = sim__r_u16(rd), cs = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (w != s->w || h != s->h || cs != SAND_CHUNK) return SIM_ECORRUPT;
    if (n * 4 > rd->len - rd->pos) return SIM_ETRUNC;
    const uint8_t *b = rd->buf + rd->pos;
    for (size_t i = 0; i < n; i++, b += 4) {
        uint32_t c = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                     ((uint32_t)b[3] << 24);
        if (CELL_EL(c) >= SAND_NELEMENTS || (CELL_FLAGS(c) & ~(SAND_F_LOOSE | SAND_F_BURNING)))
            return SIM_ECORRUPT;
        s->cells[i] = c;
    }
    rd->pos += n * 4;
    for (int k = 0; k < s->ncx * s->ncy; k++) {
        rect16 r;
        r.x0 = sim__r_u16(rd); r.y0 = sim__r_u16(rd);
        r.x1 = sim__r_u16(rd); r.y1 = sim__r_u16(rd);
        if (rd->err) return rd->err;
        if (!rect_empty(&r)) {
            int cx = k % s->ncx, cy = k / s->ncx;
            if (r.x0 < cx * SAND_CHUNK || r.x1 >= (cx + 1) * SAND_CHUNK || r.x1 >= s->w ||
                r.y0 > r.y1 || r.y0 < cy * SAND_CHUNK || r.y1 >= (cy + 1) * SAND_CHUNK ||
                r.y1 >= s->h)
                return SIM_ECORRUPT;
        } else {
            rect_clear(&r);
        }
        s->nxt[k] = r;
    }
    return 0;
}

static int sand_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    (void)impl; (void)in; (void)err; (void)errlen;
    return 0;       /* the table's ranges say it all: radius ≤ 64, a known element */
}

/* Desync report: every differing cell (element, life, flags, velocity) and dirty rectangle. */
static void describe_cell(uint32_t c, char *out, size_t cap)
{
    int fl = CELL_FLAGS(c);
    sim__fmt(out, cap, "%s%s%s life %d v(%d,%d)", element_names[CELL_EL(c) < SAND_NELEMENTS ? CELL_EL(c) : 0],
             (fl & SAND_F_LOOSE) ? " loose" : "", (fl & SAND_F_BURNING) ? " burning" : "",
             CELL_LIFE(c), CELL_VX(c), CELL_VY(c));
}

static long sand_diff(const void *ia, const void *ib, sim_diff_out *o)
{
    const sand_world *a = ia, *b = ib;
    long n = 0;
    if (a->w != b->w || a->h != b->h) {
        sim_diff_line(o, "size: %dx%d → %dx%d", a->w, a->h, b->w, b->h);
        return 1;
    }
    char da[64], db[64];
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            uint32_t ca = a->cells[y * a->w + x], cb = b->cells[y * b->w + x];
            if (ca == cb) continue;
            describe_cell(ca, da, sizeof da);
            describe_cell(cb, db, sizeof db);
            sim_diff_line(o, "cell (%d,%d): %s → %s", x, y, da, db);
            n++;
        }
    for (int k = 0; k < a->ncx * a->ncy; k++) {
        const rect16 *ra = &a->nxt[k], *rb = &b->nxt[k];
        if (memcmp(ra, rb, sizeof *ra) == 0) continue;
        sim_diff_line(o, "chunk (%d,%d) dirty rect: %d,%d..%d,%d → %d,%d..%d,%d", k % a->ncx, k / a->ncx,
                      ra->x0, ra->y0, ra->x1, ra->y1, rb->x0, rb->y0, rb->x1, rb->y1);
        n++;
    }
    return n;
}

static const char *const sand_views[] = { "normal" };

const sim_kind sim__kind_sand = {
    .name = "sand",
    .id = 1,
    .hz = 60,
    .state_version = 1,
    .params = sand_params,
    .nparams = (int)(sizeof sand_params / sizeof sand_params[0]),
    .inputs = sand_inputs,
    .ninputs = (int)(sizeof sand_inputs / sizeof sand_inputs[0]),
    .enums = sand_enums,
    .nenums = 1,
    .views = sand_views,
    .nviews = 1,
    .create = sand_create,
    .destroy = sand_destroy,
    .check_input = sand_check_input,
    .apply_input = sand_apply_input,
    .step = sand_step,
    .frame_size = sand_frame_size,
    .render = sand_render,
    .save_max = sand_save_max,
    .save = sand_save,
    .load = sand_load,
    .diff = sand_diff,
};

/* ---- inspection for tests ------------------------------------------------------------------- */
int sand__element(const void *impl, int x, int y) { return CELL_EL(get(impl, x, y)); }
uint32_t sand__cell(const void *impl, int x, int y) { return get(impl, x, y); }
void sand__size(const void *impl, int *w, int *h) { sand_frame_size(impl, w, h); }

int sand__chunk_awake(const void *impl, int cx, int cy)
{
    const sand_world *s = impl;
    if (cx < 0 || cy < 0 || cx >= s->ncx || cy >= s->ncy) return 0;
    return !rect_empty(&s->nxt[cy * s->ncx + cx]);
}

uint64_t sand__active_cells(const void *impl)
{
    return ((const sand_world *)impl)->stat_active;
}

int sand__count(const void *impl, int element)
{
    const sand_world *s = impl;
    int n = 0;
    for (int i = 0; i < s->w * s->h; i++) n += CELL_EL(s->cells[i]) == element;
    return n;
}
