/* msg.c — the server's messages, one writer each (msg.h; docs/PROTOCOL.md is the contract). */
#include <string.h>
#include <zstd.h>
#include "codec.h"
#include "msg.h"

int wire_encoder_init(wire_encoder *e)
{
    wire_buf_init(&e->scratch);
    e->zctx = ZSTD_createCCtx();
    return e->zctx ? 0 : -1;
}

void wire_encoder_free(wire_encoder *e)
{
    wire_buf_free(&e->scratch);
    ZSTD_freeCCtx(e->zctx);
    e->zctx = NULL;
}

static void begin(wire_buf *b, const char *t, uint32_t nfields)
{
    wire_msg_begin(b);
    wire_put_map(b, nfields + 1);
    wire_put_str(b, "t");
    wire_put_str(b, t);
}

long wire_msg_frame(wire_encoder *e, wire_buf *b, const wire_frame *m, const sim_frame *f,
                    const uint8_t *prev)
{
    if (m->enc == WIRE_ENC_RAW)
        return wire_msg_frame_data(e, b, m, f->w, f->h, &f->pal, f->px, (size_t)f->w * (size_t)f->h);
    wire_buf_reset(&e->scratch);
    if (codec_encode(&e->scratch, f->px, m->key ? NULL : prev, f->w, f->h) < 0) {
        b->oom = 1;
        return -1;
    }
    return wire_msg_frame_data(e, b, m, f->w, f->h, &f->pal, e->scratch.p, e->scratch.len);
}

/* The fields before "enc", common to every frame message. */
static void frame_fields(wire_buf *b, const wire_frame *m, int w, int h, const sim_palette *pal)
{
    wire_msg_begin(b);
    wire_put_map(b, (m->with_pal ? 12 : 11) + (m->rect[2] > 0));
    wire_put_str(b, "t"); wire_put_str(b, "frame");
    wire_put_str(b, "world"); wire_put_uint(b, m->world);
    wire_put_str(b, "tick"); wire_put_uint(b, m->tick);
    wire_put_str(b, "key"); wire_put_bool(b, m->key);
    wire_put_str(b, "w"); wire_put_uint(b, (uint64_t)w);
    wire_put_str(b, "h"); wire_put_uint(b, (uint64_t)h);
    wire_put_str(b, "pv"); wire_put_uint(b, pal->version);
    if (m->rect[2] > 0) {
        wire_put_str(b, "rect");
        wire_put_array(b, 4);
        for (int i = 0; i < 4; i++) wire_put_int(b, m->rect[i]);
    }
    if (m->with_pal) {
        wire_put_str(b, "pal");
        wire_put_bin(b, pal->rgb, (size_t)pal->count * 3);
    }
}

long wire_msg_frame_tail(wire_buf *b, const wire_frame *m)
{
    wire_put_str(b, "fh"); wire_put_uint(b, m->fh);
    wire_put_str(b, "sh"); wire_put_uint(b, m->sh);
    return wire_msg_end(b);
}

int wire_msg_frame_head(wire_buf *b, const wire_frame *m, int w, int h, const sim_palette *pal,
                        size_t dlen)
{
    if (wire_buf_reserve(b, dlen + 2048) != 0) return -1;
    frame_fields(b, m, w, h, pal);
    wire_put_str(b, "enc"); wire_put_str(b, m->enc == WIRE_ENC_RAW ? "raw" : "tile");
    wire_put_str(b, "data");
    wire_put_bin_header(b, dlen);
    return b->oom ? -1 : 0;
}

