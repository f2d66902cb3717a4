/* bot.c — `viv bot`: a load generator for vivd (docs/PROTOCOL.md).
 *
 * One libuv loop drives every connection: N viewers (hello, sub, count frames, keyframes and tick
 * gaps), P players (random valid inputs at a fixed total rate; ack latency), K slow clients
 * (subscribe to raw frames and never read) and one control connection (stats before and after the
 * measured window). Viewers decode only a frame's header fields — at 1000 viewers × 60 fps the
 * bot must stay far cheaper than the server it measures — except the --verify ones, which
 * rebuild every frame and check its hash.
 *
 * Phases: CONTROL (control hello, pick the world) → RAMP (connect at most BOT_RAMP_INFLIGHT at a
 * time, each waiting for its welcome — a viewer for its first frame) → RUN (the measured window:
 * S seconds; the control connection samples stats each second to see how far behind the world
 * each viewer is) → FINAL (the last stats, the last acks) → DRAIN (read the slow clients to see
 * whether the server dropped them) → DONE. Everything hangs off one `bot`; nothing is global. */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <uv.h>
#include "cli.h"
#include "net.h"
#include "wire.h"

#define BOT_RAMP_INFLIGHT 200   /* connections between connect() and welcome at once: well under
                                   vivd's listen backlog (511) */
#define BOT_WELCOME_MS 10000    /* as vivd's own hello deadline */
#define BOT_STATS_MS 10000      /* wait for the final stats reply */
#define BOT_ACKS_MS 2000        /* after the window, wait this long for the last acks */
#define BOT_DRAIN_MS 1000       /* read the slow clients this long to see who was dropped */
#define BOT_HOUSE_MS 20         /* housekeeping period: window end, time-outs */
#define BOT_INPUT_MS 2          /* inputs are paced by elapsed time, sent every 2 ms */
#define BOT_PING_MS 60000       /* keeps control and players under vivd's 5-minute idle limit */
#define BOT_READ_BUF (256u * 1024u)   /* one shared read buffer: reads happen one at a time */
#define BOT_RING (1u << 16)     /* inputs awaiting their ack, indexed by seq */
#define BOT_LAT_FINE 65536u     /* ack latency histogram: 1 µs buckets up to 65.5 ms, */
#define BOT_LAT_BUCKETS (2u * BOT_LAT_FINE)   /* then 64 µs buckets up to ~4.2 s */
#define BOT_MAX_CODES 24
#define BOT_MAX_INPUTS 16
#define BOT_SLOW_RCVBUF 16384   /* small, so the server's queue is what fills */
#define BOT_SAMPLE_MS 1000      /* viewer lag is sampled this often in the window */
#define BOT_LAG_BUCKETS 4096    /* viewer lag histogram: one bucket per tick */

enum { ROLE_CONTROL, ROLE_VIEWER, ROLE_PLAYER, ROLE_SLOW, ROLE_COUNT };
static const char *const role_names[ROLE_COUNT] = { "control", "viewer", "player", "slow" };
static const char *const role_plural[ROLE_COUNT] = { "control", "viewers", "players", "slow" };

/* A viewer is ready at its first frame, a player at its welcome, a slow client once its hello
 * and sub are written. */
enum { ST_IDLE, ST_CONNECTING, ST_HELLO, ST_SUB, ST_READY, ST_FAILED, ST_LOST, ST_DROPPED };
enum { P_CONTROL, P_RAMP, P_RUN, P_FINAL, P_DRAIN, P_DONE };

typedef struct bot bot;

typedef struct bot_conn {
    uv_tcp_t tcp;
    uv_connect_t creq;
    bot *b;
    int role, idx, state;
    int open;               /* the handle is initialised and uv_close has not been called */
    int inflight;           /* counted in b->inflight (connecting, waiting for welcome) */
    uint64_t started_ns;
    uint8_t *pend;          /* an unfinished message carried over between reads */
    size_t plen, pcap;
    uint64_t last_tick;
    int have_tick;
    uint64_t gaps, skipped;
    cli_frame *cf;          /* --verify viewers: the rebuilt frame */
    char last_err[32];      /* the last error code the server sent on this connection */
} bot_conn;

typedef struct bot_tally {
    int n;
    struct { char key[112]; uint64_t count; } e[BOT_MAX_CODES];
    uint64_t other;
} bot_tally;

typedef struct bot_stats {
    int have;
    uint64_t clients, frames_sent, bytes_sent, frames_skipped, cpu_user_us, cpu_sys_us;
    int have_world;
    uint64_t tick, ticks, late_p50_us, late_p99_us, late_max_us, overruns, subs;
} bot_stats;

typedef struct bot_input {
    char name[32];
    int nargs;
    int32_t lo[SIM_INPUT_MAX_ARGS], hi[SIM_INPUT_MAX_ARGS];
} bot_input;

typedef struct bot_pending {
    uint64_t sent_ns;
    uint32_t seq;
    int used;
} bot_pending;

typedef struct bot_opts {
    const char *host, *world, *token, *enc;
    long clients, seconds, rate, players, slow, every, verify;
    int json;
} bot_opts;

struct bot {
    uv_loop_t *loop;
    bot_opts o;
    struct sockaddr_storage addr;
    bot_conn *conns;        /* [0] control, then viewers, players, slow: the ramp's order */
    int nconns;
    uv_timer_t house, input_timer;
    uv_signal_t sigint;
    int timers_open;
    unsigned house_ticks;
    uint8_t *rbuf;
    int phase;
    int exit_code;
    char fatal[512];
    int interrupted;
    /* the world */
    uint32_t world;
    char kind[32];
    int fw, fh, hz;
    bot_input inputs[BOT_MAX_INPUTS];
    int ninputs;
    /* the ramp */
    int next_start, inflight, in_ramp_fill;
    uint64_t t_begin, t_ramp_start, t_window_start, t_window_end, t_deadline, t_last_ping;
    uv_rusage_t ru_start, ru_end;
    /* per role */
    uint64_t wanted[ROLE_COUNT], ok[ROLE_COUNT], failed[ROLE_COUNT], lost[ROLE_COUNT];
    bot_tally fail_reasons, lost_reasons;
    /* frames (counted inside the window) */
    uint64_t frames, keys, bytes, gaps, skipped, max_jump, out_of_order, first_not_key;
    uint64_t other_world, world_closed, malformed;
    uint64_t verified, mismatches, verify_errors;
    char first_verify_err[200];
    /* slow clients */
    uint64_t slow_dropped, slow_alive, slow_drained_bytes;
    int drain_skipped;
    /* server errors not about inputs */
    bot_tally errs;
    /* inputs */
    sim_rng rng;
    uint32_t next_seq;
    int next_player;
    bot_pending *ring;
    uint32_t *lat_hist;
    uint64_t pending_n;     /* inputs sent and not yet answered */
    int final_stats;        /* the last stats reply came, or will not */
    uint64_t in_planned, in_sent, in_late, in_noplayer, acks, ack_unknown, unanswered;
    uint64_t lat_min, lat_max, lat_sum;
    bot_tally input_errs;
    wire_buf wb;
    /* viewer lag: world tick (from stats) − the viewer's latest frame tick, sampled */
    uint64_t lag_hist[BOT_LAG_BUCKETS], lag_n, lag_max, t_last_sample;
    /* server stats: at start, at the window's start, at its end; slot 3: a lag sample */
    bot_stats snap[4];
    int stats_fifo[8], stats_head, stats_tail;
    uint64_t stats_sent_ns[8];
    uint64_t rtt_n, rtt_sum, rtt_max;   /* stats round trips in the window: server responsiveness */
};

/* ---- small helpers -------------------------------------------------------------------------------- */
static uint64_t now_ns(void) { return uv_hrtime(); }

static int tally_add(bot_tally *t, const char *key, size_t len)
{
    if (len >= sizeof t->e[0].key) len = sizeof t->e[0].key - 1;
    for (int i = 0; i < t->n; i++)
        if (strlen(t->e[i].key) == len && memcmp(t->e[i].key, key, len) == 0) {
            t->e[i].count++;
            return 0;
        }
    if (t->n == BOT_MAX_CODES) {
        t->other++;
        return 0;
    }
    memcpy(t->e[t->n].key, key, len);
    t->e[t->n].key[len] = '\0';
    t->e[t->n].count = 1;
    t->n++;
    return 1;           /* a new key */
}

static uint64_t tally_total(const bot_tally *t)
{
    uint64_t n = t->other;
    for (int i = 0; i < t->n; i++) n += t->e[i].count;
    return n;
}

static void conn_name(const bot_conn *c, char *out, size_t cap)
{
    if (c->role == ROLE_CONTROL) snprintf(out, cap, "control connection");
    else snprintf(out, cap, "%s %d", role_names[c->role], c->idx);
}

static void on_close(uv_handle_t *h) { (void)h; }

