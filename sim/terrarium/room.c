/* room.c — the terrarium's one authored room (seed 001): its eleven segments, the waypoint graph
 * over them, the path search, and where on the graph a point of the room is. Geometry only: no
 * creature and no state here, just the tables and lookups the bodies, limbs and brains share. */
#include "terrarium_int.h"

/* ---- the room -----------------------------------------------------------------------------------
 * Eleven segments typed in by hand, as the seed says a room is. The floor has a V-shaped gully in
 * the middle; two one-way planks, each with a pole up through it; the right-hand one, higher, is
 * the refuge. Walls, ceiling and floor run 24 units past each other into the rock at the room's
 * corners, and the two sides of the gully past each other at its bottom: concave corners must
 * overlap (verlet.h), or a chunk driven diagonally into one could end up beyond both segments. */
#define OVERLAP 24.0
const sim_seg terra_segs[TERRA_NSEG] = {
    [SEG_WALL_L] = { WALL_L, CEIL_Y - OVERLAP, WALL_L, FLOOR_Y + OVERLAP, SIM_SEG_SOLID },
    [SEG_WALL_R] = { WALL_R, FLOOR_Y + OVERLAP, WALL_R, CEIL_Y - OVERLAP, SIM_SEG_SOLID },
    [SEG_CEILING] = { WALL_R + OVERLAP, CEIL_Y, WALL_L - OVERLAP, CEIL_Y, SIM_SEG_SOLID },
    [SEG_FLOOR_L] = { WALL_L - OVERLAP, FLOOR_Y, 196.0, FLOOR_Y, SIM_SEG_SOLID },
    /* The gully's sides, 44 across and 18 down each, carried on 24 units past the bottom. */
    [SEG_GULLY_L] = { 196.0, FLOOR_Y, 240.0 + 44.0 * OVERLAP / 47.539, 256.0 + 18.0 * OVERLAP / 47.539,
                      SIM_SEG_SOLID },
    [SEG_GULLY_R] = { 240.0 - 44.0 * OVERLAP / 47.539, 256.0 + 18.0 * OVERLAP / 47.539, 284.0, FLOOR_Y,
                      SIM_SEG_SOLID },
    [SEG_FLOOR_R] = { 284.0, FLOOR_Y, WALL_R + OVERLAP, FLOOR_Y, SIM_SEG_SOLID },
    [SEG_PLANK_L] = { 56.0, 150.0, 150.0, 150.0, SIM_SEG_ONEWAY },
    [SEG_PLANK_R] = { 348.0, 124.0, 440.0, 124.0, SIM_SEG_ONEWAY },
    [SEG_POLE_L] = { 126.0, FLOOR_Y, 126.0, 144.0, SIM_SEG_POLE },
    [SEG_POLE_R] = { 372.0, FLOOR_Y, 372.0, 118.0, SIM_SEG_POLE },
};

const terra_node terra_nodes[TERRA_NNODE] = {
    { 40.0, FLOOR_Y, SEG_FLOOR_L },  { 126.0, FLOOR_Y, SEG_FLOOR_L }, { 240.0, 256.0, SEG_GULLY_L },
    { 320.0, FLOOR_Y, SEG_FLOOR_R }, { 372.0, FLOOR_Y, SEG_FLOOR_R }, { 452.0, FLOOR_Y, SEG_FLOOR_R },
    { 100.0, 150.0, SEG_PLANK_L },   { 410.0, 124.0, SEG_PLANK_R },
};

/* Nine edges: five walks along the floor, a pole up to each plank, a drop off the far end of
 * each. The lizard may not use pole edges, so the refuge is a node it reaches on no path. */
const terra_edge terra_edges[TERRA_NEDGE] = {
    { 0, 1, EDGE_WALK, -1 }, { 1, 2, EDGE_WALK, -1 }, { 2, 3, EDGE_WALK, -1 },
    { 3, 4, EDGE_WALK, -1 }, { 4, 5, EDGE_WALK, -1 },
    { 1, 6, EDGE_POLE, SEG_POLE_L }, { 4, 7, EDGE_POLE, SEG_POLE_R },
    { 6, 0, EDGE_DROP, -1 }, { 7, 5, EDGE_DROP, -1 },
};

