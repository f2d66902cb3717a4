/* art.c — the garden's pixel art, drawn in code at create time: the named palette, the villagers'
 * bodies (three poses, four hair states, and the flash silhouettes), the gnome and everything its
 * juice can show (baked from its four rule-built walk frames and the sprite itself), the
 * butterfly, the grass tufts, and the still scene under everything (sky, sun, hills, meadow, the
 * pond's basin, the campfire's stones and logs, the flagpole).
 *
 * Nothing here is state: it is a pure function of nothing, built once, never saved. */
#include "garden_int.h"
#include "anim/shear.h"
#include <stdlib.h>

/* ---- the palette ------------------------------------------------------------------------------ */
/* A dusk: a violet sky going peach at the horizon, a warm meadow, a teal serpent, a red flag. */
static const uint8_t rgb[GC_COUNT][3] = {
    [GC_VOID] = { 0, 0, 0 },
    [GC_INK] = { 0x1d, 0x18, 0x30 },
    [GC_SKY0] = { 0x2b, 0x34, 0x66 }, [GC_SKY1] = { 0x45, 0x4c, 0x88 },
    [GC_SKY2] = { 0x76, 0x64, 0x9c }, [GC_SKY3] = { 0xc0, 0x7b, 0x8e },
    [GC_SKY4] = { 0xee, 0xaa, 0x84 },
    [GC_SUN] = { 0xff, 0xe4, 0xa4 }, [GC_CLOUD] = { 0xf4, 0xc2, 0xa2 },
    [GC_CLOUD_SHADE] = { 0xb8, 0x86, 0xa2 },
    [GC_HILL_FAR] = { 0x68, 0x58, 0x8c }, [GC_HILL_NEAR] = { 0x46, 0x52, 0x76 },
    [GC_GRASS_DARK] = { 0x2c, 0x58, 0x40 }, [GC_GRASS] = { 0x4c, 0x88, 0x48 },
    [GC_GRASS_LIGHT] = { 0x9a, 0xc4, 0x5c },
    [GC_SOIL_DARK] = { 0x38, 0x24, 0x30 }, [GC_SOIL] = { 0x5c, 0x3a, 0x36 },
    [GC_SOIL_LIGHT] = { 0x86, 0x56, 0x40 },
    [GC_STONE_DARK] = { 0x4e, 0x4a, 0x5e }, [GC_STONE] = { 0x80, 0x7a, 0x8e },
    [GC_STONE_LIGHT] = { 0xb4, 0xae, 0xbe },
    [GC_WOOD_DARK] = { 0x4a, 0x2e, 0x24 }, [GC_WOOD] = { 0x80, 0x54, 0x36 },
    [GC_WATER_DEEP] = { 0x1e, 0x3a, 0x6a }, [GC_WATER] = { 0x2e, 0x68, 0x9e },
    [GC_WATER_LIGHT] = { 0x58, 0xa0, 0xc8 }, [GC_FOAM] = { 0xd8, 0xf0, 0xf4 },
    [GC_FIRE_WHITE] = { 0xff, 0xf8, 0xdc }, [GC_FIRE_YELLOW] = { 0xff, 0xd8, 0x48 },
    [GC_FIRE_ORANGE] = { 0xf6, 0x8a, 0x2a }, [GC_FIRE_RED] = { 0xc8, 0x36, 0x2c },
    [GC_EMBER] = { 0x5a, 0x22, 0x28 },
    [GC_SMOKE_DARK] = { 0x4c, 0x46, 0x58 }, [GC_SMOKE] = { 0x7a, 0x74, 0x88 },
    [GC_SMOKE_LIGHT] = { 0xa8, 0xa2, 0xb4 },
    [GC_RED_LIGHT] = { 0xec, 0x6a, 0x56 }, [GC_RED] = { 0xc2, 0x3a, 0x3c },
    [GC_RED_DARK] = { 0x7e, 0x22, 0x34 },
    [GC_WHITE] = { 0xf6, 0xf2, 0xe8 }, [GC_CLOTH_SHADE] = { 0xc2, 0xba, 0xc8 },
    [GC_TEAL_LIGHT] = { 0x8a, 0xe2, 0xc4 }, [GC_TEAL] = { 0x34, 0xa0, 0x8e },
    [GC_TEAL_DARK] = { 0x1e, 0x5c, 0x62 },
    [GC_SKIN] = { 0xf4, 0xc2, 0x98 }, [GC_SKIN_SHADE] = { 0xc8, 0x88, 0x6c },
    [GC_HAIR] = { 0x6a, 0x3c, 0x2a }, [GC_HAIR_LIGHT] = { 0xa2, 0x60, 0x3a },
    [GC_GOLD] = { 0xea, 0xb4, 0x3c }, [GC_GOLD_DARK] = { 0xa0, 0x6e, 0x2a },
    [GC_PLUM] = { 0x80, 0x4a, 0xa0 }, [GC_PLUM_DARK] = { 0x4e, 0x2c, 0x6a },
    [GC_BLUE] = { 0x40, 0x70, 0xc2 }, [GC_BLUE_DARK] = { 0x28, 0x48, 0x86 },
    [GC_PINK] = { 0xf2, 0x8a, 0xb2 }, [GC_PINK_DARK] = { 0xb0, 0x4e, 0x7a },
    [GC_FAR_GRASS] = { 0x5c, 0x7a, 0x72 }, [GC_FAR_GRASS_LIGHT] = { 0x86, 0xa2, 0x84 },
    [GC_FAR_EARTH] = { 0x4e, 0x44, 0x5e },
    [GC_MILL_WALL] = { 0xd8, 0xc6, 0xba }, [GC_MILL_SHADE] = { 0x9c, 0x88, 0x98 },
    [GC_SAIL] = { 0xf2, 0xe8, 0xd6 },
    [GC_LIZARD] = { 0xf2, 0x8a, 0x2e }, [GC_LIZARD_DARK] = { 0xa6, 0x46, 0x26 },
    [GC_LIZARD_BELLY] = { 0xff, 0xcc, 0x66 }, [GC_TOE] = { 0x5e, 0x26, 0x1c },
};

