/* scene.h — the public API of the cycle world kind (sim/cycle/; docs/cycle.md): its scene type,
 * the scene importers and exporters, and a copy of a live world's scene. Include it as
 * "cycle/scene.h" (every folder that may use sim/ has -Isim); sim.h holds only the generic API.
 *
 * A scene is an index image, a palette and up to 16 cycle ranges: what the cycle world is built
 * from and what its importers and exporters read and write. A scene plays by one of two clocks:
 * the IFF CRNG convention (rate 16384 is 60 steps a second, exact integers: procedural scenes,
 * ILBM files, our own JSON), or Canvas Cycle's own palette code (rate/280 steps a second, its
 * 1/100 quantisation and floored blend: scenes that come from Canvas Cycle; docs/cycle.md). The
 * codecs are pure functions on bytes in memory (the caller reads and writes files): bad bytes
 * give SIM_EFILE and a sentence, never a crash. */
#ifndef VIVARIUM_CYCLE_SCENE_H
#define VIVARIUM_CYCLE_SCENE_H

#include "sim.h"

#define SIM_CYCLE_MAX_W 640
#define SIM_CYCLE_MAX_H 480
#define SIM_CYCLE_MAX_RANGES 16
#define SIM_CYCLE_RATE_MAX 65535      /* 240 steps a second */
/* Directions. The two sine swings are Canvas Cycle's reverse 4 and 5, for Canvas Cycle timing
 * only: the rotation sways along a sine between 0 and size/2 steps (SINE_HALF) or 0 and size steps
 * (SINE_FULL), one sway in the time a forward range takes to go round (docs/cycle.md). */
enum { SIM_CYCLE_FORWARD, SIM_CYCLE_REVERSE, SIM_CYCLE_PINGPONG, SIM_CYCLE_SINE_HALF,
       SIM_CYCLE_SINE_FULL };
enum { SIM_CYCLE_STANDARD, SIM_CYCLE_BLEND };
/* Timing: which clock and arithmetic a scene's ranges play by. */
enum { SIM_CYCLE_TIMING_CRNG, SIM_CYCLE_TIMING_CANVAS };

typedef struct sim_cycle_range {
    uint8_t low, high;                /* palette entries low..high, low < high < ncolors */
    uint16_t rate;                    /* CRNG timing: 16384 = 60 steps a second; Canvas Cycle
                                         timing: its own rate, rate/280 steps a second; 0 = still */
    uint8_t dir;                      /* SIM_CYCLE_FORWARD, _REVERSE, _PINGPONG; the _SINE_ two
                                         only with Canvas Cycle timing */
    uint8_t mode;                     /* SIM_CYCLE_STANDARD or _BLEND (BlendShift) */
    uint8_t active;                   /* 0: the range rests at its base colours */
} sim_cycle_range;

typedef struct sim_cycle_scene {
    uint16_t w, h;                    /* 1..640 × 1..480 */
    uint16_t ncolors;                 /* 1..256; every pixel is below it */
    uint8_t rgb[SIM_PALETTE_MAX * 3]; /* the base palette (tick 0) */
    uint8_t nranges;
    uint8_t timing;                   /* SIM_CYCLE_TIMING_CRNG (0) or _CANVAS */
    sim_cycle_range ranges[SIM_CYCLE_MAX_RANGES];
    uint8_t *px;                      /* w·h indexes, row-major, malloc'd */
} sim_cycle_scene;

/* ---- the scene type (scene.c) ---- */
void sim_cycle_scene_free(sim_cycle_scene *s);          /* frees px; s may be all zeros */
/* Check every invariant above. 0, or SIM_EFILE with a sentence. */
int sim_cycle_scene_check(const sim_cycle_scene *s, char *err, size_t errlen);

/* The palette of scene s after `ticks` ticks at 60 Hz and speed 100 with every active range
 * cycling: what a fresh cycle world built from s shows at that tick, by the scene's timing.
 * rgb holds 3·ncolors bytes. */
void sim_cycle_palette_at(const sim_cycle_scene *s, uint64_t ticks, uint8_t *rgb);

/* ---- decoders (ilbm.c, ccjson.c; import.c chooses between them) ---- */
/* Decoders. On success *out owns a new pixel buffer; on failure *out is all zeros. notes (may be
 * NULL) receives what was adjusted on the way in (ranges dropped or clamped), or "". */
int sim_cycle_from_ilbm(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                        size_t noteslen, char *err, size_t errlen);    /* IFF ILBM and PBM */
int sim_cycle_from_ccjson(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                          size_t noteslen, char *err, size_t errlen);  /* Canvas Cycle JSON/JS */
/* Either of the above, chosen by the bytes ("FORM", or a JSON/JavaScript object, bare or in a
 * `name(…)` call or a `name = …` assignment). */
int sim_cycle_from_bytes(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                         size_t noteslen, char *err, size_t errlen);

/* ---- encoders (ilbm.c, ccjson.c) ---- */
/* Encoders: write into buf and return the full length, which may exceed cap (then only cap bytes
 * were written: call again with a buffer that large). 0 if the scene is invalid. */
size_t sim_cycle_to_ilbm(const sim_cycle_scene *s, int pbm, uint8_t *buf, size_t cap);
size_t sim_cycle_to_ccjson(const sim_cycle_scene *s, const char *filename, uint8_t *buf,
                           size_t cap);

/* ---- the world (cycle.c) ---- */
/* A copy of a cycle world's scene as it is now (ranges with their current modes and on/off;
 * the base palette, not the cycled one). 0, SIM_EWRONGKIND for another kind, or SIM_ENOMEM. */
int sim_cycle_world_scene(sim_world *w, sim_cycle_scene *out);

#endif
