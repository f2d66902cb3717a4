/* sand_int.h — private to the files of sim/sand/: the world struct, the cell layout, the element
 * classes and table, and the small helpers the step's inner loops need inlined (dirty
 * rectangles, marking, cell access). Tests and benchmarks include sand.h, which this file extends.
 *
 * The helpers here are `static inline` on purpose: the step's hot loops in step.c relied on them
 * being inlined when everything was one file, and without LTO a function in another .c file is
 * never inlined. */
#ifndef VIVARIUM_SAND_INT_H
#define VIVARIUM_SAND_INT_H
#include "sand.h"

/* ---- the elements (table in elements.c) ------------------------------------------------------- */
enum { C_EMPTY, C_STATIC, C_POWDER, C_LIQUID, C_GAS, C_FIRE };

typedef struct sand_el {
    const char *name;
    uint8_t cls;
    uint8_t density;        /* heavier sinks through lighter; gases: lighter rises above heavier */
    uint8_t spread;         /* liquids: cells moved sideways per tick */
    uint8_t flammable;
    uint8_t dissolves;      /* acid eats it */
} sand_el;

extern const sand_el sim__sand_el[SAND_NELEMENTS];
extern const char *const sim__sand_element_names[SAND_NELEMENTS];

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

/* A fresh cell of element `el`, its lifetime (fire, smoke, steam) drawn from r. */
uint32_t sim__sand_fresh(int el, uint32_t r);

/* ---- the scene: emitters and drains, rebuilt from params (not part of the state) ---------------- */
typedef struct sand_emitter {
    int x, y, w, h;
    uint8_t el, el2;        /* el2: alternate element, switching every `alt` ticks (0 = none) */
    uint16_t prob;          /* per empty cell and active tick, out of 256 */
    uint16_t cycle, on, phase, alt;
} sand_emitter;

typedef struct sand_drain {
    int x, y, w, h;
} sand_drain;

#define MAX_EMITTERS 256           /* the small demo uses 15; a 4096-wide big one about 130 */
#define MAX_DRAINS 64

typedef struct sand_big sand_big;
typedef struct sand_redraw sand_redraw;

typedef struct rect16 {
    uint16_t x0, y0, x1, y1;        /* inclusive; empty when x0 > x1 */
} rect16;

