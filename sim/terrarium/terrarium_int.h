/* terrarium_int.h — private to the modules of sim/terrarium/ (room.c, body.c, limbs.c, nav.c,
 * brain.c, state.c, terrarium.c): the numbers more than one module uses, the room's lines, small
 * maths, and the functions the modules call in each other. The doll and the tests need none of
 * it and include terrarium.h alone. Each module keeps the numbers only it uses. */
#ifndef VIVARIUM_TERRARIUM_INT_H
#define VIVARIUM_TERRARIUM_INT_H
#include "terrarium.h"

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define DT TERRA_DT
#define GRAVITY 540.0                /* ours: units/s²; with the 9-unit cap, falls top out at 360/s */
#define LUNGE_KICK 7.2               /* units per tick */
#define LUNGE_TICKS 17               /* 0.42 s of raised speed cap */
#define LUNGE_CAP (LUNGE_KICK / DT)  /* ours: the raised cap is the kick's own speed */
#define POINTER_TTL (5 * TERRA_HZ)   /* ours: a pointer stays interesting for 5 s after it moves */
#define IGNORE_TICKS (8 * TERRA_HZ)  /* 8 s of ignoring the prey after a lunge (and a give-up) */
#define REACH_STEP 0.96              /* a planted foot asks to step past 96% of its reach */
#define CLING_TAG 0x80000000u        /* cling pins: CLING_TAG | creature << 4 | chunk */

/* ---- the room -----------------------------------------------------------------------------------
 * Walls, ceiling and the floor line (room.c's table is built from them), and the six floor
 * waypoints 0..5 that come before the planks' two. */
#define WALL_L 10.0
#define WALL_R 470.0
#define CEIL_Y 14.0
#define FLOOR_Y 238.0
#define NFLOOR_NODES 6

/* ---- small maths ----------------------------------------------------------------------------------- */
static inline double dabs(double v) { return v < 0.0 ? -v : v; }
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline double dist(double ax, double ay, double bx, double by)
{
    return sim_sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by));
}
static inline double sgn(double v) { return (double)((v > 0.0) - (v < 0.0)); }

/* ---- creature geometry ------------------------------------------------------------------------------ */
static inline const terra_species *spec(const terra_creature *c) { return &terra_species_table[c->species]; }

static inline sim_chunk *chunk_of(terra_world *t, const terra_creature *c, int k)
{
    return &t->v.chunk[terra__chunk(t, c, k)];
}

static inline const sim_chunk *cchunk(const terra_world *t, const terra_creature *c, int k)
{
    return &t->v.chunk[terra__chunk(t, c, k)];
}

/* ---- room.c ------------------------------------------------------------------------------------- */
int terra__edge_between(int a, int b);          /* the edge from a to b (either way for walks), or −1 */
/* The waypoint a creature standing on segment seg at x is at: a plank's node, the nearest floor
 * node, or −1 (a wall, a pole, nothing). */
int terra__node_of_seg(int seg, double x);
double terra__ground_under(const terra_world *t, double x, double y);   /* plank or floor top */

/* ---- body.c ------------------------------------------------------------------------------------- */
/* A lizard or a scrambler (SPECIES_*) with its chest at about (x, y), facing face (±1; 0: toward
 * the middle of the room); its stream comes from (seed, creature index). Returns the creature
 * index or −1 (full); nothing changes on failure. */
int terra__build_creature(terra_world *t, int species, double x, double y, int face, uint64_t seed);
int terra__build_rope(terra_world *t, double x, double y);      /* the body index, or −1 */
int terra__count_bodies(const terra_world *t, int kind);        /* bodies of BODY_* kind */
/* This tick's accelerations for c's chunks, from its brain's direction and speed. Adds to the
 * solver's force arrays; a limp or climbing creature gets none. */
void terra__push(terra_world *t, terra_creature *c);

/* ---- limbs.c ------------------------------------------------------------------------------------ */
/* Advance c's four limbs one tick after the solver step: pick footholds, swing, plant, let go. */
void terra__update_limbs(terra_world *t, terra_creature *c, uint64_t tick);

/* ---- nav.c -------------------------------------------------------------------------------------- */
void terra__release_cling(terra_world *t, int ci);   /* drop creature ci's cling pins, if any */
void terra__choose_goal(terra_creature *c);          /* a new goal node, never where it is */
/* Head for c's goal at speed over the waypoint graph (or carry on climbing). Writes the
 * direction and speed; returns 1 on arrival (or when the goal cannot be reached, which clears
 * it). */
int terra__nav_step(terra_world *t, terra_creature *c, int ci, double speed);

/* ---- brain.c ------------------------------------------------------------------------------------ */
void terra__think(terra_world *t, int ci);                       /* before the push */
void terra__sense(terra_world *t, terra_creature *c);            /* after the solver step … */
void terra__update_head(terra_world *t, terra_creature *c);      /* … then the limbs, the head … */
void terra__lunge_contact(terra_world *t, terra_creature *c);    /* … and a lunge's knock */

/* ---- state.c: the kind's save, load and diff (sim_kind's contracts) ------------------------------ */
size_t terra__save_max(const void *impl);
void terra__save(const void *impl, sim_writer *wr);
int terra__load(void *impl, sim_reader *rd);
long terra__diff(const void *ia, const void *ib, sim_diff_out *o);

#endif
