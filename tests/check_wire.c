/* check_wire.c — the msgpack writer and bounded decoder of server/wire.c: every type's boundary
 * values through our writer and decoder, exact bytes against the spec and against msgpack-c's
 * packer, msgpack-c cross-decoding both ways, framing, the hostile inputs the decoder exists for
 * (truncation at every byte, counts and lengths larger than the message, deep nesting, random
 * garbage), the typed getters, and raw spans echoed verbatim.
 *
 * Every input handed to the decoder sits in a heap buffer of exactly its size (copy_exact), so a
 * read one byte past n is an ASan error in the sanitizer build. */
#include <check.h>
#include <math.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "wire.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

/* Check's ck_assert_* reports a "last good point" to the runner over a pipe on every success;
 * loops that make hundreds of thousands of checks use this instead, free until it fails. */
#define REQUIRE(c)                                                                                 \
    do {                                                                                           \
        if (!(c)) ck_abort_msg("line %d: %s", __LINE__, #c);                                       \
    } while (0)

/* A heap copy of exactly n bytes (at least one byte allocated, so n == 0 still gets a pointer). */
static uint8_t *copy_exact(const void *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    REQUIRE(q != NULL);
    if (n) memcpy(q, p, n);
    return q;
}

static void assert_bytes(const wire_buf *b, const uint8_t *want, size_t n)
{
    ck_assert_int_eq(b->oom, 0);
    ck_assert_uint_eq(b->len, n);
    ck_assert_mem_eq(b->p, want, n);
}

/* Decode b's whole contents as one value from an exact-size copy; *v's pointers are rebased
 * into b (the copy is freed). */
static void decode_one(const wire_buf *b, wire_val *v)
{
    uint8_t *q = copy_exact(b->p, b->len);
    size_t used = 0;
    int rc = wire_decode(q, b->len, v, &used);
    ck_assert_msg(rc == WIRE_OK, "decode: %s", wire_strerror(rc));
    ck_assert_uint_eq(used, b->len);
    ck_assert_uint_eq(v->rawlen, b->len);
    ck_assert_ptr_eq(v->raw, q);
    if (v->p) v->p = b->p + (v->p - q);
    v->raw = b->p;
    free(q);
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* msgpack-c's packer writing into an sbuffer. */
typedef struct mp {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} mp;

static void mp_init(mp *m)
{
    msgpack_sbuffer_init(&m->sb);
    msgpack_packer_init(&m->pk, &m->sb, msgpack_sbuffer_write);
}

static void mp_str(mp *m, const char *s)
{
    msgpack_pack_str(&m->pk, strlen(s));
    msgpack_pack_str_body(&m->pk, s, strlen(s));
}

/* A wire value and a msgpack-c object describe the same thing, contents included. */
static void assert_same(const wire_val *v, const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: REQUIRE(v->type == WIRE_NIL); break;
    case MSGPACK_OBJECT_BOOLEAN:
        REQUIRE(v->type == WIRE_BOOL);
        REQUIRE(v->i == o->via.boolean);
        break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        /* msgpack-c folds a non-negative signed form into POSITIVE too. */
        if (v->type == WIRE_INT) REQUIRE(v->i == (int64_t)o->via.u64);
        else {
            REQUIRE(v->type == WIRE_UINT);
            REQUIRE(v->u == o->via.u64);
        }
        break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        REQUIRE(v->type == WIRE_INT);
        REQUIRE(v->i == o->via.i64);
        break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        REQUIRE(v->type == WIRE_FLOAT);
        if (isnan(o->via.f64)) REQUIRE(isnan(v->f));
        else REQUIRE(v->f == o->via.f64);
        break;
    case MSGPACK_OBJECT_STR:
        REQUIRE(v->type == WIRE_STR);
        REQUIRE(v->n == o->via.str.size);
        if (v->n) REQUIRE(memcmp(v->p, o->via.str.ptr, v->n) == 0);
        break;
    case MSGPACK_OBJECT_BIN:
        REQUIRE(v->type == WIRE_BIN);
        REQUIRE(v->n == o->via.bin.size);
        if (v->n) REQUIRE(memcmp(v->p, o->via.bin.ptr, v->n) == 0);
        break;
    case MSGPACK_OBJECT_EXT:
        REQUIRE(v->type == WIRE_EXT);
        REQUIRE(v->i == o->via.ext.type);
        REQUIRE(v->n == o->via.ext.size);
        if (v->n) REQUIRE(memcmp(v->p, o->via.ext.ptr, v->n) == 0);
        break;
    case MSGPACK_OBJECT_ARRAY: {
        REQUIRE(v->type == WIRE_ARRAY);
        REQUIRE(v->n == o->via.array.size);
        const uint8_t *it = v->p, *end = v->raw + v->rawlen;
        for (uint32_t k = 0; k < v->n; k++) {
            wire_val e;
            REQUIRE(wire_next(&it, end, &e) == WIRE_OK);
            assert_same(&e, &o->via.array.ptr[k]);
        }
        REQUIRE(it == end);
        break;
    }
    case MSGPACK_OBJECT_MAP: {
        REQUIRE(v->type == WIRE_MAP);
        REQUIRE(v->n == o->via.map.size);
        const uint8_t *it = v->p, *end = v->raw + v->rawlen;
        for (uint32_t k = 0; k < v->n; k++) {
            wire_val key, val;
            REQUIRE(wire_next(&it, end, &key) == WIRE_OK);
            assert_same(&key, &o->via.map.ptr[k].key);
            REQUIRE(wire_next(&it, end, &val) == WIRE_OK);
            assert_same(&val, &o->via.map.ptr[k].val);
        }
        REQUIRE(it == end);
        break;
    }
    default: ck_abort_msg("unexpected msgpack-c type %d", (int)o->type);
    }
}

/* Unpack one value with msgpack-c from p[*off..n) and compare it with ours. */
static void assert_msgpackc_agrees(const uint8_t *p, size_t n, size_t *off)
{
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    size_t at = *off;
    msgpack_unpack_return r = msgpack_unpack_next(&up, (const char *)p, n, off);
    REQUIRE(r == MSGPACK_UNPACK_SUCCESS);
    wire_val v;
    size_t used;
    REQUIRE(wire_decode(p + at, n - at, &v, &used) == WIRE_OK);
    REQUIRE((at + used) == *off);
    assert_same(&v, &up.data);
    msgpack_unpacked_destroy(&up);
}

static const int64_t ints[] = {
    0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2147483647, 2147483648ll,
    4294967295ll, 4294967296ll, INT64_MAX, -1, -31, -32, -33, -127, -128, -129, -32767, -32768,
    -32769, -2147483647ll, -2147483647ll - 1, -2147483649ll, INT64_MIN + 1, INT64_MIN,
};
static const uint64_t uints[] = {
    0, 127, 128, 255, 256, 65535, 65536, 4294967295ull, 4294967296ull,
    (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
};
static const size_t lens[] = { 0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536, 70000 };

/* ---- exact bytes ------------------------------------------------------------------------------ */

START_TEST(known_encodings)
{
    static const struct {
        int64_t v;
        uint8_t n, b[9];
    } cases[] = {
        { 0, 1, { 0x00 } },
        { 127, 1, { 0x7f } },
        { 128, 2, { 0xcc, 0x80 } },
        { 255, 2, { 0xcc, 0xff } },
        { 256, 3, { 0xcd, 0x01, 0x00 } },
        { 300, 3, { 0xcd, 0x01, 0x2c } },
        { 65536, 5, { 0xce, 0x00, 0x01, 0x00, 0x00 } },
        { 4294967296ll, 9, { 0xcf, 0, 0, 0, 1, 0, 0, 0, 0 } },
        { -1, 1, { 0xff } },
        { -32, 1, { 0xe0 } },
        { -33, 2, { 0xd0, 0xdf } },
        { -128, 2, { 0xd0, 0x80 } },
        { -129, 3, { 0xd1, 0xff, 0x7f } },
        { -32769, 5, { 0xd2, 0xff, 0xff, 0x7f, 0xff } },
        { INT64_MIN, 9, { 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0 } },
    };
    wire_buf b;
    wire_buf_init(&b);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        wire_buf_reset(&b);
        wire_put_int(&b, cases[k].v);
        assert_bytes(&b, cases[k].b, cases[k].n);
    }

    static const uint8_t hi[] = { 0xa2, 0x68, 0x69 };
    wire_buf_reset(&b);
    wire_put_str(&b, "hi");
    assert_bytes(&b, hi, sizeof hi);

    static const uint8_t misc[] = { 0xc0, 0xc3, 0xc2, 0xc4, 0x00, 0xc4, 0x01, 0xab, 0x90, 0x9f,
                                    0xdc, 0x00, 0x10, 0x80, 0x8f, 0xde, 0x00, 0x10, 0xdf, 0x00,
                                    0x01, 0x00, 0x00, 0xa0, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff };
    wire_buf_reset(&b);
    wire_put_nil(&b);
    wire_put_bool(&b, 7);
    wire_put_bool(&b, 0);
    wire_put_bin(&b, NULL, 0);
    wire_put_bin(&b, "\xab", 1);
    wire_put_array(&b, 0);
    wire_put_array(&b, 15);
    wire_put_array(&b, 16);
    wire_put_map(&b, 0);
    wire_put_map(&b, 15);
    wire_put_map(&b, 16);
    wire_put_map(&b, 65536);
    wire_put_strn(&b, "", 0);
    wire_put_uint(&b, UINT64_MAX);
    assert_bytes(&b, misc, sizeof misc);
    wire_buf_free(&b);
}
END_TEST

/* Our writer's bytes equal msgpack-c's packer's, value by value: both take the smallest form. */
START_TEST(writer_matches_msgpackc_bytes)
{
    wire_buf b;
    mp m;
    wire_buf_init(&b);
    mp_init(&m);
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        wire_put_int(&b, ints[k]);
        msgpack_pack_int64(&m.pk, ints[k]);
    }
    for (size_t k = 0; k < sizeof uints / sizeof uints[0]; k++) {
        wire_put_uint(&b, uints[k]);
        msgpack_pack_uint64(&m.pk, uints[k]);
    }
    char *blob = calloc(1, 70000);
    ck_assert_ptr_nonnull(blob);
    memset(blob, 'x', 70000);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        wire_put_strn(&b, blob, lens[k]);
        msgpack_pack_str_with_body(&m.pk, blob, lens[k]);
        wire_put_bin(&b, blob, lens[k]);
        msgpack_pack_bin_with_body(&m.pk, blob, lens[k]);
        wire_put_array(&b, (uint32_t)lens[k]);
        msgpack_pack_array(&m.pk, lens[k]);
        wire_put_map(&b, (uint32_t)lens[k]);
        msgpack_pack_map(&m.pk, lens[k]);
    }
    wire_put_nil(&b);
    msgpack_pack_nil(&m.pk);
    wire_put_bool(&b, 1);
    msgpack_pack_true(&m.pk);
    wire_put_bool(&b, 0);
    msgpack_pack_false(&m.pk);
    ck_assert_int_eq(b.oom, 0);
    ck_assert_uint_eq(b.len, m.sb.size);
    ck_assert_mem_eq(b.p, m.sb.data, b.len);
    free(blob);
    msgpack_sbuffer_destroy(&m.sb);
    wire_buf_free(&b);
}
END_TEST

