/* fuzz_campaign.c — a `viv fuzz` campaign (viv_fuzz.h): its sessions drawn and run in turn, each
 * counted, reported (--report) and its chain written (--chain), up to the first divergence, which
 * is shrunk and written under --out as a case file, an inputs file and a replay file, with the one
 * command that reproduces it; and `--case FILE`, one such case run again. Session i depends on
 * (seed, i) alone, so `--shard K/N` runs the sessions i ≡ K-1 mod N of the same campaign. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ci_report.h"
#include "fuzz_report.h"
#include "viv_fuzz.h"

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

/* ---- what the sessions run with --------------------------------------------------------------- */
int fz_host_start(fz_host *h, const fz_opts *o)
{
    memset(h, 0, sizeof *h);
    /* --out is made only for a reproducer: a clean campaign leaves no directory behind. */
#ifndef VIV_NO_REPLAY               /* without it nothing is recorded (and WASI has no mkdtemp) */
    if (o->record) {
        const char *td = getenv("TMPDIR");
        snprintf(h->work, sizeof h->work, "%s/viv-fuzz-XXXXXX", td && *td ? td : "/tmp");
        if (!mkdtemp(h->work)) {
            fprintf(stderr, "viv fuzz: cannot create a temporary directory %s for the recordings: %s "
                    "(set TMPDIR, or use --no-record)\n", h->work, strerror(errno));
            return 2;
        }
        snprintf(h->db, sizeof h->db, "%s/session.db", h->work);
    }
#endif
    h->dbp = o->record ? h->db : NULL;
    char perr[256];
    if (o->threads > 1 && pool_create((int)o->threads, &h->workers, perr, sizeof perr) != 0) {
        fprintf(stderr, "viv fuzz: --threads %ld: %s\n", o->threads, perr);
        work_remove(h->work, h->db);
        return 2;
    }
    return 0;
}

void fz_host_stop(fz_host *h)
{
    work_remove(h->work, h->db);
    pool_destroy(h->workers);
}

/* ---- --junit FILE (viv_fuzz.h) ---------------------------------------------------------------- */
int fz_junit_open(const char *path, const char *suite, ci_junit **j)
{
    char err[4400];
    *j = NULL;
    if (!path) return 0;
    if (!(*j = ci_junit_open(path, suite, err, sizeof err))) {
        fprintf(stderr, "viv fuzz: --junit: %s\n", err);
        return 2;
    }
    return 0;
}

int fz_junit_close(ci_junit *j, double seconds, int status)
{
    char err[4400];
    if (!j || ci_junit_close(j, seconds, err, sizeof err) == 0) return status;
    fprintf(stderr, "viv fuzz: --junit: %s\n", err);
    return status ? status : 2;
}

/* ---- --case: one saved case ------------------------------------------------------------------- */
/* The case o->case_file run and said, and fs filled with how it went. The exit status. */
static int case_file_run(const fz_host *h, const fz_opts *o, cli_fuzz_session *fs)
{
    fz_case c;
    memset(fs, 0, sizeof *fs);
    fs->result = CLI_FUZZ_ERROR;
    snprintf(fs->kind, sizeof fs->kind, "?");
    if (fz_case_read(o->case_file, &c) != 0) {
        snprintf(fs->why, sizeof fs->why, "%.500s cannot be read as a case (stderr says why)", o->case_file);
        free(c.v);
        return 2;
    }
    snprintf(fs->kind, sizeof fs->kind, "%s", c.kind);
    fs->seed = c.seed;
    snprintf(fs->params, sizeof fs->params, "%s", c.params);
    fs->ticks = c.ticks;
    if (!sim_kind_find(c.kind)) {
        fprintf(stderr, "viv fuzz: %s: unknown world kind '%s'\n", o->case_file, c.kind);
        snprintf(fs->why, sizeof fs->why, "unknown world kind '%s'", c.kind);
        free(c.v);
        return 2;
    }
    c.tasks = pool_tasks(h->workers);
    fz_result r;
    int rc = fz_case_run(&c, h->dbp, NULL, &r);
    printf("case %s: %s seed=%llu params=%s ticks=%llu, %zu input(s): %s\n", o->case_file, c.kind,
           (unsigned long long)c.seed, params_shown(&c),
           (unsigned long long)c.ticks, c.n, rc == 0 ? "identical all three ways" : r.why);
    fs->inputs = r.accepted;
    fs->refused = r.refused;
    fs->result = rc == 0 ? CLI_FUZZ_IDENTICAL : rc == 1 ? CLI_FUZZ_DIVERGED : CLI_FUZZ_ERROR;
    fs->way = r.way;
    fs->tick = r.tick;
    if (rc) snprintf(fs->why, sizeof fs->why, "%s", r.why);
    free(c.v);
    return rc == 0 ? 0 : rc == 1 ? 1 : 2;
}

