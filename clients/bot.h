/* bot.h — the parts of `viv bot` (private to clients/bot*.c). See bot.c for what the bot does.
 *
 *   bot.c         options, the phases (control → ramp → run → final → drain → done), main
 *   bot_conn.c    the libuv transport: connect, write, read and split into messages, outcomes;
 *                 over TCP (4-byte length + msgpack) or WebSocket (--ws: one binary message each)
 *   bot_roles.c   what each role does with its messages: control (world, stats), viewer
 *                 (frames), player (inputs, acks), slow (never reads)
 *   bot_report.c  tallies, the latency and lag histograms, the text and JSON reports
 *
 * The protocol itself (framing, builders, readers) is net.h's, shared with the blocking client;
 * the WebSocket rules (handshake, masking, frames) are websocket.h's, shared with tests/wsc.c. */
#ifndef VIVARIUM_BOT_H
#define VIVARIUM_BOT_H
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <uv.h>
#include "msg.h"
#include "net.h"
#include "websocket.h"
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
#define BOT_WS_ANSWER_MAX 16384 /* the longest answer header to a WebSocket upgrade read */

enum { ROLE_CONTROL, ROLE_VIEWER, ROLE_PLAYER, ROLE_SLOW, ROLE_COUNT };
extern const char *const bot_role_names[ROLE_COUNT];     /* "viewer" */
extern const char *const bot_role_plural[ROLE_COUNT];    /* "viewers" */

/* A viewer is ready at its first frame, a player at its welcome, a slow client once its hello
 * and sub are written. Over WebSocket a connection waits in ST_UPGRADE for the answer to its
 * upgrade request before it says hello. */
enum { ST_IDLE, ST_CONNECTING, ST_UPGRADE, ST_HELLO, ST_SUB, ST_READY, ST_FAILED, ST_LOST, ST_DROPPED };
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
    /* --host with a list: the address it uses (connections are spread over the list), and a
     * viewer's or player's move to the next one when its server goes away */
    int at;
    int moving;             /* reconnecting after its server went: not counted as a new one */
    int move_tries;         /* addresses tried in this move */
    int rejoined;           /* a viewer that moved: its next frame starts a new stream */
    int was_ready;          /* it has been connected (a move of it is not a new connection) */
    /* WebSocket only */
    char ws_key[CLI_WS_KEY_LEN + 1];   /* this upgrade's Sec-WebSocket-Key */
    cli_ws_reader wr;       /* the server's frames into messages */
    int ws_close;           /* the status of the server's close frame, 0 before one */
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
    int have_hist;                        /* the reply had late_hist (vivd since issue 17) */
    uint32_t late_hist[WIRE_LATE_BUCKETS];
    int have_work_hist;                   /* and work_hist (vivd since issue 30) */
    uint32_t work_hist[WIRE_LATE_BUCKETS];
} bot_stats;

typedef struct bot_pending {
    uint64_t sent_ns;
    uint32_t seq;
    int used;
} bot_pending;

typedef struct bot_opts {
    const char *host, *world, *token, *enc;
    int host_given;         /* --host was given (else --ws means vivd's HTTP port) */
    long clients, seconds, rate, players, slow, every, verify;
    int rect_w, rect_h;     /* --rect W×H: each viewer watches such a rect at its own place (0: whole) */
    int json;
    int ws;                 /* --ws or a ws:// --host: WebSocket; then host is "ws://HOST:PORT/PATH" */
    char ws_hostport[272], ws_path[256];
} bot_opts;

