/* cluster_msg.c — the bytes cluster members exchange through Redis, read and written without a
 * loop (cluster_msg.h). */
#include <stdio.h>
#include <string.h>
#include "cluster_msg.h"
#include "msg.h"

/* A string field into dst (NUL-terminated, at most cap-1 bytes, no NUL inside): 0, or -1. */
static int get_strz(const wire_msg *m, const char *k, char *dst, size_t cap)
{
    const char *p;
    size_t n;
    if (wire_get_str(m, k, &p, &n) || n >= cap || memchr(p, '\0', n)) return -1;
    memcpy(dst, p, n);
    dst[n] = '\0';
    return 0;
}

static int get_u32(const wire_msg *m, const char *k, uint32_t *v)
{
    uint64_t u;
    if (wire_get_u64(m, k, &u) || u > UINT32_MAX) return -1;
    *v = (uint32_t)u;
    return 0;
}

static int get_bin(const wire_msg *m, const char *k, const uint8_t **p, size_t *n)
{
    const wire_val *v = wire_msg_get(m, k);
    if (!v || v->type != WIRE_BIN) return -1;
    *p = v->p;
    *n = v->n;
    return 0;
}

int srv_cmsg_decode(const uint8_t *p, size_t n, srv_cmsg *out)
{
    wire_msg m;
    char t[16];
    memset(out, 0, sizeof *out);
    if (wire_msg_decode(p, n, &m) || get_strz(&m, "t", t, sizeof t) ||
        get_strz(&m, "from", out->from, sizeof out->from) || !out->from[0])
        return -1;
    if (strcmp(t, "want") == 0) {
        uint64_t enc;
        if (get_u32(&m, "world", &out->world) || get_u32(&m, "view", &out->view) ||
            get_u32(&m, "every", &out->every) || get_u32(&m, "div", &out->div) ||
            wire_get_u64(&m, "enc", &enc))
            return -1;
        if (out->every < 1 || out->every > SRV_CMSG_EVERY_MAX || out->div < 1 ||
            (enc != WIRE_ENC_TILE && enc != WIRE_ENC_RAW && enc != WIRE_ENC_TILEZ))
            return -1;
        out->enc = (int)enc;
        if (wire_get_bool(&m, "key", &out->key)) out->key = 0;     /* optional */
        int nr = 0, rc = wire_get_i32_array(&m, "rect", out->rect, 4, &nr);   /* optional */
        if (rc == -2 || (rc == 0 && (nr != 4 || out->rect[0] < 0 || out->rect[1] < 0 || out->rect[2] < 1 ||
                                     out->rect[3] < 1)))
            return -1;
        out->type = SRV_CMSG_WANT;
        return 0;
    }
    if (strcmp(t, "proxy") == 0) {
        if (get_u32(&m, "client", &out->client) || get_bin(&m, "body", &out->body, &out->bodylen) ||
            out->bodylen == 0 || out->bodylen > WIRE_MAX_CLIENT_MSG ||
            get_strz(&m, "name", out->name, sizeof out->name) ||
            get_strz(&m, "token", out->token, sizeof out->token))
            return -1;
        out->type = SRV_CMSG_PROXY;
        return 0;
    }
    if (strcmp(t, "gone") == 0) {
        if (get_u32(&m, "client", &out->client)) return -1;
        out->type = SRV_CMSG_GONE;
        return 0;
    }
    if (strcmp(t, "reply") == 0) {
        if (get_u32(&m, "client", &out->client) || get_bin(&m, "body", &out->body, &out->bodylen) ||
            out->bodylen > WIRE_MAX_SERVER_MSG)
            return -1;
        out->type = SRV_CMSG_REPLY;
        return 0;
    }
    return -1;
}

static void kv_str(wire_buf *b, const char *k, const char *v)
{
    wire_put_str(b, k);
    wire_put_str(b, v);
}

