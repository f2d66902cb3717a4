/* check_verlet.c — the Verlet frame on its own: the solve order and weighting, collision (the
 * side kept, the displacement cap, one-way planks, poles, the friction), makeRope, pins, terrain
 * queries, and save/load with every refusal. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "anim/verlet.h"

#define DT (1.0 / 40.0)

/* A closed box 0..400 × 0..300 (y down) plus whatever the test adds. Its sides run 20 units
 * past the corners: at a concave corner the segments must overlap, or a chunk driven diagonally
 * into it ends beyond both of them (see verlet.h). */
static sim_seg segs[16];
static int nsegs;

static void box(void)
{
    nsegs = 0;
    segs[nsegs++] = (sim_seg){ 0, -20, 0, 320, SIM_SEG_SOLID };      /* left wall, opens +x */
    segs[nsegs++] = (sim_seg){ 400, 320, 400, -20, SIM_SEG_SOLID };  /* right wall */
    segs[nsegs++] = (sim_seg){ 420, 0, -20, 0, SIM_SEG_SOLID };      /* ceiling */
    segs[nsegs++] = (sim_seg){ -20, 300, 420, 300, SIM_SEG_SOLID };  /* floor, opens up */
}

static void mk(sim_verlet *v, double gravity, double drag)
{
    ck_assert_int_eq(sim_verlet_init(v, 256, 256, 16, 32), 0);
    v->dt = DT;
    v->gravity = gravity;
    v->drag = drag;
    v->seg = segs;
    v->nseg = nsegs;
}

static double len(double x, double y) { return sqrt(x * x + y * y); }

/* Distance from (x, y) to segment s, and whether it lies on the segment's open side. */
static double seg_dist(const sim_seg *s, double x, double y)
{
    double qx, qy;
    return sqrt(sim_seg_closest(s, x, y, &qx, &qy, NULL));
}

