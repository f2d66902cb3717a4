/* art.h — the art of the fruit-merge world (issue 14 §3, seed 003), drawn in code at create time:
 * eleven fruit tiers, the carrier (head, hat, hands, torso), the backdrop with its container and
 * panels, eyes drawn upright on top of a fruit, and a small outlined font. Everything is palette
 * indexes of the one named palette below; nothing here runs in a step except the draw functions,
 * which only write pixels of a frame.
 * One subject a file: art.c (the palette, the build and free), art_fruit.c (the fruit, painted and
 * baked), art_carrier.c (the carrier's parts, and drawing the carrier and its hands), art_eyes.c,
 * art_text.c and art_backdrop.c; art_int.h is what they share.
 *
 * Sizes and pivots, for the world (all in pixels; "pivot pixel" = the pixel whose centre is the
 * point; sim_rot_blit(f, set, k, x, y, flags) puts that pixel of image k on frame pixel (x, y)):
 *   fruit[t]        side 2r+1 (r = sim__merge_radius[t]); the centre pixel (r, r) is the physics
 *                   centre. Draw upright with sim_raster_blit at (cx − r, cy − r), or turned with
 *                   sim_rot_blit(f, &fruit_rot[t], k, cx, cy, 0) (k of MERGE_FRUIT_ANGLES, angle k
 *                   = k × 22.5° clockwise; sim_rot_nearest picks k from degrees). Every opaque
 *                   pixel lies within r + 0.5 of the centre at every angle, and the disc of r − 1
 *                   is at least 85% covered: the picture is the physics circle.
 *   fruit_rot[t]    RotSprite (issue 14 §3: "drawn from the 16 pre-baked rotations of §2"):
 *                   image k is sim_rot_bake of fruit[t] about its centre pixel, cut to the
 *                   (2r+1)² square around that pixel and tidied by sim__merge_fruit_tidy (lone
 *                   protruding pixels cleared, the silhouette's edge inked); nothing else is
 *                   drawn on it. The markings, stem, leaves and highlight turn with the fruit,
 *                   which is how the eye reads the roll. The sets are ordinary sim_rot_sets
 *                   (side 2r+1, the centre pixel the pivot).
 *   fruit_rot_fine  tiers 0..MERGE_CARRY_TIERS-1 only: the same, baked as a lean set (below) for
 *                   the carried fruit's tilt (+16° toward travel, its 2° wiggle, the dangle).
 *                   The other tiers' sets are empty (px NULL).
 *   lean sets       head_rot, hat_rot and fruit_rot_fine: MERGE_LEAN_IMAGES images, image i the
 *                   RotSprite bake at (i − MERGE_LEAN_SPAN)° clockwise, each baked from the
 *                   upright picture (sim_rot_bake_span, 1° steps across ±18°). The lean is −12°
 *                   with a 2° shudder and the hat 0.9 of it: at 5.6° steps (a whole turn in 64)
 *                   all of it fell on one image, at 1° each step moves 10–20 pixels of the head
 *                   or the hat. sim__merge_lean_index turns degrees into i (clamped to the span).
 *   head            MERGE_HEAD_W × MERGE_HEAD_H, pivot = the neck point (MERGE_HEAD_NECK_X,
 *                   MERGE_HEAD_NECK_Y) = its bottom-middle pixel. head_rot is the lean set of the
 *                   faceless head, with the face (eyes, cheeks, smile) stamped upright at its
 *                   turned place on every image, so it stays crisp.
 *   hat             MERGE_HAT_W × MERGE_HAT_H, pivot = the brim centre (MERGE_HAT_PIVOT_X, _Y).
 *                   On the upright head the hat's pivot sits MERGE_HAT_ON_HEAD_DY pixels above
 *                   the neck point (straight up, dx 0): a leaning head carries the hat's pivot to
 *                   neck + R(head angle)·(0, MERGE_HAT_ON_HEAD_DY), and the hat turns 0.9 as far.
 *                   sim__merge_draw_carrier does exactly that.
 *   body            MERGE_BODY_W × MERGE_BODY_H, drawn first, its neck pixel (MERGE_BODY_NECK_X,
 *                   MERGE_BODY_NECK_Y) on the head's neck point; it does not rotate.
 *   hand_open/closed MERGE_HAND_W × MERGE_HAND_H, drawn as the hand on the screen's RIGHT of the
 *                   carrier, gripping from above: closed a fist, thumb up, the wrist on its −x
 *                   side (towards the carrier); open spread, fingers down, the thumb out towards
 *                   the carrier, the wrist on top. The left hand is SIM_BLIT_FLIPX, the seed's
 *                   palm-up pose SIM_BLIT_FLIPY. Place a hand by its centre pixel (MERGE_HAND_W/2,
 *                   MERGE_HAND_H/2) (sim__merge_draw_hand does); an arm meets it at the wrist
 *                   sim__merge_hand_wrist gives.
 *   eyes            drawn at render time, upright, never part of a fruit sprite; every eye pixel
 *                   lies on the fruit's upright silhouette, in its upper half.
 * The build takes about 26 ms (gcc -O2, issue 27's machine; nearly all of it the RotSprite
 * bakes): call it once per world at create time (and on load), never per step. Nothing in it
 * depends on the world's seed, and it is the same bytes everywhere (+ − × ÷ sqrt and
 * sim_cos/sim_sin only; checked equal under gcc -O0, gcc -O2, clang -O3 and aarch64 gcc under
 * qemu when it was written), so frames that show it hash alike.
 */
