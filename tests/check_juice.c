/* check_juice.c — sim/anim/juice.c (seed 000 §3): the flash lasts exactly its ticks; the
 * anticipation is held exactly its extra ticks; the smear shows for exactly one frame; the landing
 * pops into squash and overshoots into stretch; squash and stretch only duplicate or drop whole
 * rows and columns of the sprite (no new colour, no scaling); the smear is the silhouette
 * lengthened by duplication; the palette swap maps every pixel; and the state saves, loads and
 * continues bit for bit while a corrupt blob is refused. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "anim/juice.h"
#include "check_blob.h"

enum { T = 0 };
#define SW 12
#define SH 10
static const char *ROWS[SH] = {
    "....1111....",
    "..11222211..",
    ".1222333321.",
    "123344334361",
    "123333333361",
    "123333333361",
    "123333533361",
    ".123333331..",
    "..12222221..",
    "...111111...",
};
static uint8_t spr[SH * SW];
static sim_sprite sprite(void)
{
    for (int y = 0; y < SH; y++)
        for (int x = 0; x < SW; x++) {
            char c = ROWS[y][x];
            spr[y * SW + x] = c == '.' ? T : (uint8_t)(c - '0');
        }
    return (sim_sprite){ SW, SH, spr, T };
}

static int has_colour(uint8_t v)
{
    for (int i = 0; i < SW * SH; i++)
        if (spr[i] == v) return 1;
    return 0;
}

static sim_juice_cfg cfg0(void) { return sim_juice_cfg_default(); }

static int look_of(const sim_juice *j, const sim_juice_cfg *c)
{
    sim_juice_look l;
    sim_juice_look_at(j, c, &l);
    return l.shape;
}

START_TEST(defaults_in_the_seeds_ranges)
{
    sim_juice_cfg c = cfg0();
    ck_assert_int_eq(sim_juice_cfg_check(&c), 0);
    ck_assert(c.flash_ticks >= 2 && c.flash_ticks <= 4);
    ck_assert(c.windup_ticks >= 1 && c.windup_ticks <= 3);
    ck_assert(c.pop_c * c.pop_c < 4.0 * c.pop_k);       /* under-damped: it overshoots */
    sim_juice_cfg bad = c;
    bad.flash_ticks = 0;
    ck_assert_int_eq(sim_juice_cfg_check(&bad), SIM_EINVAL);
    bad = c;
    bad.dt = 0.0;
    ck_assert_int_eq(sim_juice_cfg_check(&bad), SIM_EINVAL);
}
END_TEST

/* "Draw it in place of the sprite for 2–4 ticks": a poke shows the flash from the tick it is
 * applied for exactly flash_ticks frames, and a poke during a flash starts it over. */
START_TEST(flash_lasts_exactly_its_ticks)
{
    for (int n = 2; n <= 4; n++) {
        sim_juice_cfg c = cfg0();
        c.flash_ticks = n;
        sim_juice j;
        sim_juice_init(&j);
        for (int t = 0; t < 5; t++) {
            sim_juice_step(&j, &c);
            ck_assert_int_ne(look_of(&j, &c), SIM_LOOK_FLASH);
        }
        sim_juice_poke(&j);
        int shown = 0;
        for (int t = 0; t < 20; t++) {
            sim_juice_step(&j, &c);
            int on = look_of(&j, &c) == SIM_LOOK_FLASH;
            ck_assert_int_eq(on, t < n);                 /* frames 0 .. n−1 of the poke, no more */
            shown += on;
        }
        ck_assert_int_eq(shown, n);
        /* a second poke mid-flash runs the full count again from its own tick */
        sim_juice_poke(&j);
        sim_juice_step(&j, &c);
        sim_juice_poke(&j);
        shown = 0;
        for (int t = 0; t < 20; t++) {
            sim_juice_step(&j, &c);
            shown += look_of(&j, &c) == SIM_LOOK_FLASH;
        }
        ck_assert_int_eq(shown, n);
    }
}
END_TEST

/* "Hold the anticipation pose 1–3 extra ticks before the action"; the smear "shown for exactly
 * one frame"; then the landing's pop and overshoot: squash, then stretch, then still. */
