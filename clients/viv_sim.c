/* viv_sim.c — `viv sim`: run a world headless, print its hash chain, optionally write a PNG.
 * This is the binary of the determinism matrix, so it also builds with VIV_NO_IMAGE (no libpng)
 * for the aarch64 cross build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "files.h"
#include "opt.h"
#include "pool.h"
#ifndef VIV_NO_IMAGE
#include "replay.h"
#endif

static void sim_head(FILE *out)
{
    fprintf(out,
        "usage: viv sim --world KIND [--seed N] [--ticks T] [--params P] [--inputs FILE]\n"
        "               [--every K] [--render-all] [--view NAME] [--threads N]\n"
#ifndef VIV_NO_IMAGE
        "               [--png OUT] [--gif OUT] [--webp OUT] [--gif-every K] [--scale S]\n"
        "               [--record FILE]\n"
#endif
        "       viv sim --list-kinds\n"
        "\n"
        "Runs a world with no server. After every K ticks, and after the last tick, prints\n"
        "  <tick> <state-hash, 16 hex> <frame-hash, 16 hex>\n"
        "where <tick> is the number of ticks stepped so far.\n"
        "\n");
}

/* Below the options: every kind's params and inputs. */
static void sim_tail(FILE *out)
{
    fprintf(out, "\n");
    for (int i = 0; i < sim_kind_count(); i++) {
        const sim_kind *k = sim_kind_at(i);
        fprintf(out, "%s (%u Hz) params:", k->name, (unsigned)k->hz);
        for (int p = 0; p < k->nparams; p++) {
            const sim_param_desc *d = &k->params[p];
            if (d->type == SIM_PARAM_INT)
                fprintf(out, " %s=%lld..%lld", d->name, (long long)d->min, (long long)d->max);
            else if (d->type == SIM_PARAM_ENUM) {
                fprintf(out, " %s=", d->name);
                for (int c = 0; d->choices[c]; c++) fprintf(out, "%s%s", c ? "|" : "", d->choices[c]);
            } else
                fprintf(out, " %s=TEXT", d->name);
        }
        fprintf(out, "\n  inputs:");
        for (int n = 0; n < k->ninputs; n++) {
            fprintf(out, " %s", k->inputs[n].name);
            for (int a = 0; a < k->inputs[n].nargs; a++) fprintf(out, " %s", k->inputs[n].args[a].name);
            fprintf(out, n + 1 < k->ninputs ? ";" : "\n");
        }
    }
}

/* --list-kinds: the one list of kinds, for scripts (tests/golden.sh, tests/cross.sh): the name
 * first, so `awk '{print $1}'` gives the names. */
static int list_kinds(const opt_prog *p, const opt *o, const char *v)
{
    for (int k = 0; k < sim_kind_count(); k++)
        printf("%s %u %u\n", sim_kind_at(k)->name, (unsigned)sim_kind_at(k)->id,
               (unsigned)sim_kind_at(k)->hz);
    return OPT_DONE;
}

#ifndef VIV_NO_IMAGE
#ifndef VIV_NO_IMAGE
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
#endif

static int set_gif_every(const opt_prog *p, const opt *o, const char *v)
{
    long k;
    if (opt_parse_long(p->who, o->name, v, 1, 100000, &k)) return OPT_BAD;
    *(uint64_t *)o->ptr = (uint64_t)k;
    return OPT_OK;
}
#endif

/* ---- the command line ---------------------------------------------------------------------- */
/* What the command line asks for (run_parse, run_check). */
typedef struct run_opts {
    const char *kind, *params, *inputs_path, *png, *view_name, *gif_path, *webp_path, *record_path;
    uint64_t seed, ticks, every, gif_every;
    long scale, threads, mmpx;
    int render_all;
    int events;                /* --events: each step's world events, before its hash line */
    int phases;                /* --phases: record a hash after each phase of every step */
    int64_t record_format;     /* --record-format: 4 (default), or 3 (schema 3's rows) */
    char kinds[256];           /* --world's help: "world kind: sand terrarium …" */
} run_opts;

