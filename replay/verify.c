/* verify.c — replay a recorded session and compare every recorded hash: bit-exact or a desync
 * report.
 *
 * The replay is cut at every checkpoint into spans that are verified independently, on as many
 * threads as there are CPUs (sim/ has no globals: separate worlds never interact). That is the
 * same proof as one continuous replay: each span starts from a checkpoint whose bytes hash to the
 * recorded state hash of its tick, which the previous span has just matched with its own replayed
 * state. The result never depends on the thread count: the earliest failing span wins, and later
 * spans stop as soon as an earlier one has failed.
 *
 * Threads left over when there are fewer spans than threads (one span: all but the caller) form
 * a worker pool (pool/pool.h) for the worlds' parallel passes (sand's strips): one span at a time
 * uses it, the others run their passes inline. That never changes a hash either.
 *
 * On the first divergence the report says what GGPO's and Factorio's desync logs say: the tick,
 * the expected and replayed hashes, the inputs of the step that produced that tick, and a
 * field-by-field diff (sim_state_diff) of the recorded checkpoint at or after it against the
 * replayed state at the same tick. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "pool.h"
#include "read.h"
#include "verify_int.h"

#define MAX_THREADS 8
#define DIFF_LINES 40                  /* a desync report shows this many differing fields */
#define PROGRESS_EVERY 64              /* ticks between a worker's progress updates */

typedef struct verifier {
    rpl_file *f;
    const rpl_session *s;
    const rpl_verify_opts *o;
    const rpl_plan *plan;
    const sim_tasks *tasks;            /* the pool for the worlds' passes, or NULL (inline) */
    pthread_mutex_t db;                /* the file's connection is single-threaded */
    pthread_mutex_t mu;                /* guards everything below */
    pthread_cond_t cv;
    size_t next;                       /* the next span to take */
    uint64_t done;                     /* ticks verified so far, for progress */
    int running;                       /* workers not yet finished */
    failure fail;                      /* the earliest failure, by span */
    int stop;                          /* the tick-0 check failed: no span matters any more */
    int inline_progress;               /* no threads: span_run reports progress itself */
    double last_progress;
} verifier;

typedef struct worker {
    verifier *v;
    pthread_t th;
    sim_world *a, *b;                  /* b: the sync test's second world */
    uint8_t *buf, *buf2;
    size_t cap;
    sim_frame fa, fb;
    int frames;
    double cpu;                        /* CPU seconds this worker's thread used (worker_main) */
    uint64_t partial, thinned;         /* ticks checked in RPL_HASH_BITS bits; stepped unchecked */
    failure fl;                        /* this worker's failure, copied out if it is the earliest */
} worker;

rpl_verify_opts rpl_verify_defaults(void)
{
    rpl_verify_opts o;
    memset(&o, 0, sizeof o);
    o.to = UINT64_MAX;
    return o;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds the calling thread has used. */
static double thread_cpu_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Append to a report; never overflows, always NUL-terminated. */
void vrf_say(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
    if (!out || cap == 0 || *len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap - 1;
}

/* Append text, each line prefixed by indent. */
static void say_indented(char *out, size_t cap, size_t *len, const char *indent, const char *text)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        vrf_say(out, cap, len, "%s%.*s\n", indent, (int)l, p);
        p += l + (nl ? 1 : 0);
    }
}

/* ---- one span ------------------------------------------------------------------------------------- */
static void fail_set(worker *w, int kind, uint64_t tick, const char *fmt, ...)
{
    w->fl.kind = kind;
    w->fl.tick = tick;
    w->fl.msg[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->fl.msg, sizeof w->fl.msg, fmt, ap);
        va_end(ap);
    }
}

static int buffers_fit(worker *w, size_t need)
{
    if (need <= w->cap) return 0;
    uint8_t *a = realloc(w->buf, need), *b = a ? realloc(w->buf2, need) : NULL;
    if (a) w->buf = a;
    if (b) w->buf2 = b;
    if (!a || !b) return RPL_ENOMEM;
    w->cap = need;
    return 0;
}

/* Both hashes of world x now: the state hash from a save into buf (kept, for the sync test) or
 * straight from the world, and the frame hash of view 0. */
static void hashes(worker *w, sim_world *x, sim_frame *fr, int keep, size_t *saved, uint64_t *sh,
                   uint64_t *fh)
{
    if (keep) {
        *saved = sim_world_save(x, w->buf, w->cap);
        /* A failed save is a non-finite value in the state: hash it as sim_world_hash does. */
        *sh = *saved ? sim_state_hash(w->buf, *saved) : 0;
    } else {
        *sh = sim_world_hash(x);
    }
    *fh = 0;
    if (w->frames) {
        sim_world_render(x, 0, fr);
        *fh = sim_frame_hash(fr);
    }
}