#ifndef VIVARIUM_SIM_MERGE_ART_H
#define VIVARIUM_SIM_MERGE_ART_H
#include <stdint.h>
#include "anim/rotsprite.h"
#include "sim.h"

#define MERGE_TIERS 11
#define MERGE_FRUIT_ANGLES 16          /* SIM_ROT_ANGLES */
#define MERGE_LEAN_TURN 360            /* lean sets: a turn in 1° steps */
/* … across ±18°: the most anything leans, the carried fruit's 16° and the 2° wiggle (carrier.h;
 * the head's 12° + 2°, and the hat's 0.9 of that, are inside; a test holds the carrier to it) */
#define MERGE_LEAN_SPAN 18
#define MERGE_LEAN_IMAGES (2 * MERGE_LEAN_SPAN + 1)
#define MERGE_CARRY_TIERS 5            /* tiers 0..4 can be carried, so have fruit_rot_fine */

/* {5,6,8,10,12,14,17,20,24,28,33} px: the physics circle of each tier */
extern const uint8_t sim__merge_radius[MERGE_TIERS];
/* cherry strawberry grape dekopon persimmon apple pear peach pineapple melon watermelon */
extern const char *const sim__merge_tier_name[MERGE_TIERS];

/* The named palette. Index 0 is the transparent key of every sprite (its colour is the top of
 * the sky, so even a stray one reads as background). Per tier three colours in a row: body,
 * shade (lower right), highlight (upper left): MERGE_C_BODY(t), MERGE_C_SHADE(t),
 * MERGE_C_HIGH(t). */
enum {
    MERGE_C_CLEAR = 0,      /* transparent key; = the sky's top colour */
    MERGE_C_OUTLINE,        /* the one dark ink: outlines, pupils, stems, text outline */
    MERGE_C_WHITE,          /* eye whites, text, glints */
    MERGE_C_GOLD,           /* labels, strawberry seeds, stars */
    MERGE_C_LINE_RED,       /* the game-over line */
    MERGE_C_CHERRY, MERGE_C_CHERRY_SHADE, MERGE_C_CHERRY_HIGH,
    MERGE_C_STRAWBERRY, MERGE_C_STRAWBERRY_SHADE, MERGE_C_STRAWBERRY_HIGH,
    MERGE_C_GRAPE, MERGE_C_GRAPE_SHADE, MERGE_C_GRAPE_HIGH,
    MERGE_C_DEKOPON, MERGE_C_DEKOPON_SHADE, MERGE_C_DEKOPON_HIGH,
    MERGE_C_PERSIMMON, MERGE_C_PERSIMMON_SHADE, MERGE_C_PERSIMMON_HIGH,
    MERGE_C_APPLE, MERGE_C_APPLE_SHADE, MERGE_C_APPLE_HIGH,
    MERGE_C_PEAR, MERGE_C_PEAR_SHADE, MERGE_C_PEAR_HIGH,
    MERGE_C_PEACH, MERGE_C_PEACH_SHADE, MERGE_C_PEACH_HIGH,
    MERGE_C_PINEAPPLE, MERGE_C_PINEAPPLE_SHADE, MERGE_C_PINEAPPLE_HIGH,
    MERGE_C_MELON, MERGE_C_MELON_SHADE, MERGE_C_MELON_HIGH,
    MERGE_C_WATERMELON, MERGE_C_WATERMELON_SHADE, MERGE_C_WATERMELON_HIGH,
    MERGE_C_LEAF,           /* leaves, calyx, crown */
    MERGE_C_LEAF_DARK,      /* their shade; watermelon stripes */
    MERGE_C_STEM,           /* brown: stems, hair */
    MERGE_C_NET,            /* the melon's pale net */
    MERGE_C_SKIN,
    MERGE_C_SKIN_SHADE,
    MERGE_C_BLUSH,          /* cheeks */
    MERGE_C_HAT,            /* straw */
    MERGE_C_HAT_SHADE,
    MERGE_C_HAT_BAND,       /* the hat's ribbon */
    MERGE_C_HAND,           /* mittens */
    MERGE_C_HAND_SHADE,
    MERGE_C_SHIRT,
    MERGE_C_SHIRT_SHADE,
    MERGE_C_WOOD,           /* container and panel frames */
    MERGE_C_WOOD_DARK,
    MERGE_C_WOOD_LIGHT,
    MERGE_C_INSIDE,         /* the container's back */
    MERGE_C_INSIDE_SHADE,
    MERGE_C_PANEL,          /* the panels' board; far hills */
    MERGE_C_SKY0,           /* dusk sky, top to horizon */
    MERGE_C_SKY1,
    MERGE_C_SKY2,
    MERGE_C_SKY3,
    MERGE_C_SKY4,
    MERGE_C_COUNT           /* 63 named colours (≤ 64) */
};
#define MERGE_C_PUPIL MERGE_C_OUTLINE
#define MERGE_C_BODY(t) (MERGE_C_CHERRY + 3 * (t))
#define MERGE_C_SHADE(t) (MERGE_C_CHERRY + 3 * (t) + 1)
#define MERGE_C_HIGH(t) (MERGE_C_CHERRY + 3 * (t) + 2)

