/* art_carrier.c — the fruit-merge carrier's parts (issue 14 §3, seed 003): the head, the hat, the
 * torso and the two mittens, painted at create time from character maps (one character a pixel);
 * the head and the hat baked by RotSprite as lean sets (1° steps across ±18°, each image from the
 * upright picture) and tidied, the face stamped upright on every head image so it stays crisp;
 * and the carrier and a hand drawn on a frame. The angles come from sim_cos/sim_sin. See art.h
 * for the contract (sizes and pivots). */
#include <string.h>
#include "art_int.h"

/* cos and sin of angle k of n (clockwise), exact at the quarter turns. */
static void turn_of(int k, int n, double *co, double *si)
{
    static const double qc[4] = { 1, 0, -1, 0 }, qs[4] = { 0, 1, 0, -1 };
    k = ((k % n) + n) % n;
    if (k % (n / 4) == 0) {
        *co = qc[k / (n / 4)];
        *si = qs[k / (n / 4)];
        return;
    }
    double a = 2.0 * SIM_PI * k / n;
    *co = sim_cos(a);
    *si = sim_sin(a);
}

/* ---- the carrier, from character maps -------------------------------------------------------- */
/* One character a pixel: '.' clear, 'o' outline, 'w' white, 's' skin, 'd' skin shade, 'b' blush,
 * 'h' hat, 'H' hat shade, 'r' hat band (also the shirt and the mittens' cuffs), 'R' its shade,
 * 'm' mitten, 'M' mitten shade, 'c' overalls, 'C' their shade, 't' brown (hair), 'g' gold. */
static uint8_t map_colour(char ch)
{
    switch (ch) {
    case 'o': return MERGE_C_OUTLINE;
    case 'w': return MERGE_C_WHITE;
    case 's': return MERGE_C_SKIN;
    case 'd': return MERGE_C_SKIN_SHADE;
    case 'b': return MERGE_C_BLUSH;
    case 'h': return MERGE_C_HAT;
    case 'H': return MERGE_C_HAT_SHADE;
    case 'r': return MERGE_C_HAT_BAND;
    case 'R': return MERGE_C_APPLE_SHADE;
    case 'm': return MERGE_C_HAND;
    case 'M': return MERGE_C_HAND_SHADE;
    case 'c': return MERGE_C_SHIRT;
    case 'C': return MERGE_C_SHIRT_SHADE;
    case 't': return MERGE_C_STEM;
    case 'g': return MERGE_C_GOLD;
    default: return MERGE_C_CLEAR;
    }
}

static const char *const head_map[MERGE_HEAD_H] = {
    ".......ooooo.......",
    "....oootttttooo....",
    "...ottttttttttto...",
    "..ottttttttttttto..",
    ".ottttttttttttttto.",
    ".ottttsttsttstttto.",
    "ottssssssssssssstto",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    "ossssssssssssssssdo",
    ".ossssssssssssssdo.",
    ".ossssssssssssssdo.",
    "..ossssssssssssdo..",
    "...odssssssssddo...",
    "....oodddddddoo....",
    "......ooooooo......",
};

static const char *const hat_map[MERGE_HAT_H] = {
    "..........ooooooo..........",
    "........oohhhhhhhoo........",
    ".......ohhhhhhhhhhHo.......",
    "......ohhhhhhhhhhhhHo......",
    "......ohhhhhhhhhhhhHo......",
    "......orrrrrrrrrrrrro......",
    "......orrrrrrrrrrrrro......",
    "...oooohhhhhhhhhhhhHoooo...",
    ".oohhhhhhhhhhhhhhhhhhhhhoo.",
    "ohhhhhhhhhhhhhhhhhhhhhhhhHo",
    "oHhhhhhhhhhhhhhhhhhhhhhhHHo",
    ".ooHHHHHHHHHHHHHHHHHHHHHoo.",
    "...ooooooooooooooooooooo...",
};

