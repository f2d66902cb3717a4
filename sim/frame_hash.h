/* frame_hash.h — the frame hash's definition (docs/PROTOCOL.md: XXH3-64 over w, h, palette count,
 * each u16 LE, the 3·count palette bytes, then the pixels row by row) as one inline function, for
 * sim/frame.c and for a host that compiles it with wider vectors (server/hash_wide.c): XXH3 gives
 * the same value whatever the vectors. Include <xxhash.h> (with XXH_INLINE_ALL) first. */
#ifndef VIVARIUM_FRAME_HASH_H
#define VIVARIUM_FRAME_HASH_H
#include <string.h>
#include "sim.h"

/* The hash of the w × h rect of f at (x, y) as a frame of its own, with f's palette. */
static inline uint64_t sim__frame_hash_rect(const sim_frame *f, int x, int y, int w, int h)
{
    uint8_t head[6];
    unsigned n = f->pal.count;
    head[0] = (uint8_t)w; head[1] = (uint8_t)(w >> 8);
    head[2] = (uint8_t)h; head[3] = (uint8_t)(h >> 8);
    head[4] = (uint8_t)n; head[5] = (uint8_t)(n >> 8);
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, head, sizeof head);
    XXH3_64bits_update(&st, f->pal.rgb, (size_t)n * 3);
    const uint8_t *row = f->px + (size_t)y * f->w + (size_t)x;
    if (w == f->w) {                           /* whole rows: one run of bytes */
        XXH3_64bits_update(&st, row, (size_t)w * (size_t)h);
    } else if ((size_t)w > 16384) {            /* rows wider than a piece: one by one */
        for (int r = 0; r < h; r++, row += f->w) XXH3_64bits_update(&st, row, (size_t)w);
    } else {
        /* Rows gathered into pieces of about 16 KB before they are hashed: XXH3's streaming
         * update copies a short input through its own 256-byte buffer a stripe at a time, so a
         * rect's 384-byte rows hashed one by one took 1.2–1.4× as long (bench/RESULTS.md). The
         * bytes hashed, and so the value, are the same. */
        uint8_t piece[16384];
        size_t used = 0;
        for (int r = 0; r < h; r++, row += f->w) {
            if (used + (size_t)w > sizeof piece) {
                XXH3_64bits_update(&st, piece, used);
                used = 0;
            }
            memcpy(piece + used, row, (size_t)w);
            used += (size_t)w;
        }
        if (used) XXH3_64bits_update(&st, piece, used);
    }
    return XXH3_64bits_digest(&st);
}

#endif
