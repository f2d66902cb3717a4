/* network.h — vivd's network layer, on top of the host (host.h): connections (client.c), the
 * message handlers and their table (proto.c) and fan-out (fanout.c), over TCP (tcp.c, io.c) and
 * WebSocket (ws.c). It calls the host; the host reports back only through the srv_host_events
 * table that srv_net_init installs.
 *
 * An optional layer above it (the cluster: cluster.c, relay.c, redis.c) plugs in through one
 * table of hooks, srv_net_hooks, which it installs with srv_net_hooks_set when vivd starts in
 * cluster mode. The network layer calls those hooks and never a function of that layer by name
 * (tests/layers.sh checks it with nm). */
#ifndef VIVARIUM_SRV_NET_H
#define VIVARIUM_SRV_NET_H

#include <stdatomic.h>
#include "host.h"
#include "msg.h"
#include "wire.h"

/* ---- limits (docs/PROTOCOL.md lists them) --------------------------------------------------- */
#define SRV_SOFT_LIMIT (256u * 1024u)      /* queued bytes: above it, skip frames to a keyframe */
#define SRV_HARD_LIMIT (4u * 1024u * 1024u) /* queued bytes: above it, disconnect */
#define SRV_STALL_MS 30000u                 /* over the soft limit this long: disconnect */
#define SRV_IO_LAG_MS 1000u                 /* an I/O thread this far behind the loop: what is
                                              * on its way to it counts toward the limits */
#define SRV_IO_MAX_HELD (4u * SRV_HARD_LIMIT) /* ... and past this much for one connection,
                                              * whatever the lag (tcp.c) */
#define SRV_HELLO_MS 10000u                 /* time to send hello */
#define SRV_PARTIAL_MS 10000u               /* time to finish a message once started */
#define SRV_IDLE_MS 300000u                 /* no message and no subscription: disconnect */
#define SRV_MAX_ERRORS 16                   /* error replies before a disconnect */
#define SRV_DRAIN_MS 2000u                  /* after the last word, wait this long for EOF */
#define SRV_INPUTS_PER_TICK 32              /* per client, per tick of the scheduler */
#define SRV_KEYFRAME_SECONDS 10             /* periodic keyframe on every stream */
#define SRV_RECT_FAST_STREAMS 64            /* more rect streams due in a tick: tile data uncompressed */
#define SRV_MAX_STREAMS 1024                /* per world: (view, every, div, enc, rect) combinations */
#define SRV_MAX_DIV 8                       /* sub's div: frames 1/1 .. 1/8 of the size */
#define SRV_REGION 64                       /* sub's rect is widened to this grid (world pixels) */
#define SRV_RECT_MAX 65536                  /* sub's rect: each number within ±this */
#define SRV_STR_(x) #x
#define SRV_STR(x) SRV_STR_(x)
#define SRV_MAX_SUBS 8                      /* worlds one client may watch at once */
#define SRV_CLIENT_BUCKETS 1024             /* the id → client table (a power of two) */
#define SRV_GUESS_ADDRS 4096                /* addresses whose wrong tokens are remembered */
#define SRV_GUESS_QUEUE 1024                /* answers to wrong tokens waiting, server-wide */
#define SRV_GUESS_PER_ADDR 32               /* ... of them, for one address */
#define SRV_GUESS_MAX_MS 4096u              /* the longest back-off of one answer */
#define SRV_GUESS_FORGET_MS 600000u         /* an address's count, kept this long after its last */

/* ---- shared, refcounted message buffers: encode once, write to many ------------------------------
 * One message body with SRV_MSG_PRE bytes of headroom in front of it. Its reference count is
 * atomic: the loop takes references as it sends, and the I/O threads (io.c) release theirs as
 * their writes complete; whoever releases the last frees it, on whichever thread. libwebsockets writes its
 * frame header (2 to 10 bytes, the same for every viewer of the message) into that headroom, in
 * place, so that every WebSocket viewer is written from the one buffer. TCP writes the 4-byte
 * length from `prefix`, then the body: the prefix cannot live in the buffer, where the
 * WebSocket header would overwrite it while a TCP write of the same buffer is still queued. */
#define SRV_MSG_PRE 16u        /* libwebsockets' LWS_PRE (server/ws.c checks that they agree) */
typedef struct srv_msg {
    atomic_int refs;
    size_t len;            /* the framed message as TCP sends it: 4-byte length + body */
    uint8_t *data;         /* SRV_MSG_PRE bytes of headroom, then the body */
    uint8_t prefix[4];     /* the TCP framing: the body's length, big-endian */
} srv_msg;
#define SRV_MSG_BODY(m) ((m)->data + SRV_MSG_PRE)
#define SRV_MSG_BODYLEN(m) ((m)->len - 4)
/* Make room in an empty b for the headroom, so that the message written next into b becomes an
 * srv_msg without a copy. */
