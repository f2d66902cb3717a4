/* merge.c — the merge kind: the tick, the inputs, the params, create and destroy, the vtable.
 *
 * A tick: the inputs are applied (a move sets the player's direction; a drop asks for a drop, at
 * once or after walking to its x) → the direction is chosen (a pointer drop walking to its x, the
 * player's, or after 5 s without input the autopilot's) → the carrier walks, leans, wiggles,
 * dangles and juggles (carrier.c) → a drop, when asked for and the hands are free → every fruit's
 * look and blink timers (the held ones too: "the fruit are alive before they are dropped") → one
 * solver step → merges (fruit.c) → the game-over line → the cel-set engine runs the hands and the
 * torso (anim.c). Every random choice comes from the world's own streams (merge.next,
 * merge.life, merge.pilot) and each fruit's stream.
 *
 * The rest of the folder: fruit.c (the container, spawning, the merge, game over, scenes),
 * carrier.c (the carrier's motion, the juggle, the fruit's idle life), anim.c (the cel-set
 * tables), pilot.c (the autopilot), art*.c (the pixel art, drawn at create: art.h says which file
 * draws what), render.c (the frame) and state.c (save, load, desync reports). */
#include "merge_int.h"
#include <stdlib.h>

/* ---- the tick ------------------------------------------------------------------------------ */
static void do_drop(merge_world *w, const sim_ctx *ctx)
{
    double x, y;
    sim__merge_held_pos(w, &x, &y);
    double r = sim__merge_desc[w->held.tier].r;
    x = mg_clamp(x, MERGE_X0 + r + 1.0, MERGE_X1 - r - 1.0);
    /* The fruit leaves the hand with the carrier's walk. */
    double vx = (double)w->car.move_dir * w->ccfg.speed * MERGE_DT;
    if (sim__merge_spawn(w, w->held.tier, x, y, vx, 0.0, 0.0, &w->held.life) < 0) return;
    sim_event *e = sim_event_add(ctx, "drop");
    sim_event_num(e, "tier", w->held.tier);
    sim_event_num(e, "x", sim_snap(x));
    w->held = w->next;
    w->next.tier = w->upcoming;
    sim__merge_life_new(w, &w->next.life);
    w->upcoming = sim__merge_next_tier(w);
    sim__merge_carrier_start_juggle(&w->car);
}

static void merge_step(void *impl, const sim_ctx *ctx)
{
    merge_world *w = impl;
    w->tick = ctx->tick;
    if (w->idle < UINT32_MAX) w->idle++;
    int dir = w->input_dir, drop = 0;
    if (w->target_x >= 0) {
        double target = mg_clamp((double)w->target_x - MERGE_HAND_DX, w->ccfg.xmin, w->ccfg.xmax);
        dir = sim__merge_carrier_dir_to(&w->car, &w->ccfg, target, MERGE_DT);
        if (dir == 0) {
            w->target_x = -1;
            w->drop_pending = 1;
        }
    } else if (w->autopilot && w->idle >= MERGE_IDLE_TICKS && !w->over) {
        dir = sim__merge_pilot(w, &drop);
    }
    int tossing = w->car.juggle != MERGE_JUGGLE_IDLE;
    sim__merge_carrier_update(&w->car, &w->ccfg, MERGE_DT, dir);
    if (tossing && w->car.juggle == MERGE_JUGGLE_IDLE)      /* the toss landed in the right hand */
        sim_event_num(sim_event_add(ctx, "catch"), "tier", w->held.tier);
    if (drop) w->drop_pending = 1;
    if (w->over) w->drop_pending = 0;               /* no drops while the container empties */
    if (w->drop_pending && sim__merge_carrier_can_drop(&w->car)) {
        w->drop_pending = 0;
        do_drop(w, ctx);
    }
    sim_phase_end(ctx, "carrier");
    sim__merge_life_update(&w->held.life, MERGE_DT);
    sim__merge_life_update(&w->next.life, MERGE_DT);
    for (int i = 0; i < w->nfruit; i++) sim__merge_life_update(&w->fruit[i].life, MERGE_DT);
    sim_verlet_step(&w->v);
    sim_phase_end(ctx, "solver");
    sim__merge_resolve(w, ctx);
    sim_phase_end(ctx, "merges");
    sim__merge_over_step(w, ctx);
    sim__merge_anim_tick(w);
}

