/* tiles.c — one view of a world cut into the codec's 16×16 tiles, shared by every rect stream of
 * that view: what changed is found once a tick, and each changed tile is encoded once, however
 * many rects show it.
 *
 * A rect on the SRV_REGION grid (64 px, a multiple of the tile) starts on a tile boundary and ends
 * on one or at the world's edge, so its tiles are the world's tiles, clipped the same way; the
 * payload of a tile (docs/PROTOCOL.md, "tile") depends on its pixels alone. A rect's tile data is
 * then the header, its bitmap and the cached payloads of its tiles, in its own row-major order.
 *
 * Change is counted in updates, not ticks: an update that finds any tile changed takes the next
 * generation and stamps those tiles with it. A stream remembers the generation of the frame it
 * sent last; a delta names the tiles stamped later. That holds however the ticks go (every > 1, a
 * seek back on a timeline, a world shown paused), as long as each frame sent was preceded by an
 * update from the frame it shows. A tile that changed and changed back is named needlessly (its
 * pixels are sent again); the decoder takes that as it takes any present tile. */
#include <stdlib.h>
#include <string.h>
#include "codec.h"
#include "network.h"

void srv_tiles_free(srv_tiles *t)
{
    free(t->last);
    free(t->chg);
    free(t->plen);
    free(t->pay);
    memset(t, 0, sizeof *t);
}

/* A new size (or the first frame): everything is new. */
static int tiles_reset(srv_tiles *t, const sim_frame *f)
{
    uint64_t gen = t->gen, encoded = t->encoded;
    srv_tiles_free(t);
    t->w = f->w;
    t->h = f->h;
    t->tx = (f->w + CODEC_TILE - 1) / CODEC_TILE;
    t->ty = (f->h + CODEC_TILE - 1) / CODEC_TILE;
    size_t n = (size_t)t->tx * (size_t)t->ty;
    t->last = malloc((size_t)f->w * f->h);
    t->chg = malloc(n * sizeof *t->chg);
    t->plen = calloc(n, sizeof *t->plen);
    t->pay = malloc(n * CODEC_TILE_PAYLOAD_MAX);
    if (!t->last || !t->chg || !t->plen || !t->pay) {
        srv_tiles_free(t);
        return -1;
    }
    memcpy(t->last, f->px, (size_t)f->w * f->h);
    t->gen = gen + 1;
    t->encoded = encoded;
    for (size_t i = 0; i < n; i++) t->chg[i] = t->gen;
    return 0;
}

/* Tile (tx, ty)'s payload, encoded from the last frame into its slot. */
static void encode_tile(srv_tiles *t, int tx, int ty)
{
    size_t i = (size_t)ty * (size_t)t->tx + (size_t)tx;
    const int x0 = tx * CODEC_TILE, y0 = ty * CODEC_TILE;
    const int tw = t->w - x0 < CODEC_TILE ? t->w - x0 : CODEC_TILE;
    const int th = t->h - y0 < CODEC_TILE ? t->h - y0 : CODEC_TILE;
    t->plen[i] = (uint16_t)codec_tile_payload(t->pay + i * CODEC_TILE_PAYLOAD_MAX,
                                              t->last + (size_t)y0 * t->w + (size_t)x0, (size_t)t->w, tw, th);
}

/* Tile row ty of f against the last frame: its changed tiles stamped with the next generation
 * (t->gen + 1, taken by srv_tiles_end or the update) and kept; with `encode`, then, every tile of
 * the row whose payload is not encoded (the changed ones, and any no rect asked for yet) encoded
 * (*encoded counts them). Touches tile row ty alone. 1 if any tile changed. */
static int band_update(srv_tiles *t, const sim_frame *f, int ty, int encode, uint64_t *encoded)
{
    uint8_t changed[4096 / CODEC_TILE];
    const uint64_t gen = t->gen + 1;
    int any = codec_band_changes(f->px, t->last, t->w, t->h, ty, changed) != 0;
    const int y0 = ty * CODEC_TILE, th = t->h - y0 < CODEC_TILE ? t->h - y0 : CODEC_TILE;
    for (int tx = 0; any && tx < t->tx; tx++) {
        if (!changed[tx]) continue;
        size_t i = (size_t)ty * (size_t)t->tx + (size_t)tx;
        t->chg[i] = gen;
        t->plen[i] = 0;
        const int x0 = tx * CODEC_TILE, tw = t->w - x0 < CODEC_TILE ? t->w - x0 : CODEC_TILE;
        for (int y = y0; y < y0 + th; y++) {
            size_t o = (size_t)y * (size_t)t->w + (size_t)x0;
            memcpy(t->last + o, f->px + o, (size_t)tw);
        }
    }
    for (int tx = 0; encode && tx < t->tx; tx++)
        if (!t->plen[(size_t)ty * (size_t)t->tx + (size_t)tx]) {
            encode_tile(t, tx, ty);
            (*encoded)++;
        }
    return any;
}

int srv_tiles_update(srv_tiles *t, const sim_frame *f)
{
    if (!t->last || t->w != f->w || t->h != f->h) return tiles_reset(t, f);
    int any = 0;
    for (int ty = 0; ty < t->ty; ty++) any |= band_update(t, f, ty, 0, &t->encoded);
    if (any) {
        t->gen++;
        t->all_encoded = 0;             /* the changed tiles wait until a rect asks for them */
    }
    return 0;
}

