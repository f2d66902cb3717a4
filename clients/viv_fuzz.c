/* viv_fuzz.c — `viv fuzz`: determinism fuzzing. Each session is a random world (kind, seed,
 * params) and a random input stream (valid inputs, boundary values, and invalid ones that must be
 * refused without effect), run three ways and compared tick by tick:
 *   1. live, recorded into SQLite through the real recorder (replay/recorder.c);
 *   2. replayed from that file by the verifier (replay/verify.c), which compares every hash;
 *   3. in sync-test mode: at random ticks the world is saved, a second world (with another
 *      history) loads the bytes and carries on (GGPO's sync test).
 * A divergence is shrunk (drop inputs, halve ticks) to a minimal case, written under --out as an
 * inputs file, a case file and a replay file, with the one command that reproduces it.
 *
 * The generator is a pure function of the base seed, so `--seed S` reproduces a campaign on any
 * machine; `--chain FILE` writes every tick's hashes so the determinism matrix can compare
 * builds. Session i depends on (seed, i) alone, so `--shard K/N` runs the sessions i ≡ K-1 mod N
 * of the same campaign, and `--merge` joins the shards' `--report`s (fuzz_report.c) into the
 * report of the whole (docs/FUZZ.md). Built without the replay layer (VIV_NO_REPLAY, the cross build) only ways 1 (unrecorded)
 * and 3 run.
 *
 * Way 1 runs the world's parallel passes on a pool of --threads workers; ways 2 and 3 run them
 * inline: every session also checks that the number of workers changes nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "fuzz_report.h"
#include "opt.h"
#include "pool.h"
#ifndef VIV_NO_REPLAY
#include "read.h"
#include "replay.h"
#endif

/* ---- a case: everything a session is ------------------------------------------------------------ */
enum { EXPECT_ANY, EXPECT_REFUSED };

typedef struct fz_input {
    sim_input in;
    int expect;                /* EXPECT_REFUSED: invalid by construction; must be refused */
} fz_input;

typedef struct fz_case {
    char kind[32];
    uint64_t seed;
    char params[SIM_PARAMS_MAX];
    uint64_t ticks;
    fz_input *v;
    size_t n, cap;
    uint64_t fault_tick;       /* test hook: way 3 drops the inputs of the first tick at or after
                                  this one that has any (0: none) */
    const sim_tasks *tasks;    /* where way 1 runs the passes (not part of the session: the
                                  other ways run them inline and must agree) */
} fz_case;

typedef struct fz_opts {
    uint64_t sessions, ticks, seed, seconds;
    int seed_given, sessions_given, shard_given;
    const char *kinds;
    const char *out;
    const char *chain;
    const char *case_file;
    int record;
    int quiet;
    int no_shrink;
    uint64_t inject;
    uint64_t shard, shards;    /* the slice run: sessions i with i % shards == shard - 1 */
    const char *report;        /* --report FILE, or NULL */
} fz_opts;

typedef struct fz_result {
    int ok;
    int way;                   /* which way diverged: 2 replay, 3 sync; 4 an invalid input took */
    uint64_t tick;             /* the first tick that differs */
    char why[512];
    uint64_t accepted, refused;
} fz_result;

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
        out->expect = EXPECT_REFUSED;
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

/* A session from the campaign seed and its index: a pure function of both. */
static int gen_case(const fz_opts *o, uint64_t index, const char *const *kinds, int nkinds, fz_case *c,
                    char *why, size_t whylen)
{
    uint64_t x = o->seed ^ (index * 0x9e3779b97f4a7c15ULL);
    uint64_t ss = sim_splitmix64(&x);
    sim_rng r;
    sim_rng_stream(&r, ss, "viv.fuzz");
    memset(c, 0, sizeof *c);
    const sim_kind *k = sim_kind_find(kinds[sim_rng_below(&r, (uint32_t)nkinds)]);
    snprintf(c->kind, sizeof c->kind, "%s", k->name);
    c->seed = ((uint64_t)sim_rng_next(&r) << 32) | sim_rng_next(&r);
    c->ticks = o->ticks / 2 + sim_rng_below(&r, (uint32_t)(o->ticks / 2 + 1));
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
    c->fault_tick = o->inject;
    return 0;
}

/* ---- running a case ---------------------------------------------------------------------------------- */
typedef struct chain {
    uint64_t *sh, *fh;
} chain;

static sim_world *make_world(const fz_case *c, const sim_tasks *tasks, char *err, size_t errlen)
{
    sim_config cfg = sim_config_default();
    cfg.tasks = tasks;
    cfg.kind = c->kind;
    cfg.seed = c->seed;
    cfg.params = c->params;
    cfg.err = err;
    cfg.errlen = errlen;
    int rc;
    return sim_world_create(&cfg, &rc);
}

