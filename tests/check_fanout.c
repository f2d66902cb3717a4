/* check_fanout.c — fan-out (server/fanout.c) and the frame message writer (wire/msg.c): one
 * built message for every subscriber of a stream, the keyframe rules, and the exact bytes of the
 * frame message. The expected bytes below were captured by running the frame builder of
 * server/fanout.c as it was before the house change (b6781a4's build_frame) on the same frames;
 * they must never change. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "srv_rig.h"
#include "msg.h"
#include "network.h"
#include "pool.h"
#include "script.h"

/* The frames of the capture: 64x32 with a 4-colour palette (version 3) in 8x4 tiles, one row
 * changed against the reference; and an 8x2 two-colour frame for raw. */
static void frames(sim_frame *f, uint8_t *prev, sim_frame *g)
{
    ck_assert_int_eq(sim_frame_init(f, 64, 32), 0);
    f->pal.count = 4;
    f->pal.version = 3;
    for (int i = 0; i < 12; i++) f->pal.rgb[i] = (uint8_t)(i * 21 + 5);
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 64; x++) {
            f->px[y * 64 + x] = (uint8_t)(((x / 8) + (y / 4)) & 3);
            prev[y * 64 + x] = f->px[y * 64 + x];
        }
    for (int x = 10; x < 20; x++) f->px[5 * 64 + x] = 2;
    ck_assert_int_eq(sim_frame_init(g, 8, 2), 0);
    g->pal.count = 2;
    g->pal.version = 1;
    g->pal.rgb[0] = 1;
    g->pal.rgb[5] = 250;
    for (int i = 0; i < 16; i++) g->px[i] = (uint8_t)(i & 1);
}

static void expect_hex(const wire_buf *b, const char *want, const char *what)
{
    size_t n = strlen(want) / 2;
    char *got = malloc(b->len * 2 + 1);
    for (size_t i = 0; i < b->len; i++) snprintf(got + 2 * i, 3, "%02x", b->p[i]);
    got[b->len * 2] = '\0';
    ck_assert_msg(b->len == n && strcmp(got, want) == 0, "%s: %zu bytes, wanted %zu:\n%s", what,
                  b->len, n, got);
    free(got);
}

static const char *const WANT_TILE_KEY =
        "0000023b8ca174a56672616d65a5776f726c6407a47469636b78a36b6579c3a17740a16820a2707603a370616cc40c051a2f"
        "44596e8398adc2d7eca3656e63a474696c65a464617461c501db020200080108000801080008010800080110020801080208"
        "0108020801080210030802080308020803080208031000080308000803080008030800080202080308020803080208030802"
        "0803100008020403040008030800080308001001080008010800080108000801100208010802080108020801080208020008"
        "0108000801080008010800080110020801080208010802080108021003080208030802080308020803100008030800080308"
        "0008030800080202080308020803080208030802080310000803080008030800080308001001080008010800080108000801"
        "1002080108020801080208010802080200080108000801080008010800080110020801080208010802080108021003080208"
        "0308020803080208031000080308000803080008030800080202080308020803080208030802080310000803080008030800"
        "0803080010010800080108000801080008011002080108020801080208010802080200080108000801080008010800080110"
        "0208010802080108020801080210030802080308020803080208031000080308000803080008030800080202080308020803"
        "0802080308020803100008030800080308000803080010010800080108000801080008011002080108020801080208010802"
        "08a26668cf1122334455667788a27368cf99aabbccddeeff00";
static const char *const WANT_TILE_DELTA =
        "0000008c8ba174a56672616d65a5776f726c6407a47469636b79a36b6579c2a17740a16820a2707603a3656e63a474696c65"
        "a464617461c43f01020202080308020803080208030802080310000802040304000803080008030800100108000801080008"
        "0108000801100208010802080108020801080208a26668cf1122334455667788a27368cf99aabbccddeeff00";
static const char *const WANT_TILEZ_KEY =
        "000000af8ca174a56672616d65a5776f726c6407a47469636b7aa36b6579c3a17740a16820a2707603a370616cc40c051a2f"
        "44596e8398adc2d7eca3656e63a874696c652e7a7374a464617461c60000004928b52ffd60db00fd0100f802020008010810"
        "0208010810030802081000080308021000080204030410080c000a7928a8c385dd033d2e7c60a15ca2ca40009fe682ad41d1"
        "a0e80d5704a26668cf1122334455667788a27368cf99aabbccddeeff00";
