/* check_celset.c — the cel-set sprite engine (sim/anim/celset.c) against seed 002, one test per
 * rule. Each test quotes the seed's sentence it pins. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/celset.h"

/* ---- fixture: tiles whose pixels name them, a few cels, cel sets per test ---------------------- */
static uint8_t tile_px[SIM_ANIM_TILES][6];
static sim_sprite tiles[SIM_ANIM_TILES];
/* tile 7 is 3×2 with six distinct pixels, so a flip shows */
static const uint8_t asym[6] = { 11, 12, 13, 14, 15, 16 };

static const uint8_t oam0[] = { 1, 0, 0, 1, 0 };               /* one OBJ at (0,0), tile 1 */
static const uint8_t oam1[] = { 1, 0, 0, 2, 0 };               /* tile 2 */
static const uint8_t oam2[] = { 1, 2, 1, 4, 0 };               /* (2,1), tile 4 + cel base 3 = 7 */
static const uint8_t oam3[] = { 1, 2, 1, 4, SIM_CEL_XFLIP };   /* the same, X-flipped OBJ */
static const uint8_t oam4[] = { 1, 0, 0, 250, 0 };             /* tile 250 + 4 + 5 wraps to 3 */
static const sim_cel cels[] = {
    { 0, oam0, sizeof oam0 }, { 0, oam1, sizeof oam1 }, { 3, oam2, sizeof oam2 },
    { 3, oam3, sizeof oam3 }, { 5, oam4, sizeof oam4 },
};
static sim_cel_set sets[SIM_ANIM_CELSETS];
static sim_anim_object objs[4];
static sim_anim_behaviour behs[SIM_ANIM_BEHAVIOURS];

static void fixture(void)
{
    for (int t = 0; t < SIM_ANIM_TILES; t++) {
        memset(tile_px[t], t, 6);
        tiles[t] = (sim_sprite){ 1, 1, tile_px[t], -1 };
    }
    memcpy(tile_px[7], asym, 6);
    tiles[7] = (sim_sprite){ 3, 2, tile_px[7], -1 };
    memset(sets, 0, sizeof sets);
    memset(behs, 0, sizeof behs);
    for (int i = 0; i < 4; i++) objs[i] = (sim_anim_object){ (uint8_t)i, (uint8_t)i, 0 };
}

static void mk(sim_anim *an, int nslots)
{
    fixture();
    sim_anim_config c = sim_anim_config_default();
    if (nslots) c.nslots = nslots;
    c.objects = objs; c.nobjects = 4;
    c.celsets = sets; c.ncelsets = SIM_ANIM_CELSETS;
    c.cels = cels; c.ncels = (int)(sizeof cels / sizeof cels[0]);
    c.tiles = tiles; c.ntiles = SIM_ANIM_TILES;
    c.behaviours = behs; c.nbehaviours = SIM_ANIM_BEHAVIOURS;
    ck_assert_int_eq(sim_anim_init(an, &c), 0);
}

#define SET(id, ...) do { static const uint8_t b_[] = { __VA_ARGS__ }; \
    sets[id] = (sim_cel_set){ b_, sizeof b_ }; } while (0)

/* The cel a slot rendered on the last tick, or -1 for nothing. */
static int shown(const sim_anim *an, int slot)
{
    return an->slot[slot].shown ? an->slot[slot].shown_cel : -1;
}
/* Tick and return what slot 0 rendered. */
static int tick0(sim_anim *an)
{
    sim_anim_tick(an, NULL);
    return shown(an, 0);
}

/* ---- slots and allocation -------------------------------------------------------------------- */
/* "wSpriteAnimCount is incremented (overflowing from 255 to 1, however), and the slot's index is
 * set to that new value." */
