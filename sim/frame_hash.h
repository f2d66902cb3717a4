/* frame_hash.h — the frame hash's definition (docs/PROTOCOL.md: XXH3-64 over w, h, palette count,
 * each u16 LE, the 3·count palette bytes, then the pixels row by row) as one inline function, for
 * sim/frame.c and for a host that compiles it with wider vectors (server/hash_wide.c): XXH3 gives
 * the same value whatever the vectors. Include <xxhash.h> (with XXH_INLINE_ALL) first. */
#ifndef VIVARIUM_FRAME_HASH_H
#define VIVARIUM_FRAME_HASH_H
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
    } else {
        for (int r = 0; r < h; r++, row += f->w) XXH3_64bits_update(&st, row, (size_t)w);
    }
    return XXH3_64bits_digest(&st);
}

#endif
