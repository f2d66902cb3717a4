/* collect.c — gathering the replay files of several nodes into one (replay.h, docs/REPLAY.md
 * "Collecting"): each node of a cluster records into its own file; verification wants one file
 * with every session, each named by the node that recorded it and the id it had there.
 *
 * Rows are copied value by value through bound sqlite3_values (never re-encoded), so a copied
 * session is the same bytes as its source and verify gives it the same verdict, damaged rows
 * included. Sources are read-only; the output is built under a temporary name and renamed. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "read.h"

int rpl_node_name_check(const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name);
    const char *why = NULL;
    if (n == 0) why = "it is empty";
    else if (n >= RPL_NODE_MAX) why = "it is longer than 63 bytes";
    for (size_t i = 0; i < n && !why; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
              c == '_' || c == '.' || c == ':'))
            why = "use letters, digits, '-', '_', '.' and ':' only";
    }
    if (!why) return 0;
    snprintf(err, errlen, "'%.80s' is not a node name: %s", name, why);
    return RPL_EUSAGE;
}

/* A source's node name when it names none: its base name without the extension
 * (/var/lib/vivd/node-a.db → node-a), with any byte a node name may not hold made '_'. */
static void default_node(const char *path, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) n = (size_t)(dot - base);
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) {
        char c = base[i];
        int okc = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
        out[i] = okc ? c : '_';
    }
    out[n] = '\0';
    if (n == 0) snprintf(out, cap, "node");
}

typedef struct source {
    rpl_file *f;
    rpl_session_info *list;
    size_t n;
    char node[RPL_NODE_MAX];
    int named;                         /* the caller gave its name */
    int by_file;                       /* some session records no node: it takes the file's name */
    struct stat st;
} source;

/* The tables that hang off a session, their columns after `session`, and their key order; an
 * optional one (the phase hashes of heavy mode, a compacted session's grain) is copied when the
 * source has it. */
static const struct {
    const char *table, *cols;
    int ncols;
    const char *order;
    const char *create;                /* optional: the SQL that adds it to the output, else NULL */
    int schema;                        /* 4: only from a source of schema 4 (the hashes table, the
                                          checkpoint's base); -4: only from an older one; 0: any */
} rows[] = {
    { "input", "tick, client, seq, kind, args", 5, "tick, client, seq", NULL, 0 },
    { "tick", "tick, state_hash, frame_hash", 3, "tick", NULL, 0 },
    { "hashes", "tick, n, last_sh, last_fh, data", 5, "tick", NULL, 4 },
    { "checkpoint", "tick, state, state_hash", 3, "tick", NULL, -4 },
    { "checkpoint", "tick, state, state_hash, base", 4, "tick", NULL, 4 },
    { "gap", "from_tick, to_tick, reason", 3, "from_tick", NULL, 0 },
    { "phase", "tick, idx, name, hash", 4, "tick, idx", RPL_PHASE_TABLE_SQL, 0 },
    { "grain", "hash_every, checkpoint_every, compacted_at", 3, "session", RPL_GRAIN_TABLE_SQL, 0 },
};

/* 1 when db has the table, else 0. */
static int has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    int has = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 1;
    }
    sqlite3_finalize(st);
    return has;
}
#define SESSION_BASE                                                                              \
    "kind, kind_id, seed, params, sim_version, hz, start_tick, end_tick, status, source, world, " \
    "checkpoint_every, created_at, closed_at"
enum { SESSION_NBASE = 14 };

typedef struct copier {
    sqlite3 *out;
    uint64_t done, total;
    void (*progress)(void *, uint64_t, uint64_t);
    void *ud;
    char *err;
    size_t errlen;
} copier;

static void tick_progress(copier *c, uint64_t n)
{
    uint64_t before = c->done;
    c->done += n;
    if (c->progress && (c->done >> 12) != (before >> 12)) c->progress(c->ud, c->done, c->total);
}

static int say_db(copier *c, sqlite3 *db, const char *what, const char *path)
{
    snprintf(c->err, c->errlen, "%s %s failed: %s", what, path, sqlite3_errmsg(db));
    return RPL_EDB;
}

