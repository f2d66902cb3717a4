/* viv_replay_tools.c — `viv replay hashes` (a session's recorded hashes, a tick a line, or replayed
 * and checked) and `viv replay upgrade` (a file of schema 3 rewritten in schema 4: replay/upgrade.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "viv_replay_int.h"

static void usage_upgrade(FILE *out)
{
    fprintf(out,
        "usage: viv replay upgrade FILE [--no-backup] [--quiet]\n"
        "\n"
        "Rewrites every session FILE holds in schema 3's rows (a row of two whole hashes a tick, a\n"
        "whole checkpoint every 10 s) as this build records: hashes in blocks, the low 8 bits of\n"
        "most ticks and both whole every 240 ticks, and checkpoints every 60 s of world time, kept\n"
        "at the session's start and end and at every gap's end, as zstd deltas against a full one\n"
        "(docs/REPLAY.md, \"Upgrading a file\"). Each session is verified first; only one that\n"
        "verifies bit-exactly is rewritten (fewer bits would hide how another diverged or is\n"
        "damaged: it is kept as it is, and said so). The file is copied whole to FILE.schema3\n"
        "first, vacuumed after, and every rewritten session must verify bit-exactly again, or the\n"
        "copy is put back.\n"
        "\n");
}

static void upgrade_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Refused: a file a running vivd records into (stop it first), a FILE.schema3 already there.\n"
        "On a terminal, a progress bar on stderr while the sessions are verified.\n"
        "Exit status: 0 upgraded (or nothing to do), 2 refused or failed (the file as it was).\n");
}

static void usage_hashes(FILE *out)
{
    fprintf(out,
        "usage: viv replay hashes FILE [--session N] [--from TICK] [--to TICK] [--replayed]\n"
        "\n"
        "One line a tick, for hunting a desync by hand: the tick, its state hash, its frame hash\n"
        "and how many of their low bits the file keeps (docs/REPLAY.md, \"Recorded hashes\": 64\n"
        "for a row of schema 3 and the last tick of a block; 8 for the other ticks of a block,\n"
        "printed as their two hex digits after dots; 0 where compaction thinned them: dots).\n"
        "Ticks the file holds no hashes for (the session's start, a gap) are not printed.\n"
        "\n");
}

static void hashes_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "--replayed: replay with this build's sim from the checkpoint at or before --from (the\n"
        "logged inputs fed) and print the whole state and frame hash of every tick from --from to\n"
        "--to, each checked against the bits the file keeps; the first that disagrees ends the\n"
        "run with a message and exit 1 (`viv replay verify` says why).\n"
        "Exit status: 0 printed, 1 a replayed hash disagrees with the file, 2 refused or failed.\n");
}

/* ---- hashes ---------------------------------------------------------------------------------------- */
static void print_hashes(uint64_t tick, uint64_t sh, uint64_t fh, int bits)
{
    char a[17], b[17];
    printf("%llu %s %s %d\n", (unsigned long long)tick, rpl_hash_hex(a, sh, bits), rpl_hash_hex(b, fh, bits), bits);
}

/* --replayed: the world at o->from (rpl_state_at), then stepped to o->to with the logged inputs,
 * each tick's whole hashes printed once checked against the recording. */
static int hashes_replayed(rpl_file *f, const rpl_session *s, const opts *o)
{
    char err[1024];
    sim_world *w = NULL;
    uint64_t sh, fh, cp;
    uint64_t from = o->from < s->start_tick ? s->start_tick : o->from;
    uint64_t to = o->to > s->end_tick ? s->end_tick : o->to;
    int rc = rpl_state_at(f, s, from, &w, &sh, &fh, &cp, NULL, NULL, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "viv replay hashes: %s\n", err);
        return rc == 1 ? 1 : 2;
    }
    print_hashes(from, sh, fh, 64);
    sim_input *in = NULL;
    rpl_tick_row *rows = NULL;
    size_t nin = 0, nrows = 0, k = 0, r = 0;
    sim_frame fr;
    int status = 2;
    if (to > from && (rpl_inputs_load(f, s->id, from, to, w, &in, &nin, err, sizeof err) != 0 ||
                      rpl_ticks_load(f, s->id, from + 1, to, &rows, &nrows, err, sizeof err) != 0)) {
        fprintf(stderr, "viv replay hashes: %s\n", err);
        sim_world_destroy(w);
        return 2;
    }
    if (sim_world_frame_init(w, &fr) != 0) {
        fprintf(stderr, "viv replay hashes: out of memory\n");
        goto done;
    }
    for (uint64_t t = from; t < to; t++) {
        for (; k < nin && in[k].tick == t; k++) {
            int irc = sim_world_input(w, &in[k]);
            if (irc && irc != SIM_EDUP) {
                fprintf(stderr, "viv replay hashes: session %lld, input at tick %llu: the world refuses "
                        "it: %s\n", (long long)s->id, (unsigned long long)t, sim_world_error(w));
                goto frame;
            }
        }
        sim_world_step(w);
        sim_world_render(w, 0, &fr);
        sh = sim_world_hash(w);
        fh = sim_frame_hash(&fr);
        while (r < nrows && rows[r].tick < t + 1) r++;
        if (r < nrows && rows[r].tick == t + 1 &&
            (rpl_hash_differs(rows[r].state_hash, sh, rows[r].bits) ||
             rpl_hash_differs(rows[r].frame_hash, fh, rows[r].bits))) {
            fprintf(stderr, "viv replay hashes: tick %llu: the replay's hashes (%016llx %016llx) are not "
                    "the recorded ones (`viv replay verify %s --session %lld` says why)\n",
                    (unsigned long long)(t + 1), (unsigned long long)sh, (unsigned long long)fh, o->file,
                    (long long)s->id);
            status = 1;
            goto frame;
        }
        print_hashes(t + 1, sh, fh, 64);
    }
    status = 0;
