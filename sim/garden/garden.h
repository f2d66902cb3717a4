/* garden.h — the garden world (seed 000, sections 1, 3, 4, 5 and 6), as the modules of
 * sim/garden/, the tests and the benchmark see it: the scene's numbers, the creatures, the world.
 * garden_int.h adds the functions the modules call in each other.
 *
 * One 320×180 side view at 60 Hz, a picture in three planes — a far meadow with a windmill, the
 * middle meadow with the campfire, the pond and the flag, and a near bank — under a sky where
 * clouds drift, birds pass and the serpents circle the butterfly. It shows the techniques of seed
 * 000 that fit a 2-D palette scene, each built from a piece of the animation toolkit in sim/anim/
 * (docs/garden.md has the table: which are here, which are in other worlds, which are left out):
 *
 *   sky serpents     follow-the-leader spines with an angle limit, outlined polygons, steered at a
 *                    turning rate their bends can follow (spine.h)
 *   a lizard         a spine on four stepping legs: planted feet, diagonal pairs, two-bone knees
 *                    (legs.h)
 *   the windmill     sails pre-baked at eight angles by three-shear rotation (shear.h)
 *   vines            FABRIK reachers rooted in the ground, solved on 2s (fabrik.h)
 *   villagers        parametric bipeds with hair or a scarf on a Verlet chain, breathing while
 *                    idle, hair ink by state; they throw stones into the pond (biped.h, timing.h)
 *   gnomes           rule-built walkers from one static sprite, with the juice: hops with
 *                    anticipation, a one-frame smear, a landing pop on a spring, squash and
 *                    stretch by rows and columns, a hit flash, a palette swap (walker.h, juice.h)
 *   the environment  grass tufts in two rows (grass.h), a pond on a spring height field
 *                    (water.h), a campfire of fire and smoke particles (particles.h), a flag on a
 *                    6×4 Verlet grid (cloth.h), and `inks=8`, the whole frame locked to 8 inks in
 *                    OKLab (inks.h)
 *
 * A butterfly is the target the serpents and vines follow: it wanders (seeded) or flies where
 * the player's `target` puts it. Wind wanders too, or takes the player's `wind`. Every random
 * choice comes from the world's named streams. */
#ifndef VIVARIUM_GARDEN_H
#define VIVARIUM_GARDEN_H
#include "sim_internal.h"
#include "anim/spine.h"
#include "anim/fabrik.h"
#include "anim/biped.h"
#include "anim/walker.h"
#include "anim/juice.h"
#include "anim/timing.h"
#include "anim/grass.h"
#include "anim/water.h"
#include "anim/particles.h"
#include "anim/cloth.h"
#include "anim/inks.h"
#include "anim/legs.h"

/* ---- the scene (pixels; y down) ----------------------------------------------------------------- */
#define GARDEN_HZ 60
#define GARDEN_W 320
#define GARDEN_H 180
/* Three ground planes, back to front: each a surface whose first row is given (feet stand on the
 * row above) and an earth face under it, hidden by the next plane. */
#define GARDEN_FAR_GROUND 133       /* the far meadow: the windmill */
#define GARDEN_GROUND 150           /* the middle meadow: fire, villagers, gnomes, vines, pond, flag */
#define GARDEN_NEAR_GROUND 166      /* the near bank: the lizards */
#define GARDEN_POND_X0 200          /* the pond's first water column */
#define GARDEN_POND_N 64            /* water columns: x 200..263 */
#define GARDEN_POND_X1 (GARDEN_POND_X0 + GARDEN_POND_N - 1)
#define GARDEN_POND_REST 153        /* the surface row at rest (3 px below the meadow) */
#define GARDEN_POND_DEEP 161        /* the basin's deepest row (above the near bank) */
#define GARDEN_FIRE_X 36            /* the campfire's centre */
#define GARDEN_FIRE_Y 147           /* where flames are born */
#define GARDEN_POLE_X 292           /* the flagpole */
#define GARDEN_POLE_TOP 98
#define GARDEN_MILL_X 112           /* the windmill's tower (on the far meadow) */
#define GARDEN_MILL_HUB_Y 113       /* its sails' hub */
#define GARDEN_SUN_X 252            /* the setting sun, behind the far hills */
#define GARDEN_SUN_Y 100
#define GARDEN_SUN_R 13
/* The near bank, where the lizards walk. */
#define GARDEN_NEAR_X0 10
#define GARDEN_NEAR_X1 310
/* Where the creatures that walk may stand: the meadow left of the pond and the bank right of it. */
#define GARDEN_LEFT_X0 8
#define GARDEN_LEFT_X1 192
#define GARDEN_RIGHT_X0 270
#define GARDEN_RIGHT_X1 312
#define GARDEN_FIRE_KEEP 13         /* gnomes never stop within this of the fire; villagers keep
                                       to the meadow right of it */