void srv_msg_reserve(wire_buf *b);
/* The one message in b as a shared buffer (refs 1), or NULL (out of memory). A buffer reserved
 * with srv_msg_reserve gives its allocation (b is left empty); any other is copied. */
srv_msg *srv_msg_from_buf(wire_buf *b);
void srv_msg_ref(srv_msg *m);
void srv_msg_unref(srv_msg *m);

typedef struct srv_client srv_client;

/* ---- streams and subscriptions (fanout.c) --------------------------------------------------------- */
enum { SRV_ENC_TILE = WIRE_ENC_TILE, SRV_ENC_RAW = WIRE_ENC_RAW, SRV_ENC_TILEZ = WIRE_ENC_TILEZ };

typedef struct srv_sub srv_sub;

/* What a subscription asks of a world's frames (docs/PROTOCOL.md, sub): subscribers that ask
 * the same share one stream, whose messages are built once a tick for all of them. */
typedef struct srv_stream_key {
    int view;
    uint32_t every;
    uint32_t div;          /* 1, or frames downsampled by div */
    int enc;
    int rx, ry, rw, rh;    /* the rect of the world shown, on the SRV_REGION grid (rw 0: whole) */
} srv_stream_key;

/* One view of a world in the codec's tiles, for its rect streams (tiles.c): the frame as last
 * seen, when each tile last changed (a generation: one per update that found a change) and each
 * tile's payload, encoded once when first asked after a change. */
typedef struct srv_tiles {
    int w, h, tx, ty;      /* frame size; tiles across and down */
    uint8_t *last;         /* the frame at the last update (NULL: none yet) */
    uint64_t gen;
    uint64_t *chg;         /* per tile: the generation of its last change */
    uint16_t *plen;        /* per tile: its cached payload's length (0: to encode) */
    uint8_t *pay;          /* per tile: CODEC_TILE_PAYLOAD_MAX bytes */
    uint64_t encoded;      /* payloads encoded so far */
    int all_encoded;       /* every tile's payload is encoded (after a crowd's pass: srv_tiles_end) */
} srv_tiles;
/* Take f as the view's frame now: the tiles that differ from the last get the next generation. 0,
 * or -1 (out of memory: t is emptied, and the next update starts over). */
int srv_tiles_update(srv_tiles *t, const sim_frame *f);
/* srv_tiles_update cut into tile rows, for several threads, with every payload not yet encoded
 * encoded at once (a crowd of rects will ask for nearly every one): srv_tiles_begin on one thread
 * gives the number of rows (a first frame or a new size is taken whole first; -1: out of memory,
 * as for the update); then srv_tiles_band once for each row, on any threads (a row's tiles are
 * its own; 1 if any of them changed, *encoded counting the payloads it encoded); then
 * srv_tiles_end on one thread, given whether any row changed and the payloads encoded: every
 * tile is encoded then, and srv_tiles_prepare has nothing to do until a lazy update. */
int srv_tiles_begin(srv_tiles *t, const sim_frame *f);
int srv_tiles_band(srv_tiles *t, const sim_frame *f, int ty, uint64_t *encoded);
void srv_tiles_end(srv_tiles *t, int any, uint64_t encoded);
/* Append the tile data of the rect (on the tile grid, inside the frame) to out: a keyframe, or a
 * delta naming the tiles changed after generation since. *newest: the newest generation among the
 * rect's tiles. Returns the bytes appended, or -1 (out of memory). */
long srv_tiles_rect(srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since,
                    wire_buf *out, uint64_t *newest);
/* The bytes srv_tiles_rect would append, every tile of the rect encoded already (srv_tiles_prepare);
 * and srv_tiles_rect writing them into room the caller reserved for exactly that many (the frame
 * message's own buffer: wire_msg_frame_head), with no copy between. */
size_t srv_tiles_rect_size(const srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since);
long srv_tiles_rect_to(srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since,
                       wire_buf *out, uint64_t *newest);
/* Encode every tile of the rect that changed since it was last encoded, so that srv_tiles_rect
 * of it only reads t (and may run on several threads at once). */
void srv_tiles_prepare(srv_tiles *t, int rx, int ry, int rw, int rh);
void srv_tiles_free(srv_tiles *t);

/* What a pool worker builds a rect stream's frames with (fanout.c): its own zstd context and
 * scratch, and the rect's tile data. */
typedef struct srv_builder {
    wire_encoder enc;
    wire_buf data;
} srv_builder;
void srv_builders_free(struct srv_net *net);