/* Verify span i. Returns 0 when it matched, else 1 and fills w->fl (with fl.code for F_ERROR). */
static int span_run(worker *w, size_t i)
{
    verifier *v = w->v;
    const rpl_session *s = v->s;
    const rpl_span *sp = &v->plan->spans[i];
    rpl_checkpoint cp = { 0 };
    sim_input *in = NULL;
    rpl_tick_row *rows = NULL;
    size_t nin = 0, nrows = 0, k = 0, r = 0;
    uint64_t pending = 0;
    char err[512];
    int rc;

    memset(&w->fl, 0, sizeof w->fl);
    w->fl.span = i;
    pthread_mutex_lock(&v->db);
    rc = rpl_checkpoint_find(v->f, s, sp->start, RPL_AT_OR_BEFORE, &cp, err, sizeof err);
    pthread_mutex_unlock(&v->db);
    if (rc != 0 || cp.tick != sp->start) {
        if (rc >= 0)
            snprintf(err, sizeof err, "session %lld: the checkpoint at tick %llu is gone",
                     (long long)s->id, (unsigned long long)sp->start);
        w->fl.code = rc < 0 ? rc : RPL_ECORRUPT;
        fail_set(w, F_ERROR, sp->start, "%s", err);
        goto done;
    }
    if ((rc = rpl_world_load(s, &cp, &w->a, err, sizeof err)) != 0 ||
        (v->o->sync_test && (rc = rpl_world_load(s, &cp, &w->b, err, sizeof err)) != 0)) {
        w->fl.code = rc;
        fail_set(w, F_ERROR, sp->start, "%s", err);
        goto done;
    }
    sim_world_set_tasks(w->a, v->tasks);
    if (w->b) sim_world_set_tasks(w->b, v->tasks);
    if (w->frames && !w->fa.px &&
        (sim_world_frame_init(w->a, &w->fa) || sim_world_frame_init(w->a, &w->fb))) {
        w->fl.code = RPL_ENOMEM;
        fail_set(w, F_ERROR, sp->start, "out of memory for frames");
        goto done;
    }
    if ((rc = buffers_fit(w, sim_world_save_max(w->a))) != 0) {
        w->fl.code = rc;
        fail_set(w, F_ERROR, sp->start, "out of memory for a %zu-byte state buffer",
                 sim_world_save_max(w->a));
        goto done;
    }
    pthread_mutex_lock(&v->db);
    rc = rpl_inputs_load(v->f, s->id, sp->start, sp->end, w->a, &in, &nin, err, sizeof err);
    if (rc == 0) rc = rpl_ticks_load(v->f, s->id, sp->start, sp->end, &rows, &nrows, err, sizeof err);
    pthread_mutex_unlock(&v->db);
    if (rc) {
        w->fl.code = rc;
        fail_set(w, F_ERROR, sp->start, "%s", err);
        goto done;
    }
    size_t saved = 0;
    uint64_t sh, fh;
    if (nrows && rows[0].tick == sp->start) {
        /* The checkpoint must be the state this tick's row describes (a gap's end, or the link
         * between two spans). */
        if (rpl_hash_differs(rows[0].state_hash, cp.hash, rows[0].bits)) {
            w->fl.code = RPL_ECORRUPT;
            fail_set(w, F_ERROR, sp->start, "checkpoint at tick %llu of session %lld is corrupted (its "
                     "state hash %016llx differs from the hash %016llx recorded for that tick)",
                     (unsigned long long)sp->start, (long long)s->id, (unsigned long long)cp.hash,
                     (unsigned long long)rows[0].state_hash);
            goto done;
        }
        hashes(w, w->a, &w->fa, 0, &saved, &sh, &fh);
        if (w->frames && rpl_hash_differs(rows[0].frame_hash, fh, rows[0].bits)) {
            w->fl.want_sh = rows[0].state_hash;
            w->fl.want_bits = rows[0].bits;
            w->fl.want_fh = rows[0].frame_hash;
            w->fl.got_sh = sh;
            w->fl.got_fh = fh;
            fail_set(w, F_HASH, sp->start, NULL);
            goto done;
        }
        r = 1;
    }
    for (uint64_t t = sp->start; t < sp->end; t++) {
        for (; k < nin && in[k].tick == t; k++) {
            rc = sim_world_input(w->a, &in[k]);
            if (rc && rc != SIM_EDUP) {     /* EDUP: the checkpoint already holds it queued */
                w->fl.code = RPL_EINPUT;
                fail_set(w, F_ERROR, t, "session %lld, input at tick %llu (client %u, seq %u): the "
                         "world refuses it: %s", (long long)s->id, (unsigned long long)t,
                         (unsigned)in[k].client, (unsigned)in[k].seq, sim_world_error(w->a));
                goto done;
            }
        }
        sim_world_step(w->a);
        uint64_t tick = t + 1;
        hashes(w, w->a, &w->fa, v->o->sync_test, &saved, &sh, &fh);
        while (r < nrows && rows[r].tick < tick) r++;
        if (r == nrows || rows[r].tick != tick) {
            /* Damage, not a divergence: nothing recorded to compare with (a gap would say why). */
            w->fl.code = RPL_ECORRUPT;
            fail_set(w, F_ERROR, tick, "session %lld of %s is damaged: the recorded hashes of tick "
                     "%llu are missing (no tick row or block of hashes holds them, and no gap covers them); every tick "
                     "before it matched", (long long)s->id, rpl_path(v->f), (unsigned long long)tick);
            goto done;
        }
        const rpl_tick_row *row = &rows[r];
        w->partial += row->bits > 0 && row->bits < 64;
        w->thinned += row->bits == 0;
        if (rpl_hash_differs(row->state_hash, sh, row->bits) ||
            (w->frames && rpl_hash_differs(row->frame_hash, fh, row->bits))) {
            w->fl.want_sh = row->state_hash;
            w->fl.want_bits = row->bits;
            w->fl.want_fh = row->frame_hash;
            w->fl.got_sh = sh;
            w->fl.got_fh = fh;
            fail_set(w, F_HASH, tick, NULL);
            goto done;
        }
        if (v->o->sync_test) {
            /* GGPO's sync test: the saved bytes, loaded into another world, must be the same
             * world; the replay carries on from the loaded one. */
            uint64_t sh2 = 0, fh2 = 0;
            size_t saved2 = 0;
            rc = saved ? sim_world_load(w->b, w->buf, saved) : SIM_ENOSPC;
            if (rc == 0) {
                uint8_t *keep = w->buf;
                w->buf = w->buf2;              /* save B into the second buffer */
                hashes(w, w->b, &w->fb, 1, &saved2, &sh2, &fh2);
                w->buf = keep;
            }
            if (rc || sh2 != sh || (w->frames && fh2 != fh)) {
                w->fl.want_sh = sh;
                w->fl.want_fh = fh;
                w->fl.want_bits = 64;
                w->fl.got_sh = sh2;
                w->fl.got_fh = fh2;
                fail_set(w, F_SYNC, tick, NULL);
                if (rc)
                    snprintf(w->fl.msg, sizeof w->fl.msg, "loading the saved state failed: %s\n",
                             rc == SIM_ENOSPC ? "the world could not be saved" : sim_world_error(w->b));
                else if (sh2 != sh)
                    sim_state_diff(w->buf, saved, w->buf2, saved2, w->fl.msg, sizeof w->fl.msg,
                                   DIFF_LINES);
                goto done;
            }
            sim_world *x = w->a;
            w->a = w->b;
            w->b = x;
            sim_frame fx = w->fa;
            w->fa = w->fb;
            w->fb = fx;
        }
        if (++pending == PROGRESS_EVERY) {
            pthread_mutex_lock(&v->mu);
            v->done += pending;
            int stop = v->fail.span < i || v->stop;
            pthread_mutex_unlock(&v->mu);
            pending = 0;
            if (stop) break;                /* an earlier span failed: this one cannot matter */
            if (v->inline_progress && v->o->progress) {
                double now = now_s();
                if (now - v->last_progress >= 0.05) {
                    v->o->progress(v->o->ud, v->done, v->plan->ticks);
                    v->last_progress = now;
                }
            }
        }
    }
done:
    pthread_mutex_lock(&v->mu);
    v->done += pending;
    if (w->fl.kind != F_NONE && i < v->fail.span) v->fail = w->fl;
    pthread_mutex_unlock(&v->mu);
    rpl_checkpoint_free(&cp);
    free(in);
    free(rows);
    return w->fl.kind == F_NONE ? 0 : 1;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    verifier *v = w->v;
    double cpu0 = thread_cpu_s();
    for (;;) {
        pthread_mutex_lock(&v->mu);
        size_t i = v->next;
        int go = i < v->plan->nspans && i < v->fail.span && !v->stop;
        if (go) v->next++;
        pthread_mutex_unlock(&v->mu);
        if (!go) break;
        span_run(w, i);
    }
    w->cpu = thread_cpu_s() - cpu0;
    pthread_mutex_lock(&v->mu);
    v->running--;
    pthread_cond_signal(&v->cv);
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

static void worker_free(worker *w)
{
    sim_world_destroy(w->a);
    sim_world_destroy(w->b);
    if (w->fa.px) sim_frame_free(&w->fa);
    if (w->fb.px) sim_frame_free(&w->fb);
    free(w->buf);
    free(w->buf2);
}

/* ---- the report ----------------------------------------------------------------------------------- */
/* A world of session s replayed from the checkpoint at `start` to tick `target` (no checks). */
sim_world *vrf_replay_to(rpl_file *f, const rpl_session *s, uint64_t start, uint64_t target,
                         char *err, size_t errlen)
{
    rpl_checkpoint cp;
    sim_world *w = NULL;
    rpl_inputs *it = NULL;
    int rc = rpl_checkpoint_find(f, s, start, RPL_AT_OR_BEFORE, &cp, err, errlen);
    if (rc) {
        if (rc > 0) snprintf(err, errlen, "no checkpoint at or before tick %llu", (unsigned long long)start);
        return NULL;
    }
    if (rpl_world_load(s, &cp, &w, err, errlen)) goto fail;
    if (rpl_inputs_open(f, s->id, cp.tick, target, w, &it, err, errlen)) goto fail;
    while (sim_world_tick(w) < target) {
        if (rpl_inputs_feed(it, w) < 0) {
            snprintf(err, errlen, "%s", rpl_inputs_error(it));
            goto fail;
        }
        sim_world_step(w);
    }
    rpl_inputs_close(it);
    rpl_checkpoint_free(&cp);
    return w;
fail:
    rpl_inputs_close(it);
    rpl_checkpoint_free(&cp);
    sim_world_destroy(w);
    return NULL;
}

uint8_t *vrf_save_alloc(const sim_world *w, size_t *len)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *b = malloc(cap);
    *len = b ? sim_world_save(w, b, cap) : 0;
    if (b && !*len) {
        free(b);
        b = NULL;
    }
    return b;
}

