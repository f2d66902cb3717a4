/* check_record.c — vivd's replay log end to end: two scripted players, SIGTERM, and `verify`
 * passes; kill -9 at ten random moments, and each time every acknowledged input is in the log,
 * verify passes, vivd resumes the session, and the resumed chain equals a never-crashed headless
 * run fed the same inputs at the same ticks. */
#define _GNU_SOURCE 1
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check_suites.h"
#include "e2e.h"
#include "read.h"

#define WORLD "sand:seed=11:w=96,h=64,scene=bench"

typedef struct player {
    cli_conn c;
    tracker t;
    uint32_t client, seq;
} player;

/* Send one paint and collect whatever replies are waiting; acked inputs go to log[]. */
static void play(player *p, int x, int el, acked *log, int *nlog, int max)
{
    acked a;
    p->seq++;
    send_paint(&p->c, p->seq, x, 8 + (int)(p->seq % 40), 3, el, &a, p->client);
    wire_msg m;
    char err[256];
    for (;;) {
        int rc = cli_recv_msg(&p->c, 0, &m, err, sizeof err);
        if (rc <= 0) break;                          /* nothing more now, or the server died */
        if (!cli_msg_is(&m, "ack")) continue;
        uint64_t seq, tick;
        ck_assert_int_eq(wire_get_u64(&m, "seq", &seq), 0);
        ck_assert_int_eq(wire_get_u64(&m, "tick", &tick), 0);
        if (*nlog < max) {
            log[*nlog].client = p->client;
            log[*nlog].seq = (uint32_t)seq;
            log[*nlog].tick = tick;
            (*nlog)++;
        }
    }
}

static void join(player *p, const server *sv, const char *name)
{
    wire_msg w;
    memset(p, 0, sizeof *p);
    connect_hello(&p->c, sv, name, PLAYER, &w);
    p->client = welcome_client(&w);
}

/* Every acknowledged input is in the log, at the tick its ack named. */
static void assert_logged(const char *db, const acked *log, int n)
{
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    sim_input *in = NULL;
    size_t nin = 0;
    ck_assert_msg(rpl_inputs_load(f, 1, 0, UINT64_MAX / 2, NULL, &in, &nin, err, sizeof err) == 0, "%s", err);
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (size_t k = 0; k < nin && !found; k++)
            found = in[k].tick == log[i].tick && in[k].client == log[i].client && in[k].seq == log[i].seq;
        ck_assert_msg(found, "acked input (tick %llu, client %u, seq %u) is not in the log",
                      (unsigned long long)log[i].tick, log[i].client, log[i].seq);
    }
    free(in);
    rpl_close(f);
}

static void assert_verifies(const char *db, uint64_t *end_tick)
{
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_verify_opts o = rpl_verify_defaults();
    o.session = 1;
    o.threads = 1;
    rpl_verify_result res;
    static char report[16384];
    int rc = rpl_verify(f, &o, &res, report, sizeof report);
    ck_assert_msg(rc == 0, "verify failed (%d): %s", rc, report);
    ck_assert_uint_gt(res.ticks, 0);
    ck_assert_uint_eq(res.skipped, 0);
    rpl_session ss;
    ck_assert_int_eq(rpl_session_get(f, 1, &ss, err, sizeof err), 0);
    if (end_tick) *end_tick = ss.end_tick;
    rpl_close(f);
}

START_TEST(two_players_then_sigterm_verifies)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ WORLD, NULL }, 0);
    char db[128];
    snprintf(db, sizeof db, "%s/replay.db", fx.sv.dir);
    static player a, b;
    join(&a, &fx.sv, "p1");
    join(&b, &fx.sv, "p2");
    static acked log[400];
    int n = 0;
    for (int k = 0; k < 60; k++) {
        play(&a, 10 + k % 70, 3, log, &n, 400);       /* sand */
        play(&b, 80 - k % 70, 4, log, &n, 400);       /* water */
        usleep(7000);
    }
    usleep(200000);
    play(&a, 1, 3, log, &n, 400);
    play(&b, 1, 3, log, &n, 400);
    usleep(200000);
    play(&a, 2, 3, log, &n, 400);
    play(&b, 2, 3, log, &n, 400);
    ck_assert_int_ge(n, 100);                         /* most were acknowledged by now */
    cli_close(&a.c);
    cli_close(&b.c);
    ck_assert_int_eq(e2e_fixture_stop_keep(&fx), 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=1 AND status='suspended'"), 1);
    assert_logged(db, log, n);
    assert_verifies(db, NULL);
    server_cleanup(&fx.sv);
}
END_TEST

/* Replay the whole session headless from its kind, seed and params — no checkpoint, no server —
 * feeding the logged inputs at their ticks; every recorded state hash must match. */
