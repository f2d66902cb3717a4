/* check_blob.h — the save/load checks every stateful engine piece gets (check_spine.c,
 * check_fabrik.c, check_biped.c, check_juice.c, check_spring.c): GGPO's sync test for one piece,
 * and the refusal of corrupt blobs with the target left untouched. Header-only (static inline),
 * since the Makefile builds tests/check_*.c as suites. */
#ifndef VIVARIUM_CHECK_BLOB_H
#define VIVARIUM_CHECK_BLOB_H
#include <check.h>
#include <string.h>
#include "sim_internal.h"

#define BLOB_MAX 4096                 /* bytes the largest piece saves, with room */

typedef struct blob_piece {
    size_t size;                      /* sizeof the piece's struct */
    void (*save)(const void *obj, sim_writer *w);
    int (*load)(void *obj, sim_reader *r);
    void (*step)(void *obj, uint64_t t);           /* tick t of a scripted run */
} blob_piece;

/* One value written into a copy of a good blob: a byte, or a double (f64 LE) at `at`. */
typedef struct blob_poke {
    size_t at;
    double v;
    int byte;
} blob_poke;

static inline size_t blob_save(const blob_piece *p, const void *obj, uint8_t *buf, size_t cap)
{
    sim_writer w;
    sim__w_init(&w, buf, cap);
    p->save(obj, &w);
    ck_assert(!w.overflow);
    return w.len;
}

/* Save → load → continue equals continue: at every tick up to `ticks`, a's state is saved and
 * loaded into b (scrambled first), both run `run` ticks of the script, and their saved bytes must
 * be equal. a goes on from where it got to. */
static inline void blob_sync(const blob_piece *p, void *a, void *b, uint64_t ticks, int run)
{
    static uint8_t ba[BLOB_MAX], bb[BLOB_MAX];
    for (uint64_t t = 1; t < ticks; t++) {
        size_t n = blob_save(p, a, ba, sizeof ba);
        memset(b, 0x5a, p->size);
        sim_reader r;
        sim__r_init(&r, ba, n);
        ck_assert_int_eq(p->load(b, &r), 0);
        ck_assert_uint_eq(r.pos, n);
        for (int k = 0; k < run; k++) {
            p->step(a, t + (uint64_t)k);
            p->step(b, t + (uint64_t)k);
        }
        size_t na = blob_save(p, a, ba, sizeof ba);
        ck_assert_uint_eq(blob_save(p, b, bb, sizeof bb), na);
        ck_assert(memcmp(ba, bb, na) == 0);
    }
}

/* Loading into `target` refuses every truncation of `good` (n bytes), refuses each poke with
 * SIM_ECORRUPT, and each time leaves the target exactly as it was. */
static inline void blob_refusals(const blob_piece *p, void *target, const uint8_t *good, size_t n,
                                 const blob_poke *pk, size_t npk)
{
    static uint8_t bad[BLOB_MAX], before[BLOB_MAX], after[BLOB_MAX];
    size_t nb = blob_save(p, target, before, sizeof before);
    sim_reader r;
    for (size_t cut = 0; cut < n; cut++) {
        sim__r_init(&r, good, cut);
        ck_assert_msg(p->load(target, &r) != 0, "a blob cut to %zu bytes loaded", cut);
        ck_assert(blob_save(p, target, after, sizeof after) == nb && !memcmp(before, after, nb));
    }
    for (size_t k = 0; k < npk; k++) {
        memcpy(bad, good, n);
        if (pk[k].byte) {
            bad[pk[k].at] = (uint8_t)pk[k].v;
        } else {
            sim_writer w;
            sim__w_init(&w, bad + pk[k].at, 8);
            sim__w_f64(&w, pk[k].v);
        }
        sim__r_init(&r, bad, n);
        ck_assert_msg(p->load(target, &r) == SIM_ECORRUPT, "poke %zu (byte %zu) loaded", k,
                      pk[k].at);
        ck_assert(blob_save(p, target, after, sizeof after) == nb && !memcmp(before, after, nb));
    }
}

/* A whole blob that must be refused (built by hand, not a poke of a good one). */
static inline void blob_refuse(const blob_piece *p, void *target, const uint8_t *blob, size_t n)
{
    static uint8_t before[BLOB_MAX], after[BLOB_MAX];
    size_t nb = blob_save(p, target, before, sizeof before);
    sim_reader r;
    sim__r_init(&r, blob, n);
    ck_assert_int_eq(p->load(target, &r), SIM_ECORRUPT);
    ck_assert(blob_save(p, target, after, sizeof after) == nb && !memcmp(before, after, nb));
}

#endif
