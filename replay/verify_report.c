/* verify_report.c — the forensics of a desync (issue 28): the step that produced the first
 * divergent tick replayed phase by phase against the phase hashes a heavy recording holds, and the
 * desync bundle `viv replay verify --report DIR` writes (the states, the inputs before it, the
 * field diff, the phases and the one command that reproduces it). verify.c calls these once, on
 * its first failure. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "read.h"
#include "verify_int.h"

/* ---- phase hashes of the divergent step ----------------------------------------------------------- */
#define INPUT_TICKS 60                 /* the bundle's inputs.txt: the ticks before the divergence */


static void phase_collect(void *user, uint64_t tick, int index, const char *phase, uint64_t hash)
{
    phase_log *l = user;
    if (l->n == PHASES_MAX) return;
    snprintf(l->v[l->n].name, sizeof l->v[l->n].name, "%s", phase);
    l->v[l->n++].hash = hash;
}


void vrf_phases_compare(rpl_file *f, const rpl_session *s, uint64_t start, uint64_t t,
                        phase_cmp *pc)
{
    sim_input *in = NULL;
    size_t nin = 0;
    memset(pc, 0, sizeof *pc);
    pc->first = -1;
    sim_world *w = vrf_replay_to(f, s, start, t - 1, pc->why, sizeof pc->why);
    if (!w) return;
    pc->before = vrf_save_alloc(w, &pc->blen);
    if (rpl_inputs_load(f, s->id, t - 1, t, w, &in, &nin, pc->why, sizeof pc->why)) goto done;
    for (size_t i = 0; i < nin; i++) {
        int rc = sim_world_input(w, &in[i]);
        if (rc && rc != SIM_EDUP) {
            snprintf(pc->why, sizeof pc->why, "the world refuses an input of tick %llu: %s",
                     (unsigned long long)(t - 1), sim_world_error(w));
            goto done;
        }
    }
    sim_phase_hook h = { phase_collect, &pc->mine };
    sim_world_set_phases(w, &h);
    sim_world_step(w);
    pc->ok = 1;
    if (rpl_phases_load(f, s->id, t, &pc->rec, &pc->nrec, pc->why, sizeof pc->why)) pc->nrec = 0;
    size_t n = pc->nrec > pc->mine.n ? pc->nrec : pc->mine.n;
    for (size_t i = 0; i < n && pc->nrec; i++) {
        if (i >= pc->nrec || i >= pc->mine.n || strcmp(pc->rec[i].name, pc->mine.v[i].name) != 0 ||
            pc->rec[i].hash != pc->mine.v[i].hash) {
            pc->first = (long)i;
            break;
        }
    }
done:
    free(in);
    sim_world_destroy(w);
}

void vrf_phase_cmp_free(phase_cmp *pc)
{
    free(pc->rec);
    free(pc->before);
}

/* The report's lines about the phases of the divergent step of tick t - 1. */
void vrf_say_phases(const phase_cmp *pc, uint64_t t, char *out, size_t cap, size_t *len)
{
    if (!pc->ok) {
        vrf_say(out, cap, len, "  phases: not known: %s\n", pc->why);
        return;
    }
    if (!pc->nrec) {
        vrf_say(out, cap, len, "  phases: the file holds no phase hashes for tick %llu, so the phase the "
                "step went astray in is not known (record with `viv sim --record FILE --phases` to "
                "have it named); this build steps it as:", (unsigned long long)t);
        for (size_t i = 0; i < pc->mine.n; i++)
            vrf_say(out, cap, len, "%s %s", i ? "," : "", pc->mine.v[i].name);
        vrf_say(out, cap, len, "\n");
        return;
    }
    if (pc->first < 0) {
        vrf_say(out, cap, len, "  phases: all %zu phase hashes of the step of tick %llu match the recording: "
                "the states part after its last phase\n", pc->nrec, (unsigned long long)(t - 1));
        return;
    }
    size_t i = (size_t)pc->first;
    if (i < pc->nrec && i < pc->mine.n && strcmp(pc->rec[i].name, pc->mine.v[i].name) == 0)
        vrf_say(out, cap, len, "  first divergent phase: '%s', phase %zu of %zu of the step of tick %llu "
                "(recorded %016llx, replayed %016llx)", pc->rec[i].name, i + 1, pc->nrec,
                (unsigned long long)(t - 1), (unsigned long long)pc->rec[i].hash,
                (unsigned long long)pc->mine.v[i].hash);
    else
        vrf_say(out, cap, len, "  first divergent phase: phase %zu of the step of tick %llu is '%s' in the "
                "recording and '%s' here: the build that recorded it steps through other phases",
                i + 1, (unsigned long long)(t - 1), i < pc->nrec ? pc->rec[i].name : "(none)",
                i < pc->mine.n ? pc->mine.v[i].name : "(none)");
    if (i > 0) {
        vrf_say(out, cap, len, "; matched before it:");
        for (size_t j = 0; j < i; j++) vrf_say(out, cap, len, "%s %s", j ? "," : "", pc->rec[j].name);
    }
    vrf_say(out, cap, len, "\n");
}

