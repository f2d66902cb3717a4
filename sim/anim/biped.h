/* biped.h — the parametric biped (seed 000 §1 "Parametric biped walk cycle", §3 "Secondary motion"
 * and "Idle and breathing"): a walk tied to distance, hair on a Verlet chain, breathing at rest.
 *
 *   The walk    φ = (distance travelled / stride) mod 1, quantised to `poses` poses (4, 6 or 8):
 *               k = floor(φ × poses). Foot j (0, 1) is at phase ψ = k/poses + j/2. While
 *               0 < ψ < ½ it swings: its x is the hip's + facing × (−a cos 2πψ), from a behind the
 *               hip to a ahead of it, and it is lifted by round(lift × sin 2πψ) px (the seed's
 *               "foot x = ±stride/2 × cos 2πφ; foot lift = max(0, sin 2πφ) × lift"; the ± is the two
 *               feet half a cycle apart). Otherwise it is planted: it stays at the world x where it
 *               came down until it lifts again, so it cannot slide. a = stride/4, not the seed's
 *               stride/2: while planted (half a cycle) the body travels stride/2, which is exactly
 *               the sweep from +a to −a; with the seed's amplitude the foot would have to sweep
 *               twice what the body travels, i.e. skate.
 *               The body bobs |sin 2πφ|-shaped, two bobs a cycle, 1 px up at the passing poses;
 *               it leans round(speed × lean_k) px (clamped) toward travel.
 *   Settling    a biped that stops mid-stride keeps stepping in place (the phase advances, the
 *               body does not) until both feet are down.
 *   Hair        a Verlet chain of 4–6 nodes (sim_hair): each step the root is pinned to an anchor
 *               on the sprite, the other nodes move by their velocity × damping plus gravity (and a
 *               small pull behind the facing), then 2–4 passes of the distance constraint. Drawn as
 *               blocks of 3 px at the root down to 1 px at the tip, in an ink chosen by the
 *               creature's state (Celeste's dash indicator: a palette swap, not new art).
 *   Breathing   while idle: dy = round(A × sin(2π × tick / P + phase)), A = 1 px, P ticks, phase
 *               seeded per creature, applied to the upper slice of the sprite only.
 *
 * Units: px and ticks (speeds in px per tick, gravity in px per tick²), y down. State is plain
 * data with fixed capacity, saved field by field; the configuration (sim_biped_cfg) is the
 * world's constant and is not saved, as sim_verlet's is not. Nothing here allocates. */
#ifndef VIVARIUM_SIM_BIPED_H
#define VIVARIUM_SIM_BIPED_H
#include "sim_internal.h"

#define SIM_HAIR_MAX 6              /* seed: "4–6 nodes" */
#define SIM_HAIR_MIN 4
#define SIM_BIPED_STATES 4          /* states a biped's hair ink can tell apart */
#define SIM_BIPED_MAX_COORD 1.0e6

/* Defaults (sim_biped_cfg_default): the seed's numbers, and ours where it gives none. */
#define SIM_BIPED_STRIDE 12.0       /* ours: px a gait cycle: feet ~6 px apart at contact, 5-px legs */
#define SIM_BIPED_LIFT 2.0          /* ours: px a foot rises, 1/8 of its height */
#define SIM_BIPED_POSES 8           /* seed: 4, 6 or 8 poses; 8 reads smoothest at 16 px */
#define SIM_BIPED_LEAN_K 2.0        /* ours: px of lean per px/tick, 1 px at a brisk 0.5 px/tick */
#define SIM_BIPED_LEAN_MAX 1        /* ours: px; more shears a 16-px body apart */
#define SIM_BIPED_HIP_H 5           /* ours: px from the ground to the hip row */
#define SIM_BREATH_PERIOD 90        /* seed: P in 60–120 ticks at 60 Hz; the middle, 1.5 s */
#define SIM_BREATH_AMP 1.0          /* seed: A = 1 px */
#define SIM_HAIR_NODES 5            /* seed: 4–6 */
#define SIM_HAIR_ITERS 3            /* seed: 2–4 distance iterations */
#define SIM_HAIR_LINK 1.5           /* ours: px between nodes: the blocks overlap into one lock */
#define SIM_HAIR_DAMPING 0.85       /* ours: velocity kept a tick; settles in ~half a second */
#define SIM_HAIR_GRAVITY 0.12       /* ours: px/tick² (430 px/s²): hair falls, but not like rock */
#define SIM_HAIR_BACK 0.10          /* ours: px/tick² behind the facing: resting hair drapes ~40° back */

