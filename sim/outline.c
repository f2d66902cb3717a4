/* outline.c — a shape with a 1-px outer outline (outline.h). */
#include "outline.h"

void sim_draw_outlined(sim_frame *f, sim_shape_fn fn, const void *ud, uint8_t fill, int outline)
{
    if (outline >= 0 && outline <= 255) {
        /* the shape dilated by the plus-shaped neighbourhood, then the shape over it */
        static const int off[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
        for (int i = 0; i < 4; i++) fn(ud, f, off[i][0], off[i][1], (uint8_t)outline);
    }
    fn(ud, f, 0, 0, fill);
}
