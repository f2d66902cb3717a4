/* check_garden.c — the garden world (sim/garden/, seed 000): what a user would notice. A poke
 * flashes the creature under it for exactly its ticks (and a gnome or a villager jumps); a poke
 * on the pond moves its surface, above it a stone falls in; the wind turns the flag and the grass;
 * the butterfly led by `target` brings the vine's tip and the serpent to it; spawn adds a creature
 * and refuses past the cap; bad inputs are refused and change nothing; inks=8 frames hold 8
 * indexes; the gnome's hop plays anticipation, one smear frame, stretch, the landing pop; the
 * villagers breathe out of step and throw stones on the seed's holds; the warm palette by the
 * fire; grass parts where creatures walk; the demo lives for a minute on its own; corrupt states
 * are refused untouched and desync reports name fields. The golden chain and the sync test come
 * from the kinds list (check_kinds.c); each engine piece has its own suite. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "garden/garden_int.h"

static sim_world *mk(const char *params) { return script_world("garden", 7, params); }
static garden_world *impl(sim_world *w) { return sim__world_impl(w); }

static void run(sim_world *w, int ticks)
{
    for (int t = 0; t < ticks; t++) sim_world_step(w);
}

static int input(sim_world *w, const char *name, int nargs, int32_t a0, int32_t a1, int32_t a2)
{
    static uint32_t seq;
    sim_input in = { 0 };
    in.tick = sim_world_tick(w);
    in.client = 1;
    in.seq = ++seq;
    int k = sim_kind_input_find(sim_world_kind(w), name);
    ck_assert_int_ge(k, 0);
    in.kind = (uint16_t)k;
    in.nargs = (uint16_t)nargs;
    in.args[0] = a0;
    in.args[1] = a1;
    in.args[2] = a2;
    return sim_world_input(w, &in);
}

/* Pixels of ink c in the box [x0, x1] × [y0, y1] of a rendered frame. */
static int count_in(const sim_frame *f, int x0, int y0, int x1, int y1, uint8_t c)
{
    int n = 0;
    for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < f->h; y++)
        for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < f->w; x++) n += f->px[y * f->w + x] == c;
    return n;
}

/* ---- the poke ------------------------------------------------------------------------------- */
/* The creature under the pointer shows its white silhouette for exactly the juice's flash ticks
 * (3, seed: 2–4), from the tick of the poke: a gnome, a villager, the serpent, a vine. */
static void flash_check(sim_world *w, const sim_juice *j, int x, int y, int bx0, int by0, int bx1,
                        int by1)
{
    const garden_world *g = impl(w);
    sim_frame f;
    sim_world_frame_init(w, &f);
    sim_world_render(w, 0, &f);
    int before = count_in(&f, bx0, by0, bx1, by1, GC_WHITE);
    ck_assert_int_eq(input(w, "poke", 2, x, y, 0), 0);
    int lit = 0;
    for (int t = 0; t < g->jcfg.flash_ticks + 3; t++) {
        run(w, 1);
        sim_world_render(w, 0, &f);
        int white = count_in(&f, bx0, by0, bx1, by1, GC_WHITE);
        if (t < g->jcfg.flash_ticks) {
            ck_assert_int_gt(j->flash_left, 0);
            ck_assert_int_gt(white, before + 20);          /* a silhouette, not a few pixels */
            lit++;
        } else {
            ck_assert_int_eq(j->flash_left, 0);
            ck_assert_int_lt(white, before + 20);
        }
    }
    ck_assert_int_eq(lit, SIM_JUICE_FLASH_TICKS);
    sim_frame_free(&f);
}

START_TEST(poke_flashes_the_creature_for_its_ticks)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    run(w, 5);
    /* a gnome (it jumps, so the box reaches up) */
    int x = sim_snap(g->walker[1].x);
    flash_check(w, &g->walker[1].juice, x, GARDEN_GROUND - 6, x - 8, GARDEN_GROUND - 45, x + 8,
                GARDEN_GROUND - 1);
    ck_assert_int_ne(g->walker[1].juice.hop, SIM_HOP_REST);       /* startled: a hop after it */
    /* a villager */
    x = sim_snap(g->biped[0].b.x);
    flash_check(w, &g->biped[0].juice, x, GARDEN_GROUND - 8, x - 9, GARDEN_GROUND - 30, x + 9,
                GARDEN_GROUND);
    ck_assert_int_eq(g->biped[0].b.state, GB_STARTLED);           /* its hair shows it */
    /* the serpent, where its middle is now */
    run(w, 40);
    x = sim_snap(g->serpent[0].spine.x[6]);
    int y = sim_snap(g->serpent[0].spine.y[6]);
    flash_check(w, &g->serpent[0].juice, x, y, x - 40, y - 40, x + 40, y + 40);
    /* a vine, at its fourth joint */
    x = sim_snap(g->vine[0].reach.x[4]);
    y = sim_snap(g->vine[0].reach.y[4]);
    flash_check(w, &g->vine[0].juice, x, y, x - 30, y - 45, x + 30, GARDEN_GROUND);
    sim_world_destroy(w);
}
END_TEST