START_TEST(counter_wraps_255_to_1)
{
    sim_anim an;
    mk(&an, 0);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), 0);
    ck_assert_int_eq(an.slot[0].index, 1);
    for (int i = 2; i <= 255; i++) {
        sim_anim_delete(&an, &an.slot[0]);
        ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), 0);
        ck_assert_int_eq(an.slot[0].index, i);
    }
    sim_anim_delete(&an, &an.slot[0]);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), 0);
    ck_assert_int_eq(an.slot[0].index, 1);       /* 255 → 1, never 0 (0 = empty) */
    ck_assert_int_eq(an.count, 1);
    sim_anim_free(&an);
}
END_TEST

/* "Its celset, behavior, and base_tile are copied from the requested entry in SpriteAnimObjects.
 * Its x and y coords are set as requested. All subsequent fields are zeroed (except cel, since
 * it will be pre-incremented). The base pointer is ... returned in bc for any touch-ups." */
START_TEST(alloc_copies_sets_and_zeroes)
{
    sim_anim an;
    mk(&an, 0);
    objs[2] = (sim_anim_object){ 9, 2, 40 };
    memset(&an.slot[0], 0x5A, sizeof an.slot[0]);
    an.slot[0].index = 0;                          /* empty, but full of junk */
    an.slot[1].index = 3;                          /* busy: skipped */
    int s = sim_anim_alloc(&an, 2, 123, -7);
    ck_assert_int_eq(s, 0);
    sim_anim_slot *a = &an.slot[s];
    ck_assert_int_eq(a->celset_id, 9);
    ck_assert_int_eq(a->behaviour_id, 2);
    ck_assert_int_eq(a->base_tile_id, 40);
    ck_assert_int_eq(a->x, 123);
    ck_assert_int_eq(a->y, -7);
    ck_assert_int_eq(a->x_ofs, 0);
    ck_assert_int_eq(a->y_ofs, 0);
    ck_assert_int_eq(a->duration, 0);
    ck_assert_int_eq(a->duration_ofs, 0);
    ck_assert_int_eq(a->cel, 0xFF);                /* pre-incremented to entry 0 */
    for (int i = 0; i < 5; i++) ck_assert_int_eq(a->vars[i], 0);
    ck_assert_int_eq(sim_anim_alloc(&an, 4, 0, 0), SIM_EINVAL);   /* no such object */
    sim_anim_free(&an);
}
END_TEST

/* "InitSpriteAnimStruct searches for an empty slot, returning with carry set iff not found."
 * "There is room for NUM_SPRITE_ANIM_STRUCTS concurrent sprite animations (10 in the base game)" */
START_TEST(full_slot_table_fails)
{
    sim_anim an;
    mk(&an, 0);
    ck_assert_int_eq(an.cfg.nslots, 10);
    for (int i = 0; i < 10; i++) ck_assert_int_eq(sim_anim_alloc(&an, 0, i, 0), i);
    uint8_t before[400];
    memcpy(before, an.slot, sizeof(sim_anim_slot) * 10);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), SIM_EFULL);
    ck_assert_int_eq(an.count, 10);                /* a failed allocation changes nothing */
    ck_assert(memcmp(before, an.slot, sizeof(sim_anim_slot) * 10) == 0);
    sim_anim_delete(&an, &an.slot[4]);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), 4);
    sim_anim_free(&an);
    mk(&an, 3);                                    /* configurable per world */
    for (int i = 0; i < 3; i++) ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), i);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), SIM_EFULL);
    sim_anim_free(&an);
}
END_TEST

/* "There is room for ... 256 cel sets, and 256 behaviors." */
START_TEST(tables_of_256)
{
    sim_anim an;
    mk(&an, 0);
    SET(255, 1, 0, 0, SIM_CEL_END);
    objs[3] = (sim_anim_object){ 255, 255, 0 };
    ck_assert_int_eq(sim_anim_alloc(&an, 3, 0, 0), 0);
    ck_assert_int_eq(tick0(&an), 1);
    sim_anim_config c = an.cfg;
    sim_anim_free(&an);
    c.ncelsets = 257;
    ck_assert_int_eq(sim_anim_init(&an, &c), SIM_EINVAL);
    c.ncelsets = 256; c.nbehaviours = 257;
    ck_assert_int_eq(sim_anim_init(&an, &c), SIM_EINVAL);
    c.nbehaviours = 256; c.nslots = 0;
    ck_assert_int_eq(sim_anim_init(&an, &c), SIM_EINVAL);
}
END_TEST

