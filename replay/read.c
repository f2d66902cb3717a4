/* read.c — reading a replay file: sessions, checkpoints (checked against their recorded hash),
 * the input log (rebuilt and validated row by row), recorded hashes, gaps, and the plan of spans
 * a replay follows. All SQL is prepared with bound parameters; u64 values are stored as the i64
 * with the same bits (docs/REPLAY.md). */
#include <assert.h>
#include <sqlite3.h>
#include <zstd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "read.h"
#include "read_int.h"

/* ---- small helpers ------------------------------------------------------------------------------- */
/* A read SQLite failed with rc. A damaged database (pages that are not what their b-tree says,
 * or no database at all past the header) is the file's fault and says so, with the next step:
 * RPL_ECORRUPT. Anything else (an I/O error, a lock) is RPL_EDB with SQLite's own words. */
static int db_failed(rpl_file *f, int rc, const char *what, char *err, size_t errlen)
{
    const char *p = rpl_path(f);
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB) {
        snprintf(err, errlen, "%s is damaged: SQLite cannot read %s (%s), so the file was truncated "
                 "or overwritten after it was written. Next: `sqlite3 %s 'PRAGMA integrity_check'` "
                 "says which pages are hurt; restore the file from a backup (or the recording node's "
                 "own copy); `sqlite3 %s .recover` may save the rows that are left", p, what,
                 sqlite3_errstr(rc), p, p);
        return RPL_ECORRUPT;
    }
    snprintf(err, errlen, "%s: reading %s failed: %s", p, what, sqlite3_errmsg(rpl_db(f)));
    return RPL_EDB;
}

static int prepare(rpl_file *f, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
    sqlite3 *db = rpl_db(f);
    int rc = rpl_stmt_prepare(f, sql, st);
    if (rc != SQLITE_OK) {
        *st = NULL;
        if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
            return db_failed(f, rc, "its schema", err, errlen);
        snprintf(err, errlen, "%s: cannot read it: %s", rpl_path(f), sqlite3_errmsg(db));
        return RPL_EDB;
    }
    return 0;
}

static int read_failed(rpl_file *f, const char *what, char *err, size_t errlen)
{
    return db_failed(f, sqlite3_extended_errcode(rpl_db(f)), what, err, errlen);
}

static void copy_text(sqlite3_stmt *st, int col, char *dst, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

int rd_grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *p = realloc(*v, nc * size);
    if (!p) return RPL_ENOMEM;
    *v = p;
    *cap = nc;
    return 0;
}

/* A tick as bound: u64 stored as the i64 with the same bits, clamped to what a row can hold. */
int64_t rd_tick_arg(uint64_t t) { return (int64_t)(t > INT64_MAX ? INT64_MAX : t); }

/* A tick column as the recorder writes it: an integer, not negative. SQLite keeps whatever type a
 * damaged file holds (a real such as 0.5 passes `tick BETWEEN ? AND ?` and would read as 0, a
 * duplicate of the tick 0 row): 0, or -1 when the column holds anything else. */
int rd_tick_col(sqlite3_stmt *st, int col, uint64_t *out)
{
    int64_t v = sqlite3_column_int64(st, col);
    if (sqlite3_column_type(st, col) != SQLITE_INTEGER || v < 0) return -1;
    *out = (uint64_t)v;
    return 0;
}


/* Room for one row of any query here, before it joins the array. */
typedef union row_buf {
    rpl_session_info info;
    uint64_t tick;
    rpl_tick_row hashes;
    rpl_gap gap;
    rpl_phase phase;
} row_buf;

/* Run q: prepare, bind, step every row, hand each to q->row, and append what it filled to *v, a
 * malloc'd array grown as needed (v NULL: each row fills q->ud, and they are only counted). 0
 * with the rows in *v (NULL when none) and their count in *n; or, with a sentence in err and
 * nothing in *v, RPL_EDB (prepare: "cannot read it"; a step: "reading <what> failed"),
 * RPL_ENOMEM (q->oom), or the code with which q->row refused a row. A row is read before the
 * array grows for it, so a damaged row is reported as such even when memory is short. */
int rd_query_rows(rpl_file *f, const query *q, void **v, size_t *n, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    row_buf one;
    size_t cap = 0;
    void *a = NULL;
    *n = 0;
    if (v) *v = NULL;
    assert(!v || (q->oom && q->size <= sizeof one));
    int code = prepare(f, q->sql, &st, err, errlen), rc;
    if (code) return code;
    for (int i = 0; i < q->nbind; i++) sqlite3_bind_int64(st, i + 1, q->bind[i]);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        memset(&one, 0, v ? q->size : 0);
        if ((code = q->row(st, v ? (void *)&one : q->ud, q->ud, err, errlen)) != 0) goto fail;
        if (v) {
            if ((code = rd_grow(&a, &cap, *n, q->size)) != 0) {
                snprintf(err, errlen, "%s", q->oom);
                goto fail;
            }
            memcpy((char *)a + *n * q->size, &one, q->size);
        }
        (*n)++;
    }
    if (rc != SQLITE_DONE) {
        code = read_failed(f, q->what, err, errlen);
        goto fail;
    }
    rpl_stmt_done(f, st);
    if (v) *v = a;
    return 0;
fail:
    rpl_stmt_done(f, st);
    free(a);
    *n = 0;
    return code;
}

/* ---- sessions ------------------------------------------------------------------------------------ */
/* The session columns in session_from_row's order. A file of schema 1 or 2 has no node columns:
 * they read as NULL (no named node, not collected). */
#define SESSION_COLS                                                                                \
    "id, kind, kind_id, seed, params, sim_version, hz, start_tick, end_tick, status, source, world, " \
    "checkpoint_every, created_at, closed_at, "
#define SESSION_COLS_3 SESSION_COLS "node, origin_id"
#define SESSION_COLS_2 SESSION_COLS "NULL, NULL"

