/* db.c — opening a replay file: identify it, refuse anything else with a clear sentence, create
 * the schema of docs/REPLAY.md in a new file. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "replay.h"

/* Statements the readers keep prepared between calls (rpl_stmt_prepare, rpl_stmt_done). */
#define RPL_KEPT 32

struct rpl_file {
    sqlite3 *db;
    char path[4096];
    int mode;
    int schema;                        /* its user_version (after any migration) */
    sqlite3_stmt *kept[RPL_KEPT];
    int nkept;
};

/* The session table of schema 3 (docs/REPLAY.md), under a given name: the migration from
 * schema 1 builds it beside the old one. Schema 2 lacks the last two columns (node, origin_id);
 * schema 1 also differs in the CHECK: no 'suspended'. */
#define SESSION_TABLE(name)                                                                       \
    "CREATE TABLE " name " ("                                                                     \
    " id INTEGER PRIMARY KEY, kind TEXT NOT NULL, kind_id INTEGER NOT NULL,"                      \
    " seed INTEGER NOT NULL, params TEXT NOT NULL, sim_version TEXT NOT NULL,"                    \
    " hz INTEGER NOT NULL, start_tick INTEGER NOT NULL, end_tick INTEGER NOT NULL,"               \
    " status TEXT NOT NULL CHECK (status IN ('running','suspended','closed')),"                   \
    " source TEXT NOT NULL,"                                                                      \
    " world INTEGER, checkpoint_every INTEGER NOT NULL, created_at TEXT NOT NULL, closed_at TEXT," \
    " node TEXT, origin_id INTEGER);"

/* Schema 4's per-tick hashes in blocks (docs/REPLAY.md, "Recorded hashes"). */
#define HASHES_TABLE                                                                              \
    "CREATE TABLE hashes ("                                                                       \
    " session INTEGER NOT NULL REFERENCES session(id), tick INTEGER NOT NULL,"                    \
    " n INTEGER NOT NULL, last_sh INTEGER NOT NULL, last_fh INTEGER NOT NULL,"                    \
    " data BLOB NOT NULL, PRIMARY KEY (session, tick)) WITHOUT ROWID;"

static const char *const schema_sql =
    SESSION_TABLE("session")
    "CREATE TABLE input ("
    " session INTEGER NOT NULL REFERENCES session(id), tick INTEGER NOT NULL,"
    " client INTEGER NOT NULL, seq INTEGER NOT NULL, kind INTEGER NOT NULL, args BLOB NOT NULL,"
    " PRIMARY KEY (session, tick, client, seq)) WITHOUT ROWID;"
    "CREATE TABLE tick ("
    " session INTEGER NOT NULL REFERENCES session(id), tick INTEGER NOT NULL,"
    " state_hash INTEGER NOT NULL, frame_hash INTEGER NOT NULL,"
    " PRIMARY KEY (session, tick)) WITHOUT ROWID;"
    "CREATE TABLE checkpoint ("
    " session INTEGER NOT NULL REFERENCES session(id), tick INTEGER NOT NULL,"
    " state BLOB NOT NULL, state_hash INTEGER NOT NULL, base INTEGER,"
    " PRIMARY KEY (session, tick)) WITHOUT ROWID;"
    "CREATE TABLE gap ("
    " session INTEGER NOT NULL REFERENCES session(id), from_tick INTEGER NOT NULL,"
    " to_tick INTEGER NOT NULL, reason TEXT NOT NULL,"
    " PRIMARY KEY (session, from_tick)) WITHOUT ROWID;"
    HASHES_TABLE;

#define MIGRATE_3_4 HASHES_TABLE "ALTER TABLE checkpoint ADD COLUMN base INTEGER;"

/* Schema 1 → 4, in place, in one transaction: SQLite cannot change a CHECK, so the session
 * table is rebuilt (sqlite.org/lang_altertable.html, "other kinds of table schema changes"): a
 * new table, every row copied unchanged (node and origin_id NULL), the old one dropped, the new
 * one renamed. The other tables and every row of theirs are untouched; their REFERENCES name
 * 'session' and resolve to the new table. Foreign keys are off (SQLite's default, and we never
 * turn them on). */
