/* record.c — vivd's side of the replay log. The loop hands each tick to the recorder's writer
 * thread (replay/recorder.c) and never waits on the disk; the writer wakes the loop through a
 * uv_async when ticks are committed, and only then are the inputs of those ticks acknowledged.
 * If the log cannot be written, vivd says so loudly, refuses inputs (nothing unlogged is applied
 * from then on), keeps ticking and serving viewers, offers a checkpoint once a second so the log
 * can resume, and the gap is recorded. While it lasts, one line a minute says what it has cost so
 * far and what to do: not one a tick (the journal may be on that same full disk), not only once
 * (an operator who missed the first line sees the next). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "read.h"
#include "host.h"
#include "pool.h"
#include "replay.h"

static void lock_path(const srv *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s.lock", s->db_path);
}

/* Another vivd on the same file would interleave sessions: hold an exclusive lock beside it.
 * flock dies with its process, so a lock file left by a dead vivd (kill -9, a power cut) is
 * free: it is taken over, with a note naming the pid it held. A clean exit removes the file
 * (srv_record_close), while still holding the lock; a vivd that opened it just before then has
 * locked a name that no longer exists, so after locking, the file must still be the one at the
 * path, or it starts over. */
static int take_lock(srv *s, char *err, size_t errlen)
{
    char path[4200];
    lock_path(s, path, sizeof path);
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            snprintf(err, errlen, "cannot create the lock file %s: %s", path, strerror(errno));
            return SRV_ELOG;
        }
        char pid[32] = "";
        int locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
        ssize_t n = read(fd, pid, sizeof pid - 1);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        if (!locked) {
            snprintf(err, errlen, "%s is in use by another vivd%s%s%s; stop it or use another --db",
                     s->db_path, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
            close(fd);
            return SRV_ELOG;
        }
        struct stat a, b;
        if (fstat(fd, &a) != 0 || stat(path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
            close(fd);                 /* removed (or replaced) by the vivd that just exited */
            continue;
        }
        if (pid[0]) {
            long old = strtol(pid, NULL, 10);
            int dead = old > 0 && kill((pid_t)old, 0) != 0 && errno == ESRCH;
            srv_log(s, SRV_LOG_WARN, "took over the stale lock file %s left by pid %s, %s", path, pid,
                    dead ? "which is no longer running" : "which no longer holds it");
        }
        char buf[32];
        int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)len, 0) != len) { /* the pid is a courtesy */ }
        s->lock_fd = fd;
        return 0;
    }
    snprintf(err, errlen, "cannot take the lock file %s: it keeps being replaced", path);
    return SRV_ELOG;
}

/* Remove the lock file while still holding the lock, then release it. */
static void drop_lock(srv *s)
{
    if (s->lock_fd < 0) return;
    char path[4200];
    lock_path(s, path, sizeof path);
    if (unlink(path) != 0 && errno != ENOENT)
        srv_log(s, SRV_LOG_WARN, "cannot remove the lock file %s: %s", path, strerror(errno));
    close(s->lock_fd);
    s->lock_fd = -1;
}

static void on_wake(void *ud)
{
    srv *s = ud;
    uv_async_send(&s->rec_async);          /* thread-safe: the only libuv call from the writer */
}

static srv_world *world_by_session(srv *s, int64_t session)
{
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i]->rec.session == session) return s->worlds[i];
    return NULL;
}

/* One settled entry, reported to the network side (which finds the client, if it is still there). */
static void report(void *ud, const srv_ack *a, int ok)
{
    srv *s = ud;
    if (ok) {
        if (s->ev.input_acked) s->ev.input_acked(s->ev.ud, a->client, a->seq, a->in.tick);
        return;
    }
    s->rec_out.inputs++;
    if (s->ev.input_refused) s->ev.input_refused(s->ev.ud, a->client, a->seq, SRV_REFUSED_NOT_LOGGED);
}