static void kv_uint(wire_buf *b, const char *k, uint64_t v)
{
    wire_put_str(b, k);
    wire_put_uint(b, v);
}

void srv_cmsg_want(wire_buf *b, const char *from, uint32_t world, uint32_t view, uint32_t every,
                   uint32_t div, int enc, const int32_t *rect, int key)
{
    int with_rect = rect && rect[2] > 0;
    wire_put_map(b, 8 + with_rect);
    if (with_rect) {
        wire_put_str(b, "rect");
        wire_put_array(b, 4);
        for (int i = 0; i < 4; i++) wire_put_int(b, rect[i]);
    }
    kv_str(b, "t", "want");
    kv_str(b, "from", from);
    kv_uint(b, "world", world);
    kv_uint(b, "view", view);
    kv_uint(b, "every", every);
    kv_uint(b, "div", div);
    kv_uint(b, "enc", (uint64_t)enc);
    wire_put_str(b, "key");
    wire_put_bool(b, key);
}

void srv_cmsg_proxy(wire_buf *b, const char *from, uint32_t client, const char *name,
                    const char *token, const uint8_t *body, size_t len)
{
    wire_put_map(b, 6);
    kv_str(b, "t", "proxy");
    kv_str(b, "from", from);
    kv_uint(b, "client", client);
    kv_str(b, "name", name);
    kv_str(b, "token", token);
    wire_put_str(b, "body");
    wire_put_bin(b, body, len);
}

void srv_cmsg_gone(wire_buf *b, const char *from, uint32_t client)
{
    wire_put_map(b, 3);
    kv_str(b, "t", "gone");
    kv_str(b, "from", from);
    kv_uint(b, "client", client);
}

void srv_cmsg_reply(wire_buf *b, const char *from, uint32_t client, const uint8_t *body, size_t len)
{
    wire_put_map(b, 4);
    kv_str(b, "t", "reply");
    kv_str(b, "from", from);
    kv_uint(b, "client", client);
    wire_put_str(b, "body");
    wire_put_bin(b, body, len);
}

int srv_creg_decode(const uint8_t *p, size_t n, srv_creg *out)
{
    wire_msg m;
    char role[16];
    uint64_t num = 0;
    memset(out, 0, sizeof *out);
    if (wire_msg_decode(p, n, &m) || get_strz(&m, "name", out->name, sizeof out->name) || !out->name[0] ||
        get_strz(&m, "role", role, sizeof role))
        return -1;
    out->relay = strcmp(role, "relay") == 0;
    if (wire_get_u64(&m, "num", &num) == 0 && num <= UINT32_MAX) out->num = (uint32_t)num;
    if (wire_get_u64(&m, "boot", &out->boot)) out->boot = 0;
    if (wire_get_u64(&m, "beat", &out->beat)) out->beat = 0;
    if (wire_get_u64(&m, "pid", &out->pid)) out->pid = 0;
    uint64_t starting = 0;
    out->starting = wire_get_u64(&m, "starting", &starting) == 0 && starting != 0;
    if (get_strz(&m, "listen", out->listen, sizeof out->listen)) out->listen[0] = '\0';
    if (get_strz(&m, "http", out->http, sizeof out->http)) out->http[0] = '\0';
    const wire_val *ws = wire_msg_get(&m, "worlds");
    if (ws && ws->type == WIRE_ARRAY) {
        out->worlds = ws->p;
        out->worlds_end = ws->raw + ws->rawlen;
        out->nworlds = ws->n;
    }
    return 0;
}

int srv_centry_decode(const uint8_t *p, size_t n, srv_centry *out)
{
    wire_msg m;
    uint64_t id, w, h;
    memset(out, 0, sizeof *out);
    if (wire_msg_decode(p, n, &m) || wire_get_u64(&m, "id", &id) || id > UINT32_MAX ||
        get_strz(&m, "kind", out->kind, sizeof out->kind) || !out->kind[0] || wire_get_u64(&m, "w", &w) ||
        wire_get_u64(&m, "h", &h) || w < 1 || w > 4096 || h < 1 || h > 4096)
        return -1;
    out->id = (uint32_t)id;
    out->w = (int)w;
    out->h = (int)h;
    return 0;
}

