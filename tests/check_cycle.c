/* check_cycle.c — the palette-cycling world (sim/cycle/cycle.c): exact timing (a range comes home
 * after `size` steps, reverse, ping-pong, BlendShift's rounding, speed), pixels that never change,
 * the golden chain, the sync test, replays without the scene file, viv cycle, and the world in a
 * real vivd; and a Canvas Cycle scene against a transcription of Canvas Cycle's own palette code. The scene files have suites of their own: check_scene.c (the scene type, import.c),
 * check_ilbm.c and check_ccjson.c. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_suites.h"
#include "script.h"
#include "check_scene.h"
#include "e2e.h"

/* ---- helpers ------------------------------------------------------------------------------------ */
static sim_world *mk(uint64_t seed, const char *params) { return script_world("cycle", seed, params); }

/* A world built from a scene held in memory (written out as Canvas Cycle JSON, our dialect). */
static sim_world *mk_scene(const sim_cycle_scene *sc)
{
    size_t n = sim_cycle_to_ccjson(sc, "test", NULL, 0);
    ck_assert_uint_gt(n, 0);
    uint8_t *buf = malloc(n);
    sim_cycle_to_ccjson(sc, "test", buf, n);
    cyc_memfile mf = { buf, n, 0 };
    char err[256];
    int rc;
    sim_world *w = cyc_world_files(1, "scene=file:mem.json", &mf, &rc, err, sizeof err);
    ck_assert_msg(w != NULL, "create failed: %s", err);
    free(buf);
    return w;
}

static void run(sim_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++) sim_world_step(w);
}

static const uint8_t *pal_of(sim_world *w) { return sim__cycle_palette(sim__world_impl(w)); }

/* The base palette rotated forward by k whole steps over [low, high]. */
static void rotated(const sim_cycle_scene *sc, int k, uint8_t *out)
{
    const sim_cycle_range *r = &sc->ranges[0];
    int n = r->high - r->low + 1;
    memcpy(out, sc->rgb, (size_t)sc->ncolors * 3);
    for (int i = 0; i < n; i++) {
        int from = ((i - k) % n + n) % n;
        memcpy(&out[3 * (r->low + i)], &sc->rgb[3 * (r->low + from)], 3);
    }
}
/* ---- timing ------------------------------------------------------------------------------------- */
/* One step a tick: the range is back at its base colours after exactly `size` ticks, every tick
 * before that it is rotated by the tick count, and entries outside the range never move. */
START_TEST(range_returns_after_size_steps)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 3, 10, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);
    sim_world *w = mk_scene(&sc);
    uint8_t want[768];
    for (int t = 1; t <= 8; t++) {
        sim_world_step(w);
        rotated(&sc, t, want);
        ck_assert_msg(memcmp(pal_of(w), want, 48) == 0, "tick %d: not rotated by %d", t, t);
        if (t < 8) ck_assert_msg(memcmp(pal_of(w), sc.rgb, 48) != 0, "home early at %d", t);
    }
    ck_assert_int_eq(memcmp(pal_of(w), sc.rgb, 48), 0);
    /* Entry 3 now shows what entry 10 had one step after tick 0: forward moves colours up. */
    sim_world_destroy(w);
    w = mk_scene(&sc);
    sim_world_step(w);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * 3], &sc.rgb[3 * 10], 3), 0);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * 4], &sc.rgb[3 * 3], 3), 0);
    sim_world_destroy(w);
    /* A quarter step a tick (rate 4096 = 15 steps a second): home after 8 steps = 32 ticks,
     * changing only on whole steps in standard mode. */
    sc.ranges[0].rate = 4096;
    w = mk_scene(&sc);
    for (int t = 1; t <= 32; t++) {
        sim_world_step(w);
        rotated(&sc, t / 4, want);
        ck_assert_msg(memcmp(pal_of(w), want, 48) == 0, "rate 4096, tick %d", t);
    }
    ck_assert_int_eq(memcmp(pal_of(w), sc.rgb, 48), 0);
    sim_world_destroy(w);
    sim_cycle_scene_free(&sc);
}
END_TEST

/* The IFF convention exactly: after t ticks at rate r the position is (t·r) >> 14. */
START_TEST(position_is_tick_times_rate_shift_14)
{
    static const int rates[] = { 1, 273, 2731, 5000, 16384, 16385, 40000, 65535 };
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        sim_cycle_scene sc;
        cyc_tiny_scene(&sc, 0, 15, rates[k], SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
        sim_world *w = mk_scene(&sc);
        const sim_cycle_range *r = &sim__cycle_scene(sim__world_impl(w))->ranges[0];
        for (uint64_t t = 1; t <= 700; t++) {
            sim_world_step(w);
            uint64_t pos = (t * (uint64_t)rates[k]) >> 14, frac = (t * (uint64_t)rates[k]) & 0x3FFF;
            uint32_t o = sim__cycle_offset(r, sim__cycle_phase(sim__world_impl(w), 0));
            ck_assert_msg(o / CYC_SUB == pos % 16 && o % CYC_SUB == frac,
                          "rate %d tick %llu: offset %u+%u, want %llu+%llu", rates[k],
                          (unsigned long long)t, o / CYC_SUB, o % CYC_SUB,
                          (unsigned long long)(pos % 16), (unsigned long long)frac);
        }
        /* The world's palette is the same as the stand-alone palette at that tick. */
        uint8_t want[768];
        sim_cycle_palette_at(&sc, 700, want);
        ck_assert_int_eq(memcmp(pal_of(w), want, 48), 0);
        sim_world_destroy(w);
        sim_cycle_scene_free(&sc);
    }
}
END_TEST

START_TEST(reverse_runs_the_other_way)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 2, 7, 16384, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD);
    sim_world *w = mk_scene(&sc);
    uint8_t want[768];
    for (int t = 1; t <= 6; t++) {
        sim_world_step(w);
        rotated(&sc, -t, want);
        ck_assert_msg(memcmp(pal_of(w), want, 48) == 0, "tick %d: not rotated back by %d", t, t);
    }
    ck_assert_int_eq(memcmp(pal_of(w), sc.rgb, 48), 0);      /* home after size = 6 steps */
    sim_world_destroy(w);
    /* One step: entry 2 shows what entry 3 had (colours move down). */
    w = mk_scene(&sc);
    sim_world_step(w);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * 2], &sc.rgb[3 * 3], 3), 0);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * 7], &sc.rgb[3 * 2], 3), 0);
    sim_world_destroy(w);
    sim_cycle_scene_free(&sc);
}
END_TEST

