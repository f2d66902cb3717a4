/* make_corpus.c — writes the fuzzers' seed corpora (`make fuzz-corpus`; the output is committed
 * in tests/fuzz/corpus/). Deterministic: the same build writes the same files.
 *
 *   make_corpus DIR     writes DIR/<target>/<name> for every target in tests/fuzz/
 *
 * The seeds are small, valid examples of every kind of input each decoder takes — every protocol
 * message, every tile mode at edge sizes, a saved state of every world kind at its smallest size,
 * inputs files at the edges of every input's ranges, ILBM/PBM/JSON scenes — plus a few malformed
 * ones, so that libFuzzer starts from deep inside each format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>
#include "codec.h"
#include "sim.h"
#include "anim/celset.h"
#include "fuzz/fuzz_celset.h"
#include "fuzz/fuzz_scene.h"
#include "cycle/scene.h"
#include "wire.h"
#include "msg.h"
#include "cluster_msg.h"

static const char *root;
static int nfiles;

static void mkdir_p(const char *dir)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_corpus: mkdir %s: %s\n", dir, strerror(errno));
        exit(1);
    }
}

static void put_file(const char *target, const char *name, const void *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, target);
    mkdir_p(path);
    snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        exit(1);
    }
    nfiles++;
}

static void put_buf(const char *target, const char *name, wire_buf *b)
{
    if (b->oom) {
        fprintf(stderr, "make_corpus: out of memory building %s/%s\n", target, name);
        exit(1);
    }
    put_file(target, name, b->p, b->len);
    wire_buf_reset(b);
}

static void kv_str(wire_buf *b, const char *k, const char *v) { wire_put_str(b, k); wire_put_str(b, v); }
static void kv_uint(wire_buf *b, const char *k, uint64_t v) { wire_put_str(b, k); wire_put_uint(b, v); }

static sim_world *make_world(const char *kind, uint64_t seed, const char *params)
{
    char err[256];
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    if (!w) {
        fprintf(stderr, "make_corpus: %s %s: %s\n", kind, params, err);
        exit(1);
    }
    return w;
}

/* The smallest params a kind allows: every INT param at its minimum. */
static void small_params(const sim_kind *k, const char *extra, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < k->nparams; i++) {
        if (k->params[i].type != SIM_PARAM_INT) continue;
        n += (size_t)snprintf(out + n, cap - n, "%s%s=%lld", n ? "," : "", k->params[i].name,
                              (long long)k->params[i].min);
    }
    if (extra && *extra) snprintf(out + n, cap - n, "%s%s", n ? "," : "", extra);
}

