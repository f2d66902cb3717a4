/* proto.c — the client-to-server messages of docs/PROTOCOL.md, one handler each. Every malformed
 * message gets an `error` with a stable code and a sentence; the client's error budget
 * (SRV_MAX_ERRORS) ends in a disconnect. Nothing here can stall the loop or the ticks. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "srv.h"

static const char *const role_names[] = { "none", "viewer", "player", "admin" };

/* Constant-time comparison of a presented token with a configured one. */
static int token_eq(const char *have, size_t n, const char *want)
{
    size_t wl = strlen(want);
    unsigned diff = (unsigned)(n ^ wl);
    for (size_t i = 0; i < n; i++) diff |= (unsigned)(uint8_t)have[i] ^ (unsigned)(uint8_t)want[i % (wl ? wl : 1)];
    return wl > 0 && diff == 0;
}

static void reply_begin(wire_buf *b, const char *t, uint32_t nfields)
{
    wire_buf_init(b);
    wire_msg_begin(b);
    wire_put_map(b, nfields + 1);
    wire_put_str(b, "t");
    wire_put_str(b, t);
}

static void reply_send(srv_client *c, wire_buf *b)
{
    wire_msg_end(b);
    srv_client_send_buf(c, b);
    wire_buf_free(b);
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

static void put_worlds(srv *s, wire_buf *b)
{
    wire_put_array(b, (uint32_t)s->nworlds);
    for (int i = 0; i < s->nworlds; i++) srv_world_describe(s, s->worlds[i], b);
}

static void on_hello(srv_client *c, const wire_msg *m)
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
        if (token_eq(token, tlen, s->cfg.admin_token)) role = SRV_ROLE_ADMIN;
        else if (token_eq(token, tlen, s->cfg.player_token)) role = SRV_ROLE_PLAYER;
        else {
            srv_client_error(c, "bad_token", "the token matches no role; omit it to watch", NULL);
            return;
        }
    }
    for (size_t i = 0; i < nlen; i++)                 /* keep log lines printable */
        c->name[i] = (name[i] >= 32 && name[i] < 127) ? name[i] : '?';
    c->name[nlen] = '\0';
    c->role = role;
    srv_log(s, SRV_LOG_INFO, "client %u '%s' from %s is a %s", c->id, c->name, c->peer, role_names[role]);
    wire_buf b;
    reply_begin(&b, "welcome", 5);
    wire_put_str(&b, "v"); wire_put_uint(&b, 1);
    wire_put_str(&b, "server"); wire_put_str(&b, "vivd/" SRV_VERSION);
    wire_put_str(&b, "role"); wire_put_str(&b, role_names[role]);
    wire_put_str(&b, "client"); wire_put_uint(&b, c->id);
    wire_put_str(&b, "worlds"); put_worlds(s, &b);
    reply_send(c, &b);
}