/* The command line into o, every value checked as it comes (opt.h): OPT_OK, OPT_DONE (--help or
 * --list-kinds printed) or OPT_BAD (a message printed). */
static int run_parse(run_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->params = "";
    o->seed = 1;
    o->record_format = 4;
    o->ticks = 600;
    o->scale = 1;
    o->mmpx = 1;
    o->threads = pool_default_workers();
    int kn = snprintf(o->kinds, sizeof o->kinds, "world kind:");
    for (int i = 0; i < sim_kind_count() && kn > 0 && (size_t)kn < sizeof o->kinds; i++)
        kn += snprintf(o->kinds + kn, sizeof o->kinds - (size_t)kn, " %s", sim_kind_at(i)->name);
    const opt table[] = {
        OPT_CALL("--list-kinds", NULL, list_kinds, NULL,
                 "print the world kinds, one a line: <name> <id> <hz>, in registry order\n"
                 "(sim/kinds.h); scripts take the names with `awk '{print $1}'`"),
        OPT_STR("--world", "KIND", &o->kind, o->kinds),
        OPT_U64("--seed", "N", &o->seed, "world seed (default 1)"),
        OPT_U64("--ticks", "T", &o->ticks, "ticks to run (default 600)"),
        OPT_STR("--params", "P", &o->params, "key=value,... world params (see below)"),
        OPT_STR("--inputs", "FILE", &o->inputs_path,
                "one input per line: <tick> <input> <args...>, e.g.\n"
                "`120 paint 160 20 5 sand`; '#' starts a comment. The whole file is\n"
                "checked before tick 0; a bad line is reported as FILE:LINE: reason."),
        OPT_U64("--every", "K", &o->every, "print every K ticks (default 0: only after the last tick)"),
        OPT_FLAG("--render-all", &o->render_all,
                 "render every tick, as the server does (default: printed ticks only)"),
        OPT_FLAG("--events", &o->events,
                 "print each step's world events as they happen, one a line, between the\n"
                 "hash lines in tick order: `event <tick> <name> key=value ...` (the\n"
                 "terrarium's brain changes, merges, pokes; docs/PROTOCOL.md lists them)"),
        OPT_STR("--view", "NAME", &o->view_name, "render layer (default: the normal picture)"),
        OPT_LONG("--threads", "N", &o->threads, 1, POOL_WORKERS_MAX,
                 "workers for the world's parallel passes (sand's strips), the calling\n"
                 "thread included: 1 runs them inline; default: one per CPU, at most "
                 OPT_STRINGIFY(POOL_DEFAULT_MAX) ".\n"
                 "The hashes, frames and recording are the same for every N"),
#ifndef VIV_NO_IMAGE
        OPT_STR("--png", "OUT", &o->png, "write the last frame as an indexed PNG"),
        OPT_STR("--gif", "OUT", &o->gif_path,
                "write an animated GIF of the run (the world's own palette, real delays)"),
        OPT_STR("--webp", "OUT", &o->webp_path,
                "write an animated WebP of the run (lossless, libwebp; the GIF's frames)"),
        OPT_CALL("--gif-every", "K", set_gif_every, &o->gif_every,
                 "one GIF (and WebP) frame every K ticks (default: the fewest ticks that are at least\n"
                 "2/100 s, since browsers slow faster GIFs down: 2 at 60 Hz, 1 at 40 Hz)"),
        OPT_LONG("--scale", "S", &o->scale, 1, 16, "PNG/GIF pixel scale, 1..16 (default 1)"),
        OPT_CALL("--mmpx", "N", set_mmpx, &o->mmpx,
                 "magnify the PNG/GIF frames N times (2 or 4) with MMPX before --scale:\n"
                 "the world's own palette, edges and 1-px lines kept sharp (default 1: not)"),
        OPT_STR("--record", "FILE", &o->record_path,
                "record the run in a replay file (docs/REPLAY.md): the inputs, a state\n"
                "and frame hash every tick, a checkpoint every 60 s of world time (a\n"
                "world bigger than 640x480: 60 s / its 640x480s, at least 20 s);\n"
                "check it with `viv replay verify FILE`"),
        OPT_LONG("--record-format", "N", &o->record_format, 3, 4,
                 "with --record: 4 (default): hashes in blocks, checkpoints as deltas;\n"
                 "3: the rows of schema 3 (a row of two whole hashes a tick, a whole\n"
                 "checkpoint every 10 s), into a file of schema 4, to compare sizes"),
        OPT_FLAG("--phases", &o->phases,
                 "with --record: heavy mode, also record the state hash after each phase\n"
                 "of every step (sand's strip phases, the terrarium's brains and solver),\n"
                 "so that `viv replay verify` names the phase a desync began in, on any\n"
                 "machine (docs/REPLAY.md, \"Phase hashes\"); the run is the same"),
#endif
        OPT_END
    };
    const opt_prog prog = { .who = "viv sim", .opts = table, .column = 19, .head = sim_head,
                            .tail = sim_tail };
    return opt_parse(&prog, argc, argv);
}

