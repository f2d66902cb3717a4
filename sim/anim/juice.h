/* juice.h — juice on a sprite creature (seed 000 §3): a landing pop and overshoot on a spring, a
 * hit flash, squash and stretch, a one-frame smear, anticipation before a hop, and a palette swap
 * for a status. "Most juice at low resolution is cheap, deterministic code layered on few drawn
 * frames": everything per-pixel is pre-baked once from the sprite, and the state machine only
 * picks which pre-baked image to show and where.
 *
 *   Bakes      pure functions of a sprite, done at create time, never saved:
 *              a silhouette (every opaque pixel one ink: the flash and the smear's source),
 *              a recolour through an index map (the status palette swap),
 *              squash and stretch by duplicating or removing every k-th row or column (the seed's
 *              "drop every k-th row and duplicate every m-th column": never scaling, so every
 *              pixel of the result is a pixel of the sprite and the pixel size never changes),
 *              a smear: the silhouette lengthened along one axis by duplicating columns (rows).
 *   The state  sim_juice: a hop (rest → wind-up → air → landing), the flash and smear timers, the
 *              landing spring, a status. sim_juice_look says what to draw this tick.
 *
 * Timing rules, each pinned by a test: a poke shows the flash for exactly flash_ticks frames, from
 * the tick it is applied; a hop holds the anticipation (squash) pose for exactly windup_ticks
 * frames, then launches, and the launch frame alone shows the smear; the landing kicks the squash
 * spring, which pops into squash, overshoots into stretch and settles. */
#ifndef VIVARIUM_SIM_JUICE_H
#define VIVARIUM_SIM_JUICE_H
#include "sim_internal.h"
#include "spring.h"

/* ---- bakes ----------------------------------------------------------------------------------- */
#define SIM_JUICE_MAX 32            /* widest or tallest sprite the art set takes */
#define SIM_JUICE_BUF (2 * SIM_JUICE_MAX * 2 * SIM_JUICE_MAX)   /* bytes of one baked image */

/* dst (w·h bytes) = s with every opaque pixel `ink`, the key (if any) kept. */
void sim_sprite_silhouette(uint8_t *dst, const sim_sprite *s, uint8_t ink);
/* dst (w·h bytes) = map[pixel] for every opaque pixel, the key kept: a palette swap. */
void sim_sprite_recolour(uint8_t *dst, const sim_sprite *s, const uint8_t map[256]);
/* Rows (and then columns) duplicated or removed: rows = +k duplicates, −k removes every row i with
 * (i + 1) % k == 0 and 0 < i < h − 1 (the first and last rows — the outline's top and bottom —
 * are never touched); 0 leaves them; cols alike. k ≥ 2. The result, *dw × *dh, goes to dst
 * (cap bytes). 0, SIM_EINVAL (|k| of 1, a bad sprite) or SIM_ENOSPC. */
int sim_sprite_rowcol(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s, int rows,
                      int cols);
/* The same, with lines that must survive: bit i of keep_rows (keep_cols) protects row (column) i
 * (i < 32), whose turn to be doubled or dropped passes to the next line after it that is neither
 * protected, already taken, nor the last (none: that turn is skipped). A face's eye row and
 * column, a beard's edge: the features that make the sprite read stay in every squash and
 * stretch (the garden's gnome). Sprites up to SIM_ROWCOL_MAX each way; keep 0, 0 is
 * sim_sprite_rowcol. */
#define SIM_ROWCOL_MAX 256
int sim_sprite_rowcol_keep(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s,
                           int rows, int cols, uint32_t keep_rows, uint32_t keep_cols);
enum { SIM_AXIS_X = 0, SIM_AXIS_Y = 1 };
/* The smear: s's silhouette in `ink`, `extra` px longer along the axis (1..64) by duplicating
 * columns (rows), spread evenly: column j is repeated 1 + ⌊(j+1)·extra/w⌋ − ⌊j·extra/w⌋ times.
 * 0, SIM_EINVAL or SIM_ENOSPC. */
int sim_sprite_smear(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s, int axis,
                     int extra, uint8_t ink);

/* ---- the state ------------------------------------------------------------------------------- */
/* Defaults (sim_juice_cfg_default): the seed's ranges and our picks. */
#define SIM_JUICE_FLASH_TICKS 3     /* seed: the flash silhouette for 2–4 ticks */
#define SIM_JUICE_WINDUP_TICKS 2    /* seed: hold the anticipation pose 1–3 extra ticks */
#define SIM_JUICE_HOP_V 2.5         /* ours: px/tick at launch: a 16-px hop at 60 Hz */
#define SIM_JUICE_GRAVITY 0.2       /* ours: px/tick² (720 px/s²): 25 ticks in the air */
/* Ours: the landing spring, under-damped (ζ = c / 2√k ≈ 0.29, ω ≈ 24.5 rad/s). Kicked at 90 px/s
 * it pops to 2.06 px of squash at the 3rd tick, overshoots to 0.75 px of stretch at the 11th, and
 * shows neither from the 13th on (measured at 60 Hz: tests/check_juice.c pins the sequence). */
#define SIM_JUICE_POP_K 600.0       /* 1/s² */
#define SIM_JUICE_POP_C 14.0        /* 1/s */
#define SIM_JUICE_POP_KICK 90.0     /* px/s of squash the landing gives */
#define SIM_JUICE_SHOW 0.5          /* px of spring before squash (stretch) shows */
#define SIM_JUICE_STATUS 2          /* statuses an art set carries: normal and one swap */

enum { SIM_HOP_REST = 0, SIM_HOP_WINDUP = 1, SIM_HOP_AIR = 2 };
enum { SIM_JUICE_POKE = 1, SIM_JUICE_HOP = 2 };          /* pending events */

