/* play.c — `vivd --play FILE[:SESSION]`: a recorded session hosted as a read-only world. Viewers
 * subscribe to it like any other world; players and admins pause, step, seek (through the
 * checkpoints) and change its speed with `play` messages (docs/PROTOCOL.md). Its inputs come from
 * the log, loaded at start-up, so a tick never reads the disk; a seek does, once. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "read.h"
#include "host.h"
#include "msg.h"
#include "replay.h"
#include "pool.h"

/* A play message that came while the world was seeking: applied, in order, once it has landed. */
#define SRV_PLAY_WAITING 16
typedef struct play_op {
    char op[8];
    size_t oplen;
    uint64_t tick;
    int speed;
    uint32_t client;
} play_op;

struct srv_play {
    rpl_file *f;
    rpl_session sess;
    /* A viewer's own timeline (srv_timeline_open), not a world of --play: the world's id its
     * frames carry, and whether it plays a live world's recording (which grows: the end is read
     * again when play reaches it). */
    int timeline;
    int live;
    uint32_t of;
    int dropped;               /* its subscription let it go: the scheduler's next turn frees it */
    int starved;               /* a live world's timeline playing at the end it has read, nothing
                                  more committed yet: it waits (srv_timelines_sweep reads again) */
    uint64_t polled_at;        /* ms: when it last read the file for more (starved: a tick apart) */
    int opened;                /* opened by a viewer (`open`), not by --play: closed when unwatched */
    uint64_t idle_since;       /* ms: since when nobody watches it (or the last sweep that saw one) */
    sim_input *in;
    size_t nin, cursor;        /* in[cursor] is the next input not yet fed (a seek's worker too) */
    int paused;
    uint64_t steps;            /* single steps requested while paused */
    play_op waiting[SRV_PLAY_WAITING];   /* the loop's, never the worker's */
    int nwaiting;
};

int srv_play_paused(const srv_world *w)
{
    return w->play->dropped || w->play->starved || (w->play->paused && w->play->steps == 0);
}

void srv_play_free(srv_play *p)
{
    if (!p) return;
    rpl_close(p->f);
    free(p->in);
    free(p);
}

/* Queue the logged inputs of the world's next tick. */
void srv_play_feed(srv_world *w)
{
    srv_play *p = w->play;
    uint64_t t = sim_world_tick(w->w);
    while (p->cursor < p->nin && p->in[p->cursor].tick < t) p->cursor++;
    for (; p->cursor < p->nin && p->in[p->cursor].tick == t; p->cursor++) sim_world_input(w->w, &p->in[p->cursor]);
}

static void refresh_start(srv *s, srv_world *w);

void srv_play_after_tick(srv *s, srv_world *w)
{
    srv_play *p = w->play;
    if (p->steps) p->steps--;
    if (!p->paused && p->live && sim_world_tick(w->w) >= p->sess.end_tick) {
        refresh_start(s, w);       /* the live world has committed more since: read it */
        return;
    }
    if (!p->paused && sim_world_tick(w->w) >= p->sess.end_tick) {
        p->paused = 1;
        srv_log(s, SRV_LOG_INFO, "world %u: the recording ended at tick %" PRIu64 "; paused", w->id,
                p->sess.end_tick);
    }
}

/* Read session `*session` of path (< 0: the file's only one) into a play state and a world at the
 * session's first checkpoint, paused. Any thread: it touches only what it makes. 0, or a negative
 * RPL_E… code with a sentence in err. */
static int play_load(const char *path, int64_t *session, srv_play **pp, sim_world **swp, char *warn,
                     size_t warnlen, char *err, size_t errlen)
{
    *pp = NULL;
    *swp = NULL;
    warn[0] = '\0';
    srv_play *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return RPL_ENOMEM;
    }
    sim_world *sw = NULL;
    rpl_checkpoint cp;
    memset(&cp, 0, sizeof cp);
    int rc = rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &p->f, err, errlen);
    if (rc == 0 && *session < 0) rc = rpl_session_only(p->f, session, err, errlen);
    if (rc == 0) rc = rpl_session_get(p->f, *session, &p->sess, err, errlen);
    if (rc == 0 && !rpl_session_kind(p->f, &p->sess, warn, warnlen, err, errlen)) rc = rpl_kind_error(&p->sess);
    if (rc == 0) {
        rc = rpl_checkpoint_find(p->f, &p->sess, p->sess.start_tick, RPL_AT_OR_AFTER, &cp, err, errlen);
        if (rc == 1) {
            snprintf(err, errlen, "session %" PRId64 " of %s has no checkpoint", *session, path);
            rc = RPL_ECORRUPT;
        }
    }
    if (rc == 0) rc = rpl_world_load(&p->sess, &cp, &sw, err, errlen);
    if (rc == 0) rc = rpl_inputs_load(p->f, *session, 0, p->sess.end_tick, sw, &p->in, &p->nin, err, errlen);
    rpl_checkpoint_free(&cp);
    if (rc != 0) {
        sim_world_destroy(sw);
        srv_play_free(p);
        return rc;
    }
    p->paused = 1;          /* a recording starts paused at its beginning: press play */
    *pp = p;
    *swp = sw;
    return 0;
}

