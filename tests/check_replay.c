/* check_replay.c — reading, verifying and exporting replay files (replay/read.c, verify.c,
 * export.c) and `viv replay`: a session recorded headless with scripted inputs verifies
 * bit-exactly, with and without the sync test; one flipped input makes verify fail at exactly the
 * tick that shows it, with a report naming the cells that differ; the GIF and PNG exports decode
 * with giflib and libpng to the world's own pictures; every kind of bad file gets its clear
 * sentence, no crash, and is left exactly as it was. */
#include <check.h>
#include <dirent.h>
#include <gif_lib.h>
#include <png.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>
#include "check_suites.h"
#include "files.h"
#include "read.h"
#include "script.h"
#include "sand/sand.h"

#define PARAMS "w=64,h=48,scene=demo"
#define TICKS 240
#define CP_EVERY 60
#define FLIP_TICK 35                   /* a scripted input's tick (10, 35, 60, …) */

static char dir[64];

static void dir_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/vivreplay.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            rm_tree(p);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void dir_teardown(void) { rm_tree(dir); }

/* A path in the test's directory. The buffers rotate: keep a copy of a path needed for long. */
static const char *tmp(const char *name)
{
    static char buf[16][256];
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static sim_world *mk(uint64_t seed) { return script_world("sand", seed, PARAMS); }

/* The files these tests record hold schema 3's rows (a tick row a tick, whole checkpoints), which
 * every reader still reads: most tests here damage them with SQL. The tests of schema 4's blocks
 * and delta checkpoints (tcase "blocks") record as vivd does now. */
static int rec_legacy = 1;
/* With rec_handoff, record_world hands each checkpoint to the recorder (rpl_recorder_tick_own, in
 * a buffer of rpl_recorder_cp_buffer's), as vivd and viv sim do, and counts in rec_reused the
 * checkpoints whose buffer was the one the recorder had written before. */
static int rec_handoff = 0;
static int rec_reused = 0;

/* The script's input at tick t, queued into w: a paint of water every 25 ticks from tick 10
 * (*seq counts them). 1 with *in filled, or 0 at a tick without one. */
static size_t paint_input(sim_world *w, uint64_t t, uint32_t *seq, sim_input *in)
{
    if (t % 25 != 10) return 0;
    char line[80], err[512];
    snprintf(line, sizeof line, "%llu paint %d 10 3 water", (unsigned long long)t, (int)(8 + t % 40));
    ck_assert_int_eq(sim_input_parse_line(sim_world_kind(w), line, in, err, sizeof err), 0);
    in->client = 0;
    in->seq = ++*seq;
    ck_assert_msg(sim_world_input(w, in) == 0, "%s", sim_world_error(w));
    return 1;
}

/* Record one headless session of world w through the real recorder: a paint of water every 25
 * ticks from tick 10, hashes every tick, a checkpoint every CP_EVERY ticks. Returns the id. */
static int64_t record_world(rpl_recorder *r, sim_world *w, int ticks)
{
    char err[512];
    int64_t id = rpl_recorder_begin(r, w, "viv sim", -1, CP_EVERY, err, sizeof err);
    ck_assert_msg(id > 0, "begin: %s", err);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t cap = sim_world_save_max(w);
    uint8_t *cp = malloc(cap);
    uint32_t seq = 0;
    uint64_t t0 = sim_world_tick(w);
    for (uint64_t t = t0; t < t0 + (uint64_t)ticks; t++) {
        sim_input in;
        size_t nin = paint_input(w, t, &seq, &in);
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        if (rec_handoff && (t + 1) % CP_EVERY == 0) {
            static uint8_t *written;       /* the last buffer handed over, once written */
            uint8_t *buf = rpl_recorder_cp_buffer(r, cap);
            ck_assert_ptr_nonnull(buf);
            rec_reused += buf == written;
            size_t len = sim_world_save(w, buf, cap);
            ck_assert_uint_gt(len, 0);
            ck_assert_int_eq(rpl_recorder_tick_own(r, id, t, nin ? &in : NULL, nin, sim_world_hash(w),
                                                   sim_frame_hash(&f), buf, len, cap, NULL, 0), 0);
            ck_assert_int_eq(rpl_recorder_flush(r), 0);   /* written: the buffer is kept */
            written = buf;
            uint8_t *bigger = rpl_recorder_cp_buffer(r, 2 * cap);      /* none kept is that big */
            ck_assert_ptr_nonnull(bigger);
            ck_assert_ptr_ne(bigger, written);
            free(bigger);
            continue;
        }
        size_t len = (t + 1) % CP_EVERY == 0 ? sim_world_save(w, cp, cap) : 0;
        ck_assert_int_eq(rpl_recorder_tick(r, id, t, nin ? &in : NULL, nin, sim_world_hash(w),
                                           sim_frame_hash(&f), len ? cp : NULL, len), 0);
    }
    rpl_recorder_end(r, id);
    free(cp);
    sim_frame_free(&f);
    return id;
}

/* A file holding `n` sessions (seeds 1, 2, …), each TICKS ticks. */
static void record_file(const char *path, int n)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.legacy = rec_legacy;
    rc.path = path;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    for (int i = 0; i < n; i++) {
        sim_world *w = mk((uint64_t)i + 1);
        ck_assert_int_eq(record_world(r, w, TICKS), i + 1);
        sim_world_destroy(w);
    }
    ck_assert_int_eq(rpl_recorder_close(r), 0);
}

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) ck_assert_uint_eq(fwrite(buf, 1, n, b), n);
    fclose(a);
    ck_assert_int_eq(fclose(b), 0);
}

/* Run SQL on a file with a plain connection (to damage copies on purpose). */
static void sql(const char *path, const char *text)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, text, NULL, NULL, &msg);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", text, msg ? msg : "?");
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

static rpl_file *open_ok(const char *path)
{
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    return f;
}

typedef struct verdict {
    int rc;
    rpl_verify_result r;
    char report[65536];
} verdict;

static verdict *verify(const char *path, uint64_t from, uint64_t to, int sync_test, int threads)
{
    static verdict v;
    rpl_file *f = open_ok(path);
    rpl_verify_opts o = rpl_verify_defaults();
    o.session = 1;
    o.from = from;
    o.to = to;
    o.sync_test = sync_test;
    o.threads = threads;
    v.rc = rpl_verify(f, &o, &v.r, v.report, sizeof v.report);
    rpl_close(f);
    return &v;
}

static int export(const char *db, const char *gif, const char *png_dir, uint64_t from, uint64_t to,
                  uint64_t every, int scale, rpl_export_result *r, char *err, size_t errlen);

/* ---- verify ------------------------------------------------------------------------------------- */
/* Checkpoints handed to the recorder instead of copied (rpl_recorder_tick_own) are written as the
 * copied ones are, and each buffer comes back for the next checkpoint once written. */
START_TEST(checkpoints_handed_over_are_written_and_their_buffers_reused)
{
    const char *db = tmp("own.db"), *copied = tmp("copied.db");
    rec_handoff = 1;
    rec_reused = 0;
    record_file(db, 1);
    rec_handoff = 0;
    ck_assert_int_eq(rec_reused, TICKS / CP_EVERY - 1);      /* all but the first */
    record_file(copied, 1);
    verdict *v = verify(db, 0, UINT64_MAX, 0, 2);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.ticks, TICKS);
    /* the same rows as a recording whose checkpoints were copied */
    rpl_file *a = open_ok(db), *b = open_ok(copied);
    rpl_session sa, sb;
    char err[512];
    ck_assert_int_eq(rpl_session_get(a, 1, &sa, err, sizeof err), 0);
    ck_assert_int_eq(rpl_session_get(b, 1, &sb, err, sizeof err), 0);
    int n = 0;
    for (uint64_t t = 0; t <= TICKS; t += CP_EVERY) {
        rpl_checkpoint ca, cb;
        ck_assert_int_eq(rpl_checkpoint_find(a, &sa, t, RPL_AT_OR_BEFORE, &ca, err, sizeof err), 0);
        ck_assert_int_eq(rpl_checkpoint_find(b, &sb, t, RPL_AT_OR_BEFORE, &cb, err, sizeof err), 0);
        ck_assert_uint_eq(ca.tick, cb.tick);
        ck_assert_uint_eq(ca.hash, cb.hash);
        ck_assert(ca.len == cb.len && memcmp(ca.state, cb.state, ca.len) == 0);
        n += ca.tick == t;
        rpl_checkpoint_free(&ca);
        rpl_checkpoint_free(&cb);
    }
    ck_assert_int_eq(n, TICKS / CP_EVERY + 1);
    rpl_close(a);
    rpl_close(b);
}
END_TEST

START_TEST(recorded_session_verifies_bit_exact)
{
    const char *db = tmp("run.db");
    record_file(db, 1);
    for (int threads = 1; threads <= 3; threads++) {
        for (int sync_test = 0; sync_test <= 1; sync_test++) {
            verdict *v = verify(db, 0, UINT64_MAX, sync_test, threads);
            ck_assert_msg(v->rc == 0, "threads %d sync %d: %s", threads, sync_test, v->report);
            ck_assert_uint_eq(v->r.ticks, TICKS);
            ck_assert_uint_eq(v->r.first, 0);
            ck_assert_uint_eq(v->r.last, TICKS);
            ck_assert_uint_eq(v->r.skipped, 0);
            ck_assert_ptr_nonnull(strstr(v->report, "bit-exact"));
            ck_assert_int_eq(strstr(v->report, "sync test passed") != NULL, sync_test);
            ck_assert_str_eq(v->r.warning, "");
            /* The CPU-time critical path: the calling thread's CPU plus the busiest span
             * thread's, each at most the run's wall time (0 when a pass pool also ran). */
            if (threads == 1) ck_assert(v->r.cpu_critical > 0.0);
            ck_assert(v->r.cpu_critical >= 0.0 && v->r.cpu_critical <= 2.0 * v->r.seconds + 0.01);
        }
    }
    /* --from seeks through the nearest checkpoint at or before it; --to stops there. */
    verdict *v = verify(db, 130, 200, 0, 1);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.first, 120);
    ck_assert_uint_eq(v->r.last, 200);
    ck_assert_uint_eq(v->r.ticks, 80);
}
END_TEST

