/* fuzz_wire.c — libFuzzer target: the bytes a client sends vivd.
 *
 * The input is a TCP stream as vivd's reader sees it (server/client.c on_read): messages of a
 * 4-byte big-endian length and a body. A length of 0 or over WIRE_MAX_CLIENT_MSG ends the stream
 * (vivd disconnects), as does a body cut short (vivd waits for the rest). Each body goes through
 * what server/proto.c does with it — wire_msg_decode, then the typed getters on the keys it
 * knows — plus every getter on every key the message has, and a wire_next walk over every array
 * and map inside. Besides memory safety, the target checks what wire.h promises:
 *   - a value wire_decode accepted iterates with wire_next exactly as its header counts, and the
 *     walk ends exactly at its end; every str/bin payload lies inside its value;
 *   - the getters agree with the value types (0 / -1 absent / -2 wrong type or range);
 *   - a decoded message re-encoded from its keys and raw values decodes to the same message;
 *   - scalars re-written with the writer decode to the same value. */
#include "fuzz.h"
#include "wire.h"

/* Every key server/proto.c reads, and the ones clients read from the server's messages. */
static const char *const known_keys[] = {
    "t", "v", "name", "token", "world", "every", "enc", "view", "op", "tick", "speed", "seq",
    "kind", "args", "params", "seed", "n", "key", "w", "h", "pv", "pal", "data", "fh", "sh",
    "code", "msg", "role", "client", "worlds", "",
};

typedef struct span { const uint8_t *lo, *hi; } span;

static int inside(span s, const uint8_t *p, size_t n)
{
    return p >= s.lo && p <= s.hi && n <= (size_t)(s.hi - p);
}

/* Re-encode a scalar with the writer and decode it again: the same value must come back. */
static void scalar_roundtrip(const wire_val *v)
{
    wire_buf b;
    wire_buf_init(&b);
    switch (v->type) {
    case WIRE_NIL: wire_put_nil(&b); break;
    case WIRE_BOOL: wire_put_bool(&b, (int)v->i); break;
    case WIRE_UINT: wire_put_uint(&b, v->u); break;
    case WIRE_INT: wire_put_int(&b, v->i); break;
    case WIRE_STR: wire_put_strn(&b, (const char *)v->p, v->n); break;
    case WIRE_BIN: wire_put_bin(&b, v->p, v->n); break;
    default: wire_buf_free(&b); return;
    }
    FUZZ_CHECK(!b.oom, "writer out of memory");
    uint8_t *copy = fuzz_dup(b.p, b.len);
    wire_val r;
    size_t used;
    int rc = wire_decode(copy, b.len, &r, &used);
    FUZZ_CHECK(rc == WIRE_OK && used == b.len, "re-encoded scalar does not decode (rc %d)", rc);
    switch (v->type) {
    case WIRE_NIL: FUZZ_CHECK(r.type == WIRE_NIL, "nil"); break;
    case WIRE_BOOL: FUZZ_CHECK(r.type == WIRE_BOOL && r.i == v->i, "bool"); break;
    case WIRE_UINT: FUZZ_CHECK(r.type == WIRE_UINT && r.u == v->u, "uint %llu", (unsigned long long)v->u); break;
    case WIRE_INT:
        /* The writer puts non-negative ints in unsigned form. */
        if (v->i >= 0) FUZZ_CHECK(r.type == WIRE_UINT && r.u == (uint64_t)v->i, "int %lld", (long long)v->i);
        else FUZZ_CHECK(r.type == WIRE_INT && r.i == v->i, "int %lld", (long long)v->i);
        break;
    default:
        FUZZ_CHECK(r.type == v->type && r.n == v->n && (v->n == 0 || memcmp(r.p, v->p, v->n) == 0),
                   "str/bin of %u bytes", v->n);
    }
    free(copy);
    wire_buf_free(&b);
}

/* Check one decoded value and everything inside it. depth counts this value (1 = top level):
 * containers nest at most WIRE_MAX_DEPTH deep (a scalar may sit inside the deepest one). */