frame:
    sim_frame_free(&fr);
done:
    free(in);
    free(rows);
    sim_world_destroy(w);
    return status;
}

int cli_replay_hashes(int argc, char **argv)
{
    opts o;
    const opt table[] = {
        ROW_SESSION(&o),
        OPT_U64("--from", "TICK", &o.from, "the first tick printed (default: the session's first)"),
        OPT_U64("--to", "TICK", &o.to, "the last tick printed (default: the session's last)"),
        OPT_FLAG("--replayed", &o.replayed, "the whole hashes of a replay, checked against the file's"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay hashes", .opts = table, .column = 16, .head = usage_hashes,
                            .tail = hashes_tail, .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    rpl_file *f = rp_open_file("hashes", o.file);
    if (!f) return 2;
    rpl_session s;
    char err[512];
    int status = 2;
    if (rp_pick_session("hashes", f, &o) != 0) goto done;
    if (rpl_session_get(f, o.session, &s, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay hashes: %s\n", err);
        goto done;
    }
    if (o.replayed) {
        status = hashes_replayed(f, &s, &o);
        goto done;
    }
    rpl_tick_row *rows;
    size_t n;
    if (rpl_ticks_load(f, s.id, o.from, o.to, &rows, &n, err, sizeof err) != 0) {
        fprintf(stderr, "viv replay hashes: %s\n", err);
        goto done;
    }
    for (size_t i = 0; i < n; i++) print_hashes(rows[i].tick, rows[i].state_hash, rows[i].frame_hash, rows[i].bits);
    free(rows);
    status = 0;
done:
    rpl_close(f);
    return status;
}

/* ---- upgrade ---------------------------------------------------------------------------------------- */
int cli_replay_upgrade(int argc, char **argv)
{
    opts o;
    const opt table[] = {
        OPT_FLAG("--no-backup", &o.no_backup, "remove FILE.schema3 once every rewritten session verifies"),
        ROW_QUIET(&o),
        OPT_END
    };
    const opt_prog prog = { .who = "viv replay upgrade", .opts = table, .column = 16, .head = usage_upgrade,
                            .tail = upgrade_tail, .operand = rp_set_file, .ud = &o };
    int rc = rp_parse(&prog, argc, argv, &o);
    if (rc) return OPT_EXIT(rc);
    cli_progress p;
    cli_progress_init(&p, "verifying", o.quiet);
    rpl_upgrade_opts uo = { .path = o.file, .keep_backup = !o.no_backup, .progress = cli_progress_cb, .ud = &p };
    rpl_upgrade_result r;
    char err[1024];
    rc = rpl_upgrade(&uo, &r, err, sizeof err);
    cli_progress_end(&p);
    if (rc != 0) {
        fprintf(stderr, "viv replay upgrade: %s\n", err);
        rpl_upgrade_result_free(&r);
        return 2;
    }
    for (size_t i = 0; i < r.n; i++) {
        const rpl_upgrade_session *u = &r.s[i];
        if (u->convert)
            printf("session %lld: rewritten: %llu tick rows into %llu blocks of hashes, %llu checkpoints "
                   "into %llu; verifies bit-exactly\n", (long long)u->id, (unsigned long long)u->ticks,
                   (unsigned long long)u->blocks, (unsigned long long)u->checkpoints_before,
                   (unsigned long long)u->checkpoints_after);
        else if (u->ticks)
            printf("session %lld: kept as it is: it does not verify bit-exactly (%s; `viv replay verify "
                   "%s --session %lld` says why)\n", (long long)u->id,
                   u->verdict == 1 ? "diverged" : "damaged or not verifiable", o.file, (long long)u->id);
        else
            printf("session %lld: already in this build's format\n", (long long)u->id);
    }
    if (r.converted)
        printf("%s: %zu of %zu sessions rewritten, %llu bytes → %llu%s%s\n", o.file, r.converted, r.n,
               (unsigned long long)r.bytes_before, (unsigned long long)r.bytes_after,
               r.backup[0] ? "; the file as it was is kept as " : "", r.backup);
    else
        printf("%s: nothing to rewrite; the file is unchanged\n", o.file);
    rpl_upgrade_result_free(&r);
    return 0;
}

