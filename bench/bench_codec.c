/* bench_codec.c — bytes and time per frame of the frame encodings, on real sand-world frames.
 *
 *   bench_codec [--quick]          (3,600 ticks = 60 s at 60 Hz per scene; --quick: 600)
 *
 * For each scene (the demo, and scene=bench) every tick is stepped, rendered, and encoded as:
 *   raw            the w·h index bytes;
 *   tile key       a tile keyframe of every frame (what a joining client gets), also + zstd -1;
 *   tile delta     the stream: a keyframe first, then a delta against the previous tick;
 *   + zstd -1/-3   each delta message compressed alone (ZSTD_compressCCtx, no dictionary, no
 *                  state between messages), as a stateless per-message option would;
 *   if smaller     the same, but a message keeps its plain form when zstd does not shrink it;
 *   zstd -3 raw    each raw frame compressed alone.
 * Then the frame hash of a rect (what vivd sends with each rect frame): 384×192 rects of a
 * 2048×1024 demo frame on the 64-pixel grid, by sim_frame_hash_rect against the same value
 * computed row by row through XXH3's streaming update (its form before the rows were gathered
 * into pieces), each checked equal.
 * Sizes are the codec's bytes only (no msgpack or length framing). Times are per frame, one core,
 * the fastest of 3 runs of each operation, averaged over the run; an encoding's time includes
 * the tile codec under it. Every decode is checked against the frame, so a wrong codec cannot
 * post a good number.
 *
 * Build by hand (from the top directory, once `make` has built the libraries):
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isim -Iwire bench/bench_codec.c \
 *      build/default/libwire.a build/default/libsim.a $(pkg-config --libs libzstd) \
 *      -o build/default/bench_codec */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "codec.h"
#include "sim.h"
#include "bench.h"

static double now_us(void) { return bench_now() * 1e6; }

static void die(const char *what)
{
    fprintf(stderr, "bench_codec: %s\n", what);
    exit(1);
}

static sim_world *mk(const char *params)
{
    return bench_world("bench_codec", "sand", 1, params);
}

/* Totals for one encoding over a run. */
typedef struct acc {
    double bytes, enc_us, dec_us;
    size_t max_bytes;
} acc;

enum { E_RAW, E_KEY, E_KEYZ1, E_DELTA, E_Z1, E_Z3, E_Z1MIN, E_RAWZ3, E_COUNT };
static const char *const NAMES[E_COUNT] = {
    "raw frame", "tile keyframe (every frame)", "tile keyframe + zstd -1",
    "tile delta (key first)", "tile delta + zstd -1 per message",
    "tile delta + zstd -3 per message", "tile delta + zstd -1 if smaller", "zstd -3 of raw frame",
};

static void add(acc *a, size_t bytes, double enc_us, double dec_us)
{
    a->bytes += (double)bytes;
    a->enc_us += enc_us;
    a->dec_us += dec_us;
    if (bytes > a->max_bytes) a->max_bytes = bytes;
}

/* Each timed operation runs REPS times on the same input and keeps its fastest time, so a
 * preemption or an interrupt on a shared machine does not land in the averages. */
enum { REPS = 3 };

/* zstd one message alone (no dictionary, no state from earlier messages); returns the compressed
 * size, sets the fastest compress and decompress times, and checks the round trip. */
static size_t zstd_one(ZSTD_CCtx *cc, ZSTD_DCtx *dc, int level, const uint8_t *src, size_t n,
                       uint8_t *zbuf, size_t zcap, uint8_t *back, double *enc_us, double *dec_us)
{
    size_t z = 0;
    *enc_us = *dec_us = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        z = ZSTD_compressCCtx(cc, zbuf, zcap, src, n, level);
        double t1 = now_us();
        if (ZSTD_isError(z)) die(ZSTD_getErrorName(z));
        size_t d = ZSTD_decompressDCtx(dc, back, n, zbuf, z);
        double t2 = now_us();
        if (ZSTD_isError(d) || d != n || memcmp(back, src, n) != 0) die("zstd round trip differs");
        if (t1 - t0 < *enc_us) *enc_us = t1 - t0;
        if (t2 - t1 < *dec_us) *dec_us = t2 - t1;
    }
    return z;
}