/* ---- wire: client messages ---------------------------------------------------------------------- */
static void corpus_wire(void)
{
    const char *T = "wire";
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b); wire_put_map(&b, 3); kv_str(&b, "t", "hello"); kv_uint(&b, "v", 1); kv_str(&b, "name", "viewer"); wire_msg_end(&b);
    put_buf(T, "hello", &b);
    wire_msg_begin(&b); wire_put_map(&b, 4); kv_str(&b, "t", "hello"); kv_uint(&b, "v", 1); kv_str(&b, "name", "p1"); kv_str(&b, "token", "player-token"); wire_msg_end(&b);
    put_buf(T, "hello-token", &b);
    static const char *const encs[] = { "tile.zst", "tile", "raw" };
    for (int e = 0; e < 3; e++) {
        char name[32];
        wire_msg_begin(&b); wire_put_map(&b, 5); kv_str(&b, "t", "sub"); kv_uint(&b, "world", 1);
        kv_uint(&b, "every", (uint64_t)(e * 1799 + 1)); kv_str(&b, "enc", encs[e]); kv_str(&b, "view", "normal"); wire_msg_end(&b);
        snprintf(name, sizeof name, "sub-%s", encs[e]);
        put_buf(T, name, &b);
    }
    wire_msg_begin(&b); wire_put_map(&b, 2); kv_str(&b, "t", "unsub"); kv_uint(&b, "world", 1); wire_msg_end(&b);
    put_buf(T, "unsub", &b);
    wire_msg_begin(&b); wire_put_map(&b, 5); kv_str(&b, "t", "input"); kv_uint(&b, "world", 1); kv_uint(&b, "seq", 4294967295u);
    kv_str(&b, "kind", "paint"); wire_put_str(&b, "args"); wire_put_array(&b, 4);
    wire_put_int(&b, 160); wire_put_int(&b, -20); wire_put_int(&b, 5); wire_put_int(&b, INT32_MIN); wire_msg_end(&b);
    put_buf(T, "input", &b);
    wire_msg_begin(&b); wire_put_map(&b, 4); kv_str(&b, "t", "create"); kv_str(&b, "kind", "sand"); kv_uint(&b, "seed", UINT64_MAX);
    kv_str(&b, "params", "w=16,h=16,scene=empty"); wire_msg_end(&b);
    put_buf(T, "create", &b);
    wire_msg_begin(&b); wire_put_map(&b, 2); kv_str(&b, "t", "close"); kv_uint(&b, "world", 2); wire_msg_end(&b);
    put_buf(T, "close", &b);
    wire_msg_begin(&b); wire_put_map(&b, 1); kv_str(&b, "t", "stats"); wire_msg_end(&b);
    put_buf(T, "stats", &b);
    static const char *const ops[] = { "pause", "resume", "step", "seek", "speed" };
    for (int o = 0; o < 5; o++) {
        char name[32];
        wire_msg_begin(&b); wire_put_map(&b, 5); kv_str(&b, "t", "play"); kv_uint(&b, "world", 1); kv_str(&b, "op", ops[o]);
        kv_uint(&b, "tick", 600); kv_uint(&b, "speed", 250); wire_msg_end(&b);
        snprintf(name, sizeof name, "play-%s", ops[o]);
        put_buf(T, name, &b);
    }
    /* ping echoes any value: every msgpack type and width. */
    wire_msg_begin(&b); wire_put_map(&b, 2); kv_str(&b, "t", "ping"); wire_put_str(&b, "n");
    wire_put_array(&b, 17);
    wire_put_nil(&b); wire_put_bool(&b, 1); wire_put_bool(&b, 0);
    wire_put_int(&b, -1); wire_put_int(&b, -100); wire_put_int(&b, -30000); wire_put_int(&b, -2000000000); wire_put_int(&b, INT64_MIN);
    wire_put_uint(&b, 200); wire_put_uint(&b, 60000); wire_put_uint(&b, 4000000000u); wire_put_uint(&b, UINT64_MAX);
    { const uint8_t f32[] = { 0xca, 0x3f, 0x80, 0, 0 }, f64[] = { 0xcb, 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18 };
      wire_put_raw(&b, f32, sizeof f32); wire_put_raw(&b, f64, sizeof f64); }
    { const uint8_t ext[] = { 0xd4, 0x01, 0x02, 0xc7, 0x03, 0xff, 1, 2, 3 };
      wire_put_raw(&b, ext, 3); wire_put_raw(&b, ext + 3, 6); }
    wire_put_bin(&b, "\x00\x01\x02", 3);
    wire_msg_end(&b);
    put_buf(T, "ping-types", &b);
    /* Nesting to the limit (8), and one past it. */
    for (int depth = 7; depth <= 8; depth++) {
        wire_msg_begin(&b); wire_put_map(&b, 2); kv_str(&b, "t", "ping"); wire_put_str(&b, "n");
        for (int d = 0; d < depth; d++) {
            if (d % 2) { wire_put_map(&b, 1); wire_put_str(&b, "k"); } else wire_put_array(&b, 1);
        }
        wire_put_uint(&b, 7);
        wire_msg_end(&b);
        put_buf(T, depth == 7 ? "ping-depth8" : "ping-depth9", &b);
    }
    { char s[300]; memset(s, 'x', sizeof s - 1); s[sizeof s - 1] = '\0';
      wire_msg_begin(&b); wire_put_map(&b, 3); kv_str(&b, "t", "hello"); kv_uint(&b, "v", 1); kv_str(&b, "name", s); wire_msg_end(&b);
      put_buf(T, "hello-str16", &b); }
    /* Duplicate keys (the last wins), 24 keys, a non-string key, trailing bytes, not a map. */
    wire_msg_begin(&b); wire_put_map(&b, 3); kv_str(&b, "t", "sub"); kv_uint(&b, "world", 1); kv_str(&b, "t", "unsub"); wire_msg_end(&b);
    put_buf(T, "dup-keys", &b);
    wire_msg_begin(&b); wire_put_map(&b, 24);
    for (int k = 0; k < 24; k++) { char key[8]; snprintf(key, sizeof key, "k%d", k); kv_uint(&b, key, (uint64_t)k); }
    wire_msg_end(&b);
    put_buf(T, "24-keys", &b);
    wire_msg_begin(&b); wire_put_map(&b, 1); wire_put_uint(&b, 1); wire_put_uint(&b, 2); wire_msg_end(&b);
    put_buf(T, "int-key", &b);
    wire_msg_begin(&b); wire_put_map(&b, 1); kv_str(&b, "t", "stats"); wire_put_uint(&b, 0); wire_msg_end(&b);
    put_buf(T, "trailing", &b);
    wire_msg_begin(&b); wire_put_array(&b, 2); wire_put_str(&b, "t"); wire_put_str(&b, "hello"); wire_msg_end(&b);
    put_buf(T, "array", &b);
    /* A whole session in one stream, ending in half a message. */
    wire_msg_begin(&b); wire_put_map(&b, 4); kv_str(&b, "t", "hello"); kv_uint(&b, "v", 1); kv_str(&b, "name", "p"); kv_str(&b, "token", "x"); wire_msg_end(&b);
    wire_msg_begin(&b); wire_put_map(&b, 3); kv_str(&b, "t", "sub"); kv_uint(&b, "world", 1); kv_str(&b, "enc", "raw"); wire_msg_end(&b);
    wire_msg_begin(&b); wire_put_map(&b, 5); kv_str(&b, "t", "input"); kv_uint(&b, "world", 1); kv_uint(&b, "seq", 1);
    kv_str(&b, "kind", "erase"); wire_put_str(&b, "args"); wire_put_array(&b, 3); wire_put_int(&b, 1); wire_put_int(&b, 2); wire_put_int(&b, 3); wire_msg_end(&b);
    wire_msg_begin(&b); wire_put_map(&b, 2); kv_str(&b, "t", "ping"); kv_uint(&b, "n", 9); wire_msg_end(&b);
    wire_put_raw(&b, "\x00\x00\x00\x10\x82", 5);
    put_buf(T, "session", &b);
    /* Hostile lengths: a huge map count, an oversized frame length. */
    const uint8_t huge[] = { 0, 0, 0, 7, 0xdf, 0x00, 0x0f, 0x42, 0x40, 0xa1, 0x74 };
    put_file(T, "huge-map", huge, sizeof huge);
    const uint8_t big[] = { 0x00, 0x01, 0x00, 0x01, 0x80 };
    put_file(T, "too-large", big, sizeof big);
    wire_buf_free(&b);
}

/* ---- codec: tile data -------------------------------------------------------------------------- */
static void put_codec(const char *name, int w, int h, int key, uint8_t fill, const uint8_t *cur)
{
    wire_buf b;
    wire_buf_init(&b);
    const uint8_t hdr[4] = { (uint8_t)(w - 1), (uint8_t)(h - 1), (uint8_t)key, fill };
    wire_put_raw(&b, hdr, 4);
    size_t n = (size_t)w * (size_t)h;
    uint8_t *prev = malloc(n);
    memset(prev, fill, n);
    codec_encode(&b, cur, key ? NULL : prev, w, h);
    put_buf("codec", name, &b);
    free(prev);
    wire_buf_free(&b);
}