static const char *const migrate_1_4_sql =
    "BEGIN IMMEDIATE;"
    SESSION_TABLE("session_v3")
    "INSERT INTO session_v3 (id, kind, kind_id, seed, params, sim_version, hz, start_tick,"
    " end_tick, status, source, world, checkpoint_every, created_at, closed_at)"
    " SELECT id, kind, kind_id, seed, params, sim_version, hz, start_tick,"
    " end_tick, status, source, world, checkpoint_every, created_at, closed_at FROM session;"
    "DROP TABLE session;"
    "ALTER TABLE session_v3 RENAME TO session;"
    MIGRATE_3_4
    "PRAGMA user_version=4;"
    "COMMIT;";

/* Schema 2 → 4: two nullable columns appended, which SQLite does in place without touching a
 * row (every existing row reads NULL in them). */
static const char *const migrate_2_4_sql =
    "BEGIN IMMEDIATE;"
    "ALTER TABLE session ADD COLUMN node TEXT;"
    "ALTER TABLE session ADD COLUMN origin_id INTEGER;"
    MIGRATE_3_4
    "PRAGMA user_version=4;"
    "COMMIT;";

/* Schema 3 → 4: the hashes table and the checkpoint's base column, both additive (every old row
 * reads base NULL: a whole saved state, as it was). Old sessions keep their tick rows; readers
 * read both tables. */
static const char *const migrate_3_4_sql =
    "BEGIN IMMEDIATE;"
    MIGRATE_3_4
    "PRAGMA user_version=4;"
    "COMMIT;";

static const char *const tables[] = { "session", "input", "tick", "checkpoint", "gap", "hashes" };

sqlite3 *rpl_db(rpl_file *f) { return f->db; }
const char *rpl_path(const rpl_file *f) { return f->path; }
int rpl_schema(const rpl_file *f) { return f->schema; }

int rpl_stmt_prepare(rpl_file *f, const char *sql, sqlite3_stmt **st)
{
    for (int i = 0; i < f->nkept; i++)
        if (strcmp(sqlite3_sql(f->kept[i]), sql) == 0) {
            *st = f->kept[i];
            f->kept[i] = f->kept[--f->nkept];
            return SQLITE_OK;
        }
    return sqlite3_prepare_v2(f->db, sql, -1, st, NULL);
}

void rpl_stmt_done(rpl_file *f, sqlite3_stmt *st)
{
    if (!st) return;
    if (f->nkept == RPL_KEPT) {
        sqlite3_finalize(st);
        return;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    f->kept[f->nkept++] = st;
}

/* One integer from a pragma or query: SQLITE_OK, or SQLite's own result code (callers turn it
 * into RPL_EFILE or RPL_EDB with a sentence: it is never returned as it is). */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *out = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

static const char *sqlite_reason(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOTADB: return "it is not an SQLite database";
    case SQLITE_CORRUPT: return "the database is damaged (truncated or corrupted)";
    case SQLITE_CANTOPEN: return "it cannot be opened";
    case SQLITE_PERM:
    case SQLITE_READONLY: return "permission denied";
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return "it is locked by another process";
    case SQLITE_FULL: return "the disk is full";
    case SQLITE_IOERR: return "an I/O error occurred";
    default: return sqlite3_errstr(rc);
    }
}

/* What to do about a damaged file, appended to the sentence that says it is damaged. */
#define DAMAGE_NEXT(path) ". Next: `sqlite3 %s 'PRAGMA integrity_check'` says what is hurt; restore " \
    "the file from a backup (or the recording node's own copy); `sqlite3 %s .recover` may save the " \
    "rows that are left"

