/* bench_fanout.c — the tick of a big world watched through a crowd of rects, without the network
 * (issue 30): vivd's own fan-out code (srv_fanout_tick: the crowd pass that renders, hashes the
 * state and encodes the changed tiles, then each rect's message with its frame hash, on the pool)
 * for VIEWERS viewers on random 320×180 rects of a 2048×1024 sand demo, placed as `viv bot --rect`
 * places them (splitmix64 of the viewer's number, widened to the 64-pixel region grid, viewers on
 * the same rect sharing its stream).
 *
 * In bench/rects.sh the same tick shares the two CPUs with vivd's I/O thread and the bot, and its
 * time says as much about them as about the fan-out. Here nothing else runs: the messages are
 * published as to a cluster's relays (the path every stream's message takes, built alike), into a
 * hook that counts them and their bytes. Each configuration is a fresh server: WARM ticks unmeasured,
 * then TICKS ticks, each timed in two parts, the step (sim_world_step) and the fan-out.
 *
 *   bench_fanout [--quick] [--viewers N] [--workers LIST]
 *     --quick      60 + 240 ticks (default 120 + 900)
 *     --viewers N  the number of viewers (default 1000)
 *     --workers L  worker counts to run, comma-separated (default 1,2)
 * Prints a Markdown table: per worker count, the step's and the fan-out's p50 / p99 / max in ms,
 * the tick's (both) p50 / p99, messages a tick and bytes a message; then each worker count's
 * fan-out p50 against one worker's. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "network.h"
#include "pool.h"

/* The messages published, counted, and those of the last tick held until the next tick's are
 * built, as vivd's output queues hold them until the I/O thread has written them: released at
 * once, a tick's 2 MB of messages went back to the heap's top, glibc gave the pages back, and
 * the next tick faulted them in again (3–4× the fan-out's time on one worker; vivd itself takes
 * about 260 minor faults a second under 1,000 rect viewers). */
typedef struct counted {
    uint64_t msgs, bytes;
    srv_msg **held;
    int nheld, cap;
} counted;

static int count_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m)
{
    (void)w;
    (void)st;
    counted *c = s->net->hooks.ud;
    c->msgs++;
    c->bytes += SRV_MSG_BODYLEN(m);
    if (c->nheld == c->cap) {
        int n = c->cap ? c->cap * 2 : 1024;
        srv_msg **p = realloc(c->held, (size_t)n * sizeof *p);
        if (!p) return -1;
        c->held = p;
        c->cap = n;
    }
    srv_msg_ref(m);
    c->held[c->nheld++] = m;
    return 0;
}

/* The first `upto` held messages released; the rest (this tick's) moved to the front. */
static void release(counted *c, int upto)
{
    for (int i = 0; i < upto; i++) srv_msg_unref(c->held[i]);
    memmove(c->held, c->held + upto, (size_t)(c->nheld - upto) * sizeof *c->held);
    c->nheld -= upto;
}