/* Way 1: live (recorded when rec != NULL). Fills ch and the accepted inputs list. */
static int run_live(const fz_case *c, chain *ch, fz_result *res, sim_input *acc, size_t *nacc,
                    const char *db)
{
    char err[256];
    sim_world *w = make_world(c, c->tasks, err, sizeof err);
    if (!w) {
        snprintf(res->why, sizeof res->why, "cannot create the world: %s", err);
        return -1;
    }
    sim_frame f;
    if (sim_world_frame_init(w, &f) != 0) {
        sim_world_destroy(w);
        snprintf(res->why, sizeof res->why, "out of memory");
        return -1;
    }
#ifndef VIV_NO_REPLAY
    rpl_recorder *rec = NULL;
    int64_t session = -1;
    uint8_t *cp = NULL;
    size_t cpcap = sim_world_save_max(w);
    uint64_t cp_every = 10u * sim_world_kind(w)->hz;
    if (db) {
        rpl_rec_config rc;
        memset(&rc, 0, sizeof rc);
        rc.path = db;
        rec = rpl_recorder_open(&rc, err, sizeof err);
        if (rec) session = rpl_recorder_begin(rec, w, "viv fuzz", -1, cp_every, err, sizeof err);
        cp = malloc(cpcap);
        if (!rec || session < 0 || !cp) {
            snprintf(res->why, sizeof res->why, "cannot record into %s: %s", db, err);
            if (rec) rpl_recorder_close(rec);
            free(cp);
            sim_frame_free(&f);
            sim_world_destroy(w);
            return -1;
        }
    }
#else
    (void)db;
#endif
    size_t next = 0, na = 0;
    int status = 0;
    for (uint64_t t = 0; t < c->ticks; t++) {
        size_t first = na;
        for (; next < c->n && c->v[next].in.tick == t; next++) {
            const fz_input *x = &c->v[next];
            uint64_t before = x->expect == EXPECT_REFUSED ? sim_world_hash(w) : 0;
            int rc = sim_world_input(w, &x->in);
            if (rc == 0) {
                if (x->expect == EXPECT_REFUSED) {
                    snprintf(res->why, sizeof res->why, "an invalid input was accepted at tick %llu "
                             "(kind %u, %u args)", (unsigned long long)t, (unsigned)x->in.kind,
                             (unsigned)x->in.nargs);
                    res->way = 4;
                    res->tick = t;
                    status = 1;
                    goto out;
                }
                acc[na++] = x->in;
                res->accepted++;
            } else {
                res->refused++;
                if (x->expect == EXPECT_REFUSED && sim_world_hash(w) != before) {
                    snprintf(res->why, sizeof res->why, "a refused input changed the state at tick %llu",
                             (unsigned long long)t);
                    res->way = 4;
                    res->tick = t;
                    status = 1;
                    goto out;
                }
            }
        }
        /* The log holds inputs in application order, (client, seq). */
        for (size_t i = first + 1; i < na; i++)
            for (size_t j = i; j > first && (acc[j - 1].client > acc[j].client ||
                 (acc[j - 1].client == acc[j].client && acc[j - 1].seq > acc[j].seq)); j--) {
                sim_input tmp = acc[j - 1];
                acc[j - 1] = acc[j];
                acc[j] = tmp;
            }
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        ch->sh[t] = sim_world_hash(w);
        ch->fh[t] = sim_frame_hash(&f);
#ifndef VIV_NO_REPLAY
        if (rec) {
            size_t cplen = (t + 1) % cp_every == 0 ? sim_world_save(w, cp, cpcap) : 0;
            if (rpl_recorder_tick(rec, session, t, acc + first, na - first, ch->sh[t], ch->fh[t],
                                  cplen ? cp : NULL, cplen) != 0) {
                snprintf(res->why, sizeof res->why, "the recorder refused tick %llu", (unsigned long long)t);
                status = -1;
                goto out;
            }
        }
#endif
    }
out:
    *nacc = na;
#ifndef VIV_NO_REPLAY
    if (rec) {
        rpl_recorder_end(rec, session);
        if (rpl_recorder_close(rec) != 0 && status == 0) {
            snprintf(res->why, sizeof res->why, "writing %s failed", db);
            status = -1;
        }
    }
    free(cp);
#endif
    sim_frame_free(&f);
    sim_world_destroy(w);
    return status;
}

/* Way 3: sync test — at random ticks (from the case's seed), save, load into a second world (made
 * for the case, holding an older state of it: another history), and continue from the loaded one;
 * the two take turns. Compared with the live chain at every tick. */
static int run_sync(const fz_case *c, const chain *ch, const sim_input *acc, size_t nacc,
                    fz_result *res)
{
    char err[256];
    sim_world *w = make_world(c, NULL, err, sizeof err);
    if (!w) {
        snprintf(res->why, sizeof res->why, "cannot create the world: %s", err);
        return -1;
    }
    sim_frame f;
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    if (!buf || sim_world_frame_init(w, &f) != 0) {
        free(buf);
        sim_world_destroy(w);
        snprintf(res->why, sizeof res->why, "out of memory");
        return -1;
    }
    sim_rng r;
    sim_rng_stream(&r, c->seed, "viv.fuzz.sync");
    sim_world *spare = NULL;            /* the world the next save is loaded into */
    size_t k = 0;
    int status = 0, faulted = 0;
    for (uint64_t t = 0; t < c->ticks; t++) {
        if (sim_rng_below(&r, 8) == 0) {                  /* about one tick in eight */
            size_t n = sim_world_save(w, buf, cap);
            if (!spare) spare = make_world(c, NULL, err, sizeof err);
            if (!spare || n == 0 || sim_world_load(spare, buf, n) != 0) {
                snprintf(res->why, sizeof res->why, "save/load failed at tick %llu: %s",
                         (unsigned long long)t, spare ? sim_world_error(spare) : err);
                res->way = 3;
                res->tick = t;
                status = 1;
                break;
            }
            /* Continue from the world that loaded; the other, with its older history, takes the
             * next load. */
            sim_world *old = w;
            w = spare;
            spare = old;
            cap = sim_world_save_max(w);
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                status = -1;
                break;
            }
            buf = nb;
        }
        int drop = c->fault_tick && !faulted && t >= c->fault_tick && k < nacc && acc[k].tick == t;
        faulted |= drop;
        for (; k < nacc && acc[k].tick == t; k++) {
            if (drop) continue;                                    /* the test hook */
            if (sim_world_input(w, &acc[k]) != 0) {
                snprintf(res->why, sizeof res->why, "an input accepted live was refused in the sync "
                         "run at tick %llu: %s", (unsigned long long)t, sim_world_error(w));
                res->way = 3;
                res->tick = t;
                status = 1;
                goto out;
            }
        }
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        uint64_t sh = sim_world_hash(w), fh = sim_frame_hash(&f);
        if (sh != ch->sh[t] || fh != ch->fh[t]) {
            snprintf(res->why, sizeof res->why, "the sync-test run differs from the live run at tick "
                     "%llu: state %016llx vs %016llx, frame %016llx vs %016llx",
                     (unsigned long long)(t + 1), (unsigned long long)sh,
                     (unsigned long long)ch->sh[t], (unsigned long long)fh, (unsigned long long)ch->fh[t]);
            res->way = 3;
            res->tick = t + 1;
            status = 1;
            break;
        }
    }