/* Where the butterfly wanders, and where a serpent's head may go (above the grass). */
#define GARDEN_SKY_Y0 24
#define GARDEN_SKY_Y1 128
#define GARDEN_SERPENT_Y1 138

/* ---- caps (spawn refuses past them) --------------------------------------------------------------- */
#define GARDEN_MAX_SERPENTS 3
#define GARDEN_MAX_VINES 4
#define GARDEN_MAX_BIPEDS 4
#define GARDEN_MAX_WALKERS 6
#define GARDEN_MAX_LIZARDS 2
#define GARDEN_MAX_STONES 8
#define GARDEN_TUFTS_BACK 48
#define GARDEN_TUFTS_FRONT 48        /* on the near bank */
#define GARDEN_CLOUDS 5
#define GARDEN_PARTICLES 256

/* ---- numbers (seed 000 where it gives one, ours otherwise; docs/garden.md) ------------------------- */
#define GARDEN_SERPENT_POINTS 14    /* ours: 13 segments of 3.5 px, 45 px of serpent */
#define GARDEN_SERPENT_SEG 3.5
#define GARDEN_SERPENT_BEND 0.45    /* ours: ±26° a joint: the tightest curl 3.5/0.45 = 7.8 px */
#define GARDEN_SERPENT_SPEED 1.2    /* ours: px a tick, 72 px/s (the 2nd and 3rd: 0.15, 0.3 less) */
/* ours: the head turns at most speed / GARDEN_SERPENT_TURN_R radians a tick, so its path never
 * curls tighter than 16 px: twice the tightest curl its bends allow, and a loop of 100 px, more
 * than twice its length, so a body that follows its head's path never meets itself. */
#define GARDEN_SERPENT_TURN_R 16.0
#define GARDEN_ORBIT_R 24.0         /* ours: px the first serpent circles its target at (+11 each) */
#define GARDEN_ORBIT_STEP 11.0      /* ours: the rings' spacing: two bodies (≤ 5.4 px) and a gap */
#define GARDEN_ORBIT_TICKS 240      /* ours: a circle of the first ring every 4 s: the serpents
                                       cruise their rings at 0.63 px a tick */
#define GARDEN_SERPENT_APART 18.0   /* ours: px between heads and other bodies the steering keeps */
#define GARDEN_VINE_JOINTS 9        /* ours: 8 segments of 6.5 px, 52 px of reach */
#define GARDEN_VINE_SEG 6.5
#define GARDEN_VINE_EVERY 2         /* seed §6: a procedural layer "on 2s" */
#define GARDEN_BIPED_SPEED 0.38     /* ours: px a tick: a stroll; a pose every 2.5 px of an 8-pose,
                                       20-px stride is a pose every 6.6 ticks (seed §6: 6–10) */
#define GARDEN_BIPED_STRIDE 20.0
#define GARDEN_BIPED_HIP 7          /* ours: 7-px legs, 2 px wide: they read at 320×180 */
#define GARDEN_WALKER_SPEED 0.3     /* ours: px a tick; a pose every 8 ticks, ~10 px a cycle */
#define GARDEN_HOP_DX 0.9           /* ours: px a tick forward in a hop: 22 px over 25 ticks */
#define GARDEN_STONE_G 0.15         /* ours: px/tick² for a thrown stone */
#define GARDEN_STONE_SPLASH (3 * SIM_WATER_ONE)   /* docs/garden.md: "a stone: 1.5–3 px a tick" */
#define GARDEN_STONE_FLIGHT 40      /* ours: ticks from the hand to the water */
#define GARDEN_FLAMES_PER_TICK 3    /* docs/garden.md's measured rates: ≤ 95 alive of 256 */
#define GARDEN_SMOKE_EVERY 4
#define GARDEN_WARM_R 22            /* px from the fire where a creature is warm */
#define GARDEN_STARTLE_TICKS 60     /* a poked villager's hair shows it for 1 s */
#define GARDEN_TARGET_HOLD 600      /* the player's target stands 10 s after their last input */
#define GARDEN_WIND_HOLD 900        /* the player's wind stands 15 s */
#define GARDEN_WIND_EVERY 2         /* the wind eases a unit every 2 ticks toward its goal */
/* The lizard: a spine of 10 points (27 px with its tail) on four two-bone legs. */
#define GARDEN_LIZARD_POINTS 10
#define GARDEN_LIZARD_SEG 3.0
#define GARDEN_LIZARD_HIP 7         /* px from its feet to its spine */
#define GARDEN_LIZARD_FEET (GARDEN_NEAR_GROUND + 3)   /* the row its near feet stand on: on the
                                                       bank, not on its edge */
