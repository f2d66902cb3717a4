/* check_codec.c — the tile frame encoding: round trips (keyframes of every colour count and edge
 * size, deltas over random and real sand frames), exact bytes for hand-checked cases, the mode the
 * encoder picks, determinism, and malformed data of every kind (truncations, corruptions, random
 * garbage), which must be refused or decoded without a stray read or write. Decoder buffers are
 * malloc'd at their exact size so a sanitizer build catches any overflow. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "codec.h"
#include "sim.h"
#include "script.h"

#define T CODEC_TILE

/* ---- helpers ----------------------------------------------------------------------------------- */
static uint8_t *xmalloc(size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *q = xmalloc(n);
    memcpy(q, p, n);
    return q;
}

/* Encode into a fresh buffer; checks the return value against the bytes appended and the bound. */
static void enc(wire_buf *b, const uint8_t *cur, const uint8_t *prev, int w, int h)
{
    wire_buf_reset(b);
    long n = codec_encode(b, cur, prev, w, h);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq((size_t)n, b->len);
    ck_assert_uint_le(b->len, codec_bound(w, h));
}

/* Decode data into an exact-size copy of `into` (or junk for a keyframe); returns the result code
 * and, on success, compares with want. */
static int dec_cmp(const uint8_t *data, size_t len, const uint8_t *into, const uint8_t *want, int w,
                   int h, int key)
{
    size_t n = (size_t)w * (size_t)h;
    uint8_t *px = xmalloc(n);
    if (into) memcpy(px, into, n);
    else memset(px, 0xA5, n);
    int rc = codec_decode(data, len, px, w, h, key);
    if (rc == CODEC_OK && want)
        ck_assert_msg(memcmp(px, want, n) == 0, "%dx%d: decoded frame differs", w, h);
    free(px);
    return rc;
}

static void assert_bytes(const wire_buf *b, const uint8_t *want, size_t n)
{
    ck_assert_uint_eq(b->len, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(b->p[i] == want[i], "byte %zu: got 0x%02x, want 0x%02x", i, b->p[i], want[i]);
}

/* A frame whose every tile holds exactly min(k, tile pixels) distinct indexes: the first k pixels
 * in tile order take k distinct random indexes, the rest random ones among them. */
static void fill_k_colours(uint8_t *px, int w, int h, int k, sim_rng *r)
{
    for (int y0 = 0; y0 < h; y0 += T)
        for (int x0 = 0; x0 < w; x0 += T) {
            uint8_t set[256];
            for (int i = 0; i < 256; i++) set[i] = (uint8_t)i;
            for (int i = 0; i < k; i++) {          /* partial Fisher–Yates: k distinct indexes */
                int j = i + (int)sim_rng_below(r, (uint32_t)(256 - i));
                uint8_t t = set[i];
                set[i] = set[j];
                set[j] = t;
            }
            int i = 0;
            for (int y = y0; y < y0 + T && y < h; y++)
                for (int x = x0; x < x0 + T && x < w; x++, i++) {
                    uint8_t c = i < k ? set[i] : set[sim_rng_below(r, (uint32_t)k)];
                    px[(size_t)y * (size_t)w + (size_t)x] = c;
                }
        }
}

static sim_world *mk_sand(const char *params) { return script_world("sand", 1, params); }

/* ---- round trips ------------------------------------------------------------------------------- */
static const int SIZES[][2] = { { 1, 1 }, { 15, 17 }, { 16, 16 }, { 17, 16 }, { 320, 180 },
                                { 640, 480 }, { 4096, 1 }, { 1, 4096 }, { 33, 47 } };
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])

START_TEST(keyframe_round_trip_colour_counts)
{
    static const int KS[] = { 1, 2, 3, 4, 5, 16, 17, 256 };
    sim_rng r;
    sim_rng_seed(&r, 11, 1);
    wire_buf b;
    wire_buf_init(&b);
    for (int s = 0; s < NSIZES; s++)
        for (size_t ki = 0; ki < sizeof KS / sizeof KS[0]; ki++) {
            int w = SIZES[s][0], h = SIZES[s][1];
            uint8_t *px = xmalloc((size_t)w * (size_t)h);
            fill_k_colours(px, w, h, KS[ki], &r);
            enc(&b, px, NULL, w, h);
            ck_assert_uint_eq(b.p[0], 2);
            ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, px, w, h, 1), CODEC_OK);
            free(px);
        }
    wire_buf_free(&b);
}
END_TEST

START_TEST(keyframe_round_trip_random_frames)
{
    sim_rng r;
    sim_rng_seed(&r, 12, 1);
    wire_buf b;
    wire_buf_init(&b);
    for (int it = 0; it < 300; it++) {
        int w = 1 + (int)sim_rng_below(&r, 70), h = 1 + (int)sim_rng_below(&r, 70);
        size_t n = (size_t)w * (size_t)h;
        uint8_t *px = xmalloc(n);
        /* Mixtures: noise over a few colours, horizontal runs, and blocks, so all modes appear. */
        int style = (int)sim_rng_below(&r, 3), ncol = 1 + (int)sim_rng_below(&r, 20);
        for (size_t i = 0; i < n; i++) {
            if (style == 0) px[i] = (uint8_t)sim_rng_below(&r, (uint32_t)ncol);
            else if (style == 1)
                px[i] = i && sim_rng_below(&r, 8) ? px[i - 1] : (uint8_t)sim_rng_next(&r);
            else px[i] = (uint8_t)(((i % (size_t)w) / 5 + (i / (size_t)w) / 7) * 37);
        }
        enc(&b, px, NULL, w, h);
        ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, px, w, h, 1), CODEC_OK);
        /* header 2 is also valid in a delta message */
        ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, px, w, h, 0), CODEC_OK);
        free(px);
    }
    wire_buf_free(&b);
}
END_TEST

