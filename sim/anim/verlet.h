/* verlet.h — the Verlet frame (seed 001, "The rig" and "The solve"), shared by every world that has
 * bodies: the terrarium, and the fruit-merge toy (the options below). Private to sim/ and its
 * tests.
 *
 * A chunk is a circle with a position, a previous position, a radius and a mass; its velocity is
 * the gap between the two positions. A link is a distance constraint (rest length, stiffness;
 * stiffness 1 is a bone) solved along the line between its ends and weighted by inverse mass. A
 * pin pulls one chunk toward a point. Bodies own a contiguous run of chunks and links, and are
 * appended, or removed whole (sim_verlet_body_remove renumbers what follows): everything is
 * addressed by index, so a saved state needs no rebasing.
 *
 * Each step integrates once, then relaxes SIM_VL_PASSES times (or `passes`); inside a pass the
 * order is every link, then every pin, then collision against the terrain, bodies in index order.
 * Terrain is a list of segments: solid (two-sided: the side a chunk is kept on is the side its
 * position was on at the start of the step), one-way (a ghost to anything that started the step
 * below it) and poles (walkable, never collide). Queries are brute force over the segments: rooms
 * are a dozen segments, and an index would cost more in code than it saves in time.
 *
 * Authoring rule: where two solid segments meet at a concave corner (the inside corner of a room,
 * the bottom of a V), let them run on past each other into the rock by more than the cap plus the
 * largest radius. A chunk is kept out by a segment only while it is beside it; one driven
 * diagonally into a corner where the segments merely touch can end beyond both. Convex corners
 * need nothing: there the segments' sides overlap already.
 *
 * Options for the fruit-merge toy (seed 003), all off by default: with every one off a step and a
 * saved state are bit-identical to the solver before they existed (the terrarium's golden chain).
 *   spin            chunks carry an angle and an angular velocity; contact friction acts on the
 *                   slip at the contact point and makes discs roll (see "Spin" below).
 *   collide_chunks  chunks of different bodies collide as circles, the step becomes the pile
 *                   step below, and the touching pairs of the last step are listed (pair, npair).
 *   passes          relaxation passes per step (0: SIM_VL_PASSES).
 *
 * The pile step (collide_chunks). A pass is links → pins → chunk pairs → terrain: terrain goes
 * last, so a pair pushed into a wall is put back inside it, and what a pass leaves over is a pair
 * overlap (under the sprites), never a disc through its container. Under gravity the last pass
 * pushes its pairs bottom first, holding the lower of two stacked chunks still (shock
 * propagation: a light fruit under a heavy one would otherwise give way pass after pass). The
 * passes only move chunks (position-based dynamics: the terrain's pushes leave px alone too), so
 * when they end x − px is each chunk's displacement over the step, and a chunk held still by the
 * pile has no velocity at all. Then the contacts at the end of the step (the pair list, and the
 * terrain contacts of the last pass) get their velocity, `passes` times over, pairs in list order
 * then terrain: the approaching normal part cancelled (no bounce), a separating one kept, and the
 * tangential part × SIM_VL_TANGENT_KEEP, or with spin the slip friction; a terrain contact gets
 * friction only if it pressed the chunk in the step (SIM_VL_PRESS). Every pair impulse is equal
 * and opposite, so without gravity (no shock pass) and terrain momentum is conserved. An overlap
 * present at the start of a step (a fruit spawned or grown into the pile) is pushed out like any
 * other, and the push becomes velocity: the neighbours are shoved, at most SIM_VL_MAX_STEP a step.
 * docs/verlet.md has the reasoning and the numbers.
 *
 * Spin. y is down, and an angle or angular velocity is positive clockwise on screen (from +x
 * toward +y: the rotsprite convention), in radians and radians per step. The point at offset
 * (rx, ry) from a chunk's centre moves at w·(−ry, rx) from the spin. At a contact with unit
 * normal n (from the surface toward the chunk's centre) the tangent is t = (−ny, nx) and the slip
 * is v·t − w·r, so a disc rolling without slipping has v·t = w·r: on a floor (n = (0, −1),
 * t = (1, 0)) a disc rolling right spins clockwise, w = vx / r. A disc is solid, I = ½ m r². */