static void corpus_codec(void)
{
    static uint8_t px[256 * 256];
    const int sizes[][2] = { { 1, 1 }, { 33, 17 }, { 255, 2 } };
    char name[64];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        for (int pattern = 0; pattern < 5; pattern++) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    uint8_t v;
                    switch (pattern) {
                    case 0: v = 7; break;                                      /* SOLID */
                    case 1: v = (uint8_t)(((x + y) & 1) ? 5 : 6); break;       /* PACKED b=1 */
                    case 2: v = (uint8_t)(x % 4 + 10 * (y % 3 == 0)); break;   /* PACKED b=2/4 */
                    case 3: v = (uint8_t)(y < h / 2 ? 1 : 2); break;           /* RLE */
                    default: v = (uint8_t)(x * 31 + y * 17 + x * y); break;    /* RAW */
                    }
                    px[y * w + x] = v;
                }
            snprintf(name, sizeof name, "key-%dx%d-p%d", w, h, pattern);
            put_codec(name, w, h, 1, 0, px);
            /* A delta against a plain frame: part of the picture changed. */
            for (int i = 0; i < w * h; i++)
                if ((i / w) % 32 >= 16) px[i] = 9;
            snprintf(name, sizeof name, "delta-%dx%d-p%d", w, h, pattern);
            put_codec(name, w, h, 0, 9, px);
        }
    }
    /* An unchanged frame (header NONE), and a real picture: a sand world's frame. */
    memset(px, 4, 64);
    put_codec("none-8x8", 8, 8, 0, 4, px);
    sim_world *w = make_world("sand", 3, "w=40,h=24,scene=bench");
    for (int t = 0; t < 40; t++) sim_world_step(w);
    sim_frame f;
    sim_world_frame_init(w, &f);
    sim_world_render(w, 0, &f);
    put_codec("sand-40x24-key", f.w, f.h, 1, 0, f.px);
    put_codec("sand-40x24-delta", f.w, f.h, 0, 0, f.px);
    sim_frame_free(&f);
    sim_world_destroy(w);
    /* Malformed: a bad header, a bad mode, a bitmap with stray high bits, a truncated RLE. */
    static const struct { uint8_t b[8]; size_t n; } bad[] = {
        { { 15, 15, 0, 0, 3 }, 5 },                      /* header 3 */
        { { 15, 15, 1, 0, 2, 4 }, 6 },                   /* a keyframe, mode 4 */
        { { 0, 0, 0, 0, 1, 0x03, 0, 7 }, 8 },            /* a bitmap bit past the last tile */
        { { 15, 15, 1, 0, 2, 2, 1, 0x80 }, 8 },          /* an RLE varint cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(name, sizeof name, "bad-%zu", i);
        put_file("codec", name, bad[i].b, bad[i].n);
    }
}

/* ---- frame: what vivd sends a client ------------------------------------------------------------- */
static ZSTD_CCtx *zctx;

/* One frame message as server/fanout.c builds it (docs/PROTOCOL.md "frame"). */
static void frame_msg(wire_buf *out, uint32_t world, const sim_frame *f, const uint8_t *prev, uint64_t tick,
                      uint64_t sh, const char *enc, int with_pal)
{
    wire_buf data;
    wire_buf_init(&data);
    int key = prev == NULL || strcmp(enc, "raw") == 0;
    const char *sent = enc;
    if (strcmp(enc, "raw") == 0) {
        wire_put_raw(&data, f->px, (size_t)f->w * f->h);
    } else {
        codec_encode(&data, f->px, key ? NULL : prev, f->w, f->h);
        if (strcmp(enc, "tile.zst") == 0) {
            size_t cap = ZSTD_compressBound(data.len);
            uint8_t *z = malloc(cap);
            size_t zn = ZSTD_compressCCtx(zctx, z, cap, data.p, data.len, 1);
            if (!ZSTD_isError(zn) && zn < data.len) {
                wire_buf_reset(&data);
                wire_put_raw(&data, z, zn);
            } else {
                sent = "tile";
            }
            free(z);
        }
    }
    wire_msg_begin(out);
    wire_put_map(out, 11 + (with_pal || key));
    kv_str(out, "t", "frame");
    kv_uint(out, "world", world);
    kv_uint(out, "tick", tick);
    wire_put_str(out, "key"); wire_put_bool(out, key);
    kv_uint(out, "w", f->w);
    kv_uint(out, "h", f->h);
    kv_uint(out, "pv", f->pal.version);
    if (with_pal || key) { wire_put_str(out, "pal"); wire_put_bin(out, f->pal.rgb, (size_t)f->pal.count * 3); }
    kv_str(out, "enc", sent);
    wire_put_str(out, "data"); wire_put_bin(out, data.p, data.len);
    kv_uint(out, "fh", sim_frame_hash(f));
    kv_uint(out, "sh", sh);
    wire_msg_end(out);
    wire_buf_free(&data);
}

static void corpus_frame(void)
{
    zctx = ZSTD_createCCtx();
    static const char *const encs[] = { "tile.zst", "tile", "raw" };
    const char *kinds[][2] = { { "sand", "w=16,h=16,scene=bench" }, { "sand", "w=40,h=24,scene=demo" },
                               { "cycle", "scene=fire,w=160,h=90" } };
    char name[64];
    for (int k = 0; k < 3; k++) {
        for (int e = 0; e < 3; e++) {
            if (k == 2 && e != 0) continue;                      /* 14 KB raw frames: one is enough */
            sim_world *w = make_world(kinds[k][0], 11, kinds[k][1]);
            sim_frame f;
            sim_world_frame_init(w, &f);
            size_t n = (size_t)f.w * f.h;
            uint8_t *prev = malloc(n);
            wire_buf b;
            wire_buf_init(&b);
            uint32_t pv = 0;
            for (int t = 0; t < 4; t++) {
                sim_world_step(w);
                sim_world_render(w, 0, &f);
                frame_msg(&b, 1 + (uint32_t)k, &f, t ? prev : NULL, sim_world_tick(w), sim_world_hash(w), encs[e],
                          t == 0 || f.pal.version != pv);
                memcpy(prev, f.px, n);
                pv = f.pal.version;
            }
            snprintf(name, sizeof name, "%s-%dx%d-%s", kinds[k][0], f.w, f.h, encs[e]);
            put_buf("frame", name, &b);
            wire_buf_free(&b);
            free(prev);
            sim_frame_free(&f);
            sim_world_destroy(w);
        }
    }
    /* Other server messages around frames. */
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b); wire_put_map(&b, 4); kv_str(&b, "t", "error"); kv_str(&b, "code", "timeout");
    kv_str(&b, "msg", "no hello within 10 s"); kv_uint(&b, "seq", 3); wire_msg_end(&b);
    wire_msg_begin(&b); wire_put_map(&b, 3); kv_str(&b, "t", "ack"); kv_uint(&b, "seq", 3); kv_uint(&b, "tick", 99); wire_msg_end(&b);
    put_buf("frame", "error-ack", &b);
    wire_buf_free(&b);
    ZSTD_freeCCtx(zctx);
}

