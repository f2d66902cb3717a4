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
        "               [--png OUT] [--gif OUT] [--gif-every K] [--scale S] [--record FILE]\n"
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
static int set_gif_every(const opt_prog *p, const opt *o, const char *v)
{
    long k;
    if (opt_parse_long(p->who, o->name, v, 1, 100000, &k)) return OPT_BAD;
    *(uint64_t *)o->ptr = (uint64_t)k;
    return OPT_OK;
}
#endif

int cli_sim_main(int argc, char **argv)
{
    const char *kind = NULL, *params = "", *inputs_path = NULL, *png = NULL, *view_name = NULL;
    const char *gif_path = NULL, *record_path = NULL;
    uint64_t seed = 1, ticks = 600, every = 0, gif_every = 0;
    long scale = 1, threads = pool_default_workers();
    int render_all = 0;
#ifndef VIV_NO_IMAGE
    rpl_recorder *rec = NULL;
    int64_t session = -1;
    uint64_t cp_every = 600;
    uint8_t *cpbuf = NULL;
    size_t cpcap = 0;
#endif
    char kinds[256];
    int kn = snprintf(kinds, sizeof kinds, "world kind:");
    for (int i = 0; i < sim_kind_count() && kn > 0 && (size_t)kn < sizeof kinds; i++)
        kn += snprintf(kinds + kn, sizeof kinds - (size_t)kn, " %s", sim_kind_at(i)->name);
    const opt table[] = {
        OPT_CALL("--list-kinds", NULL, list_kinds, NULL,
                 "print the world kinds, one a line: <name> <id> <hz>, in registry order\n"
                 "(sim/kinds.h); scripts take the names with `awk '{print $1}'`"),
        OPT_STR("--world", "KIND", &kind, kinds),
        OPT_U64("--seed", "N", &seed, "world seed (default 1)"),
        OPT_U64("--ticks", "T", &ticks, "ticks to run (default 600)"),
        OPT_STR("--params", "P", &params, "key=value,... world params (see below)"),
        OPT_STR("--inputs", "FILE", &inputs_path,
                "one input per line: <tick> <input> <args...>, e.g.\n"
                "`120 paint 160 20 5 sand`; '#' starts a comment. The whole file is\n"
                "checked before tick 0; a bad line is reported as FILE:LINE: reason."),
        OPT_U64("--every", "K", &every, "print every K ticks (default 0: only after the last tick)"),
        OPT_FLAG("--render-all", &render_all,
                 "render every tick, as the server does (default: printed ticks only)"),
        OPT_STR("--view", "NAME", &view_name, "render layer (default: the normal picture)"),
        OPT_LONG("--threads", "N", &threads, 1, POOL_WORKERS_MAX,
                 "workers for the world's parallel passes (sand's strips), the calling\n"
                 "thread included: 1 runs them inline; default: one per CPU, at most "
                 OPT_STRINGIFY(POOL_DEFAULT_MAX) ".\n"
                 "The hashes, frames and recording are the same for every N"),
#ifndef VIV_NO_IMAGE
        OPT_STR("--png", "OUT", &png, "write the last frame as an indexed PNG"),
        OPT_STR("--gif", "OUT", &gif_path,
                "write an animated GIF of the run (the world's own palette, real delays)"),
        OPT_CALL("--gif-every", "K", set_gif_every, &gif_every,
                 "one GIF frame every K ticks (default: the fewest ticks that are at least\n"
                 "2/100 s, since browsers slow faster GIFs down: 2 at 60 Hz, 1 at 40 Hz)"),
        OPT_LONG("--scale", "S", &scale, 1, 16, "PNG/GIF pixel scale, 1..16 (default 1)"),
        OPT_STR("--record", "FILE", &record_path,
                "record the run in a replay file (docs/REPLAY.md): the inputs, a state\n"
                "and frame hash every tick, a checkpoint every 10 s of world time;\n"
                "check it with `viv replay verify FILE`"),
#endif
        OPT_END
    };
    const opt_prog prog = { .who = "viv sim", .opts = table, .column = 19, .head = sim_head,
                            .tail = sim_tail };
    int prc = opt_parse(&prog, argc, argv);
    if (prc != OPT_OK) return OPT_EXIT(prc);
    if (!kind) {
        fprintf(stderr, "viv sim: --world KIND is required (see viv sim --help)\n");
        return 2;
    }
    char err[256];
    pool *workers = NULL;
    if (threads > 1 && pool_create((int)threads, &workers, err, sizeof err) != 0) {
        fprintf(stderr, "viv sim: --threads %ld: %s\n", threads, err);
        return 1;
    }
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.tasks = pool_tasks(workers);
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    cfg.files = &rpl_files;                  /* scene=file:PATH reads PATH */
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    if (!w) {
        fprintf(stderr, "viv sim: %s\n", err[0] ? err : sim_strerror(rc));
        pool_destroy(workers);
        return 2;
    }
    int view = 0;
    if (view_name) {
        view = sim_kind_view_find(sim_world_kind(w), view_name);
        if (view < 0) {
            const sim_kind *k = sim_world_kind(w);
            fprintf(stderr, "viv sim: %s has no view '%s' (views:", k->name, view_name);
            for (int i = 0; i < k->nviews; i++) fprintf(stderr, " %s", k->views[i]);
            fprintf(stderr, ")\n");
            sim_world_destroy(w);
            pool_destroy(workers);
            return 2;
        }
    }
    cli_inputs in = { 0 };
    if (inputs_path && cli_inputs_load(inputs_path, w, &in) != 0) {
        sim_world_destroy(w);
        pool_destroy(workers);
        return 2;
    }
    sim_frame frame;
    if (sim_world_frame_init(w, &frame) != 0) {
        fprintf(stderr, "viv sim: out of memory for the frame\n");
        cli_inputs_free(&in);
        sim_world_destroy(w);
        pool_destroy(workers);
        return 1;
    }
    size_t next = 0;
    int status = 0;
#ifndef VIV_NO_IMAGE
    rpl_gif *gif = NULL;
    if (gif_path) {
        const sim_kind *k = sim_world_kind(w);
        if (!gif_every) gif_every = (2u * k->hz + 99u) / 100u;
        gif = rpl_gif_open(gif_path, frame.w, frame.h, (int)scale, k->hz, (unsigned)gif_every, err,
                           sizeof err);
        if (!gif) {
            fprintf(stderr, "viv sim: %s\n", err);
            status = 1;
            goto out;
        }
    }
    cp_every = 10u * sim_world_kind(w)->hz;
    if (record_path) {
        rpl_rec_config rc_cfg;
        memset(&rc_cfg, 0, sizeof rc_cfg);
        rc_cfg.path = record_path;
        rec = rpl_recorder_open(&rc_cfg, err, sizeof err);
        if (rec) session = rpl_recorder_begin(rec, w, "viv sim", -1, cp_every, err, sizeof err);
        cpcap = sim_world_save_max(w);
        cpbuf = malloc(cpcap);
        if (!rec || session < 0 || !cpbuf) {
            fprintf(stderr, "viv sim: --record %s: %s\n", record_path, cpbuf ? err : "out of memory");
            status = 2;
            goto out;
        }
        render_all = 1;                      /* every tick's frame hash goes into the log */
    }
#else
    (void)gif_path; (void)gif_every; (void)record_path;
#endif
    for (uint64_t t = 0; t < ticks; t++) {
        for (; next < in.n && in.v[next].tick == t; next++) {
            if (sim_world_input(w, &in.v[next]) != 0) {
                fprintf(stderr, "%s:%u: %s\n", inputs_path, (unsigned)in.v[next].seq,
                        sim_world_error(w));
                status = 1;
                goto out;
            }
        }
        sim_world_step(w);
        uint64_t done = t + 1;
        int print = (every && done % every == 0) || done == ticks;
        int gif_now = 0;
#ifndef VIV_NO_IMAGE
        gif_now = gif && (done - 1) % gif_every == 0;
#endif
        if (print || render_all || gif_now) sim_world_render(w, view, &frame);
#ifndef VIV_NO_IMAGE
        if (gif_now && rpl_gif_frame(gif, &frame) != 0) {
            fprintf(stderr, "viv sim: %s\n", rpl_gif_error(gif));
            rpl_gif_abort(gif);
            gif = NULL;
            status = 1;
            goto out;
        }
#endif
        uint64_t sh = 0, fh = 0;
        if (print || record_path) {
            sh = sim_world_hash(w);
            fh = sim_frame_hash(&frame);
        }
        if (print) printf("%llu %016llx %016llx\n", (unsigned long long)done, (unsigned long long)sh,
                          (unsigned long long)fh);
#ifndef VIV_NO_IMAGE
        if (rec) {
            size_t cplen = done % cp_every == 0 ? sim_world_save(w, cpbuf, cpcap) : 0;
            /* The log takes the inputs from the world: what the step of t applied, in the
             * order it applied them ((client, seq); a file's inputs have client 0 and seq = line
             * number, so file order within a tick). */
            const sim_input *applied;
            size_t napplied = sim_world_applied(w, &applied);
            if (rpl_recorder_tick(rec, session, t, applied, napplied, sh, fh,
                                  cplen ? cpbuf : NULL, cplen) != 0) {
                char why[256] = "";
                rpl_recorder_failing(rec, why, sizeof why);
                fprintf(stderr, "viv sim: --record %s: %s\n", record_path, why[0] ? why : "cannot queue the tick");
                status = 1;
                goto out;
            }
        }
#endif
    }
    if (ticks == 0) {
        sim_world_render(w, view, &frame);
        printf("0 %016llx %016llx\n", (unsigned long long)sim_world_hash(w),
               (unsigned long long)sim_frame_hash(&frame));
    }
    if (next < in.n)
        fprintf(stderr, "viv sim: %zu input(s) at tick %llu or later were not applied (--ticks %llu)\n",
                in.n - next, (unsigned long long)in.v[next].tick, (unsigned long long)ticks);
    if (fflush(stdout) != 0) {
        perror("viv sim: stdout");
        status = 1;
    }
#ifndef VIV_NO_IMAGE
    if (png) {
        if (rpl_png_write(png, &frame, (int)scale, err, sizeof err) != 0) {
            fprintf(stderr, "viv sim: %s\n", err);
            status = 1;
        }
    }
    if (gif) {
        if (rpl_gif_close(gif, err, sizeof err) != 0) {
            fprintf(stderr, "viv sim: %s\n", err);
            status = 1;
        }
        gif = NULL;
    }
#else
    (void)png; (void)scale;
#endif
out:
#ifndef VIV_NO_IMAGE
    if (gif) rpl_gif_abort(gif);
    if (rec) {
        rpl_recorder_end(rec, session);
        if (rpl_recorder_close(rec) != 0) {
            fprintf(stderr, "viv sim: --record %s: some ticks could not be written (see the gap table)\n",
                    record_path);
            if (!status) status = 1;
        } else if (!status) {
            fprintf(stderr, "viv sim: recorded session %lld in %s\n", (long long)session, record_path);
        }
    }
    free(cpbuf);
#endif
    sim_frame_free(&frame);
    cli_inputs_free(&in);
    sim_world_destroy(w);
    pool_destroy(workers);
    return status;
}