/* ---- durations ------------------------------------------------------------------------------- */
/* "The cel will be shown for duration frames, plus anim's duration offset, plus 1." */
START_TEST(duration_plus_offset_plus_one)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 3, 0, 1, 1, 0, SIM_CEL_END);
    sim_anim_alloc(&an, 0, 0, 0);
    an.slot[0].duration_ofs = 2;
    int seq[12];
    for (int i = 0; i < 12; i++) seq[i] = tick0(&an);
    for (int i = 0; i < 6; i++) ck_assert_int_eq(seq[i], 0);     /* 3 + 2 + 1 */
    for (int i = 6; i < 12; i++) ck_assert_int_eq(seq[i], 1);
    sim_anim_free(&an);
}
END_TEST

/* "This is only computed when switching to a new cel and cached as the anim's duration, so
 * changes to the anim's duration offset will only take effect when the anim's duration next
 * elapses." */
START_TEST(offset_takes_effect_at_next_switch)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 2, 0, 1, 2, 0, SIM_CEL_RESTART);
    sim_anim_alloc(&an, 0, 0, 0);
    ck_assert_int_eq(tick0(&an), 0);               /* cel 0 starts: 2 + 0 + 1 = 3 frames */
    an.slot[0].duration_ofs = 3;
    ck_assert_int_eq(tick0(&an), 0);
    ck_assert_int_eq(tick0(&an), 0);
    ck_assert_int_eq(tick0(&an), 1);               /* still 3 frames, not 6 */
    for (int i = 0; i < 5; i++) ck_assert_int_eq(tick0(&an), 1);   /* now 2 + 3 + 1 = 6 */
    ck_assert_int_eq(tick0(&an), 0);
    sim_anim_free(&an);
}
END_TEST

/* "No clamping or overflow checks are made when adding the duration offset to the base
 * durations; thus, in principle, a negative duration offset could be used to speed up
 * animations, but beware of underflowing." */
START_TEST(negative_offset_and_8bit_underflow)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 5, 0, 1, 1, 0, 0, 5, 0, SIM_CEL_END);
    sim_anim_alloc(&an, 0, 0, 0);
    an.slot[0].duration_ofs = (uint8_t)-3;
    for (int i = 0; i < 3; i++) ck_assert_int_eq(tick0(&an), 0);   /* 5 − 3 + 1: sped up */
    /* cel 1: 1 − 3 = −2 → $FE as u8, shown 255 frames */
    for (int i = 0; i < 255; i++) ck_assert_int_eq(tick0(&an), 1);
    ck_assert_int_eq(tick0(&an), 0);
    sim_anim_free(&an);
}
END_TEST

/* "The cel ID is re-read on every frame, and changes thus takes effect on the next render." */
START_TEST(cel_id_reread_every_frame)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 50, 0, SIM_CEL_END);
    SET(1, 1, 50, 0, SIM_CEL_END);
    sim_anim_alloc(&an, 0, 0, 0);
    ck_assert_int_eq(tick0(&an), 0);
    an.slot[0].celset_id = 1;                      /* same entry index, another cel id */
    ck_assert_int_eq(tick0(&an), 1);
    ck_assert_int_eq(an.slot[0].duration, 49);     /* the cached duration ran on */
    sim_anim_free(&an);
}
END_TEST

/* ---- commands -------------------------------------------------------------------------------- */
/* "oamend $FF Repeats the previous cel ad infinitum" */
START_TEST(end_repeats_forever)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 0, 0, 1, 0, 0, SIM_CEL_END, 0, 0, 0);
    sim_anim_alloc(&an, 0, 0, 0);
    ck_assert_int_eq(tick0(&an), 0);
    for (int i = 0; i < 1000; i++) ck_assert_int_eq(tick0(&an), 1);
    sim_anim_free(&an);
}
END_TEST