/* Carrier part sizes and pivots (see the top of this file). */
#define MERGE_HEAD_W 19
#define MERGE_HEAD_H 17
#define MERGE_HEAD_NECK_X 9            /* bottom-middle pixel */
#define MERGE_HEAD_NECK_Y 16
#define MERGE_HAT_W 27
#define MERGE_HAT_H 13
#define MERGE_HAT_PIVOT_X 13           /* brim centre pixel */
#define MERGE_HAT_PIVOT_Y 10
#define MERGE_HAT_ON_HEAD_DY (-14)     /* hat pivot above the neck point on the upright head */
#define MERGE_BODY_W 17
#define MERGE_BODY_H 10
#define MERGE_BODY_NECK_X 8
#define MERGE_BODY_NECK_Y 0
#define MERGE_HAND_W 8
#define MERGE_HAND_H 8
#define MERGE_HAT_WOBBLE 0.9           /* seed 003 HatWobbleMultiplier: the hat turns 0.9 as far */

/* The layout the art was drawn for (the world may choose others; draw_backdrop takes the box). */
#define MERGE_BOX_X0 92                /* inside: x0 ≤ x < x1, y_top ≤ y < y_floor (pixels) */
#define MERGE_BOX_X1 228
#define MERGE_BOX_TOP 44
#define MERGE_BOX_FLOOR 172
#define MERGE_LINE_Y 56
#define MERGE_WALL 4                   /* wall and floor thickness, drawn outside the inside */
#define MERGE_SCORE_X0 8               /* the score panel's outer frame: x0..x1, y0..y1 inclusive */
#define MERGE_SCORE_X1 84
#define MERGE_SCORE_Y0 44
#define MERGE_SCORE_Y1 104
#define MERGE_NEXT_X0 236              /* the NEXT panel's outer frame */
#define MERGE_NEXT_X1 312
#define MERGE_NEXT_Y0 44
#define MERGE_NEXT_Y1 104
#define MERGE_NEXT_CX 274              /* where the next fruit's centre goes in its panel */
#define MERGE_NEXT_CY 80
#define MERGE_GLYPH_W 3                /* the font: 3×5 glyphs, advance 4 */
#define MERGE_GLYPH_H 5
#define MERGE_GLYPH_ADV 4

typedef struct merge_art {
    sim_palette pal;                       /* version 1; count = MERGE_C_COUNT */
    /* upright fruit body WITHOUT eyes, side 2r+1, centre pixel = centre; key = MERGE_C_CLEAR */
    sim_sprite fruit[MERGE_TIERS];
    /* MERGE_FRUIT_ANGLES RotSprite rotations of fruit[t] about its centre (image 0 = fruit[t]) */
    sim_rot_set fruit_rot[MERGE_TIERS];
    /* lean sets, tiers 0..MERGE_CARRY_TIERS-1 only (the carried fruit tilts ±16° ± 2°) */
    sim_rot_set fruit_rot_fine[MERGE_TIERS];
    /* carrier parts; hands drawn for the RIGHT hand, the left is an X flip */
    sim_sprite head, hat, hand_open, hand_closed;
    /* lean sets, pivots: the head's neck point, the hat's brim centre */
    sim_rot_set head_rot, hat_rot;
    sim_sprite body;                       /* the carrier's torso and shoulders, under the head */
    uint8_t *mem;                          /* owned pixel memory of the sprites */
} merge_art;

