/* check_merge_art.c — sim/merge/art*.c (issue 14 §3, seed 003): the fruit-merge world's art.
 * Every sprite within its size and the palette; each fruit the physics circle's picture (inside
 * r + 0.5, covering the disc of r − 1) with a one-pixel ink outline at every baked angle; angle 0
 * is the upright sprite; the turned fruit are RotSprite bakes of the upright one, tidied and
 * nothing more, and keep every detail at every angle; two builds are the same bytes; eyes mirror
 * with the look and shrink to a line with a blink; each digit of the font is its own picture; the
 * backdrop paints every pixel and puts the container where it is told. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "merge/art.h"
#include "anim/rotsprite.h"
#include "sim.h"

#define BG 0xEE  /* a frame filler no draw function writes (the palette has ≤ 64 entries) */
#define NAME(t) sim__merge_tier_name[t]

static merge_art art;

static void build(void)
{
    ck_assert_int_eq(sim__merge_art_build(&art), 0);
}
static void unbuild(void)
{
    sim__merge_art_free(&art);
}

static void frame_new(sim_frame *f, int w, int h)
{
    ck_assert_int_eq(sim_frame_init(f, w, h), 0);
    memset(f->px, BG, (size_t)w * h);
}

/* Every byte of n below the palette count. */
static void all_in_palette(const uint8_t *px, size_t n, const char *what, int k)
{
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(px[i] < art.pal.count, "%s image %d: index %d ≥ palette count %d", what, k,
                      px[i], art.pal.count);
}

static void set_in_palette(const sim_rot_set *s, const char *what)
{
    ck_assert_ptr_nonnull(s->px);
    for (int k = 0; k < s->nangles; k++)
        all_in_palette(sim_rot_image(s, k), (size_t)s->side * s->side, what, k);
}

START_TEST(sizes_and_palette)
{
    ck_assert_int_eq(art.pal.version, 1);
    ck_assert_int_eq(art.pal.count, MERGE_C_COUNT);
    ck_assert_int_le(art.pal.count, 64);
    for (int t = 0; t < MERGE_TIERS; t++) {
        int n = 2 * sim__merge_radius[t] + 1;
        ck_assert_int_eq(art.fruit[t].w, n);
        ck_assert_int_eq(art.fruit[t].h, n);
        ck_assert_int_eq(art.fruit[t].key, MERGE_C_CLEAR);
        all_in_palette(art.fruit[t].px, (size_t)n * n, NAME(t), 0);
        ck_assert_int_eq(art.fruit_rot[t].nangles, MERGE_FRUIT_ANGLES);
        ck_assert_int_eq(art.fruit_rot[t].transparent, MERGE_C_CLEAR);
        ck_assert_int_ge(art.fruit_rot[t].side, n);
        ck_assert_int_eq(art.fruit_rot[t].side & 1, 1);  /* the centre is a pixel */
        set_in_palette(&art.fruit_rot[t], NAME(t));
        if (t < MERGE_CARRY_TIERS) {
            ck_assert_int_eq(art.fruit_rot_fine[t].nangles, MERGE_LEAN_IMAGES);
            set_in_palette(&art.fruit_rot_fine[t], NAME(t));
        } else {
            ck_assert_ptr_null(art.fruit_rot_fine[t].px);
        }
    }
    const struct { const sim_sprite *s; int w, h; const char *name; } parts[] = {
        { &art.head, MERGE_HEAD_W, MERGE_HEAD_H, "head" },
        { &art.hat, MERGE_HAT_W, MERGE_HAT_H, "hat" },
        { &art.body, MERGE_BODY_W, MERGE_BODY_H, "body" },
        { &art.hand_open, MERGE_HAND_W, MERGE_HAND_H, "open hand" },
        { &art.hand_closed, MERGE_HAND_W, MERGE_HAND_H, "closed hand" },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        ck_assert_int_eq(parts[i].s->w, parts[i].w);
        ck_assert_int_eq(parts[i].s->h, parts[i].h);
        ck_assert_int_eq(parts[i].s->key, MERGE_C_CLEAR);
        all_in_palette(parts[i].s->px, (size_t)parts[i].w * parts[i].h, parts[i].name, 0);
        int opaque = 0;
        for (int j = 0; j < parts[i].w * parts[i].h; j++)
            opaque += parts[i].s->px[j] != MERGE_C_CLEAR;
        ck_assert_msg(opaque > parts[i].w * parts[i].h / 3, "%s is nearly empty", parts[i].name);
    }
    ck_assert_int_eq(art.head_rot.nangles, MERGE_LEAN_IMAGES);
    ck_assert_int_eq(art.hat_rot.nangles, MERGE_LEAN_IMAGES);
    set_in_palette(&art.head_rot, "head");
    set_in_palette(&art.hat_rot, "hat");
}
END_TEST

