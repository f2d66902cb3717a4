/* redraw.c — a frame drawn where it may have changed (issue 30, "cost follows change"; sand_int.h
 * and docs/sand.md, "Rendering follows change").
 *
 * The frame a render leaves is a function of the state and the tick, as ever: this only decides
 * which pixels to draw again, and the painter draws each as a whole frame draws it. A render may
 * draw less than the whole frame when the frame holds what this world drew last (the mark it left
 * in it, its pixels, size and view, the seed and palette), and so is out of date only
 *   - where a cell changed since (seen: every cell an input's box covers or the step marks), and
 *     what depends on it: the pixels above it the painter's `up` names (the demo's wood looks one
 *     cell down, falling water blurs up to four cells above it), and below it whatever the
 *     painter finds changed (the demo's depth under a surface: render.c follows it down);
 *   - where the tick moved a pixel on by itself (fire, lava, glints): movecols has which, and
 *     lowdue from when, pixel by pixel (every tick for a flicker; for caustics, when the one
 *     drifting over it arrives or leaves); a row is looked at from the first of its due ticks.
 * Anything else draws it all: the first render of a world (a load or a fork makes a new one),
 * another frame, a frame another world (or anyone else) drew into since, another size, view, seed
 * or palette, a tick earlier than the last. A render skipped for a while needs nothing: seen keeps
 * gathering until the next one. */
#include "sand_int.h"
#include <stdlib.h>

/* Scratch for n workers (r->nscr grows to n): 0, or SIM_ENOMEM (what there was is kept). */
static int scratch_for(const sand_world *s, int n)
{
    sand_redraw *r = s->rd;
    if (r->nscr >= n) return 0;
    sand_redraw_scratch *a = realloc(r->scr, (size_t)n * sizeof *a);
    if (!a) return SIM_ENOMEM;
    r->scr = a;
    for (; r->nscr < n; r->nscr++) {
        sand_redraw_scratch *c = &a[r->nscr];
        c->cols = calloc((size_t)s->h, sizeof *c->cols);
        c->chg = calloc((size_t)s->h, sizeof *c->chg);
        c->need = calloc((size_t)r->words, sizeof *c->need);
        c->painted = 0;
        if (!c->cols || !c->chg || !c->need) {
            free(c->cols);
            free(c->chg);
            free(c->need);
            return SIM_ENOMEM;
        }
    }
    return 0;
}

int sim__sand_redraw_alloc(sand_world *s)
{
    sand_redraw *r = s->rd = calloc(1, sizeof *s->rd);
    if (!r) return SIM_ENOMEM;
    r->words = ((s->h + 63) / 64 + 7) & ~7;
    r->cstride = (s->h + 31) & ~31;
    size_t rows = (size_t)s->ncx * (size_t)s->h, words = (size_t)s->ncx * (size_t)r->words;
    size_t cols = (size_t)s->ncx * (size_t)r->cstride;
    /* seencols, then seenrows: both whole lines a strip, so the second starts on one too */
    r->seen_mem = calloc(cols * sizeof *r->seencols + words * sizeof *r->seenrows + 64, 1);
    r->seencols = sim__sand_line_align(r->seen_mem);
    r->seenrows = r->seencols ? (uint64_t *)(void *)(r->seencols + cols) : NULL;
    r->moving = calloc(words, sizeof *r->moving);
    r->movecols = calloc(rows, sizeof *r->movecols);
    r->due = calloc(rows, sizeof *r->due);
    r->lowdue = calloc((size_t)s->w * (size_t)s->h, 1);
    if (s->scene == SCENE_DEMO) r->keys = calloc((size_t)s->w * (size_t)s->h, 1);
    int ok = r->seencols && r->seenrows && r->moving && r->movecols && r->due && r->lowdue &&
             scratch_for(s, 1) == 0;
    return ok && (r->keys || s->scene != SCENE_DEMO) ? 0 : SIM_ENOMEM;
}