/* Encode cur (against prev, or a keyframe) into b and decode it onto px (which holds prev);
 * checks the result and sets the fastest encode and decode times. Decoding the same delta again
 * onto its own result is idempotent, so the repetitions see the same input. */
static void tile_one(wire_buf *b, const uint8_t *cur, const uint8_t *prev, uint8_t *px, int w,
                     int h, double *enc_us, double *dec_us)
{
    *enc_us = *dec_us = 1e30;
    for (int r = 0; r < REPS; r++) {
        wire_buf_reset(b);
        double t0 = now_us();
        long len = codec_encode(b, cur, prev, w, h);
        double t1 = now_us();
        int rc = codec_decode(b->p, b->len, px, w, h, prev == NULL);
        double t2 = now_us();
        if (len < 0 || rc != CODEC_OK || memcmp(px, cur, (size_t)w * (size_t)h) != 0)
            die("tile codec round trip failed");
        if (t1 - t0 < *enc_us) *enc_us = t1 - t0;
        if (t2 - t1 < *dec_us) *dec_us = t2 - t1;
    }
}

static void run_scene(const char *label, const char *params, int ticks)
{
    sim_world *w = mk(params);
    sim_frame f;
    if (sim_world_frame_init(w, &f) != 0) die("frame init failed");
    const int fw = f.w, fh = f.h;
    const size_t n = (size_t)fw * (size_t)fh;
    uint8_t *prev = malloc(n), *client = malloc(n), *scratch = malloc(n);
    size_t zcap = ZSTD_compressBound(codec_bound(fw, fh));
    uint8_t *zbuf = malloc(zcap), *back = malloc(codec_bound(fw, fh));
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    if (!prev || !client || !scratch || !zbuf || !back || !cc || !dc) die("out of memory");
    wire_buf key, delta;
    wire_buf_init(&key);
    wire_buf_init(&delta);
    acc a[E_COUNT];
    memset(a, 0, sizeof a);
    int nones = 0;
    const size_t ntiles = (size_t)((fw + CODEC_TILE - 1) / CODEC_TILE) *
                          (size_t)((fh + CODEC_TILE - 1) / CODEC_TILE);
    const size_t nbitmap = (ntiles + 7) / 8;
    double changed = 0, still_us = 1e30;

    for (int t = 0; t < ticks; t++) {
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        add(&a[E_RAW], n, 0, 0);
        double enc, dec, ze, zd;

        /* A keyframe of this frame, as a joining client gets. */
        tile_one(&key, f.px, NULL, scratch, fw, fh, &enc, &dec);
        add(&a[E_KEY], key.len, enc, dec);
        size_t kz = zstd_one(cc, dc, 1, key.p, key.len, zbuf, zcap, back, &ze, &zd);
        add(&a[E_KEYZ1], kz, enc + ze, dec + zd);

        /* The stream: a keyframe first, then deltas against the previous tick. */
        tile_one(&delta, f.px, t ? prev : NULL, client, fw, fh, &enc, &dec);
        add(&a[E_DELTA], delta.len, enc, dec);
        nones += delta.len == 1;
        if (t && delta.p[0] == 1)
            for (size_t i = 0; i < nbitmap; i++)
                for (int k = 0; k < 8; k++) changed += (delta.p[1 + i] >> k) & 1;

        size_t z1 = zstd_one(cc, dc, 1, delta.p, delta.len, zbuf, zcap, back, &ze, &zd);
        add(&a[E_Z1], z1, enc + ze, dec + zd);
        if (z1 < delta.len) add(&a[E_Z1MIN], z1, enc + ze, dec + zd);
        else add(&a[E_Z1MIN], delta.len, enc + ze, dec);
        size_t z3 = zstd_one(cc, dc, 3, delta.p, delta.len, zbuf, zcap, back, &ze, &zd);
        add(&a[E_Z3], z3, enc + ze, dec + zd);

        size_t zr = zstd_one(cc, dc, 3, f.px, n, zbuf, zcap, back, &ze, &zd);
        add(&a[E_RAWZ3], zr, ze, zd);

        /* An unchanged frame: the cost of a world that sleeps. */
        for (int r = 0; r < REPS; r++) {
            wire_buf_reset(&key);
            double t0 = now_us();
            codec_encode(&key, f.px, f.px, fw, fh);
            double dt = now_us() - t0;
            if (dt < still_us) still_us = dt;
        }

        memcpy(prev, f.px, n);
    }

    printf("\n**%s** (`%s`, %dx%d, seed 1, %d ticks; %d of them with no pixel changed)\n\n", label,
           params[0] ? params : "scene=demo", fw, fh, ticks, nones);
    printf("| encoding | avg B/frame | max B | KB/s at 60 Hz | vs raw | encode us/frame | "
           "decode us/frame |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|\n");
    for (int e = 0; e < E_COUNT; e++) {
        double avg = a[e].bytes / ticks;
        char enc[32] = "-", dec[32] = "-";
        if (e != E_RAW) {
            snprintf(enc, sizeof enc, "%.1f", a[e].enc_us / ticks);
            snprintf(dec, sizeof dec, "%.1f", a[e].dec_us / ticks);
        }
        printf("| %s | %.0f | %zu | %.1f | %.2f%% | %s | %s |\n", NAMES[e], avg, a[e].max_bytes,
               avg * 60 / 1000, 100 * avg / (double)n, enc, dec);
    }

    printf("\nTiles changed per delta: %.1f of %zu on average. Delta encode of an unchanged frame "
           "(header 0 only): %.2f us.\n", changed / (ticks - 1), ntiles, still_us);

    wire_buf_free(&key);
    wire_buf_free(&delta);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    free(prev);
    free(client);
    free(scratch);
    free(zbuf);
    free(back);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

/* The rect hash row by row, as sim/frame_hash.h had it: the baseline of rect_hashes. */
static uint64_t rect_hash_rows(const sim_frame *f, int x, int y, int w, int h)
{
    unsigned n = f->pal.count;
    uint8_t head[6] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)h, (uint8_t)(h >> 8), (uint8_t)n,
                        (uint8_t)(n >> 8) };
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, head, sizeof head);
    XXH3_64bits_update(&st, f->pal.rgb, (size_t)n * 3);
    const uint8_t *row = f->px + (size_t)y * f->w + (size_t)x;
    for (int r = 0; r < h; r++, row += f->w) XXH3_64bits_update(&st, row, (size_t)w);
    return XXH3_64bits_digest(&st);
}

