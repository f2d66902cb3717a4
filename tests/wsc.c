/* wsc.c — see wsc.h. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "wsc.h"

/* ---- sockets ------------------------------------------------------------------------------------- */
static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int tcp_open(const char *hostport, int rcvbuf, char *err, size_t errlen)
{
    const char *colon = strrchr(hostport, ':');
    if (!colon) {
        snprintf(err, errlen, "not HOST:PORT: %s", hostport);
        return -1;
    }
    char host[64];
    snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        snprintf(err, errlen, "not an IPv4 address: %s", host);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(err, errlen, "connect %s: %s", hostport, strerror(errno));
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int send_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Read more into w->in, waiting at most timeout_ms: 1 some bytes, 0 timeout, -1 EOF or error. */
static int fill(wsc *w, int timeout_ms)
{
    if (w->incap - w->inlen < 65536) {
        size_t nc = w->incap ? w->incap * 2 : 131072;
        uint8_t *p = realloc(w->in, nc);
        if (!p) return -1;
        w->in = p;
        w->incap = nc;
    }
    struct pollfd pf = { w->fd, POLLIN, 0 };
    int rc = poll(&pf, 1, timeout_ms);
    if (rc == 0) return 0;
    if (rc < 0) return errno == EINTR ? 0 : -1;
    ssize_t k = recv(w->fd, w->in + w->inlen, w->incap - w->inlen, 0);
    if (k <= 0) return -1;
    w->inlen += (size_t)k;
    w->bytes_in += (uint64_t)k;
    return 1;
}

static int handshake(wsc *w, const char *hostport, const char *path, const char *proto, char *err,
                     size_t errlen, int *refused)
{
    uint8_t nonce[16];
    for (int i = 0; i < 16; i++) nonce[i] = (uint8_t)(rand() & 0xff);
    char key[CLI_WS_KEY_LEN + 1], req[1024];
    cli_ws_key(nonce, key);
    size_t n = cli_ws_request(req, sizeof req, hostport, path, key, proto);
    if (n == 0 || send_all(w->fd, req, n) != 0) {
        snprintf(err, errlen, "send: %s", n ? strerror(errno) : "the request is too long");
        return -1;
    }
    double end = mono() + 5.0;
    size_t hlen;
    while ((hlen = cli_ws_answer_len(w->in, w->inlen)) == 0) {
        int rc = fill(w, 100);
        if (rc < 0) {
            if (refused) *refused = 1;
            snprintf(err, errlen, "closed before the upgrade was answered");
            return -1;
        }
        if (mono() > end) {
            snprintf(err, errlen, "no answer to the upgrade within 5 s");
            return -1;
        }
    }
    int rc = cli_ws_answer_check((const char *)w->in, hlen, key, proto, err, errlen);
    if (rc == CLI_WS_REFUSED && refused) *refused = 1;
    if (rc != 0) return -1;
    /* What follows the answer is the first frames. */
    memmove(w->in, w->in + hlen, w->inlen - hlen);
    w->inlen -= hlen;
    return 0;
}

static int do_connect(wsc *w, const char *hostport, const char *path, const char *proto, int rcvbuf,
                      char *err, size_t errlen, int *refused)
{
    memset(w, 0, sizeof *w);
    cli_ws_reader_init(&w->rd, WIRE_MAX_SERVER_MSG);
    w->close_code = 1005;
    w->fd = tcp_open(hostport, rcvbuf, err, errlen);
    if (w->fd < 0) return -1;
    if (handshake(w, hostport, path, proto, err, errlen, refused) != 0) {
        wsc_close(w);
        return -1;
    }
    return 0;
}

int wsc_connect(wsc *w, const char *hostport, const char *path, const char *subprotocol, int rcvbuf,
                char *err, size_t errlen)
{
    return do_connect(w, hostport, path, subprotocol, rcvbuf, err, errlen, NULL);
}

int wsc_connect_refused(wsc *w, const char *hostport, const char *path, const char *subprotocol,
                        char *err, size_t errlen)
{
    int refused = 0;
    if (do_connect(w, hostport, path, subprotocol, 0, err, errlen, &refused) == 0) return 0;
    return refused ? 1 : -1;
}

void wsc_close(wsc *w)
{
    if (w->fd >= 0) close(w->fd);
    w->fd = -1;
    free(w->in);
    w->in = NULL;
    w->inlen = w->incap = w->inoff = 0;
    cli_ws_reader_free(&w->rd);
}

/* ---- frames -------------------------------------------------------------------------------------- */
int wsc_send_frame(wsc *w, int fin, int opcode, const void *p, size_t n)
{
    uint8_t mask[4] = { (uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand() };
    wire_buf b;
    wire_buf_init(&b);
    cli_ws_put_frame(&b, fin, opcode, p, n, mask);
    int rc = b.oom ? -1 : send_all(w->fd, b.p, b.len);
    wire_buf_free(&b);
    return rc;
}

int wsc_send_header(wsc *w, int fin, int opcode, uint64_t len)
{
    uint8_t h[CLI_WS_HEADER_MAX], mask[4] = { 1, 2, 3, 4 };
    return send_all(w->fd, h, cli_ws_header_put(h, fin, opcode, len, mask));
}

int wsc_send_raw(wsc *w, const void *p, size_t n)
{
    return send_all(w->fd, p, n);
}

int wsc_send_msg(wsc *w, const wire_buf *b)
{
    if (b->oom || b->len < 4) return -1;
    return wsc_send_frame(w, 1, CLI_WS_BIN, b->p + 4, b->len - 4);
}

int wsc_recv(wsc *w, int timeout_ms, int *op, const uint8_t **p, size_t *n, char *err, size_t errlen)
{
    double end = mono() + (timeout_ms < 0 ? 1e9 : timeout_ms / 1000.0);
    for (;;) {
        /* The bytes from inoff on; a message returned last time (in place in them, or in the
         * reader) is done with now. */
        const uint8_t *at = w->in + w->inoff;
        size_t left = w->inlen - w->inoff;
        cli_ws_event ev;
        int rc = cli_ws_read(&w->rd, &at, &left, &ev, err, errlen);
        w->inoff = w->inlen - left;
        if (rc < 0) {
            w->closed = 1;
            return -1;
        }
        if (rc == 1 && ev.op == CLI_WS_PING) {
            wsc_send_frame(w, 1, CLI_WS_PONG, ev.p, ev.n);
        } else if (rc == 1 && ev.op == CLI_WS_CLOSE) {
            const char *why;
            size_t wl;
            w->closed = 1;
            w->close_code = cli_ws_close_status(&ev, &why, &wl);
            snprintf(w->close_reason, sizeof w->close_reason, "%.*s", (int)wl, why);
            uint8_t echo[2] = { (uint8_t)(w->close_code >> 8), (uint8_t)w->close_code };
            wsc_send_frame(w, 1, CLI_WS_CLOSE, echo, 2);
            snprintf(err, errlen, "closed by the server: %d %s", w->close_code, w->close_reason);
            return -1;
        } else if (rc == 1 && ev.op != CLI_WS_PONG) {
            *op = ev.op;
            *p = ev.p;
            *n = ev.n;
            return 1;
        }
        if (rc == 1) continue;
        w->inlen = w->inoff = 0;          /* every byte is read (a cut frame is in the reader) */
        int ms = (int)((end - mono()) * 1000.0);
        if (ms <= 0) return 0;
        if (fill(w, ms < 100 ? ms : 100) < 0) {
            w->closed = 1;
            snprintf(err, errlen, "the connection ended%s", w->close_code != 1005 ? " after a close frame" : " (EOF, no close frame)");
            return -1;
        }
    }
}

int wsc_recv_msg(wsc *w, int timeout_ms, wire_msg *m, char *err, size_t errlen)
{
    int op;
    const uint8_t *p;
    size_t n;
    int rc = wsc_recv(w, timeout_ms, &op, &p, &n, err, errlen);
    if (rc != 1) return rc;
    if (op != CLI_WS_BIN) {
        snprintf(err, errlen, "a message with opcode %d, not binary", op);
        return -1;
    }
    int d = wire_msg_decode(p, n, m);
    if (d != 0) {
        snprintf(err, errlen, "a binary message that is not a protocol map: %s", sim_strerror(d));
        return -1;
    }
    return 1;
}

/* ---- HTTP ---------------------------------------------------------------------------------------- */
int http_get(const char *hostport, const char *path, http_reply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    int fd = tcp_open(hostport, 0, err, errlen);
    if (fd < 0) return -1;
    char req[1024];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path,
                     hostport);
    if (send_all(fd, req, (size_t)n) != 0) {
        snprintf(err, errlen, "send: %s", strerror(errno));
        close(fd);
        return -1;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap + 1);
    double end = mono() + 5.0;
    for (;;) {
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        struct pollfd pf = { fd, POLLIN, 0 };
        if (poll(&pf, 1, 100) <= 0) {
            if (mono() > end) break;
            continue;
        }
        ssize_t k = recv(fd, buf + len, cap - len, 0);
        if (k <= 0) break;
        len += (size_t)k;
        /* With a content-length, stop once the body is whole (the server may keep the socket). */
        buf[len] = '\0';
        char *he = strstr(buf, "\r\n\r\n");
        char *cl = he ? strcasestr(buf, "\r\ncontent-length:") : NULL;
        if (he && cl && cl < he && len >= (size_t)(he + 4 - buf) + (size_t)atol(cl + 17)) break;
    }
    close(fd);
    buf[len] = '\0';
    char *he = strstr(buf, "\r\n\r\n");
    if (!he || sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
        snprintf(err, errlen, "no HTTP answer (%zu bytes)", len);
        free(buf);
        return -1;
    }
    *he = '\0';
    r->headers = strdup(buf);
    char *ct = strcasestr(buf, "\r\ncontent-type:");
    if (ct) {
        ct += 15;
        ct += strspn(ct, " ");
        snprintf(r->content_type, sizeof r->content_type, "%.*s", (int)strcspn(ct, "\r\n"), ct);
    }
    r->body_len = len - (size_t)(he + 4 - buf);
    r->body = malloc(r->body_len + 1);
    memcpy(r->body, he + 4, r->body_len);
    r->body[r->body_len] = '\0';
    free(buf);
    return 0;
}

void http_reply_free(http_reply *r)
{
    free(r->body);
    free(r->headers);
    r->body = r->headers = NULL;
}

int http_exchange(const char *hostport, const void *req, size_t len, char *out, size_t outcap,
                  int timeout_ms, char *err, size_t errlen)
{
    int fd = tcp_open(hostport, 0, err, errlen);
    if (fd < 0) return -1;
    if (send_all(fd, req, len) != 0) {
        snprintf(err, errlen, "send: %s", strerror(errno));
        close(fd);
        return -1;
    }
    size_t have = 0;
    double end = mono() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((end - mono()) * 1000.0);
        if (left <= 0) {
            snprintf(err, errlen, "the server kept the connection open for %d ms", timeout_ms);
            close(fd);
            return -1;
        }
        struct pollfd pfd = { fd, POLLIN, 0 };
        if (poll(&pfd, 1, left) <= 0) continue;
        char tmp[4096];
        ssize_t k = recv(fd, tmp, sizeof tmp, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;                   /* EOF (or a reset after the answer) */
        size_t take = (size_t)k < outcap - 1 - have ? (size_t)k : outcap - 1 - have;
        memcpy(out + have, tmp, take);
        have += take;
    }
    close(fd);
    out[have] = '\0';
    return (int)have;
}
