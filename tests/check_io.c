/* check_io.c — the I/O threads (server/io.c, and their side of server/tcp.c), against a real vivd
 * with --io-threads 2 on 127.0.0.1: a client's messages arrive complete and in order while its
 * connection moves from the loop to a thread (with bytes the loop still held, and messages sent
 * meanwhile); connections closed during writes — by the client (FIN or RST) or by vivd (the hard
 * limit) — leave no trace, and a viewer beside them misses nothing. Run under the sanitizer and
 * ThreadSanitizer builds too: vivd's exit status carries LeakSanitizer's verdict. */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "check_suites.h"
#include "e2e.h"

#define PAYLOAD 60000              /* a ping's n: a 60 KB bin, echoed in its pong */

static void fill(uint8_t *p, uint32_t i)
{
    for (size_t j = 0; j < PAYLOAD; j++) p[j] = (uint8_t)(i * 31u + j * 7u + (j >> 8));
    p[0] = (uint8_t)(i >> 24); p[1] = (uint8_t)(i >> 16); p[2] = (uint8_t)(i >> 8); p[3] = (uint8_t)i;
}

/* A ping whose n is ping i's payload. Sent whole: a failure (vivd closed the connection) returns
 * -1 when tolerated. */
static int send_ping(cli_conn *c, uint32_t i, int tolerate)
{
    static uint8_t payload[PAYLOAD];
    fill(payload, i);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 2);
    put_kv_str(&b, "t", "ping");
    wire_put_str(&b, "n");
    wire_put_bin(&b, payload, PAYLOAD);
    wire_msg_end(&b);
    ck_assert(!b.oom);
    size_t off = 0;
    while (off < b.len) {
        ssize_t w = send(c->fd, b.p + off, b.len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ck_assert_msg(tolerate, "send: %s", strerror(errno));
            wire_buf_free(&b);
            return -1;
        }
        off += (size_t)w;
    }
    wire_buf_free(&b);
    return 0;
}

/* The pong of ping i: its n byte for byte. */
static void check_pong(const wire_msg *m, uint32_t i)
{
    static uint8_t want[PAYLOAD];
    const wire_val *n = wire_msg_get(m, "n");
    ck_assert_ptr_nonnull(n);
    ck_assert_int_eq(n->type, WIRE_BIN);
    ck_assert_uint_eq(n->n, PAYLOAD);
    uint32_t got = (uint32_t)n->p[0] << 24 | (uint32_t)n->p[1] << 16 | (uint32_t)n->p[2] << 8 | n->p[3];
    ck_assert_msg(got == i, "pong %u arrived where pong %u was due", got, i);
    fill(want, i);
    ck_assert_msg(memcmp(n->p, want, PAYLOAD) == 0, "pong %u is not its ping's payload", i);
}

static void send_bytes(cli_conn *c, wire_buf *b)
{
    ck_assert(!b->oom);
    ck_assert_int_eq(send(c->fd, b->p, b->len, MSG_NOSIGNAL), (ssize_t)b->len);
    wire_buf_reset(b);
}

/* The number in the log line "... (N message(s) held while moving)", the largest seen; -1: none. */
static long held_while_moving(const char *log)
{
    FILE *fp = fopen(log, "r");
    if (!fp) return -1;
    char line[1024];
    long best = -1;
    while (fgets(line, sizeof line, fp)) {
        char *p = strstr(line, " message(s) held while moving");
        if (!p) continue;
        char *q = p;
        while (q > line && q[-1] >= '0' && q[-1] <= '9') q--;
        long v = strtol(q, NULL, 10);
        if (v > best) best = v;
    }
    fclose(fp);
    return best;
}


/* A field of a stats reply asked for on p. */
static uint64_t stats_field(e2e_peer *p, const char *field)
{
    wire_msg m;
    stats_ask(&p->c, &p->t, &m);
    uint64_t n;
    ck_assert_int_eq(wire_get_u64(&m, field, &n), 0);
    return n;
}

static uint64_t stats_clients(e2e_peer *p) { return stats_field(p, "clients"); }
static uint64_t stats_queued_max(e2e_peer *p) { return stats_field(p, "queued_max"); }

/* A client's connection moves from the loop to an I/O thread when it subscribes. Here the loop
 * still holds over 300 KB of pongs for it then (it has not read; the kernel took what it would),
 * so the move waits for them to be written, and the pongs and frames sent meanwhile wait with it. Read
 * afterwards, every pong arrives whole and in order, before and after the move, and the frames
 * rebuild (each checked against its hash), starting from a keyframe. */