typedef struct sim_juice_cfg {
    int flash_ticks;                /* 1..255 */
    int windup_ticks;               /* 1..255 */
    double hop_v, gravity;          /* px/tick, px/tick², both > 0 */
    double pop_k, pop_c, pop_kick;  /* the landing spring: 1/s², 1/s, px/s */
    double dt;                      /* s a tick, > 0 */
} sim_juice_cfg;

sim_juice_cfg sim_juice_cfg_default(void);          /* the numbers above at 60 Hz */
int sim_juice_cfg_check(const sim_juice_cfg *cfg);   /* 0 or SIM_EINVAL */

typedef struct sim_juice {
    uint8_t pending;                /* SIM_JUICE_POKE | SIM_JUICE_HOP: taken by the next step */
    uint8_t flash_left;             /* frames of flash still to show, this one included */
    uint8_t smear;                  /* 1: this frame shows the smear */
    uint8_t hop;                    /* SIM_HOP_* */
    uint8_t windup_left;            /* SIM_HOP_WINDUP: frames of anticipation left, this one in */
    uint8_t status;                 /* < SIM_JUICE_STATUS: which palette the sprite shows */
    double y, vy;                   /* hop height (≤ 0, y down) and its speed, px, px/tick */
    sim_spring pop;                 /* squash amount: > 0 squashed, < 0 stretched */
} sim_juice;

void sim_juice_init(sim_juice *j);                   /* at rest, normal */
/* Events, taken by the next sim_juice_step (the world calls these from its input handler, which
 * runs before the step of the same tick): a poke starts the flash; a hop starts the wind-up (a hop
 * asked for while one is under way is dropped). */
void sim_juice_poke(sim_juice *j);
void sim_juice_hop(sim_juice *j);
/* One tick: the timers run down, this tick's events start, the hop advances (launch: y moves at
 * once and the smear shows; landing: y = 0 and the spring gets its kick), the spring steps. */
void sim_juice_step(sim_juice *j, const sim_juice_cfg *cfg);

enum { SIM_LOOK_NORMAL = 0, SIM_LOOK_SQUASH = 1, SIM_LOOK_STRETCH = 2, SIM_LOOK_FLASH = 3,
       SIM_LOOK_SMEAR = 4 };
typedef struct sim_juice_look {
    int shape;                      /* SIM_LOOK_* */
    int dy;                         /* px above the ground (≤ 0) */
    int smear_dir;                  /* SIM_LOOK_SMEAR: −1 moving up, +1 down */
    int status;
} sim_juice_look;
/* What to draw now: the flash wins, then the smear, then the wind-up's squash, in the air the
 * stretch while rising faster than half the launch speed, at rest the spring's squash or stretch
 * past ±SIM_JUICE_SHOW. */
void sim_juice_look_at(const sim_juice *j, const sim_juice_cfg *cfg, sim_juice_look *out);

/* 26 bytes: pending, flash_left, smear, hop, windup_left, status (u8), y, vy (f64), then the
 * spring (sim_spring_save). */
size_t sim_juice_save_max(void);
void sim_juice_save(const sim_juice *j, sim_writer *wr);
/* 0, or SIM_ETRUNC / SIM_ECORRUPT (a flag or state out of range, a timer beyond cfg's, y > 0, a
 * smear outside the air, a wind-up count outside the wind-up) with j untouched. */
int sim_juice_load(sim_juice *j, const sim_juice_cfg *cfg, sim_reader *rd);

/* ---- the art set ----------------------------------------------------------------------------- */
/* Everything sim_juice_look can ask for, baked from one sprite: per status the normal, squash and
 * stretch images, and once the flash silhouette and the vertical smear. */
typedef struct sim_juice_art_spec {
    uint8_t flash_ink;              /* the highlight silhouette's ink */
    uint8_t smear_ink;              /* the smear's ink: the sprite's dominant colour */
    int smear_extra;                /* px the smear adds along its axis */
    int squash_every;               /* k: squash removes every k-th row and doubles every k-th
                                       column, stretch the other way round; ≥ 2 */
    const uint8_t (*status_map)[256];   /* SIM_JUICE_STATUS − 1 maps for statuses 1.., or NULL */
    uint32_t keep_rows, keep_cols;  /* lines squash and stretch never double or drop
                                       (sim_sprite_rowcol_keep); 0: none */
} sim_juice_art_spec;

typedef struct sim_juice_img {
    int w, h;
    uint8_t px[SIM_JUICE_BUF];
} sim_juice_img;

typedef struct sim_juice_art {
    int w, h;                       /* the sprite's size */
    uint8_t key;
    sim_juice_img shape[SIM_JUICE_STATUS][3];     /* normal, squash, stretch */
    sim_juice_img flash, smear;
} sim_juice_art;

/* Bake the set (a sprite of at most SIM_JUICE_MAX each way with a transparent key). 0, or
 * SIM_EINVAL / SIM_ENOSPC. */
int sim_juice_art_bake(sim_juice_art *a, const sim_sprite *s, const sim_juice_art_spec *spec);
/* The image a look shows. */
const sim_juice_img *sim_juice_art_image(const sim_juice_art *a, const sim_juice_look *look);
/* Draw the look with the sprite's normal top-left at (x, y) (the ground under its last row),
 * every variant standing on the same bottom row and centred on the same column; the smear's
 * leading edge on the sprite's (it trails behind). facing < 0 flips. */
void sim_juice_draw(const sim_juice_art *a, const sim_juice_look *look, sim_frame *f, int x, int y,
                    int facing);

#endif