/* Ping-pong: forward for size steps, then back the way it came; period 2·size. */
START_TEST(pingpong_turns_at_the_ends)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 4, 8, 16384, SIM_CYCLE_PINGPONG, SIM_CYCLE_STANDARD);
    int n = 5;
    sim_world *w = mk_scene(&sc);
    uint8_t want[768];
    int turned = 0;
    for (int t = 1; t <= 4 * n; t++) {
        sim_world_step(w);
        int k = t % (2 * n);
        int pos = k <= n ? k : 2 * n - k;
        rotated(&sc, pos, want);
        ck_assert_msg(memcmp(pal_of(w), want, 48) == 0, "tick %d: want position %d", t, pos);
        if (t == n + 1) {
            /* Past the end it has turned: not where forward would be. */
            uint8_t fwd[768];
            rotated(&sc, n + 1, fwd);
            turned = memcmp(pal_of(w), fwd, 48) != 0;
        }
    }
    ck_assert(turned);
    sim_world_destroy(w);
    sim_cycle_scene_free(&sc);
}
END_TEST

/* BlendShift at half a step: every entry is the defined rounding of its two neighbours,
 * (a + b + 1) >> 1 per channel, exactly. At a whole step it is a plain rotation. */
START_TEST(blendshift_midpoint_rounds_half_up)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 0, 15, 8192, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    sim_world *w = mk_scene(&sc);
    sim_world_step(w);                                    /* half a step */
    const uint8_t *p = pal_of(w);
    int odd = 0;
    for (int i = 0; i < 16; i++)
        for (int c = 0; c < 3; c++) {
            int a = sc.rgb[3 * i + c], b = sc.rgb[3 * ((i + 15) % 16) + c];
            ck_assert_msg(p[3 * i + c] == ((a + b + 1) >> 1), "entry %d channel %d: %d, want %d",
                          i, c, p[3 * i + c], (a + b + 1) >> 1);
            odd += (a + b) & 1;
        }
    ck_assert_int_gt(odd, 5);                              /* the rounding was exercised */
    sim_world_step(w);                                    /* a whole step */
    uint8_t want[768];
    rotated(&sc, 1, want);
    ck_assert_int_eq(memcmp(pal_of(w), want, 48), 0);
    /* The same range in standard mode shows no in-between at half a step. */
    sim_world_destroy(w);
    sc.ranges[0].mode = SIM_CYCLE_STANDARD;
    w = mk_scene(&sc);
    sim_world_step(w);
    ck_assert_int_eq(memcmp(pal_of(w), sc.rgb, 48), 0);
    /* The rule itself, at its edges. */
    ck_assert_uint_eq(sim__cycle_mix(10, 200, 0), 10);
    ck_assert_uint_eq(sim__cycle_mix(10, 11, 8192), 11);
    ck_assert_uint_eq(sim__cycle_mix(11, 10, 8192), 11);
    ck_assert_uint_eq(sim__cycle_mix(0, 255, 16383), 255);
    ck_assert_uint_eq(sim__cycle_mix(255, 0, 16383), 0);
    sim_world_destroy(w);
    sim_cycle_scene_free(&sc);
}
END_TEST

/* Speed 200 at tick t is speed 100 at tick 2t — in every scene, every range, every tick — and a
 * speed change mid-run carries on from where the ranges are. */
START_TEST(speed_200_at_t_is_speed_100_at_2t)
{
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk" };
    for (int s = 0; s < 3; s++) {
        sim_world *a = mk(5, scenes[s]), *b = mk(5, scenes[s]);
        cyc_in(a, "speed 200");
        int nr = sim__cycle_scene(sim__world_impl(a))->nranges;
        ck_assert_int_ge(nr, 4);
        for (int t = 1; t <= 400; t++) {
            sim_world_step(a);
            run(b, 2);
            for (int r = 0; r < nr; r++)
                ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(a), r),
                                  sim__cycle_phase(sim__world_impl(b), r));
            ck_assert_int_eq(memcmp(pal_of(a), pal_of(b), 768), 0);
        }
        sim_world_destroy(a);
        sim_world_destroy(b);
    }
    /* 10 ticks at 100 then 5 at 200 == 20 at 100; 30 at 10% == 3 at 100. */
    sim_world *a = mk(5, ""), *b = mk(5, "");
    run(a, 10);
    cyc_in(a, "speed 200");
    run(a, 5);
    run(b, 20);
    ck_assert_int_eq(memcmp(pal_of(a), pal_of(b), 768), 0);
    sim_world_destroy(a);
    sim_world_destroy(b);
    a = mk(6, "scene=dusk");
    b = mk(6, "scene=dusk");
    cyc_in(a, "speed 10");
    run(a, 30);
    run(b, 3);
    for (int r = 0; r < 12; r++)
        ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(a), r), sim__cycle_phase(sim__world_impl(b), r));
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

/* Pixels never change after tick 0, in any scene, whatever the inputs; only the palette does,
 * and its version moves exactly when its bytes do. */
START_TEST(pixels_are_static_in_every_scene)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 1, 9, 3000, SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
    sim_world *ws[5] = { mk(3, "scene=waterfall"), mk(3, "scene=fire"), mk(3, "scene=dusk"),
                         mk(9, "scene=dusk,w=400,h=300"), mk_scene(&sc) };
    sim_cycle_scene_free(&sc);
    for (int k = 0; k < 5; k++) {
        sim_world *w = ws[k];
        for (int view = 0; view < 2; view++) {
            sim_frame f0, f;
            ck_assert_int_eq(sim_world_frame_init(w, &f0), 0);
            ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
            sim_world_render(w, view, &f0);
            size_t npx = (size_t)f0.w * f0.h;
            uint8_t prev[768];
            uint32_t pv = f0.pal.version;
            memcpy(prev, f0.pal.rgb, sizeof prev);
            int changes = 0;
            for (int t = 1; t <= 300; t++) {
                if (view == 0 && t == 50) cyc_in(w, "speed 333");
                if (view == 0 && t == 80) cyc_in(w, "toggle 0");
                if (view == 0 && t == 90) cyc_in(w, "mode 0 standard");
                if (view == 0 && t == 120) cyc_in(w, "pause");
                if (view == 0 && t == 150) cyc_in(w, "resume");
                if (view == 0 && t == 200) cyc_in(w, "toggle 0");
                sim_world_step(w);
                sim_world_render(w, view, &f);
                ck_assert_msg(memcmp(f.px, f0.px, npx) == 0, "world %d view %d: pixels changed at "
                              "tick %d", k, view, t);
                int differs = memcmp(f.pal.rgb, prev, sizeof prev) != 0;
                if (view == 0)
                    ck_assert_msg(differs == (f.pal.version != pv), "world %d tick %d: palette %s but "
                                  "version %u → %u", k, t, differs ? "changed" : "did not change",
                                  pv, f.pal.version);
                changes += differs;
                pv = f.pal.version;
                memcpy(prev, f.pal.rgb, sizeof prev);
            }
            ck_assert_msg(changes > 50, "world %d view %d: the palette changed only %d times", k,
                          view, changes);
            sim_frame_free(&f0);
            sim_frame_free(&f);
        }
        sim_world_destroy(w);
    }
}
END_TEST

