/* wire.h — the bytes of the wire protocol (docs/PROTOCOL.md): a small msgpack writer, a bounded
 * msgpack decoder for the protocol's flat maps, and the 4-byte big-endian length framing.
 *
 * Why not msgpack-c's decoder: a map or array header can claim 2^32 entries and msgpack-c would
 * try to allocate them. This decoder never allocates: it checks every declared count against the
 * bytes that remain (each element needs at least one byte), bounds nesting depth, and keeps
 * pointers into the caller's buffer. Used by vivd and by the C clients alike. */
#ifndef VIVARIUM_WIRE_H
#define VIVARIUM_WIRE_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"                                /* the error codes (sim/errors.h) */

#define WIRE_MAX_CLIENT_MSG (64u * 1024u)       /* cap on a message body from a client */
#define WIRE_MAX_SERVER_MSG (1024u * 1024u + 64u * 1024u)   /* cap on a body from the server */

/* ---- writer ----------------------------------------------------------------------------------- */
typedef struct wire_buf {
    uint8_t *p;
    size_t len, cap;
    size_t msg_start;      /* offset of the current message's length prefix */
    int oom;               /* sticky: an allocation failed; the contents are unusable */
} wire_buf;

void wire_buf_init(wire_buf *b);
void wire_buf_free(wire_buf *b);
void wire_buf_reset(wire_buf *b);            /* len = 0, keeps the allocation, clears oom */
int wire_buf_reserve(wire_buf *b, size_t extra);   /* 0, or -1 (and oom set) */
void wire_put_raw(wire_buf *b, const void *p, size_t n);
void wire_put_nil(wire_buf *b);
void wire_put_bool(wire_buf *b, int v);
void wire_put_uint(wire_buf *b, uint64_t v);        /* smallest msgpack form */
void wire_put_int(wire_buf *b, int64_t v);          /* smallest form; non-negative as uint */
void wire_put_str(wire_buf *b, const char *s);
void wire_put_strn(wire_buf *b, const char *s, size_t n);
void wire_put_bin(wire_buf *b, const void *p, size_t n);
void wire_put_bin_header(wire_buf *b, size_t n);    /* then n bytes via wire_put_raw */
void wire_put_array(wire_buf *b, uint32_t n);
void wire_put_map(wire_buf *b, uint32_t n);
/* Framing: begin appends a 4-byte placeholder; end patches it with the body length (big-endian).
 * end returns the body length, or -1 if oom. */
void wire_msg_begin(wire_buf *b);
long wire_msg_end(wire_buf *b);

/* ---- reader ----------------------------------------------------------------------------------- */
enum {
    WIRE_NIL, WIRE_BOOL, WIRE_INT, WIRE_UINT, WIRE_FLOAT, WIRE_STR, WIRE_BIN, WIRE_ARRAY, WIRE_MAP,
    WIRE_EXT
};

typedef struct wire_val {
    int type;
    int64_t i;             /* WIRE_INT (always < 0 when from a negative msgpack int), WIRE_BOOL */
    uint64_t u;            /* WIRE_UINT */
    double f;              /* WIRE_FLOAT */
    const uint8_t *p;      /* STR/BIN: the bytes; ARRAY/MAP: the first element */
    uint32_t n;            /* STR/BIN: byte length; ARRAY/MAP: element (pair) count */
    const uint8_t *raw;    /* the whole encoded value, header included (to echo it verbatim) */
    size_t rawlen;
} wire_val;

/* The decoder's codes: 0, or WIRE_EMSGPACK (malformed or truncated msgpack, or bytes after the
 * value), WIRE_ENOTMAP (the top-level value is not a map), WIRE_ETOOMANY (more keys than
 * WIRE_MAX_KEYS, or a key that is not a string), WIRE_EDEPTH (nested deeper than
 * WIRE_MAX_DEPTH): -301..-329 of the one space (sim/errors.h; sim_strerror names them). */
enum { WIRE_OK = 0 };
#define WIRE_MAX_KEYS 24
#define WIRE_MAX_DEPTH 8

/* Decode one value at p[0..n), setting *used to its encoded length. Nested values inside arrays
 * and maps are validated (bounded depth) but only described by p/n/raw: iterate them with
 * wire_next. Returns WIRE_OK or an error. */
int wire_decode(const uint8_t *p, size_t n, wire_val *out, size_t *used);

/* Iterate an array's elements (or a map's keys and values in turn): *it starts at v->p and
 * advances. end is v->raw + v->rawlen. */
int wire_next(const uint8_t **it, const uint8_t *end, wire_val *out);

/* A protocol message: one top-level map with string keys (duplicates: the last wins). */
typedef struct wire_msg {
    int nkeys;
    const uint8_t *key[WIRE_MAX_KEYS];
    uint32_t keylen[WIRE_MAX_KEYS];
    wire_val val[WIRE_MAX_KEYS];
} wire_msg;

/* Decode a whole message body: exactly one map, nothing after it. */
int wire_msg_decode(const uint8_t *p, size_t n, wire_msg *m);
const wire_val *wire_msg_get(const wire_msg *m, const char *key);   /* NULL if absent */
/* Typed getters: 0 on success, -1 if absent, -2 if present with the wrong type or range. (Results
 * to branch on where the message is read, not error codes: never passed on or named.) */
int wire_get_str(const wire_msg *m, const char *key, const char **s, size_t *len);
int wire_get_u64(const wire_msg *m, const char *key, uint64_t *v);  /* non-negative ints */
int wire_get_i64(const wire_msg *m, const char *key, int64_t *v);   /* any int in range */
int wire_get_bool(const wire_msg *m, const char *key, int *v);
/* An array of integers into out[0..max): count in *count; -2 if an element is not an int that
 * fits in int32, or there are more than max. */
int wire_get_i32_array(const wire_msg *m, const char *key, int32_t *out, int max, int *count);
int wire_str_eq(const uint8_t *p, size_t n, const char *s);   /* exact byte comparison */

/* ---- framing ---------------------------------------------------------------------------------- */
static inline uint32_t wire_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

#endif