/* "oamrestart $FE Immediately restarts the animation (loop)" */
START_TEST(restart_loops)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 0, 0, 1, 1, 0, SIM_CEL_RESTART, 1, 0, 0);
    sim_anim_alloc(&an, 0, 0, 0);
    for (int k = 0; k < 50; k++) {
        ck_assert_int_eq(tick0(&an), 0);
        ck_assert_int_eq(tick0(&an), 1);
        ck_assert_int_eq(tick0(&an), 1);
    }
    sim_anim_free(&an);
}
END_TEST

/* "oamwait $FD Displays nothing for its duration" */
START_TEST(wait_draws_nothing)
{
    sim_anim an;
    sim_frame f;
    mk(&an, 0);
    ck_assert_int_eq(sim_frame_init(&f, 16, 16), 0);
    SET(0, SIM_CEL_WAIT, 2, 0, 0, 0, SIM_CEL_END);
    sim_anim_alloc(&an, 0, 4, 4);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(tick0(&an), -1);
        sim_raster_clear(&f, 0);
        sim_anim_draw(&an, &f);
        for (int p = 0; p < 256; p++) ck_assert_int_eq(f.px[p], 0);
    }
    ck_assert_int_eq(tick0(&an), 0);
    sim_raster_clear(&f, 0);
    sim_anim_draw(&an, &f);
    ck_assert_int_eq(f.px[4 * 16 + 4], 1);
    sim_frame_free(&f);
    sim_anim_free(&an);
}
END_TEST

/* "oamdelete $FC immediately deletes the object (does not have a duration)" — here as the last
 * byte of the set: the parser never reads a duration byte past the end. */
START_TEST(delete_as_last_byte)
{
    sim_anim an;
    mk(&an, 0);
    SET(0, 0, 1, 0, SIM_CEL_DELETE);
    sim_anim_alloc(&an, 0, 0, 0);
    ck_assert_int_eq(tick0(&an), 0);
    ck_assert_int_eq(tick0(&an), 0);
    ck_assert_int_eq(an.slot[0].index, 1);
    ck_assert_int_eq(tick0(&an), -1);             /* removed at once, nothing drawn */
    ck_assert_int_eq(an.slot[0].index, 0);
    ck_assert_int_eq(sim_anim_alloc(&an, 0, 0, 0), 0);   /* the slot is free again */
    sim_anim_free(&an);
}
END_TEST

/* Footnote 3's hazard, ruled out: "If a oamdelete command happens to be stored at CPU address
 * $7FFF, this could unsafely access VRAM" — a set cut inside an entry reads as its end. */
START_TEST(parser_stops_at_end_of_set)
{
    sim_anim an;
    mk(&an, 0);
    static const uint8_t bytes[] = { 0, 0, 0, 1, 0 };    /* entry 1 lacks its flags byte */
    sets[0] = (sim_cel_set){ bytes, sizeof bytes };
    sim_anim_alloc(&an, 0, 0, 0);
    for (int i = 0; i < 20; i++) ck_assert_int_eq(tick0(&an), 0);
    sets[0].len = 0;                                     /* an empty set draws nothing */
    sim_anim_reinit(&an, &an.slot[0], 0);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(tick0(&an), -1);
    sim_anim_free(&an);
}
END_TEST

/* ---- rendering ------------------------------------------------------------------------------- */
/* "The entire animation is considered to have an origin point, whose (X, Y) coords are computed
 * each as anim's coord + anim's coord offset + [wGlobalAnim*Offset]. Each OBJ will be rendered
 * relative to this origin" */