/* Pause stops every range where it is; resume carries on; toggle rests a range at its base. */
START_TEST(pause_resume_toggle)
{
    sim_world *w = mk(2, "");
    run(w, 37);
    uint8_t at[768];
    memcpy(at, pal_of(w), sizeof at);
    uint32_t v = sim__cycle_palette_version(sim__world_impl(w));
    cyc_in(w, "pause");
    run(w, 100);
    ck_assert_int_eq(memcmp(at, pal_of(w), sizeof at), 0);
    ck_assert_uint_eq(v, sim__cycle_palette_version(sim__world_impl(w)));
    cyc_in(w, "resume");
    run(w, 13);
    sim_world *ref = mk(2, "");
    run(ref, 50);                       /* 37 + 13 ticks of cycling */
    ck_assert_int_eq(memcmp(pal_of(ref), pal_of(w), sizeof at), 0);
    /* Toggle range 3 (the river) off: its entries show their base colours, the others move on. */
    const sim_cycle_scene *sc = sim__cycle_scene(sim__world_impl(w));
    const sim_cycle_range r = sc->ranges[3];
    cyc_in(w, "toggle 3");
    sim_world_step(w);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * r.low], &sc->rgb[3 * r.low], 3 * (r.high - r.low + 1)), 0);
    ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(w), 3), 0);
    ck_assert_uint_ne(sim__cycle_phase(sim__world_impl(w), 0), 0);
    cyc_in(w, "toggle 3");
    run(w, 5);
    ck_assert_uint_ne(sim__cycle_phase(sim__world_impl(w), 3), 0);
    sim_world_destroy(ref);
    sim_world_destroy(w);
}
END_TEST