/* ---- the solve ------------------------------------------------------------------------------- */
START_TEST(link_weighted_by_inverse_mass)
{
    nsegs = 0;
    sim_verlet v;
    mk(&v, 0.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int a = sim_verlet_add_chunk(&v, 100, 100, 2, 1.0);
    int b = sim_verlet_add_chunk(&v, 120, 100, 2, 3.0);
    ck_assert_int_ge(sim_verlet_add_link(&v, a, b, 10.0, 1.0), 0);
    sim_verlet_step(&v);
    /* The light end moves three times as far as the heavy one, and the gap is right. */
    double da = v.chunk[a].x - 100.0, db = 120.0 - v.chunk[b].x;
    ck_assert_double_eq_tol(da, 7.5, 1e-9);
    ck_assert_double_eq_tol(db, 2.5, 1e-9);
    ck_assert_double_eq_tol(v.chunk[b].x - v.chunk[a].x, 10.0, 1e-9);
    sim_verlet_free(&v);
}
END_TEST

START_TEST(soft_link_corrects_part_per_pass)
{
    nsegs = 0;
    sim_verlet v;
    mk(&v, 0.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int a = sim_verlet_add_chunk(&v, 0, 0, 1, 1.0);
    int b = sim_verlet_add_chunk(&v, 20, 0, 1, 1.0);
    sim_verlet_add_link(&v, a, b, 10.0, 0.06);
    sim_verlet_step(&v);
    /* Four passes at 0.06: the error shrinks by 0.94⁴. */
    double gap = v.chunk[b].x - v.chunk[a].x;
    ck_assert_double_eq_tol(gap - 10.0, 10.0 * 0.94 * 0.94 * 0.94 * 0.94, 1e-9);
    sim_verlet_free(&v);
}
END_TEST

START_TEST(rope_is_ten_chunks_at_ten)
{
    box();
    sim_verlet v;
    mk(&v, 540.0, 0.0);
    int b = sim_verlet_make_rope(&v, 3, 50, 50, 1, 0);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(v.body[0].nc, SIM_ROPE_CHUNKS);
    ck_assert_int_eq(v.nchunk, 10);
    ck_assert_int_eq(v.nlink, 9);
    for (int i = 0; i < 10; i++) ck_assert_double_eq(v.chunk[i].r, 4.5);
    for (int i = 0; i < 9; i++) {
        ck_assert_double_eq(v.link[i].rest, 10.0);
        ck_assert_double_eq(v.link[i].stiff, 1.0);
    }
    ck_assert_int_eq(v.body[0].kind, 3);
    sim_verlet_free(&v);
}
END_TEST

/* A rope pinned at one end, let go horizontally, hangs straight down. */
START_TEST(pinned_rope_hangs_straight)
{
    box();
    sim_verlet v;
    mk(&v, 540.0, 0.01);
    sim_verlet_make_rope(&v, 0, 200, 40, 1, 0);
    ck_assert_int_ge(sim_verlet_pin_add(&v, 0, 7, 200, 40, 1.0), 0);
    for (int t = 0; t < 3000; t++) sim_verlet_step(&v);
    /* Straight down; each link stretched a little by the weight below it (four passes are not a
     * rigid solve: "push hard enough and it stretches"), the top link most. */
    ck_assert_double_eq(v.chunk[0].x, 200.0);
    ck_assert_double_eq(v.chunk[0].y, 40.0);
    for (int i = 0; i < 10; i++)
        ck_assert_msg(fabs(v.chunk[i].x - 200.0) < 0.5, "chunk %d at x %.3f", i, v.chunk[i].x);
    for (int i = 1; i < 10; i++) {
        double gap = v.chunk[i].y - v.chunk[i - 1].y;
        ck_assert_msg(gap > 10.0 - 1e-6 && gap < 11.5, "link %d is %.3f long", i - 1, gap);
    }
    sim_verlet_free(&v);
}
END_TEST

/* ---- collision ---------------------------------------------------------------------------------- */
static double penetration(const sim_verlet *v, int i)
{
    double worst = 0.0;
    const sim_chunk *c = &v->chunk[i];
    for (int k = 0; k < v->nseg; k++) {
        if (v->seg[k].kind != SIM_SEG_SOLID) continue;
        double d = seg_dist(&v->seg[k], c->x, c->y);
        if (c->r - d > worst) worst = c->r - d;
    }
    /* Outside the box counts as deep inside. */
    if (c->x < 0 || c->x > 400 || c->y < 0 || c->y > 300) worst = 1e9;
    return worst;
}

/* Chunks flung about a box with a slanted solid segment and pulled into the walls by pins:
 * none stays inside a solid segment (by more than a quarter unit) for more than one tick, none
 * leaves the box, and none moves more than 9 units in a tick. */
START_TEST(never_inside_solid_and_capped)
{
    box();
    segs[nsegs++] = (sim_seg){ 100, 200, 300, 150, SIM_SEG_SOLID };
    segs[nsegs++] = (sim_seg){ 250, 80, 350, 120, SIM_SEG_SOLID };
    sim_verlet v;
    mk(&v, 540.0, 0.0);
    sim_rng rng;
    sim_rng_seed(&rng, 5, 1);
    sim_verlet_body_begin(&v, 0);
    for (int i = 0; i < 60; i++)
        sim_verlet_add_chunk(&v, 20 + sim_rng_unit(&rng) * 360, 20 + sim_rng_unit(&rng) * 100,
                             1.0 + sim_rng_unit(&rng) * 5.0, 0.5 + sim_rng_unit(&rng));
    sim_verlet_make_rope(&v, 0, 30, 30, 1, 0);
    int inside[80] = { 0 };
    double px[80], py[80];
    int max_run = 0;
    double max_step = 0.0;
    for (int t = 0; t < 4000; t++) {
        if (t % 50 == 0) {
            /* Fling everything: up to 30 units a tick, far past the cap. */
            for (int i = 0; i < v.nchunk; i++) {
                v.chunk[i].px = v.chunk[i].x - (sim_rng_unit(&rng) - 0.5) * 60.0;
                v.chunk[i].py = v.chunk[i].y - (sim_rng_unit(&rng) - 0.5) * 60.0;
            }
        }
        if (t % 200 == 0) {
            /* Drag a chunk hard into (and through) a wall, the floor, the slanted segment. */
            if (v.npin) sim_verlet_pin_remove(&v, 0);
            static const double targets[4][2] = { { -50, 150 }, { 200, 400 }, { 200, 100 }, { 450, 50 } };
            int k = (t / 200) % 4;
            sim_verlet_pin_add(&v, (t / 200) % v.nchunk, 1, targets[k][0], targets[k][1], 0.4);
        }
        for (int i = 0; i < v.nchunk; i++) {
            px[i] = v.chunk[i].x;
            py[i] = v.chunk[i].y;
        }
        sim_verlet_step(&v);
        for (int i = 0; i < v.nchunk; i++) {
            double step = len(v.chunk[i].x - px[i], v.chunk[i].y - py[i]);
            if (step > max_step) max_step = step;
            double pen = penetration(&v, i);
            ck_assert_msg(pen < 1e8, "chunk %d left the box at tick %d", i, t);
            inside[i] = pen > 0.25 ? inside[i] + 1 : 0;
            if (inside[i] > max_run) max_run = inside[i];
        }
    }
    ck_assert_msg(max_run <= 1, "a chunk stayed inside a solid segment for %d ticks", max_run);
    ck_assert_msg(max_step <= SIM_VL_MAX_STEP + 1e-9, "a chunk moved %.6f in one tick", max_step);
    ck_assert_double_gt(max_step, 8.9);                 /* the flings did hit the cap */
    sim_verlet_free(&v);
}
END_TEST

/* A chunk dropped from the top keeps falling no faster than 9 units a tick. */
START_TEST(fall_speed_capped_at_nine)
{
    box();
    sim_verlet v;
    mk(&v, 5400.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    sim_verlet_add_chunk(&v, 200, 5, 2, 1);
    double prev = 5.0, fastest = 0.0;
    for (int t = 0; t < 60; t++) {
        sim_verlet_step(&v);
        double d = v.chunk[0].y - prev;
        if (d > fastest) fastest = d;
        prev = v.chunk[0].y;
        ck_assert_double_le(d, 9.0 + 1e-9);
    }
    ck_assert_double_eq_tol(fastest, 9.0, 1e-9);
    ck_assert_double_eq_tol(v.chunk[0].y, 298.0, 1e-6);   /* and it lands on the floor */
    sim_verlet_free(&v);
}
END_TEST

/* One-way plank at y 150: a chunk thrown up from below passes through, comes down and lands on
 * it; a chunk dropped from above lands and stays. */
START_TEST(one_way_plank)
{
    box();
    segs[nsegs++] = (sim_seg){ 100, 150, 300, 150, SIM_SEG_ONEWAY };
    sim_verlet v;
    mk(&v, 540.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int up = sim_verlet_add_chunk(&v, 150, 230, 4, 1);
    int down = sim_verlet_add_chunk(&v, 250, 60, 4, 1);
    v.chunk[up].py = v.chunk[up].y + 8.0;              /* 8 units a tick upward */
    double top = 300.0;
    for (int t = 0; t < 400; t++) {
        sim_verlet_step(&v);
        if (v.chunk[up].y < top) top = v.chunk[up].y;
        ck_assert_msg(v.chunk[down].y <= 146.0 + 1e-6, "the dropped chunk went through at tick %d", t);
    }
    ck_assert_msg(top < 140.0, "the thrown chunk never got above the plank (top %.2f)", top);
    ck_assert_double_eq_tol(v.chunk[up].y, 146.0, 1e-6);     /* landed on it */
    ck_assert_double_eq_tol(v.chunk[down].y, 146.0, 1e-6);
    ck_assert_int_ne(v.contact[up] & SIM_VL_GROUND, 0);
    sim_verlet_free(&v);
}
END_TEST

/* Poles never collide: a chunk slides through a vertical pole and drops through a horizontal one. */
START_TEST(poles_do_not_collide)
{
    box();
    segs[nsegs++] = (sim_seg){ 200, 300, 200, 100, SIM_SEG_POLE };
    segs[nsegs++] = (sim_seg){ 40, 150, 120, 150, SIM_SEG_POLE };
    sim_verlet v;
    mk(&v, 540.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int a = sim_verlet_add_chunk(&v, 150, 200, 4, 1);
    int b = sim_verlet_add_chunk(&v, 80, 100, 4, 1);
    v.chunk[a].px = v.chunk[a].x - 5.0;
    for (int t = 0; t < 30; t++) sim_verlet_step(&v);
    ck_assert_double_gt(v.chunk[a].x, 220.0);
    ck_assert_double_gt(v.chunk[b].y, 200.0);
    sim_verlet_free(&v);
}
END_TEST

/* Sliding on the floor keeps 0.93 of the tangential velocity per pass, 0.93⁴ a tick; bouncing
 * keeps no approaching velocity; a separating velocity is kept. */
START_TEST(collision_response)
{
    box();
    sim_verlet v;
    mk(&v, 540.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int c = sim_verlet_add_chunk(&v, 100, 296, 4, 1);
    v.chunk[c].px = 96;                             /* 4 units a tick to the right, resting */
    sim_verlet_step(&v);
    double vx = v.chunk[c].x - v.chunk[c].px;
    ck_assert_double_eq_tol(vx, 4.0 * 0.93 * 0.93 * 0.93 * 0.93, 1e-9);
    ck_assert_double_eq_tol(v.chunk[c].y, 296.0, 1e-9);
    ck_assert_double_eq_tol(v.chunk[c].y - v.chunk[c].py, 0.0, 1e-9);   /* into the floor: cancelled */
    ck_assert_int_eq(v.contact[c], SIM_VL_TOUCH | SIM_VL_GROUND);
    /* Moving away from the floor at 3 a tick: the separating part survives contact. */
    v.chunk[c].py = v.chunk[c].y + 3.0;
    v.chunk[c].px = v.chunk[c].x;
    v.gravity = 0.0;
    sim_verlet_step(&v);
    ck_assert_double_eq_tol(v.chunk[c].y - v.chunk[c].py, -3.0, 1e-9);
    sim_verlet_free(&v);
}
END_TEST

/* The side a chunk is kept on is the side it started the step on: a chunk that crossed a solid
 * segment within one step goes back out the way it came. */
START_TEST(side_decided_by_previous_position)
{
    box();
    segs[nsegs++] = (sim_seg){ 100, 150, 300, 150, SIM_SEG_SOLID };
    sim_verlet v;
    mk(&v, 0.0, 0.0);
    sim_verlet_body_begin(&v, 0);
    int a = sim_verlet_add_chunk(&v, 200, 147, 2, 1);      /* above, moving down 7 */
    int b = sim_verlet_add_chunk(&v, 150, 153, 2, 1);      /* below, moving up 7 */
    v.chunk[a].py = 140;
    v.chunk[b].py = 160;
    sim_verlet_step(&v);
    ck_assert_double_eq_tol(v.chunk[a].y, 148.0, 1e-9);
    ck_assert_double_eq_tol(v.chunk[b].y, 152.0, 1e-9);
    sim_verlet_free(&v);
}
END_TEST

/* ---- pins and queries ----------------------------------------------------------------------------- */
START_TEST(pins_keep_body_order_and_pull)
{
    box();
    sim_verlet v;
    mk(&v, 0.0, 0.0);
    sim_verlet_make_rope(&v, 0, 50, 50, 1, 0);
    sim_verlet_make_rope(&v, 0, 50, 100, 1, 0);
    ck_assert_int_eq(sim_verlet_pin_add(&v, 12, 1, 300, 100, 0.4), 0);
    ck_assert_int_eq(sim_verlet_pin_add(&v, 3, 2, 300, 50, 0.4), 0);   /* body 0 goes first */
    ck_assert_int_eq(sim_verlet_pin_add(&v, 15, 3, 300, 100, 0.4), 2);
    ck_assert_int_eq(v.pin[0].body, 0);
    ck_assert_int_eq(v.pin[1].body, 1);
    ck_assert_int_eq(sim_verlet_pin_find(&v, 3), 2);
    ck_assert_int_eq(sim_verlet_pin_add(&v, 99, 4, 0, 0, 0.4), -1);     /* no such chunk */
    ck_assert_int_eq(sim_verlet_pin_add(&v, 0, 4, 0, 0, 0.0), -1);      /* no stiffness */
    double x0 = v.chunk[3].x;
    sim_verlet_step(&v);
    ck_assert_double_gt(v.chunk[3].x, x0);
    sim_verlet_pin_remove(&v, 0);
    ck_assert_int_eq(v.npin, 2);
    ck_assert_int_eq(sim_verlet_pin_find(&v, 2), -1);
    ck_assert_int_eq(sim_verlet_body_of(&v, 9), 0);
    ck_assert_int_eq(sim_verlet_body_of(&v, 10), 1);
    ck_assert_int_eq(sim_verlet_body_of(&v, 20), -1);
    sim_verlet_free(&v);
}
END_TEST

START_TEST(build_refuses_bad_parts)
{
    nsegs = 0;
    sim_verlet v;
    ck_assert_int_eq(sim_verlet_init(&v, 0, 1, 1, 1), SIM_EINVAL);
    ck_assert_int_eq(sim_verlet_init(&v, 4, 4, 1, 2), 0);
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 0, 0, 1, 1), -1);           /* no body yet */
    sim_verlet_body_begin(&v, 0);
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 0, 0, 0, 1), -1);           /* radius 0 */
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 0, 0, 1, -1), -1);          /* negative mass */
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 0, 0, 1, 1), 0);
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 5, 0, 1, 1), 1);
    sim_verlet_body_begin(&v, 0);
    ck_assert_int_eq(sim_verlet_add_chunk(&v, 9, 0, 1, 1), 2);
    ck_assert_int_eq(sim_verlet_add_link(&v, 0, 2, 1, 1), -1);            /* across bodies */
    ck_assert_int_eq(sim_verlet_add_link(&v, 2, 2, 1, 1), -1);            /* to itself */
    ck_assert_int_eq(sim_verlet_body_begin(&v, 0), -1);                   /* body cap */
    ck_assert_int_eq(sim_verlet_make_rope(&v, 0, 0, 0, 1, 0), -1);        /* no room */
    sim_verlet_body_drop_last(&v);
    ck_assert_int_eq(v.nbody, 1);
    ck_assert_int_eq(v.nchunk, 2);
    sim_verlet_free(&v);
}
END_TEST

