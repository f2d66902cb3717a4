/* check_gif.c — replay/gif.c: real worlds' frames go through rpl_gif_*, the file is decoded with
 * giflib and composited as a viewer would (disposal, transparency, local colour tables, rectangle
 * offsets), and every shown frame must be the world's picture at that tick, pixel for pixel, with
 * delays that add up to the real time. Hand-made frames reach the corners: a full 256-colour
 * palette with every colour changing (no index is free for transparency), a palette-only change,
 * unchanged frames, indexes past the palette. ImageMagick must open the file too, when installed. */
#include <check.h>
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check_suites.h"
#include "replay.h"
#include "script.h"
#include "sim.h"

static char dir[64];

static void dir_setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/vivgif.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The frames a run showed, as RGB (unscaled), in order. */
typedef struct shots {
    int w, h, n, cap;
    uint8_t **rgb;
} shots;

static void shots_add(shots *s, const sim_frame *f)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->rgb = realloc(s->rgb, (size_t)s->cap * sizeof *s->rgb);
        ck_assert_ptr_nonnull(s->rgb);
    }
    s->w = f->w;
    s->h = f->h;
    uint8_t *p = malloc((size_t)f->w * f->h * 3);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < (size_t)f->w * f->h; i++) {
        int c = f->px[i] < f->pal.count ? f->px[i] : 0;   /* past the palette reads as 0 */
        memcpy(&p[3 * i], &f->pal.rgb[3 * c], 3);
    }
    s->rgb[s->n++] = p;
}

static void shots_free(shots *s)
{
    for (int i = 0; i < s->n; i++) free(s->rgb[i]);
    free(s->rgb);
    memset(s, 0, sizeof *s);
}

typedef struct decoded {
    int frames, local_maps, cropped, transparent, total_delay;
    long bytes;
} decoded;

/* Decode path and composite it frame by frame, as a browser does, comparing each shown canvas with
 * want's frame at scale. Fails the test at the first differing pixel, naming frame and place. */
