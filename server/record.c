/* record.c — vivd's side of the replay log. The loop hands each tick to the recorder's writer
 * thread (replay/recorder.c) and never waits on the disk; the writer wakes the loop through a
 * uv_async when ticks are committed, and only then are the inputs of those ticks acknowledged.
 * If the log cannot be written, vivd says so loudly, refuses inputs (nothing unlogged is applied
 * from then on), keeps ticking and serving viewers, offers a checkpoint once a second so the log
 * can resume, and the gap is recorded. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "read.h"
#include "replay.h"
#include "srv.h"

/* Another vivd on the same file would interleave sessions: hold an exclusive lock beside it. */
static int take_lock(srv *s, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.lock", s->db_path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create the lock file %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = read(fd, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(err, errlen, "%s is in use by another vivd%s%s%s; stop it or use another --db",
                 s->db_path, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        close(fd);
        return -1;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, buf, (size_t)n) != n) { /* the pid is a courtesy */ }
    s->lock_fd = fd;
    return 0;
}

static void on_wake(void *ud)
{
    srv *s = ud;
    uv_async_send(&s->rec_async);          /* thread-safe: the only libuv call from the writer */
}

static srv_world *world_by_session(srv *s, int64_t session)
{
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i]->session == session) return s->worlds[i];
    return NULL;
}

/* Acknowledge (ok) or refuse (not logged) the stepped inputs of ticks before `upto`. */
void srv_world_settle(srv *s, srv_world *w, uint64_t upto, int ok)
{
    (void)s;
    while (w->ackhead < w->nacks && w->acks[w->ackhead].stepped &&
           w->acks[w->ackhead].in.tick < upto) {
        srv_ack *a = &w->acks[w->ackhead++];
        if (!a->client) continue;
        if (ok) {
            srv_send_ack(a->client, a->seq, a->in.tick);
        } else {
            int64_t seq = a->seq;
            srv_client_notice(a->client, "not_logged",
                              "the replay log could not be written for this input's tick; it was "
                              "applied but is not in the log (the session has a gap there)", &seq);
        }
    }
    if (w->ackhead == w->nacks) w->ackhead = w->nacks = 0;
}

static void check_failing(srv *s)
{
    char why[256] = "";
    int f = rpl_recorder_failing(s->rec, why, sizeof why);
    if (f && !s->rec_failing)
        srv_log(s, SRV_LOG_ERROR, "RECORDING FAILED: %s. Inputs are refused until the log can be "
                "written again; worlds keep running and viewers keep watching.", why);
    else if (!f && s->rec_failing)
        srv_log(s, SRV_LOG_WARN, "recording resumed in %s; the ticks it missed are recorded as a gap",
                s->db_path);
    s->rec_failing = f;
}

static void on_async(uv_async_t *a)
{
    srv *s = a->data;
    rpl_commit c[256];
    size_t n;
    while ((n = rpl_recorder_poll(s->rec, c, sizeof c / sizeof c[0])) > 0) {
        for (size_t i = 0; i < n; i++) {
            srv_world *w = world_by_session(s, c[i].session);
            if (w) srv_world_settle(s, w, c[i].tick, c[i].ok);
        }
    }
    check_failing(s);
}

int srv_record_open(srv *s, char *err, size_t errlen)
{
    s->lock_fd = -1;
    if (take_lock(s, err, errlen) != 0) return -1;
    rpl_rec_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.path = s->db_path;
    cfg.durability = s->durability;
    cfg.wake = on_wake;
    cfg.ud = s;
    s->rec = rpl_recorder_open(&cfg, err, errlen);
    if (!s->rec) {
        close(s->lock_fd);
        s->lock_fd = -1;
        return -1;
    }
    uv_async_init(s->loop, &s->rec_async, on_async);
    s->rec_async.data = s;
    return 0;
}

int srv_record_failing(srv *s)
{
    return s->rec && rpl_recorder_failing(s->rec, NULL, 0);
}

