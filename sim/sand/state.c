/* state.c — the saved state of a sand world (size, chunk side, every cell, every chunk's dirty
 * rectangle for the next tick, little-endian), the load that validates all of it, and the
 * field-level desync report. */
#include "sand_int.h"
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL      /* header-only: the cross build needs no arm64 libxxhash */
#include <xxhash.h>

size_t sim__sand_save_max(const void *impl)
{
    const sand_world *s = impl;
    return 5 + (size_t)s->w * (size_t)s->h * 4 + (size_t)s->ncx * (size_t)s->ncy * 8;
}

/* Every chunk's rectangle for the next tick, row-major whatever the layout: gathered 512 at a
 * time (the writer takes each batch in one call; a call per field cost a 2048x1024 world's hash
 * more than its changed chunks' digests). */
static void save_rects(const sand_world *s, sim_writer *wr)
{
    uint8_t stage[512 * 8];
    size_t at = 0;
    for (int cy = 0; cy < s->ncy; cy++)
        for (int cx = 0; cx < s->ncx; cx++) {
            const rect16 *r = rect_at(s, s->nxt, cx, cy);
            uint16_t v[4] = { r->x0, r->y0, r->x1, r->y1 };
            for (int i = 0; i < 4; i++, at += 2) {
                stage[at] = (uint8_t)v[i];
                stage[at + 1] = (uint8_t)(v[i] >> 8);
            }
            if (at == sizeof stage) {
                sim__w_bytes(wr, stage, at);
                at = 0;
            }
        }
    if (at) sim__w_bytes(wr, stage, at);
}

static inline void put_le32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

/* The cells as saved: row by row, 4 bytes each, little-endian. They are gathered from their
 * columns (cidx) 16 rows at a time into the world's band (s->band, SAND_BAND_STRIDE bytes a row:
 * not a power of two, so that a column's 16 stores fall in 16 sets of the cache): each column's
 * 16 cells of the band are one line, read once, and each of the band's rows goes to the writer
 * as one run. */
static void save_cells(const sand_world *s, sim_writer *wr)
{
    size_t row = (size_t)s->w * 4, stride = SAND_BAND_STRIDE(s->w);
    if (sim__w_counting(wr)) {
        sim__w_bytes(wr, NULL, row * (size_t)s->h);
        return;
    }
    for (int y0 = 0; y0 < s->h; y0 += 16) {
        int rows = s->h - y0 < 16 ? s->h - y0 : 16;
        uint8_t *band = s->band;
        for (int x = 0; x < s->w; x++) {
            const uint32_t *col = &s->cells[cidx(s, x, y0)];
            for (int r = 0; r < rows; r++) put_le32(band + (size_t)r * stride + (size_t)x * 4, col[r]);
        }
        for (int r = 0; r < rows; r++) sim__w_bytes(wr, band + (size_t)r * stride, row);
    }
}

void sim__sand_save(const void *impl, sim_writer *wr)
{
    const sand_world *s = impl;
    sim__w_u16(wr, (uint16_t)s->w);
    sim__w_u16(wr, (uint16_t)s->h);
    sim__w_u8(wr, SAND_CHUNK);
    save_cells(s, wr);
    save_rects(s, wr);
}

/* ---- the hashed form (state version 3 on; docs/STATE.md, "The sand world's state hash") ------- *
 * The state hash of a sand world is taken over the saved bytes with the cells replaced by one
 * XXH3-64 digest per chunk, so a tick hashes again only the chunks whose cells changed (their bit
 * in hdirty, set by seen_px with the render's marks) and then 8 bytes a chunk: at 2048x1024, 64 KB
 * of digests instead of 8 MB of cells. A chunk's digest is XXH3-64 of its cells as saved (4 bytes
 * each, little-endian), row by row from its top, min(16, W - 16 cx) cells a row, min(16, H - 16 cy)
 * rows. */
int sim__sand_digest_alloc(sand_world *s)
{
    s->hwords = (s->ncy + 63) / 64;
    s->hstride = (s->hwords + 7) & ~7;
    size_t words = (size_t)s->ncx * (size_t)s->hstride;
    s->digest = malloc((size_t)s->ncx * (size_t)s->ncy * sizeof *s->digest);
    s->hdirty_mem = malloc(words * sizeof *s->hdirty + 64);
    s->hdirty = sim__sand_line_align(s->hdirty_mem);
    if (!s->digest || !s->hdirty) return SIM_ENOMEM;
    memset(s->hdirty, 0xFF, words * sizeof *s->hdirty);       /* none taken yet */
    return 0;
}

/* XXH3-64 of a chunk's cells as saved, `row` bytes a row, `rows` rows, `stride` bytes apart. */
static uint64_t chunk_digest(const uint8_t *first, size_t row, int rows, size_t stride)
{
    uint8_t buf[SAND_CHUNK * SAND_CHUNK * 4];
    for (int y = 0; y < rows; y++) memcpy(buf + (size_t)y * row, first + (size_t)y * stride, row);
    return XXH3_64bits(buf, row * (size_t)rows);
}

static void put_le64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

