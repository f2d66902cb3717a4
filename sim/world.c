/* world.c — the kind registry, params and input parsing, and the generic world: input queue,
 * step, render, save/load/hash. Everything kind-specific goes through the sim_kind vtable.
 *
 * Saved state layout (all little-endian; docs/REPLAY.md repeats it):
 *   "VIVW" magic · u16 format (1) · u16 kind id · u32 kind state version · u32 total length ·
 *   u64 seed · u64 tick · u16 params length · params text · u32 queued inputs · each input as
 *   u64 tick, u32 client, u32 seq, u16 kind, u16 nargs, 8 × i32 args · the kind's own payload. */
#include "sim_internal.h"
#include <stdlib.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#define SIM_STATE_FORMAT 1
#define SIM_INPUT_BYTES 52
#define SIM_HEADER_FIXED 34         /* bytes before the params text */

/* The registry, from the one list of kinds (kinds.h). */
static const sim_kind *const kinds[] = {
#define SIM_KIND(name) &sim__kind_##name,
#include "kinds.h"
#undef SIM_KIND
};

struct sim_world {
    const sim_kind *kind;
    uint64_t seed;
    uint64_t tick;
    char params[SIM_PARAMS_MAX];
    void *impl;
    sim_input *queue;
    uint32_t nqueue;
    sim_input *applied;             /* what the last step applied: the queue's buffer, swapped */
    uint32_t napplied;
    uint8_t *scratch;               /* save buffer for hashing: sized at create, reused */
    size_t scratch_cap;
    char err[256];
    int state_only;                 /* created with bare = 2: never rendered */
    sim_tasks tasks;                /* the host's task system; workers <= 1: inline */
    sim_events events;              /* the last step's (not state: never saved or hashed) */
    sim_phase_hook phases;          /* fn NULL: off (not state) */
    int nphase;                     /* phases marked in the running step */
    uint32_t sver;                  /* the state version it saves and hashes as (its kind's
                                       latest, or the one it loaded) */
};

/* ---- kinds ------------------------------------------------------------------------------------ */
int sim_kind_count(void) { return (int)(sizeof kinds / sizeof kinds[0]); }

const sim_kind *sim_kind_at(int i)
{
    return (i >= 0 && i < sim_kind_count()) ? kinds[i] : NULL;
}

const sim_kind *sim_kind_find(const char *name)
{
    for (int i = 0; name && i < sim_kind_count(); i++)
        if (strcmp(kinds[i]->name, name) == 0) return kinds[i];
    return NULL;
}

const sim_kind *sim_kind_by_id(uint16_t id)
{
    for (int i = 0; i < sim_kind_count(); i++)
        if (kinds[i]->id == id) return kinds[i];
    return NULL;
}

int sim_kind_input_find(const sim_kind *k, const char *name)
{
    for (int i = 0; name && i < k->ninputs; i++)
        if (strcmp(k->inputs[i].name, name) == 0) return i;
    return -1;
}

const sim_enum_desc *sim_kind_enum_find(const sim_kind *k, const char *name)
{
    for (int i = 0; name && i < k->nenums; i++)
        if (strcmp(k->enums[i].name, name) == 0) return &k->enums[i];
    return NULL;
}

int sim_kind_view_find(const sim_kind *k, const char *name)
{
    for (int i = 0; name && i < k->nviews; i++)
        if (strcmp(k->views[i], name) == 0) return i;
    return -1;
}

/* ---- small string helpers (no stdio in the core) --------------------------------------------- */
static void append(char *dst, size_t cap, size_t *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (*n + 1 < cap) dst[*n] = s[i];
        (*n)++;
    }
    if (cap) dst[*n < cap ? *n : cap - 1] = '\0';
}

/* Strict decimal integer: optional sign, digits only, within [INT64_MIN/2, INT64_MAX/2]. */
static int parse_i64(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (len == 0) return -1;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == len) return -1;
    int64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        if (v > (INT64_MAX / 2 - 9) / 10) return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

static void list_names(char *dst, size_t cap, const char *const *names, int n, int stride_is_null)
{
    size_t len = strlen(dst);
    for (int i = 0; (stride_is_null ? names[i] != NULL : i < n); i++) {
        if (i) append(dst, cap, &len, ", ", 2);
        append(dst, cap, &len, names[i], strlen(names[i]));
    }
}

