/* fuzz_cluster.c — libFuzzer target: the bytes a cluster member takes from other members through
 * Redis (server/cluster_msg.c, what server/cluster.c and relay.c decode), as a hostile or
 * corrupted peer could write them.
 *
 * The first byte chooses. Even: the rest is one payload, given to every decoder — a member message
 * (want, proxy, gone, reply on vivd:to:NAME), a registration and each of its world entries, a
 * world entry alone, a stream channel's name. Odd: the rest is what a stream channel carries, as
 * messages of a 4-byte big-endian length and a body (a length over WIRE_MAX_SERVER_MSG, or a body
 * cut short, ends it), each classified and every frame applied to one picture as a relay keeps it
 * (wire_frame_apply). Besides memory safety, the target checks what cluster_msg.h promises:
 *   - a decoded message has a known type, terminated strings within their caps, a body inside
 *     the payload, and fields in range; re-written by the members' own writer it decodes to the
 *     same fields and body;
 *   - a registration's worlds walk with wire_next and each entry that decodes has a kind of
 *     1..31 characters and a size of 1..4096 each way;
 *   - a channel name that parses, formatted again, parses to the same stream;
 *   - a frame that applies leaves a picture of 1..4096 each way; every error sentence is
 *     terminated. */
#include "fuzz.h"
#include "cluster_msg.h"
#include "msg.h"
#include "wire.h"

static size_t bounded_len(const char *s, size_t cap)
{
    const char *z = memchr(s, '\0', cap);
    FUZZ_CHECK(z != NULL, "a string is not terminated within %zu bytes", cap);
    return (size_t)(z - s);
}

static void check_cmsg(const uint8_t *p, size_t n)
{
    srv_cmsg m;
    if (srv_cmsg_decode(p, n, &m) != 0) return;
    FUZZ_CHECK(m.type >= SRV_CMSG_WANT && m.type <= SRV_CMSG_REPLY, "type %d", m.type);
    FUZZ_CHECK(bounded_len(m.from, sizeof m.from) > 0, "an empty sender");
    bounded_len(m.name, sizeof m.name);
    bounded_len(m.token, sizeof m.token);
    if (m.type == SRV_CMSG_PROXY || m.type == SRV_CMSG_REPLY)
        FUZZ_CHECK(m.body && m.body >= p && m.bodylen <= (size_t)(p + n - m.body), "body outside the payload");
    if (m.type == SRV_CMSG_PROXY) FUZZ_CHECK(m.bodylen >= 1 && m.bodylen <= WIRE_MAX_CLIENT_MSG, "proxy body %zu", m.bodylen);
    if (m.type == SRV_CMSG_WANT)
        FUZZ_CHECK(m.every >= 1 && m.every <= SRV_CMSG_EVERY_MAX && m.div >= 1 &&
                   (m.enc == WIRE_ENC_TILE || m.enc == WIRE_ENC_RAW || m.enc == WIRE_ENC_TILEZ) &&
                   (m.key == 0 || m.key == 1), "want out of range");
    /* The members' writer, then the reader again: the same message. */
    wire_buf b;
    wire_buf_init(&b);
    switch (m.type) {
    case SRV_CMSG_WANT: srv_cmsg_want(&b, m.from, m.world, m.view, m.every, m.div, m.enc, m.rect, m.key); break;
    case SRV_CMSG_PROXY: srv_cmsg_proxy(&b, m.from, m.client, m.name, m.token, m.body, m.bodylen); break;
    case SRV_CMSG_GONE: srv_cmsg_gone(&b, m.from, m.client); break;
    default: srv_cmsg_reply(&b, m.from, m.client, m.body, m.bodylen); break;
    }
    FUZZ_CHECK(!b.oom, "writer out of memory");
    uint8_t *copy = fuzz_dup(b.p, b.len);
    srv_cmsg r;
    FUZZ_CHECK(srv_cmsg_decode(copy, b.len, &r) == 0, "a re-written %d message does not decode", m.type);
    FUZZ_CHECK(r.type == m.type && strcmp(r.from, m.from) == 0 && r.client == m.client, "header differs");
    if (m.type == SRV_CMSG_WANT)
        FUZZ_CHECK(r.world == m.world && r.view == m.view && r.every == m.every && r.div == m.div &&
                   r.enc == m.enc && r.key == m.key, "want differs");
    if (m.type == SRV_CMSG_PROXY)
        FUZZ_CHECK(strcmp(r.name, m.name) == 0 && strcmp(r.token, m.token) == 0, "proxy hello differs");
    if (m.type == SRV_CMSG_PROXY || m.type == SRV_CMSG_REPLY)
        FUZZ_CHECK(r.bodylen == m.bodylen && memcmp(r.body, m.body, m.bodylen) == 0, "body differs");
    free(copy);
    wire_buf_free(&b);
}