static void say_diff(char *out, size_t cap, size_t *len, const uint8_t *a, size_t alen,
                     const uint8_t *b, size_t blen)
{
    char *d = malloc(16384);
    if (!d) {
        vrf_say(out, cap, len, "    (out of memory for the diff)\n");
        return;
    }
    long n = sim_state_diff(a, alen, b, blen, d, 16384, DIFF_LINES);
    if (n < 0)
        vrf_say(out, cap, len, "    (no diff: %s)\n", sim_strerror((int)n));
    else if (n == 0)
        vrf_say(out, cap, len, "    (no field differs)\n");
    else {
        vrf_say(out, cap, len, "    %ld field%s differ%s:\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
        say_indented(out, cap, len, "    ", d);
    }
    free(d);
}

static void say_inputs_at(rpl_file *f, const rpl_session *s, const sim_kind *k, uint64_t t,
                          char *out, size_t cap, size_t *len)
{
    sim_input *in;
    size_t n;
    char err[256], desc[256];
    if (rpl_inputs_load(f, s->id, t, t + 1, NULL, &in, &n, err, sizeof err)) {
        vrf_say(out, cap, len, "  inputs applied at tick %llu: cannot read them: %s\n",
                (unsigned long long)t, err);
        return;
    }
    if (n == 0)
        vrf_say(out, cap, len, "  inputs applied at tick %llu (the step that produced tick %llu): none\n",
                (unsigned long long)t, (unsigned long long)(t + 1));
    else
        vrf_say(out, cap, len, "  inputs applied at tick %llu (the step that produced tick %llu): %zu\n",
                (unsigned long long)t, (unsigned long long)(t + 1), n);
    for (size_t i = 0; i < n && i < 20; i++) {
        rpl_input_describe(k, &in[i], desc, sizeof desc);
        vrf_say(out, cap, len, "    client %u seq %u: %s\n", (unsigned)in[i].client, (unsigned)in[i].seq,
                desc);
    }
    if (n > 20) vrf_say(out, cap, len, "    … and %zu more\n", n - 20);
    free(in);
}

/* The first gap of session s that starts in [a, b), or NULL. */
const rpl_gap *vrf_gap_between(const rpl_gap *g, size_t n, uint64_t a, uint64_t b)
{
    for (size_t i = 0; i < n; i++)
        if (g[i].from >= a && g[i].from < b) return &g[i];
    return NULL;
}

/* The field-level part of a hash divergence at tick t, found by span `start`. */
static void say_field_diff(rpl_file *f, const rpl_session *s, uint64_t start, const failure *fl,
                           char *out, size_t cap, size_t *len)
{
    char err[512];
    uint64_t t = fl->tick;
    rpl_checkpoint cp = { 0 };
    rpl_gap *gaps = NULL;
    size_t ngaps = 0;
    sim_world *w = NULL, *w2 = NULL;
    uint8_t *blob = NULL, *blob2 = NULL;
    size_t blen = 0, blen2 = 0;
    if (!rpl_hash_differs(fl->want_sh, fl->got_sh, fl->want_bits)) {
        vrf_say(out, cap, len, "  the states are equal at tick %llu; only the picture differs: the "
                "renderer or the palette changed, or rendering is not deterministic\n",
                (unsigned long long)t);
        return;
    }
    if (rpl_gaps_list(f, s->id, &gaps, &ngaps, err, sizeof err)) ngaps = 0;
    int rc = rpl_checkpoint_find(f, s, t, RPL_AT_OR_AFTER, &cp, err, sizeof err);
    const rpl_gap *g = rc == 0 ? vrf_gap_between(gaps, ngaps, t, cp.tick) : NULL;
    if (rc == 0 && !g && cp.tick - t <= DIFF_REACH) {
        w = vrf_replay_to(f, s, start, cp.tick, err, sizeof err);
        blob = w ? vrf_save_alloc(w, &blen) : NULL;
        if (!blob) {
            vrf_say(out, cap, len, "  no field-level diff: replaying to the checkpoint at tick %llu "
                    "failed: %s\n", (unsigned long long)cp.tick, w ? "the world could not be saved" : err);
            goto done;
        }
        if (cp.tick == t)
            vrf_say(out, cap, len, "  field-level diff at tick %llu, recorded checkpoint → replayed state:\n",
                    (unsigned long long)t);
        else
            vrf_say(out, cap, len, "  field-level diff at tick %llu (the first recorded checkpoint after "
                    "the divergence, %llu tick%s later; the log's inputs applied to both), recorded → "
                    "replayed:\n", (unsigned long long)cp.tick, (unsigned long long)(cp.tick - t),
                    cp.tick - t == 1 ? "" : "s");
        say_diff(out, cap, len, cp.state, cp.len, blob, blen);
        goto done;
    }
    if (rc < 0) {
        vrf_say(out, cap, len, "  no field-level diff: %s\n", err);
        goto done;
    }
    /* No recorded state to compare with: recompute live instead. A second, independent replay to
     * the same tick tells a recording made by other behaviour from a build that is not
     * deterministic. */
    if (rc == 0)
        vrf_say(out, cap, len, "  no recorded checkpoint within reach after tick %llu (the next is at "
                "%llu%s)\n", (unsigned long long)t, (unsigned long long)cp.tick,
                g ? ", beyond a gap" : "");
    else
        vrf_say(out, cap, len, "  no recorded checkpoint at or after tick %llu to diff fields against\n",
                (unsigned long long)t);
    w = vrf_replay_to(f, s, start, t, err, sizeof err);
    w2 = w ? vrf_replay_to(f, s, start, t, err, sizeof err) : NULL;
    blob = w ? vrf_save_alloc(w, &blen) : NULL;
    blob2 = w2 ? vrf_save_alloc(w2, &blen2) : NULL;
    if (!blob || !blob2) {
        vrf_say(out, cap, len, "  live recomputation failed: %s\n", err);
        goto done;
    }
    if (blen == blen2 && memcmp(blob, blob2, blen) == 0)
        vrf_say(out, cap, len, "  live recomputation: a second replay from the checkpoint at tick %llu "
                "reaches the same state (%016llx), so this build is self-consistent and the recording "
                "was made by different behaviour\n", (unsigned long long)start,
                (unsigned long long)sim_state_hash(blob, blen));
    else {
        vrf_say(out, cap, len, "  live recomputation: two replays of this build from the checkpoint at "
                "tick %llu disagree at tick %llu: this build is not deterministic. first → second:\n",
                (unsigned long long)start, (unsigned long long)t);
        say_diff(out, cap, len, blob, blen, blob2, blen2);
    }
done:
    free(blob);
    free(blob2);
    sim_world_destroy(w);
    sim_world_destroy(w2);
    rpl_checkpoint_free(&cp);
    free(gaps);
}

/* ---- a damaged hash row, told from a desync ------------------------------------------------------ */
#define CONFIRM_TICKS 60               /* ticks past a suspect row that must all match again */

/* The hashes of world w now: state, and frame (view 0) when fr is not NULL. */
static void now_hashes(sim_world *w, sim_frame *fr, uint64_t *sh, uint64_t *fh)
{
    *sh = sim_world_hash(w);
    *fh = 0;
    if (fr) {
        sim_world_render(w, 0, fr);
        *fh = sim_frame_hash(fr);
    }
}

/* Is fl a lone damaged row rather than a divergence? The world replayed to fl->tick (it must give
 * the replayed hashes fl saw) is stepped on past it, the logged inputs fed: when every recorded
 * row after it, up to the next checkpoint or CONFIRM_TICKS ticks (whichever is later, never past
 * the session's end, a gap or DIFF_REACH), matches again, and a checkpoint at fl->tick (if there
 * is one) holds the replayed state, the one row is what changed, not the simulation: a real
 * divergence carries on into the following states (and pictures). Returns 1 with the sentence
 * (what, where, what to do) in msg, 0 when it is not (or cannot be shown to be) damage. */
static int lone_bad_row(rpl_file *f, const rpl_session *s, uint64_t start, const failure *fl,
                        int frames, char *msg, size_t cap)
{
    char err[512];
    uint64_t t = fl->tick, end = t + CONFIRM_TICKS, cp_at = UINT64_MAX, sh, fh;
    rpl_checkpoint cp = { 0 };
    rpl_gap *gaps = NULL;
    rpl_tick_row *rows = NULL;
    sim_input *in = NULL;
    size_t ngaps = 0, nrows = 0, nin = 0, k = 0, r = 0;
    sim_frame fr = { 0 };
    sim_world *w = NULL;
    int result = 0, state_bad = rpl_hash_differs(fl->want_sh, fl->got_sh, fl->want_bits),
        frame_bad = frames && rpl_hash_differs(fl->want_fh, fl->got_fh, fl->want_bits);
    char hx[17];
    int at_cp = 0;                     /* a checkpoint at t holds the replayed state */
    if (!state_bad && !frame_bad) return 0;
    int rc = rpl_checkpoint_find(f, s, t, RPL_AT_OR_AFTER, &cp, err, sizeof err);
    if (rc < 0) return 0;              /* a damaged checkpoint: that is its own report */
    if (rc == 0 && cp.tick == t) {
        if (cp.hash != fl->got_sh) goto done;   /* the recorded state is not the replayed one */
        at_cp = 1;
        rpl_checkpoint_free(&cp);
        rc = rpl_checkpoint_find(f, s, t + 1, RPL_AT_OR_AFTER, &cp, err, sizeof err);
        if (rc < 0) goto done;
    }
    if (rc == 0 && cp.tick - t <= DIFF_REACH && cp.tick > end) end = cp.tick;
    if (rc == 0) cp_at = cp.tick;
    if (end > s->end_tick) end = s->end_tick;
    if (rpl_gaps_list(f, s->id, &gaps, &ngaps, err, sizeof err) == 0) {
        const rpl_gap *g = vrf_gap_between(gaps, ngaps, t, end + 1);
        if (g && g->from < end) end = g->from;
    }
    if (end <= t && !at_cp) goto done;           /* nothing after it to confirm with */
    w = vrf_replay_to(f, s, start, t, err, sizeof err);
    if (!w) goto done;
    if (frames && sim_world_frame_init(w, &fr)) goto free_world;
    now_hashes(w, frames ? &fr : NULL, &sh, &fh);
    if (sh != fl->got_sh || (frames && fh != fl->got_fh)) goto free_world;   /* not reproducible */
    if (end > t && (rpl_inputs_load(f, s->id, t, end, w, &in, &nin, err, sizeof err) ||
                    rpl_ticks_load(f, s->id, t + 1, end, &rows, &nrows, err, sizeof err)))
        goto free_world;
    for (uint64_t u = t; u < end; u++) {
        for (; k < nin && in[k].tick == u; k++) {
            int irc = sim_world_input(w, &in[k]);
            if (irc && irc != SIM_EDUP) goto free_world;
        }
        sim_world_step(w);
        now_hashes(w, frames ? &fr : NULL, &sh, &fh);
        if (r == nrows || rows[r].tick != u + 1) goto free_world;   /* a row missing too */
        if (rpl_hash_differs(rows[r].state_hash, sh, rows[r].bits) ||
            (frames && rpl_hash_differs(rows[r].frame_hash, fh, rows[r].bits)))
            goto free_world;
        r++;
    }
    result = 1;
    {
        size_t len = 0;
        vrf_say(msg, cap, &len, "session %lld of %s is damaged, not desynced: one recorded hash is wrong\n",
                (long long)s->id, rpl_path(f));
        if (state_bad)
            vrf_say(msg, cap, &len, "  tick %llu, its recorded state hash: recorded %s, "
                    "replayed %016llx\n", (unsigned long long)t, rpl_hash_hex(hx, fl->want_sh, fl->want_bits),
                    (unsigned long long)fl->got_sh);
        if (frame_bad)
            vrf_say(msg, cap, &len, "  tick %llu, its recorded frame hash: recorded %s, "
                    "replayed %016llx\n", (unsigned long long)t, rpl_hash_hex(hx, fl->want_fh, fl->want_bits),
                    (unsigned long long)fl->got_fh);
        if (end > t)
            vrf_say(msg, cap, &len, "  every hash recorded for ticks %llu to %llu matches the replay again",
                    (unsigned long long)(t + 1), (unsigned long long)end);
        if (at_cp)
            vrf_say(msg, cap, &len, "%sthe checkpoint recorded at tick %llu holds exactly the replayed state",
                    end > t ? ", and " : "  ", (unsigned long long)t);
        else if (cp_at <= end && cp_at > t)
            vrf_say(msg, cap, &len, " (the replayed state equals the checkpoint at tick %llu)",
                    (unsigned long long)cp_at);
        vrf_say(msg, cap, &len, ":\n  the simulation replays bit-exactly around it, so the value was changed "
                "after it was written (a disk or copy fault, or an edit)\n");
        vrf_say(msg, cap, &len, "  next: sqlite3 %s 'PRAGMA integrity_check', then restore the file from a "
                "backup (or the recording node's own copy)", rpl_path(f));
    }
free_world:
    if (fr.px) sim_frame_free(&fr);
    sim_world_destroy(w);
done:
    rpl_checkpoint_free(&cp);
    free(gaps);
    free(rows);
    free(in);
    return result;
}

static const char *same(uint64_t a, uint64_t b) { return a == b ? "same" : "DIFFERENT"; }


/* same(), for a recorded hash of `bits` bits against a replayed one. */
static const char *same_rec(uint64_t rec, uint64_t got, int bits)
{
    return rpl_hash_differs(rec, got, bits) ? "DIFFERENT" : "same";
}

static void say_failure(rpl_file *f, const rpl_session *s, const sim_kind *k, const rpl_plan *plan,
                        const rpl_verify_opts *o, const failure *fl, char *out, size_t cap,
                        size_t *len)
{
    uint64_t start = plan->spans[fl->span].start, t = fl->tick;
    vrf_say(out, cap, len, "desync in session %lld of %s (%s, seed %llu, params %s; recorded by sim %s, "
            "replayed by %s)\n", (long long)s->id, rpl_path(f), s->kind, (unsigned long long)s->seed,
            s->params, s->sim_version, SIM_VERSION);
    if (fl->kind == F_SYNC) {
        vrf_say(out, cap, len, "  sync test failed at tick %llu: the state saved there and loaded into "
                "another world is not the same world\n", (unsigned long long)t);
        vrf_say(out, cap, len, "    state hash  saved %016llx  after load %016llx  %s\n",
                (unsigned long long)fl->want_sh, (unsigned long long)fl->got_sh,
                same(fl->want_sh, fl->got_sh));
        if (!o->skip_frames)
            vrf_say(out, cap, len, "    frame hash  saved %016llx  after load %016llx  %s\n",
                    (unsigned long long)fl->want_fh, (unsigned long long)fl->got_fh,
                    same(fl->want_fh, fl->got_fh));
        if (fl->msg[0]) {
            vrf_say(out, cap, len, "  saved → loaded:\n");
            say_indented(out, cap, len, "    ", fl->msg);
        }
        return;
    }
    vrf_say(out, cap, len, "  first divergent tick: %llu (replayed from the checkpoint at tick %llu; "
            "every tick before %llu matched)\n", (unsigned long long)t, (unsigned long long)start,
            (unsigned long long)t);
    char hx[17];
    vrf_say(out, cap, len, "    state hash  recorded %s  replayed %016llx  %s\n",
            rpl_hash_hex(hx, fl->want_sh, fl->want_bits), (unsigned long long)fl->got_sh,
            same_rec(fl->want_sh, fl->got_sh, fl->want_bits));
    if (!o->skip_frames)
        vrf_say(out, cap, len, "    frame hash  recorded %s  replayed %016llx  %s\n",
                rpl_hash_hex(hx, fl->want_fh, fl->want_bits), (unsigned long long)fl->got_fh,
                same_rec(fl->want_fh, fl->got_fh, fl->want_bits));
    if (fl->want_bits < 64)
        vrf_say(out, cap, len, "    (the file keeps the low %d bits of this tick's hashes: docs/REPLAY.md, "
                "\"Recorded hashes\")\n", fl->want_bits);
    if (t > start) say_inputs_at(f, s, k, t - 1, out, cap, len);
    say_field_diff(f, s, start, fl, out, cap, len);
}

static int check_initial(rpl_file *f, pthread_mutex_t *db, const rpl_session *s,
                         const sim_kind *k, char *out, size_t cap, size_t *len, char *err,
                         size_t errlen)
{
    rpl_checkpoint cp;
    pthread_mutex_lock(db);            /* span threads may be reading the file too */
    int rc = rpl_checkpoint_find(f, s, s->start_tick, RPL_AT_OR_BEFORE, &cp, err, errlen);
    pthread_mutex_unlock(db);
    if (rc) return rc < 0 ? rc : 0;    /* no checkpoint: the plan has already said so */
    char cerr[256] = "";
    sim_config cfg = sim_config_default();
    cfg.kind = k->name;
    cfg.seed = s->seed;
    cfg.params = s->params;
    cfg.err = cerr;
    cfg.errlen = sizeof cerr;
    /* No file reader: the verifier never reads the file a scene came from (it may have changed
     * since; the recorded tick-0 state is what the session ran). */
    sim_world *w = sim_world_create(&cfg, &rc);
    if (!w && rc == SIM_EFILE) {
        rpl_checkpoint_free(&cp);
        return 2;
    }
    if (!w) {
        snprintf(err, errlen, "session %lld: cannot create its %s world: %s", (long long)s->id,
                 k->name, cerr[0] ? cerr : sim_strerror(rc));
        rpl_checkpoint_free(&cp);
        return rpl_sim_error(rc);
    }
    int result = 0;
    /* A state saved as an older version of its kind (sand's 2, before its chunk digests) is
     * compared as that version: the same cells, saved and hashed as that build did. A version
     * this build does not read stays as it is, and differs below. */
    (void)sim_world_set_state_version(w, sim_state_version(cp.state, cp.len));
    if (sim_world_hash(w) != cp.hash) {
        size_t blen;
        uint8_t *blob = vrf_save_alloc(w, &blen);
        vrf_say(out, cap, len, "desync in session %lld of %s (%s, seed %llu, params %s; recorded by sim "
                "%s, replayed by %s)\n", (long long)s->id, rpl_path(f), s->kind,
                (unsigned long long)s->seed, s->params, s->sim_version, SIM_VERSION);
        vrf_say(out, cap, len, "  tick 0: the recorded initial state is not what this build creates for "
                "this kind, seed and params\n");
        vrf_say(out, cap, len, "    state hash  recorded %016llx  new world %016llx  DIFFERENT\n",
                (unsigned long long)cp.hash, (unsigned long long)sim_world_hash(w));
        vrf_say(out, cap, len, "  recorded → new world:\n");
        if (blob) say_diff(out, cap, len, cp.state, cp.len, blob, blen);
        free(blob);
        result = 1;
    }
    sim_world_destroy(w);
    rpl_checkpoint_free(&cp);
    return result;
}

/* A fork's start against its lineage (docs/REPLAY.md, "Forks"): the fork's checkpoint at its
 * start tick (its bytes already checked against its own recorded hash) must be the parent's
 * recorded state there. 0 it is, or the lineage cannot be checked here (note says why); 1 it is
 * not (report: a divergence at the fork's start); a negative code: damaged (err). */
static int check_lineage(rpl_file *f, const rpl_session *s,
                         const rpl_lineage *lin, char *out, size_t cap, size_t *len, char *note,
                         size_t notecap, char *err, size_t errlen)
{
    rpl_checkpoint cp;
    rpl_session ps;
    rpl_tick_row row;
    memset(&cp, 0, sizeof cp);
    note[0] = '\0';
    if (lin->parent_file[0]) {
        snprintf(note, notecap, "  lineage NOT CHECKED: forked from session %lld of %.300s at tick %llu, "
                 "which is not in this file (its start's state hash %016llx is as the fork recorded "
                 "it; `viv replay verify %.300s --session %lld --to %llu` checks the parent)\n",
                 (long long)lin->parent, lin->parent_file, (unsigned long long)lin->tick,
                 (unsigned long long)lin->parent_hash, lin->parent_file, (long long)lin->parent,
                 (unsigned long long)lin->tick);
    }
    int rc = rpl_checkpoint_find(f, s, s->start_tick, RPL_AT_OR_BEFORE, &cp, err, errlen);
    if (rc < 0) return rc;
    if (rc > 0 || cp.tick != s->start_tick || lin->tick != s->start_tick) {
        if (rc == 0) rpl_checkpoint_free(&cp);
        snprintf(err, errlen, "session %lld of %s is damaged: it is a fork of session %lld at tick "
                 "%llu, but it has no checkpoint at its start (tick %llu)", (long long)s->id,
                 rpl_path(f), (long long)lin->parent, (unsigned long long)lin->tick,
                 (unsigned long long)s->start_tick);
        return RPL_ECORRUPT;
    }
    uint64_t mine = cp.hash;
    rpl_checkpoint_free(&cp);
    uint64_t theirs = lin->parent_hash;
    const char *whose = "the fork's lineage row";
    if (!lin->parent_file[0]) {
        rc = rpl_session_get(f, lin->parent, &ps, err, errlen);
        if (rc == RPL_ENOSESSION) {
            snprintf(note, notecap, "  lineage NOT CHECKED: forked from session %lld at tick %llu, "
                     "which this file no longer holds\n", (long long)lin->parent,
                     (unsigned long long)lin->tick);
            rc = 0;
            goto against_row;
        }
        if (rc == 0) {
            rc = rpl_tick_get(f, lin->parent, lin->tick, &row, err, errlen);
            if (rc == 1) {             /* the parent's own start: no row, its checkpoint */
                rc = rpl_checkpoint_find(f, &ps, lin->tick, RPL_AT_OR_BEFORE, &cp, err, errlen);
                if (rc == 0) {
                    if (cp.tick == lin->tick) {
                        row.state_hash = cp.hash;
                        row.bits = 64;
                    }
                    else rc = 1;
                    rpl_checkpoint_free(&cp);
                }
            }
        }
        if (rc < 0) return rc;
        if (rc == 1) {
            snprintf(note, notecap, "  lineage NOT CHECKED: session %lld has no recorded state at "
                     "tick %llu\n", (long long)lin->parent, (unsigned long long)lin->tick);
            rc = 0;
            goto against_row;
        }
        /* A row of a block holds only the low bits of the hash: it confirms the lineage's. */
        if (!rpl_hash_differs(row.state_hash, mine, row.bits) &&
            rpl_hash_differs(row.state_hash, lin->parent_hash, row.bits)) {
            snprintf(err, errlen, "session %lld of %s is damaged: its fork row says session %lld had "
                     "state hash %016llx at tick %llu, but that session recorded %016llx there, which "
                     "the fork's start holds", (long long)s->id, rpl_path(f), (long long)lin->parent,
                     (unsigned long long)lin->parent_hash, (unsigned long long)lin->tick,
                     (unsigned long long)row.state_hash);
            return RPL_ECORRUPT;
        }
        theirs = row.bits < 64 && !rpl_hash_differs(row.state_hash, lin->parent_hash, row.bits)
                     ? lin->parent_hash : row.state_hash;
        whose = "the parent's recorded tick row";
        snprintf(note, notecap, "  lineage: the start is session %lld's recorded state at tick %llu "
                 "(state hash %016llx)\n", (long long)lin->parent, (unsigned long long)lin->tick,
                 (unsigned long long)theirs);
    }
against_row:
    if (mine == theirs) return 0;
    vrf_say(out, cap, len, "desync in session %lld of %s (%s, seed %llu, params %s): a fork whose start is "
            "not its parent's state\n", (long long)s->id, rpl_path(f), s->kind,
            (unsigned long long)s->seed, s->params);
    vrf_say(out, cap, len, "  tick %llu: forked from session %lld%s%s at this tick, but its initial state "
            "is not the parent's\n", (unsigned long long)lin->tick, (long long)lin->parent,
            lin->parent_file[0] ? " of " : "", lin->parent_file);
    vrf_say(out, cap, len, "    state hash  %s %016llx  the fork's start %016llx  DIFFERENT\n", whose,
            (unsigned long long)theirs, (unsigned long long)mine);
    vrf_say(out, cap, len, "  (the fork's checkpoint matches its own recorded hash: it was written or "
            "changed as another state)\n");
    return 1;
}

/* ---- rpl_verify ------------------------------------------------------------------------------------ */
int rpl_verify(rpl_file *f, const rpl_verify_opts *o, rpl_verify_result *res, char *report,
               size_t cap)
{
    rpl_session s;
    rpl_plan plan = { 0 };
    worker *ws = NULL;
    pool *passes = NULL;
    size_t len = 0, nw = 0, threaded = 0;    /* nw workers, the first `threaded` on threads */
    char err[FAIL_MSG];
    int code = RPL_ENOMEM;             /* the error, while there is no verdict */
    int status = code;                 /* negative until there is a verdict: 0 or 1 */
    verifier v;
    memset(res, 0, sizeof *res);
    if (cap) report[0] = '\0';
    memset(&v, 0, sizeof v);
    v.fail.span = SIZE_MAX;
    if ((code = rpl_session_get(f, o->session, &s, err, sizeof err)) != 0) goto error;
    const sim_kind *k = rpl_session_kind(f, &s, res->warning, sizeof res->warning, err, sizeof err);
    if (!k) {
        code = rpl_kind_error(&s);
        goto error;
    }
    res->hz = s.hz;
    if ((code = rpl_plan_make(f, &s, o->from, o->to, 1, &plan, err, sizeof err)) != 0) goto error;
    res->first = plan.nspans ? plan.spans[0].start : plan.from;
    res->last = plan.to;
    for (size_t i = 0; i < plan.nskipped; i++) res->skipped += plan.skipped[i].to - plan.skipped[i].from;
    /* A fork's start is checked against its parent's recorded state first: a fork that did not
     * start where it says is a divergence at its start, before any replay. */
    rpl_lineage lin;
    char lnote[1024] = "";
    int forked = 0;
    if ((plan.nspans ? plan.spans[0].start : plan.from) == s.start_tick &&
        (forked = rpl_lineage_get(f, s.id, &lin, err, sizeof err)) < 0) {
        code = forked;
        goto error;
    }
    if (forked == 1) {
        int lr = check_lineage(f, &s, &lin, report, cap, &len, lnote, sizeof lnote, err,
                               sizeof err);
        if (lr < 0) {
            code = lr;
            goto error;
        }
        if (lr == 1) {
            res->diverged_at = s.start_tick;
            rpl_plan_free(&plan);
            return 1;
        }
    }
    double t0 = now_s(), cpu0 = thread_cpu_s();
    /* The recorded tick-0 state is checked against a new world (check_initial) when the replay
     * starts there: first on one thread, beside the spans with several (it is one world's
     * create, serial time otherwise). */
    int check = s.start_tick == 0 && plan.nspans && plan.spans[0].start == 0, checked = 0;

    v.f = f;
    v.s = &s;
    v.o = o;
    v.plan = &plan;
    pthread_mutex_init(&v.db, NULL);
    pthread_mutex_init(&v.mu, NULL);
    pthread_cond_init(&v.cv, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t want = o->threads > 0 ? (size_t)o->threads : (size_t)(ncpu > 0 ? ncpu : 1);
    if (want > MAX_THREADS) want = MAX_THREADS;
    size_t all = want;
    if (want > plan.nspans) want = plan.nspans ? plan.nspans : 1;
    /* The threads no span takes, and one span thread, run the passes; without a pool (it could
     * not start) they run inline, which gives the same hashes. */
    if (all > want && pool_create((int)(all - want + 1), &passes, err, sizeof err) == 0)
        v.tasks = pool_tasks(passes);
    ws = calloc(want, sizeof *ws);
    if (!ws) {
        snprintf(err, sizeof err, "out of memory");
        code = RPL_ENOMEM;
        goto error_locks;
    }
    for (size_t i = 0; i < want; i++) {
        ws[i].v = &v;
        ws[i].frames = !o->skip_frames;
    }
    if (want == 1) {
        /* No thread: span_run reports progress itself. */
        nw = 1;
        res->threads = 1;
        v.inline_progress = 1;
        if (check) checked = check_initial(f, &v.db, &s, k, report, cap, &len, err, sizeof err);
        for (size_t i = 0; i < plan.nspans && v.fail.span == SIZE_MAX && (checked == 0 || checked == 2);
             i++)
            span_run(&ws[0], i);
    } else {
        pthread_mutex_lock(&v.mu);
        for (size_t i = 0; i < want; i++) {
            if (pthread_create(&ws[i].th, NULL, worker_main, &ws[i]) != 0) break;
            nw++;
            v.running++;
        }
        pthread_mutex_unlock(&v.mu);
        res->threads = (int)nw;
        threaded = nw;
        if (check) {
            checked = check_initial(f, &v.db, &s, k, report, cap, &len, err, sizeof err);
            if (checked != 0 && checked != 2) {
                pthread_mutex_lock(&v.mu);
                v.stop = 1;
                pthread_mutex_unlock(&v.mu);
            }
        }
        if (nw == 0) {
            nw = 1;
            res->threads = 1;
            worker_main(&ws[0]);
        } else {
            pthread_mutex_lock(&v.mu);
            while (v.running > 0) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 50 * 1000000L;
                if (ts.tv_nsec >= 1000000000L) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000L;
                }
                pthread_cond_timedwait(&v.cv, &v.mu, &ts);
                uint64_t done = v.done;
                if (o->progress && v.running > 0) {
                    pthread_mutex_unlock(&v.mu);
                    o->progress(o->ud, done, plan.ticks);
                    pthread_mutex_lock(&v.mu);
                }
            }
            pthread_mutex_unlock(&v.mu);
            for (size_t i = 0; i < nw; i++) pthread_join(ws[i].th, NULL);
        }
    }
    if (passes) res->threads += pool_workers(passes) - 1;
    res->seconds = now_s() - t0;
    if (!passes) {
        /* Spans run inline count in this thread's own CPU; those on threads, by the busiest. */
        double busiest = 0.0;
        for (size_t i = 0; i < threaded; i++) busiest = ws[i].cpu > busiest ? ws[i].cpu : busiest;
        res->cpu_critical = thread_cpu_s() - cpu0 + busiest;
    }
    res->ticks = v.done;
    for (size_t i = 0; i < nw; i++) {
        res->partial += ws[i].partial;
        res->thinned += ws[i].thinned;
    }
    if (o->progress) o->progress(o->ud, v.done, plan.ticks);
    if (checked < 0) {
        code = checked;
        goto error_locks;
    }
    if (checked == 2 && !res->warning[0])
        snprintf(res->warning, sizeof res->warning, "session %lld's world is built from a file "
                 "(%.160s): its tick-0 state comes from the recording and is not re-created",
                 (long long)s.id, s.params);
    if (checked == 1) {
        res->diverged_at = 0;
        res->ticks = 0;                /* the verdict is the new world's, before any replay */
        status = 1;
        goto error_locks;
    }

    if (v.fail.span != SIZE_MAX && v.fail.kind == F_ERROR) {
        snprintf(err, sizeof err, "%s", v.fail.msg);
        code = v.fail.code;
        goto error_locks;
    }
    /* A recorded hash that disagrees alone is a damaged file, not a desync (issue 28). */
    if (v.fail.span != SIZE_MAX && v.fail.kind == F_HASH &&
        lone_bad_row(f, &s, plan.spans[v.fail.span].start, &v.fail, !o->skip_frames, err,
                     sizeof err)) {
        code = RPL_ECORRUPT;
        goto error_locks;
    }
    if (v.fail.span != SIZE_MAX) {
        res->diverged_at = v.fail.tick;
        say_failure(f, &s, k, &plan, o, &v.fail, report, cap, &len);
        uint64_t start = plan.spans[v.fail.span].start;
        if (v.fail.kind == F_HASH && v.fail.tick > start) {
            /* Where in the step it went astray, and the bundle. */
            phase_cmp pc;
            vrf_phases_compare(f, &s, start, v.fail.tick, &pc);
            vrf_say_phases(&pc, v.fail.tick, report, cap, &len);
            if (pc.first >= 0 && (size_t)pc.first < pc.nrec)
                snprintf(res->phase, sizeof res->phase, "%s", pc.rec[pc.first].name);
            if (o->report_dir) vrf_bundle_write(f, &s, k, start, o, &v.fail, &pc, res);
            vrf_phase_cmp_free(&pc);
        } else if (o->report_dir) {
            snprintf(res->bundle, sizeof res->bundle, "--report %s: nothing written: the bundle is for "
                     "a divergence found while stepping, and this one %s", o->report_dir,
                     v.fail.kind == F_SYNC ? "is the sync test's" : "is at the checkpoint the replay "
                     "starts from");
        }
        status = 1;
    } else {
        vrf_say(report, cap, &len, "session %lld (%s, seed %llu): bit-exact: %llu tick%s replayed from "
                "tick %llu to %llu, the state hash%s of every tick matching the recording\n",
                (long long)s.id, s.kind, (unsigned long long)s.seed, (unsigned long long)plan.ticks,
                plan.ticks == 1 ? "" : "s", (unsigned long long)res->first, (unsigned long long)res->last,
                o->skip_frames ? " (frame hashes NOT checked)" : " and frame hash");
        if (res->partial)
            vrf_say(report, cap, &len, "  (the file keeps the low %d bits of %llu of those ticks' hashes, "
                    "both whole at the end of each block of %d: docs/REPLAY.md, \"Recorded hashes\")\n",
                    RPL_HASH_BITS, (unsigned long long)res->partial, RPL_HASH_BLOCK);
        rpl_grain g;
        char gerr[256];
        if (rpl_grain_get(f, s.id, &g, gerr, sizeof gerr) == 1)
            vrf_say(report, cap, &len, "  compacted %s to a grain of a recorded hash every %llu ticks at most "
                    "and a checkpoint every %llu: %llu ticks were stepped with nothing left to compare\n",
                    g.compacted_at, (unsigned long long)g.hash_every, (unsigned long long)g.checkpoint_every,
                    (unsigned long long)res->thinned);
        else if (res->thinned)
            vrf_say(report, cap, &len, "  (%llu ticks were stepped with nothing to compare: compaction thinned "
                    "their hashes)\n", (unsigned long long)res->thinned);
        if (res->first < o->from && o->from <= plan.to)
            vrf_say(report, cap, &len, "  (from the checkpoint at tick %llu, the nearest at or before "
                    "tick %llu)\n", (unsigned long long)res->first, (unsigned long long)o->from);
        if (lnote[0]) vrf_say(report, cap, &len, "%s", lnote);
        if (o->sync_test)
            vrf_say(report, cap, &len, "  sync test passed: saved, loaded into another world and "
                    "continued from it at every tick\n");
        if (s.running && plan.to == s.end_tick)
            vrf_say(report, cap, &len, "  the session is still running (or was interrupted): verified up "
                    "to its last committed tick, %llu\n", (unsigned long long)s.end_tick);
        status = 0;
    }
    for (size_t i = 0; i < plan.nskipped; i++) {
        const rpl_gap *g = &plan.skipped[i];
        int resumed = 0;
        for (size_t j = 0; j < plan.nspans; j++) resumed |= plan.spans[j].start == g->to;
        vrf_say(report, cap, &len, "  NOT VERIFIED: ticks [%llu, %llu) (%llu tick%s) were not recorded "
                "(%s)%s", (unsigned long long)g->from, (unsigned long long)g->to,
                (unsigned long long)(g->to - g->from), g->to - g->from == 1 ? "" : "s", g->reason,
                resumed ? "; the replay restarted from the checkpoint at tick " : "\n");
        if (resumed) vrf_say(report, cap, &len, "%llu\n", (unsigned long long)g->to);
    }
error_locks:
    for (size_t i = 0; ws && i < want; i++) worker_free(&ws[i]);
    free(ws);
    pool_destroy(passes);
    pthread_mutex_destroy(&v.db);
    pthread_mutex_destroy(&v.mu);
    pthread_cond_destroy(&v.cv);
    if (status >= 0) goto out;
error:
    len = 0;
    if (cap) report[0] = '\0';
    vrf_say(report, cap, &len, "%s\n", err);
    status = code;
out:
    rpl_plan_free(&plan);
    return status;
}