#ifndef VIVARIUM_VERLET_H
#define VIVARIUM_VERLET_H
#include "sim_internal.h"

#define SIM_VL_PASSES 4
/* Per-step displacement cap: a blunt guard that stops a lunge from tunnelling through a wall. */
#define SIM_VL_MAX_STEP 9.0
/* Tangential velocity kept per collision pass: four passes keep about 0.75 a tick, the friction. */
#define SIM_VL_TANGENT_KEEP 0.93
/* A chunk within this distance of touching a surface counts as in contact (and gets the friction):
 * a chunk resting on the floor sits at exactly r, give or take rounding. */
#define SIM_VL_SKIN 0.05
/* Sanity bounds a loaded state must respect. */
#define SIM_VL_MAX_COORD 1.0e6
#define SIM_VL_MAX_RADIUS 1000.0
#define SIM_VL_MAX_MASS 1.0e6
/* The least radius and mass: the solver divides by both (1/mass weights a link's correction), and a
 * subnormal one makes the weight infinite and the next step NaN (found by tests/fuzz/fuzz_state.c). */
#define SIM_VL_MIN_RADIUS 1.0e-3
#define SIM_VL_MIN_MASS 1.0e-3
/* Spin: the default friction, the fraction of the slip at a contact removed per contact per pass.
 * Half: four passes remove 94% of the slip a step, eight 99.6%, so a disc on a slope rolls without
 * visible slip, and a pass never overshoots (a fraction above 1 would reverse the slip). */
#define SIM_VL_FRICTION 0.5
/* The fastest spin, radians per step (the solver clamps to it, a load refuses more): half a turn a
 * step, past which a turning sprite aliases (the wagon-wheel effect). A disc of radius ≥ 2.9
 * rolling at the SIM_VL_MAX_STEP cap turns slower than this, so it never binds on a fruit. */
#define SIM_VL_MAX_SPIN SIM_PI
/* collide_chunks: the touching-pair list holds up to this many pairs per chunk of capacity.
 * Touching discs form a planar graph (fewer than 3 contacts a disc), so 4 never overflows in a
 * real pile; a pile squeezed past that loses the rest (npair_lost counts them). */
#define SIM_VL_PAIRS_PER_CHUNK 4
/* collide_chunks: pairs within this gap once a step is integrated are the ones its passes push
 * (one sort and sweep a step instead of one a pass). In a pile the passes move a chunk by a small
 * fraction of a unit; a gap that closes faster than this within one step is pushed the step
 * after. */
#define SIM_VL_PAIR_MARGIN 2.0
/* The shock pass (collide_chunks under gravity, the last pass): a pair whose centre line is at
 * least this steep (|sin| of its angle from horizontal, about 24°) is one chunk resting on the
 * other, and the lower one is held still. Steeper (0.5) leaves more of a pile's weight to the
 * mass-weighted passes, and the worst overlaps grow; flatter (0.2) starts to hold still a chunk
 * that is beside the other rather than under it, and side-by-side fruit are shoved sideways. */
#define SIM_VL_SHOCK_STEEP 0.4
/* collide_chunks: a terrain contact gets its friction only when the segment pushed the chunk by
 * more than this during the step. A fruit that came to rest against a wall sits at exactly r from
 * it, give or take 1e-14, and falls past it freely; anything pressed (a fruit on the floor is
 * pressed by g·dt² a step, 0.17 px at 60 Hz) holds. (Friction without a normal force would hold a
 * fruit on a wall it merely touches, sliding down at a crawl.) */
#define SIM_VL_PRESS 1e-6