static const char *const WANT_TILEZ_DELTA_PAL =
        "000000a08ca174a56672616d65a5776f726c6407a47469636b7ba36b6579c2a17740a16820a2707603a370616cc40c051a2f"
        "44596e8398adc2d7eca3656e63a874696c652e7a7374a464617461c60000003a28b52ffd203f8d0100640201020202080308"
        "100008020403040008030810010800081002080108020801080208010802080300a034b87ec31901a26668cf112233445566"
        "7788a27368cf99aabbccddeeff00";
static const char *const WANT_RAW_KEY =
        "0000005e8ca174a56672616d65a5776f726c64cd012ca47469636bce00011170a36b6579c3a17708a16802a2707601a37061"
        "6cc4060100000000faa3656e63a3726177a464617461c41000010001000100010001000100010001a2666805a2736800";

START_TEST(frame_message_bytes_are_unchanged)
{
    sim_frame f, g;
    uint8_t prev[64 * 32];
    frames(&f, prev, &g);
    wire_encoder e;
    ck_assert_int_eq(wire_encoder_init(&e), 0);
    uint64_t fh = 0x1122334455667788ull, sh = 0x99aabbccddeeff00ull;
    struct { const char *name, *want; wire_frame m; const sim_frame *f; } cases[] = {
        { "tile key", WANT_TILE_KEY, { 7, 120, 1, 1, WIRE_ENC_TILE, fh, sh, { 0, 0, 0, 0 }, 0 }, &f },
        { "tile delta", WANT_TILE_DELTA, { 7, 121, 0, 0, WIRE_ENC_TILE, fh, sh, { 0, 0, 0, 0 }, 0 }, &f },
        { "tile.zst key", WANT_TILEZ_KEY, { 7, 122, 1, 1, WIRE_ENC_TILEZ, fh, sh, { 0, 0, 0, 0 }, 0 }, &f },
        { "tile.zst delta with palette", WANT_TILEZ_DELTA_PAL, { 7, 123, 0, 1, WIRE_ENC_TILEZ, fh, sh, { 0, 0, 0, 0 }, 0 }, &f },
        { "raw", WANT_RAW_KEY, { 300, 70000, 1, 1, WIRE_ENC_RAW, 5, 0, { 0, 0, 0, 0 }, 0 }, &g },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wire_buf b;
        wire_buf_init(&b);
        ck_assert_int_gt(wire_msg_frame(&e, &b, &cases[i].m, cases[i].f, prev), 0);
        expect_hex(&b, cases[i].want, cases[i].name);
        wire_buf_free(&b);
    }
    /* Appending to a buffer that already holds a message leaves both intact. */
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_ack(&b, 3, 4);
    size_t first = b.len;
    ck_assert_int_gt(wire_msg_frame(&e, &b, &cases[2].m, &f, prev), 0);
    wire_buf tail = { b.p + first, b.len - first, b.len - first, 0, 0 };
    expect_hex(&tail, WANT_TILEZ_KEY, "tile.zst key after an ack");
    wire_buf_free(&b);
    wire_encoder_free(&e);
    sim_frame_free(&f);
    sim_frame_free(&g);
}
END_TEST

/* The small replies, byte for byte as docs/PROTOCOL.md shows them. */
START_TEST(reply_bytes)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_ack(&b, 5, 300);
    expect_hex(&b, "0000001483a174a361636ba3736571" "05" "a47469636bcd012c", "ack");
    wire_buf_reset(&b);
    wire_msg_closed(&b, 2);
    expect_hex(&b, "0000001182a174a6636c6f736564a5776f726c6402", "closed");
    wire_buf_reset(&b);
    int64_t seq = 9;
    wire_msg_error(&b, "x", "m", &seq);
    expect_hex(&b, "0000001b84a174a56572726f72a4636f6465a178a36d7367a16da373657109", "error with seq");
    wire_buf_reset(&b);
    wire_msg_error(&b, "x", "m", NULL);
    expect_hex(&b, "0000001683a174a56572726f72a4636f6465a178a36d7367a16d", "error");
    wire_buf_reset(&b);
    wire_msg_pong(&b, NULL, 0);
    expect_hex(&b, "0000000881a174a4706f6e67", "pong");
    wire_buf_free(&b);
}
END_TEST

