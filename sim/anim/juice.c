/* juice.c — bakes, the hop and flash state, and the art set (juice.h). */
#include "juice.h"

static int finite_in(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }

/* ---- bakes ----------------------------------------------------------------------------------- */
static int sprite_ok(const sim_sprite *s)
{
    return s && s->px && s->w >= 1 && s->h >= 1;
}

void sim_sprite_silhouette(uint8_t *dst, const sim_sprite *s, uint8_t ink)
{
    size_t n = (size_t)s->w * s->h;
    for (size_t i = 0; i < n; i++) dst[i] = s->key >= 0 && s->px[i] == s->key ? s->px[i] : ink;
}

void sim_sprite_recolour(uint8_t *dst, const sim_sprite *s, const uint8_t map[256])
{
    size_t n = (size_t)s->w * s->h;
    for (size_t i = 0; i < n; i++)
        dst[i] = s->key >= 0 && s->px[i] == s->key ? s->px[i] : map[s->px[i]];
}

/* How many times each source line of n appears: op > 0 doubles, op < 0 drops, every line with
 * (i + 1) % |op| == 0 that is neither the first nor the last; a line of `keep` (bit i, lines below
 * 32) is never doubled or dropped, and its turn passes to the next line that may be. */
static void line_counts(int *cnt, int n, int op, uint32_t keep)
{
    for (int i = 0; i < n; i++) cnt[i] = 1;
    if (op == 0) return;
    int k = op < 0 ? -op : op;
    for (int i = 1; i < n - 1; i++) {
        if ((i + 1) % k != 0) continue;
        int j = i;
        while (j < n - 1 && ((j < 32 && (keep >> j) & 1u) || cnt[j] != 1)) j++;
        if (j < n - 1) cnt[j] = op > 0 ? 2 : 0;
    }
}

int sim_sprite_rowcol_keep(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s,
                           int rows, int cols, uint32_t keep_rows, uint32_t keep_cols)
{
    if (!sprite_ok(s) || rows == 1 || rows == -1 || cols == 1 || cols == -1 ||
        s->w > SIM_ROWCOL_MAX || s->h > SIM_ROWCOL_MAX)
        return SIM_EINVAL;
    int cx[SIM_ROWCOL_MAX], cy[SIM_ROWCOL_MAX];
    line_counts(cx, s->w, cols, keep_cols);
    line_counts(cy, s->h, rows, keep_rows);
    int w = 0, h = 0;
    for (int x = 0; x < s->w; x++) w += cx[x];
    for (int y = 0; y < s->h; y++) h += cy[y];
    if ((size_t)w * (size_t)h > cap) return SIM_ENOSPC;
    int oy = 0;
    for (int y = 0; y < s->h; y++) {
        for (int ry = cy[y]; ry > 0; ry--, oy++) {
            int ox = 0;
            for (int x = 0; x < s->w; x++)
                for (int rx = cx[x]; rx > 0; rx--, ox++)
                    dst[(size_t)oy * w + (size_t)ox] = s->px[(size_t)y * s->w + (size_t)x];
        }
    }
    *dw = w;
    *dh = h;
    return 0;
}

/* How many times source line i (of n) appears: op > 0 doubles, op < 0 drops, every line with
 * (i + 1) % |op| == 0 that is neither the first nor the last. */
static int line_count(int i, int n, int op)
{
    if (op == 0) return 1;
    int k = op < 0 ? -op : op;
    if (i <= 0 || i >= n - 1 || (i + 1) % k != 0) return 1;
    return op > 0 ? 2 : 0;
}

int sim_sprite_rowcol(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s, int rows,
                      int cols)
{
    if (!sprite_ok(s) || rows == 1 || rows == -1 || cols == 1 || cols == -1) return SIM_EINVAL;
    int w = 0, h = 0;
    for (int x = 0; x < s->w; x++) w += line_count(x, s->w, cols);
    for (int y = 0; y < s->h; y++) h += line_count(y, s->h, rows);
    if ((size_t)w * (size_t)h > cap) return SIM_ENOSPC;
    int oy = 0;
    for (int y = 0; y < s->h; y++) {
        for (int ry = line_count(y, s->h, rows); ry > 0; ry--, oy++) {
            int ox = 0;
            for (int x = 0; x < s->w; x++)
                for (int rx = line_count(x, s->w, cols); rx > 0; rx--, ox++)
                    dst[(size_t)oy * w + (size_t)ox] = s->px[(size_t)y * s->w + (size_t)x];
        }
    }
    *dw = w;
    *dh = h;
    return 0;
}

