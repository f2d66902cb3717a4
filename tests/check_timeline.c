/* check_timeline.c — the `timeline` message (server/timeline.c, server/play.c): a viewer rewinds a
 * live world it watches, on a timeline of its own built from the world's recording, while the
 * world and another viewer go on untouched; then it comes back to live. End to end, on a real
 * vivd on loopback. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_suites.h"
#include "e2e.h"
#include "read.h"

/* {"t":"timeline","world":world,"op":op[,"tick"|"speed":arg]} */
static void timeline_op_on(cli_conn *c, uint32_t world, const char *op, long long arg, wire_buf *b)
{
    wire_buf_init(b);
    wire_msg_begin(b);
    int extra = strcmp(op, "seek") == 0 || strcmp(op, "speed") == 0;
    wire_put_map(b, extra ? 4 : 3);
    put_kv_str(b, "t", "timeline");
    wire_put_str(b, "world"); wire_put_uint(b, world);
    put_kv_str(b, "op", op);
    if (extra) {
        wire_put_str(b, strcmp(op, "seek") == 0 ? "tick" : "speed");
        wire_put_uint(b, (uint64_t)arg);
    }
    wire_msg_end(b);
    if (c) {
        send_msg(c, b);
        wire_buf_free(b);
    }
}

static void timeline_op(cli_conn *c, const char *op, long long arg, wire_buf *b)
{
    timeline_op_on(c, 1, op, arg, b);
}

/* The answer to a timeline op (frames on the way tracked): its tick, and whether it is live. */
static uint64_t expect_timeline(e2e_peer *p, int *live)
{
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 10000), 1);
    const char *code = "";
    size_t cl = 0;
    wire_get_str(&m, "msg", &code, &cl);
    ck_assert_msg(cli_msg_is(&m, "timeline"), "expected a timeline answer, got %.*s", (int)cl, code);
    uint64_t tick;
    ck_assert_int_eq(wire_get_u64(&m, "tick", &tick), 0);
    ck_assert_int_eq(wire_get_bool(&m, "live", live), 0);
    return tick;
}

/* The frame p shows of world `world` is the one session 1 recorded at that tick. */
static void assert_recorded_of(const char *db, const e2e_peer *p, uint32_t world)
{
    rpl_file *f;
    rpl_tick_row row;
    char err[256];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(rpl_tick_get(f, 1, p->t.f[world].tick, &row, err, sizeof err) == 0, "%s", err);
    ck_assert(!rpl_hash_differs(row.state_hash, p->t.f[world].sh, row.bits));
    ck_assert(!rpl_hash_differs(row.frame_hash, sim_frame_hash(&p->t.f[world].f), row.bits));
    ck_assert_int_ge(row.bits, RPL_HASH_BITS);
    rpl_close(f);
}

static void assert_recorded(const char *db, const e2e_peer *p)
{
    assert_recorded_of(db, p, 1);
}

/* Receive on p until its frame of world 1 satisfies tick >= at (generous time: a loaded machine). */
static void frames_until(e2e_peer *p, uint64_t at)
{
    wire_msg m;
    double t0 = now_s();
    while (p->t.count[1] == 0 || p->t.f[1].tick < at) {
        ck_assert_msg(now_s() - t0 < 30, "no frame of tick %llu within 30 s", (unsigned long long)at);
        ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 200), 0);
    }
}

