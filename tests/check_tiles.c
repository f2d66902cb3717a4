/* check_tiles.c — a view's shared tiles (server/tiles.c), from which every rect stream's frames
 * are put together: each rect's tile data decodes to the world's pixels of that rect (keyframes,
 * and deltas however far apart the frames a stream sends), each changed tile is encoded once
 * however many rects show it, and a rect's frame hash is that of its pixels as a frame of their
 * own. The reference here is the plain codec on crops made in this file. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "codec.h"
#include "network.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

/* A frame of w × h with a little structure (runs, a few colours) so every tile mode occurs. */
static void paint(sim_frame *f, uint64_t *rng, int changes)
{
    for (int i = 0; i < changes; i++) {
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(*rng >> 33);
        int x = (int)(r % f->w), y = (int)((r >> 12) % f->h), len = 1 + (int)((r >> 20) % 24);
        uint8_t c = (uint8_t)((r >> 8) % 7);
        for (int k = 0; k < len && x + k < f->w; k++) f->px[y * f->w + x + k] = c;
    }
}

static void crop(const sim_frame *f, const int32_t *r, uint8_t *out)
{
    for (int y = 0; y < r[3]; y++) memcpy(out + (size_t)y * r[2], f->px + (size_t)(r[1] + y) * f->w + r[0], (size_t)r[2]);
}

/* A rect stream as a client holds it: its picture, and the generation of its last frame. */
typedef struct viewer {
    int32_t r[4];
    int every;
    uint8_t *px, *want;
    uint64_t gen;
    int have;
} viewer;

START_TEST(rect_data_rebuilds_every_rect_exactly)
{
    /* 200 × 150: tiles clipped at both edges (200 = 12·16 + 8, 150 = 9·16 + 6). */
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 200, 150), 0);
    f.pal.count = 7;
    memset(f.px, 3, 200 * 150);
    uint64_t rng = 7;
    paint(&f, &rng, 400);
    viewer v[] = {
        { .r = { 0, 0, 64, 64 }, .every = 1 },   { .r = { 64, 0, 136, 150 }, .every = 1 },
        { .r = { 128, 128, 72, 22 }, .every = 3 }, { .r = { 0, 64, 200, 86 }, .every = 2 },
        { .r = { 0, 0, 200, 150 }, .every = 5 },
    };
    const int nv = (int)(sizeof v / sizeof v[0]);
    for (int i = 0; i < nv; i++) {
        v[i].px = malloc((size_t)v[i].r[2] * v[i].r[3]);
        v[i].want = malloc((size_t)v[i].r[2] * v[i].r[3]);
    }
    srv_tiles t = { 0 };
    wire_buf data;
    wire_buf_init(&data);
    int deltas = 0, nones = 0;
    for (int tick = 0; tick < 60; tick++) {
        if (tick) paint(&f, &rng, tick % 10 == 0 ? 0 : 1 + tick % 7);   /* some ticks change nothing */
        ck_assert_int_eq(srv_tiles_update(&t, &f), 0);
        for (int i = 0; i < nv; i++) {
            viewer *w = &v[i];
            if (tick % w->every) continue;
            int key = !w->have || tick == 30;               /* a keyframe midway too */
            wire_buf_reset(&data);
            uint64_t newest;
            long n = srv_tiles_rect(&t, w->r[0], w->r[1], w->r[2], w->r[3], key, w->gen, &data, &newest);
            ck_assert_int_gt(n, 0);
            ck_assert_int_eq(codec_decode(data.p, data.len, w->px, w->r[2], w->r[3], key), CODEC_OK);
            crop(&f, w->r, w->want);
            ck_assert_msg(memcmp(w->px, w->want, (size_t)w->r[2] * w->r[3]) == 0,
                          "rect %d at tick %d (%s) differs from the world's pixels", i, tick, key ? "key" : "delta");
            if (!key) {
                deltas++;
                nones += data.len == 1 && data.p[0] == CODEC_HDR_NONE;
            }
            ck_assert_uint_le(newest, t.gen);
            w->gen = t.gen;
            w->have = 1;
        }
    }
    ck_assert_int_gt(deltas, 100);
    ck_assert_int_gt(nones, 0);                         /* an unchanged rect's delta is one byte */
    wire_buf_free(&data);
    srv_tiles_free(&t);
    for (int i = 0; i < nv; i++) {
        free(v[i].px);
        free(v[i].want);
    }
    sim_frame_free(&f);
}
END_TEST

