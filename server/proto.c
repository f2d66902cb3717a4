/* proto.c — the client-to-server messages of docs/PROTOCOL.md: one handler each, and one table
 * of {type, handler, least role} rows (srv_handlers, in the manner of Redis's command table), so
 * that every role check is made in one place, srv_handle_message. Every malformed message gets an
 * `error` with a stable code and a sentence; the client's error budget (SRV_MAX_ERRORS) ends in a
 * disconnect. Nothing here can stall the loop or the ticks. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "network.h"

static const char *const role_names[] = { "none", "viewer", "player", "admin" };

_Static_assert(SRV_LAT_BUCKETS + 1 == WIRE_LATE_BUCKETS, "stats' late_hist and work_hist are sched.c's");

/* Constant-time comparison of a presented token with a configured one. */
static int token_eq(const char *have, size_t n, const char *want)
{
    size_t wl = strlen(want);
    unsigned diff = (unsigned)(n ^ wl);
    for (size_t i = 0; i < n; i++) diff |= (unsigned)(uint8_t)have[i] ^ (unsigned)(uint8_t)want[i % (wl ? wl : 1)];
    return wl > 0 && diff == 0;
}

static void reply_send(srv_client *c, wire_buf *b)
{
    srv_client_send_buf(c, b);
    wire_buf_free(b);
}

/* A hosted world as its entry map describes it. */
static void describe(const srv_world *w, wire_world *out, wire_play *play)
{
    memset(out, 0, sizeof *out);
    out->id = w->id;
    out->kind = w->kind;
    out->seed = w->seed;
    out->params = w->params;
    out->tick = srv_world_tick(w);
    out->w = w->fw;
    out->h = w->fh;
    if (srv_play_info(w, play)) out->play = play;
}

/* Report a field problem: -1 missing, -2 wrong type/range. */
static void field_error(srv_client *c, int rc, const char *field, const char *want,
                        const int64_t *seq)
{
    char msg[160];
    if (rc == -1) {
        snprintf(msg, sizeof msg, "missing field '%s' (%s)", field, want);
        srv_client_error(c, "missing_field", msg, seq);
    } else {
        snprintf(msg, sizeof msg, "field '%s' must be %s", field, want);
        srv_client_error(c, "bad_field", msg, seq);
    }
}

static int get_world(srv_client *c, const wire_msg *m, srv_world **out, const int64_t *seq)
{
    uint64_t id;
    int rc = wire_get_u64(m, "world", &id);
    if (rc) {
        field_error(c, rc, "world", "a world id", seq);
        return -1;
    }
    srv_world *w = id <= UINT32_MAX ? srv_world_find(c->s, (uint32_t)id) : NULL;
    if (!w) {
        char msg[96];
        snprintf(msg, sizeof msg, "no world %" PRIu64 " on this server", id);
        srv_client_error(c, "unknown_world", msg, seq);
        return -1;
    }
    *out = w;
    return 0;
}

