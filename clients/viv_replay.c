/* viv_replay.c — `viv replay list|info|verify|export FILE …`: look into a replay file, prove a
 * session bit-exact (or print its desync report), export its frames as GIF, WebP or PNG; `viv replay
 * collect` gathers the files of several nodes into one.
 *
 * Exit status: 0 ok (verify: bit-exact), 1 diverged or failed, 2 bad usage or an unusable (or
 * damaged) file or session.
 * The file is opened read-only and never changed (collect writes only its new output; drop and
 * compact, in viv_retain.c, change it as asked). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci_report.h"
#include "cli.h"
#include "opt.h"
#include "read.h"
#include "viv_replay_int.h"

/* ---- shared bits -------------------------------------------------------------------------------- */
static void usage_list(FILE *out)
{
    fprintf(out,
        "usage: viv replay list FILE\n"
        "\n"
        "One line per recorded session: id, world kind, seed, ticks (first..last), world-time\n"
        "duration, inputs, gaps (ticks not recorded), status, the sim version that recorded it,\n"
        "and where it came from; in a collected file (viv replay collect) also the node that\n"
        "recorded it and the session's id in that node's own file; in a file with compacted\n"
        "sessions (viv replay compact) also each one's grain: a hash every H ticks and a\n"
        "checkpoint every C ticks at most, as H/C.\n");
}

static void usage_info(FILE *out)
{
    fprintf(out,
        "usage: viv replay info FILE [--session N]\n"
        "\n"
        "Everything about one session: kind, seed, params, versions, the node that recorded it\n"
        "(and its id there, in a collected file), tick range, checkpoints, the grain it was\n"
        "compacted to (viv replay compact), inputs by kind and client, and every gap. --session\n"
        "may be left out when the file holds one session.\n"
        "\n");
}

static void usage_verify(FILE *out)
{
    fprintf(out,
        "usage: viv replay verify FILE [--session N | --all] [--from TICK] [--to TICK]\n"
        "                              [--sync-test] [--threads N] [--report DIR] [--quiet]\n"
        "                              [--junit FILE] [--json]\n"
        "\n"
        "Replays a session from its checkpoints, feeding the logged inputs, and compares the\n"
        "state hash and the frame hash of every tick with the recording. Exit 0 only when every\n"
        "one matches (bit-exact); exit 1 at the first divergence, with a desync report on stdout:\n"
        "the tick, both hashes, the inputs of that step and a field-by-field diff of the recorded\n"
        "checkpoint at or after it against the replayed state, and the phase of the step that\n"
        "went astray when the file holds phase hashes (`viv sim --record FILE --phases`). Ticks\n"
        "lost in a recorded gap are named as not verified.\n"
        "\n"
        "A recorded hash that disagrees alone, with the replay matching every recorded hash after\n"
        "it again (and the checkpoints), is damage to the file, not a desync: it is said as such,\n"
        "with where (session, tick, column) and what to do, and exits 2. So does a database\n"
        "SQLite cannot read (truncated, overwritten, not a database).\n"
        "\n");
}

static void verify_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "With --all, a last line counts them: N sessions: A bit-exact, B diverged, C damaged,\n"
        "D not verifiable. Damaged: the file is (truncated or corrupted, a recorded hash that\n"
        "disagrees alone, a checkpoint that is not its recorded state, an input row no world\n"
        "could consume, a tick's hashes missing outside any gap); the message says where and\n"
        "what to do. Not verifiable: for any other reason (a world kind this build lacks, a\n"
        "checkpoint that does not load).\n"
        "\n"
        "Exit status: 0 every session bit-exact; 1 a session diverged (a desync: the simulation\n"
        "behaved differently) and every other one is bit-exact; 2 bad usage, an unusable file (a\n"
        "damaged one too), or a session damaged or not verifiable, whose verdict is unknown (it\n"
        "wins over 1: see the counts). So 1 points at the code, 2 at the file.\n"
        "--junit and --json change none of this; a --junit FILE that cannot be written is refused\n"
        "before anything is replayed, and one (or stdout with --json) that fails at the end turns\n"
        "0 into 2 and leaves 1 and 2 as they are.\n");
}

static void usage_export(FILE *out)
{
    fprintf(out,
        "usage: viv replay export FILE [--session N] (--gif OUT.gif | --webp OUT.webp | --png-dir DIR)\n"
        "                              [--from TICK] [--to TICK] [--every K] [--scale S]\n"
        "                              [--view NAME] [--quiet]\n"
        "       viv replay export FILE [--session N] --html OUT.html [--web DIR] [--wasm FILE]\n"
        "\n"
        "--html writes the whole session as one HTML file that replays and verifies itself in a\n"
        "browser opened from disk, with no server and nothing loaded from the network: the sim\n"
        "module, the session's kind, seed, params, checkpoints, inputs and recorded hashes, and a\n"
        "player (play, pause, step both ways, seek, speed, zoom). Once it has checked every\n"
        "recorded state and frame hash it sets data-verdict (bit-exact, diverged with\n"
        "data-diverged-at, damaged, unverifiable) and data-ticks on <body>, as viv replay verify\n"
        "counts them. The other options do not go with it.\n"
        "\n"
        "Otherwise replays a session and writes its frames, in the world's own palette (no quantising):\n");
}

static void usage(FILE *out)
{
    fprintf(out,
        "usage: viv replay <command> FILE [options]    (viv replay <command> --help)\n"
        "\n"
        "  list     the sessions in a replay file\n"
        "  info     one session in detail\n"
        "  verify   replay a session and compare every recorded hash (bit-exact or a desync report)\n"
        "  export   a session's frames as an animated GIF or WebP or PNGs, or the session as one HTML file\n"
        "  collect  gather the files of several nodes into one, each session named by its node\n"
        "  fork     a new session starting from another's state at a tick, to play on from there\n"
        "  hashes   the state and frame hash recorded for each tick (or replayed and checked)\n"
        "  upgrade  rewrite a file's sessions of an older format as this build records (a tenth of the bytes)\n"
        "  drop     delete sessions and every row of theirs\n"
        "  compact  thin the hashes and checkpoints of sessions closed long ago to a coarser grain\n");
}

static void usage_fork(FILE *out)
{
    fprintf(out,
        "usage: viv replay fork FILE [--session N] --tick T [-o OUT] [--quiet]\n"
        "\n"
        "Writes a new session whose initial state is session N's state at tick T: replayed with\n"
        "this build's sim from the nearest checkpoint at or before T and the logged inputs, every\n"
        "recorded state hash on the way and the frame hash at T checked. The new session is\n"
        "suspended at T, as vivd leaves the sessions it stops, so `vivd --db FILE` (or OUT)\n"
        "resumes it as a live world; its lineage (session N, tick T and N's recorded state hash\n"
        "there) is recorded beside it: `viv replay info` shows it, `viv replay verify` checks the\n"
        "fork's start against it. It goes into FILE itself, or into OUT (a new or an existing\n"
        "replay file). FILE is only read when OUT is another file.\n"
        "\n");
}