/* ---- round trips ------------------------------------------------------------------------------ */

START_TEST(int_round_trip)
{
    wire_buf b;
    wire_buf_init(&b);
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        wire_val v;
        wire_buf_reset(&b);
        wire_put_int(&b, ints[k]);
        decode_one(&b, &v);
        if (ints[k] >= 0) {
            ck_assert_int_eq(v.type, WIRE_UINT);
            ck_assert_uint_eq(v.u, (uint64_t)ints[k]);
        } else {
            ck_assert_int_eq(v.type, WIRE_INT);
            ck_assert_int_eq(v.i, ints[k]);
        }
    }
    for (size_t k = 0; k < sizeof uints / sizeof uints[0]; k++) {
        wire_val v;
        wire_buf_reset(&b);
        wire_put_uint(&b, uints[k]);
        decode_one(&b, &v);
        ck_assert_int_eq(v.type, WIRE_UINT);
        ck_assert_uint_eq(v.u, uints[k]);
    }
    wire_buf_free(&b);
}
END_TEST

/* Signed forms that a lax encoder might use for small values decode to the same number. */
START_TEST(wide_int_forms)
{
    static const struct {
        uint8_t n, b[9];
        int type;
        int64_t i;
        uint64_t u;
    } cases[] = {
        { 2, { 0xd0, 0x05 }, WIRE_INT, 5, 0 },
        { 2, { 0xd0, 0x7f }, WIRE_INT, 127, 0 },
        { 3, { 0xd1, 0x80, 0x00 }, WIRE_INT, -32768, 0 },
        { 5, { 0xd2, 0x80, 0, 0, 0 }, WIRE_INT, INT32_MIN, 0 },
        { 9, { 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe }, WIRE_INT, -2, 0 },
        { 9, { 0xd3, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, WIRE_INT, INT64_MAX, 0 },
        { 2, { 0xcc, 0x01 }, WIRE_UINT, 0, 1 },
        { 9, { 0xcf, 0, 0, 0, 0, 0, 0, 0, 3 }, WIRE_UINT, 0, 3 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint8_t *q = copy_exact(cases[k].b, cases[k].n);
        wire_val v;
        size_t used;
        ck_assert_int_eq(wire_decode(q, cases[k].n, &v, &used), WIRE_OK);
        ck_assert_uint_eq(used, cases[k].n);
        ck_assert_int_eq(v.type, cases[k].type);
        if (v.type == WIRE_INT) ck_assert_int_eq(v.i, cases[k].i);
        else ck_assert_uint_eq(v.u, cases[k].u);
        free(q);
    }
}
END_TEST

START_TEST(str_bin_round_trip)
{
    wire_buf b;
    wire_buf_init(&b);
    uint8_t *blob = malloc(70000);
    ck_assert_ptr_nonnull(blob);
    for (size_t k = 0; k < 70000; k++) blob[k] = (uint8_t)(k * 7 + 3);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        size_t n = lens[k];
        wire_val v;
        wire_buf_reset(&b);
        wire_put_strn(&b, (const char *)blob, n);
        decode_one(&b, &v);
        ck_assert_int_eq(v.type, WIRE_STR);
        ck_assert_uint_eq(v.n, n);
        if (n) ck_assert_mem_eq(v.p, blob, n);
        ck_assert_uint_eq(v.rawlen - n, n < 32 ? 1 : n < 256 ? 2 : n < 65536 ? 3 : 5);

        wire_buf_reset(&b);
        wire_put_bin(&b, blob, n);
        decode_one(&b, &v);
        ck_assert_int_eq(v.type, WIRE_BIN);
        ck_assert_uint_eq(v.n, n);
        if (n) ck_assert_mem_eq(v.p, blob, n);
        ck_assert_uint_eq(v.rawlen - n, n < 256 ? 2 : n < 65536 ? 3 : 5);

        /* bin_header + raw is the same as bin */
        wire_buf c;
        wire_buf_init(&c);
        wire_put_bin_header(&c, n);
        wire_put_raw(&c, blob, n);
        ck_assert_uint_eq(c.len, b.len);
        ck_assert_mem_eq(c.p, b.p, b.len);
        wire_buf_free(&c);
    }
    free(blob);
    wire_buf_free(&b);
}
END_TEST

START_TEST(nil_bool_round_trip)
{
    wire_buf b;
    wire_val v;
    wire_buf_init(&b);
    wire_put_nil(&b);
    decode_one(&b, &v);
    ck_assert_int_eq(v.type, WIRE_NIL);
    wire_buf_reset(&b);
    wire_put_bool(&b, 1);
    decode_one(&b, &v);
    ck_assert_int_eq(v.type, WIRE_BOOL);
    ck_assert_int_eq(v.i, 1);
    wire_buf_reset(&b);
    wire_put_bool(&b, 0);
    decode_one(&b, &v);
    ck_assert_int_eq(v.type, WIRE_BOOL);
    ck_assert_int_eq(v.i, 0);
    wire_buf_free(&b);
}
END_TEST

/* Arrays and maps of every header size; elements come back in order through wire_next. */
START_TEST(array_map_round_trip)
{
    static const uint32_t counts[] = { 0, 1, 15, 16, 65535, 65536 };
    wire_buf b;
    wire_buf_init(&b);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        uint32_t n = counts[k];
        wire_val v, e;
        wire_buf_reset(&b);
        wire_put_array(&b, n);
        for (uint32_t j = 0; j < n; j++) wire_put_uint(&b, j);
        decode_one(&b, &v);
        REQUIRE(v.type == WIRE_ARRAY);
        REQUIRE(v.n == n);
        const uint8_t *it = v.p, *end = v.raw + v.rawlen;
        for (uint32_t j = 0; j < n; j++) {
            REQUIRE(wire_next(&it, end, &e) == WIRE_OK);
            REQUIRE(e.type == WIRE_UINT);
            REQUIRE(e.u == j);
        }
        REQUIRE(wire_next(&it, end, &e) == WIRE_EMSGPACK);   /* past the end */

        wire_buf_reset(&b);
        wire_put_map(&b, n);
        for (uint32_t j = 0; j < n; j++) {
            wire_put_uint(&b, j);
            wire_put_int(&b, -(int64_t)j - 1);
        }
        decode_one(&b, &v);
        REQUIRE(v.type == WIRE_MAP);
        REQUIRE(v.n == n);
        it = v.p;
        end = v.raw + v.rawlen;
        for (uint32_t j = 0; j < n; j++) {
            REQUIRE(wire_next(&it, end, &e) == WIRE_OK);
            REQUIRE(e.u == j);
            REQUIRE(wire_next(&it, end, &e) == WIRE_OK);
            REQUIRE(e.type == WIRE_INT);
            REQUIRE(e.i == (-(int64_t)j - 1));
        }
        REQUIRE(it == end);
    }
    wire_buf_free(&b);
}
END_TEST