long wire_msg_frame_data(wire_encoder *e, wire_buf *b, const wire_frame *m, int w, int h,
                         const sim_palette *pal, const uint8_t *data, size_t dlen)
{
    /* Tiny messages (a palette-only change is one byte) are not worth a zstd frame header. */
    int try_z = m->enc == WIRE_ENC_TILEZ && dlen > 32 && e->zctx && m->zlevel != WIRE_ZLEVEL_NONE;
    if (!try_z) {
        if (wire_msg_frame_head(b, m, w, h, pal, dlen) != 0) return -1;
        wire_put_raw(b, data, dlen);
        return wire_msg_frame_tail(b, m);
    }
    /* Room for the fields, the data, and a zstd frame of it in the tail (compressed in place). */
    if (wire_buf_reserve(b, dlen + ZSTD_compressBound(dlen) + 2048) != 0) return -1;
    frame_fields(b, m, w, h, pal);
    size_t zlen = 0;
    uint8_t *z = b->p + b->cap - ZSTD_compressBound(dlen);
    size_t r = ZSTD_compressCCtx(e->zctx, z, ZSTD_compressBound(dlen), data, dlen, m->zlevel ? m->zlevel : 1);
    if (!ZSTD_isError(r) && r < dlen) zlen = r;
    wire_put_str(b, "enc"); wire_put_str(b, zlen ? "tile.zst" : "tile");
    wire_put_str(b, "data");
    if (zlen) {
        /* The compressed bytes sit in the buffer's tail, beyond anything written so far. */
        uint8_t tmp[5] = { 0xc6, (uint8_t)(zlen >> 24), (uint8_t)(zlen >> 16), (uint8_t)(zlen >> 8),
                           (uint8_t)zlen };
        wire_put_raw(b, tmp, 5);
        memmove(b->p + b->len, z, zlen);
        b->len += zlen;
    } else {
        wire_put_bin(b, data, dlen);
    }
    return wire_msg_frame_tail(b, m);
}

void wire_put_play(wire_buf *b, const wire_play *p)
{
    wire_put_map(b, 6);
    wire_put_str(b, "session"); wire_put_uint(b, (uint64_t)p->session);
    wire_put_str(b, "start"); wire_put_uint(b, p->start);
    wire_put_str(b, "end"); wire_put_uint(b, p->end);
    wire_put_str(b, "paused"); wire_put_bool(b, p->paused);
    wire_put_str(b, "speed"); wire_put_uint(b, (uint64_t)p->speed);
    wire_put_str(b, "file"); wire_put_str(b, p->file);
}

void wire_put_world(wire_buf *b, const wire_world *w)
{
    const sim_kind *k = w->kind;
    wire_put_map(b, w->play ? 13 : 12);
    if (w->play) {
        wire_put_str(b, "play");
        wire_put_play(b, w->play);
    }
    wire_put_str(b, "id"); wire_put_uint(b, w->id);
    wire_put_str(b, "kind"); wire_put_str(b, k->name);
    wire_put_str(b, "seed"); wire_put_uint(b, w->seed);
    wire_put_str(b, "params"); wire_put_str(b, w->params);
    wire_put_str(b, "tick"); wire_put_uint(b, w->tick);
    wire_put_str(b, "hz"); wire_put_uint(b, k->hz);
    wire_put_str(b, "w"); wire_put_uint(b, (uint64_t)w->w);
    wire_put_str(b, "h"); wire_put_uint(b, (uint64_t)w->h);
    wire_put_str(b, "views");
    wire_put_array(b, (uint32_t)k->nviews);
    for (int v = 0; v < k->nviews; v++) wire_put_str(b, k->views[v]);
    wire_put_str(b, "inputs");
    wire_put_map(b, (uint32_t)k->ninputs);
    for (int i = 0; i < k->ninputs; i++) {
        wire_put_str(b, k->inputs[i].name);
        wire_put_array(b, (uint32_t)k->inputs[i].nargs);
        for (int a = 0; a < k->inputs[i].nargs; a++) wire_put_str(b, k->inputs[i].args[a].name);
    }
    wire_put_str(b, "ranges");
    wire_put_map(b, (uint32_t)k->ninputs);
    for (int i = 0; i < k->ninputs; i++) {
        wire_put_str(b, k->inputs[i].name);
        wire_put_array(b, (uint32_t)k->inputs[i].nargs);
        for (int a = 0; a < k->inputs[i].nargs; a++) {
            wire_put_array(b, 2);
            wire_put_int(b, k->inputs[i].args[a].min);
            wire_put_int(b, k->inputs[i].args[a].max);
        }
    }
    wire_put_str(b, "names");
    wire_put_map(b, (uint32_t)k->nenums);
    for (int e = 0; e < k->nenums; e++) {
        wire_put_str(b, k->enums[e].name);
        wire_put_map(b, (uint32_t)k->enums[e].count);
        for (int v = 0; v < k->enums[e].count; v++) {
            wire_put_str(b, k->enums[e].values[v]);
            wire_put_uint(b, (uint64_t)v);
        }
    }
}

