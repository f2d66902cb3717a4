/* net.h — the client side of vivd's protocol (docs/PROTOCOL.md), in two parts, one library.
 *
 * The protocol without a transport: splitting a byte stream into messages, building what a
 * client sends (hello, sub, unsub, input, stats, ping), and reading what the server sends (the
 * welcome's world entries and input descriptions, errors, frame headers). The bot's libuv
 * transport (bot_conn.c) and the blocking client below both use these, so each rule of the
 * protocol is written once.
 *
 * The blocking client, used by `viv view` and the end-to-end tests: connect, send, receive with
 * a timeout, and rebuild frames from keyframes and deltas, checking each against its frame hash
 * (the bot's --verify viewers use that part too).
 *
 * Functions return 0 (or CLI_RECV_*), or a negative CLI_E… code (sim_strerror names it). */
#ifndef VIVARIUM_NET_H
#define VIVARIUM_NET_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"
#include "wire.h"
#include "msg.h"
#include "websocket.h"

/* ==== the protocol, without a transport ====================================================== */
/* The client library's codes: 0 ok, negative an error: CLI_EPROTO (cannot connect, send or
 * receive, the server closed the connection, or its message breaks the protocol: the err text
 * says which) and CLI_ERESOLVE (cli_lookup: the host does not resolve; getaddrinfo's code says
 * why), -401..-499 of the one space (sim/errors.h; sim_strerror names them). Reading a frame
 * gives wire/'s codes (cli_frame_apply). Callers compare with the names, never the values. */
enum { CLI_OK = 0 };
/* What cli_recv and cli_recv_msg return besides an error. */
enum { CLI_RECV_TIMEOUT = 0, CLI_RECV_MSG = 1 };

#define CLI_NAME_MAX 32    /* world kinds, input kinds and argument names, with their NUL */

/* ---- framing ---------------------------------------------------------------------------------- */
/* Look at the n bytes p holds of a stream: CLI_RECV_MSG when a whole message is there (its body
 * is p + 4, *len bytes long); CLI_RECV_TIMEOUT when more bytes are needed (*len is the declared
 * body length once 4 bytes are there, else 0); CLI_EPROTO when the declared length is 0 or over
 * WIRE_MAX_SERVER_MSG, after which the stream cannot be resynchronised. */
int cli_msg_split(const uint8_t *p, size_t n, uint32_t *len);

/* Split "HOST:PORT" ("[::1]:7400" for IPv6) into host (a copy, brackets removed) and *port (a
 * pointer into hostport). 0, or CLI_EPROTO when it is not of that form. */
int cli_hostport_split(const char *hostport, char *host, size_t cap, const char **port);

/* Resolve "HOST:PORT" for a TCP connection: 0 with *res to freeaddrinfo(); CLI_EPROTO when it is
 * not HOST:PORT; CLI_ERESOLVE with getaddrinfo's code in *gai_err. */
struct addrinfo;
int cli_lookup(const char *hostport, struct addrinfo **res, int *gai_err);

/* ---- messages a client sends (each framed: wire_msg_begin .. wire_msg_end) --------------------- */
void cli_put_hello(wire_buf *b, const char *name, const char *token);   /* token may be NULL */
void cli_put_sub(wire_buf *b, uint32_t world, uint32_t every, const char *enc, const char *view);
/* The same with "div" (written only when not 1): frames a div-th of the size (docs/PROTOCOL.md). */
/* sub with "events": true (events != 0) as well, otherwise as cli_put_sub_div. */
/* sub with "rect": [x, y, w, h] too (rect not NULL), otherwise as cli_put_sub_events. */
void cli_put_sub_rect(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                      const char *view, int events, const int32_t *rect);
void cli_put_sub_events(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                        const char *view, int events);
/* Event i of an events message m as `viv sim --events` prints it: `event <tick> <name>
 * key=value ...` (docs/PROTOCOL.md, events). The number of events in m, or CLI_EPROTO when m is
 * not a well-formed events message; out is written only when 0 <= i < that number. */
int cli_event_text(const wire_msg *m, int i, char *out, size_t cap);
void cli_put_sub_div(wire_buf *b, uint32_t world, uint32_t every, uint32_t div, const char *enc,
                     const char *view);
