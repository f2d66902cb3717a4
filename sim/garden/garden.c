/* garden.c — the garden kind: the tick, the inputs, the params, create and destroy, the vtable.
 *
 * A tick: the inputs are applied (a poke flashes a creature or splashes the pond, wind sets the
 * wind, target sends the butterfly, spawn adds a creature) → the pilot (the wind's wandering
 * goal, the butterfly's waypoints) → the creatures (creatures.c: serpents, vines on 2s,
 * villagers, gnomes) → the stones → the pond → the grass (on 3s inside the piece) → the fire →
 * the flag. Every random choice comes from the world's streams garden.pilot and garden.fire.
 *
 * The rest of the folder: creatures.c (the creatures, the poke, the pilot), art.c (the palette,
 * sprites and bakes, the still scene), render.c (the frame, the x-ray, the ink lock) and state.c
 * (save, load, desync reports). */
#include "garden_int.h"
#include <stdlib.h>

/* ---- the tick ------------------------------------------------------------------------------ */
static void garden_step(void *impl, const sim_ctx *ctx)
{
    garden_world *w = impl;
    uint64_t tick = ctx->tick;
    sim__garden_step_pilot(w, tick);
    sim__garden_step_sky(w);
    sim__garden_step_creatures(w, ctx, tick);
    sim_phase_end(ctx, "creatures");
    sim__garden_step_stones(w);
    sim_water_step(&w->pond);
    sim_phase_end(ctx, "stones and pond");
    sim_grass_step(&w->back, w->wind);
    sim_grass_step(&w->front, w->wind);
    sim_phase_end(ctx, "grass");
    for (int k = 0; k < GARDEN_FLAMES_PER_TICK; k++)
        sim_particles_emit(&w->fire, 0, GARDEN_FIRE_X, GARDEN_FIRE_Y, &w->fire_rng);
    if (tick % GARDEN_SMOKE_EVERY == 0)
        sim_particles_emit(&w->fire, 1, GARDEN_FIRE_X, GARDEN_FIRE_Y - 12, &w->fire_rng);
    sim_particles_step(&w->fire, &w->fire_rng, w->wind);
    sim_cloth_step(&w->flag, w->wind);
    w->now = tick + 1;
}

/* ---- inputs -------------------------------------------------------------------------------- */
enum { IN_POKE, IN_WIND, IN_TARGET, IN_SPAWN };
static const char *const creature_names[GARDEN_NCREATURES] = { "serpent", "vine", "biped", "walker",
                                                               "lizard" };
static const sim_input_desc garden_inputs[] = {
    [IN_POKE] = { "poke", 2, { { "x", 0, GARDEN_W - 1, NULL }, { "y", 0, GARDEN_H - 1, NULL } },
                  "poke at (x, y): a creature there flashes (a gnome or a villager jumps); the "
                  "pond splashes (above it, a stone drops in); the grass parts" },
    [IN_WIND] = { "wind", 1, { { "strength", -SIM_WIND_MAX, SIM_WIND_MAX, NULL } },
                  "set the wind, -100 (a gale blowing left) to 100 (right); it stands 15 s, then "
                  "wanders again" },
    [IN_TARGET] = { "target", 2, { { "x", -1, GARDEN_W - 1, NULL }, { "y", -1, GARDEN_H - 1, NULL } },
                    "send the butterfly to (x, y): the serpents circle it and the vines reach for "
                    "it (10 s after the last target it wanders again); -1 -1 lets it go now" },
    [IN_SPAWN] = { "spawn", 3, { { "kind", 0, GARDEN_NCREATURES - 1, "creature" },
                                 { "x", 0, GARDEN_W - 1, NULL }, { "y", 0, GARDEN_H - 1, NULL } },
                   "add a creature at (x, y): a serpent (up to 3), a vine (4, rooted in the ground "
                   "at x), a biped (4), a walker (6) or a lizard (2, on the near bank); the ones "
                   "that walk stand on the nearest ground" },
};
static const sim_enum_desc garden_enums[] = {
    { "creature", GARDEN_NCREATURES, creature_names },
};

static const int caps[GARDEN_NCREATURES] = { GARDEN_MAX_SERPENTS, GARDEN_MAX_VINES,
                                             GARDEN_MAX_BIPEDS, GARDEN_MAX_WALKERS,
                                             GARDEN_MAX_LIZARDS };
