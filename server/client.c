/* client.c — connections: accept, framed reads with caps, writes with Redis-style output limits,
 * timeouts, and closing. A client is freed only in its close callback (libuv's rule), after every
 * write it queued has called back. */
#include <stdlib.h>
#include <string.h>
#include "network.h"

typedef struct srv_write {
    uv_write_t req;
    srv_msg *m;
} srv_write;

size_t srv_client_queued(const srv_client *c)
{
    return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp);
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

static void on_close(uv_handle_t *h)
{
    srv_client *c = h->data;
    free(c->in);
    free(c);
}

void srv_sub_drop(srv_client *c, srv_sub *sub)
{
    if (!sub->world) return;
    srv_stream_detach(sub->world, sub);
    memset(sub, 0, sizeof *sub);
}

/* Start closing: unsubscribe, unlink, close the handle. Safe to call twice. */
void srv_client_close(srv_client *c, const char *why)
{
    if (c->closing) return;
    c->closing = 1;
    srv *s = c->s;
    srv_net *n = s->net;
    for (int i = 0; i < SRV_MAX_SUBS; i++) srv_sub_drop(c, &c->subs[i]);
    /* Its inputs still apply; no ack is owed: the ack queues name it by id, and the id is gone. */
    unlink_id(n, c);
    if (c->prev) c->prev->next = c->next;
    else n->clients = c->next;
    if (c->next) c->next->prev = c->prev;
    n->nclients--;
    srv_log(s, SRV_LOG_DEBUG, "client %u (%s, %s) closed: %s", c->id, c->name[0] ? c->name : "-",
            c->peer, why);
    uv_read_stop((uv_stream_t *)&c->tcp);
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void on_write(uv_write_t *req, int status)
{
    srv_write *w = (srv_write *)req;
    srv_client *c = req->data;
    srv_msg_unref(w->m);
    free(w);
    if (status < 0 && status != UV_ECANCELED && !c->closing) srv_client_close(c, uv_strerror(status));
}

void srv_client_send(srv_client *c, srv_msg *m)
{
    if (c->closing || c->draining) return;
    uv_buf_t buf = uv_buf_init((char *)m->data, (unsigned)m->len);
    /* The common case: nothing queued and the socket has room. Write now — no request, no
     * callback, no reference — and queue only what the kernel did not take. */
    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) == 0) {
        int n = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
        if (n == (int)m->len) {
            c->bytes_out += m->len;
            return;
        }
        if (n > 0) {
            buf.base += n;
            buf.len -= (size_t)n;
        } else if (n != UV_EAGAIN) {
            srv_client_close(c, uv_strerror(n));
            return;
        }
    }
    srv_write *w = malloc(sizeof *w);
    if (!w) {
        srv_client_close(c, "out of memory queueing a write");
        return;
    }
    w->m = m;
    srv_msg_ref(m);
    w->req.data = c;
    int rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &buf, 1, on_write);
    if (rc < 0) {
        srv_msg_unref(m);
        free(w);
        srv_client_close(c, uv_strerror(rc));
        return;
    }
    c->bytes_out += m->len;
    /* A client that does not read costs at most the hard limit. */
    if (srv_client_queued(c) > SRV_HARD_LIMIT) srv_client_close(c, "output over the hard limit");
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

static void on_shutdown(uv_shutdown_t *req, int status)
{
    srv_client *c = req->data;
    if (status < 0 && !c->closing) srv_client_close(c, "shutdown failed");
}

/* The last word before a disconnect. Closing at once would make the kernel answer unread input
 * with a reset, and the client would never see the message: so send it, shut down our side
 * (FIN after the queued bytes), keep reading and discarding until the client closes, and close
 * then — or after SRV_DRAIN_MS (the sweep). */
void srv_client_error_final(srv_client *c, const char *code, const char *msg)
{
    if (c->closing || c->draining) return;
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
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, on_shutdown) != 0)
        srv_client_close(c, msg);
}