/* A poke in the pond moves its surface where the player sees it; a poke above the pond drops a
 * stone that falls and splashes; a poke on the meadow parts the grass there. */
START_TEST(poke_splashes_the_pond_and_drops_stones)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    run(w, 5);
    ck_assert(sim_water_energy(&g->pond) == 0.0);                 /* nobody has thrown yet */
    sim_frame f0, f1;
    sim_world_frame_init(w, &f0);
    sim_world_frame_init(w, &f1);
    sim_world_render(w, 0, &f0);
    int64_t vol = sim_water_volume(&g->pond);
    ck_assert_int_eq(input(w, "poke", 2, 220, 160, 0), 0);
    run(w, 12);
    sim_world_render(w, 0, &f1);
    int moved = 0, changed = 0;
    for (int i = 0; i < GARDEN_POND_N; i++) moved += sim_water_height(&g->pond, i) != 0;
    for (int y = GARDEN_GROUND - 6; y < GARDEN_POND_REST + 8; y++)
        for (int x = GARDEN_POND_X0; x <= GARDEN_POND_X1; x++)
            changed += f0.px[y * GARDEN_W + x] != f1.px[y * GARDEN_W + x];
    ck_assert_int_gt(moved, 4);
    ck_assert_int_gt(changed, 10);
    ck_assert(sim_water_volume(&g->pond) == vol);                 /* a splash moves water, exactly */
    /* a stone from above */
    run(w, 1500);                                                 /* the pond comes to rest */
    double e0 = sim_water_energy(&g->pond);
    ck_assert_int_eq(input(w, "poke", 2, 240, 60, 0), 0);
    run(w, 1);
    ck_assert_int_eq(g->nstone, 1);
    double y0 = g->stone[0].y;
    run(w, 10);
    ck_assert_int_eq(g->nstone, 1);
    ck_assert(g->stone[0].y > y0 + 5.0);                          /* it falls */
    run(w, 40);
    ck_assert_int_eq(g->nstone, 0);                               /* and is in the water */
    ck_assert(sim_water_energy(&g->pond) > e0 + 1.0);
    /* the meadow */
    int near = -1;
    for (int i = 0; i < g->back.ntuft && near < 0; i++) {
        int x = g->back.tuft[i].x - 3, hit = 0;
        for (int k = 0; k < g->nbiped; k++) hit |= sim__garden_hit_biped(g, k, x, GARDEN_GROUND - 2);
        for (int k = 0; k < g->nwalker; k++) hit |= sim__garden_hit_walker(g, k, x, GARDEN_GROUND - 2);
        for (int k = 0; k < g->nvine; k++) hit |= sim__garden_hit_vine(g, k, x, GARDEN_GROUND - 2);
        if (!hit && x > 40 && x < 190) near = i;
    }
    ck_assert_int_ge(near, 0);
    ck_assert_int_eq(input(w, "poke", 2, g->back.tuft[near].x - 3, GARDEN_GROUND - 2, 0), 0);
    run(w, 1);
    ck_assert_int_ne(g->back.tuft[near].bend, 0);
    sim_frame_free(&f0);
    sim_frame_free(&f1);
    sim_world_destroy(w);
}
END_TEST

/* ---- wind ------------------------------------------------------------------------------------ */
/* A gale right streams the flag right of its pole and leans the grass right; a gale left, left;
 * the frames differ in the flag and the grass. The player's wind stands 15 s. */