/* "SELECT <the session columns> FROM session <tail>" for f's schema, into sql[512]. */
static const char *sessions_sql(rpl_file *f, const char *tail, char *sql)
{
    snprintf(sql, 512, "SELECT %s FROM session %s",
             rpl_schema(f) >= 3 ? SESSION_COLS_3 : SESSION_COLS_2, tail);
    return sql;
}

static void session_from_row(sqlite3_stmt *st, rpl_session *s)
{
    memset(s, 0, sizeof *s);
    s->id = sqlite3_column_int64(st, 0);
    copy_text(st, 1, s->kind, sizeof s->kind);
    int64_t kid = sqlite3_column_int64(st, 2);
    s->kind_id = (kid >= 0 && kid <= UINT16_MAX) ? (uint16_t)kid : UINT16_MAX;
    s->seed = (uint64_t)sqlite3_column_int64(st, 3);
    copy_text(st, 4, s->params, sizeof s->params);
    copy_text(st, 5, s->sim_version, sizeof s->sim_version);
    int64_t hz = sqlite3_column_int64(st, 6);
    s->hz = (hz > 0 && hz <= 100000) ? (uint32_t)hz : 0;
    s->start_tick = (uint64_t)sqlite3_column_int64(st, 7);
    s->end_tick = (uint64_t)sqlite3_column_int64(st, 8);
    const unsigned char *status = sqlite3_column_text(st, 9);
    s->running = status && strcmp((const char *)status, "running") == 0;
    s->suspended = status && strcmp((const char *)status, "suspended") == 0;
    copy_text(st, 10, s->source, sizeof s->source);
    s->world = sqlite3_column_type(st, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 11);
    s->checkpoint_every = (uint64_t)sqlite3_column_int64(st, 12);
    copy_text(st, 13, s->created_at, sizeof s->created_at);
    copy_text(st, 14, s->closed_at, sizeof s->closed_at);
    copy_text(st, 15, s->node, sizeof s->node);
    s->origin_id = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 16);
}

/* The row of a count query: count(*), and a second number when it has one, into c[0..1]. */
static int counts_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    uint64_t *c = one;
    c[0] = (uint64_t)sqlite3_column_int64(st, 0);
    if (sqlite3_column_count(st) > 1) c[1] = (uint64_t)sqlite3_column_int64(st, 1);
    return 0;
}

/* The one row of a count query into c[0..1]: 0, or RPL_EDB ("reading <what> failed") when it
 * gives none. */
static int count_query(rpl_file *f, const char *sql, const int64_t *id, const char *what,
                       uint64_t c[2], char *err, size_t errlen)
{
    query q = { .sql = sql, .bind = { id ? *id : 0 }, .nbind = id != NULL, .what = what,
                .row = counts_row, .ud = c };
    size_t n;
    int code = rd_query_rows(f, &q, NULL, &n, err, errlen);
    if (code == 0 && n != 1) code = read_failed(f, what, err, errlen);
    return code;
}

static int session_counts(rpl_file *f, rpl_session_info *info, char *err, size_t errlen)
{
    const char *sql[] = {
        "SELECT count(*), 0 FROM input WHERE session = ?",
        rpl_schema(f) >= 4 ? "SELECT (SELECT count(*) FROM tick WHERE session = ?1) + "
                             "(SELECT coalesce(sum(n), 0) FROM hashes WHERE session = ?1), 0"
                           : "SELECT count(*), 0 FROM tick WHERE session = ?",
        "SELECT count(*), 0 FROM checkpoint WHERE session = ?",
        "SELECT count(*), coalesce(sum(to_tick - from_tick), 0) FROM gap WHERE session = ?",
    };
    uint64_t *dst[] = { &info->inputs, &info->ticks, &info->checkpoints, &info->gaps };
    for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
        uint64_t c[2] = { 0, 0 };
        int code = count_query(f, sql[i], &info->s.id, "session counts", c, err, errlen);
        if (code) return code;
        *dst[i] = c[0];
        if (i == 3) info->gap_ticks = c[1];
    }
    return 0;
}

/* A session: an element of an rpl_session array, or of an rpl_session_info one (its first
 * member), or the one a query by id finds. */
static int session_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    session_from_row(st, one);
    return 0;
}

int rpl_sessions_list(rpl_file *f, rpl_session_info **out, size_t *n, char *err, size_t errlen)
{
    char sql[512];
    query q = { .sql = sessions_sql(f, "ORDER BY id", sql), .what = "sessions",
                .oom = "out of memory listing sessions", .size = sizeof **out,
                .row = session_row };
    rpl_session_info *v;
    size_t nv;
    *out = NULL;
    *n = 0;
    int code = rd_query_rows(f, &q, (void **)&v, &nv, err, errlen);
    if (code) return code;
    for (size_t i = 0; i < nv; i++)
        if ((code = session_counts(f, &v[i], err, errlen)) != 0) {
            free(v);
            return code;
        }
    *out = v;
    *n = nv;
    return 0;
}

int rpl_sessions_recent(rpl_file *f, size_t max, rpl_session **out, size_t *n, uint64_t *total,
                        char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    *total = 0;
    uint64_t c[2] = { 0, 0 };
    int code = count_query(f, "SELECT count(*) FROM session", NULL, "sessions", c, err, errlen);
    if (code) return code;
    *total = c[0];
    if (max == 0 || *total == 0) return 0;
    char sql[512];
    query q = { .sql = sessions_sql(f, "ORDER BY id DESC LIMIT ?", sql),
                .bind = { (int64_t)(*total < max ? *total : max) }, .nbind = 1, .what = "sessions",
                .oom = "out of memory listing sessions", .size = sizeof **out, .row = session_row };
    return rd_query_rows(f, &q, (void **)out, n, err, errlen);
}