/* ---- reading ------------------------------------------------------------------------------------ */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    srv_client *c = h->data;
    (void)suggested;
    /* Grow toward one whole maximal message; start small so idle viewers cost little. */
    if (c->incap - c->inlen < 4096 && c->incap < WIRE_MAX_CLIENT_MSG + 4) {
        size_t nc = c->incap ? c->incap * 2 : 4096;
        if (nc > WIRE_MAX_CLIENT_MSG + 4) nc = WIRE_MAX_CLIENT_MSG + 4;
        uint8_t *p = realloc(c->in, nc);
        if (p) {
            c->in = p;
            c->incap = nc;
        }
    }
    *buf = uv_buf_init((char *)c->in + c->inlen, (unsigned)(c->incap - c->inlen));
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    srv_client *c = st->data;
    (void)buf;
    if (nread < 0) {
        srv_client_close(c, c->draining ? c->drain_why
                            : nread == UV_EOF ? "peer closed" : uv_strerror((int)nread));
        return;
    }
    if (nread == 0 || c->closing) return;
    if (c->draining) {                   /* discard: the conversation is over */
        c->inlen = 0;
        return;
    }
    c->inlen += (size_t)nread;
    size_t off = 0;
    while (!c->closing && c->inlen - off >= 4) {
        uint32_t n = wire_be32(c->in + off);
        if (n == 0 || n > WIRE_MAX_CLIENT_MSG) {
            /* The length is garbage or hostile: the stream cannot be resynchronised. */
            char msg[128];
            snprintf(msg, sizeof msg, "message length %u is %s (1..%u bytes); disconnecting", n,
                     n == 0 ? "zero" : "over the limit", WIRE_MAX_CLIENT_MSG);
            srv_client_error_final(c, n == 0 ? "bad_length" : "too_large", msg);
            return;
        }
        if (c->inlen - off - 4 < n) break;
        c->last_msg = uv_now(c->s->loop);
        srv_handle_message(c, c->in + off + 4, n);
        off += 4 + (size_t)n;
    }
    if (c->closing) return;
    if (off) {
        memmove(c->in, c->in + off, c->inlen - off);
        c->inlen -= off;
    }
    c->partial_since = c->inlen ? (c->partial_since ? c->partial_since : uv_now(c->s->loop)) : 0;
}

void srv_on_connection(uv_stream_t *server, int status)
{
    srv *s = server->data;
    if (status < 0) {
        srv_log(s, SRV_LOG_WARN, "accept failed: %s", uv_strerror(status));
        return;
    }
    srv_client *c = calloc(1, sizeof *c);
    if (!c) {
        srv_log(s, SRV_LOG_ERROR, "out of memory accepting a client");
        return;
    }
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    c->s = s;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_close);
        return;
    }
    srv_net *n = s->net;
    c->id = n->next_client_id++;
    c->connected_at = c->last_msg = uv_now(s->loop);
    struct sockaddr_storage ss;
    int len = sizeof ss;
    snprintf(c->peer, sizeof c->peer, "?");
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0) {
        char ip[48] = "?";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            uv_ip4_name((struct sockaddr_in *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            uv_ip6_name((struct sockaddr_in6 *)&ss, ip, sizeof ip);
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, port);
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_tcp_keepalive(&c->tcp, 1, 60);
    c->next = n->clients;
    if (n->clients) n->clients->prev = c;
    n->clients = c;
    n->nclients++;
    c->idnext = n->by_id[c->id & (SRV_CLIENT_BUCKETS - 1)];
    n->by_id[c->id & (SRV_CLIENT_BUCKETS - 1)] = c;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (s->stopping || n->nclients > s->cfg.max_clients) {
        srv_client_error_final(c, "server_full", s->stopping ? "the server is shutting down"
                                                             : "too many clients; try later");
        return;
    }
    srv_log(s, SRV_LOG_DEBUG, "client %u connected from %s", c->id, c->peer);
}

/* Once a second: hello deadlines, unfinished messages, idle connections, stalled readers. */
void srv_sweep(uv_timer_t *t)
{
    srv *s = t->data;
    uint64_t now = uv_now(s->loop);
    for (srv_client *c = s->net->clients, *nx; c; c = nx) {
        nx = c->next;
        int nsubs = 0;
        for (int i = 0; i < SRV_MAX_SUBS; i++) nsubs += c->subs[i].world != NULL;
        if (c->draining) {
            if (now - c->drain_since > SRV_DRAIN_MS) srv_client_close(c, c->drain_why);
        } else if (c->role == SRV_ROLE_NONE && now - c->connected_at > SRV_HELLO_MS)
            srv_client_error_final(c, "timeout", "no hello within 10 s");
        else if (c->partial_since && now - c->partial_since > SRV_PARTIAL_MS)
            srv_client_error_final(c, "timeout", "a message was started but not finished within 10 s");
        else if (!nsubs && now - c->last_msg > SRV_IDLE_MS)
            srv_client_error_final(c, "timeout", "idle for 5 minutes with no subscription");
        else if (c->over_soft_since && now - c->over_soft_since > SRV_STALL_MS)
            srv_client_close(c, "stalled over the soft output limit for 30 s");
    }
}