START_TEST(wind_turns_the_flag_and_the_grass)
{
    sim_world *a = mk("wander=0"), *b = mk("wander=0");
    garden_world *ga = impl(a), *gb = impl(b);
    ck_assert_int_eq(input(a, "wind", 1, 100, 0, 0), 0);
    ck_assert_int_eq(input(b, "wind", 1, -100, 0, 0), 0);
    run(a, 400);
    run(b, 400);
    ck_assert_int_eq(ga->wind, 100);
    ck_assert_int_eq(gb->wind, -100);
    double ma = 0, mb = 0;
    int n = 0;
    for (int k = 0; k < ga->flag.w * ga->flag.h; k++)
        if (!ga->flag.pin[k]) {
            ma += ga->flag.x[k];
            mb += gb->flag.x[k];
            n++;
        }
    ck_assert(ma / n > GARDEN_POLE_X + 8);
    ck_assert(mb / n < GARDEN_POLE_X - 8);
    double la = 0, lb = 0;
    for (int i = 0; i < ga->back.ntuft; i++) {
        la += sim_grass_lean(&ga->back, i);
        lb += sim_grass_lean(&gb->back, i);
    }
    ck_assert(la / ga->back.ntuft > 0.5);
    ck_assert(lb / gb->back.ntuft < -0.5);
    sim_frame fa, fb;
    sim_world_frame_init(a, &fa);
    sim_world_frame_init(b, &fb);
    sim_world_render(a, 0, &fa);
    sim_world_render(b, 0, &fb);
    int flag_px = 0, grass_px = 0;
    for (int y = GARDEN_POLE_TOP - 4; y < GARDEN_POLE_TOP + 40; y++)
        for (int x = GARDEN_POLE_X - 40; x < GARDEN_W; x++) flag_px += fa.px[y * GARDEN_W + x] != fb.px[y * GARDEN_W + x];
    for (int y = GARDEN_GROUND - 12; y < GARDEN_GROUND; y++)
        for (int x = 60; x < 190; x++) grass_px += fa.px[y * GARDEN_W + x] != fb.px[y * GARDEN_W + x];
    ck_assert_int_gt(flag_px, 100);
    ck_assert_int_gt(grass_px, 50);
    sim_frame_free(&fa);
    sim_frame_free(&fb);
    /* with the pilot on, the player's wind stands its 15 s and then wanders again */
    sim_world *c = mk(NULL);
    garden_world *gc = impl(c);
    ck_assert_int_eq(input(c, "wind", 1, -90, 0, 0), 0);
    run(c, GARDEN_WIND_HOLD);
    ck_assert_int_eq(gc->wind, -90);
    run(c, 900);
    ck_assert_int_ne(gc->wind, -90);
    sim_world_destroy(a);
    sim_world_destroy(b);
    sim_world_destroy(c);
}
END_TEST

/* ---- target ------------------------------------------------------------------------------------ */
/* The butterfly flies to the target; the vine's tip comes to it (within reach), and the serpent
 * circles it. -1 -1 lets it go. */
START_TEST(target_brings_the_vine_tip_and_the_serpent)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    const int tx = 125, ty = 120;
    const sim_fabrik *r = &g->vine[0].reach;
    double d0x = r->x[r->n - 1] - tx, d0y = r->y[r->n - 1] - ty;
    double d0 = sim_sqrt(d0x * d0x + d0y * d0y);
    ck_assert(d0 > 15.0);
    ck_assert_int_eq(input(w, "target", 2, tx, ty, 0), 0);
    run(w, 300);
    double dx = r->x[r->n - 1] - tx, dy = r->y[r->n - 1] - ty;
    ck_assert(sim_sqrt(dx * dx + dy * dy) < 1.5);
    ck_assert(r->x[0] == g->vine[0].root_x && r->y[0] == GARDEN_GROUND);   /* rooted */
    for (int t = 0; t < 300; t++) {
        run(w, 1);
        double hx = g->serpent[0].spine.x[0] - tx, hy = g->serpent[0].spine.y[0] - ty;
        ck_assert(sim_sqrt(hx * hx + hy * hy) < GARDEN_ORBIT_R + 4.0);
    }
    ck_assert_int_eq(input(w, "target", 2, -1, -1, 0), 0);
    run(w, 1);
    ck_assert_int_eq(g->aim_hold, 0);
    sim_world_destroy(w);
}
END_TEST

/* ---- spawn --------------------------------------------------------------------------------------- */
/* Each kind up to its cap; the next is refused with a sentence and the world is as its twin that
 * never got it; spawns queued together in one tick never overrun the cap. */
