/* compact.c — retention (docs/REPLAY.md, "Dropping sessions" and "Compaction and retention"):
 * `viv replay drop` deletes whole sessions; `viv replay compact` and `vivd --retain` thin the
 * hashes and checkpoints of old closed sessions to a coarser grain and say so in the grain table;
 * rpl_grain_get reads it back for info, list and verify.
 *
 * Both write through a connection of their own, opened read-write on the file as it is: unlike
 * the recorder they never migrate it, so they look at which tables and columns it has (an old
 * file has only `tick` and a checkpoint table without `base`) and act on those. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "replay.h"

const char *const rpl_table_names[RPL_T_N] = { "input", "tick", "hashes", "checkpoint", "gap",
                                               "fork", "phase", "grain" };
const char *const rpl_compact_names[RPL_C_N] = { "tick rows", "hash blocks", "checkpoints",
                                                 "phase rows" };

/* ---- the grain ---------------------------------------------------------------------------------- */
/* 1 when the database has table `name`, 0 when not, or SQLite's error code negated. */
static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                                "name = ?", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
    }
    int has = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) > 0 : -(rc ? rc : 1);
    sqlite3_finalize(st);
    return has;
}

int rpl_grain_get(rpl_file *f, int64_t session, rpl_grain *out, char *err, size_t errlen)
{
    sqlite3 *db = rpl_db(f);
    memset(out, 0, sizeof *out);
    int has = has_table(db, "grain");
    if (has < 0) {
        snprintf(err, errlen, "%s: %s", rpl_path(f), sqlite3_errmsg(db));
        return RPL_EDB;
    }
    if (!has) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT hash_every, checkpoint_every, compacted_at FROM grain "
                           "WHERE session = ?", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s is damaged: its grain table cannot be read (%s)", rpl_path(f),
                 sqlite3_errmsg(db));
        return RPL_ECORRUPT;
    }
    sqlite3_bind_int64(st, 1, session);
    int rc = sqlite3_step(st), result = 0;
    if (rc == SQLITE_ROW) {
        const unsigned char *at = sqlite3_column_text(st, 2);
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_int64(st, 0) < 1 || sqlite3_column_int64(st, 1) < 0 || !at) {
            snprintf(err, errlen, "session %lld of %s has a damaged grain row (its hash_every, "
                     "checkpoint_every or compacted_at is not what compaction writes)",
                     (long long)session, rpl_path(f));
            result = RPL_ECORRUPT;
        } else {
            out->hash_every = (uint64_t)sqlite3_column_int64(st, 0);
            out->checkpoint_every = (uint64_t)sqlite3_column_int64(st, 1);
            snprintf(out->compacted_at, sizeof out->compacted_at, "%s", (const char *)at);
            result = 1;
        }
    } else if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: reading the grain of session %lld: %s", rpl_path(f),
                 (long long)session, sqlite3_errmsg(db));
        result = (rc & 0xff) == SQLITE_CORRUPT ? RPL_ECORRUPT : RPL_EDB;
    }
    sqlite3_finalize(st);
    return result;
}

/* ---- durations ---------------------------------------------------------------------------------- */
int rpl_duration_parse(const char *text, uint64_t *seconds, char *err, size_t errlen)
{
    static const char units[] = "smhd";
    static const uint64_t unit_s[] = { 1, 60, 3600, 86400 };
    const uint64_t max_s = 36500ull * 86400;           /* 100 years: beyond, a typo */
    const char *p = text;
    uint64_t n = 0;
    *seconds = 0;
    if (*p == '-' || *p == '+') {
        snprintf(err, errlen, "'%s' is not a duration: give a positive number and a unit, e.g. 30d", text);
        return RPL_EUSAGE;
    }
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (uint64_t)(*p - '0');
        if (n > max_s) break;
    }
    const char *u = *p ? strchr(units, *p) : NULL;
    if (p == text) {
        snprintf(err, errlen, "'%s' is not a duration: a number and a unit, s, m, h or d (45s, 90m, "
                 "12h, 30d)", text);
        return RPL_EUSAGE;
    }
    if (!*p) {
        snprintf(err, errlen, "'%s' has no unit: add s, m, h or d (e.g. %sd for days)", text, text);
        return RPL_EUSAGE;
    }
    if (!u || n > max_s) {
        snprintf(err, errlen, n > max_s ? "'%s' is too long: at most 36500d (100 years)"
                 : "'%s' is not a duration: its unit must be s, m, h or d (45s, 90m, 12h, 30d)", text);
        return RPL_EUSAGE;
    }
    if (p[1]) {
        snprintf(err, errlen, "'%s' is not a duration: one number and one unit (45s, 90m, 12h, 30d), "
                 "not a combination: say it in the smaller unit (1d12h is 36h)", text);
        return RPL_EUSAGE;
    }
    if (n == 0) {
        snprintf(err, errlen, "'%s': the duration must be more than 0 (45s, 90m, 12h, 30d)", text);
        return RPL_EUSAGE;
    }
    uint64_t s = n * unit_s[u - units];
    if (s > max_s) {
        snprintf(err, errlen, "'%s' is too long: at most 36500d (100 years)", text);
        return RPL_EUSAGE;
    }
    *seconds = s;
    return 0;
}

