/* recorder.c — the replay log's writer: one thread, one connection, a queue.
 *
 * The caller (vivd's loop; viv sim) hands over each tick — the inputs applied at it, the hashes
 * after it, now and then a checkpoint — and returns at once: everything is copied into a queue.
 * The thread takes whatever has accumulated and writes it in one transaction (group commit), then
 * reports the settled ticks through rpl_recorder_poll and wakes the caller. Acks wait for that.
 *
 * When a write fails (disk full, I/O error) the transaction is rolled back, the affected ticks are
 * reported as not logged, and the session enters a gap: its further ticks are dropped until one
 * arrives with a checkpoint. If that one can be written, the gap is recorded honestly in the `gap`
 * table — [first tick lost, checkpoint tick) — and recording carries on from the checkpoint.
 *
 * A tick the writer never sees (the queue over its limit; rpl_recorder_lost) opens the same kind
 * of gap: a small marker takes its place in the queue, in order, so the writer knows where. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>
#include "encode.h"
#include "replay.h"

enum { B_BEGIN, B_TICK, B_RESUME, B_END, B_SUSPEND,
       B_LOST };               /* a tick not in the queue: its session's gap begins at it */

#define RPL_SPARE_BUFFERS 4    /* checkpoint buffers kept for reuse: one for each of a few worlds */

typedef struct batch {
    struct batch *next;
    int type;
    int64_t session;
    uint64_t tick;             /* TICK: the tick stepped; BEGIN/RESUME: the checkpoint's tick */
    uint64_t sh, fh;
    size_t nin;
    sim_input *in;
    uint8_t *cp;
    size_t cplen;
    size_t cpcap;              /* cp came from rpl_recorder_cp_buffer, cpcap bytes: the writer
                                  keeps it for the next one (spare) instead of freeing it */
    rpl_phase *ph;             /* TICK in heavy mode: the step's phase hashes */
    size_t nph;
    rpl_session meta;          /* BEGIN */
    rpl_lineage *lin;          /* BEGIN of a fork: its lineage (malloc'd), else NULL */
    size_t bytes;
    int ends_gap;              /* TICK: its checkpoint ends its session's gap (write_group) */
    char *why;                 /* LOST: why (malloc'd), the gap row's reason */
    int overflow;              /* LOST: refused by the queue's limit (the recorder is failing) */
    uint64_t last;             /* LOST: the last tick it stands for (later refusals join it) */
    struct batch *onext;       /* write_group: the group's batches in their order, for results */
    int kept;                  /* write_group: written (not dropped) */
} batch;

#define MAX_GAPS 64            /* sessions in a gap at once */

/* Thread-only, per session: the open block of hashes (docs/REPLAY.md, "Recorded hashes") and the
 * full checkpoint that the next delta checkpoints are compressed against. */
typedef struct sess_state {
    int64_t session;
    int seen;                  /* the group being written touched it */
    uint64_t block;            /* the open block's first tick */
    uint32_t n;                /* ticks in it (0: none open) */
    int dirty;                 /* changed since its row was last written */
    uint64_t last_sh, last_fh; /* the hashes of its last tick, whole */
    uint8_t sh8[RPL_HASH_BLOCK], fh8[RPL_HASH_BLOCK];   /* the low bytes of the ticks before it */
    uint8_t *full;             /* the saved state of the latest full checkpoint (NULL: none) */
    size_t full_len;
    uint64_t full_tick;
    uint32_t since_full;       /* delta checkpoints written since it */
} sess_state;

struct rpl_recorder {
    rpl_file *f;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work, idle;
    batch *head, *tail;
    size_t queued_bytes, max_bytes;
    int busy;                  /* the thread holds batches */
    int stop;
    rpl_commit *res;
    size_t nres, capres;
    int failing;
    char failmsg[256];
    char node[RPL_NODE_MAX];   /* written into every session begun; "" none */
    int64_t next_session;
    int all_ok;                /* everything since the last flush was written */
    void (*wake)(void *);
    void *ud;
    /* Thread-only: sessions in a gap and the first tick they lost. */
    struct { int64_t session; uint64_t from; char reason[128]; } gaps[MAX_GAPS];
    int ngaps;
    /* Under mu: the LOST markers still queued with no checkpoint of their session queued after
     * them: a later refusal of that session joins its marker (its `last`) instead of adding one. */
    batch *lost[MAX_GAPS];
    int nlost;
    batch *retry;              /* BEGIN/RESUME/END batches to try again after a failure */
    sqlite3_stmt *st_input, *st_tick, *st_cp, *st_end, *st_gap, *st_session, *st_close, *st_run,
                 *st_suspend, *st_endq;
    sqlite3_stmt *st_phase;    /* heavy mode only, else NULL */
    sqlite3_stmt *st_block;    /* the hashes table's upsert (not in legacy mode) */
    int legacy;                /* write schema 3's rows: a tick row a tick, whole checkpoints */
    uint32_t full_every;       /* a full checkpoint after this many deltas */
    /* Thread-only: per-session state, and its copy from before the group being written (a
     * rolled-back group restores it). */
    sess_state *ss, *ss_saved;
    size_t nss, nss_saved, capss;
    void **free_ok, **free_fail;        /* states to free when the group commits / rolls back */
    size_t nfree_ok, nfree_fail, capfree;
    rpl_rec_stats st;          /* counters (under mu): rpl_recorder_stats copies them */
    ZSTD_CCtx *zctx;           /* thread-only: checkpoint compression */
    rpl_zout z[2];             /* thread-only: its output (a checkpoint whole, as a delta) */
    /* Under mu: checkpoint buffers written and given back, their pages in memory, for the next
     * checkpoints (rpl_recorder_cp_buffer); cap 0: none. */
    struct { uint8_t *p; size_t cap; } spare[RPL_SPARE_BUFFERS];
};

