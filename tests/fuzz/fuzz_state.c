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
 * After each input the worlds are put back to their start state, so every run is independent. */
#include "fuzz.h"
#include "sim.h"

#define MAX_KINDS 16
#define STEPS 3

typedef struct kind_slot {
    const sim_kind *k;
    sim_world *w, *w2;        /* the load target and its twin for the sync test */
    uint8_t *start;           /* w's start state, loaded back after every input */
    size_t start_len;
} kind_slot;

static kind_slot slots[MAX_KINDS];
static int nslots;

/* The smallest params the kind allows (every INT param at its minimum), else its defaults. */
static sim_world *small_world(const sim_kind *k, uint64_t seed)
{
    char params[SIM_PARAMS_MAX] = "", err[256];
    size_t n = 0;
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].type != SIM_PARAM_INT) continue;
        int m = snprintf(params + n, sizeof params - n, "%s%s=%lld", n ? "," : "", k->params[i].name,
                         (long long)k->params[i].min);
        if (m < 0 || (size_t)m >= sizeof params - n) break;
        n += (size_t)m;
    }
    sim_config cfg = sim_config_default();
    cfg.kind = k->name;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    if (!w) {
        cfg.params = "";
        w = sim_world_create(&cfg, &rc);
    }
    FUZZ_CHECK(w != NULL, "cannot create a %s world: %s", k->name, err);
    return w;
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
        s->w = small_world(s->k, 7);
        s->w2 = small_world(s->k, 8);
        for (int t = 0; t < 2; t++) sim_world_step(s->w);
        size_t cap = sim_world_save_max(s->w);
        s->start = malloc(cap);
        FUZZ_CHECK(s->start != NULL, "oom");
        s->start_len = sim_world_save(s->w, s->start, cap);
        FUZZ_CHECK(s->start_len > 0, "%s: start state does not save", s->k->name);
    }
    return 0;
}

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

static void restore(kind_slot *s, sim_world *w)
{
    int rc = sim_world_load(w, s->start, s->start_len);
    FUZZ_CHECK(rc == 0, "%s: the start state no longer loads: %s", s->k->name, sim_world_error(w));
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
    if (prc == 0) FUZZ_CHECK(fuzz_terminated(tiny, sizeof tiny) && fuzz_terminated(pparams, sizeof pparams),
                             "peek params not terminated");

    for (int i = 0; i < nslots; i++) {
        kind_slot *s = &slots[i];
        uint64_t h0 = sim_world_hash(s->w), tick0 = sim_world_tick(s->w), seed0 = sim_world_seed(s->w);
        char params0[SIM_PARAMS_MAX];
        snprintf(params0, sizeof params0, "%s", sim_world_params(s->w));
        int rc = sim_world_load(s->w, blob, size);
        if (rc != 0) {
            FUZZ_CHECK(rc < 0 && sim_strerror(rc)[0] != '\0', "%s: load gave %d", s->k->name, rc);
            FUZZ_CHECK(sim_world_hash(s->w) == h0 && sim_world_tick(s->w) == tick0 &&
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
     * claims; any kind if it claims none), both ways. */
    for (int i = 0; i < nslots; i++) {
        if (prc == 0 && pk != slots[i].k->id) continue;
        size_t cap = 1 + (size_t)(size % 300);
        char *out = malloc(cap);
        FUZZ_CHECK(out != NULL, "oom");
        long d = sim_state_diff(blob, size, slots[i].start, slots[i].start_len, out, cap, 6);
        FUZZ_CHECK(fuzz_terminated(out, cap), "diff report not terminated (cap %zu)", cap);
        if (prc != 0) FUZZ_CHECK(d < 0, "a blob peek refuses was diffed (%ld)", d);
        d = sim_state_diff(slots[i].start, slots[i].start_len, blob, size, out, cap, 3);
        FUZZ_CHECK(fuzz_terminated(out, cap), "diff report not terminated (cap %zu)", cap);
        free(out);
        if (prc != 0) break;             /* it fails at the peek, whatever the other state */
    }
    free(blob);
    return 0;
}
