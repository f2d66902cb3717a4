/* client.c — a client, whatever carries its bytes: ids, output limits in the manner of Redis's
 * client output buffers, error replies and their budget, the last word before a disconnect,
 * timeouts, and closing. The transport (tcp.c, ws.c: srv_transport) writes, reads and frees; a
 * client is freed only by its transport, once no callback can reach it (libuv's rule). */
#include <stdlib.h>
#include <string.h>
#include "network.h"

size_t srv_client_queued(const srv_client *c)
{
    return c->tr->queued(c);
}

srv_client *srv_client_by_id(srv *s, uint32_t id)
{
    for (srv_client *c = s->net->by_id[id & (SRV_CLIENT_BUCKETS - 1)]; c; c = c->idnext)
        if (c->id == id) return c;
    return NULL;
}

static void unlink_id(srv_net *n, srv_client *c)
{
    for (srv_client **p = &n->by_id[c->id & (SRV_CLIENT_BUCKETS - 1)]; *p; p = &(*p)->idnext)
        if (*p == c) {
            *p = c->idnext;
            return;
        }
}

srv_tr_stats *srv_tr_of(srv_client *c)
{
    return &c->s->net->tr[c->tr->kind];
}

/* The server lets c go for `reason` (SRV_DROP_…): counted, then closed. */
static void drop(srv_client *c, int reason, const char *why)
{
    if (!c->closing) srv_tr_of(c)->drops[reason]++;
    srv_client_close(c, why);
}

srv_client *srv_client_new(srv *s, const srv_transport *tr)
{
    srv_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->s = s;
    c->tr = tr;
    snprintf(c->peer, sizeof c->peer, "?");
    return c;
}

void srv_client_free(srv_client *c)
{
    free(c->in);
    free(c);
}

void srv_client_attach(srv_client *c)
{
    srv *s = c->s;
    srv_net *n = s->net;
    c->id = n->next_client_id++;
    c->connected_at = c->last_msg = uv_now(s->loop);
    c->next = n->clients;
    if (n->clients) n->clients->prev = c;
    n->clients = c;
    n->nclients++;
    c->idnext = n->by_id[c->id & (SRV_CLIENT_BUCKETS - 1)];
    n->by_id[c->id & (SRV_CLIENT_BUCKETS - 1)] = c;
    srv_tr_of(c)->connections++;
    if (s->stopping || n->nclients > s->cfg.max_clients) {
        srv_client_error_final(c, "server_full", s->stopping ? "the server is shutting down"
                                                             : "too many clients; try later");
        return;
    }
    srv_log(s, SRV_LOG_DEBUG, "client %u connected from %s (%s)", c->id, c->peer, c->tr->name);
}

void srv_client_received(srv_client *c, const uint8_t *body, size_t len)
{
    c->last_msg = uv_now(c->s->loop);
    srv_handle_message(c, body, len);
}

/* A client that subscribes is one the frames will flow to: its writes move to an I/O thread, the
 * one with the fewest connections. One that only talks (players, admins, a stats poller) keeps
 * being written by the loop: its answers go out at once, with no hop between threads. */
void srv_client_offload(srv_client *c)
{
    if (c->tr != &srv_transport_tcp || c->closing || c->draining) return;
    srv_io *io = srv_io_pick(c->s);
    if (io) srv_tcp_move(c, io);
}

void srv_sub_drop(srv_client *c, srv_sub *sub)
{
    if (sub->remote) {                       /* a world served by the layer above */
        if (c->s->net->hooks.sub_dropped) c->s->net->hooks.sub_dropped(c->s, sub);
    } else if (sub->tl) {                    /* its own timeline (timeline.c): it goes too */
        srv_stream_detach(sub->tl, sub);
        srv_timeline_close(c->s, sub->tl);
    } else if (sub->world) srv_stream_detach(sub->world, sub);
    else return;
    memset(sub, 0, sizeof *sub);
}

/* Start closing: unsubscribe, unlink, let the transport go. Safe to call twice. */
void srv_client_close(srv_client *c, const char *why)
{
    if (c->closing) return;
    c->closing = 1;
    srv *s = c->s;
    srv_net *n = s->net;
    for (int i = 0; i < SRV_MAX_SUBS; i++) srv_sub_drop(c, &c->subs[i]);
    if (n->hooks.client_gone) n->hooks.client_gone(c);   /* the cluster: its proxies elsewhere go */
    /* Its inputs still apply; no ack is owed: the ack queues name it by id, and the id is gone. */
    unlink_id(n, c);
    if (c->prev) c->prev->next = c->next;
    else n->clients = c->next;
    if (c->next) c->next->prev = c->prev;
    n->nclients--;
    srv_tr_of(c)->closed++;
    srv_log(s, SRV_LOG_DEBUG, "client %u (%s, %s, %s) closed: %s", c->id, c->name[0] ? c->name : "-",
            c->peer, c->tr->name, why);
    c->tr->close(c);
}