void sim__sand_redraw_free(sand_world *s)
{
    if (!s->rd) return;
    free(s->rd->seen_mem);
    free(s->rd->moving);
    free(s->rd->movecols);
    free(s->rd->due);
    free(s->rd->lowdue);
    for (int i = 0; i < s->rd->nscr; i++) {
        free(s->rd->scr[i].cols);
        free(s->rd->scr[i].chg);
        free(s->rd->scr[i].need);
    }
    free(s->rd->scr);
    free(s->rd->keys);
    free(s->rd);
    s->rd = NULL;
}

/* Does f hold, to the pixel, what this world drew at its last render, for this view, seed and
 * palette, at a tick no later than now? */
static int holds_last(const sand_world *s, const sim_ctx *ctx, int view, const sim_frame *f)
{
    const sand_redraw *r = s->rd;
    return r->mark != 0 && f->drawn == r->mark && f->px == r->px && f->w == r->fw &&
           f->h == r->fh && view == r->view && ctx->seed == r->seed && ctx->tick >= r->tick &&
           s->pal.version == r->palver && s->pal.count == r->palcount;
}

/* The columns of strip k (x0 = k · SAND_CHUNK) as a set of bits: bit i for column x0 + i. */
static uint16_t strip_cols(const sand_world *s, int k)
{
    int n = s->w - k * SAND_CHUNK < SAND_CHUNK ? s->w - k * SAND_CHUNK : SAND_CHUNK;
    return (uint16_t)((1u << n) - 1);
}

int sim__sand_next_row(const uint64_t *need, int h, int y)
{
    while (y < h) {
        uint64_t word = need[y >> 6] >> (y & 63);
        if (!word) {
            y = (y | 63) + 1;           /* nothing more in this word */
            continue;
        }
        while (!(word & 1)) {
            word >>= 1;
            y++;
        }
        return y;
    }
    return h;
}

/* Columns `m` of row y are to be drawn. */
static inline void need_px(sand_redraw_scratch *r, int y, uint16_t m)
{
    r->cols[y] |= m;
    r->need[y >> 6] |= 1ull << (y & 63);
}

/* The tick a moving pixel is next drawn otherwise at, from the low byte lowdue keeps of it: one
 * after the last render's (that render drew every pixel due by then) and at most 256 ticks after
 * it (a pixel is due at most 255 ticks after it is drawn: the picture's slowest motion, the
 * caustics, 185; one due later reads back earlier, and is drawn again, as it was). */
static inline uint64_t due_of(const sand_redraw *r, uint8_t low)
{
    return r->tick + 1 + (uint8_t)(low - (uint8_t)(r->tick + 1));
}

/* Of the moving columns mc of a row whose due tick has come (low: the row's lowdue, from the
 * strip's first column), those due by tick; the first due of the others into *due. */
static uint16_t due_cols(const sand_redraw *r, const uint8_t *low, uint16_t mc, uint64_t tick,
                         uint64_t *due)
{
    uint16_t now = 0;
    uint64_t rest = UINT64_MAX;
    for (unsigned m = mc; m; m &= m - 1) {
        int i = __builtin_ctz(m);
        uint64_t d = due_of(r, low[i]);
        if (d <= tick) now |= (uint16_t)(1u << i);
        else if (d < rest) rest = d;
    }
    *due = rest;
    return now;
}

/* What to draw of strip k now, into the worker's scratch (w->cols and w->need): every cell seen
 * to change (which it forgets) and the pixels above it that may have changed with it (p->up); and
 * the pixels the tick has moved on since they were drawn (forgotten: they are noted afresh as
 * they are drawn). */