/* "1, 2, 5" (at most 20 ids), or "" when there is no session. 0, or RPL_EDB (no sentence). */
static int session_ids(rpl_file *f, char *out, size_t cap, int64_t *only, size_t *count)
{
    sqlite3_stmt *st;
    char e[8];
    size_t len = 0;
    *count = 0;
    out[0] = '\0';
    int code = prepare(f, "SELECT id FROM session ORDER BY id", &st, e, sizeof e);
    if (code) return code;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (*count == 0 && only) *only = id;
        if (*count < 20 && len < cap)
            len += (size_t)snprintf(out + len, cap - len, "%s%lld", *count ? ", " : "", (long long)id);
        else if (*count == 20 && len < cap)
            len += (size_t)snprintf(out + len, cap - len, ", …");
        (*count)++;
    }
    rpl_stmt_done(f, st);
    return 0;
}

int rpl_session_get(rpl_file *f, int64_t id, rpl_session *out, char *err, size_t errlen)
{
    char sql[512];
    query q = { .sql = sessions_sql(f, "WHERE id = ?", sql), .bind = { id }, .nbind = 1,
                .what = "sessions", .row = session_row, .ud = out };
    size_t n;
    int code = rd_query_rows(f, &q, NULL, &n, err, errlen);
    if (code) return code;
    if (n) return 0;
    char ids[256];
    size_t count;
    session_ids(f, ids, sizeof ids, NULL, &count);
    if (count == 0)
        snprintf(err, errlen, "session %lld not found in %s (it holds no sessions)", (long long)id,
                 rpl_path(f));
    else
        snprintf(err, errlen, "session %lld not found in %s (sessions: %s)", (long long)id,
                 rpl_path(f), ids);
    return RPL_ENOSESSION;
}

int rpl_session_info_get(rpl_file *f, int64_t id, rpl_session_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int code = rpl_session_get(f, id, &out->s, err, errlen);
    if (code) return code;
    return session_counts(f, out, err, errlen);
}

int rpl_session_only(rpl_file *f, int64_t *id, char *err, size_t errlen)
{
    char ids[256];
    size_t count;
    if (session_ids(f, ids, sizeof ids, id, &count)) return read_failed(f, "sessions", err, errlen);
    if (count == 1) return 0;
    if (count == 0) {
        snprintf(err, errlen, "%s holds no sessions", rpl_path(f));
        return RPL_ENOSESSION;
    }
    snprintf(err, errlen, "%s holds %zu sessions (%s): pick one with --session N", rpl_path(f),
             count, ids);
    return RPL_EUSAGE;
}

const sim_kind *rpl_session_kind(const rpl_file *f, const rpl_session *s, char *warn,
                                 size_t warnlen, char *err, size_t errlen)
{
    if (warn && warnlen) warn[0] = '\0';
    const sim_kind *k = sim_kind_by_id(s->kind_id);
    if (!k) {
        char kinds[160] = "";
        size_t len = 0;
        for (int i = 0; i < sim_kind_count() && len < sizeof kinds; i++)
            len += (size_t)snprintf(kinds + len, sizeof kinds - len, "%s%s (%u)", i ? ", " : "",
                                    sim_kind_at(i)->name, (unsigned)sim_kind_at(i)->id);
        snprintf(err, errlen, "session %lld of %s is a '%s' world (kind id %u), which this build of "
                 "Vivarium %s does not have (kinds: %s); replay it with the Vivarium that recorded it "
                 "(sim version %s)", (long long)s->id, rpl_path(f), s->kind, (unsigned)s->kind_id,
                 SIM_VERSION, kinds, s->sim_version);
        return NULL;
    }
    if (strcmp(k->name, s->kind) != 0) {
        snprintf(err, errlen, "session %lld of %s says kind '%s' with kind id %u, but id %u is '%s' "
                 "in this build: the file is damaged or from an incompatible Vivarium",
                 (long long)s->id, rpl_path(f), s->kind, (unsigned)s->kind_id, (unsigned)s->kind_id,
                 k->name);
        return NULL;
    }
    if (s->hz == 0) {
        snprintf(err, errlen, "session %lld of %s has no usable tick rate (hz must be 1..100000)",
                 (long long)s->id, rpl_path(f));
        return NULL;
    }
    if (s->end_tick < s->start_tick || s->start_tick > INT64_MAX || s->end_tick > INT64_MAX) {
        snprintf(err, errlen, "session %lld of %s has an impossible tick range %llu..%llu",
                 (long long)s->id, rpl_path(f), (unsigned long long)s->start_tick,
                 (unsigned long long)s->end_tick);
        return NULL;
    }
    if (warn && strcmp(s->sim_version, SIM_VERSION) != 0)
        snprintf(warn, warnlen, "session %lld was recorded by sim version %s, this is %s: a "
                 "divergence may be a change of behaviour between versions, not a bug",
                 (long long)s->id, s->sim_version, SIM_VERSION);
    else if (warn && s->hz != k->hz)
        snprintf(warn, warnlen, "session %lld was recorded at %u Hz, this build runs %s at %u Hz",
                 (long long)s->id, (unsigned)s->hz, k->name, (unsigned)k->hz);
    return k;
}

/* ---- checkpoints --------------------------------------------------------------------------------- */
void rpl_checkpoint_free(rpl_checkpoint *c)
{
    if (!c) return;
    free(c->state);
    memset(c, 0, sizeof *c);
}