/* Which tiles differ between a and b, computed pixel by pixel. */
static int tile_changed(const uint8_t *a, const uint8_t *b, int w, int h, int tx, int ty)
{
    for (int y = ty * T; y < h && y < ty * T + T; y++)
        for (int x = tx * T; x < w && x < tx * T + T; x++)
            if (a[(size_t)y * (size_t)w + (size_t)x] != b[(size_t)y * (size_t)w + (size_t)x]) return 1;
    return 0;
}

/* Encode cur against prev, check the header and that the bitmap names exactly the changed tiles,
 * then decode onto the client's copy of prev (which becomes cur). */
static void delta_step(wire_buf *b, uint8_t *client, const uint8_t *prev, const uint8_t *cur, int w,
                       int h)
{
    size_t n = (size_t)w * (size_t)h;
    enc(b, cur, prev, w, h);
    int tilesx = (w + T - 1) / T, tilesy = (h + T - 1) / T, nchanged = 0;
    for (int ty = 0; ty < tilesy; ty++)
        for (int tx = 0; tx < tilesx; tx++) {
            int ch = tile_changed(prev, cur, w, h, tx, ty);
            nchanged += ch;
            if (b->p[0] == 1) {
                int i = ty * tilesx + tx;
                int bit = (b->p[1 + i / 8] >> (i % 8)) & 1;
                ck_assert_msg(bit == ch, "tile %d: bitmap says %d", i, bit);
            }
        }
    if (nchanged == 0) {
        ck_assert_uint_eq(b->len, 1);
        ck_assert_uint_eq(b->p[0], 0);
    } else {
        ck_assert_uint_eq(b->p[0], 1);
    }
    ck_assert_int_eq(codec_decode(b->p, b->len, client, w, h, 0), CODEC_OK);
    ck_assert_msg(memcmp(client, cur, n) == 0, "%dx%d: delta decode differs", w, h);
}

START_TEST(delta_round_trip_random_sparse)
{
    static const int DS[][2] = { { 320, 180 }, { 33, 47 }, { 1, 1 }, { 4096, 1 }, { 17, 16 } };
    sim_rng r;
    sim_rng_seed(&r, 13, 1);
    wire_buf b;
    wire_buf_init(&b);
    for (size_t s = 0; s < sizeof DS / sizeof DS[0]; s++) {
        int w = DS[s][0], h = DS[s][1];
        size_t n = (size_t)w * (size_t)h;
        uint8_t *prev = xmalloc(n), *cur = xmalloc(n), *client = xmalloc(n);
        fill_k_colours(prev, w, h, 3, &r);
        enc(&b, prev, NULL, w, h);
        memset(client, 0, n);
        ck_assert_int_eq(codec_decode(b.p, b.len, client, w, h, 1), CODEC_OK);
        for (int step = 0; step < 150; step++) {
            memcpy(cur, prev, n);
            int kind = (int)sim_rng_below(&r, 4);
            if (kind == 1) {                       /* a few pixels */
                int k = 1 + (int)sim_rng_below(&r, 6);
                while (k--) cur[sim_rng_below(&r, (uint32_t)n)] = (uint8_t)sim_rng_next(&r);
            } else if (kind == 2) {                /* a rectangle of one colour */
                int x0 = (int)sim_rng_below(&r, (uint32_t)w), y0 = (int)sim_rng_below(&r, (uint32_t)h);
                int rw = 1 + (int)sim_rng_below(&r, 40), rh = 1 + (int)sim_rng_below(&r, 40);
                uint8_t c = (uint8_t)sim_rng_below(&r, 8);
                for (int y = y0; y < y0 + rh && y < h; y++)
                    for (int x = x0; x < x0 + rw && x < w; x++)
                        cur[(size_t)y * (size_t)w + (size_t)x] = c;
            } else if (kind == 3) {                /* a pixel rewritten with its own value */
                size_t i = sim_rng_below(&r, (uint32_t)n);
                cur[i] = prev[i];
            }                                      /* kind 0: nothing changes */
            delta_step(&b, client, prev, cur, w, h);
            memcpy(prev, cur, n);
        }
        free(prev);
        free(cur);
        free(client);
    }
    wire_buf_free(&b);
}
END_TEST

/* Real frames: a client that got one keyframe and then every delta tracks the world exactly. */
static void sand_stream(const char *params, int ticks)
{
    sim_world *w = mk_sand(params);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    sim_world_render(w, 0, &f);
    int fw = f.w, fh = f.h;
    size_t n = (size_t)fw * (size_t)fh;
    uint8_t *prev = dup_bytes(f.px, n), *client = xmalloc(n);
    wire_buf b;
    wire_buf_init(&b);
    enc(&b, f.px, NULL, fw, fh);
    ck_assert_int_eq(codec_decode(b.p, b.len, client, fw, fh, 1), CODEC_OK);
    ck_assert_int_eq(memcmp(client, f.px, n), 0);
    int deltas = 0;
    for (int t = 0; t < ticks; t++) {
        sim_world_step(w);
        sim_world_render(w, 0, &f);
        delta_step(&b, client, prev, f.px, fw, fh);
        deltas += b.p[0] == 1;
        if (t % 100 == 0) {                        /* a late joiner's keyframe, too */
            enc(&b, f.px, NULL, fw, fh);
            ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, f.px, fw, fh, 1), CODEC_OK);
        }
        memcpy(prev, f.px, n);
    }
    ck_assert_int_gt(deltas, ticks / 2);           /* the world moved: deltas were exercised */
    wire_buf_free(&b);
    free(prev);
    free(client);
    sim_frame_free(&f);
    sim_world_destroy(w);
}

