/* ws.c — HTTP and WebSocket on vivd's own libuv loop, through libwebsockets 4.1 (a foreign loop:
 * LWS_SERVER_OPTION_LIBUV with foreign_loops; the glue is lws's run-time plugin
 * libwebsockets-evlib_uv.so). One port serves the page's static files (an lws mount of the web
 * directory) and, at /ws, the protocol of docs/PROTOCOL.md: one msgpack map per binary message.
 * The port's listening socket is vivd's own (http_head.c): lws gets a connection, with the bytes
 * already read, only once its request head has been checked (lws_adopt_socket_vhost_readbuf).
 *
 * A WebSocket client is an srv_client with the transport srv_transport_ws: the handlers, fan-out,
 * limits and timeouts are client.c's. Output is a ring of references to the shared srv_msg
 * buffers; lws writes its frame header into the buffer's headroom (SRV_MSG_PRE), so a message is
 * written to every viewer from the one buffer. When the kernel takes only part of a frame, lws
 * copies the rest into a buffer of its own (at most one message per connection) and calls
 * WRITEABLE again once that is drained, on its own: a frame is written only when one is queued.
 *
 * Every lws callback lands in ws_callback; the client hangs off the connection's per-session
 * data (one pointer), and is freed when lws says the connection is gone (CLOSED or WSI_DESTROY),
 * never before: srv_client_close only asks lws to close it.
 *
 * WebSocket connections stay on the loop; they do not move to the I/O threads (io.c) as TCP
 * subscribers do. A wsi belongs to the lws service thread that accepted it: lws_write and
 * lws_callback_on_writable may be called only from that thread (lws_cancel_service is its one
 * thread-safe call), lws keeps the unsent rest of a partial write in its own buffer, and there is
 * no way to hand a live wsi to another loop. Running lws with a service thread per I/O thread
 * (its count_threads with foreign loops) would put every connection's reading, handshake and
 * close on those threads too, and the handlers with them, which must stay on the loop. The
 * writes are non-blocking and the output limits apply, so a stalled browser never delays a tick;
 * what stays on the loop is the system call per message, which matters for hundreds of
 * WebSocket viewers, not for the handful of browsers a page serves (the load is TCP viewers and
 * relays). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <libwebsockets.h>
#include "network.h"

_Static_assert(SRV_MSG_PRE >= LWS_PRE, "srv_msg's headroom must hold libwebsockets' LWS_PRE");

#define WS_PATH "/ws"
#define WS_PROTOCOL "vivarium"           /* the subprotocol: optional, the only one offered */
#define WS_RX_CHUNK 4096                 /* lws hands a message over in pieces of at most this */
#define WS_WRITES_PER_CALLBACK 16        /* then yield the loop to the other connections */
#define EVLIB_PLUGIN "libwebsockets-evlib_uv.so"
#define WASM_PATH "/vivarium.wasm"       /* the page's sim module (server/ws.c serve_wasm) */
#define WS_STATUS_UPGRADE_REQUIRED 426u  /* RFC 6455 4.4: a version other than 13 (lws names none) */

typedef struct srv_http srv_http;
struct srv_http {
    struct lws_context *ctx;             /* NULL once libwebsockets has finished destroying it */
    struct lws_vhost *vh;
    srv_http_gate *gate;                 /* vivd's own listener: reads and checks each request head */
    int port;
    int destroyed;                       /* srv_http_stop has run */
    char iface[64];
    char origin[PATH_MAX];
    struct lws_http_mount mount;
    struct lws_http_mount wasm_mount;    /* /vivarium.wasm: the page's sim module (wasm_path) */
    char wasm_path[PATH_MAX];
    struct lws_protocol_vhost_options mime[6];
    struct lws_protocol_vhost_options header[3];
    struct lws_protocols protocols[2];
};

/* ---- the transport ------------------------------------------------------------------------------- */
static size_t ws_queued(const srv_client *c)
{
    size_t held = c->ws.inflight && c->ws.wsi && lws_partial_buffered(c->ws.wsi) ? c->ws.inflight : 0;
    return c->ws.qbytes + held;
}