struct bot {
    uv_loop_t *loop;
    bot_opts o;
    char url[600];          /* over WebSocket, the address shown: ws://HOST:PORT/PATH (o.host) */
    struct sockaddr_storage addrs[CLI_MAX_ADDRS];   /* --host's addresses, resolved once */
    int naddrs;
    uint64_t addr_lost_said;   /* a bit per address: its loss was said on stderr */
    int control_moved;         /* the control connection moved in the run: its two stats replies
                                * are two servers', and the server figures are left out */
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
    char kind[CLI_NAME_MAX];
    int fw, fh, hz;
    cli_input_desc inputs[BOT_MAX_INPUTS];   /* the ones the bot can build, ranges narrowed */
    int ninputs;
    /* the ramp */
    int next_start, inflight, in_ramp_fill;
    uint64_t t_begin, t_ramp_start, t_window_start, t_window_end, t_deadline, t_last_ping;
    uv_rusage_t ru_start, ru_end;
    /* per role */
    uint64_t wanted[ROLE_COUNT], ok[ROLE_COUNT], failed[ROLE_COUNT], lost[ROLE_COUNT];
    uint64_t moved[ROLE_COUNT];   /* moved to another address of --host's list and going on */
    bot_tally fail_reasons, lost_reasons;
    /* frames (counted inside the window); but first_keys counts the keyframe each viewer starts
     * with, which comes in the ramp-up (a viewer is connected at its first frame), and keys the
     * later ones inside the window: the report's keyframes are their sum */
    uint64_t frames, keys, first_keys, bytes, gaps, skipped, max_jump, out_of_order, first_not_key;
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
    wire_buf wsout;         /* wb's messages as masked WebSocket frames */
    sim_rng mask_rng;       /* WebSocket nonces and masks */
    /* viewer lag: world tick (from stats) − the viewer's latest frame tick, sampled */
    uint64_t lag_hist[BOT_LAG_BUCKETS], lag_n, lag_max, t_last_sample;
    /* server stats: at start, at the window's start, at its end; slot 3: a lag sample */
    bot_stats snap[4];
    int stats_fifo[8], stats_head, stats_tail;
    uint64_t stats_sent_ns[8];
    uint64_t rtt_n, rtt_sum, rtt_max;   /* stats round trips in the window: server responsiveness */
};

typedef struct bot_summary {
    double secs, fps, per_viewer, expect_per_viewer, bot_cpu_pct;
    int have_srv, have_world;
    uint64_t d_cpu, d_user, d_sys, d_frames, d_bytes, d_skipped, d_ticks, d_overruns;
    int have_window_late;                 /* lateness of the window alone, from late_hist */
    uint64_t w_late_p50_us, w_late_p99_us, w_late_max_us;
    int have_window_work;                 /* the ticks' work in the window, from work_hist */
    uint64_t w_work_p50_us, w_work_p99_us, w_work_max_us;
    double cpu_per_frame, srv_cpu_pct;
    uint64_t viewers_with_gaps, worst_gaps, worst_skipped, pending;
    int worst_idx;
} bot_summary;

static inline uint64_t now_ns(void) { return uv_hrtime(); }

/* bot.c: the phases */
void bot_fatal(bot *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bot_finish(bot *b);
void bot_ramp_fill(bot *b);
void bot_end_window(bot *b);

/* bot_conn.c: the transport */
void bot_conn_start(bot_conn *c);
void bot_conn_close(bot_conn *c);
void bot_conn_read_start(bot_conn *c);
/* Send the message built in wb and empty it. 0, or -1 if the connection is gone. */
int bot_conn_send_buf(bot_conn *c, wire_buf *wb);
void bot_conn_fail(bot_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bot_conn_ready(bot_conn *c);
void bot_conn_lost(bot_conn *c, int status);
void bot_conn_name(const bot_conn *c, char *out, size_t cap);

/* bot_roles.c: the roles */
/* One message body from the server. Returns -1 if the connection is gone. */
int bot_conn_message(bot_conn *c, const uint8_t *body, size_t len);
void bot_send_stats(bot *b, int slot);
void bot_send_ping(bot_conn *c);
void bot_on_input_timer(uv_timer_t *t);

/* bot_report.c: tallies, histograms, reports */
int bot_tally_add(bot_tally *t, const char *key, size_t len);   /* 1: a new key */
uint64_t bot_tally_total(const bot_tally *t);
void bot_lat_add(bot *b, uint64_t ns);
uint64_t bot_lat_pct(const bot *b, double pct);
uint64_t bot_lag_pct(const bot *b, double pct);
void bot_summarise(const bot *b, bot_summary *s);
void bot_report_json(const bot *b, const bot_summary *s);
void bot_report_text(const bot *b, const bot_summary *s);

#endif