const char *const sim__garden_colour_name[GC_COUNT] = {
    "void", "ink", "sky0", "sky1", "sky2", "sky3", "sky4", "sun", "cloud", "cloud_shade",
    "hill_far", "hill_near", "grass_dark", "grass", "grass_light", "soil_dark", "soil",
    "soil_light", "stone_dark", "stone", "stone_light", "wood_dark", "wood", "water_deep",
    "water", "water_light", "foam", "fire_white", "fire_yellow", "fire_orange", "fire_red",
    "ember", "smoke_dark", "smoke", "smoke_light", "red_light", "red", "red_dark", "white",
    "cloth_shade", "teal_light", "teal", "teal_dark", "skin", "skin_shade", "hair", "hair_light",
    "gold", "gold_dark", "plum", "plum_dark", "blue", "blue_dark", "pink", "pink_dark",
    "far_grass", "far_grass_light", "far_earth", "mill_wall", "mill_shade", "sail", "lizard",
    "lizard_dark", "lizard_belly", "toe",
};

/* The eight inks: the outline, paper white, three of the dusk (its violet, its rose, its peach),
 * the meadow, the earth and the flag's red. Under the lock the sky keeps three bands, the hills
 * and the pond take the violet (the pond's white surface line parts them), fire goes peach, rose
 * and white, the serpent meadow-green with a white back: every creature keeps its silhouette. */
const uint8_t sim__garden_inks8[8] = { GC_INK, GC_WHITE, GC_SKY1, GC_SKY3,
                                       GC_SKY4, GC_GRASS, GC_SOIL, GC_RED };

void sim__garden_palette(sim_palette *pal)
{
    memset(pal, 0, sizeof *pal);
    pal->version = 2;
    pal->count = GC_COUNT;
    for (int i = 0; i < GC_COUNT; i++) memcpy(&pal->rgb[i * 3], rgb[i], 3);
}

/* ---- sprites from text ----------------------------------------------------------------------- */
typedef struct legend {
    char ch;
    uint8_t ink;
} legend;

/* Rows of text to pixels: '.' is transparent (GC_VOID), anything else through the legend. */
static void from_text(uint8_t *px, const char *const *rows, int w, int h, const legend *lg)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            char ch = rows[y][x];
            uint8_t v = GC_VOID;
            for (const legend *l = lg; l->ch; l++)
                if (l->ch == ch) v = l->ink;
            px[y * w + x] = v;
        }
}

/* ---- the villagers ------------------------------------------------------------------------------ */
/* 11 × 12, facing right, the hip pixel at (4, 11). 'H' is the hair (or the scarf): the ink of the
 * hair state. Four poses for the throw, a sidearm skim that reads at this size: standing, the
 * wind-up (the arm back behind the body, the stone in the hand), the strike (the arm flung
 * forward) and the follow-through (the arm down in front). */
#define BODY_W 11
#define BODY_H 12
#define BODY_HIP_COL 4
#define BODY_HIP_ROW 11
static const char *const girl[GB_POSES][BODY_H] = {
    { "...KKKK....",
      "..KHHHHK...",
      ".KHHSSSSK..",
      ".KHSSSKSK..",
      ".KHSSSSSK..",
      "..KsSSSK...",
      "..KTTTTK...",
      ".KTTTTTTK..",
      ".KTTSTTTK..",
      ".KTTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KHHHHK...",
      ".KHHSSSSK..",
      ".KHSSSKSK..",
      ".KHSSSSSK..",
      "..KsSSSK...",
      "..KTTTTK...",
      "KKKTTTTTK..",
      "oSSTTTTTK..",
      "KKKTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KHHHHK...",
      ".KHHSSSSK..",
      ".KHSSSKSK..",
      ".KHSSSSSK..",
      "..KsSSSK...",
      "..KTTTTKKK.",
      ".KTTTTTSSSK",
      ".KTTTTTKKK.",
      ".KTTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KHHHHK...",
      ".KHHSSSSK..",
      ".KHSSSKSK..",
      ".KHSSSSSK..",
      "..KsSSSK...",
      "..KTTTTK...",
      ".KTTTTTTK..",
      ".KTTTTTSK..",
      ".KTTTTTTSK.",
      "..KttttKSK.",
      "...KttK.K.." },
};
static const char *const boy[GB_POSES][BODY_H] = {
    { "...KKKK....",
      "..KhhhhK...",
      ".KhhhSSSK..",
      ".KhSSSKSK..",
      ".KSSSSSSK..",
      "..KSSSsK...",
      ".KHHHHHHK..",
      ".KTTTTTTK..",
      ".KTTSTTTK..",
      ".KTTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KhhhhK...",
      ".KhhhSSSK..",
      ".KhSSSKSK..",
      ".KSSSSSSK..",
      "..KSSSsK...",
      ".KHHHHHHK..",
      "KKKTTTTTK..",
      "oSSTTTTTK..",
      "KKKTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KhhhhK...",
      ".KhhhSSSK..",
      ".KhSSSKSK..",
      ".KSSSSSSK..",
      "..KSSSsK...",
      ".KHHHHHHKKK",
      ".KTTTTTSSSK",
      ".KTTTTTKKK.",
      ".KTTTTTTK..",
      "..KttttK...",
      "...KttK...." },
    { "...KKKK....",
      "..KhhhhK...",
      ".KhhhSSSK..",
      ".KhSSSKSK..",
      ".KSSSSSSK..",
      "..KSSSsK...",
      ".KHHHHHHK..",
      ".KTTTTTTK..",
      ".KTTTTTSK..",
      ".KTTTTTTSK.",
      "..KttttKSK.",
      "...KttK.K.." },
};
/* The hair inks by state (GB_CALM, GB_WARM, GB_STARTLED, GB_AIMING): a palette swap per state,
 * never new art. */
