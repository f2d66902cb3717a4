/* script.c — see script.h. */
#include "script.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCRIPT_MAX 4096

script script_load(const char *kind, const char *path)
{
    script s = { 0 };
    const sim_kind *k = sim_kind_find(kind);
    ck_assert_msg(k != NULL, "no world kind '%s'", kind);
    FILE *fp = fopen(path, "r");
    ck_assert_msg(fp != NULL, "cannot open %s (tests run from tests/)", path);
    char line[512], err[256];
    s.v = calloc(SCRIPT_MAX, sizeof *s.v);
    ck_assert_ptr_nonnull(s.v);
    unsigned lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        sim_input x;
        int rc = sim_input_parse_line(k, line, &x, err, sizeof err);
        ck_assert_msg(rc >= 0, "%s:%u: %s", path, lineno, err);
        if (rc == 1) continue;                      /* a blank line or a comment */
        x.seq = lineno;
        ck_assert_msg(s.n < SCRIPT_MAX, "%s: more than %d inputs", path, SCRIPT_MAX);
        s.v[s.n++] = x;
    }
    fclose(fp);
    return s;
}

void script_free(script *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void script_feed(sim_world *w, const script *s, size_t *next)
{
    while (*next < s->n && s->v[*next].tick == sim_world_tick(w)) {
        ck_assert_msg(sim_world_input(w, &s->v[*next]) == 0, "%s", sim_world_error(w));
        (*next)++;
    }
}

int script_golden(sim_world *w, const script *s, const char *chain, int ticks, int every)
{
    FILE *fp = fopen(chain, "r");
    ck_assert_msg(fp != NULL, "missing %s (tests/golden.sh writes it, only ever on purpose)", chain);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t next = 0;
    int lines = 0;
    for (int t = 1; t <= ticks; t++) {
        script_feed(w, s, &next);
        sim_world_step(w);
        if (t % every) continue;
        sim_world_render(w, 0, &f);
        unsigned long long gt, gsh, gfh;
        ck_assert_msg(fscanf(fp, "%llu %llx %llx", &gt, &gsh, &gfh) == 3, "%s ends early at tick %d",
                      chain, t);
        ck_assert_uint_eq(gt, (unsigned long long)t);
        ck_assert_msg(gsh == sim_world_hash(w), "%s: state hash differs at tick %d", chain, t);
        ck_assert_msg(gfh == sim_frame_hash(&f), "%s: frame hash differs at tick %d", chain, t);
        lines++;
    }
    ck_assert_uint_eq(next, s->n);                  /* every scripted input was applied */
    fclose(fp);
    sim_frame_free(&f);
    return lines;
}

sim_world *script_world(const char *kind, uint64_t seed, const char *params)
{
    char err[256] = "";
    sim_config c = sim_config_default();
    c.kind = kind;
    c.seed = seed;
    c.params = params;
    c.err = err;
    c.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&c, &rc);
    ck_assert_msg(w != NULL, "create %s failed: %s", kind, err);
    return w;
}

sim_input script_input_of(const sim_world *w, const char *text)
{
    static uint32_t seq;
    char line[160], err[256];
    sim_input x;
    snprintf(line, sizeof line, "%llu %s", (unsigned long long)sim_world_tick(w), text);
    ck_assert_msg(sim_input_parse_line(sim_world_kind(w), line, &x, err, sizeof err) == 0, "%s: %s",
                  text, err);
    x.seq = ++seq;
    return x;
}

void script_input(sim_world *w, const char *text)
{
    sim_input x = script_input_of(w, text);
    ck_assert_msg(sim_world_input(w, &x) == 0, "%s: %s", text, sim_world_error(w));
}

script_golden_args script_golden_args_load(const char *kind)
{
    script_golden_args a = { 0 };
    char path[256], line[512];
    snprintf(path, sizeof path, "golden/%s.args", kind);
    FILE *fp = fopen(path, "r");
    ck_assert_msg(fp != NULL, "missing %s: every kind needs one (docs/ADDING-A-WORLD.md)", path);
    int have_seed = 0, have_ticks = 0;
    while (fgets(line, sizeof line, fp)) {
        if (line[0] == '#') continue;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            ck_assert_msg(v != NULL, "%s: %s needs a value", path, t);
            if (strcmp(t, "--seed") == 0) {
                a.seed = strtoull(v, NULL, 10);
                have_seed = 1;
            } else if (strcmp(t, "--ticks") == 0) {
                a.ticks = atoi(v);
                have_ticks = 1;
            } else if (strcmp(t, "--params") == 0) {
                ck_assert_msg(strlen(v) < sizeof a.params, "%s: --params too long", path);
                snprintf(a.params, sizeof a.params, "%s", v);
            } else {
                ck_abort_msg("%s: unknown option '%s' (--seed, --ticks and --params only)", path, t);
            }
        }
    }
    fclose(fp);
    ck_assert_msg(have_seed && have_ticks, "%s needs --seed and --ticks", path);
    ck_assert_msg(a.ticks >= SCRIPT_GOLDEN_EVERY, "%s: --ticks below %d", path, SCRIPT_GOLDEN_EVERY);
    return a;
}