/* ---- the file, opened for writing as it is -------------------------------------------------------- */
typedef struct wfile {
    sqlite3 *db;
    const char *path;
    int has[RPL_T_N];                  /* the tables it has, by RPL_T_… */
    int has_base;                      /* checkpoint.base (schema 4) */
    int dbstat;                        /* SQLite was built with the dbstat table */
} wfile;

static int say_db(wfile *w, const char *doing, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s: %s", w->path, doing, sqlite3_errmsg(w->db));
    return RPL_EDB;
}

/* The file checked as every reader checks it (rpl_open: a replay file of a schema this build
 * reads, not damaged), then opened read-write without the recorder's migration. */
static int wopen(const char *path, wfile *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    rpl_file *f;
    int rc = rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &f, err, errlen);
    if (rc) return rc;
    rpl_close(f);
    rc = sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open it for writing: %s", path,
                 w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
        sqlite3_close(w->db);
        w->db = NULL;
        return RPL_EFILE;
    }
    sqlite3_extended_result_codes(w->db, 1);
    /* A vivd may be committing beside us: its groups are short, wait for them. A lost commit of
     * ours is only work to redo (the next run does it), so NORMAL is durable enough. */
    sqlite3_busy_timeout(w->db, 10000);
    sqlite3_exec(w->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    for (int t = 0; t < RPL_T_N; t++) {
        int h = has_table(w->db, rpl_table_names[t]);
        if (h < 0) return say_db(w, "reading its schema", err, errlen);
        w->has[t] = h;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "SELECT count(*) FROM pragma_table_info('checkpoint') WHERE name = 'base'",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        w->has_base = sqlite3_column_int(st, 0) > 0;
    sqlite3_finalize(st);
    st = NULL;
    w->dbstat = sqlite3_prepare_v2(w->db, "SELECT 1 FROM dbstat LIMIT 0", -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    return 0;
}

static void wclose(wfile *w)
{
    if (w->db) sqlite3_close(w->db);
    w->db = NULL;
}

static int wexec(wfile *w, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
    snprintf(err, errlen, "%s: %s: %s", w->path, sql, msg ? msg : sqlite3_errmsg(w->db));
    sqlite3_free(msg);
    return RPL_EDB;
}

/* One integer of a query with up to three int64 parameters (-1 when the query fails: callers
 * use it for sizes, where -1 means "not measured"). */
static int64_t wint(wfile *w, const char *sql, int nb, int64_t a, int64_t b, int64_t c)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) == SQLITE_OK) {
        int64_t args[3] = { a, b, c };
        for (int i = 0; i < nb; i++) sqlite3_bind_int64(st, i + 1, args[i]);
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return v;
}

/* Bytes of the file's free pages: what VACUUM would give back (and new rows reuse first). */
static int64_t free_bytes(wfile *w)
{
    int64_t n = wint(w, "PRAGMA freelist_count", 0, 0, 0, 0), ps = wint(w, "PRAGMA page_size", 0, 0, 0, 0);
    return n < 0 || ps < 0 ? -1 : n * ps;
}

/* Bytes the cells of every table and index hold (dbstat's payload), or -1 without dbstat. It
 * reads every page: for what a user asked to be measured only. */
static int64_t payload_bytes(wfile *w)
{
    return w->dbstat ? wint(w, "SELECT coalesce(sum(payload), 0) FROM dbstat", 0, 0, 0, 0) : -1;
}

/* The file and its WAL, in bytes. */
static int64_t file_bytes(const char *path)
{
    char wal[4200];
    struct stat a, b;
    snprintf(wal, sizeof wal, "%s-wal", path);
    int64_t n = stat(path, &a) == 0 ? (int64_t)a.st_size : 0;
    return n + (stat(wal, &b) == 0 ? (int64_t)b.st_size : 0);
}

/* "session 9 not found in FILE (sessions: 1, 2, 3)", as rpl_session_get says it. */
static int say_unknown(wfile *w, int64_t id, char *err, size_t errlen)
{
    size_t len = (size_t)snprintf(err, errlen, "session %lld not found in %s (sessions:", (long long)id,
                                  w->path);
    sqlite3_stmt *st = NULL;
    int n = 0;
    if (sqlite3_prepare_v2(w->db, "SELECT id FROM session ORDER BY id", -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW && len < errlen) {
            len += (size_t)snprintf(err + len, errlen - len, "%s %lld", n++ ? "," : "",
                                    (long long)sqlite3_column_int64(st, 0));
        }
    sqlite3_finalize(st);
    if (len < errlen) snprintf(err + len, errlen - len, "%s)", n ? "" : " none");
    return RPL_ENOSESSION;
}

/* ---- drop -------------------------------------------------------------------------------------------- */
/* The sessions to drop: the ones asked for, then (with_forks) every fork of one of them in this
 * file, and theirs. */
typedef struct idset {
    rpl_dropped *v;
    size_t n, cap;
} idset;

static int idset_has(const idset *s, int64_t id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].id == id) return 1;
    return 0;
}