START_TEST(ground_and_line_of_sight)
{
    box();
    segs[nsegs++] = (sim_seg){ 100, 150, 300, 150, SIM_SEG_ONEWAY };
    segs[nsegs++] = (sim_seg){ 350, 300, 350, 100, SIM_SEG_POLE };
    sim_verlet v;
    mk(&v, 0.0, 0.0);
    double gy;
    ck_assert_int_eq(sim_verlet_ground(&v, 200, 100, 100, &gy), 4);       /* the plank */
    ck_assert_double_eq(gy, 150.0);
    ck_assert_int_eq(sim_verlet_ground(&v, 200, 160, 200, &gy), 3);       /* under it: the floor */
    ck_assert_int_eq(sim_verlet_ground(&v, 200, 100, 20, &gy), -1);       /* too far */
    ck_assert_int_eq(sim_verlet_ground(&v, 350, 90, 500, &gy), 3);        /* poles are not ground */
    ck_assert_int_eq(sim_verlet_blocked(&v, 200, 100, 200, 200, -1), 1);  /* the plank blocks */
    ck_assert_int_eq(sim_verlet_blocked(&v, 200, 100, 200, 200, 4), 0);
    ck_assert_int_eq(sim_verlet_blocked(&v, 320, 200, 380, 200, -1), 0);  /* poles do not */
    sim_verlet_free(&v);
}
END_TEST

/* ---- state ------------------------------------------------------------------------------------------- */
static sim_verlet world_for_state(void)
{
    box();
    sim_verlet v;
    mk(&v, 540.0, 0.002);
    sim_verlet_make_rope(&v, 1, 50, 50, 1, 0);
    sim_verlet_body_begin(&v, 2);
    int a = sim_verlet_add_chunk(&v, 200, 100, 3, 1);
    int b = sim_verlet_add_chunk(&v, 210, 100, 2, 0.25);
    sim_verlet_add_link(&v, a, b, -1, 0.8);
    sim_verlet_pin_add(&v, 0, 42, 60, 40, 0.4);
    for (int t = 0; t < 50; t++) sim_verlet_step(&v);
    return v;
}