static void conn_close(bot_conn *c)
{
    if (!c->open) return;
    c->open = 0;
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void finish(bot *b);
static void ramp_fill(bot *b);
static void end_window(bot *b);
static void after_final(bot *b);

static void fatal(bot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fatal(bot *b, const char *fmt, ...)
{
    if (!b->fatal[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(b->fatal, sizeof b->fatal, fmt, ap);
        va_end(ap);
    }
    b->exit_code = 1;
    if (b->phase == P_RUN) end_window(b);
    else if (b->phase != P_FINAL && b->phase != P_DRAIN) finish(b);
}

/* ---- writing ------------------------------------------------------------------------------------ */
typedef struct bot_write {
    uv_write_t req;
    uint8_t data[];
} bot_write;

static void conn_lost(bot_conn *c, int status);

static void on_write(uv_write_t *req, int status)
{
    bot_write *w = (bot_write *)req;
    bot_conn *c = req->data;
    free(w);
    if (status < 0 && status != UV_ECANCELED && c->open) conn_lost(c, status);
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
            conn_lost(c, r);
            return -1;
        }
    }
    bot_write *w = malloc(sizeof *w + n);
    if (!w) {
        conn_lost(c, UV_ENOMEM);
        return -1;
    }
    memcpy(w->data, p, n);
    w->req.data = c;
    uv_buf_t buf = uv_buf_init((char *)w->data, (unsigned)n);
    int rc = uv_write(&w->req, st, &buf, 1, on_write);
    if (rc < 0) {
        free(w);
        conn_lost(c, rc);
        return -1;
    }
    return 0;
}

/* Send the message built in wb and empty it. wb is emptied first: a failed send can cascade
 * (connection lost → ramp done → a stats request) into building another message in the same
 * buffer, and conn_send no longer needs the bytes by then. */
static int conn_send_buf(bot_conn *c, wire_buf *wb)
{
    const uint8_t *p = wb->p;
    size_t n = wb->len;
    int oom = wb->oom;
    wire_buf_reset(wb);
    return oom ? -1 : conn_send(c, p, n);
}

static void send_stats(bot *b, int slot)
{
    bot_conn *c = &b->conns[0];
    if (!c->open || c->state != ST_READY) return;
    if ((b->stats_tail + 1) % 8 == b->stats_head) return;
    wire_msg_begin(&b->wb);
    wire_put_map(&b->wb, 1);
    wire_put_str(&b->wb, "t"); wire_put_str(&b->wb, "stats");
    wire_msg_end(&b->wb);
    if (conn_send_buf(c, &b->wb) == 0) {
        b->stats_fifo[b->stats_tail] = slot;
        b->stats_sent_ns[b->stats_tail] = now_ns();
        b->stats_tail = (b->stats_tail + 1) % 8;
    }
}

static void send_ping(bot_conn *c)
{
    bot *b = c->b;
    if (!c->open || c->state != ST_READY) return;
    wire_msg_begin(&b->wb);
    wire_put_map(&b->wb, 1);
    wire_put_str(&b->wb, "t"); wire_put_str(&b->wb, "ping");
    wire_msg_end(&b->wb);
    conn_send_buf(c, &b->wb);
}

/* ---- connection outcomes ---------------------------------------------------------------------------- */
static void conn_fail(bot_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void conn_fail(bot_conn *c, const char *fmt, ...)
{
    bot *b = c->b;
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (c->state == ST_FAILED) return;
    c->state = ST_FAILED;
    b->failed[c->role]++;
    tally_add(&b->fail_reasons, why, strlen(why));
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
    conn_close(c);
    if (c->role == ROLE_CONTROL) {
        fatal(b, "cannot connect to %s: %s%s", b->o.host, why,
              strstr(why, "refused") ? " (is vivd running? see --host)" : "");
        return;
    }
    ramp_fill(b);
}

static void conn_ready(bot_conn *c)
{
    bot *b = c->b;
    c->state = ST_READY;
    b->ok[c->role]++;
    if (c->inflight) {
        c->inflight = 0;
        b->inflight--;
    }
}

/* The server closed the connection, or a read or write failed. */
static void conn_lost(bot_conn *c, int status)
{
    bot *b = c->b;
    if (!c->open) return;
    if (c->state == ST_CONNECTING || c->state == ST_HELLO || c->state == ST_SUB) {
        conn_fail(c, "%s before the %s", status == UV_EOF ? "closed by the server" : uv_strerror(status),
                  c->state == ST_SUB ? "first frame" : "welcome");
        return;
    }
    char why[160];
    snprintf(why, sizeof why, "%s%s%s%s", status == UV_EOF ? "closed by the server" : uv_strerror(status),
             c->last_err[0] ? " (last error: " : "", c->last_err, c->last_err[0] ? ")" : "");
    conn_close(c);
    if (c->role == ROLE_SLOW && b->phase == P_DRAIN) {
        c->state = ST_DROPPED;
        b->slow_dropped++;
        return;
    }
    c->state = ST_LOST;
    b->lost[c->role]++;
    tally_add(&b->lost_reasons, why, strlen(why));
    if (c->role == ROLE_CONTROL && b->phase <= P_FINAL) {
        fprintf(stderr, "viv bot: the control connection was closed: %s\n", why);
        if (b->phase == P_CONTROL) fatal(b, "the control connection was closed: %s", why);
        else if (b->phase == P_FINAL) b->final_stats = 1;
    }
}

/* ---- the world and its inputs ----------------------------------------------------------------------- */
static int val_i64(const wire_val *v, int64_t *out)
{
    if (v->type == WIRE_INT) { *out = v->i; return 0; }
    if (v->type == WIRE_UINT && v->u <= INT64_MAX) { *out = (int64_t)v->u; return 0; }
    return -1;
}

static int name_ends(const char *name, char ch)
{
    size_t n = strlen(name);
    return n > 0 && name[n - 1] == ch;
}

/* Narrow an argument's range so that random values are valid and visible: coordinates inside the
 * frame, a radius of at most 8. Never widens it; an empty intersection keeps the world's range. */
static void narrow_arg(const bot *b, const char *name, int32_t *lo, int32_t *hi)
{
    int32_t l = *lo, h = *hi;
    if (name_ends(name, 'x')) { if (l < 0) l = 0; if (h > b->fw - 1) h = b->fw - 1; }
    else if (name_ends(name, 'y')) { if (l < 0) l = 0; if (h > b->fh - 1) h = b->fh - 1; }
    else if (strcmp(name, "r") == 0 || strcmp(name, "radius") == 0) { if (h > 8) h = 8; }
    if (l <= h) {
        *lo = l;
        *hi = h;
    }
}

/* Read the chosen world's "inputs" and "ranges" into b->inputs. Inputs whose description is
 * inconsistent are left out. */
static void parse_inputs(bot *b, const wire_msg *wm)
{
    const wire_val *inputs = wire_msg_get(wm, "inputs"), *ranges = wire_msg_get(wm, "ranges");
    b->ninputs = 0;
    if (!inputs || !ranges || inputs->type != WIRE_MAP || ranges->type != WIRE_MAP) return;
    const uint8_t *it = inputs->p, *end = inputs->raw + inputs->rawlen;
    for (uint32_t k = 0; k < inputs->n && b->ninputs < BOT_MAX_INPUTS; k++) {
        wire_val key, args;
        if (wire_next(&it, end, &key) || wire_next(&it, end, &args)) return;
        if (key.type != WIRE_STR || args.type != WIRE_ARRAY || key.n >= sizeof b->inputs[0].name ||
            args.n > SIM_INPUT_MAX_ARGS)
            continue;
        bot_input *in = &b->inputs[b->ninputs];
        memset(in, 0, sizeof *in);
        memcpy(in->name, key.p, key.n);
        in->nargs = (int)args.n;
        /* Its ranges: the entry of ranges with the same key. */
        const uint8_t *rt = ranges->p, *rend = ranges->raw + ranges->rawlen;
        int found = 0;
        for (uint32_t r = 0; r < ranges->n && !found; r++) {
            wire_val rk, rv;
            if (wire_next(&rt, rend, &rk) || wire_next(&rt, rend, &rv)) break;
            if (rk.type != WIRE_STR || rk.n != key.n || memcmp(rk.p, key.p, key.n) != 0) continue;
            if (rv.type != WIRE_ARRAY || rv.n != args.n) break;
            const uint8_t *at = rv.p, *aend = rv.raw + rv.rawlen;
            const uint8_t *nt = args.p, *nend = args.raw + args.rawlen;
            int good = 1;
            for (uint32_t a = 0; a < rv.n && good; a++) {
                wire_val pair, lo, hi, an;
                int64_t l, h;
                if (wire_next(&at, aend, &pair) || wire_next(&nt, nend, &an) ||
                    pair.type != WIRE_ARRAY || pair.n != 2 || an.type != WIRE_STR) { good = 0; break; }
                const uint8_t *pt = pair.p, *pend = pair.raw + pair.rawlen;
                if (wire_next(&pt, pend, &lo) || wire_next(&pt, pend, &hi) || val_i64(&lo, &l) ||
                    val_i64(&hi, &h) || l > h || l < INT32_MIN || h > INT32_MAX) { good = 0; break; }
                char aname[32];
                snprintf(aname, sizeof aname, "%.*s", (int)an.n, (const char *)an.p);
                in->lo[a] = (int32_t)l;
                in->hi[a] = (int32_t)h;
                narrow_arg(b, aname, &in->lo[a], &in->hi[a]);
            }
            found = good;
        }
        if (found) b->ninputs++;
    }
}

/* Pick the world from the control connection's welcome (--world ID or KIND; default the first). */
static int pick_world(bot *b, const wire_msg *welcome)
{
    const wire_val *ws = wire_msg_get(welcome, "worlds");
    if (!ws || ws->type != WIRE_ARRAY) {
        fatal(b, "the server's welcome lists no worlds");
        return -1;
    }
    char listing[400] = "";
    size_t ll = 0;
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    char *tail = (char *)"";
    unsigned long want_id = b->o.world ? strtoul(b->o.world, &tail, 10) : 0;
    int by_id = b->o.world && b->o.world[0] >= '0' && b->o.world[0] <= '9' && *tail == '\0';
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val w;
        wire_msg wm;
        uint64_t id, fw, fh, hz;
        const char *kind;
        size_t kl;
        if (wire_next(&it, end, &w) || w.type != WIRE_MAP || wire_msg_decode(w.raw, w.rawlen, &wm) ||
            wire_get_u64(&wm, "id", &id) || wire_get_str(&wm, "kind", &kind, &kl) ||
            wire_get_u64(&wm, "w", &fw) || wire_get_u64(&wm, "h", &fh) ||
            wire_get_u64(&wm, "hz", &hz) || fw < 1 || fw > 4096 || fh < 1 || fh > 4096 || hz < 1 ||
            hz > 1000 || id > UINT32_MAX || kl >= sizeof b->kind) {
            fatal(b, "the server's welcome has a malformed world entry");
            return -1;
        }
        if (ll < sizeof listing - 40)
            ll += (size_t)snprintf(listing + ll, sizeof listing - ll, "%s%" PRIu64 " %.*s",
                                   i ? ", " : "", id, (int)kl, kind);
        int match = !b->o.world ? i == 0 : by_id ? id == want_id
                                                 : wire_str_eq((const uint8_t *)kind, kl, b->o.world);
        if (match && !b->world) {
            b->world = (uint32_t)id;
            memcpy(b->kind, kind, kl);
            b->kind[kl] = '\0';
            b->fw = (int)fw;
            b->fh = (int)fh;
            b->hz = (int)hz;
            parse_inputs(b, &wm);
        }
    }
    if (!b->world) {
        if (ws->n == 0) fatal(b, "the server at %s hosts no worlds", b->o.host);
        else fatal(b, "no world '%s' on %s (worlds: %s); give --world ID or KIND", b->o.world,
                   b->o.host, listing);
        return -1;
    }
    if (b->o.rate > 0 && b->ninputs == 0) {
        fatal(b, "world %u (%s) accepts no inputs the bot can build; drop --inputs-per-sec",
              b->world, b->kind);
        return -1;
    }
    return 0;
}

static void send_input(bot *b, bot_conn *p)
{
    const bot_input *in = &b->inputs[sim_rng_below(&b->rng, (uint32_t)b->ninputs)];
    uint32_t seq = b->next_seq++;
    if (b->next_seq == 0) b->next_seq = 1;
    bot_pending *pe = &b->ring[seq & (BOT_RING - 1)];
    if (pe->used) {                         /* its slot is reused: that ack never came */
        b->unanswered++;
        b->pending_n--;
    }
    wire_msg_begin(&b->wb);
    wire_put_map(&b->wb, 5);
    wire_put_str(&b->wb, "t"); wire_put_str(&b->wb, "input");
    wire_put_str(&b->wb, "seq"); wire_put_uint(&b->wb, seq);
    wire_put_str(&b->wb, "world"); wire_put_uint(&b->wb, b->world);
    wire_put_str(&b->wb, "kind"); wire_put_str(&b->wb, in->name);
    wire_put_str(&b->wb, "args");
    wire_put_array(&b->wb, (uint32_t)in->nargs);
    for (int a = 0; a < in->nargs; a++) wire_put_int(&b->wb, sim_rng_range(&b->rng, in->lo[a], in->hi[a]));
    wire_msg_end(&b->wb);
    pe->used = 1;
    pe->seq = seq;
    pe->sent_ns = now_ns();
    if (conn_send_buf(p, &b->wb) == 0) {
        b->in_sent++;
        b->pending_n++;
    } else {
        pe->used = 0;
    }
}

/* Paced by elapsed time, so a late timer sends a few at once rather than falling behind; more
 * than 50 ms of backlog is dropped (counted as late) instead of arriving as one burst. */
static void on_input_timer(uv_timer_t *t)
{
    bot *b = t->data;
    if (b->phase != P_RUN) return;
    uint64_t elapsed = now_ns() - b->t_window_start;
    uint64_t due = elapsed * (uint64_t)b->o.rate / 1000000000u;
    if (due <= b->in_planned) return;
    uint64_t n = due - b->in_planned, cap = (uint64_t)b->o.rate / 20 + 1;
    if (n > cap) {
        b->in_late += n - cap;
        b->in_planned += n - cap;
        n = cap;
    }
    int first = 1 + (int)b->wanted[ROLE_VIEWER];
    for (uint64_t k = 0; k < n; k++) {
        b->in_planned++;
        bot_conn *p = NULL;
        for (long tries = 0; tries < b->o.players && !p; tries++) {
            bot_conn *c = &b->conns[first + b->next_player];
            b->next_player = (b->next_player + 1) % (int)b->o.players;
            if (c->open && c->state == ST_READY) p = c;
        }
        if (!p) {
            b->in_noplayer++;
            continue;
        }
        send_input(b, p);
    }
}

static void lat_add(bot *b, uint64_t ns)
{
    uint64_t us = ns / 1000;
    uint64_t k = us < BOT_LAT_FINE ? us : BOT_LAT_FINE + (us - BOT_LAT_FINE) / 64;
    if (k >= BOT_LAT_BUCKETS) k = BOT_LAT_BUCKETS - 1;
    b->lat_hist[k]++;
    if (!b->acks || us < b->lat_min) b->lat_min = us;
    if (us > b->lat_max) b->lat_max = us;
    b->lat_sum += us;
    b->acks++;
}

/* The latency percentile in µs (the bucket's lower bound; exact below 65.5 ms). */
static uint64_t lat_pct(const bot *b, double pct)
{
    if (!b->acks) return 0;
    uint64_t want = (uint64_t)((double)b->acks * pct / 100.0), seen = 0;
    if (want >= b->acks) want = b->acks - 1;
    for (uint32_t k = 0; k < BOT_LAT_BUCKETS; k++) {
        seen += b->lat_hist[k];
        if (seen > want) {
            uint64_t us = k < BOT_LAT_FINE ? k : BOT_LAT_FINE + (uint64_t)(k - BOT_LAT_FINE) * 64;
            return us < b->lat_min ? b->lat_min : us > b->lat_max ? b->lat_max : us;
        }
    }
    return b->lat_max;
}

/* Viewer lag percentile in ticks. */
static uint64_t lag_pct(const bot *b, double pct)
{
    if (!b->lag_n) return 0;
    uint64_t want = (uint64_t)((double)b->lag_n * pct / 100.0), seen = 0;
    if (want >= b->lag_n) want = b->lag_n - 1;
    for (uint32_t k = 0; k < BOT_LAG_BUCKETS; k++) {
        seen += b->lag_hist[k];
        if (seen > want) return k;
    }
    return b->lag_max;
}

/* ---- messages ----------------------------------------------------------------------------------- */
static void on_frame(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    uint64_t world, tick;
    int key = 0;
    if (wire_get_u64(m, "world", &world) || wire_get_u64(m, "tick", &tick) ||
        wire_get_bool(m, "key", &key)) {
        b->malformed++;
        return;
    }
    if (world != b->world) {
        b->other_world++;
        return;
    }
    int counting = b->phase == P_RUN;
    uint64_t every = (uint64_t)b->o.every;
    if (!c->have_tick) {
        if (!key) b->first_not_key++;
    } else if (tick <= c->last_tick) {
        if (counting) b->out_of_order++;
    } else if (tick - c->last_tick > every && counting) {
        uint64_t jump = tick - c->last_tick;
        c->gaps++;
        b->gaps++;
        c->skipped += jump / every - 1;
        b->skipped += jump / every - 1;
        if (jump > b->max_jump) b->max_jump = jump;
    }
    c->last_tick = tick;
    c->have_tick = 1;
    if (counting) {
        b->frames++;
        b->keys += (uint64_t)key;
    }
    if (c->cf) {
        char err[128];
        int rc = cli_frame_apply(c->cf, m, err, sizeof err);
        if (counting) {
            b->verified += rc == 0;
            b->mismatches += rc == -2;
            b->verify_errors += rc != 0 && rc != -2;
        }
        if (rc && !b->first_verify_err[0])
            snprintf(b->first_verify_err, sizeof b->first_verify_err, "viewer %d: %s", c->idx, err);
    }
}

static void on_stats(bot *b, const wire_msg *m)
{
    if (b->stats_head == b->stats_tail) return;        /* not asked for */
    int slot = b->stats_fifo[b->stats_head];
    uint64_t rtt = now_ns() - b->stats_sent_ns[b->stats_head];
    if (slot == 3 || slot == 2) {
        b->rtt_n++;
        b->rtt_sum += rtt;
        if (rtt > b->rtt_max) b->rtt_max = rtt;
    }
    b->stats_head = (b->stats_head + 1) % 8;
    bot_stats *s = &b->snap[slot];
    memset(s, 0, sizeof *s);
    if (wire_get_u64(m, "clients", &s->clients) || wire_get_u64(m, "frames_sent", &s->frames_sent) ||
        wire_get_u64(m, "bytes_sent", &s->bytes_sent) ||
        wire_get_u64(m, "frames_skipped", &s->frames_skipped) ||
        wire_get_u64(m, "cpu_user_us", &s->cpu_user_us) || wire_get_u64(m, "cpu_sys_us", &s->cpu_sys_us)) {
        fprintf(stderr, "viv bot: the server's stats reply lacks a field; ignoring it\n");
    } else {
        s->have = 1;
        const wire_val *ws = wire_msg_get(m, "worlds");
        if (ws && ws->type == WIRE_ARRAY) {
            const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
            for (uint32_t i = 0; i < ws->n; i++) {
                wire_val w;
                wire_msg wm;
                uint64_t id;
                if (wire_next(&it, end, &w) || w.type != WIRE_MAP ||
                    wire_msg_decode(w.raw, w.rawlen, &wm) || wire_get_u64(&wm, "id", &id))
                    break;
                if (id != b->world) continue;
                s->have_world = !wire_get_u64(&wm, "tick", &s->tick) &&
                                !wire_get_u64(&wm, "ticks", &s->ticks) &&
                                !wire_get_u64(&wm, "late_p50_us", &s->late_p50_us) &&
                                !wire_get_u64(&wm, "late_p99_us", &s->late_p99_us) &&
                                !wire_get_u64(&wm, "late_max_us", &s->late_max_us) &&
                                !wire_get_u64(&wm, "overruns", &s->overruns) &&
                                !wire_get_u64(&wm, "subs", &s->subs);
            }
        }
    }
    if (slot == 2) b->final_stats = 1;
    if ((slot == 3 || slot == 2) && s->have_world)    /* how far behind the world each viewer is */
        for (int i = 0; i < b->nconns; i++) {
            const bot_conn *c = &b->conns[i];
            if (c->role != ROLE_VIEWER || c->state != ST_READY || !c->open || !c->have_tick) continue;
            uint64_t lag = s->tick > c->last_tick ? s->tick - c->last_tick : 0;
            b->lag_hist[lag < BOT_LAG_BUCKETS ? lag : BOT_LAG_BUCKETS - 1]++;
            b->lag_n++;
            if (lag > b->lag_max) b->lag_max = lag;
        }
}

/* Returns -1 if the connection is gone. */
static int on_error(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    const char *code = "?", *msg = "?";
    size_t cl = 1, ml = 1;
    wire_get_str(m, "code", &code, &cl);
    wire_get_str(m, "msg", &msg, &ml);
    snprintf(c->last_err, sizeof c->last_err, "%.*s", (int)cl, code);
    if (c->state == ST_HELLO || c->state == ST_SUB) {
        conn_fail(c, "refused: %.*s: %.*s", (int)cl, code, (int)(ml > 160 ? 160 : ml), msg);
        return -1;
    }
    uint64_t seq;
    if (c->role == ROLE_PLAYER && wire_get_u64(m, "seq", &seq) == 0 && seq <= UINT32_MAX) {
        bot_pending *pe = &b->ring[seq & (BOT_RING - 1)];
        if (pe->used && pe->seq == seq) {
            pe->used = 0;
            b->pending_n--;
        }
        if (tally_add(&b->input_errs, code, cl))
            fprintf(stderr, "viv bot: an input was refused: %.*s: %.*s\n", (int)cl, code,
                    (int)(ml > 200 ? 200 : ml), msg);
        return 0;
    }
    if (tally_add(&b->errs, code, cl)) {
        char name[48];
        conn_name(c, name, sizeof name);
        fprintf(stderr, "viv bot: server error on %s: %.*s: %.*s\n", name, (int)cl, code,
                (int)(ml > 200 ? 200 : ml), msg);
    }
    return 0;
}

static int on_welcome(bot_conn *c, const wire_msg *m)
{
    bot *b = c->b;
    if (c->role == ROLE_VIEWER) {
        c->state = ST_SUB;             /* ready at its first frame */
        cli_put_sub(&b->wb, b->world, (uint32_t)b->o.every, b->o.enc, NULL);
        return conn_send_buf(c, &b->wb);
    }
    conn_ready(c);
    if (c->role == ROLE_CONTROL) {
        if (pick_world(b, m)) return -1;
        b->phase = P_RAMP;
        b->t_ramp_start = now_ns();
        send_stats(b, 0);
        fprintf(stderr, "viv bot: world %u (%s, %dx%d at %d Hz) on %s: connecting %ld viewer(s), "
                    "%ld player(s), %ld slow\n", b->world, b->kind, b->fw, b->fh, b->hz, b->o.host,
                    b->o.clients, b->o.players, b->o.slow);
        if (b->o.rate > 32L * b->hz * b->o.players)
            fprintf(stderr, "viv bot: note: %ld inputs/s from %ld player(s) exceeds vivd's 32 inputs "
                    "per tick per connection at %d Hz; expect rate_limited errors (add --players)\n",
                    b->o.rate, b->o.players, b->hz);
    } else if (c->role == ROLE_PLAYER) {
        const char *role;
        size_t rl;
        if (wire_get_str(m, "role", &role, &rl) == 0 && wire_str_eq((const uint8_t *)role, rl, "viewer"))
            fprintf(stderr, "viv bot: player %d was admitted as a viewer; its inputs will be refused\n",
                    c->idx);
    }
    ramp_fill(b);
    return 0;
}

/* One message body from the server. Returns -1 if the connection is gone. */
static int conn_message(bot_conn *c, const uint8_t *body, size_t len)
{
    bot *b = c->b;
    wire_msg m;
    const char *t;
    size_t tl;
    if (wire_msg_decode(body, len, &m) || wire_get_str(&m, "t", &t, &tl)) {
        b->malformed++;
        return 0;
    }
    const uint8_t *tt = (const uint8_t *)t;
    if (wire_str_eq(tt, tl, "frame")) {
        if (c->role != ROLE_VIEWER || (c->state != ST_READY && c->state != ST_SUB)) return 0;
        on_frame(c, &m);
        if (c->state == ST_SUB) {
            conn_ready(c);
            ramp_fill(b);
        }
        return 0;
    }
    if (wire_str_eq(tt, tl, "error")) return on_error(c, &m);
    if (c->state == ST_HELLO) {
        if (wire_str_eq(tt, tl, "welcome")) return on_welcome(c, &m);
        conn_fail(c, "expected welcome, got '%.*s'", (int)(tl > 32 ? 32 : tl), t);
        return -1;
    }
    if (wire_str_eq(tt, tl, "ack")) {
        uint64_t seq;
        if (wire_get_u64(&m, "seq", &seq) == 0 && seq <= UINT32_MAX) {
            bot_pending *pe = b->ring ? &b->ring[seq & (BOT_RING - 1)] : NULL;
            if (pe && pe->used && pe->seq == seq) {
                pe->used = 0;
                b->pending_n--;
                lat_add(b, now_ns() - pe->sent_ns);
            } else {
                b->ack_unknown++;
            }
        }
    } else if (wire_str_eq(tt, tl, "stats")) {
        if (c->role == ROLE_CONTROL) on_stats(b, &m);
    } else if (wire_str_eq(tt, tl, "closed")) {
        b->world_closed++;
    }
    return 0;
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

static int check_len(bot_conn *c, uint32_t n)
{
    if (n == 0 || n > WIRE_MAX_SERVER_MSG) {          /* the stream cannot be resynchronised */
        char name[48];
        conn_name(c, name, sizeof name);
        fprintf(stderr, "viv bot: %s: the server sent a message length of %u bytes; dropping it\n",
                name, n);
        c->b->malformed++;
        conn_lost(c, UV_EPROTO);
        return -1;
    }
    return 0;
}

/* Split the bytes into messages: finish a carried-over one first, then handle whole messages in
 * place, and carry the tail. */
static void conn_feed(bot_conn *c, const uint8_t *p, size_t left)
{
    if (c->plen) {
        if (c->plen < 4) {
            size_t k = 4 - c->plen < left ? 4 - c->plen : left;
            memcpy(c->pend + c->plen, p, k);
            c->plen += k;
            p += k;
            left -= k;
            if (c->plen < 4) return;
        }
        uint32_t n = wire_be32(c->pend);
        if (check_len(c, n)) return;
        size_t total = 4 + (size_t)n;
        if (pend_reserve(c, total)) { conn_lost(c, UV_ENOMEM); return; }
        size_t k = total - c->plen < left ? total - c->plen : left;
        memcpy(c->pend + c->plen, p, k);
        c->plen += k;
        p += k;
        left -= k;
        if (c->plen < total) return;
        c->plen = 0;
        if (conn_message(c, c->pend + 4, n) || !c->open) return;
    }
    while (left >= 4) {
        uint32_t n = wire_be32(p);
        if (check_len(c, n)) return;
        if (left - 4 < n) break;
        if (conn_message(c, p + 4, n) || !c->open) return;
        p += 4 + (size_t)n;
        left -= 4 + (size_t)n;
    }
    if (left) {
        if (pend_reserve(c, left < 4 ? 4 : left)) { conn_lost(c, UV_ENOMEM); return; }
        memcpy(c->pend, p, left);
        c->plen = left;
    }
}

static void on_read(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    bot_conn *c = st->data;
    bot *b = c->b;
    if (!c->open) return;
    if (nread < 0) {
        conn_lost(c, (int)nread);
        return;
    }
    if (nread == 0) return;
    if (c->role == ROLE_SLOW) {           /* only read while draining at the end */
        b->slow_drained_bytes += (uint64_t)nread;
        return;
    }
    if (b->phase == P_RUN) b->bytes += (uint64_t)nread;
    conn_feed(c, (const uint8_t *)buf->base, (size_t)nread);
}

/* ---- connecting ---------------------------------------------------------------------------------- */
static void on_connect(uv_connect_t *req, int status)
{
    bot_conn *c = req->data;
    bot *b = c->b;
    if (!c->open) return;
    if (status < 0) {
        conn_fail(c, "connect: %s", uv_strerror(status));
        return;
    }
    c->state = ST_HELLO;
    uv_tcp_nodelay(&c->tcp, 1);     /* inputs and stats are small: no Nagle wait for their acks */
    if (c->role != ROLE_SLOW) {
        int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        if (rc) {
            conn_fail(c, "read: %s", uv_strerror(rc));
            return;
        }
    }
    char name[48];
    if (c->role == ROLE_CONTROL) snprintf(name, sizeof name, "bot-control");
    else if (c->role == ROLE_VIEWER) snprintf(name, sizeof name, "bot-%d", c->idx);
    else snprintf(name, sizeof name, "bot-%s-%d", role_names[c->role], c->idx);
    const char *token = c->role == ROLE_PLAYER ? b->o.token : NULL;
    wire_msg_begin(&b->wb);
    wire_put_map(&b->wb, token ? 4 : 3);
    wire_put_str(&b->wb, "t"); wire_put_str(&b->wb, "hello");
    wire_put_str(&b->wb, "v"); wire_put_uint(&b->wb, 1);
    wire_put_str(&b->wb, "name"); wire_put_str(&b->wb, name);
    if (token) { wire_put_str(&b->wb, "token"); wire_put_str(&b->wb, token); }
    wire_msg_end(&b->wb);
    if (c->role == ROLE_SLOW)     /* hello and sub at once: it will never read the welcome */
        cli_put_sub(&b->wb, b->world, 1, "raw", NULL);
    if (conn_send_buf(c, &b->wb)) return;
    if (c->role == ROLE_SLOW) {
        conn_ready(c);
        ramp_fill(b);
    }
}

static void conn_start(bot_conn *c)
{
    bot *b = c->b;
    c->started_ns = now_ns();
    c->state = ST_CONNECTING;
    c->inflight = 1;
    b->inflight++;
    int rc;
    if (c->role == ROLE_SLOW) {
        rc = uv_tcp_init_ex(b->loop, &c->tcp, b->addr.ss_family);
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
        conn_fail(c, "socket: %s", uv_strerror(rc));
        return;
    }
    c->open = 1;
    c->tcp.data = c;
    c->creq.data = c;
    rc = uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)&b->addr, on_connect);
    if (rc) conn_fail(c, "connect: %s", uv_strerror(rc));
}

