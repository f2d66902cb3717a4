/* check_cycle.c — the palette-cycling world and its scene files: exact timing (a range comes home
 * after `size` steps, reverse, ping-pong, BlendShift's rounding, speed), pixels that never change,
 * the ILBM importer against netpbm's ppmtoilbm, Canvas Cycle JSON, bad files of every kind, the
 * golden chain, the sync test, replays without the scene file, and the world in a real vivd. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check_suites.h"
#include "script.h"
#include "cycle/cycle.h"
#include "e2e.h"

/* ---- helpers ------------------------------------------------------------------------------------ */
/* A sim_file_reader serving one blob from memory, whatever the path; counts its calls. */
typedef struct memfile {
    const uint8_t *data;
    size_t len;
    int calls;
} memfile;

static int mem_read(void *ud, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
    memfile *m = ud;
    (void)path;
    m->calls++;
    if (!m->data) {
        snprintf(err, errlen, "no such file");
        return -1;
    }
    *data = malloc(m->len ? m->len : 1);
    memcpy(*data, m->data, m->len);
    *len = m->len;
    return 0;
}

static sim_world *mk_files(uint64_t seed, const char *params, memfile *mf, int *rc, char *err,
                           size_t errlen)
{
    sim_file_reader rd = { mem_read, mf };
    sim_config c = sim_config_default();
    c.kind = "cycle";
    c.seed = seed;
    c.params = params;
    c.err = err;
    c.errlen = errlen;
    c.files = mf ? &rd : NULL;
    return sim_world_create(&c, rc);
}

static sim_world *mk(uint64_t seed, const char *params)
{
    char err[256];
    int rc;
    sim_world *w = mk_files(seed, params, NULL, &rc, err, sizeof err);
    ck_assert_msg(w != NULL, "create failed: %s", err);
    return w;
}

/* A world built from a scene held in memory (written out as Canvas Cycle JSON, our dialect). */
static sim_world *mk_scene(const sim_cycle_scene *sc)
{
    size_t n = sim_cycle_to_ccjson(sc, "test", NULL, 0);
    ck_assert_uint_gt(n, 0);
    uint8_t *buf = malloc(n);
    sim_cycle_to_ccjson(sc, "test", buf, n);
    memfile mf = { buf, n, 0 };
    char err[256];
    int rc;
    sim_world *w = mk_files(1, "scene=file:mem.json", &mf, &rc, err, sizeof err);
    ck_assert_msg(w != NULL, "create failed: %s", err);
    free(buf);
    return w;
}

static uint32_t seqno;

/* Queue one input by its text for the world's next tick. */
static void in(sim_world *w, const char *text)
{
    char line[128], err[256];
    sim_input x;
    snprintf(line, sizeof line, "%llu %s", (unsigned long long)sim_world_tick(w), text);
    ck_assert_msg(sim_input_parse_line(sim_world_kind(w), line, &x, err, sizeof err) == 0, "%s", err);
    x.seq = ++seqno;
    ck_assert_msg(sim_world_input(w, &x) == 0, "%s", sim_world_error(w));
}

static void run(sim_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++) sim_world_step(w);
}

static const uint8_t *pal_of(sim_world *w) { return sim__cycle_palette(sim__world_impl(w)); }