out:
    sim_frame_free(&f);
    free(buf);
    sim_world_destroy(w);
    sim_world_destroy(spare);
    return status;
}

#ifndef VIV_NO_REPLAY
/* Way 2: replay the recording with the verifier, which compares every recorded hash. */
static int run_replay(const char *db, fz_result *res)
{
    rpl_file *f;
    char err[512];
    if (rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) != 0) {
        snprintf(res->why, sizeof res->why, "%s", err);
        return -1;
    }
    rpl_verify_opts o = rpl_verify_defaults();
    o.session = 1;
    o.threads = 1;
    rpl_verify_result vr;
    static char report[8192];
    int rc = rpl_verify(f, &o, &vr, report, sizeof report);
    rpl_close(f);
    if (rc == 0) return 0;
    /* The recording's path is a temporary directory's: said as its file name, so that the
     * sentence (and a --report) is the same from one run of the campaign to the next. */
    const char *base = strrchr(db, '/');
    base = base ? base + 1 : db;
    for (char *at = base != db ? strstr(report, db) : NULL; at; at = strstr(at, db))
        memmove(at, at + (base - db), strlen(at + (base - db)) + 1);
    snprintf(res->why, sizeof res->why, "replaying the recording diverged: %.400s", report);
    res->way = 2;
    res->tick = vr.diverged_at;
    return rc < 0 ? -1 : 1;
}
#endif

/* Run a case all three ways. 0 identical, 1 divergence (res says where), -1 could not run. */
static int run_case(const fz_case *c, const char *db, chain *keep, fz_result *res)
{
    memset(res, 0, sizeof *res);
    chain ch = { calloc(c->ticks, 8), calloc(c->ticks, 8) };
    sim_input *acc = malloc((c->n ? c->n : 1) * sizeof *acc);
    size_t nacc = 0;
    int rc = -1;
    if (!ch.sh || !ch.fh || !acc) {
        snprintf(res->why, sizeof res->why, "out of memory");
        goto done;
    }
#ifndef VIV_NO_REPLAY
    if (db) unlink(db);
#endif
    rc = run_live(c, &ch, res, acc, &nacc, db);
    if (rc != 0) goto done;
#ifndef VIV_NO_REPLAY
    if (db) {
        rc = run_replay(db, res);
        if (rc != 0) goto done;
    }
#endif
    rc = run_sync(c, &ch, acc, nacc, res);
done:
    res->ok = rc == 0;
    if (keep && rc == 0) {
        *keep = ch;
    } else {
        free(ch.sh);
        free(ch.fh);
    }
    free(acc);
    return rc;
}

/* ---- shrinking ------------------------------------------------------------------------------------------ */
/* Delta debugging on the input list, then on the tick count: keep any smaller case that still
 * diverges in the same way. Each try reruns all three ways. */
static void shrink(fz_case *c, const char *db, int way, int quiet)
{
    fz_result r;
    size_t chunk = c->n / 2 ? c->n / 2 : 1;
    int tries = 0;
    while (c->n && chunk >= 1 && tries < 400) {
        int removed = 0;
        for (size_t start = 0; start < c->n && tries < 400; tries++) {
            size_t len = chunk < c->n - start ? chunk : c->n - start;
            fz_case t = *c;
            t.v = malloc((c->n - len + 1) * sizeof *t.v);
            if (!t.v) return;
            memcpy(t.v, c->v, start * sizeof *t.v);
            memcpy(t.v + start, c->v + start + len, (c->n - start - len) * sizeof *t.v);
            t.n = c->n - len;
            if (run_case(&t, db, NULL, &r) == 1 && r.way == way) {
                free(c->v);
                c->v = t.v;
                c->n = t.n;
                c->cap = t.n;
                removed = 1;
            } else {
                free(t.v);
                start += len;
            }
        }
        if (!removed) {
            if (chunk == 1) break;
            chunk /= 2;
        }
    }
    /* Fewer ticks: halve while it still diverges (inputs past the end are dropped). */
    while (c->ticks > 1 && tries < 460) {
        tries++;
        fz_case t = *c;
        t.ticks = c->ticks / 2;
        t.n = 0;
        while (t.n < c->n && c->v[t.n].in.tick < t.ticks) t.n++;
        if (run_case(&t, db, NULL, &r) == 1 && r.way == way) {
            c->ticks = t.ticks;
            c->n = t.n;
        } else {
            break;
        }
    }
    /* And no ticks after the last input beyond the one that shows it. */
    if (c->n && c->v[c->n - 1].in.tick + 2 < c->ticks) {
        fz_case t = *c;
        t.ticks = c->v[c->n - 1].in.tick + 2;
        tries++;
        if (run_case(&t, db, NULL, &r) == 1 && r.way == way) c->ticks = t.ticks;
    }
    if (!quiet) fprintf(stderr, "viv fuzz: shrunk in %d tries to %zu input(s) over %llu tick(s)\n",
                        tries, c->n, (unsigned long long)c->ticks);
}

