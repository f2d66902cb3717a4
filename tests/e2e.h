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
} server;

double now_s(void);
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
int file_contains(const char *path, const char *needle);
long rss_kb(pid_t pid);

#endif
