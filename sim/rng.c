/* rng.c — PCG32 streams derived from (seed, name), and the counter hash for cellular automata.
 *
 * PCG32 is O'Neill's XSH-RR 64/32 generator: 64-bit LCG state, 32-bit output, an odd increment
 * selecting one of 2^63 streams. A world never shares one generator between subsystems: each takes
 * its own stream from (world seed, stream name), so adding a random call in one place cannot shift
 * every other random number in the world. */
#include "sim_internal.h"

uint64_t sim_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint32_t sim_rng_next(sim_rng *r)
{
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ULL + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

/* Same seeding as the reference pcg32_srandom_r, so the published test vectors apply. */
void sim_rng_seed(sim_rng *r, uint64_t initstate, uint64_t initseq)
{
    r->state = 0;
    r->inc = (initseq << 1) | 1u;
    sim_rng_next(r);
    r->state += initstate;
    sim_rng_next(r);
}

/* Stream from (seed, name): FNV-1a of the name, folded into the seed, expanded by splitmix64 into
 * an initial state and a stream selector. Different names give unrelated sequences. */
void sim_rng_stream(sim_rng *r, uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)name; p && *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ULL;
    }
    uint64_t x = seed ^ h;
    uint64_t st = sim_splitmix64(&x);
    uint64_t seq = sim_splitmix64(&x);
    sim_rng_seed(r, st, seq);
}

/* Unbiased: reject the low values that would make `% bound` favour small results. */
uint32_t sim_rng_below(sim_rng *r, uint32_t bound)
{
    if (bound <= 1) return 0;
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t v = sim_rng_next(r);
        if (v >= threshold) return v % bound;
    }
}

int32_t sim_rng_range(sim_rng *r, int32_t lo, int32_t hi)
{
    if (hi <= lo) return lo;
    uint32_t span = (uint32_t)((int64_t)hi - (int64_t)lo + 1);    /* 0 means the full 2^32 */
    uint32_t v = span ? sim_rng_below(r, span) : sim_rng_next(r);
    return (int32_t)((int64_t)lo + (int64_t)v);
}

double sim_rng_unit(sim_rng *r)
{
    return (double)sim_rng_next(r) * (1.0 / 4294967296.0);         /* exact: 32 bits fit */
}

uint32_t sim_hash_cell(uint64_t seed, uint64_t tick, int32_t x, int32_t y, uint32_t salt)
{
    return sim_hash_at(sim_hash_tick(seed, tick), x, y, salt);
}