static const char *const body_map[MERGE_BODY_H] = {
    ".....ooooooo.....",
    "...oorrrrrrroo...",
    "..orcrrrrrrrcRo..",
    ".orrcrrrrrrrcrRo.",
    "orrrcgcccccgcrrRo",
    "orrrccccccccCrrRo",
    "orrrcccCCCccCrrRo",
    "orrrccccccccCrrRo",
    "oRRRCCCCCCCCCRRRo",
    "ooooooooooooooooo",
};

/* The hands, drawn as the screen-right hand (the left is its X flip), gripping from above what
 * hangs under them. Closed: a fist, thumb up, its fingers toward the outside and the wrist on the
 * inside (row 4, where the arm comes in). Open: the hand spread, fingers down and the thumb out
 * toward the body, the wrist on top (where the arm comes in from the shoulder); flipped (the
 * seed's FlipV, palm up) the fingers point up: the toss. sim__merge_hand_wrist says where each
 * wrist is. */
static const char *const hand_open_map[MERGE_HAND_H] = {
    "...oo...",
    "..oMMo..",
    ".ommmmo.",
    "ommmmmo.",
    "omommmo.",
    "o.omomo.",
    "..omomo.",
    "...o.o..",
};

static const char *const hand_closed_map[MERGE_HAND_H] = {
    "...oo...",
    "..ommo..",
    "..ommo..",
    ".oommooo",
    "ommmmmmo",
    "ommmmooo",
    ".ommmmmo",
    "..ooooo.",
};

/* Tidy a RotSprite image of a part: a pixel that sticks out alone (three or four transparent
 * 4-neighbours) goes, and every pixel left on the silhouette's edge is ink, so a turned hat or
 * head keeps a whole one-pixel outline where the 8× reduction broke it. */
static void tidy_turned(uint8_t *img, int side)
{
    for (int pass = 0; pass < 2; pass++)
        for (int y = 0; y < side; y++)
            for (int x = 0; x < side; x++) {
                uint8_t *p = &img[y * side + x];
                if (*p == MERGE_C_CLEAR)
                    continue;
                int clear = (x == 0 || img[y * side + x - 1] == MERGE_C_CLEAR) +
                            (x == side - 1 || img[y * side + x + 1] == MERGE_C_CLEAR) +
                            (y == 0 || img[(y - 1) * side + x] == MERGE_C_CLEAR) +
                            (y == side - 1 || img[(y + 1) * side + x] == MERGE_C_CLEAR);
                if (pass == 0 && clear >= 3)
                    *p = MERGE_C_CLEAR;
                else if (pass == 1 && clear > 0)
                    *p = MERGE_C_OUTLINE;
            }
}

/* The face, stamped upright at its turned place on every head image: its features are one to
 * three pixels, and RotSprite would smudge them at a 6° lean, while the head's outline and hair
 * turn well. (x, y) is a feature's top-left pixel on the upright head; '.' leaves a pixel. */
typedef struct feature { int8_t x, y; const char *rows[3]; } feature;
static const feature face[] = {
    { 5, 8, { "wo", "oo", "oo" } },   /* eyes: 2 × 3, a glint at the top left */
    { 12, 8, { "wo", "oo", "oo" } },
    { 3, 11, { "bb", NULL, NULL } },  /* cheeks */
    { 14, 11, { "bb", NULL, NULL } },
    { 7, 12, { "o...o", ".ooo.", NULL } },  /* the smile */
};
static int feature_h(const feature *f)
{
    return f->rows[2] ? 3 : f->rows[1] ? 2 : 1;
}

/* Stamp the face on a head image of side `side` (pivot = the middle pixel) turned by `deg` whole
 * degrees: each feature's centre turns about the neck, the feature stays upright. */