/* Physics and picture agree at every angle: no opaque pixel farther than r + 0.5 from the centre,
 * and at least 85% of the pixels within r − 1 opaque. */
static void fits_circle(const uint8_t *px, int side, int r, const char *name, int k)
{
    int m = side / 2, disc = 0, covered = 0;
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            int dx = x - m, dy = y - m, d2 = dx * dx + dy * dy;
            int op = px[y * side + x] != MERGE_C_CLEAR;
            ck_assert_msg(!op || 4 * d2 <= (2 * r + 1) * (2 * r + 1),
                          "%s angle %d: pixel (%d,%d) outside r + 0.5", name, k, dx, dy);
            if (d2 <= (r - 1) * (r - 1)) {
                disc++;
                covered += op;
            }
        }
    ck_assert_msg(100 * covered >= 85 * disc, "%s angle %d covers %d of %d pixels of the disc",
                  name, k, covered, disc);
}

START_TEST(fruit_fill_the_physics_circle)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        int r = sim__merge_radius[t];
        fits_circle(art.fruit[t].px, 2 * r + 1, r, NAME(t), -1);
        for (int k = 0; k < art.fruit_rot[t].nangles; k++)
            fits_circle(sim_rot_image(&art.fruit_rot[t], k), art.fruit_rot[t].side, r,
                        NAME(t), k);
        for (int k = 0; t < MERGE_CARRY_TIERS && k < art.fruit_rot_fine[t].nangles; k++)
            fits_circle(sim_rot_image(&art.fruit_rot_fine[t], k), art.fruit_rot_fine[t].side, r,
                        NAME(t), 1000 + k);
    }
}
END_TEST

/* Every opaque pixel with a transparent 4-neighbour (or the image's edge) is ink. */
static void outlined(const uint8_t *px, int side, const char *name, int k)
{
    for (int y = 0; y < side; y++)
        for (int x = 0; x < side; x++) {
            uint8_t v = px[y * side + x];
            if (v == MERGE_C_CLEAR)
                continue;
            int edge = x == 0 || y == 0 || x == side - 1 || y == side - 1 ||
                       px[y * side + x - 1] == MERGE_C_CLEAR ||
                       px[y * side + x + 1] == MERGE_C_CLEAR ||
                       px[(y - 1) * side + x] == MERGE_C_CLEAR ||
                       px[(y + 1) * side + x] == MERGE_C_CLEAR;
            ck_assert_msg(!edge || sim__merge_is_outline(v),
                          "%s angle %d: edge pixel (%d,%d) is colour %d, not ink", name, k, x, y,
                          v);
        }
}

START_TEST(fruit_outlined_at_every_angle)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        outlined(art.fruit[t].px, art.fruit[t].w, NAME(t), -1);
        for (int k = 0; k < art.fruit_rot[t].nangles; k++)
            outlined(sim_rot_image(&art.fruit_rot[t], k), art.fruit_rot[t].side,
                     NAME(t), k);
        for (int k = 0; t < MERGE_CARRY_TIERS && k < art.fruit_rot_fine[t].nangles; k++)
            outlined(sim_rot_image(&art.fruit_rot_fine[t], k), art.fruit_rot_fine[t].side,
                     NAME(t), 1000 + k);
        /* and the ink is not all there is: the body colour shows */
        int body = 0, n = art.fruit[t].w;
        for (int i = 0; i < n * n; i++)
            body += art.fruit[t].px[i] == MERGE_C_BODY(t);
        ck_assert_msg(body * 4 > n * n / 4, "%s shows little of its body colour", NAME(t));
    }
}
END_TEST

/* Image k of a set (its 0°: image 0 of a whole turn, MERGE_LEAN_SPAN of a lean set) is the sprite
 * itself, placed with its pivot on the square's middle pixel. */
static void upright_is(const sim_rot_set *s, int k, const sim_sprite *sp, int pivx, int pivy,
                       const char *name)
{
    const uint8_t *img = sim_rot_image(s, k);
    int m = s->side / 2;
    for (int y = 0; y < s->side; y++)
        for (int x = 0; x < s->side; x++) {
            int sx = x - m + pivx, sy = y - m + pivy;
            uint8_t want = sx >= 0 && sy >= 0 && sx < sp->w && sy < sp->h ? sp->px[sy * sp->w + sx]
                                                                          : MERGE_C_CLEAR;
            ck_assert_msg(img[y * s->side + x] == want, "%s image 0 differs at (%d,%d)", name, x,
                          y);
        }
}

