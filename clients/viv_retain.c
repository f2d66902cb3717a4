/* viv_retain.c — `viv replay drop FILE SESSION…` and `viv replay compact FILE --older-than D`:
 * the retention of issue 32 (replay/compact.c, docs/REPLAY.md "Dropping sessions" and
 * "Compaction and retention"). Unlike the other replay subcommands these change the file, and
 * only as asked: nothing else in viv or vivd drops or thins a session (vivd --retain is asked).
 *
 * Exit status: 0 done (compact: also when nothing was old enough), 2 bad usage, refused or
 * failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "opt.h"
#include "replay.h"

/* ---- drop ---------------------------------------------------------------------------------------- */
static void usage_drop(FILE *out)
{
    fprintf(out,
        "usage: viv replay drop FILE SESSION... [--with-forks] [--force] [--vacuum]\n"
        "\n"
        "Deletes the sessions named (their ids, as viv replay list shows them) and every row of\n"
        "theirs in every table of FILE: inputs, hashes, checkpoints, gaps, lineage, phase hashes,\n"
        "grain. All of them or none, in one transaction. Prints what each held, then the bytes\n"
        "freed: the pages they took become free pages inside FILE, which new rows reuse; the file\n"
        "itself shrinks only with --vacuum.\n"
        "\n");
}

static void drop_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Refused, with nothing changed: an unknown session (the message lists the file's), a\n"
        "session a running vivd records now (status running while a vivd holds FILE.lock: close\n"
        "its world or stop that vivd first; a running session of a vivd that is gone, a crash,\n"
        "may be dropped), a session other sessions of FILE were forked from (add --with-forks or\n"
        "--force), --vacuum on a file a running vivd records into.\n"
        "Exit status: 0 dropped, 2 refused or failed.\n");
}

typedef struct drop_args {
    const char *file;
    int64_t *ids;
    size_t n;
    int with_forks, force, vacuum;
} drop_args;

static int drop_operand(const opt_prog *p, const char *a)
{
    drop_args *d = p->ud;
    if (!d->file) {
        d->file = a;
        return OPT_OK;
    }
    char *end;
    long long id = strtoll(a, &end, 10);
    if (*end || end == a || id <= 0) {
        fprintf(stderr, "%s: '%s' is not a session id (1, 2, …: viv replay list %s shows them)\n",
                p->who, a, d->file);
        return OPT_BAD;
    }
    d->ids[d->n++] = id;
    return OPT_OK;
}

/* "12 inputs, 900 tick rows, 3 checkpoints" of the tables a session had rows in. */
static void drop_rows_line(const rpl_dropped *d, char *out, size_t cap)
{
    static const char *const names[RPL_T_N][2] = {
        { "input", "inputs" }, { "tick row", "tick rows" }, { "hash block", "hash blocks" },
        { "checkpoint", "checkpoints" }, { "gap", "gaps" }, { "lineage row", "lineage rows" },
        { "phase row", "phase rows" }, { "grain row", "grain rows" } };
    size_t len = 0;
    out[0] = '\0';
    for (int t = 0; t < RPL_T_N && len < cap; t++)
        if (d->rows[t])
            len += (size_t)snprintf(out + len, cap - len, "%s%llu %s", len ? ", " : "",
                                    (unsigned long long)d->rows[t], names[t][d->rows[t] != 1]);
    if (!len) snprintf(out, cap, "no rows but its own");
}

static void drop_report(const drop_args *d, const rpl_drop_result *r)
{
    char rows[320];
    for (size_t i = 0; i < r->n; i++) {
        const rpl_dropped *x = &r->v[i];
        char fork[64] = "";
        if (x->forked_from) snprintf(fork, sizeof fork, "; a fork of session %lld", (long long)x->forked_from);
        drop_rows_line(x, rows, sizeof rows);
        printf("dropped session %lld (%s, ticks %llu..%llu, %s%s): %s\n", (long long)x->id, x->kind,
               (unsigned long long)x->start_tick, (unsigned long long)x->end_tick, x->status, fork, rows);
    }
    printf("%zu session%s dropped from %s: ", r->n, r->n == 1 ? "" : "s", d->file);
    if (r->payload_before >= 0 && r->payload_after >= 0)
        printf("%lld bytes of rows freed (dbstat), ", (long long)(r->payload_before - r->payload_after));
    printf("%lld bytes of free pages in the file now (%lld before)", (long long)r->free_after,
           (long long)r->free_before);
    if (r->size_before >= 0)
        printf("; VACUUM: the file went from %lld to %lld bytes\n", (long long)r->size_before,
               (long long)r->size_after);
    else
        printf(": new rows reuse them; the file keeps its size (VACUUM was not run: --vacuum)\n");
    if (r->note[0]) fprintf(stderr, "viv replay drop: note: %s\n", r->note);
}

