/* art_int.h — what the files of the fruit-merge world's art share; art.h is their contract with
 * the world. art.c holds the palette and builds and frees the whole set, calling the two builders
 * below; art_fruit.c paints and bakes the fruit, art_carrier.c the carrier's parts (and draws the
 * carrier and its hands), art_eyes.c, art_text.c and art_backdrop.c draw on a frame. */
#ifndef VIVARIUM_SIM_MERGE_ART_INT_H
#define VIVARIUM_SIM_MERGE_ART_INT_H
#include <stdint.h>
#include "sim_internal.h"
#include "anim/rotsprite.h"
#include "art.h"

/* Paint the eleven fruit into the sprite memory at *p (each (2r+1)², tier by tier; *p is left
 * past them) and bake their turned images: fruit_rot for every tier, fruit_rot_fine for the
 * carried ones. 0, SIM_ENOMEM or the bake's error; on a failure what was baked stays in `a` for
 * sim__merge_art_free. Allocates, so create time only. */
int sim__merge_art_build_fruit(merge_art *a, uint8_t **p);
/* Paint the carrier's parts into the sprite memory at *p (head, hat, body, open and closed hand;
 * *p is left past them) and bake head_rot and hat_rot as lean sets, the face stamped upright on
 * every head image and on the upright head. Returns and failures as the fruit's. */
int sim__merge_art_build_carrier(merge_art *a, uint8_t **p);

/* The sprite over w × h pixels at px, keyed on MERGE_C_CLEAR. */
static inline sim_sprite sim__merge_sprite_at(uint8_t *px, int w, int h)
{
    sim_sprite s = { (uint16_t)w, (uint16_t)h, px, MERGE_C_CLEAR };
    return s;
}

/* One pixel of colour c at (x, y), nothing outside the frame. */
static inline void sim__merge_px_put(sim_frame *f, int x, int y, uint8_t c)
{
    if (x >= 0 && y >= 0 && x < f->w && y < f->h)
        f->px[(size_t)y * f->w + x] = c;
}
#endif
