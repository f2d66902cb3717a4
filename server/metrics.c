/* metrics.c — the operator's endpoints on the HTTP port (docs/OPERATIONS.md): GET /metrics, every
 * counter in the Prometheus text format (version 0.0.4), and GET /healthz, 200 or 503 with one
 * line. The tick loop only increments plain counters in the structs that already exist (sched.c,
 * acks.c, fanout.c, client.c, proto.c); the text is built here, on the loop, when a request asks
 * for it. The recorder's counters live with its thread and are copied under its lock
 * (health.c); the cluster's come through its hook (srv_net_hooks.metrics). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "network.h"

#define OPS_WHY_MAX 512

static const char *const tr_names[SRV_TR_N] = { "tcp", "websocket", "proxy" };
static const char *const drop_names[SRV_DROP_N] = { "hard_limit", "stall", "bad_message", "timeout",
                                                    "server_full" };
/* The tick time histograms' `le` bounds (lateness and work), in their own 0.1 ms buckets (host.h,
 * SRV_LAT_BUCKETS): 0.1 ms to 100 ms, 1-2-5 apart. */
static const int lat_edges[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 };
_Static_assert(1000 < SRV_LAT_BUCKETS, "the last edge is a bucket of the histogram");

static void family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- per world -------------------------------------------------------------------------------------- */
static void world_labels(char *out, size_t cap, const srv_world *w)
{
    snprintf(out, cap, "world=\"%u\",kind=\"%s\"", w->id, w->kind->name);   /* kind names are [a-z] */
}

/* One world's samples of the histogram family `name`, from h. */
static void world_times(FILE *out, const char *name, const srv_world *w, const srv_time_hist *h)
{
    char l[96];
    world_labels(l, sizeof l, w);
    uint64_t cum = 0;
    int b = 0;
    for (size_t e = 0; e < sizeof lat_edges / sizeof lat_edges[0]; e++) {
        for (; b < lat_edges[e]; b++) cum += h->b[b];   /* times below the edge */
        fprintf(out, "%s_bucket{%s,le=\"%g\"} %" PRIu64 "\n", name, l, lat_edges[e] * 1e-4, cum);
    }
    fprintf(out, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n%s_sum{%s} %.6f\n%s_count{%s} %" PRIu64 "\n",
            name, l, h->count, name, l, (double)h->sum_us / 1e6, name, l, h->count);
}

/* One sample per world of the value `get` reads. */
typedef uint64_t (*world_get)(const srv_world *w);
static void world_family(FILE *out, srv *s, const char *name, const char *type, const char *help,
                         world_get get)
{
    family(out, name, type, help);
    for (int i = 0; i < s->nworlds; i++) {
        char l[96];
        world_labels(l, sizeof l, s->worlds[i]);
        fprintf(out, "%s{%s} %" PRIu64 "\n", name, l, get(s->worlds[i]));
    }
}

static uint64_t get_ticks(const srv_world *w) { return (uint64_t)w->stats.ticks; }
static uint64_t get_tick(const srv_world *w) { return (uint64_t)srv_world_tick(w); }
static uint64_t get_overruns(const srv_world *w) { return (uint64_t)w->stats.overruns; }
static uint64_t get_skipped(const srv_world *w) { return (uint64_t)w->stats.skipped; }
static uint64_t get_subs(const srv_world *w) { return (uint64_t)srv_fanout_subs(w); }
static uint64_t get_frames(const srv_world *w) { return (uint64_t)w->netc.frames_sent; }
static uint64_t get_bytes(const srv_world *w) { return (uint64_t)w->netc.bytes_sent; }
static uint64_t get_acked(const srv_world *w) { return (uint64_t)w->acks.acked; }
static uint64_t get_refused(const srv_world *w)
{
    return w->netc.inputs_refused + w->acks.refused;
}

static void worlds_text(FILE *out, srv *s)
{
    family(out, "vivd_worlds", "gauge", "Worlds hosted here (live and recordings played back).");
    fprintf(out, "vivd_worlds %d\n", s->nworlds);
    family(out, "vivd_world_tick_lateness_seconds", "histogram",
           "How late each tick started after its deadline (0.1 ms resolution).");
    for (int i = 0; i < s->nworlds; i++)
        world_times(out, "vivd_world_tick_lateness_seconds", s->worlds[i], &s->worlds[i]->stats.late);
    family(out, "vivd_world_tick_work_seconds", "histogram",
           "How long each tick's work took: the step and the fan-out of its frames (0.1 ms "
           "resolution).");
    for (int i = 0; i < s->nworlds; i++)
        world_times(out, "vivd_world_tick_work_seconds", s->worlds[i], &s->worlds[i]->stats.work);
    world_family(out, s, "vivd_world_ticks_total", "counter", "Ticks stepped.", get_ticks);
    world_family(out, s, "vivd_world_tick", "gauge", "The world's current tick.", get_tick);
    world_family(out, s, "vivd_world_overruns_total", "counter",
                 "Ticks that ended after the next one was due.", get_overruns);
    world_family(out, s, "vivd_world_ticks_skipped_total", "counter",
                 "Ticks skipped because the world fell more than 4 ticks behind.", get_skipped);
    world_family(out, s, "vivd_world_subscribers", "gauge", "Subscriptions to the world here.",
                 get_subs);
    world_family(out, s, "vivd_world_frames_sent_total", "counter",
                 "Frame messages sent to the world's subscribers.", get_frames);
    world_family(out, s, "vivd_world_bytes_sent_total", "counter",
                 "Bytes of those frame messages (as framed over TCP).", get_bytes);
    world_family(out, s, "vivd_world_inputs_acked_total", "counter",
                 "Inputs acknowledged (applied and committed to the log).", get_acked);
    world_family(out, s, "vivd_world_inputs_refused_total", "counter",
                 "Inputs answered with an error instead of an ack.", get_refused);
}