/* Tiles changed in one update, shown by three overlapping rects: each is encoded once. */
START_TEST(a_changed_tile_is_encoded_once_for_every_rect)
{
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 256, 128), 0);
    f.pal.count = 7;
    memset(f.px, 1, 256 * 128);
    srv_tiles t = { 0 };
    ck_assert_int_eq(srv_tiles_update(&t, &f), 0);
    wire_buf data;
    wire_buf_init(&data);
    uint64_t newest, since = t.gen;
    ck_assert_int_gt(srv_tiles_rect(&t, 0, 0, 256, 128, 1, 0, &data, &newest), 0);
    ck_assert_uint_eq(t.encoded, 16 * 8);              /* the first keyframe: every tile */
    /* Change four tiles: (4, 1), (5, 1), (6, 1) and (12, 6). */
    for (int x = 64; x < 112; x += 16) f.px[20 * 256 + x + 3] = 5;
    f.px[100 * 256 + 200] = 6;
    ck_assert_int_eq(srv_tiles_update(&t, &f), 0);
    uint64_t before = t.encoded;
    static const int32_t rects[3][4] = { { 64, 0, 64, 64 }, { 0, 0, 128, 128 }, { 64, 0, 192, 128 } };
    for (int i = 0; i < 3; i++) {
        wire_buf_reset(&data);
        ck_assert_int_gt(srv_tiles_rect(&t, rects[i][0], rects[i][1], rects[i][2], rects[i][3], 0, since,
                                        &data, &newest), 1);
        ck_assert_uint_eq(newest, t.gen);
    }
    ck_assert_uint_eq(t.encoded - before, 4);
    /* A keyframe of an unchanged rect encodes nothing either. */
    wire_buf_reset(&data);
    ck_assert_int_gt(srv_tiles_rect(&t, 128, 64, 64, 64, 1, 0, &data, &newest), 0);
    ck_assert_uint_eq(t.encoded - before, 4);
    ck_assert_uint_eq(newest, since);                  /* none of its tiles changed since */
    wire_buf_free(&data);
    srv_tiles_free(&t);
    sim_frame_free(&f);
}
END_TEST

/* A frame of another size starts the tiles over: every tile is new, and a rect of it decodes. */
START_TEST(a_new_frame_size_starts_over)
{
    sim_frame a, b;
    ck_assert_int_eq(sim_frame_init(&a, 64, 64), 0);
    ck_assert_int_eq(sim_frame_init(&b, 96, 80), 0);
    memset(a.px, 2, 64 * 64);
    uint64_t rng = 3;
    paint(&b, &rng, 50);
    srv_tiles t = { 0 };
    ck_assert_int_eq(srv_tiles_update(&t, &a), 0);
    uint64_t g = t.gen;
    ck_assert_int_eq(srv_tiles_update(&t, &b), 0);
    ck_assert_int_eq(t.tx, 6);
    ck_assert_int_eq(t.ty, 5);
    wire_buf data;
    wire_buf_init(&data);
    uint64_t newest;
    /* A delta since before the change names every tile. */
    ck_assert_int_gt(srv_tiles_rect(&t, 0, 0, 96, 80, 0, g, &data, &newest), 0);
    ck_assert_int_eq(data.p[0], CODEC_HDR_BITMAP);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(data.p[1 + i], i < 3 ? 0xff : 0x3f);   /* 30 tiles */
    uint8_t px[96 * 80];
    memset(px, 9, sizeof px);
    ck_assert_int_eq(codec_decode(data.p, data.len, px, 96, 80, 0), CODEC_OK);
    ck_assert_int_eq(memcmp(px, b.px, sizeof px), 0);
    wire_buf_free(&data);
    srv_tiles_free(&t);
    sim_frame_free(&a);
    sim_frame_free(&b);
}
END_TEST

/* sim_frame_hash_rect is the hash of the rect cut out as a frame of its own; so is vivd's. */
START_TEST(a_rects_hash_is_that_of_its_crop)
{
    sim_frame f, c;
    ck_assert_int_eq(sim_frame_init(&f, 1100, 130), 0);
    f.pal.count = 5;
    f.pal.version = 4;
    for (int i = 0; i < 15; i++) f.pal.rgb[i] = (uint8_t)(i * 17);
    uint64_t rng = 11;
    paint(&f, &rng, 3000);
    /* Whole rows; a band; rects whose rows are hashed in pieces of several rows (sim/frame_hash.h:
     * 15 rows of 1,036 bytes, 49 of 333, and a last piece shorter than the others); a pixel. */
    static const int32_t rects[6][4] = { { 0, 0, 1100, 130 }, { 0, 10, 1100, 20 }, { 64, 0, 1036, 130 },
                                         { 17, 3, 333, 127 }, { 64, 0, 66, 70 }, { 3, 5, 1, 1 } };
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(sim_frame_init(&c, rects[i][2], rects[i][3]), 0);
        c.pal = f.pal;
        crop(&f, rects[i], c.px);
        ck_assert_uint_eq(sim_frame_hash_rect(&f, rects[i][0], rects[i][1], rects[i][2], rects[i][3]),
                          sim_frame_hash(&c));
        /* vivd's own (with AVX2 on a CPU that has it) gives the same. */
        ck_assert_uint_eq(srv_frame_hash_rect(&f, rects[i][0], rects[i][1], rects[i][2], rects[i][3]),
                          sim_frame_hash(&c));
        if (srv_hash_vectors() >= 256)
            ck_assert_uint_eq(srv__frame_hash_rect_wide(&f, rects[i][0], rects[i][1], rects[i][2], rects[i][3]),
                              sim_frame_hash(&c));
        /* And AVX-512's, on a CPU that has it (vivd's choice there). */
        if (srv_hash_vectors() == 512)
            ck_assert_uint_eq(srv__frame_hash_rect_wide512(&f, rects[i][0], rects[i][1], rects[i][2], rects[i][3]),
                              sim_frame_hash(&c));
        sim_frame_free(&c);
    }
    ck_assert_uint_ne(sim_frame_hash_rect(&f, 0, 0, 64, 64), sim_frame_hash_rect(&f, 64, 0, 64, 64));
    sim_frame_free(&f);
}
END_TEST

