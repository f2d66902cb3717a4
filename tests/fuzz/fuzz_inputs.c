/* fuzz_inputs.c — libFuzzer target: the text a user gives `viv sim` — world params
 * (`key=value,…`, also what an admin's create message carries) and an inputs file
 * (`<tick> <input> <args…>` per line, element names allowed).
 *
 * The first line is params text: it is parsed against every kind (sim_params_parse), and what
 * parses must be canonical-stable (parsing the canonical text gives the same canonical text).
 * Every other line goes, for every kind, through what clients/cli_common.c cli_inputs_load does
 * with it — sim_input_parse_line, then sim_world_check_input against a small world of that kind —
 * and an input that passes is queued (sim_world_input) and stepped: the world must take any
 * input its checks let through, at the edges of every range, without harm. The worlds are put
 * back to their start state after each input file. */
#include "fuzz_world.h"

#define MAX_KINDS 16
#define LINE_MAX_BYTES 1022     /* cli_inputs_load refuses longer lines */
#define MAX_STEPS 32            /* inputs applied per run, per kind */

typedef struct kind_slot {
    const sim_kind *k;
    sim_world *w;
    uint8_t *start;
    size_t start_len;
} kind_slot;

static kind_slot slots[MAX_KINDS];
static int nslots;

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
        s->w = fuzz_small_world(s->k, 3, NULL);
        size_t cap = sim_world_save_max(s->w);
        s->start = malloc(cap);
        FUZZ_CHECK(s->start != NULL, "oom");
        s->start_len = sim_world_save(s->w, s->start, cap);
        FUZZ_CHECK(s->start_len > 0, "%s: start state does not save", s->k->name);
    }
    return 0;
}

static void check_params(const char *text)
{
    for (int i = 0; i < nslots; i++) {
        const sim_kind *k = slots[i].k;
        sim_params p;
        char canon[SIM_PARAMS_MAX], err[160], canon2[SIM_PARAMS_MAX];
        int rc = sim_params_parse(k, text, &p, canon, sizeof canon, err, sizeof err);
        FUZZ_CHECK(rc == 0 || rc == SIM_EPARAM, "%s: params parse gave %d", k->name, rc);
        FUZZ_CHECK(fuzz_terminated(err, sizeof err), "params error not terminated");
        if (rc != 0) {
            FUZZ_CHECK(err[0] != '\0', "%s: a refused params text says nothing", k->name);
            continue;
        }
        for (int j = 0; j < k->nparams; j++)
            if (k->params[j].type == SIM_PARAM_INT)
                FUZZ_CHECK(p.ival[j] >= k->params[j].min && p.ival[j] <= k->params[j].max,
                           "%s: %s=%lld is out of its range", k->name, k->params[j].name, (long long)p.ival[j]);
        rc = sim_params_parse(k, canon, &p, canon2, sizeof canon2, err, sizeof err);
        FUZZ_CHECK(rc == 0 && strcmp(canon, canon2) == 0, "%s: canonical params '%s' are not stable (%s)",
                   k->name, canon, rc ? err : canon2);
        /* A short error buffer must still come back terminated. */
        char small[3];
        (void)sim_params_parse(k, text, &p, NULL, 0, small, sizeof small);
        FUZZ_CHECK(fuzz_terminated(small, sizeof small), "short params error not terminated");
    }
}

/* One line, as cli_inputs_load reads it (trailing newline included). */
static void check_line(const char *line, unsigned lineno, int *stepped)
{
    for (int i = 0; i < nslots; i++) {
        kind_slot *s = &slots[i];
        sim_input in;
        size_t errcap = 1 + lineno % 200;          /* exact-size buffers, big and small */
        char *err = malloc(errcap);
        char big[256];
        FUZZ_CHECK(err != NULL, "oom");
        memset(err, 'x', errcap);
        big[0] = '\0';
        int rc = sim_input_parse_line(s->k, line, &in, big, sizeof big);
        int rc2 = sim_input_parse_line(s->k, line, &in, err, errcap);
        FUZZ_CHECK(rc == rc2, "%s: parse result depends on the error buffer", s->k->name);
        FUZZ_CHECK(rc == 0 || rc == 1 || rc == SIM_EINPUT, "%s: parse gave %d", s->k->name, rc);
        if (rc == SIM_EINPUT) {
            FUZZ_CHECK(fuzz_terminated(err, errcap), "%s: parse error not terminated", s->k->name);
            FUZZ_CHECK(big[0] != '\0', "%s: a refused line says nothing", s->k->name);
        }
        free(err);
        if (rc != 0) continue;
        FUZZ_CHECK(in.kind < s->k->ninputs && in.nargs == s->k->inputs[in.kind].nargs,
                   "%s: parse made input kind %u with %u args", s->k->name, in.kind, in.nargs);
        in.client = 0;
        in.seq = lineno;
        rc = sim_world_check_input(s->w, &in);
        if (rc != 0) {
            FUZZ_CHECK(rc < 0 && sim_world_error(s->w)[0] != '\0', "%s: check gave %d silently", s->k->name, rc);
            continue;
        }
        if (stepped[i] >= MAX_STEPS) continue;
        uint64_t given = in.tick;
        in.tick = sim_world_tick(s->w);
        rc = sim_world_input(s->w, &in);
        FUZZ_CHECK(rc == 0, "%s: an input check passed (tick %llu) is refused: %s", s->k->name,
                   (unsigned long long)given, sim_world_error(s->w));
        sim_world_step(s->w);
        stepped[i]++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int stepped[MAX_KINDS] = { 0 };
    size_t off = 0;
    unsigned lineno = 0;
    while (off < size) {
        const uint8_t *nl = memchr(data + off, '\n', size - off);
        size_t len = nl ? (size_t)(nl - (data + off)) + 1 : size - off;
        lineno++;
        if (len > LINE_MAX_BYTES) break;         /* "line is longer than 1022 bytes" */
        char *line = fuzz_strdup(data + off, len);
        /* A NUL ends the text the parsers see, as it does for fgets' callers. */
        if (lineno == 1) {
            if (len && line[len - 1] == '\n') line[len - 1] = '\0';
            check_params(line);
        } else {
            check_line(line, lineno, stepped);
        }
        free(line);
        off += len;
    }
    for (int i = 0; i < nslots; i++) {
        if (!stepped[i]) continue;
        /* Once, after every input is stepped, not after each: a hash is a whole save, the
         * costliest call here, and a state that stopped saving (a non-finite value) stays so. */
        FUZZ_CHECK(sim_world_hash(slots[i].w) != 0, "%s: state stopped saving after the inputs",
                   slots[i].k->name);
        int rc = sim_world_load(slots[i].w, slots[i].start, slots[i].start_len);
        FUZZ_CHECK(rc == 0, "%s: start state no longer loads", slots[i].k->name);
    }
    return 0;
}
