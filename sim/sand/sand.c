/* sand.c — the falling-sand world kind: a cellular automaton in the manner of Noita and The Powder
 * Toy, deterministic to the bit (seed 000, section 5).
 *
 * The grid is one uint32 per cell: element (bits 0–7), life (8–15), flags (16–23), and a 4-bit
 * signed velocity pair vx (24–27) and vy (28–31) for falling speed and explosion debris.
 *
 * Each tick runs over the awake chunks strip by strip (a strip is a column of chunks, the world's
 * full height): in each strip, bottom-up for falling matter (powders, liquids, and the static cells
 * that react), then top-down for rising matter (gases and fire), so that a column of sand or of
 * smoke moves as a whole instead of one cell a tick. The strips run in SAND_PHASES phases; the
 * strips of one phase are far enough apart never to touch the same cells (sand_int.h), so they may
 * run in any order or in parallel, through the host's task system (sim_tasks), with the same
 * result. The horizontal scan direction, and the order of the phases, alternate every tick. A cell
 * moves at most once a tick (a `moved` byte per cell, stamped with the tick and not
 * part of the state). Every random choice is the counter hash of (seed, tick, x, y, salt), so a
 * result never depends on which chunks happen to be awake, nor on which thread runs a strip.
 *
 * Chunks (16×16) each keep a dirty rectangle: what changed this tick, grown by one cell all round,
 * is what gets processed next tick. A chunk with an empty rectangle sleeps. The invariant that
 * makes sleeping exact: a cell that could change next tick is inside a rectangle — it moved, a
 * neighbour changed, or it declined a random action and so asked to stay awake. The rectangles
 * are part of the saved state.
 *
 * The kind is split by subject: sand_int.h (world struct, cells, inline helpers), elements.c,
 * chunks.c, step.c (rules and passes), scenes.c, render.c, state.c, and this file: params,
 * inputs, create and destroy, the vtable and the inspection helpers for tests. */
#include "big.h"
#include <assert.h>
#include <stdlib.h>

static const char *const scene_names[] = { "demo", "empty", "bench", NULL };

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
    { "element", SAND_NELEMENTS, sim__sand_element_names },
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
            uint32_t *cell = &s->cells[cidx(s, x, y)];
            uint32_t rr = sim_hash_at(base, x, y, 4 + in->kind);
            int e = CELL_EL(*cell);
            if (in->kind == IN_PAINT) {
                if (e == SAND_WALL && in->args[3] != SAND_WALL) continue;
                *cell = sim__sand_fresh(in->args[3], rr);
            } else if (in->kind == IN_ERASE) {
                *cell = 0;
            } else {
                /* Explode: flame in the empty heart, debris flung out and up from the centre. */
                int dx = x - cx, dy = y - cy;
                int cls = sim__sand_el[e].cls;
                if (e == SAND_EMPTY) {
                    if (4 * (dx * dx + dy * dy) <= r * r && (rr & 3u) == 0)
                        *cell = sim__sand_fresh(SAND_FIRE, rr >> 2);
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
    sim__sand_wake_box(s, x0 - 1, y0 - 1, x1 + 1, y1 + 1);
    sim__sand_seen_box(s, x0, y0, x1, y1);
}

/* ---- lifecycle, save, load -------------------------------------------------------------------- */
enum { P_W, P_H, P_SCENE };
static const sim_param_desc sand_params[] = {
    [P_W] = { "w", SIM_PARAM_INT, 320, 16, SAND_W_MAX, NULL, NULL, "width in cells (= frame pixels)" },
    [P_H] = { "h", SIM_PARAM_INT, 180, 16, SAND_H_MAX, NULL, NULL, "height in cells" },
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (runs for hours), empty, or bench" },
};

void *sim__sand_line_align(void *mem)
{
    return mem ? (char *)mem + (64 - (uintptr_t)mem % 64) % 64 : NULL;
}

static void sand_destroy(void *impl)
{
    sand_world *s = impl;
    if (!s) return;
    free(s->cells_mem);
    free(s->moved_mem);
    free(s->band);
    free(s->noise);
    free(s->wallpx);
    free(s->airpx);
    free(s->leafpx);
    free(s->col_above);
    free(s->col_top);
    sim__sand_big_destroy(s);
    sim__sand_redraw_free(s);
    free(s->rects_mem);
    free(s->digest);
    free(s->hdirty_mem);
    free(s->weight);
    free(s->order);
    free(s->gdeps);
    free(s->gsucc_first);
    free(s->gsucc);
    free(s);
}

static int sand_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                       size_t errlen)
{
    /* The pass layout rests on SAND_REACH (sand_int.h): a liquid spreading farther would break it. */
    for (int e = 0; e < SAND_NELEMENTS; e++) assert(sim__sand_el[e].spread <= SAND_REACH);
    sand_world *s = calloc(1, sizeof *s);
    if (!s) return SIM_ENOMEM;
    s->w = (int)p->ival[P_W];
    s->h = (int)p->ival[P_H];
    s->scene = (int)p->ival[P_SCENE];
    s->seed = seed;
    s->ncx = (s->w + SAND_CHUNK - 1) / SAND_CHUNK;
    s->ncy = (s->h + SAND_CHUNK - 1) / SAND_CHUNK;
    s->rstride = (s->ncy + 7) & ~7;                     /* 8 rectangles: a 64-byte line */
    s->cs = sim__sand_col_stride(s->h);
    size_t n = (size_t)s->w * (size_t)s->h, nch = (size_t)s->ncx * (size_t)s->rstride;
    size_t ncol = (size_t)s->w * (size_t)s->cs;          /* cells with each column's padding */
    s->cells_mem = calloc(ncol + 16, sizeof *s->cells);
    s->cells = sim__sand_line_align(s->cells_mem);
    s->moved_mem = calloc(ncol + 64, 1);
    s->moved = sim__sand_line_align(s->moved_mem);
    s->band = malloc(16 * SAND_BAND_STRIDE(s->w));
    s->noise = malloc(n);
    s->wallpx = malloc(n);
    s->airpx = malloc(n);
    s->leafpx = malloc(n);
    s->col_above = malloc((size_t)s->w);
    s->col_top = malloc((size_t)s->w * sizeof *s->col_top);
    int big = s->scene == SCENE_DEMO && sim__sand_is_big(s) ? sim__sand_big_alloc(s) : 0;
    /* cur and nxt in one block: nch rectangles are whole lines (rstride), so both start on one */
    s->rects_mem = malloc(2 * nch * sizeof *s->cur + 64);
    s->cur = sim__sand_line_align(s->rects_mem);
    s->nxt = s->cur ? s->cur + nch : NULL;
    int redraw = sim__sand_redraw_alloc(s);
    int digests = sim__sand_digest_alloc(s);
    s->weight = calloc((size_t)s->ncx, sizeof *s->weight);
    s->order = calloc((size_t)s->ncx, sizeof *s->order);
    s->gdeps = calloc((size_t)s->ncx, sizeof *s->gdeps);
    s->gsucc_first = calloc((size_t)s->ncx + 1, sizeof *s->gsucc_first);
    s->gsucc = calloc((size_t)s->ncx * 4, sizeof *s->gsucc);
    if (!s->cells || !s->moved || !s->band || !s->noise || !s->wallpx || !s->airpx || !s->leafpx || !s->col_above ||
        !s->col_top || big || redraw || digests || !s->cur ||
        !s->nxt || !s->weight || !s->order || !s->gdeps || !s->gsucc_first || !s->gsucc) {
        sand_destroy(s);
        sim__fmt(err, errlen, "sand: out of memory for a %dx%d world", (int)p->ival[P_W],
                 (int)p->ival[P_H]);
        return SIM_ENOMEM;
    }
    for (size_t k = 0; k < nch; k++) {
        rect_clear(&s->cur[k]);
        rect_clear(&s->nxt[k]);
    }
    if (bare != 2) sim__sand_render_init(s);     /* 2: never rendered, or adopts it (below) */
    if (s->scene == SCENE_DEMO) sim__sand_scene_demo(s, !bare);
    else if (s->scene == SCENE_BENCH) sim__sand_scene_bench(s, seed, !bare);
    if (!bare) sim__sand_wake_box(s, 0, 0, s->w - 1, s->h - 1);   /* everything gets a first look */
    *impl = s;
    return 0;
}