/* ---- params ---------------------------------------------------------------------------------- */
int sim_params_parse(const sim_kind *k, const char *text, sim_params *out, char *canon,
                     size_t canonlen, char *err, size_t errlen)
{
    int seen[SIM_MAX_PARAMS] = { 0 };
    char tmp[SIM_PARAM_STR_MAX];
    memset(out, 0, sizeof *out);
    if (err && errlen) err[0] = '\0';
    for (int i = 0; i < k->nparams; i++) {
        const sim_param_desc *d = &k->params[i];
        if (d->type == SIM_PARAM_STR) {
            sim__fmt(out->sval[i], SIM_PARAM_STR_MAX, "%s", d->def_str ? d->def_str : "");
        } else {
            out->ival[i] = d->def;
            if (d->type == SIM_PARAM_ENUM)
                sim__fmt(out->sval[i], SIM_PARAM_STR_MAX, "%s", d->choices[d->def]);
            else
                sim__fmt(out->sval[i], SIM_PARAM_STR_MAX, "%lld", (long long)d->def);
        }
    }
    const char *p = text ? text : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && (*p == ' ' || *p == '\t')) { p++; len--; }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        if (len == 0) {
            if (!end) break;
            p = end + 1;
            continue;
        }
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
            memcpy(tmp, p, n); tmp[n] = '\0';
            sim__fmt(err, errlen, "%s params: '%s' is not key=value", k->name, tmp);
            return SIM_EPARAM;
        }
        size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
        while (klen && (p[klen - 1] == ' ')) klen--;
        const char *v = eq + 1;
        while (vlen && *v == ' ') { v++; vlen--; }
        int idx = -1;
        for (int i = 0; i < k->nparams; i++)
            if (strlen(k->params[i].name) == klen && memcmp(k->params[i].name, p, klen) == 0) idx = i;
        size_t n = klen < sizeof tmp - 1 ? klen : sizeof tmp - 1;
        memcpy(tmp, p, n); tmp[n] = '\0';
        if (idx < 0) {
            sim__fmt(err, errlen, "%s params: unknown key '%s' (known: ", k->name, tmp);
            size_t el = err ? strlen(err) : 0;
            for (int i = 0; err && i < k->nparams; i++) {
                if (i) append(err, errlen, &el, ", ", 2);
                append(err, errlen, &el, k->params[i].name, strlen(k->params[i].name));
            }
            if (err) append(err, errlen, &el, ")", 1);
            return SIM_EPARAM;
        }
        if (seen[idx]++) {
            sim__fmt(err, errlen, "%s params: '%s' given twice", k->name, tmp);
            return SIM_EPARAM;
        }
        const sim_param_desc *d = &k->params[idx];
        if (vlen >= SIM_PARAM_STR_MAX) {
            sim__fmt(err, errlen, "%s params: value of '%s' is too long (max %d bytes)", k->name,
                     d->name, SIM_PARAM_STR_MAX - 1);
            return SIM_EPARAM;
        }
        char val[SIM_PARAM_STR_MAX];
        memcpy(val, v, vlen);
        val[vlen] = '\0';
        if (d->type == SIM_PARAM_INT) {
            int64_t iv;
            if (parse_i64(val, vlen, &iv) != 0 || iv < d->min || iv > d->max) {
                sim__fmt(err, errlen, "%s params: %s=%s must be an integer in %lld..%lld", k->name,
                         d->name, val, (long long)d->min, (long long)d->max);
                return SIM_EPARAM;
            }
            out->ival[idx] = iv;
            sim__fmt(out->sval[idx], SIM_PARAM_STR_MAX, "%lld", (long long)iv);
        } else if (d->type == SIM_PARAM_ENUM) {
            int found = -1;
            for (int c = 0; d->choices[c]; c++)
                if (strcmp(d->choices[c], val) == 0) found = c;
            if (found < 0) {
                sim__fmt(err, errlen, "%s params: %s=%s is not one of: ", k->name, d->name, val);
                if (err) list_names(err, errlen, d->choices, 0, 1);
                return SIM_EPARAM;
            }
            out->ival[idx] = found;
            sim__fmt(out->sval[idx], SIM_PARAM_STR_MAX, "%s", val);
        } else {
            sim__fmt(out->sval[idx], SIM_PARAM_STR_MAX, "%s", val);
        }
        if (!end) break;
        p = end + 1;
    }
    size_t cn = 0;
    char scratch[SIM_PARAMS_MAX];
    char *dst = canon ? canon : scratch;
    size_t dcap = canon ? canonlen : sizeof scratch;
    if (dcap) dst[0] = '\0';
    for (int i = 0; i < k->nparams; i++) {
        if (i) append(dst, dcap, &cn, ",", 1);
        append(dst, dcap, &cn, k->params[i].name, strlen(k->params[i].name));
        append(dst, dcap, &cn, "=", 1);
        append(dst, dcap, &cn, out->sval[i], strlen(out->sval[i]));
    }
    if (cn >= dcap || cn >= SIM_PARAMS_MAX) {
        sim__fmt(err, errlen, "%s params: canonical text is longer than %d bytes", k->name,
                 SIM_PARAMS_MAX - 1);
        return SIM_EPARAM;
    }
    return 0;
}

