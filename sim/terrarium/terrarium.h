/* terrarium.h — private to sim/terrarium/ and its tests: the room, the creatures' data, and the
 * inspection helpers that the modules, the doll (doll.c) and the tests share; the modules' own
 * numbers and calls into each other are in terrarium_int.h. Seed 001 is the specification; world
 * units are the seed's units, and the frame shows the 480×270-unit room at (frame width / 480)
 * pixels a unit (two thirds of a pixel at the default 320×180). */
#ifndef VIVARIUM_TERRARIUM_H
#define VIVARIUM_TERRARIUM_H
#include "anim/verlet.h"

#define TERRA_HZ 40
#define TERRA_DT (1.0 / 40.0)
#define TERRA_ROOM_W 480.0
#define TERRA_ROOM_H 270.0

/* ---- the room ---------------------------------------------------------------------------------- */
#define TERRA_NSEG 11
#define TERRA_NNODE 8
#define TERRA_NEDGE 9
enum { EDGE_WALK, EDGE_POLE, EDGE_DROP };
/* Segment indexes (room.c's table): walls, ceiling, the floor in four pieces around the
 * gully, the two one-way planks and the two poles. */
enum {
    SEG_WALL_L, SEG_WALL_R, SEG_CEILING, SEG_FLOOR_L, SEG_GULLY_L, SEG_GULLY_R, SEG_FLOOR_R,
    SEG_PLANK_L, SEG_PLANK_R, SEG_POLE_L, SEG_POLE_R
};
/* Waypoints: six on the floor (0..5), the left plank (6) and the refuge plank (7). */
enum { NODE_REFUGE = 7, NODE_PLANK_L = 6 };

typedef struct terra_node {
    double x, y;            /* on the surface */
    int seg;                /* the segment it stands on */
} terra_node;

typedef struct terra_edge {
    uint8_t a, b;           /* from, to */
    uint8_t kind;           /* EDGE_*: walk edges go both ways, pole and drop edges only a→b */
    int8_t pole;            /* pole edges: the pole segment, else −1 */
} terra_edge;

extern const sim_seg terra_segs[TERRA_NSEG];
extern const terra_node terra_nodes[TERRA_NNODE];
extern const terra_edge terra_edges[TERRA_NEDGE];

/* ---- creatures ----------------------------------------------------------------------------------- */
enum { BODY_ROPE, BODY_LIZARD, BODY_SCRAMBLER, BODY_NKINDS };
enum { SPECIES_LIZARD, SPECIES_SCRAMBLER };

/* Limb states. A limb is a point: planted feet stay put in the world, swinging feet ease toward a
 * foothold, dangling feet hang and probe, tucked feet fold under a body in flight (the lunge). */
enum { LIMB_PLANTED, LIMB_SWINGING, LIMB_DANGLING, LIMB_TUCKED, LIMB_NSTATES };
/* Limbs 0 front-left, 1 front-right, 2 hind-left, 3 hind-right. Gait groups are the diagonal
 * pairs: {0, 3} and {1, 2}. */
#define LIMB_GROUP(i) ((i) == 0 || (i) == 3 ? 0 : 1)

typedef struct terra_limb {
    uint8_t state;
    int8_t seg;             /* surface under the foot (planted) or the target (swinging), or −1 */
    uint16_t t;             /* swinging: ticks into the swing; planted: ticks since planting */
    double fx, fy;          /* the foot */
    double sx, sy;          /* swinging: where the swing started */
    double tx, ty;          /* the chosen foothold (planted: where the foot is) */
    double nx, ny;          /* the foothold's surface normal, toward the shoulder */
    double ix, iy;          /* the ideal spot, from the last update (for the x-ray) */
} terra_limb;

/* Brain states. Lizard: patrol, pause, stalk, lunge. Scrambler: potter, look, flee, refuge.
 * Both: righting (held, thrown or fallen: limp until 0.3 s of continuous ground contact). */