static void ws_send(srv_client *c, srv_msg *m)
{
    srv_ws_conn *ws = &c->ws;
    if (!ws->wsi) return;
    if (ws->n == ws->cap) {              /* grow the ring, oldest first again */
        uint32_t nc = ws->cap ? ws->cap * 2 : 16;
        srv_msg **q = malloc(nc * sizeof *q);
        if (!q) {
            srv_client_close(c, "out of memory queueing a write");
            return;
        }
        for (uint32_t i = 0; i < ws->n; i++) q[i] = ws->q[(ws->head + i) % ws->cap];
        free(ws->q);
        ws->q = q;
        ws->cap = nc;
        ws->head = 0;
    }
    ws->q[(ws->head + ws->n) % ws->cap] = m;
    srv_msg_ref(m);
    ws->n++;
    ws->qbytes += m->len;
    if (ws->n == 1) lws_callback_on_writable(ws->wsi);
}

/* The last word is queued: a close frame follows it (ws_writeable), and lws closes. */
static void ws_finish(srv_client *c)
{
    c->ws.finish = 1;
    if (c->ws.wsi) lws_callback_on_writable(c->ws.wsi);
}

static void ws_release(srv_ws_conn *ws)
{
    for (uint32_t i = 0; i < ws->n; i++) srv_msg_unref(ws->q[(ws->head + i) % ws->cap]);
    free(ws->q);
    ws->q = NULL;
    ws->n = ws->cap = ws->head = 0;
    ws->qbytes = 0;
}

/* Ask lws to close the connection at its next turn; CLOSED then frees c (ws_gone). What was
 * queued for it goes now: nothing more is written to a closing client. A kill asked for from
 * outside lws's own callbacks (the sweep's: a reader stalled over the soft limit, a queue over
 * the hard one, the end of a drain) waits in lws's timer list, which on vivd's foreign loop lws
 * looks at only after it services a socket: asking for WRITEABLE wakes it when the socket takes
 * more, but a client that does not read never makes its socket writeable, and the kill (and the
 * descriptor, with megabytes in the kernel) waited for an unrelated timer, 15 to 30 s.
 * lws_cancel_service wakes lws's own pipe, and with it the timer list, in the next turn. */
static void ws_close(srv_client *c)
{
    if (!c->ws.wsi) return;
    ws_release(&c->ws);
    c->ws.inflight = 0;
    lws_set_timeout(c->ws.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    lws_callback_on_writable(c->ws.wsi);
    lws_cancel_service(lws_get_context(c->ws.wsi));
}

static void ws_sweep(srv_client *c, uint64_t now);

const srv_transport srv_transport_ws = { "ws", ws_send, ws_queued, ws_finish, ws_close, 0, ws_sweep, SRV_TR_WS };

/* ---- callbacks ------------------------------------------------------------------------------------- */
static void peer_name(struct lws *wsi, char *out, size_t outlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = lws_get_socket_fd(wsi);
    snprintf(out, outlen, "?");
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &len) != 0) return;
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof ip);
        port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    } else if (ss.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip, sizeof ip);
        port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    snprintf(out, outlen, "%s:%d", ip, port);
}

static int ws_open(srv *s, struct lws *wsi, srv_client **pss)
{
    srv_client *c = srv_client_new(s, &srv_transport_ws);
    if (!c) {
        srv_log(s, SRV_LOG_ERROR, "out of memory accepting a WebSocket client");
        return -1;
    }
    c->ws.wsi = wsi;
    *pss = c;
    peer_name(wsi, c->peer, sizeof c->peer);
    srv_client_attach(c);
    return 0;
}

/* lws is done with the connection: c goes, whatever it was doing. */
static void ws_gone(srv_client **pss)
{
    srv_client *c = *pss;
    if (!c) return;
    *pss = NULL;
    c->ws.wsi = NULL;
    srv_client_close(c, c->draining ? c->drain_why : "peer closed");
    ws_release(&c->ws);
    srv_client_free(c);
}