/* Viewer idx's rect in a fw × fh world, as viv bot --rect draws it (clients/bot_roles.c). */
static void viewer_rect(int idx, int fw, int fh, int rw, int rh, srv_stream_key *k)
{
    uint64_t z = (uint64_t)idx * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    k->rx = (int)((z & 0xffffffffu) % (uint64_t)(fw - rw + 1));
    k->ry = (int)((z >> 32) % (uint64_t)(fh - rh + 1));
    k->rw = rw;
    k->rh = rh;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(double *v, int n, int p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = (int)((double)n * p / 100.0);
    return v[i < n ? i : n - 1];
}

typedef struct result {
    double step50, step99, stepmax, fan50, fan99, fanmax, tick50, tick99;
    double msgs, bytes;
    int streams;
} result;

static result run(int workers, int viewers, int warm, int ticks)
{
    uv_loop_t loop;
    srv s;
    srv_net net;
    memset(&loop, 0, sizeof loop);
    memset(&s, 0, sizeof s);
    memset(&net, 0, sizeof net);
    if (uv_loop_init(&loop) != 0) {
        fprintf(stderr, "bench_fanout: uv_loop_init failed\n");
        exit(1);
    }
    s.loop = &loop;
    s.cfg.log_level = SRV_LOG_ERROR;
    s.next_world_id = 1;
    char err[256] = "";
    if (workers > 1 && pool_create(workers, &s.pool, err, sizeof err) != 0) {
        fprintf(stderr, "bench_fanout: a pool of %d: %s\n", workers, err);
        exit(1);
    }
    if (srv_net_init(&s, &net) != 0) {
        fprintf(stderr, "bench_fanout: srv_net_init failed\n");
        exit(1);
    }
    int id = srv_world_add(&s, "sand", 1, "w=2048,h=1024,scene=demo", err, sizeof err);
    if (id <= 0) {
        fprintf(stderr, "bench_fanout: the world: %s\n", err);
        exit(1);
    }
    srv_world *w = srv_world_find(&s, (uint32_t)id);
    counted c = { 0, 0, NULL, 0, 0 };
    net.hooks.ud = &c;
    net.hooks.publish = count_publish;
    int streams = 0;
    for (int v = 0; v < viewers; v++) {
        srv_stream_key k = { .view = 0, .every = 1, .div = 1, .enc = SRV_ENC_TILEZ };
        viewer_rect(v, 2048, 1024, 320, 180, &k);
        srv_rect_align(&k, 2048, 1024);
        int st = srv_stream_find(w, &k);
        if (st < 0) {
            fprintf(stderr, "bench_fanout: no stream for viewer %d\n", v);
            exit(1);
        }
        if (w->fan->streams[st].remote_until != UINT64_MAX) {
            w->fan->streams[st].remote_until = UINT64_MAX;
            w->fan->nremote++;
            streams++;
        }
    }
    double *step = malloc((size_t)ticks * sizeof *step), *fan = malloc((size_t)ticks * sizeof *fan),
           *tick = malloc((size_t)ticks * sizeof *tick);
    if (!step || !fan || !tick) {
        fprintf(stderr, "bench_fanout: out of memory\n");
        exit(1);
    }
    uint64_t msgs0 = 0, bytes0 = 0;
    for (int t = 0; t < warm + ticks; t++) {
        if (t == warm) {
            msgs0 = c.msgs;
            bytes0 = c.bytes;
        }
        int last = c.nheld;
        double t0 = bench_now();
        sim_world_step(w->w);
        double t1 = bench_now();
        srv_fanout_tick(&s, w);
        double t2 = bench_now();
        release(&c, last);
        if (t >= warm) {
            step[t - warm] = (t1 - t0) * 1e3;
            fan[t - warm] = (t2 - t1) * 1e3;
            tick[t - warm] = (t2 - t0) * 1e3;
        }
    }
    result r;
    r.streams = streams;
    r.msgs = (double)(c.msgs - msgs0) / ticks;
    r.bytes = c.msgs > msgs0 ? (double)(c.bytes - bytes0) / (double)(c.msgs - msgs0) : 0;
    r.step50 = pct(step, ticks, 50);
    r.step99 = pct(step, ticks, 99);
    r.stepmax = step[ticks - 1];
    r.fan50 = pct(fan, ticks, 50);
    r.fan99 = pct(fan, ticks, 99);
    r.fanmax = fan[ticks - 1];
    r.tick50 = pct(tick, ticks, 50);
    r.tick99 = pct(tick, ticks, 99);
    free(step);
    free(fan);
    free(tick);
    release(&c, c.nheld);
    free(c.held);
    net.hooks.publish = NULL;
    for (int i = 0; i < w->fan->nstreams; i++) w->fan->streams[i].remote_until = 0;
    w->fan->nremote = 0;
    srv_net_free(&s);
    for (int i = 0; i < s.nworlds; i++) srv_world_free(s.worlds[i]);
    pool_destroy(s.pool);
    uv_loop_close(&loop);
    return r;
}

int main(int argc, char **argv)
{
    int warm = 120, ticks = 900, viewers = 1000;
    const char *list = "1,2";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            warm = 60;
            ticks = 240;
        } else if (strcmp(argv[i], "--viewers") == 0 && i + 1 < argc) {
            viewers = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--workers") == 0 && i + 1 < argc) {
            list = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_fanout [--quick] [--viewers N] [--workers LIST]\n"
                            "  the tick of a 2048x1024 sand demo watched through N random 320x180 rects\n"
                            "  (default 1000), vivd's fan-out without the network, on each worker count\n"
                            "  of LIST (default 1,2)\n");
            return 2;
        }
    }
    if (viewers < 1 || viewers > 100000) {
        fprintf(stderr, "bench_fanout: --viewers must be 1..100000\n");
        return 2;
    }
    printf("%d viewers on random 320x180 rects of a 2048x1024 sand demo (seed 1), %d ticks after %d "
           "unmeasured; ms a tick.\n\n", viewers, ticks, warm);
    printf("| workers | streams | step p50 / p99 / max | fan-out p50 / p99 / max | tick p50 / p99 | "
           "messages a tick | bytes a message |\n|---:|---:|---|---|---|---:|---:|\n");
    double fan1 = 0;
    char *copy = strdup(list);
    if (!copy) return 1;
    int first = 1;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        int nw = atoi(tok);
        if (nw < 1 || nw > 64) {
            fprintf(stderr, "bench_fanout: a worker count must be 1..64 (got \"%s\")\n", tok);
            free(copy);
            return 2;
        }
        result r = run(nw, viewers, warm, ticks);
        printf("| %d | %d | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.2f / %.2f | %.0f | %.0f |\n", nw,
               r.streams, r.step50, r.step99, r.stepmax, r.fan50, r.fan99, r.fanmax, r.tick50, r.tick99,
               r.msgs, r.bytes);
        if (first) fan1 = r.fan50;
        else if (fan1 > 0 && r.fan50 > 0)
            printf("|  | fan-out p50, first row / this | %.2f× |  |  |  |  |\n", fan1 / r.fan50);
        first = 0;
        fflush(stdout);
    }
    free(copy);
    return 0;
}
