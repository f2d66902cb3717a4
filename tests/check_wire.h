/* check_wire.h — helpers shared by the wire layer's suites (check_wire.c, check_framing.c,
 * check_decoder.c): exact-size heap copies, byte comparison, and the comparison of a value we
 * decoded with what msgpack-c decodes from the same bytes.
 *
 * Every input handed to the decoder sits in a heap buffer of exactly its size (copy_exact), so a
 * read one byte past n is an ASan error in the sanitizer build. */
#ifndef VIVARIUM_CHECK_WIRE_H
#define VIVARIUM_CHECK_WIRE_H
#include <check.h>
#include <math.h>
#include <msgpack.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "wire.h"

/* Check's ck_assert_* reports a "last good point" to the runner over a pipe on every success;
 * loops that make hundreds of thousands of checks use this instead, free until it fails. */
#define REQUIRE(c)                                                                                 \
    do {                                                                                           \
        if (!(c)) ck_abort_msg("line %d: %s", __LINE__, #c);                                       \
    } while (0)

/* A heap copy of exactly n bytes (at least one byte allocated, so n == 0 still gets a pointer). */
static inline uint8_t *copy_exact(const void *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    REQUIRE(q != NULL);
    if (n) memcpy(q, p, n);
    return q;
}

static inline void assert_bytes(const wire_buf *b, const uint8_t *want, size_t n)
{
    ck_assert_int_eq(b->oom, 0);
    ck_assert_uint_eq(b->len, n);
    ck_assert_mem_eq(b->p, want, n);
}

/* A wire value and a msgpack-c object describe the same thing, contents included. */
static inline void assert_same(const wire_val *v, const msgpack_object *o)
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
static inline void assert_msgpackc_agrees(const uint8_t *p, size_t n, size_t *off)
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

#endif