START_TEST(rotation_zero_is_upright)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        int r = sim__merge_radius[t];
        upright_is(&art.fruit_rot[t], 0, &art.fruit[t], r, r, NAME(t));
        if (t < MERGE_CARRY_TIERS)
            upright_is(&art.fruit_rot_fine[t], MERGE_LEAN_SPAN, &art.fruit[t], r, r, NAME(t));
    }
    upright_is(&art.head_rot, MERGE_LEAN_SPAN, &art.head, MERGE_HEAD_NECK_X, MERGE_HEAD_NECK_Y,
               "head");
    upright_is(&art.hat_rot, MERGE_LEAN_SPAN, &art.hat, MERGE_HAT_PIVOT_X, MERGE_HAT_PIVOT_Y,
               "hat");
    ck_assert_int_eq(sim__merge_lean_index(0.0), MERGE_LEAN_SPAN);
    ck_assert_int_eq(sim__merge_lean_index(-12.0), MERGE_LEAN_SPAN - 12);
    ck_assert_int_eq(sim__merge_lean_index(-10.8), MERGE_LEAN_SPAN - 11);
    ck_assert_int_eq(sim__merge_lean_index(0.5), MERGE_LEAN_SPAN + 1);   /* half up */
    ck_assert_int_eq(sim__merge_lean_index(-90.0), 0);                   /* clamped */
    ck_assert_int_eq(sim__merge_lean_index(90.0), MERGE_LEAN_IMAGES - 1);
    /* every 1° of the lean sets is its own picture: neighbouring images of the head and of the
     * hat differ (at 5.6° steps the walk's whole −12° ± 2° was one image) */
    const sim_rot_set *part[2] = { &art.head_rot, &art.hat_rot };
    for (int p = 0; p < 2; p++)
        for (int i = 1; i < MERGE_LEAN_IMAGES; i++)
            ck_assert_msg(memcmp(sim_rot_image(part[p], i - 1), sim_rot_image(part[p], i),
                                 (size_t)part[p]->side * part[p]->side) != 0,
                          "%s: images %d and %d are the same", p ? "hat" : "head", i - 1, i);
}
END_TEST

/* Transparent 4-neighbours of (x, y) in an n × n image, the edge counting as transparent. */
static int clear4(const uint8_t *px, int n, int x, int y)
{
    return (x == 0 || px[y * n + x - 1] == MERGE_C_CLEAR) +
           (x == n - 1 || px[y * n + x + 1] == MERGE_C_CLEAR) +
           (y == 0 || px[(y - 1) * n + x] == MERGE_C_CLEAR) +
           (y == n - 1 || px[(y + 1) * n + x] == MERGE_C_CLEAR);
}

/* `got` is what RotSprite gives for the upright sprite: a fresh sim_rot_bake(_n) about the centre
 * pixel, cut to the sprite's square (nothing opaque outside it) and tidied, byte for byte. Read
 * without the tidy function too: every pixel is the bake's, or a pixel the bake made opaque that
 * the tidy cleared because three or four of its 4-neighbours were transparent, or inked because
 * it lies on the silhouette's edge; and those are a small part of the picture. */
