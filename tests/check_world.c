/* check_world.c — the kind registry, params and input parsing, and the generic world: queue order,
 * validation with nothing applied, save/load round trips and every kind of refusal. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "sand/sand.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

static sim_world *mk(const char *kind, uint64_t seed, const char *params)
{
    return script_world(kind, seed, params);
}

START_TEST(registry_finds_kinds)
{
    ck_assert_int_ge(sim_kind_count(), 1);
    const sim_kind *k = sim_kind_find("sand");
    ck_assert_ptr_nonnull(k);
    ck_assert_ptr_eq(sim_kind_by_id(k->id), k);
    ck_assert_ptr_null(sim_kind_find("nope"));
    ck_assert_ptr_null(sim_kind_at(-1));
    ck_assert_ptr_null(sim_kind_at(sim_kind_count()));
    ck_assert_int_eq(k->hz, 60);
    ck_assert_int_ge(sim_kind_input_find(k, "paint"), 0);
    ck_assert_int_eq(sim_kind_input_find(k, "nope"), -1);
    ck_assert_ptr_nonnull(sim_kind_enum_find(k, "element"));
    /* Distinct names and ids across the table. */
    for (int i = 0; i < sim_kind_count(); i++)
        for (int j = i + 1; j < sim_kind_count(); j++) {
            ck_assert_str_ne(sim_kind_at(i)->name, sim_kind_at(j)->name);
            ck_assert_uint_ne(sim_kind_at(i)->id, sim_kind_at(j)->id);
        }
}
END_TEST