static void check_value(const wire_val *v, span body, int depth)
{
    FUZZ_CHECK(depth <= WIRE_MAX_DEPTH || (v->type != WIRE_ARRAY && v->type != WIRE_MAP),
               "a container at depth %d was accepted", depth);
    FUZZ_CHECK(v->raw && v->rawlen >= 1 && inside(body, v->raw, v->rawlen), "raw outside the body");
    const uint8_t *end = v->raw + v->rawlen;
    switch (v->type) {
    case WIRE_STR: case WIRE_BIN: case WIRE_EXT:
        FUZZ_CHECK(v->p > v->raw && v->p + v->n == end, "payload of %u bytes is not the value's tail", v->n);
        break;
    case WIRE_FLOAT: case WIRE_NIL: case WIRE_BOOL: case WIRE_INT: case WIRE_UINT:
        FUZZ_CHECK(v->rawlen <= 9, "a scalar of %zu bytes", v->rawlen);
        break;
    case WIRE_ARRAY: case WIRE_MAP: {
        uint64_t count = v->type == WIRE_MAP ? 2 * (uint64_t)v->n : v->n;
        const uint8_t *it = v->p;
        FUZZ_CHECK(it > v->raw && it <= end, "container contents outside the value");
        for (uint64_t k = 0; k < count; k++) {
            const uint8_t *before = it;
            wire_val e;
            int rc = wire_next(&it, end, &e);
            FUZZ_CHECK(rc == WIRE_OK, "element %llu of %llu of an accepted container: rc %d",
                       (unsigned long long)k, (unsigned long long)count, rc);
            FUZZ_CHECK(e.raw == before && it == before + e.rawlen && it <= end, "wire_next moved wrongly");
            check_value(&e, body, depth + 1);
        }
        FUZZ_CHECK(it == end, "a container's elements end %td bytes before its end", end - it);
        wire_val past;
        FUZZ_CHECK(wire_next(&it, end, &past) != WIRE_OK, "wire_next read past the end");
        break;
    }
    default:
        FUZZ_CHECK(0, "unknown value type %d", v->type);
    }
    scalar_roundtrip(v);
}

/* Every getter on one key, checked against the value's type. */
static void check_getters(const wire_msg *m, const char *key, span body)
{
    const wire_val *v = wire_msg_get(m, key);
    const char *s = NULL;
    size_t sl = 0;
    int rc = wire_get_str(m, key, &s, &sl);
    FUZZ_CHECK(rc == (!v ? -1 : v->type == WIRE_STR ? 0 : -2), "wire_get_str '%s' gave %d", key, rc);
    if (rc == 0) FUZZ_CHECK(inside(body, (const uint8_t *)s, sl), "string outside the body");

    uint64_t u = 0;
    rc = wire_get_u64(m, key, &u);
    int want = !v ? -1 : (v->type == WIRE_UINT || (v->type == WIRE_INT && v->i >= 0)) ? 0 : -2;
    FUZZ_CHECK(rc == want, "wire_get_u64 '%s' gave %d, not %d", key, rc, want);
    if (rc == 0) FUZZ_CHECK(u == (v->type == WIRE_UINT ? v->u : (uint64_t)v->i), "u64 value");

    int64_t i = 0;
    rc = wire_get_i64(m, key, &i);
    want = !v ? -1 : (v->type == WIRE_INT || (v->type == WIRE_UINT && v->u <= (uint64_t)INT64_MAX)) ? 0 : -2;
    FUZZ_CHECK(rc == want, "wire_get_i64 '%s' gave %d, not %d", key, rc, want);

    int b = -1;
    rc = wire_get_bool(m, key, &b);
    FUZZ_CHECK(rc == (!v ? -1 : v->type == WIRE_BOOL ? 0 : -2), "wire_get_bool '%s' gave %d", key, rc);
    if (rc == 0) FUZZ_CHECK(b == 0 || b == 1, "bool value %d", b);

    /* The input handler's call (at most 8 args), and a roomier one. */
    static const int maxes[] = { 0, 8, 64 };
    for (size_t k = 0; k < sizeof maxes / sizeof maxes[0]; k++) {
        int max = maxes[k], count = -1;
        int32_t *out = malloc((size_t)(max ? max : 1) * sizeof *out);
        FUZZ_CHECK(out != NULL, "oom");
        rc = wire_get_i32_array(m, key, out, max, &count);
        if (!v) FUZZ_CHECK(rc == -1 && count == 0, "absent array");
        else if (v->type != WIRE_ARRAY || v->n > (uint32_t)max) FUZZ_CHECK(rc == -2 && count == 0, "array type/size");
        else {
            /* Walk it independently: every element an int that fits in 32 bits, or -2. */
            const uint8_t *it = v->p, *end = v->raw + v->rawlen;
            int all_ok = 1;
            for (uint32_t e = 0; e < v->n; e++) {
                wire_val x;
                FUZZ_CHECK(wire_next(&it, end, &x) == WIRE_OK, "array element");
                int64_t xv;
                if (x.type == WIRE_INT) xv = x.i;
                else if (x.type == WIRE_UINT && x.u <= INT32_MAX) xv = (int64_t)x.u;
                else { all_ok = 0; break; }
                if (xv < INT32_MIN || xv > INT32_MAX) { all_ok = 0; break; }
                if (rc == 0) FUZZ_CHECK(out[e] == (int32_t)xv, "array element %u", e);
            }
            FUZZ_CHECK(rc == (all_ok ? 0 : -2), "wire_get_i32_array gave %d", rc);
            FUZZ_CHECK(count == (rc == 0 ? (int)v->n : 0), "count %d", count);
        }
        free(out);
    }
}