START_TEST(spawn_adds_and_refuses_past_the_cap)
{
    sim_world *w = mk("scene=empty"), *twin = mk("scene=empty");
    garden_world *g = impl(w);
    static const int caps[GARDEN_NCREATURES] = { GARDEN_MAX_SERPENTS, GARDEN_MAX_VINES,
                                                 GARDEN_MAX_BIPEDS, GARDEN_MAX_WALKERS,
                                                 GARDEN_MAX_LIZARDS };
    for (int k = 0; k < GARDEN_NCREATURES; k++)
        for (int i = 0; i < caps[k]; i++) {
            int counts[GARDEN_NCREATURES] = { g->nserpent, g->nvine, g->nbiped, g->nwalker, g->nlizard };
            ck_assert_int_eq(input(w, "spawn", 3, k, 30 + 40 * i, 80), 0);
            ck_assert_int_eq(input(twin, "spawn", 3, k, 30 + 40 * i, 80), 0);
            run(w, 1);
            run(twin, 1);
            int now[GARDEN_NCREATURES] = { g->nserpent, g->nvine, g->nbiped, g->nwalker, g->nlizard };
            ck_assert_int_eq(now[k], counts[k] + 1);
        }
    for (int k = 0; k < GARDEN_NCREATURES; k++) {
        ck_assert_int_eq(input(w, "spawn", 3, k, 100, 80), SIM_EINPUT);
        ck_assert_ptr_nonnull(strstr(sim_world_error(w), "the most it holds"));
    }
    run(w, 30);
    run(twin, 30);
    ck_assert_uint_eq(sim_world_hash(w), sim_world_hash(twin));
    /* two spawns in one tick with room for one */
    sim_world *v = mk("scene=empty");
    garden_world *gv = impl(v);
    for (int i = 0; i < GARDEN_MAX_SERPENTS - 1; i++) {
        ck_assert_int_eq(input(v, "spawn", 3, GARDEN_SERPENT, 50 + 50 * i, 60), 0);
        run(v, 1);
    }
    ck_assert_int_eq(input(v, "spawn", 3, GARDEN_SERPENT, 200, 60), 0);
    ck_assert_int_eq(input(v, "spawn", 3, GARDEN_SERPENT, 250, 60), 0);
    run(v, 1);
    ck_assert_int_eq(gv->nserpent, GARDEN_MAX_SERPENTS);
    /* a walker asked for in the pond stands on the nearest bank */
    ck_assert_int_eq(input(v, "spawn", 3, GARDEN_WALKER, 230, 100), 0);
    run(v, 1);
    ck_assert(gv->walker[0].x == GARDEN_LEFT_X1);
    sim_world_destroy(v);
    sim_world_destroy(w);
    sim_world_destroy(twin);
}
END_TEST

/* Bad arguments get the world's error and change nothing: the world stays its twin's. */
START_TEST(bad_inputs_refused_and_change_nothing)
{
    sim_world *w = mk(NULL), *twin = mk(NULL);
    run(w, 10);
    run(twin, 10);
    ck_assert_int_eq(input(w, "poke", 2, -1, 50, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "poke", 2, GARDEN_W, 50, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "poke", 2, 10, GARDEN_H, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "poke", 1, 10, 0, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "wind", 1, 101, 0, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "wind", 1, -101, 0, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "target", 2, -1, 50, 0), SIM_EINPUT);
    ck_assert_ptr_nonnull(strstr(sim_world_error(w), "-1 -1"));
    ck_assert_int_eq(input(w, "target", 2, 50, -1, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "target", 2, 50, GARDEN_H, 0), SIM_EINPUT);
    ck_assert_int_eq(input(w, "spawn", 3, GARDEN_NCREATURES, 50, 50), SIM_EINPUT);
    ck_assert_int_eq(input(w, "spawn", 3, GARDEN_WALKER, 400, 50), SIM_EINPUT);
    ck_assert_int_eq(input(w, "spawn", 3, -1, 50, 50), SIM_EINPUT);
    run(w, 60);
    run(twin, 60);
    ck_assert_uint_eq(sim_world_hash(w), sim_world_hash(twin));
    sim_world_destroy(w);
    sim_world_destroy(twin);
}
END_TEST

/* ---- inks ---------------------------------------------------------------------------------------- */
/* inks=8: every pixel of every frame, both views, is one of the garden's 8 inks; the unlocked
 * scene uses many more; inks=5 holds at most 5. */
START_TEST(inks8_frames_hold_only_the_eight)
{
    sim_world *w = mk("inks=8"), *full = mk(NULL), *five = mk("inks=5");
    sim_frame f;
    sim_world_frame_init(w, &f);
    int in8[256] = { 0 };
    for (int i = 0; i < 8; i++) in8[sim__garden_inks8[i]] = 1;
    for (int t = 0; t < 10; t++) {
        run(w, 60);
        for (int view = 0; view < 2; view++) {
            sim_world_render(w, view, &f);
            for (int i = 0; i < GARDEN_W * GARDEN_H; i++) ck_assert(in8[f.px[i]]);
        }
    }
    int used[256] = { 0 }, distinct = 0;
    run(full, 600);
    sim_world_render(full, 0, &f);
    for (int i = 0; i < GARDEN_W * GARDEN_H; i++) used[f.px[i]] = 1;
    for (int i = 0; i < 256; i++) distinct += used[i];
    ck_assert_int_gt(distinct, 30);
    memset(used, 0, sizeof used);
    distinct = 0;
    run(five, 600);
    sim_world_render(five, 0, &f);
    for (int i = 0; i < GARDEN_W * GARDEN_H; i++) used[f.px[i]] = 1;
    for (int i = 0; i < 256; i++) distinct += used[i];
    ck_assert_int_le(distinct, 5);
    ck_assert_int_ge(distinct, 3);
    sim_frame_free(&f);
    sim_world_destroy(w);
    sim_world_destroy(full);
    sim_world_destroy(five);
}
END_TEST

