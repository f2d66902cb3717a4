/* codec.c — the "tile" frame encoding (docs/PROTOCOL.md, "Frame data").
 *
 * ---- Format -----------------------------------------------------------------------------------
 *
 * Frame. w×h palette indexes, 1 ≤ w, h ≤ 4096, one byte each, row-major (pixel (x, y) is byte
 * y·w + x). It is cut into tiles of 16×16 pixels (CODEC_TILE):
 *     tilesx = ceil(w / 16), tilesy = ceil(h / 16), ntiles = tilesx · tilesy.
 * Tile i (0 ≤ i < ntiles) is column tx = i mod tilesx of row ty = i div tilesx: tiles are numbered
 * row-major, left to right, then top to bottom. It covers x in [16·tx, 16·tx + tw) and y in
 * [16·ty, 16·ty + th), where tw = min(16, w − 16·tx) and th = min(16, h − 16·ty): the last column
 * and the last row of tiles are clipped to the frame, so an edge tile may be narrower and/or
 * shorter than 16 (down to 1×1). "Tile order" for the pixels of one tile means its th rows top to
 * bottom, each row left to right.
 *
 * Data. One header byte, then:
 *   0  NONE    Nothing else: the data is exactly this one byte. No pixel changed since the
 *              previous frame of the stream (sent when only the palette changed, or nothing did).
 *              Invalid in a message with key = 1.
 *   1  BITMAP  A bitmap of ceil(ntiles / 8) bytes, then the payloads of the present tiles, in
 *              ascending tile number. Tile i is present iff bit (i mod 8) of bitmap byte
 *              (i div 8) is set, bit 0 being the least significant (mask 0x01): tile 0 is 0x01 of
 *              byte 0, tile 9 is 0x02 of byte 1. The 8·ceil(ntiles / 8) − ntiles unused high bits
 *              of the last bitmap byte must be 0. A tile that is not present keeps the pixels it
 *              had. A bitmap with no bit set is valid (it changes nothing); this encoder sends
 *              header 0 instead. Invalid in a message with key = 1.
 *   2  ALL     The payloads of every tile, 0 to ntiles − 1 in order; no bitmap. Required in a
 *              message with key = 1; also valid with key = 0 (every pixel is replaced).
 *   3..255     Invalid.
 * The data must end exactly after the last payload: missing bytes or extra bytes are an error.
 *
 * Tile payload. One mode byte, then:
 *   0  SOLID   c (1 byte). Every pixel of the tile is c.
 *   1  PACKED  n (1 byte), 2 ≤ n ≤ 16; the local palette p[0..n) (n bytes); then th rows of
 *              ceil(tw·b / 8) bytes each, where b = 1 if n = 2, b = 2 if n ≤ 4, b = 4 if n ≤ 16
 *              bits per pixel. A row holds its tw pixels' b-bit local indexes k, most significant
 *              bit first: the row's first pixel is the top b bits of the row's first byte (mask
 *              0x80 for b = 1, 0xC0 for b = 2, 0xF0 for b = 4), the next pixel the b bits below,
 *              and so on. Every row starts on a byte boundary (rows are padded, not the tile): the
 *              unused low bits of a row's last byte — only in edge tiles whose width is not a
 *              multiple of 8/b — are written as 0 and ignored by the decoder. Pixel = p[k]; a
 *              local index k ≥ n is an error. Duplicate or unused local palette entries are valid
 *              (harmless); this encoder never writes them: its p is the tile's distinct indexes in
 *              order of first appearance in tile order.
 *   2  RLE     (c, len) pairs until the tile is covered: c is 1 byte, len an unsigned LEB128
 *              varint ≥ 1; the pair paints len pixels of index c in tile order, so a run may cross
 *              from the end of one tile row to the start of the next. The runs must cover exactly
 *              tw·th pixels: a zero length, a run past the end of the tile, or data ending before
 *              the tile is covered is an error. LEB128: 7 value bits per byte, least significant
 *              group first, bit 7 (0x80) set on every byte except the last; at most 5 bytes (a
 *              5th byte with bit 7 set is an error). Encoders write the shortest form (1 byte for
 *              1..127, 2 bytes for 128..256: 128 = 0x80 0x01, 256 = 0x80 0x02); decoders also
 *              accept padded forms such as 0x81 0x00 (= 1).
 *   3  RAW     tw·th bytes: the pixels in tile order.
 *   4..255     Invalid.
 *
 * Errors. Anything else is malformed: the decoder refuses it (CODEC_EDATA) and may already have
 * written some tiles, so a client must drop its picture and wait for the next keyframe. A frame
 * size outside 1..4096 is CODEC_ESIZE.
 *
 * Examples. A 16×16 keyframe of index 7: 02 00 07. A 3×2 keyframe with rows (5 5 6), (6 5 5):
 * 02 01 02 05 06 20 80 (PACKED, n = 2, b = 1, each 3-pixel row padded to a byte). A 16×16
 * keyframe whose top 8 rows are index 1 and bottom 8 rows index 2: 02 02 01 80 01 02 80 01 (RLE,
 * two runs of 128). A 32×16 delta where only the right tile changed, to index 9: 01 02 00 09.
 *
 * ---- Encoder (this file) ------------------------------------------------------------------------
 *
 * Deterministic: the bytes are a pure function of (cur, prev, w, h). (vivd's rect streams put
 * their data together from codec_tile_payload's tiles instead: server/tiles.c.)
 *   - prev == NULL (keyframe): header 2 and every tile.
 *   - Otherwise a tile is present iff at least one of its pixels differs from prev. No tile
 *     present: the single byte 0. Else header 1 and the bitmap, even when every tile changed.
 *   - A tile's mode is the one with the smallest payload among those that apply, ties to the
 *     lowest mode number: SOLID (1 distinct index: 2 bytes), PACKED (2..16 distinct indexes:
 *     2 + n + th·ceil(tw·b / 8)), RLE (1 + Σ over the maximal runs of 1 + varint length), RAW
 *     (1 + tw·th). RAW always applies, so the output is at most
 *     1 + ceil(ntiles / 8) + ntiles + w·h bytes (codec_bound).
 */