typedef struct srv_stream {
    int used;
    srv_sub *head;         /* its subscribers */
    srv_stream_key k;
    int nsubs;
    sim_frame small;       /* a rect or div > 1: this tick's picture, built once for the stream */
    uint8_t *prev;         /* the last frame sent on this stream (tile deltas are against it) */
    int have_prev;
    uint32_t prev_pv;      /* palette version of that frame */
    uint64_t last_key;     /* tick of the last keyframe sent */
    /* A rect at full resolution in tiles (not raw): its data comes from the world's srv_tiles,
     * so it keeps no pictures (prev and small stay NULL); the generation of the tiles its last
     * frame showed, and its frame hash, kept while none of its tiles nor the palette changes. */
    int tiled;
    uint64_t sent_gen;
    uint64_t fh, fh_gen;
    uint32_t fh_pv;
    int have_fh;
    /* Published beyond this server (the hooks' publish: the cluster's relays watch it on its
     * channel) until then (ms, uv_now; 0: not published), and the next message published there
     * must be a keyframe. The layer above sets the lease; fan-out honours it. */
    uint64_t remote_until;
    int remote_key;
} srv_stream;

/* A world's subscribers, grouped by stream. */
typedef struct srv_fan {
    srv_stream *streams;   /* nstreams slots (used or free), grown as asked up to SRV_MAX_STREAMS */
    int nstreams;
    int nsubs;
    int nremote;           /* streams with a lease to be published (remote_until) */
    uint64_t msgs_built, bytes_built;
    uint64_t downsampled;  /* div streams' frames made: one per stream and tick at most */
    srv_tiles *tiles;      /* per view, for the rect streams (NULL until one is built) */
    uint8_t *tiles_fresh;  /* per view: its tiles were updated in this fan-out already */
    struct fan_job *jobs;  /* one fan-out's work, a slot per stream (fanout.c) */
    uint64_t *tiled;       /* the jobs of tiled streams: the rect's place << 32 | the job's index */
    int jobs_cap;
    uint8_t *crowd_any;    /* a crowd's tile rows (fanout.c, crowd_prepare): which changed, */
    uint64_t *crowd_enc;   /* and the payloads each encoded; crowd_cap of each */
    int crowd_cap;
    uint64_t events_tick;  /* 1 + the tick whose events were last sent (0: none yet) */
} srv_fan;

struct srv_sub {
    srv_world *world;      /* a world hosted here; NULL with remote NULL: slot free */
    struct srv_rworld *remote;  /* a world served by the layer above (the cluster's relay):
                                 * opaque here; srv_net_hooks.sub_dropped lets it go */
    srv_client *client;
    int stream;            /* index into the world's streams */
    int need_key;
    int events;            /* sub's "events": the world's events are sent to it too */
    /* Its own timeline on the world's recording (timeline.c): the private world its frames come
     * from instead (stream is then the timeline's), or NULL; one being built (tl_opening, with
     * the generation the host's answer must carry); what the world's stream was. */
    srv_world *tl;
    int tl_opening;
    uint32_t tl_gen;
    srv_stream_key tl_key;
    uint64_t frames, skipped;
    srv_sub *snext, *sprev;     /* the stream's subscriber list */
};

/* ---- clients ------------------------------------------------------------------------------------ */
enum { SRV_ROLE_NONE, SRV_ROLE_VIEWER, SRV_ROLE_PLAYER, SRV_ROLE_ADMIN };

/* Which transport a client came by, for /metrics (server/metrics.c): its counters' index. */
enum { SRV_TR_TCP, SRV_TR_WS, SRV_TR_PROXY, SRV_TR_N };
/* Why the server dropped a client (srv_tr_stats.drops). */
enum { SRV_DROP_HARD_LIMIT, SRV_DROP_STALL, SRV_DROP_BAD_MESSAGE, SRV_DROP_TIMEOUT,
       SRV_DROP_SERVER_FULL, SRV_DROP_N };
/* Per transport, counted where it happens (client.c, fanout.c): plain integers on the loop. */
typedef struct srv_tr_stats {
    uint64_t connections;      /* accepted (attached) */
    uint64_t closed;           /* closed, for whatever reason */
    uint64_t drops[SRV_DROP_N];
    uint64_t soft_skips;       /* frames skipped: the client was over the soft limit */
} srv_tr_stats;

/* How a client's bytes reach the wire: TCP (server/tcp.c) or WebSocket (server/ws.c). Everything
 * above it — the handlers, fan-out, the limits and timeouts of client.c — is the same for both. */
typedef struct srv_transport {
    const char *name;                          /* "tcp", "ws" (the log says which) */
    /* Write m now or queue it (taking a reference); on a failure, srv_client_close(c). */
    void (*send)(srv_client *c, srv_msg *m);
    size_t (*queued)(const srv_client *c);     /* bytes held for c beyond what the kernel took */
    /* The last word is queued: end our side once it is written, and discard what c still sends. */
    void (*finish)(srv_client *c);
    /* Stop reading and let the connection go. The transport frees c (srv_client_free) once no
     * callback can reach it any more: never here. */
    void (*close)(srv_client *c);
    /* A client of another cluster member, proxied here (server/cluster.c): it has no timeouts
     * of its own; its member says when it goes. */
    int proxied;
    /* Or NULL. Once a second (the sweep, before its timeouts): a transport whose library parses
     * the bytes (WebSocket: lws) reports a message begun there that no callback has shown yet,
     * by setting c->partial_since, or refuses it (too_large). TCP sees every byte itself. */
    void (*sweep)(srv_client *c, uint64_t now);
    int kind;                                  /* SRV_TR_… */
} srv_transport;
extern const srv_transport srv_transport_tcp;   /* server/tcp.c */
extern const srv_transport srv_transport_ws;    /* server/ws.c */