static void on_hello(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv *s = c->s;
    if (c->role != SRV_ROLE_NONE) {
        srv_client_error(c, "hello_twice", "hello was already accepted on this connection", NULL);
        return;
    }
    uint64_t v;
    int rc = wire_get_u64(m, "v", &v);
    if (rc) { field_error(c, rc, "v", "protocol version 1", NULL); return; }
    if (v != 1) {
        srv_client_error(c, "bad_version", "this server speaks protocol version 1", NULL);
        return;
    }
    const char *name, *token = NULL;
    size_t nlen, tlen = 0;
    rc = wire_get_str(m, "name", &name, &nlen);
    if (rc) { field_error(c, rc, "name", "a string", NULL); return; }
    if (nlen == 0 || nlen >= sizeof c->name) { field_error(c, -2, "name", "a string of 1..63 bytes", NULL); return; }
    rc = wire_get_str(m, "token", &token, &tlen);
    if (rc == -2) { field_error(c, rc, "token", "a string", NULL); return; }
    int role = SRV_ROLE_VIEWER;
    if (token && tlen) {
        if (srv_guess_hello_admit(c) != 0) return;      /* too many wrong ones from its address */
        if (token_eq(token, tlen, s->cfg.admin_token)) {
            role = SRV_ROLE_ADMIN;
            srv_guess_hello_admin(c);
        } else if (token_eq(token, tlen, s->cfg.player_token)) {
            role = SRV_ROLE_PLAYER;
        } else {
            srv_guess_hello_failed(c);                  /* bad_token, later (server/guess.c) */
            return;
        }
    }
    for (size_t i = 0; i < nlen; i++)                 /* keep log lines printable */
        c->name[i] = (name[i] >= 32 && name[i] < 127) ? name[i] : '?';
    c->name[nlen] = '\0';
    c->role = role;
    if (token && tlen < sizeof c->token) {       /* forwarded with its messages to other members */
        memcpy(c->token, token, tlen);
        c->token[tlen] = '\0';
    }
    srv_log(s, c->tr->proxied ? SRV_LOG_DEBUG : SRV_LOG_INFO, "client %u '%s' from %s is a %s",
            c->id, c->name, c->peer, role_names[role]);
    wire_world worlds[SRV_MAX_WORLDS];
    wire_play plays[SRV_MAX_WORLDS];
    for (int i = 0; i < s->nworlds; i++) describe(s->worlds[i], &worlds[i], &plays[i]);
    /* In a cluster: every other member's worlds too, as their nodes describe them. */
    wire_raw *more = NULL;
    int nmore = 0;
    if (s->net->hooks.entries && !c->tr->proxied) nmore = s->net->hooks.entries(c, &more);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_welcome_raw(&b, "vivd/" SRV_VERSION, role_names[role], c->id, worlds, s->nworlds, more, nmore);
    free(more);
    reply_send(c, &b);
}

