/* check_wire.c — the msgpack writer of wire/wire.c and its round trips through our bounded
 * decoder: every type's boundary values through our writer and decoder, exact bytes against the
 * spec and against msgpack-c's packer, msgpack-c cross-decoding both ways, and the writer's
 * memory (growth, reset, sticky out-of-memory). Framing is in check_framing.c; hostile input,
 * the typed getters and raw spans are in check_decoder.c.
 *
 * Every input handed to the decoder sits in a heap buffer of exactly its size (copy_exact), so a
 * read one byte past n is an ASan error in the sanitizer build. */
#include "check_suites.h"
#include "check_wire.h"
#include "cli.h"
#include "msg.h"
#include "net.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

/* Decode b's whole contents as one value from an exact-size copy; *v's pointers are rebased
 * into b (the copy is freed). */
static void decode_one(const wire_buf *b, wire_val *v)
{
    uint8_t *q = copy_exact(b->p, b->len);
    size_t used = 0;
    int rc = wire_decode(q, b->len, v, &used);
    ck_assert_msg(rc == WIRE_OK, "decode: %s", sim_strerror(rc));
    ck_assert_uint_eq(used, b->len);
    ck_assert_uint_eq(v->rawlen, b->len);
    ck_assert_ptr_eq(v->raw, q);
    if (v->p) v->p = b->p + (v->p - q);
    v->raw = b->p;
    free(q);
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

/* ---- the writer's memory ---------------------------------------------------------------------- */

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

/* An events message carries a step's events whole: read back by the clients' reader, each is the
 * line viv sim --events prints from the world's own sim_event; "dropped" only when there were. */
START_TEST(events_message_round_trip)
{
    static sim_events es;
    memset(&es, 0, sizeof es);
    sim_ctx ctx = { 1, 4117, NULL, &es, NULL };
    sim_event *e = sim_event_add(&ctx, "brain");
    sim_event_num(e, "creature", 1);
    sim_event_str(e, "species", "lizard");
    sim_event_str(e, "from", "stalk");
    sim_event_str(e, "to", "lunge");
    e = sim_event_add(&ctx, "merge");
    sim_event_num(e, "x", -12);
    sim_event_num(e, "big", INT64_MAX);
    sim_event_add(&ctx, "bare");
    for (uint32_t dropped = 0; dropped <= 3; dropped += 3) {
        wire_buf b;
        wire_buf_init(&b);
        ck_assert_int_gt(wire_msg_events(&b, 9, 4117, es.ev, es.n, dropped), 0);
        wire_msg m;
        ck_assert_int_eq(wire_msg_decode(b.p + 4, b.len - 4, &m), 0);
        ck_assert(cli_msg_is(&m, "events"));
        uint64_t v;
        ck_assert_int_eq(wire_get_u64(&m, "world", &v), 0);
        ck_assert_uint_eq(v, 9);
        ck_assert_int_eq(wire_get_u64(&m, "dropped", &v), dropped ? 0 : -1);
        char got[256], want[256];
        for (int i = 0; i < es.n; i++) {
            ck_assert_int_eq(cli_event_text(&m, i, got, sizeof got), es.n);
            cli_event_line(&es.ev[i], want, sizeof want);
            ck_assert_str_eq(got, want);
        }
        ck_assert_str_eq(got, "event 4117 bare");
        cli_event_text(&m, 0, got, sizeof got);
        ck_assert_str_eq(got, "event 4117 brain creature=1 species=lizard from=stalk to=lunge");
        cli_event_text(&m, 1, got, sizeof got);
        ck_assert_str_eq(got, "event 4117 merge x=-12 big=9223372036854775807");
        wire_buf_free(&b);
    }
    wire_msg bad;
    static const uint8_t not_events[] = { 0x81, 0xa1, 't', 0xa6, 'e', 'v', 'e', 'n', 't', 's' };
    ck_assert_int_eq(wire_msg_decode(not_events, sizeof not_events, &bad), 0);
    char out[64];
    ck_assert_int_eq(cli_event_text(&bad, 0, out, sizeof out), CLI_EPROTO);
}
END_TEST

Suite *suite_wire(void)
{
    Suite *s = suite_create("wire");
    TCase *w = tcase_create("writer");
    tcase_add_test(w, known_encodings);
    tcase_add_test(w, writer_matches_msgpackc_bytes);
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

    TCase *msgs = tcase_create("messages");
    tcase_add_test(msgs, events_message_round_trip);
    suite_add_tcase(s, msgs);
    return s;
}
