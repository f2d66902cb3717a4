/* celset.c — the cel-set sprite engine of seed 002: allocation, the cel-set parser
 * (GetSpriteAnimFrame), the per-tick order (PlaySpriteAnimations), OAM rendering (UpdateAnimFrame)
 * and save/load. See celset.h for the formats and docs/celset.md for the rules. */
#include "celset.h"
#include <stdlib.h>

#define SAVE_TAG 0xCE15u      /* marks the engine's block in a world's state */
#define SAVE_SLOT_BYTES 32    /* bytes one slot takes in a save (see save_slot) */
/* Lookups a single tick may take to resolve a cel: end and restart each cost one, and a sane
 * set needs at most two; a set of nothing but commands draws nothing instead of spinning. */
#define RESOLVE_STEPS 4

sim_anim_config sim_anim_config_default(void)
{
    sim_anim_config c;
    memset(&c, 0, sizeof c);
    c.nslots = SIM_NUM_SPRITE_ANIM_STRUCTS;
    return c;
}

int sim_anim_init(sim_anim *an, const sim_anim_config *cfg)
{
    memset(an, 0, sizeof *an);
    if (!cfg || cfg->nslots < 1 || cfg->nslots > SIM_ANIM_MAX_SLOTS ||
        cfg->nobjects < 0 || cfg->nobjects > 256 || cfg->ncelsets < 0 ||
        cfg->ncelsets > SIM_ANIM_CELSETS || cfg->ncels < 0 || cfg->ncels > SIM_ANIM_CELS ||
        cfg->ntiles < 0 || cfg->ntiles > SIM_ANIM_TILES || cfg->nbehaviours < 0 ||
        cfg->nbehaviours > SIM_ANIM_BEHAVIOURS)
        return SIM_EINVAL;
    an->slot = calloc((size_t)cfg->nslots, sizeof *an->slot);
    if (!an->slot) return SIM_ENOMEM;
    an->cfg = *cfg;
    return 0;
}

void sim_anim_free(sim_anim *an)
{
    free(an->slot);
    an->slot = NULL;
}

int sim_anim_alloc(sim_anim *an, int object, int x, int y)
{
    if (object < 0 || object >= an->cfg.nobjects || x < INT16_MIN || x > INT16_MAX ||
        y < INT16_MIN || y > INT16_MAX)
        return SIM_EINVAL;
    for (int i = 0; i < an->cfg.nslots; i++) {
        sim_anim_slot *s = &an->slot[i];
        if (s->index != 0) continue;
        /* wSpriteAnimCount "overflowing from 255 to 1": 0 would mark the slot empty */
        an->count = an->count == 255 ? 1 : (uint8_t)(an->count + 1);
        const sim_anim_object *o = &an->cfg.objects[object];
        /* "All subsequent fields are zeroed"; what the slot rendered this tick (a slot deleted
         * by its behaviour) still draws, as OAM already written would on the Game Boy. */
        sim_anim_slot keep = *s;
        memset(s, 0, sizeof *s);
        s->shown = keep.shown; s->shown_cel = keep.shown_cel; s->shown_flags = keep.shown_flags;
        s->shown_base = keep.shown_base; s->shown_x = keep.shown_x; s->shown_y = keep.shown_y;
        s->index = an->count;
        s->celset_id = o->celset_id;
        s->behaviour_id = o->behaviour_id;
        s->base_tile_id = o->base_tile_id;
        s->x = (int16_t)x;
        s->y = (int16_t)y;
        s->cel = 0xFF;                         /* "except cel, since it will be pre-incremented" */
        return i;
    }
    return SIM_EFULL;
}

void sim_anim_delete(sim_anim *an, sim_anim_slot *s)
{
    (void)an;
    s->index = 0;
}

void sim_anim_reinit(sim_anim *an, sim_anim_slot *s, uint8_t celset)
{
    (void)an;
    s->celset_id = celset;
    s->duration = 0;
    s->cel = 0xFF;
}

/* One parsed cel-set entry. kind is the command byte, or 0 for a cel. */
typedef struct entry { uint8_t kind, cel, duration, flags; } entry;

/* Entry n of cel set id; past the last whole entry it reads as end. Never reads past len. */
static entry cel_entry(const sim_anim *an, uint8_t id, uint8_t n)
{
    entry e = { SIM_CEL_END, 0, 0, 0 };
    if (id >= an->cfg.ncelsets) return e;
    const sim_cel_set *cs = &an->cfg.celsets[id];
    if (!cs->bytes) return e;
    size_t p = 0, len = cs->len;
    for (unsigned i = 0;; i++) {
        if (p >= len) return e;
        uint8_t b = cs->bytes[p];
        size_t size = b < SIM_CEL_DELETE ? 3 : b == SIM_CEL_WAIT ? 2 : 1;
        if (p + size > len) return e;           /* cut short: the set ends here */
        if (i == n) {
            if (b < SIM_CEL_DELETE) {
                e.kind = 0; e.cel = b; e.duration = cs->bytes[p + 1];
                e.flags = cs->bytes[p + 2] & SIM_CEL_FLIPS;
            } else {
                e.kind = b;
                if (b == SIM_CEL_WAIT) e.duration = cs->bytes[p + 1];
            }
            return e;
        }
        p += size;
    }
}