/* What render_init builds depends on the size and the scene alone (and the seed, for a big
 * demo: its layout): take it from the world a load replaces when they match (a replay's every
 * span), else build it. */
static void sand_adopt(void *to, void *from)
{
    sand_world *t = to, *f = from;
    if (t->w != f->w || t->h != f->h || t->scene != f->scene ||
        (t->scene == SCENE_DEMO && sim__sand_is_big(t) && t->seed != f->seed)) {
        sim__sand_render_init(t);
        return;
    }
    uint8_t *noise = t->noise, *wallpx = t->wallpx, *airpx = t->airpx, *leafpx = t->leafpx;
    t->noise = f->noise;
    t->wallpx = f->wallpx;
    t->airpx = f->airpx;
    t->leafpx = f->leafpx;
    f->noise = noise;
    f->wallpx = wallpx;
    f->airpx = airpx;
    f->leafpx = leafpx;
    memcpy(t->lut, f->lut, sizeof t->lut);
    t->pal = f->pal;
}

static int sand_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    (void)impl; (void)in; (void)err; (void)errlen;
    return 0;       /* the table's ranges say it all: radius ≤ 64, a known element */
}

static const char *const sand_views[] = { "normal" };

const sim_kind sim__kind_sand = {
    .name = "sand",
    .id = 1,
    .hz = 60,
    .state_version = 3,             /* 2: 16×16 chunks and the strip passes (issue 17); 3: the
                                       same bytes, hashed by chunk digests (issue 30) */
    .state_version_min = 2,
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
    .step = sim__sand_step,
    .frame_size = sim__sand_frame_size,
    .render = sim__sand_render,
    .save_max = sim__sand_save_max,
    .save = sim__sand_save,
    .load = sim__sand_load,
    .diff = sim__sand_diff,
    .adopt = sand_adopt,
    .hashed_from = 3,
    .save_hashed = sim__sand_save_hashed,
    .hashed_payload = sim__sand_hashed_payload,
};

/* ---- inspection for tests ------------------------------------------------------------------- */
int sand__element(const void *impl, int x, int y) { return CELL_EL(get(impl, x, y)); }
uint32_t sand__cell(const void *impl, int x, int y) { return get(impl, x, y); }
void sand__size(const void *impl, int *w, int *h) { sim__sand_frame_size(impl, w, h); }

int sand__count(const void *impl, int element)
{
    const sand_world *s = impl;
    int n = 0;
    for (int x = 0; x < s->w; x++)
        for (int y = 0; y < s->h; y++) n += CELL_EL(s->cells[cidx(s, x, y)]) == element;
    return n;
}