static const uint8_t hair_ink[GB_STYLES][SIM_BIPED_STATES] = {
    { GC_HAIR, GC_FIRE_ORANGE, GC_FOAM, GC_RED },
    { GC_RED, GC_FIRE_ORANGE, GC_FOAM, GC_GOLD },
};

static void bake_bodies(garden_art *a)
{
    for (int st = 0; st < GB_STYLES; st++) {
        const legend lg[] = {
            { 'K', GC_INK }, { 'S', GC_SKIN }, { 's', GC_SKIN_SHADE }, { 'h', GC_HAIR },
            { 'T', st == GB_HAIR ? GC_GOLD : GC_PLUM },
            { 't', st == GB_HAIR ? GC_GOLD_DARK : GC_PLUM_DARK }, { 'o', GC_STONE },
            { 'H', 0 }, { 0, 0 },
        };
        for (int hs = 0; hs < SIM_BIPED_STATES; hs++) {
            legend l2[sizeof lg / sizeof lg[0]];
            memcpy(l2, lg, sizeof lg);
            l2[7].ink = hair_ink[st][hs];
            for (int p = 0; p < GB_POSES; p++) {
                uint8_t *px = a->body_px[st][hs][p];
                from_text(px, st == GB_HAIR ? girl[p] : boy[p], BODY_W, BODY_H, l2);
                a->body[st][hs][p] = (sim_sprite){ BODY_W, BODY_H, px, GC_VOID };
            }
        }
        for (int p = 0; p < GB_POSES; p++) {
            uint8_t *px = a->body_px[st][SIM_BIPED_STATES][p];
            sim_sprite_silhouette(px, &a->body[st][0][p], GC_WHITE);
            a->body_flash[st][p] = (sim_sprite){ BODY_W, BODY_H, px, GC_VOID };
        }
        sim_biped_look *lk = &a->look[st];
        lk->body = &a->body[st][0][0];
        lk->hip_col = BODY_HIP_COL;
        lk->hip_row = BODY_HIP_ROW;
        lk->breath_row = 6;          /* the head and the neck breathe; the chest down stays */
        lk->lean_row = 8;
        lk->leg = GC_BLUE_DARK;      /* trousers (stockings), 2 px wide: legs that read */
        lk->leg_far = GC_INK;
        lk->leg_w = 2;
        lk->outline = GC_INK;
        memcpy(lk->hair_ink, hair_ink[st], sizeof lk->hair_ink);
    }
}

void sim__garden_configs(garden_world *w)
{
    for (int st = 0; st < GB_STYLES; st++) {
        sim_biped_cfg c = sim_biped_cfg_default();
        c.hip_h = GARDEN_BIPED_HIP;
        c.stride = GARDEN_BIPED_STRIDE;
        c.hold_pose = 1;             /* a pose at a time: 6.6 ticks each at 0.38 px a tick */
        if (st == GB_HAIR) {
            c.hair_dx = -2;          /* the back of the head, 8 px above the hip */
            c.hair_dy = 9;
        } else {
            c.hair_dx = -2;          /* the scarf's knot at the back of the neck */
            c.hair_dy = 5;
            c.hair.link = 2.0;
            c.hair.damping = 0.9;
            c.hair.gravity = 0.08;
        }
        w->bcfg[st] = c;
    }
    w->jcfg = sim_juice_cfg_default();
    w->bjcfg = sim_juice_cfg_default();
    w->bjcfg.hop_v = 1.6;            /* ours: a startled villager jumps 6 px, not 16 */
    w->bjcfg.gravity = 0.2;
    /* The lizard's legs: 4.5 + 4.5 px bones from a spine 7 px up; a step when a foot is 4.5 px from
     * its spot, landing 2 px ahead, 8 ticks in the air (seed §6: 6–10 a pose), 2 px of lift. */
    w->lcfg = (sim_legs_cfg){ .thigh = 4.5, .shin = 4.5, .step_at = 4.5, .lead = 2.0,
                              .step_ticks = 8, .lift = 2.0 };
}