/* ---- path search ---------------------------------------------------------------------------------- */
int terra__path(int from, int to, int can_climb, int *path, int max)
{
    if (from < 0 || from >= TERRA_NNODE || to < 0 || to >= TERRA_NNODE || max < 1) return 0;
    double best[TERRA_NNODE];
    int prev[TERRA_NNODE], done[TERRA_NNODE];
    for (int i = 0; i < TERRA_NNODE; i++) {
        best[i] = -1.0;
        prev[i] = -1;
        done[i] = 0;
    }
    best[from] = 0.0;
    for (;;) {
        int u = -1;
        for (int i = 0; i < TERRA_NNODE; i++)
            if (!done[i] && best[i] >= 0.0 && (u < 0 || best[i] < best[u])) u = i;
        if (u < 0 || u == to) break;
        done[u] = 1;
        for (int e = 0; e < TERRA_NEDGE; e++) {
            const terra_edge *ed = &terra_edges[e];
            if (ed->kind == EDGE_POLE && !can_climb) continue;
            int w;
            if (ed->a == u) w = ed->b;
            else if (ed->b == u && ed->kind == EDGE_WALK) w = ed->a;
            else continue;
            double d = best[u] + dist(terra_nodes[u].x, terra_nodes[u].y, terra_nodes[w].x,
                                      terra_nodes[w].y);
            if (!done[w] && (best[w] < 0.0 || d < best[w])) {
                best[w] = d;
                prev[w] = u;
            }
        }
    }
    if (best[to] < 0.0) return 0;
    int n = 0, rev[TERRA_NNODE];
    for (int v = to; v >= 0; v = prev[v]) rev[n++] = v;
    int out = n < max ? n : max;
    for (int i = 0; i < out; i++) path[i] = rev[n - 1 - i];
    return out;
}

/* The edge from a to b (either way for walks), or −1. */
int terra__edge_between(int a, int b)
{
    for (int e = 0; e < TERRA_NEDGE; e++) {
        const terra_edge *ed = &terra_edges[e];
        if (ed->a == a && ed->b == b) return e;
        if (ed->kind == EDGE_WALK && ed->b == a && ed->a == b) return e;
    }
    return -1;
}

/* ---- the ground, and where on the graph a place is ---------------------------------------------- */
/* Height of the floor line (not the planks) at x: where the floor's pieces overlap (the bottom
 * of the gully) the surface is the higher of them. */
double terra__floor_y(double x)
{
    double best = FLOOR_Y + 1000.0;
    for (int k = SEG_FLOOR_L; k <= SEG_FLOOR_R; k++) {
        const sim_seg *s = &terra_segs[k];
        if (x < s->ax || x > s->bx) continue;
        double y = s->ay + (s->by - s->ay) * ((x - s->ax) / (s->bx - s->ax));
        if (y < best) best = y;
    }
    return best;
}

/* The top of whatever lies under (x, y): a plank or the floor. */
double terra__ground_under(const terra_world *t, double x, double y)
{
    double gy;
    if (sim_verlet_ground(&t->v, x, y, 1000.0, &gy) >= 0) return gy;
    return terra__floor_y(x);
}

/* The floor waypoint (0..5) nearest to x. */
static int nearest_floor_node(double x)
{
    int best = 0;
    for (int n = 1; n < NFLOOR_NODES; n++)
        if (dabs(terra_nodes[n].x - x) < dabs(terra_nodes[best].x - x)) best = n;
    return best;
}

int terra__node_of_seg(int seg, double x)
{
    if (seg == SEG_PLANK_L) return NODE_PLANK_L;
    if (seg == SEG_PLANK_R) return NODE_REFUGE;
    if (seg >= SEG_FLOOR_L && seg <= SEG_FLOOR_R) return nearest_floor_node(x);
    return -1;
}
