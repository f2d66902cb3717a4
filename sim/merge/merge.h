/* merge.h — the fruit-merge world (seed 003, "Moving Is a Lean Plus a Wiggle"), as the modules of
 * sim/merge/ and the tests see it: the numbers, the fruit, the world. merge_int.h adds the
 * functions the modules call in each other.
 *
 * A container in the middle of a 320×180 frame; fruit are circles on the shared Verlet solver
 * (sim/anim/verlet.c, with its spin and circle-contact options on), in 11 tiers by radius. Two
 * touching fruit of one kind merge into one of the next tier. A carrier at the top (head, hat, two
 * hands, the fruit it carries) walks, leans and wiggles (carrier.c), juggles the next fruit from
 * the left hand to the right (carrier.c) and has its hands and idle played by the cel-set engine
 * (sim/anim/celset.c, anim.c). The art is drawn in code at create time (art*.c) and rotated fruit
 * come from RotSprite pre-bakes (sim/anim/rotsprite.c). docs/merge.md has every number and its
 * reason. */
#ifndef VIVARIUM_MERGE_H
#define VIVARIUM_MERGE_H
#include "sim_internal.h"
#include "anim/verlet.h"
#include "anim/celset.h"
#include "merge/art.h"
#include "merge/carrier.h"

/* ---- the frame and the container (pixels; y down) --------------------------------------------- */
#define MERGE_HZ 60
#define MERGE_DT (1.0 / MERGE_HZ)
#define MERGE_W 320
#define MERGE_H 180
#define MERGE_X0 92                 /* the inside of the container: x0..x1 × top..floor */
#define MERGE_X1 228
#define MERGE_TOP 44
#define MERGE_FLOOR 172
#define MERGE_LINE 56               /* the game-over line */

/* ---- numbers (seed 003 unless marked "ours"; docs/merge.md) ------------------------------------ */
#define MERGE_GIFT 1.25             /* the merge's velocity gift: (v1 + v2) × 1.25 */
#define MERGE_GRAVITY 700.0         /* ours: px/s² */
#define MERGE_PASSES 8              /* ours: solver passes, so a pile of 60 holds its shape */
#define MERGE_SPIN_DRAG 0.05        /* ours: spin lost a step, so a pile comes to rest (docs/verlet.md) */
#define MERGE_MAX_FRUIT 120         /* ours: the container holds about 100 of the smallest */
#define MERGE_SETTLE_TICKS 60       /* ours: a fruit dropped less than 1 s ago is never "over" */
#define MERGE_OVER_TICKS 120        /* ours: 2 s above the line ends the game */
#define MERGE_POP_TICKS 4           /* ours: after game over, one fruit pops every 4 ticks */
#define MERGE_IDLE_TICKS (5 * MERGE_HZ)  /* 5 s with no player input: the autopilot plays */
#define MERGE_HAND_DX 16            /* ours: the hands' centres, from the carrier's centre */
#define MERGE_HAND_Y 36
#define MERGE_NECK_Y 26             /* ours: the head's pivot (its neck), and the torso's top */
#define MERGE_SHOULDER_DX 6         /* ours: an arm leaves the torso here, from its neck pixel */
#define MERGE_SHOULDER_DY 4
/* MERGE_CARRY_TIERS (art.h): the carrier brings tiers 0..4 only, as the genre does. */

/* A fruit's descriptor: what the seed's scene file is. Two fruit are the same kind when they
 * point at the same descriptor, as the seed compares SceneFilePath; the tier is its place in
 * the table (and what a saved state names). */
typedef struct merge_desc {
    uint8_t tier;
    uint16_t points;                /* score for making one: (tier+1)(tier+2)/2, as the genre does */
    double r, m;                    /* radius (px) and mass (∝ area) */
} merge_desc;
extern const merge_desc sim__merge_desc[MERGE_TIERS];

/* A fruit in the container: body i of the solver is fruit i (and its chunk i). */
typedef struct merge_fruit {
    const merge_desc *desc;
    uint8_t queued;                 /* queued for deletion by a merge this tick */
    uint8_t frozen;                 /* game over: no merges while the container empties */
    uint16_t age;                   /* ticks since it entered the container, capped */
    uint16_t above;                 /* ticks its top has been above the game-over line */
    merge_fruit_life life;          /* its own look and blink timers and stream */
} merge_fruit;

/* A fruit the carrier holds (not in the solver). */
typedef struct merge_held {
    uint8_t tier;
    merge_fruit_life life;
} merge_held;

enum { MERGE_SCENE_DEMO, MERGE_SCENE_EMPTY, MERGE_SCENE_PILE, MERGE_NSCENES };
enum { MERGE_ANIM_SLOTS = 4 };      /* torso, left hand, right hand, and one spare */

typedef struct merge_world {
    /* params (not saved: they are in the header's params text) */
    int scene;
    int autopilot;                  /* 1: the autopilot plays after MERGE_IDLE_TICKS */
    merge_carrier_cfg ccfg;
    /* state */
    uint64_t tick;
    uint32_t serial;                /* fruit made so far: seeds each fruit's stream */
    sim_rng rng;                    /* "merge.next": which tier comes next */
    sim_rng pilot_rng;              /* "merge.pilot": the autopilot's choices */
    sim_rng life_rng;               /* "merge.life": seeds each new fruit's own stream */
    sim_verlet v;
    merge_fruit fruit[MERGE_MAX_FRUIT];
    int nfruit;
    merge_carrier car;
    merge_held held;                /* in the right hand (the one a drop releases) */
    merge_held next;                /* in the left hand (juggled to the right on a drop) */
    uint8_t upcoming;               /* the tier after next, shown in the NEXT panel */
    int8_t input_dir;               /* the player's move (−1, 0, 1) */
    int16_t target_x;               /* a pointer drop walking to its x, or −1 */
    uint8_t drop_pending;           /* a drop asked for while juggling */
    uint32_t idle;                  /* ticks since the last player input */
    int16_t pilot_x;                /* the autopilot's target drop x, or −1 */
    uint16_t pilot_wait;            /* ticks the autopilot waits before choosing again */
    uint64_t score, best;
    uint32_t merges;                /* merges this game */
    uint32_t games;                 /* games ended */
    uint16_t over;                  /* 0 playing; > 0: ticks since game over (emptying) */
    sim_anim anim;                  /* the carrier's torso and hands (cel-set engine) */
    uint8_t anim_slot[3];           /* the slots of the torso, left hand and right hand */
    /* derived (not saved) */
    merge_art art;
    uint8_t *backdrop;              /* the static scene, drawn once at create (MERGE_W × MERGE_H) */
    sim_seg seg[3];
    sim_sprite anim_tiles[3];       /* the cel-set engine's tables (anim.c) */
    sim_cel anim_cels[4];
    uint8_t anim_oam[4][5];
} merge_world;

#endif