/* ---- fan-out over fake subscribers ------------------------------------------------------------- */
/* Clients that never write: `closing` makes srv_client_send a no-op, and fan-out counts what it
 * would send. The world is a real hosted sand world. */
typedef struct rig {
    uv_loop_t loop;
    srv s;
    srv_net net;
    srv_world *w;
    srv_client *c[5];
} rig;

/* A viewer (client id) on stream st of w, needing a keyframe: the rig's sort of subscriber. */
static srv_client *attach_viewer(srv *s, srv_world *w, int st, uint32_t id)
{
    srv_client *c = srv_client_new(s, &srv_transport_tcp);  /* its queue is tcp's count */
    ck_assert_ptr_nonnull(c);
    c->id = id;
    c->closing = 1;
    c->role = SRV_ROLE_VIEWER;
    srv_sub *sub = &c->subs[0];
    sub->world = w;
    sub->client = c;
    sub->stream = st;
    sub->need_key = 1;
    srv_stream_attach(w, sub);
    return c;
}

static void rig_up_div(rig *r, int enc, uint32_t div)
{
    memset(r, 0, sizeof *r);
    r->w = srv_rig_up(&r->loop, &r->s, &r->net);
    srv_stream_key k = { .view = 0, .every = div > 1 ? 3 : 1, .div = (uint32_t)div, .enc = enc };
    int st = srv_stream_find(r->w, &k);
    ck_assert_int_ge(st, 0);
    for (int i = 0; i < 5; i++) r->c[i] = attach_viewer(&r->s, r->w, st, (uint32_t)i + 1);
}

static void rig_up(rig *r, int enc)
{
    rig_up_div(r, enc, 1);
}

static void rig_down(rig *r)
{
    for (int i = 0; i < 5; i++) {
        srv_sub_drop(r->c[i], &r->c[i]->subs[0]);
        srv_client_free(r->c[i]);
    }
    srv_rig_down(&r->loop, &r->s);
}

static void step(rig *r)
{
    sim_world_step(r->w->w);
    srv_fanout_tick(&r->s, r->w);
}

START_TEST(one_message_for_every_subscriber)
{
    rig r;
    rig_up(&r, SRV_ENC_TILEZ);
    ck_assert_int_eq(srv_fanout_subs(r.w), 5);
    step(&r);                                   /* everyone needs a keyframe: one message */
    ck_assert_uint_eq(r.w->fan->msgs_built, 1);
    ck_assert_uint_eq(r.net.frames_sent, 5);
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(r.c[i]->subs[0].frames, 1);
        ck_assert_int_eq(r.c[i]->subs[0].need_key, 0);
    }
    uint64_t key_bytes = r.w->fan->bytes_built;
    step(&r);                                   /* everyone in step: one delta */
    ck_assert_uint_eq(r.w->fan->msgs_built, 2);
    ck_assert_uint_eq(r.net.frames_sent, 10);
    ck_assert_uint_lt(r.w->fan->bytes_built - key_bytes, key_bytes);   /* a delta is smaller */
    r.c[2]->subs[0].need_key = 1;               /* one newcomer-like subscriber */
    step(&r);                                   /* a key for it, a delta for the rest: two */
    ck_assert_uint_eq(r.w->fan->msgs_built, 4);
    ck_assert_uint_eq(r.net.frames_sent, 15);
    rig_down(&r);
}
END_TEST

