/* step.c — one tick of the falling-sand world: the per-element rules (movement of powders,
 * liquids and gases, and the reactions of fire, burning wood, ice, lava and acid), the emitters
 * and drains, and the passes that apply the rules over the awake chunks, strip by strip, in
 * SAND_PHASES phases whose strips may run in parallel (docs/sand.md, "Passes").
 *
 * The rules sit in the same file as the passes on purpose: the passes' inner loops run once per
 * awake cell, and the compiler inlines these static functions into them (there is no LTO). */
#include "sand_int.h"
#include <stdlib.h>

/* Set a cell in place (a reaction), marking it changed and done for this tick. */
static inline void put(sand_world *s, int x, int y, uint32_t c)
{
    int i = cidx(s, x, y);
    s->cells[i] = c;
    s->moved[i] = s->stamp;
    mark(s, x, y);
}

/* Swap two cells, both done for this tick; the caller marks them. */
static inline void swap_unmarked(sand_world *s, int x0, int y0, int x1, int y1)
{
    int i = cidx(s, x0, y0), j = cidx(s, x1, y1);
    uint32_t t = s->cells[i];
    s->cells[i] = s->cells[j];
    s->cells[j] = t;
    s->moved[i] = s->moved[j] = s->stamp;
}

static inline void swap_cells(sand_world *s, int x0, int y0, int x1, int y1)
{
    swap_unmarked(s, x0, y0, x1, y1);
    mark(s, x0, y0);
    mark(s, x1, y1);
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
    int i = cidx(s, cx, cy);
    s->cells[i] = with_vel(s->cells[i], vx, vy);
    s->moved[i] = s->stamp;
    mark(s, cx, cy);
    return 1;
}

/* Fall straight down, accelerating; then slide diagonally. Returns 1 if the cell moved. */
static int fall(sand_world *s, int x, int y, uint32_t c, int cls, uint32_t r)
{
    int d = sim__sand_el[CELL_EL(c)].density;
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
            swap_unmarked(s, x, cy, x, cy + 1);
            cy++;
            moved = 1;
            break;
        }
        swap_unmarked(s, x, cy, x, cy + 1);
        cy++;
        moved = 1;
    }
    if (moved) {
        mark_column(s, x, y, cy);       /* every cell it passed, once */
        int i = cidx(s, x, cy);
        int nvy = (cy - y == steps && vy < FALL_VMAX) ? vy + 1 : (cy - y == steps ? vy : 0);
        if (nvy < 0) nvy = 0;
        s->cells[i] = with_vel(s->cells[i], 0, nvy);
        return 1;
    }
    if (vy != 0) {                      /* landed: lose the speed */
        put(s, x, y, with_vel(c, 0, 0));
        int i = cidx(s, x, y);
        c = s->cells[i];
        s->moved[i] = 0;   /* landing is not a move: it may still slide */
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
    int spread = sim__sand_el[e].spread;
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
            if (inside(s, tx, y + 1) &&
                can_sink(C_LIQUID, sim__sand_el[e].density, get(s, tx, y + 1)))
                break;
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
    int d = sim__sand_el[CELL_EL(c)].density;
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
        if (tc == C_EMPTY || ((tc == C_GAS) && sim__sand_el[te].density > d && kk == 0)) {
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
        put(s, x, y, (r & 3u) == 0 ? sim__sand_fresh(SAND_SMOKE, r >> 8) : 0);
        return;
    }
    const int8_t *nb = NB8[(r >> 4) & 7u];
    int nx = x + nb[0], ny = y + nb[1];
    uint32_t t = get(s, nx, ny);
    int te = CELL_EL(t);
    if (inside(s, nx, ny)) {
        if (sim__sand_el[te].flammable) {
            ignite(s, nx, ny, r >> 12);
        } else if (te == SAND_WATER) {
            put(s, nx, ny, sim__sand_fresh(SAND_STEAM, r >> 12));
            put(s, x, y, 0);
            return;
        } else if (te == SAND_ICE && (r & 0x70000u) == 0) {
            put(s, nx, ny, sim__sand_fresh(SAND_WATER, 0));
        }
    }
    c = with_life(c, life);
    s->cells[cidx(s, x, y)] = c;
    mark(s, x, y);
    /* Flames lick upward half the time. */
    if ((r & 0x80000u) && inside(s, x, y - 1) && CELL_EL(get(s, x, y - 1)) == SAND_EMPTY)
        swap_cells(s, x, y, x, y - 1);
    else
        s->moved[cidx(s, x, y)] = s->stamp;
}

/* Burning wood: counts down, sheds fire and smoke into empty neighbours, spreads to flammable
 * ones, is put out by water (which boils), and when done becomes smoke. */