/* Ticks before upto are settled: committed (ok), or not in the log. Outcomes arrive from two
 * places (the writer's, and a hand-over refused on the loop), so the lost ones are counted from
 * the highest tick settled so far; the first committed after them is the checkpoint that ends
 * the gap, whose row [from, to) counts its tick too: the count is what verify will say. */
void srv_world_settle(srv *s, srv_world *w, uint64_t upto, int ok)
{
    srv_rec_state *r = &w->rec;
    if (upto > r->settled) {
        if (!ok) {
            s->rec_out.ticks += upto - r->settled;
            s->rec_out.sessions += !r->outage;
            r->outage = 1;
        }
        s->rec_out.ticks += ok && r->in_gap;
        r->in_gap = !ok;
        r->settled = upto;
    }
    srv_acks_settle(&w->acks, upto, ok, report, s);
}

/* ---- an outage of the log --------------------------------------------------------------------- */
#define SAY_EVERY_MS 60000               /* the "still failing" line's interval by default */

/* The interval: $VIVD_FAILING_LOG_SECONDS (docs/OPERATIONS.md; tests use a short one), else 60 s. */
static uint64_t say_every_ms(const srv *s)
{
    const char *v = getenv("VIVD_FAILING_LOG_SECONDS");
    if (!v || !*v) return SAY_EVERY_MS;
    char *end;
    double sec = strtod(v, &end);
    if (*end || !(sec >= 0.1 && sec <= 86400)) {
        srv_log(s, SRV_LOG_WARN, "VIVD_FAILING_LOG_SECONDS=%s is not a number of seconds from 0.1 to "
                "86400: a failing replay log is reported every 60 s", v);
        return SAY_EVERY_MS;
    }
    return (uint64_t)(sec * 1000 + 0.5);
}

/* A span for people: "4.0 s", "3 min 05 s", "2 h 07 min". */
static void fmt_span(uint64_t ms, char *out, size_t cap)
{
    uint64_t sec = ms / 1000;
    if (sec < 60) snprintf(out, cap, "%.1f s", (double)ms / 1000);
    else if (sec < 3600) snprintf(out, cap, "%" PRIu64 " min %02" PRIu64 " s", sec / 60, sec % 60);
    else snprintf(out, cap, "%" PRIu64 " h %02" PRIu64 " min", sec / 3600, sec / 60 % 60);
}

/* What the operator can do, from the recorder's sentence (SQLite's own words for its errors). */
static const char *remedy(const char *why)
{
    if (strstr(why, "full")) return "free space on the disk that holds";
    if (strstr(why, "locked")) return "end the other process that holds the write lock of";
    if (strstr(why, "behind")) return "give the writer a faster disk (or a larger --record-queue) for";
    return "check (dmesg, free space) the disk that holds";
}

static void say_failed(srv *s, const char *why)
{
    char every[32];
    fmt_span(s->rec_say_ms, every, sizeof every);
    srv_log(s, SRV_LOG_ERROR, "RECORDING FAILED: %s. Inputs are refused until the log can be written "
            "again; worlds keep running and viewers keep watching. To resume: %s %s; recording then "
            "resumes by itself. Said again every %s while it lasts.", why, remedy(why), s->db_path,
            every);
}

static void say_still(srv *s, const char *why)
{
    char span[32];
    fmt_span(uv_now(s->loop) - s->rec_out.since_ms, span, sizeof span);
    srv_log(s, SRV_LOG_ERROR, "recording still failing after %s: %s; since it began %" PRIu64 " ticks "
            "of %d session(s) not recorded, %" PRIu64 " inputs refused (log_unavailable, not_logged). "
            "To resume: %s %s; recording then resumes by itself within a second.", span, why,
            s->rec_out.ticks, s->rec_out.sessions, s->rec_out.inputs, remedy(why), s->db_path);
}

#define RESUMED_WAIT_MS 10000