static void log_playing(srv *s, const srv_world *w, const char *how)
{
    const srv_play *p = w->play;
    srv_log(s, SRV_LOG_INFO, "world %u plays session %" PRId64 " of %s%s (%s seed=%" PRIu64 " %s, ticks "
            "%" PRIu64 "..%" PRIu64 ", %zu inputs); paused", w->id, p->sess.id, rpl_path(p->f), how,
            p->sess.kind, p->sess.seed, p->sess.params, p->sess.start_tick, p->sess.end_tick, p->nin);
}

int srv_play_open(srv *s, const char *spec, char *err, size_t errlen)
{
    char path[4096];
    int64_t session = -1;
    snprintf(path, sizeof path, "%s", spec);
    char *colon = strrchr(path, ':');
    if (colon && colon[1]) {
        char *end;
        long long v = strtoll(colon + 1, &end, 10);
        if (*end == '\0' && v > 0) {
            session = v;
            *colon = '\0';
        }
    }
    srv_play *p;
    sim_world *sw;
    char warn[320];
    int rc = play_load(path, &session, &p, &sw, warn, sizeof warn, err, errlen);
    if (rc == RPL_EUSAGE) {            /* its sentence names viv replay's --session N: say ours */
        char *ids = strchr(err, '(');
        char *close = ids ? strchr(ids, ')') : NULL;
        char list[256] = "";
        if (ids && close) snprintf(list, sizeof list, "%.*s", (int)(close - ids + 1), ids);
        snprintf(err, errlen, "%s holds several sessions %s: pick one with --play %s:N "
                 "(viv replay list %s shows them)", path, list, path, path);
    }
    if (rc != 0) return SRV_EPLAY;
    if (warn[0]) srv_log(s, SRV_LOG_WARN, "%s: %s", path, warn);
    srv_world *w = srv_world_adopt(s, sw, err, errlen);
    if (!w) {
        srv_play_free(p);
        return SRV_EPLAY;
    }
    w->play = p;
    log_playing(s, w, "");
    return (int)w->id;
}

/* ---- a recording opened by a viewer (docs/PROTOCOL.md, open) ---------------------------------------
 * The same read-only world as --play, hosted on request: read and built on a worker, shared by
 * everyone who opens that session (each moves through it on a timeline of their own), and closed
 * when nobody has watched it for SRV_OPENED_IDLE_MS. */
typedef struct open_job {
    char path[4096];
    int64_t session;
    uint32_t client;
    srv_world *w;              /* built, not hosted yet (NULL: failed) */
    const char *code;
    char err[512], warn[320];
} open_job;

/* The world that shows session `session` of path now: a recording of it, or (path being the file
 * vivd records to) the live world recording it. */
static srv_world *showing(srv *s, const char *path, int64_t session)
{
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        if (w->play ? w->play->sess.id == session && strcmp(rpl_path(w->play->f), path) == 0
                    : s->db_path && w->rec.session == session && strcmp(s->db_path, path) == 0)
            return w;
    }
    return NULL;
}

static int opened_count(const srv *s)
{
    int n = s->nopening;
    for (int i = 0; i < s->nworlds; i++) n += s->worlds[i]->play && s->worlds[i]->play->opened;
    return n;
}

static void open_work(void *arg)
{
    open_job *j = arg;
    srv_play *p;
    sim_world *sw;
    int rc = play_load(j->path, &j->session, &p, &sw, j->warn, sizeof j->warn, j->err, sizeof j->err);
    if (rc != 0) {
        j->code = rc == RPL_ENOSESSION ? "unknown_session" : "replay_failed";
        return;
    }
    j->w = srv_world_build(sw, j->err, sizeof j->err);   /* takes sw */
    if (!j->w) {
        j->code = "replay_failed";
        srv_play_free(p);
        return;
    }
    j->w->play = p;
}