static rpl_dropped *idset_add(idset *s, int64_t id)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        rpl_dropped *v = realloc(s->v, cap * sizeof *v);
        if (!v) return NULL;
        s->v = v;
        s->cap = cap;
    }
    rpl_dropped *d = &s->v[s->n++];
    memset(d, 0, sizeof *d);
    d->id = id;
    return d;
}

/* d's session row into d. 0, or RPL_ENOSESSION with the file's ids. */
static int drop_read(wfile *w, rpl_dropped *d, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(w->db, "SELECT kind, status, start_tick, end_tick FROM session "
                                "WHERE id = ?", -1, &st, NULL);
    if (rc != SQLITE_OK) return say_db(w, "reading its sessions", err, errlen);
    sqlite3_bind_int64(st, 1, d->id);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const unsigned char *k = sqlite3_column_text(st, 0), *s = sqlite3_column_text(st, 1);
        snprintf(d->kind, sizeof d->kind, "%s", k ? (const char *)k : "?");
        snprintf(d->status, sizeof d->status, "%s", s ? (const char *)s : "?");
        d->start_tick = (uint64_t)sqlite3_column_int64(st, 2);
        d->end_tick = (uint64_t)sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW) return 0;
    if (rc == SQLITE_DONE) return say_unknown(w, d->id, err, errlen);
    return say_db(w, "reading its sessions", err, errlen);
}

/* The forks of session id in this file that set lacks, appended to kids (ids). Their count, or a
 * negative code. */
