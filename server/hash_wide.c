/* hash_wide.c — the frame hash of a rect with AVX2: the same value as sim_frame_hash_rect's (XXH3
 * is defined byte for byte, whatever the vectors), in about half the time on a rect's pixels. On
 * x86-64 the Makefile compiles this file alone with -mavx2, and srv_frame_hash_rect calls it only
 * on a CPU that has AVX2; elsewhere this file is the baseline build and is not called. */
#include <stddef.h>
#include <stdint.h>
#include "network.h"
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "frame_hash.h"

uint64_t srv__frame_hash_rect_wide(const sim_frame *f, int x, int y, int w, int h)
{
    return sim__frame_hash_rect(f, x, y, w, h);
}