/* A message of at least `least` bytes: refused before it is read (a frame may claim up to 2^63). */
static void ws_too_large(srv_client *c, unsigned long long least)
{
    char msg[160];
    snprintf(msg, sizeof msg, "a message of %llu bytes or more is over the limit (1..%u bytes); "
             "disconnecting", least, WIRE_MAX_CLIENT_MSG);
    c->inlen = 0;
    c->partial_since = 0;
    srv_client_error_final(c, "too_large", msg);
}

/* Once a second (the sweep). lws parses the frames and calls RECEIVE only with payload in hand,
 * so a frame header with nothing after it — whole, declaring any length, or a few bytes of one —
 * reaches no callback. What lws keeps of it still shows: the length a header declared
 * (lws_remaining_packet_payload, also a lower bound while its last bytes are missing), and that
 * the first byte of a new data frame was read (lws_is_first_fragment, cleared at each delivery).
 * Over the limit: too_large now, as TCP does with its length prefix; otherwise a message has
 * started, and the sweep gives it SRV_PARTIAL_MS from here. (Two bytes of a control frame's header
 * with no length yet show nothing; such a client is one that said nothing, for the idle rule.) */
static void ws_sweep(srv_client *c, uint64_t now)
{
    struct lws *wsi = c->ws.wsi;
    if (!wsi || c->closing || c->draining) return;
    size_t still = lws_remaining_packet_payload(wsi);
    if (still > WIRE_MAX_CLIENT_MSG - c->inlen) {
        ws_too_large(c, (unsigned long long)c->inlen + (unsigned long long)still);
        return;
    }
    if (still || c->inlen || lws_is_first_fragment(wsi)) {
        if (!c->partial_since) c->partial_since = now ? now : 1;
    } else
        c->partial_since = 0;            /* e.g. a ping's payload that was pending has come */
}

/* A piece of a message. Binary messages are gathered (at most 64 KiB, as over TCP) and handed to
 * the handler table whole; a text one is refused once whole, its bytes discarded. */
static int ws_receive(srv_client *c, struct lws *wsi, const uint8_t *in, size_t len)
{
    if (c->closing) return -1;
    if (c->draining) return 0;           /* discard: the conversation is over */
    if (lws_is_first_fragment(wsi)) {
        c->inlen = 0;
        c->ws.text = !lws_frame_is_binary(wsi);
    }
    size_t have = c->inlen + len, still = lws_remaining_packet_payload(wsi);
    if (have > WIRE_MAX_CLIENT_MSG || still > WIRE_MAX_CLIENT_MSG - have) {
        ws_too_large(c, (unsigned long long)have + (unsigned long long)still);
        return c->closing ? -1 : 0;
    }
    if (!c->ws.text) {
        if (have > c->incap) {
            size_t nc = c->incap ? c->incap : 4096;
            while (nc < have) nc *= 2;
            if (nc > WIRE_MAX_CLIENT_MSG) nc = WIRE_MAX_CLIENT_MSG;
            uint8_t *p = realloc(c->in, nc);
            if (!p) {
                srv_client_close(c, "out of memory receiving a message");
                return -1;
            }
            c->in = p;
            c->incap = nc;
        }
        memcpy(c->in + c->inlen, in, len);
    }
    c->inlen = have;
    if (!lws_is_final_fragment(wsi)) {
        if (!c->partial_since) c->partial_since = uv_now(c->s->loop) ? uv_now(c->s->loop) : 1;
        return 0;
    }
    size_t n = c->inlen;
    c->inlen = 0;
    c->partial_since = 0;
    if (c->ws.text)
        srv_client_error(c, "not_binary", "a WebSocket text message: every message is one msgpack "
                         "map in a binary message", NULL);
    else
        srv_client_received(c, c->in, n);
    return c->closing ? -1 : 0;
}

/* lws may write now. Write what is queued, one frame at a time while the socket takes them; with
 * nothing queued (lws calls this on its own after draining a partial write) write nothing. */
