/* bot_conn.c — `viv bot`'s transport: one libuv loop, thousands of TCP connections. Connects,
 * writes (at once when the socket takes the bytes, else a queued copy), reads into one shared
 * buffer and splits the stream into messages with net.h's framing rule, and records how each
 * connection ended. What a message means is bot_roles.c's business.
 *
 * Over WebSocket (--ws) the same connections first upgrade (GET /ws, subprotocol "vivarium"),
 * then each message goes as one masked binary frame and the server's frames are read with
 * websocket.h's reader: whole frames in the shared buffer are handled in place, as over TCP.
 * Pings are answered and a close frame is echoed; the roles see the same messages either way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bot.h"

void bot_conn_name(const bot_conn *c, char *out, size_t cap)
{
    if (c->role == ROLE_CONTROL) snprintf(out, cap, "control connection");
    else snprintf(out, cap, "%s %d", bot_role_names[c->role], c->idx);
}

static void on_close(uv_handle_t *h) { (void)h; }

void bot_conn_close(bot_conn *c)
{
    if (!c->open) return;
    c->open = 0;
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

/* ---- writing ------------------------------------------------------------------------------------ */
typedef struct bot_write {
    uv_write_t req;
    uint8_t data[];
} bot_write;

void bot_conn_lost(bot_conn *c, int status);

static void on_write(uv_write_t *req, int status)
{
    bot_write *w = (bot_write *)req;
    bot_conn *c = req->data;
    free(w);
    if (status < 0 && status != UV_ECANCELED && c->open) bot_conn_lost(c, status);
}

/* Send framed bytes: written at once when the socket takes them (the usual case: small
 * messages), else queued in a copy. 0, or -1 if the connection was closed. */
static int conn_send(bot_conn *c, const uint8_t *p, size_t n)
{
    if (!c->open) return -1;
    uv_stream_t *st = (uv_stream_t *)&c->tcp;
    if (uv_stream_get_write_queue_size(st) == 0) {
        uv_buf_t buf = uv_buf_init((char *)p, (unsigned)n);
        int r = uv_try_write(st, &buf, 1);
        if (r == (int)n) return 0;
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        } else if (r != UV_EAGAIN) {
            bot_conn_lost(c, r);
            return -1;
        }
    }
    bot_write *w = malloc(sizeof *w + n);
    if (!w) {
        bot_conn_lost(c, UV_ENOMEM);
        return -1;
    }
    memcpy(w->data, p, n);
    w->req.data = c;
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)n);
    int rc = uv_write(&w->req, st, &buf, 1, on_write);
    if (rc < 0) {
        free(w);
        bot_conn_lost(c, rc);
        return -1;
    }
    return 0;
}

/* Send the message built in wb and empty it. wb is emptied first: a failed send can cascade
 * (connection lost → ramp done → a stats request) into building another message in the same
 * buffer, and conn_send no longer needs the bytes by then. */
int bot_conn_send_buf(bot_conn *c, wire_buf *wb)
{
    const uint8_t *p = wb->p;
    size_t n = wb->len;
    int oom = wb->oom;
    if (c->b->o.ws && !oom) {
        /* One masked binary frame per message (wb may hold several, each length-prefixed). */
        bot *b = c->b;
        wire_buf_reset(&b->wsout);
        uint32_t len;
        while (n && cli_msg_split(p, n, &len) == CLI_RECV_MSG) {
            uint32_t r = sim_rng_next(&b->mask_rng);
            uint8_t mask[4] = { (uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16), (uint8_t)(r >> 24) };
            cli_ws_put_frame(&b->wsout, 1, CLI_WS_BIN, p + 4, len, mask);
            p += 4 + (size_t)len;
            n -= 4 + (size_t)len;
        }
        wire_buf_reset(wb);
        if (b->wsout.oom) {
            bot_conn_lost(c, UV_ENOMEM);
            return -1;
        }
        return conn_send(c, b->wsout.p, b->wsout.len);
    }
    wire_buf_reset(wb);
    return oom ? -1 : conn_send(c, p, n);
}

/* A control frame (a pong, or the close that answers the server's), masked. */
static int ws_send_control(bot_conn *c, int opcode, const uint8_t *p, size_t n)
{
    uint8_t f[CLI_WS_HEADER_MAX + CLI_WS_CONTROL_MAX];
    uint32_t r = sim_rng_next(&c->b->mask_rng);
    uint8_t mask[4] = { (uint8_t)r, (uint8_t)(r >> 8), (uint8_t)(r >> 16), (uint8_t)(r >> 24) };
    if (n > CLI_WS_CONTROL_MAX) n = CLI_WS_CONTROL_MAX;
    size_t h = cli_ws_header_put(f, 1, opcode, n, mask);
    memcpy(f + h, p, n);
    cli_ws_mask(f + h, n, mask, 0);
    return conn_send(c, f, h + n);
}