/* Take again the digest of every chunk whose bit hdirty holds, and clear them all. */
static void refresh_digests(sand_world *s)
{
    for (int k = 0; k < s->ncx; k++) {
        int x0 = k * SAND_CHUNK, cw = s->w - x0 < SAND_CHUNK ? s->w - x0 : SAND_CHUNK;
        for (int j = 0; j < s->hwords; j++) {
            uint64_t bits = s->hdirty[(size_t)k * (size_t)s->hstride + (size_t)j];
            for (; bits; bits &= bits - 1) {
                int cy = j * 64 + __builtin_ctzll(bits);
                if (cy >= s->ncy) break;
                int y0 = cy * SAND_CHUNK, ch = s->h - y0 < SAND_CHUNK ? s->h - y0 : SAND_CHUNK;
                /* The chunk's cells as saved, row by row, from its columns (a line each). */
                uint8_t le[SAND_CHUNK * SAND_CHUNK * 4];
                for (int i = 0; i < cw; i++) {
                    const uint32_t *col = &s->cells[cidx(s, x0 + i, y0)];
                    for (int r = 0; r < ch; r++) put_le32(le + ((size_t)r * (size_t)cw + (size_t)i) * 4, col[r]);
                }
                s->digest[(size_t)cy * (size_t)s->ncx + (size_t)k] =
                    XXH3_64bits(le, (size_t)cw * (size_t)ch * 4);
            }
            s->hdirty[(size_t)k * (size_t)s->hstride + (size_t)j] = 0;
        }
    }
}

void sim__sand_save_hashed(void *impl, sim_writer *wr)
{
    sand_world *s = impl;
    refresh_digests(s);
    sim__w_u16(wr, (uint16_t)s->w);
    sim__w_u16(wr, (uint16_t)s->h);
    sim__w_u8(wr, SAND_CHUNK);
    size_t nch = (size_t)s->ncx * (size_t)s->ncy;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    sim__w_bytes(wr, s->digest, nch * 8);
#else
    for (size_t i = 0; i < nch; i++) sim__w_u64(wr, s->digest[i]);
#endif
    save_rects(s, wr);
}

int sim__sand_hashed_payload(const uint8_t *p, size_t n,
                             void (*put)(void *ud, const void *p, size_t n), void *ud)
{
    if (n < 5) return -1;
    int w = p[0] | p[1] << 8, h = p[2] | p[3] << 8;
    if (w < 1 || w > SAND_W_MAX || h < 1 || h > SAND_H_MAX || p[4] != SAND_CHUNK) return -1;
    size_t ncx = ((size_t)w + SAND_CHUNK - 1) / SAND_CHUNK, ncy = ((size_t)h + SAND_CHUNK - 1) / SAND_CHUNK;
    size_t cells = (size_t)w * (size_t)h * 4;
    if (n != 5 + cells + ncx * ncy * 8) return -1;
    put(ud, p, 5);
    uint8_t stage[4096];
    size_t at = 0;
    for (size_t cy = 0; cy < ncy; cy++)
        for (size_t cx = 0; cx < ncx; cx++) {
            size_t x0 = cx * SAND_CHUNK, y0 = cy * SAND_CHUNK;
            size_t cw = (size_t)w - x0 < SAND_CHUNK ? (size_t)w - x0 : SAND_CHUNK;
            int ch = (size_t)h - y0 < SAND_CHUNK ? (int)((size_t)h - y0) : SAND_CHUNK;
            put_le64(stage + at, chunk_digest(p + 5 + (y0 * (size_t)w + x0) * 4, cw * 4, ch, (size_t)w * 4));
            at += 8;
            if (at == sizeof stage) {
                put(ud, stage, at);
                at = 0;
            }
        }
    if (at) put(ud, stage, at);
    put(ud, p + 5 + cells, ncx * ncy * 8);                  /* the rectangles as saved */
    return 0;
}

int sim__sand_load(void *impl, sim_reader *rd)
{
    sand_world *s = impl;
    size_t n = (size_t)s->w * (size_t)s->h;
    int w = sim__r_u16(rd), h = sim__r_u16(rd), cs = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (w != s->w || h != s->h || cs != SAND_CHUNK) return SIM_ECORRUPT;
    if (n * 4 > rd->len - rd->pos) return SIM_ETRUNC;
    /* Row by row as saved, into their columns 16 rows at a time (a line of each column). */
    const uint8_t *p = rd->buf + rd->pos;
    size_t row = (size_t)s->w * 4;
    for (int y0 = 0; y0 < s->h; y0 += 16) {
        int rows = s->h - y0 < 16 ? s->h - y0 : 16;
        for (int x = 0; x < s->w; x++) {
            uint32_t *col = &s->cells[cidx(s, x, y0)];
            const uint8_t *b = p + (size_t)y0 * row + (size_t)x * 4;
            for (int r = 0; r < rows; r++, b += row) {
                uint32_t c = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
                             ((uint32_t)b[3] << 24);
                if (CELL_EL(c) >= SAND_NELEMENTS || (CELL_FLAGS(c) & ~(SAND_F_LOOSE | SAND_F_BURNING)))
                    return SIM_ECORRUPT;
                col[r] = c;
            }
        }
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
            uint32_t ca = a->cells[cidx(a, x, y)], cb = b->cells[cidx(b, x, y)];
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