/* What no single option can check: a world to run. 0, or 2 after a message. */
static int run_check(const run_opts *o)
{
    if (!o->kind) {
        fprintf(stderr, "viv sim: --world KIND is required (see viv sim --help)\n");
        return 2;
    }
    return 0;
}

/* ---- the run ------------------------------------------------------------------------------- */
/* A run: the workers, the world, the inputs it takes, the frame it renders, and the GIF and the
 * recording that watch it. All NULL or empty until made, so run_stop frees a run stopped at any
 * step. */
typedef struct run_state {
    pool *workers;
    sim_world *w;
    int view;                  /* the render layer */
    int render_all;            /* render every tick: --render-all, or a recording's frame hashes */
    cli_inputs in;
    size_t next;               /* in.v[next] is the next input to apply */
    sim_frame frame;
#ifndef VIV_NO_IMAGE
    sim_frame up[2];           /* --mmpx: the frame magnified 2× and 4× for the PNG and GIF */
    rpl_gif *gif;
    rpl_webp *webp;
    uint64_t gif_every;        /* the GIF's and the WebP's frame cadence */
    rpl_recorder *rec;
    int64_t session;
    uint64_t cp_every;         /* a checkpoint every cp_every ticks: 60 s of world time (less, big) */
    uint8_t *cpbuf;
    size_t cpcap;
    rpl_phase ph[32];          /* --phases: the phase hashes of the step just run */
    size_t nph;
#endif
} run_state;

#ifndef VIV_NO_IMAGE
/* The phase hook of --phases: collects the step's phase hashes for run_record_tick. */
static void run_phase(void *user, uint64_t tick, int index, const char *phase, uint64_t hash)
{
    run_state *r = user;
    if (index == 0) r->nph = 0;
    if (r->nph == sizeof r->ph / sizeof r->ph[0]) return;
    snprintf(r->ph[r->nph].name, sizeof r->ph[r->nph].name, "%s", phase);
    r->ph[r->nph++].hash = hash;
}
#endif

/* The workers, the world, its view, its inputs and its frame. 0, or the exit status after a
 * message: 2 for what the command line asked that cannot be, 1 for what failed. */