static decoded composite_and_compare(const char *path, const shots *want, int scale)
{
    decoded d;
    memset(&d, 0, sizeof d);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    d.bytes = (long)st.st_size;
    int e = 0;
    GifFileType *g = DGifOpenFileName(path, &e);
    ck_assert_msg(g != NULL, "giflib: %s", GifErrorString(e));
    ck_assert_msg(DGifSlurp(g) == GIF_OK, "giflib: %s", GifErrorString(g->Error));
    int W = g->SWidth, H = g->SHeight;
    ck_assert_int_eq(W, want->w * scale);
    ck_assert_int_eq(H, want->h * scale);
    ck_assert_int_eq(g->ImageCount, want->n);
    uint8_t *canvas = calloc((size_t)W * H, 3), *saved = malloc((size_t)W * H * 3);
    ck_assert_ptr_nonnull(canvas);
    ck_assert_ptr_nonnull(saved);
    if (g->SColorMap && g->SBackGroundColor < g->SColorMap->ColorCount) {
        const GifColorType *b = &g->SColorMap->Colors[g->SBackGroundColor];
        for (int i = 0; i < W * H; i++) {
            canvas[3 * i] = b->Red; canvas[3 * i + 1] = b->Green; canvas[3 * i + 2] = b->Blue;
        }
    }
    int prev_disposal = DISPOSAL_UNSPECIFIED, px0 = 0, py0 = 0, pw = 0, ph = 0;
    for (int k = 0; k < g->ImageCount; k++) {
        const SavedImage *im = &g->SavedImages[k];
        const GifImageDesc *id = &im->ImageDesc;
        /* The previous frame's disposal, before this one draws. */
        if (prev_disposal == DISPOSE_BACKGROUND)
            for (int y = py0; y < py0 + ph; y++) memset(&canvas[((size_t)y * W + px0) * 3], 0, (size_t)pw * 3);
        else if (prev_disposal == DISPOSE_PREVIOUS)
            memcpy(canvas, saved, (size_t)W * H * 3);
        GraphicsControlBlock gcb = { DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR };
        DGifSavedExtensionToGCB(g, k, &gcb);
        if (gcb.DisposalMode == DISPOSE_PREVIOUS) memcpy(saved, canvas, (size_t)W * H * 3);
        const ColorMapObject *map = id->ColorMap ? id->ColorMap : g->SColorMap;
        ck_assert_ptr_nonnull(map);
        ck_assert_msg(!id->Interlace, "frame %d is interlaced", k);
        ck_assert_msg(id->Left >= 0 && id->Top >= 0 && id->Left + id->Width <= W &&
                      id->Top + id->Height <= H, "frame %d: rectangle %dx%d+%d+%d outside %dx%d", k,
                      id->Width, id->Height, id->Left, id->Top, W, H);
        for (int y = 0; y < id->Height; y++)
            for (int x = 0; x < id->Width; x++) {
                int v = im->RasterBits[(size_t)y * id->Width + x];
                if (v == gcb.TransparentColor) continue;
                if (v >= map->ColorCount)   /* not ck_assert: each one costs a write to Check's pipe */
                    ck_abort_msg("frame %d: index %d past its %d-colour table", k, v, map->ColorCount);
                uint8_t *c = &canvas[((size_t)(id->Top + y) * W + id->Left + x) * 3];
                c[0] = map->Colors[v].Red; c[1] = map->Colors[v].Green; c[2] = map->Colors[v].Blue;
            }
        const uint8_t *ref = want->rgb[k];
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const uint8_t *c = &canvas[((size_t)y * W + x) * 3];
                const uint8_t *r = &ref[((size_t)(y / scale) * want->w + x / scale) * 3];
                if (memcmp(c, r, 3) != 0)
                    ck_abort_msg("%s frame %d pixel (%d,%d): shown #%02x%02x%02x, the world #%02x%02x%02x",
                              path, k, x, y, c[0], c[1], c[2], r[0], r[1], r[2]);
            }
        d.local_maps += id->ColorMap != NULL;
        d.cropped += id->Width < W || id->Height < H;
        d.transparent += gcb.TransparentColor != NO_TRANSPARENT_COLOR;
        d.total_delay += gcb.DelayTime;
        prev_disposal = gcb.DisposalMode;
        px0 = id->Left; py0 = id->Top; pw = id->Width; ph = id->Height;
    }
    d.frames = g->ImageCount;
    free(canvas);
    free(saved);
    DGifCloseFile(g, &e);
    return d;
}

/* Run a world for `ticks`, a GIF frame every `every` ticks (after the first step, as viv sim
 * does), written through rpl_gif_* at `scale` and kept as RGB in *want. Input lines (`<tick>
 * <input…>`) may be NULL-terminated in inputs. */