START_TEST(delta_round_trip_sand_demo) { sand_stream("", 400); }
END_TEST

START_TEST(delta_round_trip_sand_bench) { sand_stream("scene=bench", 200); }
END_TEST

START_TEST(palette_only_change_is_one_byte)
{
    sim_world *w = mk_sand("");
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    for (int t = 0; t < 30; t++) sim_world_step(w);
    sim_world_render(w, 0, &f);
    size_t n = (size_t)f.w * f.h;
    uint8_t *same = dup_bytes(f.px, n);
    f.pal.rgb[0] ^= 0xFF;                          /* the palette changes, the pixels do not */
    f.pal.version++;
    wire_buf b;
    wire_buf_init(&b);
    enc(&b, f.px, same, f.w, f.h);
    static const uint8_t want[] = { 0 };
    assert_bytes(&b, want, 1);
    ck_assert_int_eq(dec_cmp(b.p, b.len, f.px, f.px, f.w, f.h, 0), CODEC_OK);
    ck_assert_int_eq(dec_cmp(b.p, b.len, f.px, NULL, f.w, f.h, 1), CODEC_EDATA);  /* not a keyframe */
    wire_buf_free(&b);
    free(same);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

/* ---- exact bytes and modes --------------------------------------------------------------------- */
START_TEST(exact_bytes_hand_checked)
{
    wire_buf b;
    wire_buf_init(&b);
    uint8_t px[32 * 16], prev[32 * 16];

    memset(px, 7, 256);                            /* 16×16 of 7: SOLID */
    enc(&b, px, NULL, 16, 16);
    static const uint8_t solid[] = { 2, 0, 7 };
    assert_bytes(&b, solid, sizeof solid);

    static const uint8_t tiny[6] = { 5, 5, 6, 6, 5, 5 };   /* 3×2: PACKED, 1 bit, rows padded */
    enc(&b, tiny, NULL, 3, 2);
    static const uint8_t tiny_want[] = { 2, 1, 2, 5, 6, 0x20, 0x80 };
    assert_bytes(&b, tiny_want, sizeof tiny_want);

    for (int y = 0; y < 16; y++)                   /* checkerboard of 7 and 9: PACKED, 1 bit */
        for (int x = 0; x < 16; x++) px[y * 16 + x] = (x + y) % 2 ? 9 : 7;
    enc(&b, px, NULL, 16, 16);
    uint8_t checker[5 + 32] = { 2, 1, 2, 7, 9 };
    for (int y = 0; y < 16; y++) checker[5 + 2 * y] = checker[6 + 2 * y] = y % 2 ? 0xAA : 0x55;
    assert_bytes(&b, checker, sizeof checker);

    static const uint8_t three[16] = { 10, 20, 30, 10, 20, 30, 10, 20,     /* 8×2: PACKED, 2 bits */
                                       30, 30, 30, 30, 20, 20, 20, 20 };
    enc(&b, three, NULL, 8, 2);
    static const uint8_t three_want[] = { 2, 1, 3, 10, 20, 30, 0x18, 0x61, 0xAA, 0x55 };
    assert_bytes(&b, three_want, sizeof three_want);

    static const uint8_t wide3_want[] = { 2, 1, 3, 10, 20, 30, 0x18, 0x61, 0x86, 0x18 };
    uint8_t wide[16];                              /* 16×1, 3 colours: PACKED, 2 bits, full width */
    for (int i = 0; i < 16; i++) wide[i] = (uint8_t)(10 + 10 * (i % 3));
    enc(&b, wide, NULL, 16, 1);
    assert_bytes(&b, wide3_want, sizeof wide3_want);
    ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, wide, 16, 1, 1), CODEC_OK);
    static const uint8_t wide5_want[] = { 2, 1, 5, 100, 101, 102, 103, 104,  /* 16×1, 4 bits */
                                          0x01, 0x23, 0x40, 0x12, 0x34, 0x01, 0x23, 0x40 };
    for (int i = 0; i < 16; i++) wide[i] = (uint8_t)(100 + i % 5);
    enc(&b, wide, NULL, 16, 1);
    assert_bytes(&b, wide5_want, sizeof wide5_want);
    ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, wide, 16, 1, 1), CODEC_OK);
    static const uint8_t wide2_want[] = { 2, 1, 2, 7, 9, 0x4C, 0x71 };   /* 16×1, 1 bit */
    static const uint8_t wide2[16] = { 7, 9, 7, 7, 9, 9, 7, 7, 7, 9, 9, 9, 7, 7, 7, 9 };
    enc(&b, wide2, NULL, 16, 1);
    assert_bytes(&b, wide2_want, sizeof wide2_want);
    ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, wide2, 16, 1, 1), CODEC_OK);

    uint8_t five[5 * 16];                          /* 5×16, 5 colours: PACKED, 4 bits, padded */
    for (int i = 0; i < 5 * 16; i++) five[i] = (uint8_t)(100 + i % 5);
    enc(&b, five, NULL, 5, 16);
    uint8_t five_want[3 + 5 + 48] = { 2, 1, 5, 100, 101, 102, 103, 104 };
    for (int y = 0; y < 16; y++) {
        five_want[8 + 3 * y] = 0x01;
        five_want[9 + 3 * y] = 0x23;
        five_want[10 + 3 * y] = 0x40;
    }
    assert_bytes(&b, five_want, sizeof five_want);

    memset(px, 1, 128);                            /* halves of 1 and 2: RLE, 2-byte varints */
    memset(px + 128, 2, 128);
    enc(&b, px, NULL, 16, 16);
    static const uint8_t halves[] = { 2, 2, 1, 0x80, 0x01, 2, 0x80, 0x01 };
    assert_bytes(&b, halves, sizeof halves);

    static const uint8_t four[4] = { 3, 1, 4, 1 };         /* 4×1: RAW beats PACKED (6) and RLE (9) */
    enc(&b, four, NULL, 4, 1);
    static const uint8_t four_want[] = { 2, 3, 3, 1, 4, 1 };
    assert_bytes(&b, four_want, sizeof four_want);

    memset(prev, 4, sizeof prev);                  /* 32×16, the right tile becomes 9 */
    memcpy(px, prev, sizeof px);
    for (int y = 0; y < 16; y++) memset(px + y * 32 + 16, 9, 16);
    enc(&b, px, prev, 32, 16);
    static const uint8_t delta[] = { 1, 0x02, 0, 9 };
    assert_bytes(&b, delta, sizeof delta);
    ck_assert_int_eq(dec_cmp(b.p, b.len, prev, px, 32, 16, 0), CODEC_OK);

    enc(&b, prev, prev, 32, 16);                   /* nothing changed */
    static const uint8_t none[] = { 0 };
    assert_bytes(&b, none, 1);
    wire_buf_free(&b);
}
END_TEST