static void ramp_done(bot *b)
{
    uint64_t t = now_ns();
    b->phase = P_RUN;
    b->t_window_start = t;
    b->t_window_end = t + (uint64_t)b->o.seconds * 1000000000u;
    b->t_last_ping = b->t_last_sample = t;
    uv_getrusage(&b->ru_start);
    send_stats(b, 1);
    fprintf(stderr, "viv bot: ramp-up took %.2f s: %" PRIu64 " of %" PRIu64 " viewer(s), %" PRIu64
            " of %" PRIu64 " player(s), %" PRIu64 " of %" PRIu64 " slow connected; measuring for %ld s\n",
            (double)(t - b->t_ramp_start) / 1e9, b->ok[ROLE_VIEWER], b->wanted[ROLE_VIEWER],
            b->ok[ROLE_PLAYER], b->wanted[ROLE_PLAYER], b->ok[ROLE_SLOW], b->wanted[ROLE_SLOW],
            b->o.seconds);
    uint64_t want = b->wanted[ROLE_VIEWER] + b->wanted[ROLE_PLAYER] + b->wanted[ROLE_SLOW];
    uint64_t got = b->ok[ROLE_VIEWER] + b->ok[ROLE_PLAYER] + b->ok[ROLE_SLOW];
    if (want > 0 && got == 0) {
        fatal(b, "none of the %" PRIu64 " connection(s) succeeded", want);
        return;
    }
    if (b->o.rate > 0) {
        if (b->ok[ROLE_PLAYER] == 0) {
            fatal(b, "--inputs-per-sec %ld: no player connected, so no input can be sent (see the "
                  "failures above)", b->o.rate);
            return;
        }
        uv_timer_start(&b->input_timer, on_input_timer, BOT_INPUT_MS, BOT_INPUT_MS);
    }
}