static void run_world(const char *kind, uint64_t seed, const char *params, int ticks, int every,
                      int scale, const char *const *inputs, const char *path, shots *want)
{
    sim_world *w = script_world(kind, seed, params);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    char err[256];
    rpl_gif *g = rpl_gif_open(path, f.w, f.h, scale, sim_world_kind(w)->hz, (unsigned)every, err,
                              sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    uint32_t seq = 0;
    for (int t = 0; t < ticks; t++) {
        for (const char *const *l = inputs; l && *l; l++) {
            if (strtol(*l, NULL, 10) != t) continue;
            sim_input in;
            ck_assert_msg(sim_input_parse_line(sim_world_kind(w), *l, &in, err, sizeof err) == 0, "%s", err);
            in.seq = ++seq;
            ck_assert_msg(sim_world_input(w, &in) == 0, "%s", sim_world_error(w));
        }
        sim_world_step(w);
        if (t % every != 0) continue;
        sim_world_render(w, 0, &f);
        ck_assert_msg(rpl_gif_frame(g, &f) == 0, "%s", rpl_gif_error(g));
        shots_add(want, &f);
    }
    ck_assert_uint_eq(rpl_gif_frames(g), (uint64_t)want->n);
    ck_assert_msg(rpl_gif_close(g, err, sizeof err) == 0, "%s", err);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

/* The delays add up to the real time of the frames, to the centisecond (rounded down). */
static void assert_real_time(const decoded *d, int frames, int every, unsigned hz)
{
    ck_assert_int_eq(d->total_delay, (int)((uint64_t)frames * (uint64_t)every * 100 / hz));
}

static const char *path_in(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

START_TEST(sand_demo_shows_the_worlds_frames)
{
    static const char *const inputs[] = { "60 paint 100 40 6 water", "150 explode 160 120 10",
                                          "200 erase 60 150 8", NULL };
    shots want = { 0 };
    const char *gif = path_in("sand.gif");
    run_world("sand", 1, NULL, 400, 2, 2, inputs, gif, &want);
    decoded d = composite_and_compare(gif, &want, 2);
    assert_real_time(&d, want.n, 2, 60);
    ck_assert_int_eq(d.frames, 200);
    ck_assert_int_ge(d.cropped, d.frames - 2);       /* sand falls in part of the frame */
    ck_assert_int_ge(d.transparent, d.frames / 2);
    /* The whole run costs less than 1/20 of its frames' pixels: deltas, not pictures. */
    long raw = (long)want.n * want.w * want.h * 4;
    ck_assert_msg(d.bytes * 20 < raw, "%ld bytes for %ld pixels", d.bytes, raw);
    shots_free(&want);
}
END_TEST

START_TEST(terrarium_shows_the_worlds_frames)
{
    static const char *const inputs[] = { "40 spawn 1 200 60", "120 shove 0 0 60 -40", NULL };
    shots want = { 0 };
    const char *gif = path_in("terra.gif");
    run_world("terrarium", 3, NULL, 240, 1, 1, inputs, gif, &want);
    decoded d = composite_and_compare(gif, &want, 1);
    assert_real_time(&d, want.n, 1, 40);
    ck_assert_int_ge(d.cropped, d.frames / 2);
    shots_free(&want);
}
END_TEST

/* Palette cycling changes the colours, not the indexes: the frames must still show the new colours
 * (a local table), and only the pixels whose colour cycled need writing. */
START_TEST(cycle_palette_changes_show)
{
    static const char *const scenes[] = { "scene=waterfall", "scene=fire", "scene=dusk" };
    for (int i = 0; i < 3; i++) {
        shots want = { 0 };
        const char *gif = path_in("cycle.gif");
        run_world("cycle", 1, scenes[i], 240, 2, 2, NULL, gif, &want);
        int palette_changed = 0;
        for (int k = 1; k < want.n; k++)
            palette_changed |= memcmp(want.rgb[k], want.rgb[0], (size_t)want.w * want.h * 3) != 0;
        ck_assert_msg(palette_changed, "%s: the colours never change", scenes[i]);
        decoded d = composite_and_compare(gif, &want, 2);
        assert_real_time(&d, want.n, 2, 60);
        ck_assert_msg(d.local_maps > 0, "%s: no frame carries its palette", scenes[i]);
        shots_free(&want);
    }
}
END_TEST

/* Hand-made frames for the corners. */
static void fill_palette(sim_frame *f, int count, int shift)
{
    f->pal.count = (uint16_t)count;
    for (int i = 0; i < count; i++) {
        f->pal.rgb[3 * i] = (uint8_t)(i + shift);
        f->pal.rgb[3 * i + 1] = (uint8_t)(255 - i);
        f->pal.rgb[3 * i + 2] = (uint8_t)(i * 7 + shift);
    }
}

START_TEST(corner_cases_show_exactly)
{
    const int W = 32, H = 16, N = 12;
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, W, H), 0);
    char err[256];
    const char *gif = path_in("corners.gif");
    rpl_gif *g = rpl_gif_open(gif, W, H, 3, 60, 1, err, sizeof err);
    ck_assert_msg(g != NULL, "%s", err);
    shots want = { 0 };
    for (int k = 0; k < N; k++) {
        switch (k) {
        case 0:   /* 256 colours, every one on screen */
            fill_palette(&f, 256, 0);
            for (int i = 0; i < W * H; i++) f.px[i] = (uint8_t)i;
            break;
        case 1:   /* every pixel changes to another index: no index is free for transparency */
            for (int i = 0; i < W * H; i++) f.px[i] = (uint8_t)(i + 1);
            break;
        case 2: case 3:   /* nothing changes */
            break;
        case 4:   /* one pixel */
            f.px[5 * W + 7] ^= 0x55;
            break;
        case 5:   /* the palette only: every colour shifts, no index moves */
            fill_palette(&f, 256, 9);
            break;
        case 6:   /* a small palette, indexes past it (they read as 0) */
            fill_palette(&f, 5, 1);
            for (int i = 0; i < W * H; i++) f.px[i] = (uint8_t)(i % 7);
            break;
        case 7:   /* one colour of the small palette changes */
            f.pal.rgb[3 * 2] ^= 0xff;
            break;
        case 8:   /* back to the first palette, a band of change */
            fill_palette(&f, 256, 0);
            for (int x = 0; x < W; x++) f.px[8 * W + x] = (uint8_t)(x * 3);
            break;
        default:  /* a moving block */
            for (int y = 0; y < 4; y++)
                for (int x = 0; x < 4; x++) f.px[(y + k) * W + x + 2 * k] = (uint8_t)(200 + k);
            break;
        }
        ck_assert_msg(rpl_gif_frame(g, &f) == 0, "%s", rpl_gif_error(g));
        shots_add(&want, &f);
    }
    ck_assert_msg(rpl_gif_close(g, err, sizeof err) == 0, "%s", err);
    decoded d = composite_and_compare(gif, &want, 3);
    assert_real_time(&d, N, 1, 60);
    ck_assert_int_ge(d.local_maps, 2);
    shots_free(&want);
    sim_frame_free(&f);
}
END_TEST

static int have(const char *tool)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

START_TEST(imagemagick_opens_it)
{
    if (!have("identify") || !have("convert")) {
        fprintf(stderr, "check_gif: ImageMagick not installed, skipping (scripts/deps.sh installs it)\n");
        return;
    }
    shots want = { 0 };
    const char *gif = path_in("im.gif"), *png = path_in("im10.png"), *list = path_in("im.txt");
    run_world("sand", 1, NULL, 120, 2, 2, NULL, gif, &want);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "identify '%s' > '%s' 2>&1", gif, list);
    ck_assert_int_eq(system(cmd), 0);
    FILE *fp = fopen(list, "r");
    ck_assert_ptr_nonnull(fp);
    int lines = 0, c;
    while ((c = fgetc(fp)) != EOF) lines += c == '\n';
    fclose(fp);
    ck_assert_int_eq(lines, want.n);
    snprintf(cmd, sizeof cmd, "convert '%s[10]' '%s' 2>/dev/null", gif, png);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(access(png, R_OK), 0);
    /* Coalesced as a whole, the frame ImageMagick builds is the world's picture too. */
    snprintf(cmd, sizeof cmd, "convert '%s' -coalesce -delete 0-9,11--1 -depth 8 rgb:'%s' 2>/dev/null", gif,
             list);
    ck_assert_int_eq(system(cmd), 0);
    fp = fopen(list, "rb");
    ck_assert_ptr_nonnull(fp);
    size_t n = (size_t)want.w * 2 * want.h * 2 * 3;
    uint8_t *rgb = malloc(n);
    ck_assert_uint_eq(fread(rgb, 1, n, fp), n);
    fclose(fp);
    for (int y = 0; y < want.h * 2; y++)
        for (int x = 0; x < want.w * 2; x++)
            if (memcmp(&rgb[((size_t)y * want.w * 2 + x) * 3],
                       &want.rgb[10][((size_t)(y / 2) * want.w + x / 2) * 3], 3) != 0)
                ck_abort_msg("ImageMagick's frame 10 differs at (%d,%d)", x, y);
    free(rgb);
    shots_free(&want);
}
END_TEST

Suite *suite_gif(void)
{
    Suite *s = suite_create("gif");
    TCase *tc = tcase_create("gif");
    tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sand_demo_shows_the_worlds_frames);
    tcase_add_test(tc, terrarium_shows_the_worlds_frames);
    tcase_add_test(tc, cycle_palette_changes_show);
    tcase_add_test(tc, corner_cases_show_exactly);
    tcase_add_test(tc, imagemagick_opens_it);
    suite_add_tcase(s, tc);
    return s;
}