/* The blob must be this session's world at this tick, byte for byte as recorded. */
static int checkpoint_check(const rpl_session *s, rpl_checkpoint *c, uint64_t recorded,
                            char *err, size_t errlen)
{
    c->hash = sim_state_hash(c->state, c->len);
    if (c->hash != recorded) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its %zu bytes "
                 "do not match the hash recorded with them)", (unsigned long long)c->tick,
                 (long long)s->id, c->len);
        return RPL_ECORRUPT;
    }
    uint16_t kid;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    int rc = sim_state_peek(c->state, c->len, &kid, &seed, &tick, params, sizeof params);
    if (rc) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (%s)",
                 (unsigned long long)c->tick, (long long)s->id, sim_strerror(rc));
        return RPL_ECORRUPT;
    }
    if (kid != s->kind_id || seed != s->seed || tick != c->tick || strcmp(params, s->params) != 0) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (it holds a world "
                 "of kind id %u, seed %llu, params '%s' at tick %llu; the session is kind id %u, "
                 "seed %llu, params '%s')", (unsigned long long)c->tick, (long long)s->id,
                 (unsigned)kid, (unsigned long long)seed, params, (unsigned long long)tick,
                 (unsigned)s->kind_id, (unsigned long long)s->seed, s->params);
        return RPL_ECORRUPT;
    }
    return 0;
}

/* What checkpoint_row reads into: the checkpoint, and the blob as stored (stored not NULL). */
typedef struct cp_read {
    const rpl_session *s;
    rpl_checkpoint *out;
    uint8_t **stored;
    size_t *slen;
    uint64_t recorded;                 /* the hash recorded with it */
    int has_base;                      /* a delta (schema 4): compressed against checkpoint base */
    uint64_t base;
    uint8_t *delta;                    /* its blob, malloc'd, decoded once the row is read */
    size_t dlen;
} cp_read;

/* A zstd frame (with prefix as its reference when not NULL) into a new buffer of its stated
 * size, at most 1 GiB. 0, 1 when it is no frame this can decode (the caller says which
 * checkpoint is corrupted), or RPL_ENOMEM. */
static int unzstd(const uint8_t *blob, size_t len, const uint8_t *prefix, size_t plen,
                  uint8_t **out, size_t *outlen)
{
    *out = NULL;
    unsigned long long size = ZSTD_getFrameContentSize(blob, len);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size == 0 ||
        size > ((unsigned long long)1 << 30))
        return 1;
    uint8_t *buf = malloc((size_t)size);
    ZSTD_DCtx *dc = buf ? ZSTD_createDCtx() : NULL;
    if (!dc) {
        free(buf);
        return RPL_ENOMEM;
    }
    size_t got = prefix && ZSTD_isError(ZSTD_DCtx_refPrefix(dc, prefix, plen))
                     ? (size_t)-1 : ZSTD_decompressDCtx(dc, buf, (size_t)size, blob, len);
    ZSTD_freeDCtx(dc);
    if (ZSTD_isError(got) || got != size) {
        free(buf);
        return 1;
    }
    *out = buf;
    *outlen = (size_t)size;
    return 0;
}

/* The row of a checkpoint: its state into out->state (decompressed when stored compressed). 0, or
 * RPL_ECORRUPT / RPL_ENOMEM with a sentence, out->state then NULL. */
static int checkpoint_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    cp_read *r = one;
    rpl_checkpoint *out = r->out;
    if (rd_tick_col(st, 0, &out->tick) != 0) {
        snprintf(err, errlen, "a checkpoint of session %lld is corrupted (its tick is not a whole "
                 "number: the file is damaged)", (long long)r->s->id);
        return RPL_ECORRUPT;
    }
    r->recorded = (uint64_t)sqlite3_column_int64(st, 2);
    const void *blob = sqlite3_column_blob(st, 1);
    int len = sqlite3_column_bytes(st, 1);
    if (sqlite3_column_type(st, 1) != SQLITE_BLOB || len <= 0 || !blob) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its state is "
                 "not a blob)", (unsigned long long)out->tick, (long long)r->s->id);
        return RPL_ECORRUPT;
    }
    if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
        /* A delta: decoded once its base is read (checkpoint_read), not while this row is. */
        if (rd_tick_col(st, 3, &r->base) != 0 || r->base >= out->tick) {
            snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its base "
                     "is not an earlier checkpoint's tick)", (unsigned long long)out->tick,
                     (long long)r->s->id);
            return RPL_ECORRUPT;
        }
        r->has_base = 1;
        r->delta = malloc((size_t)len);
        if (!r->delta) {
            snprintf(err, errlen, "out of memory for the checkpoint at tick %llu (%d bytes)",
                     (unsigned long long)out->tick, len);
            return RPL_ENOMEM;
        }
        memcpy(r->delta, blob, (size_t)len);
        r->dlen = (size_t)len;
        return 0;
    }
    if (r->stored) {
        *r->stored = malloc((size_t)len);
        if (!*r->stored) {
            snprintf(err, errlen, "out of memory for the checkpoint at tick %llu (%d bytes)",
                     (unsigned long long)out->tick, len);
            return RPL_ENOMEM;
        }
        memcpy(*r->stored, blob, (size_t)len);
        *r->slen = (size_t)len;
    }
    /* Checkpoints are stored zstd-compressed when that is smaller (docs/REPLAY.md): a zstd frame
     * starts with 28 B5 2F FD, a saved world with "VIVW". */
    const uint8_t *b8 = blob;
    if (len >= 4 && b8[0] == 0x28 && b8[1] == 0xB5 && b8[2] == 0x2F && b8[3] == 0xFD) {
        int code = unzstd(blob, (size_t)len, NULL, 0, &out->state, &out->len);
        if (code) {
            snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its "
                     "compressed state does not decompress)", (unsigned long long)out->tick,
                     (long long)r->s->id);
            return code == 1 ? RPL_ECORRUPT : RPL_ENOMEM;
        }
    } else {
        out->state = malloc((size_t)len);
        if (!out->state) {
            snprintf(err, errlen, "out of memory for the checkpoint at tick %llu (%d bytes)",
                     (unsigned long long)out->tick, len);
            return RPL_ENOMEM;
        }
        memcpy(out->state, blob, (size_t)len);
        out->len = (size_t)len;
    }
    return 0;
}