START_TEST(inputs_are_checked)
{
    sim_world *w = mk(1, "scene=waterfall");
    char err[256];
    sim_input x;
    const sim_kind *k = sim_world_kind(w);
    ck_assert_int_eq(sim_input_parse_line(k, "0 toggle 7", &x, err, sizeof err), 0);
    ck_assert_int_eq(sim_world_input(w, &x), SIM_EINPUT);
    ck_assert_str_eq(sim_world_error(w), "toggle: no range 7: this scene has 7 (0..6)");
    ck_assert_int_eq(sim_input_parse_line(k, "0 speed 5", &x, err, sizeof err), 0);
    ck_assert_int_eq(sim_world_input(w, &x), SIM_EINPUT);
    ck_assert_int_eq(sim_input_parse_line(k, "0 speed 401", &x, err, sizeof err), 0);
    ck_assert_int_eq(sim_world_input(w, &x), SIM_EINPUT);
    ck_assert_int_eq(sim_input_parse_line(k, "0 mode 1 sideways", &x, err, sizeof err), SIM_EINPUT);
    ck_assert_msg(strstr(err, "standard, blend") != NULL, "%s", err);
    ck_assert_int_eq(sim_input_parse_line(k, "0 mode 2 standard", &x, err, sizeof err), 0);
    ck_assert_int_eq(sim_world_input(w, &x), 0);
    sim_world_destroy(w);
    /* Bad params: a clear sentence, and a file scene with no way to read files. */
    int rc;
    ck_assert_ptr_null(cyc_world_files(1, "scene=lava", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EPARAM);
    ck_assert_str_eq(err, "cycle params: scene=lava is not one of: waterfall, fire, dusk, file:PATH");
    ck_assert_ptr_null(cyc_world_files(1, "scene=file:x.lbm", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EFILE);
    ck_assert_msg(strstr(err, "does not let worlds read files") != NULL, "%s", err);
    cyc_memfile none = { NULL, 0, 0 };
    ck_assert_ptr_null(cyc_world_files(1, "scene=file:x.lbm", &none, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EFILE);
    ck_assert_str_eq(err, "cycle: scene=file:x.lbm: no such file");
    const uint8_t junk[] = "GIF89a...";
    cyc_memfile bad = { junk, sizeof junk, 0 };
    ck_assert_ptr_null(cyc_world_files(1, "scene=file:x.gif", &bad, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EFILE);
    ck_assert_msg(strstr(err, "neither an IFF ILBM/PBM file") != NULL, "%s", err);
}
END_TEST

/* ---- procedural scenes ---------------------------------------------------------------------------- */
START_TEST(scenes_are_seeded_and_sized)
{
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk" };
    for (int s = 0; s < 3; s++) {
        sim_world *a = mk(11, scenes[s]), *b = mk(11, scenes[s]), *c = mk(12, scenes[s]);
        ck_assert_uint_eq(sim_world_hash(a), sim_world_hash(b));
        ck_assert_uint_ne(sim_world_hash(a), sim_world_hash(c));
        const sim_cycle_scene *sc = sim__cycle_scene(sim__world_impl(a));
        char err[256];
        ck_assert_msg(sim_cycle_scene_check(sc, err, sizeof err) == 0, "%s", err);
        ck_assert_int_ge(sc->nranges, 4);
        /* Several rates, and most of the picture is alive. */
        int rates = 0, moving = 0;
        for (int i = 0; i < sc->nranges; i++) {
            int seen = 0;
            for (int j = 0; j < i; j++) seen |= sc->ranges[j].rate == sc->ranges[i].rate;
            rates += !seen;
        }
        ck_assert_int_ge(rates, 3);
        for (size_t i = 0; i < (size_t)sc->w * sc->h; i++)
            for (int r = 0; r < sc->nranges; r++)
                if (sc->px[i] >= sc->ranges[r].low && sc->px[i] <= sc->ranges[r].high) {
                    moving++;
                    break;
                }
        ck_assert_msg(moving * 10 > sc->w * sc->h, "%s: only %d cycling pixels", scenes[s], moving);
        /* A frame message carries the palette: keep it small. */
        ck_assert_int_le(sc->ncolors, 200);
        sim_world_destroy(a);
        sim_world_destroy(b);
        sim_world_destroy(c);
    }
    sim_world *w = mk(1, "scene=fire,w=640,h=480");
    int fw, fh;
    sim_world_frame_size(w, &fw, &fh);
    ck_assert_int_eq(fw, 640);
    ck_assert_int_eq(fh, 480);
    sim_world_destroy(w);
}
END_TEST

/* ---- golden and sync -------------------------------------------------------------------------------- */
/* The golden chain (tests/golden/cycle.args and .inputs: seed 42, the default waterfall, 3,000
 * ticks) against tests/golden/cycle.chain (`make golden`, only ever on purpose). The suite "kinds"
 * runs it as well. */
START_TEST(golden_chain)
{
    ck_assert_int_eq(script_golden_kind("cycle", NULL), 30);
}
END_TEST

/* GGPO's sync test (script_sync), every tick, into another world with another history. For a
 * file scene B never reads the file: the saved state carries the image, palette and ranges. */
static void sync_run(sim_world *a, const script *s, int ticks, cyc_memfile *mf)
{
    sim_world *b = mk(7, "scene=fire,w=200,h=100");
    run(b, 3);
    int calls = mf ? mf->calls : 0;
    ck_assert_uint_gt(script_sync(a, b, s, ticks, NULL, NULL), 0);
    if (mf) ck_assert_int_eq(mf->calls, calls);        /* loading never read the file */
    sim_world_destroy(b);
}

START_TEST(sync_test_every_tick)
{
    script s = script_load("cycle", "golden/cycle.inputs");
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk" };
    for (int k = 0; k < 3; k++) {
        sim_world *a = mk(42, scenes[k]);
        sync_run(a, &s, 700, NULL);
        sim_world_destroy(a);
    }
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 2, 12, 5000, SIM_CYCLE_REVERSE, SIM_CYCLE_BLEND);
    sc.nranges = 7;                 /* the script toggles range 3 and sets the mode of 6 */
    for (int i = 1; i < 7; i++)
        sc.ranges[i] = (sim_cycle_range){ (uint8_t)i, (uint8_t)(i + 3), (uint16_t)(1000 * i),
                                          (uint8_t)(i % 3), (uint8_t)(i & 1), 1 };
    size_t n = sim_cycle_to_ilbm(&sc, 0, NULL, 0);
    uint8_t *lbm = malloc(n);
    sim_cycle_to_ilbm(&sc, 0, lbm, n);
    cyc_memfile mf = { lbm, n, 0 };
    char err[256];
    int rc;
    sim_world *a = cyc_world_files(42, "scene=file:/nowhere/scene.lbm", &mf, &rc, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert_int_eq(mf.calls, 1);
    /* A bare shell (what replay and desync reports load into) never reads the file, even when
     * it is offered a reader; the state makes it the same world. */
    sim_file_reader rd = { cyc_mem_read, &mf };
    sim_config bc = sim_config_default();
    bc.kind = "cycle";
    bc.seed = 9;
    bc.params = "scene=file:/nowhere/scene.lbm";
    bc.files = &rd;
    bc.bare = 1;
    sim_world *shell = sim_world_create(&bc, &rc);
    ck_assert_ptr_nonnull(shell);
    ck_assert_int_eq(mf.calls, 1);
    size_t cap = sim_world_save_max(a);
    uint8_t *blob = malloc(cap);
    size_t bn = sim_world_save(a, blob, cap);
    ck_assert_int_eq(sim_world_load(shell, blob, bn), 0);
    ck_assert_uint_eq(sim_world_hash(shell), sim_world_hash(a));
    ck_assert_int_eq(mf.calls, 1);
    free(blob);
    sim_world_destroy(shell);
    sync_run(a, &s, 700, &mf);
    sim_world_destroy(a);
    free(lbm);
    sim_cycle_scene_free(&sc);
    script_free(&s);
}
END_TEST

/* A failed load leaves the world as it was; impossible states are refused. */
START_TEST(corrupt_states_are_refused)
{
    sim_world *a = mk(3, "scene=dusk"), *b = mk(4, "scene=dusk");
    run(a, 77);
    run(b, 5);
    size_t cap = sim_world_save_max(a);
    uint8_t *buf = malloc(cap), *bad = malloc(cap + 1);
    size_t n = sim_world_save(a, buf, cap);
    /* The payload starts after the header and the (empty) queue: find it by its fixed fields. */
    size_t plen = strlen(sim_world_params(a));
    size_t pay = 34 + plen + 4;
    const sim_cycle_scene *sc = sim__cycle_scene(sim__world_impl(a));
    size_t pal = pay + 1 + 6, after_pal = pal + (size_t)sc->ncolors * 3;
    size_t speed = after_pal, ranges = after_pal + 2 + 1 + 4 + 1;
    size_t pixels = ranges + (size_t)sc->nranges * 15;
    ck_assert_uint_eq(pixels + (size_t)sc->w * sc->h, n);
    uint64_t hb = sim_world_hash(b);
    struct { size_t at; uint8_t v; const char *what; } cases[] = {
        { pay, 3, "scene id of a file scene" },
        { pay + 1, 0x41, "width" },
        { speed, 0, "speed 0" },
        { speed + 2, 2, "paused 2" },
        { ranges - 1, 17, "17 ranges" },
        { ranges + 0, 200, "low above high" },
        { ranges + 4, 3, "direction 3" },
        { ranges + 5, 2, "mode 2" },
        { ranges + 6, 5, "active 5" },
        { ranges + 14, 0xff, "phase beyond the period" },
        { pixels + 100, 250, "pixel beyond the palette" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, buf, n);
        bad[cases[i].at] = cases[i].v;
        int rc = sim_world_load(b, bad, n);
        ck_assert_msg(rc == SIM_ECORRUPT || rc == SIM_ETRUNC, "%s: load gave %d", cases[i].what, rc);
        ck_assert_uint_eq(sim_world_hash(b), hb);
    }
    /* Canvas Cycle's timing byte at the end: only a file scene may have it. */
    memcpy(bad, buf, n);
    bad[n] = SIM_CYCLE_TIMING_CANVAS;
    for (int k = 0; k < 4; k++) bad[12 + k] = (uint8_t)((n + 1) >> (8 * k));   /* the total */
    ck_assert_int_eq(sim_world_load(b, bad, n + 1), SIM_ECORRUPT);
    ck_assert_uint_eq(sim_world_hash(b), hb);
    ck_assert_int_eq(sim_world_load(b, buf, n), 0);
    ck_assert_uint_eq(sim_world_hash(b), sim_world_hash(a));
    /* A desync report names the differing fields. */
    run(b, 1);
    cyc_in(b, "speed 150");
    run(b, 1);
    size_t nb = sim_world_save(b, bad, cap);
    n = sim_world_save(a, buf, cap);
    char out[2048];
    long d = sim_state_diff(buf, n, bad, nb, out, sizeof out, 20);
    ck_assert_int_gt(d, 0);
    ck_assert_msg(strstr(out, "speed: 100% → 150%") && strstr(out, "range 0 phase"), "%s", out);
    free(buf);
    free(bad);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST
/* ---- Canvas Cycle's palette code, as a specification ----------------------------------------------
 * A plain transcription of what Canvas Cycle's palette.js does for every frame — Palette.cycle with
 * DFLOAT_MOD, reverseColors, shiftColors, blendShiftColors and fadeColor — in doubles, as its
 * JavaScript computes, with libm's floor, fmod and sin and one struct per colour moved a step at a
 * time. It is the reference that the world's version (sim/cycle/cctiming.c: direct indexing,
 * integer fades, sim_sin) is held to, palette for palette, tick by tick. Canvas Cycle's own clock
 * is GetTickCount, whole milliseconds since the page loaded; a frame at 60 Hz tick t reads
 * ⌊t·1000/60⌋. The sine branch calls DFLOAT_MOD as the other branches do (palette.js names it
 * without "Palette.", which throws in a browser; docs/cycle.md). */
typedef struct ref_color { double red, green, blue; } ref_color;
typedef struct ref_cycle { double rate; int reverse, low, high; } ref_cycle;
typedef struct ref_scene {
    int ncolors, ncycles;
    ref_color base[256];
    ref_cycle cycles[16];
} ref_scene;

static double ref_dfloat_mod(double a, double b) { return fmod(floor(a * 100), floor(b * 100)) / 100; }

static void ref_swap(ref_color *a, ref_color *b)
{
    ref_color t = *a;
    *a = *b;
    *b = t;
}

static void ref_reverse_colors(ref_color *colors, const ref_cycle *range)
{
    int size = range->high - range->low + 1;
    for (int i = 0; i < size / 2.0; i++) ref_swap(&colors[range->low + i], &colors[range->high - i]);
}

static ref_color ref_fade_color(ref_color src, ref_color dst, double frame, double max)
{
    if (!max) return src;
    if (frame < 0) frame = 0;
    if (frame > max) frame = max;
    ref_color t;
    t.red = floor(src.red + ((dst.red - src.red) * frame) / max);
    t.green = floor(src.green + ((dst.green - src.green) * frame) / max);
    t.blue = floor(src.blue + ((dst.blue - src.blue) * frame) / max);
    return t;
}

static void ref_shift_colors(ref_color *colors, const ref_cycle *range, double amount)
{
    amount = floor(amount);
    for (int i = 0; i < amount; i++) {
        ref_color temp = colors[range->high];
        for (int j = range->high - 1; j >= range->low; j--) colors[j + 1] = colors[j];
        colors[range->low] = temp;
    }
}

static void ref_blend_shift_colors(ref_color *colors, const ref_cycle *range, double amount)
{
    ref_shift_colors(colors, range, amount);
    double frame = floor((amount - floor(amount)) * 100);
    ref_color temp = colors[range->high];
    for (int j = range->high - 1; j >= range->low; j--)
        colors[j + 1] = ref_fade_color(colors[j + 1], colors[j], frame, 100);
    colors[range->low] = ref_fade_color(colors[range->low], temp, frame, 100);
}

static void ref_cycle_palette(const ref_scene *s, double time_now, double speed_adjust, int blend_shift,
                              ref_color *colors)
{
    memcpy(colors, s->base, sizeof s->base);
    for (int i = 0; i < s->ncycles; i++) {
        const ref_cycle *cycle = &s->cycles[i];
        if (!cycle->rate) continue;
        double size = cycle->high - cycle->low + 1;
        double rate = cycle->rate / floor(280 / speed_adjust);
        double amount = 0;
        if (cycle->reverse < 3) {
            amount = ref_dfloat_mod(time_now / (1000 / rate), size);
        } else if (cycle->reverse == 3) {
            amount = ref_dfloat_mod(time_now / (1000 / rate), size * 2);
            if (amount >= size) amount = size * 2 - amount;
        } else if (cycle->reverse < 6) {
            amount = ref_dfloat_mod(time_now / (1000 / rate), size);
            amount = sin((amount * 3.1415926 * 2) / size) + 1;
            if (cycle->reverse == 4) amount *= size / 4;
            else if (cycle->reverse == 5) amount *= size / 2;
        }
        if (cycle->reverse == 2) ref_reverse_colors(colors, cycle);
        if (blend_shift) ref_blend_shift_colors(colors, cycle, amount);
        else ref_shift_colors(colors, cycle, amount);
        if (cycle->reverse == 2) ref_reverse_colors(colors, cycle);
    }
}

/* The reference's palette at 60 Hz tick t (speedAdjust 1) against a world's, entry by entry. */
static void ref_check(const ref_scene *s, int blend, uint64_t t, const uint8_t *got, const char *what)
{
    ref_color want[256];
    ref_cycle_palette(s, floor((double)t * 1000 / 60), 1, blend, want);
    for (int e = 0; e < s->ncolors; e++) {
        const uint8_t *g = &got[3 * e];
        ck_assert_msg(g[0] == want[e].red && g[1] == want[e].green && g[2] == want[e].blue,
                      "%s, %s, tick %llu, entry %d: %u,%u,%u where Canvas Cycle has %g,%g,%g", what,
                      blend ? "blend" : "standard", (unsigned long long)t, e, g[0], g[1], g[2],
                      want[e].red, want[e].green, want[e].blue);
    }
}

/* A scene for the reference tests, and its text as lbm2json writes it (blendShift:false added for
 * standard mode, as a file may say). Scene 0 is Ferrari's kind of palette: 256 colours, all 16
 * cycles, every reverse value, his rates (1380..2841) and the extremes (1, 65535), sizes odd and
 * even, ranges that overlap. Scene 1: 32 colours where every range covers others. Scene 2: the
 * shape of Canvas Cycle's TESTRAMP.LBM (one cycle at rate 2000, then placeholders). */
static char *ref_scene_text(int which, int blend, ref_scene *s, size_t *len)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(which + 1);
    memset(s, 0, sizeof *s);
    s->ncolors = which == 1 ? 32 : 256;
    for (int e = 0; e < s->ncolors; e++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        s->base[e] = (ref_color){ (double)(x >> 56), (double)((x >> 48) & 255), (double)((x >> 40) & 255) };
    }
    static const ref_cycle c0[] = {
        { 1536, 0, 135, 143 }, { 1380, 1, 127, 134 }, { 2304, 2, 119, 126 }, { 2841, 2, 210, 216 },
        { 2841, 3, 203, 209 }, { 2000, 4, 16, 31 }, { 1536, 5, 217, 223 }, { 65535, 0, 100, 101 },
        { 1, 2, 60, 99 }, { 999, 3, 0, 1 }, { 8400, 4, 2, 4 }, { 16384, 5, 5, 15 },
        { 333, 2, 16, 40 }, { 30000, 0, 140, 255 }, { 4096, 3, 224, 255 }, { 12345, 5, 32, 95 },
    };
    static const ref_cycle c1[] = {
        { 2841, 0, 0, 31 }, { 1536, 2, 4, 11 }, { 700, 3, 8, 20 }, { 2000, 4, 0, 9 },
        { 5000, 5, 10, 31 }, { 280, 2, 1, 2 }, { 20000, 1, 12, 15 },
    };
    static const ref_cycle c2[] = { { 2000, 0, 16, 31 }, { 0, 0, 32, 47 }, { 0, 0, 96, 111 }, { 0, 0, 0, 0 } };
    const ref_cycle *c = which == 0 ? c0 : which == 1 ? c1 : c2;
    s->ncycles = which == 0 ? 16 : which == 1 ? 7 : 4;
    memcpy(s->cycles, c, (size_t)s->ncycles * sizeof *c);
    size_t cap = 64 * 1024;
    char *t = malloc(cap);
    size_t n = (size_t)snprintf(t, cap, "{filename:'REF%d.LBM',width:4,height:2%s,colors:[", which,
                                blend ? "" : ",blendShift:false");
    for (int e = 0; e < s->ncolors; e++)
        n += (size_t)snprintf(t + n, cap - n, "%s[%d,%d,%d]", e ? "," : "", (int)s->base[e].red,
                              (int)s->base[e].green, (int)s->base[e].blue);
    n += (size_t)snprintf(t + n, cap - n, "],cycles:[");
    for (int i = 0; i < s->ncycles; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s{reverse:%d,rate:%d,low:%d,high:%d}", i ? "," : "",
                              c[i].reverse, (int)c[i].rate, c[i].low, c[i].high);
    n += (size_t)snprintf(t + n, cap - n, "],pixels:[\n0,1,2,3\n,4,5,6,7]}\n");
    ck_assert_uint_lt(n, cap);
    *len = n;
    return t;
}

/* A world built from a Canvas Cycle file plays it palette for palette as Canvas Cycle's own code
 * does, every tick for a minute, blended and standard, every reverse value; far on (up to 3 years
 * of ticks, through sim_cycle_palette_at, which a world stepping there agrees with); standard by
 * `mode` inputs from a blended file; and across a save and load. */
START_TEST(canvas_cycle_scenes_play_as_canvas_cycle)
{
    for (int which = 0; which < 3; which++) {
        for (int blend = 1; blend >= 0; blend--) {
            ref_scene rs;
            size_t len;
            char *text = ref_scene_text(which, blend, &rs, &len);
            cyc_memfile mf = { (const uint8_t *)text, len, 0 };
            char err[256], what[64];
            int rc;
            snprintf(what, sizeof what, "scene %d", which);
            sim_world *w = cyc_world_files(1, "scene=file:REF.LBM.json", &mf, &rc, err, sizeof err);
            ck_assert_msg(w != NULL, "%s", err);
            const sim_cycle_scene *sc = sim__cycle_scene(sim__world_impl(w));
            ck_assert_int_eq(sc->timing, SIM_CYCLE_TIMING_CANVAS);
            for (int i = 0; i < sc->nranges; i++)
                ck_assert_int_eq(sc->ranges[i].mode, blend ? SIM_CYCLE_BLEND : SIM_CYCLE_STANDARD);
            /* The same file blended, every range switched to standard at tick 0 by input. */
            sim_world *ws = NULL;
            if (!blend) {
                cyc_memfile mb = { 0 };
                ref_scene tmp;
                char *bt = ref_scene_text(which, 1, &tmp, &mb.len);
                mb.data = (const uint8_t *)bt;
                ws = cyc_world_files(1, "scene=file:REF.LBM.json", &mb, &rc, err, sizeof err);
                ck_assert_msg(ws != NULL, "%s", err);
                for (int i = 0; i < sc->nranges; i++) {
                    char in[32];
                    snprintf(in, sizeof in, "mode %d standard", i);
                    cyc_in(ws, in);
                }
                free(bt);
            }
            sim_frame f;
            ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
            for (uint64_t t = 0; t <= 3600; t++) {
                if (t) sim_world_step(w);
                ref_check(&rs, blend, t, pal_of(w), what);
                if (ws && t) {
                    sim_world_step(ws);
                    ck_assert_int_eq(memcmp(pal_of(ws), pal_of(w), (size_t)rs.ncolors * 3), 0);
                }
                if (t % 600 == 0) {             /* what subscribers get is that palette */
                    sim_world_render(w, 0, &f);
                    ck_assert_int_eq(memcmp(f.pal.rgb, pal_of(w), (size_t)rs.ncolors * 3), 0);
                }
            }
            sim_frame_free(&f);
            /* Far on: 3 years of ticks, by the scene alone. */
            uint8_t rgb[SIM_PALETTE_MAX * 3];
            uint64_t t = 3600;
            sim_cycle_palette_at(sc, t, rgb);
            ck_assert_int_eq(memcmp(rgb, pal_of(w), (size_t)rs.ncolors * 3), 0);
            for (int k = 0; k < 400; k++) {
                t = t * 3 / 2 + 7919;
                if (t > 5700000000ull) t = 3601 + (t % 7777777);
                sim_cycle_palette_at(sc, t, rgb);
                ref_check(&rs, blend, t, rgb, what);
            }
            /* Save, load into a bare shell, carry on: the same palettes. */
            size_t cap = sim_world_save_max(w);
            uint8_t *blob = malloc(cap);
            size_t bn = sim_world_save(w, blob, cap);
            sim_config bc = sim_config_default();
            bc.kind = "cycle";
            bc.seed = 1;
            bc.params = "scene=file:REF.LBM.json";
            bc.bare = 1;
            sim_world *l = sim_world_create(&bc, &rc);
            ck_assert_ptr_nonnull(l);
            ck_assert_msg(sim_world_load(l, blob, bn) == 0, "%s", sim_world_error(l));
            ck_assert_uint_eq(sim_world_hash(l), sim_world_hash(w));
            for (uint64_t u = 3601; u <= 3900; u++) {
                sim_world_step(w);
                sim_world_step(l);
                ref_check(&rs, blend, u, pal_of(l), what);
                ck_assert_uint_eq(sim_world_hash(l), sim_world_hash(w));
            }
            /* The timing byte ends the state: any other value is refused, and without it the
             * sine ranges are impossible under CRNG timing. A refused load changes nothing. */
            uint64_t hl = sim_world_hash(l);
            bn = sim_world_save(w, blob, cap);
            ck_assert_int_eq(blob[bn - 1], SIM_CYCLE_TIMING_CANVAS);
            blob[bn - 1] = 2;
            ck_assert_int_eq(sim_world_load(l, blob, bn), SIM_ECORRUPT);
            blob[bn - 1] = SIM_CYCLE_TIMING_CANVAS;
            if (which < 2) {
                for (int k = 0; k < 4; k++) blob[12 + k] = (uint8_t)((bn - 1) >> (8 * k));
                ck_assert_int_eq(sim_world_load(l, blob, bn - 1), SIM_ECORRUPT);
            }
            ck_assert_uint_eq(sim_world_hash(l), hl);
            free(blob);
            sim_world_destroy(l);
            sim_world_destroy(ws);
            sim_world_destroy(w);
            free(text);
        }
    }
}
END_TEST

/* The sine swings at every amount Canvas Cycle can reach: for every range size 2..256 and every
 * hundredth of a step (DFLOAT_MOD leaves nothing else), dmath's sim_sin gives the world the same
 * whole steps and the same blend frame as libm's sin gives the reference. Rate 2800 makes the
 * millisecond clock count hundredths of a step, so 100·size consecutive milliseconds visit every
 * amount. Also: speed 200 runs Canvas Cycle's clock at twice the rate, and toggling a range off
 * rests it at its base colours, its clock at 0. */
START_TEST(canvas_cycle_sines_and_clock)
{
    long checked = 0;
    for (int n = 2; n <= 256; n++) {
        for (int dir = SIM_CYCLE_SINE_HALF; dir <= SIM_CYCLE_SINE_FULL; dir++) {
            sim_cycle_range r = { 0, (uint8_t)(n - 1), 2800, (uint8_t)dir, SIM_CYCLE_BLEND, 1 };
            ref_cycle rc = { 2800, dir == SIM_CYCLE_SINE_HALF ? 4 : 5, 0, n - 1 };
            for (uint64_t ms = 0; ms < 100u * (uint64_t)n; ms++) {
                int shift, frame;
                sim__cc_position(&r, 6 * ms, &shift, &frame);
                double size = n, rate = rc.rate / floor(280.0 / 1);
                double amount = ref_dfloat_mod((double)ms / (1000 / rate), size);
                amount = sin((amount * 3.1415926 * 2) / size) + 1;
                amount *= dir == SIM_CYCLE_SINE_HALF ? size / 4 : size / 2;
                double whole = floor(amount), fr = floor((amount - whole) * 100);
                ck_assert_msg(shift == (int)whole && frame == (int)fr,
                              "size %d, %s, %llu ms: %d+%d/100 where Canvas Cycle has %g+%g/100", n,
                              dir == SIM_CYCLE_SINE_HALF ? "reverse 4" : "reverse 5",
                              (unsigned long long)ms, shift, frame, whole, fr);
                checked++;
            }
        }
    }
    ck_assert_int_eq(checked, 6579000);
    /* Speed 200: Canvas Cycle's clock at twice the rate, so tick t shows the reference at 2t. */
    ref_scene rs;
    size_t len;
    char *text = ref_scene_text(1, 1, &rs, &len);
    cyc_memfile mf = { (const uint8_t *)text, len, 0 };
    char err[256];
    int rc;
    sim_world *w = cyc_world_files(1, "scene=file:s", &mf, &rc, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    cyc_in(w, "speed 200");
    for (uint64_t t = 1; t <= 600; t++) {
        sim_world_step(w);
        ref_check(&rs, 1, 2 * t, pal_of(w), "speed 200");
    }
    /* Range 0 off: Canvas Cycle as if its rate were 0, the other ranges playing on; its clock
     * at 0. Back on, its clock starts again from 0. */
    cyc_in(w, "toggle 0");
    sim_world_step(w);
    ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(w), 0), 0);
    ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(w), 1), 200 * 601);
    ref_scene off = rs;
    off.cycles[0].rate = 0;
    ref_check(&off, 1, 2 * 601, pal_of(w), "range 0 off");
    cyc_in(w, "toggle 0");
    sim_world_step(w);
    ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(w), 0), 200);
    sim_world_destroy(w);
    free(text);
}
END_TEST