static void on_sub(srv_client *c, const wire_msg *m)
{
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    uint64_t every = 1;
    int rc = wire_get_u64(m, "every", &every);
    if (rc == -2 || every < 1 || every > 3600) { field_error(c, -2, "every", "an integer in 1..3600", NULL); return; }
    int enc = SRV_ENC_TILEZ;
    const char *s;
    size_t n;
    rc = wire_get_str(m, "enc", &s, &n);
    if (rc == -2) { field_error(c, rc, "enc", "\"tile.zst\", \"tile\" or \"raw\"", NULL); return; }
    if (rc == 0) {
        if (wire_str_eq((const uint8_t *)s, n, "raw")) enc = SRV_ENC_RAW;
        else if (wire_str_eq((const uint8_t *)s, n, "tile")) enc = SRV_ENC_TILE;
        else if (!wire_str_eq((const uint8_t *)s, n, "tile.zst"))
            { field_error(c, -2, "enc", "\"tile.zst\", \"tile\" or \"raw\"", NULL); return; }
    }
    int view = 0;
    rc = wire_get_str(m, "view", &s, &n);
    if (rc == -2) { field_error(c, rc, "view", "a view name", NULL); return; }
    if (rc == 0) {
        view = -1;
        for (int v = 0; v < w->kind->nviews; v++)
            if (wire_str_eq((const uint8_t *)s, n, w->kind->views[v])) view = v;
        if (view < 0) {
            char msg[160];
            int k = snprintf(msg, sizeof msg, "%s has no view '%.*s' (views:", w->kind->name,
                             (int)(n > 32 ? 32 : n), s);
            for (int v = 0; v < w->kind->nviews && k > 0 && (size_t)k < sizeof msg; v++)
                k += snprintf(msg + k, sizeof msg - (size_t)k, " %s", w->kind->views[v]);
            if (k > 0 && (size_t)k < sizeof msg - 1) strcat(msg, ")");
            srv_client_error(c, "bad_field", msg, NULL);
            return;
        }
    }
    srv_sub *slot = NULL;
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if (c->subs[i].world == w) {
            srv_sub_drop(c, &c->subs[i]);          /* re-subscribing replaces the old one */
            slot = &c->subs[i];
        }
    for (int i = 0; i < SRV_MAX_SUBS && !slot; i++)
        if (!c->subs[i].world) slot = &c->subs[i];
    if (!slot) {
        srv_client_error(c, "too_many_subs", "a client may watch at most 8 worlds at once", NULL);
        return;
    }
    int st = srv_stream_find(w, view, (uint32_t)every, enc);
    if (st < 0) {
        srv_client_error(c, "too_many_streams",
                         "this world already serves 16 (view, every, enc) combinations", NULL);
        return;
    }
    memset(slot, 0, sizeof *slot);
    slot->world = w;
    slot->client = c;
    slot->stream = st;
    slot->need_key = 1;
    srv_stream_attach(w, slot);
    if (w->play && srv_play_paused(w)) srv_fanout_tick(c->s, w);   /* a paused picture at once */
}

static void on_play(srv_client *c, const wire_msg *m)
{
    if (c->role < SRV_ROLE_PLAYER) {
        srv_client_error(c, "forbidden", "play controls need the player or admin token in hello", NULL);
        return;
    }
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
    if (srv_play_control(c->s, w, op, oplen, tick, (int)speed, err, sizeof err) != 0) {
        srv_client_error(c, w->play ? "bad_field" : "not_a_recording", err, NULL);
        return;
    }
    wire_buf b;
    reply_begin(&b, "playing", 3);
    wire_put_str(&b, "world"); wire_put_uint(&b, w->id);
    wire_put_str(&b, "tick"); wire_put_uint(&b, sim_world_tick(w->w));
    wire_put_str(&b, "play"); srv_play_describe(w, &b);
    reply_send(c, &b);
}

static void on_unsub(srv_client *c, const wire_msg *m)
{
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if (c->subs[i].world == w) {
            srv_sub_drop(c, &c->subs[i]);
            return;
        }
    srv_client_error(c, "not_subscribed", "this connection does not watch that world", NULL);
}