/* A WebSocket connection's side of a client (server/ws.c). lws writes one message at a time, on
 * its WRITEABLE callback; the rest wait here as references to the shared buffers. */
typedef struct srv_ws_conn {
    struct lws *wsi;           /* NULL once libwebsockets has closed the connection */
    srv_msg **q;               /* the ring of messages waiting to be written, oldest at q[head] */
    uint32_t head, n, cap;
    size_t qbytes;             /* their framed lengths (srv_msg.len) */
    size_t inflight;           /* the framed length of the message lws still holds part of, or 0 */
    int text;                  /* the message being received is a text one: refused, discarded */
    int finish;                /* after the queue: a close frame (the last word was said) */
    int close_sent;            /* that close frame is written */
} srv_ws_conn;

/* A TCP connection whose writes an I/O thread makes (server/tcp.c moves it there, server/io.c
 * writes). The loop keeps reading it on its own handle; the thread writes a dup of its socket.
 * Fields are the loop's unless marked. */
struct srv_io;
struct srv_ioconn;
typedef struct srv_tcp_io {
    struct srv_io *io;         /* the thread it moves or moved to, or NULL: the loop writes it */
    struct srv_ioconn *k;      /* the thread's side (a name for commands), once moved */
    srv_msg **held;            /* sent while moving (the loop's queue draining first), in order */
    uint32_t nheld, capheld;
    size_t held_bytes;
    int held_finish;           /* the last word was said while moving */
    uint64_t sent;             /* framed bytes handed to the thread */
    uint64_t turn, turn_bytes; /* of them, sent in loop turn `turn` (srv_net.io_turn) */
    _Atomic uint64_t seen;     /* of them, taken up by the thread (the thread adds) */
    _Atomic uint64_t done;     /* of them, taken by the kernel or discarded (the thread adds) */
    atomic_int stuck;          /* the thread's last write ended with the kernel refusing more */
    int main_closed;           /* the loop's handle is closed */
    int released;              /* the thread let go: no event will name this client again */
    /* events from the thread, under its hub's lock (io.c) */
    struct srv_client *ev_next;
    int ev_queued, ev_err, ev_done;
    int ev_got_err, ev_got_done;   /* the loop's copy, taken under the lock */
    struct srv_client *ev_local_next;  /* the loop's list of what it took */
} srv_tcp_io;

struct srv_client {
    uv_tcp_t tcp;              /* the TCP transport's connection */
    srv_tcp_io tio;            /* its writes on an I/O thread (io.c), when it moved there */
    srv_ws_conn ws;            /* the WebSocket transport's */
    const srv_transport *tr;
    srv *s;
    uint32_t id;           /* the `client` of its inputs: connection order, from 1 */
    uint32_t tl_gens;      /* timeline generations handed out on this connection (timeline.c):
                              never reused, so a build a replaced subscription asked for is known */
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
    char token[80];            /* the token its hello gave (a message routed elsewhere carries it) */
    const uint8_t *cur_body;   /* the message being handled, as it came (routed unchanged) */
    size_t cur_len;
    /* kept for the layer above (the cluster: cluster.c, relay.c); the network layer never reads
     * them */
    char sent_to[4][64];       /* members its messages went to (told when it goes) */
    int nsent_to, sent_to_more;
    uint32_t last_closed;      /* the world of the last `closed` it was sent (said once) */
    char via[64];              /* a proxy: the member whose client it is, */
    uint32_t via_client;       /* and that client's id there */
    int via_greeting;          /* its hello is being played: its answers go nowhere */
    srv_client *via_next;      /* the cluster's list of proxies */
    srv_client *next, *prev;    /* all clients */
    srv_client *idnext;         /* the id table's bucket chain */
    uint64_t bytes_out, frames_out;
};

/* ---- the hooks of the layer above ------------------------------------------------------------
 * How a handler-table row routes its message when another member may own the world it names
 * (the `route` column of srv_handlers). */
enum {
    SRV_ROUTE_NONE = 0,    /* always handled here */
    SRV_ROUTE_OWNER,       /* handled by the member that hosts the world named by "world" */
    SRV_ROUTE_WATCH,       /* sub: served here, from the stream of the world's owner */
    SRV_ROUTE_UNWATCH      /* unsub of such a subscription */
};
/* Installed by a layer above the network (the cluster, server/cluster.c) with srv_net_hooks_set;
 * every one may be NULL, and all are NULL on a single node. They run on the loop, never block,
 * and must not free the client they are given (srv_client_close may be called). */
