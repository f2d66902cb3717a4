/* replay_stream.c — the read-only messages that hand recordings to clients (docs/PROTOCOL.md,
 * "sessions" and "replay"): the sessions of the files vivd records to and plays, and one session
 * streamed whole — its kind, seed and params, the checkpoints a replay starts from, every logged
 * input and the recorded state and frame hash of every tick — so that a client (the page, in
 * WebAssembly) can replay it and check every hash itself, as `viv replay verify` does.
 *
 * The loop never reads the file. Each message is built on a thread of libuv's pool (uv_queue_work)
 * from the stream's own read-only connection, one bounded piece at a time (at most
 * RS_TICKS_PER_CHUNK ticks, RS_INPUTS_PER_CHUNK inputs or RS_STATE_PIECE bytes of a state), and
 * handed to the client on the loop. The next piece is read only once the client's queued output
 * is below RS_LOW_WATER: a client that stops reading stops its stream (its queue stays far below
 * the soft limit of frames), and one that goes away ends it. A stream names its client by id,
 * never by pointer: the client may be gone by the time a read finishes.
 *
 * Damage is the file's, and said as `viv replay verify` says it, at the same place: the stream
 * carries the data as recorded up to the point where verify, checking span by span between
 * checkpoints, would stop, then a replay_damage message, and nothing more. So a client replaying
 * it reaches verify's verdict: diverged if a tick before that point differs, else damaged. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "read.h"
#include "network.h"

#define RS_MAX_ACTIVE 4             /* streams at once, server-wide: each reads on the pool */
#define RS_TICKS_PER_CHUNK 1024     /* rows of hashes in one replay_ticks (16 KiB of them) */
#define RS_INPUTS_PER_CHUNK 2048    /* a chunk ends at the first tick past this many inputs */
#define RS_STATE_PIECE (128u * 1024u)   /* bytes of a checkpoint in one replay_state */
#define RS_LOW_WATER (64u * 1024u)  /* read the next piece when the client holds less than this */
#define RS_WAIT_MIN_MS 2            /* then look again after this, doubling... */
#define RS_WAIT_MAX_MS 20           /* ...up to this, while the client does not read */
#define RS_SESSIONS_PER_FILE 256    /* `sessions` lists the newest of each file */
#define RS_SESSIONS_MAX 1024        /* and at most this many in all */
#define RS_FILES_MAX (SRV_MAX_WORLDS + 1)

enum { RS_SESSIONS, RS_REPLAY };
enum { RS_OPEN, RS_SPAN, RS_STATE, RS_TICKS, RS_DAMAGE, RS_END, RS_DONE };

typedef struct srv_rstream srv_rstream;
struct srv_rstream {
    uv_work_t work;
    uv_timer_t timer;
    srv *s;
    srv_rstream *next;
    uint32_t client;           /* by id: srv_client_by_id says whether it is still there */
    int what;                  /* RS_SESSIONS or RS_REPLAY */
    unsigned wait_ms;
    /* The request, copied on the loop: the files (sessions) or the file and session (replay). */
    char *files[RS_FILES_MAX];
    int recording[RS_FILES_MAX];
    size_t nfiles;
    int64_t session;
    /* Touched by the pool thread only while a read is in flight, by the loop only between. */
    rpl_file *f;
    rpl_session sess;
    rpl_plan plan;
    uint64_t *cps;             /* every checkpoint tick of the session, ascending */
    size_t ncps;
    sim_world *check;          /* the session's world at the last checkpoint: checks input rows */
    size_t span, skipped_sent;
    uint64_t pos;              /* the next step to send in the span */
    uint8_t *stored;           /* the span's checkpoint as the file stores it */
    size_t slen, soff;
    int phase;
    uint64_t damage_after;     /* RS_DAMAGE: the last tick whose row the stream carried */
    wire_buf out;              /* the message the pool built */
    const char *code;          /* an error reply instead of out (the stream ends), or NULL */
    int notice;                /* that error is the server's trouble, not the client's */
    char err[640];
};

/* ---- the pool side: one message per call ---------------------------------------------------------- */
static void fail(srv_rstream *r, const char *code, int notice, const char *msg)
{
    r->code = code;
    r->notice = notice;
    if (msg != r->err) snprintf(r->err, sizeof r->err, "%s", msg);
    r->phase = RS_DONE;
}