static void open_done(srv *s, void *arg, int cancelled)
{
    open_job *j = arg;
    s->ncreating--;
    s->nopening--;
    srv_world *w = j->w, *there = w && !cancelled && !s->stopping ? showing(s, j->path, j->session) : NULL;
    if (cancelled || s->stopping || there) {   /* another open of it landed first: that one */
        srv_world_free(w);
        if (there && s->ev.recording_opened) s->ev.recording_opened(s->ev.ud, j->client, there, NULL, NULL);
        free(j);
        return;
    }
    if (w) {
        if (j->warn[0]) srv_log(s, SRV_LOG_WARN, "%s: %s", j->path, j->warn);
        srv_world_join(s, w);
        w->play->opened = 1;
        w->play->idle_since = uv_now(s->loop);
        log_playing(s, w, ", opened by a viewer");
    }
    if (s->ev.recording_opened) s->ev.recording_opened(s->ev.ud, j->client, w, j->code, j->err);
    free(j);
}

int srv_recording_open(srv *s, const char *path, int64_t session, uint32_t client, srv_world **now,
                       const char **code, char *err, size_t errlen)
{
    *now = showing(s, path, session);
    if (*now) return 0;
    *code = "world_limit";
    if (opened_count(s) >= SRV_MAX_OPENED) {
        snprintf(err, errlen, "viewers have %d recordings open already (the limit): watch one of them, "
                 "or try again when one has closed (a minute after its last viewer left)", SRV_MAX_OPENED);
        return SRV_ELIMIT;
    }
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SRV_ELIMIT;
    }
    open_job *j = calloc(1, sizeof *j);
    if (j) {
        j->session = session;
        j->client = client;
    }
    if (!j || snprintf(j->path, sizeof j->path, "%s", path) >= (int)sizeof j->path ||
        srv_job_queue(s, open_work, open_done, j) != 0) {
        free(j);
        *code = "replay_failed";
        snprintf(err, errlen, "out of memory opening the recording");
        return SRV_ENOMEM;
    }
    s->ncreating++;
    s->nopening++;
    return 0;
}

void srv_recording_watched(srv *s, srv_world *w, int watched)
{
    if (!w->play || !w->play->opened) return;
    uint64_t now = uv_now(s->loop), idle = s->open_idle_ms ? s->open_idle_ms : SRV_OPENED_IDLE_MS;
    if (watched) w->play->idle_since = now;
    else if (now - w->play->idle_since >= idle) {
        srv_log(s, SRV_LOG_INFO, "world %u (session %" PRId64 " of %s) closes: nobody has watched it for %.0f s",
                w->id, w->play->sess.id, rpl_path(w->play->f), (double)idle / 1000.0);
        srv_world_close(s, w);
    }
}

int srv_play_opened(const srv_world *w)
{
    return w->play && w->play->opened;
}

/* Every subscriber of w starts over from a keyframe (after a seek the old deltas mean nothing). */
static void rekey(srv *s, srv_world *w)
{
    if (s->ev.world_reset) s->ev.world_reset(s->ev.ud, w);
    srv_world_invalidate(w);
}

/* A seek, run by a worker while the world is busy (jobs.c): the checkpoint is read and loaded
 * and the logged ticks replayed there, off the loop. */
typedef struct seek_job {
    uint64_t target;
    uint32_t client;
    int rc;
    char err[256];
} seek_job;

/* A live world's timeline: the ticks its recording committed since it was last read (the end,
 * and the inputs up to it), on the worker that holds w. 0, or SRV_EPLAY with a sentence. */
static int refresh(srv_world *w, char *err, size_t errlen)
{
    srv_play *p = w->play;
    rpl_session now;
    if (rpl_session_get(p->f, p->sess.id, &now, err, errlen) != 0) return SRV_EPLAY;
    if (now.end_tick <= p->sess.end_tick) return 0;
    sim_input *more;
    size_t nmore;
    if (rpl_inputs_load(p->f, p->sess.id, p->sess.end_tick, now.end_tick, w->w, &more, &nmore, err, errlen) != 0)
        return SRV_EPLAY;
    sim_input *all = nmore ? realloc(p->in, (p->nin + nmore) * sizeof *all) : p->in;
    if (nmore && !all) {
        free(more);
        snprintf(err, errlen, "out of memory reading the recording's new ticks");
        return SRV_EPLAY;
    }
    if (nmore) memcpy(all + p->nin, more, nmore * sizeof *more);
    free(more);
    p->in = all;
    p->nin += nmore;
    p->sess.end_tick = now.end_tick;
    return 0;
}