int srv_sub_read(srv_client *c, const wire_msg *m, const sim_kind *kind, srv_sub_req *out)
{
    uint64_t every = 1;
    int rc = wire_get_u64(m, "every", &every);
    if (rc == -2 || every < 1 || every > 3600) { field_error(c, -2, "every", "an integer in 1..3600", NULL); return -1; }
    uint64_t div = 1;
    rc = wire_get_u64(m, "div", &div);
    if (rc == -2 || div < 1 || div > SRV_MAX_DIV) { field_error(c, -2, "div", "an integer in 1..8", NULL); return -1; }
    int enc = SRV_ENC_TILEZ;
    const char *s;
    size_t n;
    rc = wire_get_str(m, "enc", &s, &n);
    if (rc == -2) { field_error(c, rc, "enc", "\"tile.zst\", \"tile\" or \"raw\"", NULL); return -1; }
    if (rc == 0) {
        if (wire_str_eq((const uint8_t *)s, n, "raw")) enc = SRV_ENC_RAW;
        else if (wire_str_eq((const uint8_t *)s, n, "tile")) enc = SRV_ENC_TILE;
        else if (!wire_str_eq((const uint8_t *)s, n, "tile.zst"))
            { field_error(c, -2, "enc", "\"tile.zst\", \"tile\" or \"raw\"", NULL); return -1; }
    }
    int view = 0;
    rc = wire_get_str(m, "view", &s, &n);
    if (rc == -2) { field_error(c, rc, "view", "a view name", NULL); return -1; }
    if (rc == 0) {
        view = -1;
        for (int v = 0; v < kind->nviews; v++)
            if (wire_str_eq((const uint8_t *)s, n, kind->views[v])) view = v;
        if (view < 0) {
            char msg[160];
            int k = snprintf(msg, sizeof msg, "%s has no view '%.*s' (views:", kind->name,
                             (int)(n > 32 ? 32 : n), s);
            for (int v = 0; v < kind->nviews && k > 0 && (size_t)k < sizeof msg; v++)
                k += snprintf(msg + k, sizeof msg - (size_t)k, " %s", kind->views[v]);
            if (k > 0 && (size_t)k < sizeof msg - 1) strcat(msg, ")");
            srv_client_error(c, "bad_field", msg, NULL);
            return -1;
        }
    }
    int events = 0;
    rc = wire_get_bool(m, "events", &events);
    if (rc == -2) { field_error(c, rc, "events", "true or false", NULL); return -1; }
    int32_t rect[4] = { 0, 0, 0, 0 };
    int nrect = 0;
    rc = wire_get_i32_array(m, "rect", rect, 4, &nrect);
    if (rc == -2 || (rc == 0 && (nrect != 4 || rect[2] < 1 || rect[3] < 1 || rect[0] < -SRV_RECT_MAX ||
                                 rect[0] > SRV_RECT_MAX || rect[1] < -SRV_RECT_MAX ||
                                 rect[1] > SRV_RECT_MAX || rect[2] > SRV_RECT_MAX || rect[3] > SRV_RECT_MAX))) {
        field_error(c, -2, "rect", "[x, y, w, h] in world pixels: w and h at least 1, each within "
                    "±65536", NULL);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->events = events;
    out->k.view = view;
    out->k.every = (uint32_t)every;
    out->k.div = (uint32_t)div;
    out->k.enc = enc;
    out->k.rx = rect[0];
    out->k.ry = rect[1];
    out->k.rw = rc == 0 ? rect[2] : 0;
    out->k.rh = rc == 0 ? rect[3] : 0;
    return 0;
}

srv_sub *srv_sub_slot(srv_client *c, const srv_world *w, const struct srv_rworld *remote)
{
    srv_sub *slot = NULL;
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if ((w && c->subs[i].world == w) || (remote && c->subs[i].remote == remote)) {
            srv_sub_drop(c, &c->subs[i]);          /* re-subscribing replaces the old one */
            slot = &c->subs[i];
        }
    for (int i = 0; i < SRV_MAX_SUBS && !slot; i++)
        if (!srv_sub_used(&c->subs[i])) slot = &c->subs[i];
    if (!slot)
        srv_client_error(c, "too_many_subs", "a client may watch at most 8 worlds at once", NULL);
    return slot;
}

void srv_send_too_many_streams(srv_client *c)
{
    srv_client_error(c, "too_many_streams",
                     "this world already serves " SRV_STR(SRV_MAX_STREAMS) " (view, every, div, enc, rect) "
                     "combinations", NULL);
}

static void on_sub(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w = NULL;
    if (get_world(c, m, &w, NULL)) return;
    srv_sub_req req;
    if (srv_sub_read(c, m, w->kind, &req)) return;
    srv_sub *slot = srv_sub_slot(c, w, NULL);
    if (!slot) return;
    srv_rect_align(&req.k, w->fw, w->fh);
    int st = srv_stream_find(w, &req.k);
    if (st < 0) {
        srv_send_too_many_streams(c);
        return;
    }
    memset(slot, 0, sizeof *slot);
    slot->world = w;
    slot->client = c;
    slot->stream = st;
    slot->need_key = 1;
    slot->events = req.events;
    srv_stream_attach(w, slot);
    srv_client_offload(c);
    /* A paused picture at once; a seeking one shows its landing frame when it lands. */
    if (srv_world_shows_paused(w)) srv_fanout_tick(c->s, w);
}

static void on_play(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    const char *op;
    size_t oplen;
    int rc = wire_get_str(m, "op", &op, &oplen);
    if (rc) { field_error(c, rc, "op", "pause, resume, step, seek or speed", NULL); return; }
    uint64_t tick = 0, speed = 100;
    if (wire_str_eq((const uint8_t *)op, oplen, "seek")) {
        rc = wire_get_u64(m, "tick", &tick);
        if (rc) { field_error(c, rc, "tick", "the tick to seek to", NULL); return; }
    }
    if (wire_str_eq((const uint8_t *)op, oplen, "speed")) {
        rc = wire_get_u64(m, "speed", &speed);
        if (rc || speed > 1000) { field_error(c, rc ? rc : -2, "speed", "a percentage, 10..1000", NULL); return; }
    }
    char err[256];
    rc = srv_play_control(c->s, w, op, oplen, tick, (int)speed, c->id, err, sizeof err);
    if (rc == 1) return;              /* a seek, or an op waiting for one: answered later */
    srv_send_playing(c, w, rc, err);
}

void srv_send_playing(srv_client *c, srv_world *w, int rc, const char *err)
{
    if (rc == SRV_EBUSY) {
        srv_client_notice(c, "world_busy", err, NULL);
        return;
    }
    if (rc != 0) {
        srv_client_error(c, rc == SRV_ENOTREC ? "not_a_recording" : "bad_field", err, NULL);
        return;
    }
    wire_play p;
    srv_play_info(w, &p);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_playing(&b, w->id, srv_world_tick(w), &p);
    reply_send(c, &b);
}

static void on_unsub(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w = NULL;
    if (get_world(c, m, &w, NULL)) return;
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if (c->subs[i].world == w) {
            srv_sub_drop(c, &c->subs[i]);
            return;
        }
    srv_client_error(c, "not_subscribed", "this connection does not watch that world", NULL);
}

/* The answer to an input the host refused (rc: its SRV_E… code; err: its sentence, if any).
 * Refusals that are the server's doing (busy, out of memory, a failing log, a full queue) are
 * notices: they do not count toward the client's error budget. */
static void input_refused(srv_client *c, int rc, const char *err, const int64_t *seqp)
{
    switch (rc) {
    case SRV_EPLAY:
        srv_client_error(c, "forbidden", "this world is a recording, played back read-only: use "
                         "the play message to pause, step, seek or change its speed", seqp);
        break;
    case SRV_EBUSY:
        srv_client_notice(c, "world_busy", "the world is busy off the loop; try again", seqp);
        break;
    case SRV_ELOG:
        srv_client_notice(c, "log_unavailable", "the replay log cannot be written (disk full or I/O "
                          "error); inputs are refused until it can, so nothing unlogged is applied", seqp);
        break;
    case SRV_ENOMEM:
        srv_client_notice(c, "world_busy", "out of memory queueing the input; nothing was applied", seqp);
        break;
    case SRV_EFULL:
        srv_client_notice(c, "world_busy", err, seqp);
        break;
    case SRV_EDUP:
        srv_client_error(c, "dup_seq", err, seqp);
        break;
    default:
        srv_client_error(c, "bad_input", err, seqp);
        break;
    }
}

/* Queue input m for w: 0, or -1 refused (the error sent). */
static int input_take(srv_client *c, const wire_msg *m, srv_world *w, const int64_t *seqp)
{
    /* The host's refusals first: a recording, a world a worker holds, a log that cannot be
     * written (nothing unlogged is ever applied). */
    int rc = srv_world_takes_inputs(c->s, w);
    if (rc) {
        input_refused(c, rc, NULL, seqp);
        return -1;
    }
    const char *kname;
    size_t klen;
    rc = wire_get_str(m, "kind", &kname, &klen);
    if (rc) { field_error(c, rc, "kind", "an input name", seqp); return -1; }
    sim_input in;
    memset(&in, 0, sizeof in);
    int ki = -1;
    for (int i = 0; i < w->kind->ninputs; i++)
        if (wire_str_eq((const uint8_t *)kname, klen, w->kind->inputs[i].name)) ki = i;
    if (ki < 0) {
        char msg[200];
        int k = snprintf(msg, sizeof msg, "%s has no input '%.*s' (inputs:", w->kind->name,
                         (int)(klen > 32 ? 32 : klen), kname);
        for (int i = 0; i < w->kind->ninputs && k > 0 && (size_t)k < sizeof msg; i++)
            k += snprintf(msg + k, sizeof msg - (size_t)k, " %s", w->kind->inputs[i].name);
        if (k > 0 && (size_t)k < sizeof msg - 1) strcat(msg, ")");
        srv_client_error(c, "unknown_input", msg, seqp);
        return -1;
    }
    int nargs = 0;
    rc = wire_get_i32_array(m, "args", in.args, SIM_INPUT_MAX_ARGS, &nargs);
    if (rc) { field_error(c, rc, "args", "an array of at most 8 32-bit integers", seqp); return -1; }
    /* The limit is per tick of the world addressed: inputs queued for its next tick. */
    uint64_t tick = srv_world_tick(w);
    if (c->input_world != w->id || c->input_tick != tick) {
        c->input_world = w->id;
        c->input_tick = tick;
        c->inputs_this_tick = 0;
    }
    if (c->inputs_this_tick >= SRV_INPUTS_PER_TICK) {
        srv_client_notice(c, "rate_limited", "more than 32 inputs for one tick; slow down", seqp);
        return -1;
    }
    in.kind = (uint16_t)ki;
    in.nargs = (uint16_t)nargs;
    in.tick = tick;
    in.client = c->id;
    in.seq = (uint32_t)*seqp;
    char err[256];
    rc = srv_world_input(c->s, w, &in, err, sizeof err);   /* room for its ack first */
    if (rc) {
        input_refused(c, rc, err, seqp);
        return -1;
    }
    c->inputs_this_tick++;
    return 0;
}

static void on_input(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w;
    if (get_world(c, m, &w, seqp)) return;
    if (input_take(c, m, w, seqp)) w->netc.inputs_refused++;
}

void srv_send_ack(srv_client *c, uint32_t seq, uint64_t tick)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_ack(&b, seq, tick);
    reply_send(c, &b);
}

