/* bench_bytes.c — bytes per frame on the wire for each demo world over 60 s of world time (issue
 * 3's "Bytes per frame"): the frame message as vivd builds it in each encoding (tile.zst, the
 * default; tile; raw), against zstd -3 of each raw frame and an animated GIF of the same frames.
 *
 *   bench_bytes [--seconds S]
 *
 * Messages are built by the writer vivd uses (wire/msg.c: same fields, codec, zstd level 1 only
 * when smaller; a keyframe first, then deltas, a keyframe every 10 s). */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "replay.h"
#include "sim.h"
#include "msg.h"
#include "wire.h"

/* The frame message as vivd builds it (wire/msg.c's writer), for world 1 with the widest
 * hashes; its length, prefix included. */
static size_t msg_size(wire_encoder *e, wire_buf *b, const sim_frame *f, const uint8_t *prev,
                       uint64_t tick, int key, int with_pal, int enc)
{
    wire_frame m = { 1, tick, key, with_pal, enc, UINT64_MAX, UINT64_MAX, { 0, 0, 0, 0 }, 0 };
    wire_buf_reset(b);
    return wire_msg_frame(e, b, &m, f, prev) < 0 ? 0 : b->len;
}

int main(int argc, char **argv)
{
    int seconds = 60;
    if (argc > 2 && strcmp(argv[1], "--seconds") == 0) seconds = atoi(argv[2]);
    if (seconds < 1) seconds = 1;
    ZSTD_CCtx *z = ZSTD_createCCtx();
    wire_encoder enc;
    if (!z || wire_encoder_init(&enc) != 0) {
        fprintf(stderr, "bench_bytes: out of memory\n");
        return 1;
    }
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
        size_t zcap = ZSTD_compressBound(npx);
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
            b_tz += (double)msg_size(&enc, &tb, &f, prev, tick, key, pal, WIRE_ENC_TILEZ);
            b_tile += (double)msg_size(&enc, &tb, &f, prev, tick, key, pal, WIRE_ENC_TILE);
            b_raw += (double)msg_size(&enc, &tb, &f, prev, tick, 1, 1, WIRE_ENC_RAW);
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
    wire_encoder_free(&enc);
    printf("\nBytes per frame message (length prefix included); zstd -3 and GIF are bytes per frame of the\n"
           "compressed frame alone. Ratios below 1 mean the default encoding is smaller.\n");
    return 0;
}
