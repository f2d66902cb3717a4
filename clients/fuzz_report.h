/* fuzz_report.h — the machine-readable report of a `viv fuzz` campaign, or of one shard of it
 * (docs/FUZZ.md): JSON, written session by session as the campaign runs, read back and joined by
 * `viv fuzz --merge` into the report the unsharded campaign would have written (timings apart).
 * stdio only: it is built into the minimal and cross builds of viv too (tests/cross.sh). */
#ifndef VIVARIUM_FUZZ_REPORT_H
#define VIVARIUM_FUZZ_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

#define CLI_FUZZ_REPORT_VERSION 1
enum { CLI_FUZZ_IDENTICAL, CLI_FUZZ_DIVERGED, CLI_FUZZ_ERROR };

/* What makes two runs the same campaign: the same sessions, drawn and run the same way. */
typedef struct cli_fuzz_campaign {
    uint64_t seed;
    uint64_t sessions;                 /* of the whole campaign; UINT64_MAX: until the budget */
    uint64_t ticks;                    /* --ticks: each session runs ticks/2..ticks */
    uint64_t budget;                   /* --seconds, 0 none: such a run cannot be sharded */
    char kinds[512];                   /* the kinds drawn from, comma-separated, in order */
    int recorded;                      /* 0: --no-record (the replay way skipped) */
    uint64_t fault;                    /* the --inject-fault test hook, 0 none */
    char sim[32];                      /* SIM_VERSION of the build */
} cli_fuzz_campaign;

typedef struct cli_fuzz_session {
    uint64_t index;                    /* in the campaign: 0, 1, … */
    char kind[32];
    uint64_t seed;
    char params[SIM_PARAMS_MAX];
    uint64_t ticks, inputs, refused;   /* as run (before any shrinking) */
    int result;                        /* CLI_FUZZ_… */
    int way;                           /* diverged: 2 replay, 3 sync test, 4 an invalid input took */
    uint64_t tick;                     /* diverged: the first tick that differs */
    char why[600];                     /* diverged or error: the sentence */
    char case_file[600];               /* diverged: the reproducer's case file, "" none */
} cli_fuzz_session;

typedef struct cli_fuzz_report {
    cli_fuzz_campaign c;
    uint64_t shard, shards;            /* the slice it covers: K of N (1 of 1: the whole) */
    cli_fuzz_session *v;               /* in index order */
    size_t n;
    int result;                        /* CLI_FUZZ_… of the run */
    double seconds;                    /* wall time: never compared */
} cli_fuzz_report;

/* A report written as the campaign runs, to a temporary file renamed over `path` by close (so a
 * report is never half written), or to stdout when path is "-". NULL with a sentence in err. */
typedef struct cli_fuzz_writer cli_fuzz_writer;
cli_fuzz_writer *cli_fuzz_report_open(const char *path, const cli_fuzz_campaign *c, uint64_t shard,
                                      uint64_t shards, char *err, size_t errlen);
/* One session, in index order. 0, or -1 when writing failed (close says so). */
int cli_fuzz_report_session(cli_fuzz_writer *w, const cli_fuzz_session *s);
/* The run's result and time, the totals (summed from the sessions written), then finish and
 * rename. Frees w. 0, or -1 with a sentence (nothing is left at path then). */
int cli_fuzz_report_close(cli_fuzz_writer *w, int result, double seconds, char *err, size_t errlen);

/* Read and check a report: its JSON, its fields, its sessions against its slice (each index in
 * it, in order, none skipped) and its totals. 0, or -1 with a sentence naming the file and what
 * is wrong (a line and column for bad JSON). */
int cli_fuzz_report_read(const char *path, cli_fuzz_report *out, char *err, size_t errlen);
void cli_fuzz_report_free(cli_fuzz_report *r);

/* Join the reports of the n shards of one campaign (names: their files, for messages) into the
 * report of the whole, as the unsharded campaign writes it: its sessions in index order up to the
 * first that diverged or failed (where the unsharded run stops), its result, its totals; seconds
 * is the shards' sum. Refused with a sentence (-1): reports of different campaigns (the field
 * that differs named), of different shard counts, a shard twice or missing, a time budget. */
int cli_fuzz_report_merge(const cli_fuzz_report *in, size_t n, const char *const *names,
                          cli_fuzz_report *out, char *err, size_t errlen);
/* The whole report r written to path ("-": stdout), atomically as cli_fuzz_report_close does. */
int cli_fuzz_report_write(const cli_fuzz_report *r, const char *path, char *err, size_t errlen);

const char *cli_fuzz_result_name(int result);   /* "identical", "diverged", "error" */

/* Session s of the campaign of campaign_seed as a testcase of a JUnit report (`viv fuzz --junit`,
 * ci_report.h), run in `seconds`; or, case_path given, the saved case run by `viv fuzz --case`
 * (s's index and case_file unused). Identical passes; a divergence is a <failure> whose message
 * names the way and the tick, then the first lines of why (a desync report's, for the replay
 * way), with the whole of why and the reproducer's command as its text; an error an <error>.
 * 0, or -1 out of memory. */
struct ci_junit;
int cli_fuzz_junit_session(struct ci_junit *j, uint64_t campaign_seed, const char *case_path,
                           const cli_fuzz_session *s, double seconds);

#endif
