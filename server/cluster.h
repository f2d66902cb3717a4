/* cluster.h — vivd beyond one machine (docs/CLUSTER.md), part of the network layer: the Redis
 * connection (redis.c), this member's place in the cluster — registration, heartbeat, the registry
 * of every member's worlds, the messages members send each other, and a node's side of streams
 * and proxied clients (cluster.c) — and the worlds other members host, served to this member's
 * viewers (relay.c). Without --cluster none of it runs and vivd is a single node, as before. */
#ifndef VIVARIUM_SRV_CLUSTER_H
#define VIVARIUM_SRV_CLUSTER_H

#include "network.h"
#include "cluster_msg.h"

#define SRV_CLUSTER_NAME_MAX SRV_CMSG_NAME_MAX
#define SRV_CLUSTER_EXPIRY_MS 5000u        /* default --cluster-expiry: registrations and leases */
#define SRV_CLUSTER_OBUF_MAX (16u << 20)   /* bytes queued for Redis past which frames are dropped */
#define SRV_CLUSTER_MAX_MEMBERS 256
#define SRV_CLUSTER_MAX_WORLDS 4096        /* worlds of other members a member keeps track of */
#define SRV_CLUSTER_WORLD_SPACE 65536u     /* a node's world ids are num·65536 + 1.. */
#define SRV_CLUSTER_PENDING_MAX 16384u     /* inputs one node may owe answers for; past it: world_busy */
#define SRV_CLUSTER_SETTLED 4096u          /* inputs answered node_lost here, remembered (a ring) */
#define SRV_CLUSTER_ANSWER_MS 20000u       /* an input its node has not answered by then: node_lost */
#define SRV_CLUSTER_LOST_KEEP_MS 600000u   /* a lost node's worlds are remembered this long (node_lost) */

/* ---- redis.c ------------------------------------------------------------------------------------ */
typedef struct srv_redis srv_redis;
struct redisReply;
/* A command's reply, or r NULL: the connection went before it came. */
typedef void (*srv_redis_cb)(srv *s, const struct redisReply *r, void *ud);
typedef struct srv_redis_events {
    void (*up)(srv *s);                           /* both connections open, Redis answered */
    void (*down)(srv *s, const char *why);        /* lost after being up: reconnecting */
    void (*failed)(srv *s, const char *why);      /* a connect failed (retrying with back-off) */
    void (*message)(srv *s, const char *chan, size_t clen, const uint8_t *p, size_t n);
    void (*subscribed)(srv *s, const char *chan, size_t clen);
    void (*unsubscribed)(srv *s, const char *chan, size_t clen);
} srv_redis_events;
/* redis://HOST:PORT[/] into host and *port: 0, or -1 with one line in err. */
int srv_redis_parse_url(const char *url, char *host, size_t hostlen, int *port, char *err,
                        size_t errlen);
srv_redis *srv_redis_new(srv *s, const char *host, int port, const srv_redis_events *ev);
void srv_redis_start(srv_redis *r);                 /* connect (again, with back-off, until closed) */
int srv_redis_ready(const srv_redis *r);
const char *srv_redis_error(const srv_redis *r);    /* why it is not ready, or "" */
uint64_t srv_redis_failures(const srv_redis *r);    /* connects failed in a row */
size_t srv_redis_queued(const srv_redis *r);        /* bytes of commands not yet written */
/* Queue a command (argv, lens: binary-safe). cb NULL: the reply is discarded. 0, or -1: not
 * ready (nothing queued; a cb is not called). */
int srv_redis_command(srv_redis *r, srv_redis_cb cb, void *ud, int argc, const char **argv,
                      const size_t *lens);
int srv_redis_subscribe(srv_redis *r, const char *chan);     /* 0, or -1: not ready */
int srv_redis_unsubscribe(srv_redis *r, const char *chan);
/* A clean stop: what is queued is written, then both connections close (at most 1 s). */
void srv_redis_close(srv_redis *r);
void srv_redis_free(srv_redis *r);                  /* let go now; the struct goes with its timer */