static void is_tidied_bake(const sim_rot_set *got, const sim_sprite *up, int nangles, int span,
                           const char *name)
{
    enum { NMAX = 67 };
    int n = up->w, r = n / 2;
    ck_assert_int_le(n, NMAX);
    ck_assert_int_eq(got->nangles, nangles);
    ck_assert_int_eq(got->side, n);
    sim_rot_sprite s = { n, n, up->px, MERGE_C_CLEAR, n, n };  /* pivot: pixel (r, r)'s centre */
    sim_rot_set fresh;
    if (span)  /* a lean set: 1° steps across ±span */
        ck_assert_int_eq(sim_rot_bake_span(&fresh, &s, MERGE_LEAN_TURN, -span, nangles), 0);
    else
        ck_assert_int_eq(nangles == SIM_ROT_ANGLES ? sim_rot_bake(&fresh, &s)
                                                   : sim_rot_bake_n(&fresh, &s, nangles), 0);
    int off = fresh.side / 2 - r, opaque = 0, changed = 0;
    for (int k = 0; k < nangles; k++) {
        uint8_t raw[NMAX * NMAX], tidy[NMAX * NMAX];
        const uint8_t *big = sim_rot_image(&fresh, k), *img = sim_rot_image(got, k);
        for (int y = 0; y < fresh.side; y++)
            for (int x = 0; x < fresh.side; x++) {
                int ix = x - off, iy = y - off;
                uint8_t v = big[y * fresh.side + x];
                if (ix >= 0 && iy >= 0 && ix < n && iy < n)
                    raw[iy * n + ix] = v;
                else
                    ck_assert_msg(v == MERGE_C_CLEAR, "%s angle %d: the bake has a pixel outside "
                                  "the sprite's square", name, k);
            }
        memcpy(tidy, raw, (size_t)n * n);
        sim__merge_fruit_tidy(tidy, n);
        ck_assert_msg(memcmp(tidy, img, (size_t)n * n) == 0,
                      "%s angle %d of %d is not the tidied RotSprite bake of the upright sprite",
                      name, k, nangles);
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                uint8_t w = raw[y * n + x], v = img[y * n + x];
                opaque += v != MERGE_C_CLEAR;
                if (v == w)
                    continue;
                changed++;
                ck_assert_msg(w != MERGE_C_CLEAR, "%s angle %d: (%d,%d) opaque where the bake "
                              "is not", name, k, x, y);
                if (v == MERGE_C_CLEAR)
                    ck_assert_msg(clear4(raw, n, x, y) >= 3, "%s angle %d: (%d,%d) cleared but "
                                  "not a lone protruding pixel of the bake", name, k, x, y);
                else
                    ck_assert_msg(v == MERGE_C_OUTLINE && clear4(img, n, x, y) > 0,
                                  "%s angle %d: (%d,%d) recoloured off the silhouette's edge",
                                  name, k, x, y);
            }
    }
    ck_assert_msg(changed * 20 <= opaque, "%s: the tidy changed %d of %d pixels", name, changed,
                  opaque);
    sim_rot_free(&fresh);
}

START_TEST(fruit_rotations_are_rotsprite)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        is_tidied_bake(&art.fruit_rot[t], &art.fruit[t], MERGE_FRUIT_ANGLES, 0, NAME(t));
        if (t < MERGE_CARRY_TIERS)
            is_tidied_bake(&art.fruit_rot_fine[t], &art.fruit[t], MERGE_LEAN_IMAGES,
                           MERGE_LEAN_SPAN, NAME(t));
        /* the upright sprite is already tidy, so image 0 (the bake's exact path) is the sprite */
        int n = art.fruit[t].w;
        uint8_t up[67 * 67];
        memcpy(up, art.fruit[t].px, (size_t)n * n);
        ck_assert_int_eq(sim__merge_fruit_tidy(up, n), 0);
    }
    /* and the tidy does what it says on a made-up picture: a lone pixel sticking out of a block
     * goes, the block's edge is inked, its inside is kept */
    uint8_t img[7 * 7];
    memset(img, MERGE_C_CLEAR, sizeof img);
    for (int y = 2; y <= 4; y++)
        for (int x = 2; x <= 4; x++)
            img[y * 7 + x] = MERGE_C_CHERRY;
    img[1 * 7 + 3] = MERGE_C_CHERRY;  /* a spur on top */
    ck_assert_int_gt(sim__merge_fruit_tidy(img, 7), 0);
    ck_assert_int_eq(img[1 * 7 + 3], MERGE_C_CLEAR);
    ck_assert_int_eq(img[3 * 7 + 3], MERGE_C_CHERRY);
    ck_assert_int_eq(img[2 * 7 + 2], MERGE_C_OUTLINE);
    ck_assert_int_eq(img[2 * 7 + 3], MERGE_C_OUTLINE);
    ck_assert_int_eq(sim__merge_fruit_tidy(img, 7), 0);  /* tidy once, tidy for good here */
}
END_TEST

/* Every detail reads at every angle: each colour the upright fruit shows besides its ink, body and
 * shade (seeds, stems, leaves, net, stripes, the highlight) is there at every baked angle, with at
 * least a third of its upright pixels and at most three times as many; and the upright sprite
 * has no lone pixel (one that no 8-neighbour shares its colour with), which the bake would show
 * at some angles only. */
static void details_kept(const sim_rot_set *s, const int *up_count, int t)
{
    for (int k = 0; k < s->nangles; k++) {
        int count[256] = { 0 };
        const uint8_t *img = sim_rot_image(s, k);
        for (int i = 0; i < s->side * s->side; i++)
            count[img[i]]++;
        for (int c = 0; c < MERGE_C_COUNT; c++) {
            if (!up_count[c] || c == MERGE_C_CLEAR || c == MERGE_C_OUTLINE ||
                c == MERGE_C_BODY(t) || c == MERGE_C_SHADE(t))
                continue;
            ck_assert_msg(3 * count[c] >= up_count[c] && count[c] <= 3 * up_count[c],
                          "%s angle %d of %d: colour %d has %d pixels, %d upright", NAME(t), k,
                          s->nangles, c, count[c], up_count[c]);
        }
    }
}

