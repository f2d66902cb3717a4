/* replay.h — recording, verification and export. For now: image export of index frames. */
#ifndef VIVARIUM_REPLAY_H
#define VIVARIUM_REPLAY_H
#include <stddef.h>
#include "sim.h"

/* Write frame f as an indexed-colour PNG (its palette, no quantisation), each pixel scaled to
 * scale×scale (1..16). Writes to a temporary name and renames, so a failure never leaves half a
 * file at `path`. 0, or -1 with a sentence in err. */
int rpl_png_write(const char *path, const sim_frame *f, int scale, char *err, size_t errlen);

/* Animated GIF, streamed frame by frame. hz/every set the delays (whole centiseconds, remainders
 * carried so the average rate is exact). Written to a temporary name and renamed by close. */
typedef struct rpl_gif rpl_gif;
rpl_gif *rpl_gif_open(const char *path, int w, int h, int scale, unsigned hz, unsigned every,
                      char *err, size_t errlen);
int rpl_gif_frame(rpl_gif *g, const sim_frame *f);        /* 0, or -1: see rpl_gif_error */
const char *rpl_gif_error(const rpl_gif *g);
uint64_t rpl_gif_frames(const rpl_gif *g);
int rpl_gif_close(rpl_gif *g, char *err, size_t errlen);  /* finishes and renames; frees g */
void rpl_gif_abort(rpl_gif *g);                           /* removes the partial file; frees g */

#endif