/* ---- per transport ----------------------------------------------------------------------------------- */
static void transports_text(FILE *out, srv *s)
{
    const srv_net *n = s->net;
    int open[SRV_TR_N] = { 0 };
    for (const srv_client *c = n->clients; c; c = c->next) open[c->tr->kind]++;
    family(out, "vivd_connections_open", "gauge", "Clients connected now.");
    for (int t = 0; t < SRV_TR_N; t++)
        fprintf(out, "vivd_connections_open{transport=\"%s\"} %d\n", tr_names[t], open[t]);
    family(out, "vivd_connections_total", "counter", "Clients accepted.");
    for (int t = 0; t < SRV_TR_N; t++)
        fprintf(out, "vivd_connections_total{transport=\"%s\"} %" PRIu64 "\n", tr_names[t],
                n->tr[t].connections);
    family(out, "vivd_disconnects_total", "counter", "Clients closed, for any reason.");
    for (int t = 0; t < SRV_TR_N; t++)
        fprintf(out, "vivd_disconnects_total{transport=\"%s\"} %" PRIu64 "\n", tr_names[t],
                n->tr[t].closed);
    family(out, "vivd_client_drops_total", "counter",
           "Clients the server let go, by reason: output over the hard limit, stalled over the soft "
           "limit, bad messages, timeouts, server full.");
    for (int t = 0; t < SRV_TR_N; t++)
        for (int r = 0; r < SRV_DROP_N; r++)
            fprintf(out, "vivd_client_drops_total{transport=\"%s\",reason=\"%s\"} %" PRIu64 "\n",
                    tr_names[t], drop_names[r], n->tr[t].drops[r]);
    family(out, "vivd_frames_skipped_total", "counter",
           "Frames not sent to a client over the soft output limit (it resumes at a keyframe).");
    for (int t = 0; t < SRV_TR_N; t++)
        fprintf(out, "vivd_frames_skipped_total{transport=\"%s\",reason=\"soft_limit\"} %" PRIu64 "\n",
                tr_names[t], n->tr[t].soft_skips);
    family(out, "vivd_frames_sent_total", "counter", "Frame messages sent to clients, in all.");
    fprintf(out, "vivd_frames_sent_total %" PRIu64 "\n", n->frames_sent);
    family(out, "vivd_bytes_sent_total", "counter", "Bytes of those frame messages, in all.");
    fprintf(out, "vivd_bytes_sent_total %" PRIu64 "\n", n->bytes_sent);
}

int srv_healthz(srv *s, char *why, size_t cap)
{
    if (srv_health(s, uv_hrtime(), why, cap) != 0) return -1;
    const srv_net_hooks *hk = &s->net->hooks;
    return hk->health ? hk->health(s, why, cap) : 0;
}

int srv_metrics_text(srv *s, char **out, size_t *len)
{
    FILE *f = open_memstream(out, len);
    if (!f) return -1;
    char why[OPS_WHY_MAX];
    family(f, "vivd_healthy", "gauge", "1 when /healthz answers 200, else 0.");
    fprintf(f, "vivd_healthy %d\n", srv_healthz(s, why, sizeof why) == 0);
    worlds_text(f, s);
    transports_text(f, s);
    srv_health_metrics(s, f);
    if (s->net->hooks.metrics) s->net->hooks.metrics(s, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- the HTTP answers -------------------------------------------------------------------------------- */
/* Whether the request line is `GET PATH` (with an optional query) and HTTP/1.x. */
static int is_get(const char *head, size_t hlen, const char *path)
{
    size_t pl = strlen(path);
    if (hlen < 4 + pl + 1 || memcmp(head, "GET ", 4) != 0 || memcmp(head + 4, path, pl) != 0)
        return 0;
    char next = head[4 + pl];
    return next == ' ' || next == '?';
}

static int answer(unsigned status, const char *ctype, const char *body, size_t blen, char **out,
                  size_t *len)
{
    const char *phrase = status == 200 ? "OK" : "Service Unavailable";
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %u %s\r\ncontent-type: %s\r\ncontent-length: %zu\r\n"
                     "cache-control: no-store\r\nx-content-type-options: nosniff\r\n"
                     "connection: close\r\n\r\n", status, phrase, ctype, blen);
    *out = malloc((size_t)n + blen + 1);
    if (!*out) return -1;
    memcpy(*out, head, (size_t)n);
    memcpy(*out + n, body, blen);
    *len = (size_t)n + blen;
    (*out)[*len] = '\0';                 /* a C string too, for whoever reads it as one */
    return 1;
}

int srv_ops_answer(srv *s, const char *head, size_t hlen, char **out, size_t *len)
{
    while (hlen >= 2 && head[0] == '\r' && head[1] == '\n') {   /* empty lines before it (RFC 7230 3.5) */
        head += 2;
        hlen -= 2;
    }
    if (is_get(head, hlen, "/healthz")) {
        char why[OPS_WHY_MAX], body[OPS_WHY_MAX + 8];
        int ok = srv_healthz(s, why, sizeof why) == 0;
        int n = snprintf(body, sizeof body, "%s\n", ok ? "ok" : why);
        return answer(ok ? 200 : 503, "text/plain; charset=utf-8", body,
                      n < (int)sizeof body ? (size_t)n : sizeof body - 1, out, len);
    }
    if (!is_get(head, hlen, "/metrics")) return 0;
    char *text = NULL;
    size_t tlen = 0;
    if (srv_metrics_text(s, &text, &tlen) != 0) {
        free(text);
        return -1;
    }
    int rc = answer(200, "text/plain; version=0.0.4; charset=utf-8", text, tlen, out, len);
    free(text);
    return rc;
}
