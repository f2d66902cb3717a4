/* check_ccjson.c — the Canvas Cycle JSON importer (sim/cycle/ccjson.c): a file written by hand
 * imports to the same scene and the same world state as its ILBM twin, and malformed JSON of every
 * kind is refused with a sentence. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "check_scene.h"

/* The PPM image of the ILBM test as Canvas Cycle JSON, written here without our writer: the
 * import is the same scene as the ILBM import with the same CRNG ranges, and the two worlds
 * are the same state. Rates are multiples of 525, so rate·16384/16800 is exact. */
START_TEST(canvas_cycle_json_imports_to_the_same_state)
{
    const int w = 37, h = 11, ncol = 20;
    const char *ppm = cyc_tmp("j.ppm"), *lbm = cyc_tmp("j.lbm");
    uint8_t *rgb = cyc_write_ppm(ppm, w, h, ncol);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ppmtoilbm %s > %s 2>/dev/null", ppm, lbm);
    ck_assert_int_eq(system(cmd), 0);
    size_t len;
    uint8_t *iff = cyc_slurp(lbm, &len);
    uint8_t c[8];
    cyc_crng(c, 8192, 1, 2, 9);          /* 30 steps a second = Canvas Cycle rate 8400 */
    iff = cyc_append_chunk(iff, &len, "CRNG", c, 8);
    cyc_crng(c, 2048, 3, 10, 19);        /* 7.5 steps a second, reversed = rate 2100, reverse 2 */
    iff = cyc_append_chunk(iff, &len, "CRNG", c, 8);
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
    ck_assert(cyc_scenes_equal(&a, &b));
    for (int i = 0; i < w * h; i++) ck_assert_int_eq(memcmp(&b.rgb[3 * b.px[i]], &rgb[3 * i], 3), 0);
    /* As worlds under the same params: the same state hash, tick by tick. */
    cyc_memfile fa = { iff, len, 0 }, fb = { (const uint8_t *)json, n, 0 };
    int rc;
    sim_world *wa = cyc_world_files(5, "scene=file:scene", &fa, &rc, err, sizeof err);
    sim_world *wb = cyc_world_files(5, "scene=file:scene", &fb, &rc, err, sizeof err);
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
    cyc_tiny_scene(&sc, 0, 15, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    size_t nj = sim_cycle_to_ccjson(&sc, "m", NULL, 0);
    uint8_t *json = malloc(nj);
    sim_cycle_to_ccjson(&sc, "m", json, nj);
    ck_assert_int_eq(cyc_try_decode(json, nj, err, sizeof err), 0);
    for (size_t cut = 0; cut + 2 < nj; cut++) {      /* the last two bytes are "}\n" */
        uint8_t *p = malloc(cut ? cut : 1);
        memcpy(p, json, cut);
        ck_assert_msg(cyc_try_decode(p, cut, err, sizeof err) != 0, "prefix %zu decoded", cut);
        free(p);
    }
    free(json);
    sim_cycle_scene_free(&sc);
}
END_TEST

Suite *suite_ccjson(void)
{
    Suite *s = suite_create("ccjson");
    TCase *fl = tcase_create("files");
    tcase_set_timeout(fl, 600);
    tcase_add_checked_fixture(fl, NULL, cyc_tmp_teardown);
    tcase_add_test(fl, canvas_cycle_json_imports_to_the_same_state);
    tcase_add_test(fl, malformed_json);
    suite_add_tcase(s, fl);
    return s;
}
