/* walker.c — the rule-built walk cycle (walker.h). */
#include "walker.h"
#include <string.h>

/* The sprite with the arm rectangle shifted by s: what the body rows look like in a frame. */
static uint8_t body_px(const sim_walker_spec *sp, int x, int y, int s)
{
    const sim_sprite *spr = sp->sprite;
    if (s != 0 && y >= sp->arm_y0 && y < sp->arm_y1 && x >= sp->arm_x0 && x < sp->arm_x1) {
        int sx = x - s;
        if (sx < sp->arm_x0) sx = sp->arm_x0;          /* the uncovered column repeats the edge */
        if (sx >= sp->arm_x1) sx = sp->arm_x1 - 1;
        return spr->px[(size_t)y * spr->w + (size_t)sx];
    }
    return spr->px[(size_t)y * spr->w + (size_t)x];
}

static void put(uint8_t *dst, int fw, int fx, int fy, uint8_t v, uint8_t key)
{
    if (v != key) dst[(size_t)fy * fw + (size_t)fx] = v;
}

int sim_walker_bake(sim_walker *wk, const sim_walker_spec *sp)
{
    memset(wk, 0, sizeof *wk);
    const sim_sprite *spr = sp ? sp->sprite : NULL;
    if (!spr || !spr->px || spr->key < 0 || spr->key > 255 || spr->w < SIM_WALKER_MIN ||
        spr->w > SIM_WALKER_MAX || spr->h < SIM_WALKER_MIN || spr->h > SIM_WALKER_MAX)
        return SIM_EINVAL;
    if (sp->hip < 1 || sp->hip >= spr->h || sp->mid < 1 || sp->mid >= spr->w) return SIM_EINVAL;
    int arm = sp->arm_x0 < sp->arm_x1 && sp->arm_y0 < sp->arm_y1;
    if (arm && (sp->arm_x0 < 0 || sp->arm_x1 > spr->w || sp->arm_y0 < 0 || sp->arm_y1 > sp->hip))
        return SIM_EINVAL;
    int fw = spr->w + 2, fh = spr->h + 1;
    uint8_t key = (uint8_t)spr->key;
    /* legs: left shift, right shift; arm shift; body rise — per frame */
    static const int rule[SIM_WALKER_FRAMES][4] = {
        { -1, +1, -1, 0 },      /* contact: legs spread, the arm against the right (front) leg */
        { 0, 0, 0, 1 },         /* passing: legs together, the body 1 px up */
        { +1, -1, +1, 0 },      /* contact mirrored */
        { 0, 0, 0, 1 },         /* passing */
    };
    for (int k = 0; k < SIM_WALKER_FRAMES; k++) {
        uint8_t *dst = wk->px[k];
        memset(dst, key, (size_t)fw * fh);
        int ls = rule[k][0], rs = rule[k][1], as = arm ? rule[k][2] : 0, up = rule[k][3];
        for (int y = 0; y < sp->hip; y++)
            for (int x = 0; x < spr->w; x++)
                put(dst, fw, x + 1, y + 1 - up, body_px(sp, x, y, as), key);
        if (up)   /* the row the rise opens: the hip row again, under the body */
            for (int x = 0; x < spr->w; x++)
                put(dst, fw, x + 1, sp->hip, spr->px[(size_t)sp->hip * spr->w + (size_t)x], key);
        for (int y = sp->hip; y < spr->h; y++)
            for (int x = 0; x < spr->w; x++)
                put(dst, fw, x + 1 + (x < sp->mid ? ls : rs), y + 1,
                    spr->px[(size_t)y * spr->w + (size_t)x], key);
    }
    wk->w = fw;
    wk->h = fh;
    wk->key = key;
    return 0;
}

sim_sprite sim_walker_frame(const sim_walker *wk, int k)
{
    k %= SIM_WALKER_FRAMES;
    if (k < 0) k += SIM_WALKER_FRAMES;
    return (sim_sprite){ (uint16_t)wk->w, (uint16_t)wk->h, wk->px[k], wk->key };
}

void sim_walker_draw(const sim_walker *wk, int k, sim_frame *f, int x, int y, int facing)
{
    if (wk->w == 0) return;
    sim_sprite s = sim_walker_frame(wk, k);
    sim_raster_blit(f, &s, x - 1, y - 1, facing < 0 ? SIM_BLIT_FLIPX : 0u);
}