static void assert_headless_chain(const char *db)
{
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_session ss;
    ck_assert_int_eq(rpl_session_get(f, 1, &ss, err, sizeof err), 0);
    sim_config cfg = sim_config_default();
    cfg.kind = ss.kind;
    cfg.seed = ss.seed;
    cfg.params = ss.params;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    ck_assert_ptr_nonnull(w);
    sim_input *in = NULL;
    size_t nin = 0, k = 0;
    ck_assert_msg(rpl_inputs_load(f, 1, 0, ss.end_tick, w, &in, &nin, err, sizeof err) == 0, "%s", err);
    rpl_tick_row *rows = NULL;
    size_t nrows = 0;
    ck_assert_msg(rpl_ticks_load(f, 1, 1, ss.end_tick, &rows, &nrows, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(nrows, ss.end_tick);            /* a row for every tick: no gap */
    size_t r = 0;
    while (sim_world_tick(w) < ss.end_tick) {
        for (; k < nin && in[k].tick == sim_world_tick(w); k++) ck_assert_int_eq(sim_world_input(w, &in[k]), 0);
        sim_world_step(w);
        ck_assert_uint_eq(rows[r].tick, sim_world_tick(w));
        ck_assert_msg(!rpl_hash_differs(rows[r].state_hash, sim_world_hash(w), rows[r].bits),
                      "headless run differs at tick %llu",
                      (unsigned long long)rows[r].tick);
        r++;
    }
    ck_assert_uint_eq(k, nin);
    free(in);
    free(rows);
    sim_world_destroy(w);
    rpl_close(f);
}

START_TEST(kill_9_ten_times_resumes_bit_exactly)
{
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    fprintf(stderr, "record: crash test seed %u\n", seed);
    srand(seed);
    server sv;
    const char *const first[] = { "--world", WORLD, NULL };
    server_start(&sv, first);
    char dir[64], db[128];
    snprintf(dir, sizeof dir, "%s", sv.dir);
    snprintf(db, sizeof db, "%s/replay.db", dir);
    const char *const later[] = { "--db", db, NULL };
    acked *log = calloc(20000, sizeof *log);          /* on the heap: see e2e.h */
    ck_assert_ptr_nonnull(log);
    int n = 0;
    uint64_t last_end = 0;
    for (int crash = 0; crash < 10; crash++) {
        static player a, b;
        join(&a, &sv, "p1");
        join(&b, &sv, "p2");
        double run = 0.2 + (double)(rand() % 1000) / 1000.0;     /* a random moment: 0.2–1.2 s */
        double t0 = now_s();
        while (now_s() - t0 < run) {
            play(&a, rand() % 96, 3 + rand() % 3, log, &n, 20000);
            play(&b, rand() % 96, 3 + rand() % 3, log, &n, 20000);
            usleep(2000 + (useconds_t)(rand() % 8000));
        }
        kill(sv.pid, SIGKILL);
        int st;
        waitpid(sv.pid, &st, 0);
        cli_close(&a.c);
        cli_close(&b.c);
        /* Every acknowledged input survived, and what is there replays bit-exactly. */
        assert_logged(db, log, n);
        uint64_t end;
        assert_verifies(db, &end);
        ck_assert_uint_gt(end, last_end);
        last_end = end;
        ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 1);
        /* Restart on the same file: the session is resumed (no new one is begun). */
        server_start_opts(&sv, later, 0, 0);
        server_cleanup(&sv);                          /* its port file was read; the log lives in dir */
        snprintf(sv.dir, sizeof sv.dir, "%s", dir);
    }
    ck_assert_int_eq(server_stop_keep(&sv), 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 1);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status='suspended'"), 1);
    assert_logged(db, log, n);
    assert_verifies(db, NULL);
    assert_headless_chain(db);
    server_cleanup(&sv);
    free(log);
}
END_TEST

/* The tick of the first frame a new viewer of world 1 gets. */
static uint64_t first_tick(const server *sv)
{
    static cli_conn c;
    static tracker t;
    memset(&t, 0, sizeof t);
    connect_hello(&c, sv, "watch", NULL, NULL);
    sub(&c, 1, 1, NULL, NULL);
    wire_msg m;
    for (int i = 0; i < 50 && t.count[1] == 0; i++) (void)recv_until_not_frame(&c, &t, &m, 100);
    ck_assert_int_gt(t.count[1], 0);
    uint64_t tick = t.f[1].tick;
    cli_close(&c);
    for (int i = 0; i < 16; i++) cli_frame_free(&t.f[i]);
    return tick;
}

/* Ctrl-C (SIGTERM here) three times: each stop suspends the session with a checkpoint at its
 * last tick, each start resumes it there (no new session, the painting kept), and the whole
 * chain, across every restart, equals one headless run fed the same inputs at the same ticks. */
START_TEST(clean_stop_suspends_and_the_next_start_resumes)
{
    server sv;
    const char *const first[] = { "--world", WORLD, NULL };
    server_start(&sv, first);
    char dir[64], db[128];
    snprintf(dir, sizeof dir, "%s", sv.dir);
    snprintf(db, sizeof db, "%s/replay.db", dir);
    const char *const later[] = { "--db", db, NULL };
    acked *log = calloc(4000, sizeof *log);
    ck_assert_ptr_nonnull(log);
    int n = 0;
    uint64_t last_end = 0;
    for (int stop = 0; stop < 3; stop++) {
        if (stop > 0) {
            uint64_t t = first_tick(&sv);             /* resumed where it stopped, not at 0 */
            ck_assert_msg(t >= last_end && t < last_end + 600, "resumed at tick %llu, stopped at %llu",
                          (unsigned long long)t, (unsigned long long)last_end);
        }
        static player a, b;
        join(&a, &sv, "p1");
        join(&b, &sv, "p2");
        for (int k = 0; k < 25; k++) {
            play(&a, 10 + (k * 7 + stop) % 70, 3, log, &n, 4000);
            play(&b, 80 - (k * 5 + stop) % 70, 4, log, &n, 4000);
            usleep(8000);
        }
        usleep(150000);
        play(&a, 1, 3, log, &n, 4000);              /* collect the last acks */
        play(&b, 1, 3, log, &n, 4000);
        cli_close(&a.c);
        cli_close(&b.c);
        ck_assert_int_eq(server_stop_keep(&sv), 0);
        ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 1);
        ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status='suspended'"), 1);
        /* The final checkpoint is at the last tick: the resume replays nothing. */
        ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM checkpoint c JOIN session s ON "
                                        "c.session = s.id AND c.tick = s.end_tick"), 1);
        uint64_t end;
        assert_logged(db, log, n);
        assert_verifies(db, &end);
        ck_assert_uint_gt(end, last_end);
        last_end = end;
        server_start_opts(&sv, later, 0, 0);
        server_cleanup(&sv);
        snprintf(sv.dir, sizeof sv.dir, "%s", dir);
        ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status='running'"), 1);
    }
    ck_assert_int_eq(server_stop_keep(&sv), 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 1);
    ck_assert_int_ge(n, 100);
    assert_logged(db, log, n);
    assert_verifies(db, NULL);
    assert_headless_chain(db);
    server_cleanup(&sv);
    free(log);
}
END_TEST

