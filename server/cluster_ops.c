/* cluster_ops.c — the cluster's part of the operator's endpoints (docs/OPERATIONS.md), through
 * the hooks it installs (srv_net_hooks.metrics, .health): Redis's connection, the registry, the
 * streams this member publishes (a node) and relays (a relay), from the counters cluster.c and
 * relay.c keep. Built when asked, on the loop. */
#include <inttypes.h>
#include <stdio.h>
#include "cluster.h"

static void counter(FILE *out, const char *name, const char *help, uint64_t v)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", name, help, name, name, v);
}

static void gauge(FILE *out, const char *name, const char *help, uint64_t v)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n%s %" PRIu64 "\n", name, help, name, name, v);
}

/* The streams this member relays from other members' worlds, by the state of their Redis
 * subscription (SRV_RS_…), and their subscribers here. */
static void relay_streams(FILE *out, const srv_cluster *cl)
{
    static const char *const states[] = { "none", "subscribing", "live", "unsubscribing" };
    uint64_t n[4] = { 0 }, subs = 0;
    for (int i = 0; i < cl->nrworlds; i++) {
        const srv_rworld *rw = cl->rworlds[i];
        for (int k = 0; k < rw->nstreams; k++) {
            const srv_rstream *rs = &rw->streams[k];
            if (!rs->used) continue;
            if (rs->state >= 0 && rs->state < 4) n[rs->state]++;
            subs += (uint64_t)rs->nsubs;
        }
    }
    fprintf(out, "# HELP vivd_relay_streams Streams of other members' worlds relayed here, by the "
            "state of their Redis subscription.\n# TYPE vivd_relay_streams gauge\n");
    for (int st = 1; st < 4; st++)
        fprintf(out, "vivd_relay_streams{state=\"%s\"} %" PRIu64 "\n", states[st], n[st]);
    gauge(out, "vivd_relay_subscribers", "Subscriptions here to other members' worlds.", subs);
}

void srv_cluster_metrics(srv *s, FILE *out)
{
    const srv_cluster *cl = srv_net_hooks_ud(s);
    if (!cl) return;
    fprintf(out, "# HELP vivd_cluster_member This member: its name and role (node or relay).\n"
            "# TYPE vivd_cluster_member gauge\nvivd_cluster_member{name=\"");
    for (const char *p = cl->name; *p; p++)      /* names are [A-Za-z0-9.:_-]: escaped anyway */
        fprintf(out, *p == '"' || *p == '\\' ? "\\%c" : "%c", *p);
    fprintf(out, "\",role=\"%s\"} 1\n", cl->relay ? "relay" : "node");
    gauge(out, "vivd_cluster_members", "Members in the registry as last read.", (uint64_t)cl->nmembers);
    gauge(out, "vivd_redis_up", "1 while the connection to Redis is up.", (uint64_t)srv_redis_ready(cl->r));
    counter(out, "vivd_redis_reconnects_total", "Times Redis came back after an outage.",
            cl->redis_reconnects);
    counter(out, "vivd_redis_disconnects_total", "Times the connection to Redis was lost.",
            cl->redis_losses);
    counter(out, "vivd_redis_connect_failures_total", "Connects to Redis that failed (retried with "
            "back-off).", cl->redis_failures);
    gauge(out, "vivd_redis_queued_bytes", "Bytes of commands not yet written to Redis.",
          (uint64_t)srv_redis_queued(cl->r));
    counter(out, "vivd_cluster_published_total", "Frame messages this node published for relays.",
            cl->published);
    counter(out, "vivd_cluster_published_bytes_total", "Bytes of those messages.", cl->publish_bytes);
    counter(out, "vivd_cluster_publish_dropped_total", "Frame messages not published (Redis down "
            "or too far behind).", cl->publish_dropped);
    gauge(out, "vivd_relay_worlds", "Worlds of other members known here.", (uint64_t)cl->nrworlds);
    relay_streams(out, cl);
    counter(out, "vivd_relay_frames_total", "Frame messages relayed from their nodes to "
            "subscribers here.", cl->relayed);
    counter(out, "vivd_relay_local_keyframes_total", "Keyframes this member made itself for a "
            "subscriber that needed one.", cl->relay_keys);
    counter(out, "vivd_relay_mismatches_total", "Relayed frames whose hash did not check.",
            cl->relay_mismatches);
    counter(out, "vivd_cluster_inputs_lost_total", "Inputs answered node_lost (their node went).",
            cl->inputs_lost);
    counter(out, "vivd_cluster_requests_lost_total", "Plays, closes, forks and creates answered "
            "node_lost.", cl->requests_lost);
}

/* A relay serves nothing without Redis: unhealthy while it is away. A node's worlds tick and its
 * own viewers watch without it, so a node's health does not depend on Redis (vivd_redis_up says). */
int srv_cluster_health(srv *s, char *why, size_t cap)
{
    const srv_cluster *cl = srv_net_hooks_ud(s);
    if (!cl || !cl->relay || srv_redis_ready(cl->r)) return 0;
    const char *e = srv_redis_error(cl->r);
    snprintf(why, cap, "this relay has no connection to Redis at %s:%d%s%s", cl->redis_host,
             cl->redis_port, e[0] ? ": " : "", e);
    return -1;
}