void srv_record_begin(srv *s, srv_world *w)
{
    w->session = -1;
    if (!s->rec) return;
    char err[256];
    w->cp_every = (uint64_t)w->kind->hz * 10;      /* a checkpoint every 10 s of world time */
    w->cpcap = sim_world_save_max(w->w);
    w->cpbuf = malloc(w->cpcap);
    if (!w->cpbuf) {
        srv_log(s, SRV_LOG_ERROR, "world %u: out of memory for checkpoints; not recorded", w->id);
        return;
    }
    w->session = rpl_recorder_begin(s->rec, w->w, "vivd", w->id, w->cp_every, err, sizeof err);
    if (w->session < 0) {
        srv_log(s, SRV_LOG_ERROR, "world %u: cannot record: %s", w->id, err);
        return;
    }
    srv_log(s, SRV_LOG_INFO, "world %u is recorded as session %" PRId64 " in %s", w->id, w->session,
            s->db_path);
}

/* After stepping `tick`: hand the inputs applied at it, both hashes and perhaps a checkpoint to
 * the writer. Acks wait for its commit. */
void srv_record_tick(srv *s, srv_world *w, uint64_t tick)
{
    /* The inputs applied at this tick are the not-yet-stepped tail of the ack FIFO. */
    size_t first = w->nacks;
    while (first > w->ackhead && !w->acks[first - 1].stepped) first--;
    for (size_t i = first; i < w->nacks; i++) w->acks[i].stepped = 1;
    if (w->session < 0) {
        srv_world_settle(s, w, tick + 1, 1);
        return;
    }
    sim_input inputs[1024];
    size_t nin = 0;
    for (size_t i = first; i < w->nacks && nin < sizeof inputs / sizeof inputs[0]; i++)
        inputs[nin++] = w->acks[i].in;
    /* Application order within a tick is (client, seq), which is the log's key order too. */
    uint64_t sh = sim_world_hash(w->w);
    w->sh = sh;
    w->sh_tick = tick + 1;
    if (w->frame_tick[0] != tick + 1) {
        sim_world_render(w->w, 0, &w->frames[0]);
        w->frame_fh[0] = sim_frame_hash(&w->frames[0]);
        w->frame_tick[0] = tick + 1;
    }
    uint64_t fh = w->frame_fh[0];
    int failing = rpl_recorder_failing(s->rec, NULL, 0);
    /* A checkpoint on schedule, and once a second while failing: the log resumes at one. */
    int want_cp = (tick + 1) % w->cp_every == 0 || (failing && (tick + 1) % w->kind->hz == 0);
    size_t cplen = want_cp ? sim_world_save(w->w, w->cpbuf, w->cpcap) : 0;
    if (rpl_recorder_tick(s->rec, w->session, tick, inputs, nin, sh, fh, cplen ? w->cpbuf : NULL,
                          cplen) != 0) {
        w->not_logged++;
        srv_world_settle(s, w, tick + 1, 0);
        check_failing(s);
    }
}

void srv_record_end(srv *s, srv_world *w)
{
    if (!s->rec || w->session < 0) return;
    rpl_recorder_end(s->rec, w->session);
}

void srv_record_close(srv *s)
{
    if (!s->rec) return;
    int rc = rpl_recorder_flush(s->rec);
    rpl_commit c[256];
    size_t n;
    while ((n = rpl_recorder_poll(s->rec, c, sizeof c / sizeof c[0])) > 0)
        for (size_t i = 0; i < n; i++) {
            srv_world *w = world_by_session(s, c[i].session);
            if (w) srv_world_settle(s, w, c[i].tick, c[i].ok);
        }
    if (rpl_recorder_close(s->rec) != 0 || rc != 0)
        srv_log(s, SRV_LOG_WARN, "some ticks could not be written to %s (see its gap table)", s->db_path);
    else
        srv_log(s, SRV_LOG_INFO, "replay log %s closed cleanly", s->db_path);
    s->rec = NULL;
    if (s->lock_fd >= 0) {
        close(s->lock_fd);
        s->lock_fd = -1;
    }
}

/* ---- resume after a crash ------------------------------------------------------------------------ */
/* Rebuild one interrupted session: its last checkpoint, then every logged input up to the last
 * committed tick, checking each tick's recorded state and frame hash on the way. */
