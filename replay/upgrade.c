/* upgrade.c — `viv replay upgrade FILE` (docs/REPLAY.md, "Upgrading a file"): the sessions a file
 * holds in schema 3's rows (a tick row a tick, a whole checkpoint every 10 s) rewritten as schema 4
 * records them (blocks of truncated hashes, a checkpoint every 60 s of world time as a delta
 * against a full one), each verified before and after.
 *
 * Only a session that verifies bit-exactly is rewritten: the rewrite keeps fewer bits of its
 * hashes, so a divergence or damage in it would no longer be shown as it is; such a session is
 * kept as it is, and said so. The file is first copied whole (SQLite's online backup) to
 * FILE.schema3; the rewrite runs one transaction a session; then every rewritten session is
 * verified again, and if one does not verify bit-exactly the copy is put back, so a failure never
 * leaves a file with less in it than before. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "encode.h"
#include "read.h"

/* The ticks of a session in schema 3's tick rows. */
static int64_t tick_rows(rpl_file *f, int64_t session)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(rpl_db(f), "SELECT count(*) FROM tick WHERE session = ?", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return n;
}

/* Copy the database of `from` into the file `to` (SQLite's online backup: consistent, the WAL's
 * pages included). 0, or RPL_EDB with a sentence. */
static int copy_db(sqlite3 *from, const char *to, char *err, size_t errlen)
{
    sqlite3 *dst = NULL;
    int rc = sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", from, "main");
        rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(dst);
        if (b) sqlite3_backup_finish(b);
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    if (rc != SQLITE_OK)
        snprintf(err, errlen, "cannot copy the file to %s: %s", to, dst ? sqlite3_errmsg(dst) : sqlite3_errstr(rc));
    sqlite3_close(dst);
    return rc == SQLITE_OK ? 0 : RPL_EDB;
}

/* One session's verdict (rpl_verify: 0 bit-exact, 1 diverged, or a negative code). */
static int verdict(rpl_file *f, int64_t id, const rpl_upgrade_opts *o, uint64_t *done, uint64_t total)
{
    rpl_verify_opts vo = rpl_verify_defaults();
    vo.session = id;
    rpl_verify_result r;
    static char report[8192];
    int rc = rpl_verify(f, &vo, &r, report, sizeof report);
    *done += r.ticks;
    if (o->progress) o->progress(o->ud, *done, total);
    return rc;
}

typedef struct writer {
    sqlite3 *db;
    sqlite3_stmt *block, *cp, *cpdel;
    ZSTD_CCtx *z;
    rpl_zout out[2];
    int64_t session;
    uint64_t first, last_sh, last_fh;  /* the block being built */
    uint32_t n;
    uint8_t sh8[RPL_HASH_BLOCK], fh8[RPL_HASH_BLOCK];
} writer;

static int block_flush(writer *w)
{
    if (!w->n) return SQLITE_OK;
    uint8_t raw[1 + 2 * RPL_HASH_BLOCK];
    const uint8_t *data;
    size_t len = rpl_block_data(w->z, &w->out[0], raw, w->sh8, w->fh8, w->n - 1, &data);
    sqlite3_bind_int64(w->block, 1, w->session);
    sqlite3_bind_int64(w->block, 2, (int64_t)w->first);
    sqlite3_bind_int64(w->block, 3, w->n);
    sqlite3_bind_int64(w->block, 4, (int64_t)w->last_sh);
    sqlite3_bind_int64(w->block, 5, (int64_t)w->last_fh);
    sqlite3_bind_blob(w->block, 6, data, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(w->block);
    sqlite3_reset(w->block);
    w->n = 0;
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The session's tick rows as blocks: runs of consecutive ticks (a gap ends one), 240 at most. */
static int rewrite_hashes(writer *w, rpl_upgrade_session *us)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(w->db, "SELECT tick, state_hash, frame_hash FROM tick WHERE session = ? "
                                "ORDER BY tick", -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_int64(st, 1, w->session);
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        uint64_t t = (uint64_t)sqlite3_column_int64(st, 0);
        if (w->n && (w->first + w->n != t || w->n == RPL_HASH_BLOCK)) {
            rc = block_flush(w);
            us->blocks++;
        }
        if (w->n) {
            w->sh8[w->n - 1] = (uint8_t)w->last_sh;
            w->fh8[w->n - 1] = (uint8_t)w->last_fh;
        } else {
            w->first = t;
        }
        w->n++;
        w->last_sh = (uint64_t)sqlite3_column_int64(st, 1);
        w->last_fh = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK && w->n) {
        rc = block_flush(w);
        us->blocks++;
    }
    if (rc == SQLITE_OK) {
        char sql[96];
        snprintf(sql, sizeof sql, "DELETE FROM tick WHERE session = %lld", (long long)w->session);
        rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);
    }
    return rc;
}

/* Whether the checkpoint at tick t stays: the session's first and last, a gap's end (a replay
 * restarts there), and one every RPL_CHECKPOINT_SECONDS of world time from the start. */