static void ramp_fill(bot *b)
{
    if (b->in_ramp_fill) return;          /* a synchronous failure re-enters through conn_fail */
    b->in_ramp_fill = 1;
    while (b->phase == P_RAMP && b->inflight < BOT_RAMP_INFLIGHT && b->next_start < b->nconns)
        conn_start(&b->conns[b->next_start++]);
    b->in_ramp_fill = 0;
    if (b->phase == P_RAMP && b->next_start == b->nconns && b->inflight == 0) ramp_done(b);
}

/* ---- phases -------------------------------------------------------------------------------------- */
static void end_window(bot *b)
{
    if (b->phase != P_RUN) return;
    b->t_window_end = now_ns();
    uv_getrusage(&b->ru_end);
    uv_timer_stop(&b->input_timer);
    b->phase = P_FINAL;
    b->t_deadline = b->t_window_end + (uint64_t)BOT_STATS_MS * 1000000u;
    bot_conn *ctl = &b->conns[0];
    if (ctl->open && ctl->state == ST_READY) send_stats(b, 2);
    else b->final_stats = 1;
}

static int conns_open(const bot *b, int with_slow)
{
    int n = 0;
    for (int i = 0; i < b->nconns; i++)
        n += b->conns[i].open && b->conns[i].state == ST_READY &&
             (with_slow || b->conns[i].role != ROLE_SLOW);
    return n;
}

