/* cycle.c — the palette-cycling world, after Mark Ferrari's colour cycling (seed 000, section 5):
 * one flat index image that never changes after tick 0, a palette, and up to 16 ranges of palette
 * entries that rotate — water, fire and sky seem to move while not one pixel does. A frame differs
 * from the last only in its palette, so a subscriber receives a few hundred bytes a frame.
 *
 * Timing is exact integer arithmetic (scene_int.h, scene.c): each range keeps a phase accumulator advanced by
 * rate·speed per tick and reduced modulo its period, so speed changes mid-run are exact and the
 * phases are plain state. A scene from Canvas Cycle plays by Canvas Cycle's own arithmetic
 * instead (cctiming.c), its phase a clock advanced by the speed. The palette is recomputed after
 * every step from the base palette and the phases; its version counts the steps that changed it.
 *
 * The scene comes from the seed (waterfall, fire, dusk: cycle_scenes.c) or from a file
 * (scene=file:PATH, read through the caller's sim_file_reader and decoded by import.c's choice of
 * ilbm.c or ccjson.c).
 * Either way image, palette and ranges are saved in the state, so a saved world — and a replay's
 * tick-0 checkpoint — never needs the file again. */
#include "cycle.h"
#include <stdlib.h>

/* ---- the world -------------------------------------------------------------------------------- */
typedef struct cyc_world {
    int scene;                              /* CYC_SCENE_… */
    sim_cycle_scene sc;                     /* image, base palette, ranges (mode, active: live) */
    uint64_t phase[SIM_CYCLE_MAX_RANGES];   /* per range, in [0, period) */
    uint16_t speed;                         /* percent, 10..400 */
    uint8_t paused;
    uint32_t version;                       /* palette version: +1 whenever cur changes */
    uint8_t cur[SIM_PALETTE_MAX * 3];       /* the palette now (derived, not saved) */
} cyc_world;

static const char *const scene_names[CYC_NSCENES] = { "waterfall", "fire", "dusk", "file" };

static void compute_palette(const cyc_world *c, uint8_t *out)
{
    memcpy(out, c->sc.rgb, (size_t)c->sc.ncolors * 3);
    for (int i = 0; i < c->sc.nranges; i++)
        sim__cycle_apply(&c->sc.ranges[i], c->sc.timing, c->phase[i], out);
}

/* Recompute the palette; a change bumps the version. */
static void refresh(cyc_world *c)
{
    uint8_t pal[SIM_PALETTE_MAX * 3];
    compute_palette(c, pal);
    size_t n = (size_t)c->sc.ncolors * 3;
    if (memcmp(pal, c->cur, n) != 0) {
        memcpy(c->cur, pal, n);
        c->version++;
    }
}

static void cycle_step(void *impl, const sim_ctx *ctx)
{
    cyc_world *c = impl;
    (void)ctx;
    if (!c->paused) {
        for (int i = 0; i < c->sc.nranges; i++) {
            const sim_cycle_range *r = &c->sc.ranges[i];
            if (!r->active || !r->rate) continue;
            c->phase[i] = (c->phase[i] + sim__cycle_tick(r, c->sc.timing, c->speed)) %
                          sim__cycle_period(r, c->sc.timing);
        }
    }
    refresh(c);
}

/* ---- inputs ----------------------------------------------------------------------------------- */
enum { IN_SPEED, IN_TOGGLE, IN_MODE, IN_PAUSE, IN_RESUME };
static const char *const mode_names[] = { "standard", "blend" };
static const sim_input_desc cycle_inputs[] = {
    [IN_SPEED] = { "speed", 1, { { "percent", CYC_SPEED_MIN, CYC_SPEED_MAX, NULL } },
                   "cycling speed in percent of the scene's rates (100 = as authored)" },
    [IN_TOGGLE] = { "toggle", 1, { { "range", 0, SIM_CYCLE_MAX_RANGES - 1, NULL } },
                    "switch a range off (it rests at its base colours) or back on" },
    [IN_MODE] = { "mode", 2,
                  { { "range", 0, SIM_CYCLE_MAX_RANGES - 1, NULL },
                    { "mode", 0, 1, "mode" } },
                  "standard (whole steps) or blend (BlendShift: fades between steps)" },
    [IN_PAUSE] = { "pause", 0, { { NULL, 0, 0, NULL } }, "stop every range where it is" },
    [IN_RESUME] = { "resume", 0, { { NULL, 0, 0, NULL } }, "carry on from where pause stopped" },
};
static const sim_enum_desc cycle_enums[] = {
    { "mode", 2, mode_names },
};