static int forks_of(wfile *w, int64_t id, const idset *set, int64_t *kids, int max, char *err,
                    size_t errlen)
{
    if (!w->has[RPL_T_FORK]) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, "SELECT session FROM fork WHERE parent = ? AND parent_file IS NULL "
                           "ORDER BY session", -1, &st, NULL) != SQLITE_OK)
        return say_db(w, "reading its forks", err, errlen);
    sqlite3_bind_int64(st, 1, id);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (!idset_has(set, sqlite3_column_int64(st, 0)) && n < max) kids[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* The parent of session id in this file, or 0. */
static int64_t parent_in_file(wfile *w, int64_t id)
{
    if (!w->has[RPL_T_FORK]) return 0;
    int64_t p = wint(w, "SELECT parent FROM fork WHERE session = ? AND parent_file IS NULL", 1, id, 0, 0);
    return p > 0 ? p : 0;
}

/* Every fork of the set's sessions: added (with_forks), left with a note (force), or refused. */
static int drop_close_forks(wfile *w, const rpl_drop_opts *o, idset *set, rpl_drop_result *res,
                            char *err, size_t errlen)
{
    size_t notelen = 0;
    for (size_t i = 0; i < set->n; i++) {       /* set grows as forks of forks are added */
        int64_t kids[64];
        int64_t parent = set->v[i].id;
        int n = forks_of(w, parent, set, kids, 64, err, errlen);
        if (n < 0) return n;
        if (n == 0) continue;
        char list[320] = "";
        for (int k = 0, len = 0; k < n && len < (int)sizeof list - 24; k++)
            len += snprintf(list + len, sizeof list - (size_t)len, "%s%lld", k ? ", " : "", (long long)kids[k]);
        if (o->with_forks) {
            for (int k = 0; k < n; k++) {
                rpl_dropped *d = idset_add(set, kids[k]);
                if (!d) goto nomem;
                int rc = drop_read(w, d, err, errlen);
                if (rc) return rc;
            }
        } else if (o->force) {
            if (notelen < sizeof res->note)
                notelen += (size_t)snprintf(res->note + notelen, sizeof res->note - notelen,
                                            "%ssession %s (forked from session %lld) keep%s its lineage row "
                                            "naming session %lld, which is gone",
                                            notelen ? "; " : "", list, (long long)parent, n == 1 ? "s" : "",
                                            (long long)parent);
        } else {
            snprintf(err, errlen, "session %lld of %s is the parent of session%s %s (forked from it in "
                     "this file): add --with-forks to drop %s too, or --force to drop it alone (%s "
                     "lineage row%s will name a session that is gone)", (long long)parent, w->path,
                     n == 1 ? "" : "s", list, n == 1 ? "it" : "them", n == 1 ? "its" : "their",
                     n == 1 ? "" : "s");
            return RPL_EUSAGE;
        }
    }
    return 0;
nomem:
    snprintf(err, errlen, "out of memory");
    return RPL_ENOMEM;
}

/* A running session belongs to the vivd that records it, if one holds the file (pid). */
static int drop_check_running(wfile *w, const idset *set, int held, const char *pid, char *err,
                              size_t errlen)
{
    for (size_t i = 0; held && i < set->n; i++) {
        if (strcmp(set->v[i].status, "running") != 0) continue;
        snprintf(err, errlen, "session %lld of %s is running: the vivd recording into the file%s%s%s "
                 "records it now. Close its world (or stop that vivd) first", (long long)set->v[i].id,
                 w->path, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        return RPL_EUSAGE;
    }
    return 0;                          /* one left running by a vivd that is gone (a crash) may go */
}

/* Every row of d's session, table by table, then the session row. */
static int drop_rows(wfile *w, rpl_dropped *d, char *err, size_t errlen)
{
    char sql[96];
    for (int t = 0; t <= RPL_T_N; t++) {
        if (t < RPL_T_N && !w->has[t]) continue;
        if (t < RPL_T_N) snprintf(sql, sizeof sql, "DELETE FROM %s WHERE session = ?", rpl_table_names[t]);
        else snprintf(sql, sizeof sql, "DELETE FROM session WHERE id = ?");
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
            return say_db(w, "dropping rows", err, errlen);
        sqlite3_bind_int64(st, 1, d->id);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) return say_db(w, "dropping rows", err, errlen);
        if (t < RPL_T_N) d->rows[t] = (uint64_t)sqlite3_changes(w->db);
    }
    return 0;
}

static int cmp_dropped(const void *a, const void *b)
{
    int64_t x = ((const rpl_dropped *)a)->id, y = ((const rpl_dropped *)b)->id;
    return x < y ? -1 : x > y;
}

/* The sessions chosen and checked, and their rows deleted, inside the caller's transaction. held:
 * a vivd records into the file (pid), whose commits wait for this transaction: then dbstat, which
 * reads every page of the file, is not asked. */
static int drop_in_tx(wfile *w, const rpl_drop_opts *o, idset *set, int held, const char *pid,
                      rpl_drop_result *res, char *err, size_t errlen)
{
    for (size_t i = 0; i < o->n; i++) {
        if (idset_has(set, o->sessions[i])) continue;
        rpl_dropped *d = idset_add(set, o->sessions[i]);
        if (!d) {
            snprintf(err, errlen, "out of memory");
            return RPL_ENOMEM;
        }
        int rc = drop_read(w, d, err, errlen);
        if (rc) return rc;
    }
    int rc = drop_close_forks(w, o, set, res, err, errlen);
    if (!rc) rc = drop_check_running(w, set, held, pid, err, errlen);
    if (rc) return rc;
    qsort(set->v, set->n, sizeof *set->v, cmp_dropped);
    if (!held) res->payload_before = payload_bytes(w);
    for (size_t i = 0; i < set->n && !rc; i++) {
        set->v[i].forked_from = parent_in_file(w, set->v[i].id);
        rc = drop_rows(w, &set->v[i], err, errlen);
    }
    if (!rc && !held) res->payload_after = payload_bytes(w);
    return rc;
}

/* VACUUM, and the WAL folded back so that the file itself is what shrinks. */
static int drop_vacuum(wfile *w, rpl_drop_result *res, char *err, size_t errlen)
{
    res->size_before = file_bytes(w->path);
    int rc = wexec(w, "VACUUM", err, errlen);
    if (!rc) rc = wexec(w, "PRAGMA wal_checkpoint(TRUNCATE)", err, errlen);
    res->size_after = file_bytes(w->path);
    res->free_after = free_bytes(w);
    return rc;
}

int rpl_drop(const rpl_drop_opts *o, rpl_drop_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->payload_before = res->payload_after = res->size_before = res->size_after = -1;
    if (o->n == 0) {
        snprintf(err, errlen, "which sessions? name them (viv replay list %s shows them)", o->path);
        return RPL_EUSAGE;
    }
    char pid[32];
    int held = rpl_recorded_by(o->path, pid, sizeof pid);
    if (o->vacuum && held) {
        snprintf(err, errlen, "%s is being recorded by a running vivd%s%s%s: VACUUM rewrites the whole "
                 "file and would hold that vivd's commits until it is done; drop without --vacuum (the "
                 "space is reused by new rows), or stop the vivd first", o->path,
                 pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        return RPL_EUSAGE;
    }
    wfile w;
    int rc = wopen(o->path, &w, err, errlen);
    if (rc) {
        wclose(&w);
        return rc;
    }
    idset set = { 0 };
    if ((rc = wexec(&w, "BEGIN IMMEDIATE", err, errlen)) != 0) goto done;
    res->free_before = free_bytes(&w);
    rc = drop_in_tx(&w, o, &set, held, pid, res, err, errlen);
    if (!rc) rc = wexec(&w, "COMMIT", err, errlen);
    if (rc) {
        sqlite3_exec(w.db, "ROLLBACK", NULL, NULL, NULL);
        goto done;
    }
    res->free_after = free_bytes(&w);
    res->v = set.v;
    res->n = set.n;
    set.v = NULL;
    if (o->vacuum) rc = drop_vacuum(&w, res, err, errlen);
done:
    free(set.v);
    wclose(&w);
    if (rc && !res->v) res->note[0] = '\0';
    return rc;
}

void rpl_drop_result_free(rpl_drop_result *res)
{
    free(res->v);
    res->v = NULL;
    res->n = 0;
}

/* ---- compact ---------------------------------------------------------------------------------------- */
/* Ticks thinned per transaction: a few thousand rows, milliseconds of a vivd's commits waiting. */
#define CHUNK_TICKS 7200
#define STR_(x) #x
#define STR(x) STR_(x)

/* What a thinned session keeps of its per-tick rows (tick, phase): the ticks at multiples of the
 * grain, and those the temporary keep table lists (its start and end, the ends of its gaps, its
 * kept checkpoints, the ticks its forks in the file start from, the last tick of each hash block). */
#define KEEP_TICK "(tick % " STR(RPL_HASH_GRAIN) " = 0 OR tick IN (SELECT tick FROM temp.rpl_keep_tick))"
/* A hash block keeps every tick's hashes when one of its ticks before its last is where a fork in
 * the file starts (so the fork's lineage stays checkable against a recorded hash). */
#define KEEP_BLOCK "EXISTS (SELECT 1 FROM temp.rpl_fork_tick f WHERE f.tick >= hashes.tick AND " \
                   "f.tick < hashes.tick + hashes.n - 1)"
#define KEEP_CP "tick IN (SELECT tick FROM temp.rpl_keep_cp)"
#define RANGE "session = ?1 AND tick >= ?2 AND tick < ?3"

/* Per RPL_C_… table: its RPL_T_… table; the rows and bytes of a session's values, all of them
 * and those it keeps; the thinning of a range of its ticks. */
static const struct {
    int table;
    const char *all, *kept, *thin;
} thin_sql[RPL_C_N] = {
    { RPL_T_TICK, "SELECT count(*), 16 * count(*) FROM tick WHERE session = ?1",
      "SELECT count(*), 16 * count(*) FROM tick WHERE session = ?1 AND " KEEP_TICK,
      "DELETE FROM tick WHERE " RANGE " AND NOT " KEEP_TICK },
    { RPL_T_HASHES, "SELECT coalesce(sum(length(data) > 0), 0), coalesce(sum(16 + length(data)), 0) "
      "FROM hashes WHERE session = ?1",
      "SELECT coalesce(sum(length(data) > 0 AND " KEEP_BLOCK "), 0), coalesce(sum(16 + CASE WHEN "
      KEEP_BLOCK " THEN length(data) ELSE 0 END), 0) FROM hashes WHERE session = ?1",
      "UPDATE hashes SET data = x'' WHERE " RANGE " AND length(data) > 0 AND NOT " KEEP_BLOCK },
    { RPL_T_CHECKPOINT, "SELECT count(*), coalesce(sum(length(state)), 0) FROM checkpoint WHERE session = ?1",
      "SELECT count(*), coalesce(sum(length(state)), 0) FROM checkpoint WHERE session = ?1 AND " KEEP_CP,
      "DELETE FROM checkpoint WHERE " RANGE " AND NOT " KEEP_CP },
    { RPL_T_PHASE, "SELECT count(*), 8 * count(*) FROM phase WHERE session = ?1",
      "SELECT count(*), 8 * count(*) FROM phase WHERE session = ?1 AND " KEEP_TICK,
      "DELETE FROM phase WHERE " RANGE " AND NOT " KEEP_TICK },
};

typedef struct compactor {
    wfile w;
    const rpl_compact_opts *o;
    int64_t now;
    uint64_t done, total;              /* ticks, for progress */
} compactor;

static void iso_utc(int64_t t, char *out, size_t cap)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    snprintf(out, cap, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Run sql with ?1 = session (and ?2, ?3 when nb says); its changes, or a negative code. */
static int64_t crun(compactor *c, const char *sql, int nb, int64_t session, int64_t a, int64_t b,
                    char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(c->w.db, sql, -1, &st, NULL) != SQLITE_OK)
        return say_db(&c->w, "compacting", err, errlen);
    sqlite3_bind_int64(st, 1, session);
    if (nb > 1) sqlite3_bind_int64(st, 2, a);
    if (nb > 2) sqlite3_bind_int64(st, 3, b);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) return say_db(&c->w, "compacting", err, errlen);
    return sqlite3_changes(c->w.db);
}

/* The sessions to compact, in id order (*out malloc'd), and the closed ones left: too recent, or
 * compacted before. */
static int compact_choose(compactor *c, int64_t cutoff, rpl_compacted **out, size_t *n,
                          rpl_compact_result *res, char *err, size_t errlen)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT id, kind, hz, start_tick, end_tick, closed_at, "
             "coalesce(CAST(strftime('%%s', closed_at) AS INTEGER) < ?1, 0), %s FROM session s "
             "WHERE status = 'closed' AND hz > 0 ORDER BY id",
             c->w.has[RPL_T_GRAIN] ? "EXISTS (SELECT 1 FROM grain g WHERE g.session = s.id)" : "0");
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(c->w.db, sql, -1, &st, NULL) != SQLITE_OK)
        return say_db(&c->w, "reading its sessions", err, errlen);
    sqlite3_bind_int64(st, 1, cutoff);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int(st, 7)) {
            res->compacted_before++;
            continue;
        }
        if (!sqlite3_column_int(st, 6)) {
            res->newer++;
            continue;
        }
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            rpl_compacted *v = realloc(*out, cap * sizeof *v);
            if (!v) {
                sqlite3_finalize(st);
                snprintf(err, errlen, "out of memory");
                return RPL_ENOMEM;
            }
            *out = v;
        }
        rpl_compacted *s = &(*out)[(*n)++];
        memset(s, 0, sizeof *s);
        s->id = sqlite3_column_int64(st, 0);
        snprintf(s->kind, sizeof s->kind, "%s", (const char *)sqlite3_column_text(st, 1));
        s->hz = (uint32_t)sqlite3_column_int64(st, 2);
        s->start_tick = (uint64_t)sqlite3_column_int64(st, 3);
        s->end_tick = (uint64_t)sqlite3_column_int64(st, 4);
        snprintf(s->closed_at, sizeof s->closed_at, "%s", (const char *)sqlite3_column_text(st, 5));
        c->total += s->end_tick - s->start_tick;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : say_db(&c->w, "reading its sessions", err, errlen);
}

