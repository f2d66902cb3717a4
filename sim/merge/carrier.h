/* carrier.h — the merge world's carrier and its fruit's idle life (seed 003, "Moving Is a Lean
 * Plus a Wiggle"; issue 14 §3). No animation data: a few angles, two quarter waves and two random
 * timers per fruit, all arithmetic.
 *
 *   The carrier  walks along the top (x, clamped to [xmin, xmax]); its head leans −12° and the
 *                carried fruit +16° toward travel, plus a 2° speed wiggle at 32 rad/s while
 *                moving; the hat turns 0.9 × the head. On stopping, the fruit dangles for 4 s and
 *                the head and hat wobble for 0.75 s, each decaying linearly and slowing as it
 *                fades, starting opposite to the last direction of travel.
 *   The juggle   a drop tosses the next fruit from the left socket to the right in two quarter
 *                waves (left → midpoint at height sin θ, midpoint → right at height cos θ,
 *                θ = π/2 × t), each phase with its own time. Idle → dropping → catching → idle.
 *   Hand poses   which of the four hand drawings (open/closed × flipped or not) each hand shows.
 *   Fruit life   per fruit: a look check once a second (1 in 4 flips the eyes) and a blink check
 *                on its own interval (eyes squashed to 0.1 for 0.3 s), from its own generator.
 *
 * Units: x in frame pixels, y down (a height goes up: y − height), time in seconds, angles in
 * degrees (the seed's RotationDegrees; positive is clockwise on a y-down frame), accumulators in
 * radians of phase. State is plain data (no pointers), so the world saves it field by field;
 * the *_check functions validate a loaded state. Nothing here allocates, reads a clock or keeps a
 * global; every random number comes from the fruit's own sim_rng. */
#ifndef VIVARIUM_MERGE_CARRIER_H
#define VIVARIUM_MERGE_CARRIER_H
#include <stdint.h>
#include "sim.h"

/* ---- the carrier ----------------------------------------------------------------------------- */
/* Defaults of merge_carrier_cfg: the seed's numbers, and ours (marked) where the seed has none. */
#define MERGE_HEAD_WOBBLE_AMPLITUDE (-12.0) /* HeadWobbleAmplitude: the head tips back into travel */
#define MERGE_FRUIT_DANGLE_AMPLITUDE 16.0   /* FruitDangleAmplitude: the fruit trails behind */
#define MERGE_SPEED_WIGGLE_AMPLITUDE 2.0    /* SpeedWiggleAmplitude: "a rapid shudder" */
#define MERGE_SPEED_WIGGLE_FREQUENCY 32.0   /* SpeedWiggleFrequency, rad/s of phase */
#define MERGE_HAT_WOBBLE_MULTIPLIER 0.9     /* HatWobbleMultiplier: the hat lags the head */
#define MERGE_FRUIT_DANGLE_TIME 4.0         /* FruitDangleTime, s */
#define MERGE_HAT_WOBBLE_TIME 0.75          /* HatWobbleTime, s (head and hat) */
/* Ours: the seed names FruitDangleFrequency but gives no value. A dangle advancing by
 * dt × f × (1 − t/T) gathers f × T / 2 radians over its fade: 8 rad/s gives 16 rad over 4 s, two
 * and a half swings, starting at a 0.79 s period (a held fruit's lazy pendulum) and slowing to a
 * stop; the later swings are small, the first two are plainly visible. */
#define MERGE_FRUIT_DANGLE_FREQUENCY 8.0
/* Ours: the head/hat stop wobble starts at the walk's own shudder rate (32 rad/s), so a stop reads
 * as the walking bounce running down: 32 × 0.75 / 2 = 12 rad, about two nods (three zero
 * crossings) in 0.75 s, and never in step with the fruit's slower, longer dangle. */
#define MERGE_HAT_WOBBLE_FREQUENCY 32.0
#define MERGE_CARRIER_SPEED 90.0            /* ours: px/s, crosses a 240 px box in under 3 s */
#define MERGE_DROP_TIME 0.25                /* AnimDropTime, s */
#define MERGE_CATCH_TIME 0.25               /* AnimCatchTime, s */
/* Ours: the seed's JuggleHeight has no value. 14 px is about a small fruit's diameter above the
 * hands at 320×180: the toss clears the hands without leaving the carrier's strip. */