START_TEST(mode_for_solid_two_colour_and_noise)
{
    sim_rng r;
    sim_rng_seed(&r, 14, 1);
    wire_buf b;
    wire_buf_init(&b);
    uint8_t px[256];
    fill_k_colours(px, 16, 16, 1, &r);
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 0);                  /* SOLID */
    ck_assert_uint_eq(b.len, 3);
    fill_k_colours(px, 16, 16, 2, &r);
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 1);                  /* PACKED, 1 bit: 2 + 2 + 32 */
    ck_assert_uint_eq(b.len, 1 + 36);
    fill_k_colours(px, 16, 16, 16, &r);
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 1);                  /* PACKED, 4 bits: 2 + 16 + 128 */
    ck_assert_uint_eq(b.len, 1 + 146);
    fill_k_colours(px, 16, 16, 256, &r);
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 3);                  /* RAW */
    ck_assert_uint_eq(b.len, 1 + 257);
    /* A run of 128 (a 2-byte varint) then 16 runs of 8: RLE = 1 + 3 + 16·2 = 36 = PACKED, and the
     * tie goes to PACKED; with the last three short runs merged into one RLE is 32 and wins. */
    memset(px, 1, 128);
    for (int i = 128; i < 256; i++) px[i] = (i / 8) % 2 ? 1 : 2;
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 1);
    ck_assert_uint_eq(b.len, 1 + 36);
    uint8_t rev[256];                              /* the same with the long run last */
    for (int i = 0; i < 256; i++) rev[i] = px[255 - i];
    enc(&b, rev, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 1);
    memset(px + 240, 1, 16);
    enc(&b, px, NULL, 16, 16);
    ck_assert_uint_eq(b.p[1], 2);
    ck_assert_uint_eq(b.len, 1 + 32);
    wire_buf_free(&b);
}
END_TEST

/* The payload size of each mode for one tile, computed from the format text alone
 * (SIZE_MAX: the mode does not apply). */
static void ref_sizes(const uint8_t *t, int tw, int th, size_t sz[4])
{
    int seen[256] = { 0 }, n = 0;
    size_t npx = (size_t)tw * (size_t)th, rle = 1;
    for (size_t i = 0; i < npx; i++) n += !seen[t[i]]++;
    for (size_t i = 0; i < npx;) {
        size_t j = i;
        while (j < npx && t[j] == t[i]) j++;
        rle += 1 + (j - i < 128 ? 1 : 2);
        i = j;
    }
    int bits = n == 2 ? 1 : n <= 4 ? 2 : 4;
    sz[0] = n == 1 ? 2 : SIZE_MAX;
    size_t rowbytes = ((size_t)tw * (size_t)bits + 7) / 8;
    sz[1] = n >= 2 && n <= 16 ? 2 + (size_t)n + (size_t)th * rowbytes : SIZE_MAX;
    sz[2] = rle;
    sz[3] = 1 + npx;
}