static int keep_cp(const rpl_session *s, uint64_t t, uint64_t last, const rpl_gap *g, size_t ng)
{
    if (t == s->start_tick || t == last) return 1;
    for (size_t i = 0; i < ng; i++)
        if (g[i].to == t) return 1;
    return (t - s->start_tick) % ((uint64_t)s->hz * RPL_CHECKPOINT_SECONDS) == 0;
}

/* The checkpoints that stay, stored as schema 4 stores them (the first whole, then deltas against
 * the latest whole one, whole again after RPL_FULL_EVERY deltas); the others deleted. */
static int rewrite_checkpoints(writer *w, rpl_file *f, const rpl_session *s, rpl_upgrade_session *us,
                               char *err, size_t errlen)
{
    uint64_t *ticks = NULL;
    size_t nt = 0, ng = 0;
    rpl_gap *gaps = NULL;
    int code = rpl_checkpoint_ticks(f, s->id, 0, UINT64_MAX, &ticks, &nt, err, errlen);
    if (code == 0) code = rpl_gaps_list(f, s->id, &gaps, &ng, err, errlen);
    uint8_t *full = NULL;
    size_t flen = 0;
    uint32_t since = 0;
    us->checkpoints_before = nt;
    for (size_t i = 0; i < nt && code == 0; i++) {
        int rc;
        if (!keep_cp(s, ticks[i], ticks[nt - 1], gaps, ng)) {
            sqlite3_bind_int64(w->cpdel, 1, s->id);
            sqlite3_bind_int64(w->cpdel, 2, (int64_t)ticks[i]);
            rc = sqlite3_step(w->cpdel);
            sqlite3_reset(w->cpdel);
        } else {
            rpl_checkpoint c;
            code = rpl_checkpoint_find(f, s, ticks[i], RPL_AT_OR_BEFORE, &c, err, errlen);
            if (code) break;
            const uint8_t *data;
            size_t dlen;
            int delta = rpl_checkpoint_data(w->z, w->out, c.state, c.len, full && since < RPL_FULL_EVERY ? full : NULL,
                                            flen, &data, &dlen);
            sqlite3_bind_blob(w->cp, 1, data, (int)dlen, SQLITE_TRANSIENT);
            if (delta) sqlite3_bind_int64(w->cp, 2, (int64_t)us->full_tick);
            else sqlite3_bind_null(w->cp, 2);
            sqlite3_bind_int64(w->cp, 3, s->id);
            sqlite3_bind_int64(w->cp, 4, (int64_t)ticks[i]);
            rc = sqlite3_step(w->cp);
            sqlite3_reset(w->cp);
            if (delta) {
                since++;
                rpl_checkpoint_free(&c);
            } else {
                free(full);
                full = c.state;        /* the next deltas' base */
                flen = c.len;
                c.state = NULL;
                since = 0;
                us->full_tick = ticks[i];
            }
            us->checkpoints_after++;
        }
        if (rc != SQLITE_DONE) {
            snprintf(err, errlen, "rewriting the checkpoints of session %lld failed: %s", (long long)s->id,
                     sqlite3_errmsg(w->db));
            code = RPL_EDB;
        }
    }
    free(full);
    free(ticks);
    free(gaps);
    return code;
}

static int rewrite_session(writer *w, rpl_file *f, rpl_upgrade_session *us, char *err, size_t errlen)
{
    rpl_session s;
    int code = rpl_session_get(f, us->id, &s, err, errlen);
    if (code) return code;
    w->session = us->id;
    int rc = sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = rewrite_hashes(w, us);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "rewriting the hashes of session %lld failed: %s", (long long)us->id,
                 sqlite3_errmsg(w->db));
        code = RPL_EDB;
    }
    if (code == 0) code = rewrite_checkpoints(w, f, &s, us, err, errlen);
    if (code == 0) {
        char sql[128];
        snprintf(sql, sizeof sql, "UPDATE session SET checkpoint_every = %llu WHERE id = %lld",
                 (unsigned long long)s.hz * RPL_CHECKPOINT_SECONDS, (long long)us->id);
        if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "rewriting session %lld failed: %s", (long long)us->id, sqlite3_errmsg(w->db));
            code = RPL_EDB;
        }
    }
    if (code) sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
    return code;
}

static off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : 0;
}

void rpl_upgrade_result_free(rpl_upgrade_result *res)
{
    free(res->s);
    memset(res, 0, sizeof *res);
}