/* Flip the element (water → sand) of the input logged at `tick` in a copy of the file. */
static void flip_input_at(const char *path, int tick)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    uint8_t args[16];
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT args FROM input WHERE session = 1 AND tick = ?",
                                        -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int(st, 1, tick);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_bytes(st, 0), 16);          /* paint x y r element */
    memcpy(args, sqlite3_column_blob(st, 0), 16);
    sqlite3_finalize(st);
    ck_assert_int_eq(args[12], 4);                               /* water … */
    args[12] = 3;                                                /* … becomes sand */
    ck_assert_int_eq(sqlite3_prepare_v2(db, "UPDATE input SET args = ? WHERE session = 1 AND tick = ?",
                                        -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_blob(st, 1, args, 16, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, tick);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    ck_assert_int_eq(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

static void flip_input(const char *path) { flip_input_at(path, FLIP_TICK); }

START_TEST(flipped_input_diverges_at_its_tick)
{
    const char *db = tmp("run.db"), *bad = tmp("flipped.db");
    record_file(db, 1);
    copy_file(db, bad);
    flip_input(bad);
    for (int threads = 1; threads <= 2; threads++) {
        for (int sync_test = 0; sync_test <= 1; sync_test++) {
            verdict *v = verify(bad, 0, UINT64_MAX, sync_test, threads);
            ck_assert_msg(v->rc == 1, "threads %d: rc %d: %s", threads, v->rc, v->report);
            ck_assert_uint_eq(v->r.diverged_at, FLIP_TICK + 1);
            ck_assert_msg(strstr(v->report, "first divergent tick: 36 ") != NULL, "%s", v->report);
            ck_assert_msg(strstr(v->report, "state hash  recorded") && strstr(v->report, "DIFFERENT"),
                          "%s", v->report);
            /* The input of that step, by name, as the log holds it. */
            ck_assert_msg(strstr(v->report, "inputs applied at tick 35") &&
                          strstr(v->report, "client 0 seq 2: paint x=43 y=10 r=3 element=sand"),
                          "%s", v->report);
            /* The field-level diff against the next checkpoint names differing cells. */
            ck_assert_msg(strstr(v->report, "field-level diff at tick 60"), "%s", v->report);
            ck_assert_msg(strstr(v->report, "cell ("), "%s", v->report);
            ck_assert_msg(strstr(v->report, "→ sand"), "%s", v->report);
        }
    }
    /* An export of the copy says its frames are not what was recorded, from that tick on. */
    char err[512];
    rpl_export_result r;
    ck_assert_msg(export(bad, tmp("flipped.gif"), NULL, 30, 40, 1, 1, &r, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_uint_eq(r.frames, 11);
    ck_assert_uint_eq(r.mismatched, 5);              /* ticks 36..40 */
    ck_assert_msg(strstr(r.warning, "the frame of tick 36"), "%s", r.warning);
    /* Before the flipped input, and from the checkpoint after it, the copy still verifies. */
    ck_assert_int_eq(verify(bad, 0, FLIP_TICK + 0, 0, 1)->rc, 0);
    ck_assert_int_eq(verify(bad, 60, UINT64_MAX, 0, 2)->rc, 0);
    /* The original is untouched by all this and still bit-exact. */
    ck_assert_int_eq(verify(db, 0, UINT64_MAX, 0, 0)->rc, 0);
}
END_TEST

START_TEST(divergence_without_a_later_checkpoint_recomputes_live)
{
    const char *db = tmp("run.db");
    record_file(db, 1);
    /* Drop the checkpoints after the flipped input: no recorded state to diff fields against. */
    flip_input(db);
    sql(db, "DELETE FROM checkpoint WHERE tick > 0");
    verdict *v = verify(db, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == 1, "%s", v->report);
    ck_assert_uint_eq(v->r.diverged_at, FLIP_TICK + 1);
    ck_assert_msg(strstr(v->report, "no recorded checkpoint at or after tick 36"), "%s", v->report);
    ck_assert_msg(strstr(v->report, "live recomputation: a second replay"), "%s", v->report);
}
END_TEST

START_TEST(initial_state_must_be_what_the_build_creates)
{
    const char *db = tmp("run.db");
    char err[512];
    /* A world at tick 0 whose cells are not what (kind, seed, params) make: cell (0,0) → stone. */
    sim_world *w = mk(1);
    size_t cap = sim_world_save_max(w);
    uint8_t *b = malloc(cap);
    size_t n = sim_world_save(w, b, cap);
    size_t cells = 34 + strlen(sim_world_params(w)) + 4 + 5;
    ck_assert_uint_lt(cells, n);
    b[cells] = 2;                       /* element byte of cell (0,0): stone */
    ck_assert_int_eq(sim_world_load(w, b, n), 0);
    rpl_rec_config rc = { 0 };
    rc.legacy = rec_legacy;
    rc.path = db;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_ptr_nonnull(r);
    record_world(r, w, 30);
    ck_assert_int_eq(rpl_recorder_close(r), 0);
    for (int threads = 1; threads <= 2; threads++) {    /* 2: the check runs beside the spans */
        verdict *v = verify(db, 0, UINT64_MAX, 0, threads);
        ck_assert_msg(v->rc == 1, "%s", v->report);
        ck_assert_uint_eq(v->r.diverged_at, 0);
        ck_assert_msg(strstr(v->report, "tick 0: the recorded initial state is not what this build"),
                      "%s", v->report);
        ck_assert_msg(strstr(v->report, "cell (0,0): stone"), "%s", v->report);
        ck_assert_msg(!strstr(v->report, "bit-exact"), "%s", v->report);
    }
    free(b);
    sim_world_destroy(w);
}
END_TEST

START_TEST(gaps_are_skipped_and_named)
{
    const char *db = tmp("run.db"), *g2 = tmp("gap2.db"), *hole = tmp("hole.db");
    record_file(db, 1);
    copy_file(db, g2);
    copy_file(db, hole);
    /* What the recorder leaves after failed writes: [100, 120) lost, a checkpoint at 120. */
    sql(db, "DELETE FROM input WHERE tick >= 100 AND tick < 120;"
            "DELETE FROM tick WHERE tick > 100 AND tick < 120;"
            "INSERT INTO gap VALUES (1, 100, 120, 'disk full')");
    for (int threads = 1; threads <= 2; threads++) {
        verdict *v = verify(db, 0, UINT64_MAX, threads == 2, threads);
        ck_assert_msg(v->rc == 0, "%s", v->report);
        ck_assert_uint_eq(v->r.skipped, 20);
        ck_assert_uint_eq(v->r.ticks, TICKS - 20);
        ck_assert_msg(strstr(v->report, "NOT VERIFIED: ticks [100, 120) (20 ticks) were not recorded "
                             "(disk full); the replay restarted from the checkpoint at tick 120"),
                      "%s", v->report);
    }
    /* A gap whose end has no checkpoint: the replay resumes at the next one. */
    sql(g2, "DELETE FROM tick WHERE tick > 100 AND tick < 110;"
            "INSERT INTO gap VALUES (1, 100, 110, 'I/O error')");
    verdict *v = verify(g2, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.skipped, 20);
    ck_assert_msg(strstr(v->report, "[100, 120)") && strstr(v->report, "no checkpoint at its end tick 110"),
                  "%s", v->report);
    /* A hash row missing with no gap to explain it is damage: not a pass, not a divergence. */
    sql(hole, "DELETE FROM tick WHERE tick = 77");
    v = verify(hole, 0, UINT64_MAX, 0, 2);
    ck_assert_msg(v->rc == RPL_ECORRUPT, "%s", v->report);
    ck_assert_msg(strstr(v->report, "is damaged: the recorded hashes of tick 77 are missing"), "%s", v->report);
}
END_TEST

/* ---- reading ------------------------------------------------------------------------------------- */
START_TEST(sessions_are_listed_and_looked_up)
{
    const char *db = tmp("two.db");
    char err[512];
    record_file(db, 2);
    rpl_file *f = open_ok(db);
    rpl_session_info *v;
    size_t n;
    ck_assert_int_eq(rpl_sessions_list(f, &v, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(v[i].s.id, (int64_t)i + 1);
        ck_assert_str_eq(v[i].s.kind, "sand");
        ck_assert_uint_eq(v[i].s.seed, i + 1);
        ck_assert_str_eq(v[i].s.params, PARAMS);
        ck_assert_str_eq(v[i].s.sim_version, SIM_VERSION);
        ck_assert_uint_eq(v[i].s.hz, 60);
        ck_assert_uint_eq(v[i].s.end_tick, TICKS);
        ck_assert_int_eq(v[i].s.running, 0);
        ck_assert_uint_eq(v[i].inputs, 10);            /* ticks 10, 35, …, 235 */
        ck_assert_uint_eq(v[i].ticks, TICKS);
        ck_assert_uint_eq(v[i].checkpoints, TICKS / CP_EVERY + 1);
        ck_assert_uint_eq(v[i].gaps, 0);
    }
    free(v);
    rpl_session s;
    ck_assert_int_eq(rpl_session_get(f, 3, &s, err, sizeof err), RPL_ENOSESSION);
    char want[512];
    snprintf(want, sizeof want, "session 3 not found in %s (sessions: 1, 2)", db);
    ck_assert_str_eq(err, want);
    int64_t only;
    ck_assert_int_eq(rpl_session_only(f, &only, err, sizeof err), RPL_EUSAGE);
    ck_assert_ptr_nonnull(strstr(err, "holds 2 sessions (1, 2): pick one with --session N"));
    /* Inputs come back as the world consumed them, in (tick, client, seq) order. */
    sim_input *in;
    ck_assert_int_eq(rpl_inputs_load(f, 2, 0, UINT64_MAX, NULL, &in, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 10);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(in[i].tick, 10 + 25 * i);
        ck_assert_uint_eq(in[i].seq, i + 1);
        ck_assert_uint_eq(in[i].nargs, 4);
        ck_assert_int_eq(in[i].args[0], (int32_t)(8 + in[i].tick % 40));
        ck_assert_int_eq(in[i].args[3], 4);
    }
    free(in);
    /* Checkpoints, nearest in either direction, checked against their recorded hash. */
    rpl_checkpoint cp;
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), 0);
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, 100, RPL_AT_OR_BEFORE, &cp, err, sizeof err), 0);
    ck_assert_uint_eq(cp.tick, 60);
    rpl_checkpoint_free(&cp);
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, 100, RPL_AT_OR_AFTER, &cp, err, sizeof err), 0);
    ck_assert_uint_eq(cp.tick, 120);
    rpl_tick_row row;
    ck_assert_int_eq(rpl_tick_get(f, 1, 120, &row, err, sizeof err), 0);
    ck_assert_uint_eq(row.state_hash, cp.hash);
    rpl_checkpoint_free(&cp);
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, TICKS + 1, RPL_AT_OR_AFTER, &cp, err, sizeof err), 1);
    rpl_close(f);
}
END_TEST

/* The readers keep their statements prepared (rpl_stmt_prepare, rpl_stmt_done): a second read of
 * a query runs the statement the first one prepared, and a statement in use (an open inputs
 * cursor's) is never handed to another read meanwhile. */