/* ---- the gnome ------------------------------------------------------------------------------------ */
/* 11 × 15, facing right: a pointed red hat, a white beard, a blue coat, a hand over the coat (the
 * arm the walk swings), brown legs from the hip row 12. */
#define GNOME_W 11
#define GNOME_H 15
/* On the frames' canvas (the sprite at (1, 1)): rows 5–8, columns 2–3 and 5–10. */
#define GNOME_KEEP_ROWS (0xfu << 5)
#define GNOME_KEEP_COLS ((0x3u << 2) | (0x3fu << 5))
static const char *const gnome[GNOME_H] = {
    "....KK.....",
    "...KRRK....",
    "...KRrK....",
    "..KRRRrK...",
    ".KKKKKKKK..",
    "..KSSSSK...",
    "..KSSKSK...",
    "..KWWWWWK..",
    ".KBWWWWBK..",
    ".KBBWWBBK..",
    ".KBBBBSBK..",
    "..KBBBBK...",
    "..KLKKLK...",
    "..KLK.KLK..",
    "..KKK.KKK..",
};

/* Status 1, "warm" (by the fire): the coat and the hat glow. A palette swap through an index map
 * (sim_sprite_recolour): the seed's "palette swap for a status". */
static void warm_map(uint8_t map[256])
{
    for (int i = 0; i < 256; i++) map[i] = (uint8_t)i;
    map[GC_BLUE] = GC_FIRE_ORANGE;
    map[GC_BLUE_DARK] = GC_FIRE_RED;
    map[GC_RED] = GC_FIRE_YELLOW;
    map[GC_RED_DARK] = GC_FIRE_ORANGE;
    map[GC_SKIN] = GC_RED_LIGHT;
}

static int bake_gnome(garden_art *a)
{
    static const legend lg[] = {
        { 'K', GC_INK }, { 'R', GC_RED }, { 'r', GC_RED_DARK }, { 'S', GC_SKIN },
        { 'W', GC_WHITE }, { 'B', GC_BLUE }, { 'L', GC_SOIL_LIGHT }, { 0, 0 },
    };
    uint8_t px[GNOME_W * GNOME_H];
    from_text(px, gnome, GNOME_W, GNOME_H, lg);
    sim_sprite spr = { GNOME_W, GNOME_H, px, GC_VOID };
    /* The walk cut at the hip row; the left leg is the columns left of 5; the hand's rectangle
     * swings. */
    sim_walker_spec spec = { &spr, 12, 5, 5, 8, 9, 11 };
    int rc = sim_walker_bake(&a->walk, &spec);
    if (rc) return rc;
    a->gnome_w = GNOME_W;
    a->gnome_h = GNOME_H;
    uint8_t map[1][256];
    warm_map(map[0]);
    /* Every juice look of every image: the standing sprite is put on the frames' canvas (one
     * column each side, one row on top), so all five share one geometry. */
    /* Squash and stretch never double or drop the face: the rows of the hat's brim, the eye (in
     * the contact and the passing frames) and the beard's top, nor the columns of the outline
     * each side, the eye and the skin beside it; their turns pass to the hat, the coat and the
     * empty margin (issue 27: the stretch frames had lost the eye and the beard). */
    sim_juice_art_spec js = { GC_WHITE, GC_BLUE, 6, 4, (const uint8_t (*)[256])map,
                              GNOME_KEEP_ROWS, GNOME_KEEP_COLS };
    for (int k = 0; k < GW_IMAGES; k++) {
        uint8_t canvas[SIM_WALKER_FW * SIM_WALKER_FH];
        sim_sprite img;
        if (k < SIM_WALKER_FRAMES) {
            img = sim_walker_frame(&a->walk, k);
        } else {
            int fw = a->walk.w, fh = a->walk.h;
            memset(canvas, GC_VOID, sizeof canvas);
            for (int y = 0; y < GNOME_H; y++) memcpy(&canvas[(y + 1) * fw + 1], &px[y * GNOME_W], GNOME_W);
            img = (sim_sprite){ (uint16_t)fw, (uint16_t)fh, canvas, GC_VOID };
        }
        rc = sim_juice_art_bake(&a->gnome[k], &img, &js);
        if (rc) return rc;
    }
    return 0;
}

/* ---- the butterfly: wings up, open, half, closed (edge on) ----------------------------------------- */
/* 9 × 7, yellow wings with orange spots in an ink outline: against every band of the dusk (violet,
 * rose, peach) the outline and the yellow part it (issue 27: a 5×4 pink one on the rose sky did
 * not read, so the creatures chasing it seemed to move at random). */
static const char *const fly_rows[GARDEN_FLY_FRAMES][GARDEN_FLY_H] = {
    { "KK.....KK",
      "KYK...KYK",
      "KYYK.KYYK",
      ".KOYKYOK.",
      "..KYKYK..",
      "...KKK...",
      "........." },
    { ".KK...KK.",
      "KYYK.KYYK",
      "KYOYKYOYK",
      ".KYYKYYK.",
      ".KYOKOYK.",
      "..KK.KK..",
      "........." },
    { ".........",
      "..KK.KK..",
      ".KYYKYYK.",
      ".KYOKOYK.",
      "..KYKYK..",
      "...K.K...",
      "........." },
    { ".........",
      "....K....",
      "...KYK...",
      "...KYK...",
      "...KOK...",
      "....K....",
      "........." },
};

