/* water.h — a water surface as a 1-D spring height field (seed 000 §5: "a 1-D spring height field
 * along the surface line (each column's height is a damped spring coupled to its neighbors),
 * drawn with fillRect columns"), with palette-cycled highlight bands on top.
 *
 * Each column i has a height h[i] above the rest level. Neighbouring columns are joined by a
 * spring on their height difference, and what the spring moves is water: f[i] is the flow across
 * the edge between columns i and i+1, in px of height per tick. Each step
 *     f[i] += couple · (h[i] − h[i+1])          the spring between the two columns
 *     f[i] −= f[i] · damp                       its damper
 *     h[i] −= f[i] − f[i−1]                     what flowed out minus what flowed in
 * with no flow through the two ends (f[−1] = f[n−1] = 0: walls, where a wave reflects). That is
 * the wave equation h'' = couple · ∂²h/∂x² with a damper, stepped symplectically (the flows
 * first, then the heights from the new flows), stable for couple < 1; long waves travel
 * √couple columns a tick.
 *
 * Everything is an integer in 1/65536 px (SIM_WATER_ONE), so the volume Σh is conserved
 * exactly: every unit that leaves a column arrives in its neighbour, whatever the rounding.
 * A splash is a flow outward from a column (a crater with a rim), so it conserves volume too.
 * The damper rounds toward zero but takes at least one unit from a non-zero flow, so the energy
 * falls and a disturbed surface comes to rest. No floats, no allocation after init. */
#ifndef VIVARIUM_SIM_WATER_H
#define VIVARIUM_SIM_WATER_H
#include "sim_internal.h"

#define SIM_WATER_ONE 65536             /* one pixel of height, or a pixel a tick of flow */
#define SIM_WATER_MAX_COLS 1024
/* couple 0.5: long waves cross √0.5 = 0.71 columns a tick (42 px/s at 60 Hz), so a splash
 * crosses a 100-px pond in about 2.4 s and is seen coming back; 1.0 is the stability limit. */
#define SIM_WATER_COUPLE (SIM_WATER_ONE / 2)
/* damp 1/512 of the flow a tick: the energy halves in about 400 ticks (7 s), so a splash still
 * shows after crossing a pond and back; after a 1.5 px/tick stone in a 160-column pond no column
 * is a whole pixel off the rest line from tick 549 on (9 s; measured, tests/check_water.c). */
#define SIM_WATER_DAMP (SIM_WATER_ONE / 512)
/* Bounds the step keeps and a load checks. Flows are clamped to ±8 px a tick (a splash is
 * 1–2 px a tick; the clamp only ever dissipates). Heights never come near ±4096 px: a bound for
 * the load and an overflow guard for the step (reaching it would break conservation). */
#define SIM_WATER_FMAX (8 * SIM_WATER_ONE)
#define SIM_WATER_HMAX (4096 * SIM_WATER_ONE)

typedef struct sim_water {
    int n;                  /* columns, 2 .. SIM_WATER_MAX_COLS (fixed at init) */
    int32_t *h;             /* n heights above rest, 1/65536 px (up is positive) */
    int32_t *f;             /* n − 1 flows, f[i] from column i to i+1, 1/65536 px a tick */
    /* Configuration (not saved): init sets the defaults above. */
    int32_t couple;         /* 0 < couple < SIM_WATER_ONE */
    int32_t damp;           /* 0 ≤ damp < SIM_WATER_ONE */
} sim_water;

/* How sim_water_draw paints: palette indexes chosen by the world. */
typedef struct sim_water_look {
    uint8_t surface;        /* the top pixel of every column: the bright edge */
    uint8_t body;           /* the water below the bands */
    uint8_t deep;           /* from y_rest + deep_below down */
    int deep_below;         /* rows below the rest line where `deep` starts */
    /* Highlight bands: `band_rows` rows under the surface pixel, each pixel an entry of `band`
     * picked by (column / 2 + row + phase) mod nband, where phase advances one entry every
     * cycle_ticks ticks. That is standard-mode palette cycling (whole-step shifts, seed 000 §5),
     * done on the indexes a band pixel takes instead of on the palette's colours: the frames look
     * the same, and the palette stays fixed for the ink lock. */
    uint8_t band[8];
    int nband;              /* 1..8 */
    int band_rows;          /* 0..8 */
    int cycle_ticks;        /* ≥ 1 */
} sim_water_look;

/* Allocate n columns (2 ≤ n ≤ SIM_WATER_MAX_COLS), flat and still, with the default couple and
 * damp. 0, SIM_EINVAL or SIM_ENOMEM (w is then empty and safe to free). */
int sim_water_init(sim_water *w, int n);
void sim_water_free(sim_water *w);
/* A splash at column x (out of range: nothing): `strength` (1/65536 px a tick, clamped to
 * ±SIM_WATER_FMAX) flows out of column x to both sides, and half of it out of the two columns
 * beyond, so the next step opens a crater of depth 2·strength with a rim of strength/2 on two
 * columns each side. Negative strength wells up instead (something surfacing). Volume-neutral.
 * A stone dropped in: about 1.5 px a tick; a creature wading: 0.25 px a tick every few ticks. */
void sim_water_splash(sim_water *w, int x, int32_t strength);
/* One tick (the header's three lines, flows first). Allocates nothing. */
void sim_water_step(sim_water *w);
/* Column i's height in whole pixels, rounded half away from zero (0 out of range). */
int sim_water_height(const sim_water *w, int i);
/* Σh in 1/65536 px: constant under steps and splashes. */
int64_t sim_water_volume(const sim_water *w);
/* Energy in px² units: Σf² (the moving water) + couple·Σ(h[i] − h[i+1])² (the stretched springs).
 * Falls over time once nothing splashes. For tests and for a world that wants to know whether
 * the pond is calm; never saved. */
double sim_water_energy(const sim_water *w);
/* Paint the columns: column i at frame x = x0 + i, from its surface (y_rest − height) down to
 * y_bottom inclusive: the surface pixel, the bands, body, and deep below y_rest + deep_below.
 * `tick` drives the cycling only (render-time, nothing saved). Clipped to the frame. */
void sim_water_draw(const sim_water *w, sim_frame *f, const sim_water_look *look, int x0,
                    int y_rest, int y_bottom, uint64_t tick);

/* State: u16 tag 0x3A7E, u16 n, n × i32 h, (n − 1) × i32 f. */
size_t sim_water_save_max(const sim_water *w);
void sim_water_save(const sim_water *w, sim_writer *wr);
/* Read a state saved by sim_water_save into w (same n). Checks the tag, n, |h| ≤ HMAX and
 * |f| ≤ FMAX. 0, or SIM_ETRUNC / SIM_ECORRUPT with w untouched. */
int sim_water_load(sim_water *w, sim_reader *rd);

#endif