START_TEST(origin_is_coord_plus_offset_plus_global)
{
    sim_anim an;
    sim_frame f;
    mk(&an, 0);
    ck_assert_int_eq(sim_frame_init(&f, 64, 64), 0);
    SET(0, 2, 9, 0, SIM_CEL_END);                  /* cel 2: OBJ at (2,1), tile 7 (3×2) */
    sim_anim_alloc(&an, 0, 10, 20);
    an.slot[0].x_ofs = 3; an.slot[0].y_ofs = -4;
    an.global_x = 2; an.global_y = 5;
    sim_anim_tick(&an, NULL);
    sim_raster_clear(&f, 0);
    sim_anim_draw(&an, &f);
    int ox = 10 + 3 + 2 + 2, oy = 20 - 4 + 5 + 1;  /* origin + OBJ offset */
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) ck_assert_int_eq(f.px[(oy + y) * 64 + ox + x], asym[y * 3 + x]);
    ck_assert_int_eq(f.px[oy * 64 + ox - 1], 0);
    sim_frame_free(&f);
    sim_anim_free(&an);
}
END_TEST

/* "if the entire cel is flipped, each OBJ's coordinates will also be flipped relative to the
 * origin (AddOrSubtract*)"; "if X-flipped, OBJs wil be offset towards the left of the origin
 * instead of its right"; "The attributes are XOR'd with the flip flags." */
START_TEST(flip_mirrors_positions_and_xors_attributes)
{
    sim_anim an;
    sim_frame f;
    mk(&an, 0);
    ck_assert_int_eq(sim_frame_init(&f, 64, 64), 0);
    SET(0, 2, 9, SIM_CEL_XFLIP, SIM_CEL_END);
    SET(1, 2, 9, SIM_CEL_YFLIP, SIM_CEL_END);
    SET(2, 3, 9, SIM_CEL_XFLIP, SIM_CEL_END);      /* the OBJ is X-flipped itself: XOR clears it */
    for (int k = 0; k < 3; k++) {
        sim_anim_alloc(&an, 0, 30, 30);
        an.slot[0].celset_id = (uint8_t)k;
        sim_anim_tick(&an, NULL);
        sim_raster_clear(&f, 0);
        sim_anim_draw(&an, &f);
        /* AddOrSubtract: −width − x (the Game Boy's −8 − x for 8-pixel OBJs) */
        int x0 = k == 1 ? 30 + 2 : 30 - 3 - 2, y0 = k == 1 ? 30 - 2 - 1 : 30 + 1;
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 3; x++) {
                int sx = k == 0 ? 2 - x : x, sy = k == 1 ? 1 - y : y;
                ck_assert_int_eq(f.px[(y0 + y) * 64 + x0 + x], asym[sy * 3 + sx]);
            }
        ck_assert_int_eq(f.px[31 * 64 + 32], k == 1 ? 0 : 0);   /* nothing right of the origin */
        int drawn = 0;
        for (int p = 0; p < 64 * 64; p++) drawn += f.px[p] != 0;
        ck_assert_int_eq(drawn, 6);
        sim_anim_delete(&an, &an.slot[0]);
    }
    sim_frame_free(&f);
    sim_anim_free(&an);
}
END_TEST

/* "The tile ID is added to the anim's base tile ID plus the cel's base tile ID" */
START_TEST(tile_is_obj_plus_slot_plus_cel_base)
{
    sim_anim an;
    sim_frame f;
    mk(&an, 0);
    ck_assert_int_eq(sim_frame_init(&f, 16, 16), 0);
    SET(0, 0, 9, 0, SIM_CEL_END);
    SET(1, 4, 9, 0, SIM_CEL_END);
    objs[0].base_tile_id = 40;
    objs[1].base_tile_id = 4;
    sim_anim_alloc(&an, 0, 1, 1);                  /* 1 + 40 + 0 */
    sim_anim_alloc(&an, 1, 3, 3);                  /* 250 + 4 + 5 = 259 → 3 (u8) */
    sim_anim_tick(&an, NULL);
    sim_raster_clear(&f, 0);
    sim_anim_draw(&an, &f);
    ck_assert_int_eq(f.px[1 * 16 + 1], 41);
    ck_assert_int_eq(f.px[3 * 16 + 3], 3);
    sim_frame_free(&f);
    sim_anim_free(&an);
}
END_TEST

