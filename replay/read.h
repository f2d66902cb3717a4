/* read.h — reading and replaying a replay file (docs/REPLAY.md): sessions, checkpoints, the input
 * log, the recorded hashes and gaps, the plan a replay follows through them (read.c); verifying a
 * session bit-exactly (verify.c); exporting its frames as GIF or PNG (export.c). Nothing here
 * writes to the replay file. Bad rows are a negative RPL_E… code (replay.h; RPL_ECORRUPT for a
 * damaged row) and a sentence naming the session, the tick and what is wrong, never a crash.
 * A read that SQLite fails is RPL_EDB, an allocation that fails RPL_ENOMEM.
 *
 * An rpl_file's connection is single-threaded: callers that share one between threads hold their
 * own lock around every call here (verify.c does). */
#ifndef VIVARIUM_REPLAY_READ_H
#define VIVARIUM_REPLAY_READ_H
#include "replay.h"

/* ---- sessions ------------------------------------------------------------------------------------ */
typedef struct rpl_session_info {
    rpl_session s;
    uint64_t inputs;                   /* rows in `input` */
    uint64_t ticks;                    /* ticks with recorded hashes (tick rows, block ticks) */
    uint64_t checkpoints;
    uint64_t gaps, gap_ticks;          /* gap rows, and the ticks they cover */
} rpl_session_info;

/* Every session, in id order, with its counts. *out is malloc'd (free it); *n may be 0. */
int rpl_sessions_list(rpl_file *f, rpl_session_info **out, size_t *n, char *err, size_t errlen);
/* The newest max sessions (highest ids first), without counts, and how many the file holds in
 * *total: a listing that stays cheap however many sessions and rows a file has. *out malloc'd. */
int rpl_sessions_recent(rpl_file *f, size_t max, rpl_session **out, size_t *n, uint64_t *total,
                        char *err, size_t errlen);
/* One session. RPL_ENOSESSION with "session 3 not found in run.db (sessions: 1, 2)" if there is
 * none. */
int rpl_session_get(rpl_file *f, int64_t id, rpl_session *out, char *err, size_t errlen);
int rpl_session_info_get(rpl_file *f, int64_t id, rpl_session_info *out, char *err, size_t errlen);
/* The one session of a file that has exactly one; otherwise a sentence listing them and
 * RPL_ENOSESSION (it holds none) or RPL_EUSAGE (it holds several: the caller must pick one). */
int rpl_session_only(rpl_file *f, int64_t *id, char *err, size_t errlen);

/* The world kind a session needs, from this build's registry. NULL with a sentence if the kind id
 * is unknown here, names another kind, or the row is unusable (tick rate, tick range). When the
 * session was recorded by another sim version or at another tick rate, warn (if not NULL) gets a
 * sentence; otherwise warn is set to "". */
const sim_kind *rpl_session_kind(const rpl_file *f, const rpl_session *s, char *warn,
                                 size_t warnlen, char *err, size_t errlen);

/* The code for rpl_session_kind's NULL: RPL_EKIND when this build lacks the kind id, else the row
 * is unusable (RPL_ECORRUPT). */
static inline int rpl_kind_error(const rpl_session *s)
{
    return sim_kind_by_id(s->kind_id) ? RPL_ECORRUPT : RPL_EKIND;
}
/* A sim_world_create or sim_world_load failure as a replay code. */
static inline int rpl_sim_error(int sim_rc) { return sim_rc == SIM_ENOMEM ? RPL_ENOMEM : RPL_ESTATE; }

/* ---- checkpoints --------------------------------------------------------------------------------- */
typedef struct rpl_checkpoint {
    uint64_t tick;
    uint8_t *state;                    /* a saved world (docs/STATE.md), malloc'd */
    size_t len;
    uint64_t hash;                     /* its state hash (sim_state_hash), checked against the
                                          recorded one */
} rpl_checkpoint;