/* ---- case files --------------------------------------------------------------------------------------- */
/* The case: a header then one input a line: tick client seq kind nargs args… expect. Invalid
 * inputs included (they are part of the case). */
static int write_case(const fz_case *c, const char *path)
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
        fprintf(fp, " %s\n", c->v[i].expect == EXPECT_REFUSED ? "refused" : "any");
    }
    return fclose(fp);
}

static int read_case(const char *path, fz_case *c)
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
            x.expect = strcmp(ex, "refused") == 0 ? EXPECT_REFUSED : EXPECT_ANY;
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
static int write_inputs(const fz_case *c, const char *path)
{
    FILE *fp = fopen(path, "w");
    if (!fp) return -1;
    const sim_kind *k = sim_kind_find(c->kind);
    fprintf(fp, "# viv sim --world %s --seed %llu --params %s --ticks %llu --inputs %s\n", c->kind,
            (unsigned long long)c->seed, c->params[0] ? c->params : "''", (unsigned long long)c->ticks, path);
    for (size_t i = 0; i < c->n; i++) {
        const sim_input *in = &c->v[i].in;
        if (c->v[i].expect == EXPECT_REFUSED || !k || in->kind >= k->ninputs ||
            in->nargs != k->inputs[in->kind].nargs)
            continue;
        fprintf(fp, "%llu %s", (unsigned long long)in->tick, k->inputs[in->kind].name);
        for (int a = 0; a < in->nargs; a++) fprintf(fp, " %d", (int)in->args[a]);
        fprintf(fp, "\n");
    }
    return fclose(fp);
}

/* ---- the command -------------------------------------------------------------------------------------- */
static void fuzz_head(FILE *out)
{
    fprintf(out,
        "usage: viv fuzz [--sessions N] [--ticks T] [--seed S] [--seconds B] [--kinds K1,K2]\n"
        "                [--out DIR] [--chain FILE] [--no-record] [--no-shrink] [--threads N]\n"
        "                [--shard K/N] [--report FILE] [--quiet]\n"
        "       viv fuzz --case FILE\n"
        "       viv fuzz --merge REPORT… [-o FILE]\n"
        "\n"
        "Determinism fuzzing. Each session is a random world kind, seed and params with a random\n"
        "input stream (valid inputs, boundary values, and invalid ones that must be refused\n"
        "without effect), run three ways and compared at every tick: live (recorded into SQLite\n"
        "through the real recorder), replayed from that file (every recorded hash checked), and in\n"
        "sync-test mode (save, load into a second world, continue, at random ticks). The live\n"
        "way runs the world's parallel passes on --threads workers, the other two inline, so\n"
        "every session also checks that the number of workers changes nothing.\n"
        "\n");
}

static void fuzz_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "On a divergence the case is shrunk (inputs dropped, ticks halved) to a minimal one and\n"
        "written to DIR as NAME.case (every input, invalid ones too), NAME.inputs (for viv sim) and\n"
        "NAME.db (its recording), with the one command that reproduces it. Exit status: 0 all\n"
        "sessions identical, 1 a divergence, 2 bad usage or a run that could not be done.\n");
}