static void check_centry(const uint8_t *p, size_t n)
{
    srv_centry e;
    if (srv_centry_decode(p, n, &e) != 0) return;
    size_t kl = bounded_len(e.kind, sizeof e.kind);
    FUZZ_CHECK(kl >= 1 && kl <= 31, "kind of %zu characters", kl);
    FUZZ_CHECK(e.w >= 1 && e.w <= 4096 && e.h >= 1 && e.h <= 4096, "size %dx%d", e.w, e.h);
}

static void check_creg(const uint8_t *p, size_t n)
{
    srv_creg g;
    if (srv_creg_decode(p, n, &g) != 0) return;
    FUZZ_CHECK(bounded_len(g.name, sizeof g.name) > 0, "an empty name");
    bounded_len(g.listen, sizeof g.listen);
    bounded_len(g.http, sizeof g.http);
    const uint8_t *it = g.worlds;
    for (uint32_t i = 0; it && i < g.nworlds; i++) {
        wire_val e;
        if (wire_next(&it, g.worlds_end, &e)) break;
        FUZZ_CHECK(e.raw >= p && e.rawlen <= (size_t)(p + n - e.raw), "an entry outside the registration");
        if (e.type == WIRE_MAP) check_centry(e.raw, e.rawlen);
    }
}

static void check_cchan(const uint8_t *p, size_t n)
{
    srv_cchan c, r;
    if (srv_cchan_parse((const char *)p, n, &c) != 0) return;
    char again[128];
    srv_cchan_format(again, sizeof again, c.world, c.view, c.every, c.div, c.rect, c.enc);
    FUZZ_CHECK(srv_cchan_parse(again, strlen(again), &r) == 0, "'%s' does not parse", again);
    FUZZ_CHECK(r.world == c.world && r.view == c.view && r.every == c.every && r.div == c.div &&
               r.enc == c.enc, "'%s' parses to another stream", again);
}

static void stream(const uint8_t *p, size_t n)
{
    wire_frame_in pic;
    memset(&pic, 0, sizeof pic);
    while (n >= 4) {
        uint32_t len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        if (len > WIRE_MAX_SERVER_MSG || len > n - 4) break;
        uint8_t *body = fuzz_dup(p + 4, len);
        wire_msg m;
        if (srv_cstream_kind(body, len, &m) == SRV_CSTREAM_FRAME) {
            char err[160];
            memset(err, 'x', sizeof err);
            int rc = wire_frame_apply(&pic, &m, err, sizeof err);
            if (rc == WIRE_FRAME_OK)
                FUZZ_CHECK(pic.f.w >= 1 && pic.f.w <= 4096 && pic.f.h >= 1 && pic.f.h <= 4096,
                           "picture %dx%d", pic.f.w, pic.f.h);
            else
                bounded_len(err, sizeof err);
        }
        free(body);
        p += 4 + len;
        n -= 4 + len;
    }
    wire_frame_in_free(&pic);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t *p = fuzz_dup(data + 1, size - 1);
    size_t n = size - 1;
    if (data[0] & 1) {
        stream(p, n);
    } else {
        check_cmsg(p, n);
        check_creg(p, n);
        check_centry(p, n);
        check_cchan(p, n);
    }
    free(p);
    return 0;
}