int rpl_upgrade(const rpl_upgrade_opts *o, rpl_upgrade_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    char pid[32];
    if (rpl_recorded_by(o->path, pid, sizeof pid)) {
        snprintf(err, errlen, "%s is being recorded by a running vivd%s%s%s: stop it first (it keeps "
                 "recording in schema 4 either way)", o->path, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        return RPL_EFILE;
    }
    rpl_file *f;
    int code = rpl_open(o->path, RPL_READ, RPL_DUR_NORMAL, &f, err, errlen);
    if (code) return code;
    rpl_session_info *list = NULL;
    size_t n = 0;
    if ((code = rpl_sessions_list(f, &list, &n, err, errlen)) != 0) goto fail_read;
    res->s = calloc(n ? n : 1, sizeof *res->s);
    if (!res->s) {
        snprintf(err, errlen, "out of memory");
        code = RPL_ENOMEM;
        goto fail_read;
    }
    res->n = n;
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < n; i++) total += list[i].ticks;
    for (size_t i = 0; i < n; i++) {
        rpl_upgrade_session *us = &res->s[i];
        us->id = list[i].s.id;
        int64_t rows = tick_rows(f, us->id);
        us->ticks = rows > 0 ? (uint64_t)rows : 0;
        us->verdict = us->ticks ? verdict(f, us->id, o, &done, total) : 0;
        us->convert = us->ticks && us->verdict == 0;
        res->converted += us->convert;
    }
    free(list);
    list = NULL;
    res->bytes_before = (uint64_t)file_size(o->path);
    if (!res->converted) {             /* nothing to rewrite: the file is left as it is */
        rpl_close(f);
        return 0;
    }
    snprintf(res->backup, sizeof res->backup, "%s.schema3", o->path);
    if (access(res->backup, F_OK) == 0) {
        snprintf(err, errlen, "%s exists (an earlier upgrade's copy of the file?): move it away first",
                 res->backup);
        res->backup[0] = '\0';
        code = RPL_EUSAGE;
        goto fail_read;
    }
    if ((code = copy_db(rpl_db(f), res->backup, err, errlen)) != 0) goto fail_read;
    rpl_close(f);
    f = NULL;
    /* Opened for writing, the file is migrated to schema 4 (replay/db.c); then each session. */
    code = rpl_open(o->path, RPL_WRITE, RPL_DUR_NORMAL, &f, err, errlen);
    writer w = { 0 };
    if (code == 0) {
        w.db = rpl_db(f);
        w.z = ZSTD_createCCtx();
        if (!w.z ||
            sqlite3_prepare_v2(w.db, "INSERT INTO hashes (session, tick, n, last_sh, last_fh, data) VALUES "
                               "(?,?,?,?,?,?)", -1, &w.block, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(w.db, "UPDATE checkpoint SET state = ?, base = ? WHERE session = ? AND tick = ?",
                               -1, &w.cp, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(w.db, "DELETE FROM checkpoint WHERE session = ? AND tick = ?", -1, &w.cpdel,
                               NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s: %s", o->path, w.z ? sqlite3_errmsg(w.db) : "out of memory");
            code = RPL_EDB;
        }
    }
    for (size_t i = 0; i < res->n && code == 0; i++)
        if (res->s[i].convert) code = rewrite_session(&w, f, &res->s[i], err, errlen);
    sqlite3_finalize(w.block);
    sqlite3_finalize(w.cp);
    sqlite3_finalize(w.cpdel);
    ZSTD_freeCCtx(w.z);
    free(w.out[0].p);
    free(w.out[1].p);
    /* What the rewrite freed, given back to the file system. */
    if (code == 0 && (sqlite3_exec(w.db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK ||
                      sqlite3_exec(w.db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK)) {
        snprintf(err, errlen, "%s: compacting the file after the rewrite failed: %s", o->path,
                 sqlite3_errmsg(w.db));
        code = RPL_EDB;
    }
    rpl_close(f);
    f = NULL;
    /* Every rewritten session verifies again, or the copy is put back. */
    if (code == 0 && (code = rpl_open(o->path, RPL_READ, RPL_DUR_NORMAL, &f, err, errlen)) == 0) {
        done = 0;
        for (size_t i = 0; i < res->n && code == 0; i++) {
            rpl_upgrade_session *us = &res->s[i];
            if (!us->convert) continue;
            int v = verdict(f, us->id, o, &done, total);
            if (v != 0) {
                snprintf(err, errlen, "session %lld does not verify bit-exactly once rewritten (verify "
                         "gives %d): the file was put back as it was", (long long)us->id, v);
                code = RPL_EDB;
            }
        }
        rpl_close(f);
        f = NULL;
    }
    if (code) goto restore;
    res->bytes_after = (uint64_t)file_size(o->path);
    if (!o->keep_backup) {
        unlink(res->backup);
        res->backup[0] = '\0';
    }
    return 0;
restore:
    {
        char why[512];
        sqlite3 *b = NULL;
        if (sqlite3_open_v2(res->backup, &b, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            copy_db(b, o->path, why, sizeof why) == 0) {
            sqlite3_close(b);
            unlink(res->backup);
            res->backup[0] = '\0';
        } else {
            sqlite3_close(b);
            size_t len = strlen(err);
            snprintf(err + len, errlen - len, "; putting the copy back failed too: the file as it was is "
                     "%s", res->backup);
        }
    }
    return code;
fail_read:
    free(list);
    rpl_close(f);
    return code;
}