static void on_create(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv *s = c->s;
    const char *kind, *params = "";
    size_t klen, plen = 0;
    int rc = wire_get_str(m, "kind", &kind, &klen);
    if (rc) { field_error(c, rc, "kind", "a world kind", NULL); return; }
    uint64_t seed = 1;
    rc = wire_get_u64(m, "seed", &seed);
    if (rc == -2) { field_error(c, rc, "seed", "a non-negative integer", NULL); return; }
    rc = wire_get_str(m, "params", &params, &plen);
    if (rc == -2) { field_error(c, rc, "params", "key=value,... text", NULL); return; }
    char kbuf[64], pbuf[SIM_PARAMS_MAX], err[256] = "";
    if (klen >= sizeof kbuf || plen >= sizeof pbuf) { field_error(c, -2, klen >= sizeof kbuf ? "kind" : "params", "shorter", NULL); return; }
    memcpy(kbuf, kind, klen);
    kbuf[klen] = '\0';
    memcpy(pbuf, params, plen);
    pbuf[plen] = '\0';
    /* In a cluster, the world goes to the node with the fewest worlds, or the one named. A
     * create proxied from another member was placed there: it is built here. */
    const char *node = NULL;
    size_t nodelen = 0;
    rc = wire_get_str(m, "node", &node, &nodelen);
    if (rc == -2) { field_error(c, rc, "node", "a node's name", NULL); return; }
    if (s->net->hooks.place) {
        if (s->net->hooks.place(c, rc == 0 ? node : NULL, nodelen)) return;   /* placed elsewhere */
    } else if (rc == 0) {
        srv_client_error(c, "unknown_node", "this vivd is not in a cluster (--cluster): create "
                         "without 'node'", NULL);
        return;
    }
    /* Built off the loop: `created` (or the error) comes when the world is ready. */
    int rc2 = srv_world_create_async(s, kbuf, seed, pbuf, c->id, err, sizeof err);
    if (rc2 < 0) srv_send_created(c, NULL, rc2, err);
}

