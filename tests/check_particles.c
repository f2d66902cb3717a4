/* check_particles.c — fire and smoke (sim/anim/particles.c, seed 000 §5) as a viewer sees them:
 * each particle walks its ramp in order, hot to dark, and is gone at its lifetime; squares of
 * 1–3 px in ramp colours only; flames rise, smoke goes with the wind; the flicker changes frames
 * and never the state; the pool is fixed; save → load → continue equals continue, and refused
 * blobs. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/particles.h"

static const uint8_t fire_ramp[5] = { 20, 21, 22, 23, 24 };   /* white, yellow, orange, red, dark */
static const uint8_t smoke_ramp[3] = { 30, 31, 32 };

static void mk(sim_particles *ps, int cap)
{
    sim_pt_kind k[2] = { sim_pt_fire(fire_ramp), sim_pt_smoke(smoke_ramp) };
    ck_assert_int_eq(sim_particles_init(ps, cap, k, 2), 0);
}

/* The defining property: a flame of life 30 shows white, yellow, orange, red, dark in that order,
 * six ticks each, never going back, and is gone after exactly 30 ticks. Every particle of a
 * running fire, with lives drawn from 14–30, dies at exactly its own life. */
START_TEST(ramp_in_order_then_death)
{
    sim_pt_kind k = sim_pt_fire(fire_ramp);
    k.life_min = k.life_max = 30;
    sim_particles ps;
    ck_assert_int_eq(sim_particles_init(&ps, 4, &k, 1), 0);
    sim_rng r;
    sim_rng_stream(&r, 1, "fire");
    int i = sim_particles_emit(&ps, 0, 100, 100, &r);
    ck_assert_int_eq(i, 0);
    int seen[5] = {0};
    int prev = 0;
    for (int t = 0; t < 30; t++) {
        int s = sim_particle_stage(&ps, i);
        ck_assert_msg(s >= prev && s <= prev + 1, "tick %d: stage %d after %d", t, s, prev);
        seen[s]++;
        prev = s;
        sim_particles_step(&ps, &r, 0);
        if (t < 29) ck_assert_int_ne(ps.p[i].life, 0);
    }
    for (int s = 0; s < 5; s++) ck_assert_int_eq(seen[s], 6);
    ck_assert_int_eq(ps.p[i].life, 0);
    ck_assert_int_eq(ps.nalive, 0);
    ck_assert_int_eq(sim_particle_stage(&ps, i), -1);
    sim_particles_free(&ps);

    mk(&ps, 256);
    int born[256], life[256];
    for (int t = 0; t < 400; t++) {
        for (int e = 0; e < 3; e++) {
            int j = sim_particles_emit(&ps, 0, 160, 150, &r);
            if (j >= 0) {
                born[j] = t;
                life[j] = ps.p[j].life;
                ck_assert(life[j] >= 14 && life[j] <= 30);
            }
        }
        int was[256];
        for (int j = 0; j < 256; j++) was[j] = ps.p[j].life != 0;
        sim_particles_step(&ps, &r, 0);
        for (int j = 0; j < 256; j++) {
            if (!was[j]) continue;
            int age = t + 1 - born[j];
            ck_assert_msg((ps.p[j].life == 0) == (age == life[j]), "slot %d: age %d of %d", j, age,
                          life[j]);
        }
    }
    sim_particles_free(&ps);
}
END_TEST

/* Drawn: squares of 1–3 px in the ramps' colours, nothing else; a 3-px flame is born and ends at
 * 1 px; smoke grows from 2 to 3. */