/* ---- the registry: every member as its registration says ------------------------------------------ */
typedef struct srv_member {
    char name[SRV_CLUSTER_NAME_MAX];
    int relay;                 /* a relay (hosts no world) */
    uint32_t num;              /* a node's world-id space */
    uint64_t boot, beat;
    int starting;              /* a node whose worlds are not in place yet (its "starting") */
    int nworlds;
    char listen[96], http[96];
} srv_member;

/* ---- relay.c: the worlds other members host, as this member serves them -------------------------- */
typedef struct srv_rstream {
    int used;
    srv_stream_key k;          /* as the node's stream: its rect aligned as the node aligns it */
    srv_sub *head;             /* this member's subscribers */
    int nsubs;
    int state;                 /* SRV_RS_…: the Redis subscription to its channel */
    int resub;                 /* a viewer came while unsubscribing: subscribe again after */
    wire_frame_in pic;         /* the picture as the node's messages build it, hash-checked */
    int have;                  /* pic is whole and verified: a local keyframe may be made of it */
    uint64_t asked_key_at;     /* ms: the last want with key (not more than one a second) */
} srv_rstream;
enum { SRV_RS_NONE, SRV_RS_SUBSCRIBING, SRV_RS_LIVE, SRV_RS_UNSUBSCRIBING };

/* An input forwarded to its world's node and not answered yet (relay.c): answered node_lost if the
 * node goes (or restarts, or Redis does) before its ack or error comes back. */
typedef struct srv_pending {
    uint32_t client, seq;
    int request;               /* a play, close, fork or create (no seq): the node's first answer to
                                  the client that is not an ack or a seq'd error is its answer */
    uint64_t id;               /* this member's count of inputs forwarded (PUBLISH's reply finds it) */
    uint64_t sent_at;          /* ms */
    int live;                  /* 0: answered (a hole the ring's head skips) */
} srv_pending;

/* The inputs (and requests) one node owes answers for, in the order they were sent: a ring. */
typedef struct srv_pendq {
    char node[SRV_CLUSTER_NAME_MAX];
    uint64_t boot;             /* the node's registration they went to (0: not read yet) */
    srv_pending *q;
    uint32_t head, n, cap, live;
} srv_pendq;

typedef struct srv_rworld {
    uint32_t id;
    char node[SRV_CLUSTER_NAME_MAX];
    const sim_kind *kind;      /* this build's kind of that name, or NULL (sub is refused) */
    char kind_name[32];
    int w, h;
    uint8_t *entry;            /* its world entry as the node wrote it (welcome lists it) */
    size_t entrylen;
    int present;               /* in the registry now; else its subscribers wait for it */
    uint64_t lost_at;          /* ms: its node left the cluster (kept a while: inputs get node_lost) */
    int seen;                  /* scratch of a registry refresh */
    srv_rstream *streams;      /* nstreams slots (used or free), grown up to SRV_MAX_STREAMS */
    int nstreams;
    int nsubs;
} srv_rworld;

