/* e2e.h — helpers for the end-to-end tests: start a real vivd on 127.0.0.1 with a free port, talk
 * to it, track the frames a connection receives. Shared by tests/check_server.c and
 * tests/check_record.c. */
#ifndef VIVARIUM_E2E_H
#define VIVARIUM_E2E_H
#include <stdint.h>
#include <sys/types.h>
#include "net.h"

#define ADMIN "admin-token-for-tests"
#define PLAYER "player-token-for-tests"

typedef struct acked {
    uint32_t client, seq;
    uint64_t tick;
    sim_input in;
} acked;

typedef struct tracker {
    cli_frame f[16];
    uint64_t last_tick[16];
    int count[16], keys[16];
    uint32_t every[16];
    int gaps;
} tracker;

typedef struct server {
    pid_t pid;
    char addr[64];
    char dir[64];
    char http[64];     /* HOST:PORT of its HTTP and WebSocket port, "" with --no-http */
} server;

double now_s(void);
/* log: E2E_LOG and E2E_OWN_TOKENS of the flags below (1 is E2E_LOG). Unless extra says --http or
 * --no-http, vivd serves HTTP too, on a free port (sv->http), with --web <dir>/web (an
 * index.html) unless extra says --web: every end-to-end test runs beside libwebsockets. */
void server_start_opts(server *sv, const char *const *extra, long fsize, int log);
void server_start(server *sv, const char *const *extra);
int server_stop(server *sv);        /* SIGTERM, wait, remove its directory */
int server_stop_keep(server *sv);   /* SIGTERM, wait; the directory stays */
void server_cleanup(server *sv);
void connect_hello(cli_conn *c, const server *sv, const char *name, const char *token, wire_msg *welcome);
int welcome_worlds(const wire_msg *welcome, uint32_t *ids, char kinds[][16], int max);
void send_msg(cli_conn *c, wire_buf *b);
void sub(cli_conn *c, uint32_t world, uint32_t every, const char *enc, const char *view);
void track_frame(tracker *t, const wire_msg *m);
int recv_until_not_frame(cli_conn *c, tracker *t, wire_msg *m, int timeout_ms);
void put_kv_str(wire_buf *b, const char *k, const char *v);
void expect_error(cli_conn *c, tracker *t, const uint8_t *body, size_t len, const char *code);
void expect_error_msg(cli_conn *c, tracker *t, wire_buf *b, const char *code);
void expect_closed(cli_conn *c);
void send_paint(cli_conn *c, uint32_t seq, int x, int y, int r, int el, acked *log, uint32_t client);
uint32_t welcome_client(const wire_msg *w);
void wait_ack(cli_conn *c, tracker *t, acked *a);
int count_rows(const char *db, const char *sql);

/* ---- the fixture: one vivd and the connections a test opens to it --------------------------------
 * static e2e_fixture fx;                        (static: each peer's tracker holds 16 frames)
 * e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=5:w=64,h=64", NULL }, 0);
 * e2e_peer *v = e2e_hello(&fx, "viewer", NULL, NULL);
 * e2e_sub(v, 1, 1, NULL, NULL);
 * ...
 * ck_assert_int_eq(e2e_fixture_stop(&fx), 0);  (closes every peer, frees its frames) */
#define E2E_PEERS 16
enum {
    E2E_LOG = 1,                       /* vivd's stderr goes to <dir>/vivd.log */
    E2E_VERBOSE = 2,                   /* vivd --verbose (with E2E_LOG: every connection logged) */
    E2E_NO_RECORD = 4,                 /* vivd --no-record */
    E2E_OWN_TOKENS = 8                 /* no --admin-token/--player-token: vivd's own (FILE.tokens) */
};

typedef struct e2e_peer {
    cli_conn c;
    tracker t;                         /* the frames this connection received */
    uint32_t client;                   /* the welcome's client id */
    int open;
} e2e_peer;

/* The peers live on the heap (E2E_PEERS of them, from start to stop), not in the fixture: the
 * tests keep their fixtures in static storage, which LeakSanitizer reads through at the exit of
 * every forked test, and 16 peers are 236 KB. */
typedef struct e2e_fixture {
    server sv;
    e2e_peer *peer;
    int npeers;
} e2e_fixture;

/* Start vivd hosting `worlds` (world specs, each passed as --world SPEC; NULL or empty: the demo
 * set), then `args` (more vivd arguments, NULL-terminated, or NULL). fsize > 0 limits the size of
 * the files it may write, as server_start_opts. Clears fx first. */
void e2e_fixture_start_args(e2e_fixture *fx, const char *const *worlds, const char *const *args,
                            long fsize, int flags);
void e2e_fixture_start(e2e_fixture *fx, const char *const *worlds, int flags);
/* Connect and hello (token NULL: a viewer); the welcome in *welcome if not NULL (valid until the
 * peer's next receive). The peer belongs to fx. */
e2e_peer *e2e_hello(e2e_fixture *fx, const char *name, const char *token, wire_msg *welcome);
/* Subscribe p to a world; the tracker learns `every`, so gaps count in steps of it. */
void e2e_sub(e2e_peer *p, uint32_t world, uint32_t every, const char *enc, const char *view);
void e2e_close(e2e_peer *p);         /* close one connection now (its frames stay until stop) */
/* Close every peer, free its frames, stop vivd (SIGTERM) and remove its directory; returns
 * vivd's exit status as server_stop. _keep leaves the directory (server_cleanup removes it). */
int e2e_fixture_stop(e2e_fixture *fx);
int e2e_fixture_stop_keep(e2e_fixture *fx);
int file_contains(const char *path, const char *needle);
int file_count(const char *path, const char *needle);      /* lines that contain needle */
long rss_kb(pid_t pid);
int open_fds(pid_t pid);             /* the descriptors a process holds, or -1 */
/* Connect to sv with a small receive buffer set before the handshake, so the window it
 * advertises is small from the start (set afterwards, the window scale is already fixed for a
 * large buffer): what the server writes stays with the server rather than in the kernel. */
void connect_small_rcvbuf(cli_conn *c, const server *sv, int rcvbuf);
/* Ask for stats on c and wait for the reply, in *m (frames that arrive first go to t). */
void stats_ask(cli_conn *c, tracker *t, wire_msg *m);
/* The entries of a stats reply's "worlds" array (at most max), decoded into out; their count. */
int stats_worlds(const wire_msg *stats, wire_msg *out, int max);
/* Frames the server dropped over the soft limit, and ticks its worlds skipped, since it started. */
void stats_losses(cli_conn *c, tracker *t, uint64_t *dropped, uint64_t *skipped);

#endif
