/* viv_cycle.c — `viv cycle`: palette-cycling scene files. `convert` reads an IFF ILBM/PBM or a
 * Canvas Cycle JSON scene (or paints a procedural one) and writes it as either format, and as a
 * PNG with its palette at a chosen tick; `info` says what a scene file holds. The decoding and
 * encoding are the core's (sim/cycle/ilbm.c, sim/cycle/ccjson.c): this file only reads and writes files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "cli.h"
#include "opt.h"
#include "replay.h"
#include "files.h"
#include "cycle/scene.h"

static void cycle_head(FILE *out)
{
    fprintf(out,
        "usage: viv cycle convert IN OUT [--png FILE] [--tick T] [--scale S] [--pbm]\n"
        "       viv cycle convert --scene NAME [--seed N] [--size WxH] OUT [options]\n"
        "       viv cycle info IN\n"
        "\n"
        "Palette-cycling scenes (docs/cycle.md). IN and OUT are chosen by extension:\n"
        "  .lbm .iff .ilbm   IFF ILBM (planar; --pbm writes chunky PBM, as Deluxe Paint II did)\n"
        "  .json             a Canvas Cycle scene. In: JSON, or the JavaScript object literal\n"
        "                    Canvas Cycle's lbm2json writes, bare or wrapped (name({...}); or\n"
        "                    name = {...};), played by Canvas Cycle's own palette arithmetic,\n"
        "                    BlendShift on. Out: strict JSON that Canvas Cycle reads too.\n"
        "  .png              the picture only, with the scene's palette at tick T\n"
        "IN is recognised by its bytes, whatever its name. To play a file in a world:\n"
        "  viv sim --world cycle --params scene=file:IN ... (vivd: --world cycle:scene=file:IN)\n"
        "\n");
}

static void cycle_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "Exit status: 0 done, 1 a file could not be written, 2 bad usage or a bad input file.\n");
}

/* The command line of convert or info: the options (convert's) and the files. */
typedef struct cycle_args {
    int info;                          /* info: one file, no options */
    const char *files[2], *png, *scene;
    int nfiles, pbm;
    uint64_t tick, seed;
    long scale, sw, sh;
} cycle_args;

static int cycle_file(const opt_prog *p, const char *a)
{
    cycle_args *c = p->ud;
    if (c->nfiles == 2 - c->info) {
        if (c->info) fprintf(stderr, "viv cycle info: give one scene file (see viv cycle --help)\n");
        else fprintf(stderr, "viv cycle convert: too many files ('%s')\n", a);
        return OPT_BAD;
    }
    c->files[c->nfiles++] = a;
    return OPT_OK;
}

static int set_size(const opt_prog *p, const opt *o, const char *v)
{
    cycle_args *c = o->ptr;
    char xc = 0, tail;
    if (sscanf(v, "%ld%c%ld%c", &c->sw, &xc, &c->sh, &tail) != 3 || xc != 'x' || c->sw < 160 ||
        c->sw > 640 || c->sh < 90 || c->sh > 480) {
        fprintf(stderr, "viv cycle: --size needs WxH within 160x90..640x480, got '%s'\n", v);
        return OPT_BAD;
    }
    return OPT_OK;
}

/* argv (after the command) into c: convert's options and files, or (info, mode 1 of the table,
 * where every option is unknown) info's one file. OPT_OK, OPT_DONE (--help) or OPT_BAD (a
 * message printed). With `usage` set, only the help is printed there (OPT_DONE). */
