/* mmpx.h — MMPX, a 2× magnifier for pixel art (seed 000 §2: "MMPX (McGuire and Gagiu 2021) is the
 * best palette-preserving 2x magnifier"; M. McGuire and M. Gagiu, "MMPX Style-Preserving Pixel
 * Art Magnification", Journal of Computer Graphics Techniques 10(2), 2021; the rules below are
 * the paper's, written again here from its published description and reference code, MIT).
 *
 * Each source pixel E becomes four, J K / L M, each either E or one of E's neighbours, chosen by
 * rules over E's 3×3 neighbourhood A B C / D E F / G H I and the four pixels two away, P (up),
 * Q (left), R (right), S (down), with a few reads three away; the image's edges are clamped:
 *
 *   1:1 slopes     a corner takes the neighbour colour its two edge neighbours share, when that
 *                  colour is a line passing diagonally (not a solid block) and E is not the darker
 *                  line's own body;
 *   intersections  a one-pixel line crossing a field keeps its width (E takes the line across);
 *   2:1 slopes     a step of a shallow or steep line is split so the line runs straight.
 *
 * Every output pixel is a pixel of the source's neighbourhood: the palette is kept exactly (no
 * new index can appear), a lone pixel becomes a 2×2 block, and a flat area stays flat. "Darker"
 * is the paper's luma, r + g + b + 1 from the palette. Pixels are compared by index: two indexes
 * of the same colour count as different colours, as they do everywhere else in Vivarium.
 *
 * A pure function of a frame, for exports and viewers (a GIF or PNG at 2×, 4× by applying it
 * twice); the worlds never call it — a frame stays at its native resolution. Allocates nothing. */
#ifndef VIVARIUM_SIM_MMPX_H
#define VIVARIUM_SIM_MMPX_H
#include "sim.h"

/* dst = MMPX 2× of src: dst must be exactly 2·src->w × 2·src->h (sim_frame_init), and not src.
 * The palette is copied. 0, or SIM_EINVAL (a size mismatch, no pixels, dst is src). */
int sim_mmpx_2x(const sim_frame *src, sim_frame *dst);

#endif
