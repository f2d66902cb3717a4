/* nav.c — getting about: choosing a goal, following the waypoint graph toward it, and climbing
 * a pole on cling pins (the pins the brains own) onto the plank at its top. Writes a direction
 * and a target speed for the body (body.c) to act on. */
#include "terrarium_int.h"

/* ---- numbers ------------------------------------------------------------------------------------
 * From seed 001 unless marked "ours". */
#define CLIMB_SPEED 50.0             /* ours: units/s up a pole */
#define CLING_STIFF 0.3              /* ours: the pole cling pins */
#define MOUNT_TICKS 12               /* ours: from the top of a pole onto its plank */

/* ---- cling pins: the pins a climb owns ------------------------------------------------------- */
static uint32_t cling_tag(int ci, int k) { return CLING_TAG | ((uint32_t)ci << 4) | (uint32_t)k; }

void terra__release_cling(terra_world *t, int ci)
{
    for (int k = 0; k < 3; k++) {
        int p = sim_verlet_pin_find(&t->v, cling_tag(ci, k));
        if (p >= 0) sim_verlet_pin_remove(&t->v, p);
    }
}

static void set_cling(terra_world *t, int ci, int k, double x, double y)
{
    int p = sim_verlet_pin_find(&t->v, cling_tag(ci, k));
    if (p >= 0) {
        t->v.pin[p].x = x;
        t->v.pin[p].y = y;
    }
}

/* Pick somewhere to go: any floor node for a lizard; for a scrambler, now and then the top of a
 * pole (it climbs for fun). Never where it already is. */
void terra__choose_goal(terra_creature *c)
{
    int g;
    for (int tries = 0; tries < 8; tries++) {
        if (c->species == SPECIES_SCRAMBLER && sim_rng_below(&c->rng, 10) < 3)
            g = NFLOOR_NODES + (int)sim_rng_below(&c->rng, 2);
        else
            g = (int)sim_rng_below(&c->rng, NFLOOR_NODES);
        if (g != c->at) {
            c->goal = (int16_t)g;
            return;
        }
    }
    c->goal = (int16_t)(c->at == 0 ? NFLOOR_NODES - 1 : 0);
}

static void start_climb(terra_world *t, terra_creature *c, int ci, int pole)
{
    c->nav = NAV_CLIMB;
    c->climb_seg = (int16_t)pole;
    c->climb_y = cchunk(t, c, 1)->y;
    c->mount = 0.0;
    for (int k = 0; k < 3; k++) {
        const sim_chunk *ch = cchunk(t, c, k);
        sim_verlet_pin_add(&t->v, terra__chunk(t, c, k), cling_tag(ci, k), ch->x, ch->y, CLING_STIFF);
    }
}

/* Climbing: the cling pins hold head, chest and hips on the pole and move up it; at the top they
 * carry the body over onto the plank (which it passes up through: one-way), then let go. */
static void climb_step(terra_world *t, terra_creature *c, int ci)
{
    const terra_species *sp = spec(c);
    const sim_seg *pole = &terra_segs[c->climb_seg];
    int top = -1;
    for (int e = 0; e < TERRA_NEDGE; e++)
        if (terra_edges[e].pole == c->climb_seg) top = terra_edges[e].b;
    double px = pole->ax, plank_y = terra_nodes[top].y, stand_y = plank_y - sp->ride;
    c->dir_x = c->dir_y = c->speed = 0.0;
    if (c->nav == NAV_CLIMB) {
        c->climb_y -= CLIMB_SPEED * DT;
        if (c->climb_y <= stand_y - 2.0) {
            c->climb_y = stand_y - 2.0;
            c->nav = NAV_MOUNT;
            c->mount = 0.0;
        }
    } else {
        c->mount += 1.0 / MOUNT_TICKS;
    }
    double f = sgn(terra_nodes[top].x - px);
    if (f == 0.0) f = c->facing;
    double m = c->nav == NAV_MOUNT ? dmin(1.0, c->mount) : 0.0;
    double cy = c->climb_y;
    double up[3][2] = { { px, cy - sp->neck }, { px, cy }, { px, cy + sp->back } };
    double sx = px + f * 6.0;
    double on[3][2] = { { sx + f * sp->neck, stand_y }, { sx, stand_y }, { sx - f * sp->back, stand_y } };
    for (int k = 0; k < 3; k++)
        set_cling(t, ci, k, up[k][0] + (on[k][0] - up[k][0]) * m, up[k][1] + (on[k][1] - up[k][1]) * m);
    if (c->nav == NAV_MOUNT && c->mount >= 1.0) {
        terra__release_cling(t, ci);
        c->nav = NAV_WALK;
        c->climb_seg = -1;
        c->at = (int16_t)top;
        c->facing = (int8_t)f;
    }
}

/* Head for the goal over the waypoint graph. Writes the direction and speed; returns 1 on
 * arrival (or when the goal cannot be reached, which clears it). */
int terra__nav_step(terra_world *t, terra_creature *c, int ci, double speed)
{
    c->dir_x = c->dir_y = c->speed = 0.0;
    if (c->nav != NAV_WALK) {
        climb_step(t, c, ci);
        return 0;
    }
    if (c->goal < 0) return 1;
    if (c->at < 0) return 0;                       /* in the air: wait to land somewhere */
    const sim_chunk *ch = cchunk(t, c, 1);
    if (c->at == c->goal) {
        /* Close enough: 6 units ahead, or a body length behind (not worth turning round for). */
        double dx = terra_nodes[c->goal].x - ch->x;
        if (dabs(dx) < (dx * c->facing < 0.0 ? 2.0 * spec(c)->back : 6.0)) return 1;
        c->dir_x = sgn(dx);
        c->speed = speed;
        return 0;
    }
    int path[TERRA_NNODE];
    int n = terra__path(c->at, c->goal, c->species == SPECIES_SCRAMBLER, path, TERRA_NNODE);
    if (n < 2) {
        c->goal = -1;
        return 1;
    }
    const terra_edge *e = &terra_edges[terra__edge_between(path[0], path[1])];
    if (e->kind == EDGE_POLE) {
        double dx = terra_segs[e->pole].ax - ch->x;
        if (dabs(dx) > 4.0) {
            c->dir_x = sgn(dx);
            c->speed = dmin(speed, spec(c)->walk);
        } else if (terra__planted(c) >= 2) {
            start_climb(t, c, ci, e->pole);
        }
        return 0;
    }
    if (e->kind == EDGE_DROP) {
        /* Walk off the end of the plank and keep going until it lands: the edge's direction, not
         * the way to the node below, which sits just past the plank's end. Aiming at the node
         * turns the creature round over the drop, where it hangs by its feet, dithering. */
        c->dir_x = sgn(terra_nodes[path[1]].x - terra_nodes[path[0]].x);
        c->speed = speed;
        return 0;
    }
    c->dir_x = sgn(terra_nodes[path[1]].x - ch->x);
    c->speed = speed;
    return 0;
}