static void stamp_face(uint8_t *img, int side, int deg)
{
    double co, si;
    turn_of(deg, MERGE_LEAN_TURN, &co, &si);
    for (size_t f = 0; f < sizeof face / sizeof face[0]; f++) {
        int w = (int)strlen(face[f].rows[0]), h = feature_h(&face[f]);
        /* centres in pixel units from the neck pixel's centre */
        double cx = face[f].x + (w - 1) / 2.0 - MERGE_HEAD_NECK_X;
        double cy = face[f].y + (h - 1) / 2.0 - MERGE_HEAD_NECK_Y;
        double tx = cx * co - cy * si, ty = cx * si + cy * co;
        int x0 = side / 2 + sim_snap(tx - (w - 1) / 2.0);
        int y0 = side / 2 + sim_snap(ty - (h - 1) / 2.0);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint8_t v = map_colour(face[f].rows[j][i]);
                int x = x0 + i, y = y0 + j;
                if (v != MERGE_C_CLEAR && x >= 0 && y >= 0 && x < side && y < side)
                    img[y * side + x] = v;
            }
    }
}

/* Copy a character map into px (w × h); a short row is padded with clear. */
static void paint_map(uint8_t *px, const char *const *rows, int w, int h)
{
    for (int y = 0; y < h; y++) {
        size_t len = strlen(rows[y]);
        for (int x = 0; x < w; x++)
            px[y * w + x] = (size_t)x < len ? map_colour(rows[y][x]) : MERGE_C_CLEAR;
    }
}

/* ---- build ----------------------------------------------------------------------------------- */

int sim__merge_art_build_carrier(merge_art *a, uint8_t **mem)
{
    int rc;
    uint8_t *p = *mem;
    uint8_t *head_px = p;
    paint_map(p, head_map, MERGE_HEAD_W, MERGE_HEAD_H);  /* faceless until the bake below */
    a->head = sim__merge_sprite_at(p, MERGE_HEAD_W, MERGE_HEAD_H);
    p += MERGE_HEAD_W * MERGE_HEAD_H;
    paint_map(p, hat_map, MERGE_HAT_W, MERGE_HAT_H);
    a->hat = sim__merge_sprite_at(p, MERGE_HAT_W, MERGE_HAT_H);
    p += MERGE_HAT_W * MERGE_HAT_H;
    paint_map(p, body_map, MERGE_BODY_W, MERGE_BODY_H);
    a->body = sim__merge_sprite_at(p, MERGE_BODY_W, MERGE_BODY_H);
    p += MERGE_BODY_W * MERGE_BODY_H;
    paint_map(p, hand_open_map, MERGE_HAND_W, MERGE_HAND_H);
    a->hand_open = sim__merge_sprite_at(p, MERGE_HAND_W, MERGE_HAND_H);
    p += MERGE_HAND_W * MERGE_HAND_H;
    paint_map(p, hand_closed_map, MERGE_HAND_W, MERGE_HAND_H);
    a->hand_closed = sim__merge_sprite_at(p, MERGE_HAND_W, MERGE_HAND_H);
    p += MERGE_HAND_W * MERGE_HAND_H;
    *mem = p;

    sim_rot_sprite hs = { MERGE_HEAD_W, MERGE_HEAD_H, a->head.px, MERGE_C_CLEAR,
                          2 * MERGE_HEAD_NECK_X + 1, 2 * MERGE_HEAD_NECK_Y + 1 };
    if ((rc = sim_rot_bake_span(&a->head_rot, &hs, MERGE_LEAN_TURN, -MERGE_LEAN_SPAN,
                                MERGE_LEAN_IMAGES)) != 0)
        return rc;
    for (int i = 0; i < MERGE_LEAN_IMAGES; i++) {
        uint8_t *img = (uint8_t *)sim_rot_image(&a->head_rot, i);
        if (i != MERGE_LEAN_SPAN)  /* 0° is the sprite itself, exactly */
            tidy_turned(img, a->head_rot.side);
        stamp_face(img, a->head_rot.side, i - MERGE_LEAN_SPAN);
    }
    /* the upright head gets the same face at angle 0: the bake above read it faceless */
    for (size_t f = 0; f < sizeof face / sizeof face[0]; f++) {
        int w = (int)strlen(face[f].rows[0]), h = feature_h(&face[f]);
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++) {
                uint8_t v = map_colour(face[f].rows[j][i]);
                if (v != MERGE_C_CLEAR)
                    head_px[(face[f].y + j) * MERGE_HEAD_W + face[f].x + i] = v;
            }
    }
    sim_rot_sprite ts = { MERGE_HAT_W, MERGE_HAT_H, a->hat.px, MERGE_C_CLEAR,
                          2 * MERGE_HAT_PIVOT_X + 1, 2 * MERGE_HAT_PIVOT_Y + 1 };
    if ((rc = sim_rot_bake_span(&a->hat_rot, &ts, MERGE_LEAN_TURN, -MERGE_LEAN_SPAN,
                                MERGE_LEAN_IMAGES)) != 0)
        return rc;
    for (int i = 0; i < MERGE_LEAN_IMAGES; i++)
        if (i != MERGE_LEAN_SPAN)
            tidy_turned((uint8_t *)sim_rot_image(&a->hat_rot, i), a->hat_rot.side);
    return 0;
}