/* ---- inputs ---------------------------------------------------------------------------------- */
int sim_input_from_words(const sim_kind *k, const char *const *words, int nwords, sim_input *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (nwords < 1) {
        sim__fmt(err, errlen, "missing input kind");
        return SIM_EINPUT;
    }
    int ki = sim_kind_input_find(k, words[0]);
    if (ki < 0) {
        sim__fmt(err, errlen, "unknown input '%s' for %s (inputs: ", words[0], k->name);
        size_t el = err ? strlen(err) : 0;
        for (int i = 0; err && i < k->ninputs; i++) {
            if (i) append(err, errlen, &el, ", ", 2);
            append(err, errlen, &el, k->inputs[i].name, strlen(k->inputs[i].name));
        }
        if (err) append(err, errlen, &el, ")", 1);
        return SIM_EINPUT;
    }
    const sim_input_desc *d = &k->inputs[ki];
    if (nwords - 1 != d->nargs) {
        sim__fmt(err, errlen, "%s takes %d argument%s (", d->name, d->nargs,
                 d->nargs == 1 ? "" : "s");
        size_t el = err ? strlen(err) : 0;
        for (int i = 0; err && i < d->nargs; i++) {
            if (i) append(err, errlen, &el, " ", 1);
            append(err, errlen, &el, d->args[i].name, strlen(d->args[i].name));
        }
        char tail[48];
        sim__fmt(tail, sizeof tail, "), got %d", nwords - 1);
        if (err) append(err, errlen, &el, tail, strlen(tail));
        return SIM_EINPUT;
    }
    out->kind = (uint16_t)ki;
    out->nargs = (uint16_t)d->nargs;
    for (int i = 0; i < d->nargs; i++) {
        const char *wd = words[i + 1];
        int64_t v;
        if (parse_i64(wd, strlen(wd), &v) == 0) {
            if (v < INT32_MIN || v > INT32_MAX) {
                sim__fmt(err, errlen, "%s: %s=%s does not fit in 32 bits", d->name,
                         d->args[i].name, wd);
                return SIM_EINPUT;
            }
            out->args[i] = (int32_t)v;
            continue;
        }
        const sim_enum_desc *e = d->args[i].enum_name ? sim_kind_enum_find(k, d->args[i].enum_name)
                                                      : NULL;
        int found = -1;
        for (int c = 0; e && c < e->count; c++)
            if (strcmp(e->values[c], wd) == 0) found = c;
        if (found < 0) {
            if (e) {
                sim__fmt(err, errlen, "%s: unknown %s '%s' (known: ", d->name, e->name, wd);
                if (err) list_names(err, errlen, e->values, e->count, 0);
                size_t el = strlen(err);
                append(err, errlen, &el, ")", 1);
            } else {
                sim__fmt(err, errlen, "%s: %s must be an integer, got '%s'", d->name,
                         d->args[i].name, wd);
            }
            return SIM_EINPUT;
        }
        out->args[i] = found;
    }
    return 0;
}

int sim_input_parse_line(const sim_kind *k, const char *line, sim_input *out, char *err,
                         size_t errlen)
{
    enum { MAXW = SIM_INPUT_MAX_ARGS + 2, WLEN = 64 };
    char words[MAXW][WLEN];
    const char *wp[MAXW];
    int nw = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p || *p == '#') break;
        const char *s = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '#') p++;
        size_t len = (size_t)(p - s);
        if (nw == MAXW) {
            sim__fmt(err, errlen, "too many words (an input has at most %d arguments)",
                     SIM_INPUT_MAX_ARGS);
            return SIM_EINPUT;
        }
        if (len >= WLEN) {
            sim__fmt(err, errlen, "word %d is too long", nw + 1);
            return SIM_EINPUT;
        }
        memcpy(words[nw], s, len);
        words[nw][len] = '\0';
        wp[nw] = words[nw];
        nw++;
    }
    if (nw == 0) return 1;
    int64_t tick;
    if (parse_i64(wp[0], strlen(wp[0]), &tick) != 0 || tick < 0) {
        sim__fmt(err, errlen, "expected '<tick> <input> <args…>', and '%s' is not a tick", wp[0]);
        return SIM_EINPUT;
    }
    if (nw < 2) {
        sim__fmt(err, errlen, "tick %lld has no input kind", (long long)tick);
        return SIM_EINPUT;
    }
    int rc = sim_input_from_words(k, wp + 1, nw - 1, out, err, errlen);
    if (rc) return rc;
    out->tick = (uint64_t)tick;
    return 0;
}

/* ---- the world ------------------------------------------------------------------------------- */
sim_config sim_config_default(void)
{
    sim_config c;
    memset(&c, 0, sizeof c);
    c.kind = "sand";
    c.seed = 1;
    c.params = "";
    return c;
}

static size_t header_bytes(const char *params)
{
    return SIM_HEADER_FIXED + strlen(params) + 4;
}

static size_t world_save_max(const sim_kind *k, const void *impl, const char *params)
{
    return header_bytes(params) + (size_t)SIM_TICK_INPUTS_MAX * SIM_INPUT_BYTES + k->save_max(impl);
}

sim_world *sim_world_create(const sim_config *cfg, int *err)
{
    int rc = 0;
    sim_world *w = NULL;
    char *msg = cfg ? cfg->err : NULL;
    size_t msglen = cfg ? cfg->errlen : 0;
    if (msg && msglen) msg[0] = '\0';
    if (!cfg) {
        rc = SIM_EINVAL;
        goto done;
    }
    const sim_kind *k = sim_kind_find(cfg->kind);
    if (!k) {
        sim__fmt(msg, msglen, "unknown world kind '%s' (kinds: ", cfg->kind ? cfg->kind : "");
        size_t el = msg ? strlen(msg) : 0;
        for (int i = 0; msg && i < sim_kind_count(); i++) {
            if (i) append(msg, msglen, &el, ", ", 2);
            append(msg, msglen, &el, kinds[i]->name, strlen(kinds[i]->name));
        }
        if (msg) append(msg, msglen, &el, ")", 1);
        rc = SIM_EKIND;
        goto done;
    }
    w = calloc(1, sizeof *w);
    if (!w) {
        rc = SIM_ENOMEM;
        goto done;
    }
    sim_params p;
    rc = sim_params_parse(k, cfg->params, &p, w->params, sizeof w->params, msg, msglen);
    if (rc) goto done;
    w->kind = k;
    w->sver = k->state_version;
    w->seed = cfg->seed;
    w->queue = calloc(SIM_TICK_INPUTS_MAX, sizeof *w->queue);
    w->applied = calloc(SIM_TICK_INPUTS_MAX, sizeof *w->applied);
    if (!w->queue || !w->applied) {
        rc = SIM_ENOMEM;
        goto done;
    }
    p.files = cfg->files;
    w->state_only = cfg->bare == 2;
    sim_world_set_tasks(w, cfg->tasks);
    rc = k->create(&p, cfg->seed, cfg->bare == 2 ? 2 : cfg->bare ? 1 : 0, &w->impl, msg, msglen);
    if (rc) {
        w->impl = NULL;
        goto done;
    }
    w->scratch_cap = world_save_max(k, w->impl, w->params);
    w->scratch = malloc(w->scratch_cap);
    if (!w->scratch) rc = SIM_ENOMEM;
done:
    if (rc) {
        if (rc == SIM_ENOMEM) sim__fmt(msg, msglen, "out of memory creating the world");
        sim_world_destroy(w);
        w = NULL;
    }
    if (err) *err = rc;
    return w;
}