static sim_world *rebuild(rpl_file *f, const rpl_session *ss, char *err, size_t errlen)
{
    char warn[320];
    if (!rpl_session_kind(f, ss, warn, sizeof warn, err, errlen)) return NULL;
    rpl_checkpoint cp;
    int rc = rpl_checkpoint_find(f, ss, ss->end_tick, RPL_AT_OR_BEFORE, &cp, err, errlen);
    if (rc != 0) {
        if (rc == 1) snprintf(err, errlen, "it has no checkpoint at or before tick %" PRIu64, ss->end_tick);
        return NULL;
    }
    sim_world *w = NULL;
    rpl_inputs *it = NULL;
    rpl_tick_row *rows = NULL;
    size_t nrows = 0, r = 0;
    sim_frame fr;
    memset(&fr, 0, sizeof fr);
    if (rpl_world_load(ss, &cp, &w, err, errlen) != 0) goto fail;
    if (rpl_ticks_load(f, ss->id, cp.tick + 1, ss->end_tick, &rows, &nrows, err, errlen) != 0) goto fail;
    if (rpl_inputs_open(f, ss->id, cp.tick, ss->end_tick, w, &it, err, errlen) != 0) goto fail;
    if (sim_world_frame_init(w, &fr) != 0) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    while (sim_world_tick(w) < ss->end_tick) {
        if (rpl_inputs_feed(it, w) < 0) {
            snprintf(err, errlen, "%s", rpl_inputs_error(it));
            goto fail;
        }
        sim_world_step(w);
        uint64_t t = sim_world_tick(w);
        while (r < nrows && rows[r].tick < t) r++;
        if (r < nrows && rows[r].tick == t) {
            sim_world_render(w, 0, &fr);
            if (rows[r].state_hash != sim_world_hash(w) || rows[r].frame_hash != sim_frame_hash(&fr)) {
                snprintf(err, errlen, "replaying it diverged from the recording at tick %" PRIu64
                         " (run `viv replay verify` for a report)", t);
                goto fail;
            }
        }
    }
    sim_frame_free(&fr);
    rpl_inputs_close(it);
    free(rows);
    rpl_checkpoint_free(&cp);
    return w;
fail:
    sim_frame_free(&fr);
    if (it) rpl_inputs_close(it);
    free(rows);
    rpl_checkpoint_free(&cp);
    sim_world_destroy(w);
    return NULL;
}

int srv_record_resume_all(srv *s)
{
    if (!s->rec) return 0;
    rpl_file *f;
    char err[512];
    if (rpl_open(s->db_path, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) != 0) {
        srv_log(s, SRV_LOG_ERROR, "cannot read %s to resume sessions: %s", s->db_path, err);
        return 0;
    }
    rpl_session_info *list = NULL;
    size_t n = 0;
    int resumed = 0;
    if (rpl_sessions_list(f, &list, &n, err, sizeof err) != 0) {
        srv_log(s, SRV_LOG_ERROR, "cannot list the sessions of %s: %s", s->db_path, err);
        rpl_close(f);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const rpl_session *ss = &list[i].s;
        if (!ss->running) continue;
        uint64_t t0 = uv_hrtime();
        sim_world *sw = rebuild(f, ss, err, sizeof err);
        if (!sw) {
            srv_log(s, SRV_LOG_ERROR, "session %" PRId64 " (%s) was left running but cannot be "
                    "resumed: %s; it is closed as it stands", ss->id, ss->kind, err);
            rpl_recorder_end(s->rec, ss->id);
            continue;
        }
        srv_world *w = srv_world_adopt(s, sw, err, sizeof err);
        if (!w) {
            srv_log(s, SRV_LOG_ERROR, "session %" PRId64 ": %s", ss->id, err);
            continue;
        }
        w->session = ss->id;
        w->cp_every = ss->checkpoint_every ? ss->checkpoint_every : (uint64_t)w->kind->hz * 10;
        w->cpcap = sim_world_save_max(w->w);
        w->cpbuf = malloc(w->cpcap);
        if (!w->cpbuf || rpl_recorder_resume(s->rec, ss->id, w->w) != 0) {
            srv_log(s, SRV_LOG_ERROR, "world %u: cannot resume recording session %" PRId64, w->id, ss->id);
            w->session = -1;
        }
        srv_log(s, SRV_LOG_INFO, "resumed session %" PRId64 " (%s seed=%" PRIu64 " %s) at tick %" PRIu64
                " as world %u: rebuilt from its last checkpoint and checked in %.1f ms",
                ss->id, ss->kind, ss->seed, ss->params, ss->end_tick, w->id,
                (double)(uv_hrtime() - t0) / 1e6);
        resumed++;
    }
    free(list);
    rpl_close(f);
    return resumed;
}