static void strip_need(const sand_world *s, const sand_painter *p, int k, uint64_t tick,
                       sand_redraw_scratch *w)
{
    sand_redraw *r = s->rd;
    uint64_t *sr = &r->seenrows[(size_t)k * (size_t)r->words];
    uint16_t *sc = &r->seencols[(size_t)k * (size_t)r->cstride];
    for (int y = sim__sand_next_row(sr, s->h, 0); y < s->h; y = sim__sand_next_row(sr, s->h, y + 1)) {
        need_px(w, y, sc[y]);
        w->chg[y] = sc[y];
        for (unsigned m = sc[y], i = 0; p->up && m; m >>= 1, i++) {
            if (!(m & 1u)) continue;
            int x = k * SAND_CHUNK + (int)i;
            for (int u = y - p->up(s, x, y); u < y; u++)
                if (u >= 0) need_px(w, u, (uint16_t)(1u << i));
        }
        sc[y] = 0;
    }
    memset(sr, 0, (size_t)r->words * sizeof *sr);
    uint64_t *mv = &r->moving[(size_t)k * (size_t)r->words];
    uint16_t *mc = &r->movecols[(size_t)k * (size_t)s->h];
    uint64_t *due = &r->due[(size_t)k * (size_t)s->h];
    for (int i = 0; i < r->words; i++)
        for (uint64_t m = mv[i]; m; m &= m - 1) {
            int y = i * 64 + __builtin_ctzll(m);
            if (mc[y] && due[y] > tick) continue;
            if (mc[y]) {
                const uint8_t *low = &r->lowdue[(size_t)y * (size_t)s->w + (size_t)k * SAND_CHUNK];
                uint16_t now = due_cols(r, low, mc[y], tick, &due[y]);
                if (now) need_px(w, y, now);
                mc[y] &= (uint16_t)~now;
            }
            if (!mc[y]) mv[i] &= ~(1ull << (y & 63));
        }
}

/* Draw what strip_need asked for in strip k, and empty the worker's scratch again. A row to be
 * drawn whole is forgotten first: the painter notes afresh which of its pixels move. */
static void strip_draw(const sand_world *s, const sim_ctx *ctx, sim_frame *f, const sand_painter *p,
                       int k, sand_redraw_scratch *w)
{
    sand_redraw *r = s->rd;
    int x0 = k * SAND_CHUNK, x1 = x0 + SAND_CHUNK - 1 < s->w ? x0 + SAND_CHUNK - 1 : s->w - 1;
    uint16_t all = strip_cols(s, k), *mc = &r->movecols[(size_t)k * (size_t)s->h];
    int first = sim__sand_next_row(w->need, s->h, 0);
    if (first == s->h) return;
    for (int y = first; y < s->h; y = sim__sand_next_row(w->need, s->h, y + 1))
        if (w->cols[y] == all) mc[y] = 0;
    w->painted += p->paint(s, ctx, f, x0, x1, w->cols, w->chg, w->need);
    for (int y = first; y < s->h; y = sim__sand_next_row(w->need, s->h, y + 1)) w->cols[y] = w->chg[y] = 0;
    memset(w->need, 0, (size_t)r->words * sizeof *w->need);
}

/* A render's strips, on the host's workers when it has them: each strip's pixels, notes, keys
 * and columns are its own (sand_painter), so which worker draws which changes no byte. */
typedef struct redraw_pass {
    const sand_world *s;
    const sim_ctx *ctx;
    sim_frame *f;
    const sand_painter *p;
    int whole;                      /* draw every pixel (nothing to go on), not by change */
} redraw_pass;

static void redraw_task(int start, int end, int worker, void *task_ctx)
{
    const redraw_pass *rp = task_ctx;
    const sand_world *s = rp->s;
    sand_redraw_scratch *w = &s->rd->scr[worker];
    if (rp->whole) {
        int x0 = start * SAND_CHUNK, x1 = end * SAND_CHUNK - 1 < s->w ? end * SAND_CHUNK - 1 : s->w - 1;
        w->painted += rp->p->paint(s, rp->ctx, rp->f, x0, x1, NULL, NULL, NULL);
        return;
    }
    for (int k = start; k < end; k++) {
        strip_need(s, rp->p, k, rp->ctx->tick, w);
        strip_draw(s, rp->ctx, rp->f, rp->p, k, w);
    }
}