/* ---- connection outcomes ---------------------------------------------------------------------------- */
/* A connection may move along --host's list: the control connection, viewers and players (not
 * the slow ones, which never read and cannot notice), when their address does not answer at the
 * start or their server goes away later, during the ramp-up or the run (and the control
 * connection also while it picks the world). A move tries each other address once, in turn. */
static int may_move(const bot_conn *c)
{
    const bot *b = c->b;
    return b->naddrs > 1 && c->role != ROLE_SLOW &&
           (b->phase == P_RAMP || b->phase == P_RUN || (b->phase == P_CONTROL && c->role == ROLE_CONTROL));
}

static void lost_for_good(bot_conn *c, const char *why);

/* A move's old handle is closed: connect to the next address, unless the run is over. */
static void on_move_close(uv_handle_t *h)
{
    bot_conn *c = h->data;
    if (!may_move(c)) {
        c->moving = 0;
        c->state = c->was_ready ? ST_LOST : ST_FAILED;
        c->b->lost[c->role] += (uint64_t)c->was_ready;
        c->b->failed[c->role] += (uint64_t)!c->was_ready;
        return;
    }
    c->at = (c->at + 1) % c->b->naddrs;
    c->move_tries++;
    bot_conn_start(c);
}

/* Move c to the next address: 0, under way; -1, it may not, or every other address was tried. */
static int move_on(bot_conn *c)
{
    bot *b = c->b;
    if (!may_move(c) || c->move_tries >= b->naddrs - 1) return -1;
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
    if (c->role == ROLE_CONTROL) b->stats_head = b->stats_tail;   /* those asked are not coming */
    c->moving = 1;
    c->rejoined = c->role == ROLE_VIEWER && c->have_tick;
    c->state = ST_IDLE;
    c->plen = 0;                   /* a message cut short by the loss goes with it */
    c->last_err[0] = '\0';
    c->open = 0;
    uv_close((uv_handle_t *)&c->tcp, on_move_close);
    return 0;
}

/* Address i of the list went away: said once on stderr. */
static void say_addr_lost(bot *b, int i, const char *why)
{
    if (i >= 64 || (b->addr_lost_said >> i & 1)) return;
    b->addr_lost_said |= 1ull << i;
    char one[300];
    if (cli_addr_at(b->o.host, i, one, sizeof one)) snprintf(one, sizeof one, "?");
    fprintf(stderr, "viv bot: %s went away (%s); its connections move to the next addresses\n", one, why);
}

