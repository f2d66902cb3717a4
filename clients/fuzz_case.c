/* fuzz_case.c — a `viv fuzz` case: everything one session is (viv_fuzz.h). Drawn from the campaign
 * seed and the session's index alone, so `--seed S` reproduces a campaign on any machine and
 * `--shard K/N` draws the same sessions as the whole campaign; written as a case file next to a
 * reproducer and read back by `viv fuzz --case`, and as an inputs file for `viv sim --inputs`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "viv_fuzz.h"

/* One input more at the end of c's list: 0, or -1 out of memory. */
static int case_push(fz_case *c, const fz_input *x)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 64;
        fz_input *p = realloc(c->v, nc * sizeof *p);
        if (!p) return -1;
        c->v = p;
        c->cap = nc;
    }
    c->v[c->n++] = *x;
    return 0;
}

/* ---- generation ------------------------------------------------------------------------------------ */
static int32_t pick(sim_rng *r, int32_t lo, int32_t hi) { return sim_rng_range(r, lo, hi); }

/* Random valid params: boundaries now and then, mostly values up to the default (sessions stay
 * quick). STR params keep their default. */
static void gen_params(const sim_kind *k, sim_rng *r, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < k->nparams; i++) {
        const sim_param_desc *d = &k->params[i];
        char val[64];
        if (d->type == SIM_PARAM_INT) {
            int64_t v;
            uint32_t u = sim_rng_below(r, 10);
            if (u == 0) v = d->min;
            else if (u == 1) v = d->max;
            else v = d->min + (int64_t)sim_rng_below(r, (uint32_t)(d->def - d->min + 1));
            snprintf(val, sizeof val, "%lld", (long long)v);
        } else if (d->type == SIM_PARAM_ENUM) {
            int nc = 0;
            while (d->choices[nc]) nc++;
            snprintf(val, sizeof val, "%s", d->choices[sim_rng_below(r, (uint32_t)nc)]);
        } else {
            continue;
        }
        int w = snprintf(out + n, cap - n, "%s%s=%s", n ? "," : "", d->name, val);
        if (w > 0 && (size_t)w < cap - n) n += (size_t)w;
    }
}

static int is_coord(const char *name, char axis)
{
    size_t l = strlen(name);
    return l >= 1 && name[l - 1] == axis && (l == 1 || name[l - 2] != 'd');
}

/* One input for `tick`: 70% valid, 15% at the boundaries of its ranges, 15% invalid. */
static void gen_input(const sim_kind *k, sim_rng *r, uint64_t tick, int fw, int fh, uint32_t *seqs,
                      fz_input *out)
{
    memset(out, 0, sizeof *out);
    sim_input *in = &out->in;
    in->tick = tick;
    in->client = sim_rng_below(r, 4);
    in->seq = ++seqs[in->client];
    in->kind = (uint16_t)sim_rng_below(r, (uint32_t)k->ninputs);
    const sim_input_desc *d = &k->inputs[in->kind];
    in->nargs = (uint16_t)d->nargs;
    uint32_t mode = sim_rng_below(r, 100);
    for (int a = 0; a < d->nargs; a++) {
        const sim_arg_desc *ad = &d->args[a];
        int32_t lo = ad->min, hi = ad->max;
        if (mode >= 70 && mode < 85) {
            in->args[a] = sim_rng_below(r, 2) ? hi : lo;
        } else if (is_coord(ad->name, 'x') && lo <= 0 && hi >= fw) {
            in->args[a] = pick(r, -4, fw + 4);
        } else if (is_coord(ad->name, 'y') && lo <= 0 && hi >= fh) {
            in->args[a] = pick(r, -4, fh + 4);
        } else if ((int64_t)hi - lo > 200) {
            int32_t mid = lo <= 0 && hi >= 0 ? 0 : lo;
            in->args[a] = pick(r, mid - 100 < lo ? lo : mid - 100, mid + 100 > hi ? hi : mid + 100);
        } else {
            in->args[a] = pick(r, lo, hi);
        }
    }
    if (mode >= 85) {                       /* invalid, in one of four ways */
        out->expect = FZ_EXPECT_REFUSED;
        uint32_t how = sim_rng_below(r, 4);
        if (how == 0 && d->nargs > 0) {
            int a = (int)sim_rng_below(r, (uint32_t)d->nargs);
            if (d->args[a].max < INT32_MAX) in->args[a] = d->args[a].max + 1;
            else if (d->args[a].min > INT32_MIN) in->args[a] = d->args[a].min - 1;
            else in->kind = (uint16_t)k->ninputs;
        } else if (how == 1 && d->nargs > 0) {
            int a = (int)sim_rng_below(r, (uint32_t)d->nargs);
            if (d->args[a].min > INT32_MIN) in->args[a] = d->args[a].min - 1 - (int32_t)sim_rng_below(r, 1000);
            else in->kind = (uint16_t)(k->ninputs + sim_rng_below(r, 100));
        } else if (how == 2) {
            in->nargs = (uint16_t)(d->nargs + 1 + sim_rng_below(r, 3));
            if (in->nargs > SIM_INPUT_MAX_ARGS) in->nargs = (uint16_t)(d->nargs ? d->nargs - 1 : 1);
        } else {
            in->kind = (uint16_t)(k->ninputs + sim_rng_below(r, 1000));
        }
    }
}