static void now_iso(char *out, size_t cap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int rpl_commit_bucket(uint64_t us)
{
    static const uint64_t bounds[RPL_COMMIT_BUCKETS] = RPL_COMMIT_BOUNDS_US;
    int b = 0;
    while (b < RPL_COMMIT_BUCKETS && us > bounds[b]) b++;
    return b;
}

static void batch_free(batch *b)
{
    if (!b) return;
    free(b->in);
    free(b->cp);
    free(b->ph);
    free(b->lin);
    free(b->why);
    free(b);
}

/* The writer's batch_free: a checkpoint buffer of rpl_recorder_cp_buffer's is kept for the next
 * checkpoint, in place of the smallest one kept when all places are taken (a new buffer of a big
 * world's size is mapped afresh, and touching its pages cost the tick thread more than the save
 * itself: 12 ms at 4096x2048, against 2.6 ms for the save into pages already there). */
static void batch_done(rpl_recorder *r, batch *b)
{
    if (b && b->cp && b->cpcap) {
        pthread_mutex_lock(&r->mu);
        int k = 0;
        for (int i = 1; i < RPL_SPARE_BUFFERS; i++)
            if (r->spare[i].cap < r->spare[k].cap) k = i;
        if (b->cpcap > r->spare[k].cap) {
            uint8_t *old = r->spare[k].p;
            r->spare[k].p = b->cp;
            r->spare[k].cap = b->cpcap;
            b->cp = old;                /* freed below */
        }
        pthread_mutex_unlock(&r->mu);
    }
    batch_free(b);
}

/* ---- the writer thread ---------------------------------------------------------------------- */
enum { NO_GAP = -1 };          /* an index, not an error */

/* The index in r->gaps of the session's gap, or NO_GAP. */
static int gap_find(rpl_recorder *r, int64_t session)
{
    for (int i = 0; i < r->ngaps; i++)
        if (r->gaps[i].session == session) return i;
    return NO_GAP;
}

/* The session's gap begins at tick `from` (why: its reason): opened, or begun earlier when one
 * is open from a later tick (a group failed before a LOST marker in it). Full: nothing. */
static void gap_open(rpl_recorder *r, int64_t session, uint64_t from, const char *why)
{
    int g = gap_find(r, session);
    if (g == NO_GAP && r->ngaps < MAX_GAPS) g = r->ngaps++;
    else if (g == NO_GAP || r->gaps[g].from <= from) return;
    r->gaps[g].session = session;
    r->gaps[g].from = from;
    snprintf(r->gaps[g].reason, sizeof r->gaps[g].reason, "%s", why);
}

static int step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* ---- per-session state of the writer: open hash blocks, full checkpoints ------------------------- */
static sess_state *sess_find(rpl_recorder *r, int64_t session, int add)
{
    for (size_t i = 0; i < r->nss; i++)
        if (r->ss[i].session == session) return &r->ss[i];
    if (!add) return NULL;
    if (r->nss == r->capss) {
        size_t nc = r->capss ? r->capss * 2 : 8;
        sess_state *p = realloc(r->ss, nc * sizeof *p), *q = realloc(r->ss_saved, nc * sizeof *q);
        if (p) r->ss = p;
        if (q) r->ss_saved = q;
        if (!p || !q) return NULL;
        r->capss = nc;
    }
    sess_state *e = &r->ss[r->nss++];
    memset(e, 0, sizeof *e);
    e->session = session;
    return e;
}

/* Room for one more pointer in each of the group's lists of states to free (free_later cannot
 * fail then). 0, or -1 out of memory. */
static int reserve_free(rpl_recorder *r)
{
    if (r->nfree_ok < r->capfree && r->nfree_fail < r->capfree) return 0;
    size_t nc = r->capfree ? r->capfree * 2 : 8;
    void **a = realloc(r->free_ok, nc * sizeof *a);
    if (a) r->free_ok = a;
    void **b = a ? realloc(r->free_fail, nc * sizeof *b) : NULL;
    if (b) r->free_fail = b;
    if (!a || !b) return -1;
    r->capfree = nc;
    return 0;
}

/* p is freed once the group's fate is known: if it commits (on_ok), or if it rolls back. */
static void free_later(rpl_recorder *r, void *p, int on_ok)
{
    if (on_ok) r->free_ok[r->nfree_ok++] = p;
    else r->free_fail[r->nfree_fail++] = p;
}

/* A group starts: what a rollback restores. */
static void group_begin(rpl_recorder *r)
{
    if (r->nss) memcpy(r->ss_saved, r->ss, r->nss * sizeof *r->ss);
    r->nss_saved = r->nss;
    r->nfree_ok = r->nfree_fail = 0;
}

/* The group committed (ok) or was rolled back: drop what it replaced, or what it made. */
static void group_end(rpl_recorder *r, int ok)
{
    void **v = ok ? r->free_ok : r->free_fail;
    size_t n = ok ? r->nfree_ok : r->nfree_fail;
    for (size_t i = 0; i < n; i++) free(v[i]);
    if (!ok) {
        if (r->nss_saved) memcpy(r->ss, r->ss_saved, r->nss_saved * sizeof *r->ss);
        r->nss = r->nss_saved;
    }
    r->nfree_ok = r->nfree_fail = 0;
}

static int put_block(rpl_recorder *r, sess_state *e, int final);

/* A session's state is gone (ended, suspended): its open block is written, and its full
 * checkpoint let go of if the group commits (a resume starts a new block and a full checkpoint). */
static int sess_forget(rpl_recorder *r, int64_t session)
{
    sess_state *e = r->legacy ? NULL : sess_find(r, session, 0);
    if (!e) return SQLITE_OK;
    int rc = put_block(r, e, 1);
    if (rc != SQLITE_OK) return rc;
    if (reserve_free(r) != 0) return SQLITE_NOMEM;
    if (e->full) free_later(r, e->full, 1);
    *e = r->ss[--r->nss];
    return SQLITE_OK;
}

/* The open block's row (INSERT OR REPLACE: it is rewritten as it grows). The ticks before the
 * last keep the low RPL_HASH_BITS of each hash, state bytes then frame bytes, zstd-compressed
 * when that is smaller (a picture that does not change repeats its byte). */
static int put_block(rpl_recorder *r, sess_state *e, int final)
{
    if (!e->n || (!e->dirty && !final)) return SQLITE_OK;
    uint8_t raw[1 + 2 * RPL_HASH_BLOCK];
    const uint8_t *data;
    /* A block still growing is written raw (it is written again with its next ticks: in vivd every
     * commit, every tick); it is compressed once, when it is closed. */
    size_t len = rpl_block_data(final ? r->zctx : NULL, &r->z[0], raw, e->sh8, e->fh8, e->n - 1, &data);
    sqlite3_stmt *st = r->st_block;
    sqlite3_bind_int64(st, 1, e->session);
    sqlite3_bind_int64(st, 2, (int64_t)e->block);
    sqlite3_bind_int64(st, 3, e->n);
    sqlite3_bind_int64(st, 4, (int64_t)e->last_sh);
    sqlite3_bind_int64(st, 5, (int64_t)e->last_fh);
    sqlite3_bind_blob(st, 6, data, (int)len, SQLITE_STATIC);
    int rc = step_done(st);
    if (rc == SQLITE_OK) e->dirty = 0;
    return rc;
}

/* The hashes of tick t: onto the session's open block when t follows it and it has room; else
 * that block's row is written and a new one opened at t. */
static int put_hashes(rpl_recorder *r, int64_t session, uint64_t t, uint64_t sh, uint64_t fh)
{
    if (r->legacy) {
        sqlite3_bind_int64(r->st_tick, 1, session);
        sqlite3_bind_int64(r->st_tick, 2, (int64_t)t);
        sqlite3_bind_int64(r->st_tick, 3, (int64_t)sh);
        sqlite3_bind_int64(r->st_tick, 4, (int64_t)fh);
        return step_done(r->st_tick);
    }
    sess_state *e = sess_find(r, session, 1);
    if (!e) return SQLITE_NOMEM;
    e->seen = 1;
    if (e->n && e->block + e->n == t && e->n < RPL_HASH_BLOCK) {
        e->sh8[e->n - 1] = (uint8_t)e->last_sh;
        e->fh8[e->n - 1] = (uint8_t)e->last_fh;
        e->n++;
    } else {
        int rc = put_block(r, e, 1);
        if (rc != SQLITE_OK) return rc;
        e->block = t;
        e->n = 1;
    }
    e->last_sh = sh;
    e->last_fh = fh;
    e->dirty = 1;
    return SQLITE_OK;
}

/* The open blocks the group changed, written before it commits. */
static int put_blocks(rpl_recorder *r)
{
    int rc = SQLITE_OK;
    for (size_t i = 0; i < r->nss && rc == SQLITE_OK; i++) {
        if (r->ss[i].seen) rc = put_block(r, &r->ss[i], 0);
        r->ss[i].seen = 0;
    }
    return rc;
}

/* A checkpoint: the saved state at tick, stored zstd-compressed (level 3) when that is smaller;
 * after a session's first, as a delta: compressed with the latest full checkpoint's state as
 * zstd's prefix (its tick in the base column), a full one again after full_every deltas. Its
 * recorded hash is always the state hash of the saved state itself (sim_state_hash). A sand world's 230 KB state compresses
 * ~20× alone, and a delta of a world that changed little is a few hundred bytes. */
static int put_checkpoint(rpl_recorder *r, int64_t session, uint64_t tick, const uint8_t *cp,
                          size_t len)
{
    sess_state *e = r->legacy ? NULL : sess_find(r, session, 1);
    int delta = e && e->full && e->full_tick < tick && e->since_full < r->full_every;
    const uint8_t *data;
    size_t dlen;
    delta = rpl_checkpoint_data(r->zctx, r->z, cp, len, delta ? e->full : NULL, delta ? e->full_len : 0,
                                &data, &dlen);
    sqlite3_bind_int64(r->st_cp, 1, session);
    sqlite3_bind_int64(r->st_cp, 2, (int64_t)tick);
    sqlite3_bind_blob(r->st_cp, 3, data, (int)dlen, SQLITE_STATIC);
    sqlite3_bind_int64(r->st_cp, 4, (int64_t)sim_state_hash(cp, len));
    if (delta) sqlite3_bind_int64(r->st_cp, 5, (int64_t)e->full_tick);
    else sqlite3_bind_null(r->st_cp, 5);
    int rc = step_done(r->st_cp);
    if (rc != SQLITE_OK || !e) return rc;
    if (delta) {
        e->since_full++;
        return SQLITE_OK;
    }
    /* The new base for the deltas that follow (kept only if the group commits). */
    uint8_t *copy = reserve_free(r) == 0 ? malloc(len) : NULL;
    if (!copy) return SQLITE_NOMEM;
    memcpy(copy, cp, len);
    free_later(r, copy, 0);
    if (e->full) free_later(r, e->full, 1);
    e->full = copy;
    e->full_len = len;
    e->full_tick = tick;
    e->since_full = 0;
    return SQLITE_OK;
}

/* A fork's lineage row, in the begin's transaction. The table is additive (RPL_FORK_TABLE_SQL):
 * created by the first fork a file gets; forks are rare, so the statement is not kept. */
static int put_lineage(rpl_recorder *r, int64_t session, const rpl_lineage *lin)
{
    sqlite3 *db = rpl_db(r->f);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_exec(db, RPL_FORK_TABLE_SQL, NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO fork (session, parent, tick,"
                                " parent_state_hash, parent_file) VALUES (?,?,?,?,?)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        sqlite3_bind_int64(st, 2, lin->parent);
        sqlite3_bind_int64(st, 3, (int64_t)lin->tick);
        sqlite3_bind_int64(st, 4, (int64_t)lin->parent_hash);
        if (lin->parent_file[0]) sqlite3_bind_text(st, 5, lin->parent_file, -1, SQLITE_STATIC);
        rc = step_done(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) return rc;
    /* The start's own hashes: those the fork begins with, equal to its parent's there. */
    return put_hashes(r, session, lin->tick, lin->parent_hash, lin->frame_hash);
}

static int write_batch(rpl_recorder *r, batch *b)
{
    int rc = SQLITE_OK;
    switch (b->type) {
    case B_BEGIN: {
        const rpl_session *m = &b->meta;
        sqlite3_stmt *st = r->st_session;
        sqlite3_bind_int64(st, 1, m->id);
        sqlite3_bind_text(st, 2, m->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, m->kind_id);
        sqlite3_bind_int64(st, 4, (int64_t)m->seed);
        sqlite3_bind_text(st, 5, m->params, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, m->sim_version, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 7, (int)m->hz);
        sqlite3_bind_int64(st, 8, (int64_t)m->start_tick);
        sqlite3_bind_int64(st, 9, (int64_t)m->start_tick);
        sqlite3_bind_text(st, 10, m->source, -1, SQLITE_STATIC);
        if (m->world >= 0) sqlite3_bind_int64(st, 11, m->world);
        sqlite3_bind_int64(st, 12, (int64_t)m->checkpoint_every);
        sqlite3_bind_text(st, 13, m->created_at, -1, SQLITE_STATIC);
        if (r->node[0]) sqlite3_bind_text(st, 14, r->node, -1, SQLITE_STATIC);
        rc = step_done(st);
        if (rc == SQLITE_OK) rc = put_checkpoint(r, m->id, m->start_tick, b->cp, b->cplen);
        if (rc == SQLITE_OK && b->lin) rc = put_lineage(r, m->id, b->lin);
        break;
    }
    case B_RESUME:
        sqlite3_bind_int64(r->st_run, 1, b->session);
        rc = step_done(r->st_run);
        if (rc == SQLITE_OK) rc = sess_forget(r, b->session);   /* a full checkpoint, a new block */
        if (rc == SQLITE_OK) rc = put_checkpoint(r, b->session, b->tick, b->cp, b->cplen);
        break;
    case B_END:
        sqlite3_bind_text(r->st_close, 1, b->meta.closed_at, -1, SQLITE_STATIC);
        sqlite3_bind_int64(r->st_close, 2, b->session);
        rc = step_done(r->st_close);
        if (rc == SQLITE_OK) rc = sess_forget(r, b->session);
        break;
    case B_SUSPEND: {
        /* The final checkpoint only where the log ends: every tick before it committed (this
         * batch follows them), no gap open. Otherwise the resume replays from the last one. */
        int64_t end = -1;
        sqlite3_bind_int64(r->st_endq, 1, b->session);
        if (sqlite3_step(r->st_endq) == SQLITE_ROW) end = sqlite3_column_int64(r->st_endq, 0);
        sqlite3_reset(r->st_endq);
        sqlite3_clear_bindings(r->st_endq);
        if (b->cp && end == (int64_t)b->tick && gap_find(r, b->session) == NO_GAP)
            rc = put_checkpoint(r, b->session, b->tick, b->cp, b->cplen);
        if (rc != SQLITE_OK) break;
        sqlite3_bind_text(r->st_suspend, 1, b->meta.closed_at, -1, SQLITE_STATIC);
        sqlite3_bind_int64(r->st_suspend, 2, b->session);
        rc = step_done(r->st_suspend);
        if (rc == SQLITE_OK) rc = sess_forget(r, b->session);
        break;
    }
    case B_TICK: {
        int g = gap_find(r, b->session);
        if (b->ends_gap && g >= 0) {
            /* Resuming after a gap: the checkpoint makes the following ticks verifiable again. */
            sqlite3_bind_int64(r->st_gap, 1, b->session);
            sqlite3_bind_int64(r->st_gap, 2, (int64_t)r->gaps[g].from);
            sqlite3_bind_int64(r->st_gap, 3, (int64_t)(b->tick + 1));
            sqlite3_bind_text(r->st_gap, 4, r->gaps[g].reason, -1, SQLITE_TRANSIENT);
            rc = step_done(r->st_gap);
            if (rc != SQLITE_OK) break;
        }
        for (size_t i = 0; i < b->nin && rc == SQLITE_OK; i++) {
            const sim_input *in = &b->in[i];
            uint8_t args[4 * SIM_INPUT_MAX_ARGS];
            for (int a = 0; a < in->nargs; a++) {
                uint32_t v = (uint32_t)in->args[a];
                args[4 * a] = (uint8_t)v; args[4 * a + 1] = (uint8_t)(v >> 8);
                args[4 * a + 2] = (uint8_t)(v >> 16); args[4 * a + 3] = (uint8_t)(v >> 24);
            }
            sqlite3_bind_int64(r->st_input, 1, b->session);
            sqlite3_bind_int64(r->st_input, 2, (int64_t)b->tick);
            sqlite3_bind_int64(r->st_input, 3, in->client);
            sqlite3_bind_int64(r->st_input, 4, in->seq);
            sqlite3_bind_int(r->st_input, 5, in->kind);
            sqlite3_bind_blob(r->st_input, 6, args, 4 * in->nargs, SQLITE_TRANSIENT);
            rc = step_done(r->st_input);
        }
        if (rc != SQLITE_OK) break;
        rc = put_hashes(r, b->session, b->tick + 1, b->sh, b->fh);
        for (size_t i = 0; i < b->nph && r->st_phase && rc == SQLITE_OK; i++) {
            sqlite3_bind_int64(r->st_phase, 1, b->session);
            sqlite3_bind_int64(r->st_phase, 2, (int64_t)(b->tick + 1));
            sqlite3_bind_int64(r->st_phase, 3, (int64_t)i);
            sqlite3_bind_text(r->st_phase, 4, b->ph[i].name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(r->st_phase, 5, (int64_t)b->ph[i].hash);
            rc = step_done(r->st_phase);
        }
        if (rc == SQLITE_OK && b->cp) rc = put_checkpoint(r, b->session, b->tick + 1, b->cp, b->cplen);
        if (rc != SQLITE_OK) break;
        sqlite3_bind_int64(r->st_end, 1, (int64_t)(b->tick + 1));
        sqlite3_bind_int64(r->st_end, 2, b->session);
        rc = step_done(r->st_end);
        break;
    }
    }
    return rc;
}

static void add_result(rpl_recorder *r, int64_t session, uint64_t tick, int ok)
{
    /* Coalesce: the caller needs only the latest settled tick of each outcome run. */
    if (r->nres && r->res[r->nres - 1].session == session && r->res[r->nres - 1].ok == ok) {
        r->res[r->nres - 1].tick = tick;
        return;
    }
    if (r->nres == r->capres) {
        size_t nc = r->capres ? r->capres * 2 : 64;
        rpl_commit *p = realloc(r->res, nc * sizeof *p);
        if (!p) return;          /* the caller will see the next result instead */
        r->res = p;
        r->capres = nc;
    }
    r->res[r->nres++] = (rpl_commit){ session, tick, ok };
}

/* Batches back at the front of the queue, in their order (write_group's rest). */
static void defer(rpl_recorder *r, batch *list)
{
    pthread_mutex_lock(&r->mu);
    batch *last = list;
    for (;; last = last->next) {
        r->queued_bytes += last->bytes;
        r->st.queued_batches++;
        if (!last->next) break;
    }
    last->next = r->head;
    if (!r->head) r->tail = last;
    r->head = list;
    pthread_mutex_unlock(&r->mu);
}

/* Write one group of batches in one transaction: 1 if it was written (or had nothing to write),
 * 0 if it was rolled back; *tried: whether there was a transaction. */
static int write_group(rpl_recorder *r, batch *list, int *tried)
{
    sqlite3 *db = rpl_db(r->f);
    /* Batches of a session in a gap are dropped until one carries a checkpoint; those after it
     * in this group follow it. */
    batch *keep = NULL, **kt = &keep, *dropped = NULL, *order = NULL, **ot = &order;
    int64_t ended[MAX_GAPS];
    int nended = 0;
    for (batch *b = list, *nx; b; b = nx) {
        nx = b->next;
        b->next = NULL;
        if (b->type == B_LOST) {
            int in_ended = 0;
            for (int i = 0; i < nended; i++) in_ended |= ended[i] == b->session;
            if (in_ended) {
                /* Its session's gap ends earlier in this group and a new one begins here: the
                 * rest waits for the next group, where the first is closed. */
                b->next = nx;
                defer(r, b);
                break;
            }
        }
        b->onext = NULL;
        *ot = b;
        ot = &b->onext;
        if (b->type == B_LOST) {
            pthread_mutex_lock(&r->mu);
            /* out of the queue: no later refusal joins it now (its `last` is final) */
            for (int i = 0; i < r->nlost; i++)
                if (r->lost[i] == b) r->lost[i--] = r->lost[--r->nlost];
            gap_open(r, b->session, b->tick, b->why ? b->why : "not recorded");
            /* failing until the gap ends, even if a group committed since the refusal said not */
            if (b->overflow && b->why) {
                r->failing = 1;
                snprintf(r->failmsg, sizeof r->failmsg, "%s", b->why);
            }
            pthread_mutex_unlock(&r->mu);
            b->next = dropped;
            dropped = b;
            continue;
        }
        int gap = b->type == B_TICK && gap_find(r, b->session) >= 0;
        for (int i = 0; i < nended && gap; i++) gap = ended[i] != b->session;
        if (gap && !b->cp) {
            b->next = dropped;
            dropped = b;
            continue;
        }
        if (gap && nended < MAX_GAPS) {
            b->ends_gap = 1;
            ended[nended++] = b->session;
        }
        b->kept = 1;
        *kt = b;
        kt = &b->next;
    }
    int rc = SQLITE_OK;
    *tried = keep != NULL;
    if (keep) {
        group_begin(r);
        rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        for (batch *b = keep; b && rc == SQLITE_OK; b = b->next) rc = write_batch(r, b);
        if (rc == SQLITE_OK) rc = put_blocks(r);
        if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        if (rc != SQLITE_OK) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        group_end(r, rc == SQLITE_OK);
    }
    pthread_mutex_lock(&r->mu);
    /* The outcomes in the order of the ticks, so that the caller settles each session's ticks in
     * order: those written, dropped in a gap, and those a LOST marker stands for. */
    for (batch *b = order; b; b = b->onext) {
        if (b->type == B_LOST) add_result(r, b->session, b->last + 1, 0);
        else if (b->type == B_TICK) add_result(r, b->session, b->tick + 1, b->kept && rc == SQLITE_OK);
    }
    if (dropped) r->all_ok = 0;
    if (rc == SQLITE_OK) {
        /* A gap closes at the checkpoint that ends it (resumed; one a LOST marker opened later
         * in this group stays open), and at its session's end or suspend: that session is over,
         * its log stops at its last tick written (end_tick), so the ticks it lost are no hole
         * and no checkpoint will come (still counted, it kept the recorder failing, every
         * world's inputs refused, until vivd stopped). */
        for (batch *b = keep; b; b = b->next) {
            int g = gap_find(r, b->session);
            if (g != NO_GAP && ((b->type == B_TICK && b->ends_gap) || b->type == B_END || b->type == B_SUSPEND))
                r->gaps[g] = r->gaps[--r->ngaps];
        }
        if (keep && r->ngaps == 0) r->failing = 0;
    } else {
        snprintf(r->failmsg, sizeof r->failmsg, "writing %s failed: %s", rpl_path(r->f),
                 sqlite3_errstr(rc));
        r->failing = 1;
        r->all_ok = 0;
        for (batch *b = keep; b; b = b->next)
            if (b->type == B_TICK) gap_open(r, b->session, b->tick, sqlite3_errstr(rc));
    }
    pthread_mutex_unlock(&r->mu);
    /* Session rows (begin, resume, end) must not be lost: keep them for the next attempt. */
    for (batch *b = keep, *nx; b; b = nx) {
        nx = b->next;
        if (rc != SQLITE_OK && b->type != B_TICK) {
            b->next = r->retry;
            r->retry = b;
        } else {
            batch_done(r, b);
        }
    }
    for (batch *b = dropped, *nx; b; b = nx) {
        nx = b->next;
        batch_done(r, b);
    }
    return rc == SQLITE_OK;
}

static void *writer_main(void *arg)
{
    rpl_recorder *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->head && !r->stop) pthread_cond_wait(&r->work, &r->mu);
        if (!r->head && r->stop) break;
        batch *list = r->head;
        r->head = r->tail = NULL;
        r->queued_bytes = 0;
        r->st.queued_batches = 0;
        r->busy = 1;
        uint64_t t0 = mono_ns();
        r->st.writing = 1;
        r->st.writing_since_ns = t0;
        pthread_mutex_unlock(&r->mu);
        /* Retried session rows go first, in their original order. */
        if (r->retry) {
            batch *rev = NULL;
            while (r->retry) {
                batch *b = r->retry;
                r->retry = b->next;
                b->next = rev;
                rev = b;
            }
            batch *t = rev;
            while (t->next) t = t->next;
            t->next = list;
            list = rev;
        }
        int tried = 0;
        int ok = write_group(r, list, &tried);
        uint64_t t1 = mono_ns();
        if (r->wake) r->wake(r->ud);
        pthread_mutex_lock(&r->mu);
        r->busy = 0;
        r->st.writing = 0;
        r->st.settled_at_ns = t1;
        /* A group is a transaction: one whose every batch was dropped (its sessions in a gap, a
         * tick each while the disk is full) wrote nothing and is not counted. */
        if (tried) {
            r->st.groups++;
            r->st.groups_failed += !ok;
            r->st.commit_hist[rpl_commit_bucket((t1 - t0) / 1000)]++;
            r->st.commit_ns_sum += t1 - t0;
        }
        pthread_cond_broadcast(&r->idle);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* ---- the caller's side ------------------------------------------------------------------------------ */
static int lost_find(const rpl_recorder *r, int64_t session)
{
    for (int i = 0; i < r->nlost; i++)
        if (r->lost[i]->session == session) return i;
    return -1;
}

/* b becomes the LOST marker of its tick (its payload freed), why its reason. */
static void make_lost(batch *b, const char *why)
{
    b->last = b->tick;
    free(b->in);
    free(b->cp);
    free(b->ph);
    b->in = NULL;
    b->cp = NULL;
    b->ph = NULL;
    b->nin = b->cplen = b->cpcap = b->nph = 0;
    b->type = B_LOST;
    b->bytes = sizeof *b;
    b->why = why ? strdup(why) : NULL;     /* NULL: the writer says "not recorded" */
}

enum { QUEUED_LOST = 1 };       /* enqueue: refused, and b queued as its LOST marker */

/* Queue b, under mu: 0. A tick over the queue's limit (unless forced) is refused: RPL_EFAILING
 * (the caller frees b), or QUEUED_LOST when b went in as its LOST marker, as it does unless one
 * of its session's is queued with no checkpoint after it. */
static int enqueue_locked(rpl_recorder *r, batch *b, int force)
{
    /* (into an empty queue anything goes: the limit bounds a backlog, not one checkpoint) */
    if (!force && r->queued_bytes && r->queued_bytes + b->bytes > r->max_bytes) {
        if (!r->failing) {
            if (r->max_bytes >= (size_t)1 << 20)
                snprintf(r->failmsg, sizeof r->failmsg, "the log is behind: over %zu MiB waiting to be "
                         "written", r->max_bytes >> 20);
            else
                snprintf(r->failmsg, sizeof r->failmsg, "the log is behind: over %zu bytes waiting to "
                         "be written", r->max_bytes);
        }
        r->failing = 1;
        if (b->type != B_TICK) return RPL_EFAILING;
        int k = lost_find(r, b->session);
        if (k >= 0) {
            r->lost[k]->last = b->tick;
            return RPL_EFAILING;
        }
        make_lost(b, r->failmsg);
        if (r->nlost < MAX_GAPS) r->lost[r->nlost++] = b;
        b->overflow = 1;
        enqueue_locked(r, b, 1);
        return QUEUED_LOST;
    }
    /* a checkpoint queued (or the session's end) after a marker: a later refusal needs its own */
    int k = (b->type == B_TICK && b->cp) || b->type == B_END || b->type == B_SUSPEND ? lost_find(r, b->session) : -1;
    if (k >= 0) r->lost[k] = r->lost[--r->nlost];
    if (r->tail) r->tail->next = b;
    else r->head = b;
    r->tail = b;
    r->queued_bytes += b->bytes;
    r->st.queued_batches++;          /* counters under the lock enqueue holds anyway */
    r->st.batches++;
    pthread_cond_signal(&r->work);
    return 0;
}

static int enqueue(rpl_recorder *r, batch *b, int force)
{
    pthread_mutex_lock(&r->mu);
    int rc = enqueue_locked(r, b, force);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

rpl_recorder *rpl_recorder_open(const rpl_rec_config *cfg, char *err, size_t errlen)
{
    rpl_recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cfg->node) {
        if (rpl_node_name_check(cfg->node, err, errlen) != 0) {
            free(r);
            return NULL;
        }
        snprintf(r->node, sizeof r->node, "%s", cfg->node);
    }
    if (rpl_open(cfg->path, RPL_WRITE, cfg->durability, &r->f, err, errlen) != 0) {
        free(r);
        return NULL;
    }
    sqlite3 *db = rpl_db(r->f);
    static const char *const sql[] = {
        "INSERT INTO input (session, tick, client, seq, kind, args) VALUES (?,?,?,?,?,?)",
        "INSERT INTO tick (session, tick, state_hash, frame_hash) VALUES (?,?,?,?)",
        "INSERT OR REPLACE INTO checkpoint (session, tick, state, state_hash, base) VALUES (?,?,?,?,?)",
        "UPDATE session SET end_tick = ? WHERE id = ?",
        "INSERT OR REPLACE INTO gap (session, from_tick, to_tick, reason) VALUES (?,?,?,?)",
        "INSERT INTO session (id, kind, kind_id, seed, params, sim_version, hz, start_tick, end_tick,"
        " status, source, world, checkpoint_every, created_at, node)"
        " VALUES (?,?,?,?,?,?,?,?,?,'running',?,?,?,?,?)",
        "UPDATE session SET status = 'closed', closed_at = ? WHERE id = ?",
        "UPDATE session SET status = 'running', closed_at = NULL WHERE id = ?",
        "UPDATE session SET status = 'suspended', closed_at = ? WHERE id = ?",
        "SELECT end_tick FROM session WHERE id = ?",
    };
    sqlite3_stmt **st[] = { &r->st_input, &r->st_tick, &r->st_cp, &r->st_end, &r->st_gap,
                            &r->st_session, &r->st_close, &r->st_run, &r->st_suspend, &r->st_endq };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        if (sqlite3_prepare_v2(db, sql[i], -1, st[i], NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s: %s", cfg->path, sqlite3_errmsg(db));
            goto fail;
        }
    }
    if (cfg->phases) {
        /* Additive: a file without the table is a file recorded without phase hashes, and
         * readers that do not know it never look. */
        char *msg = NULL;
        if (sqlite3_exec(db, RPL_PHASE_TABLE_SQL, NULL, NULL, &msg) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO phase (session, tick, idx, name, hash)"
                               " VALUES (?,?,?,?,?)", -1, &r->st_phase, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s: cannot add the phase table: %s", cfg->path,
                     msg ? msg : sqlite3_errmsg(db));
            sqlite3_free(msg);
            goto fail;
        }
    }
    r->legacy = cfg->legacy;
    r->full_every = cfg->full_every ? cfg->full_every : RPL_FULL_EVERY;
    if (!r->legacy &&
        sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO hashes (session, tick, n, last_sh, last_fh, data)"
                           " VALUES (?,?,?,?,?,?)", -1, &r->st_block, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", cfg->path, sqlite3_errmsg(db));
        goto fail;
    }
    sqlite3_stmt *mx = NULL;
    r->next_session = 1;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(max(id), 0) FROM session", -1, &mx, NULL) == SQLITE_OK &&
        sqlite3_step(mx) == SQLITE_ROW)
        r->next_session = sqlite3_column_int64(mx, 0) + 1;
    sqlite3_finalize(mx);
    r->max_bytes = cfg->max_queue_bytes ? cfg->max_queue_bytes : (size_t)256 << 20;
    r->wake = cfg->wake;
    r->ud = cfg->ud;
    r->all_ok = 1;
    r->zctx = ZSTD_createCCtx();          /* NULL: checkpoints are stored uncompressed */
    r->st.settled_at_ns = mono_ns();
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work, NULL);
    pthread_cond_init(&r->idle, NULL);
    if (pthread_create(&r->th, NULL, writer_main, r) != 0) {
        snprintf(err, errlen, "cannot start the replay writer thread");
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work);
        pthread_cond_destroy(&r->idle);
        goto fail;
    }
    return r;
fail:
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) sqlite3_finalize(*st[i]);
    sqlite3_finalize(r->st_phase);
    sqlite3_finalize(r->st_block);
    rpl_close(r->f);
    free(r);
    return NULL;
}