static const char *const enc_names[] = { [WIRE_ENC_TILE] = "tile", [WIRE_ENC_RAW] = "raw",
                                         [WIRE_ENC_TILEZ] = "tile.zst" };

void srv_cchan_format(char *out, size_t cap, uint32_t world, int view, uint32_t every, uint32_t div,
                      const int32_t *rect, int enc)
{
    const char *e = enc == WIRE_ENC_RAW ? "raw" : enc == WIRE_ENC_TILE ? "tile" : "tile.zst";
    if (rect && rect[2] > 0)
        snprintf(out, cap, "vivd:frames:%u:%d:%u:%u:%d:%d:%d:%d:%s", world, view, every, div, (int)rect[0],
                 (int)rect[1], (int)rect[2], (int)rect[3], e);
    else
        snprintf(out, cap, "vivd:frames:%u:%d:%u:%u:%s", world, view, every, div, e);
}

/* A decimal number of at most max, then ':': 0 with *p past the ':', or -1. */
static int number(const char **p, const char *end, uint64_t max, uint64_t *v)
{
    const char *q = *p;
    uint64_t x = 0;
    if (q == end || *q < '0' || *q > '9') return -1;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        x = x * 10 + (uint64_t)(*q - '0');
        if (x > max) return -1;
    }
    if (q == end || *q != ':') return -1;
    *p = q + 1;
    *v = x;
    return 0;
}

int srv_cchan_parse(const char *chan, size_t clen, srv_cchan *out)
{
    static const char pre[] = "vivd:frames:";
    memset(out, 0, sizeof *out);
    if (clen <= sizeof pre - 1 || memcmp(chan, pre, sizeof pre - 1) != 0) return -1;
    const char *p = chan + sizeof pre - 1, *end = chan + clen;
    uint64_t world, view, every, div;
    if (number(&p, end, UINT32_MAX, &world) || number(&p, end, INT32_MAX, &view) ||
        number(&p, end, UINT32_MAX, &every) || number(&p, end, UINT32_MAX, &div))
        return -1;
    if (p < end && *p >= '0' && *p <= '9') {        /* a rect's X:Y:W:H */
        uint64_t r[4];
        for (int i = 0; i < 4; i++)
            if (number(&p, end, INT32_MAX, &r[i])) return -1;
        if (r[2] < 1 || r[3] < 1) return -1;
        for (int i = 0; i < 4; i++) out->rect[i] = (int32_t)r[i];
    }
    out->enc = -1;
    for (int i = 0; i < (int)(sizeof enc_names / sizeof enc_names[0]); i++)
        if ((size_t)(end - p) == strlen(enc_names[i]) && memcmp(p, enc_names[i], (size_t)(end - p)) == 0)
            out->enc = i;
    if (out->enc < 0) return -1;
    out->world = (uint32_t)world;
    out->view = (int)view;
    out->every = (uint32_t)every;
    out->div = (uint32_t)div;
    return 0;
}

int srv_cstream_kind(const uint8_t *p, size_t n, wire_msg *m)
{
    const char *t;
    size_t tl;
    if (n > WIRE_MAX_SERVER_MSG || wire_msg_decode(p, n, m) || wire_get_str(m, "t", &t, &tl)) return -1;
    if (wire_str_eq((const uint8_t *)t, tl, "frame")) return SRV_CSTREAM_FRAME;
    if (wire_str_eq((const uint8_t *)t, tl, "events")) return SRV_CSTREAM_EVENTS;
    if (wire_str_eq((const uint8_t *)t, tl, "closed")) return SRV_CSTREAM_CLOSED;
    return -1;
}