/* Session `from` of src → session `to` of the output: its row, then every row of its tables. */
static int copy_session(copier *c, source *s, const rpl_session *ss, int64_t to, const char *node,
                        int64_t origin, const char *outpath)
{
    sqlite3 *in = rpl_db(s->f);
    const char *inpath = rpl_path(s->f);
    sqlite3_stmt *rd = NULL, *wr = NULL;
    int code = 0, rc;
    char sql[512];
    if (sqlite3_prepare_v2(in, "SELECT " SESSION_BASE " FROM session WHERE id = ?", -1, &rd, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(c->out, "INSERT INTO session (id, " SESSION_BASE ", node, origin_id) VALUES "
                           "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &wr, NULL) != SQLITE_OK) {
        code = say_db(c, rd ? c->out : in, "preparing the copy of", rd ? outpath : inpath);
        goto done;
    }
    sqlite3_bind_int64(rd, 1, ss->id);
    if ((rc = sqlite3_step(rd)) != SQLITE_ROW) {
        code = say_db(c, in, "reading the sessions of", inpath);
        goto done;
    }
    sqlite3_bind_int64(wr, 1, to);
    for (int i = 0; i < SESSION_NBASE; i++) sqlite3_bind_value(wr, 2 + i, sqlite3_column_value(rd, i));
    sqlite3_bind_text(wr, 2 + SESSION_NBASE, node, -1, SQLITE_STATIC);
    sqlite3_bind_int64(wr, 3 + SESSION_NBASE, origin);
    if (sqlite3_step(wr) != SQLITE_DONE) {
        code = say_db(c, c->out, "writing", outpath);
        goto done;
    }
    tick_progress(c, 1);
    for (size_t t = 0; t < sizeof rows / sizeof rows[0]; t++) {
        sqlite3_finalize(rd);
        sqlite3_finalize(wr);
        rd = wr = NULL;
        if ((rows[t].schema == 4 && rpl_schema(s->f) < 4) || (rows[t].schema == -4 && rpl_schema(s->f) >= 4))
            continue;
        if (rows[t].create) {
            if (!has_table(in, rows[t].table)) continue;
            if (sqlite3_exec(c->out, rows[t].create, NULL, NULL, NULL) != SQLITE_OK) {
                code = say_db(c, c->out, "writing", outpath);
                goto done;
            }
        }
        snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE session = ? ORDER BY %s", rows[t].cols,
                 rows[t].table, rows[t].order);
        if (sqlite3_prepare_v2(in, sql, -1, &rd, NULL) != SQLITE_OK) {
            code = say_db(c, in, "reading", inpath);
            goto done;
        }
        int len = snprintf(sql, sizeof sql, "INSERT INTO %s (session, %s) VALUES (?", rows[t].table,
                           rows[t].cols);
        for (int i = 0; i < rows[t].ncols; i++) len += snprintf(sql + len, sizeof sql - (size_t)len, ",?");
        snprintf(sql + len, sizeof sql - (size_t)len, ")");
        if (sqlite3_prepare_v2(c->out, sql, -1, &wr, NULL) != SQLITE_OK) {
            code = say_db(c, c->out, "writing", outpath);
            goto done;
        }
        sqlite3_bind_int64(rd, 1, ss->id);
        uint64_t n = 0;
        while ((rc = sqlite3_step(rd)) == SQLITE_ROW) {
            sqlite3_bind_int64(wr, 1, to);
            for (int i = 0; i < rows[t].ncols; i++) sqlite3_bind_value(wr, 2 + i, sqlite3_column_value(rd, i));
            if (sqlite3_step(wr) != SQLITE_DONE) {
                code = say_db(c, c->out, "writing", outpath);
                goto done;
            }
            sqlite3_reset(wr);
            if (++n == 256 && !rows[t].create) {     /* the totals count no optional rows */
                tick_progress(c, n);
                n = 0;
            }
        }
        if (!rows[t].create) tick_progress(c, n);
        if (rc != SQLITE_DONE) {
            snprintf(c->err, c->errlen, "reading the %s rows of session %lld of %s failed: %s",
                     rows[t].table, (long long)ss->id, inpath, sqlite3_errmsg(in));
            code = RPL_EDB;
            goto done;
        }
    }
done:
    sqlite3_finalize(rd);
    sqlite3_finalize(wr);
    return code;
}

static void remove_db(const char *path)
{
    static const char *const side[] = { "", "-wal", "-shm", "-journal" };
    char p[4200];
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        unlink(p);
    }
}