/* ---- the cluster state of one vivd ----------------------------------------------------------------- */
typedef struct srv_cluster {
    srv *s;
    srv_redis *r;
    char redis_host[256];
    int redis_port;
    char name[SRV_CLUSTER_NAME_MAX];
    int relay;                 /* --relay: hosts no world */
    uint32_t num;              /* a node's world-id space: 1 + XXH3(name) mod 32767 */
    uint64_t boot;             /* this process's random nonce (a restart is another member) */
    uint64_t beat;
    uint64_t expiry_ms;
    char listen[96], http[96]; /* what the registration says, for people */
    uv_timer_t beat_timer, kick_timer;
    int timers_open;
    int claimed;               /* the name is ours (and the id space) */
    int stopping;
    int running;               /* srv_cluster_run has been called: every world is in place */
    int dirty;                 /* the world list changed: register at the next kick */
    /* start-up: srv_cluster_start runs the loop until the claim is settled */
    int start_state;           /* SRV_CS_… */
    char start_err[800];
    uint64_t claim_deadline;   /* ms: a stale registration of our name expires by then */
    uint64_t claim_boot, claim_beat;
    int claim_seen;
    /* the registry as last read */
    srv_member members[SRV_CLUSTER_MAX_MEMBERS];
    int nmembers;
    int refreshing, refresh_again;
    uint64_t refresh_started, refreshed_at;
    uint64_t lost_grace_until; /* ms: after Redis came back, nodes are re-registering: no world is
                                * declared lost before then */
    /* relay side */
    srv_rworld **rworlds;
    int nrworlds;
    srv_pendq *pendq;          /* per node: the inputs forwarded there and not answered yet */
    int npendq;
    uint64_t pending_next;
    /* inputs this member answered node_lost itself, the newest SRV_CLUSTER_SETTLED: the node's own
     * late answer to one of them is dropped, so that no input is answered twice */
    struct srv_settled { uint32_t client, seq, node; int request; } *settled;
    uint32_t nsettled;
    /* node side: clients of other members, proxied here (their transport publishes replies) */
    srv_client *proxies;
    srv_client *graveyard;     /* closed proxies, freed at the next kick */
    /* counters (stats, the log, bench/cluster.sh) */
    uint64_t published, publish_bytes, publish_dropped;
    uint64_t relayed, relay_keys, relay_mismatches, relay_nokey;
    uint64_t inputs_lost;      /* inputs answered node_lost */
    uint64_t redis_reconnects, redis_losses, redis_failures;   /* back after an outage; lost; connects failed */
    uint64_t requests_lost;    /* plays, closes, forks and creates answered node_lost */
} srv_cluster;
enum { SRV_CS_CONNECTING, SRV_CS_CLAIMING, SRV_CS_WAITING, SRV_CS_DONE, SRV_CS_FAILED };

/* ---- cluster.c --------------------------------------------------------------------------------------- *
 * The cluster is a layer above the network (network.h): srv_cluster_start installs its hooks
 * (srv_net_hooks), and the network layer calls nothing here by name. */
typedef struct srv_cluster_config {
    const char *url;           /* redis://HOST:PORT */
    const char *name;          /* --node; NULL: HOSTNAME:PORT of --listen */
    int relay;
    uint64_t expiry_ms;
    const char *listen, *http; /* shown in the registration */
} srv_cluster_config;
/* Join the cluster: connect to Redis, claim this member's name (waiting up to one expiry for a
 * stale registration of a killed predecessor to go) and, for a node, its world-id space, so that
 * s->next_world_id starts there. Runs the loop until that is settled; nothing ticks yet. 0, or -1
 * with one line for the user in err (a wrong address, Redis refusing, a name clash). */
int srv_cluster_start(srv *s, const srv_cluster_config *cfg, char *err, size_t errlen);
/* The worlds are in place: register them and start the heartbeat. */
void srv_cluster_run(srv *s);
/* A clean stop: deregister (the worlds leave the registry at once), close Redis (on the loop). */
void srv_cluster_stop(srv *s);
/* This member's name in the cluster (--node, or HOSTNAME:PORT), or NULL without --cluster: a node
 * writes it into every session it records, so that `viv replay collect` names it. */
const char *srv_cluster_node(const srv *s);
/* After the loop: let Redis go and close the timers (the loop then closes them); then free. */
void srv_cluster_close(srv *s);
void srv_cluster_free(srv *s);
int srv_cluster_on(const srv *s);
int srv_cluster_name_ok(const char *name);   /* --node: 1..63 letters, digits and . - _ : */
/* Run the deferred work (srv_relay_kick, freeing proxies) at the next turn of the loop. */
void srv_cluster_kick(srv *s);
/* The world list changed (a create, a close): registered at once. */
void srv_cluster_changed(srv *s);
/* Send `body` (a msgpack map) to member `to` on its channel. 0, or -1: Redis is not reachable. */
int srv_cluster_send(srv *s, const char *to, wire_buf *body);
/* The same, and cb gets PUBLISH's reply (the number of members that received it), or NULL. */
int srv_cluster_send_cb(srv *s, const char *to, wire_buf *body, srv_redis_cb cb, void *ud);
const srv_member *srv_cluster_member(const srv *s, const char *name);
/* The node a create goes to: `want` if given (NULL: the one with the fewest worlds, this one
 * included when it is a node). NULL, with a sentence in err, if there is none. */