/* A small scene: 16 distinct colours, a 8×4 image using all of them, one range. */
static void tiny_scene(sim_cycle_scene *sc, int low, int high, int rate, int dir, int mode)
{
    memset(sc, 0, sizeof *sc);
    sc->w = 8;
    sc->h = 4;
    sc->ncolors = 16;
    for (int i = 0; i < 16; i++) {
        /* Odd and even channels mixed, so that BlendShift's rounding shows. */
        sc->rgb[3 * i] = (uint8_t)(i * 17);
        sc->rgb[3 * i + 1] = (uint8_t)(250 - i * 13);
        sc->rgb[3 * i + 2] = (uint8_t)((i * 71 + 3) & 255);
    }
    sc->px = malloc(32);
    for (int i = 0; i < 32; i++) sc->px[i] = (uint8_t)(i % 16);
    sc->nranges = 1;
    sc->ranges[0] = (sim_cycle_range){ (uint8_t)low, (uint8_t)high, (uint16_t)rate, (uint8_t)dir,
                                       (uint8_t)mode, 1 };
}

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
    tiny_scene(&sc, 3, 10, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_STANDARD);
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
        tiny_scene(&sc, 0, 15, rates[k], SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
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
    tiny_scene(&sc, 2, 7, 16384, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD);
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
    tiny_scene(&sc, 4, 8, 16384, SIM_CYCLE_PINGPONG, SIM_CYCLE_STANDARD);
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
    tiny_scene(&sc, 0, 15, 8192, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
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
        in(a, "speed 200");
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
    in(a, "speed 200");
    run(a, 5);
    run(b, 20);
    ck_assert_int_eq(memcmp(pal_of(a), pal_of(b), 768), 0);
    sim_world_destroy(a);
    sim_world_destroy(b);
    a = mk(6, "scene=dusk");
    b = mk(6, "scene=dusk");
    in(a, "speed 10");
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
    tiny_scene(&sc, 1, 9, 3000, SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
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
                if (view == 0 && t == 50) in(w, "speed 333");
                if (view == 0 && t == 80) in(w, "toggle 0");
                if (view == 0 && t == 90) in(w, "mode 0 standard");
                if (view == 0 && t == 120) in(w, "pause");
                if (view == 0 && t == 150) in(w, "resume");
                if (view == 0 && t == 200) in(w, "toggle 0");
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
    in(w, "pause");
    run(w, 100);
    ck_assert_int_eq(memcmp(at, pal_of(w), sizeof at), 0);
    ck_assert_uint_eq(v, sim__cycle_palette_version(sim__world_impl(w)));
    in(w, "resume");
    run(w, 13);
    sim_world *ref = mk(2, "");
    run(ref, 50);                       /* 37 + 13 ticks of cycling */
    ck_assert_int_eq(memcmp(pal_of(ref), pal_of(w), sizeof at), 0);
    /* Toggle range 3 (the river) off: its entries show their base colours, the others move on. */
    const sim_cycle_scene *sc = sim__cycle_scene(sim__world_impl(w));
    const sim_cycle_range r = sc->ranges[3];
    in(w, "toggle 3");
    run(w, 1);
    ck_assert_int_eq(memcmp(&pal_of(w)[3 * r.low], &sc->rgb[3 * r.low], 3 * (r.high - r.low + 1)), 0);
    ck_assert_uint_eq(sim__cycle_phase(sim__world_impl(w), 3), 0);
    ck_assert_uint_ne(sim__cycle_phase(sim__world_impl(w), 0), 0);
    in(w, "toggle 3");
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
    ck_assert_ptr_null(mk_files(1, "scene=lava", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EPARAM);
    ck_assert_str_eq(err, "cycle params: scene=lava is not one of: waterfall, fire, dusk, file:PATH");
    ck_assert_ptr_null(mk_files(1, "scene=file:x.lbm", NULL, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EFILE);
    ck_assert_msg(strstr(err, "does not let worlds read files") != NULL, "%s", err);
    memfile none = { NULL, 0, 0 };
    ck_assert_ptr_null(mk_files(1, "scene=file:x.lbm", &none, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SIM_EFILE);
    ck_assert_str_eq(err, "cycle: scene=file:x.lbm: no such file");
    const uint8_t junk[] = "GIF89a...";
    memfile bad = { junk, sizeof junk, 0 };
    ck_assert_ptr_null(mk_files(1, "scene=file:x.gif", &bad, &rc, err, sizeof err));
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
/* Seed 42, the default waterfall, tests/golden/cycle.inputs: state and frame hashes every 100
 * ticks for 3,000 ticks against tests/golden/cycle.chain (`make golden`, only ever on purpose). */
START_TEST(golden_chain)
{
    script s = script_load("cycle", "golden/cycle.inputs");
    ck_assert_uint_gt(s.n, 10);
    sim_world *w = mk(42, "");
    ck_assert_int_eq(script_golden(w, &s, "golden/cycle.chain", 3000, 100), 30);
    sim_world_destroy(w);
    script_free(&s);
}
END_TEST

/* GGPO's sync test, every tick: save A, load the bytes into B (another world, with another
 * history), step both; states and frames agree. For a file scene B never reads the file: the
 * saved state carries the image, palette and ranges. */
static void sync_run(sim_world *a, const script *s, int ticks, memfile *mf)
{
    sim_world *b = mk(7, "scene=fire,w=200,h=100");
    run(b, 3);
    size_t cap = sim_world_save_max(a);
    uint8_t *buf = malloc(cap);
    sim_frame fa, fb;
    ck_assert_int_eq(sim_world_frame_init(a, &fa), 0);
    ck_assert_int_eq(sim_world_frame_init(a, &fb), 0);
    int calls = mf ? mf->calls : 0;
    size_t na = 0, nb = 0;
    for (int t = 0; t < ticks; t++) {
        size_t n = sim_world_save(a, buf, cap);
        ck_assert_uint_gt(n, 0);
        ck_assert_msg(sim_world_load(b, buf, n) == 0, "%s", sim_world_error(b));
        nb = na;
        script_feed(a, s, &na);
        script_feed(b, s, &nb);
        sim_world_step(a);
        sim_world_step(b);
        ck_assert_msg(sim_world_hash(a) == sim_world_hash(b), "diverged at tick %d", t + 1);
        sim_world_render(a, 0, &fa);
        sim_world_render(b, 0, &fb);
        ck_assert_uint_eq(sim_frame_hash(&fa), sim_frame_hash(&fb));
        ck_assert_uint_eq(fa.pal.version, fb.pal.version);
    }
    if (mf) ck_assert_int_eq(mf->calls, calls);        /* loading never read the file */
    ck_assert_uint_gt(na, 0);
    sim_frame_free(&fa);
    sim_frame_free(&fb);
    free(buf);
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
    tiny_scene(&sc, 2, 12, 5000, SIM_CYCLE_REVERSE, SIM_CYCLE_BLEND);
    sc.nranges = 7;                 /* the script toggles range 3 and sets the mode of 6 */
    for (int i = 1; i < 7; i++)
        sc.ranges[i] = (sim_cycle_range){ (uint8_t)i, (uint8_t)(i + 3), (uint16_t)(1000 * i),
                                          (uint8_t)(i % 3), (uint8_t)(i & 1), 1 };
    size_t n = sim_cycle_to_ilbm(&sc, 0, NULL, 0);
    uint8_t *lbm = malloc(n);
    sim_cycle_to_ilbm(&sc, 0, lbm, n);
    memfile mf = { lbm, n, 0 };
    char err[256];
    int rc;
    sim_world *a = mk_files(42, "scene=file:/nowhere/scene.lbm", &mf, &rc, err, sizeof err);
    ck_assert_msg(a != NULL, "%s", err);
    ck_assert_int_eq(mf.calls, 1);
    /* A bare shell (what replay and desync reports load into) never reads the file, even when
     * it is offered a reader; the state makes it the same world. */
    sim_file_reader rd = { mem_read, &mf };
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
    uint8_t *buf = malloc(cap), *bad = malloc(cap);
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
    ck_assert_int_eq(sim_world_load(b, buf, n), 0);
    ck_assert_uint_eq(sim_world_hash(b), sim_world_hash(a));
    /* A desync report names the differing fields. */
    run(b, 1);
    in(b, "speed 150");
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

/* ---- files: ILBM from netpbm -------------------------------------------------------------------- */
static char tmpdir[64];

static const char *tmp(const char *name)
{
    static char path[32][256];         /* a ring: a test holds at most a dozen names at once */
    static int k;
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/vivcycle.XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    }
    k = (k + 1) % 32;
    snprintf(path[k], sizeof path[k], "%s/%s", tmpdir, name);
    return path[k];
}

/* Checked fixture: each test's scratch directory goes when the test ends. */
static void tmp_teardown(void)
{
    if (!tmpdir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) { /* a leftover directory under /tmp is harmless */ }
    tmpdir[0] = '\0';
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    uint8_t *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? cap * 2 : 65536;
            buf = realloc(buf, cap);
        }
        size_t r = fread(buf + *len, 1, cap - *len, fp);
        if (r == 0) break;
        *len += r;
    }
    fclose(fp);
    return buf;
}

/* A PPM with `ncol` distinct colours (ncol ≤ 255): w×h, pixel colours from a pattern. Returns
 * the RGB pixels (malloc'd). */
static uint8_t *write_ppm(const char *path, int w, int h, int ncol)
{
    uint8_t *rgb = malloc((size_t)w * h * 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int c = (x * 7 + y * 13 + (x * y) % 5) % ncol;
            uint8_t *p = &rgb[3 * ((size_t)y * w + x)];
            p[0] = (uint8_t)(c * 37 + 11);
            p[1] = (uint8_t)(c * 101 + 7);
            p[2] = (uint8_t)(255 - c);
        }
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, "P6\n%d %d\n255\n", w, h);
    ck_assert_uint_eq(fwrite(rgb, 1, (size_t)w * h * 3, fp), (size_t)w * h * 3);
    fclose(fp);
    return rgb;
}

/* Append a chunk to an IFF file in memory (padding to even first) and fix the FORM length. */
static uint8_t *append_chunk(uint8_t *buf, size_t *len, const char *id, const uint8_t *data, size_t n)
{
    buf = realloc(buf, *len + 9 + n + 1);
    if (*len & 1) buf[(*len)++] = 0;
    memcpy(buf + *len, id, 4);
    buf[*len + 4] = (uint8_t)(n >> 24); buf[*len + 5] = (uint8_t)(n >> 16);
    buf[*len + 6] = (uint8_t)(n >> 8); buf[*len + 7] = (uint8_t)n;
    memcpy(buf + *len + 8, data, n);
    *len += 8 + n;
    if (n & 1) buf[(*len)++] = 0;
    uint32_t form = (uint32_t)(*len - 8);
    buf[4] = (uint8_t)(form >> 24); buf[5] = (uint8_t)(form >> 16);
    buf[6] = (uint8_t)(form >> 8); buf[7] = (uint8_t)form;
    return buf;
}

static void crng(uint8_t *c, int rate, int flags, int low, int high)
{
    c[0] = c[1] = 0;
    c[2] = (uint8_t)(rate >> 8); c[3] = (uint8_t)rate;
    c[4] = 0; c[5] = (uint8_t)flags;
    c[6] = (uint8_t)low; c[7] = (uint8_t)high;
}

/* netpbm writes the ILBM (planar, ByteRun1 or not, 1–8 planes); we append CRNG and CCRT ranges;
 * the import must give back the PPM's pixels through its palette, and our ranges. */
START_TEST(ilbm_from_ppmtoilbm_round_trip)
{
    static const struct { int w, h, ncol; const char *opts; } cases[] = {
        { 37, 11, 20, "" },                       /* 5 planes, odd width: row padding */
        { 160, 90, 2, "" },                       /* 1 plane */
        { 101, 23, 200, "-maxplanes 8" },         /* 8 planes */
        { 64, 40, 100, "-maxplanes 8 -nocompress" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int w = cases[k].w, h = cases[k].h;
        const char *ppm = tmp("in.ppm"), *lbm = tmp("out.lbm");
        uint8_t *rgb = write_ppm(ppm, w, h, cases[k].ncol);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "ppmtoilbm %s %s > %s 2>/dev/null", cases[k].opts, ppm, lbm);
        ck_assert_msg(system(cmd) == 0, "ppmtoilbm failed (is netpbm installed? scripts/deps.sh)");
        size_t len;
        uint8_t *buf = slurp(lbm, &len);
        uint8_t c[14];
        int top = cases[k].ncol - 1;
        crng(c, 8192, 1, 0, top);                          /* active, forward */
        buf = append_chunk(buf, &len, "CRNG", c, 8);
        crng(c, 16384, 3, 1, top > 3 ? 3 : top);           /* active, reverse */
        buf = append_chunk(buf, &len, "CRNG", c, 8);
        crng(c, 2730, 0, 0, top);                          /* inactive */
        buf = append_chunk(buf, &len, "CRNG", c, 8);
        /* CCRT: backwards, a step every 1/30 s = 30 steps a second = rate 8192. */
        memset(c, 0, sizeof c);
        c[0] = 0xff; c[1] = 0xff; c[2] = 0; c[3] = (uint8_t)top;
        c[8] = 0; c[9] = 0; c[10] = 0x82; c[11] = 0x35;   /* 33333 µs */
        buf = append_chunk(buf, &len, "CCRT", c, 14);
        sim_cycle_scene sc;
        char err[256], notes[256];
        int rc = sim_cycle_from_ilbm(buf, len, &sc, notes, sizeof notes, err, sizeof err);
        ck_assert_msg(rc == 0, "case %zu: %s", k, err);
        ck_assert_int_eq(sc.w, w);
        ck_assert_int_eq(sc.h, h);
        ck_assert_int_ge(sc.ncolors, cases[k].ncol);
        for (int i = 0; i < w * h; i++)
            ck_assert_msg(memcmp(&sc.rgb[3 * sc.px[i]], &rgb[3 * i], 3) == 0,
                          "case %zu: pixel %d is not the PPM's colour", k, i);
        /* Every PPM colour is in the palette exactly once: the CMAP is the PPM's colours. */
        for (int a = 0; a < sc.ncolors; a++)
            for (int b = a + 1; b < sc.ncolors; b++)
                ck_assert(memcmp(&sc.rgb[3 * a], &sc.rgb[3 * b], 3) != 0 || b >= cases[k].ncol);
        int want_ranges = top > 1 ? 4 : 3;                 /* 2 colours: CRNG 1..1 is dropped */
        ck_assert_int_eq(sc.nranges, want_ranges);
        ck_assert_int_eq(sc.ranges[0].low, 0);
        ck_assert_int_eq(sc.ranges[0].high, top);
        ck_assert_int_eq(sc.ranges[0].rate, 8192);
        ck_assert_int_eq(sc.ranges[0].dir, SIM_CYCLE_FORWARD);
        ck_assert_int_eq(sc.ranges[0].active, 1);
        int r = 1;
        if (want_ranges == 4) {
            ck_assert_int_eq(sc.ranges[1].dir, SIM_CYCLE_REVERSE);
            ck_assert_int_eq(sc.ranges[1].rate, 16384);
            r = 2;
        }
        ck_assert_int_eq(sc.ranges[r].active, 0);
        ck_assert_int_eq(sc.ranges[r + 1].dir, SIM_CYCLE_REVERSE);
        ck_assert_int_eq(sc.ranges[r + 1].rate, 8192);
        ck_assert_int_eq(sc.ranges[r + 1].active, 1);
        /* The same bytes as a world: its frame is the PPM. */
        memfile mf = { buf, len, 0 };
        sim_world *wd = mk_files(1, "scene=file:out.lbm", &mf, &rc, err, sizeof err);
        ck_assert_msg(wd != NULL, "%s", err);
        sim_frame f;
        ck_assert_int_eq(sim_world_frame_init(wd, &f), 0);
        sim_world_render(wd, 0, &f);
        ck_assert_int_eq(f.w, w);
        for (int i = 0; i < w * h; i++) ck_assert_int_eq(memcmp(&f.pal.rgb[3 * f.px[i]], &rgb[3 * i], 3), 0);
        sim_frame_free(&f);
        sim_world_destroy(wd);
        sim_cycle_scene_free(&sc);
        free(buf);
        free(rgb);
    }
}
END_TEST

/* Our writer, read back by netpbm's ilbmtoppm: the picture survives, in both IFF forms. */
START_TEST(ilbm_writer_read_by_ilbmtoppm)
{
    sim_world *w = mk(8, "scene=dusk");
    sim_cycle_scene sc;
    ck_assert_int_eq(sim_cycle_world_scene(w, &sc), 0);
    for (int pbm = 0; pbm < 2; pbm++) {
        size_t n = sim_cycle_to_ilbm(&sc, pbm, NULL, 0);
        uint8_t *buf = malloc(n);
        ck_assert_uint_eq(sim_cycle_to_ilbm(&sc, pbm, buf, n), n);
        const char *lbm = tmp("ours.lbm"), *ppm = tmp("ours.ppm");
        FILE *fp = fopen(lbm, "wb");
        ck_assert_uint_eq(fwrite(buf, 1, n, fp), n);
        fclose(fp);
        char cmd[512];
        snprintf(cmd, sizeof cmd, "ilbmtoppm %s > %s 2>/dev/null", lbm, ppm);
        int st = system(cmd);
        if (pbm && st != 0) {        /* older netpbm reads no PBM: our own reader must, then */
            sim_cycle_scene back;
            char err[256];
            ck_assert_int_eq(sim_cycle_from_ilbm(buf, n, &back, NULL, 0, err, sizeof err), 0);
            ck_assert_int_eq(memcmp(back.px, sc.px, (size_t)sc.w * sc.h), 0);
            sim_cycle_scene_free(&back);
            free(buf);
            continue;
        }
        ck_assert_int_eq(st, 0);
        size_t len;
        uint8_t *p = slurp(ppm, &len);
        char head[32];
        snprintf(head, sizeof head, "P6\n%d %d\n255\n", sc.w, sc.h);
        ck_assert_int_eq(memcmp(p, head, strlen(head)), 0);
        const uint8_t *rgb = p + strlen(head);
        ck_assert_uint_eq(len, strlen(head) + (size_t)sc.w * sc.h * 3);
        for (int i = 0; i < sc.w * sc.h; i++)
            ck_assert_msg(memcmp(&rgb[3 * i], &sc.rgb[3 * sc.px[i]], 3) == 0, "%s pixel %d",
                          pbm ? "PBM" : "ILBM", i);
        free(p);
        free(buf);
    }
    sim_cycle_scene_free(&sc);
    sim_world_destroy(w);
}
END_TEST

static int scenes_equal(const sim_cycle_scene *a, const sim_cycle_scene *b)
{
    if (a->w != b->w || a->h != b->h || a->ncolors != b->ncolors || a->nranges != b->nranges ||
        memcmp(a->rgb, b->rgb, (size_t)a->ncolors * 3) != 0 ||
        memcmp(a->px, b->px, (size_t)a->w * a->h) != 0)
        return 0;
    for (int i = 0; i < a->nranges; i++) {
        const sim_cycle_range *x = &a->ranges[i], *y = &b->ranges[i];
        if (x->low != y->low || x->high != y->high || x->rate != y->rate || x->dir != y->dir ||
            x->mode != y->mode || x->active != y->active)
            return 0;
    }
    return 1;
}

/* Every procedural scene through each writer and back: nothing lost (our extension keys and the
 * VIVC chunk carry ping-pong, BlendShift and the exact rates). */
START_TEST(writers_round_trip_every_scene)
{
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk,w=333,h=127" };
    for (int k = 0; k < 3; k++) {
        sim_world *w = mk(21, scenes[k]);
        in(w, "toggle 1");
        in(w, "mode 2 standard");
        run(w, 1);
        sim_cycle_scene sc, back;
        ck_assert_int_eq(sim_cycle_world_scene(w, &sc), 0);
        char err[256];
        for (int fmt = 0; fmt < 3; fmt++) {
            size_t n = fmt == 2 ? sim_cycle_to_ccjson(&sc, "a \"quoted\"\\name", NULL, 0)
                                : sim_cycle_to_ilbm(&sc, fmt, NULL, 0);
            uint8_t *buf = malloc(n);
            size_t m = fmt == 2 ? sim_cycle_to_ccjson(&sc, "a \"quoted\"\\name", buf, n)
                                : sim_cycle_to_ilbm(&sc, fmt, buf, n);
            ck_assert_uint_eq(m, n);
            ck_assert_msg(sim_cycle_from_bytes(buf, n, &back, NULL, 0, err, sizeof err) == 0, "%s", err);
            ck_assert_msg(scenes_equal(&sc, &back), "%s, format %d: not the same scene", scenes[k], fmt);
            sim_cycle_scene_free(&back);
            /* A short buffer gets a prefix and the full length. */
            uint8_t small[100];
            ck_assert_uint_eq(fmt == 2 ? sim_cycle_to_ccjson(&sc, "x", small, sizeof small)
                                       : sim_cycle_to_ilbm(&sc, fmt, small, sizeof small),
                              fmt == 2 ? sim_cycle_to_ccjson(&sc, "x", NULL, 0) : n);
            free(buf);
        }
        sim_cycle_scene_free(&sc);
        sim_world_destroy(w);
    }
}
END_TEST

/* ---- files: Canvas Cycle JSON written by hand ----------------------------------------------------- */
/* The PPM image of the ILBM test as Canvas Cycle JSON, written here without our writer: the
 * import is the same scene as the ILBM import with the same CRNG ranges, and the two worlds
 * are the same state. Rates are multiples of 525, so rate·16384/16800 is exact. */
START_TEST(canvas_cycle_json_imports_to_the_same_state)
{
    const int w = 37, h = 11, ncol = 20;
    const char *ppm = tmp("j.ppm"), *lbm = tmp("j.lbm");
    uint8_t *rgb = write_ppm(ppm, w, h, ncol);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ppmtoilbm %s > %s 2>/dev/null", ppm, lbm);
    ck_assert_int_eq(system(cmd), 0);
    size_t len;
    uint8_t *iff = slurp(lbm, &len);
    uint8_t c[8];
    crng(c, 8192, 1, 2, 9);          /* 30 steps a second = Canvas Cycle rate 8400 */
    iff = append_chunk(iff, &len, "CRNG", c, 8);
    crng(c, 2048, 3, 10, 19);        /* 7.5 steps a second, reversed = rate 2100, reverse 2 */
    iff = append_chunk(iff, &len, "CRNG", c, 8);
    sim_cycle_scene a, b;
    char err[256], notes[256];
    ck_assert_msg(sim_cycle_from_ilbm(iff, len, &a, NULL, 0, err, sizeof err) == 0, "%s", err);
    /* The JSON, as Canvas Cycle's files have it (plus a placeholder cycle, and unknown keys). */
    size_t cap = 64 + (size_t)ncol * 16 + (size_t)w * h * 4 + 512;
    char *json = malloc(cap);
    size_t n = (size_t)snprintf(json, cap, "CanvasCycle.processImage({\"filename\":\"j.LBM\",\n"
                                "  \"width\": %d, \"height\": %d,\n  \"colors\": [", w, h);
    for (int i = 0; i < a.ncolors; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s[%d,%d,%d]", i ? ", " : "", a.rgb[3 * i],
                              a.rgb[3 * i + 1], a.rgb[3 * i + 2]);
    n += (size_t)snprintf(json + n, cap - n, "],\n  \"cycles\": [{\"reverse\":0,\"rate\":8400,"
                          "\"low\":2,\"high\":9}, {\"reverse\":2,\"rate\":2100,\"low\":10,"
                          "\"high\":19}, {\"reverse\":0,\"rate\":0,\"low\":0,\"high\":0}],\n"
                          "  \"extra\": {\"nested\": [1, 2.5e3, true, null, \"\\u00e9\"]},\n"
                          "  \"pixels\": [");
    for (int i = 0; i < w * h; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s%d", i ? "," : "", a.px[i]);
    n += (size_t)snprintf(json + n, cap - n, "]\n});\n");
    ck_assert_uint_lt(n, cap);
    ck_assert_msg(sim_cycle_from_ccjson((const uint8_t *)json, n, &b, notes, sizeof notes, err,
                                        sizeof err) == 0, "%s", err);
    ck_assert_str_eq(notes, "");
    ck_assert(scenes_equal(&a, &b));
    for (int i = 0; i < w * h; i++) ck_assert_int_eq(memcmp(&b.rgb[3 * b.px[i]], &rgb[3 * i], 3), 0);
    /* As worlds under the same params: the same state hash, tick by tick. */
    memfile fa = { iff, len, 0 }, fb = { (const uint8_t *)json, n, 0 };
    int rc;
    sim_world *wa = mk_files(5, "scene=file:scene", &fa, &rc, err, sizeof err);
    sim_world *wb = mk_files(5, "scene=file:scene", &fb, &rc, err, sizeof err);
    ck_assert_ptr_nonnull(wa);
    ck_assert_ptr_nonnull(wb);
    for (int t = 0; t < 200; t++) {
        ck_assert_uint_eq(sim_world_hash(wa), sim_world_hash(wb));
        sim_world_step(wa);
        sim_world_step(wb);
    }
    sim_world_destroy(wa);
    sim_world_destroy(wb);
    /* Canvas Cycle's sine wave (reverse 4) plays as ping-pong, and says so. */
    sim_cycle_scene_free(&b);
    char *p = strstr(json, "\"reverse\":2");
    ck_assert_ptr_nonnull(p);
    p[10] = '4';
    ck_assert_int_eq(sim_cycle_from_ccjson((const uint8_t *)json, n, &b, notes, sizeof notes, err,
                                           sizeof err), 0);
    ck_assert_int_eq(b.ranges[1].dir, SIM_CYCLE_PINGPONG);
    ck_assert_msg(strstr(notes, "sine-wave") != NULL, "%s", notes);
    sim_cycle_scene_free(&a);
    sim_cycle_scene_free(&b);
    free(json);
    free(iff);
    free(rgb);
}
END_TEST

/* ---- bad files ------------------------------------------------------------------------------------ */
/* Decode and, if it decodes, prove the result is a valid scene. Returns the decoder's code. */
static int try_decode(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    sim_cycle_scene sc;
    char notes[256], why[256];
    int rc = sim_cycle_from_bytes(buf, len, &sc, notes, sizeof notes, err, errlen);
    if (rc == 0) {
        ck_assert_msg(sim_cycle_scene_check(&sc, why, sizeof why) == 0, "decoded an invalid scene: %s", why);
        sim_cycle_scene_free(&sc);
    } else {
        ck_assert_ptr_null(sc.px);
        ck_assert_msg(strlen(err) > 10, "an error without a sentence: '%s'", err);
    }
    return rc;
}

static uint8_t *valid_ilbm(size_t *n, int pbm)
{
    sim_cycle_scene sc;
    tiny_scene(&sc, 2, 11, 9000, SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
    sc.w = 8;                        /* every colour used; ranges, VIVC, BODY: every chunk */
    sc.nranges = 2;
    sc.ranges[1] = (sim_cycle_range){ 12, 15, 300, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD, 1 };
    *n = sim_cycle_to_ilbm(&sc, pbm, NULL, 0);
    uint8_t *buf = malloc(*n);
    sim_cycle_to_ilbm(&sc, pbm, buf, *n);
    sim_cycle_scene_free(&sc);
    return buf;
}

/* Every prefix of a valid file, every chunk cut short at every byte (lengths kept consistent),
 * and bad lengths: each an error with a sentence, never a crash (this suite runs under ASan in the
 * sanitizer build). */
START_TEST(truncated_ilbm_every_chunk_every_offset)
{
    char err[256];
    for (int pbm = 0; pbm < 2; pbm++) {
        size_t n;
        uint8_t *buf = valid_ilbm(&n, pbm);
        ck_assert_int_eq(try_decode(buf, n, err, sizeof err), 0);
        for (size_t cut = 0; cut < n; cut++) {
            uint8_t *p = malloc(cut ? cut : 1);     /* exactly cut bytes: ASan sees overreads */
            memcpy(p, buf, cut);
            ck_assert_msg(try_decode(p, cut, err, sizeof err) != 0, "prefix %zu decoded", cut);
            free(p);
        }
        /* Each chunk shortened to every length below its own, the FORM length fixed. */
        int chunks = 0;
        for (size_t at = 12; at + 8 <= n;) {
            uint32_t clen = (uint32_t)buf[at + 4] << 24 | (uint32_t)buf[at + 5] << 16 |
                            (uint32_t)buf[at + 6] << 8 | buf[at + 7];
            size_t next = at + 8 + clen + (clen & 1);
            for (uint32_t k = 0; k < clen; k++) {
                size_t m = at + 8 + k + (k & 1) + (n - next);
                uint8_t *p = malloc(m);
                memcpy(p, buf, at + 8 + k);
                if (k & 1) p[at + 8 + k] = 0;
                memcpy(p + at + 8 + k + (k & 1), buf + next, n - next);
                p[at + 4] = (uint8_t)(k >> 24); p[at + 5] = (uint8_t)(k >> 16);
                p[at + 6] = (uint8_t)(k >> 8); p[at + 7] = (uint8_t)k;
                uint32_t form = (uint32_t)(m - 8);
                p[4] = (uint8_t)(form >> 24); p[5] = (uint8_t)(form >> 16);
                p[6] = (uint8_t)(form >> 8); p[7] = (uint8_t)form;
                char id[5] = { (char)buf[at], (char)buf[at + 1], (char)buf[at + 2], (char)buf[at + 3], 0 };
                ck_assert_msg(try_decode(p, m, err, sizeof err) != 0, "%s cut to %u bytes decoded", id, k);
                free(p);
            }
            chunks++;
            at = next;
        }
        ck_assert_int_eq(chunks, 6);                 /* BMHD CMAP CRNG CRNG VIVC BODY */
        /* Lengths that lie: a chunk claiming more than the FORM holds, huge, a FORM too long. */
        uint8_t *p = malloc(n);
        static const uint32_t lies[] = { 0x7fffffffu, 0xffffffffu, 0xfffffff8u, 1000000u };
        for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
            for (size_t at = 12; at + 8 <= n;) {
                uint32_t clen = (uint32_t)buf[at + 4] << 24 | (uint32_t)buf[at + 5] << 16 |
                                (uint32_t)buf[at + 6] << 8 | buf[at + 7];
                memcpy(p, buf, n);
                p[at + 4] = (uint8_t)(lies[i] >> 24); p[at + 5] = (uint8_t)(lies[i] >> 16);
                p[at + 6] = (uint8_t)(lies[i] >> 8); p[at + 7] = (uint8_t)lies[i];
                ck_assert_int_ne(try_decode(p, n, err, sizeof err), 0);
                at += 8 + clen + (clen & 1);
            }
            memcpy(p, buf, n);
            p[4] = (uint8_t)(lies[i] >> 24); p[5] = (uint8_t)(lies[i] >> 16);
            p[6] = (uint8_t)(lies[i] >> 8); p[7] = (uint8_t)lies[i];
            ck_assert_int_ne(try_decode(p, n, err, sizeof err), 0);
            ck_assert_msg(strstr(err, "FORM says") != NULL, "%s", err);
        }
        free(p);
        free(buf);
    }
}
END_TEST

/* Header fields with impossible values: each a specific sentence. */
START_TEST(bad_ilbm_headers)
{
    size_t n;
    uint8_t *buf = valid_ilbm(&n, 0);
    uint8_t *p = malloc(n);
    char err[256];
    const size_t bmhd = 20;          /* BMHD data: after FORM·len·ILBM and BMHD·len */
    struct { size_t at; uint8_t v[2]; int nv; const char *want; } cases[] = {
        { bmhd + 10, { 2 }, 1, "unknown BODY compression 2" },
        { bmhd + 10, { 0x80 }, 1, "unknown BODY compression 128" },
        { bmhd + 0, { 0x02, 0x81 }, 2, "image is 641x4" },     /* width 641 */
        { bmhd + 2, { 0x01, 0xE1 }, 2, "image is 8x481" },     /* height 481 */
        { bmhd + 0, { 0xff, 0xff }, 2, "image is 65535x4" },
        { bmhd + 0, { 0x00, 0x00 }, 2, "image is 0x4" },
        { bmhd + 8, { 24 }, 1, "24 bitplanes" },
        { bmhd + 8, { 0 }, 1, "0 bitplanes" },
        { bmhd + 9, { 9 }, 1, "unknown masking 9" },
        { 8, { 'A', 'N' }, 2, "is not a picture" },
        { 0, { 'R', 'I' }, 2, "neither an IFF ILBM/PBM file" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(p, buf, n);
        memcpy(p + cases[i].at, cases[i].v, (size_t)cases[i].nv);
        ck_assert_int_ne(try_decode(p, n, err, sizeof err), 0);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "wanted '%s', got '%s'", cases[i].want, err);
    }
    /* A HAM image (CAMG 0x800), and no CMAP at all. */
    size_t m = n;
    uint8_t camg[4] = { 0, 0, 0x08, 0 };
    uint8_t *q = malloc(n);
    memcpy(q, buf, n);
    q = append_chunk(q, &m, "CAMG", camg, 4);
    ck_assert_int_ne(try_decode(q, m, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "HAM") != NULL, "%s", err);
    memcpy(q, buf, n);
    memcpy(q + 40, "XMAP", 4);                        /* the CMAP renamed: an unknown chunk */
    ck_assert_int_ne(try_decode(q, n, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "no CMAP") != NULL, "%s", err);
    free(q);
    free(p);
    free(buf);
}
END_TEST

/* Random damage to valid files (a fixed PCG stream): whatever the bytes, an error with a sentence
 * or a valid scene. A small libFuzzer in a loop. */
START_TEST(mutated_files_never_crash)
{
    sim_rng r;
    sim_rng_stream(&r, 2026, "check_cycle.mutate");
    char err[256];
    sim_cycle_scene sc;
    tiny_scene(&sc, 0, 15, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    size_t nj = sim_cycle_to_ccjson(&sc, "m", NULL, 0);
    uint8_t *json = malloc(nj);
    sim_cycle_to_ccjson(&sc, "m", json, nj);
    sim_cycle_scene_free(&sc);
    for (int k = 0; k < 3; k++) {
        size_t n;
        uint8_t *base = k == 2 ? json : valid_ilbm(&n, k);
        if (k == 2) n = nj;
        int ok = 0;
        for (int iter = 0; iter < 3000; iter++) {
            uint8_t *p = malloc(n);
            memcpy(p, base, n);
            int edits = 1 + (int)sim_rng_below(&r, 4);
            for (int e = 0; e < edits; e++) {
                size_t at = sim_rng_below(&r, (uint32_t)n);
                uint32_t how = sim_rng_below(&r, 4);
                if (how == 0) p[at] = (uint8_t)sim_rng_next(&r);
                else if (how == 1) p[at] ^= (uint8_t)(1u << sim_rng_below(&r, 8));
                else if (how == 2) p[at] = k == 2 ? "{}[],:\"0-9e"[sim_rng_below(&r, 11)] : 0xff;
                else p[at] = 0;
            }
            size_t len = sim_rng_below(&r, 8) == 0 ? sim_rng_below(&r, (uint32_t)n) : n;
            ok += try_decode(p, len, err, sizeof err) == 0;
            free(p);
        }
        ck_assert_int_lt(ok, 3000);                   /* the damage was noticed, mostly */
        if (k < 2) free(base);
    }
    free(json);
}
END_TEST

/* Malformed JSON of every sort: an error naming line and column (or what is missing). */
START_TEST(malformed_json)
{
    static const char *const bad[] = {
        "", " ", "{", "}", "[]", "null", "{\"width\":", "{\"width\":3,}", "{\"width\" 3}",
        "{\"width\":03,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,1]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,256]],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"pixels\":[0,0,0]}",
        "{\"width\":641,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]}",
        "{\"width\":3,\"height\":481,\"colors\":[[0,0,0]],\"pixels\":[0]}",
        "{\"width\":3.5,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":-3,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":99999999999999999999,\"height\":1}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0],\"cycles\":[{\"rate\":-1}]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0],\"cycles\":[{\"reverse\":9}]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0],\"cycles\":[3]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0],\"cycles\":[{\"mode\":\"x\"}]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]} trailing",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]}}",
        "{\"filename\":\"unterminated,\"width\":1}",
        "{\"filename\":\"bad \\x escape\"}",
        "{\"filename\":\"bad \\u12 escape\"}",
        "{\"filename\":\"raw\ncontrol\"}",
        "{\"x\":tru}", "{\"x\":nul}", "{\"x\":-}", "{\"x\":1e}", "{\"x\":1.}", "{\"x\":[1,]}",
        "f({\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,\"a\"]}",
    };
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(bad[i]);
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, bad[i], n);
        ck_assert_msg(sim_cycle_from_ccjson(p, n, &(sim_cycle_scene){ 0 }, NULL, 0, err, sizeof err) ==
                      SIM_EFILE, "decoded: %s", bad[i]);
        ck_assert_msg(strstr(err, "JSON") != NULL, "%s: %s", bad[i], err);
        free(p);
    }
    /* Nesting deeper than the limit inside an ignored key: refused, not a stack overflow. */
    size_t depth = 100000, n = 0;
    char *deep = malloc(2 * depth + 64);
    n += (size_t)sprintf(deep, "{\"deep\":");
    for (size_t i = 0; i < depth; i++) deep[n++] = '[';
    for (size_t i = 0; i < depth; i++) deep[n++] = ']';
    deep[n++] = '}';
    ck_assert_int_eq(sim_cycle_from_ccjson((uint8_t *)deep, n, &(sim_cycle_scene){ 0 }, NULL, 0, err,
                                           sizeof err), SIM_EFILE);
    ck_assert_msg(strstr(err, "nested too deeply") != NULL, "%s", err);
    free(deep);
    /* The line and column of the problem. */
    const char *two = "{\n  \"width\": 1,\n  \"height\": x\n}";
    sim_cycle_from_ccjson((const uint8_t *)two, strlen(two), &(sim_cycle_scene){ 0 }, NULL, 0, err,
                          sizeof err);
    ck_assert_str_eq(err, "JSON: line 3, column 13: expected a number");
    /* Every prefix of a valid file is refused. */
    sim_cycle_scene sc;
    tiny_scene(&sc, 0, 15, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    size_t nj = sim_cycle_to_ccjson(&sc, "m", NULL, 0);
    uint8_t *json = malloc(nj);
    sim_cycle_to_ccjson(&sc, "m", json, nj);
    ck_assert_int_eq(try_decode(json, nj, err, sizeof err), 0);
    for (size_t cut = 0; cut + 2 < nj; cut++) {      /* the last two bytes are "}\n" */
        uint8_t *p = malloc(cut ? cut : 1);
        memcpy(p, json, cut);
        ck_assert_msg(try_decode(p, cut, err, sizeof err) != 0, "prefix %zu decoded", cut);
        free(p);
    }
    free(json);
    sim_cycle_scene_free(&sc);
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
    uint8_t *buf = slurp(path, &len);
    char err[256];
    int rc = sim_cycle_from_bytes(buf, len, sc, NULL, 0, err, sizeof err);
    free(buf);
    return rc;
}

/* viv cycle convert: ILBM → JSON → ILBM is byte-identical; the PNG is the scene's picture; bad
 * input is exit status 2 with a sentence. */
START_TEST(viv_cycle_convert)
{
    const char *lbm = tmp("c.lbm"), *json = tmp("c.json"), *lbm2 = tmp("c2.lbm");
    ck_assert_int_eq(sh("$VIV cycle convert --scene fire --seed 3 %s", lbm), 0);
    ck_assert_int_eq(sh("$VIV cycle convert %s %s", lbm, json), 0);
    ck_assert_int_eq(sh("$VIV cycle convert %s %s", json, lbm2), 0);
    ck_assert_int_eq(sh("cmp -s %s %s", lbm, lbm2), 0);
    const char *png = tmp("c.png"), *ppm = tmp("c.ppm"), *ref = tmp("ref.ppm");
    ck_assert_int_eq(sh("$VIV cycle convert %s %s --tick 90 --scale 2", json, png), 0);
    ck_assert_int_eq(sh("pngtopnm %s > %s", png, ppm), 0);
    /* The same picture from `viv sim` after 90 ticks. */
    const char *png2 = tmp("sim.png");
    ck_assert_int_eq(sh("$VIV sim --world cycle --params scene=fire --seed 3 --ticks 90 --png %s "
                        "--scale 2 >/dev/null", png2), 0);
    ck_assert_int_eq(sh("pngtopnm %s > %s", png2, ref), 0);
    ck_assert_int_eq(sh("cmp -s %s %s", ppm, ref), 0);
    const char *junk = tmp("junk.lbm"), *out = tmp("out.txt");
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
    const char *lbm = tmp("rec.lbm"), *db = tmp("rec.db"), *out = tmp("verify.txt");
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
    const char *json = tmp("vivd.json");
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
    static uint8_t first[2][320 * 180];
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
    TCase *fl = tcase_create("files");
    tcase_set_timeout(fl, 600);
    tcase_add_checked_fixture(fl, NULL, tmp_teardown);
    tcase_add_test(fl, ilbm_from_ppmtoilbm_round_trip);
    tcase_add_test(fl, ilbm_writer_read_by_ilbmtoppm);
    tcase_add_test(fl, writers_round_trip_every_scene);
    tcase_add_test(fl, canvas_cycle_json_imports_to_the_same_state);
    tcase_add_test(fl, truncated_ilbm_every_chunk_every_offset);
    tcase_add_test(fl, bad_ilbm_headers);
    tcase_add_test(fl, mutated_files_never_crash);
    tcase_add_test(fl, malformed_json);
    suite_add_tcase(s, fl);
    TCase *e2e = tcase_create("programs");
    tcase_set_timeout(e2e, 600);
    tcase_add_checked_fixture(e2e, NULL, tmp_teardown);
    tcase_add_test(e2e, viv_cycle_convert);
    tcase_add_test(e2e, replay_needs_no_scene_file);
    tcase_add_test(e2e, vivd_streams_palette_only_frames);
    suite_add_tcase(s, e2e);
    return s;
}
