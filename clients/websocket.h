/* websocket.h — the client side of WebSocket (RFC 6455) without a transport: the address
 * (ws://HOST:PORT/PATH), the opening handshake (key, request, the checks of the server's answer),
 * masked frames, and a reader that turns what a server sends into whole messages and control
 * frames. `viv bot`'s libuv transport (bot_conn.c) and the blocking test client (tests/wsc.c)
 * both use it, so each rule of the RFC is written once on the client side. vivd's side is
 * libwebsockets' (server/ws.c); docs/PROTOCOL.md, "WebSocket", says what vivd expects: one msgpack
 * map per binary message, at ws://HOST:PORT/ws, with the subprotocol "vivarium" offered or none.
 *
 * Randomness (the handshake's nonce, the masks) is the caller's: this module has no generator.
 * Functions return 0 (or a count), or CLI_EPROTO (net.h) with a sentence in err. */
#ifndef VIVARIUM_WEBSOCKET_H
#define VIVARIUM_WEBSOCKET_H
#include <stddef.h>
#include <stdint.h>
#include "wire.h"

#define CLI_WS_PATH "/ws"               /* vivd's WebSocket path */
#define CLI_WS_SUBPROTOCOL "vivarium"   /* the one subprotocol vivd offers */
#define CLI_WS_KEY_LEN 24               /* base64 of 16 bytes */
#define CLI_WS_ACCEPT_LEN 28            /* base64 of a SHA-1 digest */
#define CLI_WS_HEADER_MAX 14            /* 2 + an 8-byte length + a 4-byte mask */
#define CLI_WS_CONTROL_MAX 125          /* a control frame's payload, at most */

enum { CLI_WS_CONT = 0, CLI_WS_TEXT = 1, CLI_WS_BIN = 2, CLI_WS_CLOSE = 8, CLI_WS_PING = 9,
       CLI_WS_PONG = 10 };
/* cli_ws_answer_check: the server answered, but not with 101 (a refused upgrade). */
enum { CLI_WS_REFUSED = 1 };

/* ---- the address ----------------------------------------------------------------------------- */
/* The address has the ws:// scheme (so a caller can tell it from HOST:PORT). */
int cli_ws_is_url(const char *addr);
/* Split "ws://HOST:PORT[/PATH]" ("ws://[::1]:7401/ws" for IPv6) into "HOST:PORT" and the path
 * (CLI_WS_PATH when none is given). 0, or CLI_EPROTO with a sentence in err: another scheme
 * (wss:// is TLS, which vivd does not serve), no port, a path with spaces or control bytes, or
 * parts longer than hcap or pcap. */
int cli_ws_url_split(const char *url, char *hostport, size_t hcap, char *path, size_t pcap,
                     char *err, size_t errlen);

/* ---- the opening handshake ----------------------------------------------------------------------- */
/* The Sec-WebSocket-Key of 16 random bytes (the caller's): CLI_WS_KEY_LEN characters and a NUL. */
void cli_ws_key(const uint8_t nonce[16], char key[CLI_WS_KEY_LEN + 1]);
/* The Sec-WebSocket-Accept a server must answer key with: base64(SHA-1(key + the RFC's GUID)). */
void cli_ws_accept(const char *key, char accept[CLI_WS_ACCEPT_LEN + 1]);
/* The upgrade request for path on hostport, offering proto (NULL: no subprotocol), NUL-ended in
 * out. Its length, or 0 when it does not fit in cap. */
size_t cli_ws_request(char *out, size_t cap, const char *hostport, const char *path, const char *key,
                      const char *proto);
/* The n bytes at p begin the server's answer: the length of its header, blank line included, once
 * it is all there; else 0. */
size_t cli_ws_answer_len(const uint8_t *p, size_t n);
/* The n bytes at p cannot begin an HTTP answer (they do not start "HTTP/"): 1, else 0. Lets a
 * client say at its first bytes that it has reached something else, e.g. vivd's TCP port. */
int cli_ws_answer_not_http(const uint8_t *p, size_t n);
/* Check the server's answer header (len bytes, cli_ws_answer_len) to a request with key and proto:
 * 0 the connection is a WebSocket now; CLI_WS_REFUSED the server answered with another status (err
 * holds its status line); CLI_EPROTO the answer is not HTTP, or it is a 101 that breaks the RFC
 * (no or a wrong Sec-WebSocket-Accept, no Upgrade: websocket, a subprotocol or an extension that
 * was not offered), err says which. */
int cli_ws_answer_check(const char *hdr, size_t len, const char *key, const char *proto, char *err,
                        size_t errlen);

/* ---- frames a client sends ------------------------------------------------------------------------- */
/* A frame header (fin, opcode, payload length) with mask (NULL: unmasked, which a server does and a
 * client must not) into out (CLI_WS_HEADER_MAX bytes). Its length. */
size_t cli_ws_header_put(uint8_t *out, int fin, int opcode, uint64_t len, const uint8_t mask[4]);
/* XOR n bytes with the mask, the first being byte `offset` of the payload (masking is its own
 * inverse). */
void cli_ws_mask(uint8_t *p, size_t n, const uint8_t mask[4], uint64_t offset);
/* Append one whole masked frame to b: the header, then the n bytes of p masked. */
void cli_ws_put_frame(wire_buf *b, int fin, int opcode, const void *p, size_t n, const uint8_t mask[4]);

/* ---- what a server sends ----------------------------------------------------------------------------- */
typedef struct cli_ws_reader {
    uint64_t max;              /* the largest message accepted */
    uint8_t *frame;            /* a frame cut by the end of the bytes given, carried over */
    size_t flen, fcap;
    int frame_out;             /* frame holds the one returned last: dropped at the next call */
    uint8_t *msg;              /* the fragments of an unfinished message */
    size_t mlen, mcap;
    int msgop;                 /* its opcode, or -1 between messages */
    int msg_out;               /* msg holds the message returned last: emptied at the next call */
} cli_ws_reader;

typedef struct cli_ws_event {
    int op;                    /* CLI_WS_TEXT or CLI_WS_BIN: a whole message (its fragments
                                  joined); CLI_WS_CLOSE, CLI_WS_PING or CLI_WS_PONG: a control
                                  frame */
    const uint8_t *p;          /* the payload: in place in the bytes given when a frame came whole
                                  in them, else in the reader; valid until the next call */
    size_t n;
} cli_ws_event;

/* A reader of messages up to max bytes; nothing is allocated until a frame is cut or fragmented. */
void cli_ws_reader_init(cli_ws_reader *r, uint64_t max);
void cli_ws_reader_free(cli_ws_reader *r);
/* Take the next message or control frame from the *n bytes at *p, moving *p and *n past the bytes
 * it used. 1: *ev is set. 0: every byte is used (an unfinished frame is kept for the next call).
 * CLI_EPROTO: the bytes break the RFC for what a server may send (a masked frame, a reserved bit,
 * an unknown opcode, a control frame that is fragmented or over 125 bytes, a continuation with no
 * message to continue or a new message inside one, a message over max), with a sentence in err;
 * the stream cannot be read further. Never allocates for a frame that came whole. */
int cli_ws_read(cli_ws_reader *r, const uint8_t **p, size_t *n, cli_ws_event *ev, char *err,
                size_t errlen);
/* A close frame's status code (1005, "no status", when it carries none) and its reason text. */
int cli_ws_close_status(const cli_ws_event *ev, const char **reason, size_t *rlen);

#endif
