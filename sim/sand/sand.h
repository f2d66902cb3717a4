/* sand.h — private to sim/sand/sand.c and its tests: cell layout and inspection helpers. */
#ifndef VIVARIUM_SAND_H
#define VIVARIUM_SAND_H
#include "sim_internal.h"

enum {
    SAND_EMPTY, SAND_WALL, SAND_STONE, SAND_SAND, SAND_WATER, SAND_OIL, SAND_ACID, SAND_LAVA,
    SAND_WOOD, SAND_ICE, SAND_FIRE, SAND_SMOKE, SAND_STEAM, SAND_GAS, SAND_NELEMENTS
};

/* Cell flags (bits 16..23 of a cell). */
enum { SAND_F_LOOSE = 1, SAND_F_BURNING = 2 };

#define SAND_CHUNK 32               /* chunk side: Noita uses 64; 32 sleeps finer at 320×180 */

typedef struct sand_world sand_world;

/* Inspection for tests: the element at (x, y) (SAND_WALL outside), the raw cell, chunk state. */
int sand__element(const void *impl, int x, int y);
uint32_t sand__cell(const void *impl, int x, int y);
int sand__chunk_awake(const void *impl, int cx, int cy);   /* due to be processed next tick */
int sand__count(const void *impl, int element);
uint64_t sand__active_cells(const void *impl);   /* cells in the rectangles of the last step */
void sand__size(const void *impl, int *w, int *h);
void *sim__world_impl(sim_world *w);

#endif