/* The first read of a file failed: a damaged file is ours, said as such; anything else is not. */
static void say_unreadable(char *err, size_t errlen, const char *path, int rc)
{
    if ((rc & 0xff) == SQLITE_CORRUPT)
        snprintf(err, errlen, "%s is damaged (truncated or corrupted): SQLite cannot read it (%s)"
                 DAMAGE_NEXT(path), path, sqlite3_errstr(rc), path, path);
    else if ((rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_FULL || (rc & 0xff) == SQLITE_CANTOPEN)
        /* Not the file's fault: a full disk (its WAL and shm cannot be made), a device error. */
        snprintf(err, errlen, "%s cannot be opened: %s (the file itself is not changed; if its disk "
                 "is full, free space there and start again)", path, sqlite_reason(rc));
    else if ((rc & 0xff) == SQLITE_NOTADB)
        snprintf(err, errlen, "%s is not a Vivarium replay file: %s (if it held a recording, its "
                 "first bytes are damaged: restore it from a backup)", path, sqlite_reason(rc));
    else
        snprintf(err, errlen, "%s is not a Vivarium replay file: %s", path, sqlite_reason(rc));
}

/* Identify an opened database as a replay file of a schema we read. */
static int check_identity(rpl_file *f, char *err, size_t errlen)
{
    int64_t app = 0, ver = 0, pages = 0, psize = 0;
    int rc = query_int(f->db, "PRAGMA application_id", &app);
    if (rc != SQLITE_OK) {
        say_unreadable(err, errlen, f->path, rc);
        return RPL_EFILE;
    }
    if ((uint32_t)app != RPL_APP_ID) {
        snprintf(err, errlen, "%s is not a Vivarium replay file (its SQLite application_id is 0x%08x, "
                 "a replay file has 0x%08x)", f->path, (unsigned)app, (unsigned)RPL_APP_ID);
        return RPL_EFILE;
    }
    rc = query_int(f->db, "PRAGMA user_version", &ver);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot read its schema version: %s", f->path, sqlite_reason(rc));
        return RPL_EFILE;
    }
    if (ver > RPL_SCHEMA) {
        snprintf(err, errlen, "%s has replay schema version %lld; this build of Vivarium reads up to "
                 "version %d: use a newer Vivarium", f->path, (long long)ver, RPL_SCHEMA);
        return RPL_EFILE;
    }
    if (ver < 1) {
        snprintf(err, errlen, "%s has replay schema version %lld, which no Vivarium wrote", f->path,
                 (long long)ver);
        return RPL_EFILE;
    }
    f->schema = (int)ver;
    size_t ntables = sizeof tables / sizeof tables[0] - (ver < 4);   /* hashes: schema 4 */
    for (size_t i = 0; i < ntables; i++) {
        char sql[128];
        int64_t n = 0;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name='%s'",
                 tables[i]);
        rc = query_int(f->db, sql, &n);
        if (rc != SQLITE_OK || n != 1) {
            snprintf(err, errlen, "%s is damaged: its '%s' table is missing%s%s" DAMAGE_NEXT(path),
                     f->path, tables[i], rc != SQLITE_OK ? ": " : "",
                     rc != SQLITE_OK ? sqlite_reason(rc) : "", f->path, f->path);
            return RPL_EFILE;
        }
    }
    /* A file cut short: the header promises more pages than the file holds. (Pages still in the
     * WAL are not counted against it.) */
    struct stat stt;
    if (query_int(f->db, "PRAGMA page_count", &pages) == SQLITE_OK &&
        query_int(f->db, "PRAGMA page_size", &psize) == SQLITE_OK && stat(f->path, &stt) == 0) {
        char wal[4200];
        struct stat sw;
        snprintf(wal, sizeof wal, "%s-wal", f->path);
        int has_wal = stat(wal, &sw) == 0 && sw.st_size > 0;
        if (!has_wal && (int64_t)stt.st_size < pages * psize) {
            snprintf(err, errlen, "%s is damaged (truncated): %lld bytes, but its header describes "
                     "%lld" DAMAGE_NEXT(path), f->path, (long long)stt.st_size,
                     (long long)(pages * psize), f->path, f->path);
            return RPL_EFILE;
        }
    }
    return 0;
}