enum { RPL_AT_OR_BEFORE = -1, RPL_AT_OR_AFTER = 1 };
/* The checkpoint of session s nearest `tick` in direction dir. 0 found; 1 there is none;
 * RPL_ECORRUPT with a sentence: "checkpoint at tick T of session N is corrupted (…)" when its bytes
 * do not match their recorded hash or do not hold this session's world at that tick. */
int rpl_checkpoint_find(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                        rpl_checkpoint *out, char *err, size_t errlen);
/* The same, and the blob exactly as the file stores it (the saved state, or a zstd frame holding
 * it: docs/REPLAY.md) in *stored, malloc'd, *slen bytes, when stored is not NULL: checked as
 * rpl_checkpoint_find checks it, for a reader that hands it on as it is. Nothing is in *stored
 * unless the result is 0. */
int rpl_checkpoint_find_stored(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                               rpl_checkpoint *out, uint8_t **stored, size_t *slen, char *err,
                               size_t errlen);
void rpl_checkpoint_free(rpl_checkpoint *c);
/* The recorded state hash of the checkpoint at session s's last tick (end_tick: vivd's suspend
 * leaves one there), which verify takes as the confirmation of a recorded hash that is wrong at
 * that tick, nothing after it (a lone damaged row). 1 with *sh set when there is one and it checks
 * as rpl_checkpoint_find checks it; 0 when there is none, or it does not check (damage of its own,
 * found where a reader reads it). */
int rpl_end_checkpoint_hash(rpl_file *f, const rpl_session *s, uint64_t *sh);
/* The ticks of session s's checkpoints within [from, to], ascending. *out malloc'd. */
int rpl_checkpoint_ticks(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                         uint64_t **out, size_t *n, char *err, size_t errlen);

/* A world for session s (its kind, seed and params) holding checkpoint c's state. *w is reused
 * when not NULL (it must be of the session's kind), else created. 0, or with a sentence
 * RPL_EKIND (the kind is not in this build), RPL_ESTATE (no world, or it refuses the state) or
 * RPL_ENOMEM. */
int rpl_world_load(const rpl_session *s, const rpl_checkpoint *c, sim_world **w, char *err,
                   size_t errlen);

/* ---- the input log ------------------------------------------------------------------------------- */
/* A cursor over session inputs with from <= tick < to, in (tick, client, seq) order. Each row is
 * rebuilt as a sim_input (args: nargs × i32 LE, nargs <= 8) and checked with
 * sim_world_check_input(check, …) when check is not NULL. */
typedef struct rpl_inputs rpl_inputs;
int rpl_inputs_open(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                    const sim_world *check, rpl_inputs **out, char *err, size_t errlen);
/* 1 and *in filled; 0 at the end; RPL_ECORRUPT on a bad row (one the check world refuses
 * included), RPL_EDB on a read error (rpl_inputs_error says which). */
int rpl_inputs_next(rpl_inputs *it, sim_input *in);
/* Queue into w every input logged for tick sim_world_tick(w) (skipping any still before it).
 * Returns how many, or a negative code (rpl_inputs_error says why): rpl_inputs_next's, or
 * RPL_EINPUT when the world refuses one. */
int rpl_inputs_feed(rpl_inputs *it, sim_world *w);
const char *rpl_inputs_error(const rpl_inputs *it);
void rpl_inputs_close(rpl_inputs *it);
/* All of them at once, for callers that cannot keep a cursor open. *v malloc'd. */
int rpl_inputs_load(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                    const sim_world *check, sim_input **v, size_t *n, char *err, size_t errlen);
/* "paint x=12 y=40 r=3 element=sand" (enum arguments by name). */
void rpl_input_describe(const sim_kind *k, const sim_input *in, char *out, size_t cap);