START_TEST(reads_keep_their_statements)
{
    const char *db = tmp("kept.db");
    char err[512];
    record_file(db, 1);
    rpl_file *f = open_ok(db);
    sqlite3 *c = rpl_db(f);
    ck_assert_ptr_null(sqlite3_next_stmt(c, NULL));
    rpl_session s;
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), 0);
    sqlite3_stmt *kept = sqlite3_next_stmt(c, NULL);
    ck_assert_ptr_nonnull(kept);
    ck_assert_ptr_null(sqlite3_next_stmt(c, kept));
    ck_assert_int_eq(sqlite3_stmt_busy(kept), 0);
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), 0);
    ck_assert_ptr_eq(sqlite3_next_stmt(c, NULL), kept);
    ck_assert_ptr_null(sqlite3_next_stmt(c, kept));
    ck_assert_uint_eq(s.end_tick, TICKS);
    /* The inputs' statement, kept by a load, taken by a cursor; a load meanwhile gets its own. */
    sim_input *all;
    size_t n;
    ck_assert_int_eq(rpl_inputs_load(f, 1, 0, UINT64_MAX, NULL, &all, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 10);
    free(all);
    rpl_inputs *it;
    ck_assert_int_eq(rpl_inputs_open(f, 1, 0, UINT64_MAX, NULL, &it, err, sizeof err), 0);
    sim_input in;
    ck_assert_int_eq(rpl_inputs_next(it, &in), 1);
    ck_assert_uint_eq(in.tick, 10);
    ck_assert_int_eq(rpl_inputs_load(f, 1, 100, UINT64_MAX, NULL, &all, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 6);                           /* ticks 110, 135, …, 235 */
    ck_assert_uint_eq(all[0].tick, 110);
    free(all);
    for (size_t i = 1; i < 10; i++) {
        ck_assert_int_eq(rpl_inputs_next(it, &in), 1);
        ck_assert_uint_eq(in.tick, 10 + 25 * i);
    }
    ck_assert_int_eq(rpl_inputs_next(it, &in), 0);
    rpl_inputs_close(it);
    rpl_close(f);
}
END_TEST

/* ---- export -------------------------------------------------------------------------------------- */
static sim_frame initial_frame(void)
{
    sim_world *w = mk(1);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    sim_world_destroy(w);
    return f;
}

static int export(const char *db, const char *gif, const char *png_dir, uint64_t from, uint64_t to,
                  uint64_t every, int scale, rpl_export_result *r, char *err, size_t errlen)
{
    rpl_file *f = open_ok(db);
    rpl_export_opts o = rpl_export_defaults();
    o.session = 1;
    o.gif = gif;
    o.png_dir = png_dir;
    o.from = from;
    o.to = to;
    o.every = every;
    o.scale = scale;
    int rc = rpl_export(f, &o, r, err, errlen);
    rpl_close(f);
    return rc;
}

START_TEST(gif_export_decodes_to_the_worlds_frames)
{
    const char *db = tmp("run.db"), *gif = tmp("out.gif");
    char err[512];
    rpl_export_result r;
    record_file(db, 1);
    ck_assert_msg(export(db, gif, NULL, 0, UINT64_MAX, 0, 2, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.every, 2);                    /* 60 Hz: 2 ticks = 3.33/100 s a frame */
    ck_assert_uint_eq(r.frames, TICKS / 2 + 1);
    ck_assert_uint_eq(r.first, 0);
    ck_assert_uint_eq(r.last, TICKS);
    ck_assert_uint_eq(r.mismatched, 0);

    int e = 0;
    GifFileType *g = DGifOpenFileName(gif, &e);
    ck_assert_msg(g != NULL, "giflib: %s", GifErrorString(e));
    ck_assert_int_eq(DGifSlurp(g), GIF_OK);
    ck_assert_int_eq(g->ImageCount, TICKS / 2 + 1);
    ck_assert_int_eq(g->SWidth, 128);
    ck_assert_int_eq(g->SHeight, 96);
    /* Delays follow the tick rate: 2 ticks at 60 Hz, remainders carried → 3, 3, 4 cs. */
    int total = 0;
    for (int i = 0; i < 3; i++) {
        GraphicsControlBlock gcb;
        ck_assert_int_eq(DGifSavedExtensionToGCB(g, i, &gcb), GIF_OK);
        total += gcb.DelayTime;
    }
    ck_assert_int_eq(total, 10);
    /* The first frame is the initial state's picture: same indexes, same palette, scaled 2×. */
    sim_frame f = initial_frame();
    const SavedImage *im = &g->SavedImages[0];
    ck_assert_int_eq(im->ImageDesc.Width, 128);
    ck_assert_int_eq(im->ImageDesc.Height, 96);
    const ColorMapObject *map = im->ImageDesc.ColorMap ? im->ImageDesc.ColorMap : g->SColorMap;
    ck_assert_int_ge(map->ColorCount, f.pal.count);
    for (int i = 0; i < f.pal.count; i++) {
        ck_assert_int_eq(map->Colors[i].Red, f.pal.rgb[3 * i]);
        ck_assert_int_eq(map->Colors[i].Green, f.pal.rgb[3 * i + 1]);
        ck_assert_int_eq(map->Colors[i].Blue, f.pal.rgb[3 * i + 2]);
    }
    int distinct = 0;
    for (int y = 0; y < 96; y++)
        for (int x = 0; x < 128; x++) {
            uint8_t want = f.px[(y / 2) * f.w + x / 2];
            ck_assert_int_eq(im->RasterBits[y * 128 + x], want);
            distinct |= want != f.px[0];
        }
    ck_assert_int_eq(distinct, 1);                   /* a picture, not a blank */
    sim_frame_free(&f);
    DGifCloseFile(g, &e);

    /* A range, every 10 ticks. */
    ck_assert_msg(export(db, gif, NULL, 100, 140, 10, 1, &r, err, sizeof err) == 0, "%s", err);
    g = DGifOpenFileName(gif, &e);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(DGifSlurp(g), GIF_OK);
    ck_assert_int_eq(g->ImageCount, 5);
    ck_assert_int_eq(g->SWidth, 64);
    GraphicsControlBlock gcb;
    ck_assert_int_eq(DGifSavedExtensionToGCB(g, 0, &gcb), GIF_OK);
    ck_assert_int_eq(gcb.DelayTime, 16);             /* 10 ticks at 60 Hz: 16.7 cs → 16, 17, 17 */
    DGifCloseFile(g, &e);
}
END_TEST

START_TEST(png_export_opens_with_libpng)
{
    const char *db = tmp("run.db"), *pngs = tmp("frames");
    char err[512], path[512];
    rpl_export_result r;
    record_file(db, 1);
    ck_assert_msg(export(db, NULL, pngs, 0, UINT64_MAX, 60, 3, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.frames, 5);
    sim_frame f = initial_frame();
    for (int t = 0; t <= TICKS; t += 60) {
        snprintf(path, sizeof path, "%s/frame-%06d.png", pngs, t);
        png_image im;
        memset(&im, 0, sizeof im);
        im.version = PNG_IMAGE_VERSION;
        ck_assert_msg(png_image_begin_read_from_file(&im, path), "%s: %s", path, im.message);
        ck_assert_uint_eq(im.width, 64 * 3);
        ck_assert_uint_eq(im.height, 48 * 3);
        ck_assert_msg(im.format & PNG_FORMAT_FLAG_COLORMAP, "%s is not palette-indexed", path);
        im.format = PNG_FORMAT_RGB;
        uint8_t *rgb = malloc(PNG_IMAGE_SIZE(im));
        ck_assert_int_ne(png_image_finish_read(&im, NULL, rgb, 0, NULL), 0);
        if (t == 0) {
            for (uint32_t y = 0; y < im.height; y++)
                for (uint32_t x = 0; x < im.width; x++) {
                    uint8_t idx = f.px[(y / 3) * f.w + x / 3];
                    ck_assert_int_eq(memcmp(&rgb[(y * im.width + x) * 3], &f.pal.rgb[idx * 3], 3), 0);
                }
        }
        free(rgb);
        png_image_free(&im);
    }
    sim_frame_free(&f);
    snprintf(path, sizeof path, "%s/frame-000001.png", pngs);
    ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

/* ---- bad files ----------------------------------------------------------------------------------- */
typedef struct snapshot {
    uint8_t *bytes;
    size_t len;
    struct timespec mtime;
    int exists;
} snapshot;

static snapshot snap(const char *path)
{
    snapshot s = { 0 };
    struct stat st;
    if (stat(path, &st) != 0) return s;
    s.exists = 1;
    s.mtime = st.st_mtim;
    s.len = (size_t)st.st_size;
    s.bytes = malloc(s.len + 1);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fread(s.bytes, 1, s.len, fp), s.len);
    fclose(fp);
    return s;
}

static void same_as(const char *path, snapshot *before)
{
    snapshot now = snap(path);
    ck_assert_int_eq(now.exists, before->exists);
    ck_assert_uint_eq(now.len, before->len);
    if (now.len) ck_assert_int_eq(memcmp(now.bytes, before->bytes, now.len), 0);
    ck_assert_int_eq(now.mtime.tv_sec, before->mtime.tv_sec);
    ck_assert_int_eq(now.mtime.tv_nsec, before->mtime.tv_nsec);
    free(now.bytes);
    free(before->bytes);
}

/* The file is refused by rpl_open with a sentence containing `want`, and left as it was. */
static void refused_at_open(const char *path, const char *want)
{
    snapshot before = snap(path);
    rpl_file *f = (rpl_file *)1;
    char err[512] = "";
    ck_assert_int_eq(rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err), RPL_EFILE);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err, want) != NULL, "%s: said '%s', wanted '%s'", path, err, want);
    same_as(path, &before);
}

/* Opens, but verify (and export, when it needs the same rows) refuse the session with the error
 * code `code` and a sentence containing `want`. */
static void refused_at_verify(const char *path, int code, const char *want, int export_too)
{
    snapshot before = snap(path);
    verdict *v = verify(path, 0, UINT64_MAX, 0, 2);
    ck_assert_msg(v->rc < 0 && v->rc == code, "%s: rc %d (%s), wanted %d (%s): %s", path, v->rc,
                  sim_strerror(v->rc), code, sim_strerror(code), v->report);
    ck_assert_msg(strstr(v->report, want) != NULL, "%s: said '%s', wanted '%s'", path, v->report, want);
    char err[512];
    rpl_export_result r;
    int rc = export(path, tmp("bad.gif"), NULL, 0, UINT64_MAX, 0, 1, &r, err, sizeof err);
    if (export_too) {
        ck_assert_msg(rc == code, "%s: export rc %d (%s), wanted %d: %s", path, rc,
                      sim_strerror(rc), code, err);
        ck_assert_msg(strstr(err, want) != NULL, "%s: export said '%s', wanted '%s'", path, err, want);
        ck_assert_int_ne(access(tmp("bad.gif"), F_OK), 0);     /* no partial GIF left */
    } else {
        ck_assert_msg(rc == 0, "%s: export: %s", path, err);  /* it never reads that row */
        unlink(tmp("bad.gif"));
    }
    same_as(path, &before);
}