static void on_input(srv_client *c, const wire_msg *m, const int64_t *seqp)
{
    if (c->role < SRV_ROLE_PLAYER) {
        srv_client_error(c, "forbidden", "inputs need the player or admin token in hello", seqp);
        return;
    }
    if (!seqp) {
        uint64_t dummy;
        { field_error(c, wire_get_u64(m, "seq", &dummy) == -1 ? -1 : -2, "seq", "an integer in 0..2^32-1", NULL); return; }
    }
    srv_world *w;
    if (get_world(c, m, &w, seqp)) return;
    if (w->play) {
        srv_client_error(c, "forbidden", "this world is a recording, played back read-only: use "
                         "the play message to pause, step, seek or change its speed", seqp);
        return;
    }
    const char *kname;
    size_t klen;
    int rc = wire_get_str(m, "kind", &kname, &klen);
    if (rc) { field_error(c, rc, "kind", "an input name", seqp); return; }
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
        return;
    }
    int nargs = 0;
    rc = wire_get_i32_array(m, "args", in.args, SIM_INPUT_MAX_ARGS, &nargs);
    if (rc) { field_error(c, rc, "args", "an array of at most 8 32-bit integers", seqp); return; }
    /* The limit is per tick of the world addressed: inputs queued for its next tick. */
    if (c->input_world != w->id || c->input_tick != sim_world_tick(w->w)) {
        c->input_world = w->id;
        c->input_tick = sim_world_tick(w->w);
        c->inputs_this_tick = 0;
    }
    if (srv_record_failing(c->s)) {
        srv_client_notice(c, "log_unavailable", "the replay log cannot be written (disk full or I/O "
                          "error); inputs are refused until it can, so nothing unlogged is applied", seqp);
        return;
    }
    if (c->inputs_this_tick >= SRV_INPUTS_PER_TICK) {
        srv_client_notice(c, "rate_limited", "more than 32 inputs for one tick; slow down", seqp);
        return;
    }
    /* Room for its ack first: an input is applied only if it can also be logged. */
    if (w->ackhead > 0 && w->nacks == w->capacks) {
        memmove(w->acks, w->acks + w->ackhead, (w->nacks - w->ackhead) * sizeof *w->acks);
        w->nacks -= w->ackhead;
        w->ackhead = 0;
    }
    if (w->nacks == w->capacks) {
        size_t nc = w->capacks ? w->capacks * 2 : 64;
        srv_ack *na = realloc(w->acks, nc * sizeof *na);
        if (!na) {
            srv_client_notice(c, "world_busy", "out of memory queueing the input; nothing was applied", seqp);
            return;
        }
        w->acks = na;
        w->capacks = nc;
    }
    in.kind = (uint16_t)ki;
    in.nargs = (uint16_t)nargs;
    in.tick = sim_world_tick(w->w);
    in.client = c->id;
    in.seq = (uint32_t)*seqp;
    rc = sim_world_input(w->w, &in);
    if (rc) {
        if (rc == SIM_EFULL) srv_client_notice(c, "world_busy", sim_world_error(w->w), seqp);
        else srv_client_error(c, rc == SIM_EDUP ? "dup_seq" : "bad_input", sim_world_error(w->w), seqp);
        return;
    }
    c->inputs_this_tick++;
    w->acks[w->nacks].client = c;
    w->acks[w->nacks].seq = in.seq;
    w->acks[w->nacks].stepped = 0;
    w->acks[w->nacks].in = in;
    w->nacks++;
}

void srv_send_ack(srv_client *c, uint32_t seq, uint64_t tick)
{
    wire_buf b;
    reply_begin(&b, "ack", 2);
    wire_put_str(&b, "seq"); wire_put_uint(&b, seq);
    wire_put_str(&b, "tick"); wire_put_uint(&b, tick);
    reply_send(c, &b);
}

static void on_create(srv_client *c, const wire_msg *m)
{
    srv *s = c->s;
    if (c->role < SRV_ROLE_ADMIN) {
        srv_client_error(c, "forbidden", "create needs the admin token in hello", NULL);
        return;
    }
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
    int id = srv_world_add(s, kbuf, seed, pbuf, err, sizeof err);
    if (id < 0) {
        srv_client_error(c, id == SIM_EKIND ? "bad_kind"
                            : id == SIM_EPARAM || id == SIM_EFILE ? "bad_params"
                            : id == SIM_EFULL ? "world_limit" : "internal", err, NULL);
        return;
    }
    if (s->nworlds == 1) srv_tick_start(s);
    wire_buf b;
    reply_begin(&b, "created", 1);
    wire_put_str(&b, "world");
    srv_world_describe(s, srv_world_find(s, (uint32_t)id), &b);
    reply_send(c, &b);
}