/* --fresh resumes nothing: the suspended session is closed as it stands and a new one begins. */
START_TEST(fresh_closes_the_suspended_and_starts_new_sessions)
{
    server sv;
    const char *const first[] = { "--world", WORLD, NULL };
    server_start(&sv, first);
    char dir[64], db[128];
    snprintf(dir, sizeof dir, "%s", sv.dir);
    snprintf(db, sizeof db, "%s/replay.db", dir);
    usleep(300000);
    ck_assert_int_eq(server_stop_keep(&sv), 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status='suspended'"), 1);
    const char *const fresh[] = { "--db", db, "--fresh", "--world", WORLD, NULL };
    server_start_opts(&sv, fresh, 0, 0);
    server_cleanup(&sv);
    snprintf(sv.dir, sizeof sv.dir, "%s", dir);
    ck_assert_uint_lt(first_tick(&sv), 60);              /* a new world, from tick 0 */
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 2);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=1 AND status='closed'"), 1);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=2 AND status='running'"), 1);
    ck_assert_int_eq(server_stop_keep(&sv), 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=2 AND status='suspended'"), 1);
    /* Without --fresh, only the suspended one comes back: one world. */
    const char *const later[] = { "--db", db, NULL };
    server_start_opts(&sv, later, 0, 0);
    server_cleanup(&sv);
    snprintf(sv.dir, sizeof sv.dir, "%s", dir);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 2);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=1 AND status='closed'"), 1);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE id=2 AND status='running'"), 1);
    ck_assert_int_eq(server_stop_keep(&sv), 0);
    server_cleanup(&sv);
}
END_TEST

/* A file of schema 1 (tests/compat/before.db) is read as it is, and migrated in place to schema
 * 3 when opened for writing: every session row kept, 'suspended' allowed, the node columns
 * added (NULL: recorded on no named node), and it still verifies
 * (its terrarium and cycle sessions: its sand session predates sand's strip passes, issue 17,
 * and check_compat checks that verify refuses it plainly). */