static void say_resumed(srv *s)
{
    char span[32];
    fmt_span(uv_now(s->loop) - s->rec_out.since_ms, span, sizeof span);
    srv_log(s, SRV_LOG_WARN, "recording resumed in %s after %s: %" PRIu64 " ticks of %d session(s) were "
            "not recorded (a gap in each, which viv replay verify names) and %" PRIu64 " inputs refused",
            s->db_path, span, s->rec_out.ticks, s->rec_out.sessions, s->rec_out.inputs);
}

static void on_say(uv_timer_t *t);

/* The outage's edges: said once each, and the timer between them. Its counts run from the end of
 * the last one, so that what is refused before it is noticed here is in them. */
static void check_failing(srv *s)
{
    if (!s->rec) return;
    char why[256] = "";
    int f = rpl_recorder_failing(s->rec, why, sizeof why);
    if (f) s->rec_out.back_ms = 0;           /* (failing again while its gaps were closing) */
    if (f && !s->rec_failing) {
        s->rec_out.since_ms = uv_now(s->loop);
        say_failed(s, why);
        uv_timer_start(&s->rec_timer, on_say, s->rec_say_ms, s->rec_say_ms);
    } else if (!f && s->rec_failing) {
        /* The writer clears its flag once the commit that closes the last gap is made, and
         * queues that commit's outcomes under the same lock; but they may come after this turn
         * of the loop read the queue dry (the writer ran in between), and a session's count
         * ends with its gap's closing tick. So the line waits until every world has read its
         * gap closed (at most RESUMED_WAIT_MS, for a world that never commits again). */
        uint64_t now = uv_now(s->loop);
        if (!s->rec_out.back_ms) s->rec_out.back_ms = now;
        for (int i = 0; i < s->nworlds && now - s->rec_out.back_ms < RESUMED_WAIT_MS; i++)
            if (s->worlds[i]->rec.in_gap) return;
        uv_timer_stop(&s->rec_timer);
        say_resumed(s);
        memset(&s->rec_out, 0, sizeof s->rec_out);
        for (int i = 0; i < s->nworlds; i++) s->worlds[i]->rec.outage = 0;
    }
    s->rec_failing = f;
}

static void on_say(uv_timer_t *t)
{
    srv *s = t->data;
    check_failing(s);
    char why[256] = "";
    if (s->rec_failing && rpl_recorder_failing(s->rec, why, sizeof why)) say_still(s, why);
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
    int rc = take_lock(s, err, errlen);
    if (rc != 0) return rc;
    rpl_rec_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.path = s->db_path;
    cfg.durability = s->durability;
    cfg.max_queue_bytes = s->rec_queue_bytes;
    cfg.node = s->node_name;           /* NULL on a single node */
    cfg.wake = on_wake;
    cfg.ud = s;
    s->rec = rpl_recorder_open(&cfg, err, errlen);
    if (!s->rec) {
        drop_lock(s);
        return SRV_ELOG;
    }
    uv_async_init(s->loop, &s->rec_async, on_async);
    s->rec_async.data = s;
    uv_timer_init(s->loop, &s->rec_timer);
    s->rec_timer.data = s;
    s->rec_say_ms = say_every_ms(s);
    return 0;
}

int srv_record_failing(srv *s)
{
    return s->rec && rpl_recorder_failing(s->rec, NULL, 0);
}

void srv_record_free(srv_world *w)
{
    free(w->rec.fork);
    w->rec.fork = NULL;
    free(w->rec.cpbuf);
    w->rec.cpbuf = NULL;
}

