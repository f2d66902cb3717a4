/* check_scene.c — the cycle scene type (sim/cycle/scene.c) and import.c, which picks the importer
 * by the bytes: every procedural scene through both writers and back, and mutated files that
 * never crash a decoder. Also the fixtures the cycle suites share (check_scene.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "check_scene.h"

/* ---- fixtures (check_scene.h) -------------------------------------------------------------------- */

int cyc_mem_read(void *ud, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
    cyc_memfile *m = ud;
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

sim_world *cyc_world_files(uint64_t seed, const char *params, cyc_memfile *mf, int *rc, char *err,
                           size_t errlen)
{
    sim_file_reader rd = { cyc_mem_read, mf };
    sim_config c = sim_config_default();
    c.kind = "cycle";
    c.seed = seed;
    c.params = params;
    c.err = err;
    c.errlen = errlen;
    c.files = mf ? &rd : NULL;
    return sim_world_create(&c, rc);
}

static uint32_t seqno;

/* Queue one input by its text for the world's next tick. */
void cyc_in(sim_world *w, const char *text)
{
    char line[128], err[256];
    sim_input x;
    snprintf(line, sizeof line, "%llu %s", (unsigned long long)sim_world_tick(w), text);
    ck_assert_msg(sim_input_parse_line(sim_world_kind(w), line, &x, err, sizeof err) == 0, "%s", err);
    x.seq = ++seqno;
    ck_assert_msg(sim_world_input(w, &x) == 0, "%s", sim_world_error(w));
}

/* A small scene: 16 distinct colours, a 8×4 image using all of them, one range. */
void cyc_tiny_scene(sim_cycle_scene *sc, int low, int high, int rate, int dir, int mode)
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

static char tmpdir[64];            /* this test's scratch directory, made on first use */

const char *cyc_tmp(const char *name)
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
void cyc_tmp_teardown(void)
{
    if (!tmpdir[0]) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) { /* a leftover directory under /tmp is harmless */ }
    tmpdir[0] = '\0';
}

uint8_t *cyc_slurp(const char *path, size_t *len)
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
uint8_t *cyc_write_ppm(const char *path, int w, int h, int ncol)
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
uint8_t *cyc_append_chunk(uint8_t *buf, size_t *len, const char *id, const uint8_t *data, size_t n)
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

void cyc_crng(uint8_t *c, int rate, int flags, int low, int high)
{
    c[0] = c[1] = 0;
    c[2] = (uint8_t)(rate >> 8); c[3] = (uint8_t)rate;
    c[4] = 0; c[5] = (uint8_t)flags;
    c[6] = (uint8_t)low; c[7] = (uint8_t)high;
}

int cyc_scenes_equal(const sim_cycle_scene *a, const sim_cycle_scene *b)
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
/* Decode and, if it decodes, prove the result is a valid scene. Returns the decoder's code. */
int cyc_try_decode(const uint8_t *buf, size_t len, char *err, size_t errlen)
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
uint8_t *cyc_valid_ilbm(size_t *n, int pbm)
{
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 2, 11, 9000, SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND);
    sc.w = 8;                        /* every colour used; ranges, VIVC, BODY: every chunk */
    sc.nranges = 2;
    sc.ranges[1] = (sim_cycle_range){ 12, 15, 300, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD, 1 };
    *n = sim_cycle_to_ilbm(&sc, pbm, NULL, 0);
    uint8_t *buf = malloc(*n);
    sim_cycle_to_ilbm(&sc, pbm, buf, *n);
    sim_cycle_scene_free(&sc);
    return buf;
}

/* ---- the scene through both formats ----------------------------------------------------------- */
/* Every procedural scene through each writer and back: nothing lost (our extension keys and the
 * VIVC chunk carry ping-pong, BlendShift and the exact rates). */
START_TEST(writers_round_trip_every_scene)
{
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk,w=333,h=127" };
    for (int k = 0; k < 3; k++) {
        sim_world *w = script_world("cycle", 21, scenes[k]);
        cyc_in(w, "toggle 1");
        cyc_in(w, "mode 2 standard");
        sim_world_step(w);
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
            ck_assert_msg(cyc_scenes_equal(&sc, &back), "%s, format %d: not the same scene", scenes[k], fmt);
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

/* Random damage to valid files (a fixed PCG stream): whatever the bytes, an error with a sentence
 * or a valid scene. A small libFuzzer in a loop. */
START_TEST(mutated_files_never_crash)
{
    sim_rng r;
    sim_rng_stream(&r, 2026, "check_cycle.mutate");
    char err[256];
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 0, 15, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    size_t nj = sim_cycle_to_ccjson(&sc, "m", NULL, 0);
    uint8_t *json = malloc(nj);
    sim_cycle_to_ccjson(&sc, "m", json, nj);
    sim_cycle_scene_free(&sc);
    for (int k = 0; k < 3; k++) {
        size_t n;
        uint8_t *base = k == 2 ? json : cyc_valid_ilbm(&n, k);
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
            ok += cyc_try_decode(p, len, err, sizeof err) == 0;
            free(p);
        }
        ck_assert_int_lt(ok, 3000);                   /* the damage was noticed, mostly */
        if (k < 2) free(base);
    }
    free(json);
}
END_TEST

Suite *suite_scene(void)
{
    Suite *s = suite_create("scene");
    TCase *fl = tcase_create("files");
    tcase_set_timeout(fl, 600);
    tcase_add_checked_fixture(fl, NULL, cyc_tmp_teardown);
    tcase_add_test(fl, writers_round_trip_every_scene);
    tcase_add_test(fl, mutated_files_never_crash);
    suite_add_tcase(s, fl);
    return s;
}