static int cycle_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    const cyc_world *c = impl;
    if ((in->kind == IN_TOGGLE || in->kind == IN_MODE) && in->args[0] >= c->sc.nranges) {
        if (c->sc.nranges == 0)
            sim__fmt(err, errlen, "%s: this scene has no cycle ranges",
                     cycle_inputs[in->kind].name);
        else
            sim__fmt(err, errlen, "%s: no range %d: this scene has %u (0..%u)",
                     cycle_inputs[in->kind].name, (int)in->args[0], (unsigned)c->sc.nranges,
                     (unsigned)c->sc.nranges - 1);
        return SIM_EINPUT;
    }
    return 0;
}

static void cycle_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    cyc_world *c = impl;
    (void)ctx;
    switch (in->kind) {
    case IN_SPEED:
        c->speed = (uint16_t)in->args[0];
        break;
    case IN_TOGGLE: {
        sim_cycle_range *r = &c->sc.ranges[in->args[0]];
        r->active = !r->active;
        if (!r->active) c->phase[in->args[0]] = 0;      /* at rest: its base colours */
        break;
    }
    case IN_MODE:
        c->sc.ranges[in->args[0]].mode = (uint8_t)in->args[1];
        break;
    case IN_PAUSE:
        c->paused = 1;
        break;
    case IN_RESUME:
        c->paused = 0;
        break;
    }
}

/* ---- rendering -------------------------------------------------------------------------------- */
static void cycle_frame_size(const void *impl, int *w, int *h)
{
    const cyc_world *c = impl;
    *w = c->sc.w;
    *h = c->sc.h;
}

/* Sixteen hues for the ranges view, one per range. */
static const uint8_t RANGE_HUE[SIM_CYCLE_MAX_RANGES][3] = {
    { 255, 80, 80 }, { 80, 200, 255 }, { 255, 210, 60 }, { 120, 255, 120 },
    { 230, 110, 255 }, { 255, 150, 40 }, { 60, 255, 220 }, { 255, 120, 200 },
    { 170, 170, 255 }, { 200, 255, 80 }, { 255, 255, 160 }, { 90, 140, 255 },
    { 255, 90, 150 }, { 150, 255, 190 }, { 255, 190, 140 }, { 190, 120, 255 },
};

/* View "ranges": every cycled entry in its range's hue at the brightness of its colour now (the
 * motion stays visible), every still entry a dim grey. Which pixels cycle, at a glance. */
static void ranges_palette(const cyc_world *c, uint8_t *out)
{
    int owner[SIM_PALETTE_MAX];
    for (int e = 0; e < c->sc.ncolors; e++) owner[e] = -1;
    for (int i = c->sc.nranges - 1; i >= 0; i--)
        for (int e = c->sc.ranges[i].low; e <= c->sc.ranges[i].high; e++) owner[e] = i;
    for (int e = 0; e < c->sc.ncolors; e++) {
        const uint8_t *p = &c->cur[3 * e];
        unsigned luma = (54u * p[0] + 183u * p[1] + 19u * p[2]) >> 8;
        for (int k = 0; k < 3; k++)
            out[3 * e + k] = owner[e] < 0 ? (uint8_t)(16 + luma / 4)
                                          : (uint8_t)(RANGE_HUE[owner[e]][k] * (64 + luma) / 320);
    }
}

static void cycle_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *f)
{
    const cyc_world *c = impl;
    (void)ctx;
    size_t n = (size_t)c->sc.ncolors * 3;
    f->pal.count = c->sc.ncolors;
    f->pal.version = c->version;
    if (view == 1) ranges_palette(c, f->pal.rgb);
    else memcpy(f->pal.rgb, c->cur, n);
    memset(f->pal.rgb + n, 0, sizeof f->pal.rgb - n);
    if (f->w == c->sc.w && f->h == c->sc.h) {
        memcpy(f->px, c->sc.px, (size_t)c->sc.w * c->sc.h);
        return;
    }
    /* A frame of another size (the caller sized it before a load changed ours): clip. */
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++)
            f->px[(size_t)y * f->w + x] = x < c->sc.w && y < c->sc.h ? c->sc.px[(size_t)y * c->sc.w + x] : 0;
}