static void after_final(bot *b)
{
    if (b->phase != P_FINAL) return;
    int slow_open = 0;
    for (int i = 0; i < b->nconns; i++)
        slow_open += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
    /* If the server counts as many clients as we hold open, it dropped none of the slow ones. */
    if (slow_open == 0 || (b->snap[2].have && b->snap[2].clients == (uint64_t)conns_open(b, 1))) {
        b->slow_alive = (uint64_t)slow_open;
        b->drain_skipped = 1;
        finish(b);
        return;
    }
    b->phase = P_DRAIN;
    b->t_deadline = now_ns() + (uint64_t)BOT_DRAIN_MS * 1000000u;
    for (int i = 0; i < b->nconns; i++) {
        bot_conn *c = &b->conns[i];
        if (c->role == ROLE_SLOW && c->open)
            uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

static void finish(bot *b)
{
    if (b->phase == P_DONE) return;
    if (b->phase == P_DRAIN)
        for (int i = 0; i < b->nconns; i++)
            b->slow_alive += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
    b->phase = P_DONE;
    for (int i = 0; i < b->nconns; i++) conn_close(&b->conns[i]);
    if (b->timers_open) {
        b->timers_open = 0;
        uv_close((uv_handle_t *)&b->house, NULL);
        uv_close((uv_handle_t *)&b->input_timer, NULL);
        uv_close((uv_handle_t *)&b->sigint, NULL);
    }
}

static void on_house(uv_timer_t *t)
{
    bot *b = t->data;
    uint64_t now = now_ns();
    if (b->phase == P_CONTROL || b->phase == P_RAMP) {
        for (int i = 0; i < b->nconns; i++) {
            bot_conn *c = &b->conns[i];
            if (c->inflight && now - c->started_ns > (uint64_t)BOT_WELCOME_MS * 1000000u)
                conn_fail(c, "no welcome within %d s", BOT_WELCOME_MS / 1000);
            if (b->phase != P_CONTROL && b->phase != P_RAMP) return;
        }
    } else if (b->phase == P_RUN) {
        if (now >= b->t_window_end) {
            end_window(b);
            return;
        }
        /* About once a second: is anyone left? Slow clients do not count: they never read, so
         * they cannot notice the server going away. */
        if (++b->house_ticks % 50 == 0 && conns_open(b, 0) == 0) {
            fatal(b, "the server closed every connection %.1f s into the run (did vivd exit?)",
                  (double)(now - b->t_window_start) / 1e9);
            return;
        }
        /* One sample at a time: a server slow to answer is sampled less, not queued up. */
        if (now - b->t_last_sample >= (uint64_t)BOT_SAMPLE_MS * 1000000u &&
            b->stats_head == b->stats_tail) {
            b->t_last_sample = now;
            send_stats(b, 3);
        }
        if (now - b->t_last_ping > (uint64_t)BOT_PING_MS * 1000000u) {
            b->t_last_ping = now;
            for (int i = 0; i < b->nconns; i++)
                if (b->conns[i].role == ROLE_CONTROL || b->conns[i].role == ROLE_PLAYER)
                    send_ping(&b->conns[i]);
        }
    } else if (b->phase == P_FINAL) {
        /* The last stats, and the acks of the last inputs (or a time-out for each). */
        if (!b->final_stats && now >= b->t_deadline) {
            fprintf(stderr, "viv bot: no stats reply within %d s\n", BOT_STATS_MS / 1000);
            b->final_stats = 1;
        }
        if (b->final_stats &&
            (b->pending_n == 0 || now - b->t_window_end >= (uint64_t)BOT_ACKS_MS * 1000000u))
            after_final(b);
    } else if (b->phase == P_DRAIN) {
        int left = 0;
        for (int i = 0; i < b->nconns; i++) left += b->conns[i].role == ROLE_SLOW && b->conns[i].open;
        if (left == 0 || now >= b->t_deadline) finish(b);
    }
}

static void on_sigint(uv_signal_t *s, int signum)
{
    bot *b = s->data;
    (void)signum;
    if (b->interrupted) {
        finish(b);              /* a second ^C: stop now */
        return;
    }
    b->interrupted = 1;
    fprintf(stderr, "viv bot: interrupted; finishing (^C again to stop at once)\n");
    if (b->phase == P_RUN) end_window(b);
    else if (b->phase < P_RUN) fatal(b, "interrupted before the run began");
}

/* ---- the report ----------------------------------------------------------------------------------- */
static void json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
        else fputc(ch, out);
    }
    fputc('"', out);
}

static void json_tally(FILE *out, const bot_tally *t)
{
    fputc('{', out);
    for (int i = 0; i < t->n; i++) {
        if (i) fputc(',', out);
        json_str(out, t->e[i].key);
        fprintf(out, ":%" PRIu64, t->e[i].count);
    }
    if (t->other) fprintf(out, "%s\"(other)\":%" PRIu64, t->n ? "," : "", t->other);
    fputc('}', out);
}

static void text_tally(FILE *out, const bot_tally *t)
{
    for (int i = 0; i < t->n; i++)
        fprintf(out, "%s%s ×%" PRIu64, i ? ", " : "", t->e[i].key, t->e[i].count);
    if (t->other) fprintf(out, "%s(other) ×%" PRIu64, t->n ? ", " : "", t->other);
}

static uint64_t ru_us(const uv_rusage_t *r)
{
    return (uint64_t)r->ru_utime.tv_sec * 1000000u + (uint64_t)r->ru_utime.tv_usec +
           (uint64_t)r->ru_stime.tv_sec * 1000000u + (uint64_t)r->ru_stime.tv_usec;
}

