/* verlet.h — the Verlet frame (seed 001, "The rig" and "The solve"), shared by every world that has
 * bodies: the terrarium now, the fruit-merge toy later. Private to sim/ and its tests.
 *
 * A chunk is a circle with a position, a previous position, a radius and a mass; its velocity is
 * the gap between the two positions. A link is a distance constraint (rest length, stiffness;
 * stiffness 1 is a bone) solved along the line between its ends and weighted by inverse mass. A
 * pin pulls one chunk toward a point. Bodies own a contiguous run of chunks and links, and are
 * only ever appended: everything is addressed by index, so a saved state needs no rebasing.
 *
 * Each step integrates once, then relaxes SIM_VL_PASSES times; inside a pass the order is every
 * link, then every pin, then collision against the terrain, bodies in index order. Terrain is a
 * list of segments: solid (two-sided: the side a chunk is kept on is the side its position was on
 * at the start of the step), one-way (a ghost to anything that started the step below it) and
 * poles (walkable, never collide). Queries are brute force over the segments: rooms are a dozen
 * segments, and an index would cost more in code than it saves in time.
 *
 * Authoring rule: where two solid segments meet at a concave corner (the inside corner of a room,
 * the bottom of a V), let them run on past each other into the rock by more than the cap plus the
 * largest radius. A chunk is kept out by a segment only while it is beside it; one driven
 * diagonally into a corner where the segments merely touch can end beyond both. Convex corners
 * need nothing: there the segments' sides overlap already. */
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

/* Per-chunk contact flags from the last step. */
enum { SIM_VL_TOUCH = 1, SIM_VL_GROUND = 2 };

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
    /* Per-step scratch (not saved: rebuilt by every step). */
    double *ax, *ay;        /* extra accelerations (units/s²) for the next step; cleared by it */
    double *ox, *oy;        /* positions at the start of the step: the side and the cap use them */
    uint8_t *contact;       /* SIM_VL_TOUCH / SIM_VL_GROUND, from the last step */
} sim_verlet;

/* Allocate for the given capacities (each ≥ 1, ≤ 65535) with an empty state, dt 1/40, no gravity,
 * no drag and no terrain. 0, or SIM_EINVAL / SIM_ENOMEM (v is then empty and safe to free). */
int sim_verlet_init(sim_verlet *v, int cap_chunk, int cap_link, int cap_pin, int cap_body);
void sim_verlet_free(sim_verlet *v);
void sim_verlet_clear(sim_verlet *v);                 /* no bodies, chunks, links or pins */

/* Building. A body collects the chunks and links added after it begins, until the next body
 * begins. Each returns the new index, or −1 when a capacity is full or an argument is bad (a link
 * between chunks of different bodies, a radius or mass ≤ 0). rest < 0 means "the current
 * distance". Nothing is changed on failure. */
int sim_verlet_body_begin(sim_verlet *v, uint8_t kind);
int sim_verlet_add_chunk(sim_verlet *v, double x, double y, double r, double m);
int sim_verlet_add_link(sim_verlet *v, int a, int b, double rest, double stiff);
/* Undo a body that could not be finished (it must be the last one): drops it, its chunks, links
 * and pins. */
void sim_verlet_body_drop_last(sim_verlet *v);

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

/* One step: integrate every chunk once (gravity, the queued accelerations, drag), then
 * SIM_VL_PASSES passes of links → pins → collision (with the displacement cap). Allocates
 * nothing. */
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
size_t sim_verlet_save_max(const sim_verlet *v);
void sim_verlet_save(const sim_verlet *v, sim_writer *wr);
/* Read a state saved by sim_verlet_save into v (same capacities), checking every count, index,
 * range and invariant. 0 or a SIM_E… code; on error v holds junk (load into a scratch world). */
int sim_verlet_load(sim_verlet *v, sim_reader *rd);
/* Field-by-field differences for a desync report; returns how many were found. */
long sim_verlet_diff(const sim_verlet *a, const sim_verlet *b, sim_diff_out *o);
/* A double as text for reports: six decimals and the exact bits, "12.345678 (0x4028b0fcd32f707a)". */
void sim__fmt_double(char *dst, size_t cap, double v);

#endif