static void update_burning_wood(sand_world *s, int x, int y, uint32_t c, uint32_t r)
{
    int life = CELL_LIFE(c) - 1;
    if (life <= 0) {
        put(s, x, y, sim__sand_fresh(SAND_SMOKE, r >> 8));
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
        put(s, nx, ny, (r & 0x60u) == 0 ? sim__sand_fresh(SAND_SMOKE, r >> 8)
                                        : sim__sand_fresh(SAND_FIRE, r >> 8));
    } else if (sim__sand_el[te].flammable) {
        ignite(s, nx, ny, r >> 8);
    } else if (te == SAND_WATER) {
        put(s, nx, ny, sim__sand_fresh(SAND_STEAM, r >> 8));
        put(s, x, y, mkcell(SAND_WOOD, 0, CELL_FLAGS(c) & ~SAND_F_BURNING, CELL_VX(c), CELL_VY(c)));
    }
}

/* Ice melts when something hot is next to it (a chance a tick, so a block thaws from the edge). */
static void update_ice(sand_world *s, int x, int y, uint32_t r)
{
    for (int k = 0; k < 8; k++) {
        if (is_hot(get(s, x + NB8[k][0], y + NB8[k][1]))) {
            if ((r & 0x1F0u) == 0)
                put(s, x, y, sim__sand_fresh(SAND_WATER, 0));
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
        if (te == SAND_WATER || te == SAND_ICE || sim__sand_el[te].flammable) any = 1;
    }
    if (!any) return 0;
    const int8_t *nb = NB4[(r >> 16) & 3u];
    int nx = x + nb[0], ny = y + nb[1];
    int te = CELL_EL(get(s, nx, ny));
    if (te == SAND_WATER && (r & 0x1C0000u) == 0) {
        put(s, nx, ny, sim__sand_fresh(SAND_STEAM, r >> 7));
        put(s, x, y, mkcell(SAND_STONE, 0, SAND_F_LOOSE, 0, 0));    /* cooled: sinks as rubble */
        return 1;
    }
    if (te == SAND_ICE && (r & 0x1C0000u) == 0) {
        put(s, nx, ny, sim__sand_fresh(SAND_WATER, 0));
    } else if (sim__sand_el[te].flammable && (r & 0xC0000u) == 0) {
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
        if (inside(s, nx, ny) && sim__sand_el[CELL_EL(get(s, nx, ny))].dissolves) any = 1;
    }
    if (!any) return 0;
    keep_awake(s, x, y);
    const int8_t *nb = NB4[(r >> 16) & 3u];
    int nx = x + nb[0], ny = y + nb[1];
    if (!inside(s, nx, ny) || !sim__sand_el[CELL_EL(get(s, nx, ny))].dissolves) return 0;
    if ((r & 0x1C0000u) != 0) return 0;                 /* an eighth of a chance a tick */
    put(s, nx, ny, (r & 0x600000u) == 0 ? sim__sand_fresh(SAND_SMOKE, r >> 3) : 0);
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
    int i = cidx(s, x, y), m = i;
    uint32_t c = s->cells[i];
    int e = CELL_EL(c);
    if (e == SAND_EMPTY || s->moved[m] == s->stamp) return;
    int cls = mover_class(c);
    if (cls == C_GAS || cls == C_FIRE) return;
    uint32_t r = rnd(s, x, y, 1);
    if (e == SAND_WOOD && (CELL_FLAGS(c) & SAND_F_BURNING)) {
        update_burning_wood(s, x, y, c, r);
        if (CELL_EL(s->cells[i]) != SAND_WOOD || !(CELL_FLAGS(s->cells[i]) & SAND_F_LOOSE)) return;
        s->moved[m] = 0;                /* burning rubble still falls */
        c = s->cells[i];
    } else if (e == SAND_ICE) {
        update_ice(s, x, y, r);
        if (s->moved[m] == s->stamp) return;
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
    int i = cidx(s, x, y), m = i;
    uint32_t c = s->cells[i];
    int e = CELL_EL(c);
    if (s->moved[m] == s->stamp) return;
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
        put(s, x, y, e == SAND_STEAM ? sim__sand_fresh(SAND_WATER, 0) : 0);
        return;
    }
    c = with_life(c, life);
    s->cells[i] = c;
    mark(s, x, y);
    if (!move_gas(s, x, y, c, r)) s->moved[m] = s->stamp;
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
                if (!inside(s, x, y) || CELL_EL(s->cells[cidx(s, x, y)]) != SAND_EMPTY) continue;
                uint32_t r = rnd(s, x, y, 3);
                if ((r & 0xFFu) < em->prob) put(s, x, y, sim__sand_fresh(el, r >> 8));
            }
    }
    for (int k = 0; k < s->ndrain; k++) {
        const sand_drain *dr = &s->drain[k];
        for (int y = dr->y; y < dr->y + dr->h; y++)
            for (int x = dr->x; x < dr->x + dr->w; x++) {
                if (!inside(s, x, y)) continue;
                uint32_t c = s->cells[cidx(s, x, y)];
                if (CELL_EL(c) != SAND_EMPTY && CELL_EL(c) != SAND_WALL) put(s, x, y, 0);
            }
    }
}

