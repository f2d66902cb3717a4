/* terrarium.c — the terrarium kind: the tick, the inputs, params and scenes, create and destroy,
 * and the vtable. The world is Rain World-style (seed 001, and section 1 of seed 000): a lizard
 * and a scrambler on a Verlet frame in one authored room, with legs, brains and dolls. 40 Hz.
 *
 * Nothing moves by keyframed animation. A brain writes a direction and a target speed; the body is
 * pushed (a ride-height spring per body chunk, a drive, a little grip from planted feet); the
 * solver (verlet.c) does the rest. Limbs are points with a four-state machine that never touch the
 * frame; the doll is drawn over wherever the circles ended up.
 *
 * A tick: apply inputs (grab, drag, release, shove, spawn, pointer) → each brain thinks → each
 * body is pushed → one solver step → each creature senses (contacts, facing, where it is) and its
 * limbs and head update. All timers count ticks; every random choice comes from a creature's own
 * stream, sim_rng_stream(seed, "terrarium.creature.N").
 *
 * World units are the seed's. The room is 480×270 units; the frame shows it at w/480 pixels a
 * unit (two thirds of a pixel at the default 320×180). Inputs come in frame pixels.
 *
 * The rest of the folder, one subject a file: room.c (the room, the waypoint graph, path search),
 * body.c (species, bodies on the solver, the push), limbs.c (footholds, limbs, the gait), nav.c
 * (goals, the graph, climbing), brain.c (brains and senses), state.c (save, load, desync reports)
 * and doll.c (drawing, the x-ray). terrarium.h is what the modules, the doll and the tests share;
 * terrarium_int.h is for the modules alone. */
#include "terrarium_int.h"
#include <stdlib.h>

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define AIR_DRAG 0.002               /* ours: 8% of velocity a second in the air, so ropes settle */
#define GRAB_STIFF 0.4
#define GRAB_REACH 16.0              /* ours: a grab takes a chunk whose edge is this close */
#define SHOVE_RADIUS 40.0            /* ours */
#define SHOVE_MAX 8.0                /* ours: the cap on a shove, units per tick (under the 9 cap) */
#define OPENING_X0 40                /* ours: the demo's creatures start on the floor between … */
#define OPENING_X1 440               /* … these x (the outer floor waypoints, give or take) … */
#define OPENING_APART 140            /* … at least this far apart (a lunge and a bit), unless the
                                      * scrambler starts on a plank */

/* ---- events ------------------------------------------------------------------------------------
 * `brain creature=I species=lizard|scrambler from=STATE to=STATE`: a brain ended a tick in
 * another state than it began it in (a lunge is to=lunge). Names are the brains' static strings. */
static void report_brain(const sim_ctx *ctx, const terra_world *t, int ci, int was)
{
    const terra_creature *c = &t->cr[ci];
    sim_event *e = sim_event_add(ctx, "brain");
    sim_event_num(e, "creature", ci);
    sim_event_str(e, "species", spec(c)->name);
    sim_event_str(e, "from", terra__brain_name(was));
    sim_event_str(e, "to", terra__brain_name(c->brain));
}

/* ---- the tick ------------------------------------------------------------------------------------- */
/* One tick, after the queued inputs: every brain thinks, every body is pushed, one solver step,
 * then every creature senses and moves its limbs and head. Allocates nothing. */
static void terra_step(void *impl, const sim_ctx *ctx)
{
    terra_world *t = impl;
    t->tick = ctx->tick;
    if (t->ptr_ttl) t->ptr_ttl--;
    for (int i = 0; i < t->ncr; i++) {
        uint8_t was = t->cr[i].brain;
        terra__think(t, i);
        if (t->cr[i].brain != was) report_brain(ctx, t, i, was);
    }
    sim_phase_end(ctx, "brains");
    for (int i = 0; i < t->ncr; i++) terra__push(t, &t->cr[i]);
    sim_phase_end(ctx, "pushes");
    sim_verlet_step(&t->v);
    sim_phase_end(ctx, "solver");
    for (int i = 0; i < t->ncr; i++) {
        terra_creature *c = &t->cr[i];
        terra__sense(t, c);
        terra__update_limbs(t, c, ctx->tick);
        terra__update_head(t, c);
        terra__lunge_contact(t, c);
    }
    sim_phase_end(ctx, "senses and limbs");
}