START_TEST(schema_1_is_migrated_in_place_on_write)
{
    char dir[] = "/tmp/vivmig.XXXXXX", db[128], cmd[512], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/old.db", dir);
    snprintf(cmd, sizeof cmd, "cp compat/before.db %s", db);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), 1);
    int n = count_rows(db, "SELECT count(*) FROM session");
    int closed = count_rows(db, "SELECT count(*) FROM session WHERE status='closed'");
    int ticks = count_rows(db, "SELECT count(*) FROM tick");
    ck_assert_int_gt(n, 0);
    rpl_file *f;
    rpl_verify_opts o = rpl_verify_defaults();
    o.threads = 1;
    rpl_verify_result res;
    static char report[16384];
    /* What each session's verification says before the migration (a session recorded by an
     * older sim version may diverge on purpose: tests/check_compat.c pins which and how); the
     * migration must not change any of these verdicts. */
    enum { MAXS = 16 };
    int before[MAXS];
    ck_assert_int_le(n, MAXS);
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    for (int id = 1; id <= n; id++) {
        o.session = id;
        before[id - 1] = rpl_verify(f, &o, &res, report, sizeof report);
        ck_assert_msg(before[id - 1] == 0 || before[id - 1] == 1, "session %d: %s", id, report);
    }
    rpl_close(f);
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), 1);      /* reading never migrates */
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"UPDATE session SET status='suspended' WHERE id=1\" 2>/dev/null", db);
    ck_assert_int_ne(system(cmd), 0);                                /* schema 1's CHECK */
    ck_assert_msg(rpl_open(db, RPL_WRITE, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_close(f);
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), RPL_SCHEMA);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), n);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE node IS NULL AND origin_id IS NULL"), n);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status='closed'"), closed);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM tick"), ticks);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM sqlite_schema WHERE name='session_v3'"), 0);
    ck_assert_int_eq(count_rows(db, "PRAGMA integrity_check") , -1);   /* "ok", not a number */
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    for (int id = 1; id <= n; id++) {
        o.session = id;
        ck_assert_msg(rpl_verify(f, &o, &res, report, sizeof report) == before[id - 1],
                      "session %d: the migration changed its verdict: %s", id, report);
    }
    rpl_close(f);
    snprintf(cmd, sizeof cmd, "sqlite3 %s \"UPDATE session SET status='suspended' WHERE id=2\"", db);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_session ss;
    ck_assert_int_eq(rpl_session_get(f, 2, &ss, err, sizeof err), 0);
    ck_assert_int_eq(ss.suspended, 1);
    ck_assert_int_eq(ss.running, 0);
    o.session = 2;
    ck_assert_msg(rpl_verify(f, &o, &res, report, sizeof report) == before[1], "%s", report);
    ck_assert_ptr_null(strstr(report, "still running"));            /* suspended: as closed */
    rpl_close(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static void play_op(cli_conn *c, const char *op, long long arg)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    int extra = strcmp(op, "seek") == 0 || strcmp(op, "speed") == 0;
    wire_put_map(&b, extra ? 4 : 3);
    put_kv_str(&b, "t", "play");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    put_kv_str(&b, "op", op);
    if (extra) {
        wire_put_str(&b, strcmp(op, "seek") == 0 ? "tick" : "speed");
        wire_put_uint(&b, (uint64_t)arg);
    }
    wire_msg_end(&b);
    send_msg(c, &b);
    wire_buf_free(&b);
}

/* Wait for the reply to a play op (frames on the way are tracked). */
static void expect_playing(cli_conn *c, tracker *t)
{
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(c, t, &m, 5000), 1);
    ck_assert_msg(cli_msg_is(&m, "playing"), "expected a playing reply");
}

/* The frame a recording shows at tick T is the frame that was recorded at T. */
static void assert_frame_matches_log(rpl_file *f, const tracker *t)
{
    rpl_tick_row row;
    char err[256];
    ck_assert_int_eq(rpl_tick_get(f, 1, t->f[1].tick, &row, err, sizeof err), 0);
    ck_assert(!rpl_hash_differs(row.state_hash, t->f[1].sh, row.bits));
    ck_assert(!rpl_hash_differs(row.frame_hash, sim_frame_hash(&t->f[1].f), row.bits));
    ck_assert_int_ge(row.bits, RPL_HASH_BITS);
}

/* tests/compat/schema3-suspended.db: two sessions (sand, garden) that the last vivd writing
 * schema 3 (f0198ef) recorded for 240 ticks and suspended at a clean stop:
 *     /work/old3/bin/vivd --listen 127.0.0.1:0 --no-http --db schema3-suspended.db \
 *         --world sand:seed=5:w=64,h=48 --world garden:seed=2 --quiet     (SIGINT after ~4 s)
 * Today's vivd migrates the file and resumes both: their old tick rows stay as they were, the
 * ticks after 240 are recorded in blocks, and each session verifies and exports bit-exactly
 * across the two formats. */