/* Begin w's session now: the first write a new world makes to the log. */
static void begin_now(srv *s, srv_world *w)
{
    srv_rec_state *r = &w->rec;
    char err[256];
    r->cp_every = rpl_checkpoint_every(w->w);   /* 60 s of world time; less for a big world */
    r->cpcap = sim_world_save_max(w->w);
    r->cpbuf = malloc(r->cpcap);
    if (!r->cpbuf) {
        srv_log(s, SRV_LOG_ERROR, "world %u: out of memory for checkpoints; not recorded", w->id);
        return;
    }
    r->session = rpl_recorder_begin_fork(s->rec, w->w, "vivd", w->id, r->cp_every, r->fork, err,
                                         sizeof err);
    free(r->fork);
    r->fork = NULL;
    if (r->session < 0) {
        srv_log(s, SRV_LOG_ERROR, "world %u: cannot record: %s", w->id, err);
        return;
    }
    r->logged_tick = r->settled = sim_world_tick(w->w);
    r->logged_sh = sim_world_hash(w->w);
    srv_log(s, SRV_LOG_INFO, "world %u is recorded as session %" PRId64 " in %s", w->id, r->session,
            s->db_path);
}

void srv_record_begin(srv *s, srv_world *w)
{
    srv_rec_state *r = &w->rec;
    r->session = -1;
    r->pending = SRV_REC_NONE;
    if (!s->rec) return;
    if (s->rec_starting) {             /* written by srv_record_start, once the start has succeeded */
        r->pending = SRV_REC_BEGIN;
        return;
    }
    begin_now(s, w);
}

/* Continue a resumed session in the log: a checkpoint at its tick, status 'running'. */
static void resume_now(srv *s, srv_world *w)
{
    srv_rec_state *r = &w->rec;
    if (rpl_recorder_resume(s->rec, r->session, w->w) != 0) {
        srv_log(s, SRV_LOG_ERROR, "world %u: cannot resume recording session %" PRId64, w->id, r->session);
        r->session = -1;
    }
    r->logged_tick = r->settled = sim_world_tick(w->w);
    r->logged_sh = sim_world_hash(w->w);
}

int srv_record_start(srv *s)
{
    if (!s->rec) return 0;
    s->rec_starting = 0;
    for (size_t i = 0; i < s->nrec_closing; i++) rpl_recorder_end(s->rec, s->rec_closing[i]);
    free(s->rec_closing);
    s->rec_closing = NULL;
    s->nrec_closing = 0;
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        int p = w->rec.pending;
        w->rec.pending = SRV_REC_NONE;
        if (p == SRV_REC_BEGIN) begin_now(s, w);
        else if (p == SRV_REC_RESUME) resume_now(s, w);
    }
    /* Everything asked for so far is written before vivd says it is up. */
    return rpl_recorder_flush(s->rec) == 0 ? 0 : SRV_ELOG;
}

/* After stepping `tick`: hand the inputs applied at it, both hashes and perhaps a checkpoint to
 * the writer. Acks wait for its commit. A tick whose inputs the log cannot hold as the world
 * applied them is refused whole (logged, its inputs told not_logged), never written in part. */