static batch *new_batch(int type, int64_t session, uint64_t tick)
{
    batch *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->type = type;
    b->session = session;
    b->tick = tick;
    b->bytes = sizeof *b;
    return b;
}

/* w's saved state into b->cp. 0, RPL_ENOMEM, or RPL_ESTATE if the world cannot be saved. */
static int save_into(batch *b, const sim_world *w)
{
    size_t cap = sim_world_save_max(w);
    b->cp = malloc(cap);
    if (!b->cp) return RPL_ENOMEM;
    b->cplen = sim_world_save(w, b->cp, cap);
    if (!b->cplen) return RPL_ESTATE;          /* a non-finite value: the world cannot be saved */
    b->bytes += b->cplen;
    return 0;
}

uint64_t rpl_checkpoint_every(const sim_world *w)
{
    int fw = 0, fh = 0;
    sim_world_frame_size(w, &fw, &fh);
    uint64_t px = fw > 0 && fh > 0 ? (uint64_t)fw * (uint64_t)fh : 1;
    uint64_t parts = (px + RPL_CHECKPOINT_PIXELS - 1) / RPL_CHECKPOINT_PIXELS;
    uint64_t secs = RPL_CHECKPOINT_SECONDS / parts;
    if (secs < RPL_CHECKPOINT_SECONDS_MIN) secs = RPL_CHECKPOINT_SECONDS_MIN;
    return secs * sim_world_kind(w)->hz;
}