void bot_conn_fail(bot_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bot_conn_fail(bot_conn *c, const char *fmt, ...)
{
    bot *b = c->b;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (c->state == ST_FAILED) return;
    if (!c->moving) c->move_tries = 0;
    if (move_on(c) == 0) return;   /* the next address of the list */
    c->moving = 0;
    if (c->was_ready) {            /* it was on, and no other address takes it now */
        lost_for_good(c, why);
        return;
    }
    c->state = ST_FAILED;
    b->failed[c->role]++;
    bot_tally_add(&b->fail_reasons, why, strlen(why));
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
    bot_conn_close(c);
    if (c->role == ROLE_CONTROL) {
        bot_fatal(b, "cannot connect to %s: %s%s", b->o.host, why,
              !strstr(why, "refused") ? "" : b->o.ws ? " (is vivd running, with its --http port "
              "there? see --host)" : " (is vivd running? see --host)");
        return;
    }
    bot_ramp_fill(b);
}

void bot_conn_ready(bot_conn *c)
{
    bot *b = c->b;
    c->state = ST_READY;
    if (c->moving && c->was_ready) b->moved[c->role]++;   /* on again, at another address */
    else b->ok[c->role]++;
    c->moving = 0;
    c->move_tries = 0;
    c->was_ready = 1;
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
}

/* c is gone and stays gone: counted, and the control connection's loss said. */
static void lost_for_good(bot_conn *c, const char *why)
{
    bot *b = c->b;
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
    bot_conn_close(c);
    if (c->role == ROLE_SLOW && b->phase == P_DRAIN) {
        c->state = ST_DROPPED;
        b->slow_dropped++;
        return;
    }
    c->state = ST_LOST;
    b->lost[c->role]++;
    bot_tally_add(&b->lost_reasons, why, strlen(why));
    if (c->role == ROLE_CONTROL && b->phase <= P_FINAL) {
        fprintf(stderr, "viv bot: the control connection was closed: %s\n", why);
        if (b->phase == P_CONTROL) bot_fatal(b, "the control connection was closed: %s", why);
        else if (b->phase == P_FINAL) b->final_stats = 1;
    }
}

/* The server closed the connection, or a read or write failed. */
void bot_conn_lost(bot_conn *c, int status)
{
    bot *b = c->b;
    if (!c->open) return;
    if (c->state == ST_UPGRADE) {
        bot_conn_fail(c, "%s before it answered the WebSocket upgrade (vivd upgrades GET %s only)",
                      status == UV_EOF ? "closed by the server" : uv_strerror(status), CLI_WS_PATH);
        return;
    }
    if (c->state == ST_CONNECTING || c->state == ST_HELLO || c->state == ST_SUB) {
        bot_conn_fail(c, "%s before the %s", status == UV_EOF ? "closed by the server" : uv_strerror(status),
                  c->state == ST_SUB ? "first frame" : "welcome");
        return;
    }
    char why[160];
    if (c->ws_close)
        snprintf(why, sizeof why, "closed by the server (WebSocket close %d%s%s)", c->ws_close,
                 c->last_err[0] ? "; last error: " : "", c->last_err);
    else
        snprintf(why, sizeof why, "%s%s%s%s", status == UV_EOF ? "closed by the server" : uv_strerror(status),
                 c->last_err[0] ? " (last error: " : "", c->last_err, c->last_err[0] ? ")" : "");
    if (may_move(c)) {
        say_addr_lost(b, c->at, why);
        if (c->role == ROLE_CONTROL && b->phase == P_RUN) b->control_moved = 1;
        c->move_tries = 0;
        if (move_on(c) == 0) return;
    }
    lost_for_good(c, why);
}

/* ---- reading ----------------------------------------------------------------------------------- */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    bot_conn *c = h->data;
    (void)suggested;
    /* libuv calls alloc, read(2) and the read callback in turn for one stream at a time, so one
     * buffer serves every connection; only unfinished messages are copied out. */
    *buf = uv_buf_init((char *)c->b->rbuf, BOT_READ_BUF);
}

static int pend_reserve(bot_conn *c, size_t need)
{
    if (c->pcap >= need) return 0;
    size_t nc = c->pcap ? c->pcap : 4096;
    while (nc < need) nc *= 2;
    uint8_t *p = realloc(c->pend, nc);
    if (!p) return -1;
    c->pend = p;
    c->pcap = nc;
    return 0;
}

/* A length the stream cannot be resynchronised after: counted, and the connection dropped. "HTTP"
 * read as a length is vivd's HTTP port, said as viv view says it (net.h); p, k: the bytes. */
static void bad_len(bot_conn *c, uint32_t n, const uint8_t *p, size_t k)
{
    char name[48];
    bot_conn_name(c, name, sizeof name);
    if (n == CLI_LEN_HTTP) {
        char one[300], say[600];
        if (cli_addr_at(c->b->o.host, c->at, one, sizeof one)) snprintf(one, sizeof one, "%s", c->b->o.host);
        cli_http_port_say(one, p, k, say, sizeof say);
        fprintf(stderr, "viv bot: %s: %s: %s\n", name, one, say);
    } else {
        fprintf(stderr, "viv bot: %s: the server sent a message length of %u bytes; dropping it\n",
                name, n);
    }
    c->b->malformed++;
    bot_conn_lost(c, UV_EPROTO);
}

/* Split the bytes into messages (cli_msg_split, the framing rule of net.h): finish a carried-over
 * one first, then handle whole messages in place, and carry the tail. */
static void conn_feed(bot_conn *c, const uint8_t *p, size_t left)
{
    uint32_t n;
    if (c->plen) {
        if (c->plen < 4) {
            size_t k = 4 - c->plen < left ? 4 - c->plen : left;
            memcpy(c->pend + c->plen, p, k);
            c->plen += k;
            p += k;
            left -= k;
            if (c->plen < 4) return;
        }
        if (cli_msg_split(c->pend, 4, &n) == CLI_EPROTO) { bad_len(c, n, c->pend, 4); return; }
        size_t total = 4 + (size_t)n;
        if (pend_reserve(c, total)) { bot_conn_lost(c, UV_ENOMEM); return; }
        size_t k = total - c->plen < left ? total - c->plen : left;
        memcpy(c->pend + c->plen, p, k);
        c->plen += k;
        p += k;
        left -= k;
        if (c->plen < total) return;
        c->plen = 0;
        if (bot_conn_message(c, c->pend + 4, n) || !c->open) return;
    }
    int split;
    while ((split = cli_msg_split(p, left, &n)) == CLI_RECV_MSG) {
        if (bot_conn_message(c, p + 4, n) || !c->open) return;
        p += 4 + (size_t)n;
        left -= 4 + (size_t)n;
    }
    if (split == CLI_EPROTO) { bad_len(c, n, p, left); return; }
    if (left) {
        if (pend_reserve(c, left < 4 ? 4 : left)) { bot_conn_lost(c, UV_ENOMEM); return; }
        memcpy(c->pend, p, left);
        c->plen = left;
    }
}