int fz_case_file_run(const fz_host *h, const fz_opts *o)
{
    ci_junit *j;
    if (fz_junit_open(o->junit, "viv fuzz --case", &j) != 0) return 2;
    double t0 = now_s();
    cli_fuzz_session fs;
    int status = case_file_run(h, o, &fs);
    double secs = now_s() - t0;
    if (j) (void)cli_fuzz_junit_session(j, 0, o->case_file, &fs, secs);   /* out of memory: close says so */
    return fz_junit_close(j, secs, status);
}

/* ---- the campaign ------------------------------------------------------------------------------ */
/* A campaign as it runs: where it writes, and what it has counted so far. */
typedef struct fz_campaign {
    const fz_host *h;
    const fz_opts *o;
    FILE *log;                 /* the human log: stdout, or stderr when the report takes stdout */
    FILE *chain_fp;            /* --chain, or NULL */
    cli_fuzz_writer *rep;      /* --report, or NULL */
    ci_junit *junit;           /* --junit, or NULL */
    double t0;
    uint64_t done, ticks, inputs, refused;
    int status;                /* the exit status so far */
    int result;                /* CLI_FUZZ_… of the campaign so far */
} fz_campaign;

/* The campaign's seed when none is given: a random one, short enough to type. */
static uint64_t campaign_seed(void)
{
    uint64_t seed;
    FILE *ur = fopen("/dev/urandom", "rb");
    if (!ur || fread(&seed, sizeof seed, 1, ur) != 1) seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
    if (ur) fclose(ur);
    return seed & 0xffffffffffffull;
}

/* The line that says how to repeat the campaign, then the --chain and --report files opened.
 * 0, or 2 after a message (nothing left open). */
static int campaign_open(fz_campaign *cp, const fz_host *h, const fz_opts *o)
{
    memset(cp, 0, sizeof *cp);
    cp->h = h;
    cp->o = o;
    cp->result = CLI_FUZZ_IDENTICAL;
    cp->log = o->report && !strcmp(o->report, "-") ? stderr : stdout;
    if (o->shards > 1)
        fprintf(cp->log, "viv fuzz: campaign seed %llu, shard %llu/%llu: sessions %llu, %llu, … below %llu "
                "(repeat with --seed %llu --sessions %llu --shard %llu/%llu)\n", (unsigned long long)o->seed,
                (unsigned long long)o->shard, (unsigned long long)o->shards, (unsigned long long)(o->shard - 1),
                (unsigned long long)(o->shard - 1 + o->shards), (unsigned long long)o->sessions,
                (unsigned long long)o->seed, (unsigned long long)o->sessions, (unsigned long long)o->shard,
                (unsigned long long)o->shards);
    else
        fprintf(cp->log, "viv fuzz: campaign seed %llu (repeat with --seed %llu)\n", (unsigned long long)o->seed,
                (unsigned long long)o->seed);
    fflush(cp->log);
    if (o->chain) {
        cp->chain_fp = fopen(o->chain, "w");
        if (!cp->chain_fp) {
            fprintf(stderr, "viv fuzz: cannot write --chain %s: %s\n", o->chain, strerror(errno));
            return 2;
        }
    }
    char suite[64];
    snprintf(suite, sizeof suite, "viv fuzz seed %llu", (unsigned long long)o->seed);
    if (fz_junit_open(o->junit, suite, &cp->junit) != 0) {
        if (cp->chain_fp) fclose(cp->chain_fp);
        return 2;
    }
    if (o->report) {
        cli_fuzz_campaign camp;
        char rerr[4400];
        memset(&camp, 0, sizeof camp);
        camp.seed = o->seed;
        camp.sessions = o->sessions;
        camp.ticks = o->ticks;
        camp.budget = o->seconds;
        for (int k = 0, len = 0; k < o->nkinds && len < (int)sizeof camp.kinds; k++)
            len += snprintf(camp.kinds + len, sizeof camp.kinds - (size_t)len, "%s%s", k ? "," : "",
                            o->kind_v[k]);
        camp.recorded = o->record;
        camp.fault = o->inject;
        snprintf(camp.sim, sizeof camp.sim, "%s", SIM_VERSION);
        if (!(cp->rep = cli_fuzz_report_open(o->report, &camp, o->shard, o->shards, rerr, sizeof rerr))) {
            fprintf(stderr, "viv fuzz: %s\n", rerr);
            if (cp->chain_fp) fclose(cp->chain_fp);
            ci_junit_discard(cp->junit);
            return 2;
        }
    }
    return 0;
}

