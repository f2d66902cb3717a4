/* bench_codec.c — bytes and time per frame of the frame encodings, on real sand-world frames.
 *
 *   bench_codec [--quick]          (3,600 ticks = 60 s at 60 Hz per scene; --quick: 600)
 *
 * For each scene (the demo, and scene=bench) every tick is stepped, rendered, and encoded as:
 *   raw            the w·h index bytes;
 *   tile key       a tile keyframe of every frame (what a joining client gets);
 *   tile delta     the stream: a keyframe first, then a delta against the previous tick;
 *   + zstd -1/-3   each delta message compressed alone (ZSTD_compressCCtx, no dictionary, no
 *                  state between messages), as a stateless per-message option would;
 *   zstd-3 if smaller  the same, but a message keeps its plain form when zstd does not shrink it;
 *   zstd -3 raw    each raw frame compressed alone.
 * Sizes are the codec's bytes only (no msgpack or length framing). Times are per frame, one core,
 * averaged over the run; an encoding's time includes the tile codec under it. Every decode is
 * checked against the frame, so a wrong codec cannot post a good number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>
#include "codec.h"
#include "sim.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_codec: %s\n", what);
    exit(1);
}

static sim_world *mk(const char *params)
{
    char err[256];
    sim_config c = sim_config_default();
    c.kind = "sand";
    c.seed = 1;
    c.params = params;
    c.err = err;
    c.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&c, &rc);
    if (!w) die(err);
    return w;
}

/* Totals for one encoding over a run. */
typedef struct acc {
    double bytes, enc_us, dec_us;
    size_t max_bytes;
} acc;

enum { E_RAW, E_KEY, E_DELTA, E_Z1, E_Z3, E_Z3MIN, E_RAWZ3, E_COUNT };
static const char *const NAMES[E_COUNT] = {
    "raw frame", "tile keyframe (every frame)", "tile delta (key first)",
    "tile delta + zstd -1 per message", "tile delta + zstd -3 per message",
    "tile delta + zstd -3 if smaller", "zstd -3 of raw frame",
};

static void add(acc *a, size_t bytes, double enc_us, double dec_us)
{
    a->bytes += (double)bytes;
    a->enc_us += enc_us;
    a->dec_us += dec_us;
    if (bytes > a->max_bytes) a->max_bytes = bytes;
}

/* zstd one message alone; returns the compressed size and adds the times, checks the round trip. */
static size_t zstd_one(ZSTD_CCtx *cc, ZSTD_DCtx *dc, int level, const uint8_t *src, size_t n,
                       uint8_t *zbuf, size_t zcap, uint8_t *back, double *enc_us, double *dec_us)
{
    double t0 = now_us();
    size_t z = ZSTD_compressCCtx(cc, zbuf, zcap, src, n, level);
    double t1 = now_us();
    if (ZSTD_isError(z)) die(ZSTD_getErrorName(z));
    size_t d = ZSTD_decompressDCtx(dc, back, n, zbuf, z);
    double t2 = now_us();
    if (ZSTD_isError(d) || d != n || memcmp(back, src, n) != 0) die("zstd round trip differs");
    *enc_us = t1 - t0;
    *dec_us = t2 - t1;
    return z;
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

    for (int t = 0; t < ticks; t++) {
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        add(&a[E_RAW], n, 0, 0);

        /* Keyframe of this frame. */
        wire_buf_reset(&key);
        double t0 = now_us();
        long kl = codec_encode(&key, f.px, NULL, fw, fh);
        double t1 = now_us();
        int rc = codec_decode(key.p, key.len, scratch, fw, fh, 1);
        double t2 = now_us();
        if (kl < 0 || rc != CODEC_OK || memcmp(scratch, f.px, n) != 0) die("keyframe round trip failed");
        add(&a[E_KEY], key.len, t1 - t0, t2 - t1);

        /* The stream: keyframe first, then deltas. */
        wire_buf_reset(&delta);
        t0 = now_us();
        long dl = codec_encode(&delta, f.px, t ? prev : NULL, fw, fh);
        t1 = now_us();
        rc = codec_decode(delta.p, delta.len, client, fw, fh, t == 0);
        t2 = now_us();
        if (dl < 0 || rc != CODEC_OK || memcmp(client, f.px, n) != 0) die("delta round trip failed");
        double denc = t1 - t0, ddec = t2 - t1;
        add(&a[E_DELTA], delta.len, denc, ddec);
        nones += delta.len == 1;

        double ze, zd;
        size_t z1 = zstd_one(cc, dc, 1, delta.p, delta.len, zbuf, zcap, back, &ze, &zd);
        add(&a[E_Z1], z1, denc + ze, ddec + zd);
        size_t z3 = zstd_one(cc, dc, 3, delta.p, delta.len, zbuf, zcap, back, &ze, &zd);
        add(&a[E_Z3], z3, denc + ze, ddec + zd);
        if (z3 < delta.len) add(&a[E_Z3MIN], z3, denc + ze, ddec + zd);
        else add(&a[E_Z3MIN], delta.len, denc + ze, ddec);

        size_t zr = zstd_one(cc, dc, 3, f.px, n, zbuf, zcap, back, &ze, &zd);
        add(&a[E_RAWZ3], zr, ze, zd);

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

int main(int argc, char **argv)
{
    int ticks = argc > 1 && strcmp(argv[1], "--quick") == 0 ? 600 : 3600;
    printf("Frame encodings on sand-world frames (zstd %s; sizes exclude msgpack/framing).\n",
           ZSTD_versionString());
    run_scene("demo scene", "", ticks);
    run_scene("bench scene", "scene=bench", ticks);
    return 0;
}