#include "codec.h"
#include <assert.h>
#include <string.h>

enum { HDR_NONE = CODEC_HDR_NONE, HDR_BITMAP = CODEC_HDR_BITMAP, HDR_ALL = CODEC_HDR_ALL };
enum { MODE_SOLID = 0, MODE_PACKED = 1, MODE_RLE = 2, MODE_RAW = 3 };
#define CODEC_MAX_SIDE 4096
#define VARINT_MAX_BYTES 5

static int size_ok(int w, int h)
{
    return w >= 1 && w <= CODEC_MAX_SIDE && h >= 1 && h <= CODEC_MAX_SIDE;
}

static size_t ntiles_of(int w, int h)
{
    return (size_t)((w + CODEC_TILE - 1) / CODEC_TILE) * (size_t)((h + CODEC_TILE - 1) / CODEC_TILE);
}

size_t codec_bound(int w, int h)
{
    if (!size_ok(w, h)) return 0;
    size_t nt = ntiles_of(w, h);
    return 1 + (nt + 7) / 8 + nt + (size_t)w * (size_t)h;
}

static int bits_for(int n)
{
    return n == 2 ? 1 : n <= 4 ? 2 : 4;
}

/* ---- bytes ------------------------------------------------------------------------------------- */

/* Host order: for comparisons only, where byte order does not matter. */
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* PACKED rows are most significant bit first, so they are handled as big-endian words. */
static inline void put_be64(uint8_t *p, uint64_t v)
{
    p[0] = (uint8_t)(v >> 56);
    p[1] = (uint8_t)(v >> 48);
    p[2] = (uint8_t)(v >> 40);
    p[3] = (uint8_t)(v >> 32);
    p[4] = (uint8_t)(v >> 24);
    p[5] = (uint8_t)(v >> 16);
    p[6] = (uint8_t)(v >> 8);
    p[7] = (uint8_t)v;
}

/* Write the low 8·n bits of v, most significant byte first. */
static inline void put_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* Little-endian whatever the host: byte 0 is the low byte (compilers make this one load). */
static inline uint64_t load_le64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

