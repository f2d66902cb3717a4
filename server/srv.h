/* srv.h — vivd's internals, shared by the files of server/ (not by clients). */
#ifndef VIVARIUM_SRV_H
#define VIVARIUM_SRV_H

#include <stdint.h>
#include <stdio.h>
#include <uv.h>
#include "sim.h"
#include "wire.h"

#define SRV_VERSION SIM_VERSION

/* ---- limits (docs/PROTOCOL.md lists them) --------------------------------------------------- */
#define SRV_SOFT_LIMIT (256u * 1024u)      /* queued bytes: above it, skip frames to a keyframe */
#define SRV_HARD_LIMIT (4u * 1024u * 1024u) /* queued bytes: above it, disconnect */
#define SRV_STALL_MS 30000u                 /* over the soft limit this long: disconnect */
#define SRV_HELLO_MS 10000u                 /* time to send hello */
#define SRV_PARTIAL_MS 10000u               /* time to finish a message once started */
#define SRV_IDLE_MS 300000u                 /* no message and no subscription: disconnect */
#define SRV_MAX_ERRORS 16                   /* error replies before a disconnect */
#define SRV_DRAIN_MS 2000u                  /* after the last word, wait this long for EOF */
#define SRV_INPUTS_PER_TICK 32              /* per client, per tick of the scheduler */
#define SRV_MAX_CATCHUP 4                   /* ticks a world may run back to back when late */
#define SRV_KEYFRAME_SECONDS 10             /* periodic keyframe on every stream */
#define SRV_MAX_WORLDS 64
#define SRV_MAX_STREAMS 16                  /* per world: (view, every, enc) combinations */

/* ---- logging ------------------------------------------------------------------------------------ */
enum { SRV_LOG_DEBUG, SRV_LOG_INFO, SRV_LOG_WARN, SRV_LOG_ERROR };
typedef struct srv srv;
/* One line per event on stderr: `2026-11-30T12:00:00.123Z info  text`. s may be NULL (start-up:
 * info and above). */