START_TEST(messages_keep_their_order_across_a_move)
{
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=6:w=96,h=64,scene=bench", NULL },
                           (const char *const[]){ "--io-threads", "2", NULL }, 0, E2E_LOG | E2E_VERBOSE);
    cli_conn c;
    connect_small_rcvbuf(&c, &fx.sv, 4096);
    char err[256];
    wire_msg m;
    ck_assert_msg(cli_hello(&c, "mover", NULL, &m, err, sizeof err) == 0, "%s", err);
    /* Pings until the loop holds over 300 KB of pongs the kernel would not take (the kernel's
     * share depends on the machine: ask vivd, on another connection). */
    e2e_peer *ctl = e2e_hello(&fx, "control", NULL, NULL);
    uint32_t before = 0;
    const uint32_t after = 15;
    uint64_t held = 0;
    while (held < 300 * 1024) {
        ck_assert_msg(before < 150, "vivd holds only %llu bytes after %u pongs of 60 KB",
                      (unsigned long long)held, before);
        for (int k = 0; k < 5; k++) send_ping(&c, before++, 0);
        usleep(50000);
        held = stats_queued_max(ctl);
    }
    wire_buf b;
    wire_buf_init(&b);
    cli_put_sub(&b, 1, 1, NULL, NULL);
    send_bytes(&c, &b);
    for (uint32_t i = before; i < before + after; i++) send_ping(&c, i, 0);
    usleep(200000);
    static tracker t;
    memset(&t, 0, sizeof t);
    uint32_t next = 0;
    double t0 = now_s();
    while (next < before + after || t.count[1] < 60) {
        ck_assert_msg(now_s() - t0 < 30, "pong %u or frame %d did not come within 30 s", next, t.count[1]);
        int rc = recv_until_not_frame(&c, &t, &m, 200);
        if (!rc) continue;
        ck_assert_msg(cli_msg_is(&m, "pong"), "expected pong %u", next);
        ck_assert_uint_lt(next, before + after);
        check_pong(&m, next);
        /* The frames come after the sub, so none before the pongs sent ahead of it. */
        if (next < before) ck_assert_int_eq(t.count[1], 0);
        next++;
    }
    ck_assert_int_ge(t.keys[1], 1);
    cli_frame_free(&t.f[1]);
    wire_buf_free(&b);
    cli_close(&c);
    char log[128];
    snprintf(log, sizeof log, "%s/vivd.log", fx.sv.dir);
    ck_assert_int_eq(e2e_fixture_stop_keep(&fx), 0);
    /* It did move, and while moving: the loop still held bytes, and messages waited. */
    ck_assert_msg(file_contains(log, "once the loop has written the"), "the move did not wait for the loop's queue");
    long waited = held_while_moving(log);
    ck_assert_msg(waited > 0, "no message waited for the move (%ld)", waited);
    server_cleanup(&fx.sv);
}
END_TEST

/* Read what is there without waiting; 1 when the connection has ended. */
static int drain(int fd)
{
    static uint8_t sink[65536];
    for (;;) {
        ssize_t k = recv(fd, sink, sizeof sink, MSG_DONTWAIT);
        if (k > 0) continue;
        if (k == 0) return 1;
        return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    }
}

/* Rounds of raw viewers on two I/O threads, whose sockets the threads are writing (57.6 KB a
 * frame into small windows) when they go: a third close with RST, a third with FIN, and a third
 * send pings whose pongs they never read until vivd drops them at the hard limit (4 MiB), with
 * megabytes still queued on their thread. A
 * viewer beside them keeps every frame; afterwards vivd holds no client and no descriptor more
 * than before, and exits 0 (under the sanitizers: nothing leaked, no race). */
