/* check_metrics.c — the operator's endpoints without a socket (server/health.c, metrics.c):
 * /healthz's rules on a controlled clock, the text of /metrics from counters set by hand (the
 * lateness histogram's cumulative buckets, the per-transport drops), and the HTTP answers.
 * tests/metrics.py checks the same endpoints on a real vivd with a real Prometheus parser. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "srv_rig.h"
#include "network.h"
#include "replay.h"

typedef struct rig {
    uv_loop_t loop;
    srv s;
    srv_net net;
    srv_world *w;
} rig;

static void rig_up(rig *r)
{
    r->w = srv_rig_up(&r->loop, &r->s, &r->net);
}

static void rig_down(rig *r)
{
    srv_rig_down(&r->loop, &r->s);
}

/* The world's next tick is due at t0 (its schedule starts there, at its current tick). */
static void due_at(srv_world *w, uint64_t t0)
{
    w->sched.t0 = t0;
    w->sched.tick_base = sim_world_tick(w->w);
}

#define T0 1000000000000ull            /* an arbitrary instant of the clock, in ns */
#define MS 1000000ull

START_TEST(health_world_overdue)
{
    rig r;
    rig_up(&r);
    char why[512] = "";
    due_at(r.w, T0);
    /* Sand at 30 Hz: 5 periods are 167 ms, so the 1 s floor is the limit. */
    ck_assert_uint_lt(SRV_HEALTH_LATE_PERIODS * r.w->sched.period_ns, SRV_HEALTH_LATE_MIN_MS * MS);
    ck_assert_int_eq(srv_health(&r.s, T0 - 5 * MS, why, sizeof why), 0);    /* not due yet */
    ck_assert_int_eq(srv_health(&r.s, T0 + 999 * MS, why, sizeof why), 0);  /* late, within it */
    ck_assert_int_eq(srv_health(&r.s, T0 + 1001 * MS, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "world 1 (sand) is not ticking") && strstr(why, "1.0 s overdue"),
                  "why: %s", why);
    ck_assert_uint_eq(srv_world_overdue_ns(r.w, T0 + 1001 * MS), 1001 * MS);
    /* A world a worker holds has no deadline, nor has a paused recording. */
    r.w->busy = 1;
    r.w->busy_tick = sim_world_tick(r.w->w);
    ck_assert_int_eq(srv_health(&r.s, T0 + 60000 * MS, why, sizeof why), 0);
    r.w->busy = 0;
    /* A slow world's limit is its periods: 1 Hz, 5 s. */
    r.w->sched.period_ns = 1000 * MS;
    ck_assert_int_eq(srv_health(&r.s, T0 + 4000 * MS, why, sizeof why), 0);
    r.w->sched.period_ns = 1000000000ull / 30;
    rig_down(&r);
}
END_TEST

START_TEST(health_recorder_rules)
{
    rpl_rec_stats st;
    memset(&st, 0, sizeof st);
    char why[512] = "";
    st.settled_at_ns = T0 - 600000 * MS;      /* idle for ten minutes: nothing to commit, fine */
    ck_assert_int_eq(srv_health_recorder(&st, T0, why, sizeof why), 0);
    st.writing = 1;
    st.writing_since_ns = T0 - 4900 * MS;     /* a slow group, within the limit */
    ck_assert_int_eq(srv_health_recorder(&st, T0, why, sizeof why), 0);
    st.writing_since_ns = T0 - 5100 * MS;
    ck_assert_int_eq(srv_health_recorder(&st, T0, why, sizeof why), -1);
    ck_assert_msg(strstr(why, "writing one group for 5.1 s") && strstr(why, "stuck"), "why: %s", why);
    st.writing = 0;
    st.failing = 1;
    snprintf(st.failmsg, sizeof st.failmsg, "writing x.db failed: database is locked");
    ck_assert_int_eq(srv_health_recorder(&st, T0, why, sizeof why), -1);
    ck_assert_str_eq(why, "the recorder is failing: writing x.db failed: database is locked");
}
END_TEST