/* ---- the command line, the replay, vivd ----------------------------------------------------------- */
/* Run a shell command with $VIV set to the viv binary under test; its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    const char *bin = getenv("VIV_BIN");
    char cmd[2048], body[1800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "VIV=%s/viv; %s", bin ? bin : "../bin", body);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int read_scene_for_test(const char *path, sim_cycle_scene *sc)
{
    size_t len;
    uint8_t *buf = cyc_slurp(path, &len);
    char err[256];
    int rc = sim_cycle_from_bytes(buf, len, sc, NULL, 0, err, sizeof err);
    free(buf);
    return rc;
}

/* viv cycle convert: ILBM → JSON → ILBM is byte-identical; the PNG is the scene's picture; bad
 * input is exit status 2 with a sentence. */
START_TEST(viv_cycle_convert)
{
    const char *lbm = cyc_tmp("c.lbm"), *json = cyc_tmp("c.json"), *lbm2 = cyc_tmp("c2.lbm");
    ck_assert_int_eq(sh("$VIV cycle convert --scene fire --seed 3 %s", lbm), 0);
    ck_assert_int_eq(sh("$VIV cycle convert %s %s", lbm, json), 0);
    ck_assert_int_eq(sh("$VIV cycle convert %s %s", json, lbm2), 0);
    ck_assert_int_eq(sh("cmp -s %s %s", lbm, lbm2), 0);
    const char *png = cyc_tmp("c.png"), *ppm = cyc_tmp("c.ppm"), *ref = cyc_tmp("ref.ppm");
    ck_assert_int_eq(sh("$VIV cycle convert %s %s --tick 90 --scale 2", json, png), 0);
    ck_assert_int_eq(sh("pngtopnm %s > %s", png, ppm), 0);
    /* The same picture from `viv sim` after 90 ticks. */
    const char *png2 = cyc_tmp("sim.png");
    ck_assert_int_eq(sh("$VIV sim --world cycle --params scene=fire --seed 3 --ticks 90 --png %s "
                        "--scale 2 >/dev/null", png2), 0);
    ck_assert_int_eq(sh("pngtopnm %s > %s", png2, ref), 0);
    ck_assert_int_eq(sh("cmp -s %s %s", ppm, ref), 0);
    const char *junk = cyc_tmp("junk.lbm"), *out = cyc_tmp("out.txt");
    ck_assert_int_eq(sh("head -c 100 %s > %s", lbm, junk), 0);
    ck_assert_int_eq(sh("$VIV cycle convert %s %s 2> %s", junk, json, out), 2);
    ck_assert(file_contains(out, "FORM says"));
    ck_assert_int_eq(sh("$VIV cycle convert %s %s.gif 2> %s", lbm, json, out), 2);
    ck_assert(file_contains(out, "write .lbm/.iff/.ilbm, .json or .png"));
    ck_assert_int_eq(sh("$VIV cycle info %s > %s", lbm, out), 0);
    ck_assert(file_contains(out, "320x180"));
    ck_assert(file_contains(out, "ping-pong"));
}
END_TEST

