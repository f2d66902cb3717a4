/* state.c — the saved state of a sand world (size, chunk side, every cell, every chunk's dirty
 * rectangle for the next tick, little-endian), the load that validates all of it, and the
 * field-level desync report. */
#include "sand_int.h"

size_t sim__sand_save_max(const void *impl)
{
    const sand_world *s = impl;
    return 5 + (size_t)s->w * (size_t)s->h * 4 + (size_t)s->ncx * (size_t)s->ncy * 8;
}

void sim__sand_save(const void *impl, sim_writer *wr)
{
    const sand_world *s = impl;
    size_t n = (size_t)s->w * (size_t)s->h;
    sim__w_u16(wr, (uint16_t)s->w);
    sim__w_u16(wr, (uint16_t)s->h);
    sim__w_u8(wr, SAND_CHUNK);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The in-memory layout already is the saved one: one run of bytes, which a sink (the state
     * hash, sim_world_save_stream) takes without a copy. */
    sim__w_bytes(wr, s->cells, n * 4);
#else
    for (size_t i = 0; i < n; i++) sim__w_u32(wr, s->cells[i]);
#endif
    for (int k = 0; k < s->ncx * s->ncy; k++) {          /* row-major, whatever the layout */
        const rect16 *r = rect_at(s, s->nxt, k % s->ncx, k / s->ncx);
        sim__w_u16(wr, r->x0);
        sim__w_u16(wr, r->y0);
        sim__w_u16(wr, r->x1);
        sim__w_u16(wr, r->y1);
    }
}

int sim__sand_load(void *impl, sim_reader *rd)
{
    sand_world *s = impl;
    size_t n = (size_t)s->w * (size_t)s->h;
    int w = sim__r_u16(rd), h = sim__r_u16(rd), cs = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (w != s->w || h != s->h || cs != SAND_CHUNK) return SIM_ECORRUPT;
    if (n * 4 > rd->len - rd->pos) return SIM_ETRUNC;
    const uint8_t *b = rd->buf + rd->pos;
    for (size_t i = 0; i < n; i++, b += 4) {
        uint32_t c = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                     ((uint32_t)b[3] << 24);
        if (CELL_EL(c) >= SAND_NELEMENTS || (CELL_FLAGS(c) & ~(SAND_F_LOOSE | SAND_F_BURNING)))
            return SIM_ECORRUPT;
        s->cells[i] = c;
    }
    rd->pos += n * 4;
    for (int k = 0; k < s->ncx * s->ncy; k++) {
        rect16 r;
        r.x0 = sim__r_u16(rd); r.y0 = sim__r_u16(rd);
        r.x1 = sim__r_u16(rd); r.y1 = sim__r_u16(rd);
        if (rd->err) return rd->err;
        if (!rect_empty(&r)) {
            int cx = k % s->ncx, cy = k / s->ncx;
            if (r.x0 < cx * SAND_CHUNK || r.x1 >= (cx + 1) * SAND_CHUNK || r.x1 >= s->w ||
                r.y0 > r.y1 || r.y0 < cy * SAND_CHUNK || r.y1 >= (cy + 1) * SAND_CHUNK ||
                r.y1 >= s->h)
                return SIM_ECORRUPT;
        } else {
            rect_clear(&r);
        }
        *rect_at(s, s->nxt, k % s->ncx, k / s->ncx) = r;
    }
    return 0;
}

/* Desync report: every differing cell (element, life, flags, velocity) and dirty rectangle. */
static void describe_cell(uint32_t c, char *out, size_t cap)
{
    int fl = CELL_FLAGS(c);
    sim__fmt(out, cap, "%s%s%s life %d v(%d,%d)",
             sim__sand_element_names[CELL_EL(c) < SAND_NELEMENTS ? CELL_EL(c) : 0],
             (fl & SAND_F_LOOSE) ? " loose" : "", (fl & SAND_F_BURNING) ? " burning" : "",
             CELL_LIFE(c), CELL_VX(c), CELL_VY(c));
}

long sim__sand_diff(const void *ia, const void *ib, sim_diff_out *o)
{
    const sand_world *a = ia, *b = ib;
    long n = 0;
    if (a->w != b->w || a->h != b->h) {
        sim_diff_line(o, "size: %dx%d → %dx%d", a->w, a->h, b->w, b->h);
        return 1;
    }
    char da[64], db[64];
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++) {
            uint32_t ca = a->cells[y * a->w + x], cb = b->cells[y * b->w + x];
            if (ca == cb) continue;
            describe_cell(ca, da, sizeof da);
            describe_cell(cb, db, sizeof db);
            sim_diff_line(o, "cell (%d,%d): %s → %s", x, y, da, db);
            n++;
        }
    for (int k = 0; k < a->ncx * a->ncy; k++) {
        const rect16 *ra = rect_at(a, a->nxt, k % a->ncx, k / a->ncx);
        const rect16 *rb = rect_at(b, b->nxt, k % b->ncx, k / b->ncx);
        if (memcmp(ra, rb, sizeof *ra) == 0) continue;
        sim_diff_line(o, "chunk (%d,%d) dirty rect: %d,%d..%d,%d → %d,%d..%d,%d", k % a->ncx, k / a->ncx,
                      ra->x0, ra->y0, ra->x1, ra->y1, rb->x0, rb->y0, rb->x1, rb->y1);
        n++;
    }
    return n;
}