START_TEST(commit_buckets)
{
    ck_assert_int_eq(rpl_commit_bucket(0), 0);
    ck_assert_int_eq(rpl_commit_bucket(500), 0);       /* le is inclusive */
    ck_assert_int_eq(rpl_commit_bucket(501), 1);
    ck_assert_int_eq(rpl_commit_bucket(10000000), RPL_COMMIT_BUCKETS - 1);
    ck_assert_int_eq(rpl_commit_bucket(10000001), RPL_COMMIT_BUCKETS);   /* +Inf */
}
END_TEST

/* The line of `text` that starts with `prefix` (a sample's name and labels, then a space): its
 * value, or -1 if there is none. */
static double sample(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, prefix, n) == 0 && l[n] == ' ') return strtod(l + n + 1, NULL);
    return -1;
}

START_TEST(metrics_text)
{
    rig r;
    rig_up(&r);
    due_at(r.w, uv_hrtime() + 60000 * MS);   /* healthy: its next tick is a minute away */
    srv_tick_stats *st = &r.w->stats;
    st->late.b[0] = 3;                       /* under 0.1 ms */
    st->late.b[1] = 2;                       /* 0.1 to 0.2 ms */
    st->late.b[4] = 1;                       /* 0.4 to 0.5 ms */
    st->late.b[999] = 4;                     /* 99.9 to 100 ms */
    st->late.b[SRV_LAT_BUCKETS] = 1;         /* over 100 ms */
    st->late.count = 11;
    st->late.sum_us = 1234567;
    st->work.b[19] = 8;                      /* 1.9 to 2 ms */
    st->work.b[20] = 2;                      /* 2 to 2.1 ms */
    st->work.b[180] = 1;                     /* 18 to 18.1 ms: an overrun at 60 Hz */
    st->work.count = 11;
    st->work.sum_us = 38000;
    st->ticks = 11;
    st->overruns = 2;
    st->skipped = 7;
    r.w->netc.frames_sent = 40;
    r.w->netc.bytes_sent = 4096;
    r.w->netc.inputs_refused = 1;
    r.w->acks.acked = 9;
    r.w->acks.refused = 2;
    r.net.tr[SRV_TR_WS].drops[SRV_DROP_STALL] = 5;
    r.net.tr[SRV_TR_TCP].soft_skips = 6;
    r.net.tr[SRV_TR_TCP].connections = 8;
    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(srv_metrics_text(&r.s, &text, &len), 0);
    ck_assert_uint_eq(strlen(text), len);
#define L "{world=\"1\",kind=\"sand\""
    static const struct { const char *s; double v; } want[] = {
        { "vivd_healthy", 1 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"0.0001\"}", 3 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"0.0002\"}", 5 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"0.0005\"}", 6 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"0.05\"}", 6 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"0.1\"}", 10 },
        { "vivd_world_tick_lateness_seconds_bucket" L ",le=\"+Inf\"}", 11 },
        { "vivd_world_tick_lateness_seconds_count" L "}", 11 },
        { "vivd_world_tick_lateness_seconds_sum" L "}", 1.234567 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"0.001\"}", 0 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"0.002\"}", 8 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"0.005\"}", 10 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"0.01\"}", 10 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"0.02\"}", 11 },
        { "vivd_world_tick_work_seconds_bucket" L ",le=\"+Inf\"}", 11 },
        { "vivd_world_tick_work_seconds_count" L "}", 11 },
        { "vivd_world_tick_work_seconds_sum" L "}", 0.038 },
        { "vivd_world_ticks_total" L "}", 11 },
        { "vivd_world_overruns_total" L "}", 2 },
        { "vivd_world_ticks_skipped_total" L "}", 7 },
        { "vivd_world_frames_sent_total" L "}", 40 },
        { "vivd_world_bytes_sent_total" L "}", 4096 },
        { "vivd_world_inputs_acked_total" L "}", 9 },
        { "vivd_world_inputs_refused_total" L "}", 3 },
        { "vivd_client_drops_total{transport=\"websocket\",reason=\"stall\"}", 5 },
        { "vivd_client_drops_total{transport=\"tcp\",reason=\"stall\"}", 0 },
        { "vivd_frames_skipped_total{transport=\"tcp\",reason=\"soft_limit\"}", 6 },
        { "vivd_connections_total{transport=\"tcp\"}", 8 },
        { "vivd_connections_open{transport=\"tcp\"}", 0 },
    };
#undef L
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(sample(text, want[i].s) == want[i].v, "%s: %g, not %g", want[i].s,
                      sample(text, want[i].s), want[i].v);
    /* Every line is a comment or a vivd_ sample, and every sample's family was declared first. */
    for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
        ck_assert_ptr_nonnull(strchr(l, '\n'));
        if (l[0] == '#') continue;
        ck_assert_msg(strncmp(l, "vivd_", 5) == 0, "%.60s", l);
        char fam[128];
        size_t n = strcspn(l, "{ ");
        snprintf(fam, sizeof fam, "# TYPE %.*s ", (int)n, l);
        int declared = strstr(text, fam) && strstr(text, fam) < l;
        for (const char *suf = "_bucket\0_sum\0_count\0"; !declared && *suf; suf += strlen(suf) + 1)
            if (n > strlen(suf) && strncmp(l + n - strlen(suf), suf, strlen(suf)) == 0) {
                snprintf(fam, sizeof fam, "# TYPE %.*s histogram", (int)(n - strlen(suf)), l);
                declared = strstr(text, fam) && strstr(text, fam) < l;
            }
        ck_assert_msg(declared, "no TYPE before %.60s", l);
    }
    free(text);
    rig_down(&r);
}
END_TEST