/* A file scene recorded by `viv sim --record` verifies bit-exactly after the file is gone: the
 * recording's tick-0 state carries the scene. */
START_TEST(replay_needs_no_scene_file)
{
    const char *lbm = cyc_tmp("rec.lbm"), *db = cyc_tmp("rec.db"), *out = cyc_tmp("verify.txt");
    ck_assert_int_eq(sh("$VIV cycle convert --scene dusk --seed 4 %s", lbm), 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "$VIV sim --world cycle --params scene=file:%s --ticks 700 "
             "--inputs golden/cycle.inputs --record %s >/dev/null 2>&1", lbm, db);
    ck_assert_int_eq(sh("%s", cmd), 0);
    ck_assert_int_eq(unlink(lbm), 0);
    ck_assert_int_eq(sh("$VIV replay verify %s > %s 2>&1", db, out), 0);
    ck_assert(file_contains(out, "bit-exact"));
    ck_assert(file_contains(out, "is built from a file"));
}
END_TEST

/* In a real vivd: a file scene (given on its command line) and a procedural one stream frames
 * whose pixels never change; after the keyframe each frame is its palette and a few bytes. */
START_TEST(vivd_streams_palette_only_frames)
{
    const char *json = cyc_tmp("vivd.json");
    ck_assert_int_eq(sh("$VIV cycle convert --scene waterfall --seed 2 %s", json), 0);
    char spec[512];
    snprintf(spec, sizeof spec, "cycle:seed=2:scene=file:%s", json);
    const char *const extra[] = { "--no-record", "--world", spec, "--world", "cycle:scene=dusk", NULL };
    server sv;
    server_start(&sv, extra);
    cli_conn c;
    wire_msg m;
    connect_hello(&c, &sv, "viewer", NULL, &m);
    uint32_t ids[4];
    char kinds[4][16];
    ck_assert_int_eq(welcome_worlds(&m, ids, kinds, 4), 2);
    ck_assert_str_eq(kinds[0], "cycle");
    sub(&c, ids[0], 1, NULL, NULL);
    sub(&c, ids[1], 1, NULL, NULL);
    static tracker t;
    memset(&t, 0, sizeof t);
    uint8_t (*first)[320 * 180] = calloc(2, sizeof *first);   /* on the heap: see e2e.h */
    ck_assert_ptr_nonnull(first);
    size_t big = 0, deltas = 0, palettes = 0;
    char err[256];
    double t0 = now_s();
    while ((t.count[ids[0]] < 90 || t.count[ids[1]] < 90) && now_s() - t0 < 20) {
        const uint8_t *body;
        size_t len;
        int rc = cli_recv(&c, 1000, &body, &len, err, sizeof err);
        ck_assert_msg(rc >= 0, "%s", err);
        if (rc == 0) continue;
        ck_assert_int_eq(wire_msg_decode(body, len, &m), 0);
        if (!cli_msg_is(&m, "frame")) continue;
        uint64_t world;
        int key;
        wire_get_u64(&m, "world", &world);
        wire_get_bool(&m, "key", &key);
        track_frame(&t, &m);
        int k = world == ids[0] ? 0 : 1;
        cli_frame *f = &t.f[world];
        if (t.count[world] == 1) memcpy(first[k], f->f.px, 320 * 180);
        else ck_assert_int_eq(memcmp(first[k], f->f.px, 320 * 180), 0);
        if (!key) {
            deltas++;
            big += len + 4 > 1024;
            palettes += wire_msg_get(&m, "pal") != NULL;
        }
    }
    ck_assert_int_ge(t.count[ids[0]], 90);
    ck_assert_int_ge(t.count[ids[1]], 90);
    ck_assert_uint_eq(big, 0);                        /* every delta under 1 KB */
    ck_assert_uint_gt(palettes, deltas / 2);          /* and it is the palette that moves */
    /* The file scene is the file's picture. */
    sim_cycle_scene sc;
    ck_assert_int_eq(read_scene_for_test(json, &sc), 0);
    ck_assert_int_eq(memcmp(first[0], sc.px, 320 * 180), 0);
    free(first);
    sim_cycle_scene_free(&sc);
    /* Over the network even an admin cannot make the server read a file — a valid scene file,
     * which the same server read for its command line. */
    char bad[512];
    snprintf(bad, sizeof bad, "scene=file:%s", json);
    cli_conn adm;
    connect_hello(&adm, &sv, "admin", ADMIN, NULL);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", "create");
    put_kv_str(&b, "kind", "cycle");
    put_kv_str(&b, "params", bad);
    wire_msg_end(&b);
    static tracker ta;
    memset(&ta, 0, sizeof ta);
    expect_error_msg(&adm, &ta, &b, "bad_params");
    wire_buf_free(&b);
    cli_close(&adm);
    cli_close(&c);
    ck_assert_int_eq(server_stop(&sv), 0);
}
END_TEST