/* Times line j of n is repeated to add `extra` lines spread evenly. */
static int smear_count(int j, int n, int extra)
{
    return 1 + (int)(((long)(j + 1) * extra) / n - ((long)j * extra) / n);
}

int sim_sprite_smear(uint8_t *dst, size_t cap, int *dw, int *dh, const sim_sprite *s, int axis,
                     int extra, uint8_t ink)
{
    if (!sprite_ok(s) || (axis != SIM_AXIS_X && axis != SIM_AXIS_Y) || extra < 1 || extra > 64)
        return SIM_EINVAL;
    int w = s->w + (axis == SIM_AXIS_X ? extra : 0), h = s->h + (axis == SIM_AXIS_Y ? extra : 0);
    if ((size_t)w * (size_t)h > cap) return SIM_ENOSPC;
    int oy = 0;
    for (int y = 0; y < s->h; y++) {
        int ry = axis == SIM_AXIS_Y ? smear_count(y, s->h, extra) : 1;
        for (; ry > 0; ry--, oy++) {
            int ox = 0;
            for (int x = 0; x < s->w; x++) {
                int rx = axis == SIM_AXIS_X ? smear_count(x, s->w, extra) : 1;
                uint8_t v = s->px[(size_t)y * s->w + (size_t)x];
                if (!(s->key >= 0 && v == s->key)) v = ink;
                for (; rx > 0; rx--, ox++) dst[(size_t)oy * w + (size_t)ox] = v;
            }
        }
    }
    *dw = w;
    *dh = h;
    return 0;
}

/* ---- the state ------------------------------------------------------------------------------- */
sim_juice_cfg sim_juice_cfg_default(void)
{
    return (sim_juice_cfg){
        .flash_ticks = SIM_JUICE_FLASH_TICKS, .windup_ticks = SIM_JUICE_WINDUP_TICKS,
        .hop_v = SIM_JUICE_HOP_V, .gravity = SIM_JUICE_GRAVITY,
        .pop_k = SIM_JUICE_POP_K, .pop_c = SIM_JUICE_POP_C, .pop_kick = SIM_JUICE_POP_KICK,
        .dt = 1.0 / 60.0,
    };
}

int sim_juice_cfg_check(const sim_juice_cfg *c)
{
    if (c->flash_ticks < 1 || c->flash_ticks > 255 || c->windup_ticks < 1 || c->windup_ticks > 255)
        return SIM_EINVAL;
    if (!finite_in(c->hop_v, 0.0, 64.0) || !(c->hop_v > 0.0) || !finite_in(c->gravity, 0.0, 64.0) ||
        !(c->gravity > 0.0))
        return SIM_EINVAL;
    if (!finite_in(c->pop_k, 0.0, 1e6) || !finite_in(c->pop_c, 0.0, 1e4) ||
        !finite_in(c->pop_kick, -1e4, 1e4) || !finite_in(c->dt, 0.0, 1.0) || !(c->dt > 0.0))
        return SIM_EINVAL;
    return 0;
}

void sim_juice_init(sim_juice *j) { memset(j, 0, sizeof *j); }
void sim_juice_poke(sim_juice *j) { j->pending |= SIM_JUICE_POKE; }
void sim_juice_hop(sim_juice *j) { j->pending |= SIM_JUICE_HOP; }

