/* check_webp.c — replay/webp.c and `rpl_export`'s --webp: a recorded session is exported as an
 * animated WebP, decoded frame by frame with libwebp's own WebPAnimDecoder, and every frame shown
 * is re-indexed through the world's palette into a sim_frame whose sim_frame_hash must be the
 * frame hash recorded for its tick. A frame the encoder merged into the one before (no change)
 * covers exactly the ticks whose start times fall inside it, so each tick is checked once and the
 * timestamps must add up to the real time. Hand-made frames reach the corners: merged runs of
 * identical frames, a palette-only change, indexes past the palette, bad sizes and paths. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <webp/demux.h>
#include "check_suites.h"
#include "read.h"
#include "replay.h"
#include "script.h"
#include "sim.h"

#define TICKS 240
#define CP_EVERY 60

static char dir[64];

static void dir_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/vivwebp.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

static const char *tmp(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* One recorded sand session through the real recorder (a paint of water every 25 ticks from tick
 * 10, then nothing from tick 150 on, so that the water settles), as viv sim --record writes it. */
static void record_session(const char *path)
{
    char err[512];
    rpl_rec_config rc = { 0 };
    rc.path = path;
    rpl_recorder *r = rpl_recorder_open(&rc, err, sizeof err);
    ck_assert_msg(r != NULL, "recorder: %s", err);
    sim_world *w = script_world("sand", 5, NULL);
    ck_assert_ptr_nonnull(w);
    int64_t id = rpl_recorder_begin(r, w, "viv sim", -1, CP_EVERY, err, sizeof err);
    ck_assert_msg(id == 1, "begin: %s", err);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t cap = sim_world_save_max(w);
    uint8_t *cp = malloc(cap);
    uint32_t seq = 0;
    for (uint64_t t = 0; t < TICKS; t++) {
        sim_input in;
        size_t nin = 0;
        if (t % 25 == 10 && t < 150) {
            char line[80];
            snprintf(line, sizeof line, "%llu paint %d 10 3 water", (unsigned long long)t,
                     (int)(8 + t % 40));
            ck_assert_int_eq(sim_input_parse_line(sim_world_kind(w), line, &in, err, sizeof err), 0);
            in.client = 0;
            in.seq = ++seq;
            ck_assert_msg(sim_world_input(w, &in) == 0, "%s", sim_world_error(w));
            nin = 1;
        }
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        size_t len = (t + 1) % CP_EVERY == 0 ? sim_world_save(w, cp, cap) : 0;
        ck_assert_int_eq(rpl_recorder_tick(r, id, t, nin ? &in : NULL, nin, sim_world_hash(w),
                                           sim_frame_hash(&f), len ? cp : NULL, len), 0);
    }
    rpl_recorder_end(r, id);
    ck_assert_int_eq(rpl_recorder_close(r), 0);
    free(cp);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

static int export_webp(const char *db, const char *out, uint64_t from, uint64_t to, uint64_t every,
                       int scale, rpl_export_result *r, char *err, size_t errlen)
{
    rpl_file *f = NULL;
    ck_assert_int_eq(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, errlen), 0);
    rpl_export_opts o = rpl_export_defaults();
    o.session = 1;
    o.webp = out;
    o.from = from;
    o.to = to;
    o.every = every;
    o.scale = scale;
    int rc = rpl_export(f, &o, r, err, errlen);
    rpl_close(f);
    return rc;
}

/* A decoded animation: every frame as RGBA with its end time in ms. */
typedef struct anim {
    int w, h, n;
    uint8_t **rgba;
    int *end_ms;
    uint32_t loops;
} anim;

static anim decode(const char *path)
{
    anim a;
    memset(&a, 0, sizeof a);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s", path);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    uint8_t *bytes = malloc((size_t)st.st_size);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
    fclose(fp);
    WebPData data = { bytes, (size_t)st.st_size };
    WebPAnimDecoderOptions opt;
    ck_assert(WebPAnimDecoderOptionsInit(&opt));
    opt.color_mode = MODE_RGBA;
    opt.use_threads = 0;
    WebPAnimDecoder *dec = WebPAnimDecoderNew(&data, &opt);
    ck_assert_msg(dec != NULL, "libwebp cannot decode %s as an animation", path);
    WebPAnimInfo info;
    ck_assert(WebPAnimDecoderGetInfo(dec, &info));
    a.w = (int)info.canvas_width;
    a.h = (int)info.canvas_height;
    a.loops = info.loop_count;
    a.rgba = calloc(info.frame_count, sizeof *a.rgba);
    a.end_ms = calloc(info.frame_count, sizeof *a.end_ms);
    size_t bytes_per = (size_t)a.w * a.h * 4;
    while (WebPAnimDecoderHasMoreFrames(dec)) {
        uint8_t *buf;
        int ts;
        ck_assert_msg(WebPAnimDecoderGetNext(dec, &buf, &ts), "%s: frame %d does not decode", path, a.n);
        ck_assert_int_lt(a.n, (int)info.frame_count);
        a.rgba[a.n] = malloc(bytes_per);
        memcpy(a.rgba[a.n], buf, bytes_per);
        a.end_ms[a.n++] = ts;
    }
    ck_assert_int_eq(a.n, (int)info.frame_count);
    WebPAnimDecoderDelete(dec);
    free(bytes);
    return a;
}