START_TEST(draw_squares_in_ramp_colours)
{
    sim_particles ps;
    mk(&ps, 512);
    sim_rng r;
    sim_rng_stream(&r, 2, "fire");
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 320, 180), 0);
    int drawn = 0;
    for (int t = 0; t < 300; t++) {
        for (int e = 0; e < 3; e++) sim_particles_emit(&ps, 0, 160, 160, &r);
        if (t % 4 == 0) sim_particles_emit(&ps, 1, 160, 145, &r);
        sim_particles_step(&ps, &r, 30);
        for (int j = 0; j < ps.cap; j++) {
            if (!ps.p[j].life) continue;
            int s = sim_particle_size(&ps, j);
            ck_assert(s >= 1 && s <= 3);
            if (ps.p[j].age == ps.p[j].life - 1)
                ck_assert_int_eq(s, ps.p[j].kind == 0 ? 1 : 3);
        }
        sim_raster_clear(&f, 0);
        sim_particles_draw(&ps, &f, 7, (uint64_t)t);
        int off = -1;
        for (int p = 0; p < 320 * 180; p++) {
            uint8_t c = f.px[p];
            if (!(c == 0 || (c >= 20 && c <= 24) || (c >= 30 && c <= 32))) off = c;
            drawn += c != 0;
        }
        ck_assert_msg(off < 0, "tick %d: index %d drawn", t, off);
    }
    ck_assert(drawn > 1000);
    /* a lone particle is exactly a square of its size at its pixel */
    sim_particles_clear(&ps);
    int j = sim_particles_emit(&ps, 1, 50, 50, &r);
    sim_raster_clear(&f, 0);
    sim_particles_draw(&ps, &f, 7, 0);
    int x, y, n = 0, s = sim_particle_size(&ps, j);
    sim_particle_pixel(&ps, j, &x, &y);
    ck_assert_int_eq(s, 2);
    for (int p = 0; p < 320 * 180; p++) n += f.px[p] != 0;
    ck_assert_int_eq(n, 4);
    ck_assert_int_ne(f.px[y * 320 + x], 0);
    ck_assert_int_ne(f.px[(y + 1) * 320 + x + 1], 0);
    sim_frame_free(&f);
    sim_particles_free(&ps);
}
END_TEST

/* Flames rise; smoke leans with the wind, and the other way in the mirrored wind. */
START_TEST(flames_rise_smoke_follows_wind)
{
    long sx[2] = {0, 0}, n[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        sim_particles ps;
        mk(&ps, 1024);
        sim_rng r;
        sim_rng_stream(&r, 3, "fire");
        long rise = 0, nf = 0;
        for (int t = 0; t < 600; t++) {
            sim_particles_emit(&ps, 0, 160, 160, &r);
            if (t % 4 == 0) sim_particles_emit(&ps, 1, 160, 145, &r);
            sim_particles_step(&ps, &r, side ? -100 : 100);
        }
        for (int j = 0; j < ps.cap; j++) {
            if (!ps.p[j].life) continue;
            int x, y;
            sim_particle_pixel(&ps, j, &x, &y);
            if (ps.p[j].kind == 0) {
                rise += 160 - y;
                nf++;
            } else if (ps.p[j].age > 40) {
                sx[side] += x - 160;
                n[side]++;
            }
        }
        ck_assert(nf > 5 && rise / nf >= 4);      /* flames stand above the fire */
        sim_particles_free(&ps);
    }
    ck_assert(n[0] > 5 && n[1] > 5);
    ck_assert_msg(sx[0] / n[0] > 20 && sx[1] / n[1] < -20, "smoke x %ld, %ld", sx[0] / n[0],
                  sx[1] / n[1]);
}
END_TEST

static size_t save(const sim_particles *ps, uint8_t *buf, size_t cap)
{
    sim_writer wr;
    sim__w_init(&wr, buf, cap);
    sim_particles_save(ps, &wr);
    ck_assert(!wr.overflow);
    ck_assert_uint_le(wr.len, sim_particles_save_max(ps));
    return wr.len;
}

/* Flicker is render-time only: drawing every tick (at varying ticks) leaves the state byte for
 * byte what a pool never drawn has; and it does flicker: the same state drawn at another tick
 * gives another frame, at the same tick the same frame. */