/* vivd's XXH3 of bytes (the state hash's, with AVX2 on a CPU that has it) is XXH3's, at every
 * length class XXH3 treats apart (0, 1–3, 4–8, 9–16, 17–128, 129–240, longer). */
START_TEST(vivds_xxh3_is_xxh3)
{
    static const size_t lens[] = { 0, 1, 3, 7, 16, 100, 240, 241, 1000, 4099, 1 << 20 };
    uint8_t *p = malloc((size_t)1 << 20);
    ck_assert_ptr_nonnull(p);
    uint64_t rng = 5;
    for (size_t i = 0; i < (size_t)1 << 20; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (uint8_t)(rng >> 56);
    }
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        ck_assert_uint_eq(srv_xxh3(p, lens[i]), XXH3_64bits(p, lens[i]));
        if (srv_hash_vectors() >= 256) ck_assert_uint_eq(srv__xxh3_wide(p, lens[i]), XXH3_64bits(p, lens[i]));
        if (srv_hash_vectors() == 512) ck_assert_uint_eq(srv__xxh3_wide512(p, lens[i]), XXH3_64bits(p, lens[i]));
    }
    /* The streaming updates the state hash uses, fed in uneven pieces, at each width this CPU has. */
    void (*updates[2])(void *, const void *, size_t) = { srv__xxh3_update_wide, srv__xxh3_update_wide512 };
    for (int u = 0; u < 2; u++) {
        if (srv_hash_vectors() < (u ? 512 : 256)) continue;
        XXH3_state_t st;
        XXH3_64bits_reset(&st);
        for (size_t at = 0, piece = 1; at < (size_t)1 << 20; at += piece, piece = piece * 3 + 7) {
            size_t n = at + piece > (size_t)1 << 20 ? ((size_t)1 << 20) - at : piece;
            updates[u](&st, p + at, n);
        }
        ck_assert_uint_eq(XXH3_64bits_digest(&st), XXH3_64bits(p, (size_t)1 << 20));
    }
    free(p);
}
END_TEST

/* vivd's state hash of a big world, hashed as it is saved (AVX2 where the CPU has it), is
 * sim_world_hash's; so is the one vivd keeps in a world's frame cache. */
START_TEST(vivds_streamed_state_hash_is_sim_world_hash)
{
    sim_config cfg = { .kind = "sand", .seed = 3, .params = "w=1024,h=512,scene=demo" };
    int err = 0;
    sim_world *w = sim_world_create(&cfg, &err);
    ck_assert_ptr_nonnull(w);
    for (int t = 0; t < 20; t++) sim_world_step(w);
    ck_assert_uint_ge(sim_world_save_max(w), SIM_HASH_STREAM_MIN);
    uint64_t want = sim_world_hash(w);
    ck_assert_uint_ne(want, 0);
    ck_assert_uint_eq(srv_world_hash_stream(w), want);
    sim_world_step(w);
    ck_assert_uint_ne(srv_world_hash_stream(w), want);
    ck_assert_uint_eq(srv_world_hash_stream(w), sim_world_hash(w));
    sim_world_destroy(w);
}
END_TEST

Suite *suite_tiles(void)
{
    Suite *s = suite_create("tiles");
    TCase *tc = tcase_create("tiles");
    tcase_add_test(tc, rect_data_rebuilds_every_rect_exactly);
    tcase_add_test(tc, a_changed_tile_is_encoded_once_for_every_rect);
    tcase_add_test(tc, a_new_frame_size_starts_over);
    tcase_add_test(tc, a_rects_hash_is_that_of_its_crop);
    tcase_add_test(tc, vivds_streamed_state_hash_is_sim_world_hash);
    tcase_add_test(tc, vivds_xxh3_is_xxh3);
    suite_add_tcase(s, tc);
    return s;
}
