/* hash_wide.c — the frame hash of a rect and XXH3-64 of bytes with AVX2: the same values as sim/'s
 * (XXH3 is defined byte for byte, whatever the vectors), in about half the time. On x86-64 the
 * Makefile compiles this file alone with -mavx2, and hash.c calls it only on a CPU that has AVX2;
 * elsewhere this file is the baseline build and is not called. hash_wide512.c builds the same
 * functions again, named by SRV_WIDE, with AVX-512. */
#include <stddef.h>
#include <stdint.h>
#include "host.h"
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "frame_hash.h"

#ifndef SRV_WIDE
#define SRV_WIDE(name) name##_wide
#endif

uint64_t SRV_WIDE(srv__frame_hash_rect)(const sim_frame *f, int x, int y, int w, int h)
{
    return sim__frame_hash_rect(f, x, y, w, h);
}

uint64_t SRV_WIDE(srv__xxh3)(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

void SRV_WIDE(srv__xxh3_update)(void *state, const void *p, size_t n)
{
    XXH3_64bits_update(state, p, n);
}