START_TEST(windup_smear_and_landing_sequence)
{
    for (int w = 1; w <= 3; w++) {
        sim_juice_cfg c = cfg0();
        c.windup_ticks = w;
        sim_juice j;
        sim_juice_init(&j);
        sim_juice_step(&j, &c);
        sim_juice_hop(&j);
        int seq[200];
        for (int t = 0; t < 200; t++) {
            sim_juice_step(&j, &c);
            seq[t] = look_of(&j, &c);
            ck_assert(j.y <= 0.0);
            if (t > 0 && j.hop == SIM_HOP_AIR) sim_juice_hop(&j);   /* asked again mid-air: dropped */
        }
        int t = 0;
        for (; t < w; t++) {                        /* exactly w frames of anticipation */
            ck_assert_int_eq(seq[t], SIM_LOOK_SQUASH);
        }
        ck_assert_int_eq(seq[t], SIM_LOOK_SMEAR);   /* the launch frame */
        int smears = 0, air_end = -1;
        for (int u = 0; u < 200; u++) smears += seq[u] == SIM_LOOK_SMEAR;
        ck_assert_int_eq(smears, 1);                /* exactly one frame */
        /* in the air: stretch while rising fast, then normal until it lands */
        ck_assert_int_eq(seq[t + 1], SIM_LOOK_STRETCH);
        for (int u = t + 1; u < 200; u++)
            if (seq[u] == SIM_LOOK_NORMAL) { air_end = u; break; }
        ck_assert_int_gt(air_end, 0);
        int land = -1;
        for (int u = air_end; u < 200; u++)
            if (seq[u] == SIM_LOOK_SQUASH) { land = u; break; }
        ck_assert_int_gt(land, 0);
        /* the pop: a run of squash, then a run of stretch (the overshoot), then normal for good */
        int u = land;
        while (seq[u] == SIM_LOOK_SQUASH) u++;
        ck_assert_int_ge(u - land, 3);
        while (seq[u] == SIM_LOOK_NORMAL && u < land + 12) u++;
        ck_assert_int_eq(seq[u], SIM_LOOK_STRETCH);
        while (seq[u] == SIM_LOOK_STRETCH) u++;
        for (; u < 200; u++) ck_assert_int_eq(seq[u], SIM_LOOK_NORMAL);
        ck_assert_int_eq(j.hop, SIM_HOP_REST);
        ck_assert(j.y == 0.0);
    }
}
END_TEST

/* "Drop every k-th row and duplicate every m-th column": squash and stretch are whole rows and
 * columns of the sprite, in order, never a scaled or a new pixel. */
static void check_rowcol(const uint8_t *img, int w, int h, int rows, int cols)
{
    /* which source row / column each output row / column is, by the rule */
    int rmap[4 * SH], cmap[4 * SW], nr = 0, nc = 0, k;
    for (int y = 0; y < SH; y++) {
        int sel = y > 0 && y < SH - 1 && (y + 1) % (k = rows < 0 ? -rows : rows) == 0;
        int cnt = rows == 0 || !sel ? 1 : rows > 0 ? 2 : 0;
        while (cnt--) rmap[nr++] = y;
    }
    for (int x = 0; x < SW; x++) {
        int sel = x > 0 && x < SW - 1 && (x + 1) % (k = cols < 0 ? -cols : cols) == 0;
        int cnt = cols == 0 || !sel ? 1 : cols > 0 ? 2 : 0;
        while (cnt--) cmap[nc++] = x;
    }
    ck_assert_int_eq(w, nc);
    ck_assert_int_eq(h, nr);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            ck_assert(has_colour(img[y * w + x]));
            ck_assert_int_eq(img[y * w + x], spr[rmap[y] * SW + cmap[x]]);
        }
    ck_assert_int_eq(rmap[0], 0);                     /* the outline's top and bottom rows stay */
    ck_assert_int_eq(rmap[nr - 1], SH - 1);
}

START_TEST(squash_and_stretch_are_whole_rows_and_columns)
{
    sim_sprite s = sprite();
    static uint8_t out[SIM_JUICE_BUF];
    int w, h;
    for (int k = 2; k <= 5; k++) {
        ck_assert_int_eq(sim_sprite_rowcol(out, sizeof out, &w, &h, &s, -k, k), 0);   /* squash */
        ck_assert_int_lt(h, SH);
        ck_assert_int_gt(w, SW);
        check_rowcol(out, w, h, -k, k);
        ck_assert_int_eq(sim_sprite_rowcol(out, sizeof out, &w, &h, &s, k, -k), 0);   /* stretch */
        ck_assert_int_gt(h, SH);
        ck_assert_int_lt(w, SW);
        check_rowcol(out, w, h, k, -k);
    }
    ck_assert_int_eq(sim_sprite_rowcol(out, sizeof out, &w, &h, &s, 0, 0), 0);
    ck_assert(w == SW && h == SH && memcmp(out, spr, sizeof spr) == 0);
    ck_assert_int_eq(sim_sprite_rowcol(out, sizeof out, &w, &h, &s, 1, 0), SIM_EINVAL);
    ck_assert_int_eq(sim_sprite_rowcol(out, 50, &w, &h, &s, 2, 2), SIM_ENOSPC);
}
END_TEST