static inline uint64_t load_be64(const uint8_t *p)
{
    return (uint64_t)p[7] | (uint64_t)p[6] << 8 | (uint64_t)p[5] << 16 | (uint64_t)p[4] << 24 |
           (uint64_t)p[3] << 32 | (uint64_t)p[2] << 40 | (uint64_t)p[1] << 48 | (uint64_t)p[0] << 56;
}

/* How many of the 8 bytes of x are not zero. */
static inline size_t nonzero_bytes(uint64_t x)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7fULL;
    uint64_t hi = (((x & lo7) + lo7) | x) & ~lo7;           /* bit 7 of each nonzero byte */
    return (size_t)(((hi >> 7) * 0x0101010101010101ULL) >> 56);
}

/* ---- encoder ----------------------------------------------------------------------------------- */

/* Per-call scratch. While a tile is analysed, tab[v] = 0x100 | k for each index v seen so far in
 * it, k its local number; the tile's entries are cleared when it is done (only those: a tile
 * has few distinct indexes, and the table starts zeroed once per call). */
typedef struct enc_scratch {
    uint16_t tab[256];
    uint8_t pal[256];              /* the tile's distinct indexes in order of first appearance */
    uint8_t nib[CODEC_TILE * CODEC_TILE / 2];   /* a full-width tile packed 4 bits a pixel */
} enc_scratch;

/* The table entry of index v in the current tile, numbering v if it is new. */
static inline unsigned see(enc_scratch *s, unsigned *n, unsigned v)
{
    unsigned e = s->tab[v];
    if (!e) {                                      /* first appearance; *n ≤ 255 here */
        e = 0x100u | *n;
        s->tab[v] = (uint16_t)e;
        s->pal[(*n)++] = (uint8_t)v;
    }
    return e;
}

/* Is every pixel of the tile equal to src[0]? Full-width rows compare as two words. */
static int tile_is_solid(const uint8_t *src, size_t stride, int tw, int th)
{
    uint8_t c = src[0];
    if (tw == CODEC_TILE) {
        uint64_t v = 0x0101010101010101ULL * c;
        for (int y = 0; y < th; y++, src += stride)
            if ((load64(src) ^ v) | (load64(src + 8) ^ v)) return 0;
        return 1;
    }
    for (int y = 0; y < th; y++, src += stride)
        for (int x = 0; x < tw; x++)
            if (src[x] != c) return 0;
    return 1;
}

/* RLE payload size of the tile, mode byte included. */
static size_t rle_size(const uint8_t *src, size_t stride, int tw, int th)
{
    size_t size = 1;
    unsigned last = src[0], run = 0;
    for (int y = 0; y < th; y++, src += stride)
        for (int x = 0; x < tw; x++) {
            if (src[x] != last) {
                size += run > 127 ? 3 : 2;
                last = src[x];
                run = 0;
            }
            run++;
        }
    return size + (run > 127 ? 3 : 2);
}