static int run_start(run_state *r, const run_opts *o)
{
    char err[256];
    memset(r, 0, sizeof *r);
    r->render_all = o->render_all;
    if (o->threads > 1 && pool_create((int)o->threads, &r->workers, err, sizeof err) != 0) {
        fprintf(stderr, "viv sim: --threads %ld: %s\n", o->threads, err);
        return 1;
    }
    sim_config cfg = sim_config_default();
    cfg.kind = o->kind;
    cfg.tasks = pool_tasks(r->workers);
    cfg.seed = o->seed;
    cfg.params = o->params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    cfg.files = &rpl_files;                  /* scene=file:PATH reads PATH */
    int rc;
    r->w = sim_world_create(&cfg, &rc);
    if (!r->w) {
        fprintf(stderr, "viv sim: %s\n", err[0] ? err : sim_strerror(rc));
        return 2;
    }
    if (o->view_name) {
        const sim_kind *k = sim_world_kind(r->w);
        r->view = sim_kind_view_find(k, o->view_name);
        if (r->view < 0) {
            fprintf(stderr, "viv sim: %s has no view '%s' (views:", k->name, o->view_name);
            for (int i = 0; i < k->nviews; i++) fprintf(stderr, " %s", k->views[i]);
            fprintf(stderr, ")\n");
            return 2;
        }
    }
    if (o->inputs_path && cli_inputs_load(o->inputs_path, r->w, &r->in) != 0) return 2;
    if (sim_world_frame_init(r->w, &r->frame) != 0) {
        fprintf(stderr, "viv sim: out of memory for the frame\n");
        return 1;
    }
#ifndef VIV_NO_IMAGE
    if (rpl_magnify_init(&r->frame, (int)o->mmpx, r->up) != 0) {
        fprintf(stderr, "viv sim: out of memory for the magnified frame\n");
        return 1;
    }
#endif
    return 0;
}

/* --gif and --record, opened once the world and its frame are made (a build without images has
 * neither). 0, or the exit status after a message. */
static int run_open_outputs(run_state *r, const run_opts *o)
{
#ifndef VIV_NO_IMAGE
    char err[256];
    const sim_kind *k = sim_world_kind(r->w);
    r->gif_every = o->gif_every ? o->gif_every : (2u * k->hz + 99u) / 100u;
    int aw = r->frame.w * (int)o->mmpx, ah = r->frame.h * (int)o->mmpx;
    if (o->gif_path) {
        r->gif = rpl_gif_open(o->gif_path, aw, ah, (int)o->scale, k->hz, (unsigned)r->gif_every, err, sizeof err);
        if (!r->gif) {
            fprintf(stderr, "viv sim: %s\n", err);
            return 1;
        }
    }
    if (o->webp_path) {
        r->webp = rpl_webp_open(o->webp_path, aw, ah, (int)o->scale, k->hz, (unsigned)r->gif_every, err, sizeof err);
        if (!r->webp) {
            fprintf(stderr, "viv sim: %s\n", err);
            return 1;
        }
    }
    r->cp_every = o->record_format == 3 ? (uint64_t)RPL_CHECKPOINT_SECONDS_3 * k->hz
                                        : rpl_checkpoint_every(r->w);
    if (o->record_path) {
        rpl_rec_config rc_cfg;
        memset(&rc_cfg, 0, sizeof rc_cfg);
        rc_cfg.path = o->record_path;
        rc_cfg.phases = o->phases;
        rc_cfg.legacy = o->record_format == 3;
        r->session = -1;
        r->rec = rpl_recorder_open(&rc_cfg, err, sizeof err);
        if (r->rec)
            r->session = rpl_recorder_begin(r->rec, r->w, "viv sim", -1, r->cp_every, err, sizeof err);
        r->cpcap = sim_world_save_max(r->w);
        r->cpbuf = malloc(r->cpcap);
        if (!r->rec || r->session < 0 || !r->cpbuf) {
            fprintf(stderr, "viv sim: --record %s: %s\n", o->record_path,
                    r->cpbuf ? err : "out of memory");
            return 2;
        }
        r->render_all = 1;                   /* every tick's frame hash goes into the log */
        if (o->phases) {
            sim_phase_hook h = { run_phase, r };
            sim_world_set_phases(r->w, &h);
        }
    } else if (o->phases) {
        fprintf(stderr, "viv sim: --phases records phase hashes: it needs --record FILE\n");
        return 2;
    }
#endif
    return 0;
}

#ifndef VIV_NO_IMAGE
/* Tick t into the recording: the inputs its step applied, its hashes, and a checkpoint every
 * cp_every ticks. 0, or 1 after a message. */
