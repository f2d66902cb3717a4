/* net.h — a small blocking client for vivd's protocol (docs/PROTOCOL.md), used by `viv view`,
 * `viv bot` and the end-to-end tests: connect, send framed msgpack, receive with a timeout, and
 * rebuild frames from keyframes and deltas, checking each against its frame hash. */
#ifndef VIVARIUM_NET_H
#define VIVARIUM_NET_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"
#include "wire.h"

typedef struct cli_conn {
    int fd;
    uint8_t *in;
    size_t inlen, incap, consumed;
    uint64_t bytes_in;
} cli_conn;

/* Connect to "HOST:PORT" (IPv4 or IPv6 literal, or a name). 0, or -1 with a sentence in err. */
int cli_connect(cli_conn *c, const char *hostport, char *err, size_t errlen);
void cli_close(cli_conn *c);
/* Send a message built between wire_msg_begin and wire_msg_end. 0 or -1. */
int cli_send(cli_conn *c, const wire_buf *b);
int cli_send_raw(cli_conn *c, const void *p, size_t n);
/* Receive one message body (valid until the next call). 1: a message; 0: timeout; -1: closed or
 * error (err says which). timeout_ms < 0 waits forever. */
int cli_recv(cli_conn *c, int timeout_ms, const uint8_t **body, size_t *len, char *err,
             size_t errlen);
/* Receive and decode; skips nothing. 1/0/-1 as cli_recv; a malformed server message is -1. */
int cli_recv_msg(cli_conn *c, int timeout_ms, wire_msg *m, char *err, size_t errlen);
/* The message's "t" equals s. */
int cli_msg_is(const wire_msg *m, const char *t);

/* hello; waits for welcome (or error). On success *welcome holds the welcome message, valid until
 * the next receive. */
int cli_hello(cli_conn *c, const char *name, const char *token, wire_msg *welcome, char *err,
              size_t errlen);

/* A rebuilt frame of one subscription. */
typedef struct cli_frame {
    uint32_t world;
    sim_frame f;
    int have_key;
    uint64_t tick;
    uint64_t sh;
    uint8_t *zbuf;         /* decompressed tile data of a "tile.zst" frame */
    size_t zcap;
} cli_frame;

/* Apply a "frame" message: keyframes replace, deltas patch; palette when sent. Then the frame
 * hash is recomputed and compared with "fh". 0 ok; -1 malformed (err says why); -2 hash
 * mismatch; -3 a delta before any keyframe. */
int cli_frame_apply(cli_frame *cf, const wire_msg *m, char *err, size_t errlen);
void cli_frame_free(cli_frame *cf);

/* Small builders. */
void cli_put_sub(wire_buf *b, uint32_t world, uint32_t every, const char *enc, const char *view);

#endif