typedef struct srv_net_hooks {
    void *ud;              /* the layer's own state (srv_net_hooks_ud) */
    /* A message whose row has a route (SRV_ROUTE_…), before its handler: 1 if the hook served it
     * (forwarded to the world's owner, attached to its stream, or answered with an error), 0 to
     * let the handler run here (the world is hosted here, or known nowhere). The message body as
     * it came is in c->cur_body; seq is the one its errors echo (an input's), or NULL. Called
     * once per message, by srv_handle_message alone. */
    int (*route)(srv_client *c, int route, const wire_msg *m, const int64_t *seq);
    /* A create with or without a "node": 1 if the hook placed it on another member (forwarded)
     * or refused it (answered), 0 to build it here. */
    int (*place)(srv_client *c, const char *node, size_t nodelen);
    /* welcome: the entries of worlds hosted elsewhere (*out malloc'ed, the caller frees it); the
     * count, 0 with *out NULL when there are none. */
    int (*entries)(srv_client *c, wire_raw **out);
    /* A message of stream st of w, to publish beyond this server (a stream with a lease): 0, or
     * -1 (dropped; the stream's next published message is a keyframe). */
    int (*publish)(srv *s, srv_world *w, const srv_stream *st, srv_msg *m);
    void (*sub_dropped)(srv *s, srv_sub *sub);     /* a subscription with sub->remote ends */
    void (*client_gone)(srv_client *c);            /* c is closing (its subs already dropped) */
    void (*world_closed)(srv *s, srv_world *w);    /* w closes (its subscribers are told) */
    void (*worlds_changed)(srv *s);                /* a world was created here */
    void (*free)(srv *s);                          /* the network layer is being freed */
    /* /metrics: the layer's metric families, in the text format (docs/OPERATIONS.md). */
    void (*metrics)(srv *s, FILE *out);
    /* /healthz: 0, or -1 with one line in why (the layer cannot do its part: a relay without
     * Redis). */
    int (*health)(srv *s, char *why, size_t cap);
} srv_net_hooks;

/* The network side of the server. */
typedef struct srv_net {
    uv_tcp_t listener;
    /* Joining a cluster, no client is greeted (a Redis that fails makes vivd exit): connections
     * wait in the kernel's backlog (tcp.c: one held by libuv until srv_net_accepting) */
    int holding, held;
    uv_timer_t sweep_timer;
    srv_client *clients;
    int nclients;
    uint32_t next_client_id;
    srv_client *by_id[SRV_CLIENT_BUCKETS];
    wire_encoder enc;      /* frame building: tile scratch and the zstd context */
    struct srv_builder *builders;   /* one per pool worker, for the rect streams (fanout.c) */
    int nbuilders;
    uint64_t frames_sent, bytes_sent, msgs_dropped;
    srv_tr_stats tr[SRV_TR_N];  /* per transport (SRV_TR_…), for /metrics */
    /* HTTP and WebSocket (server/ws.c); set before srv_http_start */
    const char *http_host;     /* NULL: --no-http */
    int http_port;             /* 0: any free port */
    int http_asked;            /* --http was given: a failure to serve is fatal */
    const char *web_dir;       /* the page's files; NULL: found beside the binary */
    struct srv_http *http;     /* the libwebsockets context and its vhost, or NULL */
    /* WebSocket writes: every message is written from its shared buffer; when the kernel takes
     * only part of one, lws copies the rest (ws_partial_bytes counts those messages whole). */
    uint64_t ws_msgs, ws_partials, ws_partial_bytes;
    const char *wasm_path;     /* the page's sim module, served at /vivarium.wasm; NULL: none */
    /* recordings being sent to clients (server/replay_stream.c) */
    struct srv_rstream *rstreams;
    int nrstreams;
    /* I/O threads (server/io.c), started by srv_io_start; NULL: every write on the loop */
    struct srv_iohub *io;
    uv_prepare_t io_flush;     /* publishes the commands gathered this turn, before the poll */
    uv_async_t io_events;      /* a thread posted an event */
    uint64_t io_moved;         /* connections moved to a thread */
    uint64_t io_turn;          /* turns of the loop, counted as io_flush publishes */
    srv_net_hooks hooks;       /* the layer above (the cluster), or all NULL: a single node */
    struct srv_guess *guess;   /* wrong tokens by address (server/guess.c), made at the first */
    uv_timer_t guess_timer;    /* ... and its answers' timer */
} srv_net;

/* Attach the network layer to s: installs the host's event table. 0, or SRV_ENOMEM. */
int srv_net_init(srv *s, srv_net *n);
void srv_net_free(srv *s);
/* Install the hooks of the layer above (copied); h->ud is its state. */
void srv_net_hooks_set(srv *s, const srv_net_hooks *h);
/* That layer's state, or NULL: no layer above (a single node). */
void *srv_net_hooks_ud(const srv *s);