long wire_msg_welcome(wire_buf *b, const char *server, const char *role, uint32_t client,
                      const wire_world *worlds, int nworlds)
{
    return wire_msg_welcome_raw(b, server, role, client, worlds, nworlds, NULL, 0);
}

long wire_msg_welcome_raw(wire_buf *b, const char *server, const char *role, uint32_t client,
                          const wire_world *worlds, int nworlds, const wire_raw *more, int nmore)
{
    begin(b, "welcome", 5);
    wire_put_str(b, "v"); wire_put_uint(b, 1);
    wire_put_str(b, "server"); wire_put_str(b, server);
    wire_put_str(b, "role"); wire_put_str(b, role);
    wire_put_str(b, "client"); wire_put_uint(b, client);
    wire_put_str(b, "worlds");
    wire_put_array(b, (uint32_t)(nworlds + nmore));
    for (int i = 0; i < nworlds; i++) wire_put_world(b, &worlds[i]);
    for (int i = 0; i < nmore; i++) wire_put_raw(b, more[i].p, more[i].n);
    return wire_msg_end(b);
}

long wire_msg_created(wire_buf *b, const wire_world *w)
{
    begin(b, "created", 1);
    wire_put_str(b, "world");
    wire_put_world(b, w);
    return wire_msg_end(b);
}

long wire_msg_forked(wire_buf *b, const wire_world *w, uint32_t from, uint64_t tick)
{
    begin(b, "forked", 3);
    wire_put_str(b, "world");
    wire_put_world(b, w);
    wire_put_str(b, "from"); wire_put_uint(b, from);
    wire_put_str(b, "tick"); wire_put_uint(b, tick);
    return wire_msg_end(b);
}

long wire_msg_opened(wire_buf *b, const wire_world *w, int64_t session, const char *file)
{
    begin(b, "opened", 3);
    wire_put_str(b, "world");
    wire_put_world(b, w);
    wire_put_str(b, "session"); wire_put_int(b, session);
    wire_put_str(b, "file"); wire_put_str(b, file);
    return wire_msg_end(b);
}

long wire_msg_closed(wire_buf *b, uint32_t world)
{
    begin(b, "closed", 1);
    wire_put_str(b, "world"); wire_put_uint(b, world);
    return wire_msg_end(b);
}

long wire_msg_events(wire_buf *b, uint32_t world, uint64_t tick, const sim_event *ev, int n,
                     uint32_t dropped)
{
    begin(b, "events", dropped ? 4 : 3);
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "tick"); wire_put_uint(b, tick);
    wire_put_str(b, "events");
    wire_put_array(b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        wire_put_map(b, 2);
        wire_put_str(b, "name"); wire_put_str(b, ev[i].name);
        wire_put_str(b, "fields");
        wire_put_map(b, (uint32_t)ev[i].nfields);
        for (int k = 0; k < ev[i].nfields; k++) {
            const sim_event_field *f = &ev[i].f[k];
            wire_put_str(b, f->key);
            if (f->str) wire_put_str(b, f->str);
            else wire_put_int(b, f->num);
        }
    }
    if (dropped) {
        wire_put_str(b, "dropped"); wire_put_uint(b, dropped);
    }
    return wire_msg_end(b);
}

long wire_msg_playing(wire_buf *b, uint32_t world, uint64_t tick, const wire_play *p)
{
    begin(b, "playing", 3);
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "tick"); wire_put_uint(b, tick);
    wire_put_str(b, "play"); wire_put_play(b, p);
    return wire_msg_end(b);
}

long wire_msg_timeline(wire_buf *b, uint32_t world, uint64_t tick, int live, const wire_play *p)
{
    begin(b, "timeline", p ? 4 : 3);
    wire_put_str(b, "world"); wire_put_uint(b, world);
    wire_put_str(b, "tick"); wire_put_uint(b, tick);
    wire_put_str(b, "live"); wire_put_bool(b, live);
    if (p) {
        wire_put_str(b, "play");
        wire_put_play(b, p);
    }
    return wire_msg_end(b);
}