void sim_world_destroy(sim_world *w)
{
    if (!w) return;
    if (w->impl) w->kind->destroy(w->impl);
    free(w->queue);
    free(w->applied);
    free(w->scratch);
    free(w);
}

const sim_kind *sim_world_kind(const sim_world *w) { return w->kind; }
uint64_t sim_world_seed(const sim_world *w) { return w->seed; }
const char *sim_world_params(const sim_world *w) { return w->params; }
uint64_t sim_world_tick(const sim_world *w) { return w->tick; }
const char *sim_world_error(const sim_world *w) { return w->err; }

/* The kind table's checks: a known input, its argument count, every argument in its range. */
static int check_args(const sim_kind *k, const sim_input *in, char *err, size_t errlen)
{
    if (in->kind >= k->ninputs) {
        sim__fmt(err, errlen, "unknown input kind %u for %s", (unsigned)in->kind, k->name);
        return SIM_EINPUT;
    }
    const sim_input_desc *d = &k->inputs[in->kind];
    if (in->nargs != d->nargs) {
        sim__fmt(err, errlen, "%s takes %d arguments, got %u", d->name, d->nargs,
                 (unsigned)in->nargs);
        return SIM_EINPUT;
    }
    for (int i = 0; i < d->nargs; i++) {
        if (in->args[i] < d->args[i].min || in->args[i] > d->args[i].max) {
            sim__fmt(err, errlen, "%s: %s=%d is out of range %d..%d", d->name, d->args[i].name,
                     (int)in->args[i], (int)d->args[i].min, (int)d->args[i].max);
            return SIM_EINPUT;
        }
    }
    return 0;
}

static int check_input(const sim_world *w, const sim_input *in, int check_tick, char *err,
                       size_t errlen)
{
    const sim_kind *k = w->kind;
    int rc = check_args(k, in, err, errlen);
    if (rc) return rc;
    const sim_input_desc *d = &k->inputs[in->kind];
    if (check_tick && in->tick != w->tick) {
        sim__fmt(err, errlen, "%s for tick %llu, but the next tick is %llu", d->name,
                 (unsigned long long)in->tick, (unsigned long long)w->tick);
        return SIM_ETICK;
    }
    if (k->check_input) {
        rc = k->check_input(w->impl, in, err, errlen);
        if (rc) return rc;
    }
    return 0;
}

int sim_world_check_input(const sim_world *w, const sim_input *in)
{
    sim_world *mw = (sim_world *)w;      /* only the error sentence changes */
    return check_input(w, in, 0, mw->err, sizeof mw->err);
}

int sim_world_input(sim_world *w, const sim_input *in)
{
    int rc = check_input(w, in, 1, w->err, sizeof w->err);
    if (rc) return rc;
    if (w->nqueue == SIM_TICK_INPUTS_MAX) {
        sim__fmt(w->err, sizeof w->err, "more than %d inputs for tick %llu", SIM_TICK_INPUTS_MAX,
                 (unsigned long long)w->tick);
        return SIM_EFULL;
    }
    /* Keep the queue sorted by (client, seq): that is the order of application. */
    uint32_t pos = w->nqueue;
    while (pos > 0) {
        const sim_input *q = &w->queue[pos - 1];
        if (q->client < in->client || (q->client == in->client && q->seq < in->seq)) break;
        if (q->client == in->client && q->seq == in->seq) {
            sim__fmt(w->err, sizeof w->err, "input (client %u, seq %u) is already queued",
                     (unsigned)in->client, (unsigned)in->seq);
            return SIM_EDUP;
        }
        pos--;
    }
    memmove(&w->queue[pos + 1], &w->queue[pos], (w->nqueue - pos) * sizeof *w->queue);
    w->queue[pos] = *in;
    for (int i = in->nargs; i < SIM_INPUT_MAX_ARGS; i++) w->queue[pos].args[i] = 0;
    w->nqueue++;
    return 0;
}

void sim_world_set_tasks(sim_world *w, const sim_tasks *t)
{
    memset(&w->tasks, 0, sizeof w->tasks);
    if (t && t->workers > 1 && t->enqueue) w->tasks = *t;
    if (w->tasks.workers > SIM_WORKERS_MAX) w->tasks.workers = SIM_WORKERS_MAX;
}