#define MERGE_JUGGLE_HEIGHT 14.0

typedef struct merge_carrier_cfg {
    double speed;                  /* px/s walking speed, ≥ 0 */
    double xmin, xmax;             /* the walk's clamp, xmin ≤ xmax */
    double drop_time, catch_time;  /* s, each > 0: the two quarter waves of the juggle */
    double juggle_height;          /* px, the apex of the toss above the sockets' line */
    double head_amp, fruit_amp;    /* degrees of lean toward travel (and dangle amplitude) */
    double wiggle_amp, wiggle_freq;/* the speed wiggle: degrees, rad/s */
    double hat_mult;               /* hat = hat_mult × head */
    double fruit_dangle_time, fruit_dangle_freq;  /* s (> 0), rad/s */
    double hat_wobble_time, hat_wobble_freq;      /* s (> 0), rad/s: head and hat */
} merge_carrier_cfg;

/* The defaults above; the clamp is [16, 304], a 320-pixel frame less a margin (the world sets its
 * own box). */
merge_carrier_cfg sim__merge_carrier_cfg_default(void);
/* 0 if every field is finite and in range (as commented in the struct), else SIM_EINVAL. */
int sim__merge_carrier_cfg_check(const merge_carrier_cfg *cfg);

enum { MERGE_JUGGLE_IDLE = 0, MERGE_JUGGLE_DROPPING = 1, MERGE_JUGGLE_CATCHING = 2 };

typedef struct merge_carrier {
    double x;                        /* px, in [xmin, xmax] */
    int8_t move_dir;                 /* sign of the last update's input: −1, 0, +1 */
    int8_t last_move_dir;            /* the last non-zero move_dir (0 before the first move) */
    double speed_wiggle_acc;         /* rad, kept in [0, 2π) */
    double dangle_timer;             /* s since the stop, clamped at fruit_dangle_time */
    double fruit_dangle_acc;         /* rad, 0 ≤ acc ≤ fruit_dangle_freq × fruit_dangle_time */
    double hat_timer;                /* s since the stop, clamped at hat_wobble_time */
    double hat_acc;                  /* rad, 0 ≤ acc ≤ hat_wobble_freq × hat_wobble_time */
    double head_angle, fruit_angle, hat_angle;   /* degrees: results of the last update */
    uint8_t juggle;                  /* MERGE_JUGGLE_* */
    double anim_timer;               /* s into the juggle phase: [0, drop_time) or [0, catch_time) */
} merge_carrier;

/* At rest at x (clamped): no move yet, no dangle owed (timers at their end), idle juggle. */
void sim__merge_carrier_init(merge_carrier *c, const merge_carrier_cfg *cfg, double x);
/* One step of dt seconds (dt ≥ 0; a negative or non-finite dt counts as 0) with the input's
 * sign as the direction: walk and clamp, lean + wiggle while moving (and the hard cut of the
 * dangle state), the decaying dangle and head/hat wobble while stopped, then the juggle timers.
 * Writes head_angle, fruit_angle and hat_angle. Allocates nothing. */
void sim__merge_carrier_update(merge_carrier *c, const merge_carrier_cfg *cfg, double dt,
                               int input_dir);
/* 1 if a drop can start now (the juggle is idle), else 0. */
int sim__merge_carrier_can_drop(const merge_carrier *c);
/* Start the toss of the next fruit: 0, or SIM_EINVAL when a juggle is already running (nothing
 * changes; a drop is refused, not queued: the world reports "busy"). */
int sim__merge_carrier_start_juggle(merge_carrier *c);
/* Where the juggled fruit is, given the left and right sockets: dropping lerps left → midpoint
 * at height sin(π/2 × t/drop_time), catching lerps midpoint → right at height
 * cos(π/2 × t/catch_time); idle is exactly the right socket (the toss has landed). */
void sim__merge_juggle_pos(const merge_carrier *c, const merge_carrier_cfg *cfg, double lx,
                           double ly, double rx, double ry, double *x, double *y);