/* Draw every sprite and bake every rotation. 0 or SIM_ENOMEM (then `a` is freed and zeroed);
 * allocates, so create time only. The result depends on nothing (no seed, no params): two
 * builds give the same bytes, so a world rebuilds it on load rather than saving it. */
int sim__merge_art_build(merge_art *a);
/* Free what the build allocated and zero `a`; safe on a zeroed or failed art. */
void sim__merge_art_free(merge_art *a);

/* Eyes on top of a fruit of `tier` centred at (cx, cy): two white-and-pupil eyes sized for the
 * tier, in the upper middle. look −1 looks left, +1 right (the seed's Eyes.FlipH: the two are X
 * mirrors about column cx); blink 1 squashes each eye to a tenth of its height, at least 1 px (a
 * dark line). Upright: the eyes do not turn with the fruit. Clipped to the frame. */
void sim__merge_draw_eyes(sim_frame *f, const merge_art *a, int tier, int cx, int cy, int look,
                          int blink);
/* The static scene under everything: the dusk sky with stars and hills, the ground, the container
 * (inside x0 ≤ x < x1, y_top ≤ y < y_floor, walls MERGE_WALL px wide outside it from y_top − 2
 * down, the floor MERGE_WALL px from y_floor), the dashed game-over line on row y_line across the
 * inside, and the empty frames of the score and NEXT panels. Writes every pixel of a 320×180
 * frame (any other size is filled and clipped). Does not set f->pal. */
void sim__merge_draw_backdrop(sim_frame *f, const merge_art *a, int x0, int x1, int y_top,
                              int y_floor, int y_line);
/* Text in the 3×5 font with a 1 px MERGE_C_OUTLINE ring, so it reads on any background: digits,
 * A–Z (lower case is drawn as upper), space, and . , : ! - + / x. (x, y) is the top-left of the
 * first glyph (the ring reaches x − 1, y − 1). Returns the width of the glyphs drawn: 4 per
 * character minus the last gap (0 for ""). Unknown characters draw as a space. */
int sim__merge_draw_text(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                         uint8_t colour);
/* The same text at an integer scale (each glyph pixel a scale × scale block; the ring stays 1 px).
 * Returns the width drawn (4·scale per character minus scale). scale < 1 is taken as 1. */
int sim__merge_draw_text_scaled(sim_frame *f, const merge_art *a, int x, int y, const char *text,
                                uint8_t colour, int scale);
/* The width draw_text would return, without drawing. */
int sim__merge_text_width(const char *text, int scale);

/* The image of a lean set nearest to `degrees` clockwise (round half up), clamped to the set's
 * ±MERGE_LEAN_SPAN: 0..MERGE_LEAN_IMAGES − 1; −12° is image 8. NaN gives the upright image. */
int sim__merge_lean_index(double degrees);
/* The carrier's body, head and hat, with the neck point on frame pixel (neck_x, neck_y): head
 * image head_i and hat image hat_i of the lean sets (the world picks them with
 * sim__merge_lean_index from its head angle and from the hat's own angle, 0.9 of it); the hat's
 * pivot is carried around the neck by the head's angle. Arms, hands and fruit are the world's to
 * draw. */
void sim__merge_draw_carrier(sim_frame *f, const merge_art *a, int neck_x, int neck_y, int head_i,
                             int hat_i);
/* One hand with its centre pixel on (x, y): right 1 for the screen-right hand (as drawn), 0 for
 * the left (X flip); closed picks the drawing; flipv 1 turns it palm down (the seed's FlipV). */
void sim__merge_draw_hand(sim_frame *f, const merge_art *a, int x, int y, int right, int closed,
                          int flipv);
/* Where the arm meets a hand: the wrist pixel of the closed (1) or open (0) drawing, from the
 * hand's centre pixel, under flags SIM_BLIT_FLIPX (the left hand) and SIM_BLIT_FLIPY (palm
 * up), so that an arm drawn to it meets the hand whichever pose the hand shows. */
void sim__merge_hand_wrist(int closed, unsigned flags, int *dx, int *dy);
/* The tidy pass every baked fruit image gets (n × n, n = 2r + 1 ≤ 67, in place): an opaque pixel
 * with three or four transparent 4-neighbours is cleared, then every opaque pixel with a
 * transparent 4-neighbour is inked; both rules read the image as it was before that rule.
 * Returns the number of pixels changed (0: the image was tidy). Exposed so a test can tidy a
 * fresh bake and compare. */
int sim__merge_fruit_tidy(uint8_t *img, int n);
/* 1 when index c is an outline colour (the ink every sprite's silhouette is drawn in). */
int sim__merge_is_outline(uint8_t c);
#endif