#define FZ_AREA_TICKS_W 640              /* a session's ticks are scaled down above this area */
#define FZ_AREA_TICKS_H 480

/* A session from the campaign seed and its index: a pure function of both. */
int fz_case_gen(uint64_t seed, uint64_t index, uint64_t ticks, const char *const *kinds, int nkinds,
                fz_case *c, char *why, size_t whylen)
{
    uint64_t x = seed ^ (index * 0x9e3779b97f4a7c15ULL);
    uint64_t ss = sim_splitmix64(&x);
    sim_rng r;
    sim_rng_stream(&r, ss, "viv.fuzz");
    memset(c, 0, sizeof *c);
    const sim_kind *k = sim_kind_find(kinds[sim_rng_below(&r, (uint32_t)nkinds)]);
    snprintf(c->kind, sizeof c->kind, "%s", k->name);
    c->seed = ((uint64_t)sim_rng_next(&r) << 32) | sim_rng_next(&r);
    c->ticks = ticks / 2 + sim_rng_below(&r, (uint32_t)(ticks / 2 + 1));
    if (c->ticks == 0) c->ticks = 1;
    /* A world may refuse params that are in range but do not fit together (a size that must
     * be a multiple of something): draw again a few times, then use the defaults. */
    char err[256];
    sim_config cfg = sim_config_default();
    cfg.kind = c->kind;
    cfg.seed = c->seed;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    sim_world *w = NULL;
    for (int attempt = 0; attempt < 8 && !w; attempt++) {
        if (attempt < 7) gen_params(k, &r, c->params, sizeof c->params);
        else c->params[0] = '\0';
        cfg.params = c->params;
        w = sim_world_create(&cfg, &rc);
    }
    if (!w) {
        snprintf(why, whylen, "%s refuses even its default params: %s", c->kind, err);
        return -1;
    }
    int fw, fh;
    sim_world_frame_size(w, &fw, &fh);
    sim_world_destroy(w);
    /* A world bigger than 640x480 (a boundary size: sand's 4096x2048) runs fewer ticks, as many
     * as 640x480's pixels' worth, so that one session costs what a session of a small world may:
     * a campaign keeps to its --seconds (the session running when time is up runs to its end:
     * with a 4096x2048 sand session at full length, a campaign of --seconds 30 ran 445 s). */
    uint64_t area = (uint64_t)fw * (uint64_t)fh, most = (uint64_t)FZ_AREA_TICKS_W * FZ_AREA_TICKS_H;
    if (area > most) {
        c->ticks = c->ticks * most / area;
        if (c->ticks < 2) c->ticks = 2;
    }
    uint32_t seqs[4] = { 0, 0, 0, 0 };
    for (uint64_t t = 0; t < c->ticks; t++) {
        if (sim_rng_below(&r, 100) >= 12) continue;          /* inputs on ~12% of ticks */
        uint32_t m = 1 + sim_rng_below(&r, 3);
        for (uint32_t i = 0; i < m; i++) {
            fz_input fi;
            gen_input(k, &r, t, fw, fh, seqs, &fi);
            if (case_push(c, &fi) != 0) {
                snprintf(why, whylen, "out of memory");
                return -1;
            }
        }
    }
    return 0;
}

/* ---- case files --------------------------------------------------------------------------------------- */
/* The case: a header then one input a line: tick client seq kind nargs args… expect. Invalid
 * inputs included (they are part of the case). */
