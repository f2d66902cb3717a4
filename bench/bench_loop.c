/* bench_loop.c — nothing slow on the loop (issue 17): a running vivd's world 1 streams to this
 * client while it creates and closes worlds as an admin, and vivd's own lateness figures for
 * world 1 (its `stats`) are read before and after. bench/loop.sh starts vivd and runs this twice:
 * once with creates, once without (the control, the same length).
 *
 *   bench_loop HOST:PORT ADMIN_TOKEN CREATES KIND PARAMS
 *       CREATES worlds of KIND with PARAMS, one after another (each closed once created; 0: only
 *       stream for as long as bench_loop_control_s says)
 *
 * Prints one line of key=value pairs: the creates' time from send to `created` (client side:
 * min/median/max ms), world 1's ticks in the window, and its lateness p50/p99/max (µs), overruns
 * and skipped, from vivd's stats (cumulative since vivd started; a fresh vivd per run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "net.h"

typedef struct wstats {
    uint64_t ticks, p50, p99, max, overruns, skipped;
} wstats;

static void die(const char *what, const char *err)
{
    fprintf(stderr, "bench_loop: %s: %s\n", what, err);
    exit(1);
}

static void send_buf(cli_conn *c, wire_buf *b)
{
    if (b->oom || cli_send(c, b) != 0) die("send", "the connection failed");
    wire_buf_reset(b);
}

/* Receive until a message that is not a frame (returned in *m); frames of world 1 are counted. */
static void recv_reply(cli_conn *c, wire_msg *m, uint64_t *frames)
{
    char err[256];
    for (;;) {
        int rc = cli_recv_msg(c, 60000, m, err, sizeof err);
        if (rc < 0) die("receive", err);
        if (rc == 0) die("receive", "no answer within 60 s");
        if (!cli_msg_is(m, "frame")) return;
        (*frames)++;
    }
}

static void get_stats(cli_conn *c, uint64_t *frames, wstats *out)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_bare(&b, "stats");
    send_buf(c, &b);
    wire_buf_free(&b);
    wire_msg m;
    recv_reply(c, &m, frames);
    if (!cli_msg_is(&m, "stats")) die("stats", "the answer is not stats");
    const wire_val *ws = wire_msg_get(&m, "worlds");
    if (!ws || ws->type != WIRE_ARRAY) die("stats", "no worlds");
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val v;
        wire_msg wm;
        uint64_t id;
        if (wire_next(&it, end, &v) != 0 || wire_msg_decode(v.raw, v.rawlen, &wm) != 0) die("stats", "bad entry");
        if (wire_get_u64(&wm, "id", &id) != 0 || id != 1) continue;
        if (wire_get_u64(&wm, "ticks", &out->ticks) || wire_get_u64(&wm, "late_p50_us", &out->p50) ||
            wire_get_u64(&wm, "late_p99_us", &out->p99) || wire_get_u64(&wm, "late_max_us", &out->max) ||
            wire_get_u64(&wm, "overruns", &out->overruns) || wire_get_u64(&wm, "skipped", &out->skipped))
            die("stats", "a field is missing");
        return;
    }
    die("stats", "no world 1");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: bench_loop HOST:PORT ADMIN_TOKEN CREATES KIND PARAMS\n");
        return 2;
    }
    int n = atoi(argv[3]);
    double control_s = n > 0 ? 0 : atof(getenv("BENCH_LOOP_SECONDS") ? getenv("BENCH_LOOP_SECONDS") : "5");
    char err[256];
    cli_conn c;
    wire_msg m;
    if (cli_connect(&c, argv[1], err, sizeof err) != 0) die("connect", err);
    if (cli_hello(&c, "bench-loop", argv[2], &m, err, sizeof err) != 0) die("hello", err);
    wire_buf b;
    wire_buf_init(&b);
    cli_put_sub(&b, 1, 1, NULL, NULL);
    send_buf(&c, &b);
    uint64_t frames = 0;
    /* A second of streaming first: vivd settles. */
    double t0 = bench_now();
    while (bench_now() - t0 < 1.0) {
        int rc = cli_recv_msg(&c, 100, &m, err, sizeof err);
        if (rc < 0) die("receive", err);
        if (rc == 1 && cli_msg_is(&m, "frame")) frames++;
    }
    wstats before, after;
    get_stats(&c, &frames, &before);
    double *took = calloc((size_t)(n > 0 ? n : 1), sizeof *took);
    double w0 = bench_now();
    for (int i = 0; i < n; i++) {
        double s = bench_now();
        wire_msg_begin(&b);
        wire_put_map(&b, 3);
        wire_put_str(&b, "t"); wire_put_str(&b, "create");
        wire_put_str(&b, "kind"); wire_put_str(&b, argv[4]);
        wire_put_str(&b, "params"); wire_put_str(&b, argv[5]);
        wire_msg_end(&b);
        send_buf(&c, &b);
        recv_reply(&c, &m, &frames);
        if (!cli_msg_is(&m, "created")) die("create", "the answer is not created");
        took[i] = (bench_now() - s) * 1000.0;
        const wire_val *wv = wire_msg_get(&m, "world");
        wire_msg wm;
        uint64_t id;
        if (!wv || wire_msg_decode(wv->raw, wv->rawlen, &wm) != 0 || wire_get_u64(&wm, "id", &id) != 0)
            die("create", "no world id");
        wire_msg_begin(&b);
        wire_put_map(&b, 2);
        wire_put_str(&b, "t"); wire_put_str(&b, "close");
        wire_put_str(&b, "world"); wire_put_uint(&b, id);
        wire_msg_end(&b);
        send_buf(&c, &b);
        recv_reply(&c, &m, &frames);
        if (!cli_msg_is(&m, "closed")) die("close", "the answer is not closed");
    }
    while (bench_now() - w0 < control_s) {
        int rc = cli_recv_msg(&c, 100, &m, err, sizeof err);
        if (rc < 0) die("receive", err);
        if (rc == 1 && cli_msg_is(&m, "frame")) frames++;
    }
    double window = bench_now() - w0;
    get_stats(&c, &frames, &after);
    qsort(took, (size_t)n, sizeof *took, cmp_double);
    printf("creates=%d window_s=%.2f create_ms_min=%.1f create_ms_median=%.1f create_ms_max=%.1f "
           "ticks=%llu late_p50_us=%llu late_p99_us=%llu late_max_us=%llu overruns=%llu skipped=%llu "
           "frames=%llu\n", n, window, n ? took[0] : 0.0, n ? took[n / 2] : 0.0, n ? took[n - 1] : 0.0,
           (unsigned long long)(after.ticks - before.ticks), (unsigned long long)after.p50,
           (unsigned long long)after.p99, (unsigned long long)after.max,
           (unsigned long long)(after.overruns - before.overruns),
           (unsigned long long)(after.skipped - before.skipped), (unsigned long long)frames);
    free(took);
    wire_buf_free(&b);
    cli_close(&c);
    return 0;
}
