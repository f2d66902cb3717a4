/* check_decoder.c — the bounded msgpack decoder of wire/wire.c against what it exists for:
 * hostile input (truncation at every byte, counts and lengths larger than the message, deep
 * nesting, the message shape, the key limit and duplicate keys, random garbage and random damage
 * checked against msgpack-c), then the typed getters, int32 arrays, raw spans echoed verbatim,
 * and the error strings.
 *
 * Every input handed to the decoder sits in a heap buffer of exactly its size (copy_exact), so a
 * read one byte past n is an ASan error in the sanitizer build. */
#include "check_suites.h"
#include "check_wire.h"

/* ---- helpers ---------------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

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
        ck_assert_ptr_nonnull(sim_strerror(codes[a]));
        ck_assert_uint_gt(strlen(sim_strerror(codes[a])), 1);
        for (size_t c = a + 1; c < 5; c++)
            ck_assert_str_ne(sim_strerror(codes[a]), sim_strerror(codes[c]));
    }
    ck_assert_ptr_nonnull(sim_strerror(-99));
    ck_assert_ptr_nonnull(strstr(sim_strerror(WIRE_ETOOMANY), "24"));
}
END_TEST

Suite *suite_decoder(void)
{
    Suite *s = suite_create("decoder");
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