START_TEST(a_viewer_rewinds_a_live_world_while_another_watches_on)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL }, 0);
    char db[128];
    snprintf(db, sizeof db, "%s/replay.db", fx.sv.dir);
    e2e_peer *a = e2e_hello(&fx, "rewinder", NULL, NULL);     /* viewers: no token needed */
    e2e_peer *b = e2e_hello(&fx, "watcher", NULL, NULL);
    e2e_sub(a, 1, 1, NULL, NULL);
    e2e_sub(b, 1, 1, NULL, NULL);
    frames_until(a, 120);
    uint64_t live_then = a->t.f[1].tick;
    /* Back to tick 30: a keyframe of the recorded tick 30, then the answer. */
    int live = -1;
    timeline_op(&a->c, "seek", 30, &(wire_buf){0});
    ck_assert_uint_eq(expect_timeline(a, &live), 30);
    ck_assert_int_eq(live, 0);
    ck_assert_uint_eq(a->t.f[1].tick, 30);
    assert_recorded(db, a);
    /* Paused there: one step forward, one back, each the recorded frame. */
    timeline_op(&a->c, "step", 0, &(wire_buf){0});
    expect_timeline(a, &live);
    frames_until(a, 31);
    ck_assert_uint_eq(a->t.f[1].tick, 31);
    assert_recorded(db, a);
    timeline_op(&a->c, "back", 0, &(wire_buf){0});
    ck_assert_uint_eq(expect_timeline(a, &live), 30);
    ck_assert_uint_eq(a->t.f[1].tick, 30);
    assert_recorded(db, a);
    /* Meanwhile the other viewer's frames came on, every tick, untouched. */
    uint64_t b_before = b->t.f[1].tick;
    frames_until(b, live_then + 60);
    ck_assert_int_eq(b->t.gaps, 0);
    ck_assert_uint_gt(b->t.f[1].tick, b_before);
    /* Play at 400% from 30: frames flow on the timeline, each recorded. */
    timeline_op(&a->c, "speed", 400, &(wire_buf){0});
    expect_timeline(a, &live);
    timeline_op(&a->c, "resume", 0, &(wire_buf){0});
    expect_timeline(a, &live);
    frames_until(a, 90);
    assert_recorded(db, a);
    /* Back to live: the answer says so, and the frames are the world's again, from a keyframe. */
    timeline_op(&a->c, "live", 0, &(wire_buf){0});
    uint64_t at = expect_timeline(a, &live);
    ck_assert_int_eq(live, 1);
    ck_assert_uint_ge(at, live_then);
    int keys = a->t.keys[1];
    frames_until(a, at + 1);
    ck_assert_int_gt(a->t.keys[1], keys);
    ck_assert_uint_ge(a->t.f[1].tick, at);
    /* Wrong ones: a bad op, a tick not recorded, a world not watched. */
    wire_buf bb;
    timeline_op(NULL, "rewind", 0, &bb);
    expect_error_msg(&a->c, &a->t, &bb, "bad_field");
    wire_buf_free(&bb);
    timeline_op(NULL, "seek", 1000000, &bb);
    send_msg(&a->c, &bb);
    wire_buf_free(&bb);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&a->c, &a->t, &m, 10000), 1);
    ck_assert(cli_msg_is(&m, "error"));
    e2e_peer *c = e2e_hello(&fx, "stranger", NULL, NULL);
    timeline_op(NULL, "pause", 0, &bb);
    expect_error_msg(&c->c, &c->t, &bb, "not_subscribed");
    wire_buf_free(&bb);
    ck_assert_int_eq(b->t.gaps, 0);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

START_TEST(a_world_not_recorded_has_no_timeline)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL }, E2E_NO_RECORD);
    e2e_peer *a = e2e_hello(&fx, "rewinder", NULL, NULL);
    e2e_sub(a, 1, 1, NULL, NULL);
    wire_buf bb;
    timeline_op(NULL, "pause", 0, &bb);
    expect_error_msg(&a->c, &a->t, &bb, "not_a_recording");
    wire_buf_free(&bb);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

/* {"t":"open","session":session[,"file":file]}, answered: the world's id (opened, its session and
 * file checked), or 0 with the error code in code. */
static uint32_t open_session(e2e_peer *p, uint64_t session, const char *file, char *code, size_t cap)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, file ? 3 : 2);
    put_kv_str(&b, "t", "open");
    wire_put_str(&b, "session"); wire_put_uint(&b, session);
    if (file) put_kv_str(&b, "file", file);
    wire_msg_end(&b);
    send_msg(&p->c, &b);
    wire_buf_free(&b);
    wire_msg m;
    code[0] = '\0';
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 20000), 1);
    if (cli_msg_is(&m, "error")) {
        const char *cd;
        size_t n;
        ck_assert_int_eq(wire_get_str(&m, "code", &cd, &n), 0);
        snprintf(code, cap, "%.*s", (int)n, cd);
        return 0;
    }
    ck_assert_msg(cli_msg_is(&m, "opened"), "expected opened");
    uint64_t got;
    ck_assert_int_eq(wire_get_u64(&m, "session", &got), 0);
    ck_assert_uint_eq(got, session);
    const char *fl;
    size_t fn;
    ck_assert_int_eq(wire_get_str(&m, "file", &fl, &fn), 0);
    ck_assert_uint_gt(fn, 0);
    const wire_val *wv = wire_msg_get(&m, "world");
    ck_assert_ptr_nonnull(wv);
    wire_msg e;
    uint64_t id;
    ck_assert_int_eq(wire_msg_decode(wv->raw, wv->rawlen, &e), 0);
    ck_assert_int_eq(wire_get_u64(&e, "id", &id), 0);
    return (uint32_t)id;
}

