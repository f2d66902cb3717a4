/* sim_internal.h — shared by every file in sim/: compile-time determinism checks, the little-endian
 * state writer/reader, and small helpers. Not part of the public API (tests may use it). */
#ifndef VIVARIUM_SIM_INTERNAL_H
#define VIVARIUM_SIM_INTERNAL_H

#include "sim.h"
#include <float.h>
#include <string.h>

/* Floating point is allowed in the core only under rules that make it reproducible. */
#ifdef __FAST_MATH__
#error "sim/ must not be built with -ffast-math: it breaks bit-exact determinism"
#endif
_Static_assert(FLT_EVAL_METHOD == 0, "sim/ needs FLT_EVAL_METHOD == 0 (no excess precision)");
_Static_assert(sizeof(double) == 8 && sizeof(float) == 4, "IEEE 754 binary32/binary64 expected");

/* ---- state writer: little-endian, no padding. Stops writing (and flags) when full. ---------- *
 * Three modes, one set of calls (so a kind's save cannot tell them apart): into a buffer
 * (sim__w_init), counting only (sim__w_count: no bytes written, len is the size), and into a sink
 * (sim__w_sink: buf is a staging buffer handed to put() when full, and a run of bytes longer than
 * it goes to put() as it is, uncopied; sim__w_flush hands over the rest). */
struct sim_writer {
    uint8_t *buf;
    size_t cap, len;
    int overflow;
    void (*put)(void *ud, const void *p, size_t n);   /* sink mode */
    void *ud;
    size_t done;                      /* sink mode: bytes handed to put() so far */
};
static inline void sim__w_init(sim_writer *w, uint8_t *buf, size_t cap)
{
    w->buf = buf; w->cap = cap; w->len = 0; w->overflow = 0; w->put = NULL; w->ud = NULL; w->done = 0;
}
static inline void sim__w_count(sim_writer *w) { sim__w_init(w, NULL, SIZE_MAX); }
/* Does w only count (sim__w_count)? A writer that gathers its bytes first may then just say how
 * many there are: sim__w_bytes(w, NULL, n). */
static inline int sim__w_counting(const sim_writer *w) { return !w->buf && !w->put; }
static inline void sim__w_sink(sim_writer *w, uint8_t *stage, size_t cap,
                               void (*put)(void *ud, const void *p, size_t n), void *ud)
{
    sim__w_init(w, stage, cap);
    w->put = put;
    w->ud = ud;
}
void sim__w_flush(sim_writer *w);
void sim__w_bytes(sim_writer *w, const void *p, size_t n);
void sim__w_u8(sim_writer *w, uint8_t v);
void sim__w_u16(sim_writer *w, uint16_t v);
void sim__w_u32(sim_writer *w, uint32_t v);
void sim__w_u64(sim_writer *w, uint64_t v);
void sim__w_i32(sim_writer *w, int32_t v);
void sim__w_f64(sim_writer *w, double v);     /* asserts finite: NaN never enters a hash */
void sim__w_f32(sim_writer *w, float v);

/* ---- state reader: bounds-checked; any short read sets err and returns zeros. -------------- */
struct sim_reader {
    const uint8_t *buf;
    size_t len, pos;
    int err;                          /* 0, or the first SIM_E… met */
};
static inline void sim__r_init(sim_reader *r, const uint8_t *buf, size_t len)
{
    r->buf = buf; r->len = len; r->pos = 0; r->err = 0;
}
int sim__r_bytes(sim_reader *r, void *p, size_t n);
uint8_t sim__r_u8(sim_reader *r);
uint16_t sim__r_u16(sim_reader *r);
uint32_t sim__r_u32(sim_reader *r);
uint64_t sim__r_u64(sim_reader *r);
int32_t sim__r_i32(sim_reader *r);
double sim__r_f64(sim_reader *r);             /* non-finite values set SIM_ECORRUPT */
float sim__r_f32(sim_reader *r);
static inline void sim__r_fail(sim_reader *r, int err)
{
    if (!r->err) r->err = err;
}

/* Wind for the environment pieces (sim/anim/grass.c, sim/anim/particles.c, sim/anim/cloth.c;
 * seed 000 §5): an integer from −SIM_WIND_MAX (a gale blowing left) through 0 (calm) to
 * SIM_WIND_MAX (a gale blowing right), the quantised value a world's wind input sets. Each piece
 * clamps it. */
#define SIM_WIND_MAX 100

/* snprintf-free message formatting for the core (no stdio in sim/): %s, %d, %u, %lld only. */
void sim__fmt(char *dst, size_t cap, const char *fmt, ...);

/* A PCG32 stream as state: u64 state, u64 increment; the reader refuses an even increment. */
void sim__w_rng(sim_writer *w, const sim_rng *r);
void sim__r_rng(sim_reader *r, sim_rng *rng);

/* For desync reports (a kind's diff): a double as text, six decimals and the exact bits,
 * "12.345678 (0x4028b0fcd32f707a)"; and one line "what: a → b" when two values differ (doubles
 * compared bit for bit), returning 1 if it wrote one, else 0. */
void sim__fmt_double(char *dst, size_t cap, double v);
long sim__diff_int(sim_diff_out *o, const char *what, long long a, long long b);
long sim__diff_f64(sim_diff_out *o, const char *what, double a, double b);

/* Run fn over the items [0, count) of one pass: through the host's task system when it has more
 * than one worker (enqueue, then finish), else inline as one range on the caller (worker 0).
 * Returns when every item is done. */
void sim__tasks_run(const sim_tasks *t, sim_task_fn *fn, int count, int min_range, void *task_ctx);

/* The kind's own state, for tests that inspect a world from inside. */
void *sim__world_impl(sim_world *w);

/* The registered kinds: one `sim__kind_<name>` per line of kinds.h, defined in sim/<name>/. */
#define SIM_KIND(name) extern const sim_kind sim__kind_##name;
#include "kinds.h"
#undef SIM_KIND

#endif
