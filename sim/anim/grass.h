/* grass.h — grass in tufts that sway, with gusts that cross the field (seed 000 §5: "pre-bake 3–4
 * lean frames per tuft (top pixels shifted 0, 1, 2 px, bottom row pinned), choose a frame per
 * tuft from round(A*sin(ω*t + k*x + seedPhase)), and add a traveling 'gust' term
 * g(x - windSpeed*t) so waves cross the field").
 *
 * Frames. Each tuft sprite is baked at init into SIM_GRASS_FRAMES images by a row shear: the
 * bottom row stays where it is, the top row moves by the lean, the rows between by the lean in
 * proportion to their height, rounded. Leans −2..+2: the seed's three frames (0, 1, 2 px) for a
 * lean to the right, and the same shears to the left (sheared, not flipped, so a lopsided tuft
 * keeps its shape). Drawing is a blit of the baked image: no per-frame transform.
 *
 * The lean of tuft i at x, with s = wind / SIM_WIND_MAX in [−1, 1] and d = the wind's side (+1
 * in a calm):
 *     lean = clamp(round(B·s + A(s)·sin(θ + φ_i − d·k·x) + G·s·g(x − gust)) + bend_i, −2, 2)
 *   B·s          the steady lean downwind;
 *   A(s)·sin(…)  the sway: θ turns faster in a stronger wind, φ_i is the tuft's seedPhase, and
 *                the seed's k·x takes the wind's side so the ripples run downwind;
 *   G·s·g(…)     the gust: a bump g(u) = ((1 + cos 2πu/Λ)/2)³, one every Λ px, whose position
 *                `gust` moves with the wind each tick: the seed's g(x − windSpeed·t) with the
 *                windSpeed·t accumulated, so a change of wind never makes the gusts jump;
 *   bend_i       a push from a creature walking through (sim_grass_push), ±1 or ±2, held a
 *                moment and then let go a pixel at a time.
 * The wind part is recomputed "on 3s" (seed 000 §6: procedural layers updated every 2nd–4th tick
 * read as hand-animated) and held between; pushes show at once. The numbers are in grass.c's
 * comments and docs/garden.md.
 *
 * State is integers: the phase accumulators, the gust position, each tuft's place, sprite,
 * seedPhase, wind lean and bend. The sine and the gust bump are computed in doubles from them
 * (sim_sin, sim_cos) and rounded to whole pixels before anything keeps them. No allocation after
 * init. */
#ifndef VIVARIUM_SIM_GRASS_H
#define VIVARIUM_SIM_GRASS_H
#include "sim_internal.h"

#define SIM_GRASS_LEAN 2                      /* the top moves 0, 1, 2 px each way */
#define SIM_GRASS_FRAMES (2 * SIM_GRASS_LEAN + 1)
#define SIM_GRASS_SPRITES_MAX 8
#define SIM_GRASS_SPRITE_W 16                 /* largest tuft sprite accepted */
#define SIM_GRASS_SPRITE_H 24
#define SIM_GRASS_CAP_MAX 4096
#define SIM_GRASS_HOLD 3                      /* "on 3s" */
#define SIM_GRASS_GUST_LEN 160                /* Λ, px between gusts */

typedef struct sim_grass_tuft {
    int16_t x, y;            /* the bottom row's centre pixel (w/2 from the sprite's left) */
    uint8_t sprite;
    int8_t wind;             /* the wind's lean, −2..2, from the last recompute */
    int8_t bend;             /* a creature's push, −2..2 */
    uint8_t bend_t;          /* ticks before the bend lets go by a pixel */
    uint32_t phase;          /* seedPhase, 2^32 a turn */
} sim_grass_tuft;

typedef struct sim_grass {
    sim_grass_tuft *tuft;
    int ntuft, cap;
    uint32_t sway;           /* θ, 2^32 a turn */
    int32_t gust;            /* the gusts' position, 1/256 px, in [0, Λ·256) */
    uint8_t until;           /* steps before the next recompute, 0..SIM_GRASS_HOLD−1 */
    /* Baked images (not state): sprite k, lean L at bake + off[k] + (L + 2)·fw[k]·fh[k], each
     * fw[k] = w + 4 wide and fh[k] tall; `key` is transparent. */
    uint8_t *bake;
    int nsprite;
    int fw[SIM_GRASS_SPRITES_MAX], fh[SIM_GRASS_SPRITES_MAX];
    size_t off[SIM_GRASS_SPRITES_MAX];
    int16_t key[SIM_GRASS_SPRITES_MAX];
} sim_grass;

/* Room for cap tufts (1..SIM_GRASS_CAP_MAX), none placed, and the bake of each sprite (1..8 of
 * them, each 1..16 wide, 2..24 tall, with a transparent key ≥ 0). The sprites are copied into the
 * bake; nothing points at them afterwards. 0, SIM_EINVAL or SIM_ENOMEM (g is then empty). */
int sim_grass_init(sim_grass *g, int cap, const sim_sprite *sprites, int nsprites);
void sim_grass_free(sim_grass *g);
/* Place a tuft of sprite `sprite` with its bottom centre at (x, y), its seedPhase drawn from rng
 * (within ±1/8 turn of its neighbours' wave). Returns its index, SIM_EFULL, or SIM_EINVAL for an
 * unknown sprite or a position outside int16. Tufts are drawn in the order they were placed. */
int sim_grass_add(sim_grass *g, int x, int y, int sprite, sim_rng *rng);
/* A creature at x walks through: every tuft within `radius` px bends away from x (to the left of
 * x, left; to the right, right; at x, toward dir's side, +1 or −1): 2 px within radius/2, 1 px
 * beyond. A stronger bend replaces a weaker one; each is held 12 ticks, then let go a pixel every
 * 6. Call it every tick the creature is there. */
void sim_grass_push(sim_grass *g, int x, int radius, int dir);
/* One tick in the wind (−SIM_WIND_MAX..SIM_WIND_MAX, clamped): the accumulators advance, bends
 * relax, and on every third step the wind lean of every tuft is recomputed. No allocation. */
void sim_grass_step(sim_grass *g, int wind);
/* Tuft i's lean as drawn: wind + bend, clamped to ±2 (0 out of range). */
int sim_grass_lean(const sim_grass *g, int i);
/* Blit every tuft's baked image for its lean, in index order. */
void sim_grass_draw(const sim_grass *g, sim_frame *f);
/* The baked image of sprite k at lean L (−2..2), fw × fh, or NULL. */
const uint8_t *sim_grass_frame(const sim_grass *g, int k, int lean);

/* A tuft sprite for worlds without their own art: w × h (w 3..16, h 4..24) pixels into px, the
 * background `key`, 3 to 5 blades rising from the bottom row, the shapes a pure function of
 * `variant`; shades[0] at the roots to shades[nshades−1] at the tips (nshades 1..4). 0 or
 * SIM_EINVAL. */
int sim_grass_tuft_sprite(uint8_t *px, int w, int h, uint8_t key, const uint8_t *shades,
                          int nshades, uint32_t variant);

/* State: u16 tag 0x62A5, u16 tufts N, u32 sway, i32 gust, u8 until, then N × { i16 x, i16 y,
 * u8 sprite, i8 wind, i8 bend, u8 bend_t, u32 phase } (12 bytes each). */
size_t sim_grass_save_max(const sim_grass *g);
void sim_grass_save(const sim_grass *g, sim_writer *wr);
/* Read a state saved by sim_grass_save into g (same cap and sprites). Checks every field. 0, or
 * SIM_ETRUNC / SIM_ECORRUPT with g untouched. */
int sim_grass_load(sim_grass *g, sim_reader *rd);

#endif
