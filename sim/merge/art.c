/* art.c — the fruit-merge world's art (issue 14 §3, seed 003), drawn in code at create time: the
 * named palette, the tiers' radii and names, and the build that makes the whole set (the fruit in
 * art_fruit.c, the carrier's parts in art_carrier.c) and frees it. The draw functions are beside
 * it: art_eyes.c, art_text.c, art_backdrop.c, and the carrier's in art_carrier.c. art.h is the
 * contract; art_int.h is what the files share. */
#include <stdlib.h>
#include <string.h>
#include "art_int.h"

_Static_assert(MERGE_C_COUNT <= 64, "the merge palette is at most 64 named colours");
_Static_assert(MERGE_C_WATERMELON_HIGH == MERGE_C_HIGH(MERGE_TIERS - 1), "three colours a tier");

const uint8_t sim__merge_radius[MERGE_TIERS] = { 5, 6, 8, 10, 12, 14, 17, 20, 24, 28, 33 };
const char *const sim__merge_tier_name[MERGE_TIERS] = {
    "cherry", "strawberry", "grape", "dekopon", "persimmon", "apple",
    "pear", "peach", "pineapple", "melon", "watermelon"
};

/* ---- the palette ----------------------------------------------------------------------------- */
#define RGB(v) { (uint8_t)((v) >> 16), (uint8_t)((v) >> 8), (uint8_t)(v) }
static const uint8_t palette_rgb[MERGE_C_COUNT][3] = {
    [MERGE_C_CLEAR] = RGB(0x2b2350),
    [MERGE_C_OUTLINE] = RGB(0x2a1b2d),
    [MERGE_C_WHITE] = RGB(0xfff8ec),
    [MERGE_C_GOLD] = RGB(0xffd75e),
    [MERGE_C_LINE_RED] = RGB(0xff4d5a),
    [MERGE_C_CHERRY] = RGB(0xc8183c), [MERGE_C_CHERRY_SHADE] = RGB(0x7e1036),
    [MERGE_C_CHERRY_HIGH] = RGB(0xff7a86),
    [MERGE_C_STRAWBERRY] = RGB(0xff4a3d), [MERGE_C_STRAWBERRY_SHADE] = RGB(0xc02a37),
    [MERGE_C_STRAWBERRY_HIGH] = RGB(0xffa48c),
    [MERGE_C_GRAPE] = RGB(0x8d4fd1), [MERGE_C_GRAPE_SHADE] = RGB(0x5a2f9e),
    [MERGE_C_GRAPE_HIGH] = RGB(0xcaa2f5),
    [MERGE_C_DEKOPON] = RGB(0xffa41f), [MERGE_C_DEKOPON_SHADE] = RGB(0xdd6a10),
    [MERGE_C_DEKOPON_HIGH] = RGB(0xffd98a),
    [MERGE_C_PERSIMMON] = RGB(0xea5a26), [MERGE_C_PERSIMMON_SHADE] = RGB(0xa93418),
    [MERGE_C_PERSIMMON_HIGH] = RGB(0xffa070),
    [MERGE_C_APPLE] = RGB(0xe0303a), [MERGE_C_APPLE_SHADE] = RGB(0x9c1c3e),
    [MERGE_C_APPLE_HIGH] = RGB(0xff8a80),
    [MERGE_C_PEAR] = RGB(0xd8dc5a), [MERGE_C_PEAR_SHADE] = RGB(0x9ca83a),
    [MERGE_C_PEAR_HIGH] = RGB(0xf6f5a8),
    [MERGE_C_PEACH] = RGB(0xffb3b5), [MERGE_C_PEACH_SHADE] = RGB(0xe87a8c),
    [MERGE_C_PEACH_HIGH] = RGB(0xfff0e4),
    [MERGE_C_PINEAPPLE] = RGB(0xf9c83c), [MERGE_C_PINEAPPLE_SHADE] = RGB(0xcc8a22),
    [MERGE_C_PINEAPPLE_HIGH] = RGB(0xfff296),
    [MERGE_C_MELON] = RGB(0x9fd468), [MERGE_C_MELON_SHADE] = RGB(0x5b9e44),
    [MERGE_C_MELON_HIGH] = RGB(0xdcf3a4),
    [MERGE_C_WATERMELON] = RGB(0x58b84e), [MERGE_C_WATERMELON_SHADE] = RGB(0x36853e),
    [MERGE_C_WATERMELON_HIGH] = RGB(0xa6e67e),
    [MERGE_C_LEAF] = RGB(0x5dbb46),
    [MERGE_C_LEAF_DARK] = RGB(0x1f5434),
    [MERGE_C_STEM] = RGB(0x7b4a2c),
    [MERGE_C_NET] = RGB(0xf2f0c4),
    [MERGE_C_SKIN] = RGB(0xffd9b3),
    [MERGE_C_SKIN_SHADE] = RGB(0xeda989),
    [MERGE_C_BLUSH] = RGB(0xff8f9a),
    [MERGE_C_HAT] = RGB(0xf2c75c),
    [MERGE_C_HAT_SHADE] = RGB(0xc69338),
    [MERGE_C_HAT_BAND] = RGB(0xd9434f),
    [MERGE_C_HAND] = RGB(0xfbf7f2),
    [MERGE_C_HAND_SHADE] = RGB(0xc9bfd6),
    [MERGE_C_SHIRT] = RGB(0x4f86d6),
    [MERGE_C_SHIRT_SHADE] = RGB(0x30559e),
    [MERGE_C_WOOD] = RGB(0xb8784a),
    [MERGE_C_WOOD_DARK] = RGB(0x7a4630),
    [MERGE_C_WOOD_LIGHT] = RGB(0xe3a86e),
    [MERGE_C_INSIDE] = RGB(0xf4e6cb),
    [MERGE_C_INSIDE_SHADE] = RGB(0xe6d2b0),
    [MERGE_C_PANEL] = RGB(0x3b2f55),
    [MERGE_C_SKY0] = RGB(0x2b2350),
    [MERGE_C_SKY1] = RGB(0x45306a),
    [MERGE_C_SKY2] = RGB(0x6e3f7c),
    [MERGE_C_SKY3] = RGB(0xa8557d),
    [MERGE_C_SKY4] = RGB(0xe07d72),
};

