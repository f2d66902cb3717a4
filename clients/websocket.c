/* websocket.c — the client side of RFC 6455 without a transport; see websocket.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "net.h"
#include "websocket.h"

/* ---- the address ----------------------------------------------------------------------------- */
int cli_ws_is_url(const char *addr)
{
    return strncasecmp(addr, "ws://", 5) == 0;
}

int cli_ws_url_split(const char *url, char *hostport, size_t hcap, char *path, size_t pcap,
                     char *err, size_t errlen)
{
    if (strncasecmp(url, "wss://", 6) == 0) {
        snprintf(err, errlen, "'%s': wss:// (WebSocket over TLS) is not supported; vivd serves "
                 "ws://HOST:PORT/ws", url);
        return CLI_EPROTO;
    }
    if (!cli_ws_is_url(url)) {
        snprintf(err, errlen, "'%s' is not a ws:// address; want ws://HOST:PORT/ws", url);
        return CLI_EPROTO;
    }
    const char *hp = url + 5, *slash = strchr(hp, '/');
    size_t hl = slash ? (size_t)(slash - hp) : strlen(hp);
    const char *p = slash ? slash : CLI_WS_PATH;
    if (hl == 0 || hl >= hcap) {
        snprintf(err, errlen, "'%s': %s; want ws://HOST:PORT/ws", url, hl ? "the host is too long" : "no host");
        return CLI_EPROTO;
    }
    memcpy(hostport, hp, hl);
    hostport[hl] = '\0';
    char host[256];
    const char *port;
    /* An IPv6 address needs its brackets, or its last group would read as the port. */
    int v6_bare = hostport[0] != '[' && strchr(hostport, ':') != strrchr(hostport, ':');
    if (v6_bare || cli_hostport_split(hostport, host, sizeof host, &port) ||
        strspn(port, "0123456789") != strlen(port) || atol(port) < 1 || atol(port) > 65535 ||
        strlen(port) > 5) {
        snprintf(err, errlen, "'%s': the address needs a host and a port, as in ws://127.0.0.1:7401/ws "
                 "(or ws://[::1]:7401/ws)", url);
        return CLI_EPROTO;
    }
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c <= ' ' || *c == 0x7f) {
            snprintf(err, errlen, "'%s': the path has a space or a control character", url);
            return CLI_EPROTO;
        }
    if (strlen(p) >= pcap) {
        snprintf(err, errlen, "'%s': the path is too long", url);
        return CLI_EPROTO;
    }
    strcpy(path, p);
    return CLI_OK;
}