void cli_put_unsub(wire_buf *b, uint32_t world);
void cli_put_bare(wire_buf *b, const char *type);                      /* {"t": type}: stats, ping */
void cli_put_input(wire_buf *b, uint32_t world, uint32_t seq, const char *kind,
                   const int64_t *args, int nargs);

/* ---- what the server sends -------------------------------------------------------------------- */
/* The message's "t" equals s. */
int cli_msg_is(const wire_msg *m, const char *t);

/* An error reply's code and sentence, pointing into the message; "?" (length 1) for a missing
 * code, and missing_msg for a missing sentence. */
typedef struct cli_error {
    const char *code, *msg;
    size_t code_len, msg_len;
} cli_error;
void cli_error_read(const wire_msg *m, const char *missing_msg, cli_error *e);

/* A frame message's header: 0, or CLI_EPROTO when a field is missing or mistyped. */
int cli_frame_header(const wire_msg *m, uint64_t *world, uint64_t *tick, int *key);

/* One entry of the welcome's "worlds" (or a stats reply's): decoded into e->m, with its id
 * (at most UINT32_MAX), kind (shorter than CLI_NAME_MAX, possibly empty), w, h and, when given,
 * hz. 0, or CLI_EPROTO. Callers add their own range checks. */
typedef struct cli_world_entry {
    wire_msg m;
    uint32_t id;
    char kind[CLI_NAME_MAX];
    uint64_t w, h, hz;
    int has_hz;
} cli_world_entry;
int cli_world_read(const wire_val *v, cli_world_entry *e);

/* Iterate a welcome's "worlds" array: *it starts NULL; 1 with *v the next entry, 0 at the end,
 * CLI_EPROTO when the array is malformed. */
typedef struct cli_world_iter {
    const uint8_t *it, *end;
    uint32_t i, n;
} cli_world_iter;
int cli_worlds_begin(const wire_msg *m, cli_world_iter *wi);      /* 0, or CLI_EPROTO: no array */
int cli_worlds_next(cli_world_iter *wi, wire_val *v);

/* A world's input kinds, from its entry's "inputs" ({kind: [arg name…]}) and "ranges" ({kind:
 * [[lo, hi] per arg]}). Arguments without a range take INT32_MIN..INT32_MAX; ranges are clamped
 * to int32, and exact[a] says the range was given, fits int32 and has lo <= hi. */
typedef struct cli_input_desc {
    char name[CLI_NAME_MAX];
    int nargs;
    char arg[SIM_INPUT_MAX_ARGS][CLI_NAME_MAX];
    int32_t lo[SIM_INPUT_MAX_ARGS], hi[SIM_INPUT_MAX_ARGS];
    uint8_t exact[SIM_INPUT_MAX_ARGS];
} cli_input_desc;
/* Read up to max input kinds (the rest are ignored) into out, the count into *n. Either map may
 * be absent. 0, or CLI_EPROTO when one is not of the form above (names: 1..CLI_NAME_MAX-1
 * bytes). */
int cli_inputs_read(const wire_msg *entry, cli_input_desc *out, int max, int *n);
int cli_input_find(const cli_input_desc *in, int n, const char *name);    /* index, or -1 */

/* Small value readers. */
int cli_val_str(const wire_val *v, char *dst, size_t cap);   /* 1..cap-1 bytes: 0, else -1 */
int cli_val_i64(const wire_val *v, int64_t *out);            /* any int in int64: 0, else -1 */

/* ==== the blocking client ==================================================================== */
typedef struct cli_conn {
    int fd;
    uint8_t *in;
    size_t inlen, incap, consumed;
    uint64_t bytes_in;
    char addr[300];                /* HOST:PORT connected to: what the error sentences name */
    /* A ws:// address: the messages travel as binary WebSocket frames (clients/websocket.h). */
    int ws;
    cli_ws_reader wr;              /* frames into messages; in[wsoff..inlen) not read yet */
    size_t wsoff;
    sim_rng mask_rng;              /* the masks of what the client sends (RFC 6455 5.3) */
} cli_conn;