static void fork_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Refused, with nothing written: an unknown session, a tick outside the session, a tick\n"
        "inside a gap (its state was never recorded), a session that does not replay bit-exactly\n"
        "up to T, a damaged file, and a file a running vivd records into (its FILE.lock is held:\n"
        "fork into another file with -o, or from a viewer with the fork message).\n"
        "On a terminal, a progress bar on stderr while the replay to T runs.\n"
        "Exit status: 0 forked, 1 the session does not replay bit-exactly up to T, 2 refused or\n"
        "failed.\n");
}

static void usage_collect(FILE *out)
{
    fprintf(out,
        "usage: viv replay collect [--node NAME] FILE [[--node NAME] FILE …] -o OUT [--force]\n"
        "                          [--quiet]\n"
        "\n"
        "Gathers the sessions of several replay files (each node of a cluster records into its\n"
        "own) into one new file, OUT, so that `viv replay verify OUT --all` checks them all with\n"
        "the verdicts each has in its own file. Every session is copied exactly (its inputs, hash\n"
        "rows, checkpoints, gaps and metadata) and renumbered 1, 2, … in the order the files are\n"
        "given; list and info show, per session, the node that recorded it and its id in that\n"
        "node's file.\n"
        "\n");
}

static void collect_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "The files are opened read-only and never changed (a node may still be recording). OUT is\n"
        "written under a temporary name beside it and renamed when whole: a failure leaves\n"
        "nothing. Refused: a missing file or one that is not a Vivarium replay file, a file of a\n"
        "newer format, the same file twice, two files that would give the same default node name to a\n"
        "session that records none.\n"
        "Exit status: 0 collected, 2 refused or failed.\n");
}


/* FILE, the one operand of list, info, verify and export. */
int rp_set_file(const opt_prog *p, const char *a)
{
    opts *o = p->ud;
    if (o->file) {
        fprintf(stderr, "%s: one file only ('%s' and '%s')\n", p->who, o->file, a);
        return OPT_BAD;
    }
    o->file = a;
    return OPT_OK;
}

int rp_set_session(const opt_prog *p, const opt *o, const char *v)
{
    uint64_t u;
    if (opt_parse_u64(p->who, o->name, v, &u)) return OPT_BAD;
    if (u == 0 || u > INT64_MAX) {
        fprintf(stderr, "%s: --session needs a session id (1, 2, …), got '%s'\n", p->who, v);
        return OPT_BAD;
    }
    *(int64_t *)o->ptr = (int64_t)u;
    return OPT_OK;
}

static int set_every(const opt_prog *p, const opt *o, const char *v)
{
    uint64_t *every = o->ptr;
    if (opt_parse_u64(p->who, o->name, v, every)) return OPT_BAD;
    if (*every == 0 || *every > 1000000) {
        fprintf(stderr, "%s: --every needs an integer in 1..1000000\n", p->who);
        return OPT_BAD;
    }
    return OPT_OK;
}

/* --mmpx: 1, 2 or 4 (MMPX magnifies by 2; twice is 4). */
static int set_mmpx(const opt_prog *p, const opt *o, const char *v)
{
    long *m = o->ptr;
    if (opt_parse_long(p->who, o->name, v, 1, 4, m)) return OPT_BAD;
    if (*m == 3) {
        fprintf(stderr, "%s: --mmpx magnifies 2 or 4 times (or 1: not at all), not 3\n", p->who);
        return OPT_BAD;
    }
    return OPT_OK;
}


/* A subcommand's command line into o, its table's pointers aimed at o (opt.h). 0 parsed,
 * OPT_DONE --help shown, OPT_BAD bad usage (message printed). */
int rp_parse(const opt_prog *p, int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->to = UINT64_MAX;
    o->scale = 1;
    o->mmpx = 1;
    int rc = opt_parse(p, argc, argv);
    if (rc != OPT_OK) return rc;
    if (!o->file) {
        fprintf(stderr, "%s: which replay file? (see %s --help)\n", p->who, p->who);
        return OPT_BAD;
    }
    if (o->from > o->to) {
        fprintf(stderr, "%s: --from %llu is after --to %llu\n", p->who, (unsigned long long)o->from,
                (unsigned long long)o->to);
        return OPT_BAD;
    }
    return OPT_OK;
}