#define GARDEN_LIZARD_SPEED 0.32    /* ours: px a tick, a prowl; 1.0 scurrying after a poke */
#define GARDEN_LIZARD_SCURRY 1.0
#define GARDEN_LIZARD_SCURRY_TICKS 90
#define GARDEN_MILL_ANGLES 8        /* the sails' bakes over a quarter turn (4 sails): 11.25° steps */

/* ---- the palette (art.c): a small named one --------------------------------------------------------- */
enum garden_colour {
    GC_VOID = 0,                    /* never drawn: the sprites' transparent index */
    GC_INK,                         /* outlines */
    GC_SKY0, GC_SKY1, GC_SKY2, GC_SKY3, GC_SKY4,      /* the dusk, top to horizon */
    GC_SUN, GC_CLOUD, GC_CLOUD_SHADE,
    GC_HILL_FAR, GC_HILL_NEAR,
    GC_GRASS_DARK, GC_GRASS, GC_GRASS_LIGHT,
    GC_SOIL_DARK, GC_SOIL, GC_SOIL_LIGHT,
    GC_STONE_DARK, GC_STONE, GC_STONE_LIGHT,
    GC_WOOD_DARK, GC_WOOD,
    GC_WATER_DEEP, GC_WATER, GC_WATER_LIGHT, GC_FOAM,
    GC_FIRE_WHITE, GC_FIRE_YELLOW, GC_FIRE_ORANGE, GC_FIRE_RED, GC_EMBER,
    GC_SMOKE_DARK, GC_SMOKE, GC_SMOKE_LIGHT,
    GC_RED_LIGHT, GC_RED, GC_RED_DARK,
    GC_WHITE, GC_CLOTH_SHADE,
    GC_TEAL_LIGHT, GC_TEAL, GC_TEAL_DARK,
    GC_SKIN, GC_SKIN_SHADE,
    GC_HAIR, GC_HAIR_LIGHT,
    GC_GOLD, GC_GOLD_DARK,
    GC_PLUM, GC_PLUM_DARK,
    GC_BLUE, GC_BLUE_DARK,
    GC_PINK, GC_PINK_DARK,
    /* palette version 2 (issue 27): the far meadow in the haze, the windmill, the lizard */
    GC_FAR_GRASS, GC_FAR_GRASS_LIGHT, GC_FAR_EARTH,
    GC_MILL_WALL, GC_MILL_SHADE, GC_SAIL,
    GC_LIZARD, GC_LIZARD_DARK, GC_LIZARD_BELLY, GC_TOE,
    GC_COUNT
};
/* The eight inks of `inks=8` (seed 000: "eight inks"), in order: what every colour locks to. */
extern const uint8_t sim__garden_inks8[8];
extern const char *const sim__garden_colour_name[GC_COUNT];

/* ---- the creatures -------------------------------------------------------------------------------- */
enum { GARDEN_SERPENT, GARDEN_VINE, GARDEN_BIPED, GARDEN_WALKER, GARDEN_LIZARD,
       GARDEN_NCREATURES };

typedef struct garden_serpent {
    sim_spine spine;
    sim_juice juice;                /* the flash (juice cfg: the default) */
    int8_t orbit_dir;               /* ±1: its way round its ring */
    double heading;                 /* radians, (−π, π]: the way its head moves */
} garden_serpent;

typedef struct garden_vine {
    sim_fabrik reach;
    sim_juice juice;
    int16_t root_x;                 /* on the ground row */
} garden_vine;

enum { GB_HAIR = 0, GB_SCARF = 1, GB_STYLES };
enum { GB_IDLE = 0, GB_WALK = 1, GB_THROW = 2 };
/* The villagers' hair states (sim_biped.state picks the ink): Celeste's indicator. */
enum { GB_CALM = 0, GB_WARM = 1, GB_STARTLED = 2, GB_AIMING = 3 };
/* The throw: the seed's holds, wind-up long, strike 2–4, recovery 6–12 (timing.h). */
enum { GB_POSE_STAND = 0, GB_POSE_WINDUP = 1, GB_POSE_STRIKE = 2, GB_POSE_FOLLOW = 3, GB_POSES };

typedef struct garden_biped {
    uint8_t style;                  /* GB_HAIR or GB_SCARF: which cfg and art */
    sim_biped b;
    sim_juice juice;                /* flash and a startled hop (the biped juice cfg) */
    uint8_t task;                   /* GB_IDLE, GB_WALK, GB_THROW */
    uint8_t then_throw;             /* walking to the pond's edge to throw */
    int16_t goal_x;
    uint16_t wait;                  /* idle ticks left */
    sim_clip clip;                  /* the throw (anim 0) while task is GB_THROW */
    uint8_t startled;               /* ticks left */
    int16_t aim_x;                  /* the pond column the stone is thrown at */
} garden_biped;

