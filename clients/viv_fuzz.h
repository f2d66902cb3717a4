/* viv_fuzz.h — what the files of `viv fuzz` share (private to them): the case a session is, the
 * command line as checked, and the steps between them.
 *
 *   viv_fuzz.c       the command: --help, the option table, the checks, --merge, main
 *   fuzz_campaign.c  a campaign: its sessions in turn, the reproducer of a divergence, --case
 *   fuzz_case.c      a case: drawn from (seed, index), and its files (.case, .inputs)
 *   fuzz_run.c       one case run three ways and compared, and shrinking a divergent one
 *   fuzz_report.c    the JSON report, and the merge of shards (fuzz_report.h)
 *
 * A session is a random world (kind, seed, params) and a random input stream (valid inputs,
 * boundary values, and invalid ones that must be refused without effect), run three ways and
 * compared tick by tick:
 *   1. live, recorded into SQLite through the real recorder (replay/recorder.c);
 *   2. replayed from that file by the verifier (replay/verify.c), which compares every hash;
 *   3. in sync-test mode: at random ticks the world is saved, a second world (with another
 *      history) loads the bytes and carries on (GGPO's sync test).
 * Built without the replay layer (VIV_NO_REPLAY, the cross build) only ways 1 (unrecorded) and 3
 * run. Way 1 runs the world's parallel passes on a pool of --threads workers; ways 2 and 3 run
 * them inline: every session also checks that the number of workers changes nothing. */
#ifndef VIVARIUM_VIV_FUZZ_H
#define VIVARIUM_VIV_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include "pool.h"
#include "sim.h"

/* ---- a case: everything a session is ---------------------------------------------------------- */
enum { FZ_EXPECT_ANY, FZ_EXPECT_REFUSED };

typedef struct fz_input {
    sim_input in;
    int expect;                /* FZ_EXPECT_REFUSED: invalid by construction; must be refused */
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

/* How a run of a case ended. */
typedef struct fz_result {
    int ok;
    int way;                   /* which way diverged: 2 replay, 3 sync; 4 an invalid input took */
    uint64_t tick;             /* the first tick that differs */
    char why[512];
    uint64_t accepted, refused;
} fz_result;

/* The live way's hashes, one of each per tick (tick t's after its step at [t]). */
typedef struct fz_chain {
    uint64_t *sh, *fh;
} fz_chain;

/* ---- the command line, checked (viv_fuzz.c) --------------------------------------------------- */
#define FZ_KINDS_MAX 64

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
    const char *junit;         /* --junit FILE, or NULL */
    long threads;              /* --threads: workers of the live way */
    /* The kinds to draw from, in order (--kinds, or every kind), found by the checks. */
    const char *kind_v[FZ_KINDS_MAX];
    int nkinds;
    char kind_buf[512];        /* --kinds split at its commas: kind_v points into it */
} fz_opts;

/* ---- a case (fuzz_case.c) --------------------------------------------------------------------- */
/* Session `index` of the campaign of `seed`, with up to `ticks` ticks, drawn from the nkinds kinds:
 * a pure function of all four, fault_tick 0. 0, or -1 with a sentence in why (c's kind and seed
 * as far as drawn; free c->v either way). */
int fz_case_gen(uint64_t seed, uint64_t index, uint64_t ticks, const char *const *kinds, int nkinds,
                fz_case *c, char *why, size_t whylen);
/* The case file: a header, then one input a line, invalid ones included (they are part of the
 * case). 0, or -1 when it cannot be written. */
int fz_case_write(const fz_case *c, const char *path);
/* A case file read back into c. 0, or -1 after a message on stderr. */
int fz_case_read(const char *path, fz_case *c);
/* The inputs the world may accept, as an inputs file for `viv sim --inputs`. 0, or -1. */
int fz_case_write_inputs(const fz_case *c, const char *path);

/* ---- running a case (fuzz_run.c) -------------------------------------------------------------- */
/* Run c all three ways, way 1 recorded into db (NULL: ways 1 and 3 alone). 0 identical, 1 a
 * divergence (res says where), -1 could not run (res->why says why). On 0 and with keep, *keep
 * takes the live chain (the caller frees its two arrays). */
int fz_case_run(const fz_case *c, const char *db, fz_chain *keep, fz_result *res);
/* Delta debugging: c made as small as it goes (fewer inputs, then fewer ticks) while it still
 * diverges in the same way; a line on stderr unless quiet. */
void fz_case_shrink(fz_case *c, const char *db, int way, int quiet);

/* ---- a campaign (fuzz_campaign.c) ------------------------------------------------------------- */
/* What the sessions run with: the workers of the live way, and the temporary directory that
 * holds the running session's recording. */
typedef struct fz_host {
    pool *workers;
    char work[4096], db[4200]; /* work "": nothing recorded */
    const char *dbp;           /* db, or NULL when nothing is recorded */
} fz_host;

/* The directory and the workers o asks for. 0, or 2 after a message (nothing is left to stop). */
int fz_host_start(fz_host *h, const fz_opts *o);
/* The directory removed, with everything in it, and the workers stopped. */
void fz_host_stop(fz_host *h);
/* --case: run one saved case and say how it went. The exit status: 0 identical, 1 diverged, 2
 * it could not be read or run. */
int fz_case_file_run(const fz_host *h, const fz_opts *o);
/* The campaign o asks for (its seed drawn first when not given), session by session up to the
 * first divergence, with its chain, report and summary. The exit status: 0 all identical, 1 a
 * divergence, 2 an error. */
int fz_campaign_run(const fz_host *h, fz_opts *o);

/* --junit FILE (ci_report.h) opened into *j, or *j NULL when path is NULL. 0, or 2 after a
 * message. */
struct ci_junit;
int fz_junit_open(const char *path, const char *suite, struct ci_junit **j);
/* --junit FILE finished (nothing when j is NULL). The exit status: status, or 2 when it was 0 and
 * the report could not be written (after a message): the verdict, said on stdout, stands, and a
 * CI job must not pass without its report. */
int fz_junit_close(struct ci_junit *j, double seconds, int status);

#endif