/* Files a golden world is built from (scene=file:PATH), read relative to tests/golden/ as
 * tests/golden.sh runs there. */
static int golden_read(void *ud, const char *path, uint8_t **data, size_t *len, char *err,
                       size_t errlen)
{
    char full[512];
    (void)ud;
    snprintf(full, sizeof full, "%s%s", path[0] == '/' ? "" : "golden/", path);
    FILE *fp = fopen(full, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot open %s", full);
        return -1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    fclose(fp);
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %s", full);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

sim_world *script_golden_world(const char *kind, const script_golden_args *a)
{
    static const sim_file_reader reader = { golden_read, NULL };
    char err[256] = "";
    sim_config c = sim_config_default();
    c.kind = kind;
    c.seed = a->seed;
    c.params = a->params;
    c.err = err;
    c.errlen = sizeof err;
    c.files = &reader;
    int rc;
    sim_world *w = sim_world_create(&c, &rc);
    ck_assert_msg(w != NULL, "golden/%s.args: create failed: %s", kind, err);
    return w;
}

int script_golden_kind(const char *kind, sim_world **out)
{
    return script_golden_kind_on(kind, NULL, out);
}

int script_golden_kind_on(const char *run, const sim_tasks *tasks, sim_world **out)
{
    /* A run is a kind's name, or <kind>-<name> for another golden run of the kind. */
    char inputs[256], chain[256], kind[64];
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(run, "-"), run);
    snprintf(inputs, sizeof inputs, "golden/%s.inputs", run);
    snprintf(chain, sizeof chain, "golden/%s.chain", run);
    script_golden_args a = script_golden_args_load(run);
    script s = script_load(kind, inputs);
    sim_world *w = script_golden_world(kind, &a);
    sim_world_set_tasks(w, tasks);
    int lines = script_golden(w, &s, chain, a.ticks, SCRIPT_GOLDEN_EVERY);
    ck_assert_int_eq(lines, a.ticks / SCRIPT_GOLDEN_EVERY);
    script_free(&s);
    if (out) *out = w;
    else sim_world_destroy(w);
    return lines;
}

static void *runner_enqueue(sim_task_fn *fn, int count, int min_range, void *task_ctx, void *user)
{
    script_runner *r = user;
    int *order = r->scratch;
    ck_assert_int_le(count, SCRIPT_RUNNER_ITEMS);
    ck_assert_int_ge(min_range, 1);
    for (int i = 0; i < count; i++) order[i] = r->order == SCRIPT_RUN_BACKWARDS ? count - 1 - i : i;
    if (r->order == SCRIPT_RUN_SHUFFLED)
        for (int i = count - 1; i > 0; i--) {       /* Fisher–Yates from splitmix64 */
            int j = (int)(sim_splitmix64(&r->rng) % (uint64_t)(i + 1));
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    for (int i = 0; i < count; i++) {
        if (r->before) r->before(r->ud, task_ctx, order[i]);
        fn(order[i], order[i] + 1, (int)(r->items % r->tasks.workers), task_ctx);
        if (r->after) r->after(r->ud, task_ctx, order[i]);
        r->items++;
    }
    r->passes++;
    return NULL;                            /* done serially: no finish */
}

/* A graph, item by item: each turn takes a ready item (every predecessor done) by the runner's
 * order, and checks the graph is one (successors in range, no cycle, every item run once). */
static int runner_graph(sim_task_fn *fn, const sim_graph *g, void *task_ctx, void *user)
{
    script_runner *r = user;
    int n = g->count, *pend = r->scratch;
    ck_assert_int_le(n, SCRIPT_RUNNER_ITEMS / 2);
    char *done = (char *)&r->scratch[SCRIPT_RUNNER_ITEMS / 2];
    for (int i = 0; i < n; i++) {
        pend[i] = g->ndeps[i];
        done[i] = 0;
        ck_assert_int_le(g->succ_first[i], g->succ_first[i + 1]);
    }
    for (int k = 0; k < n; k++) {
        int ready = 0, pick = -1;
        for (int i = 0; i < n; i++) {
            if (done[i] || pend[i]) continue;
            ready++;
            if (r->order == SCRIPT_RUN_BACKWARDS) pick = i;                     /* the highest */
            else if (sim_splitmix64(&r->rng) % (uint64_t)ready == 0) pick = i;  /* reservoir */
        }
        ck_assert_msg(pick >= 0, "a graph of %d items has a cycle: %d of them never became ready",
                      n, n - k);
        if (r->before) r->before(r->ud, task_ctx, pick);
        fn(pick, pick + 1, (int)(r->items % r->tasks.workers), task_ctx);
        if (r->after) r->after(r->ud, task_ctx, pick);
        r->items++;
        done[pick] = 1;
        for (int e = g->succ_first[pick]; e < g->succ_first[pick + 1]; e++) {
            ck_assert_int_ge(g->succ[e], 0);
            ck_assert_int_lt(g->succ[e], n);
            ck_assert_int_gt(pend[g->succ[e]], 0);
            pend[g->succ[e]]--;
        }
    }
    r->graphs++;
    return 0;
}

void script_runner_graphs(script_runner *r)
{
    r->tasks.run_graph = runner_graph;
}

void script_runner_init(script_runner *r, int order, int workers)
{
    memset(r, 0, sizeof *r);
    r->order = order;
    r->rng = 0x5eed5eed5eedull;
    r->tasks.workers = workers;
    r->tasks.enqueue = runner_enqueue;
    r->tasks.user = r;
}

size_t script_sync(sim_world *a, sim_world *b, const script *s, int ticks,
                   void (*each)(sim_world *a, void *ud), void *ud)
{
    ck_assert_ptr_eq(sim_world_kind(a), sim_world_kind(b));
    int nviews = sim_world_kind(a)->nviews;
    size_t cap = sim_world_save_max(a);
    uint8_t *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    sim_frame fa, fb;
    ck_assert_int_eq(sim_world_frame_init(a, &fa), 0);
    ck_assert_int_eq(sim_world_frame_init(a, &fb), 0);
    size_t na = 0, nb = 0, start = 0;
    while (start < s->n && s->v[start].tick < sim_world_tick(a)) start++;   /* already past */
    na = start;
    for (int t = 0; t < ticks; t++) {
        size_t n = sim_world_save(a, buf, cap);
        ck_assert_uint_gt(n, 0);
        ck_assert_msg(sim_world_load(b, buf, n) == 0, "%s", sim_world_error(b));
        nb = na;
        script_feed(a, s, &na);
        script_feed(b, s, &nb);
        sim_world_step(a);
        sim_world_step(b);
        ck_assert_msg(sim_world_hash(a) == sim_world_hash(b), "%s diverged at tick %llu",
                      sim_world_kind(a)->name, (unsigned long long)sim_world_tick(a));
        for (int view = 0; view < nviews; view++) {
            sim_world_render(a, view, &fa);
            sim_world_render(b, view, &fb);
            ck_assert_msg(sim_frame_hash(&fa) == sim_frame_hash(&fb), "%s: view %d differs at tick %llu",
                          sim_world_kind(a)->name, view, (unsigned long long)sim_world_tick(a));
            ck_assert_uint_eq(fa.pal.version, fb.pal.version);
        }
        if (each) each(a, ud);
    }
    sim_frame_free(&fa);
    sim_frame_free(&fb);
    free(buf);
    return na - start;
}

int script_flip_bytes(sim_world *w, const uint8_t *buf, size_t n, size_t stride)
{
    uint8_t *bad = malloc(n);
    ck_assert_ptr_nonnull(bad);
    ck_assert_int_eq(sim_world_load(w, buf, n), 0);
    uint64_t h = sim_world_hash(w);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    int refused = 0;
    for (size_t i = 0; i < n; i += stride) {
        memcpy(bad, buf, n);
        bad[i] ^= 0x5a;
        if (sim_world_load(w, bad, n)) {
            refused++;
            ck_assert_uint_eq(sim_world_hash(w), h);    /* left exactly as it was */
            continue;
        }
        sim_world_step(w);
        for (int v = 0; v < sim_world_kind(w)->nviews; v++) sim_world_render(w, v, &f);
        ck_assert_int_eq(sim_world_load(w, buf, n), 0);
        h = sim_world_hash(w);
    }
    sim_frame_free(&f);
    free(bad);
    return refused;
}

void script_load_draws_alike(sim_world *a, sim_world *b, const uint8_t *buf, size_t n)
{
    sim_frame fa, fb;
    ck_assert_int_eq(sim_world_frame_init(a, &fa), 0);
    ck_assert_int_eq(sim_world_frame_init(a, &fb), 0);
    ck_assert_int_eq(sim_world_load(b, buf, n), 0);
    ck_assert_int_eq(sim_world_load(b, buf, n), 0);
    sim_world_render(a, 0, &fa);
    sim_world_render(b, 0, &fb);
    ck_assert_uint_eq(sim_frame_hash(&fa), sim_frame_hash(&fb));
    sim_frame_free(&fa);
    sim_frame_free(&fb);
}
