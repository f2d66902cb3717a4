/* frame.c — palette-index frames and the frame hash. */
#include "sim_internal.h"
#include <stdlib.h>
#define XXH_INLINE_ALL      /* header-only: the cross build needs no arm64 libxxhash */
#include <xxhash.h>
#include "frame_hash.h"

int sim_frame_init(sim_frame *f, int w, int h)
{
    if (!f || w <= 0 || h <= 0 || w > 4096 || h > 4096) return SIM_EINVAL;
    memset(f, 0, sizeof *f);
    f->px = calloc((size_t)w * (size_t)h, 1);
    if (!f->px) return SIM_ENOMEM;
    f->w = (uint16_t)w;
    f->h = (uint16_t)h;
    f->pal.count = 1;
    return 0;
}

void sim_frame_free(sim_frame *f)
{
    if (!f) return;
    free(f->px);
    f->px = NULL;
    f->w = f->h = 0;
}

/* The contract of docs/PROTOCOL.md: XXH3-64 over w, h, palette count (u16 LE each), the
 * 3·count palette bytes, then w·h pixels. Thin clients recompute it to prove their rebuild. */
uint64_t sim_frame_hash(const sim_frame *f)
{
    return sim_frame_hash_rect(f, 0, 0, f->w, f->h);
}

uint64_t sim_frame_hash_rect(const sim_frame *f, int x, int y, int w, int h)
{
    return sim__frame_hash_rect(f, x, y, w, h);
}