static int ws_writeable(srv_client *c, struct lws *wsi)
{
    srv_ws_conn *ws = &c->ws;
    if (c->closing) return -1;
    if (!lws_partial_buffered(wsi)) ws->inflight = 0;
    for (int k = 0; ws->n && k < WS_WRITES_PER_CALLBACK; k++) {
        if (k && lws_send_pipe_choked(wsi)) break;
        srv_msg *m = ws->q[ws->head];
        ws->head = (ws->head + 1) % ws->cap;
        ws->n--;
        ws->qbytes -= m->len;
        int w = lws_write(wsi, SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m), LWS_WRITE_BINARY);
        /* What the kernel did not take, lws has copied: the reference can go now. */
        ws->inflight = w >= 0 && lws_partial_buffered(wsi) ? m->len : 0;
        c->s->net->ws_msgs++;
        if (ws->inflight) {
            c->s->net->ws_partials++;
            c->s->net->ws_partial_bytes += SRV_MSG_BODYLEN(m);
        }
        srv_msg_unref(m);
        if (w < 0) {
            srv_client_close(c, "WebSocket write failed");
            return -1;
        }
        if (ws->inflight) break;
    }
    if (ws->n) {
        lws_callback_on_writable(wsi);
    } else {
        if (ws->cap > 64) ws_release(ws);    /* a burst is over: give its ring back */
        if (ws->finish && !ws->inflight && !ws->close_sent) {
            /* The close frame, written here after the last word rather than by lws: a WRITEABLE
             * callback that returns -1 makes lws drop the connection without one. Then, as
             * over TCP, what the client still sends is discarded until it answers with its own
             * close (WS_PEER_INITIATED_CLOSE) or SRV_DRAIN_MS pass (the sweep). */
            unsigned char frame[LWS_PRE + 2 + 125];
            size_t wl = strlen(c->drain_why);
            if (wl > 123) wl = 123;
            unsigned char *f = frame + LWS_PRE;       /* FIN + close, unmasked, then 1008 */
            f[0] = 0x88;
            f[1] = (unsigned char)(2 + wl);
            f[2] = (unsigned char)(LWS_CLOSE_STATUS_POLICY_VIOLATION >> 8);
            f[3] = (unsigned char)(LWS_CLOSE_STATUS_POLICY_VIOLATION & 0xff);
            memcpy(f + 4, c->drain_why, wl);
            ws->close_sent = 1;
            if (lws_write(wsi, f, 4 + wl, LWS_WRITE_RAW) < 0) {
                srv_client_close(c, c->drain_why);
                return -1;
            }
        }
    }
    return 0;
}

/* GET /vivarium.wasm: the sim module the page verifies recordings and runs local worlds with
 * (make wasm), from --wasm FILE, as application/wasm so that the page can compile it while it
 * downloads. Only that exact path; the vhost's headers (the page's CSP and the rest) go with it
 * as with every file. Missing: 404, and the page says what to build. */
static int serve_wasm(struct lws *wsi)
{
    srv *s = lws_context_user(lws_get_context(wsi));
    const srv_http *h = s->net->http;
    char uri[64];
    int n = lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI);
    struct stat st;
    if (n != (int)strlen(WASM_PATH) || strcmp(uri, WASM_PATH) != 0 || !h->wasm_path[0] ||
        stat(h->wasm_path, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL)) return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    n = lws_serve_http_file(wsi, h->wasm_path, "application/wasm", NULL, 0);
    if (n < 0) return -1;
    return n > 0 && lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Only GET /ws becomes a WebSocket (with or without the subprotocol). */
static int upgrade_allowed(struct lws *wsi)
{
    char uri[64];
    int n = lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI);
    return n == (int)strlen(WS_PATH) && strcmp(uri, WS_PATH) == 0;
}

/* Answer a request with `status` and a one-line plain-text body (why), and close: a refused
 * handshake. 426 names the version vivd speaks. The bytes are written here, not with lws's
 * header helpers, which answer "HTTP/1.0" before lws has read the request's version. 1 when
 * written (the callback's "answered: end the transaction"), -1 when it could not be. */