/* ---- cluster: what members read from each other through Redis (fuzz_cluster.c) ------------------ */
/* One payload for the decoders: mode byte 0, then the bytes. */
static void put_cluster(const char *name, const void *p, size_t n)
{
    uint8_t *q = malloc(n + 1);
    q[0] = 0;
    memcpy(q + 1, p, n);
    put_file("cluster", name, q, n + 1);
    free(q);
}

static void put_cluster_buf(const char *name, wire_buf *b)
{
    put_cluster(name, b->p, b->len);
    wire_buf_reset(b);
}

static void corpus_cluster(void)
{
    wire_buf b, body;
    wire_buf_init(&b);
    wire_buf_init(&body);
    static const char *const encs[] = { "tile", "raw", "tile.zst" };
    for (int e = 0; e < 3; e++) {
        char name[32];
        srv_cmsg_want(&b, "r1", 20964u * 65536u + 1, 0, 1, (uint32_t)(1 + e), e, e == 2 ? (const int32_t[]){ 64, 0, 128, 64 } : NULL, e != 1);
        snprintf(name, sizeof name, "want-%s", encs[e]);
        put_cluster_buf(name, &b);
    }
    /* A player's input, proxied; the node's ack and error for it, replied. */
    wire_put_map(&body, 6);
    kv_str(&body, "t", "input"); kv_uint(&body, "world", 65537); kv_uint(&body, "seq", 7);
    kv_str(&body, "kind", "paint");
    wire_put_str(&body, "args"); wire_put_array(&body, 4);
    wire_put_uint(&body, 10); wire_put_uint(&body, 10); wire_put_uint(&body, 3); wire_put_uint(&body, 1);
    kv_uint(&body, "n", 1);
    srv_cmsg_proxy(&b, "r1", 42, "painter", "player-token", body.p, body.len);
    put_cluster_buf("proxy-input", &b);
    srv_cmsg_proxy(&b, "r2", 7, "", "", body.p, body.len);
    put_cluster_buf("proxy-no-token", &b);
    wire_buf_reset(&body);
    wire_put_map(&body, 3); kv_str(&body, "t", "ack"); kv_uint(&body, "seq", 7); kv_uint(&body, "tick", 99);
    srv_cmsg_reply(&b, "a", 42, body.p, body.len);
    put_cluster_buf("reply-ack", &b);
    wire_buf_reset(&body);
    wire_put_map(&body, 4); kv_str(&body, "t", "error"); kv_str(&body, "code", "bad_input");
    kv_str(&body, "msg", "paint: radius 999 is out of 1..16"); kv_uint(&body, "seq", 8);
    srv_cmsg_reply(&b, "a", 42, body.p, body.len);
    put_cluster_buf("reply-error", &b);
    srv_cmsg_gone(&b, "r1", 42);
    put_cluster_buf("gone", &b);
    /* Registrations: a node with two worlds (entries as welcome lists them), a relay with none. */
    static const char *const kinds[][2] = { { "sand", "w=16,h=16,scene=bench" }, { "cycle", "scene=fire,w=160,h=90" } };
    wire_put_map(&b, 9);
    kv_str(&b, "name", "a"); kv_str(&b, "role", "node"); kv_uint(&b, "num", 20964);
    kv_uint(&b, "boot", 0x1234567890abcdefull); kv_uint(&b, "beat", 17); kv_uint(&b, "pid", 4242);
    kv_str(&b, "listen", "127.0.0.1:7400"); kv_str(&b, "http", "127.0.0.1:7401");
    wire_put_str(&b, "worlds");
    wire_put_array(&b, 2);
    for (int k = 0; k < 2; k++) {
        const sim_kind *kind = sim_kind_find(kinds[k][0]);
        wire_world ww;
        memset(&ww, 0, sizeof ww);
        ww.id = 20964u * 65536u + 1 + (uint32_t)k;
        ww.kind = kind;
        ww.seed = 11;
        ww.params = kinds[k][1];
        ww.tick = 120;
        ww.w = k ? 160 : 16;
        ww.h = k ? 90 : 16;
        wire_put_world(&b, &ww);
        if (k == 0) {
            wire_buf one;
            wire_buf_init(&one);
            wire_put_world(&one, &ww);
            put_cluster("entry-sand", one.p, one.len);
            wire_buf_free(&one);
        }
    }
    put_cluster_buf("registration-node", &b);
    wire_put_map(&b, 9);
    kv_str(&b, "name", "r1"); kv_str(&b, "role", "relay"); kv_uint(&b, "num", 0);
    kv_uint(&b, "boot", 99); kv_uint(&b, "beat", 1); kv_uint(&b, "pid", 4243);
    kv_str(&b, "listen", "127.0.0.1:7410"); kv_str(&b, "http", "");
    wire_put_str(&b, "worlds"); wire_put_array(&b, 0);
    put_cluster_buf("registration-relay", &b);
    /* Channel names. */
    for (int e = 0; e < 3; e++) {
        char chan[96], name[32];
        srv_cchan_format(chan, sizeof chan, 20964u * 65536u + 1, 0, 1, (uint32_t)(1 + e), e == 2 ? (const int32_t[]){ 64, 0, 128, 64 } : NULL, e);
        snprintf(name, sizeof name, "channel-%s", encs[e]);
        put_cluster(name, chan, strlen(chan));
    }
    /* Streams (mode 1): a keyframe and deltas of a world, as a node publishes them, then closed. */
    zctx = ZSTD_createCCtx();
    for (int e = 0; e < 3; e++) {
        sim_world *w = make_world("sand", 11, "w=16,h=16,scene=bench");
        sim_frame f;
        sim_world_frame_init(w, &f);
        size_t n = (size_t)f.w * f.h;
        uint8_t *prev = malloc(n);
        wire_put_raw(&b, "\x01", 1);
        for (int t = 0; t < 3; t++) {
            sim_world_step(w);
            sim_world_render(w, 0, &f);
            frame_msg(&b, 1, &f, t ? prev : NULL, sim_world_tick(w), sim_world_hash(w), encs[e], t == 0);
            memcpy(prev, f.px, n);
        }
        wire_msg_closed(&b, 1);                  /* with its length, as frame_msg's */
        char name[32];
        snprintf(name, sizeof name, "stream-%s", encs[e]);
        put_buf("cluster", name, &b);
        free(prev);
        sim_frame_free(&f);
        sim_world_destroy(w);
    }
    ZSTD_freeCCtx(zctx);
    wire_buf_free(&b);
    wire_buf_free(&body);
}