START_TEST(bad_files_get_clear_messages)
{
    char db[256];
    snprintf(db, sizeof db, "%s", tmp("run.db"));
    record_file(db, 1);

    refused_at_open(tmp("missing.db"), "missing.db: no such file");

    FILE *fp = fopen(tmp("notes.txt"), "w");
    fputs("these are notes, not a replay file\n", fp);
    fclose(fp);
    refused_at_open(tmp("notes.txt"), "is not a Vivarium replay file");

    /* Truncated copies of a real replay file: halfway, one page short, and inside the 100-byte
     * SQLite header (which SQLite itself reads as an empty database). */
    struct stat st;
    ck_assert_int_eq(stat(db, &st), 0);
    size_t cuts[] = { (size_t)st.st_size / 2, (size_t)st.st_size - 4096, 60 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        const char *cut = tmp("cut.db");
        snapshot whole = snap(db);
        fp = fopen(cut, "wb");
        ck_assert_uint_eq(fwrite(whole.bytes, 1, cuts[i], fp), cuts[i]);
        fclose(fp);
        free(whole.bytes);
        refused_at_open(cut, "truncated");
        unlink(cut);
    }

    copy_file(db, tmp("other.db"));
    sql(tmp("other.db"), "PRAGMA application_id = 1234");
    refused_at_open(tmp("other.db"), "is not a Vivarium replay file (its SQLite application_id is "
                                     "0x000004d2");

    copy_file(db, tmp("notable.db"));
    sql(tmp("notable.db"), "DROP TABLE input");
    refused_at_open(tmp("notable.db"), "its 'input' table is missing");

    /* A checkpoint whose bytes no longer match their recorded hash. */
    copy_file(db, tmp("cp.db"));
    sql(tmp("cp.db"), "UPDATE checkpoint SET state = substr(state, 1, 100) || x'ff' || "
                      "substr(state, 102) WHERE tick = 120");
    refused_at_verify(tmp("cp.db"), RPL_ECORRUPT, "checkpoint at tick 120 of session 1 is corrupted", 0);
    copy_file(db, tmp("cp0.db"));
    sql(tmp("cp0.db"), "UPDATE checkpoint SET state = x'00' WHERE tick = 0");
    refused_at_verify(tmp("cp0.db"), RPL_ECORRUPT, "checkpoint at tick 0 of session 1 is corrupted", 1);

    copy_file(db, tmp("kind.db"));
    sql(tmp("kind.db"), "UPDATE session SET kind = 'marble', kind_id = 99");
    refused_at_verify(tmp("kind.db"), RPL_EKIND, "is a 'marble' world (kind id 99), which this build of Vivarium", 1);

    /* Input rows no world could have consumed. */
    copy_file(db, tmp("in.db"));
    sql(tmp("in.db"), "UPDATE input SET kind = 7 WHERE tick = 60");
    refused_at_verify(tmp("in.db"), RPL_ECORRUPT, "session 1, input at tick 60 (client 0, seq 3) is damaged: the "
                                    "world refuses it: unknown input kind 7 for sand", 1);
    copy_file(db, tmp("in9.db"));
    sql(tmp("in9.db"), "UPDATE input SET args = zeroblob(36) WHERE tick = 85");
    refused_at_verify(tmp("in9.db"), RPL_ECORRUPT, "is damaged: it has more than 8 arguments", 1);
    copy_file(db, tmp("in3.db"));
    sql(tmp("in3.db"), "UPDATE input SET args = x'010203' WHERE tick = 85");
    refused_at_verify(tmp("in3.db"), RPL_ECORRUPT, "is damaged: its args blob is not a whole number", 1);

    /* Another sim version: a warning, and the verdict still stands. */
    copy_file(db, tmp("ver.db"));
    sql(tmp("ver.db"), "UPDATE session SET sim_version = '0.0.9'");
    snapshot before = snap(tmp("ver.db"));
    verdict *v = verify(tmp("ver.db"), 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_msg(strstr(v->r.warning, "session 1 was recorded by sim version 0.0.9, this is " SIM_VERSION),
                  "%s", v->r.warning);
    same_as(tmp("ver.db"), &before);

    /* And the good file was never touched by any of it. */
    before = snap(db);
    ck_assert_int_eq(verify(db, 0, UINT64_MAX, 1, 0)->rc, 0);
    same_as(db, &before);
}
END_TEST

/* A tick column that holds something else than a whole number (SQLite keeps any type in any
 * column) is damage, said as such: fuzz_replay found a checkpoint at tick 0.5 read as a second
 * checkpoint at tick 0, and rpl_checkpoint_ticks' "ascending" list repeating a tick. */
START_TEST(ticks_that_are_not_whole_numbers_are_damage)
{
    char db[256], err[512];
    snprintf(db, sizeof db, "%s", tmp("run.db"));
    record_file(db, 1);
    copy_file(db, tmp("cpreal.db"));
    sql(tmp("cpreal.db"), "INSERT INTO checkpoint SELECT session, 0.5, state, state_hash, base FROM checkpoint "
                          "WHERE tick = 0");
    rpl_file *f = open_ok(tmp("cpreal.db"));
    uint64_t *ticks = NULL;
    size_t n = 0;
    int rc = rpl_checkpoint_ticks(f, 1, 0, UINT64_MAX, &ticks, &n, err, sizeof err);
    ck_assert_msg(rc == RPL_ECORRUPT, "checkpoint ticks: rc %d, %zu ticks (%llu, %llu, …)", rc, n,
                  n ? (unsigned long long)ticks[0] : 0ull, n > 1 ? (unsigned long long)ticks[1] : 0ull);
    ck_assert_msg(strstr(err, "a checkpoint of session 1 is corrupted (its tick is not a whole number"),
                  "%s", err);
    rpl_close(f);
    refused_at_verify(tmp("cpreal.db"), RPL_ECORRUPT, "its tick is not a whole number", 1);

    copy_file(db, tmp("tickreal.db"));
    sql(tmp("tickreal.db"), "INSERT INTO tick SELECT session, 7.5, state_hash, frame_hash FROM tick "
                            "WHERE tick = 7");
    f = open_ok(tmp("tickreal.db"));
    rpl_tick_row *rows = NULL;
    rc = rpl_ticks_load(f, 1, 0, UINT64_MAX, &rows, &n, err, sizeof err);
    ck_assert_msg(rc == RPL_ECORRUPT, "tick rows: rc %d, %zu rows", rc, n);
    ck_assert_msg(strstr(err, "session 1 has a damaged row of recorded hashes"), "%s", err);
    rpl_close(f);
    verdict *v = verify(tmp("tickreal.db"), 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT && strstr(v->report, "its tick is not a whole number"),
                  "verify: %d: %s", v->rc, v->report);

    copy_file(db, tmp("inreal.db"));
    sql(tmp("inreal.db"), "UPDATE input SET tick = tick + 0.25 WHERE tick = 60");
    refused_at_verify(tmp("inreal.db"), RPL_ECORRUPT, "is not a whole number", 1);
}
END_TEST

/* Real failures give their own code, with the sentence as before. (That every code has its own
 * sentence, in a range of replay/'s own, is check_errors.c's.) */
START_TEST(error_codes_name_the_failure)
{
    ck_assert_str_eq(sim_strerror(RPL_EFILE), "not a usable replay file");

    char db[256], err[512];
    snprintf(db, sizeof db, "%s", tmp("run.db"));
    record_file(db, 1);
    rpl_file *f = (rpl_file *)1;

    /* Not a replay file. */
    FILE *fp = fopen(tmp("notes.txt"), "w");
    fputs("these are notes, not a replay file, and they are long enough to pass the header cut\n"
          "(at least a hundred bytes, so rpl_open asks SQLite rather than the size)\n", fp);
    fclose(fp);
    ck_assert_int_eq(rpl_open(tmp("notes.txt"), RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err),
                     RPL_EFILE);
    ck_assert_ptr_nonnull(strstr(err, "is not a Vivarium replay file"));

    /* A session that is not there; then one that is. */
    f = open_ok(db);
    rpl_session s;
    ck_assert_int_eq(rpl_session_get(f, 7, &s, err, sizeof err), RPL_ENOSESSION);
    char want[512];
    snprintf(want, sizeof want, "session 7 not found in %s (sessions: 1)", db);
    ck_assert_str_eq(err, want);
    rpl_session_info si;
    ck_assert_int_eq(rpl_session_info_get(f, 7, &si, err, sizeof err), RPL_ENOSESSION);
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), RPL_OK);

    /* Asking for nothing, or for ticks the session does not have. */
    rpl_plan plan;
    ck_assert_int_eq(rpl_plan_make(f, &s, TICKS + 10, TICKS + 20, 0, &plan, err, sizeof err),
                     RPL_EUSAGE);
    ck_assert_ptr_nonnull(strstr(err, "nothing to replay from tick"));
    rpl_export_opts eo = rpl_export_defaults();
    eo.session = 1;
    rpl_export_result er;
    ck_assert_int_eq(rpl_export(f, &eo, &er, err, sizeof err), RPL_EUSAGE);
    ck_assert_str_eq(err, "export needs a GIF path, a WebP path or a PNG directory");
    rpl_close(f);

    /* A checkpoint cut short: its blob no longer matches its recorded hash. */
    copy_file(db, tmp("cut.db"));
    sql(tmp("cut.db"), "UPDATE checkpoint SET state = substr(state, 1, length(state) / 2) "
                       "WHERE tick = 60");
    f = open_ok(tmp("cut.db"));
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), RPL_OK);
    rpl_checkpoint cp;
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, 60, RPL_AT_OR_BEFORE, &cp, err, sizeof err),
                     RPL_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(err, "checkpoint at tick 60 of session 1 is corrupted"));
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, 30, RPL_AT_OR_BEFORE, &cp, err, sizeof err), 0);

    /* The kind of a session this build does not have. */
    rpl_session other = s;
    other.kind_id = 99;
    sim_world *w = NULL;
    ck_assert_int_eq(rpl_world_load(&other, &cp, &w, err, sizeof err), RPL_EKIND);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(rpl_world_load(&s, &cp, &w, err, sizeof err), RPL_OK);
    sim_world_destroy(w);
    rpl_checkpoint_free(&cp);
    rpl_close(f);

    /* A file that cannot be read. */
    uint8_t *data;
    size_t len;
    ck_assert_int_eq(rpl_read_file(NULL, tmp("absent.txt"), &data, &len, err, sizeof err), RPL_EREAD);
    ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

/* ---- collect ------------------------------------------------------------------------------------- */
/* Every row a session has in `table`, in key order, as SQL literals joined: equal text, equal
 * rows, value for value and type for type (quote() writes blobs as hex, integers and text apart). */
static char *rows_of(const char *path, const char *table, int64_t session)
{
    static const struct { const char *table, *expr, *order; } t[] = {
        { "session", "quote(kind)||quote(kind_id)||quote(seed)||quote(params)||quote(sim_version)||"
                     "quote(hz)||quote(start_tick)||quote(end_tick)||quote(status)||quote(source)||"
                     "quote(world)||quote(checkpoint_every)||quote(created_at)||quote(closed_at)", "id" },
        { "input", "quote(tick)||quote(client)||quote(seq)||quote(kind)||quote(args)", "tick, client, seq" },
        { "tick", "quote(tick)||quote(state_hash)||quote(frame_hash)", "tick" },
        { "checkpoint", "quote(tick)||quote(state)||quote(state_hash)", "tick" },
        { "gap", "quote(from_tick)||quote(to_tick)||quote(reason)", "from_tick" },
    };
    size_t i = 0;
    while (strcmp(t[i].table, table) != 0) i++;
    char q[1024];
    snprintf(q, sizeof q, "SELECT coalesce(group_concat(r, '|'), '') FROM (SELECT %s AS r FROM %s WHERE %s = ? "
             "ORDER BY %s)", t[i].expr, table, i == 0 ? "id" : "session", t[i].order);
    sqlite3 *db;
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, session);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    char *out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

typedef struct outcome {
    int rc;
    uint64_t ticks, skipped, diverged_at;
} outcome;

static outcome verify_session(const char *path, int64_t id)
{
    static char report[65536];
    rpl_file *f = open_ok(path);
    rpl_verify_opts o = rpl_verify_defaults();
    rpl_verify_result r;
    memset(&r, 0, sizeof r);
    o.session = id;
    o.threads = 1;                     /* with more, spans after a divergence may have run too */
    outcome v = { rpl_verify(f, &o, &r, report, sizeof report), 0, 0, 0 };
    if (v.rc >= 0) {
        v.ticks = r.ticks;
        v.skipped = r.skipped;
        v.diverged_at = r.diverged_at;
    }
    rpl_close(f);
    return v;
}

/* A file of n sand sessions (seeds 1, 2, …) recorded by a recorder that names its node. */
static void record_file_on(const char *path, int n, const char *node)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.legacy = rec_legacy;
    rc.path = path;
    rc.node = node;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    for (int i = 0; i < n; i++) {
        sim_world *w = mk((uint64_t)i + 1);
        record_world(r, w, TICKS);
        sim_world_destroy(w);
    }
    ck_assert_int_eq(rpl_recorder_close(r), 0);
}

/* No file but those named is left in the test directory (no temporary output). */
static void only_files(const char *const *names, size_t n)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        int known = 0;
        for (size_t i = 0; i < n && !known; i++) {
            size_t l = strlen(names[i]);
            known = strncmp(e->d_name, names[i], l) == 0 &&
                    (e->d_name[l] == '\0' || strcmp(e->d_name + l, "-wal") == 0 ||
                     strcmp(e->d_name + l, "-shm") == 0);
        }
        ck_assert_msg(known, "left behind: %s", e->d_name);
    }
    closedir(d);
}

/* Sessions of two nodes' files (one diverges, one is damaged, one has a gap), of a cluster node
 * that names itself, and of a schema-1 file from an older build (whose sessions diverge or are
 * refused on purpose: check_compat.c) are collected into one file: every session's rows are the
 * same rows, and verify gives each the verdict it has in its own file. */
