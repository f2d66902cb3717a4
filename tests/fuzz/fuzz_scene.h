/* fuzz_scene.h — a small palette-cycling scene made up in memory, and a file reader that hands
 * it to a cycle world as an ILBM (PBM) file (`scene=file:…`): make_corpus.c's scene seeds and
 * fuzz_replay.c's cycle world. */
#ifndef VIVARIUM_FUZZ_SCENE_H
#define VIVARIUM_FUZZ_SCENE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "cycle/scene.h"

/* w×h pixels of ncolors colours, with nranges cycle ranges of every direction and mode (range 4,
 * if any, inactive). Free with sim_cycle_scene_free. */
static inline void fuzz_make_scene(sim_cycle_scene *s, int w, int h, int ncolors, int nranges)
{
    memset(s, 0, sizeof *s);
    s->w = (uint16_t)w;
    s->h = (uint16_t)h;
    s->ncolors = (uint16_t)ncolors;
    for (int i = 0; i < ncolors * 3; i++) s->rgb[i] = (uint8_t)(i * 37 + 11);
    s->px = malloc((size_t)w * h);
    for (int i = 0; s->px && i < w * h; i++) s->px[i] = (uint8_t)((i * 7 + i / w) % ncolors);
    s->nranges = (uint8_t)nranges;
    for (int r = 0; r < nranges; r++) {
        sim_cycle_range *g = &s->ranges[r];
        g->low = (uint8_t)(r * 2 % (ncolors - 1));
        g->high = (uint8_t)(g->low + 1 + r % (ncolors - 1 - g->low));
        g->rate = (uint16_t)(r == 0 ? 16384 : 1000 * r + 7);
        g->dir = (uint8_t)(r % 3);
        g->mode = (uint8_t)(r / 3 % 2);
        g->active = (uint8_t)(r != 4);
    }
}

/* A sim_file_reader's read: the scene ud points to, as a PBM file, whatever the path. */
static inline int fuzz_scene_reader(void *ud, const char *path, uint8_t **data, size_t *len,
                                    char *err, size_t errlen)
{
    const sim_cycle_scene *s = ud;
    (void)path;
    size_t n = sim_cycle_to_ilbm(s, 1, NULL, 0);
    *data = malloc(n);
    if (!*data) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *len = sim_cycle_to_ilbm(s, 1, *data, n);
    return 0;
}

#endif