void srv_record_tick(srv *s, srv_world *w, uint64_t tick)
{
    srv_rec_state *r = &w->rec;
    if (r->session < 0) {
        size_t none;
        srv_acks_step(&w->acks, NULL, 0, &none);
        srv_world_settle(s, w, tick + 1, 1);
        return;
    }
    /* The log takes the inputs from the world: exactly what its last step applied, in the
     * order it applied them ((client, seq)); at most SIM_TICK_INPUTS_MAX, so no buffer of ours
     * can cut them short. The ack queue must agree on how many: if it does not, an ack would
     * claim an input the log does not hold (or the reverse), so the tick is refused whole. */
    const sim_input *inputs;
    size_t nin = sim_world_applied(w->w, &inputs);
    size_t nacks = 0;
    srv_acks_step(&w->acks, NULL, 0, &nacks);
    if (nacks != nin) {
        srv_log(s, SRV_LOG_ERROR, "world %u: tick %" PRIu64 " applied %zu input(s) but %zu wait for "
                "an ack; the tick is not logged", w->id, tick, nin, nacks);
        /* a gap of the session from here, which its next checkpoint (a second away) ends: not a
         * hole that verify would call damage. The writer settles the tick, after those before it
         * (which may still be waiting to be written). */
        char why[96];
        snprintf(why, sizeof why, "%zu input(s) applied but %zu to acknowledge", nin, nacks);
        r->not_logged++;
        if (rpl_recorder_lost(s->rec, r->session, tick, why) != 0) srv_world_settle(s, w, tick + 1, 0);
        return;
    }
    uint64_t sh = srv_world_state_hash(w);
    uint64_t fh;
    srv_world_frame(w, 0, &fh);
    int failing = rpl_recorder_failing(s->rec, NULL, 0);
    /* A checkpoint on schedule, and once a second while failing or in a gap: the log resumes at
     * one. */
    int want_cp = (tick + 1) % r->cp_every == 0 || ((failing || r->in_gap) && (tick + 1) % w->kind->hz == 0);
    /* The checkpoint is saved into r->cpbuf and handed over whole, not copied: the recorder writes
     * it and keeps the buffer for a later one, which this world takes back at its next checkpoint
     * (its pages already in memory: a 4096x2048 world's 34 MB copied into a new buffer cost the
     * tick 12 ms more than the save). Out of memory for one: this tick goes without. */
    if (want_cp && !r->cpbuf) r->cpbuf = rpl_recorder_cp_buffer(s->rec, r->cpcap);
    size_t cplen = want_cp && r->cpbuf ? sim_world_save(w->w, r->cpbuf, r->cpcap) : 0;
    int rc;
    if (cplen) {
        rc = rpl_recorder_tick_own(s->rec, r->session, tick, inputs, nin, sh, fh, r->cpbuf, cplen, r->cpcap,
                                   NULL, 0);
        r->cpbuf = NULL;
    } else {
        rc = rpl_recorder_tick(s->rec, r->session, tick, inputs, nin, sh, fh, NULL, 0);
    }
    if (rc != 0) {
        /* Past the queue's limit (RPL_EFAILING) the tick went in as a marker, or joined one: the
         * writer settles it in order, after the ticks before it still queued, which it may yet
         * write. Settled here, it would refuse their inputs too, and count them lost. */
        r->not_logged++;
        if (rc != RPL_EFAILING) srv_world_settle(s, w, tick + 1, 0);
        check_failing(s);
    } else {
        r->logged_tick = tick + 1;
        r->logged_sh = sh;
    }
}

void srv_record_end(srv *s, srv_world *w)
{
    if (!s->rec || w->rec.session < 0 || w->rec.pending != SRV_REC_NONE) return;
    rpl_recorder_end(s->rec, w->rec.session);
}

void srv_record_suspend(srv *s, srv_world *w)
{
    if (!s->rec || w->rec.session < 0 || w->rec.pending != SRV_REC_NONE) return;
    /* The final checkpoint must be the state the log ends with. Inputs queued since the last tick
     * (never applied, never acknowledged: the stop refuses them) are part of the saved state, so
     * then, or after a tick the log did not take, there is none: the resume replays from the
     * last one, as after a crash. */
    const srv_rec_state *r = &w->rec;
    int same = sim_world_tick(w->w) == r->logged_tick && sim_world_hash(w->w) == r->logged_sh;
    if (rpl_recorder_suspend(s->rec, w->rec.session, same ? w->w : NULL) != 0)
        srv_log(s, SRV_LOG_WARN, "world %u: its state at tick %" PRIu64 " cannot be saved; session "
                "%" PRId64 " is suspended without a final checkpoint (the resume replays from the last "
                "one)", w->id, sim_world_tick(w->w), w->rec.session);
    else
        srv_log(s, SRV_LOG_DEBUG, "world %u: session %" PRId64 " suspended at tick %" PRIu64, w->id,
                w->rec.session, sim_world_tick(w->w));
}

void srv_record_close(srv *s)
{
    if (!s->rec) return;
    uv_timer_stop(&s->rec_timer);
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
    free(s->rec_closing);
    s->rec_closing = NULL;
    s->nrec_closing = 0;
    drop_lock(s);
}