START_TEST(mode_is_the_smallest_lowest_on_ties)
{
    sim_rng r;
    sim_rng_seed(&r, 15, 1);
    wire_buf b;
    wire_buf_init(&b);
    int used[4] = { 0 };
    for (int it = 0; it < 4000; it++) {
        int tw = 1 + (int)sim_rng_below(&r, T), th = 1 + (int)sim_rng_below(&r, T);
        size_t npx = (size_t)tw * (size_t)th;
        uint8_t t[T * T];
        int ncol = 1 + (int)sim_rng_below(&r, 24), runny = (int)sim_rng_below(&r, 40);
        for (size_t i = 0; i < npx; i++) {
            uint8_t fresh = (uint8_t)(sim_rng_below(&r, (uint32_t)ncol) * 11);
            t[i] = i && (int)sim_rng_below(&r, 40) < runny ? t[i - 1] : fresh;
        }
        if (it % 3 == 0) {                         /* one long run (2-byte varints) among the rest */
            size_t len = sim_rng_below(&r, (uint32_t)npx + 1);
            memset(t + (npx - len) / 2, t[0], len);
        }
        size_t sz[4];
        ref_sizes(t, tw, th, sz);
        int want = 0;
        for (int m = 1; m < 4; m++)
            if (sz[m] < sz[want]) want = m;
        enc(&b, t, NULL, tw, th);
        ck_assert_msg(b.p[1] == want, "%dx%d: mode %d, want %d (sizes %zu %zu %zu %zu)", tw, th, b.p[1],
                      want, sz[0], sz[1], sz[2], sz[3]);
        ck_assert_uint_eq(b.len, 1 + sz[want]);
        ck_assert_int_eq(dec_cmp(b.p, b.len, NULL, t, tw, th, 1), CODEC_OK);
        used[want]++;
    }
    for (int m = 0; m < 4; m++) ck_assert_msg(used[m] > 50, "mode %d chosen only %d times", m, used[m]);
    wire_buf_free(&b);
}
END_TEST

START_TEST(encoding_is_deterministic_and_appends)
{
    sim_rng r;
    sim_rng_seed(&r, 16, 1);
    int w = 100, h = 37;
    size_t n = (size_t)w * (size_t)h;
    uint8_t *a = xmalloc(n), *p = xmalloc(n);
    fill_k_colours(p, w, h, 5, &r);
    memcpy(a, p, n);
    for (int i = 0; i < 40; i++) a[sim_rng_below(&r, (uint32_t)n)] = (uint8_t)sim_rng_next(&r);
    wire_buf b1, b2;
    wire_buf_init(&b1);
    wire_buf_init(&b2);
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *prev = pass ? p : NULL;
        enc(&b1, a, prev, w, h);
        wire_buf_reset(&b2);
        wire_put_raw(&b2, "xyz", 3);
        long got = codec_encode(&b2, a, prev, w, h);
        ck_assert_int_eq(got, (long)b1.len);
        ck_assert_uint_eq(b2.len, 3 + b1.len);
        ck_assert_int_eq(memcmp(b2.p, "xyz", 3), 0);
        ck_assert_int_eq(memcmp(b2.p + 3, b1.p, b1.len), 0);
    }
    wire_buf_free(&b1);
    wire_buf_free(&b2);
    free(a);
    free(p);
}
END_TEST

START_TEST(encode_errors_and_bound)
{
    uint8_t px[4] = { 0 };
    wire_buf b;
    wire_buf_init(&b);
    ck_assert_int_eq(codec_encode(&b, px, NULL, 0, 1), CODEC_ESIZE);
    ck_assert_int_eq(codec_encode(&b, px, NULL, 1, 4097), CODEC_ESIZE);
    ck_assert_int_eq(codec_encode(&b, px, NULL, -3, 1), CODEC_ESIZE);
    ck_assert_uint_eq(b.len, 0);
    b.oom = 1;                                     /* a buffer that already failed stays failed */
    ck_assert_int_eq(codec_encode(&b, px, NULL, 2, 2), CODEC_ENOMEM);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_uint_eq(codec_bound(1, 1), 1 + 1 + 1 + 1);
    ck_assert_uint_eq(codec_bound(320, 180), 1 + 30 + 240 + 57600);
    ck_assert_uint_eq(codec_bound(0, 5), 0);
    wire_buf_free(&b);
}
END_TEST

/* ---- malformed data ---------------------------------------------------------------------------- */
START_TEST(decode_size_errors)
{
    uint8_t px[1] = { 0 }, d[] = { 2, 0, 0 };
    ck_assert_int_eq(codec_decode(d, sizeof d, px, 0, 1, 1), CODEC_ESIZE);
    ck_assert_int_eq(codec_decode(d, sizeof d, px, 1, 0, 1), CODEC_ESIZE);
    ck_assert_int_eq(codec_decode(d, sizeof d, px, 4097, 1, 1), CODEC_ESIZE);
    ck_assert_int_eq(codec_decode(d, sizeof d, px, 1, -1, 1), CODEC_ESIZE);
    ck_assert_int_eq(codec_decode(d, sizeof d, px, 1, 1, 1), CODEC_OK);
    ck_assert_int_eq(codec_decode(d, 0, px, 1, 1, 1), CODEC_EDATA);
    ck_assert_int_eq(codec_decode(NULL, 0, px, 1, 1, 0), CODEC_EDATA);
}
END_TEST

/* Valid encodings to corrupt: keyframes and deltas of small frames of every colour count. */
typedef struct sample {
    int w, h, key;
    uint8_t *prev, *cur, *data;
    size_t len;
} sample;