typedef struct bot_summary {
    double secs, fps, per_viewer, expect_per_viewer, bot_cpu_pct;
    int have_srv, have_world;
    uint64_t d_cpu, d_user, d_sys, d_frames, d_bytes, d_skipped, d_ticks, d_overruns;
    double cpu_per_frame, srv_cpu_pct;
    uint64_t viewers_with_gaps, worst_gaps, worst_skipped, pending;
    int worst_idx;
} bot_summary;

static void summarise(const bot *b, bot_summary *s)
{
    memset(s, 0, sizeof *s);
    uint64_t end = b->t_window_end ? b->t_window_end : now_ns();
    s->secs = b->t_window_start ? (double)(end - b->t_window_start) / 1e9 : 0;
    s->fps = s->secs > 0 ? (double)b->frames / s->secs : 0;
    s->per_viewer = b->ok[ROLE_VIEWER] ? s->fps / (double)b->ok[ROLE_VIEWER] : 0;
    s->expect_per_viewer = (double)b->hz / (double)b->o.every;
    if (s->secs >= 0.05 && b->ru_end.ru_utime.tv_sec + b->ru_end.ru_utime.tv_usec > 0)
        s->bot_cpu_pct = (double)(ru_us(&b->ru_end) - ru_us(&b->ru_start)) / (s->secs * 1e4);
    const bot_stats *a = &b->snap[1], *z = &b->snap[2];
    s->have_srv = a->have && z->have;
    if (s->have_srv) {
        s->d_user = z->cpu_user_us - a->cpu_user_us;
        s->d_sys = z->cpu_sys_us - a->cpu_sys_us;
        s->d_cpu = s->d_user + s->d_sys;
        s->d_frames = z->frames_sent - a->frames_sent;
        s->d_bytes = z->bytes_sent - a->bytes_sent;
        s->d_skipped = z->frames_skipped - a->frames_skipped;
        s->cpu_per_frame = s->d_frames ? (double)s->d_cpu / (double)s->d_frames : 0;
        s->srv_cpu_pct = s->secs >= 0.05 ? (double)s->d_cpu / (s->secs * 1e4) : 0;
        s->have_world = a->have_world && z->have_world;
        if (s->have_world) {
            s->d_ticks = z->ticks - a->ticks;
            s->d_overruns = z->overruns - a->overruns;
        }
    }
    s->worst_idx = -1;
    for (int i = 0; i < b->nconns; i++) {
        const bot_conn *c = &b->conns[i];
        if (c->role != ROLE_VIEWER || !c->gaps) continue;
        s->viewers_with_gaps++;
        if (c->gaps > s->worst_gaps) {
            s->worst_gaps = c->gaps;
            s->worst_skipped = c->skipped;
            s->worst_idx = c->idx;
        }
    }
    s->pending = b->unanswered;
    if (b->ring)
        for (uint32_t i = 0; i < BOT_RING; i++) s->pending += b->ring[i].used != 0;
}

static void report_json(const bot *b, const bot_summary *s)
{
    FILE *o = stdout;
    fprintf(o, "{\"completed\":%s,", b->exit_code == 0 ? "true" : "false");
    fprintf(o, "\"error\":");
    if (b->fatal[0]) json_str(o, b->fatal); else fprintf(o, "null");
    fprintf(o, ",\"interrupted\":%s,\"host\":", b->interrupted ? "true" : "false");
    json_str(o, b->o.host);
    fprintf(o, ",\"world\":{\"id\":%u,\"kind\":", b->world);
    json_str(o, b->kind);
    fprintf(o, ",\"w\":%d,\"h\":%d,\"hz\":%d},\"every\":%ld,\"enc\":\"%s\",\"seconds\":%.3f,",
            b->fw, b->fh, b->hz, b->o.every, b->o.enc ? b->o.enc : "tile.zst", s->secs);
    fprintf(o, "\"ramp_seconds\":%.3f,\"connections\":{",
            b->t_window_start ? (double)(b->t_window_start - b->t_ramp_start) / 1e9 : 0.0);
    for (int r = ROLE_VIEWER; r < ROLE_COUNT; r++)
        fprintf(o, "%s\"%s\":{\"wanted\":%" PRIu64 ",\"ok\":%" PRIu64 ",\"failed\":%" PRIu64
                ",\"closed_by_server\":%" PRIu64 "}", r > ROLE_VIEWER ? "," : "", role_plural[r],
                b->wanted[r], b->ok[r], b->failed[r], b->lost[r]);
    fprintf(o, ",\"control_closed_by_server\":%s,\"failures\":", b->lost[ROLE_CONTROL] ? "true" : "false");
    json_tally(o, &b->fail_reasons);
    fprintf(o, ",\"disconnections\":");
    json_tally(o, &b->lost_reasons);
    fprintf(o, "},\"frames\":{\"total\":%" PRIu64 ",\"per_second\":%.1f,\"per_viewer_per_second\":%.2f,"
            "\"expected_per_viewer_per_second\":%.2f,\"bytes\":%" PRIu64 ",\"bytes_per_second\":%.0f,"
            "\"keyframes\":%" PRIu64 ",\"gaps\":%" PRIu64 ",\"frames_skipped\":%" PRIu64
            ",\"viewers_with_gaps\":%" PRIu64 ",\"worst_viewer_gaps\":%" PRIu64
            ",\"largest_jump_ticks\":%" PRIu64 ",\"out_of_order\":%" PRIu64
            ",\"first_not_keyframe\":%" PRIu64 ",\"malformed\":%" PRIu64 ",\"lag_samples\":%" PRIu64
            ",\"lag_p50_ticks\":%" PRIu64 ",\"lag_p99_ticks\":%" PRIu64 ",\"lag_max_ticks\":%" PRIu64 "},",
            b->frames, s->fps, s->per_viewer, s->expect_per_viewer, b->bytes,
            s->secs > 0 ? (double)b->bytes / s->secs : 0.0, b->keys, b->gaps, b->skipped,
            s->viewers_with_gaps, s->worst_gaps, b->max_jump, b->out_of_order, b->first_not_key,
            b->malformed, b->lag_n, lag_pct(b, 50), lag_pct(b, 99), b->lag_max);
    fprintf(o, "\"verify\":{\"viewers\":%ld,\"frames\":%" PRIu64 ",\"mismatches\":%" PRIu64
            ",\"errors\":%" PRIu64 "},", b->o.verify, b->verified, b->mismatches, b->verify_errors);
    fprintf(o, "\"inputs\":{\"rate\":%ld,\"sent\":%" PRIu64 ",\"late_dropped\":%" PRIu64
            ",\"no_player\":%" PRIu64 ",\"acks\":%" PRIu64 ",\"unanswered\":%" PRIu64 ",\"refused\":%" PRIu64
            ",\"errors\":", b->o.rate, b->in_sent, b->in_late, b->in_noplayer, b->acks, s->pending,
            tally_total(&b->input_errs));
    json_tally(o, &b->input_errs);
    fprintf(o, ",\"ack_latency_us\":{\"min\":%" PRIu64 ",\"p50\":%" PRIu64 ",\"p99\":%" PRIu64
            ",\"max\":%" PRIu64 ",\"mean\":%.0f}},", b->lat_min, lat_pct(b, 50), lat_pct(b, 99),
            b->lat_max, b->acks ? (double)b->lat_sum / (double)b->acks : 0.0);
    fprintf(o, "\"slow\":{\"connections\":%" PRIu64 ",\"dropped_by_server\":%" PRIu64
            ",\"still_connected\":%" PRIu64 "},", b->ok[ROLE_SLOW], b->slow_dropped, b->slow_alive);
    fprintf(o, "\"server_errors\":");
    json_tally(o, &b->errs);
    fprintf(o, ",\"bot_cpu_percent\":%.1f,\"stats_rtt_us\":{\"n\":%" PRIu64 ",\"mean\":%.0f,"
            "\"max\":%" PRIu64 "},\"server\":", s->bot_cpu_pct, b->rtt_n,
            b->rtt_n ? (double)b->rtt_sum / (double)b->rtt_n / 1e3 : 0.0, b->rtt_max / 1000);
    if (!s->have_srv) {
        fprintf(o, "null}\n");
        return;
    }
    const bot_stats *a = &b->snap[1], *z = &b->snap[2];
    fprintf(o, "{\"clients_before\":%" PRIu64 ",\"clients_start\":%" PRIu64 ",\"clients_end\":%" PRIu64
            ",\"cpu_us\":%" PRIu64 ",\"cpu_user_us\":%" PRIu64 ",\"cpu_sys_us\":%" PRIu64
            ",\"cpu_percent\":%.1f,\"frames_sent\":%" PRIu64
            ",\"bytes_sent\":%" PRIu64 ",\"frames_skipped\":%" PRIu64
            ",\"cpu_us_per_viewer_frame\":%.3f,\"world\":",
            b->snap[0].have ? b->snap[0].clients : 0, a->clients, z->clients, s->d_cpu, s->d_user,
            s->d_sys, s->srv_cpu_pct, s->d_frames, s->d_bytes, s->d_skipped, s->cpu_per_frame);
    if (!s->have_world) fprintf(o, "null");
    else
        fprintf(o, "{\"ticks\":%" PRIu64 ",\"overruns\":%" PRIu64 ",\"subs\":%" PRIu64
                ",\"late_p50_us\":%" PRIu64 ",\"late_p99_us\":%" PRIu64 ",\"late_max_us\":%" PRIu64
                ",\"lateness_is_cumulative\":true}",
                s->d_ticks, s->d_overruns, z->subs, z->late_p50_us, z->late_p99_us, z->late_max_us);
    fprintf(o, "}}\n");
}