int64_t rpl_recorder_begin(rpl_recorder *r, const sim_world *w, const char *source, int64_t world_id,
                           uint64_t checkpoint_every, char *err, size_t errlen)
{
    return rpl_recorder_begin_fork(r, w, source, world_id, checkpoint_every, NULL, err, errlen);
}

int64_t rpl_recorder_begin_fork(rpl_recorder *r, const sim_world *w, const char *source,
                                int64_t world_id, uint64_t checkpoint_every,
                                const rpl_lineage *lin, char *err, size_t errlen)
{
    batch *b = new_batch(B_BEGIN, 0, sim_world_tick(w));
    int rc = b ? save_into(b, w) : RPL_ENOMEM;
    if (rc) {
        batch_free(b);
        snprintf(err, errlen, "out of memory saving the initial state");
        return rc;
    }
    if (lin) {
        b->lin = malloc(sizeof *lin);
        if (!b->lin) {
            batch_free(b);
            snprintf(err, errlen, "out of memory");
            return RPL_ENOMEM;
        }
        *b->lin = *lin;
        b->bytes += sizeof *lin;
    }
    const sim_kind *k = sim_world_kind(w);
    rpl_session *m = &b->meta;
    pthread_mutex_lock(&r->mu);
    m->id = r->next_session++;
    pthread_mutex_unlock(&r->mu);
    b->session = m->id;
    snprintf(m->kind, sizeof m->kind, "%s", k->name);
    m->kind_id = k->id;
    m->seed = sim_world_seed(w);
    snprintf(m->params, sizeof m->params, "%s", sim_world_params(w));
    snprintf(m->sim_version, sizeof m->sim_version, "%s", SIM_VERSION);
    m->hz = k->hz;
    m->start_tick = sim_world_tick(w);
    snprintf(m->source, sizeof m->source, "%s", source);
    m->world = world_id;
    m->checkpoint_every = checkpoint_every;
    now_iso(m->created_at, sizeof m->created_at);
    int64_t id = m->id;            /* the writer may free b as soon as it is queued */
    enqueue(r, b, 1);
    return id;
}