/* ---- the sky: clouds, the windmill's sails, a bird ---------------------------------------------- */
const garden_cloud_spec sim__garden_clouds[GARDEN_CLOUDS] = {
    /* y, w, h, drift, x0: four heaps up high, one long streak low across the sun */
    { 16, 40, 14, 3, 30 },
    { 8, 28, 11, 2, 132 },
    { 36, 34, 13, 4, 196 },
    { 24, 22, 10, 2, 276 },
    { 93, 46, 4, 1, 196 },
};

/* A cloud in a w × h image: a heap of four discs, the biggest second, cut flat a row under its
 * base and shaded along the cut; or, h ≤ 5, a streak: two rows, lit over shaded, rounded ends. */
static void bake_cloud(uint8_t *px, int w, int h)
{
    sim_frame f;
    memset(&f, 0, sizeof f);
    f.w = (uint16_t)w;
    f.h = (uint16_t)h;
    f.px = px;
    memset(px, GC_VOID, (size_t)w * h);
    if (h <= 5) {
        sim_raster_rect(&f, 3, 1, w - 6, 1, GC_CLOUD);
        sim_raster_rect(&f, 1, 2, w - 2, 1, GC_CLOUD);
        sim_raster_rect(&f, 0, 3, w, 1, GC_CLOUD_SHADE);
        return;
    }
    int base = h - 3, rmax = (base + 2) / 2;
    static const int at[4] = { 24, 44, 64, 80 }, size[4] = { 60, 100, 80, 50 };   /* % of w, rmax */
    for (int k = 0; k < 4; k++) {
        int r = rmax * size[k] / 100;
        if (r < 2) r = 2;
        sim_raster_circle(&f, w * at[k] / 100, base + 2 - r, r, GC_CLOUD);
    }
    /* flat underneath: two rows of shade where the heap is, nothing below */
    for (int x = 0; x < w; x++) {
        int over = px[(base - 1) * w + x] != GC_VOID;
        for (int y = base; y < h; y++)
            px[y * w + x] = (uint8_t)(over && y < base + 2 ? GC_CLOUD_SHADE : GC_VOID);
    }
}

/* The sails at angle 0: four arms (up, right, down, left) of 13 px, each a spar with a lattice
 * panel on its clockwise side, on a 29 × 29 canvas with the hub at its centre. */
static void bake_sails(uint8_t *px)
{
    const int D = GARDEN_SAILS_D, c = D / 2;
    memset(px, GC_VOID, (size_t)D * D);
    for (int arm = 0; arm < 4; arm++) {
        /* the arm's direction (ux, uy) and its clockwise side (vx, vy), on screen */
        static const int dir[4][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } };
        int ux = dir[arm][0], uy = dir[arm][1], vx = -uy, vy = ux;
        for (int t = 2; t <= 13; t++) {
            px[(c + uy * t) * D + c + ux * t] = GC_WOOD_DARK;              /* the spar */
            if (t < 4) continue;
            for (int k = 1; k <= 3; k++) {                                  /* the panel */
                int x = c + ux * t + vx * k, y = c + uy * t + vy * k;
                int lattice = (t % 3 == 0) || k == 3;
                px[y * D + x] = (uint8_t)(lattice ? GC_WOOD : GC_SAIL);
            }
        }
    }
}

static const char *const bird_rows[2][3] = {
    { "K...K", ".K.K.", "..K.." },
    { ".....", "KKKKK", "K...K" },
};

int sim__garden_art_build(garden_art **out)
{
    garden_art *a = calloc(1, sizeof *a);
    if (!a) return SIM_ENOMEM;
    bake_bodies(a);
    int rc = bake_gnome(a);
    if (rc) {
        free(a);
        return rc;
    }
    static const legend lg[] = { { 'Y', GC_FIRE_YELLOW }, { 'O', GC_FIRE_ORANGE }, { 'K', GC_INK },
                                 { 0, 0 } };
    for (int k = 0; k < GARDEN_FLY_FRAMES; k++) {
        from_text(a->fly_px[k], fly_rows[k], GARDEN_FLY_W, GARDEN_FLY_H, lg);
        a->fly[k] = (sim_sprite){ GARDEN_FLY_W, GARDEN_FLY_H, a->fly_px[k], GC_VOID };
    }
    for (int k = 0; k < GARDEN_CLOUDS; k++) {
        const garden_cloud_spec *c = &sim__garden_clouds[k];
        bake_cloud(a->cloud_px[k], c->w, c->h);
        a->cloud[k] = (sim_sprite){ (uint16_t)c->w, (uint16_t)c->h, a->cloud_px[k], GC_VOID };
    }
    /* the sails, by three shears: a quarter turn in GARDEN_MILL_ANGLES steps (four sails repeat
     * every quarter); every bake holds exactly the sails' pixels, moved */
    uint8_t sails[GARDEN_SAILS_D * GARDEN_SAILS_D];
    bake_sails(sails);
    sim_sprite sp = { GARDEN_SAILS_D, GARDEN_SAILS_D, sails, GC_VOID };
    for (int k = 0; k < GARDEN_MILL_ANGLES; k++) {
        double ang = (double)k * (SIM_PI / 2.0) / GARDEN_MILL_ANGLES;
        if (sim_shear_rotate(a->sails_px[k], GARDEN_SAILS_D, GARDEN_SAILS_D, &sp, ang) != 0) {
            free(a);
            return SIM_EINVAL;
        }
        a->sails[k] = (sim_sprite){ GARDEN_SAILS_D, GARDEN_SAILS_D, a->sails_px[k], GC_VOID };
    }
    static const legend bl[] = { { 'K', GC_INK }, { 0, 0 } };
    for (int k = 0; k < 2; k++) {
        from_text(a->bird_px[k], bird_rows[k], 5, 3, bl);
        a->bird[k] = (sim_sprite){ 5, 3, a->bird_px[k], GC_VOID };
    }
    for (int i = 0; i < GARDEN_POND_N; i++) a->basin[i] = (int16_t)sim__garden_basin_row(i);
    *out = a;
    return 0;
}