static void report_text(const bot *b, const bot_summary *s)
{
    FILE *o = stdout;
    fprintf(o, "viv bot: world %u (%s, %dx%d at %d Hz) on %s, every %ld, %s encoding; measured %.2f s%s\n",
            b->world, b->kind, b->fw, b->fh, b->hz, b->o.host, b->o.every, b->o.enc ? b->o.enc : "tile.zst", s->secs,
            b->interrupted ? " (interrupted)" : "");
    fprintf(o, "connections   ");
    for (int r = ROLE_VIEWER; r < ROLE_COUNT; r++)
        fprintf(o, "%s%s %" PRIu64 "/%" PRIu64 " ok, %" PRIu64 " failed", r > ROLE_VIEWER ? "; " : "",
                role_plural[r], b->ok[r], b->wanted[r], b->failed[r]);
    fprintf(o, "; ramp-up %.2f s\n",
            b->t_window_start ? (double)(b->t_window_start - b->t_ramp_start) / 1e9 : 0.0);
    if (b->fail_reasons.n) {
        fprintf(o, "  failures    ");
        text_tally(o, &b->fail_reasons);
        fputc('\n', o);
    }
    fprintf(o, "disconnects   %" PRIu64 " viewer(s), %" PRIu64 " player(s)%s closed by the server "
            "during the run",
            b->lost[ROLE_VIEWER], b->lost[ROLE_PLAYER], b->lost[ROLE_CONTROL] ? " and the control connection" : "");
    if (b->lost_reasons.n) {
        fprintf(o, ": ");
        text_tally(o, &b->lost_reasons);
    }
    fputc('\n', o);
    fprintf(o, "frames        %" PRIu64 " received, %.0f/s (%.2f/s per viewer, expected %.2f), "
            "%.1f MB (%.1f MB/s)\n", b->frames, s->fps, s->per_viewer, s->expect_per_viewer,
            (double)b->bytes / 1e6, s->secs > 0 ? (double)b->bytes / 1e6 / s->secs : 0.0);
    fprintf(o, "              %" PRIu64 " keyframes; %" PRIu64 " gaps (%" PRIu64 " frames skipped) in %"
            PRIu64 " viewer(s)", b->keys, b->gaps, b->skipped, s->viewers_with_gaps);
    if (s->worst_idx >= 0)
        fprintf(o, "; worst: viewer %d, %" PRIu64 " gaps, %" PRIu64 " skipped; largest jump %" PRIu64
                " ticks", s->worst_idx, s->worst_gaps, s->worst_skipped, b->max_jump);
    fputc('\n', o);
    if (b->lag_n)
        fprintf(o, "              lag behind the world (its tick in the stats reply − a viewer's last frame tick, "
                "%" PRIu64 " samples): p50 %" PRIu64 ", p99 %" PRIu64 ", max %" PRIu64 " ticks (max %.2f s)\n",
                b->lag_n, lag_pct(b, 50), lag_pct(b, 99), b->lag_max, (double)b->lag_max / b->hz);
    if (b->out_of_order || b->first_not_key || b->malformed || b->other_world || b->world_closed)
        fprintf(o, "  anomalies   %" PRIu64 " out-of-order ticks, %" PRIu64 " first frames not keyframes, %"
                PRIu64 " malformed messages, %" PRIu64 " frames of other worlds, %" PRIu64
                " world-closed notices\n", b->out_of_order, b->first_not_key, b->malformed,
                b->other_world, b->world_closed);
    if (b->o.verify)
        fprintf(o, "verify        %ld viewer(s) rebuilt %" PRIu64 " frames: %" PRIu64 " hash mismatches, %"
                PRIu64 " decode errors%s%s\n", b->o.verify, b->verified, b->mismatches,
                b->verify_errors, b->first_verify_err[0] ? "; first: " : "", b->first_verify_err);
    if (b->o.players) {
        fprintf(o, "inputs        %" PRIu64 " sent (%ld/s wanted), %" PRIu64 " acked, %" PRIu64
                " unanswered, %" PRIu64 " refused", b->in_sent, b->o.rate, b->acks, s->pending,
                tally_total(&b->input_errs));
        if (b->input_errs.n) {
            fprintf(o, " (");
            text_tally(o, &b->input_errs);
            fprintf(o, ")");
        }
        if (b->in_late || b->in_noplayer)
            fprintf(o, "; not sent: %" PRIu64 " late, %" PRIu64 " with no player", b->in_late, b->in_noplayer);
        fputc('\n', o);
        if (b->acks)
            fprintf(o, "              ack latency min %.2f, p50 %.2f, p99 %.2f, max %.2f, mean %.2f ms\n",
                    (double)b->lat_min / 1e3, (double)lat_pct(b, 50) / 1e3, (double)lat_pct(b, 99) / 1e3,
                    (double)b->lat_max / 1e3, (double)b->lat_sum / (double)b->acks / 1e3);
    }
    if (b->o.slow)
        fprintf(o, "slow          %" PRIu64 " connection(s) never read: %" PRIu64 " dropped by the server, %"
                PRIu64 " still connected%s\n", b->ok[ROLE_SLOW], b->slow_dropped, b->slow_alive,
                b->drain_skipped ? " (the server's client count says so)" : "");
    if (b->errs.n || b->errs.other) {
        fprintf(o, "errors        ");
        text_tally(o, &b->errs);
        fputc('\n', o);
    }
    fprintf(o, "bot           %.1f%% of a core", s->bot_cpu_pct);
    if (b->rtt_n)
        fprintf(o, "; stats round trip (server responsiveness) mean %.1f ms, max %.1f ms over %" PRIu64,
                (double)b->rtt_sum / (double)b->rtt_n / 1e6, (double)b->rtt_max / 1e6, b->rtt_n);
    fputc('\n', o);
    if (!s->have_srv) {
        fprintf(o, "server        no stats (the control connection did not get both replies)\n");
        return;
    }
    const bot_stats *z = &b->snap[2];
    if (!s->d_frames) {
        fprintf(o, "server        no frames sent in the window (%.3f s CPU); %" PRIu64 " clients at the end\n",
                (double)s->d_cpu / 1e6, z->clients);
        return;
    }
    double df = (double)s->d_frames;
    fprintf(o, "server        %.3f µs CPU per viewer-frame (user %.3f + sys %.3f; %.3f s CPU for %" PRIu64
            " frames sent = %.1f%% of a core)\n"
            "              %" PRIu64 " frames skipped; %.1f MB sent (%.0f bytes a frame); %" PRIu64
            " clients at the end\n",
            s->cpu_per_frame, (double)s->d_user / df, (double)s->d_sys / df, (double)s->d_cpu / 1e6,
            s->d_frames, s->srv_cpu_pct, s->d_skipped, (double)s->d_bytes / 1e6,
            (double)s->d_bytes / df, z->clients);
    if (s->have_world)
        fprintf(o, "              world %u: %" PRIu64 " ticks (%.0f due at %d Hz), %" PRIu64 " overruns in the "
                "window; lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms (cumulative since the server started)\n",
                b->world, s->d_ticks, s->secs * b->hz, b->hz, s->d_overruns, (double)z->late_p50_us / 1e3,
                (double)z->late_p99_us / 1e3, (double)z->late_max_us / 1e3);
}

/* ---- options --------------------------------------------------------------------------------- */
static void bot_usage(FILE *out)
{
    fprintf(out,
        "usage: viv bot [--host H:P] [--clients N] [--world ID|KIND] [--seconds S]\n"
        "               [--inputs-per-sec R] [--players P] [--token T] [--slow K]\n"
        "               [--every E] [--enc ENC] [--verify M] [--json]\n"
        "\n"
        "Load generator for vivd: many viewers of one world, optional players sending random\n"
        "valid inputs, optional slow clients that never read. Connects at most %d at a time\n"
        "(a viewer counts as connected at its first frame, a player at its welcome), then\n"
        "measures for S seconds and prints a report. Raises the open-file limit as needed.\n"
        "\n"
        "  --host H:P           server address (default 127.0.0.1:7400)\n"
        "  --clients N          viewer connections (default 10); each sends hello (name bot-<i>)\n"
        "                       and sub, and counts frames, keyframes and tick gaps (a gap: the\n"
        "                       tick jumped by more than E; the frames in between were skipped)\n"
        "  --world ID|KIND      the world to watch: an id, or the first world of a kind\n"
        "                       (default: the server's first world)\n"
        "  --seconds S          length of the measured window, after the ramp-up (default 10)\n"
        "  --inputs-per-sec R   total inputs per second from the players (default 0): a random\n"
        "                       input kind of the world, each argument uniform in its range,\n"
        "                       but x/y arguments inside the frame and a radius r of at most 8\n"
        "  --players P          player connections (default 1 when R > 0); a player may send 32\n"
        "                       inputs per tick, so R above 32·hz needs more players\n"
        "  --token T            the player token (default $VIVD_PLAYER_TOKEN); needed for players\n"
        "  --slow K             connections that subscribe to raw frames and never read (default\n"
        "                       0), to show that the server bounds them; at the end they are read\n"
        "                       for a moment to see whether the server dropped them (vivd drops a\n"
        "                       client after 30 s over its output limit)\n"
        "  --every E            subscribe to every E-th tick, 1..3600 (default 1)\n"
        "  --enc ENC            frame encoding the viewers ask for: tile.zst (the server's default,\n"
        "                       used when --enc is not given), tile or raw; a refusal is\n"
        "                       reported per viewer\n"
        "  --verify M           M of the N viewers rebuild every frame and check its hash\n"
        "                       (default 0; the others decode only the header)\n"
        "  --json               print the report as one JSON object on stdout\n"
        "\n"
        "The report: connections ok/failed (with reasons), disconnections, frames received\n"
        "(total, per second, per viewer), bytes, keyframes, gaps, viewer lag (each second,\n"
        "the world's tick from a stats request minus each viewer's latest frame tick), hash\n"
        "mismatches of the verifying viewers, inputs sent/acked/refused (by error code) with\n"
        "ack latency (send to ack: min/p50/p99/max), slow clients dropped or not, the stats\n"
        "round trip (how quickly the server answers under load), the bot's own CPU, and from\n"
        "the server's stats over the window: CPU time per viewer-frame = Δ(user+sys CPU) /\n"
        "Δframes_sent (split into user and sys; server-wide, so host one world to measure\n"
        "one), ticks run, overruns, and tick lateness p50/p99/max (cumulative since the\n"
        "server started, as vivd reports them).\n"
        "Progress goes to stderr. ^C ends the window early and reports; a second ^C stops.\n"
        "\n"
        "Exit status: 0 a completed run; 1 the run could not be done (cannot connect, no\n"
        "world, every connection failed, the server went away, no final stats, interrupted);\n"
        "2 bad flags.\n", BOT_RAMP_INFLIGHT);
}