START_TEST(fruit_details_survive_every_angle)
{
    for (int t = 0; t < MERGE_TIERS; t++) {
        int n = art.fruit[t].w;
        const uint8_t *px = art.fruit[t].px;
        int up_count[MERGE_C_COUNT] = { 0 };
        int details = 0;
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                uint8_t v = px[y * n + x];
                if (v == MERGE_C_CLEAR)
                    continue;
                up_count[v]++;
                int same = 0;
                for (int j = -1; j <= 1; j++)
                    for (int i = -1; i <= 1; i++)
                        same += (i || j) && x + i >= 0 && y + j >= 0 && x + i < n && y + j < n &&
                                px[(y + j) * n + x + i] == v;
                ck_assert_msg(same > 0, "%s: a lone pixel of colour %d at (%d,%d)", NAME(t), v, x,
                              y);
            }
        for (int c = 0; c < MERGE_C_COUNT; c++)
            details += up_count[c] && c != MERGE_C_OUTLINE && c != MERGE_C_BODY(t) &&
                       c != MERGE_C_SHADE(t);
        ck_assert_msg(details >= 2, "%s has %d kinds of detail", NAME(t), details);
        details_kept(&art.fruit_rot[t], up_count, t);
        if (t < MERGE_CARRY_TIERS)
            details_kept(&art.fruit_rot_fine[t], up_count, t);
    }
}
END_TEST

static void same_set(const sim_rot_set *a, const sim_rot_set *b)
{
    ck_assert_int_eq(a->side, b->side);
    ck_assert_int_eq(a->nangles, b->nangles);
    if (!a->px) {
        ck_assert_ptr_null(b->px);
        return;
    }
    ck_assert_mem_eq(a->px, b->px, (size_t)a->side * a->side * a->nangles);
}

START_TEST(build_twice_same_bytes)
{
    merge_art b;
    ck_assert_int_eq(sim__merge_art_build(&b), 0);
    ck_assert_mem_eq(&art.pal, &b.pal, sizeof art.pal);
    for (int t = 0; t < MERGE_TIERS; t++) {
        ck_assert_mem_eq(art.fruit[t].px, b.fruit[t].px, (size_t)art.fruit[t].w * art.fruit[t].h);
        same_set(&art.fruit_rot[t], &b.fruit_rot[t]);
        same_set(&art.fruit_rot_fine[t], &b.fruit_rot_fine[t]);
    }
    const sim_sprite *pa[] = { &art.head, &art.hat, &art.body, &art.hand_open, &art.hand_closed };
    const sim_sprite *pb[] = { &b.head, &b.hat, &b.body, &b.hand_open, &b.hand_closed };
    for (int i = 0; i < 5; i++)
        ck_assert_mem_eq(pa[i]->px, pb[i]->px, (size_t)pa[i]->w * pa[i]->h);
    same_set(&art.head_rot, &b.head_rot);
    same_set(&art.hat_rot, &b.hat_rot);
    sim__merge_art_free(&b);
    ck_assert_ptr_null(b.mem);
    sim__merge_art_free(&b);  /* safe twice, and on a zeroed art */
    merge_art z;
    memset(&z, 0, sizeof z);
    sim__merge_art_free(&z);
    sim__merge_art_free(NULL);
}
END_TEST

static int count_drawn(const sim_frame *f)
{
    int n = 0;
    for (int i = 0; i < f->w * f->h; i++)
        n += f->px[i] != BG;
    return n;
}

/* Looking left is looking right in a mirror (about the fruit's centre column); a blink draws
 * fewer pixels than open eyes; the eyes sit on the fruit, in its upper half. */
