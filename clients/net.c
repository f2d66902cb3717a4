/* net.c — the blocking protocol client (see net.h). */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zstd.h>
#include "codec.h"
#include "net.h"

int cli_connect(cli_conn *c, const char *hostport, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        snprintf(err, errlen, "'%s' is not HOST:PORT", hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {      /* [::1]:7400 */
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc) {
        snprintf(err, errlen, "cannot resolve %s: %s", hostport, gai_strerror(rc));
        return -1;
    }
    int fd = -1, saved = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot connect to %s: %s (is vivd running?)", hostport,
                 strerror(saved ? saved : ECONNREFUSED));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    return 0;
}

void cli_close(cli_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->in);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

int cli_send_raw(cli_conn *c, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t k = send(c->fd, b, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

int cli_send(cli_conn *c, const wire_buf *b)
{
    if (b->oom) return -1;
    return cli_send_raw(c, b->p, b->len);
}

int cli_recv(cli_conn *c, int timeout_ms, const uint8_t **body, size_t *len, char *err,
             size_t errlen)
{
    if (c->consumed) {                       /* drop the message handed out last time */
        memmove(c->in, c->in + c->consumed, c->inlen - c->consumed);
        c->inlen -= c->consumed;
        c->consumed = 0;
    }
    for (;;) {
        if (c->inlen >= 4) {
            uint32_t n = wire_be32(c->in);
            if (n == 0 || n > WIRE_MAX_SERVER_MSG) {
                snprintf(err, errlen, "server sent a message length of %u bytes", n);
                return -1;
            }
            if (c->inlen - 4 >= n) {
                *body = c->in + 4;
                *len = n;
                c->consumed = 4 + (size_t)n;
                return 1;
            }
            if (c->incap < 4 + (size_t)n) {
                uint8_t *p = realloc(c->in, 4 + (size_t)n);
                if (!p) {
                    snprintf(err, errlen, "out of memory");
                    return -1;
                }
                c->in = p;
                c->incap = 4 + (size_t)n;
            }
        }
        if (c->incap - c->inlen < 65536) {
            size_t nc = c->incap * 2 > c->inlen + 65536 ? c->incap * 2 : c->inlen + 65536;
            uint8_t *p = realloc(c->in, nc);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            c->in = p;
            c->incap = nc;
        }
        struct pollfd pfd = { c->fd, POLLIN, 0 };
        int pr = poll(&pfd, 1, timeout_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr < 0) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return -1;
        }
        if (pr == 0) return 0;
        ssize_t k = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            snprintf(err, errlen, "%s", k == 0 ? "the server closed the connection" : strerror(errno));
            return -1;
        }
        c->inlen += (size_t)k;
        c->bytes_in += (uint64_t)k;
    }
}

int cli_recv_msg(cli_conn *c, int timeout_ms, wire_msg *m, char *err, size_t errlen)
{
    const uint8_t *body;
    size_t len;
    int rc = cli_recv(c, timeout_ms, &body, &len, err, errlen);
    if (rc != 1) return rc;
    int d = wire_msg_decode(body, len, m);
    if (d) {
        snprintf(err, errlen, "server sent malformed msgpack: %s", wire_strerror(d));
        return -1;
    }
    return 1;
}

int cli_msg_is(const wire_msg *m, const char *t)
{
    const char *s;
    size_t n;
    return wire_get_str(m, "t", &s, &n) == 0 && wire_str_eq((const uint8_t *)s, n, t);
}

int cli_hello(cli_conn *c, const char *name, const char *token, wire_msg *welcome, char *err,
              size_t errlen)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, token ? 4 : 3);
    wire_put_str(&b, "t"); wire_put_str(&b, "hello");
    wire_put_str(&b, "v"); wire_put_uint(&b, 1);
    wire_put_str(&b, "name"); wire_put_str(&b, name);
    if (token) {
        wire_put_str(&b, "token");
        wire_put_str(&b, token);
    }
    wire_msg_end(&b);
    int rc = cli_send(c, &b);
    wire_buf_free(&b);
    if (rc) {
        snprintf(err, errlen, "sending hello failed: %s", strerror(errno));
        return -1;
    }
    rc = cli_recv_msg(c, 10000, welcome, err, errlen);
    if (rc == 0) snprintf(err, errlen, "no welcome within 10 s");
    if (rc != 1) return -1;
    if (cli_msg_is(welcome, "error")) {
        const char *code = "?", *msg = "?";
        size_t cl = 1, ml = 1;
        wire_get_str(welcome, "code", &code, &cl);
        wire_get_str(welcome, "msg", &msg, &ml);
        snprintf(err, errlen, "refused: %.*s: %.*s", (int)cl, code, (int)ml, msg);
        return -1;
    }
    if (!cli_msg_is(welcome, "welcome")) {
        snprintf(err, errlen, "expected welcome");
        return -1;
    }
    return 0;
}