static int parse_opts(int argc, char **argv, bot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1:7400";
    o->enc = NULL;             /* the server's default (tile.zst) */
    o->clients = 10;
    o->seconds = 10;
    o->every = 1;
    o->players = -1;
    o->token = getenv("VIVD_PLAYER_TOKEN");
    static const char *const with_value[] = { "--host", "--clients", "--world", "--seconds",
        "--inputs-per-sec", "--players", "--token", "--slow", "--every", "--enc", "--verify" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bot_usage(stdout);
            return 1;
        }
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            known |= strcmp(a, with_value[k]) == 0;
        if (!known) {
            fprintf(stderr, "viv bot: unknown option '%s' (see viv bot --help)\n", a);
            return -1;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "viv bot: %s needs a value (see viv bot --help)\n", a);
            return -1;
        }
        const char *v = argv[++i];
        int rc = 0;
        if (strcmp(a, "--host") == 0) o->host = v;
        else if (strcmp(a, "--world") == 0) o->world = v;
        else if (strcmp(a, "--token") == 0) o->token = v;
        else if (strcmp(a, "--clients") == 0) rc = cli_parse_int(a, v, 0, 100000, &o->clients);
        else if (strcmp(a, "--seconds") == 0) rc = cli_parse_int(a, v, 1, 86400, &o->seconds);
        else if (strcmp(a, "--inputs-per-sec") == 0) rc = cli_parse_int(a, v, 0, 100000, &o->rate);
        else if (strcmp(a, "--players") == 0) rc = cli_parse_int(a, v, 0, 1000, &o->players);
        else if (strcmp(a, "--slow") == 0) rc = cli_parse_int(a, v, 0, 100000, &o->slow);
        else if (strcmp(a, "--every") == 0) rc = cli_parse_int(a, v, 1, 3600, &o->every);
        else if (strcmp(a, "--verify") == 0) rc = cli_parse_int(a, v, 0, 100000, &o->verify);
        else if (strcmp(a, "--enc") == 0) {
            /* Passed through: the server says which encodings it knows. */
            if (!*v || strlen(v) > 32) {
                fprintf(stderr, "viv bot: --enc wants an encoding name such as tile or raw, got '%s'\n", v);
                return -1;
            }
            o->enc = v;
        }
        if (rc) return -1;
    }
    if (o->players < 0) o->players = o->rate > 0 ? 1 : 0;
    if (o->verify > o->clients) {
        fprintf(stderr, "viv bot: --verify %ld is more than the %ld viewer(s) of --clients\n",
                o->verify, o->clients);
        return -1;
    }
    if (o->rate > 0 && o->players == 0) {
        fprintf(stderr, "viv bot: --inputs-per-sec needs at least one player (--players P)\n");
        return -1;
    }
    if (o->players > 0 && (!o->token || !*o->token)) {
        fprintf(stderr, "viv bot: players need the player token: give --token T or set "
                        "VIVD_PLAYER_TOKEN (vivd prints a generated one at start-up)\n");
        return -1;
    }
    if (o->world && !*o->world) {
        fprintf(stderr, "viv bot: --world needs an id or a kind\n");
        return -1;
    }
    return 0;
}

static int resolve(const char *hostport, struct sockaddr_storage *out)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof host || !colon[1]) {
        fprintf(stderr, "viv bot: --host wants HOST:PORT (e.g. 127.0.0.1:7400), got '%s'\n", hostport);
        return 2;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    size_t hl = strlen(host);
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {      /* [::1]:7400 */
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc || !res) {
        fprintf(stderr, "viv bot: cannot resolve %s: %s\n", hostport, rc ? gai_strerror(rc) : "no address");
        return 1;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

/* Enough descriptors for every connection plus the loop's own. 0, or 1 after a message. */
static int raise_nofile(long need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= (rlim_t)need) return 0;
    if (rl.rlim_cur == RLIM_INFINITY) return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need) {
        fprintf(stderr, "viv bot: %ld connections need %ld file descriptors, but the hard limit is "
                "%llu; raise it (ulimit -Hn as root, or /etc/security/limits.conf) or use fewer "
                "--clients/--slow/--players\n", need - 10, need, (unsigned long long)rl.rlim_max);
        return 1;
    }
    struct rlimit want = { rl.rlim_max, rl.rlim_max };
    if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
        want.rlim_cur = (rlim_t)need;           /* RLIM_INFINITY may exceed nr_open */
        if (setrlimit(RLIMIT_NOFILE, &want) != 0) {
            fprintf(stderr, "viv bot: cannot raise the open-file limit from %llu to %ld: %s\n",
                    (unsigned long long)rl.rlim_cur, need, strerror(errno));
            return 1;
        }
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------------------------ */
int cli_bot_main(int argc, char **argv)
{
    bot_opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc) return rc > 0 ? 0 : 2;
    long need = o.clients + o.slow + o.players + 10;
    bot *b = calloc(1, sizeof *b);
    if (!b) {
        fprintf(stderr, "viv bot: out of memory\n");
        return 1;
    }
    int code = 1;
    b->o = o;
    if ((rc = resolve(o.host, &b->addr)) != 0) {
        code = rc;
        goto done;
    }
    if (raise_nofile(need)) goto done;
    signal(SIGPIPE, SIG_IGN);
    b->nconns = (int)(1 + o.clients + o.players + o.slow);
    b->conns = calloc((size_t)b->nconns, sizeof *b->conns);
    b->rbuf = malloc(BOT_READ_BUF);
    if (o.players) {
        b->ring = calloc(BOT_RING, sizeof *b->ring);
        b->lat_hist = calloc(BOT_LAT_BUCKETS, sizeof *b->lat_hist);
    }
    if (!b->conns || !b->rbuf || (o.players && (!b->ring || !b->lat_hist))) {
        fprintf(stderr, "viv bot: out of memory for %d connections\n", b->nconns);
        goto done;
    }
    for (int i = 0; i < b->nconns; i++) {
        bot_conn *c = &b->conns[i];
        c->b = b;
        c->role = i == 0 ? ROLE_CONTROL : i <= o.clients ? ROLE_VIEWER
                : i <= o.clients + o.players ? ROLE_PLAYER : ROLE_SLOW;
        c->idx = c->role == ROLE_VIEWER ? i - 1 : c->role == ROLE_PLAYER ? i - 1 - (int)o.clients
               : c->role == ROLE_SLOW ? i - 1 - (int)(o.clients + o.players) : 0;
        b->wanted[c->role]++;
        if (c->role == ROLE_VIEWER && c->idx < o.verify) {
            c->cf = calloc(1, sizeof *c->cf);
            if (!c->cf) {
                fprintf(stderr, "viv bot: out of memory\n");
                goto done;
            }
        }
    }
    sim_rng_seed(&b->rng, now_ns(), 0x626f74);
    b->next_seq = 1;
    wire_buf_init(&b->wb);
    b->loop = malloc(sizeof *b->loop);
    if (!b->loop || uv_loop_init(b->loop) != 0) {
        fprintf(stderr, "viv bot: cannot start the event loop\n");
        free(b->loop);
        b->loop = NULL;
        goto done;
    }
    uv_timer_init(b->loop, &b->house);
    uv_timer_init(b->loop, &b->input_timer);
    uv_signal_init(b->loop, &b->sigint);
    b->house.data = b->input_timer.data = b->sigint.data = b;
    b->timers_open = 1;
    uv_timer_start(&b->house, on_house, BOT_HOUSE_MS, BOT_HOUSE_MS);
    uv_signal_start(&b->sigint, on_sigint, SIGINT);
    b->t_begin = now_ns();
    b->phase = P_CONTROL;
    b->next_start = 1;
    conn_start(&b->conns[0]);
    uv_run(b->loop, UV_RUN_DEFAULT);
    finish(b);                                    /* nothing left open: a no-op, or closes */
    uv_run(b->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(b->loop) != 0) fprintf(stderr, "viv bot: warning: the loop closed with handles open\n");

    if (b->world) {
        if (!b->exit_code && (!b->snap[1].have || !b->snap[2].have)) {
            fatal(b, "the server's stats were not received, so the server numbers are missing");
        }
        if (!b->exit_code && b->interrupted) {
            b->exit_code = 1;
            snprintf(b->fatal, sizeof b->fatal, "interrupted");
        }
        bot_summary s;
        summarise(b, &s);
        if (o.json) report_json(b, &s);
        else report_text(b, &s);
        fflush(stdout);
    }
    if (b->fatal[0]) fprintf(stderr, "viv bot: %s\n", b->fatal);
    code = b->exit_code;
done:
    if (b->conns)
        for (int i = 0; i < b->nconns; i++) {
            free(b->conns[i].pend);
            if (b->conns[i].cf) {
                cli_frame_free(b->conns[i].cf);
                free(b->conns[i].cf);
            }
        }
    free(b->conns);
    free(b->rbuf);
    free(b->ring);
    free(b->lat_hist);
    wire_buf_free(&b->wb);
    free(b->loop);
    free(b);
    return code;
}