/* An identical session: its line (unless --quiet), its report entry and its chain. */
static void campaign_identical(fz_campaign *cp, uint64_t i, const fz_case *c, const fz_result *r,
                               const fz_chain *ch, const cli_fuzz_session *fs)
{
    if (!cp->o->quiet)
        fprintf(cp->log, "session %llu: %s seed=%llu params=%s ticks=%llu, %llu inputs (%llu refused): "
                "identical\n", (unsigned long long)i, c->kind, (unsigned long long)c->seed,
                params_shown(c),
                (unsigned long long)c->ticks, (unsigned long long)r->accepted,
                (unsigned long long)r->refused);
    if (cp->rep) cli_fuzz_report_session(cp->rep, fs);
    if (cp->chain_fp) {
        fprintf(cp->chain_fp, "session %llu %s %llu %s %llu\n", (unsigned long long)i, c->kind,
                (unsigned long long)c->seed, c->params, (unsigned long long)c->ticks);
        for (uint64_t t = 0; t < c->ticks; t++)
            fprintf(cp->chain_fp, "%llu %016llx %016llx\n", (unsigned long long)(t + 1),
                    (unsigned long long)ch->sh[t], (unsigned long long)ch->fh[t]);
    }
}

/* A divergence: shrink, write the reproducer, say how to run it. 1, or 2 when --out cannot be
 * made. */
static int campaign_diverged(fz_campaign *cp, uint64_t i, fz_case *c, const fz_result *r,
                             cli_fuzz_session *fs)
{
    const fz_opts *o = cp->o;
    fs->result = cp->result = CLI_FUZZ_DIVERGED;
    fs->way = r->way;
    fs->tick = r->tick;
    fprintf(cp->log, "session %llu: %s seed=%llu params=%s: DIVERGED (way %d at tick %llu): %s\n",
            (unsigned long long)i, c->kind, (unsigned long long)c->seed, params_shown(c), r->way,
            (unsigned long long)r->tick, r->why);
    if (!o->no_shrink) fz_case_shrink(c, cp->h->dbp, r->way, o->quiet);
    if (mkdir_p(o->out) != 0) {
        fprintf(stderr, "viv fuzz: cannot create --out %s for the reproducer: %s\n", o->out,
                strerror(errno));
        if (cp->rep) cli_fuzz_report_session(cp->rep, fs);
        return 2;
    }
    char base[4200], path[4300];
    snprintf(base, sizeof base, "%s/repro-%llu-%llu", o->out, (unsigned long long)o->seed,
             (unsigned long long)i);
    snprintf(path, sizeof path, "%s.case", base);
    fz_case_write(c, path);
    snprintf(fs->case_file, sizeof fs->case_file, "%.599s", path);
    if (cp->rep) cli_fuzz_report_session(cp->rep, fs);
    char ipath[4300];
    snprintf(ipath, sizeof ipath, "%s.inputs", base);
    fz_case_write_inputs(c, ipath);
    fz_result r2;
    char rdb[4300];
    snprintf(rdb, sizeof rdb, "%s.db", base);
    if (o->record) fz_case_run(c, rdb, NULL, &r2);     /* leaves the minimal recording */
    fprintf(cp->log, "minimal reproducer: %zu input(s), %llu tick(s): %s.case, %s.inputs%s%s\n", c->n,
            (unsigned long long)c->ticks, base, base, o->record ? ", " : "", o->record ? rdb : "");
    fprintf(cp->log, "reproduce with: viv fuzz --case %s\n", path);
    return 1;
}

/* Session i: drawn, run three ways, counted, and reported as it went (fs: how). 0 identical (go
 * on), 1 it diverged, 2 it could not be drawn or run, or its reproducer not written (the campaign
 * stops). */
