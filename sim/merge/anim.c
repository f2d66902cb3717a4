/* anim.c — the carrier's torso and hands on the cel-set engine (seed 002, sim/anim/celset.c).
 *
 * The seed's hands are "two sprites each with a flip: open and closed variants, vertically flipped
 * per phase to get four poses out of two drawings". Here each pose is a one-cel cel set (the cel
 * shows the open or the closed drawing; the cel set's flip flags add the vertical flip, and the
 * left hand's the horizontal one), so a pose change is a reinit of the slot with another cel set
 * and the behaviour id kept. The torso's cel set is the carrier's idle: two cels, the second one
 * pixel lower, 24 frames each, looping — a breath. The hands' behaviour follows the torso's cel,
 * so they breathe with it.
 *
 * Tiles: 0 the closed hand, 1 the open hand, 2 the torso (the world's art, merge_art). */
#include "merge_int.h"

enum { TILE_CLOSED, TILE_OPEN, TILE_BODY, NTILES };
enum { CEL_CLOSED, CEL_OPEN, CEL_BODY_UP, CEL_BODY_DOWN, NCELS };
enum { BEH_NONE, BEH_HAND, BEH_BODY, NBEH };
enum { OBJ_LEFT, OBJ_RIGHT, OBJ_BODY, NOBJ };
#define IDLE_FRAMES 24                  /* ours: a 0.8 s breath, two cels of 24 frames */

/* Cel sets 0..3: the left hand's poses, 4..7: the right's (pose = open·2 + flipped·1); 8: the
 * torso's idle. */
#define X SIM_CEL_XFLIP
#define Y SIM_CEL_YFLIP
static const uint8_t CS_HAND[8][4] = {
    { CEL_CLOSED, 1, X, SIM_CEL_END }, { CEL_CLOSED, 1, X | Y, SIM_CEL_END },
    { CEL_OPEN, 1, X, SIM_CEL_END },   { CEL_OPEN, 1, X | Y, SIM_CEL_END },
    { CEL_CLOSED, 1, 0, SIM_CEL_END }, { CEL_CLOSED, 1, Y, SIM_CEL_END },
    { CEL_OPEN, 1, 0, SIM_CEL_END },   { CEL_OPEN, 1, Y, SIM_CEL_END },
};
#undef X
#undef Y
static const uint8_t CS_BODY[] = {
    CEL_BODY_UP, IDLE_FRAMES - 1, 0, CEL_BODY_DOWN, IDLE_FRAMES - 1, 0, SIM_CEL_RESTART,
};
#define CS_BODY_ID 8

static const sim_cel_set CELSETS[9] = {
    { CS_HAND[0], 4 }, { CS_HAND[1], 4 }, { CS_HAND[2], 4 }, { CS_HAND[3], 4 },
    { CS_HAND[4], 4 }, { CS_HAND[5], 4 }, { CS_HAND[6], 4 }, { CS_HAND[7], 4 },
    { CS_BODY, sizeof CS_BODY },
};
static const sim_anim_object OBJECTS[NOBJ] = {
    [OBJ_LEFT] = { 0, BEH_HAND, 0 },
    [OBJ_RIGHT] = { 4, BEH_HAND, 0 },
    [OBJ_BODY] = { CS_BODY_ID, BEH_BODY, 0 },
};

/* vars[0]: 0 the left hand, 1 the right; vars[1]: the pose shown. */
static void beh_hand(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    merge_world *w = ctx;
    int side = s->vars[0] ? 1 : 0;
    int pose[2];
    sim__merge_hand_poses(&w->car, &pose[0], &pose[1]);
    if (pose[side] != s->vars[1]) {
        s->vars[1] = (uint8_t)pose[side];
        sim_anim_reinit(an, s, (uint8_t)(side * 4 + pose[side]));
    }
    s->x = (int16_t)((int)sim_floor(w->car.x) + (side ? MERGE_HAND_DX : -MERGE_HAND_DX));
    s->y = MERGE_HAND_Y;
    /* Breathe with the torso: one pixel down while it shows its second cel. */
    const sim_anim_slot *body = &an->slot[w->anim_slot[0]];
    s->y_ofs = (int16_t)(body->index && body->cel == 1 ? 1 : 0);
}