rpl_file *rp_open_file(const char *cmd, const char *path)
{
    rpl_file *f;
    char err[512];
    if (rpl_open(path, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay %s: %s\n", cmd, err);
        return NULL;
    }
    return f;
}

/* The session asked for, or the only one. 0, or -1 after printing why. */
int rp_pick_session(const char *cmd, rpl_file *f, opts *o)
{
    char err[512];
    if (o->session) return 0;
    if (rpl_session_only(f, &o->session, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

static void fmt_duration(uint64_t ticks, uint32_t hz, char *out, size_t cap)
{
    if (!hz) {
        snprintf(out, cap, "?");
        return;
    }
    uint64_t cs = ticks * 100 / hz;
    uint64_t s = cs / 100;
    if (s >= 3600)
        snprintf(out, cap, "%llu:%02llu:%02llu.%02llu", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
                 (unsigned long long)(cs % 100));
    else
        snprintf(out, cap, "%llu:%02llu.%02llu", (unsigned long long)(s / 60),
                 (unsigned long long)(s % 60), (unsigned long long)(cs % 100));
}

/* ---- list ---------------------------------------------------------------------------------------- */
/* Each session's grain as list shows it ("600/36000", "-" when not compacted) into out[i] (NULL:
 * out of memory, none shown). 1 when one of them was compacted. A grain that cannot be read is
 * said on stderr and shown as "?". */
static int list_grains(rpl_file *f, const rpl_session_info *v, size_t n, char (*out)[48])
{
    int any = 0;
    char err[512];
    for (size_t i = 0; out && i < n; i++) {
        rpl_grain g;
        int rc = rpl_grain_get(f, v[i].s.id, &g, err, sizeof err);
        if (rc < 0) fprintf(stderr, "viv replay list: %s\n", err);
        if (rc == 1)
            snprintf(out[i], sizeof out[i], "%llu/%llu", (unsigned long long)g.hash_every,
                     (unsigned long long)g.checkpoint_every);
        else snprintf(out[i], sizeof out[i], rc < 0 ? "?" : "-");
        any |= rc != 0;
    }
    return any;
}

static int cmd_list(int argc, char **argv)
{
    opts o;
    const opt table[] = { OPT_END };
    const opt_prog prog = { .who = "viv replay list", .opts = table, .head = usage_list,
                            .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    rpl_file *f = rp_open_file("list", o.file);
    if (!f) return 2;
    rpl_session_info *v;
    size_t n;
    char err[512];
    if (rpl_sessions_list(f, &v, &n, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay list: %s\n", err);
        rpl_close(f);
        return 2;
    }
    /* Columns as wide as their widest value. */
    int wk = 4, ws = 4, wt = 5;
    char cell[64];
    for (size_t i = 0; i < n; i++) {
        const rpl_session *s = &v[i].s;
        int l = (int)strlen(s->kind);
        if (l > wk) wk = l;
        l = snprintf(cell, sizeof cell, "%llu", (unsigned long long)s->seed);
        if (l > ws) ws = l;
        l = snprintf(cell, sizeof cell, "%llu..%llu", (unsigned long long)s->start_tick,
                     (unsigned long long)s->end_tick);
        if (l > wt) wt = l;
    }
    /* A collected file (or a cluster node's) names each session's node: two more columns. */
    int wn = 0;
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(v[i].s.node);
        if (l > wn) wn = l;
    }
    if (wn && wn < 4) wn = 4;
    /* A file with compacted sessions: one more column, each one's grain. */
    char (*grain)[48] = n ? calloc(n, sizeof *grain) : NULL;
    int any_grain = list_grains(f, v, n, grain);
    int wsrc = 0;                      /* the last column is padded when grain follows it */
    for (size_t i = 0; any_grain && !wn && i < n; i++)
        if ((int)strlen(v[i].s.source) > wsrc) wsrc = (int)strlen(v[i].s.source);
    if (n == 0) printf("%s holds no sessions\n", o.file);
    else if (wn)
        printf("%7s  %-*s  %*s  %-*s  %11s  %7s  %7s  %-9s  %-7s  %-8s  %-*s  %-*s", "session", wk, "kind",
               ws, "seed", wt, "ticks", "duration", "inputs", "gaps", "status", "sim", "source", wn,
               "node", any_grain ? 9 : 0, "node's id");
    else
        printf("%7s  %-*s  %*s  %-*s  %11s  %7s  %7s  %-9s  %-7s  %-*s", "session", wk, "kind", ws,
               "seed", wt, "ticks", "duration", "inputs", "gaps", "status", "sim", wsrc, "source");
    if (n) printf("%s\n", any_grain ? "  grain" : "");
    for (size_t i = 0; i < n; i++) {
        const rpl_session *s = &v[i].s;
        char ticks[48], dur[32], gaps[32], id[24];
        snprintf(ticks, sizeof ticks, "%llu..%llu", (unsigned long long)s->start_tick,
                 (unsigned long long)s->end_tick);
        fmt_duration(s->end_tick - s->start_tick, s->hz, dur, sizeof dur);
        if (v[i].gaps)
            snprintf(gaps, sizeof gaps, "%llu/%llu", (unsigned long long)v[i].gaps,
                     (unsigned long long)v[i].gap_ticks);
        else
            snprintf(gaps, sizeof gaps, "0");
        printf("%7lld  %-*s  %*llu  %-*s  %11s  %7llu  %7s  %-9s  %-7s  ", (long long)s->id, wk,
               s->kind, ws, (unsigned long long)s->seed, wt, ticks, dur,
               (unsigned long long)v[i].inputs, gaps,
               s->running ? "running" : s->suspended ? "suspended" : "closed", s->sim_version);
        snprintf(id, sizeof id, s->origin_id >= 0 ? "%lld" : "-", (long long)s->origin_id);
        if (!wn) printf("%-*s", wsrc, s->source);
        else printf("%-8s  %-*s  %-*s", s->source, wn, s->node[0] ? s->node : "-", any_grain ? 9 : 0, id);
        if (any_grain) printf("  %s", grain[i]);
        printf("\n");
    }
    if (any_grain)
        printf("(grain: compacted sessions keep a recorded hash every H ticks and a checkpoint every C "
               "ticks at most: H/C)\n");
    free(grain);
    if (n) {
        int gaps = 0;
        for (size_t i = 0; i < n; i++) gaps |= v[i].gaps != 0;
        if (gaps) printf("(gaps: gap rows/ticks not recorded)\n");
    }
    free(v);
    rpl_close(f);
    return 0;
}

/* ---- info ---------------------------------------------------------------------------------------- */
static int cmd_info(int argc, char **argv)
{
    opts o;
    const opt table[] = { ROW_SESSION(&o), OPT_END };
    const opt_prog prog = { .who = "viv replay info", .opts = table, .column = 16, .head = usage_info,
                            .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    rpl_file *f = rp_open_file("info", o.file);
    if (!f) return 2;
    char err[512], warn[320], dur[32];
    rpl_session_info si;
    rpl_gap *gaps = NULL;
    sim_input *in = NULL;
    size_t ngaps = 0, nin = 0;
    int status = 2;
    if (rp_pick_session("info", f, &o) != 0) goto done;
    if (rpl_session_info_get(f, o.session, &si, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay info: %s\n", err);
        goto done;
    }
    const rpl_session *s = &si.s;
    const sim_kind *k = rpl_session_kind(f, s, warn, sizeof warn, err, sizeof err);
    fmt_duration(s->end_tick - s->start_tick, s->hz, dur, sizeof dur);
    printf("session %lld of %s\n", (long long)s->id, o.file);
    printf("  kind          %s (id %u), %u Hz%s\n", s->kind, (unsigned)s->kind_id, (unsigned)s->hz,
           k ? "" : " — not replayable by this build");
    printf("  seed          %llu\n", (unsigned long long)s->seed);
    printf("  params        %s\n", s->params);
    printf("  sim version   %s (this build: %s)\n", s->sim_version, SIM_VERSION);
    if (s->world >= 0) printf("  source        %s (world %lld)\n", s->source, (long long)s->world);
    else printf("  source        %s\n", s->source);
    if (s->node[0] && s->origin_id >= 0)
        printf("  node          %s (its session %lld there)\n", s->node, (long long)s->origin_id);
    else if (s->node[0])
        printf("  node          %s\n", s->node);
    rpl_lineage lin;
    int forked = rpl_lineage_get(f, s->id, &lin, err, sizeof err);
    if (forked < 0) fprintf(stderr, "viv replay info: %s\n", err);
    if (forked == 1)
        printf("  lineage       forked from session %lld%s%s at tick %llu (its recorded state hash "
               "there: %016llx)\n", (long long)lin.parent, lin.parent_file[0] ? " of " : "",
               lin.parent_file, (unsigned long long)lin.tick, (unsigned long long)lin.parent_hash);
    printf("  status        %s%s\n", s->running ? "running" : s->suspended ? "suspended" : "closed",
           s->origin_id >= 0 && (s->running || s->suspended)
               ? " (as it was on its node when collected: a vivd on this file leaves it be)"
           : s->running ? " (unfinished: a server still has it open, or was interrupted)"
           : s->suspended ? " (stopped cleanly: the next vivd --db on this file resumes it)" : "");
    printf("  created       %s\n", s->created_at);
    if (s->closed_at[0]) printf("  closed        %s\n", s->closed_at);
    printf("  ticks         %llu..%llu (%llu ticks, %s of world time); %llu hash rows\n",
           (unsigned long long)s->start_tick, (unsigned long long)s->end_tick,
           (unsigned long long)(s->end_tick - s->start_tick), dur, (unsigned long long)si.ticks);
    printf("  checkpoints   %llu (every %llu ticks", (unsigned long long)si.checkpoints,
           (unsigned long long)s->checkpoint_every);
    if (k && k->hz && s->checkpoint_every % k->hz == 0)
        printf(": %llu s of world time", (unsigned long long)(s->checkpoint_every / k->hz));
    printf(")\n");
    rpl_grain grain;
    int compacted = rpl_grain_get(f, s->id, &grain, err, sizeof err);
    if (compacted < 0) fprintf(stderr, "viv replay info: %s\n", err);
    if (compacted == 1)
        printf("  grain         compacted %s: a recorded hash every %llu ticks and a checkpoint every "
               "%llu ticks at most are left (a divergence between two hashes is found at the next)\n",
               grain.compacted_at, (unsigned long long)grain.hash_every,
               (unsigned long long)grain.checkpoint_every);
    printf("  inputs        %llu", (unsigned long long)si.inputs);
    if (k && si.inputs) {
        if (rpl_inputs_load(f, s->id, 0, UINT64_MAX, NULL, &in, &nin, err, sizeof err) != 0) {
            printf("\n");
            fprintf(stderr, "viv replay info: %s\n", err);
            goto done;
        }
        const char *sep = " (";
        for (int kind = 0; kind < k->ninputs; kind++) {
            size_t c = 0;
            for (size_t i = 0; i < nin; i++) c += in[i].kind == kind;
            if (c) {
                printf("%s%s %zu", sep, k->inputs[kind].name, c);
                sep = ", ";
            }
        }
        size_t other = 0, clients = 0;
        for (size_t i = 0; i < nin; i++) {
            other += in[i].kind >= k->ninputs;
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++) seen = in[j].client == in[i].client;
            clients += !seen && i < 4096;
        }
        if (other) printf("%sunknown %zu", sep, other);
        printf(") from %zu client%s%s", clients, clients == 1 ? "" : "s", nin > 4096 ? " or more" : "");
    }
    printf("\n");
    if (rpl_gaps_list(f, s->id, &gaps, &ngaps, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay info: %s\n", err);
        goto done;
    }
    if (!ngaps) printf("  gaps          none\n");
    for (size_t i = 0; i < ngaps; i++)
        printf("  gap           ticks [%llu, %llu) not recorded: %s\n", (unsigned long long)gaps[i].from,
               (unsigned long long)gaps[i].to, gaps[i].reason);
    if (!k) fprintf(stderr, "viv replay info: %s\n", err);
    else if (warn[0]) fprintf(stderr, "viv replay info: warning: %s\n", warn);
    status = 0;
done:
    free(gaps);
    free(in);
    rpl_close(f);
    return status;
}

/* ---- verify -------------------------------------------------------------------------------------- */
enum { V_EXACT, V_DIVERGED, V_UNVERIFIABLE, V_DAMAGED };

/* The verdict names of --json and --junit, as export --html's data-verdict has them. */
static const char *const verdict_names[] = { "bit-exact", "diverged", "unverifiable", "damaged" };

/* One session's verdict, kept for --junit and --json. */
typedef struct verdict {
    int64_t id;
    int have;                          /* s was read */
    rpl_session s;
    int v;                             /* V_… */
    int ran;                           /* r holds the replay's numbers (not damaged or unverifiable) */
    rpl_verify_result r;
    char *report;                      /* what verify said: the desync report, the bit-exact line,
                                          or why it could not be verified */
    double seconds;
} verdict;

/* Every verdict of a run, and what made the whole file fail before any session ran. */
typedef struct verdicts {
    verdict *v;
    size_t n;
    char error[640];                   /* "" or the sentence */
} verdicts;

/* Verify one session, report it on log (stdout; stderr with --json), and say in vd which it was:
 * V_EXACT, V_DIVERGED, V_DAMAGED (the file is: RPL_ECORRUPT) or V_UNVERIFIABLE (any other reason
 * it cannot be replayed). Returns vd->v. */
static int verify_one(rpl_file *f, const opts *o, FILE *log, int64_t id, verdict *vd)
{
    rpl_verify_opts vo = rpl_verify_defaults();
    rpl_verify_result *r = &vd->r;
    cli_progress p;
    char label[64];
    memset(vd, 0, sizeof *vd);
    vd->id = id;
    vd->v = V_UNVERIFIABLE;
    snprintf(label, sizeof label, "session %lld", (long long)id);
    cli_progress_init(&p, label, o->quiet);
    vo.session = id;
    vo.from = o->from;
    vo.to = o->to;
    vo.sync_test = o->sync_test;
    vo.threads = (int)o->threads;
    vo.progress = cli_progress_cb;
    vo.ud = &p;
    vo.report_dir = o->report_dir;
    size_t cap = 64 * 1024;
    char *report = malloc(cap);
    if (!report) {
        fprintf(stderr, "viv replay verify: out of memory\n");
        return vd->v;
    }
    /* Said before the replay: the warning explains a divergence that may follow. */
    rpl_session *s = &vd->s;
    char err[512], warn[320] = "";
    int have = vd->have = rpl_session_get(f, id, s, err, sizeof err) == 0;
    if (have && rpl_session_kind(f, s, warn, sizeof warn, err, sizeof err) && warn[0])
        fprintf(stderr, "viv replay verify: warning: %s\n", warn);
    if (have && s->node[0] && s->origin_id >= 0)      /* a collected file: say whose it is */
        fprintf(log, "session %lld is node %s's session %lld\n", (long long)id, s->node,
                (long long)s->origin_id);
    double t0 = cli_now_s();
    int rc = rpl_verify(f, &vo, r, report, cap);
    vd->seconds = cli_now_s() - t0;
    cli_progress_end(&p);
    char *small = realloc(report, strlen(report) + 1);      /* kept for the reports: no 64 KiB each */
    vd->report = small ? small : report;
    if (rc >= 0 && r->warning[0] && strcmp(r->warning, warn) != 0)   /* e.g. a file-built world */
        fprintf(stderr, "viv replay verify: note: %s\n", r->warning);
    if (rc < 0) {
        fprintf(stderr, "viv replay verify: %s", vd->report);
        if (o->report_dir)
            fprintf(stderr, "viv replay verify: --report %s: nothing written: %s\n", o->report_dir,
                    rc == RPL_ECORRUPT ? "the file is damaged, which is no desync (above)"
                                       : "the session could not be verified (above)");
        return vd->v = rc == RPL_ECORRUPT ? V_DAMAGED : V_UNVERIFIABLE;
    }
    vd->ran = 1;
    fputs(vd->report, log);
    if (o->report_dir) {
        if (r->bundle[0]) fprintf(log, "  %s\n", r->bundle);
        else if (rc == 0) fprintf(log, "  no desync: nothing written to %s\n", o->report_dir);
        else fprintf(log, "  --report %s: nothing written: the divergence is in the tick-0 state (the "
                     "report above says it all)\n", o->report_dir);
    }
    if (r->ticks && r->seconds > 0) {
        double tps = (double)r->ticks / r->seconds;
        fprintf(log, "  %llu ticks in %.2f s: %.0f ticks/s, %.0fx real time at %u Hz (%d thread%s)\n",
                (unsigned long long)r->ticks, r->seconds, tps, r->hz ? tps / r->hz : 0.0,
                (unsigned)r->hz, r->threads, r->threads == 1 ? "" : "s");
    }
    fflush(log);
    return vd->v = rc == 0 ? V_EXACT : V_DIVERGED;
}

/* The exit status of verify (its --help and docs/REPLAY.md): 2 when a session could not be
 * checked, damaged or not, since its verdict is unknown; else 1 when one diverged; else 0. */
static int verify_status(int damaged, int unverifiable, int diverged)
{
    return damaged || unverifiable ? 2 : diverged ? 1 : 0;
}

/* Every session of o (--all, --session N or the only one) verified into vs, reported on log.
 * The exit status. */
static int verify_file(const opts *o, FILE *log, verdicts *vs)
{
    rpl_file *f;
    int64_t only = o->session;
    rpl_session_info *v = NULL;
    size_t n = 1;
    int status = 2;
    if (rpl_open(o->file, RPL_READ, RPL_DUR_NORMAL, &f, vs->error, sizeof vs->error) != 0) {
        fprintf(stderr, "viv replay verify: %s\n", vs->error);
        return 2;
    }
    if (o->all && rpl_sessions_list(f, &v, &n, vs->error, sizeof vs->error) != 0) goto said;
    if (o->all && n == 0) {
        snprintf(vs->error, sizeof vs->error, "%s holds no sessions", o->file);
        goto said;
    }
    if (!o->all && !only && rpl_session_only(f, &only, vs->error, sizeof vs->error) != 0) goto said;
    if (!(vs->v = calloc(n, sizeof *vs->v))) {
        snprintf(vs->error, sizeof vs->error, "out of memory");
        goto said;
    }
    int count[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < n; i++, vs->n++)
        count[verify_one(f, o, log, v ? v[i].s.id : only, &vs->v[i])]++;
    if (n > 1)
        fprintf(log, "%zu sessions: %d bit-exact, %d diverged, %d damaged, %d not verifiable\n", n,
                count[V_EXACT], count[V_DIVERGED], count[V_DAMAGED], count[V_UNVERIFIABLE]);
    status = verify_status(count[V_DAMAGED], count[V_UNVERIFIABLE], count[V_DIVERGED]);
    goto done;
said:
    fprintf(stderr, "viv replay verify: %s\n", vs->error);
done:
    free(v);
    rpl_close(f);
    return status;
}

static void verdicts_free(verdicts *vs)
{
    for (size_t i = 0; i < vs->n; i++) free(vs->v[i].report);
    free(vs->v);
}

/* ---- verify --junit and --json --------------------------------------------------------------------- */
/* A testcase's name: the session as verify's own lines name it. */
static void verdict_name(const verdict *vd, char *out, size_t cap)
{
    const rpl_session *s = &vd->s;
    if (!vd->have) snprintf(out, cap, "session %lld", (long long)vd->id);
    else if (s->node[0] && s->origin_id >= 0)
        snprintf(out, cap, "session %lld (%s, seed %llu; node %s's session %lld)", (long long)vd->id,
                 s->kind, (unsigned long long)s->seed, s->node, (long long)s->origin_id);
    else snprintf(out, cap, "session %lld (%s, seed %llu)", (long long)vd->id, s->kind,
                  (unsigned long long)s->seed);
}

/* The verdicts as JUnit XML into j (opened before the run). The exit status: status, or 2 when
 * it was 0 and the file could not be written (after a message). */
static int verify_junit(ci_junit *j, const opts *o, const verdicts *vs, double seconds, int status)
{
    char name[RPL_NODE_MAX + 128], msg[1024], err[4400];
    if (vs->error[0])              /* the whole file: one case that says why */
        ci_junit_case(j, o->file, o->file, 0, CI_ERROR, "unusable", vs->error, vs->error);
    for (size_t i = 0; i < vs->n; i++) {
        const verdict *vd = &vs->v[i];
        int outcome = vd->v == V_EXACT ? CI_PASS : vd->v == V_DIVERGED ? CI_FAIL : CI_ERROR;
        verdict_name(vd, name, sizeof name);
        ci_first_lines(vd->report, 8, msg, sizeof msg);
        ci_junit_case(j, o->file, name, vd->seconds, outcome,
                      vd->v == V_DIVERGED ? "desync" : verdict_names[vd->v], msg, vd->report);
    }
    if (ci_junit_close(j, seconds, err, sizeof err) == 0) return status;
    fprintf(stderr, "viv replay verify: --junit: %s\n", err);
    return status ? status : 2;
}

static void json_u64(FILE *fp, const char *key, uint64_t v, int known)
{
    if (known) fprintf(fp, ", \"%s\": %llu", key, (unsigned long long)v);
    else fprintf(fp, ", \"%s\": null", key);
}

static void json_verdict(FILE *fp, const verdict *vd)
{
    const rpl_session *s = &vd->s;
    const rpl_verify_result *r = &vd->r;
    char msg[1024];
    fprintf(fp, "    {\"session\": %lld, \"verdict\": \"%s\", \"kind\": ", (long long)vd->id,
            verdict_names[vd->v]);
    if (vd->have) ci_json_str(fp, s->kind);
    else fputs("null", fp);
    json_u64(fp, "seed", s->seed, vd->have);
    fputs(", \"node\": ", fp);
    if (vd->have && s->node[0]) ci_json_str(fp, s->node);
    else fputs("null", fp);
    json_u64(fp, "node_session", (uint64_t)s->origin_id, vd->have && s->node[0] && s->origin_id >= 0);
    json_u64(fp, "first", r->first, vd->ran);
    json_u64(fp, "last", r->last, vd->ran);
    json_u64(fp, "ticks", r->ticks, vd->ran);
    json_u64(fp, "skipped", r->skipped, vd->ran);
    json_u64(fp, "diverged_at", r->diverged_at, vd->v == V_DIVERGED);
    fputs(", \"phase\": ", fp);
    if (vd->v == V_DIVERGED && r->phase[0]) ci_json_str(fp, r->phase);
    else fputs("null", fp);
    fprintf(fp, ", \"seconds\": %.3f, \"message\": ", vd->seconds);
    ci_first_lines(vd->report, 8, msg, sizeof msg);
    ci_json_str(fp, msg);
    fputs(", \"report\": ", fp);
    ci_json_str(fp, vd->report);
    fputc('}', fp);
}

/* The verdicts as one JSON object on stdout. The exit status: status, or 2 when it was 0 and
 * stdout could not be written. */
static int verify_json(const opts *o, const verdicts *vs, int status)
{
    FILE *fp = stdout;
    int count[4] = { 0, 0, 0, 0 };
    fprintf(fp, "{\n  \"report\": \"viv replay verify\",\n  \"version\": 1,\n  \"file\": ");
    ci_json_str(fp, o->file);
    fputs(",\n  \"error\": ", fp);
    if (vs->error[0]) ci_json_str(fp, vs->error);
    else fputs("null", fp);
    fputs(",\n  \"sessions\": [", fp);
    for (size_t i = 0; i < vs->n; i++) {
        fputs(i ? ",\n" : "\n", fp);
        json_verdict(fp, &vs->v[i]);
        count[vs->v[i].v]++;
    }
    fprintf(fp, "%s],\n  \"counts\": {", vs->n ? "\n  " : "");
    for (int v = 0; v < 4; v++) fprintf(fp, "%s\"%s\": %d", v ? ", " : "", verdict_names[v], count[v]);
    fprintf(fp, "},\n  \"exit\": %d\n}\n", status);
    if (fflush(fp) == 0 && !ferror(fp)) return status;
    fprintf(stderr, "viv replay verify: --json: writing stdout failed: %s\n", strerror(errno));
    return status ? status : 2;
}

static int cmd_verify(int argc, char **argv)
{
    opts o;
    const opt table[] = {
        ROW_SESSION(&o),
        OPT_FLAG("--all", &o.all, "every session in the file"),
        OPT_U64("--from", "TICK", &o.from, "start at the checkpoint at or before TICK"),
        OPT_U64("--to", "TICK", &o.to, "stop after checking TICK"),
        OPT_FLAG("--sync-test", &o.sync_test,
                 "also save, load into a second world and continue from it at every tick"),
        OPT_LONG("--threads", "N", &o.threads, 1, 64,
                 "threads for the replay (default: one per CPU, at most 8): spans from\n"
                 "checkpoint to checkpoint take them first, the rest run the worlds'\n"
                 "parallel passes (sand's strips); 1 runs everything on one thread. The\n"
                 "result is the same for every N, whatever N the file was recorded with"),
        OPT_STR("--report", "DIR", &o.report_dir,
                "at a desync, write a desync report into DIR (created if missing):\n"
                "README.txt (what, where, the command that reproduces it), the states\n"
                "(before.state, recorded.state, replayed.state), diff.txt, inputs.txt,\n"
                "phases.txt; nothing when the session is bit-exact or damaged"),
        OPT_STR("--junit", "FILE", &o.junit,
                "also write the verdicts as JUnit XML, what Jenkins, GitLab and GitHub\n"
                "show as test results: a testcase per session, a desync a <failure>\n"
                "whose message is the report's first lines (the first divergent tick\n"
                "and both hashes), a damaged or unverifiable session an <error> (a file\n"
                "that cannot be read: one <error> named after it)"),
        OPT_FLAG("--json", &o.json,
                 "print the verdicts as one JSON object on stdout (as viv bot --json);\n"
                 "what verify prints otherwise goes to stderr. Per session: session,\n"
                 "verdict (bit-exact, diverged, damaged, unverifiable), kind, seed, node,\n"
                 "node_session, first, last, ticks, skipped, diverged_at, phase, seconds,\n"
                 "message (the report's first lines) and report (all of it); then\n"
                 "counts by verdict and exit, the exit status; error: why the file could\n"
                 "not be verified at all, or null"),
        ROW_QUIET(&o),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay verify", .opts = table, .column = 16,
                            .head = usage_verify, .tail = verify_tail, .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    if (o.all && o.session) {
        fprintf(stderr, "viv replay verify: --session and --all do not go together\n");
        return 2;
    }
    /* Opened first: a report that cannot be written is said before an hour of replay. */
    ci_junit *j = NULL;
    char err[4400], suite[4200];
    snprintf(suite, sizeof suite, "viv replay verify %.4096s", o.file);
    if (o.junit && !(j = ci_junit_open(o.junit, suite, err, sizeof err))) {
        fprintf(stderr, "viv replay verify: --junit: %s\n", err);
        return 2;
    }
    verdicts vs;
    memset(&vs, 0, sizeof vs);
    double t0 = cli_now_s();
    int status = verify_file(&o, o.json ? stderr : stdout, &vs);
    if (j) status = verify_junit(j, &o, &vs, cli_now_s() - t0, status);
    if (o.json) status = verify_json(&o, &vs, status);
    verdicts_free(&vs);
    return status;
}

/* ---- export -------------------------------------------------------------------------------------- */
/* export --html: the whole session, so the frame options do not apply. */
static int export_html(opts *o)
{
    if (o->gif || o->png_dir || o->view || o->from || o->to != UINT64_MAX || o->every ||
        o->scale != 1 || o->mmpx != 1) {
        fprintf(stderr, "viv replay export: --html writes the whole session with its own player: "
                "--gif, --png-dir, --from, --to, --every, --scale, --mmpx and --view do not go with it\n");
        return 2;
    }
    rpl_file *f = rp_open_file("export", o->file);
    if (!f) return 2;
    int status = 2;
    char err[640];
    cli_html_result r;
    if (rp_pick_session("export", f, o) != 0) goto done;
    if (cli_replay_html(f, o->session, o->html, o->web, o->wasm, &r, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay export: %s\n", err);
        goto done;
    }
    if (r.damaged)
        fprintf(stderr, "viv replay export: warning: the file carries session %lld up to its damage, "
                "which the page will report: %s\n", (long long)o->session, r.damage);
    printf("session %lld (ticks %llu..%llu, %llu replayed) written to %s: %zu bytes (sim module %zu, "
           "session %zu, player %zu, compressed)\n", (long long)o->session,
           (unsigned long long)r.first, (unsigned long long)r.last, (unsigned long long)r.ticks,
           o->html, r.file_bytes, r.wasm_bytes, r.stream_bytes, r.module_bytes);
    status = 0;
done:
    rpl_close(f);
    return status;
}

static int cmd_export(int argc, char **argv)
{
    opts o;
    const opt table[] = {
        OPT_STR("--gif", "OUT.gif", &o.gif,
                "an animated GIF; frame delays follow the session's tick rate and --every"),
        OPT_STR("--webp", "OUT.webp", &o.webp,
                "an animated lossless WebP (libwebp's WebPAnimEncoder): exact colours,\n"
                "frame times in ms from the tick rate and --every"),
        OPT_STR("--png-dir", "DIR", &o.png_dir,
                "one indexed PNG per frame, DIR/frame-TICK.png, TICK zero-padded to the\n"
                "width of the last tick (at least 6 digits); DIR is created if missing"),
        OPT_U64("--from", "TICK", &o.from, "the tick of the first frame (default: the session's first)"),
        OPT_U64("--to", "TICK", &o.to, "the tick of the last frame (default: the session's last)"),
        OPT_CALL("--every", "K", set_every, &o.every,
                 "a frame every K ticks (default: --gif the fewest ticks lasting 2/100 s,\n"
                 "since browsers slow faster GIFs down: 2 at 60 Hz; else --webp the fewest\n"
                 "lasting more than 10 ms: 1 at 60 Hz; --png-dir 1). One --every for all"),
        OPT_LONG("--scale", "S", &o.scale, 1, 16, "pixel scale 1..16 (default 1)"),
        OPT_CALL("--mmpx", "N", set_mmpx, &o.mmpx,
                 "magnify each frame N times (2 or 4) with MMPX before --scale: the\n"
                 "world's own palette, edges and 1-px lines kept sharp (default 1: not)"),
        OPT_STR("--view", "NAME", &o.view, "a render layer of the world (default: the normal picture)"),
        OPT_STR("--html", "OUT.html", &o.html,
                "the session as one self-verifying HTML file (see above)"),
        OPT_STR("--web", "DIR", &o.web,
                "--html: the page's modules (default: ../share/vivarium/web from\n"
                "viv's folder when installed there by make install, else clients/web\n"
                "of the source tree viv was built in)"),
        OPT_STR("--wasm", "FILE", &o.wasm,
                "--html: the sim module (default: ../share/vivarium/vivarium.wasm\n"
                "from viv's folder when installed, else vivarium.wasm beside viv;\n"
                "make builds it)"),
        ROW_SESSION(&o),
        ROW_QUIET(&o),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay export", .opts = table, .column = 18,
                            .head = usage_export, .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    if (o.html) return export_html(&o);
    if (o.web || o.wasm) {
        fprintf(stderr, "viv replay export: --web and --wasm go with --html only\n");
        return 2;
    }
    if (!o.gif && !o.webp && !o.png_dir) {
        fprintf(stderr, "viv replay export: say where the frames go: --gif OUT.gif, --webp OUT.webp, "
                "--png-dir DIR or --html OUT.html\n");
        return 2;
    }
    rpl_file *f = rp_open_file("export", o.file);
    if (!f) return 2;
    int status = 2;
    char err[512];
    rpl_export_opts eo = rpl_export_defaults();
    rpl_export_result r;
    cli_progress p;
    if (rp_pick_session("export", f, &o) != 0) goto done;
    if (o.view) {
        rpl_session s;
        const sim_kind *k;
        if (rpl_session_get(f, o.session, &s, err, sizeof err) != 0 ||
            !(k = rpl_session_kind(f, &s, NULL, 0, err, sizeof err))) {
            fprintf(stderr, "viv replay export: %s\n", err);
            goto done;
        }
        eo.view = sim_kind_view_find(k, o.view);
        if (eo.view < 0) {
            fprintf(stderr, "viv replay export: %s has no view '%s' (views:", k->name, o.view);
            for (int i = 0; i < k->nviews; i++) fprintf(stderr, " %s", k->views[i]);
            fprintf(stderr, ")\n");
            goto done;
        }
    }
    cli_progress_init(&p, "export", o.quiet);
    eo.session = o.session;
    eo.from = o.from;
    eo.to = o.to;
    eo.every = o.every;
    eo.scale = (int)o.scale;
    eo.mmpx = (int)o.mmpx;
    eo.gif = o.gif;
    eo.webp = o.webp;
    eo.png_dir = o.png_dir;
    eo.progress = cli_progress_cb;
    eo.ud = &p;
    rc = rpl_export(f, &eo, &r, err, sizeof err);
    cli_progress_end(&p);
    if (r.warning[0]) fprintf(stderr, "viv replay export: warning: %s\n", r.warning);
    if (rc != 0) {
        fprintf(stderr, "viv replay export: %s\n", err);
        status = r.frames ? 1 : 2;
        goto done;
    }
    printf("%llu frame%s of session %lld (ticks %llu..%llu, one every %llu tick%s) written to",
           (unsigned long long)r.frames, r.frames == 1 ? "" : "s", (long long)o.session,
           (unsigned long long)r.first, (unsigned long long)r.last, (unsigned long long)r.every,
           r.every == 1 ? "" : "s");
    const char *to[3] = { o.gif, o.webp, o.png_dir };
    int nto = 0;
    for (int i = 0; i < 3; i++)
        if (to[i]) printf("%s %s%s", nto++ ? " and" : "", to[i], i == 2 ? "/" : "");
    printf("\n");
    status = r.mismatched ? 1 : 0;
done:
    rpl_close(f);
    return status;
}

/* ---- collect ------------------------------------------------------------------------------------- */
/* viv replay collect's command line: the files, each with the --node given before it. */
typedef struct collect_args {
    rpl_collect_src *src;
    size_t n;
    const char *out, *node;            /* node: given, waiting for its FILE */
    int force, quiet;
} collect_args;

static int collect_file(const opt_prog *p, const char *a)
{
    collect_args *c = p->ud;
    c->src[c->n].path = a;
    c->src[c->n].node = c->node;
    c->node = NULL;
    c->n++;
    return OPT_OK;
}

static int set_collect_out(const opt_prog *p, const opt *o, const char *v)
{
    collect_args *c = o->ptr;
    if (c->out) {
        fprintf(stderr, "viv replay collect: one output only ('%s' and '%s')\n", c->out, v);
        return OPT_BAD;
    }
    c->out = v;
    return OPT_OK;
}

static int set_collect_node(const opt_prog *p, const opt *o, const char *v)
{
    collect_args *c = o->ptr;
    if (c->node) {
        fprintf(stderr, "viv replay collect: --node %s and --node %s name the same file: "
                "give each FILE its own --node\n", c->node, v);
        return OPT_BAD;
    }
    c->node = v;
    return OPT_OK;
}

static int cmd_collect(int argc, char **argv)
{
    collect_args c = { .src = calloc((size_t)argc, sizeof *c.src) };
    int status = 2;
    if (!c.src) {
        fprintf(stderr, "viv replay collect: out of memory\n");
        return 2;
    }
    const opt table[] = {
        OPT_CALL("--node", "NAME", set_collect_node, &c,
                 "the node name of the FILE that follows it (letters, digits, '-', '_', '.').\n"
                 "Default: the file's base name without its extension (nodes/east.db is\n"
                 "node 'east'). A session whose file records its node keeps that name."),
        OPT_CALL("-o", "OUT", set_collect_out, &c, "the new file; it must not exist"),
        OPT_CALL("--out", "OUT", set_collect_out, &c, NULL),        /* -o's other name */
        OPT_FLAG("--force", &c.force, "replace OUT if it exists (not while a program has it open)"),
        OPT_FLAG("--quiet", &c.quiet, "no progress bar (there is none when stderr is not a terminal)"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay collect", .opts = table, .column = 16,
                            .head = usage_collect, .tail = collect_tail, .operand = collect_file,
                            .ud = &c };
    int prc = opt_parse(&prog, argc, argv);
    if (prc != OPT_OK) {
        status = OPT_EXIT(prc);
        goto done;
    }
    rpl_collect_src *src = c.src;
    size_t n = c.n;
    const char *out = c.out, *node = c.node;
    int force = c.force, quiet = c.quiet;
    if (node) {
        fprintf(stderr, "viv replay collect: --node %s names no file: put it before the FILE it names\n",
                node);
        goto done;
    }
    if (n == 0) {
        fprintf(stderr, "viv replay collect: which files? (see viv replay collect --help)\n");
        goto done;
    }
    if (!out) {
        fprintf(stderr, "viv replay collect: where to? name the new file with -o OUT\n");
        goto done;
    }
    cli_progress p;
    cli_progress_init(&p, "collect", quiet);
    p.unit = "rows";
    rpl_collect_opts co = { .src = src, .nsrc = n, .out = out, .force = force,
                            .progress = cli_progress_cb, .ud = &p };
    rpl_collect_result r;
    char err[1024];
    int rc = rpl_collect(&co, &r, err, sizeof err);
    cli_progress_end(&p);
    if (rc != 0) {
        fprintf(stderr, "viv replay collect: %s\n", err);
        goto done;
    }
    if (r.warning[0]) fprintf(stderr, "viv replay collect: note: %s\n", r.warning);
    printf("%s: %zu session%s from %zu file%s (%llu rows)\n", out, r.n, r.n == 1 ? "" : "s", n,
           n == 1 ? "" : "s", (unsigned long long)r.rows);
    if (r.n) {
        int wn = 4;
        for (size_t i = 0; i < r.n; i++)
            if ((int)strlen(r.map[i].node) > wn) wn = (int)strlen(r.map[i].node);
        printf("%7s  %-*s  %9s  %s\n", "session", wn, "node", "node's id", "from");
        for (size_t i = 0; i < r.n; i++)
            printf("%7lld  %-*s  %9lld  %s session %lld\n", (long long)r.map[i].id, wn, r.map[i].node,
                   (long long)r.map[i].origin_id, src[r.map[i].src].path, (long long)r.map[i].src_id);
    }
    for (size_t i = 0; i < n; i++) {
        int any = 0;
        for (size_t k = 0; k < r.n && !any; k++) any = r.map[k].src == i;
        if (!any) fprintf(stderr, "viv replay collect: note: %s holds no sessions\n", src[i].path);
    }
    rpl_collect_result_free(&r);
    status = 0;
done:
    free(c.src);
    return status;
}

/* ---- fork ---------------------------------------------------------------------------------------- */
static int set_tick(const opt_prog *p, const opt *o, const char *v)
{
    opts *op = p->ud;
    if (opt_parse_u64(p->who, o->name, v, &op->tick)) return OPT_BAD;
    op->has_tick = 1;
    return OPT_OK;
}

static int cmd_fork(int argc, char **argv)
{
    opts o;
    const opt table[] = {
        OPT_CALL("--tick", "T", set_tick, NULL, "the tick to fork at: the new session starts with the state after T ticks"),
        OPT_STR("-o", "OUT", &o.out, "the replay file the fork goes into, new or existing (default: FILE)"),
        ROW_SESSION(&o),
        ROW_QUIET(&o),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay fork", .opts = table, .column = 16, .head = usage_fork,
                            .tail = fork_tail, .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    if (!o.has_tick) {
        fprintf(stderr, "viv replay fork: which tick? --tick T (viv replay info %s shows the range)\n", o.file);
        return 2;
    }
    rpl_file *f = rp_open_file("fork", o.file);
    if (!f) return 2;
    int picked = rp_pick_session("fork", f, &o);
    rpl_close(f);
    if (picked != 0) return 2;
    cli_progress p;
    char label[64], err[1024];
    snprintf(label, sizeof label, "replaying session %lld to tick %llu", (long long)o.session,
             (unsigned long long)o.tick);
    cli_progress_init(&p, label, o.quiet);
    rpl_fork_opts fo = { .path = o.file, .session = o.session, .tick = o.tick, .out = o.out,
                         .progress = cli_progress_cb, .ud = &p };
    rpl_fork_result r;
    rc = rpl_fork(&fo, &r, err, sizeof err);
    cli_progress_end(&p);
    if (r.warning[0]) fprintf(stderr, "viv replay fork: warning: %s\n", r.warning);
    if (rc != 0) {
        fprintf(stderr, "viv replay fork: %s\n", err);
        return rc == 1 ? 1 : 2;
    }
    const char *out = o.out ? o.out : o.file;
    printf("session %lld of %s: forked from session %lld of %s at tick %llu (replayed from the "
           "checkpoint at tick %llu; state hash %016llx, frame hash %016llx, as recorded); "
           "suspended there: `vivd --db %s` resumes it as a live world\n", (long long)r.id, out,
           (long long)o.session, o.file, (unsigned long long)o.tick, (unsigned long long)r.from_cp,
           (unsigned long long)r.state_hash, (unsigned long long)r.frame_hash, out);
    return 0;
}

int cli_replay_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *c = argv[1];
    if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0 || strcmp(c, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(c, "list") == 0) return cmd_list(argc - 1, argv + 1);
    if (strcmp(c, "info") == 0) return cmd_info(argc - 1, argv + 1);
    if (strcmp(c, "verify") == 0) return cmd_verify(argc - 1, argv + 1);
    if (strcmp(c, "export") == 0) return cmd_export(argc - 1, argv + 1);
    if (strcmp(c, "collect") == 0) return cmd_collect(argc - 1, argv + 1);
    if (strcmp(c, "fork") == 0) return cmd_fork(argc - 1, argv + 1);
    if (strcmp(c, "hashes") == 0) return cli_replay_hashes(argc - 1, argv + 1);
    if (strcmp(c, "upgrade") == 0) return cli_replay_upgrade(argc - 1, argv + 1);
    if (strcmp(c, "drop") == 0) return cli_replay_drop(argc - 1, argv + 1);
    if (strcmp(c, "compact") == 0) return cli_replay_compact(argc - 1, argv + 1);
    fprintf(stderr, "viv replay: unknown command '%s'\n\n", c);
    usage(stderr);
    return 2;
}
