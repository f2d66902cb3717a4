/* check_verlet.c — the Verlet frame on its own: the solve order and weighting, collision (the
 * side kept, the displacement cap, one-way planks, poles, the friction), makeRope, pins, terrain
 * queries, and save/load with every refusal. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "verlet.h"

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
    suite_add_tcase(s, tc);
    return s;
}