enum { SIM_SEG_SOLID, SIM_SEG_ONEWAY, SIM_SEG_POLE, SIM_SEG_NKINDS };

/* A terrain segment a→b. Its open side is the side the normal (dy, −dx)/len points to: with y
 * down, a segment running left to right opens upward. One-way planks exist only for chunks that
 * start a step on their open side; for a solid segment the open side only breaks ties (a chunk
 * exactly on the line). */
typedef struct sim_seg {
    double ax, ay, bx, by;
    int kind;
} sim_seg;

typedef struct sim_chunk {
    double x, y;            /* position */
    double px, py;          /* previous position: velocity is (x − px, y − py) per step */
    double r;               /* radius */
    double m;               /* mass (> 0) */
    double a, w;            /* spin only: angle in [−π, π), angular velocity per step (clockwise
                             * on screen positive); 0 for a new chunk, untouched with spin off */
} sim_chunk;

typedef struct sim_link {
    uint16_t a, b;          /* chunk indexes, both in the same body */
    double rest;            /* rest length */
    double stiff;           /* 0..1 of the error corrected per pass; 1 is a bone */
} sim_link;

typedef struct sim_pin {
    uint16_t chunk;
    uint16_t body;          /* the chunk's body: pins are kept ordered by body */
    uint32_t tag;           /* the owner's label (a grab, a pole cling…): opaque to the solver */
    double x, y;            /* the point the chunk is pulled toward */
    double stiff;           /* 0..1 of the gap closed per pass */
} sim_pin;

typedef struct sim_body {
    uint8_t kind;           /* the world's label; opaque to the solver */
    uint16_t c0, nc;        /* chunks c0 .. c0+nc−1 */
    uint16_t l0, nl;        /* links l0 .. l0+nl−1 */
} sim_body;

/* Per-chunk contact flags from the last step: TOUCH and GROUND for the terrain (GROUND: a surface
 * facing up), CHUNK for another body's chunk (collide_chunks). */
enum { SIM_VL_TOUCH = 1, SIM_VL_GROUND = 2, SIM_VL_CHUNK = 4 };