static int http_refuse(struct lws *wsi, unsigned status, const char *why)
{
    const char *phrase = status == HTTP_STATUS_BAD_REQUEST ? "Bad Request"
                       : status == HTTP_STATUS_NOT_FOUND ? "Not Found" : "Upgrade Required";
    uint8_t buf[LWS_PRE + 1024];
    char *start = (char *)buf + LWS_PRE;
    size_t room = sizeof buf - LWS_PRE;
    int n = snprintf(start, room, "HTTP/1.1 %u %s\r\n%scontent-type: text/plain; charset=utf-8\r\n"
                     "content-length: %zu\r\nconnection: close\r\n\r\n%s\n", status, phrase,
                     status == WS_STATUS_UPGRADE_REQUIRED ? "sec-websocket-version: 13\r\n" : "",
                     strlen(why) + 1, why);
    if (n < 0 || (size_t)n >= room) return -1;
    return lws_write(wsi, (unsigned char *)start, (size_t)n, LWS_WRITE_HTTP) == n ? 1 : -1;
}

/* How many times the request carries header h (lws keeps repeats as fragments). */
static int header_count(struct lws *wsi, enum lws_token_indexes h)
{
    if (!lws_hdr_total_length(wsi, h)) return 0;
    int n = 1;
    char one[128];
    while (n < 8 && lws_hdr_copy_fragment(wsi, one, sizeof one, h, n) >= 0) n++;
    return n;
}

/* Whether the comma-separated list in header h holds `token` (case-insensitive). */
static int header_has_token(struct lws *wsi, enum lws_token_indexes h, const char *token)
{
    char v[256];
    if (lws_hdr_copy(wsi, v, sizeof v, h) <= 0) return 0;
    size_t tl = strlen(token);
    for (char *t = v; *t;) {
        t += strspn(t, " \t,");
        size_t n = strcspn(t, ",");
        size_t k = n;
        while (k && (t[k - 1] == ' ' || t[k - 1] == '\t')) k--;
        if (k == tl && strncasecmp(t, token, tl) == 0) return 1;
        t += n;
    }
    return 0;
}

/* Sec-WebSocket-Key: the base64 of 16 bytes (RFC 6455 4.1), which is 22 characters and "==". */
static int key_valid(const char *k, int n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (n != 24 || k[22] != '=' || k[23] != '=') return 0;
    for (int i = 0; i < 22; i++)
        if (!k[i] || !strchr(b64, k[i])) return 0;
    return 1;
}

/* The opening handshake, checked as RFC 6455 4.2.1 asks before lws answers 101 (lws itself
 * accepts any key, any or no version, HTTP/1.0 and repeated headers, and closes without a word
 * on what it does refuse). 0: it may upgrade; otherwise the answer is written (400, 404, or 426
 * with Sec-WebSocket-Version: 13) and the connection ends: 1, or -1 if it could not be written. */
static int upgrade_check(struct lws *wsi, const char *upgrade)
{
    char v[64], *uri = NULL;
    int ulen = 0;
    int meth = lws_http_get_uri_and_method(wsi, &uri, &ulen);
    if (meth != LWSHUMETH_GET)
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "a WebSocket handshake is a GET");
    if (lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_HTTP) <= 0 || strcmp(v, "HTTP/1.1") != 0)
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "a WebSocket handshake is HTTP/1.1");
    if (!upgrade || strcasecmp(upgrade, "websocket") != 0 || header_count(wsi, WSI_TOKEN_UPGRADE) != 1)
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "the only upgrade is Upgrade: websocket");
    if (!header_has_token(wsi, WSI_TOKEN_CONNECTION, "upgrade"))
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "a WebSocket handshake needs Connection: Upgrade");
    if (header_count(wsi, WSI_TOKEN_HOST) != 1)
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "a WebSocket handshake needs one Host header");
    int kn = lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_KEY);
    if (header_count(wsi, WSI_TOKEN_KEY) != 1 || !key_valid(v, kn))
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "Sec-WebSocket-Key must be one header: the "
                           "base64 of 16 bytes");
    int vn = header_count(wsi, WSI_TOKEN_VERSION);
    if (vn != 1)
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, vn ? "more than one Sec-WebSocket-Version"
                                                            : "no Sec-WebSocket-Version (vivd speaks 13)");
    if (lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_VERSION) != 2 || strcmp(v, "13") != 0)
        return http_refuse(wsi, WS_STATUS_UPGRADE_REQUIRED, "vivd speaks WebSocket version 13 only");
    if (ulen != (int)strlen(WS_PATH) || memcmp(uri, WS_PATH, strlen(WS_PATH)) != 0)
        return http_refuse(wsi, HTTP_STATUS_NOT_FOUND, "no WebSocket here: the protocol is at /ws");
    if (lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL) &&
        !header_has_token(wsi, WSI_TOKEN_PROTOCOL, WS_PROTOCOL))
        return http_refuse(wsi, HTTP_STATUS_BAD_REQUEST, "the only subprotocol is " WS_PROTOCOL
                           " (or offer none)");
    return 0;
}

