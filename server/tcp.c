/* tcp.c — the TCP transport: accept, framed reads with caps (a 4-byte big-endian length, then
 * the body), writes of the shared buffers (the length from srv_msg.prefix, then the body: two
 * buffers, one writev), the half-close after the last word, and the close.
 *
 * Reading is always the loop's. Writing is the loop's too (srv_transport_tcp) until the client
 * moves to an I/O thread (srv_tcp_move, when it subscribes; server/io.c): then the thread writes a
 * dup of its socket (srv_transport_tcp_io), and the loop only hands it messages. The move keeps
 * the order of the bytes: while the loop still holds unwritten bytes for the client, it is
 * `moving` (srv_transport_tcp_moving) — new messages wait in c->tio.held — and once the loop's
 * queue is empty, the thread gets the socket and the held messages, in order. Such a client is
 * freed when both the loop's handle is closed and the thread has let go of its side. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "network.h"

typedef struct srv_write {
    uv_write_t req;
    srv_msg *m;
} srv_write;

static const srv_transport srv_transport_tcp_moving, srv_transport_tcp_io;

static size_t tcp_queued(const srv_client *c)
{
    return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp);
}

static void release_held(srv_client *c)
{
    srv_tcp_io *t = &c->tio;
    for (uint32_t i = 0; i < t->nheld; i++) srv_msg_unref(t->held[i]);
    free(t->held);
    t->held = NULL;
    t->nheld = t->capheld = 0;
    t->held_bytes = 0;
}

static void on_close(uv_handle_t *h)
{
    srv_client *c = h->data;
    release_held(c);
    if (c->tio.k && !c->tio.released) {
        c->tio.main_closed = 1;          /* the thread still holds its side: freed on release */
        return;
    }
    srv_client_free(c);
}

void srv_tcp_io_released(srv_client *c)
{
    c->tio.released = 1;
    if (c->tio.main_closed) srv_client_free(c);
}

void srv_tcp_io_failed(srv_client *c, int err)
{
    if (!c->closing) srv_client_close(c, uv_strerror(err));
}

static void tcp_close(srv_client *c)
{
    uv_read_stop((uv_stream_t *)&c->tcp);
    uv_close((uv_handle_t *)&c->tcp, on_close);
    if (c->tio.k) srv_io_close(c->tio.k);    /* the thread drops its queue and lets go */
}

static void move_now(srv_client *c);
static void count_sent(srv_client *c, size_t len);

static void on_write(uv_write_t *req, int status)
{
    srv_write *w = (srv_write *)req;
    srv_client *c = req->data;
    srv_msg_unref(w->m);
    free(w);
    if (status < 0 && status != UV_ECANCELED && !c->closing) srv_client_close(c, uv_strerror(status));
    else if (!c->closing && c->tr == &srv_transport_tcp_moving &&
             uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) == 0)
        move_now(c);                     /* the loop's bytes are all with the kernel now */
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

const srv_transport srv_transport_tcp = { "tcp", tcp_send, tcp_queued, tcp_finish, tcp_close, 0, NULL,
                                         SRV_TR_TCP };

/* ---- moving to an I/O thread --------------------------------------------------------------------- */
static void moving_send(srv_client *c, srv_msg *m)
{
    srv_tcp_io *t = &c->tio;
    if (t->nheld == t->capheld) {
        uint32_t nc = t->capheld ? t->capheld * 2 : 16;
        srv_msg **p = realloc(t->held, nc * sizeof *p);
        if (!p) {
            srv_client_close(c, "out of memory queueing a write");
            return;
        }
        t->held = p;
        t->capheld = nc;
    }
    srv_msg_ref(m);
    t->held[t->nheld++] = m;
    t->held_bytes += m->len;
}

static size_t moving_queued(const srv_client *c)
{
    return tcp_queued(c) + c->tio.held_bytes;
}

static void moving_finish(srv_client *c)
{
    c->tio.held_finish = 1;             /* said by the thread, after the held messages */
}

static const srv_transport srv_transport_tcp_moving = { "tcp", moving_send, moving_queued,
                                                        moving_finish, tcp_close, 0, NULL, SRV_TR_TCP };

void srv_tcp_move(srv_client *c, srv_io *io)
{
    if (c->tr != &srv_transport_tcp || c->closing || c->draining || !io) return;
    c->tio.io = io;
    c->tr = &srv_transport_tcp_moving;
    size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
    if (q == 0) {
        move_now(c);
        return;
    }
    /* on_write moves it when the loop's last queued byte is taken */
    srv_log(c->s, SRV_LOG_DEBUG, "client %u moves to I/O thread %d once the loop has written the "
            "%zu bytes it still holds for it", c->id, srv_io_index(io), q);
}

/* The loop's queue is empty: the thread takes a dup of the socket and the held messages. If
 * that cannot be done (no descriptor, no memory), the loop keeps writing the client itself. */