START_TEST(keyframe_rules)
{
    rig r;
    rig_up(&r, SRV_ENC_TILE);
    step(&r);
    /* Over the soft limit: skipped, and it will need a keyframe. */
    r.c[4]->tcp.write_queue_size = SRV_SOFT_LIMIT + 1;
    step(&r);
    ck_assert_uint_eq(r.c[4]->subs[0].skipped, 1);
    ck_assert_int_eq(r.c[4]->subs[0].need_key, 1);
    ck_assert_uint_eq(r.net.frames_sent, 9);
    ck_assert_uint_eq(r.net.msgs_dropped, 1);
    r.c[4]->tcp.write_queue_size = 0;
    uint64_t built = r.w->fan->msgs_built;
    step(&r);                                  /* back under: its keyframe beside the delta */
    ck_assert_uint_eq(r.w->fan->msgs_built, built + 2);
    ck_assert_int_eq(r.c[4]->subs[0].need_key, 0);
    /* A keyframe for everyone at most SRV_KEYFRAME_SECONDS after the last, at the stream's
     * phase: one message a tick (deltas, then the keyframe in place of the delta), and from
     * then on one keyframe a period exactly. */
    uint64_t every = (uint64_t)r.w->kind->hz * SRV_KEYFRAME_SECONDS;
    srv_stream *st = &r.w->fan->streams[r.c[0]->subs[0].stream];
    uint64_t k0 = st->last_key;
    while (st->last_key == k0) {
        built = r.w->fan->msgs_built;
        step(&r);
        ck_assert_uint_eq(r.w->fan->msgs_built, built + 1);
        ck_assert_uint_le(sim_world_tick(r.w->w) - k0, every);
    }
    ck_assert_uint_eq(st->last_key, sim_world_tick(r.w->w));
    uint64_t k1 = st->last_key;
    while (st->last_key == k1) step(&r);
    ck_assert_uint_eq(st->last_key - k1, every);
    /* A seek's reset: every stream starts over from one keyframe. */
    srv_fanout_rekey(r.w);
    ck_assert_int_eq(st->have_prev, 0);
    built = r.w->fan->msgs_built;
    step(&r);
    ck_assert_uint_eq(r.w->fan->msgs_built, built + 1);
    ck_assert_uint_eq(st->last_key, sim_world_tick(r.w->w));
    rig_down(&r);
}
END_TEST

/* Ten streams (rects of one world, every tick) that start on one tick — a crowd arriving
 * together, or every stream after a seek — do not build their periodic keyframes on one tick:
 * each has a phase of its own. Each keeps at most a period between its keyframes, then exactly
 * one. Before, all ten fell on one tick. */
START_TEST(periodic_keyframes_are_spread_over_the_period)
{
    uv_loop_t loop;
    srv s;
    srv_net net;
    memset(&s, 0, sizeof s);
    memset(&net, 0, sizeof net);
    srv_world *w = srv_rig_up(&loop, &s, &net);
    enum { N = 10 };
    srv_client *c[N];
    int sts[N];
    uint64_t last[N] = { 0 }, first_periodic[N];
    for (int i = 0; i < N; i++) {
        srv_stream_key k = { .view = 0, .every = 1, .div = 1, .enc = SRV_ENC_TILEZ,
                             .rx = 64 * (i % 5), .ry = 64 * (i / 5), .rw = 64, .rh = 64 };
        srv_rect_align(&k, w->fw, w->fh);
        sts[i] = srv_stream_find(w, &k);
        ck_assert_int_ge(sts[i], 0);
        c[i] = attach_viewer(&s, w, sts[i], (uint32_t)i + 1);
        first_periodic[i] = 0;
    }
    uint64_t every = (uint64_t)w->kind->hz * SRV_KEYFRAME_SECONDS;
    int per_tick[3 * 600] = { 0 };
    ck_assert_uint_le(3 * every, 3 * 600);
    for (uint64_t t = 0; t < 3 * every; t++) {
        sim_world_step(w->w);
        srv_fanout_tick(&s, w);
        uint64_t tick = sim_world_tick(w->w);
        for (int i = 0; i < N; i++) {
            const srv_stream *st = &w->fan->streams[sts[i]];
            if (!last[i]) {                        /* before and at the stream's first frame */
                if (st->last_key) ck_assert_uint_eq(st->last_key, tick);
                last[i] = st->last_key;
                continue;
            }
            if (st->last_key == last[i]) {
                ck_assert_msg(tick - last[i] <= every, "stream %d: no keyframe for %llu ticks", i,
                              (unsigned long long)(tick - last[i]));
                continue;
            }
            ck_assert_uint_eq(st->last_key, tick);
            if (first_periodic[i]) ck_assert_uint_eq(tick - last[i], every);
            else first_periodic[i] = tick;
            per_tick[tick % (3 * 600)]++;
            last[i] = tick;
        }
    }
    int most = 0;
    for (int k = 0; k < 3 * 600; k++) most = per_tick[k] > most ? per_tick[k] : most;
    for (int i = 0; i < N; i++) ck_assert_uint_gt(first_periodic[i], 0);
    ck_assert_msg(most <= 2, "%d streams built their periodic keyframes on one tick", most);
    for (int i = 0; i < N; i++) {
        srv_sub_drop(c[i], &c[i]->subs[0]);
        srv_client_free(c[i]);
    }
    srv_rig_down(&loop, &s);
}
END_TEST