/* ---- recorded hashes ------------------------------------------------------------------------------ */
typedef struct rpl_tick_row {
    uint64_t tick;                     /* the state after stepping tick - 1 */
    uint64_t state_hash, frame_hash;
    int bits;                          /* how many low bits of each hash were recorded: 64 (a tick
                                          row of schema 3, a block's last tick), RPL_HASH_BITS (the
                                          other ticks of a block), 0 (a thinned block's: recorded,
                                          nothing to check) */
} rpl_tick_row;
/* Whether a hash computed now differs from one recorded with `bits` bits (rpl_tick_row). */
static inline int rpl_hash_differs(uint64_t recorded, uint64_t actual, int bits)
{
    if (bits <= 0) return 0;
    if (bits >= 64) return recorded != actual;
    return ((recorded ^ actual) & ((UINT64_C(1) << bits) - 1)) != 0;
}
/* A recorded hash as verify and `viv replay hashes` print it: 16 hex digits, or when only its
 * low bits were recorded, those digits after dots ("..............3f"; all dots for 0 bits).
 * buf: at least 17 bytes; returns buf. */
const char *rpl_hash_hex(char *buf, uint64_t v, int bits);
/* Rows of session s with from <= tick <= to, ascending: the tick table's (schema 3 and before)
 * and the ticks of the hashes table's blocks (schema 4). *v malloc'd. */
int rpl_ticks_load(rpl_file *f, int64_t session, uint64_t from, uint64_t to, rpl_tick_row **v,
                   size_t *n, char *err, size_t errlen);
/* One row: 0 found, 1 none, a negative code on error. */
int rpl_tick_get(rpl_file *f, int64_t session, uint64_t tick, rpl_tick_row *out, char *err,
                 size_t errlen);

/* A reader that streams a session span by span (the page's replay stream, the one-file HTML
 * export) starts each span at a checkpoint it knows is there: the checkpoint of session s at
 * exactly tick t, with its stored bytes when stored is not NULL (as rpl_checkpoint_find_stored),
 * loaded into *w (as rpl_world_load), and the tick row of t in *row (*have_row: whether one is
 * recorded), the checkpoint's hash checked against that row. 0; 1 when the file is damaged there
 * (the checkpoint is gone or corrupted: err says which); a negative RPL_E… code on another
 * failure (err). On non-zero, *cp and *stored hold nothing. */
int rpl_checkpoint_exact(rpl_file *f, const rpl_session *s, uint64_t t, rpl_checkpoint *cp,
                         uint8_t **stored, size_t *slen, sim_world **w, rpl_tick_row *row,
                         int *have_row, char *err, size_t errlen);

/* The input rows of steps [from, to) of a session, each checked against check (the world at
 * `from`): 0 when all are ones it could consume; 1 when one is not (the file is damaged: err says
 * which); -1 on a read failure (err). */
int rpl_inputs_check(rpl_file *f, int64_t session, uint64_t from, uint64_t to, const sim_world *check,
                     char *err, size_t errlen);

/* Steps [from, to) of session s as a reader streams them (the page's replay stream, the one-file
 * HTML export): the recorded hashes of ticks from+1 .. to and the inputs logged for steps from ..
 * to-1. The chunk ends early, at a tick boundary, once it holds max_inputs inputs; and where the
 * row of a tick is missing (outside a gap), before it, with `missing` set and `damage` saying so. */
typedef struct rpl_chunk {
    uint64_t from, to;     /* the steps it covers (to may be before the one asked for) */
    uint32_t n;            /* to - from */
    uint64_t *sh, *fh;     /* n recorded hashes each: of ticks from+1 .. to */
    uint8_t *bits;         /* NULL when all n are whole, else n: each tick's rpl_tick_row.bits */
    sim_input *in;
    size_t nin;
    int missing;           /* the row of tick to+1 is missing: the file is damaged after `to` */
    char damage[300];
} rpl_chunk;
/* 0, or a negative RPL_E… code with err (c holds nothing then). */
int rpl_chunk_load(rpl_file *f, const rpl_session *s, uint64_t from, uint64_t to, size_t max_inputs,
                   rpl_chunk *c, char *err, size_t errlen);
void rpl_chunk_free(rpl_chunk *c);