static int count_of(const garden_world *w, int kind)
{
    return kind == GARDEN_SERPENT ? w->nserpent : kind == GARDEN_VINE ? w->nvine
         : kind == GARDEN_BIPED ? w->nbiped : kind == GARDEN_WALKER ? w->nwalker : w->nlizard;
}

static int garden_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    const garden_world *w = impl;
    if (in->kind == IN_TARGET && (in->args[0] < 0) != (in->args[1] < 0)) {
        sim__fmt(err, errlen, "target: x=%d y=%d: give a point in the frame (x 0..%d, y 0..%d), "
                 "or -1 -1 to let the butterfly go", (int)in->args[0], (int)in->args[1],
                 GARDEN_W - 1, GARDEN_H - 1);
        return SIM_EINPUT;
    }
    if (in->kind == IN_SPAWN) {
        int k = in->args[0];
        if (count_of(w, k) >= caps[k]) {
            sim__fmt(err, errlen, "spawn: the garden has its %d %ss already (the most it holds)",
                     caps[k], creature_names[k]);
            return SIM_EINPUT;
        }
    }
    return 0;
}

static void garden_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    garden_world *w = impl;
    int x = in->args[0], y = in->args[1];
    switch (in->kind) {
    case IN_POKE:
        sim__garden_poke(w, ctx, x, y);
        break;
    case IN_WIND:
        w->wind = w->wind_goal = (int16_t)in->args[0];
        w->wind_hold = GARDEN_WIND_HOLD;
        break;
    case IN_TARGET:
        if (x < 0) {
            w->aim_hold = 0;
            w->aim_x = w->aim_y = -1;
        } else {
            w->aim_x = (int16_t)x;
            w->aim_y = (int16_t)y;
            w->aim_hold = GARDEN_TARGET_HOLD;
        }
        break;
    case IN_SPAWN:
        /* check_input vetted the cap; spawns queued together can still overrun it, and those
         * are dropped here (the add refuses) */
        x = in->args[1];
        y = in->args[2];
        int rc, k = in->args[0];
        switch (k) {
        case GARDEN_SERPENT: rc = sim__garden_add_serpent(w, x, y); break;
        case GARDEN_VINE: rc = sim__garden_add_vine(w, x); break;
        case GARDEN_BIPED: rc = sim__garden_add_biped(w, x, w->serial & 1); break;
        case GARDEN_WALKER: rc = sim__garden_add_walker(w, x); break;
        default: rc = sim__garden_add_lizard(w, x); break;
        }
        if (rc == 0) {
            sim_event *e = sim_event_add(ctx, "spawn");
            sim_event_str(e, "kind", creature_names[k]);
            sim_event_num(e, "i", count_of(w, k) - 1);
            sim_event_num(e, "x", x);
            sim_event_num(e, "y", y);
        }
        break;
    default:
        break;
    }
}

/* ---- params, lifecycle ----------------------------------------------------------------------- */
enum { P_SCENE, P_WANDER, P_INKS };
static const char *const scene_names[] = { "demo", "empty", "crowd", NULL };
static const sim_param_desc garden_params[] = {
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, GARDEN_SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (a serpent, two vines, two villagers, three gnomes, a lizard), empty (the "
                  "place alone: spawn them), or crowd (every creature at its cap: the benchmark's)" },
    [P_WANDER] = { "wander", SIM_PARAM_INT, 1, 0, 1, NULL, NULL,
                   "1: the scene lives on its own (seeded butterfly, wind, strolls, hops, throws); "
                   "0: nothing moves but what the inputs move" },
    [P_INKS] = { "inks", SIM_PARAM_INT, 0, 0, SIM_INKS_MAX, NULL, NULL,
                 "0: the whole palette; 8: the frame locked to the garden's 8 inks (seed 000), "
                 "each colour to its nearest ink in OKLab; any other n: n inks chosen by "
                 "farthest-point sampling" },
};

static void garden_destroy(void *impl)
{
    garden_world *w = impl;
    if (!w) return;
    sim_grass_free(&w->back);
    sim_grass_free(&w->front);
    sim_water_free(&w->pond);
    sim_particles_free(&w->fire);
    sim_cloth_free(&w->flag);
    sim__garden_art_free(w->art);
    free(w->backdrop);
    free(w);
}