static void damage(srv_rstream *r, uint64_t after, const char *msg)
{
    if (msg != r->err) snprintf(r->err, sizeof r->err, "%s", msg);
    r->damage_after = after;
    r->phase = RS_DAMAGE;
}

static const char *status_of(const rpl_session *s)
{
    return s->running ? "running" : s->suspended ? "suspended" : "closed";
}

static void rec_session(const rpl_session *s, wire_rec_session *o)
{
    o->id = s->id;
    o->kind = s->kind;
    o->seed = s->seed;
    o->params = s->params;
    o->sim_version = s->sim_version;
    o->hz = s->hz;
    o->start = s->start_tick;
    o->end = s->end_tick;
    o->status = status_of(s);
    o->world = s->world;
}

static void build_sessions(srv_rstream *r)
{
    wire_rec_file files[RS_FILES_MAX];
    rpl_session *lists[RS_FILES_MAX];
    wire_rec_session *entries = calloc(RS_SESSIONS_MAX, sizeof *entries);
    char (*errs)[320] = calloc(RS_FILES_MAX, sizeof *errs);
    size_t used = 0;
    memset(lists, 0, sizeof lists);
    if (!entries || !errs) {
        fail(r, "replay_failed", 1, "out of memory listing the sessions");
        goto done;
    }
    for (size_t i = 0; i < r->nfiles; i++) {
        wire_rec_file *wf = &files[i];
        memset(wf, 0, sizeof *wf);
        wf->file = r->files[i];
        wf->recording = r->recording[i];
        wf->sessions = entries + used;
        rpl_file *f = NULL;
        size_t n = 0, room = RS_SESSIONS_MAX - used;
        int rc = rpl_open(r->files[i], RPL_READ, RPL_DUR_NORMAL, &f, errs[i], sizeof errs[i]);
        if (rc == 0)
            rc = rpl_sessions_recent(f, room < RS_SESSIONS_PER_FILE ? room : RS_SESSIONS_PER_FILE,
                                     &lists[i], &n, &wf->total, errs[i], sizeof errs[i]);
        rpl_close(f);
        if (rc != 0) {
            wf->error = errs[i];
            continue;
        }
        for (size_t k = 0; k < n; k++) rec_session(&lists[i][k], &entries[used + k]);
        wf->n = n;
        used += n;
    }
    wire_buf_reset(&r->out);
    srv_msg_reserve(&r->out);
    wire_msg_sessions(&r->out, files, r->nfiles);
    r->phase = RS_DONE;
done:
    for (size_t i = 0; i < RS_FILES_MAX; i++) free(lists[i]);
    free(entries);
    free(errs);
}