START_TEST(a_schema_3_file_resumes_in_schema_4)
{
    char dir[] = "/tmp/vivs3.XXXXXX", db[128], cmd[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/old.db", dir);
    snprintf(cmd, sizeof cmd, "cp compat/schema3-suspended.db %s", db);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), 3);
    server sv;
    const char *const args[] = { "--db", db, NULL };
    server_start_opts(&sv, args, 0, 0);
    usleep(800000);
    ck_assert_int_eq(server_stop(&sv), 0);
    ck_assert_int_eq(count_rows(db, "PRAGMA user_version"), RPL_SCHEMA);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session"), 2);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session WHERE status = 'suspended' AND "
                                    "end_tick > 260"), 2);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM tick"), 480);          /* as they were */
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM tick WHERE tick > 240"), 0);
    ck_assert_int_eq(count_rows(db, "SELECT min(tick) FROM hashes"), 241);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM session s WHERE end_tick = 240 + (SELECT "
                                    "sum(n) FROM hashes h WHERE h.session = s.id)"), 2);
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    for (int64_t id = 1; id <= 2; id++) {
        rpl_session s;
        ck_assert_int_eq(rpl_session_get(f, id, &s, err, sizeof err), 0);
        rpl_verify_opts o = rpl_verify_defaults();
        o.session = id;
        rpl_verify_result res;
        static char report[16384];
        int rc = rpl_verify(f, &o, &res, report, sizeof report);
        ck_assert_msg(rc == 0, "session %lld: %d: %s", (long long)id, rc, report);
        ck_assert_uint_eq(res.ticks, s.end_tick);
        ck_assert_uint_gt(res.partial, 0);
        /* The export of the frames around the seam: every one the recorded one. */
        char gif[160];
        snprintf(gif, sizeof gif, "%s/s%lld.gif", dir, (long long)id);
        rpl_export_opts eo = rpl_export_defaults();
        eo.session = id;
        eo.from = 230;
        eo.to = 250;
        eo.every = 1;
        eo.gif = gif;
        rpl_export_result er;
        ck_assert_msg(rpl_export(f, &eo, &er, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(er.frames, 21);
        ck_assert_uint_eq(er.mismatched, 0);
    }
    rpl_close(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(play_a_recording_pause_step_seek_speed)
{
    char dir[] = "/tmp/vivplay.XXXXXX", db[128], cmd[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/rec.db", dir);
    const char *bin = getenv("VIV_BIN");
    snprintf(cmd, sizeof cmd, "%s/viv sim --world sand --seed 4 --params w=64,h=48,scene=bench --ticks 900 "
             "--inputs golden/sand.inputs --record %s >/dev/null 2>&1", bin ? bin : "../bin", db);
    ck_assert_int_eq(system(cmd), 0);
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, NULL, (const char *const[]){ "--play", db, NULL }, 0, 0);
    wire_msg m;
    e2e_peer *v = e2e_hello(&fx, "viewer", NULL, &m);
    uint32_t ids[4];
    char kinds[4][16];
    ck_assert_int_eq(welcome_worlds(&m, ids, kinds, 4), 1);
    e2e_peer *p = e2e_hello(&fx, "player", PLAYER, NULL);
    e2e_sub(v, 1, 1, NULL, NULL);
    /* Paused at its start: one keyframe, then nothing. */
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 500), 0);
    ck_assert_int_eq(v->t.count[1], 1);
    ck_assert_uint_eq(v->t.f[1].tick, 0);
    /* Resume at 400%: frames flow, each the recorded one. */
    play_op(&p->c, "speed", 400);
    expect_playing(&p->c, &p->t);
    play_op(&p->c, "resume", 0);
    expect_playing(&p->c, &p->t);
    double t0 = now_s();
    while (v->t.count[1] < 120) {
        ck_assert_msg(now_s() - t0 < 10, "playback stalled");
        ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 100), 0);
    }
    ck_assert_msg(now_s() - t0 < 1.5, "400%% speed is too slow: 120 ticks took %.2f s", now_s() - t0);
    assert_frame_matches_log(f, &v->t);
    ck_assert_int_eq(v->t.gaps, 0);
    /* Pause, then step exactly one tick. */
    play_op(&p->c, "pause", 0);
    expect_playing(&p->c, &p->t);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 300), 0);
    uint64_t at = v->t.f[1].tick;
    play_op(&p->c, "step", 0);
    expect_playing(&p->c, &p->t);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 500), 0);
    ck_assert_uint_eq(v->t.f[1].tick, at + 1);
    assert_frame_matches_log(f, &v->t);
    /* Seek back and forward: a keyframe at the target, matching the log. */
    play_op(&p->c, "seek", 31);
    expect_playing(&p->c, &p->t);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 500), 0);
    ck_assert_uint_eq(v->t.f[1].tick, 31);
    assert_frame_matches_log(f, &v->t);
    play_op(&p->c, "seek", 777);
    expect_playing(&p->c, &p->t);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 500), 0);
    ck_assert_uint_eq(v->t.f[1].tick, 777);
    assert_frame_matches_log(f, &v->t);
    /* Sent without waiting: a seek (run off the loop), then a step and a speed, which wait for it
     * and are applied in order once it has landed, each answered then. */
    play_op(&p->c, "seek", 500);
    play_op(&p->c, "step", 0);
    play_op(&p->c, "speed", 200);
    uint64_t at_tick[3], spd[3];
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 5000), 1);
        ck_assert_msg(cli_msg_is(&m, "playing"), "expected the answer to play message %d", k + 1);
        ck_assert_int_eq(wire_get_u64(&m, "tick", &at_tick[k]), 0);
        const wire_val *pv = wire_msg_get(&m, "play");
        ck_assert_ptr_nonnull(pv);
        wire_msg pm;
        ck_assert_int_eq(wire_msg_decode(pv->raw, pv->rawlen, &pm), 0);
        ck_assert_int_eq(wire_get_u64(&pm, "speed", &spd[k]), 0);
    }
    ck_assert_uint_eq(at_tick[0], 500);            /* landed */
    ck_assert_uint_eq(at_tick[1], 500);            /* the step is asked for; it runs at the next tick */
    ck_assert_uint_eq(spd[1], 400);
    ck_assert_uint_eq(spd[2], 200);                /* then the speed */
    double t1 = now_s();
    while (v->t.f[1].tick < 501) {
        ck_assert_msg(now_s() - t1 < 5, "the step that waited for the seek did not run");
        ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 100), 0);
    }
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 300), 0);
    ck_assert_uint_eq(v->t.f[1].tick, 501);        /* one step, from the landing tick */
    assert_frame_matches_log(f, &v->t);
    /* Read-only: inputs are refused; bad ops get an error. */
    acked a;
    send_paint(&p->c, 1, 5, 5, 2, 3, &a, 0);
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 2000), 1);
    ck_assert(cli_msg_is(&m, "error"));
    play_op(&p->c, "seek", 100000);
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 2000), 1);
    ck_assert(cli_msg_is(&m, "error"));
    play_op(&v->c, "pause", 0);                          /* viewers cannot control */
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 2000), 1);
    ck_assert(cli_msg_is(&m, "error"));
    /* Play to the end: it pauses there. */
    play_op(&p->c, "speed", 1000);
    expect_playing(&p->c, &p->t);
    play_op(&p->c, "resume", 0);
    expect_playing(&p->c, &p->t);
    t0 = now_s();
    while (v->t.f[1].tick < 900) {
        ck_assert_msg(now_s() - t0 < 10, "did not reach the end");
        ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 100), 0);
    }
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 300), 0);
    ck_assert_uint_eq(v->t.f[1].tick, 900);
    assert_frame_matches_log(f, &v->t);
    rpl_close(f);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- forks (issue 29) ------------------------------------------------------------------------------ */