/* ---- the desync bundle (--report DIR) ------------------------------------------------------------- */
/* Write len bytes to dir/name (replacing it). 0, or -1 with a sentence in err. */
static int bundle_file(const char *dir, const char *name, const void *data, size_t len, char *err,
                       size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (len && fwrite(data, 1, len, fp) != len) || fclose(fp) != 0) {
        snprintf(err, errlen, "cannot write %.400s: %s", path, strerror(errno));
        if (fp) fclose(fp);
        return -1;
    }
    return 0;
}

/* A growing text buffer for the bundle's text files. */
typedef struct text {
    char *p;
    size_t cap, len;
} text;

static void text_say(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = t->p ? vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t nc = t->cap ? t->cap * 2 : 4096;
        while (n >= 0 && nc < t->len + (size_t)n + 1) nc *= 2;
        char *q = realloc(t->p, nc);
        if (!q) return;                /* out of memory: the line is left out */
        t->p = q;
        t->cap = nc;
    }
}

static int text_write(const char *dir, const char *name, text *t, char *err, size_t errlen)
{
    int rc = bundle_file(dir, name, t->p ? t->p : "", t->len, err, errlen);
    free(t->p);
    memset(t, 0, sizeof *t);
    return rc;
}

/* A shell word: the text in single quotes unless it needs none. */
static void shell_word(text *t, const char *w)
{
    if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+,:@") ==
              strlen(w)) {
        text_say(t, "%s", w);
        return;
    }
    text_say(t, "'");
    for (const char *c = w; *c; c++) {
        if (*c == '\'') text_say(t, "'\\''");
        else text_say(t, "%c", *c);
    }
    text_say(t, "'");
}

