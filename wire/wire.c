/* wire.c — the msgpack writer, the bounded msgpack decoder and the length framing of wire.h.
 *
 * Written by hand against the msgpack spec (github.com/msgpack/msgpack/blob/master/spec.md). The
 * writer picks the smallest form for every value, byte for byte as msgpack-c's packer does. The
 * decoder never allocates, never recurses, never reads past the n bytes it is given, and checks
 * every declared length and count against the bytes that remain before it looks further. */
#include "wire.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- writer ----------------------------------------------------------------------------------- */

void wire_buf_init(wire_buf *b)
{
    memset(b, 0, sizeof *b);
}

void wire_buf_free(wire_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void wire_buf_reset(wire_buf *b)
{
    b->len = 0;
    b->msg_start = 0;
    b->oom = 0;
}

/* Room for extra more bytes. Grows by doubling (from 256) so a message built a few bytes at a
 * time costs amortised O(1) per byte. Returns 0, or -1 with oom set (and then always -1 until
 * wire_buf_reset): a message with a hole in it must never be sent. */
int wire_buf_reserve(wire_buf *b, size_t extra)
{
    if (b->oom) return -1;
    if (extra > SIZE_MAX - b->len) {
        b->oom = 1;
        return -1;
    }
    size_t need = b->len + extra;
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void wire_put_raw(wire_buf *b, const void *p, size_t n)
{
    if (wire_buf_reserve(b, n) != 0 || n == 0) return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* One type byte followed by the low `size` bytes of v, big-endian. */
static void put_head(wire_buf *b, uint8_t type, uint64_t v, int size)
{
    uint8_t h[9];
    h[0] = type;
    for (int k = 0; k < size; k++) h[1 + k] = (uint8_t)(v >> (8 * (size - 1 - k)));
    wire_put_raw(b, h, 1 + (size_t)size);
}

/* The header of a str, bin, array or map of length n: the fix form (fix | n) when n <= fixmax
 * (fixmax < 0: there is none, as for bin), else the 8-, 16- or 32-bit form (t8 == 0: there is no
 * 8-bit form, as for arrays and maps). A length that msgpack cannot express (above 2^32 - 1)
 * marks the buffer oom: the message is unusable. */
static void put_len(wire_buf *b, uint8_t fix, int fixmax, uint8_t t8, uint8_t t16, uint8_t t32,
                    uint64_t n)
{
    if (fixmax >= 0 && n <= (uint64_t)fixmax) put_head(b, (uint8_t)(fix | n), 0, 0);
    else if (t8 && n <= 0xffu) put_head(b, t8, n, 1);
    else if (n <= 0xffffu) put_head(b, t16, n, 2);
    else if (n <= 0xffffffffu) put_head(b, t32, n, 4);
    else b->oom = 1;
}

void wire_put_nil(wire_buf *b)
{
    put_head(b, 0xc0, 0, 0);
}

void wire_put_bool(wire_buf *b, int v)
{
    put_head(b, v ? 0xc3 : 0xc2, 0, 0);
}

void wire_put_uint(wire_buf *b, uint64_t v)
{
    if (v <= 0x7fu) put_head(b, (uint8_t)v, 0, 0);
    else if (v <= 0xffu) put_head(b, 0xcc, v, 1);
    else if (v <= 0xffffu) put_head(b, 0xcd, v, 2);
    else if (v <= 0xffffffffu) put_head(b, 0xce, v, 4);
    else put_head(b, 0xcf, v, 8);
}

void wire_put_int(wire_buf *b, int64_t v)
{
    /* (uint64_t)v is the two's complement bit pattern (C11 6.3.1.3p2); put_head keeps its low
     * bytes, which is exactly the narrower two's complement encoding. */
    if (v >= 0) wire_put_uint(b, (uint64_t)v);
    else if (v >= -32) put_head(b, (uint8_t)(uint64_t)v, 0, 0);   /* negative fixint 0xe0..0xff */
    else if (v >= INT8_MIN) put_head(b, 0xd0, (uint64_t)v, 1);
    else if (v >= INT16_MIN) put_head(b, 0xd1, (uint64_t)v, 2);
    else if (v >= INT32_MIN) put_head(b, 0xd2, (uint64_t)v, 4);
    else put_head(b, 0xd3, (uint64_t)v, 8);
}

void wire_put_str(wire_buf *b, const char *s)
{
    wire_put_strn(b, s, strlen(s));
}

void wire_put_strn(wire_buf *b, const char *s, size_t n)
{
    put_len(b, 0xa0, 31, 0xd9, 0xda, 0xdb, n);
    wire_put_raw(b, s, n);
}

void wire_put_bin(wire_buf *b, const void *p, size_t n)
{
    wire_put_bin_header(b, n);
    wire_put_raw(b, p, n);
}

void wire_put_bin_header(wire_buf *b, size_t n)
{
    put_len(b, 0, -1, 0xc4, 0xc5, 0xc6, n);
}

void wire_put_array(wire_buf *b, uint32_t n)
{
    put_len(b, 0x90, 15, 0, 0xdc, 0xdd, n);
}

void wire_put_map(wire_buf *b, uint32_t n)
{
    put_len(b, 0x80, 15, 0, 0xde, 0xdf, n);
}

void wire_msg_begin(wire_buf *b)
{
    b->msg_start = b->len;
    put_head(b, 0, 0, 3);   /* four zero bytes, patched by wire_msg_end */
}

/* Patches the placeholder with the body length. -1 if the buffer is oom or the body is longer
 * than the 32-bit prefix (or a long) can say. */
long wire_msg_end(wire_buf *b)
{
    if (b->oom) return -1;
    assert(b->len >= b->msg_start + 4 && "wire_msg_end without wire_msg_begin");
    size_t body = b->len - b->msg_start - 4;
    if (body > 0xffffffffu || body > (size_t)LONG_MAX) return -1;
    uint8_t *h = b->p + b->msg_start;
    h[0] = (uint8_t)(body >> 24);
    h[1] = (uint8_t)(body >> 16);
    h[2] = (uint8_t)(body >> 8);
    h[3] = (uint8_t)body;
    return (long)body;
}

/* ---- reader ----------------------------------------------------------------------------------- */

static uint64_t be(const uint8_t *p, int size)
{
    uint64_t v = 0;
    for (int k = 0; k < size; k++) v = (v << 8) | p[k];
    return v;
}

/* The size-byte two's complement pattern x as a signed value, without relying on the
 * implementation-defined conversion of an out-of-range unsigned to a signed type. */
static int64_t sext(uint64_t x, int size)
{
    if (size == 8) return x <= (uint64_t)INT64_MAX ? (int64_t)x : -(int64_t)(~x) - 1;
    uint64_t sign = (uint64_t)1 << (8 * size - 1);
    return x < sign ? (int64_t)x : (int64_t)x - (int64_t)(sign << 1);
}

/* The header of the value at p[0..n): sets v's type, scalar, p and n, and says how many bytes
 * the header takes (*hdr), how many payload bytes follow it (*body: str, bin and ext data) and
 * how many values follow as its contents (*kids: array elements, or two per map pair). Every
 * declared length and count is checked against the n bytes before anything past the header is
 * trusted: a payload must fit, and each contained value needs at least one byte. Reads only
 * p[0..n). Returns WIRE_OK or WIRE_EMSGPACK. */
static int head(const uint8_t *p, size_t n, wire_val *v, size_t *hdr, size_t *body,
                uint64_t *kids)
{
    if (n == 0) return WIRE_EMSGPACK;
    const uint8_t c = p[0];
    size_t h = 1;            /* header bytes, type byte included */
    uint64_t len = 0;        /* payload bytes (str, bin, ext) */
    uint64_t count = 0;      /* contained values (array, map) */
    memset(v, 0, sizeof *v);

    if (c <= 0x7f) {
        v->type = WIRE_UINT;
        v->u = c;
    } else if (c <= 0x8f) {
        v->type = WIRE_MAP;
        v->n = c & 0x0fu;
    } else if (c <= 0x9f) {
        v->type = WIRE_ARRAY;
        v->n = c & 0x0fu;
    } else if (c <= 0xbf) {
        v->type = WIRE_STR;
        len = c & 0x1fu;
    } else if (c >= 0xe0) {
        v->type = WIRE_INT;
        v->i = (int64_t)c - 256;
    } else {
        /* 0xc0..0xdf: the type byte then a fixed-size field: its size, and whether it is a
         * length (str, bin, ext), a count (array, map) or the value itself. */
        int size = 0;
        switch (c) {
        case 0xc0: v->type = WIRE_NIL; break;
        case 0xc1: return WIRE_EMSGPACK;                  /* never used */
        case 0xc2: case 0xc3: v->type = WIRE_BOOL; v->i = c == 0xc3; break;
        case 0xc4: case 0xc5: case 0xc6: v->type = WIRE_BIN; size = 1 << (c - 0xc4); break;
        case 0xc7: case 0xc8: case 0xc9: v->type = WIRE_EXT; size = 1 << (c - 0xc7); break;
        case 0xca: case 0xcb: v->type = WIRE_FLOAT; size = 4 << (c - 0xca); break;
        case 0xcc: case 0xcd: case 0xce: case 0xcf:
            v->type = WIRE_UINT; size = 1 << (c - 0xcc); break;
        case 0xd0: case 0xd1: case 0xd2: case 0xd3:
            v->type = WIRE_INT; size = 1 << (c - 0xd0); break;
        case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
            v->type = WIRE_EXT; len = 1u << (c - 0xd4); break;   /* fixext 1..16: no length */
        case 0xd9: case 0xda: case 0xdb: v->type = WIRE_STR; size = 1 << (c - 0xd9); break;
        case 0xdc: case 0xdd: v->type = WIRE_ARRAY; size = 2 << (c - 0xdc); break;
        default:   v->type = WIRE_MAP; size = 2 << (c - 0xde); break;   /* 0xde, 0xdf */
        }
        h += (size_t)size + (v->type == WIRE_EXT);        /* ext: its type byte comes last */
        if (n < h) return WIRE_EMSGPACK;
        uint64_t x = be(p + 1, size);
        switch (v->type) {
        case WIRE_BIN: case WIRE_STR: len = x; break;
        case WIRE_EXT:
            if (size) len = x;
            v->i = sext(p[h - 1], 1);                        /* the ext type code */
            break;
        case WIRE_ARRAY: case WIRE_MAP: v->n = (uint32_t)x; break;
        case WIRE_UINT: v->u = x; break;
        case WIRE_INT: v->i = sext(x, size); break;
        case WIRE_FLOAT:
            if (size == 4) {
                uint32_t bits = (uint32_t)x;
                float f;
                memcpy(&f, &bits, sizeof f);
                v->f = f;
            } else {
                memcpy(&v->f, &x, sizeof v->f);
            }
            break;
        default: break;
        }
    }

    const uint64_t left = n - h;
    if (v->type == WIRE_ARRAY || v->type == WIRE_MAP) {
        count = v->type == WIRE_MAP ? 2 * (uint64_t)v->n : v->n;
        if (count > left) return WIRE_EMSGPACK;
    } else {
        if (len > left) return WIRE_EMSGPACK;
        if (v->type == WIRE_STR || v->type == WIRE_BIN || v->type == WIRE_EXT) v->n = (uint32_t)len;
    }
    v->p = p + h;
    *hdr = h;
    *body = (size_t)len;
    *kids = count;
    return WIRE_OK;
}

/* Walks the kids values that follow a container's header at p[*pos], checking that each is
 * well-formed and that no container opens deeper than WIRE_MAX_DEPTH (the outer container is
 * depth 1). No recursion: left[d] counts the values still to read at open depth d + 1. Every
 * step reads at least one header byte and head() checks each count against the bytes left, so
 * the walk ends within n steps whatever the counts claim. On success *pos is just past the
 * last value. */
static int walk(const uint8_t *p, size_t n, size_t *pos, uint64_t kids)
{
    uint64_t left[WIRE_MAX_DEPTH];
    int d = 0;
    size_t at = *pos;
    left[0] = kids;
    while (d >= 0) {
        if (left[d] == 0) {
            d--;
            continue;
        }
        left[d]--;
        wire_val v;
        size_t h, body;
        uint64_t k;
        int rc = head(p + at, n - at, &v, &h, &body, &k);
        if (rc != WIRE_OK) return rc;
        at += h + body;
        if (v.type == WIRE_ARRAY || v.type == WIRE_MAP) {
            if (d + 1 >= WIRE_MAX_DEPTH) return WIRE_EDEPTH;
            left[++d] = k;
        }
    }
    *pos = at;
    return WIRE_OK;
}

/* Decodes the value at p[0..n) and validates everything inside it (nesting at most
 * WIRE_MAX_DEPTH deep, counting this value as depth 1). A signed msgpack form (0xd0..0xd3, or a
 * negative fixint) gives WIRE_INT even when a lax encoder used it for a non-negative number; an
 * unsigned form gives WIRE_UINT. WIRE_BOOL sets i to 0 or 1; WIRE_EXT sets p and n to the data
 * and i to the ext type code. On error *out is zeroed and *used is 0. */
int wire_decode(const uint8_t *p, size_t n, wire_val *out, size_t *used)
{
    wire_val v;
    size_t h = 0, body = 0, pos;
    uint64_t kids = 0;
    int rc = head(p, n, &v, &h, &body, &kids);
    pos = h + body;
    if (rc == WIRE_OK && (v.type == WIRE_ARRAY || v.type == WIRE_MAP))
        rc = walk(p, n, &pos, kids);
    if (rc != WIRE_OK) {
        memset(out, 0, sizeof *out);
        if (used) *used = 0;
        return rc;
    }
    v.raw = p;
    v.rawlen = pos;
    *out = v;
    if (used) *used = pos;
    return WIRE_OK;
}

/* The next value at *it (before end), and *it moved past it. WIRE_EMSGPACK at the end. The
 * caller counts: an array has v->n values, a map 2 * v->n (key, value, key, ...). */
int wire_next(const uint8_t **it, const uint8_t *end, wire_val *out)
{
    if (*it >= end) {
        memset(out, 0, sizeof *out);
        return WIRE_EMSGPACK;
    }
    size_t used;
    int rc = wire_decode(*it, (size_t)(end - *it), out, &used);
    if (rc == WIRE_OK) *it += used;
    return rc;
}

/* A whole message body: one map of at most WIRE_MAX_KEYS string keys, nothing after it. A key
 * that appears twice keeps one slot and its last value (as JSON.parse and msgpack-c's C++ map
 * conversion do), so a message can never hold more distinct keys than it names. On failure
 * m->nkeys is 0. */
int wire_msg_decode(const uint8_t *p, size_t n, wire_msg *m)
{
    wire_val top;
    size_t used;
    m->nkeys = 0;
    int rc = wire_decode(p, n, &top, &used);
    if (rc != WIRE_OK) return rc;
    if (top.type != WIRE_MAP) return WIRE_ENOTMAP;
    if (used != n) return WIRE_EMSGPACK;
    if (top.n > WIRE_MAX_KEYS) return WIRE_ETOOMANY;

    const uint8_t *it = top.p, *end = top.raw + top.rawlen;
    int nkeys = 0;
    for (uint32_t k = 0; k < top.n; k++) {
        wire_val key, val;
        if ((rc = wire_next(&it, end, &key)) != WIRE_OK) return rc;
        if (key.type != WIRE_STR) return WIRE_ETOOMANY;
        if ((rc = wire_next(&it, end, &val)) != WIRE_OK) return rc;
        int slot = 0;
        while (slot < nkeys && !(m->keylen[slot] == key.n &&
                                 (key.n == 0 || memcmp(m->key[slot], key.p, key.n) == 0)))
            slot++;
        if (slot == nkeys) {
            m->key[slot] = key.p;
            m->keylen[slot] = key.n;
            nkeys++;
        }
        m->val[slot] = val;
    }
    m->nkeys = nkeys;
    return WIRE_OK;
}

const wire_val *wire_msg_get(const wire_msg *m, const char *key)
{
    for (int k = 0; k < m->nkeys; k++)
        if (wire_str_eq(m->key[k], m->keylen[k], key)) return &m->val[k];
    return NULL;
}

/* s points into the message body and is NOT NUL-terminated: use *len. */
int wire_get_str(const wire_msg *m, const char *key, const char **s, size_t *len)
{
    const wire_val *v = wire_msg_get(m, key);
    if (!v) return -1;
    if (v->type != WIRE_STR) return -2;
    if (s) *s = (const char *)v->p;
    if (len) *len = v->n;
    return 0;
}

/* An int value as int64 (0), or -2 for a uint above INT64_MAX or a non-int. */
static int val_i64(const wire_val *v, int64_t *out)
{
    if (v->type == WIRE_INT) {
        *out = v->i;
        return 0;
    }
    if (v->type == WIRE_UINT && v->u <= (uint64_t)INT64_MAX) {
        *out = (int64_t)v->u;
        return 0;
    }
    return -2;
}

int wire_get_u64(const wire_msg *m, const char *key, uint64_t *v)
{
    const wire_val *w = wire_msg_get(m, key);
    if (!w) return -1;
    if (w->type == WIRE_UINT) *v = w->u;
    else if (w->type == WIRE_INT && w->i >= 0) *v = (uint64_t)w->i;
    else return -2;
    return 0;
}

int wire_get_i64(const wire_msg *m, const char *key, int64_t *v)
{
    const wire_val *w = wire_msg_get(m, key);
    if (!w) return -1;
    return val_i64(w, v);
}

/* Only true and false: an int is not a bool. */
int wire_get_bool(const wire_msg *m, const char *key, int *v)
{
    const wire_val *w = wire_msg_get(m, key);
    if (!w) return -1;
    if (w->type != WIRE_BOOL) return -2;
    *v = (int)w->i;
    return 0;
}

/* On -2, out[] may be partly written and *count is 0. */
int wire_get_i32_array(const wire_msg *m, const char *key, int32_t *out, int max, int *count)
{
    const wire_val *w = wire_msg_get(m, key);
    *count = 0;
    if (!w) return -1;
    if (w->type != WIRE_ARRAY || max < 0 || w->n > (uint32_t)max) return -2;
    const uint8_t *it = w->p, *end = w->raw + w->rawlen;
    for (uint32_t k = 0; k < w->n; k++) {
        wire_val e;
        int64_t x;
        if (wire_next(&it, end, &e) != WIRE_OK || val_i64(&e, &x) != 0 || x < INT32_MIN ||
            x > INT32_MAX)
            return -2;
        out[k] = (int32_t)x;
    }
    *count = (int)w->n;
    return 0;
}

/* 1 if p[0..n) is exactly the bytes of s (no more, no fewer), else 0. */
int wire_str_eq(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    return k == n && (n == 0 || memcmp(p, s, n) == 0);
}

/* The sentences of WIRE_ETOOMANY and WIRE_EDEPTH (sim/errors.h, named by sim_strerror) give these
 * limits as numbers: a change of either must change them too. */
_Static_assert(WIRE_MAX_KEYS == 24 && WIRE_MAX_DEPTH == 8,
               "sim/errors.h's sentences of WIRE_ETOOMANY and WIRE_EDEPTH say 24 and 8");