/* Whether path has a non-empty companion (e.g. "-wal"). */
static int has_side(const char *path, const char *suffix)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s%s", path, suffix);
    return stat(p, &st) == 0 && st.st_size > 0;
}

/* The directory entry of a rename made durable. Best effort: a failure loses nothing written. */
static void sync_dir_of(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The sources opened, validated and listed, each inside a read transaction; names settled. */
static int open_sources(const rpl_collect_opts *o, source *src, rpl_collect_result *res, char *err,
                        size_t errlen)
{
    for (size_t i = 0; i < o->nsrc; i++) {
        source *s = &src[i];
        const char *path = o->src[i].path;
        int code;
        if (o->src[i].node) {
            char why[200];
            if (rpl_node_name_check(o->src[i].node, why, sizeof why) != 0) {
                snprintf(err, errlen, "the node name given for %s: %s", path, why);
                return RPL_EUSAGE;
            }
            snprintf(s->node, sizeof s->node, "%s", o->src[i].node);
            s->named = 1;
        } else {
            default_node(path, s->node, sizeof s->node);
        }
        if ((code = rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &s->f, err, errlen)) != 0) return code;
        if (stat(path, &s->st) != 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            return RPL_EFILE;
        }
        for (size_t j = 0; j < i; j++)
            if (src[j].st.st_dev == s->st.st_dev && src[j].st.st_ino == s->st.st_ino) {
                snprintf(err, errlen, "%s is given twice (as %s too): each node's file once", path,
                         o->src[j].path);
                return RPL_EUSAGE;
            }
        /* One read transaction: every row of this source comes from one snapshot, even while a
         * vivd is still recording into it. */
        char *msg = NULL;
        if (sqlite3_exec(rpl_db(s->f), "BEGIN", NULL, NULL, &msg) != SQLITE_OK) {
            snprintf(err, errlen, "%s: cannot start reading: %s", path, msg ? msg : "?");
            sqlite3_free(msg);
            return RPL_EDB;
        }
        if ((code = rpl_sessions_list(s->f, &s->list, &s->n, err, errlen)) != 0) return code;
        /* Two files named alike clash only where a session takes its node's name from the file
         * (a cluster node writes its own name into every session it records). */
        for (size_t k = 0; k < s->n && !s->named; k++)
            if (!s->list[k].s.node[0]) s->by_file = 1;
        for (size_t j = 0; j < i; j++)
            if (s->by_file && src[j].by_file && strcmp(s->node, src[j].node) == 0) {
                snprintf(err, errlen, "%s and %s would both be node '%s' (named after the file): "
                         "name them with --node NAME before each file", o->src[j].path, path, s->node);
                return RPL_EUSAGE;
            }
        for (size_t k = 0; k < s->n && s->named && !res->warning[0]; k++)
            if (s->list[k].s.node[0] && strcmp(s->list[k].s.node, s->node) != 0)
                snprintf(res->warning, sizeof res->warning, "%s records its sessions' node ('%s'), "
                         "which is kept rather than --node %s", path, s->list[k].s.node, s->node);
    }
    return 0;
}

/* The output's name is free (or may be replaced), and is not one of the sources. */
static int check_out(const rpl_collect_opts *o, const source *src, char *err, size_t errlen)
{
    struct stat st;
    if (stat(o->out, &st) != 0) return 0;
    for (size_t i = 0; i < o->nsrc; i++)
        if (src[i].st.st_dev == st.st_dev && src[i].st.st_ino == st.st_ino) {
            snprintf(err, errlen, "the output %s is one of the files to collect (%s): name a new file",
                     o->out, o->src[i].path);
            return RPL_EUSAGE;
        }
    if (!o->force) {
        snprintf(err, errlen, "%s exists: name a new file, or add --force to replace it", o->out);
        return RPL_EUSAGE;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not a file to replace", o->out);
        return RPL_EUSAGE;
    }
    if (has_side(o->out, "-wal")) {
        snprintf(err, errlen, "%s has a write-ahead log beside it (%s-wal): a program may still be "
                 "writing it; stop that program (or open the file once with sqlite3) first",
                 o->out, o->out);
        return RPL_EUSAGE;
    }
    return 0;
}