static void anim_free(anim *a)
{
    for (int i = 0; i < a->n; i++) free(a->rgba[i]);
    free(a->rgba);
    free(a->end_ms);
}

/* Decoded RGBA (scaled by `scale`) back to palette indexes of pal, into f (w×h). Each scale×scale
 * block must be one opaque colour of the palette (the first index with that colour). */
static void reindex(const uint8_t *rgba, int scale, const sim_palette *pal, sim_frame *f, int k)
{
    int W = f->w * scale;
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            const uint8_t *c = &rgba[((size_t)y * scale * W + (size_t)x * scale) * 4];
            for (int dy = 0; dy < scale; dy++)
                for (int dx = 0; dx < scale; dx++)
                    if (memcmp(&rgba[((size_t)(y * scale + dy) * W + x * scale + dx) * 4], c, 4) != 0)
                        ck_abort_msg("frame %d: the %dx%d block at (%d,%d) is not one colour", k, scale,
                                     scale, x, y);
            if (c[3] != 255) ck_abort_msg("frame %d pixel (%d,%d): alpha %d", k, x, y, c[3]);
            int i = 0;
            while (i < pal->count && memcmp(&pal->rgb[3 * i], c, 3) != 0) i++;
            if (i == pal->count)
                ck_abort_msg("frame %d pixel (%d,%d): #%02x%02x%02x is not in the palette", k, x, y,
                             c[0], c[1], c[2]);
            f->px[(size_t)y * f->w + x] = (uint8_t)i;
        }
}

/* Export ticks from..to every `every` at `scale`, decode, and check every tick's frame against
 * its recorded frame hash; returns the number of frames the file holds. */
static int check_export(const char *db, uint64_t from, uint64_t to, uint64_t every, int scale)
{
    const char *out = tmp("out.webp");
    char err[512];
    rpl_export_result r;
    ck_assert_msg(export_webp(db, out, from, to, every, scale, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.mismatched, 0);
    ck_assert_uint_eq(r.every, every);
    ck_assert_uint_eq(r.first, from);
    uint64_t nticks = (to - from) / every + 1;
    ck_assert_uint_eq(r.frames, nticks);

    /* The world's palette (sand's is fixed) and its hashes as recorded. */
    sim_world *w = script_world("sand", 5, NULL);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    for (int i = 1; i < f.pal.count; i++)   /* re-indexing needs each colour once */
        for (int j = 0; j < i; j++)
            ck_assert_msg(memcmp(&f.pal.rgb[3 * i], &f.pal.rgb[3 * j], 3) != 0, "colours %d, %d", i, j);
    rpl_file *rf = NULL;
    ck_assert_int_eq(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &rf, err, sizeof err), 0);
    rpl_tick_row *rows = NULL;
    size_t nrows = 0;
    ck_assert_int_eq(rpl_ticks_load(rf, 1, from, to, &rows, &nrows, err, sizeof err), 0);
    rpl_close(rf);

    anim a = decode(out);
    ck_assert_int_eq(a.w, f.w * scale);
    ck_assert_int_eq(a.h, f.h * scale);
    ck_assert_uint_eq(a.loops, 0);
    ck_assert_int_le(a.n, (int)nticks);
    /* Decoded frame k covers [end_ms[k-1], end_ms[k]); tick number j starts at j·every·1000/60. */
    uint64_t j = 0, hashed = 0;
    int prev_end = 0;
    for (int k = 0; k < a.n; k++) {
        ck_assert_msg(a.end_ms[k] > prev_end, "frame %d ends at %d ms, the one before at %d", k,
                      a.end_ms[k], prev_end);
        reindex(a.rgba[k], scale, &f.pal, &f, k);
        uint64_t hash = sim_frame_hash(&f);
        int covered = 0;
        for (; j < nticks && (int)(j * every * 1000 / 60) < a.end_ms[k]; j++) {
            ck_assert_msg((int)(j * every * 1000 / 60) >= prev_end, "tick %llu starts before frame %d",
                          (unsigned long long)(from + j * every), k);
            uint64_t t = from + j * every;
            covered++;
            for (size_t i = 0; i < nrows; i++)
                if (rows[i].tick == t) {
                    ck_assert_msg(!rpl_hash_differs(rows[i].frame_hash, hash, rows[i].bits),
                                  "tick %llu (WebP frame %d): frame hash "
                                  "%016llx, recorded %016llx", (unsigned long long)t, k,
                                  (unsigned long long)hash, (unsigned long long)rows[i].frame_hash);
                    hashed++;
                }
        }
        ck_assert_msg(covered > 0, "WebP frame %d (%d..%d ms) shows no tick", k, prev_end, a.end_ms[k]);
        prev_end = a.end_ms[k];
    }
    ck_assert_uint_eq(j, nticks);                    /* every tick shown */
    ck_assert_int_eq(prev_end, (int)(nticks * every * 1000 / 60));   /* the real time, to the ms */
    ck_assert_uint_ge(hashed, nticks - (from == 0));  /* each has a recorded hash (tick 0 may not) */
    int n = a.n;
    anim_free(&a);
    free(rows);
    sim_frame_free(&f);
    sim_world_destroy(w);
    return n;
}