/* ---- SHA-1 and base64, for Sec-WebSocket-Accept ------------------------------------------------- */
static uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* SHA-1 (FIPS 180-4) of a message of at most 119 bytes: the handshake hashes a 60-byte one. */
static void sha1_short(const uint8_t *msg, size_t len, uint8_t out[20])
{
    uint8_t p[128];
    uint32_t h[5] = { 0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u };
    size_t total = ((len + 8) / 64 + 1) * 64;
    memset(p, 0, sizeof p);
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

/* ---- the opening handshake ----------------------------------------------------------------------- */
void cli_ws_key(const uint8_t nonce[16], char key[CLI_WS_KEY_LEN + 1])
{
    base64(nonce, 16, key);
}

void cli_ws_accept(const char *key, char accept[CLI_WS_ACCEPT_LEN + 1])
{
    char cat[CLI_WS_KEY_LEN + 40];
    uint8_t dig[20];
    int n = snprintf(cat, sizeof cat, "%.*s258EAFA5-E914-47DA-95CA-C5AB0DC85B11", CLI_WS_KEY_LEN, key);
    sha1_short((const uint8_t *)cat, (size_t)n, dig);
    base64(dig, 20, accept);
}

size_t cli_ws_request(char *out, size_t cap, const char *hostport, const char *path, const char *key,
                      const char *proto)
{
    int n = snprintf(out, cap,
                     "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s%s%s"
                     "Origin: http://%s\r\n\r\n",
                     path, hostport, key, proto ? "Sec-WebSocket-Protocol: " : "", proto ? proto : "",
                     proto ? "\r\n" : "", hostport);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

size_t cli_ws_answer_len(const uint8_t *p, size_t n)
{
    for (size_t i = 3; i < n; i++)
        if (p[i] == '\n' && p[i - 1] == '\r' && p[i - 2] == '\n' && p[i - 3] == '\r') return i + 1;
    return 0;
}

int cli_ws_answer_not_http(const uint8_t *p, size_t n)
{
    size_t k = n < 5 ? n : 5;
    return memcmp(p, "HTTP/", k) != 0;
}

/* The value of header field `name` in the header block (after the status line), trimmed, copied
 * into out: 1, or 0 when it is not there. */
static int field(const char *hdr, size_t len, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    const char *end = hdr + len, *line = memchr(hdr, '\n', len);
    while (line && ++line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) eol = end;
        if ((size_t)(eol - line) > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0) {
            const char *v = line + nl + 1, *ve = eol;
            while (v < ve && (*v == ' ' || *v == '\t')) v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t')) ve--;
            snprintf(out, cap, "%.*s", (int)(ve - v), v);
            return 1;
        }
        line = eol < end ? eol : NULL;
    }
    return 0;
}

/* A comma-separated header value holds token (any case). */
static int has_token(const char *value, const char *token)
{
    size_t tl = strlen(token);
    for (const char *v = value; *v;) {
        v += strspn(v, " \t,");
        size_t k = strcspn(v, ",");
        size_t t = k;
        while (t && (v[t - 1] == ' ' || v[t - 1] == '\t')) t--;
        if (t == tl && strncasecmp(v, token, tl) == 0) return 1;
        v += k;
    }
    return 0;
}

int cli_ws_answer_check(const char *hdr, size_t len, const char *key, const char *proto, char *err,
                        size_t errlen)
{
    size_t sl = 0;
    while (sl < len && hdr[sl] != '\r' && hdr[sl] != '\n') sl++;
    int is_http = len >= 12 && memcmp(hdr, "HTTP/1.", 7) == 0 && hdr[8] == ' ';
    for (int i = 9; is_http && i < 12; i++) is_http = hdr[i] >= '0' && hdr[i] <= '9';
    if (!is_http) {
        snprintf(err, errlen, "the answer to the WebSocket upgrade is not HTTP: '%.*s'",
                 (int)(sl > 60 ? 60 : sl), hdr);
        return CLI_EPROTO;
    }
    if (memcmp(hdr + 9, "101", 3) != 0) {
        snprintf(err, errlen, "%.*s", (int)(sl > 120 ? 120 : sl), hdr);
        return CLI_WS_REFUSED;
    }
    char v[256], want[CLI_WS_ACCEPT_LEN + 1];
    if (!field(hdr, len, "Upgrade", v, sizeof v) || strcasecmp(v, "websocket") != 0) {
        snprintf(err, errlen, "the 101 answer lacks 'Upgrade: websocket'");
        return CLI_EPROTO;
    }
    if (!field(hdr, len, "Connection", v, sizeof v) || !has_token(v, "upgrade")) {
        snprintf(err, errlen, "the 101 answer lacks 'Connection: Upgrade'");
        return CLI_EPROTO;
    }
    cli_ws_accept(key, want);
    if (!field(hdr, len, "Sec-WebSocket-Accept", v, sizeof v) || strcmp(v, want) != 0) {
        snprintf(err, errlen, "the 101 answer has a wrong or no Sec-WebSocket-Accept (want %s)", want);
        return CLI_EPROTO;
    }
    /* The server may choose no subprotocol, but never one that was not offered. */
    if (field(hdr, len, "Sec-WebSocket-Protocol", v, sizeof v) && (!proto || strcmp(v, proto) != 0)) {
        snprintf(err, errlen, "the server chose the subprotocol '%s', which was not offered", v);
        return CLI_EPROTO;
    }
    if (field(hdr, len, "Sec-WebSocket-Extensions", v, sizeof v)) {
        snprintf(err, errlen, "the server chose the extension '%s', and none was offered", v);
        return CLI_EPROTO;
    }
    return CLI_OK;
}

/* ---- frames a client sends ------------------------------------------------------------------------- */
size_t cli_ws_header_put(uint8_t *h, int fin, int opcode, uint64_t len, const uint8_t mask[4])
{
    size_t n = 0;
    uint8_t m = mask ? 0x80 : 0;
    h[n++] = (uint8_t)((fin ? 0x80 : 0) | (opcode & 15));
    if (len < 126) {
        h[n++] = (uint8_t)(m | len);
    } else if (len < 65536) {
        h[n++] = m | 126;
        h[n++] = (uint8_t)(len >> 8);
        h[n++] = (uint8_t)len;
    } else {
        h[n++] = m | 127;
        for (int i = 7; i >= 0; i--) h[n++] = (uint8_t)(len >> (8 * i));
    }
    if (mask) {
        memcpy(h + n, mask, 4);
        n += 4;
    }
    return n;
}

void cli_ws_mask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t offset)
{
    for (size_t i = 0; i < n; i++) p[i] ^= mask[(offset + i) & 3];
}

