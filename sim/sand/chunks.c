/* chunks.c — chunk bookkeeping: waking the dirty rectangles of every chunk a box touches, and the
 * chunk state that tests inspect. The per-cell marking the step does in its inner loops is
 * `static inline` in sand_int.h (mark, keep_awake, rect_add). */
#include "sand_int.h"

void sim__sand_wake_box(sand_world *s, int x0, int y0, int x1, int y1)
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= s->w) x1 = s->w - 1;
    if (y1 >= s->h) y1 = s->h - 1;
    if (x0 > x1 || y0 > y1) return;
    for (int cy = y0 / SAND_CHUNK; cy <= y1 / SAND_CHUNK; cy++) {
        int ya = cy * SAND_CHUNK, yb = ya + SAND_CHUNK - 1;
        for (int cx = x0 / SAND_CHUNK; cx <= x1 / SAND_CHUNK; cx++) {
            int xa = cx * SAND_CHUNK, xb = xa + SAND_CHUNK - 1;
            rect_add(rect_at(s, s->nxt, cx, cy), x0 > xa ? x0 : xa, y0 > ya ? y0 : ya,
                     x1 < xb ? x1 : xb, y1 < yb ? y1 : yb);
        }
    }
}

int sand__chunk_awake(const void *impl, int cx, int cy)
{
    const sand_world *s = impl;
    if (cx < 0 || cy < 0 || cx >= s->ncx || cy >= s->ncy) return 0;
    return !rect_empty(rect_at(s, s->nxt, cx, cy));
}

uint64_t sand__active_cells(const void *impl)
{
    return ((const sand_world *)impl)->stat_active;
}

void sand__cells_copy(const void *impl, uint32_t *out)
{
    const sand_world *s = impl;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) *out++ = s->cells[cidx(s, x, y)];
}

uint32_t *sand__cell_at(void *impl, int x, int y)
{
    sand_world *s = impl;
    return inside(s, x, y) ? &s->cells[cidx(s, x, y)] : NULL;
}

int sand__next_rect(const void *impl, int cx, int cy, int r[4])
{
    const sand_world *s = impl;
    if (cx < 0 || cy < 0 || cx >= s->ncx || cy >= s->ncy) return -1;
    const rect16 *q = rect_at(s, s->nxt, cx, cy);
    if (rect_empty(q)) return -1;
    r[0] = q->x0; r[1] = q->y0; r[2] = q->x1; r[3] = q->y1;
    return 0;
}