START_TEST(collected_sessions_keep_their_verdicts)
{
    char a[256], b[256], c[256], old[256], all[256], err[1024];
    snprintf(a, sizeof a, "%s", tmp("a.db"));
    snprintf(b, sizeof b, "%s", tmp("b.db"));
    snprintf(c, sizeof c, "%s", tmp("c.db"));
    snprintf(old, sizeof old, "%s", tmp("before.db"));
    snprintf(all, sizeof all, "%s", tmp("all.db"));
    record_file(a, 2);
    flip_input(a);                                     /* a's session 1 diverges at tick 36 */
    record_file(b, 2);
    sql(b, "DELETE FROM tick WHERE session = 2 AND tick = 77;"               /* damaged */
           "DELETE FROM input WHERE session = 1 AND tick >= 100 AND tick < 120;"
           "DELETE FROM tick WHERE session = 1 AND tick > 100 AND tick < 120;"
           "INSERT INTO gap VALUES (1, 100, 120, 'disk full')");
    record_file_on(c, 1, "west");
    copy_file("compat/before.db", old);
    sql(a, "PRAGMA wal_checkpoint(TRUNCATE)");
    sql(b, "PRAGMA wal_checkpoint(TRUNCATE)");
    sql(c, "PRAGMA wal_checkpoint(TRUNCATE)");
    snapshot sa = snap(a), sb = snap(b), sc = snap(c), so = snap(old);

    rpl_collect_src src[] = { { a, NULL }, { b, "east" }, { c, "ignored" }, { old, NULL } };
    rpl_collect_opts o = { .src = src, .nsrc = 4, .out = all };
    rpl_collect_result res;
    ck_assert_msg(rpl_collect(&o, &res, err, sizeof err) == 0, "%s", err);
    same_as(a, &sa);
    same_as(b, &sb);
    same_as(c, &sc);
    same_as(old, &so);
    static const char *const left[] = { "a.db", "b.db", "c.db", "before.db", "all.db" };
    only_files(left, 5);
    /* Renumbered in the order given, each named by its node and its id there. */
    static const struct { size_t src; int64_t src_id; const char *node; } want[] = {
        { 0, 1, "a" }, { 0, 2, "a" }, { 1, 1, "east" }, { 1, 2, "east" }, { 2, 1, "west" },
        { 3, 1, "before" }, { 3, 2, "before" }, { 3, 3, "before" },
    };
    ck_assert_uint_eq(res.n, 8);
    ck_assert_msg(strstr(res.warning, "'west'") && strstr(res.warning, "--node ignored"), "%s", res.warning);
    rpl_file *f = open_ok(all);
    ck_assert_int_eq(rpl_schema(f), RPL_SCHEMA);
    rpl_session_info *list;
    size_t n;
    ck_assert_int_eq(rpl_sessions_list(f, &list, &n, err, sizeof err), 0);
    rpl_close(f);
    ck_assert_uint_eq(n, 8);
    int seen[4] = { 0, 0, 0, 0 };                      /* exact, diverged, damaged, other */
    for (size_t i = 0; i < n; i++) {
        const rpl_collect_map *m = &res.map[i];
        ck_assert_int_eq(m->id, (int64_t)i + 1);
        ck_assert_uint_eq(m->src, want[i].src);
        ck_assert_int_eq(m->src_id, want[i].src_id);
        ck_assert_int_eq(m->origin_id, want[i].src_id);
        ck_assert_str_eq(m->node, want[i].node);
        ck_assert_int_eq(list[i].s.id, m->id);
        ck_assert_str_eq(list[i].s.node, want[i].node);
        ck_assert_int_eq(list[i].s.origin_id, want[i].src_id);
        static const char *const tables[] = { "session", "input", "tick", "checkpoint", "gap" };
        for (size_t t = 0; t < 5; t++) {
            char *x = rows_of(src[m->src].path, tables[t], m->src_id), *y = rows_of(all, tables[t], m->id);
            ck_assert_msg(strcmp(x, y) == 0, "session %lld: its %s rows differ from those of %s session %lld",
                          (long long)m->id, tables[t], src[m->src].path, (long long)m->src_id);
            if (t > 1) ck_assert_msg(x[0] || t == 4, "%s session %lld has no %s rows", src[m->src].path,
                                     (long long)m->src_id, tables[t]);
            free(x);
            free(y);
        }
        outcome s1 = verify_session(src[m->src].path, m->src_id), s2 = verify_session(all, m->id);
        ck_assert_msg(s1.rc == s2.rc && s1.ticks == s2.ticks && s1.skipped == s2.skipped &&
                      s1.diverged_at == s2.diverged_at,
                      "session %lld: verify says %d (%llu ticks, %llu skipped, diverged at %llu) in the "
                      "collected file and %d (%llu, %llu, %llu) in %s", (long long)m->id, s2.rc,
                      (unsigned long long)s2.ticks, (unsigned long long)s2.skipped,
                      (unsigned long long)s2.diverged_at, s1.rc, (unsigned long long)s1.ticks,
                      (unsigned long long)s1.skipped, (unsigned long long)s1.diverged_at, src[m->src].path);
        seen[s1.rc == 0 ? 0 : s1.rc == 1 ? 1 : s1.rc == RPL_ECORRUPT ? 2 : 3]++;
    }
    /* The verdicts the files were built to give: every kind of outcome is among them. */
    ck_assert_int_eq(verify_session(a, 1).diverged_at, 36);
    ck_assert_int_eq(verify_session(b, 1).skipped, 20);
    ck_assert_int_eq(verify_session(b, 2).rc, RPL_ECORRUPT);
    ck_assert_int_gt(seen[0], 0);
    ck_assert_int_gt(seen[1], 0);
    ck_assert_int_gt(seen[2], 0);
    free(list);
    rpl_collect_result_free(&res);
}
END_TEST

/* Refusals: a missing file, a file that is not a replay file, a file of a newer schema, the same
 * file twice, two default names alike, a bad node name, an output that exists (without --force),
 * an output that is a source. Each says why, writes nothing, and leaves the sources as they were. */
