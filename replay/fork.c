/* fork.c — a session that starts from another's state at a tick (docs/REPLAY.md, "Forks"): the
 * state at a tick replayed with the real sim (rpl_state_at), the lineage read back
 * (rpl_lineage_get), and `viv replay fork` (rpl_fork), which writes the new session through the
 * recorder, as vivd writes every session, and leaves it suspended for the next vivd to resume. */
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "read.h"
#include "replay.h"

int rpl_lineage_get(rpl_file *f, int64_t session, rpl_lineage *out, char *err, size_t errlen)
{
    sqlite3 *db = rpl_db(f);
    sqlite3_stmt *st = NULL;
    memset(out, 0, sizeof *out);
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                                "name = 'fork'", -1, &st, NULL);
    int has = rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", rpl_path(f), sqlite3_errmsg(db));
        return RPL_EDB;
    }
    if (!has) return 0;
    rc = sqlite3_prepare_v2(db, "SELECT parent, tick, parent_state_hash, parent_file FROM fork "
                            "WHERE session = ?", -1, &st, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s is damaged: its fork table cannot be read (%s)", rpl_path(f),
                 sqlite3_errmsg(db));
        return RPL_ECORRUPT;
    }
    sqlite3_bind_int64(st, 1, session);
    rc = sqlite3_step(st);
    int result = 0;
    if (rc == SQLITE_ROW) {
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_int64(st, 0) <= 0 ||
            sqlite3_column_int64(st, 1) < 0) {
            snprintf(err, errlen, "session %lld of %s has a damaged fork row (its parent, tick or "
                     "hash is not a number)", (long long)session, rpl_path(f));
            result = RPL_ECORRUPT;
        } else {
            out->parent = sqlite3_column_int64(st, 0);
            out->tick = (uint64_t)sqlite3_column_int64(st, 1);
            out->parent_hash = (uint64_t)sqlite3_column_int64(st, 2);
            const unsigned char *pf = sqlite3_column_text(st, 3);
            if (pf) snprintf(out->parent_file, sizeof out->parent_file, "%s", (const char *)pf);
            result = 1;
        }
    } else if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s: reading the fork of session %lld: %s", rpl_path(f),
                 (long long)session, sqlite3_errmsg(db));
        result = (rc & 0xff) == SQLITE_CORRUPT ? RPL_ECORRUPT : RPL_EDB;
    }
    sqlite3_finalize(st);
    return result;
}