/* Floats and exts have no writer (the protocol never sends them) but must decode: msgpack-c
 * packs them. */
START_TEST(float_ext_decode)
{
    static const double dv[] = { 0.0, -0.0, 1.5, -1e300, 5e-324, INFINITY, -INFINITY };
    static const float fv[] = { 0.25f, -3.0f, 1e-45f, 3.4028235e38f };
    for (size_t k = 0; k < sizeof dv / sizeof dv[0]; k++) {
        mp m;
        mp_init(&m);
        msgpack_pack_double(&m.pk, dv[k]);
        ck_assert_uint_eq(m.sb.size, 9);
        ck_assert_uint_eq((uint8_t)m.sb.data[0], 0xcb);
        uint8_t *q = copy_exact(m.sb.data, m.sb.size);
        wire_val v;
        size_t used;
        ck_assert_int_eq(wire_decode(q, m.sb.size, &v, &used), WIRE_OK);
        ck_assert_int_eq(v.type, WIRE_FLOAT);
        ck_assert(v.f == dv[k]);
        ck_assert_int_eq(signbit(v.f) != 0, signbit(dv[k]) != 0);
        free(q);
        msgpack_sbuffer_destroy(&m.sb);
    }
    for (size_t k = 0; k < sizeof fv / sizeof fv[0]; k++) {
        mp m;
        mp_init(&m);
        msgpack_pack_float(&m.pk, fv[k]);
        ck_assert_uint_eq(m.sb.size, 5);
        uint8_t *q = copy_exact(m.sb.data, m.sb.size);
        wire_val v;
        size_t used;
        ck_assert_int_eq(wire_decode(q, m.sb.size, &v, &used), WIRE_OK);
        ck_assert_int_eq(v.type, WIRE_FLOAT);
        ck_assert(v.f == (double)fv[k]);
        free(q);
        msgpack_sbuffer_destroy(&m.sb);
    }
    static const uint8_t nan32[] = { 0xca, 0x7f, 0xc0, 0x00, 0x00 };
    wire_val v;
    size_t used;
    uint8_t *q = copy_exact(nan32, sizeof nan32);
    ck_assert_int_eq(wire_decode(q, sizeof nan32, &v, &used), WIRE_OK);
    ck_assert(isnan(v.f));
    free(q);

    /* fixext 1..16, ext8, ext16, ext32: header sizes 2, 3, 4, 6 */
    static const size_t elens[] = { 1, 2, 4, 8, 16, 0, 3, 255, 256, 65536 };
    uint8_t data[65536];
    for (size_t k = 0; k < sizeof data; k++) data[k] = (uint8_t)(k ^ 0x5a);
    for (size_t k = 0; k < sizeof elens / sizeof elens[0]; k++) {
        size_t n = elens[k];
        mp m;
        mp_init(&m);
        msgpack_pack_ext_with_body(&m.pk, data, n, (int8_t)(k % 2 ? -7 : 42));
        size_t hdr = (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) ? 2
                     : n < 256 ? 3 : n < 65536 ? 4 : 6;
        ck_assert_uint_eq(m.sb.size, hdr + n);
        q = copy_exact(m.sb.data, m.sb.size);
        ck_assert_int_eq(wire_decode(q, m.sb.size, &v, &used), WIRE_OK);
        ck_assert_int_eq(v.type, WIRE_EXT);
        ck_assert_int_eq(v.i, k % 2 ? -7 : 42);
        ck_assert_uint_eq(v.n, n);
        ck_assert_uint_eq(used, hdr + n);
        ck_assert_ptr_eq(v.p, q + hdr);
        if (n) ck_assert_mem_eq(v.p, data, n);
        free(q);
        msgpack_sbuffer_destroy(&m.sb);
    }
}
END_TEST

/* ---- msgpack-c, both ways --------------------------------------------------------------------- */