/* ---- server/fanout.c ------------------------------------------------------------------------------ */
/* The stream (view, every, div, enc) of w, made if need be: its index, or -1 (full, or no memory). */
int srv_stream_find(srv_world *w, const srv_stream_key *k);
int srv_stream_key_eq(const srv_stream_key *a, const srv_stream_key *b);
void srv_stream_attach(srv_world *w, srv_sub *sub);
void srv_stream_detach(srv_world *w, srv_sub *sub);
void srv_fanout_tick(srv *s, srv_world *w);
void srv_fanout_rekey(srv_world *w);       /* every subscriber starts over from a keyframe */
int srv_fanout_subs(const srv_world *w);
void srv_fanout_free(srv_world *w);
/* A message body (one msgpack map, n bytes) copied into a shared buffer: NULL, out of memory. */
srv_msg *srv_msg_from_body(const uint8_t *p, size_t n);
/* Hand a stream's message of this tick to its subscribers (head): those over the soft limit are
 * skipped (and will need a keyframe); the others get key if they need one or force_key, else
 * delta. plan says first whether any will want key and any delta (so that only what is wanted is
 * built). A send may close a client: deliver reads each next subscriber before it sends. */
void srv_fanout_plan(srv *s, srv_sub *head, int force_key, int *want_key, int *want_delta);
void srv_fanout_deliver(srv *s, srv_sub *head, int force_key, srv_msg *key, srv_msg *delta);

/* ---- server/client.c: a client whatever its transport ------------------------------------------------ */
/* A new client on transport tr, not yet counted or named (srv_client_attach does that). NULL:
 * out of memory. */
srv_client *srv_client_new(srv *s, const srv_transport *tr);
/* Give c its id, count it and link it; a client past --max-clients (or any while the server
 * stops) is told server_full and let go. The transport has filled in c->peer. */
void srv_client_attach(srv_client *c);
void srv_client_free(srv_client *c);                         /* the transport's last act */
/* One whole message body from c: time-stamped and handed to the handler table. */
void srv_client_received(srv_client *c, const uint8_t *body, size_t len);
srv_client *srv_client_by_id(srv *s, uint32_t id);          /* NULL: gone */
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
static inline int srv_sub_used(const srv_sub *sub) { return sub->world || sub->remote; }
/* c subscribed: its writes move to an I/O thread, if there are any and it is a TCP client. */
void srv_client_offload(srv_client *c);

/* ---- server/tcp.c: the TCP transport ------------------------------------------------------------------ */
void srv_on_connection(uv_stream_t *server, int status);
/* Move c's writes to I/O thread io: once what the loop still holds for it is written (messages
 * sent meanwhile wait, in order), a dup of its socket goes to the thread with them. The loop
 * goes on reading it. Nothing happens to a client that is not TCP, already moving, or closing. */
void srv_tcp_move(srv_client *c, struct srv_io *io);
/* From io.c, on the loop: c's thread failed to write (err: a libuv error code). */
void srv_tcp_io_failed(srv_client *c, int err);
/* From io.c, on the loop: c's thread let go of it; c is freed if its own handle is closed too. */
void srv_tcp_io_released(srv_client *c);

/* ---- server/io.c: I/O threads, the writes of TCP connections off the tick thread ----------------------
 * Commands are gathered on the loop and published before it next polls (srv_net.io_flush); a
 * thread runs them in order, so a connection's messages are written in the order they were sent. */
typedef struct srv_io srv_io;
typedef struct srv_ioconn srv_ioconn;
typedef struct srv_iohub srv_iohub;
/* Start n I/O threads (0: none; every write stays on the loop). 0, or a negative SRV_E… code with
 * a sentence in err (nothing is left running). */
int srv_io_start(srv *s, int n, char *err, size_t errlen);
int srv_io_threads(const srv *s);
/* After the loop has stopped (every client closed): what is gathered is published, the threads
 * close what they hold and end, and the clients they let go of are freed. */
void srv_io_stop(srv *s);
void srv_io_flush(srv *s);                   /* publish now (shutdown) */
srv_io *srv_io_pick(srv *s);                 /* the thread with the fewest connections, or NULL */
int srv_io_index(const srv_io *io);          /* 1.. (for the log) */
/* The thread has not taken what was published SRV_IO_LAG_MS ago (checked once per turn). */
int srv_io_behind(const srv_io *io);
/* The thread's side of client c, whose socket dup fd it will write and close: NULL when out of
 * memory (nothing gathered; the caller keeps fd). */
srv_ioconn *srv_io_attach(srv_io *io, srv_client *c, int fd);
int srv_io_send(srv_ioconn *k, srv_msg *m);  /* takes a new reference; 0, or -1: out of memory */
int srv_io_finish(srv_ioconn *k);            /* end our side after the queue; 0 or -1 */
void srv_io_close(srv_ioconn *k);            /* drop the queue and let go (never fails) */