/* The HTTP answer to `request`: 1 with it in *out, or srv_ops_answer's 0 / -1. */
static int ask(rig *r, const char *request, char **out)
{
    size_t len = 0;
    *out = NULL;
    int rc = srv_ops_answer(&r->s, request, strlen(request), out, &len);
    if (rc == 1) ck_assert_uint_eq(strlen(*out), len);
    return rc;
}

START_TEST(ops_answers)
{
    rig r;
    rig_up(&r);
    char *a;
    due_at(r.w, uv_hrtime() + 60000 * MS);
    ck_assert_int_eq(ask(&r, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", &a), 1);
    ck_assert_msg(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0 && strstr(a, "\r\n\r\nok\n"), "%s", a);
    free(a);
    ck_assert_int_eq(ask(&r, "GET /metrics?x=1 HTTP/1.1\r\n\r\n", &a), 1);
    ck_assert_msg(strstr(a, "\r\ncontent-type: text/plain; version=0.0.4; charset=utf-8\r\n"), "%.200s", a);
    ck_assert_ptr_nonnull(strstr(a, "\r\n\r\n# HELP vivd_"));
    free(a);
    /* Not theirs: lws serves them (the page, a 404). */
    ck_assert_int_eq(ask(&r, "GET /metricsx HTTP/1.1\r\n\r\n", &a), 0);
    ck_assert_int_eq(ask(&r, "POST /healthz HTTP/1.1\r\n\r\n", &a), 0);
    ck_assert_int_eq(ask(&r, "GET / HTTP/1.1\r\n\r\n", &a), 0);
    /* The world stops ticking (its next tick was due 3 s ago): 503, one line, and the gauge. */
    due_at(r.w, uv_hrtime() - 3000 * MS);
    ck_assert_int_eq(ask(&r, "\r\nGET /healthz HTTP/1.1\r\n\r\n", &a), 1);
    const char *body = strstr(a, "\r\n\r\n");
    ck_assert_msg(strncmp(a, "HTTP/1.1 503 Service Unavailable\r\n", 34) == 0 && body &&
                  strncmp(body + 4, "world 1 (sand) is not ticking", 29) == 0, "%s", a);
    ck_assert_ptr_eq(strchr(body + 4, '\n'), a + strlen(a) - 1);       /* one line */
    free(a);
    ck_assert_int_eq(ask(&r, "GET /metrics HTTP/1.1\r\n\r\n", &a), 1);
    ck_assert_double_eq(sample(strstr(a, "\r\n\r\n") + 4, "vivd_healthy"), 0);
    free(a);
    rig_down(&r);
}
END_TEST

Suite *suite_metrics(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, health_world_overdue);
    tcase_add_test(tc, health_recorder_rules);
    tcase_add_test(tc, commit_buckets);
    tcase_add_test(tc, metrics_text);
    tcase_add_test(tc, ops_answers);
    suite_add_tcase(s, tc);
    return s;
}