/* One strip (a column of chunks, SAND_CHUNK cells wide, the world's full height): its falling
 * matter bottom-up, then its rising matter top-down, each row in this tick's scan direction.
 * Everything it reads or writes lies within SAND_REACH cells of the strip, and every rectangle it
 * marks belongs to its own chunk column or a neighbouring one (sand_int.h), so strips of one
 * phase never touch the same memory. */
static void run_strip(sand_world *s, int k)
{
    const rect16 *col = rect_at(s, s->cur, k, 0);
    const int cs = s->cs;
    for (int cy = s->ncy - 1; cy >= 0; cy--) {
        const rect16 *r = &col[cy];
        if (rect_empty(r)) continue;
        for (int y = r->y1; y >= r->y0; y--) {
            /* An empty cell (all bits 0) never acts, nor does a plain wall (update_falling
             * returns for static matter that neither burns nor melts): skip them without a
             * call. */
            const uint32_t *cr = &s->cells[y];        /* row y: cr[x * cs] */
            if (s->dir > 0) {
                for (int x = r->x0; x <= r->x1; x++)
                    if (cr[x * cs] && cr[x * cs] != WALL_CELL) update_falling(s, x, y);
            } else {
                for (int x = r->x1; x >= r->x0; x--)
                    if (cr[x * cs] && cr[x * cs] != WALL_CELL) update_falling(s, x, y);
            }
        }
    }
    for (int cy = 0; cy < s->ncy; cy++) {
        const rect16 *r = &col[cy];
        if (rect_empty(r)) continue;
        for (int y = r->y0; y <= r->y1; y++) {
            /* Only fire and the gases rise: elements 10..13. */
            const uint32_t *cr = &s->cells[y];
            if (s->dir > 0) {
                for (int x = r->x0; x <= r->x1; x++)
                    if (CELL_EL(cr[x * cs]) >= SAND_FIRE) update_rising(s, x, y);
            } else {
                for (int x = r->x1; x >= r->x0; x--)
                    if (CELL_EL(cr[x * cs]) >= SAND_FIRE) update_rising(s, x, y);
            }
        }
    }
}

/* One pass: the awake strips of one phase, strips[0..count); items [start, end) of it, in any
 * order, on any thread (sim_task_fn). */
typedef struct strip_pass {
    sand_world *s;
    const int *strips;
} strip_pass;

static void strip_task(int start, int end, int worker, void *task_ctx)
{
    const strip_pass *p = task_ctx;
    (void)worker;
    for (int i = start; i < end; i++) run_strip(p->s, p->strips[i]);
}

int sand__strip_of(const void *task_ctx, int item)
{
    return ((const strip_pass *)task_ctx)->strips[item];
}

/* A pass (or, for a host that runs graphs, a whole tick) whose rectangles cover fewer cells than
 * this runs inline even with a pool: ~12 µs of work at ~12 ns a cell (bench_sand), against a
 * hand-over that costs about a microsecond on an idle core and far more on a busy one. The result
 * is the same either way. */
#define PARALLEL_MIN_CELLS 1024

/* The awake strips of phase ph into s->order, how many, and the cells they cover (*cells). With
 * a pool they are sorted heaviest first: a worker that takes the last strip then waits the least
 * for the others. Inline, the order does not matter and nothing is sorted. */
static int phase_strips(sand_world *s, int ph, int sort, uint32_t *cells)
{
    int n = 0;
    *cells = 0;
    for (int k = ph; k < s->ncx; k += SAND_PHASES) {
        if (!s->weight[k]) continue;
        *cells += s->weight[k];
        int i = n++;
        if (sort)
            for (; i > 0 && s->weight[s->order[i - 1]] < s->weight[k]; i--) s->order[i] = s->order[i - 1];
        s->order[i] = k;
    }
    return n;
}

/* Where strip k's phase comes in this tick's order of the phases: 0, 1 or 2. */
static inline int phase_pos(const sand_world *s, int k)
{
    return s->dir > 0 ? k % SAND_PHASES : SAND_PHASES - 1 - k % SAND_PHASES;
}