/* The state session `session` of db had at `tick`, stepped on with no input to `to`, drawn: what a
 * world forked there shows at `to` until someone sends it an input. */
static void forked_frame(const char *db, int64_t session, uint64_t tick, uint64_t to, sim_frame *fr)
{
    rpl_file *f;
    rpl_session s;
    sim_world *w;
    uint64_t sh, fh, cp;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(rpl_session_get(f, session, &s, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(rpl_state_at(f, &s, tick, &w, &sh, &fh, &cp, NULL, NULL, err, sizeof err) == 0, "%s", err);
    while (sim_world_tick(w) < to) sim_world_step(w);
    ck_assert_int_eq(sim_world_frame_init(w, fr), 0);
    sim_world_render(w, 0, fr);
    sim_world_destroy(w);
    rpl_close(f);
}

/* The first frame p saw of world id is the frame expected there, byte for byte. */
static void assert_first_frame(const e2e_peer *p, uint32_t id, const char *db, int64_t session,
                               uint64_t tick)
{
    sim_frame want;
    const sim_frame *got = &p->t.f[id].f;
    ck_assert_uint_ge(p->t.f[id].tick, tick);
    forked_frame(db, session, tick, p->t.f[id].tick, &want);
    ck_assert_uint_eq(got->w, want.w);
    ck_assert_uint_eq(got->h, want.h);
    ck_assert_msg(memcmp(got->px, want.px, (size_t)want.w * want.h) == 0,
                  "world %u's first frame (tick %llu) is not the forked state's", id,
                  (unsigned long long)p->t.f[id].tick);
    sim_frame_free(&want);
}

static void send_fork(cli_conn *c, uint32_t world, uint64_t tick)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", "fork");
    wire_put_str(&b, "world"); wire_put_uint(&b, world);
    wire_put_str(&b, "tick"); wire_put_uint(&b, tick);
    wire_msg_end(&b);
    send_msg(c, &b);
    wire_buf_free(&b);
}

/* The answer to a fork: the new world's id (forked) or 0 with the error code in code. */
static uint32_t fork_answer(e2e_peer *p, char *code, size_t cap)
{
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
    ck_assert_msg(cli_msg_is(&m, "forked"), "expected forked");
    const wire_val *wv = wire_msg_get(&m, "world");
    ck_assert_ptr_nonnull(wv);
    wire_msg e;
    uint64_t id;
    ck_assert_int_eq(wire_msg_decode(wv->raw, wv->rawlen, &e), 0);
    ck_assert_int_eq(wire_get_u64(&e, "id", &id), 0);
    return (uint32_t)id;
}

/* A paint input to world `world`; its ack (with the seq) awaited. */
static void paint_acked(e2e_peer *p, uint32_t world, uint32_t seq)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 5);
    put_kv_str(&b, "t", "input");
    wire_put_str(&b, "world"); wire_put_uint(&b, world);
    wire_put_str(&b, "seq"); wire_put_uint(&b, seq);
    put_kv_str(&b, "kind", "paint");
    wire_put_str(&b, "args"); wire_put_array(&b, 4);
    wire_put_int(&b, 12); wire_put_int(&b, 8); wire_put_int(&b, 3); wire_put_int(&b, 1);
    wire_msg_end(&b);
    send_msg(&p->c, &b);
    wire_buf_free(&b);
    wire_msg m;
    uint64_t got;
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 10000), 1);
    ck_assert_msg(cli_msg_is(&m, "ack"), "expected the ack of an input to world %u", world);
    ck_assert_int_eq(wire_get_u64(&m, "seq", &got), 0);
    ck_assert_uint_eq(got, seq);
}

