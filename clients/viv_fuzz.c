/* viv_fuzz.c — `viv fuzz`: determinism fuzzing, the command. Its --help, its option table (opt/opt.h)
 * with --merge's rows as a mode of it, the checks no single option can make, `--merge` (the shards'
 * `--report`s joined by fuzz_report.c into the report of the whole, docs/FUZZ.md), and main:
 * parse, check, start the host of the sessions, run a campaign or one --case, stop. Each session is
 * a random world and input stream run three ways and compared tick by tick (viv_fuzz.h says how;
 * fuzz_campaign.c, fuzz_case.c and fuzz_run.c do it).
 *
 * The generator is a pure function of the base seed, so `--seed S` reproduces a campaign on any
 * machine; `--chain FILE` writes every tick's hashes so the determinism matrix can compare
 * builds. Session i depends on (seed, i) alone, so `--shard K/N` runs the sessions i ≡ K-1 mod N
 * of the same campaign, and `--merge` joins the shards' reports into the report of the whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci_report.h"
#include "cli.h"
#include "fuzz_report.h"
#include "opt.h"
#include "viv_fuzz.h"

/* ---- the command line ---------------------------------------------------------------------- */
static void fuzz_head(FILE *out)
{
    fprintf(out,
        "usage: viv fuzz [--sessions N] [--ticks T] [--seed S] [--seconds B] [--kinds K1,K2]\n"
        "                [--out DIR] [--chain FILE] [--no-record] [--no-shrink] [--threads N]\n"
        "                [--shard K/N] [--report FILE] [--junit FILE] [--quiet]\n"
        "       viv fuzz --case FILE [--junit FILE]\n"
        "       viv fuzz --merge REPORT… [-o FILE] [--junit FILE]\n"
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

/* ---- --merge: the shards' reports joined into the campaign's ---------------------------------------- */
/* `viv fuzz --merge REPORT… [-o FILE]`, as parsed: the reports and where the merged one goes. */
typedef struct fz_merge_args {
    const char **names;
    size_t n;
    const char *dest;          /* NULL: stdout */
    const char *junit;         /* --junit FILE, or NULL */
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
    ci_junit *j = NULL;
    memset(&out, 0, sizeof out);
    if (fz_junit_open(m->junit, "viv fuzz --merge", &j) != 0) goto done;
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
    /* The shards' reports keep no time per session: each testcase's is 0. */
    for (size_t i = 0; j && i < out.n; i++) (void)cli_fuzz_junit_session(j, out.c.seed, NULL, &out.v[i], 0);
    status = fz_junit_close(j, out.seconds, status);
    j = NULL;
done:
    ci_junit_discard(j);
    for (size_t i = 0; in && i < n; i++) cli_fuzz_report_free(&in[i]);
    cli_fuzz_report_free(&out);
    free(in);
    return status;
}

/* ---- parse, check, run ------------------------------------------------------------------------------ */
/* The command line into o (or, with --merge anywhere in it, into m: mode 1 of the table), every
 * value checked as it comes (opt.h): OPT_OK, OPT_DONE (--help printed) or OPT_BAD (a message
 * printed). m->names is the caller's to free, whatever the outcome. */
static int fuzz_parse(fz_opts *o, fz_merge_args *m, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->shard = o->shards = 1;
    o->sessions = 20;
    o->ticks = 600;
    o->out = "fuzz-out";
    o->record = 1;
    o->threads = pool_default_workers();
    /* --merge anywhere makes the command line a merge's (mode 1 of the table). */
    memset(m, 0, sizeof *m);
    for (int i = 1; i < argc; i++) m->merge |= !strcmp(argv[i], "--merge");
    if (m->merge && !(m->names = calloc((size_t)argc, sizeof *m->names))) {
        fprintf(stderr, "viv fuzz: out of memory\n");
        return OPT_BAD;
    }
    const opt table[] = {
        OPT_CALL("--sessions", "N", set_sessions, o,
                 "sessions to run (default 20; with --seconds, until time is up)"),
        OPT_CALL("--ticks", "T", set_ticks, o, "ticks per session, each session picks T/2..T (default 600; fewer above 640x480)"),
        OPT_CALL("--seed", "S", set_seed, o,
                 "campaign seed (default: random, printed first so a run can be repeated)"),
        OPT_U64("--seconds", "B", &o->seconds, "stop starting sessions after B seconds"),
        OPT_STR("--kinds", "LIST", &o->kinds, "world kinds to draw from, comma-separated (default: every kind)"),
        OPT_STR("--out", "DIR", &o->out,
                "where reproducers go (default ./fuzz-out), made only when there is one\n"
                "to write; the running session's recording lives in a temporary\n"
                "directory ($TMPDIR, else /tmp), deleted when the campaign ends"),
        OPT_STR("--chain", "FILE", &o->chain,
                "write every session's per-tick state and frame hashes (for comparing\n"
                "builds: the determinism matrix runs the same seed on five builds)"),
        OPT_SET("--no-record", &o->record, 0, "skip the recorded and replayed ways (only live and sync-test)"),
        OPT_FLAG("--no-shrink", &o->no_shrink, "write a divergent case as found, without shrinking it"),
        OPT_STR("--case", "FILE", &o->case_file,
                "run one saved case (as written next to a reproducer) and report"),
        OPT_LONG("--threads", "N", &o->threads, 1, POOL_WORKERS_MAX,
                 "workers for the live way's parallel passes, the calling thread\n"
                 "included (default: one per CPU, at most " OPT_STRINGIFY(POOL_DEFAULT_MAX)
                 "; 1: inline like the others)"),
        OPT_STR("--report", "FILE", &o->report,
                "write the campaign's report as JSON (docs/FUZZ.md): the campaign, then\n"
                "every session run (kind, seed, params, ticks, inputs, result; where and\n"
                "why it diverged), the result and the totals; \"-\" for stdout"),
        OPT_STR("--junit", "FILE", &o->junit,
                "also write the verdicts as JUnit XML (what Jenkins, GitLab and GitHub\n"
                "show as test results): one testcase per session (with --case: the\n"
                "case; with --merge: the merged campaign's sessions), a divergence a\n"
                "<failure> whose message names the way and the tick and starts the\n"
                "desync report, a session that could not run an <error>. A FILE that\n"
                "cannot be written is refused before anything runs (exit 2); one that\n"
                "fails at the end turns exit 0 into 2 and leaves a 1 as it is"),
        OPT_CALL("--shard", "K/N", set_shard, o,
                 "run slice K of N (1 <= K <= N) of the campaign: the sessions i with\n"
                 "i mod N = K-1. The N slices are disjoint and together are the campaign\n"
                 "run unsharded; each stops at its own first divergence. Needs --seed\n"
                 "(every shard must draw the same campaign) and a fixed --sessions, not\n"
                 "--seconds. Give each shard its own --report"),
        OPT_FLAG("--quiet", &o->quiet, "no line for each identical session, nor for the shrinking"),
        OPT_U64("--inject-fault", "TICK", &o->inject, NULL),      /* test hook, not in --help */
        { .name = "--merge", .set = opt_flag, .ptr = &m->merge, .min = 1, .mode = 1,
          .help = "join the --report files of all N shards of one campaign into the report\n"
                  "the unsharded campaign writes (its sessions up to the first divergence,\n"
                  "its result and totals; only \"seconds\" differs: the shards' sum), to\n"
                  "-o FILE or stdout. Refused: malformed reports, reports of different\n"
                  "campaigns or splits, a shard twice or missing, an incomplete shard.\n"
                  "Exit status as the merged campaign's" },
        { .name = "-o", .arg = "FILE", .set = set_merge_out, .ptr = m, .mode = 1,
          .help = "with --merge: where the merged report goes (default: stdout)" },
        { .name = "--junit", .arg = "FILE", .set = opt_str, .ptr = &m->junit, .mode = 1 },   /* as above */
        OPT_END
    };
    const opt_prog prog = { .who = m->merge ? "viv fuzz --merge" : "viv fuzz", .see = "viv fuzz",
                            .opts = table, .column = 17, .head = fuzz_head, .tail = fuzz_tail,
                            .operand = m->merge ? merge_report : NULL, .ud = m, .mode = m->merge };
    return opt_parse(&prog, argc, argv);
}

/* --kinds split at its commas into o->kind_v, each a kind there is; without it, every kind. 0, or
 * 2 after a message. */
static int check_kinds(fz_opts *o)
{
    o->nkinds = 0;
    if (o->kinds) {
        snprintf(o->kind_buf, sizeof o->kind_buf, "%s", o->kinds);
        char *save = NULL;
        for (char *t = strtok_r(o->kind_buf, ",", &save); t && o->nkinds < FZ_KINDS_MAX;
             t = strtok_r(NULL, ",", &save)) {
            if (!sim_kind_find(t)) {
                fprintf(stderr, "viv fuzz: unknown world kind '%s' (kinds:", t);
                for (int k = 0; k < sim_kind_count(); k++) fprintf(stderr, " %s", sim_kind_at(k)->name);
                fprintf(stderr, ")\n");
                return 2;
            }
            o->kind_v[o->nkinds++] = t;
        }
    } else {
        for (int k = 0; k < sim_kind_count() && o->nkinds < FZ_KINDS_MAX; k++)
            o->kind_v[o->nkinds++] = sim_kind_at(k)->name;
    }
    if (o->nkinds == 0) {
        fprintf(stderr, "viv fuzz: --kinds names no kind\n");
        return 2;
    }
    return 0;
}

/* What no single option can check: options that contradict each other, and the kinds. A build
 * without the replay layer records nothing; a time budget without --sessions runs until it is
 * spent. 0, or 2 after a message. */
static int fuzz_check(fz_opts *o)
{
#ifdef VIV_NO_REPLAY
    o->record = 0;
#endif
    if (o->shard_given && (o->case_file || !o->seed_given || o->seconds)) {
        fprintf(stderr, "viv fuzz: --shard %llu/%llu %s\n", (unsigned long long)o->shard,
                (unsigned long long)o->shards,
                o->case_file ? "and --case do not go together"
                : !o->seed_given ? "needs --seed S: every shard must draw the same campaign"
                : "needs a fixed campaign: --sessions N, not --seconds (a clock would decide its sessions)");
        return 2;
    }
    if (o->report && o->case_file) {
        fprintf(stderr, "viv fuzz: --report is for a campaign, not --case\n");
        return 2;
    }
    if (o->seconds && !o->sessions_given) o->sessions = UINT64_MAX;
    return check_kinds(o);
}

int cli_fuzz_main(int argc, char **argv)
{
    fz_opts o;
    fz_merge_args m;
    int prc = fuzz_parse(&o, &m, argc, argv);
    if (prc != OPT_OK || m.merge) {
        int status = prc != OPT_OK ? OPT_EXIT(prc) : fuzz_merge(&m);
        free(m.names);
        return status;
    }
    if (fuzz_check(&o) != 0) return 2;
    fz_host h;
    if (fz_host_start(&h, &o) != 0) return 2;
    int status = o.case_file ? fz_case_file_run(&h, &o) : fz_campaign_run(&h, &o);
    fz_host_stop(&h);
    return status;
}