static int cycle_parse(int info, int argc, char **argv, cycle_args *c, FILE *usage)
{
    memset(c, 0, sizeof *c);
    c->info = info;
    c->seed = 1;
    c->scale = 1;
    c->sw = 320;
    c->sh = 180;
    const opt table[] = {
        OPT_STR("--png", "FILE", &c->png, "also write the picture as an indexed PNG"),
        OPT_U64("--tick", "T", &c->tick,
                "palette of the PNG: after T ticks at 60 Hz, every active range\n"
                "cycling at speed 100 (default 0: the palette as stored)"),
        OPT_LONG("--scale", "S", &c->scale, 1, 16, "PNG pixel scale, 1..16 (default 1)"),
        OPT_FLAG("--pbm", &c->pbm, "write IFF as PBM (one byte a pixel) instead of planar ILBM"),
        OPT_STR("--scene", "NAME", &c->scene,
                "instead of IN: paint waterfall, fire or dusk from --seed N (default 1)\n"
                "at --size WxH (default 320x180), as `viv sim --world cycle` would"),
        OPT_U64("--seed", "N", &c->seed, "the seed --scene paints from (default 1)"),
        OPT_CALL("--size", "WxH", set_size, c, "the size --scene paints, 160x90..640x480 (default 320x180)"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv cycle", .opts = table, .column = 20, .head = cycle_head,
                            .tail = cycle_tail, .operand = cycle_file, .ud = c, .mode = info };
    if (usage) {
        opt_help(&prog, usage);
        return OPT_DONE;
    }
    return opt_parse(&prog, argc, argv);
}

static const char *ext_of(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

static int ext_is(const char *path, const char *a, const char *b, const char *c)
{
    const char *e = ext_of(path);
    return strcasecmp(e, a) == 0 || (b && strcasecmp(e, b) == 0) || (c && strcasecmp(e, c) == 0);
}

/* Write len bytes to path through a temporary name and a rename: never half a file. */
static int write_file(const char *path, const uint8_t *data, size_t len)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
        fprintf(stderr, "viv cycle: path too long: %s\n", path);
        return -1;
    }
    FILE *fp = fopen(tmp, "wb");
    if (!fp) {
        fprintf(stderr, "viv cycle: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    int ok = fwrite(data, 1, len, fp) == len;
    ok = (fclose(fp) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "viv cycle: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Read and decode a scene file; 0, or 2 after saying why. */
static int read_scene(const char *path, sim_cycle_scene *sc)
{
    uint8_t *data;
    size_t len;
    char err[512], notes[512];
    if (rpl_read_file(NULL, path, &data, &len, err, sizeof err) != 0) {
        fprintf(stderr, "viv cycle: %s\n", err);
        return 2;
    }
    int rc = sim_cycle_from_bytes(data, len, sc, notes, sizeof notes, err, sizeof err);
    free(data);
    if (rc) {
        fprintf(stderr, "viv cycle: %s: %s\n", path, err);
        return 2;
    }
    if (notes[0]) fprintf(stderr, "viv cycle: %s: note: %s\n", path, notes);
    return 0;
}

/* A procedural scene, painted by the cycle world itself: create a world and take its state. */
static int paint_scene(const char *name, uint64_t seed, int w, int h, sim_cycle_scene *sc)
{
    char params[128], err[256];
    snprintf(params, sizeof params, "scene=%s,w=%d,h=%d", name, w, h);
    sim_config cfg = sim_config_default();
    cfg.kind = "cycle";
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    if (strncmp(name, "file:", 5) == 0) {
        fprintf(stderr, "viv cycle: --scene takes waterfall, fire or dusk; give a file as IN\n");
        return 2;
    }
    sim_world *w0 = sim_world_create(&cfg, &rc);
    if (!w0) {
        fprintf(stderr, "viv cycle: %s\n", err);
        return 2;
    }
    rc = sim_cycle_world_scene(w0, sc);
    sim_world_destroy(w0);
    if (rc) {
        fprintf(stderr, "viv cycle: out of memory\n");
        return 1;
    }
    return 0;
}

static const char *const DIRS[] = { "forward", "reverse", "ping-pong", "sine half", "sine full" };

static int cmd_info(const char *path)
{
    sim_cycle_scene sc;
    int rc = read_scene(path, &sc);
    if (rc) return rc;
    int cc = sc.timing == SIM_CYCLE_TIMING_CANVAS;
    printf("%s: %ux%u, %u colours, %u cycle range%s, %s timing\n", path, (unsigned)sc.w,
           (unsigned)sc.h, (unsigned)sc.ncolors, (unsigned)sc.nranges, sc.nranges == 1 ? "" : "s",
           cc ? "Canvas Cycle" : "CRNG");
    for (int i = 0; i < sc.nranges; i++) {
        const sim_cycle_range *r = &sc.ranges[i];
        printf("  range %2d: entries %3u..%3u  rate %5u (%.2f steps/s)  %-9s %-8s %s\n", i,
               (unsigned)r->low, (unsigned)r->high, (unsigned)r->rate,
               cc ? r->rate / 280.0 : r->rate * 60.0 / 16384.0, DIRS[r->dir % 5],
               r->mode == SIM_CYCLE_BLEND ? "blend" : "standard", r->active ? "active" : "off");
    }
    sim_cycle_scene_free(&sc);
    return 0;
}

int cli_cycle_main(int argc, char **argv)
{
    cycle_args c;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cycle_parse(0, 0, NULL, &c, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    int info = strcmp(argv[1], "info") == 0;
    if (!info && strcmp(argv[1], "convert") != 0) {
        fprintf(stderr, "viv cycle: unknown command '%s' (convert, info; see viv cycle --help)\n",
                argv[1]);
        return 2;
    }
    int rc = cycle_parse(info, argc - 1, argv + 1, &c, NULL);
    if (rc != OPT_OK) return OPT_EXIT(rc);
    if (info) {
        if (c.nfiles != 1) {
            fprintf(stderr, "viv cycle info: give one scene file (see viv cycle --help)\n");
            return 2;
        }
        return cmd_info(c.files[0]);
    }
    const char *const *files = c.files, *png = c.png, *scene = c.scene;
    int nfiles = c.nfiles, pbm = c.pbm;
    uint64_t tick = c.tick, seed = c.seed;
    long scale = c.scale, sw = c.sw, sh = c.sh;
    const char *in = scene ? NULL : files[0], *out = scene ? files[0] : files[1];
    if ((scene && nfiles != 1) || (!scene && nfiles != 2)) {
        fprintf(stderr, "viv cycle convert: give IN and OUT, or --scene NAME and OUT "
                        "(see viv cycle --help)\n");
        return 2;
    }
    int out_iff = ext_is(out, "lbm", "iff", "ilbm"), out_json = ext_is(out, "json", NULL, NULL);
    int out_png = ext_is(out, "png", NULL, NULL);
    if (!out_iff && !out_json && !out_png) {
        fprintf(stderr, "viv cycle convert: %s: write .lbm/.iff/.ilbm, .json or .png\n", out);
        return 2;
    }
    sim_cycle_scene sc;
    rc = scene ? paint_scene(scene, seed, (int)sw, (int)sh, &sc) : read_scene(in, &sc);
    if (rc) return rc;
    int status = 0;
    if (out_iff || out_json) {
        const char *base = in ? strrchr(in, '/') : NULL;
        base = base ? base + 1 : in ? in : scene;
        size_t n = out_iff ? sim_cycle_to_ilbm(&sc, pbm, NULL, 0) : sim_cycle_to_ccjson(&sc, base, NULL, 0);
        uint8_t *buf = n ? malloc(n) : NULL;
        if (!buf) {
            fprintf(stderr, "viv cycle: out of memory for %zu bytes\n", n);
            status = 1;
        } else {
            if (out_iff) sim_cycle_to_ilbm(&sc, pbm, buf, n);
            else sim_cycle_to_ccjson(&sc, base, buf, n);
            if (write_file(out, buf, n) != 0) status = 1;
            free(buf);
        }
    }
    const char *pngs[2] = { out_png ? out : NULL, png };
    for (int k = 0; k < 2 && !status; k++) {
        if (!pngs[k]) continue;
        sim_frame f;
        char err[256];
        if (sim_frame_init(&f, sc.w, sc.h) != 0) {
            fprintf(stderr, "viv cycle: out of memory\n");
            status = 1;
            break;
        }
        memcpy(f.px, sc.px, (size_t)sc.w * sc.h);
        f.pal.count = sc.ncolors;
        sim_cycle_palette_at(&sc, tick, f.pal.rgb);
        if (rpl_png_write(pngs[k], &f, (int)scale, err, sizeof err) != 0) {
            fprintf(stderr, "viv cycle: %s\n", err);
            status = 1;
        }
        sim_frame_free(&f);
    }
    sim_cycle_scene_free(&sc);
    return status;
}
