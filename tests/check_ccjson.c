/* check_ccjson.c — the Canvas Cycle importer (sim/cycle/ccjson.c): a scene as Canvas Cycle's own
 * tools write it (lbm2json's JavaScript object literal, image.php's JSONP wrapper) imports, and
 * strict JSON and every other JavaScript spelling of it import to the same scene; a Canvas Cycle
 * scene plays by Canvas Cycle's timing with BlendShift on; our own files round-trip exactly through
 * every writer; malformed input of every kind is refused with a sentence naming line and column. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "check_scene.h"

/* A text buffer that grows. */
typedef struct tbuf {
    char *s;
    size_t n, cap;
} tbuf;

static void tb_add(tbuf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_add(tbuf *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        ck_assert_int_ge(k, 0);
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = (t->cap + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        ck_assert_ptr_nonnull(t->s);
    }
}

/* A Canvas Cycle cycle as lbm2json has it: reverse is the CRNG flags word, rate its rate. */
typedef struct lbm_cycle {
    int reverse, rate, low, high;
} lbm_cycle;

/* The scene text exactly as lbm2json's main.cpp prints it: keys bare, the file name in single
 * quotes, no spaces, a newline before every row of pixels (so rows after the first start with the
 * comma), "}\n" at the end. */
static char *lbm2json_text(const char *filename, const sim_cycle_scene *sc, const lbm_cycle *cyc,
                           int ncyc, size_t *len)
{
    tbuf t = { 0 };
    tb_add(&t, "{filename:'%s',width:%d,height:%d", filename, sc->w, sc->h);
    tb_add(&t, ",colors:[");
    for (int i = 0; i < sc->ncolors; i++)
        tb_add(&t, "%s[%d,%d,%d]", i ? "," : "", sc->rgb[3 * i], sc->rgb[3 * i + 1], sc->rgb[3 * i + 2]);
    tb_add(&t, "],cycles:[");
    for (int i = 0; i < ncyc; i++)
        tb_add(&t, "%s{reverse:%d,rate:%d,low:%d,high:%d}", i ? "," : "", cyc[i].reverse, cyc[i].rate,
               cyc[i].low, cyc[i].high);
    tb_add(&t, "],pixels:[");
    for (int y = 0, k = 0; y < sc->h; y++) {
        tb_add(&t, "\n");
        for (int x = 0; x < sc->w; x++, k++) tb_add(&t, "%s%d", k ? "," : "", sc->px[k]);
    }
    tb_add(&t, "]}\n");
    *len = t.n;
    return t.s;
}

static int decode(const char *text, size_t n, sim_cycle_scene *sc, char *notes, size_t notelen,
                  char *err, size_t errlen)
{
    return sim_cycle_from_ccjson((const uint8_t *)text, n, sc, notes, notelen, err, errlen);
}

/* Two scenes equal in every field, the timing included. */
static void same_scene(const sim_cycle_scene *a, const sim_cycle_scene *b, const char *how)
{
    ck_assert_msg(cyc_scenes_equal(a, b), "%s: another scene", how);
    ck_assert_msg(a->timing == b->timing, "%s: timing %u, then %u", how, a->timing, b->timing);
}

/* The 16×16-colour scene every test here starts from, and cycles of every reverse value as
 * lbm2json writes them, with the placeholders it pads its 16 with. */
static const lbm_cycle CYCLES[] = {
    { 0, 1536, 1, 4 }, { 1, 2841, 5, 7 }, { 2, 280, 8, 11 }, { 3, 8400, 12, 13 },
    { 4, 2000, 0, 5 }, { 5, 1380, 10, 15 }, { 0, 0, 3, 9 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 },
};
#define NCYC ((int)(sizeof CYCLES / sizeof CYCLES[0]))

/* What the Canvas Cycle import of CYCLES must be. */
static void check_cc_ranges(const sim_cycle_scene *b, int blend)
{
    static const uint8_t dir[] = { SIM_CYCLE_FORWARD, SIM_CYCLE_FORWARD, SIM_CYCLE_REVERSE,
                                   SIM_CYCLE_PINGPONG, SIM_CYCLE_SINE_HALF, SIM_CYCLE_SINE_FULL,
                                   SIM_CYCLE_FORWARD };
    ck_assert_int_eq(b->timing, SIM_CYCLE_TIMING_CANVAS);
    ck_assert_int_eq(b->nranges, 7);               /* the two placeholders (0..0) are no ranges */
    for (int i = 0; i < 7; i++) {
        const sim_cycle_range *r = &b->ranges[i];
        ck_assert_int_eq(r->low, CYCLES[i].low);
        ck_assert_int_eq(r->high, CYCLES[i].high);
        ck_assert_int_eq(r->rate, CYCLES[i].rate);   /* Canvas Cycle's own rate, kept as it is */
        ck_assert_int_eq(r->dir, dir[i]);
        ck_assert_int_eq(r->mode, blend ? SIM_CYCLE_BLEND : SIM_CYCLE_STANDARD);
        ck_assert_int_eq(r->active, CYCLES[i].rate > 0);
    }
}

/* lbm2json's object literal imports: Canvas Cycle timing, its rates and reverse values as they
 * are, BlendShift on; and the same scene wrapped as image.php serves it, as strict JSON, and in
 * every other spelling JavaScript allows. */
START_TEST(lbm2json_object_literal_imports)
{
    sim_cycle_scene sc, a, b;
    char err[256], notes[512];
    cyc_tiny_scene(&sc, 0, 1, 1, 0, 0);
    size_t n;
    char *lit = lbm2json_text("V08.LBM", &sc, CYCLES, NCYC, &n);
    static const char head[] = "{filename:'V08.LBM',width:8,height:4,colors:[[0,250,3],";
    ck_assert_msg(strncmp(lit, head, strlen(head)) == 0, "%s", lit);
    ck_assert_msg(strstr(lit, "],cycles:[{reverse:0,rate:1536,low:1,high:4},{reverse:1,") != NULL, "%s", lit);
    ck_assert_msg(strstr(lit, "],pixels:[\n0,1,2,3,4,5,6,7\n,8,9,") != NULL, "%s", lit);
    ck_assert_msg(decode(lit, n, &a, notes, sizeof notes, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.w, 8);
    ck_assert_int_eq(a.h, 4);
    ck_assert_int_eq(a.ncolors, 16);
    ck_assert_int_eq(memcmp(a.rgb, sc.rgb, 48), 0);
    ck_assert_int_eq(memcmp(a.px, sc.px, 32), 0);
    check_cc_ranges(&a, 1);
    ck_assert_msg(strstr(notes, "2 sine-wave cycles") != NULL, "%s", notes);
    /* sim_cycle_from_bytes recognises it. */
    ck_assert_msg(sim_cycle_from_bytes((const uint8_t *)lit, n, &b, NULL, 0, err, sizeof err) == 0, "%s", err);
    same_scene(&a, &b, "from_bytes");
    sim_cycle_scene_free(&b);

    /* Every other way of writing the same scene. */
    tbuf t = { 0 };
    const char *body = lit + 1;                        /* after the opening brace */
    int inner = (int)n - 3;                            /* and before the closing "}\n" */
    struct { const char *name; const char *pre, *post; } wraps[] = {
        { "image.php's JSONP", "CanvasCycle.processImage({", ");\n" },
        { "a call without ';'", "f({", ")" },
        { "an assignment", "var scene = {", ";\n" },
        { "a bare assignment", "window.CanvasCycle.img={", "" },
        { "comments and a BOM", "\xEF\xBB\xBF// V08: Mark Ferrari\n/* lbm2json */ cb ( {", " ) ; // end\n" },
    };
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        t.n = 0;
        tb_add(&t, "%s%.*s}%s", wraps[w].pre, inner, body, wraps[w].post);
        ck_assert_msg(decode(t.s, t.n, &b, NULL, 0, err, sizeof err) == 0, "%s: %s", wraps[w].name, err);
        same_scene(&a, &b, wraps[w].name);
        sim_cycle_scene_free(&b);
        ck_assert_msg(sim_cycle_from_bytes((const uint8_t *)t.s, t.n, &b, NULL, 0, err, sizeof err) == 0,
                      "%s via from_bytes: %s", wraps[w].name, err);
        same_scene(&a, &b, wraps[w].name);
        sim_cycle_scene_free(&b);
    }
    /* Strict JSON, keys in double quotes; single-quoted keys; trailing commas; CRLF; a colour
     * with a trailing comma; spaces everywhere. */
    static const char *const respell[][2] = {
        { "filename:", "\"filename\":" }, { "width:", "\"width\":" }, { "height:", "\"height\":" },
        { "colors:", "\"colors\":" }, { "cycles:", "\"cycles\":" }, { "pixels:", "\"pixels\":" },
        { "reverse:", "\"reverse\":" }, { "rate:", "\"rate\":" }, { "low:", "\"low\":" },
        { "high:", "\"high\":" }, { "'V08.LBM'", "\"V08.LBM\"" },
    };
    for (int style = 0; style < 4; style++) {
        t.n = 0;
        for (const char *p = lit; *p;) {
            size_t k = 0;
            for (; k < sizeof respell / sizeof respell[0]; k++)
                if (strncmp(p, respell[k][0], strlen(respell[k][0])) == 0) break;
            if (k < sizeof respell / sizeof respell[0] && style != 2) {
                const char *to = respell[k][1];
                if (style == 1 && to[0] == '"' && k < 10) tb_add(&t, "'%.*s':", (int)strlen(respell[k][0]) - 1, p);
                else tb_add(&t, "%s", style == 3 ? respell[k][0] : to);
                p += strlen(respell[k][0]);
            } else if (style == 2 && (*p == ']' || *p == '}')) {
                tb_add(&t, ",%c", *p++);                /* a trailing comma before every close */
            } else if (style == 3 && *p == '\n') {
                tb_add(&t, " \r\n\t");
                p++;
            } else if (style == 3 && *p == ',') {
                tb_add(&t, " , ");
                p++;
            } else {
                tb_add(&t, "%c", *p++);
            }
        }
        static const char *const mark[] = { "\"pixels\":[", "'pixels':[", ",],cycles:[{", " \r\n\t , 8" };
        ck_assert_msg(strstr(t.s, mark[style]) != NULL, "style %d: %.300s", style, t.s);
        ck_assert_msg(decode(t.s, t.n, &b, NULL, 0, err, sizeof err) == 0, "style %d: %s\n%.300s", style, err, t.s);
        same_scene(&a, &b, "respelt");
        sim_cycle_scene_free(&b);
    }
    /* The file can say BlendShift is off, or choose a cycle's mode. */
    t.n = 0;
    tb_add(&t, "{blendShift:false,%s", body);
    ck_assert_msg(decode(t.s, t.n, &b, NULL, 0, err, sizeof err) == 0, "%s", err);
    check_cc_ranges(&b, 0);
    sim_cycle_scene_free(&b);
    char *m = strstr(lit, "{reverse:0,rate:1536");
    ck_assert_ptr_nonnull(m);
    t.n = 0;
    tb_add(&t, "%.*s{mode:'standard',%s", (int)(m - lit), lit, m + 1);
    ck_assert_msg(decode(t.s, t.n, &b, NULL, 0, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(b.ranges[0].mode, SIM_CYCLE_STANDARD);
    ck_assert_int_eq(b.ranges[1].mode, SIM_CYCLE_BLEND);
    sim_cycle_scene_free(&b);
    free(t.s);
    free(lit);
    sim_cycle_scene_free(&a);
    sim_cycle_scene_free(&sc);
}
END_TEST

/* Our own files play by the clock they say: the JSON writer's, read back from a scene imported
 * from ILBM, is the ILBM import state for state (CRNG timing), and a Canvas Cycle scene through
 * each writer (JSON, ILBM, PBM) and back is the same scene, its sine swings, Canvas Cycle rates,
 * BlendShift and an inactive range's rate included. */
START_TEST(our_files_round_trip_by_their_timing)
{
    const int w = 37, h = 11, ncol = 20;
    const char *ppm = cyc_tmp("j.ppm"), *lbm = cyc_tmp("j.lbm");
    uint8_t *rgb = cyc_write_ppm(ppm, w, h, ncol);
    char cmd[512], err[256], notes[256];
    snprintf(cmd, sizeof cmd, "ppmtoilbm %s > %s 2>/dev/null", ppm, lbm);
    ck_assert_int_eq(system(cmd), 0);
    size_t len;
    uint8_t *iff = cyc_slurp(lbm, &len);
    uint8_t c[8];
    cyc_crng(c, 8192, 1, 2, 9);
    iff = cyc_append_chunk(iff, &len, "CRNG", c, 8);
    cyc_crng(c, 2048, 3, 10, 19);
    iff = cyc_append_chunk(iff, &len, "CRNG", c, 8);
    sim_cycle_scene a, b;
    ck_assert_msg(sim_cycle_from_ilbm(iff, len, &a, NULL, 0, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(a.timing, SIM_CYCLE_TIMING_CRNG);
    size_t nj = sim_cycle_to_ccjson(&a, "j.LBM", NULL, 0);
    char *json = malloc(nj + 1);
    sim_cycle_to_ccjson(&a, "j.LBM", (uint8_t *)json, nj);
    json[nj] = '\0';
    ck_assert_msg(strstr(json, "\"timing\":\"crng\"") != NULL, "%.200s", json);
    ck_assert_msg(decode(json, nj, &b, notes, sizeof notes, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(notes, "");
    same_scene(&a, &b, "our JSON");
    for (int i = 0; i < w * h; i++) ck_assert_int_eq(memcmp(&b.rgb[3 * b.px[i]], &rgb[3 * i], 3), 0);
    cyc_memfile fa = { iff, len, 0 }, fb = { (const uint8_t *)json, nj, 0 };
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
    /* A file of ours from before "timing" (crng_rate, no timing key) still plays by CRNG. */
    sim_cycle_scene_free(&b);
    char *tk = strstr(json, ",\"timing\":\"crng\"");
    memmove(tk, tk + 16, strlen(tk + 16) + 1);
    ck_assert_msg(decode(json, strlen(json), &b, NULL, 0, err, sizeof err) == 0, "%s", err);
    same_scene(&a, &b, "our JSON before the timing key");
    sim_cycle_scene_free(&b);
    free(json);

    /* A Canvas Cycle scene, every direction, one range switched off. */
    sim_cycle_scene cc;
    cyc_tiny_scene(&cc, 0, 3, 1536, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    cc.timing = SIM_CYCLE_TIMING_CANVAS;
    cc.nranges = 6;
    cc.ranges[1] = (sim_cycle_range){ 4, 6, 280, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD, 1 };
    cc.ranges[2] = (sim_cycle_range){ 7, 9, 65535, SIM_CYCLE_PINGPONG, SIM_CYCLE_BLEND, 1 };
    cc.ranges[3] = (sim_cycle_range){ 10, 12, 2000, SIM_CYCLE_SINE_HALF, SIM_CYCLE_BLEND, 1 };
    cc.ranges[4] = (sim_cycle_range){ 13, 15, 1, SIM_CYCLE_SINE_FULL, SIM_CYCLE_STANDARD, 1 };
    cc.ranges[5] = (sim_cycle_range){ 0, 15, 4321, SIM_CYCLE_REVERSE, SIM_CYCLE_BLEND, 0 };
    for (int fmt = 0; fmt < 3; fmt++) {
        size_t need = fmt == 2 ? sim_cycle_to_ccjson(&cc, "cc", NULL, 0) : sim_cycle_to_ilbm(&cc, fmt, NULL, 0);
        uint8_t *buf = malloc(need);
        if (fmt == 2) sim_cycle_to_ccjson(&cc, "cc", buf, need);
        else sim_cycle_to_ilbm(&cc, fmt, buf, need);
        ck_assert_msg(sim_cycle_from_bytes(buf, need, &b, notes, sizeof notes, err, sizeof err) == 0,
                      "format %d: %s", fmt, err);
        same_scene(&cc, &b, fmt == 2 ? "Canvas Cycle JSON" : fmt ? "Canvas Cycle PBM" : "Canvas Cycle ILBM");
        if (fmt == 2) {
            /* Canvas Cycle itself reads "rate" (0 for the range that is off) and "reverse". */
            ck_assert_msg(strstr((char *)buf, "{\"reverse\":4,\"rate\":2000,") != NULL, "%.400s", buf);
            ck_assert_msg(strstr((char *)buf, "{\"reverse\":2,\"rate\":0,\"low\":0,\"high\":15,"
                                              "\"active\":false,\"mode\":\"blend\",\"cc_rate\":4321}") != NULL,
                          "%.600s", buf);
        }
        sim_cycle_scene_free(&b);
        free(buf);
    }
    sim_cycle_scene_free(&cc);
    sim_cycle_scene_free(&a);
    free(iff);
    free(rgb);
}
END_TEST

/* Malformed input of every sort: an error naming line and column (or what is missing). */
START_TEST(malformed_json)
{
    static const char *const bad[] = {
        "", " ", "{", "}", "[]", "null", "{\"width\":", "{\"width\":3,}", "{\"width\" 3}",
        "{\"width\":03,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,0,1]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0]],\"pixels\":[0,0,0]}",
        "{\"width\":3,\"height\":1,\"colors\":[[0,0,0,0]],\"pixels\":[0,0,0]}",
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
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0],\"timing\":\"pal\"}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]} trailing",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]}}",
        "{\"filename\":\"unterminated,\"width\":1}",
        "{\"filename\":\"bad \\q escape\"}",
        "{\"filename\":\"bad \\x4 escape\"}",
        "{\"filename\":\"bad \\u12 escape\"}",
        "{\"filename\":\"raw\ncontrol\"}",
        "{\"x\":tru}", "{\"x\":nul}", "{\"x\":truex}", "{\"x\":-}", "{\"x\":1e}", "{\"x\":1.}",
        "{\"x\":[1,,2]}", "{\"x\":[,]}", "{,}", "{\"x\":{,}}",
        "f({\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0]}",
        "{\"width\":1,\"height\":1,\"colors\":[[0,0,0]],\"pixels\":[0,\"a\"]}",
        /* JavaScript's spellings, wrong */
        "{width:1,height:1,colors:[[0,0,0]],pixels:[0],,}",
        "{width:1 height:1}", "{width=1}", "{'width:1}", "{width:'1'}", "{-width:1}",
        "f {width:1}", "f.({width:1})", "var {width:1}", "f(({width:1}))", "f(1)",
        "/* never closed {width:1,height:1,colors:[[0,0,0]],pixels:[0]}",
        "{width:1,height:1,colors:[[0,0,0]],pixels:[0]} /* never closed",
        "{width:1,height:1,colors:[[0,0,0]],pixels:[0]}; f()",
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
    /* The sentences, with the line and column of what was expected. */
    static const char *const said[][2] = {
        { "{\n  \"width\": 1,\n  \"height\": x\n}", "JSON: line 3, column 13: expected a number" },
        { "{width:1,height:x}", "JSON: line 1, column 17: expected a number" },
        { "{width:1,,height:1}", "JSON: line 1, column 10: expected a key (a name, or a string in quotes)" },
        { "{width 1}", "JSON: line 1, column 8: expected ':' after a key" },
        { "{'width:1}", "JSON: line 1, column 11: string is not closed" },
        { "{filename:'a\\qb'}", "JSON: line 1, column 14: bad escape in a string" },
        { "CanvasCycle.processImage({width:1}",
          "JSON: line 1, column 35: the call around the scene is not closed (expected ')')" },
        { "CanvasCycle processImage({})", "JSON: line 1, column 13: expected '(' or '=' after the name "
                                          "before the scene" },
        { "[1]", "JSON: line 1, column 1: expected a Canvas Cycle scene: an object {…}, bare, in a call "
                 "name({…}) or in an assignment name = {…}" },
        { "{a:1}\n/* x", "JSON: line 2, column 1: comment is not closed (no */)" },
        { "{cycles:[{reverse:6}]}", "JSON: line 1, column 20: reverse must be an integer in 0..5" },
        { "{colors:[[1,2,3],[4,5]]}", "JSON: line 1, column 22: a color has three components" },
        { "{width:1,height:1,colors:[[0,0,0]],pixels:[0,]", "JSON: line 1, column 47: expected ',' or '}' after a value" },
        { "{width:1,colors:[[0,0,0]],pixels:[0]}",
          "JSON: a Canvas Cycle scene needs width, height, colors and pixels (missing: height )" },
    };
    for (size_t i = 0; i < sizeof said / sizeof said[0]; i++) {
        int rc = decode(said[i][0], strlen(said[i][0]), &(sim_cycle_scene){ 0 }, NULL, 0, err, sizeof err);
        ck_assert_int_eq(rc, SIM_EFILE);
        ck_assert_str_eq(err, said[i][1]);
    }
    /* …where trailing commas everywhere are a scene, as in JavaScript. */
    const char *commas = "{width:1,height:1,colors:[[0,0,0,],],cycles:[{low:0,high:0,},],pixels:[0,],}";
    sim_cycle_scene one;
    ck_assert_msg(decode(commas, strlen(commas), &one, NULL, 0, err, sizeof err) == 0, "%s", err);
    sim_cycle_scene_free(&one);
    /* Nesting deeper than the limit inside an ignored key: refused, not a stack overflow. */
    size_t depth = 100000, n = 0;
    char *deep = malloc(3 * depth + 64);
    n += (size_t)sprintf(deep, "{deep:");
    for (size_t i = 0; i < depth; i++) n += (size_t)sprintf(deep + n, "%s", i & 1 ? "[" : "{a:");
    ck_assert_int_eq(sim_cycle_from_ccjson((uint8_t *)deep, n, &(sim_cycle_scene){ 0 }, NULL, 0, err,
                                           sizeof err), SIM_EFILE);
    ck_assert_msg(strstr(err, "nested too deeply") != NULL, "%s", err);
    free(deep);
    /* Every prefix of a valid file is refused, ours and lbm2json's. */
    sim_cycle_scene sc;
    cyc_tiny_scene(&sc, 0, 15, 16384, SIM_CYCLE_FORWARD, SIM_CYCLE_BLEND);
    size_t nj = sim_cycle_to_ccjson(&sc, "m", NULL, 0);
    uint8_t *json = malloc(nj);
    sim_cycle_to_ccjson(&sc, "m", json, nj);
    size_t nl;
    char *lit = lbm2json_text("M.LBM", &sc, CYCLES, NCYC, &nl);
    for (int k = 0; k < 2; k++) {
        const uint8_t *file = k ? (const uint8_t *)lit : json;
        size_t full = k ? nl : nj;
        ck_assert_int_eq(cyc_try_decode(file, full, err, sizeof err), 0);
        for (size_t cut = 0; cut + 2 < full; cut++) {      /* the last two bytes are "}\n" */
            uint8_t *p = malloc(cut ? cut : 1);
            memcpy(p, file, cut);
            ck_assert_msg(cyc_try_decode(p, cut, err, sizeof err) != 0, "prefix %zu of %d decoded", cut, k);
            free(p);
        }
    }
    free(lit);
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
    tcase_add_test(fl, lbm2json_object_literal_imports);
    tcase_add_test(fl, our_files_round_trip_by_their_timing);
    tcase_add_test(fl, malformed_json);
    suite_add_tcase(s, fl);
    return s;
}
