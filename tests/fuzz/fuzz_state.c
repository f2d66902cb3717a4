/* fuzz_state.c — libFuzzer target: saved world states (docs/STATE.md), the blobs that replay
 * files, checkpoints and desync reports hand to sim_world_load.
 *
 * For every registered kind (sim_kind_count / sim_kind_at: a new kind is fuzzed without a change
 * here) the input is loaded into a small world of that kind. What sim.h promises is checked:
 *   - a failed load leaves the world exactly as it was (same state hash, tick, seed, params);
 *   - a state that loads behaves: it saves, the saved bytes load into a second world and save to
 *     the same bytes, and both worlds then step, render every view and hash identically for a
 *     few ticks (the sync test, on states no simulation produced);
 *   - sim_state_peek agrees with a successful load, and sim_state_diff of the input against a
 *     valid state of each kind (and of a loadable input against itself: 0 differences) returns
 *     without harm and with a terminated report.
 * After each input the worlds are put back to their start state, so every run is independent.
 *
 * The worlds the input is loaded into are each kind's smallest (fuzz_world.h: the empty scene
 * where a kind has one): they are only a place to load into, and the check that a failed load left
 * one untouched saves it whole, in every kind, for every input. The valid state the input is
 * diffed against is the kind's default scene, whose fields a diff walks one by one. */
#include "fuzz_world.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

#define MAX_KINDS 16
#define STEPS 3

typedef struct kind_slot {
    const sim_kind *k;
    sim_world *w, *w2;        /* the load target and its twin for the sync test */
    uint8_t *start;           /* w's start state, loaded back after every input */
    size_t start_len;
    uint8_t *scratch;         /* room for w's save while it holds the start state */
    size_t scratch_cap;
    uint8_t *ref;             /* a valid state of the default scene, to diff the input against */
    size_t ref_len;
} kind_slot;

static kind_slot slots[MAX_KINDS];
static int nslots;

/* The save of w into a fresh exact-size block (*len bytes). */
static uint8_t *save_exact(const sim_world *w, size_t *len)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *tmp = malloc(cap);
    FUZZ_CHECK(tmp != NULL, "oom");
    *len = sim_world_save(w, tmp, cap);
    FUZZ_CHECK(*len > 0, "%s: a loaded state does not save (a non-finite value?)",
               sim_world_kind(w)->name);
    uint8_t *out = fuzz_dup(tmp, *len);
    free(tmp);
    return out;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* VIV_FUZZ_KINDS=sand,cycle limits a campaign to some kinds (while a bug in another is open). */
    const char *only = getenv("VIV_FUZZ_KINDS");
    nslots = 0;
    for (int i = 0; i < sim_kind_count(); i++)
        if (!only || fuzz_listed(only, sim_kind_at(i)->name)) slots[nslots++].k = sim_kind_at(i);
    FUZZ_CHECK(nslots > 0 && nslots <= MAX_KINDS, "%d kinds (VIV_FUZZ_KINDS=%s)", nslots, only ? only : "");
    for (int i = 0; i < nslots; i++) {
        kind_slot *s = &slots[i];
        int choice[SIM_MAX_PARAMS];
        fuzz_smallest_choices(s->k, choice);
        s->w = fuzz_small_world(s->k, 7, choice);
        s->w2 = fuzz_small_world(s->k, 8, choice);
        for (int t = 0; t < 2; t++) sim_world_step(s->w);
        s->start = save_exact(s->w, &s->start_len);
        s->scratch_cap = sim_world_save_max(s->w);
        s->scratch = malloc(s->scratch_cap);
        FUZZ_CHECK(s->scratch != NULL, "oom");
        sim_world *ref = fuzz_small_world(s->k, 7, NULL);
        for (int t = 0; t < 2; t++) sim_world_step(ref);
        s->ref = save_exact(ref, &s->ref_len);
        sim_world_destroy(ref);
    }
    return 0;
}

/* Whether w saves to the start state's very bytes (what its hash would say, without hashing). */
static int holds_start(kind_slot *s)
{
    size_t n = sim_world_save(s->w, s->scratch, s->scratch_cap);
    return n == s->start_len && memcmp(s->scratch, s->start, n) == 0;
}