/* ---- lifecycle -------------------------------------------------------------------------------- */
enum { P_SCENE, P_W, P_H };
static const sim_param_desc cycle_params[] = {
    [P_SCENE] = { "scene", SIM_PARAM_STR, 0, 0, 0, NULL, "waterfall",
                  "waterfall, fire, dusk, or file:PATH (an IFF ILBM/PBM or Canvas Cycle JSON "
                  "scene; PATH without ',')" },
    [P_W] = { "w", SIM_PARAM_INT, 320, 160, SIM_CYCLE_MAX_W, NULL, NULL,
              "width of a procedural scene (a file scene has its own size)" },
    [P_H] = { "h", SIM_PARAM_INT, 180, 90, SIM_CYCLE_MAX_H, NULL, NULL,
              "height of a procedural scene" },
};

static void cycle_destroy(void *impl)
{
    cyc_world *c = impl;
    if (!c) return;
    sim_cycle_scene_free(&c->sc);
    free(c);
}

/* The scene param: a procedural scene's index, or CYC_SCENE_FILE with *path set. -1 if neither. */
static int parse_scene(const char *v, const char **path)
{
    *path = NULL;
    for (int i = 0; i < CYC_SCENE_FILE; i++)
        if (strcmp(v, scene_names[i]) == 0) return i;
    if (strncmp(v, "file:", 5) == 0 && v[5]) {
        *path = v + 5;
        return CYC_SCENE_FILE;
    }
    return -1;
}

static int load_file_scene(cyc_world *c, const sim_params *p, const char *path, char *err,
                           size_t errlen)
{
    if (!p->files || !p->files->read) {
        sim__fmt(err, errlen, "cycle: scene=file:%s: this program does not let worlds read files "
                 "(vivd reads them only for --world on its command line)", path);
        return SIM_EFILE;
    }
    uint8_t *data = NULL;
    size_t len = 0;
    char why[200] = "";
    if (p->files->read(p->files->ud, path, &data, &len, why, sizeof why) != 0) {
        sim__fmt(err, errlen, "cycle: scene=file:%s: %s", path, why[0] ? why : "cannot read it");
        free(data);
        return SIM_EFILE;
    }
    int rc = sim_cycle_from_bytes(data, len, &c->sc, NULL, 0, why, sizeof why);
    free(data);
    if (rc) {
        sim__fmt(err, errlen, "cycle: scene=file:%s: %s", path, why);
        return SIM_EFILE;
    }
    return 0;
}

static int cycle_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                        size_t errlen)
{
    const char *path;
    int scene = parse_scene(p->sval[P_SCENE], &path);
    if (scene < 0) {
        sim__fmt(err, errlen, "cycle params: scene=%s is not one of: waterfall, fire, dusk, "
                 "file:PATH", p->sval[P_SCENE]);
        return SIM_EPARAM;
    }
    cyc_world *c = calloc(1, sizeof *c);
    if (!c) return SIM_ENOMEM;
    c->scene = scene;
    c->speed = CYC_SPEED_UNIT;
    c->version = 1;
    int rc = 0;
    if (bare) {
        /* An empty shell for a load: the procedural size, or 1×1 until a file scene's state
         * says how large it is. */
        c->sc.w = scene == CYC_SCENE_FILE ? 1 : (uint16_t)p->ival[P_W];
        c->sc.h = scene == CYC_SCENE_FILE ? 1 : (uint16_t)p->ival[P_H];
        c->sc.ncolors = 1;
        c->sc.px = calloc((size_t)c->sc.w * c->sc.h, 1);
        if (!c->sc.px) rc = SIM_ENOMEM;
    } else if (scene == CYC_SCENE_FILE) {
        rc = load_file_scene(c, p, path, err, errlen);
    } else {
        rc = sim__cycle_scene_build(scene, seed, (int)p->ival[P_W], (int)p->ival[P_H], &c->sc);
    }
    if (rc) {
        if (rc == SIM_ENOMEM) sim__fmt(err, errlen, "cycle: out of memory for the scene");
        cycle_destroy(c);
        return rc;
    }
    /* Tick 0's palette: the base palette, but for a Canvas Cycle sine range, which starts a
     * quarter of its sway in. */
    compute_palette(c, c->cur);
    *impl = c;
    return 0;
}

