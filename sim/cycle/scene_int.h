/* scene_int.h — private to sim/cycle/ and its tests: the timing arithmetic of palette cycling and
 * the importers' notes, all defined in scene.c. The importers (ilbm.c, ccjson.c, import.c) include
 * this and nothing of the world (cycle.h), so they never call cycle.c. */
#ifndef VIVARIUM_CYCLE_SCENE_INT_H
#define VIVARIUM_CYCLE_SCENE_INT_H
#include "sim_internal.h"
#include "scene.h"

/* Timing. A step is one palette position. CRNG's rate has 14 fractional bits: at 60 Hz a tick
 * advances a range by rate/16384 steps, so the position after t ticks is (t·rate) >> 14 and the
 * blend fraction (t·rate) & 0x3FFF. Speed is a percentage, so a range's phase counts in units of
 * 1/(16384·100) step and a tick adds rate·speed: at speed 100 that is exactly the CRNG position,
 * and at speed 200 the phase after t ticks is the phase at speed 100 after 2t. */
#define CYC_SUB 16384u                 /* sub-steps per step: the blend fraction's range */
#define CYC_SPEED_UNIT 100u            /* speed is in percent */
#define CYC_SPEED_MIN 10
#define CYC_SPEED_MAX 400

/* A range's phase period in phase units. CRNG timing: size steps (forward, reverse), 2·size
 * (ping-pong). Canvas Cycle timing: CYC_CC_CLOCK_PERIOD, whatever the range. */
uint64_t sim__cycle_period(const sim_cycle_range *r, int timing);

/* What one tick at `speed` percent adds to an active range's phase: rate·speed (CRNG timing), or
 * speed (Canvas Cycle timing: the clock, in hundredths of a tick). */
uint64_t sim__cycle_tick(const sim_cycle_range *r, int timing, unsigned speed);

/* The offset of a range at a phase, in sub-steps, 0 ≤ offset < size·CYC_SUB: how far its colours
 * have rotated forward. Reverse counts down from size; ping-pong runs up to size and back. */
uint32_t sim__cycle_offset(const sim_cycle_range *r, uint64_t phase);

/* BlendShift's one rounding rule: a + (b − a)·f/16384, rounded half up, computed exactly as
 * (a·(16384 − f) + b·f + 8192) >> 14 for 0 ≤ f < 16384. At f = 8192 it is (a + b + 1) >> 1. */
static inline uint8_t sim__cycle_mix(uint8_t a, uint8_t b, uint32_t f)
{
    return (uint8_t)(((uint32_t)a * (CYC_SUB - f) + (uint32_t)b * f + CYC_SUB / 2) >> 14);
}

/* Rotate one range of pal (3 bytes an entry) in place to its colours at `phase`, by the scene's
 * timing. Standard mode shows whole steps; blend mode fades each entry toward the colour arriving
 * next. An inactive range of a Canvas Cycle scene, or one of rate 0, is left as it is. */
void sim__cycle_apply(const sim_cycle_range *r, int timing, uint64_t phase, uint8_t *pal);

/* ---- Canvas Cycle timing (cctiming.c) ---------------------------------------------------------
 * A Canvas Cycle range's phase is a clock in hundredths of a tick: each tick adds the speed (100
 * at speed 100), so after t ticks at speed 100 it is 100·t and Canvas Cycle's millisecond clock
 * (GetTickCount, whole milliseconds since the page started) reads ⌊clock/6⌋ = ⌊1000·t/60⌋. The
 * clock wraps at 2^50 (5,900 years at speed 100), below which every double in the arithmetic
 * holds its integers exactly. */
#define CYC_CC_CLOCK_PERIOD (UINT64_C(1) << 50)
#define CYC_CC_PRECISION 100           /* Palette.PRECISION: amounts and blends in hundredths */

/* Canvas Cycle's milliseconds at a clock. */
uint64_t sim__cc_ms(uint64_t clock);

/* Where Canvas Cycle's Palette.cycle puts a range at a clock (speed 1, its default): *shift whole
 * steps forward (0..size; reverse ranges run them backwards) and the BlendShift frame *frame
 * (0..99 hundredths toward the next colour), exactly as its doubles give them. */
void sim__cc_position(const sim_cycle_range *r, uint64_t clock, int *shift, int *frame);

/* Canvas Cycle's fadeColor for one channel: ⌊a + (b − a)·frame/100⌋, which is exactly
 * (a·(100 − frame) + b·frame) / 100 in integers (docs/cycle.md). */
static inline uint8_t sim__cc_fade(uint8_t a, uint8_t b, int frame)
{
    return (uint8_t)(((unsigned)a * (unsigned)(CYC_CC_PRECISION - frame) + (unsigned)b * (unsigned)frame) /
                     CYC_CC_PRECISION);
}

/* One range of pal in place to its colours at `clock`, as Canvas Cycle's Palette.cycle leaves
 * them: shiftColors in standard mode, blendShiftColors in blend mode. */
void sim__cc_apply(const sim_cycle_range *r, uint64_t clock, uint8_t *pal);

/* Append a sentence to an importer's notes, "; "-separated, cut to fit. notes may be NULL. */
void sim__cycle_note(char *notes, size_t cap, const char *msg);

#endif