START_TEST(save_load_round_trip)
{
    sim_verlet a = world_for_state(), b;
    mk(&b, 540.0, 0.002);
    uint8_t buf[8192];
    sim_writer wr;
    sim__w_init(&wr, buf, sizeof buf);
    sim_verlet_save(&a, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_le(wr.len, sim_verlet_save_max(&a));
    sim_reader rd;
    sim__r_init(&rd, buf, wr.len);
    ck_assert_int_eq(sim_verlet_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, wr.len);
    for (int t = 0; t < 100; t++) {
        sim_verlet_step(&a);
        sim_verlet_step(&b);
    }
    ck_assert_int_eq(memcmp(a.chunk, b.chunk, sizeof *a.chunk * (size_t)a.nchunk), 0);
    char out[4096];
    sim_diff_out o = { out, sizeof out, 0, 0, 50 };
    ck_assert_int_eq(sim_verlet_diff(&a, &b, &o), 0);
    b.chunk[3].x += 1e-9;
    ck_assert_int_eq(sim_verlet_diff(&a, &b, &o), 1);
    ck_assert_ptr_nonnull(strstr(out, "chunk 3 x:"));
    sim_verlet_free(&a);
    sim_verlet_free(&b);
}
END_TEST

/* Every corruption is refused. Offsets follow the layout in docs/STATE.md. */
START_TEST(load_refuses_garbage)
{
    sim_verlet a = world_for_state(), b;
    mk(&b, 540.0, 0.002);
    uint8_t buf[8192], bad[8192];
    sim_writer wr;
    sim__w_init(&wr, buf, sizeof buf);
    sim_verlet_save(&a, &wr);
    size_t n = wr.len;
    size_t bodies = 8, chunks = bodies + 2 * 9, links = chunks + 12 * 48, pins = links + 10 * 20;
    struct { size_t off; uint8_t val; const char *what; } cases[] = {
        { 0, 200, "more bodies than the capacity" },
        { 2, 13, "chunk count not the bodies' total" },
        { bodies + 1, 1, "a body not starting where the last ended" },
        { bodies + 3, 0, "a body with no chunks" },
        { chunks + 4 * 8 + 7, 0x80, "a negative radius" },
        { chunks + 5 * 8 + 7, 0x7f, "a NaN mass" },
        { chunks + 5 * 8 + 7, 0x00, "a subnormal mass (an infinite inverse mass)" },
        { chunks + 4 * 8 + 7, 0x00, "a subnormal radius" },
        { chunks + 7, 0x7f, "an infinite position" },
        { links, 11, "a link leaving its body" },
        { links + 2, 0, "a link to itself" },
        { links + 4 + 8 + 7, 0x40, "a link stiffer than a bone" },
        { pins, 11, "a pin on another body's chunk" },
        { pins + 2, 1, "a pin naming the wrong body" },
        { pins + 24 + 7, 0xc0, "a pin with negative stiffness" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(bad, buf, n);
        bad[cases[k].off] = cases[k].val;
        if (cases[k].off == chunks + 7) bad[chunks + 6] = 0xf0;     /* exponent all ones: +inf */
        if (cases[k].off == chunks + 5 * 8 + 7) bad[chunks + 5 * 8 + 6] = cases[k].val ? 0xf8 : 0x00;
        if (cases[k].off == chunks + 4 * 8 + 7 && cases[k].val == 0) bad[chunks + 4 * 8 + 6] = 0x00;
        if (cases[k].val == 0 && (cases[k].off == chunks + 5 * 8 + 7 || cases[k].off == chunks + 4 * 8 + 7))
            bad[cases[k].off - 7] |= 1;                               /* exponent 0, mantissa not: subnormal */
        sim_reader rd;
        sim__r_init(&rd, bad, n);
        int rc = sim_verlet_load(&b, &rd);
        ck_assert_msg(rc != 0, "accepted %s", cases[k].what);
    }
    for (size_t cut = 0; cut < n; cut += 7) {
        sim_reader rd;
        sim__r_init(&rd, buf, cut);
        ck_assert_int_ne(sim_verlet_load(&b, &rd), 0);
    }
    sim_verlet_free(&a);
    sim_verlet_free(&b);
}
END_TEST

START_TEST(fmt_double_reports_value_and_bits)
{
    char s[64];
    sim__fmt_double(s, sizeof s, -12.5);
    ck_assert_str_eq(s, "-12.500000 (0xc029000000000000)");
    sim__fmt_double(s, sizeof s, 0.0000004);
    ck_assert_str_eq(s, "0.000000 (0x3e9ad7f29abcaf48)");
}
END_TEST

/* ---- the terrarium's bytes ------------------------------------------------------------------- */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* A terrarium-like run (ropes, loose chunks, linked pairs, flings, pins dragged through walls) on
 * a solver with every issue-14 option off: its bytes after 600 steps were recorded before those
 * options existed, so this fails if any of them leaks into the default solve or the saved state. */
START_TEST(spin_off_keeps_old_bytes)
{
    box();
    segs[nsegs++] = (sim_seg){ 100, 200, 300, 150, SIM_SEG_SOLID };
    segs[nsegs++] = (sim_seg){ 120, 100, 220, 100, SIM_SEG_ONEWAY };
    segs[nsegs++] = (sim_seg){ 330, 300, 330, 120, SIM_SEG_POLE };
    sim_verlet v;
    mk(&v, 540.0, 0.002);
    sim_rng rng;
    sim_rng_seed(&rng, 14, 3);
    sim_verlet_make_rope(&v, 0, 30, 30, 1, 0);
    sim_verlet_make_rope(&v, 0, 250, 60, 0, 1);
    for (int b = 0; b < 6; b++) {
        sim_verlet_body_begin(&v, (uint8_t)(1 + b % 2));
        int a = sim_verlet_add_chunk(&v, 40 + 55 * b, 40 + sim_rng_unit(&rng) * 80, 3, 1.0);
        int c = sim_verlet_add_chunk(&v, 50 + 55 * b, 45, 2 + sim_rng_unit(&rng), 0.3);
        sim_verlet_add_link(&v, a, c, -1, 0.7);
    }
    for (int t = 0; t < 600; t++) {
        if (t % 40 == 0)
            for (int i = 0; i < v.nchunk; i++) {
                v.chunk[i].px = v.chunk[i].x - (sim_rng_unit(&rng) - 0.5) * 30.0;
                v.chunk[i].py = v.chunk[i].y - (sim_rng_unit(&rng) - 0.5) * 30.0;
            }
        if (t % 150 == 0) {
            if (v.npin) sim_verlet_pin_remove(&v, 0);
            double tx = t % 300 == 0 ? -40.0 : 200.0;
            sim_verlet_pin_add(&v, (t / 150 * 7) % v.nchunk, 5, tx, 310, 0.4);
        }
        if (t % 25 == 0) v.ax[3] = 900.0;
        sim_verlet_step(&v);
    }
    uint8_t buf[8192];
    sim_writer wr;
    sim__w_init(&wr, buf, sizeof buf);
    sim_verlet_save(&v, &wr);
    ck_assert(!wr.overflow);
    size_t want = 8 + 8 * 9 + (size_t)v.nchunk * 48 + (size_t)v.nlink * 20 + (size_t)v.npin * 32;
    ck_assert_uint_eq(wr.len, want);
    uint64_t h = fnv1a(buf, wr.len);
    ck_assert_msg(h == 0x5e7701067f71eb21ULL, "spin-off bytes changed: hash 0x%016llx",
                  (unsigned long long)h);
    sim_verlet_free(&v);
}
END_TEST

/* ---- the fruit-merge options (issue 14 §3): spin, chunk contact, passes, removal ------------- */
/* A fruit container at 60 Hz: floor at y 400, walls at x 0 and 240, running far up so that nothing
 * dropped from above can go round their ends, and past the floor's corners (verlet.h). */
#define FRUIT_DT (1.0 / 60.0)
#define FRUIT_W 240.0
#define FRUIT_FLOOR 400.0
static const double fruit_r[11] = { 5, 7, 9, 11.5, 14, 16.5, 19, 22, 25, 29, 33 };

static void fruit_box(void)
{
    nsegs = 0;
    segs[nsegs++] = (sim_seg){ 0, -1000, 0, 420, SIM_SEG_SOLID };
    segs[nsegs++] = (sim_seg){ FRUIT_W, 420, FRUIT_W, -1000, SIM_SEG_SOLID };
    segs[nsegs++] = (sim_seg){ -20, FRUIT_FLOOR, FRUIT_W + 20, FRUIT_FLOOR, SIM_SEG_SOLID };
}

static void mk_fruit(sim_verlet *v, int passes, int spin)
{
    ck_assert_int_eq(sim_verlet_init(v, 64, 32, 16, 64), 0);
    v->dt = FRUIT_DT;
    v->gravity = 600.0;
    v->seg = segs;
    v->nseg = nsegs;
    v->passes = passes;
    v->spin = spin;
    v->spin_drag = 0.02;
    v->collide_chunks = 1;
}

/* One fruit: a body of one chunk, mass ∝ r². */
static int add_fruit(sim_verlet *v, double x, double y, double r)
{
    ck_assert_int_ge(sim_verlet_body_begin(v, 0), 0);
    return sim_verlet_add_chunk(v, x, y, r, r * r / 100.0);
}

/* 60 fruit of mixed tiers (mostly the small five, every tenth a big one) on a grid above the
 * container, not touching, at rest. */
static void drop_60(sim_verlet *v, uint64_t seed)
{
    sim_rng rng;
    sim_rng_seed(&rng, seed, 1);
    for (int i = 0; i < 60; i++) {
        int tier = (int)(sim_rng_unit(&rng) * 6);
        if (i % 10 == 9) tier = 6 + (int)(sim_rng_unit(&rng) * 5);
        double x = 35 + (i % 5) * 42 + sim_rng_unit(&rng) * 4, y = -20 - (i / 5) * 70.0;
        add_fruit(v, x, y, fruit_r[tier]);
    }
}

static double speed(const sim_chunk *c) { return len(c->x - c->px, c->y - c->py); }

/* The touching pairs by brute force, in the order and by the test verlet.h promises. */
static int brute_pairs(const sim_verlet *v, uint16_t (*out)[2], int cap)
{
    int n = 0;
    for (int i = 0; i < v->nchunk; i++)
        for (int j = i + 1; j < v->nchunk; j++) {
            if (sim_verlet_body_of(v, i) == sim_verlet_body_of(v, j)) continue;
            const sim_chunk *a = &v->chunk[i], *b = &v->chunk[j];
            double dx = a->x - b->x, dy = a->y - b->y, rr = a->r + b->r + SIM_VL_SKIN;
            if (dx * dx + dy * dy > rr * rr) continue;
            ck_assert_int_lt(n, cap);
            out[n][0] = (uint16_t)i;
            out[n][1] = (uint16_t)j;
            n++;
        }
    return n;
}

static void assert_pairs_exact(const sim_verlet *v, int t)
{
    uint16_t want[512][2];
    int n = brute_pairs(v, want, 512);
    ck_assert_msg(v->npair == n, "tick %d: %d pairs listed, %d touch", t, v->npair, n);
    ck_assert_int_eq(v->npair_lost, 0);
    for (int k = 0; k < n; k++)
        ck_assert_msg(v->pair[k][0] == want[k][0] && v->pair[k][1] == want[k][1],
                      "tick %d pair %d: %d–%d listed, %d–%d touch", t, k, v->pair[k][0],
                      v->pair[k][1], want[k][0], want[k][1]);
}

static size_t save_bytes(const sim_verlet *v, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_verlet_save(v, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_le(wr.len, sim_verlet_save_max(v));
    return wr.len;
}

/* The contact point of chunk c on a surface with unit normal n (toward the centre) slips at
 * v·t − w·r along t = (−ny, nx): the spin moves the point at −n·r by w·(n_y r, −n_x r) = −w·r·t. */
static double slip_on(const sim_chunk *c, double nx, double ny)
{
    double vx = c->x - c->px, vy = c->y - c->py;
    return vx * -ny + vy * nx - c->w * c->r;
}

/* A disc dropped, moving sideways, onto a 26.6° slope ends up rolling down it: no slip at the
 * contact, spinning clockwise (it travels right, y down), and accelerating at ⅔ g sin θ, the rate
 * of a rolling solid disc (I = ½ m r²; a sliding one would take the whole g sin θ). Both with
 * and without chunk contact (the per-pass and the pile velocity treatment). */
START_TEST(disc_rolls_down_a_slope)
{
    for (int pile = 0; pile < 2; pile++) {
        nsegs = 0;
        segs[nsegs++] = (sim_seg){ 0, 100, 800, 500, SIM_SEG_SOLID };
        sim_verlet v;
        mk_fruit(&v, 8, 1);
        v.spin_drag = 0.0;
        v.collide_chunks = pile;
        int c = add_fruit(&v, 60, 60, 10);
        v.chunk[c].px = v.chunk[c].x - 1.0;
        double len_s = sqrt(800.0 * 800.0 + 400.0 * 400.0);
        double nx = 400.0 / len_s, ny = -800.0 / len_s, tx = -ny, ty = nx;
        double v40 = 0.0, v80 = 0.0;
        for (int t = 1; t <= 80; t++) {
            sim_verlet_step(&v);
            const sim_chunk *ch = &v.chunk[c];
            double vt = (ch->x - ch->px) * tx + (ch->y - ch->py) * ty;
            if (t == 40) v40 = vt;
            if (t == 80) v80 = vt;
        }
        const sim_chunk *ch = &v.chunk[c];
        ck_assert_int_ne(v.contact[c] & SIM_VL_TOUCH, 0);
        ck_assert_msg(v80 > 2.0, "pile %d: rolled at only %.3f a step", pile, v80);
        double slip = slip_on(ch, nx, ny);
        ck_assert_msg(fabs(slip) < 0.01 * v80, "pile %d: slips at %.5f, rolling at %.3f", pile,
                      slip, v80);
        ck_assert_msg(ch->w > 0.0, "pile %d: travelling right but w = %.5f", pile, ch->w);
        double rate = (v80 - v40) / 40.0;
        double want = 2.0 / 3.0 * 600.0 * (400.0 / len_s) * FRUIT_DT * FRUIT_DT;
        ck_assert_msg(fabs(rate - want) < 0.03 * want, "pile %d: accelerates at %.5f, not %.5f",
                      pile, rate, want);
        sim_verlet_free(&v);
    }
}
END_TEST

/* A disc spinning clockwise at rest on a floor drives itself right, and ends rolling. Friction at
 * the contact keeps the angular momentum about the contact point: I·w0 = (I + m r²)·w, so it ends
 * at a third of its spin, rolling at w0·r/3. */
START_TEST(spin_drives_disc_along_floor)
{
    for (int pile = 0; pile < 2; pile++) {
        nsegs = 0;
        segs[nsegs++] = (sim_seg){ -20, 300, 420, 300, SIM_SEG_SOLID };
        sim_verlet v;
        mk_fruit(&v, 8, 1);
        v.spin_drag = 0.0;
        v.collide_chunks = pile;
        int c = add_fruit(&v, 100, 290, 10);
        v.chunk[c].w = 0.2;
        for (int t = 0; t < 60; t++) sim_verlet_step(&v);
        const sim_chunk *ch = &v.chunk[c];
        double vx = ch->x - ch->px;
        ck_assert_msg(ch->x > 100.0 && vx > 0.0, "pile %d: not moving right (x %.3f)", pile,
                      ch->x);
        ck_assert_msg(fabs(vx - 0.2 * 10.0 / 3.0) < 0.01, "pile %d: rolls at %.5f, not 2/3", pile,
                      vx);
        ck_assert_msg(fabs(slip_on(ch, 0.0, -1.0)) < 1e-3, "pile %d: still slips", pile);
        ck_assert_double_eq_tol(ch->y, 290.0, 1e-6);
        sim_verlet_free(&v);
    }
}
END_TEST

/* A fruit at rest against a wall, touching it but not pressed on it, falls as if the wall were
 * not there: no friction without a push (SIM_VL_PRESS); one pressed on the floor keeps it. */
START_TEST(touching_a_wall_is_not_friction)
{
    for (int spin = 0; spin < 2; spin++) {
        fruit_box();
        sim_verlet v;
        mk_fruit(&v, 8, spin);
        int c = add_fruit(&v, 10, 100, 10);                       /* gap 0 to the left wall */
        for (int n = 1; n <= 30; n++) {
            sim_verlet_step(&v);
            ck_assert_int_ne(v.contact[c] & SIM_VL_TOUCH, 0);
        }
        double g = 600.0 * FRUIT_DT * FRUIT_DT;
        ck_assert_double_eq_tol(v.chunk[c].y, 100.0 + g * 30 * 31 / 2, 1e-9);
        ck_assert_double_eq_tol(v.chunk[c].x, 10.0, 1e-9);
        ck_assert_double_eq(v.chunk[c].w, 0.0);
        sim_verlet_free(&v);
    }
}
END_TEST

/* An angle is wrapped into [−π, π) every step, and a spin never exceeds the cap. */
START_TEST(angle_stays_wrapped)
{
    nsegs = 0;
    sim_verlet v;
    mk_fruit(&v, 0, 1);
    v.gravity = 0.0;
    v.spin_drag = 0.0;
    int a = add_fruit(&v, 100, 100, 5), b = add_fruit(&v, 200, 100, 5);
    v.chunk[a].w = 3.0;
    v.chunk[b].w = -1.7;
    double turned = 0.0;
    for (int t = 0; t < 1000; t++) {
        double before = v.chunk[a].a;
        sim_verlet_step(&v);
        for (int i = 0; i < 2; i++)
            ck_assert_msg(v.chunk[i].a >= -SIM_PI && v.chunk[i].a < SIM_PI, "angle %.17g",
                          v.chunk[i].a);
        double d = v.chunk[a].a - before;
        turned += d < 0.0 ? d + 2.0 * SIM_PI : d;
    }
    ck_assert_double_eq_tol(turned, 3000.0, 1e-6);                 /* no turn lost to the wrap */
    v.chunk[a].w = 100.0;                                          /* a caller overdoing it */
    sim_verlet_step(&v);
    ck_assert_double_eq(v.chunk[a].w, SIM_VL_MAX_SPIN);
    sim_verlet_free(&v);
}
END_TEST

/* Two equal discs pushed into each other end exactly touching, pushed apart symmetrically about
 * their centre of mass, so the speeds the push gives them cancel. Two unequal discs that meet
 * stop against each other (no bounce) and keep their total momentum. */
START_TEST(discs_collide_and_keep_momentum)
{
    nsegs = 0;
    sim_verlet v;
    mk_fruit(&v, 0, 0);
    v.gravity = 0.0;
    int a = add_fruit(&v, 100, 100, 10), b = add_fruit(&v, 112, 100, 10);
    sim_verlet_step(&v);
    const sim_chunk *ca = &v.chunk[a], *cb = &v.chunk[b];
    ck_assert_double_ge(len(cb->x - ca->x, cb->y - ca->y), 20.0 - 1e-9);
    ck_assert_double_eq_tol(ca->x + cb->x, 212.0, 1e-12);
    ck_assert_double_eq_tol((ca->x - ca->px) + (cb->x - cb->px), 0.0, 1e-12);
    ck_assert_double_eq_tol(ca->y, 100.0, 1e-12);
    ck_assert_int_eq(v.npair, 1);
    ck_assert_int_ne(v.contact[a] & SIM_VL_CHUNK, 0);
    sim_verlet_free(&v);

    /* Mass 1 at +4 a step meets mass 2 at −1, just touching: momentum 2, so they go on together
     * at 2/3 a step. */
    mk_fruit(&v, 0, 0);
    v.gravity = 0.0;
    sim_verlet_body_begin(&v, 0);
    a = sim_verlet_add_chunk(&v, 100, 100, 10, 1.0);
    sim_verlet_body_begin(&v, 0);
    b = sim_verlet_add_chunk(&v, 120, 100, 10, 2.0);
    v.chunk[a].px = 96;
    v.chunk[b].px = 121;
    for (int t = 0; t < 10; t++) {
        sim_verlet_step(&v);
        double va = v.chunk[a].x - v.chunk[a].px, vb = v.chunk[b].x - v.chunk[b].px;
        ck_assert_double_eq_tol(va * 1.0 + vb * 2.0, 2.0, 1e-9);
        ck_assert_double_eq_tol(va, 2.0 / 3.0, 1e-9);                 /* together: no bounce */
        ck_assert_double_eq_tol(vb, 2.0 / 3.0, 1e-9);
        ck_assert_double_ge(v.chunk[b].x - v.chunk[a].x, 20.0 - 1e-9);
    }
    sim_verlet_free(&v);
}
END_TEST

/* A cluster of discs with random speeds and spins, in space: every contact is an equal and
 * opposite impulse, so the total momentum never changes. */
START_TEST(pile_conserves_momentum)
{
    nsegs = 0;
    sim_verlet v;
    mk_fruit(&v, 8, 1);
    v.gravity = 0.0;
    sim_rng rng;
    sim_rng_seed(&rng, 9, 2);
    for (int i = 0; i < 30; i++) {
        int c = add_fruit(&v, 100 + (i % 6) * 22, 100 + (i / 6) * 22, fruit_r[i % 4] + 2.0);
        v.chunk[c].px = v.chunk[c].x - (sim_rng_unit(&rng) - 0.5) * 2.0;
        v.chunk[c].py = v.chunk[c].y - (sim_rng_unit(&rng) - 0.5) * 2.0;
        v.chunk[c].w = (sim_rng_unit(&rng) - 0.5) * 0.4;
    }
    double px0 = 0.0, py0 = 0.0;
    for (int i = 0; i < v.nchunk; i++) {
        px0 += v.chunk[i].m * (v.chunk[i].x - v.chunk[i].px);
        py0 += v.chunk[i].m * (v.chunk[i].y - v.chunk[i].py);
    }
    int touched = 0;
    for (int t = 0; t < 200; t++) {
        sim_verlet_step(&v);
        touched += v.npair;
        double mx = 0.0, my = 0.0;
        for (int i = 0; i < v.nchunk; i++) {
            mx += v.chunk[i].m * (v.chunk[i].x - v.chunk[i].px);
            my += v.chunk[i].m * (v.chunk[i].y - v.chunk[i].py);
        }
        ck_assert_double_eq_tol(mx, px0, 1e-9);
        ck_assert_double_eq_tol(my, py0, 1e-9);
    }
    ck_assert_int_gt(touched, 200);                                   /* they did collide */
    sim_verlet_free(&v);
}
END_TEST

/* 60 fruit of mixed sizes dropped into the container at 8 passes settle within 10 s: nothing
 * moves faster than 3 px/s, nothing is outside the container, and no pair overlaps by a pixel
 * (docs/verlet.md has the spread over 20 drops: worst pair 0.53 px, fastest 2.2 px/s). */
START_TEST(pile_of_60_settles)
{
    for (uint64_t seed = 1; seed <= 3; seed++) {
        fruit_box();
        sim_verlet v;
        mk_fruit(&v, 8, 1);
        v.spin_drag = 0.05;
        drop_60(&v, seed);
        for (int t = 0; t < 600; t++) sim_verlet_step(&v);
        double fastest = 0.0, worst = 0.0, out = 0.0;
        for (int i = 0; i < v.nchunk; i++) {
            const sim_chunk *c = &v.chunk[i];
            if (speed(c) > fastest) fastest = speed(c);
            double o = -(c->x - c->r);
            if (c->x + c->r - FRUIT_W > o) o = c->x + c->r - FRUIT_W;
            if (c->y + c->r - FRUIT_FLOOR > o) o = c->y + c->r - FRUIT_FLOOR;
            if (o > out) out = o;
            for (int j = i + 1; j < v.nchunk; j++) {
                const sim_chunk *d = &v.chunk[j];
                double ov = c->r + d->r - len(c->x - d->x, c->y - d->y);
                if (ov > worst) worst = ov;
            }
        }
        ck_assert_msg(fastest < 0.05, "seed %d: a fruit still moves at %.4f a step", (int)seed,
                      fastest);
        ck_assert_msg(out < 1e-6, "seed %d: a fruit is %.4f into the container", (int)seed, out);
        ck_assert_msg(worst < 1.0, "seed %d: a pair overlaps by %.3f", (int)seed, worst);
        ck_assert_int_gt(v.npair, 80);                         /* a pile, not loose fruit */
        sim_verlet_free(&v);
    }
}
END_TEST

/* The pair list is exactly the touching pairs, every tick, while the fruit fall, land and settle,
 * and pairs within one body (a linked pair of chunks) are never listed. */
START_TEST(pair_list_is_exact)
{
    fruit_box();
    sim_verlet v;
    mk_fruit(&v, 6, 0);
    drop_60(&v, 4);
    sim_verlet_body_begin(&v, 1);
    int a = sim_verlet_add_chunk(&v, 120, -900, 6, 0.4);
    int b = sim_verlet_add_chunk(&v, 130, -900, 6, 0.4);
    sim_verlet_add_link(&v, a, b, 10.0, 1.0);
    for (int t = 0; t < 500; t++) {
        sim_verlet_step(&v);
        assert_pairs_exact(&v, t);
    }
    ck_assert_int_gt(v.npair, 80);
    sim_verlet_free(&v);
}
END_TEST

/* Removing a body in the middle renumbers everything after it: the same chunks stay linked and
 * pinned, the per-chunk scratch and the pair list follow, and the state still saves and loads. */
START_TEST(body_remove_renumbers)
{
    fruit_box();
    sim_verlet v;
    mk_fruit(&v, 4, 1);
    sim_verlet_make_rope(&v, 1, 20, 100, 1, 0);                      /* body 0: chunks 0..9 */
    int f1 = add_fruit(&v, 60, 200, 9);                              /* body 1: chunk 10 */
    sim_verlet_make_rope(&v, 2, 20, 150, 1, 0);                      /* body 2: chunks 11..20 */
    sim_verlet_body_begin(&v, 3);                                    /* body 3: chunks 21, 22 */
    int p = sim_verlet_add_chunk(&v, 150, 250, 5, 1), q = sim_verlet_add_chunk(&v, 165, 250, 5, 1);
    sim_verlet_add_link(&v, p, q, -1, 1.0);
    for (int i = 0; i < 6; i++) add_fruit(&v, 30 + 35 * i, 330, 12);  /* bodies 4..9 */
    sim_verlet_pin_add(&v, 3, 10, 40, 90, 0.3);
    sim_verlet_pin_add(&v, f1, 11, 60, 190, 0.3);
    sim_verlet_pin_add(&v, 15, 12, 60, 140, 0.3);
    sim_verlet_pin_add(&v, q, 13, 170, 240, 0.3);
    sim_verlet_pin_add(&v, 25, 14, 100, 330, 0.3);
    for (int t = 0; t < 40; t++) sim_verlet_step(&v);
    ck_assert_int_gt(v.npair, 0);

    /* Remember every link and pin by the position of its chunks, which removal must not move. */
    for (int round = 0; round < 2; round++) {
        int victim = 1;                         /* the fruit, then rope 2 (body 1 by then) */
        double lx[64][4];
        int nl0 = v.nlink, nc0 = v.nchunk, nb0 = v.nbody, vnc = v.body[victim].nc;
        int vnl = v.body[victim].nl, vl0 = v.body[victim].l0;
        ck_assert_int_eq(vnl, round == 0 ? 0 : SIM_ROPE_CHUNKS - 1);
        for (int l = 0; l < v.nlink; l++) {
            lx[l][0] = v.chunk[v.link[l].a].x;
            lx[l][1] = v.chunk[v.link[l].a].y;
            lx[l][2] = v.chunk[v.link[l].b].x;
            lx[l][3] = v.chunk[v.link[l].b].y;
        }
        double pxy[16][2];
        uint32_t ptag[16];
        int np0 = v.npin, vpins = 0;
        for (int k = 0; k < v.npin; k++) {
            ptag[k] = v.pin[k].tag;
            pxy[k][0] = v.chunk[v.pin[k].chunk].x;
            pxy[k][1] = v.chunk[v.pin[k].chunk].y;
            if (v.pin[k].body == victim) vpins++;
        }
        int last = v.nchunk - 1;
        v.ax[last] = 123.0;
        v.contact[last] = 7;
        sim_verlet_body_remove(&v, victim);
        ck_assert_int_eq(v.nbody, nb0 - 1);
        ck_assert_int_eq(v.nchunk, nc0 - vnc);
        ck_assert_int_eq(v.nlink, nl0 - vnl);
        ck_assert_int_eq(v.npin, np0 - vpins);
        ck_assert_double_eq(v.ax[last - vnc], 123.0);
        ck_assert_int_eq(v.contact[last - vnc], 7);
        v.ax[last - vnc] = 0.0;
        int c_next = 0, l_next = 0;
        for (int b = 0; b < v.nbody; b++) {
            ck_assert_int_eq(v.body[b].c0, c_next);
            ck_assert_int_eq(v.body[b].l0, l_next);
            c_next += v.body[b].nc;
            l_next += v.body[b].nl;
        }
        ck_assert_int_eq(c_next, v.nchunk);
        ck_assert_int_eq(l_next, v.nlink);
        /* Links: the ones before the victim's kept their place, the later ones moved down by its
         * link count, and all still join the same two points. */
        for (int l = 0; l < v.nlink; l++) {
            int old = l < vl0 ? l : l + vnl;
            ck_assert_double_eq(v.chunk[v.link[l].a].x, lx[old][0]);
            ck_assert_double_eq(v.chunk[v.link[l].a].y, lx[old][1]);
            ck_assert_double_eq(v.chunk[v.link[l].b].x, lx[old][2]);
            ck_assert_double_eq(v.chunk[v.link[l].b].y, lx[old][3]);
            ck_assert_int_eq(sim_verlet_body_of(&v, v.link[l].a),
                             sim_verlet_body_of(&v, v.link[l].b));
        }
        for (int k = 0; k < v.npin; k++) {
            int old = 0;
            while (ptag[old] != v.pin[k].tag) old++;
            ck_assert_double_eq(v.chunk[v.pin[k].chunk].x, pxy[old][0]);
            ck_assert_double_eq(v.chunk[v.pin[k].chunk].y, pxy[old][1]);
            ck_assert_int_eq(v.pin[k].body, sim_verlet_body_of(&v, v.pin[k].chunk));
            if (k > 0) ck_assert_int_le(v.pin[k - 1].body, v.pin[k].body);
        }
        ck_assert_int_eq(sim_verlet_pin_find(&v, round == 0 ? 11 : 12), -1);
        /* Nothing moved, so the renumbered pair list is the touching pairs of the new indexing. */
        assert_pairs_exact(&v, -1);
    }
    sim_verlet_body_remove(&v, -1);                                  /* out of range: ignored */
    sim_verlet_body_remove(&v, v.nbody);
    ck_assert_int_eq(v.nbody, 8);
    sim_verlet_body_remove(&v, v.nbody - 1);                         /* the last, and the first */
    sim_verlet_body_remove(&v, 0);
    ck_assert_int_eq(v.nbody, 6);
    ck_assert_int_eq(v.npin, 2);                     /* the linked pair's and a fruit's survive */
    ck_assert_int_eq(v.pin[0].tag, 13);
    ck_assert_int_eq(v.pin[1].tag, 14);

    /* The state after all that saves, loads and runs on as the original does. */
    uint8_t buf[8192], buf2[8192];
    size_t n = save_bytes(&v, buf, sizeof buf);
    sim_verlet w;
    mk_fruit(&w, 4, 1);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_verlet_load(&w, &rd), 0);
    for (int t = 0; t < 60; t++) {
        sim_verlet_step(&v);
        sim_verlet_step(&w);
    }
    n = save_bytes(&v, buf, sizeof buf);
    ck_assert_uint_eq(save_bytes(&w, buf2, sizeof buf2), n);
    ck_assert_int_eq(memcmp(buf, buf2, n), 0);
    sim_verlet_free(&v);
    sim_verlet_free(&w);
}
END_TEST

/* With spin a chunk saves 64 bytes (a and w after its other fields), the state round-trips bit
 * for bit, the diff names an angle and a spin, and a load refuses a bad one. */
START_TEST(spin_state_round_trip)
{
    fruit_box();
    sim_verlet a, b;
    mk_fruit(&a, 8, 1);
    mk_fruit(&b, 8, 1);
    for (int i = 0; i < 12; i++) {
        int c = add_fruit(&a, 30 + (i % 6) * 35, 300 + (i / 6) * 40, fruit_r[i % 5]);
        a.chunk[c].px = a.chunk[c].x + (i % 3 - 1) * 1.5;            /* thrown about, spinning */
        a.chunk[c].w = (i % 4 - 1.5) * 0.05;
    }
    for (int t = 0; t < 120; t++) sim_verlet_step(&a);
    int spun = 0;
    for (int i = 0; i < a.nchunk; i++) spun += a.chunk[i].w != 0.0 && a.chunk[i].a != 0.0;
    ck_assert_int_gt(spun, 6);
    uint8_t buf[8192], buf2[8192], bad[8192];
    size_t n = save_bytes(&a, buf, sizeof buf);
    ck_assert_uint_eq(n, 8 + 12 * 9 + 12 * 64);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_verlet_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, n);
    ck_assert_uint_eq(save_bytes(&b, buf2, sizeof buf2), n);
    ck_assert_int_eq(memcmp(buf, buf2, n), 0);
    char out[4096];
    sim_diff_out o = { out, sizeof out, 0, 0, 50 };
    ck_assert_int_eq(sim_verlet_diff(&a, &b, &o), 0);
    b.chunk[4].a += 1e-9;
    b.chunk[7].w -= 1e-9;
    ck_assert_int_eq(sim_verlet_diff(&a, &b, &o), 2);
    ck_assert_ptr_nonnull(strstr(out, "chunk 4 angle:"));
    ck_assert_ptr_nonnull(strstr(out, "chunk 7 spin:"));
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_verlet_load(&b, &rd), 0);
    for (int t = 0; t < 100; t++) {
        sim_verlet_step(&a);
        sim_verlet_step(&b);
    }
    n = save_bytes(&a, buf, sizeof buf);
    ck_assert_uint_eq(save_bytes(&b, buf2, sizeof buf2), n);
    ck_assert_int_eq(memcmp(buf, buf2, n), 0);

    /* Chunk 5's angle is at chunks + 5·64 + 48, its spin 8 further. */
    size_t at = 8 + 12 * 9 + 5 * 64 + 48;
    struct { size_t off; double val; const char *what; } cases[] = {
        { at, NAN, "a NaN angle" },
        { at, 3.2, "an angle past π" },
        { at, -3.2, "an angle past −π" },
        { at + 8, INFINITY, "an infinite spin" },
        { at + 8, SIM_VL_MAX_SPIN * 1.01, "a spin past the cap" },
        { at + 8, -SIM_VL_MAX_SPIN * 1.01, "a spin past the cap the other way" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(bad, buf, n);
        uint64_t bits;
        memcpy(&bits, &cases[k].val, 8);
        for (int i = 0; i < 8; i++) bad[cases[k].off + i] = (uint8_t)(bits >> (8 * i));
        sim__r_init(&rd, bad, n);
        ck_assert_msg(sim_verlet_load(&b, &rd) == SIM_ECORRUPT, "accepted %s", cases[k].what);
    }
    memcpy(bad, buf, n);                                             /* and the boundary itself */
    double pi = -SIM_PI;
    uint64_t bits;
    memcpy(&bits, &pi, 8);
    for (int i = 0; i < 8; i++) bad[at + i] = (uint8_t)(bits >> (8 * i));
    sim__r_init(&rd, bad, n);
    ck_assert_int_eq(sim_verlet_load(&b, &rd), 0);
    sim_verlet_free(&a);
    sim_verlet_free(&b);
}
END_TEST

/* The same 60-fruit run twice gives the same bytes, and so does one saved and loaded halfway
 * (the sweep order is scratch: it must not matter what it held). */
START_TEST(pile_is_deterministic)
{
    fruit_box();
    static uint8_t b1[16384], b2[16384], b3[16384];
    sim_verlet x, y, z;
    mk_fruit(&x, 8, 1);
    mk_fruit(&y, 8, 1);
    mk_fruit(&z, 8, 1);
    drop_60(&x, 7);
    drop_60(&y, 7);
    for (int t = 0; t < 150; t++) {
        sim_verlet_step(&x);
        sim_verlet_step(&y);
    }
    size_t n = save_bytes(&x, b1, sizeof b1);
    sim_reader rd;
    sim__r_init(&rd, b1, n);
    ck_assert_int_eq(sim_verlet_load(&z, &rd), 0);
    for (int t = 0; t < 250; t++) {
        sim_verlet_step(&x);
        sim_verlet_step(&y);
        sim_verlet_step(&z);
        ck_assert_int_eq(x.npair, z.npair);
    }
    n = save_bytes(&x, b1, sizeof b1);
    ck_assert_uint_eq(save_bytes(&y, b2, sizeof b2), n);
    ck_assert_uint_eq(save_bytes(&z, b3, sizeof b3), n);
    ck_assert_msg(fnv1a(b1, n) == fnv1a(b2, n), "two runs differ");
    ck_assert_msg(fnv1a(b1, n) == fnv1a(b3, n), "a save and load changed the run");
    ck_assert_int_eq(memcmp(b1, b3, n), 0);
    sim_verlet_free(&x);
    sim_verlet_free(&y);
    sim_verlet_free(&z);
}
END_TEST

/* `passes` replaces SIM_VL_PASSES: a soft link relaxed 8 times a step (0 keeps 4). */
START_TEST(passes_is_per_solver)
{
    nsegs = 0;
    for (int passes = 0; passes <= 8; passes += 8) {
        sim_verlet v;
        mk(&v, 0.0, 0.0);
        v.passes = passes;
        sim_verlet_body_begin(&v, 0);
        int a = sim_verlet_add_chunk(&v, 0, 0, 1, 1.0);
        int b = sim_verlet_add_chunk(&v, 20, 0, 1, 1.0);
        sim_verlet_add_link(&v, a, b, 10.0, 0.06);
        sim_verlet_step(&v);
        double keep = 1.0;
        for (int i = 0; i < (passes ? passes : SIM_VL_PASSES); i++) keep *= 0.94;
        ck_assert_double_eq_tol(v.chunk[b].x - v.chunk[a].x - 10.0, 10.0 * keep, 1e-9);
        sim_verlet_free(&v);
    }
}
END_TEST

Suite *suite_verlet(void)
{
    Suite *s = suite_create("verlet");
    TCase *tc = tcase_create("solve");
    tcase_add_test(tc, link_weighted_by_inverse_mass);
    tcase_add_test(tc, soft_link_corrects_part_per_pass);
    tcase_add_test(tc, rope_is_ten_chunks_at_ten);
    tcase_add_test(tc, pinned_rope_hangs_straight);
    suite_add_tcase(s, tc);
    tc = tcase_create("collision");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, never_inside_solid_and_capped);
    tcase_add_test(tc, fall_speed_capped_at_nine);
    tcase_add_test(tc, one_way_plank);
    tcase_add_test(tc, poles_do_not_collide);
    tcase_add_test(tc, collision_response);
    tcase_add_test(tc, side_decided_by_previous_position);
    suite_add_tcase(s, tc);
    tc = tcase_create("parts");
    tcase_add_test(tc, pins_keep_body_order_and_pull);
    tcase_add_test(tc, build_refuses_bad_parts);
    tcase_add_test(tc, ground_and_line_of_sight);
    suite_add_tcase(s, tc);
    tc = tcase_create("state");
    tcase_add_test(tc, save_load_round_trip);
    tcase_add_test(tc, load_refuses_garbage);
    tcase_add_test(tc, fmt_double_reports_value_and_bits);
    tcase_add_test(tc, spin_off_keeps_old_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("fruit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, disc_rolls_down_a_slope);
    tcase_add_test(tc, spin_drives_disc_along_floor);
    tcase_add_test(tc, touching_a_wall_is_not_friction);
    tcase_add_test(tc, angle_stays_wrapped);
    tcase_add_test(tc, discs_collide_and_keep_momentum);
    tcase_add_test(tc, pile_conserves_momentum);
    tcase_add_test(tc, pile_of_60_settles);
    tcase_add_test(tc, pair_list_is_exact);
    tcase_add_test(tc, body_remove_renumbers);
    tcase_add_test(tc, spin_state_round_trip);
    tcase_add_test(tc, pile_is_deterministic);
    tcase_add_test(tc, passes_is_per_solver);
    suite_add_tcase(s, tc);
    return s;
}