START_TEST(collect_refuses_clearly_and_leaves_nothing)
{
    char a[256], b[256], other[256], newer[256], sub[256], same[300], out[256], err[1024];
    snprintf(a, sizeof a, "%s", tmp("a.db"));
    snprintf(b, sizeof b, "%s", tmp("b.db"));
    snprintf(other, sizeof other, "%s", tmp("notes.txt"));
    snprintf(newer, sizeof newer, "%s", tmp("newer.db"));
    snprintf(sub, sizeof sub, "%s", tmp("sub"));
    snprintf(out, sizeof out, "%s", tmp("out.db"));
    record_file(a, 1);
    record_file(b, 1);
    sql(a, "PRAGMA wal_checkpoint(TRUNCATE)");
    copy_file(a, newer);
    sql(newer, "PRAGMA user_version = 9");
    FILE *fp = fopen(other, "w");
    ck_assert_ptr_nonnull(fp);
    fputs("not a database, but long enough to pass for one at a glance: ....................\n", fp);
    fclose(fp);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(same, sizeof same, "%s/a.db", sub);
    copy_file(a, same);
    snapshot sa = snap(a), sb = snap(b);
    static const struct { const char *p1, *n1, *p2, *n2; int code; const char *say; } bad[] = {
        { "a.db", NULL, "absent.db", NULL, RPL_EFILE, "absent.db: no such file" },
        { "a.db", NULL, "notes.txt", NULL, RPL_EFILE, "is not a Vivarium replay file" },
        { "newer.db", NULL, "b.db", NULL, RPL_EFILE, "use a newer Vivarium" },
        { "a.db", NULL, "a.db", "again", RPL_EUSAGE, "is given twice" },
        { "a.db", NULL, "sub/a.db", NULL, RPL_EUSAGE, "would both be node 'a'" },
        { "a.db", "east side", "b.db", NULL, RPL_EUSAGE, "'east side' is not a node name" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char p1[256], p2[256];
        snprintf(p1, sizeof p1, "%s", tmp(bad[i].p1));
        snprintf(p2, sizeof p2, "%s", tmp(bad[i].p2));
        rpl_collect_src src[] = { { p1, bad[i].n1 }, { p2, bad[i].n2 } };
        rpl_collect_opts o = { .src = src, .nsrc = 2, .out = out };
        rpl_collect_result res;
        err[0] = '\0';
        int rc = rpl_collect(&o, &res, err, sizeof err);
        ck_assert_msg(rc == bad[i].code && strstr(err, bad[i].say), "case %zu: %d '%s', wanted %d '%s'", i,
                      rc, err, bad[i].code, bad[i].say);
        ck_assert_ptr_null(res.map);
        ck_assert_int_ne(access(out, F_OK), 0);
    }
    static const char *const left[] = { "a.db", "b.db", "notes.txt", "newer.db", "sub" };
    only_files(left, 5);
    /* An output that exists is kept unless --force; --force replaces it whole. */
    rpl_collect_src two[] = { { a, NULL }, { b, NULL } };
    rpl_collect_opts o = { .src = two, .nsrc = 2, .out = out };
    rpl_collect_result res;
    copy_file(other, out);
    snapshot so = snap(out);
    ck_assert_int_eq(rpl_collect(&o, &res, err, sizeof err), RPL_EUSAGE);
    ck_assert_msg(strstr(err, "exists: name a new file, or add --force"), "%s", err);
    same_as(out, &so);
    o.force = 1;
    ck_assert_msg(rpl_collect(&o, &res, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(res.n, 2);
    rpl_collect_result_free(&res);
    ck_assert_int_eq(verify_session(out, 2).rc, 0);
    /* Not even with --force over one of its own sources. */
    o.out = b;
    ck_assert_int_eq(rpl_collect(&o, &res, err, sizeof err), RPL_EUSAGE);
    ck_assert_msg(strstr(err, "is one of the files to collect"), "%s", err);
    same_as(a, &sa);
    same_as(b, &sb);
    static const char *const after[] = { "a.db", "b.db", "notes.txt", "newer.db", "sub", "out.db" };
    only_files(after, 6);
}
END_TEST

/* A file of schema 2 (the node columns are new in 3) reads as it is, its sessions on no named
 * node, and is migrated in place when opened for writing: the columns appended, every row kept. */
START_TEST(schema_2_reads_and_migrates_to_3)
{
    const char *db = tmp("v2.db");
    char err[512];
    record_file(db, 2);
    sql(db, "ALTER TABLE session DROP COLUMN node; ALTER TABLE session DROP COLUMN origin_id;"
            "DROP TABLE hashes; ALTER TABLE checkpoint DROP COLUMN base; PRAGMA user_version = 2");
    char *before = rows_of(db, "session", 2);
    rpl_file *f = open_ok(db);
    ck_assert_int_eq(rpl_schema(f), 2);
    rpl_session s;
    ck_assert_int_eq(rpl_session_get(f, 2, &s, err, sizeof err), 0);
    ck_assert_str_eq(s.node, "");
    ck_assert_int_eq(s.origin_id, -1);
    rpl_close(f);
    ck_assert_int_eq(verify_session(db, 2).rc, 0);
    ck_assert_msg(rpl_open(db, RPL_WRITE, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(rpl_schema(f), RPL_SCHEMA);
    rpl_close(f);
    f = open_ok(db);
    ck_assert_int_eq(rpl_schema(f), RPL_SCHEMA);
    ck_assert_int_eq(rpl_session_get(f, 2, &s, err, sizeof err), 0);
    ck_assert_str_eq(s.node, "");
    ck_assert_int_eq(s.origin_id, -1);
    rpl_close(f);
    char *after = rows_of(db, "session", 2);
    ck_assert_str_eq(before, after);
    free(before);
    free(after);
    ck_assert_int_eq(verify_session(db, 1).rc, 0);
    /* The recorder writes its node into a migrated file as into a new one. */
    rpl_rec_config rc = { 0 };
    rc.legacy = rec_legacy;
    rc.path = db;
    rc.node = "n-3.west";
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    sim_world *w = mk(9);
    ck_assert_int_eq(record_world(r, w, 30), 3);
    sim_world_destroy(w);
    ck_assert_int_eq(rpl_recorder_close(r), 0);
    f = open_ok(db);
    ck_assert_int_eq(rpl_session_get(f, 3, &s, err, sizeof err), 0);
    ck_assert_str_eq(s.node, "n-3.west");
    ck_assert_int_eq(s.origin_id, -1);
    rpl_close(f);
    rc.node = "no/slash";
    ck_assert_ptr_null(rpl_recorder_open(&rc, err, sizeof err));
    ck_assert_msg(strstr(err, "'no/slash' is not a node name"), "%s", err);
}
END_TEST

/* ---- the command line ---------------------------------------------------------------------------- */
typedef struct ran {
    int status;
    char out[16384];
} ran;

/* Run `viv replay ARGS` (stdout and stderr together). */
static ran *viv(const char *args)
{
    static ran r;
    const char *bin = getenv("VIV_BIN");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/viv replay %s 2>&1 </dev/null", bin ? bin : "../bin", args);
    FILE *fp = popen(cmd, "r");
    ck_assert_ptr_nonnull(fp);
    size_t n = fread(r.out, 1, sizeof r.out - 1, fp);
    r.out[n] = '\0';
    int st = pclose(fp);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return &r;
}

START_TEST(viv_replay_commands)
{
    const char *db = tmp("run.db"), *bad = tmp("flipped.db");
    char args[1024];
    record_file(db, 1);
    copy_file(db, bad);
    flip_input(bad);

    snprintf(args, sizeof args, "list %s", db);
    ran *r = viv(args);
    ck_assert_msg(r->status == 0, "%s", r->out);
    ck_assert_msg(strstr(r->out, "sand") && strstr(r->out, "0..240") && strstr(r->out, "0:04.00"),
                  "%s", r->out);

    snprintf(args, sizeof args, "info %s", db);
    r = viv(args);
    ck_assert_msg(r->status == 0, "%s", r->out);
    ck_assert_msg(strstr(r->out, "checkpoints   5 (every 60 ticks: 1 s of world time)") &&
                  strstr(r->out, "inputs        10 (paint 10) from 1 client"), "%s", r->out);

    snprintf(args, sizeof args, "verify %s", db);
    r = viv(args);
    ck_assert_msg(r->status == 0 && strstr(r->out, "bit-exact"), "%s", r->out);
    ck_assert_msg(!strchr(r->out, '\r'), "a progress bar was drawn on a pipe: %s", r->out);
    snprintf(args, sizeof args, "verify %s --sync-test --threads 1", db);
    r = viv(args);
    ck_assert_msg(r->status == 0 && strstr(r->out, "sync test passed"), "%s", r->out);

    snprintf(args, sizeof args, "verify %s --session 1", bad);
    r = viv(args);
    ck_assert_msg(r->status == 1 && strstr(r->out, "first divergent tick: 36 ") &&
                  strstr(r->out, "cell ("), "%s", r->out);
    snprintf(args, sizeof args, "verify --all %s --to 30", bad);
    r = viv(args);
    ck_assert_msg(r->status == 0, "%s", r->out);

    snprintf(args, sizeof args, "verify %s --session 3", db);
    r = viv(args);
    ck_assert_msg(r->status == 2 && strstr(r->out, "session 3 not found in"), "%s", r->out);
    r = viv("verify /nonexistent/run.db");
    ck_assert_msg(r->status == 2 && strstr(r->out, "no such file"), "%s", r->out);
    snprintf(args, sizeof args, "verify %s --bogus", db);
    r = viv(args);
    ck_assert_msg(r->status == 2 && strstr(r->out, "unknown option '--bogus'"), "%s", r->out);
    r = viv("verify");
    ck_assert_msg(r->status == 2 && strstr(r->out, "which replay file?"), "%s", r->out);
    r = viv("frobnicate x.db");
    ck_assert_int_eq(r->status, 2);
    for (int i = 0; i < 5; i++) {
        static const char *const cmds[] = { "list", "info", "verify", "export", "collect" };
        snprintf(args, sizeof args, "%s --help", cmds[i]);
        r = viv(args);
        ck_assert_msg(r->status == 0 && strstr(r->out, "usage: viv replay"), "%s", r->out);
    }

    snprintf(args, sizeof args, "export %s --gif %s --every 4 --scale 2", db, tmp("cli.gif"));
    r = viv(args);
    ck_assert_msg(r->status == 0 && strstr(r->out, "61 frames of session 1"), "%s", r->out);
    int e;
    GifFileType *g = DGifOpenFileName(tmp("cli.gif"), &e);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(DGifSlurp(g), GIF_OK);
    ck_assert_int_eq(g->ImageCount, 61);
    DGifCloseFile(g, &e);
    snprintf(args, sizeof args, "export %s --png-dir %s --from 200 --to 210", db, tmp("pngs"));
    r = viv(args);
    ck_assert_msg(r->status == 0 && strstr(r->out, "11 frames"), "%s", r->out);
    ck_assert_int_eq(access(tmp("pngs/frame-000205.png"), R_OK), 0);
    snprintf(args, sizeof args, "export %s", db);
    r = viv(args);
    ck_assert_msg(r->status == 2 && strstr(r->out, "--gif OUT.gif, --webp OUT.webp, --png-dir DIR or --html OUT.html"), "%s", r->out);
}
END_TEST

/* ---- phase hashes and the desync bundle ---------------------------------------------------------- */
#define POKE_TICK 100                  /* even: its strip phases run 0, 1, 2 */

typedef struct poker {
    sim_world *w;
    rpl_phase ph[16];
    size_t n;
    int poke;                          /* fault the step of POKE_TICK after "strip phase 0" */
} poker;

static void poke_hook(void *user, uint64_t tick, int index, const char *phase, uint64_t hash)
{
    poker *p = user;
    if (index == 0) p->n = 0;
    if (p->n < 16) {
        snprintf(p->ph[p->n].name, sizeof p->ph[p->n].name, "%s", phase);
        p->ph[p->n++].hash = hash;
    }
    if (p->poke && tick == POKE_TICK && strcmp(phase, "strip phase 0") == 0) {
        /* A test-only fault in the recording machine: between two phases, two neighbouring
         * cells that differ trade places, as a machine that computed that phase otherwise might
         * leave them. Both stay valid cells, so every later state still loads. */
        int fw, fh;
        sim_world_frame_size(p->w, &fw, &fh);
        void *impl = sim__world_impl(p->w);
        for (int i = fw * fh / 2; i + 1 < fw * fh; i++) {
            uint32_t *a = sand__cell_at(impl, i % fw, i / fw), *b = sand__cell_at(impl, (i + 1) % fw, (i + 1) / fw);
            if (*a != *b && sand__element(impl, i % fw, i / fw) != SAND_WALL &&
                sand__element(impl, (i + 1) % fw, (i + 1) / fw) != SAND_WALL) {
                uint32_t x = *a;
                *a = *b;
                *b = x;
                return;
            }
        }
        ck_abort_msg("no two neighbouring cells differ to poke");
    }
}

/* A file recorded in heavy mode (the phase table), TICKS ticks of seed 1; poke: the fault above.
 * Returns the final state hash. */
static uint64_t record_phases(const char *path, int poke)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.legacy = rec_legacy;
    rc.path = path;
    rc.phases = 1;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    sim_world *w = mk(1);
    poker p = { .w = w, .poke = poke };
    sim_phase_hook h = { poke_hook, &p };
    sim_world_set_phases(w, &h);
    int64_t id = rpl_recorder_begin(r, w, "viv sim", -1, CP_EVERY, err, sizeof err);
    ck_assert_msg(id == 1, "begin: %s", err);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t cap = sim_world_save_max(w);
    uint8_t *cp = malloc(cap);
    for (uint64_t t = 0; t < TICKS; t++) {
        sim_input in;
        size_t nin = 0;
        if (t % 25 == 10) {
            char line[80];
            snprintf(line, sizeof line, "%llu paint %d 10 3 water", (unsigned long long)t,
                     (int)(8 + t % 40));
            ck_assert_int_eq(sim_input_parse_line(sim_world_kind(w), line, &in, err, sizeof err), 0);
            in.client = 0;
            in.seq = (uint32_t)t;
            ck_assert_int_eq(sim_world_input(w, &in), 0);
            nin = 1;
        }
        sim_world_step(w);
        ck_assert_uint_ge(p.n, 2);             /* inputs, emitters, and the strips when awake */
        sim_world_render(w, 0, &f);
        size_t len = (t + 1) % CP_EVERY == 0 ? sim_world_save(w, cp, cap) : 0;
        ck_assert_int_eq(rpl_recorder_tick_phases(r, id, t, nin ? &in : NULL, nin, sim_world_hash(w),
                                                  sim_frame_hash(&f), len ? cp : NULL, len, p.ph,
                                                  p.n), 0);
    }
    uint64_t last = sim_world_hash(w);
    rpl_recorder_end(r, id);
    ck_assert_int_eq(rpl_recorder_close(r), 0);
    free(cp);
    sim_frame_free(&f);
    sim_world_destroy(w);
    return last;
}

static int file_exists(const char *dirpath, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dirpath, name);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static char *slurp(const char *dirpath, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dirpath, name);
    FILE *fp = fopen(p, "rb");
    ck_assert_msg(fp != NULL, "%s", p);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

START_TEST(phase_hashes_name_the_phase_that_diverged)
{
    const char *clean = tmp("phases.db");
    char cleanp[256], bundle[256], err[512];
    snprintf(cleanp, sizeof cleanp, "%s", clean);
    snprintf(bundle, sizeof bundle, "%s", tmp("bundle"));
    /* The hook only looks: a world stepped with it ends where one without it does. */
    sim_world *plain = mk(1);
    uint64_t last = record_phases(cleanp, 0);
    for (uint64_t t = 0; t < TICKS; t++) {
        if (t % 25 == 10) {
            char line[80];
            sim_input in;
            snprintf(line, sizeof line, "%llu paint %d 10 3 water", (unsigned long long)t,
                     (int)(8 + t % 40));
            ck_assert_int_eq(sim_input_parse_line(sim_world_kind(plain), line, &in, err, sizeof err), 0);
            in.seq = (uint32_t)t;
            ck_assert_int_eq(sim_world_input(plain, &in), 0);
        }
        sim_world_step(plain);
    }
    ck_assert_uint_eq(sim_world_hash(plain), last);
    sim_world_destroy(plain);
    rpl_file *f = open_ok(cleanp);
    ck_assert_int_eq(rpl_phases_has(f, 1, err, sizeof err), 1);
    rpl_phase *ph;
    size_t nph;
    ck_assert_int_eq(rpl_phases_load(f, 1, POKE_TICK + 1, &ph, &nph, err, sizeof err), 0);
    ck_assert_uint_eq(nph, 5);
    ck_assert_str_eq(ph[0].name, "inputs");
    ck_assert_str_eq(ph[2].name, "strip phase 0");
    free(ph);
    rpl_close(f);

    /* A clean file with --report: bit-exact, and nothing written. */
    rpl_verify_opts o = rpl_verify_defaults();
    static verdict v;
    o.session = 1;
    o.report_dir = bundle;
    f = open_ok(cleanp);
    v.rc = rpl_verify(f, &o, &v.r, v.report, sizeof v.report);
    rpl_close(f);
    ck_assert_msg(v.rc == 0, "%s", v.report);
    ck_assert_str_eq(v.r.bundle, "");
    struct stat st;
    ck_assert_msg(stat(bundle, &st) != 0, "a clean verify created %s", bundle);

    /* The recording machine went astray after strip phase 0 of the step of tick 100: the report
     * names strip phase 1, the phases before it matched, and the bundle holds every file. */
    const char *bad = tmp("poked.db");
    char badp[256];
    snprintf(badp, sizeof badp, "%s", bad);
    record_phases(badp, 1);
    for (int threads = 1; threads <= 2; threads++) {
        rm_tree(bundle);
        o.threads = threads;
        f = open_ok(badp);
        v.rc = rpl_verify(f, &o, &v.r, v.report, sizeof v.report);
        rpl_close(f);
        ck_assert_msg(v.rc == 1, "rc %d: %s", v.rc, v.report);
        ck_assert_uint_eq(v.r.diverged_at, POKE_TICK + 1);
        ck_assert_str_eq(v.r.phase, "strip phase 1");
        ck_assert_msg(strstr(v.report, "first divergent phase: 'strip phase 1', phase 4 of 5 of the "
                                       "step of tick 100") &&
                      strstr(v.report, "matched before it: inputs, emitters, strip phase 0"),
                      "%s", v.report);
        ck_assert_msg(strstr(v.r.bundle, "desync report written to"), "%s", v.r.bundle);
        const char *files[] = { "README.txt", "before.state", "recorded.state", "replayed.state",
                                "diff.txt", "inputs.txt", "phases.txt" };
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            ck_assert_msg(file_exists(bundle, files[i]), "the bundle lacks %s", files[i]);
        const char *readme = slurp(bundle, "README.txt");
        ck_assert_msg(strstr(readme, "First divergent tick: 101") &&
                      strstr(readme, "'strip phase 1'") &&
                      strstr(readme, "viv replay verify ") && strstr(readme, " --session 1 --from 60 --to 101 --report "),
                      "%s", readme);
        const char *phases = slurp(bundle, "phases.txt");
        ck_assert_msg(strstr(phases, "\n2 strip phase 0 ") && strstr(phases, "same\n3 strip phase 1 ") &&
                      strstr(phases, "FIRST DIFFERENT"), "%s", phases);
        const char *inputs = slurp(bundle, "inputs.txt");
        ck_assert_msg(strstr(inputs, "85 0 85: paint x=13 y=10 r=3 element=water"), "%s", inputs);
        const char *diff = slurp(bundle, "diff.txt");
        ck_assert_msg(strstr(diff, "at tick 120") && strstr(diff, "cell ("), "%s", diff);
        /* The saved states load: before.state is the recording's state at tick 100. */
        char p[512];
        snprintf(p, sizeof p, "%s/before.state", bundle);
        FILE *fp = fopen(p, "rb");
        uint8_t *blob = malloc(1 << 20);             /* on the heap: see e2e.h */
        ck_assert_ptr_nonnull(blob);
        size_t n = fread(blob, 1, 1 << 20, fp);
        fclose(fp);
        uint16_t kid;
        uint64_t seed, tick;
        char params[128];
        ck_assert_int_eq(sim_state_peek(blob, n, &kid, &seed, &tick, params, sizeof params), 0);
        free(blob);
        ck_assert_uint_eq(tick, POKE_TICK);
    }
    /* Without phase hashes (an ordinary recording) the report says how to get them. */
    const char *plainp = tmp("plain.db");
    record_file(plainp, 1);
    copy_file(plainp, tmp("plain-bad.db"));
    flip_input(tmp("plain-bad.db"));
    verdict *pv = verify(tmp("plain-bad.db"), 0, UINT64_MAX, 0, 1);
    ck_assert_int_eq(pv->rc, 1);
    ck_assert_msg(strstr(pv->report, "the file holds no phase hashes for tick 36") &&
                  strstr(pv->report, "--phases"), "%s", pv->report);
    ck_assert_str_eq(pv->r.phase, "");
}
END_TEST

/* ---- schema 4: hashes in blocks, checkpoints as deltas --------------------------------------------- */
#define BLOCK_TICKS 700                /* three blocks: 0..239 (the start's row: none), … */

/* One integer from a query on path. */
static int64_t count_rows(const char *path, const char *q)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_msg(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK, "%s: %s", q, sqlite3_errmsg(db));
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* A schema-4 file of one session of BLOCK_TICKS ticks, recorded as vivd records. */
static void record_blocks(const char *path)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.path = path;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    sim_world *w = mk(1);
    ck_assert_int_eq(record_world(r, w, BLOCK_TICKS), 1);
    sim_world_destroy(w);
    ck_assert_int_eq(rpl_recorder_close(r), 0);
}

/* The first block's data as it is stored, decoded to raw form (0x01, then the bytes): n - 1 state
 * bytes, then n - 1 frame bytes. Returns the block's n. */
static int block_raw(const char *path, uint64_t tick, uint8_t *raw, size_t cap)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT n, data FROM hashes WHERE session = 1 AND tick = ?",
                                        -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, (int64_t)tick);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0), len = sqlite3_column_bytes(st, 1);
    const uint8_t *d = sqlite3_column_blob(st, 1);
    ck_assert_int_gt(len, 1);
    raw[0] = RPL_HASHES_RAW;
    if (d[0] == RPL_HASHES_ZSTD) {
        size_t z = ZSTD_decompress(raw + 1, cap - 1, d + 1, (size_t)len - 1);
        ck_assert(!ZSTD_isError(z) && z == 2 * (size_t)(n - 1));
    } else {
        ck_assert_int_eq(d[0], RPL_HASHES_RAW);
        ck_assert_int_eq(len, 1 + 2 * (n - 1));
        memcpy(raw + 1, d + 1, (size_t)len - 1);
    }
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
    return n;
}