/* ---- the gnome's juice ------------------------------------------------------------------------------ */
/* Rows of the gnome drawn at column band x ± 9: its height on screen (a rising smear trails below
 * the feet, into the grass). */
static int drawn_rows(const sim_frame *f, const sim_frame *bg, int x)
{
    int top = -1, bottom = -1;
    for (int y = 0; y < GARDEN_GROUND + 8; y++)
        for (int c = x - 9; c <= x + 9; c++)
            if (f->px[y * GARDEN_W + c] != bg->px[y * GARDEN_W + c]) {
                if (top < 0) top = y;
                bottom = y;
            }
    return top < 0 ? 0 : bottom - top + 1;
}

/* A hop: the squash held for the wind-up's ticks (anticipation), the smear on the launch frame
 * alone (taller than the gnome), stretch while rising, and on landing the spring pops it into
 * squash and overshoots into stretch before it settles. Each look is a pre-baked image: the
 * drawn height says which. */
START_TEST(gnome_hop_anticipates_smears_and_pops)
{
    /* the background: the same world with this gnome elsewhere */
    sim_world *w = mk("wander=0"), *bgw = mk("wander=0");
    garden_world *g = impl(w);
    garden_walker *gn = &g->walker[1];
    impl(bgw)->walker[1].x = impl(bgw)->walker[1].goal_x = 170;
    run(w, 2);
    run(bgw, 2);
    int x = sim_snap(gn->x);
    sim_frame f, bg;
    sim_world_frame_init(w, &f);
    sim_world_frame_init(w, &bg);
    sim_juice_hop(&gn->juice);
    int seq[80], h[80], hop[80], n = 0;
    for (int t = 0; t < 80; t++) {
        run(w, 1);
        run(bgw, 1);
        sim_juice_look look;
        sim_juice_look_at(&gn->juice, &g->jcfg, &look);
        seq[n] = look.shape;
        hop[n] = gn->juice.hop;
        sim_world_render(w, 0, &f);
        sim_world_render(bgw, 0, &bg);
        h[n++] = drawn_rows(&f, &bg, x);
    }
    int k = 0;
    for (; k < g->jcfg.windup_ticks; k++) ck_assert_int_eq(seq[k], SIM_LOOK_SQUASH);
    ck_assert_int_eq(seq[k], SIM_LOOK_SMEAR);
    int smear_h = h[k];
    k++;
    ck_assert_int_eq(seq[k], SIM_LOOK_STRETCH);
    ck_assert_int_ne(seq[k + 1], SIM_LOOK_SMEAR);
    int smears = 0, landed = -1;
    for (int i = 0; i < n; i++) smears += seq[i] == SIM_LOOK_SMEAR;
    ck_assert_int_eq(smears, 1);
    for (int i = k; i < n && landed < 0; i++)
        if (hop[i] == SIM_HOP_REST && seq[i] == SIM_LOOK_SQUASH) landed = i;
    ck_assert_int_gt(landed, 0);
    int over = 0;
    for (int i = landed; i < n; i++) over |= seq[i] == SIM_LOOK_STRETCH;
    ck_assert(over);                                              /* the overshoot */
    ck_assert_int_eq(seq[n - 1], SIM_LOOK_NORMAL);                /* and it settles */
    int plain = h[n - 1];
    ck_assert_int_lt(h[0], plain);                                /* squash: rows dropped */
    ck_assert_int_gt(smear_h, plain + 3);                         /* smear: rows doubled */
    ck_assert_int_lt(h[landed], plain);
    sim_frame_free(&f);
    sim_frame_free(&bg);
    sim_world_destroy(w);
    sim_world_destroy(bgw);
}
END_TEST

/* A poked gnome flashes, standing still, for the flash's ticks; then its startled hop plays the
 * whole juice in order: the anticipation's squash, the one smear frame, the stretch. */
START_TEST(poked_gnome_flashes_then_hops)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    garden_walker *gn = &g->walker[1];
    run(w, 2);
    double x0 = gn->x;
    ck_assert_int_eq(input(w, "poke", 2, sim_snap(gn->x), GARDEN_GROUND - 6, 0), 0);
    int want[] = { SIM_LOOK_FLASH, SIM_LOOK_FLASH, SIM_LOOK_FLASH, SIM_LOOK_SQUASH, SIM_LOOK_SQUASH,
                   SIM_LOOK_SMEAR, SIM_LOOK_STRETCH };
    for (size_t t = 0; t < sizeof want / sizeof want[0]; t++) {
        run(w, 1);
        sim_juice_look look;
        sim_juice_look_at(&gn->juice, &g->jcfg, &look);
        ck_assert_int_eq(look.shape, want[t]);
        ck_assert(gn->x == x0);                                   /* a hop on the spot */
    }
    ck_assert(gn->juice.y < 0.0);
    sim_world_destroy(w);
}
END_TEST