/* ---- save and load ------------------------------------------------------------------------------ */
#define RANGE_BYTES 15

/* The layout is state version 1's (docs/STATE.md) with one optional byte at the end: a scene that
 * plays by Canvas Cycle's timing ends with the byte 1. Every CRNG scene saves exactly as before,
 * so the built-in scenes' states and hashes, and recordings of every earlier build, are unchanged;
 * an earlier build refuses a Canvas Cycle state (a trailing byte) rather than misplay it. */
static size_t cycle_save_max(const void *impl)
{
    const cyc_world *c = impl;
    return 1 + 4 + 2 + SIM_PALETTE_MAX * 3 + 2 + 1 + 4 + 1 +
           SIM_CYCLE_MAX_RANGES * RANGE_BYTES + (size_t)c->sc.w * c->sc.h + 1;
}

static void cycle_save(const void *impl, sim_writer *wr)
{
    const cyc_world *c = impl;
    sim__w_u8(wr, (uint8_t)c->scene);
    sim__w_u16(wr, c->sc.w);
    sim__w_u16(wr, c->sc.h);
    sim__w_u16(wr, c->sc.ncolors);
    sim__w_bytes(wr, c->sc.rgb, (size_t)c->sc.ncolors * 3);
    sim__w_u16(wr, c->speed);
    sim__w_u8(wr, c->paused);
    sim__w_u32(wr, c->version);
    sim__w_u8(wr, c->sc.nranges);
    for (int i = 0; i < c->sc.nranges; i++) {
        const sim_cycle_range *r = &c->sc.ranges[i];
        sim__w_u8(wr, r->low);
        sim__w_u8(wr, r->high);
        sim__w_u16(wr, r->rate);
        sim__w_u8(wr, r->dir);
        sim__w_u8(wr, r->mode);
        sim__w_u8(wr, r->active);
        sim__w_u64(wr, c->phase[i]);
    }
    sim__w_bytes(wr, c->sc.px, (size_t)c->sc.w * c->sc.h);
    if (c->sc.timing != SIM_CYCLE_TIMING_CRNG) sim__w_u8(wr, c->sc.timing);
}

static int cycle_load(void *impl, sim_reader *rd)
{
    cyc_world *c = impl;
    char why[160];
    sim_cycle_scene sc;
    memset(&sc, 0, sizeof sc);
    uint64_t phase[SIM_CYCLE_MAX_RANGES] = { 0 };
    int scene = sim__r_u8(rd);
    sc.w = sim__r_u16(rd);
    sc.h = sim__r_u16(rd);
    sc.ncolors = sim__r_u16(rd);
    if (rd->err) return rd->err;
    if (scene != c->scene || sc.ncolors < 1 || sc.ncolors > SIM_PALETTE_MAX) return SIM_ECORRUPT;
    /* A procedural scene has the size its params say; a file scene any size a scene may have. */
    if (scene != CYC_SCENE_FILE && (sc.w != c->sc.w || sc.h != c->sc.h)) return SIM_ECORRUPT;
    if (sc.w < 1 || sc.h < 1 || sc.w > SIM_CYCLE_MAX_W || sc.h > SIM_CYCLE_MAX_H)
        return SIM_ECORRUPT;
    sim__r_bytes(rd, sc.rgb, (size_t)sc.ncolors * 3);
    uint16_t speed = sim__r_u16(rd);
    uint8_t paused = sim__r_u8(rd);
    uint32_t version = sim__r_u32(rd);
    sc.nranges = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (speed < CYC_SPEED_MIN || speed > CYC_SPEED_MAX || paused > 1 ||
        sc.nranges > SIM_CYCLE_MAX_RANGES)
        return SIM_ECORRUPT;
    for (int i = 0; i < sc.nranges; i++) {
        sim_cycle_range *r = &sc.ranges[i];
        r->low = sim__r_u8(rd);
        r->high = sim__r_u8(rd);
        r->rate = sim__r_u16(rd);
        r->dir = sim__r_u8(rd);
        r->mode = sim__r_u8(rd);
        r->active = sim__r_u8(rd);
        phase[i] = sim__r_u64(rd);
        if (rd->err) return rd->err;
        if (r->low >= r->high || r->high >= sc.ncolors || r->dir > SIM_CYCLE_SINE_FULL ||
            r->mode > SIM_CYCLE_BLEND || r->active > 1 || (!r->active && phase[i] != 0))
            return SIM_ECORRUPT;
    }
    size_t n = (size_t)sc.w * sc.h;
    if (n > rd->len - rd->pos) return SIM_ETRUNC;
    sc.px = malloc(n);
    if (!sc.px) return SIM_ENOMEM;
    sim__r_bytes(rd, sc.px, n);
    if (rd->pos < rd->len) {
        /* The optional timing byte: present only for Canvas Cycle timing, only for a file. */
        sc.timing = sim__r_u8(rd);
        if (sc.timing != SIM_CYCLE_TIMING_CANVAS || scene != CYC_SCENE_FILE) {
            free(sc.px);
            return SIM_ECORRUPT;
        }
    }
    int bad = sim_cycle_scene_check(&sc, why, sizeof why) != 0;
    for (int i = 0; !bad && i < sc.nranges; i++)
        bad = phase[i] >= sim__cycle_period(&sc.ranges[i], sc.timing);
    if (bad) {
        free(sc.px);
        return SIM_ECORRUPT;
    }
    sim_cycle_scene_free(&c->sc);
    c->sc = sc;
    memcpy(c->phase, phase, sizeof phase);
    c->speed = speed;
    c->paused = paused;
    c->version = version;
    compute_palette(c, c->cur);
    return 0;
}