/* "A stretched silhouette drawn along the velocity vector, made from the pre-baked silhouette by
 * column duplication": every column of the smear is a column of the silhouette, in order, each
 * at least once, and it is `extra` longer. */
START_TEST(smear_is_the_silhouette_by_duplication)
{
    sim_sprite s = sprite();
    static uint8_t sil[SW * SH], out[SIM_JUICE_BUF];
    sim_sprite_silhouette(sil, &s, 9);
    for (int i = 0; i < SW * SH; i++) ck_assert_int_eq(sil[i], spr[i] == T ? T : 9);
    for (int axis = 0; axis < 2; axis++)
        for (int extra = 1; extra <= 20; extra += 3) {
            int w, h;
            ck_assert_int_eq(sim_sprite_smear(out, sizeof out, &w, &h, &s, axis, extra, 9), 0);
            ck_assert_int_eq(w, SW + (axis == SIM_AXIS_X ? extra : 0));
            ck_assert_int_eq(h, SH + (axis == SIM_AXIS_Y ? extra : 0));
            /* which source line each output line is: every source line at least once, in
             * order, the extra lines spread evenly (none repeated more than ⌈extra/n⌉ + 1
             * times) */
            int n = axis == SIM_AXIS_X ? SW : SH, map[SW + SH + 64], m = 0;
            for (int j = 0; j < n; j++) {
                int rep = 1 + ((j + 1) * extra) / n - (j * extra) / n;
                ck_assert(rep >= 1 && rep <= 1 + (extra + n - 1) / n);
                while (rep--) map[m++] = j;
            }
            ck_assert_int_eq(m, n + extra);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    uint8_t want = axis == SIM_AXIS_X ? sil[y * SW + map[x]] : sil[map[y] * SW + x];
                    ck_assert_int_eq(out[y * w + x], want);
                }
        }
    int w, h;
    ck_assert_int_eq(sim_sprite_smear(out, sizeof out, &w, &h, &s, 2, 4, 9), SIM_EINVAL);
    ck_assert_int_eq(sim_sprite_smear(out, sizeof out, &w, &h, &s, 0, 0, 9), SIM_EINVAL);
}
END_TEST

/* "A palette swap for status": every opaque pixel through the map, the key kept. */
START_TEST(palette_swap_maps_every_pixel)
{
    sim_sprite s = sprite();
    uint8_t map[256], out[SW * SH];
    for (int i = 0; i < 256; i++) map[i] = (uint8_t)(255 - i);
    sim_sprite_recolour(out, &s, map);
    for (int i = 0; i < SW * SH; i++) ck_assert_int_eq(out[i], spr[i] == T ? T : 255 - spr[i]);
}
END_TEST

/* The art set: each look draws its image standing on the sprite's bottom row; the flash covers
 * exactly the sprite's pixels in the highlight ink; the status swap shows the map's inks. */
START_TEST(art_set_draws_each_look_in_place)
{
    sim_sprite s = sprite();
    static uint8_t maps[1][256];
    for (int i = 0; i < 256; i++) maps[0][i] = (uint8_t)i;
    maps[0][3] = 30;
    maps[0][2] = 31;
    sim_juice_art_spec spec = { 8, 3, 5, 3, (const uint8_t (*)[256])maps, 0, 0 };
    static sim_juice_art art;
    ck_assert_int_eq(sim_juice_art_bake(&art, &s, &spec), 0);
    enum { W = 40, H = 40, BG = 50, X = 10, Y = 20 };
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, W, H), 0);
    for (int shape = 0; shape <= SIM_LOOK_SMEAR; shape++)
        for (int st = 0; st < SIM_JUICE_STATUS; st++) {
            sim_juice_look l = { shape, 0, 1, st };
            sim_raster_clear(&f, BG);
            sim_juice_draw(&art, &l, &f, X, Y, 1);
            int bottom = -1;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    if (f.px[y * W + x] != BG) bottom = y;
            ck_assert_int_eq(bottom, Y + SH - 1);       /* it stands on the same row */
            for (int i = 0; i < W * H; i++) {
                uint8_t v = f.px[i];
                if (v == BG) continue;
                if (shape == SIM_LOOK_FLASH) ck_assert_int_eq(v, 8);
                else if (shape == SIM_LOOK_SMEAR) ck_assert_int_eq(v, 3);
                else if (st == 1) ck_assert(v != 3 && v != 2);
                else ck_assert(has_colour(v));
            }
            if (shape == SIM_LOOK_FLASH)
                for (int y = 0; y < SH; y++)
                    for (int x = 0; x < SW; x++)
                        ck_assert_int_eq(f.px[(Y + y) * W + X + x], spr[y * SW + x] == T ? BG : 8);
        }
    /* the look's height above the ground moves it up */
    sim_juice_look l = { SIM_LOOK_NORMAL, -7, 1, 0 };
    sim_raster_clear(&f, BG);
    sim_juice_draw(&art, &l, &f, X, Y, 1);
    ck_assert_int_eq(f.px[(Y - 7) * W + X + 4], spr[4]);
    sim_frame_free(&f);
    sim_sprite nokey = { SW, SH, spr, -1 };
    ck_assert_int_eq(sim_juice_art_bake(&art, &nokey, &spec), SIM_EINVAL);
}
END_TEST

