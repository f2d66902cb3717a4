/* replay.h — recording, verification and export. For now: image export of index frames. */
#ifndef VIVARIUM_REPLAY_H
#define VIVARIUM_REPLAY_H
#include <stddef.h>
#include "sim.h"

/* Write frame f as an indexed-colour PNG (its palette, no quantisation), each pixel scaled to
 * scale×scale (1..16). Writes to a temporary name and renames, so a failure never leaves half a
 * file at `path`. 0, or -1 with a sentence in err. */
int rpl_png_write(const char *path, const sim_frame *f, int scale, char *err, size_t errlen);

#endif