int fz_case_write(const fz_case *c, const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    fprintf(fp, "# viv fuzz case: replay it with `viv fuzz --case %s`\n", path);
    fprintf(fp, "kind %s\nseed %llu\nparams %s\nticks %llu\nfault %llu\n", c->kind,
            (unsigned long long)c->seed, c->params, (unsigned long long)c->ticks,
            (unsigned long long)c->fault_tick);
    for (size_t i = 0; i < c->n; i++) {
        const sim_input *in = &c->v[i].in;
        fprintf(fp, "input %llu %u %u %u %u", (unsigned long long)in->tick, (unsigned)in->client,
                (unsigned)in->seq, (unsigned)in->kind, (unsigned)in->nargs);
        for (int a = 0; a < SIM_INPUT_MAX_ARGS; a++) fprintf(fp, " %d", (int)in->args[a]);
        fprintf(fp, " %s\n", c->v[i].expect == FZ_EXPECT_REFUSED ? "refused" : "any");
    }
    return fclose(fp);
}

int fz_case_read(const char *path, fz_case *c)
{
    memset(c, 0, sizeof *c);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "viv fuzz: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    unsigned lineno = 0;
    int have = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        unsigned long long a, b;
        unsigned cl, sq, kd, na;
        int args[SIM_INPUT_MAX_ARGS];
        char ex[16];
        if (line[0] == '#' || line[0] == '\n') continue;
        if (sscanf(line, "kind %31s", c->kind) == 1) have |= 1;
        else if (sscanf(line, "seed %llu", &a) == 1) { c->seed = a; have |= 2; }
        else if (strncmp(line, "params ", 7) == 0) {
            size_t pl = strcspn(line + 7, "\n");
            if (pl >= sizeof c->params) pl = sizeof c->params - 1;
            memcpy(c->params, line + 7, pl);
            c->params[pl] = '\0';
            have |= 4;
        } else if (sscanf(line, "ticks %llu", &a) == 1) { c->ticks = a; have |= 8; }
        else if (sscanf(line, "fault %llu", &a) == 1) c->fault_tick = a;
        else if (sscanf(line, "input %llu %u %u %u %u %d %d %d %d %d %d %d %d %15s", &b, &cl, &sq, &kd, &na,
                        &args[0], &args[1], &args[2], &args[3], &args[4], &args[5], &args[6], &args[7],
                        ex) == 14) {
            fz_input x;
            memset(&x, 0, sizeof x);
            x.in.tick = b;
            x.in.client = cl;
            x.in.seq = sq;
            x.in.kind = (uint16_t)kd;
            x.in.nargs = (uint16_t)na;
            memcpy(x.in.args, args, sizeof args);
            x.expect = strcmp(ex, "refused") == 0 ? FZ_EXPECT_REFUSED : FZ_EXPECT_ANY;
            if (case_push(c, &x) != 0) break;
        } else {
            fprintf(stderr, "viv fuzz: %s:%u: not a case line\n", path, lineno);
            fclose(fp);
            return -1;
        }
    }
    fclose(fp);
    if (have != 15) {
        fprintf(stderr, "viv fuzz: %s: needs kind, seed, params and ticks lines\n", path);
        return -1;
    }
    return 0;
}

/* The accepted inputs as an ordinary inputs file for `viv sim --inputs`. */
int fz_case_write_inputs(const fz_case *c, const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    const sim_kind *k = sim_kind_find(c->kind);
    fprintf(fp, "# viv sim --world %s --seed %llu --params %s --ticks %llu --inputs %s\n", c->kind,
            (unsigned long long)c->seed, c->params[0] ? c->params : "''", (unsigned long long)c->ticks, path);
    for (size_t i = 0; i < c->n; i++) {
        const sim_input *in = &c->v[i].in;
        if (c->v[i].expect == FZ_EXPECT_REFUSED || !k || in->kind >= k->ninputs ||
            in->nargs != k->inputs[in->kind].nargs)
            continue;
        fprintf(fp, "%llu %s", (unsigned long long)in->tick, k->inputs[in->kind].name);
        for (int a = 0; a < in->nargs; a++) fprintf(fp, " %d", (int)in->args[a]);
        fprintf(fp, "\n");
    }
    return fclose(fp);
}