/* ---- server/ws.c: HTTP (the page's files) and WebSocket, through libwebsockets on s->loop ------------ */
/* Serve n->http_host:http_port. 0, or -1 with one line for the user in err (what is missing or
 * wrong, and what to do); nothing is left open then. */
int srv_http_start(srv *s, char *err, size_t errlen);
int srv_http_port(const srv *s);          /* the port bound, or 0: not serving */
/* The sentence for a missing or broken libuv plugin of libwebsockets (why: dlerror's). */
void srv_http_plugin_message(const char *why, char *err, size_t errlen);
const char *srv_http_web_dir(const srv *s);
/* Shutting down takes two steps on a foreign loop: stop (destroys the context: its connections
 * close, its handles start closing), let the loop run, then srv_http_free (destroys it again if
 * libwebsockets has not finished, and frees what is left). */
void srv_http_stop(srv *s);
void srv_http_free(srv *s);

/* ---- server/guess.c: token guessing slowed down (docs/PROTOCOL.md, hello) ----------------------------
 * The table of addresses is plain data, the time (ms) an argument: */
typedef struct srv_guess srv_guess;
srv_guess *srv_guess_new(uint64_t seed);       /* NULL: out of memory */
void srv_guess_free(srv_guess *g);
/* The key of a peer "IP:PORT" (IPv4 whole, IPv6 by its /64): 0, or -1 (unreadable: all zero). */
int srv_guess_key(const char *peer, uint8_t key[16]);
/* May a token from key be read now? 0, or -1: too many answers are waiting (for it, or in all). */
int srv_guess_admit(const srv_guess *g, const uint8_t key[16]);
/* A wrong token from key, from client: its answer is queued, due at *due (after every answer
 * queued for key before it, by the back-off of key's failures in a row). 0, or -1: not admitted. */
int srv_guess_fail(srv_guess *g, const uint8_t key[16], uint32_t client, uint64_t now, uint64_t *due);
void srv_guess_success(srv_guess *g, const uint8_t key[16]);  /* the admin token: count cleared */
int srv_guess_due(srv_guess *g, uint64_t now, uint32_t *client); /* pop one due answer: 1, or 0 */
uint64_t srv_guess_next(const srv_guess *g);   /* the next answer's due time, or UINT64_MAX */
uint64_t srv_guess_backoff(uint32_t n);        /* the Nth failure's: min(2^n, SRV_GUESS_MAX_MS) ms */
int srv_guess_failures(const srv_guess *g, const uint8_t key[16]);
int srv_guess_addresses(const srv_guess *g);   /* entries in use (at most SRV_GUESS_ADDRS) */
/* hello's side, on the loop: before a token is read (0: read it; -1: refused, rate_limited sent),
 * a wrong one (bad_token is sent when due), the admin token; and the timer stopped at shutdown. */
int srv_guess_hello_admit(srv_client *c);
void srv_guess_hello_failed(srv_client *c);
void srv_guess_hello_admin(srv_client *c);
void srv_guess_stop(srv *s);

/* ---- server/http_head.c --------------------------------------------------------------------------- */
#define SRV_HEAD_MAX 8192u                  /* a request head over this is refused (431) */
/* Where the request head in buf[0..len) stands: 0, not whole yet; 1, whole and sound, *end the
 * bytes through its empty line; or the HTTP status to refuse it with (400), *why one sentence.
 * Sound: every line ends with CRLF, no NUL byte, and a request target with no control character
 * and no %00. */
int srv_http_head_check(const char *buf, size_t len, size_t *end, const char **why);
typedef struct srv_http_gate srv_http_gate;
/* A head checked: fd and the bytes read from it (head[0..len), valid only during the call) are
 * the callee's now. */
typedef void (*srv_http_adopt_fn)(void *ud, int fd, const char *head, size_t len);
/* Accept on listen_fd (bound and listening; the gate's from now on), read and check each
 * request head, refuse the unsound ones, answer the operator's endpoints itself
 * (srv_ops_answer: GET /metrics, GET /healthz), and hand the others to adopt. NULL: out of
 * memory. */
srv_http_gate *srv_http_gate_start(srv *s, int listen_fd, srv_http_adopt_fn adopt, void *ud);
/* If the head (checked sound) is a GET of one of the operator's endpoints: 1, with the whole
 * HTTP answer (status line, headers, body; NUL-terminated) malloc'ed in *out and its length in
 * *len. 0: not one of them (lws serves it). -1: out of memory. */
int srv_ops_answer(srv *s, const char *head, size_t hlen, char **out, size_t *len);

/* ---- server/metrics.c: the operator's endpoints (docs/OPERATIONS.md) ---------------------------------
 * The Prometheus text format (0.0.4) of every counter, built from them when asked: malloc'ed
 * text in *out, its length in *len; 0, or -1 (out of memory). */