/* A frame smaller than this is drawn on the calling thread: a render by change of it takes
 * microseconds, about what handing it to another core costs. */
#define REDRAW_PARALLEL_MIN_PX (512 * 512)

void sim__sand_redraw(const sand_world *s, const sim_ctx *ctx, int view, sim_frame *f,
                      const sand_painter *p)
{
    sand_redraw *r = s->rd;
    f->pal = s->pal;
    const sim_tasks *tk = (size_t)s->w * (size_t)s->h >= REDRAW_PARALLEL_MIN_PX ? ctx->tasks : NULL;
    /* Out of memory for the workers' scratch: drawn here, with the first one's. */
    if (tk && scratch_for(s, tk->workers) != 0) tk = NULL;
    for (int i = 0; i < r->nscr; i++) r->scr[i].painted = 0;
    redraw_pass rp = { s, ctx, f, p, !holds_last(s, ctx, view, f) };
    if (rp.whole) {
        memset(r->moving, 0, (size_t)s->ncx * (size_t)r->words * sizeof *r->moving);
        memset(r->movecols, 0, (size_t)s->ncx * (size_t)s->h * sizeof *r->movecols);
    }
    /* Strips in runs of a few side by side: a worker's pixels are rows of whole cache lines. */
    int run = tk ? s->ncx / (4 * tk->workers) : s->ncx;
    sim__tasks_run(tk, redraw_task, s->ncx, run < 1 ? 1 : run, &rp);
    if (rp.whole) {
        memset(r->seencols, 0, (size_t)s->ncx * (size_t)r->cstride * sizeof *r->seencols);
        memset(r->seenrows, 0, (size_t)s->ncx * (size_t)r->words * sizeof *r->seenrows);
    }
    r->painted = 0;
    for (int i = 0; i < r->nscr; i++) r->painted += r->scr[i].painted;
    /* The mark: this record's address (two live worlds never share one; never 0) above the count
     * of its renders, so that no frame another world drew carries it, nor one this world drew
     * before its last render (for 65,536 renders). Only ever compared: never part of a frame's
     * hash, a state or anything else that two runs must agree on. */
    r->count++;
    r->mark = ((uint64_t)(uintptr_t)r << 16) ^ (uint64_t)(r->count & 0xFFFFu);
    f->drawn = r->mark;
    r->px = f->px;
    r->fw = f->w;
    r->fh = f->h;
    r->view = view;
    r->seed = ctx->seed;
    r->tick = ctx->tick;
    r->palver = s->pal.version;
    r->palcount = s->pal.count;
}

uint64_t sand__painted(const void *impl) { return ((const sand_world *)impl)->rd->painted; }

int sand__render_workers(const void *impl)
{
    const sand_redraw *r = ((const sand_world *)impl)->rd;
    int n = 0;
    for (int i = 0; i < r->nscr; i++) n += r->scr[i].painted > 0;
    return n;
}

void sim__sand_seen_box(sand_world *s, int x0, int y0, int x1, int y1)
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= s->w) x1 = s->w - 1;
    if (y1 >= s->h) y1 = s->h - 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) seen_px(s, x, y);
}

void sim__sand_notes_put(const sand_world *s, row_notes *n)
{
    if (n->k >= 0 && (n->moving || n->still)) {
        sand_redraw *r = s->rd;
        size_t i = (size_t)n->k * (size_t)s->h + (size_t)n->y;
        uint16_t was = (uint16_t)(r->movecols[i] & ~n->still);
        if (n->moving && !was) {
            r->moving[(size_t)n->k * (size_t)r->words + (size_t)(n->y >> 6)] |= 1ull << (n->y & 63);
            r->due[i] = n->due;
        } else if (n->moving && n->due < r->due[i]) {
            r->due[i] = n->due;
        }
        r->movecols[i] = (uint16_t)(was | n->moving);
    }
    n->moving = n->still = 0;
    n->due = UINT64_MAX;
}