/* A session's checkpoints, as the compaction decides which stay. */
typedef struct cps {
    int64_t *tick, *base;              /* base -1: a full one (or a file without deltas) */
    char *keep;
    size_t n;
} cps;

static void cps_free(cps *p)
{
    free(p->tick);
    free(p->base);
    free(p->keep);
}

static int cps_load(compactor *c, int64_t session, cps *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    int64_t n = wint(&c->w, "SELECT count(*) FROM checkpoint WHERE session = ?", 1, session, 0, 0);
    if (n < 0) return say_db(&c->w, "reading its checkpoints", err, errlen);
    size_t cap = (size_t)n + 1;
    p->tick = malloc(cap * sizeof *p->tick);
    p->base = malloc(cap * sizeof *p->base);
    p->keep = calloc(cap, 1);
    if (!p->tick || !p->base || !p->keep) {
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    sqlite3_stmt *st = NULL;
    const char *sql = c->w.has_base ? "SELECT tick, base FROM checkpoint WHERE session = ? ORDER BY tick"
                                    : "SELECT tick, NULL FROM checkpoint WHERE session = ? ORDER BY tick";
    if (sqlite3_prepare_v2(c->w.db, sql, -1, &st, NULL) != SQLITE_OK)
        return say_db(&c->w, "reading its checkpoints", err, errlen);
    sqlite3_bind_int64(st, 1, session);
    while (p->n < cap - 1 && sqlite3_step(st) == SQLITE_ROW) {
        p->tick[p->n] = sqlite3_column_int64(st, 0);
        p->base[p->n] = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
        p->n++;
    }
    sqlite3_finalize(st);
    return 0;
}

/* Which checkpoints stay: the first (the start) and the last; the first at or after each gap's
 * end, where a replay restarts; then, when the session has deltas (schema 4), every full one and
 * no delta, else those at multiples of every (10 minutes of world time); and the full checkpoint
 * every kept delta is made against, so that none is left unreadable. */
static void cps_choose(cps *p, const int64_t *gap_to, size_t ngaps, int64_t every, int *deltas)
{
    *deltas = 0;
    for (size_t i = 0; i < p->n; i++) *deltas |= p->base[i] >= 0;
    if (!p->n) return;
    p->keep[0] = p->keep[p->n - 1] = 1;
    for (size_t g = 0; g < ngaps; g++)
        for (size_t i = 0; i < p->n; i++)
            if (p->tick[i] >= gap_to[g]) {
                p->keep[i] = 1;
                break;
            }
    for (size_t i = 0; i < p->n; i++)
        if (*deltas ? p->base[i] < 0 : p->tick[i] % every == 0) p->keep[i] = 1;
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = 0; p->keep[i] && p->base[i] >= 0 && j < p->n; j++)
            if (p->tick[j] == p->base[i]) p->keep[j] = 1;
}