void sim_juice_step(sim_juice *j, const sim_juice_cfg *cfg)
{
    /* what last frame showed runs down first, so an event of this tick shows from this frame */
    if (j->flash_left) j->flash_left--;
    j->smear = 0;
    if (j->pending & SIM_JUICE_POKE) j->flash_left = (uint8_t)cfg->flash_ticks;
    int hop_asked = (j->pending & SIM_JUICE_HOP) != 0;
    j->pending = 0;

    switch (j->hop) {
    case SIM_HOP_REST:
        if (hop_asked) {
            /* anticipation: the squash pose held before anything moves */
            j->hop = SIM_HOP_WINDUP;
            j->windup_left = (uint8_t)cfg->windup_ticks;
        }
        break;
    case SIM_HOP_WINDUP:
        if (j->windup_left > 1) {
            j->windup_left--;
        } else {
            /* launch: it leaves the ground this very frame, drawn as the smear */
            j->hop = SIM_HOP_AIR;
            j->windup_left = 0;
            j->vy = -cfg->hop_v;
            j->y += j->vy;
            j->smear = 1;
        }
        break;
    default: /* SIM_HOP_AIR */
        j->vy += cfg->gravity;
        j->y += j->vy;
        if (j->y >= 0.0) {
            /* landing: on the ground, and the squash spring is kicked: pop, overshoot, settle */
            j->y = 0.0;
            j->vy = 0.0;
            j->hop = SIM_HOP_REST;
            j->pop.v += cfg->pop_kick;
        }
        break;
    }
    sim_spring_step(&j->pop, 0.0, cfg->pop_k, cfg->pop_c, cfg->dt);
}

void sim_juice_look_at(const sim_juice *j, const sim_juice_cfg *cfg, sim_juice_look *out)
{
    out->dy = sim_snap(j->y);
    out->status = j->status;
    out->smear_dir = j->vy < 0.0 ? -1 : 1;
    if (j->flash_left) out->shape = SIM_LOOK_FLASH;
    else if (j->smear) out->shape = SIM_LOOK_SMEAR;
    else if (j->hop == SIM_HOP_WINDUP) out->shape = SIM_LOOK_SQUASH;
    else if (j->hop == SIM_HOP_AIR) out->shape = j->vy < -cfg->hop_v * 0.5 ? SIM_LOOK_STRETCH
                                                                           : SIM_LOOK_NORMAL;
    else if (j->pop.x >= SIM_JUICE_SHOW) out->shape = SIM_LOOK_SQUASH;
    else if (j->pop.x <= -SIM_JUICE_SHOW) out->shape = SIM_LOOK_STRETCH;
    else out->shape = SIM_LOOK_NORMAL;
}

size_t sim_juice_save_max(void) { return 6 + 2 * 8 + 16; }

void sim_juice_save(const sim_juice *j, sim_writer *wr)
{
    sim__w_u8(wr, j->pending);
    sim__w_u8(wr, j->flash_left);
    sim__w_u8(wr, j->smear);
    sim__w_u8(wr, j->hop);
    sim__w_u8(wr, j->windup_left);
    sim__w_u8(wr, j->status);
    sim__w_f64(wr, j->y);
    sim__w_f64(wr, j->vy);
    sim_spring_save(&j->pop, wr);
}

int sim_juice_load(sim_juice *j, const sim_juice_cfg *cfg, sim_reader *rd)
{
    sim_juice t;
    memset(&t, 0, sizeof t);
    t.pending = sim__r_u8(rd);
    t.flash_left = sim__r_u8(rd);
    t.smear = sim__r_u8(rd);
    t.hop = sim__r_u8(rd);
    t.windup_left = sim__r_u8(rd);
    t.status = sim__r_u8(rd);
    t.y = sim__r_f64(rd);
    t.vy = sim__r_f64(rd);
    if (rd->err) return rd->err;
    int rc = sim_spring_load(&t.pop, rd);
    if (rc) return rc;
    if (t.pending > (SIM_JUICE_POKE | SIM_JUICE_HOP) || t.flash_left > cfg->flash_ticks ||
        t.smear > 1 || t.hop > SIM_HOP_AIR || t.status >= SIM_JUICE_STATUS)
        return SIM_ECORRUPT;
    if (t.hop == SIM_HOP_WINDUP ? t.windup_left < 1 || t.windup_left > cfg->windup_ticks
                                : t.windup_left != 0)
        return SIM_ECORRUPT;
    if (t.smear && t.hop != SIM_HOP_AIR) return SIM_ECORRUPT;
    if (!finite_in(t.y, -1e6, 0.0) || !finite_in(t.vy, -1e6, 1e6)) return SIM_ECORRUPT;
    if (t.hop != SIM_HOP_AIR && (t.y != 0.0 || t.vy != 0.0)) return SIM_ECORRUPT;
    *j = t;
    return 0;
}