void srv_send_created(srv_client *c, srv_world *w, int rc, const char *err)
{
    if (!w) {
        srv_client_error(c, rc == SRV_EKIND ? "bad_kind"
                            : rc == SRV_EPARAM || rc == SRV_EFILE ? "bad_params"
                            : rc == SRV_ELIMIT ? "world_limit" : "internal", err, NULL);
        return;
    }
    wire_world ww;
    wire_play wp;
    describe(w, &ww, &wp);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_created(&b, &ww);
    reply_send(c, &b);
}

/* A fork: answered `forked` once the world is hosted (a replay to the tick runs on a worker), or
 * an error, now or then. */
static void on_fork(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    uint64_t tick;
    int rc = wire_get_u64(m, "tick", &tick);
    if (rc) { field_error(c, rc, "tick", "the tick to fork at", NULL); return; }
    char err[512];
    const char *code = "bad_field";
    if (srv_world_fork_async(c->s, w, tick, c->id, &code, err, sizeof err) != 0)
        srv_send_forked(c, NULL, w->id, tick, code, err);
}

void srv_send_forked(srv_client *c, srv_world *w, uint32_t from, uint64_t tick, const char *code,
                     const char *err)
{
    if (!w) {
        srv_client_error(c, code, err, NULL);
        return;
    }
    wire_world ww;
    wire_play wp;
    describe(w, &ww, &wp);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_forked(&b, &ww, from, tick);
    reply_send(c, &b);
}