/* The most ticks a replay runs from the kept checkpoint at or before a tick. */
static uint64_t cps_every(const cps *p, uint64_t end_tick)
{
    int64_t last = -1;
    uint64_t most = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->keep[i]) continue;
        if (last >= 0 && (uint64_t)(p->tick[i] - last) > most) most = (uint64_t)(p->tick[i] - last);
        last = p->tick[i];
    }
    if (last >= 0 && end_tick > (uint64_t)last && end_tick - (uint64_t)last > most) most = end_tick - (uint64_t)last;
    return most;
}

/* The ticks where session's gaps end (*to malloc'd, in order). */
static int gaps_load(compactor *c, int64_t session, int64_t **to, size_t *n, char *err, size_t errlen)
{
    *to = NULL;
    *n = 0;
    int64_t count = wint(&c->w, "SELECT count(*) FROM gap WHERE session = ?", 1, session, 0, 0);
    sqlite3_stmt *st = NULL;
    if (count < 0 || sqlite3_prepare_v2(c->w.db, "SELECT to_tick FROM gap WHERE session = ? ORDER BY "
                                        "from_tick", -1, &st, NULL) != SQLITE_OK)
        return say_db(&c->w, "reading its gaps", err, errlen);
    if (!(*to = malloc(((size_t)count + 1) * sizeof **to))) {
        sqlite3_finalize(st);
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    sqlite3_bind_int64(st, 1, session);
    while (*n < (size_t)count && sqlite3_step(st) == SQLITE_ROW) (*to)[(*n)++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* The temporary keep tables for session s, and its grain. */
static int compact_plan(compactor *c, rpl_compacted *s, char *err, size_t errlen)
{
    static const char *const reset =
        "CREATE TEMP TABLE IF NOT EXISTS rpl_keep_tick (tick INTEGER PRIMARY KEY);"
        "CREATE TEMP TABLE IF NOT EXISTS rpl_keep_cp (tick INTEGER PRIMARY KEY);"
        "CREATE TEMP TABLE IF NOT EXISTS rpl_fork_tick (tick INTEGER PRIMARY KEY);"
        "DELETE FROM temp.rpl_keep_tick; DELETE FROM temp.rpl_keep_cp; DELETE FROM temp.rpl_fork_tick;";
    int rc = wexec(&c->w, reset, err, errlen);
    if (rc) return rc;
    int64_t *gap_to = NULL;
    size_t ngaps = 0;
    if ((rc = gaps_load(c, s->id, &gap_to, &ngaps, err, errlen)) != 0) return rc;
    cps p;
    if ((rc = cps_load(c, s->id, &p, err, errlen)) != 0) {
        cps_free(&p);
        free(gap_to);
        return rc;
    }
    cps_choose(&p, gap_to, ngaps, (int64_t)s->hz * RPL_CHECKPOINT_GRAIN_S, &s->deltas);
    free(gap_to);
    s->grain.hash_every = RPL_HASH_GRAIN;
    s->grain.checkpoint_every = cps_every(&p, s->end_tick);
    for (size_t i = 0; i < p.n && !rc; i++)
        if (p.keep[i])
            rc = crun(c, "INSERT OR IGNORE INTO temp.rpl_keep_cp VALUES (?1)", 1, p.tick[i], 0, 0, err,
                      errlen) < 0;
    cps_free(&p);
    if (rc) return RPL_EDB;
    const char *ticks[] = {
        "INSERT OR IGNORE INTO temp.rpl_keep_tick SELECT tick FROM temp.rpl_keep_cp",
        "INSERT OR IGNORE INTO temp.rpl_keep_tick SELECT start_tick FROM session WHERE id = ?1 UNION "
        "SELECT end_tick FROM session WHERE id = ?1",
        "INSERT OR IGNORE INTO temp.rpl_keep_tick SELECT from_tick FROM gap WHERE session = ?1 UNION "
        "SELECT to_tick FROM gap WHERE session = ?1",
        c->w.has[RPL_T_FORK] ? "INSERT OR IGNORE INTO temp.rpl_fork_tick SELECT tick FROM fork WHERE "
                               "parent = ?1 AND parent_file IS NULL" : NULL,
        "INSERT OR IGNORE INTO temp.rpl_keep_tick SELECT tick FROM temp.rpl_fork_tick",
        c->w.has[RPL_T_HASHES] ? "INSERT OR IGNORE INTO temp.rpl_keep_tick SELECT tick + n - 1 FROM "
                                 "hashes WHERE session = ?1" : NULL,
    };
    for (size_t i = 0; i < sizeof ticks / sizeof ticks[0]; i++)
        if (ticks[i] && crun(c, ticks[i], 1, s->id, 0, 0, err, errlen) < 0) return RPL_EDB;
    return 0;
}

/* Rows and bytes of session s's values by table: all of them, or those it keeps. */
static int compact_measure(compactor *c, const rpl_compacted *s, int kept, uint64_t *rows,
                           uint64_t *bytes, char *err, size_t errlen)
{
    for (int t = 0; t < RPL_C_N; t++) {
        rows[t] = bytes[t] = 0;
        if (!c->w.has[thin_sql[t].table]) continue;
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(c->w.db, kept ? thin_sql[t].kept : thin_sql[t].all, -1, &st, NULL) != SQLITE_OK)
            return say_db(&c->w, "measuring a session", err, errlen);
        sqlite3_bind_int64(st, 1, s->id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            rows[t] = (uint64_t)sqlite3_column_int64(st, 0);
            bytes[t] = (uint64_t)sqlite3_column_int64(st, 1);
        }
        sqlite3_finalize(st);
    }
    return 0;
}

/* Thin ticks [lo, hi) of session s in one transaction. */
static int compact_chunk(compactor *c, const rpl_compacted *s, int64_t lo, int64_t hi, char *err,
                         size_t errlen)
{
    int rc = wexec(&c->w, "BEGIN IMMEDIATE", err, errlen);
    for (int t = 0; t < RPL_C_N && !rc; t++)
        if (c->w.has[thin_sql[t].table] && crun(c, thin_sql[t].thin, 3, s->id, lo, hi, err, errlen) < 0)
            rc = RPL_EDB;
    if (!rc) rc = wexec(&c->w, "COMMIT", err, errlen);
    if (rc) sqlite3_exec(c->w.db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* The grain row, last: a session has one only once it is thinned whole. */
static int compact_grain(compactor *c, rpl_compacted *s, char *err, size_t errlen)
{
    iso_utc(c->now, s->grain.compacted_at, sizeof s->grain.compacted_at);
    int rc = wexec(&c->w, "BEGIN IMMEDIATE;" RPL_GRAIN_TABLE_SQL, err, errlen);
    sqlite3_stmt *st = NULL;
    if (!rc && sqlite3_prepare_v2(c->w.db, "INSERT OR REPLACE INTO grain (session, hash_every, "
                                  "checkpoint_every, compacted_at) SELECT ?1, ?2, ?3, ?4 WHERE EXISTS "
                                  "(SELECT 1 FROM session WHERE id = ?1)", -1, &st, NULL) != SQLITE_OK)
        rc = say_db(&c->w, "writing the grain", err, errlen);
    if (!rc) {
        sqlite3_bind_int64(st, 1, s->id);
        sqlite3_bind_int64(st, 2, (int64_t)s->grain.hash_every);
        sqlite3_bind_int64(st, 3, (int64_t)s->grain.checkpoint_every);
        sqlite3_bind_text(st, 4, s->grain.compacted_at, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE) rc = say_db(&c->w, "writing the grain", err, errlen);
    }
    sqlite3_finalize(st);
    if (!rc) rc = wexec(&c->w, "COMMIT", err, errlen);
    if (rc) sqlite3_exec(c->w.db, "ROLLBACK", NULL, NULL, NULL);
    c->w.has[RPL_T_GRAIN] = 1;
    return rc;
}

/* One session: planned and measured; unless a dry run, thinned chunk by chunk and given its
 * grain row, then measured again. 1 when opts.stop stopped it, else 0 or a negative code. */
static int compact_one(compactor *c, rpl_compacted *s, char *err, size_t errlen)
{
    const rpl_compact_opts *o = c->o;
    int rc = compact_plan(c, s, err, errlen);
    if (!rc) rc = compact_measure(c, s, 0, s->rows_before, s->bytes_before, err, errlen);
    if (!rc) rc = compact_measure(c, s, 1, s->rows_after, s->bytes_after, err, errlen);
    if (rc || o->dry_run) {
        c->done += s->end_tick - s->start_tick;
        return rc;
    }
    for (uint64_t a = s->start_tick;; a += CHUNK_TICKS) {
        int last = s->end_tick - a < CHUNK_TICKS;
        int64_t lo = a == s->start_tick ? 0 : (int64_t)a, hi = last ? INT64_MAX : (int64_t)(a + CHUNK_TICKS);
        if ((rc = compact_chunk(c, s, lo, hi, err, errlen)) != 0) return rc;
        uint64_t upto = last ? s->end_tick : a + CHUNK_TICKS;
        if (o->progress) o->progress(o->ud, c->done + (upto - s->start_tick), c->total);
        if (last) break;
        if (o->stop && o->stop(o->ud)) return 1;
    }
    c->done += s->end_tick - s->start_tick;
    if ((rc = compact_grain(c, s, err, errlen)) != 0) return rc;
    return compact_measure(c, s, 0, s->rows_after, s->bytes_after, err, errlen);
}

void rpl_compacted_describe(const rpl_compacted *x, char *out, size_t cap)
{
    size_t len = 0;
    uint64_t before = 0, after = 0;
    out[0] = '\0';
    for (int t = 0; t < RPL_C_N && len < cap; t++) {
        before += x->bytes_before[t];
        after += x->bytes_after[t];
        if (x->rows_before[t] || x->rows_after[t])
            len += (size_t)snprintf(out + len, cap - len, "%s%s %llu → %llu", len ? ", " : "",
                                    rpl_compact_names[t], (unsigned long long)x->rows_before[t],
                                    (unsigned long long)x->rows_after[t]);
    }
    if (len < cap)
        snprintf(out + len, cap - len, "%s%llu → %llu bytes; grain: a hash every %llu ticks, a "
                 "checkpoint every %llu ticks at most%s", len ? "; " : "", (unsigned long long)before,
                 (unsigned long long)after, (unsigned long long)x->grain.hash_every,
                 (unsigned long long)x->grain.checkpoint_every,
                 x->deltas ? " (its full checkpoints)" : "");
}

int rpl_compact(const rpl_compact_opts *o, rpl_compact_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    res->payload_before = res->payload_after = -1;
    if (o->older_than == 0) {
        snprintf(err, errlen, "compact sessions older than what? the duration must be more than 0");
        return RPL_EUSAGE;
    }
    compactor c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.now = o->now ? o->now : (int64_t)time(NULL);
    int rc = wopen(o->path, &c.w, err, errlen);
    rpl_compacted *v = NULL;
    size_t n = 0;
    if (!rc) rc = compact_choose(&c, c.now - (int64_t)o->older_than, &v, &n, res, err, errlen);
    if (rc || n == 0) goto done;
    res->free_before = free_bytes(&c.w);
    if (o->measure && !o->dry_run) res->payload_before = payload_bytes(&c.w);
    for (size_t i = 0; i < n && !rc; i++) {
        if (i && o->stop && o->stop(o->ud)) rc = 1;
        if (!rc) rc = compact_one(&c, &v[i], err, errlen);
        if (rc) break;
        res->sessions++;
        for (int t = 0; t < RPL_C_N; t++) {
            res->bytes_before += v[i].bytes_before[t];
            res->bytes_after += v[i].bytes_after[t];
        }
        if (o->each) o->each(o->ud, &v[i]);
    }
    if (rc == 1) {
        res->stopped = 1;
        rc = 0;
    }
    res->free_after = free_bytes(&c.w);
    if (o->measure && !o->dry_run) res->payload_after = payload_bytes(&c.w);
done:
    free(v);
    wclose(&c.w);
    return rc;
}