/* The first checkpoint tick after t, or UINT64_MAX. */
static uint64_t cp_after(const srv_rstream *r, uint64_t t)
{
    size_t lo = 0, hi = r->ncps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->cps[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->ncps ? r->cps[lo] : UINT64_MAX;
}

/* Session has a checkpoint at tick t. */
static int is_cp(const srv_rstream *r, uint64_t t)
{
    return t > 0 ? cp_after(r, t - 1) == t : r->ncps && r->cps[0] == 0;
}

static int step_open(srv_rstream *r)
{
    char err[512];
    int rc = rpl_open(r->files[0], RPL_READ, RPL_DUR_NORMAL, &r->f, err, sizeof err);
    if (rc == 0) rc = rpl_session_get(r->f, r->session, &r->sess, err, sizeof err);
    if (rc != 0) {
        fail(r, rc == RPL_ENOSESSION ? "unknown_session" : "replay_failed", rc != RPL_ENOSESSION, err);
        return 0;
    }
    if (!rpl_session_kind(r->f, &r->sess, NULL, 0, err, sizeof err)) {
        fail(r, "replay_failed", 1, err);
        return 0;
    }
    rc = rpl_plan_make(r->f, &r->sess, 0, UINT64_MAX, 0, &r->plan, err, sizeof err);
    if (rc == 0) rc = rpl_checkpoint_ticks(r->f, r->sess.id, 0, UINT64_MAX, &r->cps, &r->ncps, err, sizeof err);
    wire_rec_session ws;
    rec_session(&r->sess, &ws);
    srv_msg_reserve(&r->out);
    if (rc == RPL_ECORRUPT) {          /* damaged before any tick: the info, then the damage */
        wire_msg_replay_info(&r->out, r->files[0], &ws, 0, 0);
        damage(r, r->sess.start_tick, err);
        return 1;
    }
    if (rc != 0) {
        wire_buf_reset(&r->out);
        fail(r, "replay_failed", 1, err);
        return 0;
    }
    wire_msg_replay_info(&r->out, r->files[0], &ws, r->plan.ticks, (uint32_t)r->plan.nspans);
    r->span = 0;
    r->phase = r->plan.nspans ? RS_SPAN : RS_END;
    return 1;
}

/* The checkpoint at tick t, loaded into the check world, with the recorded row of t when there is
 * one: 0, or with r->err set: 1 damaged, -1 another failure. stored: also the blob as stored. */
static int checkpoint_at(srv_rstream *r, uint64_t t, rpl_checkpoint *cp, uint8_t **stored,
                         size_t *slen, rpl_tick_row *row, int *have_row)
{
    int rc = rpl_checkpoint_exact(r->f, &r->sess, t, cp, stored, slen, &r->check, row, have_row,
                                  r->err, sizeof r->err);
    return rc == 0 || rc == 1 ? rc : -1;
}

/* The plan's skipped ranges not sent yet that end by tick `upto`, as wire_gaps (pointing into the
 * plan; at most a few per span: a gap row takes a failing disk to make). NULL: out of memory. */
static wire_gap *skipped_until(srv_rstream *r, uint64_t upto, size_t *n)
{
    wire_gap *v = malloc((r->plan.nskipped + 1) * sizeof *v);
    *n = 0;
    while (v && r->skipped_sent < r->plan.nskipped && r->plan.skipped[r->skipped_sent].to <= upto) {
        const rpl_gap *g = &r->plan.skipped[r->skipped_sent++];
        v[(*n)++] = (wire_gap){ g->from, g->to, g->reason };
    }
    return v;
}

static int step_span(srv_rstream *r)
{
    const rpl_span *sp = &r->plan.spans[r->span];
    rpl_checkpoint cp;
    rpl_tick_row row;
    int have_row = 0;
    int rc = checkpoint_at(r, sp->start, &cp, &r->stored, &r->slen, &row, &have_row);
    if (rc != 0) {
        if (rc > 0) damage(r, sp->start, r->err);
        else fail(r, "replay_failed", 1, r->err);
        return 0;
    }
    /* The ranges no span covers, up to this one. */
    size_t ng;
    wire_gap *gaps = skipped_until(r, sp->start, &ng);
    if (!gaps) {
        rpl_checkpoint_free(&cp);
        fail(r, "replay_failed", 1, "out of memory");
        return 0;
    }
    uint64_t rowv[2] = { row.state_hash, row.frame_hash };
    srv_msg_reserve(&r->out);
    wire_msg_replay_span(&r->out, r->sess.id, (uint32_t)r->span, sp->start, sp->end, gaps, ng,
                         (uint32_t)r->slen, cp.hash, have_row ? rowv : NULL, have_row ? row.bits : 64);
    free(gaps);
    rpl_checkpoint_free(&cp);
    r->soff = 0;
    r->phase = RS_STATE;
    return 1;
}

static int step_state(srv_rstream *r)
{
    size_t n = r->slen - r->soff;
    if (n > RS_STATE_PIECE) n = RS_STATE_PIECE;
    srv_msg_reserve(&r->out);
    wire_msg_replay_state(&r->out, r->sess.id, (uint32_t)r->soff, r->stored + r->soff, n);
    r->soff += n;
    if (r->soff == r->slen) {
        free(r->stored);
        r->stored = NULL;
        r->pos = r->plan.spans[r->span].start;
        r->phase = RS_TICKS;
    }
    return 1;
}

/* The input rows of steps [from, to) must be ones the world at `from` could have consumed
 * (verify loads them so for each span between checkpoints). 0, 1 damaged, -1 failed (r->err). */
static int inputs_check(srv_rstream *r, uint64_t from, uint64_t to)
{
    return rpl_inputs_check(r->f, r->sess.id, from, to, r->check, r->err, sizeof r->err);
}

static int step_ticks(srv_rstream *r)
{
    const rpl_span *sp = &r->plan.spans[r->span];
    if (r->pos >= sp->end) {
        r->span++;
        r->phase = r->span < r->plan.nspans ? RS_SPAN : RS_END;
        return 0;
    }
    uint64_t next_cp = cp_after(r, r->pos);
    uint64_t piece_end = next_cp < sp->end ? next_cp : sp->end;   /* verify's span, between checkpoints */
    int rc;
    if (r->pos == sp->start || is_cp(r, r->pos)) {
        /* A checkpoint: where verify starts a span of its own, with the same checks. */
        if (r->pos != sp->start) {
            rpl_checkpoint cp;
            rpl_tick_row row;
            uint8_t *none = NULL;
            size_t nlen = 0;
            int have_row = 0;
            rc = checkpoint_at(r, r->pos, &cp, &none, &nlen, &row, &have_row);
            if (rc == 0) {
                rpl_checkpoint_free(&cp);
                free(none);
            }
            if (rc != 0) {
                if (rc > 0) damage(r, r->pos, r->err);
                else fail(r, "replay_failed", 1, r->err);
                return 0;
            }
        }
        if ((rc = inputs_check(r, r->pos, piece_end)) != 0) {
            if (rc > 0) damage(r, r->pos, r->err);
            else fail(r, "replay_failed", 1, r->err);
            return 0;
        }
    }
    uint64_t last = r->pos + RS_TICKS_PER_CHUNK;
    if (last > piece_end) last = piece_end;
    rpl_chunk ch;
    char err[512];
    if (rpl_chunk_load(r->f, &r->sess, r->pos, last, RS_INPUTS_PER_CHUNK, &ch, err, sizeof err) != 0) {
        fail(r, "replay_failed", 1, err);
        return 0;
    }
    if (ch.n > 0) {
        srv_msg_reserve(&r->out);
        wire_msg_replay_ticks(&r->out, r->sess.id, r->pos, ch.n, ch.sh, ch.fh, ch.bits, ch.in, ch.nin);
    }
    if (ch.missing) damage(r, ch.to, ch.damage);
    r->pos = ch.to;
    uint32_t n = ch.n;
    rpl_chunk_free(&ch);
    return n > 0;
}

static void step_end(srv_rstream *r)
{
    size_t ng;
    wire_gap *gaps = skipped_until(r, UINT64_MAX, &ng);
    if (!gaps) {
        fail(r, "replay_failed", 1, "out of memory");
        return;
    }
    uint64_t end_sh;
    int have_end = rpl_end_checkpoint_hash(r->f, &r->sess, &end_sh);
    srv_msg_reserve(&r->out);
    wire_msg_replay_end(&r->out, r->sess.id, gaps, ng, have_end ? &end_sh : NULL);
    free(gaps);
    r->phase = RS_DONE;
}

/* On the pool: the next message of the stream into r->out, or an error in r->code. */
static void rs_work(uv_work_t *req)
{
    srv_rstream *r = req->data;
    wire_buf_reset(&r->out);
    if (r->what == RS_SESSIONS) {
        build_sessions(r);
        return;
    }
    for (;;) {
        int made = 0;
        switch (r->phase) {
        case RS_OPEN: made = step_open(r); break;
        case RS_SPAN: made = step_span(r); break;
        case RS_STATE: made = step_state(r); break;
        case RS_TICKS: made = step_ticks(r); break;
        case RS_DAMAGE:
            srv_msg_reserve(&r->out);
            wire_msg_replay_damage(&r->out, r->sess.id, r->damage_after, r->err);
            r->phase = RS_DONE;
            made = 1;
            break;
        case RS_END: step_end(r); made = 1; break;
        default: return;
        }
        if (made || r->code) return;
    }
}

/* ---- the loop side ----------------------------------------------------------------------------------- */
static void rs_free(uv_handle_t *h)
{
    srv_rstream *r = h->data;
    rpl_close(r->f);
    rpl_plan_free(&r->plan);
    free(r->cps);
    sim_world_destroy(r->check);
    free(r->stored);
    wire_buf_free(&r->out);
    for (size_t i = 0; i < r->nfiles; i++) free(r->files[i]);
    free(r);
}

static void rs_finish(srv_rstream *r)
{
    srv_net *n = r->s->net;
    for (srv_rstream **p = &n->rstreams; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            n->nrstreams--;
            break;
        }
    uv_timer_stop(&r->timer);
    uv_close((uv_handle_t *)&r->timer, rs_free);
}

static srv_client *rs_client(srv_rstream *r)
{
    srv_client *c = srv_client_by_id(r->s, r->client);
    return c && !c->closing && !c->draining && !r->s->stopping ? c : NULL;
}

static void rs_after(uv_work_t *req, int status);
static void rs_pump(srv_rstream *r);

static void rs_wake(uv_timer_t *t) { rs_pump(t->data); }

/* Read the next piece if the client has taken what it was sent; else look again a little later
 * (a client that does not read is looked at less and less often, at most every RS_WAIT_MAX_MS). */
static void rs_pump(srv_rstream *r)
{
    srv_client *c = rs_client(r);
    if (!c) {
        rs_finish(r);
        return;
    }
    if (srv_client_queued(c) > RS_LOW_WATER) {
        uv_timer_start(&r->timer, rs_wake, r->wait_ms, 0);
        r->wait_ms = r->wait_ms * 2 > RS_WAIT_MAX_MS ? RS_WAIT_MAX_MS : r->wait_ms * 2;
        return;
    }
    r->wait_ms = RS_WAIT_MIN_MS;
    if (uv_queue_work(r->s->loop, &r->work, rs_work, rs_after) != 0) {
        srv_client_notice(c, "replay_failed", "the server cannot read the recording now", NULL);
        rs_finish(r);
    }
}

static void rs_after(uv_work_t *req, int status)
{
    srv_rstream *r = req->data;
    srv_client *c = status == 0 ? rs_client(r) : NULL;
    if (!c) {
        rs_finish(r);
        return;
    }
    if (!r->code && (r->out.oom || r->out.len > SRV_MSG_PRE + WIRE_MAX_SERVER_MSG))
        fail(r, "replay_failed", 1, r->out.oom ? "out of memory building the message"
                                                : "a message over the server's size limit");
    if (r->code) {
        (r->notice ? srv_client_notice : srv_client_error)(c, r->code, r->err, NULL);
        rs_finish(r);
        return;
    }
    if (r->out.len) srv_client_send_buf(c, &r->out);
    if (r->phase == RS_DONE) {
        rs_finish(r);
        return;
    }
    rs_pump(r);
}

/* ---- the handlers ------------------------------------------------------------------------------------ */
/* The files vivd records to (--db) and plays (--play), each once: 0.. of them in files. */
static size_t known_files(srv *s, const char **files, int *recording)
{
    size_t n = 0;
    if (s->db_path && s->rec) {
        files[n] = s->db_path;
        recording[n++] = 1;
    }
    for (int i = 0; i < s->nworlds && n < RS_FILES_MAX; i++) {
        wire_play p;
        if (!srv_play_info(s->worlds[i], &p)) continue;   /* not a recording */
        int seen = 0;
        for (size_t k = 0; k < n; k++) seen |= strcmp(files[k], p.file) == 0;
        if (!seen) {
            files[n] = p.file;
            recording[n++] = 0;
        }
    }
    return n;
}

/* A new stream for c, or NULL after an error reply: one at a time per connection, RS_MAX_ACTIVE in
 * all (each holds a thread of the pool while it reads). */
static srv_rstream *rs_new(srv_client *c, int what)
{
    srv_net *n = c->s->net;
    for (srv_rstream *r = n->rstreams; r; r = r->next)
        if (r->client == c->id) {
            srv_client_error(c, "replay_busy", "this connection is already being sent a recording or "
                             "a session list: wait for its end (replay_end, sessions or an error)", NULL);
            return NULL;
        }
    if (n->nrstreams >= RS_MAX_ACTIVE) {
        srv_client_notice(c, "replay_busy", "the server is sending 4 recordings already; try again "
                          "in a moment", NULL);
        return NULL;
    }
    srv_rstream *r = calloc(1, sizeof *r);
    if (!r) {
        srv_client_notice(c, "replay_failed", "out of memory", NULL);
        return NULL;
    }
    r->s = c->s;
    r->client = c->id;
    r->what = what;
    r->wait_ms = RS_WAIT_MIN_MS;
    r->work.data = r;
    r->timer.data = r;
    wire_buf_init(&r->out);
    uv_timer_init(c->s->loop, &r->timer);
    r->next = n->rstreams;
    n->rstreams = r;
    n->nrstreams++;
    return r;
}

static int rs_add_file(srv_rstream *r, const char *file, int recording)
{
    if (!(r->files[r->nfiles] = strdup(file))) return -1;
    r->recording[r->nfiles++] = recording;
    return 0;
}

void srv_on_sessions(srv_client *c, const wire_msg *m, const int64_t *seq)
{
    const char *files[RS_FILES_MAX];
    int recording[RS_FILES_MAX];
    size_t nf = known_files(c->s, files, recording);
    srv_rstream *r = rs_new(c, RS_SESSIONS);
    if (!r) return;
    for (size_t i = 0; i < nf; i++)
        if (rs_add_file(r, files[i], recording[i]) != 0) {
            srv_client_notice(c, "replay_failed", "out of memory", NULL);
            rs_finish(r);
            return;
        }
    rs_pump(r);
}

/* The session and file a `replay` or `open` names (file: the first known one when absent): 0 with
 * *session and *path (one of known_files), or -1 after the error reply. */
static int named_session(srv_client *c, const wire_msg *m, int64_t *session, const char **path,
                         int *recording)
{
    uint64_t sid;
    int rc = wire_get_u64(m, "session", &sid);
    if (rc == -1) {
        srv_client_error(c, "missing_field", "missing field 'session' (a session id of the file)", NULL);
        return -1;
    }
    if (rc != 0 || sid < 1 || sid > INT64_MAX) {
        srv_client_error(c, "bad_field", "field 'session' must be a session id, 1..2^63-1", NULL);
        return -1;
    }
    const char *want = NULL;
    size_t wlen = 0;
    rc = wire_get_str(m, "file", &want, &wlen);
    if (rc == -2) {
        srv_client_error(c, "bad_field", "field 'file' must be a string: a file `sessions` lists", NULL);
        return -1;
    }
    const char *files[RS_FILES_MAX];
    int rec[RS_FILES_MAX];
    size_t nf = known_files(c->s, files, rec), pick = nf;
    for (size_t i = 0; i < nf; i++)
        if (!want ? i == 0 : wire_str_eq((const uint8_t *)want, wlen, files[i])) {
            pick = i;
            break;
        }
    if (pick == nf) {
        char msg[600];
        int k;
        if (nf == 0)
            k = snprintf(msg, sizeof msg, "this vivd records nothing and plays no recording");
        else
            k = snprintf(msg, sizeof msg, "'%.*s' is not a file this vivd records to or plays (files:",
                         (int)(wlen > 200 ? 200 : wlen), want);
        for (size_t i = 0; nf && i < nf && k > 0 && (size_t)k < sizeof msg; i++)
            k += snprintf(msg + k, sizeof msg - (size_t)k, " %s", files[i]);
        if (nf && k > 0 && (size_t)k < sizeof msg - 1) strcat(msg, ")");
        srv_client_error(c, "unknown_file", msg, NULL);
        return -1;
    }
    *session = (int64_t)sid;
    *path = files[pick];
    *recording = rec[pick];
    return 0;
}

void srv_on_replay(srv_client *c, const wire_msg *m, const int64_t *seq)
{
    int64_t session;
    const char *path;
    int recording;
    if (named_session(c, m, &session, &path, &recording) != 0) return;
    srv_rstream *r = rs_new(c, RS_REPLAY);
    if (!r) return;
    r->session = session;
    if (rs_add_file(r, path, recording) != 0) {
        srv_client_notice(c, "replay_failed", "out of memory", NULL);
        rs_finish(r);
        return;
    }
    rs_pump(r);
}

/* `open`: a recorded session hosted as a read-only world for whoever watches it (play.c). */
void srv_on_open(srv_client *c, const wire_msg *m, const int64_t *seq)
{
    int64_t session;
    const char *path;
    int recording;
    if (named_session(c, m, &session, &path, &recording) != 0) return;
    srv_world *now = NULL;
    const char *code = "replay_failed";
    char err[512];
    if (srv_recording_open(c->s, path, session, c->id, &now, &code, err, sizeof err) != 0)
        srv_client_notice(c, code, err, NULL);
    else if (now)
        srv_send_opened(c, now, NULL, NULL);
}

/* Every scheduler sweep (a second): an opened recording that nobody has watched for a minute goes. */
void srv_recordings_sweep(srv *s)
{
    for (int i = s->nworlds; i-- > 0;) {
        srv_world *w = s->worlds[i];
        if (!srv_play_opened(w)) continue;
        int watched = 0;
        for (srv_client *c = s->net->clients; c && !watched; c = c->next)
            for (int k = 0; k < SRV_MAX_SUBS && !watched; k++) watched = c->subs[k].world == w;
        srv_recording_watched(s, w, watched);
    }
}