int sim__merge_lean_index(double degrees)
{
    if (!sim_isfinite(degrees))
        return MERGE_LEAN_SPAN;
    double t = sim_floor(degrees + 0.5);
    if (t < -MERGE_LEAN_SPAN)
        t = -MERGE_LEAN_SPAN;
    if (t > MERGE_LEAN_SPAN)
        t = MERGE_LEAN_SPAN;
    return (int)t + MERGE_LEAN_SPAN;
}

/* ---- the carrier ----------------------------------------------------------------------------- */

void sim__merge_draw_carrier(sim_frame *f, const merge_art *a, int neck_x, int neck_y, int head_i,
                             int hat_i)
{
    if (!f || !a || !a->mem)
        return;
    sim_raster_blit(f, &a->body, neck_x - MERGE_BODY_NECK_X, neck_y - MERGE_BODY_NECK_Y, 0);
    sim_rot_blit(f, &a->head_rot, head_i, neck_x, neck_y, 0);
    /* the hat's pivot rides on the head: (0, DY) from the neck, turned by the head's angle */
    double co, si;
    turn_of(head_i - MERGE_LEAN_SPAN, MERGE_LEAN_TURN, &co, &si);
    double hx = -si * MERGE_HAT_ON_HEAD_DY, hy = co * MERGE_HAT_ON_HEAD_DY;  /* clockwise, y down */
    sim_rot_blit(f, &a->hat_rot, hat_i, neck_x + sim_snap(hx), neck_y + sim_snap(hy), 0);
}

void sim__merge_hand_wrist(int closed, unsigned flags, int *dx, int *dy)
{
    /* the wrist pixel of each drawing, from its centre pixel (MERGE_HAND_W/2, MERGE_HAND_H/2) */
    int x = closed ? -3 : -1, y = closed ? 0 : -3;
    /* a flip maps column c to W − 1 − c about the centre pixel W/2: offset d → −d − 1 */
    *dx = flags & SIM_BLIT_FLIPX ? -x - 1 : x;
    *dy = flags & SIM_BLIT_FLIPY ? -y - 1 : y;
}

void sim__merge_draw_hand(sim_frame *f, const merge_art *a, int x, int y, int right, int closed,
                          int flipv)
{
    if (!f || !a || !a->mem)
        return;
    const sim_sprite *s = closed ? &a->hand_closed : &a->hand_open;
    unsigned flags = (right ? 0u : (unsigned)SIM_BLIT_FLIPX) |
                     (flipv ? (unsigned)SIM_BLIT_FLIPY : 0u);
    sim_raster_blit(f, s, x - MERGE_HAND_W / 2, y - MERGE_HAND_H / 2, flags);
}
