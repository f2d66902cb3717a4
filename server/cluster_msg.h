/* cluster_msg.h — the bytes cluster members exchange through Redis (docs/CLUSTER.md), read and
 * written without a loop or a connection: member messages on vivd:to:NAME (want, proxy, gone,
 * reply), registrations and their world entries, and the names of stream channels. What
 * server/cluster.c and relay.c take from another member passes through here first, so that a
 * hostile or corrupted peer's bytes are refused whole, never half-read (tests/fuzz/fuzz_cluster.c
 * holds it to that). Depends on wire/ only. */
#ifndef VIVARIUM_SRV_CLUSTER_MSG_H
#define VIVARIUM_SRV_CLUSTER_MSG_H

#include <stddef.h>
#include <stdint.h>
#include "wire.h"

#define SRV_CMSG_NAME_MAX 64       /* a member's name, NUL included (SRV_CLUSTER_NAME_MAX) */
#define SRV_CMSG_TOKEN_MAX 80
#define SRV_CMSG_EVERY_MAX 3600u   /* a stream's every, as sub's */

/* ---- member messages ------------------------------------------------------------------------------ */
enum { SRV_CMSG_WANT = 1, SRV_CMSG_PROXY, SRV_CMSG_GONE, SRV_CMSG_REPLY };

typedef struct srv_cmsg {
    int type;                          /* SRV_CMSG_… */
    char from[SRV_CMSG_NAME_MAX];
    uint32_t client;                   /* proxy, gone, reply: the client's id at its member */
    uint32_t world, view, every, div;  /* want: every 1..3600, div >= 1 (the node checks the rest) */
    int enc, key;                      /* want: WIRE_ENC_…; key: a keyframe is asked for */
    int32_t rect[4];                   /* want: the stream's rect (x, y, w, h; w 0: the whole) */
    char name[SRV_CMSG_NAME_MAX], token[SRV_CMSG_TOKEN_MAX];   /* proxy: the client's hello */
    const uint8_t *body;               /* proxy (1..WIRE_MAX_CLIENT_MSG bytes), reply: inside p */
    size_t bodylen;
} srv_cmsg;

/* One message (a msgpack map) into *out: 0, or -1 when it is not one a member sends whole (wrong
 * types, a field out of range, an unknown t): such a message is ignored. Strings are
 * NUL-terminated; body points into p. */
int srv_cmsg_decode(const uint8_t *p, size_t n, srv_cmsg *out);
/* The four messages as members write them (these bytes decode to the same fields). */
void srv_cmsg_want(wire_buf *b, const char *from, uint32_t world, uint32_t view, uint32_t every,
                   uint32_t div, int enc, const int32_t *rect, int key);
void srv_cmsg_proxy(wire_buf *b, const char *from, uint32_t client, const char *name,
                    const char *token, const uint8_t *body, size_t len);
void srv_cmsg_gone(wire_buf *b, const char *from, uint32_t client);
void srv_cmsg_reply(wire_buf *b, const char *from, uint32_t client, const uint8_t *body, size_t len);

/* ---- registrations ------------------------------------------------------------------------------ */
typedef struct srv_creg {
    char name[SRV_CMSG_NAME_MAX];
    int relay;                         /* role "relay" (else a node) */
    uint32_t num;
    uint64_t boot, beat, pid;          /* 0 when absent */
    int starting;                      /* "starting": 1 (a node whose worlds are not in place) */
    char listen[96], http[96];         /* "" when absent or too long */
    const uint8_t *worlds, *worlds_end;   /* the "worlds" array's elements (wire_next), or NULL */
    uint32_t nworlds;
} srv_creg;
/* 0, or -1 when it is no registration (name and role are required). */
int srv_creg_decode(const uint8_t *p, size_t n, srv_creg *out);

/* One entry of a registration's worlds (as welcome lists it), what a member needs of it. */
typedef struct srv_centry {
    uint32_t id;
    char kind[32];
    int w, h;                          /* 1..4096 */
} srv_centry;
int srv_centry_decode(const uint8_t *p, size_t n, srv_centry *out);   /* 0, or -1 */

/* ---- stream channels: vivd:frames:WORLD:VIEW:EVERY:DIV[:X:Y:W:H]:ENC -------------------------------- */
typedef struct srv_cchan {
    uint32_t world, every, div;
    int view, enc;
    int32_t rect[4];                   /* X:Y:W:H when present (w 0: absent, the whole world) */
} srv_cchan;
void srv_cchan_format(char *out, size_t cap, uint32_t world, int view, uint32_t every, uint32_t div,
                      const int32_t *rect, int enc);
/* 0, or -1 when chan is not a channel srv_cchan_format writes (decimal numbers only, in range). */
int srv_cchan_parse(const char *chan, size_t clen, srv_cchan *out);

/* What a stream channel carries: SRV_CSTREAM_… with the message decoded into *m, or -1. */
enum { SRV_CSTREAM_FRAME = 1, SRV_CSTREAM_EVENTS, SRV_CSTREAM_CLOSED };
int srv_cstream_kind(const uint8_t *p, size_t n, wire_msg *m);

#endif