/* Walking, a gnome shows the four rule-built frames on 8-tick holds; by the fire it wears the
 * warm palette (a status swap), away from it its own. */
START_TEST(gnome_walks_on_holds_and_warms_by_the_fire)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    garden_walker *gn = &g->walker[1];
    gn->task = GW_WALK;
    gn->goal_x = 180;
    gn->clip.anim = GW_ANIM_WALK;
    gn->clip.start = g->now + 1;                      /* as a step starts it: shown from 0 */
    int seen[GW_IMAGES] = { 0 }, last = -1, held = 0;
    for (int t = 0; t < 64; t++) {
        run(w, 1);
        int img = sim__garden_walker_image(g, 1);
        ck_assert_int_lt(img, SIM_WALKER_FRAMES);
        seen[img] = 1;
        if (img == last) held++;
        else {
            if (last >= 0) ck_assert_int_eq(held, SIM_HOLD_WALK);
            held = 1;
            last = img;
        }
        if (t == 0) ck_assert_int_eq(img, SIM_WALK_CONTACT);     /* from its first frame */
    }
    for (int k = 0; k < SIM_WALKER_FRAMES; k++) ck_assert(seen[k]);
    gn->task = GW_IDLE;
    gn->x = GARDEN_FIRE_X + GARDEN_FIRE_KEEP;
    run(w, 1);
    ck_assert_int_eq(gn->juice.status, 1);
    sim_frame f;
    sim_world_frame_init(w, &f);
    sim_world_render(w, 0, &f);
    int x = sim_snap(gn->x);
    ck_assert_int_gt(count_in(&f, x - 7, GARDEN_GROUND - 16, x + 7, GARDEN_GROUND - 1, GC_FIRE_ORANGE), 10);
    ck_assert_int_eq(count_in(&f, x - 7, GARDEN_GROUND - 16, x + 7, GARDEN_GROUND - 1, GC_BLUE), 0);
    gn->x = 120;
    run(w, 1);
    ck_assert_int_eq(gn->juice.status, 0);
    sim_world_render(w, 0, &f);
    ck_assert_int_gt(count_in(&f, 113, GARDEN_GROUND - 16, 127, GARDEN_GROUND - 1, GC_BLUE), 10);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

/* ---- villagers ----------------------------------------------------------------------------------- */
/* Idle villagers breathe (the head slice moves a pixel, both ways), out of step with each other;
 * the picture shows it. */
START_TEST(villagers_breathe_out_of_step)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    run(w, 200);                                      /* both settled and idle */
    ck_assert(sim_biped_idle(&g->biped[0].b) && sim_biped_idle(&g->biped[1].b));
    int b0[SIM_BREATH_PERIOD], b1[SIM_BREATH_PERIOD], differ = 0, up = 0, down = 0;
    sim_frame f, prev;
    sim_world_frame_init(w, &f);
    sim_world_frame_init(w, &prev);
    sim_world_render(w, 0, &prev);
    int head_changes = 0, x = sim_snap(g->biped[0].b.x);
    for (int t = 0; t < SIM_BREATH_PERIOD; t++) {
        run(w, 1);
        sim_biped_pose p0, p1;
        sim_biped_pose_at(&g->biped[0].b, &g->bcfg[g->biped[0].style], g->now, &p0);
        sim_biped_pose_at(&g->biped[1].b, &g->bcfg[g->biped[1].style], g->now, &p1);
        b0[t] = p0.breath;
        b1[t] = p1.breath;
        differ += b0[t] != b1[t];
        up += b0[t] < 0;
        down += b0[t] > 0;
        sim_world_render(w, 0, &f);
        int ch = 0;
        for (int y = GARDEN_GROUND - 20; y < GARDEN_GROUND - 10; y++)
            for (int c = x - 6; c <= x + 6; c++) ch += f.px[y * GARDEN_W + c] != prev.px[y * GARDEN_W + c];
        head_changes += ch > 0;
        memcpy(prev.px, f.px, (size_t)GARDEN_W * GARDEN_H);
    }
    ck_assert_int_gt(up, 10);
    ck_assert_int_gt(down, 10);
    ck_assert_int_gt(differ, 10);
    ck_assert_int_ge(head_changes, 2);
    sim_frame_free(&f);
    sim_frame_free(&prev);
    sim_world_destroy(w);
}
END_TEST

/* A villager at the pond's edge throws: the wind-up held 24 ticks (long), the strike 3 (the stone
 * leaves the hand on its first frame), the follow-through 9 (seed: strike 2–4, recovery 6–12);
 * the stone lands in the pond and splashes; the hair shows the aim. */