static int run_record_tick(run_state *r, const run_opts *o, uint64_t t, uint64_t sh, uint64_t fh)
{
    /* A checkpoint is handed to the recorder, not copied (a big world's is tens of MB): the
     * buffer comes back from it for a later one (rpl_recorder_cp_buffer). */
    int want_cp = (t + 1) % r->cp_every == 0;
    if (want_cp && !r->cpbuf) r->cpbuf = rpl_recorder_cp_buffer(r->rec, r->cpcap);
    size_t cplen = want_cp && r->cpbuf ? sim_world_save(r->w, r->cpbuf, r->cpcap) : 0;
    /* The log takes the inputs from the world: what the step of t applied, in the order it
     * applied them ((client, seq); a file's inputs have client 0 and seq = line number, so file
     * order within a tick). */
    const sim_input *applied;
    size_t napplied = sim_world_applied(r->w, &applied);
    /* A recorder that cannot write keeps taking ticks (vivd's worlds go on): a recording made
     * here has no reason to carry a gap, so the first failure ends it. */
    char why[256] = "";
    int rc;
    if (cplen) {
        rc = rpl_recorder_tick_own(r->rec, r->session, t, applied, napplied, sh, fh, r->cpbuf, cplen,
                                   r->cpcap, r->ph, o->phases ? r->nph : 0);
        r->cpbuf = NULL;
    } else {
        rc = rpl_recorder_tick_phases(r->rec, r->session, t, applied, napplied, sh, fh, NULL, 0, r->ph,
                                      o->phases ? r->nph : 0);
    }
    if (rc != 0 || rpl_recorder_failing(r->rec, why, sizeof why)) {
        fprintf(stderr, "viv sim: --record %s: %s\n", o->record_path,
                why[0] ? why : "cannot queue the tick");
        return 1;
    }
    return 0;
}
#endif

/* The events of the step just run, one line each; a step that had more than SIM_EVENTS_MAX says
 * how many were not kept. */
static void run_events(const sim_world *w)
{
    const sim_event *ev;
    uint32_t dropped;
    int n = sim_world_events(w, &ev, &dropped);
    char line[512];
    for (int i = 0; i < n; i++) {
        cli_event_line(&ev[i], line, sizeof line);
        printf("%s\n", line);
    }
    if (dropped)
        printf("event %llu dropped count=%u\n", (unsigned long long)(n ? ev[0].tick : sim_world_tick(w) - 1),
               (unsigned)dropped);
}

/* Tick t: its inputs, the step, and what watches it: the printed line, the GIF, the recording.
 * 0, or 1 after a message. */
static int run_tick(run_state *r, const run_opts *o, uint64_t t)
{
    for (; r->next < r->in.n && r->in.v[r->next].tick == t; r->next++) {
        if (sim_world_input(r->w, &r->in.v[r->next]) != 0) {
            fprintf(stderr, "%s:%u: %s\n", o->inputs_path, (unsigned)r->in.v[r->next].seq,
                    sim_world_error(r->w));
            return 1;
        }
    }
    sim_world_step(r->w);
    if (o->events) run_events(r->w);
    uint64_t done = t + 1;
    int print = (o->every && done % o->every == 0) || done == o->ticks;
    int gif_now = 0;
#ifndef VIV_NO_IMAGE
    gif_now = (r->gif || r->webp) && (done - 1) % r->gif_every == 0;
#endif
    if (print || r->render_all || gif_now) sim_world_render(r->w, r->view, &r->frame);
#ifndef VIV_NO_IMAGE
    const sim_frame *big = gif_now ? rpl_magnify(&r->frame, (int)o->mmpx, r->up) : NULL;
    if (big && r->gif && rpl_gif_frame(r->gif, big) != 0) {
        fprintf(stderr, "viv sim: %s\n", rpl_gif_error(r->gif));
        return 1;
    }
    if (big && r->webp && rpl_webp_frame(r->webp, big) != 0) {
        fprintf(stderr, "viv sim: %s\n", rpl_webp_error(r->webp));
        return 1;
    }
#endif
    uint64_t sh = 0, fh = 0;
    if (print || o->record_path) {
        sh = sim_world_hash(r->w);
        fh = sim_frame_hash(&r->frame);
    }
    if (print) printf("%llu %016llx %016llx\n", (unsigned long long)done, (unsigned long long)sh,
                      (unsigned long long)fh);
#ifndef VIV_NO_IMAGE
    if (r->rec) return run_record_tick(r, o, t, sh, fh);
#endif
    return 0;
}