/* ---- behaviours ------------------------------------------------------------------------------ */
static int calls;
static void beh_move(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    (void)an;
    ck_assert_ptr_eq(ctx, &calls);
    calls++;
    s->x = (int16_t)(s->x + 5);
    s->vars[0]++;
}
static void beh_suicide(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    (void)ctx;
    sim_anim_delete(an, s);
}
static void beh_by_index(void *ctx, sim_anim *an, sim_anim_slot *s)
{
    (void)ctx; (void)an;
    s->y_ofs = (int16_t)(s->index * 10);
}

/* "each active slot first has its behavior ticked, and then it is rendered." "any parameter can
 * be freely modified, and will be taken into account immediately, since it is called right
 * before the slot is rendered." */
START_TEST(behaviour_runs_before_render)
{
    sim_anim an;
    mk(&an, 0);
    SET(1, 0, 9, 0, SIM_CEL_END);
    behs[1] = beh_move;
    calls = 0;
    sim_anim_alloc(&an, 1, 10, 0);
    sim_anim_tick(&an, &calls);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(an.slot[0].shown_x, 15);     /* the change shows this frame */
    sim_anim_tick(&an, &calls);
    ck_assert_int_eq(an.slot[0].shown_x, 20);
    ck_assert_int_eq(an.slot[0].vars[0], 2);
    sim_anim_delete(&an, &an.slot[0]);
    sim_anim_tick(&an, &calls);                    /* an empty slot runs nothing */
    ck_assert_int_eq(calls, 2);
    sim_anim_free(&an);
}
END_TEST

/* "Exception: calling DeinitializeSprite (or manually taking equivalent actions) will still
 * render the animation for this frame!" */
START_TEST(delete_in_behaviour_still_renders)
{
    sim_anim an;
    sim_frame f;
    mk(&an, 0);
    ck_assert_int_eq(sim_frame_init(&f, 16, 16), 0);
    SET(2, 0, 9, 0, SIM_CEL_END);
    behs[2] = beh_suicide;
    sim_anim_alloc(&an, 2, 5, 5);
    sim_anim_tick(&an, NULL);
    ck_assert_int_eq(an.slot[0].index, 0);
    sim_raster_clear(&f, 0);
    sim_anim_draw(&an, &f);
    ck_assert_int_eq(f.px[5 * 16 + 5], 1);         /* rendered this frame */
    sim_anim_tick(&an, NULL);
    sim_raster_clear(&f, 0);
    sim_anim_draw(&an, &f);
    ck_assert_int_eq(f.px[5 * 16 + 5], 0);         /* and gone the next */
    sim_frame_free(&f);
    sim_anim_free(&an);
}
END_TEST

/* "ReinitSpriteAnimFrame forces a struct to restart playing a specified celset ID (but its
 * behavior ID is left alone)." */
START_TEST(reinit_restarts_and_keeps_behaviour)
{
    sim_anim an;
    mk(&an, 0);
    SET(1, 0, 0, 0, 1, 40, 0, SIM_CEL_END);
    SET(3, 4, 1, 0, SIM_CEL_END);
    behs[1] = beh_move;
    sim_anim_alloc(&an, 1, 0, 0);
    sim_anim_tick(&an, &calls);
    ck_assert_int_eq(shown(&an, 0), 0);
    sim_anim_tick(&an, &calls);
    ck_assert_int_eq(shown(&an, 0), 1);            /* mid-way through a 41-frame cel */
    sim_anim_reinit(&an, &an.slot[0], 3);
    sim_anim_tick(&an, &calls);
    ck_assert_int_eq(shown(&an, 0), 4);            /* entry 0 of set 3, at once */
    ck_assert_int_eq(an.slot[0].behaviour_id, 1);
    ck_assert_int_eq(an.slot[0].duration, 1);
    sim_anim_free(&an);
}
END_TEST