static int ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                       size_t len)
{
    srv_client **pss = user;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        return serve_wasm(wsi);
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return upgrade_check(wsi, in);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return upgrade_allowed(wsi) ? 0 : 1;
    case LWS_CALLBACK_ESTABLISHED:
        return ws_open(lws_context_user(lws_get_context(wsi)), wsi, pss);
    case LWS_CALLBACK_RECEIVE:
        return pss && *pss ? ws_receive(*pss, wsi, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return pss && *pss ? ws_writeable(*pss, wsi) : 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* The answer to our close frame: end now, without echoing it. */
        return pss && *pss && (*pss)->ws.close_sent ? 1 : 0;
    case LWS_CALLBACK_CLOSED:
        if (pss) ws_gone(pss);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        if (pss) ws_gone(pss);
        break;
    default:
        break;
    }
    /* Everything HTTP (the mount's files, errors, keep-alive) is lws's own. */
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- the context ------------------------------------------------------------------------------------ */
static void lws_log_line(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
    srv_log(NULL, SRV_LOG_WARN, "libwebsockets: %.*s", (int)n, line);
}

void srv_http_plugin_message(const char *why, char *err, size_t errlen)
{
    snprintf(err, errlen, "libwebsockets is unable to load its evlib plugin for libuv (%s: %s): "
             "install it with `apt-get install libwebsockets-evlib-uv`, or run with --no-http",
             EVLIB_PLUGIN, why && *why ? why : "not found");
}

/* Why lws_create_context failed. Without its libuv plugin it cannot start at all, and its own
 * log line says little: load the plugin from where lws looks for it, and say what to install. */
static void context_failed(char *err, size_t errlen)
{
    void *h = dlopen(LWS_INSTALL_LIBDIR "/" EVLIB_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (h) {
        dlclose(h);
        snprintf(err, errlen, "libwebsockets could not start on the libuv loop (run with --verbose "
                 "for its log), or run with --no-http");
        return;
    }
    srv_http_plugin_message(dlerror(), err, errlen);
}

/* The listening socket on h->iface:port, vivd's own (lws gets each connection once its request
 * head is checked: http_head.c). The descriptor, or -1 with the reason in err. */
static int listen_on(const srv_http *h, const char *host, int port, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, h->iface, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, h->iface, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
    } else {
        snprintf(err, errlen, "cannot listen on %s:%d: not an IP address", host, port);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM, 0), one = 1, e = 0;
    if (fd < 0) e = errno;
    else {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, SOMAXCONN) != 0) e = errno;
    }
    if (e) {
        if (fd >= 0) close(fd);
        snprintf(err, errlen, "cannot listen on %s:%d: %s%s", host, port, strerror(e),
                 e == EADDRINUSE ? " (another vivd? pick another --http port, or --no-http)" : "");
        return -1;
    }
    return fd;
}

/* The port fd listens on. */
static int bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) return 0;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

/* A request head checked (http_head.c): lws takes the socket and the bytes read, and answers. */
static void adopt_checked(void *ud, int fd, const char *head, size_t len)
{
    srv_http *h = ud;
    /* NULL: lws closed it (its first service of the bytes ended the connection) or could not
     * take it; in the second case, out of memory, the descriptor is left rather than risk
     * closing one lws closed. */
    if (!h->ctx || h->destroyed) {
        close(fd);
        return;
    }
    lws_adopt_socket_vhost_readbuf(h->vh, fd, head, len);
}