void sim__garden_art_free(garden_art *a) { free(a); }

/* ---- grass ------------------------------------------------------------------------------------ */
void sim__garden_tufts(uint8_t px[GARDEN_TUFT_SPRITES][GARDEN_TUFT_W * GARDEN_TUFT_H], int back)
{
    static const uint8_t back_shades[3] = { GC_GRASS_DARK, GC_GRASS, GC_GRASS_LIGHT };
    static const uint8_t front_shades[3] = { GC_GRASS_DARK, GC_GRASS, GC_GRASS_DARK };
    for (int k = 0; k < GARDEN_TUFT_SPRITES; k++)
        sim_grass_tuft_sprite(px[k], GARDEN_TUFT_W, back ? GARDEN_TUFT_H : GARDEN_FTUFT_H, GC_VOID,
                              back ? back_shades : front_shades, 3,
                              (uint32_t)(k * 7 + (back ? 1 : 3)));
}

/* ---- the still scene ------------------------------------------------------------------------------- */
int sim__garden_basin_row(int i)
{
    /* A bowl: 3 rows of water at the ends, GARDEN_POND_DEEP in the middle, a parabola between. */
    int n = GARDEN_POND_N, c2 = 2 * i - (n - 1);                 /* −(n−1)..(n−1) */
    int depth = GARDEN_POND_DEEP - (GARDEN_POND_REST + 3);
    long num = (long)depth * ((long)(n - 1) * (n - 1) - (long)c2 * c2);
    return GARDEN_POND_REST + 3 + (int)(num / ((long)(n - 1) * (n - 1)));
}

static void px_set(sim_frame *f, int x, int y, uint8_t c)
{
    if (x >= 0 && y >= 0 && x < f->w && y < f->h) f->px[y * f->w + x] = c;
}

/* A two-colour band edge dithered over two rows: the checkerboard of pixel art. */
static uint8_t sky_at(int x, int y)
{
    static const int edge[4] = { 34, 62, 86, 106 };
    static const uint8_t band[5] = { GC_SKY0, GC_SKY1, GC_SKY2, GC_SKY3, GC_SKY4 };
    int b = 0;
    while (b < 4 && y >= edge[b]) b++;
    /* rows just above an edge take the next band on a checkerboard, one row on every other */
    if (b < 4) {
        int d = edge[b] - y;
        if (d == 1 && ((x + y) & 1)) return band[b + 1];
        if (d == 2 && ((x & 3) == (y & 1) * 2)) return band[b + 1];
    }
    return band[b];
}

/* A ridge line from a few sines: the hills. */
static int ridge(int x, double base, double a1, double f1, double a2, double f2, double ph)
{
    double t = (double)x;
    return sim_snap(base - a1 * sim_sin(t * f1 + ph) - a2 * sim_sin(t * f2 + 2.0 * ph));
}

/* The windmill on the far meadow: a tapering tower of whitewashed stone, shaded on its right, a
 * door, a dark cap; the sails are drawn over it every frame. */
static void windmill(sim_frame *f)
{
    int cx = GARDEN_MILL_X, g = GARDEN_FAR_GROUND;
    for (int y = GARDEN_MILL_HUB_Y + 1; y < g + 1; y++) {
        int half = 3 + (y - GARDEN_MILL_HUB_Y) / 6;                    /* 3 at the top, 6 below */
        for (int x = cx - half; x <= cx + half; x++) {
            uint8_t c = x >= cx + half - 1 ? GC_MILL_SHADE : GC_MILL_WALL;
            if (x == cx - half || x == cx + half) c = GC_INK;
            px_set(f, x, y, c);
        }
    }
    sim_raster_rect(f, cx - 1, g - 4, 3, 5, GC_WOOD_DARK);             /* the door */
    px_set(f, cx + 2, g - 11, GC_INK);                                  /* a window */
    /* the cap: a dark dome over the tower's top */
    for (int r = 0; r < 5; r++)
        for (int x = cx - 4 + r / 2; x <= cx + 4 - r / 2; x++)
            px_set(f, x, GARDEN_MILL_HUB_Y - r + 1, r == 4 || x == cx - 4 + r / 2 || x == cx + 4 - r / 2
                                                       ? GC_INK : GC_RED_DARK);
}

