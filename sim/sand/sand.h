/* sand.h — private to sim/sand/ and its tests: the elements, cell flags, chunk size, and the
 * inspection helpers that tests and benchmarks use. The rest of the kind's internals are in
 * sand_int.h, which includes this file. */
#ifndef VIVARIUM_SAND_H
#define VIVARIUM_SAND_H
#include "sim_internal.h"

enum {
    SAND_EMPTY, SAND_WALL, SAND_STONE, SAND_SAND, SAND_WATER, SAND_OIL, SAND_ACID, SAND_LAVA,
    SAND_WOOD, SAND_ICE, SAND_FIRE, SAND_SMOKE, SAND_STEAM, SAND_GAS, SAND_NELEMENTS
};

/* Cell flags (bits 16..23 of a cell). */
enum { SAND_F_LOOSE = 1, SAND_F_BURNING = 2 };

/* Chunks and strips (docs/sand.md, "Passes"). A chunk is SAND_CHUNK × SAND_CHUNK cells with one
 * dirty rectangle (Noita uses 64; 16 sleeps finer at 320×180). A strip is a column of chunks, the
 * world's full height: the unit of parallel work. Strip k runs in phase k mod SAND_PHASES; the
 * strips of one phase may run at the same time, because one cell's update reads and writes only
 * cells within SAND_REACH of it (sand_int.h proves the bound and checks the layout against it). */
#define SAND_CHUNK 16
#define SAND_PHASES 3
#define SAND_REACH 8

/* The largest world (params w and h). The width is the frame's limit (sim_frame_init, the tile
 * codec: 4096); the height keeps a 4096×2048 world's memory near 130 MB (a u32 cell, four bytes
 * of per-position picture, a moved byte, the render's depth key and bookkeeping (redraw.c), the
 * saved-state scratch). The saved state's u16 sizes, the u16 dirty rectangles and the renderer's
 * int16_t column scratch hold either (sand_int.h). */
#define SAND_W_MAX 4096
#define SAND_H_MAX 2048

typedef struct sand_world sand_world;

/* Inspection for tests: the element at (x, y) (SAND_WALL outside), the raw cell, chunk state. */
int sand__element(const void *impl, int x, int y);
uint32_t sand__cell(const void *impl, int x, int y);
int sand__chunk_awake(const void *impl, int cx, int cy);   /* due to be processed next tick */
int sand__count(const void *impl, int element);
uint64_t sand__active_cells(const void *impl);   /* cells in the rectangles of the last step */
void sand__size(const void *impl, int *w, int *h);
/* For the tests of the pass layout: a copy of the cells row by row (w×h of them into out), the
 * cell at (x, y) to change in place (NULL outside), a chunk's rectangle for the next tick (0 and
 * x0..y1, or -1 when it sleeps), and the strip that item `item` of a pass runs (the task_ctx a
 * sim_task_fn of the sand step receives). */
void sand__cells_copy(const void *impl, uint32_t *out);
uint32_t *sand__cell_at(void *impl, int x, int y);
int sand__next_rect(const void *impl, int cx, int cy, int r[4]);
int sand__strip_of(const void *task_ctx, int item);
/* Pixels the last render drew (redraw.c): w·h when it drew the whole frame. */
uint64_t sand__painted(const void *impl);
/* For tests: how many workers drew pixels at the last render (1 when it ran on one thread). */
int sand__render_workers(const void *impl);
void *sim__world_impl(sim_world *w);

#endif