START_TEST(msgpackc_to_wire)
{
    mp m;
    mp_init(&m);
    msgpack_pack_map(&m.pk, 12);
    mp_str(&m, "t");
    mp_str(&m, "hello");
    mp_str(&m, "n");
    msgpack_pack_int(&m.pk, 300);
    mp_str(&m, "neg");
    msgpack_pack_int64(&m.pk, -129);
    mp_str(&m, "big");
    msgpack_pack_uint64(&m.pk, UINT64_MAX);
    mp_str(&m, "min");
    msgpack_pack_int64(&m.pk, INT64_MIN);
    mp_str(&m, "f");
    msgpack_pack_double(&m.pk, 2.5);
    mp_str(&m, "ok");
    msgpack_pack_true(&m.pk);
    mp_str(&m, "none");
    msgpack_pack_nil(&m.pk);
    mp_str(&m, "bin");
    msgpack_pack_bin_with_body(&m.pk, "\x00\x01\x02", 3);
    mp_str(&m, "xs");
    msgpack_pack_array(&m.pk, 4);
    msgpack_pack_int(&m.pk, 1);
    msgpack_pack_int(&m.pk, -1);
    msgpack_pack_int(&m.pk, 70000);
    msgpack_pack_int(&m.pk, INT32_MIN);
    mp_str(&m, "sub");
    msgpack_pack_map(&m.pk, 1);
    mp_str(&m, "x");
    msgpack_pack_array(&m.pk, 0);
    mp_str(&m, "e");
    msgpack_pack_ext_with_body(&m.pk, "abcd", 4, 1);

    uint8_t *q = copy_exact(m.sb.data, m.sb.size);
    wire_msg msg;
    ck_assert_int_eq(wire_msg_decode(q, m.sb.size, &msg), WIRE_OK);
    ck_assert_int_eq(msg.nkeys, 12);
    const char *s;
    size_t len;
    uint64_t u;
    int64_t i;
    int bv;
    int32_t xs[8];
    int cnt;
    ck_assert_int_eq(wire_get_str(&msg, "t", &s, &len), 0);
    ck_assert_uint_eq(len, 5);
    ck_assert_mem_eq(s, "hello", 5);
    ck_assert_int_eq(wire_get_u64(&msg, "n", &u), 0);
    ck_assert_uint_eq(u, 300);
    ck_assert_int_eq(wire_get_i64(&msg, "neg", &i), 0);
    ck_assert_int_eq(i, -129);
    ck_assert_int_eq(wire_get_u64(&msg, "big", &u), 0);
    ck_assert_uint_eq(u, UINT64_MAX);
    ck_assert_int_eq(wire_get_i64(&msg, "min", &i), 0);
    ck_assert_int_eq(i, INT64_MIN);
    const wire_val *f = wire_msg_get(&msg, "f");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->type, WIRE_FLOAT);
    ck_assert(f->f == 2.5);
    ck_assert_int_eq(wire_get_bool(&msg, "ok", &bv), 0);
    ck_assert_int_eq(bv, 1);
    ck_assert_int_eq(wire_msg_get(&msg, "none")->type, WIRE_NIL);
    const wire_val *bin = wire_msg_get(&msg, "bin");
    ck_assert_int_eq(bin->type, WIRE_BIN);
    ck_assert_uint_eq(bin->n, 3);
    ck_assert_mem_eq(bin->p, "\x00\x01\x02", 3);
    ck_assert_int_eq(wire_get_i32_array(&msg, "xs", xs, 8, &cnt), 0);
    ck_assert_int_eq(cnt, 4);
    ck_assert_int_eq(xs[0], 1);
    ck_assert_int_eq(xs[1], -1);
    ck_assert_int_eq(xs[2], 70000);
    ck_assert_int_eq(xs[3], INT32_MIN);
    ck_assert_int_eq(wire_msg_get(&msg, "sub")->type, WIRE_MAP);
    ck_assert_int_eq(wire_msg_get(&msg, "e")->type, WIRE_EXT);

    /* and the whole tree, value by value, against msgpack-c's own decoding of it */
    size_t off = 0;
    assert_msgpackc_agrees(q, m.sb.size, &off);
    ck_assert_uint_eq(off, m.sb.size);
    free(q);
    msgpack_sbuffer_destroy(&m.sb);
}
END_TEST

START_TEST(wire_to_msgpackc)
{
    wire_buf b;
    wire_buf_init(&b);
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) wire_put_int(&b, ints[k]);
    for (size_t k = 0; k < sizeof uints / sizeof uints[0]; k++) wire_put_uint(&b, uints[k]);
    char *blob = malloc(70000);
    ck_assert_ptr_nonnull(blob);
    for (size_t k = 0; k < 70000; k++) blob[k] = (char)('a' + k % 26);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        wire_put_strn(&b, blob, lens[k]);
        wire_put_bin(&b, blob, lens[k]);
    }
    /* a message as the server would send it, nested */
    wire_put_map(&b, 4);
    wire_put_str(&b, "t");
    wire_put_str(&b, "frame");
    wire_put_str(&b, "tick");
    wire_put_uint(&b, 123456789);
    wire_put_str(&b, "pal");
    wire_put_array(&b, 3);
    wire_put_array(&b, 0);
    wire_put_map(&b, 1);
    wire_put_nil(&b);
    wire_put_bool(&b, 0);
    wire_put_array(&b, 2);
    wire_put_int(&b, -5);
    wire_put_str(&b, "x");
    wire_put_str(&b, "key");
    wire_put_bool(&b, 1);
    ck_assert_int_eq(b.oom, 0);

    size_t off = 0, values = 0;
    while (off < b.len) {
        assert_msgpackc_agrees(b.p, b.len, &off);
        values++;
    }
    ck_assert_uint_eq(off, b.len);
    ck_assert_uint_eq(values, sizeof ints / sizeof ints[0] + sizeof uints / sizeof uints[0] +
                                 2 * (sizeof lens / sizeof lens[0]) + 1);
    free(blob);
    wire_buf_free(&b);
}
END_TEST

/* ---- framing and the writer's memory ---------------------------------------------------------- */

START_TEST(framing)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 1);
    wire_put_str(&b, "t");
    wire_put_str(&b, "hi");
    ck_assert_int_eq(wire_msg_end(&b), 6);
    static const uint8_t one[] = { 0, 0, 0, 6, 0x81, 0xa1, 't', 0xa2, 'h', 'i' };
    assert_bytes(&b, one, sizeof one);

    /* a second message after the first, long enough to need three length bytes */
    size_t start = b.len;
    wire_msg_begin(&b);
    ck_assert_uint_eq(b.msg_start, start);
    char *blob = calloc(1, 70000);
    ck_assert_ptr_nonnull(blob);
    wire_put_bin(&b, blob, 70000);
    ck_assert_int_eq(wire_msg_end(&b), 70005);
    ck_assert_uint_eq(wire_be32(b.p + start), 70005);
    static const uint8_t len70005[] = { 0x00, 0x01, 0x11, 0x75, 0xc6 };
    ck_assert_mem_eq(b.p + start, len70005, sizeof len70005);
    ck_assert_uint_eq(b.len, start + 4 + 70005);
    ck_assert_uint_eq(wire_be32(b.p), 6);   /* the first prefix is untouched */

    /* an empty body */
    wire_buf_reset(&b);
    wire_msg_begin(&b);
    ck_assert_int_eq(wire_msg_end(&b), 0);
    static const uint8_t zero[] = { 0, 0, 0, 0 };
    assert_bytes(&b, zero, 4);

    static const uint8_t be[] = { 0xde, 0xad, 0xbe, 0xef };
    ck_assert_uint_eq(wire_be32(be), 0xdeadbeefu);
    free(blob);
    wire_buf_free(&b);
}
END_TEST

START_TEST(writer_growth_and_oom)
{
    wire_buf b;
    wire_buf_init(&b);
    /* many small puts: contents exact, capacity grows geometrically (few reallocs) */
    int grows = 0;
    size_t cap = b.cap;
    for (uint32_t k = 0; k < 100000; k++) {
        wire_put_uint(&b, k & 0x7f);
        if (b.cap != cap) grows++, cap = b.cap;
    }
    REQUIRE(b.len == 100000);
    for (uint32_t k = 0; k < 100000; k++) REQUIRE(b.p[k] == (k & 0x7f));
    REQUIRE(grows <= 20);

    /* reset keeps the allocation */
    uint8_t *p = b.p;
    wire_buf_reset(&b);
    REQUIRE(b.len == 0);
    REQUIRE(b.p == p);
    REQUIRE(b.cap == cap);

    /* a reservation that cannot be met: oom, sticky, nothing more written, no message */
    wire_msg_begin(&b);
    wire_put_str(&b, "before");
    size_t len = b.len;
    ck_assert_int_eq(wire_buf_reserve(&b, SIZE_MAX - 2), -1);
    ck_assert_int_ne(b.oom, 0);
    wire_put_str(&b, "after");
    wire_put_uint(&b, 1);
    wire_put_map(&b, 3);
    wire_put_raw(&b, "xyz", 3);
    ck_assert_uint_eq(b.len, len);
    ck_assert_int_eq(wire_buf_reserve(&b, 1), -1);
    ck_assert_int_eq(wire_msg_end(&b), -1);
    wire_buf_reset(&b);
    ck_assert_int_eq(b.oom, 0);
    ck_assert_int_eq(wire_buf_reserve(&b, 10), 0);
    wire_msg_begin(&b);
    wire_put_nil(&b);
    ck_assert_int_eq(wire_msg_end(&b), 1);

#if SIZE_MAX > 0xffffffffu
    /* a str longer than msgpack can say: refused before a byte of s is read */
    wire_buf_reset(&b);
    wire_put_strn(&b, "x", (size_t)0xffffffffu + 1);
    ck_assert_int_ne(b.oom, 0);
    ck_assert_uint_eq(b.len, 0);
    wire_buf_reset(&b);
    wire_put_bin_header(&b, (size_t)0xffffffffu + 1);
    ck_assert_int_ne(b.oom, 0);
#endif
    wire_buf_free(&b);
    ck_assert_ptr_null(b.p);
    wire_buf_free(&b);   /* twice is harmless */
}
END_TEST