enum { NSAMPLES = 24 };
static void make_samples(sample *s)
{
    static const int KS[] = { 1, 2, 3, 5, 17, 256 };
    static const int WH[][2] = { { 40, 33 }, { 16, 16 }, { 7, 3 }, { 17, 1 } };
    sim_rng r;
    sim_rng_seed(&r, 17, 1);
    wire_buf b;
    wire_buf_init(&b);
    for (int i = 0; i < NSAMPLES; i++) {
        sample *x = &s[i];
        x->w = WH[(i / 2) % 4][0];
        x->h = WH[(i / 2) % 4][1];
        x->key = i % 2;
        size_t n = (size_t)x->w * (size_t)x->h;
        x->prev = xmalloc(n);
        x->cur = xmalloc(n);
        fill_k_colours(x->prev, x->w, x->h, KS[i % 6], &r);
        fill_k_colours(x->cur, x->w, x->h, KS[(i / 8 + i) % 6], &r);
        if (!x->key)                               /* a delta: tiles with tx + ty odd stay */
            for (size_t k = 0; k < n; k++)
                if (((k % (size_t)x->w) / T + (k / (size_t)x->w) / T) % 2) x->cur[k] = x->prev[k];
        enc(&b, x->cur, x->key ? NULL : x->prev, x->w, x->h);
        x->data = dup_bytes(b.p, b.len);
        x->len = b.len;
        ck_assert_int_eq(dec_cmp(x->data, x->len, x->prev, x->cur, x->w, x->h, x->key), CODEC_OK);
    }
    wire_buf_free(&b);
}

static void free_samples(sample *s)
{
    for (int i = 0; i < NSAMPLES; i++) {
        free(s[i].prev);
        free(s[i].cur);
        free(s[i].data);
    }
}

START_TEST(every_truncation_is_refused)
{
    sample s[NSAMPLES];
    make_samples(s);
    for (int i = 0; i < NSAMPLES; i++)
        for (size_t len = 0; len < s[i].len; len++) {
            uint8_t *d = dup_bytes(s[i].data, len);    /* exact size: a read past len is caught */
            ck_assert_msg(dec_cmp(d, len, s[i].prev, NULL, s[i].w, s[i].h, s[i].key) == CODEC_EDATA,
                          "sample %d cut at %zu of %zu decoded", i, len, s[i].len);
            free(d);
        }
    free_samples(s);
}
END_TEST

START_TEST(trailing_bytes_are_refused)
{
    sample s[NSAMPLES];
    make_samples(s);
    for (int i = 0; i < NSAMPLES; i++) {
        uint8_t *d = xmalloc(s[i].len + 1);
        memcpy(d, s[i].data, s[i].len);
        d[s[i].len] = 0;
        int rc = dec_cmp(d, s[i].len + 1, s[i].prev, NULL, s[i].w, s[i].h, s[i].key);
        ck_assert_int_eq(rc, CODEC_EDATA);
        free(d);
    }
    free_samples(s);
    static const uint8_t none_plus[] = { 0, 0 };
    uint8_t px[1] = { 3 };
    ck_assert_int_eq(codec_decode(none_plus, 2, px, 1, 1, 0), CODEC_EDATA);
}
END_TEST

START_TEST(bad_headers_are_refused)
{
    sample s[NSAMPLES];
    make_samples(s);
    for (int i = 0; i < NSAMPLES; i++) {
        uint8_t *d = dup_bytes(s[i].data, s[i].len);
        for (int v = 3; v < 256; v++) {
            d[0] = (uint8_t)v;
            for (int key = 0; key < 2; key++) {
                int rc = dec_cmp(d, s[i].len, s[i].prev, NULL, s[i].w, s[i].h, key);
                ck_assert_int_eq(rc, CODEC_EDATA);
            }
        }
        if (s[i].key) {                            /* a keyframe must say "all tiles" */
            d[0] = 1;
            ck_assert_int_eq(dec_cmp(d, s[i].len, s[i].prev, NULL, s[i].w, s[i].h, 1), CODEC_EDATA);
        } else if (s[i].data[0] == 1) {
            d[0] = 1;
            ck_assert_int_eq(dec_cmp(d, s[i].len, s[i].prev, NULL, s[i].w, s[i].h, 1), CODEC_EDATA);
            ck_assert_int_eq(dec_cmp(d, s[i].len, s[i].prev, s[i].cur, s[i].w, s[i].h, 0), CODEC_OK);
        }
        free(d);
    }
    free_samples(s);
    uint8_t px[4] = { 0 };
    static const uint8_t none[] = { 0 };
    ck_assert_int_eq(codec_decode(none, 1, px, 2, 2, 1), CODEC_EDATA);
}
END_TEST

/* A frame of 17 tiles (272×1): 3 bitmap bytes, the top 7 bits of the last one unused. */
START_TEST(bitmap_rules)
{
    uint8_t px[272], want[272];
    memset(px, 1, sizeof px);
    memcpy(want, px, sizeof px);
    uint8_t d[] = { 1, 0x00, 0x00, 0x01, 0, 9 };   /* tile 16 becomes solid 9 */
    memset(want + 256, 9, 16);
    ck_assert_int_eq(dec_cmp(d, sizeof d, px, want, 272, 1, 0), CODEC_OK);
    for (int bit = 1; bit < 8; bit++) {            /* a bit past the last tile */
        d[3] = (uint8_t)(0x01 | (1u << bit));
        ck_assert_int_eq(dec_cmp(d, sizeof d, px, NULL, 272, 1, 0), CODEC_EDATA);
    }
    d[3] = 0x01;
    ck_assert_int_eq(dec_cmp(d, 3, px, NULL, 272, 1, 0), CODEC_EDATA);    /* bitmap cut short */
    static const uint8_t empty[] = { 1, 0, 0, 0 };                       /* valid, changes nothing */
    ck_assert_int_eq(dec_cmp(empty, sizeof empty, px, px, 272, 1, 0), CODEC_OK);
    d[1] = 0x01;                                   /* names a tile whose payload is missing */
    ck_assert_int_eq(dec_cmp(d, sizeof d, px, NULL, 272, 1, 0), CODEC_EDATA);
}
END_TEST