/* ---- WebSocket --------------------------------------------------------------------------------- */
static void ws_frames(bot_conn *c, const uint8_t *p, size_t n);
static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);

/* hello (and, for a slow client, sub at once: it will never read the welcome). */
static void send_hello(bot_conn *c)
{
    bot *b = c->b;
    char name[48];
    if (c->role == ROLE_CONTROL) snprintf(name, sizeof name, "bot-control");
    else if (c->role == ROLE_VIEWER) snprintf(name, sizeof name, "bot-%d", c->idx);
    else snprintf(name, sizeof name, "bot-%s-%d", bot_role_names[c->role], c->idx);
    const char *token = c->role == ROLE_PLAYER ? b->o.token : NULL;
    cli_put_hello(&b->wb, name, token);
    if (c->role == ROLE_SLOW)     /* hello and sub at once: it will never read the welcome */
        cli_put_sub(&b->wb, b->world, 1, "raw", NULL);
    if (bot_conn_send_buf(c, &b->wb)) return;
    if (c->role == ROLE_SLOW) {
        bot_conn_ready(c);
        bot_ramp_fill(b);
    }
}

/* Connected: ask for the upgrade. Every role reads its answer, slow clients too (they stop
 * reading once it has come). */
static void ws_upgrade(bot_conn *c)
{
    bot *b = c->b;
    c->state = ST_UPGRADE;
    cli_ws_reader_init(&c->wr, WIRE_MAX_SERVER_MSG);
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc) {
        bot_conn_fail(c, "read: %s", uv_strerror(rc));
        return;
    }
    uint8_t nonce[16];
    for (int i = 0; i < 16; i += 4) {
        uint32_t r = sim_rng_next(&b->mask_rng);
        for (int k = 0; k < 4; k++) nonce[i + k] = (uint8_t)(r >> (8 * k));
    }
    cli_ws_key(nonce, c->ws_key);
    char req[1024];
    size_t n = cli_ws_request(req, sizeof req, b->o.ws_hostport, b->o.ws_path, c->ws_key,
                              CLI_WS_SUBPROTOCOL);
    if (n == 0) {                  /* the option parser keeps the address shorter than this */
        bot_conn_fail(c, "the WebSocket address is too long");
        return;
    }
    conn_send(c, (const uint8_t *)req, n);
}

/* Bytes of the answer to the upgrade, gathered in pend until its header is whole; then hello,
 * and what came after the header is the first frames. */
static void ws_answer(bot_conn *c, const uint8_t *p, size_t n)
{
    bot *b = c->b;
    if (pend_reserve(c, c->plen + n)) {
        bot_conn_lost(c, UV_ENOMEM);
        return;
    }
    memcpy(c->pend + c->plen, p, n);
    c->plen += n;
    if (cli_ws_answer_not_http(c->pend, c->plen)) {
        bot_conn_fail(c, "the answer to the WebSocket upgrade is not HTTP: is %s vivd's TCP port? "
                      "WebSocket is on its --http port (default 7401)", b->o.ws_hostport);
        return;
    }
    size_t hl = cli_ws_answer_len(c->pend, c->plen);
    if (!hl) {
        if (c->plen > BOT_WS_ANSWER_MAX)
            bot_conn_fail(c, "the answer to the WebSocket upgrade has a header over %d bytes",
                          BOT_WS_ANSWER_MAX);
        return;
    }
    char err[200];
    int rc = cli_ws_answer_check((const char *)c->pend, hl, c->ws_key, CLI_WS_SUBPROTOCOL, err, sizeof err);
    if (rc == CLI_WS_REFUSED) {
        bot_conn_fail(c, "the WebSocket upgrade was refused: %s (vivd upgrades GET %s only)", err,
                      CLI_WS_PATH);
        return;
    }
    if (rc) {
        bot_conn_fail(c, "%s", err);
        return;
    }
    size_t rest = c->plen - hl;
    c->plen = 0;                   /* pend's bytes stay where they are until ws_frames is done */
    c->state = ST_HELLO;
    if (c->role == ROLE_SLOW) uv_read_stop((uv_stream_t *)&c->tcp);
    send_hello(c);
    if (rest && c->open && c->role != ROLE_SLOW) ws_frames(c, c->pend + hl, rest);
}