/* ---- the art set ----------------------------------------------------------------------------- */
static void img_copy(sim_juice_img *img, const sim_sprite *s)
{
    memcpy(img->px, s->px, (size_t)s->w * s->h);
    img->w = s->w;
    img->h = s->h;
}

int sim_juice_art_bake(sim_juice_art *a, const sim_sprite *s, const sim_juice_art_spec *spec)
{
    memset(a, 0, sizeof *a);
    if (!sprite_ok(s) || s->key < 0 || s->key > 255 || s->w > SIM_JUICE_MAX ||
        s->h > SIM_JUICE_MAX || !spec || spec->squash_every < 2)
        return SIM_EINVAL;
    a->w = s->w;
    a->h = s->h;
    a->key = (uint8_t)s->key;
    int k = spec->squash_every, rc = 0;
    uint8_t tinted[SIM_JUICE_MAX * SIM_JUICE_MAX];
    for (int st = 0; st < SIM_JUICE_STATUS && !rc; st++) {
        sim_sprite src = *s;
        if (st > 0 && spec->status_map) {
            sim_sprite_recolour(tinted, s, spec->status_map[st - 1]);
            src.px = tinted;
        }
        sim_juice_img *im = a->shape[st];
        img_copy(&im[SIM_LOOK_NORMAL], &src);
        rc = sim_sprite_rowcol_keep(im[SIM_LOOK_SQUASH].px, SIM_JUICE_BUF, &im[SIM_LOOK_SQUASH].w,
                                    &im[SIM_LOOK_SQUASH].h, &src, -k, k, spec->keep_rows,
                                    spec->keep_cols);
        if (!rc)
            rc = sim_sprite_rowcol_keep(im[SIM_LOOK_STRETCH].px, SIM_JUICE_BUF,
                                        &im[SIM_LOOK_STRETCH].w, &im[SIM_LOOK_STRETCH].h, &src, k,
                                        -k, spec->keep_rows, spec->keep_cols);
    }
    if (!rc) {
        sim_sprite_silhouette(a->flash.px, s, spec->flash_ink);
        a->flash.w = s->w;
        a->flash.h = s->h;
        rc = sim_sprite_smear(a->smear.px, SIM_JUICE_BUF, &a->smear.w, &a->smear.h, s, SIM_AXIS_Y,
                              spec->smear_extra, spec->smear_ink);
    }
    if (rc) memset(a, 0, sizeof *a);
    return rc;
}

const sim_juice_img *sim_juice_art_image(const sim_juice_art *a, const sim_juice_look *look)
{
    int st = look->status >= 0 && look->status < SIM_JUICE_STATUS ? look->status : 0;
    switch (look->shape) {
    case SIM_LOOK_FLASH: return &a->flash;
    case SIM_LOOK_SMEAR: return &a->smear;
    case SIM_LOOK_SQUASH: return &a->shape[st][SIM_LOOK_SQUASH];
    case SIM_LOOK_STRETCH: return &a->shape[st][SIM_LOOK_STRETCH];
    default: return &a->shape[st][SIM_LOOK_NORMAL];
    }
}

static int floor_half(int v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

void sim_juice_draw(const sim_juice_art *a, const sim_juice_look *look, sim_frame *f, int x, int y,
                    int facing)
{
    if (a->w == 0) return;
    const sim_juice_img *im = sim_juice_art_image(a, look);
    int dx = floor_half(a->w - im->w), dy = a->h - im->h;       /* bottom row and centre kept */
    if (look->shape == SIM_LOOK_SMEAR && look->smear_dir < 0) dy = 0;   /* rising: top leads */
    sim_sprite spr = { (uint16_t)im->w, (uint16_t)im->h, im->px, a->key };
    sim_raster_blit(f, &spr, x + dx, y + dy + look->dy, facing < 0 ? SIM_BLIT_FLIPX : 0u);
}