static int checkpoint_read(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                           rpl_checkpoint *out, uint8_t **stored, size_t *slen, char *err,
                           size_t errlen);

/* A delta checkpoint's state: its base (a full checkpoint, checked) as zstd's prefix. The stored
 * blob handed on (r->stored) is the state itself, which a reader decodes without the base. */
static int delta_decode(rpl_file *f, const rpl_session *s, cp_read *r, char *err, size_t errlen)
{
    rpl_checkpoint base;
    rpl_checkpoint *out = r->out;
    int code = checkpoint_read(f, s, r->base, 0, &base, NULL, NULL, err, errlen);
    if (code == 1)
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (it is stored "
                 "against the full checkpoint at tick %llu, which is not in the file)",
                 (unsigned long long)out->tick, (long long)s->id, (unsigned long long)r->base);
    if (code) return code == 1 ? RPL_ECORRUPT : code;
    code = unzstd(r->delta, r->dlen, base.state, base.len, &out->state, &out->len);
    rpl_checkpoint_free(&base);
    if (code) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (its stored "
                 "difference from the checkpoint at tick %llu does not decompress)",
                 (unsigned long long)out->tick, (long long)s->id, (unsigned long long)r->base);
        return code == 1 ? RPL_ECORRUPT : RPL_ENOMEM;
    }
    if (r->stored) {
        *r->stored = malloc(out->len);
        if (!*r->stored) {
            snprintf(err, errlen, "out of memory for the checkpoint at tick %llu (%zu bytes)",
                     (unsigned long long)out->tick, out->len);
            return RPL_ENOMEM;
        }
        memcpy(*r->stored, out->state, out->len);
        *r->slen = out->len;
    }
    return 0;
}

/* rpl_checkpoint_find, and the blob as the file stores it when stored is not NULL (on success
 * only: the caller frees it). */
static int checkpoint_read(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                           rpl_checkpoint *out, uint8_t **stored, size_t *slen, char *err,
                           size_t errlen)
{
    /* dir 0 (a delta's base): exactly at tick, and a full one. */
    static const char *const sql4[] = {
        "SELECT tick, state, state_hash, base FROM checkpoint WHERE session = ? AND tick <= ? "
        "ORDER BY tick DESC LIMIT 1",
        "SELECT tick, state, state_hash, base FROM checkpoint WHERE session = ? AND tick = ?",
        "SELECT tick, state, state_hash, base FROM checkpoint WHERE session = ? AND tick >= ? "
        "ORDER BY tick ASC LIMIT 1",
    };
    static const char *const sql3[] = {
        "SELECT tick, state, state_hash, NULL FROM checkpoint WHERE session = ? AND tick <= ? "
        "ORDER BY tick DESC LIMIT 1",
        "SELECT tick, state, state_hash, NULL FROM checkpoint WHERE session = ? AND tick = ?",
        "SELECT tick, state, state_hash, NULL FROM checkpoint WHERE session = ? AND tick >= ? "
        "ORDER BY tick ASC LIMIT 1",
    };
    int d = dir < 0 ? 0 : dir > 0 ? 2 : 1;
    cp_read r = { s, out, stored, slen, 0, 0, 0, NULL, 0 };
    query q = { .sql = rpl_schema(f) >= 4 ? sql4[d] : sql3[d], .bind = { s->id, rd_tick_arg(tick) },
                .nbind = 2, .what = "a checkpoint", .row = checkpoint_row, .ud = &r };
    memset(out, 0, sizeof *out);
    size_t n;
    int code = rd_query_rows(f, &q, NULL, &n, err, errlen);
    if (code == 0 && n == 0) return 1;
    if (code == 0 && r.has_base && dir == 0) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld is corrupted (it is the base "
                 "of another checkpoint's difference, but is itself stored as one)",
                 (unsigned long long)out->tick, (long long)s->id);
        code = RPL_ECORRUPT;
    } else if (code == 0 && r.has_base) {
        code = delta_decode(f, s, &r, err, errlen);
    }
    free(r.delta);
    if (code == 0 && (code = checkpoint_check(s, out, r.recorded, err, errlen)) != 0) {
        rpl_checkpoint_free(out);
    } else if (code) {
        free(out->state);              /* a step after the row failed (out->tick says which) */
        out->state = NULL;
    }
    return code;
}

int rpl_end_checkpoint_hash(rpl_file *f, const rpl_session *s, uint64_t *sh)
{
    rpl_checkpoint cp;
    char err[256];
    int found = rpl_checkpoint_find(f, s, s->end_tick, RPL_AT_OR_AFTER, &cp, err, sizeof err) == 0;
    if (!found) return 0;
    found = cp.tick == s->end_tick;
    if (found) *sh = cp.hash;
    rpl_checkpoint_free(&cp);
    return found;
}

int rpl_checkpoint_find(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                        rpl_checkpoint *out, char *err, size_t errlen)
{
    return checkpoint_read(f, s, tick, dir, out, NULL, NULL, err, errlen);
}

int rpl_checkpoint_find_stored(rpl_file *f, const rpl_session *s, uint64_t tick, int dir,
                               rpl_checkpoint *out, uint8_t **stored, size_t *slen, char *err,
                               size_t errlen)
{
    if (stored) {
        *stored = NULL;
        *slen = 0;
    }
    int code = checkpoint_read(f, s, tick, dir, out, stored, slen, err, errlen);
    if (code != 0 && stored) {
        free(*stored);
        *stored = NULL;
        *slen = 0;
    }
    return code;
}

static int tick_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    if (rd_tick_col(st, 0, one) == 0) return 0;
    snprintf(err, errlen, "a checkpoint of session %lld is corrupted (its tick is not a whole "
             "number: the file is damaged)", (long long)*(const int64_t *)ud);
    return RPL_ECORRUPT;
}