int rpl_state_at(rpl_file *f, const rpl_session *s, uint64_t tick, sim_world **out,
                 uint64_t *recorded_sh, uint64_t *recorded_fh, uint64_t *from_cp,
                 void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud, char *err,
                 size_t errlen)
{
    *out = NULL;
    rpl_gap *gaps = NULL;
    size_t ngaps = 0;
    rpl_tick_row *rows = NULL;
    size_t nrows = 0;
    rpl_checkpoint cp;
    memset(&cp, 0, sizeof cp);
    sim_world *w = NULL;
    rpl_inputs *it = NULL;
    sim_frame fr = { 0 };
    char warn[320];
    int rc;
    if (tick < s->start_tick || tick > s->end_tick) {
        snprintf(err, errlen, "tick %llu is outside session %lld (ticks %llu..%llu)",
                 (unsigned long long)tick, (long long)s->id, (unsigned long long)s->start_tick,
                 (unsigned long long)s->end_tick);
        return RPL_EUSAGE;
    }
    if (!rpl_session_kind(f, s, warn, sizeof warn, err, errlen)) return rpl_kind_error(s);
    if ((rc = rpl_gaps_list(f, s->id, &gaps, &ngaps, err, errlen)) != 0) return rc;
    for (size_t i = 0; i < ngaps; i++) {
        /* The state at a gap's from tick was reached by the ticks before it, and one is
         * checkpointed at its to tick; in between nothing was recorded. */
        if (tick > gaps[i].from && tick < gaps[i].to) {
            snprintf(err, errlen, "tick %llu of session %lld is in a gap: ticks [%llu, %llu) were not "
                     "recorded (%s), so its state is unknown; fork at tick %llu or at %llu or later",
                     (unsigned long long)tick, (long long)s->id, (unsigned long long)gaps[i].from,
                     (unsigned long long)gaps[i].to, gaps[i].reason, (unsigned long long)gaps[i].from,
                     (unsigned long long)gaps[i].to);
            free(gaps);
            return RPL_EUSAGE;
        }
    }
    free(gaps);
    rc = rpl_checkpoint_find(f, s, tick, RPL_AT_OR_BEFORE, &cp, err, errlen);
    if (rc > 0) {
        snprintf(err, errlen, "session %lld of %s is damaged: it has no checkpoint at or before tick "
                 "%llu (every session has one at its start)", (long long)s->id, rpl_path(f),
                 (unsigned long long)tick);
        return RPL_ECORRUPT;
    }
    if (rc < 0) return rc;
    *from_cp = cp.tick;
    if ((rc = rpl_world_load(s, &cp, &w, err, errlen)) != 0) goto fail;
    if ((rc = rpl_ticks_load(f, s->id, cp.tick, tick, &rows, &nrows, err, errlen)) != 0) goto fail;
    if ((rc = rpl_inputs_open(f, s->id, cp.tick, tick, w, &it, err, errlen)) != 0) goto fail;
    size_t r = 0;
    uint64_t total = tick - cp.tick;
    while (sim_world_tick(w) < tick) {
        int fed = rpl_inputs_feed(it, w);
        if (fed < 0) {
            snprintf(err, errlen, "%s", rpl_inputs_error(it));
            rc = fed;
            goto fail;
        }
        sim_world_step(w);
        uint64_t t = sim_world_tick(w);
        while (r < nrows && rows[r].tick < t) r++;
        if (r == nrows || rows[r].tick != t) {
            snprintf(err, errlen, "session %lld of %s is damaged: the recorded hashes of tick %llu are "
                     "missing (`viv replay verify %s --session %lld` says more)", (long long)s->id,
                     rpl_path(f), (unsigned long long)t, rpl_path(f), (long long)s->id);
            rc = RPL_ECORRUPT;
            goto fail;
        }
        if (rpl_hash_differs(rows[r].state_hash, sim_world_hash(w), rows[r].bits)) {
            snprintf(err, errlen, "session %lld of %s does not replay bit-exactly up to tick %llu: at "
                     "tick %llu the recorded state hash is %016llx, the replay's %016llx%s%s, so its "
                     "state at tick %llu is unknown (`viv replay verify %s --session %lld` tells more)",
                     (long long)s->id, rpl_path(f), (unsigned long long)tick, (unsigned long long)t,
                     (unsigned long long)rows[r].state_hash, (unsigned long long)sim_world_hash(w),
                     warn[0] ? "; " : "", warn, (unsigned long long)tick, rpl_path(f), (long long)s->id);
            rc = 1;
            goto fail;
        }
        if (progress && ((t - cp.tick) % 256 == 0)) progress(ud, t - cp.tick, total);
    }
    if (progress) progress(ud, total, total);
    /* At the tick itself: the recorded row when there is one (not at a session's start), else
     * the checkpoint it started from; the frame drawn from the state must be the one recorded. */
    uint64_t sh = sim_world_hash(w);
    if ((rc = sim_world_frame_init(w, &fr)) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = RPL_ENOMEM;
        goto fail;
    }
    sim_world_render(w, 0, &fr);
    uint64_t fh = sim_frame_hash(&fr);
    sim_frame_free(&fr);
    while (r < nrows && rows[r].tick < tick) r++;
    if (r < nrows && rows[r].tick == tick) {
        if (rpl_hash_differs(rows[r].state_hash, sh, rows[r].bits) ||
            rpl_hash_differs(rows[r].frame_hash, fh, rows[r].bits)) {
            snprintf(err, errlen, "session %lld of %s does not replay bit-exactly at tick %llu: "
                     "recorded state %016llx frame %016llx, replayed state %016llx frame %016llx "
                     "(`viv replay verify %s --session %lld` tells more)", (long long)s->id,
                     rpl_path(f), (unsigned long long)tick, (unsigned long long)rows[r].state_hash,
                     (unsigned long long)rows[r].frame_hash, (unsigned long long)sh,
                     (unsigned long long)fh, rpl_path(f), (long long)s->id);
            rc = 1;
            goto fail;
        }
    }
    *recorded_sh = sh;
    *recorded_fh = fh;
    rpl_inputs_close(it);
    free(rows);
    rpl_checkpoint_free(&cp);
    *out = w;
    return 0;
fail:
    rpl_inputs_close(it);
    free(rows);
    rpl_checkpoint_free(&cp);
    sim_world_destroy(w);
    return rc;
}