int sim__merge_is_outline(uint8_t c)
{
    return c == MERGE_C_OUTLINE;
}

/* ---- build and free ------------------------------------------------------------------------- */

void sim__merge_art_free(merge_art *a)
{
    if (!a)
        return;
    for (int t = 0; t < MERGE_TIERS; t++) {
        sim_rot_free(&a->fruit_rot[t]);
        sim_rot_free(&a->fruit_rot_fine[t]);
    }
    sim_rot_free(&a->head_rot);
    sim_rot_free(&a->hat_rot);
    free(a->mem);
    memset(a, 0, sizeof *a);
}

int sim__merge_art_build(merge_art *a)
{
    int rc = 0;
    memset(a, 0, sizeof *a);
    a->pal.version = 1;
    a->pal.count = MERGE_C_COUNT;
    memcpy(a->pal.rgb, palette_rgb, sizeof palette_rgb);
    size_t total = 0;
    for (int t = 0; t < MERGE_TIERS; t++)
        total += (size_t)(2 * sim__merge_radius[t] + 1) * (2 * sim__merge_radius[t] + 1);
    total += MERGE_HEAD_W * MERGE_HEAD_H + MERGE_HAT_W * MERGE_HAT_H + MERGE_BODY_W * MERGE_BODY_H
             + 2 * MERGE_HAND_W * MERGE_HAND_H;
    a->mem = malloc(total);
    uint8_t *p = a->mem;
    /* the fruit first, then the carrier's parts, one after the other in a->mem */
    if (!a->mem)
        rc = SIM_ENOMEM;
    else if ((rc = sim__merge_art_build_fruit(a, &p)) == 0)
        rc = sim__merge_art_build_carrier(a, &p);
    if (rc != 0) {
        sim__merge_art_free(a);
        return rc == SIM_EINVAL ? SIM_ENOMEM : rc;  /* every sprite here is valid by construction */
    }
    return 0;
}