static void record_sand(const char *db)
{
    char cmd[512], in[160];
    snprintf(in, sizeof in, "%s.in", db);
    FILE *fp = fopen(in, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("10 paint 20 10 4 sand\n50 paint 30 10 3 water\n", fp);
    fclose(fp);
    const char *bin = getenv("VIV_BIN");
    snprintf(cmd, sizeof cmd, "%s/viv sim --world sand --params w=64,h=48 --ticks 900 --inputs %s "
             "--record %s >/dev/null 2>&1", bin ? bin : "../bin", in, db);
    ck_assert_int_eq(system(cmd), 0);
}

/* `viv replay fork` writes a suspended session; a vivd on the file resumes it as a live world:
 * its first frame is the parent's (the parent has no input after tick 50, so its frames go on
 * exactly as the fork's), and an input to it is acknowledged. */
START_TEST(a_forked_file_resumes_as_a_live_world)
{
    char dir[] = "/tmp/vivfork.XXXXXX", db[128], cmd[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/rec.db", dir);
    record_sand(db);
    const char *bin = getenv("VIV_BIN");
    snprintf(cmd, sizeof cmd, "%s/viv replay fork %s --session 1 --tick 700 --quiet >/dev/null",
             bin ? bin : "../bin", db);
    ck_assert_int_eq(system(cmd), 0);
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, NULL, (const char *const[]){ "--db", db, NULL }, 0, 0);
    wire_msg m;
    e2e_peer *p = e2e_hello(&fx, "player", PLAYER, &m);
    uint32_t ids[4];
    char kinds[4][16];
    ck_assert_int_eq(welcome_worlds(&m, ids, kinds, 4), 1);     /* the fork, resumed */
    e2e_sub(p, ids[0], 1, NULL, NULL);
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 300), 0);
    ck_assert_int_ge(p->t.count[ids[0]], 1);
    sim_frame at;
    /* the frame the parent recorded at the first tick seen: its replay, drawn */
    forked_frame(db, 1, p->t.f[ids[0]].tick, p->t.f[ids[0]].tick, &at);
    ck_assert_msg(memcmp(at.px, p->t.f[ids[0]].f.px, (size_t)at.w * at.h) == 0,
                  "the resumed fork's frame at %llu is not the parent's",
                  (unsigned long long)p->t.f[ids[0]].tick);
    sim_frame_free(&at);
    assert_first_frame(p, ids[0], db, 1, 700);
    acked a;
    send_paint(&p->c, 1, 12, 8, 3, 1, &a, p->client);
    wait_ack(&p->c, &p->t, &a);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
    snprintf(cmd, sizeof cmd, "%s/viv replay verify %s --session 2 --quiet >/dev/null", bin ? bin : "../bin", db);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The fork message: a player forks a recording (--play) at a tick and a live world's recorded
 * past into new live worlds; each first frame is the forked state's, byte for byte; inputs to
 * the new world are acknowledged; a viewer and a bad tick are refused; the file verifies, each
 * fork's start checked against its parent. */