/* ---- inputs -------------------------------------------------------------------------------- */
enum { IN_MOVE, IN_DROP };
static const sim_input_desc merge_inputs[] = {
    [IN_MOVE] = { "move", 1, { { "dir", -1, 1, NULL } },
                  "walk left (-1), stop (0) or walk right (1); the carrier leans and wiggles" },
    [IN_DROP] = { "drop", 1, { { "x", -1, MERGE_W - 1, NULL } },
                  "drop the carried fruit: x -1 drops where the hand is, any other x (inside the "
                  "container) walks there first" },
};

static int merge_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    (void)impl;
    if (in->kind == IN_DROP && in->args[0] != -1 &&
        (in->args[0] < MERGE_X0 || in->args[0] > MERGE_X1)) {
        sim__fmt(err, errlen, "drop: x=%d is outside the container (x %d..%d, or -1 for where the "
                 "hand is)", (int)in->args[0], MERGE_X0, MERGE_X1);
        return SIM_EINPUT;
    }
    return 0;
}

static void merge_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    merge_world *w = impl;
    (void)ctx;
    w->idle = 0;
    w->pilot_x = -1;
    w->pilot_wait = 0;
    switch (in->kind) {
    case IN_MOVE:
        w->input_dir = (int8_t)in->args[0];
        w->target_x = -1;
        break;
    case IN_DROP:
        if (in->args[0] < 0) {
            w->target_x = -1;
            w->drop_pending = 1;
        } else {
            w->target_x = (int16_t)in->args[0];
        }
        break;
    default:
        break;
    }
}