static void seek_work(srv_world *w, void *arg)
{
    seek_job *j = arg;
    srv_play *p = w->play;
    uint64_t now = sim_world_tick(w->w), target = j->target;
    if (p->live && target > p->sess.end_tick) {
        if ((j->rc = refresh(w, j->err, sizeof j->err)) != 0) return;
        if (target > p->sess.end_tick) {
            snprintf(j->err, sizeof j->err, "tick %" PRIu64 " is not recorded yet (the recording ends at "
                     "%" PRIu64 ")", target, p->sess.end_tick);
            j->rc = SRV_EPLAY;
            return;
        }
    }
    if (target < now || target - now > w->kind->hz * 10u) {
        rpl_checkpoint cp;
        if (rpl_checkpoint_find(p->f, &p->sess, target, RPL_AT_OR_BEFORE, &cp, j->err, sizeof j->err) != 0) {
            j->rc = SRV_EPLAY;
            return;
        }
        /* Only worth it if the checkpoint is nearer than where we are. */
        if (target < now || cp.tick > now) {
            sim_world *ww = w->w;
            int rc = rpl_world_load(&p->sess, &cp, &ww, j->err, sizeof j->err);
            w->w = ww;
            if (rc != 0) {
                rpl_checkpoint_free(&cp);
                j->rc = SRV_EPLAY;
                return;
            }
            p->cursor = 0;
        }
        rpl_checkpoint_free(&cp);
    }
    while (sim_world_tick(w->w) < target) {       /* fast-forward, no frames */
        srv_play_feed(w);
        sim_world_step(w->w);
    }
}

/* The play messages that waited for the seek, in order, each answered; one that seeks again
 * leaves the rest waiting for that one. */
static void run_waiting(srv *s, srv_world *w)
{
    srv_play *p = w->play;
    int i = 0;
    while (i < p->nwaiting && !w->busy) {
        play_op o = p->waiting[i++];
        char err[256] = "";
        int rc = srv_play_control(s, w, o.op, o.oplen, o.tick, o.speed, o.client, err, sizeof err);
        if (rc != 1 && s->ev.play_done) s->ev.play_done(s->ev.ud, o.client, w, rc, err);
    }
    memmove(p->waiting, p->waiting + i, (size_t)(p->nwaiting - i) * sizeof *p->waiting);
    p->nwaiting -= i;
}

/* Back on the loop: show where it landed (even while paused), answer, then what waited. */
static void seek_done(srv *s, srv_world *w, void *arg)
{
    seek_job *j = arg;
    if (!s->stopping && !w->closed && !w->play->dropped) {
        if (j->rc == 0) {
            rekey(s, w);
            srv_world_rebase(w);
            if (s->ev.tick_done) s->ev.tick_done(s->ev.ud, w);
            srv_tick_kick(s);
        }
        if (s->ev.play_done) s->ev.play_done(s->ev.ud, j->client, w, j->rc, j->err);
        run_waiting(s, w);
    }
    free(j);
}

static int seek(srv *s, srv_world *w, uint64_t target, uint32_t client, char *err, size_t errlen)
{
    srv_play *p = w->play;
    if (target < p->sess.start_tick || (target > p->sess.end_tick && !p->live)) {
        snprintf(err, errlen, "tick %" PRIu64 " is outside the recording (%" PRIu64 "..%" PRIu64 ")",
                 target, p->sess.start_tick, p->sess.end_tick);
        return SRV_EPLAY;
    }
    seek_job *j = calloc(1, sizeof *j);
    if (j) {
        j->target = target;          /* set before the worker can see it */
        j->client = client;
    }
    if (!j || srv_world_job(s, w, seek_work, seek_done, j) != 0) {
        free(j);
        snprintf(err, errlen, "out of memory starting the seek");
        return SRV_EPLAY;
    }
    return 1;
}