/* Put w back to the start state. The next input's failed loads are checked against it: checked
 * here, so that a restore that does not give it back fails on this input. */
static void restore(kind_slot *s, sim_world *w)
{
    int rc = sim_world_load(w, s->start, s->start_len);
    FUZZ_CHECK(rc == 0, "%s: the start state no longer loads: %s", s->k->name, sim_world_error(w));
    FUZZ_CHECK(w != s->w || holds_start(s), "%s: the start state loads as another state", s->k->name);
}

/* Both worlds hold the same state: step and render them side by side, every view's frame hash
 * compared at every step, the state hashes (a whole save each) after the load and after the last
 * step: states that diverged stay apart, and a hash is the costliest call here. */
static void sync_test(kind_slot *s)
{
    sim_frame fa, fb;
    FUZZ_CHECK(sim_world_frame_init(s->w, &fa) == 0 && sim_world_frame_init(s->w2, &fb) == 0,
               "%s: frame init", s->k->name);
    FUZZ_CHECK(fa.w == fb.w && fa.h == fb.h, "%s: frame sizes differ", s->k->name);
    for (int t = 0; t < STEPS; t++) {
        for (int v = 0; v < s->k->nviews; v++) {
            sim_world_render(s->w, v, &fa);
            sim_world_render(s->w2, v, &fb);
            FUZZ_CHECK(fa.pal.count >= 1, "%s: empty palette", s->k->name);
            FUZZ_CHECK(sim_frame_hash(&fa) == sim_frame_hash(&fb), "%s: view %d differs after reload at step %d",
                       s->k->name, v, t);
        }
        if (t == 0) {
            uint64_t ha = sim_world_hash(s->w), hb = sim_world_hash(s->w2);
            FUZZ_CHECK(ha != 0, "%s: state hash 0 (the state no longer saves) after the load", s->k->name);
            FUZZ_CHECK(ha == hb, "%s: states differ right after save -> load", s->k->name);
        }
        sim_world_step(s->w);
        sim_world_step(s->w2);
    }
    uint64_t ha = sim_world_hash(s->w);
    FUZZ_CHECK(ha != 0, "%s: state hash 0 (the state no longer saves) after %d steps", s->k->name, STEPS);
    FUZZ_CHECK(ha == sim_world_hash(s->w2), "%s: diverged within %d steps of save -> load", s->k->name, STEPS);
    /* the hash a world keeps up as it steps (sand's chunk digests) is its saved bytes' from scratch */
    size_t n;
    uint8_t *now = save_exact(s->w, &n);
    FUZZ_CHECK(sim_state_hash(now, n) == ha, "%s: the state hash kept over %d steps is not the saved "
               "state's", s->k->name, STEPS);
    free(now);
    sim_frame_free(&fa);
    sim_frame_free(&fb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *blob = fuzz_dup(data, size);
    uint16_t pk = 0;
    uint64_t pseed = 0, ptick = 0;
    char pparams[SIM_PARAMS_MAX];
    int prc = sim_state_peek(blob, size, &pk, &pseed, &ptick, pparams, sizeof pparams);
    char tiny[5];
    memset(tiny, 'x', sizeof tiny);
    int prc2 = sim_state_peek(blob, size, NULL, NULL, NULL, tiny, sizeof tiny);
    FUZZ_CHECK(prc == prc2, "peek depends on its output buffer");
    /* any bytes have a state hash: a blob whose header does not parse, XXH3-64 of its bytes */
    if (prc != 0)
        FUZZ_CHECK(sim_state_version(blob, size) == 0 && sim_state_hash(blob, size) == XXH3_64bits(blob, size),
                   "a blob peek refuses has a version, or a hash other than its bytes'");
    else
        (void)sim_state_hash(blob, size);        /* whatever its payload: no crash, no read past it */
    if (prc == 0) FUZZ_CHECK(fuzz_terminated(tiny, sizeof tiny) && fuzz_terminated(pparams, sizeof pparams),
                             "peek params not terminated");

    for (int i = 0; i < nslots; i++) {
        kind_slot *s = &slots[i];
        /* w holds its start state here (every input that loads is followed by a restore): a
         * failed load must leave it so, its saved bytes, tick, seed and params. */
        uint64_t tick0 = sim_world_tick(s->w), seed0 = sim_world_seed(s->w);
        char params0[SIM_PARAMS_MAX];
        snprintf(params0, sizeof params0, "%s", sim_world_params(s->w));
        int rc = sim_world_load(s->w, blob, size);
        if (rc != 0) {
            FUZZ_CHECK(rc < 0 && sim_strerror(rc)[0] != '\0', "%s: load gave %d", s->k->name, rc);
            FUZZ_CHECK(holds_start(s) && sim_world_tick(s->w) == tick0 &&
                       sim_world_seed(s->w) == seed0 && strcmp(sim_world_params(s->w), params0) == 0,
                       "%s: a failed load (%s) changed the world", s->k->name, sim_strerror(rc));
            FUZZ_CHECK(sim_world_error(s->w)[0] != '\0', "%s: a failed load says nothing", s->k->name);
            continue;
        }
        FUZZ_CHECK(prc == 0 && pk == s->k->id && pseed == sim_world_seed(s->w) &&
                   ptick == sim_world_tick(s->w) && strcmp(pparams, sim_world_params(s->w)) == 0,
                   "%s: sim_state_peek disagrees with a successful load", s->k->name);
        size_t l1, l2;
        uint8_t *s1 = save_exact(s->w, &l1);
        FUZZ_CHECK(sim_state_hash(s1, l1) == sim_world_hash(s->w) && sim_state_version(s1, l1) == sim_world_state_version(s->w),
                   "%s: a loaded state's hash is not its saved bytes'", s->k->name);
        rc = sim_world_load(s->w2, s1, l1);
        FUZZ_CHECK(rc == 0, "%s: a loaded state's save does not load: %s", s->k->name, sim_world_error(s->w2));
        uint8_t *s2 = save_exact(s->w2, &l2);
        FUZZ_CHECK(l1 == l2 && memcmp(s1, s2, l1) == 0, "%s: save -> load -> save changed the bytes", s->k->name);
        sync_test(s);
        char same[64];
        long d = sim_state_diff(s1, l1, s2, l2, same, sizeof same, 4);
        FUZZ_CHECK(d == 0, "%s: a state differs from its own copy (%ld): %s", s->k->name, d, same);
        free(s1);
        free(s2);
        restore(s, s->w);
        restore(s, s->w2);
    }

    /* A desync report of the input against a valid state of its own kind (the one the blob
     * claims; any kind if it claims none), both ways. The way round that builds the valid state's
     * world first, for a blob that builds none, refuses it as the first way did, after building a
     * world for nothing but the path that frees it: the costliest call here, for three inputs in
     * four (most do not even peek). That path is taken for one such input in 16. */
    for (int i = 0; i < nslots; i++) {
        if (prc == 0 && pk != slots[i].k->id) continue;
        size_t cap = 1 + (size_t)(size % 300);
        char *out = malloc(cap);
        FUZZ_CHECK(out != NULL, "oom");
        long d = sim_state_diff(blob, size, slots[i].ref, slots[i].ref_len, out, cap, 6);
        FUZZ_CHECK(fuzz_terminated(out, cap), "diff report not terminated (cap %zu)", cap);
        if (prc != 0) FUZZ_CHECK(d < 0, "a blob peek refuses was diffed (%ld)", d);
        if (d >= 0 || size % 16 == 0) {
            long back = sim_state_diff(slots[i].ref, slots[i].ref_len, blob, size, out, cap, 3);
            FUZZ_CHECK(fuzz_terminated(out, cap), "diff report not terminated (cap %zu)", cap);
            FUZZ_CHECK((back < 0) == (d < 0), "a diff refuses one way (%ld) and not the other (%ld)",
                       d < 0 ? d : back, d < 0 ? back : d);
        }
        free(out);
        if (prc != 0) break;             /* it fails at the peek, whatever the other state */
    }
    free(blob);
    return 0;
}