int rpl_collect(const rpl_collect_opts *o, rpl_collect_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (!o->out || !o->out[0] || o->nsrc == 0) {
        snprintf(err, errlen, !o->nsrc ? "no files to collect" : "no output file named");
        return RPL_EUSAGE;
    }
    source *src = calloc(o->nsrc, sizeof *src);
    char tmp[4200] = "";
    rpl_file *out = NULL;
    int code;
    if (!src) {
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    if ((code = open_sources(o, src, res, err, errlen)) != 0) goto done;
    if ((code = check_out(o, src, err, errlen)) != 0) goto done;
    size_t total = 0;
    copier c = { .progress = o->progress, .ud = o->ud, .err = err, .errlen = errlen };
    for (size_t i = 0; i < o->nsrc; i++)
        for (size_t k = 0; k < src[i].n; k++) {
            const rpl_session_info *si = &src[i].list[k];
            c.total += 1 + si->inputs + si->ticks + si->checkpoints + si->gaps;
            total++;
        }
    if (total && !(res->map = calloc(total, sizeof *res->map))) {
        snprintf(err, errlen, "out of memory");
        code = RPL_ENOMEM;
        goto done;
    }
    /* The temporary file: beside the output (so the rename stays on one file system), made with
     * O_EXCL so that nothing else's file is taken over. */
    snprintf(tmp, sizeof tmp, "%s.collect-%ld.tmp", o->out, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s for the output: %s", tmp, strerror(errno));
        tmp[0] = '\0';
        code = RPL_EUSAGE;
        goto done;
    }
    close(fd);
    if ((code = rpl_open(tmp, RPL_WRITE, RPL_DUR_NORMAL, &out, err, errlen)) != 0) goto done;
    c.out = rpl_db(out);
    int64_t next = 1;
    for (size_t i = 0; i < o->nsrc; i++) {
        for (size_t k = 0; k < src[i].n; k++) {
            const rpl_session *ss = &src[i].list[k].s;
            rpl_collect_map *m = &res->map[res->n];
            m->id = next++;
            m->src = i;
            m->src_id = ss->id;
            snprintf(m->node, sizeof m->node, "%s", ss->node[0] ? ss->node : src[i].node);
            m->origin_id = ss->origin_id >= 0 ? ss->origin_id : ss->id;
            if (sqlite3_exec(c.out, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
                code = say_db(&c, c.out, "writing", o->out);
                goto done;
            }
            code = copy_session(&c, &src[i], ss, m->id, m->node, m->origin_id, o->out);
            if (code == 0 && sqlite3_exec(c.out, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
                code = say_db(&c, c.out, "writing", o->out);
            if (code) goto done;
            res->n++;
        }
    }
    res->rows = c.done;
    if (o->progress) o->progress(o->ud, c.done, c.total);
    /* Whole before the rename: the WAL written back into the file and removed, so that the one
     * file at out holds everything. */
    if (sqlite3_exec(c.out, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK) {
        code = say_db(&c, c.out, "finishing", o->out);
        goto done;
    }
    rpl_close(out);
    out = NULL;
    if (has_side(tmp, "-wal")) {
        snprintf(err, errlen, "finishing %s failed: its write-ahead log was not written back", o->out);
        code = RPL_EDB;
        goto done;
    }
    if (o->force) {                    /* an old file's empty companions must not outlive it */
        char side[4200];
        snprintf(side, sizeof side, "%s-wal", o->out);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", o->out);
        unlink(side);
    }
    if (rename(tmp, o->out) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, o->out, strerror(errno));
        code = RPL_EDB;
        goto done;
    }
    tmp[0] = '\0';
    sync_dir_of(o->out);
done:
    if (out) rpl_close(out);
    if (tmp[0]) remove_db(tmp);
    for (size_t i = 0; i < o->nsrc; i++) {
        if (src[i].f) {
            sqlite3_exec(rpl_db(src[i].f), "COMMIT", NULL, NULL, NULL);
            rpl_close(src[i].f);
        }
        free(src[i].list);
    }
    free(src);
    if (code) rpl_collect_result_free(res);
    return code;
}

void rpl_collect_result_free(rpl_collect_result *res)
{
    free(res->map);
    res->map = NULL;
    res->n = 0;
}