int cli_replay_drop(int argc, char **argv)
{
    drop_args d = { .ids = calloc((size_t)argc + 1, sizeof *d.ids) };
    if (!d.ids) {
        fprintf(stderr, "viv replay drop: out of memory\n");
        return 2;
    }
    const opt table[] = {
        OPT_FLAG("--with-forks", &d.with_forks,
                 "also drop every session forked from one of them in this file (and\n"
                 "their forks)"),
        OPT_FLAG("--force", &d.force,
                 "drop a session other sessions were forked from, alone: their lineage\n"
                 "rows stay, naming a session that is gone (verify says so)"),
        OPT_FLAG("--vacuum", &d.vacuum,
                 "then VACUUM: rewrite the file without its free pages, so that it\n"
                 "shrinks on disk (a while for a large file; not while a vivd records\n"
                 "into it)"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay drop", .opts = table, .column = 16, .head = usage_drop,
                            .tail = drop_tail, .operand = drop_operand, .ud = &d };
    int status = 2;
    int rc = opt_parse(&prog, argc, argv);
    if (rc != OPT_OK) {
        status = OPT_EXIT(rc);
        goto done;
    }
    if (!d.file) {
        fprintf(stderr, "viv replay drop: which replay file? (see viv replay drop --help)\n");
        goto done;
    }
    if (!d.n) {
        fprintf(stderr, "viv replay drop: which sessions? name them after the file (viv replay list %s "
                "shows them)\n", d.file);
        goto done;
    }
    rpl_drop_opts o = { .path = d.file, .sessions = d.ids, .n = d.n, .with_forks = d.with_forks,
                        .force = d.force, .vacuum = d.vacuum };
    rpl_drop_result r;
    char err[1024];
    rc = rpl_drop(&o, &r, err, sizeof err);
    if (r.n) drop_report(&d, &r);          /* dropped, even when the VACUUM after it failed */
    if (rc) fprintf(stderr, "viv replay drop: %s\n", err);
    else status = 0;
    rpl_drop_result_free(&r);
done:
    free(d.ids);
    return status;
}

/* ---- compact ------------------------------------------------------------------------------------- */
static void usage_compact(FILE *out)
{
    fprintf(out,
        "usage: viv replay compact FILE --older-than DURATION [--dry-run] [--quiet]\n"
        "\n"
        "Thins every closed session of FILE that was closed more than DURATION ago (30d, 12h,\n"
        "90m, 45s: one number, one unit) and was not compacted before: its session row, every\n"
        "input, its gaps and its lineage stay as they are; of its recorded hashes it keeps one\n"
        "every " OPT_STRINGIFY(RPL_HASH_GRAIN) " ticks (and at its start, its end, its gaps' ends, "
        "its checkpoints and where\n"
        "its forks start), of its checkpoints the first, the last, the first after each gap and one\n"
        "every 10 minutes of world time (a file with delta checkpoints keeps every full one and no\n"
        "delta). The grain it now has is written beside it: viv replay info and list show it, and\n"
        "verify checks the hashes that are left. Sessions running or suspended are never touched.\n"
        "A vivd may be recording into FILE meanwhile: the work is done a few thousand ticks per\n"
        "transaction, and its commits wait milliseconds.\n"
        "\n");
}

static void compact_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Prints each session thinned (rows and bytes of its hashes and checkpoints, before and\n"
        "after) and a total; on a terminal, a progress bar on stderr. The file does not shrink:\n"
        "its free pages are reused by new rows (`sqlite3 FILE VACUUM`, while no vivd records into\n"
        "it, gives them back). vivd --retain DURATION does the same at its start and every hour.\n"
        "Exit status: 0 compacted (or nothing was old enough), 2 bad usage, refused or failed.\n");
}

typedef struct compact_args {
    const char *file;
    const char *older;
    int dry_run, quiet;
    cli_progress p;
} compact_args;