static int welcome_has(e2e_fixture *fx, uint32_t world)
{
    wire_msg w;
    e2e_peer *p = e2e_hello(fx, "looker", NULL, &w);
    uint32_t ids[16];
    char kinds[16][16];
    int n = welcome_worlds(&w, ids, kinds, 16), has = 0;
    for (int i = 0; i < n; i++) has |= ids[i] == world;
    e2e_close(p);
    return has;
}

/* Recordings for everyone: a viewer with no token opens a session vivd recorded (the live world's
 * own while it runs, a recording once it has closed), scrubs it on its own timeline and sees the
 * recorded frames; a second viewer who opens it shares the world; wrong sessions and files are
 * refused; and once nobody watches it, it closes (--open-idle). */
START_TEST(a_viewer_opens_a_recorded_session_and_scrubs_it_without_a_token)
{
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL },
                           (const char *const[]){ "--open-idle", "1", NULL }, 0, 0);
    char db[128], code[32];
    snprintf(db, sizeof db, "%s/replay.db", fx.sv.dir);
    e2e_peer *a = e2e_hello(&fx, "viewer-a", NULL, NULL);
    e2e_sub(a, 1, 1, NULL, NULL);
    frames_until(a, 90);
    /* While it runs, its session is the live world itself. */
    ck_assert_uint_eq(open_session(a, 1, NULL, code, sizeof code), 1);
    /* Closed by an admin: the session is a recording now, and opening it hosts one. */
    e2e_peer *adm = e2e_hello(&fx, "admin", ADMIN, NULL);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 2);
    put_kv_str(&b, "t", "close");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_msg_end(&b);
    send_msg(&adm->c, &b);
    wire_buf_free(&b);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&adm->c, &adm->t, &m, 10000), 1);
    ck_assert(cli_msg_is(&m, "closed"));
    e2e_peer *v = e2e_hello(&fx, "viewer-v", NULL, NULL);
    uint32_t rw = open_session(v, 1, NULL, code, sizeof code);
    ck_assert_msg(rw > 1, "open of the closed session: %s", code);
    ck_assert(welcome_has(&fx, rw));
    e2e_peer *w2 = e2e_hello(&fx, "viewer-w", NULL, NULL);
    ck_assert_uint_eq(open_session(w2, 1, db, code, sizeof code), rw);    /* the same world */
    /* Scrubbed without a token, each on a timeline of its own: the recorded frames. */
    e2e_sub(v, rw, 1, NULL, NULL);
    e2e_sub(w2, rw, 1, NULL, NULL);
    int live = -1;
    timeline_op_on(&v->c, rw, "seek", 60, &(wire_buf){0});
    ck_assert_uint_eq(expect_timeline(v, &live), 60);
    ck_assert_int_eq(live, 0);
    ck_assert_uint_eq(v->t.f[rw].tick, 60);
    assert_recorded_of(db, v, rw);
    timeline_op_on(&w2->c, rw, "seek", 20, &(wire_buf){0});
    ck_assert_uint_eq(expect_timeline(w2, &live), 20);
    ck_assert_uint_eq(w2->t.f[rw].tick, 20);
    assert_recorded_of(db, w2, rw);
    timeline_op_on(&v->c, rw, "back", 0, &(wire_buf){0});
    ck_assert_uint_eq(expect_timeline(v, &live), 59);
    assert_recorded_of(db, v, rw);
    ck_assert_uint_eq(w2->t.f[rw].tick, 20);                              /* untouched */
    /* Wrong ones: no such session, a file vivd does not serve, no session field. */
    ck_assert_uint_eq(open_session(v, 99, NULL, code, sizeof code), 0);
    ck_assert_str_eq(code, "unknown_session");
    ck_assert_uint_eq(open_session(v, 1, "/etc/passwd", code, sizeof code), 0);
    ck_assert_str_eq(code, "unknown_file");
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 1);
    put_kv_str(&b, "t", "open");
    wire_msg_end(&b);
    expect_error_msg(&v->c, &v->t, &b, "missing_field");
    wire_buf_free(&b);
    /* Nobody watches it any more: it closes after --open-idle (1 s; the sweep runs each second). */
    e2e_close(v);
    e2e_close(w2);
    double t0 = now_s();
    while (welcome_has(&fx, rw)) {
        ck_assert_msg(now_s() - t0 < 20, "the unwatched recording did not close");
        usleep(200 * 1000);
    }
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST


/* A subscription replaced while its timeline is being built: the new subscription's own timeline
 * is the one shown, never the build the old one asked for (the generations were per subscription
 * and started over at a new sub, so the old build could be taken for the new one). */
START_TEST(a_replaced_subscription_never_takes_the_old_timeline)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL }, 0);
    e2e_peer *a = e2e_hello(&fx, "rewinder", NULL, NULL);
    e2e_sub(a, 1, 1, NULL, NULL);
    frames_until(a, 150);
    for (int round = 0; round < 3; round++) {
        /* seek 30, a new sub, seek 90: in one write, so both builds are queued together */
        wire_buf all, one;
        wire_buf_init(&all);
        timeline_op(NULL, "seek", 30, &one);
        wire_buf_reserve(&all, one.len);
        memcpy(all.p + all.len, one.p, one.len);
        all.len += one.len;
        wire_buf_free(&one);
        wire_buf_init(&one);
        cli_put_sub(&one, 1, 1, NULL, NULL);
        wire_buf_reserve(&all, one.len);
        memcpy(all.p + all.len, one.p, one.len);
        all.len += one.len;
        wire_buf_free(&one);
        timeline_op(NULL, "seek", 90, &one);
        wire_buf_reserve(&all, one.len);
        memcpy(all.p + all.len, one.p, one.len);
        all.len += one.len;
        wire_buf_free(&one);
        send_msg(&a->c, &all);
        wire_buf_free(&all);
        int live = -1;
        ck_assert_uint_eq(expect_timeline(a, &live), 90);
        ck_assert_int_eq(live, 0);
        ck_assert_uint_eq(a->t.f[1].tick, 90);
        timeline_op(&a->c, "live", 0, &(wire_buf){0});
        expect_timeline(a, &live);
        ck_assert_int_eq(live, 1);
    }
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST


/* Rewound to the live edge and paused there, a timeline resumes: it reads what the world has
 * committed since and follows the world a few ticks behind (before: "the recording is at its
 * end", a counted error; and a timeline that caught up paused there), each frame the recorded
 * one, never passing the world. */
START_TEST(a_timeline_resumed_at_the_live_edge_plays_on)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL }, 0);
    char db[128];
    snprintf(db, sizeof db, "%s/replay.db", fx.sv.dir);
    e2e_peer *a = e2e_hello(&fx, "rewinder", NULL, NULL);
    e2e_sub(a, 1, 1, NULL, NULL);
    frames_until(a, 120);
    int live = -1;
    timeline_op(&a->c, "pause", 0, &(wire_buf){0});           /* opens at the live edge, paused */
    uint64_t edge = expect_timeline(a, &live);
    ck_assert_int_eq(live, 0);
    timeline_op(&a->c, "resume", 0, &(wire_buf){0});
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&a->c, &a->t, &m, 10000), 1);
    ck_assert_msg(cli_msg_is(&m, "timeline"), "resume at the live edge was refused");
    frames_until(a, edge + 30);
    assert_recorded(db, a);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

Suite *suite_timeline(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, a_viewer_rewinds_a_live_world_while_another_watches_on);
    tcase_add_test(tc, a_world_not_recorded_has_no_timeline);
    tcase_add_test(tc, a_viewer_opens_a_recorded_session_and_scrubs_it_without_a_token);
    tcase_add_test(tc, a_replaced_subscription_never_takes_the_old_timeline);
    tcase_add_test(tc, a_timeline_resumed_at_the_live_edge_plays_on);
    suite_add_tcase(s, tc);
    return s;
}