void srv_send_opened(srv_client *c, srv_world *w, const char *code, const char *err)
{
    if (!w) {
        srv_client_notice(c, code, err, NULL);
        return;
    }
    wire_world ww;
    wire_play wp;
    describe(w, &ww, &wp);
    wire_buf b;
    wire_buf_init(&b);
    if (ww.play) wire_msg_opened(&b, &ww, ww.play->session, ww.play->file);
    else wire_msg_opened(&b, &ww, w->rec.session, c->s->db_path ? c->s->db_path : "");
    reply_send(c, &b);
}

static void on_close(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    uint32_t id = w->id;
    int watching = 0;
    for (int i = 0; i < SRV_MAX_SUBS; i++) watching |= c->subs[i].world == w;
    srv_world_close(c->s, w);
    if (!watching) {              /* subscribers were told by srv_world_close */
        wire_buf b;
        wire_buf_init(&b);
        wire_msg_closed(&b, id);
        reply_send(c, &b);
    }
}

static void on_ping(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    const wire_val *n = wire_msg_get(m, "n");
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_pong(&b, n ? n->raw : NULL, n ? n->rawlen : 0);   /* echoed byte for byte */
    reply_send(c, &b);
}

static void on_stats(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    srv *s = c->s;
    uv_rusage_t ru;
    uv_getrusage(&ru);
    size_t qsum = 0, qmax = 0;
    for (srv_client *k = s->net->clients; k; k = k->next) {
        size_t q = srv_client_queued(k);
        qsum += q;
        if (q > qmax) qmax = q;
    }
    wire_stats st;
    st.clients = (uint64_t)s->net->nclients;
    st.queued_bytes = qsum;
    st.queued_max = qmax;
    st.frames_sent = s->net->frames_sent;
    st.bytes_sent = s->net->bytes_sent;
    st.frames_skipped = s->net->msgs_dropped;
    st.cpu_user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
    st.cpu_sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    wire_world_stats ws[SRV_MAX_WORLDS];
    for (int i = 0; i < s->nworlds; i++) {
        const srv_world *w = s->worlds[i];
        ws[i].id = w->id;
        ws[i].tick = srv_world_tick(w);
        ws[i].ticks = w->stats.ticks;
        ws[i].late_p50_us = srv_time_pct(&w->stats.late, 50);
        ws[i].late_p99_us = srv_time_pct(&w->stats.late, 99);
        ws[i].late_max_us = w->stats.late.max_us;
        ws[i].work_p50_us = srv_time_pct(&w->stats.work, 50);
        ws[i].work_p99_us = srv_time_pct(&w->stats.work, 99);
        ws[i].work_max_us = w->stats.work.max_us;
        ws[i].overruns = w->stats.overruns;
        ws[i].skipped = w->stats.skipped;
        ws[i].subs = (uint64_t)srv_fanout_subs(w);
        ws[i].late_hist = w->stats.late.b;
        ws[i].work_hist = w->stats.work.b;
    }
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_stats(&b, &st, ws, s->nworlds);
    reply_send(c, &b);
}

/* The handler table: every message type a client may send, the least role it needs, the
 * sentence of the `forbidden` error below that role, whether it needs a seq, and how it routes
 * when another member of a cluster hosts the world it names (SRV_ROUTE_…: forwarded to that
 * member, or watched here through its stream). hello is the only type allowed before hello;
 * every other one then gets `hello_first`. */
