/* http_head.c — the HTTP port's front door: vivd accepts each connection itself, reads the
 * request head (at most SRV_HEAD_MAX bytes, within SRV_PARTIAL_MS), checks it, and only then hands
 * the socket and the bytes read to libwebsockets (server/ws.c adopts them with
 * lws_adopt_socket_vhost_readbuf). lws parses the request before any callback sees it, and keeps
 * no trace of what it forgave: a line ended by a bare LF reads as one ended by CRLF, and a %00
 * in the path is decoded into a NUL that ends the path early ("/%00../.." served index.html). So
 * those are refused here, where the bytes still are: 400, with a status line, a one-sentence body
 * and connection: close, as ws.c refuses a bad handshake.
 *
 * Every request is checked: a request that is not an upgrade goes to lws with its Connection
 * header replaced by `connection: close`, so lws answers it and closes, and the client's next
 * request comes through this door on a new connection (lws would parse a kept-alive
 * connection's next request itself, unchecked). An upgrade (the WebSocket handshake) goes as it
 * came: after it no HTTP request follows.
 *
 * The operator's endpoints (GET /metrics, GET /healthz: metrics.c, srv_ops_answer) are answered
 * here, by vivd, once the head is checked: no lws callback, mount or per-session state is needed
 * for two plain-text answers, and they are written as the socket takes them, then drained as a
 * refusal is.
 *
 * The handles are uv_poll_t on the bare descriptors (a uv_tcp_t cannot let go of its socket);
 * a connection's poll handle is closed before lws polls the same descriptor. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>
#include "network.h"

#define HEADS_MAX 512                    /* connections with a head still coming; then the oldest goes */
#define GATE_TICK_MS 500u                /* how often the deadlines are looked at */

typedef struct gate_conn gate_conn;
struct gate_conn {
    uv_poll_t poll;
    srv_http_gate *g;
    gate_conn *prev, *next;              /* oldest first */
    int fd;
    int refused;                         /* answered: what still comes is read and dropped */
    char *reply;                         /* an answer of vivd's own (srv_ops_answer) being written */
    size_t rlen, roff;
    uint64_t deadline;                   /* uv_now: the head must be whole, or the refusal read */
    size_t len;
    char buf[SRV_HEAD_MAX];
};

struct srv_http_gate {
    srv *s;
    uv_poll_t listener;
    uv_timer_t timer;
    int listen_fd;
    int open;                            /* handles not yet closed (listener, timer, connections) */
    int stopping;
    int nconns;
    gate_conn *first, *last;
    srv_http_adopt_fn adopt;
    void *ud;
    uint64_t refused;                    /* heads refused, for the log at the end */
};

/* ---- the check (pure) ----------------------------------------------------------------------------- */
static int ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

int srv_http_head_check(const char *buf, size_t len, size_t *end, const char **why)
{
    const unsigned char *b = (const unsigned char *)buf;
    size_t i = 0;
    /* RFC 7230 3.5: empty lines before the request line are ignored (each still a CRLF). */
    while (i + 1 < len && b[i] == '\r' && b[i + 1] == '\n') i += 2;
    size_t line = i;                     /* where the current line starts */
    int first = 1;
    for (; i < len; i++) {
        unsigned char c = b[i];
        if (c == '\0') {
            *why = "a NUL byte in the request";
            return 400;
        }
        if (c == '\n') {
            *why = "a request line or header line ended by a bare LF (HTTP ends them with CRLF)";
            return 400;
        }
        if (c != '\r') continue;
        if (i + 1 == len) return 0;      /* its LF has not come yet */
        if (b[i + 1] != '\n') {
            *why = "a bare CR in the request (HTTP ends lines with CRLF)";
            return 400;
        }
        if (first) {
            /* METHOD SP request-target SP HTTP-version: the target has no control character
             * and no encoded NUL (libwebsockets would decode %00 and cut the path there). */
            const unsigned char *sp = memchr(b + line, ' ', i - line);
            const unsigned char *t = sp ? sp + 1 : NULL;
            const unsigned char *te = t ? memchr(t, ' ', (size_t)(b + i - t)) : NULL;
            if (!te || te == t) {
                *why = "the request line is not METHOD TARGET VERSION";
                return 400;
            }
            for (const unsigned char *p = t; p < te; p++) {
                if (ctl(*p)) {
                    *why = "a control character in the request's path";
                    return 400;
                }
                if (*p == '%' && te - p >= 3 && p[1] == '0' && p[2] == '0') {
                    *why = "an encoded NUL (%00) in the request's path";
                    return 400;
                }
            }
            first = 0;
        } else if (i == line) {
            *end = i + 2;                /* the empty line: the head is whole */
            return 1;
        }
        i++;                             /* past the LF */
        line = i + 1;
    }
    return 0;
}