/* ---- state: saved worlds ------------------------------------------------------------------------- */
/* A mid-range value for each argument, and the first enum value where there are names. */
static int queue_some_input(sim_world *w, uint32_t seq)
{
    const sim_kind *k = sim_world_kind(w);
    for (int i = 0; i < k->ninputs; i++) {
        sim_input in;
        memset(&in, 0, sizeof in);
        in.tick = sim_world_tick(w);
        in.client = 1;
        in.seq = seq;
        in.kind = (uint16_t)i;
        in.nargs = (uint16_t)k->inputs[i].nargs;
        for (int a = 0; a < in.nargs; a++) {
            const sim_arg_desc *d = &k->inputs[i].args[a];
            int64_t v = ((int64_t)d->min + d->max) / 2;
            if (v - d->min > 5) v = d->min + 5;                 /* near the origin: inside small worlds */
            in.args[a] = (int32_t)v;
        }
        if (sim_world_input(w, &in) == 0) return 1;
    }
    return 0;
}

static size_t state_len(const sim_world *w)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(w, buf, cap);
    free(buf);
    return n;
}

static void save_state(const char *name, const sim_world *w)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    size_t n = sim_world_save(w, buf, cap);
    if (!n) {
        fprintf(stderr, "make_corpus: %s does not save\n", name);
        exit(1);
    }
    put_file("state", name, buf, n);
    free(buf);
}

/* A small scene for the cycle importers: 4..16 colours, ranges of every direction and mode. */
static void corpus_state(void)
{
    char params[SIM_PARAMS_MAX], name[96];
    for (int i = 0; i < sim_kind_count(); i++) {
        const sim_kind *k = sim_kind_at(i);
        /* Every choice of every ENUM param, at the smallest size. */
        int nvariants = 1;
        int enum_idx = -1;
        for (int p = 0; p < k->nparams; p++)
            if (k->params[p].type == SIM_PARAM_ENUM) {
                enum_idx = p;
                nvariants = 0;
                while (k->params[p].choices[nvariants]) nvariants++;
                break;
            }
        for (int v = 0; v < nvariants; v++) {
            char extra[96] = "";
            if (enum_idx >= 0) snprintf(extra, sizeof extra, "%s=%s", k->params[enum_idx].name, k->params[enum_idx].choices[v]);
            small_params(k, extra, params, sizeof params);
            sim_world *w = make_world(k->name, 21 + (uint64_t)v, params);
            /* Large states (a procedural cycle scene is 14 KB) get one seed, not three. */
            int small = state_len(w) <= 8192;
            snprintf(name, sizeof name, "%s-%s-t0", k->name, enum_idx >= 0 ? k->params[enum_idx].choices[v] : "default");
            if (small) save_state(name, w);
            for (int t = 0; t < 30; t++) sim_world_step(w);
            if (queue_some_input(w, 1)) {
                snprintf(name, sizeof name, "%s-%s-t30-queued", k->name, enum_idx >= 0 ? k->params[enum_idx].choices[v] : "default");
                save_state(name, w);
                sim_world_step(w);
            }
            for (int t = 0; t < 60; t++) sim_world_step(w);
            snprintf(name, sizeof name, "%s-%s-t91", k->name, enum_idx >= 0 ? k->params[enum_idx].choices[v] : "default");
            if (small) save_state(name, w);
            /* A state an older build saved: the oldest version the kind still reads (sand's 2,
             * hashed by its bytes, before the chunk digests). */
            uint32_t oldest = k->state_version_min ? k->state_version_min : k->state_version;
            if (small && oldest < k->state_version && sim_world_set_state_version(w, oldest) == 0) {
                snprintf(name, sizeof name, "%s-%s-t91-v%u", k->name,
                         enum_idx >= 0 ? k->params[enum_idx].choices[v] : "default", (unsigned)oldest);
                save_state(name, w);
            }
            sim_world_destroy(w);
        }
    }
    /* A cycle world built from a small file scene: its state carries the whole scene. */
    if (sim_kind_find("cycle")) {
        sim_cycle_scene s;
        fuzz_make_scene(&s, 8, 6, 8, 3);
        sim_file_reader rd = { fuzz_scene_reader, &s };
        char err[256];
        sim_config cfg = sim_config_default();
        cfg.kind = "cycle";
        cfg.seed = 2;
        cfg.params = "scene=file:small.lbm";
        cfg.files = &rd;
        cfg.err = err;
        cfg.errlen = sizeof err;
        int rc;
        sim_world *w = sim_world_create(&cfg, &rc);
        if (!w) {
            fprintf(stderr, "make_corpus: cycle from a file: %s\n", err);
            exit(1);
        }
        for (int t = 0; t < 20; t++) sim_world_step(w);
        queue_some_input(w, 1);
        save_state("cycle-file-8x6", w);
        sim_world_destroy(w);
        sim_cycle_scene_free(&s);
    }
    /* Not states: nothing, a bare header, the wrong magic. */
    put_file("state", "empty", "", 0);
    put_file("state", "magic-only", "VIVW\x01\x00", 6);
}