typedef struct sim_hair_cfg {
    int nodes;                      /* SIM_HAIR_MIN..SIM_HAIR_MAX */
    int iters;                      /* 2..4 */
    double link;                    /* px between nodes, (0, 16] */
    double damping;                 /* velocity kept a tick, [0, 1] */
    double gravity;                 /* px/tick², down, [0, 4] */
    double back;                    /* px/tick² away from the facing, [0, 4] */
} sim_hair_cfg;

typedef struct sim_hair {
    uint8_t n;
    double x[SIM_HAIR_MAX], y[SIM_HAIR_MAX];      /* positions; node 0 is the root */
    double px[SIM_HAIR_MAX], py[SIM_HAIR_MAX];    /* previous positions */
} sim_hair;

/* A hair hanging straight down from (ax, ay), at rest. */
void sim_hair_init(sim_hair *h, const sim_hair_cfg *cfg, double ax, double ay);
/* One step: the root pinned at (ax, ay), the rest integrated (wind: an extra px/tick² along x, the
 * world's breeze; facing ±1 sets the side `back` pulls away from), then cfg->iters passes of the
 * distance constraint, the root never moving. */
void sim_hair_step(sim_hair *h, const sim_hair_cfg *cfg, double ax, double ay, int facing,
                   double wind);
/* Node i's block size: 3 px at the root down to 1 px at the tip (round(3 − 2i/(n−1))). */
int sim_hair_block(int n, int i);
/* Blocks centred on the snapped nodes, tip first so the root's block is on top, in `ink` with a
 * 1-px outline in `outline` (< 0: none). */
void sim_hair_draw(const sim_hair *h, sim_frame *f, uint8_t ink, int outline);

typedef struct sim_biped_cfg {
    double stride;                  /* px a gait cycle, [2, 256] */
    double lift;                    /* px; round(lift × sin(2π/poses)) ≥ 1, so a swinging foot is
                                       always off the ground and "lift 0" means planted */
    int poses;                      /* 4, 6 or 8 */
    double lean_k;                  /* px per px/tick */
    int lean_max;                   /* px, 0..4 */
    int hip_h;                      /* px from the ground to the hip row, 1..64 */
    int breath_period;              /* ticks, 60..120 */
    int hair_dx, hair_dy;           /* the hair's anchor from the hip pixel, facing right, px up */
    sim_hair_cfg hair;
    int hold_pose;                  /* 0 or 1: 1 draws the body (hip and swinging foot) where it
                                       stood when its pose began, so the figure moves a pose at a
                                       time, as a hand-animated sprite does, instead of sliding a
                                       pixel whenever x crosses one (seed §1: "a continuously
                                       sliding limb reads as vector or Flash") */
} sim_biped_cfg;

sim_biped_cfg sim_biped_cfg_default(void);
/* 0 if every field is in its range (as commented), else SIM_EINVAL. */
int sim_biped_cfg_check(const sim_biped_cfg *cfg);

typedef struct sim_biped {
    double x;                       /* px, the hip's world x */
    double ground;                  /* px, the ground's y: feet stand on the row above it */
    double dist;                    /* px travelled, modulo stride: φ = dist / stride */
    double speed;                   /* px/tick of the last step, signed, + is right */
    int8_t facing;                  /* +1 right, −1 left */
    uint8_t planted[2];             /* per foot */
    double plant_x[2];              /* world x of a planted foot */
    uint8_t state;                  /* the world's state, < SIM_BIPED_STATES: picks the hair ink */
    double breath_phase;            /* radians, [0, 2π), seeded */
    sim_hair hair;
} sim_biped;

