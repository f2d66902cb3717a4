/* srv_rig.h — a server with one sand world and no socket, for suites that drive server/ by hand
 * (check_fanout, check_metrics). The caller owns the loop, the srv and its network state (zeroed
 * here) and keeps them with whatever else its rig needs. */
#ifndef VIVARIUM_TESTS_SRV_RIG_H
#define VIVARIUM_TESTS_SRV_RIG_H
#include "network.h"

/* Start them, world 1 a sand world of seed 1 and default params; returns it. Asserts (Check). */
srv_world *srv_rig_up(uv_loop_t *loop, srv *s, srv_net *net);
/* The network state, the worlds and the loop, gone. */
void srv_rig_down(uv_loop_t *loop, srv *s);

#endif