void cli_put_sub(wire_buf *b, uint32_t world, uint32_t every, const char *enc, const char *view)
{
    wire_msg_begin(b);
    wire_put_map(b, 3 + (enc != NULL) + (view != NULL));
    wire_put_str(b, "t"); wire_put_str(b, "sub");
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "every"); wire_put_uint(b, every);
    if (enc) { wire_put_str(b, "enc"); wire_put_str(b, enc); }
    if (view) { wire_put_str(b, "view"); wire_put_str(b, view); }
    wire_msg_end(b);
}

void cli_frame_free(cli_frame *cf)
{
    sim_frame_free(&cf->f);
    free(cf->zbuf);
    memset(cf, 0, sizeof *cf);
}

int cli_frame_apply(cli_frame *cf, const wire_msg *m, char *err, size_t errlen)
{
    uint64_t world, tick, w, h, pv, fh, sh;
    int key;
    const char *enc;
    size_t encl;
    const wire_val *data = wire_msg_get(m, "data"), *pal = wire_msg_get(m, "pal");
    if (wire_get_u64(m, "world", &world) || wire_get_u64(m, "tick", &tick) ||
        wire_get_bool(m, "key", &key) || wire_get_u64(m, "w", &w) || wire_get_u64(m, "h", &h) ||
        wire_get_u64(m, "pv", &pv) || wire_get_u64(m, "fh", &fh) || wire_get_u64(m, "sh", &sh) ||
        wire_get_str(m, "enc", &enc, &encl) || !data || data->type != WIRE_BIN) {
        snprintf(err, errlen, "frame message lacks a field or has a mistyped one");
        return -1;
    }
    if (w < 1 || w > 4096 || h < 1 || h > 4096) {
        snprintf(err, errlen, "frame size %llux%llu is out of range", (unsigned long long)w,
                 (unsigned long long)h);
        return -1;
    }
    if (!cf->f.px || cf->f.w != w || cf->f.h != h) {
        if (!key) {
            snprintf(err, errlen, "a delta for a frame size never keyed");
            return -3;
        }
        sim_frame_free(&cf->f);
        if (sim_frame_init(&cf->f, (int)w, (int)h) != 0) {
            snprintf(err, errlen, "out of memory for a %llux%llu frame", (unsigned long long)w,
                     (unsigned long long)h);
            return -1;
        }
        cf->have_key = 0;
    }
    if (!key && !cf->have_key) {
        snprintf(err, errlen, "a delta arrived before any keyframe");
        return -3;
    }
    if (pal) {
        if (pal->type != WIRE_BIN || pal->n % 3 || pal->n == 0 || pal->n > 768) {
            snprintf(err, errlen, "pal must be 3..768 bytes, a multiple of 3");
            return -1;
        }
        memcpy(cf->f.pal.rgb, pal->p, pal->n);
        cf->f.pal.count = (uint16_t)(pal->n / 3);
    } else if (key || cf->f.pal.version != (uint32_t)pv) {
        if (key) {
            snprintf(err, errlen, "a keyframe without its palette");
            return -1;
        }
    }
    cf->f.pal.version = (uint32_t)pv;
    if (wire_str_eq((const uint8_t *)enc, encl, "raw")) {
        if (data->n != w * h) {
            snprintf(err, errlen, "raw data is %u bytes, not %llu", data->n, (unsigned long long)(w * h));
            return -1;
        }
        memcpy(cf->f.px, data->p, data->n);
    } else if (wire_str_eq((const uint8_t *)enc, encl, "tile.zst")) {
        /* One stateless zstd frame around tile data, never larger than codec_bound. */
        size_t bound = codec_bound((int)w, (int)h);
        unsigned long long content = ZSTD_getFrameContentSize(data->p, data->n);
        if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
            content > bound) {
            snprintf(err, errlen, "tile.zst data is not one zstd frame of at most %zu bytes", bound);
            return -1;
        }
        if (cf->zcap < bound) {
            uint8_t *p = realloc(cf->zbuf, bound);
            if (!p) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            cf->zbuf = p;
            cf->zcap = bound;
        }
        size_t n = ZSTD_decompress(cf->zbuf, cf->zcap, data->p, data->n);
        if (ZSTD_isError(n) || codec_decode(cf->zbuf, n, cf->f.px, (int)w, (int)h, key) != CODEC_OK) {
            snprintf(err, errlen, "tile.zst data does not decode");
            cf->have_key = 0;
            return -1;
        }
    } else if (wire_str_eq((const uint8_t *)enc, encl, "tile")) {
        if (codec_decode(data->p, data->n, cf->f.px, (int)w, (int)h, key) != CODEC_OK) {
            snprintf(err, errlen, "tile data does not decode");
            cf->have_key = 0;
            return -1;
        }
    } else {
        snprintf(err, errlen, "unknown encoding '%.*s'", (int)encl, enc);
        return -1;
    }
    cf->have_key = 1;
    cf->world = (uint32_t)world;
    cf->tick = tick;
    cf->sh = sh;
    if (sim_frame_hash(&cf->f) != fh) {
        snprintf(err, errlen, "frame hash mismatch at tick %llu", (unsigned long long)tick);
        return -2;
    }
    return 0;
}