/* ---- params, lifecycle ----------------------------------------------------------------------- */
enum { P_SCENE, P_AUTOPILOT, P_DROP_MS, P_CATCH_MS };
static const char *const scene_names[] = { "demo", "empty", "pile", NULL };
static const sim_param_desc merge_params[] = {
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, MERGE_SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (a few fruit already in), empty, or pile (60 fruit: the benchmark's)" },
    [P_AUTOPILOT] = { "autopilot", SIM_PARAM_INT, 1, 0, 1, NULL, NULL,
                      "1: after 5 s with no player input a seeded autopilot plays; 0: never" },
    [P_DROP_MS] = { "drop_ms", SIM_PARAM_INT, 250, 50, 2000, NULL, NULL,
                    "the juggle's throw, left hand to the apex, in ms (seed: AnimDropTime 0.25 s)" },
    [P_CATCH_MS] = { "catch_ms", SIM_PARAM_INT, 250, 50, 2000, NULL, NULL,
                     "the juggle's catch, apex to the right hand, in ms (seed: AnimCatchTime)" },
};

static void merge_destroy(void *impl)
{
    merge_world *w = impl;
    if (!w) return;
    sim_verlet_free(&w->v);
    sim_anim_free(&w->anim);
    sim__merge_art_free(&w->art);
    free(w->backdrop);
    free(w);
}

static int merge_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                        size_t errlen)
{
    merge_world *w = calloc(1, sizeof *w);
    if (!w) return SIM_ENOMEM;
    w->scene = (int)p->ival[P_SCENE];
    w->autopilot = (int)p->ival[P_AUTOPILOT];
    w->ccfg = sim__merge_carrier_cfg_default();
    w->ccfg.drop_time = (double)p->ival[P_DROP_MS] / 1000.0;
    w->ccfg.catch_time = (double)p->ival[P_CATCH_MS] / 1000.0;
    /* The right hand (the one a drop leaves) reaches from 5 px inside one wall to the other. */
    w->ccfg.xmin = MERGE_X0 + 5 - MERGE_HAND_DX;
    w->ccfg.xmax = MERGE_X1 - 5 - MERGE_HAND_DX;
    /* The art (and the backdrop, drawn once and copied under every frame) is for render only:
     * a world that is never rendered (bare 2: a desync report's) goes without it. */
    int draws = bare != 2;
    sim_frame bd = { 0 };
    if (sim_verlet_init(&w->v, MERGE_MAX_FRUIT, 1, 1, MERGE_MAX_FRUIT) ||
        (draws && (sim__merge_art_build(&w->art) || sim_frame_init(&bd, MERGE_W, MERGE_H))) ||
        sim__merge_anim_init(w)) {
        sim_frame_free(&bd);
        merge_destroy(w);
        sim__fmt(err, errlen, "merge: out of memory");
        return SIM_ENOMEM;
    }
    if (draws)
        sim__merge_draw_backdrop(&bd, &w->art, MERGE_X0, MERGE_X1, MERGE_TOP, MERGE_FLOOR,
                                 MERGE_LINE);
    w->backdrop = bd.px;
    sim__merge_container(w);
    w->target_x = -1;
    w->pilot_x = -1;
    sim_rng_stream(&w->rng, seed, "merge.next");
    sim_rng_stream(&w->pilot_rng, seed, "merge.pilot");
    sim_rng_stream(&w->life_rng, seed, "merge.life");
    sim__merge_carrier_init(&w->car, &w->ccfg, (w->ccfg.xmin + w->ccfg.xmax) * 0.5);
    if (!bare) {
        w->held.tier = sim__merge_next_tier(w);
        sim__merge_life_new(w, &w->held.life);
        w->next.tier = sim__merge_next_tier(w);
        sim__merge_life_new(w, &w->next.life);
        w->upcoming = sim__merge_next_tier(w);
        sim__merge_build_scene(w);
        sim__merge_anim_start(w);
    }
    *impl = w;
    return 0;
}

/* A load keeps the art and the backdrop of the world it replaces (they depend on nothing). */
static void merge_adopt(void *to, void *from)
{
    merge_world *t = to, *f = from;
    merge_art art = t->art;
    uint8_t *bd = t->backdrop;
    t->art = f->art;
    t->backdrop = f->backdrop;
    f->art = art;
    f->backdrop = bd;
    /* The cel-set engine's tile table holds copies of the art's sprites: point them at the art
     * the world now has. */
    t->anim_tiles[0] = t->art.hand_closed;
    t->anim_tiles[1] = t->art.hand_open;
    t->anim_tiles[2] = t->art.body;
}

static void merge_frame_size(const void *impl, int *fw, int *fh)
{
    (void)impl;
    *fw = MERGE_W;
    *fh = MERGE_H;
}

static void merge_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *out)
{
    sim__merge_render(impl, ctx, view, out);
}

static const char *const merge_views[] = { "normal", "xray" };

const sim_kind sim__kind_merge = {
    .name = "merge",
    .id = 4,
    .hz = MERGE_HZ,
    .state_version = 1,
    .params = merge_params,
    .nparams = (int)(sizeof merge_params / sizeof merge_params[0]),
    .inputs = merge_inputs,
    .ninputs = (int)(sizeof merge_inputs / sizeof merge_inputs[0]),
    .enums = NULL,
    .nenums = 0,
    .views = merge_views,
    .nviews = 2,
    .create = merge_create,
    .destroy = merge_destroy,
    .check_input = merge_check_input,
    .apply_input = merge_apply_input,
    .step = merge_step,
    .frame_size = merge_frame_size,
    .render = merge_render,
    .save_max = sim__merge_save_max,
    .save = sim__merge_save,
    .load = sim__merge_load,
    .diff = sim__merge_diff,
    .adopt = merge_adopt,
};