static sim_juice_cfg CFG;           /* the configuration the blob helpers step and load with */
static void ju_save(const void *o, sim_writer *w) { sim_juice_save(o, w); }
static int ju_load(void *o, sim_reader *r) { return sim_juice_load(o, &CFG, r); }
static void ju_step(void *o, uint64_t t)
{
    sim_juice *j = o;
    if (t % 50 == 3) sim_juice_hop(j);
    if (t % 17 == 5) sim_juice_poke(j);
    if (t % 100 == 0) j->status = (uint8_t)((t / 100) % SIM_JUICE_STATUS);
    sim_juice_step(j, &CFG);
}
static const blob_piece JUICE = { sizeof(sim_juice), ju_save, ju_load, ju_step };

START_TEST(save_load_continue)
{
    CFG = cfg0();
    sim_juice a, b;
    sim_juice_init(&a);
    static uint8_t buf[BLOB_MAX];
    ck_assert_uint_eq(blob_save(&JUICE, &a, buf, sizeof buf), sim_juice_save_max());
    blob_sync(&JUICE, &a, &b, 300, 2);
}
END_TEST

START_TEST(corrupt_refused_untouched)
{
    CFG = cfg0();
    sim_juice a, b;
    sim_juice_init(&a);
    sim_juice_hop(&a);
    for (int t = 0; t < 5; t++) sim_juice_step(&a, &CFG);        /* in the air */
    ck_assert_int_eq(a.hop, SIM_HOP_AIR);
    sim_juice_init(&b);
    b.status = 1;
    static uint8_t good[BLOB_MAX], bad[BLOB_MAX];
    size_t n = blob_save(&JUICE, &a, good, sizeof good);
    /* pending 0, flash 1, smear 2, hop 3, windup 4, status 5, y 6, vy 14, spring 22 */
    const blob_poke pokes[] = {
        { 0, 4, 1 }, { 1, 9, 1 }, { 2, 2, 1 }, { 3, 3, 1 }, { 4, 1, 1 },
        { 5, SIM_JUICE_STATUS, 1 }, { 6, 1.0, 0 }, { 22, 2e6, 0 },
    };
    blob_refusals(&JUICE, &b, good, n, pokes, sizeof pokes / sizeof pokes[0]);
    /* at rest off the ground, or with a smear: impossible */
    sim_juice t;
    sim_juice_init(&t);
    t.y = -3.0;
    blob_refuse(&JUICE, &b, bad, blob_save(&JUICE, &t, bad, sizeof bad));
    sim_juice_init(&t);
    t.smear = 1;
    blob_refuse(&JUICE, &b, bad, blob_save(&JUICE, &t, bad, sizeof bad));
}
END_TEST

Suite *suite_juice(void)
{
    Suite *s = suite_create("juice");
    TCase *tc = tcase_create("juice");
    tcase_add_test(tc, defaults_in_the_seeds_ranges);
    tcase_add_test(tc, flash_lasts_exactly_its_ticks);
    tcase_add_test(tc, windup_smear_and_landing_sequence);
    tcase_add_test(tc, squash_and_stretch_are_whole_rows_and_columns);
    tcase_add_test(tc, smear_is_the_silhouette_by_duplication);
    tcase_add_test(tc, palette_swap_maps_every_pixel);
    tcase_add_test(tc, art_set_draws_each_look_in_place);
    tcase_add_test(tc, save_load_continue);
    tcase_add_test(tc, corrupt_refused_untouched);
    suite_add_tcase(s, tc);
    return s;
}