/* ---- phase hashes (the optional phase table) ------------------------------------------------------ */
/* The phase hashes recorded for the step that produced tick `tick` of session s, in phase order.
 * 0 with *n = 0 when the file has no phase table or no rows for that tick. *v malloc'd. */
int rpl_phases_load(rpl_file *f, int64_t session, uint64_t tick, rpl_phase **v, size_t *n,
                    char *err, size_t errlen);
/* 1 when the file holds phase hashes for session s, 0 when not, or a negative code. */
int rpl_phases_has(rpl_file *f, int64_t session, char *err, size_t errlen);

/* ---- gaps ----------------------------------------------------------------------------------------- */
typedef struct rpl_gap {
    uint64_t from, to;                 /* [from, to): not recorded; a checkpoint is at to */
    char reason[128];
} rpl_gap;
/* Session s's gaps, ascending. A row with to <= from is refused with a sentence. */
int rpl_gaps_list(rpl_file *f, int64_t session, rpl_gap **out, size_t *n, char *err,
                  size_t errlen);

/* ---- the plan of a replay ------------------------------------------------------------------------- *
 * A replay of [from, to] walks spans: each starts at a checkpoint (`start`) and steps the world
 * to `end`, feeding the logged inputs; the tick rows (start, end] can be checked on the way. The
 * first span starts at the checkpoint at or before `from`. A gap ends a span at its from tick;
 * the next span starts at the checkpoint at its to tick (or the first one after), and the ticks
 * in between are listed in skipped. split != 0 also cuts spans at every checkpoint, so they can be
 * replayed independently. */
typedef struct rpl_span {
    uint64_t start, end;
} rpl_span;
typedef struct rpl_plan {
    rpl_span *spans;
    size_t nspans;
    rpl_gap *skipped;                  /* [from, to) that no span covers, with the gap's reason */
    size_t nskipped;
    uint64_t from, to;                 /* the range asked for, clamped to the session */
    uint64_t ticks;                    /* ticks stepped by all spans */
} rpl_plan;
int rpl_plan_make(rpl_file *f, const rpl_session *s, uint64_t from, uint64_t to, int split,
                  rpl_plan *out, char *err, size_t errlen);
void rpl_plan_free(rpl_plan *p);

/* ---- verify (verify.c) ---------------------------------------------------------------------------- */
typedef struct rpl_verify_opts {
    int64_t session;
    uint64_t from, to;                 /* ticks; 0 and UINT64_MAX: the whole session */
    int sync_test;                     /* also save → load → continue at every tick (GGPO) */
    int threads;                       /* 0: one per CPU, at most 8; 1: no extra threads. Spans
                                          take them first; the rest run the worlds' passes */
    int skip_frames;                   /* benchmarks only: no render, frame hashes unchecked */
    const char *report_dir;            /* NULL, or a directory (created if missing) for the desync
                                          bundle of a hash divergence: README.txt, before.state,
                                          recorded.state, replayed.state, diff.txt, inputs.txt,
                                          phases.txt. Nothing is written when there is none */
    /* Called from the calling thread, at most every 50 ms or so, and once at the end. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} rpl_verify_opts;
rpl_verify_opts rpl_verify_defaults(void);

typedef struct rpl_verify_result {
    uint64_t first, last;              /* the replay went from tick first to tick last */
    uint64_t ticks;                    /* ticks stepped and checked */
    uint64_t skipped;                  /* ticks in gaps, which nothing can verify */
    uint64_t partial;                  /* of ticks: checked in the RPL_HASH_BITS bits recorded */
    uint64_t thinned;                  /* of ticks: stepped, nothing recorded to check (compacted) */
    uint64_t diverged_at;              /* status 1: the first tick whose check failed */
    uint32_t hz;
    int threads;                       /* threads used (span threads + pass workers) */
    double seconds;
    /* CPU seconds of the calling thread plus those of the busiest span thread: about the wall
     * time the run takes with a free core for each span thread, whatever else the machine is
     * running (benchmarks on a shared machine); a little over, as the calling thread's part that
     * runs beside the spans counts as if it did not. 0 when a worker pool also ran (its CPU is
     * not counted). */
    double cpu_critical;
    char warning[320];                 /* "" or a sentence for stderr (another sim version…) */
    char phase[RPL_PHASE_NAME];        /* status 1: the first phase whose recorded hash differs
                                          (the file's phase table), or "" when not known */
    char bundle[512];                  /* with report_dir: "" (nothing written: no desync), or
                                          a sentence naming what was written or why not */
} rpl_verify_result;