enum { GW_IDLE = 0, GW_WALK = 1 };
/* The gnome's images: the four rule-built walk frames, then the sprite as drawn (standing). */
enum { GW_STAND = SIM_WALKER_FRAMES, GW_IMAGES };
enum { GW_ANIM_WALK = 0, GW_ANIM_IDLE = 1, GW_NANIMS };

typedef struct garden_walker {
    double x;                       /* the sprite's centre column, px */
    int8_t facing;                  /* ±1 */
    uint8_t task;                   /* GW_IDLE, GW_WALK */
    int16_t goal_x;
    uint16_t wait;
    sim_clip clip;                  /* walk or idle */
    sim_juice juice;                /* hops, flash, landing pop, status (1: warm, by the fire) */
    double hop_dx;                  /* px a tick along x while in the air */
    uint8_t startle;                /* poked: ticks before its startled hop (the flash's, and one) */
} garden_walker;

/* The lizard: a body (head at point 0) carried GARDEN_LIZARD_HIP px above its feet, four legs
 * (0 front near, 1 front far, 2 back near, 3 back far; pairs {0, 3} and {1, 2}). */
enum { GL_IDLE = 0, GL_WALK = 1 };
typedef struct garden_lizard {
    sim_spine body;
    sim_legs legs;
    sim_juice juice;                /* the flash */
    int8_t facing;                  /* ±1 */
    uint8_t task;                   /* GL_IDLE, GL_WALK */
    int16_t goal_x;
    uint16_t wait;
    uint8_t scurry;                 /* ticks left running from a poke */
    uint8_t tongue;                 /* ticks left of a tongue flick */
} garden_lizard;

typedef struct garden_stone {
    double x, y, vx, vy;            /* px, px a tick */
} garden_stone;

/* ---- the world ------------------------------------------------------------------------------------- */
enum { GARDEN_SCENE_DEMO, GARDEN_SCENE_EMPTY, GARDEN_SCENE_CROWD, GARDEN_NSCENES };

typedef struct garden_world {
    /* params (in the header's params text, not saved), and the seed */
    int scene, wander, inks;
    uint64_t seed;
    /* configuration (constants, not saved) */
    sim_biped_cfg bcfg[GB_STYLES];
    sim_juice_cfg jcfg;             /* serpents, vines, gnomes */
    sim_juice_cfg bjcfg;            /* villagers: a smaller startled hop */
    sim_legs_cfg lcfg;              /* the lizards' legs */
    /* state */
    uint64_t now;                   /* ticks stepped */
    uint32_t serial;                /* creatures made so far: each one's breathing id */
    sim_rng pilot;                  /* "garden.pilot": wandering, choices */
    sim_rng fire_rng;               /* "garden.fire": the particles */
    int16_t wind, wind_goal;        /* −SIM_WIND_MAX..SIM_WIND_MAX */
    uint16_t wind_timer;            /* ticks before the pilot picks another goal */
    uint16_t wind_hold;             /* ticks the player's wind still stands */
    double fly_x, fly_y;            /* the butterfly: the target */
    int16_t way_x, way_y;           /* its waypoint */
    uint16_t way_timer;
    int16_t aim_x, aim_y;           /* the player's target, while aim_hold > 0 */
    uint16_t aim_hold;
    uint8_t nserpent, nvine, nbiped, nwalker, nstone, nlizard;
    garden_serpent serpent[GARDEN_MAX_SERPENTS];
    garden_vine vine[GARDEN_MAX_VINES];
    garden_biped biped[GARDEN_MAX_BIPEDS];
    garden_walker walker[GARDEN_MAX_WALKERS];
    garden_stone stone[GARDEN_MAX_STONES];
    garden_lizard lizard[GARDEN_MAX_LIZARDS];
    int32_t cloud_x[GARDEN_CLOUDS]; /* each cloud's left edge, 1/256 px, wrapped across the sky */
    uint32_t mill;                  /* the windmill's sails, 2^32 a turn */
    sim_grass back, front;          /* tufts of the middle meadow (behind its creatures) and of the
                                       near bank (behind the lizards) */
    sim_water pond;
    sim_particles fire;
    sim_cloth flag;
    /* derived at create (not saved) */
    sim_inks lock;
    uint8_t *backdrop;              /* the still scene, GARDEN_W × GARDEN_H */
    struct garden_art *art;         /* sprites and bakes (art.c) */
} garden_world;

#endif
