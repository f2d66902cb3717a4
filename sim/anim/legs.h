/* legs.h — stepping legs on planted feet (seed 000 §1, "Legs (lizards, spiders)"): each foot has a
 * planted world position; when its ideal spot gets farther from it than a step threshold, it
 * steps, eased to the new spot over k ticks and lifted by h·sin(πt); diagonal pairs alternate,
 * never stepping while a foot of the other pair is mid-step; each knee comes from two-bone
 * analytic IK (the law of cosines), its bend side fixed per leg.
 *
 *   Ideal spots  the world's, every tick: a hip's place plus its reach along the facing, on the
 *                ground (sim_legs_step takes them as arrays). The legs never move the body.
 *   A step       a pair steps when one of its feet is more than `step_at` px from its ideal spot
 *                and no foot of the other pair is in the air; all its feet lift together (a
 *                diagonal pair moves as one), each toward its ideal spot plus `lead` px along the
 *                travel (so it lands ahead and stays planted longer), smoothstep-eased over
 *                `step_ticks` ticks, lifted lift·sin(πu) px at u = t/step_ticks. When both pairs
 *                want a step, the one whose foot is farther goes (ties: pair 0).
 *   Planted      a foot on the ground is never written: its x and y stay bit for bit until its
 *                pair lifts it. So a drawn foot cannot slide, whatever the body does; a body that
 *                outruns its legs straightens them (the knee clamps at full reach) until the
 *                next step catches up.
 *   The knee     sim_two_bone: hip to foot c (clamped into [|a − b|, a + b]), the hip's angle from
 *                cos α = (a² + c² − b²) / 2ac, the knee on the side `bend` chooses.
 *
 * State is plain data with a fixed capacity (a world keeps it in its state and saves it with
 * sim_legs_save); the configuration is the world's constant. Nothing here allocates. */
#ifndef VIVARIUM_SIM_LEGS_H
#define VIVARIUM_SIM_LEGS_H
#include "sim_internal.h"

#define SIM_LEGS_MAX 6              /* a spider would want 8; a lizard has 4, an insect 6 */
#define SIM_LEGS_MAX_COORD 1.0e6

typedef struct sim_legs_cfg {
    double thigh, shin;             /* px, the two bones, each in (0, 64] */
    double step_at;                 /* px from its ideal spot at which a planted foot steps, > 0 */
    double lead;                    /* px past the ideal spot along the travel a step lands, ≥ 0 */
    int step_ticks;                 /* ticks a step takes, 2..60 */
    double lift;                    /* px a foot rises at mid-step, [0, 64] */
} sim_legs_cfg;

/* 0 if every field is in its range, else SIM_EINVAL. */
int sim_legs_cfg_check(const sim_legs_cfg *cfg);

typedef struct sim_leg {
    double x, y;                    /* the foot now: its planted spot, or where its step has it */
    double fx, fy, tx, ty;          /* the step under way: from, to (on the ground) */
    uint8_t t;                      /* ticks into the step, 1..step_ticks − 1; 0: planted */
    uint8_t pair;                   /* 0 or 1, the diagonal pair it steps with */
} sim_leg;

typedef struct sim_legs {
    uint8_t n;                      /* legs, 1..SIM_LEGS_MAX */
    sim_leg leg[SIM_LEGS_MAX];
} sim_legs;

/* n legs, leg i of pair pair[i] (0 or 1), each planted on its spot (x[i], y[i]). 0, or SIM_EINVAL
 * (n out of 1..SIM_LEGS_MAX, a pair not 0 or 1, a spot not finite) with L zeroed. */
int sim_legs_init(sim_legs *L, int n, const uint8_t *pair, const double *x, const double *y);

/* One tick: the steps under way advance (a foot that arrives is planted on its spot), then a pair
 * may start a step toward the ideal spots (ix[i], iy[i]) plus lead × travel along x (travel: the
 * body's motion this tick, only its sign is used; 0 adds no lead). Returns a bit per pair that
 * started a step this tick (1: pair 0, 2: pair 1). Allocates nothing. */
int sim_legs_step(sim_legs *L, const sim_legs_cfg *cfg, const double *ix, const double *iy,
                  double travel);

/* 1 when leg i's foot is on the ground. */
int sim_legs_planted(const sim_legs *L, int i);
/* 1 when any foot of `pair` is in the air. */
int sim_legs_pair_up(const sim_legs *L, int pair);

/* The knee of a two-bone leg from the hip (hx, hy) to the foot (fx, fy), thigh a and shin b: the
 * law of cosines, the span clamped into what the bones can make. bend +1 puts the knee on the
 * +x side of a leg hanging straight down (generally: to the right of the hip-to-foot line as
 * drawn, turned a quarter clockwise); −1 the other side. */
void sim_two_bone(double hx, double hy, double fx, double fy, double a, double b, int bend,
                  double *kx, double *ky);

/* 1 + n·(6·8 + 2) bytes: n, then per leg x, y, fx, fy, tx, ty (f64), t, pair (u8). */
size_t sim_legs_save_max(void);
void sim_legs_save(const sim_legs *L, sim_writer *wr);
/* 0, or SIM_ETRUNC / SIM_ECORRUPT (a count, pair or step tick out of range for cfg, a coordinate
 * not finite or beyond ±SIM_LEGS_MAX_COORD, both pairs in the air) with L untouched. */
int sim_legs_load(sim_legs *L, const sim_legs_cfg *cfg, sim_reader *rd);

#endif