enum { SHOW_NOTHING, SHOW_CEL, SHOW_DELETE };

/* GetSpriteAnimFrame: count the cached duration down, or step to the next entry and cache its
 * duration + offset (u8, unclamped). The current entry is re-read every frame. */
static int resolve(const sim_anim *an, sim_anim_slot *s, entry *out)
{
    for (int step = 0; step < RESOLVE_STEPS; step++) {
        entry e;
        if (s->duration != 0) {
            s->duration--;
            e = cel_entry(an, s->celset_id, s->cel);       /* the cel id, read again */
        } else {
            s->cel++;
            e = cel_entry(an, s->celset_id, s->cel);
            if (e.kind == SIM_CEL_RESTART) {               /* loop at once */
                s->duration = 0;
                s->cel = 0xFF;
                continue;
            }
            if (e.kind == SIM_CEL_END) {                   /* back to the previous cel */
                s->duration = 0;
                s->cel = (uint8_t)(s->cel - 2);
                continue;
            }
            if (e.kind != SIM_CEL_DELETE)
                s->duration = (uint8_t)(e.duration + s->duration_ofs);
        }
        *out = e;
        if (e.kind == SIM_CEL_DELETE) return SHOW_DELETE;
        return e.kind == 0 ? SHOW_CEL : SHOW_NOTHING;      /* wait, or a command re-read */
    }
    return SHOW_NOTHING;
}

void sim_anim_tick(sim_anim *an, void *ctx)
{
    for (int i = 0; i < an->cfg.nslots; i++) {     /* nothing shown unless this tick says so */
        sim_anim_slot *s = &an->slot[i];
        s->shown = s->shown_cel = s->shown_flags = s->shown_base = 0;
        s->shown_x = s->shown_y = 0;
    }
    for (int i = 0; i < an->cfg.nslots; i++) {
        sim_anim_slot *s = &an->slot[i];
        if (s->index == 0) continue;
        /* The behaviour first, so its changes show this frame. */
        if (s->behaviour_id < an->cfg.nbehaviours && an->cfg.behaviours[s->behaviour_id])
            an->cfg.behaviours[s->behaviour_id](ctx, an, s);
        /* Then render, even when the behaviour just deleted the slot. */
        entry e;
        int what = resolve(an, s, &e);
        if (what == SHOW_DELETE) {
            s->index = 0;
            continue;
        }
        if (what != SHOW_CEL) continue;
        s->shown = 1;
        s->shown_cel = e.cel;
        s->shown_flags = e.flags;
        s->shown_base = s->base_tile_id;
        s->shown_x = (int32_t)s->x + s->x_ofs + an->global_x;
        s->shown_y = (int32_t)s->y + s->y_ofs + an->global_y;
    }
}

/* UpdateAnimFrame's OAM writes: OBJs relative to the origin, mirrored about it when the cel is
 * flipped (AddOrSubtractX/Y: -8 - a on the Game Boy, -width - a here), tile = OBJ tile + slot
 * base tile + cel base tile (u8), attributes XOR the cel's flip flags. */
static void draw_slot(const sim_anim *an, const sim_anim_slot *s, sim_frame *f)
{
    if (s->shown_cel >= an->cfg.ncels) return;
    const sim_cel *c = &an->cfg.cels[s->shown_cel];
    if (!c->oam || c->oam_len < 1) return;
    unsigned n = c->oam[0];
    if ((size_t)n * 4 + 1 > c->oam_len) n = (unsigned)((c->oam_len - 1) / 4);
    for (unsigned k = 0; k < n; k++) {
        const uint8_t *o = c->oam + 1 + 4 * k;
        uint8_t tile = (uint8_t)(o[2] + s->shown_base + c->base_tile);
        uint8_t attr = (uint8_t)(o[3] ^ s->shown_flags);
        if (tile >= an->cfg.ntiles) continue;
        const sim_sprite *t = &an->cfg.tiles[tile];
        if (!t->px) continue;
        int32_t rx = (int8_t)o[0], ry = (int8_t)o[1];
        if (s->shown_flags & SIM_CEL_XFLIP) rx = -(int32_t)t->w - rx;
        if (s->shown_flags & SIM_CEL_YFLIP) ry = -(int32_t)t->h - ry;
        unsigned fl = ((attr & SIM_CEL_XFLIP) ? SIM_BLIT_FLIPX : 0u) |
                      ((attr & SIM_CEL_YFLIP) ? SIM_BLIT_FLIPY : 0u);
        sim_raster_blit(f, t, (int)(s->shown_x + rx), (int)(s->shown_y + ry), fl);
    }
}