/* ---- inputs ----------------------------------------------------------------------------------------------- */
enum { IN_POINTER, IN_GRAB, IN_DRAG, IN_RELEASE, IN_SHOVE, IN_SPAWN };
#define COORD_MAX 100000
#define SHOVE_ARG_MAX 1000
static const char *const body_names[BODY_NKINDS] = { "rope", "lizard", "scrambler" };
static const sim_input_desc terra_inputs[] = {
    [IN_POINTER] = { "pointer", 2,
                     { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                     "point at something: heads within 170 units turn to look (for 5 s)" },
    [IN_GRAB] = { "grab", 2,
                  { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                  "pin the nearest chunk within reach to the point (one grab per client)" },
    [IN_DRAG] = { "drag", 2,
                  { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL } },
                  "move your grab's pin to the point" },
    [IN_RELEASE] = { "release", 0, { { NULL, 0, 0, NULL } }, "let go of your grab" },
    [IN_SHOVE] = { "shove", 4,
                   { { "x", -COORD_MAX, COORD_MAX, NULL }, { "y", -COORD_MAX, COORD_MAX, NULL },
                     { "dx", -SHOVE_ARG_MAX, SHOVE_ARG_MAX, NULL },
                     { "dy", -SHOVE_ARG_MAX, SHOVE_ARG_MAX, NULL } },
                   "push everything near the point by (dx, dy) pixels per tick (capped at 8 units)" },
    [IN_SPAWN] = { "spawn", 3,
                   { { "kind", 0, BODY_NKINDS - 1, "body" }, { "x", -COORD_MAX, COORD_MAX, NULL },
                     { "y", -COORD_MAX, COORD_MAX, NULL } },
                   "add a rope, lizard or scrambler at the point (up to 16 creatures and 8 ropes)" },
};
static const sim_enum_desc terra_enums[] = {
    { "body", BODY_NKINDS, body_names },
};

static double to_world(const terra_world *t, int32_t px) { return (double)px / t->scale; }

/* Inside the room, clear of walls, ceiling and floor. */
static int in_room(double x, double y)
{
    return x > WALL_L + 4.0 && x < WALL_R - 4.0 && y > CEIL_Y + 4.0 && y < terra__floor_y(x) - 2.0;
}

static int terra_check_input(const void *impl, const sim_input *in, char *err, size_t errlen)
{
    const terra_world *t = impl;
    if (in->kind != IN_SPAWN) return 0;
    double x = to_world(t, in->args[1]), y = to_world(t, in->args[2]);
    if (!in_room(x, y)) {
        sim__fmt(err, errlen, "spawn: (%d, %d) is not inside the room (walls at x %d and %d, "
                 "ceiling at y %d, floor at y %d)", (int)in->args[1], (int)in->args[2],
                 (int)(WALL_L * t->scale + 0.5), (int)(WALL_R * t->scale + 0.5),
                 (int)(CEIL_Y * t->scale + 0.5), (int)(terra__floor_y(x) * t->scale + 0.5));
        return SIM_EINPUT;
    }
    int kind = in->args[0];
    int ropes = terra__count_bodies(t, BODY_ROPE);
    if (t->v.nbody >= TERRA_MAX_BODIES || (kind == BODY_ROPE && ropes >= TERRA_MAX_ROPES) ||
        (kind != BODY_ROPE && t->ncr >= TERRA_MAX_CREATURES)) {
        sim__fmt(err, errlen, "spawn: the terrarium is full (%d creatures of %d, %d ropes of %d)",
                 t->ncr, TERRA_MAX_CREATURES, ropes, TERRA_MAX_ROPES);
        return SIM_EINPUT;
    }
    return 0;
}

static int find_grab(const terra_world *t, uint32_t client)
{
    for (int i = 0; i < t->ngrab; i++)
        if (t->grab[i].client == client) return i;
    return -1;
}

static void release_grab(terra_world *t, uint32_t client)
{
    int g = find_grab(t, client);
    if (g < 0) return;
    int p = sim_verlet_pin_find(&t->v, t->grab[g].tag);
    if (p >= 0) sim_verlet_pin_remove(&t->v, p);
    memmove(&t->grab[g], &t->grab[g + 1], (size_t)(t->ngrab - g - 1) * sizeof *t->grab);
    t->ngrab--;
}

static double clamp_x(double x) { return clampd(x, WALL_L + 1.0, WALL_R - 1.0); }
static double clamp_y(double y) { return clampd(y, CEIL_Y + 1.0, FLOOR_Y + 18.0); }

/* A fresh grab tag: 1 .. 2^31 − 1, never one in use. */
static uint32_t new_tag(terra_world *t)
{
    for (;;) {
        uint32_t tag = t->next_tag;
        t->next_tag = t->next_tag + 1 >= CLING_TAG ? 1 : t->next_tag + 1;
        if (sim_verlet_pin_find(&t->v, tag) < 0) return tag;
    }
}

static void do_grab(terra_world *t, uint32_t client, double x, double y)
{
    release_grab(t, client);
    if (t->ngrab >= TERRA_MAX_GRABS) return;
    int best = -1;
    double bd = 0.0;
    for (int i = 0; i < t->v.nchunk; i++) {
        const sim_chunk *c = &t->v.chunk[i];
        double d = dist(c->x, c->y, x, y) - c->r;
        if (d > GRAB_REACH) continue;
        if (best < 0 || d < bd) {
            best = i;
            bd = d;
        }
    }
    if (best < 0) return;
    uint32_t tag = new_tag(t);
    if (sim_verlet_pin_add(&t->v, best, tag, clamp_x(x), clamp_y(y), GRAB_STIFF) < 0) return;
    t->grab[t->ngrab].client = client;
    t->grab[t->ngrab].tag = tag;
    t->ngrab++;
}

static void terra_apply_input(void *impl, const sim_ctx *ctx, const sim_input *in)
{
    terra_world *t = impl;
    double x = in->nargs >= 2 ? to_world(t, in->args[in->kind == IN_SPAWN ? 1 : 0]) : 0.0;
    double y = in->nargs >= 2 ? to_world(t, in->args[in->kind == IN_SPAWN ? 2 : 1]) : 0.0;
    switch (in->kind) {
    case IN_POINTER:
        /* Anywhere off the room is as uninteresting as anywhere else off it: keep it near. */
        t->ptr_x = clampd(x, -TERRA_ROOM_W * 0.5, TERRA_ROOM_W * 1.5);
        t->ptr_y = clampd(y, -TERRA_ROOM_H * 0.5, TERRA_ROOM_H * 1.5);
        t->ptr_ttl = POINTER_TTL;
        break;
    case IN_GRAB:
        do_grab(t, in->client, x, y);
        break;
    case IN_DRAG: {
        int g = find_grab(t, in->client);
        int p = g >= 0 ? sim_verlet_pin_find(&t->v, t->grab[g].tag) : -1;
        if (p >= 0) {
            t->v.pin[p].x = clamp_x(x);
            t->v.pin[p].y = clamp_y(y);
        }
        break;
    }
    case IN_RELEASE:
        release_grab(t, in->client);
        break;
    case IN_SHOVE: {
        double ix = to_world(t, in->args[2]), iy = to_world(t, in->args[3]);
        double m = sim_sqrt(ix * ix + iy * iy);
        if (m > SHOVE_MAX) {
            ix *= SHOVE_MAX / m;
            iy *= SHOVE_MAX / m;
        }
        for (int i = 0; i < t->v.nchunk; i++) {
            sim_chunk *c = &t->v.chunk[i];
            double d = dist(c->x, c->y, x, y);
            if (d >= SHOVE_RADIUS) continue;
            double f = 1.0 - d / SHOVE_RADIUS;
            c->px -= ix * f;
            c->py -= iy * f;
        }
        break;
    }
    case IN_SPAWN:
        /* check_input vetted the place and the caps; inputs queued together can still overrun
         * a cap, and those are dropped here. */
        if (!in_room(x, y)) break;
        if (in->args[0] == BODY_ROPE) {
            if (terra__count_bodies(t, BODY_ROPE) < TERRA_MAX_ROPES) terra__build_rope(t, x, y);
        } else {
            terra__build_creature(t, in->args[0] == BODY_LIZARD ? SPECIES_LIZARD : SPECIES_SCRAMBLER, x, y, 0,
                           ctx->seed);
        }
        break;
    default:
        break;
    }
}

/* ---- params, scenes, lifecycle -------------------------------------------------------------------------- */
enum { P_W, P_SCENE };
enum { SCENE_DEMO, SCENE_EMPTY };
static const char *const scene_names[] = { "demo", "empty", NULL };
static const sim_param_desc terra_params[] = {
    [P_W] = { "w", SIM_PARAM_INT, 320, 160, 1280, NULL, NULL,
              "frame width in pixels, a multiple of 16; the height is w·9/16" },
    [P_SCENE] = { "scene", SIM_PARAM_ENUM, SCENE_DEMO, 0, 0, scene_names, NULL,
                  "demo (a lizard and a scrambler) or empty (the room alone)" },
};

/* The demo's opening, drawn from the seed's stream "terrarium.opening" (ours: the seed names no
 * places): the lizard somewhere on the floor facing either way; the scrambler, two times in
 * three, on the floor at least OPENING_APART from it, else in the middle of one of the planks,
 * facing either way. The two can start in sight and inside the lizard's 260-unit spotting range
 * (a hunt from the first second), out of range, or out of sight above a plank (a patrol first):
 * seeds differ from the first tick. */
static void build_opening(terra_world *t, uint64_t seed)
{
    sim_rng r;
    sim_rng_stream(&r, seed, "terrarium.opening");
    int lx = sim_rng_range(&r, OPENING_X0, OPENING_X1);
    int lf = sim_rng_below(&r, 2) ? 1 : -1;
    int sf = sim_rng_below(&r, 2) ? 1 : -1;
    double sx, sy;
    if (sim_rng_below(&r, 3) < 2) {
        int x = lx;
        while (dabs((double)(x - lx)) < OPENING_APART) x = sim_rng_range(&r, OPENING_X0, OPENING_X1);
        sx = x;
        sy = FLOOR_Y - 10.0;
    } else {
        const sim_seg *pl = &terra_segs[sim_rng_below(&r, 2) ? SEG_PLANK_R : SEG_PLANK_L];
        sx = 0.5 * (pl->ax + pl->bx) + sf * 10.0;     /* the tail's longer than the neck */
        sy = pl->ay - 10.0;
    }
    terra__build_creature(t, SPECIES_LIZARD, lx, FLOOR_Y - 12.0, lf, seed);
    terra__build_creature(t, SPECIES_SCRAMBLER, sx, sy, sf, seed);
}

static void terra_destroy(void *impl)
{
    terra_world *t = impl;
    if (!t) return;
    sim_verlet_free(&t->v);
    terra__render_free(t);
    free(t);
}

static int terra_create(const sim_params *p, uint64_t seed, int bare, void **impl, char *err,
                        size_t errlen)
{
    if (p->ival[P_W] % 16 != 0) {
        sim__fmt(err, errlen, "terrarium params: w=%lld must be a multiple of 16",
                 (long long)p->ival[P_W]);
        return SIM_EPARAM;
    }
    terra_world *t = calloc(1, sizeof *t);
    if (!t) return SIM_ENOMEM;
    t->w = (int)p->ival[P_W];
    t->h = t->w * 9 / 16;
    t->scale = (double)t->w / TERRA_ROOM_W;
    t->scene = (int)p->ival[P_SCENE];
    if (sim_verlet_init(&t->v, TERRA_MAX_CHUNKS, TERRA_MAX_LINKS, TERRA_MAX_PINS, TERRA_MAX_BODIES) ||
        terra__render_alloc(t)) {
        terra_destroy(t);
        sim__fmt(err, errlen, "terrarium: out of memory");
        return SIM_ENOMEM;
    }
    t->v.dt = DT;
    t->v.gravity = GRAVITY;
    t->v.drag = AIR_DRAG;
    t->v.seg = terra_segs;
    t->v.nseg = TERRA_NSEG;
    t->next_tag = 1;
    /* The room's pictures are for render only: a world never rendered (bare 2: a desync
     * report's, a state diff's) goes without them, and a load takes them (terra_adopt). */
    if (bare != 2) terra__render_draw(t);
    if (!bare && t->scene == SCENE_DEMO) build_opening(t, seed);
    *impl = t;
    return 0;
}

/* The room's pictures depend on the width alone: taken from the world a load replaces when the
 * widths match (a replay's every span, a fuzzer's every restore), else drawn into the buffers
 * create allocated for this width. */
static void terra_adopt(void *to, void *from)
{
    terra_world *t = to, *f = from;
    if (t->w != f->w) {
        terra__render_draw(t);
        return;
    }
    uint8_t *room = t->room_px, *xray = t->xray_px, *homage = t->homage_px;
    t->room_px = f->room_px;
    t->xray_px = f->xray_px;
    t->homage_px = f->homage_px;
    t->pal = f->pal;
    f->room_px = room;
    f->xray_px = xray;
    f->homage_px = homage;
}

static void terra_frame_size(const void *impl, int *w, int *h)
{
    const terra_world *t = impl;
    *w = t->w;
    *h = t->h;
}

static void terra_render(const void *impl, const sim_ctx *ctx, int view, sim_frame *out)
{
    terra__render(impl, ctx, view, out);
}

static const char *const terra_views[] = {
    [TERRA_VIEW_NORMAL] = "normal", [TERRA_VIEW_XRAY] = "xray", [TERRA_VIEW_HOMAGE] = "homage",
};

const sim_kind sim__kind_terrarium = {
    .name = "terrarium",
    .id = 2,
    .hz = TERRA_HZ,
    .state_version = 1,
    .params = terra_params,
    .nparams = (int)(sizeof terra_params / sizeof terra_params[0]),
    .inputs = terra_inputs,
    .ninputs = (int)(sizeof terra_inputs / sizeof terra_inputs[0]),
    .enums = terra_enums,
    .nenums = 1,
    .views = terra_views,
    .nviews = (int)(sizeof terra_views / sizeof terra_views[0]),
    .create = terra_create,
    .destroy = terra_destroy,
    .check_input = terra_check_input,
    .apply_input = terra_apply_input,
    .step = terra_step,
    .frame_size = terra_frame_size,
    .render = terra_render,
    .save_max = terra__save_max,
    .save = terra__save,
    .load = terra__load,
    .diff = terra__diff,
    .adopt = terra_adopt,
};