/* "the index can be used when spawning otherwise identical copies of the same animation, to have
 * each of them act differently." */
START_TEST(index_tells_copies_apart)
{
    sim_anim an;
    mk(&an, 0);
    SET(3, 0, 9, 0, SIM_CEL_END);
    behs[3] = beh_by_index;
    for (int i = 0; i < 3; i++) sim_anim_alloc(&an, 3, 0, 0);
    sim_anim_tick(&an, NULL);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(an.slot[i].shown_y, (i + 1) * 10);
    sim_anim_free(&an);
}
END_TEST

/* ---- state ----------------------------------------------------------------------------------- */
static void busy(sim_anim *an)
{
    SET(0, 0, 2, 0, 1, 1, SIM_CEL_XFLIP, SIM_CEL_WAIT, 1, 2, 0, SIM_CEL_YFLIP, SIM_CEL_RESTART);
    SET(1, 2, 3, 0, 3, 0, SIM_CEL_XFLIP, SIM_CEL_DELETE);
    SET(2, 4, 0, 0, SIM_CEL_END);
    behs[1] = beh_move;
    behs[2] = beh_suicide;
    an->global_x = -3;
    sim_anim_alloc(an, 0, 20, 20);
    sim_anim_alloc(an, 1, 5, 30);
    sim_anim_alloc(an, 3, 40, 5);
    an->slot[0].duration_ofs = (uint8_t)-1;
}

static size_t save(const sim_anim *an, uint8_t *buf, size_t cap)
{
    sim_writer w;
    sim__w_init(&w, buf, cap);
    sim_anim_save(an, &w);
    ck_assert(!w.overflow);
    ck_assert_uint_le(w.len, sim_anim_save_max(an));
    return w.len;
}

/* "The whole engine state is part of the world's saved state and hash" (issue 14): save → load →
 * continue gives the same state and the same frames as continuing. */
START_TEST(save_load_continue_identical)
{
    sim_anim a, b;
    sim_frame fa, fb;
    mk(&a, 0);
    busy(&a);
    sim_anim_config c = a.cfg;
    ck_assert_int_eq(sim_anim_init(&b, &c), 0);
    ck_assert_int_eq(sim_frame_init(&fa, 64, 64), 0);
    ck_assert_int_eq(sim_frame_init(&fb, 64, 64), 0);
    uint8_t ba[1024], bb[1024];
    for (int t = 0; t < 40; t++) {
        if (t == 7) sim_anim_alloc(&a, 2, 9, 9);
        sim_anim_tick(&a, &calls);
        size_t n = save(&a, ba, sizeof ba);
        sim_reader r;
        sim__r_init(&r, ba, n);
        ck_assert_int_eq(sim_anim_load(&b, &r), 0);
        ck_assert_uint_eq(r.pos, n);
        ck_assert_uint_eq(save(&b, bb, sizeof bb), n);
        ck_assert(memcmp(ba, bb, n) == 0);
        sim_raster_clear(&fa, 0); sim_anim_draw(&a, &fa);
        sim_raster_clear(&fb, 0); sim_anim_draw(&b, &fb);
        ck_assert_uint_eq(sim_frame_hash(&fa), sim_frame_hash(&fb));
        /* continue b one tick and compare with a's next tick */
        sim_anim_tick(&b, &calls);
        sim_anim_tick(&a, &calls);
        size_t m = save(&a, ba, sizeof ba);
        ck_assert_uint_eq(save(&b, bb, sizeof bb), m);
        ck_assert(memcmp(ba, bb, m) == 0);
    }
    sim_frame_free(&fa);
    sim_frame_free(&fb);
    sim_anim_free(&a);
    sim_anim_free(&b);
}
END_TEST