static void rect_hashes(int count)
{
    sim_world *w = mk("w=2048,h=1024,scene=demo");
    for (int t = 0; t < 120; t++) sim_world_step(w);
    sim_frame f;
    if (sim_frame_init(&f, 2048, 1024) != 0) die("out of memory");
    sim_world_render(w, 0, &f);
    enum { RW = 384, RH = 192 };
    double best[2] = { 1e30, 1e30 };
    uint64_t sum[2] = { 0, 0 };
    for (int run = 0; run < 3; run++) {
        for (int way = 0; way < 2; way++) {
            uint64_t s = 0;
            double t0 = now_us();
            for (int i = 0; i < count; i++) {
                int x = (int)((unsigned)i * 7919u % ((2048 - RW) / 64 + 1)) * 64;
                int y = (int)((unsigned)i * 104729u % ((1024 - RH) / 64 + 1)) * 64;
                s += way ? sim_frame_hash_rect(&f, x, y, RW, RH) : rect_hash_rows(&f, x, y, RW, RH);
            }
            double us = (now_us() - t0) / count;
            if (us < best[way]) best[way] = us;
            sum[way] = s;
        }
    }
    if (sum[0] != sum[1]) die("the rect hash differs from its row-by-row form");
    printf("\n#### The frame hash of a %dx%d rect of a 2048x1024 demo frame (%d rects, best of 3)\n\n",
           RW, RH, count);
    printf("| form | us a rect | vs row by row |\n|---|---:|---:|\n");
    printf("| row by row (before) | %.2f | 1.00 |\n", best[0]);
    printf("| rows gathered into 16 KB pieces (sim_frame_hash_rect) | %.2f | %.2f |\n", best[1],
           best[0] / best[1]);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

int main(int argc, char **argv)
{
    int ticks = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 600 : 3600;
    printf("Frame encodings on sand-world frames (zstd %s; sizes exclude msgpack/framing).\n",
           ZSTD_versionString());
    run_scene("demo scene", "", ticks);
    run_scene("bench scene", "scene=bench", ticks);
    rect_hashes(ticks == 600 ? 2000 : 10000);
    return 0;
}
