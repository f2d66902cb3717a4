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

/* ---- SHA-1 and base64, for Sec-WebSocket-Accept ------------------------------------------------- */
static uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void sha1(const uint8_t *msg, size_t len, uint8_t out[20])
{
    uint32_t h[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u };
    size_t total = ((len + 8) / 64 + 1) * 64;
    uint8_t *p = calloc(1, total);
    memcpy(p, msg, len);
    p[len] = 0x80;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) p[total - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t off = 0; off < total; off += 64) {
        uint32_t w[80];
        for (int i = 0; i < 16; i++)
            w[i] = (uint32_t)p[off + 4 * i] << 24 | (uint32_t)p[off + 4 * i + 1] << 16 |
                   (uint32_t)p[off + 4 * i + 2] << 8 | p[off + 4 * i + 3];
        for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (int i = 0; i < 80; i++) {
            uint32_t f, k;
            if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999u; }
            else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1u; }
            else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdcu; }
            else { f = b ^ c ^ d; k = 0xca62c1d6u; }
            uint32_t t = rol(a, 5) + f + e + k + w[i];
            e = d; d = c; c = rol(b, 30); b = a; a = t;
        }
        h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
    }
    free(p);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(h[i] >> (24 - 8 * j));
}

static void base64(const uint8_t *in, size_t n, char *out)
{
    static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = t[v >> 18];
        out[o++] = t[(v >> 12) & 63];
        out[o++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? t[v & 63] : '=';
    }
    out[o] = '\0';
}

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
    uint8_t key[16];
    for (int i = 0; i < 16; i++) key[i] = (uint8_t)(rand() & 0xff);
    char key64[32], req[1024];
    base64(key, 16, key64);
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s%s%s"
                     "Origin: http://%s\r\n\r\n",
                     path, hostport, key64, proto ? "Sec-WebSocket-Protocol: " : "", proto ? proto : "",
                     proto ? "\r\n" : "", hostport);
    if (send_all(w->fd, req, (size_t)n) != 0) {
        snprintf(err, errlen, "send: %s", strerror(errno));
        return -1;
    }
    double end = mono() + 5.0;
    uint8_t *hdr_end = NULL;
    while (!hdr_end) {
        int rc = fill(w, 100);
        if (rc < 0) {
            if (refused) *refused = 1;
            snprintf(err, errlen, "closed before the upgrade was answered");
            return -1;
        }
        hdr_end = w->inlen >= 4 ? memmem(w->in, w->inlen, "\r\n\r\n", 4) : NULL;
        if (!hdr_end && mono() > end) {
            snprintf(err, errlen, "no answer to the upgrade within 5 s");
            return -1;
        }
    }
    size_t hlen = (size_t)(hdr_end - w->in) + 4;
    char *h = malloc(hlen + 1);
    memcpy(h, w->in, hlen);
    h[hlen] = '\0';
    memmove(w->in, w->in + hlen, w->inlen - hlen);
    w->inlen -= hlen;
    int ok = strncmp(h, "HTTP/1.1 101", 12) == 0;
    if (!ok) {
        if (refused) *refused = 1;
        snprintf(err, errlen, "%.*s", (int)strcspn(h, "\r\n"), h);
        free(h);
        return -1;
    }
    /* Sec-WebSocket-Accept = base64(SHA-1(key + the RFC's GUID)) */
    char cat[80], want[40];
    uint8_t dig[20];
    snprintf(cat, sizeof cat, "%s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key64);
    sha1((const uint8_t *)cat, strlen(cat), dig);
    base64(dig, 20, want);
    char *acc = strcasestr(h, "\r\nSec-WebSocket-Accept:");
    ok = acc && strstr(acc, want) == acc + strspn(acc + 23, " ") + 23;
    if (!ok) snprintf(err, errlen, "bad Sec-WebSocket-Accept in: %s", h);
    free(h);
    return ok ? 0 : -1;
}

static int do_connect(wsc *w, const char *hostport, const char *path, const char *proto, int rcvbuf,
                      char *err, size_t errlen, int *refused)
{
    memset(w, 0, sizeof *w);
    w->msgop = -1;
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
    free(w->msg);
    w->in = w->msg = NULL;
    w->inlen = w->incap = w->msglen = w->msgcap = 0;
}

/* ---- frames -------------------------------------------------------------------------------------- */
static size_t put_header(uint8_t *h, int fin, int opcode, uint64_t len, const uint8_t mask[4])
{
    size_t n = 0;
    h[n++] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 15));
    if (len < 126) {
        h[n++] = (uint8_t)(0x80 | len);
    } else if (len < 65536) {
        h[n++] = 0x80 | 126;
        h[n++] = (uint8_t)(len >> 8);
        h[n++] = (uint8_t)len;
    } else {
        h[n++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) h[n++] = (uint8_t)(len >> (8 * i));
    }
    memcpy(h + n, mask, 4);
    return n + 4;
}