enum {
    BR_PATROL, BR_PAUSE, BR_STALK, BR_LUNGE,
    BR_POTTER, BR_LOOK, BR_FLEE, BR_REFUGE,
    BR_RIGHTING, BR_NSTATES
};
/* Navigation modes: walking toward a node (also walking off a plank for a drop edge), climbing a
 * pole on a cling pin, mounting the plank at the top. */
enum { NAV_WALK, NAV_CLIMB, NAV_MOUNT };
/* Turning round: nothing, the head rearing over the chest, the chest over the hips. */
enum { TURN_NONE, TURN_HEAD, TURN_CHEST };

#define TERRA_NLIMB 4
#define TERRA_MAX_TAIL 8

typedef struct terra_species {
    const char *name;
    int body_kind;
    int ntail;
    double r[3], m[3];          /* head, chest, hips: physical radius and mass */
    double neck, back;          /* head–chest and chest–hips rest lengths */
    double tail_link, tail_r;   /* tail links and physical radius (tail mass: a quarter of the hips) */
    double ride;                /* standing height of a body chunk's centre over the ground */
    double thigh, shin;         /* the two bones of a leg: reach = thigh + shin */
    double comfort, lead;       /* seed 001: lizard 20 / 18, scrambler 15 / 13 */
    int swing_ticks;            /* swing duration */
    double lift;                /* swing lift along the destination normal */
    double tail_lift;           /* upward acceleration on the first two tail links while standing */
    double accel;               /* drive, units/s²: lizard 260, scrambler 330 */
    double walk, fast;          /* target speeds, units/s: patrol/potter, and flee/creep */
    double slow;                /* lizard stalk speed */
} terra_species;
extern const terra_species terra_species_table[2];

typedef struct terra_creature {
    uint8_t species;
    uint8_t brain;              /* BR_* */
    uint8_t nav;                /* NAV_* */
    int8_t facing;              /* +1 right, −1 left */
    uint16_t body;              /* solver body index */
    int16_t at;                 /* waypoint it is at (or walking from), −1 when lost */
    int16_t goal;               /* waypoint it is heading for, −1 for none */
    int16_t other;              /* prey (lizard) or threat (scrambler): creature index, or −1 */
    int16_t climb_seg;          /* the pole being climbed, or −1 */
    uint32_t timer;             /* ticks left: pause, stalk, look; on the refuge, the nerve timer */
    uint32_t timer2;            /* stalk: ticks past the stalk timer; look: ticks to the next glance;
                                   refuge: 1 while the nerve timer runs (the threat has gone);
                                   righting: the way it wriggles, 1 left, 2 right (0: not yet) */
    uint32_t ignore;            /* lizard: ticks left ignoring prey after a lunge or a give-up */
    uint32_t lunge;             /* ticks left of the lunge's raised speed cap */
    uint32_t contact;           /* ticks of continuous ground contact */
    uint32_t air;               /* ticks with no foot planted and no ground contact */
    uint32_t lunges, refuges;   /* lifetime counts: lunges made, arrivals on the refuge */
    uint8_t knocked;            /* the current lunge already hit its prey */
    uint8_t turn;               /* TURN_* */
    double dir_x, dir_y;        /* the brain's chosen direction (unit, or zero) */
    double speed;               /* and target speed, units/s */
    double crouch;              /* 0..1, rises to 1 over 0.5 s while stalking */
    double head;                /* head angle, radians */
    double look_x, look_y;      /* the scrambler's current point of interest (look state) */
    double climb_y;             /* climbing: the chest's target height on the pole */
    double mount;               /* mounting: 0..1 of the way onto the plank */
    sim_rng rng;
    terra_limb limb[TERRA_NLIMB];
} terra_creature;

#define TERRA_MAX_BODIES 24
#define TERRA_MAX_CREATURES 16
#define TERRA_MAX_ROPES 8
#define TERRA_MAX_GRABS 8
#define TERRA_MAX_CHUNKS (TERRA_MAX_BODIES * (3 + TERRA_MAX_TAIL + 2))
#define TERRA_MAX_LINKS (TERRA_MAX_BODIES * 24)
#define TERRA_MAX_PINS (TERRA_MAX_GRABS + 3 * TERRA_MAX_CREATURES + 8)

