/* fuzz_world.h — the small worlds of the targets that build worlds (fuzz_state.c, fuzz_inputs.c,
 * fuzz_replay.c). A world costs what its size and scene make it cost at every step, save, load and
 * create, and these targets do those thousands of times a second: they build each kind at its
 * smallest. Every kind is still built (sim_kind_count): a new kind is fuzzed without a change here. */
#ifndef VIVARIUM_FUZZ_WORLD_H
#define VIVARIUM_FUZZ_WORLD_H
#include "fuzz.h"
#include "sim.h"

/* Params text with every INT param at its minimum, ENUM param i at choice[i] (its default where
 * choice is NULL or choice[i] < 0), STR params at their defaults. */
static inline void fuzz_small_params(const sim_kind *k, const int *choice, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < k->nparams; i++) {
        const sim_param_desc *d = &k->params[i];
        int m = 0;
        if (d->type == SIM_PARAM_INT)
            m = snprintf(out + n, cap - n, "%s%s=%lld", n ? "," : "", d->name, (long long)d->min);
        else if (d->type == SIM_PARAM_ENUM && choice && choice[i] >= 0)
            m = snprintf(out + n, cap - n, "%s%s=%s", n ? "," : "", d->name, d->choices[choice[i]]);
        if (m < 0 || (size_t)m >= cap - n) {
            out[n] = '\0';
            break;
        }
        n += (size_t)m;
    }
}

/* A world of kind k with those params, else (a kind whose minimums do not go together) with its
 * defaults. */
static inline sim_world *fuzz_small_world(const sim_kind *k, uint64_t seed, const int *choice)
{
    char params[SIM_PARAMS_MAX], err[256] = "";
    fuzz_small_params(k, choice, params, sizeof params);
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

static inline size_t fuzz_state_len(const sim_world *w)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    FUZZ_CHECK(buf != NULL, "oom");
    size_t n = sim_world_save(w, buf, cap);
    free(buf);
    return n;
}

/* The choices (choice[i] per param, -1 where not an ENUM) that make the smallest saved state:
 * each ENUM param in turn at the choice that saves fewest bytes (the empty scene where a kind has
 * one). A world that is only a place to load states into costs its save at every check that it
 * is untouched, and its load at every restore. */
static inline void fuzz_smallest_choices(const sim_kind *k, int *choice)
{
    for (int i = 0; i < k->nparams; i++) choice[i] = -1;
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].type != SIM_PARAM_ENUM) continue;
        size_t best = SIZE_MAX;
        int pick = -1;
        for (int c = 0; k->params[i].choices[c]; c++) {
            choice[i] = c;
            sim_world *w = fuzz_small_world(k, 1, choice);
            size_t len = fuzz_state_len(w);
            sim_world_destroy(w);
            if (len > 0 && len < best) {
                best = len;
                pick = c;
            }
        }
        choice[i] = pick;
    }
}

#endif