void sim__tasks_run(const sim_tasks *t, sim_task_fn *fn, int count, int min_range, void *task_ctx)
{
    if (count <= 0) return;
    if (!t || t->workers <= 1) {
        fn(0, count, 0, task_ctx);
        return;
    }
    void *task = t->enqueue(fn, count, min_range < 1 ? 1 : min_range, task_ctx, t->user);
    if (task && t->finish) t->finish(task, t->user);
}

void sim_world_set_phases(sim_world *w, const sim_phase_hook *h)
{
    memset(&w->phases, 0, sizeof w->phases);
    if (h && h->fn) w->phases = *h;
}

void sim__phase_mark(const sim_ctx *ctx, const char *name)
{
    sim_world *w = ctx->phases;
    /* Mid-step the saved bytes are the header (tick not yet advanced, the queue already spent)
     * and the kind's state as the passes left it: a pure function of where the step is. */
    w->phases.fn(w->phases.user, w->tick, w->nphase++, name, sim_world_hash(w));
}

void sim_world_step(sim_world *w)
{
    sim_ctx ctx = { w->seed, w->tick, w->tasks.workers > 1 ? &w->tasks : NULL, &w->events,
                    w->phases.fn ? w : NULL };
    w->nphase = 0;
    w->events.n = 0;
    w->events.dropped = 0;
    for (uint32_t i = 0; i < w->nqueue; i++) w->kind->apply_input(w->impl, &ctx, &w->queue[i]);
    /* The applied inputs stay readable (sim_world_applied) until the next step or load; the two
     * buffers trade places, so nothing is copied. */
    sim_input *spent = w->applied;
    w->applied = w->queue;
    w->napplied = w->nqueue;
    w->queue = spent;
    w->nqueue = 0;
    sim_phase_end(&ctx, "inputs");
    w->kind->step(w->impl, &ctx);
    w->tick++;
}

int sim_world_events(const sim_world *w, const sim_event **out, uint32_t *dropped)
{
    if (out) *out = w->events.ev;
    if (dropped) *dropped = w->events.dropped;
    return w->events.n;
}

sim_event *sim_event_add(const sim_ctx *ctx, const char *name)
{
    sim_events *es = ctx ? ctx->events : NULL;
    if (!es) return NULL;
    if (es->n >= SIM_EVENTS_MAX) {
        es->dropped++;
        return NULL;
    }
    sim_event *e = &es->ev[es->n++];
    e->tick = ctx->tick;
    e->name = name;
    e->nfields = 0;
    return e;
}

static sim_event_field *event_field(sim_event *e, const char *key)
{
    if (!e || e->nfields >= SIM_EVENT_FIELDS) return NULL;
    sim_event_field *f = &e->f[e->nfields++];
    f->key = key;
    f->str = NULL;
    f->num = 0;
    return f;
}

void sim_event_num(sim_event *e, const char *key, int64_t v)
{
    sim_event_field *f = event_field(e, key);
    if (f) f->num = v;
}

void sim_event_str(sim_event *e, const char *key, const char *v)
{
    sim_event_field *f = event_field(e, key);
    if (f) f->str = v;
}

size_t sim_world_applied(const sim_world *w, const sim_input **out)
{
    if (out) *out = w->applied;
    return w->napplied;
}

void sim_world_frame_size(const sim_world *w, int *fw, int *fh)
{
    w->kind->frame_size(w->impl, fw, fh);
}

int sim_world_frame_init(const sim_world *w, sim_frame *f)
{
    int fw, fh;
    sim_world_frame_size(w, &fw, &fh);
    return sim_frame_init(f, fw, fh);
}

void sim_world_render(const sim_world *w, int view, sim_frame *out)
{
    sim_ctx ctx = { w->seed, w->tick, w->tasks.workers > 1 ? &w->tasks : NULL, NULL, NULL };
    uint64_t drawn = out->drawn;
    if (view < 0 || view >= w->kind->nviews) view = 0;
    if (w->state_only) {                /* its kind may have skipped what drawing needs */
        memset(out->px, 0, (size_t)out->w * out->h);
        out->drawn = 0;
        return;
    }
    w->kind->render(w->impl, &ctx, view, out);
    /* A kind that left no mark of its own drew over another's: no renderer may take these pixels
     * for what it drew last (sim_frame.drawn). */
    if (out->drawn == drawn) out->drawn = 0;
}

size_t sim_world_save_max(const sim_world *w) { return w->scratch_cap; }

/* Does w's state hash take its payload in a form of its own (sand's chunk digests)? */
static int hashes_form(const sim_world *w)
{
    return w->kind->save_hashed && w->sver >= w->kind->hashed_from;
}

/* The saved state through wr, its total length (bytes 12..15) given as total; the payload in its
 * hashed form when `hashed`. */
static void save_to(const sim_world *w, sim_writer *wr, uint32_t total, int hashed)
{
    size_t plen = strlen(w->params);
    sim__w_bytes(wr, "VIVW", 4);
    sim__w_u16(wr, SIM_STATE_FORMAT);
    sim__w_u16(wr, w->kind->id);
    sim__w_u32(wr, w->sver);
    sim__w_u32(wr, total);
    sim__w_u64(wr, w->seed);
    sim__w_u64(wr, w->tick);
    sim__w_u16(wr, (uint16_t)plen);
    sim__w_bytes(wr, w->params, plen);
    sim__w_u32(wr, w->nqueue);
    for (uint32_t i = 0; i < w->nqueue; i++) {
        const sim_input *in = &w->queue[i];
        sim__w_u64(wr, in->tick);
        sim__w_u32(wr, in->client);
        sim__w_u32(wr, in->seq);
        sim__w_u16(wr, in->kind);
        sim__w_u16(wr, in->nargs);
        for (int a = 0; a < SIM_INPUT_MAX_ARGS; a++) sim__w_i32(wr, in->args[a]);
    }
    if (hashed) w->kind->save_hashed(w->impl, wr);
    else w->kind->save(w->impl, wr);
}

