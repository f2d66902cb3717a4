/* check_rng.c — PCG32 and splitmix64 against published vectors; stream independence; the
 * counter hash's sensitivity to every argument. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "sim.h"

START_TEST(pcg32_reference_vectors)
{
    /* pcg32-demo (pcg-random.org): pcg32_srandom_r(&rng, 42, 54), "Round 1". */
    static const uint32_t want[6] = { 0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                      0x83d2f293u, 0xbfa4784bu, 0xcbed606eu };
    sim_rng r;
    sim_rng_seed(&r, 42u, 54u);
    for (int i = 0; i < 6; i++) ck_assert_uint_eq(sim_rng_next(&r), want[i]);
}
END_TEST

START_TEST(splitmix64_reference_vector)
{
    /* SplitMix64 (Steele, Lea, Flood 2014; Vigna's C version): seed 1234567 → first output. */
    uint64_t x = 1234567;
    ck_assert_uint_eq(sim_splitmix64(&x), 6457827717110365317ULL);
    uint64_t z = 0;
    ck_assert_uint_eq(sim_splitmix64(&z), 0xe220a8397b1dcdafULL);
}
END_TEST

START_TEST(streams_are_reproducible)
{
    sim_rng a, b;
    sim_rng_stream(&a, 99, "lizard");
    sim_rng_stream(&b, 99, "lizard");
    for (int i = 0; i < 1000; i++) ck_assert_uint_eq(sim_rng_next(&a), sim_rng_next(&b));
}
END_TEST

/* Two streams from one seed with different names, or one name with neighbouring seeds, must look
 * unrelated: no shared outputs beyond chance, and every bit of a XOR b fair. */
static void assert_independent(sim_rng *a, sim_rng *b)
{
    enum { N = 200000 };
    int ones[32] = { 0 };
    int equal = 0;
    for (int i = 0; i < N; i++) {
        uint32_t x = sim_rng_next(a), y = sim_rng_next(b);
        equal += x == y;
        uint32_t d = x ^ y;
        for (int k = 0; k < 32; k++) ones[k] += (d >> k) & 1u;
    }
    ck_assert_int_le(equal, 2);              /* chance: N / 2^32 ≈ 0.00005 */
    for (int k = 0; k < 32; k++) {
        /* 5 sigma of a fair coin over N flips is about 0.56% of N. */
        ck_assert_int_gt(ones[k], N / 2 - N / 170);
        ck_assert_int_lt(ones[k], N / 2 + N / 170);
    }
}

START_TEST(streams_by_name_are_independent)
{
    sim_rng a, b;
    sim_rng_stream(&a, 7, "lizard");
    sim_rng_stream(&b, 7, "scrambler");
    ck_assert(a.inc != b.inc || a.state != b.state);
    assert_independent(&a, &b);
}
END_TEST

START_TEST(streams_by_seed_are_independent)
{
    sim_rng a, b;
    sim_rng_stream(&a, 7, "lizard");
    sim_rng_stream(&b, 8, "lizard");
    assert_independent(&a, &b);
}
END_TEST

START_TEST(bounded_is_in_range_and_uniform)
{
    sim_rng r;
    sim_rng_stream(&r, 1, "below");
    int counts[6] = { 0 };
    for (int i = 0; i < 60000; i++) {
        uint32_t v = sim_rng_below(&r, 6);
        ck_assert_uint_lt(v, 6);
        counts[v]++;
    }
    for (int k = 0; k < 6; k++) {
        ck_assert_int_gt(counts[k], 9400);   /* 10000 ± ~6 sigma (sigma ≈ 91) */
        ck_assert_int_lt(counts[k], 10600);
    }
    for (int i = 0; i < 10000; i++) {
        int32_t v = sim_rng_range(&r, -3, 3);
        ck_assert_int_ge(v, -3);
        ck_assert_int_le(v, 3);
        double u = sim_rng_unit(&r);
        ck_assert(u >= 0.0 && u < 1.0);
    }
    ck_assert_int_eq(sim_rng_range(&r, 5, 5), 5);
    ck_assert_uint_eq(sim_rng_below(&r, 1), 0);
}
END_TEST

START_TEST(cell_hash_depends_on_every_argument)
{
    uint32_t h = sim_hash_cell(1, 2, 3, 4, 5);
    ck_assert_uint_eq(h, sim_hash_cell(1, 2, 3, 4, 5));
    ck_assert_uint_ne(h, sim_hash_cell(2, 2, 3, 4, 5));
    ck_assert_uint_ne(h, sim_hash_cell(1, 3, 3, 4, 5));
    ck_assert_uint_ne(h, sim_hash_cell(1, 2, 4, 4, 5));
    ck_assert_uint_ne(h, sim_hash_cell(1, 2, 3, 5, 5));
    ck_assert_uint_ne(h, sim_hash_cell(1, 2, 3, 4, 6));
    ck_assert_uint_ne(sim_hash_cell(1, 2, 3, 4, 5), sim_hash_cell(1, 2, 4, 3, 5));   /* x↔y */
    ck_assert_uint_eq(sim_hash_cell(9, 77, -5, 12, 3), sim_hash_at(sim_hash_tick(9, 77), -5, 12, 3));
}
END_TEST

START_TEST(cell_hash_bits_are_fair_over_a_grid)
{
    /* A CA draws one hash per cell per tick: over a 320×180 grid every output bit must be fair,
     * or sand would drift to one side. */
    int ones[32] = { 0 };
    int n = 0;
    uint64_t tb = sim_hash_tick(42, 1000);
    for (int y = 0; y < 180; y++)
        for (int x = 0; x < 320; x++, n++) {
            uint32_t h = sim_hash_at(tb, x, y, 1);
            for (int k = 0; k < 32; k++) ones[k] += (h >> k) & 1u;
        }
    for (int k = 0; k < 32; k++) {
        ck_assert_int_gt(ones[k], n / 2 - n / 80);  /* ±1.25%: ~6 sigma at n = 57600 */
        ck_assert_int_lt(ones[k], n / 2 + n / 80);
    }
}
END_TEST

Suite *suite_rng(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("rng");
    tcase_add_test(tc, pcg32_reference_vectors);
    tcase_add_test(tc, splitmix64_reference_vector);
    tcase_add_test(tc, streams_are_reproducible);
    tcase_add_test(tc, streams_by_name_are_independent);
    tcase_add_test(tc, streams_by_seed_are_independent);
    tcase_add_test(tc, bounded_is_in_range_and_uniform);
    tcase_add_test(tc, cell_hash_depends_on_every_argument);
    tcase_add_test(tc, cell_hash_bits_are_fair_over_a_grid);
    suite_add_tcase(s, tc);
    return s;
}
