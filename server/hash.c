/* hash.c — the frame and state hashes with the widest vectors the CPU has: hash_wide.c's AVX2
 * build where __builtin_cpu_supports says so, sim/'s baseline otherwise. The values are the same
 * (check_tiles compares them); only the time differs: about half, on a 384×192 rect or a
 * 2048×1024 world's 8 MB state. */
#include "host.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Does this CPU have AVX2 (and was hash_wide.c built with it)? */
static int wide(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

uint64_t srv_frame_hash_rect(const sim_frame *f, int x, int y, int w, int h)
{
    return wide() ? srv__frame_hash_rect_wide(f, x, y, w, h) : sim_frame_hash_rect(f, x, y, w, h);
}

uint64_t srv_xxh3(const void *p, size_t n)
{
    return wide() ? srv__xxh3_wide(p, n) : XXH3_64bits(p, n);
}

static void update_base(void *state, const void *p, size_t n)
{
    XXH3_64bits_update(state, p, n);
}

uint64_t srv_world_hash_stream(const sim_world *w)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    if (!sim_world_hash_stream(w, wide() ? srv__xxh3_update_wide : update_base, &st)) return 0;
    return XXH3_64bits_digest(&st);
}