static int compact_operand(const opt_prog *p, const char *a)
{
    compact_args *c = p->ud;
    if (c->file) {
        fprintf(stderr, "%s: one file only ('%s' and '%s')\n", p->who, c->file, a);
        return OPT_BAD;
    }
    c->file = a;
    return OPT_OK;
}

static void compact_progress(void *ud, uint64_t done, uint64_t total)
{
    cli_progress_cb(&((compact_args *)ud)->p, done, total);
}

static void compact_each(void *ud, const rpl_compacted *x)
{
    compact_args *c = ud;
    char what[512];
    rpl_compacted_describe(x, what, sizeof what);
    cli_progress_end(&c->p);
    printf("session %lld (%s, closed %s, ticks %llu..%llu)%s: %s\n", (long long)x->id, x->kind,
           x->closed_at, (unsigned long long)x->start_tick, (unsigned long long)x->end_tick,
           c->dry_run ? " would be thinned" : "", what);
    fflush(stdout);
}

static void compact_report(const compact_args *c, const rpl_compact_result *r, int64_t cutoff)
{
    if (!r->sessions) {
        char at[40];
        time_t t = (time_t)cutoff;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
        printf("nothing to compact in %s: no closed session closed before %s and not compacted yet "
               "(%zu closed since, %zu compacted before)\n", c->file, at, r->newer, r->compacted_before);
        return;
    }
    printf("%s%zu session%s %s in %s: their hashes and checkpoints held %llu bytes, %s %llu",
           c->dry_run ? "dry run: " : "", r->sessions, r->sessions == 1 ? "" : "s",
           c->dry_run ? "would be compacted" : "compacted", c->file, (unsigned long long)r->bytes_before,
           c->dry_run ? "would hold" : "now", (unsigned long long)r->bytes_after);
    if (c->dry_run) {
        printf("; nothing was written\n");
        return;
    }
    if (r->payload_before >= 0 && r->payload_after >= 0)
        printf("; the file's rows %lld → %lld bytes (dbstat)", (long long)r->payload_before,
               (long long)r->payload_after);
    printf("; free pages in the file %lld → %lld bytes, reused by new rows (the file keeps its size)\n",
           (long long)r->free_before, (long long)r->free_after);
}

int cli_replay_compact(int argc, char **argv)
{
    compact_args c;
    memset(&c, 0, sizeof c);
    const opt table[] = {
        OPT_STR("--older-than", "DURATION", &c.older,
                "the sessions closed more than DURATION ago: a whole number and one\n"
                "unit, s, m, h or d (45s, 90m, 12h, 30d)"),
        OPT_FLAG("--dry-run", &c.dry_run, "say what would be thinned, and write nothing"),
        OPT_FLAG("--quiet", &c.quiet, "no progress bar (there is none when stderr is not a terminal)"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay compact", .opts = table, .column = 26,
                            .head = usage_compact, .tail = compact_tail, .operand = compact_operand,
                            .ud = &c };
    int rc = opt_parse(&prog, argc, argv);
    if (rc != OPT_OK) return OPT_EXIT(rc);
    if (!c.file) {
        fprintf(stderr, "viv replay compact: which replay file? (see viv replay compact --help)\n");
        return 2;
    }
    if (!c.older) {
        fprintf(stderr, "viv replay compact: which sessions? --older-than DURATION (e.g. 30d): "
                "nothing is compacted without it\n");
        return 2;
    }
    char err[1024];
    uint64_t secs;
    if (rpl_duration_parse(c.older, &secs, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay compact: --older-than %s\n", err);
        return 2;
    }
    cli_progress_init(&c.p, c.dry_run ? "measuring" : "compacting", c.quiet);
    int64_t now = (int64_t)time(NULL);
    rpl_compact_opts o = { .path = c.file, .older_than = secs, .now = now, .dry_run = c.dry_run,
                           .measure = 1, .progress = compact_progress, .each = compact_each, .ud = &c };
    rpl_compact_result r;
    rc = rpl_compact(&o, &r, err, sizeof err);
    cli_progress_end(&c.p);
    if (rc) {
        if (r.sessions) compact_report(&c, &r, now - (int64_t)secs);
        fprintf(stderr, "viv replay compact: %s\n", err);
        return 2;
    }
    compact_report(&c, &r, now - (int64_t)secs);
    return 0;
}