static void beh_body(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    merge_world *w = ctx;
    (void)an;
    s->x = (int16_t)sim_floor(w->car.x);
    s->y = MERGE_NECK_Y;
}

static const sim_anim_behaviour BEHAVIOURS[NBEH] = { NULL, beh_hand, beh_body };

/* An OAM set of one OBJ with its pixel (px, py) on the origin. */
static void one_obj(uint8_t *oam, int px, int py, int tile)
{
    oam[0] = 1;
    oam[1] = (uint8_t)(int8_t)(-px);
    oam[2] = (uint8_t)(int8_t)(-py);
    oam[3] = (uint8_t)tile;
    oam[4] = 0;
}

int sim__merge_anim_init(merge_world *w)
{
    w->anim_tiles[TILE_CLOSED] = w->art.hand_closed;
    w->anim_tiles[TILE_OPEN] = w->art.hand_open;
    w->anim_tiles[TILE_BODY] = w->art.body;
    /* A hand by its centre pixel (so the X flip keeps it in place: −8 − (−4) = −4); the torso by
     * its neck pixel, under the head's. */
    one_obj(w->anim_oam[CEL_CLOSED], MERGE_HAND_W / 2, MERGE_HAND_H / 2, TILE_CLOSED);
    one_obj(w->anim_oam[CEL_OPEN], MERGE_HAND_W / 2, MERGE_HAND_H / 2, TILE_OPEN);
    one_obj(w->anim_oam[CEL_BODY_UP], MERGE_BODY_NECK_X, MERGE_BODY_NECK_Y, TILE_BODY);
    one_obj(w->anim_oam[CEL_BODY_DOWN], MERGE_BODY_NECK_X, MERGE_BODY_NECK_Y - 1, TILE_BODY);
    for (int c = 0; c < NCELS; c++) {
        w->anim_cels[c].base_tile = 0;
        w->anim_cels[c].oam = w->anim_oam[c];
        w->anim_cels[c].oam_len = 5;
    }
    sim_anim_config cfg = sim_anim_config_default();
    cfg.nslots = MERGE_ANIM_SLOTS;
    cfg.objects = OBJECTS;
    cfg.nobjects = NOBJ;
    cfg.celsets = CELSETS;
    cfg.ncelsets = 9;
    cfg.cels = w->anim_cels;
    cfg.ncels = NCELS;
    cfg.tiles = w->anim_tiles;
    cfg.ntiles = NTILES;
    cfg.behaviours = BEHAVIOURS;
    cfg.nbehaviours = NBEH;
    return sim_anim_init(&w->anim, &cfg);
}

/* The torso first, so the hands (drawn later, slot order) are in front of it. */
void sim__merge_anim_start(merge_world *w)
{
    int x = (int)sim_floor(w->car.x);
    int b = sim_anim_alloc(&w->anim, OBJ_BODY, x, MERGE_NECK_Y);
    int l = sim_anim_alloc(&w->anim, OBJ_LEFT, x - MERGE_HAND_DX, MERGE_HAND_Y);
    int r = sim_anim_alloc(&w->anim, OBJ_RIGHT, x + MERGE_HAND_DX, MERGE_HAND_Y);
    /* Four slots and an empty engine: these cannot fail. */
    w->anim_slot[0] = (uint8_t)b;
    w->anim_slot[1] = (uint8_t)l;
    w->anim_slot[2] = (uint8_t)r;
    w->anim.slot[l].vars[0] = 0;
    w->anim.slot[r].vars[0] = 1;
    w->anim.slot[l].vars[1] = 0;          /* pose 0 (closed) is what cel sets 0 and 4 show */
    w->anim.slot[r].vars[1] = 0;
}

int sim__merge_anim_cel_closed(int cel)
{
    return cel == CEL_CLOSED;
}

void sim__merge_anim_tick(merge_world *w)
{
    sim_anim_tick(&w->anim, w);
}