START_TEST(eyes_mirror_and_blink)
{
    enum { CX = 45, CY = 45, W = 2 * CX + 1, H = 90 };
    for (int t = 0; t < MERGE_TIERS; t++) {
        int r = sim__merge_radius[t];
        for (int blink = 0; blink < 2; blink++) {
            sim_frame l, rt;
            frame_new(&l, W, H);
            frame_new(&rt, W, H);
            sim__merge_draw_eyes(&l, &art, t, CX, CY, -1, blink);
            sim__merge_draw_eyes(&rt, &art, t, CX, CY, +1, blink);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    ck_assert_msg(l.px[y * W + x] == rt.px[y * W + 2 * CX - x],
                                  "%s blink %d: look left (%d,%d) is not the mirror of right",
                                  NAME(t), blink, x, y);
            /* the look changes the picture (unless blinking, where only the place moves) */
            if (!blink)
                ck_assert_msg(memcmp(l.px, rt.px, (size_t)W * H) != 0, "%s: look has no effect",
                              NAME(t));
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    if (rt.px[y * W + x] == BG)
                        continue;
                    int fx = x - CX + r, fy = y - CY + r;
                    ck_assert_msg(fx >= 0 && fy >= 0 && fx <= 2 * r && fy <= 2 * r &&
                                  art.fruit[t].px[fy * (2 * r + 1) + fx] != MERGE_C_CLEAR,
                                  "%s: an eye pixel (%d,%d) is off the fruit", NAME(t), x - CX,
                                  y - CY);
                    ck_assert_msg(y - CY <= r / 3, "%s: eyes too low (%d)", NAME(t),
                                  y - CY);
                }
            sim_frame_free(&l);
            sim_frame_free(&rt);
        }
        sim_frame open, shut;
        frame_new(&open, W, H);
        frame_new(&shut, W, H);
        sim__merge_draw_eyes(&open, &art, t, CX, CY, 1, 0);
        sim__merge_draw_eyes(&shut, &art, t, CX, CY, 1, 1);
        int no = count_drawn(&open), ns = count_drawn(&shut);
        ck_assert_msg(ns > 0 && ns < no, "%s: blink draws %d pixels, open %d", NAME(t), ns, no);
        /* open eyes have white and pupil; a blink is a line of ink */
        int white = 0, pupil = 0;
        for (int i = 0; i < W * H; i++) {
            white += open.px[i] == MERGE_C_WHITE;
            pupil += open.px[i] == MERGE_C_PUPIL;
            ck_assert(shut.px[i] == BG || shut.px[i] == MERGE_C_OUTLINE);
        }
        ck_assert(white > 0 && pupil > 0);
        sim_frame_free(&open);
        sim_frame_free(&shut);
    }
    /* bigger fruit, bigger eyes */
    int prev = 0;
    for (int t = 0; t < MERGE_TIERS; t++) {
        sim_frame f;
        frame_new(&f, W, H);
        sim__merge_draw_eyes(&f, &art, t, CX, CY, 1, 0);
        int n = count_drawn(&f);
        ck_assert_msg(n >= prev, "%s has smaller eyes than the tier below", NAME(t));
        prev = n;
        sim_frame_free(&f);
    }
}
END_TEST

/* Each digit is its own picture, text is ringed in ink, and the widths add up. */
START_TEST(text_digits_differ)
{
    enum { W = 60, H = 12 };
    uint8_t glyphs[10][W * H];
    for (int d = 0; d < 10; d++) {
        sim_frame f;
        frame_new(&f, W, H);
        char s[2] = { (char)('0' + d), 0 };
        ck_assert_int_eq(sim__merge_draw_text(&f, &art, 3, 3, s, MERGE_C_WHITE), MERGE_GLYPH_W);
        memcpy(glyphs[d], f.px, sizeof glyphs[d]);
        int lit = 0;
        for (int i = 0; i < W * H; i++)
            lit += f.px[i] == MERGE_C_WHITE;
        ck_assert_msg(lit >= 3, "digit %d draws %d pixels", d, lit);
        /* every glyph pixel's 8 neighbours are glyph or ink: the ring is complete */
        for (int y = 1; y < H - 1; y++)
            for (int x = 1; x < W - 1; x++) {
                if (f.px[y * W + x] != MERGE_C_WHITE)
                    continue;
                for (int j = -1; j <= 1; j++)
                    for (int i = -1; i <= 1; i++) {
                        uint8_t v = f.px[(y + j) * W + x + i];
                        ck_assert(v == MERGE_C_WHITE || v == MERGE_C_OUTLINE);
                    }
            }
        sim_frame_free(&f);
    }
    for (int a = 0; a < 10; a++)
        for (int b = a + 1; b < 10; b++)
            ck_assert_msg(memcmp(glyphs[a], glyphs[b], sizeof glyphs[a]) != 0,
                          "digits %d and %d draw the same", a, b);
    sim_frame f;
    frame_new(&f, 200, 20);
    ck_assert_int_eq(sim__merge_draw_text(&f, &art, 2, 2, "0123456789", MERGE_C_GOLD), 39);
    ck_assert_int_eq(sim__merge_text_width("GAME OVER", 2), 9 * 8 - 2);
    ck_assert_int_eq(sim__merge_draw_text_scaled(&f, &art, 2, 2, "GAME OVER", MERGE_C_WHITE, 2),
                     70);
    ck_assert_int_eq(sim__merge_draw_text(&f, &art, 2, 2, "", MERGE_C_WHITE), 0);
    /* the letters the panels need are all in the font (none draws as a space) */
    const char *need = "SCOREBESTNEXTGAMEOVER";
    for (const char *p = need; *p; p++) {
        memset(f.px, BG, (size_t)f.w * f.h);
        char s[2] = { *p, 0 };
        sim__merge_draw_text(&f, &art, 2, 2, s, MERGE_C_WHITE);
        ck_assert_msg(count_drawn(&f) > 0, "letter %c is missing from the font", *p);
    }
    sim__merge_draw_text(&f, &art, -5, -5, "~?\x7f", MERGE_C_WHITE);  /* unknown, clipped: fine */
    sim_frame_free(&f);
}
END_TEST