/* The bundle of the hash divergence fl into dir: every file, and a sentence in res->bundle. */
void vrf_bundle_write(rpl_file *f, const rpl_session *s, const sim_kind *k, uint64_t start,
                      const rpl_verify_opts *o, const failure *fl, const phase_cmp *pc,
                      rpl_verify_result *res)
{
    const char *dir = o->report_dir;
    uint64_t t = fl->tick, at = t;
    char err[600] = "";
    rpl_checkpoint cp = { 0 };
    rpl_gap *gaps = NULL;
    size_t ngaps = 0, nin = 0;
    sim_input *in = NULL;
    sim_world *w = NULL;
    uint8_t *mine = NULL;
    size_t mlen = 0;
    int have_cp = 0;
    text tx = { 0 };
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(res->bundle, sizeof res->bundle, "--report %s: cannot create the directory: %s", dir,
                 strerror(errno));
        return;
    }
    /* The states compared: the recorded checkpoint at or after t (within reach, no gap between)
     * and the replayed state at its tick; without one, the replayed state at t alone. */
    if (rpl_gaps_list(f, s->id, &gaps, &ngaps, err, sizeof err)) ngaps = 0;
    if (rpl_checkpoint_find(f, s, t, RPL_AT_OR_AFTER, &cp, err, sizeof err) == 0 &&
        !vrf_gap_between(gaps, ngaps, t, cp.tick) && cp.tick - t <= DIFF_REACH) {
        have_cp = 1;
        at = cp.tick;
    }
    w = vrf_replay_to(f, s, start, at, err, sizeof err);
    mine = w ? vrf_save_alloc(w, &mlen) : NULL;
    if (!mine) {
        snprintf(res->bundle, sizeof res->bundle, "--report %s: replaying to tick %llu failed: %s", dir,
                 (unsigned long long)at, w ? "the world could not be saved" : err);
        goto done;
    }
    if ((pc->before && bundle_file(dir, "before.state", pc->before, pc->blen, err, sizeof err)) ||
        bundle_file(dir, "replayed.state", mine, mlen, err, sizeof err) ||
        (have_cp && bundle_file(dir, "recorded.state", cp.state, cp.len, err, sizeof err)))
        goto failed;
    /* diff.txt: every differing field, recorded → replayed. */
    if (have_cp) {
        size_t dcap = 1 << 20;
        char *d = malloc(dcap);
        long n = d ? sim_state_diff(cp.state, cp.len, mine, mlen, d, dcap, 100000) : SIM_ENOMEM;
        text_say(&tx, "Field-by-field diff at tick %llu, the recorded checkpoint (recorded.state) -> the "
                 "replayed state (replayed.state):\n", (unsigned long long)at);
        if (n < 0) text_say(&tx, "(no diff: %s)\n", sim_strerror((int)n));
        else if (n == 0) text_say(&tx, "(no field differs)\n");
        else text_say(&tx, "%ld field%s differ%s:\n%s", n, n == 1 ? "" : "s", n == 1 ? "s" : "", d);
        free(d);
    } else {
        text_say(&tx, "No recorded checkpoint within reach at or after tick %llu: there is no recorded "
                 "state to diff against (replayed.state is the replayed state at tick %llu).\n",
                 (unsigned long long)t, (unsigned long long)t);
    }
    if (text_write(dir, "diff.txt", &tx, err, sizeof err)) goto failed;
    /* inputs.txt: the logged inputs of the ticks before the divergence. */
    uint64_t from = t > start + INPUT_TICKS ? t - INPUT_TICKS : start;
    if (rpl_inputs_load(f, s->id, from, t, NULL, &in, &nin, err, sizeof err) == 0) {
        text_say(&tx, "# The inputs logged for ticks %llu to %llu of session %lld, applied before each "
                 "tick is stepped (tick %llu's produced the first divergent state, %llu).\n"
                 "# tick client seq: input\n", (unsigned long long)from,
                 (unsigned long long)(t - 1), (long long)s->id, (unsigned long long)(t - 1),
                 (unsigned long long)t);
        for (size_t i = 0; i < nin; i++) {
            char desc[256];
            rpl_input_describe(k, &in[i], desc, sizeof desc);
            text_say(&tx, "%llu %u %u: %s\n", (unsigned long long)in[i].tick, (unsigned)in[i].client,
                     (unsigned)in[i].seq, desc);
        }
        if (!nin) text_say(&tx, "# (none)\n");
    } else {
        text_say(&tx, "# cannot read the inputs: %s\n", err);
    }
    if (text_write(dir, "inputs.txt", &tx, err, sizeof err)) goto failed;
    /* phases.txt */
    text_say(&tx, "# The phases of the step of tick %llu (which produced tick %llu): the state hash "
             "after each, recorded (the file's phase table) and replayed here.\n# index phase "
             "recorded replayed verdict\n", (unsigned long long)(t - 1), (unsigned long long)t);
    if (!pc->ok) {
        text_say(&tx, "# not known: %s\n", pc->why);
    } else {
        size_t n = pc->nrec > pc->mine.n ? pc->nrec : pc->mine.n;
        for (size_t i = 0; i < n; i++) {
            const char *name = i < pc->mine.n ? pc->mine.v[i].name : pc->rec[i].name;
            char rec[20] = "-", rep[20] = "-";
            if (i < pc->nrec) snprintf(rec, sizeof rec, "%016llx", (unsigned long long)pc->rec[i].hash);
            if (i < pc->mine.n) snprintf(rep, sizeof rep, "%016llx", (unsigned long long)pc->mine.v[i].hash);
            text_say(&tx, "%zu %s %s %s %s\n", i, name, rec, rep,
                     !pc->nrec ? "not recorded" : (long)i == pc->first ? "FIRST DIFFERENT"
                     : (long)i < pc->first || pc->first < 0 ? "same" : "different");
        }
        if (!pc->nrec)
            text_say(&tx, "# the file holds no phase hashes: record with `viv sim --record FILE "
                     "--phases` to compare them\n");
    }
    if (text_write(dir, "phases.txt", &tx, err, sizeof err)) goto failed;
    /* README.txt */
    text_say(&tx, "Desync report: session %lld of %s\n", (long long)s->id, rpl_path(f));
    text_say(&tx, "  %s, seed %llu, params %s; recorded by sim %s%s%s, replayed by sim %s\n", s->kind,
             (unsigned long long)s->seed, s->params, s->sim_version, s->node[0] ? " on node " : "",
             s->node, SIM_VERSION);
    text_say(&tx, "\nFirst divergent tick: %llu, made by the step of tick %llu (every tick from %llu "
             "to %llu matched)\n", (unsigned long long)t, (unsigned long long)(t - 1),
             (unsigned long long)start, (unsigned long long)(t - 1));
    char hx[17];
    text_say(&tx, "  state hash  recorded %s  replayed %016llx\n", rpl_hash_hex(hx, fl->want_sh, fl->want_bits),
             (unsigned long long)fl->got_sh);
    if (!o->skip_frames)
        text_say(&tx, "  frame hash  recorded %s  replayed %016llx\n",
                 rpl_hash_hex(hx, fl->want_fh, fl->want_bits), (unsigned long long)fl->got_fh);
    {
        char ph[2048];
        size_t pl = 0;
        ph[0] = '\0';
        vrf_say_phases(pc, t, ph, sizeof ph, &pl);
        text_say(&tx, "%s", ph);
    }
    text_say(&tx, "\nFiles (the states are saved worlds, docs/STATE.md):\n");
    if (pc->before)
        text_say(&tx, "  before.state    the state at tick %llu, where the divergent step starts (the "
                 "replay's, equal to the recording's: its hash matched)\n", (unsigned long long)(t - 1));
    if (have_cp)
        text_say(&tx, "  recorded.state  the recorded checkpoint at tick %llu%s\n", (unsigned long long)at,
                 at == t ? "" : ", the first after the divergence");
    text_say(&tx, "  replayed.state  the replayed state at tick %llu\n", (unsigned long long)at);
    text_say(&tx, "  diff.txt        %s\n", have_cp ? "their field-by-field diff, recorded -> replayed"
                                                    : "why there is no field diff");
    text_say(&tx, "  inputs.txt      the logged inputs of ticks %llu to %llu\n", (unsigned long long)from,
             (unsigned long long)(t - 1));
    text_say(&tx, "  phases.txt      the phase hashes of the divergent step, recorded and replayed\n");
    text_say(&tx, "\nTo reproduce (replays from the checkpoint at tick %llu to the divergence):\n  ",
             (unsigned long long)start);
    text_say(&tx, "viv replay verify ");
    shell_word(&tx, rpl_path(f));
    text_say(&tx, " --session %lld --from %llu --to %llu --report ", (long long)s->id,
             (unsigned long long)start, (unsigned long long)t);
    shell_word(&tx, dir);
    text_say(&tx, "\n");
    if (text_write(dir, "README.txt", &tx, err, sizeof err)) goto failed;
    snprintf(res->bundle, sizeof res->bundle, "desync report written to %s/ (README.txt, %s%s"
             "replayed.state, diff.txt, inputs.txt, phases.txt)", dir,
             pc->before ? "before.state, " : "", have_cp ? "recorded.state, " : "");
    goto done;
failed:
    snprintf(res->bundle, sizeof res->bundle, "--report %s: %s", dir, err);
done:
    free(tx.p);
    free(in);
    free(mine);
    free(gaps);
    sim_world_destroy(w);
    rpl_checkpoint_free(&cp);
}

/* At tick 0 the recorded initial state must be what this build creates from (kind, seed,
 * params): a world is a pure function of those and the log. 0 equal, 1 differs (report), 2 not
 * re-creatable (a world built from a file: the recording is its only source), or a negative code. */
