/* scene.c — the scene type of the cycle world (scene.h): an index image, a palette and its cycle
 * ranges; its checks, and the timing arithmetic that turns ranges and a phase into a palette
 * (CRNG's here, Canvas Cycle's in cctiming.c, which this file calls and which needs only the
 * types). Everything else in sim/cycle/ depends on this file and it on nothing else there: the
 * importers build scenes, the world (cycle.c) runs them. */
#include "scene_int.h"
#include <stdlib.h>

/* ---- timing -------------------------------------------------------------------------------------- */
uint64_t sim__cycle_period(const sim_cycle_range *r, int timing)
{
    if (timing == SIM_CYCLE_TIMING_CANVAS) return CYC_CC_CLOCK_PERIOD;
    uint64_t n = (uint64_t)(r->high - r->low + 1);
    uint64_t steps = r->dir == SIM_CYCLE_PINGPONG ? 2 * n : n;
    return steps * CYC_SUB * CYC_SPEED_UNIT;
}

uint64_t sim__cycle_tick(const sim_cycle_range *r, int timing, unsigned speed)
{
    return timing == SIM_CYCLE_TIMING_CANVAS ? speed : (uint64_t)r->rate * speed;
}

uint32_t sim__cycle_offset(const sim_cycle_range *r, uint64_t phase)
{
    uint64_t n = (uint64_t)(r->high - r->low + 1), span = n * CYC_SUB;
    uint64_t p = (phase % sim__cycle_period(r, SIM_CYCLE_TIMING_CRNG)) / CYC_SPEED_UNIT;
    uint64_t o;
    if (r->dir == SIM_CYCLE_REVERSE) o = (span - p) % span;
    else if (r->dir == SIM_CYCLE_PINGPONG) o = (p <= span ? p : 2 * span - p) % span;
    else o = p;
    return (uint32_t)o;
}

void sim__cycle_apply(const sim_cycle_range *r, int timing, uint64_t phase, uint8_t *pal)
{
    if (timing == SIM_CYCLE_TIMING_CANVAS) {
        if (r->active && r->rate) sim__cc_apply(r, phase, pal);
        return;
    }
    int n = r->high - r->low + 1;
    uint32_t o = sim__cycle_offset(r, phase);
    int k = (int)(o / CYC_SUB);
    uint32_t f = r->mode == SIM_CYCLE_BLEND ? o % CYC_SUB : 0;
    if (k == 0 && f == 0) return;
    uint8_t src[SIM_PALETTE_MAX * 3];
    uint8_t *base = pal + 3 * r->low;
    memcpy(src, base, (size_t)n * 3);
    for (int i = 0; i < n; i++) {
        /* Entry i shows the colour that was k entries below it; in a blend it fades toward the
         * colour one further below, the one that arrives at the next step. */
        int a = i - k;
        if (a < 0) a += n;
        const uint8_t *ca = &src[3 * a];
        if (f == 0) {
            memcpy(&base[3 * i], ca, 3);
            continue;
        }
        const uint8_t *cb = &src[3 * (a == 0 ? n - 1 : a - 1)];
        for (int c = 0; c < 3; c++) base[3 * i + c] = sim__cycle_mix(ca[c], cb[c], f);
    }
}

/* ---- scenes: validation and the palette at a tick ----------------------------------------------- */
void sim_cycle_scene_free(sim_cycle_scene *s)
{
    if (!s) return;
    free(s->px);
    s->px = NULL;
}

int sim_cycle_scene_check(const sim_cycle_scene *s, char *err, size_t errlen)
{
    if (s->w < 1 || s->h < 1 || s->w > SIM_CYCLE_MAX_W || s->h > SIM_CYCLE_MAX_H) {
        sim__fmt(err, errlen, "image is %ux%u; a scene is 1x1 to %ux%u", (unsigned)s->w,
                 (unsigned)s->h, SIM_CYCLE_MAX_W, SIM_CYCLE_MAX_H);
        return SIM_EFILE;
    }
    if (s->ncolors < 1 || s->ncolors > SIM_PALETTE_MAX) {
        sim__fmt(err, errlen, "palette has %u colours; a scene has 1 to 256", (unsigned)s->ncolors);
        return SIM_EFILE;
    }
    if (s->timing > SIM_CYCLE_TIMING_CANVAS) {
        sim__fmt(err, errlen, "timing %u is neither CRNG (0) nor Canvas Cycle (1)",
                 (unsigned)s->timing);
        return SIM_EFILE;
    }
    if (s->nranges > SIM_CYCLE_MAX_RANGES) {
        sim__fmt(err, errlen, "%u cycle ranges; at most %u", (unsigned)s->nranges,
                 SIM_CYCLE_MAX_RANGES);
        return SIM_EFILE;
    }
    for (int i = 0; i < s->nranges; i++) {
        const sim_cycle_range *r = &s->ranges[i];
        int dirmax = s->timing == SIM_CYCLE_TIMING_CANVAS ? SIM_CYCLE_SINE_FULL : SIM_CYCLE_PINGPONG;
        if (r->low >= r->high || r->high >= s->ncolors || r->dir > dirmax ||
            r->mode > SIM_CYCLE_BLEND || r->active > 1) {
            sim__fmt(err, errlen, "cycle range %d (%u..%u, direction %u, mode %u) is impossible "
                     "for a palette of %u colours", i, (unsigned)r->low, (unsigned)r->high,
                     (unsigned)r->dir, (unsigned)r->mode, (unsigned)s->ncolors);
            return SIM_EFILE;
        }
    }
    if (!s->px) {
        sim__fmt(err, errlen, "scene has no pixels");
        return SIM_EFILE;
    }
    size_t n = (size_t)s->w * s->h;
    for (size_t i = 0; i < n; i++)
        if (s->px[i] >= s->ncolors) {
            sim__fmt(err, errlen, "pixel (%u,%u) uses colour %u of a %u-colour palette",
                     (unsigned)(i % s->w), (unsigned)(i / s->w), (unsigned)s->px[i],
                     (unsigned)s->ncolors);
            return SIM_EFILE;
        }
    return 0;
}

void sim__cycle_note(char *notes, size_t cap, const char *msg)
{
    if (!notes || !cap) return;
    size_t n = strlen(notes), m = strlen(msg);
    if (n && n + 2 < cap) {
        memcpy(notes + n, "; ", 2);
        n += 2;
    }
    if (n + m >= cap) m = cap - 1 - n;
    memcpy(notes + n, msg, m);
    notes[n + m] = '\0';
}

void sim_cycle_palette_at(const sim_cycle_scene *s, uint64_t ticks, uint8_t *rgb)
{
    memcpy(rgb, s->rgb, (size_t)s->ncolors * 3);
    for (int i = 0; i < s->nranges; i++) {
        const sim_cycle_range *r = &s->ranges[i];
        if (!r->active || !r->rate) continue;
        uint64_t per = sim__cycle_period(r, s->timing);
        /* No overflow: CRNG periods are below 2^30 and a tick adds below 2^23; Canvas Cycle's
         * clock period is 2^50 and a tick adds 100. */
        uint64_t phase = ((ticks % per) * (sim__cycle_tick(r, s->timing, CYC_SPEED_UNIT) % per)) % per;
        sim__cycle_apply(r, s->timing, phase, rgb);
    }
}