/* A biped standing at x on the ground line `ground`, facing ±1, feet down, hair at rest, its
 * breathing phase drawn from (seed, id) (sim_breath_phase). 0, or SIM_EINVAL for a bad config or
 * a non-finite position. */
int sim_biped_init(sim_biped *b, const sim_biped_cfg *cfg, double x, double ground, int facing,
                   uint64_t seed, uint64_t id);
/* One tick: walk dx px (clamped to ±stride; 0: stand, settling any lifted foot), then the feet,
 * then the hair against this tick's pose. wind as sim_hair_step. Allocates nothing. */
void sim_biped_step(sim_biped *b, const sim_biped_cfg *cfg, double dx, uint64_t tick, double wind);
/* 1 when it stands still with both feet down (and so breathes). */
int sim_biped_idle(const sim_biped *b);

typedef struct sim_biped_pose {
    int k;                          /* the pose, 0..poses−1 */
    int foot_x[2], foot_y[2];       /* the feet's pixels (the row above the ground when down) */
    int lift[2];                    /* px each foot is raised, 0 when planted */
    int hip_x, hip_y;               /* the hip pixel, bob included */
    int bob;                        /* px the body is raised, 0 or 1 */
    int lean;                       /* px the upper body is shifted toward travel */
    int breath;                     /* px the upper slice moves (−1, 0, 1), 0 unless idle */
    int hair_x, hair_y;             /* the hair's anchor pixel */
} sim_biped_pose;
/* The pose to draw at `tick`: a pure function of the state and the tick. With cfg->hold_pose, a
 * walking biped's hip and swinging foot are drawn from x less the distance walked since its pose
 * began, so every pixel of the legs and the body holds for the whole pose. */
void sim_biped_pose_at(const sim_biped *b, const sim_biped_cfg *cfg, uint64_t tick,
                       sim_biped_pose *out);

/* What the world's drawing of a biped is made of. */
typedef struct sim_biped_look {
    const sim_sprite *body;         /* the upper body, facing right; key = its transparent index */
    int hip_col, hip_row;           /* the sprite pixel that sits on the hip pixel */
    int breath_row;                 /* rows above this one are the upper slice that breathes */
    int lean_row;                   /* rows above this one shift with the lean */
    uint8_t leg, leg_far;           /* the near and the far leg's inks */
    int outline;                    /* hair outline ink, < 0 for none */
    uint8_t hair_ink[SIM_BIPED_STATES];
    int leg_w;                      /* px each leg is wide, 1..3 (0: 1); the extra columns trail
                                       behind the facing, and the foot grows with them */
} sim_biped_look;
/* Hair (behind), far leg, near leg, then the body in slices: a pure function of (state, tick). */
void sim_biped_draw(const sim_biped *b, const sim_biped_cfg *cfg, const sim_biped_look *look,
                    uint64_t tick, sim_frame *f);

/* ---- breathing (usable on its own) ----------------------------------------------------------- */
/* A phase in [0, 2π) from (seed, id) through splitmix64: creatures made from different seeds or
 * ids breathe out of step ("seed a phase per NPC so crowds don't breathe in sync"). */
double sim_breath_phase(uint64_t seed, uint64_t id);
/* round(SIM_BREATH_AMP × sin(2π × tick / period + phase)); tick is taken modulo the period first,
 * so the value is exact for any tick. period ≥ 1. */
int sim_breath_dy(uint64_t tick, int period, double phase);

/* 1+8·4 + 1+1+1+8+8+1+8 + 1 + nodes·4·8 bytes. */
size_t sim_biped_save_max(void);
void sim_biped_save(const sim_biped *b, sim_writer *wr);
/* Read what sim_biped_save wrote, for the same cfg: every value finite and in range, the hair's
 * node count cfg's, each foot planted exactly when its pose is a stance pose. 0, or SIM_ETRUNC /
 * SIM_ECORRUPT with b untouched. */
int sim_biped_load(sim_biped *b, const sim_biped_cfg *cfg, sim_reader *rd);

#endif