int srv_http_start(srv *s, char *err, size_t errlen)
{
    srv_net *n = s->net;
    srv_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(h->iface, sizeof h->iface, "%s", n->http_host);
    int ipv6 = strchr(h->iface, ':') != NULL;
    snprintf(h->origin, sizeof h->origin, "%s", n->web_dir ? n->web_dir : "clients/web");
    /* File types lws does not know; anything else unknown is served as bytes, not refused. */
    static const char *const mimes[][2] = {
        { ".mjs", "text/javascript" }, { ".wasm", "application/wasm" }, { ".map", "application/json" },
        { ".webp", "image/webp" }, { ".md", "text/markdown; charset=utf-8" },
        { "*", "application/octet-stream" },
    };
    const int nmimes = (int)(sizeof mimes / sizeof mimes[0]);
    _Static_assert(sizeof mimes / sizeof mimes[0] == sizeof h->mime / sizeof h->mime[0], "mime table");
    for (int i = 0; i < nmimes; i++) {
        h->mime[i].name = mimes[i][0];
        h->mime[i].value = mimes[i][1];
        h->mime[i].next = i + 1 < nmimes ? &h->mime[i + 1] : NULL;
    }
    /* Every answer: the page may load its own files and talk to its own vivd, nothing else (no
     * CDN, no fonts from elsewhere, no inline script); WebAssembly may be compiled, for a
     * vendored decoder. */
    static const char *const headers[][2] = {
        { "content-security-policy:", "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; "
          "style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; "
          "worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'" },
        { "x-content-type-options:", "nosniff" },
        { "referrer-policy:", "no-referrer" },
    };
    const int nheaders = (int)(sizeof headers / sizeof headers[0]);
    _Static_assert(sizeof headers / sizeof headers[0] == sizeof h->header / sizeof h->header[0], "header table");
    for (int i = 0; i < nheaders; i++) {
        h->header[i].name = headers[i][0];
        h->header[i].value = headers[i][1];
        h->header[i].next = i + 1 < nheaders ? &h->header[i + 1] : NULL;
    }
    h->mount.mountpoint = "/";
    h->mount.mountpoint_len = 1;
    h->mount.origin = h->origin;
    h->mount.def = "index.html";
    h->mount.origin_protocol = LWSMPRO_FILE;
    h->mount.extra_mimetypes = h->mime;
    /* The module is a build product (bin/), not a file of the page's folder: one exact path,
     * handed to our callback, rather than a mount of bin/, which holds vivd and viv too. */
    snprintf(h->wasm_path, sizeof h->wasm_path, "%s", n->wasm_path ? n->wasm_path : "");
    h->wasm_mount.mountpoint = WASM_PATH;
    h->wasm_mount.mountpoint_len = (unsigned char)strlen(WASM_PATH);
    h->wasm_mount.origin = WS_PROTOCOL;
    h->wasm_mount.origin_protocol = LWSMPRO_CALLBACK;
    h->mount.mount_next = &h->wasm_mount;
    h->protocols[0].name = WS_PROTOCOL;
    h->protocols[0].callback = ws_callback;
    h->protocols[0].per_session_data_size = sizeof(srv_client *);
    h->protocols[0].rx_buffer_size = WS_RX_CHUNK;
    /* Left 0, lws would send() at most rx_buffer_size bytes at a time and copy the rest of
     * every larger frame into a buffer of its own: a copy per viewer of nearly every keyframe.
     * With the largest message here, one send() offers the whole frame to the kernel. */
    h->protocols[0].tx_packet_size = WIRE_MAX_SERVER_MSG + LWS_PRE;

    int lfd = listen_on(h, n->http_host, n->http_port, err, errlen);
    if (lfd < 0) {
        free(h);
        return -1;
    }
    lws_set_log_level(s->cfg.log_level <= SRV_LOG_DEBUG ? LLL_ERR | LLL_WARN : 0, lws_log_line);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = { s->loop };
    info.foreign_loops = loops;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_EXPLICIT_VHOSTS;
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.user = s;
    info.pcontext = &h->ctx;
    h->ctx = lws_create_context(&info);
    if (!h->ctx) {
        context_failed(err, errlen);
        close(lfd);
        free(h);
        return -1;
    }
    struct lws_context_creation_info vi;
    memset(&vi, 0, sizeof vi);
    vi.vhost_name = "vivd";
    vi.port = CONTEXT_PORT_NO_LISTEN_SERVER;    /* its connections come from h->gate */
    vi.protocols = h->protocols;
    vi.mounts = &h->mount;
    vi.headers = h->header;
    vi.options = ipv6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6;
    h->vh = lws_create_vhost(h->ctx, &vi);
    h->gate = h->vh ? srv_http_gate_start(s, lfd, adopt_checked, h) : NULL;
    if (!h->gate) {
        snprintf(err, errlen, "libwebsockets could not serve %s:%d (run with --verbose for its log)",
                 n->http_host, n->http_port);
        close(lfd);
        n->http = h;           /* the context exists: it goes the two-step way, now */
        srv_http_stop(s);
        /* Its handles close over a few turns (a close callback closes the next); then the
         * second destroy (srv_http_free), which unloads the plugin those callbacks live in.
         * Nothing else is on the loop yet (the caller starts HTTP first). */
        for (int i = 0; i < 100 && uv_loop_alive(s->loop); i++) uv_run(s->loop, UV_RUN_NOWAIT);
        srv_http_free(s);
        return -1;
    }
    h->port = bound_port(lfd);
    n->http = h;
    if (n->holding) srv_http_gate_hold(h->gate, 1);
    struct stat st;
    char index[PATH_MAX + 16];
    snprintf(index, sizeof index, "%s/index.html", h->origin);
    if (stat(h->origin, &st) != 0 || !S_ISDIR(st.st_mode))
        srv_log(s, SRV_LOG_WARN, "the page's files are not there: %s is not a directory; HTTP "
                "answers 404 until it is (or give --web DIR)", h->origin);
    else if (stat(index, &st) != 0)
        srv_log(s, SRV_LOG_WARN, "the page's files are not there: %s has no index.html; HTTP "
                "answers 404 for the page until it does", h->origin);
    if (h->wasm_path[0] && stat(h->wasm_path, &st) != 0)
        srv_log(s, SRV_LOG_WARN, "the page's sim module is not there: %s is missing (make wasm "
                "builds it); the page cannot verify recordings or run a local world until it is",
                h->wasm_path);
    return 0;
}