typedef struct terra_grab {
    uint32_t client;            /* who holds it: one grab per client */
    uint32_t tag;               /* the pin's tag */
} terra_grab;

typedef struct terra_world {
    int w, h;                   /* frame size */
    double scale;               /* frame pixels per world unit */
    int scene;
    sim_verlet v;
    terra_creature cr[TERRA_MAX_CREATURES];
    int ncr;
    terra_grab grab[TERRA_MAX_GRABS];
    int ngrab;
    uint32_t next_tag;          /* grab pin tags: counts up from 1 (cling pins use the top bit) */
    double ptr_x, ptr_y;        /* the pointer, world units */
    uint32_t ptr_ttl;           /* ticks the pointer stays interesting; 0: no pointer */
    uint64_t tick;              /* ticks stepped (mirrors the world's counter, for timers) */
    /* Rendering: the static room (not state: rebuilt from params) and the palette. The homage's
     * room is drawn at a third of the resolution, hw × hh. */
    uint8_t *room_px, *xray_px, *homage_px;
    int hw, hh;
    sim_palette pal;
} terra_world;

/* Views: the dolls, the x-ray, and seed 001's homage (the world drawn at a third of the
 * resolution and blitted back at 3×). */
enum { TERRA_VIEW_NORMAL, TERRA_VIEW_XRAY, TERRA_VIEW_HOMAGE };

/* ---- internals shared with the doll and the tests ------------------------------------------------ */
/* room.c. Path search over the waypoint graph (Dijkstra by edge length; ties to the lower
 * index). A lizard (can_climb 0) may not use pole edges. Writes the nodes from `from` to `to`
 * inclusive into path (up to max) and returns their count, or 0 when `to` cannot be reached. */
int terra__path(int from, int to, int can_climb, int *path, int max);
double terra__floor_y(double x);                                      /* the floor line at x */
/* body.c */
int terra__chunk(const terra_world *t, const terra_creature *c, int k);   /* k: 0 head, 1 chest, 2 hips, 3.. tail */
double terra__ride(const terra_creature *c, int k);                      /* standing height of chunk k */
/* limbs.c. Shoulder of limb i (front limbs at the chest, hind limbs at the hips). */
void terra__shoulder(const terra_world *t, const terra_creature *c, int i, double *x, double *y);
int terra__planted(const terra_creature *c);                          /* limbs planted */
double terra__reach(const terra_creature *c);                         /* thigh + shin */
/* Two-bone IK by the law of cosines: the knee between shoulder s and foot f for bones a and b,
 * on the side of (bx, by) (the per-leg bend: the knee lies where that vector points). */
void terra__knee(double sx, double sy, double fx, double fy, double a, double b, double bx,
                 double by, double *kx, double *ky);
const char *terra__brain_name(int brain);                              /* brain.c */

/* doll.c. The x-ray's labels: out[i] is where creature i's (its brain's state, 4 pixels a
 * letter, 5 high) goes, in frame pixels; no two overlap, nor come within 3 columns or 2 rows of
 * each other. */
typedef struct terra_rect {
    int x, y, w, h;
} terra_rect;
void terra__xray_labels(const terra_world *t, terra_rect *out);
/* doll.c, for the tests: a species' body colour, far-limb colour, the outline's, or the crease
 * between a folded torso and its tail (palette indexes). */
enum { TERRA_INK_BASE, TERRA_INK_FAR, TERRA_INK_OUTLINE, TERRA_INK_CREASE };
int terra__doll_ink(int species, int which);
/* doll.c */
void terra__render(const terra_world *t, const sim_ctx *ctx, int view, sim_frame *f);
/* The room's pictures (for render only, a pure function of w): their buffers (0 or SIM_ENOMEM),
 * then the pictures and the palette drawn into them (costly: a load takes them from the world it
 * replaces instead, terra_adopt). */
int terra__render_alloc(terra_world *t);
void terra__render_draw(terra_world *t);
void terra__render_free(terra_world *t);

#endif