static int is_inside(uint8_t v)
{
    return v == MERGE_C_INSIDE || v == MERGE_C_INSIDE_SHADE;
}

/* The backdrop paints every pixel in the palette; the container's inside is the rectangle given
 * (its back colours, bar the dashed line), with wood walls 3–5 px thick just outside it. */
START_TEST(backdrop_and_container)
{
    sim_frame f;
    frame_new(&f, 320, 180);
    const int x0 = MERGE_BOX_X0, x1 = MERGE_BOX_X1, yt = MERGE_BOX_TOP, yf = MERGE_BOX_FLOOR;
    const int yl = MERGE_LINE_Y;
    sim__merge_draw_backdrop(&f, &art, x0, x1, yt, yf, yl);
    for (int i = 0; i < 320 * 180; i++)
        ck_assert_msg(f.px[i] < MERGE_C_COUNT, "pixel %d left unpainted or off the palette", i);
    int dashes = 0;
    for (int y = yt; y < yf; y++)
        for (int x = x0; x < x1; x++) {
            uint8_t v = f.px[y * 320 + x];
            if (y == yl) {
                dashes += v == MERGE_C_LINE_RED;
                continue;
            }
            ck_assert_msg(is_inside(v), "inside (%d,%d) is colour %d", x, y, v);
        }
    ck_assert_int_gt(dashes, (x1 - x0) / 3);
    ck_assert_int_lt(dashes, x1 - x0);  /* dashed, not solid */
    /* walls: the columns just outside are wood or ink, for 3 to 5 px, then something else */
    for (int side = 0; side < 2; side++) {
        int y = (yt + yf) / 2, n = 0;
        for (int i = 0; i < 8; i++) {
            int x = side ? x1 + i : x0 - 1 - i;
            uint8_t v = f.px[y * 320 + x];
            if (v != MERGE_C_WOOD && v != MERGE_C_WOOD_DARK && v != MERGE_C_WOOD_LIGHT &&
                v != MERGE_C_OUTLINE)
                break;
            n++;
        }
        ck_assert_msg(n >= 3 && n <= 5 + 1, "wall %d is %d px", side, n);
    }
    /* the floor under the inside is wood */
    for (int x = x0; x < x1; x++)
        ck_assert(f.px[yf * 320 + x] == MERGE_C_WOOD || f.px[yf * 320 + x] == MERGE_C_WOOD_LIGHT);
    /* another box moves with its arguments */
    sim_frame g;
    frame_new(&g, 320, 180);
    sim__merge_draw_backdrop(&g, &art, 120, 200, 60, 150, 70);
    for (int x = 120 - 3; x < 120; x++) {
        uint8_t v = g.px[100 * 320 + x];
        ck_assert(v == MERGE_C_WOOD || v == MERGE_C_WOOD_DARK || v == MERGE_C_WOOD_LIGHT ||
                  v == MERGE_C_OUTLINE);
    }
    ck_assert(is_inside(g.px[100 * 320 + 130]));
    ck_assert(is_inside(f.px[100 * 320 + 100]));
    ck_assert(!is_inside(g.px[100 * 320 + 100]));
    ck_assert_int_eq(g.px[70 * 320 + 120], MERGE_C_LINE_RED);
    ck_assert_int_eq(f.px[yl * 320 + x0], MERGE_C_LINE_RED);
    ck_assert_int_ne(g.px[yl * 320 + x0], MERGE_C_LINE_RED);  /* no line at the old row */
    sim_frame_free(&f);
    sim_frame_free(&g);
}
END_TEST

/* The assembled carrier upright: the body's neck pixel, the head's neck pixel and the hat's pivot
 * land where art.h says, so a world that places the parts itself gets the same picture. */