int rpl_recorder_resume(rpl_recorder *r, int64_t session, const sim_world *w)
{
    batch *b = new_batch(B_RESUME, session, sim_world_tick(w));
    int rc = b ? save_into(b, w) : RPL_ENOMEM;
    if (rc) {
        batch_free(b);
        return rc;
    }
    return enqueue(r, b, 1);
}

int rpl_recorder_tick(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                      size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen)
{
    return rpl_recorder_tick_phases(r, session, tick, in, nin, sh, fh, cp, cplen, NULL, 0);
}

static int tick_batch(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                      size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen,
                      uint8_t *own, size_t owncap, const rpl_phase *ph, size_t nph);

int rpl_recorder_tick_phases(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                             size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen,
                             const rpl_phase *ph, size_t nph)
{
    return tick_batch(r, session, tick, in, nin, sh, fh, cp, cplen, NULL, 0, ph, nph);
}

uint8_t *rpl_recorder_cp_buffer(rpl_recorder *r, size_t cap)
{
    uint8_t *p = NULL;
    pthread_mutex_lock(&r->mu);
    int k = -1;                         /* the smallest kept that is big enough */
    for (int i = 0; i < RPL_SPARE_BUFFERS; i++)
        if (r->spare[i].cap >= cap && cap && (k < 0 || r->spare[i].cap < r->spare[k].cap)) k = i;
    if (k >= 0) {
        p = r->spare[k].p;
        r->spare[k].p = NULL;
        r->spare[k].cap = 0;
    }
    pthread_mutex_unlock(&r->mu);
    return p ? p : malloc(cap ? cap : 1);
}