const srv_handler srv_handlers[] = {
    { "hello",  on_hello,  SRV_ROLE_NONE,   NULL, 0, 0, SRV_ROUTE_NONE },
    { "sub",    on_sub,    SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_WATCH },
    { "unsub",  on_unsub,  SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_UNWATCH },
    { "input",  on_input,  SRV_ROLE_PLAYER, "inputs need the player or admin token in hello", 1, 1, SRV_ROUTE_OWNER },
    { "ping",   on_ping,   SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },
    { "create", on_create, SRV_ROLE_ADMIN,  "create needs the admin token in hello", 0, 0, SRV_ROUTE_NONE },
    { "close",  on_close,  SRV_ROLE_ADMIN,  "close needs the admin token in hello", 0, 0, SRV_ROUTE_OWNER },
    { "stats",  on_stats,  SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },
    { "play",   on_play,   SRV_ROLE_PLAYER, "play controls need the player or admin token in hello", 0, 0, SRV_ROUTE_OWNER },
    { "fork",   on_fork,   SRV_ROLE_PLAYER, "fork needs the player or admin token in hello", 0, 0, SRV_ROUTE_OWNER },
    { "sessions", srv_on_sessions, SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },   /* server/replay_stream.c */
    { "replay",   srv_on_replay,   SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },
    { "timeline", srv_on_timeline, SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },   /* server/timeline.c */
    { "open",     srv_on_open,     SRV_ROLE_VIEWER, NULL, 0, 0, SRV_ROUTE_NONE },   /* server/replay_stream.c */
};
const int srv_nhandlers = (int)(sizeof srv_handlers / sizeof srv_handlers[0]);

const srv_handler *srv_handler_find(const uint8_t *type, size_t len)
{
    for (int i = 0; i < srv_nhandlers; i++)
        if (wire_str_eq(type, len, srv_handlers[i].type)) return &srv_handlers[i];
    return NULL;
}

void srv_handle_message(srv_client *c, const uint8_t *body, size_t len)
{
    wire_msg m;
    int rc = wire_msg_decode(body, len, &m);
    if (rc) {
        char msg[128];
        snprintf(msg, sizeof msg, "message is not valid: %s", sim_strerror(rc));
        srv_client_error(c, rc == WIRE_ENOTMAP ? "not_map" : "bad_msgpack", msg, NULL);
        return;
    }
    /* A seq, when present and valid, is echoed on every error about the message. */
    uint64_t seqv;
    int64_t seq;
    const int64_t *seqp = NULL;
    if (wire_get_u64(&m, "seq", &seqv) == 0 && seqv <= UINT32_MAX) {
        seq = (int64_t)seqv;
        seqp = &seq;
    }
    const char *t;
    size_t tl;
    rc = wire_get_str(&m, "t", &t, &tl);
    if (rc) { field_error(c, rc, "t", "the message type, a string", seqp); return; }
    const srv_handler *h = srv_handler_find((const uint8_t *)t, tl);
    /* The role checks, all of them: before hello only hello; then each row's least role. */
    if (c->role == SRV_ROLE_NONE && (!h || h->least_role > SRV_ROLE_NONE)) {
        srv_client_error(c, "hello_first", "the first message must be hello", seqp);
        return;
    }
    if (!h) {
        char msg[96];
        snprintf(msg, sizeof msg, "unknown message type '%.*s'", (int)(tl > 32 ? 32 : tl), t);
        srv_client_error(c, "unknown_type", msg, seqp);
        return;
    }
    if (c->role < h->least_role) {
        srv_client_error(c, "forbidden", h->forbidden, h->forbidden_seq ? seqp : NULL);
        return;
    }
    if (h->needs_seq && !seqp) {
        uint64_t v;
        field_error(c, wire_get_u64(&m, "seq", &v) == -1 ? -1 : -2, "seq", "an integer in 0..2^32-1", NULL);
        return;
    }
    c->cur_body = body;                /* a message for another member goes there as it came */
    c->cur_len = len;
    /* Routed once, here: a world another member hosts is its business (the layer above). */
    const srv_net_hooks *hk = &c->s->net->hooks;
    if (!(h->route && hk->route && hk->route(c, h->route, &m, h->needs_seq ? seqp : NULL)))
        h->fn(c, &m, seqp);
    c->cur_body = NULL;
    c->cur_len = 0;
}
