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
#include "replay.h"
#include "files.h"
#include "cycle/scene.h"

static void cycle_usage(FILE *out)
{
    fprintf(out,
        "usage: viv cycle convert IN OUT [--png FILE] [--tick T] [--scale S] [--pbm]\n"
        "       viv cycle convert --scene NAME [--seed N] [--size WxH] OUT [options]\n"
        "       viv cycle info IN\n"
        "\n"
        "Palette-cycling scenes (docs/cycle.md). IN and OUT are chosen by extension:\n"
        "  .lbm .iff .ilbm   IFF ILBM (planar; --pbm writes chunky PBM, as Deluxe Paint II did)\n"
        "  .json             Canvas Cycle scene JSON (JSONP-wrapped input is accepted)\n"
        "  .png              the picture only, with the scene's palette at tick T\n"
        "IN is recognised by its bytes, whatever its name.\n"
        "\n"
        "  --png FILE        also write the picture as an indexed PNG\n"
        "  --tick T          palette of the PNG: after T ticks at 60 Hz, every active range\n"
        "                    cycling at speed 100 (default 0: the palette as stored)\n"
        "  --scale S         PNG pixel scale, 1..16 (default 1)\n"
        "  --pbm             write IFF as PBM (one byte a pixel) instead of planar ILBM\n"
        "  --scene NAME      instead of IN: paint waterfall, fire or dusk from --seed N (default 1)\n"
        "                    at --size WxH (default 320x180), as `viv sim --world cycle` would\n"
        "\n"
        "Exit status: 0 done, 1 a file could not be written, 2 bad usage or a bad input file.\n");
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

static const char *const DIRS[] = { "forward", "reverse", "ping-pong" };

static int cmd_info(const char *path)
{
    sim_cycle_scene sc;
    int rc = read_scene(path, &sc);
    if (rc) return rc;
    printf("%s: %ux%u, %u colours, %u cycle range%s\n", path, (unsigned)sc.w, (unsigned)sc.h,
           (unsigned)sc.ncolors, (unsigned)sc.nranges, sc.nranges == 1 ? "" : "s");
    for (int i = 0; i < sc.nranges; i++) {
        const sim_cycle_range *r = &sc.ranges[i];
        printf("  range %2d: entries %3u..%3u  rate %5u (%.2f steps/s)  %-9s %-8s %s\n", i,
               (unsigned)r->low, (unsigned)r->high, (unsigned)r->rate, r->rate * 60.0 / 16384.0,
               DIRS[r->dir % 3], r->mode == SIM_CYCLE_BLEND ? "blend" : "standard",
               r->active ? "active" : "off");
    }
    sim_cycle_scene_free(&sc);
    return 0;
}

int cli_cycle_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cycle_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "info") == 0) {
        if (argc != 3) {
            fprintf(stderr, "viv cycle info: give one scene file (see viv cycle --help)\n");
            return 2;
        }
        return cmd_info(argv[2]);
    }
    if (strcmp(argv[1], "convert") != 0) {
        fprintf(stderr, "viv cycle: unknown command '%s' (convert, info; see viv cycle --help)\n",
                argv[1]);
        return 2;
    }
    const char *files[2] = { NULL, NULL }, *png = NULL, *scene = NULL;
    int nfiles = 0, pbm = 0;
    uint64_t tick = 0, seed = 1;
    long scale = 1, sw = 320, sh = 180;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cycle_usage(stdout);
            return 0;
        } else if (strcmp(a, "--pbm") == 0) {
            pbm = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            if (!v) {
                fprintf(stderr, "viv cycle: %s needs a value\n", a);
                return 2;
            }
            i++;
            if (strcmp(a, "--png") == 0) png = v;
            else if (strcmp(a, "--tick") == 0) {
                if (cli_parse_u64("cycle", a, v, &tick)) return 2;
            } else if (strcmp(a, "--seed") == 0) {
                if (cli_parse_u64("cycle", a, v, &seed)) return 2;
            } else if (strcmp(a, "--scale") == 0) {
                if (cli_parse_int("cycle", a, v, 1, 16, &scale)) return 2;
            } else if (strcmp(a, "--scene") == 0) {
                scene = v;
            } else if (strcmp(a, "--size") == 0) {
                char xc = 0, tail;
                if (sscanf(v, "%ld%c%ld%c", &sw, &xc, &sh, &tail) != 3 || xc != 'x' || sw < 160 ||
                    sw > 640 || sh < 90 || sh > 480) {
                    fprintf(stderr, "viv cycle: --size needs WxH within 160x90..640x480, got '%s'\n", v);
                    return 2;
                }
            } else {
                fprintf(stderr, "viv cycle: unknown option '%s' (see viv cycle --help)\n", a);
                return 2;
            }
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            fprintf(stderr, "viv cycle convert: too many files ('%s')\n", a);
            return 2;
        }
    }
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
    int rc = scene ? paint_scene(scene, seed, (int)sw, (int)sh, &sc) : read_scene(in, &sc);
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
