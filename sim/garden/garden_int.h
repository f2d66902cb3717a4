/* garden_int.h — private to the modules of sim/garden/: what they call in each other. */
#ifndef VIVARIUM_GARDEN_INT_H
#define VIVARIUM_GARDEN_INT_H
#include "garden/garden.h"

static inline double gd_clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static inline int gd_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- art.c: the palette, the sprites and their bakes, the still scene -------------------------- */
#define GARDEN_TUFT_SPRITES 4       /* per row of grass */
#define GARDEN_FLY_FRAMES 4         /* the butterfly: open up, open, half, closed */
#define GARDEN_FLY_W 9
#define GARDEN_FLY_H 7
#define GARDEN_CLOUD_W 48
#define GARDEN_CLOUD_H 16
#define GARDEN_SAILS_D 29           /* the sails' bake: a square, the hub at its centre */
/* Each cloud: its row, its width and its share of the drift (the farther, the slower). */
typedef struct garden_cloud_spec {
    int y, w, h;
    int drift;                      /* 1/4 of the wind's push per unit */
    int x0;                         /* its place at create */
} garden_cloud_spec;
extern const garden_cloud_spec sim__garden_clouds[GARDEN_CLOUDS];
typedef struct garden_art {
    /* villagers: per style, per hair state, per pose, the upper body facing right; and the flash
     * silhouette per style and pose */
    sim_sprite body[GB_STYLES][SIM_BIPED_STATES][GB_POSES];
    sim_sprite body_flash[GB_STYLES][GB_POSES];
    uint8_t body_px[GB_STYLES][SIM_BIPED_STATES + 1][GB_POSES][16 * 16];
    sim_biped_look look[GB_STYLES];
    /* gnomes: the walk frames and, per image, every juice look (normal, squash, stretch, per
     * status; flash; smear) */
    sim_walker walk;
    sim_juice_art gnome[GW_IMAGES];
    int gnome_w, gnome_h;           /* the sprite's size (the frames are 2 wider, 1 taller) */
    /* the butterfly's wing frames */
    sim_sprite fly[GARDEN_FLY_FRAMES];
    uint8_t fly_px[GARDEN_FLY_FRAMES][GARDEN_FLY_W * GARDEN_FLY_H];
    /* the clouds (drawn every frame where they have drifted to) */
    sim_sprite cloud[GARDEN_CLOUDS];
    uint8_t cloud_px[GARDEN_CLOUDS][GARDEN_CLOUD_W * GARDEN_CLOUD_H];
    /* the windmill's sails at GARDEN_MILL_ANGLES angles of a quarter turn, by three shears */
    sim_sprite sails[GARDEN_MILL_ANGLES];
    uint8_t sails_px[GARDEN_MILL_ANGLES][GARDEN_SAILS_D * GARDEN_SAILS_D];
    /* a bird, wings up and down */
    sim_sprite bird[2];
    uint8_t bird_px[2][5 * 3];
    /* the bank drawn over the pond's sides, per column: the first row of earth */
    int16_t basin[GARDEN_POND_N];
} garden_art;

/* The palette, filled into a frame's. */
void sim__garden_palette(sim_palette *pal);
/* The tuft sprites of the back (tall) and front (short) rows, w × h each into px. */
#define GARDEN_TUFT_W 7
#define GARDEN_TUFT_H 11
#define GARDEN_FTUFT_H 9
void sim__garden_tufts(uint8_t px[GARDEN_TUFT_SPRITES][GARDEN_TUFT_W * GARDEN_TUFT_H], int back);
/* The villagers' configurations (by style) and the juice configurations. */
void sim__garden_configs(garden_world *w);
/* Build the art (allocated: garden_art is large). 0 or SIM_ENOMEM / SIM_EINVAL. */
int sim__garden_art_build(garden_art **out);
void sim__garden_art_free(garden_art *a);
/* Draw the still scene (sky, hills, meadow, the pond's basin, the fire's stones, the pole). */
void sim__garden_draw_backdrop(sim_frame *f);
/* The basin's first row of earth under pond column i (the water is drawn above it). */
int sim__garden_basin_row(int i);

/* ---- creatures.c: the creatures and the pilot -------------------------------------------------- */
int sim__garden_add_serpent(garden_world *w, double x, double y);
int sim__garden_add_vine(garden_world *w, int root_x);
int sim__garden_add_biped(garden_world *w, int x, int style);
int sim__garden_add_walker(garden_world *w, int x);
int sim__garden_add_lizard(garden_world *w, int x);
/* A walking creature's place: x moved onto the meadow or the bank (out of the pond). */
int sim__garden_land_x(int x);
/* Which bank x is on: 0 the meadow, 1 the right bank. */
int sim__garden_bank(double x);
/* The poke: the creature under (x, y), front first, flashes; else the pond splashes (or a stone
 * drops into it); else the grass there bends. */
void sim__garden_poke(garden_world *w, const sim_ctx *ctx, int x, int y);
void sim__garden_drop_stone(garden_world *w, double x, double y, double vx, double vy);
void sim__garden_step_creatures(garden_world *w, const sim_ctx *ctx, uint64_t tick);
void sim__garden_step_pilot(garden_world *w, uint64_t tick);
void sim__garden_step_stones(garden_world *w);
/* The butterfly's place as drawn, and a serpent's target. */
void sim__garden_serpent_target(const garden_world *w, int i, double *tx, double *ty);
/* The throw's hold list (anim 0) and the gnomes' (walk, idle). */
extern const sim_holds sim__garden_throw_anim[1];
extern const sim_holds sim__garden_gnome_anims[GW_NANIMS];
/* The box a creature is drawn in (for the poke): 1 if (x, y) is inside. */
int sim__garden_hit_walker(const garden_world *w, int i, int x, int y);
int sim__garden_hit_biped(const garden_world *w, int i, int x, int y);
int sim__garden_hit_serpent(const garden_world *w, int i, int x, int y);
int sim__garden_hit_vine(const garden_world *w, int i, int x, int y);
int sim__garden_hit_lizard(const garden_world *w, int i, int x, int y);
/* The lizard's hips (0 shoulders, 1 hips) and its legs' ideal spots. */
void sim__garden_lizard_hip(const garden_lizard *z, int which, double *x, double *y);
/* The sky's own life: the clouds drift with the wind, the sails turn. */
void sim__garden_step_sky(garden_world *w);
/* A flock of birds crosses the sky now and then: a pure function of (seed, tick), not state. Bird
 * k of the pass under way at `tick` is at (*x, *y) showing wing frame *frame; 0 when no pass is
 * under way. */
#define GARDEN_BIRDS 5
int sim__garden_bird(uint64_t seed, uint64_t tick, int k, int *x, int *y, int *frame);
/* The gnome's image and juice look this tick (render and tests). */
int sim__garden_walker_image(const garden_world *w, int i);

/* ---- render.c ------------------------------------------------------------------------------------- */
void sim__garden_render(const garden_world *w, const sim_ctx *ctx, int view, sim_frame *out);
/* The butterfly's wing frame at a tick (0 up, 1 open, 2 half, 3 closed). */
int sim__garden_fly_frame(uint64_t now);

/* ---- state.c --------------------------------------------------------------------------------------- */
size_t sim__garden_save_max(const void *impl);
void sim__garden_save(const void *impl, sim_writer *wr);
int sim__garden_load(void *impl, sim_reader *rd);
long sim__garden_diff(const void *a, const void *b, sim_diff_out *o);

#endif