int srv_tiles_begin(srv_tiles *t, const sim_frame *f)
{
    if ((!t->last || t->w != f->w || t->h != f->h) && tiles_reset(t, f) != 0) return -1;
    return t->ty;
}

int srv_tiles_band(srv_tiles *t, const sim_frame *f, int ty, uint64_t *encoded)
{
    return band_update(t, f, ty, 1, encoded);
}

void srv_tiles_end(srv_tiles *t, int any, uint64_t encoded)
{
    if (any) t->gen++;
    t->encoded += encoded;
    t->all_encoded = 1;
}

/* Tile i's payload, encoded now if it changed since it last was. */
static const uint8_t *payload(srv_tiles *t, int tx, int ty, size_t *len)
{
    size_t i = (size_t)ty * (size_t)t->tx + (size_t)tx;
    if (!t->plen[i]) {
        encode_tile(t, tx, ty);
        t->encoded++;
    }
    *len = t->plen[i];
    return t->pay + i * CODEC_TILE_PAYLOAD_MAX;
}

void srv_tiles_prepare(srv_tiles *t, int rx, int ry, int rw, int rh)
{
    if (t->all_encoded) return;         /* a crowd's pass encoded every tile (srv_tiles_end) */
    const int tx0 = rx / CODEC_TILE, ty0 = ry / CODEC_TILE;
    const int ntx = (rw + CODEC_TILE - 1) / CODEC_TILE, nty = (rh + CODEC_TILE - 1) / CODEC_TILE;
    size_t len;
    for (int y = ty0; y < ty0 + nty; y++)
        for (int x = tx0; x < tx0 + ntx; x++)
            if (!t->plen[(size_t)y * (size_t)t->tx + (size_t)x]) payload(t, x, y, &len);
}

/* The tiles of the rect (tile columns tx0.., rows ty0.., ntx × nty of them) as srv_tiles_rect
 * writes them, at o (room enough: rect_size's); the bytes written. *newest as there. */
static size_t rect_write(srv_tiles *t, int tx0, int ty0, int ntx, int nty, int key, uint64_t since,
                         uint8_t *const start, uint64_t *newest)
{
    const size_t nt = (size_t)ntx * (size_t)nty, nb = (nt + 7) / 8;
    uint8_t *o = start;
    uint8_t *bitmap = NULL;
    *o++ = key ? CODEC_HDR_ALL : CODEC_HDR_BITMAP;
    if (!key) {
        bitmap = o;
        memset(bitmap, 0, nb);
        o += nb;
    }
    uint64_t top = 0;
    int any = 0;
    for (int y = 0; y < nty; y++) {
        const uint64_t *chg = t->chg + (size_t)(ty0 + y) * (size_t)t->tx + (size_t)tx0;
        for (int x = 0; x < ntx; x++) {
            if (chg[x] > top) top = chg[x];
            if (!key && chg[x] <= since) continue;
            if (bitmap) {
                size_t i = (size_t)y * (size_t)ntx + (size_t)x;
                bitmap[i >> 3] |= (uint8_t)(1u << (i & 7));
            }
            size_t len;
            const uint8_t *p = payload(t, tx0 + x, ty0 + y, &len);
            memcpy(o, p, len);
            o += len;
            any = 1;
        }
    }
    if (!key && !any) {
        start[0] = CODEC_HDR_NONE;
        o = start + 1;
    }
    *newest = top;
    return (size_t)(o - start);
}

long srv_tiles_rect(srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since,
                    wire_buf *out, uint64_t *newest)
{
    const int tx0 = rx / CODEC_TILE, ty0 = ry / CODEC_TILE;
    const int ntx = (rw + CODEC_TILE - 1) / CODEC_TILE, nty = (rh + CODEC_TILE - 1) / CODEC_TILE;
    const size_t nt = (size_t)ntx * (size_t)nty, nb = (nt + 7) / 8;
    if (wire_buf_reserve(out, 1 + nb + nt * CODEC_TILE_PAYLOAD_MAX) != 0) return -1;
    size_t n = rect_write(t, tx0, ty0, ntx, nty, key, since, out->p + out->len, newest);
    out->len += n;
    return (long)n;
}

size_t srv_tiles_rect_size(const srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since)
{
    const int tx0 = rx / CODEC_TILE, ty0 = ry / CODEC_TILE;
    const int ntx = (rw + CODEC_TILE - 1) / CODEC_TILE, nty = (rh + CODEC_TILE - 1) / CODEC_TILE;
    const size_t nt = (size_t)ntx * (size_t)nty;
    size_t n = 1 + (key ? 0 : (nt + 7) / 8);
    int any = 0;
    for (int y = 0; y < nty; y++) {
        size_t row = (size_t)(ty0 + y) * (size_t)t->tx + (size_t)tx0;
        for (int x = 0; x < ntx; x++) {
            if (!key && t->chg[row + (size_t)x] <= since) continue;
            n += t->plen[row + (size_t)x];
            any = 1;
        }
    }
    return key || any ? n : 1;
}

long srv_tiles_rect_to(srv_tiles *t, int rx, int ry, int rw, int rh, int key, uint64_t since,
                       wire_buf *out, uint64_t *newest)
{
    const int tx0 = rx / CODEC_TILE, ty0 = ry / CODEC_TILE;
    const int ntx = (rw + CODEC_TILE - 1) / CODEC_TILE, nty = (rh + CODEC_TILE - 1) / CODEC_TILE;
    size_t n = rect_write(t, tx0, ty0, ntx, nty, key, since, out->p + out->len, newest);
    out->len += n;
    return (long)n;
}
