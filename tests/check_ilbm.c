/* check_ilbm.c — the IFF ILBM/PBM importer and exporter (sim/cycle/ilbm.c): files written by
 * netpbm's ppmtoilbm with our CRNG and CCRT ranges appended, our files read by ilbmtoppm, every
 * chunk truncated at every offset, bad headers, and a Canvas Cycle scene's timing in VIVC. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "check_scene.h"

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
        const char *ppm = cyc_tmp("in.ppm"), *lbm = cyc_tmp("out.lbm");
        uint8_t *rgb = cyc_write_ppm(ppm, w, h, cases[k].ncol);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "ppmtoilbm %s %s > %s 2>/dev/null", cases[k].opts, ppm, lbm);
        ck_assert_msg(system(cmd) == 0, "ppmtoilbm failed (is netpbm installed? scripts/deps.sh)");
        size_t len;
        uint8_t *buf = cyc_slurp(lbm, &len);
        uint8_t c[14];
        int top = cases[k].ncol - 1;
        cyc_crng(c, 8192, 1, 0, top);                          /* active, forward */
        buf = cyc_append_chunk(buf, &len, "CRNG", c, 8);
        cyc_crng(c, 16384, 3, 1, top > 3 ? 3 : top);           /* active, reverse */
        buf = cyc_append_chunk(buf, &len, "CRNG", c, 8);
        cyc_crng(c, 2730, 0, 0, top);                          /* inactive */
        buf = cyc_append_chunk(buf, &len, "CRNG", c, 8);
        /* CCRT: backwards, a step every 1/30 s = 30 steps a second = rate 8192. */
        memset(c, 0, sizeof c);
        c[0] = 0xff; c[1] = 0xff; c[2] = 0; c[3] = (uint8_t)top;
        c[8] = 0; c[9] = 0; c[10] = 0x82; c[11] = 0x35;   /* 33333 µs */
        buf = cyc_append_chunk(buf, &len, "CCRT", c, 14);
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
        cyc_memfile mf = { buf, len, 0 };
        sim_world *wd = cyc_world_files(1, "scene=file:out.lbm", &mf, &rc, err, sizeof err);
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
    sim_world *w = script_world("cycle", 8, "scene=dusk");
    sim_cycle_scene sc;
    ck_assert_int_eq(sim_cycle_world_scene(w, &sc), 0);
    for (int pbm = 0; pbm < 2; pbm++) {
        size_t n = sim_cycle_to_ilbm(&sc, pbm, NULL, 0);
        uint8_t *buf = malloc(n);
        ck_assert_uint_eq(sim_cycle_to_ilbm(&sc, pbm, buf, n), n);
        const char *lbm = cyc_tmp("ours.lbm"), *ppm = cyc_tmp("ours.ppm");
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
        uint8_t *p = cyc_slurp(ppm, &len);
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

/* Every prefix of a valid file, every chunk cut short at every byte (lengths kept consistent),
 * and bad lengths: each an error with a sentence, never a crash (this suite runs under ASan in the
 * sanitizer build). */
START_TEST(truncated_ilbm_every_chunk_every_offset)
{
    char err[256];
    for (int pbm = 0; pbm < 2; pbm++) {
        size_t n;
        uint8_t *buf = cyc_valid_ilbm(&n, pbm);
        ck_assert_int_eq(cyc_try_decode(buf, n, err, sizeof err), 0);
        for (size_t cut = 0; cut < n; cut++) {
            uint8_t *p = malloc(cut ? cut : 1);     /* exactly cut bytes: ASan sees overreads */
            memcpy(p, buf, cut);
            ck_assert_msg(cyc_try_decode(p, cut, err, sizeof err) != 0, "prefix %zu decoded", cut);
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
                ck_assert_msg(cyc_try_decode(p, m, err, sizeof err) != 0, "%s cut to %u bytes decoded", id, k);
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
                ck_assert_int_ne(cyc_try_decode(p, n, err, sizeof err), 0);
                at += 8 + clen + (clen & 1);
            }
            memcpy(p, buf, n);
            p[4] = (uint8_t)(lies[i] >> 24); p[5] = (uint8_t)(lies[i] >> 16);
            p[6] = (uint8_t)(lies[i] >> 8); p[7] = (uint8_t)lies[i];
            ck_assert_int_ne(cyc_try_decode(p, n, err, sizeof err), 0);
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
    uint8_t *buf = cyc_valid_ilbm(&n, 0);
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
        ck_assert_int_ne(cyc_try_decode(p, n, err, sizeof err), 0);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "wanted '%s', got '%s'", cases[i].want, err);
    }
    /* A HAM image (CAMG 0x800), and no CMAP at all. */
    size_t m = n;
    uint8_t camg[4] = { 0, 0, 0x08, 0 };
    uint8_t *q = malloc(n);
    memcpy(q, buf, n);
    q = cyc_append_chunk(q, &m, "CAMG", camg, 4);
    ck_assert_int_ne(cyc_try_decode(q, m, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "HAM") != NULL, "%s", err);
    memcpy(q, buf, n);
    memcpy(q + 40, "XMAP", 4);                        /* the CMAP renamed: an unknown chunk */
    ck_assert_int_ne(cyc_try_decode(q, n, err, sizeof err), 0);
    ck_assert_msg(strstr(err, "no CMAP") != NULL, "%s", err);
    free(q);
    free(p);
    free(buf);
}
END_TEST