START_TEST(params_are_canonicalised)
{
    const sim_kind *k = sim_kind_find("sand");
    sim_params p;
    char canon[SIM_PARAMS_MAX], err[256];
    ck_assert_int_eq(sim_params_parse(k, "", &p, canon, sizeof canon, err, sizeof err), 0);
    ck_assert_str_eq(canon, "w=320,h=180,scene=demo");
    ck_assert_int_eq(sim_params_parse(k, " scene=empty , w=64", &p, canon, sizeof canon, err,
                                      sizeof err), 0);
    ck_assert_str_eq(canon, "w=64,h=180,scene=empty");
    ck_assert_int_eq(p.ival[0], 64);
    ck_assert_int_eq(sim_params_parse(k, "depth=3", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
    ck_assert_str_eq(err, "sand params: unknown key 'depth' (known: w, h, scene)");
    ck_assert_int_eq(sim_params_parse(k, "w=8", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
    ck_assert_str_eq(err, "sand params: w=8 must be an integer in 16..4096");
    ck_assert_int_eq(sim_params_parse(k, "w=1e3", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
    ck_assert_int_eq(sim_params_parse(k, "scene=lava", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
    ck_assert_str_eq(err, "sand params: scene=lava is not one of: demo, empty, bench");
    ck_assert_int_eq(sim_params_parse(k, "w=20,w=30", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
    ck_assert_int_eq(sim_params_parse(k, "w", &p, canon, sizeof canon, err, sizeof err),
                     SIM_EPARAM);
}
END_TEST

START_TEST(create_reports_clear_errors)
{
    char err[256];
    sim_config c = sim_config_default();
    c.kind = "marble";
    c.err = err;
    c.errlen = sizeof err;
    int rc = 0;
    ck_assert_ptr_null(sim_world_create(&c, &rc));
    ck_assert_int_eq(rc, SIM_EKIND);
    ck_assert_msg(strncmp(err, "unknown world kind 'marble' (kinds: sand", 40) == 0, "%s", err);
    c.kind = "sand";
    c.params = "h=9999";
    ck_assert_ptr_null(sim_world_create(&c, &rc));
    ck_assert_int_eq(rc, SIM_EPARAM);
    ck_assert_str_eq(err, "sand params: h=9999 must be an integer in 16..2048");
    ck_assert_ptr_null(sim_world_create(NULL, &rc));
    ck_assert_int_eq(rc, SIM_EINVAL);
}
END_TEST

START_TEST(input_lines_parse)
{
    const sim_kind *k = sim_kind_find("sand");
    sim_input in;
    char err[256];
    ck_assert_int_eq(sim_input_parse_line(k, "120 paint 160 20 5 sand\n", &in, err, sizeof err), 0);
    ck_assert_uint_eq(in.tick, 120);
    ck_assert_int_eq(in.kind, sim_kind_input_find(k, "paint"));
    ck_assert_int_eq(in.nargs, 4);
    ck_assert_int_eq(in.args[0], 160);
    ck_assert_int_eq(in.args[2], 5);
    ck_assert_int_eq(in.args[3], 3);                 /* sand's element id */
    ck_assert_int_eq(sim_input_parse_line(k, "7 paint 1 2 3 4 # numeric element", &in, err,
                                          sizeof err), 0);
    ck_assert_int_eq(in.args[3], 4);
    ck_assert_int_eq(sim_input_parse_line(k, "   \n", &in, err, sizeof err), 1);
    ck_assert_int_eq(sim_input_parse_line(k, "# only a comment", &in, err, sizeof err), 1);
    ck_assert_int_eq(sim_input_parse_line(k, "x paint 1 2 3 sand", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_str_eq(err, "expected '<tick> <input> <args…>', and 'x' is not a tick");
    ck_assert_int_eq(sim_input_parse_line(k, "5 paint 1 2 3", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_str_eq(err, "paint takes 4 arguments (x y r element), got 3");
    ck_assert_int_eq(sim_input_parse_line(k, "5 paint 1 2 3 marble", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_msg(strncmp(err, "paint: unknown element 'marble' (known: empty, wall,", 50) == 0, "%s", err);
    ck_assert_int_eq(sim_input_parse_line(k, "5 dig 1 2", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_str_eq(err, "unknown input 'dig' for sand (inputs: paint, erase, explode)");
    ck_assert_int_eq(sim_input_parse_line(k, "-1 erase 1 2 3", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_int_eq(sim_input_parse_line(k, "5 erase 1 2 99999999999", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_int_eq(sim_input_parse_line(k, "5", &in, err, sizeof err), SIM_EINPUT);
    ck_assert_int_eq(sim_input_parse_line(k, "5 erase 1 2 3 4 5 6 7 8 9 10", &in, err, sizeof err),
                     SIM_EINPUT);
}
END_TEST

static sim_input paint(uint64_t tick, uint32_t client, uint32_t seq, int x, int y, int r, int el)
{
    sim_input in;
    memset(&in, 0, sizeof in);
    in.tick = tick;
    in.client = client;
    in.seq = seq;
    in.kind = 0;
    in.nargs = 4;
    in.args[0] = x; in.args[1] = y; in.args[2] = r; in.args[3] = el;
    return in;
}

START_TEST(invalid_inputs_change_nothing)
{
    sim_world *w = mk("sand", 3, "w=64,h=64,scene=empty");
    uint64_t h0 = sim_world_hash(w);
    sim_input in = paint(0, 1, 1, 10, 10, 65, 3);        /* radius over 64 */
    ck_assert_int_eq(sim_world_input(w, &in), SIM_EINPUT);
    ck_assert_str_eq(sim_world_error(w), "paint: r=65 is out of range 0..64");
    in = paint(0, 1, 1, 10, 10, 4, 99);                  /* unknown element */
    ck_assert_int_eq(sim_world_input(w, &in), SIM_EINPUT);
    in = paint(0, 1, 1, 10, 10, 4, 3);
    in.nargs = 3;                                         /* wrong count */
    ck_assert_int_eq(sim_world_input(w, &in), SIM_EINPUT);
    in = paint(0, 1, 1, 10, 10, 4, 3);
    in.kind = 17;                                         /* unknown input kind */
    ck_assert_int_eq(sim_world_input(w, &in), SIM_EINPUT);
    in = paint(5, 1, 1, 10, 10, 4, 3);                   /* not the next tick */
    ck_assert_int_eq(sim_world_input(w, &in), SIM_ETICK);
    ck_assert_uint_eq(sim_world_hash(w), h0);
    sim_world_step(w);
    sim_world *ref = mk("sand", 3, "w=64,h=64,scene=empty");
    sim_world_step(ref);
    ck_assert_uint_eq(sim_world_hash(w), sim_world_hash(ref));   /* nothing was applied */
    sim_world_destroy(ref);
    sim_world_destroy(w);
}
END_TEST

START_TEST(inputs_apply_in_client_seq_order)
{
    /* Two paints of the same disc: the one applied last wins. Queue them out of order. */
    sim_world *a = mk("sand", 3, "w=64,h=64,scene=empty");
    sim_world *b = mk("sand", 3, "w=64,h=64,scene=empty");
    sim_input water = paint(0, 2, 1, 32, 32, 3, 4), stone = paint(0, 1, 9, 32, 32, 3, 2);
    ck_assert_int_eq(sim_world_input(a, &water), 0);
    ck_assert_int_eq(sim_world_input(a, &stone), 0);
    ck_assert_int_eq(sim_world_input(b, &stone), 0);
    ck_assert_int_eq(sim_world_input(b, &water), 0);
    ck_assert_int_eq(sim_world_input(b, &water), SIM_EDUP);
    sim_world_step(a);
    sim_world_step(b);
    ck_assert_uint_eq(sim_world_hash(a), sim_world_hash(b));
    /* client 2 comes after client 1, so water is on top: (32,32) was water before it moved. */
    ck_assert_int_eq(sand__count(sim__world_impl(a), 2), 0);
    ck_assert_int_gt(sand__count(sim__world_impl(a), 4), 0);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

/* What a recorder logs: the inputs the last step applied, exactly and in the order applied, the
 * whole tick up to SIM_TICK_INPUTS_MAX (the next one is refused, not dropped later), and nothing
 * of a step without inputs or of a loaded state's past. */
START_TEST(applied_inputs_are_what_the_step_applied)
{
    sim_world *w = mk("sand", 3, "w=64,h=64,scene=empty");
    const sim_input *got = NULL;
    ck_assert_uint_eq(sim_world_applied(w, &got), 0);
    sim_input q[3] = { paint(0, 2, 1, 10, 10, 2, 4), paint(0, 1, 9, 20, 20, 3, 2),
                       paint(0, 1, 4, 30, 30, 1, 3) };
    for (int i = 0; i < 3; i++) ck_assert_int_eq(sim_world_input(w, &q[i]), 0);
    sim_world_step(w);
    ck_assert_uint_eq(sim_world_applied(w, &got), 3);
    const sim_input *order[3] = { &q[2], &q[1], &q[0] };     /* (1,4), (1,9), (2,1) */
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(got[i].tick, 0);
        ck_assert_uint_eq(got[i].client, order[i]->client);
        ck_assert_uint_eq(got[i].seq, order[i]->seq);
        ck_assert_int_eq(got[i].nargs, 4);
        ck_assert_mem_eq(got[i].args, order[i]->args, sizeof got[i].args);
    }
    sim_world_step(w);
    ck_assert_uint_eq(sim_world_applied(w, &got), 0);

    /* A full tick: every input of it is applied and reported; one more is refused at once. */
    uint64_t t = sim_world_tick(w);
    for (uint32_t i = 0; i < SIM_TICK_INPUTS_MAX; i++) {
        sim_input in = paint(t, 1 + i / 64, i % 64, (int)(i % 60), (int)(i / 60 % 60), 1, 3);
        ck_assert_int_eq(sim_world_input(w, &in), 0);
    }
    sim_input extra = paint(t, 999, 1, 5, 5, 1, 3);
    ck_assert_int_eq(sim_world_input(w, &extra), SIM_EFULL);
    sim_world_step(w);
    ck_assert_uint_eq(sim_world_applied(w, &got), SIM_TICK_INPUTS_MAX);
    ck_assert_uint_eq(got[SIM_TICK_INPUTS_MAX - 1].client, 1 + (SIM_TICK_INPUTS_MAX - 1) / 64);

    /* A load starts a new past: nothing was applied by this world since. */
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    size_t len = sim_world_save(w, buf, cap);
    ck_assert_uint_gt(len, 0);
    ck_assert_int_eq(sim_world_load(w, buf, len), 0);
    ck_assert_uint_eq(sim_world_applied(w, NULL), 0);
    free(buf);
    sim_world_destroy(w);
}
END_TEST

START_TEST(save_load_round_trip)
{
    sim_world *a = mk("sand", 11, "w=96,h=64,scene=bench");
    for (int t = 0; t < 50; t++) sim_world_step(a);
    size_t cap = sim_world_save_max(a);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(a, buf, cap);
    ck_assert_uint_gt(n, 0);
    ck_assert_uint_eq(sim_world_save(a, buf, n - 1), 0);     /* too small: refused, not cut */
    n = sim_world_save(a, buf, cap);
    /* Load into a world of other seed and params: it takes them all from the blob. */
    sim_world *b = mk("sand", 999, "w=16,h=16,scene=empty");
    ck_assert_int_eq(sim_world_load(b, buf, n), 0);
    ck_assert_uint_eq(sim_world_hash(a), sim_world_hash(b));
    ck_assert_uint_eq(sim_world_tick(b), 50);
    ck_assert_uint_eq(sim_world_seed(b), 11);
    ck_assert_str_eq(sim_world_params(b), "w=96,h=64,scene=bench");
    uint16_t kid;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    ck_assert_int_eq(sim_state_peek(buf, n, &kid, &seed, &tick, params, sizeof params), 0);
    ck_assert_uint_eq(kid, 1);
    ck_assert_uint_eq(seed, 11);
    ck_assert_uint_eq(tick, 50);
    ck_assert_str_eq(params, "w=96,h=64,scene=bench");
    for (int t = 0; t < 50; t++) {
        sim_world_step(a);
        sim_world_step(b);
    }
    ck_assert_uint_eq(sim_world_hash(a), sim_world_hash(b));
    free(buf);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

/* sim_world_save_stream hands over exactly sim_world_save's bytes (its pieces in order: the
 * staging buffer's, and a sand world's cells as one run), and sim_world_hash, which streams a big
 * state and copies a small one, is sim_state_hash of those bytes either way, for every kind: XXH3-64
 * of the bytes themselves, except for sand from state version 3 on (its chunk digests), which is
 * XXH3-64 of the bytes again once the world is set to save as version 2. */
typedef struct sink_buf {
    uint8_t *p;
    size_t len, cap, pieces, longest;
} sink_buf;

static void sink_put(void *ud, const void *p, size_t n)
{
    sink_buf *b = ud;
    ck_assert_uint_le(b->len + n, b->cap);
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->pieces++;
    if (n > b->longest) b->longest = n;
}

START_TEST(a_state_streamed_is_the_state_saved)
{
    static const struct { const char *kind, *params; int big; } worlds[] = {
        { "sand", "w=96,h=64,scene=bench", 0 }, { "sand", "w=2048,h=256,scene=demo", 1 },
        { "terrarium", "", 0 }, { "cycle", "", 0 }, { "merge", "", 0 }, { "garden", "", 0 },
    };
    for (size_t i = 0; i < sizeof worlds / sizeof worlds[0]; i++) {
        sim_world *w = mk(worlds[i].kind, 5, worlds[i].params);
        for (int t = 0; t < 30; t++) sim_world_step(w);
        size_t cap = sim_world_save_max(w);
        ck_assert_int_eq(cap >= SIM_HASH_STREAM_MIN, worlds[i].big);
        uint8_t *saved = malloc(cap);
        sink_buf b = { malloc(cap), 0, cap, 0, 0 };
        ck_assert_ptr_nonnull(saved);
        ck_assert_ptr_nonnull(b.p);
        size_t n = sim_world_save(w, saved, cap);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_eq(sim_world_save_stream(w, sink_put, &b), n);
        ck_assert_uint_eq(b.len, n);
        ck_assert_msg(memcmp(b.p, saved, n) == 0, "%s: the streamed bytes differ from the saved", worlds[i].kind);
        ck_assert_uint_eq(sim_world_hash(w), sim_state_hash(saved, n));
        int sand = strcmp(worlds[i].kind, "sand") == 0;
        ck_assert_int_eq(sim_world_hash_is_saved(w), !sand);
        if (sand) {
            ck_assert_uint_eq(sim_world_state_version(w), 3);
            ck_assert_uint_ne(sim_world_hash(w), XXH3_64bits(saved, n));
            ck_assert_int_eq(sim_world_set_state_version(w, 1), SIM_EVERSION);
            ck_assert_int_eq(sim_world_set_state_version(w, 4), SIM_EVERSION);
            ck_assert_int_eq(sim_world_set_state_version(w, 2), 0);
            ck_assert_uint_eq(sim_world_save(w, saved, cap), n);
            ck_assert_uint_eq(sim_state_version(saved, n), 2);
            ck_assert_uint_eq(sim_world_hash(w), XXH3_64bits(saved, n));
            ck_assert_uint_eq(sim_state_hash(saved, n), XXH3_64bits(saved, n));
            /* a world loaded from a version 2 state keeps saving and hashing as version 2 */
            sim_world *v2 = mk("sand", 9, worlds[i].params);
            ck_assert_int_eq(sim_world_load(v2, saved, n), 0);
            ck_assert_uint_eq(sim_world_state_version(v2), 2);
            ck_assert_uint_eq(sim_world_hash(v2), XXH3_64bits(saved, n));
            sim_world_destroy(v2);
        } else {
            ck_assert_uint_eq(sim_world_hash(w), XXH3_64bits(saved, n));
        }
        /* a big sand world's cells go over a row at a time (gathered from their columns, 16
         * rows at once), a run each, not copied through the 4 KB staging buffer */
        if (worlds[i].big) ck_assert_uint_eq(b.longest, (size_t)2048 * 4);
        free(saved);
        free(b.p);
        sim_world_destroy(w);
    }
}
END_TEST

/* A sand world's state hash (version 3) takes each chunk's digest again only when a cell of it
 * changed: whatever changes a cell (the steps on any number of workers, paint, erase, explosions,
 * hashed every tick or once in a while) must reach the digests, so the hash of the world always
 * equals the hash of its saved bytes digested from scratch (sim_state_hash), and that of a world
 * loaded from them. A cell changed without its chunk marked fails here. */
START_TEST(a_sand_hash_follows_every_change)
{
    static const char *const params[] = { "w=320,h=180,scene=demo", "w=200,h=120,scene=bench",
                                           "w=1024,h=512,scene=demo", "w=77,h=45,scene=empty" };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        sim_world *w = mk("sand", 11 + i, params[i]), *other = mk("sand", 3, params[i]);
        script_runner r;
        script_runner_init(&r, SCRIPT_RUN_SHUFFLED, 3);
        if (i & 1) sim_world_set_tasks(w, &r.tasks);
        size_t cap = sim_world_save_max(w);
        uint8_t *saved = malloc(cap);
        ck_assert_ptr_nonnull(saved);
        int fw, fh;
        sim_world_frame_size(w, &fw, &fh);
        uint32_t seq = 0;
        long hashed = 0;
        for (int t = 0; t < 240; t++) {
            uint64_t tick = sim_world_tick(w);
            if (t % 9 == 0) {
                sim_input in = paint(tick, 1, ++seq, (t * 37) % fw, (t * 23) % fh, 3 + t % 11, 1 + t % 13);
                in.kind = (uint16_t)(t % 27 == 0 ? 2 : t % 18 == 0 ? 1 : 0);     /* explode, erase */
                in.nargs = in.kind ? 3 : 4;
                if (in.kind) in.args[3] = 0;
                ck_assert_int_eq(sim_world_input(w, &in), 0);
            }
            sim_world_step(w);
            if (t % 5 == 3 && t % 7 != 0) continue;        /* some ticks not hashed at all */
            size_t n = sim_world_save(w, saved, cap);
            ck_assert_uint_gt(n, 0);
            uint64_t h = sim_world_hash(w);
            ck_assert_msg(h == sim_state_hash(saved, n), "%s: tick %llu: the cached digests are stale",
                          params[i], (unsigned long long)sim_world_tick(w));
            if (t % 40 == 0) {
                ck_assert_int_eq(sim_world_load(other, saved, n), 0);
                ck_assert_uint_eq(sim_world_hash(other), h);
            }
            hashed++;
        }
        ck_assert_int_gt(hashed, 150);
        free(saved);
        sim_world_destroy(w);
        sim_world_destroy(other);
    }
}
END_TEST

/* Each refusal must leave the target exactly as it was: same hash, tick, seed, params. */
static void expect_refused(sim_world *w, const uint8_t *buf, size_t len, int want)
{
    uint64_t h = sim_world_hash(w), tick = sim_world_tick(w), seed = sim_world_seed(w);
    char params[SIM_PARAMS_MAX];
    strcpy(params, sim_world_params(w));
    int rc = sim_world_load(w, buf, len);
    ck_assert_msg(rc == want, "load gave %d (%s), wanted %d; %s", rc, sim_strerror(rc), want,
                  sim_world_error(w));
    ck_assert_uint_eq(sim_world_hash(w), h);
    ck_assert_uint_eq(sim_world_tick(w), tick);
    ck_assert_uint_eq(sim_world_seed(w), seed);
    ck_assert_str_eq(sim_world_params(w), params);
}

START_TEST(load_refuses_bad_blobs_and_leaves_world_untouched)
{
    sim_world *src = mk("sand", 5, "w=32,h=32,scene=bench");
    for (int t = 0; t < 10; t++) sim_world_step(src);
    size_t cap = sim_world_save_max(src);
    uint8_t *good = malloc(cap + 1), *bad = malloc(cap + 1);
    size_t n = sim_world_save(src, good, cap);
    sim_world *w = mk("sand", 77, "w=48,h=40,scene=bench");
    for (int t = 0; t < 3; t++) sim_world_step(w);

    memcpy(bad, good, n); bad[0] = 'X';
    expect_refused(w, bad, n, SIM_EMAGIC);
    memcpy(bad, good, n); bad[4] = 2;                       /* format version */
    expect_refused(w, bad, n, SIM_EVERSION);
    memcpy(bad, good, n); bad[6] = 99;                      /* kind id */
    expect_refused(w, bad, n, SIM_EWRONGKIND);
    memcpy(bad, good, n); bad[8] = 77;                      /* kind state version */
    expect_refused(w, bad, n, SIM_EVERSION);
    memcpy(bad, good, n); bad[n] = 0;                       /* a trailing byte */
    expect_refused(w, bad, n + 1, SIM_ETRUNC);
    for (size_t cut = 0; cut < n; cut += (cut < 64 ? 1 : 97))   /* truncated anywhere */
        expect_refused(w, good, cut, SIM_ETRUNC);
    /* A consistent length field but a short payload. */
    memcpy(bad, good, n - 4);
    bad[12] = (uint8_t)(n - 4); bad[13] = (uint8_t)((n - 4) >> 8);
    bad[14] = (uint8_t)((n - 4) >> 16); bad[15] = (uint8_t)((n - 4) >> 24);
    expect_refused(w, bad, n - 4, SIM_ETRUNC);
    /* Params that are not canonical. */
    memcpy(bad, good, n);
    size_t p = 34;
    ck_assert_int_eq(bad[p], 'w');
    bad[p] = 'q';
    expect_refused(w, bad, n, SIM_ECORRUPT);
    /* A cell with an element that does not exist. */
    memcpy(bad, good, n);
    size_t plen = bad[32] | (bad[33] << 8);
    size_t cells = 34 + plen + 4 + 5;
    bad[cells + 4 * 7] = 200;
    expect_refused(w, bad, n, SIM_ECORRUPT);
    /* A dirty rectangle outside its chunk. */
    memcpy(bad, good, n);
    size_t rects = cells + 32 * 32 * 4;
    bad[rects] = 0; bad[rects + 1] = 0; bad[rects + 4] = 0xFF; bad[rects + 5] = 0x7F;
    expect_refused(w, bad, n, SIM_ECORRUPT);
    expect_refused(w, NULL, 0, SIM_EINVAL);
    ck_assert_int_eq(sim_world_load(w, good, n), 0);       /* and the good one still loads */
    ck_assert_uint_eq(sim_world_hash(w), sim_world_hash(src));
    free(good);
    free(bad);
    sim_world_destroy(src);
    sim_world_destroy(w);
}
END_TEST

/* A queued input in a saved state is applied by the next step, unchecked: so load refuses any
 * the world itself would not have queued (found by tests/fuzz/fuzz_state.c: a blob with a paint
 * of radius 99995 overflowed the disc test in sand_apply_input). */
START_TEST(load_refuses_queued_inputs_no_world_would_queue)
{
    sim_world *src = mk("sand", 5, "w=32,h=32,scene=empty");
    sim_input a = paint(0, 1, 4, 10, 10, 3, 3), b = paint(0, 2, 1, 20, 20, 5, 4);
    ck_assert_int_eq(sim_world_input(src, &a), 0);
    ck_assert_int_eq(sim_world_input(src, &b), 0);
    size_t cap = sim_world_save_max(src);
    uint8_t *good = malloc(cap), *bad = malloc(cap);
    size_t n = sim_world_save(src, good, cap);
    size_t plen = good[32] | (good[33] << 8);
    size_t q = 34 + plen + 4;                            /* the first queued input (52 bytes each) */
    ck_assert_int_eq(good[q + 8], 1);                    /* client 1 */
    ck_assert_int_eq(good[q + 52 + 8], 2);               /* client 2 */
    sim_world *w = mk("sand", 77, "w=16,h=16,scene=empty");
    memcpy(bad, good, n); bad[q + 28] = 0x9b; bad[q + 29] = 0x86; bad[q + 30] = 0x01;   /* r = 99995 */
    expect_refused(w, bad, n, SIM_ECORRUPT);
    ck_assert_ptr_nonnull(strstr(sim_world_error(w), "r=99995 is out of range"));
    memcpy(bad, good, n); bad[q + 52 + 44] = 1;         /* client 2's unused 7th argument */
    expect_refused(w, bad, n, SIM_ECORRUPT);
    memcpy(bad, good, n); bad[q + 8] = 3;                /* client 3 queued before client 2 */
    expect_refused(w, bad, n, SIM_ECORRUPT);
    memcpy(bad, good, n); bad[q + 52 + 8] = 1; bad[q + 52 + 12] = 4;   /* (1, 4) twice */
    expect_refused(w, bad, n, SIM_ECORRUPT);
    memcpy(bad, good, n); bad[q + 16] = 7;               /* an input kind sand does not have */
    expect_refused(w, bad, n, SIM_ECORRUPT);
    /* The state as saved loads, and steps as the original does. */
    ck_assert_int_eq(sim_world_load(w, good, n), 0);
    sim_world_step(w);
    sim_world_step(src);
    ck_assert_uint_eq(sim_world_hash(w), sim_world_hash(src));
    free(good);
    free(bad);
    sim_world_destroy(src);
    sim_world_destroy(w);
}
END_TEST

START_TEST(frame_hash_covers_size_palette_and_pixels)
{
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 4, 3), 0);
    f.pal.count = 2;
    f.pal.rgb[3] = 255;
    uint64_t h = sim_frame_hash(&f);
    f.px[5] = 1;
    uint64_t h2 = sim_frame_hash(&f);
    ck_assert_uint_ne(h, h2);
    f.pal.rgb[4] = 1;
    ck_assert_uint_ne(sim_frame_hash(&f), h2);
    f.pal.rgb[4] = 0;
    f.pal.rgb[3 * 5] = 9;                                   /* beyond count: not covered */
    ck_assert_uint_eq(sim_frame_hash(&f), h2);
    f.pal.version = 7;                                      /* version is not content */
    ck_assert_uint_eq(sim_frame_hash(&f), h2);
    sim_frame_free(&f);
    ck_assert_int_eq(sim_frame_init(&f, 0, 3), SIM_EINVAL);
}
END_TEST

START_TEST(strerror_names_every_code)
{
    for (int e = 0; e >= SIM_EFILE; e--) ck_assert_str_ne(sim_strerror(e), "unknown error");
    ck_assert_str_eq(sim_strerror(-999), "unknown error");
}
END_TEST

/* Events are kept per step: in order, with their fields, the tick of the step, at most
 * SIM_EVENTS_MAX (the rest counted), and nothing once nobody listens (render's context). */
START_TEST(events_are_kept_per_step_and_counted_past_the_cap)
{
    static sim_events es;
    memset(&es, 0, sizeof es);
    sim_ctx ctx = { 7, 41, NULL, &es, NULL };
    sim_event *e = sim_event_add(&ctx, "brain");
    ck_assert_ptr_nonnull(e);
    sim_event_num(e, "creature", 2);
    sim_event_str(e, "to", "lunge");
    for (int i = 0; i < SIM_EVENT_FIELDS + 3; i++) sim_event_num(e, "extra", i);   /* ignored past the cap */
    ck_assert_int_eq(e->nfields, SIM_EVENT_FIELDS);
    ck_assert_uint_eq(e->tick, 41);
    ck_assert_str_eq(e->name, "brain");
    ck_assert_str_eq(e->f[0].key, "creature");
    ck_assert_ptr_null(e->f[0].str);
    ck_assert_int_eq(e->f[0].num, 2);
    ck_assert_str_eq(e->f[1].str, "lunge");
    for (int i = 1; i < SIM_EVENTS_MAX; i++) ck_assert_ptr_nonnull(sim_event_add(&ctx, "merge"));
    ck_assert_ptr_null(sim_event_add(&ctx, "merge"));
    ck_assert_ptr_null(sim_event_add(&ctx, "merge"));
    sim_event_num(NULL, "k", 1);                       /* a dropped event takes fields harmlessly */
    ck_assert_int_eq(es.n, SIM_EVENTS_MAX);
    ck_assert_uint_eq(es.dropped, 2);
    sim_ctx quiet = { 7, 41, NULL, NULL, NULL };
    ck_assert_ptr_null(sim_event_add(&quiet, "brain"));
    /* A world's events belong to its last step: none after create, none after a load. */
    sim_config cfg = sim_config_default();
    cfg.kind = "sand";
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    ck_assert_ptr_nonnull(w);
    const sim_event *ev;
    uint32_t dropped = 9;
    ck_assert_int_eq(sim_world_events(w, &ev, &dropped), 0);
    ck_assert_uint_eq(dropped, 0);
    sim_world_step(w);
    ck_assert_int_eq(sim_world_events(w, &ev, NULL), 0);   /* sand reports none */
    sim_world_destroy(w);
}
END_TEST

Suite *suite_world(void)
{
    Suite *s = suite_create("world");
    TCase *tc = tcase_create("world");
    tcase_add_test(tc, registry_finds_kinds);
    tcase_add_test(tc, applied_inputs_are_what_the_step_applied);
    tcase_add_test(tc, params_are_canonicalised);
    tcase_add_test(tc, create_reports_clear_errors);
    tcase_add_test(tc, input_lines_parse);
    tcase_add_test(tc, invalid_inputs_change_nothing);
    tcase_add_test(tc, inputs_apply_in_client_seq_order);
    tcase_add_test(tc, save_load_round_trip);
    tcase_add_test(tc, a_state_streamed_is_the_state_saved);
    tcase_add_test(tc, a_sand_hash_follows_every_change);
    tcase_add_test(tc, load_refuses_bad_blobs_and_leaves_world_untouched);
    tcase_add_test(tc, load_refuses_queued_inputs_no_world_would_queue);
    tcase_add_test(tc, frame_hash_covers_size_palette_and_pixels);
    tcase_add_test(tc, strerror_names_every_code);
    tcase_add_test(tc, events_are_kept_per_step_and_counted_past_the_cap);
    suite_add_tcase(s, tc);
    return s;
}