START_TEST(fork_message_a_recording_and_a_live_worlds_past)
{
    char dir[] = "/tmp/vivforkm.XXXXXX", db[128], cmd[768], err[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/rec.db", dir);
    record_sand(db);
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, NULL, (const char *const[]){ "--play", db, NULL }, 0, 0);
    e2e_peer *v = e2e_hello(&fx, "viewer", NULL, NULL);
    e2e_peer *p = e2e_hello(&fx, "player", PLAYER, NULL);
    char code[32];
    send_fork(&v->c, 1, 300);
    ck_assert_uint_eq(fork_answer(v, code, sizeof code), 0);
    ck_assert_str_eq(code, "forbidden");
    send_fork(&p->c, 1, 100000);
    ck_assert_uint_eq(fork_answer(p, code, sizeof code), 0);
    ck_assert_str_eq(code, "bad_field");
    send_fork(&p->c, 99, 10);
    ck_assert_uint_eq(fork_answer(p, code, sizeof code), 0);
    ck_assert_str_eq(code, "unknown_world");
    /* A recording at tick 300. */
    send_fork(&p->c, 1, 300);
    uint32_t a = fork_answer(p, code, sizeof code);
    ck_assert_msg(a != 0, "fork refused: %s", code);
    wire_msg m;
    e2e_sub(v, a, 1, NULL, NULL);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 300), 0);
    ck_assert_int_ge(v->t.count[a], 1);
    assert_first_frame(v, a, db, 1, 300);
    paint_acked(p, a, 1);
    /* A live world's past: world a's, at a tick it has recorded. */
    uint64_t at = v->t.f[a].tick;
    double t0 = now_s();
    while (v->t.f[a].tick < at + 30) {
        ck_assert_msg(now_s() - t0 < 20, "world %u does not tick", a);
        ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 100), 0);
    }
    send_fork(&p->c, a, at + 5);
    uint32_t b = fork_answer(p, code, sizeof code);
    ck_assert_msg(b != 0, "fork of a live world refused: %s", code);
    send_fork(&p->c, a, v->t.f[a].tick + 100000);                 /* its future */
    ck_assert_uint_eq(fork_answer(p, code, sizeof code), 0);
    ck_assert_str_eq(code, "bad_field");
    e2e_sub(v, b, 1, NULL, NULL);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 300), 0);
    ck_assert_int_ge(v->t.count[b], 1);
    ck_assert_uint_ge(v->t.f[b].tick, at + 5);
    /* b's first frame is a's recorded state at at + 5 (a's session in the vivd's file) stepped on */
    char own[160];
    snprintf(own, sizeof own, "%s/replay.db", fx.sv.dir);
    rpl_file *f;
    ck_assert_msg(rpl_open(own, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_lineage lin;
    /* the vivd's sessions: a's is 1, b's is 2 */
    ck_assert_int_eq(rpl_lineage_get(f, 2, &lin, err, sizeof err), 1);
    ck_assert_int_eq(lin.parent, 1);
    ck_assert_uint_eq(lin.tick, at + 5);
    ck_assert_str_eq(lin.parent_file, "");
    ck_assert_int_eq(rpl_lineage_get(f, 1, &lin, err, sizeof err), 1);
    ck_assert_uint_eq(lin.tick, 300);
    ck_assert_msg(lin.parent_file[0] != '\0', "a fork of a --play file names that file");
    rpl_close(f);
    assert_first_frame(v, b, own, 1, at + 5);
    ck_assert_int_eq(e2e_fixture_stop_keep(&fx), 0);
    const char *bin = getenv("VIV_BIN");
    snprintf(cmd, sizeof cmd, "%s/viv replay verify %s --all --quiet > %s/verify.txt 2>&1",
             bin ? bin : "../bin", own, dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(own, sizeof own, "%s/verify.txt", dir);
    ck_assert(file_contains(own, "lineage: the start is session 1's recorded state at tick"));
    ck_assert(file_contains(own, "lineage NOT CHECKED: forked from session 1 of"));
    server_cleanup(&fx.sv);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_record(void)
{
    Suite *s = suite_create("record");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, two_players_then_sigterm_verifies);
    tcase_add_test(tc, kill_9_ten_times_resumes_bit_exactly);
    tcase_add_test(tc, clean_stop_suspends_and_the_next_start_resumes);
    tcase_add_test(tc, fresh_closes_the_suspended_and_starts_new_sessions);
    tcase_add_test(tc, schema_1_is_migrated_in_place_on_write);
    tcase_add_test(tc, a_schema_3_file_resumes_in_schema_4);
    tcase_add_test(tc, play_a_recording_pause_step_seek_speed);
    tcase_add_test(tc, a_forked_file_resumes_as_a_live_world);
    tcase_add_test(tc, fork_message_a_recording_and_a_live_worlds_past);
    suite_add_tcase(s, tc);
    return s;
}