/* Replay session o->session of f from its checkpoint at or before o->from, feeding the logged
 * inputs, and compare the state hash and the frame hash (view 0) of every tick with the recorded
 * row; independent checkpoint-to-checkpoint spans run on several threads (each with its own
 * worlds; the file is read under a lock). Gaps are skipped honestly: replay restarts from the
 * checkpoint at a gap's end and the report names the range that could not be verified.
 * Returns 0 bit-exact, 1 diverged or failed (report: the tick, the hashes, the inputs of that
 * step and a field-level diff against the next recorded checkpoint), a negative RPL_E… code when
 * the file or session is unusable (report: the sentence): RPL_ECORRUPT when it is damaged (a
 * checkpoint that is not its recorded state, an input row no world could have consumed, a tick's
 * hash row missing outside any gap, a lone recorded hash the replay disagrees with while it
 * matches every following row again, a page SQLite cannot read). At a divergence found while
 * stepping, the report also names the first divergent phase when the file holds phase hashes,
 * res->phase gets its name, and with o->report_dir the bundle is written (res->bundle).
 * report is always NUL-terminated text, lines ending in '\n'. */
int rpl_verify(rpl_file *f, const rpl_verify_opts *o, rpl_verify_result *res, char *report,
               size_t cap);

/* ---- export (export.c) ---------------------------------------------------------------------------- */
typedef struct rpl_export_opts {
    int64_t session;
    uint64_t from, to;                 /* frames of ticks from..to; 0 and UINT64_MAX: all */
    uint64_t every;                    /* a frame every K ticks; 0: GIF 2/100 s, else WebP more
                                        * than 10 ms, PNG every tick */
    int scale;                         /* 1..16, after mmpx */
    int mmpx;                          /* 1, 2 or 4: each frame magnified that much by MMPX
                                        * (sim/anim/mmpx.h: the palette kept, edges kept sharp)
                                        * before the nearest-neighbour scale */
    int view;                          /* the kind's view index, 0 the normal picture */
    const char *gif;                   /* animated GIF path, or NULL */
    const char *webp;                  /* animated lossless WebP path, or NULL */
    const char *png_dir;               /* directory for frame-TICK.png files, or NULL */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} rpl_export_opts;
rpl_export_opts rpl_export_defaults(void);

typedef struct rpl_export_result {
    uint64_t frames, first, last;      /* frames written; ticks of the first and last */
    uint64_t every;
    uint64_t skipped;                  /* ticks in gaps with no frame */
    uint64_t mismatched;               /* exported frames whose hash differs from the recording */
    char warning[320];
} rpl_export_result;

/* Replay the session (seeking through the checkpoint at or before from) and write a frame of
 * every `every`-th tick from `from` to `to`: an animated GIF and/or a lossless animated WebP
 * whose delays follow the session's tick rate, and/or indexed PNGs named frame-TICK.png (TICK zero-padded to the width of the
 * largest tick, at least 6 digits). A frame whose hash differs from the recorded one is still
 * written and counted in mismatched. 0, or a negative code with a sentence in err (a partial GIF
 * or WebP is removed; PNGs already written stay): RPL_EUSAGE for bad options, RPL_EIMAGE when an image
 * cannot be written, or what reading the session gave. */
int rpl_export(rpl_file *f, const rpl_export_opts *o, rpl_export_result *res, char *err,
               size_t errlen);

#endif