START_TEST(villager_throws_on_the_seeds_holds)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    garden_biped *v = &g->biped[1];
    v->b.x = GARDEN_LEFT_X1 - 2;
    v->goal_x = GARDEN_LEFT_X1 - 2;
    v->task = GB_WALK;
    v->then_throw = 1;
    int poses[40], stone_at = -1;
    for (int t = 0; t < 40; t++) {
        run(w, 1);
        poses[t] = v->task == GB_THROW ? sim_clip_frame(&v->clip, sim__garden_throw_anim, g->now) : -1;
        if (v->task == GB_THROW) ck_assert_int_eq(v->b.state, GB_AIMING);
        if (g->nstone && stone_at < 0) stone_at = t;
    }
    int k = 0;
    for (; k < SIM_HOLD_WINDUP; k++) ck_assert_int_eq(poses[k], GB_POSE_WINDUP);
    for (; k < SIM_HOLD_WINDUP + SIM_HOLD_STRIKE; k++) ck_assert_int_eq(poses[k], GB_POSE_STRIKE);
    for (; k < SIM_HOLD_WINDUP + SIM_HOLD_STRIKE + SIM_HOLD_RECOVER; k++)
        ck_assert_int_eq(poses[k], GB_POSE_FOLLOW);
    ck_assert_int_eq(poses[k], -1);
    ck_assert_int_eq(stone_at, SIM_HOLD_WINDUP);
    double e0 = sim_water_energy(&g->pond);
    run(w, GARDEN_STONE_FLIGHT + 5);
    ck_assert_int_eq(g->nstone, 0);
    ck_assert(sim_water_energy(&g->pond) > e0 + 1.0);
    sim_world_destroy(w);
}
END_TEST

/* A gnome walking through the grass bends the tufts it passes, away from it. */
START_TEST(walkers_part_the_grass)
{
    sim_world *w = mk("wander=0");
    garden_world *g = impl(w);
    garden_walker *gn = &g->walker[1];
    gn->task = GW_WALK;
    gn->goal_x = 170;
    int bent = 0;
    for (int t = 0; t < 200; t++) {
        run(w, 1);
        int x = sim_snap(gn->x);
        for (int i = 0; i < g->back.ntuft; i++) {
            const sim_grass_tuft *tf = &g->back.tuft[i];
            if (tf->x > x + 1 && tf->x <= x + 3 && tf->bend > 0) bent++;
        }
    }
    ck_assert_int_gt(bent, 3);
    sim_world_destroy(w);
}
END_TEST

/* ---- alive on its own -------------------------------------------------------------------------- */
/* A minute with nobody playing: every second's frame differs from the last; the butterfly and
 * the wind wander, gnomes walk and hop, villagers walk and throw, stones splash. */