int srv_play_control(srv *s, srv_world *w, const char *op, size_t oplen, uint64_t tick, int speed,
                     uint32_t client, char *err, size_t errlen)
{
    srv_play *p = w->play;
    if (!p) {
        snprintf(err, errlen, "world %u is live, not a recording", w->id);
        return SRV_ENOTREC;
    }
#define IS(x) (oplen == sizeof(x) - 1 && memcmp(op, x, oplen) == 0)
    if (w->busy) {                     /* seeking: it waits, and is answered when applied */
        if (!IS("pause") && !IS("resume") && !IS("step") && !IS("back") && !IS("seek") && !IS("speed")) {
            snprintf(err, errlen, "op must be pause, resume, step, back, seek or speed");
            return SRV_EPLAY;
        }
        if (p->nwaiting == SRV_PLAY_WAITING) {
            snprintf(err, errlen, "world %u is seeking and %d play messages already wait for it; "
                     "send this one again after their answers", w->id, SRV_PLAY_WAITING);
            return SRV_EBUSY;
        }
        play_op *o = &p->waiting[p->nwaiting++];
        memcpy(o->op, op, oplen);
        o->oplen = oplen;
        o->tick = tick;
        o->speed = speed;
        o->client = client;
        return 1;
    }
    p->starved = 0;                    /* an op ends a wait for new commits (resume starts one again) */
    if (IS("pause")) {
        p->paused = 1;
        p->steps = 0;
    } else if (IS("resume")) {
        if (sim_world_tick(w->w) >= p->sess.end_tick && !p->live) {
            snprintf(err, errlen, "the recording is at its end (tick %" PRIu64 "); seek first", p->sess.end_tick);
            return SRV_EPLAY;
        }
        p->paused = 0;
        srv_world_rebase(w);
        /* A live world's timeline at the end it has read: what the world committed since is read
         * first (it never steps past that), and it pauses there again if nothing was. */
        if (sim_world_tick(w->w) >= p->sess.end_tick) refresh_start(s, w);
    } else if (IS("step")) {
        if (!p->paused) {
            snprintf(err, errlen, "step works while paused");
            return SRV_EPLAY;
        }
        if (sim_world_tick(w->w) >= p->sess.end_tick) {
            snprintf(err, errlen, "the recording is at its end (tick %" PRIu64 ")", p->sess.end_tick);
            return SRV_EPLAY;
        }
        p->steps++;
        srv_world_rebase(w);
    } else if (IS("back")) {
        if (!p->paused) {
            snprintf(err, errlen, "back works while paused");
            return SRV_EPLAY;
        }
        if (sim_world_tick(w->w) <= p->sess.start_tick) {
            snprintf(err, errlen, "the recording is at its start (tick %" PRIu64 ")", p->sess.start_tick);
            return SRV_EPLAY;
        }
        p->steps = 0;
        return seek(s, w, sim_world_tick(w->w) - 1, client, err, errlen);   /* through a checkpoint */
    } else if (IS("seek")) {
        return seek(s, w, tick, client, err, errlen);   /* 1: the answer comes when it landed */
    } else if (IS("speed")) {
        if (speed < 10 || speed > 1000) {
            snprintf(err, errlen, "speed is a percentage of real time, 10..1000");
            return SRV_EPLAY;
        }
        w->sched.speed = speed;
        srv_world_rebase(w);
    } else {
        snprintf(err, errlen, "op must be pause, resume, step, back, seek or speed");
        return SRV_EPLAY;
    }
#undef IS
    srv_tick_kick(s);
    return 0;
}

int srv_play_info(const srv_world *w, wire_play *out)
{
    const srv_play *p = w->play;
    if (!p) return 0;
    out->session = p->sess.id;
    out->start = p->sess.start_tick;
    out->end = p->sess.end_tick;
    out->paused = p->paused;
    out->speed = w->sched.speed;
    out->file = rpl_path(p->f);
    return 1;
}

int srv_play_session(const srv_world *w, rpl_session *out, char *path, size_t cap)
{
    const srv_play *p = w->play;
    if (!p) return -1;
    *out = p->sess;
    return snprintf(path, cap, "%s", rpl_path(p->f)) < (int)cap ? 0 : -1;
}