void sim_anim_draw(const sim_anim *an, sim_frame *f)
{
    for (int i = 0; i < an->cfg.nslots; i++)
        if (an->slot[i].shown) draw_slot(an, &an->slot[i], f);
}

/* ---- state ----------------------------------------------------------------------------------- */
size_t sim_anim_save_max(const sim_anim *an)
{
    return 2 + 1 + 1 + 2 + 2 + (size_t)an->cfg.nslots * SAVE_SLOT_BYTES;
}

static void save_slot(const sim_anim_slot *s, sim_writer *wr)
{
    sim__w_u8(wr, s->index);
    sim__w_u8(wr, s->celset_id);
    sim__w_u8(wr, s->behaviour_id);
    sim__w_u8(wr, s->base_tile_id);
    sim__w_u16(wr, (uint16_t)s->x);
    sim__w_u16(wr, (uint16_t)s->y);
    sim__w_u16(wr, (uint16_t)s->x_ofs);
    sim__w_u16(wr, (uint16_t)s->y_ofs);
    sim__w_u8(wr, s->duration);
    sim__w_u8(wr, s->duration_ofs);
    sim__w_u8(wr, s->cel);
    sim__w_bytes(wr, s->vars, 5);
    sim__w_u8(wr, s->shown);
    sim__w_u8(wr, s->shown_cel);
    sim__w_u8(wr, s->shown_flags);
    sim__w_u8(wr, s->shown_base);
    sim__w_i32(wr, s->shown_x);
    sim__w_i32(wr, s->shown_y);
}

void sim_anim_save(const sim_anim *an, sim_writer *wr)
{
    sim__w_u16(wr, SAVE_TAG);
    sim__w_u8(wr, (uint8_t)an->cfg.nslots);
    sim__w_u8(wr, an->count);
    sim__w_u16(wr, (uint16_t)an->global_x);
    sim__w_u16(wr, (uint16_t)an->global_y);
    for (int i = 0; i < an->cfg.nslots; i++) save_slot(&an->slot[i], wr);
}

static int load_slot(sim_anim_slot *s, sim_reader *rd)
{
    memset(s, 0, sizeof *s);
    s->index = sim__r_u8(rd);
    s->celset_id = sim__r_u8(rd);
    s->behaviour_id = sim__r_u8(rd);
    s->base_tile_id = sim__r_u8(rd);
    s->x = (int16_t)sim__r_u16(rd);
    s->y = (int16_t)sim__r_u16(rd);
    s->x_ofs = (int16_t)sim__r_u16(rd);
    s->y_ofs = (int16_t)sim__r_u16(rd);
    s->duration = sim__r_u8(rd);
    s->duration_ofs = sim__r_u8(rd);
    s->cel = sim__r_u8(rd);
    sim__r_bytes(rd, s->vars, 5);
    s->shown = sim__r_u8(rd);
    s->shown_cel = sim__r_u8(rd);
    s->shown_flags = sim__r_u8(rd);
    s->shown_base = sim__r_u8(rd);
    s->shown_x = sim__r_i32(rd);
    s->shown_y = sim__r_i32(rd);
    if (rd->err) return rd->err;
    /* Only what a tick can produce: a flag is 0 or 1, flips are the two flip bits, a shown cel
     * is a cel id, and an origin is the sum of three int16. */
    if (s->shown > 1 || (s->shown_flags & ~SIM_CEL_FLIPS) || s->shown_cel >= SIM_CEL_DELETE ||
        s->shown_x < 3 * INT16_MIN || s->shown_x > 3 * INT16_MAX ||
        s->shown_y < 3 * INT16_MIN || s->shown_y > 3 * INT16_MAX)
        return SIM_ECORRUPT;
    if (!s->shown && (s->shown_cel || s->shown_flags || s->shown_base || s->shown_x || s->shown_y))
        return SIM_ECORRUPT;
    return 0;
}

/* Two passes over the same bytes: check everything into a scratch slot, then keep it. */
int sim_anim_load(sim_anim *an, sim_reader *rd)
{
    size_t start = rd->pos;
    for (int pass = 0; pass < 2; pass++) {
        rd->pos = start;
        if (sim__r_u16(rd) != SAVE_TAG && !rd->err) return SIM_ECORRUPT;
        int n = sim__r_u8(rd);
        uint8_t count = sim__r_u8(rd);
        int16_t gx = (int16_t)sim__r_u16(rd), gy = (int16_t)sim__r_u16(rd);
        if (rd->err) return rd->err;
        if (n != an->cfg.nslots) return SIM_ECORRUPT;
        if (count == 0) return SIM_ECORRUPT;             /* the counter is never 0 */
        for (int i = 0; i < n; i++) {
            sim_anim_slot tmp;
            int rc = load_slot(&tmp, rd);
            if (rc) return rc;
            if (pass == 1) an->slot[i] = tmp;
        }
        if (pass == 1) {
            an->count = count;
            an->global_x = gx;
            an->global_y = gy;
        }
    }
    return 0;
}