Suite *suite_cycle(void)
{
    Suite *s = suite_create("cycle");
    TCase *tm = tcase_create("timing");
    tcase_set_timeout(tm, 600);
    tcase_add_test(tm, range_returns_after_size_steps);
    tcase_add_test(tm, position_is_tick_times_rate_shift_14);
    tcase_add_test(tm, reverse_runs_the_other_way);
    tcase_add_test(tm, pingpong_turns_at_the_ends);
    tcase_add_test(tm, blendshift_midpoint_rounds_half_up);
    tcase_add_test(tm, speed_200_at_t_is_speed_100_at_2t);
    tcase_add_test(tm, pixels_are_static_in_every_scene);
    tcase_add_test(tm, pause_resume_toggle);
    tcase_add_test(tm, inputs_are_checked);
    tcase_add_test(tm, scenes_are_seeded_and_sized);
    suite_add_tcase(s, tm);
    TCase *det = tcase_create("determinism");
    tcase_set_timeout(det, 600);
    tcase_add_test(det, golden_chain);
    tcase_add_test(det, sync_test_every_tick);
    tcase_add_test(det, corrupt_states_are_refused);
    suite_add_tcase(s, det);
    TCase *cc = tcase_create("canvascycle");
    tcase_set_timeout(cc, 600);
    tcase_add_test(cc, canvas_cycle_scenes_play_as_canvas_cycle);
    tcase_add_test(cc, canvas_cycle_sines_and_clock);
    suite_add_tcase(s, cc);
    TCase *e2e = tcase_create("programs");
    tcase_set_timeout(e2e, 600);
    tcase_add_checked_fixture(e2e, NULL, cyc_tmp_teardown);
    tcase_add_test(e2e, viv_cycle_convert);
    tcase_add_test(e2e, replay_needs_no_scene_file);
    tcase_add_test(e2e, vivd_streams_palette_only_frames);
    suite_add_tcase(s, e2e);
    return s;
}
