/* retain.c — vivd --retain DURATION (docs/REPLAY.md, "Compaction and retention"): the closed
 * sessions of the --db FILE closed more than DURATION ago are compacted at start-up and then
 * every SRV_RETAIN_EVERY_S, by a thread of its own with its own SQLite connection (rpl_compact).
 *
 * Not the loop, which must tick; not libuv's pool, whose few threads read recordings for viewers
 * and build worlds (jobs.c, play.c) and would wait behind a long compaction; not the recorder's
 * writer thread, whose commits acknowledge inputs. The recorder and the compaction share the file
 * through SQLite's WAL: each compaction transaction is a few thousand ticks long (milliseconds),
 * and the recorder's commits wait at most that (its busy timeout is seconds). */
#include <stdlib.h>
#include <string.h>
#include <uv.h>
#include "host.h"
#include "replay.h"

_Static_assert(SRV_RETAIN_EVERY_S == 3600, "the log and the docs say every hour");

typedef struct srv_retain {
    const srv *s;                      /* for srv_log alone: its level and nothing else */
    const char *path;
    uint64_t older_than;
    char shown[32];                    /* the duration as given: "30d" */
    uv_thread_t th;
    uv_mutex_t mu;
    uv_cond_t cv;
    int stop;                          /* under mu */
} srv_retain;

static int should_stop(void *ud)
{
    srv_retain *r = ud;
    uv_mutex_lock(&r->mu);
    int stop = r->stop;
    uv_mutex_unlock(&r->mu);
    return stop;
}

static void log_session(void *ud, const rpl_compacted *c)
{
    srv_retain *r = ud;
    char what[512];
    rpl_compacted_describe(c, what, sizeof what);
    srv_log(r->s, SRV_LOG_INFO, "retention: session %lld of %s (%s, closed %s, ticks %llu..%llu) "
            "compacted: %s", (long long)c->id, r->path, c->kind, c->closed_at,
            (unsigned long long)c->start_tick, (unsigned long long)c->end_tick, what);
}

/* One compaction of the file, logged. */
static void retain_run(srv_retain *r)
{
    rpl_compact_opts o = { .path = r->path, .older_than = r->older_than, .each = log_session,
                           .stop = should_stop, .ud = r };
    rpl_compact_result res;
    char err[1024];
    int rc = rpl_compact(&o, &res, err, sizeof err);
    if (rc)
        srv_log(r->s, SRV_LOG_WARN, "retention: compacting %s failed after %zu session(s): %s (tried "
                "again in an hour)", r->path, res.sessions, err);
    else if (res.stopped)
        srv_log(r->s, SRV_LOG_INFO, "retention: stopped after %zu session(s) of %s (the next start "
                "finishes the rest)", res.sessions, r->path);
    else if (res.sessions)
        srv_log(r->s, SRV_LOG_INFO, "retention: %zu session(s) of %s closed more than %s ago compacted: "
                "their hashes and checkpoints held %llu bytes, now %llu; %lld bytes of free pages in "
                "the file, which new rows reuse", res.sessions, r->path, r->shown,
                (unsigned long long)res.bytes_before, (unsigned long long)res.bytes_after,
                (long long)res.free_after);
    else
        srv_log(r->s, SRV_LOG_DEBUG, "retention: nothing in %s to compact (%zu closed session(s) "
                "closed less than %s ago, %zu compacted before)", r->path, res.newer, r->shown,
                res.compacted_before);
}

static void retain_main(void *arg)
{
    srv_retain *r = arg;
    for (;;) {
        retain_run(r);
        uv_mutex_lock(&r->mu);
        uint64_t until = uv_hrtime() + (uint64_t)SRV_RETAIN_EVERY_S * 1000000000ull;
        while (!r->stop) {
            uint64_t now = uv_hrtime();
            if (now >= until || uv_cond_timedwait(&r->cv, &r->mu, until - now) == UV_ETIMEDOUT) break;
        }
        int stop = r->stop;
        uv_mutex_unlock(&r->mu);
        if (stop) return;
    }
}

int srv_retain_start(srv *s, uint64_t older_than, const char *shown, char *err, size_t errlen)
{
    srv_retain *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return SRV_ELOG;
    }
    r->s = s;
    r->path = s->db_path;
    r->older_than = older_than;
    snprintf(r->shown, sizeof r->shown, "%s", shown);
    if (uv_mutex_init(&r->mu) != 0 || uv_cond_init(&r->cv) != 0) {
        snprintf(err, errlen, "cannot set up the retention thread's lock");
        free(r);
        return SRV_ELOG;
    }
    int rc = uv_thread_create(&r->th, retain_main, r);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the retention thread: %s", uv_strerror(rc));
        uv_cond_destroy(&r->cv);
        uv_mutex_destroy(&r->mu);
        free(r);
        return SRV_ELOG;
    }
    s->retain = r;
    srv_log(s, SRV_LOG_INFO, "retention: the closed sessions of %s closed more than %s ago are "
            "compacted now and every hour (--retain %s)", s->db_path, shown, shown);
    return 0;
}

void srv_retain_stop(srv *s)
{
    srv_retain *r = s->retain;
    if (!r) return;
    uv_mutex_lock(&r->mu);
    r->stop = 1;
    uv_cond_signal(&r->cv);
    uv_mutex_unlock(&r->mu);
    uv_thread_join(&r->th);
    uv_cond_destroy(&r->cv);
    uv_mutex_destroy(&r->mu);
    free(r);
    s->retain = NULL;
}
