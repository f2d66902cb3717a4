/* fork.c — the `fork` message (docs/PROTOCOL.md): a new live world on this vivd whose initial
 * state is another world's recorded state at a tick — a recording's (--play), or a live world's
 * recorded past (its session in --db). The replay to that tick reads the file and steps the world
 * on a worker of libuv's pool (jobs.c), never on the loop; the loop then hosts the world and
 * begins its session as a fork (its lineage in the file's fork table, docs/REPLAY.md). */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "read.h"
#include "host.h"
#include "replay.h"

typedef struct fork_job {
    /* asked for, on the loop */
    char path[4096];               /* the file holding the session */
    int64_t session;
    uint64_t tick;
    uint32_t from, client;
    rpl_lineage lin;               /* parent_file filled on the loop; the rest by the worker */
    /* the worker's result */
    srv_world *w;                  /* the world built, not hosted yet; NULL: failed */
    const char *code;              /* the error code for the client when w is NULL */
    char err[512];
} fork_job;

/* On a worker: only the job's own fields. The file is opened here on its own connection (the
 * recorder's and a recording's are the loop's and their seeks'), read and closed. */
static void fork_work(void *arg)
{
    fork_job *j = arg;
    rpl_file *f = NULL;
    rpl_session sess;
    sim_world *sw = NULL;
    uint64_t sh = 0, fh = 0, cp = 0;
    j->code = "replay_failed";
    if (rpl_open(j->path, RPL_READ, RPL_DUR_NORMAL, &f, j->err, sizeof j->err) != 0) return;
    if (rpl_session_get(f, j->session, &sess, j->err, sizeof j->err) != 0) goto done;
    int rc = rpl_state_at(f, &sess, j->tick, &sw, &sh, &fh, &cp, NULL, NULL, j->err, sizeof j->err);
    if (rc == RPL_EUSAGE) {
        /* Outside the recorded range or in a gap: say it in the world's terms. */
        char why[480];
        snprintf(why, sizeof why, "%.470s", j->err);
        snprintf(j->err, sizeof j->err, "world %u: %.480s", j->from, why);
        j->code = "bad_field";
    }
    if (rc != 0) goto done;
    j->lin.parent = sess.id;
    j->lin.tick = j->tick;
    j->lin.parent_hash = sh;
    j->lin.frame_hash = fh;
    j->w = srv_world_build(sw, j->err, sizeof j->err);   /* takes sw */
    sw = NULL;
done:
    sim_world_destroy(sw);
    rpl_close(f);
}

/* On the loop: host the world from now (it joins the schedule and the recording, as a fork), or
 * say why not. A server that is stopping discards it: it was never hosted, nothing is recorded. */
static void fork_done(srv *s, void *arg, int cancelled)
{
    fork_job *j = arg;
    s->ncreating--;
    if (cancelled || s->stopping) {
        srv_world_free(j->w);
        free(j);
        return;
    }
    srv_world *w = j->w;
    if (!w) {
        if (s->ev.world_forked) s->ev.world_forked(s->ev.ud, j->client, NULL, j->from, j->tick, j->code, j->err);
        free(j);
        return;
    }
    w->rec.fork = malloc(sizeof *w->rec.fork);
    if (w->rec.fork) *w->rec.fork = j->lin;
    srv_world_join(s, w);
    srv_world_begin(s, w);
    srv_log(s, SRV_LOG_INFO, "world %u is forked from world %u at tick %" PRIu64 " (session %" PRId64
            " of %s)", w->id, j->from, j->tick, j->lin.parent, j->path);
    srv_tick_kick(s);
    if (s->ev.world_forked) s->ev.world_forked(s->ev.ud, j->client, w, j->from, j->tick, NULL, NULL);
    free(j);
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int srv_world_fork_async(srv *s, srv_world *from, uint64_t tick, uint32_t client,
                         const char **code, char *err, size_t errlen)
{
    *code = "bad_field";
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        *code = "world_limit";
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SRV_ELIMIT;
    }
    fork_job *j = calloc(1, sizeof *j);
    if (!j) {
        *code = "internal";
        snprintf(err, errlen, "out of memory");
        return SRV_ENOMEM;
    }
    j->tick = tick;
    j->from = from->id;
    j->client = client;
    rpl_session ps;
    if (from->play) {
        /* A recording: the session it plays, from its own file. */
        if (srv_play_session(from, &ps, j->path, sizeof j->path) != 0) goto oom;
        if (tick < ps.start_tick || tick > ps.end_tick) {
            snprintf(err, errlen, "tick %" PRIu64 " is outside the recording world %u plays (%" PRIu64
                     "..%" PRIu64 ")", tick, from->id, ps.start_tick, ps.end_tick);
            free(j);
            return SRV_EPLAY;
        }
        j->session = ps.id;
    } else {
        /* A live world: its recorded past, in the file this vivd records into. */
        if (!s->db_path || from->rec.session < 0) {
            *code = "not_a_recording";
            snprintf(err, errlen, "world %u's past is not recorded (%s), so it cannot be forked", from->id,
                     s->db_path ? "its session could not be begun" : "vivd runs with --no-record");
            free(j);
            return SRV_ENOTREC;
        }
        uint64_t now = srv_world_tick(from);
        if (tick > now) {
            snprintf(err, errlen, "tick %" PRIu64 " is ahead of world %u (at tick %" PRIu64 "): fork "
                     "its past", tick, from->id, now);
            free(j);
            return SRV_EPLAY;
        }
        if (snprintf(j->path, sizeof j->path, "%s", s->db_path) >= (int)sizeof j->path) goto oom;
        j->session = from->rec.session;
    }
    /* The parent is named by its file only when the fork is recorded into another one. */
    if (s->db_path && !same_file(j->path, s->db_path)) {
        char abs[PATH_MAX];
        const char *p = realpath(j->path, abs) ? abs : j->path;
        if (strlen(p) >= sizeof j->lin.parent_file) goto oom;
        memcpy(j->lin.parent_file, p, strlen(p) + 1);
    }
    if (srv_job_queue(s, fork_work, fork_done, j) != 0) goto oom;
    s->ncreating++;
    return 0;
oom:
    free(j);
    *code = "internal";
    snprintf(err, errlen, "out of memory starting the fork");
    return SRV_ENOMEM;
}