int rpl_recorder_tick_own(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                          size_t nin, uint64_t sh, uint64_t fh, uint8_t *cp, size_t cplen, size_t cpcap,
                          const rpl_phase *ph, size_t nph)
{
    return tick_batch(r, session, tick, in, nin, sh, fh, NULL, cplen, cp, cpcap, ph, nph);
}

static int tick_batch(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                      size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen,
                      uint8_t *own, size_t owncap, const rpl_phase *ph, size_t nph)
{
    /* Queued even while writes fail: only the writer knows, in order, where each session's gap
     * begins and which checkpoint ends it. A tick refused here (the queue over its limit) goes in
     * as a LOST marker, which tells the writer where: otherwise it would be a hole no gap row
     * covers (verify: damaged). */
    batch *b = new_batch(B_TICK, session, tick);
    if (!b) {
        free(own);
        return RPL_ENOMEM;
    }
    b->sh = sh;
    b->fh = fh;
    if (own) {                         /* handed over: no copy (freed with b on any failure) */
        b->cp = own;
        b->cplen = cplen;
        b->cpcap = owncap;
        b->bytes += cplen;
    }
    if (nin) {
        b->in = malloc(nin * sizeof *in);
        if (!b->in) {
            batch_free(b);
            return RPL_ENOMEM;
        }
        memcpy(b->in, in, nin * sizeof *in);
        b->nin = nin;
        b->bytes += nin * sizeof *in;
    }
    if (cp) {
        b->cp = malloc(cplen);
        if (!b->cp) {
            batch_free(b);
            return RPL_ENOMEM;
        }
        memcpy(b->cp, cp, cplen);
        b->cplen = cplen;
        b->bytes += cplen;
    }
    if (nph && r->st_phase) {
        b->ph = malloc(nph * sizeof *ph);
        if (!b->ph) {
            batch_free(b);
            return RPL_ENOMEM;
        }
        memcpy(b->ph, ph, nph * sizeof *ph);
        b->nph = nph;
        b->bytes += nph * sizeof *ph;
    }
    int rc = enqueue(r, b, 0);
    if (rc == QUEUED_LOST) return RPL_EFAILING;
    if (rc) batch_free(b);
    return rc;
}