/* Build the message again from its (deduplicated) keys and raw values; it must decode the same. */
static void message_roundtrip(const wire_msg *m)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, (uint32_t)m->nkeys);
    for (int k = 0; k < m->nkeys; k++) {
        wire_put_strn(&b, (const char *)m->key[k], m->keylen[k]);
        wire_put_raw(&b, m->val[k].raw, m->val[k].rawlen);
    }
    long body = wire_msg_end(&b);
    FUZZ_CHECK(body > 0 && (size_t)body + 4 == b.len, "wire_msg_end gave %ld for %zu bytes", body, b.len);
    FUZZ_CHECK(wire_be32(b.p) == (uint32_t)body, "length prefix");
    uint8_t *copy = fuzz_dup(b.p + 4, (size_t)body);
    wire_msg m2;
    int rc = wire_msg_decode(copy, (size_t)body, &m2);
    FUZZ_CHECK(rc == WIRE_OK && m2.nkeys == m->nkeys, "re-encoded message: rc %d, %d keys", rc, m2.nkeys);
    for (int k = 0; k < m->nkeys; k++)
        FUZZ_CHECK(m2.keylen[k] == m->keylen[k] &&
                   (m->keylen[k] == 0 || memcmp(m2.key[k], m->key[k], m->keylen[k]) == 0) &&
                   m2.val[k].rawlen == m->val[k].rawlen &&
                   memcmp(m2.val[k].raw, m->val[k].raw, m->val[k].rawlen) == 0,
                   "key %d differs after re-encoding", k);
    free(copy);
    wire_buf_free(&b);
}

/* One message body, as srv_handle_message takes it. */
static void handle(const uint8_t *p, size_t n)
{
    uint8_t *body = fuzz_dup(p, n);
    span sp = { body, body + n };
    wire_msg m;
    m.nkeys = 77;
    int rc = wire_msg_decode(body, n, &m);
    if (rc != WIRE_OK) {
        FUZZ_CHECK(m.nkeys == 0, "a failed decode left %d keys", m.nkeys);
        FUZZ_CHECK(rc == WIRE_EMSGPACK || rc == WIRE_ENOTMAP || rc == WIRE_ETOOMANY || rc == WIRE_EDEPTH,
                   "unknown error %d", rc);
        FUZZ_CHECK(sim_strerror(rc)[0] != '\0', "empty strerror");
        free(body);
        return;
    }
    FUZZ_CHECK(m.nkeys >= 0 && m.nkeys <= WIRE_MAX_KEYS, "%d keys", m.nkeys);
    wire_val top;
    size_t used;
    FUZZ_CHECK(wire_decode(body, n, &top, &used) == WIRE_OK && used == n && top.type == WIRE_MAP,
               "the message decodes but its top value does not");
    check_value(&top, sp, 1);
    for (int k = 0; k < m.nkeys; k++) {
        FUZZ_CHECK(inside(sp, m.key[k], m.keylen[k]), "key %d outside the body", k);
        for (int j = 0; j < k; j++)
            FUZZ_CHECK(!(m.keylen[j] == m.keylen[k] && memcmp(m.key[j], m.key[k], m.keylen[k]) == 0),
                       "duplicate key slots %d and %d", j, k);
        check_value(&m.val[k], sp, 2);
        /* The getters take NUL-terminated names: every key that can be named. */
        if (m.keylen[k] < 64 && !memchr(m.key[k], '\0', m.keylen[k])) {
            char name[64];
            memcpy(name, m.key[k], m.keylen[k]);
            name[m.keylen[k]] = '\0';
            check_getters(&m, name, sp);
            FUZZ_CHECK(wire_msg_get(&m, name) == &m.val[k], "wire_msg_get('%s') is not slot %d", name, k);
        }
    }
    for (size_t k = 0; k < sizeof known_keys / sizeof known_keys[0]; k++)
        check_getters(&m, known_keys[k], sp);
    /* What srv_handle_message does next: the type name, compared byte for byte. */
    const char *t;
    size_t tl;
    if (wire_get_str(&m, "t", &t, &tl) == 0) {
        static const char *const types[] = { "hello", "sub", "unsub", "input", "ping", "create",
                                             "close", "stats", "play" };
        int matches = 0;
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
            matches += wire_str_eq((const uint8_t *)t, tl, types[k]);
        FUZZ_CHECK(matches <= 1, "a type matched %d names", matches);
    }
    message_roundtrip(&m);
    free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    while (size - off >= 4) {
        uint32_t n = wire_be32(data + off);
        if (n == 0 || n > WIRE_MAX_CLIENT_MSG) break;      /* bad_length / too_large: disconnect */
        if (size - off - 4 < n) break;                      /* unfinished: vivd waits for more */
        handle(data + off + 4, n);
        off += 4 + (size_t)n;
    }
    return 0;
}