static void on_close(srv_client *c, const wire_msg *m)
{
    if (c->role < SRV_ROLE_ADMIN) {
        srv_client_error(c, "forbidden", "close needs the admin token in hello", NULL);
        return;
    }
    srv_world *w;
    if (get_world(c, m, &w, NULL)) return;
    uint32_t id = w->id;
    int watching = 0;
    for (int i = 0; i < SRV_MAX_SUBS; i++) watching |= c->subs[i].world == w;
    srv_world_close(c->s, w);
    if (!watching) {              /* subscribers were told by srv_world_close */
        wire_buf b;
        reply_begin(&b, "closed", 1);
        wire_put_str(&b, "world"); wire_put_uint(&b, id);
        reply_send(c, &b);
    }
}

static void on_ping(srv_client *c, const wire_msg *m)
{
    const wire_val *n = wire_msg_get(m, "n");
    wire_buf b;
    reply_begin(&b, "pong", n ? 1 : 0);
    if (n) {
        wire_put_str(&b, "n");
        wire_put_raw(&b, n->raw, n->rawlen);      /* echoed byte for byte */
    }
    reply_send(c, &b);
}

static void on_stats(srv_client *c)
{
    srv *s = c->s;
    uv_rusage_t ru;
    uv_getrusage(&ru);
    size_t qsum = 0, qmax = 0;
    for (srv_client *k = s->clients; k; k = k->next) {
        size_t q = srv_client_queued(k);
        qsum += q;
        if (q > qmax) qmax = q;
    }
    wire_buf b;
    reply_begin(&b, "stats", 9);
    wire_put_str(&b, "clients"); wire_put_uint(&b, (uint64_t)s->nclients);
    wire_put_str(&b, "queued_bytes"); wire_put_uint(&b, qsum);
    wire_put_str(&b, "queued_max"); wire_put_uint(&b, qmax);
    wire_put_str(&b, "frames_sent"); wire_put_uint(&b, s->frames_sent);
    wire_put_str(&b, "bytes_sent"); wire_put_uint(&b, s->bytes_sent);
    wire_put_str(&b, "frames_skipped"); wire_put_uint(&b, s->msgs_dropped);
    wire_put_str(&b, "cpu_user_us");
    wire_put_uint(&b, (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec);
    wire_put_str(&b, "cpu_sys_us");
    wire_put_uint(&b, (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec);
    wire_put_str(&b, "worlds");
    wire_put_array(&b, (uint32_t)s->nworlds);
    for (int i = 0; i < s->nworlds; i++) srv_world_stats_put(s->worlds[i], &b);
    reply_send(c, &b);
}

void srv_handle_message(srv_client *c, const uint8_t *body, size_t len)
{
    wire_msg m;
    int rc = wire_msg_decode(body, len, &m);
    if (rc) {
        char msg[128];
        snprintf(msg, sizeof msg, "message is not valid: %s", wire_strerror(rc));
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
    int is_hello = wire_str_eq((const uint8_t *)t, tl, "hello");
    if (c->role == SRV_ROLE_NONE && !is_hello) {
        srv_client_error(c, "hello_first", "the first message must be hello", seqp);
        return;
    }
    if (is_hello) on_hello(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "sub")) on_sub(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "unsub")) on_unsub(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "input")) on_input(c, &m, seqp);
    else if (wire_str_eq((const uint8_t *)t, tl, "ping")) on_ping(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "create")) on_create(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "close")) on_close(c, &m);
    else if (wire_str_eq((const uint8_t *)t, tl, "stats")) on_stats(c);
    else if (wire_str_eq((const uint8_t *)t, tl, "play")) on_play(c, &m);
    else {
        char msg[96];
        snprintf(msg, sizeof msg, "unknown message type '%.*s'", (int)(tl > 32 ? 32 : tl), t);
        srv_client_error(c, "unknown_type", msg, seqp);
    }
}