/* The tufts: a row along the middle meadow's back edge, behind its creatures (missing where the
 * pond and the fire are), and a row on the near bank, behind the lizards, whose tops stand in
 * front of the middle meadow's earth face — nothing stands in front of a creature's legs (issue
 * 27: a row in front of the villagers hid their feet). */
static void plant_grass(sim_grass *g, int back, sim_rng *r)
{
    int x = 2 + (int)sim_rng_below(r, 4);
    while (x < GARDEN_W - 2) {
        int y = back ? GARDEN_GROUND : GARDEN_NEAR_GROUND + 1 + (int)sim_rng_below(r, 3);
        int in_pond = back && x > GARDEN_POND_X0 - 8 && x < GARDEN_POND_X1 + 8;
        int in_fire = back && x > GARDEN_FIRE_X - 12 && x < GARDEN_FIRE_X + 12;
        if (!in_pond && !in_fire &&
            sim_grass_add(g, x, y, (int)sim_rng_below(r, GARDEN_TUFT_SPRITES), r) < 0)
            break;
        x += back ? 6 + (int)sim_rng_below(r, 5) : 9 + (int)sim_rng_below(r, 7);
    }
}

static void build_scene(garden_world *w)
{
    sim_rng r;
    sim_rng_stream(&r, w->seed, "garden.grass");
    plant_grass(&w->back, 1, &r);
    plant_grass(&w->front, 0, &r);
    w->fly_x = 140.0;
    w->fly_y = 70.0;
    w->way_x = 140;
    w->way_y = 70;
    w->aim_x = w->aim_y = -1;
    for (int k = 0; k < GARDEN_CLOUDS; k++) w->cloud_x[k] = sim__garden_clouds[k].x0 * 256;
    if (w->scene == GARDEN_SCENE_DEMO) {
        sim__garden_add_serpent(w, 90.0, 60.0);
        sim__garden_add_vine(w, 150);
        sim__garden_add_vine(w, 306);
        sim__garden_add_biped(w, 100, GB_HAIR);
        sim__garden_add_biped(w, 176, GB_SCARF);
        sim__garden_add_walker(w, 14);
        sim__garden_add_walker(w, 80);
        sim__garden_add_walker(w, 282);
        sim__garden_add_lizard(w, 70);
    } else if (w->scene == GARDEN_SCENE_CROWD) {
        for (int i = 0; i < GARDEN_MAX_SERPENTS; i++) sim__garden_add_serpent(w, 60.0 + 90.0 * i, 50.0 + 20.0 * i);
        static const int vines[GARDEN_MAX_VINES] = { 110, 150, 186, 306 };
        for (int i = 0; i < GARDEN_MAX_VINES; i++) sim__garden_add_vine(w, vines[i]);
        for (int i = 0; i < GARDEN_MAX_BIPEDS; i++) sim__garden_add_biped(w, 70 + 36 * i, i & 1);
        for (int i = 0; i < GARDEN_MAX_WALKERS; i++) sim__garden_add_walker(w, i < 4 ? 14 + 48 * i : 276 + 24 * (i - 4));
        for (int i = 0; i < GARDEN_MAX_LIZARDS; i++) sim__garden_add_lizard(w, 60 + 170 * i);
    }
}