static void move_now(srv_client *c)
{
    srv_tcp_io *t = &c->tio;
    uv_os_fd_t fd;
    int dup_fd = -1;
    srv_ioconn *k = NULL;
    if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0) dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd >= 0) k = srv_io_attach(t->io, c, dup_fd);
    if (!k) {
        if (dup_fd >= 0) close(dup_fd);
        srv_log(c->s, SRV_LOG_WARN, "client %u: its writes stay on the loop (%s)", c->id,
                dup_fd < 0 ? strerror(errno) : "out of memory");
        c->tr = &srv_transport_tcp;
        t->io = NULL;
        srv_msg **held = t->held;
        uint32_t n = t->nheld;
        int finish = t->held_finish;
        t->held = NULL;
        t->nheld = t->capheld = 0;
        t->held_bytes = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (!c->closing) tcp_send(c, held[i]);
            srv_msg_unref(held[i]);
        }
        free(held);
        if (finish && !c->closing) tcp_finish(c);
        return;
    }
    t->k = k;
    c->tr = &srv_transport_tcp_io;
    c->s->net->io_moved++;
    srv_log(c->s, SRV_LOG_DEBUG, "client %u: its writes are I/O thread %d's (%u message(s) held "
            "while moving)", c->id, srv_io_index(t->io), t->nheld);
    int failed = 0;
    for (uint32_t i = 0; i < t->nheld; i++) {
        if (!failed && srv_io_send(k, t->held[i]) == 0) count_sent(c, t->held[i]->len);
        else failed = 1;
    }
    release_held(c);
    if (!failed && t->held_finish && srv_io_finish(k) != 0) failed = 1;
    if (failed) srv_client_close(c, "out of memory queueing a write");
}

/* ---- written by an I/O thread ---------------------------------------------------------------------- */
static void count_sent(srv_client *c, size_t len)
{
    srv_tcp_io *t = &c->tio;
    uint64_t turn = c->s->net->io_turn;
    if (t->turn != turn) {
        t->turn = turn;
        t->turn_bytes = 0;
    }
    t->sent += len;
    t->turn_bytes += len;
}

static void io_send(srv_client *c, srv_msg *m)
{
    if (srv_io_send(c->tio.k, m) != 0) {
        srv_client_close(c, "out of memory queueing a write");
        return;
    }
    count_sent(c, m->len);
}

/* What the server holds for c beyond what the kernel took, as the limits see it: what the loop
 * writing c itself would hold, the bytes the kernel refused. So what the thread has taken up
 * counts once the kernel refuses more (its last write ended with EAGAIN); until then it is being
 * written. Bytes on their way to the thread are in flight: those sent this turn of the loop (not
 * even published yet; several worlds' raw frames in one turn are not a slow reader), and those
 * published but not taken up yet (a burst of catch-up ticks; a thread the machine schedules
 * late, which on a loaded machine can be hundreds of milliseconds). They count only when the
 * thread is behind by over SRV_IO_LAG_MS — then the server itself cannot keep up, and skipping
 * frames (the soft limit) is what brings it back — or past SRV_IO_MAX_HELD for one client, so
 * that memory stays bounded whatever happens. */
static size_t io_queued(const srv_client *c)
{
    const srv_tcp_io *t = &c->tio;
    uint64_t done = atomic_load_explicit(&t->done, memory_order_relaxed);
    uint64_t seen = atomic_load_explicit(&t->seen, memory_order_relaxed);   /* after: >= done */
    int stuck = atomic_load_explicit(&t->stuck, memory_order_relaxed);
    uint64_t given = t->sent - (t->turn == c->s->net->io_turn ? t->turn_bytes : 0);
    uint64_t backlog = seen - done, transit = given > seen ? given - seen : 0;
    if (backlog + transit > SRV_IO_MAX_HELD || srv_io_behind(t->io)) return (size_t)(backlog + transit);
    return stuck ? (size_t)backlog : 0;
}

static void io_finish(srv_client *c)
{
    if (srv_io_finish(c->tio.k) != 0) srv_client_close(c, c->drain_why);
}

static const srv_transport srv_transport_tcp_io = { "tcp", io_send, io_queued, io_finish, tcp_close, 0,
                                                    NULL, SRV_TR_TCP };

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
    if (s->net->holding) {            /* not accepted: libuv holds it and waits for uv_accept */
        s->net->held = 1;
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

void srv_net_accepting(srv *s)
{
    srv_net *n = s->net;
    if (!n->holding) return;
    n->holding = 0;
    srv_http_hold(s, 0);
    if (n->held) {                    /* the one libuv accepted for us: take it; it polls again */
        n->held = 0;
        srv_on_connection((uv_stream_t *)&n->listener, 0);
    }
}