START_TEST(raw_streams_are_always_keyframes)
{
    rig r;
    rig_up(&r, SRV_ENC_RAW);
    for (int i = 0; i < 3; i++) step(&r);
    srv_stream *st = &r.w->fan->streams[r.c[0]->subs[0].stream];
    ck_assert_uint_eq(r.w->fan->msgs_built, 3);
    ck_assert_uint_eq(st->last_key, sim_world_tick(r.w->w));
    rig_down(&r);
}
END_TEST

/* A homage stream (every 3, div 3): on each third tick its frame is downsampled once for all five
 * subscribers, one message is built for them all, and the picture sent is the nearest-sampled
 * third of the world's frame (checked pixel by pixel here, independently of fanout.c). */
START_TEST(homage_stream_downsamples_once)
{
    rig r;
    rig_up_div(&r, SRV_ENC_TILEZ, 3);
    srv_stream *st = &r.w->fan->streams[r.c[0]->subs[0].stream];
    ck_assert_uint_eq(st->k.div, 3);
    for (int t = 0; t < 9; t++) step(&r);
    ck_assert_uint_eq(r.w->fan->downsampled, 3);          /* ticks 3, 6, 9: once each */
    ck_assert_uint_eq(r.w->fan->msgs_built, 3);           /* a keyframe, then two deltas */
    ck_assert_uint_eq(r.net.frames_sent, 15);
    uint64_t fh;
    const sim_frame *f = srv_world_frame(r.w, 0, &fh);
    const sim_frame *d = &st->small;
    ck_assert_int_eq(d->w, (f->w + 2) / 3);
    ck_assert_int_eq(d->h, (f->h + 2) / 3);
    for (int y = 0; y < d->h; y++)
        for (int x = 0; x < d->w; x++) {
            int sx = 3 * x + 1 < f->w ? 3 * x + 1 : f->w - 1, sy = 3 * y + 1 < f->h ? 3 * y + 1 : f->h - 1;
            ck_assert_int_eq(d->px[y * d->w + x], f->px[sy * f->w + sx]);
        }
    ck_assert_int_eq(memcmp(st->prev, d->px, (size_t)d->w * d->h), 0);   /* the reference is the small one */
    ck_assert_uint_eq(d->pal.version, f->pal.version);
    rig_down(&r);
}
END_TEST

/* ---- rect streams built on the pool ---------------------------------------------------------------
 * Five rect streams of a 640x480 sand world, each published (as to a cluster's relays) into a
 * capture: built on the loop alone, and on a pool of 3 workers, the messages are the same bytes
 * in the same order, tick for tick. */
typedef struct capture {
    wire_buf b;
    int msgs;
} capture;

static int capture_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m)
{
    capture *cp = s->net->hooks.ud;
    uint8_t idx = (uint8_t)(st - w->fan->streams);
    wire_put_raw(&cp->b, &idx, 1);
    wire_put_raw(&cp->b, SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m));
    cp->msgs++;
    return 0;
}

/* The rig, on a pool of `workers` with every pass handed to them (1: the loop alone), and a
 * 640x480 sand demo of its own for rect streams published as to a cluster's relays through
 * `publish` (ud: what it captures into). */
static srv_world *rect_rig_up(rig *r, int workers, void *ud,
                              int (*publish)(srv *, srv_world *, const srv_stream *, srv_msg *))
{
    rig_up(r, SRV_ENC_TILEZ);
    if (workers > 1) {
        char err[200];
        ck_assert_int_eq(pool_create(workers, &r->s.pool, err, sizeof err), 0);
        pool_adaptive(r->s.pool, 0);            /* every pass to the workers */
    }
    char err[256] = "";
    int id = srv_world_add(&r->s, "sand", 4, "w=640,h=480,scene=demo", err, sizeof err);
    ck_assert_msg(id > 0, "%s", err);
    r->net.hooks.ud = ud;
    r->net.hooks.publish = publish;
    return srv_world_find(&r->s, (uint32_t)id);
}