START_TEST(flicker_is_not_state)
{
    sim_particles a, b;
    mk(&a, 256);
    mk(&b, 256);
    sim_rng ra, rb;
    sim_rng_stream(&ra, 4, "fire");
    sim_rng_stream(&rb, 4, "fire");
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 320, 180), 0);
    for (int t = 0; t < 300; t++) {
        sim_particles_emit(&a, 0, 160, 160, &ra);
        sim_particles_emit(&b, 0, 160, 160, &rb);
        sim_particles_step(&a, &ra, 10);
        sim_particles_step(&b, &rb, 10);
        sim_particles_draw(&a, &f, 99, (uint64_t)t * 7919);
    }
    static uint8_t ba[8192], bb[8192], f1[320 * 180];
    size_t n = save(&a, ba, sizeof ba);
    ck_assert_uint_eq(save(&b, bb, sizeof bb), n);
    ck_assert_mem_eq(ba, bb, n);
    ck_assert_int_eq(memcmp(&ra, &rb, sizeof ra), 0);
    sim_raster_clear(&f, 0);
    sim_particles_draw(&a, &f, 99, 1000);
    memcpy(f1, f.px, sizeof f1);
    sim_raster_clear(&f, 0);
    sim_particles_draw(&a, &f, 99, 1000);
    ck_assert_mem_eq(f.px, f1, sizeof f1);
    sim_raster_clear(&f, 0);
    sim_particles_draw(&a, &f, 99, 1001);
    ck_assert(memcmp(f.px, f1, sizeof f1) != 0);
    sim_frame_free(&f);
    sim_particles_free(&a);
    sim_particles_free(&b);
}
END_TEST

/* A fixed pool: the slot after the last is refused without touching the rng, and a freed slot is
 * the next one taken (lowest first). */
START_TEST(fixed_pool)
{
    sim_particles ps;
    mk(&ps, 8);
    sim_rng r;
    sim_rng_stream(&r, 5, "fire");
    for (int i = 0; i < 8; i++) ck_assert_int_eq(sim_particles_emit(&ps, 1, 10, 10, &r), i);
    sim_rng before = r;
    ck_assert_int_eq(sim_particles_emit(&ps, 1, 10, 10, &r), SIM_EFULL);
    ck_assert_int_eq(memcmp(&before, &r, sizeof r), 0);
    ck_assert_int_eq(sim_particles_emit(&ps, 2, 10, 10, &r), SIM_EINVAL);
    ck_assert_int_eq(sim_particles_emit(&ps, 0, 1 << 30, 10, &r), SIM_EINVAL);
    memset(&ps.p[5], 0, sizeof ps.p[5]);
    ps.nalive--;
    ck_assert_int_eq(sim_particles_emit(&ps, 0, 10, 10, &r), 5);
    ck_assert_int_eq(ps.nalive, 8);
    sim_particles_free(&ps);
    sim_pt_kind bad = sim_pt_fire(fire_ramp);
    bad.size_max = 4;
    ck_assert_int_eq(sim_particles_init(&ps, 8, &bad, 1), SIM_EINVAL);
    bad = sim_pt_fire(fire_ramp);
    bad.nramp = 6;
    ck_assert_int_eq(sim_particles_init(&ps, 8, &bad, 1), SIM_EINVAL);
    ck_assert_int_eq(sim_particles_init(&ps, 0, &bad, 1), SIM_EINVAL);
}
END_TEST

/* save → load → continue equals continue, mid-fire. */
START_TEST(save_load_continue)
{
    sim_particles a, b;
    mk(&a, 300);
    mk(&b, 300);
    sim_rng r;
    sim_rng_stream(&r, 6, "fire");
    for (int t = 0; t < 200; t++) {
        sim_particles_emit(&a, 0, 160, 160, &r);
        if (t % 4 == 0) sim_particles_emit(&a, 1, 160, 145, &r);
        sim_particles_step(&a, &r, t % 200 - 100);
    }
    static uint8_t buf[16384], buf2[16384];
    size_t n = save(&a, buf, sizeof buf);
    sim_reader rd;
    sim__r_init(&rd, buf, n);
    ck_assert_int_eq(sim_particles_load(&b, &rd), 0);
    ck_assert_uint_eq(rd.pos, n);
    ck_assert_int_eq(b.nalive, a.nalive);
    sim_rng rb = r;                   /* the rng is the world's: it saves its own */
    for (int t = 0; t < 300; t++) {
        sim_particles_emit(&a, 0, 150, 160, &r);
        sim_particles_emit(&b, 0, 150, 160, &rb);
        sim_particles_step(&a, &r, 40);
        sim_particles_step(&b, &rb, 40);
    }
    n = save(&a, buf, sizeof buf);
    ck_assert_uint_eq(save(&b, buf2, sizeof buf2), n);
    ck_assert_mem_eq(buf, buf2, n);
    sim_particles_free(&a);
    sim_particles_free(&b);
}
END_TEST