void srv_http_hold(srv *s, int hold)
{
    srv_http *h = s->net ? s->net->http : NULL;
    if (h && !h->destroyed) srv_http_gate_hold(h->gate, hold);
}

int srv_http_port(const srv *s)
{
    return s->net && s->net->http ? s->net->http->port : 0;
}

const char *srv_http_web_dir(const srv *s)
{
    return s->net && s->net->http ? s->net->http->origin : NULL;
}

/* The first step: its connections are closed (their clients freed, through CLOSED) and its
 * handles start closing; the loop must run before the second. */
void srv_http_stop(srv *s)
{
    srv_http *h = s->net ? s->net->http : NULL;
    if (!h || h->destroyed) return;
    srv_net *n = s->net;
    if (n->ws_msgs)
        srv_log(s, SRV_LOG_INFO, "websocket: %llu messages written from the shared buffers, %llu of "
                "them in part (libwebsockets copied their unsent rest: at most %llu bytes)",
                (unsigned long long)n->ws_msgs, (unsigned long long)n->ws_partials,
                (unsigned long long)n->ws_partial_bytes);
    h->destroyed = 1;
    h->port = 0;
    srv_http_gate_stop(h->gate);         /* no new connection, none half-read */
    h->gate = NULL;
    if (h->ctx) lws_context_destroy(h->ctx);
}

void srv_http_free(srv *s)
{
    srv_http *h = s->net ? s->net->http : NULL;
    if (!h) return;
    if (!h->destroyed) srv_http_stop(s);
    /* On a foreign loop the first destroy leaves the context to the handles' close callbacks;
     * if it is still set once they ran, a second one finishes it. */
    if (h->ctx) lws_context_destroy(h->ctx);
    if (h->ctx) srv_log(s, SRV_LOG_WARN, "libwebsockets did not finish destroying its context");
    else {
        free(h);
        s->net->http = NULL;
    }
}
