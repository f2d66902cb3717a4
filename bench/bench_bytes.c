/* bench_bytes.c — bytes per frame on the wire for each demo world over 60 s of world time (issue
 * 3's "Bytes per frame"): the frame message as vivd builds it in each encoding (tile.zst, the
 * default; tile; raw), against zstd -3 of each raw frame and an animated GIF of the same frames.
 *
 *   bench_bytes [--seconds S]
 *
 * Messages are built exactly as server/fanout.c does (same fields, codec, zstd level 1 only when
 * smaller; a keyframe first, then deltas, a keyframe every 10 s). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "codec.h"
#include "replay.h"
#include "sim.h"
#include "wire.h"

/* Size of the frame message around `dlen` bytes of data (map header and every field). */
static size_t msg_size(const sim_frame *f, uint64_t tick, int key, int with_pal, const char *enc,
                       size_t dlen)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, with_pal ? 12 : 11);
    wire_put_str(&b, "t"); wire_put_str(&b, "frame");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_put_str(&b, "tick"); wire_put_uint(&b, tick);
    wire_put_str(&b, "key"); wire_put_bool(&b, key);
    wire_put_str(&b, "w"); wire_put_uint(&b, f->w);
    wire_put_str(&b, "h"); wire_put_uint(&b, f->h);
    wire_put_str(&b, "pv"); wire_put_uint(&b, f->pal.version);
    if (with_pal) { wire_put_str(&b, "pal"); wire_put_bin(&b, f->pal.rgb, (size_t)f->pal.count * 3); }
    wire_put_str(&b, "enc"); wire_put_str(&b, enc);
    wire_put_str(&b, "data"); wire_put_bin_header(&b, dlen);
    wire_put_str(&b, "fh"); wire_put_uint(&b, 0xffffffffffffffffull);
    wire_put_str(&b, "sh"); wire_put_uint(&b, 0xffffffffffffffffull);
    wire_msg_end(&b);
    size_t n = b.len + dlen;
    wire_buf_free(&b);
    return n;
}

int main(int argc, char **argv)
{
    int seconds = 60;
    if (argc > 2 && strcmp(argv[1], "--seconds") == 0) seconds = atoi(argv[2]);
    if (seconds < 1) seconds = 1;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    printf("| world | frames | tile.zst (default) | tile | raw | zstd -3 of raw frame | animated GIF | default vs zstd-3 raw | default vs GIF |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < sim_kind_count(); k++) {
        const sim_kind *kind = sim_kind_at(k);
        char err[256];
        sim_config cfg = sim_config_default();
        cfg.kind = kind->name;
        cfg.seed = 1;
        cfg.err = err;
        cfg.errlen = sizeof err;
        int rc;
        sim_world *w = sim_world_create(&cfg, &rc);
        if (!w) {
            fprintf(stderr, "bench_bytes: %s\n", err);
            return 1;
        }
        sim_frame f;
        sim_world_frame_init(w, &f);
        size_t npx = (size_t)f.w * f.h;
        uint8_t *prev = malloc(npx);
        uint32_t prev_pv = 0;
        size_t zcap = ZSTD_compressBound(codec_bound(f.w, f.h) > npx ? codec_bound(f.w, f.h) : npx);
        uint8_t *zb = malloc(zcap);
        char gifpath[64];
        snprintf(gifpath, sizeof gifpath, "/tmp/bench_bytes.%d.gif", (int)getpid());
        rpl_gif *gif = rpl_gif_open(gifpath, f.w, f.h, 1, kind->hz, 1, err, sizeof err);
        if (!gif) {
            fprintf(stderr, "bench_bytes: %s\n", err);
            return 1;
        }
        uint64_t frames = (uint64_t)seconds * kind->hz, key_every = (uint64_t)kind->hz * 10;
        double b_tz = 0, b_tile = 0, b_raw = 0, b_z3 = 0;
        wire_buf tb;
        wire_buf_init(&tb);
        for (uint64_t i = 0; i < frames; i++) {
            sim_world_step(w);
            sim_world_render(w, 0, &f);
            uint64_t tick = sim_world_tick(w);
            int key = i % key_every == 0;
            int pal = key || f.pal.version != prev_pv;
            wire_buf_reset(&tb);
            codec_encode(&tb, f.px, key ? NULL : prev, f.w, f.h);
            size_t zn = tb.len > 32 ? ZSTD_compressCCtx(z, zb, zcap, tb.p, tb.len, 1) : 0;
            int usez = zn && !ZSTD_isError(zn) && zn < tb.len;
            b_tz += (double)msg_size(&f, tick, key, pal, usez ? "tile.zst" : "tile", usez ? zn : tb.len);
            b_tile += (double)msg_size(&f, tick, key, pal, "tile", tb.len);
            b_raw += (double)msg_size(&f, tick, 1, 1, "raw", npx);
            size_t z3 = ZSTD_compressCCtx(z, zb, zcap, f.px, npx, 3);
            b_z3 += (double)z3;
            if (rpl_gif_frame(gif, &f) != 0) {
                fprintf(stderr, "bench_bytes: %s\n", rpl_gif_error(gif));
                return 1;
            }
            memcpy(prev, f.px, npx);
            prev_pv = f.pal.version;
        }
        if (rpl_gif_close(gif, err, sizeof err) != 0) {
            fprintf(stderr, "bench_bytes: %s\n", err);
            return 1;
        }
        struct stat st;
        double b_gif = stat(gifpath, &st) == 0 ? (double)st.st_size : 0;
        unlink(gifpath);
        double n = (double)frames;
        printf("| %s %dx%d @%u Hz | %llu | %.0f | %.0f | %.0f | %.0f | %.0f | %.2fx | %.2fx |\n",
               kind->name, f.w, f.h, (unsigned)kind->hz, (unsigned long long)frames, b_tz / n,
               b_tile / n, b_raw / n, b_z3 / n, b_gif / n, (b_tz / n) / (b_z3 / n),
               (b_tz / n) / (b_gif / n));
        wire_buf_free(&tb);
        free(prev);
        free(zb);
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    ZSTD_freeCCtx(z);
    printf("\nBytes per frame message (length prefix included); zstd -3 and GIF are bytes per frame of the\n"
           "compressed frame alone. Ratios below 1 mean the default encoding is smaller.\n");
    return 0;
}