/* Rect stream k (key k) of w, published from now on: it must be stream `index`, and tiled. */
static void rect_stream(srv_world *w, srv_stream_key k, int index)
{
    int st = srv_stream_find(w, &k);
    ck_assert_int_eq(st, index);
    ck_assert_int_eq(w->fan->streams[st].tiled, 1);
    w->fan->streams[st].remote_until = UINT64_MAX;
    w->fan->nremote++;
}

/* Publishing stopped (the first n streams' leases given back), the pool and the rig gone. */
static void rect_rig_down(rig *r, srv_world *w, int n)
{
    r->net.hooks.publish = NULL;
    for (int i = 0; i < n; i++) w->fan->streams[i].remote_until = 0;
    w->fan->nremote = 0;
    pool_destroy(r->s.pool);
    r->s.pool = NULL;
    rig_down(r);
}

static void rect_run(int workers, capture *cp)
{
    rig r;
    wire_buf_init(&cp->b);
    cp->msgs = 0;
    srv_world *w = rect_rig_up(&r, workers, cp, capture_publish);
    static const int rects[5][4] = { { 0, 0, 320, 192 }, { 64, 64, 384, 256 }, { 320, 256, 320, 224 },
                                     { 0, 0, 640, 480 }, { 576, 0, 64, 64 } };
    for (int i = 0; i < 5; i++) {
        srv_stream_key k = { .view = 0, .every = (uint32_t)(1 + i % 2), .div = 1, .enc = SRV_ENC_TILEZ,
                             .rx = rects[i][0], .ry = rects[i][1], .rw = rects[i][2], .rh = rects[i][3] };
        rect_stream(w, k, i);
    }
    for (int t = 0; t < 40; t++) {
        sim_world_step(w->w);
        srv_fanout_tick(&r.s, w);
    }
    ck_assert_uint_eq(w->fan->msgs_built, (uint64_t)cp->msgs);
    rect_rig_down(&r, w, 5);
}

START_TEST(rect_streams_built_on_the_pool_are_the_same_bytes)
{
    capture one, three;
    rect_run(1, &one);
    rect_run(3, &three);
    ck_assert_int_eq(one.msgs, 5 * 20 + 3 * 20);         /* every 1 or every 2: 160 frames */
    ck_assert_int_eq(three.msgs, one.msgs);
    ck_assert_uint_eq(three.b.len, one.b.len);
    ck_assert_msg(memcmp(three.b.p, one.b.p, one.b.len) == 0, "the pool's messages differ from the loop's");
    wire_buf_free(&one.b);
    wire_buf_free(&three.b);
}
END_TEST

/* ---- a crowd of rects (more than SRV_RECT_FAST_STREAMS due at once: fanout.c's crowd_prepare) ---
 * 70 rect streams of a 640x480 demo being painted on, published as to a cluster's relays: every
 * frame each stream sends, applied as a receiver applies it (wire_frame_apply, which checks its
 * fh against the pixels it rebuilt), is the world's own frame in that rect at that tick, and
 * carries the world's state hash; and the bytes are the same on 3 workers as on the loop alone. */
#define CROWD_N 70

typedef struct crowd_check {
    capture cap;
    wire_frame_in in[CROWD_N];
    int keys;
    int periodic;          /* streams whose periodic keyframe fell in the run */
} crowd_check;

static int crowd_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m)
{
    crowd_check *cc = s->net->hooks.ud;
    int idx = (int)(st - w->fan->streams);
    ck_assert_int_lt(idx, CROWD_N);
    uint8_t b = (uint8_t)idx;
    wire_put_raw(&cc->cap.b, &b, 1);
    wire_put_raw(&cc->cap.b, SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m));
    cc->cap.msgs++;
    wire_msg msg;
    ck_assert_int_eq(wire_msg_decode(SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m), &msg), 0);
    int key = 0;
    ck_assert_int_eq(wire_get_bool(&msg, "key", &key), 0);
    cc->keys += key;
    char err[200] = "";
    wire_frame_in *in = &cc->in[idx];
    int rc = wire_frame_apply(in, &msg, err, sizeof err);
    uint64_t tick = sim_world_tick(w->w), fh;
    ck_assert_msg(rc == WIRE_FRAME_OK, "stream %d, tick %llu: %d %s", idx, (unsigned long long)tick, rc, err);
    ck_assert_uint_eq(in->sh, sim_world_hash(w->w));
    const sim_frame *f = srv_world_frame(w, 0, &fh);
    ck_assert_int_eq(in->rect[0], st->k.rx);
    ck_assert_int_eq(in->rect[1], st->k.ry);
    ck_assert_int_eq(in->f.w, st->k.rw);
    ck_assert_int_eq(in->f.h, st->k.rh);
    for (int y = 0; y < in->f.h; y++)
        ck_assert_msg(memcmp(in->f.px + (size_t)y * in->f.w,
                             f->px + (size_t)(in->rect[1] + y) * f->w + in->rect[0], (size_t)in->f.w) == 0,
                      "stream %d, tick %llu: row %d of its rect is not the world's", idx,
                      (unsigned long long)tick, y);
    return 0;
}