/* After the last tick: tick 0's line when no tick ran, the inputs left over, then stdout, the PNG
 * and the GIF finished. 0, or 1 after a message (each is tried all the same). */
static int run_report(run_state *r, const run_opts *o)
{
    int status = 0;
    if (o->ticks == 0) {
        sim_world_render(r->w, r->view, &r->frame);
        printf("0 %016llx %016llx\n", (unsigned long long)sim_world_hash(r->w),
               (unsigned long long)sim_frame_hash(&r->frame));
    }
    if (r->next < r->in.n)
        fprintf(stderr, "viv sim: %zu input(s) at tick %llu or later were not applied (--ticks %llu)\n",
                r->in.n - r->next, (unsigned long long)r->in.v[r->next].tick,
                (unsigned long long)o->ticks);
    if (fflush(stdout) != 0) {
        perror("viv sim: stdout");
        status = 1;
    }
#ifndef VIV_NO_IMAGE
    char err[256];
    if (o->png && rpl_png_write(o->png, rpl_magnify(&r->frame, (int)o->mmpx, r->up), (int)o->scale, err,
                                sizeof err) != 0) {
        fprintf(stderr, "viv sim: %s\n", err);
        status = 1;
    }
    if (r->gif) {
        if (rpl_gif_close(r->gif, err, sizeof err) != 0) {
            fprintf(stderr, "viv sim: %s\n", err);
            status = 1;
        }
        r->gif = NULL;
    }
    if (r->webp) {
        if (rpl_webp_close(r->webp, err, sizeof err) != 0) {
            fprintf(stderr, "viv sim: %s\n", err);
            status = 1;
        }
        r->webp = NULL;
    }
#endif
    return status;
}

/* Everything the run made, freed: an unfinished GIF dropped, the recording ended and closed
 * (said so on stderr). Returns the exit status: status, or 1 when the recording could not be
 * written whole. */
static int run_stop(run_state *r, const run_opts *o, int status)
{
#ifndef VIV_NO_IMAGE
    if (r->gif) rpl_gif_abort(r->gif);
    if (r->webp) rpl_webp_abort(r->webp);
    if (r->rec) {
        rpl_recorder_end(r->rec, r->session);
        if (rpl_recorder_close(r->rec) != 0) {
            fprintf(stderr, "viv sim: --record %s: some ticks could not be written (see the gap table)\n",
                    o->record_path);
            if (!status) status = 1;
        } else if (!status) {
            fprintf(stderr, "viv sim: recorded session %lld in %s\n", (long long)r->session,
                    o->record_path);
        }
    }
    free(r->cpbuf);
#endif
    sim_frame_free(&r->frame);
#ifndef VIV_NO_IMAGE
    rpl_magnify_free(r->up);
#endif
    cli_inputs_free(&r->in);
    sim_world_destroy(r->w);
    pool_destroy(r->workers);
    return status;
}

int cli_sim_main(int argc, char **argv)
{
    run_opts o;
    int rc = run_parse(&o, argc, argv);
    if (rc != OPT_OK) return OPT_EXIT(rc);
    if (run_check(&o) != 0) return 2;
    run_state r;
    int status = run_start(&r, &o);
    if (status == 0) status = run_open_outputs(&r, &o);
    for (uint64_t t = 0; status == 0 && t < o.ticks; t++) status = run_tick(&r, &o, t);
    if (status == 0) status = run_report(&r, &o);
    return run_stop(&r, &o, status);
}