/* A Canvas Cycle scene in IFF: CRNG holds Canvas Cycle's rates as they are (lbm2json copied them
 * from CRNG), VIVC its directions, modes and the timing byte (an odd-length chunk, padded), and
 * our reader restores all of it; netpbm, which skips VIVC, still reads the picture. A timing byte
 * other than 1, and a sine direction in a CRNG file, are refused with a sentence. */
static uint8_t *find_id(uint8_t *buf, size_t n, const char *id)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(buf + i, id, 4) == 0) return buf + i;
    return NULL;
}

START_TEST(vivc_carries_canvas_cycle_timing)
{
    sim_cycle_scene sc, back;
    char err[256];
    cyc_tiny_scene(&sc, 0, 5, 2841, SIM_CYCLE_SINE_FULL, SIM_CYCLE_BLEND);
    sc.timing = SIM_CYCLE_TIMING_CANVAS;
    sc.nranges = 2;
    sc.ranges[1] = (sim_cycle_range){ 6, 15, 1536, SIM_CYCLE_REVERSE, SIM_CYCLE_STANDARD, 1 };
    size_t n = sim_cycle_to_ilbm(&sc, 0, NULL, 0);
    uint8_t *buf = malloc(n);
    ck_assert_uint_eq(sim_cycle_to_ilbm(&sc, 0, buf, n), n);
    uint8_t *v = find_id(buf, n, "VIVC"), *c = find_id(buf, n, "CRNG");
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(v[7], 5);                          /* 2 ranges · 2 bytes + the timing byte */
    ck_assert_int_eq(v[8 + 4], SIM_CYCLE_TIMING_CANVAS);
    ck_assert_int_eq(c[8 + 2] << 8 | c[8 + 3], 2841);    /* the rate as Canvas Cycle has it */
    ck_assert_msg(sim_cycle_from_ilbm(buf, n, &back, NULL, 0, err, sizeof err) == 0, "%s", err);
    ck_assert(cyc_scenes_equal(&sc, &back));
    ck_assert_int_eq(back.timing, SIM_CYCLE_TIMING_CANVAS);
    sim_cycle_scene_free(&back);
    const char *lbm = cyc_tmp("cc.lbm"), *ppm = cyc_tmp("cc.ppm");
    FILE *fp = fopen(lbm, "wb");
    ck_assert_uint_eq(fwrite(buf, 1, n, fp), n);
    fclose(fp);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ilbmtoppm %s > %s 2>/dev/null", lbm, ppm);
    ck_assert_int_eq(system(cmd), 0);
    v[8 + 4] = 2;
    ck_assert_int_ne(cyc_try_decode(buf, n, err, sizeof err), 0);
    ck_assert_str_eq(err, "IFF: VIVC gives timing 2 (1 is Canvas Cycle's)");
    free(buf);
    /* The same ranges in a CRNG file: a sine direction has no meaning there. */
    sc.timing = SIM_CYCLE_TIMING_CRNG;
    sc.ranges[0].dir = SIM_CYCLE_PINGPONG;
    n = sim_cycle_to_ilbm(&sc, 1, NULL, 0);
    buf = malloc(n);
    sim_cycle_to_ilbm(&sc, 1, buf, n);
    v = find_id(buf, n, "VIVC");
    ck_assert_int_eq(v[7], 4);
    v[8] = SIM_CYCLE_SINE_FULL;
    ck_assert_int_ne(cyc_try_decode(buf, n, err, sizeof err), 0);
    ck_assert_str_eq(err, "IFF: VIVC gives range 0 direction 4 and mode 1");
    free(buf);
    sim_cycle_scene_free(&sc);
}
END_TEST

Suite *suite_ilbm(void)
{
    Suite *s = suite_create("ilbm");
    TCase *fl = tcase_create("files");
    tcase_set_timeout(fl, 600);
    tcase_add_checked_fixture(fl, NULL, cyc_tmp_teardown);
    tcase_add_test(fl, ilbm_from_ppmtoilbm_round_trip);
    tcase_add_test(fl, ilbm_writer_read_by_ilbmtoppm);
    tcase_add_test(fl, truncated_ilbm_every_chunk_every_offset);
    tcase_add_test(fl, bad_ilbm_headers);
    tcase_add_test(fl, vivc_carries_canvas_cycle_timing);
    suite_add_tcase(s, fl);
    return s;
}
