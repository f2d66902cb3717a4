/* tcp.c — the TCP transport: accept, framed reads with caps (a 4-byte big-endian length, then
 * the body), writes of the shared buffers (the length from srv_msg.prefix, then the body: two
 * buffers, one writev), the half-close after the last word, and the close. */
#include <stdlib.h>
#include <string.h>
#include "network.h"

typedef struct srv_write {
    uv_write_t req;
    srv_msg *m;
} srv_write;

static size_t tcp_queued(const srv_client *c)
{
    return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp);
}

static void on_close(uv_handle_t *h)
{
    srv_client_free(h->data);
}

static void tcp_close(srv_client *c)
{
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

static void tcp_send(srv_client *c, srv_msg *m)
{
    uv_stream_t *st = (uv_stream_t *)&c->tcp;
    uv_buf_t buf[2] = { uv_buf_init((char *)m->prefix, 4),
                        uv_buf_init((char *)SRV_MSG_BODY(m), (unsigned)SRV_MSG_BODYLEN(m)) };
    uv_buf_t *b = buf;
    unsigned nb = 2;
    /* The common case: nothing queued and the socket has room. Write now — no request, no
     * callback, no reference — and queue only what the kernel did not take. */
    if (uv_stream_get_write_queue_size(st) == 0) {
        int n = uv_try_write(st, buf, 2);
        if (n == (int)m->len) return;
        if (n > 0) {
            size_t k = (size_t)n;
            if (k >= 4) {                /* the prefix went: the rest of the body remains */
                b = &buf[1];
                nb = 1;
                k -= 4;
            }
            b[0].base += k;
            b[0].len -= k;
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
    int rc = uv_write(&w->req, st, b, nb, on_write);
    if (rc < 0) {
        srv_msg_unref(m);
        free(w);
        srv_client_close(c, uv_strerror(rc));
    }
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    srv_client *c = req->data;
    if (status < 0 && !c->closing) srv_client_close(c, "shutdown failed");
}

/* FIN after the queued bytes; reading goes on (and discards) until the client closes. */
static void tcp_finish(srv_client *c)
{
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, on_shutdown) != 0)
        srv_client_close(c, c->drain_why);
}

const srv_transport srv_transport_tcp = { "tcp", tcp_send, tcp_queued, tcp_finish, tcp_close };

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
        srv_client_received(c, c->in + off + 4, n);
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
    srv_client *c = srv_client_new(s, &srv_transport_tcp);
    if (!c) {
        srv_log(s, SRV_LOG_ERROR, "out of memory accepting a client");
        return;
    }
    uv_tcp_init(s->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_close);
        return;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
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
    /* Reading starts first: a client told server_full is drained like any other last word. */
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    srv_client_attach(c);
}