START_TEST(demo_is_alive_for_a_minute)
{
    sim_world *w = mk(NULL);
    garden_world *g = impl(w);
    sim_frame f;
    sim_world_frame_init(w, &f);
    uint64_t last = 0;
    int hops = 0, throws = 0, stones = 0, walks = 0, winds = 0;
    uint8_t task[GARDEN_MAX_BIPEDS] = { 0 };
    double fx = g->fly_x;
    int16_t wind0 = g->wind;
    for (int t = 0; t < 3600; t++) {
        run(w, 1);
        for (int i = 0; i < g->nwalker; i++) hops += g->walker[i].juice.smear;
        for (int i = 0; i < g->nbiped; i++) {
            throws += g->biped[i].task == GB_THROW && task[i] != GB_THROW;
            task[i] = g->biped[i].task;
            walks += g->biped[i].task == GB_WALK;
        }
        stones += g->nstone > 0;
        winds += g->wind != wind0;
        if (t % 60 == 59) {
            sim_world_render(w, 0, &f);
            uint64_t h = sim_frame_hash(&f);
            ck_assert_uint_ne(h, last);
            last = h;
        }
    }
    ck_assert_int_gt(hops, 2);
    ck_assert_int_gt(throws, 0);
    ck_assert_int_gt(stones, 0);
    ck_assert_int_gt(walks, 300);
    ck_assert_int_gt(winds, 600);
    ck_assert(g->fly_x != fx);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

/* ---- state --------------------------------------------------------------------------------------- */
/* A save loads back to the same hash; impossible states are refused and leave the target as it
 * was; every 11th byte flipped in turn either refuses or gives a world that steps and renders. */
static void refused(sim_world *src, sim_world *target, void (*spoil)(garden_world *))
{
    size_t cap = sim_world_save_max(src);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(src, buf, cap);
    garden_world *g = impl(src);
    garden_world keep = *g;
    spoil(g);
    size_t m = sim_world_save(src, buf, cap);
    *g = keep;
    uint64_t h = sim_world_hash(target);
    ck_assert_int_eq(sim_world_load(target, buf, m), SIM_ECORRUPT);
    ck_assert_uint_eq(sim_world_hash(target), h);
    (void)n;
    free(buf);
}

static void spoil_wind(garden_world *g) { g->wind = 300; }
static void spoil_count(garden_world *g) { g->nserpent = GARDEN_MAX_SERPENTS + 1; }
static void spoil_style(garden_world *g) { g->biped[0].style = 9; }
static void spoil_walker(garden_world *g) { g->walker[0].x = (GARDEN_POND_X0 + GARDEN_POND_X1) / 2; }
static void spoil_vine(garden_world *g) { g->vine[0].root_x = 12; }
static void spoil_aim(garden_world *g) { g->aim_hold = 5; g->aim_x = -1; g->aim_y = -1; }
static void spoil_throw(garden_world *g) { g->biped[0].task = GB_THROW; g->biped[0].aim_x = -1; }
static void spoil_stone(garden_world *g) { g->nstone = 1; g->stone[0] = (garden_stone){ 50, 50, 99, 0 }; }

START_TEST(corrupt_states_refused)
{
    sim_world *w = mk(NULL);
    run(w, 200);
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(w, buf, cap);
    ck_assert_uint_gt(n, 0);
    sim_world *v = mk("scene=empty");
    ck_assert_int_eq(sim_world_load(v, buf, n), 0);
    ck_assert_uint_eq(sim_world_hash(v), sim_world_hash(w));
    ck_assert_int_eq(sim_world_load(v, buf, n - 1), SIM_ETRUNC);
    refused(w, v, spoil_wind);
    refused(w, v, spoil_count);
    refused(w, v, spoil_style);
    refused(w, v, spoil_walker);
    refused(w, v, spoil_vine);
    refused(w, v, spoil_aim);
    refused(w, v, spoil_throw);
    refused(w, v, spoil_stone);
    ck_assert_int_gt(script_flip_bytes(v, buf, n, 11), 0);
    free(buf);
    sim_world_destroy(v);
    sim_world_destroy(w);
}
END_TEST

/* A desync report names what differs (its worlds are built without the art: bare 2), and a load
 * into a world keeps drawing (the art moves over: adopt). */
START_TEST(diff_report_and_load_keep_drawing)
{
    sim_world *a = mk(NULL), *b = mk(NULL);
    run(a, 300);
    run(b, 300);
    impl(b)->wind = (int16_t)(impl(b)->wind + 5);
    impl(b)->walker[0].x += 1.0;
    size_t cap = sim_world_save_max(a);
    uint8_t *sa = malloc(cap), *sb = malloc(cap);
    size_t na = sim_world_save(a, sa, cap), nb = sim_world_save(b, sb, cap);
    char out[4096];
    ck_assert_int_eq(sim_state_diff(sa, na, sb, nb, out, sizeof out, 20), 2);
    ck_assert_ptr_nonnull(strstr(out, "wind"));
    ck_assert_ptr_nonnull(strstr(out, "walker 0"));
    ck_assert_int_eq(sim_state_diff(sa, na, sa, na, out, sizeof out, 20), 0);
    script_load_draws_alike(a, b, sa, na);                  /* twice: adopted art adopted again */
    free(sa);
    free(sb);
    sim_world_destroy(a);
    sim_world_destroy(b);
}
END_TEST

/* check_garden_life.c: the garden as a picture (issue 27), a second tcase of this suite */
TCase *tcase_garden_life(void);

Suite *suite_garden(void)
{
    Suite *s = suite_create("garden");
    TCase *t = tcase_create("garden");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, poke_flashes_the_creature_for_its_ticks);
    tcase_add_test(t, poke_splashes_the_pond_and_drops_stones);
    tcase_add_test(t, wind_turns_the_flag_and_the_grass);
    tcase_add_test(t, target_brings_the_vine_tip_and_the_serpent);
    tcase_add_test(t, spawn_adds_and_refuses_past_the_cap);
    tcase_add_test(t, bad_inputs_refused_and_change_nothing);
    tcase_add_test(t, inks8_frames_hold_only_the_eight);
    tcase_add_test(t, gnome_hop_anticipates_smears_and_pops);
    tcase_add_test(t, poked_gnome_flashes_then_hops);
    tcase_add_test(t, gnome_walks_on_holds_and_warms_by_the_fire);
    tcase_add_test(t, villagers_breathe_out_of_step);
    tcase_add_test(t, villager_throws_on_the_seeds_holds);
    tcase_add_test(t, walkers_part_the_grass);
    tcase_add_test(t, demo_is_alive_for_a_minute);
    tcase_add_test(t, corrupt_states_refused);
    tcase_add_test(t, diff_report_and_load_keep_drawing);
    suite_add_tcase(s, t);
    suite_add_tcase(s, tcase_garden_life());
    return s;
}