/* ---- hostile input ---------------------------------------------------------------------------- */

/* A message with every kind of value in it, nested. */
static void rich_message(wire_buf *b)
{
    char s300[300];
    memset(s300, 's', sizeof s300);
    wire_put_map(b, 9);
    wire_put_str(b, "t");
    wire_put_str(b, "input");
    wire_put_str(b, "tick");
    wire_put_uint(b, 4294967296ull);
    wire_put_str(b, "dx");
    wire_put_int(b, -40000);
    wire_put_str(b, "name");
    wire_put_strn(b, s300, sizeof s300);
    wire_put_str(b, "blob");
    wire_put_bin(b, s300, 40);
    wire_put_str(b, "xs");
    wire_put_array(b, 3);
    wire_put_int(b, -1);
    wire_put_array(b, 2);
    wire_put_map(b, 1);
    wire_put_str(b, "k");
    wire_put_nil(b);
    wire_put_bool(b, 1);
    wire_put_uint(b, 200);
    wire_put_str(b, "f");
    wire_put_raw(b, "\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18", 9);   /* pi */
    wire_put_str(b, "e");
    wire_put_raw(b, "\xd5\x05\xaa\xbb", 4);                       /* fixext 2, type 5 */
    wire_put_str(b, "n");
    wire_put_map(b, 0);
    ck_assert_int_eq(b->oom, 0);
}

START_TEST(truncated_at_every_offset)
{
    wire_buf b;
    wire_buf_init(&b);
    rich_message(&b);
    wire_msg m;
    uint8_t *q = copy_exact(b.p, b.len);
    REQUIRE(wire_msg_decode(q, b.len, &m) == WIRE_OK);
    REQUIRE(m.nkeys == 9);
    free(q);
    for (size_t k = 0; k < b.len; k++) {
        q = copy_exact(b.p, k);
        wire_val v;
        size_t used = 99;
        REQUIRE(wire_msg_decode(q, k, &m) == WIRE_EMSGPACK);
        REQUIRE(m.nkeys == 0);
        REQUIRE(wire_decode(q, k, &v, &used) == WIRE_EMSGPACK);
        REQUIRE(used == 0);
        free(q);
    }
    ck_assert_int_eq(wire_decode(NULL, 0, &(wire_val){ 0 }, NULL), WIRE_EMSGPACK);
    wire_buf_free(&b);
}
END_TEST

static int decode_bytes(const uint8_t *bytes, size_t n)
{
    uint8_t *q = copy_exact(bytes, n);
    wire_msg m;
    int rc = wire_msg_decode(q, n, &m);
    free(q);
    return rc;
}

static int decode_value(const uint8_t *bytes, size_t n)
{
    uint8_t *q = copy_exact(bytes, n);
    wire_val v;
    size_t used;
    int rc = wire_decode(q, n, &v, &used);
    free(q);
    return rc;
}