/* The whole tick's strips as one graph (sim_graph), for a host that runs graphs: the awake strips
 * into s->order from left to right, and an edge from each to every awake strip within two of it
 * whose phase comes later this tick. Strips that far apart or farther share nothing (sand_int.h:
 * cells within SAND_REACH, rectangles of a chunk column and its two neighbours), and the pairs
 * that do share keep the order of the phase passes, so every order the graph allows gives the
 * passes' result. */
static void tick_graph(sand_world *s, sim_graph *g)
{
    int n = 0, e = 0;
    for (int k = 0; k < s->ncx; k++)
        if (s->weight[k]) {
            s->gdeps[n] = 0;
            s->order[n++] = k;
        }
    for (int i = 0; i < n; i++) {
        int k = s->order[i];
        s->gsucc_first[i] = e;
        for (int j = i - 2; j <= i + 2; j++) {
            if (j < 0 || j >= n || j == i || abs(s->order[j] - k) > 2) continue;
            if (phase_pos(s, s->order[j]) > phase_pos(s, k)) {
                s->gsucc[e++] = j;
                s->gdeps[j]++;
            }
        }
    }
    s->gsucc_first[n] = e;
    g->count = n;
    g->ndeps = s->gdeps;
    g->succ_first = s->gsucc_first;
    g->succ = s->gsucc;
}

void sim__sand_step(void *impl, const sim_ctx *ctx)
{
    sand_world *s = impl;
    s->tick = ctx->tick;
    s->tickbase = sim_hash_tick(ctx->seed, ctx->tick);
    s->dir = (ctx->tick & 1u) ? -1 : 1;
    /* What was marked last tick (and by this tick's inputs) is what we process now. */
    rect16 *t = s->cur;
    s->cur = s->nxt;
    s->nxt = t;
    int awake = 0;
    uint64_t active = 0;
    for (int cx = 0; cx < s->ncx; cx++) {
        uint32_t cells = 0;
        rect16 *nx = rect_at(s, s->nxt, cx, 0);
        const rect16 *cu = rect_at(s, s->cur, cx, 0);
        for (int cy = 0; cy < s->ncy; cy++) {
            rect_clear(&nx[cy]);
            if (!rect_empty(&cu[cy]))
                cells += (uint32_t)(cu[cy].x1 - cu[cy].x0 + 1) * (cu[cy].y1 - cu[cy].y0 + 1);
        }
        s->weight[cx] = cells;
        awake |= cells != 0;
        active += cells;
    }
    s->stat_active = active;
    /* A cell has moved this tick when its byte holds this tick's stamp, 1..255 in turn: no byte
     * is cleared but once every 255 ticks, when the stamps come round again. */
    s->stamp = (uint8_t)(s->stamp == 255 ? 1 : s->stamp + 1);
    if (s->stamp == 1) memset(s->moved, 0, (size_t)s->w * (size_t)s->cs);
    run_emitters(s);
    sim_phase_end(ctx, "emitters");
    if (!awake) return;
    /* A host that runs graphs gets the whole tick at once: no wait between the phases, and each
     * worker stays on its own side of the world (pool/pool.c). Not when phase hashes are asked
     * for: they need the phases one after the other (the result is the same). */
    const sim_tasks *tk = ctx->tasks;
    if (tk && tk->run_graph && !ctx->phases && active >= PARALLEL_MIN_CELLS) {
        sim_graph g;
        tick_graph(s, &g);
        strip_pass p = { s, s->order };
        if (tk->run_graph(strip_task, &g, &p, tk->user) == 0) return;
    }
    /* The passes: strip k runs in phase k mod SAND_PHASES, the phases in scan order (reversed on
     * the ticks that scan right to left, so that each seam between strips is met from either
     * side on alternate ticks). Any order of the strips inside a phase gives the same result. */
    static const char *const phase_names[] = { "strip phase 0", "strip phase 1", "strip phase 2",
                                               "strip phase 3", "strip phase 4", "strip phase 5" };
    _Static_assert(SAND_PHASES <= 6, "name the new strip phases");
    for (int ph = 0; ph < SAND_PHASES; ph++) {
        uint32_t cells;
        int which = s->dir > 0 ? ph : SAND_PHASES - 1 - ph;
        int n = phase_strips(s, which, ctx->tasks != NULL, &cells);
        strip_pass p = { s, s->order };
        sim__tasks_run(cells >= PARALLEL_MIN_CELLS ? ctx->tasks : NULL, strip_task, n, 1, &p);
        sim_phase_end(ctx, phase_names[which]);
    }
}
