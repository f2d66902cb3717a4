/* check_scene.h — fixtures shared by the cycle world's suites (check_scene.c defines them):
 * scenes in memory, a file reader serving one blob, a scratch directory, netpbm inputs, IFF chunk
 * surgery, and a decode that proves its result valid. tests/check_scene.c, check_ilbm.c,
 * check_ccjson.c and check_cycle.c use them. */
#ifndef VIV_TEST_CHECK_SCENE_H
#define VIV_TEST_CHECK_SCENE_H
#include <stddef.h>
#include <stdint.h>
#include "cycle/cycle.h"

/* A sim_file_reader serving one blob from memory, whatever the path; counts its calls. */
typedef struct cyc_memfile {
    const uint8_t *data;
    size_t len;
    int calls;
} cyc_memfile;
int cyc_mem_read(void *ud, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);
/* A cycle world whose file reads come from mf (NULL: no file access); NULL on failure, as
 * sim_world_create. */
sim_world *cyc_world_files(uint64_t seed, const char *params, cyc_memfile *mf, int *rc, char *err,
                           size_t errlen);
/* Queue one input by its text for the world's next tick; it must be accepted. */
void cyc_in(sim_world *w, const char *text);

/* A small scene: 16 distinct colours, a 8×4 image using all of them, one range. */
void cyc_tiny_scene(sim_cycle_scene *sc, int low, int high, int rate, int dir, int mode);
int cyc_scenes_equal(const sim_cycle_scene *a, const sim_cycle_scene *b);
/* Decode with sim_cycle_from_bytes and, if it decodes, prove the result a valid scene; a failure
 * must leave no pixels and carry a sentence. Returns the decoder's code. */
int cyc_try_decode(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* A valid ILBM (pbm 0) or PBM (1) with every chunk we write; malloc'd, length in *n. */
uint8_t *cyc_valid_ilbm(size_t *n, int pbm);

/* A path in this test's scratch directory (made on first use); cyc_tmp_teardown, a checked
 * fixture, removes the directory. */
const char *cyc_tmp(const char *name);
void cyc_tmp_teardown(void);
uint8_t *cyc_slurp(const char *path, size_t *len);             /* a whole file, malloc'd */
/* A PPM with `ncol` distinct colours (ncol ≤ 255): w×h, pixel colours from a pattern. Returns
 * the RGB pixels (malloc'd). */
uint8_t *cyc_write_ppm(const char *path, int w, int h, int ncol);
/* Append a chunk to an IFF file in memory (padding to even first) and fix the FORM length. */
uint8_t *cyc_append_chunk(uint8_t *buf, size_t *len, const char *id, const uint8_t *data, size_t n);
void cyc_crng(uint8_t *c, int rate, int flags, int low, int high);   /* an 8-byte CRNG body */

#endif