/* Store raw (block_raw's form, n ticks) as the data of the block at tick. */
static void block_store(const char *path, uint64_t tick, const uint8_t *raw, int n)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "UPDATE hashes SET data = ? WHERE session = 1 AND tick = ?",
                                        -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_blob(st, 1, raw, 1 + 2 * (n - 1), SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (int64_t)tick);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    ck_assert_int_eq(sqlite3_changes(db), 1);
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
}

START_TEST(blocks_hold_every_tick_and_verify)
{
    const char *db = tmp("blocks.db");
    record_blocks(db);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM tick"), 0);
    /* Ticks 1..700: blocks of 240, 240 and 220, each with its last tick's hashes whole. */
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM hashes"), 3);
    ck_assert_int_eq(count_rows(db, "SELECT sum(n) FROM hashes"), BLOCK_TICKS);
    ck_assert_int_eq(count_rows(db, "SELECT min(tick) FROM hashes"), 1);
    /* Checkpoints every CP_EVERY ticks: tick 0 whole, the others as deltas against it (or whole
     * where that is smaller), each reading back as the state recorded. */
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM checkpoint"), BLOCK_TICKS / CP_EVERY + 1);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM checkpoint WHERE tick = 0 AND base IS NULL"), 1);
    ck_assert_int_gt(count_rows(db, "SELECT count(*) FROM checkpoint WHERE base = 0"), 0);
    rpl_file *f = open_ok(db);
    char err[512];
    rpl_tick_row *rows;
    size_t n;
    ck_assert_msg(rpl_ticks_load(f, 1, 230, 250, &rows, &n, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(n, 21);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(rows[i].tick, 230 + i);
        ck_assert_int_eq(rows[i].bits, rows[i].tick == 240 ? 64 : RPL_HASH_BITS);
    }
    free(rows);
    rpl_session_info info;
    ck_assert_int_eq(rpl_session_info_get(f, 1, &info, err, sizeof err), 0);
    ck_assert_uint_eq(info.ticks, BLOCK_TICKS);
    rpl_close(f);
    for (int threads = 1; threads <= 2; threads++) {
        verdict *v = verify(db, 0, UINT64_MAX, threads == 2, threads);
        ck_assert_msg(v->rc == 0, "%s", v->report);
        ck_assert_uint_eq(v->r.ticks, BLOCK_TICKS);
    }
    verdict *v = verify(db, 300, 500, 0, 1);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.first, 300);
}
END_TEST

/* Docs/REPLAY.md's promise for the truncated hashes: a replay that diverges at a chosen tick is
 * named at that tick, as with whole hashes (with these recordings: the chance that both low bytes
 * still agree at the first divergent tick is about 1 in 65,536, and the next tick tries again). */
START_TEST(blocks_name_the_divergent_tick)
{
    const char *db = tmp("blocks.db");
    record_blocks(db);
    static const int at[] = { 35, 260, 485, 610 };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        const char *bad = tmp("flip.db");
        copy_file(db, bad);
        flip_input_at(bad, at[i]);
        verdict *v = verify(bad, 0, UINT64_MAX, 0, 2);
        ck_assert_msg(v->rc == 1, "flip at %d: rc %d: %s", at[i], v->rc, v->report);
        ck_assert_uint_eq(v->r.diverged_at, (uint64_t)at[i] + 1);
        ck_assert_msg(strstr(v->report, "DIFFERENT"), "%s", v->report);
        ck_assert_msg(strstr(v->report, "the file keeps the low 8 bits"), "%s", v->report);
    }
}
END_TEST

START_TEST(damaged_blocks_and_deltas_are_damage)
{
    const char *db = tmp("blocks.db"), *bad = tmp("bad.db");
    record_blocks(db);
    /* One truncated hash changed, where the replay agrees before and after it: damage. */
    uint8_t raw[1 + 2 * RPL_HASH_BLOCK];
    copy_file(db, bad);
    int n = block_raw(bad, 241, raw, sizeof raw);
    ck_assert_int_eq(n, 240);
    raw[1 + 50] ^= 0x5a;                                 /* the state byte of tick 291 */
    block_store(bad, 241, raw, n);
    verdict *v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT, "rc %d: %s", v->rc, v->report);
    ck_assert_msg(strstr(v->report, "damaged, not desynced") && strstr(v->report, "tick 291"), "%s",
                  v->report);
    /* A block whose data does not hold its ticks. */
    copy_file(db, bad);
    sql(bad, "UPDATE hashes SET data = x'0102' WHERE tick = 481");
    v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT && strstr(v->report, "block of recorded hashes at tick 481"),
                  "rc %d: %s", v->rc, v->report);
    copy_file(db, bad);                                  /* (found by tests/fuzz/fuzz_replay.c) */
    sql(bad, "INSERT INTO hashes SELECT session, tick + 10, n, last_sh, last_fh, data FROM hashes WHERE tick = 1");
    v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT && strstr(v->report, "overlapping blocks of recorded hashes"),
                  "rc %d: %s", v->rc, v->report);
    copy_file(db, bad);
    sql(bad, "UPDATE hashes SET n = 9999 WHERE tick = 1");
    v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT && strstr(v->report, "damaged block of recorded hashes"),
                  "rc %d: %s", v->rc, v->report);
    /* A delta whose base is gone. */
    copy_file(db, bad);
    sql(bad, "UPDATE checkpoint SET base = 7 WHERE tick = 120");
    rpl_file *f = open_ok(bad);
    rpl_session s;
    rpl_checkpoint cp;
    char err[512];
    ck_assert_int_eq(rpl_session_get(f, 1, &s, err, sizeof err), 0);
    ck_assert_int_eq(rpl_checkpoint_find(f, &s, 130, RPL_AT_OR_BEFORE, &cp, err, sizeof err), RPL_ECORRUPT);
    ck_assert_msg(strstr(err, "checkpoint at tick 120") && strstr(err, "tick 7, which is not in the file"),
                  "%s", err);
    rpl_close(f);
    v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == RPL_ECORRUPT, "rc %d: %s", v->rc, v->report);
    /* A thinned block (only its last tick's hashes kept, as compaction leaves it) verifies: its
     * other ticks are stepped and their hashes not checked. */
    copy_file(db, bad);
    sql(bad, "UPDATE hashes SET data = x'' WHERE tick = 241");
    v = verify(bad, 0, UINT64_MAX, 0, 1);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.ticks, BLOCK_TICKS);
}
END_TEST