/* ---- resume after a crash ------------------------------------------------------------------------ */
/* Rebuild one interrupted session: its last checkpoint, then every logged input up to the last
 * committed tick, checking each tick's recorded state and frame hash on the way. Stepped and
 * rendered on tasks (vivd's pool, or NULL: this thread), as the world will be once it runs: the
 * same states on any number of workers, and a big world's replay in a fraction of the time. */
static sim_world *rebuild(rpl_file *f, const rpl_session *ss, const sim_tasks *tasks, char *err,
                          size_t errlen)
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
    sim_world_set_tasks(w, tasks);
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
            if (rpl_hash_differs(rows[r].state_hash, sim_world_hash(w), rows[r].bits) ||
                rpl_hash_differs(rows[r].frame_hash, sim_frame_hash(&fr), rows[r].bits)) {
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

/* A session to close once the start has succeeded (srv_record_start). */
static void close_later(srv *s, int64_t session)
{
    int64_t *p = realloc(s->rec_closing, (s->nrec_closing + 1) * sizeof *p);
    if (!p) return;                    /* it stays as it is: the next start sees it again */
    s->rec_closing = p;
    s->rec_closing[s->nrec_closing++] = session;
}

int srv_record_resume_all(srv *s, int fresh)
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
    int collected = 0;
    for (size_t i = 0; i < n; i++) {
        const rpl_session *ss = &list[i].s;
        if (!ss->running && !ss->suspended) continue;
        /* A session viv replay collect copied here from another node's file is that node's to
         * resume, in its own file: here it is kept as it was recorded, for verification. */
        if (ss->origin_id >= 0) {
            collected++;
            continue;
        }
        const char *how = ss->suspended ? "suspended by a clean stop" : "left running by a crash";
        if (fresh) {
            srv_log(s, SRV_LOG_INFO, "session %" PRId64 " (%s, tick %" PRIu64 ") was %s; --fresh: it is "
                    "closed as it stands", ss->id, ss->kind, ss->end_tick, how);
            close_later(s, ss->id);
            continue;
        }
        uint64_t t0 = uv_hrtime();
        sim_world *sw = rebuild(f, ss, pool_tasks(s->pool), err, sizeof err);
        if (!sw) {
            srv_log(s, SRV_LOG_ERROR, "session %" PRId64 " (%s) was %s but cannot be resumed: %s; it "
                    "is closed as it stands", ss->id, ss->kind, how, err);
            close_later(s, ss->id);
            continue;
        }
        srv_world *w = srv_world_adopt(s, sw, err, sizeof err);
        if (!w) {
            srv_log(s, SRV_LOG_ERROR, "session %" PRId64 ": %s", ss->id, err);
            continue;
        }
        srv_rec_state *r = &w->rec;
        r->session = ss->id;
        r->cp_every = ss->checkpoint_every ? ss->checkpoint_every : rpl_checkpoint_every(w->w);
        r->cpcap = sim_world_save_max(w->w);
        r->cpbuf = malloc(r->cpcap);
        if (!r->cpbuf) {
            srv_log(s, SRV_LOG_ERROR, "world %u: out of memory; session %" PRId64 " is not recorded",
                    w->id, ss->id);
            r->session = -1;
        } else {
            r->pending = SRV_REC_RESUME;     /* written by srv_record_start */
        }
        srv_log(s, SRV_LOG_INFO, "resumed session %" PRId64 " (%s seed=%" PRIu64 " %s), %s, at tick %"
                PRIu64 " as world %u: rebuilt from its last checkpoint and checked in %.1f ms",
                ss->id, ss->kind, ss->seed, ss->params, how, ss->end_tick, w->id,
                (double)(uv_hrtime() - t0) / 1e6);
        resumed++;
    }
    if (collected)
        srv_log(s, SRV_LOG_INFO, "%d unfinished session(s) in %s came from other files through viv replay "
                "collect: they are left as recorded (for viv replay verify), neither resumed nor closed",
                collected, s->db_path);
    free(list);
    rpl_close(f);
    return resumed;
}