/* The input direction (−1, 0, +1) that walks toward target_x (clamped to the walk's range) in
 * steps of speed × dt: 0 once within half a step, so the carrier arrives without oscillating. */
int sim__merge_carrier_dir_to(const merge_carrier *c, const merge_carrier_cfg *cfg,
                              double target_x, double dt);

/* Hand poses: the four drawings the world's cel sets show (seed: two sprites each, with FlipV). */
enum {
    MERGE_HAND_CLOSED = 0,           /* holding */
    MERGE_HAND_CLOSED_FLIPV = 1,     /* closed, palm up: the empty left hand after the throw */
    MERGE_HAND_OPEN = 2,             /* open, palm down: releasing or waiting to catch */
    MERGE_HAND_OPEN_FLIPV = 3        /* open, palm up: throwing */
};
/* Idle: both closed (each holds a fruit). Dropping: the seed's LeftOpen.FlipV = true,
 * RightOpen.FlipV = false: the left throws palm up, the right lets go of the dropped fruit.
 * Catching: the left closes palm up (follow-through, empty), the right stays open until the
 * toss lands; at completion (idle) it closes on the fruit. */
void sim__merge_hand_poses(const merge_carrier *c, int *left, int *right);
/* 0 if every field is finite, in range and consistent (a moving carrier has no dangle state, the
 * hat is hat_mult × the head, …), for a state loader; else SIM_ECORRUPT. */
int sim__merge_carrier_check(const merge_carrier *c, const merge_carrier_cfg *cfg);

/* ---- the fruit's idle life ------------------------------------------------------------------- */
#define MERGE_LOOK_TIME 1.0          /* LookTime, s: a glance check once a second */
#define MERGE_LOOK_CHANCE 0.25       /* RNG.Randf() < 0.25 flips Eyes.FlipH */
#define MERGE_BLINK_SCALE 0.1        /* BlinkScale: the eyes at a tenth of their height */
#define MERGE_BLINK_TIME 0.3         /* s of squashed eyes */
/* Ours: the seed gives a blink "timer with its own probability" but no numbers. Each fruit draws
 * its own check interval in [2, 4) s and chance in [0.5, 0.9) at spawn: on average a blink every
 * ~4.3 s (interval / chance), about a person's rate, rarer than the once-a-second glance checks,
 * and with an interval of its own per fruit the checks drift apart instead of keeping time. */
#define MERGE_BLINK_EVERY_MIN 2.0
#define MERGE_BLINK_EVERY_MAX 4.0
#define MERGE_BLINK_PROB_MIN 0.5
#define MERGE_BLINK_PROB_MAX 0.9

typedef struct merge_fruit_life {
    double look_timer;               /* s, [0, LOOK_TIME): remainder kept across checks */
    double blink_timer;              /* s, [0, blink_every) */
    double blink_left;               /* s of squash left, (0, BLINK_TIME] while blinking, else 0 */
    double blink_every;              /* s, this fruit's blink check interval */
    double blink_prob;               /* this fruit's chance per check */
    uint8_t look_flip;               /* Eyes.FlipH */
    uint8_t blinking;
    sim_rng rng;                     /* this fruit's own stream */
} merge_fruit_life;

/* A fruit's life from the world's seed and the fruit's spawn serial (its own generator, so no two
 * fruit share a stream): draws the blink interval and chance and, so that fruit spawned on the
 * same tick do not check in step, the starting phase of both timers. Eyes open, not flipped. */
void sim__merge_life_init(merge_fruit_life *l, uint64_t seed, uint64_t serial);
/* Advance dt seconds (dt ≥ 0; negative or non-finite counts as 0): end a blink whose time is up,
 * run every look check and blink check that falls due (remainders kept). */
void sim__merge_life_update(merge_fruit_life *l, double dt);
/* The eyes' vertical scale: MERGE_BLINK_SCALE while blinking, else 1. */
double sim__merge_life_eye_scale(const merge_fruit_life *l);
/* 0 if every field is finite, in range and consistent, else SIM_ECORRUPT. */
int sim__merge_life_check(const merge_fruit_life *l);

#endif
