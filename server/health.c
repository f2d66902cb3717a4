/* health.c — the host's part of the operator's endpoints (docs/OPERATIONS.md): /healthz's
 * verdict (every live world ticks, the recorder commits) and the recorder's metric families.
 * Everything here runs on the loop when a request asks; nothing is computed per tick. The
 * verdict reads the scheduler's deadlines (sched.c) and the recorder's own counters
 * (rpl_recorder_stats), so the clock is an argument and the rules can be tested with any. */
#include <inttypes.h>
#include <stdio.h>
#include "host.h"
#include "replay.h"

int srv_health_recorder(const rpl_rec_stats *st, uint64_t now_ns, char *why, size_t cap)
{
    if (st->failing) {
        snprintf(why, cap, "the recorder is failing: %s", st->failmsg);
        return -1;
    }
    if (st->writing && now_ns > st->writing_since_ns &&
        now_ns - st->writing_since_ns > (uint64_t)SRV_HEALTH_COMMIT_MS * 1000000u) {
        snprintf(why, cap, "the recorder has been writing one group for %.1f s (over %u s): "
                 "commits are stuck", (double)(now_ns - st->writing_since_ns) / 1e9,
                 SRV_HEALTH_COMMIT_MS / 1000);
        return -1;
    }
    return 0;
}

/* How overdue w may be before it counts as stalled. */
static uint64_t late_limit_ns(const srv_world *w)
{
    uint64_t n = (uint64_t)SRV_HEALTH_LATE_PERIODS * w->sched.period_ns;
    uint64_t floor = (uint64_t)SRV_HEALTH_LATE_MIN_MS * 1000000u;
    return n > floor ? n : floor;
}

int srv_health(srv *s, uint64_t now_ns, char *why, size_t cap)
{
    for (int i = 0; i < s->nworlds; i++) {
        const srv_world *w = s->worlds[i];
        uint64_t late = srv_world_overdue_ns(w, now_ns);
        if (late > late_limit_ns(w)) {
            snprintf(why, cap, "world %u (%s) is not ticking: its tick %" PRIu64 " is %.1f s "
                     "overdue (the limit is %.1f s)", w->id, w->kind->name, srv_world_tick(w),
                     (double)late / 1e9, (double)late_limit_ns(w) / 1e9);
            return -1;
        }
    }
    if (!s->rec) return 0;
    rpl_rec_stats st;
    rpl_recorder_stats(s->rec, &st);
    return srv_health_recorder(&st, now_ns, why, cap);
}

void srv_health_metrics(srv *s, FILE *out)
{
    if (!s->rec) return;
    rpl_rec_stats st;
    rpl_recorder_stats(s->rec, &st);
    static const uint64_t bounds[RPL_COMMIT_BUCKETS] = RPL_COMMIT_BOUNDS_US;
    fprintf(out, "# HELP vivd_recorder_commit_seconds Time the replay log's writer took per group "
            "of ticks (one transaction, to its commit or rollback).\n"
            "# TYPE vivd_recorder_commit_seconds histogram\n");
    uint64_t cum = 0;
    for (int b = 0; b < RPL_COMMIT_BUCKETS; b++) {
        cum += st.commit_hist[b];
        fprintf(out, "vivd_recorder_commit_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                (double)bounds[b] / 1e6, cum);
    }
    cum += st.commit_hist[RPL_COMMIT_BUCKETS];
    fprintf(out, "vivd_recorder_commit_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n"
            "vivd_recorder_commit_seconds_sum %.9f\n"
            "vivd_recorder_commit_seconds_count %" PRIu64 "\n", cum,
            (double)st.commit_ns_sum / 1e9, st.groups);
    fprintf(out, "# HELP vivd_recorder_commits_failed_total Groups whose transaction was rolled "
            "back (their ticks are a gap in the log).\n"
            "# TYPE vivd_recorder_commits_failed_total counter\n"
            "vivd_recorder_commits_failed_total %" PRIu64 "\n", st.groups_failed);
    fprintf(out, "# HELP vivd_recorder_batches_total Batches (ticks, session rows) handed to the "
            "writer.\n# TYPE vivd_recorder_batches_total counter\n"
            "vivd_recorder_batches_total %" PRIu64 "\n", st.batches);
    fprintf(out, "# HELP vivd_recorder_queue_batches Batches waiting for the writer.\n"
            "# TYPE vivd_recorder_queue_batches gauge\nvivd_recorder_queue_batches %" PRIu64 "\n",
            st.queued_batches);
    fprintf(out, "# HELP vivd_recorder_queue_bytes Bytes waiting for the writer.\n"
            "# TYPE vivd_recorder_queue_bytes gauge\nvivd_recorder_queue_bytes %" PRIu64 "\n",
            st.queued_bytes);
    fprintf(out, "# HELP vivd_recorder_failing 1 while the replay log cannot be written (inputs "
            "are refused).\n# TYPE vivd_recorder_failing gauge\nvivd_recorder_failing %d\n",
            st.failing);
}