struct sand_world {
    int w, h;
    int ncx, ncy;                   /* chunks across (= strips) and down */
    int scene;
    uint64_t seed;                  /* a big demo's layout comes from it (big.c) */
    /* The memory layout keeps the strips of one pass off each other's cache lines (they run on
     * different cores), and the strips on either side of a seam on as few as it can: the cells
     * column by column (cidx), each column whole 64-byte lines (16 cells), so that where a strip
     * reaches a cell or two into its neighbour's columns it shares a line per 16 rows, not one
     * per row as rows would; `moved` by the same index, a byte a cell; the rectangles chunk
     * column by chunk column, 64-byte aligned, each column padded to whole lines. None of it
     * shows in the saved state, which is row by row (state.c). */
    uint32_t *cells;                /* column by column (cidx), in cells_mem, 64-byte aligned */
    void *cells_mem;
    int cs;                         /* cells a column in memory: h rounded up to an odd number
                                       of 16-cell lines (cidx) */
    uint8_t *moved;                 /* scratch, never saved: == stamp when the cell moved this
                                       tick (at cidx); in moved_mem, 64-byte aligned */
    void *moved_mem;
    uint8_t stamp;                  /* this tick's mark in `moved`, 1..255 */
    uint8_t *band;                  /* scratch of a save (state.c): 16 rows of cells as saved,
                                       SAND_BAND_STRIDE apart; a world is saved by one caller at
                                       a time, as it is drawn */
    int rstride;                    /* rectangles per chunk column (ncy, padded) */
    uint8_t *noise;                 /* per-position shade noise for rendering (from x, y only) */
    uint8_t *wallpx;                /* per-position wall colour: a brick bond */
    uint8_t *airpx;                 /* per-position colour of empty air */
    uint8_t *leafpx;                /* demo picture, per position: 0 outside the tree's leaves,
                                       else 1 + the leaf shade's hash bits (render.c) */
    uint8_t *col_above;             /* render scratch, one a column: the element above (render.c) */
    int16_t *col_top;               /* render scratch, one a column: where that run began */
    struct sand_big *big;           /* a big demo's layout and its scratch (big.h), never saved */
    rect16 *cur, *nxt;              /* dirty rectangles: processing now / next tick (rect_at); in
                                       rects_mem, 64-byte aligned */
    sand_redraw *rd;                /* what the last render drew, and where (redraw.c) */
    uint64_t *digest;               /* per chunk, row-major: XXH3-64 of its cells as saved, for
                                       the state hash (state.c; never saved) */
    uint64_t *hdirty;               /* per strip, hstride words (hwords used): the chunks (bit cy)
                                       whose cells changed since their digest was taken (seen_px);
                                       a strip's on 64-byte lines of its own, in hdirty_mem */
    int hwords;                     /* (ncy + 63) / 64 */
    int hstride;                    /* hwords rounded up to 8 */
    void *hdirty_mem;
    void *rects_mem;
    uint32_t *weight;               /* scratch, per strip: cells its rectangles cover this tick */
    int *order;                     /* scratch: the strips of the pass (or graph) being run */
    int *gdeps, *gsucc_first, *gsucc;   /* scratch: the tick's graph (sim_graph; step.c) */
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

/* ---- the reach of one cell's update, and the pass layout it allows ---------------------------- *
 * How far from (x, y) the update of the cell at (x, y) reads or writes (step.c), in cells along
 * either axis:
 *   - explosion debris (move_ballistic) steps along its velocity: |vx|, |vy| ≤ 8, the most a
 *     4-bit signed field holds (SAND_VEL_MAX);
 *   - falling (fall) moves 1 + vy ≤ 1 + 7 cells down (vy ≤ 7 for the same reason; the rules keep
 *     it ≤ FALL_VMAX), then looks one cell down and aside;
 *   - liquids spread up to their `spread` (water 5) sideways and look one cell below the end,
 *     checked against SAND_REACH for every element when a world is created;
 *   - gases, fire, burning wood, ice, lava and acid touch their 8 neighbours (1 cell), fire also
 *     the cell above;
 *   - every cell written is marked (mark): its rectangle grows one cell past it.
 * So reads and writes stay within SAND_REACH = 8 cells of the updated cell, and marks within 9.
 * A strip then touches cells within SAND_REACH of its own columns and rectangles of its own chunk
 * column and the two beside it. Strips of one phase are SAND_PHASES strips apart: */
#define SAND_VEL_MAX 8
_Static_assert(SAND_VEL_MAX <= SAND_REACH && 1 + 7 <= SAND_REACH && 1 + FALL_VMAX <= SAND_REACH,
               "a cell's update reaches farther than SAND_REACH");
_Static_assert(2 * SAND_REACH <= (SAND_PHASES - 1) * SAND_CHUNK,
               "two strips of one phase could touch the same cell");
_Static_assert(SAND_REACH + 1 <= SAND_CHUNK,
               "a mark could land two chunk columns away from its strip");
_Static_assert(SAND_PHASES >= 3,
               "a chunk column is marked from its own strip and both neighbours: they need "
               "different phases");
_Static_assert((SAND_CHUNK & (SAND_CHUNK - 1)) == 0 && SAND_CHUNK <= 255,
               "mark() masks with SAND_CHUNK - 1, and the state stores it in a byte");

_Static_assert(SAND_W_MAX <= 4096 && SAND_H_MAX <= 4096, "a frame is at most 4096 pixels a side");
_Static_assert(SAND_W_MAX <= 65535 && SAND_H_MAX <= 32767,
               "sizes and rectangles are saved as u16; the renderer keeps rows in int16_t");

/* ---- layout ----------------------------------------------------------------------------------- */
/* Chunk (cx, cy)'s rectangle in an array of them (cur or nxt). */
static inline rect16 *rect_at(const sand_world *s, rect16 *a, int cx, int cy)
{
    return &a[(size_t)cx * (size_t)s->rstride + (size_t)cy];
}
/* Cell (x, y)'s place in s->cells and s->moved: column by column, s->cs a column. Every
 * neighbour is a fixed step away (1 down, s->cs across), as it was in rows, so the rules pay
 * nothing for the order; a column of cs cells is an odd number of lines, so that the 16 columns
 * of a strip fall in 16 different sets of a set-associative cache whatever the height (a column
 * of 1,024 cells, 4 KB, would put all 16 in one). */
static inline int cidx(const sand_world *s, int x, int y)
{
    return x * s->cs + y;
}
#define SAND_BAND_STRIDE(w) ((size_t)(w) * 4 + 64)
static inline int sim__sand_col_stride(int h)
{
    int lines = (h + 15) / 16;
    return 16 * (lines | 1);
}

/* ---- rendering what changed (redraw.c; docs/sand.md, "Rendering follows change") ------------- *
 * A render draws again only the pixels that may differ from the frame's: those of cells that
 * changed since the last render of that frame (seen_px), and what depends on them (the painter
 * knows how far), and those that move with the tick alone (fire, lava, glints), when they do.
 * Anything it cannot vouch for (another frame, a frame another world drew into, a new world after
 * a load) is drawn whole. Bookkeeping is by strip (a chunk column, SAND_CHUNK pixels wide) and
 * row: a set of columns a uint16_t. None of it is state. */
/* A render's scratch for one worker (redraw.c): the strips it draws are its own, and so is this. */
typedef struct sand_redraw_scratch {
    uint16_t *cols;                 /* h of them: the columns of one strip to draw now, */
    uint16_t *chg;                  /* those of them whose cell changed, */
    uint64_t *need;                 /* and the rows that have any */
    uint64_t painted;               /* pixels this worker drew this render */
} sand_redraw_scratch;

struct sand_redraw {
    uint64_t mark;                  /* left in the frame at the last render (sim_frame.drawn);
                                       0: none yet, so the next render draws everything */
    uint32_t count;                 /* renders so far: the low bits of the next mark */
    const uint8_t *px;              /* the frame drawn last: its pixels, size and view, */
    int fw, fh, view;
    uint64_t seed, tick;            /* and the moment and palette it was drawn for */
    uint32_t palver;
    uint16_t palcount;
    int words;                      /* words of a set of rows: (h + 63) / 64, rounded up to 8 (a
                                       strip's on cache lines of its own: below) */
    int cstride;                    /* seencols per strip: h, rounded up to 32 */
    /* The two written by the step's passes (seen_px), a strip's on whole 64-byte lines of its own,
     * so that two workers' strips never write one line (as s->moved and the rectangles): */
    uint16_t *seencols;             /* per strip, cstride of them: the columns of each row whose
                                       cell changed since the last render (inputs and steps alike), */
    uint64_t *seenrows;             /* and, `words` words per strip, the rows that have any */
    void *seen_mem;                 /* the block holding both */
    uint16_t *movecols;             /* per strip, h of them: the columns of each row whose pixel,
                                       as last drawn, changes with the tick alone, */
    uint64_t *due;                  /* and the first tick at which one of them may (or earlier), */
    uint8_t *lowdue;                /* per pixel: for one that moves, the low byte of the tick
                                       it is next drawn otherwise at (note_px; redraw.c reads it
                                       back as a tick after the last render's), */
    uint64_t *moving;               /* and, `words` words per strip, the rows that may have any */
    sand_redraw_scratch *scr;       /* one for each worker of the render's pass (scr[0] always) */
    int nscr;
    uint8_t *keys;                  /* the demo's, per pixel: the depth key it was drawn with
                                       (render.c); NULL in the other scenes */
    uint64_t painted;               /* pixels the last render drew (tests and benchmarks) */
};

_Static_assert(SAND_CHUNK <= 16, "redraw.c keeps the columns of a strip in a uint16_t");

/* A renderer as redraw.c drives it. paint draws pixels as a whole frame would have them, and
 * returns how many it drew: with cols NULL, every one of columns x0..x1 (whole strips); else in
 * one strip, columns x0..x1, those of each row y of `need` (a set of rows) in the set cols[y]
 * (bit i: column x0 + i), and any others that changed with them (chg[y], a part of cols[y]: the
 * columns whose cell changed). up (NULL: none) says how many
 * pixels above cell (x, y) (changed since the last render) may have changed with it; whatever
 * reaches below it is the painter's to follow. It notes (note_px) each pixel it draws that
 * changes with the tick, and each other one it draws of a row it does not draw whole. It writes
 * nothing outside columns x0..x1 (pixels, keys, notes, the per-column scratch) and reads nothing
 * there that a render writes, so strips are drawn in parallel (redraw.c). */
typedef struct sand_painter {
    int (*up)(const sand_world *s, int x, int y);
    uint64_t (*paint)(const sand_world *s, const sim_ctx *ctx, sim_frame *f, int x0, int x1,
                      const uint16_t *cols, const uint16_t *chg, const uint64_t *need);
} sand_painter;

/* The first row from y on in the set of rows `need` (h rows), or h. */
int sim__sand_next_row(const uint64_t *need, int h, int y);

/* What a painter notes of the pixels it draws in one row, strip by strip: which of them change
 * with the tick alone, and from which tick on (the earliest), and which stay as they are while
 * their cells do. note_px gathers them, sim__sand_notes_put hands them to redraw.c a strip at a
 * time. A row drawn whole needs no `still`: redraw.c forgets it before it is drawn. */
typedef struct row_notes {
    int k, y;                       /* the strip and row gathered; k -1: none yet */
    uint16_t moving, still;         /* bit i: the strip's column i */
    uint64_t due;
} row_notes;

void sim__sand_notes_put(const sand_world *s, row_notes *n);       /* and empties n */

static inline row_notes notes_for(int y)
{
    row_notes n = { -1, y, 0, 0, UINT64_MAX };
    return n;
}

/* Pixel (x, n->y) as just drawn: another from tick `due` on with no change to any cell, or (due
 * 0) as it is while its cells are. */
static inline void note_px(const sand_world *s, row_notes *n, int x, uint64_t due)
{
    if (x / SAND_CHUNK != n->k) {
        sim__sand_notes_put(s, n);
        n->k = x / SAND_CHUNK;
    }
    uint16_t bit = (uint16_t)(1u << (x & (SAND_CHUNK - 1)));
    if (!due) {
        n->still |= bit;
        return;
    }
    n->moving |= bit;
    if (due < n->due) n->due = due;
    s->rd->lowdue[(size_t)n->y * (size_t)s->w + (size_t)x] = (uint8_t)due;
}

/* The first 64-byte boundary in a block (NULL for NULL): the block is allocated 64 bytes larger.
 * Not aligned_alloc: sim/ calls no allocator but malloc, calloc and free (tests/layers.sh). */
void *sim__sand_line_align(void *mem);

/* Cell (x, y) changed: the next render draws it, and the next state hash digests its chunk again. From a pass, the cell is one its strip may
 * write, so the words written are its own chunk column's or a neighbour's, as mark's rectangles
 * (the pass layout, above): the strips of one phase share none. */
static inline void seen_px(sand_world *s, int x, int y)
{
    unsigned k = (unsigned)x / SAND_CHUNK, uy = (unsigned)y;     /* inside the grid */
    unsigned cy = uy / SAND_CHUNK;
    s->rd->seencols[k * (unsigned)s->rd->cstride + uy] |= (uint16_t)(1u << (x & (SAND_CHUNK - 1)));
    s->rd->seenrows[k * (unsigned)s->rd->words + (uy >> 6)] |= 1ull << (uy & 63);
    s->hdirty[k * (unsigned)s->hstride + (cy >> 6)] |= 1ull << (cy & 63);   /* its digest too */
}

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
void sim__sand_wake_box(sand_world *s, int x0, int y0, int x1, int y1);

/* Cells (x, y0) to (x, y1) changed, y0 <= y1, one column (a cell, or one that fell down it):
 * they and their neighbours are processed next tick, and the next render draws them (seen_px's
 * marks) and the next state hash digests their chunks again. The union of their 3 × 3 boxes is
 * the one box x - 1..x + 1, y0 - 1..y1 + 1, and a chunk's rectangle is the bounding box of what is
 * added to it, whatever the order or grouping; so marking a fall's cells as one column leaves the
 * world as marking them one by one did (a fall of n cells marked 2n, n - 1 of them twice). The
 * common case (the box inside one chunk) touches one rectangle; a box over a chunk's edge wakes
 * the neighbour chunks too. */
static inline void mark_column(sand_world *s, int x, int y0, int y1)
{
    sand_redraw *rd = s->rd;
    unsigned k = (unsigned)x / SAND_CHUNK;
    uint16_t bit = (uint16_t)(1u << (x & (SAND_CHUNK - 1)));
    uint16_t *sc = &rd->seencols[k * (unsigned)rd->cstride];
    uint64_t *sr = &rd->seenrows[k * (unsigned)rd->words];
    uint64_t *hd = &s->hdirty[k * (unsigned)s->hstride];
    for (int y = y0; y <= y1; y++) {
        sc[y] |= bit;
        sr[(unsigned)y >> 6] |= 1ull << ((unsigned)y & 63);
    }
    for (unsigned cy = (unsigned)y0 / SAND_CHUNK; cy <= (unsigned)y1 / SAND_CHUNK; cy++)
        hd[cy >> 6] |= 1ull << (cy & 63);
    int lx = x & (SAND_CHUNK - 1);
    if (lx != 0 && lx != SAND_CHUNK - 1 && x + 1 < s->w && (y0 & (SAND_CHUNK - 1)) != 0 &&
        (y1 & (SAND_CHUNK - 1)) != SAND_CHUNK - 1 && y0 / SAND_CHUNK == y1 / SAND_CHUNK && y1 + 1 < s->h) {
        rect_add(rect_at(s, s->nxt, x / SAND_CHUNK, y0 / SAND_CHUNK), x - 1, y0 - 1, x + 1, y1 + 1);
        return;
    }
    sim__sand_wake_box(s, x - 1, y0 - 1, x + 1, y1 + 1);
}

/* A cell changed: mark_column of the one cell. */
static inline void mark(sand_world *s, int x, int y)
{
    mark_column(s, x, y, y);
}

/* A cell declined a random action: only it needs another look. */
static inline void keep_awake(sand_world *s, int x, int y)
{
    rect_add(rect_at(s, s->nxt, x / SAND_CHUNK, y / SAND_CHUNK), x, y, x, y);
}

/* ---- cell access ------------------------------------------------------------------------------ */
static inline int inside(const sand_world *s, int x, int y)
{
    return (unsigned)x < (unsigned)s->w && (unsigned)y < (unsigned)s->h;
}
static inline uint32_t get(const sand_world *s, int x, int y)
{
    return inside(s, x, y) ? s->cells[cidx(s, x, y)] : WALL_CELL;
}
static inline uint32_t rnd(const sand_world *s, int x, int y, uint32_t salt)
{
    return sim_hash_at(s->tickbase, x, y, salt);
}

/* Density of a moving cell: loose static matter falls as a powder of its own weight. */
static inline int mover_class(uint32_t c)
{
    int cls = sim__sand_el[CELL_EL(c)].cls;
    if (cls == C_STATIC && (CELL_FLAGS(c) & SAND_F_LOOSE)) return C_POWDER;
    return cls;
}

/* Can a falling cell of class `cls` and density `d` enter target t (by swapping)? */
static inline int can_sink(int cls, int d, uint32_t t)
{
    int te = CELL_EL(t);
    int tc = mover_class(t);
    if (tc == C_EMPTY || tc == C_GAS || tc == C_FIRE) return 1;
    if (tc == C_LIQUID)
        return sim__sand_el[te].density < d && (cls == C_POWDER || cls == C_LIQUID);
    return 0;
}

/* ---- the parts of the kind, one file each ----------------------------------------------------- */
/* step.c: advance one tick (emitters and drains, then the passes over the strips). */
void sim__sand_step(void *impl, const sim_ctx *ctx);
/* scenes.c: lay out a scene's cells (when `build`) and its emitters and drains (always); the
 * demo of a big world is big.c's. */
void sim__sand_scene_demo(sand_world *s, int build);
void sim__sand_add_emitter(sand_world *s, int x, int y, int w, int h, int el, int prob, int cycle,
                           int on, int phase);
void sim__sand_add_drain(sand_world *s, int x, int y, int w, int h);
void sim__sand_scene_bench(sand_world *s, uint64_t seed, int build);
/* The demo's plan (320×180 plan coordinates, position only), for the renderer: the top of the
 * rock at plan x, whether a position is carved out of the rock (a cave), whether wood there is
 * leaves. */
int sim__sand_demo_ground(int px);
int sim__sand_demo_cave(int px, int py);
int sim__sand_demo_leaf(int px, int py);
int sim__sand_demo_overhang(int px, int py);
/* render.c: the palette, shade noise and the per-position wall and air colours (at create time);
 * the frame. */
void sim__sand_render_init(sand_world *s);
void sim__sand_frame_size(const void *impl, int *w, int *h);
void sim__sand_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *f);
/* redraw.c: its memory (with the world's), and a frame drawn by p where it may have changed. */
int sim__sand_redraw_alloc(sand_world *s);          /* 0 or SIM_ENOMEM */
void sim__sand_redraw_free(sand_world *s);
void sim__sand_redraw(const sand_world *s, const sim_ctx *ctx, int view, sim_frame *f,
                      const sand_painter *p);
/* A box of cells changed (an input): the next render draws them (seen_px for each). */
void sim__sand_seen_box(sand_world *s, int x0, int y0, int x1, int y1);
/* state.c: save, load (validating every cell and rectangle) and the desync report. */
size_t sim__sand_save_max(const void *impl);
void sim__sand_save(const void *impl, sim_writer *wr);
int sim__sand_load(void *impl, sim_reader *rd);
long sim__sand_diff(const void *ia, const void *ib, sim_diff_out *o);
/* state.c: the hashed form of the state (version 3 on; docs/STATE.md), from the world (its
 * digests refreshed where hdirty says) and from a saved payload; the digests' memory. */
int sim__sand_digest_alloc(sand_world *s);         /* 0 or SIM_ENOMEM; every chunk stale */
void sim__sand_save_hashed(void *impl, sim_writer *wr);
int sim__sand_hashed_payload(const uint8_t *p, size_t n,
                             void (*put)(void *ud, const void *p, size_t n), void *ud);

#endif