void srv_log(const srv *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- shared, refcounted message buffers: encode once, write to many ------------------------------ */
typedef struct srv_msg {
    int refs;
    size_t len;            /* the framed message: 4-byte length + body */
    uint8_t *data;
} srv_msg;
srv_msg *srv_msg_from_buf(wire_buf *b);   /* takes b's allocation; b is left empty */
void srv_msg_ref(srv_msg *m);
void srv_msg_unref(srv_msg *m);

typedef struct srv_client srv_client;
typedef struct srv_world srv_world;

/* ---- streams and subscriptions ----------------------------------------------------------------- */
enum { SRV_ENC_TILE, SRV_ENC_RAW, SRV_ENC_TILEZ };   /* "tile", "raw", "tile.zst" */

typedef struct srv_sub srv_sub;

typedef struct srv_stream {
    int used;
    srv_sub *head;         /* its subscribers */
    int view;
    uint32_t every;
    int enc;
    int nsubs;
    uint8_t *prev;         /* the last frame sent on this stream (tile deltas are against it) */
    int have_prev;
    uint32_t prev_pv;      /* palette version of that frame */
    uint64_t last_key;     /* tick of the last keyframe sent */
} srv_stream;

struct srv_sub {
    srv_world *world;      /* NULL: slot free */
    srv_client *client;
    int stream;            /* index into world->streams */
    int need_key;
    uint64_t frames, skipped;
    srv_sub *snext, *sprev;     /* the stream's subscriber list */
};

#define SRV_MAX_SUBS 8     /* worlds one client may watch at once */

/* ---- clients ------------------------------------------------------------------------------------ */
enum { SRV_ROLE_NONE, SRV_ROLE_VIEWER, SRV_ROLE_PLAYER, SRV_ROLE_ADMIN };

struct srv_client {
    uv_tcp_t tcp;
    srv *s;
    uint32_t id;           /* the `client` of its inputs: connection order, from 1 */
    int role;              /* NONE until hello */
    char name[64];
    char peer[64];
    uint8_t *in;           /* receive buffer */
    size_t inlen, incap;
    uint64_t partial_since;     /* ms (uv_now) when the unfinished message began, or 0 */
    uint64_t connected_at, last_msg;
    uint64_t over_soft_since;   /* ms when the queue went over the soft limit, or 0 */
    int errors;
    int inputs_this_tick;      /* inputs queued for (input_world, input_tick) */
    uint32_t input_world;
    uint64_t input_tick;
    int closing;
    int draining;              /* said its last word: reading and discarding until EOF */
    uint64_t drain_since;
    uv_shutdown_t shutdown_req;
    char drain_why[96];
    srv_sub subs[SRV_MAX_SUBS];
    srv_client *next, *prev;    /* all clients */
    uint64_t bytes_out, frames_out;
};

/* ---- hosted worlds ------------------------------------------------------------------------------- */
#define SRV_LAT_BUCKETS 1001   /* lateness histogram: 0.1 ms buckets up to 100 ms, then overflow */

/* An input queued or applied, waiting for its acknowledgement. Acks are sent once the tick is
 * committed to the replay log (immediately after the tick when not recording). */
typedef struct srv_ack {
    srv_client *client;    /* NULLed if the client closes first (the input still counts) */
    uint32_t seq;
    int stepped;           /* its tick has been stepped */
    sim_input in;          /* exactly what the world consumed (for the log) */
} srv_ack;

struct srv_world {
    uint32_t id;
    sim_world *w;
    const sim_kind *kind;
    int fw, fh;
    uint64_t period_ns;
    uint64_t t0;           /* uv_hrtime of the deadline of tick_base */
    uint64_t tick_base;    /* world tick at t0 */
    srv_stream streams[SRV_MAX_STREAMS];
    sim_frame *frames;     /* one per view, rendered lazily each tick */
    uint64_t *frame_tick;  /* tick each view's frame was rendered at (UINT64_MAX: never) */
    uint64_t *frame_fh;
    uint64_t sh, sh_tick;
    srv_ack *acks;         /* FIFO: acks[ackhead..nacks) wait; stepped ones first, by tick */
    size_t ackhead, nacks, capacks;
    int64_t session;       /* replay session, or -1 when not recording */
    uint64_t cp_every;     /* ticks between checkpoints */
    uint8_t *cpbuf;
    size_t cpcap;
    uint64_t not_logged;   /* ticks the recorder could not take */
    int speed;             /* percent of real time (100; recordings may play faster or slower) */
    struct srv_play *play; /* a recorded session played back (--play), or NULL */
    int nsubs;
    int closed;
    /* statistics */
    uint64_t ticks, overruns, skipped, late_max_us;
    uint64_t warned_at;    /* uv_now of the last falling-behind warning */
    uint32_t lat_hist[SRV_LAT_BUCKETS + 1];
    uint64_t lat_count;
    uint64_t msgs_built, bytes_built;
};

/* ---- the server ------------------------------------------------------------------------------------ */
typedef struct srv_config {
    const char *listen_host;
    int listen_port;
    const char *port_file;
    char admin_token[80];
    char player_token[80];
    int max_clients;
    int log_level;
} srv_config;

struct srv {
    uv_loop_t *loop;
    srv_config cfg;
    uv_tcp_t listener;
    uv_timer_t tick_timer;
    uv_timer_t sweep_timer;
    uv_signal_t sig_int, sig_term;
    srv_world *worlds[SRV_MAX_WORLDS];
    int nworlds;
    uint32_t next_world_id;
    srv_client *clients;
    int nclients;
    uint32_t next_client_id;
    int stopping;
    wire_buf scratch;      /* message building */
    void *zctx;            /* ZSTD_CCtx, reused for every stateless compression */
    uint64_t frames_sent, bytes_sent, msgs_dropped;
    /* recording (server/record.c) */
    const char *db_path;   /* NULL: --no-record */
    int durability;
    struct rpl_recorder *rec;
    uv_async_t rec_async;
    int rec_failing;
    int lock_fd;
};

/* server/worlds.c */
/* A new hosted world: its id, or a negative SIM_E… code with a sentence in err. The world may
 * not read files (a create from the network must never make the server open a path it names). */
int srv_world_add(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                  size_t errlen);
/* The same for a world given on vivd's command line: it may read the file it is built from
 * (cycle's scene=file:PATH), with vivd's own permissions. */
int srv_world_add_local(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                        size_t errlen);
srv_world *srv_world_find(srv *s, uint32_t id);
/* Host an existing sim world (a resumed session): no new session is begun. Takes sw. */
srv_world *srv_world_adopt(srv *s, sim_world *sw, char *err, size_t errlen);
void srv_world_close(srv *s, srv_world *w);
void srv_world_free(srv_world *w);
void srv_tick_start(srv *s);
void srv_tick_kick(srv *s);                /* re-plan now (a world was resumed or re-timed) */
void srv_world_rebase(srv_world *w);       /* deadlines start again from now */
void srv_world_stats_log(srv *s, int level);
void srv_world_describe(srv *s, srv_world *w, wire_buf *b);   /* welcome entry map */
void srv_world_stats_put(const srv_world *w, wire_buf *b);

/* server/fanout.c */
int srv_stream_find(srv_world *w, int view, uint32_t every, int enc);  /* index, or -1: full */
void srv_stream_attach(srv_world *w, srv_sub *sub);
void srv_stream_detach(srv_world *w, srv_sub *sub);
void srv_fanout_tick(srv *s, srv_world *w);

/* server/client.c */
void srv_on_connection(uv_stream_t *server, int status);
void srv_client_send(srv_client *c, srv_msg *m);           /* takes a new reference */
void srv_client_send_buf(srv_client *c, wire_buf *b);      /* a one-off reply */
void srv_client_error(srv_client *c, const char *code, const char *msg, const int64_t *seq);
/* An error reply that does not count toward the client's error budget (the server's doing, or a
 * flood being throttled: rate_limited, world_busy). */
void srv_client_notice(srv_client *c, const char *code, const char *msg, const int64_t *seq);
void srv_client_close(srv_client *c, const char *why);
void srv_client_error_final(srv_client *c, const char *code, const char *msg);
size_t srv_client_queued(const srv_client *c);
void srv_sweep(uv_timer_t *t);
void srv_sub_drop(srv_client *c, srv_sub *sub);

/* server/record.c */
int srv_record_open(srv *s, char *err, size_t errlen);      /* lock, open, start the writer */
void srv_record_begin(srv *s, srv_world *w);               /* a new session for a new world */
void srv_record_tick(srv *s, srv_world *w, uint64_t tick); /* after stepping `tick` */
void srv_record_end(srv *s, srv_world *w);
void srv_record_close(srv *s);                             /* flush, settle, close */
/* Resume every session a crash left running: replay each to its last committed tick, checking
 * the recorded hashes, and host it live. Returns how many were resumed. */
int srv_record_resume_all(srv *s);
int srv_record_failing(srv *s);
void srv_world_settle(srv *s, srv_world *w, uint64_t upto, int ok);

/* server/play.c — a recorded session hosted as a read-only world */
typedef struct srv_play srv_play;
int srv_play_open(srv *s, const char *spec, char *err, size_t errlen);   /* FILE[:SESSION] */
void srv_play_feed(srv_world *w);
void srv_play_after_tick(srv *s, srv_world *w);
int srv_play_paused(const srv_world *w);
/* op: pause, resume, step, seek (tick), speed (percent). 0, or -1 with a sentence. */
int srv_play_control(srv *s, srv_world *w, const char *op, size_t oplen, uint64_t tick, int speed,
                     char *err, size_t errlen);
void srv_play_describe(const srv_world *w, wire_buf *b);   /* the "play" map of a world entry */
void srv_play_free(srv_play *p);

/* server/proto.c */
void srv_handle_message(srv_client *c, const uint8_t *body, size_t len);
void srv_send_ack(srv_client *c, uint32_t seq, uint64_t tick);

#endif
