/* hash_wide.c — the frame hash of a rect and XXH3-64 of bytes with AVX2: the same values as sim/'s
 * (XXH3 is defined byte for byte, whatever the vectors), in about half the time. On x86-64 the
 * Makefile compiles this file alone with -mavx2, and hash.c calls it only on a CPU that has AVX2;
 * elsewhere this file is the baseline build and is not called. */
#include <stddef.h>
#include <stdint.h>
#include "host.h"
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "frame_hash.h"

uint64_t srv__frame_hash_rect_wide(const sim_frame *f, int x, int y, int w, int h)
{
    return sim__frame_hash_rect(f, x, y, w, h);
}

uint64_t srv__xxh3_wide(const void *p, size_t n)
{
    return XXH3_64bits(p, n);
}

void srv__xxh3_update_wide(void *state, const void *p, size_t n)
{
    XXH3_64bits_update(state, p, n);
}