/* The head as lws gets it. An upgrade goes unchanged. Any other request gets
 * `connection: close` instead of its own Connection and Keep-Alive lines, so that lws closes after
 * answering it. The bytes after the head (a body, the start of another request) follow. The
 * length written to out (room for len + 32 bytes). */
static size_t head_for_lws(const char *buf, size_t len, size_t end, char *out)
{
    int upgrade = 0;
    for (size_t l = 0; l < end;) {
        const char *nl = memchr(buf + l, '\n', end - l);
        size_t ll = (size_t)(nl - (buf + l)) + 1;
        if (ll > 8 && strncasecmp(buf + l, "upgrade:", 8) == 0) upgrade = 1;
        l += ll;
    }
    if (upgrade) {
        memcpy(out, buf, len);
        return len;
    }
    size_t o = 0;
    for (size_t l = 0; l < end - 2;) {
        const char *nl = memchr(buf + l, '\n', end - l);
        size_t ll = (size_t)(nl - (buf + l)) + 1;
        if (!(ll > 11 && strncasecmp(buf + l, "connection:", 11) == 0) &&
            !(ll > 11 && strncasecmp(buf + l, "keep-alive:", 11) == 0)) {
            memcpy(out + o, buf + l, ll);
            o += ll;
        }
        l += ll;
    }
    static const char close_line[] = "connection: close\r\n\r\n";
    memcpy(out + o, close_line, sizeof close_line - 1);
    o += sizeof close_line - 1;
    memcpy(out + o, buf + end, len - end);
    return o + len - end;
}

/* ---- connections ----------------------------------------------------------------------------------- */
static void gate_handle_closed(uv_handle_t *h)
{
    srv_http_gate *g = h->data;
    if (h->type == UV_POLL && h != (uv_handle_t *)&g->listener) free(h);  /* a gate_conn */
    if (--g->open == 0) free(g);
}

static void conn_unlink(gate_conn *c)
{
    srv_http_gate *g = c->g;
    if (c->prev) c->prev->next = c->next;
    else g->first = c->next;
    if (c->next) c->next->prev = c->prev;
    else g->last = c->prev;
    c->prev = c->next = NULL;
    g->nconns--;
}

/* Done with c: close_fd 0 when lws has the descriptor now. */
static void conn_end(gate_conn *c, int close_fd)
{
    free(c->reply);
    c->reply = NULL;
    conn_unlink(c);
    uv_close((uv_handle_t *)&c->poll, gate_handle_closed);
    if (close_fd) close(c->fd);
}

/* Answer status with why and connection: close; then read and drop what still comes until the
 * client closes or SRV_DRAIN_MS pass, so that closing with its bytes unread (a reset) does not
 * take the answer away before the client reads it. */
static void conn_refuse(gate_conn *c, unsigned status, const char *why)
{
    const char *phrase = status == 400 ? "Bad Request" : status == 408 ? "Request Timeout"
                       : "Request Header Fields Too Large";
    char out[512];
    int n = snprintf(out, sizeof out, "HTTP/1.1 %u %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
                     "content-length: %zu\r\nconnection: close\r\n\r\n%s\n", status, phrase,
                     strlen(why) + 1, why);
    if (n > 0 && (size_t)n < sizeof out) (void)!send(c->fd, out, (size_t)n, MSG_NOSIGNAL);
    shutdown(c->fd, SHUT_WR);
    c->refused = 1;
    c->g->refused++;
    c->deadline = uv_now(c->g->s->loop) + SRV_DRAIN_MS;
}

static void conn_readable(uv_poll_t *p, int status, int events);

/* Write what the socket takes of c's reply; once it is all written, end our side and drain as
 * after a refusal (conn_refuse). */