START_TEST(webp_export_shows_every_recorded_frame)
{
    const char *db = tmp("run.db");
    record_session(db);
    /* Every tick, whole session: once the water has settled, frames repeat and are merged. */
    int n = check_export(db, 0, TICKS, 1, 1);
    ck_assert_int_gt(n, 1);
    /* A range every 3 ticks, scaled 3×. */
    check_export(db, 30, 180, 3, 3);
}
END_TEST

START_TEST(webp_export_default_every_and_errors)
{
    const char *db = tmp("run.db");
    char err[512];
    rpl_export_result r;
    record_session(db);
    /* Without --every, WebP keeps every tick at 60 Hz (16.7 ms a frame, over the 10 ms browsers
     * slow down); with a GIF in the same export, the GIF's 2/100 s wins for both. */
    ck_assert_msg(export_webp(db, tmp("a.webp"), 0, 20, 0, 1, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.every, 1);
    ck_assert_uint_eq(r.frames, 21);
    rpl_file *f = NULL;
    ck_assert_int_eq(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err), 0);
    rpl_export_opts o = rpl_export_defaults();
    o.session = 1;
    o.webp = tmp("b.webp");
    o.gif = tmp("b.gif");
    o.to = 20;
    ck_assert_msg(rpl_export(f, &o, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(r.every, 2);
    anim a = decode(o.webp);
    ck_assert_int_eq(a.end_ms[a.n - 1], 11 * 2 * 1000 / 60);
    anim_free(&a);
    /* A directory that does not exist: a sentence, and nothing left behind. */
    o.gif = NULL;
    o.webp = tmp("no/such/dir/c.webp");
    ck_assert_int_eq(rpl_export(f, &o, &r, err, sizeof err), RPL_EIMAGE);
    ck_assert_msg(strstr(err, "no/such/dir/c.webp.tmp") && strstr(err, "No such file"), "%s", err);
    rpl_close(f);
    /* Too big for WebP: 64×48 at 16 is fine, MMPX 4 at 16 is 4096×3072: still fine; the limit is
     * 16383 a side, reached by the writer's own check. */
    ck_assert_ptr_null(rpl_webp_open(tmp("d.webp"), 2000, 10, 9, 60, 1, err, sizeof err));
    ck_assert_msg(strstr(err, "16383"), "%s", err);
    ck_assert_ptr_null(rpl_webp_open(tmp("d.webp"), 10, 10, 1, 2000, 1, err, sizeof err));
    ck_assert_int_ne(access(tmp("d.webp"), F_OK), 0);
}
END_TEST

/* Hand-made frames: runs of identical ones are merged with their durations added; a change of
 * palette alone is a new frame; an index past the palette shows colour 0. */
START_TEST(identical_frames_merge_and_keep_their_time)
{
    char err[512];
    const char *path = tmp("hand.webp");
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 5, 4), 0);
    f.pal.count = 3;
    const uint8_t pal[9] = { 10, 20, 30, 200, 100, 50, 0, 255, 0 };
    memcpy(f.pal.rgb, pal, sizeof pal);
    rpl_webp *g = rpl_webp_open(path, 5, 4, 2, 60, 1, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    /* A A A B B C: B paints a pixel, C only changes colour 1, and pixel 0 holds index 7. */
    memset(f.px, 1, 20);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(rpl_webp_frame(g, &f), 0);
    f.px[7] = 2;
    for (int i = 0; i < 2; i++) ck_assert_int_eq(rpl_webp_frame(g, &f), 0);
    f.pal.rgb[3] = 201;
    f.px[0] = 7;
    ck_assert_int_eq(rpl_webp_frame(g, &f), 0);
    ck_assert_uint_eq(rpl_webp_frames(g), 6);
    ck_assert_msg(rpl_webp_close(g, err, sizeof err) == 0, "%s", err);
    anim a = decode(path);
    ck_assert_int_eq(a.w, 10);
    ck_assert_int_eq(a.h, 8);
    ck_assert_int_eq(a.n, 3);
    ck_assert_int_eq(a.end_ms[0], 50);                /* 3 ticks at 60 Hz */
    ck_assert_int_eq(a.end_ms[1], 83);                /* 5: 83.3 ms, floored */
    ck_assert_int_eq(a.end_ms[2], 100);
    const uint8_t *p = a.rgba[1];
    int x7 = 7 % 5 * 2, y7 = 7 / 5 * 2;
    ck_assert_int_eq(memcmp(&p[(y7 * 10 + x7) * 4], "\x00\xff\x00\xff", 4), 0);
    ck_assert_int_eq(memcmp(&p[0], "\xc8\x64\x32\xff", 4), 0);
    p = a.rgba[2];
    ck_assert_int_eq(memcmp(&p[0], "\x0a\x14\x1e\xff", 4), 0);          /* 7 reads as colour 0 */
    ck_assert_int_eq(memcmp(&p[(0 * 10 + 2) * 4], "\xc9\x64\x32\xff", 4), 0);
    anim_free(&a);
    /* A frame of another size is refused; nothing is written by abort. */
    g = rpl_webp_open(tmp("e.webp"), 4, 4, 1, 60, 1, err, sizeof err);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(rpl_webp_frame(g, &f), RPL_EIMAGE);
    ck_assert_msg(strstr(rpl_webp_error(g), "5x4"), "%s", rpl_webp_error(g));
    rpl_webp_abort(g);
    ck_assert_int_ne(access(tmp("e.webp"), F_OK), 0);
    sim_frame_free(&f);
}
END_TEST

/* viv sim --webp: the run's animation, each frame the one whose hash viv sim printed for its tick
 * (a frame of every tick here, so identical neighbours merge and must keep their time). */
START_TEST(viv_sim_webp_shows_the_frames_it_hashes)
{
    const char *bin = getenv("VIV_BIN");
    char cmd[1024];
    const char *out = tmp("sim.webp"), *chain = tmp("sim.chain");
    snprintf(cmd, sizeof cmd, "'%s/viv' sim --world sand --seed 5 --ticks 40 --every 1 --render-all "
             "--webp '%s' --gif-every 1 > '%s'", bin ? bin : "../bin", out, chain);
    ck_assert_int_eq(system(cmd), 0);
    uint64_t fh[41] = { 0 };
    FILE *fp = fopen(chain, "r");
    ck_assert_ptr_nonnull(fp);
    unsigned long long t, sh, h;
    int lines = 0;
    while (fscanf(fp, "%llu %llx %llx", &t, &sh, &h) == 3) {
        ck_assert_uint_le(t, 40);
        fh[t] = h;
        lines++;
    }
    fclose(fp);
    ck_assert_int_eq(lines, 40);
    sim_world *w = script_world("sand", 5, NULL);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    anim a = decode(out);
    ck_assert_int_eq(a.w, f.w);
    ck_assert_int_eq(a.h, f.h);
    /* Frame k covers [end_ms[k-1], end_ms[k]); the frame of tick j (1..40) starts at (j-1)·1000/60. */
    int j = 1, prev_end = 0;
    for (int k = 0; k < a.n; k++) {
        reindex(a.rgba[k], 1, &f.pal, &f, k);
        uint64_t hash = sim_frame_hash(&f);
        int covered = 0;
        for (; j <= 40 && (j - 1) * 1000 / 60 < a.end_ms[k]; j++, covered++)
            ck_assert_msg(fh[j] == hash, "tick %d (WebP frame %d): frame hash %016llx, viv sim printed %016llx",
                          j, k, (unsigned long long)hash, (unsigned long long)fh[j]);
        ck_assert_msg(covered > 0, "WebP frame %d shows no tick", k);
        prev_end = a.end_ms[k];
    }
    ck_assert_int_eq(j, 41);
    ck_assert_int_eq(prev_end, 40 * 1000 / 60);
    anim_free(&a);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

Suite *suite_webp(void)
{
    Suite *s = suite_create("webp");
    TCase *tc = tcase_create("webp");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, webp_export_shows_every_recorded_frame);
    tcase_add_test(tc, webp_export_default_every_and_errors);
    tcase_add_test(tc, identical_frames_merge_and_keep_their_time);
    tcase_add_test(tc, viv_sim_webp_shows_the_frames_it_hashes);
    suite_add_tcase(s, tc);
    return s;
}