size_t sim_world_save(const sim_world *w, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    save_to(w, &wr, 0, 0);                       /* total length, patched below */
    if (wr.overflow || wr.len > UINT32_MAX) return 0;
    uint32_t total = (uint32_t)wr.len;
    buf[12] = (uint8_t)total; buf[13] = (uint8_t)(total >> 8);
    buf[14] = (uint8_t)(total >> 16); buf[15] = (uint8_t)(total >> 24);
    return wr.len;
}

/* The saved bytes, or their hashed form, to put; its length, or 0 where a save would fail. */
static size_t stream(const sim_world *w, int hashed, void (*put)(void *ud, const void *p, size_t n),
                     void *ud)
{
    /* The saved blob's length first (it is in the header, in either form), by a pass that writes
     * nothing; then the bytes. */
    sim_writer wr;
    sim__w_count(&wr);
    save_to(w, &wr, 0, 0);
    if (wr.overflow || wr.len > UINT32_MAX) return 0;
    size_t total = wr.len;
    uint8_t stage[4096];
    sim__w_sink(&wr, stage, sizeof stage, put, ud);
    save_to(w, &wr, (uint32_t)total, hashed);
    sim__w_flush(&wr);
    if (wr.overflow) return 0;
    return hashed ? wr.done : wr.done == total ? total : 0;
}

size_t sim_world_save_stream(const sim_world *w, void (*put)(void *ud, const void *p, size_t n), void *ud)
{
    return stream(w, 0, put, ud);
}

size_t sim_world_hash_stream(const sim_world *w, void (*put)(void *ud, const void *p, size_t n), void *ud)
{
    return stream(w, hashes_form(w), put, ud);
}

int sim_world_hash_is_saved(const sim_world *w) { return !hashes_form(w); }

uint32_t sim_world_state_version(const sim_world *w) { return w->sver; }

int sim_world_set_state_version(sim_world *w, uint32_t v)
{
    const sim_kind *k = w->kind;
    uint32_t lo = k->state_version_min ? k->state_version_min : k->state_version;
    if (v < lo || v > k->state_version) return SIM_EVERSION;
    w->sver = v;
    return 0;
}

static void hash_put(void *ud, const void *p, size_t n) { XXH3_64bits_update(ud, p, n); }

uint64_t sim_world_hash(const sim_world *w)
{
    /* A big state (a big sand world's 8 MB), or one with a hashed form, is hashed as it is
     * written, without the copy into the scratch buffer; a small one is copied and hashed in one
     * go, which is quicker for it. The bytes hashed, and so the value, are the same either way. */
    if (w->scratch_cap >= SIM_HASH_STREAM_MIN || hashes_form(w)) {
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        return sim_world_hash_stream(w, hash_put, &st) ? XXH3_64bits_digest(&st) : 0;
    }
    size_t n = sim_world_save(w, w->scratch, w->scratch_cap);
    /* A failed save means a non-finite value reached the state: a bug, never a valid hash. */
    if (n == 0) return 0;
    return XXH3_64bits(w->scratch, n);
}

/* Reads the header; on success the reader sits at the queued inputs. */
static int read_header(sim_reader *r, uint16_t *kind_id, uint32_t *sver, uint64_t *seed,
                       uint64_t *tick, char *params, size_t paramslen)
{
    char magic[4];
    if (r->len < SIM_HEADER_FIXED) return SIM_ETRUNC;
    sim__r_bytes(r, magic, 4);
    if (memcmp(magic, "VIVW", 4) != 0) return SIM_EMAGIC;
    if (sim__r_u16(r) != SIM_STATE_FORMAT) return SIM_EVERSION;
    *kind_id = sim__r_u16(r);
    *sver = sim__r_u32(r);
    uint32_t total = sim__r_u32(r);
    if (total != r->len) return SIM_ETRUNC;
    *seed = sim__r_u64(r);
    *tick = sim__r_u64(r);
    uint16_t plen = sim__r_u16(r);
    if (plen >= SIM_PARAMS_MAX || plen >= paramslen) return SIM_ECORRUPT;
    sim__r_bytes(r, params, plen);
    params[plen] = '\0';
    if (memchr(params, '\0', plen)) return SIM_ECORRUPT;
    return r->err;
}

uint32_t sim_state_version(const uint8_t *buf, size_t len)
{
    sim_reader r;
    uint16_t kid;
    uint32_t sver;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    if (!buf) return 0;
    sim__r_init(&r, buf, len);
    return read_header(&r, &kid, &sver, &seed, &tick, params, sizeof params) ? 0 : sver;
}