int rpl_checkpoint_ticks(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                         uint64_t **out, size_t *n, char *err, size_t errlen)
{
    query q = { .sql = "SELECT tick FROM checkpoint WHERE session = ? AND tick BETWEEN ? AND ? "
                       "ORDER BY tick",
                .bind = { session, rd_tick_arg(from), rd_tick_arg(to) }, .nbind = 3,
                .what = "checkpoints", .oom = "out of memory listing checkpoints",
                .size = sizeof **out, .row = tick_row, .ud = &session };
    return rd_query_rows(f, &q, (void **)out, n, err, errlen);
}

/* ---- phase hashes --------------------------------------------------------------------------------- */
/* 1 when the file has the optional phase table, 0 when not, or a negative code. */
static int phase_table(rpl_file *f, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    int code = prepare(f, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'phase'",
                       &st, err, errlen);
    if (code) return code;
    int rc = sqlite3_step(st), has = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) == 1;
    if (rc != SQLITE_ROW) code = read_failed(f, "its list of tables", err, errlen);
    rpl_stmt_done(f, st);
    return code ? code : has;
}

static int phase_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    rpl_phase *p = one;
    copy_text(st, 0, p->name, sizeof p->name);
    p->hash = (uint64_t)sqlite3_column_int64(st, 1);
    return 0;
}

int rpl_phases_load(rpl_file *f, int64_t session, uint64_t tick, rpl_phase **v, size_t *n,
                    char *err, size_t errlen)
{
    *v = NULL;
    *n = 0;
    int has = phase_table(f, err, errlen);
    if (has <= 0) return has;
    query q = { .sql = "SELECT name, hash FROM phase WHERE session = ? AND tick = ? ORDER BY idx",
                .bind = { session, rd_tick_arg(tick) }, .nbind = 2, .what = "the phase hashes",
                .oom = "out of memory reading phase hashes", .size = sizeof **v, .row = phase_row };
    return rd_query_rows(f, &q, (void **)v, n, err, errlen);
}

int rpl_phases_has(rpl_file *f, int64_t session, char *err, size_t errlen)
{
    int has = phase_table(f, err, errlen);
    if (has <= 0) return has;
    sqlite3_stmt *st;
    int code = prepare(f, "SELECT EXISTS (SELECT 1 FROM phase WHERE session = ?)", &st, err, errlen);
    if (code) return code;
    sqlite3_bind_int64(st, 1, session);
    int rc = sqlite3_step(st);
    has = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) != 0;
    if (rc != SQLITE_ROW) code = read_failed(f, "the phase hashes", err, errlen);
    rpl_stmt_done(f, st);
    return code ? code : has;
}

int rpl_world_load(const rpl_session *s, const rpl_checkpoint *c, sim_world **w, char *err,
                   size_t errlen)
{
    const sim_kind *k = sim_kind_by_id(s->kind_id);
    if (!k) {
        snprintf(err, errlen, "session %lld: kind id %u is unknown in this build", (long long)s->id,
                 (unsigned)s->kind_id);
        return RPL_EKIND;
    }
    int created = 0;
    if (!*w) {
        char cerr[256] = "";
        sim_config cfg = sim_config_default();
        cfg.kind = k->name;
        cfg.seed = s->seed;
        cfg.params = s->params;
        cfg.err = cerr;
        cfg.errlen = sizeof cerr;
        cfg.bare = 1;                  /* the checkpoint is the whole state: no scene, no file */
        int rc;
        *w = sim_world_create(&cfg, &rc);
        if (!*w) {
            snprintf(err, errlen, "session %lld: cannot create its %s world: %s", (long long)s->id,
                     k->name, cerr[0] ? cerr : sim_strerror(rc));
            return rpl_sim_error(rc);
        }
        created = 1;
    }
    int rc = sim_world_load(*w, c->state, c->len);
    if (rc) {
        snprintf(err, errlen, "checkpoint at tick %llu of session %lld does not load: %s",
                 (unsigned long long)c->tick, (long long)s->id, sim_world_error(*w));
        if (created) {
            sim_world_destroy(*w);
            *w = NULL;
        }
        return rpl_sim_error(rc);
    }
    return 0;
}

/* ---- the input log ------------------------------------------------------------------------------- */
struct rpl_inputs {
    rpl_file *f;
    sqlite3_stmt *st;
    int64_t session;
    const sim_world *check;
    int have;                          /* next holds a row read ahead */
    int done;
    sim_input next;
    int code;                          /* 0, or the RPL_E… code of err */
    char err[384];
};