/* "HTTP" read as a message length (0x48545450 = 1213486160): what the TCP framing makes of an
 * HTTP server's answer, e.g. vivd's --http port reached with the TCP protocol. */
#define CLI_LEN_HTTP 0x48545450u
/* The sentence for a client that spoke the TCP protocol to hostport and got HTTP back (p, n: the
 * bytes received, whose first line is quoted): this is vivd's HTTP port; the TCP port (7400 by
 * default) or this port's WebSocket, ws://hostport/ws, is what to use. The caller names hostport
 * before it. */
void cli_http_port_say(const char *hostport, const uint8_t *p, size_t n, char *out, size_t cap);

/* Connect to "HOST:PORT" (IPv4 or IPv6 literal, or a name), or to the first that answers of a
 * list "HOST:PORT,HOST:PORT,…" (a cluster's relays, docs/CLUSTER.md), or to one WebSocket address
 * "ws://HOST:PORT[/PATH]" (vivd's HTTP port, at /ws by default; the upgrade offers the subprotocol
 * "vivarium"): then cli_send frames each message, cli_recv unframes them, answers pings, and a
 * close frame is an error naming its code. 0, or CLI_EPROTO with a sentence in err. */
int cli_connect(cli_conn *c, const char *hostport, char *err, size_t errlen);
/* The same, trying the list's addresses from index *at on (wrapping around); *at is then the one
 * that answered. A client that lost its server passes *at + 1 to try the others first. */
int cli_connect_list(cli_conn *c, const char *list, int *at, char *err, size_t errlen);
int cli_addr_count(const char *list);                       /* addresses in a list (1 + commas) */
#define CLI_MAX_ADDRS 16   /* the longest list a client takes */
/* A list as a user gave it (--host): 1..CLI_MAX_ADDRS addresses, each HOST:PORT, or one
 * ws://HOST:PORT[/PATH]. 0, or CLI_EPROTO with a sentence in err naming the bad item. Nothing is
 * resolved. */
int cli_addr_list_check(const char *list, char *err, size_t errlen);
/* Address i (modulo the count) of a list into out: 0, or -1 when it is empty or too long. */
int cli_addr_at(const char *list, int i, char *out, size_t cap);
void cli_close(cli_conn *c);
/* Send a message built between wire_msg_begin and wire_msg_end (over WebSocket, one binary frame
 * per message). 0 or CLI_EPROTO (errno says why). */
int cli_send(cli_conn *c, const wire_buf *b);
int cli_send_raw(cli_conn *c, const void *p, size_t n);        /* the bytes as they are */
/* Receive one message body (valid until the next call). CLI_RECV_MSG (1): a message;
 * CLI_RECV_TIMEOUT (0): timeout; CLI_EPROTO: closed or error (err says which).
 * timeout_ms < 0 waits forever. */
int cli_recv(cli_conn *c, int timeout_ms, const uint8_t **body, size_t *len, char *err,
             size_t errlen);
/* Receive and decode; skips nothing. As cli_recv; a malformed server message is CLI_EPROTO. */
int cli_recv_msg(cli_conn *c, int timeout_ms, wire_msg *m, char *err, size_t errlen);

/* hello; waits for welcome (or error). 0, with *welcome the welcome message, valid until the
 * next receive; or CLI_EPROTO (err says why: no answer, refused, ...). */
int cli_hello(cli_conn *c, const char *name, const char *token, wire_msg *welcome, char *err,
              size_t errlen);

/* A rebuilt frame of one subscription: wire/msg.h's reader, which vivd's relays use too. */
typedef wire_frame_in cli_frame;

/* Apply a "frame" message: keyframes replace, deltas patch; palette when sent. Then the frame
 * hash is recomputed and compared with "fh". wire_frame_apply's codes, as it gives them (the
 * reader is wire/'s): 0 ok; WIRE_FRAME_EPROTO malformed (err says why); WIRE_FRAME_EHASH a hash
 * mismatch; WIRE_FRAME_ENOKEY a delta before any keyframe. */
int cli_frame_apply(cli_frame *cf, const wire_msg *m, char *err, size_t errlen);
void cli_frame_free(cli_frame *cf);

#endif
