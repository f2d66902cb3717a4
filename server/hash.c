/* hash.c — the frame and state hashes with the widest vectors the CPU has: hash_wide512.c's
 * AVX-512 build or hash_wide.c's AVX2 build where __builtin_cpu_supports says so, sim/'s baseline
 * otherwise. The values are the same (check_tiles compares them); only the time differs: AVX2
 * about halves the baseline's, on a 384×192 rect or a 2048×1024 world's 8 MB state, and AVX-512
 * takes a rect's hash from 5.8 to 3.3 µs again. */
#include "host.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

int srv_hash_vectors(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* libgcc's answer counts the OS's support too (XGETBV: the wide registers are saved). */
    if (__builtin_cpu_supports("avx512f")) return 512;
    if (__builtin_cpu_supports("avx2")) return 256;
#endif
    return 0;
}

uint64_t srv_frame_hash_rect(const sim_frame *f, int x, int y, int w, int h)
{
    switch (srv_hash_vectors()) {
    case 512: return srv__frame_hash_rect_wide512(f, x, y, w, h);
    case 256: return srv__frame_hash_rect_wide(f, x, y, w, h);
    default: return sim_frame_hash_rect(f, x, y, w, h);
    }
}

uint64_t srv_xxh3(const void *p, size_t n)
{
    switch (srv_hash_vectors()) {
    case 512: return srv__xxh3_wide512(p, n);
    case 256: return srv__xxh3_wide(p, n);
    default: return XXH3_64bits(p, n);
    }
}

static void update_base(void *state, const void *p, size_t n)
{
    XXH3_64bits_update(state, p, n);
}

uint64_t srv_world_hash_stream(const sim_world *w)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    int v = srv_hash_vectors();
    void (*update)(void *, const void *, size_t) = v == 512 ? srv__xxh3_update_wide512
                                                   : v == 256 ? srv__xxh3_update_wide : update_base;
    if (!sim_world_hash_stream(w, update, &st)) return 0;
    return XXH3_64bits_digest(&st);
}