int srv_metrics_text(srv *s, char **out, size_t *len);
/* /healthz: 0 (healthy) or -1 with one line in why, now (the host's rules, srv_health, then the
 * layer above's). */
int srv_healthz(srv *s, char *why, size_t cap);
/* The transport's counters of c. */
srv_tr_stats *srv_tr_of(srv_client *c);
/* Close the listener and every connection still being read; the gate frees itself once its
 * handles are closed (the loop must run). */
void srv_http_gate_stop(srv_http_gate *g);
/* hold: stop accepting (connections wait in the backlog); 0: accept again. */
void srv_http_gate_hold(srv_http_gate *g, int hold);
/* The same for vivd's HTTP port, if it serves one. */
void srv_http_hold(srv *s, int hold);

/* ---- server/replay_stream.c: recordings handed to clients, read off the loop ---------------------- */
void srv_on_sessions(srv_client *c, const wire_msg *m, const int64_t *seq);
/* Accept clients from now (the cluster joined): what waited is taken, TCP and HTTP. */
void srv_net_accepting(srv *s);
void srv_on_open(srv_client *c, const wire_msg *m, const int64_t *seq);
/* The sweep's part for recordings viewers opened: the unwatched ones close (play.c). */
void srv_recordings_sweep(srv *s);
/* The answer to an open: `opened` with w's entry, or the error code and its sentence (w NULL). */
void srv_send_opened(srv_client *c, srv_world *w, const char *code, const char *err);
void srv_on_replay(srv_client *c, const wire_msg *m, const int64_t *seq);

/* ---- server/timeline.c: a viewer's own timeline on a world's recording ------------------------------ */
void srv_on_timeline(srv_client *c, const wire_msg *m, const int64_t *seq);
/* ev.timeline_opened (host.h). */
int srv_timeline_opened(void *ud, uint32_t client, uint32_t of, uint32_t gen, srv_world *tl, int err,
                        const char *msg);
/* The answer to a timeline message about w (a timeline, or the world itself: back to live), or the
 * error for rc (SRV_E…). */
void srv_send_timeline(srv_client *c, srv_world *w, int rc, const char *err);

/* ---- server/proto.c: the handler table ------------------------------------------------------------- */
typedef struct srv_handler {
    const char *type;      /* the message's "t" */
    void (*fn)(srv_client *c, const wire_msg *m, const int64_t *seq);
    int least_role;        /* SRV_ROLE_…: below it, a `forbidden` error */
    const char *forbidden; /* the sentence of that error */
    int forbidden_seq;     /* that error echoes the message's seq (inputs do, as they always have) */
    int needs_seq;         /* a message without a valid "seq" is refused before anything else */
    int route;             /* SRV_ROUTE_…: where a world another member hosts is served */
} srv_handler;
extern const srv_handler srv_handlers[];
extern const int srv_nhandlers;
const srv_handler *srv_handler_find(const uint8_t *type, size_t len);   /* NULL: unknown */
void srv_handle_message(srv_client *c, const uint8_t *body, size_t len);
void srv_send_ack(srv_client *c, uint32_t seq, uint64_t tick);
/* The answer to a create: `created` with w's entry, or (w NULL) the error for rc (SRV_E…). */
void srv_send_created(srv_client *c, srv_world *w, int rc, const char *err);
/* The answer to a fork: `forked` with w's entry, or the error code and its sentence (w NULL). */
void srv_send_forked(srv_client *c, srv_world *w, uint32_t from, uint64_t tick, const char *code,
                     const char *err);
/* The answer to a play message: `playing`, or the error for rc (SRV_E…). */
void srv_send_playing(srv_client *c, srv_world *w, int rc, const char *err);
/* What a sub asks for, read from m for a world of `kind` (its view names). */
typedef struct srv_sub_req {
    srv_stream_key k;      /* its rect as asked (unaligned; rw 0: none): srv_rect_align fits it */
    int events;            /* "events": true */
} srv_sub_req;
/* The rect k asks for, widened to the SRV_REGION grid and clipped to a w × h world (a rect that
 * covers it all stays a rect). */
void srv_rect_align(srv_stream_key *k, int w, int h);
/* 0, or -1 with the error sent to c. */
int srv_sub_read(srv_client *c, const wire_msg *m, const sim_kind *kind, srv_sub_req *out);
/* The slot of c's subscription to w (hosted here) or remote (served by the layer above): the one
 * already watching it is dropped and reused (re-subscribing replaces), else a free one. NULL,
 * with the error sent: c watches SRV_MAX_SUBS worlds already. */
srv_sub *srv_sub_slot(srv_client *c, const srv_world *w, const struct srv_rworld *remote);
/* The `too_many_streams` error. */
void srv_send_too_many_streams(srv_client *c);

#endif