/* ---- desync reports ----------------------------------------------------------------------------- */
static const char *const dir_names[] = { "forward", "reverse", "ping-pong", "sine half",
                                         "sine full" };
static const char *const timing_names[] = { "CRNG", "Canvas Cycle" };

static long cycle_diff(const void *ia, const void *ib, sim_diff_out *o)
{
    const cyc_world *a = ia, *b = ib;
    long n = 0;
    if (a->sc.w != b->sc.w || a->sc.h != b->sc.h) {
        sim_diff_line(o, "image size: %ux%u → %ux%u", (unsigned)a->sc.w, (unsigned)a->sc.h,
                      (unsigned)b->sc.w, (unsigned)b->sc.h);
        return 1;
    }
    if (a->sc.timing != b->sc.timing) {
        sim_diff_line(o, "timing: %s → %s", timing_names[a->sc.timing & 1],
                      timing_names[b->sc.timing & 1]);
        n++;
    }
    if (a->speed != b->speed) {
        sim_diff_line(o, "speed: %u%% → %u%%", (unsigned)a->speed, (unsigned)b->speed);
        n++;
    }
    if (a->paused != b->paused) {
        sim_diff_line(o, "paused: %u → %u", (unsigned)a->paused, (unsigned)b->paused);
        n++;
    }
    if (a->version != b->version) {
        sim_diff_line(o, "palette version: %u → %u", (unsigned)a->version, (unsigned)b->version);
        n++;
    }
    if (a->sc.ncolors != b->sc.ncolors) {
        sim_diff_line(o, "palette size: %u → %u colours", (unsigned)a->sc.ncolors,
                      (unsigned)b->sc.ncolors);
        n++;
    } else {
        for (int e = 0; e < a->sc.ncolors; e++) {
            const uint8_t *x = &a->sc.rgb[3 * e], *y = &b->sc.rgb[3 * e];
            if (memcmp(x, y, 3) == 0) continue;
            sim_diff_line(o, "base colour %d: %u,%u,%u → %u,%u,%u", e, x[0], x[1], x[2], y[0], y[1],
                          y[2]);
            n++;
        }
    }
    if (a->sc.nranges != b->sc.nranges) {
        sim_diff_line(o, "ranges: %u → %u", (unsigned)a->sc.nranges, (unsigned)b->sc.nranges);
        n++;
    }
    for (int i = 0; i < a->sc.nranges && i < b->sc.nranges; i++) {
        const sim_cycle_range *x = &a->sc.ranges[i], *y = &b->sc.ranges[i];
        if (x->low != y->low || x->high != y->high || x->rate != y->rate || x->dir != y->dir) {
            sim_diff_line(o, "range %d: %u..%u rate %u %s → %u..%u rate %u %s", i, x->low, x->high,
                          x->rate, dir_names[x->dir % 5], y->low, y->high, y->rate,
                          dir_names[y->dir % 5]);
            n++;
        }
        if (x->mode != y->mode) {
            sim_diff_line(o, "range %d mode: %s → %s", i, mode_names[x->mode & 1],
                          mode_names[y->mode & 1]);
            n++;
        }
        if (x->active != y->active) {
            sim_diff_line(o, "range %d: %s → %s", i, x->active ? "on" : "off",
                          y->active ? "on" : "off");
            n++;
        }
        if (a->phase[i] != b->phase[i] && (a->sc.timing == SIM_CYCLE_TIMING_CANVAS ||
                                           b->sc.timing == SIM_CYCLE_TIMING_CANVAS)) {
            int sa, fa, sb, fb;
            sim__cc_position(x, a->phase[i], &sa, &fa);
            sim__cc_position(y, b->phase[i], &sb, &fb);
            sim_diff_line(o, "range %d clock: %llu ms → %llu ms (at %d+%d/100 steps → %d+%d/100)",
                          i, (unsigned long long)sim__cc_ms(a->phase[i]),
                          (unsigned long long)sim__cc_ms(b->phase[i]), sa, fa, sb, fb);
            n++;
        } else if (a->phase[i] != b->phase[i]) {
            uint32_t oa = sim__cycle_offset(x, a->phase[i]), ob = sim__cycle_offset(y, b->phase[i]);
            sim_diff_line(o, "range %d phase: %llu → %llu (offset %u+%u/16384 → %u+%u/16384 steps)",
                          i, (unsigned long long)a->phase[i], (unsigned long long)b->phase[i],
                          oa / CYC_SUB, oa % CYC_SUB, ob / CYC_SUB, ob % CYC_SUB);
            n++;
        }
    }
    size_t npx = (size_t)a->sc.w * a->sc.h;
    for (size_t i = 0; i < npx; i++) {
        if (a->sc.px[i] == b->sc.px[i]) continue;
        sim_diff_line(o, "pixel (%u,%u): colour %u → %u", (unsigned)(i % a->sc.w),
                      (unsigned)(i / a->sc.w), a->sc.px[i], b->sc.px[i]);
        n++;
    }
    return n;
}