int rpl_recorder_lost(rpl_recorder *r, int64_t session, uint64_t tick, const char *why)
{
    batch *b = new_batch(B_TICK, session, tick);
    if (!b) return RPL_ENOMEM;
    make_lost(b, why);
    return enqueue(r, b, 1);
}

void rpl_recorder_end(rpl_recorder *r, int64_t session)
{
    batch *b = new_batch(B_END, session, 0);
    if (!b) return;
    now_iso(b->meta.closed_at, sizeof b->meta.closed_at);
    enqueue(r, b, 1);
}

int rpl_recorder_suspend(rpl_recorder *r, int64_t session, const sim_world *w)
{
    batch *b = new_batch(B_SUSPEND, session, w ? sim_world_tick(w) : 0);
    if (!b) return RPL_ENOMEM;
    int rc = w ? save_into(b, w) : 0;
    if (rc) {                          /* suspended all the same: the resume replays further */
        free(b->cp);
        b->cp = NULL;
        b->cplen = 0;
    }
    now_iso(b->meta.closed_at, sizeof b->meta.closed_at);
    enqueue(r, b, 1);
    return rc;
}

size_t rpl_recorder_poll(rpl_recorder *r, rpl_commit *out, size_t max)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->nres < max ? r->nres : max;
    if (n) {                 /* r->res is NULL until the first result: no memcpy from NULL */
        memcpy(out, r->res, n * sizeof *out);
        memmove(r->res, r->res + n, (r->nres - n) * sizeof *out);
        r->nres -= n;
    }
    pthread_mutex_unlock(&r->mu);
    return n;
}