static uint8_t *put_varint(uint8_t *o, unsigned v)
{
    while (v > 127) {
        *o++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

static uint8_t *put_rle(uint8_t *o, const uint8_t *src, size_t stride, int tw, int th)
{
    *o++ = MODE_RLE;
    unsigned last = src[0], run = 0;
    for (int y = 0; y < th; y++, src += stride)
        for (int x = 0; x < tw; x++) {
            if (src[x] != last) {
                *o++ = (uint8_t)last;
                o = put_varint(o, run);
                last = src[x];
                run = 0;
            }
            run++;
        }
    *o++ = (uint8_t)last;
    return put_varint(o, run);
}

static uint8_t *put_packed(uint8_t *o, const uint8_t *src, size_t stride, int tw, int th, int n,
                           const enc_scratch *s)
{
    *o++ = MODE_PACKED;
    *o++ = (uint8_t)n;
    memcpy(o, s->pal, (size_t)n);
    o += n;
    const int b = bits_for(n);
    if (tw == CODEC_TILE) {                        /* packed 4 bits a pixel by the analysis pass */
        if (b == 4) {
            memcpy(o, s->nib, (size_t)th * 8);
            return o + th * 8;
        }
        /* Squeeze each row's 16 nibbles (each < 2^b) to b bits: halve the field width, doubling
         * the fields per lane, until they are contiguous; pixel 0 stays on top. */
        for (int y = 0; y < th; y++) {
            uint64_t x = load_be64(s->nib + 8 * y);
            if (b == 2) {
                x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
                x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
                x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
                x = (x | (x >> 16)) & 0x00000000ffffffffULL;
                o[0] = (uint8_t)(x >> 24);
                o[1] = (uint8_t)(x >> 16);
                o[2] = (uint8_t)(x >> 8);
                o[3] = (uint8_t)x;
                o += 4;
            } else {
                x = (x | (x >> 3)) & 0x0303030303030303ULL;
                x = (x | (x >> 6)) & 0x000f000f000f000fULL;
                x = (x | (x >> 12)) & 0x000000ff000000ffULL;
                x = (x | (x >> 24)) & 0x000000000000ffffULL;
                o[0] = (uint8_t)(x >> 8);
                o[1] = (uint8_t)x;
                o += 2;
            }
        }
        return o;
    }
    const int rowbytes = (tw * b + 7) / 8, pad = rowbytes * 8 - tw * b;
    for (int y = 0; y < th; y++, src += stride, o += rowbytes) {
        uint64_t acc = 0;                          /* tw·b ≤ 64 bits */
        for (int x = 0; x < tw; x++) acc = (acc << b) | (s->tab[src[x]] & 0xffu);
        put_be(o, acc << pad, rowbytes);
    }
    return o;
}

/* Encode one tile (tw×th pixels at src, rows stride apart) at o; returns the end of its payload. */
static uint8_t *put_tile(uint8_t *o, const uint8_t *src, size_t stride, int tw, int th,
                         enc_scratch *s)
{
    if (tile_is_solid(src, stride, tw, th)) {
        o[0] = MODE_SOLID;
        o[1] = src[0];
        return o + 2;
    }
    /* One pass: distinct indexes with their local numbers, the number of runs and, for a
     * full-width tile, its pixels packed 4 bits each, ready if PACKED wins. */
    unsigned n = 0;
    size_t runs = 1;
    const uint8_t *row = src;
    if (tw == CODEC_TILE) {
        uint64_t last = src[0];
        uint8_t *nib = s->nib;
        for (int y = 0; y < th; y++, row += stride, nib += 8) {
            for (int x = 0; x < CODEC_TILE; x += 4) {
                /* (e << 4) keeps k's low nibble on top and drops the 0x100 flag with the cast */
                unsigned e0 = see(s, &n, row[x]), e1 = see(s, &n, row[x + 1]);
                unsigned e2 = see(s, &n, row[x + 2]), e3 = see(s, &n, row[x + 3]);
                nib[x / 2] = (uint8_t)((e0 << 4) | (e1 & 15u));
                nib[x / 2 + 1] = (uint8_t)((e2 << 4) | (e3 & 15u));
            }
            /* Runs: count the bytes that differ from their left neighbour, 8 at a time. */
            uint64_t a = load_le64(row), b = load_le64(row + 8);
            runs += nonzero_bytes(a ^ ((a << 8) | last)) + nonzero_bytes(b ^ ((b << 8) | (a >> 56)));
            last = b >> 56;
        }
    } else {
        unsigned last = src[0];
        for (int y = 0; y < th; y++, row += stride)
            for (int x = 0; x < tw; x++) {
                see(s, &n, row[x]);
                runs += row[x] != last;
                last = row[x];
            }
    }
    size_t npx = (size_t)tw * (size_t)th;
    int mode = MODE_RAW;
    size_t best = 1 + npx;
    if (n <= 16) {
        size_t packed = 2 + (size_t)n + (size_t)th * (((size_t)tw * (size_t)bits_for((int)n) + 7) / 8);
        if (packed <= best) {
            mode = MODE_PACKED;
            best = packed;
        }
    }
    /* RLE costs at least 2 bytes a run; only count exactly when it could win. */
    if (1 + 2 * runs <= best) {
        size_t rle = rle_size(src, stride, tw, th);
        if (rle < best || (rle == best && mode > MODE_RLE)) mode = MODE_RLE;
    }
    switch (mode) {
    case MODE_PACKED:
        o = put_packed(o, src, stride, tw, th, (int)n, s);
        break;
    case MODE_RLE:
        o = put_rle(o, src, stride, tw, th);
        break;
    default:
        *o++ = MODE_RAW;
        for (int y = 0; y < th; y++, src += stride, o += tw) memcpy(o, src, (size_t)tw);
    }
    for (unsigned k = 0; k < n; k++) s->tab[s->pal[k]] = 0;
    return o;
}

/* Does the tw-byte segment differ? Full tiles compare as two words. */
static int seg_differs(const uint8_t *a, const uint8_t *b, int tw)
{
    if (tw == CODEC_TILE) return ((load64(a) ^ load64(b)) | (load64(a + 8) ^ load64(b + 8))) != 0;
    return memcmp(a, b, (size_t)tw) != 0;
}

/* Which tiles of the band of rows [y0, y0 + th) differ between cur and prev (w wide): changed[tx]
 * set to 1 or 0 for each of its tiles; returns how many differ. A static band costs one memcmp;
 * a changed one, one per frame row, then the tiles of the rows that differ, until every tile of
 * the band is known changed. */
static int band_changes(const uint8_t *cur, const uint8_t *prev, int w, int y0, int th, uint8_t *changed)
{
    const size_t stride = (size_t)w;
    const int tilesx = (w + CODEC_TILE - 1) / CODEC_TILE;
    const size_t band = (size_t)y0 * stride;
    if (memcmp(cur + band, prev + band, (size_t)th * stride) == 0) return 0;
    int nchanged = 0;
    memset(changed, 0, (size_t)tilesx);
    for (int y = y0; y < y0 + th && nchanged < tilesx; y++) {
        const uint8_t *a = cur + (size_t)y * stride, *b = prev + (size_t)y * stride;
        if (memcmp(a, b, stride) == 0) continue;
        for (int tx = 0; tx < tilesx; tx++) {
            if (changed[tx]) continue;
            const int x0 = tx * CODEC_TILE;
            const int tw = w - x0 < CODEC_TILE ? w - x0 : CODEC_TILE;
            if (seg_differs(a + x0, b + x0, tw)) {
                changed[tx] = 1;
                nchanged++;
            }
        }
    }
    return nchanged;
}

int codec_band_changes(const uint8_t *cur, const uint8_t *prev, int w, int h, int ty, uint8_t *changed)
{
    assert(size_ok(w, h) && ty >= 0 && ty * CODEC_TILE < h);
    const int y0 = ty * CODEC_TILE;
    const int th = h - y0 < CODEC_TILE ? h - y0 : CODEC_TILE;
    int n = band_changes(cur, prev, w, y0, th, changed);
    if (n == 0) memset(changed, 0, (size_t)((w + CODEC_TILE - 1) / CODEC_TILE));
    return n;
}

size_t codec_tile_payload(uint8_t *o, const uint8_t *src, size_t stride, int tw, int th)
{
    assert(tw >= 1 && tw <= CODEC_TILE && th >= 1 && th <= CODEC_TILE);
    enc_scratch s;
    memset(s.tab, 0, sizeof s.tab);
    return (size_t)(put_tile(o, src, stride, tw, th, &s) - o);
}

long codec_encode(wire_buf *out, const uint8_t *cur, const uint8_t *prev, int w, int h)
{
    assert(out && cur);
    if (!size_ok(w, h)) return CODEC_ESIZE;
    size_t bound = codec_bound(w, h);
    if (out->oom || wire_buf_reserve(out, bound) != 0) return CODEC_ENOMEM;
    enc_scratch s;
    memset(s.tab, 0, sizeof s.tab);

    const size_t stride = (size_t)w;
    const int tilesx = (w + CODEC_TILE - 1) / CODEC_TILE;
    const int tilesy = (h + CODEC_TILE - 1) / CODEC_TILE;
    uint8_t *const start = out->p + out->len;
    uint8_t *o = start;
    uint8_t *bitmap = NULL;
    int any = 0;
    if (prev) {
        size_t nb = ((size_t)tilesx * (size_t)tilesy + 7) / 8;
        *o++ = HDR_BITMAP;
        bitmap = o;
        memset(bitmap, 0, nb);
        o += nb;
    } else {
        *o++ = HDR_ALL;
    }
    uint8_t changed[CODEC_MAX_SIDE / CODEC_TILE];
    for (int ty = 0; ty < tilesy; ty++) {
        const int y0 = ty * CODEC_TILE;
        const int th = h - y0 < CODEC_TILE ? h - y0 : CODEC_TILE;
        if (prev && band_changes(cur, prev, w, y0, th, changed) == 0) continue;
        for (int tx = 0; tx < tilesx; tx++) {
            if (prev && !changed[tx]) continue;
            const int x0 = tx * CODEC_TILE;
            const int tw = w - x0 < CODEC_TILE ? w - x0 : CODEC_TILE;
            if (bitmap) {
                size_t i = (size_t)ty * (size_t)tilesx + (size_t)tx;
                bitmap[i >> 3] |= (uint8_t)(1u << (i & 7));
                any = 1;
            }
            o = put_tile(o, cur + (size_t)y0 * stride + (size_t)x0, stride, tw, th, &s);
        }
    }
    if (prev && !any) {
        start[0] = HDR_NONE;
        o = start + 1;
    }
    size_t n = (size_t)(o - start);
    assert(n <= bound);
    out->len += n;
    return (long)n;
}

/* ---- decoder ----------------------------------------------------------------------------------- */

/* Decode one tile payload from *pp (bounded by end) into dst (tw×th, rows stride apart). Advances
 * *pp past the payload. Never reads at or past end, never writes outside the tile. */
static int get_tile(const uint8_t **pp, const uint8_t *end, uint8_t *dst, size_t stride, int tw,
                    int th)
{
    const uint8_t *p = *pp;
    const size_t npx = (size_t)tw * (size_t)th;
    if (p == end) return CODEC_EDATA;
    switch (*p++) {
    case MODE_SOLID:
        if (p == end) return CODEC_EDATA;
        for (int y = 0; y < th; y++, dst += stride) memset(dst, *p, (size_t)tw);
        p++;
        break;
    case MODE_PACKED: {
        if (p == end) return CODEC_EDATA;
        int n = *p++;
        if (n < 2 || n > 16) return CODEC_EDATA;
        int b = bits_for(n);
        size_t rowbytes = ((size_t)tw * (size_t)b + 7) / 8;
        if ((size_t)(end - p) < (size_t)n + (size_t)th * rowbytes) return CODEC_EDATA;
        uint8_t lp[16] = { 0 };
        memcpy(lp, p, (size_t)n);
        p += n;
        if (tw == CODEC_TILE) {
            /* Each row as 16 nibbles, pixel 0 on top (1- and 2-bit fields widened to 4 bits);
             * a nibble k ≥ n is caught 8 at a time: k + (16 − n) carries into bit 4 of its byte. */
            const uint64_t lo4 = 0x0f0f0f0f0f0f0f0fULL, bit4 = 0x1010101010101010ULL;
            const uint64_t lift = 0x0101010101010101ULL * (uint64_t)(16 - n);
            uint64_t bad = 0;
            for (int y = 0; y < th; y++, dst += stride, p += rowbytes) {
                uint64_t x;
                if (b == 4) {
                    x = load_be64(p);
                } else if (b == 2) {
                    x = (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
                    x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
                    x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
                    x = (x | (x << 4)) & lo4;
                    x = (x | (x << 2)) & 0x3333333333333333ULL;
                } else {
                    x = (uint64_t)p[0] << 8 | p[1];
                    x = (x | (x << 24)) & 0x000000ff000000ffULL;
                    x = (x | (x << 12)) & 0x000f000f000f000fULL;
                    x = (x | (x << 6)) & 0x0303030303030303ULL;
                    x = (x | (x << 3)) & 0x1111111111111111ULL;
                }
                bad |= (((x & lo4) + lift) | (((x >> 4) & lo4) + lift)) & bit4;
                uint8_t nib[8];
                put_be64(nib, x);
                for (int i = 0; i < 8; i++) {
                    dst[2 * i] = lp[nib[i] >> 4];
                    dst[2 * i + 1] = lp[nib[i] & 15];
                }
            }
            if (bad) return CODEC_EDATA;
        } else {
            const unsigned mask = (1u << b) - 1;
            for (int y = 0; y < th; y++, dst += stride, p += rowbytes)
                for (int x = 0; x < tw; x++) {
                    int bit = x * b;                    /* from the MSB of the row's first byte */
                    unsigned k = (p[bit >> 3] >> (8 - b - (bit & 7))) & mask;
                    if ((int)k >= n) return CODEC_EDATA;
                    dst[x] = lp[k];
                }
        }
        break;
    }
    case MODE_RLE: {
        size_t pos = 0;
        while (pos < npx) {
            if (end - p < 2) return CODEC_EDATA;
            uint8_t c = *p++;
            uint64_t run = 0;
            for (int i = 0;; i++) {
                if (i == VARINT_MAX_BYTES || p == end) return CODEC_EDATA;
                uint8_t byte = *p++;
                run |= (uint64_t)(byte & 0x7f) << (7 * i);
                if (!(byte & 0x80)) break;
            }
            if (run == 0 || run > npx - pos) return CODEC_EDATA;
            while (run > 0) {            /* paint row segments: a run may cross tile rows */
                size_t y = pos / (size_t)tw, x = pos % (size_t)tw;
                size_t k = (size_t)tw - x < run ? (size_t)tw - x : (size_t)run;
                memset(dst + y * stride + x, c, k);
                pos += k;
                run -= k;
            }
        }
        break;
    }
    case MODE_RAW:
        if ((size_t)(end - p) < npx) return CODEC_EDATA;
        for (int y = 0; y < th; y++, dst += stride, p += tw) memcpy(dst, p, (size_t)tw);
        break;
    default:
        return CODEC_EDATA;
    }
    *pp = p;
    return CODEC_OK;
}

int codec_decode(const uint8_t *data, size_t len, uint8_t *px, int w, int h, int key)
{
    assert(px);
    if (!size_ok(w, h)) return CODEC_ESIZE;
    if (!data || len == 0) return CODEC_EDATA;
    const uint8_t *p = data, *const end = data + len;
    const int hdr = *p++;
    if (key && hdr != HDR_ALL) return CODEC_EDATA;
    const size_t nt = ntiles_of(w, h);
    const uint8_t *bitmap = NULL;
    switch (hdr) {
    case HDR_NONE:
        return len == 1 ? CODEC_OK : CODEC_EDATA;
    case HDR_BITMAP: {
        size_t nb = (nt + 7) / 8;
        if ((size_t)(end - p) < nb) return CODEC_EDATA;
        bitmap = p;
        p += nb;
        if (nt % 8 && (bitmap[nb - 1] >> (nt % 8))) return CODEC_EDATA;   /* bits past the last tile */
        break;
    }
    case HDR_ALL:
        break;
    default:
        return CODEC_EDATA;
    }
    const size_t stride = (size_t)w;
    const int tilesx = (w + CODEC_TILE - 1) / CODEC_TILE;
    size_t i = 0;
    for (int y0 = 0; y0 < h; y0 += CODEC_TILE) {
        const int th = h - y0 < CODEC_TILE ? h - y0 : CODEC_TILE;
        for (int tx = 0; tx < tilesx; tx++, i++) {
            if (bitmap && !(bitmap[i >> 3] & (1u << (i & 7)))) continue;
            const int x0 = tx * CODEC_TILE;
            const int tw = w - x0 < CODEC_TILE ? w - x0 : CODEC_TILE;
            int rc = get_tile(&p, end, px + (size_t)y0 * stride + (size_t)x0, stride, tw, th);
            if (rc != CODEC_OK) return rc;
        }
    }
    return p == end ? CODEC_OK : CODEC_EDATA;
}