uint64_t sim_state_hash(const uint8_t *buf, size_t len)
{
    sim_reader r;
    uint16_t kid;
    uint32_t sver;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    if (!buf) return XXH3_64bits("", 0);
    sim__r_init(&r, buf, len);
    if (read_header(&r, &kid, &sver, &seed, &tick, params, sizeof params) != 0)
        return XXH3_64bits(buf, len);
    const sim_kind *k = sim_kind_by_id(kid);
    if (!k || !k->hashed_payload || sver < k->hashed_from) return XXH3_64bits(buf, len);
    uint32_t nq = sim__r_u32(&r);
    if (r.err || nq > SIM_TICK_INPUTS_MAX || (size_t)nq * 52 > r.len - r.pos)
        return XXH3_64bits(buf, len);
    size_t at = r.pos + (size_t)nq * 52;            /* the payload */
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    XXH3_64bits_update(&st, buf, at);
    if (k->hashed_payload(buf + at, len - at, hash_put, &st) != 0) return XXH3_64bits(buf, len);
    return XXH3_64bits_digest(&st);
}

int sim_state_peek(const uint8_t *buf, size_t len, uint16_t *kind_id, uint64_t *seed,
                   uint64_t *tick, char *params, size_t paramslen)
{
    sim_reader r;
    uint32_t sver;
    char tmp[SIM_PARAMS_MAX];
    uint16_t kid;
    uint64_t sd, tk;
    if (!buf) return SIM_EINVAL;
    sim__r_init(&r, buf, len);
    int rc = read_header(&r, &kid, &sver, &sd, &tk, tmp, sizeof tmp);
    if (rc) return rc;
    if (kind_id) *kind_id = kid;
    if (seed) *seed = sd;
    if (tick) *tick = tk;
    if (params) sim__fmt(params, paramslen, "%s", tmp);
    return 0;
}

int sim_world_load(sim_world *w, const uint8_t *buf, size_t len)
{
    sim_reader r;
    uint16_t kid;
    uint32_t sver;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX], canon[SIM_PARAMS_MAX];
    sim_input *queue = NULL;
    uint8_t *scratch = NULL;
    void *impl = NULL;
    const sim_kind *k = w->kind;
    char why[200] = "";
    int rc;

    if (!buf) return SIM_EINVAL;
    sim__r_init(&r, buf, len);
    rc = read_header(&r, &kid, &sver, &seed, &tick, params, sizeof params);
    if (rc) {
        sim__fmt(w->err, sizeof w->err, "load: %s", sim_strerror(rc));
        return rc;
    }
    if (kid != k->id) {
        const sim_kind *other = sim_kind_by_id(kid);
        sim__fmt(w->err, sizeof w->err, "load: state is a %s world, this is a %s world",
                 other ? other->name : "unknown", k->name);
        return SIM_EWRONGKIND;
    }
    uint32_t lo = k->state_version_min ? k->state_version_min : k->state_version;
    if (sver < lo || sver > k->state_version) {
        if (lo == k->state_version)
            sim__fmt(w->err, sizeof w->err, "load: %s state version %u, this build reads %u",
                     k->name, (unsigned)sver, (unsigned)k->state_version);
        else
            sim__fmt(w->err, sizeof w->err, "load: %s state version %u, this build reads %u to %u",
                     k->name, (unsigned)sver, (unsigned)lo, (unsigned)k->state_version);
        return SIM_EVERSION;
    }
    sim_params p;
    char perr[160];
    rc = sim_params_parse(k, params, &p, canon, sizeof canon, perr, sizeof perr);
    if (rc || strcmp(canon, params) != 0) {
        sim__fmt(w->err, sizeof w->err, "load: saved params are not canonical: %s",
                 rc ? perr : params);
        return SIM_ECORRUPT;
    }
    uint32_t nq = sim__r_u32(&r);
    if (r.err) goto fail;
    if (nq > SIM_TICK_INPUTS_MAX) {
        rc = SIM_ECORRUPT;
        goto done;
    }
    queue = calloc(SIM_TICK_INPUTS_MAX, sizeof *queue);
    if (!queue) {
        rc = SIM_ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < nq; i++) {
        sim_input *in = &queue[i];
        in->tick = sim__r_u64(&r);
        in->client = sim__r_u32(&r);
        in->seq = sim__r_u32(&r);
        in->kind = sim__r_u16(&r);
        in->nargs = sim__r_u16(&r);
        for (int a = 0; a < SIM_INPUT_MAX_ARGS; a++) in->args[a] = sim__r_i32(&r);
        if (r.err) goto fail;
        /* Each queued input passed the checks when it was queued — for this tick, in (client,
         * seq) order, unused arguments zeroed. A blob that says otherwise was not saved by a
         * world, and applying its inputs could do what the checks exist to prevent. */
        int bad = check_args(k, in, why, sizeof why) != 0;
        for (int a = in->nargs; !bad && a < SIM_INPUT_MAX_ARGS; a++) bad = in->args[a] != 0;
        if (!bad && (in->tick != tick ||
                     (i > 0 && (queue[i - 1].client > in->client ||
                                (queue[i - 1].client == in->client && queue[i - 1].seq >= in->seq))))) {
            sim__fmt(why, sizeof why, "queued input %u is not for tick %llu or out of (client, seq) "
                     "order", (unsigned)i, (unsigned long long)tick);
            bad = 1;
        }
        if (bad) {
            if (!why[0]) sim__fmt(why, sizeof why, "queued input %u has stray arguments", (unsigned)i);
            rc = SIM_ECORRUPT;
            goto done;
        }
    }
    rc = k->create(&p, seed, w->state_only || k->adopt ? 2 : 1, &impl, perr, sizeof perr);
    if (rc) {
        impl = NULL;
        goto done;
    }
    rc = k->load(impl, &r);
    if (rc == 0 && r.err) rc = r.err;
    if (rc == 0 && r.pos != r.len) rc = SIM_ETRUNC;   /* trailing bytes: not what was saved */
    for (uint32_t i = 0; rc == 0 && k->check_input && i < nq; i++)   /* the kind's own checks */
        if (k->check_input(impl, &queue[i], why, sizeof why) != 0) rc = SIM_ECORRUPT;
    if (rc) goto done;
    size_t cap = world_save_max(k, impl, canon);
    scratch = malloc(cap);
    if (!scratch) {
        rc = SIM_ENOMEM;
        goto done;
    }
    /* Commit: nothing below can fail. */
    if (k->adopt && !w->state_only) k->adopt(impl, w->impl);
    k->destroy(w->impl);
    w->impl = impl;
    impl = NULL;
    free(w->queue);
    w->queue = queue;
    queue = NULL;
    w->nqueue = nq;
    w->napplied = 0;                /* the loaded state's past is not this world's last step */
    w->events.n = 0;                /* nor are its events */
    w->events.dropped = 0;
    free(w->scratch);
    w->scratch = scratch;
    w->scratch_cap = cap;
    scratch = NULL;
    w->seed = seed;
    w->tick = tick;
    w->sver = sver;
    memcpy(w->params, canon, sizeof canon);
    return 0;