static void crowd_run(int workers, crowd_check *cc)
{
    rig r;
    memset(cc, 0, sizeof *cc);
    wire_buf_init(&cc->cap.b);
    srv_world *w = rect_rig_up(&r, workers, cc, crowd_publish);
    for (int i = 0; i < CROWD_N; i++) {
        srv_stream_key k = { .view = 0, .every = 1, .div = 1, .enc = SRV_ENC_TILEZ,
                             .rx = 64 * (i % 10), .ry = 64 * ((i / 10) % 7),
                             .rw = 128 + 64 * (i % 3), .rh = 64 + 64 * (i % 2) };
        srv_rect_align(&k, w->fw, w->fh);
        rect_stream(w, k, i);
    }
    static const char *const paint[] = { "paint 100 60 9 sand", "paint 420 200 14 water",
                                         "explode 300 300 20", "paint 600 40 6 lava" };
    for (int t = 0; t < 40; t++) {
        if (t % 10 == 5) {
            sim_input in = script_input_of(w->w, paint[t / 10]);
            ck_assert_int_eq(sim_world_input(w->w, &in), 0);
        }
        sim_world_step(w->w);
        srv_fanout_tick(&r.s, w);
    }
    ck_assert_uint_eq(w->fan->msgs_built, (uint64_t)cc->cap.msgs);
    for (int i = 0; i < CROWD_N; i++) cc->periodic += w->fan->streams[i].last_key > 1;
    for (int i = 0; i < CROWD_N; i++) wire_frame_in_free(&cc->in[i]);
    rect_rig_down(&r, w, CROWD_N);
}

START_TEST(a_crowd_of_rects_shows_the_world_on_any_number_of_workers)
{
    crowd_check one, three;
    crowd_run(1, &one);
    crowd_run(3, &three);
    ck_assert_int_eq(one.cap.msgs, CROWD_N * 40);      /* each stream's frame of every tick */
    /* A keyframe each, then deltas, and the periodic keyframe of the few streams whose phase
     * falls in these 40 ticks of the period's 600 (spread: at most 6 of 70). */
    ck_assert_int_le(one.periodic, 6);
    ck_assert_int_eq(one.keys, CROWD_N + one.periodic);
    ck_assert_int_eq(three.cap.msgs, one.cap.msgs);
    ck_assert_uint_eq(three.cap.b.len, one.cap.b.len);
    ck_assert_msg(memcmp(three.cap.b.p, one.cap.b.p, one.cap.b.len) == 0, "the pool's messages differ from the loop's");
    wire_buf_free(&one.cap.b);
    wire_buf_free(&three.cap.b);
}
END_TEST

Suite *suite_fanout(void)
{
    Suite *s = suite_create("fanout");
    TCase *tc = tcase_create("fanout");
    tcase_add_test(tc, frame_message_bytes_are_unchanged);
    tcase_add_test(tc, reply_bytes);
    tcase_add_test(tc, one_message_for_every_subscriber);
    tcase_add_test(tc, keyframe_rules);
    tcase_add_test(tc, raw_streams_are_always_keyframes);
    tcase_add_test(tc, periodic_keyframes_are_spread_over_the_period);
    tcase_add_test(tc, homage_stream_downsamples_once);
    tcase_add_test(tc, rect_streams_built_on_the_pool_are_the_same_bytes);
    tcase_add_test(tc, a_crowd_of_rects_shows_the_world_on_any_number_of_workers);
    suite_add_tcase(s, tc);
    return s;
}
