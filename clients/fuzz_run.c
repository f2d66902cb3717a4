/* fuzz_run.c — one `viv fuzz` session's three ways (viv_fuzz.h): a case run live (recorded through
 * the real recorder), replayed from that file by the verifier, and in sync-test mode (saved,
 * loaded into a second world with another history, carried on), each compared with the live run
 * at every tick; and a divergent case shrunk (inputs dropped, ticks halved) to a minimal one that
 * still diverges the same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "viv_fuzz.h"
#ifndef VIV_NO_REPLAY
#include "read.h"
#include "replay.h"
#endif

/* ---- running a case ---------------------------------------------------------------------------------- */
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

/* Way 1's inputs of tick t, c->v[*next] on, each held to what it expects: an invalid one must be
 * refused, and a refused one must leave the state as it was. The accepted ones are added at
 * acc[*na] in the order the world applies them, for the log and the sync-test run. 0, or 1 (res
 * says which input did what). */
static int live_inputs(sim_world *w, const fz_case *c, uint64_t t, size_t *next, sim_input *acc,
                       size_t *na, fz_result *res)
{
    size_t first = *na, n = *na, k = *next;
    for (; k < c->n && c->v[k].in.tick == t; k++) {
        const fz_input *x = &c->v[k];
        uint64_t before = x->expect == FZ_EXPECT_REFUSED ? sim_world_hash(w) : 0;
        int rc = sim_world_input(w, &x->in);
        if (rc == 0) {
            if (x->expect == FZ_EXPECT_REFUSED) {
                snprintf(res->why, sizeof res->why, "an invalid input was accepted at tick %llu "
                         "(kind %u, %u args)", (unsigned long long)t, (unsigned)x->in.kind,
                         (unsigned)x->in.nargs);
                res->way = 4;
                res->tick = t;
                *na = n;
                return 1;
            }
            acc[n++] = x->in;
            res->accepted++;
        } else {
            res->refused++;
            if (x->expect == FZ_EXPECT_REFUSED && sim_world_hash(w) != before) {
                snprintf(res->why, sizeof res->why, "a refused input changed the state at tick %llu",
                         (unsigned long long)t);
                res->way = 4;
                res->tick = t;
                *na = n;
                return 1;
            }
        }
    }
    /* The log holds inputs in application order, (client, seq). */
    for (size_t i = first + 1; i < n; i++)
        for (size_t j = i; j > first && (acc[j - 1].client > acc[j].client ||
             (acc[j - 1].client == acc[j].client && acc[j - 1].seq > acc[j].seq)); j--) {
            sim_input tmp = acc[j - 1];
            acc[j - 1] = acc[j];
            acc[j] = tmp;
        }
    *next = k;
    *na = n;
    return 0;
}

/* Way 1: live (recorded when db != NULL). Fills ch and the accepted inputs list. */
static int run_live(const fz_case *c, fz_chain *ch, fz_result *res, sim_input *acc, size_t *nacc,
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
        size_t first = na;                     /* tick t's accepted inputs: acc[first..na) */
        if (live_inputs(w, c, t, &next, acc, &na, res) != 0) {
            status = 1;
            goto out;
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
#else
        (void)first;
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
static int run_sync(const fz_case *c, const fz_chain *ch, const sim_input *acc, size_t nacc,
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
int fz_case_run(const fz_case *c, const char *db, fz_chain *keep, fz_result *res)
{
    memset(res, 0, sizeof *res);
    fz_chain ch = { calloc(c->ticks, 8), calloc(c->ticks, 8) };
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
void fz_case_shrink(fz_case *c, const char *db, int way, int quiet)
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
            if (fz_case_run(&t, db, NULL, &r) == 1 && r.way == way) {
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
        if (fz_case_run(&t, db, NULL, &r) == 1 && r.way == way) {
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
        if (fz_case_run(&t, db, NULL, &r) == 1 && r.way == way) c->ticks = t.ticks;
    }
    if (!quiet) fprintf(stderr, "viv fuzz: shrunk in %d tries to %zu input(s) over %llu tick(s)\n",
                        tries, c->n, (unsigned long long)c->ticks);
}