int wsc_send_frame(wsc *w, int fin, int opcode, const void *p, size_t n)
{
    uint8_t mask[4] = { (uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand(), (uint8_t)rand() };
    uint8_t *f = malloc(14 + n);
    if (!f) return -1;
    size_t h = put_header(f, fin, opcode, n, mask);
    for (size_t i = 0; i < n; i++) f[h + i] = ((const uint8_t *)p)[i] ^ mask[i & 3];
    int rc = send_all(w->fd, f, h + n);
    free(f);
    return rc;
}

int wsc_send_header(wsc *w, int fin, int opcode, uint64_t len)
{
    uint8_t h[14], mask[4] = { 1, 2, 3, 4 };
    return send_all(w->fd, h, put_header(h, fin, opcode, len, mask));
}

int wsc_send_raw(wsc *w, const void *p, size_t n)
{
    return send_all(w->fd, p, n);
}

int wsc_send_msg(wsc *w, const wire_buf *b)
{
    if (b->oom || b->len < 4) return -1;
    return wsc_send_frame(w, 1, WSC_BIN, b->p + 4, b->len - 4);
}

/* Parse one frame out of w->in: 1 (its fields set, payload in place), 0 (need more bytes). */
static int parse_frame(wsc *w, int *fin, int *op, uint8_t **payload, uint64_t *len, size_t *used)
{
    if (w->inlen < 2) return 0;
    const uint8_t *b = w->in;
    size_t h = 2;
    uint64_t n = b[1] & 127;
    if (n == 126) {
        if (w->inlen < 4) return 0;
        n = (uint64_t)b[2] << 8 | b[3];
        h = 4;
    } else if (n == 127) {
        if (w->inlen < 10) return 0;
        n = 0;
        for (int i = 0; i < 8; i++) n = n << 8 | b[2 + i];
        h = 10;
    }
    int masked = b[1] & 0x80;          /* a server must not mask; tolerated here, and unmasked */
    if (masked) h += 4;
    if (w->inlen < h || w->inlen - h < n) return 0;
    if (masked)
        for (uint64_t i = 0; i < n; i++) w->in[h + i] ^= b[h - 4 + (i & 3)];
    *fin = b[0] >> 7;
    *op = b[0] & 15;
    *payload = w->in + h;
    *len = n;
    *used = h + (size_t)n;
    return 1;
}

int wsc_recv(wsc *w, int timeout_ms, int *op, const uint8_t **p, size_t *n, char *err, size_t errlen)
{
    double end = mono() + (timeout_ms < 0 ? 1e9 : timeout_ms / 1000.0);
    /* The message returned last time is done with. */
    if (w->msgop == -2) {
        w->msglen = 0;
        w->msgop = -1;
    }
    for (;;) {
        int fin, fop;
        uint8_t *pl;
        uint64_t len;
        size_t used;
        while (parse_frame(w, &fin, &fop, &pl, &len, &used)) {
            if (fop >= 8) {                  /* control frames may come between fragments */
                if (fop == WSC_PING) wsc_send_frame(w, 1, WSC_PONG, pl, (size_t)len);
                if (fop == WSC_CLOSE) {
                    w->closed = 1;
                    w->close_code = len >= 2 ? pl[0] << 8 | pl[1] : 1005;
                    snprintf(w->close_reason, sizeof w->close_reason, "%.*s",
                             len > 2 ? (int)(len - 2) : 0, (const char *)pl + 2);
                    uint8_t echo[2] = { (uint8_t)(w->close_code >> 8), (uint8_t)w->close_code };
                    wsc_send_frame(w, 1, WSC_CLOSE, echo, 2);
                }
                memmove(w->in, w->in + used, w->inlen - used);
                w->inlen -= used;
                if (w->closed) {
                    snprintf(err, errlen, "closed by the server: %d %s", w->close_code, w->close_reason);
                    return -1;
                }
                continue;
            }
            if (fop != WSC_CONT) w->msgop = fop;
            if (w->msglen + len > w->msgcap) {
                size_t nc = w->msgcap ? w->msgcap : 65536;
                while (nc < w->msglen + len) nc *= 2;
                uint8_t *q = realloc(w->msg, nc);
                if (!q) return -1;
                w->msg = q;
                w->msgcap = nc;
            }
            memcpy(w->msg + w->msglen, pl, (size_t)len);
            w->msglen += (size_t)len;
            memmove(w->in, w->in + used, w->inlen - used);
            w->inlen -= used;
            if (fin) {
                *op = w->msgop;
                *p = w->msg;
                *n = w->msglen;
                w->msgop = -2;               /* cleared at the next call */
                return 1;
            }
        }
        int left = (int)((end - mono()) * 1000.0);
        if (left <= 0) return 0;
        int rc = fill(w, left < 100 ? left : 100);
        if (rc < 0) {
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
    if (op != WSC_BIN) {
        snprintf(err, errlen, "a message with opcode %d, not binary", op);
        return -1;
    }
    int d = wire_msg_decode(p, n, m);
    if (d != 0) {
        snprintf(err, errlen, "a binary message that is not a protocol map: %s", wire_strerror(d));
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