START_TEST(connections_closed_during_writes_leave_no_trace)
{
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=4", NULL },
                           (const char *const[]){ "--io-threads", "2", NULL }, 0, E2E_LOG | E2E_VERBOSE);
    e2e_peer *good = e2e_hello(&fx, "good", NULL, NULL);
    e2e_sub(good, 1, 1, NULL, NULL);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 500), 0);
    ck_assert_uint_eq(stats_clients(good), 1);
    int fd0 = open_fds(fx.sv.pid);
    ck_assert_int_gt(fd0, 0);
    enum { ROUNDS = 3, PER = 9 };
    int floods_dropped = 0;
    for (int round = 0; round < ROUNDS; round++) {
        cli_conn cs[PER];
        wire_buf b;
        wire_buf_init(&b);
        char err[256];
        for (int i = 0; i < PER; i++) {
            connect_small_rcvbuf(&cs[i], &fx.sv, 4096);
            ck_assert_msg(cli_hello(&cs[i], "churn", NULL, &m, err, sizeof err) == 0, "%s", err);
            cli_put_sub(&b, 1, 1, "raw", NULL);
            send_bytes(&cs[i], &b);
        }
        /* Let the threads fill their windows, reading a little from some. */
        double t0 = now_s();
        while (now_s() - t0 < 0.3) {
            ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 20), 0);
            for (int i = 0; i < PER; i += 2) drain(cs[i].fd);
        }
        /* The floods: 170 pongs of 60 KB (10 MB: the kernel takes up to 4 MB of a connection's
         * output on loopback, then vivd holds the rest) on top of the frames, never read. */
        for (int i = 2; i < PER; i += 3)
            for (uint32_t k = 0; k < 170; k++)
                if (send_ping(&cs[i], k, 1) != 0) break;
        for (int i = 0; i < PER; i++) {
            if (i % 3 == 0) {
                struct linger lg = { 1, 0 };        /* RST, with the threads mid-write */
                setsockopt(cs[i].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
                cli_close(&cs[i]);
            } else if (i % 3 == 1) {
                cli_close(&cs[i]);
            }
        }
        /* The flooders are dropped by vivd: only `good` is left. Nothing is read from a flooder
         * until then: reading would take what vivd holds for it and keep it under the limit (on a
         * loaded machine vivd may still be answering the last pings when the wait begins). */
        t0 = now_s();
        while (stats_clients(good) != 1) {
            ck_assert_msg(now_s() - t0 < 20, "vivd did not drop a client over the hard limit");
            ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 50), 0);
        }
        /* ... and their connections end, once what the kernel still holds for them is read. */
        for (int i = 2; i < PER; i += 3) {
            t0 = now_s();
            while (!drain(cs[i].fd)) {
                ck_assert_msg(now_s() - t0 < 20, "a flooder's connection did not end after vivd dropped it");
                ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 10), 0);
            }
            floods_dropped++;
            cli_close(&cs[i]);
        }
        wire_buf_free(&b);
    }
    ck_assert_int_eq(floods_dropped, ROUNDS * (PER / 3));
    /* Every one of them is gone from vivd, descriptors and all. */
    uint64_t n = 0;
    for (int i = 0; i < 100 && (n = stats_clients(good)) != 1; i++)
        ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 100), 0);
    ck_assert_uint_eq(n, 1);
    /* An I/O thread closes its descriptors a moment after the loop lets a client go: up to 5 s. */
    int fd1 = open_fds(fx.sv.pid);
    for (int i = 0; i < 50 && fd1 > fd0; i++) {
        ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 100), 0);
        fd1 = open_fds(fx.sv.pid);
    }
    ck_assert_msg(fd1 <= fd0, "vivd holds %d descriptors after the rounds, %d before", fd1, fd0);
    ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 200), 0);
    if (good->t.gaps) {         /* only where the server says it skipped (a loaded machine) */
        uint64_t dropped, skipped;
        stats_losses(&good->c, &good->t, &dropped, &skipped);
        ck_assert_uint_le((uint64_t)good->t.gaps, dropped + skipped);
    }
    ck_assert_int_gt(good->t.count[1], 60);
    char log[128];
    snprintf(log, sizeof log, "%s/vivd.log", fx.sv.dir);
    ck_assert_int_eq(e2e_fixture_stop_keep(&fx), 0);
    int at_limit = file_count(log, "closed: output over the hard limit");
    ck_assert_msg(at_limit >= ROUNDS * (PER / 3), "%d clients were dropped at the hard limit, fewer than "
                  "the %d flooders", at_limit, ROUNDS * (PER / 3));
    server_cleanup(&fx.sv);
}
END_TEST

Suite *suite_io(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, messages_keep_their_order_across_a_move);
    tcase_add_test(tc, connections_closed_during_writes_leave_no_trace);
    suite_add_tcase(s, tc);
    return s;
}