/* Refused, the target untouched: a wrong tag or capacity, slots out of order or past the pool, an
 * unknown kind, age ≥ life, a size of 0 or 4, a speed past the cap, and every truncation. */
START_TEST(load_refuses_corrupt)
{
    sim_particles a, b;
    mk(&a, 16);
    mk(&b, 16);
    sim_rng r;
    sim_rng_stream(&r, 8, "fire");
    for (int i = 0; i < 3; i++) sim_particles_emit(&a, i & 1, 40, 40, &r);
    sim_particles_step(&a, &r, 0);
    sim_particles_emit(&b, 1, 5, 5, &r);
    static uint8_t buf[1024], bad[1024], before[1024], after[1024];
    size_t n = save(&a, buf, sizeof buf), nb = save(&b, before, sizeof before);
    ck_assert_uint_eq(n, 6 + 3 * 20);
    /* record k starts at 6 + 20k: slot 0, x 2, y 6, vx 10, vy 12, age 14, life 16, size 18,
     * kind 19 */
    struct { size_t at; uint8_t v; } pokes[] = {
        { 0, 0 }, { 2, 15 }, { 4, 17 },
        { 6 + 20, 0 },                    /* record 1 in slot 0 again: out of order */
        { 6 + 40, 16 },                   /* slot 16 of 16 */
        { 6 + 19, 2 },                    /* kind 2 */
        { 6 + 14, 200 },                  /* age 200 ≥ life */
        { 6 + 18, 0 }, { 6 + 18, 4 },     /* sizes */
        { 6 + 11, 0x7f },                 /* vx huge */
        { 6 + 16, 0 },                    /* life 0 (with the high byte below) */
        { 6 + 17, 0x7f },                 /* life past SIM_PT_LIFE_MAX */
        { 6 + 5, 0x7f },                  /* x past the bound */
    };
    for (size_t k = 0; k < sizeof pokes / sizeof pokes[0]; k++) {
        memcpy(bad, buf, n);
        bad[pokes[k].at] = pokes[k].v;
        if (pokes[k].at == 6 + 16) bad[6 + 17] = 0;
        sim_reader rd;
        sim__r_init(&rd, bad, n);
        ck_assert_msg(sim_particles_load(&b, &rd) == SIM_ECORRUPT, "poke %zu", k);
        ck_assert_uint_eq(save(&b, after, sizeof after), nb);
        ck_assert_mem_eq(after, before, nb);
    }
    for (size_t len = 0; len < n; len++) {
        sim_reader rd;
        sim__r_init(&rd, buf, len);
        ck_assert_int_eq(sim_particles_load(&b, &rd), SIM_ETRUNC);
        save(&b, after, sizeof after);
        ck_assert_mem_eq(after, before, nb);
    }
    sim_particles_free(&a);
    sim_particles_free(&b);
}
END_TEST

Suite *suite_particles(void)
{
    Suite *s = suite_create("particles");
    TCase *t = tcase_create("fire and smoke");
    tcase_add_test(t, ramp_in_order_then_death);
    tcase_add_test(t, draw_squares_in_ramp_colours);
    tcase_add_test(t, flames_rise_smoke_follows_wind);
    tcase_add_test(t, flicker_is_not_state);
    tcase_add_test(t, fixed_pool);
    tcase_add_test(t, save_load_continue);
    tcase_add_test(t, load_refuses_corrupt);
    suite_add_tcase(s, t);
    return s;
}
