/* wsc.h — a small blocking WebSocket client and HTTP/1.1 GET for the tests of vivd's HTTP port
 * (tests/check_ws.c). The RFC 6455 rules (handshake, masking, frames, joining fragments) are
 * clients/websocket.h's, shared with `viv bot`; this file is the blocking transport around them,
 * over a plain socket rather than libwebsockets, so that a test can send what no well-behaved
 * client would: text frames, a length of 2^62, continuations out of order. Client frames are
 * masked, as the RFC requires. */
#ifndef VIVARIUM_WSC_H
#define VIVARIUM_WSC_H
#include <stddef.h>
#include <stdint.h>
#include "websocket.h"
#include "wire.h"

typedef struct wsc {
    int fd;
    uint8_t *in;               /* bytes received; those before inoff are read */
    size_t inlen, incap, inoff;
    cli_ws_reader rd;          /* frames into messages (clients/websocket.h) */
    int closed;                /* a close frame arrived (code and reason below) or EOF */
    int close_code;            /* 1005: none given */
    char close_reason[128];
    uint64_t bytes_in;
} wsc;

/* Connect to HOST:PORT (IPv4) and upgrade GET path, offering subprotocol when not NULL; rcvbuf
 * > 0 sets SO_RCVBUF before connecting (a small window from the start). The 101 answer is
 * checked (Sec-WebSocket-Accept). 0, or -1 with a sentence in err. */
int wsc_connect(wsc *w, const char *hostport, const char *path, const char *subprotocol, int rcvbuf,
                char *err, size_t errlen);
/* Like wsc_connect, but 1 when the server refused the upgrade (any answer but 101, or a close
 * before one) and err holds its status line. */
int wsc_connect_refused(wsc *w, const char *hostport, const char *path, const char *subprotocol,
                        char *err, size_t errlen);
void wsc_close(wsc *w);
/* One masked frame: fin, opcode, payload. 0 or -1. */
int wsc_send_frame(wsc *w, int fin, int opcode, const void *p, size_t n);
/* A frame header that claims len bytes (masked, any 64-bit length), and nothing else. */
int wsc_send_header(wsc *w, int fin, int opcode, uint64_t len);
int wsc_send_raw(wsc *w, const void *p, size_t n);
/* A message built with wire_msg_begin/end: its body as one binary message (no length prefix). */
int wsc_send_msg(wsc *w, const wire_buf *b);
/* Receive one whole message (continuations joined; pings answered; a close frame recorded in
 * w->closed and answered). 1 with *op and the payload (valid until the next call); 0 timeout;
 * -1 the connection ended (err says how: close code and reason, or EOF). */
int wsc_recv(wsc *w, int timeout_ms, int *op, const uint8_t **p, size_t *n, char *err, size_t errlen);
/* Receive a binary message and decode it as a protocol map. As wsc_recv; a text message or a
 * body that is not a map is -1. */
int wsc_recv_msg(wsc *w, int timeout_ms, wire_msg *m, char *err, size_t errlen);

/* GET path from HOST:PORT with `Connection: close` (the request line's path is sent as given,
 * unnormalised). The status code, the content-type (or ""), and the body (malloc'd, NUL-ended,
 * free it). 0, or -1 with err. */
typedef struct http_reply {
    int status;
    char content_type[128];
    char *headers;             /* the whole header block (malloc'd, NUL-ended; http_reply_free) */
    char *body;
    size_t body_len;
} http_reply;
int http_get(const char *hostport, const char *path, http_reply *r, char *err, size_t errlen);
void http_reply_free(http_reply *r);
/* Send req (any bytes: a hand-made request) to HOST:PORT and read the answer until the server
 * closes, within timeout_ms. The bytes read (NUL-ended in out, at most outcap - 1 kept), or -1
 * with err (the connection stayed open, or it could not be made). */
int http_exchange(const char *hostport, const void *req, size_t len, char *out, size_t outcap,
                  int timeout_ms, char *err, size_t errlen);

#endif
