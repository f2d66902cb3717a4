/* sim.h — the deterministic core of Vivarium.
 *
 * A world is a pure function of (kind, seed, params, input log). Everything in sim/ is C11 + libc
 * + xxhash: no clock, no stdio, no threads, no globals, no libm transcendentals. State is data:
 * sim_world_save() writes every field little-endian with no padding, and the state hash is
 * XXH3-64 over exactly those bytes. Frames are data too: sim_world_render() fills a palette-index
 * frame whose hash covers (w, h, palette, pixels).
 *
 * Errors: functions return 0 or a negative SIM_E… code; sim_strerror() names it (it names every
 * folder's codes: errors.h), and the world (or the caller's error buffer) holds a sentence saying
 * what was wrong. */
#ifndef VIVARIUM_SIM_H
#define VIVARIUM_SIM_H

#include <stddef.h>
#include <stdint.h>

#define SIM_VERSION "0.3.0"  /* recorded in replay files; bump when any world's behaviour changes
                                (0.2.0: the terrarium's fixed foot lead, issue 16, and its
                                capsule rule, issue 17; sand's strip passes, issue 17;
                                0.3.0: issue 27 — the terrarium's hunts, openings, homage view
                                and dolls, the merge carrier's lean sets, arms and toss, the
                                garden as a picture, Canvas Cycle's timing for its scenes) */

/* ---- errors ----------------------------------------------------------------------------------
 * One space for every folder: the codes and their sentences are the one list of errors.h, each
 * folder in a range of its own (sim/ -1..-99, server/ -101..-199, replay/ -201..-299, wire/
 * -301..-399, clients/ -401..-499), so that a code means one thing wherever it travels. */
enum {
    SIM_OK = 0,
#define SIM_ERROR_RANGE(first, last, prefix)
#define SIM_ERROR(name, value, sentence) name = value,
#include "errors.h"
#undef SIM_ERROR
#undef SIM_ERROR_RANGE
};
/* A short fixed sentence for any code of errors.h, of whichever folder ("out of memory" for
 * SIM_ENOMEM, "not a usable replay file" for RPL_EFILE): "ok" for 0, "unknown error" for a
 * value that is no code. Never NULL. (errors.c) */
const char *sim_strerror(int err);

/* ---- frames and palettes --------------------------------------------------------------------- */
#define SIM_PALETTE_MAX 256
typedef struct sim_palette {
    uint32_t version;                  /* changes whenever the colours change */
    uint16_t count;                    /* entries in use, 1..256 */
    uint8_t rgb[SIM_PALETTE_MAX * 3];
} sim_palette;

typedef struct sim_frame {
    uint16_t w, h;
    uint8_t *px;                       /* w*h palette indexes, row-major, owned by the frame */
    sim_palette pal;
    /* What drew px last, for a renderer that redraws only what changed since its last frame
     * (sand's): an opaque mark it leaves here and looks for next time, never part of the frame's
     * hash. 0 is no one: sim_frame_init sets it, sim_world_render resets it after a kind that
     * leaves none, and anything else that writes px must too. */
    uint64_t drawn;
} sim_frame;

int sim_frame_init(sim_frame *f, int w, int h);   /* allocates; 0 or SIM_EINVAL/SIM_ENOMEM */
void sim_frame_free(sim_frame *f);
/* XXH3-64 over w, h, palette count (each u16 LE), the 3·count palette bytes, then the pixels. */
uint64_t sim_frame_hash(const sim_frame *f);
/* The hash sim_frame_hash gives the w × h rect of f at (x, y) as a frame of its own (f's
 * palette); the rect must lie inside f. */
uint64_t sim_frame_hash_rect(const sim_frame *f, int x, int y, int w, int h);

/* Raster primitives. All take integer pixel coordinates (snap with sim_snap first), clip to the
 * frame, write exactly one palette index per covered pixel, and never anti-alias. */
int sim_snap(double v);                                   /* round half up: floor(v + 0.5) */
void sim_raster_clear(sim_frame *f, uint8_t c);
void sim_raster_rect(sim_frame *f, int x, int y, int w, int h, uint8_t c);
void sim_raster_line(sim_frame *f, int x0, int y0, int x1, int y1, uint8_t c);
void sim_raster_circle(sim_frame *f, int cx, int cy, int r, uint8_t c);      /* filled disc */
void sim_raster_ring(sim_frame *f, int cx, int cy, int r, uint8_t c);        /* outline */
/* Tapered capsule: the discs swept along a–b, the one at a + t·(b − a) covering the pixel centres
 * within squared distance T0 + (T1 − T0)·t, Ti = floor(ri² + ri) (exact integers; sim/raster.c). */
void sim_raster_capsule(sim_frame *f, int x0, int y0, int x1, int y1, double r0, double r1,
                        uint8_t c);
/* Polygon fill, even-odd rule, sampled at pixel centres. n ≥ 3, xy holds n (x, y) pairs. */
void sim_raster_polygon(sim_frame *f, const int *xy, int n, uint8_t c);

typedef struct sim_sprite {
    uint16_t w, h;
    const uint8_t *px;                 /* w*h indexes */
    int16_t key;                       /* transparent index, or -1 for none */
} sim_sprite;
enum { SIM_BLIT_FLIPX = 1, SIM_BLIT_FLIPY = 2 };
void sim_raster_blit(sim_frame *f, const sim_sprite *s, int x, int y, unsigned flags);

/* ---- randomness ------------------------------------------------------------------------------ */
typedef struct sim_rng { uint64_t state, inc; } sim_rng;       /* PCG32 (XSH-RR 64/32) */
uint64_t sim_splitmix64(uint64_t *x);
void sim_rng_seed(sim_rng *r, uint64_t initstate, uint64_t initseq);    /* pcg32_srandom_r */
void sim_rng_stream(sim_rng *r, uint64_t seed, const char *name);       /* (seed, name) stream */
uint32_t sim_rng_next(sim_rng *r);
uint32_t sim_rng_below(sim_rng *r, uint32_t bound);                    /* uniform in [0, bound) */
int32_t sim_rng_range(sim_rng *r, int32_t lo, int32_t hi);              /* uniform in [lo, hi] */
double sim_rng_unit(sim_rng *r);                                        /* [0, 1), 32-bit steps */
/* Counter-based hash for per-cell decisions: a pure function of (seed, tick, x, y, salt), so a
 * result never depends on scan order or thread count. sim_hash_tick() is the per-tick part, so a
 * hot loop pays for it once: sim_hash_cell(s,t,x,y,k) == sim_hash_at(sim_hash_tick(s,t),x,y,k). */
static inline uint64_t sim_mix64(uint64_t k)          /* MurmurHash3's fmix64 finaliser */
{
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}
static inline uint64_t sim_hash_tick(uint64_t seed, uint64_t tick)
{
    return sim_mix64(seed ^ sim_mix64(tick + 0x9e3779b97f4a7c15ULL));
}
static inline uint32_t sim_hash_at(uint64_t tickbase, int32_t x, int32_t y, uint32_t salt)
{
    uint64_t key = (uint64_t)(uint32_t)x | ((uint64_t)(uint32_t)y << 32);
    return (uint32_t)(sim_mix64(tickbase + key * 0x9e3779b97f4a7c15ULL
                                + (uint64_t)salt * 0xc2b2ae3d27d4eb4fULL) >> 32);
}
uint32_t sim_hash_cell(uint64_t seed, uint64_t tick, int32_t x, int32_t y, uint32_t salt);

/* ---- deterministic math (dmath.c) ------------------------------------------------------------ */
/* Built only from + − × ÷ and sqrt, so results are bit-identical on every IEEE 754 machine. */
#define SIM_PI 3.14159265358979323846
double sim_sin(double x);
double sim_cos(double x);
double sim_atan2(double y, double x);
double sim_acos(double x);
double sim_exp(double x);
double sim_sqrt(double x);
double sim_cbrt(double x);                  /* within 0.51 ulp; OKLab (sim/anim/inks.c) */
double sim_floor(double x);
int sim_isfinite(double x);

/* ---- worlds ---------------------------------------------------------------------------------- */
#define SIM_INPUT_MAX_ARGS 8
#define SIM_PARAMS_MAX 256            /* canonical params text, including the NUL */

/* One input: a fixed-size record of integers. It is applied before tick `tick` is stepped, in
 * (client, seq) order among the inputs of that tick. Floats never come in: quantise at the edge. */
/* The most inputs one tick of one world may hold (all clients together). A world refuses the next
 * one with SIM_EFULL; every consumer of a tick's inputs (the recorder, the verifier) sizes its
 * buffers from this, so that no input can leave the log silently. */
#define SIM_TICK_INPUTS_MAX 1024

typedef struct sim_input {
    uint64_t tick;
    uint32_t client;
    uint32_t seq;
    uint16_t kind;                    /* index into the world kind's input table */
    uint16_t nargs;
    int32_t args[SIM_INPUT_MAX_ARGS];
} sim_input;

typedef struct sim_arg_desc {
    const char *name;
    int32_t min, max;                 /* inclusive range checked before the world sees it */
    const char *enum_name;            /* names map for this argument (e.g. "element"), or NULL */
} sim_arg_desc;

typedef struct sim_input_desc {
    const char *name;
    int nargs;
    sim_arg_desc args[SIM_INPUT_MAX_ARGS];
    const char *help;
} sim_input_desc;

typedef struct sim_enum_desc {
    const char *name;                 /* "element" */
    int count;
    const char *const *values;        /* value i is named values[i] */
} sim_enum_desc;

enum { SIM_PARAM_INT, SIM_PARAM_ENUM, SIM_PARAM_STR };
typedef struct sim_param_desc {
    const char *name;
    int type;
    int64_t def, min, max;            /* INT: default and range; ENUM: default index */
    const char *const *choices;       /* ENUM: NULL-terminated */
    const char *def_str;              /* STR: default */
    const char *help;
} sim_param_desc;

/* Reading the file a world is built from (cycle's scene=file:PATH). The core never touches the
 * filesystem: a program that creates worlds from files passes a reader in sim_config. read returns
 * 0 with a malloc'd buffer in *data (the world frees it) and its length, or any negative value
 * with a sentence in err (the reader's own code, never passed on: replay's rpl_files gives
 * RPL_EREAD or RPL_ENOMEM). Either failure, or no reader, and the world fails to create with
 * SIM_EFILE, the reader's sentence in its own. */
typedef struct sim_file_reader {
    int (*read)(void *ud, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);
    void *ud;
} sim_file_reader;

#define SIM_MAX_PARAMS 16
#define SIM_PARAM_STR_MAX 200
typedef struct sim_params {
    int64_t ival[SIM_MAX_PARAMS];                   /* INT value, or ENUM index */
    char sval[SIM_MAX_PARAMS][SIM_PARAM_STR_MAX];   /* STR value (and the text of every param) */
    const sim_file_reader *files;                   /* from sim_config; NULL: no file access */
} sim_params;

typedef struct sim_writer sim_writer;
/* A desync report under construction: text lines, capped. */
typedef struct sim_diff_out {
    char *buf;
    size_t cap, len;
    long lines, max_lines;            /* lines past max_lines are counted, not written */
} sim_diff_out;
void sim_diff_line(sim_diff_out *o, const char *fmt, ...);   /* %s %d %u %lld %llu %c */
typedef struct sim_reader sim_reader;
typedef struct sim_kind sim_kind;

/* ---- parallel passes: tasks the host runs (Box2D v3's enqueueTask / finishTask) -------------- *
 * sim/ never starts a thread. A kind whose step can run in parallel cuts it into passes, and each
 * pass into items that may run in any order and at the same time (for sand: the strips of one
 * phase, docs/sand.md). It hands each pass to the host's task system, which runs fn over every
 * item of [0, count) on whatever threads it owns, in ranges of at least min_range items, then
 * returns from finish once all of them are done. The result never depends on how the items are
 * spread over threads, nor on their order: a kind only cuts a pass where that is proven.
 *
 * worker is the index of the thread running a range, in [0, workers): two ranges that run at the
 * same time for one world never share it, so a kind may keep per-worker scratch (sized at create
 * for SIM_WORKERS_MAX). enqueue may run the task itself, serially, and return NULL: then finish
 * is not called. enqueue and finish are called from the thread that steps the world, never
 * concurrently for one world; they must not fail, and the items must not allocate. */
#define SIM_WORKERS_MAX 64
typedef void sim_task_fn(int start, int end, int worker, void *task_ctx);

/* A pass whose items are ordered by what they share (for sand: the strips of a whole tick, each
 * after the neighbours it overlaps that come before it in the phase order). Item i may start once
 * ndeps[i] items are done: those that list i among their successors, succ[succ_first[j] ..
 * succ_first[j + 1]) for item j. The graph has no cycle, and every order that respects it gives
 * the same result. Items are numbered in the order of the memory they touch, so a runner that
 * keeps each worker near its own end of the numbers keeps each worker's memory near it. */
typedef struct sim_graph {
    int count;                        /* items [0, count) */
    const int *ndeps;
    const int *succ_first;            /* count + 1 entries */
    const int *succ;
} sim_graph;

typedef struct sim_tasks {
    int workers;                      /* threads that may run items at once, caller included */
    void *(*enqueue)(sim_task_fn *fn, int count, int min_range, void *task_ctx, void *user);
    void (*finish)(void *task, void *user);
    /* Optional (NULL: the kind runs its passes through enqueue instead): run fn on every item of
     * g, one item at a time (start + 1 == end), each only after its predecessors are done, and
     * return 0 once all are done. Or run none of them and return -1 (busy, say): the kind then
     * runs the same work its other way. Called like enqueue, from the stepping thread. */
    int (*run_graph)(sim_task_fn *fn, const sim_graph *g, void *task_ctx, void *user);
    void *user;                       /* the host's pool, given back to enqueue and finish */
} sim_tasks;

/* ---- events: what happened in a step, as data ------------------------------------------------ *
 * A world may report the notable events of a step — a brain's change of mind, a merge, a poke —
 * as a frame reports its picture: a pure function of the state and the inputs, never of a clock
 * or a thread, and not part of the state (they are not saved, and not in the state hash). A kind
 * adds them with sim_event_add while it applies inputs or steps, from the stepping thread only
 * (never from a parallel pass); the host reads them after the step with sim_world_events. Names,
 * keys and string values are static strings of the kind (its tables), never built text. */
#define SIM_EVENT_FIELDS 6            /* key=value pairs of one event */
#define SIM_EVENTS_MAX 64             /* events of one step; more are counted, not kept */
typedef struct sim_event_field {
    const char *key;
    const char *str;                  /* a static string value, or NULL: the value is num */
    int64_t num;
} sim_event_field;
typedef struct sim_event {
    uint64_t tick;                    /* the tick whose step (or inputs) made it */
    const char *name;                 /* "brain", "merge", "poke", … */
    int nfields;
    sim_event_field f[SIM_EVENT_FIELDS];
} sim_event;
typedef struct sim_events {
    sim_event ev[SIM_EVENTS_MAX];
    int n;
    uint32_t dropped;                 /* events of this step past SIM_EVENTS_MAX */
} sim_events;

/* What a kind sees of the world around it while stepping or applying an input. */
typedef struct sim_ctx {
    uint64_t seed;
    uint64_t tick;                    /* the tick being stepped (inputs: the tick they apply at) */
    const sim_tasks *tasks;           /* step and render: the host's task system, or NULL (run
                                         inline) */
    sim_events *events;               /* where this step's events go (NULL: render, nobody hears) */
    struct sim_world *phases;         /* step only: the world whose phase hook is on, else NULL
                                         (sim_phase_end; world.c's business, never a kind's) */
} sim_ctx;

/* ---- phase hashes: where in a step two runs part (desync forensics, docs/REPLAY.md) ---------- *
 * A host may ask for the state hash after each phase of a step: the inputs applied, then the
 * kind's own phases (sand's strip phases, the terrarium's brains, pushes, solver and limbs), each
 * named by a static string. The hash is sim_world_hash's of the state as it stands between two
 * passes (from the stepping thread, never inside a parallel pass). It is an observation only: not
 * part of the state, the state hash, a saved blob or a golden chain, and the result of a step is
 * the same with the hook on or off. Off (the default) it costs one pointer test per phase. */
typedef struct sim_phase_hook {
    /* index counts the phases of this step from 0; tick is the tick being stepped. */
    void (*fn)(void *user, uint64_t tick, int index, const char *phase, uint64_t hash);
    void *user;
} sim_phase_hook;
void sim__phase_mark(const sim_ctx *ctx, const char *name);
/* In a kind's step, between passes: the phase `name` is done. Nothing unless a hook is on. */
static inline void sim_phase_end(const sim_ctx *ctx, const char *name)
{
    if (ctx->phases) sim__phase_mark(ctx, name);
}

/* A new event of the step ctx is running, named name (static), with no fields yet: NULL when
 * nobody listens or the step already holds SIM_EVENTS_MAX (then it is counted as dropped). */
sim_event *sim_event_add(const sim_ctx *ctx, const char *name);
/* Add a field to e (NULL: does nothing, so that a dropped event needs no test); a field past
 * SIM_EVENT_FIELDS is ignored (a kind's own mistake, which its tests catch). */
void sim_event_num(sim_event *e, const char *key, int64_t v);
void sim_event_str(sim_event *e, const char *key, const char *v);

/* The world vtable. One per kind, registered in world.c's table. Capacities are fixed at create;
 * step, apply_input, render and save never allocate. */
struct sim_kind {
    const char *name;
    uint16_t id;                      /* stable: stored in saved states and replay files */
    uint16_t hz;                      /* ticks per second */
    uint32_t state_version;           /* bump when the saved layout (or its hash) changes */
    uint32_t state_version_min;       /* the oldest version load still reads (0: state_version
                                         only); a world loaded from an older one saves and
                                         hashes as that version (sim_world_state_version) */
    const sim_param_desc *params;
    int nparams;
    const sim_input_desc *inputs;
    int ninputs;
    const sim_enum_desc *enums;
    int nenums;
    const char *const *views;         /* views[0] is the normal picture */
    int nviews;
    /* bare != 0: allocate for these params but do not build a scene (a load follows). bare == 2:
     * the world is only loaded, saved, hashed, compared (and perhaps stepped), never rendered, so
     * what only render needs may be skipped (the merge world's art). */
    int (*create)(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                  size_t errlen);
    void (*destroy)(void *impl);
    /* Range and sanity checks beyond the table's; must not change anything. */
    int (*check_input)(const void *impl, const sim_input *in, char *err, size_t errlen);
    void (*apply_input)(void *impl, const sim_ctx *ctx, const sim_input *in);
    void (*step)(void *impl, const sim_ctx *ctx);
    void (*frame_size)(const void *impl, int *w, int *h);
    void (*render)(const void *impl, const sim_ctx *ctx, int view, sim_frame *out);
    size_t (*save_max)(const void *impl);
    void (*save)(const void *impl, sim_writer *wr);
    int (*load)(void *impl, sim_reader *rd);        /* into a bare impl; errors leave it junk */
    /* Describe how two loaded states of this kind differ, field by field, appending lines to out
     * (sim_diff_line). Returns the number of differing fields found. For desync reports. */
    long (*diff)(const void *a, const void *b, sim_diff_out *out);
    /* Optional. What a world derives at create for render alone and never saves (the merge
     * world's art: a pure function of nothing, costly to build) moves from the impl a load
     * replaces (from) to the one it loaded (to), so a load does not build it again: with adopt
     * set, sim_world_load creates its scratch impl with bare = 2 and, once the load has
     * succeeded, calls adopt before destroying the old impl. Only for what the params do not
     * change, since a load may bring other params (or adopt builds it when they differ: the
     * sand world's picture). NULL: every load creates with bare = 1. */
    void (*adopt)(void *to, void *from);
    /* Optional: a state hash whose cost follows what changed. States of version hashed_from or
     * later hash as XXH3-64 of the saved bytes with the payload in its hashed form: save_hashed
     * writes it from a world (it may update caches in the impl: never called from two threads
     * at once), hashed_payload from a saved payload (p, n), handing it to put; 0, or -1 when the
     * payload is malformed. NULL (or an older version): the saved bytes themselves. */
    uint32_t hashed_from;
    void (*save_hashed)(void *impl, sim_writer *wr);
    int (*hashed_payload)(const uint8_t *p, size_t n, void (*put)(void *ud, const void *p, size_t n),
                          void *ud);
};

int sim_kind_count(void);
const sim_kind *sim_kind_at(int i);
const sim_kind *sim_kind_find(const char *name);
const sim_kind *sim_kind_by_id(uint16_t id);
int sim_kind_input_find(const sim_kind *k, const char *name);            /* index or -1 */
const sim_enum_desc *sim_kind_enum_find(const sim_kind *k, const char *name);
int sim_kind_view_find(const sim_kind *k, const char *name);             /* index or -1 */
/* Parse `key=value,…` against the kind's table and write the canonical text (every param, in
 * table order). 0, or SIM_EPARAM with a sentence in err. */
int sim_params_parse(const sim_kind *k, const char *text, sim_params *out, char *canon,
                     size_t canonlen, char *err, size_t errlen);

typedef struct sim_config {
    const char *kind;                 /* "sand", … */
    uint64_t seed;
    const char *params;               /* key=value text, NULL or "" for defaults */
    char *err;                        /* optional: receives a sentence when create fails */
    size_t errlen;
    const sim_file_reader *files;     /* optional: lets a world read the file it is built from */
    int bare;                         /* 1: an empty shell for sim_world_load to fill: no scene is
                                         built and no file is read (replay, desync reports);
                                         2: the same for a world that is never rendered (its
                                         frames are blank): sim_state_diff's */
    const sim_tasks *tasks;           /* optional: the host's task system for parallel passes
                                         (copied; its user must outlive the world). NULL or
                                         workers <= 1: every pass runs inline on the caller */
} sim_config;
sim_config sim_config_default(void);

typedef struct sim_world sim_world;

sim_world *sim_world_create(const sim_config *cfg, int *err);
void sim_world_destroy(sim_world *w);
const sim_kind *sim_world_kind(const sim_world *w);
uint64_t sim_world_seed(const sim_world *w);
const char *sim_world_params(const sim_world *w);   /* canonical text */
uint64_t sim_world_tick(const sim_world *w);        /* ticks stepped so far = the next tick */
/* Validate and queue an input for tick sim_world_tick(w). Nothing is applied until step. */
int sim_world_input(sim_world *w, const sim_input *in);
/* Validation only: what sim_world_input would say about the input's kind and arguments, for any
 * tick, with no change to the world. */
int sim_world_check_input(const sim_world *w, const sim_input *in);
const char *sim_world_error(const sim_world *w);   /* sentence for the last failed call */
/* Apply the queued inputs, then advance one tick, running the kind's passes through the world's
 * task system (sim_world_set_tasks) if it has one. The result is the same with any task system
 * and any number of workers: the task system is not part of the state, the hash or a recording. */
void sim_world_step(sim_world *w);
/* Give the world a task system for its parallel passes (copied), or NULL to run them inline. It
 * survives sim_world_load. Call it between steps only. */
void sim_world_set_tasks(sim_world *w, const sim_tasks *t);
/* Call h->fn after each phase of every following step (copied), or stop with NULL. Like the task
 * system it is not part of the state and survives sim_world_load. Between steps only. */
void sim_world_set_phases(sim_world *w, const sim_phase_hook *h);
/* The inputs the last sim_world_step applied, in the order it applied them ((client, seq)), at
 * most SIM_TICK_INPUTS_MAX: what a recorder logs for that tick. *out stays valid until the next
 * step, load or destroy. 0 after create and after a load. */
size_t sim_world_applied(const sim_world *w, const sim_input **out);
/* The events of the last step, in the order they happened (*out valid until the next step or
 * load); the count. A world just created or loaded has none. *dropped (may be NULL): how many
 * more that step had than SIM_EVENTS_MAX. */
int sim_world_events(const sim_world *w, const sim_event **out, uint32_t *dropped);
void sim_world_frame_size(const sim_world *w, int *fw, int *fh);
int sim_world_frame_init(const sim_world *w, sim_frame *f);       /* sized for this world */
void sim_world_render(const sim_world *w, int view, sim_frame *out);
size_t sim_world_save_max(const sim_world *w);
size_t sim_world_save(const sim_world *w, uint8_t *buf, size_t cap);   /* bytes, or 0 if cap short */
/* The same bytes handed to put() in order, in pieces, instead of copied into one buffer (a big
 * run, such as a sand world's cells, as it lies in memory): for hashing a big state without the
 * copy. The length, or 0 where sim_world_save would fail (then put() was never called). */
size_t sim_world_save_stream(const sim_world *w, void (*put)(void *ud, const void *p, size_t n), void *ud);
/* sim_world_hash streams states whose save_max is at least this; copies smaller ones. */
#define SIM_HASH_STREAM_MIN ((size_t)256 * 1024)
/* Replace w's whole state (seed, params and tick included) from a saved blob of the same kind.
 * On any error w is left exactly as it was. */
int sim_world_load(sim_world *w, const uint8_t *buf, size_t len);
/* The state hash (docs/STATE.md): XXH3-64 of the saved bytes, or of their hashed form for a
 * kind and state version that has one (a sand world's chunk digests). Not for two threads at once
 * on one world (it may refresh the kind's caches); it may run beside a render. */
uint64_t sim_world_hash(const sim_world *w);
/* The same bytes as sim_world_save_stream, in their hashed form: what sim_world_hash hashes. */
size_t sim_world_hash_stream(const sim_world *w, void (*put)(void *ud, const void *p, size_t n), void *ud);
/* 1 when the state hash is XXH3-64 of the saved bytes themselves (no hashed form). */
int sim_world_hash_is_saved(const sim_world *w);
/* The state version w saves and hashes as: its kind's latest, or that of the state it loaded. */
uint32_t sim_world_state_version(const sim_world *w);
/* Save and hash w as state version v from now on (a version its kind reads); 0 or SIM_EVERSION.
 * For comparing a new world with a state an older build saved (verify's tick 0). */
int sim_world_set_state_version(sim_world *w, uint32_t v);
/* The state hash of a saved blob, as sim_world_hash gives it for the world the blob holds,
 * without a world. A blob that does not parse hashes as its bytes. */
uint64_t sim_state_hash(const uint8_t *buf, size_t len);
/* A saved blob's state version, or 0 if it has no valid header. */
uint32_t sim_state_version(const uint8_t *buf, size_t len);
/* Field-by-field comparison of two saved states of the same kind (a desync report): writes up to
 * max_lines lines such as `cell (12,40): sand → water` into out (NUL-terminated, truncated to
 * cap) and returns the number of differences, 0 if the states are equal, or a negative SIM_E…
 * if either blob does not load. */
long sim_state_diff(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, char *out,
                    size_t cap, long max_lines);
/* Peek at a saved blob's header without a world: kind id, seed, tick, params. */
int sim_state_peek(const uint8_t *buf, size_t len, uint16_t *kind_id, uint64_t *seed,
                   uint64_t *tick, char *params, size_t paramslen);

/* Build an input from words: kind name then integer (or enum-name) args. 0, or SIM_EINPUT with a
 * sentence in err. Used by the inputs-file parser and the wire decoder alike. */
int sim_input_from_words(const sim_kind *k, const char *const *words, int nwords, sim_input *out,
                         char *err, size_t errlen);
/* Parse one inputs-file line: `<tick> <kind> <args…>`. Blank lines and `#` comments give 1 (no
 * input); 0 on success; SIM_EINPUT with a sentence on error. */
int sim_input_parse_line(const sim_kind *k, const char *line, sim_input *out, char *err,
                         size_t errlen);

#endif