/* ---- inputs: params line + inputs file ------------------------------------------------------------- */
static void corpus_inputs(void)
{
    char buf[8192], params[SIM_PARAMS_MAX], name[64];
    for (int i = 0; i < sim_kind_count(); i++) {
        const sim_kind *k = sim_kind_at(i);
        small_params(k, NULL, params, sizeof params);
        size_t n = (size_t)snprintf(buf, sizeof buf, "%s\n# %s inputs at the edges of their ranges\n\n", params, k->name);
        for (int in = 0; in < k->ninputs; in++) {
            const sim_input_desc *d = &k->inputs[in];
            for (int edge = 0; edge < 3; edge++) {
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%d %s", edge * 7, d->name);
                for (int a = 0; a < d->nargs; a++) {
                    const sim_arg_desc *ad = &d->args[a];
                    const sim_enum_desc *e = ad->enum_name ? sim_kind_enum_find(k, ad->enum_name) : NULL;
                    if (e && edge == 2) n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", e->values[e->count - 1]);
                    else n += (size_t)snprintf(buf + n, sizeof buf - n, " %d",
                                               edge == 0 ? (int)ad->min : edge == 1 ? (int)ad->max : (int)(ad->min / 2 + ad->max / 2));
                }
                n += (size_t)snprintf(buf + n, sizeof buf - n, edge == 1 ? "   # max\n" : "\n");
            }
        }
        n += (size_t)snprintf(buf + n, sizeof buf - n, "5 nosuchinput 1 2\n\t12\t%s 1 2 3 4 5 6 7 8 9\n-1 %s\n",
                              k->inputs[0].name, k->inputs[0].name);
        snprintf(name, sizeof name, "%s-edges", k->name);
        put_file("inputs", name, buf, n);
    }
    const char *const texts[][2] = {
        { "sand-paint", "w=16,h=16,scene=empty\n0 paint 8 8 3 sand\n1 paint 0 0 64 water\n2 explode 15 15 20\n3 erase 8 8 64\n" },
        { "params-spaces", " w = 16 , scene=bench ,\n120 paint 160 20 5 sand\n300 explode 160 90 20\n" },
        { "params-bad", "w=5,w=6,nokey,=3,h=99999999999999999999\n\n#only a comment\n" },
        { "terrarium", "w=160,scene=empty\n0 spawn lizard 40 30\n1 grab 40 30\n2 drag 60 10\n3 release\n4 shove 40 30 5 -5\n5 pointer 0 0\n" },
        { "cycle", "scene=fire,w=160,h=90\n0 speed 400\n1 pause\n2 toggle 0\n" },
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) put_file("inputs", texts[i][0], texts[i][1], strlen(texts[i][1]));
}

/* ---- ilbm, ccjson: scenes ------------------------------------------------------------------------ */
static void put_scene(const char *tag, const sim_cycle_scene *s)
{
    char name[64];
    for (int which = 0; which < 3; which++) {
        size_t n = which == 2 ? sim_cycle_to_ccjson(s, "scene.lbm", NULL, 0) : sim_cycle_to_ilbm(s, which, NULL, 0);
        if (!n) {
            fprintf(stderr, "make_corpus: scene %s does not encode\n", tag);
            exit(1);
        }
        uint8_t *buf = malloc(n);
        if (which == 2) sim_cycle_to_ccjson(s, "scene.lbm", buf, n);
        else sim_cycle_to_ilbm(s, which, buf, n);
        snprintf(name, sizeof name, "%s.%s", tag, which == 0 ? "ilbm" : which == 1 ? "pbm" : "json");
        put_file(which == 2 ? "ccjson" : "ilbm", name, buf, n);
        free(buf);
    }
}

