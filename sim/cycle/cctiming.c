/* cctiming.c — Canvas Cycle's palette arithmetic, for scenes that come from Canvas Cycle (Joseph
 * Huckaby's 2010 web player of Ferrari's scenes: its palette.js, Palette.cycle, shiftColors,
 * blendShiftColors, fadeColor and DFLOAT_MOD). The same doubles in the same order, so such a scene
 * plays here palette for palette as Canvas Cycle's code plays it at every 60 Hz frame;
 * docs/cycle.md ("Canvas Cycle's arithmetic") gives each line's source.
 *
 * Doubles are deterministic here for the reason they are everywhere in sim/: only + − × ÷, each
 * rounded correctly by IEEE 754 (-ffp-contract=off), floor is sim_floor and the one sine sim_sin
 * (dmath.c). The colour arithmetic is integers: Canvas Cycle's floored fade is exactly an integer
 * division (scene_int.h, sim__cc_fade). Depends on the scene type only. */
#include "scene_int.h"

#define CC_CYCLE_SPEED 280.0       /* Palette.CYCLE_SPEED: rate/280 steps a second at speed 1 */
#define CC_PI 3.1415926            /* the sine modes' π, as palette.js writes it */

uint64_t sim__cc_ms(uint64_t clock)
{
    return clock / 6;               /* hundredths of a 1/60 s tick → whole milliseconds */
}

/* Palette.DFLOAT_MOD(a, b) for a ≥ 0 and a whole b ≥ 1: (⌊a·100⌋ mod 100·b) / 100. ⌊a·100⌋ is
 * below 2^53 for every clock below CYC_CC_CLOCK_PERIOD and rate below 2^16, so the integer is the
 * double's. */
static double dfloat_mod(double a, int b)
{
    uint64_t q = (uint64_t)sim_floor(a * (double)CYC_CC_PRECISION);
    return (double)(q % ((uint64_t)b * CYC_CC_PRECISION)) / (double)CYC_CC_PRECISION;
}

/* Palette.cycle's cycleAmount for one range at speedAdjust 1 (its default). */
static double cc_amount(const sim_cycle_range *r, uint64_t clock)
{
    if (!r->rate) return 0.0;                                 /* Canvas Cycle skips it */
    int n = r->high - r->low + 1;                             /* cycleSize */
    double rate = (double)r->rate / CC_CYCLE_SPEED;           /* cycleRate */
    double x = (double)sim__cc_ms(clock) / (1000.0 / rate);   /* timeNow / (1000 / cycleRate) */
    double amount;
    switch (r->dir) {
    case SIM_CYCLE_PINGPONG:                                  /* reverse 3 */
        amount = dfloat_mod(x, 2 * n);
        if (amount >= n) amount = (double)(2 * n) - amount;
        break;
    case SIM_CYCLE_SINE_HALF:                                 /* reverse 4 */
    case SIM_CYCLE_SINE_FULL:                                 /* reverse 5 */
        amount = dfloat_mod(x, n);
        amount = sim_sin((amount * CC_PI * 2.0) / (double)n) + 1.0;
        amount *= r->dir == SIM_CYCLE_SINE_HALF ? (double)n / 4.0 : (double)n / 2.0;
        break;
    default:                                                  /* reverse 0..2 */
        amount = dfloat_mod(x, n);
        break;
    }
    return amount;
}

void sim__cc_position(const sim_cycle_range *r, uint64_t clock, int *shift, int *frame)
{
    double amount = cc_amount(r, clock);
    double whole = sim_floor(amount);
    /* shiftColors steps ⌊amount⌋ times (never, below 0); blendShiftColors' frame is
     * ⌊(amount − ⌊amount⌋)·100⌋, which fadeColor clamps to 0..100. */
    *shift = whole > 0.0 ? (int)whole : 0;
    double f = sim_floor((amount - whole) * (double)CYC_CC_PRECISION);
    *frame = f < 0.0 ? 0 : f > (double)CYC_CC_PRECISION ? CYC_CC_PRECISION : (int)f;
}

void sim__cc_apply(const sim_cycle_range *r, uint64_t clock, uint8_t *pal)
{
    int n = r->high - r->low + 1, shift, frame;
    sim__cc_position(r, clock, &shift, &frame);
    if (r->mode != SIM_CYCLE_BLEND) frame = 0;
    shift %= n;
    if (shift == 0 && frame == 0) return;
    uint8_t src[SIM_PALETTE_MAX * 3];
    uint8_t *base = pal + 3 * r->low;
    memcpy(src, base, (size_t)n * 3);
    /* shiftColors moves each colour one entry up, `shift` times: entry i shows the colour that was
     * `shift` below it; blendShiftColors then fades it toward the one below that. Reverse 2
     * reverses the range before and after, which turns both around: entry i shows the colour
     * `shift` above it, fading toward the one above that. */
    int up = r->dir == SIM_CYCLE_REVERSE;
    for (int i = 0; i < n; i++) {
        int a = up ? (i + shift) % n : (i - shift + n) % n;
        int b = up ? (a + 1) % n : (a + n - 1) % n;
        for (int c = 0; c < 3; c++) base[3 * i + c] = sim__cc_fade(src[3 * a + c], src[3 * b + c], frame);
    }
}