/* Counts and lengths that the bytes cannot hold are refused from the header alone. */
START_TEST(huge_counts_and_lengths)
{
    static const uint8_t map32[10] = { 0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a', 0x01, 0xa1, 'b' };
    ck_assert_int_eq(decode_bytes(map32, sizeof map32), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(map32, sizeof map32), WIRE_EMSGPACK);

    static const uint8_t arr16[] = { 0xdc, 0xff, 0xff, 0x01, 0x02, 0x03 };
    ck_assert_int_eq(decode_value(arr16, sizeof arr16), WIRE_EMSGPACK);
    /* 65535 claimed, 65534 present: one short is still refused */
    uint8_t *a = malloc(3 + 65534);
    ck_assert_ptr_nonnull(a);
    memcpy(a, arr16, 3);
    memset(a + 3, 0xc0, 65534);
    ck_assert_int_eq(decode_value(a, 3 + 65534), WIRE_EMSGPACK);
    free(a);
    /* a map of n pairs needs 2n bytes: 3 pairs in 5 bytes is refused */
    static const uint8_t map3[] = { 0x83, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0 };
    ck_assert_int_eq(decode_value(map3, 6), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(map3, 7), WIRE_OK);

    static const uint8_t str32[] = { 0xdb, 0xff, 0xff, 0xff, 0xff, 'a', 'b' };
    static const uint8_t bin32[] = { 0xc6, 0xff, 0xff, 0xff, 0xff, 'a', 'b' };
    static const uint8_t ext32[] = { 0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 'a' };
    static const uint8_t str8[] = { 0xd9, 0x03, 'a', 'b' };
    static const uint8_t fixstr[] = { 0xa5, 'a', 'b' };
    static const uint8_t fixext16[] = { 0xd8, 0x01, 'a', 'b' };
    ck_assert_int_eq(decode_value(str32, sizeof str32), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(bin32, sizeof bin32), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(ext32, sizeof ext32), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(str8, sizeof str8), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(fixstr, sizeof fixstr), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_value(fixext16, sizeof fixext16), WIRE_EMSGPACK);

    /* the same lies one level down, inside a message */
    static const uint8_t inner[] = { 0x81, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0 };
    ck_assert_int_eq(decode_bytes(inner, sizeof inner), WIRE_EMSGPACK);
    static const uint8_t innerstr[] = { 0x81, 0xa1, 'x', 0x91, 0xda, 0xff, 0xff, 'z' };
    ck_assert_int_eq(decode_bytes(innerstr, sizeof innerstr), WIRE_EMSGPACK);
    /* the never-used type byte */
    static const uint8_t c1[] = { 0x81, 0xa1, 'x', 0xc1 };
    ck_assert_int_eq(decode_bytes(c1, sizeof c1), WIRE_EMSGPACK);
}
END_TEST

/* n nested one-element arrays around a nil, optionally inside {"a": ...}. */
static size_t nest(uint8_t *out, int n, int in_map)
{
    size_t k = 0;
    if (in_map) {
        out[k++] = 0x81;
        out[k++] = 0xa1;
        out[k++] = 'a';
    }
    for (int d = 0; d < n; d++) out[k++] = 0x91;
    out[k++] = 0xc0;
    return k;
}

START_TEST(depth_limit)
{
    uint8_t buf[64];
    size_t n;
    /* the map is depth 1: seven arrays inside make 8, eight make 9 */
    n = nest(buf, WIRE_MAX_DEPTH - 1, 1);
    ck_assert_int_eq(decode_bytes(buf, n), WIRE_OK);
    n = nest(buf, WIRE_MAX_DEPTH, 1);
    ck_assert_int_eq(decode_bytes(buf, n), WIRE_EDEPTH);
    n = nest(buf, WIRE_MAX_DEPTH, 0);
    ck_assert_int_eq(decode_value(buf, n), WIRE_OK);
    n = nest(buf, WIRE_MAX_DEPTH + 1, 0);
    ck_assert_int_eq(decode_value(buf, n), WIRE_EDEPTH);
    /* an empty container still counts as a level */
    memset(buf, 0x91, WIRE_MAX_DEPTH);
    buf[WIRE_MAX_DEPTH] = 0x90;
    ck_assert_int_eq(decode_value(buf, WIRE_MAX_DEPTH + 1), WIRE_EDEPTH);
    ck_assert_int_eq(decode_value(buf + 1, WIRE_MAX_DEPTH), WIRE_OK);
    /* maps nest too: {"a": {"a": ... }} */
    for (int d = 0; d < 9; d++) {
        buf[3 * d] = 0x81;
        buf[3 * d + 1] = 0xa1;
        buf[3 * d + 2] = 'a';
    }
    buf[27] = 0x80;
    ck_assert_int_eq(decode_bytes(buf + 6, 22), WIRE_OK);      /* 7 maps + {} = 8 */
    ck_assert_int_eq(decode_bytes(buf + 3, 25), WIRE_EDEPTH);  /* 9 */

    /* a million levels: refused at level 9, no recursion, no stack to overflow */
    size_t big = 1000000;
    uint8_t *deep = malloc(big);
    ck_assert_ptr_nonnull(deep);
    memset(deep, 0x91, big - 1);
    deep[big - 1] = 0xc0;
    ck_assert_int_eq(decode_value(deep, big), WIRE_EDEPTH);
    free(deep);
}
END_TEST

START_TEST(message_shape)
{
    static const uint8_t str[] = { 0xa2, 'h', 'i' };
    static const uint8_t arr[] = { 0x91, 0x80 };
    static const uint8_t num[] = { 0x2a };
    static const uint8_t nil[] = { 0xc0 };
    ck_assert_int_eq(decode_bytes(str, sizeof str), WIRE_ENOTMAP);
    ck_assert_int_eq(decode_bytes(arr, sizeof arr), WIRE_ENOTMAP);
    ck_assert_int_eq(decode_bytes(num, sizeof num), WIRE_ENOTMAP);
    ck_assert_int_eq(decode_bytes(nil, sizeof nil), WIRE_ENOTMAP);
    ck_assert_int_eq(decode_bytes(NULL, 0), WIRE_EMSGPACK);

    static const uint8_t empty[] = { 0x80 };
    wire_msg m;
    uint8_t *q = copy_exact(empty, 1);
    ck_assert_int_eq(wire_msg_decode(q, 1, &m), WIRE_OK);
    ck_assert_int_eq(m.nkeys, 0);
    ck_assert_ptr_null(wire_msg_get(&m, "t"));
    free(q);

    /* trailing bytes: a second map, or one stray nil */
    static const uint8_t two[] = { 0x81, 0xa1, 't', 0x01, 0x80 };
    static const uint8_t stray[] = { 0x81, 0xa1, 't', 0x01, 0xc0 };
    ck_assert_int_eq(decode_bytes(two, sizeof two), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_bytes(stray, sizeof stray), WIRE_EMSGPACK);
    ck_assert_int_eq(decode_bytes(stray, sizeof stray - 1), WIRE_OK);

    /* keys must be strings */
    static const uint8_t intkey[] = { 0x81, 0x01, 0x02 };
    static const uint8_t binkey[] = { 0x81, 0xc4, 0x01, 't', 0x02 };
    static const uint8_t nilkey[] = { 0x82, 0xa1, 't', 0x01, 0xc0, 0x02 };
    ck_assert_int_eq(decode_bytes(intkey, sizeof intkey), WIRE_ETOOMANY);
    ck_assert_int_eq(decode_bytes(binkey, sizeof binkey), WIRE_ETOOMANY);
    ck_assert_int_eq(decode_bytes(nilkey, sizeof nilkey), WIRE_ETOOMANY);
}
END_TEST

static void keys_message(wire_buf *b, int n)
{
    wire_buf_reset(b);
    wire_put_map(b, (uint32_t)n);
    for (int k = 0; k < n; k++) {
        char key[8];
        key[0] = 'k';
        key[1] = (char)('a' + k / 26);
        key[2] = (char)('a' + k % 26);
        key[3] = 0;
        wire_put_str(b, key);
        wire_put_int(b, k);
    }
}

START_TEST(key_limit_and_duplicates)
{
    wire_buf b;
    wire_msg m;
    wire_buf_init(&b);
    keys_message(&b, WIRE_MAX_KEYS);
    ck_assert_int_eq(decode_bytes(b.p, b.len), WIRE_OK);
    keys_message(&b, WIRE_MAX_KEYS + 1);
    ck_assert_uint_eq(b.p[0], 0xde);   /* past 15: a map16 header */
    ck_assert_int_eq(decode_bytes(b.p, b.len), WIRE_ETOOMANY);
    keys_message(&b, 15);
    ck_assert_int_eq(decode_bytes(b.p, b.len), WIRE_OK);

    /* every one of 24 keys is found, with its value */
    keys_message(&b, WIRE_MAX_KEYS);
    ck_assert_int_eq(wire_msg_decode(b.p, b.len, &m), WIRE_OK);
    ck_assert_int_eq(m.nkeys, WIRE_MAX_KEYS);
    uint64_t u;
    ck_assert_int_eq(wire_get_u64(&m, "kax", &u), 0);
    ck_assert_uint_eq(u, 23);
    ck_assert_int_eq(wire_get_u64(&m, "kaa", &u), 0);
    ck_assert_uint_eq(u, 0);

    /* duplicates: the last value wins and the key is counted once */
    wire_buf_reset(&b);
    wire_put_map(&b, 4);
    wire_put_str(&b, "a");
    wire_put_uint(&b, 1);
    wire_put_str(&b, "b");
    wire_put_uint(&b, 2);
    wire_put_str(&b, "a");
    wire_put_str(&b, "later");
    wire_put_str(&b, "a");
    wire_put_uint(&b, 3);
    ck_assert_int_eq(wire_msg_decode(b.p, b.len, &m), WIRE_OK);
    ck_assert_int_eq(m.nkeys, 2);
    ck_assert_int_eq(wire_get_u64(&m, "a", &u), 0);
    ck_assert_uint_eq(u, 3);
    ck_assert_int_eq(wire_get_u64(&m, "b", &u), 0);
    ck_assert_uint_eq(u, 2);
    wire_buf_free(&b);
}
END_TEST

/* Random bytes, and random damage to a valid message: never a crash or an overread (ASan), and
 * whatever is accepted is self-consistent and agrees with msgpack-c. Fixed seeds: the run is the
 * same every time. */
START_TEST(random_garbage)
{
    /* Half the bytes come from the type bytes that start containers and long lengths, so the
     * generator reaches deep and lying headers instead of mostly fixints. */
    static const uint8_t hot[] = { 0x80, 0x81, 0x8f, 0x90, 0x91, 0x9f, 0xa0, 0xa3, 0xc0, 0xc1,
                                   0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xd4, 0xd8,
                                   0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xff, 0x00 };
    uint64_t seed = 0x5eed0001;
    uint8_t buf[64];
    int accepted = 0, msgs = 0;
    for (int round = 0; round < 100000; round++) {
        size_t n = splitmix(&seed) % sizeof buf;
        for (size_t k = 0; k < n; k++) {
            uint64_t r = splitmix(&seed);
            buf[k] = (r & 1) ? hot[(r >> 8) % sizeof hot] : (uint8_t)(r >> 16);
        }
        uint8_t *q = copy_exact(buf, n);
        wire_val v;
        size_t used;
        if (wire_decode(q, n, &v, &used) == WIRE_OK) {
            accepted++;
            REQUIRE(used <= n);
            REQUIRE(used >= 1);
            size_t off = 0;
            assert_msgpackc_agrees(q, used, &off);
            REQUIRE(off == used);
        }
        wire_msg m;
        if (wire_msg_decode(q, n, &m) == WIRE_OK) {
            msgs++;
            REQUIRE(m.nkeys <= WIRE_MAX_KEYS);
            for (int k = 0; k < m.nkeys; k++) {
                REQUIRE(m.key[k] >= q && m.key[k] + m.keylen[k] <= q + n);
                REQUIRE(m.val[k].raw >= q && m.val[k].raw + m.val[k].rawlen <= q + n);
            }
        }
        free(q);
    }
    ck_assert_int_gt(accepted, 1000);   /* the generator does reach the valid paths */
    ck_assert_int_gt(msgs, 0);

    /* 1..4 random byte changes to a valid message */
    wire_buf b;
    wire_buf_init(&b);
    rich_message(&b);
    seed = 0x5eed0002;
    int still_ok = 0;
    for (int round = 0; round < 20000; round++) {
        uint8_t *q = copy_exact(b.p, b.len);
        int hits = 1 + (int)(splitmix(&seed) % 4);
        for (int h = 0; h < hits; h++) {
            uint64_t r = splitmix(&seed);
            q[r % b.len] = (r >> 32) & 1 ? hot[(r >> 40) % sizeof hot] : (uint8_t)(r >> 48);
        }
        wire_msg m;
        if (wire_msg_decode(q, b.len, &m) == WIRE_OK) {
            still_ok++;
            size_t off = 0;
            assert_msgpackc_agrees(q, b.len, &off);
        }
        free(q);
    }
    ck_assert_int_gt(still_ok, 0);
    wire_buf_free(&b);
}
END_TEST

/* ---- getters ---------------------------------------------------------------------------------- */

START_TEST(getters)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_put_map(&b, 12);
    wire_put_str(&b, "s");
    wire_put_str(&b, "abc");
    wire_put_str(&b, "u");
    wire_put_uint(&b, UINT64_MAX);
    wire_put_str(&b, "neg");
    wire_put_int(&b, -5);
    wire_put_str(&b, "min");
    wire_put_int(&b, INT64_MIN);
    wire_put_str(&b, "b");
    wire_put_bool(&b, 0);
    wire_put_str(&b, "one");
    wire_put_uint(&b, 1);
    wire_put_str(&b, "nil");
    wire_put_nil(&b);
    wire_put_str(&b, "signed5");
    wire_put_raw(&b, "\xd0\x05", 2);   /* 5 in a signed form */
    wire_put_str(&b, "maxi");
    wire_put_uint(&b, (uint64_t)INT64_MAX);
    wire_put_str(&b, "bin");
    wire_put_bin(&b, "abc", 3);
    wire_put_str(&b, "f");
    wire_put_raw(&b, "\xca\x3f\x80\x00\x00", 5);   /* 1.0f */
    wire_put_strn(&b, "nul\0x", 5);
    wire_put_uint(&b, 9);
    wire_msg m;
    ck_assert_int_eq(wire_msg_decode(b.p, b.len, &m), WIRE_OK);

    const char *s = NULL;
    size_t len = 0;
    uint64_t u = 77;
    int64_t i = 77;
    int bv = 77;
    ck_assert_int_eq(wire_get_str(&m, "s", &s, &len), 0);
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(s, "abc", 3);
    ck_assert_int_eq(wire_get_str(&m, "absent", &s, &len), -1);
    ck_assert_int_eq(wire_get_str(&m, "u", &s, &len), -2);
    ck_assert_int_eq(wire_get_str(&m, "bin", &s, &len), -2);   /* bin is not str */
    ck_assert_int_eq(wire_get_str(&m, "nil", &s, &len), -2);

    ck_assert_int_eq(wire_get_u64(&m, "u", &u), 0);
    ck_assert_uint_eq(u, UINT64_MAX);
    ck_assert_int_eq(wire_get_u64(&m, "signed5", &u), 0);
    ck_assert_uint_eq(u, 5);
    u = 77;
    ck_assert_int_eq(wire_get_u64(&m, "neg", &u), -2);
    ck_assert_int_eq(wire_get_u64(&m, "s", &u), -2);
    ck_assert_int_eq(wire_get_u64(&m, "f", &u), -2);
    ck_assert_int_eq(wire_get_u64(&m, "b", &u), -2);
    ck_assert_int_eq(wire_get_u64(&m, "absent", &u), -1);
    ck_assert_uint_eq(u, 77);   /* untouched on failure */

    ck_assert_int_eq(wire_get_i64(&m, "neg", &i), 0);
    ck_assert_int_eq(i, -5);
    ck_assert_int_eq(wire_get_i64(&m, "min", &i), 0);
    ck_assert_int_eq(i, INT64_MIN);
    ck_assert_int_eq(wire_get_i64(&m, "maxi", &i), 0);
    ck_assert_int_eq(i, INT64_MAX);
    ck_assert_int_eq(wire_get_i64(&m, "signed5", &i), 0);
    ck_assert_int_eq(i, 5);
    ck_assert_int_eq(wire_get_i64(&m, "u", &i), -2);   /* above INT64_MAX */
    ck_assert_int_eq(wire_get_i64(&m, "nil", &i), -2);
    ck_assert_int_eq(wire_get_i64(&m, "absent", &i), -1);

    ck_assert_int_eq(wire_get_bool(&m, "b", &bv), 0);
    ck_assert_int_eq(bv, 0);
    ck_assert_int_eq(wire_get_bool(&m, "one", &bv), -2);   /* an int is not a bool */
    ck_assert_int_eq(wire_get_bool(&m, "absent", &bv), -1);

    /* keys compare as exact bytes: an embedded NUL, a prefix, a longer name */
    ck_assert_ptr_null(wire_msg_get(&m, "nul"));
    ck_assert_ptr_null(wire_msg_get(&m, "signed"));
    ck_assert_ptr_null(wire_msg_get(&m, "ss"));
    ck_assert_ptr_null(wire_msg_get(&m, ""));
    ck_assert_ptr_nonnull(wire_msg_get(&m, "signed5"));
    wire_buf_free(&b);

    ck_assert_int_eq(wire_str_eq((const uint8_t *)"abc", 3, "abc"), 1);
    ck_assert_int_eq(wire_str_eq((const uint8_t *)"abc", 2, "abc"), 0);
    ck_assert_int_eq(wire_str_eq((const uint8_t *)"abc", 3, "ab"), 0);
    ck_assert_int_eq(wire_str_eq((const uint8_t *)"abd", 3, "abc"), 0);
    ck_assert_int_eq(wire_str_eq((const uint8_t *)"a\0c", 3, "a"), 0);
    ck_assert_int_eq(wire_str_eq(NULL, 0, ""), 1);
}
END_TEST