/* Bad data is SIM_ETRUNC or SIM_ECORRUPT, and "a failed load leaves the target untouched". */
START_TEST(corrupt_saves_refused_untouched)
{
    sim_anim a, b;
    mk(&a, 0);
    busy(&a);
    for (int t = 0; t < 3; t++) sim_anim_tick(&a, &calls);
    ck_assert_int_eq(sim_anim_init(&b, &a.cfg), 0);
    sim_anim_alloc(&b, 2, 1, 2);
    uint8_t good[1024], bad[1024], before[1024], after[1024];
    size_t n = save(&a, good, sizeof good), nb = save(&b, before, sizeof before);
    sim_reader r;
    for (size_t cut = 0; cut < n; cut++) {                  /* every truncation */
        sim__r_init(&r, good, cut);
        ck_assert_int_ne(sim_anim_load(&b, &r), 0);
        ck_assert(save(&b, after, sizeof after) == nb && memcmp(before, after, nb) == 0);
    }
    struct { size_t at; uint8_t v; } pokes[] = {
        { 0, 0x00 },                     /* tag */
        { 2, 9 },                        /* slot count other than the world's */
        { 3, 0 },                        /* the allocation counter is never 0 (fuzz_celset) */
        { 8 + 20, 2 },                   /* slot 0: shown is 0 or 1 */
        { 8 + 22, 0x80 },                /* slot 0: shown flags hold only the two flips */
        { 8 + 21, SIM_CEL_DELETE },      /* slot 0: a shown cel is a cel id */
        { 8 + 32 + 27, 0x40 },           /* slot 1: origin beyond three int16 */
    };
    for (size_t k = 0; k < sizeof pokes / sizeof pokes[0]; k++) {
        memcpy(bad, good, n);
        bad[pokes[k].at] = pokes[k].v;
        sim__r_init(&r, bad, n);
        ck_assert_msg(sim_anim_load(&b, &r) == SIM_ECORRUPT, "poke %zu", k);
        ck_assert(save(&b, after, sizeof after) == nb && memcmp(before, after, nb) == 0);
    }
    sim__r_init(&r, good, n);                              /* and the good bytes load */
    ck_assert_int_eq(sim_anim_load(&b, &r), 0);
    sim_anim_free(&a);
    sim_anim_free(&b);
}
END_TEST

Suite *suite_celset(void)
{
    Suite *s = suite_create("celset");
    TCase *tc = tcase_create("slots");
    tcase_add_test(tc, counter_wraps_255_to_1);
    tcase_add_test(tc, alloc_copies_sets_and_zeroes);
    tcase_add_test(tc, full_slot_table_fails);
    tcase_add_test(tc, tables_of_256);
    suite_add_tcase(s, tc);
    tc = tcase_create("celset");
    tcase_add_test(tc, duration_plus_offset_plus_one);
    tcase_add_test(tc, offset_takes_effect_at_next_switch);
    tcase_add_test(tc, negative_offset_and_8bit_underflow);
    tcase_add_test(tc, cel_id_reread_every_frame);
    tcase_add_test(tc, end_repeats_forever);
    tcase_add_test(tc, restart_loops);
    tcase_add_test(tc, wait_draws_nothing);
    tcase_add_test(tc, delete_as_last_byte);
    tcase_add_test(tc, parser_stops_at_end_of_set);
    suite_add_tcase(s, tc);
    tc = tcase_create("render");
    tcase_add_test(tc, origin_is_coord_plus_offset_plus_global);
    tcase_add_test(tc, flip_mirrors_positions_and_xors_attributes);
    tcase_add_test(tc, tile_is_obj_plus_slot_plus_cel_base);
    suite_add_tcase(s, tc);
    tc = tcase_create("behaviour");
    tcase_add_test(tc, behaviour_runs_before_render);
    tcase_add_test(tc, delete_in_behaviour_still_renders);
    tcase_add_test(tc, reinit_restarts_and_keeps_behaviour);
    tcase_add_test(tc, index_tells_copies_apart);
    suite_add_tcase(s, tc);
    tc = tcase_create("state");
    tcase_add_test(tc, save_load_continue_identical);
    tcase_add_test(tc, corrupt_saves_refused_untouched);
    suite_add_tcase(s, tc);
    return s;
}