typedef struct sim_verlet {
    /* The state (sim_verlet_save writes all of it). */
    sim_chunk *chunk;
    sim_link *link;
    sim_pin *pin;
    sim_body *body;
    int nchunk, nlink, npin, nbody;
    /* Capacities, fixed at init. */
    int cap_chunk, cap_link, cap_pin, cap_body;
    /* Configuration, from the world's params (not saved). */
    double dt;              /* seconds per step */
    double gravity;         /* units/s², down (+y) */
    double drag;            /* fraction of velocity lost per step in the air, 0 for none */
    const sim_seg *seg;     /* terrain, not owned */
    int nseg;
    int passes;             /* relaxation passes a step; 0 (the default) means SIM_VL_PASSES */
    int spin;               /* chunks carry a, w; friction on the slip (changes the saved bytes) */
    double spin_drag;       /* spin: fraction of w lost per step, 0 (the default) for none */
    double friction;        /* spin: fraction of the slip removed per contact per pass, 0..1;
                             * init sets SIM_VL_FRICTION */
    int collide_chunks;     /* chunks of different bodies collide; the pair list is filled */
    /* Per-step scratch (not saved: rebuilt by every step). */
    double *ax, *ay;        /* extra accelerations (units/s²) for the next step; cleared by it */
    double *ox, *oy;        /* positions at the start of the step: the side and the cap use them */
    uint8_t *contact;       /* SIM_VL_TOUCH / SIM_VL_GROUND / SIM_VL_CHUNK, from the last step */
    /* collide_chunks: the pairs of chunks (of different bodies) that touch — gap ≤ SIM_VL_SKIN,
     * tested as dx² + dy² ≤ (r_i + r_j + SIM_VL_SKIN)² — at the end of the last step: pair[k][0] <
     * pair[k][1], in ascending order, each pair once. Only the step writes it (npair 0 otherwise);
     * a world reads it in the tick of the step, so it is never saved (a load empties it).
     * sim_verlet_body_remove renumbers it. */
    uint16_t (*pair)[2];
    int npair, cap_pair;    /* cap_pair = SIM_VL_PAIRS_PER_CHUNK × cap_chunk */
    int npair_lost;         /* touching pairs of the last step that did not fit */
    /* Broad-phase scratch: chunk indexes sorted by (x − r, index), kept from step to step (it is
     * nearly sorted already); its order never depends on what it held before (the key is total). */
    uint16_t *order;
    int norder;             /* entries of order that are valid; the step rebuilds it if ≠ nchunk */
    double *key;            /* x − r per chunk, as of the last sort */
    uint16_t *cbody;        /* each chunk's body, for the step */
    uint16_t (*pair_tmp)[2]; /* the step's candidate pairs, then the touching ones unsorted */
    int *pair_cnt;          /* cap_chunk + 1 counters: the pairs are bucketed by first chunk */
    double (*pn)[4];        /* each listed pair's unit normal, from pair[k][1] toward pair[k][0],
                             * then 1 / (1/m_i + 1/m_j), and that × friction / 3 */
    double *im, *iw;        /* per chunk, for the step: 1/m, and 2/(m r) (spin per impulse) */
    double (*at)[2];        /* per chunk: where it was when the step's candidate pairs were found */
    uint16_t *yorder;       /* the shock pass: chunks bottom first, by (−y, index); kept */
    int nyorder;
    int *rank;              /* each chunk's place in yorder */
    int *shock;             /* the candidate pairs in shock order */
    uint16_t *sc;           /* terrain contacts of the last pass (cap_pair of them, the rest are
                             * not velocity-treated): chunk, and the normal toward the chunk */
    double (*scn)[2];
    uint8_t *scp;           /* and whether that segment pressed the chunk during the step */
    int nsc;
    uint32_t *pressed;      /* per chunk: bit k, segment k (31: any from 31 on) pushed it */
} sim_verlet;

/* Allocate for the given capacities (each ≥ 1, ≤ 65535) with an empty state, dt 1/40, no gravity,
 * no drag, no terrain, every option off (friction SIM_VL_FRICTION, used only with spin). 0, or
 * SIM_EINVAL / SIM_ENOMEM (v is then empty and safe to free). */
int sim_verlet_init(sim_verlet *v, int cap_chunk, int cap_link, int cap_pin, int cap_body);
void sim_verlet_free(sim_verlet *v);
void sim_verlet_clear(sim_verlet *v);                 /* no bodies, chunks, links or pins */

/* Building. A body collects the chunks and links added after it begins, until the next body
 * begins. Each returns the new index, or −1 when a capacity is full or an argument is bad (a link
 * between chunks of different bodies, a radius or mass ≤ 0). rest < 0 means "the current
 * distance". Nothing is changed on failure. A new chunk is at rest (px, py = x, y: a caller that
 * wants it moving sets px, py itself) with a = w = 0. */
int sim_verlet_body_begin(sim_verlet *v, uint8_t kind);
int sim_verlet_add_chunk(sim_verlet *v, double x, double y, double r, double m);
int sim_verlet_add_link(sim_verlet *v, int a, int b, double rest, double stiff);
/* Undo a body that could not be finished (it must be the last one): drops it, its chunks, links
 * and pins. */
void sim_verlet_body_drop_last(sim_verlet *v);
/* Remove body b (0 ≤ b < nbody; anything else is ignored) with its chunks, links and pins. Every
 * later body, chunk, link and pin moves down to keep the arrays contiguous and in order, and every
 * index that named them is renumbered to match: body c0/l0, link ends, pin chunk and body, the
 * per-chunk scratch (ax, ay, contact) and the pair list (pairs with a removed chunk are dropped;
 * the rest stay ascending). Pin indexes move as with sim_verlet_pin_remove. O(n); no allocation. */