fail:
    rc = r.err ? r.err : SIM_ETRUNC;
done:
    if (impl) k->destroy(impl);
    free(queue);
    free(scratch);
    if (why[0]) sim__fmt(w->err, sizeof w->err, "load: %s: %s", sim_strerror(rc), why);
    else sim__fmt(w->err, sizeof w->err, "load: %s", sim_strerror(rc));
    return rc;
}

void *sim__world_impl(sim_world *w) { return w->impl; }

/* ---- desync reports ------------------------------------------------------------------------------ */
static sim_world *world_from_blob(const uint8_t *buf, size_t len, int *rc)
{
    uint16_t kid;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    *rc = sim_state_peek(buf, len, &kid, &seed, &tick, params, sizeof params);
    if (*rc) return NULL;
    const sim_kind *k = sim_kind_by_id(kid);
    if (!k) {
        *rc = SIM_EWRONGKIND;
        return NULL;
    }
    sim_config cfg = sim_config_default();
    cfg.kind = k->name;
    cfg.seed = seed;
    cfg.params = params;
    cfg.bare = 2;                     /* the blob is the whole state, and only compared: build
                                         nothing, read no file, skip what drawing needs */
    sim_world *w = sim_world_create(&cfg, rc);
    if (!w) return NULL;
    *rc = sim_world_load(w, buf, len);
    if (*rc) {
        sim_world_destroy(w);
        return NULL;
    }
    return w;
}

long sim_state_diff(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, char *out,
                    size_t cap, long max_lines)
{
    sim_diff_out o = { out, cap, 0, 0, max_lines };
    if (out && cap) out[0] = '\0';
    int rc;
    sim_world *wa = world_from_blob(a, alen, &rc);
    if (!wa) return rc;
    sim_world *wb = world_from_blob(b, blen, &rc);
    if (!wb) {
        sim_world_destroy(wa);
        return rc;
    }
    long before;
    if (wa->kind != wb->kind) {
        sim_diff_line(&o, "kind: %s → %s", wa->kind->name, wb->kind->name);
        goto done;
    }
    if (wa->seed != wb->seed)
        sim_diff_line(&o, "seed: %llu → %llu", (unsigned long long)wa->seed, (unsigned long long)wb->seed);
    if (wa->tick != wb->tick)
        sim_diff_line(&o, "tick: %llu → %llu", (unsigned long long)wa->tick, (unsigned long long)wb->tick);
    if (strcmp(wa->params, wb->params) != 0) {
        sim_diff_line(&o, "params: %s → %s", wa->params, wb->params);
        goto done;                    /* different shapes: a payload diff would be noise */
    }
    for (uint32_t i = 0; i < wa->nqueue || i < wb->nqueue; i++) {
        const sim_input *x = i < wa->nqueue ? &wa->queue[i] : NULL, *y = i < wb->nqueue ? &wb->queue[i] : NULL;
        if (x && y && memcmp(x, y, sizeof *x) == 0) continue;
        sim_diff_line(&o, "queued input %u: %s → %s", (unsigned)i,
                      x ? wa->kind->inputs[x->kind].name : "(none)",
                      y ? wb->kind->inputs[y->kind].name : "(none)");
    }
    before = o.lines;
    if (wa->kind->diff) wa->kind->diff(wa->impl, wb->impl, &o);
    if (o.lines == before && sim_world_hash(wa) != sim_world_hash(wb))
        sim_diff_line(&o, "%s state differs (no field-level description available)", wa->kind->name);
done:
    if (o.lines > max_lines && out && cap > 1) {
        char tail[64];
        sim__fmt(tail, sizeof tail, "… and %lld more", (long long)(o.lines - max_lines));
        size_t l = strlen(out), t = strlen(tail);
        if (l + t + 2 < cap) {
            memcpy(out + l, tail, t);
            out[l + t] = '\n';
            out[l + t + 1] = '\0';
        }
    }
    sim_world_destroy(wa);
    sim_world_destroy(wb);
    return o.lines;
}