static void corpus_scenes(void)
{
    sim_cycle_scene s;
    const int shapes[][4] = { { 1, 1, 2, 1 }, { 8, 4, 4, 2 }, { 33, 7, 16, 6 }, { 16, 16, 256, 16 }, { 17, 3, 32, 3 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char tag[32];
        fuzz_make_scene(&s, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
        snprintf(tag, sizeof tag, "%dx%d-%dc-%dr", shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
        put_scene(tag, &s);
        sim_cycle_scene_free(&s);
    }
    /* A procedural scene, cut down to a corner so it stays small. */
    sim_world *w = make_world("cycle", 4, "scene=waterfall,w=160,h=90");
    sim_cycle_scene full;
    if (sim_cycle_world_scene(w, &full) == 0) {
        fuzz_make_scene(&s, 24, 16, full.ncolors, 0);
        memcpy(s.rgb, full.rgb, sizeof s.rgb);
        s.nranges = full.nranges;
        memcpy(s.ranges, full.ranges, sizeof s.ranges);
        for (int y = 0; y < 16; y++) memcpy(s.px + y * 24, full.px + (size_t)(y + 60) * full.w + 40, 24);
        put_scene("waterfall-corner", &s);
        sim_cycle_scene_free(&s);
        sim_cycle_scene_free(&full);
    }
    sim_world_destroy(w);
    /* Canvas Cycle's own shape: no extra keys, reverse 2 and 3, a JSONP wrapper. */
    const char *cc = "CanvasCycle.processImage({\"filename\":\"V08.LBM\",\"width\":4,\"height\":2,\n"
                     "\"colors\":[[0,0,0],[255,0,0],[0,255,0],[0,0,255]],\n"
                     "\"cycles\":[{\"reverse\":2,\"rate\":280,\"low\":1,\"high\":3},{\"reverse\":3,\"rate\":1400,\"low\":0,\"high\":1},"
                     "{\"reverse\":0,\"rate\":0,\"low\":0,\"high\":0}],\n"
                     "\"pixels\":[0,1,2,3,3,2,1,0]});\n";
    put_file("ccjson", "canvascycle-jsonp.json", cc, strlen(cc));
    /* As lbm2json writes it: a JavaScript object literal, keys bare, the name in single quotes, a
     * line per row of pixels; every reverse value Canvas Cycle reads, and a placeholder cycle. */
    const char *lit = "{filename:'V29.LBM',width:4,height:2,colors:[[0,0,0],[255,0,0],[0,255,0],"
                      "[0,0,255],[255,255,0],[0,255,255]],cycles:[{reverse:0,rate:1536,low:1,high:3},"
                      "{reverse:2,rate:2841,low:0,high:5},{reverse:3,rate:280,low:2,high:4},"
                      "{reverse:4,rate:2000,low:0,high:3},{reverse:5,rate:8400,low:1,high:5},"
                      "{reverse:0,rate:0,low:0,high:0}],pixels:[\n0,1,2,3\n,4,5,0,1]}\n";
    put_file("ccjson", "lbm2json-literal.js", lit, strlen(lit));
    const char *bad = "{\"width\":2,\"height\":1,\"colors\":[[1,2,3]],\"pixels\":[0,1]}";
    put_file("ccjson", "pixel-out-of-palette.json", bad, strlen(bad));
    /* An ILBM with a hand-made header only (no BODY), and a PBM ByteRun1 corner case. */
    const uint8_t hdr[] = { 'F', 'O', 'R', 'M', 0, 0, 0, 32, 'I', 'L', 'B', 'M', 'B', 'M', 'H', 'D', 0, 0, 0, 20,
                            0, 4, 0, 2, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 1, 1, 0, 4, 0, 2 };
    put_file("ilbm", "bmhd-only.ilbm", hdr, sizeof hdr);
}

/* ---- celset: cel sets, an OAM set and an engine state (fuzz_celset.c's layout) ------------------ */
static void celset_seed(const char *name, int nslots_byte, const uint8_t *cs0, size_t n0,
                        const uint8_t *cs1, size_t n1, const uint8_t *oam, size_t no, int ticks)
{
    uint8_t buf[2048];
    size_t n = 0;
    buf[n++] = (uint8_t)nslots_byte;
    buf[n++] = (uint8_t)n0;
    memcpy(buf + n, cs0, n0);
    n += n0;
    buf[n++] = (uint8_t)n1;
    memcpy(buf + n, cs1, n1);
    n += n1;
    buf[n++] = (uint8_t)no;
    memcpy(buf + n, oam, no);
    n += no;
    /* A state the engine itself saved with these tables, after a few ticks (no behaviour). */
    fuzz_celset_tables tb;
    sim_anim_config cfg = fuzz_celset_config(&tb, (uint8_t)nslots_byte, cs0, n0, cs1, n1, oam, no,
                                             NULL);
    sim_anim a;
    if (sim_anim_init(&a, &cfg) != 0) exit(1);
    for (int i = 0; i < 3; i++) sim_anim_alloc(&a, i, 10 + 7 * i, 20 - 3 * i);
    for (int t = 0; t < ticks; t++) sim_anim_tick(&a, NULL);
    sim_writer wr;
    sim__w_init(&wr, buf + n, sizeof buf - n);
    sim_anim_save(&a, &wr);
    n += wr.len;
    sim_anim_free(&a);
    put_file("celset", name, buf, n);
}

static void corpus_celset(void)
{
    static const uint8_t loop[] = { 0, 3, 0, 1, 2, 0x20, SIM_CEL_RESTART };
    static const uint8_t waits[] = { 1, 1, 0x40, SIM_CEL_WAIT, 4, 0, 0, 0, SIM_CEL_END };
    static const uint8_t del_last[] = { 0, 0, 0, SIM_CEL_DELETE };
    static const uint8_t cut[] = { 1, 200 };
    static const uint8_t oam2[] = { 2, 0xFC, 0xFC, 0, 0, 2, 0, 1, 0x60 };
    static const uint8_t oam_short[] = { 5, 1, 1, 0 };
    celset_seed("loop-wait", 3, loop, sizeof loop, waits, sizeof waits, oam2, sizeof oam2, 5);
    celset_seed("delete-last-cut", 9, del_last, sizeof del_last, cut, sizeof cut, oam_short,
                sizeof oam_short, 2);
    celset_seed("restart-only", 0, loop + 6, 1, del_last, sizeof del_last, oam2, sizeof oam2, 0);
}

/* ---- websocket: a server's answer to the upgrade, then its frames (fuzz_websocket.c) ---------- */
enum { WSO_CONT = 0, WSO_TEXT = 1, WSO_BIN = 2, WSO_CLOSE = 8, WSO_PING = 9, WSO_PONG = 10 };

static size_t ws_frame(uint8_t *out, int fin, int op, const void *p, size_t n)
{
    size_t h = 0;
    out[h++] = (uint8_t)((fin ? 0x80 : 0) | op);
    if (n < 126) out[h++] = (uint8_t)n;
    else if (n < 65536) {
        out[h++] = 126;
        out[h++] = (uint8_t)(n >> 8);
        out[h++] = (uint8_t)n;
    } else {
        out[h++] = 127;
        for (int i = 7; i >= 0; i--) out[h++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    if (p && n) memcpy(out + h, p, n);
    return h + (p ? n : 0);
}

static void ws_seed(const char *name, int flags, const char *answer, const uint8_t *frames, size_t fn)
{
    static uint8_t buf[4096];
    size_t al = strlen(answer), n = 0;
    buf[n++] = (uint8_t)flags;
    buf[n++] = (uint8_t)(al >> 8);
    buf[n++] = (uint8_t)al;
    memcpy(buf + n, answer, al);
    n += al;
    memcpy(buf + n, frames, fn);
    put_file("websocket", name, buf, n + fn);
}

static void corpus_websocket(void)
{
    /* The RFC's example key (fuzz_websocket.c's) and its accept. */
    static const char ok_proto[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        "Sec-WebSocket-Protocol: vivarium\r\n\r\n";
    static const char ok[] = "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\n"
        "connection: keep-alive, Upgrade\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
    static const char wrong[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n";
    static const char refused[] = "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
        "content-length: 34\r\nconnection: close\r\n\r\na WebSocket handshake is HTTP/1.1\n";
    static const char version[] = "HTTP/1.1 426 Upgrade Required\r\nsec-websocket-version: 13\r\n\r\n";
    static const uint8_t pong_map[] = { 0x81, 0xa1, 't', 0xa4, 'p', 'o', 'n', 'g' };
    static uint8_t f[2048], big[300];
    size_t n = 0;
    n += ws_frame(f + n, 1, WSO_BIN, pong_map, sizeof pong_map);
    n += ws_frame(f + n, 1, WSO_PING, "hi", 2);
    n += ws_frame(f + n, 0, WSO_TEXT, "ab", 2);
    n += ws_frame(f + n, 1, WSO_PONG, NULL, 0);
    n += ws_frame(f + n, 1, WSO_CONT, "cd", 2);
    static const uint8_t close[] = { 0x03, 0xf0, 't', 'o', 'o', '_', 'l', 'a', 'r', 'g', 'e' };
    n += ws_frame(f + n, 1, WSO_CLOSE, close, sizeof close);
    ws_seed("ok-messages-ping-close", 0x01, ok_proto, f, n);
    ws_seed("ok-messages-in-3s", 0x25, ok_proto, f, n);
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 13);
    n = ws_frame(f, 1, WSO_BIN, big, sizeof big);
    n += ws_frame(f + n, 0, WSO_BIN, big, 100);
    n += ws_frame(f + n, 1, WSO_CONT, big + 100, 200);
    ws_seed("ok-16bit-length-fragments", 0x1a, ok, f, n);
    n = ws_frame(f, 1, WSO_BIN, NULL, 70000);           /* a header over the limit, no payload */
    ws_seed("over-the-limit", 0xf0, ok, f, n);
    n = ws_frame(f, 1, WSO_CONT, "x", 1);               /* nothing to continue */
    ws_seed("stray-continuation", 0x30, ok, f, n);
    n = ws_frame(f, 1, WSO_BIN, "abcd", 4);
    f[1] |= 0x80;                                       /* masked: a server must not */
    memset(f + 2, 0, 4);
    memcpy(f + 6, "abcd", 4);
    n = 10;
    ws_seed("masked-from-server", 0x0c, ok, f, n);
    ws_seed("wrong-accept", 0x02, wrong, f, 0);
    ws_seed("refused-400", 0x04, refused, f, 0);
    ws_seed("version-426", 0x06, version, f, 0);
}

/* fuzz_replay's rows (see its header): a table byte, then one typed value per column; 6 is the
 * preset a real recording holds there (8 more: its variant, a compressed checkpoint), 7 a preset
 * with one bit flipped (two bytes name the bit). Sessions of every kind that verify, and a few
 * damaged ones. */
enum { R_SESSION, R_INPUT, R_TICK, R_CHECKPOINT, R_GAP, R_HASHES, R_COUNT };
typedef struct rows { uint8_t b[1024]; size_t n; } rows;
static void row(rows *r, int tag, int ncols, const uint8_t *vals)
{
    r->b[r->n++] = (uint8_t)tag;
    for (int i = 0; i < ncols; i++) r->b[r->n++] = vals ? vals[i] : 6;
}
static void session_rows(rows *r, int kind, int zcp, int flip_tick, int gap_at, int input_at)
{
    row(r, R_SESSION + R_COUNT * kind, 17, NULL);
    const uint8_t cp[5] = { 6, 6, zcp ? 14 : 6, 6, 6 };
    row(r, R_CHECKPOINT, 5, cp);
    for (int t = 1; t <= 16; t++) {
        if (t == gap_at) row(r, R_GAP, 4, NULL);
        if (t == input_at) row(r, R_INPUT, 6, NULL);
        if (t == flip_tick) {
            r->b[r->n++] = R_TICK;
            r->b[r->n++] = 6; r->b[r->n++] = 6;
            r->b[r->n++] = 7; r->b[r->n++] = 13; r->b[r->n++] = 0;   /* bit 13 of the state hash */
            r->b[r->n++] = 6;
        } else {
            row(r, R_TICK, 4, NULL);
        }
        if (t == 8 && gap_at) row(r, R_CHECKPOINT + R_COUNT, 5, NULL);   /* the checkpoint at tick 8 */
    }
}
/* A session as schema 4 records it: the checkpoint at 0 whole, the one at 8 a delta against it,
 * ticks 1..16 in one block of hashes (zblock: its zstd variant). */
static void session4_rows(rows *r, int kind, int zblock)
{
    row(r, R_SESSION + R_COUNT * kind, 17, NULL);
    row(r, R_CHECKPOINT, 5, NULL);
    const uint8_t delta[5] = { 6, 6, 14, 6, 6 };
    row(r, R_CHECKPOINT + R_COUNT, 5, delta);
    const uint8_t block[6] = { 6, 6, 6, 6, 6, zblock ? 14 : 6 };
    row(r, R_HASHES, 6, block);
}
static void corpus_replay(void)
{
    char name[64];
    for (int k = 0; k < sim_kind_count(); k++) {
        rows r = { .n = 0 };
        session4_rows(&r, k, k & 1);
        snprintf(name, sizeof name, "schema4-%s", sim_kind_at(k)->name);
        put_file("replay", name, r.b, r.n);
    }
    for (int k = 0; k < sim_kind_count(); k++) {
        rows r = { .n = 0 };
        session_rows(&r, k, 0, 0, 0, 0);
        snprintf(name, sizeof name, "verifies-%s", sim_kind_at(k)->name);
        put_file("replay", name, r.b, r.n);
    }
    rows r = { .n = 0 };
    session_rows(&r, 0, 1, 0, 0, 0);
    put_file("replay", "zstd-checkpoint", r.b, r.n);
    r.n = 0;
    session_rows(&r, 1 % sim_kind_count(), 0, 5, 0, 0);
    put_file("replay", "flipped-hash", r.b, r.n);
    r.n = 0;
    session_rows(&r, 0, 0, 0, 3, 0);
    put_file("replay", "gap-and-second-checkpoint", r.b, r.n);
    r.n = 0;
    session_rows(&r, 0, 0, 0, 0, 2);
    put_file("replay", "input-row", r.b, r.n);
    r.n = 0;
    session_rows(&r, 0, 0, 0, 0, 0);
    session_rows(&r, 2 % sim_kind_count(), 1, 0, 0, 0);
    put_file("replay", "two-sessions", r.b, r.n);
    /* Types a column should not hold: text ticks, a real seed, a NULL hash, a huge end tick. */
    r.n = 0;
    const uint8_t odd[] = { R_SESSION, 6, 6, 6,
                            2, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,   /* seed: a real */
                            6, 6, 6, 6,
                            1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,   /* end: 2^63 - 1 */
                            6, 6, 5, 6, 6, 6, 6, 6 };
    memcpy(r.b, odd, sizeof odd);
    r.n = sizeof odd;
    const uint8_t text_tick[] = { R_TICK, 6, 3, 2, '1', '2', 5, 6,
                                  R_HASHES, 6, 6, 0, 0xf0, 6, 6, 4, 3, 0, 2, 0xff, 0xff };  /* n -16, a bad blob */
    memcpy(r.b + r.n, text_tick, sizeof text_tick); r.n += sizeof text_tick;
    put_file("replay", "odd-types", r.b, r.n);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    root = argv[1];
    mkdir_p(root);
    corpus_wire();
    corpus_codec();
    corpus_frame();
    corpus_state();
    corpus_inputs();
    corpus_celset();
    corpus_websocket();
    corpus_replay();
    if (sim_kind_find("cycle")) corpus_scenes();
    corpus_cluster();
    printf("make_corpus: %d files in %s\n", nfiles, root);
    return 0;
}