void cli_ws_put_frame(wire_buf *b, int fin, int opcode, const void *p, size_t n, const uint8_t mask[4])
{
    uint8_t h[CLI_WS_HEADER_MAX];
    size_t hl = cli_ws_header_put(h, fin, opcode, n, mask);
    if (wire_buf_reserve(b, hl + n)) return;
    wire_put_raw(b, h, hl);
    size_t at = b->len;
    wire_put_raw(b, p, n);
    if (mask) cli_ws_mask(b->p + at, n, mask, 0);
}

/* ---- what a server sends ----------------------------------------------------------------------------- */
void cli_ws_reader_init(cli_ws_reader *r, uint64_t max)
{
    memset(r, 0, sizeof *r);
    r->max = max;
    r->msgop = -1;
}

void cli_ws_reader_free(cli_ws_reader *r)
{
    free(r->frame);
    free(r->msg);
    cli_ws_reader_init(r, r->max);
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (*cap >= need) return 0;
    size_t nc = *cap ? *cap : 4096;
    while (nc < need) nc *= 2;
    uint8_t *q = realloc(*buf, nc);
    if (!q) return -1;
    *buf = q;
    *cap = nc;
    return 0;
}

typedef struct frame_hdr {
    int fin, op;
    size_t hlen;
    uint64_t len;
} frame_hdr;

/* A frame's header from the n bytes at b: 1 (h set), 0 (more bytes needed), CLI_EPROTO (err). Checks
 * what can be checked from the header alone, so nothing is buffered for a frame that is refused. */
static int header_read(const cli_ws_reader *r, const uint8_t *b, size_t n, frame_hdr *h, char *err,
                       size_t errlen)
{
    if (n < 2) return 0;
    uint64_t len = b[1] & 127;
    size_t hl = 2;
    if (len == 126) {
        if (n < 4) return 0;
        len = (uint64_t)b[2] << 8 | b[3];
        hl = 4;
    } else if (len == 127) {
        if (n < 10) return 0;
        len = 0;
        for (int i = 0; i < 8; i++) len = len << 8 | b[2 + i];
        hl = 10;
    }
    int op = b[0] & 15, fin = b[0] >> 7;
    if (b[0] & 0x70) {
        snprintf(err, errlen, "a frame with a reserved bit set (no extension was agreed)");
        return CLI_EPROTO;
    }
    if (b[1] & 0x80) {
        snprintf(err, errlen, "a masked frame (a server must not mask)");
        return CLI_EPROTO;
    }
    if (op >= 8) {
        if (op != CLI_WS_CLOSE && op != CLI_WS_PING && op != CLI_WS_PONG) {
            snprintf(err, errlen, "a frame with the unknown control opcode %d", op);
            return CLI_EPROTO;
        }
        if (!fin || len > CLI_WS_CONTROL_MAX || (op == CLI_WS_CLOSE && len == 1)) {
            snprintf(err, errlen, "a %s control frame of %llu bytes", fin ? "malformed" : "fragmented",
                     (unsigned long long)len);
            return CLI_EPROTO;
        }
    } else if (op > CLI_WS_BIN) {
        snprintf(err, errlen, "a frame with the unknown data opcode %d", op);
        return CLI_EPROTO;
    } else if (op == CLI_WS_CONT && r->msgop < 0) {
        snprintf(err, errlen, "a continuation frame with no message to continue");
        return CLI_EPROTO;
    } else if (op != CLI_WS_CONT && r->msgop >= 0) {
        snprintf(err, errlen, "a new message inside a fragmented one");
        return CLI_EPROTO;
    } else if (len > r->max || (op == CLI_WS_CONT && len > r->max - r->mlen)) {
        snprintf(err, errlen, "a message of %llu bytes or more, over the %llu accepted",
                 (unsigned long long)(len + (op == CLI_WS_CONT ? r->mlen : 0)),
                 (unsigned long long)r->max);
        return CLI_EPROTO;
    }
    h->fin = fin;
    h->op = op;
    h->hlen = hl;
    h->len = len;
    return 1;
}