/* ---- a viewer's own timeline on a world's recording (docs/PROTOCOL.md, timeline) -------------------
 * A private play world: built on a worker from the recording (the live world's session in the
 * file vivd records to, or the file and session a --play world plays), ticked by the scheduler
 * like any world but listed nowhere (s->timelines), its frames fanned out to the one subscription
 * that asked for it, with the id of the world it shows. The live world is never touched. */
typedef struct tl_open {
    char path[4096];
    int64_t session;
    uint64_t target;
    int from_end;              /* 1: target counts back from the recording's end */
    int live, resume, speed;
    uint32_t client, of, gen;
    srv_world *w;              /* built (NULL: failed) */
    int rc;
    char err[256];
} tl_open;

int srv_play_is_timeline(const srv_world *w)
{
    return w->play && w->play->timeline;
}

static void tl_open_work(void *arg)
{
    tl_open *j = arg;
    sim_world *sw = NULL;
    rpl_checkpoint cp;
    memset(&cp, 0, sizeof cp);
    char warn[320];
    srv_play *p = calloc(1, sizeof *p);
    j->rc = SRV_EPLAY;
    if (!p) {
        snprintf(j->err, sizeof j->err, "out of memory opening the timeline");
        return;
    }
    if (rpl_open(j->path, RPL_READ, RPL_DUR_NORMAL, &p->f, j->err, sizeof j->err) != 0) goto fail;
    if (rpl_session_get(p->f, j->session, &p->sess, j->err, sizeof j->err) != 0) goto fail;
    if (!rpl_session_kind(p->f, &p->sess, warn, sizeof warn, j->err, sizeof j->err)) goto fail;
    uint64_t start = p->sess.start_tick, end = p->sess.end_tick, target = j->target;
    if (j->from_end) target = end - start >= target ? end - target : start;
    if (target < start || target > end) {
        snprintf(j->err, sizeof j->err, "tick %" PRIu64 " is outside the recording (%" PRIu64 "..%" PRIu64 ")",
                 target, start, end);
        goto fail;
    }
    int rc = rpl_checkpoint_find(p->f, &p->sess, target, RPL_AT_OR_BEFORE, &cp, j->err, sizeof j->err);
    if (rc == 1) snprintf(j->err, sizeof j->err, "session %" PRId64 " has no checkpoint at or before tick %" PRIu64,
                          j->session, target);
    if (rc != 0) goto fail;
    if (rpl_world_load(&p->sess, &cp, &sw, j->err, sizeof j->err) != 0) goto fail;
    if (rpl_inputs_load(p->f, j->session, 0, end, sw, &p->in, &p->nin, j->err, sizeof j->err) != 0) goto fail;
    rpl_checkpoint_free(&cp);
    srv_world *w = srv_world_build(sw, j->err, sizeof j->err);   /* takes sw */
    sw = NULL;
    if (!w) goto fail;
    w->play = p;
    p->timeline = 1;
    p->live = j->live;
    p->of = j->of;
    p->paused = !j->resume;
    w->id = j->of;
    w->sched.speed = j->speed;
    while (sim_world_tick(w->w) < target) {       /* from the checkpoint: no frames */
        srv_play_feed(w);
        sim_world_step(w->w);
    }
    j->w = w;
    j->rc = 0;
    return;
fail:
    rpl_checkpoint_free(&cp);
    sim_world_destroy(sw);
    srv_play_free(p);
}

static void tl_open_done(srv *s, void *arg, int cancelled)
{
    tl_open *j = arg;
    s->ntlopening--;
    srv_world *w = j->w;
    if (cancelled || s->stopping) {
        srv_world_free(w);
        free(j);
        return;
    }
    if (!w) {
        if (s->ev.timeline_opened) s->ev.timeline_opened(s->ev.ud, j->client, j->of, j->gen, NULL, j->rc, j->err);
        free(j);
        return;
    }
    sim_world_set_tasks(w->w, pool_tasks(s->pool));
    srv_world_rebase(w);
    s->timelines[s->ntimelines++] = w;
    /* The network layer moves the subscription to it and shows it; nobody is left to (the viewer
     * went, or unsubscribed, or asked again meanwhile): it goes. */
    if (!s->ev.timeline_opened || s->ev.timeline_opened(s->ev.ud, j->client, j->of, j->gen, w, 0, NULL) != 0)
        srv_timeline_close(s, w);
    else srv_tick_kick(s);
    free(j);
}