int rpl_inputs_open(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                    const sim_world *check, rpl_inputs **out, char *err, size_t errlen)
{
    *out = NULL;
    rpl_inputs *it = calloc(1, sizeof *it);
    if (!it) {
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    int code = prepare(f, "SELECT tick, client, seq, kind, args FROM input WHERE session = ? AND "
                          "tick >= ? AND tick < ? ORDER BY tick, client, seq", &it->st, err, errlen);
    if (code) {
        free(it);
        return code;
    }
    it->f = f;
    it->session = session;
    it->check = check;
    sqlite3_bind_int64(it->st, 1, session);
    sqlite3_bind_int64(it->st, 2, rd_tick_arg(from));
    sqlite3_bind_int64(it->st, 3, rd_tick_arg(to));
    *out = it;
    return 0;
}

/* One row → one sim_input; RPL_ECORRUPT with it->err on anything a world could not have consumed. */
static int input_from_row(rpl_inputs *it, sim_input *in)
{
    sqlite3_stmt *st = it->st;
    int64_t tick = sqlite3_column_int64(st, 0), client = sqlite3_column_int64(st, 1);
    int64_t seq = sqlite3_column_int64(st, 2), kind = sqlite3_column_int64(st, 3);
    const uint8_t *args = sqlite3_column_blob(st, 4);
    int len = sqlite3_column_bytes(st, 4);
    memset(in, 0, sizeof *in);
    const char *why = NULL;
    char whybuf[300];
    if (tick < 0 || client < 0 || client > UINT32_MAX || seq < 0 || seq > UINT32_MAX)
        why = "its tick, client or seq is out of range";
    else if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
             sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER)
        why = "its tick, client, seq or kind is not a whole number";
    else if (kind < 0 || kind > UINT16_MAX)
        why = "its input kind is out of range";
    else if (len % 4 != 0)
        why = "its args blob is not a whole number of 32-bit integers";
    else if (len / 4 > SIM_INPUT_MAX_ARGS)
        why = "it has more than 8 arguments";
    if (!why) {
        in->tick = (uint64_t)tick;
        in->client = (uint32_t)client;
        in->seq = (uint32_t)seq;
        in->kind = (uint16_t)kind;
        in->nargs = (uint16_t)(len / 4);
        for (int a = 0; a < in->nargs; a++)
            in->args[a] = (int32_t)((uint32_t)args[4 * a] | (uint32_t)args[4 * a + 1] << 8 |
                                    (uint32_t)args[4 * a + 2] << 16 | (uint32_t)args[4 * a + 3] << 24);
        if (it->check && sim_world_check_input(it->check, in) != 0) {
            snprintf(whybuf, sizeof whybuf, "the world refuses it: %s", sim_world_error(it->check));
            why = whybuf;
        }
    }
    if (why) {
        snprintf(it->err, sizeof it->err, "session %lld, input at tick %lld (client %lld, seq %lld) "
                 "is damaged: %s", (long long)it->session, (long long)tick, (long long)client,
                 (long long)seq, why);
        return it->code = RPL_ECORRUPT;
    }
    return 0;
}

int rpl_inputs_next(rpl_inputs *it, sim_input *in)
{
    if (it->have) {
        *in = it->next;
        it->have = 0;
        return 1;
    }
    if (it->done) return it->code;
    int rc = sqlite3_step(it->st);
    if (rc == SQLITE_ROW) {
        if (input_from_row(it, in) == 0) return 1;
    } else if (rc != SQLITE_DONE) {
        it->code = db_failed(it->f, rc, "the input log", it->err, sizeof it->err);
    }
    it->done = 1;
    return it->code;
}

int rpl_inputs_feed(rpl_inputs *it, sim_world *w)
{
    uint64_t t = sim_world_tick(w);
    int fed = 0;
    for (;;) {
        sim_input in;
        int rc = rpl_inputs_next(it, &in);
        if (rc < 0) return rc;
        if (rc == 0) return fed;
        if (in.tick < t) continue;
        if (in.tick > t) {
            it->next = in;
            it->have = 1;
            return fed;
        }
        rc = sim_world_input(w, &in);
        /* A checkpoint saved with inputs already queued for its tick holds them twice over:
         * in its queue and in the log. The queued copy is the same input. */
        if (rc == SIM_EDUP) continue;
        if (rc) {
            snprintf(it->err, sizeof it->err, "session %lld, input at tick %llu (client %u, seq %u): "
                     "the world refuses it: %s", (long long)it->session, (unsigned long long)in.tick,
                     (unsigned)in.client, (unsigned)in.seq, sim_world_error(w));
            it->done = 1;
            return it->code = RPL_EINPUT;
        }
        fed++;
    }
}

const char *rpl_inputs_error(const rpl_inputs *it) { return it->err; }

void rpl_inputs_close(rpl_inputs *it)
{
    if (!it) return;
    rpl_stmt_done(it->f, it->st);
    free(it);
}

int rpl_inputs_load(rpl_file *f, int64_t session, uint64_t from, uint64_t to,
                    const sim_world *check, sim_input **v, size_t *n, char *err, size_t errlen)
{
    rpl_inputs *it;
    sim_input *a = NULL;
    size_t na = 0, cap = 0;
    *v = NULL;
    *n = 0;
    int rc = rpl_inputs_open(f, session, from, to, check, &it, err, errlen);
    if (rc) return rc;
    sim_input in;
    while ((rc = rpl_inputs_next(it, &in)) == 1) {
        if ((rc = rd_grow((void **)&a, &cap, na, sizeof *a)) != 0) {
            snprintf(err, errlen, "out of memory reading the input log");
            break;
        }
        a[na++] = in;
    }
    if (rc < 0 && rc != RPL_ENOMEM) snprintf(err, errlen, "%s", rpl_inputs_error(it));
    rpl_inputs_close(it);
    if (rc < 0) {
        free(a);
        return rc;
    }
    *v = a;
    *n = na;
    return 0;
}

void rpl_input_describe(const sim_kind *k, const sim_input *in, char *out, size_t cap)
{
    if (in->kind >= k->ninputs) {
        snprintf(out, cap, "input kind %u (unknown to %s)", (unsigned)in->kind, k->name);
        return;
    }
    const sim_input_desc *d = &k->inputs[in->kind];
    size_t len = (size_t)snprintf(out, cap, "%s", d->name);
    for (int a = 0; a < in->nargs && a < SIM_INPUT_MAX_ARGS && len < cap; a++) {
        const char *name = a < d->nargs ? d->args[a].name : "?";
        const sim_enum_desc *e = a < d->nargs && d->args[a].enum_name
                                     ? sim_kind_enum_find(k, d->args[a].enum_name) : NULL;
        if (e && in->args[a] >= 0 && in->args[a] < e->count)
            len += (size_t)snprintf(out + len, cap - len, " %s=%s", name, e->values[in->args[a]]);
        else
            len += (size_t)snprintf(out + len, cap - len, " %s=%d", name, (int)in->args[a]);
    }
}