/* A whole frame's payload pl: a control frame or a message is an event (1); a fragment is kept (0). */
static int frame_take(cli_ws_reader *r, const frame_hdr *h, const uint8_t *pl, cli_ws_event *ev,
                      char *err, size_t errlen)
{
    if (h->op == CLI_WS_CLOSE && h->len >= 2) {
        /* RFC 6455 7.4: 1004-1006 and 1015 are never sent, 1016-2999 are reserved, and nothing
         * under 1000 or over 4999 is a status. */
        int st = pl[0] << 8 | pl[1];
        if (st < 1000 || st > 4999 || (st >= 1004 && st <= 1006) || (st >= 1015 && st <= 2999)) {
            snprintf(err, errlen, "a close frame with the status %d, which may not be sent", st);
            return CLI_EPROTO;
        }
    }
    if (h->op >= 8 || (h->op != CLI_WS_CONT && h->fin)) {
        ev->op = h->op;
        ev->p = pl;
        ev->n = (size_t)h->len;
        return 1;
    }
    if (grow(&r->msg, &r->mcap, r->mlen + (size_t)h->len)) {
        snprintf(err, errlen, "out of memory joining a fragmented message");
        return CLI_EPROTO;
    }
    if (h->len) memcpy(r->msg + r->mlen, pl, (size_t)h->len);   /* an empty first fragment: msg NULL */
    r->mlen += (size_t)h->len;
    if (h->op != CLI_WS_CONT) r->msgop = h->op;
    if (!h->fin) return 0;
    ev->op = r->msgop;
    ev->p = r->msg;
    ev->n = r->mlen;
    r->msgop = -1;
    r->msg_out = 1;
    return 1;
}

int cli_ws_read(cli_ws_reader *r, const uint8_t **p, size_t *n, cli_ws_event *ev, char *err,
                size_t errlen)
{
    if (r->frame_out) {
        r->flen = 0;
        r->frame_out = 0;
    }
    if (r->msg_out) {
        r->mlen = 0;
        r->msg_out = 0;
    }
    for (;;) {
        frame_hdr h;
        int rc;
        if (r->flen) {
            /* A carried-over frame: first its header (at most CLI_WS_HEADER_MAX bytes), then the
             * rest of its payload. */
            while ((rc = header_read(r, r->frame, r->flen, &h, err, errlen)) == 0) {
                if (!*n) return 0;
                if (grow(&r->frame, &r->fcap, r->flen + 1)) goto oom;
                r->frame[r->flen++] = **p;
                (*p)++;
                (*n)--;
            }
            if (rc < 0) return rc;
            size_t total = h.hlen + (size_t)h.len;
            if (grow(&r->frame, &r->fcap, total)) goto oom;
            size_t k = total - r->flen < *n ? total - r->flen : *n;
            memcpy(r->frame + r->flen, *p, k);
            r->flen += k;
            *p += k;
            *n -= k;
            if (r->flen < total) return 0;
            rc = frame_take(r, &h, r->frame + h.hlen, ev, err, errlen);
            if (rc != 0) {
                r->frame_out = rc == 1;    /* ev may point into frame: it goes at the next call */
                return rc;
            }
            r->flen = 0;
            continue;
        }
        if (!*n) return 0;
        rc = header_read(r, *p, *n, &h, err, errlen);
        if (rc < 0) return rc;
        if (rc == 0 || *n - h.hlen < h.len) {
            /* Cut by the end of the bytes: keep what there is (a header is checked first). */
            if (grow(&r->frame, &r->fcap, *n)) goto oom;
            memcpy(r->frame, *p, *n);
            r->flen = *n;
            *p += *n;
            *n = 0;
            return 0;
        }
        const uint8_t *pl = *p + h.hlen;
        *p += h.hlen + (size_t)h.len;
        *n -= h.hlen + (size_t)h.len;
        rc = frame_take(r, &h, pl, ev, err, errlen);
        if (rc != 0) return rc;
    }
oom:
    snprintf(err, errlen, "out of memory holding a frame");
    return CLI_EPROTO;
}

int cli_ws_close_status(const cli_ws_event *ev, const char **reason, size_t *rlen)
{
    if (ev->n < 2) {
        *reason = "";
        *rlen = 0;
        return 1005;
    }
    *reason = (const char *)ev->p + 2;
    *rlen = ev->n - 2;
    return ev->p[0] << 8 | ev->p[1];
}