int rpl_open(const char *path, int mode, int durability, rpl_file **out, char *err, size_t errlen)
{
    *out = NULL;
    struct stat stt;
    int exists = stat(path, &stt) == 0;
    if (!exists && mode == RPL_READ) {
        snprintf(err, errlen, "%s: no such file", path);
        return RPL_EFILE;
    }
    if (exists && S_ISDIR(stt.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not a replay file", path);
        return RPL_EFILE;
    }
    /* A file cut inside SQLite's 100-byte header would read as an empty database. */
    if (exists && stt.st_size > 0 && stt.st_size < 100) {
        FILE *fp = fopen(path, "rb");
        char head[16] = "";
        size_t n = fp ? fread(head, 1, sizeof head, fp) : 0;
        if (fp) fclose(fp);
        if (n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0)
            snprintf(err, errlen, "%s is damaged (truncated): %lld bytes, shorter than an SQLite "
                     "header. Next: restore the file from a backup (or the recording node's own copy); "
                     "nothing in it can be read", path, (long long)stt.st_size);
        else
            snprintf(err, errlen, "%s is not a Vivarium replay file: it is not an SQLite database "
                     "(if it held a recording, its first bytes are damaged: restore it from a backup)",
                     path);
        return RPL_EFILE;
    }
    rpl_file *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    snprintf(f->path, sizeof f->path, "%s", path);
    f->mode = mode;
    int code = RPL_EFILE;              /* until the file is known to be a replay file */
    int flags = mode == RPL_READ ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int rc = sqlite3_open_v2(path, &f->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path, sqlite_reason(rc));
        goto fail;
    }
    sqlite3_extended_result_codes(f->db, 1);
    sqlite3_busy_timeout(f->db, 5000);
    if (mode == RPL_WRITE) {
        int64_t app = 0, ntab = 0;
        rc = query_int(f->db, "PRAGMA application_id", &app);
        if (rc == SQLITE_OK) rc = query_int(f->db, "SELECT count(*) FROM sqlite_schema", &ntab);
        if (rc != SQLITE_OK) {
            say_unreadable(err, errlen, path, rc);
            goto fail;
        }
        if (app == 0 && ntab == 0) {               /* new or empty: make it a replay file */
            char sql[128];
            char *msg = NULL;
            rc = sqlite3_exec(f->db, "PRAGMA journal_mode=WAL", NULL, NULL, &msg);
            if (rc == SQLITE_OK) rc = sqlite3_exec(f->db, "BEGIN", NULL, NULL, &msg);
            if (rc == SQLITE_OK) rc = sqlite3_exec(f->db, schema_sql, NULL, NULL, &msg);
            snprintf(sql, sizeof sql, "PRAGMA application_id=%d", (int)RPL_APP_ID);
            if (rc == SQLITE_OK) rc = sqlite3_exec(f->db, sql, NULL, NULL, &msg);
            snprintf(sql, sizeof sql, "PRAGMA user_version=%d", RPL_SCHEMA);
            if (rc == SQLITE_OK) rc = sqlite3_exec(f->db, sql, NULL, NULL, &msg);
            if (rc == SQLITE_OK) rc = sqlite3_exec(f->db, "COMMIT", NULL, NULL, &msg);
            if (rc != SQLITE_OK) {
                snprintf(err, errlen, "%s: cannot create the replay schema: %s", path,
                         msg ? msg : sqlite_reason(rc));
                sqlite3_free(msg);
                code = RPL_EDB;
                goto fail;
            }
        }
    }
    if (check_identity(f, err, errlen) != 0) goto fail;
    if (mode == RPL_WRITE) {
        /* A file of an older schema is migrated when it is opened for writing (never when read:
         * readers take schemas 1 to 3 as they are: their statuses are a subset of schema 3's,
         * a session without the node columns reads as one recorded on no named node, and a file
         * without the hashes table or the base column holds tick rows and whole checkpoints). */
        int64_t ver = RPL_SCHEMA;
        char *msg = NULL;
        rc = query_int(f->db, "PRAGMA user_version", &ver);
        const char *migrate = ver == 1 ? migrate_1_4_sql : ver == 2 ? migrate_2_4_sql
                            : ver == 3 ? migrate_3_4_sql : NULL;
        if (rc == SQLITE_OK && migrate) rc = sqlite3_exec(f->db, migrate, NULL, NULL, &msg);
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "%s: cannot migrate it from replay schema %lld to %d: %s", path,
                     (long long)ver, RPL_SCHEMA, msg ? msg : sqlite_reason(rc));
            sqlite3_free(msg);
            sqlite3_exec(f->db, "ROLLBACK", NULL, NULL, NULL);
            code = RPL_EDB;
            goto fail;
        }
        f->schema = RPL_SCHEMA;
    }
    if (mode == RPL_WRITE) {
        char *msg = NULL;
        rc = sqlite3_exec(f->db, "PRAGMA journal_mode=WAL", NULL, NULL, &msg);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(f->db, durability == RPL_DUR_FULL ? "PRAGMA synchronous=FULL"
                                                                : "PRAGMA synchronous=NORMAL",
                              NULL, NULL, &msg);
        if (rc != SQLITE_OK) {
            snprintf(err, errlen, "%s: cannot set WAL mode: %s", path, msg ? msg : sqlite_reason(rc));
            sqlite3_free(msg);
            code = RPL_EDB;
            goto fail;
        }
    }
    *out = f;
    return 0;
fail:
    if (f->db) sqlite3_close(f->db);
    free(f);
    return code;
}

void rpl_close(rpl_file *f)
{
    if (!f) return;
    for (int i = 0; i < f->nkept; i++) sqlite3_finalize(f->kept[i]);
    sqlite3_close(f->db);
    free(f);
}