static int i32_array(const uint8_t *msg, size_t n, int32_t *out, int max, int *count)
{
    uint8_t *q = copy_exact(msg, n);
    wire_msg m;
    ck_assert_int_eq(wire_msg_decode(q, n, &m), WIRE_OK);
    int rc = wire_get_i32_array(&m, "a", out, max, count);
    free(q);
    return rc;
}

START_TEST(i32_arrays)
{
    wire_buf b;
    int32_t out[4];
    int count = 99;
    wire_buf_init(&b);

    wire_put_map(&b, 1);
    wire_put_str(&b, "a");
    wire_put_array(&b, 4);
    wire_put_int(&b, INT32_MIN);
    wire_put_int(&b, INT32_MAX);
    wire_put_int(&b, 0);
    wire_put_raw(&b, "\xd3\xff\xff\xff\xff\xff\xff\xff\xff", 9);   /* -1 as int64 */
    ck_assert_int_eq(i32_array(b.p, b.len, out, 4, &count), 0);
    ck_assert_int_eq(count, 4);
    ck_assert_int_eq(out[0], INT32_MIN);
    ck_assert_int_eq(out[1], INT32_MAX);
    ck_assert_int_eq(out[2], 0);
    ck_assert_int_eq(out[3], -1);
    /* one too many for out */
    ck_assert_int_eq(i32_array(b.p, b.len, out, 3, &count), -2);
    ck_assert_int_eq(count, 0);
    /* absent key */
    wire_msg m;
    ck_assert_int_eq(wire_msg_decode(b.p, b.len, &m), WIRE_OK);
    ck_assert_int_eq(wire_get_i32_array(&m, "b", out, 4, &count), -1);

    static const int64_t bad[] = { (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1 };
    for (int k = 0; k < 2; k++) {
        wire_buf_reset(&b);
        wire_put_map(&b, 1);
        wire_put_str(&b, "a");
        wire_put_array(&b, 2);
        wire_put_int(&b, 1);
        wire_put_int(&b, bad[k]);
        ck_assert_int_eq(i32_array(b.p, b.len, out, 4, &count), -2);
    }
    /* elements of the wrong type, a uint above INT64_MAX, and a non-array */
    static const uint8_t nonint[][16] = {
        { 0x81, 0xa1, 'a', 0x92, 0x01, 0xa1, '2' },
        { 0x81, 0xa1, 'a', 0x92, 0x01, 0xc3 },
        { 0x81, 0xa1, 'a', 0x92, 0x01, 0xca, 0x3f, 0x80, 0x00, 0x00 },
        { 0x81, 0xa1, 'a', 0x91, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
        { 0x81, 0xa1, 'a', 0x91, 0x91, 0x01 },
        { 0x81, 0xa1, 'a', 0x01 },
        { 0x81, 0xa1, 'a', 0xc4, 0x01, 0x01 },
    };
    static const size_t nonint_len[] = { 7, 6, 10, 13, 6, 4, 6 };
    for (size_t k = 0; k < sizeof nonint_len / sizeof nonint_len[0]; k++)
        ck_assert_int_eq(i32_array(nonint[k], nonint_len[k], out, 4, &count), -2);
    /* empty is fine, even with no room */
    static const uint8_t empty[] = { 0x81, 0xa1, 'a', 0x90 };
    ck_assert_int_eq(i32_array(empty, sizeof empty, NULL, 0, &count), 0);
    ck_assert_int_eq(count, 0);
    wire_buf_free(&b);
}
END_TEST

/* ---- raw spans -------------------------------------------------------------------------------- */

/* A value's raw bytes re-decode to the same value and, echoed into a new message (as the server
 * echoes ping's "n"), reproduce the sender's bytes exactly, whatever form the sender used. */
START_TEST(raw_spans_echo)
{
    static const struct {
        uint8_t n, b[16];
    } vals[] = {
        { 1, { 0x05 } },
        { 2, { 0xd0, 0x05 } },                                   /* non-minimal: kept as sent */
        { 9, { 0xcf, 0, 0, 0, 0, 0, 0, 0, 7 } },
        { 9, { 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18 } },
        { 4, { 0xa3, 'a', 'b', 'c' } },
        { 5, { 0xd9, 0x03, 'a', 'b', 'c' } },
        { 1, { 0xc0 } },
        { 7, { 0x93, 0x01, 0x92, 0xc2, 0xa0, 0x81, 0xa0 } },     /* truncated: bad */
        { 8, { 0x93, 0x01, 0x92, 0xc2, 0xa0, 0x81, 0xa0, 0x90 } },
        { 4, { 0xd5, 0x01, 0xaa, 0xbb } },
    };
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        wire_buf b, echo;
        wire_buf_init(&b);
        wire_buf_init(&echo);
        wire_put_map(&b, 2);
        wire_put_str(&b, "t");
        wire_put_str(&b, "ping");
        wire_put_str(&b, "n");
        wire_put_raw(&b, vals[k].b, vals[k].n);
        uint8_t *q = copy_exact(b.p, b.len);
        wire_msg m;
        int rc = wire_msg_decode(q, b.len, &m);
        if (k == 7) {
            ck_assert_int_eq(rc, WIRE_EMSGPACK);
        } else {
            ck_assert_int_eq(rc, WIRE_OK);
            const wire_val *n = wire_msg_get(&m, "n");
            ck_assert_ptr_nonnull(n);
            ck_assert_uint_eq(n->rawlen, vals[k].n);
            ck_assert_mem_eq(n->raw, vals[k].b, vals[k].n);
            ck_assert_ptr_eq(n->raw + n->rawlen, q + b.len);   /* the last value: ends the body */

            wire_val again;
            size_t used;
            ck_assert_int_eq(wire_decode(n->raw, n->rawlen, &again, &used), WIRE_OK);
            ck_assert_uint_eq(used, n->rawlen);
            ck_assert_int_eq(again.type, n->type);
            ck_assert_uint_eq(again.n, n->n);
            ck_assert_int_eq(again.i, n->i);
            ck_assert_uint_eq(again.u, n->u);
            ck_assert_ptr_eq(again.p, n->p);

            /* the echo is byte-identical to the request */
            wire_put_map(&echo, 2);
            wire_put_str(&echo, "t");
            wire_put_str(&echo, "ping");
            wire_put_str(&echo, "n");
            wire_put_raw(&echo, n->raw, n->rawlen);
            ck_assert_uint_eq(echo.len, b.len);
            ck_assert_mem_eq(echo.p, b.p, b.len);
        }
        free(q);
        wire_buf_free(&b);
        wire_buf_free(&echo);
    }
}
END_TEST

START_TEST(strerror_says_something)
{
    static const int codes[] = { WIRE_OK, WIRE_EMSGPACK, WIRE_ENOTMAP, WIRE_ETOOMANY,
                                 WIRE_EDEPTH };
    for (size_t a = 0; a < 5; a++) {
        ck_assert_ptr_nonnull(wire_strerror(codes[a]));
        ck_assert_uint_gt(strlen(wire_strerror(codes[a])), 1);
        for (size_t c = a + 1; c < 5; c++)
            ck_assert_str_ne(wire_strerror(codes[a]), wire_strerror(codes[c]));
    }
    ck_assert_ptr_nonnull(wire_strerror(-99));
    ck_assert_ptr_nonnull(strstr(wire_strerror(WIRE_ETOOMANY), "24"));
}
END_TEST

Suite *suite_wire(void)
{
    Suite *s = suite_create("wire");
    TCase *w = tcase_create("writer");
    tcase_add_test(w, known_encodings);
    tcase_add_test(w, writer_matches_msgpackc_bytes);
    tcase_add_test(w, framing);
    tcase_add_test(w, writer_growth_and_oom);
    suite_add_tcase(s, w);

    TCase *rt = tcase_create("round_trip");
    tcase_add_test(rt, int_round_trip);
    tcase_add_test(rt, wide_int_forms);
    tcase_add_test(rt, str_bin_round_trip);
    tcase_add_test(rt, nil_bool_round_trip);
    tcase_add_test(rt, array_map_round_trip);
    tcase_add_test(rt, float_ext_decode);
    tcase_add_test(rt, msgpackc_to_wire);
    tcase_add_test(rt, wire_to_msgpackc);
    suite_add_tcase(s, rt);

    TCase *bad = tcase_create("hostile");
    tcase_add_test(bad, truncated_at_every_offset);
    tcase_add_test(bad, huge_counts_and_lengths);
    tcase_add_test(bad, depth_limit);
    tcase_add_test(bad, message_shape);
    tcase_add_test(bad, key_limit_and_duplicates);
    tcase_add_test(bad, random_garbage);
    tcase_set_timeout(bad, 60);   /* random_garbage under ASan */
    suite_add_tcase(s, bad);

    TCase *get = tcase_create("getters");
    tcase_add_test(get, getters);
    tcase_add_test(get, i32_arrays);
    tcase_add_test(get, raw_spans_echo);
    tcase_add_test(get, strerror_says_something);
    suite_add_tcase(s, get);
    return s;
}