/* ---- ticks the writer never gets ------------------------------------------------------------- */
/* Another process holding the file's write lock (BEGIN IMMEDIATE) until released: the recorder's
 * writer waits for it (its busy timeout is 5 s), so that what the test queues meanwhile piles up.
 * A program of its own (Debian's python3 and its sqlite3 module), since POSIX locks are the
 * process's: a second connection in this process, or in a fork of it (which shares SQLite's
 * bookkeeping of this one's locks), was seen to let the writer through within milliseconds. It
 * says 'y' once it holds the lock, and lets go when its standard input closes. */
typedef struct holder { pid_t pid; int release; } holder;

static holder hold_writes(const char *path)
{
    int ready[2], go[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(go[0], 0);
        dup2(ready[1], 1);
        close(go[0]); close(go[1]); close(ready[0]); close(ready[1]);
        execl("/usr/bin/python3", "python3", "-c",
              "import sqlite3, sys\n"
              "db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)\n"
              "db.execute('BEGIN IMMEDIATE')\n"
              "sys.stdout.write('y'); sys.stdout.flush()\n"
              "sys.stdin.read()\n"
              "db.execute('ROLLBACK')\n", path, (char *)NULL);
        _exit(127);
    }
    close(ready[1]);
    close(go[0]);
    char ok = 0;
    ck_assert_int_eq(read(ready[0], &ok, 1), 1);
    close(ready[0]);
    ck_assert_msg(ok == 'y', "the holder could not take the write lock of %s", path);
    return (holder){ pid, go[1] };
}

static void release_writes(holder h)
{
    close(h.release);
    int st;
    ck_assert_int_eq(waitpid(h.pid, &st, 0), h.pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Record TICKS ticks of a world as record_world does (schema 4, as vivd writes), except that the
 * writer is held from tick `hold` to tick `release` (its queue limited to max_queue bytes; 0: the
 * default), and the ticks in lost[0..nlost) are not handed over but given to rpl_recorder_lost.
 * Ticks refused (RPL_EFAILING) are counted in *refused, the first in *first (else -1). */
static void record_lossy(const char *path, size_t max_queue, int hold, int release, const int *lost,
                         int nlost, int *refused, int *first)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.path = path;
    rc.max_queue_bytes = max_queue;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    sim_world *w = mk(1);
    int64_t id = rpl_recorder_begin(r, w, "viv sim", -1, CP_EVERY, err, sizeof err);
    ck_assert_msg(id == 1, "begin: %s", err);
    ck_assert_int_eq(rpl_recorder_flush(r), 0);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t cap = sim_world_save_max(w);
    uint8_t *cp = malloc(cap);
    uint32_t seq = 0;
    holder held = { -1, -1 };
    int i_lost = 0;
    *refused = 0;
    *first = -1;
    for (int t = 0; t < TICKS; t++) {
        if (t == hold) held = hold_writes(path);
        if (t == release) {
            release_writes(held);
            held.pid = -1;
            rpl_recorder_flush(r);           /* (failed, when ticks were refused) */
        }
        sim_input in;
        size_t nin = paint_input(w, (uint64_t)t, &seq, &in);
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        int skip = 0;
        for (int i = 0; i < nlost; i++) skip |= lost[i] == t;
        if (skip) {
            /* (the second without a reason: the writer says "not recorded") */
            ck_assert_int_eq(rpl_recorder_lost(r, id, (uint64_t)t, i_lost++ ? NULL : "the test kept it"), 0);
            continue;
        }
        size_t len = (t + 1) % CP_EVERY == 0 ? sim_world_save(w, cp, cap) : 0;
        int e = rpl_recorder_tick(r, id, (uint64_t)t, nin ? &in : NULL, nin, sim_world_hash(w),
                                  sim_frame_hash(&f), len ? cp : NULL, len);
        ck_assert_msg(e == 0 || e == RPL_EFAILING, "tick %d: %d", t, e);
        /* (no backlog but while the writer is held: a small queue may overflow only then; after
         * it, the flushes fail while the ticks of the gap are dropped) */
        if (t < hold) ck_assert_msg(rpl_recorder_flush(r) == 0, "tick %d", t);
        else if (t >= release) rpl_recorder_flush(r);
        /* the writer takes the held tick and waits for the lock with it: all that follows piles
         * up in the queue (what the writer holds is not counted against the limit) */
        if (t == hold) usleep(100 * 1000);
        if (e) {
            if (*first < 0) *first = t;
            ++*refused;
        }
    }
    rpl_recorder_end(r, id);
    if (held.pid > 0) release_writes(held);  /* (release == TICKS: the session ends in its gap) */
    rpl_recorder_flush(r);                   /* (failed, when ticks were dropped since the last) */
    ck_assert_int_eq(rpl_recorder_failing(r, NULL, 0), 0);      /* the gaps closed: recording */
    ck_assert_int_eq(rpl_recorder_close(r), 0);
    free(cp);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

/* rpl_recorder_lost (vivd: a tick whose inputs and acks disagree): the session's gap begins at
 * that tick and ends at its next checkpoint, a gap row, not a hole verify calls damage; ticks
 * handed over before it are written. Twice in one group of the writer's: the first gap ends in it
 * and the second begins after. */
START_TEST(a_tick_not_handed_over_is_a_gap)
{
    const char *db = tmp("lost.db");
    static const int lost[] = { 100, 130 };
    int refused, first;
    record_lossy(db, 0, 90, 200, lost, 2, &refused, &first);
    ck_assert_int_eq(refused, 0);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM gap"), 2);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM gap WHERE from_tick = 100 AND to_tick = 120 "
                                    "AND reason = 'the test kept it'"), 1);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM gap WHERE from_tick = 130 AND to_tick = 180 "
                                    "AND reason = 'not recorded'"), 1);
    for (int threads = 1; threads <= 2; threads++) {
        verdict *v = verify(db, 0, UINT64_MAX, threads == 2, threads);
        ck_assert_msg(v->rc == 0, "%s", v->report);
        ck_assert_uint_eq(v->r.skipped, 20 + 50);
        ck_assert_uint_eq(v->r.ticks, TICKS - 70);
        ck_assert_msg(strstr(v->report, "ticks [100, 120) (20 ticks) were not recorded (the test kept it)")
                      && strstr(v->report, "ticks [130, 180) (50 ticks)"), "%s", v->report);
    }
}
END_TEST

/* The queue over its limit (the writer held while the ticks pile up): the ticks refused are a gap
 * from the first of them to the session's next checkpoint written, with the reason; everything
 * queued before it is written, and the session verifies. (Before, a refused tick left a hole
 * without a gap row: damage.) */
START_TEST(a_queue_over_its_limit_leaves_a_gap_not_a_hole)
{
    const char *db = tmp("behind.db");
    int refused, first;
    record_lossy(db, 64 << 10, 60, 150, NULL, 0, &refused, &first);
    ck_assert_int_gt(refused, 0);
    ck_assert_int_gt(first, 60);
    ck_assert_int_lt(first, 150);
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM gap"), 1);
    char q[160];
    snprintf(q, sizeof q, "SELECT count(*) FROM gap WHERE from_tick = %d AND to_tick = 180 AND reason "
             "LIKE 'the log is behind: over 65536 bytes waiting%%'", first);
    ck_assert_int_eq(count_rows(db, q), 1);
    verdict *v = verify(db, 0, UINT64_MAX, 0, 2);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.skipped, 180 - (uint64_t)first);
    ck_assert_uint_eq(v->r.ticks, TICKS - (180 - (uint64_t)first));
    ck_assert_msg(strstr(v->report, "NOT VERIFIED") && strstr(v->report, "(the log is behind"), "%s", v->report);
}
END_TEST

/* A session that ends in a gap (the queue overflowed while the writer was held, and the session
 * ended before its next checkpoint): its log stops at its last tick written, with no gap row and
 * nothing damaged, and the recorder is recording again (record_lossy checks it): the gap no
 * longer keeps it failing for good. */
START_TEST(a_session_ending_in_a_gap_leaves_the_recorder_recording)
{
    const char *db = tmp("ended.db");
    int refused, first;
    record_lossy(db, 16 << 10, 180, TICKS, NULL, 0, &refused, &first);   /* (no checkpoint but 239's) */
    ck_assert_int_gt(refused, 0);
    ck_assert_int_gt(first, 180);
    ck_assert_int_lt(first, TICKS - 1);                 /* the last checkpoint was refused too */
    ck_assert_int_eq(count_rows(db, "SELECT count(*) FROM gap"), 0);
    char q[96];
    snprintf(q, sizeof q, "SELECT count(*) FROM session WHERE end_tick = %d AND status = 'closed'", first);
    ck_assert_int_eq(count_rows(db, q), 1);
    verdict *v = verify(db, 0, UINT64_MAX, 0, 2);
    ck_assert_msg(v->rc == 0, "%s", v->report);
    ck_assert_uint_eq(v->r.ticks, (uint64_t)first);
}
END_TEST

Suite *suite_replay(void)
{
    Suite *s = suite_create("replay");
    TCase *tc = tcase_create("replay");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, recorded_session_verifies_bit_exact);
    tcase_add_test(tc, checkpoints_handed_over_are_written_and_their_buffers_reused);
    tcase_add_test(tc, flipped_input_diverges_at_its_tick);
    tcase_add_test(tc, divergence_without_a_later_checkpoint_recomputes_live);
    tcase_add_test(tc, initial_state_must_be_what_the_build_creates);
    tcase_add_test(tc, gaps_are_skipped_and_named);
    tcase_add_test(tc, sessions_are_listed_and_looked_up);
    tcase_add_test(tc, reads_keep_their_statements);
    tcase_add_test(tc, gif_export_decodes_to_the_worlds_frames);
    tcase_add_test(tc, png_export_opens_with_libpng);
    tcase_add_test(tc, bad_files_get_clear_messages);
    tcase_add_test(tc, ticks_that_are_not_whole_numbers_are_damage);
    tcase_add_test(tc, error_codes_name_the_failure);
    tcase_add_test(tc, collected_sessions_keep_their_verdicts);
    tcase_add_test(tc, collect_refuses_clearly_and_leaves_nothing);
    tcase_add_test(tc, schema_2_reads_and_migrates_to_3);
    tcase_add_test(tc, viv_replay_commands);
    tcase_add_test(tc, phase_hashes_name_the_phase_that_diverged);
    suite_add_tcase(s, tc);
    tc = tcase_create("blocks");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, blocks_hold_every_tick_and_verify);
    tcase_add_test(tc, blocks_name_the_divergent_tick);
    tcase_add_test(tc, damaged_blocks_and_deltas_are_damage);
    suite_add_tcase(s, tc);
    tc = tcase_create("lost");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_tick_not_handed_over_is_a_gap);
    tcase_add_test(tc, a_queue_over_its_limit_leaves_a_gap_not_a_hole);
    tcase_add_test(tc, a_session_ending_in_a_gap_leaves_the_recorder_recording);
    suite_add_tcase(s, tc);
    return s;
}