int srv_timeline_open(srv *s, srv_world *w, uint64_t tick, int from_end, int resume, int speed,
                      uint32_t client, uint32_t gen, char *err, size_t errlen)
{
    if (s->ntimelines + s->ntlopening >= SRV_MAX_TIMELINES) {
        snprintf(err, errlen, "the server already plays %d timelines (the limit); try again later",
                 SRV_MAX_TIMELINES);
        return SRV_EBUSY;
    }
    tl_open *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(err, errlen, "out of memory opening the timeline");
        return SRV_ENOMEM;
    }
    if (w->play) {                    /* a recording: the file and session it plays */
        snprintf(j->path, sizeof j->path, "%s", rpl_path(w->play->f));
        j->session = w->play->sess.id;
    } else if (s->db_path && w->rec.session >= 0) {
        snprintf(j->path, sizeof j->path, "%s", s->db_path);
        j->session = w->rec.session;
        j->live = 1;
    } else {
        free(j);
        snprintf(err, errlen, "world %u is live and not recorded (vivd runs with --no-record): it has "
                 "no past to rewind", w->id);
        return SRV_ENOTREC;
    }
    j->target = tick;
    j->from_end = from_end;
    j->resume = resume;
    j->speed = speed;
    j->client = client;
    j->of = w->id;
    j->gen = gen;
    if (srv_job_queue(s, tl_open_work, tl_open_done, j) != 0) {
        free(j);
        snprintf(err, errlen, "out of memory opening the timeline");
        return SRV_ENOMEM;
    }
    s->ntlopening++;
    return 0;
}

/* Closing can happen inside the scheduler's turn (a send that fails drops a subscription): the
 * timeline is only marked here, never ticked again, and let go at the start of the next turn. */
void srv_timeline_close(srv *s, srv_world *w)
{
    w->play->dropped = 1;
    srv_tick_kick(s);
}

void srv_timelines_sweep(srv *s)
{
    int n = 0;
    for (int i = 0; i < s->ntimelines; i++) {
        srv_world *w = s->timelines[i];
        uint64_t now = uv_now(s->loop);
        if (w->play->starved && !w->busy && !w->play->dropped &&
            now - w->play->polled_at >= 1000u / (w->kind->hz ? w->kind->hz : 60u)) {
            w->play->polled_at = now;
            refresh_start(s, w);       /* anything committed since? */
        }
        if (!w->play->dropped) {
            s->timelines[n++] = w;
            continue;
        }
        if (s->ev.timeline_gone) s->ev.timeline_gone(s->ev.ud, w);
        if (w->busy) w->closed = 1;   /* a worker holds it: freed when it gives it back */
        else srv_world_free_later(s, w);
    }
    s->ntimelines = n;
}

void srv_timelines_free(srv *s)
{
    for (int i = 0; i < s->ntimelines; i++) {
        if (s->ev.timeline_gone) s->ev.timeline_gone(s->ev.ud, s->timelines[i]);
        if (!s->timelines[i]->busy) srv_world_free(s->timelines[i]);
    }
    s->ntimelines = 0;
}

/* A live world's timeline played to the end it had read: read what was committed since, on a
 * worker; nothing new (it caught up with the live world), it pauses there. */
typedef struct refresh_job {
    uint64_t end;
    int rc;
    char err[256];
} refresh_job;

static void refresh_work(srv_world *w, void *arg)
{
    refresh_job *j = arg;
    j->rc = refresh(w, j->err, sizeof j->err);
}

static void refresh_done(srv *s, srv_world *w, void *arg)
{
    refresh_job *j = arg;
    if (!s->stopping && !w->closed && !w->play->dropped) {
        srv_play *p = w->play;
        if (j->rc) p->paused = 1;
        /* Caught up with the world: a live timeline waits for its next commits and follows it,
         * never passing it; a recording played to its end stops. */
        p->starved = !j->rc && !p->paused && p->sess.end_tick <= j->end;
        if (j->rc) srv_log(s, SRV_LOG_WARN, "a timeline of world %u paused: %s", p->of, j->err);
        srv_world_rebase(w);
        srv_tick_kick(s);
        run_waiting(s, w);
    }
    free(j);
}

static void refresh_start(srv *s, srv_world *w)
{
    refresh_job *j = calloc(1, sizeof *j);
    if (j) j->end = w->play->sess.end_tick;
    if (!j || srv_world_job(s, w, refresh_work, refresh_done, j) != 0) {
        free(j);
        w->play->paused = 1;
    }
}
