/* pilot.c — the autopilot: after MERGE_IDLE_TICKS (5 s) with no player input it plays, so the
 * demo world is always alive. Its choices come from the world's "merge.pilot" stream.
 *
 * It aims the held fruit at the exposed fruit of the same kind (the one whose top is highest, so
 * the drop lands on it), or, when there is none, at a place its stream picks; walks there with the
 * carrier's own walk (so it leans, wiggles and dangles like a player); drops; then waits a
 * moment, as a person would, before choosing again. */
#include "merge_int.h"

#define PILOT_WAIT_MIN 20           /* ours: ticks between a drop and the next choice */
#define PILOT_WAIT_SPAN 50
#define PILOT_JITTER 3              /* ours: px either side of the aim, so it is not a machine */

static int16_t choose(merge_world *w)
{
    double r = sim__merge_desc[w->held.tier].r;
    int best = -1;
    for (int i = 0; i < w->nfruit; i++) {
        if (w->fruit[i].desc->tier != w->held.tier) continue;
        if (best < 0 || w->v.chunk[i].y - w->v.chunk[i].r < w->v.chunk[best].y - w->v.chunk[best].r)
            best = i;
    }
    double x;
    if (best >= 0) {
        x = w->v.chunk[best].x + (double)sim_rng_range(&w->pilot_rng, -PILOT_JITTER, PILOT_JITTER);
    } else {
        int lo = MERGE_X0 + (int)r + 1, hi = MERGE_X1 - (int)r - 1;
        x = (double)sim_rng_range(&w->pilot_rng, lo, hi);
    }
    return (int16_t)sim_snap(mg_clamp(x, MERGE_X0 + r + 1.0, MERGE_X1 - r - 1.0));
}

int sim__merge_pilot(merge_world *w, int *drop)
{
    *drop = 0;
    if (w->pilot_wait) {
        w->pilot_wait--;
        return 0;
    }
    if (w->pilot_x < 0) w->pilot_x = choose(w);
    double target = mg_clamp((double)w->pilot_x - MERGE_HAND_DX, w->ccfg.xmin, w->ccfg.xmax);
    int dir = sim__merge_carrier_dir_to(&w->car, &w->ccfg, target, MERGE_DT);
    if (dir == 0 && sim__merge_carrier_can_drop(&w->car)) {
        *drop = 1;
        w->pilot_x = -1;
        w->pilot_wait = (uint16_t)(PILOT_WAIT_MIN + sim_rng_below(&w->pilot_rng, PILOT_WAIT_SPAN));
    }
    return dir;
}