START_TEST(carrier_pivots)
{
    sim_frame f, g;
    frame_new(&f, 80, 80);
    frame_new(&g, 80, 80);
    const int nx = 40, ny = 40;
    sim__merge_draw_carrier(&f, &art, nx, ny, MERGE_LEAN_SPAN, MERGE_LEAN_SPAN);
    sim_raster_blit(&g, &art.body, nx - MERGE_BODY_NECK_X, ny - MERGE_BODY_NECK_Y, 0);
    sim_raster_blit(&g, &art.head, nx - MERGE_HEAD_NECK_X, ny - MERGE_HEAD_NECK_Y, 0);
    sim_raster_blit(&g, &art.hat, nx - MERGE_HAT_PIVOT_X,
                    ny + MERGE_HAT_ON_HEAD_DY - MERGE_HAT_PIVOT_Y, 0);
    ck_assert_mem_eq(f.px, g.px, 80 * 80);
    /* leaning moves the head's top the way it leans, and the hat with it */
    sim_frame l;
    frame_new(&l, 80, 80);
    sim__merge_draw_carrier(&l, &art, nx, ny, sim__merge_lean_index(-12),
                            sim__merge_lean_index(-12 * MERGE_HAT_WOBBLE));
    int top_up = -1, top_lean = -1;
    for (int y = 0; y < 80 && (top_up < 0 || top_lean < 0); y++)
        for (int x = 0; x < 80; x++) {
            if (top_up < 0 && f.px[y * 80 + x] != BG)
                top_up = x;
            if (top_lean < 0 && l.px[y * 80 + x] != BG)
                top_lean = x;
        }
    ck_assert_int_lt(top_lean, top_up);  /* −12° is anticlockwise: the top moves left */
    /* hands: the left is the right's mirror */
    sim_frame a, b;
    frame_new(&a, 20, 20);
    frame_new(&b, 20, 20);
    sim__merge_draw_hand(&a, &art, 10, 10, 1, 0, 0);
    sim__merge_draw_hand(&b, &art, 10, 10, 0, 0, 0);
    for (int y = 0; y < 20; y++)
        for (int x = 0; x < 20; x++)
            ck_assert(a.px[y * 20 + x] == b.px[y * 20 + 19 - x]);
    ck_assert(memcmp(a.px, b.px, 20 * 20) != 0);  /* and a hand is not its own mirror */
    ck_assert(memcmp(art.hand_open.px, art.hand_closed.px, MERGE_HAND_W * MERGE_HAND_H) != 0);
    /* an arm drawn to a hand's wrist ends under the hand, in every pose: the wrist pixel is one
     * of the hand's own, and it has an empty 8-neighbour (it is on the hand's edge, where an arm
     * can come in from outside) */
    for (int closed = 0; closed < 2; closed++)
        for (unsigned flags = 0; flags < 4; flags++) {
            sim_frame h;
            frame_new(&h, 20, 20);
            sim__merge_draw_hand(&h, &art, 10, 10, !(flags & SIM_BLIT_FLIPX), closed,
                                 (flags & SIM_BLIT_FLIPY) != 0);
            int dx, dy;
            sim__merge_hand_wrist(closed, flags, &dx, &dy);
            ck_assert_msg(h.px[(10 + dy) * 20 + 10 + dx] != BG,
                          "closed %d flags %u: the wrist (%d,%d) is not on the hand", closed,
                          flags, dx, dy);
            int empty = 0;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++)
                    empty += h.px[(10 + dy + j) * 20 + 10 + dx + i] == BG;
            ck_assert_msg(empty > 0, "closed %d flags %u: the wrist is inside the hand", closed,
                          flags);
            sim_frame_free(&h);
        }
    sim_frame_free(&f);
    sim_frame_free(&g);
    sim_frame_free(&l);
    sim_frame_free(&a);
    sim_frame_free(&b);
}
END_TEST

Suite *suite_merge_art(void)
{
    Suite *s = suite_create("merge_art");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, build, unbuild);
    tcase_add_test(tc, sizes_and_palette);
    tcase_add_test(tc, fruit_fill_the_physics_circle);
    tcase_add_test(tc, fruit_outlined_at_every_angle);
    tcase_add_test(tc, rotation_zero_is_upright);
    tcase_add_test(tc, fruit_rotations_are_rotsprite);
    tcase_add_test(tc, fruit_details_survive_every_angle);
    tcase_add_test(tc, build_twice_same_bytes);
    tcase_add_test(tc, eyes_mirror_and_blink);
    tcase_add_test(tc, text_digits_differ);
    tcase_add_test(tc, backdrop_and_container);
    tcase_add_test(tc, carrier_pivots);
    suite_add_tcase(s, tc);
    return s;
}