static const char *const cycle_views[] = { "normal", "ranges" };

const sim_kind sim__kind_cycle = {
    .name = "cycle",
    .id = 3,
    .hz = 60,
    .state_version = 1,
    .params = cycle_params,
    .nparams = (int)(sizeof cycle_params / sizeof cycle_params[0]),
    .inputs = cycle_inputs,
    .ninputs = (int)(sizeof cycle_inputs / sizeof cycle_inputs[0]),
    .enums = cycle_enums,
    .nenums = 1,
    .views = cycle_views,
    .nviews = 2,
    .create = cycle_create,
    .destroy = cycle_destroy,
    .check_input = cycle_check_input,
    .apply_input = cycle_apply_input,
    .step = cycle_step,
    .frame_size = cycle_frame_size,
    .render = cycle_render,
    .save_max = cycle_save_max,
    .save = cycle_save,
    .load = cycle_load,
    .diff = cycle_diff,
};

int sim_cycle_world_scene(sim_world *w, sim_cycle_scene *out)
{
    memset(out, 0, sizeof *out);
    if (sim_world_kind(w) != &sim__kind_cycle) return SIM_EWRONGKIND;
    const cyc_world *c = sim__world_impl(w);
    size_t n = (size_t)c->sc.w * c->sc.h;
    *out = c->sc;
    out->px = malloc(n);
    if (!out->px) {
        memset(out, 0, sizeof *out);
        return SIM_ENOMEM;
    }
    memcpy(out->px, c->sc.px, n);
    return 0;
}

/* ---- inspection for tests ------------------------------------------------------------------------- */
const sim_cycle_scene *sim__cycle_scene(const void *impl) { return &((const cyc_world *)impl)->sc; }
uint64_t sim__cycle_phase(const void *impl, int range)
{
    return ((const cyc_world *)impl)->phase[range];
}
const uint8_t *sim__cycle_palette(const void *impl) { return ((const cyc_world *)impl)->cur; }
uint32_t sim__cycle_palette_version(const void *impl)
{
    return ((const cyc_world *)impl)->version;
}