static void conn_write(gate_conn *c)
{
    while (c->roff < c->rlen) {
        ssize_t k = send(c->fd, c->reply + c->roff, c->rlen - c->roff, MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
        if (k <= 0) {
            conn_end(c, 1);
            return;
        }
        c->roff += (size_t)k;
    }
    free(c->reply);
    c->reply = NULL;
    shutdown(c->fd, SHUT_WR);
    c->deadline = uv_now(c->g->s->loop) + SRV_DRAIN_MS;
    uv_poll_start(&c->poll, UV_READABLE, conn_readable);
}

/* Answer c with vivd's own reply (malloc'ed, taken): written as the socket takes it, within the
 * head's deadline (a client that does not read is closed then, by on_tick). */
static void conn_reply(gate_conn *c, char *reply, size_t len)
{
    c->reply = reply;
    c->rlen = len;
    c->roff = 0;
    c->refused = 1;                      /* what the client still sends is read and dropped */
    uv_poll_start(&c->poll, UV_READABLE | UV_WRITABLE, conn_readable);
    conn_write(c);
}

static void conn_readable(uv_poll_t *p, int status, int events)
{
    gate_conn *c = (gate_conn *)p;
    srv_http_gate *g = c->g;
    if (status >= 0 && c->reply && (events & UV_WRITABLE)) {
        conn_write(c);
        return;
    }
    char drop[4096];
    char *at = c->refused ? drop : c->buf + c->len;
    size_t room = c->refused ? sizeof drop : sizeof c->buf - c->len;
    if (status < 0) {
        conn_end(c, 1);
        return;
    }
    ssize_t k = recv(c->fd, at, room, 0);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (k <= 0) {                        /* gone before its head was whole, or after a refusal */
        conn_end(c, 1);
        return;
    }
    if (c->refused) return;
    c->len += (size_t)k;
    size_t end = 0;
    const char *why = NULL;
    int r = srv_http_head_check(c->buf, c->len, &end, &why);
    if (r == 0 && c->len == sizeof c->buf) {
        r = 431;
        why = "the request head is over 8192 bytes";
    }
    if (r == 0) return;
    if (r != 1) {
        conn_refuse(c, (unsigned)r, why);
        return;
    }
    char *reply;
    size_t rlen;
    int own = srv_ops_answer(g->s, c->buf, end, &reply, &rlen);
    if (own != 0) {
        if (own > 0) conn_reply(c, reply, rlen);
        else conn_end(c, 1);             /* out of memory: nothing to say it with */
        return;
    }
    char *out = malloc(c->len + 32);
    if (!out) {
        srv_log(g->s, SRV_LOG_ERROR, "out of memory handing an HTTP request over");
        conn_end(c, 1);
        return;
    }
    size_t n = head_for_lws(c->buf, c->len, end, out);
    int fd = c->fd;
    conn_end(c, 0);                      /* the poll handle lets go of fd before lws polls it */
    g->adopt(g->ud, fd, out, n);
    free(out);
}

static void on_accept(uv_poll_t *p, int status, int events)
{
    srv_http_gate *g = p->data;
    (void)events;
    if (status < 0 || g->stopping) return;
    for (int k = 0; k < 64; k++) {       /* a burst at a time; the rest at the next turn */
        int fd = accept(g->listen_fd, NULL, NULL);
        if (fd >= 0) {
            fcntl(fd, F_SETFD, FD_CLOEXEC);
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        }
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
                srv_log(g->s, SRV_LOG_WARN, "http: accept: %s", strerror(errno));
            return;
        }
        if (g->nconns >= HEADS_MAX) conn_end(g->first, 1);   /* the one that has had longest */
        gate_conn *c = calloc(1, sizeof *c);
        if (!c || uv_poll_init(g->s->loop, &c->poll, fd) != 0) {
            free(c);
            close(fd);
            continue;
        }
        c->poll.data = g;
        c->g = g;
        c->fd = fd;
        c->deadline = uv_now(g->s->loop) + SRV_PARTIAL_MS;
        c->prev = g->last;
        if (g->last) g->last->next = c;
        else g->first = c;
        g->last = c;
        g->nconns++;
        g->open++;
        uv_poll_start(&c->poll, UV_READABLE, conn_readable);
    }
}

/* A head not whole in SRV_PARTIAL_MS: 408 if it had begun, else closed; a refusal's drain over. */
static void on_tick(uv_timer_t *t)
{
    srv_http_gate *g = t->data;
    uint64_t now = uv_now(g->s->loop);
    for (gate_conn *c = g->first, *next; c; c = next) {
        next = c->next;
        if (now < c->deadline) continue;
        if (c->refused || !c->len) conn_end(c, 1);
        else conn_refuse(c, 408, "the request head did not come whole within 10 s");
    }
}

srv_http_gate *srv_http_gate_start(srv *s, int listen_fd, srv_http_adopt_fn adopt, void *ud)
{
    srv_http_gate *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->s = s;
    g->listen_fd = listen_fd;
    g->adopt = adopt;
    g->ud = ud;
    if (uv_poll_init(s->loop, &g->listener, listen_fd) != 0) {
        free(g);
        return NULL;
    }
    uv_timer_init(s->loop, &g->timer);
    g->listener.data = g->timer.data = g;
    g->open = 2;
    uv_poll_start(&g->listener, UV_READABLE, on_accept);
    uv_timer_start(&g->timer, on_tick, GATE_TICK_MS, GATE_TICK_MS);
    return g;
}

void srv_http_gate_hold(srv_http_gate *g, int hold)
{
    if (!g || g->stopping) return;
    if (hold) uv_poll_stop(&g->listener);
    else uv_poll_start(&g->listener, UV_READABLE, on_accept);
}

void srv_http_gate_stop(srv_http_gate *g)
{
    if (!g || g->stopping) return;
    g->stopping = 1;
    if (g->refused)
        srv_log(g->s, SRV_LOG_INFO, "http: %llu request head(s) refused before libwebsockets read them",
                (unsigned long long)g->refused);
    while (g->first) conn_end(g->first, 1);
    uv_close((uv_handle_t *)&g->listener, gate_handle_closed);
    uv_close((uv_handle_t *)&g->timer, gate_handle_closed);
    close(g->listen_fd);
}