START_TEST(bad_tile_payloads_are_refused)
{
    uint8_t d[3 + 256 + 8];
    uint8_t want[256];
    /* Mode bytes 4..255 in a valid solid keyframe. */
    uint8_t solid[] = { 2, 0, 7 };
    memset(want, 7, 256);
    ck_assert_int_eq(dec_cmp(solid, 3, NULL, want, 16, 16, 1), CODEC_OK);
    for (int m = 4; m < 256; m++) {
        solid[1] = (uint8_t)m;
        ck_assert_int_eq(dec_cmp(solid, 3, NULL, NULL, 16, 16, 1), CODEC_EDATA);
    }
    /* PACKED n out of range; index ≥ n; padding is ignored. */
    static const uint8_t ns[] = { 0, 1, 17, 18, 255 };
    for (size_t i = 0; i < sizeof ns; i++) {       /* each as long as a lax decoder would read */
        uint8_t p[3 + 255 + 128] = { 2, 1, ns[i] };
        size_t len = 3 + ns[i] + 16 * (ns[i] > 4 ? 8 : 4);
        ck_assert_int_eq(dec_cmp(p, len, NULL, NULL, 16, 16, 1), CODEC_EDATA);
    }
    memset(d, 0, sizeof d);
    d[0] = 2; d[1] = 1; d[2] = 3; d[3] = 10; d[4] = 20; d[5] = 30;     /* n = 3: 2 bits, 64 bytes */
    memset(want, 10, 256);
    want[0] = 30;
    d[6] = 0x80;
    ck_assert_int_eq(dec_cmp(d, 6 + 64, NULL, want, 16, 16, 1), CODEC_OK);
    d[6] = 0xC0;                                   /* local index 3 of 3 */
    ck_assert_int_eq(dec_cmp(d, 6 + 64, NULL, NULL, 16, 16, 1), CODEC_EDATA);
    d[6] = 0;
    d[6 + 63] = 0x03;                              /* the last pixel */
    ck_assert_int_eq(dec_cmp(d, 6 + 64, NULL, NULL, 16, 16, 1), CODEC_EDATA);
    uint8_t five[3 + 5 + 3] = { 2, 1, 5, 1, 2, 3, 4, 5, 0x04, 0x30, 0x10 };   /* 5×1, 4 bits */
    static const uint8_t five_want[5] = { 1, 5, 4, 1, 2 };
    ck_assert_int_eq(dec_cmp(five, sizeof five, NULL, five_want, 5, 1, 1), CODEC_OK);
    five[9] = 0x50;                                /* local index 5 of 5 */
    ck_assert_int_eq(dec_cmp(five, sizeof five, NULL, NULL, 5, 1, 1), CODEC_EDATA);
    five[9] = 0x30;
    five[10] = 0x1F;                               /* padding nibble: ignored */
    ck_assert_int_eq(dec_cmp(five, sizeof five, NULL, five_want, 5, 1, 1), CODEC_OK);
    static const uint8_t pad[] = { 2, 1, 2, 5, 6, 0x3F, 0x9F };         /* 3×2, padding bits set */
    static const uint8_t pad_want[] = { 5, 5, 6, 6, 5, 5 };
    ck_assert_int_eq(dec_cmp(pad, sizeof pad, NULL, pad_want, 3, 2, 1), CODEC_OK);
    static const uint8_t dup[] = { 2, 1, 2, 5, 5, 0x20, 0x80 };         /* duplicates: harmless */
    static const uint8_t dup_want[] = { 5, 5, 5, 5, 5, 5 };
    ck_assert_int_eq(dec_cmp(dup, sizeof dup, NULL, dup_want, 3, 2, 1), CODEC_OK);

    /* RLE over a 16×16 tile. */
    static const struct { uint8_t b[10]; size_t n; int rc; } rle[] = {
        { { 2, 2, 4, 0x80, 0x02 }, 5, CODEC_OK },                       /* 256 */
        { { 2, 2, 4, 0x10, 5, 0xF0, 0x01 }, 7, CODEC_OK },              /* 16 + 240, crossing rows */
        { { 2, 2, 4, 0x80, 0x82, 0x80, 0x80, 0x00 }, 8, CODEC_OK },     /* padded 5-byte varint */
        { { 2, 2, 4, 0x80, 0x82, 0x80, 0x80, 0x80, 0x00 }, 9, CODEC_EDATA },   /* 6 bytes */
        { { 2, 2, 4, 0x00, 5, 0x80, 0x02 }, 7, CODEC_EDATA },           /* zero run */
        { { 2, 2, 4, 0x81, 0x02 }, 5, CODEC_EDATA },                    /* 257: past the tile */
        { { 2, 2, 4, 0xFF, 0x01 }, 5, CODEC_EDATA },                    /* 255: ends short */
        { { 2, 2, 4, 0xFF, 0x01, 5 }, 6, CODEC_EDATA },                 /* last pair has no run */
        { { 2, 2, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, 8, CODEC_EDATA },  /* 2^32 − 1 */
        { { 2, 2, 4, 0x80 }, 4, CODEC_EDATA },                          /* varint cut */
        { { 2, 2 }, 2, CODEC_EDATA },
        { { 2, 0 }, 2, CODEC_EDATA },                                   /* SOLID without index */
        { { 2, 1, 2, 5 }, 4, CODEC_EDATA },                             /* PACKED palette cut */
    };
    for (size_t i = 0; i < sizeof rle / sizeof rle[0]; i++) {
        uint8_t *x = dup_bytes(rle[i].b, rle[i].n);
        ck_assert_msg(dec_cmp(x, rle[i].n, NULL, NULL, 16, 16, 1) == rle[i].rc, "case %zu", i);
        free(x);
    }
    uint8_t crossing[256];
    memset(crossing, 4, 16);
    memset(crossing + 16, 5, 240);
    ck_assert_int_eq(dec_cmp(rle[1].b, rle[1].n, NULL, crossing, 16, 16, 1), CODEC_OK);
    /* RAW one byte short, exact, one byte long. */
    uint8_t raw[2 + 256 + 1] = { 2, 3 };
    ck_assert_int_eq(dec_cmp(raw, sizeof raw - 2, NULL, NULL, 16, 16, 1), CODEC_EDATA);
    ck_assert_int_eq(dec_cmp(raw, sizeof raw - 1, NULL, NULL, 16, 16, 1), CODEC_OK);
    ck_assert_int_eq(dec_cmp(raw, sizeof raw, NULL, NULL, 16, 16, 1), CODEC_EDATA);   /* one extra */
}
END_TEST

/* Random bytes, biased towards the values the format gives meaning to so decoding gets deep. */
static uint8_t fuzz_byte(sim_rng *r)
{
    uint32_t k = sim_rng_below(r, 8);
    if (k < 3) return (uint8_t)sim_rng_below(r, 4);
    if (k < 4) return (uint8_t)(0x80 | sim_rng_below(r, 4));
    if (k < 5) return (uint8_t)sim_rng_below(r, 18);
    return (uint8_t)sim_rng_next(r);
}

START_TEST(random_garbage_never_crashes)
{
    static const int WH[][2] = { { 1, 1 }, { 5, 3 }, { 16, 16 }, { 17, 18 }, { 40, 20 }, { 3, 33 } };
    sim_rng r;
    sim_rng_seed(&r, 18, 1);
    int ok = 0;
    for (int it = 0; it < 100000; it++) {
        int w = WH[it % 6][0], h = WH[it % 6][1];
        size_t len = sim_rng_below(&r, 48), n = (size_t)w * (size_t)h;
        uint8_t *d = xmalloc(len), *px = xmalloc(n);
        for (size_t i = 0; i < len; i++) d[i] = fuzz_byte(&r);
        if (len && sim_rng_below(&r, 2)) d[0] = (uint8_t)sim_rng_below(&r, 3);
        memset(px, 0, n);
        int rc = codec_decode(d, len, px, w, h, (int)sim_rng_below(&r, 2));
        ck_assert(rc == CODEC_OK || rc == CODEC_EDATA);
        ok += rc == CODEC_OK;
        free(d);
        free(px);
    }
    ck_assert_int_gt(ok, 100);                     /* some garbage is valid: the deep paths ran */
}
END_TEST

START_TEST(mutated_encodings_never_crash)
{
    sample s[NSAMPLES];
    make_samples(s);
    sim_rng r;
    sim_rng_seed(&r, 19, 1);
    for (int it = 0; it < 30000; it++) {
        const sample *x = &s[it % NSAMPLES];
        uint8_t *d = dup_bytes(x->data, x->len);
        int flips = 1 + (int)sim_rng_below(&r, 3);
        while (flips--) d[sim_rng_below(&r, (uint32_t)x->len)] = fuzz_byte(&r);
        int rc = dec_cmp(d, x->len, x->prev, NULL, x->w, x->h, x->key);
        ck_assert(rc == CODEC_OK || rc == CODEC_EDATA);
        free(d);
    }
    free_samples(s);
}
END_TEST

Suite *suite_codec(void)
{
    Suite *s = suite_create("codec");
    TCase *rt = tcase_create("round_trip");
    tcase_set_timeout(rt, 120);
    tcase_add_test(rt, keyframe_round_trip_colour_counts);
    tcase_add_test(rt, keyframe_round_trip_random_frames);
    tcase_add_test(rt, delta_round_trip_random_sparse);
    tcase_add_test(rt, delta_round_trip_sand_demo);
    tcase_add_test(rt, delta_round_trip_sand_bench);
    tcase_add_test(rt, palette_only_change_is_one_byte);
    suite_add_tcase(s, rt);
    TCase *fmt = tcase_create("format");
    tcase_add_test(fmt, exact_bytes_hand_checked);
    tcase_add_test(fmt, mode_for_solid_two_colour_and_noise);
    tcase_add_test(fmt, mode_is_the_smallest_lowest_on_ties);
    tcase_add_test(fmt, encoding_is_deterministic_and_appends);
    tcase_add_test(fmt, encode_errors_and_bound);
    suite_add_tcase(s, fmt);
    TCase *bad = tcase_create("malformed");
    tcase_set_timeout(bad, 120);
    tcase_add_test(bad, decode_size_errors);
    tcase_add_test(bad, every_truncation_is_refused);
    tcase_add_test(bad, trailing_bytes_are_refused);
    tcase_add_test(bad, bad_headers_are_refused);
    tcase_add_test(bad, bitmap_rules);
    tcase_add_test(bad, bad_tile_payloads_are_refused);
    tcase_add_test(bad, random_garbage_never_crashes);
    tcase_add_test(bad, mutated_encodings_never_crash);
    suite_add_tcase(s, bad);
    return s;
}