void sim__garden_draw_backdrop(sim_frame *f)
{
    int W = f->w, H = f->h;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) f->px[y * W + x] = sky_at(x, y);
    /* the sun, whole: the clouds are drawn over it every frame where they have drifted (issue
     * 27: a cloud's flat cut, filled back with sky, had notched it) */
    sim_raster_circle(f, GARDEN_SUN_X, GARDEN_SUN_Y, GARDEN_SUN_R, GC_SUN);
    /* far hills, then near hills, down to the far meadow */
    for (int x = 0; x < W; x++) {
        int far = ridge(x, 110.0, 7.0, 0.021, 4.0, 0.063, 0.7);
        int near = ridge(x, 124.0, 5.0, 0.030, 3.0, 0.081, 2.1);
        for (int y = far; y < GARDEN_FAR_GROUND; y++) px_set(f, x, y, GC_HILL_FAR);
        for (int y = near; y < GARDEN_FAR_GROUND; y++) px_set(f, x, y, GC_HILL_NEAR);
        px_set(f, x, near, (x % 3) ? GC_HILL_NEAR : GC_HILL_FAR);
    }
    /* The three planes, back to front, each a lit edge, its grass (dithered darker toward the
     * front) and its earth face, hidden under the plane in front: the far meadow in the haze
     * (133–149), the middle meadow (150–169), the near bank (170–179). */
    for (int y = GARDEN_FAR_GROUND; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t c;
            uint32_t hsh = sim_hash_cell(0x6761726465ULL, 0, x, y, 1);
            int chk = (x + y) & 1;
            if (y < GARDEN_GROUND) {                                    /* far */
                int d = y - GARDEN_FAR_GROUND;
                c = d == 0 ? GC_FAR_GRASS_LIGHT : d < 9 ? GC_FAR_GRASS
                  : d < 11 ? (chk ? GC_FAR_EARTH : GC_FAR_GRASS) : GC_FAR_EARTH;
                if (d > 0 && d < 9 && hsh % 23 == 0) c = GC_FAR_GRASS_LIGHT;
            } else if (y < GARDEN_NEAR_GROUND) {                        /* middle */
                int d = y - GARDEN_GROUND;
                c = d == 0 ? GC_GRASS_LIGHT : d < 7 ? GC_GRASS
                  : d < 9 ? (chk ? GC_GRASS_DARK : GC_GRASS) : d < 10 ? GC_GRASS_DARK
                  : d < 12 ? (chk ? GC_SOIL : GC_GRASS_DARK) : GC_SOIL;
                if (d >= 12 && hsh % 41 == 0) c = GC_SOIL_LIGHT;
                if (d == GARDEN_NEAR_GROUND - GARDEN_GROUND - 1) c = GC_SOIL_DARK;
            } else {                                                    /* near */
                /* in the shade: the low sun is behind the scene, so the foreground is dark */
                int d = y - GARDEN_NEAR_GROUND;
                c = d == 0 ? GC_GRASS : d < 5 ? GC_GRASS_DARK : d < 6 ? (chk ? GC_SOIL_DARK : GC_GRASS_DARK)
                  : GC_SOIL_DARK;
                if (d > 0 && d < 5 && hsh % 13 == 0) c = GC_GRASS;
                if (d >= 6 && hsh % 29 == 0) c = GC_SOIL;
                if (d >= 8 && hsh % 97 == 1) c = GC_STONE_DARK;
            }
            f->px[y * W + x] = c;
        }
    /* hedges along the far meadow's back: a row of dark bumps */
    for (int x = 0; x < W; x++) {
        uint32_t hsh = sim_hash_cell(0x6865646765ULL, 0, x / 7, 0, 3);
        int top = GARDEN_FAR_GROUND - 2 - (int)(hsh % 3) + ((x % 7 == 0 || x % 7 == 6) ? 1 : 0);
        if (hsh % 4 == 0) continue;
        for (int y = top; y < GARDEN_FAR_GROUND + 1; y++)
            px_set(f, x, y, y == top ? GC_FAR_GRASS : GC_HILL_NEAR);
    }
    windmill(f);
    /* far trees on the far meadow, in the haze: a trunk and a round crown, lit on the sun's side */
    static const int trees[5][2] = { { 22, 7 }, { 64, 5 }, { 170, 6 }, { 196, 4 }, { 312, 6 } };
    for (int k = 0; k < 5; k++) {
        int tx = trees[k][0], r = trees[k][1], base = GARDEN_FAR_GROUND + 2;
        sim_raster_rect(f, tx, base - r - 3, 1, r + 3, GC_FAR_EARTH);
        sim_raster_circle(f, tx, base - r - 4, r, GC_HILL_NEAR);
        for (int y = -r; y <= r; y++)
            for (int x = -r; x <= r; x++)
                if (x * x + y * y < r * r && x - y > r / 2 && ((x + y) & 1) == 0)
                    px_set(f, tx + x, base - r - 4 + y, GC_FAR_GRASS);
    }
    /* the pond's basin: its far bank in shadow above the water line, a bowl of dark earth under
     * it, sloped banks each side */
    for (int x = GARDEN_POND_X0 - 4; x <= GARDEN_POND_X1 + 4; x++) {
        int i = x - GARDEN_POND_X0;
        if (i < 0 || i >= GARDEN_POND_N) {
            /* the banks: the meadow's top steps down toward the water */
            int out = i < 0 ? -i : i - GARDEN_POND_N + 1;      /* 1..4 from the water */
            int top = GARDEN_GROUND + (4 - out) * 3 / 4;
            for (int y = GARDEN_GROUND; y < top; y++) px_set(f, x, y, GC_GRASS_DARK);
            px_set(f, x, top, GC_GRASS_LIGHT);
            continue;
        }
        int bottom = sim__garden_basin_row(i);
        for (int y = GARDEN_GROUND; y < bottom; y++) px_set(f, x, y, y < GARDEN_POND_REST ? GC_GRASS_DARK : GC_WATER);
        px_set(f, x, bottom, GC_SOIL_DARK);
        px_set(f, x, bottom + 1, (x & 1) ? GC_SOIL_DARK : GC_SOIL);
    }
    /* flowers in the middle meadow and on the near bank */
    for (int k = 0; k < 22; k++) {
        uint32_t hsh = sim_hash_cell(0x666c6f776572ULL, 0, k, 0, 2);
        int near = k >= 12;
        int x = 6 + (int)(hsh % 308);
        int y = near ? GARDEN_NEAR_GROUND + 1 + (int)((hsh >> 12) % 4) : GARDEN_GROUND + 1 + (int)((hsh >> 12) % 6);
        if (!near && x >= GARDEN_POND_X0 - 6 && x <= GARDEN_POND_X1 + 6) continue;
        if (!near && x >= GARDEN_FIRE_X - 14 && x <= GARDEN_FIRE_X + 14) continue;
        px_set(f, x, y, (hsh >> 20) & 1 ? GC_PINK : GC_WHITE);
        if (near) px_set(f, x, y + 1, GC_GRASS_DARK);
    }
    /* on the near bank: a few stones in the grass, lit from behind, and clumps of dark reeds at
     * the frame's corners (foreground framing) */
    static const int rocks[4][3] = { { 128, 3, 2 }, { 176, 4, 3 }, { 262, 3, 2 }, { 18, 2, 2 } };
    for (int k = 0; k < 4; k++) {
        int rx = rocks[k][0], rw = rocks[k][1], rh = rocks[k][2], ry = GARDEN_NEAR_GROUND + 6;
        sim_raster_rect(f, rx - rw, ry - rh, 2 * rw + 1, rh + 1, GC_STONE_DARK);
        sim_raster_rect(f, rx - rw + 1, ry - rh - 1, 2 * rw - 1, 1, GC_STONE_DARK);
        sim_raster_rect(f, rx - rw + 1, ry - rh, 2 * rw - 2, 1, GC_STONE);
        px_set(f, rx - rw + 1, ry - rh, GC_STONE_LIGHT);
        sim_raster_rect(f, rx - rw - 1, ry + 1, 2 * rw + 3, 1, GC_INK);
    }
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 7; k++) {
            int x = side ? W - 2 - k * 2 : 1 + k * 2, h = 14 - (k * 5) % 9 - k;
            if (h < 4) h = 4;
            int lean = side ? -((k + 1) % 2) : (k + 1) % 2;
            sim_raster_line(f, x, H - 1, x + lean, H - 1 - h, k & 1 ? GC_GRASS_DARK : GC_INK);
        }
    /* the campfire: a ring of stones, two crossed logs, embers between */
    int fx = GARDEN_FIRE_X, gy = GARDEN_GROUND;
    sim_raster_rect(f, fx - 7, gy - 2, 15, 2, GC_EMBER);
    sim_raster_line(f, fx - 7, gy - 1, fx + 5, gy - 4, GC_WOOD_DARK);
    sim_raster_line(f, fx - 7, gy - 2, fx + 5, gy - 5, GC_WOOD);
    sim_raster_line(f, fx + 7, gy - 1, fx - 5, gy - 4, GC_WOOD_DARK);
    sim_raster_line(f, fx + 7, gy - 2, fx - 5, gy - 5, GC_WOOD);
    for (int k = -3; k <= 3; k++) {
        int sx = fx + k * 4 - 1, sy = gy - 2 + (k == -3 || k == 3 ? 0 : 1);
        sim_raster_rect(f, sx, sy, 3, 2, GC_STONE);
        px_set(f, sx, sy, GC_STONE_LIGHT);
        sim_raster_rect(f, sx, sy + 2, 3, 1, GC_STONE_DARK);
    }
    /* the flagpole: two columns of wood, a gold knob */
    sim_raster_rect(f, GARDEN_POLE_X, GARDEN_POLE_TOP, 2, GARDEN_GROUND - GARDEN_POLE_TOP, GC_WOOD);
    sim_raster_rect(f, GARDEN_POLE_X + 1, GARDEN_POLE_TOP, 1, GARDEN_GROUND - GARDEN_POLE_TOP, GC_WOOD_DARK);
    sim_raster_rect(f, GARDEN_POLE_X - 1, GARDEN_POLE_TOP - 3, 4, 3, GC_GOLD);
    px_set(f, GARDEN_POLE_X - 1, GARDEN_POLE_TOP - 3, GC_GOLD_DARK);
    px_set(f, GARDEN_POLE_X + 2, GARDEN_POLE_TOP - 1, GC_GOLD_DARK);
}