static int session_run(fz_campaign *cp, uint64_t i, cli_fuzz_session *fs)
{
    const fz_opts *o = cp->o;
    fz_case c;
    memset(fs, 0, sizeof *fs);
    fs->index = i;
    if (fz_case_gen(o->seed, i, o->ticks, o->kind_v, o->nkinds, &c, fs->why, sizeof fs->why) != 0) {
        fprintf(stderr, "viv fuzz: session %llu: %s\n", (unsigned long long)i, fs->why);
        snprintf(fs->kind, sizeof fs->kind, "%s", c.kind);
        fs->seed = c.seed;
        fs->result = cp->result = CLI_FUZZ_ERROR;
        if (cp->rep) cli_fuzz_report_session(cp->rep, fs);
        free(c.v);
        return 2;
    }
    c.fault_tick = o->inject;
    c.tasks = pool_tasks(cp->h->workers);
    fz_result r;
    fz_chain ch = { NULL, NULL };
    int rc = fz_case_run(&c, cp->h->dbp, cp->chain_fp ? &ch : NULL, &r);
    cp->done++;
    cp->ticks += c.ticks;
    cp->inputs += r.accepted;
    cp->refused += r.refused;
    snprintf(fs->kind, sizeof fs->kind, "%s", c.kind);
    fs->seed = c.seed;
    snprintf(fs->params, sizeof fs->params, "%s", c.params);
    fs->ticks = c.ticks;
    fs->inputs = r.accepted;
    fs->refused = r.refused;
    if (rc == 0) {
        campaign_identical(cp, i, &c, &r, &ch, fs);
        free(ch.sh);
        free(ch.fh);
        if (cp->h->dbp) unlink(cp->h->dbp);
        free(c.v);
        return 0;
    }
    snprintf(fs->why, sizeof fs->why, "%s", r.why);
    int status;
    if (rc < 0) {
        fprintf(stderr, "viv fuzz: session %llu could not run: %s\n", (unsigned long long)i, r.why);
        fs->result = cp->result = CLI_FUZZ_ERROR;
        if (cp->rep) cli_fuzz_report_session(cp->rep, fs);
        status = 2;
    } else {
        status = campaign_diverged(cp, i, &c, &r, fs);
    }
    free(c.v);
    return status;
}

/* Session i (session_run), and its testcase in the --junit report. */
static int campaign_session(fz_campaign *cp, uint64_t i)
{
    cli_fuzz_session fs;
    double t0 = now_s();
    int status = session_run(cp, i, &fs);
    if (cp->junit) (void)cli_fuzz_junit_session(cp->junit, cp->o->seed, NULL, &fs, now_s() - t0);
    return status;      /* out of memory in the report: its close says so */
}

/* The campaign's end: the chain closed, the report finished, the summary line. The exit status. */
static int campaign_close(fz_campaign *cp)
{
    const fz_opts *o = cp->o;
    if (cp->chain_fp && fclose(cp->chain_fp) != 0) {
        fprintf(stderr, "viv fuzz: writing %s failed\n", o->chain);
        if (!cp->status) cp->status = 2;
        if (cp->result == CLI_FUZZ_IDENTICAL) cp->result = CLI_FUZZ_ERROR;
    }
    double secs = now_s() - cp->t0;
    if (cp->rep) {
        char rerr[4400];
        if (cli_fuzz_report_close(cp->rep, cp->result, secs, rerr, sizeof rerr) != 0) {
            fprintf(stderr, "viv fuzz: %s\n", rerr);
            if (!cp->status) cp->status = 2;
        }
    }
    cp->status = fz_junit_close(cp->junit, secs, cp->status);
    fprintf(cp->log, "viv fuzz: %llu session(s), %llu ticks, %llu inputs applied, %llu refused, in %.1f s "
            "(%.0f ticks/s, three ways each): %s\n", (unsigned long long)cp->done,
            (unsigned long long)cp->ticks, (unsigned long long)cp->inputs,
            (unsigned long long)cp->refused, secs, secs > 0 ? (double)cp->ticks / secs : 0.0,
            cp->status == 0 ? "all identical" : cp->status == 1 ? "DIVERGENCE" : "error");
    return cp->status;
}

int fz_campaign_run(const fz_host *h, fz_opts *o)
{
    if (!o->seed_given) o->seed = campaign_seed();
    fz_campaign cp;
    if (campaign_open(&cp, h, o) != 0) return 2;
    cp.t0 = now_s();
    /* Session i is a pure function of (seed, i): a shard runs every shards-th one. */
    for (uint64_t i = o->shard - 1; i < o->sessions; i += o->shards) {
        if (o->seconds && now_s() - cp.t0 >= (double)o->seconds) break;
        if ((cp.status = campaign_session(&cp, i)) != 0) break;
    }
    return campaign_close(&cp);
}