/* ---- gaps ----------------------------------------------------------------------------------------- */
/* A gap row: a range of ticks, or the row is damaged. */
static int gap_row(sqlite3_stmt *st, void *one, void *ud, char *err, size_t errlen)
{
    rpl_gap *g = one;
    int64_t from = sqlite3_column_int64(st, 0), to = sqlite3_column_int64(st, 1);
    if (from < 0 || to <= from || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
        sqlite3_column_type(st, 1) != SQLITE_INTEGER) {
        snprintf(err, errlen, "session %lld has a damaged gap row: [%lld, %lld) is not a range of "
                 "ticks", (long long)*(const int64_t *)ud, (long long)from, (long long)to);
        return RPL_ECORRUPT;
    }
    g->from = (uint64_t)from;
    g->to = (uint64_t)to;
    copy_text(st, 2, g->reason, sizeof g->reason);
    return 0;
}

int rpl_gaps_list(rpl_file *f, int64_t session, rpl_gap **out, size_t *n, char *err, size_t errlen)
{
    query q = { .sql = "SELECT from_tick, to_tick, reason FROM gap WHERE session = ? ORDER BY "
                       "from_tick",
                .bind = { session }, .nbind = 1, .what = "gaps",
                .oom = "out of memory listing gaps", .size = sizeof **out, .row = gap_row,
                .ud = &session };
    return rd_query_rows(f, &q, (void **)out, n, err, errlen);
}

/* ---- the plan ------------------------------------------------------------------------------------- */
void rpl_plan_free(rpl_plan *p)
{
    if (!p) return;
    free(p->spans);
    free(p->skipped);
    memset(p, 0, sizeof *p);
}

static int plan_skip(rpl_plan *p, size_t *cap, uint64_t from, uint64_t to, const char *reason)
{
    if (from < p->from) from = p->from;
    if (to > p->to) to = p->to;
    if (from >= to) return 0;
    if (rd_grow((void **)&p->skipped, cap, p->nskipped, sizeof *p->skipped)) return RPL_ENOMEM;
    rpl_gap *g = &p->skipped[p->nskipped++];
    g->from = from;
    g->to = to;
    snprintf(g->reason, sizeof g->reason, "%.127s", reason);
    return 0;
}

/* First checkpoint tick >= t in cps (ascending), or UINT64_MAX. */
static uint64_t cp_at_or_after(const uint64_t *cps, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cps[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo < n ? cps[lo] : UINT64_MAX;
}

int rpl_plan_make(rpl_file *f, const rpl_session *s, uint64_t from, uint64_t to, int split,
                  rpl_plan *out, char *err, size_t errlen)
{
    uint64_t *cps = NULL;
    size_t ncps = 0, ngaps = 0, capspan = 0, capskip = 0;
    rpl_gap *gaps = NULL;
    int code;
    memset(out, 0, sizeof *out);
    if (from < s->start_tick) from = s->start_tick;
    if (to > s->end_tick) to = s->end_tick;
    if (from > to) {
        snprintf(err, errlen, "session %lld covers ticks %llu..%llu: nothing to replay from tick %llu "
                 "to %llu", (long long)s->id, (unsigned long long)s->start_tick,
                 (unsigned long long)s->end_tick, (unsigned long long)from, (unsigned long long)to);
        return RPL_EUSAGE;
    }
    out->from = from;
    out->to = to;
    if ((code = rpl_checkpoint_ticks(f, s->id, 0, UINT64_MAX, &cps, &ncps, err, errlen)) != 0) goto fail;
    if ((code = rpl_gaps_list(f, s->id, &gaps, &ngaps, err, errlen)) != 0) goto fail;
    /* The checkpoint at or before `from`. */
    uint64_t pos = UINT64_MAX;
    for (size_t i = 0; i < ncps && cps[i] <= from; i++) pos = cps[i];
    if (pos == UINT64_MAX) {
        snprintf(err, errlen, "session %lld has no checkpoint at or before tick %llu (every session "
                 "has one at its start tick %llu): the file is damaged", (long long)s->id,
                 (unsigned long long)from, (unsigned long long)s->start_tick);
        code = RPL_ECORRUPT;
        goto fail;
    }
    while (pos < to) {
        /* A gap holding pos, or the next one to start after it. */
        const rpl_gap *in = NULL, *next = NULL;
        for (size_t i = 0; i < ngaps; i++) {
            if (gaps[i].from <= pos && pos < gaps[i].to) {
                in = &gaps[i];
                break;
            }
            if (gaps[i].from > pos && (!next || gaps[i].from < next->from)) next = &gaps[i];
        }
        if (in) {
            uint64_t resume = cp_at_or_after(cps, ncps, in->to);
            char why[200];
            if (resume == in->to)
                snprintf(why, sizeof why, "%s", in->reason);
            else
                snprintf(why, sizeof why, "%s; no checkpoint at its end tick %llu", in->reason,
                         (unsigned long long)in->to);
            if (plan_skip(out, &capskip, pos > in->from ? pos : in->from,
                          resume == UINT64_MAX ? to : resume, why))
                goto oom;
            if (resume == UINT64_MAX) break;
            pos = resume;
            continue;
        }
        uint64_t end = to;
        if (next && next->from < end) end = next->from;
        if (split) {
            uint64_t c = cp_at_or_after(cps, ncps, pos + 1);
            if (c < end) end = c;
        }
        if (rd_grow((void **)&out->spans, &capspan, out->nspans, sizeof *out->spans)) goto oom;
        out->spans[out->nspans++] = (rpl_span){ pos, end };
        out->ticks += end - pos;
        pos = end;
    }
    free(cps);
    free(gaps);
    return 0;
oom:
    snprintf(err, errlen, "out of memory planning the replay");
    code = RPL_ENOMEM;
fail:
    free(cps);
    free(gaps);
    rpl_plan_free(out);
    return code;
}