static int garden_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                         size_t errlen)
{
    garden_world *w = calloc(1, sizeof *w);
    if (!w) return SIM_ENOMEM;
    w->scene = (int)p->ival[P_SCENE];
    w->wander = (int)p->ival[P_WANDER];
    w->inks = (int)p->ival[P_INKS];
    w->seed = seed;
    sim__garden_configs(w);
    uint8_t tuft_px[2][GARDEN_TUFT_SPRITES][GARDEN_TUFT_W * GARDEN_TUFT_H];
    sim_sprite tufts[2][GARDEN_TUFT_SPRITES];
    for (int b = 0; b < 2; b++) {
        sim__garden_tufts(tuft_px[b], b == 0);
        for (int k = 0; k < GARDEN_TUFT_SPRITES; k++)
            tufts[b][k] = (sim_sprite){ GARDEN_TUFT_W, b == 0 ? GARDEN_TUFT_H : GARDEN_FTUFT_H,
                                        tuft_px[b][k], GC_VOID };
    }
    static const uint8_t flame[5] = { GC_FIRE_WHITE, GC_FIRE_YELLOW, GC_FIRE_ORANGE, GC_FIRE_RED, GC_EMBER };
    static const uint8_t smoke[3] = { GC_SMOKE_DARK, GC_SMOKE, GC_SMOKE_LIGHT };
    sim_pt_kind kinds[2] = { sim_pt_fire(flame), sim_pt_smoke(smoke) };
    /* The art and the still scene are for render only: a world that is never rendered (bare 2:
     * a desync report's) goes without them. */
    int draws = bare != 2;
    sim_frame bd = { 0 };
    int rc = 0;
    if (sim_grass_init(&w->back, GARDEN_TUFTS_BACK, tufts[0], GARDEN_TUFT_SPRITES) ||
        sim_grass_init(&w->front, GARDEN_TUFTS_FRONT, tufts[1], GARDEN_TUFT_SPRITES) ||
        sim_water_init(&w->pond, GARDEN_POND_N) ||
        sim_particles_init(&w->fire, GARDEN_PARTICLES, kinds, 2) ||
        sim_cloth_init(&w->flag, SIM_FLAG_W, SIM_FLAG_H) ||
        (draws && ((rc = sim__garden_art_build(&w->art)) || sim_frame_init(&bd, GARDEN_W, GARDEN_H)))) {
        sim_frame_free(&bd);
        garden_destroy(w);
        sim__fmt(err, errlen, rc == SIM_EINVAL ? "garden: the art did not bake" : "garden: out of memory");
        return rc == SIM_EINVAL ? SIM_EINVAL : SIM_ENOMEM;
    }
    if (draws) sim__garden_draw_backdrop(&bd);
    w->backdrop = bd.px;
    /* The ink lock: a pure function of the palette and the params (not state). */
    if (w->inks) {
        sim_palette pal;
        sim__garden_palette(&pal);
        uint8_t ink[SIM_INKS_MAX];
        if (w->inks == 8) memcpy(ink, sim__garden_inks8, 8);
        else sim_inks_choose(&pal, w->inks, ink);
        sim_inks_lock(&w->lock, &pal, ink, w->inks);
    }
    sim_rng_stream(&w->pilot, seed, "garden.pilot");
    sim_rng_stream(&w->fire_rng, seed, "garden.fire");
    sim_cloth_hang(&w->flag, GARDEN_POLE_X, GARDEN_POLE_TOP + 1, 5.0, 4.0, -1);
    if (!bare) build_scene(w);
    *impl = w;
    return 0;
}

/* A load keeps the art and the still scene of the world it replaces (they depend on nothing). */
static void garden_adopt(void *to, void *from)
{
    garden_world *t = to, *f = from;
    struct garden_art *art = t->art;
    uint8_t *bd = t->backdrop;
    t->art = f->art;
    t->backdrop = f->backdrop;
    f->art = art;
    f->backdrop = bd;
}

static void garden_frame_size(const void *impl, int *fw, int *fh)
{
    (void)impl;
    *fw = GARDEN_W;
    *fh = GARDEN_H;
}

static void garden_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *out)
{
    sim__garden_render(impl, ctx, view, out);
}

static const char *const garden_views[] = { "normal", "xray" };

const sim_kind sim__kind_garden = {
    .name = "garden",
    .id = 5,
    .hz = GARDEN_HZ,
    .state_version = 2,
    .params = garden_params,
    .nparams = (int)(sizeof garden_params / sizeof garden_params[0]),
    .inputs = garden_inputs,
    .ninputs = (int)(sizeof garden_inputs / sizeof garden_inputs[0]),
    .enums = garden_enums,
    .nenums = 1,
    .views = garden_views,
    .nviews = 2,
    .create = garden_create,
    .destroy = garden_destroy,
    .check_input = garden_check_input,
    .apply_input = garden_apply_input,
    .step = garden_step,
    .frame_size = garden_frame_size,
    .render = garden_render,
    .save_max = sim__garden_save_max,
    .save = sim__garden_save,
    .load = sim__garden_load,
    .diff = sim__garden_diff,
    .adopt = garden_adopt,
};