static int mkdir_p(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* The temporary directory of the running session's recording, with what SQLite leaves beside
 * the file: all removed, whatever the campaign's outcome. */
static void work_remove(const char *work, const char *db)
{
    if (!work[0]) return;
    char side[4300];
    unlink(db);
    snprintf(side, sizeof side, "%s-wal", db); unlink(side);
    snprintf(side, sizeof side, "%s-shm", db); unlink(side);
    rmdir(work);
}

/* A case's params as its lines show them, `params=` then this: none given reads "(default)". */
static const char *params_shown(const fz_case *c)
{
    return c->params[0] ? c->params : "(default)";
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "K/N" with 1 <= K <= N: 0, or -1 after saying what is wrong. */
static int parse_shard(const char *v, uint64_t *k, uint64_t *n)
{
    const char *slash = strchr(v, '/');
    char a[32], b[32];
    if (!slash || slash == v || !slash[1] || (size_t)(slash - v) >= sizeof a || strlen(slash + 1) >= sizeof b) {
        fprintf(stderr, "viv fuzz: --shard needs K/N (slice K of N, 1 <= K <= N), got '%s'\n", v);
        return -1;
    }
    snprintf(a, sizeof a, "%.*s", (int)(slash - v), v);
    snprintf(b, sizeof b, "%s", slash + 1);
    if (opt_parse_u64("viv fuzz", "--shard K", a, k) || opt_parse_u64("viv fuzz", "--shard N", b, n)) return -1;
    if (*n == 0 || *k == 0 || *k > *n) {
        fprintf(stderr, "viv fuzz: --shard %s: %s\n", v,
                *n == 0 ? "N must be at least 1" : "K must be in 1..N (slice K of N)");
        return -1;
    }
    return 0;
}

/* `viv fuzz --merge REPORT… [-o FILE]`, as parsed: the reports and where the merged one goes. */
typedef struct fz_merge_args {
    const char **names;
    size_t n;
    const char *dest;          /* NULL: stdout */
    int merge;
} fz_merge_args;

static int merge_report(const opt_prog *p, const char *arg)
{
    fz_merge_args *m = p->ud;
    m->names[m->n++] = arg;
    return OPT_OK;
}

static int set_merge_out(const opt_prog *p, const opt *o, const char *v)
{
    fz_merge_args *m = o->ptr;
    if (m->dest) {
        fprintf(stderr, "viv fuzz: --merge: one -o FILE only\n");
        return OPT_BAD;
    }
    m->dest = v;
    return OPT_OK;
}

/* The shards' reports joined into the campaign's. Exit status: the merged campaign's (0
 * identical, 1 diverged, 2 error), or 2 when refused. */
static int fuzz_merge(const fz_merge_args *m)
{
    const char **names = m->names, *dest = m->dest;
    size_t n = m->n;
    cli_fuzz_report *in = calloc(n + 1, sizeof *in);
    cli_fuzz_report out;
    int status = 2;
    char err[4600];
    memset(&out, 0, sizeof out);
    if (!in) {
        fprintf(stderr, "viv fuzz: out of memory\n");
        goto done;
    }
    if (n == 0) {
        fprintf(stderr, "viv fuzz: --merge: which reports? (viv fuzz --merge r1.json r2.json … -o all.json)\n");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (cli_fuzz_report_read(names[i], &in[i], err, sizeof err) != 0) {
            fprintf(stderr, "viv fuzz: --merge: %s\n", err);
            goto done;
        }
    if (cli_fuzz_report_merge(in, n, names, &out, err, sizeof err) != 0 ||
        cli_fuzz_report_write(&out, dest ? dest : "-", err, sizeof err) != 0) {
        fprintf(stderr, "viv fuzz: --merge: %s\n", err);
        goto done;
    }
    uint64_t ticks = 0;
    for (size_t i = 0; i < out.n; i++) ticks += out.v[i].ticks;
    fprintf(dest ? stdout : stderr, "viv fuzz: merged %zu shard report%s of campaign seed %llu: %zu "
            "session(s), %llu ticks: %s\n", n, n == 1 ? "" : "s", (unsigned long long)out.c.seed, out.n,
            (unsigned long long)ticks, out.result == CLI_FUZZ_IDENTICAL ? "all identical"
            : out.result == CLI_FUZZ_DIVERGED ? "DIVERGENCE" : "error");
    status = out.result == CLI_FUZZ_IDENTICAL ? 0 : out.result == CLI_FUZZ_DIVERGED ? 1 : 2;
done:
    for (size_t i = 0; in && i < n; i++) cli_fuzz_report_free(&in[i]);
    cli_fuzz_report_free(&out);
    free(in);
    return status;
}

static int set_sessions(const opt_prog *p, const opt *o, const char *v)
{
    fz_opts *fo = o->ptr;
    if (opt_parse_u64(p->who, o->name, v, &fo->sessions)) return OPT_BAD;
    fo->sessions_given = 1;
    return OPT_OK;
}

static int set_ticks(const opt_prog *p, const opt *o, const char *v)
{
    long t;
    if (opt_parse_long(p->who, o->name, v, 1, 10000000, &t)) return OPT_BAD;
    ((fz_opts *)o->ptr)->ticks = (uint64_t)t;
    return OPT_OK;
}

static int set_seed(const opt_prog *p, const opt *o, const char *v)
{
    fz_opts *fo = o->ptr;
    if (opt_parse_u64(p->who, o->name, v, &fo->seed)) return OPT_BAD;
    fo->seed_given = 1;
    return OPT_OK;
}

static int set_shard(const opt_prog *p, const opt *o, const char *v)
{
    fz_opts *fo = o->ptr;
    if (parse_shard(v, &fo->shard, &fo->shards)) return OPT_BAD;
    fo->shard_given = 1;
    return OPT_OK;
}

int cli_fuzz_main(int argc, char **argv)
{
    fz_opts o;
    memset(&o, 0, sizeof o);
    o.shard = o.shards = 1;
    o.sessions = 20;
    o.ticks = 600;
    o.out = "fuzz-out";
    o.record = 1;
    long threads = pool_default_workers();
    /* --merge anywhere makes the command line a merge's (mode 1 of the table). */
    fz_merge_args m = { 0 };
    for (int i = 1; i < argc; i++) m.merge |= !strcmp(argv[i], "--merge");
    if (m.merge && !(m.names = calloc((size_t)argc, sizeof *m.names))) {
        fprintf(stderr, "viv fuzz: out of memory\n");
        return 2;
    }
    const opt table[] = {
        OPT_CALL("--sessions", "N", set_sessions, &o,
                 "sessions to run (default 20; with --seconds, until time is up)"),
        OPT_CALL("--ticks", "T", set_ticks, &o, "ticks per session, each session picks T/2..T (default 600)"),
        OPT_CALL("--seed", "S", set_seed, &o,
                 "campaign seed (default: random, printed first so a run can be repeated)"),
        OPT_U64("--seconds", "B", &o.seconds, "stop starting sessions after B seconds"),
        OPT_STR("--kinds", "LIST", &o.kinds, "world kinds to draw from, comma-separated (default: every kind)"),
        OPT_STR("--out", "DIR", &o.out,
                "where reproducers go (default ./fuzz-out), made only when there is one\n"
                "to write; the running session's recording lives in a temporary\n"
                "directory ($TMPDIR, else /tmp), deleted when the campaign ends"),
        OPT_STR("--chain", "FILE", &o.chain,
                "write every session's per-tick state and frame hashes (for comparing\n"
                "builds: the determinism matrix runs the same seed on five builds)"),
        OPT_SET("--no-record", &o.record, 0, "skip the recorded and replayed ways (only live and sync-test)"),
        OPT_FLAG("--no-shrink", &o.no_shrink, "write a divergent case as found, without shrinking it"),
        OPT_STR("--case", "FILE", &o.case_file,
                "run one saved case (as written next to a reproducer) and report"),
        OPT_LONG("--threads", "N", &threads, 1, POOL_WORKERS_MAX,
                 "workers for the live way's parallel passes, the calling thread\n"
                 "included (default: one per CPU, at most " OPT_STRINGIFY(POOL_DEFAULT_MAX)
                 "; 1: inline like the others)"),
        OPT_STR("--report", "FILE", &o.report,
                "write the campaign's report as JSON (docs/FUZZ.md): the campaign, then\n"
                "every session run (kind, seed, params, ticks, inputs, result; where and\n"
                "why it diverged), the result and the totals; \"-\" for stdout"),
        OPT_CALL("--shard", "K/N", set_shard, &o,
                 "run slice K of N (1 <= K <= N) of the campaign: the sessions i with\n"
                 "i mod N = K-1. The N slices are disjoint and together are the campaign\n"
                 "run unsharded; each stops at its own first divergence. Needs --seed\n"
                 "(every shard must draw the same campaign) and a fixed --sessions, not\n"
                 "--seconds. Give each shard its own --report"),
        OPT_FLAG("--quiet", &o.quiet, "no line for each identical session, nor for the shrinking"),
        OPT_U64("--inject-fault", "TICK", &o.inject, NULL),      /* test hook, not in --help */
        { .name = "--merge", .set = opt_flag, .ptr = &m.merge, .min = 1, .mode = 1,
          .help = "join the --report files of all N shards of one campaign into the report\n"
                  "the unsharded campaign writes (its sessions up to the first divergence,\n"
                  "its result and totals; only \"seconds\" differs: the shards' sum), to\n"
                  "-o FILE or stdout. Refused: malformed reports, reports of different\n"
                  "campaigns or splits, a shard twice or missing, an incomplete shard.\n"
                  "Exit status as the merged campaign's" },
        { .name = "-o", .arg = "FILE", .set = set_merge_out, .ptr = &m, .mode = 1,
          .help = "with --merge: where the merged report goes (default: stdout)" },
        OPT_END
    };
    const opt_prog prog = { .who = m.merge ? "viv fuzz --merge" : "viv fuzz", .see = "viv fuzz",
                            .opts = table, .column = 17, .head = fuzz_head, .tail = fuzz_tail,
                            .operand = m.merge ? merge_report : NULL, .ud = &m, .mode = m.merge };
    int prc = opt_parse(&prog, argc, argv);
    if (prc != OPT_OK || m.merge) {
        int status = prc != OPT_OK ? OPT_EXIT(prc) : fuzz_merge(&m);
        free(m.names);
        return status;
    }
#ifdef VIV_NO_REPLAY
    o.record = 0;
#endif
    if (o.shard_given && (o.case_file || !o.seed_given || o.seconds)) {
        fprintf(stderr, "viv fuzz: --shard %llu/%llu %s\n", (unsigned long long)o.shard,
                (unsigned long long)o.shards,
                o.case_file ? "and --case do not go together"
                : !o.seed_given ? "needs --seed S: every shard must draw the same campaign"
                : "needs a fixed campaign: --sessions N, not --seconds (a clock would decide its sessions)");
        return 2;
    }
    if (o.report && o.case_file) {
        fprintf(stderr, "viv fuzz: --report is for a campaign, not --case\n");
        return 2;
    }
    if (o.seconds && !o.sessions_given) o.sessions = UINT64_MAX;
    /* The kinds to draw from. */
    static char kbuf[512];
    const char *kinds[64];
    int nkinds = 0;
    if (o.kinds) {
        snprintf(kbuf, sizeof kbuf, "%s", o.kinds);
        char *save = NULL;
        for (char *t = strtok_r(kbuf, ",", &save); t && nkinds < 64; t = strtok_r(NULL, ",", &save)) {
            if (!sim_kind_find(t)) {
                fprintf(stderr, "viv fuzz: unknown world kind '%s' (kinds:", t);
                for (int k = 0; k < sim_kind_count(); k++) fprintf(stderr, " %s", sim_kind_at(k)->name);
                fprintf(stderr, ")\n");
                return 2;
            }
            kinds[nkinds++] = t;
        }
    } else {
        for (int k = 0; k < sim_kind_count() && nkinds < 64; k++) kinds[nkinds++] = sim_kind_at(k)->name;
    }
    if (nkinds == 0) {
        fprintf(stderr, "viv fuzz: --kinds names no kind\n");
        return 2;
    }
    /* --out is made only for a reproducer: a clean campaign leaves no directory behind. */
    char work[4096] = "", db[4200] = "";
#ifndef VIV_NO_REPLAY               /* without it nothing is recorded (and WASI has no mkdtemp) */
    if (o.record) {
        const char *td = getenv("TMPDIR");
        snprintf(work, sizeof work, "%s/viv-fuzz-XXXXXX", td && *td ? td : "/tmp");
        if (!mkdtemp(work)) {
            fprintf(stderr, "viv fuzz: cannot create a temporary directory %s for the recordings: %s "
                    "(set TMPDIR, or use --no-record)\n", work, strerror(errno));
            return 2;
        }
        snprintf(db, sizeof db, "%s/session.db", work);
    }
#endif
    const char *dbp = o.record ? db : NULL;
    pool *workers = NULL;
    char perr[256];
    if (threads > 1 && pool_create((int)threads, &workers, perr, sizeof perr) != 0) {
        fprintf(stderr, "viv fuzz: --threads %ld: %s\n", threads, perr);
        work_remove(work, db);
        return 2;
    }

    if (o.case_file) {                         /* one saved case */
        fz_case c;
        if (read_case(o.case_file, &c) != 0) {
            work_remove(work, db);
            pool_destroy(workers);
            return 2;
        }
        if (!sim_kind_find(c.kind)) {
            fprintf(stderr, "viv fuzz: %s: unknown world kind '%s'\n", o.case_file, c.kind);
            free(c.v);
            work_remove(work, db);
            pool_destroy(workers);
            return 2;
        }
        c.tasks = pool_tasks(workers);
        fz_result r;
        int rc = run_case(&c, dbp, NULL, &r);
        printf("case %s: %s seed=%llu params=%s ticks=%llu, %zu input(s): %s\n", o.case_file, c.kind,
               (unsigned long long)c.seed, params_shown(&c),
               (unsigned long long)c.ticks, c.n, rc == 0 ? "identical all three ways" : r.why);
        free(c.v);
        work_remove(work, db);
        pool_destroy(workers);
        return rc == 0 ? 0 : rc == 1 ? 1 : 2;
    }

    if (!o.seed_given) {
        FILE *ur = fopen("/dev/urandom", "rb");
        if (!ur || fread(&o.seed, sizeof o.seed, 1, ur) != 1) o.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
        if (ur) fclose(ur);
        o.seed &= 0xffffffffffffull;            /* short enough to type */
    }
    /* The human log goes to stderr when the report takes stdout. */
    FILE *log = o.report && !strcmp(o.report, "-") ? stderr : stdout;
    if (o.shards > 1)
        fprintf(log, "viv fuzz: campaign seed %llu, shard %llu/%llu: sessions %llu, %llu, … below %llu "
                "(repeat with --seed %llu --sessions %llu --shard %llu/%llu)\n", (unsigned long long)o.seed,
                (unsigned long long)o.shard, (unsigned long long)o.shards, (unsigned long long)(o.shard - 1),
                (unsigned long long)(o.shard - 1 + o.shards), (unsigned long long)o.sessions,
                (unsigned long long)o.seed, (unsigned long long)o.sessions, (unsigned long long)o.shard,
                (unsigned long long)o.shards);
    else
        fprintf(log, "viv fuzz: campaign seed %llu (repeat with --seed %llu)\n", (unsigned long long)o.seed,
                (unsigned long long)o.seed);
    fflush(log);
    FILE *chain_fp = NULL;
    cli_fuzz_writer *rep = NULL;
    if (o.chain) {
        chain_fp = fopen(o.chain, "w");
        if (!chain_fp) {
            fprintf(stderr, "viv fuzz: cannot write --chain %s: %s\n", o.chain, strerror(errno));
            work_remove(work, db);
            pool_destroy(workers);
            return 2;
        }
    }
    if (o.report) {
        cli_fuzz_campaign camp;
        char rerr[4400];
        memset(&camp, 0, sizeof camp);
        camp.seed = o.seed;
        camp.sessions = o.sessions;
        camp.ticks = o.ticks;
        camp.budget = o.seconds;
        for (int k = 0, len = 0; k < nkinds && len < (int)sizeof camp.kinds; k++)
            len += snprintf(camp.kinds + len, sizeof camp.kinds - (size_t)len, "%s%s", k ? "," : "", kinds[k]);
        camp.recorded = o.record;
        camp.fault = o.inject;
        snprintf(camp.sim, sizeof camp.sim, "%s", SIM_VERSION);
        if (!(rep = cli_fuzz_report_open(o.report, &camp, o.shard, o.shards, rerr, sizeof rerr))) {
            fprintf(stderr, "viv fuzz: %s\n", rerr);
            if (chain_fp) fclose(chain_fp);
            work_remove(work, db);
            pool_destroy(workers);
            return 2;
        }
    }
    double t0 = now_s();
    uint64_t done = 0, ticks = 0, inputs = 0, refused = 0;
    int status = 0, result = CLI_FUZZ_IDENTICAL;
    /* Session i is a pure function of (seed, i): a shard runs every shards-th one. */
    for (uint64_t i = o.shard - 1; i < o.sessions; i += o.shards) {
        if (o.seconds && now_s() - t0 >= (double)o.seconds) break;
        fz_case c;
        cli_fuzz_session fs;
        memset(&fs, 0, sizeof fs);
        fs.index = i;
        if (gen_case(&o, i, kinds, nkinds, &c, fs.why, sizeof fs.why) != 0) {
            fprintf(stderr, "viv fuzz: session %llu: %s\n", (unsigned long long)i, fs.why);
            snprintf(fs.kind, sizeof fs.kind, "%s", c.kind);
            fs.seed = c.seed;
            fs.result = result = CLI_FUZZ_ERROR;
            if (rep) cli_fuzz_report_session(rep, &fs);
            free(c.v);
            status = 2;
            break;
        }
        c.tasks = pool_tasks(workers);
        fz_result r;
        chain ch = { NULL, NULL };
        int rc = run_case(&c, dbp, chain_fp ? &ch : NULL, &r);
        done++;
        ticks += c.ticks;
        inputs += r.accepted;
        refused += r.refused;
        snprintf(fs.kind, sizeof fs.kind, "%s", c.kind);
        fs.seed = c.seed;
        snprintf(fs.params, sizeof fs.params, "%s", c.params);
        fs.ticks = c.ticks;
        fs.inputs = r.accepted;
        fs.refused = r.refused;
        if (rc == 0) {
            if (!o.quiet)
                fprintf(log, "session %llu: %s seed=%llu params=%s ticks=%llu, %llu inputs (%llu refused): "
                        "identical\n", (unsigned long long)i, c.kind, (unsigned long long)c.seed,
                        params_shown(&c),
                        (unsigned long long)c.ticks, (unsigned long long)r.accepted,
                        (unsigned long long)r.refused);
            if (rep) cli_fuzz_report_session(rep, &fs);
            if (chain_fp) {
                fprintf(chain_fp, "session %llu %s %llu %s %llu\n", (unsigned long long)i, c.kind,
                        (unsigned long long)c.seed, c.params, (unsigned long long)c.ticks);
                for (uint64_t t = 0; t < c.ticks; t++)
                    fprintf(chain_fp, "%llu %016llx %016llx\n", (unsigned long long)(t + 1),
                            (unsigned long long)ch.sh[t], (unsigned long long)ch.fh[t]);
                free(ch.sh);
                free(ch.fh);
            }
            if (dbp) unlink(dbp);
            free(c.v);
            continue;
        }
        snprintf(fs.why, sizeof fs.why, "%s", r.why);
        if (rc < 0) {
            fprintf(stderr, "viv fuzz: session %llu could not run: %s\n", (unsigned long long)i, r.why);
            fs.result = result = CLI_FUZZ_ERROR;
            if (rep) cli_fuzz_report_session(rep, &fs);
            free(c.v);
            status = 2;
            break;
        }
        /* A divergence: shrink, write the reproducer, say how to run it. */
        fs.result = result = CLI_FUZZ_DIVERGED;
        fs.way = r.way;
        fs.tick = r.tick;
        fprintf(log, "session %llu: %s seed=%llu params=%s: DIVERGED (way %d at tick %llu): %s\n",
                (unsigned long long)i, c.kind, (unsigned long long)c.seed, params_shown(&c), r.way,
                (unsigned long long)r.tick, r.why);
        if (!o.no_shrink) shrink(&c, dbp, r.way, o.quiet);
        status = 1;
        if (mkdir_p(o.out) != 0) {
            fprintf(stderr, "viv fuzz: cannot create --out %s for the reproducer: %s\n", o.out,
                    strerror(errno));
            if (rep) cli_fuzz_report_session(rep, &fs);
            free(c.v);
            status = 2;
            break;
        }
        char base[4200], path[4300];
        snprintf(base, sizeof base, "%s/repro-%llu-%llu", o.out, (unsigned long long)o.seed,
                 (unsigned long long)i);
        snprintf(path, sizeof path, "%s.case", base);
        write_case(&c, path);
        snprintf(fs.case_file, sizeof fs.case_file, "%.599s", path);
        if (rep) cli_fuzz_report_session(rep, &fs);
        char ipath[4300];
        snprintf(ipath, sizeof ipath, "%s.inputs", base);
        write_inputs(&c, ipath);
        fz_result r2;
        char rdb[4300];
        snprintf(rdb, sizeof rdb, "%s.db", base);
        if (o.record) run_case(&c, rdb, NULL, &r2);       /* leaves the minimal recording */
        fprintf(log, "minimal reproducer: %zu input(s), %llu tick(s): %s.case, %s.inputs%s%s\n", c.n,
                (unsigned long long)c.ticks, base, base, o.record ? ", " : "", o.record ? rdb : "");
        fprintf(log, "reproduce with: viv fuzz --case %s\n", path);
        free(c.v);
        status = 1;
        break;
    }
    if (chain_fp && fclose(chain_fp) != 0) {
        fprintf(stderr, "viv fuzz: writing %s failed\n", o.chain);
        if (!status) status = 2;
        if (result == CLI_FUZZ_IDENTICAL) result = CLI_FUZZ_ERROR;
    }
    double secs = now_s() - t0;
    if (rep) {
        char rerr[4400];
        if (cli_fuzz_report_close(rep, result, secs, rerr, sizeof rerr) != 0) {
            fprintf(stderr, "viv fuzz: %s\n", rerr);
            if (!status) status = 2;
        }
    }
    fprintf(log, "viv fuzz: %llu session(s), %llu ticks, %llu inputs applied, %llu refused, in %.1f s "
            "(%.0f ticks/s, three ways each): %s\n", (unsigned long long)done, (unsigned long long)ticks,
            (unsigned long long)inputs, (unsigned long long)refused, secs,
            secs > 0 ? (double)ticks / secs : 0.0,
            status == 0 ? "all identical" : status == 1 ? "DIVERGENCE" : "error");
    work_remove(work, db);
    pool_destroy(workers);
    return status;
}