/* The server's frames: messages go to the roles, a ping is answered, a close is echoed and ends
 * the connection. */
static void ws_frames(bot_conn *c, const uint8_t *p, size_t n)
{
    bot *b = c->b;
    for (;;) {
        cli_ws_event ev;
        char err[160];
        int rc = cli_ws_read(&c->wr, &p, &n, &ev, err, sizeof err);
        if (rc == 0) return;
        if (rc < 0) {
            char name[48];
            bot_conn_name(c, name, sizeof name);
            fprintf(stderr, "viv bot: %s: the server broke the WebSocket protocol: %s; dropping it\n",
                    name, err);
            b->malformed++;
            bot_conn_lost(c, UV_EPROTO);
            return;
        }
        if (ev.op == CLI_WS_BIN) {
            if (bot_conn_message(c, ev.p, ev.n) || !c->open) return;
        } else if (ev.op == CLI_WS_TEXT) {
            b->malformed++;        /* vivd's messages are binary */
        } else if (ev.op == CLI_WS_PING) {
            if (ws_send_control(c, CLI_WS_PONG, ev.p, ev.n)) return;
        } else if (ev.op == CLI_WS_CLOSE) {
            const char *why;
            size_t wl;
            int code = cli_ws_close_status(&ev, &why, &wl);
            uint8_t echo[2] = { (uint8_t)(code >> 8), (uint8_t)code };
            c->ws_close = code;
            ws_send_control(c, CLI_WS_CLOSE, echo, code == 1005 ? 0 : 2);
            bot_conn_lost(c, UV_EOF);
            return;
        }
    }
}

static void ws_feed(bot_conn *c, const uint8_t *p, size_t n)
{
    if (c->state == ST_UPGRADE) ws_answer(c, p, n);
    else ws_frames(c, p, n);
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    bot_conn *c = st->data;
    bot *b = c->b;
    if (!c->open) return;
    if (nread < 0) {
        bot_conn_lost(c, (int)nread);
        return;
    }
    if (nread == 0) return;
    if (c->role == ROLE_SLOW && c->state != ST_UPGRADE) {   /* only read while draining at the end */
        b->slow_drained_bytes += (uint64_t)nread;
        return;
    }
    if (b->phase == P_RUN) b->bytes += (uint64_t)nread;
    if (b->o.ws) ws_feed(c, (const uint8_t *)buf->base, (size_t)nread);
    else conn_feed(c, (const uint8_t *)buf->base, (size_t)nread);
}

/* ---- connecting ---------------------------------------------------------------------------------- */
static void on_connect(uv_connect_t *req, int status)
{
    bot_conn *c = req->data;
    bot *b = c->b;
    if (!c->open) return;
    if (status < 0) {
        bot_conn_fail(c, "connect: %s", uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);     /* inputs and stats are small: no Nagle wait for their acks */
    if (b->o.ws) {
        ws_upgrade(c);
        return;
    }
    c->state = ST_HELLO;
    if (c->role != ROLE_SLOW) {
        int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        if (rc) {
            bot_conn_fail(c, "read: %s", uv_strerror(rc));
            return;
        }
    }
    send_hello(c);
}

void bot_conn_read_start(bot_conn *c)
{
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

void bot_conn_start(bot_conn *c)
{
    bot *b = c->b;
    c->started_ns = now_ns();
    c->state = ST_CONNECTING;
    c->inflight = 1;
    b->inflight++;
    int rc;
    if (c->role == ROLE_SLOW) {
        rc = uv_tcp_init_ex(b->loop, &c->tcp, b->addrs[c->at].ss_family);
        if (rc == 0) {
            uv_os_fd_t fd;
            int small = BOT_SLOW_RCVBUF;
            if (uv_fileno((uv_handle_t *)&c->tcp, &fd) == 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
        }
    } else {
        rc = uv_tcp_init(b->loop, &c->tcp);
    }
    if (rc) {
        bot_conn_fail(c, "socket: %s", uv_strerror(rc));
        return;
    }
    c->open = 1;
    c->tcp.data = c;
    c->creq.data = c;
    rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&b->addrs[c->at], on_connect);
    if (rc) bot_conn_fail(c, "connect: %s", uv_strerror(rc));
}