const char *srv_cluster_place(srv *s, const char *want, size_t wantlen, char *err, size_t errlen);

/* Node side, from fanout.c: publish one frame message of stream st of w to its channel. 0, or -1
 * (dropped: Redis down or too far behind; the stream's next message must be a keyframe). */
int srv_cluster_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m);
/* Node side, from network.c: w closes; relays watching it are told on its channels. */
void srv_cluster_world_closed(srv *s, srv_world *w);
/* The channel of stream k of world: vivd:frames:WORLD:VIEW:EVERY:DIV[:X:Y:W:H]:ENC. */
void srv_cluster_channel(char *out, size_t cap, uint32_t world, const srv_stream_key *k);
extern const srv_transport srv_transport_proxy;

/* ---- relay.c ----------------------------------------------------------------------------------------- */
srv_rworld *srv_relay_world(srv *s, uint32_t id);          /* NULL: not known */
/* A registry refresh read member `node`'s entries (seen set on each); done: those unseen left. */
void srv_relay_entry(srv *s, const char *node, const uint8_t *entry, size_t len);
void srv_relay_refreshed(srv *s);
/* A `created` reply from node: its world is known at once (before the next registry read). */
void srv_relay_created(srv *s, const char *node, const uint8_t *body, size_t len);
/* A subscriber of this member to a stream of a remote world. */
int srv_relay_attach(srv *s, srv_rworld *rw, srv_sub *sub, const srv_stream_key *k);
void srv_relay_detach(srv *s, srv_sub *sub);
/* Messages on a stream channel, and the subscription's confirmations. */
void srv_relay_message(srv *s, const char *chan, size_t clen, const uint8_t *p, size_t n);
void srv_relay_subscribed(srv *s, const char *chan, size_t clen, int on);
/* Redis is back: subscribe every stream again and ask for keyframes. Down: nothing flows, and
 * every input still owed an answer is answered node_lost (the answer cannot come back). */
void srv_relay_up(srv *s);
void srv_relay_down(srv *s);
/* Every heartbeat: renew the leases of the streams watched here, and ask again for the keyframes
 * still missing. */
void srv_relay_beat(srv *s);
/* Deferred work: subscribe the streams that wait for it. */
void srv_relay_kick(srv *s);
/* The welcome's entries of the worlds of other members, present ones only (srv_net_hooks.entries). */
int srv_relay_entries(srv_client *c, wire_raw **out);
/* A message naming a world another member hosts (srv_net_hooks.route): watched here (sub,
 * unsub) or forwarded to its node. 1: served; 0: the world is hosted here or unknown. */
int srv_relay_route(srv_client *c, int route, const wire_msg *m, const int64_t *seq);
/* A message of client c about a remote world, forwarded as it is to the world's node with c's
 * token; its answers come back through srv_relay_reply. An input (seq given) is owed an answer
 * until its ack or error comes: if it cannot come, the input is answered node_lost. */
void srv_relay_forward(srv_client *c, const char *node, const int64_t *seq);
void srv_relay_reply(srv *s, const char *from, uint32_t client, const uint8_t *body, size_t len);
/* c is going: the nodes it sent messages to let go of their proxies of it. */
void srv_relay_client_gone(srv_client *c);
void srv_relay_free(srv *s);

/* ---- cluster_ops.c: the cluster's part of /metrics and /healthz (docs/OPERATIONS.md) --------------- */
void srv_cluster_metrics(srv *s, FILE *out);               /* srv_net_hooks.metrics */
int srv_cluster_health(srv *s, char *why, size_t cap);     /* srv_net_hooks.health */

#endif