void sim_verlet_body_remove(sim_verlet *v, int b);

/* makeRope: 10 chunks of radius 4.5 (mass 1) linked at 10 units with stiffness 1, laid from
 * (x, y) along the unit direction (ux, uy). Returns the body index or −1 (full). */
#define SIM_ROPE_CHUNKS 10
#define SIM_ROPE_RADIUS 4.5
#define SIM_ROPE_LINK 10.0
int sim_verlet_make_rope(sim_verlet *v, uint8_t kind, double x, double y, double ux, double uy);

/* Pins, kept ordered by body (stable within a body). Add returns the pin's index at the time (it
 * moves when an earlier pin is removed) or −1. */
int sim_verlet_pin_add(sim_verlet *v, int chunk, uint32_t tag, double x, double y, double stiff);
void sim_verlet_pin_remove(sim_verlet *v, int i);
int sim_verlet_pin_find(const sim_verlet *v, uint32_t tag);       /* first with the tag, or −1 */
int sim_verlet_body_of(const sim_verlet *v, int chunk);           /* −1 when out of range */

/* One step: integrate every chunk once (gravity, the queued accelerations, drag; with spin the
 * angle too: w × (1 − spin_drag), clamped to ±SIM_VL_MAX_SPIN, then a += w wrapped into [−π, π)),
 * then `passes` passes of links → pins → (collide_chunks: chunk pairs) → terrain (with the
 * displacement cap), then with collide_chunks the pair list and the contacts' velocity (the pile
 * step above). Allocates nothing. A caller that sets a or w itself keeps |a| ≤ π (one wrap a
 * step) and |w| ≤ SIM_VL_MAX_SPIN. */
void sim_verlet_step(sim_verlet *v);

/* ---- terrain queries (brute force over the segments) ----------------------------------------- */
/* The point of s nearest (x, y): returns the squared distance, the point and its parameter. */
double sim_seg_closest(const sim_seg *s, double x, double y, double *qx, double *qy, double *t);
/* Unit normal of the open side. */
void sim_seg_normal(const sim_seg *s, double *nx, double *ny);
/* The first surface a chunk could stand on straight below (x, y), within maxd: a solid or one-way
 * segment that is not vertical and whose open side (for a one-way plank) or the side (x, y) is on
 * (for a solid one) faces up. Returns the segment index and its height at x in *gy, or −1. */
int sim_verlet_ground(const sim_verlet *v, double x, double y, double maxd, double *gy);
/* 1 when the segment (x0, y0)–(x1, y1) crosses a solid segment or a one-way plank, else 0. Poles
 * never block. skip is a segment index to ignore, or −1. */
int sim_verlet_blocked(const sim_verlet *v, double x0, double y0, double x1, double y1, int skip);

/* ---- state --------------------------------------------------------------------------------- */
/* The layout is docs/STATE.md's; with spin set each chunk's record grows from 48 to 64 bytes, f64
 * a and w after the mass, and nothing else changes (a spin-off solver writes the same bytes as
 * before spin existed). The options are configuration: save and load must agree on spin. */
size_t sim_verlet_save_max(const sim_verlet *v);
void sim_verlet_save(const sim_verlet *v, sim_writer *wr);
/* Read a state saved by sim_verlet_save into v (same capacities, same spin), checking every count,
 * index, range and invariant (with spin: a finite, |a| ≤ π, |w| ≤ SIM_VL_MAX_SPIN). 0 or a SIM_E…
 * code; on error v holds junk (load into a scratch world). The pair list is emptied. */
int sim_verlet_load(sim_verlet *v, sim_reader *rd);
/* Field-by-field differences for a desync report; returns how many were found. */
long sim_verlet_diff(const sim_verlet *a, const sim_verlet *b, sim_diff_out *o);

#endif