void rpl_recorder_stats(rpl_recorder *r, rpl_rec_stats *out)
{
    pthread_mutex_lock(&r->mu);
    *out = r->st;
    out->queued_bytes = r->queued_bytes;
    out->failing = r->failing;
    snprintf(out->failmsg, sizeof out->failmsg, "%s", r->failing ? r->failmsg : "");
    pthread_mutex_unlock(&r->mu);
}

int rpl_recorder_failing(rpl_recorder *r, char *msg, size_t len)
{
    pthread_mutex_lock(&r->mu);
    int f = r->failing;
    if (f && msg) snprintf(msg, len, "%s", r->failmsg);
    pthread_mutex_unlock(&r->mu);
    return f;
}

int rpl_recorder_flush(rpl_recorder *r)
{
    pthread_mutex_lock(&r->mu);
    while (r->head || r->busy) pthread_cond_wait(&r->idle, &r->mu);
    int ok = r->all_ok && !r->retry;
    r->all_ok = 1;
    pthread_mutex_unlock(&r->mu);
    return ok ? 0 : RPL_EFAILING;
}

int rpl_recorder_close(rpl_recorder *r)
{
    if (!r) return 0;
    int rc = rpl_recorder_flush(r);
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->work);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->th, NULL);
    for (batch *b = r->retry, *nx; b; b = nx) {
        nx = b->next;
        batch_free(b);
    }
    sqlite3_stmt *st[] = { r->st_input, r->st_tick, r->st_cp, r->st_end, r->st_gap,
                           r->st_session, r->st_close, r->st_run, r->st_suspend, r->st_endq };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) sqlite3_finalize(st[i]);
    sqlite3_finalize(r->st_phase);
    sqlite3_finalize(r->st_block);
    rpl_close(r->f);
    for (size_t i = 0; i < r->nss; i++) free(r->ss[i].full);
    free(r->ss);
    free(r->ss_saved);
    free(r->free_ok);
    free(r->free_fail);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work);
    pthread_cond_destroy(&r->idle);
    ZSTD_freeCCtx(r->zctx);
    free(r->z[0].p);
    free(r->z[1].p);
    for (int i = 0; i < RPL_SPARE_BUFFERS; i++) free(r->spare[i].p);
    free(r->res);
    free(r);
    return rc;
}