void srv_client_send(srv_client *c, srv_msg *m)
{
    if (c->closing || c->draining) return;
    c->tr->send(c, m);
    if (c->closing) return;
    c->bytes_out += m->len;
    /* A client that does not read costs at most the hard limit. */
    if (srv_client_queued(c) > SRV_HARD_LIMIT) drop(c, SRV_DROP_HARD_LIMIT, "output over the hard limit");
}

void srv_client_send_buf(srv_client *c, wire_buf *b)
{
    if (b->oom || c->closing) return;
    srv_msg *m = srv_msg_from_buf(b);
    if (!m) return;
    srv_client_send(c, m);
    srv_msg_unref(m);
}

static void send_error(srv_client *c, const char *code, const char *msg, const int64_t *seq);

void srv_client_error(srv_client *c, const char *code, const char *msg, const int64_t *seq)
{
    if (c->closing || c->draining) return;
    send_error(c, code, msg, seq);
    if (++c->errors >= SRV_MAX_ERRORS)
        srv_client_error_final(c, "too_many_errors", "too many bad messages; disconnecting");
}

void srv_client_notice(srv_client *c, const char *code, const char *msg, const int64_t *seq)
{
    if (c->closing || c->draining) return;
    send_error(c, code, msg, seq);
}

static void send_error(srv_client *c, const char *code, const char *msg, const int64_t *seq)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_error(&b, code, msg, seq);
    srv_client_send_buf(c, &b);
    wire_buf_free(&b);
    srv_log(c->s, SRV_LOG_DEBUG, "client %u: error %s: %s", c->id, code, msg);
}

/* The drop a final error's code is (the codes client.c, tcp.c and ws.c end a connection with). */
static int drop_reason(const char *code)
{
    return !strcmp(code, "timeout") ? SRV_DROP_TIMEOUT
         : !strcmp(code, "server_full") ? SRV_DROP_SERVER_FULL : SRV_DROP_BAD_MESSAGE;
}

/* The last word before a disconnect. Closing at once would make the kernel answer unread input
 * with a reset, and the client would never see the message: so send it, let the transport end
 * our side after it (TCP: FIN after the queued bytes; WebSocket: a close frame), keep reading
 * and discarding until the client closes, and close then — or after SRV_DRAIN_MS (the sweep). */
void srv_client_error_final(srv_client *c, const char *code, const char *msg)
{
    if (c->closing || c->draining) return;
    srv_tr_of(c)->drops[drop_reason(code)]++;
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_error(&b, code, msg, NULL);
    srv_client_send_buf(c, &b);
    wire_buf_free(&b);
    srv_log(c->s, SRV_LOG_DEBUG, "client %u: final error %s: %s", c->id, code, msg);
    if (c->closing) return;              /* the send itself failed */
    for (int i = 0; i < SRV_MAX_SUBS; i++) srv_sub_drop(c, &c->subs[i]);
    c->draining = 1;
    c->drain_since = uv_now(c->s->loop);
    snprintf(c->drain_why, sizeof c->drain_why, "%s", msg);
    c->tr->finish(c);
}

/* Once a second: hello deadlines, unfinished messages, idle connections, queues over the hard
 * limit, stalled readers. */
void srv_sweep(uv_timer_t *t)
{
    srv *s = t->data;
    uint64_t now = uv_now(s->loop);
    for (srv_client *c = s->net->clients, *nx; c; c = nx) {
        nx = c->next;
        int nsubs = 0;
        for (int i = 0; i < SRV_MAX_SUBS; i++) nsubs += srv_sub_used(&c->subs[i]);
        if (c->tr->proxied && !c->draining) continue;   /* its own member times it out */
        if (c->tr->sweep && !c->draining) {
            c->tr->sweep(c, now);
            if (c->closing || c->draining) continue;    /* refused: its drain starts now */
        }
        if (c->draining) {
            if (now - c->drain_since > SRV_DRAIN_MS) srv_client_close(c, c->drain_why);
        } else if (c->role == SRV_ROLE_NONE && now - c->connected_at > SRV_HELLO_MS)
            srv_client_error_final(c, "timeout", "no hello within 10 s");
        else if (c->partial_since && now - c->partial_since > SRV_PARTIAL_MS)
            srv_client_error_final(c, "timeout", "a message was started but not finished within 10 s");
        else if (!nsubs && now - c->last_msg > SRV_IDLE_MS)
            srv_client_error_final(c, "timeout", "idle for 5 minutes with no subscription");
        else if (srv_client_queued(c) > SRV_HARD_LIMIT)
            /* Sends check the hard limit, but a queue can pass it with nothing more to send: an
             * I/O thread's backlog counts only once the kernel refuses it (tcp.c, io_queued),
             * which may be after the last send, and frames skip a client over the soft limit. */
            drop(c, SRV_DROP_HARD_LIMIT, "output over the hard limit");
        else if (c->over_soft_since && now - c->over_soft_since > SRV_STALL_MS)
            drop(c, SRV_DROP_STALL, "stalled over the soft output limit for 30 s");
    }
    srv_recordings_sweep(s);
}