long wire_msg_ack(wire_buf *b, uint32_t seq, uint64_t tick)
{
    begin(b, "ack", 2);
    wire_put_str(b, "seq"); wire_put_uint(b, seq);
    wire_put_str(b, "tick"); wire_put_uint(b, tick);
    return wire_msg_end(b);
}

long wire_msg_pong(wire_buf *b, const uint8_t *n, size_t nlen)
{
    begin(b, "pong", n ? 1 : 0);
    if (n) {
        wire_put_str(b, "n");
        wire_put_raw(b, n, nlen);
    }
    return wire_msg_end(b);
}

long wire_msg_error(wire_buf *b, const char *code, const char *msg, const int64_t *seq)
{
    begin(b, "error", seq ? 3 : 2);
    wire_put_str(b, "code"); wire_put_str(b, code);
    wire_put_str(b, "msg"); wire_put_str(b, msg);
    if (seq) {
        wire_put_str(b, "seq");
        wire_put_int(b, *seq);
    }
    return wire_msg_end(b);
}

/* A histogram of tick times as [bucket, count, bucket, count, …]: its non-zero buckets, so that a
 * client can take the percentiles of any window from two replies. h NULL: none counted. */
static void put_hist(wire_buf *b, const char *key, const uint32_t *h)
{
    uint32_t nz = 0;
    for (int k = 0; h && k < WIRE_LATE_BUCKETS; k++) nz += h[k] != 0;
    wire_put_str(b, key);
    wire_put_array(b, 2 * nz);
    for (int k = 0; h && k < WIRE_LATE_BUCKETS; k++)
        if (h[k]) {
            wire_put_uint(b, (uint64_t)k);
            wire_put_uint(b, h[k]);
        }
}

long wire_msg_stats(wire_buf *b, const wire_stats *s, const wire_world_stats *worlds, int nworlds)
{
    begin(b, "stats", 9);
    wire_put_str(b, "clients"); wire_put_uint(b, s->clients);
    wire_put_str(b, "queued_bytes"); wire_put_uint(b, s->queued_bytes);
    wire_put_str(b, "queued_max"); wire_put_uint(b, s->queued_max);
    wire_put_str(b, "frames_sent"); wire_put_uint(b, s->frames_sent);
    wire_put_str(b, "bytes_sent"); wire_put_uint(b, s->bytes_sent);
    wire_put_str(b, "frames_skipped"); wire_put_uint(b, s->frames_skipped);
    wire_put_str(b, "cpu_user_us"); wire_put_uint(b, s->cpu_user_us);
    wire_put_str(b, "cpu_sys_us"); wire_put_uint(b, s->cpu_sys_us);
    wire_put_str(b, "worlds");
    wire_put_array(b, (uint32_t)nworlds);
    for (int i = 0; i < nworlds; i++) {
        const wire_world_stats *w = &worlds[i];
        wire_put_map(b, 14);
        wire_put_str(b, "id"); wire_put_uint(b, w->id);
        wire_put_str(b, "tick"); wire_put_uint(b, w->tick);
        wire_put_str(b, "ticks"); wire_put_uint(b, w->ticks);
        wire_put_str(b, "late_p50_us"); wire_put_uint(b, w->late_p50_us);
        wire_put_str(b, "late_p99_us"); wire_put_uint(b, w->late_p99_us);
        wire_put_str(b, "late_max_us"); wire_put_uint(b, w->late_max_us);
        wire_put_str(b, "work_p50_us"); wire_put_uint(b, w->work_p50_us);
        wire_put_str(b, "work_p99_us"); wire_put_uint(b, w->work_p99_us);
        wire_put_str(b, "work_max_us"); wire_put_uint(b, w->work_max_us);
        wire_put_str(b, "overruns"); wire_put_uint(b, w->overruns);
        wire_put_str(b, "skipped"); wire_put_uint(b, w->skipped);
        wire_put_str(b, "subs"); wire_put_uint(b, w->subs);
        put_hist(b, "late_hist", w->late_hist);
        put_hist(b, "work_hist", w->work_hist);
    }
    return wire_msg_end(b);
}