/* A vivd recording into path (rpl_recorded_by): a second writer would interleave session ids
 * with it. 0 free, or RPL_EFILE with a sentence. */
static int refuse_if_recording(const char *path, char *err, size_t errlen)
{
    char pid[32];
    if (!rpl_recorded_by(path, pid, sizeof pid)) return 0;
    snprintf(err, errlen, "%s is being recorded by a running vivd%s%s%s: write the fork into another "
             "file (-o OUT), or ask that vivd with the fork message (docs/PROTOCOL.md)", path,
             pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
    return RPL_EFILE;
}

/* Whether a and b name the same file (b may not exist yet). */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int rpl_fork(const rpl_fork_opts *o, rpl_fork_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    rpl_file *f = NULL;
    sim_world *w = NULL;
    rpl_session s;
    const char *out = o->out ? o->out : o->path;
    int rc = rpl_open(o->path, RPL_READ, RPL_DUR_NORMAL, &f, err, errlen);
    if (rc) return rc;
    if ((rc = rpl_session_get(f, o->session, &s, err, errlen)) != 0) goto done;
    if (!rpl_session_kind(f, &s, res->warning, sizeof res->warning, err, errlen)) {
        rc = rpl_kind_error(&s);
        goto done;
    }
    uint64_t sh = 0, fh = 0;
    rc = rpl_state_at(f, &s, o->tick, &w, &sh, &fh, &res->from_cp, o->progress, o->ud, err, errlen);
    if (rc) goto done;
    rpl_close(f);                      /* read in full: the write may be to the same file */
    f = NULL;
    res->state_hash = sh;
    res->frame_hash = fh;
    res->same_file = out == o->path || same_file(o->path, out);
    rpl_lineage lin;
    memset(&lin, 0, sizeof lin);
    lin.parent = s.id;
    lin.tick = o->tick;
    lin.parent_hash = sh;
    lin.frame_hash = fh;
    if (!res->same_file) {
        char abs[PATH_MAX];
        const char *p = realpath(o->path, abs) ? abs : o->path;
        if (strlen(p) >= sizeof lin.parent_file) {
            snprintf(err, errlen, "the path of %s is too long to record as the fork's parent file", o->path);
            rc = RPL_EUSAGE;
            goto done;
        }
        snprintf(lin.parent_file, sizeof lin.parent_file, "%s", p);
    }
    if ((rc = refuse_if_recording(out, err, errlen)) != 0) goto done;
    rpl_rec_config cfg = { .path = out, .durability = o->durability };
    rpl_recorder *r = rpl_recorder_open(&cfg, err, errlen);
    if (!r) {
        rc = RPL_EFILE;
        goto done;
    }
    res->id = rpl_recorder_begin_fork(r, w, "viv replay fork", -1, s.checkpoint_every, &lin, err,
                                      errlen);
    if (res->id < 0) {
        rc = (int)res->id;
        rpl_recorder_close(r);
        goto done;
    }
    /* Suspended at the tick, as vivd leaves a session it stops: the next vivd resumes it. */
    rc = rpl_recorder_suspend(r, res->id, w);
    char why[256] = "";
    rpl_recorder_failing(r, why, sizeof why);
    int wrc = rpl_recorder_close(r);
    if (rc == 0 && wrc != 0) {
        snprintf(err, errlen, "%s: the fork could not be written%s%s", out, why[0] ? ": " : "", why);
        rc = wrc;
    } else if (rc != 0) {
        snprintf(err, errlen, "out of memory saving the state at tick %llu", (unsigned long long)o->tick);
    }
done:
    sim_world_destroy(w);
    rpl_close(f);
    return rc;
}
